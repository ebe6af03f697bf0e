package precompiles

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/bls"
)

// rootedWorld is three uploads (alice, bob, alice) attested under one input
// root, as a committee member's root round signs them.
type rootedWorld struct {
	*world
	owners  []Address
	sets    [][]Hash
	root    [32]byte
	paths   [][][32]byte
	sig, bm []byte
}

func newRootedWorld(t *testing.T) *rootedWorld {
	w := &rootedWorld{world: newWorld(t)}
	w.owners = []Address{w.alice, w.bob, w.alice}
	leaves := make([][32]byte, len(w.owners))
	for i, o := range w.owners {
		set := batchHandles("rooted/"+string(rune('a'+i)), 2)
		w.sets = append(w.sets, set)
		leaves[i] = bls.InputBatchDigest(w.chainID, w.epoch, o, 1, bls.InputBatchRoot(inputItems(set...)))
	}
	var err error
	w.root, w.paths, err = bls.InputRootTree(leaves)
	require.NoError(t, err)
	w.sig, w.bm = aggSign(t, w.com, bls.InputRootDigest(w.chainID, w.epoch, w.root), w.quorum()...)
	return w
}

// args are evaluateRooted's arguments for set under the world's root.
func (w *rootedWorld) args(set []Hash, index uint32, path [][32]byte, sig, bm []byte) []any {
	a := inputBatchArgs(w.alice, 1, inputItems(set...), nil, nil)
	return []any{[32]byte(w.policy), a[1], a[2], a[3], a[4], w.root, index, path, sig, bm}
}

// TestEvaluateRooted: uploads attested under one root are requested by
// their owners; the first request verifies the root (one pairing) and the
// others only walk their paths. Attacks: an account spends another's leaf
// (the leaf is the caller's digest), a leaf at another index, a reordered
// or partial set, a root signature under quorum or for another chain, an
// unverified root without a signature, an oversized path — each refused,
// with nothing recorded.
func TestEvaluateRooted(t *testing.T) {
	w := newRootedWorld(t)
	const m = "evaluateRooted"

	w.mustFail(w.s.Policy, w.alice, "is not yet verified", m, w.args(w.sets[0], 0, w.paths[0], nil, nil)...)
	w.mustFail(w.s.Policy, w.bob, "is not leaf 0", m, w.args(w.sets[0], 0, w.paths[0], w.sig, w.bm)...)
	w.mustFail(w.s.Policy, w.alice, "is not leaf 1", m, w.args(w.sets[0], 1, w.paths[0], w.sig, w.bm)...)
	w.mustFail(w.s.Policy, w.alice, "is not leaf 0", m, w.args([]Hash{w.sets[0][1], w.sets[0][0]}, 0, w.paths[0], w.sig, w.bm)...)
	w.mustFail(w.s.Policy, w.alice, "is not leaf 0", m, w.args(w.sets[0][:1], 0, w.paths[0], w.sig, w.bm)...) // 1 handle is a vector input, but not this upload
	w.mustFail(w.s.Policy, w.alice, "policy takes 2 inputs: pass 2 handles (one ciphertext per input) or 1 (a vector input holding all 2), got 3", m,
		w.args(append(append([]Hash(nil), w.sets[0]...), w.sets[1][0]), 0, w.paths[0], w.sig, w.bm)...)
	w.mustFail(w.s.Policy, w.alice, "is not leaf 0", m, w.args([]Hash{w.sets[0][0], w.sets[1][1]}, 0, w.paths[0], w.sig, w.bm)...)
	under, ubm := aggSign(t, w.com, bls.InputRootDigest(w.chainID, w.epoch, w.root), w.quorum()[:w.thr-1]...)
	w.mustFail(w.s.Policy, w.alice, "under quorum", m, w.args(w.sets[0], 0, w.paths[0], under, ubm)...)
	other, obm := aggSign(t, w.com, bls.InputRootDigest(new(big.Int).Add(w.chainID, big.NewInt(1)), w.epoch, w.root), w.quorum()...)
	w.mustFail(w.s.Policy, w.alice, "aggregate signature does not verify", m, w.args(w.sets[0], 0, w.paths[0], other, obm)...)
	w.mustFail(w.s.Policy, w.alice, "do not describe a leaf", m, w.args(w.sets[0], 0, make([][32]byte, bls.MaxInputRootDepth+1), w.sig, w.bm)...)
	w.mustFail(w.s.Policy, w.alice, "do not describe a leaf", m, w.args(w.sets[0], 4, w.paths[0], w.sig, w.bm)...)
	w.mustFail(w.s.Policy, w.alice, "is not yet verified", m, w.args(w.sets[0], 0, w.paths[0], nil, nil)...) // no failure above remembered the root

	first := w.run(w.s.Policy, w.alice, false, 50_000_000, w.pack(w.s.Policy, m, w.args(w.sets[0], 0, w.paths[0], w.sig, w.bm)...))
	require.NoError(t, first.err, first.reason)
	ret, err := w.s.Policy.ABI().Unpack(m, first.ret)
	require.NoError(t, err)
	req := Hash(ret[0].([32]byte))
	out := w.must(w.s.Policy, w.carol, "requestOf", [32]byte(req))
	require.Equal(t, true, out[0])
	require.Equal(t, [32]byte(w.policy), out[1])
	w.requireUnregistered(inputItems(w.sets[0]...))

	// bob's leaf: the root is known, no signature needed, no pairing paid
	second := w.run(w.s.Policy, w.bob, false, 50_000_000, w.pack(w.s.Policy, m, w.args(w.sets[1], 1, w.paths[1], nil, nil)...))
	require.NoError(t, second.err, second.reason)
	require.GreaterOrEqual(t, first.used, second.used+GasBLSVerify, "the first request pays the pairing, later ones do not")
	// a known root does not make a foreign leaf valid
	w.mustFail(w.s.Policy, w.carol, "is not leaf 2", m, w.args(w.sets[2], 2, w.paths[2], nil, nil)...)
	third := w.run(w.s.Policy, w.alice, false, 50_000_000, w.pack(w.s.Policy, m, w.args(w.sets[2], 2, w.paths[2], nil, nil)...))
	require.NoError(t, third.err, third.reason)
	t.Logf("precompile gas: evaluateRooted first %d (pairing, root stored), later %d / %d", first.used, second.used, third.used)

	// against evaluateAttested with its own pairing
	hs := batchHandles("rooted/attested", 2)
	sig, bm := w.attestBatch(w.alice, 1, inputItems(hs...), w.com, w.epoch, w.quorum()...)
	a := inputBatchArgs(w.alice, 1, inputItems(hs...), sig, bm)
	att := w.run(w.s.Policy, w.alice, false, 50_000_000, w.pack(w.s.Policy, "evaluateAttested", append([]any{[32]byte(w.policy)}, a[1:]...)...))
	require.NoError(t, att.err, att.reason)
	require.Less(t, third.used+GasBLSVerify/2, att.used)
}

// TestEvaluateRootedVectorInput: evaluateRooted of an 8-input policy takes
// an upload of 8 handles or of 1 (a vector input); uploads of 2 or 7 are
// refused with nothing recorded (the count is checked before the path and
// the root), and the caller must be the vector input's uploader (the leaf
// is the caller's digest). The first request under the root pays its
// pairing; a later vector input under it walks its path only.
func TestEvaluateRootedVectorInput(t *testing.T) {
	base := newWorld(t)
	pid := base.registerVectorPolicy()
	const m = "evaluateRooted"
	owners := []Address{base.alice, base.alice, base.alice, base.alice, base.bob}
	sets := [][]Hash{
		batchHandles("vector/rooted/1", 1),
		batchHandles("vector/rooted/8", 8),
		batchHandles("vector/rooted/2", 2),
		batchHandles("vector/rooted/7", 7),
		batchHandles("vector/rooted/bob", 1),
	}
	leaves := make([][32]byte, len(sets))
	for i, set := range sets {
		leaves[i] = bls.InputBatchDigest(base.chainID, base.epoch, owners[i], 1, bls.InputBatchRoot(inputItems(set...)))
	}
	root, paths, err := bls.InputRootTree(leaves)
	require.NoError(t, err)
	sig, bm := aggSign(t, base.com, bls.InputRootDigest(base.chainID, base.epoch, root), base.quorum()...)
	args := func(leaf int, sig, bm []byte) []any {
		a := inputBatchArgs(owners[leaf], 1, inputItems(sets[leaf]...), nil, nil)
		return []any{[32]byte(pid), a[1], a[2], a[3], a[4], root, uint32(leaf), paths[leaf], sig, bm}
	}
	const count = "FHEPolicy.evaluateRooted: policy takes 8 inputs: pass 8 handles (one ciphertext per input) or 1 (a vector input holding all 8), got "

	for _, tc := range []struct {
		name   string
		caller Address
		leaf   int
		fail   string // "" = accepted
	}{
		{"1 handle (vector input)", base.alice, 0, ""},
		{"1 handle (vector input), another owner's upload", base.bob, 0, "is not leaf 0"},
		{"8 handles (one per input)", base.alice, 1, ""},
		{"2 handles", base.alice, 2, count + "2"},
		{"7 handles", base.alice, 3, count + "7"},
		{"1 handle (vector input) of bob", base.bob, 4, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := base.fork(t)
			if tc.fail != "" {
				w.mustFail(w.s.Policy, tc.caller, tc.fail, m, args(tc.leaf, sig, bm)...)
				return
			}
			before, nonce := len(w.st.Logs), w.policyNonce()
			r := w.run(w.s.Policy, tc.caller, false, 50_000_000, w.pack(w.s.Policy, m, args(tc.leaf, sig, bm)...))
			w.requireRequested(r, m, before, nonce, tc.caller, pid, sets[tc.leaf])
			w.requireUnregistered(inputItems(sets[tc.leaf]...))
		})
	}

	// under a verified root, a vector input pays no pairing
	w := base.fork(t)
	first := w.run(w.s.Policy, w.alice, false, 50_000_000, w.pack(w.s.Policy, m, args(0, sig, bm)...))
	require.NoError(t, first.err, first.reason)
	w.st.EndTransaction()
	w.mustFail(w.s.Policy, w.bob, "is not leaf 0", m, args(0, nil, nil)...)
	w.mustFail(w.s.Policy, w.alice, count+"7", m, args(3, nil, nil)...)
	before, nonce := len(w.st.Logs), w.policyNonce()
	later := w.run(w.s.Policy, w.bob, false, 50_000_000, w.pack(w.s.Policy, m, args(4, nil, nil)...))
	w.requireRequested(later, m, before, nonce, w.bob, pid, sets[4])
	require.GreaterOrEqual(t, first.used, later.used+GasBLSVerify, "the first request pays the pairing, later ones do not")
	eight := w.run(w.s.Policy, w.alice, false, 50_000_000, w.pack(w.s.Policy, m, args(1, nil, nil)...))
	require.NoError(t, eight.err, eight.reason)
	require.Less(t, later.used, eight.used)
	t.Logf("precompile gas: evaluateRooted vector input first %d (pairing, root stored), later %d; 8 handles later %d", first.used, later.used, eight.used)
}
