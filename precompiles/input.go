package precompiles

import (
	"encoding/binary"

	"github.com/fhegate/fhegate/bls"
)

// FHEInput storage:
//
//	slot("in.h", handle)          [0]=1, [1]=preset, [2]=ctype, [3:11]=epoch, owner at [12:32]
//	slot("in.acl", handle, acct)  1 if acct may use handle
//	transient slot("in.tacl", handle, acct)  1 for the rest of the transaction
//	slot("in.set", setId)         [0]=1, [1]=preset, [2:4]=count, [4:12]=epoch, owner at [12:32]
//	slot("in.sacl", setId, acct)  1 if acct may evaluate on the set
//
// One packed slot per registered handle: the owner needs no ACL slot of its
// own, so registering a handle costs one cold read (is it new?) and one
// write. registerSet stores one slot for a whole upload instead (setId =
// HandlesHash of its handles): FHEPolicy.evaluate with exactly that list
// checks one slot, not one per handle.

func handleSlot(h Hash) Hash                  { return slot("in.h", h[:]) }
func setSlot(id Hash) Hash                    { return slot("in.set", id[:]) }
func setACLSlot(id Hash, a Address) Hash      { return slot("in.sacl", id[:], a[:]) }
func aclSlot(h Hash, a Address) Hash          { return slot("in.acl", h[:], a[:]) }
func transientACLSlot(h Hash, a Address) Hash { return slot("in.tacl", h[:], a[:]) }

var one = Hash{31: 1}

// Ciphertext type tags (ctype) FHEInput.registerBatch accepts. The committee
// signs the tag the uploader chose; the precompile checks it so that
// contracts can rely on handleInfo's ctype. CTypeCiphertext is a canonical
// fhe ciphertext (fhe.KindCiphertext in the wire format) — the only type the
// committee's upload path stores today. Add a tag here when a new ciphertext
// type exists.
const CTypeCiphertext uint8 = 1

func allowedCType(ctype uint8) bool { return ctype == CTypeCiphertext }

type handleRec struct {
	exists        bool
	preset, ctype uint8
	epoch         uint64 // committee epoch of the attestation that registered it
	owner         Address
}

func decodeHandle(w Hash) handleRec {
	return handleRec{exists: w[0] == 1, preset: w[1], ctype: w[2], epoch: binary.BigEndian.Uint64(w[3:11]), owner: addrFromLow(w[:])}
}

func (r handleRec) encode() Hash {
	var w Hash
	w[0], w[1], w[2] = 1, r.preset, r.ctype
	binary.BigEndian.PutUint64(w[3:11], r.epoch)
	copy(w[12:], r.owner[:])
	return w
}

type setRec struct {
	exists bool
	preset uint8
	count  uint16
	epoch  uint64
	owner  Address
}

func decodeSet(w Hash) setRec {
	return setRec{exists: w[0] == 1, preset: w[1], count: binary.BigEndian.Uint16(w[2:4]), epoch: binary.BigEndian.Uint64(w[4:12]), owner: addrFromLow(w[:])}
}

func (r setRec) encode() Hash {
	var w Hash
	w[0], w[1] = 1, r.preset
	binary.BigEndian.PutUint16(w[2:4], r.count)
	binary.BigEndian.PutUint64(w[4:12], r.epoch)
	copy(w[12:], r.owner[:])
	return w
}

// allowedOn reports whether acct may use handle: owner, persistent ACL, or
// transient ACL. get/getT read FHEInput's persistent/transient storage.
func allowedOn(get, getT reader, h Hash, acct Address) bool {
	rec := decodeHandle(get(handleSlot(h)))
	if !rec.exists {
		return false
	}
	if rec.owner == acct {
		return true
	}
	if get(aclSlot(h, acct)) == one {
		return true
	}
	return getT(transientACLSlot(h, acct)) == one
}

// grantableOn reports whether acct may grant access to handle or capture it
// in a CRDT state: the owner or a persistent ACL entry. Transient access
// (allowTransient) only lets acct use the handle within the transaction; were
// it enough to grant, a transient grantee could allow itself and keep access
// for ever.
func grantableOn(get reader, h Hash, acct Address) bool {
	rec := decodeHandle(get(handleSlot(h)))
	return rec.exists && (rec.owner == acct || get(aclSlot(h, acct)) == one)
}

// MaxInputBatch bounds the handles of one FHEInput.registerBatch (the
// committee's upload API accepts fewer per request: consensus/api.MaxUploadItems).
const MaxInputBatch = MaxHandles

// maxRegisterBatchInput bounds registerBatch's calldata (after the selector):
// seven head words, three arrays of at most MaxInputBatch words with their
// length words, the 96-byte signature and a signer bitmap of at most
// MaxCommitteeSize bits, each with its length word.
const maxRegisterBatchInput = 7*32 + 3*(32+32*MaxInputBatch) + (32 + 96) + (32 + MaxCommitteeSize/8)

// Gas of FHEInput methods (static part; see docs/gas.md). registerBatch
// charges gasInputPerHandle per handle once the counts are checked, and the
// BLS verification (GasBLSVerify + GasBLSPerMember per member) before it
// verifies.
var (
	gasInputRegisterBatch = GasRead /*committee header*/
	gasInputPerHandle     = GasRead /*handle*/ + GasWrite + logGas(3, 96)
	gasInputRegisterSet   = 2*GasRead /*committee header, set*/ + GasWrite + logGas(3, 128)
	gasInputSetPerHandle  = GasLogByte * 32 // the handle in the event
	gasInputAllowSet      = 2*GasRead + GasWrite + logGas(3, 0)
	gasInputSetInfo       = GasRead
	gasInputAllow         = 3*GasRead + GasWrite + logGas(3, 32)
	gasInputAllowT        = 3*GasRead + GasTWrite + logGas(3, 32)
	gasInputIsAllowed     = 2*GasRead + GasTRead
	gasInputHandleInfo    = GasRead
)

// inputMethods is FHEInput's method table.
func (s *Suite) inputMethods() []methodSpec {
	return []methodSpec{
		{name: "registerBatch", gas: gasInputRegisterBatch, maxInput: maxRegisterBatchInput, run: s.inputRegisterBatch},
		{name: "registerSet", gas: gasInputRegisterSet, maxInput: maxRegisterBatchInput, run: s.inputRegisterSet},
		{name: "allowSet", gas: gasInputAllowSet, run: s.inputAllowSet},
		{name: "setInfo", readOnly: true, gas: gasInputSetInfo, run: s.inputSetInfo},
		{name: "allow", gas: gasInputAllow, run: s.inputAllow},
		{name: "allowTransient", gas: gasInputAllowT, run: s.inputAllowTransient},
		{name: "isAllowed", readOnly: true, gas: gasInputIsAllowed, run: s.inputIsAllowed},
		{name: "handleInfo", readOnly: true, gas: gasInputHandleInfo, run: s.inputHandleInfo},
	}
}

// inputBatch is registerBatch's decoded arguments.
type inputBatch struct {
	method       string // Contract.method, for reverts
	owner        Address
	preset       uint8
	items        []bls.InputItem
	sig, signers []byte
}

// decodeInputBatch converts registerBatch's arguments (for method, named
// Contract.method in reverts) and checks them
// without reading state: 1 ≤ count ≤ MaxInputBatch, equal lengths, no zero
// handle or owner, every ctype allowed, no handle twice.
func decodeInputBatch(a []any, method string) (*inputBatch, error) {
	b := inputBatch{method: method}
	var err error
	if b.owner, err = argAddr(a[0]); err != nil {
		return nil, err
	}
	if b.preset, err = argU8(a[1]); err != nil {
		return nil, err
	}
	hs, err := argHashes(a[2])
	if err != nil {
		return nil, err
	}
	cts, err := argU8s(a[3])
	if err != nil {
		return nil, err
	}
	pds, err := argHashes(a[4])
	if err != nil {
		return nil, err
	}
	if b.sig, err = argBytes(a[5]); err != nil {
		return nil, err
	}
	if b.signers, err = argBytes(a[6]); err != nil {
		return nil, err
	}
	if len(hs) == 0 || len(hs) > MaxInputBatch {
		return nil, revertf("%s: %d handles outside [1,%d]", method, len(hs), MaxInputBatch)
	}
	if len(cts) != len(hs) || len(pds) != len(hs) {
		return nil, revertf("%s: %d handles, %d ctypes and %d proof digests (lengths must agree)", method, len(hs), len(cts), len(pds))
	}
	if b.owner == (Address{}) {
		return nil, revertf("%s: zero owner", method)
	}
	b.items = make([]bls.InputItem, len(hs))
	for i, h := range hs {
		if h.IsZero() {
			return nil, revertf("%s: zero handle at %d", method, i)
		}
		if !allowedCType(cts[i]) {
			return nil, revertf("%s: ciphertext type %d at %d not allowed (allowed: %d)", method, cts[i], i, CTypeCiphertext)
		}
		for j := range i { // ≤ MaxInputBatch²/2 comparisons
			if hs[j] == h {
				return nil, revertf("%s: handle %s at %d and %d", method, h, j, i)
			}
		}
		b.items[i] = bls.InputItem{Handle: h, CType: cts[i], ProofDigest: pds[i]}
	}
	return &b, nil
}

// inputRegisterBatch implements FHEInput.registerBatch: decode and check
// the set → charge per handle → refuse it whole if any handle exists → one
// aggregate verification over bls.InputBatchDigest (the proof digests are
// in the root, so the chain binds the proofs the members verified) → store
// one packed slot and emit InputRegistered per handle.
func (s *Suite) inputRegisterBatch(cl *call, a []any) ([]any, error) {
	b, err := decodeInputBatch(a, "FHEInput.registerBatch")
	if err != nil {
		return nil, err
	}
	if err := cl.charge(gasInputPerHandle * uint64(len(b.items))); err != nil {
		return nil, err
	}
	for _, it := range b.items {
		if decodeHandle(cl.st.get(handleSlot(it.Handle))).exists {
			return nil, revertf("FHEInput.registerBatch: handle %s already registered (nothing registered)", Hash(it.Handle))
		}
	}
	epoch, err := b.verify(cl)
	if err != nil {
		return nil, err
	}
	for _, it := range b.items {
		rec := handleRec{exists: true, preset: b.preset, ctype: it.CType, epoch: epoch, owner: b.owner}
		cl.st.set(handleSlot(it.Handle), rec.encode())
		if err := cl.emit("InputRegistered", it.Handle, outAddr(b.owner), b.preset, it.CType, epoch); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// handles returns the upload's handles in order.
func (b *inputBatch) handles() []Hash {
	hs := make([]Hash, len(b.items))
	for i, it := range b.items {
		hs[i] = it.Handle
	}
	return hs
}

// verify checks the committee's aggregate attestation of the upload
// (bls.InputBatchDigest over bls.InputBatchRoot of its items, one pairing
// check) and returns the epoch it was made in.
func (b *inputBatch) verify(cl *call) (uint64, error) {
	chainID := chainIDWord(cl.env.ChainID())
	root := bls.InputBatchRoot(b.items)
	peer := func(k Hash) Hash { return cl.env.PeerState(FHEVerdictAddress, k) }
	hdr, _, err := verifyCommitteeSig(cl, b.method+": attestation", peer, func(epoch uint64) [32]byte {
		return bls.InputBatchDigest(chainID, epoch, b.owner, b.preset, root)
	}, b.sig, b.signers)
	return hdr.Epoch, err
}

// inputRegisterSet implements FHEInput.registerSet: the checks and the
// attestation of registerBatch (the committee signs the same digest), then
// one slot for the set, keyed by HandlesHash of its handles, and one
// InputSetRegistered event.
func (s *Suite) inputRegisterSet(cl *call, a []any) ([]any, error) {
	b, err := decodeInputBatch(a, "FHEInput.registerSet")
	if err != nil {
		return nil, err
	}
	if err := cl.charge(gasInputSetPerHandle * uint64(len(b.items))); err != nil {
		return nil, err
	}
	hs := b.handles()
	id := HandlesHash(hs)
	if decodeSet(cl.st.get(setSlot(id))).exists {
		return nil, revertf("FHEInput.registerSet: set %s already registered", id)
	}
	epoch, err := b.verify(cl)
	if err != nil {
		return nil, err
	}
	cl.st.set(setSlot(id), setRec{exists: true, preset: b.preset, count: uint16(len(hs)), epoch: epoch, owner: b.owner}.encode())
	if err := cl.emit("InputSetRegistered", [32]byte(id), outAddr(b.owner), b.preset, epoch, outHashes(hs)); err != nil {
		return nil, err
	}
	return []any{outHash(id)}, nil
}

// setAllowed reports whether acct may evaluate on input set id: its owner
// or an account allowed on it. get reads FHEInput's storage; beforeACL, if
// not nil, runs before the set's ACL slot is read (only when the set exists
// and acct is not its owner) and may refuse (FHEPolicy.evaluate charges
// that read there).
func setAllowed(get reader, id Hash, acct Address, beforeACL func() error) (bool, error) {
	rec := decodeSet(get(setSlot(id)))
	if !rec.exists {
		return false, nil
	}
	if rec.owner == acct {
		return true, nil
	}
	if beforeACL != nil {
		if err := beforeACL(); err != nil {
			return false, err
		}
	}
	return get(setACLSlot(id, acct)) == one, nil
}

// inputAllowSet implements FHEInput.allowSet.
func (s *Suite) inputAllowSet(cl *call, a []any) ([]any, error) {
	id, acct, err := grantArgs(a, "allowSet")
	if err != nil {
		return nil, err
	}
	if !decodeSet(cl.st.get(setSlot(id))).exists {
		return nil, revertf("FHEInput.allowSet: unknown set %s", id)
	}
	if ok, _ := setAllowed(cl.st.get, id, cl.caller, nil); !ok {
		return nil, revertf("FHEInput.allowSet: caller %s is not allowed to grant set %s (owner or an allowed account only)", cl.caller, id)
	}
	cl.st.set(setACLSlot(id, acct), one)
	return nil, cl.emit("SetAllowed", [32]byte(id), outAddr(acct))
}

// inputSetInfo implements FHEInput.setInfo.
func (s *Suite) inputSetInfo(cl *call, a []any) ([]any, error) {
	id, err := argHash(a[0])
	if err != nil {
		return nil, err
	}
	r := decodeSet(cl.st.get(setSlot(id)))
	return []any{r.exists, outAddr(r.owner), r.preset, r.epoch, r.count}, nil
}

// inputAllow implements FHEInput.allow.
func (s *Suite) inputAllow(cl *call, a []any) ([]any, error) { return grant(cl, a, false) }

// inputAllowTransient implements FHEInput.allowTransient.
func (s *Suite) inputAllowTransient(cl *call, a []any) ([]any, error) { return grant(cl, a, true) }

// grant is allow (persistent ACL) and allowTransient (transient ACL).
func grant(cl *call, a []any, transient bool) ([]any, error) {
	name := "allow"
	if transient {
		name = "allowTransient"
	}
	h, acct, err := grantArgs(a, name)
	if err != nil {
		return nil, err
	}
	if !decodeHandle(cl.st.get(handleSlot(h))).exists {
		return nil, revertf("FHEInput.%s: unknown handle %s", name, h)
	}
	if !grantableOn(cl.st.get, h, cl.caller) {
		return nil, revertf("FHEInput.%s: caller %s is not allowed to grant handle %s (owner or persistent ACL only)", name, cl.caller, h)
	}
	if transient {
		cl.st.setT(transientACLSlot(h, acct), one)
	} else {
		cl.st.set(aclSlot(h, acct), one)
	}
	return nil, cl.emit("Allowed", [32]byte(h), outAddr(acct), transient)
}

// grantArgs decodes the (bytes32, address account) of an FHEInput grant
// method and refuses the zero account.
func grantArgs(a []any, method string) (Hash, Address, error) {
	id, err := argHash(a[0])
	if err != nil {
		return Hash{}, Address{}, err
	}
	acct, err := argAddr(a[1])
	if err != nil {
		return Hash{}, Address{}, err
	}
	if acct == (Address{}) {
		return Hash{}, Address{}, revertf("FHEInput.%s: zero account", method)
	}
	return id, acct, nil
}

// inputIsAllowed implements FHEInput.isAllowed.
func (s *Suite) inputIsAllowed(cl *call, a []any) ([]any, error) {
	h, err := argHash(a[0])
	if err != nil {
		return nil, err
	}
	acct, err := argAddr(a[1])
	if err != nil {
		return nil, err
	}
	return []any{allowedOn(cl.st.get, cl.st.getT, h, acct)}, nil
}

// inputHandleInfo implements FHEInput.handleInfo.
func (s *Suite) inputHandleInfo(cl *call, a []any) ([]any, error) {
	h, err := argHash(a[0])
	if err != nil {
		return nil, err
	}
	r := decodeHandle(cl.st.get(handleSlot(h)))
	return []any{r.exists, outAddr(r.owner), r.preset, r.ctype}, nil
}
