package protocol

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/consensus/transport"
)

// TestDecryptEquivocation: in the committed decryption round, a participant
// that reveals another share than it committed to (member 3, 3-of-5) is
// left out and named on every honest participant. Its share cannot count,
// so four agree where a 3-of-5 decryption needs all five (CheckedMembers):
// no value is returned.
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
	_, errs := f.tryDecrypt(t, f.reRandomised(t), "dec/equivocate", all(5), nil)
	for k, err := range errs {
		if k == 2 {
			continue
		}
		var ue *ErrUncheckedDecryption
		require.ErrorAs(t, err, &ue, "member %d", k+1)
		require.Equal(t, []transport.MemberID{3}, ue.Named, "member %d", k+1)
	}
}
