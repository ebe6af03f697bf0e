package gpu_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bench/workloads"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/gpu"
)

// BenchmarkDispatcherOverhead compares plain Lattigo ("plain": no dispatcher)
// with a dispatcher installed but no accelerator armed ("installed"), on one
// engine batch of a single transform (the dispatcher's per-batch cost) and
// on an FHE multiply through package fhe (whose relinearisation is the
// engine's key switch). The claim in
// docs/LP-137.md ("GPU gate") (≤ 2 %) comes from:
//
//	go test -run '^$' -bench DispatcherOverhead -benchtime 200x -count 5 ./gpu/
func BenchmarkDispatcherOverhead(b *testing.B) {
	d := gpu.NewDispatcher(gpu.Options{Log: zap.NewNop()})
	modes := []struct {
		name    string
		install bool
	}{{"plain", false}, {"installed", true}}

	for _, logN := range []int{4, 12, 14} {
		s := newRing(b, 1<<logN, false).SubRings[0]
		x := randPoly(s, 1)
		jobs := []engine.Job{{S: s, Src: x, Dst: x}}
		for _, m := range modes {
			b.Run("NTT/N=2^"+itoa(logN)+"/"+m.name, func(b *testing.B) {
				route := engine.RunLattigo
				if m.install {
					route = d.Transform
				}
				for i := 0; i < b.N; i++ {
					route(false, false, jobs)
					route(true, false, jobs)
				}
			})
		}
	}

	kit := fhetest.MustKit(fhetest.InsecureBGVN10)
	rng := rand.New(rand.NewPCG(1, 2))
	x, err := kit.Enc.EncryptInts(fhetest.RandInts(rng, kit.Params.Slots(), 100))
	require.NoError(b, err)
	y, err := kit.Enc.EncryptInts(fhetest.RandInts(rng, kit.Params.Slots(), 100))
	require.NoError(b, err)
	for _, m := range modes {
		b.Run("BGVMul/"+m.name, func(b *testing.B) {
			if m.install {
				require.NoError(b, d.Install())
				defer d.Uninstall()
			}
			var r *fhe.Ciphertext
			for i := 0; i < b.N; i++ {
				if r, err = kit.Eval.Mul(x, y); err != nil {
					b.Fatal(err)
				}
			}
			_ = r
		})
	}
}

func itoa(n int) string {
	if n >= 10 {
		return itoa(n/10) + string(rune('0'+n%10))
	}
	return string(rune('0' + n))
}

// BenchmarkWorkloadsOverhead: every bench/workloads workload (fhegate
// variant, insecure N=2^10 presets), plain Lattigo vs a dispatcher installed
// with no accelerator armed, alternating the two every iteration (a shared
// machine drifts; interleaving keeps drift out of the comparison). Reported:
// the fastest plain and installed run, their ratio, and the engine
// transforms per run:
//
//	go test -run '^$' -bench WorkloadsOverhead -benchtime 40x ./gpu/
func BenchmarkWorkloadsOverhead(b *testing.B) {
	envs := map[fhe.PresetID]*workloads.Env{}
	for _, name := range workloads.Names {
		id := fhetest.InsecureCKKSN10
		if name == "bgv_dot_128" {
			id = fhetest.InsecureBGVN10
		}
		if envs[id] == nil {
			e, err := workloads.NewEnv(id)
			require.NoError(b, err)
			envs[id] = e
		}
		c, err := workloads.New(name, envs[id], rand.New(rand.NewPCG(1, 2)), false)
		require.NoError(b, err)
		b.Run(name, func(b *testing.B) {
			d := gpu.NewDispatcher(gpu.Options{Log: zap.NewNop()})
			run := func() time.Duration {
				t0 := time.Now()
				if _, err := c.Run(workloads.Fhegate); err != nil {
					b.Fatal(err)
				}
				return time.Since(t0)
			}
			plain, inst := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
			for i := 0; i < b.N; i++ {
				plain = min(plain, run())
				require.NoError(b, d.Install())
				inst = min(inst, run())
				d.Uninstall()
			}
			b.ReportMetric(float64(plain.Nanoseconds()), "plain-best-ns")
			b.ReportMetric(float64(inst.Nanoseconds()), "installed-best-ns")
			b.ReportMetric(100*(float64(inst)/float64(plain)-1), "overhead-%")
			b.ReportMetric(float64(d.RouterStats().Transforms)/float64(b.N), "engine-transforms/op")
		})
	}
}
