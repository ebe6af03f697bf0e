package protocol

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"
	"github.com/tuneinsight/lattigo/v6/utils/sampling"

	"github.com/fhegate/fhegate/fhe"
)

// SelfTest checks a fresh key set end to end before it is used, every key
// of it: all n members run a coin toss (commit-reveal, CoinToss) that starts
// after the DKG's digest round, and derive from its seed two random vectors
// a, b, a random constant c and the encryptions of a, b and the constant
// vector (c, …, c) under the collective public key — fresh randomness no
// member knew or chose while sending its key shares (the old test used
// CRS-derived randomness, fixed before the DKG's last rounds). Then two
// threshold decryptions with all n members (each sanitised, each share
// cross-checked):
//
//   - a·b: a product with the relinearisation key (tensor, relinearise,
//     rescale) — checks pk, rlk and the Shamir shares;
//   - Σ_g φ_g(c, …, c) over every Galois element g of the key set: a
//     constant vector is fixed by every slot permutation, so the sum is
//     |G|·c in every slot; a bad Galois key turns its term into noise.
//
// A member that sent a bad public-key, relinearisation-key or Galois-key
// share, or an inconsistent Shamir share, therefore fails the DKG before any
// user data is encrypted under the key (TestDKGSelfTestCatchesBadRelinShare).
func SelfTest(ctx context.Context, g Group, km *KeyMaterial, key *ThresholdKey, plan NoisePlan, ev *fhe.Evaluator, led Ledger) error {
	p := km.Params
	base := fmt.Sprintf("dkg/%d/selftest", km.Epoch)
	coin, err := CoinToss(ctx, g, g.N(), base+"/coin", g.Members)
	if err != nil {
		return fmt.Errorf("protocol: dkg self-test: %w", err)
	}
	seed := keccak([]byte("fhegate/dkg/selftest/v2"), coin.Seed[:], km.Digest[:])
	prng, err := sampling.NewKeyedPRNG(seed[:])
	if err != nil {
		return err
	}
	tmod := p.PlaintextModulus()
	draw := func() uint64 {
		var b [8]byte
		_, _ = prng.Read(b[:])
		return binary.LittleEndian.Uint64(b[:]) % tmod
	}
	slots := p.Slots()
	a, b, cv := make([]uint64, slots), make([]uint64, slots), make([]uint64, slots)
	for i := range a {
		a[i], b[i] = draw(), draw()
	}
	c := draw()%(tmod-1) + 1
	for i := range cv {
		cv[i] = c
	}
	ecd := bgv.NewEncoder(p.BGV())
	var cts [3]*rlwe.Ciphertext
	if err := safe("self-test encryption", func() error {
		for i, v := range [][]uint64{a, b, cv} {
			pt := bgv.NewPlaintext(p.BGV(), p.MaxLevel())
			if err := ecd.Encode(v, pt); err != nil {
				return err
			}
			ct, err := encryptFromPRNG(p.RLWE(), km.Public.Lattigo(), pt, prng)
			if err != nil {
				return err
			}
			cts[i] = ct
		}
		return nil
	}); err != nil {
		return err
	}
	gks := km.Galois.Lattigo()
	evl := bgv.NewEvaluator(p.BGV(), rlwe.NewMemEvaluationKeySet(km.Relin.Lattigo(), gks...))

	// pk + rlk + Shamir shares: a ⊙ b.
	var prod *rlwe.Ciphertext
	if err := safe("self-test product", func() error {
		var e error
		if prod, e = evl.MulRelinNew(cts[0], cts[1]); e != nil {
			return e
		}
		return evl.Rescale(prod, prod)
	}); err != nil {
		return err
	}
	wantProd := make([]uint64, slots)
	for i := range wantProd {
		wantProd[i] = a[i] * b[i] % tmod
	}
	if err := selfTestDecrypt(ctx, g, key, plan, ev, led, km, base+"/rlk", prod, wantProd, "relinearisation key"); err != nil {
		return err
	}
	if len(gks) == 0 {
		return nil
	}
	// Galois keys: Σ_g φ_g(c·1) = |G|·c·1.
	var acc *rlwe.Ciphertext
	if err := safe("self-test rotations", func() error {
		tmp := rlwe.NewCiphertext(p.RLWE(), 1, cts[2].Level())
		for _, gk := range gks {
			if err := evl.Automorphism(cts[2], gk.GaloisElement, tmp); err != nil {
				return fmt.Errorf("element %d: %w", gk.GaloisElement, err)
			}
			if acc == nil {
				acc = tmp.CopyNew()
				continue
			}
			if err := evl.Add(acc, tmp, acc); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	wantRot := make([]uint64, slots)
	for i := range wantRot {
		wantRot[i] = uint64(len(gks)) % tmod * c % tmod
	}
	return selfTestDecrypt(ctx, g, key, plan, ev, led, km, base+"/galois", acc, wantRot, "Galois keys")
}

// selfTestDecrypt threshold-decrypts ct with every member and requires the
// expected plaintext from every share subset.
func selfTestDecrypt(ctx context.Context, g Group, key *ThresholdKey, plan NoisePlan, ev *fhe.Evaluator, led Ledger, km *KeyMaterial,
	session string, ct *rlwe.Ciphertext, want []uint64, what string) error {
	c, err := fhe.WrapCiphertext(km.Params, ct)
	if err != nil {
		return err
	}
	valid := func(v []uint64) bool {
		for i := range v {
			if v[i] != want[i] {
				return false
			}
		}
		return true
	}
	res, err := ThresholdDecrypt(ctx, g, key, plan, ev, led, DecryptRequest{Session: session,
		Ciphertext: c, Participants: g.Members, Valid: valid, PublicKey: km.Public})
	if err != nil {
		if errors.Is(err, ErrAmbiguous) {
			return fmt.Errorf("protocol: dkg self-test (%s): no share subset decrypts the expected vector (a bad key share or inconsistent threshold shares): %w", what, err)
		}
		return fmt.Errorf("protocol: dkg self-test (%s): %w", what, err)
	}
	if len(res.Bad) > 0 || len(res.Missing) > 0 {
		return fmt.Errorf("protocol: dkg self-test (%s): members %v hold shares inconsistent with the rest, %v did not answer: re-key", what, res.Bad, res.Missing)
	}
	return nil
}
