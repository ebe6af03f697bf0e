package protocol

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/consensus/transport"
)

// TestDecryptEquivocation: in the committed decryption round, a participant
// that reveals another share than it committed to (member 3, 3-of-5) is
// left out and named in Bad on every honest participant, whose decryption
// still completes with the others' shares and is correct.
func TestDecryptEquivocation(t *testing.T) {
	t.Parallel()
	f := newDecryptFixture(t)
	f.c.hooks = map[int]roundHook{2: func(stage hookStage, _ string, typ transport.Type, own []byte, _ func() map[transport.MemberID][]byte) []byte {
		if stage != hookReveal || typ != transport.TypeDecShare {
			return own
		}
		b := append([]byte(nil), own...)
		b[len(b)-1] ^= 1
		return b
	}}
	defer func() { f.c.hooks = nil }()
	for k, res := range f.decrypt(t, f.reRandomised(t), "dec/equivocate", all(5), nil) {
		if k == 2 {
			continue
		}
		f.check(t, res)
		require.Contains(t, res.Bad, transport.MemberID(3), "member %d", k+1)
	}
}
