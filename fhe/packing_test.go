package fhe_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// TestSlotPackerEverySlot fills every slot of a packed pair from its own
// request, whose inputs hold random values in EVERY slot (the cross-talk
// attack: a request tries to write into other requests' slots), and checks
// that slot s of packed input j decrypts to request s's slot-s value of
// input j and to nothing else — at a low level (requests added in random
// order) and at the top level (in slot order).
func TestSlotPackerEverySlot(t *testing.T) {
	k := fhetest.MustKit(fhetest.InsecureBGVN10)
	p := k.Params
	r := rand.New(rand.NewPCG(13, 1))
	for _, level := range []int{1, p.MaxLevel()} {
		sp, err := fhe.NewSlotPacker(p, level, 2)
		require.NoError(t, err)
		want := [2][]int64{make([]int64, p.Slots()), make([]int64, p.Slots())}
		order := r.Perm(p.Slots()) // the result does not depend on the order requests are added in …
		if level == p.MaxLevel() {
			for i := range order { // … in slot order, where each mask derives from the previous one
				order[i] = i
			}
		}
		for _, s := range order {
			ins := make([]*fhe.Ciphertext, 2)
			for j := range ins {
				vals := fhetest.RandInts(r, p.Slots(), 1000)
				want[j][s] = vals[s]
				ins[j], err = k.Enc.EncryptInts(vals)
				require.NoError(t, err)
			}
			require.NoError(t, sp.Add(s, ins))
		}
		out, err := sp.Ciphertexts()
		require.NoError(t, err)
		for j, ct := range out {
			require.Equal(t, level, ct.Level())
			got, err := k.Dec.DecryptInts(ct)
			require.NoError(t, err)
			require.Equal(t, want[j], got, "level %d, packed input %d", level, j)
		}
	}
}

// TestSlotPackerPartial: a few requests in slots 0…B−1 (replicated inputs,
// as honest clients encrypt them); the unused slots decrypt to 0.
func TestSlotPackerPartial(t *testing.T) {
	k := fhetest.MustKit(fhetest.InsecureBGVN10)
	p := k.Params
	sp, err := fhe.NewSlotPacker(p, 1, 1)
	require.NoError(t, err)
	want := make([]int64, p.Slots())
	for s, v := range []int64{5, -3, 0, 77, 1} {
		vals := make([]int64, p.Slots())
		for i := range vals {
			vals[i] = v
		}
		ct, err := k.Enc.EncryptInts(vals)
		require.NoError(t, err)
		require.NoError(t, sp.Add(s, []*fhe.Ciphertext{ct}))
		want[s] = v
	}
	out, err := sp.Ciphertexts()
	require.NoError(t, err)
	got, err := k.Dec.DecryptInts(out[0])
	require.NoError(t, err)
	require.Equal(t, want, got)
}

// TestSlotPackerRejects: bad slots, widths, levels and operands get errors.
func TestSlotPackerRejects(t *testing.T) {
	k := fhetest.MustKit(fhetest.InsecureBGVN10)
	p := k.Params
	_, err := fhe.NewSlotPacker(p, p.MaxLevel()+1, 1)
	require.Error(t, err)
	_, err = fhe.NewSlotPacker(p, 1, 0)
	require.Error(t, err)
	sp, err := fhe.NewSlotPacker(p, 2, 1)
	require.NoError(t, err)
	_, err = sp.Ciphertexts()
	require.Error(t, err, "nothing packed")
	ct, err := k.Enc.EncryptInts([]int64{1})
	require.NoError(t, err)
	low, err := k.Eval.DropLevels(ct, ct.Level()-1)
	require.NoError(t, err)
	require.ErrorContains(t, sp.Add(0, []*fhe.Ciphertext{low}), "below the packing level")
	require.Error(t, sp.Add(p.Slots(), []*fhe.Ciphertext{ct}))
	require.Error(t, sp.Add(-1, []*fhe.Ciphertext{ct}))
	require.Error(t, sp.Add(0, []*fhe.Ciphertext{ct, ct}))
	require.Error(t, sp.Add(0, []*fhe.Ciphertext{nil}))
	require.NoError(t, sp.Add(0, []*fhe.Ciphertext{ct}))
	require.ErrorContains(t, sp.Add(0, []*fhe.Ciphertext{ct}), "twice")
}

// BenchmarkSlotPackerAdd: one request of 8 inputs masked and added at the
// BGVN14 pack level (2): 8 × 2 × 3 × 2^14 multiply-adds.
func BenchmarkSlotPackerAdd(b *testing.B) {
	p, err := fhe.NewParams(fhe.BGVN14)
	require.NoError(b, err)
	ks := fhe.GenKeys(p, nil)
	ct, err := fhe.NewEncryptor(ks.Public).EncryptInts([]int64{1})
	require.NoError(b, err)
	ins := []*fhe.Ciphertext{ct, ct, ct, ct, ct, ct, ct, ct}
	sp, err := fhe.NewSlotPacker(p, 2, len(ins))
	require.NoError(b, err)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := sp.Add(i%p.Slots(), ins); err != nil && i < p.Slots() {
			b.Fatal(err)
		}
	}
}
