package zkpok

import (
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// insecureBGVN10Q18 is the slot-grinding forgery's test ring: N = 2^10 and
// an 18-bit prime in Q (Q = q0·q1 with q0 ≈ 2^42, q1 ≈ 2^18, P ≈ 2^45), so a
// forgery off the relation in one NTT slot of q1 costs ≈ 2^18 tries.
const insecureBGVN10Q18 fhe.PresetID = 0xa4

func init() {
	if err := fhe.RegisterTestPreset(insecureBGVN10Q18, "InsecureBGVN10Q18", fhe.SchemeBGV, 1, 10, []int{42, 18}, []int{45}, 0); err != nil {
		panic(err)
	}
}

// honestWitness draws an honest witness (u ternary, e_i in [−βe, βe],
// m the lifted plaintext of vals) and returns it with the plaintext.
func honestWitness(t *testing.T, k *Key, vals []int64, r *rand.Rand) ([nComp][]int64, *rlwe.Plaintext) {
	t.Helper()
	pt, err := k.encodeInts(vals)
	require.NoError(t, err)
	var w [nComp][]int64
	w[compM], err = k.liftPlaintext(pt)
	require.NoError(t, err)
	for i, b := range []int64{BetaU, BetaE, BetaE} {
		w[i] = make([]int64, k.PP.N)
		for j := range w[i] {
			w[i][j] = r.Int64N(2*b+1) - b
		}
	}
	return w, pt
}

// cheatMasks draws one repetition's masks for u and m uniformly in
// [−rad_i, rad_i] and returns them with their commitment W = A′·y.
func cheatMasks(k *Key, rad [nComp]int64, r *rand.Rand) ([nComp][]int64, [2]ring.Poly) {
	var y [nComp][]int64
	for _, i := range respComps {
		y[i] = make([]int64, k.PP.N)
		for l := range y[i] {
			y[i][l] = r.Int64N(2*rad[i]+1) - rad[i]
		}
	}
	w := [2]ring.Poly{k.rqp.NewPoly(), k.rqp.NewPoly()}
	k.apply(y, w[0], w[1])
	return y, w
}

// proveCheat is a cheating prover that needs no zero knowledge: its masks
// y_u, y_m are uniform in [−rad_i, rad_i] (rad_i = Z_i − ‖w_i‖∞ keeps every
// response inside the verifier's box whatever the challenge), it commits to
// the high parts of W_j = A′·y_j + off_j (off may be nil; coefficient
// domain), answers z_j = y_j + c_j·w and restarts, up to `attempts` times,
// until V_j = A′·z_j − c_j·ĉ — computed as the verifier does, from ct and
// ρ — has the high parts of W_j in every repetition and every response is
// in its box. It returns the proof and the number of attempts.
func proveCheat(k *Key, ct *rlwe.Ciphertext, rho [2][][]uint64, h fhe.Handle, ctx Context, w [nComp][]int64, rad [nComp]int64, off func(j int) [2]ring.Poly, attempts int, r *rand.Rand) ([]byte, int, error) {
	pp, rqp := k.PP, k.rqp
	hat := k.rebuild(ct, rho)
	ys := make([][nComp][]int64, pp.Reps)
	ws := make([][2]ring.Poly, pp.Reps)
	for attempt := 1; attempt <= attempts; attempt++ {
		for j := range ys {
			ys[j], ws[j] = cheatMasks(k, rad, r)
			if off != nil {
				o := off(j)
				rqp.Add(ws[j][0], o[0], ws[j][0])
				rqp.Add(ws[j][1], o[1], ws[j][1])
			}
			k.highParts(ws[j][0])
			k.highParts(ws[j][1])
		}
		hh := k.transcript(ctx, h, rho, ws)
		es := Challenges(hh, pp.N, pp.Reps)
		pr, ok := &Proof{H: hh, Rho: rho, Z: make([][nComp][]int64, pp.Reps)}, true
		for j, e := range es {
			for _, i := range respComps {
				z := mulMonomial(e, w[i])
				for l := range z {
					z[l] += ys[j][i][l]
					ok = ok && z[l] <= pp.Z[i] && z[l] >= -pp.Z[i]
				}
				pr.Z[j][i] = z
			}
			if !ok {
				break
			}
			v0, v1 := k.residual(pr.Z[j], e, hat)
			k.highParts(v0)
			k.highParts(v1)
			ok = sameHigh(k, v0, ws[j][0]) && sameHigh(k, v1, ws[j][1])
			if !ok {
				break
			}
		}
		if ok {
			return pp.Marshal(pr), attempt, nil
		}
	}
	return nil, attempts, ErrInvalid
}

// sameHigh reports whether two high-part polynomials (highParts) agree on
// every row but D's.
func sameHigh(k *Key, a, b ring.Poly) bool {
	for i := range a.Coeffs {
		if i != k.dRow && !slices.Equal(a.Coeffs[i], b.Coeffs[i]) {
			return false
		}
	}
	return true
}

// cheatRadius is Z_i − ‖w_i‖∞ for u and m (the honest B_i where that is
// negative: the cheater then fails like the honest prover).
func cheatRadius(pp *Params, w [nComp][]int64) [nComp]int64 {
	var rad [nComp]int64
	for _, i := range respComps {
		rad[i] = pp.Z[i] - infNorm(w[i])
		if rad[i] < 0 {
			rad[i] = int64(1)<<pp.LogB[i] - 1
		}
	}
	return rad
}

func wrap(t *testing.T, k *Key, ct *rlwe.Ciphertext) (*fhe.Ciphertext, fhe.Handle) {
	t.Helper()
	out, err := fhe.WrapCiphertext(k.PK.Params(), ct)
	require.NoError(t, err)
	h, err := out.Handle()
	require.NoError(t, err)
	return out, h
}

// wrongSlots counts the slots of ct that do not decrypt to vals (zero
// beyond len(vals)), reduced mod t.
func wrongSlots(t *testing.T, sk *fhe.SecretKey, ct *fhe.Ciphertext, vals []int64) int {
	t.Helper()
	got, err := fhe.NewDecryptor(sk).DecryptUints(ct)
	require.NoError(t, err)
	tm := int64(ct.Params().PlaintextModulus())
	wrong := 0
	for i, g := range got {
		var v int64
		if i < len(vals) {
			v = ((vals[i] % tm) + tm) % tm
		}
		if int64(g) != v {
			wrong++
		}
	}
	return wrong
}

// ringInverseForgery builds an input whose ciphertext is off the relation
// in every coefficient by g = (1−X)^{-1} = 2^{-1}·(1 + X + … + X^{N−1}) mod
// QP (in R_QP, (1−X)(1 + … + X^{N−1}) = 1 − X^N = 2), added to ĉ0: every
// coefficient of ĉ0 moves by ≈ QP/2, so ct = ModDown_P(ĉ) moves by ≈ Q/2
// and decrypts to garbage. It still answers every challenge c: writing
// c = c(1) + (1−X)·q_c (q_c ∈ Z[X], q_i = −Σ_{j>i} c_j, |q_i| ≤ ‖c‖₁),
// c·g = c(1)·g + q_c, and (c(1) − v)·g = ((c(1) − v)/2)·(1 + … + X^{N−1})
// is short whenever c(1) ≡ v (mod 2). The one-repetition protocol's
// challenges had exactly κ coefficients ±1, so c(1) ≡ κ (mod 2) always; the
// monomial challenges ±X^i have c(1) = ±1, always odd, so c·g = g + s_c
// with ‖s_c‖∞ ≤ 2 for every challenge. With W = A′·y − g (v = 1) in every
// repetition and the honest responses z = y + c·w, V = A′·z − c·ĉ =
// W − c·e − s_c: short away from W, so it has W's high parts (up to the
// rounding's restarts) whatever the challenge — no challenge set over
// Z[X]/(X^N+1) whose members all have c(1) of one parity can refuse it.
// What stops it is the doubling: 2·ĉ0 gains 2g = 1 + X + … + X^{N−1}, one
// unit of e0 noise per coefficient.
func ringInverseForgery(t *testing.T, k *Key, vals []int64, ctx Context, r *rand.Rand) (*fhe.Ciphertext, fhe.Handle, []byte) {
	t.Helper()
	rqp := k.rqp
	w, pt := honestWitness(t, k, vals, r)
	hat := k.hatQP(w)
	g := rqp.NewPoly()
	for i, s := range rqp.SubRings {
		half := (s.Modulus + 1) / 2
		for j := range g.Coeffs[i] {
			g.Coeffs[i][j] = half
		}
	}
	rqp.Add(hat[0], g, hat[0])
	raw, rho := k.finish(hat, pt.MetaData)
	ct, h := wrap(t, k, raw)
	negG := rqp.NewPoly()
	rqp.Neg(g, negG)
	off := func(int) [2]ring.Poly { return [2]ring.Poly{negG, rqp.NewPoly()} }
	proof, _, err := proveCheat(k, raw, rho, h, ctx, w, cheatRadius(k.PP, w), off, 20, r)
	require.NoError(t, err, "ring-inverse forgery")
	return ct, h, proof
}

// TestAttackRingInverse — the ring-inverse forgery (ringInverseForgery):
// an input whose uploaded ciphertext decrypts to garbage in every slot
// (noise ≈ Q/2). It defeated the one-repetition protocol on the first try;
// against the monomial challenges it is still accepted — no proof over
// Z[X]/(X^N+1) can refuse it — and harmless: the ciphertext the committee
// evaluates, 2·ct, decrypts to the values with noise within
// AcceptedNoiseBits (and within the honest bound plus one bit).
func TestAttackRingInverse(t *testing.T) {
	for _, id := range []fhe.PresetID{fhetest.InsecureBGVN10, fhe.BGVN13} {
		p := fhe.MustParams(id)
		keys := fhe.GenKeys(p, nil)
		for _, k := range levelKeys(t, keys.Public) { // the top and the upload level
			r := rand.New(rand.NewPCG(uint64(id), 24))
			vals := []int64{1, 0, 1, 1}
			ctx := Context{Owner: [20]byte{0xf0}}
			ct, h, proof := ringInverseForgery(t, k, vals, ctx, r)
			require.Equal(t, k.Level(), ct.Level())
			wrong := wrongSlots(t, keys.Secret, ct, vals)
			require.Greater(t, wrong, p.Slots()*9/10, "the uploaded ciphertext is garbage")
			require.NoError(t, k.Verify(ct, h, ctx, proof), "the forgery passes (it answers every monomial challenge)")
			ev, err := ct.Evaluable()
			require.NoError(t, err)
			evWrong := wrongSlots(t, keys.Secret, ev, vals)
			bits := evaluableNoiseBits(t, p, keys.Secret, ev, vals)
			t.Logf("%s, level %d: upload wrong in %d of %d slots; 2·ct wrong in %d, noise 2^%.1f (honest ≤ 2^%.1f, accepted ≤ 2^%.1f)",
				p.Preset.Name, k.Level(), wrong, p.Slots(), evWrong, bits, k.PP.HonestNoiseBits(1), k.PP.AcceptedNoiseBits(1))
			require.Zero(t, evWrong, "2·ct decrypts to the values")
			require.LessOrEqual(t, bits, k.PP.HonestNoiseBits(1)+1)
			require.LessOrEqual(t, bits, k.PP.AcceptedNoiseBits(1))
		}
	}
}

// levelKeys returns the keys of pk at the top level and at the upload
// level (UploadLevel), which the attacks run against.
func levelKeys(t *testing.T, pk *fhe.PublicKey) []*Key {
	t.Helper()
	top, err := NewKey(pk)
	require.NoError(t, err)
	up, err := NewUploadKey(pk)
	require.NoError(t, err)
	require.Less(t, up.Level(), top.Level())
	return []*Key{top, up}
}

// evaluableNoiseBits is log2 ‖c0 + c1·s − [t^{-1}·m]_Q‖∞ for an evaluable
// (scale 1) ciphertext encrypting vals (test-only secret key).
func evaluableNoiseBits(t *testing.T, p *fhe.Params, sk *fhe.SecretKey, ct *fhe.Ciphertext, vals []int64) float64 {
	t.Helper()
	tm := int64(p.PlaintextModulus())
	v := make([]uint64, p.Slots())
	for i, x := range vals {
		v[i] = uint64(((x % tm) + tm) % tm)
	}
	pt := bgv.NewPlaintext(p.BGV(), ct.Level())
	pt.Scale = ct.Lattigo().Scale
	require.NoError(t, bgv.NewEncoder(p.BGV()).Encode(v, pt))
	return noiseBits(t, p, sk, ct, pt)
}

// TestMonomialInverse checks the lemma the extraction rests on, for every
// difference of two monomial challenges of N = 2^10 and N = 2^13: with
// d = j − i mod 2N ≠ 0 and g = gcd(d, 2N), (1 − X^d)·Σ_{k<N/g} X^{kd} = 2 in
// Z[X]/(X^N+1), so X^i − X^j = X^i·(1 − X^d) is invertible modulo every odd
// prime and 2/(X^i − X^j) = X^{−i}·Σ_{k<N/g} X^{kd} has coefficients in
// {0, ±1} and ‖·‖₁ = N/g ≤ N.
func TestMonomialInverse(t *testing.T) {
	for _, n := range []int{1 << 10, 1 << 13} {
		for d := 1; d < 2*n; d++ {
			g := 1
			for (d/g)%2 == 0 {
				g *= 2
			}
			inv := make([]int64, n)
			for k := 0; k < n/g; k++ {
				if e := (k * d) % (2 * n); e < n {
					inv[e]++
				} else {
					inv[e-n]--
				}
			}
			var l1 int64
			for _, x := range inv {
				if x*x > 1 {
					t.Fatalf("N=%d d=%d: coefficient %d outside {0, ±1}", n, d, x)
				}
				l1 += x * x
			}
			if l1 != int64(n/g) {
				t.Fatalf("N=%d d=%d: ‖·‖₁ = %d, want %d", n, d, l1, n/g)
			}
			// (1 − X^d)·inv = inv − X^d·inv = 2.
			prod := mulMonomial(d, inv)
			for l := range prod {
				want := int64(0)
				if l == 0 {
					want = 2
				}
				if inv[l]-prod[l] != want {
					t.Fatalf("N=%d d=%d: (1 − X^d)·inv has coefficient %d = %d", n, d, l, inv[l]-prod[l])
				}
			}
		}
	}
}

// slotGrind is the slot-grinding forgery: the input is off the relation in
// one NTT slot j of the smallest prime q of Q (δ, zero in every other slot
// and prime, added to ĉ1). A challenge c acts on slot j as the scalar
// c(ζ_j) mod q, so with W_k = A′·y_k − v_k·δ and the honest responses
// z_k = y_k + c_k·w′, A′·z_k − c_k·(ĉ0, ĉ1 + δ) = W_k − c_k·e (whose high
// parts are W_k's, up to the rounding's rare restarts) exactly when
// c_k(ζ_j) ≡ v_k (mod q). With masks fixed, only the last repetition's
// guess v_r moves, through one row (q's) of W_r's second polynomial's high
// parts near the end of the transcript, so the SHA-256 state before it is
// reused and a try costs N multiplications, a hash of two rows, one
// challenge expansion and the checks. Against one repetition of sparse
// ternary challenges a try succeeded with probability ≈ 1/q (about 2^18
// tries here); against r monomial challenges every guess is one of the 2N
// values ±ζ_j^i, right with probability 1/(2N) per repetition:
// (2N)^{−r} ≤ 2^{−128} a try. It returns the forged input, the proof of
// the last try and whether a try succeeded.
func slotGrind(t *testing.T, k *Key, vals []int64, ctx Context, budget int, r *rand.Rand) (*fhe.Ciphertext, fhe.Handle, []byte, bool) {
	t.Helper()
	pp, rqp := k.PP, k.rqp
	row := 0
	for i, s := range rqp.SubRings[:k.nQ] {
		if s.Modulus < rqp.SubRings[row].Modulus {
			row = i
		}
	}
	q, j := rqp.SubRings[row].Modulus, pp.N-1
	w, pt := honestWitness(t, k, vals, r)
	hat := k.hatQP(w)
	delta := rqp.NewPoly()
	delta.Coeffs[row][j] = 1 // δ̂: 1 in slot j of q
	dc := rqp.NewPoly()
	rqp.INTT(delta, dc)
	rqp.Add(hat[1], dc, hat[1])
	raw, rho := k.finish(hat, pt.MetaData)
	ct, h := wrap(t, k, raw)

	// ζ_j: slot j of q evaluates at the j-th entry of NTT(X); a monomial
	// challenge X^e acts on it as pow[e] (e < 2N).
	x := rqp.NewPoly()
	x.Coeffs[row][1] = 1
	rqp.NTT(x, x)
	zeta, pow := x.Coeffs[row][j], make([]uint64, 2*pp.N)
	pow[0] = 1
	for i := 1; i < 2*pp.N; i++ {
		pow[i] = ring.BRed(pow[i-1], zeta, q, rqp.SubRings[row].BRedConstant)
	}

	// δ's coefficient form is zero outside q's row, and q's row is not D's
	// (D is q_0 or a prime of P; q is the smallest of q_1 …): the guess moves
	// only row `row` of the high parts, by −v·(δ·D^{-1}) mod q.
	require.NotEqual(t, k.dRow, row)
	s := rqp.SubRings[row]
	dd := make([]uint64, pp.N)
	for l, x := range dc.Coeffs[row] {
		dd[l] = ring.BRed(x, k.dInv[row], q, s.BRedConstant)
	}
	rad := cheatRadius(pp, w)
	reps := pp.Reps
	ys := make([][nComp][]int64, reps)
	ws := make([][2]ring.Poly, reps)
	guess := make([]uint64, reps)
	for l := range reps {
		ys[l], ws[l] = cheatMasks(k, rad, r)
		k.highParts(ws[l][0])
		k.highParts(ws[l][1])
		guess[l] = pow[r.IntN(2*pp.N)]
		// W_l = A′·y_l − v_l·δ: high parts of row `row` move by −v_l·δ·D^{-1}.
		hr := ws[l][1].Coeffs[row]
		for c := range hr {
			hr[c] = (hr[c] + q - ring.BRed(guess[l], dd[c], q, s.BRedConstant)) % q
		}
	}
	base := slices.Clone(ws[reps-1][1].Coeffs[row]) // the last repetition's row, before its guess
	for c := range base {
		base[c] = (base[c] + ring.BRed(guess[reps-1], dd[c], q, s.BRedConstant)) % q
	}
	x0 := k.transcriptPrefix(ctx, h, rho)
	buf := make([]byte, 8*pp.N)
	for _, wk := range ws[:reps-1] {
		for i := range wk {
			writeRows(x0, buf, wk[i].Coeffs[:k.dRow])
			writeRows(x0, buf, wk[i].Coeffs[k.dRow+1:])
		}
	}
	last := ws[reps-1]
	writeRows(x0, buf, last[0].Coeffs[:k.dRow])
	writeRows(x0, buf, last[0].Coeffs[k.dRow+1:])
	var before, after [][]uint64 // the rows of last[1] hashed before and after `row`
	for i, rw := range last[1].Coeffs {
		switch {
		case i == k.dRow:
		case i < row:
			before = append(before, rw)
		case i > row:
			after = append(after, rw)
		}
	}
	writeRows(x0, buf, before)
	mid, err := x0.(encoding.BinaryMarshaler).MarshalBinary()
	require.NoError(t, err)
	var tail []byte
	for _, rw := range after {
		for _, v := range rw {
			tail = binary.LittleEndian.AppendUint64(tail, v)
		}
	}
	st := sha256.New()
	word := make([]byte, 8*pp.N)
	var hh [32]byte
	var es []int
	found := false
	for try := 1; try <= budget && !found; try++ {
		guess[reps-1] = pow[r.IntN(2*pp.N)]
		for c, v := range base {
			binary.LittleEndian.PutUint64(word[8*c:], (v+q-ring.BRed(guess[reps-1], dd[c], q, s.BRedConstant))%q)
		}
		require.NoError(t, st.(encoding.BinaryUnmarshaler).UnmarshalBinary(mid))
		_, _ = st.Write(word)
		_, _ = st.Write(tail)
		hh = [32]byte(st.Sum(nil))
		es = Challenges(hh, pp.N, reps)
		found = true
		for l, e := range es {
			found = found && pow[e] == guess[l]
		}
	}
	pr := &Proof{H: hh, Rho: rho, Z: make([][nComp][]int64, reps)}
	for l, e := range es {
		for _, i := range respComps {
			pr.Z[l][i] = mulMonomial(e, w[i])
			for c := range pr.Z[l][i] {
				pr.Z[l][i][c] += ys[l][i][c]
			}
		}
	}
	return ct, h, pp.Marshal(pr), found
}

// TestAttackSlotGrinding — the slot-grinding forgery (slotGrind) on a ring
// with an 18-bit prime (N = 2^10): one repetition of sparse ternary
// challenges accepted it after ≈ 2^18 tries (177,586 in the run before the
// monomial challenges); now 2^20 tries (2^14 with -short) find nothing —
// each succeeds with probability (2N)^{−r} = 2^{−132} — and the verifier
// refuses the last try's proof. The forged input decrypts to garbage in
// almost every slot, doubled or not.
func TestAttackSlotGrinding(t *testing.T) {
	p := fhe.MustParams(insecureBGVN10Q18)
	keys := fhe.GenKeys(p, nil)
	k, err := NewKey(keys.Public)
	require.NoError(t, err)
	require.GreaterOrEqual(t, k.PP.SoundnessBits, 128.0)
	r := rand.New(rand.NewPCG(18, 24))
	vals := []int64{1, 0, 1}
	ctx := Context{Owner: [20]byte{0xf1}}
	budget := 1 << 20
	if testing.Short() {
		budget = 1 << 14
	}
	ct, h, proof, found := slotGrind(t, k, vals, ctx, budget, r)
	wrong := wrongSlots(t, keys.Secret, ct, vals)
	ev, err := ct.Evaluable()
	require.NoError(t, err)
	evWrong := wrongSlots(t, keys.Secret, ev, vals)
	t.Logf("q = %d, r = %d: %d tries, no success; forged input wrong in %d (doubled: %d) of %d slots", p.Q()[1], k.PP.Reps, budget, wrong, evWrong, p.Slots())
	require.Greater(t, wrong, p.Slots()*9/10, "the forged ciphertext is garbage")
	require.Greater(t, evWrong, p.Slots()*9/10, "doubling does not repair it")
	require.False(t, found, "a try succeeded")
	require.ErrorIs(t, k.Verify(ct, h, ctx, proof), ErrInvalid)
}

// TestAttackSlotGrindingUploadLevel — the slot grinder against a key at the
// upload level (InsecureBGVN10: Q_3 with 30-bit primes, the smallest one
// targeted): the knowledge error does not depend on Q, 2^14 tries find
// nothing and the verifier refuses the last.
func TestAttackSlotGrindingUploadLevel(t *testing.T) {
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	keys := fhe.GenKeys(p, nil)
	k, err := NewUploadKey(keys.Public)
	require.NoError(t, err)
	require.Less(t, k.Level(), p.MaxLevel())
	require.GreaterOrEqual(t, k.PP.SoundnessBits, 128.0)
	r := rand.New(rand.NewPCG(30, 24))
	vals := []int64{1, 0, 1}
	ctx := Context{Owner: [20]byte{0xf2}}
	ct, h, proof, found := slotGrind(t, k, vals, ctx, 1<<14, r)
	require.Equal(t, k.Level(), ct.Level())
	require.False(t, found, "a try succeeded")
	require.ErrorIs(t, k.Verify(ct, h, ctx, proof), ErrInvalid)
	top, err := NewKey(keys.Public)
	require.NoError(t, err)
	require.ErrorIs(t, top.Verify(ct, h, ctx, proof), ErrInvalid)
}
