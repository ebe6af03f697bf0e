//go:build cgo

package native_test

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"
	"github.com/tuneinsight/lattigo/v6/schemes/ckks"

	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/gputest"
	"github.com/fhegate/fhegate/gpu/native"
	"github.com/fhegate/fhegate/internal/testseed"
)

// testPrimes: NTT-friendly primes (q ≡ 1 mod 2^18, valid for every N ≤ 2^17)
// of 30, 36, 50 and 51 bits taken downwards from 2^bits (so the 50-bit one is
// the largest such prime below 2^50, the tightest case of the narrow
// butterflies' 4q < 2^52 bound, and the 51-bit one the largest below 2^51,
// the tightest case of the wide butterflies' 2q < 2^52), and a 61-bit one
// (scalar path).
func testPrimes(t testing.TB) []uint64 {
	var out []uint64
	for _, bits := range []uint64{30, 36, 50, 51, 61} {
		g := ring.NewNTTFriendlyPrimesGenerator(bits, 1<<18)
		q, err := g.NextDownstreamPrime()
		require.NoError(t, err)
		out = append(out, q)
	}
	require.Less(t, out[2], uint64(native.VecQBound))
	require.GreaterOrEqual(t, out[3], uint64(native.VecQBound))
	require.Less(t, out[3], uint64(native.NTTQBound))
	return out
}

func open(t testing.TB, p native.Path) *native.Backend {
	t.Helper()
	b, err := native.NewPath(p)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	t.Logf("native %s: %+v; cpu features: %s", b.Path(), b.Info(), native.DetectFeatures())
	return b
}

// grid is the conformance grid: N = 2^10…2^16 × B ∈ {1, 3, 8, 64} × the test
// primes. FHEGATE_GPU_FULL=1 runs every cell (about a minute per path on two
// cores); the default skips the batches of more than 2^20 coefficients
// (B = 64 at N ≥ 2^15), -short more.
func grid(t testing.TB) gputest.Config {
	all := []int{10, 11, 12, 13, 14, 15, 16}
	switch {
	case os.Getenv(gputest.FullEnv) != "":
		return gputest.Config{LogNs: all, Batches: []int{1, 3, 8, 64}, Primes: testPrimes(t)}
	case testing.Short():
		return gputest.Config{LogNs: []int{10, 13, 16}, Batches: []int{1, 3, 8, 64}, Primes: testPrimes(t), MaxCoeffs: 1 << 18}
	}
	return gputest.Config{LogNs: all, Batches: []int{1, 3, 8, 64}, Primes: testPrimes(t), MaxCoeffs: 1 << 20}
}

// paths are the paths runnable here: scalar and emulated always, IFMA where
// the CPU has it.
func paths(t *testing.T) []native.Path {
	ps := []native.Path{native.PathScalar, native.PathEmulated}
	if native.DetectFeatures().IFMA() {
		ps = append(ps, native.PathIFMA)
	} else {
		t.Logf("no AVX-512 IFMA here (%s): the IFMA path is tested through its emulated model", native.DetectFeatures())
	}
	return ps
}

func TestConformance(t *testing.T) {
	for _, p := range paths(t) {
		t.Run(p.String(), func(t *testing.T) {
			b := open(t, p)
			gputest.RunConfig(t, b, grid(t))
			vec, sc := b.PathCounts()
			t.Logf("polynomials: %d vector, %d scalar", vec, sc)
			if p == native.PathScalar {
				require.Zero(t, vec)
			} else {
				require.NotZero(t, vec, "the vector path ran")
				require.NotZero(t, sc, "q ≥ 2^51 and unreduced inputs took the scalar path")
			}
		})
	}
}

// TestMultiConformance runs the multi-modulus suite on every path: the
// native NTTMulti (all limbs of a batch on the worker pool at once).
func TestMultiConformance(t *testing.T) {
	for _, p := range paths(t) {
		t.Run(p.String(), func(t *testing.T) {
			b := open(t, p)
			_, ok := any(b).(gpu.MultiBackend)
			require.True(t, ok, "native implements NTTMulti itself")
			gputest.RunMulti(t, b)
			gputest.RunMultiErrors(t, b)
		})
	}
}

// TestPresetPrimes runs every modulus of fhegate's four presets (fhe/params.go
// literals) at the preset's own N.
func TestPresetPrimes(t *testing.T) {
	type preset struct {
		name string
		logN int
		q    []uint64
	}
	var ps []preset
	for _, l := range []struct {
		name       string
		logN       int
		logQ, logP []int
	}{{"bgv-n13", 13, []int{44, 32, 32, 32, 32}, []int{45}}, {"bgv-n14", 14, []int{50, 34, 34, 34, 34, 34, 34, 34, 34, 34}, []int{40, 40}}} {
		p, err := bgv.NewParametersFromLiteral(bgv.ParametersLiteral{LogN: l.logN, LogQ: l.logQ, LogP: l.logP, PlaintextModulus: 65537})
		require.NoError(t, err)
		ps = append(ps, preset{l.name, l.logN, append(p.Q(), p.P()...)})
	}
	for _, l := range []struct {
		name        string
		logN, scale int
		logQ, logP  []int
	}{{"ckks-n13", 13, 40, []int{50, 40, 40, 40}, []int{45}}, {"ckks-n14", 14, 45, []int{55, 45, 45, 45, 45, 45, 45, 45}, []int{61}}} {
		p, err := ckks.NewParametersFromLiteral(ckks.ParametersLiteral{LogN: l.logN, LogQ: l.logQ, LogP: l.logP, LogDefaultScale: l.scale})
		require.NoError(t, err)
		ps = append(ps, preset{l.name, l.logN, append(p.Q(), p.P()...)})
	}
	for _, path := range paths(t) {
		b := open(t, path)
		for _, p := range ps {
			t.Run(path.String()+"/"+p.name, func(t *testing.T) {
				gputest.RunConfig(t, b, gputest.Config{LogNs: []int{p.logN}, Batches: []int{1, 3, 8}, Primes: p.q})
			})
		}
	}
}

// TestExtremeInputs: all-(q−1), all-zero, and words just at and above q (the
// last ones leave the vector path) against Lattigo.
func TestExtremeInputs(t *testing.T) {
	primes := testPrimes(t)
	rng := testseed.Rand(t, 14)
	for _, path := range paths(t) {
		b := open(t, path)
		for _, q := range primes {
			for _, logN := range []int{4, 5, 10, 16} {
				p, err := gpu.NewParams(1<<logN, q)
				require.NoError(t, err)
				fill := map[string]func(int) uint64{
					"max":     func(int) uint64 { return q - 1 },
					"zero":    func(int) uint64 { return 0 },
					"q":       func(j int) uint64 { return q + uint64(j&1) },
					"2^64-1":  func(int) uint64 { return ^uint64(0) },
					"sparse":  func(int) uint64 { return rng.Uint64N(2) * (q - 1) },
					"below2q": func(int) uint64 { return rng.Uint64N(2 * q) },
				}
				for name, f := range fill {
					src := make([]uint64, p.N)
					for j := range src {
						src[j] = f(j)
					}
					for _, dir := range []gpu.Direction{gpu.Forward, gpu.Inverse} {
						want := make([]uint64, p.N)
						gpu.LatticeNTT(dir, p, src, want)
						got := [][]uint64{make([]uint64, p.N)}
						require.NoError(t, b.NTT(dir, p, [][]uint64{src}, got))
						require.Equal(t, want, got[0], "%s N=2^%d q=%d %s %s", path, logN, q, name, dir)
					}
				}
			}
		}
	}
}

func TestSelfTest(t *testing.T) {
	for _, p := range paths(t) {
		require.NoError(t, gpu.SelfTest(open(t, p), testseed.Seed(t)), p.String())
	}
}

func TestErrors(t *testing.T) {
	for _, p := range paths(t) {
		t.Run(p.String(), func(t *testing.T) { gputest.RunErrors(t, open(t, p)) })
	}
}

func TestClosed(t *testing.T) {
	b, err := native.New()
	require.NoError(t, err)
	require.NoError(t, b.Close())
	require.NoError(t, b.Close())
	p, err := gpu.NewParams(1<<10, gpu.SelfTestPrimes()[0])
	require.NoError(t, err)
	x := [][]uint64{make([]uint64, p.N)}
	require.ErrorIs(t, b.NTT(gpu.Forward, p, x, x), gpu.ErrClosed)
}

func TestAutoPath(t *testing.T) {
	b, err := native.New()
	require.NoError(t, err)
	defer b.Close()
	nb := b.(*native.Backend)
	if native.DetectFeatures().IFMA() {
		require.Equal(t, native.PathIFMA, nb.Path())
	} else {
		require.Equal(t, native.PathScalar, nb.Path())
		_, err := native.NewPath(native.PathIFMA)
		require.ErrorIs(t, err, gpu.ErrNoDevice)
	}
	t.Setenv(native.PathEnv, "scalar")
	s, err := native.New()
	require.NoError(t, err)
	defer s.Close()
	require.Equal(t, native.PathScalar, s.(*native.Backend).Path())
	require.Equal(t, native.Name, s.Name())
	require.Contains(t, fmt.Sprint(s.Info()), "scalar")
}

// TestLazyInputs: the inputs an engine hands over — Lattigo's lazy outputs
// in [0, 2q), and forward inputs up to 2^52 — run on the vector path (reduce
// on load) and give Lattigo's bytes; forward inputs in [2^52, 2^63) and
// inverse inputs in [2q, 2^64) take the scalar path and give them too. Fresh
// random inputs, poisoned outputs, out of place and in place, every prime of
// the test set (narrow, wide and scalar-only moduli) and N = 2^4 … 2^14.
func TestLazyInputs(t *testing.T) {
	rng := testseed.Rand(t, 52)
	type bound struct {
		name   string
		word   func(q uint64) uint64
		vecFwd bool // forward runs on the vector path (q < NTTQBound)
		vecInv bool
	}
	bounds := []bound{
		{"below q", func(q uint64) uint64 { return rng.Uint64N(q) }, true, true},
		{"[q, 2q)", func(q uint64) uint64 { return q + rng.Uint64N(q) }, true, true},
		{"[0, 2q)", func(q uint64) uint64 { return rng.Uint64N(2 * q) }, true, true},
		{"[2q, 4q)", func(q uint64) uint64 { return 2*q + rng.Uint64N(2*q) }, true, false},
		{"[0, 2^52)", func(uint64) uint64 { return rng.Uint64N(1 << 52) }, true, false},
		{"[2^52, 2^63)", func(uint64) uint64 { return 1<<52 + rng.Uint64N(1<<63-1<<52) }, false, false},
	}
	for _, path := range paths(t) {
		if path == native.PathScalar {
			continue
		}
		b := open(t, path)
		for _, q := range testPrimes(t) {
			for _, logN := range []int{4, 10, 14} {
				p, err := gpu.NewParams(1<<logN, q)
				require.NoError(t, err)
				for _, bd := range bounds {
					for _, dir := range []gpu.Direction{gpu.Forward, gpu.Inverse} {
						name := fmt.Sprintf("%s/q=%d/N=2^%d/%s/%s", path, q, logN, bd.name, dir)
						src := make([]uint64, p.N)
						for j := range src {
							src[j] = bd.word(q)
						}
						if bd.name == "[q, 2q)" {
							src[0], src[p.N-1] = q, 2*q-1 // the edges of the bound
						}
						want := make([]uint64, p.N)
						gpu.LatticeNTT(dir, p, src, want)
						// The documented bounds: forward words < 2^52, inverse < 2q.
						mx := slices.Max(src)
						vec := q < native.NTTQBound && (dir == gpu.Forward && mx < 1<<52 || dir == gpu.Inverse && mx < 2*q)
						if q < native.VecQBound { // the bound's names hold for every narrow prime
							require.Equal(t, map[gpu.Direction]bool{gpu.Forward: bd.vecFwd, gpu.Inverse: bd.vecInv}[dir], vec, name)
						}
						for _, inPlace := range []bool{false, true} {
							in := append([]uint64(nil), src...)
							out := make([]uint64, p.N)
							for j := range out {
								out[j] = ^uint64(0) // poison
							}
							if inPlace {
								out = in
							}
							v0, s0 := b.PathCounts()
							require.NoError(t, b.NTT(dir, p, [][]uint64{in}, [][]uint64{out}), name)
							v1, s1 := b.PathCounts()
							require.Equal(t, want, out, "%s in place %v: differs from Lattigo", name, inPlace)
							if !inPlace {
								require.Equal(t, src, in, "%s: src modified", name)
							}
							if vec {
								require.Equal(t, [2]uint64{1, 0}, [2]uint64{v1 - v0, s1 - s0}, "%s: vector path", name)
							} else {
								require.Equal(t, [2]uint64{0, 1}, [2]uint64{v1 - v0, s1 - s0}, "%s: scalar path", name)
							}
						}
					}
				}
			}
		}
	}
}
