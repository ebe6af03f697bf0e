package pkswitch

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/multiparty"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

func validShare(t testing.TB, p *fhe.Params, level int) []byte {
	s := multiparty.PublicKeySwitchShare{Element: *rlwe.NewElement(p.RLWE(), 1, level)}
	b, err := s.MarshalBinary()
	require.NoError(t, err)
	return b
}

// TestUnmarshalShare: a share of the wrong level, length or with an
// unreduced coefficient is refused.
func TestUnmarshalShare(t *testing.T) {
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	good := validShare(t, p, 0)
	_, err := UnmarshalShare(p, 0, good)
	require.NoError(t, err)
	for name, tc := range map[string]struct {
		level int
		b     []byte
	}{
		"empty":        {0, nil},
		"short":        {0, good[:len(good)-1]},
		"long":         {0, append(append([]byte{}, good...), 0)},
		"wrong level":  {p.MaxLevel(), good},
		"level -1":     {-1, good},
		"beyond range": {p.MaxLevel() + 1, good},
	} {
		_, err := UnmarshalShare(p, tc.level, tc.b)
		require.Error(t, err, name)
	}
	bad := append([]byte{}, good...)
	for i := len(bad) - 8; i < len(bad); i++ {
		bad[i] = 0xff // the last coefficient ≥ q
	}
	_, err = UnmarshalShare(p, 0, bad)
	require.Error(t, err)
}

// FuzzUnmarshalShare: the share decoder never panics and what it accepts
// re-encodes to the same bytes.
func FuzzUnmarshalShare(f *testing.F) {
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	f.Add(validShare(f, p, 0))
	f.Add([]byte{})
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := UnmarshalShare(p, 0, b)
		if err != nil {
			return
		}
		again, err := s.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, b, again)
	})
}
