// Command policies takes every shipped policy example — KYC/AML (8 encrypted
// attributes, 2 collective refreshes), credit limit (1), allowlist, the
// deep ones whose plans need 4 refreshes each in the committee, and the
// amounts/ ones over wide unsigned integers (dollars, a 1,000-entry list of
// 16-bit codes, a 64-bit token balance; their digits travel as ONE vector
// input per request, fheclient.UploadVector) — from encrypted
// inputs to an on-chain verdict against a running `fhegate devnet`, and
// checks each verdict against a plaintext reference written by hand from the
// policy's YAML (refs.go), independently of the compiler.
//
//	go run ./cmd/fhegate devnet --datadir /tmp/fhegate   # terminal 1
//	go run ./examples/policies --datadir /tmp/fhegate    # terminal 2
//
// For each policy it registers the spec with FHEPolicy.registerPolicy (a read
// if it is registered already), then for each request: encrypts each input
// under the committee's key (the value in every slot), uploads them as one
// set for one quorum attestation, registers the handles with one
// FHEInput.registerBatch (the sender owns them), calls
// FHEPolicy.evaluate from the owner and polls FHEVerdict.verdictOf until the
// committee's verdict is on chain. The latency printed is from the evaluate
// transaction's receipt to the verdict.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
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
	"github.com/fhegate/fhegate/precompiles"
	"github.com/fhegate/fhegate/precompiles/corebackends"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
)

type options struct {
	rpc, api, dataDir string
	account           int
	policies          []string
	count             int
	seed              uint64
	maxLatency        time.Duration
	timeout           time.Duration
}

func main() {
	var o options
	var names string
	flag.StringVar(&o.rpc, "rpc", "http://127.0.0.1:8545", "JSON-RPC endpoint of the devnet")
	flag.StringVar(&o.api, "committee-api", "", "committee client API URL (default: read from --datadir's committee/api.addr)")
	flag.StringVar(&o.dataDir, "datadir", "", "the devnet's --datadir, to find the committee API")
	flag.IntVar(&o.account, "account", 3, "dev account index that owns the inputs and asks for the verdicts")
	flag.StringVar(&names, "policies", strings.Join(names0(), ","), "comma-separated policy examples to run")
	flag.IntVar(&o.count, "count", 2, "requests per policy (random in-range inputs)")
	flag.Uint64Var(&o.seed, "seed", 0, "seed for the random inputs (0: a fresh one, printed)")
	flag.DurationVar(&o.maxLatency, "max-latency", 30*time.Second, "fail if a verdict takes longer than this after its evaluate transaction")
	flag.DurationVar(&o.timeout, "timeout", 15*time.Minute, "give up after this long")
	flag.Parse()
	o.policies = strings.Split(names, ",")
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "examples/policies:", err)
		os.Exit(1)
	}
}

func names0() []string {
	out := make([]string, len(refPolicies))
	for i, p := range refPolicies {
		out[i] = p.name
	}
	return out
}

// client is what one run needs: the chain, the precompiles' bindings, the
// committee API and the sending account.
type client struct {
	cl        *ethclient.Client
	input     *bindings.IFHEInput
	policy    *bindings.IFHEPolicy
	verdict   *bindings.IFHEVerdict
	committee *fheclient.Committee
	tx        *fheclient.Sender
	owner     common.Address
}

func run(o options) error {
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	c, err := dial(ctx, o)
	if err != nil {
		return err
	}
	defer c.cl.Close()
	if o.seed == 0 {
		o.seed = rand.Uint64()
	}
	fmt.Printf("inputs from seed %d (replay with --seed %d)\n", o.seed, o.seed)
	r := rand.New(rand.NewPCG(o.seed, 0x5eed))
	worst := time.Duration(0)
	for _, name := range o.policies {
		rp, err := lookupRef(name)
		if err != nil {
			return err
		}
		d, err := c.runPolicy(ctx, rp, r, o.count)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		worst = max(worst, d)
	}
	if worst > o.maxLatency {
		return fmt.Errorf("slowest verdict took %.1f s, over --max-latency %s", worst.Seconds(), o.maxLatency)
	}
	fmt.Printf("OK: %d policies × %d requests, every verdict equals the plaintext reference; slowest %.1f s (%d transactions)\n",
		len(o.policies), o.count, worst.Seconds(), c.tx.Count)
	return nil
}

func dial(ctx context.Context, o options) (*client, error) {
	accts := devchain.DevAccounts()
	if o.account < 0 || o.account >= len(accts) {
		return nil, fmt.Errorf("--account %d: want 0..%d", o.account, len(accts)-1)
	}
	api := o.api
	if api == "" {
		if o.dataDir == "" {
			return nil, errors.New("give --committee-api or the devnet's --datadir")
		}
		b, err := os.ReadFile(filepath.Join(o.dataDir, "committee", "api.addr"))
		if err != nil {
			return nil, fmt.Errorf("committee API address: %w (is the devnet running with its MPC committee?)", err)
		}
		api = strings.TrimSpace(string(b))
	}
	cl, err := ethclient.DialContext(ctx, o.rpc)
	if err != nil {
		return nil, err
	}
	chainID, err := cl.ChainID(ctx)
	if err != nil {
		cl.Close()
		return nil, err
	}
	c := &client{cl: cl, committee: &fheclient.Committee{API: api}, owner: accts[o.account].Address,
		tx: &fheclient.Sender{Client: cl, Key: accts[o.account].Key, ChainID: chainID}}
	if c.input, err = bindings.NewIFHEInput(subnetevm.InputAddress, cl); err == nil {
		if c.policy, err = bindings.NewIFHEPolicy(subnetevm.PolicyAddress, cl); err == nil {
			c.verdict, err = bindings.NewIFHEVerdict(subnetevm.VerdictAddress, cl)
		}
	}
	if err != nil {
		cl.Close()
		return nil, err
	}
	return c, nil
}

// runPolicy registers the policy and runs count requests; it returns the
// slowest verdict latency.
func (c *client) runPolicy(ctx context.Context, rp refPolicy, r *rand.Rand, count int) (time.Duration, error) {
	id, err := c.register(ctx, rp.name)
	if err != nil {
		return 0, err
	}
	worst := time.Duration(0)
	var plan *policy.Plan
	if rp.wide() {
		if plan, err = policy.Compile(examples.MustGet(rp.name)); err != nil {
			return 0, err
		}
	}
	for k := 0; k < count; k++ {
		var vals any
		var row []int64
		var want int64
		if rp.wide() {
			v := rp.drawWide(r, k)
			vals, want = v, rp.uref(v)
			if row, err = wideRow(plan, v); err != nil {
				return 0, err
			}
		} else {
			row = rp.draw(r, k)
			vals, want = row, rp.ref(row)
		}
		got, took, err := c.request(ctx, id, row, rp.wide())
		if err != nil {
			return 0, err
		}
		fmt.Printf("  %-20s inputs %v → verdict %d (reference %d) in %.1f s\n", rp.name, vals, got, want, took.Seconds())
		if got != want {
			return 0, fmt.Errorf("inputs %v: committee verdict %d ≠ plaintext reference %d", vals, got, want)
		}
		worst = max(worst, took)
	}
	return worst, nil
}

// register registers the example's spec unless the chain knows it, and
// returns its policy id (the plan hash of the chain's compiler).
func (c *client) register(ctx context.Context, name string) ([32]byte, error) {
	spec, err := examples.Get(name)
	if err != nil {
		return [32]byte{}, err
	}
	info, err := corebackends.Policy{}.Compile(spec)
	if err != nil {
		return [32]byte{}, err
	}
	id := [32]byte(info.PlanHash)
	p, err := c.policy.PolicyOf(&bind.CallOpts{Context: ctx}, id)
	if err != nil {
		return id, fmt.Errorf("policyOf: %w", err)
	}
	if p.Exists {
		fmt.Printf("policy %s registered already as %x\n", name, id[:8])
		return id, nil
	}
	if err := c.tx.Send(ctx, func(o *bind.TransactOpts) (*types.Transaction, error) { return c.policy.RegisterPolicy(o, spec) }); err != nil {
		return id, fmt.Errorf("registerPolicy: %w", err)
	}
	fmt.Printf("policy %s registered as %x (depth %d, %d inputs, %d gas per evaluate; gas used %d)\n",
		name, id[:8], info.Depth, info.Inputs, info.Cost, c.tx.Last.GasUsed)
	if info.Alone {
		// no packed form: each request books its whole evaluation of the
		// committee's per-block budget (docs/gas.md, "Requests evaluated alone")
		fmt.Printf("  evaluated alone: each request books %d committee gas, %d requests a block\n",
			info.AloneGas, precompiles.CommitteeGasPerBlock/info.AloneGas)
	}
	return id, nil
}

// request uploads the inputs as one set (each value in every slot) with
// "rooted": true, asks for an evaluation in one transaction with the
// attestation inline (FHEPolicy.evaluateRooted under the input root the
// committee signed for this and concurrent uploads — the client evaluates
// on its own inputs once, so nothing is registered for them; evaluateAttested
// if no root came back) and waits for the verdict; it returns the verdict
// and the time from the evaluate receipt to the verdict.
//
// With vector, the values (a wide policy's digits) go in ONE vector input:
// one ciphertext, one proof, one handle (fheclient.UploadVector).
func (c *client) request(ctx context.Context, policyID [32]byte, vals []int64, vector bool) (int64, time.Duration, error) {
	upload := c.committee.UploadRooted
	if vector {
		upload = c.committee.UploadVector
	}
	a, err := upload(ctx, c.owner, vals...)
	if err != nil {
		return 0, 0, err
	}
	if err := c.tx.Send(ctx, func(o *bind.TransactOpts) (*types.Transaction, error) { return a.Evaluate(o, c.policy, policyID) }); err != nil {
		return 0, 0, fmt.Errorf("evaluate: %w", err)
	}
	start := time.Now()
	var req [32]byte
	for _, l := range c.tx.Last.Logs {
		if ev, err := c.policy.ParseEvaluationRequested(*l); err == nil {
			req = ev.RequestId
		}
	}
	if req == ([32]byte{}) {
		return 0, 0, errors.New("evaluate emitted no EvaluationRequested event")
	}
	for {
		v, err := c.verdict.VerdictOf(&bind.CallOpts{Context: ctx}, req)
		if err != nil {
			return 0, 0, fmt.Errorf("verdictOf: %w", err)
		}
		if v.Ready {
			if !v.Result.IsInt64() {
				return 0, 0, fmt.Errorf("request %x: verdict %s (unevaluable or out of range)", req[:8], v.Result)
			}
			return v.Result.Int64(), time.Since(start), nil
		}
		select {
		case <-ctx.Done():
			return 0, 0, fmt.Errorf("no verdict for %x: %w", req[:8], ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
