package consensus

import (
	"sync"
	"time"
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
