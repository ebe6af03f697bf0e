package precompiles

import (
	"errors"
	"fmt"
	"math/big"
	"testing"

	"github.com/ava-labs/libevm/common"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/bls"
)

// world is a deterministic fixture: suite, state, committee, accounts and a
// few registered handles, policies, states and requests.
type world struct {
	t       testing.TB
	s       *Suite
	st      *MemState
	chainID *big.Int
	number  uint64
	com     []*bls.SecretKey
	epoch   uint64
	thr     uint32

	// value is the call value of the next run (then reset); nil: none,
	// except that FHEPolicy's evaluations carry their policy's exact
	// deposit (a well-behaved client) unless noDeposit is set.
	value     *big.Int
	noDeposit bool
	// noDepositHost runs every call on a host that cannot hold deposits.
	noDepositHost bool

	alice, bob, carol, gov, gate Address
	hA, hB, hC                   Hash
	policy                       Hash
	req1, req3, crdtReq          Hash
	s1, s2, merged               Hash
}

func acct(tag string) Address {
	var a Address
	copy(a[:], Keccak256([]byte("acct/" + tag)).Bytes()[:20])
	return a
}

func committeeKeys(t testing.TB, tag string, n int) []*bls.SecretKey {
	out := make([]*bls.SecretKey, n)
	for i := range out {
		k, err := bls.Keygen(Keccak256([]byte(fmt.Sprintf("committee/%s/%d", tag, i))).Bytes())
		require.NoError(t, err)
		out[i] = k
	}
	return out
}

func committeeConfig(keys []*bls.SecretKey, epoch uint64, thr uint32) *CommitteeConfig {
	cc := &CommitteeConfig{Epoch: epoch, Threshold: thr}
	for _, k := range keys {
		cc.PubKeys = append(cc.PubKeys, k.PublicKey())
		cc.PoPs = append(cc.PoPs, k.ProvePossession())
	}
	return cc
}

type result struct {
	ret    []byte
	used   uint64
	err    error
	reason string
}

// richBalance funds a caller that sends value it does not hold (test
// accounts are rich).
var richBalance = new(big.Int).Lsh(big.NewInt(1), 100)

// run calls c as the EVM would: the call value moves from the caller to
// the precompile first and moves back when the call fails.
func (w *world) run(c *Contract, from Address, static bool, gas uint64, input []byte) result {
	v := w.value
	w.value = nil
	if v == nil && !w.noDeposit && !w.noDepositHost && !static && c.Address() == FHEPolicyAddress && len(input) >= 36 {
		v = w.autoDeposit(c, input)
	}
	funded := false
	if v != nil && v.Sign() != 0 {
		if funded = w.st.Balance(from).Cmp(v) < 0; funded {
			require.NoError(w.t, w.st.AddBalance(from, richBalance))
		}
		require.NoError(w.t, w.st.AddBalance(from, new(big.Int).Neg(v)))
		require.NoError(w.t, w.st.AddBalance(c.Address(), v))
	}
	env := &MemEnv{State: w.st, Self: c.Address(), From: from, Static: static, Number: w.number, Time: 1_000 + w.number, ChainId: w.chainID, Value: v, NoDeposits: w.noDepositHost}
	ret, rem, err := c.Run(env, input, gas)
	if err != nil && v != nil && v.Sign() != 0 {
		require.NoError(w.t, w.st.AddBalance(c.Address(), new(big.Int).Neg(v)))
		require.NoError(w.t, w.st.AddBalance(from, v))
		if funded {
			require.NoError(w.t, w.st.AddBalance(from, new(big.Int).Neg(richBalance)))
		}
	}
	r := result{ret: ret, used: gas - rem, err: err}
	var rv *RevertError
	if errors.As(err, &rv) {
		r.reason = rv.Reason
	}
	return r
}

// autoDeposit is the deposit of the policy an FHEPolicy evaluation in input
// names (its first argument), or nil for any other method or an unknown
// policy.
func (w *world) autoDeposit(c *Contract, input []byte) *big.Int {
	a := c.ABI()
	m, err := a.MethodById(input[:4])
	if err != nil || (m.Name != "evaluate" && m.Name != "evaluateAttested" && m.Name != "evaluateRooted") {
		return nil
	}
	p := loadPolicyCost(func(k Hash) Hash { return get(w.st.Persistent, FHEPolicyAddress, k) }, Hash(input[4:36]))
	if !p.exists {
		return nil
	}
	return Deposit(p.cost, p.alone)
}

func (w *world) pack(c *Contract, method string, args ...any) []byte {
	in, err := c.ABI().Pack(method, args...)
	require.NoError(w.t, err)
	return in
}

// must calls and requires success; returns the unpacked outputs.
func (w *world) must(c *Contract, from Address, method string, args ...any) []any {
	r := w.run(c, from, false, 50_000_000, w.pack(c, method, args...))
	require.NoError(w.t, r.err, "%s.%s: %s", c.Name(), method, r.reason)
	out, err := c.ABI().Unpack(method, r.ret)
	require.NoError(w.t, err)
	return out
}

// proofDigestOf is the fixture's stand-in for keccak256 of h's input proof.
func proofDigestOf(h Hash) Hash { return Keccak256([]byte("proof/"), h[:]) }

// inputItems are the registerBatch items of handles hs: ctype 1 and the
// fixture's proof digests.
func inputItems(hs ...Hash) []bls.InputItem {
	out := make([]bls.InputItem, len(hs))
	for i, h := range hs {
		out[i] = bls.InputItem{Handle: h, CType: CTypeCiphertext, ProofDigest: proofDigestOf(h)}
	}
	return out
}

// attestBatch signs bls.InputBatchDigest of items for owner and preset with
// the members idx of keys at epoch.
func (w *world) attestBatch(owner Address, preset uint8, items []bls.InputItem, keys []*bls.SecretKey, epoch uint64, idx ...int) ([]byte, []byte) {
	d := bls.InputBatchDigest(w.chainID, epoch, owner, preset, bls.InputBatchRoot(items))
	return aggSign(w.t, keys, d, idx...)
}

// attest signs the one-item batch (h, ctype, proofDigestOf(h)).
func (w *world) attest(h Hash, owner Address, preset, ctype uint8, keys []*bls.SecretKey, epoch uint64, idx ...int) ([]byte, []byte) {
	return w.attestBatch(owner, preset, []bls.InputItem{{Handle: h, CType: ctype, ProofDigest: proofDigestOf(h)}}, keys, epoch, idx...)
}

// inputBatchArgs are registerBatch's arguments for items.
func inputBatchArgs(owner Address, preset uint8, items []bls.InputItem, sig, bm []byte) []any {
	hs, cts, pds := make([][32]byte, len(items)), make([]uint8, len(items)), make([][32]byte, len(items))
	for i, it := range items {
		hs[i], cts[i], pds[i] = it.Handle, it.CType, it.ProofDigest
	}
	return []any{common.Address(owner), preset, hs, cts, pds, sig, bm}
}

// registerArgs are registerBatch's arguments for the one-item batch of attest.
func registerArgs(h Hash, owner Address, preset, ctype uint8, sig, bm []byte) []any {
	return inputBatchArgs(owner, preset, []bls.InputItem{{Handle: h, CType: ctype, ProofDigest: proofDigestOf(h)}}, sig, bm)
}

func (w *world) verdictSig(req, policy, digest Hash, result *big.Int, keys []*bls.SecretKey, epoch uint64, idx ...int) ([]byte, []byte) {
	d := bls.VerdictDigest(w.chainID, epoch, req, policy, digest, result)
	return aggSign(w.t, keys, d, idx...)
}

func aggSign(t testing.TB, keys []*bls.SecretKey, d [32]byte, idx ...int) ([]byte, []byte) {
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

func handle(tag string) Hash { return Keccak256([]byte("ciphertext/" + tag)) }

func (w *world) registerHandle(h Hash, owner Address) {
	sig, bm := w.attest(h, owner, 1, 1, w.com, w.epoch, w.quorum()...)
	w.must(w.s.Input, w.alice, "registerBatch", registerArgs(h, owner, 1, 1, sig, bm)...)
}

func newWorld(t testing.TB) *world { return newWorldN(t, 4, 3) }

// newWorldN builds the fixture with an n-member committee and threshold thr
// (the fixture's own signatures use members 0..thr-1 or the first three).
func newWorldN(t testing.TB, n int, thr uint32) *world {
	s, err := NewSuite(testOptions())
	require.NoError(t, err)
	w := &world{t: t, s: s, st: NewMemState(), chainID: big.NewInt(1337), number: 10, epoch: 1, thr: thr,
		alice: acct("alice"), bob: acct("bob"), carol: acct("carol"), gov: acct("gov"), gate: acct("gate")}
	w.com = committeeKeys(t, "genesis", n)
	require.NoError(t, ConfigureVerdict(w.st.Store(FHEVerdictAddress), w.gov, committeeConfig(w.com, w.epoch, w.thr)))

	w.hA, w.hB, w.hC = handle("A"), handle("B"), handle("C")
	w.registerHandle(w.hA, w.alice)
	w.registerHandle(w.hB, w.alice)
	w.registerHandle(w.hC, w.bob)
	w.must(s.Input, w.alice, "allow", [32]byte(w.hA), common.Address(w.gate))
	w.must(s.Input, w.alice, "allow", [32]byte(w.hB), common.Address(w.gate))

	w.policy = Hash(w.must(s.Policy, w.alice, "registerPolicy", []byte("credit: income*1 - debt > 0; inputs=2"))[0].([32]byte))
	w.req1 = Hash(w.must(s.Policy, w.gate, "evaluate", [32]byte(w.policy), [][32]byte{w.hA, w.hB})[0].([32]byte))
	w.req3 = Hash(w.must(s.Policy, w.gate, "evaluate", [32]byte(w.policy), [][32]byte{w.hB, w.hA})[0].([32]byte))
	sig, bm := w.verdictSig(w.req3, w.policy, handle("result3"), big.NewInt(1), w.com, w.epoch, w.quorumAlt()...)
	w.must(s.Verdict, w.carol, "submit", [32]byte(w.req3), big.NewInt(1), [32]byte(handle("result3")), sig, bm)

	w.s1 = Hash(w.must(s.CRDT, w.alice, "create", uint8(2), [32]byte(w.hA), EncodeVersionVector([2]uint64{1, 1}))[0].([32]byte))
	w.s2 = Hash(w.must(s.CRDT, w.alice, "create", uint8(2), [32]byte(w.hB), EncodeVersionVector([2]uint64{2, 3}))[0].([32]byte))
	w.merged = Hash(w.must(s.CRDT, w.alice, "merge", [32]byte(w.s1), [32]byte(w.s2))[0].([32]byte))
	w.crdtReq = Hash(w.must(s.CRDT, w.alice, "value", [32]byte(w.merged))[0].([32]byte))
	w.st.EndTransaction()
	w.number = 11
	return w
}

// fork returns a copy of w with its own state.
func (w *world) fork(t testing.TB) *world {
	c := *w
	c.t = t
	c.st = w.st.Clone()
	return &c
}

// quorum returns member indices 0..max(thr,3)-1; quorumAlt a different quorum
// (0, 1, 3, …) so the 4-member fixture keeps its committed vectors.
func (w *world) quorum() []int {
	n := int(w.thr)
	if n < 3 {
		n = 3
	}
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func (w *world) quorumAlt() []int {
	q := w.quorum()
	q[len(q)-1] = len(q)
	if q[len(q)-1] >= len(w.com) {
		return w.quorum()
	}
	return q
}
