package precompiles

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/ava-labs/libevm/common"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
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

// crdtSetup: alice owns sA (over hA), bob owns sB (over hC); carol is allowed
// on both states, alice also on sB.
func crdtSetup(t *testing.T) (*world, Hash, Hash) {
	w := newWorld(t)
	sA := Hash(w.must(w.s.CRDT, w.alice, "create", uint8(2), [32]byte(w.hA), EncodeVersionVector([2]uint64{1, 5}))[0].([32]byte))
	sB := Hash(w.must(w.s.CRDT, w.bob, "create", uint8(2), [32]byte(w.hC), EncodeVersionVector([2]uint64{2, 7}))[0].([32]byte))
	w.must(w.s.CRDT, w.alice, "allow", [32]byte(sA), common.Address(w.carol))
	w.must(w.s.CRDT, w.bob, "allow", [32]byte(sB), common.Address(w.carol))
	w.must(w.s.CRDT, w.bob, "allow", [32]byte(sB), common.Address(w.alice))
	w.st.EndTransaction()
	return w, sA, sB
}

// TestCRDTMergeIDSquatting. Attack: the merged state's id is
// keccak(lo, hi), and whoever merged two states first became its owner —
// carol, merely allowed on both, could merge first, own merge(sA, sB), allow
// anyone on it (leaking both owners' data) and lock the owners out of the
// merged id. The merged state's ownership and ACL must not depend on who
// merged first: same storage whatever the order of the mergers.
func TestCRDTMergeIDSquatting(t *testing.T) {
	w1, sA, sB := crdtSetup(t)
	w2 := w1.fork(t)
	mallory := acct("mallory")

	// order 1: carol first, then alice
	id := Hash(w1.must(w1.s.CRDT, w1.carol, "merge", [32]byte(sA), [32]byte(sB))[0].([32]byte))
	w1.must(w1.s.CRDT, w1.alice, "merge", [32]byte(sB), [32]byte(sA))
	// order 2: alice first, then carol
	require.Equal(t, id, Hash(w2.must(w2.s.CRDT, w2.alice, "merge", [32]byte(sB), [32]byte(sA))[0].([32]byte)))
	w2.must(w2.s.CRDT, w2.carol, "merge", [32]byte(sA), [32]byte(sB))
	w1.st.EndTransaction() // logs differ in order; storage must not
	w2.st.EndTransaction()
	require.Equal(t, w1.st.Fingerprint(), w2.st.Fingerprint(), "merged state depends on the order of the mergers")

	for _, w := range []*world{w1, w2} {
		st := w.must(w.s.CRDT, w.bob, "stateOf", [32]byte(id))
		require.Equal(t, common.Address{}, st[2], "no exclusive owner when the inputs' owners differ")
		// nobody can hand the merged state to a third party
		w.mustFail(w.s.CRDT, w.carol, "only the owner", "allow", [32]byte(id), common.Address(mallory))
		w.mustFail(w.s.CRDT, w.alice, "only the owner", "allow", [32]byte(id), common.Address(mallory))
		// those allowed on both inputs may use it
		w.must(w.s.CRDT, w.carol, "value", [32]byte(id))
		w.must(w.s.CRDT, w.alice, "value", [32]byte(id))
		// bob was never allowed on sA: merging does not give him sA's data
		w.mustFail(w.s.CRDT, w.bob, "not allowed on both states", "merge", [32]byte(sA), [32]byte(sB))
		w.mustFail(w.s.CRDT, w.bob, "not allowed on state", "value", [32]byte(id))
		w.mustFail(w.s.CRDT, mallory, "not allowed on state", "value", [32]byte(id))
		// the zero address (eth_call's default sender) is not the owner of an ownerless state
		w.mustFail(w.s.CRDT, Address{}, "not allowed on state", "value", [32]byte(id))
		w.mustFail(w.s.CRDT, Address{}, "only the owner", "allow", [32]byte(id), common.Address(mallory))
	}

	// states with one owner: the merged state keeps that owner, whoever merges
	w3 := newWorld(t)
	require.Equal(t, common.Address(w3.alice), w3.must(w3.s.CRDT, w3.bob, "stateOf", [32]byte(w3.merged))[2])
}

// TestRequestIDBindsRequest. Defect: request ids were
// keccak(chainId, precompile, nonce) only — they did not bind the policy, the
// handles or the requester, so two chains sharing chain id 1337 and one
// committee produced identical ids for different evaluations, and a verdict
// signed for one could be submitted for the other. The id must bind the
// policy id, the handles hash and the requester (and stay deterministic).
func TestRequestIDBindsRequest(t *testing.T) {
	w := newWorld(t)
	cid := big.NewInt(1337)
	hs := HandlesHash([]Hash{w.hA, w.hB})
	base := RequestID(cid, FHEPolicyAddress, 0, w.gate, w.policy, hs)
	require.Equal(t, base, RequestID(cid, FHEPolicyAddress, 0, w.gate, w.policy, hs), "deterministic")
	for _, other := range []Hash{
		RequestID(cid, FHEPolicyAddress, 0, w.alice, w.policy, hs),
		RequestID(cid, FHEPolicyAddress, 0, w.gate, Keccak256([]byte("other policy")), hs),
		RequestID(cid, FHEPolicyAddress, 0, w.gate, w.policy, HandlesHash([]Hash{w.hB, w.hA})),
		RequestID(cid, FHEPolicyAddress, 1, w.gate, w.policy, hs),
		RequestID(big.NewInt(1), FHEPolicyAddress, 0, w.gate, w.policy, hs),
		RequestID(cid, FHECRDTAddress, 0, w.gate, w.policy, hs),
	} {
		require.NotEqual(t, base, other)
	}
	// the precompile issues exactly these ids: two chains with the same chain
	// id and nonce but different requests get different ids
	w2 := w.fork(t)
	r1 := Hash(w.must(w.s.Policy, w.gate, "evaluate", [32]byte(w.policy), [][32]byte{w.hA, w.hB})[0].([32]byte))
	r2 := Hash(w2.must(w2.s.Policy, w2.gate, "evaluate", [32]byte(w2.policy), [][32]byte{w2.hB, w2.hA})[0].([32]byte))
	require.NotEqual(t, r1, r2)
	require.Equal(t, RequestID(cid, FHEPolicyAddress, 2, w.gate, w.policy, hs), r1)
	rq := w.must(w.s.Policy, w.bob, "requestOf", [32]byte(r1))
	require.Equal(t, []any{true, [32]byte(w.policy), common.Address(w.gate), w.number}, rq, "the one-slot record")
}

// TestRegisterRejectsUnknownCType. Defect: the ciphertext type tag is
// attested by the committee but was never checked, so a handle could be
// registered under any tag and contracts reading handleInfo could not rely
// on it. registerBatch must refuse tags outside the allowed ciphertext types,
// before paying for signature verification.
func TestRegisterRejectsUnknownCType(t *testing.T) {
	w := newWorld(t)
	for _, ct := range []uint8{0, 2, 3, 255} {
		h := handle(fmt.Sprintf("ctype-%d", ct))
		sig, bm := w.attest(h, w.alice, 1, ct, w.com, w.epoch, w.quorum()...)
		w.mustFail(w.s.Input, w.alice, "ciphertext type", "registerBatch", registerArgs(h, w.alice, 1, ct, sig, bm)...)
	}
	h := handle("ctype-ok")
	sig, bm := w.attest(h, w.alice, 1, CTypeCiphertext, w.com, w.epoch, w.quorum()...)
	w.must(w.s.Input, w.alice, "registerBatch", registerArgs(h, w.alice, 1, CTypeCiphertext, sig, bm)...)
	require.Equal(t, uint8(fhe.KindCiphertext), CTypeCiphertext)
}

// countingCompiler counts Compile calls.
type countingCompiler struct {
	PolicyCompiler
	n *int
}

func (c countingCompiler) Compile(spec []byte) (PlanInfo, error) {
	*c.n++
	return c.PolicyCompiler.Compile(spec)
}

// TestRegisterPolicyAgainIsARead. Attack/defect: registering an already
// registered spec ran the compiler again and charged the full compile
// (≈3.6M gas) before discovering the policy existed — spam re-registration
// burnt validator CPU at the price of a no-op. A known spec must be found by a
// cheap spec-hash index and cost reads, not a compile.
func TestRegisterPolicyAgainIsARead(t *testing.T) {
	n := 0
	s, err := NewSuite(Options{Compiler: countingCompiler{standInCompiler{}, &n}, Merger: standInMerger{}})
	require.NoError(t, err)
	w := newWorld(t)
	w.s = s
	spec := []byte("fresh: a*b > 1; inputs=2")
	in := w.pack(s.Policy, "registerPolicy", spec)
	first := w.run(s.Policy, w.alice, false, 50_000_000, in)
	require.NoError(t, first.err)
	require.Equal(t, 1, n)
	before := w.st.Fingerprint()
	again := w.run(s.Policy, w.bob, false, 50_000_000, in)
	require.NoError(t, again.err)
	require.Equal(t, first.ret, again.ret, "same policy id")
	require.Equal(t, 1, n, "the compiler must not run again")
	require.Equal(t, before, w.st.Fingerprint())
	require.Less(t, again.used, uint64(20_000), "re-registration must cost reads (used %d)", again.used)
	t.Logf("registerPolicy: first %d gas, again %d gas", first.used, again.used)
}
