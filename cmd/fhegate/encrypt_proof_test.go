package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/apiserver"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/fhe"
)

// TestEncryptSubmitProof: `fhegate encrypt --submit` encrypts each value as
// its own input (replicated in every slot) with a proof of plaintext
// knowledge (against the copied-input attack) bound to --owner and the chain and epoch
// the member announces, uploads them as one set, and the committee attests
// the set with one aggregate over bls.InputBatchDigest; with --rooted the
// answer also carries the upload's input root, whose aggregate verifies. A
// key that is not the committee's is refused before anything is uploaded.
func TestEncryptSubmitProof(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	lc, err := local.Start(ctx, local.Options{N: 3, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10", Rotations: []int{1},
		RoundTimeout: 5 * time.Second, Log: zap.NewNop()})
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv, err := apiserver.NewAPIServer(lc.Member(1), ln.Addr().String(), apiserver.APIOptions{Tokens: []string{"tok-0123456789abcdef"}})
	require.NoError(t, err)
	go func() { _ = apiserver.ServeAPI(srv, ln) }()
	t.Cleanup(func() { srv.Close() })
	t.Setenv("FHEGATE_API_TOKEN", "tok-0123456789abcdef")

	dir := t.TempDir()
	pkb, err := lc.Keys.MarshalBinary()
	require.NoError(t, err)
	pkPath := filepath.Join(dir, "committee.pk")
	require.NoError(t, os.WriteFile(pkPath, pkb, 0o644))
	owner := "0x00000000000000000000000000000000000000a1"
	run := func(key string, extra ...string) (string, error) {
		root, _ := newRootCmd()
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetArgs(append([]string{"encrypt", "--key", key, "--values", "5,6", "--submit", "http://" + ln.Addr().String(), "--owner", owner}, extra...))
		err := root.Execute()
		return out.String(), err
	}
	out, err := run(pkPath)
	require.NoError(t, err)
	var att api.AttestationJSON
	require.NoError(t, json.Unmarshal([]byte(out), &att))
	require.Equal(t, owner, att.Owner)
	require.Len(t, att.Handles, 2, "one input per value")
	require.Equal(t, []uint16{1, 1}, att.CTypes) // JSON numbers, not base64: ethers.js reads them as uint8[]
	require.Len(t, att.ProofDigests, 2)
	require.Len(t, att.ProofDigests[0], 66)
	a, err := att.Attestation()
	require.NoError(t, err)
	committee, _, err := lc.Config.BLSCommittee()
	require.NoError(t, err)
	d := a.Digest(lc.Config.ChainIDBig())
	_, err = committee.VerifyAggregate(a.Signers, d[:], a.Signature)
	require.NoError(t, err)

	require.Nil(t, att.Root, "no root without --rooted")

	// --rooted: the answer also places the upload in an input root the
	// committee signed (FHEPolicy.evaluateRooted's arguments)
	out, err = run(pkPath, "--rooted")
	require.NoError(t, err)
	var ratt api.AttestationJSON
	require.NoError(t, json.Unmarshal([]byte(out), &ratt))
	require.NotNil(t, ratt.Root)
	ra, err := ratt.Attestation()
	require.NoError(t, err)
	rd, err := ra.RootDigest(lc.Config.ChainIDBig())
	require.NoError(t, err)
	_, err = committee.VerifyAggregate(ra.Root.Signers, rd[:], ra.Root.Signature)
	require.NoError(t, err)

	other, err := fhe.GenKeys(lc.Member(1).Params(), nil).Public.MarshalBinary()
	require.NoError(t, err)
	otherPath := filepath.Join(dir, "other.pk")
	require.NoError(t, os.WriteFile(otherPath, other, 0o644))
	_, err = run(otherPath)
	require.ErrorContains(t, err, "not the public key of the committee")
}
