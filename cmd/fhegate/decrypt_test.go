package main

import (
	"context"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
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
	"github.com/fhegate/fhegate/consensus/config"
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
	// No --preset: the key is generated for the preset of the committee's
	// key, which the first member's API announces.
	out, err := runCLI(t, "keys", "gen", "--committee-api", apis[0], "--out", dir)
	require.NoError(t, err)
	require.Contains(t, out, "(InsecureBGVN10: the committee's key at "+apis[0]+")")
	signerFile := filepath.Join(dir, "owner.key")
	require.NoError(t, os.WriteFile(signerFile, []byte(hex.EncodeToString(crypto.FromECDSA(ownerKey))), 0o600))
	handle := "0x" + hex.EncodeToString(att.Handle[:])

	out, err = runCLI(t, "decrypt", "--key", filepath.Join(dir, "secret.key"), "--handle", handle,
		"--committee-api", strings.Join(apis, ","), "--signer-key-file", signerFile, "--slots", "4")
	require.NoError(t, err)
	require.Equal(t, "42,-7,1000,3", strings.TrimSpace(out))

	// One member's URL for a 2-of-3 committee: the error names the real
	// threshold and what to do (it used to end in "%!w(<nil>)").
	_, err = runCLI(t, "decrypt", "--key", filepath.Join(dir, "secret.key"), "--handle", handle,
		"--committee-api", apis[0], "--signer-key-file", signerFile)
	require.ErrorContains(t, err, "1 of the 1 members asked shared, the committee's threshold is t=2: give at least 2 member API URLs")
	require.NotContains(t, err.Error(), "%!")

	stranger, err := crypto.GenerateKey()
	require.NoError(t, err)
	strangerFile := filepath.Join(dir, "stranger.key")
	require.NoError(t, os.WriteFile(strangerFile, []byte(hex.EncodeToString(crypto.FromECDSA(stranger))), 0o600))
	_, err = runCLI(t, "decrypt", "--key", filepath.Join(dir, "secret.key"), "--handle", handle,
		"--committee-api", strings.Join(apis, ","), "--signer-key-file", strangerFile)
	require.ErrorContains(t, err, "not allowed")
	require.ErrorContains(t, err, "none of the 3 members asked shared")
	require.NotContains(t, err.Error(), "t=0")

	_, err = runCLI(t, "decrypt", "--key", filepath.Join(dir, "secret.key"))
	require.ErrorContains(t, err, "exactly one of --in")
}

// TestKeysGenPreset: keys gen's preset is --preset when given, else the
// devnet committee's (config.DefaultPreset; the committee's own with
// --committee-api: TestDecryptPrivateRead); a chain's JSON-RPC URL given as
// the committee API is named as such.
func TestKeysGenPreset(t *testing.T) {
	pr, from, err := keysPreset(context.Background(), "", "")
	require.NoError(t, err)
	require.Equal(t, config.DefaultPreset, pr.Name)
	require.Contains(t, from, "the devnet committee's preset")
	pr, from, err = keysPreset(context.Background(), "bgv-n13-t65537", "http://unused.invalid")
	require.NoError(t, err)
	require.Equal(t, "bgv-n13-t65537", pr.Name)
	require.Equal(t, "--preset", from)

	rpc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {})) // as geth answers a GET
	t.Cleanup(rpc.Close)
	_, err = runCLI(t, "keys", "gen", "--committee-api", rpc.URL, "--out", t.TempDir())
	require.ErrorIs(t, err, api.ErrNotCommitteeAPI)
	require.ErrorContains(t, err, "not the chain's JSON-RPC URL")
}
