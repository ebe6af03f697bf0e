package engine

import (
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/ring/ringqp"
)

// DecomposeNTT is rlwe.Evaluator.DecomposeNTT (the hoisted decomposition
// that rotations of one ciphertext share) with its transforms batched: one
// batch for c2's change of domain over its L+1 moduli, one batch of reduced
// forward NTTs over every digit × every modulus of Q∪P (the digit's own
// limbs are copied from c2 in the NTT domain, as Lattigo does). The result
// in decompQP is byte-identical to Lattigo's. ev supplies the Decomposer
// and must not be used concurrently.
func DecomposeNTT(ev *rlwe.Evaluator, levelQ, levelP, nbPi int, c2 ring.Poly, c2IsNTT bool, decompQP []ringqp.Poly) {
	r := CurrentRouter()
	params := ev.GetRLWEParameters()
	ringQ := params.RingQ().AtLevel(levelQ)
	var ringP *ring.Ring
	if params.RingP() != nil && levelP >= 0 {
		ringP = params.RingP().AtLevel(levelP)
	}
	buff := ringQ.NewPoly()
	var polyNTT, polyInvNTT ring.Poly
	jobs := make([]Job, 0, levelQ+1)
	if c2IsNTT {
		polyNTT, polyInvNTT = c2, buff
	} else {
		polyNTT, polyInvNTT = buff, c2
	}
	for x, s := range ringQ.SubRings[:levelQ+1] {
		if c2IsNTT {
			jobs = append(jobs, Job{S: s, Src: polyNTT.Coeffs[x], Dst: polyInvNTT.Coeffs[x]})
		} else {
			jobs = append(jobs, Job{S: s, Src: polyInvNTT.Coeffs[x], Dst: polyNTT.Coeffs[x]})
		}
	}
	transform(r, c2IsNTT, false, jobs)

	digits := params.BaseRNSDecompositionVectorSize(levelQ, levelP)
	jobs = make([]Job, 0, digits*(levelQ+levelP+2))
	for i := 0; i < digits; i++ {
		dQ, dP := decompQP[i].Q, decompQP[i].P
		decomposeAndSplit(r, ev.Decomposer, ringQ, ringP, levelQ, levelP, nbPi, i, polyInvNTT, dQ, dP)
		p0, p1 := i*nbPi, i*nbPi+nbPi
		for x, s := range ringQ.SubRings[:levelQ+1] {
			if p0 <= x && x < p1 {
				copy(dQ.Coeffs[x], polyNTT.Coeffs[x])
				continue
			}
			jobs = append(jobs, Job{S: s, Src: dQ.Coeffs[x], Dst: dQ.Coeffs[x]})
		}
		if ringP != nil {
			for x, s := range ringP.SubRings[:levelP+1] {
				jobs = append(jobs, Job{S: s, Src: dP.Coeffs[x], Dst: dP.Coeffs[x]})
			}
		}
	}
	transform(r, false, false, jobs)
}
