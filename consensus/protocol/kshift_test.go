package protocol

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/multiparty"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/fhe/noise"
)

// kShift is a corrupt active old member in a re-encryption: it adds the
// constant K to the h1 of its public-key-switch share. The share is
// committed and revealed as it is: there is no honest share it needs to see.
func kShift(p *fhe.Params, level int, k uint64) roundHook {
	return func(stage hookStage, session string, typ transport.Type, own []byte, _ func() map[transport.MemberID][]byte) []byte {
		if stage != hookSend || typ != transport.TypeReencryptShare {
			return own
		}
		sh := multiparty.PublicKeySwitchShare{}
		if err := sh.UnmarshalBinary(own); err != nil {
			panic(err)
		}
		rq := p.RLWE().RingQ().AtLevel(level)
		for i, s := range rq.SubRings[:level+1] {
			for w := range sh.Value[1].Coeffs[i] {
				sh.Value[1].Coeffs[i][w] = (sh.Value[1].Coeffs[i][w] + k%s.Modulus) % s.Modulus
			}
		}
		b, err := sh.MarshalBinary()
		if err != nil {
			panic(err)
		}
		return b
	}
}

// phaseOver returns round(e/k) coefficient-wise for the noise e of ct
// under s: Lattigo's BGV phase is c0 + c1·s = t⁻¹·m + e (mod Q_ℓ), so
// t·phase, centred, is m + t·e with |m| < t/2 and round(t·phase/(t·k)) =
// round(e/k). It is what a holder of the phase noise of ct reads when the
// noise contains k·s.
func phaseOver(p *fhe.Params, ct *fhe.Ciphertext, s *rlwe.SecretKey, k uint64) []int64 {
	c := ct.Lattigo()
	level := c.Level()
	rq := p.RLWE().RingQ().AtLevel(level)
	ph := rq.NewPoly()
	rq.MulCoeffsMontgomery(c.Value[1], s.Value.Q, ph)
	rq.Add(ph, c.Value[0], ph)
	rq.INTT(ph, ph)
	rq.MulScalar(ph, p.PlaintextModulus(), ph)
	coeffs := make([]*big.Int, p.N())
	for i := range coeffs {
		coeffs[i] = new(big.Int)
	}
	rq.PolyToBigintCentered(ph, 1, coeffs)
	kb := new(big.Int).Mul(new(big.Int).SetUint64(k), new(big.Int).SetUint64(p.PlaintextModulus()))
	half := new(big.Int).Rsh(kb, 1)
	out := make([]int64, len(coeffs))
	for i, v := range coeffs {
		r := new(big.Int).Add(v, half)
		out[i] = new(big.Int).Div(r, kb).Int64() // floor((v + k/2)/k)
	}
	return out
}

// secretCoeffs is s in the coefficient domain, centred, first prime.
func secretCoeffs(p *fhe.Params, s *rlwe.SecretKey) []int64 {
	rq := p.RLWE().RingQ()
	x := rq.NewPoly()
	rq.IMForm(s.Value.Q, x)
	rq.INTT(x, x)
	q := rq.SubRings[0].Modulus
	out := make([]int64, rq.N())
	for i, c := range x.Coeffs[0] {
		out[i] = int64(c)
		if c > q/2 {
			out[i] = int64(c) - int64(q)
		}
	}
	return out
}

// TestReencryptKShift is the rotation attack on the re-encryption, with the
// real Reencrypt (committed share round) over the in-memory transport: an
// old 2-of-3 committee re-encrypts a stored input to a new 2-of-3
// committee's collective key; active old member 1 adds K = 2^64 to its h1.
//
// The commitments do not help (the shift needs no honest share). Every
// receiver computes the same ciphertext, so the new members' "t old
// members agree" quorum accepts it, and its phase under the new secret s′
// is K·s′ + (noise ≈ t·2^46): the adoption refresh under the new key shows
// every new member that phase up to its own flooding (2^noise.RefreshFlooding of
// the rotation's bounds, ≪ K), and round(view/K) = s′. The control run
// without the shift reads nothing.
//
// No rotation runs PCKS any more: local.Rotate and `fhegate committee
// rotate switch` run the cross-committee key switch, where the same shift
// reads nothing (TestCrossKeySwitch; over TLS through the CLI's code path,
// consensus TestJointRotationKShiftOverTLS). The test keeps what the
// attack achieves on PCKS as the reason (docs/committee.md, "Active
// security").
func TestReencryptKShift(t *testing.T) {
	t.Parallel()
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	old := newCommittee(t, p, 3, 2, nil)
	next := newCommitteeOn(t, p, 3, 2, 2, nil, nil)
	sNew := shamirSecret(t, next, []int{0, 2})
	want := secretCoeffs(p, sNew)
	plan, err := PlanNoise(p, 3, 2, 0)
	require.NoError(t, err)
	var k = uint64(1) << 63 // 2^63: K must fit a uint64 here; the attack as first described used 2^64
	r := rand.New(rand.NewPCG(5, 6))
	in := mustEnc(t, fhe.NewEncryptor(old.kms[0].Public), fhetest.RandInts(r, p.Slots(), 1000))
	active := []transport.MemberID{1, 2}

	run := func(session string, hook roundHook) []*fhe.Ciphertext {
		old.hooks = map[int]roundHook{0: hook}
		defer func() { old.hooks = nil }()
		outs := make([]*fhe.Ciphertext, old.n)
		for i, err := range parallel(all(old.n), func(i int) error {
			o, err := Reencrypt(context.Background(), old.group(i, t), old.keys[i], plan, old.ledgers[i], ReencryptRequest{
				Session: session, Ciphertext: in, Target: next.kms[0].Public, Active: active, Receivers: old.members})
			outs[i] = o
			return err
		}) {
			require.NoError(t, err, "old member %d", i+1)
		}
		h0, err := outs[0].Handle()
		require.NoError(t, err)
		for _, o := range outs[1:] {
			h, err := o.Handle()
			require.NoError(t, err)
			require.Equal(t, h0, h, "every old member delivers the same bytes: the adoption quorum accepts")
		}
		return outs
	}
	// The adoption refresh floods for (t+1)·B_ct of hidden noise.
	refreshSigma := noise.RefreshFlooding(math.Log2(3 * math.Exp2(noise.CiphertextBits)))
	require.Greater(t, 64.0, refreshSigma+math.Log2(noise.FloodTailSigmas)+2, "K·s′ stands out of the adoption refresh's flooding")

	t.Run("control: no shift, nothing read", func(t *testing.T) {
		outs := run("reenc/kshift/control", nil)
		got := phaseOver(p, outs[0], sNew, k)
		require.Equal(t, make([]int64, p.N()), got)
	})
	t.Run("shifted: the phase under s′ is K·s′ + noise", func(t *testing.T) {
		// a second ciphertext: the ledger pinned the first one's share
		in = mustEnc(t, fhe.NewEncryptor(old.kms[0].Public), fhetest.RandInts(r, p.Slots(), 1000))
		outs := run("reenc/kshift/attack", kShift(p, in.Level(), k))
		got := phaseOver(p, outs[2], sNew, k)
		require.Equal(t, want, got, "round(phase/K) is the new collective secret")
	})
}
