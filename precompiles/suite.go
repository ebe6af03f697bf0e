package precompiles

import "errors"

// PlanInfo is what the policy compiler reports for canonical spec bytes.
type PlanInfo struct {
	PlanHash Hash   // hash of the compiled plan; used as the policy id
	Depth    uint32 // multiplicative depth
	Cost     uint64 // gas charged per evaluation (the policy package derives it from its benchmarks)
	Inputs   uint32 // number of input handles the plan takes (0 = any number)
	// Alone: the committee cannot pack this plan's requests (its packed
	// form does not pass the admission rule), so it evaluates each one
	// alone. Every request then books AloneGas — the whole evaluation of
	// one request, policy.Plan.AloneGas — against CommitteeGasPerBlock,
	// while it is still charged Cost (docs/gas.md, "Requests evaluated
	// alone"). AloneGas is ignored for a packed plan.
	Alone    bool
	AloneGas uint64
}

// PolicyCompiler compiles canonical policy spec bytes. Implementations must be
// deterministic and must not panic (policy/ provides the real one).
type PolicyCompiler interface {
	Compile(spec []byte) (PlanInfo, error)
}

// CRDTMerger validates and merges the public per-replica metadata of encrypted
// CRDT states. Merge must be deterministic, commutative, associative and
// idempotent on valid metadata (fhe/crdt provides the real one).
type CRDTMerger interface {
	Validate(kind uint8, meta []byte) error
	Merge(kind uint8, a, b []byte) ([]byte, error)
	// Handles lists the ciphertext handles valid metadata references (the
	// committee materialises states from them). FHECRDT.create requires the
	// caller to be allowed on every one of them, so metadata cannot smuggle in
	// a ciphertext its creator may not use.
	Handles(kind uint8, meta []byte) ([]Hash, error)
}

// Options configures a Suite.
type Options struct {
	Compiler PolicyCompiler // required (corebackends.Policy on a chain)
	Merger   CRDTMerger     // required (corebackends.CRDTMeta on a chain)
}

// Suite is the set of four fhegate precompiles sharing one compiler and merger.
type Suite struct {
	compiler PolicyCompiler
	merger   CRDTMerger

	Input   *Contract
	Policy  *Contract
	CRDT    *Contract
	Verdict *Contract
}

// NewSuite builds the four precompiles, each from its method table. It fails
// when a backend is nil (there is no default: the real pair is in
// precompiles/corebackends, test stand-ins in precompiles/precompilestest)
// and when a table and the embedded ABI disagree (an ABI method without a
// handler, a handler without an ABI method, a method registered twice).
func NewSuite(o Options) (*Suite, error) {
	if o.Compiler == nil || o.Merger == nil {
		return nil, errors.New("precompiles: NewSuite needs a policy compiler and a CRDT merger (precompiles/corebackends; stand-ins for tests in precompiles/precompilestest)")
	}
	s := &Suite{compiler: o.Compiler, merger: o.Merger}
	if err := s.build(s.contractDefs()); err != nil {
		return nil, err
	}
	return s, nil
}

// contractDef is one precompile of the suite: name (its ABI is I<name>),
// address, the Suite field it fills and its method table.
type contractDef struct {
	name    string
	addr    Address
	field   **Contract
	methods []methodSpec
}

// contractDefs lists the four precompiles in address order.
func (s *Suite) contractDefs() []contractDef {
	return []contractDef{
		{"FHEInput", FHEInputAddress, &s.Input, s.inputMethods()},
		{"FHEPolicy", FHEPolicyAddress, &s.Policy, s.policyMethods()},
		{"FHECRDT", FHECRDTAddress, &s.CRDT, s.crdtMethods()},
		{"FHEVerdict", FHEVerdictAddress, &s.Verdict, s.verdictMethods()},
	}
}

func (s *Suite) build(defs []contractDef) error {
	for _, d := range defs {
		c, err := newContract(d.name, d.addr, d.methods)
		if err != nil {
			return err
		}
		*d.field = c
	}
	return nil
}

// Contracts returns the four precompiles in address order.
func (s *Suite) Contracts() []*Contract {
	return []*Contract{s.Input, s.Policy, s.CRDT, s.Verdict}
}
