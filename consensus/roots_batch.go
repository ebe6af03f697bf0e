package consensus

// Input-root batches: the leaves one root round signs, the round that
// asks the peers for their signatures, and the wait for a leaf's root.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/transport"
)

// rootResult is a finished root round: the root, the batch's leaves'
// indices in it (−1: left out, not enough members attested that upload),
// the paths by index and the aggregate signature with its signer bitmap.
type rootResult struct {
	root      [32]byte
	index     []int
	paths     [][][32]byte
	signature []byte
	signers   []byte
}

// rootBatch is the leaves one root round signs. Leaves are appended while
// it is the batcher's open batch; done is closed when res or err is set.
type rootBatch struct {
	hold   time.Duration // the longest it waits for uploads in progress (rootBatcher.holdFor)
	leaves [][32]byte
	ready  chan struct{} // closed (once, under rootBatcher.mu) when it may close before its hold ends
	early  bool          // ready is closed
	why    string        // why it closed early (for the log)
	done   chan struct{}
	res    *rootResult
	err    error
}

// closeEarly lets the batch's round start now. Called with rootBatcher.mu held.
func (rb *rootBatch) closeEarly(why string) {
	if !rb.early {
		rb.early, rb.why = true, why
		close(rb.ready)
	}
}

// rootTicket is a rooted upload counted by rootBatcher.begin: when it
// began (a batch it opens holds as long as it took to be attested).
type rootTicket struct{ began time.Time }

// rootBatcher coalesces rooted uploads at the member that received them.
// The first leaf opens a batch, which then waits while rooted uploads are
// in progress here (being verified and replicated): it closes as soon as
// none is left (each has joined or failed), at MaxRootLeaves, or after its
// hold, whichever comes first. The hold is as long as the batch's first
// upload took from its arrival to its attestation, at most the window
// (RootWindow): an upload waits for its root at most as long again as it
// took to be attested — nothing on a member with no other upload in
// progress, milliseconds on an idle one, seconds under a burst. A burst
// thus fills one root however slowly the member attests it, and the
// uploads of a burst that arrive a little apart (clients answered by an
// earlier root coming back) join the same root instead of splitting the
// next ones. A goroutine (counted in the member's wait group) runs each
// batch's round.
type rootBatcher struct {
	mu      sync.Mutex
	open    *rootBatch
	pending int // rooted uploads begun and not yet enqueued or abandoned
	closed  bool
	rounds  chan struct{}    // root rounds in flight (maxRootRounds)
	window  time.Duration    // the longest hold: MemberConfig.RootWindow (rootWindow)
	now     func() time.Time // time.Now; tests set it
}

// begin counts a rooted upload that may join the open batch.
func (b *rootBatcher) begin() rootTicket {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pending++
	return rootTicket{began: b.clock()}
}

func (b *rootBatcher) clock() time.Time {
	if b.now != nil {
		return b.now()
	}
	return time.Now()
}

// holdFor is how long a batch opened by t's upload waits for the uploads in
// progress: as long as t's upload took, at most the window.
func (b *rootBatcher) holdFor(t rootTicket) time.Duration {
	return min(max(b.clock().Sub(t.began), 0), rootWindow(b.window))
}

// finish uncounts an upload (it joined a batch or failed); the open
// batch closes once no upload is left in progress. Called with b.mu held.
func (b *rootBatcher) finish() {
	b.pending--
	if b.pending == 0 && b.open != nil {
		b.open.closeEarly("no upload in progress is left")
	}
}

// abandon uncounts a rooted upload that failed before joining.
func (b *rootBatcher) abandon() {
	b.mu.Lock()
	b.finish()
	b.mu.Unlock()
}

// close stops new batches (Member.Close, before it waits for m.wg).
func (b *rootBatcher) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
}

// add puts leaf (of t's upload) into the open batch, opening one if none
// is; opened says it did. The caller starts an opened batch's round.
// Called with b.mu held.
func (b *rootBatcher) add(t rootTicket, leaf [32]byte) (rb *rootBatch, index int, opened bool) {
	if b.open == nil {
		b.open = &rootBatch{hold: b.holdFor(t), ready: make(chan struct{}), done: make(chan struct{})}
		opened = true
	}
	rb = b.open
	rb.leaves = append(rb.leaves, leaf)
	b.finish()
	if len(rb.leaves) == MaxRootLeaves {
		rb.closeEarly("full")
		b.open = nil
	}
	return rb, len(rb.leaves) - 1, opened
}

// seal ends rb's collection: it is no longer the open batch and its
// leaves are final. Called with b.mu held.
func (b *rootBatcher) seal(rb *rootBatch) [][32]byte {
	if b.open == rb {
		b.open = nil
	}
	return rb.leaves
}

// rootWindow is MemberConfig.RootWindow, DefaultRootWindow when ≤ 0.
func rootWindow(w time.Duration) time.Duration {
	if w <= 0 {
		return DefaultRootWindow
	}
	return w
}

// enqueue adds leaf (of t's upload, counted by begin) to the open batch,
// opening one if needed, and returns the batch and the leaf's index in it.
func (r *inputRoots) enqueue(t rootTicket, leaf [32]byte) (*rootBatch, int, error) {
	b := &r.batch
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		b.finish()
		return nil, 0, errors.New("member closed")
	}
	rb, i, opened := b.add(t, leaf)
	if opened {
		r.wg.Add(1)
		go r.runBatch(rb)
	}
	return rb, i, nil
}

// runBatch waits for the batch to close, runs its round and publishes
// the result to its waiters.
func (r *inputRoots) runBatch(rb *rootBatch) {
	defer r.wg.Done()
	defer close(rb.done)
	start := time.Now()
	t := time.NewTimer(rb.hold)
	defer t.Stop()
	closing := false
	why := "its hold ended"
	select {
	case <-t.C:
	case <-rb.ready:
	case <-r.closed:
		closing = true
	}
	b := &r.batch
	b.mu.Lock()
	leaves := b.seal(rb) // no more appends: rb is no longer open
	if rb.early {
		why = rb.why
	}
	b.mu.Unlock()
	if closing {
		rb.err = errors.New("member closed")
		return
	}
	r.log.Debug("input root batch closed", zap.Int("leaves", len(leaves)), zap.Duration("collected", time.Since(start)),
		zap.Duration("hold", rb.hold), zap.String("why", why))
	select {
	case b.rounds <- struct{}{}:
		defer func() { <-b.rounds }()
	default:
		rb.err = fmt.Errorf("%d root rounds already in flight", maxRootRounds)
		return
	}
	// A peer marked unresponsive (it missed a round's deadline on a busy
	// host) is not asked until its heartbeat re-admits it: let the
	// heartbeats do so first, rather than fail the root of every upload in
	// the batch for want of a quorum (the serve loop waits the same way).
	if r.live != nil {
		r.live()
	}
	rb.res, rb.err = r.round(leaves)
}

// round asks the live members to sign the root of leaves (all signed
// by this member, per upload) and aggregates the signatures that verify,
// with the quorum logic of UploadBatch. Without a quorum it tries once more
// over the leaves that enough members know (subset): the uploads some
// members missed (a StorePut dropped at their bound, a restart) then go
// without a root instead of taking the whole batch with them.
func (r *inputRoots) round(leaves [][32]byte) (*rootResult, error) {
	res, answers, err := r.roundOnce(leaves)
	if !errors.Is(err, ErrNoQuorum) {
		return res, err
	}
	keep := r.subset(len(leaves), answers)
	if len(keep) == 0 || len(keep) == len(leaves) {
		return nil, err
	}
	sub := make([][32]byte, len(keep))
	for j, i := range keep {
		sub[j] = leaves[i]
	}
	r.log.Warn("input root: retrying without the uploads too few members attested",
		zap.Int("leaves", len(leaves)), zap.Int("kept", len(keep)), zap.Error(err))
	res, _, err = r.roundOnce(sub)
	if err != nil {
		return nil, err
	}
	index := make([]int, len(leaves))
	for i := range index {
		index[i] = -1
	}
	for j, i := range keep {
		index[i] = j
	}
	res.index = index
	return res, nil
}

// roundOnce is one root round over leaves; it also returns the
// members' answers that were not signatures.
func (r *inputRoots) roundOnce(leaves [][32]byte) (*rootResult, map[transport.MemberID][]byte, error) {
	epoch := r.epoch
	root, paths, err := bls.InputRootTree(leaves)
	if err != nil {
		return nil, nil, err
	}
	d := bls.InputRootDigest(r.chain(), epoch, root)
	sigs := map[transport.MemberID][]byte{}
	if err := r.signable(epoch, leaves); err == nil {
		sigs[r.self] = r.key.Sign(d[:]) // the root just built: no second tree
	} else {
		r.log.Warn("this member does not sign its own root", zap.Error(err))
	}
	session := fmt.Sprintf("root/%d/%x/%x", epoch, root[:], randTag())
	answers := r.peers.collect(context.Background(), transport.Message{Type: transport.TypeRootSign, Session: session, Payload: rootSign(epoch, leaves)},
		transport.TypeRootAck, d, sigs, "root")
	index := make([]int, len(leaves))
	for i := range index {
		index[i] = i
	}
	res := &rootResult{root: root, index: index, paths: paths}
	if res.signature, res.signers, err = r.peers.aggregate(sigs); err != nil {
		return nil, answers, err
	}
	return res, answers, nil
}

// subset picks, from the members' partial answers (rootPartial ‖ the
// bitmap of the n leaves each signed), the threshold − 1 members that know
// the most leaves (this member knows them all) and returns the indices of
// the leaves all of them know, in order; nil when too few members answered.
func (r *inputRoots) subset(n int, answers map[transport.MemberID][]byte) []int {
	type peer struct {
		id    transport.MemberID
		known []bool
		count int
	}
	var peers []peer
	for id, a := range answers {
		if id == r.self || len(a) != 1+(n+7)/8 || a[0] != rootPartial {
			continue
		}
		p := peer{id: id, known: make([]bool, n)}
		for i := range n {
			if a[1+i/8]>>(i%8)&1 == 1 {
				p.known[i] = true
				p.count++
			}
		}
		peers = append(peers, p)
	}
	need := r.threshold - 1
	if need < 0 || len(peers) < need {
		return nil
	}
	sort.Slice(peers, func(a, b int) bool {
		if peers[a].count != peers[b].count {
			return peers[a].count > peers[b].count
		}
		return peers[a].id < peers[b].id
	})
	var keep []int
	for i := range n {
		all := true
		for _, p := range peers[:need] {
			all = all && p.known[i]
		}
		if all {
			keep = append(keep, i)
		}
	}
	return keep
}

// await puts an upload's digest (this member signed it) into the open
// root batch and waits for the batch's round: the upload's root
// attestation, or why there is none. A waiter that gives up (ctx) leaves
// the batch and its round to the others.
func (r *inputRoots) await(ctx context.Context, t rootTicket, leaf [32]byte) (*api.InputRootAttestation, error) {
	rb, i, err := r.enqueue(t, leaf)
	if err != nil {
		return nil, err
	}
	select {
	case <-rb.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-r.closed:
		return nil, errors.New("member closed")
	}
	if rb.err != nil {
		return nil, rb.err
	}
	res := rb.res
	j := res.index[i]
	if j < 0 {
		return nil, errors.New("too few members attested this upload for the batch's root (it was signed without it)")
	}
	return &api.InputRootAttestation{Root: res.root, Index: uint64(j), Path: res.paths[j],
		Signature: bytes.Clone(res.signature), Signers: bytes.Clone(res.signers)}, nil
}
