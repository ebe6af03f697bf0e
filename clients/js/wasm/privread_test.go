//go:build !(js && wasm)

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/ava-labs/libevm/crypto"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/apiserver"
	"github.com/fhegate/fhegate/consensus/local"
)

// TestPrivateReadCore: the WebAssembly core's private-read path — its own
// key pair, the request body it builds around an EIP-712 signature, and
// the combination of the members' raw JSON answers — reads the owner's
// input back from a 2-of-3 committee, and its wire types are consensus's.
func TestPrivateReadCore(t *testing.T) {
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
	ct, proof, err := m.EncryptInput([]int64{5, -6, 77}, owner)
	require.NoError(t, err)
	att, err := m.UploadBatch(ctx, owner, []api.InputUpload{{Ciphertext: ct, Proof: proof, CType: 1}})
	require.NoError(t, err)
	acl.Allow(att.Handle, owner)

	sk, pk, err := ReaderKeys("InsecureBGVN10")
	require.NoError(t, err)
	deadline := uint64(time.Now().Add(time.Minute).Unix())
	// What the TypeScript wrapper has ethers sign: the EIP-712 digest.
	d := api.PrivateReadDigest(lc.Config.ChainIDBig(), att.Handle, pk, 9, deadline)
	sig, err := crypto.Sign(d[:], ownerKey)
	require.NoError(t, err)
	sig[64] += 27
	body, err := PrivateReadBody(hex0x(att.Handle[:]), pk, hex0x(owner[:]), 9, deadline, hex0x(sig))
	require.NoError(t, err)
	var cr api.PrivateReadRequest
	require.NoError(t, json.Unmarshal(body, &cr))
	again, err := json.Marshal(cr)
	require.NoError(t, err)
	require.JSONEq(t, string(body), string(again))

	var answers []string
	for _, api := range apis {
		resp, err := http.Post(api+"/v1/private-read", "application/json", bytes.NewReader(body))
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
		answers = append(answers, string(b))
	}
	var a PrivateReadResponse
	require.NoError(t, json.Unmarshal([]byte(answers[0]), &a))
	require.Equal(t, 2, a.Threshold)

	for _, pick := range [][]string{answers[:2], answers[1:], {answers[2], answers[0]}} {
		got, err := CombinePrivateRead(sk, pick)
		require.NoError(t, err)
		require.Equal(t, []int64{5, -6, 77}, got[:3])
	}
	_, err = CombinePrivateRead(sk, answers[:1])
	require.ErrorContains(t, err, "fewer than t")
	// Another reader's key does not decrypt the answers.
	other, _, err := ReaderKeys("InsecureBGVN10")
	require.NoError(t, err)
	got, err := CombinePrivateRead(other, answers[:2])
	require.NoError(t, err)
	require.NotEqual(t, []int64{5, -6, 77}, got[:3])
}
