package gputest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/internal/testseed"
)

// MultiShape is one cell of the multi-modulus grid: N = 2^LogN, the primes
// (one limb each) and the polynomials per limb (limb i gets B + i%2, so
// limbs of one batch differ in size as the engine's do).
type MultiShape struct {
	LogN   int
	Primes []uint64
	B      int
}

// DefaultMultiShapes is the multi-modulus grid: every self-test prime in
// one batch (30…61 bits), at a small and a key-switch-sized N.
func DefaultMultiShapes() []MultiShape {
	ps := gpu.SelfTestPrimes()
	return []MultiShape{
		{LogN: 10, Primes: ps, B: 1},
		{LogN: 10, Primes: ps, B: 4},
		{LogN: 13, Primes: []uint64{ps[1], ps[2], ps[4]}, B: 3},
	}
}

// RunMulti is the conformance suite of the multi-modulus API
// (gpu.NTTMulti: the backend's own NTTMulti, or the generic adapter) on
// DefaultMultiShapes: fresh random inputs (one unreduced polynomial per
// limb), poisoned outputs, out of place and in place, forward and inverse,
// reduced (byte equality with Lattigo's SubRing.NTT/INTT) and lazy
// (congruent to Lattigo's output and no larger than the larger of 2q and
// Lattigo's own lazy output).
func RunMulti(t *testing.T, b gpu.Backend) {
	rng := testseed.Rand(t, 0x6a09e667f3bcc908)
	for _, sh := range DefaultMultiShapes() {
		for _, dir := range []gpu.Direction{gpu.Forward, gpu.Inverse} {
			for _, lazy := range []bool{false, true} {
				for _, inPlace := range []bool{false, true} {
					name := fmt.Sprintf("N=2^%d/L=%d/B=%d/%s/lazy=%v/inplace=%v", sh.LogN, len(sh.Primes), sh.B, dir, lazy, inPlace)
					t.Run(name, func(t *testing.T) { multiCell(t, b, sh, dir, lazy, inPlace, rng) })
				}
			}
		}
	}
}

func multiCell(t *testing.T, b gpu.Backend, sh MultiShape, dir gpu.Direction, lazy, inPlace bool, rng *rand.Rand) {
	batch := &gpu.Batch{Dir: dir, Lazy: lazy}
	var srcs [][][]uint64
	for i, q := range sh.Primes {
		p, err := gpu.NewParams(1<<sh.LogN, q)
		require.NoError(t, err)
		bsz := sh.B + i%2
		src := make([][]uint64, bsz)
		for k := range src {
			src[k] = make([]uint64, p.N)
			for j := range src[k] {
				switch {
				case k == bsz-1 && bsz > 1:
					src[k][j] = rng.Uint64() // unreduced 64-bit words
				case k == 1 && bsz > 2:
					src[k][j] = rng.Uint64N(2 * q) // lazy words, [0, 2q)
				default:
					src[k][j] = rng.Uint64N(q)
				}
			}
		}
		src[0][0], src[0][p.N-1] = 0, q-1
		srcs = append(srcs, clone(src))
		dst := poisoned(bsz, p.N)
		if inPlace {
			dst = src
		}
		batch.Limbs = append(batch.Limbs, gpu.Limb{P: p, Src: src, Dst: dst})
	}
	require.NoError(t, gpu.NTTMulti(b, batch))
	for i, l := range batch.Limbs {
		for k := range l.Dst {
			want := make([]uint64, l.P.N)
			gpu.LatticeNTT(dir, l.P, srcs[i][k], want)
			if !lazy {
				requireEqual(t, want, l.Dst[k], "limb %d (q=%d bits) poly %d", i, bitLen(l.P.Q), k)
				continue
			}
			ref := make([]uint64, l.P.N)
			gpu.LatticeNTTMode(dir, true, l.P, srcs[i][k], ref)
			bound := 2 * l.P.Q
			for _, v := range ref {
				bound = max(bound, v+1)
			}
			for j, v := range l.Dst[k] {
				if v >= bound || v%l.P.Q != want[j] {
					require.Failf(t, "lazy output not a valid representative",
						"limb %d poly %d coefficient %d: got %#x, want ≡ %#x mod q and < %#x", i, k, j, v, want[j], bound)
				}
			}
		}
		if !inPlace {
			for k := range l.Src {
				requireEqual(t, srcs[i][k], l.Src[k], "limb %d poly %d: src modified", i, k)
			}
		}
	}
}

// RunMultiErrors checks that malformed multi-modulus batches are typed
// errors, not panics, and leave every buffer untouched.
//
// Attack: a caller (or a bug upstream of the dispatcher) hands a batch whose
// jobs share memory, mix ring degrees, or claim more limbs than the bound —
// the backend must refuse before it allocates or writes.
func RunMultiErrors(t *testing.T, b gpu.Backend) {
	ps := gpu.SelfTestPrimes()
	p10, err := gpu.NewParams(1<<10, ps[1])
	require.NoError(t, err)
	p11, err := gpu.NewParams(1<<11, ps[2])
	require.NoError(t, err)
	a, c := poisoned(2, p10.N), poisoned(1, p11.N)
	shared := poisoned(1, p10.N)
	cases := []struct {
		name  string
		batch *gpu.Batch
	}{
		{"nil batch", nil},
		{"no limbs", &gpu.Batch{}},
		{"bad direction", &gpu.Batch{Dir: 7, Limbs: []gpu.Limb{{P: p10, Src: a, Dst: a}}}},
		{"mixed N", &gpu.Batch{Limbs: []gpu.Limb{{P: p10, Src: a, Dst: a}, {P: p11, Src: c, Dst: c}}}},
		{"short dst", &gpu.Batch{Limbs: []gpu.Limb{{P: p10, Src: a, Dst: a[:1]}}}},
		{"nil params", &gpu.Batch{Limbs: []gpu.Limb{{Src: a, Dst: a}}}},
		{"dst shared by two limbs", &gpu.Batch{Limbs: []gpu.Limb{{P: p10, Src: a[:1], Dst: shared}, {P: p10, Src: a[1:], Dst: shared}}}},
		{"dst of one job is src of another", &gpu.Batch{Limbs: []gpu.Limb{{P: p10, Src: a[:1], Dst: a[1:]}, {P: p10, Src: a[1:], Dst: shared}}}},
		{"too many limbs", &gpu.Batch{Limbs: make([]gpu.Limb, gpu.MaxModuli+1)}},
	}
	for _, tc := range cases {
		err := gpu.NTTMulti(b, tc.batch)
		require.Error(t, err, tc.name)
		require.True(t, errors.Is(err, gpu.ErrBadBatch) || errors.Is(err, gpu.ErrUnsupported), "%s: %v", tc.name, err)
	}
	for _, poly := range append(append(a, c...), shared...) {
		for _, v := range poly {
			require.Equal(t, poison, v)
		}
	}
}
