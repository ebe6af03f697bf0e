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
