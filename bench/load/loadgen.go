package load

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ava-labs/libevm/accounts/abi/bind"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/ethclient"

	"github.com/fhegate/fhegate/contracts/bindings"
	"github.com/fhegate/fhegate/devchain"
	"github.com/fhegate/fhegate/examples/fheclient"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/examples"
	"github.com/fhegate/fhegate/precompiles/corebackends"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
)

// Bounds on a run (checked before anything is allocated).
const (
	MaxAccounts = 256
	MaxRequests = 100_000
	MaxInFlight = 64
)

// Config is one load run.
type Config struct {
	RPC          string // the chain's JSON-RPC URL
	CommitteeAPI string // a committee member's client API URL
	Accounts     int    // N: sending accounts (1..MaxAccounts)
	Requests     int    // M: requests in all, request k from account k mod N (1..MaxRequests)
	// Rate, if positive, paces phase 2: request k is sent no earlier than
	// k/Rate seconds after the phase starts, and Requests becomes
	// ⌈Rate·Duration⌉ (a steady load instead of one burst).
	Rate     float64
	Duration time.Duration
	Policy   string // shipped example name (policy/examples); default "kyc_aml"
	Seed     uint64 // random inputs; 0: a fresh seed (Result.Seed has it)
	// Offenders of the Requests send attribute values outside their
	// declared ranges (honest encryptions with valid proofs) whose plan
	// output leaves the output range: each must be answered
	// ResultRejectedInput and forfeit its deposit, the rest get their
	// reference verdicts and deposits back (request k is an offender when
	// k·Offenders/Requests crosses an integer, spread over the run).
	Offenders int
	InFlight  int // transactions in flight per account (default 16)
	Poll      time.Duration
	Timeout   time.Duration // for the whole run (default 30 min)
	// Inputs is how each request's attested inputs reach the chain:
	// InputsRooted (default), InputsVector, InputsSet, InputsPerHandle or InputsInline.
	Inputs InputMode
	// Funder pays the load accounts' gas (default dev0, which the devnet
	// genesis funds).
	Funder *ecdsa.PrivateKey
	// CommitteeCPU, if set, returns the committee's cumulative CPU time
	// (read at the start, just before a Fault and at the end);
	// CPUSource says what it measures (Result.Committee.CPUSource).
	CommitteeCPU func() (time.Duration, error)
	CPUSource    string
	// Fault, if set, is injected once mid-batch, in its own goroutine: as
	// soon as a request of phase 2 is on chain and FaultAfter verdicts are
	// in while others are still missing (e.g. a committee member killed
	// and restarted: Command's KillMember). It returns what it did, for the
	// result; its error fails the run. The run still needs every verdict,
	// each equal to its reference: a fault may delay requests, never lose
	// or change one.
	Fault      func(ctx context.Context) (string, error)
	FaultAfter int
	// Progress receives a line every ProgressEvery (default 2 s); nil: none.
	Progress      io.Writer
	ProgressEvery time.Duration
}

// InputMode is how the load generator's requests carry their inputs.
type InputMode string

// Input modes (docs/gas.md, "Per KYC/AML request").
const (
	// InputsSet registers the upload as one input set (FHEInput.registerSet)
	// and evaluates on it: one slot, one check in evaluate.
	InputsSet InputMode = "set"
	// InputsPerHandle registers every handle (FHEInput.registerBatch).
	InputsPerHandle InputMode = "per-handle"
	// InputsInline sends no registration: FHEPolicy.evaluateAttested
	// carries the attestation (one transaction per request).
	InputsInline InputMode = "inline"
	// InputsRooted uploads with "rooted": true and sends no registration:
	// FHEPolicy.evaluateRooted carries the upload's place in an input root
	// the committee signed once for many uploads (one pairing per root, paid
	// by the root's first request); evaluateAttested when the committee's
	// root round failed.
	InputsRooted InputMode = "rooted"
	// InputsVector is InputsRooted with each request's attributes in ONE
	// vector input (fheclient.Committee.UploadVector: one ciphertext, one
	// proof, one handle): the committee masks one ciphertext per request
	// instead of one per attribute.
	InputsVector InputMode = "vector"
)

// rooted reports whether uploads ask for an input root (no registration
// transaction; FHEPolicy.evaluateRooted).
func (m InputMode) rooted() bool { return m == InputsRooted || m == InputsVector }

func (c *Config) defaults() error {
	switch c.Inputs {
	case "":
		c.Inputs = InputsRooted
	case InputsRooted, InputsVector, InputsSet, InputsPerHandle, InputsInline:
	default:
		return fmt.Errorf("inputs mode %q: want %s, %s, %s, %s or %s", c.Inputs, InputsRooted, InputsVector, InputsSet, InputsPerHandle, InputsInline)
	}
	if c.Policy == "" {
		c.Policy = "kyc_aml"
	}
	if c.InFlight == 0 {
		c.InFlight = 16
	}
	if c.Poll == 0 {
		c.Poll = 50 * time.Millisecond
	}
	if c.Timeout == 0 {
		c.Timeout = 30 * time.Minute
	}
	if c.ProgressEvery == 0 {
		c.ProgressEvery = 2 * time.Second
	}
	if c.Funder == nil {
		c.Funder = devchain.DevAccounts()[0].Key
	}
	if c.Seed == 0 {
		c.Seed = rand.Uint64() | 1
	}
	if c.Offenders < 0 || (c.Rate == 0 && c.Offenders > c.Requests) {
		return fmt.Errorf("load: %d offenders: want 0..%d (the requests)", c.Offenders, c.Requests)
	}
	switch {
	case c.Rate < 0 || c.Rate > MaxRequests:
		return fmt.Errorf("load: rate %g requests/s: want 0 (one burst) or up to %d", c.Rate, MaxRequests)
	case c.Rate > 0 && c.Duration <= 0:
		return errors.New("load: a paced run (rate) needs a positive duration")
	case c.Rate == 0 && c.Duration != 0:
		return errors.New("load: a duration needs a rate")
	case c.Rate > 0:
		n := math.Ceil(c.Rate * c.Duration.Seconds())
		if n > MaxRequests {
			return fmt.Errorf("load: rate %g × duration %s = %.0f requests: at most %d", c.Rate, c.Duration, n, MaxRequests)
		}
		c.Requests = int(n)
	}
	switch {
	case c.RPC == "" || c.CommitteeAPI == "":
		return errors.New("load: need the chain's RPC URL and the committee API URL")
	case c.Accounts < 1 || c.Accounts > MaxAccounts:
		return fmt.Errorf("load: %d accounts: want 1..%d", c.Accounts, MaxAccounts)
	case c.Requests < 1 || c.Requests > MaxRequests:
		return fmt.Errorf("load: %d requests: want 1..%d", c.Requests, MaxRequests)
	case c.InFlight < 1 || c.InFlight > MaxInFlight:
		return fmt.Errorf("load: %d transactions in flight: want 1..%d", c.InFlight, MaxInFlight)
	case c.FaultAfter < 0 || c.FaultAfter >= c.Requests && c.Fault != nil:
		return fmt.Errorf("load: a fault after %d verdicts of %d requests would never be mid-batch", c.FaultAfter, c.Requests)
	case c.Poll < time.Millisecond:
		return fmt.Errorf("load: poll interval %s: want ≥ 1ms", c.Poll)
	}
	return nil
}

// request is one policy request and what the run learned about it.
type request struct {
	idx      int
	vals     []int64
	want     int64 // the plaintext reference, or rejectedInput for an offender
	offender bool
	handles  [][32]byte
	at       *fheclient.Attestation // InputsInline, InputsRooted, InputsVector: sent with the evaluation
	id       [32]byte
	gas      StepGas
	verdict  int64
}

// gen is one run's shared state.
type gen struct {
	cfg      Config
	cl       *ethclient.Client
	chainID  *big.Int
	plan     *policy.Plan
	policyID [32]byte
	input    *bindings.IFHEInput
	policy   *bindings.IFHEPolicy
	verdict  *bindings.IFHEVerdict
	api      *fheclient.Committee
	w        *watcher
	reqs     []*request
	// deposits settled by the run's verdict transactions (DepositsSettled)
	deposits Deposits

	inputsDone, evalsDone atomic.Int64
	paceStart             time.Time // phase 2's start (Config.Rate)
	committeeSize         int       // FHEVerdict.committee().size, for participation
}

// Run runs the load and returns its measurements. A verdict that differs
// from the plaintext reference, or a request without a verdict before the
// timeout, is an error (the Result is returned with it when there is one).
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	g, err := dial(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer g.cl.Close()
	if err := g.registerPolicy(ctx); err != nil {
		return nil, err
	}
	accts, err := g.fund(ctx)
	if err != nil {
		return nil, err
	}
	if err := g.draw(); err != nil {
		return nil, err
	}
	g.w = newWatcher(g)
	if err := g.w.start(ctx); err != nil {
		return nil, err
	}
	defer g.w.stop()
	g.progressf("load: %s, %d requests from %d accounts (seed %d), %d inputs each\n",
		cfg.Policy, cfg.Requests, cfg.Accounts, cfg.Seed, len(g.plan.Inputs))
	return g.measure(ctx, accts)
}

// measure runs the two phases and collects the result.
func (g *gen) measure(ctx context.Context, accts []*account) (*Result, error) {
	t0 := time.Now()
	if err := g.perAccount(ctx, accts, g.sendInputs); err != nil {
		return nil, fmt.Errorf("inputs: %w", err)
	}
	t1 := time.Now()
	cpu0, cpuErr := g.cpu()
	g.paceStart = time.Now()
	fault := g.injectFault(ctx, t0)
	if err := g.perAccount(ctx, accts, g.sendEvaluates); err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	waitErr := g.waitVerdicts(ctx)
	cpu1, cpuErr1 := g.cpu()
	t2 := time.Now()
	faultNote, faultErr := fault()
	if waitErr != nil {
		return nil, errors.Join(waitErr, faultErr)
	}
	if faultErr != nil {
		return nil, fmt.Errorf("load: fault injection: %w", faultErr)
	}
	if err := g.readVerdicts(ctx); err != nil {
		return nil, err
	}
	if err := g.verdictGas(ctx); err != nil {
		return nil, err
	}
	if c, err := g.verdict.Committee(&bind.CallOpts{Context: ctx}); err == nil {
		g.committeeSize = int(c.Size)
	}
	res := g.result(t0, t1, t2)
	res.Fault = faultNote
	if cpuErr == nil && cpuErr1 == nil && g.cfg.CommitteeCPU != nil {
		res.setCPU(g.cfg.CPUSource, cpu1-cpu0, t2.Sub(t1))
	}
	res.finish()
	g.progressf("%s", res.Summary())
	if res.Mismatches > 0 {
		return res, fmt.Errorf("load: %d of %d verdicts differ from the plaintext reference", res.Mismatches, res.Requests)
	}
	return res, nil
}

// injectFault runs Config.Fault once phase 2 is under way: a request is on
// chain and Config.FaultAfter verdicts are in while others are missing. The
// returned wait gives its note and error; a run that ends before the
// fault fired (every verdict in at once) reports that it did not fire.
func (g *gen) injectFault(ctx context.Context, t0 time.Time) (wait func() (string, error)) {
	if g.cfg.Fault == nil {
		return func() (string, error) { return "", nil }
	}
	ctx, cancel := context.WithCancel(ctx)
	var (
		note string
		err  error
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(g.cfg.Poll)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				note = fmt.Sprintf("fault not injected: the batch ended before %d verdicts were in with others missing", g.cfg.FaultAfter)
				return
			case <-tick.C:
			}
			if e, v := g.w.counts(); e > 0 && v >= g.cfg.FaultAfter && v < len(g.reqs) {
				break
			}
		}
		at := time.Since(t0)
		e, v := g.w.counts()
		g.progressf("load: injecting the fault at %.1fs (%d requests on chain, %d of %d verdicts in)\n", at.Seconds(), e, v, len(g.reqs))
		// a probe over processes (ProcessCPU) keeps a killed process's
		// last reading: read it just before the fault
		_, _ = g.cpu()
		note, err = g.cfg.Fault(ctx)
		note = fmt.Sprintf("%s (from %.1fs to %.1fs)", note, at.Seconds(), time.Since(t0).Seconds())
		g.progressf("load: %s\n", note)
	}()
	return func() (string, error) {
		cancel()
		<-done
		return note, err
	}
}

func (g *gen) cpu() (time.Duration, error) {
	if g.cfg.CommitteeCPU == nil {
		return 0, nil
	}
	return g.cfg.CommitteeCPU()
}

func (g *gen) progressf(format string, args ...any) {
	if g.cfg.Progress != nil {
		fmt.Fprintf(g.cfg.Progress, format, args...)
	}
}

func dial(ctx context.Context, cfg Config) (*gen, error) {
	spec, err := examples.Get(cfg.Policy)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	plan, err := policy.Compile(spec)
	if err != nil {
		return nil, fmt.Errorf("load: policy %s: %w", cfg.Policy, err)
	}
	cl, err := ethclient.DialContext(ctx, cfg.RPC)
	if err != nil {
		return nil, err
	}
	g := &gen{cfg: cfg, cl: cl, plan: plan, api: &fheclient.Committee{API: cfg.CommitteeAPI}}
	if g.chainID, err = cl.ChainID(ctx); err == nil {
		if g.input, err = bindings.NewIFHEInput(subnetevm.InputAddress, cl); err == nil {
			if g.policy, err = bindings.NewIFHEPolicy(subnetevm.PolicyAddress, cl); err == nil {
				g.verdict, err = bindings.NewIFHEVerdict(subnetevm.VerdictAddress, cl)
			}
		}
	}
	if err != nil {
		cl.Close()
		return nil, fmt.Errorf("load: %s: %w", cfg.RPC, err)
	}
	return g, nil
}

// registerPolicy registers the example's spec unless the chain has it (the
// policy id is the plan hash of the chain's compiler).
func (g *gen) registerPolicy(ctx context.Context) error {
	spec, _ := examples.Get(g.cfg.Policy)
	info, err := corebackends.Policy{}.Compile(spec)
	if err != nil {
		return err
	}
	g.policyID = [32]byte(info.PlanHash)
	p, err := g.policy.PolicyOf(&bind.CallOpts{Context: ctx}, g.policyID)
	if err != nil {
		return fmt.Errorf("load: policyOf: %w", err)
	}
	if p.Exists {
		return nil
	}
	funder := &account{key: g.cfg.Funder, addr: addrOf(g.cfg.Funder)}
	if err := funder.syncNonce(ctx, g.cl); err != nil {
		return err
	}
	h, err := g.transact(funder, func(o *bind.TransactOpts) (*types.Transaction, error) { return g.policy.RegisterPolicy(o, spec) })
	if err != nil {
		return fmt.Errorf("load: registerPolicy: %w", err)
	}
	_, err = g.receipts(ctx, []common.Hash{h})
	g.progressf("load: registered policy %s as %x\n", g.cfg.Policy, g.policyID[:8])
	return err
}

// draw gives every request random in-range inputs and its reference
// verdict (the policy document evaluated over the integers).
func (g *gen) draw() error {
	r := rand.New(rand.NewPCG(g.cfg.Seed, 0x10ad))
	g.reqs = make([]*request, g.cfg.Requests)
	var bad []int64
	if g.cfg.Offenders > 0 {
		var err error
		if bad, err = offendingValues(g.plan, policy.PlaintextModulus); err != nil {
			return err
		}
	}
	for k := range g.reqs {
		if isOffender(k, g.cfg.Offenders, len(g.reqs)) {
			g.reqs[k] = &request{idx: k, vals: bad, want: rejectedInput, offender: true}
			continue
		}
		vals := make([]int64, len(g.plan.Inputs))
		cols := make([][]int64, len(vals))
		for j, in := range g.plan.Inputs {
			vals[j] = in.Min + r.Int64N(in.Max-in.Min+1)
			cols[j] = []int64{vals[j]}
		}
		want, err := g.plan.EvalSpec(cols)
		if err != nil {
			return fmt.Errorf("load: plaintext reference: %w", err)
		}
		g.reqs[k] = &request{idx: k, vals: vals, want: want[0]}
	}
	return nil
}

// rejectedInput is how readVerdicts records ResultRejectedInput (not an
// int64: decodeVerdict's sentinel for any such result).
const rejectedInput = math.MinInt64

// isOffender reports whether request k of n is one of the offenders,
// spread evenly over the run.
func isOffender(k, offenders, n int) bool {
	return offenders > 0 && (k+1)*offenders/n != k*offenders/n
}

// offendingValues finds attribute values of plan, each above its declared
// range and below the plaintext modulus t, whose plan output (mod t, centred)
// leaves the plan's output range: an honest encryption of them passes its
// proof, and only the committee's range check on the verdict catches it.
func offendingValues(plan *policy.Plan, t uint64) ([]int64, error) {
	lo, hi := int64(0), int64(1)
	if plan.Output.Type != "bool" {
		lo, hi = plan.Output.Min, plan.Output.Max
	}
	for k := int64(1); k < 1000; k++ {
		vals := make([]int64, len(plan.Inputs))
		cols := make([][]int64, len(vals))
		ok := true
		for j, in := range plan.Inputs {
			vals[j] = in.Max + k + int64(j)
			ok = ok && vals[j] >= 0 && uint64(vals[j]) < t
			cols[j] = []int64{vals[j]}
		}
		if !ok {
			break
		}
		out, err := plan.EvalPlain(cols) // centred mod t
		if err != nil {
			return nil, fmt.Errorf("load: offending values: %w", err)
		}
		if v := out[0]; v < lo || v > hi {
			return vals, nil
		}
	}
	return nil, fmt.Errorf("load: no attribute values of %s above their ranges leave its output range", plan.Name)
}

// perAccount runs f for every account concurrently, each with its requests.
func (g *gen) perAccount(ctx context.Context, accts []*account, f func(context.Context, *account, []*request) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, len(accts))
	for i, a := range accts {
		var mine []*request
		for k := i; k < len(g.reqs); k += len(accts) {
			mine = append(mine, g.reqs[k])
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if errs[i] = f(ctx, a, mine); errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
