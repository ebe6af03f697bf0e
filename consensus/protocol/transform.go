package protocol

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	mrand "math/rand/v2"
	"sync"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"
	"github.com/tuneinsight/lattigo/v6/utils/sampling"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
	"github.com/fhegate/fhegate/fhe/zkpok"
	"github.com/fhegate/fhegate/internal/par"
)

// Bounds of a RefreshTransform. The outputs cover a vector input's
// attributes (fhe.MaxVectorWidth); the inputs cover the accumulators of a
// full batch of the widest vectors (fhe.VectorLayout: ⌈S·K'/S⌉ ≤ 64).
const (
	MaxTransformInputs  = 64
	MaxTransformOutputs = fhe.MaxVectorWidth
)

// TransformSoundnessBits is the soundness of the mask check of a refresh
// transform: a masker whose output masks are not the transform of its input
// masks passes all TransformChecks(t) challenges with probability at most
// 2^−TransformSoundnessBits.
const TransformSoundnessBits = 128

// TransformChecks is the number of independent challenges of the mask
// check for plaintext modulus tp: each catches a wrong output mask with
// probability 1 − 1/tp.
func TransformChecks(tp uint64) int {
	return int(math.Ceil(TransformSoundnessBits / math.Log2(float64(tp))))
}

// TransformRequest is a collective refresh of A input ciphertexts into K
// output ciphertexts at the top level with a public linear slot transform
// applied on the way.
type TransformRequest struct {
	Session string
	// Inputs are 1 … MaxTransformInputs ciphertexts, degree 1, NTT, at the
	// same level and with the same scale.
	Inputs []*fhe.Ciphertext
	// Outputs is K, 1 … MaxTransformOutputs.
	Outputs int
	// TransformID names Transform for the ledger and the CRS (members that
	// run different transforms must not mix shares).
	TransformID string
	// Transform maps the inputs' decoded slot vectors in[a] (each Slots()
	// long, values mod t) to the outputs' out[k] (each Slots() long; the
	// callee must overwrite every entry). It must be linear mod t and
	// deterministic (e.g. a slot selection, fhe.VectorLayout.Unpack).
	Transform func(in, out [][]uint64) error
	// Adjoint is Transform's adjoint (transpose): from K output-shaped
	// vectors it writes A input-shaped ones with ⟨ρ, T(x)⟩ = ⟨T*(ρ), x⟩ mod
	// t for all x, ρ (fhe.VectorLayout.UnpackAdjoint). The mask check needs
	// it; a request whose Adjoint is not Transform's is refused before
	// anything is sent.
	Adjoint func(out, in [][]uint64) error
	// Active are the contributors, as RefreshRequest's: ascending, at least
	// CheckedMembers(t); the first t mask. Receivers (a superset) get
	// everything and compute the outputs too.
	Active, Receivers []transport.MemberID
	// PublicKey is the collective public key (required): every input is
	// sanitised first and the masks are encrypted under it.
	PublicKey *fhe.PublicKey
	// ProofKey is PublicKey's input-proof key (nil: made here, cached).
	ProofKey *zkpok.Key
	// NoiseBits, WorstBits are as RefreshRequest's, for every input.
	NoiseBits, WorstBits float64
	// Workers bounds the goroutines of this member's proofs, checks and
	// outputs (≤ 0: GOMAXPROCS). The outputs are the same bytes for every
	// value (TestRefreshTransformWorkers).
	Workers int
}

// RefreshTransform is the committee's verified refresh transform: Refresh's
// masked decryption by public, proven masks, with a public linear slot
// transform T = req.Transform between the masked decryption and the
// re-encryption. It turns ciphertexts Y_1 … Y_A of slot vectors m_1 … m_A
// (sanitised first, one coin toss per input) into fresh top-level
// ciphertexts of T(m)_1 … T(m)_K, or fails naming what went wrong; the
// argument is in docs/committee.md, "Verified refresh transform".
//
//  1. Mask round (committed): each of the first t contributors i (one of
//     them honest) draws uniform slot vectors M_{i,1…A}, and sends, each
//     with the input proof of plaintext knowledge (zkpok, bound to i, the
//     epoch and a nonce), X_{i,a} = Enc(M_{i,a}) and W_{i,k} = Enc(T(M_i)_k)
//     at the top level. A proof that does not verify names its sender.
//  2. Every member draws TransformChecks(t) public challenges ρ_c (K slot
//     vectors mod t each, from the hash of every mask message, fixed after
//     the commitments) and, per masker i and challenge c, the check
//     ciphertext D_{i,c} = Σ_k W_{i,k}·ρ_{c,k} − Σ_a X_{i,a}·T*(ρ_c)_a
//     (products by plaintexts: slot-wise). The sum of the slots of a
//     plaintext is N times its constant coefficient, so D_{i,c}'s constant
//     coefficient is (s/N)·⟨ρ_c, w_i − T(M_i)⟩: zero for an honest masker,
//     and for one whose W is not T of its X, zero with probability 1/t per
//     challenge.
//  3. Share round (committed): for every t-subset S holding it, contributor
//     j sends Refresh's decryption shares of Z_a = Y_a + Σ_i X_{i,a} (at the
//     inputs' level) and the constant coefficient of c1(D_{i,c})·λ_j^S·tsk_j
//     flooded by its own scalar E ← D_{Z,σ_j} (σ sized for D's honest noise).
//  4. Every receiver decodes, per subset, each z_a = m_a + ΣM_{i,a} and
//     each check value. Subsets that disagree fail the transform with
//     ErrRefreshDisagree (naming whom every explanation includes); a check
//     value off zero names its masker (ErrEquivocation). Otherwise output k
//     is (Enc_top(T(z)_k), 0) − Σ_i W_{i,k}: its plaintext is T(m)_k + T(M)_k
//     − Σ_i w_{i,k} = T(m)_k, its noise the masks' encryption noise.
//
// When the A + K masks of one masker would not fit a message the outputs
// are split into groups, each with masks of its own (transformGroups).
// Every receiver computes the same outputs; the caller compares digests.
func RefreshTransform(ctx context.Context, g Group, key *ThresholdKey, led Ledger, req TransformRequest) ([]*fhe.Ciphertext, error) {
	p := key.Params
	if err := checkTransform(p, key.T, req); err != nil {
		return nil, err
	}
	zk, err := proofKey(req.PublicKey, req.ProofKey)
	if err != nil {
		return nil, err
	}
	noiseBits, worstBits := maskedBounds(zk, len(g.Members), key.T, req.NoiseBits, req.WorstBits)
	sigmaBits, err := refreshRoom(p, key.T, req.Inputs[0].Level(), noiseBits, worstBits, "refresh transform")
	if err != nil {
		return nil, err
	}
	limit := transport.DefaultMaxMessage
	if g.transformMessageLimit > 0 {
		limit = g.transformMessageLimit
	}
	groups, err := transformGroups(zk, len(req.Inputs), req.Outputs, limit)
	if err != nil {
		return nil, err
	}
	widest := 0
	for _, grp := range groups {
		widest = max(widest, grp[1]-grp[0])
	}
	checkBits, err := transformCheckRoom(zk, len(g.Members), key.T, len(req.Inputs)+widest)
	if err != nil {
		return nil, err
	}
	subsets := subsetsOf(req.Active, key.T)
	if n := transformSharesSize(p, req.Inputs[0].Level(), len(req.Inputs), key.T, subsets, req.Active[0]); n > transport.DefaultMaxMessage {
		return nil, fmt.Errorf("protocol: refresh transform shares of %d inputs among %v are %d bytes, beyond a message's %d", len(req.Inputs), req.Active, n, transport.DefaultMaxMessage)
	}
	ins, session, err := sanitiseInputs(ctx, g, key, req)
	if err != nil {
		return nil, err
	}
	tr := transformRun{g: g, key: key, led: led, zk: zk, req: req, ins: ins, subsets: subsets,
		maskers: req.Active[:key.T], sigmaBits: sigmaBits, checkBits: checkBits, workers: par.Workers(len(ins)+req.Outputs, req.Workers)}
	outs := make([]*fhe.Ciphertext, 0, req.Outputs)
	for gi, grp := range groups {
		o, err := tr.group(ctx, fmt.Sprintf("%s/g%d", session, gi), grp[0], grp[1])
		if err != nil {
			return nil, err
		}
		outs = append(outs, o...)
	}
	return outs, nil
}

// checkTransform validates a request before anything is sent.
func checkTransform(p *fhe.Params, t int, req TransformRequest) error {
	if p.Scheme() != fhe.SchemeBGV {
		return errors.New("protocol: refresh transform needs BGV parameters")
	}
	if err := checkContributors("refresh transform", t, req.Active, req.Receivers); err != nil {
		return err
	}
	if a := len(req.Inputs); a < 1 || a > MaxTransformInputs {
		return fmt.Errorf("protocol: refresh transform of %d inputs (1 … %d)", a, MaxTransformInputs)
	}
	if req.Outputs < 1 || req.Outputs > MaxTransformOutputs {
		return fmt.Errorf("protocol: refresh transform into %d outputs (1 … %d)", req.Outputs, MaxTransformOutputs)
	}
	if req.Transform == nil {
		return errors.New("protocol: refresh transform without a transform")
	}
	if req.Adjoint == nil {
		return errors.New("protocol: refresh transform without the transform's adjoint (the mask check needs it)")
	}
	if req.PublicKey == nil {
		return errors.New("protocol: sanitisation needs the collective public key")
	}
	var first *rlwe.Ciphertext
	for a, ct := range req.Inputs {
		if ct == nil || ct.Lattigo() == nil {
			return fmt.Errorf("protocol: refresh transform input %d is nil", a)
		}
		if ct.Degree() != 1 {
			return fmt.Errorf("protocol: refresh transform input %d has degree %d, needs 1", a, ct.Degree())
		}
		in := ct.Lattigo()
		if !in.IsNTT {
			return fmt.Errorf("protocol: refresh transform input %d not in the NTT domain", a)
		}
		if first == nil {
			first = in
			continue
		}
		if ct.Level() != first.Level() {
			return fmt.Errorf("protocol: refresh transform input %d at level %d, input 0 at %d", a, ct.Level(), first.Level())
		}
		if !in.Scale.Equal(first.Scale) {
			return fmt.Errorf("protocol: refresh transform input %d has scale %v, input 0 %v", a, in.Scale.Uint64(), first.Scale.Uint64())
		}
	}
	return checkAdjoint(p, req)
}

// adjointTests is the number of random pairs checkAdjoint tries: a map
// that is not T's adjoint (or a T that is not linear) passes one with
// probability at most 2/t.
const adjointTests = 3

// checkAdjoint tests ⟨ρ, T(x)⟩ = ⟨T*(ρ), x⟩ mod t on adjointTests pairs of
// random vectors (seeded by the TransformID, so every member draws the
// same): an adjoint that is not the transform's would make every honest
// mask check fail and name an honest masker, so it is refused here instead.
func checkAdjoint(p *fhe.Params, req TransformRequest) error {
	tm, slots := p.PlaintextModulus(), p.Slots()
	seed := sha256.Sum256([]byte("fhegate/refresh-transform/adjoint-test/v1/" + req.TransformID))
	rng := mrand.New(mrand.NewChaCha8(seed))
	vecs := func(n int, fill bool) [][]uint64 {
		v := make([][]uint64, n)
		for i := range v {
			v[i] = make([]uint64, slots)
			if fill {
				for j := range v[i] {
					v[i][j] = rng.Uint64N(tm)
				}
			}
		}
		return v
	}
	for range adjointTests {
		x, rho := vecs(len(req.Inputs), true), vecs(req.Outputs, true)
		tx, trho := vecs(req.Outputs, false), vecs(len(req.Inputs), false)
		if err := safe("refresh transform: transform", func() error { return req.Transform(x, tx) }); err != nil {
			return err
		}
		if err := safe("refresh transform: adjoint", func() error { return req.Adjoint(rho, trho) }); err != nil {
			return err
		}
		if ip(tm, rho, tx) != ip(tm, trho, x) {
			return errors.New("protocol: refresh transform: Adjoint is not the adjoint of Transform")
		}
	}
	return nil
}

// ip is Σ_i ⟨a_i, b_i⟩ mod tm (slot vectors of values < tm < 2^32).
func ip(tm uint64, a, b [][]uint64) uint64 {
	var s uint64
	for i := range a {
		for j := range a[i] {
			s = (s + a[i][j]%tm*(b[i][j]%tm)) % tm
		}
	}
	return s
}

// transformGroups splits the K outputs into consecutive groups [k0, k1)
// whose masker message (A input masks and k1−k0 output masks) fits a
// message of limit bytes: one group unless the masks are large (BGVN14:
// 12 outputs with one input in a transport message).
func transformGroups(zk *zkpok.Key, inputs, outputs, limit int) ([][2]int, error) {
	mb, err := maskBytes(zk.PK.Params())
	if err != nil {
		return nil, err
	}
	per := (limit-2)/(4+mb) - inputs
	if per < 1 {
		return nil, fmt.Errorf("protocol: refresh transform of %d inputs: its masks (%d bytes each) do not fit a message of %d bytes", inputs, mb, limit)
	}
	n := (outputs + per - 1) / per
	out := make([][2]int, n)
	for i := range out {
		out[i] = [2]int{i * outputs / n, (i + 1) * outputs / n}
	}
	return out, nil
}

// transformCheckRoom sizes the flooding of the mask check's decryption for
// items = A + K masks per masker and checks that the top level decodes it:
// the constant coefficient of D's noise is at most items·‖e‖∞·N·t (a
// plaintext lifted to [0, t)), with ‖e‖∞ an honest mask's noise for what
// must stay hidden and the proof's accepted bound for what must decode; the
// plaintext products add at most items·N·t². It returns log2 σ_j.
func transformCheckRoom(zk *zkpok.Key, members, t, items int) (float64, error) {
	p := zk.PK.Params()
	nt := math.Log2(float64(p.N())) + math.Log2(float64(p.PlaintextModulus()))
	lt := math.Log2(float64(p.PlaintextModulus()))
	honest := math.Log2(float64(items)) + zk.PP.HonestNoiseBits(members) + nt
	sigmaBits := RefreshShareSigmaBits(honest, t)
	if sigmaBits > maxSamplerSigmaBits {
		return 0, fmt.Errorf("protocol: refresh transform check flooding σ_j = 2^%.1f beyond the sampler's 2^%d", sigmaBits, maxSamplerSigmaBits)
	}
	worst := math.Log2(float64(items)) + math.Max(zk.PP.AcceptedNoiseBits(members), lt) + nt + 1
	flood := noise.RefreshFlooding(honest) + math.Log2(2*noise.FloodTailSigmas)
	need := lt + math.Max(worst, flood) + 2
	if q := bigLog2(p.RLWE().RingQ().ModulusAtLevel[p.MaxLevel()]); need >= q {
		return 0, fmt.Errorf("protocol: refresh transform check needs 2^%.1f, the top level holds 2^%.1f on %s", need, q, p.Preset.Name)
	}
	return sigmaBits, nil
}

// sanitiseInputs runs one coin toss per input (concurrently, sub-session
// "<Session>/in/<a>") and returns the sanitised inputs and the session of
// the later rounds, which binds every toss's session (and so its seed), the
// TransformID and the output count.
func sanitiseInputs(ctx context.Context, g Group, key *ThresholdKey, req TransformRequest) ([]*fhe.Ciphertext, string, error) {
	ins := make([]*fhe.Ciphertext, len(req.Inputs))
	sessions := make([]string, len(req.Inputs))
	errs := make([]error, len(req.Inputs))
	var wg sync.WaitGroup
	for a, ct := range req.Inputs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ins[a], sessions[a], _, errs[a] = sanitiseFor(ctx, g, key, req.PublicKey, fmt.Sprintf("%s/in/%d", req.Session, a), req.Receivers, ct)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, "", err
	}
	parts := [][]byte{[]byte("fhegate/refresh-transform/session/v2"), lenPrefixed(req.TransformID), binary.BigEndian.AppendUint32(nil, uint32(req.Outputs))}
	for _, s := range sessions {
		parts = append(parts, lenPrefixed(s))
	}
	h := keccak(parts...)
	return ins, fmt.Sprintf("%s/%x", req.Session, h[:6]), nil
}

func lenPrefixed(s string) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...)
}

// transformRun is one RefreshTransform after its checks and sanitisation.
type transformRun struct {
	g         Group
	key       *ThresholdKey
	led       Ledger
	zk        *zkpok.Key
	req       TransformRequest
	ins       []*fhe.Ciphertext // sanitised
	subsets   [][]transport.MemberID
	maskers   []transport.MemberID
	sigmaBits float64 // flooding of the inputs' decryption shares
	checkBits float64 // flooding of the check shares
	workers   int
}

// group runs steps 1–4 for outputs [k0, k1) in session gs.
func (tr *transformRun) group(ctx context.Context, gs string, k0, k1 int) ([]*fhe.Ciphertext, error) {
	g, key, req := tr.g, tr.key, tr.req
	p := key.Params
	nIn, nOut := len(tr.ins), k1-k0
	// 1. masks
	mdigest := tr.digest("mask-ledger", k0, k1)
	msgs, err := exchangeCommitted(ctx, g, transport.TypeRefreshShare, gs+"/mask", tr.maskers, req.Receivers, func() ([]byte, error) {
		return tr.led.Issue(KindRefreshMask, mdigest, key.Epoch, gs+"/mask", func() ([]byte, error) {
			return tr.newMasks(k0, k1)
		})
	})
	if err != nil {
		return nil, err
	}
	masks, err := tr.openMasks(gs+"/mask", msgs, nIn+nOut)
	if err != nil {
		return nil, err
	}
	// 2. masked inputs, challenges, checks
	zs := make([]*fhe.Ciphertext, nIn)
	for a := range zs {
		xa := make(map[transport.MemberID]*fhe.Ciphertext, len(tr.maskers))
		for _, id := range tr.maskers {
			xa[id] = masks[id][a]
		}
		if zs[a], err = maskedInput(tr.ins[a], xa, tr.maskers); err != nil {
			return nil, err
		}
	}
	seedParts := [][]byte{[]byte("fhegate/refresh-transform/challenge/v1"), lenPrefixed(gs)}
	for _, id := range tr.maskers {
		h := keccak(msgs[id])
		seedParts = append(seedParts, h[:])
	}
	seed := keccak(seedParts...)
	checks, err := tr.checks(seed, masks, k0, k1)
	if err != nil {
		return nil, err
	}
	// 3. shares
	sdigest := transformShareDigest(zs, seed, req.Active)
	shares, err := exchangeShares(ctx, g, transport.TypeRefreshShare, gs, req.Active, req.Receivers, "refresh transform", func() ([]byte, error) {
		return tr.led.Issue(KindRefresh, sdigest, key.Epoch, gs, func() ([]byte, error) {
			return tr.genShares(zs, checks)
		})
	})
	if err != nil {
		return nil, err
	}
	// 4. decode, check, re-encrypt
	vals, err := tr.combine(gs, zs, checks, shares)
	if err != nil {
		return nil, err
	}
	out := make([][]uint64, req.Outputs)
	for k := range out {
		out[k] = make([]uint64, p.Slots())
	}
	if err := safe("refresh transform: transform", func() error { return req.Transform(vals, out) }); err != nil {
		return nil, err
	}
	md := *tr.ins[0].Lattigo().MetaData
	outs := make([]*fhe.Ciphertext, nOut)
	err = par.ForEach(nOut, tr.workers, func(_, k int) error {
		ws := make([]*fhe.Ciphertext, len(tr.maskers))
		for i, id := range tr.maskers {
			ws[i] = masks[id][nIn+k]
		}
		var err error
		outs[k], err = unmaskCts(p, md, out[k0+k], ws)
		return err
	})
	if err != nil {
		return nil, err
	}
	return outs, nil
}

// digest is a ledger key of this run: the sanitised inputs, the
// TransformID, the output range and the contributors.
func (tr *transformRun) digest(what string, k0, k1 int) [32]byte {
	parts := [][]byte{[]byte("fhegate/refresh-transform/" + what + "/v2"), binary.BigEndian.AppendUint32(nil, uint32(len(tr.ins)))}
	for _, ct := range tr.ins {
		d := ShareDigest(ct)
		parts = append(parts, d[:])
	}
	parts = append(parts, lenPrefixed(tr.req.TransformID), binary.BigEndian.AppendUint32(nil, uint32(k0)), binary.BigEndian.AppendUint32(nil, uint32(k1)))
	return keccak(append(parts, memberIDBytes(tr.req.Active))...)
}

// transformShareDigest is the ledger key of a share bundle: the masked
// inputs (fresh masks in every run), the challenge seed and the
// contributors.
func transformShareDigest(zs []*fhe.Ciphertext, seed [32]byte, active []transport.MemberID) [32]byte {
	parts := [][]byte{[]byte("fhegate/refresh-transform/share-ledger/v2")}
	for _, z := range zs {
		d := ShareDigest(z)
		parts = append(parts, d[:])
	}
	return keccak(append(parts, seed[:], memberIDBytes(active))...)
}

// newMasks is this masker's mask message for outputs [k0, k1): uniform
// M_1 … M_A, then u16 count ‖ per mask u32 length ‖ encryptMask of M_a for
// every input, then of T(M)_k for every output of the range.
func (tr *transformRun) newMasks(k0, k1 int) ([]byte, error) {
	p := tr.key.Params
	tm, slots := p.PlaintextModulus(), p.Slots()
	nIn := len(tr.ins)
	vals := make([][]int64, nIn+k1-k0)
	in := make([][]uint64, nIn)
	out := make([][]uint64, tr.req.Outputs)
	defer func() {
		for _, v := range vals {
			clear(v)
		}
		for _, v := range append(in, out...) {
			clear(v)
		}
	}()
	for a := range in {
		vals[a] = make([]int64, slots)
		if err := uniformSlots(tm, vals[a]); err != nil {
			return nil, err
		}
		in[a] = make([]uint64, slots)
		for j, v := range vals[a] {
			in[a][j] = uint64(v)
		}
	}
	for k := range out {
		out[k] = make([]uint64, slots)
	}
	if err := safe("refresh transform: transform", func() error { return tr.req.Transform(in, out) }); err != nil {
		return nil, err
	}
	for k := k0; k < k1; k++ {
		v := make([]int64, slots)
		for j, x := range out[k] {
			v[j] = int64(x % tm)
		}
		vals[nIn+k-k0] = v
	}
	if tr.g.transformMaskEdit != nil {
		tr.g.transformMaskEdit(vals)
	}
	msgs := make([][]byte, len(vals))
	err := par.ForEach(len(vals), tr.workers, func(_, i int) (err error) {
		msgs[i], err = encryptMask(tr.zk, tr.key.Epoch, tr.g.Self(), vals[i])
		return err
	})
	if err != nil {
		return nil, err
	}
	b := binary.BigEndian.AppendUint16(nil, uint16(len(msgs)))
	for _, m := range msgs {
		b = binary.BigEndian.AppendUint32(b, uint32(len(m)))
		b = append(b, m...)
	}
	return b, nil
}

// splitTransformMasks splits a mask message into exactly n mask messages,
// bounding every length before it slices.
func splitTransformMasks(b []byte, n int) ([][]byte, error) {
	if len(b) < 2 {
		return nil, fmt.Errorf("mask message of %d bytes", len(b))
	}
	if c := int(binary.BigEndian.Uint16(b)); c != n {
		return nil, fmt.Errorf("mask message of %d masks, want %d", c, n)
	}
	b = b[2:]
	out := make([][]byte, n)
	for i := range out {
		if len(b) < 4 {
			return nil, fmt.Errorf("mask %d: message ends", i)
		}
		l := int(binary.BigEndian.Uint32(b))
		if l > len(b)-4 {
			return nil, fmt.Errorf("mask %d of %d bytes in the %d left", i, l, len(b)-4)
		}
		out[i], b = b[4:4+l], b[4+l:]
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%d bytes after the masks", len(b))
	}
	return out, nil
}

// openMasks decodes every masker's message and verifies every proof but
// this member's own (in parallel); a message or proof that does not
// verify names its sender.
func (tr *transformRun) openMasks(session string, msgs map[transport.MemberID][]byte, n int) (map[transport.MemberID][]*fhe.Ciphertext, error) {
	parts := make([][][]byte, len(tr.maskers))
	errs := make([]error, len(tr.maskers))
	cts := make([][]*fhe.Ciphertext, len(tr.maskers))
	for i, id := range tr.maskers {
		parts[i], errs[i] = splitTransformMasks(msgs[id], n)
		cts[i] = make([]*fhe.Ciphertext, n)
	}
	var mu sync.Mutex
	_ = par.ForEach(len(tr.maskers)*n, tr.workers, func(_, x int) error {
		i, k := x/n, x%n
		if parts[i] == nil {
			return nil
		}
		var ct *fhe.Ciphertext
		var err error
		if id := tr.maskers[i]; id == tr.g.Self() {
			ct, err = decodeMask(tr.zk, parts[i][k])
		} else {
			ct, err = openMask(tr.zk, tr.key.Epoch, id, parts[i][k])
		}
		if err == nil && (ct.Degree() != 1 || ct.Level() != tr.key.Params.MaxLevel() || !ct.Lattigo().IsNTT) {
			err = errors.New("mask is not a degree-1 NTT ciphertext at the top level")
		}
		mu.Lock()
		defer mu.Unlock()
		cts[i][k] = ct
		if err != nil && errs[i] == nil {
			errs[i] = fmt.Errorf("mask %d: %w", k, err)
		}
		return nil
	})
	out := make(map[transport.MemberID][]*fhe.Ciphertext, len(tr.maskers))
	for i, id := range tr.maskers {
		if errs[i] != nil {
			return nil, tr.g.equivocation(&ErrEquivocation{Session: session, Member: id, Reason: "refresh transform mask refused: " + errs[i].Error()})
		}
		out[id] = cts[i]
	}
	return out, nil
}

// transformCheck is one check ciphertext D_{i,c}: its c1 (top level, NTT)
// and the constant coefficient of its c0, one residue per modulus.
type transformCheck struct {
	c1     ring.Poly
	c0Zero []uint64
}

// checks computes D_{i,c} for every masker i (in order) and challenge c:
// index i·C + c.
func (tr *transformRun) checks(seed [32]byte, masks map[transport.MemberID][]*fhe.Ciphertext, k0, k1 int) ([]transformCheck, error) {
	p := tr.key.Params
	top := p.MaxLevel()
	ringQ := p.RLWE().RingQ().AtLevel(top)
	nIn, nOut := len(tr.ins), k1-k0
	nc := TransformChecks(p.PlaintextModulus())
	// the challenges' plaintexts: ρ_{c,k} (k in the range) and T*(ρ_c)_a,
	// lifted to [0, t) and in the NTT domain at the top level
	plain := make([][]ring.Poly, nc) // [c][0 … nIn) inputs, then [nIn … nIn+nOut) outputs
	err := par.ForEach(nc, tr.workers, func(_, c int) error {
		rho, err := transformChallenge(p, seed, c, tr.req.Outputs, k0, k1)
		if err != nil {
			return err
		}
		adj := make([][]uint64, nIn)
		for a := range adj {
			adj[a] = make([]uint64, p.Slots())
		}
		if err := safe("refresh transform: adjoint", func() error { return tr.req.Adjoint(rho, adj) }); err != nil {
			return err
		}
		ecd := bgv.NewEncoder(p.BGV())
		plain[c] = make([]ring.Poly, nIn+nOut)
		lift := func(v []uint64) (ring.Poly, error) {
			pt := p.BGV().RingT().NewPoly()
			if err := ecd.EncodeRingT(v, rlwe.NewScale(1), pt); err != nil {
				return ring.Poly{}, err
			}
			q := ringQ.NewPoly()
			ecd.RingT2Q(top, false, pt, q)
			ringQ.NTT(q, q)
			return q, nil
		}
		for a := range adj {
			if plain[c][a], err = lift(adj[a]); err != nil {
				return err
			}
		}
		for k := range nOut {
			if plain[c][nIn+k], err = lift(rho[k0+k]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("protocol: refresh transform challenge: %w", err)
	}
	out := make([]transformCheck, len(tr.maskers)*nc)
	err = par.ForEach(len(out), tr.workers, func(_, x int) error {
		i, c := x/nc, x%nc
		ms := masks[tr.maskers[i]]
		var d [2]ring.Poly
		for j := range d {
			pos, neg := ringQ.NewPoly(), ringQ.NewPoly()
			for k := range nOut {
				ringQ.MulCoeffsBarrettThenAdd(ms[nIn+k].Lattigo().Value[j], plain[c][nIn+k], pos)
			}
			for a := range nIn {
				ringQ.MulCoeffsBarrettThenAdd(ms[a].Lattigo().Value[j], plain[c][a], neg)
			}
			ringQ.Sub(pos, neg, pos)
			d[j] = pos
		}
		ringQ.INTT(d[0], d[0])
		zero := make([]uint64, top+1)
		for l := range zero {
			zero[l] = d[0].Coeffs[l][0]
		}
		out[x] = transformCheck{c1: d[1], c0Zero: zero}
		return nil
	})
	return out, err
}

// transformChallenge is ρ_c: K slot vectors mod t, zero outside the
// outputs [k0, k1), drawn from a PRNG keyed by the seed and c.
func transformChallenge(p *fhe.Params, seed [32]byte, c, outputs, k0, k1 int) ([][]uint64, error) {
	key := keccak([]byte("fhegate/refresh-transform/rho/v1"), seed[:], binary.BigEndian.AppendUint32(nil, uint32(c)))
	prng, err := sampling.NewKeyedPRNG(key[:])
	if err != nil {
		return nil, err
	}
	tm, slots := p.PlaintextModulus(), p.Slots()
	rho := make([][]uint64, outputs)
	buf := make([]byte, 8*slots)
	for k := range rho {
		rho[k] = make([]uint64, slots)
		if k < k0 || k >= k1 {
			continue
		}
		if _, err := prng.Read(buf); err != nil {
			return nil, err
		}
		for j := range rho[k] {
			rho[k][j] = binary.LittleEndian.Uint64(buf[8*j:]) % tm
		}
	}
	return rho, nil
}

// checkShareBytes is the wire size of one check share: a residue per
// modulus of the top level.
func checkShareBytes(p *fhe.Params) int { return (p.MaxLevel() + 1) * 8 }

// transformSharesSize is the wire size of contributor id's share bundle.
func transformSharesSize(p *fhe.Params, level, inputs, t int, subsets [][]transport.MemberID, id transport.MemberID) int {
	held := 0
	for _, s := range subsets {
		if contains(s, id) {
			held++
		}
	}
	return inputs*held*(1+(level+1)*p.N()*8) + held*t*TransformChecks(p.PlaintextModulus())*checkShareBytes(p)
}

// genShares is this contributor's share bundle: Refresh's subset shares of
// every masked input (genSubsetShares, in input order), then for every
// t-subset S holding it, per check (masker-major), the constant
// coefficient of c1(D)·λ_self^S·tsk_self plus a flooding scalar.
func (tr *transformRun) genShares(zs []*fhe.Ciphertext, checks []transformCheck) ([]byte, error) {
	key, self, members := tr.key, tr.g.Self(), tr.g.Members
	p := key.Params
	var out []byte
	for _, z := range zs {
		b, err := genSubsetShares(key, self, members, z, tr.subsets, tr.sigmaBits)
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	top := p.MaxLevel()
	ringQ := p.RLWE().RingQ().AtLevel(top)
	moduli := ringQ.ModuliChain()[:top+1]
	red := make([]wideReducer, len(moduli))
	for j, q := range moduli {
		red[j] = newWideReducer(q)
	}
	var fs *GaussianSampler
	if tr.checkBits != 0 {
		var err error
		if fs, err = NewGaussianSampler(tr.checkBits); err != nil {
			return nil, err
		}
	}
	for _, s := range tr.subsets {
		if !contains(s, self) {
			continue
		}
		add, err := additiveShareAt(key, self, members, s)
		if err != nil {
			return nil, err
		}
		vals := make([][]uint64, len(checks))
		_ = par.ForEach(len(checks), tr.workers, func(_, x int) error {
			h := ringQ.NewPoly()
			ringQ.MulCoeffsMontgomery(checks[x].c1, add.Value.Q, h)
			ringQ.INTT(h, h)
			v := make([]uint64, top+1)
			for l := range v {
				v[l] = h.Coeffs[l][0]
			}
			vals[x] = v
			return nil
		})
		zero(add)
		for _, v := range vals {
			var lo, hi int64
			if fs != nil {
				lo, hi = fs.Sample()
			}
			for l, q := range moduli {
				out = binary.LittleEndian.AppendUint64(out, (v[l]+red[l].reduce(lo, hi))%q)
			}
		}
	}
	return out, nil
}

// combine decodes every masked input (combineSubsetShares) and every check
// per t-subset: it returns the masked inputs' slot values, or fails with
// ErrRefreshDisagree when subsets disagree, or names a masker whose check
// is not zero.
func (tr *transformRun) combine(session string, zs []*fhe.Ciphertext, checks []transformCheck, bundles map[transport.MemberID][]byte) ([][]uint64, error) {
	g, key, active := tr.g, tr.key, tr.req.Active
	p := key.Params
	level := zs[0].Level()
	size := 1 + (level+1)*p.N()*8
	top := p.MaxLevel()
	moduli := p.RLWE().RingQ().AtLevel(top).ModuliChain()[:top+1]
	held := map[transport.MemberID]int{}
	for _, s := range tr.subsets {
		for _, id := range s {
			held[id]++
		}
	}
	// split every bundle into its inputs' parts and its check residues
	inParts := make([]map[transport.MemberID][]byte, len(zs))
	for a := range inParts {
		inParts[a] = map[transport.MemberID][]byte{}
	}
	checkParts := map[transport.MemberID][][]uint64{} // [subset index among those held][check·(top+1) + l]
	for _, id := range active {
		b := bundles[id]
		inBytes := len(zs) * held[id] * size
		if want := transformSharesSize(p, level, len(zs), key.T, tr.subsets, id); len(b) != want {
			return nil, g.equivocation(&ErrEquivocation{Session: session, Member: id, Reason: fmt.Sprintf("refresh transform share bundle of %d bytes, want %d", len(b), want)})
		}
		for a := range zs {
			inParts[a][id] = b[a*held[id]*size : (a+1)*held[id]*size]
		}
		rest := b[inBytes:]
		per := make([][]uint64, held[id])
		for s := range per {
			per[s] = make([]uint64, len(checks)*(top+1))
			for x := range per[s] {
				v := binary.LittleEndian.Uint64(rest[8*(s*len(per[s])+x):])
				if v >= moduli[x%(top+1)] {
					return nil, g.equivocation(&ErrEquivocation{Session: session, Member: id, Reason: "refresh transform check share not reduced"})
				}
				per[s][x] = v
			}
		}
		checkParts[id] = per
	}
	vals := make([][]uint64, len(zs))
	for a, z := range zs {
		v, err := combineSubsetShares(g, key, session, z, active, tr.subsets, inParts[a])
		if err != nil {
			return nil, err
		}
		vals[a] = v
	}
	// the checks, per subset
	next := map[transport.MemberID]int{}
	results := make([][]uint64, len(tr.subsets))
	hashes := make([][32]byte, len(tr.subsets))
	sum := make([]uint64, top+1)
	for si, s := range tr.subsets {
		res := make([]uint64, len(checks))
		for x, ch := range checks {
			copy(sum, ch.c0Zero)
			for _, id := range s {
				part := checkParts[id][next[id]][x*(top+1) : (x+1)*(top+1)]
				for l, q := range moduli {
					sum[l] = (sum[l] + part[l]) % q
				}
			}
			res[x] = decodeConstant(p, top, sum)
		}
		for _, id := range s {
			next[id]++
		}
		results[si] = res
		hb := make([]byte, 0, 8*len(res))
		for _, v := range res {
			hb = binary.BigEndian.AppendUint64(hb, v)
		}
		hashes[si] = keccak(hb)
	}
	distinct := map[[32]byte]bool{}
	for _, h := range hashes {
		distinct[h] = true
	}
	if len(distinct) > 1 {
		e := &ErrRefreshDisagree{Session: session, Active: active, Values: len(distinct), Named: certainDeviators(active, key.T, tr.subsets, hashes)}
		for _, id := range e.Named {
			_ = g.equivocation(&ErrEquivocation{Session: session, Member: id, Reason: "its refresh transform check shares move a check (every explanation of the disagreement includes it)"})
		}
		return nil, e
	}
	nc := len(checks) / len(tr.maskers)
	for x, v := range results[0] {
		if v != 0 {
			return nil, g.equivocation(&ErrEquivocation{Session: session, Member: tr.maskers[x/nc],
				Reason: fmt.Sprintf("its refresh transform output masks are not the transform of its input masks (challenge %d of %d)", x%nc+1, nc)})
		}
	}
	return vals, nil
}

// decodeConstant decodes one coefficient of a phase given by its residues
// at level: [t·x]_Q centred, mod t (Lattigo's BGV decoding of that
// coefficient, before the slots' NTT).
func decodeConstant(p *fhe.Params, level int, res []uint64) uint64 {
	ringQ := p.RLWE().RingQ().AtLevel(level)
	Q := ringQ.ModulusAtLevel[level]
	x := new(big.Int)
	tmp, qi, qq, inv := new(big.Int), new(big.Int), new(big.Int), new(big.Int)
	for l, q := range ringQ.ModuliChain()[:level+1] {
		qi.SetUint64(q)
		qq.Quo(Q, qi)
		inv.ModInverse(new(big.Int).Mod(qq, qi), qi)
		tmp.SetUint64(res[l])
		tmp.Mul(tmp, inv).Mod(tmp, qi).Mul(tmp, qq)
		x.Add(x, tmp)
	}
	tm := new(big.Int).SetUint64(p.PlaintextModulus())
	x.Mul(x, tm).Mod(x, Q)
	if x.Cmp(new(big.Int).Rsh(Q, 1)) > 0 {
		x.Sub(x, Q)
	}
	return x.Mod(x, tm).Uint64()
}
