package liveness

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/consensus/transport"
)

func ping(from transport.MemberID, progress uint64) transport.Message {
	return transport.Message{Type: transport.TypePing, From: from, Payload: binary.BigEndian.AppendUint64(nil, progress)}
}

// TestMarks: a mark comes off only when a heartbeat sent after it reports
// at least the progress this member had when it marked the peer; malformed
// heartbeats and heartbeats "from" this member count for nothing.
func TestMarks(t *testing.T) {
	members := []transport.MemberID{1, 2, 3}
	for _, tc := range []struct {
		name     string
		progress uint64 // this member's progress when it marks 2
		before   []transport.Message
		after    []transport.Message
		live     []transport.MemberID
	}{
		{"no heartbeat since the mark", 5, []transport.Message{ping(2, 9)}, nil, []transport.MemberID{1, 3}},
		{"heartbeat reports the progress", 5, nil, []transport.Message{ping(2, 5)}, members},
		{"heartbeat behind the progress", 5, nil, []transport.Message{ping(2, 4)}, []transport.MemberID{1, 3}},
		{"behind, then caught up", 5, nil, []transport.Message{ping(2, 4), ping(2, 7)}, members},
		{"malformed heartbeat", 0, nil, []transport.Message{{Type: transport.TypePing, From: 2, Payload: []byte{1, 2, 3}}}, []transport.MemberID{1, 3}},
		{"own heartbeat", 0, nil, []transport.Message{ping(1, 9)}, []transport.MemberID{1, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := New(1, members, zaptest.NewLogger(t))
			require.Equal(t, members, l.Live())
			l.SetProgress(tc.progress)
			for _, m := range tc.before {
				l.OnHeartbeat(m)
			}
			l.MarkDown([]transport.MemberID{2, 1}) // never marks itself
			for _, m := range tc.after {
				l.OnHeartbeat(m)
			}
			require.Equal(t, tc.live, l.Live())
		})
	}
}

// TestProgress: progress never moves back and is the heartbeat's payload.
func TestProgress(t *testing.T) {
	l := New(1, []transport.MemberID{1, 2}, zaptest.NewLogger(t))
	l.SetProgress(7)
	l.SetProgress(3)
	require.Equal(t, uint64(7), l.Progress())
	require.Equal(t, binary.BigEndian.AppendUint64(nil, 7), l.Heartbeat())
	l.OnHeartbeat(ping(2, 1))
	l.OnHeartbeat(ping(2, 2))
	require.Equal(t, uint64(2), l.HeartbeatsFrom(2))
}

// FuzzOnHeartbeat: any payload from any sender is taken or ignored, never
// a panic, and only an 8-byte one counts.
func FuzzOnHeartbeat(f *testing.F) {
	f.Add(uint32(2), []byte{0, 0, 0, 0, 0, 0, 0, 9})
	f.Add(uint32(1), []byte{})
	f.Add(uint32(7), []byte{1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Fuzz(func(t *testing.T, from uint32, payload []byte) {
		l := New(1, []transport.MemberID{1, 2, 3}, zaptest.NewLogger(t))
		l.OnHeartbeat(transport.Message{From: transport.MemberID(from), Payload: payload})
		n := l.HeartbeatsFrom(transport.MemberID(from))
		if len(payload) == 8 && from != 1 {
			require.Equal(t, uint64(1), n)
		} else {
			require.Zero(t, n)
		}
	})
}
