//go:build js && wasm

package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
	"github.com/fhegate/fhegate/policy"
)

// The JavaScript interface, installed as globalThis.__fhegate (the
// TypeScript wrapper in clients/js/src is its only intended caller). Every
// function is synchronous and returns either its result or a JavaScript
// Error (never throws into the Go runtime: export.call, the one prologue,
// counts the arguments and turns errors and panics into an Error): byte
// strings are Uint8Array, 32-byte words 0x-hex, values decimal strings
// (int64).
//
//	session(pk, chainId, epoch)                 → {id, info}
//	release(id)
//	inputCount(values, vector)                  → number of ciphertexts
//	encryptInput(id, owner, values, vector, i)  → {ciphertext, proof, handle, proofDigest}
//	uploadBody(owner, [{ciphertext, proof}], rooted) → Uint8Array: the binary body of POST /v1/inputs
//	verify(id, owner, ciphertext, proof)        → null or Error
//	handleOf(bytes)                             → 0x-hex keccak256
//	decisionRow(spec, values)                   → the policy's input row (decimal strings: wide values' digits)
//	compilePlan(spec)                           → JSON of PlanInfo (what registerPolicy records: policy id, depth, cost, inputs), or registration's refusal
//	crdtMetadata(layout, entries)               → canonical CRDT metadata (JSON in: CRDTLayout, []CRDTEntry)
//	crdtCheck(kind, metadata)                   → the handles FHECRDT.create would reference, or its refusal
//	crdtMerge(kind, a, b)                       → FHECRDT.merge's merged metadata, or its refusal
//	evalPlan(spec, row)                         → the plan's verdict on one row (decimal string; EvalPlain)
//	readerKeys(preset)                          → {secretKey, publicKey} (a private read's key pair)
//	privateReadBody(handle, pk, signer, nonce, deadline, signature) → JSON string of POST /v1/private-read
//	combinePrivateRead(sk, answers)             → the decrypted values (decimal strings)
func main() {
	c := &client{sessions: map[int]*Session{}, next: 1}
	api := js.Global().Get("Object").New()
	for _, e := range c.exports() {
		api.Set(e.name, js.FuncOf(e.call))
	}
	js.Global().Set("__fhegate", api)
	if ready := js.Global().Get("__fhegateReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

// export is one function of the JavaScript interface: its name, how many
// arguments it takes and its body, which runs with exactly that many.
type export struct {
	name  string
	nargs int
	run   func(a []js.Value) (any, error)
}

// exports is the interface, in the order it is installed.
func (c *client) exports() []export {
	return []export{
		{"session", 3, c.session},
		{"release", 1, c.release},
		{"inputCount", 2, inputCount},
		{"encryptInput", 5, c.encryptInput},
		{"uploadBody", 3, uploadBody},
		{"verify", 4, c.verify},
		{"handleOf", 1, handleOf},
		{"decisionRow", 2, decisionRow},
		{"crdtMetadata", 2, crdtMetadata},
		{"crdtCheck", 2, crdtCheck},
		{"crdtMerge", 3, crdtMerge},
		{"compilePlan", 1, compilePlan},
		{"evalPlan", 2, evalPlan},
		{"readerKeys", 1, readerKeys},
		{"privateReadBody", 6, privateReadBody},
		{"combinePrivateRead", 2, combinePrivateRead},
	}
}

// call is every export's prologue: it checks the argument count, runs the
// body, and turns an error or a panic into a returned JavaScript Error.
func (e export) call(_ js.Value, args []js.Value) (out any) {
	defer func() {
		if r := recover(); r != nil {
			out = jsError(fmt.Errorf("fhegate wasm: %s: %v", e.name, r))
		}
	}()
	if err := nargs(args, e.nargs); err != nil {
		return jsError(err)
	}
	v, err := e.run(args)
	if err != nil {
		return jsError(err)
	}
	return v
}

// client holds the sessions the JavaScript side opened, by id.
type client struct {
	sessions map[int]*Session
	next     int
}

func (c *client) lookup(v js.Value) (*Session, error) {
	s, ok := c.sessions[v.Int()]
	if !ok {
		return nil, fmt.Errorf("no session %d (released?)", v.Int())
	}
	return s, nil
}

// sessionOwner reads the two arguments encryptInput and verify open with:
// a session id and the owner's address.
func (c *client) sessionOwner(a []js.Value) (*Session, [20]byte, error) {
	s, err := c.lookup(a[0])
	if err != nil {
		return nil, [20]byte{}, err
	}
	owner, err := ParseOwner(a[1].String())
	return s, owner, err
}

func (c *client) session(a []js.Value) (any, error) {
	pk, err := bytesArg(a[0], maxPublicKeyBytes)
	if err != nil {
		return nil, fmt.Errorf("public key: %w", err)
	}
	s, err := NewSession(pk, a[1].String(), a[2].String())
	if err != nil {
		return nil, err
	}
	id := c.next
	c.next++
	c.sessions[id] = s
	in := s.Info()
	info := map[string]any{"preset": in.Preset, "presetId": int(in.PresetID), "slots": in.Slots,
		"plaintextModulus": strconv.FormatUint(in.T, 10), "keyDigest": in.KeyDigest, "chainId": in.ChainID,
		"epoch": strconv.FormatUint(in.Epoch, 10), "proofSize": in.ProofSize, "level": in.Level, "topLevel": in.TopLevel, "maxInputs": in.MaxInputs, "maxVector": in.MaxVector}
	return map[string]any{"id": id, "info": info}, nil
}

func (c *client) release(a []js.Value) (any, error) {
	delete(c.sessions, a[0].Int())
	return nil, nil
}

func inputCount(a []js.Value) (any, error) {
	vals, err := valuesArg(a[0])
	if err != nil {
		return nil, err
	}
	if err := Values(a[1].Truthy(), vals); err != nil {
		return nil, err
	}
	if a[1].Truthy() {
		return 1, nil
	}
	return len(vals), nil
}

func (c *client) encryptInput(a []js.Value) (any, error) {
	s, owner, err := c.sessionOwner(a)
	if err != nil {
		return nil, err
	}
	vals, err := valuesArg(a[2])
	if err != nil {
		return nil, err
	}
	vector := a[3].Truthy()
	if err := Values(vector, vals); err != nil {
		return nil, err
	}
	vecs, err := SlotVectors(s.Key.PK.Params(), vector, vals)
	if err != nil {
		return nil, err
	}
	i := a[4].Int()
	if i < 0 || i >= len(vecs) {
		return nil, fmt.Errorf("input %d of %d", i, len(vecs))
	}
	in, err := s.Encrypt(owner, vecs[i])
	if err != nil {
		return nil, err
	}
	return map[string]any{"ciphertext": jsBytes(in.Ciphertext), "proof": jsBytes(in.Proof),
		"handle": hex0x(in.Handle[:]), "proofDigest": hex0x(in.ProofDigest[:])}, nil
}

func uploadBody(a []js.Value) (any, error) {
	owner, err := ParseOwner(a[0].String())
	if err != nil {
		return nil, err
	}
	n := a[1].Length()
	if n == 0 || n > MaxUploadItems {
		return nil, fmt.Errorf("upload of %d ciphertexts outside [1,%d]", n, MaxUploadItems)
	}
	ins := make([]*Input, n)
	for i := range ins {
		e := a[1].Index(i)
		ct, err := bytesArg(e.Get("ciphertext"), maxPublicKeyBytes)
		if err != nil {
			return nil, fmt.Errorf("input %d ciphertext: %w", i, err)
		}
		pr, err := bytesArg(e.Get("proof"), maxPublicKeyBytes)
		if err != nil {
			return nil, fmt.Errorf("input %d proof: %w", i, err)
		}
		ins[i] = &Input{Ciphertext: ct, Proof: pr}
	}
	b, err := UploadBody(owner, ins, a[2].Truthy())
	if err != nil {
		return nil, err
	}
	return jsBytes(b), nil
}

// verify answers null, or the proof's failure as a returned Error.
func (c *client) verify(a []js.Value) (any, error) {
	s, owner, err := c.sessionOwner(a)
	if err != nil {
		return nil, err
	}
	ct, err := bytesArg(a[2], maxPublicKeyBytes)
	if err != nil {
		return nil, err
	}
	pr, err := bytesArg(a[3], maxPublicKeyBytes)
	if err != nil {
		return nil, err
	}
	if err := s.Verify(owner, ct, pr); err != nil {
		return jsError(err), nil
	}
	return nil, nil
}

func handleOf(a []js.Value) (any, error) {
	b, err := bytesArg(a[0], maxPublicKeyBytes)
	if err != nil {
		return nil, err
	}
	h := fhe.HandleOf(b)
	return "0x" + hex.EncodeToString(h[:]), nil
}

func decisionRow(a []js.Value) (any, error) {
	spec, err := specArg(a[0])
	if err != nil {
		return nil, err
	}
	n, err := arrayLen(a[1], "values", fhe.MaxVectorWidth)
	if err != nil {
		return nil, err
	}
	vals := make([]string, n)
	for i := range vals {
		vals[i] = a[1].Index(i).String()
	}
	row, err := DecisionRow(spec, vals)
	if err != nil {
		return nil, err
	}
	return decimals(row), nil
}

// CRDT metadata (crdt.go): kinds are small integers, metadata Uint8Arrays.
const maxCRDTMetadata = 64 << 10

func kindArg(v js.Value) (uint8, error) {
	if v.Type() != js.TypeNumber || v.Int() < 0 || v.Int() > 255 || float64(v.Int()) != v.Float() {
		return 0, fmt.Errorf("kind: not an integer in [0, 255]")
	}
	return uint8(v.Int()), nil
}

func crdtMetadata(a []js.Value) (any, error) {
	var l CRDTLayout
	if err := json.Unmarshal([]byte(a[0].String()), &l); err != nil {
		return nil, fmt.Errorf("layout: %w", err)
	}
	var es []CRDTEntry
	if err := json.Unmarshal([]byte(a[1].String()), &es); err != nil {
		return nil, fmt.Errorf("entries: %w", err)
	}
	b, err := CRDTMetadata(l, es)
	if err != nil {
		return nil, err
	}
	return jsBytes(b), nil
}

func crdtCheck(a []js.Value) (any, error) {
	kind, err := kindArg(a[0])
	if err != nil {
		return nil, err
	}
	m, err := bytesArg(a[1], maxCRDTMetadata)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	hs, err := CRDTCheck(kind, m)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(hs))
	for i, h := range hs {
		out[i] = h
	}
	return out, nil
}

func crdtMerge(a []js.Value) (any, error) {
	kind, err := kindArg(a[0])
	if err != nil {
		return nil, err
	}
	x, err := bytesArg(a[1], maxCRDTMetadata)
	if err != nil {
		return nil, fmt.Errorf("metadata a: %w", err)
	}
	y, err := bytesArg(a[2], maxCRDTMetadata)
	if err != nil {
		return nil, fmt.Errorf("metadata b: %w", err)
	}
	m, err := CRDTMerge(kind, x, y)
	if err != nil {
		return nil, err
	}
	return jsBytes(m), nil
}

func compilePlan(a []js.Value) (any, error) {
	spec, err := specArg(a[0])
	if err != nil {
		return nil, err
	}
	info, err := CompilePlan(spec)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(info)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

func evalPlan(a []js.Value) (any, error) {
	spec, err := specArg(a[0])
	if err != nil {
		return nil, err
	}
	n, err := arrayLen(a[1], "row", policy.MaxInputs)
	if err != nil {
		return nil, err
	}
	row := make([]int64, n)
	for i := range row {
		x, err := strconv.ParseInt(a[1].Index(i).String(), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("row value %d: %w", i, err)
		}
		row[i] = x
	}
	v, err := EvalPlan(spec, row)
	if err != nil {
		return nil, err
	}
	return strconv.FormatInt(v, 10), nil
}

func readerKeys(a []js.Value) (any, error) {
	sk, pk, err := ReaderKeys(a[0].String())
	if err != nil {
		return nil, err
	}
	return map[string]any{"secretKey": jsBytes(sk), "publicKey": jsBytes(pk)}, nil
}

func privateReadBody(a []js.Value) (any, error) {
	pk, err := bytesArg(a[1], maxPublicKeyBytes)
	if err != nil {
		return nil, fmt.Errorf("public key: %w", err)
	}
	nonce, err1 := strconv.ParseUint(a[3].String(), 10, 64)
	deadline, err2 := strconv.ParseUint(a[4].String(), 10, 64)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("nonce and deadline must be decimal uint64 strings")
	}
	b, err := PrivateReadBody(a[0].String(), pk, a[2].String(), nonce, deadline, a[5].String())
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

func combinePrivateRead(a []js.Value) (any, error) {
	sk, err := bytesArg(a[0], maxPublicKeyBytes)
	if err != nil {
		return nil, fmt.Errorf("secret key: %w", err)
	}
	n := a[1].Length()
	if n == 0 || n > noise.MaxMembers {
		return nil, fmt.Errorf("%d answers outside [1,%d]", n, noise.MaxMembers)
	}
	answers := make([]string, n)
	for i := range answers {
		answers[i] = a[1].Index(i).String()
	}
	v, err := CombinePrivateRead(sk, answers)
	if err != nil {
		return nil, err
	}
	return decimals(v), nil
}

func nargs(a []js.Value, n int) error {
	if len(a) != n {
		return fmt.Errorf("%d arguments, want %d", len(a), n)
	}
	return nil
}

// bytesArg copies a Uint8Array of at most limit bytes.
func bytesArg(v js.Value, limit int) ([]byte, error) {
	if v.Type() != js.TypeObject || !v.InstanceOf(js.Global().Get("Uint8Array")) {
		return nil, fmt.Errorf("not a Uint8Array")
	}
	n := v.Get("length").Int()
	if n > limit {
		return nil, fmt.Errorf("%d bytes, at most %d", n, limit)
	}
	b := make([]byte, n)
	js.CopyBytesToGo(b, v)
	return b, nil
}

// specArg copies a policy document (a Uint8Array of at most
// policy.MaxSpecBytes bytes).
func specArg(v js.Value) ([]byte, error) {
	spec, err := bytesArg(v, policy.MaxSpecBytes)
	if err != nil {
		return nil, fmt.Errorf("policy document: %w", err)
	}
	return spec, nil
}

// arrayLen is the length of a JavaScript array of 1 … limit elements; name
// says which argument is not an array.
func arrayLen(v js.Value, name string, limit int) (int, error) {
	if !v.InstanceOf(js.Global().Get("Array")) {
		return 0, fmt.Errorf("%s: not an array", name)
	}
	n := v.Length()
	if n == 0 || n > limit {
		return 0, fmt.Errorf("%d values, want 1 … %d", n, limit)
	}
	return n, nil
}

// decimals writes int64 values as the decimal strings JavaScript receives.
func decimals(xs []int64) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = strconv.FormatInt(x, 10)
	}
	return out
}

func jsBytes(b []byte) js.Value {
	u := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(u, b)
	return u
}

// valuesArg reads an array of decimal strings (int64; at most
// fhe.MaxVectorWidth of them, the larger bound of Values).
func valuesArg(v js.Value) ([]int64, error) {
	if !v.InstanceOf(js.Global().Get("Array")) {
		return nil, fmt.Errorf("values: not an array")
	}
	n := v.Length()
	if n > fhe.MaxVectorWidth {
		return nil, fmt.Errorf("%d values, at most %d", n, fhe.MaxVectorWidth)
	}
	out := make([]int64, n)
	for i := range out {
		x, err := strconv.ParseInt(strings.TrimSpace(v.Index(i).String()), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("value %d: %w", i, err)
		}
		out[i] = x
	}
	return out, nil
}

func jsError(err error) js.Value { return js.Global().Get("Error").New(err.Error()) }
