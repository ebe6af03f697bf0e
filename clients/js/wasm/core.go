// Command wasm is the WebAssembly core of @fhegate/client: the Go client's
// input path — the committee key announcement, encryption of scalar and
// vector inputs under the collective BGV public key, the proof of
// plaintext knowledge (fhe/zkpok) and the POST /v1/inputs body — compiled
// with GOOS=js GOARCH=wasm and exported to JavaScript (main_js.go). It
// calls the same Go functions the Go client (examples/fheclient, `fhegate
// encrypt --submit`) calls, so a change of the proof or of the wire format
// reaches the JavaScript client with the next build.
//
// It imports only fhe, fhe/zkpok, fhe/pkswitch, policy (the compiler, for a
// policy's input layout: wide integers' digits), policy/eval (the chain's
// admission rule, for contract mocks), consensus/api/uploadwire (the upload
// body, encoded by the package the member decodes it with; it imports
// nothing) and the standard library: the committee's consensus package
// (storage, TLS, multiparty protocols) does not build for js/wasm and would
// not belong in a browser bundle. The one definition it shares with
// consensus, the slot layout of an input (api.InputSlotVectors), is checked
// against consensus by core_test.go.
package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/fhegate/fhegate/consensus/api/uploadwire"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/zkpok"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/eval"
)

// MaxUploadItems is uploadwire.MaxItems (api.MaxUploadItems): the most ciphertexts one
// POST /v1/inputs carries.
const MaxUploadItems = uploadwire.MaxItems

// maxPublicKeyBytes bounds the key a client accepts (as
// api.FetchKeyAnnouncement does: 64 MiB).
const maxPublicKeyBytes = 64 << 20

// ctypeInput is the ciphertext type tag FHEInput records for an input.
const ctypeInput = 1

// Session is one committee key prepared for proving: the key's QP form
// is computed once (zkpok.NewUploadKey: at the upload level, the level the
// committee packs inputs at) and every input of every upload reuses it.
type Session struct {
	Key     *zkpok.Key
	ChainID *big.Int
	Epoch   uint64
}

// NewSession parses the announcement of GET /v1/publickey: the canonical
// public key bytes and the X-Fhegate-Chain-Id / X-Fhegate-Epoch headers
// (decimal), which every input proof binds.
func NewSession(pk []byte, chainID, epoch string) (*Session, error) {
	if len(pk) == 0 || len(pk) > maxPublicKeyBytes {
		return nil, fmt.Errorf("public key of %d bytes (1 … %d)", len(pk), maxPublicKeyBytes)
	}
	chain, ok := new(big.Int).SetString(strings.TrimSpace(chainID), 10)
	if !ok || chain.Sign() < 0 || chain.BitLen() > 256 {
		return nil, fmt.Errorf("chain id %q is not a decimal uint256", chainID)
	}
	var ep uint64
	if _, err := fmt.Sscan(strings.TrimSpace(epoch), &ep); err != nil {
		return nil, fmt.Errorf("key epoch %q is not a decimal uint64", epoch)
	}
	key, err := fhe.UnmarshalPublicKey(pk)
	if err != nil {
		return nil, fmt.Errorf("committee public key: %w", err)
	}
	zk, err := zkpok.NewUploadKey(key)
	if err != nil {
		return nil, fmt.Errorf("committee public key: %w", err)
	}
	return &Session{Key: zk, ChainID: chain, Epoch: ep}, nil
}

// Info describes the session's key for the JavaScript side.
type Info struct {
	Preset    string `json:"preset"`
	PresetID  uint8  `json:"presetId"`
	Slots     int    `json:"slots"`
	T         uint64 `json:"plaintextModulus"`
	KeyDigest string `json:"keyDigest"`
	ChainID   string `json:"chainId"`
	Epoch     uint64 `json:"epoch"`
	ProofSize int    `json:"proofSize"`
	// Level is the level inputs are encrypted at (zkpok.UploadLevel: the
	// level the committee packs inputs at), TopLevel the preset's top.
	Level     int `json:"level"`
	TopLevel  int `json:"topLevel"`
	MaxInputs int `json:"maxInputs"`
	MaxVector int `json:"maxVector"`
}

// Info returns the session's description.
func (s *Session) Info() Info {
	p := s.Key.PK.Params()
	return Info{Preset: p.Preset.Name, PresetID: uint8(p.Preset.ID), Slots: p.Slots(), T: p.PlaintextModulus(),
		KeyDigest: hex0x(s.Key.Digest[:]), ChainID: s.ChainID.String(), Epoch: s.Epoch, ProofSize: s.Key.PP.Size(),
		Level: s.Key.Level(), TopLevel: p.MaxLevel(),
		MaxInputs: MaxUploadItems, MaxVector: fhe.MaxVectorWidth}
}

// SlotVectors is fhe.Params.InputSlotVectors, as the Go client's
// api.InputSlotVectors: the slot vectors a client encrypts for one
// request's values — one replicated vector per value, or with vector one
// vector input holding all of them (fhe.Params.VectorInts).
func SlotVectors(p *fhe.Params, vector bool, values []int64) ([][]int64, error) {
	return p.InputSlotVectors(vector, values)
}

// DecisionRow is the input row of one decision for the policy document
// spec (YAML, at most policy.MaxSpecBytes): values are its declared inputs
// in order, decimal, and each wide unsigned integer (uint8 … uint64) becomes
// its base-16 digits, least significant first — policy.Plan.DecisionRow of
// the compiled spec, the very function the Go client (fheclient
// UploadDecision, `fhegate encrypt --policy`) calls, so the JavaScript
// client's slots are the Go client's. Values outside an input's declared
// range are refused before anything is encrypted.
func DecisionRow(spec []byte, values []string) ([]int64, error) {
	if len(spec) == 0 || len(spec) > policy.MaxSpecBytes {
		return nil, fmt.Errorf("policy document of %d bytes (1 … %d)", len(spec), policy.MaxSpecBytes)
	}
	if len(values) == 0 || len(values) > fhe.MaxVectorWidth {
		return nil, fmt.Errorf("%d values, want 1 … %d", len(values), fhe.MaxVectorWidth)
	}
	plan, err := policy.Compile(spec)
	if err != nil {
		return nil, err
	}
	return plan.DecisionRow(values)
}

// PlanInfo is what FHEPolicy.registerPolicy would record for a policy
// document, and what its plan tells a client or a contract test: the plan's
// hash (the policy id on chain), its preset, depth, input slots and
// declared inputs, its gas (policy.Plan.Gas), the gas one evaluate() pays
// (Cost) and whether the committee evaluates its requests one by one
// (Alone, each booking AloneGas).
type PlanInfo struct {
	Name     string   `json:"name"`
	PlanHash string   `json:"planHash"`
	Preset   string   `json:"preset"`
	Depth    int      `json:"depth"`
	Inputs   int      `json:"inputs"`   // input slots (a wide input takes one per digit)
	Declared []string `json:"declared"` // the declared inputs' names, in order
	Gas      uint64   `json:"gas"`
	Cost     uint64   `json:"cost"`
	Alone    bool     `json:"alone"`
	AloneGas uint64   `json:"aloneGas,omitempty"`
	// Output is the verdict's declared range: a committee posts the
	// rejected-input sentinel for a verdict outside it (an input outside
	// its declared range; consensus's outOfRange).
	Output PlanOutput `json:"output"`
}

// PlanOutput is policy.Output: "bool" (0 or 1) or "score" in [Min, Max].
type PlanOutput struct {
	Type string `json:"type"`
	Min  int64  `json:"min"`
	Max  int64  `json:"max"`
}

// compileSpec compiles a policy document after bounding its length.
func compileSpec(spec []byte) (*policy.Plan, error) {
	if err := specLength(spec); err != nil {
		return nil, err
	}
	return policy.Compile(spec)
}

func specLength(spec []byte) error {
	if len(spec) == 0 || len(spec) > policy.MaxSpecBytes {
		return fmt.Errorf("policy document of %d bytes (1 … %d)", len(spec), policy.MaxSpecBytes)
	}
	return nil
}

// The chain's registration limits (precompiles.MaxPlanCost,
// precompiles.CommitteeGasPerBlock, precompiles.MaxHandles; package
// precompiles does not build for js/wasm): checked equal in core_test.go.
const (
	maxPlanCost          = 234_375
	committeeGasPerBlock = 960_000_000
	maxHandles           = 64
)

// CompilePlan decides about spec what FHEPolicy.registerPolicy decides
// (precompiles.AdmitPolicy with corebackends.Policy): it compiles it with
// the Go compiler, applies the chain's side of the admission rule
// (eval.Register: the noise the decryption's flooding hides, the room of
// each refresh) and the chain's limits, and describes the plan. A spec the
// chain refuses is refused with the reason registerPolicy reverts with
// (after "FHEPolicy.registerPolicy: "); TestCompilePlanIsRegistration
// checks both against the chain's code.
func CompilePlan(spec []byte) (*PlanInfo, error) {
	if err := specLength(spec); err != nil {
		return nil, err
	}
	r, err := eval.Register(spec)
	if err != nil {
		return nil, fmt.Errorf("compile: %w", err)
	}
	switch {
	case r.Cost > maxPlanCost:
		return nil, fmt.Errorf("plan cost %d exceeds %d", r.Cost, maxPlanCost)
	case r.Alone && r.AloneGas == 0:
		return nil, errors.New("compiler returned a policy evaluated alone without its evaluation's gas")
	case r.Alone && r.AloneGas > committeeGasPerBlock:
		return nil, fmt.Errorf("the policy has no packed form, so each request is a whole evaluation of %d gas, more than the committee's per-block budget %d: no block could queue it",
			r.AloneGas, uint64(committeeGasPerBlock))
	case !r.Alone:
		r.AloneGas = 0
	}
	if r.Inputs > maxHandles {
		return nil, fmt.Errorf("plan takes %d inputs, max %d", r.Inputs, maxHandles)
	}
	plan := r.Plan
	info := &PlanInfo{Name: plan.Name, PlanHash: plan.HashHex(), Preset: plan.PresetName, Depth: int(r.Depth),
		Inputs: int(r.Inputs), Gas: plan.Gas(), Cost: r.Cost, Alone: r.Alone, AloneGas: r.AloneGas,
		Output: PlanOutput{Type: plan.Output.Type, Min: plan.Output.Min, Max: plan.Output.Max}}
	for _, d := range plan.Declared() {
		info.Declared = append(info.Declared, d.Name)
	}
	return info, nil
}

// EvalPlan is the verdict spec's plan gives on one decision row (one value
// per input slot: DecisionRow's output for wide inputs), computed with
// exactly the arithmetic of the encrypted evaluation (policy.Plan.EvalPlain:
// registers in Z_t, polynomials as compiled) — what the committee would
// decrypt, centred in [−32768, 32768]. A mock of the chain settles requests
// with it.
func EvalPlan(spec []byte, row []int64) (int64, error) {
	plan, err := compileSpec(spec)
	if err != nil {
		return 0, err
	}
	if len(row) != len(plan.Inputs) {
		return 0, fmt.Errorf("%w: %d values, the plan of %q takes %d input slots", policy.ErrInput, len(row), plan.Name, len(plan.Inputs))
	}
	in := make([][]int64, len(row))
	for j, x := range row {
		in[j] = []int64{x}
	}
	out, err := plan.EvalPlain(in)
	if err != nil {
		return 0, err
	}
	return out[0], nil
}

// Input is one encrypted, proven input.
type Input struct {
	Ciphertext  []byte
	Proof       []byte
	Handle      [32]byte // keccak256 of Ciphertext
	ProofDigest [32]byte // keccak256 of Proof (zkpok.Digest)
}

// Encrypt encrypts one slot vector under the session's key with a proof of
// plaintext knowledge bound to owner, the chain and the key epoch.
func (s *Session) Encrypt(owner [20]byte, slots []int64) (*Input, error) {
	ct, proof, err := s.Key.EncryptInts(slots, zkpok.Context{ChainID: s.ChainID, Epoch: s.Epoch, Owner: owner})
	if err != nil {
		return nil, err
	}
	b, err := ct.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return &Input{Ciphertext: b, Proof: proof, Handle: [32]byte(fhe.HandleOf(b)), ProofDigest: zkpok.Digest(proof)}, nil
}

// Verify checks a ciphertext and its proof for owner under the session's
// key and context, as a committee member does before it attests.
func (s *Session) Verify(owner [20]byte, ciphertext, proof []byte) error {
	ct, err := fhe.UnmarshalCiphertext(ciphertext)
	if err != nil {
		return err
	}
	return s.Key.Verify(ct, fhe.HandleOf(ciphertext), zkpok.Context{ChainID: s.ChainID, Epoch: s.Epoch, Owner: owner}, proof)
}

// Values checks the values of one request before any work: 1 …
// MaxUploadItems scalar inputs, or 1 … fhe.MaxVectorWidth attributes of
// one vector input.
func Values(vector bool, values []int64) error {
	switch {
	case len(values) == 0:
		return errors.New("no values")
	case !vector && len(values) > MaxUploadItems:
		return fmt.Errorf("%d inputs in one upload, at most %d", len(values), MaxUploadItems)
	case vector && len(values) > fhe.MaxVectorWidth:
		return fmt.Errorf("vector input of %d attributes, at most %d", len(values), fhe.MaxVectorWidth)
	}
	return nil
}

// UploadBody is the binary body of POST /v1/inputs (uploadwire.ContentType)
// for inputs of owner: the encoder the Go client uses and the member
// decodes with.
func UploadBody(owner [20]byte, inputs []*Input, rooted bool) ([]byte, error) {
	if len(inputs) == 0 || len(inputs) > MaxUploadItems {
		return nil, fmt.Errorf("upload of %d ciphertexts outside [1,%d]", len(inputs), MaxUploadItems)
	}
	u := uploadwire.Upload{Owner: owner, Rooted: rooted, Items: make([]uploadwire.Item, len(inputs))}
	for i, in := range inputs {
		u.Items[i] = uploadwire.Item{CType: ctypeInput, Ciphertext: in.Ciphertext, Proof: in.Proof}
	}
	return uploadwire.Encode(u)
}

// ParseOwner reads a 0x-prefixed (or bare) 20-byte hex address.
func ParseOwner(s string) ([20]byte, error) {
	var a [20]byte
	b, err := hex.DecodeString(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X"))
	if err != nil || len(b) != 20 {
		return a, fmt.Errorf("owner %q is not a 20-byte hex address", s)
	}
	copy(a[:], b)
	return a, nil
}

func hex0x(b []byte) string { return "0x" + hex.EncodeToString(b) }
