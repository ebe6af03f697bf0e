package protocol

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// TestCrossKeySwitchForwardSecrecy is the retiring committee's attack on a
// rotation, run without any deviation: the t old active members (here all
// of the old active set, 2 of a 2-of-3 committee) follow CrossKeySwitch to
// the letter, then pool what they hold — the input, the output every
// participant computes and their own unmasked shares, from their ledgers —
// and compute D = c0″ − c0 − Σ_{j∈A} d_j = Σ_{k∈B} d_k, the new members'
// shares' sum, and the candidate s̃ = −D·c1″⁻¹ (c1″ the output's c1,
// inverted slot by slot in the NTT domain). Before the new members' shares
// were flooded and c1 re-randomised, D = −c1·s′ exactly and s̃ = s′ in
// every coefficient. Now D = −c1″·s′ + ΣE′_k, an RLWE sample with a
// flooding-width error, and s̃ = s′ − ΣE′_k·c1″⁻¹ is uniform-looking.
//
// Two inputs: an honest upload, and one whose c1 the old members chose (the
// constant 1, which all t of them send identically, so a new member takes
// it): without the re-randomisation D = −s′ + ΣE′ would show s′ through a
// flooding that only hides shifts far below it, which s′ is not once c1 is
// large; with it the new members multiply s′_k by c1 + r for r derived
// from the input, never by the old members' choice.
//
// Each case also checks that the rotation still works: every participant
// computes the same output and it decrypts under s′ to the input's plaintext
// (read with the old secret, the reference the old members hold).
func TestCrossKeySwitchForwardSecrecy(t *testing.T) {
	t.Parallel()
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	tc := newTwoCommittees(t, p, 3, 2)
	plan, err := PlanNoise(p, 3, 2, 0)
	require.NoError(t, err)
	sOld := shamirSecret(t, tc.old, []int{0, 1})
	sNew := shamirSecret(t, tc.next, []int{0, 1})
	wantS := secretCoeffs(p, sNew)
	r := rand.New(rand.NewPCG(11, 12))

	// The old members' chosen c1: the integer constant C = ⌊Q_ℓ/16⌋, which
	// is C mod q_i in every NTT slot. Un-re-randomised, D = −C·s′ + ΣE′
	// has its coefficients near multiples of C (s′ = Σ of three ternary
	// secrets, |s′_w| ≤ 3, so −C·s′ does not wrap): rounding D/C reads s′
	// through any flooding below C/2.
	level := p.MaxLevel()
	bigC := new(big.Int).Div(p.RLWE().RingQ().AtLevel(level).Modulus(), big.NewInt(16))
	chosenC1 := func(ct *fhe.Ciphertext) {
		c1 := ct.Lattigo().Value[1]
		for i, q := range p.Q()[:level+1] {
			ci := new(big.Int).Mod(bigC, new(big.Int).SetUint64(q)).Uint64()
			for w := range c1.Coeffs[i] {
				c1.Coeffs[i][w] = ci
			}
		}
	}
	for _, tt := range []struct {
		name  string
		craft func(*fhe.Ciphertext)
	}{
		{"honest upload", nil},
		{"c1 chosen by the old members", chosenC1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			msg := fhetest.RandInts(r, p.Slots(), 1000)
			in := mustEnc(t, fhe.NewEncryptor(tc.old.kms[0].Public), msg)
			if tt.craft != nil {
				tt.craft(in)
			}
			want, err := fhe.NewDecryptor(fhe.WrapSecretKey(p, sOld)).DecryptInts(in)
			require.NoError(t, err)
			session := fmt.Sprintf("ks/secrecy/%s", tt.name)
			req := KeySwitchRequest{Session: session, Ciphertext: in, Target: tc.next.kms[0].Public,
				Old: []transport.MemberID{1, 2, 3}, New: []transport.MemberID{4, 5, 6}, OldActive: []transport.MemberID{1, 3}, NewActive: []transport.MemberID{4, 6},
				NewOffset: 3, Receivers: []transport.MemberID{5}}
			parts := []transport.MemberID{1, 3, 4, 5, 6}
			outs := map[transport.MemberID]*fhe.Ciphertext{}
			var mu sync.Mutex
			for x, err := range parallel(all(len(parts)), func(x int) error {
				id := parts[x]
				c, i, g := tc.participant(t, id, nil)
				o, err := CrossKeySwitch(context.Background(), g, c.keys[i], plan, c.ledgers[i], req)
				mu.Lock()
				outs[id] = o
				mu.Unlock()
				return err
			}) {
				require.NoError(t, err, "participant %d", parts[x])
			}
			out := outs[1]
			h0, err := out.Handle()
			require.NoError(t, err)
			for id, o := range outs {
				h, err := o.Handle()
				require.NoError(t, err)
				require.Equal(t, h0, h, "participant %d computed another ciphertext", id)
			}
			got, err := fhe.NewDecryptor(fhe.WrapSecretKey(p, sNew)).DecryptInts(out)
			require.NoError(t, err)
			require.Equal(t, want, got, "the switched ciphertext decrypts under s′ to the input's plaintext")

			// The retiring members' attack.
			var unmasked [][]byte
			for _, i := range []int{0, 2} {
				for _, e := range tc.old.ledgers[i].m {
					if e.session == session {
						unmasked = append(unmasked, e.share)
					}
				}
			}
			require.Len(t, unmasked, 2, "each old active member's own unmasked share")
			d := newSharesSum(t, p, in, out, unmasked)
			cands := map[string][]int64{"divide by c1″": divideCandidate(p, out, d)}
			if tt.craft != nil {
				cands["round by the chosen C"] = roundCandidate(p, d, bigC)
			}
			later := fhetest.RandInts(r, p.Slots(), 1000)
			up := mustEnc(t, fhe.NewEncryptor(tc.next.kms[0].Public), later)
			for how, cand := range cands {
				same := 0
				for i, c := range cand {
					if c == wantS[i] {
						same++
					}
				}
				require.Less(t, same, p.N()/2, "%s: the candidate agrees with s′ in %d of %d coefficients", how, same, p.N())
				// The candidate does not decrypt a later upload under pk′.
				read, err := fhe.NewDecryptor(fhe.WrapSecretKey(p, candidateKey(p, cand))).DecryptInts(up)
				require.NoError(t, err)
				require.NotEqual(t, later, read, "%s: the candidate reads an upload under pk′", how)
			}
			// Control: s′ itself does.
			read, err := fhe.NewDecryptor(fhe.WrapSecretKey(p, sNew)).DecryptInts(up)
			require.NoError(t, err)
			require.Equal(t, later, read)
		})
	}
}

// newSharesSum is what the old active set computes: D = c0″ − c0 −
// Σ unmasked = Σ_{k∈B} d_k (the masks cancel in the sum).
func newSharesSum(t *testing.T, p *fhe.Params, in, out *fhe.Ciphertext, unmasked [][]byte) ring.Poly {
	level := in.Level()
	rq := p.RLWE().RingQ().AtLevel(level)
	d := rq.NewPoly()
	rq.Sub(out.Lattigo().Value[0], in.Lattigo().Value[0], d)
	sh := rq.NewPoly()
	for _, b := range unmasked {
		require.NoError(t, decodeLevelPoly(p, level, b, &sh))
		rq.Sub(d, sh, d)
	}
	return d
}

// divideCandidate is −D·c1″⁻¹ (slot by slot in the NTT domain), centred
// coefficients over the first prime.
func divideCandidate(p *fhe.Params, out *fhe.Ciphertext, d ring.Poly) []int64 {
	level := out.Level()
	rq := p.RLWE().RingQ().AtLevel(level)
	x := rq.NewPoly()
	rq.Neg(d, x)
	c1 := out.Lattigo().Value[1]
	for i, s := range rq.SubRings[:level+1] {
		q := s.Modulus
		for w := range x.Coeffs[i] {
			inv := uint64(0)
			if c := c1.Coeffs[i][w]; c != 0 {
				inv = ring.ModExp(c, q-2, q)
			}
			x.Coeffs[i][w] = ring.BRed(x.Coeffs[i][w], inv, q, s.BRedConstant)
		}
	}
	rq.INTT(x, x)
	q := rq.SubRings[0].Modulus
	cand := make([]int64, rq.N())
	for i, c := range x.Coeffs[0] {
		cand[i] = int64(c)
		if c > q/2 {
			cand[i] = int64(c) - int64(q)
		}
	}
	return cand
}

// roundCandidate is round(−D/C) coefficient by coefficient (D centred mod
// Q_ℓ).
func roundCandidate(p *fhe.Params, d ring.Poly, bigC *big.Int) []int64 {
	level := d.Level()
	rq := p.RLWE().RingQ().AtLevel(level)
	x := rq.NewPoly()
	rq.Neg(d, x)
	rq.INTT(x, x)
	coeffs := make([]*big.Int, rq.N())
	for i := range coeffs {
		coeffs[i] = new(big.Int)
	}
	rq.PolyToBigintCentered(x, 1, coeffs)
	half := new(big.Int).Rsh(bigC, 1)
	cand := make([]int64, rq.N())
	for i, v := range coeffs {
		cand[i] = new(big.Int).Div(new(big.Int).Add(v, half), bigC).Int64()
	}
	return cand
}

// candidateKey is a secret key with the coefficients cand (mod every
// prime), in the NTT and Montgomery form Lattigo's decryptor expects.
func candidateKey(p *fhe.Params, cand []int64) *rlwe.SecretKey {
	sk := rlwe.NewSecretKey(p.RLWE())
	rq := p.RLWE().RingQ()
	for i, s := range rq.SubRings {
		q := s.Modulus
		for w, c := range cand {
			v := c % int64(q)
			if v < 0 {
				v += int64(q)
			}
			sk.Value.Q.Coeffs[i][w] = uint64(v)
		}
	}
	rq.NTT(sk.Value.Q, sk.Value.Q)
	rq.MForm(sk.Value.Q, sk.Value.Q)
	return sk
}
