package fhecheck_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bench/workloads"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/gpu"
)

// BenchmarkWorkloadsOverhead: every bench/workloads workload (fhegate
// variant, insecure N=2^10 presets), plain Lattigo vs a dispatcher installed
// with no accelerator armed, alternating the two every iteration (a shared
// machine drifts; interleaving keeps drift out of the comparison). Reported:
// the fastest plain and installed run, their ratio, and the engine
// transforms per run:
//
//	go test -run '^$' -bench WorkloadsOverhead -benchtime 40x ./test/fhecheck/
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
