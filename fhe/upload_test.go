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

	// every multiply-add path: the upload is multiplied by the doubled mask
	// 2·L_s mod q, the same residues as its 2·ct by L_s
	for _, path := range packPaths() {
		pack := func(add func(sp *fhe.SlotPacker) error) *fhe.Ciphertext {
			undo := fhe.UsePackPath(path)
			defer undo()
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
			require.Equal(t, vals[0], got[0], "%v %s", path, name)
			require.Equal(t, plainVals[1], got[1], "%v %s", path, name)
			for s := 2; s < p.Slots(); s++ {
				require.Zero(t, got[s], "%v %s: slot %d", path, name, s)
			}
		}
		want, err := viaEvaluable.MarshalBinary()
		require.NoError(t, err)
		for name, c := range map[string]*fhe.Ciphertext{"AddEncoded": encoded, "Add": decoded} {
			b, err := c.MarshalBinary()
			require.NoError(t, err)
			require.Equal(t, want, b, "%v %s: packing an upload is packing 2·ct", path, name)
		}
	}

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

	// the block packer: the upload's bytes pack as its evaluable form's do
	evBytes, err := ev.MarshalBinary()
	require.NoError(t, err)
	for _, path := range packPaths() {
		var outs [][]byte
		for _, raw := range [][]byte{upBytes, evBytes} {
			bp := newBlockPacker(t, p, path, 1, 1, 1)
			require.NoError(t, bp.AddEncodedBlock(0, 0, raw))
			require.NoError(t, bp.AddEncodedBlock(0, fhe.VectorStride(1), plainBytes))
			out, err := bp.Ciphertexts()
			require.NoError(t, err)
			b, err := out[0].MarshalBinary()
			require.NoError(t, err)
			outs = append(outs, b)
		}
		require.Equal(t, outs[1], outs[0], "%v: block packing an upload is packing 2·ct", path)
	}
}
