package consensus_test

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	. "github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/examples"
)

// packFixture is a non-serving test committee with helpers to place inputs
// in every member's store directly (the upload path and its proofs are
// tested elsewhere; packing must hold for whatever an accepted upload is).
type packFixture struct {
	t   *testing.T
	lc  *local.Committee
	p   *fhe.Params
	enc *fhe.Encryptor
}

// newPackFixture starts an n=3, t=2 committee on InsecureBGVN10 whose
// members check that every refresh they run is at a level with room for its
// flooding (floorChecker).
func newPackFixture(t *testing.T) *packFixture {
	return newPackFixtureN(t, 3)
}

// newPackFixtureN is newPackFixture with n members (t = 2).
func newPackFixtureN(t *testing.T, n int) *packFixture {
	p, err := fhe.NewParams(fhetest.InsecureBGVN10)
	require.NoError(t, err)
	fc := newFloorChecker(p)
	lc := startTestKnobs(t, n, 2, false, func(uint32) TestingKnobs { return fc.knobs() })
	t.Cleanup(func() { fc.check(t, 0) })
	return &packFixture{t: t, lc: lc, p: lc.Member(1).Params(), enc: fhe.NewEncryptor(lc.Keys)}
}

// put stores ct on every live member and returns its handle.
func (f *packFixture) put(ct *fhe.Ciphertext) fhe.Handle {
	var h fhe.Handle
	for _, m := range f.lc.Live() {
		var err error
		h, err = m.Store().PutCiphertext(ct)
		require.NoError(f.t, err)
	}
	return h
}

// replicated encrypts v in every slot (what an honest client sends).
func (f *packFixture) replicated(v int64) fhe.Handle {
	vals := make([]int64, f.p.Slots())
	for i := range vals {
		vals[i] = v
	}
	ct, err := f.enc.EncryptInts(vals)
	require.NoError(f.t, err)
	return f.put(ct)
}

// packedReq is a product-sum request over replicated inputs with its
// plaintext reference.
func (f *packFixture) packedReq(k int, vals ...int64) testReq {
	hs := make([]fhe.Handle, len(vals))
	for j, v := range vals {
		hs[j] = f.replicated(v)
	}
	r := f.lc.Chain.Post(chainio.Request{ID: [32]byte{0xbb, byte(k), byte(k >> 8)}, PolicyID: circuit.PolicyProductSum, Kind: chainio.KindPolicy, Inputs: hs})
	return testReq{req: r, want: circuit.ProductSum{}.Reference(f.p, vals), vals: vals}
}

// onAll runs f on every live member at once and returns each one's
// verdicts and error, in member order.
func (f *packFixture) onAll(run func(m *Member) ([]*chainio.Verdict, error)) ([][]*chainio.Verdict, []error) {
	ms := f.lc.Live()
	out := make([][]*chainio.Verdict, len(ms))
	errs := make([]error, len(ms))
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Add(1)
		go func() { defer wg.Done(); out[i], errs[i] = run(m) }()
	}
	wg.Wait()
	return out, errs
}

// processAll runs the batch on every live member at once (onAll).
func (f *packFixture) processAll(b chainio.PackedBatch) ([][]*chainio.Verdict, []error) {
	return f.onAll(func(m *Member) ([]*chainio.Verdict, error) { return m.ProcessPacked(context.Background(), b) })
}

// process runs the batch on every live member at once and checks that they
// all return the same verdicts; it returns member 1's.
func (f *packFixture) process(b chainio.PackedBatch) []*chainio.Verdict {
	ms := f.lc.Live()
	out, errs := f.processAll(b)
	for i := range ms {
		require.NoError(f.t, errs[i], "member %d", ms[i].ID())
		require.Len(f.t, out[i], len(b.Requests))
		for s := range out[i] {
			require.Equal(f.t, out[0][s].Result, out[i][s].Result, "slot %d, member %d", s, ms[i].ID())
		}
	}
	return out[0]
}

// checkVerdicts compares every verdict with its request's plaintext
// reference and posts the batch to the in-memory chain.
func (f *packFixture) checkVerdicts(reqs []testReq, vs []*chainio.Verdict) {
	for s, r := range reqs {
		require.Equal(f.t, r.req.ID, vs[s].RequestID)
		require.Equal(f.t, new(big.Int).SetUint64(r.want), vs[s].Result, "slot %d (inputs %v)", s, r.vals)
	}
	b := vs[0].Batch
	require.NotNil(f.t, b)
	require.NoError(f.t, f.lc.Chain.SubmitVerdictBatch(context.Background(), b.PolicyID, b.ResultDigest, b.Epoch, b.Items, b.Signature, b.Signers))
	for _, r := range reqs {
		v, ok := f.lc.Chain.Verdict(r.req.ID)
		require.True(f.t, ok)
		require.Equal(f.t, new(big.Int).SetUint64(r.want), v.Result)
	}
}

func batchOf(name string, reqs []testReq) chainio.PackedBatch {
	b := chainio.PackedBatch{PolicyID: circuit.PolicyProductSum, Session: name}
	for _, r := range reqs {
		b.Requests = append(b.Requests, r.req)
	}
	return b
}

// TestPackedVerdicts: 80 product-sum requests on random inputs packed into
// one ciphertext set, evaluated once and decrypted together; every verdict
// equals its plaintext reference on every member, one signature covers the
// batch and the chain accepts it. The stored verdicts point at the batch.
func TestPackedVerdicts(t *testing.T) {
	f := newPackFixture(t)
	r := rand.New(rand.NewPCG(13, 80))
	var reqs []testReq
	for k := range 80 {
		reqs = append(reqs, f.packedReq(k, r.Int64N(200)-100, r.Int64N(200)-100, r.Int64N(50)))
	}
	issued0 := f.lc.Member(1).Status().SharesIssued
	vs := f.process(batchOf("test/pack/80", reqs))
	f.checkVerdicts(reqs, vs)
	// One decryption share for the whole batch (plus at most one refresh —
	// a mask and a share bundle — per packed input and one for a final
	// refresh before the mask), not one per request.
	require.LessOrEqual(t, f.lc.Member(1).Status().SharesIssued-issued0, 1+2*3+2*1)
	sv, ok := f.lc.Member(2).StoredVerdict(reqs[5].req.ID)
	require.True(t, ok)
	require.NotNil(t, sv.Batch)
	require.Equal(t, vs[0].Batch.Root(), sv.Batch.Root())
	// The chain refuses a batch signature over other results.
	b := *vs[0].Batch
	b.Items = append(b.Items[:0:0], b.Items...)
	b.Items[0].Result = new(big.Int).Add(b.Items[0].Result, big.NewInt(1))
	require.ErrorIs(t, f.lc.Chain.SubmitVerdictBatch(context.Background(), b.PolicyID, b.ResultDigest, b.Epoch, b.Items, b.Signature, b.Signers), local.ErrVerdictRejected)
}

// maxNoiseInput encrypts v in every slot and adds to c0 a noise polynomial
// whose every coefficient is ±2^⌊AcceptedInputNoiseBits⌋ — the worst noise an
// input proof accepts (fhe/zkpok, "Soundness slack").
func (f *packFixture) maxNoiseInput(v int64) fhe.Handle {
	vals := make([]int64, f.p.Slots())
	for i := range vals {
		vals[i] = v
	}
	return f.maxNoiseSlots(vals)
}

// maxNoiseSlots is maxNoiseInput for the slot vector vals.
func (f *packFixture) maxNoiseSlots(vals []int64) fhe.Handle {
	ct, err := f.enc.EncryptInts(vals)
	require.NoError(f.t, err)
	bits, err := circuit.AcceptedInputNoiseBits(f.p)
	require.NoError(f.t, err)
	bound := uint64(1) << uint(math.Floor(bits))
	rq := f.p.RLWE().RingQ().AtLevel(ct.Level())
	e := rq.NewPoly()
	for i, q := range rq.ModuliChain()[:ct.Level()+1] {
		rs := rand.New(rand.NewPCG(7, 7)) // same signs on every limb: one integer polynomial
		for j := range e.Coeffs[i] {
			if rs.IntN(2) == 0 {
				e.Coeffs[i][j] = bound % q
			} else {
				e.Coeffs[i][j] = q - bound%q
			}
		}
	}
	rq.NTT(e, e)
	c0 := ct.Lattigo().Value[0]
	rq.Add(c0, e, c0)
	return f.put(ct)
}

// TestPackedCrossTalk is the cross-talk attack: request 3 encrypts random
// values in EVERY slot (it tries to write into the other requests' slots),
// and request 7's first input carries the worst noise an input proof
// accepts (a noise overflow at the mask level would corrupt every slot of
// the batch). No other request's verdict changes: every verdict equals the
// plaintext reference of its own slot.
func TestPackedCrossTalk(t *testing.T) {
	f := newPackFixture(t)
	r := rand.New(rand.NewPCG(13, 3))
	var reqs []testReq
	for k := range 16 {
		a, b := r.Int64N(200)-100, r.Int64N(200)-100
		switch k {
		case 3:
			in := make([]fhe.Handle, 2)
			for j := range in {
				vals := fhetest.RandInts(r, f.p.Slots(), 30000)
				ct, err := f.enc.EncryptInts(vals)
				require.NoError(t, err)
				in[j] = f.put(ct)
				if j == 0 {
					a = vals[k]
				} else {
					b = vals[k]
				}
			}
			req := f.lc.Chain.Post(chainio.Request{ID: [32]byte{0xbb, byte(k)}, PolicyID: circuit.PolicyProductSum, Kind: chainio.KindPolicy, Inputs: in})
			reqs = append(reqs, testReq{req: req, want: circuit.ProductSum{}.Reference(f.p, []int64{a, b}), vals: []int64{a, b}})
		case 7:
			in := []fhe.Handle{f.maxNoiseInput(a), f.replicated(b)}
			req := f.lc.Chain.Post(chainio.Request{ID: [32]byte{0xbb, byte(k)}, PolicyID: circuit.PolicyProductSum, Kind: chainio.KindPolicy, Inputs: in})
			reqs = append(reqs, testReq{req: req, want: circuit.ProductSum{}.Reference(f.p, []int64{a, b}), vals: []int64{a, b}})
		default:
			reqs = append(reqs, f.packedReq(k, a, b))
		}
	}
	f.checkVerdicts(reqs, f.process(batchOf("test/pack/crosstalk", reqs)))
}

// TestPackedBatchRejects: malformed batches fail before any work.
func TestPackedBatchRejects(t *testing.T) {
	p, err := fhe.NewParams(fhetest.InsecureBGVN10)
	require.NoError(t, err)
	h := fhe.Handle{1}
	ok := chainio.Request{ID: [32]byte{1}, PolicyID: circuit.PolicyProductSum, Kind: chainio.KindPolicy, Inputs: []fhe.Handle{h, h}}
	for name, b := range map[string]chainio.PackedBatch{
		"empty":         {PolicyID: circuit.PolicyProductSum},
		"other policy":  {PolicyID: circuit.PolicyDeep, Requests: []chainio.Request{ok}},
		"crdt":          {PolicyID: circuit.PolicyProductSum, Requests: []chainio.Request{{ID: [32]byte{2}, PolicyID: circuit.PolicyProductSum, Kind: chainio.KindCRDT, Inputs: ok.Inputs}}},
		"width differs": {PolicyID: circuit.PolicyProductSum, Requests: []chainio.Request{ok, {ID: [32]byte{2}, PolicyID: circuit.PolicyProductSum, Kind: chainio.KindPolicy, Inputs: []fhe.Handle{h}}}},
		"duplicate":     {PolicyID: circuit.PolicyProductSum, Requests: []chainio.Request{ok, ok}},
		"no inputs":     {PolicyID: circuit.PolicyProductSum, Requests: []chainio.Request{{ID: [32]byte{3}, PolicyID: circuit.PolicyProductSum, Kind: chainio.KindPolicy}}},
		"too many":      {PolicyID: circuit.PolicyProductSum, Requests: make([]chainio.Request, p.Slots()+1)},
	} {
		require.ErrorIs(t, b.Check(p), chainio.ErrBadBatch, name)
	}
	require.NoError(t, (&chainio.PackedBatch{PolicyID: circuit.PolicyProductSum, Requests: []chainio.Request{ok}}).Check(p))
}

// kycFixture is a committee on the deep test preset with a compiled policy
// (the shipped KYC/AML one for newKYCFixture) registered under id (plan:
// its compiled plan), whose members check every refresh's level (fc).
type kycFixture struct {
	*packFixture
	id   [32]byte
	plan *policy.Plan
	fc   *floorChecker
}

func newKYCFixture(t *testing.T) *kycFixture {
	spec, err := examples.Get("kyc_aml")
	require.NoError(t, err)
	return newPolicyFixture(t, [32]byte{0xc0, 0x0c}, spec, nil)
}

// newPolicyFixture starts an n=3, t=2 committee on the deep test preset
// with spec registered under id; knobs, if set, adds member id's test
// hooks to the floor checker's.
func newPolicyFixture(t *testing.T, id [32]byte, spec []byte, knobs func(id uint32, k *TestingKnobs)) *kycFixture {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	circuits := circuit.NewPolicyCircuits(fhetest.InsecureBGVN10Deep)
	fc := newFloorChecker(fhe.MustParams(fhetest.InsecureBGVN10Deep))
	lc, err := local.Start(ctx, local.Options{N: 3, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10Deep", Rotations: []int{1},
		RoundTimeout: 20 * time.Second, Circuits: circuits, Log: zaptest.NewLogger(t),
		MemberKnobs: func(mid uint32) TestingKnobs {
			k := fc.knobs()
			if knobs != nil {
				knobs(mid, &k)
			}
			return k
		}})
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	f := &packFixture{t: t, lc: lc, p: lc.Member(1).Params(), enc: fhe.NewEncryptor(lc.Keys)}
	require.NoError(t, circuits.Register(id, spec))
	plan, err := policy.CompileWith(spec, circuit.PolicyOptions(fhetest.InsecureBGVN10Deep))
	require.NoError(t, err)
	return &kycFixture{packFixture: f, id: id, plan: plan, fc: fc}
}

// ref is the plan's plaintext verdict on one request's attribute values.
func (f *kycFixture) ref(vals []int64) uint64 {
	col := make([][]int64, len(vals))
	for j, v := range vals {
		col[j] = []int64{v}
	}
	out, err := f.plan.EvalPlain(col)
	require.NoError(f.t, err)
	return mod(out[0], f.p.PlaintextModulus())
}

// kycVals are two in-range values per KYC/AML attribute.
var kycVals = [8][2]int64{{17, 40}, {7, 12}, {0, 1}, {0, 3}, {3, 15}, {1, 7}, {2, 15}, {0, 3}}

// TestPackedPolicyPlan packs requests of a compiled policy plan (the
// shipped KYC/AML example, policy/eval) on the deep test preset: every
// packed verdict equals the plan's plaintext reference.
func TestPackedPolicyPlan(t *testing.T) {
	kf := newKYCFixture(t)
	f, lc, id, plan, fc := kf.packFixture, kf.lc, kf.id, kf.plan, kf.fc
	vals := kycVals
	var pool [8][2]fhe.Handle
	for j := range vals {
		for v := range vals[j] {
			pool[j][v] = f.replicated(vals[j][v])
		}
	}
	var reqs []testReq
	for k := range 12 {
		pattern := (k * 37) & 0xff
		hs := make([]fhe.Handle, 8)
		col := make([][]int64, 8)
		for j := range hs {
			hs[j] = pool[j][(pattern>>uint(j))&1]
			col[j] = []int64{vals[j][(pattern>>uint(j))&1]}
		}
		r := lc.Chain.Post(chainio.Request{ID: [32]byte{0xcc, byte(k)}, PolicyID: id, Kind: chainio.KindPolicy, Inputs: hs})
		reqs = append(reqs, testReq{req: r, want: kf.ref(col2vals(col))})
	}
	b := chainio.PackedBatch{PolicyID: id, Session: "test/pack/kyc"}
	for _, r := range reqs {
		b.Requests = append(b.Requests, r.req)
	}
	f.checkVerdicts(reqs, f.process(b))
	// Every member refreshed the 8 packed inputs and the plan's refresh
	// points, each at a level with room for its flooding.
	fc.check(t, 3*(8+plan.Counts.Refreshes))
}

// TestPackedMemberKilled: a member of a 2-of-4 committee dies as the batch
// starts and never answers (the attack: members stop answering); the three
// survivors — max(t+1, 2t−1), enough to cross-check — finish the batch:
// packed-input refreshes, digest, decryption, signature, with every verdict
// equal to its reference. (A kill at a chosen later phase is not covered
// here.)
func TestPackedMemberKilled(t *testing.T) {
	f := newPackFixtureN(t, 4)
	r := rand.New(rand.NewPCG(13, 9))
	var reqs []testReq
	for k := range 20 {
		reqs = append(reqs, f.packedReq(k, r.Int64N(200)-100, r.Int64N(200)-100))
	}
	b := batchOf("test/pack/kill", reqs)
	survivors := []*Member{f.lc.Member(1), f.lc.Member(2), f.lc.Member(4)}
	out := make([][]*chainio.Verdict, len(survivors))
	errs := make([]error, len(survivors))
	var wg sync.WaitGroup
	for i, m := range survivors {
		wg.Add(1)
		go func() { defer wg.Done(); out[i], errs[i] = m.ProcessPacked(context.Background(), b) }()
	}
	f.lc.Kill(3)
	wg.Wait()
	for i := range survivors {
		require.NoError(t, errs[i])
	}
	f.checkVerdicts(reqs, out[0])
}

func col2vals(col [][]int64) []int64 {
	out := make([]int64, len(col))
	for j, c := range col {
		out[j] = c[0]
	}
	return out
}

// TestPackedVectorCrossTalk packs 130 KYC/AML requests whose 8 attributes
// each come in ONE vector input (fhe/vector.go): 130 requests of stride 8 on
// 1024 slots need two accumulators, which the collective refresh
// un-interleaves into the policy's 8 inputs. Request 3 encrypts random
// values in EVERY slot (it tries to write into the other requests' blocks),
// and request 7's vector carries the worst noise an input proof accepts.
// Every other verdict equals the plaintext reference of its own attributes,
// on every member, and the chain accepts the batch.
func TestPackedVectorCrossTalk(t *testing.T) {
	kf := newKYCFixture(t)
	f := kf.packFixture
	r := rand.New(rand.NewPCG(13, 130))
	const n = 130
	layout, err := fhe.NewVectorLayout(f.p, 8, n)
	require.NoError(t, err)
	require.Equal(t, 2, layout.Accs)
	var reqs []testReq
	b := chainio.PackedBatch{PolicyID: kf.id, Session: "test/pack/vector"}
	for k := range n {
		vals := make([]int64, 8)
		for j := range vals {
			vals[j] = kycVals[j][r.IntN(2)]
		}
		slots, err := f.p.VectorInts(vals)
		require.NoError(t, err)
		var h fhe.Handle
		switch k {
		case 3:
			junk := fhetest.RandInts(r, f.p.Slots(), 30000)
			ct, err := f.enc.EncryptInts(junk)
			require.NoError(t, err)
			h = f.put(ct)
		case 7:
			h = f.maxNoiseSlots(slots)
		default:
			ct, err := f.enc.EncryptInts(slots)
			require.NoError(t, err)
			h = f.put(ct)
		}
		req := f.lc.Chain.Post(chainio.Request{ID: [32]byte{0xcd, byte(k)}, PolicyID: kf.id, Kind: chainio.KindPolicy, Inputs: []fhe.Handle{h}})
		b.Requests = append(b.Requests, req)
		if k != 3 { // the attacker's own verdict is whatever its block held
			reqs = append(reqs, testReq{req: req, want: kf.ref(vals), vals: vals})
		}
	}
	vs := f.process(b)
	byID := map[[32]byte]*chainio.Verdict{}
	for _, v := range vs {
		byID[v.RequestID] = v
	}
	for _, q := range reqs {
		require.Equal(t, new(big.Int).SetUint64(q.want), byID[q.req.ID].Result, "request %x (attributes %v)", q.req.ID[:2], q.vals)
	}
	vb := vs[0].Batch
	require.NoError(t, f.lc.Chain.SubmitVerdictBatch(context.Background(), vb.PolicyID, vb.ResultDigest, vb.Epoch, vb.Items, vb.Signature, vb.Signers))
	// each member ran ONE refresh of the packed inputs (the un-interleaving
	// one), the two packers the plan's refresh points, each at a level with
	// room
	kf.fc.check(t, 3+2*kf.plan.Counts.Refreshes)
}

// TestVectorRequestAlone: a vector request that reaches the per-request
// path (Process) is answered as a packed batch of one — the verdict equals
// the plaintext reference and carries its batch — and a request with a
// handle count that is neither 1 nor the policy's input count is not a
// vector request.
func TestVectorRequestAlone(t *testing.T) {
	kf := newKYCFixture(t)
	f := kf.packFixture
	vals := []int64{40, 12, 1, 0, 3, 1, 2, 0}
	slots, err := f.p.VectorInts(vals)
	require.NoError(t, err)
	ct, err := f.enc.EncryptInts(slots)
	require.NoError(t, err)
	req := f.lc.Chain.Post(chainio.Request{ID: [32]byte{0xce}, PolicyID: kf.id, Kind: chainio.KindPolicy, Inputs: []fhe.Handle{f.put(ct)}})
	out, errs := f.onAll(func(m *Member) ([]*chainio.Verdict, error) {
		v, err := m.Process(context.Background(), req)
		return []*chainio.Verdict{v}, err
	})
	require.Len(t, out, 3)
	for i := range out {
		require.NoError(t, errs[i])
		require.Equal(t, new(big.Int).SetUint64(kf.ref(vals)), out[i][0].Result)
		require.NotNil(t, out[i][0].Batch)
	}
	require.Equal(t, 8, f.lc.Member(1).VectorWidthOf(req))
	two := req
	two.Inputs = append(two.Inputs, two.Inputs[0])
	require.Zero(t, f.lc.Member(1).VectorWidthOf(two))
}

// vectorTestPolicy is a 3-input policy shallow enough that its packed plan
// has no refresh point on the deep test preset.
var vectorTestPolicy = []byte(`fhegate_policy: 1
name: vector_test
inputs:
  - {name: a, min: 0, max: 3}
  - {name: b, min: 0, max: 3}
  - {name: c, min: 0, max: 1}
output:
  type: bool
  expr: "a + b >= 3 && not c"
`)

// TestPackedVectorLyingPacker: only the t active members of a vector batch
// pack it, and one of them sends the others wrong accumulators and a wrong
// result (the attack: a corrupt packer). The member that did not pack sees
// copies that differ and packs the batch itself. A 2-of-3 committee's
// evaluators are all three (max(t+1, 2t−1), so that the plan's refresh
// points are verified refreshes), so with or without refresh points (KYC/AML
// on the deep preset) every member evaluates its own result and every
// verdict equals its plaintext reference on every member. With honest
// packers every member takes the agreed accumulators.
func TestPackedVectorLyingPacker(t *testing.T) {
	kyc, err := examples.Get("kyc_aml")
	require.NoError(t, err)
	for _, tc := range []struct {
		name      string
		spec      []byte
		refreshes bool
		lying     bool
	}{
		{"shallow/honest", vectorTestPolicy, false, false},
		{"shallow/lying", vectorTestPolicy, false, true},
		{"kyc/honest", kyc, true, false},
		{"kyc/lying", kyc, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kf := newPolicyFixture(t, [32]byte{0xc0, 0x0d}, tc.spec, func(id uint32, k *TestingKnobs) { k.CorruptAgreed = tc.lying && id == 1 })
			lc := kf.lc
			pc, err := lc.Member(1).PackedCircuit(kf.id)
			require.NoError(t, err)
			require.Equal(t, tc.refreshes, mustPlan(pc).Counts.Refreshes > 0)
			// a session whose packers (the refresh's active set) are members 1 and 2
			var session string
			for i := 0; ; i++ {
				session = fmt.Sprintf("test/pack/liar/%d", i)
				act := Rotated([]transport.MemberID{1, 2, 3}, fmt.Sprintf("%s/%d", session, lc.Member(1).Status().Epoch))[:2]
				if !slices.Contains(act, 3) {
					break
				}
			}
			b := chainio.PackedBatch{PolicyID: kf.id, Session: session}
			var reqs []testReq
			r := rand.New(rand.NewPCG(13, 17))
			for k := range 12 {
				vals := make([]int64, len(kf.plan.Inputs))
				for j := range vals {
					vals[j] = kf.plan.Inputs[j].Min + r.Int64N(kf.plan.Inputs[j].Max-kf.plan.Inputs[j].Min+1)
				}
				slots, err := kf.p.VectorInts(vals)
				require.NoError(t, err)
				ct, err := kf.enc.EncryptInts(slots)
				require.NoError(t, err)
				req := lc.Chain.Post(chainio.Request{ID: [32]byte{0xcf, byte(k)}, PolicyID: kf.id, Kind: chainio.KindPolicy, Inputs: []fhe.Handle{kf.put(ct)}})
				b.Requests = append(b.Requests, req)
				reqs = append(reqs, testReq{req: req, want: kf.ref(vals), vals: vals})
			}
			kf.checkVerdicts(reqs, kf.process(b))
		})
	}
}

// mustPlan is the compiled plan of a policy circuit (nil for another).
func mustPlan(c circuit.Circuit) *policy.Plan {
	plan, _ := circuit.PlanOf(c)
	return plan
}

// mod is x mod t in [0, t).
func mod(x int64, t uint64) uint64 {
	m := x % int64(t)
	if m < 0 {
		m += int64(t)
	}
	return uint64(m)
}

// TestVectorRefreshShiftRefusedOverTLS: member 2 of a local 2-of-3
// committee (over TLS) shifts every decryption share it sends in the
// verified refresh transform that unpacks a vector request (CorruptRefresh,
// well-formed). No member stores or posts a verdict for it, and nobody but
// member 2 is ever named (with r = 2t−1 = 3 nobody can be: every
// explanation is possible). The request then fails its attempts rather than
// being answered with a value member 2 chose.
func TestVectorRefreshShiftRefusedOverTLS(t *testing.T) {
	kf := newPolicyFixture(t, [32]byte{0x5e, 0xc7}, vectorTestPolicy, func(id uint32, k *TestingKnobs) {
		k.CorruptRefresh = id == 2
	})
	f := kf.packFixture
	vals := []int64{1, 2, 0}
	slots, err := f.p.VectorInts(vals)
	require.NoError(t, err)
	ct, err := f.enc.EncryptInts(slots)
	require.NoError(t, err)
	req := f.lc.Chain.Post(chainio.Request{ID: [32]byte{0x5e}, PolicyID: kf.id, Kind: chainio.KindPolicy, Inputs: []fhe.Handle{f.put(ct)}})
	_, errs := f.onAll(func(m *Member) ([]*chainio.Verdict, error) {
		v, err := m.Process(context.Background(), req)
		return []*chainio.Verdict{v}, err
	})
	for i, err := range errs {
		id := uint32(i + 1)
		if id == 2 {
			continue
		}
		var dis *protocol.ErrRefreshDisagree
		require.ErrorAs(t, err, &dis, "member %d got a verdict out of a moved refresh transform", id)
		_, ok := f.lc.Member(id).StoredVerdict(req.ID)
		require.False(t, ok, "member %d stored a verdict", id)
		for _, e := range f.lc.Member(id).Status().Equivocations {
			require.Equal(t, uint32(2), e.Member, "member %d named an honest member", id)
		}
	}
	_, onChain := f.lc.Chain.Verdict(req.ID)
	require.False(t, onChain, "a verdict reached the chain")
}
