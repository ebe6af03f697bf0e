package subnetevm_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"os"
	"testing"

	"github.com/ava-labs/libevm/core/types"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/precompiles"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
)

var batchReport = flag.String("batch-report", "", "TestSubmitBatchEVM: write submitBatch transaction gas per batch size to this JSON file")

var batchSpec = []byte("kyc: age*1 - 18 > 0; inputs=1")

// queue sends n FHEPolicy.evaluate transactions of policy from account i
// over its handle h (explicit nonces, no estimation), mines until all are
// included and returns the request ids in order.
func (f *fixture) queue(i int, policy, h [32]byte, n int) [][32]byte {
	ctx := context.Background()
	nonce, err := f.client.AcceptedNonceAt(ctx, f.addrs[i])
	require.NoError(f.t, err)
	txs := make([]*types.Transaction, n)
	for k := range txs {
		o := f.opts(i, 400_000)
		o.Nonce = new(big.Int).SetUint64(nonce + uint64(k))
		txs[k], err = f.policy.Evaluate(f.pay(o, policy), policy, [][32]byte{h})
		require.NoError(f.t, err)
	}
	ids := make([][32]byte, n)
	for k := 0; k < n; {
		rc, err := f.client.TransactionReceipt(ctx, txs[k].Hash())
		if err != nil {
			f.backend.Commit(true)
			continue
		}
		require.Equal(f.t, types.ReceiptStatusSuccessful, rc.Status)
		ids[k] = rc.Logs[0].Topics[1]
		k++
	}
	return ids
}

// batchScene: a chain with the kyc stand-in policy and one registered
// input per account.
type batchScene struct {
	*fixture
	policy [32]byte
	handle [4][32]byte
}

func newBatchScene(t *testing.T) *batchScene {
	f := newFixture(t)
	s := &batchScene{fixture: f}
	f.ok(f.policy.RegisterPolicy(f.opts(alice, 0), batchSpec))
	s.policy = [32]byte(precompilesPlanHash(batchSpec))
	for i := range s.handle {
		s.handle[i] = f.registerInput(i, fmt.Sprintf("batch-input-%d", i))
	}
	return s
}

// precompilesPlanHash is the stand-in compiler's policy id of spec.
func precompilesPlanHash(spec []byte) precompiles.Hash {
	return precompiles.Keccak256([]byte("fhegate/standin-plan/v1"), spec)
}

func (s *batchScene) items(ids [][32]byte) []bls.VerdictItem {
	out := make([]bls.VerdictItem, len(ids))
	for i, id := range ids {
		out[i] = bls.VerdictItem{RequestID: id, Result: big.NewInt(int64(i % 2))}
	}
	return out
}

func (s *batchScene) sign(com *testCommittee, epoch uint64, policy, digest [32]byte, items []bls.VerdictItem, idx ...int) ([]byte, []byte) {
	return com.sign(s.t, bls.VerdictBatchDigest(s.chainID, epoch, policy, digest, bls.VerdictBatchRoot(items)), idx...)
}

func split(items []bls.VerdictItem) ([][32]byte, []*big.Int) {
	ids := make([][32]byte, len(items))
	res := make([]*big.Int, len(items))
	for i, it := range items {
		ids[i], res[i] = it.RequestID, it.Result
	}
	return ids, res
}

func (s *batchScene) submitBatch(from int, gas uint64, policy, digest [32]byte, items []bls.VerdictItem, sig, bm []byte) (*types.Transaction, error) {
	ids, res := split(items)
	o := s.opts(from, gas)
	// a 900-verdict batch needs ≈ 28M gas: keep the fee under the
	// client's 1-ether cap (the chain's base fee is 25 gwei)
	o.GasFeeCap, o.GasTipCap = big.NewInt(30e9), big.NewInt(1e9)
	return s.verdict.SubmitBatch(o, policy, digest, ids, res, sig, bm)
}

type batchGas struct {
	Items      int    `json:"items"`
	GasUsed    uint64 `json:"gas_used"`
	PerVerdict uint64 `json:"gas_per_verdict"`
}

// TestSubmitBatchEVM: through subnet-evm's EVM, batches of 1, 16, 64, 256 and
// 900 verdicts (each settling its request's deposit) land under one aggregate each and verdictOf answers every
// item; the transaction gas per batch size is the table in docs/gas.md
// (regenerate with -batch-report ../../../docs/results/verdict-batch-evm.json).
func TestSubmitBatchEVM(t *testing.T) {
	s := newBatchScene(t)
	sizes := []int{1, 16, 64, 256, 900}
	var rows []batchGas
	for _, n := range sizes {
		var ids [][32]byte
		for acct := 0; len(ids) < n; acct = (acct + 1) % 4 {
			ids = append(ids, s.queue(acct, s.policy, s.handle[acct], min(256, n-len(ids)))...)
		}
		items := s.items(ids)
		digest := ctHandle(fmt.Sprintf("packed-%d", n))
		sig, bm := s.sign(s.com, 1, s.policy, digest, items, 0, 1, 2)
		rc := s.ok(s.submitBatch(relayer, 29_000_000, s.policy, digest, items, sig, bm))
		rows = append(rows, batchGas{n, rc.GasUsed, rc.GasUsed / uint64(n)})
		require.LessOrEqual(t, rc.GasUsed, 21_000+uint64(16*(4+32*(2*n+14)))+precompiles.SubmitBatchGas(n, 4))
		for i, it := range items {
			v, err := s.verdict.VerdictOf(nil, it.RequestID)
			require.NoError(t, err)
			require.True(t, v.Ready, "item %d of %d", i, n)
			require.Equal(t, 0, it.Result.Cmp(v.Result))
			require.Equal(t, digest, v.ResultDigest)
			require.Equal(t, uint64(1), v.Epoch)
		}
	}
	for _, r := range rows {
		t.Logf("submitBatch %5d verdicts: %10d gas, %7d gas/verdict", r.Items, r.GasUsed, r.PerVerdict)
	}
	if *batchReport != "" {
		b, err := json.MarshalIndent(map[string]any{
			"command": "go test ./precompiles/host/subnetevm -run TestSubmitBatchEVM -count=1 -batch-report ../../../docs/results/verdict-batch-evm.json",
			"note":    "gasUsed of FHEVerdict.submitBatch transactions (3-of-4 committee, results 0/1) on subnet-evm v0.8.0's simulated chain",
			"batches": rows,
		}, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(*batchReport, append(b, '\n'), 0o644))
	}
}

// TestSubmitBatchEVMRejections: through the EVM, every attack on
// submitBatch reverts with its reason and stores nothing — forged aggregate
// (outsider keys), under quorum, wrong epoch, an item of another policy, a
// duplicate item, a replayed batch, out of gas — and expire is refused
// before ExpiryBlocks and succeeds after, after which the committee's batch
// skips the expired request (no overwrite).
func TestSubmitBatchEVMRejections(t *testing.T) {
	s := newBatchScene(t)
	ids := s.queue(alice, s.policy, s.handle[alice], 3)
	f := s.fixture
	f.ok(f.policy.RegisterPolicy(f.opts(alice, 0), []byte("other: age*2 > 0; inputs=1")))
	other := [32]byte(precompilesPlanHash([]byte("other: age*2 > 0; inputs=1")))
	otherIDs := s.queue(alice, other, s.handle[alice], 1)
	items := s.items(ids)
	digest := ctHandle("packed")
	outsiders := newCommittee(t, "outsiders", 1, 4, 3)
	type tc struct {
		name, reason string
		items        []bls.VerdictItem
		sig, bm      []byte
		gas          uint64
	}
	var cases []tc
	sg, b := s.sign(outsiders, 1, s.policy, digest, items, 0, 1, 2)
	cases = append(cases, tc{"forged aggregate", "does not verify", items, sg, b, 0})
	sg, b = s.sign(s.com, 1, s.policy, digest, items, 0, 1)
	cases = append(cases, tc{"under quorum", "under quorum: 2 signers, threshold 3", items, sg, b, 0})
	sg, b = s.sign(s.com, 2, s.policy, digest, items, 0, 1, 2)
	cases = append(cases, tc{"wrong epoch", "does not verify for committee epoch 1", items, sg, b, 0})
	mixed := s.items([][32]byte{ids[0], otherIDs[0]})
	sg, b = s.sign(s.com, 1, s.policy, digest, mixed, 0, 1, 2)
	cases = append(cases, tc{"item of another policy", "is for policy", mixed, sg, b, 0})
	dup := s.items([][32]byte{ids[0], ids[1], ids[0]})
	sg, b = s.sign(s.com, 1, s.policy, digest, dup, 0, 1, 2)
	cases = append(cases, tc{"duplicate", "repeats request", dup, sg, b, 0})
	good, goodBM := s.sign(s.com, 1, s.policy, digest, items, 0, 1, 2)
	cases = append(cases, tc{"out of gas", "", items, good, goodBM, 150_000})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.reason != "" {
				ids, res := split(c.items)
				data, err := subnetevm.Suite().Verdict.ABI().Pack("submitBatch", s.policy, digest, ids, res, c.sig, c.bm)
				require.NoError(t, err)
				require.Contains(t, f.callErr(relayer, subnetevm.VerdictAddress, data), c.reason)
			}
			gas := c.gas
			if gas == 0 {
				gas = 2_000_000
			}
			f.failed(s.submitBatch(relayer, gas, s.policy, digest, c.items, c.sig, c.bm))
			for _, id := range ids {
				v, err := f.verdict.VerdictOf(nil, id)
				require.NoError(t, err)
				require.False(t, v.Ready)
			}
		})
	}
	// expire: too early, then after ExpiryBlocks
	f.failed(f.verdict.Expire(f.opts(bob, 200_000), ids[2]))
	for i := 0; i < precompiles.ExpiryBlocks; i++ {
		f.backend.Commit(true)
	}
	rc := f.ok(f.verdict.Expire(f.opts(bob, 0), ids[2]))
	t.Logf("FHEVerdict.expire transaction: %d gas", rc.GasUsed)
	// the genuine batch lands; the expired item keeps ResultExpired
	f.ok(s.submitBatch(relayer, 2_000_000, s.policy, digest, items, good, goodBM))
	v, err := f.verdict.VerdictOf(nil, ids[2])
	require.NoError(t, err)
	require.Equal(t, 0, precompiles.ResultExpired.Cmp(v.Result))
	for _, id := range ids[:2] {
		v, err := f.verdict.VerdictOf(nil, id)
		require.NoError(t, err)
		require.True(t, v.Ready)
	}
	// replaying it stores nothing: refused
	ids2, res := split(items)
	data, err := subnetevm.Suite().Verdict.ABI().Pack("submitBatch", s.policy, digest, ids2, res, good, goodBM)
	require.NoError(t, err)
	require.Contains(t, f.callErr(relayer, subnetevm.VerdictAddress, data), "replay")
	f.failed(s.submitBatch(relayer, 2_000_000, s.policy, digest, items, good, goodBM))
}
