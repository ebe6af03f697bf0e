package zkpok

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"

	"github.com/fhegate/fhegate/fhe"
)

// craft builds a top-level ciphertext from a chosen witness, exactly as
// EncryptInts would from its own: ĉ = pk·u + (e0, e1) + (P·[t^{-1}m]_Q, 0)
// over QP, ct = ModDown_P(ĉ), with m the lifted plaintext of vals plus
// t·carry (the same slots, a larger message polynomial).
func craft(t *testing.T, k *Key, vals []int64, u, e0, e1, carry []int64) (*fhe.Ciphertext, [nComp][]int64, [2][][]uint64, *rlwe.Plaintext) {
	t.Helper()
	pt, err := k.encodeInts(vals)
	require.NoError(t, err)
	var w [nComp][]int64
	w[compU], w[compE0], w[compE1] = u, e0, e1
	w[compM], err = k.liftPlaintext(pt)
	require.NoError(t, err)
	for i, c := range carry {
		w[compM][i] += int64(k.t) * c
	}
	ct, rho := k.encryptQP(w, pt.MetaData)
	out, err := fhe.WrapCiphertext(k.PK.Params(), ct)
	require.NoError(t, err)
	return out, w, rho, pt
}

// proveShrunk is a cheating prover (proveCheat without an offset): masks
// from [−(Z_i − ‖w_i‖∞), Z_i − ‖w_i‖∞] for u and m (no zero knowledge), so
// every response is within the verifier's bound whenever ‖w_i‖∞ ≤ Z_i
// (‖X^e·w‖∞ = ‖w‖∞), and restarts until V = W − c·e keeps W's high parts
// (likely after a few attempts while ‖e‖∞ ≤ CraftableE = D/(4·N·r)). With a
// larger witness it fails.
func proveShrunk(k *Key, ct *fhe.Ciphertext, w [nComp][]int64, rho [2][][]uint64, h fhe.Handle, ctx Context, r *rand.Rand) ([]byte, error) {
	proof, _, err := proveCheat(k, ct.Lattigo(), rho, h, ctx, w, cheatRadius(k.PP, w), nil, 20, r)
	return proof, err
}

// noiseBits is log2 ‖c0 + c1·s − t^{-1}·m‖∞ (test-only secret key).
func noiseBits(t *testing.T, p *fhe.Params, sk *fhe.SecretKey, ct *fhe.Ciphertext, pt *rlwe.Plaintext) float64 {
	t.Helper()
	phase := rlwe.NewDecryptor(p.RLWE(), sk.Lattigo()).DecryptNew(ct.Lattigo())
	rq := p.RLWE().RingQ().AtLevel(ct.Level())
	d := rq.NewPoly()
	want := pt.Value
	if !pt.IsNTT {
		want = rq.NewPoly()
		rq.NTT(pt.Value, want)
	}
	rq.Sub(phase.Value, want, d)
	rq.INTT(d, d)
	coeffs := make([]*big.Int, p.N())
	for i := range coeffs {
		coeffs[i] = new(big.Int)
	}
	rq.PolyToBigintCentered(d, 1, coeffs)
	mx := 0.0
	for _, c := range coeffs {
		f, _ := new(big.Float).SetInt(c).Float64()
		mx = math.Max(mx, math.Abs(f))
	}
	return math.Log2(math.Max(mx, 1))
}

func signs(r *rand.Rand, n int, mag int64) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = mag
		if r.IntN(2) == 0 {
			v[i] = -mag
		}
	}
	return v
}

// TestAcceptedNoiseBound checks AcceptedNoiseBits against the verifier.
// Attack: "oversized witness" — a user who holds its encryption randomness
// inflates u, e and the message polynomial (u at ±⌊Z_u/2⌋, e at
// ±CraftableE, a witness a cheating prover can always prove; the message as
// m + t·k, which decrypts to the same slots) to hand the committee an input
// noisier than an honest one. The proof verifies; the division by P removes
// what u and e add, the message carry k stays, and the measured noise of
// the evaluated 2·ct lies above the honest one and below
// CraftableNoiseBits ≤ AcceptedNoiseBits. A witness clearly beyond (e0 at
// ±D/16) cannot be proven: V leaves W's D-intervals.
func TestAcceptedNoiseBound(t *testing.T) {
	p := fhe.MustParams(fhe.BGVN13)
	keys := fhe.GenKeys(p, nil)
	for _, k := range levelKeys(t, keys.Public) { // the top and the upload level
		id := p.Preset.ID
		pp := k.PP
		r := rand.New(rand.NewPCG(uint64(id), 11))
		vals := []int64{1, 2, 3, 65536}
		ctx := Context{Owner: [20]byte{0xee}}
		noise := func(ct *fhe.Ciphertext) float64 {
			ev, err := ct.Evaluable()
			require.NoError(t, err)
			return evaluableNoiseBits(t, p, keys.Secret, ev, vals)
		}

		// m + t·k stays within ⌊Z_m/2⌋: |m| < t, so |k| ≤ ⌊Z_m/2⌋/t − 1.
		carry := signs(r, pp.N, pp.Z[compM]/2/int64(k.t)-1)
		u, e0, e1 := signs(r, pp.N, pp.Z[compU]/2), signs(r, pp.N, pp.CraftableE()), signs(r, pp.N, pp.CraftableE())
		ct, w, rho, _ := craft(t, k, vals, u, e0, e1, carry)
		require.LessOrEqual(t, infNorm(w[compM]), pp.Z[compM]/2)
		h, err := ct.Handle()
		require.NoError(t, err)
		proof, err := proveShrunk(k, ct, w, rho, h, ctx, r)
		require.NoError(t, err)
		require.NoError(t, k.Verify(ct, h, ctx, proof), "an oversized witness within Z/2 is accepted")
		got := noise(ct)
		hct, _, err := k.EncryptInts(vals, ctx)
		require.NoError(t, err)
		honest := noise(hct)
		t.Logf("%s, level %d: 2·ct honest 2^%.1f (bound 2^%.1f), crafted 2^%.1f (craftable ≤ 2^%.1f), accepted ≤ 2^%.1f",
			p.Preset.Name, k.Level(), honest, pp.HonestNoiseBits(1), got, pp.CraftableNoiseBits(1), pp.AcceptedNoiseBits(1))
		require.LessOrEqual(t, honest, pp.HonestNoiseBits(1))
		require.Greater(t, got, honest+5, "the crafted input is noisier than an honest one")
		require.LessOrEqual(t, got, pp.CraftableNoiseBits(1))
		require.LessOrEqual(t, pp.CraftableNoiseBits(1), pp.AcceptedNoiseBits(1))
		dec, err := fhe.NewDecryptor(keys.Secret).DecryptInts(ct)
		require.NoError(t, err)
		require.Equal(t, []int64{1, 2, 3, -1}, dec[:4])

		// Without the carry, the oversized u and e vanish in the division by
		// P: the input is as quiet as an honest one.
		ct3, _, _, _ := craft(t, k, vals, u, e0, e1, nil)
		quiet := noise(ct3)
		t.Logf("%s: u at Z/2 and e at CraftableE, no carry: 2^%.1f", p.Preset.Name, quiet)
		require.LessOrEqual(t, quiet, pp.HonestNoiseBits(1)+1)

		// Clearly beyond: e0 at ±D/16 (‖X^e·e0‖∞ = D/16 whatever the
		// challenge) moves each of the N·r coefficients of V0 out of W0's
		// D-interval with probability 1/16: no attempt keeps them all.
		ct2, w2, rho2, _ := craft(t, k, vals, u, signs(r, pp.N, int64(pp.D/16)), e1, nil)
		h2, err := ct2.Handle()
		require.NoError(t, err)
		_, err = proveShrunk(k, ct2, w2, rho2, h2, ctx, r)
		require.Error(t, err)
		require.Error(t, k.Verify(ct2, h2, ctx, proof), "the other input's proof does not transfer")
	}
}

// TestAcceptedNoiseBits pins the bound per preset and committee size (the
// numbers docs/committee.md quotes), every member's public-key share error
// at the bound its shortness proof admits; with an honest DKG's key
// (members·βe) BGVN13's is 2^33.0 for one member and 2^33.09 for 16.
func TestAcceptedNoiseBits(t *testing.T) {
	for _, tc := range []struct {
		id      fhe.PresetID
		members int
		lo, hi  float64
	}{
		{fhe.BGVN13, 1, 36.9, 37.5},  // one member: its own share, 2^36 at most
		{fhe.BGVN13, 16, 40.9, 41.5}, // 16 shares at their proven bound 2^36: u′·e_pk/P
		{fhe.BGVN14, 16, 34.9, 35.5}, // P = 2^80 divides the shares' 2^38 away
	} {
		b, err := AcceptedNoiseBits(fhe.MustParams(tc.id), tc.members)
		require.NoError(t, err)
		pp, err := ParamsFor(fhe.MustParams(tc.id))
		require.NoError(t, err)
		t.Logf("%v members %d: honest 2^%.1f, craftable 2^%.1f, accepted 2^%.1f", tc.id, tc.members, pp.HonestNoiseBits(tc.members), pp.CraftableNoiseBits(tc.members), b)
		require.GreaterOrEqual(t, b, tc.lo)
		require.Less(t, b, tc.hi)
	}
	pp, err := ParamsFor(fhe.MustParams(fhe.BGVN13))
	require.NoError(t, err)
	// Version 4's extracted error N·D (D = q_0 ≈ 2^44) adds 2^29.0 to the
	// carry's 2^33 with 16 members: 2^33.09 (version 3: 2^33.00).
	require.InDelta(t, 33.09, pp.AcceptedNoiseBitsKey(16, math.Log2(16*BetaE)), 0.02, "an honest DKG's key")
	_, err = AcceptedNoiseBits(fhe.MustParams(fhe.BGVN13), 0)
	require.Error(t, err)
	_, err = AcceptedNoiseBits(fhe.MustParams(fhe.CKKSN13), 3)
	require.Error(t, err)
}
