package load

import (
	"context"
	"math"
	"math/big"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/contracts/bindings"
	"github.com/fhegate/fhegate/devchain"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/examples"
	"github.com/fhegate/fhegate/precompiles"
)

func TestPercentileNearestRank(t *testing.T) {
	s := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, tc := range []struct {
		q    float64
		want float64
	}{{0.5, 5}, {0.95, 10}, {0.99, 10}, {0.1, 1}, {0.11, 2}, {1, 10}, {0, 1}} {
		require.Equal(t, tc.want, Percentile(s, tc.q), "q=%v", tc.q)
	}
	require.Zero(t, Percentile(nil, 0.5))
	require.Equal(t, 7.0, Percentile([]float64{7}, 0.99))
}

func TestConfigBoundsBeforeAllocating(t *testing.T) {
	base := Config{RPC: "http://127.0.0.1:1", CommitteeAPI: "http://127.0.0.1:2", Accounts: 2, Requests: 4}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"no rpc", func(c *Config) { c.RPC = "" }, "RPC URL"},
		{"no api", func(c *Config) { c.CommitteeAPI = "" }, "committee API"},
		{"zero accounts", func(c *Config) { c.Accounts = 0 }, "accounts"},
		{"huge accounts", func(c *Config) { c.Accounts = MaxAccounts + 1 }, "accounts"},
		{"negative requests", func(c *Config) { c.Requests = -1 }, "requests"},
		{"huge requests", func(c *Config) { c.Requests = math.MaxInt32 }, "requests"},
		{"in flight", func(c *Config) { c.InFlight = MaxInFlight + 1 }, "in flight"},
		{"poll", func(c *Config) { c.Poll = time.Microsecond }, "poll"},
		{"negative rate", func(c *Config) { c.Rate = -1 }, "rate"},
		{"rate without duration", func(c *Config) { c.Rate = 2 }, "positive duration"},
		{"duration without rate", func(c *Config) { c.Duration = time.Minute }, "needs a rate"},
		{"paced too many", func(c *Config) { c.Rate, c.Duration = 1000, 1000*time.Hour }, "at most"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			tc.edit(&c)
			_, err := Run(context.Background(), c)
			require.ErrorContains(t, err, tc.want)
		})
	}
	c := base
	c.Policy = "no_such_policy"
	_, err := Run(context.Background(), c)
	require.ErrorContains(t, err, "no_such_policy")
}

// TestPacedRequestCount: a paced run sends ⌈rate·duration⌉ requests.
func TestPacedRequestCount(t *testing.T) {
	for _, tc := range []struct {
		rate float64
		d    time.Duration
		want int
	}{{2, time.Minute, 120}, {0.5, 3 * time.Second, 2}, {10, 150 * time.Millisecond, 2}} {
		c := Config{RPC: "x", CommitteeAPI: "y", Accounts: 1, Requests: 7, Rate: tc.rate, Duration: tc.d}
		require.NoError(t, c.defaults())
		require.Equal(t, tc.want, c.Requests, "%g/s for %s", tc.rate, tc.d)
	}
}

// TestParticipation counts each member's signed verdicts from the signer
// bitmaps (bit i = member i+1), a missing bitmap as unknown, and shares
// over all requests.
func TestParticipation(t *testing.T) {
	got, unknown := participation(3, [][]byte{{0b011}, {0b111}, {0b110}, nil}, 4)
	require.Equal(t, 1, unknown)
	require.Equal(t, []MemberParticipation{{1, 2, 0.5}, {2, 3, 0.75}, {3, 2, 0.5}}, got)
	// bits beyond the committee are ignored; a 9-member bitmap spans 2 bytes
	got, _ = participation(9, [][]byte{{0xff, 0x01}, {0x00, 0xff}}, 2)
	require.Equal(t, 1, got[0].Signed)
	require.Equal(t, 2, got[8].Signed)
	none, _ := participation(0, [][]byte{{1}}, 1)
	require.Nil(t, none)
}

// Attack: a load account whose key anyone can guess must never be a dev
// account with a role (the relayers', governance's) — the load's nonces
// would race theirs. Keys are deterministic, distinct and none is a
// well-known dev key.
func TestDeriveKeysDistinctAndNotDevKeys(t *testing.T) {
	a, err := DeriveKeys(8)
	require.NoError(t, err)
	b, err := DeriveKeys(8)
	require.NoError(t, err)
	seen := map[common.Address]bool{}
	for i := range a {
		require.Equal(t, addrOf(a[i]), addrOf(b[i]), "deterministic")
		_, known := devchain.IsWellKnownAddress(addrOf(a[i]))
		require.False(t, known, "account %d is a dev account", i)
		require.False(t, seen[addrOf(a[i])], "account %d repeats", i)
		seen[addrOf(a[i])] = true
	}
	_, err = DeriveKeys(0)
	require.Error(t, err)
	_, err = DeriveKeys(MaxAccounts + 1)
	require.Error(t, err)
}

// Attack: a process name chosen to look like stat fields ("x) R 1 2 …")
// must not shift the CPU fields read from /proc/<pid>/stat.
func TestParseProcStat(t *testing.T) {
	line := "1234 (evil) 9 9 9 9 9 9 9 9 9 9 9 9 9) S 1 1 1 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 8 0 100 0 0\n"
	d, err := parseProcStat([]byte(line))
	require.NoError(t, err)
	require.Equal(t, 3*time.Second, d) // (250 + 50) ticks at 100 Hz
	for _, bad := range []string{"no name at all", "1 (x) S 1 2", "1 (x) S 1 1 1 0 -1 0 0 0 0 0 -5 0 0"} {
		_, err := parseProcStat([]byte(bad))
		require.Error(t, err, bad)
	}
}

// TestProcessCPUAcrossARestart: a process that is killed and replaced
// between two readings (a member bounced mid-batch) never makes the
// committee's CPU go down: the gone one keeps its last reading, the new one
// counts from zero; a pid never read is an error.
func TestProcessCPUAcrossARestart(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc")
	}
	busy := exec.Command("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; sleep 60")
	require.NoError(t, busy.Start())
	t.Cleanup(func() { _ = busy.Process.Kill(); _, _ = busy.Process.Wait() })
	pids := []int{os.Getpid(), busy.Process.Pid}
	probe := ProcessCPU(func() []int { return pids })
	time.Sleep(300 * time.Millisecond)
	before, err := probe()
	require.NoError(t, err)

	require.NoError(t, busy.Process.Kill())
	_, _ = busy.Process.Wait() // reaped: its /proc entry is gone
	fresh := exec.Command("sleep", "60")
	require.NoError(t, fresh.Start())
	t.Cleanup(func() { _ = fresh.Process.Kill(); _, _ = fresh.Process.Wait() })
	pids = []int{os.Getpid(), busy.Process.Pid, fresh.Process.Pid}
	after, err := probe()
	require.NoError(t, err)
	require.GreaterOrEqual(t, after, before)

	_, err = ProcessCPU(func() []int { return []int{busy.Process.Pid} })()
	require.Error(t, err, "a pid the probe never read")
}

func TestPerItemShare(t *testing.T) {
	for _, tc := range []struct {
		gas   uint64
		items int
		want  uint64
	}{{175900, 1, 175900}, {175900, 0, 175900}, {200000, 64, 3125}, {100, 3, 33}, {101, 2, 51}} {
		require.Equal(t, tc.want, perItem(tc.gas, tc.items), "%d/%d", tc.gas, tc.items)
	}
}

func TestBottleneckIsTheSlowestStage(t *testing.T) {
	for _, tc := range []struct {
		name string
		cap  Capacity
		want string
	}{
		{"committee", Capacity{Chain: 100, Committee: 0.5, Inputs: 3}, "committee"},
		{"chain", Capacity{Chain: 0.2, Committee: 0.5, Inputs: 3}, "chain gas"},
		{"inputs", Capacity{Chain: 100, Committee: 5, Inputs: 3}, "inputs"},
		{"unmeasured chain ignored", Capacity{Chain: 0, Committee: 5, Inputs: 3}, "inputs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := &Result{Capacity: tc.cap, GasLimit: 30_000_000, PeakGas: 1_000_000}
			name, why := bottleneck(res)
			require.Equal(t, tc.want, name)
			require.Contains(t, why, "gas/request")
			require.Contains(t, why, "RPC round trip")
		})
	}
}

// fakeRun builds a finished run's state without a chain: requests with
// references, verdicts as a committee posted them, sightings.
func fakeRun(t *testing.T, verdicts []*big.Int) *gen {
	t.Helper()
	plan, err := policy.Compile(examples.MustGet("allowlist"))
	require.NoError(t, err)
	g := &gen{cfg: Config{Policy: "allowlist", Accounts: 2}, plan: plan}
	g.w = &watcher{g: g, evals: map[[32]byte]sighting{}, verdicts: map[[32]byte]sighting{}}
	t0 := time.Unix(1000, 0)
	for k, v := range verdicts {
		member := int64(k % 16)
		want, err := plan.EvalSpec([][]int64{{member}})
		require.NoError(t, err)
		id := [32]byte{byte(k + 1)}
		r := &request{idx: k, vals: []int64{member}, want: want[0], id: id, verdict: decodeVerdict(v),
			gas: StepGas{Register: 100, Evaluate: 200, Verdict: 50}}
		g.reqs = append(g.reqs, r)
		g.w.evals[id] = sighting{at: t0}
		g.w.verdicts[id] = sighting{at: t0.Add(time.Duration(k+1) * time.Second), tx: common.Hash{byte(k / 2)}}
		g.w.blocks = append(g.w.blocks, blockStat{number: uint64(k), gasUsed: 1000, gasLimit: 30_000_000, time: uint64(k)})
	}
	return g
}

func TestResultCountsAndChecksEveryVerdict(t *testing.T) {
	honest := make([]*big.Int, 8)
	for k := range honest {
		ok := map[int]bool{1: true, 2: true, 3: true, 5: true} // allowlist members among 0..7
		honest[k] = big.NewInt(0)
		if ok[k] {
			honest[k] = big.NewInt(1)
		}
	}
	g := fakeRun(t, honest)
	t0 := time.Unix(990, 0)
	res := g.result(t0, time.Unix(999, 0), time.Unix(1010, 0))
	res.finish()
	require.Zero(t, res.Mismatches)
	require.Equal(t, 4, res.Approved)
	require.Equal(t, 8, res.Requests)
	require.Equal(t, 4, res.VerdictTxs)
	require.Equal(t, 2.0, res.ItemsPerTx)
	require.Equal(t, 350.0, res.GasPerRequest.Total)
	require.Equal(t, 4000.0, res.Latency.P50)
	require.Equal(t, 8000.0, res.Latency.P99)
	require.Equal(t, 1.0, res.VerdictsPerS)
	require.Equal(t, 1.0, res.BlockIntervS)
	require.Contains(t, res.Summary(), "0 mismatches")
}

// Attack: a committee (or a relayer) that posts a flipped verdict, or the
// "unevaluable" sentinel, for some requests: every such verdict is counted
// as a mismatch against the plaintext reference.
func TestResultCatchesWrongVerdicts(t *testing.T) {
	unevaluable := new(big.Int).Lsh(big.NewInt(1), 255)
	for _, tc := range []struct {
		name     string
		verdicts []*big.Int
		want     int
	}{
		{"flipped", []*big.Int{big.NewInt(1), big.NewInt(1), big.NewInt(0)}, 2}, // members 0, 1, 2: want 0, 1, 1
		{"unevaluable", []*big.Int{big.NewInt(0), unevaluable, big.NewInt(1)}, 1},
		{"out of range", []*big.Int{big.NewInt(0), big.NewInt(65538), big.NewInt(1)}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := fakeRun(t, tc.verdicts)
			res := g.result(time.Unix(990, 0), time.Unix(999, 0), time.Unix(1010, 0))
			require.Equal(t, tc.want, res.Mismatches)
		})
	}
	require.Equal(t, int64(math.MinInt64+1), decodeVerdict(nil))
	require.Equal(t, int64(math.MinInt64+1), decodeVerdict(precompiles.ResultUnevaluable))
	require.Equal(t, int64(rejectedInput), decodeVerdict(precompiles.ResultRejectedInput))
}

// Attack: a verdict batch transaction whose calldata is not a submitBatch
// call (another method, truncated, empty) must not be read as a list of
// verdicts: the watcher refuses it instead of crediting requests.
func TestDecodeBatchIDs(t *testing.T) {
	va, err := bindings.IFHEVerdictMetaData.GetAbi()
	require.NoError(t, err)
	ids := [][32]byte{{1}, {2}, {3}}
	data, err := va.Pack("submitBatch", [32]byte{9}, [32]byte{8}, ids, []*big.Int{big.NewInt(1), big.NewInt(0), big.NewInt(1)}, []byte{1}, []byte{0x05})
	require.NoError(t, err)
	got, bm, err := decodeBatchIDs(va.Methods["submitBatch"], data)
	require.NoError(t, err)
	require.Equal(t, ids, got)
	require.Equal(t, []byte{0x05}, bm, "the signer bitmap (members 1 and 3)")

	single, err := va.Pack("submit", [32]byte{1}, big.NewInt(1), [32]byte{8}, []byte{1}, []byte{1})
	require.NoError(t, err)
	for name, bad := range map[string][]byte{"submit": single, "truncated": data[:40], "empty": nil, "selector only": data[:4]} {
		_, _, err := decodeBatchIDs(va.Methods["submitBatch"], bad)
		require.Error(t, err, name)
	}
}

// TestOffenders: --offenders spreads exactly that many offenders over the
// run; their attribute values lie above every declared range and the plan's
// output for them leaves its output range (what the committee's range check
// rejects), and draw gives them ResultRejectedInput as their reference. A
// rejected offender matches; an offender answered unevaluable, or with a
// value, is a mismatch (as is an honest request answered rejected).
func TestOffenders(t *testing.T) {
	for _, tc := range []struct{ offenders, n int }{{0, 16}, {1, 16}, {2, 16}, {5, 7}, {16, 16}} {
		got := 0
		for k := range tc.n {
			if isOffender(k, tc.offenders, tc.n) {
				got++
			}
		}
		require.Equal(t, tc.offenders, got, "%d of %d", tc.offenders, tc.n)
	}
	for _, name := range []string{"kyc_aml", "allowlist"} {
		plan, err := policy.Compile(examples.MustGet(name))
		require.NoError(t, err)
		vals, err := offendingValues(plan, policy.PlaintextModulus)
		require.NoError(t, err, name)
		cols := make([][]int64, len(vals))
		for j, in := range plan.Inputs {
			require.Greater(t, vals[j], in.Max, "%s input %d", name, j)
			cols[j] = []int64{vals[j]}
		}
		out, err := plan.EvalPlain(cols)
		require.NoError(t, err)
		require.True(t, out[0] < 0 || out[0] > 1, "%s: output %d in range", name, out[0])

		g := &gen{cfg: Config{Policy: name, Requests: 8, Offenders: 2, Seed: 3}, plan: plan}
		require.NoError(t, g.draw())
		n := 0
		for _, r := range g.reqs {
			if r.offender {
				n++
				require.Equal(t, int64(rejectedInput), r.want)
				require.Equal(t, vals, r.vals)
			}
		}
		require.Equal(t, 2, n)
	}
	g := fakeRun(t, []*big.Int{precompiles.ResultRejectedInput, precompiles.ResultUnevaluable, big.NewInt(0)})
	for _, r := range g.reqs {
		r.offender, r.want = true, rejectedInput
	}
	res := g.result(time.Unix(990, 0), time.Unix(999, 0), time.Unix(1010, 0))
	require.Equal(t, 2, res.Mismatches, "only the rejected offender matches")
	require.Equal(t, 3, res.Offenders)
}
