package protocol

import (
	"context"
	"errors"
	"fmt"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"
	"github.com/tuneinsight/lattigo/v6/utils/sampling"

	"github.com/fhegate/fhegate/fhe"
)

// SelfTest checks a fresh key set end to end before it is used: every
// member derives the same test ciphertext — a public vector encrypted under
// the collective public key with randomness from a PRNG keyed by the CRS
// seed — and all n members threshold-decrypt it. The decryption must give
// the vector, and with n ≥ t+1 every share is cross-checked, so a member
// whose Shamir share is inconsistent (a dealer cheated in the
// thresholdisation, or storage corrupted it) is caught before any user data
// is encrypted under the key. The ciphertext's plaintext and randomness are
// public, and its shares are flooded like any other.
func SelfTest(ctx context.Context, g Group, km *KeyMaterial, key *ThresholdKey, plan NoisePlan, ev *fhe.Evaluator, led Ledger) error {
	p := km.Params
	seed := keccak([]byte("fhegate/dkg/selftest"), km.CRSSeed[:], km.Digest[:])
	prng, err := sampling.NewKeyedPRNG(seed[:])
	if err != nil {
		return err
	}
	want := make([]uint64, p.Slots())
	for i := range want {
		want[i] = uint64(i*7+1) % p.PlaintextModulus()
	}
	pt := bgv.NewPlaintext(p.BGV(), p.MaxLevel())
	if err := bgv.NewEncoder(p.BGV()).Encode(want, pt); err != nil {
		return err
	}
	var ct *rlwe.Ciphertext
	if err := safe("self-test encryption", func() error {
		var e error
		ct, e = encryptFromPRNG(p.RLWE(), km.Public.Lattigo(), pt, prng)
		return e
	}); err != nil {
		return err
	}
	c, err := fhe.WrapCiphertext(p, ct)
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
	res, err := ThresholdDecrypt(ctx, g, key, plan, ev, led, DecryptRequest{Session: fmt.Sprintf("dkg/%d/selftest", km.Epoch),
		Ciphertext: c, Participants: g.Members, Valid: valid})
	if err != nil {
		if errors.Is(err, ErrAmbiguous) {
			return fmt.Errorf("protocol: dkg self-test: no share subset decrypts the test vector (inconsistent threshold shares): %w", err)
		}
		return fmt.Errorf("protocol: dkg self-test: %w", err)
	}
	if len(res.Bad) > 0 || len(res.Missing) > 0 {
		return fmt.Errorf("protocol: dkg self-test: members %v hold shares inconsistent with the rest, %v did not answer: re-key", res.Bad, res.Missing)
	}
	return nil
}
