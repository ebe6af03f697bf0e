package load

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/fhegate/fhegate/precompiles"
)

// GasGoal is the end-to-end goal for one KYC/AML request: inputs +
// evaluate + its share of the verdict batch.
const GasGoal = 150_000

// StepGas is the gas of one request, by step.
type StepGas struct {
	Register uint64 `json:"register"` // FHEInput.registerSet (or registerBatch) of its inputs
	Evaluate uint64 `json:"evaluate"` // FHEPolicy.evaluate
	Verdict  uint64 `json:"verdict"`  // its share of the verdict transaction
}

// Total is the request's gas.
func (s StepGas) Total() uint64 { return s.Register + s.Evaluate + s.Verdict }

// Latency is a distribution in milliseconds.
type Latency struct {
	P50 float64 `json:"p50_ms"`
	P95 float64 `json:"p95_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
}

// Percentile is the nearest-rank percentile q ∈ (0, 1] of sorted values:
// sorted[⌈q·n⌉−1] (0 for none).
func Percentile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	k := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(k, 0), len(sorted)-1)]
}

func latencyOf(ms []float64) Latency {
	s := slices.Clone(ms)
	slices.Sort(s)
	return Latency{P50: Percentile(s, 0.50), P95: Percentile(s, 0.95), P99: Percentile(s, 0.99), Max: Percentile(s, 1)}
}

// Capacity is each stage's rate in requests/s (see the package doc).
type Capacity struct {
	Chain     float64 `json:"chain_req_per_s"`
	Committee float64 `json:"committee_req_per_s"`
	Inputs    float64 `json:"inputs_req_per_s"`
}

// Result is one load run.
type Result struct {
	Policy   string `json:"policy"`
	Accounts int    `json:"accounts"`
	Requests int    `json:"requests"`
	Seed     uint64 `json:"seed"`
	// Rate and DurationS describe a paced run (Config.Rate); zero for one
	// burst.
	Rate       float64 `json:"paced_rate_per_s,omitempty"`
	DurationS  float64 `json:"paced_duration_s,omitempty"`
	Approved   int     `json:"approved"`            // verdicts that grant (1)
	Offenders  int     `json:"offenders,omitempty"` // requests sent out of range (Config.Offenders), each to be rejected
	Mismatches int     `json:"mismatches"`          // verdicts ≠ the plaintext reference

	InputsWallS   float64 `json:"inputs_wall_s"`   // phase 1
	VerdictWallS  float64 `json:"verdicts_wall_s"` // phase 2: evaluates sent → last verdict read
	AcceptedPerS  float64 `json:"accepted_req_per_s"`
	VerdictsPerS  float64 `json:"verdicts_per_s"`
	Latency       Latency `json:"latency_evaluate_to_verdict"`
	GasPerRequest struct {
		Register float64 `json:"register"`
		Evaluate float64 `json:"evaluate"`
		Verdict  float64 `json:"verdict_share"`
		Total    float64 `json:"total"`
	} `json:"gas_per_request"`
	// InputRoots is the number of distinct input roots the requests' inputs
	// came under (InputsRooted), RootedRequests the requests that had one:
	// each root's one pairing is shared by RootedRequests / InputRoots
	// requests on average.
	InputRoots     int     `json:"input_roots,omitempty"`
	RootedRequests int     `json:"rooted_requests,omitempty"`
	VerdictTxs     int     `json:"verdict_txs"`
	ItemsPerTx     float64 `json:"verdicts_per_verdict_tx"`
	Blocks         int     `json:"blocks"`
	GasLimit       uint64  `json:"block_gas_limit"`
	PeakGas        uint64  `json:"peak_block_gas"`
	MeanGas        float64 `json:"mean_block_gas"`
	BlockIntervS   float64 `json:"block_interval_s"`
	RPC            Latency `json:"rpc_round_trip"` // eth_blockNumber, watcher
	Committee      struct {
		CPUSource       string  `json:"cpu_source,omitempty"`
		CPUPerVerdictMs float64 `json:"cpu_per_verdict_ms,omitempty"`
		Utilisation     float64 `json:"cpu_over_wall,omitempty"` // CPU ÷ phase 2 wall (cores busy)
	} `json:"committee"`
	// Participation is, per committee member, how many of the run's
	// verdicts it signed (the signer bitmap of the verdict transaction that
	// answered each request); ParticipationUnknown counts verdicts whose
	// transaction was not a direct FHEVerdict call (no bitmap to read).
	Participation        []MemberParticipation `json:"participation,omitempty"`
	ParticipationUnknown int                   `json:"participation_unknown,omitempty"`
	Capacity             Capacity              `json:"capacity"`
	Bottleneck           string                `json:"bottleneck"` // chain gas, committee, or inputs (clients + committee API + RPC)
	// Deposits are the isolation deposits the run's requests paid
	// (FHEPolicy.depositOf each) and how their verdict transactions settled
	// them.
	Deposits Deposits `json:"deposits"`
	// Fault says what Config.Fault did mid-batch, and when ("" without one).
	Fault string `json:"fault,omitempty"`
	Why   string `json:"bottleneck_line"`

	latMs []float64
	gas   []StepGas
}

// MemberParticipation is one member's share of the verdicts.
type MemberParticipation struct {
	Member int     `json:"member"` // 1-based
	Signed int     `json:"signed"`
	Share  float64 `json:"share"` // Signed ÷ the run's requests
}

// participation counts, per member 1..n, the verdicts whose signer bitmap
// has its bit (bit i of byte i/8, LSB first = member i+1).
func participation(n int, bitmaps [][]byte, requests int) ([]MemberParticipation, int) {
	if n <= 0 {
		return nil, 0
	}
	out := make([]MemberParticipation, n)
	unknown := 0
	for i := range out {
		out[i].Member = i + 1
	}
	for _, bm := range bitmaps {
		if bm == nil {
			unknown++
			continue
		}
		for i := range min(n, 8*len(bm)) {
			if bm[i/8]>>(i%8)&1 == 1 {
				out[i].Signed++
			}
		}
	}
	for i := range out {
		out[i].Share = float64(out[i].Signed) / float64(max(requests, 1))
	}
	return out, unknown
}

// decodeVerdict turns verdictOf's result into an int64:
// ResultRejectedInput becomes rejectedInput (an offender's reference), any
// other result out of range (the "unevaluable" and "expired" sentinels)
// MinInt64 + 1, which no reference equals.
func decodeVerdict(v *big.Int) int64 {
	switch {
	case v != nil && v.Cmp(precompiles.ResultRejectedInput) == 0:
		return rejectedInput
	case v == nil || !v.IsInt64():
		return math.MinInt64 + 1 // another sentinel: never a reference
	}
	return v.Int64()
}

// result collects the run: t0 start, t1 phase 2 start, t2 end.
// Deposits tallies isolation deposits (wei as decimal strings).
type Deposits struct {
	PerRequestWei string `json:"per_request_wei"`
	Refunded      int    `json:"refunded"`
	Forfeited     int    `json:"forfeited"`
	RefundedWei   string `json:"refunded_wei"`
	ForfeitedWei  string `json:"forfeited_wei"`

	refundedWei, forfeitedWei *big.Int
}

func weiString(x *big.Int) string {
	if x == nil {
		return "0"
	}
	return x.String()
}

func (g *gen) result(t0, t1, t2 time.Time) *Result {
	res := &Result{Policy: g.cfg.Policy, Accounts: g.cfg.Accounts, Requests: len(g.reqs), Seed: g.cfg.Seed,
		InputsWallS: t1.Sub(t0).Seconds(), VerdictWallS: t2.Sub(t1).Seconds()}
	if g.cfg.Rate > 0 {
		res.Rate, res.DurationS = g.cfg.Rate, g.cfg.Duration.Seconds()
	}
	w := g.w
	w.mu.Lock()
	defer w.mu.Unlock()
	bitmaps := make([][]byte, 0, len(g.reqs))
	for _, r := range g.reqs {
		bitmaps = append(bitmaps, w.signers[r.id])
	}
	res.Participation, res.ParticipationUnknown = participation(g.committeeSize, bitmaps, len(g.reqs))
	var firstEval, lastEval, lastVerdict time.Time
	txs := map[[32]byte]bool{}
	roots := map[[32]byte]bool{}
	for _, r := range g.reqs {
		if r.at != nil && r.at.Root != nil {
			roots[r.at.Root.Root] = true
			res.RootedRequests++
		}
		e, v := w.evals[r.id], w.verdicts[r.id]
		if firstEval.IsZero() || e.at.Before(firstEval) {
			firstEval = e.at
		}
		lastEval, lastVerdict = later(lastEval, e.at), later(lastVerdict, v.at)
		res.latMs = append(res.latMs, float64(v.at.Sub(e.at).Microseconds())/1000)
		res.gas = append(res.gas, r.gas)
		txs[v.tx] = true
		if r.verdict != r.want {
			res.Mismatches++
		}
		if r.verdict == 1 {
			res.Approved++
		}
		if r.offender {
			res.Offenders++
		}
	}
	res.InputRoots = len(roots)
	res.AcceptedPerS = rate(len(g.reqs), lastEval.Sub(t1))
	res.VerdictsPerS = rate(len(g.reqs), lastVerdict.Sub(firstEval))
	res.VerdictTxs = len(txs)
	res.ItemsPerTx = float64(len(g.reqs)) / float64(max(len(txs), 1))
	res.blockStats(w.blocks, t2.Sub(t0))
	rtt := make([]float64, len(w.rtts))
	for i, d := range w.rtts {
		rtt[i] = float64(d.Microseconds()) / 1000
	}
	res.RPC = latencyOf(rtt)
	res.Deposits = g.deposits
	res.Deposits.RefundedWei, res.Deposits.ForfeitedWei = weiString(g.deposits.refundedWei), weiString(g.deposits.forfeitedWei)
	return res
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// rate is n ÷ d per second (0 when d is not positive: JSON has no ∞).
func rate(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// blockStats summarises the run's blocks: gas limit, peak and mean gas, and
// the block interval (median of the header timestamps' gaps; when blocks
// come faster than the timestamps' 1 s resolution, wall ÷ blocks).
func (res *Result) blockStats(blocks []blockStat, wall time.Duration) {
	res.Blocks = len(blocks)
	if len(blocks) == 0 {
		return
	}
	var sum uint64
	gaps := make([]float64, 0, len(blocks))
	for i, b := range blocks {
		res.GasLimit = max(res.GasLimit, b.gasLimit)
		res.PeakGas = max(res.PeakGas, b.gasUsed)
		sum += b.gasUsed
		if i > 0 && b.time >= blocks[i-1].time {
			gaps = append(gaps, float64(b.time-blocks[i-1].time))
		}
	}
	res.MeanGas = float64(sum) / float64(len(blocks))
	slices.Sort(gaps)
	res.BlockIntervS = Percentile(gaps, 0.5)
	if res.BlockIntervS == 0 {
		res.BlockIntervS = wall.Seconds() / float64(len(blocks))
	}
}

// setCPU records the committee CPU over phase 2.
func (res *Result) setCPU(source string, cpu, wall time.Duration) {
	res.Committee.CPUSource = source
	res.Committee.CPUPerVerdictMs = float64(cpu.Microseconds()) / 1000 / float64(max(res.Requests, 1))
	if wall > 0 {
		res.Committee.Utilisation = cpu.Seconds() / wall.Seconds()
	}
}

// finish computes the per-request gas means, the latency distribution, the
// stage capacities and the bottleneck.
func (res *Result) finish() {
	n := float64(max(len(res.gas), 1))
	for _, s := range res.gas {
		res.GasPerRequest.Register += float64(s.Register) / n
		res.GasPerRequest.Evaluate += float64(s.Evaluate) / n
		res.GasPerRequest.Verdict += float64(s.Verdict) / n
	}
	gp := &res.GasPerRequest
	gp.Total = gp.Register + gp.Evaluate + gp.Verdict
	res.Latency = latencyOf(res.latMs)
	res.Capacity = Capacity{Committee: res.VerdictsPerS, Inputs: rate(res.Requests, time.Duration(res.InputsWallS*float64(time.Second)))}
	if gp.Total > 0 && res.BlockIntervS > 0 {
		res.Capacity.Chain = math.Floor(float64(res.GasLimit)/gp.Total) / res.BlockIntervS
	}
	res.Bottleneck, res.Why = bottleneck(res)
}

// bottleneck names the stage with the lowest capacity and says why, with
// the numbers.
func bottleneck(res *Result) (string, string) {
	c := res.Capacity
	name, lo := "committee", c.Committee
	if c.Chain > 0 && c.Chain < lo {
		name, lo = "chain gas", c.Chain
	}
	if c.Inputs > 0 && c.Inputs < lo {
		name, lo = "inputs", c.Inputs
	}
	why := fmt.Sprintf("%s at %.3g req/s — committee %.3g verdicts/s (CPU %s); chain %.3g req/s "+
		"(%.0f gas/request, block gas limit %d, peak block %d = %.0f%%, block interval %.2f s); "+
		"inputs %.3g req/s (encrypt+prove, committee API, register); RPC round trip p50 %.1f ms, p95 %.1f ms",
		name, lo, c.Committee, res.cpuNote(), c.Chain, res.GasPerRequest.Total, res.GasLimit, res.PeakGas,
		100*float64(res.PeakGas)/float64(max(res.GasLimit, 1)), res.BlockIntervS, c.Inputs, res.RPC.P50, res.RPC.P95)
	if name == "committee" && res.Committee.CPUSource != "" && res.Committee.Utilisation < 0.5 {
		why += fmt.Sprintf("; the committee used %.2f cores over phase 2: it waits (sequential requests, "+
			"rounds, verdict transactions), it is not CPU-bound", res.Committee.Utilisation)
	}
	return name, why
}

func (res *Result) cpuNote() string {
	if res.Committee.CPUSource == "" {
		return "not measured"
	}
	return fmt.Sprintf("%.0f ms/verdict, %.2f cores busy", res.Committee.CPUPerVerdictMs, res.Committee.Utilisation)
}

// Summary is the human-readable report.
func (res *Result) Summary() string {
	var b strings.Builder
	gp := res.GasPerRequest
	fmt.Fprintf(&b, "load: %s, %d requests from %d accounts (seed %d): %d approved, %d mismatches vs the plaintext reference\n",
		res.Policy, res.Requests, res.Accounts, res.Seed, res.Approved, res.Mismatches)
	if res.Offenders > 0 {
		fmt.Fprintf(&b, "  offenders         %d sent out of range, each expected ResultRejectedInput (a mismatch otherwise)\n", res.Offenders)
	}
	fmt.Fprintf(&b, "  inputs phase      %.1f s\n", res.InputsWallS)
	if res.InputRoots > 0 {
		fmt.Fprintf(&b, "  input roots       %d for %d requests (%.1f each: one pairing per root)\n",
			res.InputRoots, res.RootedRequests, float64(res.RootedRequests)/float64(res.InputRoots))
	}
	fmt.Fprintf(&b, "  accepted          %.3g req/s (evaluate on chain)\n", res.AcceptedPerS)
	fmt.Fprintf(&b, "  verdicts          %.3g /s (%d verdict txs, %.1f verdicts each)\n", res.VerdictsPerS, res.VerdictTxs, res.ItemsPerTx)
	if res.Rate > 0 {
		fmt.Fprintf(&b, "  paced             %.3g requests/s for %.0f s\n", res.Rate, res.DurationS)
	}
	if res.Fault != "" {
		fmt.Fprintf(&b, "  fault             %s\n", res.Fault)
	}
	fmt.Fprintf(&b, "  latency           p50 %.0f ms  p95 %.0f ms  p99 %.0f ms  max %.0f ms (evaluate → verdictOf)\n",
		res.Latency.P50, res.Latency.P95, res.Latency.P99, res.Latency.Max)
	if len(res.Participation) > 0 {
		parts := make([]string, len(res.Participation))
		for i, p := range res.Participation {
			parts[i] = fmt.Sprintf("member %d %d (%.0f%%)", p.Member, p.Signed, 100*p.Share)
		}
		line := strings.Join(parts, ", ")
		if res.ParticipationUnknown > 0 {
			line += fmt.Sprintf("; %d verdicts without a readable signer bitmap", res.ParticipationUnknown)
		}
		fmt.Fprintf(&b, "  signed verdicts   %s of %d\n", line, res.Requests)
	}
	goal := "met"
	if gp.Total > GasGoal {
		goal = fmt.Sprintf("%.1f× over", gp.Total/GasGoal)
	}
	fmt.Fprintf(&b, "  gas per request   %.0f = register %.0f + evaluate %.0f + verdict share %.0f (goal ≤ %d: %s)\n",
		gp.Total, gp.Register, gp.Evaluate, gp.Verdict, GasGoal, goal)
	if d := res.Deposits; d.PerRequestWei != "" && d.PerRequestWei != "0" {
		fmt.Fprintf(&b, "  deposits          %s wei a request: %d refunded (%s wei), %d burnt (%s wei)\n",
			d.PerRequestWei, d.Refunded, d.RefundedWei, d.Forfeited, d.ForfeitedWei)
	}
	fmt.Fprintf(&b, "  blocks            %d, gas limit %d, peak %d, mean %.0f, interval %.2f s\n",
		res.Blocks, res.GasLimit, res.PeakGas, res.MeanGas, res.BlockIntervS)
	if res.Committee.CPUSource != "" {
		fmt.Fprintf(&b, "  committee CPU     %.0f ms per verdict, %.2f cores busy (%s)\n",
			res.Committee.CPUPerVerdictMs, res.Committee.Utilisation, res.Committee.CPUSource)
	}
	fmt.Fprintf(&b, "  bottleneck        %s\n", res.Why)
	return b.String()
}
