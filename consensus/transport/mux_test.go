package transport

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"
)

// TestMuxEarlyMessageByteBudget — attack: "early-message flood". A peer
// (faulty or compromised) sends large frames for sessions nobody will ever
// wait for; bounded by count only, the mux kept 8192 of them, up to 64 MiB
// each. Bounded by bytes too, it drops the oldest sessions beyond the
// budget: the buffered bytes never exceed it, the heap stays near it after
// a flood of 50× the budget, and the newest messages are still delivered.
func TestMuxEarlyMessageByteBudget(t *testing.T) {
	const (
		budget = 2 << 20
		size   = 512 << 10
		n      = 200 // 100 MiB in all
	)
	require.Equal(t, int64(256<<20), int64(MaxBufferedBytes))
	hub := NewHub(2)
	m := NewMux(hub.Endpoint(2), zaptest.NewLogger(t))
	t.Cleanup(func() { m.Close() })
	m.SetBufferLimits(0, budget)
	src := hub.Endpoint(1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	peak := int64(0)
	for i := 0; i < n; i++ {
		require.NoError(t, src.Send(ctx, 2, Message{Type: TypePing, Session: fmt.Sprintf("flood/%d", i), Payload: make([]byte, size)}))
		if _, b := m.Buffered(); b > peak {
			peak = b
		}
	}
	require.Eventually(t, func() bool { return m.Seen(1) == n }, 10*time.Second, time.Millisecond, "mux did not receive the flood")
	msgs, bytes := m.Buffered()
	require.LessOrEqual(t, bytes, int64(budget))
	require.LessOrEqual(t, peak, int64(budget))
	require.Equal(t, budget/(size+len("flood/199")), msgs, "the buffer should be full up to the budget, no more")

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	require.Less(t, ms.HeapAlloc, uint64(budget+48<<20), "heap holds the flood")

	// The newest message survived, the oldest was dropped.
	rctx, rcancel := context.WithTimeout(ctx, time.Second)
	defer rcancel()
	got, err := m.Recv(rctx, Key{Session: fmt.Sprintf("flood/%d", n-1), Type: TypePing, From: 1})
	require.NoError(t, err)
	require.Len(t, got.Payload, size)
	octx, ocancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer ocancel()
	_, err = m.Recv(octx, Key{Session: "flood/0", Type: TypePing, From: 1})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	msgs2, bytes2 := m.Buffered()
	require.Equal(t, msgs-1, msgs2)
	require.Equal(t, bytes-int64(size+len("flood/199")), bytes2, "Recv must release the bytes it hands out")
	m.Forget("flood/198")
	_, bytes3 := m.Buffered()
	require.Equal(t, bytes2-int64(size+len("flood/198")), bytes3, "Forget must release the bytes it drops")
}

// refusing is a transport whose sends to `down` fail as a refused dial
// does, counting the attempts.
type refusing struct {
	Transport
	down     MemberID
	attempts atomic.Int64
}

func (r *refusing) Send(ctx context.Context, to MemberID, msg Message) error {
	if to == r.down {
		r.attempts.Add(1)
		return fmt.Errorf("transport: dial member %d: connect: connection refused", to)
	}
	return r.Transport.Send(ctx, to, msg)
}

// TestSendRetryingBounds — attack: "a member that never answers". Sends to a
// member that refuses every dial are retried, but at most
// MaxRetryingPerPeer messages at a time, each at most until its deadline;
// errors that cannot pass are not retried at all; Close ends every retry.
func TestSendRetryingBounds(t *testing.T) {
	hub := NewHub(3)
	tr := &refusing{Transport: hub.Endpoint(1), down: 3}
	m := NewMux(tr, zaptest.NewLogger(t))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := range MaxRetryingPerPeer + 50 {
		require.Error(t, m.SendRetrying(ctx, 3, Message{Type: TypePing, Session: fmt.Sprint("s", i), Payload: []byte{1}}))
	}
	m.mu.Lock()
	require.Equal(t, MaxRetryingPerPeer, m.retryTo[3])
	require.Equal(t, MaxRetryingPerPeer, m.retrying)
	m.mu.Unlock()
	// Another peer is unaffected.
	require.NoError(t, m.SendRetrying(ctx, 2, Message{Type: TypePing, Session: "ok"}))
	// Not retried: a message no peer can take.
	require.ErrorIs(t, m.SendRetrying(ctx, 2, Message{Type: TypePing, Session: string(make([]byte, MaxSession+1))}), ErrBadMessage)
	m.mu.Lock()
	require.Equal(t, MaxRetryingPerPeer, m.retrying)
	m.mu.Unlock()

	done := make(chan struct{})
	go func() { m.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for the retries' deadline")
	}
	m.mu.Lock()
	require.Zero(t, m.retrying)
	require.Zero(t, m.retryBytes)
	m.mu.Unlock()
	n := tr.attempts.Load()
	time.Sleep(100 * time.Millisecond)
	require.Equal(t, n, tr.attempts.Load(), "no attempt after Close")
}

// TestMuxFloodEvictsOnlyTheFlooder — attack: "a member evicts its peers'
// messages". Member 1 is in a round of session "dkg/1/pk" and has asked for
// member 2's commitment; member 2's reveal (the next round's message) is
// already buffered. Member 3 then sends MaxBuffered+1 one-byte messages
// for fresh sessions. With one shared buffer dropping the oldest session
// first, member 2's reveal went and the round named the honest member 2
// missing. With per-sender eviction the flood displaces only member 3's
// own messages: the round completes with both reveals, and the buffer
// holds at most its bound.
func TestMuxFloodEvictsOnlyTheFlooder(t *testing.T) {
	for _, tc := range []struct {
		name    string
		flood   int
		size    int
		byBytes bool
	}{
		{name: "by count: MaxBuffered+1 one-byte messages", flood: MaxBuffered + 1, size: 1},
		{name: "by count: 3×MaxBuffered", flood: 3 * MaxBuffered, size: 1},
		{name: "by bytes: 40 frames of 1 MiB into a 16 MiB budget", flood: 40, size: 1 << 20, byBytes: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hub := NewHub(3)
			m := NewMux(hub.Endpoint(1), zaptest.NewLogger(t))
			t.Cleanup(func() { m.Close() })
			if tc.byBytes {
				m.SetBufferLimits(0, 16<<20)
			}
			honest, corrupt := hub.Endpoint(2), hub.Endpoint(3)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			const session = "dkg/1/pk"

			// Member 1 enters the round: it waits for member 2's commitment.
			commit := make(chan error, 1)
			go func() {
				_, err := m.Recv(ctx, Key{Session: session, Type: TypeShareCommit, From: 2})
				commit <- err
			}()
			require.Eventually(t, func() bool {
				m.mu.Lock()
				defer m.mu.Unlock()
				_, waiting := m.waiters[Key{Session: session, Type: TypeShareCommit, From: 2}]
				return waiting
			}, 10*time.Second, time.Millisecond)
			require.NoError(t, honest.Send(ctx, 1, Message{Type: TypeShareCommit, Session: session, Payload: make([]byte, 32)}))
			require.NoError(t, <-commit)
			// Member 2 reveals at once; member 1 has not asked for it yet.
			require.NoError(t, honest.Send(ctx, 1, Message{Type: TypePKShare, Session: session, Payload: []byte("reveal of 2")}))
			require.Eventually(t, func() bool { return m.Seen(2) == 2 }, 10*time.Second, time.Millisecond)

			// Member 3 floods fresh sessions, then reveals itself.
			for i := range tc.flood {
				require.NoError(t, corrupt.Send(ctx, 1, Message{Type: TypePKShare, Session: fmt.Sprintf("fresh/%d", i), Payload: make([]byte, tc.size)}))
			}
			require.NoError(t, corrupt.Send(ctx, 1, Message{Type: TypePKShare, Session: session, Payload: []byte("reveal of 3")}))
			require.Eventually(t, func() bool { return m.Seen(3) == uint64(2+tc.flood+1) }, 30*time.Second, time.Millisecond) // Seen counts every message received

			msgs, bytes := m.Buffered()
			if tc.byBytes {
				require.LessOrEqual(t, bytes, int64(16<<20))
			} else {
				require.LessOrEqual(t, msgs, MaxBuffered)
				require.Equal(t, MaxBuffered, msgs, "the flooder keeps what fits")
			}

			rctx, rcancel := context.WithTimeout(ctx, 5*time.Second)
			defer rcancel()
			g := m.Collect(rctx, session, TypePKShare, []MemberID{1, 2, 3})
			require.Empty(t, g.Missing, "an honest member named missing")
			require.Equal(t, "reveal of 2", string(g.Got[2].Payload))
			require.Equal(t, "reveal of 3", string(g.Got[3].Payload))

			// The flood lost its oldest sessions, not its newest.
			octx, ocancel := context.WithTimeout(ctx, 50*time.Millisecond)
			defer ocancel()
			_, err := m.Recv(octx, Key{Session: "fresh/0", Type: TypePKShare, From: 3})
			require.ErrorIs(t, err, context.DeadlineExceeded)
			got, err := m.Recv(ctx, Key{Session: fmt.Sprintf("fresh/%d", tc.flood-1), Type: TypePKShare, From: 3})
			require.NoError(t, err)
			require.Len(t, got.Payload, tc.size)
		})
	}
}

// TestMuxEvictionOrder pins the eviction rule on a 6-message buffer: the
// largest holder loses its oldest session that is not in progress; another
// sender's messages of a session in progress are never dropped for an
// arrival, and when nothing else is left the arriving sender loses its own.
func TestMuxEvictionOrder(t *testing.T) {
	hub := NewHub(4)
	m := NewMux(hub.Endpoint(1), zaptest.NewLogger(t))
	t.Cleanup(func() { m.Close() })
	m.SetBufferLimits(6, 0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// A session in progress: member 1 waits in it for another key.
	wctx, wcancel := context.WithCancel(ctx)
	defer wcancel()
	go func() { _, _ = m.Recv(wctx, Key{Session: "live", Type: TypeShareCommit, From: 4}) }()
	require.Eventually(t, func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.active["live"]
	}, 10*time.Second, time.Millisecond)

	n := uint64(0) // messages sent to member 1 (Seen counts them all)
	send := func(from MemberID, session string) {
		require.NoError(t, hub.Endpoint(from).Send(ctx, 1, Message{Type: TypePKShare, Session: session, Payload: []byte{byte(from)}}))
		n++
		require.Eventually(t, func() bool { return m.Seen(from) == n }, 10*time.Second, time.Millisecond)
	}
	queued := func(from MemberID, session string) int {
		m.mu.Lock()
		defer m.mu.Unlock()
		return len(m.queues[Key{Session: session, Type: TypePKShare, From: from}])
	}
	has := func(from MemberID, session string) bool { return queued(from, session) > 0 }
	// Member 2 buffers four messages, all of the session in progress.
	for range 4 {
		send(2, "live")
	}
	// Member 3 fills the buffer, then sends past it: member 2 is the
	// largest holder but has only in-progress messages, so member 3 loses
	// its own oldest.
	send(3, "a")
	send(3, "b")
	send(3, "c")
	require.False(t, has(3, "a"))
	require.True(t, has(3, "b"))
	require.True(t, has(3, "c"))
	msgs, _ := m.Buffered()
	require.Equal(t, 6, msgs)
	require.Equal(t, 4, queued(2, "live"))

	// Member 2 sends a fresh session past the bound: as the largest holder
	// and the arriving sender it loses its own oldest key not in progress —
	// the one it just sent.
	send(2, "fresh")
	require.False(t, has(2, "fresh"))
	require.Equal(t, 4, queued(2, "live"))

	// Member 3 is within its fair share (6 / 3 peers = 2) after the drop;
	// member 4 arrives with one message while member 2 holds only
	// in-progress ones: member 4 loses its own, not member 3's.
	require.Equal(t, 2, queued(3, "b")+queued(3, "c"))
	send(4, "d")
	require.False(t, has(4, "d"), "the arrival, not a fair-share holder's message, goes")
	require.True(t, has(3, "b"))
	require.True(t, has(3, "c"))

	// Forget ends the session's protection and releases its messages.
	m.Forget("live")
	msgs, _ = m.Buffered()
	require.Equal(t, 2, msgs)
	m.mu.Lock()
	require.False(t, m.active["live"])
	require.Equal(t, 0, m.holds[2].msgs)
	require.Equal(t, 2, m.holds[3].msgs)
	m.mu.Unlock()
}
