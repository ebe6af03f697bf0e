package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/eval"
	"github.com/fhegate/fhegate/policy/examples"
	"github.com/fhegate/fhegate/precompiles"
	"github.com/fhegate/fhegate/precompiles/corebackends"
)

func newPolicyCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Compile, inspect and (with a local development key) evaluate encrypted policies",
		Long: `Policies are YAML/JSON documents (schema: policy/doc.go; examples: policy/examples).
FILE is a path, "-" for stdin, or example:NAME (` + strings.Join(examples.AllNames(), ", ") + `).`,
	}
	cmd.AddCommand(newPolicyCompileCmd(a), newPolicyInspectCmd(a), newPolicyEvalCmd(a))
	return cmd
}

// readPolicy reads FILE, "-" (stdin, the command's input) or example:NAME.
func readPolicy(stdin io.Reader, arg string) ([]byte, error) {
	if name, ok := strings.CutPrefix(arg, "example:"); ok {
		return examples.Get(name)
	}
	if arg == "-" {
		return io.ReadAll(io.LimitReader(stdin, policy.MaxSpecBytes+1))
	}
	return os.ReadFile(arg)
}

func compilePolicy(stdin io.Reader, arg string) (*policy.Plan, error) {
	p, _, err := compilePolicyDoc(stdin, arg)
	return p, err
}

// compilePolicyDoc is compilePolicy that also returns the document.
func compilePolicyDoc(stdin io.Reader, arg string) (*policy.Plan, []byte, error) {
	doc, err := readPolicy(stdin, arg)
	if err != nil {
		return nil, nil, err
	}
	p, err := policy.Compile(doc)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", arg, err)
	}
	return p, doc, nil
}

// admission is what FHEPolicy.registerPolicy would answer for doc: the
// same checks (precompiles.AdmitPolicy with the chain's compiler,
// corebackends.Policy), so inspect and the chain agree.
func admission(doc []byte) (precompiles.PlanInfo, error) {
	if len(doc) == 0 || len(doc) > precompiles.MaxSpecBytes {
		return precompiles.PlanInfo{}, fmt.Errorf("spec length %d outside [1,%d]", len(doc), precompiles.MaxSpecBytes)
	}
	return precompiles.AdmitPolicy(corebackends.Policy{}, doc)
}

// ErrRegisterRefused marks a policy that FHEPolicy.registerPolicy refuses
// (`policy eval` evaluates only what the chain registers).
var ErrRegisterRefused = errors.New("refused by FHEPolicy.registerPolicy")

// registerRefusal wraps admission's error as registration's refusal.
func registerRefusal(err error) error {
	return fmt.Errorf("%w: %w", ErrRegisterRefused, err)
}

// planSummary is the machine-readable form of inspect/compile.
type planSummary struct {
	Name             string         `json:"name"`
	Hash             string         `json:"hash"`
	Preset           string         `json:"preset"`
	PresetID         uint8          `json:"preset_id"`
	Depth            int            `json:"depth"`
	UnrefreshedDepth int            `json:"unrefreshed_depth"`
	NeedsRefresh     bool           `json:"needs_refresh"`
	DecisionsPerCt   int            `json:"decisions_per_ct"`
	Inputs           []policy.Input `json:"inputs"`
	Output           policy.Output  `json:"output"`
	Counts           policy.Counts  `json:"counts"`
	EstimatedMs      float64        `json:"estimated_ms"`
	Gas              uint64         `json:"gas"`
	PlanBytes        int            `json:"plan_bytes"`
	// RequestGas is what one evaluate() pays on a chain that accepts the
	// policy; RegisterError why FHEPolicy.registerPolicy would refuse it.
	RequestGas uint64 `json:"request_gas,omitempty"`
	// EvaluatedAlone: the policy has no packed form, so the committee
	// evaluates each request alone; RequestBooks is the committee gas each
	// request then books against the per-block budget (the whole
	// evaluation, policy.Plan.AloneGas) and RequestsPerBlock how many such
	// requests one block's budget holds (docs/gas.md, "Requests evaluated
	// alone"). A packed policy's first request in a block books its packed
	// evaluation and later ones share it: both are left out.
	EvaluatedAlone   bool   `json:"evaluated_alone"`
	RequestBooks     uint64 `json:"request_books,omitempty"`
	RequestsPerBlock uint64 `json:"requests_per_block,omitempty"`
	// DepositWei is the call value each evaluate() carries
	// (FHEPolicy.depositOf, decimal wei): refunded with the verdict, burnt
	// when the verdict is ResultRejectedInput; "0" for a policy evaluated
	// alone.
	DepositWei    string `json:"deposit_wei,omitempty"`
	RegisterError string `json:"register_error,omitempty"`
}

func summarize(p *policy.Plan) planSummary {
	return planSummary{Name: p.Name, Hash: p.HashHex(), Preset: p.PresetName, PresetID: p.Preset, Depth: p.Depth,
		UnrefreshedDepth: p.UnrefreshedDepth, NeedsRefresh: p.NeedsRefresh, DecisionsPerCt: p.Slots,
		Inputs: p.Inputs, Output: p.Output, Counts: p.Counts, EstimatedMs: round2(p.EstimatedMillis()),
		Gas: p.Gas(), PlanBytes: len(p.CanonicalBytes())}
}

func round2(v float64) float64 { return float64(int64(v*100+0.5)) / 100 }

func newPolicyCompileCmd(a *app) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "compile FILE",
		Short: "Compile a policy; print its hash, preset, depth and gas; optionally write the canonical plan bytes",
		Example: `  fhegate policy compile example:kyc_aml
  fhegate policy compile my-policy.yaml -o my-policy.plan
  cat my-policy.yaml | fhegate policy compile -`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := compilePolicy(cmd.InOrStdin(), args[0])
			if err != nil {
				return err
			}
			if out != "" {
				if err := os.WriteFile(out, p.CanonicalBytes(), 0o644); err != nil {
					return err
				}
				a.Log().Info("wrote canonical plan", zap.String("path", out), zap.Int("bytes", len(p.CanonicalBytes())))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s %s preset=%s depth=%d refresh=%v gas=%d\n", p.HashHex(), p.Name, p.PresetName, p.Depth, p.NeedsRefresh, p.Gas())
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the canonical plan bytes (what the hash covers) to this file")
	return cmd
}

func newPolicyInspectCmd(_ *app) *cobra.Command {
	var asJSON, ops bool
	cmd := &cobra.Command{
		Use:   "inspect FILE",
		Short: "Print a compiled policy's depth, op counts, preset, estimated ms and gas (and, with --ops, the plan)",
		Example: `  fhegate policy inspect example:kyc_aml
  fhegate policy inspect example:kyc_aml --ops
  fhegate policy inspect example:deep/set_screening --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, doc, err := compilePolicyDoc(cmd.InOrStdin(), args[0])
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			info, admitErr := admission(doc)
			if asJSON {
				sum := summarize(p)
				if admitErr != nil {
					sum.RegisterError = admitErr.Error()
				} else {
					sum.RequestGas, sum.EvaluatedAlone = info.Cost, info.Alone
					sum.DepositWei = precompiles.Deposit(info.Cost, info.Alone).String()
					if info.Alone {
						sum.RequestBooks, sum.RequestsPerBlock = info.AloneGas, precompiles.CommitteeGasPerBlock/info.AloneGas
					}
				}
				b, err := json.MarshalIndent(sum, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintln(out, string(b))
				return err
			}
			w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			c := p.Counts
			fmt.Fprintf(w, "policy\t%s\n", p.Name)
			fmt.Fprintf(w, "hash\t%s\n", p.HashHex())
			fmt.Fprintf(w, "preset\t%s (id %d, depth %d, %d decisions per ciphertext set)\n", p.PresetName, p.Preset, p.PresetDepth, p.Slots)
			fmt.Fprintf(w, "depth\t%d (without refreshes: %d)\n", p.Depth, p.UnrefreshedDepth)
			fmt.Fprintf(w, "refresh\t%v (%d MPC refreshes)\n", p.NeedsRefresh, c.Refreshes)
			fmt.Fprintf(w, "ct×ct\t%d (polynomials: %d, degrees %d, max %d)\n", c.CtCt, c.Polys, c.PolyDegrees, c.MaxPolyDegree)
			fmt.Fprintf(w, "ct×const\t%d\n", c.CtConst)
			fmt.Fprintf(w, "ct×pt\t%d\n", c.CtPt)
			fmt.Fprintf(w, "additions\t%d\n", c.Adds)
			fmt.Fprintf(w, "rotations\t%d\n", c.Rotations)
			fmt.Fprintf(w, "estimated\t%.1f ms per ciphertext set (%.4f ms per packed decision), single core\n", p.EstimatedMillis(), p.EstimatedMillis()/float64(p.Slots))
			fmt.Fprintf(w, "gas\t%d (%d gas/µs)\n", p.Gas(), policy.GasPerMicrosecond)
			if admitErr != nil {
				fmt.Fprintf(w, "register\t%v\n", registerRefusal(admitErr))
			} else {
				fmt.Fprintf(w, "register\taccepted by FHEPolicy.registerPolicy: %d gas per request, %d input slots\n", info.Cost, info.Inputs)
				if info.Alone {
					fmt.Fprintf(w, "evaluated\talone: no packed form, so each request books its whole evaluation, %d gas (plan + %d entry refreshes + the result's refresh), of the committee's %d per block (%d requests a block)\n",
						info.AloneGas, len(p.Inputs), uint64(precompiles.CommitteeGasPerBlock), precompiles.CommitteeGasPerBlock/info.AloneGas)
				} else {
					fmt.Fprintf(w, "evaluated\tpacked: a block's first request books one packed evaluation, %d gas (cost × %d), its later requests share it\n",
						info.Cost*precompiles.BatchOccupancy, precompiles.BatchOccupancy)
				}
				if d := precompiles.Deposit(info.Cost, info.Alone); d.Sign() > 0 {
					fmt.Fprintf(w, "deposit\t%s wei per request (FHEPolicy.depositOf): refunded with the verdict, burnt when the input is rejected\n", d)
				} else {
					fmt.Fprintf(w, "deposit\tnone (a request evaluated alone costs no isolation work)\n")
				}
			}
			for _, d := range p.Declared() {
				if d.Type != "" {
					fmt.Fprintf(w, "input\t%s: %s ≤ %d, %d base-%d digits %s.0 … %s.%d (one vector input)\n", d.Name, d.Type, d.UMax, d.Digits, policy.DigitBase, d.Name, d.Name, d.Digits-1)
					continue
				}
				fmt.Fprintf(w, "input\t%s ∈ [%d, %d]\n", d.Name, d.Min, d.Max)
			}
			fmt.Fprintf(w, "output\t%s ∈ [%d, %d]\n", p.Output.Type, p.Output.Min, p.Output.Max)
			if err := w.Flush(); err != nil {
				return err
			}
			if ops {
				for i, op := range p.Ops {
					fmt.Fprintf(out, "r%-3d %s\n", i, describeOp(op))
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&ops, "ops", false, "list the plan's instructions")
	return cmd
}

func describeOp(op policy.Op) string {
	s := ""
	switch op.Kind {
	case policy.OpInput:
		s = fmt.Sprintf("input  #%d", op.Input)
	case policy.OpLinear:
		var terms []string
		for k, a := range op.Args {
			terms = append(terms, fmt.Sprintf("%d·r%d", op.Weights[k], a))
		}
		if op.Const != 0 || len(terms) == 0 {
			terms = append(terms, strconv.FormatInt(op.Const, 10))
		}
		s = "linear " + strings.Join(terms, " + ")
	case policy.OpPoly:
		s = fmt.Sprintf("poly   P(r%d), degree %d", op.Args[0], op.Degree())
	case policy.OpMul:
		s = fmt.Sprintf("mul    r%d × r%d", op.Args[0], op.Args[1])
	case policy.OpRescale:
		s = fmt.Sprintf("rescale r%d", op.Args[0])
	}
	s += fmt.Sprintf("   depth %d, ∈ [%d, %d]", op.Depth, op.Min, op.Max)
	if op.Refresh {
		s += "   REFRESH"
	}
	return s
}

// policyEvalOptions are the flags of `fhegate policy eval`.
type policyEvalOptions struct {
	decisions []string
	random    int
	seed      uint64
	parallel  int
	committee bool
}

func newPolicyEvalCmd(a *app) *cobra.Command {
	var o policyEvalOptions
	cmd := &cobra.Command{
		Use:   "eval FILE",
		Short: "Evaluate a policy on encrypted inputs under throw-away keys (a local key, or an in-process MPC committee for deep plans)",
		Long: `First applies the rule FHEPolicy.registerPolicy applies (the same admission as policy inspect):
a policy the chain would refuse is not evaluated, and its reason is printed. Then generates a
throw-away key for the plan's preset, encrypts the decisions (slot i of input j = input j of
decision i), evaluates the plan homomorphically, decrypts the verdicts and checks them against the
plaintext reference. Production evaluation runs in the committee under the collective key.

A plan with refresh points (a policy deeper than its preset) is evaluated by an in-process MPC
committee instead (n=3, t=2, throw-away keys, TLS on loopback): the same protocol code as a committee
serving a chain runs the distributed key generation, the collective refresh at each of the plan's
refresh points and the threshold decryption. --committee does the same for any plan.`,
		Example: `  fhegate policy eval example:kyc_aml -d age=30,country=5,pep=0,adverse_media=0,tx_volume=3,cash_ratio=1,account_age=12,jurisdiction_risk=0
  fhegate policy eval example:credit_limit --random 1000
  fhegate policy eval example:kyc_aml --random 100 --committee`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, doc, err := compilePolicyDoc(cmd.InOrStdin(), args[0])
			if err != nil {
				return err
			}
			// Registration's rule first: a policy the chain would refuse is
			// not evaluated, even though a local key (no decryption flooding)
			// could decrypt its verdicts.
			info, err := admission(doc)
			if err != nil {
				return fmt.Errorf("%s: not evaluated: %w", args[0], registerRefusal(err))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "register: accepted by FHEPolicy.registerPolicy: %d gas per request, %d input slots\n", info.Cost, info.Inputs)
			return runPolicyEval(cmd.Context(), a.Log(), cmd.OutOrStdout(), p, o)
		},
	}
	cmd.Flags().StringArrayVarP(&o.decisions, "decision", "d", nil, "a decision as name=value,… (repeatable)")
	cmd.Flags().IntVar(&o.random, "random", 0, "add N random in-range decisions")
	cmd.Flags().Uint64Var(&o.seed, "seed", 1, "seed for --random")
	cmd.Flags().IntVar(&o.parallel, "parallel", 1, "evaluate independent ops concurrently")
	cmd.Flags().BoolVar(&o.committee, "committee", false, "evaluate with an in-process MPC committee even if the plan needs no refresh")
	return cmd
}

// policyEvalRows are the decisions of `policy eval`: the -d ones, then
// --random in-range ones.
func policyEvalRows(p *policy.Plan, o policyEvalOptions) ([][]int64, error) {
	var rows [][]int64
	for _, d := range o.decisions {
		row, err := parseDecision(p, d)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	if o.random > 0 {
		r := rand.New(rand.NewPCG(o.seed, o.seed^0x9e3779b97f4a7c15))
		decl := p.Declared()
		for i := 0; i < o.random; i++ {
			vals := make([]string, len(decl))
			for k, d := range decl {
				switch {
				case d.Type == "":
					vals[k] = strconv.FormatInt(d.Min+r.Int64N(d.Max-d.Min+1), 10)
				case d.UMax == ^uint64(0):
					vals[k] = strconv.FormatUint(r.Uint64(), 10)
				default:
					vals[k] = strconv.FormatUint(r.Uint64N(d.UMax+1), 10)
				}
			}
			row, err := p.DecisionRow(vals)
			if err != nil {
				return nil, err
			}
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		return nil, usageErrorf("no decisions: give -d name=value,… or --random N")
	}
	return rows, nil
}

// runPolicyEval evaluates p on the decisions encrypted, checks every verdict
// against the plaintext reference and prints them (the first 20) and a summary.
func runPolicyEval(ctx context.Context, log *zap.Logger, w io.Writer, p *policy.Plan, o policyEvalOptions) error {
	rows, err := policyEvalRows(p, o)
	if err != nil {
		return err
	}
	packed, err := p.PackInputs(rows)
	if err != nil {
		return err
	}
	var evalFn evalFunc = evalLocalKey
	if p.NeedsRefresh || o.committee {
		evalFn = evalInProcessCommittee
	}
	got, took, err := evalFn(ctx, log, w, p, packed, len(rows), o.parallel)
	if err != nil {
		return err
	}
	want, err := p.EvalPlain(packed)
	if err != nil {
		return err
	}
	approved := 0
	for i, v := range got {
		if policy.Approved(v) {
			approved++
		}
		if i < 20 {
			shown := any(rows[i])
			if vals, err := p.DeclaredValues(rows[i]); err == nil && len(vals) != len(rows[i]) {
				shown = vals // wide inputs: their values, not their digits
			}
			fmt.Fprintf(w, "decision %d: %v → verdict %d\n", i, shown, v)
		}
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("decision %d: encrypted verdict %d ≠ plaintext reference %d", i, got[i], want[i])
		}
	}
	fmt.Fprintf(w, "%d decisions, %d approved; evaluation %.1f ms (%.4f ms per decision); all verdicts match the plaintext reference\n",
		len(rows), approved, float64(took.Microseconds())/1e3, float64(took.Microseconds())/1e3/float64(len(rows)))
	return nil
}

// evalFunc evaluates a plan on packed inputs (slot i of input j = input j of
// decision i) and returns the first n decrypted verdicts (centred mod t) and
// the evaluation time.
type evalFunc func(ctx context.Context, log *zap.Logger, out io.Writer, p *policy.Plan, packed [][]int64, n, parallel int) ([]int64, time.Duration, error)

// evalLocalKey evaluates under a throw-away single-party key.
func evalLocalKey(ctx context.Context, log *zap.Logger, _ io.Writer, p *policy.Plan, packed [][]int64, n, parallel int) ([]int64, time.Duration, error) {
	params, err := fhe.NewParams(fhe.PresetID(p.Preset))
	if err != nil {
		return nil, 0, err
	}
	t0 := time.Now()
	keys := fhe.GenKeys(params, p.GaloisRotations())
	ev, err := fhe.NewEvaluator(params, fhe.EvaluationKeys{Relin: keys.Relin, Galois: keys.Galois})
	if err != nil {
		return nil, 0, err
	}
	log.Info("generated a development key", zap.String("preset", params.Preset.Name), zap.Duration("took", time.Since(t0)))
	cts, err := eval.EncryptSlots(fhe.NewEncryptor(keys.Public), packed)
	if err != nil {
		return nil, 0, err
	}
	t1 := time.Now()
	res, err := eval.EvaluateWith(ctx, p, ev, cts, eval.Options{Parallel: parallel})
	if err != nil {
		return nil, 0, err
	}
	took := time.Since(t1)
	got, err := eval.DecryptVerdicts(fhe.NewDecryptor(keys.Secret), res, n)
	return got, took, err
}

// evalInProcessCommittee evaluates with an in-process n=3, t=2 committee
// (local.Start over loopback TLS): DKG, the plan under the
// collective evaluation keys with a collective refresh at every refresh
// point, and a threshold decryption of the verdict slots.
func evalInProcessCommittee(ctx context.Context, log *zap.Logger, out io.Writer, p *policy.Plan, packed [][]int64, n, parallel int) ([]int64, time.Duration, error) {
	params, err := fhe.NewParams(fhe.PresetID(p.Preset))
	if err != nil {
		return nil, 0, err
	}
	dir, err := os.MkdirTemp("", "fhegate-policy-eval-")
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintf(out, "plan %q has %d refresh points: evaluating with an in-process MPC committee (n=3, t=2, preset %s, throw-away keys)\n",
		p.Name, p.Counts.Refreshes, params.Preset.Name)
	t0 := time.Now()
	lc, err := local.Start(ctx, local.Options{N: 3, T: 2, Dir: dir, Preset: params.Preset.Name,
		Rotations: []int{1}, RoundTimeout: 2 * time.Minute, Log: log.Named("committee")})
	if err != nil {
		return nil, 0, err
	}
	defer lc.Close()
	fmt.Fprintf(out, "committee DKG done in %.1f s\n", time.Since(t0).Seconds())
	ev, err := lc.Evaluator()
	if err != nil {
		return nil, 0, err
	}
	cts, err := eval.EncryptSlots(fhe.NewEncryptor(lc.Keys), packed)
	if err != nil {
		return nil, 0, err
	}
	// The refreshes are sized for the plan's noise estimate, as a committee
	// serving a chain sizes them, from fresh inputs: these are encrypted
	// here under the collective key, not uploaded, so they need no entry
	// refresh (circuit.FreshInputRefreshBounds).
	bounds, err := circuit.FreshInputRefreshBounds(params, p, p.PresetDepth)
	if err != nil {
		return nil, 0, err
	}
	refreshes := 0
	refresh := func(ctx context.Context, ct *fhe.Ciphertext) (*fhe.Ciphertext, error) {
		refreshes++
		return lc.RefreshWith(ctx, ct, bounds.Points)
	}
	t1 := time.Now()
	res, err := eval.EvaluateWith(ctx, p, ev, cts, eval.Options{Parallel: parallel, Refresh: refresh})
	if err != nil {
		return nil, 0, err
	}
	took := time.Since(t1)
	vals, err := lc.DecryptSlots(ctx, res)
	if err != nil {
		return nil, 0, err
	}
	if n > len(vals) {
		return nil, 0, fmt.Errorf("%d decisions, %d slots", n, len(vals))
	}
	fmt.Fprintf(out, "committee ran %d collective refreshes and one threshold decryption\n", refreshes)
	tm := params.PlaintextModulus()
	got := make([]int64, n)
	for i, v := range vals[:n] {
		got[i] = int64(v)
		if v > tm/2 {
			got[i] = int64(v) - int64(tm)
		}
	}
	return got, took, nil
}

// parseDecision reads name=value,… over the document's declared inputs (a
// wide integer as one decimal value, split into its digits here).
func parseDecision(p *policy.Plan, s string) ([]int64, error) {
	decl := p.Declared()
	vals := make([]string, len(decl))
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return nil, fmt.Errorf("decision %q: want name=value, got %q", s, kv)
		}
		j := -1
		for i, d := range decl {
			if d.Name == strings.TrimSpace(k) {
				j = i
			}
		}
		if j < 0 {
			return nil, fmt.Errorf("decision %q: policy %q has no input %q", s, p.Name, k)
		}
		vals[j] = strings.TrimSpace(v)
	}
	for j, v := range vals {
		if v == "" {
			return nil, fmt.Errorf("decision %q: input %q missing", s, decl[j].Name)
		}
	}
	row, err := p.DecisionRow(vals)
	if err != nil {
		return nil, fmt.Errorf("decision %q: %w", s, err)
	}
	return row, nil
}
