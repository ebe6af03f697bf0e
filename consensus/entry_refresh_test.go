package consensus_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/fhe"
)

// ringInverseInput is what the ring-inverse forgery of fhe/zkpok
// (TestAttackRingInverse: a statement off the relation by 2^{-1} in every
// coefficient of c0, which the monomial-challenge verifier ACCEPTS) leaves
// in a member's store: an upload at the upload scale 2^{-1} mod t encrypting
// vals, plus (q+1)/2 — 2^{-1} mod q — in every coefficient of c0 on every
// prime. The upload itself decrypts to garbage (noise ≈ Q/2); its double
// 2·ct, which the committee evaluates (fhe.Ciphertext.Evaluable, and the
// packer's AddEncoded), carries vals with the honest noise plus the all-ones
// polynomial. It is stored directly (packFixture.put skips the proof: the
// verifier's acceptance is fhe/zkpok's test).
func (f *packFixture) ringInverseInput(vals []int64) fhe.Handle {
	m := f.lc.Member(1)
	k, err := m.ProofKey()
	require.NoError(f.t, err)
	ct, _, err := k.EncryptInts(vals, m.ProofContext([20]byte{0xf0, 0x24}))
	require.NoError(f.t, err)
	require.True(f.t, ct.IsUpload())
	rq := f.p.RLWE().RingQ().AtLevel(ct.Level())
	g := rq.NewPoly()
	for i, q := range rq.ModuliChain()[:ct.Level()+1] {
		for j := range g.Coeffs[i] {
			g.Coeffs[i][j] = (q + 1) / 2
		}
	}
	rq.NTT(g, g)
	c0 := ct.Lattigo().Value[0]
	rq.Add(c0, g, c0)
	return f.put(ct)
}

// TestPackedRingInverseForgery: a packed batch of 24 product-sum requests on
// uploads (upload scale, evaluated doubled), one of whose inputs is the
// ring-inverse forgery that the input proof accepts. Every verdict — the
// forger's included, since 2·ct of its upload carries its values — equals
// the plaintext reference on every member, and the chain accepts the batch:
// the forgery's garbage (ct itself) never reaches an evaluation, and its
// doubled noise is what the entry refresh at PackLevel is sized for.
func TestPackedRingInverseForgery(t *testing.T) {
	const n, forged = 24, 11
	f := newPackFixture(t)
	r := rand.New(rand.NewPCG(24, 3))
	var reqs []testReq
	for k := range n {
		vals := []int64{r.Int64N(200) - 100, r.Int64N(200) - 100, r.Int64N(50)}
		hs := make([]fhe.Handle, len(vals))
		for j, v := range vals {
			slots := make([]int64, f.p.Slots())
			for i := range slots {
				slots[i] = v
			}
			if k == forged && j == 0 {
				hs[j] = f.ringInverseInput(slots)
				continue
			}
			m := f.lc.Member(1)
			key, err := m.ProofKey()
			require.NoError(t, err)
			ct, _, err := key.EncryptInts(slots, m.ProofContext([20]byte{0xee, byte(k)}))
			require.NoError(t, err)
			hs[j] = f.put(ct)
		}
		req := f.lc.Chain.Post(chainio.Request{ID: [32]byte{0xb4, byte(k)}, PolicyID: circuit.PolicyProductSum, Kind: chainio.KindPolicy, Inputs: hs})
		reqs = append(reqs, testReq{req: req, want: circuit.ProductSum{}.Reference(f.p, vals), vals: vals})
	}
	vs := f.process(batchOf("test/pack/ring-inverse", reqs))
	f.checkVerdicts(reqs, vs)
}
