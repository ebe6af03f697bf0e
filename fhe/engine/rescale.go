package engine

import (
	"github.com/tuneinsight/lattigo/v6/ring"
)

// DivRoundByLastModulusNTT is ring.Ring.DivRoundByLastModulusNTT (the
// rescale / modulus switch of BGV and CKKS: out = round(in / q_L), in the NTT
// domain) for several polynomials at once, r at the input level. For each
// polynomial the last limb goes out of the NTT domain with Lattigo's INTTLazy,
// run here directly: its exact integer representative enters the rounding,
// so it is not a lazy job a router may answer reduced. The L forward NTTLazy
// of every polynomial go to the router as one batch (their outputs feed
// only SubThenMulScalarMontgomeryTwoModulus, a full Montgomery reduction).
// out[k] may alias in[k]. Byte-identical to Lattigo's.
func DivRoundByLastModulusNTT(r *ring.Ring, in, out []ring.Poly) {
	divRoundByLastModulusNTT(CurrentRouter(), r, in, out)
}

// DivRoundByLastModulusNTT is the package's DivRoundByLastModulusNTT with
// the transforms handed to k's router (SetRouter).
func (k *KeySwitcher) DivRoundByLastModulusNTT(r *ring.Ring, in, out []ring.Poly) {
	divRoundByLastModulusNTT(k.route(), r, in, out)
}

func divRoundByLastModulusNTT(rt Router, r *ring.Ring, in, out []ring.Poly) {
	level := r.Level()
	if level == 0 || len(in) == 0 {
		for k := range in { // Lattigo's own (level 0 has nothing to divide by)
			r.DivRoundByLastModulusNTT(in[k], out[k])
		}
		return
	}
	last := r.SubRings[level]
	pHalf := (last.Modulus - 1) >> 1
	sc := newScratch(r.N())
	defer sc.release()
	buff0 := sc.limb()
	buff1 := make([][][]uint64, len(in))
	jobs := make([]Job, 0, len(in)*level)
	for k := range in {
		last.INTTLazy(in[k].Coeffs[level], buff0)
		last.AddScalar(buff0, pHalf, buff0)
		buff1[k] = make([][]uint64, level)
		for i, s := range r.SubRings[:level] {
			b := sc.limb()
			s.AddScalarLazy(buff0, s.Modulus-ring.BRedAdd(pHalf, s.Modulus, s.BRedConstant), b)
			buff1[k][i] = b
			jobs = append(jobs, Job{S: s, Src: b, Dst: b})
		}
	}
	transform(rt, false, true, jobs)
	sd := make([]ScaleDiffJob, 0, len(in)*level)
	for k := range in {
		for i, s := range r.SubRings[:level] {
			sd = append(sd, ScaleDiffJob{S: s, X: buff1[k][i], Y: in[k].Coeffs[i], Out: out[k].Coeffs[i], W: r.RescaleConstants[level-1][i]})
		}
	}
	scaleDiff(rt, sd)
}
