package consensus

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/store"
)

// maxAttempts is how many times the serve loop processes a request that
// keeps failing (transiently) before it gives up on it (FHEVerdict.expire
// answers it on chain then). Attempt k+1 starts grace·2^(k−1) after attempt
// k failed, at most one RoundTimeout later (retryDelay): members whose
// attempts failed at different times (one was slow, restarted or fetching
// inputs) meet again in a later attempt — the sessions of a request are
// named alike in every attempt and the coin toss contributes the same value
// in each (protocol.CoinToss, "Retries") — within about a minute at the
// default timeouts. Failures for want of a quorum are not attempts
// (failed): they are retried until the request is decided or expires.
const maxAttempts = 6

// server is one Run loop: the batch being collected, the attempts per failed
// request, the channel failed requests come back on and the block cursor.
type server struct {
	m        *Member
	chain    chainio.ChainAdapter
	batch    []chainio.Request
	cursor   uint64 // first block not yet fully answered (persisted as meta "cursor")
	bat      *chainio.Batcher
	head     atomic.Uint64 // bat.Head(), for the retries' expiry check
	marks    bool          // the chain delivers block marks: they, not the clock, flush the per-request batch
	making   atomic.Bool   // a BlockMaker call is in flight
	lastMake time.Time     // when the last one started

	rechecking  atomic.Bool // a recheckUnanswered pass is in flight
	lastRecheck time.Time   // when the last one started

	mu       sync.Mutex          // attempts and open: requests run beside the loop
	attempts map[[32]byte]int    // failed attempts per request
	waits    map[[32]byte]int    // failures for want of a quorum per request (not attempts: failed)
	open     map[[32]byte]uint64 // requests in flight or to be retried → block (the cursor stays below)
	inFlight chan struct{}       // one-by-one first attempts in flight (Parallel at most)
	retrySem chan struct{}       // retries in flight (Parallel at most)
}

// Run serves requests from the chain until ctx ends: it batches them
// (packing windows closed by block marks, batch.go; the per-request batch
// by BatchSize / BatchInterval), processes each batch and posts the verdicts
// (the lowest signer at once, the k-th signer after k·SubmitStagger if no
// verdict was accepted meanwhile). Requests already answered are skipped;
// the block cursor is persisted, so a restart resumes where it stopped.
func (m *Member) Run(ctx context.Context, chain chainio.ChainAdapter) error {
	if _, err := m.Keys(); err != nil {
		return err
	}
	s := &server{m: m, chain: chain, attempts: map[[32]byte]int{}, waits: map[[32]byte]int{}, open: map[[32]byte]uint64{}, inFlight: make(chan struct{}, m.cfg.Parallel), retrySem: make(chan struct{}, m.cfg.Parallel),
		cursor: loadCursor(m.st), bat: chainio.NewBatcher(m.cfg.BatchWindow, m.params.Slots(), m.cfg.ExpiryBlocks)}
	reqs, err := chain.Requests(ctx, s.cursor)
	if err != nil {
		return err
	}
	tick := time.NewTicker(m.cfg.BatchInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-m.closed:
			return nil
		case r, ok := <-reqs:
			if !ok {
				s.flush(ctx)
				return nil
			}
			s.add(ctx, r)
			s.head.Store(s.bat.Head())
			m.requests.setHead(s.bat.Head())
		case <-tick.C:
			if !s.marks { // a chain without block marks: the clock closes the per-request batch
				s.flush(ctx)
			}
			s.makeBlocks(ctx)
			s.recheckUnanswered(ctx)
		}
	}
}

// recheckEvery and recheckBatch pace recheckUnanswered: at most
// recheckBatch verdictOf reads every recheckEvery.
const (
	recheckEvery = 2 * time.Second
	recheckBatch = 8
)

// recheckUnanswered asks the chain whether the oldest requests this member
// counts as unanswered have a verdict by now — a peer's, posted after this
// member's own submission failed or its turn passed — so Status.Unanswered
// converges to what the chain says. One pass in flight at a time, beside
// the loop.
func (s *server) recheckUnanswered(ctx context.Context) {
	if s.rechecking.Load() || time.Since(s.lastRecheck) < recheckEvery {
		return
	}
	ids := s.m.requests.oldest(recheckBatch)
	if len(ids) == 0 {
		return
	}
	s.rechecking.Store(true)
	s.lastRecheck = time.Now()
	s.m.wg.Add(1)
	go func() {
		defer s.m.wg.Done()
		defer s.rechecking.Store(false)
		for _, id := range ids {
			if posted, err := s.chain.VerdictPosted(ctx, id); err == nil && posted {
				s.m.requests.answered(id)
			}
		}
	}()
}

// decided reports whether r needs no more work from this member: its
// verdict is on chain, or it expired (FHEVerdict.expire answers it). A
// member that fell behind drops such requests instead of replaying their
// sessions, which its peers finished long ago. Safe beside the loop.
func (s *server) decided(ctx context.Context, r chainio.Request) bool {
	if s.bat.ExpiredAt(s.head.Load(), r) {
		s.settle(r.ID)
		s.m.requests.answered(r.ID)
		return true
	}
	if posted, err := s.chain.VerdictPosted(ctx, r.ID); err == nil && posted {
		s.settle(r.ID)
		s.m.requests.answered(r.ID)
		s.m.decidedDropped.Add(1)
		return true
	}
	return false
}

// settle forgets a request's failed attempts: it was answered, decided,
// expired or given up.
func (s *server) settle(id [32]byte) {
	s.mu.Lock()
	delete(s.attempts, id)
	delete(s.waits, id)
	delete(s.open, id)
	s.mu.Unlock()
}

// makeBlocks asks a chain that can make blocks (BlockMaker) for the blocks
// up to the oldest open window's last one, when no request or block mark
// came for BatchIdle; one call in flight at a time. The window then closes
// on the block mark of its last block, like any other.
func (s *server) makeBlocks(ctx context.Context) {
	bm, ok := s.chain.(chainio.BlockMaker)
	idle := s.m.cfg.BatchIdle
	if !ok || s.making.Load() || time.Since(s.bat.LastSeen) < idle || time.Since(s.lastMake) < idle {
		return
	}
	upTo, open := s.bat.WaitingFor()
	if !open || upTo <= s.bat.Complete {
		return
	}
	s.making.Store(true)
	s.lastMake = time.Now()
	s.m.wg.Add(1)
	go func() {
		defer s.m.wg.Done()
		defer s.making.Store(false)
		if err := bm.MakeBlocks(ctx, upTo); err != nil && ctx.Err() == nil {
			s.m.log.Debug("could not ask the chain for blocks", zap.Uint64("upTo", upTo), zap.Error(err))
		}
	}()
}

// loadCursor returns the block cursor persisted in st (0 if none).
func loadCursor(st *store.Store) uint64 {
	if b, err := st.GetMeta("cursor"); err == nil && len(b) == 8 {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

// add queues a request from the chain unless a verdict for it is already
// posted or it expired: a packable one into its window (batch.go), any
// other into the per-request batch. A block mark (or a packable request of
// a later block) completes blocks: runDue runs their steps.
//
// Schedule. Every member must run the same sessions in the same order, or
// members wait for each other in different sessions: under CPU pressure a
// member that flushed its per-request batch on a clock tick while its peers
// had already taken the next block's packed batch waited a round timeout in
// a session no peer was in, while they waited for it in theirs; all marked
// each other down and the committee split. So, with a chain that delivers
// block marks, nothing here follows a clock: for each block h, in order, the
// packed batches of the windows that end at h run, then the per-request
// requests of the blocks ≤ h (a failed packed batch's requests included)
// start, in chain order (runDue, answer) — the same order whatever chunks
// the chain adapter delivered the blocks in. One-by-one requests and
// retries run beside the loop (answer, retryLater), never holding up the
// next step.
func (s *server) add(ctx context.Context, r chainio.Request) {
	s.bat.LastSeen = time.Now()
	if r.Kind == chainio.KindBlockSeen {
		s.marks = true
		s.bat.BlockSeen(r.Block)
		s.runDue(ctx)
		s.m.marks.SetProgress(r.Block)
		return
	}
	if posted, err := s.chain.VerdictPosted(ctx, r.ID); err == nil && posted {
		return
	}
	s.m.requests.saw(r.ID, r.Block)
	if s.packable(r) && s.bat.Add(r) {
		s.runDue(ctx)
		return
	}
	s.bat.Saw(r.Block)
	if s.bat.Expired(r) {
		s.m.log.Warn("request expired: dropped", zap.String("request", fmt.Sprintf("%x", r.ID[:6])), zap.Uint64("block", r.Block))
		s.m.requests.answered(r.ID) // FHEVerdict.expire answers it
		return
	}
	s.batch = append(s.batch, r)
	if !s.marks && len(s.batch) >= s.m.cfg.BatchSize {
		s.flush(ctx)
	}
}

// runDue runs the steps the completed blocks allow (add, "Schedule";
// chainio.Batcher.RunDue), or, with a chain without block marks, the due
// packed batches alone.
func (s *server) runDue(ctx context.Context) {
	if !s.marks {
		s.runPacked(ctx, s.bat.Due())
		return
	}
	s.bat.RunDue(&s.batch, func(b chainio.PackedBatch) { s.runPacked(ctx, []chainio.PackedBatch{b}) },
		func(rs []chainio.Request) { s.answer(ctx, rs) })
}

// flush answers the whole per-request batch (a chain without block marks,
// or the end of the request stream).
func (s *server) flush(ctx context.Context) {
	todo := s.batch
	s.batch = nil
	s.answer(ctx, todo)
}

// answer starts requests one by one in their order beside the loop (at
// most Parallel in flight), skipping those decided on chain meanwhile; the
// next step does not wait for them ("Schedule"; docs/committee.md, "Soak
// under CPU pressure"). The cursor stays below a request until it settles.
func (s *server) answer(ctx context.Context, todo []chainio.Request) {
	s.m.beats.awaitQuorum(ctx)
	for _, r := range todo {
		if s.decided(ctx, r) {
			continue
		}
		s.mu.Lock()
		_, busy := s.open[r.ID] // re-delivered while in flight or waiting for a retry
		s.open[r.ID] = r.Block
		s.mu.Unlock()
		if busy {
			continue
		}
		select {
		case s.inFlight <- struct{}{}:
		case <-ctx.Done():
			return
		case <-s.m.closed:
			return
		}
		s.m.wg.Add(1)
		go func() {
			defer s.m.wg.Done()
			defer func() { <-s.inFlight }()
			s.attempt(ctx, r)
		}()
	}
	if maxBlock := maxBlockOf(todo); maxBlock > 0 {
		s.advanceCursor(maxBlock)
	}
}

// maxBlockOf is the highest block of reqs (0 for none).
func maxBlockOf(reqs []chainio.Request) uint64 {
	var b uint64
	for _, r := range reqs {
		b = max(b, r.Block)
	}
	return b
}

// attempt processes r once: its verdict is submitted, its failure failed.
func (s *server) attempt(ctx context.Context, r chainio.Request) {
	v, err := s.m.Process(ctx, r)
	if err != nil {
		s.failed(ctx, r, err)
		return
	}
	s.settle(r.ID)
	s.submit(ctx, v)
}

// advanceCursor moves the cursor past block maxBlock (if it is not past it
// already, and not past a request still waiting in a window or in the
// per-request batch) and persists it.
func (s *server) advanceCursor(maxBlock uint64) {
	next := maxBlock + 1
	if lo, ok := s.bat.MinBlock(); ok && lo < next {
		next = lo
	}
	for _, r := range s.batch {
		next = min(next, r.Block)
	}
	s.mu.Lock()
	for _, b := range s.open {
		next = min(next, b)
	}
	s.mu.Unlock()
	if next <= s.cursor {
		return
	}
	s.cursor = next
	_ = s.m.st.PutMeta("cursor", binary.BigEndian.AppendUint64(nil, s.cursor))
}
