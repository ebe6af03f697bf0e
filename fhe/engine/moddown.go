package engine

import (
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/ring/ringqp"
)

// ModDown is rlwe.Evaluator.ModDown (ct = ctQP / P mod Q) with the
// transforms of both polynomials batched: one batch of 2 × #P lazy INTTs
// and one batch of 2 × (L+1) lazy NTTs. It is BasisExtender.ModDownQPtoQNTT
// step for step. The lazy outputs are consumed only by a full Montgomery
// reduction (ModUpPtoQ's first MRed; SubThenMulScalarMontgomeryTwoModulus),
// so a router may answer them with reduced transforms and the bytes do not
// change (the tests check it). Shapes other than NTT → NTT with a P basis
// run Lattigo's ModDown.
func ModDown(ev *rlwe.Evaluator, levelQ, levelP int, ctQP *rlwe.Element[ringqp.Poly], ct *rlwe.Ciphertext) {
	modDown(CurrentRouter(), ev, levelQ, levelP, ctQP, ct)
}

// modDown is ModDown through the router r (nil: Lattigo's transforms).
func modDown(r Router, ev *rlwe.Evaluator, levelQ, levelP int, ctQP *rlwe.Element[ringqp.Poly], ct *rlwe.Ciphertext) {
	params := ev.GetRLWEParameters()
	if levelP < 0 || params.RingP() == nil || !ctQP.IsNTT || !ct.IsNTT || len(ctQP.Value) != 2 || len(ct.Value) < 2 {
		ev.ModDown(levelQ, levelP, ctQP, ct)
		return
	}
	ringQ := params.RingQ().AtLevel(levelQ)
	ringP := params.RingP().AtLevel(levelP)
	sc := newScratch(params.N())
	defer sc.release()
	var buffP, buffQ [2]ring.Poly
	jobs := make([]Job, 0, 2*(levelQ+1))
	for k := range buffP {
		buffP[k] = sc.poly(levelP)
		buffQ[k] = sc.poly(levelQ)
		for x, s := range ringP.SubRings[:levelP+1] {
			jobs = append(jobs, Job{S: s, Src: ctQP.Value[k].P.Coeffs[x], Dst: buffP[k].Coeffs[x]})
		}
	}
	transform(r, true, true, jobs)
	jobs = jobs[:0]
	modUpPtoQ(r, ev, ringQ, ringP, levelQ, levelP, buffP[:], buffQ[:])
	for k := range buffQ {
		for x, s := range ringQ.SubRings[:levelQ+1] {
			jobs = append(jobs, Job{S: s, Src: buffQ[k].Coeffs[x], Dst: buffQ[k].Coeffs[x]})
		}
	}
	transform(r, false, true, jobs)
	pInv := modDownConstants(params, levelP)
	var sd []ScaleDiffJob
	for k := range buffQ {
		for i, s := range ringQ.SubRings[:levelQ+1] {
			sd = append(sd, ScaleDiffJob{S: s, X: buffQ[k].Coeffs[i], Y: ctQP.Value[k].Q.Coeffs[i], Out: ct.Value[k].Coeffs[i], W: s.Modulus - pInv[i]})
		}
	}
	scaleDiff(r, sd)
}

// modDownConstants returns (p_0·…·p_levelP)^{-1} mod q_i in Montgomery
// form for every q_i: Lattigo's genmodDownConstants (unexported upstream),
// recomputed the same way.
func modDownConstants(params *rlwe.Parameters, levelP int) []uint64 {
	ringQ, ringP := params.RingQ(), params.RingP()
	out := make([]uint64, len(ringQ.SubRings))
	for j, sp := range ringP.SubRings[:levelP+1] {
		pj := sp.Modulus
		for i, sq := range ringQ.SubRings {
			qi := sq.Modulus
			c := ring.MForm(ring.ModExp(pj, qi-2, qi), qi, sq.BRedConstant)
			if j > 0 {
				c = ring.MRed(c, out[i], qi, sq.MRedConstant)
			}
			out[i] = c
		}
	}
	return out
}

// modUpPtoQ is BasisExtender.ModUpPtoQ of every polP[k] into polQ[k],
// through r as one call where it takes basis extensions (the
// outputs are reduced; Lattigo's are lazy and feed the same NTT and full
// Montgomery reduction), else Lattigo's.
func modUpPtoQ(r Router, ev *rlwe.Evaluator, ringQ, ringP *ring.Ring, levelQ, levelP int, polP, polQ []ring.Poly) {
	if _, ok := keySwitchRouter(r); ok {
		src, dst := make([]uint64, levelP+1), make([]uint64, levelQ+1)
		for x, s := range ringP.SubRings[:levelP+1] {
			src[x] = s.Modulus
		}
		for x, s := range ringQ.SubRings[:levelQ+1] {
			dst[x] = s.Modulus
		}
		c := modUpConstantsFor(src, dst)
		jobs := make([]ModUpJob, len(polP))
		for k := range polP {
			jobs[k] = ModUpJob{N: ringQ.N(), C: c, Src: polP[k].Coeffs[:levelP+1], Dst: polQ[k].Coeffs[:levelQ+1]}
		}
		if modUp(r, jobs) {
			return
		}
	}
	for k := range polP {
		ev.BasisExtender.ModUpPtoQ(levelP, levelQ, polP[k], polQ[k])
	}
}
