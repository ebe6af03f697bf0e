package consensus

import (
	"bytes"
	"context"
	"encoding/binary"
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

// Input roots. Every upload gets its own quorum attestation over
// bls.InputBatchDigest (one pairing on chain per upload). A rooted upload
// (UploadBatchRooted, POST /v1/inputs with "rooted": true) also gets a
// second, optional attestation: the member whose API received it collects
// the digests of the rooted uploads it attests until RootWindow has passed
// or none is left in progress there, and the committee signs one Merkle
// root over them (bls.InputRootTree), so the
// chain verifies one pairing per root (FHEPolicy.evaluateRooted). A member
// signs a root only over digests it signed itself, per upload, within
// SignedDigestTTL: a root attests nothing the members did not attest one
// by one.

// Input-root bounds.
const (
	// MaxRootLeaves bounds the uploads of one root (a round's payload is
	// 12 + 32·MaxRootLeaves bytes; the path is 10 siblings).
	MaxRootLeaves = 1024
	// DefaultRootWindow is how long a root's batch collects uploads
	// (MemberConfig.RootWindow).
	DefaultRootWindow = 100 * time.Millisecond
	// SignedDigestTTL is how long a member remembers an upload digest it
	// signed, i.e. how long after an upload a root may include it.
	SignedDigestTTL = 10 * time.Minute
	// MaxSignedDigests bounds the digests a member remembers (the oldest
	// are forgotten first), whatever its peers and clients send.
	MaxSignedDigests = 1 << 16
	// MaxConcurrentRootSigns bounds the TypeRootSign requests a member
	// handles at once; beyond it they are answered "busy" (or, past the
	// busy answers one peer may have in flight, dropped with a log), like
	// StorePut.
	MaxConcurrentRootSigns = 16
	// maxRootRounds bounds the root rounds a coordinator runs at once;
	// beyond it a batch is answered without a root.
	maxRootRounds = 16
	// rootLeafWait is how long a member asked to sign a root waits for a
	// leaf it has not signed yet: the upload's StorePut may still be on its
	// way or in its handler (the coordinator went on with the other
	// members' acknowledgements), and a lagging member would otherwise
	// refuse every root under load.
	rootLeafWait = 2 * time.Second
)

// signedLog remembers the upload digests a member signed, for
// SignedDigestTTL and at most MaxSignedDigests of them (oldest forgotten
// first). Safe for concurrent use.
type signedLog struct {
	mu  sync.Mutex
	ttl time.Duration
	max int
	now func() time.Time
	at  map[[32]byte]signedAt
	q   []signedEntry // insertion order; an entry whose seq is stale is skipped
	seq uint64
}

type signedAt struct {
	t   time.Time
	seq uint64
}

type signedEntry struct {
	d   [32]byte
	seq uint64
}

func newSignedLog(ttl time.Duration, max int) *signedLog {
	return &signedLog{ttl: ttl, max: max, now: time.Now, at: map[[32]byte]signedAt{}}
}

// add records d as signed now (again: its lifetime restarts).
func (l *signedLog) add(d [32]byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.seq++
	l.at[d] = signedAt{t: now, seq: l.seq}
	l.q = append(l.q, signedEntry{d: d, seq: l.seq})
	l.prune(now)
}

// has reports whether d was signed less than ttl ago (and not forgotten).
func (l *signedLog) has(d [32]byte) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.prune(now)
	a, ok := l.at[d]
	return ok && now.Sub(a.t) < l.ttl
}

// awaitAll waits up to wait (or until stop is closed) for every digest of
// ds to be remembered, and returns true, or false with the index of the
// first one that is not.
func (l *signedLog) awaitAll(ds [][32]byte, wait time.Duration, stop <-chan struct{}) (int, bool) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	i := 0
	for {
		for i < len(ds) && l.has(ds[i]) {
			i++
		}
		if i == len(ds) {
			return 0, true
		}
		select {
		case <-deadline.C:
			return i, false
		case <-stop:
			return i, false
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// len returns how many digests are remembered.
func (l *signedLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.at)
}

// prune forgets the oldest digests while more than max are remembered or
// the oldest has expired, and drops the queue entries of digests signed
// again since (compacting the queue when they make up half of it, so that
// re-signing one digest over and over cannot grow it). Called with l.mu
// held.
func (l *signedLog) prune(now time.Time) {
	for len(l.q) > 0 {
		e := l.q[0]
		a, live := l.at[e.d]
		current := live && a.seq == e.seq
		if current && len(l.at) <= l.max && now.Sub(a.t) < l.ttl {
			break
		}
		if current {
			delete(l.at, e.d)
		}
		l.q[0] = signedEntry{}
		l.q = l.q[1:]
	}
	if len(l.q) == 0 {
		l.q = nil // release the backing array
		return
	}
	if len(l.q) > 2*l.max {
		q := make([]signedEntry, 0, len(l.at))
		for _, e := range l.q {
			if a, ok := l.at[e.d]; ok && a.seq == e.seq {
				q = append(q, e)
			}
		}
		l.q = q
	}
}

// rootSign encodes a TypeRootSign payload: epoch(8) ‖ count(4) ‖
// count×32-byte leaves (big-endian).
func rootSign(epoch uint64, leaves [][32]byte) []byte {
	out := make([]byte, 0, 12+32*len(leaves))
	out = binary.BigEndian.AppendUint64(out, epoch)
	out = binary.BigEndian.AppendUint32(out, uint32(len(leaves)))
	for _, l := range leaves {
		out = append(out, l[:]...)
	}
	return out
}

// parseRootSign decodes a TypeRootSign payload. The count is checked
// against [1, MaxRootLeaves] and the payload's exact length before any
// allocation.
func parseRootSign(b []byte) (epoch uint64, leaves [][32]byte, err error) {
	if len(b) < 12 {
		return 0, nil, fmt.Errorf("root request of %d bytes, shorter than its 12-byte header", len(b))
	}
	epoch = binary.BigEndian.Uint64(b[:8])
	n := binary.BigEndian.Uint32(b[8:12])
	if n == 0 || n > MaxRootLeaves {
		return 0, nil, fmt.Errorf("root request of %d leaves outside [1,%d]", n, MaxRootLeaves)
	}
	if want := 12 + 32*int(n); len(b) != want {
		return 0, nil, fmt.Errorf("root request of %d leaves is %d bytes, want %d", n, len(b), want)
	}
	leaves = make([][32]byte, n)
	for i := range leaves {
		copy(leaves[i][:], b[12+32*i:])
	}
	return epoch, leaves, nil
}

// signRoot is this member's signature over the root of leaves for epoch,
// given only if rootSignable.
func (m *Member) signRoot(epoch uint64, leaves [][32]byte) ([]byte, error) {
	if err := m.rootSignable(epoch, leaves); err != nil {
		return nil, err
	}
	root, _, err := bls.InputRootTree(leaves)
	if err != nil {
		return nil, err
	}
	d := bls.InputRootDigest(m.chain(), epoch, root)
	return m.cfg.BLSKey.Sign(d[:]), nil
}

// rootSignable checks that this member may sign a root of leaves for
// epoch: epoch is the committee's and every leaf is an upload digest this
// member signed within SignedDigestTTL (waiting up to rootLeafWait for
// late ones); otherwise an *unknownLeavesError says which leaves it knows.
func (m *Member) rootSignable(epoch uint64, leaves [][32]byte) error {
	if epoch != m.cfg.Committee.Epoch {
		return fmt.Errorf("root for epoch %d, this committee's epoch is %d", epoch, m.cfg.Committee.Epoch)
	}
	if len(leaves) == 0 || len(leaves) > MaxRootLeaves {
		return fmt.Errorf("root of %d leaves outside [1,%d]", len(leaves), MaxRootLeaves)
	}
	if i, ok := m.signed.awaitAll(leaves, rootLeafWait, m.closed); !ok {
		known := make([]bool, len(leaves))
		for j, l := range leaves {
			known[j] = m.signed.has(l)
		}
		return &unknownLeavesError{first: i, leaf: leaves[i], ttl: m.signed.ttl, known: known}
	}
	return nil
}

// unknownLeavesError is rootSignable's refusal of a root with leaves this
// member did not sign: known says which of them it did.
type unknownLeavesError struct {
	first int
	leaf  [32]byte
	ttl   time.Duration
	known []bool
}

func (e *unknownLeavesError) Error() string {
	return fmt.Sprintf("leaf %d (%x…) is not an upload digest this member signed in the last %s", e.first, e.leaf[:8], e.ttl)
}

// Root acknowledgement statuses (TypeRootAck's first byte).
const (
	rootRefused = 0 // ‖ reason
	rootSigned  = 1 // ‖ BLS signature
	rootPartial = 2 // ‖ bitmap of the leaves this member signed (bit i of byte i/8, LSB first)
)

// onRootSign answers a peer's TypeRootSign with a TypeRootAck: 1 ‖ this
// member's signature, 2 ‖ the bitmap of the leaves it knows when it did not
// sign them all (the coordinator may then ask for the root of a subset),
// or 0 ‖ why it refuses. At most
// MaxConcurrentRootSigns run at once; the excess is dropped with a log.
func (m *Member) onRootSign(msg transport.Message) {
	m.peers.answer(msg, m.rootSem, "root", "the coordinator", transport.TypeRootAck, func() []byte {
		if m.cfg.Knobs.RefuseRootSign {
			return append([]byte{0}, "refused (test knob)"...)
		}
		epoch, leaves, err := parseRootSign(msg.Payload)
		if err != nil {
			return append([]byte{0}, err.Error()...)
		}
		sig, err := m.signRoot(epoch, leaves)
		var ule *unknownLeavesError
		switch {
		case errors.As(err, &ule):
			bm := make([]byte, 1+(len(leaves)+7)/8)
			bm[0] = rootPartial
			for i, k := range ule.known {
				if k {
					bm[1+i/8] |= 1 << (i % 8)
				}
			}
			return bm
		case err != nil:
			return append([]byte{rootRefused}, err.Error()...)
		}
		return append([]byte{rootSigned}, sig...)
	})
}

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
	leaves [][32]byte
	ready  chan struct{} // closed (once, under rootBatcher.mu) when it may close before its window
	early  bool          // ready is closed
	done   chan struct{}
	res    *rootResult
	err    error
}

// closeEarly lets the batch's round start now. Called with rootBatcher.mu held.
func (rb *rootBatch) closeEarly() {
	if !rb.early {
		rb.early = true
		close(rb.ready)
	}
}

// rootBatcher coalesces rooted uploads at the member that received them:
// the first leaf opens a batch, which closes after the window, at
// MaxRootLeaves, or as soon as no rooted upload is still being verified
// and replicated here (every upload that could join has joined: a quiet
// member does not hold its uploads for the whole window); a goroutine
// (counted in Member.wg) then runs its round.
type rootBatcher struct {
	mu      sync.Mutex
	open    *rootBatch
	pending int // rooted uploads begun and not yet enqueued or abandoned
	closed  bool
	rounds  chan struct{} // root rounds in flight (maxRootRounds)
}

// begin counts a rooted upload that may join the open batch.
func (b *rootBatcher) begin() {
	b.mu.Lock()
	b.pending++
	b.mu.Unlock()
}

// abandon uncounts a rooted upload that failed before joining.
func (b *rootBatcher) abandon() {
	b.mu.Lock()
	b.pending--
	if b.pending == 0 && b.open != nil {
		b.open.closeEarly()
	}
	b.mu.Unlock()
}

// close stops new batches (Member.Close, before it waits for m.wg).
func (b *rootBatcher) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
}

// rootWindow is MemberConfig.RootWindow, DefaultRootWindow when ≤ 0.
func (m *Member) rootWindow() time.Duration {
	if m.cfg.RootWindow <= 0 {
		return DefaultRootWindow
	}
	return m.cfg.RootWindow
}

// enqueueRoot adds leaf (of an upload counted by begin) to the open batch,
// opening one if needed, and returns the batch and the leaf's index in it.
func (m *Member) enqueueRoot(leaf [32]byte) (*rootBatch, int, error) {
	b := &m.roots
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pending--
	if b.closed {
		return nil, 0, errors.New("member closed")
	}
	if b.open == nil {
		nb := &rootBatch{ready: make(chan struct{}), done: make(chan struct{})}
		b.open = nb
		m.wg.Add(1)
		go m.runRootBatch(nb)
	}
	rb := b.open
	rb.leaves = append(rb.leaves, leaf)
	if len(rb.leaves) == MaxRootLeaves {
		rb.closeEarly()
		b.open = nil
	} else if b.pending == 0 {
		rb.closeEarly()
	}
	return rb, len(rb.leaves) - 1, nil
}

// runRootBatch waits for the batch to close, runs its round and publishes
// the result to its waiters.
func (m *Member) runRootBatch(rb *rootBatch) {
	defer m.wg.Done()
	defer close(rb.done)
	t := time.NewTimer(m.rootWindow())
	defer t.Stop()
	closing := false
	select {
	case <-t.C:
	case <-rb.ready:
	case <-m.closed:
		closing = true
	}
	b := &m.roots
	b.mu.Lock()
	if b.open == rb {
		b.open = nil
	}
	leaves := rb.leaves // no more appends: rb is no longer open
	b.mu.Unlock()
	if closing {
		rb.err = errors.New("member closed")
		return
	}
	select {
	case b.rounds <- struct{}{}:
		defer func() { <-b.rounds }()
	default:
		rb.err = fmt.Errorf("%d root rounds already in flight", maxRootRounds)
		return
	}
	rb.res, rb.err = m.rootRound(leaves)
}

// rootRound asks the live members to sign the root of leaves (all signed
// by this member, per upload) and aggregates the signatures that verify,
// with the quorum logic of UploadBatch. Without a quorum it tries once more
// over the leaves that enough members know (rootSubset): the uploads some
// members missed (a StorePut dropped at their bound, a restart) then go
// without a root instead of taking the whole batch with them.
func (m *Member) rootRound(leaves [][32]byte) (*rootResult, error) {
	res, answers, err := m.rootRoundOnce(leaves)
	if !errors.Is(err, ErrNoQuorum) {
		return res, err
	}
	keep := m.rootSubset(len(leaves), answers)
	if len(keep) == 0 || len(keep) == len(leaves) {
		return nil, err
	}
	sub := make([][32]byte, len(keep))
	for j, i := range keep {
		sub[j] = leaves[i]
	}
	m.log.Warn("input root: retrying without the uploads too few members attested",
		zap.Int("leaves", len(leaves)), zap.Int("kept", len(keep)), zap.Error(err))
	res, _, err = m.rootRoundOnce(sub)
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

// rootRoundOnce is one root round over leaves; it also returns the
// members' answers that were not signatures.
func (m *Member) rootRoundOnce(leaves [][32]byte) (*rootResult, map[transport.MemberID][]byte, error) {
	epoch := m.cfg.Committee.Epoch
	root, paths, err := bls.InputRootTree(leaves)
	if err != nil {
		return nil, nil, err
	}
	d := bls.InputRootDigest(m.chain(), epoch, root)
	sigs := map[transport.MemberID][]byte{}
	if err := m.rootSignable(epoch, leaves); err == nil {
		sigs[m.id] = m.cfg.BLSKey.Sign(d[:]) // the root just built: no second tree
	} else {
		m.log.Warn("this member does not sign its own root", zap.Error(err))
	}
	session := fmt.Sprintf("root/%d/%x/%x", epoch, root[:], randTag())
	answers := m.peers.collect(context.Background(), transport.Message{Type: transport.TypeRootSign, Session: session, Payload: rootSign(epoch, leaves)},
		transport.TypeRootAck, d, sigs, "root")
	index := make([]int, len(leaves))
	for i := range index {
		index[i] = i
	}
	res := &rootResult{root: root, index: index, paths: paths}
	if res.signature, res.signers, err = m.peers.aggregate(sigs); err != nil {
		return nil, answers, err
	}
	return res, answers, nil
}

// rootSubset picks, from the members' partial answers (rootPartial ‖ the
// bitmap of the n leaves each signed), the threshold − 1 members that know
// the most leaves (this member knows them all) and returns the indices of
// the leaves all of them know, in order; nil when too few members answered.
func (m *Member) rootSubset(n int, answers map[transport.MemberID][]byte) []int {
	type peer struct {
		id    transport.MemberID
		known []bool
		count int
	}
	var peers []peer
	for id, a := range answers {
		if id == m.id || len(a) != 1+(n+7)/8 || a[0] != rootPartial {
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
	need := m.cfg.Committee.Threshold - 1
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

// awaitRoot puts an upload's digest (this member signed it) into the open
// root batch and waits for the batch's round: the upload's root
// attestation, or why there is none. A waiter that gives up (ctx) leaves
// the batch and its round to the others.
func (m *Member) awaitRoot(ctx context.Context, leaf [32]byte) (*api.InputRootAttestation, error) {
	rb, i, err := m.enqueueRoot(leaf)
	if err != nil {
		return nil, err
	}
	select {
	case <-rb.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-m.closed:
		return nil, errors.New("member closed")
	}
	if rb.err != nil {
		return nil, rb.err
	}
	r := rb.res
	j := r.index[i]
	if j < 0 {
		return nil, errors.New("too few members attested this upload for the batch's root (it was signed without it)")
	}
	return &api.InputRootAttestation{Root: r.root, Index: uint64(j), Path: r.paths[j],
		Signature: bytes.Clone(r.signature), Signers: bytes.Clone(r.signers)}, nil
}
