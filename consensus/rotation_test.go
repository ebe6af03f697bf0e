package consensus_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	. "github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/fhe"
	keccakpkg "github.com/fhegate/fhegate/internal/keccak"
)

// TestRotationKeepsInputs is the rotation test: inputs uploaded to a
// 2-of-3 committee before a rotation to epoch 2 (new DKG, new members)
// still evaluate after it, under their original handles; a ciphertext still
// under the old key is refused; an old member refuses to re-encrypt an
// input to a key its chain did not record; and the rotation's last step
// retires every old member: no key share in memory or in its store, no
// share bytes in its ledger (a restart finds no keys), so it refuses any
// further key switch, while the ledger's target pin survives.
func TestRotationKeepsInputs(t *testing.T) {
	t.Parallel()
	old := startTest(t, 3, 2, true)
	reqs := makeRequests(t, old, 1, 3, 12)
	old.Chain.Post(reqs[0].req)
	waitVerdicts(t, old.Chain, reqs[:1])

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// An old member refuses to key-switch to a key that is not the one the
	// chain recorded for epoch 2.
	other := fhe.GenKeys(old.Member(1).Params(), nil)
	err := old.Member(1).PrepareSwitchOut(ctx, old.Chain, 1, 3, 2, 3, 2, []uint32{1, 2}, other.Public)
	require.ErrorIs(t, err, chainio.ErrTargetKeyNotOnChain)

	nc := rotateToEpoch2(ctx, t, old)

	var handles []fhe.Handle
	for _, r := range reqs {
		handles = append(handles, r.req.Inputs...)
	}
	requireInputsCarried(t, nc, handles)
	requireVerdictsAfterRotation(t, nc, reqs)
	requireOldKeyRefused(ctx, t, old, nc, reqs[1].req.Inputs[0], handles[0])

	requireRetired(ctx, t, old, []uint32{1, 2, 3}, []uint32{1, 2}, other.Public)
	// A retired member that restarts finds no keys.
	old.Kill(3)
	require.ErrorIs(t, old.Restart(3), ErrNoKeys)
}

// requireRetired: each of ids (old committee members after a rotation from
// epoch 1) holds no key, no sealed share in its store and no share bytes
// in its ledger, and refuses a key switch; the ledger of each of active
// (the old members that took part in the key switch) still pins epoch 1's
// target (a second target is refused).
func requireRetired(ctx context.Context, t *testing.T, old *local.Committee, ids, active []uint32, other *fhe.PublicKey) {
	t.Helper()
	ob, err := other.MarshalBinary()
	require.NoError(t, err)
	for _, id := range ids {
		m := old.Member(id)
		_, err := m.Keys()
		require.ErrorIs(t, err, ErrNoKeys, "old member %d", id)
		_, err = m.Store().GetMeta("epoch/1/tsk")
		require.ErrorIs(t, err, store.ErrNotFound, "old member %d's sealed share", id)
		for _, k := range []protocol.ShareKind{protocol.KindReencrypt, protocol.KindDecryption, protocol.KindRefresh, protocol.KindPrivateRead} {
			require.Zero(t, m.Ledger().Held(k, 1), "old member %d's %s shares", id, k)
		}
		err = m.PrepareSwitchOut(ctx, old.Chain, 1, 3, 2, 3, 2, []uint32{1, 2}, other)
		require.ErrorIs(t, err, ErrNoKeys, "a retired member switches nothing")
		if !slices.Contains(active, id) {
			continue
		}
		d := keccakpkg.Sum([]byte("fhegate/rotation/epoch-target/v1"))
		_, err = m.Ledger().Issue(protocol.KindReencrypt, d, 1, fmt.Sprintf("reenc/epoch-target/%x", keccakpkg.Sum(ob)),
			func() ([]byte, error) { return nil, nil })
		require.ErrorIs(t, err, protocol.ErrAlreadyShared, "old member %d: the epoch's target pin survives", id)
	}
}

// rotateToEpoch2 rotates old to a new committee under epoch 2, on the same
// chain and with a new key, and returns it (closed when the test ends).
func rotateToEpoch2(ctx context.Context, t *testing.T, old *local.Committee) *local.Committee {
	t.Helper()
	// The new committee's refreshes of the re-encrypted inputs (and of
	// everything after) run at a level with room for their flooding.
	fc := newFloorChecker(old.Live()[0].Params())
	oldKM, err := old.Member(1).Keys()
	require.NoError(t, err)
	start := time.Now()
	nc, err := local.Rotate(ctx, old, local.Options{Dir: t.TempDir(), RoundTimeout: 10 * time.Second, BatchSize: 8, Serve: true, Knobs: fc.knobs(), Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	// Reported, not asserted (docs/LP-137.md, "Actively secure DKG and rotation").
	t.Logf("rotation (DKG of the new committee, re-encryption and adoption of the stored inputs): %v", time.Since(start))
	t.Cleanup(nc.Close)
	t.Cleanup(func() { fc.check(t, 1) })
	require.Equal(t, uint64(2), nc.Config.Epoch)
	require.Same(t, old.Chain, nc.Chain)
	newKM, err := nc.Member(1).Keys()
	require.NoError(t, err)
	require.NotEqual(t, oldKM.PKDigest, newKM.PKDigest)
	// the new committee's key is bound on chain for its epoch
	onChain, err := old.Chain.CommitteeKeyOf(ctx, 2)
	require.NoError(t, err)
	require.Equal(t, newKM.PKDigest, onChain)
	return nc
}

// requireInputsCarried: every new member holds every input under its
// original handle, under epoch 2, with the same (re-encrypted, refreshed)
// bytes.
func requireInputsCarried(t *testing.T, nc *local.Committee, handles []fhe.Handle) {
	t.Helper()
	for _, h := range handles {
		b0, e0, err := nc.Member(1).Store().GetAt(h)
		require.NoError(t, err)
		require.Equal(t, uint64(2), e0)
		require.NotEqual(t, h, fhe.HandleOf(b0), "re-encrypted bytes differ from the upload")
		for id := uint32(2); id <= 3; id++ {
			b, e, err := nc.Member(id).Store().GetAt(h)
			require.NoError(t, err)
			require.Equal(t, uint64(2), e)
			require.Equal(t, b0, b)
		}
	}
}

// requireVerdictsAfterRotation: requests over the pre-rotation handles,
// posted after the rotation (one of them reusing the already-evaluated
// request's inputs under a new request id), get verdicts from the new
// committee equal to the plaintext reference, signed under epoch 2.
func requireVerdictsAfterRotation(t *testing.T, nc *local.Committee, reqs []testReq) {
	t.Helper()
	again := reqs[0]
	again.req.ID[31] ^= 0xff
	after := []testReq{reqs[1], reqs[2], again}
	for _, r := range after {
		nc.Chain.Post(r.req)
	}
	waitVerdicts(t, nc.Chain, after)
	for _, r := range after {
		v, _ := nc.Chain.Verdict(r.req.ID)
		require.Equal(t, uint64(2), v.Epoch)
	}
}

// requireOldKeyRefused: a ciphertext under the old key is refused by the
// new committee: a re-upload of input's old bytes keeps the re-encrypted
// ciphertext (newest epoch wins), and an input stored under epoch 1 is not
// evaluated (in a request with the carried input carried) nor served to a
// peer's fetch.
func requireOldKeyRefused(ctx context.Context, t *testing.T, old, nc *local.Committee, input, carried fhe.Handle) {
	t.Helper()
	m := nc.Member(1)
	oldBytes, e, err := old.Member(1).Store().GetAt(input)
	require.NoError(t, err)
	require.Equal(t, uint64(1), e)
	stored, err := m.Store().PutAt(input, oldBytes, 1)
	require.NoError(t, err)
	require.False(t, stored)
	h, _, err := m.Store().Put(oldBytes)
	require.NoError(t, err)
	e, err = m.Store().Epoch(h)
	require.NoError(t, err)
	require.Equal(t, uint64(2), e)

	stale, err := fhe.NewEncryptor(old.Keys).EncryptInts([]int64{7})
	require.NoError(t, err)
	sb, err := stale.MarshalBinary()
	require.NoError(t, err)
	sh := fhe.HandleOf(sb)
	stored, err = m.Store().PutAt(sh, sb, 1)
	require.NoError(t, err)
	require.True(t, stored)
	_, err = m.Process(ctx, chainio.Request{ID: [32]byte{0x5e}, PolicyID: circuit.PolicyProductSum, Kind: chainio.KindPolicy, Inputs: []fhe.Handle{sh, carried}})
	require.ErrorIs(t, err, ErrStaleKey)
	_, err = m.Servable(sh)
	require.ErrorIs(t, err, ErrStaleKey, "a stale ciphertext is not served to a peer's fetch")
}

// TestRotationOldMemberDown: t of the old committee suffice. Old member 1
// is killed before the rotation;
// the key switch runs with old members 2 and 3 active, and a pre-rotation
// input evaluates under epoch 2.
func TestRotationOldMemberDown(t *testing.T) {
	t.Parallel()
	old := startTest(t, 3, 2, true)
	reqs := makeRequests(t, old, 1, 1, 13)
	old.Kill(1)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// The new committee's refreshes of the re-encrypted inputs (and of
	// everything after) run at a level with room for their flooding.
	fc := newFloorChecker(old.Live()[0].Params())
	start := time.Now()
	nc, err := local.Rotate(ctx, old, local.Options{Dir: t.TempDir(), RoundTimeout: 10 * time.Second, BatchSize: 8, Serve: true, Knobs: fc.knobs(), Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	// Reported, not asserted (docs/LP-137.md, "Actively secure DKG and rotation").
	t.Logf("rotation (DKG of the new committee, re-encryption and adoption of the stored inputs): %v", time.Since(start))
	t.Cleanup(nc.Close)
	t.Cleanup(func() { fc.check(t, 1) })
	nc.Chain.Post(reqs[0].req)
	waitVerdicts(t, nc.Chain, reqs)
	// The live old members retired; the one that was down still holds its
	// share (its operator retires it: docs/committee.md, "Rotation").
	requireRetired(ctx, t, old, []uint32{2, 3}, []uint32{2, 3}, fhe.GenKeys(nc.Member(1).Params(), nil).Public)
}
