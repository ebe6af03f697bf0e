package fhe_test

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/engine/kernels/muladd"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/fhe/zkpok"
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

// TestSlotPackerAddEncoded: masking straight from the canonical bytes gives
// the packed ciphertexts Add gives (byte for byte), for public-key inputs at
// the top level and below it and for seeded (secret-key) inputs, on fresh
// random values in every slot; a bad encoding is refused before anything
// is added, so the packer's result is unchanged by the failed call.
//
// Each multiply-add path runs it — the Go loop, the vector kernel's C model
// and, where the CPU has it, the AVX-512 IFMA kernel — and all give the
// same bytes (the lazy sums may differ by multiples of q; the result is
// reduced).
func TestSlotPackerAddEncoded(t *testing.T) {
	for _, path := range packPaths() {
		slotPackerAddEncoded(t, path)
	}
}

// slotPackerAddEncoded packs the same inputs with Add on the Go loop and
// with AddEncoded on path.
func slotPackerAddEncoded(t *testing.T, path muladd.Path) {
	k := fhetest.MustKit(fhetest.InsecureBGVN10)
	p := k.Params
	r := rand.New(rand.NewPCG(17, 3))
	for _, level := range []int{1, p.MaxLevel()} {
		undo := fhe.UsePackPath(muladd.PathGo)
		viaCt, err := fhe.NewSlotPacker(p, level, 3)
		undo()
		require.NoError(t, err)
		undo = fhe.UsePackPath(path)
		viaBytes, err := fhe.NewSlotPacker(p, level, 3)
		undo()
		require.NoError(t, err)
		require.Equal(t, path, viaBytes.PackPath())
		for _, s := range r.Perm(p.Slots())[:24] {
			ins := make([]*fhe.Ciphertext, 3)
			raws := make([][]byte, 3)
			for j := range ins {
				vals := fhetest.RandInts(r, p.Slots(), 1000)
				switch j {
				case 0:
					ins[j], err = k.Enc.EncryptInts(vals)
				case 1:
					ins[j], err = k.Sym.EncryptInts(vals)
				default:
					ct, e := k.Enc.EncryptInts(vals)
					require.NoError(t, e)
					ins[j], err = k.Eval.DropLevels(ct, (ct.Level()-level)/2) // above the packing level
				}
				require.NoError(t, err)
				raws[j], err = ins[j].MarshalBinary()
				require.NoError(t, err)
			}
			require.Equal(t, ins[1].Seeded(), true)
			require.NoError(t, viaCt.Add(s, ins))
			require.NoError(t, viaBytes.AddEncoded(s, raws))
		}
		want := packedBytes(t, viaCt)
		require.Equal(t, want, packedBytes(t, viaBytes), "level %d, path %s", level, path)

		// Refused encodings leave the packer as it was.
		good, err := k.Enc.EncryptInts([]int64{1})
		require.NoError(t, err)
		gb, err := good.MarshalBinary()
		require.NoError(t, err)
		low, err := k.Eval.DropLevels(good, good.Level()-level+1)
		require.NoError(t, err)
		lb, err := low.MarshalBinary()
		require.NoError(t, err)
		rows := func(b []byte) []byte { // first row of c0 → all ones (a row the packer reads; rows above
			// the packing level are not read: the store validated them on upload)
			c := append([]byte(nil), b...)
			for i := 20; i < 20+8*p.N() && i < len(c); i++ {
				c[i] = 0xff
			}
			return c
		}
		other := fhetest.MustKit(fhetest.InsecureBGVN10Deep)
		ob, err := other.Enc.EncryptInts([]int64{1})
		require.NoError(t, err)
		obb, err := ob.MarshalBinary()
		require.NoError(t, err)
		for name, bad := range map[string][]byte{
			"truncated":     gb[:len(gb)-1],
			"trailing":      append(append([]byte(nil), gb...), 0),
			"unreduced row": rows(gb),
			"other preset":  obb,
			"garbage":       []byte("not a ciphertext"),
		} {
			err := viaBytes.AddEncoded(p.Slots()-1, [][]byte{gb, bad, gb})
			require.Error(t, err, name)
		}
		if level > 0 && low.Level() < level {
			require.ErrorContains(t, viaBytes.AddEncoded(p.Slots()-1, [][]byte{gb, lb, gb}), "level")
		}
		require.Equal(t, want, packedBytes(t, viaBytes), "level %d: a refused call changed the packer", level)
	}
}

// packedBytes is the canonical encoding of a packer's result.
func packedBytes(t *testing.T, sp *fhe.SlotPacker) [][]byte {
	t.Helper()
	out, err := sp.Ciphertexts()
	require.NoError(t, err)
	b := make([][]byte, len(out))
	for i, c := range out {
		b[i], err = c.MarshalBinary()
		require.NoError(t, err)
	}
	return b
}

// BenchmarkSlotPackerAddEncoded is BenchmarkSlotPackerAdd from the stored
// bytes (what the committee holds), against decoding them first.
func BenchmarkSlotPackerAddEncoded(b *testing.B) {
	p, err := fhe.NewParams(fhe.BGVN14)
	require.NoError(b, err)
	ks := fhe.GenKeys(p, nil)
	ct, err := fhe.NewEncryptor(ks.Public).EncryptInts([]int64{1})
	require.NoError(b, err)
	raw, err := ct.MarshalBinary()
	require.NoError(b, err)
	raws := [][]byte{raw, raw, raw, raw, raw, raw, raw, raw}
	b.Run("encoded", func(b *testing.B) {
		sp, err := fhe.NewSlotPacker(p, 2, len(raws))
		require.NoError(b, err)
		for i := 0; i < b.N; i++ {
			if err := sp.AddEncoded(i%p.Slots(), raws); err != nil && i < p.Slots() {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode-then-add", func(b *testing.B) {
		sp, err := fhe.NewSlotPacker(p, 2, len(raws))
		require.NoError(b, err)
		for i := 0; i < b.N; i++ {
			ins := make([]*fhe.Ciphertext, len(raws))
			for j, r := range raws {
				if ins[j], err = fhe.UnmarshalCiphertext(r); err != nil {
					b.Fatal(err)
				}
			}
			if err := sp.Add(i%p.Slots(), ins); err != nil && i < p.Slots() {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSlotPackerAddEncodedBlock is BenchmarkSlotPackerAddEncoded for
// vector requests (NewBlockPacker): one request of K = 8 attributes in one
// ciphertext per iteration, masked by its 8-slot block at the same level
// (2) from its stored bytes: 2 × 3 × 2^14 multiply-adds. The requests
// follow the layout of a full batch (VectorLayout: A = 8 accumulators,
// request r in accumulator r mod 8, block ⌊r/8⌋·8), so eight consecutive
// requests share one block mask and each new block's mask is the previous
// one's, permuted. One op is one request (against eight inputs an op
// above).
// BenchmarkSlotPackerAddEncodedBlock: one vector request into a full
// BGVN14 batch, for a scale-1 ciphertext and for an upload (evaluated as
// 2·ct: one product with the doubled mask).
func BenchmarkSlotPackerAddEncodedBlock(b *testing.B) {
	p, err := fhe.NewParams(fhe.BGVN14)
	require.NoError(b, err)
	ks := fhe.GenKeys(p, nil)
	const k = 8
	vals, err := p.VectorInts([]int64{1, 2, 3, 4, 5, 6, 7, 8})
	require.NoError(b, err)
	ct, err := fhe.NewEncryptor(ks.Public).EncryptInts(vals)
	require.NoError(b, err)
	key, err := zkpok.NewKey(ks.Public)
	require.NoError(b, err)
	up, _, err := key.EncryptInts(vals, zkpok.Context{ChainID: big.NewInt(1)})
	require.NoError(b, err)
	l, err := fhe.NewVectorLayout(p, k, p.Slots()) // a full batch
	require.NoError(b, err)
	require.Equal(b, 8, l.Accs)
	for name, c := range map[string]*fhe.Ciphertext{"scale1": ct, "upload": up} {
		raw, err := c.MarshalBinary()
		require.NoError(b, err)
		b.Run(name, func(b *testing.B) {
			sp, err := fhe.NewBlockPacker(p, 2, l.Accs, k)
			require.NoError(b, err)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r := i % l.Requests
				if r == 0 && i > 0 { // the batch is full: a new packer
					b.StopTimer()
					if sp, err = fhe.NewBlockPacker(p, 2, l.Accs, k); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				a, s := l.Place(r)
				if err := sp.AddEncodedBlock(a, s, raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzSlotPackerAddEncoded: AddEncoded reads untrusted bytes in place; it
// must never panic, and a refused input must leave the packer unchanged.
func FuzzSlotPackerAddEncoded(f *testing.F) {
	k := fhetest.MustKit(fhetest.InsecureBGVN10)
	p := k.Params
	ct, err := k.Enc.EncryptInts([]int64{3})
	require.NoError(f, err)
	good, err := ct.MarshalBinary()
	require.NoError(f, err)
	sym, err := k.Sym.EncryptInts([]int64{4})
	require.NoError(f, err)
	seeded, err := sym.MarshalBinary()
	require.NoError(f, err)
	f.Add(good, 0, byte(0))
	f.Add(seeded, 30, byte(0xff))
	f.Add(good[:40], 5, byte(1))
	f.Fuzz(func(t *testing.T, b []byte, at int, x byte) {
		sp, err := fhe.NewSlotPacker(p, 1, 2)
		require.NoError(t, err)
		require.NoError(t, sp.AddEncoded(0, [][]byte{good, good}))
		before := packedBytes(t, sp)
		mut := append([]byte(nil), b...)
		if len(mut) > 0 {
			mut[(at%len(mut)+len(mut))%len(mut)] ^= x
		}
		if err := sp.AddEncoded(1, [][]byte{good, mut}); err != nil {
			require.Equal(t, before, packedBytes(t, sp), "a refused input changed the packer")
		}
	})
}
