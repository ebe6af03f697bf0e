package protocol

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"
	"github.com/tuneinsight/lattigo/v6/utils/sampling"

	"github.com/fhegate/fhegate/consensus/transport"
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
//
// Then every member tells the others whether its self-test passed, with the
// digest of the Shamir commitments it holds (selfTestVerdict). When one
// failed or the digests differ, the key set is discarded and every member
// opens its Shamir dealing (openOnAbort, dkg_open.go): the result is an
// *ErrBadDealing naming each dealer whose shares lie on no polynomial of
// degree < t, and no honest member (TestDKGOpenOnAbortNamesDealer). When
// all passed with the same digests, the dealing records are wiped.
func SelfTest(ctx context.Context, g Group, km *KeyMaterial, key *ThresholdKey, plan NoisePlan, ev *fhe.Evaluator, led Ledger) error {
	err := selfTestRun(ctx, g, km, key, plan, ev, led)
	rec := km.dealing
	if rec == nil {
		return err
	}
	if verr := selfTestVerdict(ctx, g, rec, err == nil); verr != nil {
		if err == nil {
			err = verr
		}
		var missing *ErrMissing
		if errors.As(verr, &missing) {
			return err // a member that does not answer is named as missing, as in every round
		}
		oerr := openOnAbort(ctx, g, km, rec, err)
		rec.wipe()
		km.dealing = nil
		return oerr
	}
	rec.wipe()
	km.dealing = nil
	return nil
}

// selfTestVerdict exchanges every member's pass/fail and Shamir commitment
// digest: nil when all passed with this member's digest.
func selfTestVerdict(ctx context.Context, g Group, rec *dealingRecord, passed bool) error {
	d := rec.commitsDigest()
	own := append([]byte{0}, d[:]...)
	if passed {
		own[0] = 1
	}
	// Members whose self-test failed early (a decryption that could not be
	// combined) reach this round up to one round timeout before the others.
	g.Timeout = 2 * g.timeout()
	all, err := exchangeAll(ctx, g, rec.members, fmt.Sprintf("dkg/%d/selftest/verdict", rec.epoch), transport.TypeKeyDigest, own)
	if err != nil {
		return err
	}
	var failed, differ []transport.MemberID
	for _, id := range rec.members {
		v := all[id]
		switch {
		case len(v) != 33 || string(v[1:]) != string(d[:]):
			differ = append(differ, id)
		case v[0] != 1:
			failed = append(failed, id)
		}
	}
	if len(failed) == 0 && len(differ) == 0 {
		return nil
	}
	return fmt.Errorf("protocol: dkg self-test failed on members %v; members %v hold other Shamir commitments than this one", failed, differ)
}

// selfTestRun is the self-test proper (SelfTest without the verdict and
// the opening).
func selfTestRun(ctx context.Context, g Group, km *KeyMaterial, key *ThresholdKey, plan NoisePlan, ev *fhe.Evaluator, led Ledger) error {
	p := km.Params
	base := fmt.Sprintf("dkg/%d/selftest", km.Epoch)
	prng, err := selfTestPRNG(ctx, g, km, base)
	if err != nil {
		return err
	}
	tmod := p.PlaintextModulus()
	a, b, cv, c := selfTestVectors(prng, tmod, p.Slots())
	cts, err := selfTestEncrypt(km, prng, [3][]uint64{a, b, cv})
	if err != nil {
		return err
	}
	gks := km.Galois.Lattigo()
	evl := bgv.NewEvaluator(p.BGV(), rlwe.NewMemEvaluationKeySet(km.Relin.Lattigo(), gks...))

	// pk + rlk + Shamir shares: a ⊙ b.
	prod, err := selfTestProduct(evl, cts[0], cts[1])
	if err != nil {
		return err
	}
	wantProd := make([]uint64, len(a))
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
	acc, err := selfTestRotations(p, evl, gks, cts[2])
	if err != nil {
		return err
	}
	wantRot := make([]uint64, len(a))
	for i := range wantRot {
		wantRot[i] = uint64(len(gks)) % tmod * c % tmod
	}
	return selfTestDecrypt(ctx, g, key, plan, ev, led, km, base+"/galois", acc, wantRot, "Galois keys")
}

// selfTestPRNG runs the self-test's coin toss with all n members and keys a
// PRNG with its seed and the DKG's digest.
func selfTestPRNG(ctx context.Context, g Group, km *KeyMaterial, base string) (*sampling.KeyedPRNG, error) {
	coin, err := CoinToss(ctx, g, g.N(), base+"/coin", g.Members)
	if err != nil {
		return nil, fmt.Errorf("protocol: dkg self-test: %w", err)
	}
	seed := keccak([]byte("fhegate/dkg/selftest/v2"), coin.Seed[:], km.Digest[:])
	return sampling.NewKeyedPRNG(seed[:])
}

// selfTestVectors draws from prng, in this order, the random vectors a, b
// (interleaved, slot by slot) and the constant c ∈ [1, t), and returns them
// with the constant vector (c, …, c).
func selfTestVectors(prng *sampling.KeyedPRNG, tmod uint64, slots int) (a, b, cv []uint64, c uint64) {
	draw := func() uint64 {
		var b [8]byte
		_, _ = prng.Read(b[:])
		return binary.LittleEndian.Uint64(b[:]) % tmod
	}
	a, b, cv = make([]uint64, slots), make([]uint64, slots), make([]uint64, slots)
	for i := range a {
		a[i], b[i] = draw(), draw()
	}
	c = draw()%(tmod-1) + 1
	for i := range cv {
		cv[i] = c
	}
	return a, b, cv, c
}

// selfTestEncrypt encrypts the vectors at the top level under the
// collective public key with randomness from prng, in order.
func selfTestEncrypt(km *KeyMaterial, prng *sampling.KeyedPRNG, vs [3][]uint64) ([3]*rlwe.Ciphertext, error) {
	p := km.Params
	ecd := bgv.NewEncoder(p.BGV())
	var cts [3]*rlwe.Ciphertext
	err := safe("self-test encryption", func() error {
		for i, v := range vs {
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
	})
	return cts, err
}

// selfTestProduct is a ⊙ b with the relinearisation key, rescaled.
func selfTestProduct(evl *bgv.Evaluator, a, b *rlwe.Ciphertext) (*rlwe.Ciphertext, error) {
	var prod *rlwe.Ciphertext
	if err := safe("self-test product", func() error {
		var e error
		if prod, e = evl.MulRelinNew(a, b); e != nil {
			return e
		}
		return evl.Rescale(prod, prod)
	}); err != nil {
		return nil, err
	}
	return prod, nil
}

// selfTestRotations is Σ_g φ_g(ct) over the Galois keys gks.
func selfTestRotations(p *fhe.Params, evl *bgv.Evaluator, gks []*rlwe.GaloisKey, ct *rlwe.Ciphertext) (*rlwe.Ciphertext, error) {
	var acc *rlwe.Ciphertext
	if err := safe("self-test rotations", func() error {
		tmp := rlwe.NewCiphertext(p.RLWE(), 1, ct.Level())
		for _, gk := range gks {
			if err := evl.Automorphism(ct, gk.GaloisElement, tmp); err != nil {
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
		return nil, err
	}
	return acc, nil
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
