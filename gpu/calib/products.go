package calib

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/gpu"
)

// Product cells of Verify: VerifyCell.Dir names the operation.
const (
	DirTensor = "bgv-tensor" // one ciphertext × ciphertext tensor (B = 3 outputs per modulus)
	DirMulAdd = "bgv-muladd" // one ciphertext's multiply-add by an integer (B = 2 polynomials)
)

// verifyProducts re-measures, when the accelerator runs products (gpu.ProductsOf),
// BGV's coefficient-wise products for every forward entry of tab, over the
// entry's moduli: the tensor of one ciphertext pair and the multiply-add
// of one ciphertext by an integer, on Lattigo's loops (what the engine runs
// when the dispatcher declines), through the dispatcher (routed by the
// table, as the engine's batches), and on the accelerator — so a table
// that routes a product batch the accelerator runs slower fails --verify.
func verifyProducts(ctx context.Context, o Options, d *gpu.Dispatcher, tab *gpu.Table, rng *rand.Rand) ([]VerifyCell, error) {
	pb, ok := gpu.ProductsOf(o.Accel) // switched off: the dispatcher routes none to it
	if !ok {
		return nil, nil
	}
	var cells []VerifyCell
	for _, e := range tab.Entries {
		row := entryRow(e)
		if row.Dir != gpu.Forward || 3*row.Moduli<<row.LogN > o.MaxWords {
			continue
		}
		ps, err := rowParams(row.LogN, row.Moduli)
		if err != nil {
			return nil, err
		}
		qs := make([]uint64, len(ps))
		for i, p := range ps {
			qs[i] = p.Q
		}
		r, err := ring.NewRing(1<<row.LogN, qs)
		if err != nil {
			return nil, fmt.Errorf("calib: ring for N=2^%d, %d moduli: %w", row.LogN, len(qs), err)
		}
		limb := func(q uint64) []uint64 {
			l := make([]uint64, r.N())
			for j := range l {
				l[j] = rng.Uint64N(q)
			}
			return l
		}
		tm := engine.TMontgomery(r, 65537)
		var tj []engine.TensorJob
		var mj []engine.MulAddJob
		for i, s := range r.SubRings {
			q := s.Modulus
			tj = append(tj, engine.TensorJob{S: s, A0: limb(q), A1: limb(q), B0: limb(q), B1: limb(q),
				Out0: make([]uint64, r.N()), Out1: make([]uint64, r.N()), Out2: make([]uint64, r.N()), TMont: tm[i]})
			w := rng.Uint64N(q)
			mj = append(mj, engine.MulAddJob{S: s, A: limb(q), Out: limb(q), W: w}, engine.MulAddJob{S: s, A: limb(q), Out: limb(q), W: w})
		}
		route := func(ran bool) string {
			if ran {
				return o.Accel.Name()
			}
			return gpu.CPUName
		}
		for _, op := range []struct {
			dir    string
			b      int
			cpu    func() error
			accel  func() (bool, error)
			routed func() (string, error)
		}{
			{DirTensor, 3,
				func() error { engine.LattigoTensor(tj, false); return nil },
				func() (bool, error) { return pb.Tensor(tj) },
				func() (string, error) {
					ran := d.Tensor(tj)
					if !ran {
						engine.LattigoTensor(tj, false)
					}
					return route(ran), nil
				}},
			{DirMulAdd, 2,
				func() error { engine.LattigoMulAdd(mj); return nil },
				func() (bool, error) { return pb.MulAdd(mj) },
				func() (string, error) {
					ran := d.MulAdd(mj)
					if !ran {
						engine.LattigoMulAdd(mj)
					}
					return route(ran), nil
				}},
		} {
			// A backend that declines the shape (no kernel on its path, a
			// modulus out of range) has no time to compare: no cell.
			if ran, err := op.accel(); err != nil {
				return nil, err
			} else if !ran {
				continue
			}
			accel := func() error { _, err := op.accel(); return err }
			vc, err := timeCell(ctx, o, VerifyCell{LogN: row.LogN, Moduli: row.Moduli, Dir: op.dir, B: op.b}, op.cpu, op.routed, accel)
			if err != nil {
				return nil, err
			}
			cells = append(cells, vc)
		}
	}
	return cells, nil
}
