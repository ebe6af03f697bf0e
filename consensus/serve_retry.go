package consensus

// The serve loop's retries: which failures are retried, after how long,
// and which are final.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/protocol"
)

// failed logs a failed request and retries it later, unless it failed
// maxAttempts times already or this member disagrees with the quorum.
// Transient failures (a member died mid-round) are retried a few times; the
// ledger hands back the same shares to the same sessions, so a retry never
// issues a second share.
//
// A failure for want of a quorum (ErrNoQuorum: too few members live for a
// refresh, a decryption or the digest vote) is not an attempt: nothing was
// decided, so it is retried, one round timeout apart, until the request is
// decided or expires. A member down for longer than the attempts last (a
// validator's restart can take minutes) then finds its peers still trying
// when it is back, instead of every request given up without it.
func (s *server) failed(ctx context.Context, r chainio.Request, err error) {
	if ctx.Err() != nil {
		return
	}
	if s.decided(ctx, r) {
		// decided without this member (it was late) or expired
		// (FHEVerdict.expire answers it on chain): nothing to retry
		s.m.log.Debug("request decided on chain meanwhile: not retried", zap.String("request", fmt.Sprintf("%x", r.ID[:6])), zap.Error(err))
		return
	}
	noQuorum := errors.Is(err, ErrNoQuorum)
	s.mu.Lock()
	if noQuorum {
		s.waits[r.ID]++
	} else {
		s.attempts[r.ID]++
	}
	k, w := s.attempts[r.ID], s.waits[r.ID]
	again := (noQuorum || k < maxAttempts) && !permanent(err)
	if again {
		s.open[r.ID] = r.Block
	}
	s.mu.Unlock()
	s.m.log.Warn("request failed", zap.String("request", fmt.Sprintf("%x", r.ID[:6])), zap.Int("attempt", k), zap.Int("noQuorum", w), zap.Error(err))
	if !again {
		s.settle(r.ID)
		return
	}
	s.retryLater(ctx, r, s.retryDelay(k+w))
}

// permanent reports whether a request's failure would recur on every
// attempt, so retrying it only costs work: this member disagrees with the
// quorum's digest, the CRDT request does not fit the committee, or a
// refresh has no room at the level the evaluation reaches it.
func permanent(err error) bool {
	return errors.Is(err, ErrDigestMismatch) || errors.Is(err, circuit.ErrBadCRDTRequest) || errors.Is(err, protocol.ErrRefreshNoRoom)
}

// retryDelay is how long after its failed attempt k (1, 2, …) a request is
// retried: grace·2^(k−1), at most RoundTimeout.
func (s *server) retryDelay(k int) time.Duration {
	d := graceOf(s.m.cfg.RoundTimeout)
	for i := 1; i < k && d < s.m.cfg.RoundTimeout; i++ {
		d *= 2
	}
	return min(d, max(s.m.cfg.RoundTimeout, graceOf(s.m.cfg.RoundTimeout)))
}

// retryLater processes r again after delay, beside the serve loop (at most
// Parallel retries at once): a retry never holds up the loop's next step,
// which its peers may already be in ("Schedule"); it meets its peers'
// attempts of r because a request's sessions are named alike in every
// attempt. Its verdict is submitted, its failure goes back to failed.
func (s *server) retryLater(ctx context.Context, r chainio.Request, delay time.Duration) {
	s.m.wg.Add(1)
	go func() {
		defer s.m.wg.Done()
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return
		case <-s.m.closed:
			return
		}
		if !s.awaitRetryQuorum(ctx, r) {
			return
		}
		select {
		case s.retrySem <- struct{}{}:
			defer func() { <-s.retrySem }()
		case <-ctx.Done():
			return
		case <-s.m.closed:
			return
		}
		if s.decided(ctx, r) {
			return
		}
		s.attempt(ctx, r)
	}()
}

// awaitRetryQuorum is retryLater's gate: a retry waits (≤ RoundTimeout,
// holding no retry slot) until this member sees t live members, and when
// none come it counts as one more failure for want of a quorum without
// doing any of the request's work.
func (s *server) awaitRetryQuorum(ctx context.Context, r chainio.Request) bool {
	if s.m.beats.awaitQuorum(ctx) {
		return true
	}
	if ctx.Err() == nil {
		s.failed(ctx, r, fmt.Errorf("%w: fewer than t=%d members live", ErrNoQuorum, s.m.cfg.Committee.Threshold))
	}
	return false
}
