package protocol

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// TestDKGOversizedKeyShareRefused: a 2-of-4 DKG on the real protocol code
// (InsecureBGVN10, in-memory transport) in which member 2 sends a
// public-key share whose error has a coefficient of 2^30 (decryptable,
// since every encryption divides it by P, and before the shortness proof
// invisible: it only ate the noise margin) with the proof of the share it
// would have sent. Every honest member refuses it at the public-key round
// and names member 2 and only member 2 (ErrBadKeyShare); no key is made.
// In an honest DKG every share's proof verifies and no one is named.
func TestDKGOversizedKeyShareRefused(t *testing.T) {
	t.Parallel()
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	for _, tc := range []struct {
		name  string
		knobs map[int]DKGKnobs
		named transport.MemberID // 0: nobody
	}{
		{"oversized error", map[int]DKGKnobs{1: {OversizedPKShareError: true}}, 2},
		{"honest", map[int]DKGKnobs{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// hooks (none) shorten the round timeout for the member left
			// waiting by the aborted round
			c := newCommitteeWith(t, p, 4, 2, 1, nil, nil, tc.knobs, map[int]roundHook{}, false)
			for i, err := range c.dkgErrs {
				id := transport.MemberID(i + 1)
				if tc.named == 0 {
					require.NoError(t, err, "member %d", id)
					continue
				}
				if id == tc.named {
					require.Error(t, err, "the corrupt member gets no key either")
					continue
				}
				var bad *ErrBadKeyShare
				require.True(t, errors.As(err, &bad), "member %d: %v", id, err)
				require.Equal(t, tc.named, bad.Member, "member %d names: %v", id, bad)
				require.Equal(t, "dkg/1/pk", bad.Session)
				require.Contains(t, bad.Reason, zkpok.ErrInvalid.Error())
				require.Nil(t, c.kms[i], "member %d: no key material", id)
				t.Logf("member %d: %v", id, err)
			}
		})
	}
}

// TestDecodeKeyShare: a public-key round payload is split only when its
// total and its share length are exactly what the preset makes.
func TestDecodeKeyShare(t *testing.T) {
	good := encodeKeyShare([]byte{1, 2, 3}, []byte{4, 5})
	for _, tc := range []struct {
		name string
		b    []byte
		ok   bool
	}{
		{"good", good, true},
		{"empty", nil, false},
		{"short", good[:len(good)-1], false},
		{"long", append(append([]byte(nil), good...), 0), false},
		{"share length lies", append([]byte{0, 0, 0, 4}, good[4:]...), false},
		{"huge share length", append([]byte{0xff, 0xff, 0xff, 0xff}, good[4:]...), false},
	} {
		share, proof, err := decodeKeyShare(tc.b, 3, 2)
		if !tc.ok {
			require.Error(t, err, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		require.Equal(t, []byte{1, 2, 3}, share)
		require.Equal(t, []byte{4, 5}, proof)
	}
}
