package protocol

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// copyMaterial returns key material equal to ks's public keys but in new
// objects (decoded from their canonical bytes), as a second member that
// derived the same keys holds them.
func copyMaterial(t *testing.T, ks *fhe.KeySet) *KeyMaterial {
	t.Helper()
	pb, err := ks.Public.MarshalBinary()
	require.NoError(t, err)
	rb, err := ks.Relin.MarshalBinary()
	require.NoError(t, err)
	gb, err := ks.Galois.MarshalBinary()
	require.NoError(t, err)
	km := &KeyMaterial{Params: ks.Public.Params()}
	km.Public, err = fhe.UnmarshalPublicKey(pb)
	require.NoError(t, err)
	km.Relin, err = fhe.UnmarshalRelinKey(rb)
	require.NoError(t, err)
	km.Galois, err = fhe.UnmarshalGaloisKeys(gb)
	require.NoError(t, err)
	km.PKDigest, km.Digest, err = MaterialDigest(km.Public, km.Relin, km.Galois)
	require.NoError(t, err)
	return km
}

// TestSharedPublicSharesOnlyEqualKeys: members of one process that hold
// equal public material end up with one object of each key and one
// evaluator; a member whose keys differ (another key set, or one
// coefficient off) keeps its own. The digest is unchanged by sharing.
func TestSharedPublicSharesOnlyEqualKeys(t *testing.T) {
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	ks := fhe.GenKeys(p, []int{1, 2})
	other := fhe.GenKeys(p, []int{1, 2})
	s := NewSharedPublic()

	a, b := copyMaterial(t, ks), copyMaterial(t, ks)
	require.NotSame(t, a.Galois, b.Galois)
	digest := b.Digest
	// Key by key, as the DKG derives them.
	for i, gk := range b.Galois.Lattigo() {
		require.Same(t, gk, s.GaloisKey(gk), "the first holder's key is cached")
		require.Same(t, gk, s.GaloisKey(a.Galois.Lattigo()[i]), "an equal key is swapped for the cached one")
	}
	s.Adopt(a)
	s.Adopt(b)
	require.Same(t, a.Public, b.Public)
	require.Same(t, a.Relin, b.Relin)
	require.Same(t, a.Galois, b.Galois)
	_, d, err := MaterialDigest(b.Public, b.Relin, b.Galois)
	require.NoError(t, err)
	require.Equal(t, digest, d, "sharing changes which object holds the bytes, not the bytes")

	build := func(km *KeyMaterial) func() (*fhe.Evaluator, error) {
		return func() (*fhe.Evaluator, error) {
			return fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: km.Relin, Galois: km.Galois})
		}
	}
	evA, err := s.Evaluator(a.Relin, a.Galois, build(a))
	require.NoError(t, err)
	evB, err := s.Evaluator(b.Relin, b.Galois, build(b))
	require.NoError(t, err)
	require.Same(t, evA, evB)

	// Other keys: not shared.
	c := copyMaterial(t, other)
	s.Adopt(c)
	require.NotSame(t, a.Public, c.Public)
	require.NotSame(t, a.Relin, c.Relin)
	require.NotSame(t, a.Galois, c.Galois)
	evC, err := s.Evaluator(c.Relin, c.Galois, build(c))
	require.NoError(t, err)
	require.NotSame(t, evA, evC)

	// One coefficient off: not shared either.
	d2 := copyMaterial(t, ks)
	gk := d2.Galois.Lattigo()[0]
	gk.Value[0][0][0].Q.Coeffs[0][0] ^= 1
	require.Same(t, gk, s.GaloisKey(gk), "kept, not swapped for the cached key of its element")
	require.NotSame(t, a.Galois.Lattigo()[0], gk)
	s.Adopt(d2)
	require.NotSame(t, a.Galois, d2.Galois)
	require.Same(t, a.Public, d2.Public, "its public key is still equal")

	// A nil cache shares nothing.
	var none *SharedPublic
	e := copyMaterial(t, ks)
	g0 := e.Galois
	none.Adopt(e)
	require.Same(t, g0, e.Galois)
	require.Same(t, e.Galois.Lattigo()[0], none.GaloisKey(e.Galois.Lattigo()[0]))
}
