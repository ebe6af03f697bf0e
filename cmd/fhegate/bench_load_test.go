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

	"github.com/fhegate/fhegate/internal/loadgen"
)

// `fhegate bench load` without --rpc: an in-process devnet (BGVN13 keeps
// the DKG short), 8 allowlist requests from 2 accounts under input roots,
// every verdict checked against the plaintext reference, the JSON result
// written.
func TestBenchLoadInProcessDevnet(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out := &lockedBuffer{}
	jsonPath := filepath.Join(t.TempDir(), "load.json")
	o := benchLoadOptions{jsonPath: jsonPath, committeePre: "bgv-n13-t65537", committeeN: 3, committeeT: 2}
	o.cfg = loadgen.Config{Accounts: 2, Requests: 8, Policy: "allowlist", Seed: 7, InFlight: 4}
	require.NoError(t, runBenchLoad(ctx, zaptest.NewLogger(t), out, o), out.String())
	b, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	var res loadgen.Result
	require.NoError(t, json.Unmarshal(b, &res))
	require.Equal(t, 8, res.Requests)
	require.Zero(t, res.Mismatches)
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
	require.Contains(t, out.String(), "8 requests from 2 accounts")
	require.Contains(t, out.String(), "0 mismatches")
}

func TestBenchLoadRejectsBadFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    benchLoadOptions
		want string
	}{
		{"api without rpc", benchLoadOptions{cfg: loadgen.Config{CommitteeAPI: "http://127.0.0.1:1"}}, "need --rpc"},
		{"pid without rpc", benchLoadOptions{pids: []int{1}}, "need --rpc"},
		{"rpc without api", benchLoadOptions{cfg: loadgen.Config{RPC: "http://127.0.0.1:1"}}, "--committee-api"},
		{"bad accounts", benchLoadOptions{cfg: loadgen.Config{RPC: "http://127.0.0.1:1", CommitteeAPI: "http://127.0.0.1:2", Requests: 1}}, "accounts"},
		{"rate without duration", benchLoadOptions{cfg: loadgen.Config{RPC: "http://127.0.0.1:1", CommitteeAPI: "http://127.0.0.1:2", Accounts: 1, Rate: 2}}, "positive duration"},
		{"bad inputs mode", benchLoadOptions{cfg: loadgen.Config{RPC: "http://127.0.0.1:1", CommitteeAPI: "http://127.0.0.1:2", Accounts: 1, Requests: 1, Inputs: "bogus"}}, `inputs mode "bogus"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := runBenchLoad(context.Background(), zaptest.NewLogger(t), &lockedBuffer{}, tc.o)
			require.ErrorContains(t, err, tc.want)
		})
	}
}
