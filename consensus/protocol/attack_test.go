package protocol

import (
	"context"
	"fmt"
	"math/big"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
)

// recordingLedger keeps the decryption shares a member issues.
type recordingLedger struct {
	l      *memLedger
	mu     sync.Mutex
	shares map[string][]byte // session → share
}

func (r *recordingLedger) Issue(kind ShareKind, d [32]byte, e uint64, s string, gen func() ([]byte, error)) ([]byte, error) {
	b, err := r.l.Issue(kind, d, e, s, gen)
	if err == nil && kind == KindDecryption {
		r.mu.Lock()
		r.shares[s] = b
		r.mu.Unlock()
	}
	return b, err
}

// chosenC1 returns a ciphertext at the plan level with c1 = the constant
// polynomial c (in the NTT domain every evaluation is c) and c0 = 0: what a
// member who registers the identity policy and uploads a crafted input gets
// decrypted.
func chosenC1(t *testing.T, f *decryptFixture, c uint64) *fhe.Ciphertext {
	low, err := PrepareForDecryption(f.ev, f.plan, f.rot)
	require.NoError(t, err)
	ct := low.Lattigo().CopyNew()
	for i, q := range f.p.Q()[:f.plan.Level+1] {
		for k := range ct.Value[1].Coeffs[i] {
			ct.Value[0].Coeffs[i][k] = 0
			ct.Value[1].Coeffs[i][k] = c % q
		}
	}
	out, err := fhe.WrapCiphertext(f.p, ct)
	require.NoError(t, err)
	return out
}

// maxCentred returns max_k |a_k − 2·b_k| over the coefficients (coefficient
// domain, centred mod Q_ℓ) of two shares: small (≤ 3·8σ) when d_a = 2c·tsk + e
// and d_b = c·tsk + e', i.e. when the chosen c1 reached the share.
func maxCentred(t *testing.T, f *decryptFixture, a, b []byte) *big.Int {
	sa, err := UnmarshalDecryptionShare(f.p, f.plan.Level, a)
	require.NoError(t, err)
	sb, err := UnmarshalDecryptionShare(f.p, f.plan.Level, b)
	require.NoError(t, err)
	ringQ := f.p.RLWE().RingQ().AtLevel(f.plan.Level)
	diff := ringQ.NewPoly()
	ringQ.MulScalar(sb.Value, 2, diff)
	ringQ.Sub(sa.Value, diff, diff)
	ringQ.INTT(diff, diff)
	coeffs := make([]*big.Int, f.p.N())
	for i := range coeffs {
		coeffs[i] = new(big.Int)
	}
	ringQ.PolyToBigintCentered(diff, 1, coeffs)
	max := new(big.Int)
	for _, c := range coeffs {
		if a := new(big.Int).Abs(c); a.Cmp(max) > 0 {
			max = a
		}
	}
	return max
}

// TestChosenC1AttackFails is the chosen-c1 key recovery: a member uploads
// ciphertexts whose c1 it chose (a constant c, then 2c) and asks for their
// decryption; unsanitised, the honest shares d_j = c·tsk_j + e_j and
// 2c·tsk_j + e'_j satisfy d' − 2d = e' − 2e, a small value, and two or three
// such queries give tsk_j. After sanitisation the decrypted c1 is
// c + u·a with u from the coin toss: the shares' difference d' − 2d is
// uniform mod Q_ℓ (its largest coefficient ≈ Q_ℓ/2), and the decrypted c1
// is never the chosen one.
func TestChosenC1AttackFails(t *testing.T) {
	t.Parallel()
	f := newDecryptFixture(t)
	c := f.c
	const k = 12345
	ct1, ct2 := chosenC1(t, f, k), chosenC1(t, f, 2*k)

	// Control: without sanitisation the attack works (shares straight from
	// GenDecryptionShare on the chosen ciphertexts).
	d1, err := GenDecryptionShare(c.keys[0], f.plan, ct1)
	require.NoError(t, err)
	d2, err := GenDecryptionShare(c.keys[0], f.plan, ct2)
	require.NoError(t, err)
	small := new(big.Int).Lsh(big.NewInt(1), uint(f.plan.SigmaBits)+5) // 3·8σ < 2^(σbits+5)
	ctl := maxCentred(t, f, d2.MarshalBinary(), d1.MarshalBinary())
	require.True(t, ctl.Cmp(small) < 0, "control: unsanitised shares are 2×-related (|d'−2d| = %s)", ctl)

	// Through ThresholdDecrypt (sanitised), each query its own session.
	recs := make([]*recordingLedger, 5)
	for i := range recs {
		recs[i] = &recordingLedger{l: c.ledgers[i], shares: map[string][]byte{}}
	}
	digests := map[[32]byte]bool{}
	sessions := make([]string, 2)
	for q, ct := range []*fhe.Ciphertext{ct1, ct2} {
		session := fmt.Sprintf("attack/chosen/%d", q)
		res := make([]*DecryptResult, 5)
		for _, err := range parallel(all(5), func(i int) error {
			r, err := ThresholdDecrypt(context.Background(), c.group(i, t), c.keys[i], f.plan, f.ev, recs[i],
				DecryptRequest{Session: session, Ciphertext: ct, Participants: c.members, PublicKey: c.kms[i].Public})
			res[i] = r
			return err
		}) {
			require.NoError(t, err)
		}
		sessions[q] = res[0].Session
		// the ciphertext whose shares were given is not the chosen one:
		// recompute it from the coin and compare c1
		san, err := Sanitise(f.p, c.kms[0].Public, ct, res[0].Coin.Seed)
		require.NoError(t, err)
		require.Equal(t, res[0].ShareDigest, ShareDigest(san))
		require.NotEqual(t, ShareDigest(ct), res[0].ShareDigest)
		constant := 0
		for _, x := range san.Lattigo().Value[1].Coeffs[0] {
			if x == k*uint64(q+1) {
				constant++
			}
		}
		require.Less(t, constant, 4, "decrypted c1 keeps the chosen constant in %d of %d coefficients", constant, f.p.N())
		digests[res[0].ShareDigest] = true
		require.Len(t, res[0].Coin.Contributors, 3) // the t lowest (sanitise.go, "Retries")
	}
	require.Len(t, digests, 2)
	for i := range recs {
		a, b := recs[i].shares[sessions[1]], recs[i].shares[sessions[0]]
		require.NotNil(t, a)
		require.NotNil(t, b)
		m := maxCentred(t, f, a, b)
		// uniform mod Q_ℓ: the largest of N centred coefficients is ≈ Q_ℓ/2;
		// require more than Q_ℓ/8, astronomically far from 2^(σbits+5)
		qℓ := f.p.RLWE().RingQ().AtLevel(f.plan.Level).Modulus()
		require.True(t, m.Cmp(new(big.Int).Rsh(qℓ, 3)) > 0, "member %d: sanitised shares still 2×-related (|d'−2d| = %s)", i+1, m)
	}
}
