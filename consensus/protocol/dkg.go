package protocol

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"github.com/luxfi/lattice/v7/core/rlwe"
	"github.com/luxfi/lattice/v7/multiparty"
	"github.com/luxfi/lattice/v7/utils/sampling"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
)

// DKGConfig parameterises a distributed key generation.
type DKGConfig struct {
	Params         *fhe.Params
	Epoch          uint64
	GaloisElements []uint64 // rotation keys the plans need (deduplicated, sorted here)
}

// KeyMaterial is the public output of a DKG, identical on every member.
type KeyMaterial struct {
	Params   *fhe.Params
	Epoch    uint64
	N, T     int
	Public   *fhe.PublicKey
	Relin    *fhe.RelinKey
	Galois   *fhe.GaloisKeys
	PKDigest [32]byte // keccak256 of the canonical public key
	Digest   [32]byte // keccak256(pk ‖ rlk ‖ gks) — pinned on chain
	CRSSeed  [32]byte // jointly generated common reference string seed
}

// MaterialDigest recomputes the digest of public key material.
func MaterialDigest(pk *fhe.PublicKey, rlk *fhe.RelinKey, gks *fhe.GaloisKeys) (pkd, all [32]byte, err error) {
	pb, err := pk.MarshalBinary()
	if err != nil {
		return pkd, all, err
	}
	rb, err := rlk.MarshalBinary()
	if err != nil {
		return pkd, all, err
	}
	gb, err := gks.MarshalBinary()
	if err != nil {
		return pkd, all, err
	}
	return keccak(pb), keccak(pb, rb, gb), nil
}

// RunDKG runs the n-of-n distributed key generation of Mouchet et al.
// (PETS 2021, "Multiparty Homomorphic Encryption from Ring-Learning-with-
// Errors") followed by the t-of-n thresholdisation of Mouchet, Bertrand and
// Hubaux (ePrint 2022/780). Every member of g must take part.
//
// Rounds: seed commit, seed reveal (CRS = keccak of all contributions, so no
// member chooses it); public-key shares; relinearisation-key shares (two
// rounds); one round per Galois element; private Shamir shares of every
// member's secret; a final comparison of the digest of the public material.
// Each member's own RLWE secret s_i is dropped at the end: only its Shamir
// share tsk_i = Σ_k P_k(i) of s = Σ s_k remains.
func RunDKG(ctx context.Context, g Group, cfg DKGConfig) (*KeyMaterial, *ThresholdKey, error) {
	p := cfg.Params
	n, t := g.N(), g.Threshold
	if t < 1 || t > n || n > MaxMembers {
		return nil, nil, fmt.Errorf("protocol: dkg: %d-of-%d committee outside 1 ≤ t ≤ n ≤ %d", t, n, MaxMembers)
	}
	if !contains(g.Members, g.Self()) {
		return nil, nil, errors.New("protocol: dkg: self is not a member")
	}
	rp := p.RLWE()
	sess := func(s string) string { return fmt.Sprintf("dkg/%d/%s", cfg.Epoch, s) }
	log := g.log().With(zap.Uint64("epoch", cfg.Epoch))

	// 1. CRS seed: commit, then reveal.
	var contrib [32]byte
	if _, err := crand.Read(contrib[:]); err != nil {
		return nil, nil, err
	}
	commit := keccak([]byte("fhegate/dkg/commit"), contrib[:])
	commits, err := exchangeAll(ctx, g, g.Members, sess("commit"), transport.TypeSeedCommit, commit[:])
	if err != nil {
		return nil, nil, err
	}
	reveals, err := exchangeAll(ctx, g, g.Members, sess("reveal"), transport.TypeSeedReveal, contrib[:])
	if err != nil {
		return nil, nil, err
	}
	var ep [8]byte
	binary.BigEndian.PutUint64(ep[:], cfg.Epoch)
	parts := [][]byte{[]byte("fhegate/dkg/crs"), ep[:], {byte(p.Preset.ID)}}
	for _, id := range g.Members {
		r := reveals[id]
		c := keccak([]byte("fhegate/dkg/commit"), r)
		if len(r) != 32 || !bytes.Equal(c[:], commits[id]) {
			return nil, nil, fmt.Errorf("protocol: dkg: member %d revealed a seed that does not match its commitment", id)
		}
		parts = append(parts, r)
	}
	crsSeed := keccak(parts...)
	crs, err := sampling.NewKeyedPRNG(crsSeed[:])
	if err != nil {
		return nil, nil, err
	}

	// 2. Local secret.
	sk := rlwe.NewKeyGenerator(rp).GenSecretKeyNew()

	// 3. Collective public key.
	ckg := multiparty.NewPublicKeyGenProtocol(rp)
	pkCRP := ckg.SampleCRP(crs)
	ownPK := ckg.AllocateShare()
	ckg.GenShare(sk, pkCRP, &ownPK)
	b, err := ownPK.MarshalBinary()
	if err != nil {
		return nil, nil, err
	}
	all, err := exchangeAll(ctx, g, g.Members, sess("pk"), transport.TypePKShare, b)
	if err != nil {
		return nil, nil, err
	}
	aggPK := ckg.AllocateShare()
	first := true
	for _, id := range g.Members {
		sh := ckg.AllocateShare()
		if err := safe("pk share", func() error { return sh.UnmarshalBinary(all[id]) }); err != nil {
			return nil, nil, fmt.Errorf("member %d: %w", id, err)
		}
		if first {
			aggPK, first = sh, false
			continue
		}
		if err := safe("pk aggregate", func() error { ckg.AggregateShares(aggPK, sh, &aggPK); return nil }); err != nil {
			return nil, nil, fmt.Errorf("member %d: %w", id, err)
		}
	}
	pk := rlwe.NewPublicKey(rp)
	ckg.GenPublicKey(aggPK, pkCRP, pk)
	log.Debug("dkg: public key")

	// 4. Relinearisation key (two rounds).
	rkg := multiparty.NewRelinearizationKeyGenProtocol(rp)
	rlkCRP := rkg.SampleCRP(crs)
	eph, r1, r2 := rkg.AllocateShare()
	rkg.GenShareRoundOne(sk, rlkCRP, eph, &r1)
	if b, err = r1.MarshalBinary(); err != nil {
		return nil, nil, err
	}
	if all, err = exchangeAll(ctx, g, g.Members, sess("rlk1"), transport.TypeRLKShare1, b); err != nil {
		return nil, nil, err
	}
	_, agg1, _ := rkg.AllocateShare()
	if err := aggregateRLK(rkg, g.Members, all, &agg1); err != nil {
		return nil, nil, err
	}
	rkg.GenShareRoundTwo(eph, sk, agg1, &r2)
	if b, err = r2.MarshalBinary(); err != nil {
		return nil, nil, err
	}
	if all, err = exchangeAll(ctx, g, g.Members, sess("rlk2"), transport.TypeRLKShare2, b); err != nil {
		return nil, nil, err
	}
	_, _, agg2 := rkg.AllocateShare()
	if err := aggregateRLK(rkg, g.Members, all, &agg2); err != nil {
		return nil, nil, err
	}
	rlk := rlwe.NewRelinearizationKey(rp)
	rkg.GenRelinearizationKey(agg1, agg2, rlk)
	log.Debug("dkg: relinearization key")

	// 5. Galois keys, one round per element.
	els := append([]uint64(nil), cfg.GaloisElements...)
	sort.Slice(els, func(i, j int) bool { return els[i] < els[j] })
	els = uniq(els)
	gkg := multiparty.NewGaloisKeyGenProtocol(rp)
	gks := make([]*rlwe.GaloisKey, 0, len(els))
	for _, el := range els {
		crp := gkg.SampleCRP(crs)
		own := gkg.AllocateShare()
		if err := gkg.GenShare(sk, el, crp, &own); err != nil {
			return nil, nil, err
		}
		if b, err = own.MarshalBinary(); err != nil {
			return nil, nil, err
		}
		if all, err = exchangeAll(ctx, g, g.Members, sess(fmt.Sprintf("gal/%d", el)), transport.TypeGaloisShare, b); err != nil {
			return nil, nil, err
		}
		agg := gkg.AllocateShare()
		firstG := true
		for _, id := range g.Members {
			sh := gkg.AllocateShare()
			if err := safe("galois share", func() error { return sh.UnmarshalBinary(all[id]) }); err != nil {
				return nil, nil, fmt.Errorf("member %d: %w", id, err)
			}
			if sh.GaloisElement != el {
				return nil, nil, fmt.Errorf("protocol: dkg: member %d sent a share for element %d, want %d", id, sh.GaloisElement, el)
			}
			if firstG {
				agg, firstG = sh, false
				continue
			}
			if err := safe("galois aggregate", func() error { return gkg.AggregateShares(agg, sh, &agg) }); err != nil {
				return nil, nil, fmt.Errorf("member %d: %w", id, err)
			}
		}
		gk := rlwe.NewGaloisKey(rp)
		if err := gkg.GenGaloisKey(agg, crp, gk); err != nil {
			return nil, nil, err
		}
		gks = append(gks, gk)
	}
	log.Debug("dkg: galois keys", zap.Int("count", len(gks)))

	// 6. Thresholdise: private Shamir shares of s_i to every member.
	thr := multiparty.NewThresholdizer(rp)
	poly, err := thr.GenShamirPolynomial(t, sk)
	if err != nil {
		return nil, nil, err
	}
	own := thr.AllocateThresholdSecretShare()
	rctx, cancel := context.WithTimeout(ctx, g.timeout())
	defer cancel()
	for _, id := range g.Members {
		share := thr.AllocateThresholdSecretShare()
		thr.GenShamirSecretShare(multiparty.ShamirPublicPoint(id), poly, &share)
		if id == g.Self() {
			own = share
			continue
		}
		sb, err := share.MarshalBinary()
		if err != nil {
			return nil, nil, err
		}
		if err := g.Mux.Send(rctx, id, transport.Message{Type: transport.TypeShamirShare, Session: sess("shamir"), Payload: sb}); err != nil {
			return nil, nil, fmt.Errorf("protocol: dkg: shamir share to %d: %w", id, err)
		}
	}
	got := g.Mux.Collect(rctx, sess("shamir"), transport.TypeShamirShare, g.Members)
	if len(got.Missing) > 0 {
		return nil, nil, &ErrMissing{Session: sess("shamir"), Missing: got.Missing}
	}
	tsk := own
	for _, id := range sortedIDs(got.Got) {
		sh := thr.AllocateThresholdSecretShare()
		if err := safe("shamir share", func() error { return sh.UnmarshalBinary(got.Got[id].Payload) }); err != nil {
			return nil, nil, fmt.Errorf("member %d: %w", id, err)
		}
		if err := safe("shamir aggregate", func() error { return thr.AggregateShares(tsk, sh, &tsk) }); err != nil {
			return nil, nil, fmt.Errorf("member %d: %w", id, err)
		}
	}
	// The member's own secret and polynomial are dropped here.
	zero(sk)

	// 7. Compare digests of the public material.
	km := &KeyMaterial{Params: p, Epoch: cfg.Epoch, N: n, T: t, Public: fhe.WrapPublicKey(p, pk), Relin: fhe.WrapRelinKey(p, rlk),
		Galois: fhe.WrapGaloisKeys(p, gks), CRSSeed: crsSeed}
	if km.PKDigest, km.Digest, err = MaterialDigest(km.Public, km.Relin, km.Galois); err != nil {
		return nil, nil, err
	}
	digests, err := exchangeAll(ctx, g, g.Members, sess("digest"), transport.TypeKeyDigest, km.Digest[:])
	if err != nil {
		return nil, nil, err
	}
	for id, d := range digests {
		if !bytes.Equal(d, km.Digest[:]) {
			return nil, nil, fmt.Errorf("protocol: dkg: member %d derived different public key material", id)
		}
	}
	key := &ThresholdKey{Params: p, Epoch: cfg.Epoch, ID: g.Self(), N: n, T: t, Threshold: t, Share: tsk, PKDigest: km.PKDigest}
	log.Info("dkg complete", zap.String("digest", fmt.Sprintf("%x", km.Digest[:8])))
	return km, key, nil
}

func aggregateRLK(rkg multiparty.RelinearizationKeyGenProtocol, members []transport.MemberID, all map[transport.MemberID][]byte, agg *multiparty.RelinearizationKeyGenShare) error {
	first := true
	for _, id := range members {
		_, sh, _ := rkg.AllocateShare()
		if err := safe("rlk share", func() error { return sh.UnmarshalBinary(all[id]) }); err != nil {
			return fmt.Errorf("member %d: %w", id, err)
		}
		if first {
			*agg, first = sh, false
			continue
		}
		if err := safe("rlk aggregate", func() error { rkg.AggregateShares(*agg, sh, agg); return nil }); err != nil {
			return fmt.Errorf("member %d: %w", id, err)
		}
	}
	return nil
}

func uniq(v []uint64) []uint64 {
	out := v[:0]
	for i, x := range v {
		if i == 0 || x != v[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func zero(sk *rlwe.SecretKey) {
	for _, row := range sk.Value.Q.Coeffs {
		clear(row)
	}
	for _, row := range sk.Value.P.Coeffs {
		clear(row)
	}
}
