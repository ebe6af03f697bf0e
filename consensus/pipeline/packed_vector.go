package pipeline

// Vector batches: one ciphertext per request, packed by t members into
// accumulators that the verified refresh transform un-interleaves
// (fhe/vector.go, protocol.RefreshTransform).

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/internal/keccak"
	"github.com/fhegate/fhegate/internal/par"
)

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
	rn := r.rn
	level, bounds, err := circuit.PackLevelBounds(rn.d.Params)
	if err != nil {
		return nil, err
	}
	layout, err := fhe.NewVectorLayout(rn.d.Params, k, len(reqs))
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
	err = rn.onLive(ctx, func(participants []transport.MemberID) error {
		order := Rotated(participants, r.base)
		contributors, err := rn.refreshContributors(participants, level, bounds)
		if err != nil {
			return err
		}
		// the packers: the first t of the rotation
		active := slices.Sorted(slices.Values(order[:rn.d.Config.Threshold]))
		// the evaluators: the packers and the next members, as many as a
		// verified refresh at the plan's refresh points needs
		evaluators := slices.Clone(order[:min(len(order), protocol.CheckedMembers(rn.d.Config.Threshold))])
		slices.Sort(evaluators)
		session := fmt.Sprintf("%s/unpack/%v", r.base, active)
		low, err := r.agreedAccumulators(ctx, session, active, participants, layout.Accs, packOwn)
		if err != nil {
			return err
		}
		r.phase("pack")
		zk, _ := rn.d.ProofKey()
		if zk != nil && zk.PK != r.ks.km.Public {
			zk = nil // a rotation's new key: protocol.RefreshTransform prepares its own
		}
		led := protocol.Ledger(rn.d.Ledger)
		if rn.d.Config.Knobs.CorruptRefresh {
			led = refreshCorruptingLedger{rn.d.Ledger, rn.d.Params.N()}
		}
		out, err = protocol.RefreshTransform(ctx, rn.d.Group(), r.ks.key, led, protocol.TransformRequest{
			Session: session, Inputs: low, Outputs: layout.K,
			TransformID: fmt.Sprintf("fhegate/vector-unpack/v1/k%d/a%d/b%d", layout.K, layout.Accs, layout.Requests),
			Transform:   layout.Unpack, Adjoint: layout.UnpackAdjoint,
			Active: contributors, Receivers: participants, PublicKey: r.ks.km.Public, ProofKey: zk,
			NoiseBits: bounds.NoiseBits, WorstBits: bounds.WorstBits, Workers: rn.d.Config.Knobs.Workers})
		if err == nil {
			rn.d.Refreshes.Add(1)
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
	rn := r.rn
	hs := make([]fhe.Handle, len(reqs))
	for i, q := range reqs {
		if len(q.Inputs) == 0 {
			return nil, fmt.Errorf("%w: request %x has no input", chainio.ErrBadBatch, q.ID[:6])
		}
		if err := rn.fetchInputs(ctx, q); err != nil {
			return nil, err
		}
		hs[i] = q.Inputs[0]
	}
	sp, err := fhe.NewBlockPacker(rn.d.Params, level, layout.Accs, layout.K)
	if err != nil {
		return nil, err
	}
	// every worker of AddEncodedBatch reads every request's rows (its own
	// coefficients), so the requests are read in runs, one store read
	// transaction each: a run's bytes stay mapped while it is packed, and
	// no transaction is held long enough to stall the store's writers
	run := r.viewRun
	if run <= 0 {
		run = packViewRun
	}
	for from := 0; from < len(reqs); from += run {
		to := min(from+run, len(reqs))
		err := rn.d.Store.ViewAll(hs[from:to], func(raws [][]byte, epochs []uint64) error {
			for i, e := range epochs {
				if err := r.rn.d.CheckEpoch(hs[from+i], e, r.ks.km.Epoch); err != nil {
					return fmt.Errorf("consensus: request %x: %w", reqs[from+i].ID[:6], err)
				}
			}
			return sp.AddEncodedBatch(layout, from, raws, rn.d.Config.Knobs.Workers)
		})
		if err != nil {
			return nil, fmt.Errorf("consensus: packed batch %s: %w", r.base, err)
		}
	}
	return sp.Ciphertexts()
}

// Rotated returns ids rotated left by an offset derived from name, so that
// the first t (a refresh's active set) differ from batch to batch.
func Rotated(ids []transport.MemberID, name string) []transport.MemberID {
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
	return agreedValue(ctx, r, session+"/acc", "packed accumulators", active, participants, r.rn.d.Config.RoundTimeout, packOwn, marshalCiphertexts,
		func(b []byte) ([]*fhe.Ciphertext, error) { return unmarshalCiphertexts(r.rn.d.Params, b, accs) },
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
	g := r.rn.d.Group()
	g.ProduceWait = produce
	b, err := protocol.AgreedFromActive(ctx, g, transport.TypeAgreed, session, active, receivers, what, func() ([]byte, error) {
		v, err := own()
		if err != nil {
			return nil, err
		}
		b, err := encode(v)
		return r.rn.agreedPayload(b), err
	})
	switch {
	case errors.Is(err, protocol.ErrCopiesDiffer):
		return differ(err)
	case err != nil:
		var zero T
		return zero, err
	case slices.Contains(active, r.rn.d.Self):
		return own() // computed above, by this member
	}
	return decode(b)
}

// agreedPayload is what this member sends of a value it computed for an
// agreed round: b, or b with a bit flipped under the CorruptAgreed knob.
func (rn *Runner) agreedPayload(b []byte) []byte {
	if rn.d.Config.Knobs.CorruptAgreed && len(b) > 0 {
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

// packViewRun is the number of requests packBlocks reads in one store
// transaction: 2.7 GB of BGVN14 inputs in the map, about a tenth of a
// second of packing on one core. Any value gives the same bytes
// (AddEncodedBatch takes a batch in runs; TestPackBlocksWorkers).
const packViewRun = 1024

// PackBlocks is the block packing of a vector batch under the installed
// keys (what each packer computes before the accumulators are agreed),
// reading the requests in runs of viewRun per store transaction (≤ 0: 1024).
// Members with different core counts must compute the same bytes
// (TestPackBlocksWorkers).
func (rn *Runner) PackBlocks(ctx context.Context, reqs []chainio.Request, layout fhe.VectorLayout, level, viewRun int, log *zap.Logger) ([]*fhe.Ciphertext, error) {
	ks, err := rn.d.Snap()
	if err != nil {
		return nil, err
	}
	r := &requestRun{rn: rn, ks: ks, log: log, viewRun: viewRun}
	return r.packBlocks(ctx, reqs, layout, level)
}
