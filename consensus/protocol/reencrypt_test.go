package protocol

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// TestReencrypt switches a ciphertext from a 2-of-3 committee's collective
// secret to a key pair whose secret the test holds: every receiver computes
// the same ciphertext, which decrypts under the target secret to the
// original plaintext; the target is pinned per ciphertext and epoch.
func TestReencrypt(t *testing.T) {
	t.Parallel()
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	c := newCommittee(t, p, 3, 2, nil)
	plan, err := PlanNoise(p, 3, 2, 0)
	require.NoError(t, err)
	sigma, err := ReencryptSigmaBits(p, plan, p.MaxLevel(), 2)
	require.NoError(t, err)
	require.Equal(t, plan.BaseSigmaBits, sigma, "re-encryption floods like the decryption")

	r := rand.New(rand.NewPCG(3, 4))
	want := fhetest.RandInts(r, p.Slots(), 1000)
	in := mustEnc(t, fhe.NewEncryptor(c.kms[0].Public), want)
	target := fhe.GenKeys(p, nil)

	run := func(session string, tgt *fhe.PublicKey, active []transport.MemberID, idx []int) ([]*fhe.Ciphertext, []error) {
		outs := make([]*fhe.Ciphertext, c.n)
		errs := parallel(idx, func(i int) error {
			o, err := Reencrypt(context.Background(), c.group(i, t), c.keys[i], plan, c.ledgers[i], ReencryptRequest{
				Session: session, Ciphertext: in, Target: tgt, Active: active, Receivers: c.members})
			outs[i] = o
			return err
		})
		return outs, errs
	}
	check := func(outs []*fhe.Ciphertext) {
		d0, err := outs[0].Handle()
		require.NoError(t, err)
		for _, o := range outs[1:] {
			d, err := o.Handle()
			require.NoError(t, err)
			require.Equal(t, d0, d, "receivers disagree")
		}
		got, err := fhe.NewDecryptor(target.Secret).DecryptInts(outs[0])
		require.NoError(t, err)
		require.Equal(t, want, got)
		require.Equal(t, in.Level(), outs[0].Level())
		// The flooding is in the output: its noise is ≈ t·σ, far above a
		// fresh encryption's, which is why the new committee refreshes it.
		std := noiseLog2(t, p, outs[0], want, target.Secret)
		t.Logf("re-encrypted noise: log2 std %.1f (σ = 2^%.0f)", std, sigma)
		require.Greater(t, std, sigma-1)
		require.Less(t, std, sigma+3)
	}

	outs, errs := run("reenc/a", target.Public, []transport.MemberID{1, 3}, all(3))
	for _, err := range errs {
		require.NoError(t, err)
	}
	check(outs)

	// Another active set, same target: allowed (a run whose member died).
	outs, errs = run("reenc/b", target.Public, []transport.MemberID{2, 3}, all(3))
	for _, err := range errs {
		require.NoError(t, err)
	}
	check(outs)

	// Another target key for the same ciphertext and epoch: refused by an
	// active member before it computes a share.
	other := fhe.GenKeys(p, nil)
	_, err = Reencrypt(context.Background(), c.group(0, t), c.keys[0], plan, c.ledgers[0], ReencryptRequest{
		Session: "reenc/c", Ciphertext: in, Target: other.Public, Active: []transport.MemberID{1, 2}, Receivers: c.members})
	require.ErrorIs(t, err, ErrTargetPinned)
	require.ErrorIs(t, err, ErrAlreadyShared)
}

// noiseLog2 is log2 of the standard deviation of ct's noise under sk, ct
// encrypting the slots want.
func noiseLog2(t *testing.T, p *fhe.Params, ct *fhe.Ciphertext, want []int64, sk *fhe.SecretKey) float64 {
	ecd := bgv.NewEncoder(p.BGV())
	pt := bgv.NewPlaintext(p.BGV(), ct.Level())
	pt.Scale = ct.Lattigo().Scale
	tm := int64(p.PlaintextModulus())
	u := make([]uint64, len(want))
	for i, v := range want {
		u[i] = uint64(((v % tm) + tm) % tm)
	}
	require.NoError(t, ecd.Encode(u, pt))
	diff, err := bgv.NewEvaluator(p.BGV(), nil).SubNew(ct.Lattigo(), pt)
	require.NoError(t, err)
	std, _, _ := rlwe.Norm(diff, rlwe.NewDecryptor(p.RLWE(), sk.Lattigo()))
	return std
}
