package protocol

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/multiparty"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/utils/sampling"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// forgedStructure runs aggregateShares over two members, 1 honest and 2
// sending honest's encoding with one structural byte changed, for every
// structural byte (up to a cap) and three replacement values, and
// requires each to be refused with an error naming member 2 — before
// Lattigo's decoder sees it (a forged length field used to make
// buffer.ReadUint64Slice recurse until the stack overflowed, killing the
// process). It also requires the honest pair to aggregate.
func forgedStructure[S any, PS share[S]](t *testing.T, what string, alloc func() S, honest S, add func(a, b S, out *S) error) {
	t.Helper()
	enc := func(s S) []byte {
		b, err := any(&s).(lattigoEncoded).MarshalBinary()
		require.NoError(t, err)
		return b
	}
	good := enc(honest)
	members := []transport.MemberID{1, 2}
	_, err := aggregateShares[S, PS](what, members, map[transport.MemberID][]byte{1: good, 2: good}, alloc, nil, add)
	require.NoError(t, err, "honest shares refused")

	zero, ones := alloc(), alloc()
	fillCoefficients(reflect.ValueOf(&zero).Elem(), 0)
	fillCoefficients(reflect.ValueOf(&ones).Elem(), ^uint64(0))
	z, o := enc(zero), enc(ones)
	require.Len(t, z, len(good))
	var structural []int
	for i := range z {
		if z[i] == o[i] {
			structural = append(structural, i)
		}
	}
	require.NotEmpty(t, structural)
	// Every header byte, then a spread over the rest.
	const maxTried = 400
	if len(structural) > maxTried {
		step := len(structural) / (maxTried / 2)
		picked := append([]int(nil), structural[:maxTried/2]...)
		for k := maxTried / 2; k < len(structural); k += step {
			picked = append(picked, structural[k])
		}
		structural = picked
	}
	tried := 0
	for _, i := range structural {
		for _, v := range []byte{good[i] ^ 0x01, 0x00, 0xff} {
			if v == good[i] {
				continue
			}
			bad := append([]byte(nil), good...)
			bad[i] = v
			_, err := aggregateShares[S, PS](what, members, map[transport.MemberID][]byte{1: good, 2: bad}, alloc, nil, add)
			require.Error(t, err, "byte %d = %#x accepted", i, v)
			require.Contains(t, err.Error(), "member 2", "byte %d", i)
			tried++
		}
	}
	t.Logf("%s: %d forged structures refused (%d-byte share)", what, tried, len(good))
}

// TestAggregateRefusesForgedStructure: every Lattigo share type the DKG,
// refresh and re-encryption rounds aggregate refuses a payload whose
// length, level or degree fields disagree with the expected shape, names
// the member, and accepts honest shares.
func TestAggregateRefusesForgedStructure(t *testing.T) {
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	rp := p.RLWE()
	prng, err := sampling.NewKeyedPRNG([]byte("shape-guard"))
	require.NoError(t, err)
	sk := rlwe.NewKeyGenerator(rp).GenSecretKeyNew()

	t.Run("pk", func(t *testing.T) {
		ckg := multiparty.NewPublicKeyGenProtocol(rp)
		crp := ckg.SampleCRP(prng)
		sh := ckg.AllocateShare()
		ckg.GenShare(sk, crp, &sh)
		forgedStructure[multiparty.PublicKeyGenShare](t, "pk", ckg.AllocateShare, sh, func(a, b multiparty.PublicKeyGenShare, out *multiparty.PublicKeyGenShare) error {
			ckg.AggregateShares(a, b, out)
			return nil
		})
	})
	t.Run("rlk", func(t *testing.T) {
		rkg := multiparty.NewRelinearizationKeyGenProtocol(rp)
		crp := rkg.SampleCRP(prng)
		eph, sh1, _ := rkg.AllocateShare()
		rkg.GenShareRoundOne(sk, crp, eph, &sh1)
		alloc := func() multiparty.RelinearizationKeyGenShare { _, s, _ := rkg.AllocateShare(); return s }
		add := func(a, b multiparty.RelinearizationKeyGenShare, out *multiparty.RelinearizationKeyGenShare) error {
			rkg.AggregateShares(a, b, out)
			return nil
		}
		forgedStructure[multiparty.RelinearizationKeyGenShare](t, "rlk round 1", alloc, sh1, add)
		_, _, sh2 := rkg.AllocateShare()
		rkg.GenShareRoundTwo(eph, sk, sh1, &sh2)
		alloc2 := func() multiparty.RelinearizationKeyGenShare { _, _, s := rkg.AllocateShare(); return s }
		forgedStructure[multiparty.RelinearizationKeyGenShare](t, "rlk round 2", alloc2, sh2, add)
	})
	t.Run("galois", func(t *testing.T) {
		gkg := multiparty.NewGaloisKeyGenProtocol(rp)
		crp := gkg.SampleCRP(prng)
		el := p.GaloisElementsForRotations([]int{1})[0]
		sh := gkg.AllocateShare()
		require.NoError(t, gkg.GenShare(sk, el, crp, &sh))
		alloc := func() multiparty.GaloisKeyGenShare { s := gkg.AllocateShare(); s.GaloisElement = el; return s }
		forgedStructure[multiparty.GaloisKeyGenShare](t, "galois", alloc, sh, gkg.AggregateShares)
		// A share for another element is structurally different too.
		other := sh
		other.GaloisElement = p.GaloisElementsForRotations([]int{2})[0]
		b, err := other.MarshalBinary()
		require.NoError(t, err)
		good, err := sh.MarshalBinary()
		require.NoError(t, err)
		_, err = aggregateShares("galois", []transport.MemberID{1, 2}, map[transport.MemberID][]byte{1: good, 2: b}, alloc, nil, gkg.AggregateShares)
		require.ErrorContains(t, err, "member 2")
	})
	t.Run("re-encryption", func(t *testing.T) {
		pcks, err := multiparty.NewPublicKeySwitchProtocol(rp, ring.DiscreteGaussian{Sigma: rlwe.DefaultNoise, Bound: rlwe.DefaultNoiseBound})
		require.NoError(t, err)
		pk := rlwe.NewKeyGenerator(rp).GenPublicKeyNew(sk)
		ct := rlwe.NewCiphertext(rp, 1, 1)
		ct.IsNTT = true
		level := ct.Level()
		sh := pcks.AllocateShare(level)
		pcks.GenShare(sk, pk, ct, &sh)
		alloc := func() multiparty.PublicKeySwitchShare { return pcks.AllocateShare(level) }
		forgedStructure[multiparty.PublicKeySwitchShare](t, "re-encryption", alloc, sh, pcks.AggregateShares)
	})
}

// TestFillCoefficientsLeavesPointersAlone: the template filler changes
// coefficients only, never what a share points to.
func TestFillCoefficientsLeavesPointersAlone(t *testing.T) {
	type inner struct{ Coeffs [][]uint64 }
	type outer struct {
		Value  []inner
		Shared *inner
		Tag    uint64
		hidden []uint64
	}
	shared := &inner{Coeffs: [][]uint64{{7}}}
	v := outer{Value: []inner{{Coeffs: [][]uint64{{1, 2}, {3}}}}, Shared: shared, Tag: 9, hidden: []uint64{5}}
	fillCoefficients(reflect.ValueOf(&v).Elem(), 42)
	require.Equal(t, [][]uint64{{42, 42}, {42}}, v.Value[0].Coeffs)
	require.Equal(t, uint64(7), shared.Coeffs[0][0])
	require.Equal(t, uint64(9), v.Tag)
	require.Equal(t, []uint64{5}, v.hidden)
	_ = fmt.Sprint(v)
}
