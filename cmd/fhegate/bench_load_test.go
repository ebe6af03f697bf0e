package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/bench/load"
)

// `fhegate bench load` without --rpc: an in-process devnet (BGVN13 keeps
// the DKG short), 8 allowlist requests from 2 accounts under input roots,
// every verdict checked against the plaintext reference, the JSON result
// written.
func TestBenchLoadInProcessDevnet(t *testing.T) {
	res, out := runDevnetLoad(t, 5*time.Minute, load.Command{Config: load.Config{Seed: 7}})
	// the default input path: uploads under committee-signed input roots,
	// FHEPolicy.evaluateRooted, no registration transaction
	require.Zero(t, res.GasPerRequest.Register)
	require.Equal(t, 8, res.RootedRequests)
	require.Positive(t, res.InputRoots)
	require.Positive(t, res.GasPerRequest.Evaluate)
	require.Positive(t, res.GasPerRequest.Verdict)
	require.Positive(t, res.VerdictTxs)
	require.NotEmpty(t, res.Bottleneck)
	require.Contains(t, res.Committee.CPUSource, "in-process devnet")
	require.Contains(t, out, "8 requests from 2 accounts")
	require.Contains(t, out, "0 mismatches")
}

// A committee member killed mid-batch on the devnet and restarted on its
// store (`fhegate bench load --kill-member`): with n=3, t=2 every refresh
// needs all three members (protocol.CheckedMembers), so the batch stalls
// while member 3 is down and must be finished after it is back — every
// request answered, with its reference verdict, once (FHEVerdict refuses a
// second verdict for a request). Member 3's serve loop and client API come
// back (the run reads participation from the verdicts' signer bitmaps).
func TestBenchLoadKillsAMemberMidBatch(t *testing.T) {
	res, out := runDevnetLoad(t, 8*time.Minute, load.Command{KillMember: 3, KillFor: 5 * time.Second, Config: load.Config{Seed: 11}})
	require.Contains(t, res.Fault, "committee member 3 killed, restarted 5s later", out)
	require.Contains(t, out, "load: injecting the fault")
	require.Len(t, res.Participation, 3)
}

// runDevnetLoad runs c — 8 allowlist requests from 2 accounts, 4 in
// flight — against an in-process devnet (BGVN13 keeps the DKG short),
// requires every verdict to equal its reference, and returns the JSON
// result and the progress output.
func runDevnetLoad(t *testing.T, timeout time.Duration, c load.Command) (load.Result, string) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out := &lockedBuffer{}
	c.JSONPath = filepath.Join(t.TempDir(), "load.json")
	c.Config.Accounts, c.Config.Requests, c.Config.Policy, c.Config.InFlight = 2, 8, "allowlist", 4
	o := benchLoadFlags{committeePre: "bgv-n13-t65537", committeeN: 3, committeeT: 2, c: c}
	require.NoError(t, runBenchLoad(ctx, zaptest.NewLogger(t), out, o), out.String())
	b, err := os.ReadFile(c.JSONPath)
	require.NoError(t, err)
	var res load.Result
	require.NoError(t, json.Unmarshal(b, &res))
	require.Equal(t, 8, res.Requests)
	require.Zero(t, res.Mismatches)
	return res, out.String()
}

func TestBenchLoadRejectsBadFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    benchLoadFlags
		want string
		code int
	}{
		{"api without rpc", benchLoadFlags{c: load.Command{Config: load.Config{CommitteeAPI: "http://127.0.0.1:1"}}}, "need --rpc", exitUsage},
		{"pid without rpc", benchLoadFlags{c: load.Command{PIDs: []int{1}}}, "need --rpc", exitUsage},
		{"rpc without api", benchLoadFlags{c: load.Command{Config: load.Config{RPC: "http://127.0.0.1:1"}}}, "--committee-api", exitUsage},
		{"bad accounts", benchLoadFlags{c: load.Command{Config: load.Config{RPC: "http://127.0.0.1:1", CommitteeAPI: "http://127.0.0.1:2", Requests: 1}}}, "accounts", exitError},
		{"rate without duration", benchLoadFlags{c: load.Command{Config: load.Config{RPC: "http://127.0.0.1:1", CommitteeAPI: "http://127.0.0.1:2", Accounts: 1, Rate: 2}}}, "positive duration", exitError},
		{"kill with rpc", benchLoadFlags{c: load.Command{KillMember: 3, Config: load.Config{RPC: "http://127.0.0.1:1", CommitteeAPI: "http://127.0.0.1:2"}}}, "--kill-member needs the in-process devnet", exitUsage},
		{"kill-for alone", benchLoadFlags{c: load.Command{KillFor: time.Second}}, "need --kill-member", exitUsage},
		{"kill-after alone", benchLoadFlags{c: load.Command{Config: load.Config{FaultAfter: 2}}}, "need --kill-member", exitUsage},
		{"bad inputs mode", benchLoadFlags{c: load.Command{Config: load.Config{RPC: "http://127.0.0.1:1", CommitteeAPI: "http://127.0.0.1:2", Accounts: 1, Requests: 1, Inputs: "bogus"}}}, `inputs mode "bogus"`, exitError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := runBenchLoad(context.Background(), zaptest.NewLogger(t), &lockedBuffer{}, tc.o)
			require.ErrorContains(t, err, tc.want)
			require.Equal(t, tc.code, exitCode(err), "flag combinations are usage errors, bad values found by the run are not")
		})
	}
}
