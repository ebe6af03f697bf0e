package fhe_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/engine/kernels/muladd"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// packPaths are the multiply-add paths this host can run (the Go loop, the
// vector kernel's C model and, where the CPU has it, the IFMA kernel).
func packPaths() []muladd.Path {
	paths := []muladd.Path{muladd.PathGo}
	for _, p := range []muladd.Path{muladd.PathEmulated, muladd.PathIFMA} {
		if muladd.Runnable(p) {
			paths = append(paths, p)
		}
	}
	return paths
}

// newBlockPacker is NewBlockPacker on path.
func newBlockPacker(t *testing.T, p *fhe.Params, path muladd.Path, level, accs, k int) *fhe.SlotPacker {
	t.Helper()
	undo := fhe.UsePackPath(path)
	defer undo()
	sp, err := fhe.NewBlockPacker(p, level, accs, k)
	require.NoError(t, err)
	require.Equal(t, path, sp.PackPath())
	return sp
}

// vectorRequest is one vector request of a test batch: its encoding and
// the K attributes its block must keep.
type vectorRequest struct {
	raw   []byte
	attrs []int64
}

// vectorRequests encrypts l.Requests vector requests. Request r is honest
// (VectorInts of its attributes), or malicious: junk in every slot outside
// its periodic pattern (r%4 == 1), or junk in every slot, its attributes
// being whatever lands in its block (r%4 == 3). The encryptions vary: seeded
// (r%3 == 0), public-key at the top level, or public-key dropped to a level
// above the packing level.
func vectorRequests(t *testing.T, k *fhetest.Kit, r *rand.Rand, l fhe.VectorLayout, level int) []vectorRequest {
	t.Helper()
	p := k.Params
	out := make([]vectorRequest, l.Requests)
	for q := range out {
		attrs := fhetest.RandInts(r, l.K, 1000)
		vals, err := p.VectorInts(attrs)
		require.NoError(t, err)
		switch q % 4 {
		case 1:
			for i := range vals {
				if i%l.Stride >= l.K {
					vals[i] = r.Int64N(30000) + 1 // never 0: junk the mask must remove
				}
			}
		case 3:
			vals = fhetest.RandInts(r, p.Slots(), 30000)
			_, s := l.Place(q)
			attrs = append([]int64(nil), vals[s:s+l.K]...)
		}
		var ct *fhe.Ciphertext
		switch q % 3 {
		case 0:
			ct, err = k.Sym.EncryptInts(vals)
		case 1:
			ct, err = k.Enc.EncryptInts(vals)
		default:
			ct, err = k.Enc.EncryptInts(vals)
			require.NoError(t, err)
			ct, err = k.Eval.DropLevels(ct, (ct.Level()-level+1)/2)
		}
		require.NoError(t, err)
		require.GreaterOrEqual(t, ct.Level(), level)
		raw, err := ct.MarshalBinary()
		require.NoError(t, err)
		out[q] = vectorRequest{raw: raw, attrs: attrs}
	}
	return out
}

// TestVectorPack packs batches of vector requests with block masks
// (NewBlockPacker, placed by VectorLayout) and decrypts every accumulator:
// slot b·K' + i holds attribute i of request A·b + a for i < K, and every
// other slot is 0 — the block mask removes whatever a request holds outside
// its block (malicious requests fill every other slot with junk), which
// proves σ_g(M_0) = M_s for g = SlotGaloisElement(s) on every block used,
// in both slot rows. Each multiply-add path gives the same bytes, and so
// does adding the requests in a random order (every mask then built from
// M_0 rather than from the previous block's) or one at a time with k = 1
// on a slot packer (below, TestBlockPackerWidthOne).
func TestVectorPack(t *testing.T) {
	kit := fhetest.MustKit(fhetest.InsecureBGVN10)
	p := kit.Params
	r := rand.New(rand.NewPCG(13, 7))
	for _, tc := range []struct {
		name            string
		k, requests     int
		level, wantAccs int
	}{
		{"K=3, two accumulators", 3, p.Slots()/4 + 5, 1, 2},
		{"K=8, three accumulators", 8, 2*p.Slots()/8 + 3, 1, 3},
		{"K=8, top level, few requests", 8, 9, p.MaxLevel(), 1},
		{"K=5, a full batch", 5, p.Slots() / 8, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := fhe.NewVectorLayout(p, tc.k, tc.requests)
			require.NoError(t, err)
			require.Equal(t, tc.wantAccs, l.Accs)
			reqs := vectorRequests(t, kit, r, l, tc.level)
			var want [][]byte
			for _, path := range packPaths() {
				sp := newBlockPacker(t, p, path, tc.level, l.Accs, tc.k)
				for q, req := range reqs { // in request order: consecutive requests share a block
					a, s := l.Place(q)
					require.NoError(t, sp.AddEncodedBlock(a, s, req.raw), "request %d", q)
				}
				got := packedBytes(t, sp)
				if want == nil {
					want = got
					checkVectorPack(t, kit, l, reqs, sp)
				}
				require.Equal(t, want, got, "path %s", path)
			}
			// any order: the same bytes (each mask from M_0, or from the
			// previous block's where the order happens to step by K')
			sp := newBlockPacker(t, p, muladd.PathGo, tc.level, l.Accs, tc.k)
			for _, q := range r.Perm(len(reqs)) {
				a, s := l.Place(q)
				require.NoError(t, sp.AddEncodedBlock(a, s, reqs[q].raw))
			}
			require.Equal(t, want, packedBytes(t, sp), "random order")
		})
	}
}

// checkVectorPack decrypts the accumulators of sp and checks them against
// the layout, then un-interleaves them (VectorLayout.Unpack) and checks
// that attribute k of request r lands in slot r of output k.
func checkVectorPack(t *testing.T, kit *fhetest.Kit, l fhe.VectorLayout, reqs []vectorRequest, sp *fhe.SlotPacker) {
	t.Helper()
	p := kit.Params
	out, err := sp.Ciphertexts()
	require.NoError(t, err)
	require.Len(t, out, l.Accs)
	tmod := int64(p.PlaintextModulus())
	in := make([][]uint64, l.Accs)
	for a, ct := range out {
		want := make([]int64, p.Slots())
		for b := 0; b*l.Stride < p.Slots(); b++ {
			if q := l.Accs*b + a; q < len(reqs) {
				copy(want[b*l.Stride:], reqs[q].attrs)
			}
		}
		got, err := kit.Dec.DecryptInts(ct)
		require.NoError(t, err)
		require.Equal(t, want, got, "accumulator %d", a)
		in[a] = make([]uint64, p.Slots())
		for i, v := range got {
			in[a][i] = uint64((v%tmod + tmod) % tmod)
		}
	}
	outs := make([][]uint64, l.K)
	for k := range outs {
		outs[k] = make([]uint64, p.Slots())
	}
	require.NoError(t, l.Unpack(in, outs))
	for k, o := range outs {
		for q := range o {
			var want uint64
			if q < len(reqs) {
				want = uint64((reqs[q].attrs[k]%tmod + tmod) % tmod)
			}
			require.Equal(t, want, o[q], "output %d, request %d", k, q)
		}
	}
}

// TestBlockPackerWidthOne: a block packer of k = 1 is a slot packer (M_s =
// L_s, the same cached L_0): the same bytes on every path, in slot order
// (the shortcut from the previous mask) and across the row boundary.
func TestBlockPackerWidthOne(t *testing.T) {
	kit := fhetest.MustKit(fhetest.InsecureBGVN10)
	p := kit.Params
	r := rand.New(rand.NewPCG(5, 9))
	slots := []int{0, 1, 2, 3, p.Slots()/2 - 1, p.Slots() / 2, p.Slots()/2 + 1, p.Slots() - 1}
	raws := make([][]byte, len(slots))
	for i := range raws {
		ct, err := kit.Enc.EncryptInts(fhetest.RandInts(r, p.Slots(), 1000))
		require.NoError(t, err)
		raws[i], err = ct.MarshalBinary()
		require.NoError(t, err)
	}
	for _, path := range packPaths() {
		undo := fhe.UsePackPath(path)
		slot, err := fhe.NewSlotPacker(p, 1, 1)
		undo()
		require.NoError(t, err)
		block := newBlockPacker(t, p, path, 1, 1, 1)
		for i, s := range slots {
			require.NoError(t, slot.AddEncoded(s, raws[i:i+1]))
			require.NoError(t, block.AddEncodedBlock(0, s, raws[i]))
		}
		require.Equal(t, packedBytes(t, slot), packedBytes(t, block), "path %s", path)
	}
}

// TestBlockPackerRejects: bad shapes, places and encodings are refused, and
// a refused call leaves the packer's result as a packer that never saw it.
func TestBlockPackerRejects(t *testing.T) {
	kit := fhetest.MustKit(fhetest.InsecureBGVN10)
	p := kit.Params
	const level, k = 1, 3 // stride 4
	n := p.N()

	for name, f := range map[string]func() (*fhe.SlotPacker, error){
		"k 0":            func() (*fhe.SlotPacker, error) { return fhe.NewBlockPacker(p, level, 2, 0) },
		"k too wide":     func() (*fhe.SlotPacker, error) { return fhe.NewBlockPacker(p, level, 2, fhe.MaxVectorWidth+1) },
		"no accumulator": func() (*fhe.SlotPacker, error) { return fhe.NewBlockPacker(p, level, 0, k) },
		"level":          func() (*fhe.SlotPacker, error) { return fhe.NewBlockPacker(p, p.MaxLevel()+1, 2, k) },
		"CKKS": func() (*fhe.SlotPacker, error) {
			return fhe.NewBlockPacker(fhetest.MustKit(fhetest.InsecureCKKSN10).Params, level, 2, k)
		},
		"stride over a row": func() (*fhe.SlotPacker, error) {
			return fhe.NewBlockPacker(fhetest.MustKit(fhetest.InsecureBGVN4).Params, 0, 1, 9) // 16 slots, rows of 8
		},
	} {
		_, err := f()
		require.Error(t, err, name)
	}

	enc := func(vals []int64) []byte {
		ct, err := kit.Enc.EncryptInts(vals)
		require.NoError(t, err)
		b, err := ct.MarshalBinary()
		require.NoError(t, err)
		return b
	}
	vals, err := p.VectorInts([]int64{1, 2, 3})
	require.NoError(t, err)
	good, good2 := enc(vals), enc(vals)
	ct, err := kit.Enc.EncryptInts(vals)
	require.NoError(t, err)
	low, err := kit.Eval.DropLevels(ct, ct.Level()-level+1)
	require.NoError(t, err)
	lowb, err := low.MarshalBinary()
	require.NoError(t, err)
	other, err := fhetest.MustKit(fhetest.InsecureBGVN10Deep).Enc.EncryptInts(vals)
	require.NoError(t, err)
	otherb, err := other.MarshalBinary()
	require.NoError(t, err)

	// good is a degree-1 encoding at the top level L: header, scale, c0 and
	// c1 of L+1 rows each.
	L := p.MaxLevel()
	body := len(good) - 2*(L+1)*n*8
	edit := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	degree2 := edit(func(b []byte) []byte { // a valid degree-2 encoding: c2 = c1
		b[10] = 2
		return append(b, b[body+(L+1)*n*8:]...)
	})
	notNTT := edit(func(b []byte) []byte { b[9] &^= fhe.FlagNTT; return b })
	scale := edit(func(b []byte) []byte { b[body-8] ^= 2; return b }) // another BGV scale in [1, t)
	// c1, the last row the packer reads, its last coefficient: the call
	// adds 2·(level+1)−1 rows before it finds it, then undoes them
	unreduced := edit(func(b []byte) []byte {
		at := body + (L+1)*n*8 + level*n*8 + (n-1)*8
		for i := range 8 {
			b[at+i] = 0xff
		}
		return b
	})
	unreducedAbove := edit(func(b []byte) []byte { // a row above the packing level: not read
		at := body + (L+1)*n*8 + (level+1)*n*8
		for i := range 8 {
			b[at+i] = 0xff
		}
		return b
	})

	// the good calls, made on every packer below
	goodCalls := func(sp *fhe.SlotPacker) {
		require.NoError(t, sp.AddEncodedBlock(0, 0, good))
		require.NoError(t, sp.AddEncodedBlock(1, 0, good2))
		require.NoError(t, sp.AddEncodedBlock(0, 4, good2))
	}
	for _, path := range packPaths() {
		ref := newBlockPacker(t, p, path, level, 2, k)
		goodCalls(ref)
		want := packedBytes(t, ref)

		sp := newBlockPacker(t, p, path, level, 2, k)
		// a refused first call: nothing was added
		require.ErrorContains(t, sp.AddEncodedBlock(1, 8, unreduced), "not reduced")
		_, err := sp.Ciphertexts()
		require.Error(t, err, "a refused first call added something")
		goodCalls(sp)
		for _, c := range []struct {
			name     string
			acc, s   int
			raw      []byte
			contains string
		}{
			{"not a multiple of the stride", 0, 2, good, "multiple"},
			{"slot past the end", 0, p.Slots(), good, "outside"},
			{"negative slot", 0, -4, good, "outside"},
			{"accumulator past the end", 2, 8, good, "accumulator 2 outside"},
			{"negative accumulator", -1, 8, good, "outside"},
			{"(acc, s) twice", 0, 4, good, "twice"},
			{"other preset", 0, 8, otherb, "preset"},
			{"level below the packer's", 0, 8, lowb, "level"},
			{"degree 2", 0, 8, degree2, "degree"},
			{"not NTT", 0, 8, notNTT, "NTT"},
			{"scale", 0, 8, scale, "scale"},
			{"truncated", 0, 8, good[:len(good)-1], "bytes"},
			{"trailing", 0, 8, append(append([]byte(nil), good...), 0), "after"},
			{"garbage", 0, 8, []byte("not a ciphertext"), ""},
			{"unreduced coefficient", 1, 8, unreduced, "not reduced"},
			{"unreduced coefficient, same block again", 0, 0 + 8, unreduced, "not reduced"},
		} {
			err := sp.AddEncodedBlock(c.acc, c.s, c.raw)
			require.Error(t, err, c.name)
			require.ErrorContains(t, err, c.contains, c.name)
			require.Equal(t, want, packedBytes(t, sp), "%s: a refused call changed the packer", c.name)
		}
		// a refused call took nothing: its (acc, s) is still free
		require.NoError(t, sp.AddEncodedBlock(1, 8, unreducedAbove))
		require.NoError(t, ref.AddEncodedBlock(1, 8, good))
		require.Equal(t, packedBytes(t, ref), packedBytes(t, sp), "path %s", path)

		// Add and AddEncoded on a block packer, AddEncodedBlock on a slot packer
		require.ErrorContains(t, sp.Add(12, []*fhe.Ciphertext{ct, ct}), "block packer")
		require.ErrorContains(t, sp.AddEncoded(12, [][]byte{good, good}), "block packer")
		slot, err := fhe.NewSlotPacker(p, level, 2)
		require.NoError(t, err)
		require.ErrorContains(t, slot.AddEncodedBlock(0, 0, good), "slot packer")
	}
}

// TestPackerVectorPathWidePrime: BGVN14's Q0 is a 51-bit prime; the vector
// multiply-add covers q < 2^51 (muladd.QBound, its Shoup product
// exact in 52 bits: fhe/engine/kernels/muladd TestMulAdd on 51-bit primes), so a packer at
// any level of BGVN14 runs the vector path, not the Go loop.
func TestPackerVectorPathWidePrime(t *testing.T) {
	p, err := fhe.NewParams(fhe.BGVN14)
	require.NoError(t, err)
	require.GreaterOrEqual(t, p.Q()[0], uint64(1<<50), "BGVN14's Q0 is above 2^50")
	require.Less(t, p.Q()[0], uint64(muladd.QBound))
	for _, level := range []int{0, 2} {
		newBlockPacker(t, p, muladd.PathEmulated, level, 2, 8)
	}
}
