package transport

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"
)

// TestMuxLateReplies: a member that runs a round after its peers finished it
// (it was counted down, so nobody sent to it; or it runs the round again
// after a failure, its first copy consumed) must still get their messages:
// the mux answers with its remembered broadcast. A recipient's first message
// is not answered (it has ours), a non-recipient outside `allowed` never is,
// and a reply is never answered (no ping-pong).
func TestMuxLateReplies(t *testing.T) {
	hub := NewHub(4)
	mux := make([]*Mux, 5)
	for i := 1; i <= 4; i++ {
		mux[i] = NewMux(hub.Endpoint(MemberID(i)), zaptest.NewLogger(t))
		t.Cleanup(func() { mux[i].Close() })
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	const s = "req/1/digest"
	all := []MemberID{1, 2, 3, 4}
	mine := Message{Type: TypeResultDigest, Session: s, Payload: []byte("digest of 1")}
	// Member 1 counts 3 down: it sends to 2 only, but 3 may have it later;
	// 4 is not allowed.
	require.NoError(t, mux[1].BroadcastAllowing(ctx, []MemberID{2}, []MemberID{2, 3}, mine))
	got, err := mux[2].Recv(ctx, Key{Session: s, Type: TypeResultDigest, From: 1})
	require.NoError(t, err)
	require.Equal(t, mine.Payload, got.Payload)

	// 3 speaks in the round: 1 answers it, under the original session.
	require.NoError(t, mux[3].BroadcastAllowing(ctx, []MemberID{1}, all, Message{Type: TypeResultDigest, Session: s, Payload: []byte("digest of 3")}))
	got, err = mux[3].Recv(ctx, Key{Session: s, Type: TypeResultDigest, From: 1})
	require.NoError(t, err)
	require.Equal(t, mine.Payload, got.Payload)

	// 2's first message gets no answer; its second (a retry) does.
	require.NoError(t, mux[2].BroadcastAllowing(ctx, []MemberID{1}, all, Message{Type: TypeResultDigest, Session: s, Payload: []byte("digest of 2")}))
	short, scancel := context.WithTimeout(ctx, 200*time.Millisecond)
	_, err = mux[2].Recv(short, Key{Session: s, Type: TypeResultDigest, From: 1})
	scancel()
	require.ErrorIs(t, err, context.DeadlineExceeded, "a recipient's first message was answered")
	require.NoError(t, mux[2].BroadcastAllowing(ctx, []MemberID{1}, all, Message{Type: TypeResultDigest, Session: s, Payload: []byte("digest of 2")}))
	got, err = mux[2].Recv(ctx, Key{Session: s, Type: TypeResultDigest, From: 1})
	require.NoError(t, err)
	require.Equal(t, mine.Payload, got.Payload)

	// 4 is not allowed: no answer.
	require.NoError(t, mux[4].BroadcastAllowing(ctx, []MemberID{1}, all, Message{Type: TypeResultDigest, Session: s, Payload: []byte("digest of 4")}))
	short, scancel = context.WithTimeout(ctx, 200*time.Millisecond)
	_, err = mux[4].Recv(short, Key{Session: s, Type: TypeResultDigest, From: 1})
	scancel()
	require.ErrorIs(t, err, context.DeadlineExceeded, "a member outside `allowed` was answered")

	// No ping-pong: every member remembers its broadcast, yet the replies
	// above did not bounce. Member 1 received exactly 3's one message, 2's
	// two and 4's one.
	require.Eventually(t, func() bool { return mux[1].Seen(4) > 0 }, 5*time.Second, 5*time.Millisecond)
	time.Sleep(100 * time.Millisecond)
	n, _ := mux[1].Buffered()
	require.Equal(t, 4, n, "member 1 received a reply to its reply")
}

// TestMuxRememberBounded: the remembered broadcasts are bounded by count
// and bytes (oldest forgotten first).
func TestMuxRememberBounded(t *testing.T) {
	hub := NewHub(2)
	m := NewMux(hub.Endpoint(1), zaptest.NewLogger(t))
	t.Cleanup(func() { m.Close() })
	ctx := context.Background()
	for i := 0; i < MaxRemembered+10; i++ {
		m.remember(Message{Type: TypeResultDigest, Session: string(rune('a'+i%26)) + string(rune(i)), Payload: make([]byte, 8)}, []MemberID{2}, nil)
	}
	require.Len(t, m.sent, MaxRemembered)
	big := make([]byte, MaxRememberedBytes/2+1)
	require.NoError(t, m.BroadcastAllowing(ctx, nil, nil, Message{Type: TypeResultDigest, Session: "big1", Payload: big}))
	require.NoError(t, m.BroadcastAllowing(ctx, nil, nil, Message{Type: TypeResultDigest, Session: "big2", Payload: big}))
	require.LessOrEqual(t, m.sentBytes, int64(MaxRememberedBytes))
	_, ok := m.sent[sentKey{"big1", TypeResultDigest}]
	require.False(t, ok, "the older large broadcast is forgotten")
	_, ok = m.sent[sentKey{"big2", TypeResultDigest}]
	require.True(t, ok)
}

// TestMuxForgetSent: ForgetSent drops exactly the remembered broadcasts of
// the sessions it matches, and their bytes; the others stay, in order.
func TestMuxForgetSent(t *testing.T) {
	hub := NewHub(2)
	m := NewMux(hub.Endpoint(1), zaptest.NewLogger(t))
	t.Cleanup(func() { m.Close() })
	for _, s := range []string{"dkg/1/gal/3", "req/a", "dkg/1/selftest/x", "dkg/1/pk", "dkg/2/pk"} {
		m.remember(Message{Type: TypeResultDigest, Session: s, Payload: make([]byte, 100)}, []MemberID{2}, nil)
	}
	m.ForgetSent(func(s string) bool { return strings.HasPrefix(s, "dkg/1/") && !strings.HasPrefix(s, "dkg/1/selftest") })
	require.Len(t, m.sent, 3)
	require.Equal(t, []sentKey{{"req/a", TypeResultDigest}, {"dkg/1/selftest/x", TypeResultDigest}, {"dkg/2/pk", TypeResultDigest}}, m.sentOrder)
	var b int64
	for _, e := range m.sent {
		b += msgBytes(e.msg)
	}
	require.Equal(t, b, m.sentBytes)
}
