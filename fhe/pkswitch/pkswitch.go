// Package pkswitch is the requester's side of a client-driven threshold
// public-key switch (a private read, docs/committee.md "Private reads"):
// the t members' shares
//
//	h0_j = c1·tsk_j + u_j·pk'0 + e0_j + E_j,   h1_j = u_j·pk'1 + e1_j
//
// (tsk_j member j's Shamir share of the collective secret, pk' the
// requester's key) are combined with Shoup's integer Lagrange coefficients
// Δλ_j, Δ = n! ("Practical Threshold Signatures", EUROCRYPT 2000), into an
// encryption of the plaintext under pk' (the combination of Lattigo's
// PublicKeySwitchProtocol, Mouchet et al., PETS 2021, §IV-C, over Shamir
// rather than additive shares). It imports only fhe (and fhe/noise) and Lattigo's rlwe and
// ring (not its multiparty package: a share is held as the rlwe.Element
// that multiparty.PublicKeySwitchShare wraps, whose encoding it delegates
// to), so the WebAssembly client (clients/js/wasm) and the Go client
// (consensus/api) run the same code without linking the committee's
// protocols (consensus/protocol.CombinePrivateRead wraps it).
package pkswitch

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
)

// MaxMembers bounds n (noise.MaxMembers: the committee size bound, the same value).
const MaxMembers = 16

// ErrTooFewShares: fewer shares than the set needs.
var ErrTooFewShares = errors.New("pkswitch: fewer than t private-read shares")

// Factorial returns n!.
func Factorial(n int) *big.Int {
	f := big.NewInt(1)
	for i := 2; i <= n; i++ {
		f.Mul(f, big.NewInt(int64(i)))
	}
	return f
}

// IntegerLagrange returns Δ·λ_j (Δ = n!) for every Shamir point j in set:
// the Lagrange coefficients at 0 scaled to integers.
func IntegerLagrange(n int, set []uint32) (map[uint32]*big.Int, error) {
	delta := Factorial(n)
	out := make(map[uint32]*big.Int, len(set))
	for _, j := range set {
		num, den := big.NewInt(1), big.NewInt(1)
		for _, k := range set {
			if k == j {
				continue
			}
			num.Mul(num, big.NewInt(int64(k)))
			den.Mul(den, big.NewInt(int64(k)-int64(j)))
		}
		num.Mul(num, delta)
		q, r := new(big.Int).QuoRem(num, den, new(big.Int))
		if r.Sign() != 0 {
			return nil, fmt.Errorf("pkswitch: Δλ_%d not integral", j)
		}
		out[j] = q
	}
	return out, nil
}

// safe runs f, turning a Lattigo panic into an error.
func safe(what string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("pkswitch: %s: %v", what, r)
		}
	}()
	return f()
}

// UnmarshalShare decodes a share at level, checking its shape
// and that every coefficient is reduced (Lattigo's decoder does not). The
// encoding is multiparty.PublicKeySwitchShare's, which is its element's.
func UnmarshalShare(p *fhe.Params, level int, b []byte) (rlwe.Element[ring.Poly], error) {
	var s rlwe.Element[ring.Poly]
	if level < 0 || level > p.MaxLevel() {
		return s, fmt.Errorf("pkswitch: private-read share level %d outside 0..%d", level, p.MaxLevel())
	}
	s = *rlwe.NewElement(p.RLWE(), 1, level)
	if want := s.BinarySize(); len(b) != want {
		return s, fmt.Errorf("pkswitch: private-read share of %d bytes, want %d (level %d)", len(b), want, level)
	}
	if err := fhe.SameLattigoShape(b, func(fill uint64) ([]byte, error) {
		for _, v := range s.Value {
			for _, row := range v.Coeffs {
				for k := range row {
					row[k] = fill
				}
			}
		}
		return s.MarshalBinary()
	}); err != nil {
		return s, fmt.Errorf("pkswitch: private-read share: %w", err)
	}
	if err := safe("private-read share decode", func() error { return s.UnmarshalBinary(b) }); err != nil {
		return s, fmt.Errorf("pkswitch: private-read share: %w", err)
	}
	if len(s.Value) != 2 || s.Value[0].Level() != level || s.Value[1].Level() != level {
		return s, fmt.Errorf("pkswitch: private-read share not at level %d", level)
	}
	for _, v := range s.Value {
		for i, q := range p.Q()[:level+1] {
			for _, c := range v.Coeffs[i] {
				if c >= q {
					return s, errors.New("pkswitch: private-read share coefficient not reduced")
				}
			}
		}
	}
	return s, nil
}

// Combine is the requester's side: from the private-read shares
// of exactly the t members in set, for ct at the decryption level, it
// returns
//
//	(Δ·c0 + Σ_j Δλ_j·h0_j,  Σ_j Δλ_j·h1_j)
//
// (Δ = n!, Δλ_j the integer Lagrange coefficients, IntegerLagrange), an
// encryption of Δ·m under the requester's key, with the plaintext scale
// multiplied by Δ mod t so that an ordinary decryption with the
// requester's secret key (fhe.Decryptor) returns m. Its noise is
// Δ·e_ct + Σ Δλ_j (E_j + u_j·e' + e0_j + e1_j·s'), the threshold
// decryption's (8σ·Σ|Δλ| + Δ·B_ct, which PlanNoise keeps under Q_ℓ/(2t_p)
// with 2 bits of headroom) plus the fresh-encryption terms, ≈ 2^20·Σ|Δλ|,
// far below the flooding. Fewer than t shares give a uniformly masked
// value: the missing Shamir share is not determined.
func Combine(p *fhe.Params, n int, ct *fhe.Ciphertext, set []uint32, shares map[uint32][]byte) (*fhe.Ciphertext, error) {
	if ct == nil || ct.Params() != p || ct.Degree() != 1 {
		return nil, errors.New("pkswitch: private read needs a degree-1 ciphertext of the preset")
	}
	if len(set) == 0 {
		return nil, ErrTooFewShares
	}
	seen := map[uint32]bool{}
	for _, j := range set {
		if j < 1 || int(j) > n || n > noise.MaxMembers || seen[j] {
			return nil, fmt.Errorf("pkswitch: private read: member %d invalid or repeated in a %d-member committee", j, n)
		}
		seen[j] = true
	}
	level := ct.Level()
	lag, err := IntegerLagrange(n, set)
	if err != nil {
		return nil, err
	}
	ringQ := p.RLWE().RingQ().AtLevel(level)
	delta := Factorial(n)
	out := rlwe.NewCiphertext(p.RLWE(), 1, level)
	*out.MetaData = *ct.Lattigo().MetaData
	ringQ.MulScalarBigint(ct.Lattigo().Value[0], delta, out.Value[0])
	for _, j := range set {
		b, ok := shares[j]
		if !ok {
			return nil, fmt.Errorf("pkswitch: private read: no share from member %d", j)
		}
		s, err := UnmarshalShare(p, level, b)
		if err != nil {
			return nil, fmt.Errorf("member %d: %w", j, err)
		}
		ringQ.MulScalarBigintThenAdd(s.Value[0], lag[j], out.Value[0])
		ringQ.MulScalarBigintThenAdd(s.Value[1], lag[j], out.Value[1])
	}
	tmod := p.PlaintextModulus()
	scale := new(big.Int).SetUint64(ct.Lattigo().Scale.Uint64())
	scale.Mul(scale, delta).Mod(scale, new(big.Int).SetUint64(tmod))
	if scale.Sign() == 0 {
		return nil, errors.New("pkswitch: Δ is a multiple of the plaintext modulus")
	}
	out.Scale = rlwe.NewScaleModT(scale.Uint64(), tmod)
	return fhe.WrapCiphertext(p, out)
}
