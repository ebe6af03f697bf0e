package consensus

// Packed batches: one evaluation for up to Slots() requests of one policy.
// Slot assignment, refresh noise and the mask level (PackLevel) are derived
// in docs/derivations.md, "Packed batches".

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/internal/keccak"
	"github.com/fhegate/fhegate/internal/par"
)

// ProcessPacked runs a packed batch end to end on this member: slot-masked
// packing of every request's inputs (PackLevel), one collective refresh per
// packed input, one evaluation, result-digest agreement, masking to the
// batch's slots, one threshold decryption of all of them, one BLS aggregate
// over the batch digest. It returns the verdicts in slot order (each with
// Batch set) and persists them.
//
// A run whose decrypted verdicts leave the plan's output range signs no
// value: its out-of-range requests get ResultRejectedInput and the rest is
// re-run, within a budget of IsolationRuns extra runs per batch
// (isolate.go, "Booked isolation").
func (m *Member) ProcessPacked(ctx context.Context, b chainio.PackedBatch) ([]*chainio.Verdict, error) {
	if err := b.Check(m.params); err != nil {
		return nil, err
	}
	return m.processIsolating(ctx, b)
}

// processPackedOnce is one run of a checked packed batch with left runs of
// its isolation budget: its verdicts in slot order, nil for the slots of
// the parts (slot lists) that must be re-run (isolate.go, isolationStep).
func (m *Member) processPackedOnce(ctx context.Context, b chainio.PackedBatch, left int) ([]*chainio.Verdict, [][]int, error) {
	ks, err := m.snap()
	if err != nil {
		return nil, nil, err
	}
	c, err := m.packedCircuit(b.PolicyID)
	if err != nil {
		return nil, nil, err
	}
	id := keccak.Sum([]byte("fhegate/packed-batch/v1"), []byte(b.Session))
	r := &requestRun{m: m, req: chainio.Request{ID: id, PolicyID: b.PolicyID, Kind: chainio.KindPolicy}, ks: ks, bounds: circuit.BoundsOf(c),
		base: fmt.Sprintf("%s/%d", b.Session, ks.km.Epoch), slots: len(b.Requests), rescale: true,
		log: m.log.With(zap.String("batch", b.Session), zap.Int("requests", len(b.Requests))), mark: time.Now()}
	var packed []*fhe.Ciphertext
	if k := vectorWidth(c, len(b.Requests[0].Inputs)); k > 0 {
		packed, err = r.packVector(ctx, b.Requests, k)
	} else {
		packed, err = r.pack(ctx, b.Requests)
	}
	if err != nil {
		return nil, nil, err
	}
	return r.runPacked(ctx, c, packed, b.Requests, left)
}

// packedCircuit resolves a policy id to the circuit a packed batch runs
// (PolicyCircuits.LookupPacked; Lookup for circuits without a packed form).
func (m *Member) packedCircuit(id [32]byte) (circuit.Circuit, error) {
	if pc, ok := m.cfg.Circuits.(interface {
		LookupPacked([32]byte) (circuit.Circuit, error)
	}); ok {
		return pc.LookupPacked(id)
	}
	return m.cfg.Circuits.Lookup(id)
}

// vectorWidth returns K when a request with the given number of input
// handles is a vector request of circuit c (one ciphertext holding all K > 1
// attributes of the request, fhe/vector.go), 0 otherwise. Only compiled
// policies declare their input count; the built-in test circuits take any.
func vectorWidth(c circuit.Circuit, inputs int) int {
	if plan, ok := circuit.PlanOf(c); ok && inputs == 1 && len(plan.Inputs) > 1 {
		return len(plan.Inputs)
	}
	return 0
}

// vectorWidthOf is vectorWidth for a request of this member's circuits (0
// for a request that is not a policy request or whose policy has no
// circuit).
func (m *Member) vectorWidthOf(r chainio.Request) int {
	if r.Kind != chainio.KindPolicy {
		return 0
	}
	c, err := m.cfg.Circuits.Lookup(r.PolicyID)
	if err != nil {
		return 0
	}
	return vectorWidth(c, len(r.Inputs))
}

// viewInputs calls f with the stored bytes of q's inputs (fetching a
// missing one from the peers first), in one read transaction, after
// checking that each is stored under the run's key epoch.
func (r *requestRun) viewInputs(ctx context.Context, q chainio.Request, f func(raws [][]byte) error) error {
	m := r.m
	if err := m.fetchInputs(ctx, q); err != nil {
		return err
	}
	err := m.st.ViewAll(q.Inputs, func(raws [][]byte, epochs []uint64) error {
		for j, e := range epochs {
			if err := checkEpoch(q.Inputs[j], e, r.ks.km.Epoch); err != nil {
				return err
			}
		}
		return f(raws)
	})
	if err != nil {
		return fmt.Errorf("consensus: request %x: %w", q.ID[:6], err)
	}
	return nil
}

// fetchInputs fetches from the other members every input of q this member
// does not hold.
func (m *Member) fetchInputs(ctx context.Context, q chainio.Request) error {
	for _, h := range q.Inputs {
		if !m.st.Has(h) {
			if _, err := m.fetch(ctx, h); err != nil {
				return fmt.Errorf("consensus: request %x: %w", q.ID[:6], err)
			}
		}
	}
	return nil
}

// packVector packs a batch of vector requests of k attributes (fhe/vector.go):
// each request's one ciphertext is multiplied by its block mask into its
// accumulator (fhe.VectorLayout, fhe.SlotPacker.AddEncodedBlock), and one
// collective refresh of all accumulators un-interleaves them into the k
// attribute ciphertexts the circuit takes, request r in slot r of each
// (protocol.RefreshTransform with fhe.VectorLayout.Unpack), each rescaled
// once like pack's outputs. Every receiver of that refresh holds the
// outputs; the packers and the next members in the batch's rotation, max(t+1,
// 2t−1) in all, evaluate the batch (requestRun.evaluateShared), so that the
// plan's refresh points are verified refreshes among them. Whatever a request's ciphertext holds outside
// its block is multiplied by zero (TestPackedVectorCrossTalk).
//
// The refresh is the verified refresh transform: every live member
// contributes (refreshContributors), so a member that deviates moves no
// output (protocol.RefreshTransform). Only t members pack, the first t of
// the participants rotated by the batch's session (so that consecutive
// batches spread the packing over the committee); each sends its accumulators to the other
// members, and a member that did not pack takes them only when all t
// copies are byte-identical (protocol.AgreedFromActive: one of the t is
// honest) and packs them itself otherwise. The committee packs each batch
// t times instead of n.
//
// The noise bound of pack holds: an accumulator sums at most Slots()/K'
// products, each bounded like a single-slot product (‖M_s‖∞ < t as
// ‖L_s‖∞ is), so PackBounds and PackLevel apply unchanged.
func (r *requestRun) packVector(ctx context.Context, reqs []chainio.Request, k int) ([]*fhe.Ciphertext, error) {
	m := r.m
	level, bounds, err := circuit.PackLevelBounds(m.params)
	if err != nil {
		return nil, err
	}
	layout, err := fhe.NewVectorLayout(m.params, k, len(reqs))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", chainio.ErrBadBatch, err)
	}
	var own []*fhe.Ciphertext // this member's own packing, done at most once
	packOwn := func() ([]*fhe.Ciphertext, error) {
		if own != nil {
			return own, nil
		}
		var err error
		own, err = r.packBlocks(ctx, reqs, layout, level)
		return own, err
	}
	var out []*fhe.Ciphertext
	err = m.onLive(ctx, func(participants []transport.MemberID) error {
		order := rotated(participants, r.base)
		contributors, err := m.refreshContributors(participants, level, bounds)
		if err != nil {
			return err
		}
		// the packers: the first t of the rotation
		active := slices.Sorted(slices.Values(order[:m.cfg.Committee.Threshold]))
		// the evaluators: the packers and the next members, as many as a
		// verified refresh at the plan's refresh points needs
		evaluators := slices.Clone(order[:min(len(order), protocol.CheckedMembers(m.cfg.Committee.Threshold))])
		slices.Sort(evaluators)
		session := fmt.Sprintf("%s/unpack/%v", r.base, active)
		low, err := r.agreedAccumulators(ctx, session, active, participants, layout.Accs, packOwn)
		if err != nil {
			return err
		}
		r.phase("pack")
		zk, _ := m.ProofKey()
		if zk != nil && zk.PK != r.ks.km.Public {
			zk = nil // a rotation's new key: protocol.RefreshTransform prepares its own
		}
		led := protocol.Ledger(m.led)
		if m.cfg.Knobs.CorruptRefresh {
			led = refreshCorruptingLedger{m.led, m.params.N()}
		}
		out, err = protocol.RefreshTransform(ctx, m.group(), r.ks.key, led, protocol.TransformRequest{
			Session: session, Inputs: low, Outputs: layout.K,
			TransformID: fmt.Sprintf("fhegate/vector-unpack/v1/k%d/a%d/b%d", layout.K, layout.Accs, layout.Requests),
			Transform:   layout.Unpack, Adjoint: layout.UnpackAdjoint,
			Active: contributors, Receivers: participants, PublicKey: r.ks.km.Public, ProofKey: zk,
			NoiseBits: bounds.NoiseBits, WorstBits: bounds.WorstBits, Workers: m.cfg.Knobs.Workers})
		if err == nil {
			m.refreshes.Add(1)
			r.evaluators, r.receivers = evaluators, participants
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("consensus: refresh of the packed vector inputs: %w", err)
	}
	err = par.ForEach(len(out), len(out), func(_, j int) (err error) {
		out[j], err = r.dropRefreshNoise(out[j])
		return err
	})
	if err != nil {
		return nil, err
	}
	r.phase("pack-refresh")
	return out, nil
}

// packBlocks is the block packing of packVector: request i's ciphertext
// times its block mask into accumulator layout.Place(i), by one packer
// whose coefficients are split over W workers (GOMAXPROCS or
// Knobs.Workers; fhe.SlotPacker.AddEncodedBatch): each worker keeps its
// range of every accumulator and mask in its own caches and nothing is
// merged. The bytes do not depend on W (TestPackBlocksWorkers).
func (r *requestRun) packBlocks(ctx context.Context, reqs []chainio.Request, layout fhe.VectorLayout, level int) ([]*fhe.Ciphertext, error) {
	m := r.m
	hs := make([]fhe.Handle, len(reqs))
	for i, q := range reqs {
		if len(q.Inputs) == 0 {
			return nil, fmt.Errorf("%w: request %x has no input", chainio.ErrBadBatch, q.ID[:6])
		}
		if err := m.fetchInputs(ctx, q); err != nil {
			return nil, err
		}
		hs[i] = q.Inputs[0]
	}
	sp, err := fhe.NewBlockPacker(m.params, level, layout.Accs, layout.K)
	if err != nil {
		return nil, err
	}
	// every worker of AddEncodedBatch reads every request's rows (its own
	// coefficients), so the requests are read in runs, one store read
	// transaction each: a run's bytes stay mapped while it is packed, and
	// no transaction is held long enough to stall the store's writers
	for from := 0; from < len(reqs); from += packViewRun {
		to := min(from+packViewRun, len(reqs))
		err := m.st.ViewAll(hs[from:to], func(raws [][]byte, epochs []uint64) error {
			for i, e := range epochs {
				if err := checkEpoch(hs[from+i], e, r.ks.km.Epoch); err != nil {
					return fmt.Errorf("consensus: request %x: %w", reqs[from+i].ID[:6], err)
				}
			}
			return sp.AddEncodedBatch(layout, from, raws, m.cfg.Knobs.Workers)
		})
		if err != nil {
			return nil, fmt.Errorf("consensus: packed batch %s: %w", r.base, err)
		}
	}
	return sp.Ciphertexts()
}

// packViewRun is the number of requests packBlocks reads in one store
// transaction: 2.7 GB of BGVN14 inputs in the map, about a tenth of a
// second of packing on one core. Any value gives the same bytes
// (AddEncodedBatch takes a batch in runs; TestPackBlocksWorkers).
var packViewRun = 1024

// rotated returns ids rotated left by an offset derived from name, so that
// the first t (a refresh's active set) differ from batch to batch.
func rotated(ids []transport.MemberID, name string) []transport.MemberID {
	if len(ids) == 0 {
		return ids
	}
	h := keccak.Sum([]byte("fhegate/packers/v1"), []byte(name))
	off := int(binary.BigEndian.Uint32(h[:4]) % uint32(len(ids)))
	return append(append([]transport.MemberID(nil), ids[off:]...), ids[:off]...)
}

// agreedAccumulators returns a vector batch's accumulators: an active
// member packs them (packOwn) and sends them to the others; a member that
// is not active takes the t copies when they agree, and packs them itself
// when they do not.
func (r *requestRun) agreedAccumulators(ctx context.Context, session string, active, participants []transport.MemberID, accs int,
	packOwn func() ([]*fhe.Ciphertext, error)) ([]*fhe.Ciphertext, error) {
	return agreedValue(ctx, r, session+"/acc", "packed accumulators", active, participants, r.m.cfg.RoundTimeout, packOwn, marshalCiphertexts,
		func(b []byte) ([]*fhe.Ciphertext, error) { return unmarshalCiphertexts(r.m.params, b, accs) },
		func(err error) ([]*fhe.Ciphertext, error) {
			r.log.Warn("the packing members' accumulators differ: packing them here", zap.Error(err))
			return packOwn()
		})
}

// agreedValue is an agreed round (protocol.AgreedFromActive, TypeAgreed)
// for a value this member computes with own (which must compute it once
// and then return it again) when it is one of the active members: an
// active member sends encode of own's value (through agreedPayload) and
// returns that value; any other member returns the agreed copy decoded,
// or differ's answer when the copies differ. A member that is not active
// waits a round timeout plus produce (protocol.Group.ProduceWait: how long
// the active members may take to compute the value).
func agreedValue[T any](ctx context.Context, r *requestRun, session, what string, active, receivers []transport.MemberID, produce time.Duration,
	own func() (T, error), encode func(T) ([]byte, error), decode func([]byte) (T, error), differ func(error) (T, error)) (T, error) {
	g := r.m.group()
	g.ProduceWait = produce
	b, err := protocol.AgreedFromActive(ctx, g, transport.TypeAgreed, session, active, receivers, what, func() ([]byte, error) {
		v, err := own()
		if err != nil {
			return nil, err
		}
		b, err := encode(v)
		return r.m.agreedPayload(b), err
	})
	switch {
	case errors.Is(err, protocol.ErrCopiesDiffer):
		return differ(err)
	case err != nil:
		var zero T
		return zero, err
	case slices.Contains(active, r.m.id):
		return own() // computed above, by this member
	}
	return decode(b)
}

// agreedPayload is what this member sends of a value it computed for an
// agreed round: b, or b with a bit flipped under the CorruptAgreed knob.
func (m *Member) agreedPayload(b []byte) []byte {
	if m.cfg.Knobs.CorruptAgreed && len(b) > 0 {
		b = append([]byte(nil), b...)
		b[len(b)/2] ^= 1
	}
	return b
}

// committeeCiphertext decodes a canonical ciphertext of preset p.
func committeeCiphertext(p *fhe.Params, b []byte) (*fhe.Ciphertext, error) {
	c, err := fhe.UnmarshalCiphertext(b)
	if err != nil {
		return nil, err
	}
	if c.Params() != p {
		return nil, fmt.Errorf("a %s ciphertext, the committee's preset is %s", c.Params().Preset.Name, p.Preset.Name)
	}
	return c, nil
}

// marshalCiphertexts encodes cts as count(2) ‖ count × (length(4) ‖
// canonical ciphertext).
func marshalCiphertexts(cts []*fhe.Ciphertext) ([]byte, error) {
	out := binary.BigEndian.AppendUint16(nil, uint16(len(cts)))
	for _, c := range cts {
		b, err := c.MarshalBinary()
		if err != nil {
			return nil, err
		}
		out = binary.BigEndian.AppendUint32(out, uint32(len(b)))
		out = append(out, b...)
	}
	return out, nil
}

// unmarshalCiphertexts decodes marshalCiphertexts' encoding of exactly want
// ciphertexts of preset p (the count is checked before anything is
// allocated, every length against what is left).
func unmarshalCiphertexts(p *fhe.Params, b []byte, want int) ([]*fhe.Ciphertext, error) {
	if len(b) < 2 || int(binary.BigEndian.Uint16(b)) != want {
		return nil, fmt.Errorf("consensus: packed accumulators: want %d ciphertexts", want)
	}
	b = b[2:]
	out := make([]*fhe.Ciphertext, want)
	for i := range out {
		if len(b) < 4 || uint64(binary.BigEndian.Uint32(b)) > uint64(len(b)-4) {
			return nil, fmt.Errorf("consensus: packed accumulators: ciphertext %d truncated", i)
		}
		n := binary.BigEndian.Uint32(b)
		c, err := committeeCiphertext(p, b[4:4+n])
		if err != nil {
			return nil, fmt.Errorf("consensus: packed accumulators: ciphertext %d: %w", i, err)
		}
		out[i] = c
		b = b[4+n:]
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("consensus: packed accumulators: %d trailing bytes", len(b))
	}
	return out, nil
}

// pack builds the packed inputs at PackLevel and refreshes each to the top
// level (in parallel: independent sessions).
func (r *requestRun) pack(ctx context.Context, reqs []chainio.Request) ([]*fhe.Ciphertext, error) {
	m := r.m
	level, bounds, err := circuit.PackLevelBounds(m.params)
	if err != nil {
		return nil, err
	}
	sp, err := fhe.NewSlotPacker(m.params, level, len(reqs[0].Inputs))
	if err != nil {
		return nil, err
	}
	// Each request's inputs are masked straight from the store's bytes
	// (fhe.SlotPacker.AddEncoded: the ℓ+1 rows it needs, no decoding), in
	// one read transaction per request; a missing input is fetched from the
	// peers first.
	for s, q := range reqs {
		if err := r.viewInputs(ctx, q, func(raws [][]byte) error { return sp.AddEncoded(s, raws) }); err != nil {
			return nil, err
		}
	}
	low, err := sp.Ciphertexts()
	if err != nil {
		return nil, err
	}
	r.phase("pack")
	out := make([]*fhe.Ciphertext, len(low))
	err = par.ForEach(len(low), len(low), func(_, j int) (err error) { // at once: independent sessions
		if out[j], err = m.refreshLive(ctx, r.ks, fmt.Sprintf("%s/in%d", r.base, j), low[j], bounds); err == nil {
			out[j], err = r.dropRefreshNoise(out[j])
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("consensus: refresh of the packed inputs: %w", err)
	}
	r.phase("pack-refresh")
	return out, nil
}

// runPacked is run for a packed batch: evaluate once, agree on the digest,
// mask to the batch's slots, decrypt them together, sign the batch digest.
// A run with out-of-range slots signs only the requests isolationStep
// rejects (ResultRejectedInput, together, under this run's result digest)
// and returns the parts to re-run; its in-range values are never signed.
func (r *requestRun) runPacked(ctx context.Context, circuit circuit.Circuit, packed []*fhe.Ciphertext, reqs []chainio.Request, left int) ([]*chainio.Verdict, [][]int, error) {
	rd, participants, dres, err := r.evaluateAndDecrypt(ctx, circuit, packed)
	if err != nil {
		return nil, nil, err
	}
	signed := make([]int, len(reqs)) // the slots this run signs
	for s := range signed {
		signed[s] = s
	}
	var parts [][]int
	bad := outOfRange(circuit, r.m.params, dres.Values[:len(reqs)])
	if len(bad) > 0 {
		signed, parts = isolationStep(len(reqs), bad, left)
		r.log.Warn("verdicts outside the plan's output range: requests rejected together, the rest re-run",
			zap.Int("outOfRange", len(bad)), zap.Int("rejected", len(signed)), zap.Int("parts", len(parts)), zap.Int("budgetLeft", left))
	}
	vs := make([]*chainio.Verdict, len(reqs))
	if len(signed) == 0 {
		return vs, parts, nil
	}
	vb := &chainio.VerdictBatch{PolicyID: r.req.PolicyID, ResultDigest: [32]byte(rd), Epoch: r.ks.km.Epoch, Items: make([]bls.VerdictItem, len(signed))}
	for i, s := range signed {
		vb.Items[i] = bls.VerdictItem{RequestID: reqs[s].ID, Result: new(big.Int).SetUint64(dres.Values[s])}
		if len(bad) > 0 { // a run out of range signs rejections only
			vb.Items[i].Result = new(big.Int).Set(chainio.ResultRejectedInput)
		}
	}
	var n int
	if vb.Signature, vb.Signers, n, err = r.m.signDigest(ctx, r.base, vb.Digest(r.m.chain()), without(participants, dres.Bad), r.log); err != nil {
		return nil, nil, err
	}
	sv := make([]*chainio.Verdict, len(signed))
	for i, it := range vb.Items {
		sv[i] = &chainio.Verdict{RequestID: it.RequestID, PolicyID: vb.PolicyID, Result: it.Result, ResultDigest: vb.ResultDigest, Epoch: vb.Epoch,
			Signature: vb.Signature, Signers: vb.Signers, Batch: vb}
		vs[signed[i]] = sv[i]
	}
	if err := r.m.saveBatch(vb, sv); err != nil {
		return nil, nil, err
	}
	r.phase("sign")
	r.log.Debug("packed verdicts", zap.Int("signers", n), zap.Bool("checked", dres.Checked))
	return vs, parts, nil
}

// dropRefreshNoise rescales a refreshed ciphertext by one prime (a product
// with the constant-1 plaintext): the refresh's flooding noise is divided by
// the prime, the message is unchanged (see "Refresh noise" above).
func (r *requestRun) dropRefreshNoise(ct *fhe.Ciphertext) (*fhe.Ciphertext, error) {
	ones := make([]int64, r.m.params.Slots())
	for i := range ones {
		ones[i] = 1
	}
	return r.ks.ev.MulInts(ct, ones)
}
