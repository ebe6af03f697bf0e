package precompiles

import (
	"errors"

	"github.com/fhegate/fhegate/bls"
)

// FHEInput storage:
//
//	slot("in.h", handle)          [0]=1, [1]=preset, [2]=ctype, owner at [12:32]
//	slot("in.acl", handle, acct)  1 if acct may use handle
//	transient slot("in.tacl", handle, acct)  1 for the rest of the transaction

func handleSlot(h Hash) Hash                  { return slot("in.h", h[:]) }
func aclSlot(h Hash, a Address) Hash          { return slot("in.acl", h[:], a[:]) }
func transientACLSlot(h Hash, a Address) Hash { return slot("in.tacl", h[:], a[:]) }

var one = Hash{31: 1}

// Ciphertext type tags (ctype) FHEInput.register accepts. The committee signs
// the tag the uploader chose; the precompile checks it so that contracts can
// rely on handleInfo's ctype. CTypeCiphertext is a canonical fhe ciphertext
// (fhe.KindCiphertext in the wire format) — the only type the committee's
// upload path stores today. Add a tag here when a new ciphertext type exists.
const CTypeCiphertext uint8 = 1

func allowedCType(ctype uint8) bool { return ctype == CTypeCiphertext }

type handleRec struct {
	exists        bool
	preset, ctype uint8
	owner         Address
}

func decodeHandle(w Hash) handleRec {
	return handleRec{exists: w[0] == 1, preset: w[1], ctype: w[2], owner: addrFromLow(w[:])}
}

func (r handleRec) encode() Hash {
	var w Hash
	w[0], w[1], w[2] = 1, r.preset, r.ctype
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

// Gas of FHEInput methods (static part; see docs/gas.md).
var (
	gasInputRegister   = GasRead /*handle*/ + GasRead /*committee header*/ + GasWrite + logGas(3, 96)
	gasInputAllow      = 3*GasRead + GasWrite + logGas(3, 32)
	gasInputAllowT     = 3*GasRead + GasTWrite + logGas(3, 32)
	gasInputIsAllowed  = 2*GasRead + GasTRead
	gasInputHandleInfo = GasRead
)

// inputMethods is FHEInput's method table.
func (s *Suite) inputMethods() []methodSpec {
	return []methodSpec{
		{name: "register", gas: gasInputRegister, run: s.inputRegister},
		{name: "allow", gas: gasInputAllow, run: s.inputAllow},
		{name: "allowTransient", gas: gasInputAllowT, run: s.inputAllowTransient},
		{name: "isAllowed", readOnly: true, gas: gasInputIsAllowed, run: s.inputIsAllowed},
		{name: "handleInfo", readOnly: true, gas: gasInputHandleInfo, run: s.inputHandleInfo},
	}
}

// inputRegister implements FHEInput.register.
func (s *Suite) inputRegister(cl *call, a []any) ([]any, error) {
	h, err := argHash(a[0])
	if err != nil {
		return nil, err
	}
	owner, err := argAddr(a[1])
	if err != nil {
		return nil, err
	}
	preset, err := argU8(a[2])
	if err != nil {
		return nil, err
	}
	ctype, err := argU8(a[3])
	if err != nil {
		return nil, err
	}
	sig, err := argBytes(a[4])
	if err != nil {
		return nil, err
	}
	signers, err := argBytes(a[5])
	if err != nil {
		return nil, err
	}
	if h.IsZero() {
		return nil, revertf("FHEInput.register: zero handle")
	}
	if owner == (Address{}) {
		return nil, revertf("FHEInput.register: zero owner")
	}
	if !allowedCType(ctype) {
		return nil, revertf("FHEInput.register: ciphertext type %d not allowed (allowed: %d)", ctype, CTypeCiphertext)
	}
	if decodeHandle(cl.st.get(handleSlot(h))).exists {
		return nil, revertf("FHEInput.register: handle %s already registered", h)
	}
	chainID := chainIDWord(cl.env.ChainID())
	peer := func(k Hash) Hash { return cl.env.PeerState(FHEVerdictAddress, k) }
	hdr, _, err := verifyCommitteeSig(cl, peer, func(epoch uint64) [32]byte {
		return bls.InputDigest(chainID, epoch, h, owner, preset, ctype)
	}, sig, signers)
	if err != nil {
		if errors.Is(err, ErrOutOfGas) {
			return nil, err
		}
		return nil, revertf("FHEInput.register: attestation: %s", reasonOf(err))
	}
	cl.st.set(handleSlot(h), handleRec{exists: true, preset: preset, ctype: ctype, owner: owner}.encode())
	return nil, cl.emit("InputRegistered", [32]byte(h), outAddr(owner), preset, ctype, hdr.Epoch)
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
	h, err := argHash(a[0])
	if err != nil {
		return nil, err
	}
	acct, err := argAddr(a[1])
	if err != nil {
		return nil, err
	}
	if acct == (Address{}) {
		return nil, revertf("FHEInput.%s: zero account", name)
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

func reasonOf(err error) string {
	var r *RevertError
	if errors.As(err, &r) {
		return r.Reason
	}
	return err.Error()
}
