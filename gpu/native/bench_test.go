//go:build cgo

package native_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/native"
)

// BenchmarkNativeNTT compares the pure-Go Lattigo NTT (gpu.CPU: NTTStandard /
// INTTStandard, goroutines over the batch) with the native backend (its
// automatic path, plus the scalar path when the automatic one is IFMA) for
// N = 2^12…2^16, B ∈ {1, 16}, one 50-bit prime (< 2^50: the vector path
// where the CPU has IFMA), forward and inverse, reduced inputs. The numbers
// in the package doc (minimum of the 6 runs per cell) come from
//
//	go test -run '^$' -bench NativeNTT -benchtime 0.5s -count 6 ./gpu/native/
func BenchmarkNativeNTT(b *testing.B) {
	q := testPrimes(b)[2]
	nat, err := native.NewPath(native.PathAuto)
	require.NoError(b, err)
	defer nat.Close()
	impls := []struct {
		name string
		be   gpu.Backend
	}{{"go", gpu.NewCPU()}, {"native-" + nat.Path().String(), nat}}
	if nat.Path() != native.PathScalar {
		sc, err := native.NewPath(native.PathScalar)
		require.NoError(b, err)
		defer sc.Close()
		impls = append(impls, struct {
			name string
			be   gpu.Backend
		}{"native-scalar", sc})
	}
	b.Logf("cpu %s; features %s", gpu.HostCPU(), native.DetectFeatures())
	rng := rand.New(rand.NewPCG(1, 2))
	for logN := 12; logN <= 16; logN++ {
		p, err := gpu.NewParams(1<<logN, q)
		require.NoError(b, err)
		for _, bsz := range []int{1, 16} {
			src := make([][]uint64, bsz)
			dst := make([][]uint64, bsz)
			for i := range src {
				src[i] = make([]uint64, p.N)
				dst[i] = make([]uint64, p.N)
				for j := range src[i] {
					src[i][j] = rng.Uint64N(q)
				}
			}
			for _, dir := range []gpu.Direction{gpu.Forward, gpu.Inverse} {
				for _, im := range impls {
					b.Run(fmt.Sprintf("N=2^%d/B=%d/%s/%s", logN, bsz, dir, im.name), func(b *testing.B) {
						for b.Loop() {
							if err := im.be.NTT(dir, p, src, dst); err != nil {
								b.Fatal(err)
							}
						}
					})
				}
			}
		}
	}
}

// BenchmarkNativeLazyNTT is the engine's case: N = 2^14, one polynomial,
// the largest NTT primes below 2^50 (narrow butterflies) and 2^51 (wide:
// BGVN14's Q0 is a 51-bit prime), inputs reduced ("q") or Lattigo's lazy
// outputs in [0, 2q) ("2q": reduced on load by the vector path), Lattigo's
// Go NTT against the native backend's automatic path. LP-137 quotes
//
//	GOMAXPROCS=1 go test -run '^$' -bench NativeLazyNTT -benchtime 0.3s -count 3 ./gpu/native/
func BenchmarkNativeLazyNTT(b *testing.B) {
	nat, err := native.NewPath(native.PathAuto)
	require.NoError(b, err)
	defer nat.Close()
	b.Logf("cpu %s; native path %s; features %s", gpu.HostCPU(), nat.Path(), native.DetectFeatures())
	rng := rand.New(rand.NewPCG(3, 4))
	primes := testPrimes(b)
	for _, q := range primes[2:4] {
		p, err := gpu.NewParams(1<<14, q)
		require.NoError(b, err)
		for _, bound := range []uint64{1, 2} {
			src := [][]uint64{make([]uint64, p.N)}
			dst := [][]uint64{make([]uint64, p.N)}
			for j := range src[0] {
				src[0][j] = rng.Uint64N(bound * q)
			}
			for _, dir := range []gpu.Direction{gpu.Forward, gpu.Inverse} {
				for _, im := range []struct {
					name string
					be   gpu.Backend
				}{{"go", gpu.NewCPU()}, {"native-" + nat.Path().String(), nat}} {
					name := fmt.Sprintf("q=%dbit/in<%dq/%s/%s", bitLen(q), bound, dir, im.name)
					b.Run(name, func(b *testing.B) {
						for b.Loop() {
							if err := im.be.NTT(dir, p, src, dst); err != nil {
								b.Fatal(err)
							}
						}
					})
				}
			}
		}
	}
}

func bitLen(q uint64) int {
	n := 0
	for ; q > 0; q >>= 1 {
		n++
	}
	return n
}

// BenchmarkProducts compares Lattigo's Go loops with the IFMA kernels for
// BGV's multiply-add by an integer, a baby step's 8-term linear
// combination (term by term in Go and with the multiply-add kernel, then
// in one pass) and the tensor product on `limbs` limbs of N = 2^14
// (limbs = 1: in cache; 12: a ciphertext-sized working set):
//
//	go test -run '^$' -bench Products -benchtime 0.5s ./gpu/native/
func BenchmarkProducts(b *testing.B) {
	if !native.DetectFeatures().IFMA() {
		b.Skip("no IFMA here")
	}
	q := testPrimes(b)[2]
	const n = 1 << 14
	s, err := ring.NewSubRing(n, q)
	require.NoError(b, err)
	rng := rand.New(rand.NewPCG(3, 4))
	limb := func() []uint64 {
		l := make([]uint64, n)
		for j := range l {
			l[j] = rng.Uint64N(q)
		}
		return l
	}
	for _, limbs := range []int{1, 12} {
		var ma []engine.MulAddJob
		var tj []engine.TensorJob
		for range limbs {
			ma = append(ma, engine.MulAddJob{S: s, A: limb(), Out: limb(), W: 12345})
			tj = append(tj, engine.TensorJob{S: s, A0: limb(), A1: limb(), B0: limb(), B1: limb(),
				Out0: make([]uint64, n), Out1: make([]uint64, n), Out2: make([]uint64, n), TMont: 777})
		}
		b.Run(fmt.Sprintf("muladd/limbs=%d/go", limbs), func(b *testing.B) {
			for b.Loop() {
				engine.LattigoMulAdd(ma)
			}
		})
		b.Run(fmt.Sprintf("muladd/limbs=%d/ifma", limbs), func(b *testing.B) {
			for b.Loop() {
				_, err := native.MulAdd(native.PathIFMA, ma)
				require.NoError(b, err)
			}
		})
		// A baby step of 8 terms per limb (kyc_aml's mean is 8.6): Lattigo's
		// term-by-term multiply-adds against one linear-combination pass.
		var lc []engine.LinCombJob
		for range limbs {
			j := engine.LinCombJob{S: s, Out: limb()}
			for k := range 8 {
				j.A, j.W = append(j.A, limb()), append(j.W, uint64(12345+k))
			}
			lc = append(lc, j)
		}
		b.Run(fmt.Sprintf("lincomb8/limbs=%d/go", limbs), func(b *testing.B) {
			for b.Loop() {
				for _, j := range lc {
					for k := range j.A {
						engine.LattigoMulAdd([]engine.MulAddJob{{S: s, A: j.A[k], Out: j.Out, W: j.W[k]}})
					}
				}
			}
		})
		b.Run(fmt.Sprintf("lincomb8/limbs=%d/ifma-muladd", limbs), func(b *testing.B) {
			for b.Loop() {
				for _, j := range lc {
					for k := range j.A {
						_, err := native.MulAdd(native.PathIFMA, []engine.MulAddJob{{S: s, A: j.A[k], Out: j.Out, W: j.W[k]}})
						require.NoError(b, err)
					}
				}
			}
		})
		b.Run(fmt.Sprintf("lincomb8/limbs=%d/ifma", limbs), func(b *testing.B) {
			for b.Loop() {
				_, err := native.LinComb(native.PathIFMA, lc)
				require.NoError(b, err)
			}
		})
		b.Run(fmt.Sprintf("tensor/limbs=%d/go", limbs), func(b *testing.B) {
			for b.Loop() {
				engine.LattigoTensor(tj, false)
			}
		})
		b.Run(fmt.Sprintf("tensor/limbs=%d/ifma", limbs), func(b *testing.B) {
			for b.Loop() {
				_, err := native.Tensor(native.PathIFMA, tj)
				require.NoError(b, err)
			}
		})
	}
}
