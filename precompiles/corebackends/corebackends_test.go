package corebackends

import (
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe/crdt/meta"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/examples"
	"github.com/fhegate/fhegate/policy/policytest"
	"github.com/fhegate/fhegate/precompiles"
)

func TestPolicyCompile(t *testing.T) {
	t.Parallel()
	for _, name := range examples.Names() {
		t.Run(name, func(t *testing.T) {
			doc := examples.MustGet(name)
			plan, err := policy.Compile(doc)
			require.NoError(t, err)
			info, err := Policy{}.Compile(doc)
			require.NoError(t, err)
			require.Equal(t, plan.Hash(), [32]byte(info.PlanHash))
			require.Equal(t, uint32(len(plan.Inputs)), info.Inputs)
			require.Equal(t, uint32(plan.Depth), info.Depth)
			require.Equal(t, PerRequestGas(plan), info.Cost)
			require.Positive(t, info.Cost)
		})
	}
	_, err := Policy{}.Compile([]byte("not: a policy"))
	require.Error(t, err)
}

func TestCRDTMeta(t *testing.T) {
	t.Parallel()
	l := meta.Layout{Type: meta.TypePNCounter, Preset: 1, Blocks: 2, Width: 1}
	mk := func(b uint32, clock uint64, h byte) []byte {
		s, err := meta.New(l)
		require.NoError(t, err)
		s, err = s.Put(meta.Entry{Block: b, Clock: clock, Replica: b, Handle: meta.Handle{h}})
		require.NoError(t, err)
		return s.Encode()
	}
	a, b := mk(0, 1, 0xa), mk(1, 2, 0xb)
	m := CRDTMeta{}
	require.NoError(t, m.Validate(uint8(meta.TypePNCounter), a))
	require.Error(t, m.Validate(uint8(meta.TypeLWW), a))
	require.Error(t, m.Validate(uint8(meta.TypePNCounter), []byte{1, 2, 3}))
	ab, err := m.Merge(uint8(meta.TypePNCounter), a, b)
	require.NoError(t, err)
	ba, err := m.Merge(uint8(meta.TypePNCounter), b, a)
	require.NoError(t, err)
	require.Equal(t, ab, ba)
	aa, err := m.Merge(uint8(meta.TypePNCounter), a, a)
	require.NoError(t, err)
	require.Equal(t, a, aa)
	_, err = m.Merge(uint8(meta.TypeGCounter), a, b)
	require.Error(t, err)
	hs, err := m.Handles(uint8(meta.TypePNCounter), ab)
	require.NoError(t, err)
	require.Len(t, hs, 2)
	require.Equal(t, byte(0xa), hs[0][0])
	require.Equal(t, byte(0xb), hs[1][0])
}

// TestPerRequestGasModel pins evaluate's gas for the shipped policies (the
// figures in docs/gas.md): plan gas ÷ (slots / 4), at least the floor. If
// policy/costs.json is re-measured, update both.
func TestPerRequestGasModel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		planGas       uint64
		slots, target int
		perRequest    uint64
	}{
		// credit_limit and kyc_aml include 1 and 2 refreshes at refresh_us
		// (plans stay above the refresh floor, policy.PresetInfo.RefreshFloor).
		{"allowlist", 2_251_440, 8_192, 2_048, 1_100},
		{"credit_limit", 43_579_080, 16_384, 4_096, 10_640},
		{"kyc_aml", 121_433_100, 16_384, 4_096, 29_647},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := policy.Compile(examples.MustGet(tc.name))
			require.NoError(t, err)
			require.Equal(t, tc.planGas, plan.Gas())
			require.Equal(t, tc.slots, plan.Slots)
			require.Equal(t, uint64(tc.target), TargetOccupancy(plan))
			require.Equal(t, tc.perRequest, PerRequestGas(plan))
		})
	}
	// the chain's committee budget books cost × precompiles.BatchOccupancy
	// per evaluation: the same occupancy as the price on BGVN14, and every
	// shipped policy's cost is under MaxPlanCost (one evaluation fits a block's budget)
	kyc, err := policy.Compile(examples.MustGet("kyc_aml"))
	require.NoError(t, err)
	require.Equal(t, uint64(precompiles.BatchOccupancy), TargetOccupancy(kyc))
	for _, name := range examples.AllNames() {
		plan, err := policy.Compile(examples.MustGet(name))
		require.NoError(t, err)
		require.LessOrEqual(t, PerRequestGas(plan), uint64(precompiles.MaxPlanCost), name)
	}
	// the floor: a plan too cheap to amortise still pays RequestGasFloor
	tiny := &policy.Plan{Slots: 16_384}
	require.Equal(t, RequestGasFloor, PerRequestGas(tiny))
}

// TestAloneGasModel pins which shipped policies have no packed form at the
// preset the chain compiles them for (PlanInfo.Alone: their requests are
// evaluated alone) and what each of their requests books against the
// committee's per-block budget: the plan's gas (refresh points included)
// plus one refresh per input (the entry refresh) plus the final refresh of
// the result before the mask, at policy.RefreshGas = 48,620 µs × 60 gas/µs
// (docs/gas.md, "Requests evaluated alone"), and how many such requests a
// block's budget holds. What a request is charged stays PerRequestGas, as
// for a packed policy. Every shipped policy is registrable.
func TestAloneGasModel(t *testing.T) {
	t.Parallel()
	require.Equal(t, uint64(2_917_200), policy.RefreshGas())
	alone := map[string]struct {
		planGas, booked, perBlock uint64
	}{
		"allowlist":          {2_251_440, 2_251_440 + 2*2_917_200, 118},   // BGVN13: 8,085,840
		"credit_limit":       {43_579_080, 43_579_080 + 5*2_917_200, 16},  // 58,165,080
		"deep/nested_checks": {188_737_260, 188_737_260 + 5*2_917_200, 4}, // 203,323,260
		"deep/set_screening": {188_763_780, 188_763_780 + 3*2_917_200, 4}, // 197,515,380
	}
	for _, name := range examples.AllNames() {
		t.Run(name, func(t *testing.T) {
			plan, err := policy.Compile(examples.MustGet(name))
			require.NoError(t, err)
			info, err := precompiles.AdmitPolicy(Policy{}, examples.MustGet(name))
			require.NoError(t, err)
			require.Equal(t, PerRequestGas(plan), info.Cost, "the charge is the per-request price, alone or not")
			want, ok := alone[name]
			require.Equal(t, ok, info.Alone)
			if !ok {
				require.Zero(t, info.AloneGas)
				return
			}
			require.Equal(t, want.planGas, plan.Gas())
			require.Equal(t, want.booked, info.AloneGas)
			require.Equal(t, want.booked, plan.AloneGas())
			require.Equal(t, want.perBlock, uint64(precompiles.CommitteeGasPerBlock)/info.AloneGas)
		})
	}
}

// TestCompileRefusesTooNoisyPlans: registerPolicy's compiler refuses a plan
// whose result noise the committee's flooding cannot hide (the committee
// would answer it with the unevaluable sentinel), and accepts every shipped
// example.
func TestCompileRefusesTooNoisyPlans(t *testing.T) {
	t.Parallel()
	noisy := []byte(policytest.TooNoisy)
	_, err := Policy{}.Compile(noisy)
	require.ErrorIs(t, err, policy.ErrTooNoisy)
	for _, name := range examples.AllNames() {
		_, err := Policy{}.Compile(examples.MustGet(name))
		require.NoError(t, err, name)
	}
}

var updateFixture = flag.Bool("update", false, "rewrite contracts/hardhat/test/chain-policies.json")

// chainPolicies is contracts/hardhat/test/chain-policies.json: what
// FHEPolicy.registerPolicy gives the shipped policies (policy id, depth,
// cost, input count) and the reasons it refuses specs with. The Hardhat
// tests register the same specs on the contract mocks and compare.
type chainPolicies struct {
	Comment  string         `json:"comment"`
	Policies []chainPolicy  `json:"policies"`
	Refused  []chainRefusal `json:"refused"`
}

type chainPolicy struct {
	File     string `json:"file"`
	PolicyID string `json:"policyId"`
	Depth    uint32 `json:"depth"`
	Cost     uint64 `json:"cost"`
	Inputs   uint32 `json:"inputs"`
}

type chainRefusal struct {
	Name   string `json:"name"`
	Spec   string `json:"spec"`
	Reason string `json:"reason"`
}

// The fixture the contract mocks are checked against is what the chain's
// registration gives (go test ./precompiles/corebackends -run
// TestChainPoliciesFixture -update rewrites it).
func TestChainPoliciesFixture(t *testing.T) {
	t.Parallel()
	const out = "../../contracts/hardhat/test/chain-policies.json"
	files := []string{"examples/creditgate/credit_policy.yaml"}
	for _, name := range examples.AllNames() {
		files = append(files, "policy/examples/"+name+".yaml")
	}
	got := chainPolicies{Comment: "What FHEPolicy.registerPolicy gives these specs on chain (precompiles.AdmitPolicy with corebackends.Policy); " +
		"written by go test ./precompiles/corebackends -run TestChainPoliciesFixture -update"}
	for _, f := range files {
		spec, err := os.ReadFile(filepath.Join("..", "..", f))
		require.NoError(t, err)
		info, err := precompiles.AdmitPolicy(Policy{}, spec)
		require.NoError(t, err, f)
		got.Policies = append(got.Policies, chainPolicy{File: f, PolicyID: "0x" + hex.EncodeToString(info.PlanHash[:]),
			Depth: info.Depth, Cost: info.Cost, Inputs: info.Inputs})
	}
	for _, r := range []struct{ name, spec string }{
		{"a comparison of degree 255 (its result noise is past what the flooding hides)",
			"fhegate_policy: 1\nname: byte_threshold\ninputs: [{name: x, min: 0, max: 255}]\noutput: {expr: \"x >= 77\"}\n"},
		{"a ranged input too wide for one slot",
			"fhegate_policy: 1\nname: wide\ninputs: [{name: x, min: 0, max: 1000}]\noutput: {expr: \"x >= 77\"}\n"},
		{"a heavily weighted sum of fresh inputs", policytest.TooNoisy},
	} {
		_, err := precompiles.AdmitPolicy(Policy{}, []byte(r.spec))
		require.Error(t, err, r.name)
		got.Refused = append(got.Refused, chainRefusal{Name: r.name, Spec: r.spec, Reason: "FHEPolicy.registerPolicy: " + err.Error()})
	}
	b, err := json.MarshalIndent(got, "", "  ")
	require.NoError(t, err)
	b = append(b, '\n')
	if *updateFixture {
		require.NoError(t, os.WriteFile(out, b, 0o644))
	}
	want, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, string(want), string(b), "%s is stale: go test ./precompiles/corebackends -run TestChainPoliciesFixture -update", out)
}
