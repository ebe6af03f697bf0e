package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// TestCommitteeKeygenAssembleDKGServe: three operators each run `committee
// keygen` in their own directory (members 1 and 2 with a passphrase, member
// 3 with an age key file); `committee assemble` builds committee.json from
// the three public parts alone; each member runs `committee dkg` and
// `committee serve` from its own directory, where only its own secrets are
// (encrypted); member 1's API attests an upload (BLS signatures of the
// quorum). A wrong passphrase fails clearly; assemble refuses a bad proof of
// possession, a duplicate key, ids out of order and a secrets file.
func TestCommitteeKeygenAssembleDKGServe(t *testing.T) {
	root := t.TempDir()
	const pass = "operator passphrase"
	t.Setenv(envKeyPassphrase, "")
	t.Setenv(envKeyFile, "")
	preset := fhe.MustParams(fhetest.InsecureBGVN10).Preset.Name
	ids := []uint32{1, 2, 3}
	base := freeBase(t)
	mdir := func(id uint32) string { return filepath.Join(root, fmt.Sprintf("op%d", id)) }
	keyFile := filepath.Join(root, "op3-key", "member.key")

	// keygen refuses to write unencrypted secrets.
	_, err := runCLI(t, "committee", "keygen", "--dir", mdir(1), "--member", "1", "--addr", "127.0.0.1:1")
	require.ErrorContains(t, err, "never written unencrypted")

	var pubFiles []string
	for _, id := range ids {
		args := []string{"committee", "keygen", "--dir", mdir(id), "--member", fmt.Sprint(id),
			"--addr", fmt.Sprintf("127.0.0.1:%d", base+int(id)), "--scrypt-work-factor", "10"}
		if id == 3 {
			args = append(args, "--key-file", keyFile) // created
		} else {
			t.Setenv(envKeyPassphrase, pass)
		}
		out, err := runCLI(t, args...)
		t.Setenv(envKeyPassphrase, "")
		require.NoError(t, err)
		var pub consensus.MemberInfo
		require.NoError(t, json.Unmarshal([]byte(out), &pub))
		require.Equal(t, id, pub.ID)
		pf := filepath.Join(mdir(id), fmt.Sprintf("member-%d.pub.json", id))
		onDisk, err := os.ReadFile(pf)
		require.NoError(t, err)
		require.JSONEq(t, out, string(onDisk))
		pubFiles = append(pubFiles, pf)

		// Only this member's secrets, encrypted, 0600 in a 0700 directory.
		sp := filepath.Join(mdir(id), fmt.Sprintf("member-%d", id), "secrets.json")
		raw, err := os.ReadFile(sp)
		require.NoError(t, err)
		require.True(t, consensus.SecretsEncrypted(raw))
		fi, err := os.Stat(sp)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
		di, err := os.Stat(filepath.Dir(sp))
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o700), di.Mode().Perm())
		for _, other := range ids {
			if other != id {
				require.NoDirExists(t, filepath.Join(mdir(id), fmt.Sprintf("member-%d", other)))
			}
		}
	}
	ki, err := os.Stat(keyFile)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), ki.Mode().Perm())

	// keygen never replaces a member's keys.
	t.Setenv(envKeyPassphrase, pass)
	_, err = runCLI(t, "committee", "keygen", "--dir", mdir(1), "--member", "1", "--addr", "127.0.0.1:1", "--scrypt-work-factor", "10")
	require.ErrorContains(t, err, "refusing to replace")

	// assemble: public parts only.
	asm := []string{"committee", "assemble", "--chain-id", "1337", "--epoch", "1", "--preset", preset, "--t", "2", "--rotations", "1"}
	cfgJSON, err := runCLI(t, append(asm, pubFiles...)...)
	require.NoError(t, err)
	var cfg consensus.CommitteeConfig
	require.NoError(t, json.Unmarshal([]byte(cfgJSON), &cfg))
	require.Len(t, cfg.Members, 3)
	_, err = runCLI(t, append(asm, pubFiles[1], pubFiles[0], pubFiles[2])...)
	require.ErrorContains(t, err, "in order")
	_, err = runCLI(t, append(asm, pubFiles[0], filepath.Join(mdir(2), "member-2", "secrets.json"), pubFiles[2])...)
	require.ErrorContains(t, err, "not a member's public part")
	forged := func(name string, f func(p *consensus.MemberInfo)) string {
		var p consensus.MemberInfo
		require.NoError(t, consensus.LoadJSON(pubFiles[1], &p))
		f(&p)
		path := filepath.Join(root, name)
		require.NoError(t, consensus.SaveJSON(path, p, 0o644))
		return path
	}
	var p1, p3 consensus.MemberInfo
	require.NoError(t, consensus.LoadJSON(pubFiles[0], &p1))
	require.NoError(t, consensus.LoadJSON(pubFiles[2], &p3))
	// Member 2 claims member 1's BLS key (it cannot prove possession of it
	// with its own proof), or copies key and proof (a duplicate).
	_, err = runCLI(t, append(asm, pubFiles[0], forged("badpop.json", func(p *consensus.MemberInfo) { p.BLSKey = p3.BLSKey }), pubFiles[2])...)
	require.ErrorContains(t, err, "proof of possession")
	_, err = runCLI(t, append(asm, pubFiles[0], forged("dup.json", func(p *consensus.MemberInfo) { p.BLSKey, p.BLSPoP = p1.BLSKey, p1.BLSPoP }), pubFiles[2])...)
	require.ErrorContains(t, err, "same BLS key")

	// Every operator gets the same committee.json (public).
	for _, id := range ids {
		require.NoError(t, os.WriteFile(filepath.Join(mdir(id), "committee.json"), []byte(cfgJSON), 0o644))
	}

	// A wrong passphrase fails clearly (and says which file).
	t.Setenv(envKeyPassphrase, "not the passphrase")
	_, err = runCLI(t, "committee", "status", "--dir", mdir(1), "--member", "1")
	require.ErrorContains(t, err, "wrong passphrase")
	require.ErrorContains(t, err, "secrets.json")
	t.Setenv(envKeyPassphrase, "")
	_, err = runCLI(t, "committee", "status", "--dir", mdir(1), "--member", "1")
	require.ErrorContains(t, err, "FHEGATE_KEY_PASSPHRASE")
	// Member 3's key file opens member 3's secrets only.
	_, err = runCLI(t, "committee", "status", "--dir", mdir(3), "--member", "3", "--key-file", keyFile)
	require.NoError(t, err)
	_, err = runCLI(t, "committee", "status", "--dir", mdir(2), "--member", "2", "--key-file", keyFile)
	require.ErrorContains(t, err, "cannot decrypt")

	// The DKG, each member from its own directory. (The three run in one
	// process, which has one environment: the passphrase and the key file
	// are both offered; each secrets file opens with its own.)
	t.Setenv(envKeyPassphrase, pass)
	t.Setenv(envKeyFile, keyFile)
	runAll(t, ids, func(id uint32) []string {
		return []string{"committee", "dkg", "--dir", mdir(id), "--member", fmt.Sprint(id), "--round-timeout", "20s"}
	})
	pkb, err := os.ReadFile(filepath.Join(mdir(1), "committee.pk"))
	require.NoError(t, err)
	for _, id := range ids[1:] {
		other, err := os.ReadFile(filepath.Join(mdir(id), "committee.pk"))
		require.NoError(t, err)
		require.Equal(t, pkb, other, "member %d", id)
	}

	// serve: member 1 runs `committee serve` with the client API; members 2
	// and 3 answer it through openMember, what serve runs (one serve per
	// process: it installs the process-wide GPU dispatcher). An upload is
	// attested by the quorum.
	for _, id := range ids[1:] {
		m, st, err := openMember(mdir(id), id, 20*time.Second, nil)
		require.NoError(t, err)
		defer st.Close()
		defer m.Close()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	api := ln.Addr().String()
	require.NoError(t, ln.Close())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		cmd, _ := newRootCmd()
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetArgs([]string{"--log-level", "error", "committee", "serve", "--dir", mdir(1), "--member", "1", "--round-timeout", "20s", "--api", api})
		done <- cmd.ExecuteContext(ctx)
	}()
	defer func() {
		cancel()
		require.NoError(t, <-done, "member 1 serve")
	}()
	url := "http://" + api
	require.Eventually(t, func() bool {
		resp, err := http.Get(url + "/v1/status")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 30*time.Second, 100*time.Millisecond)
	pk, err := fhe.UnmarshalPublicKey(pkb)
	require.NoError(t, err)
	ct, err := fhe.NewEncryptor(pk).EncryptInts([]int64{42})
	require.NoError(t, err)
	ctb, err := ct.MarshalBinary()
	require.NoError(t, err)
	body, _ := json.Marshal(consensus.UploadRequest{Ciphertext: hex.EncodeToString(ctb), Owner: "0x" + hex.EncodeToString(make([]byte, 20))})
	var att consensus.AttestationJSON
	require.Eventually(t, func() bool {
		resp, err := http.Post(url+"/v1/inputs", "application/json", bytes.NewReader(body))
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		return resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&att) == nil
	}, 60*time.Second, 500*time.Millisecond)
	require.NotEmpty(t, att.Signature)
	require.NotEmpty(t, att.Signers)
}
