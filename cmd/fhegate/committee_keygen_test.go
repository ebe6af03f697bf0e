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

	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/config"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// keygenOps is three operators' directories under one root: members 1 and
// 2 unlock their secrets with pass, member 3 with the age key file keyFile.
type keygenOps struct {
	root, pass, preset, keyFile string
	ids                         []uint32
	base                        int
}

func (o keygenOps) mdir(id uint32) string { return filepath.Join(o.root, fmt.Sprintf("op%d", id)) }

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
	t.Setenv(envKeyPassphrase, "")
	t.Setenv(envKeyFile, "")
	ops := keygenOps{
		root:    root,
		pass:    "operator passphrase",
		preset:  fhe.MustParams(fhetest.InsecureBGVN10).Preset.Name,
		keyFile: filepath.Join(root, "op3-key", "member.key"),
		ids:     []uint32{1, 2, 3},
		base:    freeBase(t),
	}

	pubFiles := keygenAllMembers(t, ops)
	cfgJSON := assembleFromPublicParts(t, ops, pubFiles)

	// Every operator gets the same committee.json (public).
	for _, id := range ops.ids {
		require.NoError(t, os.WriteFile(filepath.Join(ops.mdir(id), "committee.json"), []byte(cfgJSON), 0o644))
	}

	checkSecretsUnlock(t, ops)
	pkb := dkgEachMember(t, ops)
	serveAndAttest(t, ops, pkb)
}

// keygenAllMembers runs `committee keygen` for every member in its own
// directory and returns the public-part files; keygen refuses to write
// unencrypted secrets and never replaces a member's keys.
func keygenAllMembers(t *testing.T, ops keygenOps) []string {
	t.Helper()
	// keygen refuses to write unencrypted secrets.
	_, err := runCLI(t, "committee", "keygen", "--dir", ops.mdir(1), "--member", "1", "--addr", "127.0.0.1:1")
	require.ErrorContains(t, err, "never written unencrypted")

	var pubFiles []string
	for _, id := range ops.ids {
		args := []string{"committee", "keygen", "--dir", ops.mdir(id), "--member", fmt.Sprint(id),
			"--addr", fmt.Sprintf("127.0.0.1:%d", ops.base+int(id)), "--scrypt-work-factor", "10"}
		if id == 3 {
			args = append(args, "--key-file", ops.keyFile) // created
		} else {
			t.Setenv(envKeyPassphrase, ops.pass)
		}
		out, err := runCLI(t, args...)
		t.Setenv(envKeyPassphrase, "")
		require.NoError(t, err)
		var pub config.MemberInfo
		require.NoError(t, json.Unmarshal([]byte(out), &pub))
		require.Equal(t, id, pub.ID)
		pf := filepath.Join(ops.mdir(id), fmt.Sprintf("member-%d.pub.json", id))
		onDisk, err := os.ReadFile(pf)
		require.NoError(t, err)
		require.JSONEq(t, out, string(onDisk))
		pubFiles = append(pubFiles, pf)
		requireOnlyOwnSecrets(t, ops, id)
	}
	ki, err := os.Stat(ops.keyFile)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), ki.Mode().Perm())

	// keygen never replaces a member's keys.
	t.Setenv(envKeyPassphrase, ops.pass)
	_, err = runCLI(t, "committee", "keygen", "--dir", ops.mdir(1), "--member", "1", "--addr", "127.0.0.1:1", "--scrypt-work-factor", "10")
	require.ErrorContains(t, err, "refusing to replace")
	return pubFiles
}

// requireOnlyOwnSecrets checks that member id's directory holds only its own
// secrets, encrypted, 0600 in a 0700 directory.
func requireOnlyOwnSecrets(t *testing.T, ops keygenOps, id uint32) {
	t.Helper()
	sp := filepath.Join(ops.mdir(id), fmt.Sprintf("member-%d", id), "secrets.json")
	raw, err := os.ReadFile(sp)
	require.NoError(t, err)
	require.True(t, config.SecretsEncrypted(raw))
	fi, err := os.Stat(sp)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	di, err := os.Stat(filepath.Dir(sp))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), di.Mode().Perm())
	for _, other := range ops.ids {
		if other != id {
			require.NoDirExists(t, filepath.Join(ops.mdir(id), fmt.Sprintf("member-%d", other)))
		}
	}
}

// assembleFromPublicParts runs `committee assemble` on the public parts
// alone and returns committee.json; it refuses ids out of order, a secrets
// file, a bad proof of possession and a duplicate BLS key.
func assembleFromPublicParts(t *testing.T, ops keygenOps, pubFiles []string) string {
	t.Helper()
	asm := []string{"committee", "assemble", "--chain-id", "1337", "--epoch", "1", "--preset", ops.preset, "--t", "2", "--rotations", "1"}
	cfgJSON, err := runCLI(t, append(asm, pubFiles...)...)
	require.NoError(t, err)
	var cfg config.CommitteeConfig
	require.NoError(t, json.Unmarshal([]byte(cfgJSON), &cfg))
	require.Len(t, cfg.Members, 3)
	_, err = runCLI(t, append(asm, pubFiles[1], pubFiles[0], pubFiles[2])...)
	require.ErrorContains(t, err, "in order")
	_, err = runCLI(t, append(asm, pubFiles[0], filepath.Join(ops.mdir(2), "member-2", "secrets.json"), pubFiles[2])...)
	require.ErrorContains(t, err, "not a member's public part")
	forged := func(name string, f func(p *config.MemberInfo)) string {
		var p config.MemberInfo
		require.NoError(t, config.LoadJSON(pubFiles[1], &p))
		f(&p)
		path := filepath.Join(ops.root, name)
		require.NoError(t, config.SaveJSON(path, p, 0o644))
		return path
	}
	var p1, p3 config.MemberInfo
	require.NoError(t, config.LoadJSON(pubFiles[0], &p1))
	require.NoError(t, config.LoadJSON(pubFiles[2], &p3))
	// Member 2 claims member 1's BLS key (it cannot prove possession of it
	// with its own proof), or copies key and proof (a duplicate).
	_, err = runCLI(t, append(asm, pubFiles[0], forged("badpop.json", func(p *config.MemberInfo) { p.BLSKey = p3.BLSKey }), pubFiles[2])...)
	require.ErrorContains(t, err, "proof of possession")
	_, err = runCLI(t, append(asm, pubFiles[0], forged("dup.json", func(p *config.MemberInfo) { p.BLSKey, p.BLSPoP = p1.BLSKey, p1.BLSPoP }), pubFiles[2])...)
	require.ErrorContains(t, err, "same BLS key")
	return cfgJSON
}

// checkSecretsUnlock: a wrong or missing passphrase fails clearly, and
// member 3's key file opens member 3's secrets only.
func checkSecretsUnlock(t *testing.T, ops keygenOps) {
	t.Helper()
	// A wrong passphrase fails clearly (and says which file).
	t.Setenv(envKeyPassphrase, "not the passphrase")
	_, err := runCLI(t, "committee", "status", "--dir", ops.mdir(1), "--member", "1")
	require.ErrorContains(t, err, "wrong passphrase")
	require.ErrorContains(t, err, "secrets.json")
	t.Setenv(envKeyPassphrase, "")
	_, err = runCLI(t, "committee", "status", "--dir", ops.mdir(1), "--member", "1")
	require.ErrorContains(t, err, "FHEGATE_KEY_PASSPHRASE")
	// Member 3's key file opens member 3's secrets only.
	_, err = runCLI(t, "committee", "status", "--dir", ops.mdir(3), "--member", "3", "--key-file", ops.keyFile)
	require.NoError(t, err)
	_, err = runCLI(t, "committee", "status", "--dir", ops.mdir(2), "--member", "2", "--key-file", ops.keyFile)
	require.ErrorContains(t, err, "cannot decrypt")
}

// dkgEachMember runs `committee dkg`, each member from its own directory,
// and returns the committee public key, the same for every member. (The
// three run in one process, which has one environment: the passphrase and
// the key file are both offered; each secrets file opens with its own.)
func dkgEachMember(t *testing.T, ops keygenOps) []byte {
	t.Helper()
	t.Setenv(envKeyPassphrase, ops.pass)
	t.Setenv(envKeyFile, ops.keyFile)
	// Each member first opens its secrets (one with a scrypt passphrase)
	// and only then joins; the last is started 3 s after the others, as an
	// operator would: the first rounds' messages to it are refused until
	// it listens and are sent again (transport.Mux.SendRetrying). Rounds
	// of 60 s, not 20 s: CI runs this beside the PoCL suites on 2 cores.
	last := ops.ids[len(ops.ids)-1]
	runAllAfter(t, ops.ids, map[uint32]time.Duration{last: 3 * time.Second}, func(id uint32) []string {
		return []string{"committee", "dkg", "--dir", ops.mdir(id), "--member", fmt.Sprint(id), "--round-timeout", "60s"}
	})
	pkb, err := os.ReadFile(filepath.Join(ops.mdir(1), "committee.pk"))
	require.NoError(t, err)
	for _, id := range ops.ids[1:] {
		other, err := os.ReadFile(filepath.Join(ops.mdir(id), "committee.pk"))
		require.NoError(t, err)
		require.Equal(t, pkb, other, "member %d", id)
	}
	return pkb
}

// serveAndAttest: member 1 runs `committee serve` with the client API;
// members 2 and 3 answer it through openMember, what serve runs (one serve
// per process: it installs the process-wide GPU dispatcher). An upload is
// attested by the quorum.
func serveAndAttest(t *testing.T, ops keygenOps, pkb []byte) {
	t.Helper()
	for _, id := range ops.ids[1:] {
		m, st, err := openMember(ops.mdir(id), id, 20*time.Second, nil)
		require.NoError(t, err)
		defer st.Close()
		defer m.Close()
	}
	url, stop := startServe(t, ops.mdir(1), 1)
	defer stop()
	att := uploadUntilAttested(t, url, pkb)
	require.NotEmpty(t, att.Signature)
	require.NotEmpty(t, att.Signers)
}

// startServe runs `committee serve --api` for member id from dir in the
// background until its /v1/status answers, and returns the API's URL and a
// stop function that cancels serve and requires it to return cleanly.
func startServe(t *testing.T, dir string, id uint32) (url string, stop func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	api := ln.Addr().String()
	require.NoError(t, ln.Close())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		cmd, _ := newRootCmd()
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetArgs([]string{"--log-level", "error", "committee", "serve", "--dir", dir, "--member", fmt.Sprint(id), "--round-timeout", "20s", "--api", api})
		done <- cmd.ExecuteContext(ctx)
	}()
	stop = func() {
		cancel()
		require.NoError(t, <-done, "member %d serve", id)
	}
	url = "http://" + api
	require.Eventually(t, func() bool {
		resp, err := http.Get(url + "/v1/status")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 30*time.Second, 100*time.Millisecond)
	return url, stop
}

// uploadUntilAttested encrypts 42 under the committee key pkb with a proof
// of plaintext knowledge (as `fhegate encrypt --submit` does) and posts it to
// the API at url until it is attested, returning the attestation.
func uploadUntilAttested(t *testing.T, url string, pkb []byte) api.AttestationJSON {
	t.Helper()
	pk, err := fhe.UnmarshalPublicKey(pkb)
	require.NoError(t, err)
	var owner [20]byte
	ups, _, err := encryptInputs(context.Background(), url, pk, owner, 1, false, -1, []int64{42})
	require.NoError(t, err)
	body, _ := json.Marshal(api.UploadRequest{Owner: "0x" + hex.EncodeToString(owner[:]),
		Inputs: []api.UploadInput{{Ciphertext: hex.EncodeToString(ups[0].Ciphertext), CType: 1, Proof: "0x" + hex.EncodeToString(ups[0].Proof)}}})
	var att api.AttestationJSON
	require.Eventually(t, func() bool {
		resp, err := http.Post(url+"/v1/inputs", "application/json", bytes.NewReader(body))
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		return resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&att) == nil
	}, 60*time.Second, 500*time.Millisecond)
	return att
}
