package api

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/ava-labs/libevm/crypto"
	"github.com/ava-labs/libevm/signer/core/apitypes"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/precompiles"
)

// FuzzDecodePrivateRead: the request decoder never panics, bounds every
// field before decoding it, and what it accepts re-encodes to a request
// that decodes to the same fields.
func FuzzDecodePrivateRead(f *testing.F) {
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	keys := fhe.GenKeys(p, nil)
	pkb, err := keys.Public.MarshalBinary()
	require.NoError(f, err)
	sk, err := crypto.GenerateKey()
	require.NoError(f, err)
	req, err := SignPrivateRead(sk, nil, [32]byte{1}, pkb, 7, 1<<40)
	require.NoError(f, err)
	good, err := json.Marshal(req.JSON())
	require.NoError(f, err)
	f.Add(good)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"handle":"0x` + strings.Repeat("00", 32) + `","publicKey":"0x00"}`))
	f.Add([]byte(`{"publicKey":"` + strings.Repeat("f", 1<<20) + `"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, pk, err := DecodePrivateRead(p, b)
		if err != nil {
			return
		}
		require.NotNil(t, pk)
		again, err := json.Marshal(r.JSON())
		require.NoError(t, err)
		r2, _, err := DecodePrivateRead(p, again)
		require.NoError(t, err)
		require.Equal(t, r, r2)
	})
}

// TestDecodePrivateRead: each malformed field is refused with an error
// naming it.
func TestDecodePrivateRead(t *testing.T) {
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	keys := fhe.GenKeys(p, nil)
	pkb, err := keys.Public.MarshalBinary()
	require.NoError(t, err)
	sk, err := crypto.GenerateKey()
	require.NoError(t, err)
	req, err := SignPrivateRead(sk, nil, [32]byte{1}, pkb, 7, 1<<40)
	require.NoError(t, err)
	for _, tc := range []struct {
		name, want string
		mut        func(*PrivateReadRequest)
	}{
		{"ok", "", func(*PrivateReadRequest) {}},
		{"short handle", "handle", func(r *PrivateReadRequest) { r.Handle = r.Handle[:10] }},
		{"non-hex signer", "signer", func(r *PrivateReadRequest) { r.Signer = "0x" + strings.Repeat("zz", 20) }},
		{"short signature", "signature", func(r *PrivateReadRequest) { r.Signature = "0x00" }},
		{"empty key", "publicKey", func(r *PrivateReadRequest) { r.PublicKey = "" }},
		{"truncated key", "publicKey", func(r *PrivateReadRequest) { r.PublicKey = r.PublicKey[:len(r.PublicKey)-2] }},
		{"oversized key", "publicKey", func(r *PrivateReadRequest) { r.PublicKey = "0x" + strings.Repeat("00", publicKeySize(p)+1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := req.JSON()
			tc.mut(&j)
			b, err := json.Marshal(j)
			require.NoError(t, err)
			_, _, err = DecodePrivateRead(p, b)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
	big := make([]byte, PrivateReadBodyLimit(p)+1)
	_, _, err = DecodePrivateRead(p, big)
	require.ErrorContains(t, err, "body")
}

// TestPrivateReadDigestEIP712: PrivateReadDigest is the EIP-712 digest
// that go-ethereum's typed-data implementation (what wallets'
// eth_signTypedData_v4 follows) computes for PrivateReadTypedData, and
// the domain's verifying contract is the FHEInput precompile.
func TestPrivateReadDigestEIP712(t *testing.T) {
	require.Equal(t, [20]byte(precompiles.FHEInputAddress), FHEInputAddress)
	handle := [32]byte{0xab, 31: 0xcd}
	pk := []byte("a public key's canonical bytes")
	for _, tc := range []struct {
		chain           int64
		nonce, deadline uint64
	}{{1, 0, 0}, {43114, 7, 1 << 40}, {99999, 1<<64 - 1, 1<<64 - 1}} {
		td := PrivateReadTypedData(big.NewInt(tc.chain), handle, pk, tc.nonce, tc.deadline)
		b, err := json.Marshal(td)
		require.NoError(t, err)
		var typed apitypes.TypedData
		require.NoError(t, json.Unmarshal(b, &typed))
		want, _, err := apitypes.TypedDataAndHash(typed)
		require.NoError(t, err)
		got := PrivateReadDigest(big.NewInt(tc.chain), handle, pk, tc.nonce, tc.deadline)
		require.Equal(t, want, got[:])
	}
}
