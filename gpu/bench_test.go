package gpu_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

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
