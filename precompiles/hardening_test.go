package precompiles

import (
	"testing"

	"github.com/ava-labs/libevm/common"
	"github.com/stretchr/testify/require"
)

// mustFail calls and requires a revert whose reason contains want; state is untouched.
func (w *world) mustFail(c *Contract, from Address, want string, method string, args ...any) {
	w.t.Helper()
	before := w.st.Fingerprint()
	r := w.run(c, from, false, 50_000_000, w.pack(c, method, args...))
	require.Error(w.t, r.err, "%s.%s should fail", c.Name(), method)
	require.Contains(w.t, r.reason, want)
	require.Equal(w.t, before, w.st.Fingerprint(), "state changed by a failed call")
}

// TestTransientAccessCannotRegrant. Attack: a contract granted transient
// access to a handle for one transaction (allowTransient) calls
// FHEInput.allow(h, self) — or allowTransient, or FHECRDT.create with the
// handle — inside that transaction and keeps permanent access after it ends.
// Transient access may only use a handle (evaluate); granting and capturing it
// in a CRDT state need the owner or a persistent ACL entry.
func TestTransientAccessCannotRegrant(t *testing.T) {
	w := newWorld(t)
	x := acct("transient-grantee")
	w.must(w.s.Input, w.alice, "allowTransient", [32]byte(w.hA), common.Address(x))

	w.mustFail(w.s.Input, x, "not allowed to grant", "allow", [32]byte(w.hA), common.Address(x))
	w.mustFail(w.s.Input, x, "not allowed to grant", "allowTransient", [32]byte(w.hA), common.Address(w.carol))
	w.mustFail(w.s.CRDT, x, "not allowed to grant", "create", uint8(2), [32]byte(w.hA), EncodeVersionVector([2]uint64{9, 1}))
	// using it within the transaction still works
	w.must(w.s.Policy, x, "evaluate", [32]byte(w.policy), [][32]byte{w.hA, w.hA})
	w.st.EndTransaction()
	require.False(t, w.must(w.s.Input, w.bob, "isAllowed", [32]byte(w.hA), common.Address(x))[0].(bool), "no access after the transaction")

	// a persistent grantee may still grant and create
	w.must(w.s.Input, w.gate, "allow", [32]byte(w.hA), common.Address(w.carol))
	w.must(w.s.CRDT, w.gate, "create", uint8(2), [32]byte(w.hA), EncodeVersionVector([2]uint64{9, 1}))
}

// TestGovernanceTransfer. Attack/defect: the governance address was fixed at
// genesis — a compromised or lost governance key could never be replaced —
// and a one-step transfer to a mistyped address would lose governance for
// ever. transferGovernance (by governance) proposes, acceptGovernance (by the
// proposed address) completes; nobody else can do either.
func TestGovernanceTransfer(t *testing.T) {
	w := newWorld(t)
	next := acct("next-governance")
	w.mustFail(w.s.Verdict, w.alice, "not the governance address", "transferGovernance", common.Address(w.alice))
	w.mustFail(w.s.Verdict, next, "not the pending governance address", "acceptGovernance")

	w.must(w.s.Verdict, w.gov, "transferGovernance", common.Address(next))
	require.Equal(t, common.Address(next), w.must(w.s.Verdict, w.bob, "pendingGovernance")[0])
	require.Equal(t, common.Address(w.gov), w.must(w.s.Verdict, w.bob, "committee")[3], "unchanged until accepted")
	w.mustFail(w.s.Verdict, w.alice, "not the pending governance address", "acceptGovernance")

	w.must(w.s.Verdict, next, "acceptGovernance")
	require.Equal(t, common.Address(next), w.must(w.s.Verdict, w.bob, "committee")[3])
	require.Equal(t, common.Address{}, w.must(w.s.Verdict, w.bob, "pendingGovernance")[0])
	w.mustFail(w.s.Verdict, next, "not the pending governance address", "acceptGovernance")
	// the old governance lost its powers, the new one has them
	cc := committeeConfig(committeeKeys(t, "gov2", 3), 2, 2)
	w.mustFail(w.s.Verdict, w.gov, "not the governance address", "setCommittee", uint64(2), uint32(2), cc.PubKeys, cc.PoPs)
	w.mustFail(w.s.Verdict, w.gov, "not the governance address", "transferGovernance", common.Address(w.gov))
	w.must(w.s.Verdict, next, "setCommittee", uint64(2), uint32(2), cc.PubKeys, cc.PoPs)

	// a pending proposal can be cancelled with the zero address
	w.must(w.s.Verdict, next, "transferGovernance", common.Address(w.alice))
	w.must(w.s.Verdict, next, "transferGovernance", common.Address{})
	w.mustFail(w.s.Verdict, w.alice, "not the pending governance address", "acceptGovernance")
	w.mustFail(w.s.Verdict, Address{}, "not the pending governance address", "acceptGovernance")
}

// TestSetCommitteeEpochStepsByOne. Attack: governance (or a compromised
// governance key) sets the epoch to 2^64-1; no later epoch can exceed it, so
// the committee can never be rotated again (and skipped epochs confuse
// committee members that sign for "the next" epoch). setCommittee must move
// the epoch forward by exactly one.
func TestSetCommitteeEpochStepsByOne(t *testing.T) {
	w := newWorld(t) // epoch 1
	cc := committeeConfig(committeeKeys(t, "epochs", 3), 0, 2)
	for _, e := range []uint64{^uint64(0), 3, 1, 0} {
		w.mustFail(w.s.Verdict, w.gov, "must be the current epoch 1 plus one", "setCommittee", e, uint32(2), cc.PubKeys, cc.PoPs)
	}
	w.must(w.s.Verdict, w.gov, "setCommittee", uint64(2), uint32(2), cc.PubKeys, cc.PoPs)
	w.mustFail(w.s.Verdict, w.gov, "must be the current epoch 2 plus one", "setCommittee", uint64(2), uint32(2), cc.PubKeys, cc.PoPs)
	w.must(w.s.Verdict, w.gov, "setCommittee", uint64(3), uint32(2), cc.PubKeys, cc.PoPs)
	require.Equal(t, uint64(3), w.must(w.s.Verdict, w.bob, "committee")[0])

	// genesis cannot start at the last epoch either
	cc.Epoch = ^uint64(0)
	require.Error(t, ConfigureVerdict(NewMemState().Store(FHEVerdictAddress), w.gov, cc))
}
