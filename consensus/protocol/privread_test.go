package protocol

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/pkswitch"
)

// TestPrivateReadCombine checks the client-driven public-key switch on
// BGVN13 3-of-5: every t-subset of the members' private-read shares
// re-encrypts the result to the requester's key and decrypts to the
// plaintext; fewer than t shares, the committee's own secret or another
// user's secret do not decrypt it.
func TestPrivateReadCombine(t *testing.T) {
	p := fhe.MustParams(fhe.BGVN13)
	committee := fhe.GenKeys(p, nil)
	requester := fhe.GenKeys(p, nil)
	other := fhe.GenKeys(p, nil)
	ev, err := fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: committee.Relin})
	require.NoError(t, err)
	plan, err := PlanNoise(p, 5, 3, 0)
	require.NoError(t, err)
	tks := shamirKeys(t, p, committee.Secret, 5, 3)
	want := make([]int64, p.Slots())
	for i := range want {
		want[i] = int64(i%997) - 400
	}
	ct, err := fhe.NewEncryptor(committee.Public).EncryptInts(want)
	require.NoError(t, err)
	ct, err = PrepareForDecryption(ev, plan, ct)
	require.NoError(t, err)

	shares := map[transport.MemberID][]byte{}
	for _, k := range tks {
		b, err := GenPrivateReadShare(k, plan, ct, requester.Public)
		require.NoError(t, err)
		shares[k.ID] = b
	}
	dec := fhe.NewDecryptor(requester.Secret)
	for _, set := range [][]transport.MemberID{{1, 2, 3}, {1, 2, 4}, {3, 4, 5}, {1, 3, 5}} {
		out, err := CombinePrivateRead(p, 5, ct, set, shares)
		require.NoError(t, err)
		got, err := dec.DecryptInts(out)
		require.NoError(t, err)
		require.Equal(t, want, got, "set %v", set)

		for name, sk := range map[string]*fhe.SecretKey{"committee": committee.Secret, "other user": other.Secret} {
			g, err := fhe.NewDecryptor(sk).DecryptInts(out)
			require.NoError(t, err)
			require.NotEqual(t, want[:16], g[:16], "%s key decrypts the private read", name)
		}
	}
	// t−1 shares (combined as if they were a full set) give noise.
	out, err := CombinePrivateRead(p, 5, ct, []transport.MemberID{1, 2}, shares)
	require.NoError(t, err)
	got, err := dec.DecryptInts(out)
	require.NoError(t, err)
	require.NotEqual(t, want[:16], got[:16])

	// Malformed shares are refused before any arithmetic.
	_, err = CombinePrivateRead(p, 5, ct, []transport.MemberID{1, 2, 2}, shares)
	require.Error(t, err)
	bad := map[transport.MemberID][]byte{1: shares[1][:10], 2: shares[2], 3: shares[3]}
	_, err = CombinePrivateRead(p, 5, ct, []transport.MemberID{1, 2, 3}, bad)
	require.Error(t, err)
}

// TestPrivateReadLagrange: the requester's Lagrange coefficients
// (pkswitch, shared with the WebAssembly client) are the threshold
// decryption's.
func TestPrivateReadLagrange(t *testing.T) {
	for _, set := range [][]transport.MemberID{{1}, {1, 2, 3}, {2, 5, 7}, {1, 4, 9, 16}} {
		want, err := IntegerLagrange(16, set)
		require.NoError(t, err)
		ids := make([]uint32, len(set))
		for i, id := range set {
			ids[i] = uint32(id)
		}
		got, err := pkswitch.IntegerLagrange(16, ids)
		require.NoError(t, err)
		for _, id := range set {
			require.Zero(t, want[id].Cmp(got[uint32(id)]), "set %v member %d", set, id)
		}
	}
}
