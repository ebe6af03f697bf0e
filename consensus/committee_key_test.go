package consensus_test

import (
	"context"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/bls"
	. "github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/config"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/fhe"
	keccakpkg "github.com/fhegate/fhegate/internal/keccak"
)

// testCommittee is a committee config (chain 1337) with its BLS secret keys.
func testCommittee(t *testing.T, epoch uint64, n, th int) (*config.CommitteeConfig, []*bls.SecretKey) {
	t.Helper()
	addrs := make([]string, n)
	for i := range addrs {
		addrs[i] = fmt.Sprintf("127.0.0.1:%d", 41800+i)
	}
	cfg, secrets, err := config.GenerateCommittee(big.NewInt(1337), epoch, "InsecureBGVN10", th, addrs)
	require.NoError(t, err)
	keys := make([]*bls.SecretKey, n)
	for i, s := range secrets {
		keys[i], err = s.BLSSecretKey()
		require.NoError(t, err)
	}
	return cfg, keys
}

func signKey(t *testing.T, keys []*bls.SecretKey, epoch uint64, pkd [32]byte, idx ...int) ([]byte, []byte) {
	t.Helper()
	d := bls.CommitteeKeyDigest(big.NewInt(1337), epoch, pkd)
	var sigs [][]byte
	for _, i := range idx {
		sigs = append(sigs, keys[i].Sign(d[:]))
	}
	agg, err := bls.Aggregate(sigs)
	require.NoError(t, err)
	bm, err := bls.NewBitmap(len(keys), idx)
	require.NoError(t, err)
	return agg, bm
}

// TestMemChainCommitteeKey: the in-memory chain records a committee key
// exactly as FHEVerdict.setCommitteeKey does — a quorum of the registered
// committee over bls.CommitteeKeyDigest, once per epoch — and
// VerifyTargetKey accepts only the recorded digest.
func TestMemChainCommitteeKey(t *testing.T) {
	ctx := context.Background()
	cfg1, keys1 := testCommittee(t, 1, 5, 3)
	cfg2, keys2 := testCommittee(t, 2, 5, 3)
	pkd := keccakpkg.Sum([]byte("the new committee's public key"))
	other := keccakpkg.Sum([]byte("a key the coalition holds"))

	tests := []struct {
		name  string
		epoch uint64
		pkd   [32]byte
		sign  func() ([]byte, []byte)
		want  string
	}{
		{"under quorum", 2, pkd, func() ([]byte, []byte) { return signKey(t, keys2, 2, pkd, 0, 1) }, "under threshold"},
		{"old committee signs the new epoch", 2, pkd, func() ([]byte, []byte) { return signKey(t, keys1, 2, pkd, 0, 1, 2) }, "committee key"},
		{"other digest signed", 2, pkd, func() ([]byte, []byte) { return signKey(t, keys2, 2, other, 0, 1, 2) }, "committee key"},
		{"unregistered epoch", 3, pkd, func() ([]byte, []byte) { return signKey(t, keys2, 3, pkd, 0, 1, 2) }, "registered committee epoch 2"},
		{"zero digest", 2, [32]byte{}, func() ([]byte, []byte) { return signKey(t, keys2, 2, [32]byte{}, 0, 1, 2) }, "zero"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := local.NewMemChain(cfg1)
			require.NoError(t, err)
			require.NoError(t, c.SetCommittee(cfg2))
			sig, bm := tc.sign()
			err = c.SubmitCommitteeKey(ctx, tc.epoch, tc.pkd, sig, bm)
			require.ErrorIs(t, err, local.ErrVerdictRejected)
			require.ErrorContains(t, err, tc.want)
			require.ErrorIs(t, chainio.VerifyTargetKey(ctx, c, 2, pkd), chainio.ErrTargetKeyNotOnChain)
		})
	}

	c, err := local.NewMemChain(cfg1)
	require.NoError(t, err)
	require.NoError(t, c.SetCommittee(cfg2))
	require.ErrorIs(t, chainio.VerifyTargetKey(ctx, c, 2, pkd), chainio.ErrTargetKeyNotOnChain, "nothing recorded yet")
	sig, bm := signKey(t, keys2, 2, pkd, 1, 2, 3)
	require.NoError(t, c.SubmitCommitteeKey(ctx, 2, pkd, sig, bm))
	require.NoError(t, c.SubmitCommitteeKey(ctx, 2, pkd, sig, bm), "an identical resubmission is a no-op")
	sig2, bm2 := signKey(t, keys2, 2, other, 0, 1, 2, 3)
	require.ErrorContains(t, c.SubmitCommitteeKey(ctx, 2, other, sig2, bm2), "already recorded", "one key per epoch, even under a full quorum")
	require.NoError(t, chainio.VerifyTargetKey(ctx, c, 2, pkd))
	err = chainio.VerifyTargetKey(ctx, c, 2, other)
	require.ErrorIs(t, err, chainio.ErrTargetKeyNotOnChain)
	require.ErrorContains(t, err, "the chain recorded")
	require.ErrorIs(t, chainio.VerifyTargetKey(ctx, nil, 2, pkd), chainio.ErrTargetKeyNotOnChain)
}

// TestReencryptRefusesKeyNotOnChain. Attack: t−1 corrupt old members hand
// an honest operator a target key they hold (the new committee's
// committee.pk given to `fhegate committee rotate switch`). An old member
// key-switches only to the key
// the chain recorded for the next epoch: a key with nothing recorded, and a
// key other than the recorded one, are refused before any share is issued
// or the target pinned; the recorded key is then still accepted.
func TestReencryptRefusesKeyNotOnChain(t *testing.T) {
	t.Parallel()
	old := startTest(t, 3, 2, false)
	reqs := makeRequests(t, old, 1, 1, 31)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := old.Member(1).Params()
	attacker, honest := fhe.GenKeys(p, nil), fhe.GenKeys(p, nil)
	hb, err := honest.Public.MarshalBinary()
	require.NoError(t, err)

	_ = reqs
	cfg2, keys2 := testCommittee(t, 2, 3, 2)
	prepare := func(id uint32, target *fhe.PublicKey) error {
		return old.Member(id).PrepareSwitchOut(ctx, old.Chain, 1, 3, 2, 3, 2, []uint32{1, 2}, target)
	}
	// nothing recorded for epoch 2
	err = prepare(1, attacker.Public)
	require.ErrorIs(t, err, chainio.ErrTargetKeyNotOnChain)
	require.ErrorContains(t, err, "no key recorded for epoch 2")

	// the new committee binds its key; the attacker's is still refused
	require.NoError(t, old.Chain.SetCommittee(cfg2))
	sig, bm := signKey(t, keys2, 2, keccakpkg.Sum(hb), 0, 2)
	require.NoError(t, old.Chain.SubmitCommitteeKey(ctx, 2, keccakpkg.Sum(hb), sig, bm))
	for id := uint32(1); id <= 3; id++ {
		err = prepare(id, attacker.Public)
		require.ErrorIs(t, err, chainio.ErrTargetKeyNotOnChain, "member %d", id)
		require.ErrorContains(t, err, "the chain recorded")
	}
	// no target was pinned by the refused calls: the recorded key passes
	// the chain check and the pin
	require.NoError(t, prepare(1, honest.Public))
}

// TestKeySwitchLocalRefusesUnboundKey: the in-process rotation's old
// members read the target digest from their chain before the
// cross-committee key switch; a new committee whose key was never bound
// for the next epoch gets nothing switched.
func TestKeySwitchLocalRefusesUnboundKey(t *testing.T) {
	t.Parallel()
	old := startTest(t, 3, 2, false)
	makeRequests(t, old, 1, 1, 32)
	nc := startTest(t, 3, 2, false)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := KeySwitch(ctx, old.InProcess(), nc.InProcess())
	require.ErrorIs(t, err, chainio.ErrTargetKeyNotOnChain)
	require.ErrorContains(t, err, "old member 1 refuses the key switch")
	hs, err := nc.Member(1).CurrentHandles()
	require.NoError(t, err)
	require.Empty(t, hs)
}
