package engine

import (
	"fmt"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/ring/ringqp"
	"github.com/tuneinsight/lattigo/v6/utils"
	"github.com/tuneinsight/lattigo/v6/utils/structs"
)

// KeySwitcher is fhegate's key switch: Lattigo v6.2.0's GadgetProduct
// (core/rlwe/evaluator_gadget_product.go) rebuilt over the exported ring and
// rlwe building blocks, with the per-limb transforms of one key switch
// gathered into batches for the Router:
//
//   - the INTT of the switched polynomial over its L+1 moduli (one batch);
//   - the forward NTTs of every decomposition digit over every modulus of
//     Q∪P (one batch of digits × (L+1+#P) jobs, lazy where Lattigo uses
//     NTTLazy);
//   - ModDown's lazy INTTs of the P part and lazy NTTs back into Q, both
//     polynomials in one batch each (engine.ModDown).
//
// A router that is a KeySwitchRouter also receives the loops between the
// transforms: the multiply-accumulate of every modulus (MulAccJob), the
// decomposition's and ModDown's basis extensions (ModUpJob) and ModDown's
// last step (ScaleDiffJob). Otherwise — and whenever the router declines —
// they are Lattigo's own, in Lattigo's order. Either way the output is
// byte-identical to rlwe.Evaluator.GadgetProduct / Relinearize (proved by
// the tests on every preset at every level, with a router answering every
// job from its definition).
//
// A KeySwitcher owns buffers and is not safe for concurrent use; fhe keeps
// one per pooled worker.
type KeySwitcher struct {
	params rlwe.Parameters
	ev     *rlwe.Evaluator // Decomposer, BasisExtender, ModDown; not shared

	cxInv  ring.Poly
	decomp []ringqp.Poly
	jobs   []Job
	// macJobs is reused across calls (the inner slices are rebuilt).
	macJobs  []MulAccJob
	macLimbs [][]uint64
	router   Router // nil: the installed router (CurrentRouter)
}

// SetRouter makes r the router of k's transforms (and, where r is or
// wraps a KeySwitchRouter, of its key-switch loops) instead of the
// process's installed router; nil restores the installed one. A Gather is
// set this way, on the key switchers of the goroutines that take part in it.
func (k *KeySwitcher) SetRouter(r Router) { k.router = r }

// route returns k's router: the one set on k, else the installed one.
func (k *KeySwitcher) route() Router {
	if k.router != nil {
		return k.router
	}
	return CurrentRouter()
}

// NewKeySwitcher returns a key switcher over ev (which it uses and must not
// be shared with another goroutine while the switcher runs).
func NewKeySwitcher(params rlwe.Parameters, ev *rlwe.Evaluator) *KeySwitcher {
	return &KeySwitcher{params: params, ev: ev}
}

// Relinearize is rlwe.Evaluator.Relinearize with the engine's gadget
// product: ctIn of degree 2 → opOut of degree 1 under rlk.
func (k *KeySwitcher) Relinearize(ctIn *rlwe.Ciphertext, rlk *rlwe.RelinearizationKey, opOut *rlwe.Ciphertext) error {
	if ctIn.Degree() != 2 {
		return fmt.Errorf("cannot relinearize: ctIn.Degree() should be 2 but is %d", ctIn.Degree())
	}
	if rlk == nil {
		return fmt.Errorf("cannot relinearize: no relinearization key")
	}
	level := utils.Min(ctIn.Level(), opOut.Level())
	ringQ := k.params.RingQ().AtLevel(level)

	sc := newScratch(k.params.N())
	defer sc.release()
	ctTmp := &rlwe.Ciphertext{Element: rlwe.Element[ring.Poly]{MetaData: ctIn.MetaData, Value: []ring.Poly{sc.poly(level), sc.poly(level)}}}

	k.GadgetProduct(level, ctIn.Value[2], &rlk.GadgetCiphertext, ctTmp)
	ringQ.Add(ctIn.Value[0], ctTmp.Value[0], opOut.Value[0])
	ringQ.Add(ctIn.Value[1], ctTmp.Value[1], opOut.Value[1])

	opOut.Resize(1, level)
	*opOut.MetaData = *ctIn.MetaData
	return nil
}

// GadgetProduct is rlwe.Evaluator.GadgetProduct: ct = <decomp(cx), gadgetCt>
// mod Q (ct.IsNTT gives the domain of cx and of the result). Shapes the
// engine does not batch (no P basis, power-of-two decomposition, cx outside
// the NTT domain) run Lattigo's own gadget product.
func (k *KeySwitcher) GadgetProduct(levelQ int, cx ring.Poly, gadgetCt *rlwe.GadgetCiphertext, ct *rlwe.Ciphertext) {
	levelQ = utils.Min(levelQ, gadgetCt.LevelQ())
	levelP := gadgetCt.LevelP()
	if levelP < 0 || gadgetCt.BaseTwoDecomposition != 0 || !ct.IsNTT || k.params.RingP() == nil {
		k.ev.GadgetProduct(levelQ, cx, gadgetCt, ct)
		return
	}
	sc := newScratch(k.params.N())
	defer sc.release()
	ctQP := &rlwe.Element[ringqp.Poly]{}
	ctQP.Value = []ringqp.Poly{
		{Q: ct.Value[0], P: sc.poly(levelP)},
		{Q: ct.Value[1], P: sc.poly(levelP)},
	}
	ctQP.MetaData = ct.MetaData
	r := k.route()
	k.gadgetProductLazyNTT(r, levelQ, levelP, cx, gadgetCt, ctQP)
	modDown(r, k.ev, levelQ, levelP, ctQP, ct)
}

// buffers sizes the decomposition buffers for (levelQ, levelP, digits).
func (k *KeySwitcher) buffers(levelQ, levelP, digits int) {
	N := k.params.N()
	if k.cxInv.Level() < levelQ || k.cxInv.N() != N {
		k.cxInv = ring.NewPoly(N, k.params.MaxLevelQ())
	}
	if len(k.decomp) < digits || (len(k.decomp) > 0 && k.decomp[0].LevelP() < levelP) {
		k.decomp = make([]ringqp.Poly, digits)
		for i := range k.decomp {
			k.decomp[i] = ringqp.NewPoly(N, k.params.MaxLevelQ(), k.params.MaxLevelP())
		}
	}
}

// gadgetProductLazyNTT is Lattigo's gadgetProductMultiplePLazy (#P > 1) or
// gadgetProductSinglePAndBitDecompLazy without bit decomposition (#P = 1),
// for cx and ctQP in the NTT domain, with the transforms batched.
func (k *KeySwitcher) gadgetProductLazyNTT(r Router, levelQ, levelP int, cxNTT ring.Poly, gadgetCt *rlwe.GadgetCiphertext, ctQP *rlwe.Element[ringqp.Poly]) {
	params := k.params
	ringQP := params.RingQP().AtLevel(levelQ, levelP)
	ringQ, ringP := ringQP.RingQ, ringQP.RingP
	singleP := levelP == 0
	digits := params.BaseRNSDecompositionVectorSize(levelQ, levelP)
	if singleP {
		digits = levelQ + 1
	}
	k.buffers(levelQ, levelP, digits)

	// cx out of the NTT domain: one batch of L+1 reduced INTTs.
	cxInv := k.cxInv
	cxInv.Coeffs = cxInv.Coeffs[:levelQ+1]
	jobs := k.jobs[:0]
	for x, s := range ringQ.SubRings[:levelQ+1] {
		jobs = append(jobs, Job{S: s, Src: cxNTT.Coeffs[x], Dst: cxInv.Coeffs[x]})
	}
	transform(r, true, false, jobs)

	// Decompose every digit, then one batch of forward NTTs over all of them.
	nbPi := levelP + 1
	jobs = jobs[:0]
	decomp := make([]ringqp.Poly, digits)
	for i := range decomp {
		dQ, dP := k.decomp[i].Q, k.decomp[i].P // views at (levelQ, levelP)
		dQ.Coeffs, dP.Coeffs = dQ.Coeffs[:levelQ+1], dP.Coeffs[:levelP+1]
		decomp[i] = ringqp.Poly{Q: dQ, P: dP}
		decomposeAndSplit(r, k.ev.Decomposer, ringQ, ringP, levelQ, levelP, nbPi, i, cxInv, dQ, dP)
		p0, p1 := i*nbPi, i*nbPi+nbPi
		for x, s := range ringQ.SubRings[:levelQ+1] {
			if !singleP && p0 <= x && x < p1 {
				copy(dQ.Coeffs[x], cxNTT.Coeffs[x]) // DecomposeSingleNTT: the digit's own limbs
				continue
			}
			jobs = append(jobs, Job{S: s, Src: dQ.Coeffs[x], Dst: dQ.Coeffs[x]})
		}
		for x, s := range ringP.SubRings[:levelP+1] {
			jobs = append(jobs, Job{S: s, Src: dP.Coeffs[x], Dst: dP.Coeffs[x]})
		}
	}
	// #P = 1: Lattigo transforms the digits with NTTLazy; #P > 1: with NTT.
	transform(r, false, singleP, jobs)
	k.jobs = jobs[:0]

	el := gadgetCt.Value
	c0, c1 := ctQP.Value[0], ctQP.Value[1]
	if k.mulAccRouted(r, ringQ, ringP, levelQ, levelP, digits, el, decomp, c0, c1) {
		return
	}

	// Lattigo's multiply-accumulate and reduction schedule.
	QiOverF := params.QiOverflowMargin(levelQ) >> 1
	PiOverF := params.PiOverflowMargin(levelP) >> 1
	var reduce int
	for i := 0; i < digits; i++ {
		if i == 0 {
			ringQP.MulCoeffsMontgomeryLazy(el[i][0][0], decomp[i], c0)
			ringQP.MulCoeffsMontgomeryLazy(el[i][0][1], decomp[i], c1)
		} else {
			ringQP.MulCoeffsMontgomeryLazyThenAddLazy(el[i][0][0], decomp[i], c0)
			ringQP.MulCoeffsMontgomeryLazyThenAddLazy(el[i][0][1], decomp[i], c1)
		}
		if reduce%QiOverF == QiOverF-1 {
			ringQ.Reduce(c0.Q, c0.Q)
			ringQ.Reduce(c1.Q, c1.Q)
		}
		if reduce%PiOverF == PiOverF-1 {
			ringP.Reduce(c0.P, c0.P)
			ringP.Reduce(c1.P, c1.P)
		}
		reduce++
	}
	if reduce%QiOverF != 0 {
		ringQ.Reduce(c0.Q, c0.Q)
		ringQ.Reduce(c1.Q, c1.Q)
	}
	if reduce%PiOverF != 0 {
		ringP.Reduce(c0.P, c0.P)
		ringP.Reduce(c1.P, c1.P)
	}
}

// mulAccRouted hands the multiply-accumulate of every modulus of Q∪P to
// rt as one call, if it is (or a Gather wraps) a KeySwitchRouter; false: the
// caller runs Lattigo's loop.
func (k *KeySwitcher) mulAccRouted(rt Router, ringQ, ringP *ring.Ring, levelQ, levelP, digits int, el structs.Matrix[rlwe.VectorQP],
	decomp []ringqp.Poly, c0, c1 ringqp.Poly) bool {
	r, ok := keySwitchRouter(rt)
	if !ok {
		return false
	}
	jobs := k.macJobs[:0]
	n := (levelQ + levelP + 2) * digits * 3
	if cap(k.macLimbs) < n {
		k.macLimbs = make([][]uint64, n)
	}
	limbs := k.macLimbs[:n]
	take := func() [][]uint64 {
		t := limbs[:digits:digits]
		limbs = limbs[digits:]
		return t
	}
	add := func(s *ring.SubRing, x int, isP bool, o0, o1 []uint64) {
		j := MulAccJob{S: s, K0: take(), K1: take(), D: take(), Out0: o0, Out1: o1}
		for i := 0; i < digits; i++ {
			k0, k1, d := el[i][0][0].Q, el[i][0][1].Q, decomp[i].Q
			if isP {
				k0, k1, d = el[i][0][0].P, el[i][0][1].P, decomp[i].P
			}
			j.K0[i], j.K1[i], j.D[i] = k0.Coeffs[x], k1.Coeffs[x], d.Coeffs[x]
		}
		jobs = append(jobs, j)
	}
	for x, s := range ringQ.SubRings[:levelQ+1] {
		add(s, x, false, c0.Q.Coeffs[x], c1.Q.Coeffs[x])
	}
	for x, s := range ringP.SubRings[:levelP+1] {
		add(s, x, true, c0.P.Coeffs[x], c1.P.Coeffs[x])
	}
	k.macJobs = jobs[:0]
	return r.GadgetMulAcc(jobs)
}

// Automorphism is rlwe.Evaluator.Automorphism (a slot rotation or the
// conjugation) with the engine's gadget product: opOut = φ_galEl(ctIn)
// under the Galois key the evaluator holds for galEl. Byte-identical to
// Lattigo's.
func (k *KeySwitcher) Automorphism(ctIn *rlwe.Ciphertext, galEl uint64, opOut *rlwe.Ciphertext) error {
	if ctIn.Degree() != 1 || opOut.Degree() != 1 {
		return fmt.Errorf("cannot apply Automorphism: input and output Ciphertext must be of degree 1")
	}
	if galEl == 1 {
		if opOut != ctIn {
			opOut.Copy(ctIn)
		}
		return nil
	}
	evk, err := k.ev.CheckAndGetGaloisKey(galEl)
	if err != nil {
		return fmt.Errorf("cannot apply Automorphism: %w", err)
	}
	level := utils.Min(ctIn.Level(), opOut.Level())
	opOut.Resize(opOut.Degree(), level)
	ringQ := k.params.RingQ().AtLevel(level)

	sc := newScratch(k.params.N())
	defer sc.release()
	ctTmp := &rlwe.Ciphertext{Element: rlwe.Element[ring.Poly]{MetaData: ctIn.MetaData, Value: []ring.Poly{sc.poly(level), sc.poly(level)}}}
	k.GadgetProduct(level, ctIn.Value[1], &evk.GadgetCiphertext, ctTmp)
	ringQ.Add(ctTmp.Value[0], ctIn.Value[0], ctTmp.Value[0])
	if ctIn.IsNTT {
		index := k.ev.AutomorphismIndex(galEl)
		ringQ.AutomorphismNTTWithIndex(ctTmp.Value[0], index, opOut.Value[0])
		ringQ.AutomorphismNTTWithIndex(ctTmp.Value[1], index, opOut.Value[1])
	} else {
		ringQ.Automorphism(ctTmp.Value[0], galEl, opOut.Value[0])
		ringQ.Automorphism(ctTmp.Value[1], galEl, opOut.Value[1])
	}
	*opOut.MetaData = *ctIn.MetaData
	return nil
}
