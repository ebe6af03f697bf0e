package subnetevm_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"os"
	"testing"

	"github.com/ava-labs/libevm/core/types"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/contracts/bindings"
	"github.com/fhegate/fhegate/precompiles/precompilestest"
)

// evmGasTable is the committed table TestEVMGasTable compares with.
const evmGasTable = "../../../docs/results/precompiles-evm.json"

var evmReport = flag.String("evm-report", "", "TestEVMGasTable: regenerate: write transaction gas of the end-to-end flows to this JSON file instead of comparing with "+evmGasTable)

type txGas struct {
	Step    string `json:"step"`
	GasUsed uint64 `json:"gas_used"`
}

// TestEVMGasTable measures what a dApp pays per transaction (21k intrinsic +
// calldata + contract code + precompile gas) on subnet-evm's simulated chain
// and fails unless the result is byte-identical to the committed table
// docs/results/precompiles-evm.json. After an intended gas change, regenerate
// the table (and review the diff) with
//
//	go test ./precompiles/host/subnetevm -run TestEVMGasTable -count=1 -evm-report ../../../docs/results/precompiles-evm.json
func TestEVMGasTable(t *testing.T) {
	f := newFixture(t)
	var rows []txGas
	rec := func(step string, r *types.Receipt) { rows = append(rows, txGas{step, r.GasUsed}) }

	gateAddr, tx, gate, err := bindings.DeployPrivateCreditGate(f.opts(bob, 0), f.be(), creditSpec, big.NewInt(10_000))
	rec("deploy PrivateCreditGate (registers its policy)", f.ok(tx, err))
	for _, n := range []int{1, 2, 4, 8} {
		tags := make([]string, n)
		for i := range tags {
			tags[i] = fmt.Sprintf("table-%d/%d", n, i)
		}
		b := newInputBatch(tags...)
		sig, bm := f.com.sign(t, b.digest(f.chainID, 1, f.addrs[alice]), 0, 1, 2)
		rec(fmt.Sprintf("FHEInput.registerBatch (%d handle%s, 3-of-4 attestation)", n, map[bool]string{true: "s"}[n > 1]),
			f.ok(f.register(f.opts(alice, 0), f.addrs[alice], b, sig, bm)))
	}
	{
		tags := make([]string, 8)
		for i := range tags {
			tags[i] = fmt.Sprintf("table-set/%d", i)
		}
		b := newInputBatch(tags...)
		sig, bm := f.com.sign(t, b.digest(f.chainID, 1, f.addrs[alice]), 0, 1, 2)
		rec("FHEInput.registerSet (8 handles, 3-of-4 attestation)",
			f.ok(f.input.RegisterSet(f.opts(alice, 0), f.addrs[alice], 1, b.handles, b.ctypes, b.proofs, sig, bm)))
	}
	hs := f.registerInputs(alice, "income", "debt")
	income, debt := hs[0], hs[1]
	rec("FHEInput.allow", f.ok(f.input.Allow(f.opts(alice, 0), income, gateAddr)))
	f.ok(f.input.Allow(f.opts(alice, 0), debt, gateAddr))
	rec("PrivateCreditGate.applyFor (→ FHEPolicy.evaluate, 2 handles)", f.ok(gate.ApplyFor(f.payGate(f.opts(alice, 0), gate), income, debt)))
	policyID, _ := gate.PolicyId(nil)
	req := [32]byte(reqID(f.chainID, 0, gateAddr, policyID, income, debt))
	sig, bm := f.signVerdict(f.com, 1, req, policyID, ctHandle("r"), big.NewInt(1), 0, 1, 2)
	rec("FHEVerdict.submit (3-of-4)", f.ok(f.verdict.Submit(f.opts(relayer, 0), req, big.NewInt(1), ctHandle("r"), sig, bm)))
	rec("PrivateCreditGate.settle (reads the verdict)", f.ok(gate.Settle(f.opts(bob, 0), req)))

	addr, tx, tally, err := bindings.DeployEncryptedTally(f.opts(bob, 0), f.be())
	rec("deploy EncryptedTally", f.ok(tx, err))
	for i, v := range []int{alice, bob} {
		h := f.registerInput(v, "vote"+string(rune('0'+i)))
		f.ok(f.input.Allow(f.opts(v, 0), h, addr))
		step := "EncryptedTally.vote (create)"
		if i > 0 {
			step = "EncryptedTally.vote (create + merge)"
		}
		rec(step, f.ok(tally.Vote(f.opts(v, 0), h, precompilestest.EncodeVersionVector([2]uint64{uint64(i + 1), 1}))))
	}
	rec("EncryptedTally.requestReveal (→ FHECRDT.value)", f.ok(tally.RequestReveal(f.opts(bob, 0))))
	for _, r := range rows {
		t.Logf("%-60s %8d", r.Step, r.GasUsed)
	}
	b, err := json.MarshalIndent(map[string]any{
		"command": "go test ./precompiles/host/subnetevm -run TestEVMGasTable -count=1 -evm-report ../../../docs/results/precompiles-evm.json",
		"note":    "gasUsed of each transaction on subnet-evm v0.8.0's simulated chain (stand-in policy compiler and CRDT merger)",
		"txs":     rows,
	}, "", "  ")
	require.NoError(t, err)
	got := string(append(b, '\n'))
	if *evmReport != "" {
		require.NoError(t, os.WriteFile(*evmReport, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(evmGasTable)
	require.NoError(t, err, "regenerate with -evm-report %s", evmGasTable)
	require.Equal(t, string(want), got, "transaction gas differs from %s (if intended: -evm-report %s)", evmGasTable, evmGasTable)
}
