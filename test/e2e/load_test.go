//go:build e2e

package e2e

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/bench/load"
)

// Load batch defaults: 64 requests from 4 accounts. The policy is the
// allowlist (1 input, depth 3 after the refresh floor) rather than KYC/AML (8 inputs, depth 9):
// without packed evaluation the committee evaluates and posts each KYC/AML
// request on its own (seconds each on 2 cores, ≈2 s blocks for every
// verdict), which would take the e2e far past its budget;
// FHEGATE_E2E_LOAD_POLICY=kyc_aml runs the same batch with KYC/AML.
const (
	loadAccounts = 4
	loadRequests = 64
	// Member 3's process is killed as soon as the batch is on chain and
	// restarted 10 s later: with n=3, t=2 every refresh needs all three
	// members, so the batch waits for it and is finished after it is back.
	loadKillMember = 3
	loadKillFor    = 10 * time.Second
)

// runLoadBatch sends a batch of ≥ 64 requests from several accounts against
// the real node and the committee processes (bench/load, what
// `fhegate bench load --rpc` runs) and checks every verdict against the
// plaintext reference; committee CPU is read from the member processes.
//
// The inputs reach the chain under input roots (load.InputsRooted:
// uploads with "rooted": true, FHEPolicy.evaluateRooted), so the real node
// runs the root's one pairing and every other request's path.
//
// Fault covered: a member process killed (SIGKILL) mid-batch and restarted
// on its data directory; every request must still be answered, correctly.
//
// Attack covered: a committee that answers some requests wrongly, or not at
// all, under load (concurrent requests from several accounts, verdicts for
// each other's requests in flight): every verdict is read with verdictOf and
// compared with the reference, and a missing one fails the run.
func runLoadBatch(t *testing.T, ctx context.Context, rpcURL, api string, members *committeeProcs) {
	policy := os.Getenv("FHEGATE_E2E_LOAD_POLICY")
	if policy == "" {
		policy = "allowlist"
	}
	requests := loadRequests
	if s := os.Getenv("FHEGATE_E2E_LOAD_REQUESTS"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, "FHEGATE_E2E_LOAD_REQUESTS")
		requests = n
	}
	start := time.Now()
	res, err := load.Run(ctx, load.Config{RPC: rpcURL, CommitteeAPI: api, Accounts: loadAccounts, Requests: requests,
		Policy: policy, Seed: 64, Timeout: 10 * time.Minute, Progress: testWriter{t}, Inputs: load.InputsRooted,
		// the member process killed mid-batch counts the CPU it had used
		// when the probe last read it (load.Run reads it before the fault)
		CommitteeCPU: load.ProcessCPU(members.pids),
		CPUSource:    "/proc CPU of the committee serve processes, the killed one up to its kill",
		Fault: func(ctx context.Context) (string, error) {
			return members.bounce(ctx, loadKillMember, loadKillFor)
		}})
	if err != nil {
		t.Logf("committee logs:\n%s", members.logTail())
	}
	require.NoError(t, err)
	t.Logf("load batch: %d %s requests from %d accounts in %s", res.Requests, policy, res.Accounts, time.Since(start).Round(time.Second))
	require.Equal(t, requests, res.Requests)
	require.Zero(t, res.Mismatches)
	// inputs under committee-signed input roots (FHEPolicy.evaluateRooted):
	// no registration transaction, one pairing per root
	require.Zero(t, res.GasPerRequest.Register)
	// (an upload whose root round missed a quorum falls back to
	// evaluateAttested, which the chain also accepts: counted, not failed)
	t.Logf("input roots: %d for %d of %d requests", res.InputRoots, res.RootedRequests, requests)
	require.Positive(t, res.RootedRequests, "no upload got a place in an input root")
	require.Positive(t, res.InputRoots)
	require.Positive(t, res.GasPerRequest.Evaluate)
	require.Positive(t, res.GasPerRequest.Verdict)
	require.Positive(t, res.Committee.CPUPerVerdictMs, "committee CPU measured")
	require.Contains(t, res.Fault, "killed (SIGKILL), restarted", "the member was killed mid-batch")
}

// testWriter sends progress lines to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s", p)
	return len(p), nil
}
