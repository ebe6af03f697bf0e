package protocol

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/multiparty"
	"github.com/tuneinsight/lattigo/v6/multiparty/mpbgv"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"
	"github.com/tuneinsight/lattigo/v6/utils/sampling"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/internal/par"
)

// Bounds of a RefreshTransform. The outputs cover a vector input's
// attributes (fhe.MaxVectorWidth); the inputs cover the accumulators of a
// full batch of the widest vectors (fhe.VectorLayout: ⌈S·K'/S⌉ ≤ 64). A
// member's share must also fit one transport message (checked per request,
// see transformShareSize).
const (
	MaxTransformInputs  = 64
	MaxTransformOutputs = fhe.MaxVectorWidth
)

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
	// Active are exactly t members that generate shares (ascending);
	// Receivers (a superset) get the shares and compute the outputs too.
	Active, Receivers []transport.MemberID
	// PublicKey is the collective public key (required): every input is
	// sanitised first.
	PublicKey *fhe.PublicKey
	// NoiseBits, WorstBits are as RefreshRequest's, for every input.
	NoiseBits, WorstBits float64
	// Workers bounds the goroutines that make this member's share and the
	// outputs (one per input or output at a time; ≤ 0: GOMAXPROCS). The
	// outputs are the same bytes for every value (TestRefreshTransformWorkers).
	Workers int
}

// RefreshTransform is the masked-transform collective refresh (Mouchet et
// al., PETS 2021, §IV-D, "masked transform"), generalised to A inputs and K
// outputs: the committee turns ciphertexts of the slot vectors m_1 … m_A at
// some level into fresh top-level ciphertexts of T(m)_1 … T(m)_K, T =
// req.Transform, a public linear map on slot vectors mod t.
//
//  1. Every input is sanitised as Refresh's is (sanitiseFor: one coin toss
//     per input among the receivers, in parallel, sub-session
//     "<Session>/in/<a>"); the shares' session binds every seed, the
//     TransformID and K.
//  2. Each active member j, with its additive share s_j of s (Combiner,
//     Lagrange weights for the active set), runs mpbgv's EncToShare on each
//     input a: a uniform mask M_{j,a} ∈ R_t and the public masked-decryption
//     (e2s) share h_{j,a} = c1_a·s_j − t⁻¹M_{j,a} + e (at the inputs'
//     level), flooded with its own E_{j,a} ← D_{Z,σ_j} exactly as Refresh
//     floods its e2s share (flood: fresh sampler per share, σ_j =
//     2^RefreshShareSigmaBits). It decodes each mask to slots (DecodeRingT
//     with the input's scale, as mpbgv's MaskedTransformProtocol.GenShare),
//     applies T to the A mask vectors, encodes the K results (EncodeRingT,
//     same scale) and makes one shares-to-encryption (s2e) share per output
//     k: −crp_k·s_j + t⁻¹·Enc(T(M_j)_k) + e' at the top level, crp_k drawn
//     from a PRNG keyed by the session, TransformID and k. It sends the A
//     e2s and K s2e shares in one message (issued once through the ledger).
//  3. Every receiver sums the shares per input and per output, computes the
//     public masked values m_a − Σ_j M_{j,a} (EncToShare.GetShare on
//     c0_a + Σ_j h_{j,a}), decodes them, applies T, encodes, lifts to the
//     top level (RingT2Q, NTT) and adds the aggregated s2e share of output
//     k: c0_k = −crp_k·s + t⁻¹·Enc(T(m − ΣM)_k + ΣT(M_j)_k) + e_2 =
//     −crp_k·s + t⁻¹·Enc(T(m)_k) + e_2 by linearity of T, decode and encode
//     (all mod t). Output k is (c0_k, crp_k), with the first (sanitised)
//     input's metadata at the top level.
//
// Every receiver computes the same outputs. The flooding argument is
// Refresh's, per input: what a finaliser learns of e_a is hidden by one
// honest E_{j,a}; the s2e halves carry only Lattigo's fresh 3.2-σ noise
// (mpbgv constructed with no flooding of its own, as newRefreshProtocol),
// which becomes the outputs' noise. The no-room check is Refresh's on the
// inputs' level (ErrRefreshNoRoom before any coin toss or share). A member
// issues one share per (sanitised inputs, TransformID, K, active set,
// epoch): KindRefresh, keyed by transformDigest.
func RefreshTransform(ctx context.Context, g Group, key *ThresholdKey, led Ledger, req TransformRequest) ([]*fhe.Ciphertext, error) {
	p := key.Params
	sigmaBits, err := checkTransform(p, key.T, req)
	if err != nil {
		return nil, err
	}
	ins, session, err := sanitiseInputs(ctx, g, key, req)
	if err != nil {
		return nil, err
	}
	tp, err := newTransformProtocols(p, par.Workers(max(len(ins), req.Outputs), req.Workers))
	if err != nil {
		return nil, err
	}
	level, maxLevel := ins[0].Level(), p.MaxLevel()
	crps := make([]multiparty.KeySwitchCRP, req.Outputs)
	err = par.ForEach(len(crps), tp.workers(), func(w, k int) error {
		var kb [4]byte
		binary.BigEndian.PutUint32(kb[:], uint32(k))
		crsKey := keccak([]byte("fhegate/refresh-transform/crs/v1"), []byte(session), lenPrefixed(req.TransformID), kb[:])
		crs, err := sampling.NewKeyedPRNG(crsKey[:])
		if err != nil {
			return err
		}
		crps[k] = tp[w].s2e.SampleCRP(maxLevel, crs)
		return nil
	})
	if err != nil {
		return nil, err
	}
	shares, err := exchangeShares(ctx, g, transport.TypeRefreshShare, session, req.Active, req.Receivers, "refresh transform", func() ([]byte, error) {
		return led.Issue(KindRefresh, transformDigest(ins, req.TransformID, req.Outputs, req.Active), key.Epoch, session, func() ([]byte, error) {
			return genTransformShare(g, key, tp, ins, crps, req.Transform, req.Active, sigmaBits)
		})
	})
	if err != nil {
		return nil, err
	}
	alloc := func() transformShare {
		return transformShare{p: p, level: level, inputs: len(ins), outputs: req.Outputs}
	}
	agg, err := aggregateShares("refresh transform", req.Active, shares, alloc, nil, tp.aggregate)
	if err != nil {
		return nil, err
	}
	return tp.finalize(ins, crps, agg, req.Transform)
}

// checkTransform validates a request before anything is sent and returns
// log2 σ_j of the flooding (refreshRoom).
func checkTransform(p *fhe.Params, t int, req TransformRequest) (float64, error) {
	if p.Scheme() != fhe.SchemeBGV {
		return 0, errors.New("protocol: refresh transform needs BGV parameters")
	}
	if len(req.Active) != t {
		return 0, fmt.Errorf("protocol: refresh transform needs exactly t=%d active members, got %d", t, len(req.Active))
	}
	if a := len(req.Inputs); a < 1 || a > MaxTransformInputs {
		return 0, fmt.Errorf("protocol: refresh transform of %d inputs (1 … %d)", a, MaxTransformInputs)
	}
	if req.Outputs < 1 || req.Outputs > MaxTransformOutputs {
		return 0, fmt.Errorf("protocol: refresh transform into %d outputs (1 … %d)", req.Outputs, MaxTransformOutputs)
	}
	if req.Transform == nil {
		return 0, errors.New("protocol: refresh transform without a transform")
	}
	if req.PublicKey == nil {
		return 0, errors.New("protocol: sanitisation needs the collective public key")
	}
	var first *rlwe.Ciphertext
	for a, ct := range req.Inputs {
		if ct == nil || ct.Lattigo() == nil {
			return 0, fmt.Errorf("protocol: refresh transform input %d is nil", a)
		}
		if ct.Degree() != 1 {
			return 0, fmt.Errorf("protocol: refresh transform input %d has degree %d, needs 1", a, ct.Degree())
		}
		in := ct.Lattigo()
		if !in.IsNTT {
			return 0, fmt.Errorf("protocol: refresh transform input %d not in the NTT domain", a)
		}
		if first == nil {
			first = in
			continue
		}
		if ct.Level() != first.Level() {
			return 0, fmt.Errorf("protocol: refresh transform input %d at level %d, input 0 at %d", a, ct.Level(), first.Level())
		}
		if !in.Scale.Equal(first.Scale) {
			return 0, fmt.Errorf("protocol: refresh transform input %d has scale %v, input 0 %v", a, in.Scale.Uint64(), first.Scale.Uint64())
		}
	}
	sigmaBits, err := refreshRoom(p, t, first.Level(), req.NoiseBits, req.WorstBits, "refresh transform")
	if err != nil {
		return 0, err
	}
	if n := transformShareSize(p, first.Level(), len(req.Inputs), req.Outputs); n > transport.DefaultMaxMessage {
		return 0, fmt.Errorf("protocol: refresh transform share of %d inputs at level %d and %d outputs is %d bytes, beyond a message's %d",
			len(req.Inputs), first.Level(), req.Outputs, n, transport.DefaultMaxMessage)
	}
	return sigmaBits, nil
}

// sanitiseInputs runs one coin toss per input (concurrently, sub-session
// "<Session>/in/<a>") and returns the sanitised inputs and the session of
// the share round, which binds every toss's session (and so its seed), the
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
	parts := [][]byte{[]byte("fhegate/refresh-transform/session/v1"), lenPrefixed(req.TransformID), binary.BigEndian.AppendUint32(nil, uint32(req.Outputs))}
	for _, s := range sessions {
		parts = append(parts, lenPrefixed(s))
	}
	h := keccak(parts...)
	return ins, fmt.Sprintf("%s/%x", req.Session, h[:6]), nil
}

// transformDigest is the ledger key of a refresh-transform share: every
// sanitised input's ShareDigest, the TransformID, the output count and the
// active set.
func transformDigest(ins []*fhe.Ciphertext, transformID string, outputs int, active []transport.MemberID) [32]byte {
	parts := [][]byte{[]byte("fhegate/refresh-transform/ledger/v1"), binary.BigEndian.AppendUint32(nil, uint32(len(ins)))}
	for _, ct := range ins {
		d := ShareDigest(ct)
		parts = append(parts, d[:])
	}
	parts = append(parts, lenPrefixed(transformID), binary.BigEndian.AppendUint32(nil, uint32(outputs)))
	ids := memberIDBytes(active)
	return keccak(append(parts, ids)...)
}

func lenPrefixed(s string) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...)
}

// transformProtocols are one transformProtocol per worker: the A inputs'
// and the K outputs' polynomials of a share, of the aggregation and of the
// finalisation are independent, so worker w takes them one at a time with
// its own protocol (Lattigo's keep scratch buffers and samplers), each
// writing only its own input's or output's slot. Every piece is computed
// as the one-worker loop computes it, so the outputs are the same bytes for
// any number of workers (the shares' masks and noise are fresh randomness
// either way).
type transformProtocols []*transformProtocol

// newTransformProtocols returns w ≥ 1 protocols.
func newTransformProtocols(p *fhe.Params, w int) (transformProtocols, error) {
	tps := make(transformProtocols, max(w, 1))
	for i := range tps {
		var err error
		if tps[i], err = newTransformProtocol(p); err != nil {
			return nil, err
		}
	}
	return tps, nil
}

func (tps transformProtocols) workers() int { return len(tps) }

// transformProtocol is mpbgv's EncToShare and ShareToEnc protocols with no
// flooding of their own (as newRefreshProtocol: Lattigo's KeySwitchProtocol
// then samples the fresh-encryption noise, σ = NoiseFreshSK, for both
// halves; the e2s shares get the large flooding from flood) and a BGV
// encoder. Not safe for concurrent use.
type transformProtocol struct {
	p   *fhe.Params
	e2s mpbgv.EncToShareProtocol
	s2e mpbgv.ShareToEncProtocol
	ecd *bgv.Encoder
}

func newTransformProtocol(p *fhe.Params) (*transformProtocol, error) {
	noise := ring.DiscreteGaussian{Sigma: 0, Bound: 0}
	e2s, err := mpbgv.NewEncToShareProtocol(p.BGV(), noise)
	if err != nil {
		return nil, err
	}
	s2e, err := mpbgv.NewShareToEncProtocol(p.BGV(), noise)
	if err != nil {
		return nil, err
	}
	return &transformProtocol{p: p, e2s: e2s, s2e: s2e, ecd: bgv.NewEncoder(p.BGV())}, nil
}

// apply decodes the A masks (R_t polynomials) to slot vectors with scale,
// applies transform and returns the K outputs encoded back into R_t; the
// decodings and encodings are spread over the workers.
func (tps transformProtocols) apply(masks []ring.Poly, scale rlwe.Scale, outputs int, transform func(in, out [][]uint64) error) ([]ring.Poly, error) {
	p := tps[0].p
	slots := p.Slots()
	in := make([][]uint64, len(masks))
	out := make([][]uint64, outputs)
	defer func() {
		for _, v := range append(in, out...) {
			clear(v)
		}
	}()
	err := par.ForEach(len(masks), tps.workers(), func(w, a int) error {
		in[a] = make([]uint64, slots)
		if err := tps[w].ecd.DecodeRingT(masks[a], scale, in[a]); err != nil {
			return fmt.Errorf("protocol: refresh transform: decode: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for k := range out {
		out[k] = make([]uint64, slots)
	}
	if err := safe("refresh transform: transform", func() error { return transform(in, out) }); err != nil {
		return nil, err
	}
	res := make([]ring.Poly, outputs)
	err = par.ForEach(outputs, tps.workers(), func(w, k int) error {
		if len(out[k]) != slots {
			return fmt.Errorf("protocol: refresh transform: output %d has %d slots, want %d", k, len(out[k]), slots)
		}
		res[k] = p.BGV().RingT().NewPoly()
		if err := tps[w].ecd.EncodeRingT(out[k], scale, res[k]); err != nil {
			return fmt.Errorf("protocol: refresh transform: encode: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// genTransformShare is this member's refresh-transform share (step 2 of
// RefreshTransform): A flooded e2s shares at the inputs' level and K s2e
// shares at the top level, each input's and each output's on one of the
// workers. sigmaBits = 0 floods nothing (tests only).
func genTransformShare(g Group, key *ThresholdKey, tps transformProtocols, ins []*fhe.Ciphertext, crps []multiparty.KeySwitchCRP, transform func(in, out [][]uint64) error, activeIDs []transport.MemberID, sigmaBits float64) ([]byte, error) {
	p := key.Params
	add, err := additiveShare(g, key, activeIDs)
	if err != nil {
		return nil, err
	}
	defer zero(add)
	level := ins[0].Level()
	sh := transformShare{p: p, level: level, inputs: len(ins), outputs: len(crps),
		e2s: make([]multiparty.KeySwitchShare, len(ins)), s2e: make([]multiparty.KeySwitchShare, len(crps))}
	masks := make([]ring.Poly, len(ins))
	defer func() {
		for _, m := range masks {
			for _, c := range m.Coeffs {
				clear(c)
			}
		}
	}()
	err = par.ForEach(len(ins), tps.workers(), func(w, a int) error {
		tp := tps[w]
		h := tp.e2s.AllocateShare(level)
		mask := mpbgv.NewAdditiveShare(p.BGV())
		tp.e2s.GenShare(add, ins[a].Lattigo(), &mask, &h)
		masks[a] = mask.Value
		sh.e2s[a] = h
		return flood(p, level, sigmaBits, h.Value)
	})
	if err != nil {
		return nil, err
	}
	tm, err := tps.apply(masks, ins[0].Lattigo().Scale, len(crps), transform)
	if err != nil {
		return nil, err
	}
	err = par.ForEach(len(crps), tps.workers(), func(w, k int) error {
		c := tps[w].s2e.AllocateShare(p.MaxLevel())
		err := tps[w].s2e.GenShare(add, crps[k], multiparty.AdditiveShare{Value: tm[k]}, &c)
		for _, row := range tm[k].Coeffs {
			clear(row)
		}
		sh.s2e[k] = c
		return err
	})
	if err != nil {
		return nil, err
	}
	return sh.MarshalBinary(), nil
}

// aggregate sums two refresh-transform shares of the same shape, each
// polynomial on one of the workers.
func (tps transformProtocols) aggregate(a, b transformShare, out *transformShare) error {
	if len(a.e2s) != len(b.e2s) || len(a.s2e) != len(b.s2e) {
		return errors.New("share counts differ")
	}
	ne := len(a.e2s)
	return par.ForEach(ne+len(a.s2e), tps.workers(), func(w, i int) error {
		if i < ne {
			return tps[w].e2s.AggregateShares(a.e2s[i], b.e2s[i], &out.e2s[i])
		}
		k := i - ne
		return tps[w].s2e.AggregateShares(a.s2e[k], b.s2e[k], &out.s2e[k])
	})
}

// finalize is step 3 of RefreshTransform: the K outputs from the
// aggregated shares, each input's masked value and each output on one of
// the workers.
func (tps transformProtocols) finalize(ins []*fhe.Ciphertext, crps []multiparty.KeySwitchCRP, agg transformShare, transform func(in, out [][]uint64) error) ([]*fhe.Ciphertext, error) {
	p := tps[0].p
	masked := make([]ring.Poly, len(ins))
	err := par.ForEach(len(ins), tps.workers(), func(w, a int) error {
		sh := mpbgv.NewAdditiveShare(p.BGV())
		err := safe("refresh transform finalize", func() error {
			tps[w].e2s.GetShare(nil, agg.e2s[a], ins[a].Lattigo(), &sh)
			return nil
		})
		masked[a] = sh.Value
		return err
	})
	if err != nil {
		return nil, err
	}
	tm, err := tps.apply(masked, ins[0].Lattigo().Scale, len(crps), transform)
	if err != nil {
		return nil, err
	}
	maxLevel := p.MaxLevel()
	outs := make([]*fhe.Ciphertext, len(crps))
	err = par.ForEach(len(crps), tps.workers(), func(w, k int) error {
		tp := tps[w]
		ringQ := p.RLWE().RingQ().AtLevel(maxLevel)
		out := rlwe.NewCiphertext(p.RLWE(), 1, maxLevel)
		*out.MetaData = *ins[0].Lattigo().MetaData
		if err := safe("refresh transform finalize", func() error {
			c0 := ringQ.NewPoly()
			tp.ecd.RingT2Q(maxLevel, true, tm[k], c0)
			ringQ.NTT(c0, c0)
			ringQ.Add(c0, agg.s2e[k].Value, c0)
			return tp.s2e.GetEncryption(multiparty.KeySwitchShare{Value: c0}, crps[k], out)
		}); err != nil {
			return err
		}
		ct, err := fhe.WrapCiphertext(p, out)
		outs[k] = ct
		return err
	})
	if err != nil {
		return nil, err
	}
	return outs, nil
}

// transformShare is one member's refresh-transform message: A e2s shares at
// level and K s2e shares at the top level. Its wire form is a 4-byte header
// (A, K: uint16 big-endian) followed by the A then the K polynomials, each
// as a DecryptionShare (level byte, reduced little-endian coefficients).
// p, level, inputs and outputs are the shape the decoder expects (set by
// the allocator before UnmarshalBinary).
type transformShare struct {
	p               *fhe.Params
	level           int
	inputs, outputs int
	e2s, s2e        []multiparty.KeySwitchShare
}

// transformShareSize is the wire size of a share of this shape.
func transformShareSize(p *fhe.Params, level, inputs, outputs int) int {
	return 4 + inputs*(1+(level+1)*p.N()*8) + outputs*(1+(p.MaxLevel()+1)*p.N()*8)
}

func (s transformShare) MarshalBinary() []byte {
	out := make([]byte, 4, transformShareSize(s.p, s.level, len(s.e2s), len(s.s2e)))
	binary.BigEndian.PutUint16(out, uint16(len(s.e2s)))
	binary.BigEndian.PutUint16(out[2:], uint16(len(s.s2e)))
	for _, h := range s.e2s {
		out = append(out, DecryptionShare{Level: h.Level(), Value: h.Value}.MarshalBinary()...)
	}
	for _, c := range s.s2e {
		out = append(out, DecryptionShare{Level: c.Level(), Value: c.Value}.MarshalBinary()...)
	}
	return out
}

// UnmarshalBinary decodes a share of the receiver's shape: both counts must
// equal the request's and the length must be exact before anything is
// allocated; every polynomial must be at its level (e2s at the inputs',
// s2e at the top) with reduced coefficients.
func (s *transformShare) UnmarshalBinary(b []byte) error {
	if s.p == nil {
		return errors.New("protocol: refresh transform share: no expected shape")
	}
	if len(b) < 4 {
		return fmt.Errorf("protocol: refresh transform share of %d bytes", len(b))
	}
	a, k := int(binary.BigEndian.Uint16(b)), int(binary.BigEndian.Uint16(b[2:]))
	if a != s.inputs || k != s.outputs {
		return fmt.Errorf("protocol: refresh transform share has %d e2s and %d s2e shares, want %d and %d", a, k, s.inputs, s.outputs)
	}
	if want := transformShareSize(s.p, s.level, a, k); len(b) != want {
		return fmt.Errorf("protocol: refresh transform share of %d bytes, want %d", len(b), want)
	}
	n := s.p.N()
	o := 4
	s.e2s, s.s2e = make([]multiparty.KeySwitchShare, 0, a), make([]multiparty.KeySwitchShare, 0, k)
	for i := range a {
		sz := 1 + (s.level+1)*n*8
		d, err := UnmarshalDecryptionShare(s.p, s.level, b[o:o+sz])
		if err != nil {
			return fmt.Errorf("protocol: refresh transform share: e2s share %d: %w", i, err)
		}
		s.e2s = append(s.e2s, multiparty.KeySwitchShare{Value: d.Value})
		o += sz
	}
	maxLevel := s.p.MaxLevel()
	for i := range k {
		sz := 1 + (maxLevel+1)*n*8
		d, err := UnmarshalDecryptionShare(s.p, maxLevel, b[o:o+sz])
		if err != nil {
			return fmt.Errorf("protocol: refresh transform share: s2e share %d: %w", i, err)
		}
		s.s2e = append(s.s2e, multiparty.KeySwitchShare{Value: d.Value})
		o += sz
	}
	return nil
}
