package consensus

// The serve loop's verdict submission: the lowest signer posts at once,
// the others after their stagger and only if nothing was posted meanwhile.

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/transport"
)

// submit posts v (its batch, if it was decided in one): at once if this
// member is the lowest signer, otherwise after rank·SubmitStagger and only
// if no verdict was posted meanwhile.
func (s *server) submit(ctx context.Context, v *chainio.Verdict) {
	if v.Batch != nil {
		s.submitBatch(ctx, v.Batch)
		return
	}
	m := s.m
	if !s.waitTurn(ctx, v.Signers, v.RequestID) {
		if !s.stopping(ctx) { // a peer's verdict is on chain
			m.requests.answered(v.RequestID)
		}
		return
	}
	if err := s.chain.SubmitVerdict(ctx, v); err != nil {
		if ctx.Err() == nil {
			m.log.Warn("verdict submission failed", zap.String("request", fmt.Sprintf("%x", v.RequestID[:6])), zap.Error(err))
		}
		return
	}
	m.requests.answered(v.RequestID)
}

// stopping reports whether the serve loop is ending (ctx done or the member
// closed).
func (s *server) stopping(ctx context.Context) bool {
	select {
	case <-s.m.closed:
		return true
	default:
		return ctx.Err() != nil
	}
}

// waitTurn waits rank·SubmitStagger for this member's rank among the
// signers and reports whether it should still post (the lowest signer
// always; another only if the request's verdict is not posted by then).
func (s *server) waitTurn(ctx context.Context, signerBitmap []byte, probe [32]byte) bool {
	m := s.m
	signers, _ := bls.Signers(len(m.members), signerBitmap)
	rank := 0
	for i, sg := range signers {
		if transport.MemberID(sg+1) == m.id {
			rank = i
		}
	}
	if rank == 0 {
		return true
	}
	select {
	case <-time.After(time.Duration(rank) * m.cfg.SubmitStagger):
	case <-ctx.Done():
		return false
	case <-m.closed:
		return false
	}
	posted, err := s.chain.VerdictPosted(ctx, probe)
	return err != nil || !posted
}

// submitBatch posts a packed batch's verdicts with SubmitVerdictBatch, with
// the same stagger as a single verdict (probing the batch's last item).
func (s *server) submitBatch(ctx context.Context, vb *chainio.VerdictBatch) {
	if len(vb.Items) == 0 {
		return
	}
	ids := make([][32]byte, len(vb.Items))
	for i, it := range vb.Items {
		ids[i] = it.RequestID
	}
	if !s.waitTurn(ctx, vb.Signers, ids[len(ids)-1]) {
		if !s.stopping(ctx) { // a peer posted the batch (its verdicts are accepted together)
			s.m.requests.answered(ids...)
		}
		return
	}
	if err := s.chain.SubmitVerdictBatch(ctx, vb.PolicyID, vb.ResultDigest, vb.Epoch, vb.Items, vb.Signature, vb.Signers); err != nil {
		if ctx.Err() == nil {
			s.m.log.Warn("verdict batch submission failed", zap.Int("verdicts", len(vb.Items)), zap.Error(err))
		}
		return
	}
	s.m.requests.answered(ids...)
}
