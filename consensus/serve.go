package consensus

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/pipeline"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/consensus/transport"
)

// maxAttempts is how many times the serve loop processes a request that
// keeps failing (transiently) before it gives up on it (FHEVerdict.expire
// answers it on chain then). Attempt k+1 starts grace·2^(k−1) after attempt
// k failed, at most one RoundTimeout later (retryDelay): members whose
// attempts failed at different times (one was slow, restarted or fetching
// inputs) meet again in a later attempt — the sessions of a request are
// named alike in every attempt and the coin toss contributes the same value
// in each (protocol.CoinToss, "Retries") — within about a minute at the
// default timeouts.
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
	s := &server{m: m, chain: chain, attempts: map[[32]byte]int{}, open: map[[32]byte]uint64{}, inFlight: make(chan struct{}, m.cfg.Parallel), retrySem: make(chan struct{}, m.cfg.Parallel),
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
	maxBlock := uint64(0)
	s.m.beats.awaitQuorum(ctx)
	for _, r := range todo {
		maxBlock = max(maxBlock, r.Block)
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
	if maxBlock > 0 {
		s.advanceCursor(maxBlock)
	}
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
// verdicts posted with SubmitVerdictBatch; a packed batch that fails falls
// back to the per-request path (retried there as usual).
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
		if err != nil && ctx.Err() == nil && !permanent(err) && vector {
			// a vector request alone is a whole packed evaluation: retry the
			// batch once (a new session, with the members now live) before
			// answering its requests one by one
			s.m.log.Warn("vector batch failed: retrying it as a batch", zap.String("batch", b.Session), zap.Error(err))
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
		for _, vb := range pipeline.VerdictBatches(vs) { // one, or the parts of an isolated batch (isolate.go)
			s.m.wg.Add(1)
			go func() { defer s.m.wg.Done(); s.submitBatch(ctx, vb) }()
		}
		maxBlock := uint64(0)
		for _, r := range b.Requests {
			maxBlock = max(maxBlock, r.Block)
		}
		s.advanceCursor(maxBlock)
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
	maxBlock := uint64(0)
	for _, r := range b.Requests {
		maxBlock = max(maxBlock, r.Block)
	}
	s.advanceCursor(maxBlock)
	return true
}

// failed logs a failed request and retries it later, unless it failed
// maxAttempts times already or this member disagrees with the quorum.
// Transient failures (a member died mid-round) are retried a few times; the
// ledger hands back the same shares to the same sessions, so a retry never
// issues a second share.
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
	s.mu.Lock()
	s.attempts[r.ID]++
	k := s.attempts[r.ID]
	again := k < maxAttempts && !permanent(err)
	if again {
		s.open[r.ID] = r.Block
	}
	s.mu.Unlock()
	s.m.log.Warn("request failed", zap.String("request", fmt.Sprintf("%x", r.ID[:6])), zap.Int("attempt", k), zap.Error(err))
	if !again {
		s.settle(r.ID)
		return
	}
	s.retryLater(ctx, r, s.retryDelay(k))
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
	d := s.m.grace()
	for i := 1; i < k && d < s.m.cfg.RoundTimeout; i++ {
		d *= 2
	}
	return min(d, max(s.m.cfg.RoundTimeout, s.m.grace()))
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
