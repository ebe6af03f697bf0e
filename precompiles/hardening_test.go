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
