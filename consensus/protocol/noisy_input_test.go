package protocol

import (
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/multiparty"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// noisyInput returns an encryption of vals whose c0 carries, on top of the
// honest noise, ±2^bits in every coefficient (sign pattern by seed): an input
// at the noise bound an accepted proof allows (zkpok.AcceptedNoiseBits).
func noisyInput(t *testing.T, p *fhe.Params, pk *fhe.PublicKey, vals []int64, bits float64, seed int) *fhe.Ciphertext {
	t.Helper()
	ct, err := fhe.NewEncryptor(pk).EncryptInts(vals)
	require.NoError(t, err)
	c := ct.Lattigo().CopyNew()
	rq := p.RLWE().RingQ().AtLevel(c.Level())
	e := rq.NewPoly()
	mag := int64(math.Exp2(bits))
	for k := 0; k < p.N(); k++ {
		v := mag
		if (k*seed)%3 == 0 {
			v = -v
		}
		for i, q := range p.Q()[:c.Level()+1] {
			x := v % int64(q)
			if x < 0 {
				x += int64(q)
			}
			e.Coeffs[i][k] = uint64(x)
		}
	}
	rq.NTT(e, e)
	rq.Add(c.Value[0], e, c.Value[0])
	out, err := fhe.WrapCiphertext(p, c)
	require.NoError(t, err)
	return out
}

// centredCoeffs returns the coefficients of a (NTT domain, level of rq)
// centred mod Q_ℓ as float64.
func centredCoeffs(rq *ring.Ring, a ring.Poly) []float64 {
	d := rq.NewPoly()
	rq.INTT(a, d)
	return centredFloats(rq, d)
}

// centredFloats is centredCoeffs for a polynomial already in the
// coefficient domain.
func centredFloats(rq *ring.Ring, d ring.Poly) []float64 {
	bi := make([]*big.Int, rq.N())
	for i := range bi {
		bi[i] = new(big.Int)
	}
	rq.PolyToBigintCentered(d, 1, bi)
	out := make([]float64, len(bi))
	for i, x := range bi {
		out[i], _ = new(big.Float).SetInt(x).Float64()
	}
	return out
}

// phaseNoiseBits is log2 ‖c0 + c1·s − Δ_pt‖∞ for ct against the expected
// slots (test-only secret key).
func phaseNoiseBits(t *testing.T, p *fhe.Params, sk *fhe.SecretKey, ct *fhe.Ciphertext, want []uint64) float64 {
	t.Helper()
	c := ct.Lattigo()
	phase := rlwe.NewDecryptor(p.RLWE(), sk.Lattigo()).DecryptNew(c)
	pt := bgv.NewPlaintext(p.BGV(), c.Level())
	pt.Scale = c.Scale
	require.NoError(t, bgv.NewEncoder(p.BGV()).Encode(want, pt))
	rq := p.RLWE().RingQ().AtLevel(c.Level())
	rq.Sub(phase.Value, pt.Value, phase.Value)
	mx := 1.0
	for _, x := range centredCoeffs(rq, phase.Value) {
		mx = math.Max(mx, math.Abs(x))
	}
	return math.Log2(mx)
}

// shamirKeys shares sk t-of-n directly (a stand-in for the DKG's
// threshold keys, whose collective secret a test cannot read).
func shamirKeys(t *testing.T, p *fhe.Params, sk *fhe.SecretKey, n, th int) []*ThresholdKey {
	t.Helper()
	thr := multiparty.NewThresholdizer(p.RLWE())
	poly, err := thr.GenShamirPolynomial(th, sk.Lattigo())
	require.NoError(t, err)
	out := make([]*ThresholdKey, n)
	for i := range out {
		share := thr.AllocateThresholdSecretShare()
		thr.GenShamirSecretShare(multiparty.ShamirPublicPoint(i+1), poly, &share)
		out[i] = &ThresholdKey{Params: p, ID: transport.MemberID(i + 1), N: n, T: th, Threshold: th, Share: share}
	}
	return out
}

// TestAttackNoisyInputIdentity: attack "noisy-input key probe". A user
// uploads an input whose noise sits at the bound an accepted proof allows
// (2^AcceptedNoiseBits for a 16-member committee: 2^41.0 on BGVN13 for the
// evaluated 2·ct of an input proof with monomial challenges, every
// member's public-key share error at the bound its proof admits) to the
// identity policy, hoping the verdict's threshold decryption exposes the
// phase noise. The committee never evaluates such an input before its entry
// refresh (consensus, docs/committee.md "Entry refresh"); this test checks
// the second line behind it. After the committee's slot-0 mask (a plaintext
// product and a rescale) the noise is still ≈2^35, above the B_ct = 2^16
// the flooding is sized for if the committee only dropped limbs;
// PrepareForDecryption's modulus switch divides it further by the dropped
// prime, to the floor. The 3-of-5 decryption is right, and the combined
// decryption error Δ·ν + ΣΔλ_j e_j has the same first two moments for two
// different crafted noises.
func TestAttackNoisyInputIdentity(t *testing.T) {
	p := fhe.MustParams(fhe.BGVN13)
	keys := fhe.GenKeys(p, nil)
	ev, err := fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: keys.Relin})
	require.NoError(t, err)
	plan, err := PlanNoise(p, 5, 3, 0)
	require.NoError(t, err)
	accepted, err := zkpok.AcceptedNoiseBits(p, noise.MaxMembers)
	require.NoError(t, err)
	tks := shamirKeys(t, p, keys.Secret, 5, 3)
	set := []transport.MemberID{1, 2, 4}
	lag, err := IntegerLagrange(5, set)
	require.NoError(t, err)
	rq := p.RLWE().RingQ().AtLevel(plan.Level)
	want := make([]uint64, p.Slots())
	want[0] = 42

	moments := make([][2]float64, 0, 2)
	for _, seed := range []int{1, 2} {
		in := noisyInput(t, p, keys.Public, []int64{42, 7, 9}, math.Floor(accepted*10)/10, seed)
		masked, err := ev.MulInts(in, []int64{1}) // the committee's slot-0 mask
		require.NoError(t, err)
		dropped, err := ev.DropLevels(masked, masked.Level()-plan.Level)
		require.NoError(t, err)
		low, err := PrepareForDecryption(ev, plan, masked)
		require.NoError(t, err)
		require.Equal(t, plan.Level, low.Level())
		nIn, nDrop, nLow := phaseNoiseBits(t, p, keys.Secret, in, []uint64{42, 7, 9}), phaseNoiseBits(t, p, keys.Secret, dropped, want), phaseNoiseBits(t, p, keys.Secret, low, want)
		t.Logf("seed %d: input noise 2^%.1f (accepted ≤ 2^%.1f); masked and dropped 2^%.1f; modulus-switched 2^%.1f (B_ct 2^%d, σ 2^%.0f)",
			seed, nIn, accepted, nDrop, nLow, noise.CiphertextBits, plan.SigmaBits)
		// Without the modulus switch the accepted bound (2^41.0) is NOT
		// hidden (2^35.4 > B_ct): no plan ever sees an upload before its
		// entry refresh (consensus, docs/committee.md "Entry refresh"); the
		// switch is the second line that still hides it.
		require.Greater(t, nDrop, float64(noise.CiphertextBits), "the switch is needed for an input at the accepted bound")
		require.Less(t, nLow, nDrop-4, "the modulus switch divides it by the dropped prime")
		require.LessOrEqual(t, nLow, float64(noise.CiphertextBits))

		shares := map[transport.MemberID]DecryptionShare{}
		for _, id := range []transport.MemberID{1, 2, 4, 5} {
			s, err := GenDecryptionShare(tks[id-1], plan, low)
			require.NoError(t, err)
			shares[id] = s
		}
		res, err := RobustCombine(p, 5, 3, low, shares, nil)
		require.NoError(t, err)
		require.True(t, res.Checked)
		require.Equal(t, want, res.Values)

		// E = Δ·c0 + Σ Δλ_j·d_j − Δ·pt = Δ·ν + Σ Δλ_j·e_j over {1, 2, 4}.
		acc := rq.NewPoly()
		rq.MulScalarBigint(low.Lattigo().Value[0], Factorial(5), acc)
		for _, j := range set {
			rq.MulScalarBigintThenAdd(shares[j].Value, lag[j], acc)
		}
		pt := bgv.NewPlaintext(p.BGV(), plan.Level)
		pt.Scale = low.Lattigo().Scale
		require.NoError(t, bgv.NewEncoder(p.BGV()).Encode(want, pt))
		rq.MulScalarBigint(pt.Value, Factorial(5), pt.Value)
		rq.Sub(acc, pt.Value, acc)
		var mean, sq float64
		for _, x := range centredCoeffs(rq, acc) {
			mean += x
			sq += x * x
		}
		mean /= float64(p.N())
		moments = append(moments, [2]float64{mean, math.Sqrt(sq/float64(p.N()) - mean*mean)})
	}
	a, b := moments[0], moments[1]
	t.Logf("combined error: mean %.3g / %.3g, std 2^%.2f / 2^%.2f", a[0], b[0], math.Log2(a[1]), math.Log2(b[1]))
	require.Less(t, math.Abs(a[0]-b[0]), 8*a[1]/math.Sqrt(float64(p.N())), "means agree")
	require.InDelta(t, 1, a[1]/b[1], 0.1, "standard deviations agree")
}
