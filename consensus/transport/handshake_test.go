package transport

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"
)

// TestTLSBoundsPendingHandshakes — attack: "handshake exhaustion". Anyone
// who reaches a member's port can open connections and never finish (or
// never start) the TLS handshake; each used to hold a goroutine and TLS
// state until its deadline, with no bound on how many. At most
// MaxHandshakes are now pending; the excess is closed at once, and a
// stalled connection is dropped after DialTimeout. Once the stallers are
// gone a pinned peer connects again.
func TestTLSBoundsPendingHandshakes(t *testing.T) {
	t.Parallel()
	const bound = 4
	keys, lns, peers := tlsPeers(t, 2)
	var ts [2]*TLS
	for i := range ts {
		tr, err := ListenTLS(TLSConfig{Self: MemberID(i + 1), Key: keys[i], Peers: peers, Listener: lns[i],
			MaxHandshakes: bound, DialTimeout: 4 * time.Second, Log: zaptest.NewLogger(t)})
		require.NoError(t, err)
		ts[i] = tr
		t.Cleanup(func() { tr.Close() })
	}
	srv := ts[1]

	// Stallers: TCP connections that never send a ClientHello.
	var stall []net.Conn
	for i := 0; i < 3*bound; i++ {
		c, err := net.Dial("tcp", peers[1].Addr)
		require.NoError(t, err)
		stall = append(stall, c)
		require.LessOrEqual(t, srv.PendingHandshakes(), bound)
	}
	require.Eventually(t, func() bool { return srv.PendingHandshakes() == bound }, 5*time.Second, 5*time.Millisecond)
	refused := 0
	for _, c := range stall {
		_ = c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		var b [1]byte
		if _, err := c.Read(b[:]); err != nil {
			if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
				refused++ // closed by the server
			}
		}
	}
	require.Equal(t, 2*bound, refused, "connections beyond the bound must be closed at once")
	require.Equal(t, bound, srv.PendingHandshakes())

	// The stalled ones are dropped after DialTimeout, then a pinned peer
	// gets through.
	require.Eventually(t, func() bool { return srv.PendingHandshakes() == 0 }, 10*time.Second, 20*time.Millisecond)
	for _, c := range stall {
		c.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, ts[0].Send(ctx, 2, Message{Type: TypePing, Session: "after", Payload: []byte("hi")}))
	m, err := srv.Recv(ctx)
	require.NoError(t, err)
	require.Equal(t, "after", m.Session)
}
