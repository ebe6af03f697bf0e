package workloads

import (
	"math/rand/v2"
	"testing"

	"github.com/tuneinsight/lattigo/v6/schemes/ckks"

	"github.com/fhegate/fhegate/bench"
	"github.com/fhegate/fhegate/fhe"
)

// BenchmarkAblation separates fhegate's two main levers on CKKSN13 — level
// management and hoisted baby-step/giant-step sums — by running each alone:
//
//	sum64/tree-top     baseline's 6-step tree at level 3 (buffers reused)
//	sum64/tree-l0      6-step tree at level 0       (level management only)
//	sum64/bsgs-top     hoisted 8·8 sum at level 3   (hoisting only)
//	sum64/bsgs-l0      hoisted 8·8 sum at level 0   (fhegate)
//	mul/top            MulRelin + Rescale at level 3 (buffers reused)
//	mul/l1-relin-first view at level 1, MulRelin, Rescale
//	mul/l1-lazy        view at level 1, tensor, Rescale, Relinearize at 0 (fhegate)
//
// It reports cpu-ms/op (process CPU time, GOMAXPROCS as set by -cpu) beside
// ns/op: go test -run '^$' -bench Ablation -benchtime 20x -cpu 1 ./bench/workloads
func BenchmarkAblation(b *testing.B) {
	env := testEnv(b, fhe.CKKSN13)
	p := env.P
	cp := p.CKKS()
	ev := env.CKKS
	rng := rand.New(rand.NewPCG(8, 8))
	x, err := env.encryptFloats(randFloats(rng, 64))
	if err != nil {
		b.Fatal(err)
	}
	y, err := env.encryptFloats(randFloats(rng, p.Slots()))
	if err != nil {
		b.Fatal(err)
	}
	top := p.MaxLevel()
	acc := ckks.NewCiphertext(cp, 1, top)
	tmp := ckks.NewCiphertext(cp, 1, top)
	scr := fhe.NewRotationScratch(p.RLWE())
	ml := newMulLow(cp)
	out := ckks.NewCiphertext(cp, 1, top)

	run := func(name string, f func() error) {
		b.Run(name, func(b *testing.B) {
			c0, _ := bench.ProcessCPU()
			for b.Loop() {
				if err := f(); err != nil {
					b.Fatal(err)
				}
			}
			c1, _ := bench.ProcessCPU()
			b.ReportMetric(float64(c1-c0)/1e6/float64(b.N), "cpu-ms/op")
		})
	}
	run("sum64/tree-top", func() error { return rotSumCKKS(ev, x, acc, tmp, 64) })
	run("sum64/tree-l0", func() error { return rotSumCKKS(ev, atLevel(x, 0), acc, tmp, 64) })
	run("sum64/bsgs-top", func() error { return fhe.SumSlotsLattigo(p, ev.Evaluator, x, 64, acc, tmp, scr) })
	run("sum64/bsgs-l0", func() error { return fhe.SumSlotsLattigo(p, ev.Evaluator, atLevel(x, 0), 64, acc, tmp, scr) })
	t1 := ckks.NewCiphertext(cp, 1, top)
	t2 := ckks.NewCiphertext(cp, 1, top-1)
	run("mul/top", func() error {
		if err := ev.MulRelin(y, y, t1); err != nil {
			return err
		}
		return ev.Rescale(t1, t2)
	})
	run("mul/l1-relin-first", func() error { return ckksMulLow(ev, ml, y, y, out, true) })
	run("mul/l1-lazy", func() error { return ckksMulLow(ev, ml, y, y, out, false) })
}
