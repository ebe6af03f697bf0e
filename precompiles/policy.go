package precompiles

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"

	"github.com/ava-labs/libevm/common"

	"github.com/fhegate/fhegate/bls"
)

// FHEPolicy storage:
//
//	slot("po.p", id)+0   [0]=1, policy index at [1:4], depth at [4:8], inputs at [8:12],
//	                     registrant at [12:32]
//	slot("po.p", id)+1   cost at [24:32] (what a request is charged); [0]=1 when every
//	                     request is evaluated alone (PlanInfo.Alone), with the
//	                     committee gas each such request books at [16:24];
//	                     [0:24] zero for a packed policy (records written before
//	                     the flag existed read as packed)
//	slot("po.p", id)+2   plan hash
//	slot("po.c")         policies registered (the last policy index)
//	slot("po.i", index)  policy id of policy index (1, 2, …)
//	slot("po.n")         request nonce
//	slot("po.q")         queue: block number at [0:8], requests queued in it at [8:16],
//	                     committee gas booked in it at [16:24]
//	slot("po.b", id)     last block in which a request of policy id opened a batch
//	                     (packed policies only)
//	slot("po.s", keccak256(spec))  policy id registered for that spec (spec-hash index)
//	slot("po.rt", root)  epoch + 1 of the committee epoch in which input root
//	                     root's signature was verified (evaluateRooted)
//	slot("po.r", req)    [0]=1 (| reqDeposit when the request holds a deposit,
//	                     deposit.go), policy index at [1:4], block number at [4:12],
//	                     requester at [12:32]: one slot per request (
//	                     the handles hash is bound into the request id and
//	                     logged with EvaluationRequested, not stored)

func policySlot(id Hash) Hash    { return slot("po.p", id[:]) }
func policyReqSlot(id Hash) Hash { return slot("po.r", id[:]) }

var (
	policyNonceSlot = slot("po.n")
	policyQueueSlot = slot("po.q")
	policyCountSlot = slot("po.c")
)

// MaxPolicies is the number of policies a chain can register: a request
// record names its policy by a 24-bit index.
const MaxPolicies = 1<<24 - 1

func policyIndexSlot(index uint32) Hash {
	w := u64Word(uint64(index))
	return slot("po.i", w[:])
}

func policyBatchSlot(id Hash) Hash { return slot("po.b", id[:]) }

// policyRootSlot remembers a verified input root: epoch + 1.
func policyRootSlot(root Hash) Hash { return slot("po.rt", root[:]) }

// maxEvaluateRootedInput bounds evaluateRooted's calldata: evaluateAttested's
// with the root, index and path head words and a path of at most
// bls.MaxInputRootDepth words with its length word.
const maxEvaluateRootedInput = 32 + maxRegisterBatchInput + 3*32 + 32 + 32*bls.MaxInputRootDepth

func policySpecSlot(specHash Hash) Hash { return slot("po.s", specHash[:]) }

type policyRec struct {
	exists     bool
	index      uint32 // 1-based registration index
	depth      uint32
	inputs     uint32
	registrant Address
	cost       uint64 // charged per request
	alone      bool   // every request is evaluated alone (PlanInfo.Alone)
	aloneGas   uint64 // committee gas each request of an alone policy books
	planHash   Hash
}

func loadPolicy(get reader, id Hash) policyRec {
	r := loadPolicyCost(get, id)
	if r.exists {
		r.planHash = get(addOffset(policySlot(id), 2))
	}
	return r
}

// loadPolicyCost is loadPolicy without the plan hash (two reads): what a
// request needs.
func loadPolicyCost(get reader, id Hash) policyRec {
	base := policySlot(id)
	r := decodePolicyWord(get(base))
	if !r.exists {
		return r
	}
	r.cost, r.alone, r.aloneGas = decodeCostWord(get(addOffset(base, 1)))
	return r
}

// encodeCostWord is a policy record's second slot: the per-request charge,
// and for a policy evaluated alone the flag and its per-request booking.
func encodeCostWord(cost uint64, alone bool, aloneGas uint64) Hash {
	w := u64Word(cost)
	if alone {
		w[0] = 1
		binary.BigEndian.PutUint64(w[16:24], aloneGas)
	}
	return w
}

// decodeCostWord decodes encodeCostWord's word. A word with any flag byte
// but 1 reads as a packed policy and ignores [16:24] (every record written
// before the flag existed has zeros there).
func decodeCostWord(w Hash) (cost uint64, alone bool, aloneGas uint64) {
	cost = binary.BigEndian.Uint64(w[24:])
	if w[0] == 1 {
		alone, aloneGas = true, binary.BigEndian.Uint64(w[16:24])
	}
	return cost, alone, aloneGas
}

// decodePolicyWord decodes a policy record's first slot.
func decodePolicyWord(w Hash) policyRec {
	if w[0] != 1 {
		return policyRec{}
	}
	return policyRec{
		exists:     true,
		index:      uint24(w[1:4]),
		depth:      binary.BigEndian.Uint32(w[4:8]),
		inputs:     binary.BigEndian.Uint32(w[8:12]),
		registrant: addrFromLow(w[:]),
	}
}

// requestRec is a request record's header slot: FHEPolicy's whole record
// (tag = the policy index), FHECRDT's first slot (tag 0; the state id
// follows).
type requestRec struct {
	exists    bool
	deposit   bool // holds its policy's deposit (deposit.go)
	tag       uint32
	block     uint64
	requester Address
}

func encodeReqHeader(tag uint32, block uint64, requester Address, deposit bool) Hash {
	var w Hash
	w[0] = 1
	if deposit {
		w[0] |= reqDeposit
	}
	putUint24(w[1:4], tag)
	binary.BigEndian.PutUint64(w[4:12], block)
	copy(w[12:], requester[:])
	return w
}

func decodeReqHeader(w Hash) requestRec {
	if w[0] != 1 && w[0] != 1|reqDeposit {
		return requestRec{}
	}
	return requestRec{exists: true, deposit: w[0]&reqDeposit != 0, tag: uint24(w[1:4]), block: binary.BigEndian.Uint64(w[4:12]), requester: addrFromLow(w[:])}
}

func uint24(b []byte) uint32 { return uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2]) }

func putUint24(b []byte, v uint32) { b[0], b[1], b[2] = byte(v>>16), byte(v>>8), byte(v) }

// loadPolicyRequest reads FHEPolicy request req and the id of its policy (two
// reads).
func loadPolicyRequest(get reader, req Hash) (requestRec, Hash) {
	r := decodeReqHeader(get(policyReqSlot(req)))
	if !r.exists {
		return r, Hash{}
	}
	return r, get(policyIndexSlot(r.tag))
}

// RequestID is the id of the nonce-th request issued by precompile (FHEPolicy
// or FHECRDT) on chain chainID, binding what was requested:
//
//	keccak256("fhegate/request/v2" || chainId(32) || precompile(20) ||
//	          nonce(32) || requester(20) || ref(32) || extra(32))
//
// For FHEPolicy.evaluate ref is the policy id and extra HandlesHash(handles);
// for FHECRDT.value ref is the state id and extra CRDTValuePolicyID. Two chains
// sharing a chain id and a committee therefore get different ids for
// different requests, and a verdict signed for one request cannot be
// submitted for another that merely has the same nonce.
func RequestID(chainID *big.Int, precompile Address, nonce uint64, requester Address, ref, extra Hash) Hash {
	cid := bigWord(chainIDWord(chainID))
	nw := u64Word(nonce)
	return Keccak256([]byte("fhegate/request/v2"), cid[:], precompile[:], nw[:], requester[:], ref[:], extra[:])
}

// HandlesHash is keccak256(abi.encodePacked(handles)): the handles of an
// evaluation request, in order (stored with the request and bound into its id).
func HandlesHash(handles []Hash) Hash {
	packed := make([]byte, 0, 32*len(handles))
	for _, h := range handles {
		packed = append(packed, h[:]...)
	}
	return Keccak256(packed)
}

// chargedRequestID charges the nonce write (GasWrite the first time,
// GasUpdate after; the read is in the caller's static gas) and returns
// newRequestID.
func chargedRequestID(cl *call, nonceSlot Hash, ref, extra Hash) (Hash, error) {
	if err := cl.chargeStore(nonceSlot); err != nil {
		return Hash{}, err
	}
	return newRequestID(cl, nonceSlot, ref, extra), nil
}

func newRequestID(cl *call, nonceSlot Hash, ref, extra Hash) Hash {
	n := cl.st.get(nonceSlot)
	nonce := binary.BigEndian.Uint64(n[24:])
	id := RequestID(cl.env.ChainID(), cl.c.addr, nonce, cl.caller, ref, extra)
	cl.st.set(nonceSlot, u64Word(nonce+1))
	return id
}

var (
	// static: the spec-hash index and the policy record (the cost of
	// re-registering a known spec); a compile, the index write and
	// gasPolicyRecord are charged only when the spec is new
	gasPolicyRegister = GasRead + 3*GasRead
	// the record's 3 writes, the index slot's write (the counter's read; its
	// write is charged by chargeStore), log
	gasPolicyRecord = 4*GasWrite + GasRead + logGas(3, 7*32)
	// policy record, nonce read (its write is charged by chargeStore), the
	// request's one write, queue and policy-batch reads (writes by
	// chargeStore), log
	gasPolicyEvaluate = 2*GasRead /*policy word, cost*/ + GasRead /*nonce*/ + GasWrite + 2*GasRead /*queue*/ + logGas(4, 3*32)
	// per handle: the log word; the input-set check once (its slot, and its
	// ACL when the set exists and the caller is not its owner); and, when
	// the handles are not one registered set the caller may use, the
	// per-handle ACL check (handle, acl, transient)
	gasPolicyPerHandle = GasLogByte * 32
	gasPolicySetCheck  = GasRead
	gasPolicySetACL    = GasRead
	gasPolicyHandleACL = 2*GasRead + GasTRead
	// evaluateRooted: the committee header and the root slot (its write,
	// when a signature is verified, by chargeStore; the pairing by
	// verifyCommitteeSig); per path level one keccak of 65 bytes and its
	// calldata word, rounded up
	gasPolicyRooted    = 2 * GasRead
	gasPolicyRootLevel = uint64(100)
	gasPolicyOf        = 3 * GasRead
	gasPolicyRequestOf = 2 * GasRead
	gasPolicyDepositOf = 2 * GasRead
)

// policyMethods is FHEPolicy's method table.
func (s *Suite) policyMethods() []methodSpec {
	return []methodSpec{
		{name: "registerPolicy", gas: gasPolicyRegister, run: s.policyRegister},
		{name: "evaluate", payable: true, gas: gasPolicyEvaluate, run: s.policyEvaluate},
		{name: "evaluateAttested", payable: true, gas: gasPolicyEvaluate, maxInput: 32 + maxRegisterBatchInput, run: s.policyEvaluateAttested},
		{name: "evaluateRooted", payable: true, gas: gasPolicyEvaluate + gasPolicyRooted, maxInput: maxEvaluateRootedInput, run: s.policyEvaluateRooted},
		{name: "policyOf", readOnly: true, gas: gasPolicyOf, run: s.policyOf},
		{name: "depositOf", readOnly: true, gas: gasPolicyDepositOf, run: s.policyDepositOf},
		{name: "requestOf", readOnly: true, gas: gasPolicyRequestOf, run: s.policyRequestOf},
	}
}

// AdmitPolicy is what FHEPolicy.registerPolicy decides about a spec once
// its length is within [1, MaxSpecBytes]: it compiles it and refuses a zero
// plan hash, a per-request cost above MaxPlanCost, a policy evaluated alone
// whose one evaluation (AloneGas) is zero or exceeds CommitteeGasPerBlock
// (no block could ever queue a request of it) and more than MaxHandles
// inputs. `fhegate policy inspect` calls it too, so that the CLI and the
// chain accept exactly the same specs.
func AdmitPolicy(c PolicyCompiler, spec []byte) (PlanInfo, error) {
	info, err := c.Compile(spec)
	if err != nil {
		return PlanInfo{}, fmt.Errorf("compile: %w", err)
	}
	if info.PlanHash.IsZero() {
		return PlanInfo{}, errors.New("compiler returned a zero plan hash")
	}
	if info.Cost > MaxPlanCost {
		return PlanInfo{}, fmt.Errorf("plan cost %d exceeds %d", info.Cost, MaxPlanCost)
	}
	switch {
	case info.Alone && info.AloneGas == 0:
		return PlanInfo{}, errors.New("compiler returned a policy evaluated alone without its evaluation's gas")
	case info.Alone && info.AloneGas > CommitteeGasPerBlock:
		return PlanInfo{}, fmt.Errorf("the policy has no packed form, so each request is a whole evaluation of %d gas, more than the committee's per-block budget %d: no block could queue it",
			info.AloneGas, uint64(CommitteeGasPerBlock))
	case !info.Alone:
		info.AloneGas = 0
	}
	if info.Inputs > MaxHandles {
		return PlanInfo{}, fmt.Errorf("plan takes %d inputs, max %d", info.Inputs, MaxHandles)
	}
	return info, nil
}

// policyRegister implements FHEPolicy.registerPolicy.
func (s *Suite) policyRegister(cl *call, a []any) ([]any, error) {
	spec, err := argBytes(a[0])
	if err != nil {
		return nil, err
	}
	if len(spec) == 0 || len(spec) > MaxSpecBytes {
		return nil, revertf("FHEPolicy.registerPolicy: spec length %d outside [1,%d]", len(spec), MaxSpecBytes)
	}
	// A spec registered before is found through the spec-hash index and costs
	// the static reads only: re-registration never runs the compiler (the
	// policy id is the plan hash, known only after compiling).
	specKey := policySpecSlot(Keccak256(spec))
	if known := cl.st.get(specKey); !known.IsZero() && loadPolicy(cl.st.get, known).exists {
		return []any{outHash(known)}, nil // idempotent
	}
	// compile and event data are proportional to the spec size
	if err := cl.charge(GasCompileBase + GasCompileByte*uint64(len(spec)) + GasLogByte*32*words(len(spec))); err != nil {
		return nil, err
	}
	info, err := AdmitPolicy(s.compiler, spec)
	if err != nil {
		return nil, revertf("FHEPolicy.registerPolicy: %v", err)
	}
	id := info.PlanHash
	if err := cl.charge(GasWrite); err != nil { // the spec-hash index
		return nil, err
	}
	cl.st.set(specKey, id)
	if loadPolicy(cl.st.get, id).exists {
		return []any{outHash(id)}, nil // idempotent (another spec with the same plan)
	}
	if err := cl.charge(gasPolicyRecord); err != nil {
		return nil, err
	}
	if err := cl.chargeStore(policyCountSlot); err != nil {
		return nil, err
	}
	index := u64FromWord(cl.st.get(policyCountSlot)) + 1
	if index > MaxPolicies {
		return nil, revertf("FHEPolicy.registerPolicy: %d policies registered, the most a chain can hold", MaxPolicies)
	}
	cl.st.set(policyCountSlot, u64Word(index))
	cl.st.set(policyIndexSlot(uint32(index)), id)
	base := policySlot(id)
	var w Hash
	w[0] = 1
	putUint24(w[1:4], uint32(index))
	binary.BigEndian.PutUint32(w[4:8], info.Depth)
	binary.BigEndian.PutUint32(w[8:12], info.Inputs)
	copy(w[12:], cl.caller[:])
	cl.st.set(base, w)
	cl.st.set(addOffset(base, 1), encodeCostWord(info.Cost, info.Alone, info.AloneGas))
	cl.st.set(addOffset(base, 2), info.PlanHash)
	if err := cl.emit("PolicyRegistered", [32]byte(id), outAddr(cl.caller), [32]byte(info.PlanHash), info.Depth, info.Cost, info.Inputs, spec); err != nil {
		return nil, err
	}
	return []any{outHash(id)}, nil
}

// policyEvaluate implements FHEPolicy.evaluate: the caller must be allowed
// on the inputs — one registered input set it may use, or every handle. The
// handles are the policy's K inputs, one ciphertext each, or for K > 1 one
// vector input holding all K (request, inputCountAllowed).
func (s *Suite) policyEvaluate(cl *call, a []any) ([]any, error) {
	id, err := argHash(a[0])
	if err != nil {
		return nil, err
	}
	hs, err := argHashes(a[1])
	if err != nil {
		return nil, err
	}
	if len(hs) == 0 || len(hs) > MaxHandles {
		return nil, revertf("FHEPolicy.evaluate: %d handles outside [1,%d]", len(hs), MaxHandles)
	}
	if err := cl.charge(gasPolicySetCheck); err != nil {
		return nil, err
	}
	return s.request(cl, "evaluate", id, hs, func(hh Hash) error {
		get := func(k Hash) Hash { return cl.env.PeerState(FHEInputAddress, k) }
		getT := func(k Hash) Hash { return cl.env.PeerTransientState(FHEInputAddress, k) }
		// the set slot's read is in gasPolicySetCheck; its ACL slot is read,
		// and charged, only when the set exists and the caller is not its owner
		ok, err := setAllowed(get, hh, cl.caller, func() error { return cl.charge(gasPolicySetACL) })
		if err != nil || ok {
			return err
		}
		// not one input set the caller may use: every handle
		if err := cl.charge(gasPolicyHandleACL * uint64(len(hs))); err != nil {
			return err
		}
		for i, h := range hs {
			if !allowedOn(get, getT, h, cl.caller) {
				return revertf("FHEPolicy.evaluate: caller %s is not allowed on handle %d (%s)", cl.caller, i, h)
			}
		}
		return nil
	})
}

// policyEvaluateAttested implements FHEPolicy.evaluateAttested: the inputs
// are authorised by the committee's attestation of the caller's upload
// (FHEInput.registerBatch's arguments with owner = caller, one pairing),
// not by FHEInput state, and nothing is stored for them. Like evaluate's,
// the handles are K ciphertexts or one vector input (inputCountAllowed).
func (s *Suite) policyEvaluateAttested(cl *call, a []any) ([]any, error) {
	id, err := argHash(a[0])
	if err != nil {
		return nil, err
	}
	// decodeInputBatch bounds the handles by MaxInputBatch = MaxHandles
	b, err := decodeInputBatch(append([]any{common.Address(cl.caller)}, a[1:]...), "FHEPolicy.evaluateAttested")
	if err != nil {
		return nil, err
	}
	return s.request(cl, "evaluateAttested", id, b.handles(), func(Hash) error {
		_, err := b.verify(cl)
		return err
	})
}

// policyEvaluateRooted implements FHEPolicy.evaluateRooted: the inputs are
// authorised like evaluateAttested's, but by the committee's signature over a
// Merkle root of many uploads' attestation digests (bls.InputRootDigest;
// consensus: rooted uploads). The leaf is the caller's own upload digest,
// bls.InputBatchDigest(chainId, epoch, caller, preset, InputBatchRoot(items))
// for the current committee epoch, and its path must lead to root. A root is
// verified (one pairing) by the first request that uses it in an epoch and
// remembered (slot("po.rt", root) = epoch + 1); later requests under the
// same root pass an empty signature and pay two reads and the path's hashes.
// Like evaluate's, the handles are K ciphertexts or one vector input
// (inputCountAllowed): a vector input's upload is its one item.
func (s *Suite) policyEvaluateRooted(cl *call, a []any) ([]any, error) {
	const method = "FHEPolicy.evaluateRooted"
	id, err := argHash(a[0])
	if err != nil {
		return nil, err
	}
	root, err := argHash(a[5])
	if err != nil {
		return nil, err
	}
	index, err := argU32(a[6])
	if err != nil {
		return nil, err
	}
	path, err := argHashes(a[7])
	if err != nil {
		return nil, err
	}
	if len(path) > bls.MaxInputRootDepth || uint64(index)>>uint(len(path)) != 0 {
		return nil, revertf("%s: index %d and %d path siblings (at most %d) do not describe a leaf", method, index, len(path), bls.MaxInputRootDepth)
	}
	if err := cl.charge(gasPolicyRootLevel * uint64(len(path))); err != nil {
		return nil, err
	}
	// decodeInputBatch bounds the handles by MaxInputBatch = MaxHandles
	b, err := decodeInputBatch([]any{common.Address(cl.caller), a[1], a[2], a[3], a[4], a[8], a[9]}, method)
	if err != nil {
		return nil, err
	}
	return s.request(cl, "evaluateRooted", id, b.handles(), func(Hash) error {
		return b.verifyRooted(cl, root, index, path)
	})
}

// verifyRooted checks that the upload's digest under the current committee
// epoch is leaf index of root, and that root is signed: remembered from an
// earlier request of this epoch, or verified now against b.sig and
// remembered.
func (b *inputBatch) verifyRooted(cl *call, root Hash, index uint32, path []Hash) error {
	peer := func(k Hash) Hash { return cl.env.PeerState(FHEVerdictAddress, k) }
	h := decodeHeader(peer(keyCommittee))
	if !h.Present || h.Size == 0 {
		return revertf("%s: no committee registered", b.method)
	}
	chainID := chainIDWord(cl.env.ChainID())
	leaf := bls.InputBatchDigest(chainID, h.Epoch, b.owner, b.preset, bls.InputBatchRoot(b.items))
	got, err := bls.InputRootFromPath(leaf, uint64(index), outHashes(path))
	if err != nil || Hash(got) != root {
		return revertf("%s: the upload of %s (epoch %d) is not leaf %d of root %s", b.method, b.owner, h.Epoch, index, root)
	}
	rslot := policyRootSlot(root)
	if u64FromWord(cl.st.get(rslot)) == h.Epoch+1 {
		return nil // signed, and verified by an earlier request of this epoch
	}
	if len(b.sig) == 0 {
		return revertf("%s: root %s is not yet verified in epoch %d: pass the committee's signature over it", b.method, root, h.Epoch)
	}
	hdr, _, err := verifyCommitteeSig(cl, b.method+": root attestation", peer, func(epoch uint64) [32]byte {
		return bls.InputRootDigest(chainID, epoch, root)
	}, b.sig, b.signers)
	if err != nil {
		return err
	}
	if err := cl.chargeStore(rslot); err != nil {
		return err
	}
	cl.st.set(rslot, u64Word(hdr.Epoch+1))
	return nil
}

// inputCountAllowed reports whether a request of a policy of k inputs may
// name n handles: k handles (one ciphertext per input), or, for k > 1,
// exactly one (a vector input: one ciphertext holding the k attributes in
// k slots of every aligned block of VectorStride(k) slots, fhe.VectorInts;
// the committee tells the two formats apart by the handle count). k = 0 (a
// plan that does not say) accepts any count.
func inputCountAllowed(k uint32, n int) bool {
	return k == 0 || int(k) == n || n == 1
}

// request is evaluate's common path once the handles are decoded: charge
// the log words, check the policy and its input count (inputCountAllowed:
// p.inputs handles, or 1 vector-input handle), charge its cost, book the
// queue, authorise the inputs (authorize gets their handlesHash), record
// the request and emit EvaluationRequested. A vector input is one handle in
// every respect: per-handle gas, handlesHash and the event are of the 1
// handle, and authorize checks it alone.
func (s *Suite) request(cl *call, method string, id Hash, hs []Hash, authorize func(hh Hash) error) ([]any, error) {
	if err := cl.charge(gasPolicyPerHandle * uint64(len(hs))); err != nil {
		return nil, err
	}
	p := loadPolicyCost(cl.st.get, id)
	if !p.exists {
		return nil, revertf("FHEPolicy.%s: unknown policy %s", method, id)
	}
	if !inputCountAllowed(p.inputs, len(hs)) {
		return nil, revertf("FHEPolicy.%s: policy takes %d inputs: pass %d handles (one ciphertext per input) or 1 (a vector input holding all %d), got %d",
			method, p.inputs, p.inputs, p.inputs, len(hs))
	}
	held, err := checkDeposit(cl, method, id, p)
	if err != nil {
		return nil, err
	}
	if err := cl.charge(p.cost); err != nil {
		return nil, err
	}
	if err := queueRequest(cl, id, p); err != nil {
		return nil, err
	}
	hh := HandlesHash(hs)
	if err := authorize(hh); err != nil {
		return nil, err
	}
	req, err := chargedRequestID(cl, policyNonceSlot, id, hh)
	if err != nil {
		return nil, err
	}
	cl.st.set(policyReqSlot(req), encodeReqHeader(p.index, cl.env.BlockNumber(), cl.caller, held))
	if err := cl.emit("EvaluationRequested", [32]byte(req), [32]byte(id), outAddr(cl.caller), outHashes(hs), p.cost); err != nil {
		return nil, err
	}
	return []any{outHash(req)}, nil
}

// queueRequest books one request of policy p (id) in this block's queue
// (BlockQueue.Book): a request of a packed policy that is the policy's first
// in the block books its whole packed evaluation (cost × BatchOccupancy) and
// later ones share it; a request of a policy evaluated alone books its own
// whole evaluation (p.aloneGas) every time, with no batch marker. The gas
// charged does not depend on the block: eth_estimateGas runs at the head
// block and the transaction in the next, so a packed policy's marker write
// is charged whether or not this request opens the block's evaluation, and
// an alone policy never touches a marker. Both slots are overwritten per
// block: state never grows with blocks.
func queueRequest(cl *call, id Hash, p policyRec) error {
	if err := cl.chargeStore(policyQueueSlot); err != nil {
		return err
	}
	now := cl.env.BlockNumber()
	q := decodeBlockQueue(cl.st.get(policyQueueSlot))
	if p.alone {
		if err := q.Book(now, p.aloneGas, "a request of policy "+id.String()+" evaluated alone"); err != nil {
			return err
		}
		cl.st.set(policyQueueSlot, q.encode())
		return nil
	}
	bslot := policyBatchSlot(id)
	if err := cl.chargeStore(bslot); err != nil {
		return err
	}
	if u64FromWord(cl.st.get(bslot)) == now+1 { // stored as block+1: block 0 is a block too
		if err := q.Book(now, 0, ""); err != nil { // joins the block's evaluation
			return err
		}
	} else {
		if err := q.Book(now, p.cost*BatchOccupancy, "a new evaluation of policy "+id.String()); err != nil { // cost ≤ MaxPlanCost: no overflow
			return err
		}
		cl.st.set(bslot, u64Word(now+1))
	}
	cl.st.set(policyQueueSlot, q.encode())
	return nil
}

// BlockQueue is FHEPolicy's per-block request queue (slot "po.q"): the
// block it counts, the requests queued in that block and the committee gas
// booked in it against CommitteeGasPerBlock.
type BlockQueue struct {
	Block, Requests, Booked uint64
}

func decodeBlockQueue(w Hash) BlockQueue {
	return BlockQueue{Block: binary.BigEndian.Uint64(w[0:8]), Requests: binary.BigEndian.Uint64(w[8:16]), Booked: binary.BigEndian.Uint64(w[16:24])}
}

func (q BlockQueue) encode() Hash {
	var w Hash
	binary.BigEndian.PutUint64(w[0:8], q.Block)
	binary.BigEndian.PutUint64(w[8:16], q.Requests)
	binary.BigEndian.PutUint64(w[16:24], q.Booked)
	return w
}

// Book queues one request in block now that books evalGas of committee
// work (0: it joins an evaluation booked earlier in the block; what names
// the evaluation otherwise, for the revert reason). A queue of an earlier
// block starts afresh. Beyond MaxRequestsPerBlock requests or
// CommitteeGasPerBlock of booked gas it fails with ErrQueueFull (an
// FHEPolicy.evaluate revert) and leaves q unchanged. FHEPolicy.evaluate
// books every request with it; the committee's booked-work tests replay a
// block's requests through it.
func (q *BlockQueue) Book(now, evalGas uint64, what string) error {
	n, booked := uint64(0), uint64(0)
	if q.Block == now {
		n, booked = q.Requests, q.Booked
	}
	if n >= MaxRequestsPerBlock {
		return revertWith(ErrQueueFull, "FHEPolicy.evaluate", "block %d already queued %d requests (MaxRequestsPerBlock); retry in a later block", now, n)
	}
	if booked > CommitteeGasPerBlock || evalGas > CommitteeGasPerBlock-booked {
		return revertWith(ErrQueueFull, "FHEPolicy.evaluate", "block %d already booked %d of the committee's %d gas; %s needs %d; retry in a later block",
			now, booked, uint64(CommitteeGasPerBlock), what, evalGas)
	}
	*q = BlockQueue{Block: now, Requests: n + 1, Booked: booked + evalGas}
	return nil
}

// policyOf implements FHEPolicy.policyOf.
func (s *Suite) policyOf(cl *call, a []any) ([]any, error) {
	id, err := argHash(a[0])
	if err != nil {
		return nil, err
	}
	p := loadPolicy(cl.st.get, id)
	return []any{p.exists, outHash(p.planHash), p.depth, p.cost, p.inputs, outAddr(p.registrant)}, nil
}

// policyDepositOf implements FHEPolicy.depositOf: the call value a request
// of the policy must carry (deposit.go).
func (s *Suite) policyDepositOf(cl *call, a []any) ([]any, error) {
	id, err := argHash(a[0])
	if err != nil {
		return nil, err
	}
	p := loadPolicyCost(cl.st.get, id)
	if !p.exists {
		return nil, revertf("FHEPolicy.depositOf: unknown policy %s", id)
	}
	return []any{depositOf(cl, p)}, nil
}

// policyRequestOf implements FHEPolicy.requestOf.
func (s *Suite) policyRequestOf(cl *call, a []any) ([]any, error) {
	id, err := argHash(a[0])
	if err != nil {
		return nil, err
	}
	r, pid := loadPolicyRequest(cl.st.get, id)
	return []any{r.exists, outHash(pid), outAddr(r.requester), r.block}, nil
}
