package zkpok

import (
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"

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

// shrunkMasks draws y_i uniform in [−(Z_i − slack_i), Z_i − slack_i]: a
// cheating prover that needs no zero knowledge and wants every response
// inside the verifier's box whatever the challenge.
func shrunkMasks(pp *Params, slack [nComp]int64, r *rand.Rand) [nComp][]int64 {
	var y [nComp][]int64
	for i := range nComp {
		rad := pp.Z[i] - slack[i]
		y[i] = make([]int64, pp.N)
		for j := range y[i] {
			y[i][j] = r.Int64N(2*rad+1) - rad
		}
	}
	return y
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
// is short whenever c(1) ≡ v (mod 2). Today's challenges have exactly κ
// coefficients ±1, so c(1) ≡ κ (mod 2) always: with W = A·y − v·A·(g·b)
// (b the constant 1 in the e0 coordinate, A·(g·b) = (t·g, 0)) and
// z_e0 = y_e0 + c·e0 + q_c + ((c(1) − v)/2)·(1 + … + X^{N−1}), every
// response is short and A·z − c·(t·ĉ0, ĉ1) = W for every challenge.
func ringInverseForgery(t *testing.T, k *Key, vals []int64, ctx Context, r *rand.Rand) (*fhe.Ciphertext, fhe.Handle, []byte) {
	t.Helper()
	pp, rqp := k.PP, k.rqp
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

	// A·(g·b) = (t·g, 0), NTT domain.
	ag := rqp.NewPoly()
	rqp.NTT(g, ag)
	rqp.MulScalar(ag, k.t, ag)
	v := int64(pp.Kappa % 2)
	var slack [nComp]int64
	for i := range nComp {
		slack[i] = int64(pp.Kappa) * infNorm(w[i])
	}
	slack[compE0] += 2 * int64(pp.Kappa)
	w0, w1, tmp := rqp.NewPoly(), rqp.NewPoly(), rqp.NewPoly()
	for attempt := 0; attempt < 20; attempt++ {
		y := shrunkMasks(pp, slack, r)
		k.apply(y, w0, w1)
		rqp.MulScalar(ag, uint64(v), tmp)
		rqp.Sub(w0, tmp, w0)
		hh := k.transcript(ctx, h, rho, w0, w1)
		c := Challenge(hh, pp.N, pp.Kappa)
		var c1 int64
		for _, x := range c {
			c1 += x
		}
		pr, ok := &Proof{H: hh, Rho: rho}, true
		for i := range nComp {
			z := sparseMul(c, w[i], pp.N)
			for j := range z {
				z[j] += y[i][j]
			}
			if i == compE0 {
				var suffix int64 // Σ_{j>i} c_j
				for j := pp.N - 1; j >= 0; j-- {
					z[j] += -suffix + (c1-v)/2
					suffix += c[j]
				}
			}
			for _, x := range z {
				ok = ok && x <= pp.Z[i] && x >= -pp.Z[i]
			}
			pr.Z[i] = z
		}
		if ok {
			return ct, h, pp.Marshal(pr)
		}
	}
	t.Fatal("ring-inverse forgery: responses out of bounds")
	return nil, fhe.Handle{}, nil
}

// TestAttackRingInverse — the ring-inverse forgery (ringInverseForgery):
// an input whose ciphertext decrypts to garbage in every slot (noise ≈ Q),
// with a proof that today's one-repetition protocol accepts on the first
// try, on the test ring and on BGVN13.
func TestAttackRingInverse(t *testing.T) {
	for _, id := range []fhe.PresetID{fhetest.InsecureBGVN10, fhe.BGVN13} {
		p := fhe.MustParams(id)
		keys := fhe.GenKeys(p, nil)
		k, err := NewKey(keys.Public)
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(uint64(id), 24))
		vals := []int64{1, 0, 1, 1}
		ctx := Context{Owner: [20]byte{0xf0}}
		ct, h, proof := ringInverseForgery(t, k, vals, ctx, r)
		wrong := wrongSlots(t, keys.Secret, ct, vals)
		t.Logf("%s: forged input decrypts wrong in %d of %d slots", p.Preset.Name, wrong, p.Slots())
		require.Greater(t, wrong, p.Slots()*9/10, "the forged ciphertext is garbage")
		require.NoError(t, k.Verify(ct, h, ctx, proof), "today's verifier accepts the ring-inverse forgery")
	}
}

// slotGrind is the slot-grinding forgery: the input is off the relation in
// one NTT slot j of the smallest prime q of QP (δ, zero in every other slot
// and prime, added to ĉ1). With masks y fixed, W = A·y − v·δ̂ depends on
// the guess v only through one word (slot j of q in W1), placed near the
// end of the transcript, so the SHA-256 state before it is reused and a try
// costs one short hash, one challenge expansion and c(ζ_j) mod q. A try
// succeeds when c(ζ_j) ≡ v (mod q): then A·z − c·(t·ĉ0, ĉ1 + δ) = W with
// the honest responses z = y + c·w. It returns the forged input, its proof
// (nil when no try of the budget succeeded) and the tries made.
func slotGrind(t *testing.T, k *Key, vals []int64, ctx Context, budget int, r *rand.Rand) (*fhe.Ciphertext, fhe.Handle, []byte, int) {
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

	// ζ_j: slot j of q evaluates at the j-th entry of NTT(X).
	x := rqp.NewPoly()
	x.Coeffs[row][1] = 1
	rqp.NTT(x, x)
	zeta, pow := x.Coeffs[row][j], make([]uint64, pp.N)
	pow[0] = 1
	for i := 1; i < pp.N; i++ {
		pow[i] = ring.BRed(pow[i-1], zeta, q, rqp.SubRings[row].BRedConstant)
	}

	var slack [nComp]int64
	for i := range nComp {
		slack[i] = int64(pp.Kappa) * infNorm(w[i])
	}
	y := shrunkMasks(pp, slack, r)
	w0, w1 := rqp.NewPoly(), rqp.NewPoly()
	k.apply(y, w0, w1)
	base := w1.Coeffs[row][j]
	x0 := k.transcriptPrefix(ctx, h, rho)
	buf := make([]byte, 8*pp.N)
	writeRows(x0, buf, w0.Coeffs)
	writeRows(x0, buf, w1.Coeffs[:row])
	for i, v := range w1.Coeffs[row][:j] {
		binary.LittleEndian.PutUint64(buf[8*i:], v)
	}
	_, _ = x0.Write(buf[:8*j])
	mid, err := x0.(encoding.BinaryMarshaler).MarshalBinary()
	require.NoError(t, err)
	var tail []byte
	for _, v := range w1.Coeffs[row][j+1:] {
		tail = binary.LittleEndian.AppendUint64(tail, v)
	}
	for _, rw := range w1.Coeffs[row+1:] {
		for _, v := range rw {
			tail = binary.LittleEndian.AppendUint64(tail, v)
		}
	}
	st := sha256.New()
	var word [8]byte
	for try := 1; try <= budget; try++ {
		v := r.Uint64N(q)
		binary.LittleEndian.PutUint64(word[:], (base+q-v)%q)
		require.NoError(t, st.(encoding.BinaryUnmarshaler).UnmarshalBinary(mid))
		_, _ = st.Write(word[:])
		_, _ = st.Write(tail)
		hh := [32]byte(st.Sum(nil))
		c := Challenge(hh, pp.N, pp.Kappa)
		var cz uint64
		for i, s := range c {
			switch s {
			case 1:
				cz += pow[i]
			case -1:
				cz += q - pow[i]
			}
		}
		if cz%q != v {
			continue
		}
		pr := &Proof{H: hh, Rho: rho}
		for i := range nComp {
			pr.Z[i] = sparseMul(c, w[i], pp.N)
			for l := range pr.Z[i] {
				pr.Z[i][l] += y[i][l]
			}
		}
		return ct, h, pp.Marshal(pr), try
	}
	return ct, h, nil, budget
}

// TestAttackSlotGrinding — the slot-grinding forgery (slotGrind) on a ring
// with an 18-bit prime, with a budget of 2^22 tries (it needs ≈ 2^18 on
// average against today's protocol): the forged input decrypts to garbage
// in almost every slot and today's verifier accepts its proof.
func TestAttackSlotGrinding(t *testing.T) {
	p := fhe.MustParams(insecureBGVN10Q18)
	keys := fhe.GenKeys(p, nil)
	k, err := NewKey(keys.Public)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(18, 24))
	vals := []int64{1, 0, 1}
	ctx := Context{Owner: [20]byte{0xf1}}
	ct, h, proof, tries := slotGrind(t, k, vals, ctx, 1<<22, r)
	wrong := wrongSlots(t, keys.Secret, ct, vals)
	t.Logf("q = %d: %d tries, forged input wrong in %d of %d slots", p.Q()[1], tries, wrong, p.Slots())
	require.Greater(t, wrong, p.Slots()*9/10, "the forged ciphertext is garbage")
	require.NotNil(t, proof, "grinding found an accepted proof within the budget")
	require.NoError(t, k.Verify(ct, h, ctx, proof), "today's verifier accepts the ground proof")
}
