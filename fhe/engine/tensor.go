package engine

import (
	"math/big"

	"github.com/tuneinsight/lattigo/v6/ring"
)

// TensorBGV is the ciphertext × ciphertext tensor product of Lattigo's
// bgv.Evaluator.Mul (tensorStandard without relinearisation) at level
// (the caller has initialised out's metadata and resized it to degree 2 at
// that level, as Mul does): with a' = a·τ, τ = t·2^64 in Montgomery form
// (Lattigo's tMontgomery),
//
//	out[0] = a'_0·b_0,  out[1] = a'_0·b_1 + a'_1·b_0,  out[2] = a'_1·b_1
//
// every product Montgomery's (·2^{-64}) and every word reduced into [0, q),
// as Lattigo's MulCoeffsMontgomery(ThenAdd) leave them. The scalar products
// go to the router as ScaleDiffJobs (y = 0), the coefficient products as
// one-digit MulAccJobs, each falling back to Lattigo's loop where the
// router declines; the residues, hence the bytes, are the same either way
// (TestTensorBGVByteIdentical). It reports false, writing nothing, unless
// the installed router is a KeySwitchRouter; out must not share memory with
// a or b.
func (k *KeySwitcher) TensorBGV(level int, t uint64, a, b, out []ring.Poly) bool {
	r, ok := CurrentRouter().(KeySwitchRouter)
	if !ok || len(a) != 2 || len(b) != 2 || len(out) != 3 {
		return false
	}
	ringQ := k.params.RingQ().AtLevel(level)
	if k.tensorT != t || len(k.tensorMont) == 0 {
		full := k.params.RingQ()
		tm := full.NewRNSScalarFromBigint(new(big.Int).Lsh(new(big.Int).SetUint64(t), 64))
		full.MFormRNSScalar(tm, tm)
		k.tensorT, k.tensorMont = t, tm
	}
	sc := newScratch(k.params.N())
	defer sc.release()
	c00, c01, tmp := sc.poly(level), sc.poly(level), sc.poly(level)
	zero := sc.limb()
	clear(zero)
	subs := ringQ.SubRings[:level+1]

	sd := make([]ScaleDiffJob, 0, 2*len(subs))
	for i, s := range subs {
		sd = append(sd, ScaleDiffJob{S: s, X: a[0].Coeffs[i], Y: zero, Out: c00.Coeffs[i], W: k.tensorMont[i]},
			ScaleDiffJob{S: s, X: a[1].Coeffs[i], Y: zero, Out: c01.Coeffs[i], W: k.tensorMont[i]})
	}
	scaleDiff(sd)

	// out[0] = c00·b0 and tmp = c01·b0; out[2] = c01·b1 and out[1] = c00·b1
	for _, pass := range []struct {
		d          ring.Poly
		k0, k1     ring.Poly
		out0, out1 ring.Poly
	}{{b[0], c00, c01, out[0], tmp}, {b[1], c01, c00, out[2], out[1]}} {
		jobs := make([]MulAccJob, len(subs))
		for i, s := range subs {
			jobs[i] = MulAccJob{S: s, K0: [][]uint64{pass.k0.Coeffs[i]}, K1: [][]uint64{pass.k1.Coeffs[i]},
				D: [][]uint64{pass.d.Coeffs[i]}, Out0: pass.out0.Coeffs[i], Out1: pass.out1.Coeffs[i]}
		}
		if !r.GadgetMulAcc(jobs) {
			for i, s := range subs {
				s.MulCoeffsMontgomery(pass.k0.Coeffs[i], pass.d.Coeffs[i], pass.out0.Coeffs[i])
				s.MulCoeffsMontgomery(pass.k1.Coeffs[i], pass.d.Coeffs[i], pass.out1.Coeffs[i])
			}
		}
	}
	ringQ.Add(out[1], tmp, out[1])
	return true
}
