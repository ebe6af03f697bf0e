package consensus

// The serve loop's packed batches: which requests may be packed, and a
// closed window's batches run packed, retried once, or answered one by one.

import (
	"context"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/pipeline"
	"github.com/fhegate/fhegate/consensus/protocol"
)

// packable reports whether r may go into a packed batch: a policy request
// with 1 … chainio.MaxPackWidth inputs whose policy has a packed circuit,
// packing enabled. Unknown and unevaluable policies, and compiled ones
// without a packed plan (eval.Admission.Alone), are answered one by one:
// the chain books each request of the latter as its whole evaluation
// (docs/gas.md, "Requests evaluated alone").
func (s *server) packable(r chainio.Request) bool {
	if s.m.cfg.PackMin < 0 || r.Kind != chainio.KindPolicy || len(r.Inputs) == 0 || len(r.Inputs) > chainio.MaxPackWidth {
		return false
	}
	c, err := s.m.cfg.Circuits.Lookup(r.PolicyID)
	if err != nil {
		return false
	}
	if np, ok := c.(interface{ NoPackedForm() bool }); ok && np.NoPackedForm() {
		return false
	}
	_, err = s.m.pipe.PackedCircuit(r.PolicyID)
	return err == nil
}

// runPacked evaluates closed windows' batches: a batch smaller than PackMin
// goes the per-request path, a larger one is processed packed and its
// verdicts posted with SubmitVerdictBatch. A packed batch that fails is
// retried once as a batch (a new session), after waiting up to a round
// timeout for the members its refreshes need (a member that restarted
// mid-batch is back within it), and only then falls back to the
// per-request path (retried there as usual): answering a batch one by one
// costs a packed run per request, and on a loaded host those runs time out
// rounds and get live members marked down.
func (s *server) runPacked(ctx context.Context, batches []chainio.PackedBatch) {
	for _, b := range batches {
		if s.batchDecided(ctx, b) {
			continue
		}
		s.m.beats.awaitQuorum(ctx)
		vector := s.m.pipe.VectorWidthOf(b.Requests[0]) > 0
		if len(b.Requests) < s.m.cfg.PackMin && !vector { // a vector request alone is a batch of one anyway
			s.batch = append(s.batch, b.Requests...)
			continue
		}
		vs, err := s.m.ProcessPacked(ctx, b)
		if err != nil && ctx.Err() == nil && !permanent(err) {
			s.m.log.Warn("packed batch failed: retrying it as a batch", zap.String("batch", b.Session), zap.Bool("vector", vector), zap.Error(err))
			s.m.beats.awaitLive(ctx, protocol.CheckedMembers(s.m.cfg.Committee.Threshold))
			b.Session += "/retry"
			vs, err = s.m.ProcessPacked(ctx, b)
		}
		if err != nil {
			if ctx.Err() == nil {
				s.m.log.Warn("packed batch failed: answering its requests one by one", zap.String("batch", b.Session), zap.Error(err))
				s.batch = append(s.batch, b.Requests...)
			}
			continue
		}
		for _, vb := range pipeline.VerdictBatches(vs) { // one, or the parts of an isolated batch (pipeline/isolate.go)
			s.m.wg.Add(1)
			go func() { defer s.m.wg.Done(); s.submitBatch(ctx, vb) }()
		}
		s.advanceCursor(maxBlockOf(b.Requests))
	}
}

// batchDecided reports whether a packed batch needs no evaluation by this
// member: its requests are decided on chain (its peers evaluated and
// posted it while this member was behind) or expired. The first request
// is asked first (a batch's verdicts are posted together, so one chain
// read settles a current batch); when it is decided, the rest of the
// batch goes the per-request path (the chain skips answered items, so its
// peers never post a batch of them again).
func (s *server) batchDecided(ctx context.Context, b chainio.PackedBatch) bool {
	if !s.decided(ctx, b.Requests[0]) {
		return false
	}
	var open []chainio.Request
	for _, r := range b.Requests[1:] {
		if !s.decided(ctx, r) {
			open = append(open, r)
		}
	}
	s.batch = append(s.batch, open...)
	s.advanceCursor(maxBlockOf(b.Requests))
	return true
}
