package engine

import (
	"encoding/binary"
	"fmt"
	"math/big"
	"math/bits"
	"sync"

	"github.com/tuneinsight/lattigo/v6/ring"
)

// ModUpConstants describe one fast exact basis extension (Lattigo's
// ModUpExact together with the centring around it, Halevi–Polyakov–Shoup,
// "An Improved RNS Variant of the BFV Homomorphic Encryption Scheme",
// CT-RSA 2019, §2.2), from source moduli q_i (product Q) to target moduli
// p_t, in plain (not Montgomery) form:
//
//	y_i = (x_i + Add_i)·Inv_i mod q_i    Add_i = H mod q_i, Inv_i = (Q/q_i)^{-1} mod q_i
//	v   = ⌊Σ_i float64(y_i)/float64(q_i)⌋ (IEEE double, summed in i order)
//	out_t = Σ_i y_i·QHat_{t,i} + VTab_{t,v} mod p_t in [0, p_t)
//	                                     QHat_{t,i} = Q/q_i mod p_t, VTab_{t,v} = −(v·Q + H) mod p_t
//
// with H = ⌊Q/2⌋. Σ y_i·Q/q_i − v·Q is x + H as an integer in [0, Q) (v
// is the number of Q the sum exceeds it by; the floating-point estimate is
// exact unless the fractional part is within 2^-50 or so of an integer, and
// then it is Lattigo's estimate, bit for bit, that decides), so out_t is the
// centred lift of x reduced mod p_t. Lattigo computes the same quantities
// in Montgomery form with lazy reductions; every consumer reduces fully, so
// the canonical residue gives the same bytes.
type ModUpConstants struct {
	SrcQ, Add, Inv []uint64
	DstQ           []uint64
	QHat           [][]uint64 // [t][i]
	VTab           [][]uint64 // [t][v], v = 0…len(SrcQ)
}

// ModUpJob is one basis extension of N words: Src[i] holds the words mod
// C.SrcQ[i] (each < 2·SrcQ[i]: Lattigo's lazy INTT bound), Dst[t] receives
// the words mod C.DstQ[t]. Dst never aliases Src.
type ModUpJob struct {
	N   int
	C   *ModUpConstants
	Src [][]uint64
	Dst [][]uint64
}

// Check reports a malformed job — no constants, constants whose tables do
// not match their moduli, a source or target count that is not the
// constants', any limb shorter than N — before a backend reads it. It says
// nothing of the words' or moduli's bounds, which each kernel checks itself.
func (j ModUpJob) Check() error {
	c := j.C
	if c == nil {
		return fmt.Errorf("basis extension: no constants")
	}
	ns, nt := len(c.SrcQ), len(c.DstQ)
	switch {
	case ns == 0 || nt == 0 || len(c.Add) != ns || len(c.Inv) != ns || len(c.QHat) != nt || len(c.VTab) != nt:
		return fmt.Errorf("basis extension: inconsistent constants (%d sources, %d targets)", ns, nt)
	case j.N <= 0 || len(j.Src) != ns || len(j.Dst) != nt:
		return fmt.Errorf("basis extension: N = %d, %d sources, %d targets", j.N, len(j.Src), len(j.Dst))
	}
	for t := range nt {
		if len(c.QHat[t]) != ns || len(c.VTab[t]) != ns+1 {
			return fmt.Errorf("basis extension: inconsistent constants of target %d", t)
		}
	}
	for _, l := range j.Src {
		if len(l) < j.N {
			return fmt.Errorf("basis extension: source shorter than N = %d", j.N)
		}
	}
	for _, l := range j.Dst {
		if len(l) < j.N {
			return fmt.Errorf("basis extension: target shorter than N = %d", j.N)
		}
	}
	return nil
}

var modUpCache sync.Map // string(srcQ ‖ dstQ) → *ModUpConstants

// modUpConstantsFor returns (cached) the constants from src to dst.
func modUpConstantsFor(src, dst []uint64) *ModUpConstants {
	key := make([]byte, 0, 8*(len(src)+len(dst)+1))
	for _, q := range src {
		key = binary.LittleEndian.AppendUint64(key, q)
	}
	key = binary.LittleEndian.AppendUint64(key, 0)
	for _, p := range dst {
		key = binary.LittleEndian.AppendUint64(key, p)
	}
	if c, ok := modUpCache.Load(string(key)); ok {
		return c.(*ModUpConstants)
	}
	c := NewModUpConstants(src, dst)
	modUpCache.Store(string(key), c)
	return c
}

// NewModUpConstants computes the constants of the extension from the
// (pairwise coprime) moduli src to dst.
func NewModUpConstants(src, dst []uint64) *ModUpConstants {
	Q := big.NewInt(1)
	for _, q := range src {
		Q.Mul(Q, new(big.Int).SetUint64(q))
	}
	H := new(big.Int).Rsh(Q, 1)
	c := &ModUpConstants{SrcQ: append([]uint64(nil), src...), DstQ: append([]uint64(nil), dst...)}
	t := new(big.Int)
	for _, q := range src {
		bq := new(big.Int).SetUint64(q)
		c.Add = append(c.Add, t.Mod(H, bq).Uint64())
		qhat := new(big.Int).Quo(Q, bq)
		c.Inv = append(c.Inv, t.ModInverse(qhat.Mod(qhat, bq), bq).Uint64())
	}
	for _, p := range dst {
		bp := new(big.Int).SetUint64(p)
		row := make([]uint64, len(src))
		for i, q := range src {
			row[i] = t.Mod(t.Quo(Q, new(big.Int).SetUint64(q)), bp).Uint64()
		}
		c.QHat = append(c.QHat, row)
		vt := make([]uint64, len(src)+1)
		for v := range vt {
			x := new(big.Int).Mul(big.NewInt(int64(v)), Q)
			x.Add(x, H).Neg(x).Mod(x, bp)
			vt[v] = x.Uint64()
		}
		c.VTab = append(c.VTab, vt)
	}
	return c
}

// Reference computes the first words of the job in Go (the definition
// above, word by word) into dst (len(j.C.DstQ) slices of at least words
// words, words ≤ j.N): the model the routed kernels are proved against.
func (j *ModUpJob) Reference(dst [][]uint64, words int) {
	c := j.C
	y := make([]uint64, len(c.SrcQ))
	for x := 0; x < words; x++ {
		var vi float64
		for i, q := range c.SrcQ {
			a := (j.Src[i][x]%q + c.Add[i]) % q
			y[i] = mulMod(a, c.Inv[i], q)
			vi += float64(y[i]) / float64(q)
		}
		v := min(uint64(vi), uint64(len(c.SrcQ)))
		for t, p := range c.DstQ {
			s := c.VTab[t][v]
			for i := range y {
				s = (s + mulMod(y[i]%p, c.QHat[t][i], p)) % p
			}
			dst[t][x] = s
		}
	}
}

func mulMod(a, b, q uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return bits.Rem64(hi, lo, q)
}

// modUp runs jobs on rt's KeySwitchRouter; false: not routed (the caller
// runs Lattigo's).
func modUp(rt Router, jobs []ModUpJob) bool {
	r, ok := keySwitchRouter(rt)
	return ok && r.ModUp(jobs)
}

// decomposeAndSplit is Decomposer.DecomposeAndSplit (digit i of the RNS
// gadget decomposition of cxInv, extended to every other modulus of Q∪P)
// through the router where it takes the extension, byte-identical for
// every consumer (the limbs of the digit itself are not written; the
// engine copies them). Digits of one modulus and routers without a
// basis-extension kernel run Lattigo's.
func decomposeAndSplit(rt Router, ev *ring.Decomposer, ringQ, ringP *ring.Ring, levelQ, levelP, nbPi, i int, cxInv, dQ, dP ring.Poly) {
	p0, p1 := i*nbPi, min(i*nbPi+nbPi, levelQ+1)
	if _, ok := keySwitchRouter(rt); !ok || ringP == nil || p1-p0 < 2 {
		ev.DecomposeAndSplit(levelQ, levelP, nbPi, i, cxInv, dQ, dP)
		return
	}
	var src, dst []uint64
	job := ModUpJob{N: ringQ.N()}
	for x, s := range ringQ.SubRings[:levelQ+1] {
		if p0 <= x && x < p1 {
			src = append(src, s.Modulus)
			job.Src = append(job.Src, cxInv.Coeffs[x])
			continue
		}
		dst = append(dst, s.Modulus)
		job.Dst = append(job.Dst, dQ.Coeffs[x])
	}
	for x, s := range ringP.SubRings[:levelP+1] {
		dst = append(dst, s.Modulus)
		job.Dst = append(job.Dst, dP.Coeffs[x])
	}
	job.C = modUpConstantsFor(src, dst)
	if !modUp(rt, []ModUpJob{job}) {
		ev.DecomposeAndSplit(levelQ, levelP, nbPi, i, cxInv, dQ, dP)
	}
}
