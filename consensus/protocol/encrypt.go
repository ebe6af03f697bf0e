package protocol

import (
	"fmt"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/ring/ringqp"
	"github.com/tuneinsight/lattigo/v6/utils/sampling"
)

// encryptFromPRNG encrypts pt under pk with all randomness (u, e0, e1) read
// from prng, so that every member derives the same ciphertext. It is
// rlwe.Encryptor's public-key encryption (encryptZeroPk + addPtToCt,
// Lattigo v6.2.0) step for step — upstream keeps its keyed-PRNG constructor
// unexported — and therefore produces the same bytes the fork's
// NewEncryptorFromPRNG produced. pk must carry a P basis (every fhegate
// preset has one).
func encryptFromPRNG(params rlwe.Parameters, pk *rlwe.PublicKey, pt *rlwe.Plaintext, prng *sampling.KeyedPRNG) (*rlwe.Ciphertext, error) {
	if params.PCount() == 0 {
		return nil, fmt.Errorf("protocol: deterministic encryption needs a P basis")
	}
	xs, err := ring.NewSampler(prng, params.RingQ(), params.Xs(), false)
	if err != nil {
		return nil, err
	}
	xe, err := ring.NewSampler(prng, params.RingQ(), params.Xe(), false)
	if err != nil {
		return nil, err
	}
	levelQ, levelP := pt.Level(), 0
	ct := rlwe.NewCiphertext(params, 1, levelQ)
	*ct.MetaData = *pt.MetaData

	ringQP := params.RingQP().AtLevel(levelQ, levelP)
	u := ringqp.NewPoly(params.N(), levelQ, levelP)
	ct0 := ringqp.Poly{Q: ct.Value[0], P: ringqp.NewPoly(params.N(), 0, levelP).P}
	ct1 := ringqp.Poly{Q: ct.Value[1], P: ringqp.NewPoly(params.N(), 0, levelP).P}

	xs.AtLevel(levelQ).Read(u.Q)
	ringQP.ExtendBasisSmallNormAndCenter(u.Q, levelP, u.Q, u.P)
	ringQP.NTT(u, u)
	ringQP.MulCoeffsMontgomery(u, pk.Value[0], ct0)
	ringQP.MulCoeffsMontgomery(u, pk.Value[1], ct1)
	ringQP.INTT(ct0, ct0)
	ringQP.INTT(ct1, ct1)
	e := u
	xe.AtLevel(levelQ).Read(e.Q)
	ringQP.ExtendBasisSmallNormAndCenter(e.Q, levelP, e.Q, e.P)
	ringQP.Add(ct0, e, ct0)
	xe.AtLevel(levelQ).Read(e.Q)
	ringQP.ExtendBasisSmallNormAndCenter(e.Q, levelP, e.Q, e.P)
	ringQP.Add(ct1, e, ct1)

	be := ring.NewBasisExtender(params.RingQ(), params.RingP())
	be.ModDownQPtoQ(levelQ, levelP, ct0.Q, ct0.P, ct.Value[0])
	be.ModDownQPtoQ(levelQ, levelP, ct1.Q, ct1.P, ct.Value[1])
	ringQ := ringQP.RingQ
	if ct.IsNTT {
		ringQ.NTT(ct.Value[0], ct.Value[0])
		ringQ.NTT(ct.Value[1], ct.Value[1])
	}
	if ct.IsMontgomery {
		ringQ.MForm(ct.Value[0], ct.Value[0])
		ringQ.MForm(ct.Value[1], ct.Value[1])
	}

	// addPtToCt
	buff := pt.Value
	if pt.IsNTT != ct.IsNTT {
		buff = ringQ.NewPoly()
		if ct.IsNTT {
			ringQ.NTT(pt.Value, buff)
		} else {
			ringQ.INTT(pt.Value, buff)
		}
	}
	ringQ.Add(ct.Value[0], buff, ct.Value[0])
	return ct, nil
}
