package protocol

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"sync"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/multiparty"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"
	"golang.org/x/crypto/sha3"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
	"github.com/fhegate/fhegate/fhe/pkswitch"
)

// Noise constants (see doc.go, "Noise flooding"). The committee size bound
// (noise.MaxMembers), the ciphertext noise bound B_ct
// (noise.CiphertextBits), the flooding margin (noise.DefaultFloodingBits)
// and the 8σ tail cut (noise.FloodTailSigmas) are fhe/noise's, the same
// bounds the admission rule (policy/eval) checks plans against on the chain
// and in the committee.
const (
	// maxSigmaBits bounds the configured flooding σ (floodingBits) and the
	// re-encryption's σ; the headroom can raise a decryption's σ further, up
	// to maxPlanSigmaBits.
	maxSigmaBits = 48
	// maxPlanSigmaBits keeps the 8σ tail cut inside an int64 (the
	// GaussianSampler is exact up to 2^60).
	maxPlanSigmaBits = 59
)

// MaxReencryptSigmaBits is the largest log2 σ a re-encryption share's
// flooding can have (ReencryptSigmaBits caps the old committee's
// configured σ at it): what a new member assumes of an old committee whose
// configuration it does not know.
const MaxReencryptSigmaBits = maxSigmaBits

// ThresholdKey is a member's t-of-n Shamir share of the collective secret,
// tsk_j = Σ_i P_i(j) over the members' Shamir polynomials (Mouchet et al.,
// ePrint 2022/780). It never leaves the member.
type ThresholdKey struct {
	Params    *fhe.Params
	Epoch     uint64
	ID        transport.MemberID
	N, T      int
	Share     multiparty.ShamirSecretShare
	PKDigest  [32]byte // keccak of the collective public key it belongs to
	Threshold int      // same as T (kept for readability at call sites)
}

var thresholdKeyMagic = []byte("FHEGTSK1")

// MarshalBinary encodes the key for the member's local store.
func (k *ThresholdKey) MarshalBinary() ([]byte, error) {
	share, err := k.Share.MarshalBinary()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Write(thresholdKeyMagic)
	var hdr [8 + 4 + 2 + 2 + 1 + 32]byte
	binary.BigEndian.PutUint64(hdr[0:8], k.Epoch)
	binary.BigEndian.PutUint32(hdr[8:12], uint32(k.ID))
	binary.BigEndian.PutUint16(hdr[12:14], uint16(k.N))
	binary.BigEndian.PutUint16(hdr[14:16], uint16(k.T))
	hdr[16] = byte(k.Params.Preset.ID)
	copy(hdr[17:], k.PKDigest[:])
	b.Write(hdr[:])
	b.Write(share)
	return b.Bytes(), nil
}

// UnmarshalThresholdKey decodes a stored ThresholdKey.
func UnmarshalThresholdKey(b []byte) (*ThresholdKey, error) {
	const hl = 8 + 4 + 2 + 2 + 1 + 32
	if len(b) < len(thresholdKeyMagic)+hl || !bytes.Equal(b[:len(thresholdKeyMagic)], thresholdKeyMagic) {
		return nil, errors.New("protocol: not a threshold key")
	}
	h := b[len(thresholdKeyMagic):]
	k := &ThresholdKey{
		Epoch: binary.BigEndian.Uint64(h[0:8]),
		ID:    transport.MemberID(binary.BigEndian.Uint32(h[8:12])),
		N:     int(binary.BigEndian.Uint16(h[12:14])),
		T:     int(binary.BigEndian.Uint16(h[14:16])),
	}
	k.Threshold = k.T
	p, err := fhe.NewParams(fhe.PresetID(h[16]))
	if err != nil {
		return nil, err
	}
	k.Params = p
	copy(k.PKDigest[:], h[17:hl])
	k.Share = multiparty.NewThresholdizer(p.RLWE()).AllocateThresholdSecretShare()
	if len(h)-hl != k.Share.BinarySize() {
		return nil, fmt.Errorf("protocol: threshold key share of %d bytes, want %d", len(h)-hl, k.Share.BinarySize())
	}
	if err := safe("threshold key", func() error { return k.Share.UnmarshalBinary(h[hl:]) }); err != nil {
		return nil, fmt.Errorf("protocol: threshold key share: %w", err)
	}
	return k, nil
}

// Factorial returns n!.
func Factorial(n int) *big.Int { return pkswitch.Factorial(n) }

// IntegerLagrange returns Δ·λ_j for every j in set, where λ_j is the
// Lagrange coefficient at 0 over the Shamir points in set and Δ = n!
// (Shoup's trick, "Practical Threshold Signatures", EUROCRYPT 2000): the
// products are integers of bounded size, so a combination of shares
// multiplies their flooding noise by a known small factor instead of by a
// full-size residue mod q.
func IntegerLagrange(n int, set []transport.MemberID) (map[transport.MemberID]*big.Int, error) {
	ids := make([]uint32, len(set))
	for i, id := range set {
		ids[i] = uint32(id)
	}
	lag, err := pkswitch.IntegerLagrange(n, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[transport.MemberID]*big.Int, len(lag))
	for j, l := range lag {
		out[transport.MemberID(j)] = l
	}
	return out, nil
}

// LagrangeBound returns max over t-subsets S of {1..n} of Σ_{j∈S} |Δλ_j^S|.
func LagrangeBound(n, t int) (*big.Int, error) {
	if n < 1 || n > noise.MaxMembers || t < 1 || t > n {
		return nil, fmt.Errorf("protocol: committee %d-of-%d outside 1 ≤ t ≤ n ≤ %d", t, n, noise.MaxMembers)
	}
	best := new(big.Int)
	ids := make([]transport.MemberID, n)
	for i := range ids {
		ids[i] = transport.MemberID(i + 1)
	}
	var rec func(start int, cur []transport.MemberID) error
	rec = func(start int, cur []transport.MemberID) error {
		if len(cur) == t {
			l, err := IntegerLagrange(n, cur)
			if err != nil {
				return err
			}
			s := new(big.Int)
			for _, v := range l {
				s.Add(s, new(big.Int).Abs(v))
			}
			if s.Cmp(best) > 0 {
				best = s
			}
			return nil
		}
		for i := start; i < n; i++ {
			if err := rec(i+1, append(cur, ids[i])); err != nil {
				return err
			}
		}
		return nil
	}
	return best, rec(0, nil)
}

// NoisePlan is the decryption level and flooding noise for a committee.
type NoisePlan struct {
	Level         int     // ciphertexts are dropped to this level before sharing
	SigmaBits     float64 // log2 σ_flood of each share's Gaussian (BaseSigmaBits raised by the headroom)
	BaseSigmaBits float64 // log2 of the configured σ = 2^floodingBits·B_ct (re-encryption floods with it)
	FloodingBits  float64 // log2(σ_flood / B_ct) actually achieved
	LogQ          float64 // log2 of the modulus at Level
	CombineBits   float64 // log2 of the worst-case total noise after combining
	HeadroomBits  float64 // log2(Q/2t) − CombineBits (≥ 1)
	DeltaBits     float64 // log2(n!)
	LagrangeBits  float64 // log2 max Σ|Δλ|
	// CoalitionBits is log2 C(n−1, t−1), the largest factor by which a
	// coalition of t−1 members sees an honest share's flooding shrunk
	// (CoalitionAmplification), and RhoBits = SigmaBits − noise.CiphertextBits
	// − CoalitionBits is log2 ρ, the number of the honest flooding's standard
	// deviations that the secret-dependent ciphertext noise is hidden by, in
	// the coalition's view (docs/committee.md, "Flooding against a
	// coalition").
	CoalitionBits  float64
	RhoBits        float64
	RequireRefresh bool // a ciphertext below Level needs a collective refresh first
}

// CoalitionAmplification returns C(n−1, t−1). A coalition C of t−1
// members that combines its own shares with one honest member h's
// decryption share d_h = c1·tsk_h + E_h gets the decryption with the
// Lagrange coefficient λ_h = L_h(0) = Π_{k∈C} k/(k−h) on d_h, so the
// ciphertext noise e it learns is hidden by λ_h·E_h; equivalently, d_h
// reveals e/λ_h + E_h. |1/λ_h| = Π_{k∈C} |h−k|/k is largest for h = n and
// C = {1, …, t−1}, where it is Π_{k<t} (n−k)/k = C(n−1, t−1): the
// honest flooding hides e only σ/C(n−1, t−1)-well, not σ-well.
// TestCoalitionAmplification checks the closed form against every
// (h, C) for several (t, n).
func CoalitionAmplification(n, t int) (*big.Int, error) {
	if n < 1 || n > noise.MaxMembers || t < 1 || t > n {
		return nil, fmt.Errorf("protocol: committee %d-of-%d outside 1 ≤ t ≤ n ≤ %d", t, n, noise.MaxMembers)
	}
	return new(big.Int).Binomial(int64(n-1), int64(t-1)), nil
}

// PlanNoise chooses the lowest level at which t-of-n shares carrying
// Gaussian flooding noise σ = 2^floodingBits · B_ct still combine to a
// correct decryption: (8σ·Σ|Δλ| + Δ·B_ct)·t_p < Q_ℓ/2, Σ|Δλ| the largest over
// t-subsets (LagrangeBound), with ≥ 2 bits of headroom; then raises σ by the
// whole bits of headroom above 2 (at most to 2^59).
func PlanNoise(p *fhe.Params, n, t, floodingBits int) (NoisePlan, error) {
	if p.Scheme() != fhe.SchemeBGV {
		return NoisePlan{}, fmt.Errorf("protocol: threshold decryption is implemented for BGV presets, %s is %v", p.Preset.Name, p.Scheme())
	}
	if floodingBits <= 0 {
		floodingBits = noise.DefaultFloodingBits
	}
	lb, err := LagrangeBound(n, t)
	if err != nil {
		return NoisePlan{}, err
	}
	lbBits := bigLog2(lb)
	amp, err := CoalitionAmplification(n, t)
	if err != nil {
		return NoisePlan{}, err
	}
	coalBits := bigLog2(amp)
	dBits := bigLog2(Factorial(n))
	sigmaBits := float64(noise.CiphertextBits + floodingBits)
	if sigmaBits > maxSigmaBits {
		sigmaBits = maxSigmaBits
	}
	logT := math.Log2(float64(p.PlaintextModulus()))
	logQ := 0.0
	for lvl, q := range p.Q() {
		logQ += math.Log2(float64(q))
		flood := sigmaBits + math.Log2(noise.FloodTailSigmas) + lbBits
		ct := dBits + noise.CiphertextBits
		total := math.Max(flood, ct) + 1
		head := logQ - 1 - logT - total
		if head >= 2 {
			// The lowest level that carries the configured σ keeps shares
			// small; the headroom left above 2 bits raises σ (whole bits,
			// up to 2^59), which only strengthens the flooding.
			base := sigmaBits
			sb := math.Min(sigmaBits+math.Floor(head-2), maxPlanSigmaBits)
			if sb > sigmaBits && sb+math.Log2(noise.FloodTailSigmas)+lbBits > ct {
				flood := sb + math.Log2(noise.FloodTailSigmas) + lbBits
				total = math.Max(flood, ct) + 1
				head = logQ - 1 - logT - total
			} else {
				sb = sigmaBits
			}
			return NoisePlan{Level: lvl, SigmaBits: sb, BaseSigmaBits: base, FloodingBits: sb - noise.CiphertextBits, LogQ: logQ,
				CombineBits: total, HeadroomBits: head, DeltaBits: dBits, LagrangeBits: lbBits,
				CoalitionBits: coalBits, RhoBits: sb - noise.CiphertextBits - coalBits, RequireRefresh: lvl > 0}, nil
		}
	}
	return NoisePlan{}, fmt.Errorf("protocol: %s cannot carry %d bits of flooding for a %d-of-%d committee", p.Preset.Name, floodingBits, t, n)
}

func bigLog2(x *big.Int) float64 {
	if x.Sign() <= 0 {
		return 0
	}
	f, _ := new(big.Float).SetInt(x).Float64()
	return math.Log2(f)
}

// CiphertextDigest is keccak256 of the canonical encoding (= its handle).
func CiphertextDigest(ct *fhe.Ciphertext) ([32]byte, error) {
	h, err := ct.Handle()
	return [32]byte(h), err
}

// DecryptionShare is d_j = c1·tsk_j + e_j at the plan's level (NTT domain).
type DecryptionShare struct {
	Level int
	Value ring.Poly
}

// MarshalBinary encodes a share: level byte, then the limbs little-endian.
func (s DecryptionShare) MarshalBinary() []byte {
	n := s.Value.N()
	out := make([]byte, 1+(s.Level+1)*n*8)
	out[0] = byte(s.Level)
	o := 1
	for i := 0; i <= s.Level; i++ {
		for _, c := range s.Value.Coeffs[i][:n] {
			binary.LittleEndian.PutUint64(out[o:], c)
			o += 8
		}
	}
	return out
}

// UnmarshalDecryptionShare decodes a share at the expected level, checking
// every coefficient is reduced.
func UnmarshalDecryptionShare(p *fhe.Params, level int, b []byte) (DecryptionShare, error) {
	n := p.N()
	if len(b) != 1+(level+1)*n*8 || int(b[0]) != level {
		return DecryptionShare{}, fmt.Errorf("protocol: decryption share: %d bytes / level %d, want level %d", len(b), b0(b), level)
	}
	poly := p.RLWE().RingQ().AtLevel(level).NewPoly()
	o := 1
	for i, q := range p.Q()[:level+1] {
		for k := 0; k < n; k++ {
			c := binary.LittleEndian.Uint64(b[o:])
			if c >= q {
				return DecryptionShare{}, errors.New("protocol: decryption share coefficient not reduced")
			}
			poly.Coeffs[i][k] = c
			o += 8
		}
	}
	return DecryptionShare{Level: level, Value: poly}, nil
}

func b0(b []byte) int {
	if len(b) == 0 {
		return -1
	}
	return int(b[0])
}

// PrepareForDecryption switches ct down to the plan's level by modulus
// switching — up to MaxSwitchRescales rescales, each dividing the noise by
// the prime it drops and adding the rounding floor (≈2^6–2^7), then a limb
// drop for any level left — rather than by discarding limbs only, which
// would keep the noise as it is. Whatever a result carries above
// the floor is thus divided by Q_top-of-ct/Q_ℓ before any share reveals it:
// in particular the soundness slack of an accepted input
// (zkpok.AcceptedNoiseBits, up to 2^41.0 on BGVN13), which reaches a linear
// policy's result unchanged (TestAttackNoisyInputIdentity). Rescales are
// deterministic, so every member prepares the same bytes. It refuses degree
// ≠ 1 and ciphertexts already below the level (they need a collective
// refresh).
func PrepareForDecryption(ev *fhe.Evaluator, plan NoisePlan, ct *fhe.Ciphertext) (*fhe.Ciphertext, error) {
	if ct.Degree() != 1 {
		return nil, fmt.Errorf("protocol: decryption needs a degree-1 ciphertext, got %d", ct.Degree())
	}
	if ct.Level() < plan.Level {
		return nil, fmt.Errorf("%w: ciphertext at level %d, decryption level %d", ErrNeedsRefresh, ct.Level(), plan.Level)
	}
	if ct.Level() == plan.Level {
		return ct, nil
	}
	p := ct.Params()
	if p.Scheme() != fhe.SchemeBGV {
		return nil, fmt.Errorf("protocol: decryption is implemented for BGV presets, %s is %v", p.Preset.Name, p.Scheme())
	}
	// Lattigo's BGV rescale (divide-and-round by the last prime, scale
	// times q^{-1} mod t): no plaintext to encode, deterministic.
	bev := switchEvaluator(p)
	cur := ct.Lattigo()
	for k := 0; k < MaxSwitchRescales && cur.Level() > plan.Level; k++ {
		out := rlwe.NewCiphertext(p.RLWE(), 1, cur.Level()-1)
		if err := safe("modulus switch", func() error { return bev.Rescale(cur, out) }); err != nil {
			return nil, fmt.Errorf("protocol: modulus switch to level %d: %w", plan.Level, err)
		}
		cur = out
	}
	var err error
	if ct, err = fhe.WrapCiphertext(p, cur); err != nil {
		return nil, err
	}
	if ct.Level() == plan.Level {
		return ct, nil
	}
	return ev.DropLevels(ct, ct.Level()-plan.Level)
}

// switchEvaluators caches one key-less BGV evaluator per preset for the
// modulus switch (building one allocates its buffers: ≈ 25 ms on BGVN14).
var switchEvaluators sync.Map // *fhe.Params → *bgv.Evaluator

func switchEvaluator(p *fhe.Params) *bgv.Evaluator {
	if e, ok := switchEvaluators.Load(p); ok {
		return e.(*bgv.Evaluator)
	}
	e, _ := switchEvaluators.LoadOrStore(p, bgv.NewEvaluator(p.BGV(), nil))
	return e.(*bgv.Evaluator)
}

// MaxSwitchRescales bounds the rescales of PrepareForDecryption: two primes
// (≥ 64 bits) take any noise up to 2^71 to the floor, and the rest of the
// way is a free limb drop (on BGVN14 3-of-5 the full switch 8 → 1 would
// cost seven encode-multiply-rescales, ≈50 ms per member on this VM).
// policy.NoiseModel.SwitchRescales is the same number.
const MaxSwitchRescales = 2

// ErrNeedsRefresh is returned for a ciphertext below the decryption level.
var ErrNeedsRefresh = errors.New("protocol: ciphertext needs a collective refresh before decryption")

// GenDecryptionShare computes d_j = c1·tsk_j + e_j, e_j ← D_{Z^N, σ_flood}, for a
// ciphertext already at plan.Level. It reads crypto/rand; call it at most
// once per ciphertext (the share ledger enforces this).
func GenDecryptionShare(key *ThresholdKey, plan NoisePlan, ct *fhe.Ciphertext) (DecryptionShare, error) {
	if ct.Params() != key.Params {
		return DecryptionShare{}, errors.New("protocol: ciphertext and key presets differ")
	}
	if ct.Level() != plan.Level || ct.Degree() != 1 {
		return DecryptionShare{}, fmt.Errorf("protocol: share wants degree 1 at level %d, got degree %d level %d", plan.Level, ct.Degree(), ct.Level())
	}
	c := ct.Lattigo()
	if !c.IsNTT {
		return DecryptionShare{}, errors.New("protocol: ciphertext not in the NTT domain")
	}
	ringQ := key.Params.RLWE().RingQ().AtLevel(plan.Level)
	out := ringQ.NewPoly()
	ringQ.MulCoeffsMontgomery(c.Value[1], key.Share.Q, out)
	fs, err := NewGaussianSampler(plan.SigmaBits)
	if err != nil {
		return DecryptionShare{}, err
	}
	e := ringQ.NewPoly()
	fs.ReadNTT(ringQ, e)
	ringQ.Add(out, e, out)
	return DecryptionShare{Level: plan.Level, Value: out}, nil
}

// CombineSubset decrypts ct from the shares of exactly the members in set
// (|set| = t): Δ·c0 + Σ Δλ_j·d_j = Δ·(c0 + c1·s) + Σ Δλ_j e_j, which decodes
// to Δ·m; the plaintext scale absorbs Δ (mod t). It returns the slot values in
// [0, t).
func CombineSubset(p *fhe.Params, n int, ct *fhe.Ciphertext, set []transport.MemberID, shares map[transport.MemberID]DecryptionShare) ([]uint64, error) {
	level := ct.Level()
	lag, err := IntegerLagrange(n, set)
	if err != nil {
		return nil, err
	}
	ringQ := p.RLWE().RingQ().AtLevel(level)
	acc := ringQ.NewPoly()
	delta := Factorial(n)
	ringQ.MulScalarBigint(ct.Lattigo().Value[0], delta, acc)
	for _, j := range set {
		s, ok := shares[j]
		if !ok || s.Level != level {
			return nil, fmt.Errorf("protocol: no share at level %d from member %d", level, j)
		}
		ringQ.MulScalarBigintThenAdd(s.Value, lag[j], acc)
	}
	tmod := p.PlaintextModulus()
	scale := new(big.Int).SetUint64(ct.Lattigo().Scale.Uint64())
	scale.Mul(scale, delta).Mod(scale, new(big.Int).SetUint64(tmod))
	if scale.Sign() == 0 {
		return nil, errors.New("protocol: Δ is a multiple of the plaintext modulus")
	}
	md := *ct.Lattigo().MetaData
	md.Scale = rlwe.NewScaleModT(scale.Uint64(), tmod)
	return decodeSlots(p, level, md, acc, "decode")
}

// decodeSlots decodes the slot values of a phase acc (NTT domain, at level)
// under the plaintext metadata md, as Lattigo's BGV decoder does; what
// names the step in an error.
func decodeSlots(p *fhe.Params, level int, md rlwe.MetaData, acc ring.Poly, what string) ([]uint64, error) {
	pt, err := rlwe.NewPlaintextAtLevelFromPoly(level, acc)
	if err != nil {
		return nil, err
	}
	pt.MetaData = &md
	out := make([]uint64, p.Slots())
	if err := safe(what, func() error { return bgv.NewEncoder(p.BGV()).Decode(pt, out) }); err != nil {
		return nil, fmt.Errorf("protocol: %s: %w", what, err)
	}
	return out, nil
}

// CombineResult is the outcome of a robust combination.
type CombineResult struct {
	Values []uint64             // decrypted slots in [0, t)
	Good   []transport.MemberID // members whose shares are consistent with Values
	Bad    []transport.MemberID // members whose shares disagree (excluded)
	// Checked reports whether the result was cross-checked (≥ t+1 shares).
	Checked bool
}

// Errors of the robust combination.
var (
	ErrTooFewShares = errors.New("protocol: fewer than t decryption shares")
	ErrAmbiguous    = errors.New("protocol: decryption shares disagree and no consistent majority exists")
)

// RobustCombine decrypts from the shares of any r ≥ t members and identifies
// bad shares, like decoding a Reed–Solomon code: every share is independent
// of the active set, so every t-subset gives a decryption; the answer is the
// value whose consistent support H (members all of whose t-subsets agree) is
// largest and strictly larger than any other value's. With f bad shares this
// identifies them when r ≥ t + 2f, and detects disagreement when r ≥ t + 1.
// Members outside H are returned in Bad.
//
// valid, if not nil, rejects candidate plaintexts that cannot be a correct
// decryption (e.g. a masked verdict must be zero outside slot 0): a
// non-adaptive corruption then cannot tie with the honest value, and f bad
// shares are identified with r ≥ t + f.
func RobustCombine(p *fhe.Params, n, t int, ct *fhe.Ciphertext, shares map[transport.MemberID]DecryptionShare, valid func([]uint64) bool) (CombineResult, error) {
	ids := sortedIDs(shares)
	if len(ids) < t {
		return CombineResult{}, fmt.Errorf("%w: %d of %d", ErrTooFewShares, len(ids), t)
	}
	if len(ids) > t {
		if res, ok, err := combineFast(p, n, t, ct, ids, shares, valid); err != nil || ok {
			return res, err
		}
	}
	tally, err := tallySubsets(p, n, t, ct, ids, shares)
	if err != nil {
		return CombineResult{}, err
	}
	best, bestMask, ok := tally.majority(t, len(ids), valid)
	if !ok {
		return CombineResult{}, ErrAmbiguous
	}
	res := CombineResult{Values: best.vals, Checked: len(ids) > t}
	for k, id := range ids {
		if bestMask&(1<<uint(k)) != 0 {
			res.Good = append(res.Good, id)
		} else {
			res.Bad = append(res.Bad, id)
		}
	}
	return res, nil
}

// combineFast is RobustCombine's fast path for r = len(ids) > t shares (ids
// ascending): S0 = the first t members, and for every other member k, S0
// with its last member replaced by k. Every member is then in a checked
// subset, and a bad share from a member of S0 enters the other subsets with a
// different Lagrange weight (λ_j changes when one other point changes), so
// its plaintext shift cannot be the same in all of them: if these r−t+1
// decryptions agree (and are well-formed), no share is bad and ok is true.
// Otherwise the caller falls through to the full enumeration.
func combineFast(p *fhe.Params, n, t int, ct *fhe.Ciphertext, ids []transport.MemberID, shares map[transport.MemberID]DecryptionShare, valid func([]uint64) bool) (res CombineResult, ok bool, err error) {
	s0 := append([]transport.MemberID(nil), ids[:t]...)
	v0, err := CombineSubset(p, n, ct, s0, shares)
	if err != nil {
		return CombineResult{}, false, err
	}
	agree := valid == nil || valid(v0)
	h0 := hashValues(v0)
	for _, k := range ids[t:] {
		if !agree {
			break
		}
		sk := append(append([]transport.MemberID(nil), ids[:t-1]...), k)
		vk, err := CombineSubset(p, n, ct, sk, shares)
		if err != nil {
			return CombineResult{}, false, err
		}
		agree = hashValues(vk) == h0
	}
	if !agree {
		return CombineResult{}, false, nil
	}
	return CombineResult{Values: v0, Good: ids, Checked: true}, true, nil
}

// outcome is one decrypted value and the t-subsets that decode to it.
type outcome struct {
	vals    []uint64
	members uint64 // union of those subsets, a bitmask over the ids index
	subsets int
}

// subsetTally is the decryption of every t-subset of the shares.
type subsetTally struct {
	byHash     map[[32]byte]*outcome
	order      [][32]byte          // values in order of first appearance
	subsetHash map[uint64][32]byte // subset bitmask → hash of its value
}

// tallySubsets decrypts from every t-subset of ids, in lexicographic order.
func tallySubsets(p *fhe.Params, n, t int, ct *fhe.Ciphertext, ids []transport.MemberID, shares map[transport.MemberID]DecryptionShare) (*subsetTally, error) {
	st := &subsetTally{byHash: map[[32]byte]*outcome{}, subsetHash: map[uint64][32]byte{}}
	var err error
	forSubsets(len(ids), t, func(idx []int) bool {
		set := make([]transport.MemberID, t)
		var mask uint64
		for i, k := range idx {
			set[i] = ids[k]
			mask |= 1 << uint(k)
		}
		var vals []uint64
		vals, err = CombineSubset(p, n, ct, set, shares)
		if err != nil {
			return false
		}
		h := hashValues(vals)
		st.subsetHash[mask] = h
		o, ok := st.byHash[h]
		if !ok {
			o = &outcome{vals: vals}
			st.byHash[h] = o
			st.order = append(st.order, h)
		}
		o.members |= mask
		o.subsets++
		return true
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}

// majority finds, for each valid value, its consistent support — the largest
// member set all of whose t-subsets decode to the value, found by starting
// from the union of agreeing subsets and dropping members until consistent —
// and returns the value whose support (of at least t out of r members) is
// strictly the largest, with that support; ok is false if there is none.
func (st *subsetTally) majority(t, r int, valid func([]uint64) bool) (best *outcome, bestMask uint64, ok bool) {
	bestSize, second := -1, -1
	for _, h := range st.order {
		o := st.byHash[h]
		if valid != nil && !valid(o.vals) {
			continue
		}
		mask := o.members
		for bits.OnesCount64(mask) >= t && !consistent(mask, t, r, st.subsetHash, h) {
			mask = dropWorst(mask, t, r, st.subsetHash, h)
		}
		size := bits.OnesCount64(mask)
		if size < t {
			continue
		}
		if size > bestSize {
			second, bestSize, best, bestMask = bestSize, size, o, mask
		} else if size > second {
			second = size
		}
	}
	return best, bestMask, best != nil && bestSize != second
}

func consistent(mask uint64, t, r int, subsetHash map[uint64][32]byte, h [32]byte) bool {
	ok := true
	forSubsets(r, t, func(idx []int) bool {
		var m uint64
		for _, k := range idx {
			m |= 1 << uint(k)
		}
		if m&mask == m && subsetHash[m] != h {
			ok = false
			return false
		}
		return true
	})
	return ok
}

// dropWorst removes the member of mask that appears in the most disagreeing
// t-subsets within mask.
func dropWorst(mask uint64, t, r int, subsetHash map[uint64][32]byte, h [32]byte) uint64 {
	count := make([]int, r)
	forSubsets(r, t, func(idx []int) bool {
		var m uint64
		for _, k := range idx {
			m |= 1 << uint(k)
		}
		if m&mask == m && subsetHash[m] != h {
			for _, k := range idx {
				count[k]++
			}
		}
		return true
	})
	worst := -1
	for k := 0; k < r; k++ {
		if mask&(1<<uint(k)) != 0 && (worst < 0 || count[k] > count[worst]) {
			worst = k
		}
	}
	return mask &^ (1 << uint(worst))
}

// forSubsets calls f with every k-subset of {0..r-1} in lexicographic order
// until f returns false.
func forSubsets(r, k int, f func([]int) bool) {
	idx := make([]int, k)
	var rec func(start, depth int) bool
	rec = func(start, depth int) bool {
		if depth == k {
			return f(idx)
		}
		for i := start; i <= r-(k-depth); i++ {
			idx[depth] = i
			if !rec(i+1, depth+1) {
				return false
			}
		}
		return true
	}
	rec(0, 0)
}

func hashValues(v []uint64) [32]byte {
	h := sha3.NewLegacyKeccak256()
	var b [8]byte
	for _, x := range v {
		binary.LittleEndian.PutUint64(b[:], x)
		h.Write(b[:])
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}
