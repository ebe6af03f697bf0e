package fhe_test

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// TestEvaluableUpload: an upload (zkpok.Key.EncryptInts, at the upload
// scale 2^{-1} mod t) decrypts to its values, its evaluable form 2·ct is at
// scale 1 and decrypts to the same values, and is not doubled again; the
// packer doubles an upload as it masks its bytes (AddEncoded, AddEncodedBlock)
// or its decoded form (Add), so an upload and a scale-1 ciphertext pack
// side by side, and packing the upload gives the same ciphertext as packing
// its evaluable form.
func TestEvaluableUpload(t *testing.T) {
	k := fhetest.MustKit(fhetest.InsecureBGVN10)
	p := k.Params
	key, err := zkpok.NewKey(k.Keys.Public)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(24, 2))
	vals := fhetest.RandInts(r, p.Slots(), 30000)
	up, _, err := key.EncryptInts(vals, zkpok.Context{ChainID: big.NewInt(1)})
	require.NoError(t, err)
	require.True(t, up.IsUpload())
	got, err := k.Dec.DecryptInts(up)
	require.NoError(t, err)
	require.Equal(t, vals, got)

	ev, err := up.Evaluable()
	require.NoError(t, err)
	require.False(t, ev.IsUpload())
	got, err = k.Dec.DecryptInts(ev)
	require.NoError(t, err)
	require.Equal(t, vals, got)
	again, err := ev.Evaluable()
	require.NoError(t, err)
	require.Same(t, ev, again, "an evaluable ciphertext is not doubled again")

	plainVals := fhetest.RandInts(r, p.Slots(), 30000)
	plain, err := k.Enc.EncryptInts(plainVals)
	require.NoError(t, err)
	upBytes, err := up.MarshalBinary()
	require.NoError(t, err)
	plainBytes, err := plain.MarshalBinary()
	require.NoError(t, err)

	pack := func(add func(sp *fhe.SlotPacker) error) *fhe.Ciphertext {
		sp, err := fhe.NewSlotPacker(p, 1, 1)
		require.NoError(t, err)
		require.NoError(t, add(sp))
		out, err := sp.Ciphertexts()
		require.NoError(t, err)
		return out[0]
	}
	encoded := pack(func(sp *fhe.SlotPacker) error {
		if err := sp.AddEncoded(0, [][]byte{upBytes}); err != nil {
			return err
		}
		return sp.AddEncoded(1, [][]byte{plainBytes})
	})
	decoded := pack(func(sp *fhe.SlotPacker) error {
		if err := sp.Add(0, []*fhe.Ciphertext{up}); err != nil {
			return err
		}
		return sp.Add(1, []*fhe.Ciphertext{plain})
	})
	viaEvaluable := pack(func(sp *fhe.SlotPacker) error {
		if err := sp.Add(0, []*fhe.Ciphertext{ev}); err != nil {
			return err
		}
		return sp.Add(1, []*fhe.Ciphertext{plain})
	})
	for name, c := range map[string]*fhe.Ciphertext{"AddEncoded": encoded, "Add": decoded, "Add of 2·ct": viaEvaluable} {
		require.False(t, c.IsUpload(), name)
		got, err := k.Dec.DecryptInts(c)
		require.NoError(t, err)
		require.Equal(t, vals[0], got[0], name)
		require.Equal(t, plainVals[1], got[1], name)
		for s := 2; s < p.Slots(); s++ {
			require.Zero(t, got[s], "%s: slot %d", name, s)
		}
	}
	b1, err := encoded.MarshalBinary()
	require.NoError(t, err)
	b2, err := viaEvaluable.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, b2, b1, "packing an upload is packing 2·ct")

	bp, err := fhe.NewBlockPacker(p, 1, 1, 1)
	require.NoError(t, err)
	require.NoError(t, bp.AddEncodedBlock(0, 0, upBytes))
	require.NoError(t, bp.AddEncodedBlock(0, fhe.VectorStride(1), plainBytes))
	out, err := bp.Ciphertexts()
	require.NoError(t, err)
	got, err = k.Dec.DecryptInts(out[0])
	require.NoError(t, err)
	require.Equal(t, vals[0], got[0])
	require.Equal(t, plainVals[fhe.VectorStride(1)], got[fhe.VectorStride(1)])
}
