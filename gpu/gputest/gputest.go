package gputest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/internal/testseed"
)

// Config is the grid.
type Config struct {
	LogNs   []int
	Batches []int
	Primes  []uint64
	// MaxCoeffs skips cells with B·N above it (0: no limit).
	MaxCoeffs int
}

// FullEnv is the environment variable that selects the full grid.
const FullEnv = "FHEGATE_GPU_FULL"

// DefaultConfig returns the grid for this test run (see the package doc).
func DefaultConfig() Config {
	primes := gpu.SelfTestPrimes() // 61, 60, 50, 40, 30 bits
	switch {
	case os.Getenv(FullEnv) != "":
		return Config{LogNs: []int{10, 11, 12, 13, 14, 15, 16}, Batches: []int{1, 3, 8, 64}, Primes: primes}
	case testing.Short():
		return Config{LogNs: []int{10, 12, 16}, Batches: []int{1, 3, 8, 64}, Primes: []uint64{primes[1], primes[4]}, MaxCoeffs: 1 << 17}
	default:
		return Config{LogNs: []int{10, 11, 12, 13, 14, 15, 16}, Batches: []int{1, 3, 8, 64},
			Primes: []uint64{primes[0], primes[1], primes[3]}, MaxCoeffs: 1 << 19}
	}
}

const poison = ^uint64(0)

// Run runs the conformance suite against b with DefaultConfig.
func Run(t *testing.T, b gpu.Backend) { RunConfig(t, b, DefaultConfig()) }

// RunConfig runs the conformance suite against b on cfg.
func RunConfig(t *testing.T, b gpu.Backend, cfg Config) {
	t.Logf("%s conformance: fresh inputs each run", b.Name())
	rng := testseed.Rand(t, 0x9e3779b97f4a7c15)
	for _, logN := range cfg.LogNs {
		for _, q := range cfg.Primes {
			p, err := gpu.NewParams(1<<logN, q)
			require.NoError(t, err)
			for _, bsz := range cfg.Batches {
				if cfg.MaxCoeffs > 0 && bsz*p.N > cfg.MaxCoeffs && bsz > 1 {
					continue
				}
				name := fmt.Sprintf("N=2^%d/q=%dbit/B=%d", logN, bitLen(q), bsz)
				t.Run(name, func(t *testing.T) { cell(t, b, p, bsz, rng) })
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

func cell(t *testing.T, b gpu.Backend, p *gpu.Params, bsz int, rng *rand.Rand) {
	src := make([][]uint64, bsz)
	for i := range src {
		src[i] = make([]uint64, p.N)
		for j := range src[i] {
			src[i][j] = inputWord(i, p.Q, rng)
		}
	}
	// Edge values in the first polynomial.
	src[0][0], src[0][p.N-1] = 0, p.Q-1

	for _, dir := range []gpu.Direction{gpu.Forward, gpu.Inverse} {
		want := reference(dir, p, src)
		got := poisoned(bsz, p.N)
		require.NoError(t, b.NTT(dir, p, clone(src), got), dir.String())
		for i := range want {
			requireEqual(t, want[i], got[i], "%s poly %d", dir, i)
		}
		// In place: dst aliases src.
		inplace := clone(src)
		require.NoError(t, b.NTT(dir, p, inplace, inplace), dir.String()+" in place")
		for i := range want {
			requireEqual(t, want[i], inplace[i], "%s in place poly %d", dir, i)
		}
	}

	// Round trip on reduced inputs: INTT(NTT(a)) = a, through the backend only.
	red := make([][]uint64, bsz)
	for i := range red {
		red[i] = make([]uint64, p.N)
		for j := range red[i] {
			red[i][j] = rng.Uint64N(p.Q)
		}
	}
	mid := poisoned(bsz, p.N)
	require.NoError(t, b.NTT(gpu.Forward, p, red, mid))
	back := poisoned(bsz, p.N)
	require.NoError(t, b.NTT(gpu.Inverse, p, mid, back))
	for i := range red {
		requireEqual(t, red[i], back[i], "round trip poly %d", i)
	}
}

// inputWord is word j of polynomial i of a conformance batch: reduced
// (i = 0 and i ≥ 5), raw 64-bit (i = 1: Lattigo's wrap-arounds), and the lazy
// bounds an engine hands over — [0, 2q) (i = 2: Lattigo's lazy outputs),
// [0, 2^52) (i = 3) and [2^52, 2^63) (i = 4), where Lattigo's forward
// schedule is still the exact transform of the reduced input.
func inputWord(i int, q uint64, rng *rand.Rand) uint64 {
	switch i {
	case 1:
		return rng.Uint64()
	case 2:
		return rng.Uint64N(2 * q)
	case 3:
		return rng.Uint64N(1 << 52)
	case 4:
		return 1<<52 + rng.Uint64N(1<<63-1<<52)
	}
	return rng.Uint64N(q)
}

func reference(dir gpu.Direction, p *gpu.Params, src [][]uint64) [][]uint64 {
	out := make([][]uint64, len(src))
	for i := range src {
		out[i] = make([]uint64, p.N)
		gpu.LatticeNTT(dir, p, src[i], out[i])
	}
	return out
}

func poisoned(b, n int) [][]uint64 {
	out := make([][]uint64, b)
	for i := range out {
		out[i] = make([]uint64, n)
		for j := range out[i] {
			out[i][j] = poison
		}
	}
	return out
}

func clone(a [][]uint64) [][]uint64 {
	out := make([][]uint64, len(a))
	for i := range a {
		out[i] = append([]uint64(nil), a[i]...)
	}
	return out
}

// requireEqual compares without dumping N-word slices on failure.
func requireEqual(t *testing.T, want, got []uint64, format string, args ...any) {
	t.Helper()
	require.Len(t, got, len(want))
	for j := range want {
		if want[j] != got[j] {
			require.Failf(t, "output differs from Lattigo", format+": coefficient %d: got %#x want %#x",
				append(args, j, got[j], want[j])...)
		}
	}
}

// RunErrors checks that malformed batches are typed errors, not panics, and
// leave dst untouched.
func RunErrors(t *testing.T, b gpu.Backend) {
	p, err := gpu.NewParams(1<<10, gpu.SelfTestPrimes()[1])
	require.NoError(t, err)
	good := poisoned(2, p.N)
	require.ErrorIs(t, b.NTT(gpu.Forward, p, good, good[:1]), gpu.ErrBadBatch)
	require.ErrorIs(t, b.NTT(gpu.Forward, p, nil, nil), gpu.ErrBadBatch)
	short := [][]uint64{make([]uint64, p.N-1)}
	require.ErrorIs(t, b.NTT(gpu.Inverse, p, short, short), gpu.ErrBadBatch)
	bad := *p
	bad.N = 8
	require.ErrorIs(t, b.NTT(gpu.Forward, &bad, good, good), gpu.ErrUnsupported)
	for _, row := range good {
		for _, v := range row {
			require.Equal(t, poison, v)
		}
	}
}
