package precompiles

import (
	"bytes"
	"encoding/binary"
)

// FHECRDT storage:
//
//	slot("cr.s", id)+0     [0]=1, [1]=kind, owner at [12:32]
//	slot("cr.s", id)+1     handle (zero for merged states)
//	slot("cr.s", id)+2,+3  parents (lo, hi) for merged states
//	slot("cr.s", id)+4     metadata length
//	slot("cr.s", id)+5…    metadata, 32 bytes per slot
//	slot("cr.acl", id, a)  1 if a may merge / request the value of id
//	slot("cr.n")           nonce for created states
//	slot("cr.rn")          nonce for value requests
//	slot("cr.r", req)+0    request header; +1 state id

// CRDTValuePolicyID is the policy id bound into verdicts for FHECRDT.value requests.
var CRDTValuePolicyID = Keccak256([]byte("fhegate/crdt/value/v1"))

func stateSlot(id Hash) Hash               { return slot("cr.s", id[:]) }
func stateACLSlot(id Hash, a Address) Hash { return slot("cr.acl", id[:], a[:]) }
func crdtReqSlot(id Hash) Hash             { return slot("cr.r", id[:]) }

var (
	crdtNonceSlot    = slot("cr.n")
	crdtReqNonceSlot = slot("cr.rn")
)

type stateRec struct {
	exists         bool
	kind           uint8
	owner          Address
	handle, pa, pb Hash
	meta           []byte
}

func loadStateHeader(get reader, id Hash) stateRec {
	w := get(stateSlot(id))
	if w[0] != 1 {
		return stateRec{}
	}
	return stateRec{exists: true, kind: w[1], owner: addrFromLow(w[:])}
}

// loadState reads the whole record, charging per metadata word when cl != nil.
func loadState(cl *call, get reader, id Hash) (stateRec, error) {
	r := loadStateHeader(get, id)
	if !r.exists {
		return r, nil
	}
	base := stateSlot(id)
	r.handle = get(addOffset(base, 1))
	r.pa = get(addOffset(base, 2))
	r.pb = get(addOffset(base, 3))
	lw := get(addOffset(base, 4))
	n := binary.BigEndian.Uint64(lw[24:])
	for _, b := range lw[:24] {
		if b != 0 {
			return r, revertf("FHECRDT: corrupt metadata length")
		}
	}
	if n > MaxMetadataBytes {
		return r, revertf("FHECRDT: corrupt metadata length")
	}
	if cl != nil {
		if err := cl.charge(GasRead * words(int(n))); err != nil {
			return r, err
		}
	}
	meta := make([]byte, 0, words(int(n))*32)
	for i := uint64(0); i < words(int(n)); i++ {
		w := get(addOffset(base, 5+i))
		meta = append(meta, w[:]...)
	}
	r.meta = meta[:n]
	return r, nil
}

func storeState(cl *call, id Hash, r stateRec) error {
	if err := cl.charge(GasWrite * words(len(r.meta))); err != nil {
		return err
	}
	base := stateSlot(id)
	var w Hash
	w[0], w[1] = 1, r.kind
	copy(w[12:], r.owner[:])
	cl.st.set(base, w)
	cl.st.set(addOffset(base, 1), r.handle)
	cl.st.set(addOffset(base, 2), r.pa)
	cl.st.set(addOffset(base, 3), r.pb)
	cl.st.set(addOffset(base, 4), u64Word(uint64(len(r.meta))))
	for i := 0; i < len(r.meta); i += 32 {
		var m Hash
		copy(m[:], r.meta[i:])
		cl.st.set(addOffset(base, 5+uint64(i/32)), m)
	}
	return nil
}

// stateAllowed: the owner (merged states of different owners have none: the
// zero address is never an owner) or an ACL entry.
func stateAllowed(get reader, r stateRec, id Hash, a Address) bool {
	return r.exists && ((r.owner != Address{} && r.owner == a) || get(stateACLSlot(id, a)) == one)
}

var (
	gasCRDTCreate = 2*GasRead /*handle, ACL*/ + 2*GasRead + GasWrite /*nonce*/ + 5*GasWrite + logGas(3, 4*32)
	// + 1 read of the caller's ACL entry on the merged state (grantMerged charges its write)
	gasCRDTMerge   = 2*(5*GasRead) + GasRead + 2*GasRead /*ACLs*/ + GasRead + 5*GasWrite + logGas(4, 3*32)
	gasCRDTValue   = 2*GasRead + GasRead + GasWrite /*nonce*/ + 2*GasWrite + logGas(4, 32)
	gasCRDTAllow   = GasRead + GasWrite + logGas(3, 0)
	gasCRDTStateOf = 5 * GasRead
	gasCRDTReqOf   = 2 * GasRead
)

// crdtMethods is FHECRDT's method table.
func (s *Suite) crdtMethods() []methodSpec {
	return []methodSpec{
		{name: "create", gas: gasCRDTCreate, run: s.crdtCreate},
		{name: "merge", gas: gasCRDTMerge, run: s.crdtMerge},
		{name: "value", gas: gasCRDTValue, run: s.crdtValue},
		{name: "allow", gas: gasCRDTAllow, run: s.crdtAllow},
		{name: "stateOf", readOnly: true, gas: gasCRDTStateOf, run: s.crdtStateOf},
		{name: "requestOf", readOnly: true, gas: gasCRDTReqOf, run: s.crdtRequestOf},
	}
}

// crdtCreate implements FHECRDT.create.
func (s *Suite) crdtCreate(cl *call, a []any) ([]any, error) {
	kind, err := argU8(a[0])
	if err != nil {
		return nil, err
	}
	h, err := argHash(a[1])
	if err != nil {
		return nil, err
	}
	meta, err := argBytes(a[2])
	if err != nil {
		return nil, err
	}
	if kind == 0 {
		return nil, revertf("FHECRDT.create: kind 0 is reserved")
	}
	if len(meta) > MaxMetadataBytes {
		return nil, revertf("FHECRDT.create: metadata %d bytes, max %d", len(meta), MaxMetadataBytes)
	}
	if err := cl.charge(GasMergeByte*uint64(len(meta)) + GasLogByte*32*words(len(meta))); err != nil {
		return nil, err
	}
	// a state outlives the transaction, so capturing a handle in one is a
	// grant: the owner or a persistent ACL entry, never transient access
	get := func(k Hash) Hash { return cl.env.PeerState(FHEInputAddress, k) }
	if !grantableOn(get, h, cl.caller) {
		return nil, revertf("FHECRDT.create: caller %s is not allowed to grant handle %s (owner or persistent ACL only)", cl.caller, h)
	}
	if err := s.merger.Validate(kind, meta); err != nil {
		return nil, revertf("FHECRDT.create: metadata: %v", err)
	}
	refs, err := s.merger.Handles(kind, meta)
	if err != nil {
		return nil, revertf("FHECRDT.create: metadata: %v", err)
	}
	if len(refs) > MaxHandles {
		return nil, revertf("FHECRDT.create: metadata references %d handles, max %d", len(refs), MaxHandles)
	}
	if err := cl.charge((gasPolicyPerHandle + gasPolicyHandleACL) * uint64(len(refs))); err != nil {
		return nil, err
	}
	for i, r := range refs {
		if r != h && !grantableOn(get, r, cl.caller) {
			return nil, revertf("FHECRDT.create: caller %s is not allowed to grant metadata handle %d (%s) (owner or persistent ACL only)", cl.caller, i, r)
		}
	}
	n := cl.st.get(crdtNonceSlot)
	cid := bigWord(chainIDWord(cl.env.ChainID()))
	id := Keccak256([]byte("fhegate/crdt/state/v1"), cid[:], n[:])
	cl.st.set(crdtNonceSlot, u64Word(binary.BigEndian.Uint64(n[24:])+1))
	if err := storeState(cl, id, stateRec{exists: true, kind: kind, owner: cl.caller, handle: h, meta: meta}); err != nil {
		return nil, err
	}
	if err := cl.emit("StateCreated", [32]byte(id), outAddr(cl.caller), kind, [32]byte(h), meta); err != nil {
		return nil, err
	}
	return []any{outHash(id)}, nil
}

// crdtMerge implements FHECRDT.merge.
func (s *Suite) crdtMerge(cl *call, a []any) ([]any, error) {
	x, err := argHash(a[0])
	if err != nil {
		return nil, err
	}
	y, err := argHash(a[1])
	if err != nil {
		return nil, err
	}
	lo, hi := x, y
	if bytes.Compare(lo[:], hi[:]) > 0 {
		lo, hi = hi, lo
	}
	ra, err := loadState(cl, cl.st.get, lo)
	if err != nil {
		return nil, err
	}
	rb, err := loadState(cl, cl.st.get, hi)
	if err != nil {
		return nil, err
	}
	if !ra.exists || !rb.exists {
		return nil, revertf("FHECRDT.merge: unknown state")
	}
	if ra.kind != rb.kind {
		return nil, revertf("FHECRDT.merge: kinds differ (%d, %d)", ra.kind, rb.kind)
	}
	if !stateAllowed(cl.st.get, ra, lo, cl.caller) || !stateAllowed(cl.st.get, rb, hi, cl.caller) {
		return nil, revertf("FHECRDT.merge: caller %s is not allowed on both states", cl.caller)
	}
	if lo == hi {
		return []any{outHash(lo)}, nil // merge is idempotent
	}
	// Ownership of the merged state must not depend on who merged first (its
	// id is keccak(lo, hi), so the first merger could otherwise squat it and
	// hand both inputs' data to anyone). Rule: the merged state's owner is the
	// inputs' common owner when both have the same one (that owner could read
	// both anyway), otherwise nobody; access is granted to every caller
	// allowed on both inputs when it calls merge — first or later, so the
	// resulting ACL is the same whatever the order. Owners of the inputs are
	// not granted automatically: an owner of one input was never allowed on
	// the other. A state without an owner cannot be shared further (allow
	// needs the owner); whoever may read both inputs merges to gain access.
	id := Keccak256([]byte("fhegate/crdt/merge/v1"), lo[:], hi[:])
	owner := Address{}
	if ra.owner == rb.owner {
		owner = ra.owner
	}
	if loadStateHeader(cl.st.get, id).exists {
		if err := grantMerged(cl, id, owner); err != nil {
			return nil, err
		}
		return []any{outHash(id)}, nil // already merged
	}
	if err := cl.charge(GasMergeByte * uint64(len(ra.meta)+len(rb.meta))); err != nil {
		return nil, err
	}
	meta, err := s.merger.Merge(ra.kind, ra.meta, rb.meta)
	if err != nil {
		return nil, revertf("FHECRDT.merge: metadata: %v", err)
	}
	if len(meta) > MaxMetadataBytes {
		return nil, revertf("FHECRDT.merge: merged metadata %d bytes, max %d", len(meta), MaxMetadataBytes)
	}
	if err := cl.charge(GasLogByte * 32 * words(len(meta))); err != nil {
		return nil, err
	}
	if err := storeState(cl, id, stateRec{exists: true, kind: ra.kind, owner: owner, pa: lo, pb: hi, meta: meta}); err != nil {
		return nil, err
	}
	if err := cl.emit("StateMerged", [32]byte(id), [32]byte(lo), [32]byte(hi), ra.kind, meta); err != nil {
		return nil, err
	}
	if err := grantMerged(cl, id, owner); err != nil {
		return nil, err
	}
	return []any{outHash(id)}, nil
}

// grantMerged records the caller (allowed on both inputs) in the merged
// state's ACL unless it is the owner or already recorded; one write and one
// StateAllowed log, charged here.
func grantMerged(cl *call, id Hash, owner Address) error {
	if (owner != Address{} && cl.caller == owner) || cl.st.get(stateACLSlot(id, cl.caller)) == one {
		return nil
	}
	if err := cl.charge(GasWrite + logGas(3, 0)); err != nil {
		return err
	}
	cl.st.set(stateACLSlot(id, cl.caller), one)
	return cl.emit("StateAllowed", [32]byte(id), outAddr(cl.caller))
}

// crdtValue implements FHECRDT.value.
func (s *Suite) crdtValue(cl *call, a []any) ([]any, error) {
	id, err := argHash(a[0])
	if err != nil {
		return nil, err
	}
	r := loadStateHeader(cl.st.get, id)
	if !r.exists {
		return nil, revertf("FHECRDT.value: unknown state %s", id)
	}
	if !stateAllowed(cl.st.get, r, id, cl.caller) {
		return nil, revertf("FHECRDT.value: caller %s is not allowed on state %s", cl.caller, id)
	}
	req := newRequestID(cl, crdtReqNonceSlot, id, CRDTValuePolicyID)
	base := crdtReqSlot(req)
	cl.st.set(base, encodeReqHeader(0, cl.env.BlockNumber(), cl.caller, false))
	cl.st.set(addOffset(base, 1), id)
	if err := cl.emit("ValueRequested", [32]byte(req), [32]byte(id), outAddr(cl.caller), [32]byte(CRDTValuePolicyID)); err != nil {
		return nil, err
	}
	return []any{outHash(req)}, nil
}

// crdtAllow implements FHECRDT.allow.
func (s *Suite) crdtAllow(cl *call, a []any) ([]any, error) {
	id, err := argHash(a[0])
	if err != nil {
		return nil, err
	}
	acct, err := argAddr(a[1])
	if err != nil {
		return nil, err
	}
	r := loadStateHeader(cl.st.get, id)
	if !r.exists {
		return nil, revertf("FHECRDT.allow: unknown state %s", id)
	}
	if r.owner == (Address{}) || r.owner != cl.caller {
		return nil, revertf("FHECRDT.allow: only the owner of state %s may allow others", id)
	}
	if acct == (Address{}) {
		return nil, revertf("FHECRDT.allow: zero account")
	}
	cl.st.set(stateACLSlot(id, acct), one)
	return nil, cl.emit("StateAllowed", [32]byte(id), outAddr(acct))
}

// crdtStateOf implements FHECRDT.stateOf.
func (s *Suite) crdtStateOf(cl *call, a []any) ([]any, error) {
	id, err := argHash(a[0])
	if err != nil {
		return nil, err
	}
	r, err := loadState(cl, cl.st.get, id)
	if err != nil {
		return nil, err
	}
	meta := r.meta
	if meta == nil {
		meta = []byte{}
	}
	return []any{r.exists, r.kind, outAddr(r.owner), outHash(r.handle), outHash(r.pa), outHash(r.pb), meta}, nil
}

// crdtRequestOf implements FHECRDT.requestOf.
func (s *Suite) crdtRequestOf(cl *call, a []any) ([]any, error) {
	id, err := argHash(a[0])
	if err != nil {
		return nil, err
	}
	base := crdtReqSlot(id)
	r := decodeReqHeader(cl.st.get(base))
	return []any{r.exists, outHash(cl.st.get(addOffset(base, 1))), outAddr(r.requester), r.block}, nil
}
