package zkpok

import (
	"fmt"
	"math/big"

	"github.com/tuneinsight/lattigo/v6/ring"
)

// lifter is an exact ModDown_P for residues mod P = ∏ p_j: it converts a
// residue vector ρ ∈ Z_P to its centred integer representative [ρ]_P ∈
// (−P/2, P/2] by mixed-radix (Garner) conversion, and reduces that mod each
// q_i — integer arithmetic only. Lattigo's own basis extension corrects
// its approximation with floating point, which Go may contract into fused
// multiply-adds on some architectures; the canonical ciphertext every
// member stores and hashes must not depend on the machine that computed it.
type lifter struct {
	p      []uint64
	pbred  [][2]uint64
	garner []uint64   // (p_0···p_{k−1})^{-1} mod p_k
	pre    [][]uint64 // pre[k][j] = p_0···p_{j−1} mod p_k, j < k
	half   []uint64   // the mixed-radix digits of (P−1)/2
	q      []uint64
	qbred  [][2]uint64
	radix  [][]uint64 // radix[i][j] = p_0···p_{j−1} mod q_i
	pModQ  []uint64   // P mod q_i
	pInv   []uint64   // P^{-1} mod q_i
	bigP   *big.Int   // P (1 without an auxiliary modulus)
}

func newLifter(qs, ps []uint64) (*lifter, error) {
	l := &lifter{p: ps, q: qs, bigP: big.NewInt(1)}
	prefix := []*big.Int{big.NewInt(1)} // p_0···p_{j−1}
	for _, p := range ps {
		l.bigP.Mul(l.bigP, new(big.Int).SetUint64(p))
		prefix = append(prefix, new(big.Int).Set(l.bigP))
	}
	mod := func(x *big.Int, m uint64) uint64 {
		return new(big.Int).Mod(x, new(big.Int).SetUint64(m)).Uint64()
	}
	inv := func(x *big.Int, m uint64) (uint64, error) {
		r := new(big.Int).ModInverse(x, new(big.Int).SetUint64(m))
		if r == nil {
			return 0, fmt.Errorf("zkpok: P and the modulus %d share a factor", m)
		}
		return r.Uint64(), nil
	}
	for k, p := range ps {
		l.pbred = append(l.pbred, ring.GenBRedConstant(p))
		g, err := inv(prefix[k], p)
		if err != nil {
			return nil, err
		}
		l.garner = append(l.garner, g)
		row := make([]uint64, k)
		for j := range row {
			row[j] = mod(prefix[j], p)
		}
		l.pre = append(l.pre, row)
	}
	h := new(big.Int).Rsh(new(big.Int).Sub(l.bigP, big.NewInt(1)), 1)
	for _, p := range ps {
		bp := new(big.Int).SetUint64(p)
		l.half = append(l.half, new(big.Int).Mod(h, bp).Uint64())
		h.Quo(h, bp)
	}
	for _, q := range qs {
		l.qbred = append(l.qbred, ring.GenBRedConstant(q))
		row := make([]uint64, len(ps))
		for j := range row {
			row[j] = mod(prefix[j], q)
		}
		l.radix = append(l.radix, row)
		l.pModQ = append(l.pModQ, mod(l.bigP, q))
		pi, err := inv(l.bigP, q)
		if err != nil {
			return nil, err
		}
		l.pInv = append(l.pInv, pi)
	}
	return l, nil
}

// digits writes the mixed-radix digits of the residues r (r_j < p_j) to a
// (x = a_0 + a_1·p_0 + a_2·p_0·p_1 + …, a_j < p_j) and reports whether x
// lies above (P−1)/2, i.e. whether its centred representative is x − P.
func (l *lifter) digits(r, a []uint64) (negative bool) {
	for k, p := range l.p {
		c := l.pbred[k]
		var s uint64
		for j := range k {
			s = addMod(s, ring.BRed(ring.BRedAdd(a[j], p, c), l.pre[k][j], p, c), p)
		}
		a[k] = ring.BRed(subMod(r[k], s, p), l.garner[k], p, c)
	}
	for k := len(a) - 1; k >= 0; k-- {
		if a[k] != l.half[k] {
			return a[k] > l.half[k]
		}
	}
	return false
}

// lifted is [x]_P mod q_i from x's digits (radix[i][0] = 1).
func (l *lifter) lifted(a []uint64, negative bool, i int) uint64 {
	q, c := l.q[i], l.qbred[i]
	v := ring.BRedAdd(a[0], q, c)
	for j := 1; j < len(a); j++ {
		v = addMod(v, ring.BRed(ring.BRedAdd(a[j], q, c), l.radix[i][j], q, c), q)
	}
	if negative {
		v = subMod(v, l.pModQ[i], q)
	}
	return v
}

// modDown writes (c − [ρ]_P)·P^{-1} mod q_i to out (coefficient domain;
// c and out have one row per q_i, ρ one per p_j): the prover's ct.
func (l *lifter) modDown(c, rho, out [][]uint64) {
	l.lift(rho, len(c[0]), out)
	for i, q := range l.q {
		for j, x := range c[i] {
			out[i][j] = ring.BRed(subMod(x, out[i][j], q), l.pInv[i], q, l.qbred[i])
		}
	}
}

// lift writes [ρ]_P mod q_i to out (n coefficients a row; zero when
// P = 1): with P·ct it rebuilds the Q part of the ĉ that modDown maps to
// ct, ĉ = P·ct + [ρ]_P (the verifier adds P·ct in the NTT domain).
func (l *lifter) lift(rho [][]uint64, n int, out [][]uint64) {
	if len(l.p) == 0 {
		for i := range l.q {
			clear(out[i][:n])
		}
		return
	}
	r, a := make([]uint64, len(l.p)), make([]uint64, len(l.p))
	for j := range n {
		neg := l.load(rho, j, r, a)
		for i := range l.q {
			out[i][j] = l.lifted(a, neg, i)
		}
	}
}

// load reads coefficient j of ρ into r and its digits into a; it reports
// whether the centred representative is negative.
func (l *lifter) load(rho [][]uint64, j int, r, a []uint64) bool {
	for k := range r {
		r[k] = rho[k][j]
	}
	return l.digits(r, a)
}

func addMod(a, b, q uint64) uint64 {
	s := a + b
	if s >= q {
		s -= q
	}
	return s
}

// subMod is a − b mod q for a, b < q.
func subMod(a, b, q uint64) uint64 {
	if a >= b {
		return a - b
	}
	return a + q - b
}
