package main

import (
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/libevm/crypto"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/apiserver"
	"github.com/fhegate/fhegate/consensus/local"
)

// TestDecryptPrivateRead: `fhegate decrypt --handle` reads an input its
// signer owns through two of three members' APIs and prints the plaintext;
// a signer the ACL does not allow gets the members' refusal.
func TestDecryptPrivateRead(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	lc, err := local.Start(ctx, local.Options{N: 3, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10",
		RoundTimeout: 5 * time.Second, Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	acl := local.NewMemACL()
	apis, stop, err := lc.ServeMemberAPIs(apiserver.DevAPIOptions(), acl)
	require.NoError(t, err)
	t.Cleanup(stop)

	ownerKey, err := crypto.GenerateKey()
	require.NoError(t, err)
	owner := crypto.PubkeyToAddress(ownerKey.PublicKey)
	m := lc.Member(1)
	ct, proof, err := m.EncryptInput([]int64{42, -7, 1000, 3}, owner)
	require.NoError(t, err)
	att, err := m.UploadBatch(ctx, owner, []api.InputUpload{{Ciphertext: ct, Proof: proof, CType: 1}})
	require.NoError(t, err)
	acl.Allow(att.Handle, owner)

	dir := t.TempDir()
	_, err = runCLI(t, "keys", "gen", "--preset", "InsecureBGVN10", "--out", dir)
	require.NoError(t, err)
	signerFile := filepath.Join(dir, "owner.key")
	require.NoError(t, os.WriteFile(signerFile, []byte(hex.EncodeToString(crypto.FromECDSA(ownerKey))), 0o600))
	handle := "0x" + hex.EncodeToString(att.Handle[:])

	out, err := runCLI(t, "decrypt", "--key", filepath.Join(dir, "secret.key"), "--handle", handle,
		"--committee-api", strings.Join(apis, ","), "--signer-key-file", signerFile, "--slots", "4")
	require.NoError(t, err)
	require.Equal(t, "42,-7,1000,3", strings.TrimSpace(out))

	stranger, err := crypto.GenerateKey()
	require.NoError(t, err)
	strangerFile := filepath.Join(dir, "stranger.key")
	require.NoError(t, os.WriteFile(strangerFile, []byte(hex.EncodeToString(crypto.FromECDSA(stranger))), 0o600))
	_, err = runCLI(t, "decrypt", "--key", filepath.Join(dir, "secret.key"), "--handle", handle,
		"--committee-api", strings.Join(apis, ","), "--signer-key-file", strangerFile)
	require.ErrorContains(t, err, "not allowed")

	_, err = runCLI(t, "decrypt", "--key", filepath.Join(dir, "secret.key"))
	require.ErrorContains(t, err, "exactly one of --in")
}
