package precompiles

import (
	"encoding/binary"
	"errors"
	"math"
	"math/big"

	"github.com/fhegate/fhegate/bls"
)

// FHEVerdict storage (committee layout in committee.go):
//
//	slot("vd.v", req)+0  [0]=1, epoch at [8:16], signers at [16:20]
//	slot("vd.v", req)+1  result
//	slot("vd.v", req)+2  result digest

func verdictSlot(req Hash) Hash { return slot("vd.v", req[:]) }

var (
	// request lookup (policy: 1 header + 1 ref; crdt: 1 header + 1 ref), verdict check, committee header, 3 writes, log
	gasVerdictSubmit       = 4*GasRead + GasRead + GasRead + 3*GasWrite + logGas(3, 4*32)
	gasVerdictOf           = 3 * GasRead
	gasVerdictCommittee    = 2 * GasRead
	gasVerdictMemberKey    = 4 * GasRead
	gasVerdictSetCommittee = 2*GasRead + GasWrite + logGas(2, 2*32)
	gasVerdictPerMember    = GasBLSPoP + 3*GasWrite
	// governance read (auth), pending write, log
	gasVerdictTransferGov = GasRead + GasWrite + logGas(3, 0)
	// pending and governance reads, two writes, log
	gasVerdictAcceptGov  = 2*GasRead + 2*GasWrite + logGas(3, 0)
	gasVerdictPendingGov = GasRead
)

// verdictMethods is FHEVerdict's method table.
func (s *Suite) verdictMethods() []methodSpec {
	return []methodSpec{
		{name: "submit", gas: gasVerdictSubmit, run: s.verdictSubmit},
		{name: "verdictOf", readOnly: true, gas: gasVerdictOf, run: s.verdictOf},
		{name: "committee", readOnly: true, gas: gasVerdictCommittee, run: s.verdictCommittee},
		{name: "memberKey", readOnly: true, gas: gasVerdictMemberKey, run: s.verdictMemberKey},
		{name: "setCommittee", gas: gasVerdictSetCommittee, maxInput: maxSetCommitteeInput, auth: onlyGovernance("setCommittee"), run: s.verdictSetCommittee},
		{name: "transferGovernance", gas: gasVerdictTransferGov, auth: onlyGovernance("transferGovernance"), run: s.verdictTransferGovernance},
		{name: "acceptGovernance", gas: gasVerdictAcceptGov, run: s.verdictAcceptGovernance},
		{name: "pendingGovernance", readOnly: true, gas: gasVerdictPendingGov, run: s.verdictPendingGovernance},
	}
}

// verdictSubmit implements FHEVerdict.submit.
func (s *Suite) verdictSubmit(cl *call, a []any) ([]any, error) {
	req, err := argHash(a[0])
	if err != nil {
		return nil, err
	}
	result, err := argBig(a[1])
	if err != nil {
		return nil, err
	}
	digest, err := argHash(a[2])
	if err != nil {
		return nil, err
	}
	sig, err := argBytes(a[3])
	if err != nil {
		return nil, err
	}
	signers, err := argBytes(a[4])
	if err != nil {
		return nil, err
	}
	var policyID Hash
	pr := loadRequest(func(k Hash) Hash { return cl.env.PeerState(FHEPolicyAddress, k) }, policyReqSlot(req))
	if pr.exists {
		policyID = pr.ref
	} else {
		cr := loadRequest(func(k Hash) Hash { return cl.env.PeerState(FHECRDTAddress, k) }, crdtReqSlot(req))
		if !cr.exists {
			return nil, revertf("FHEVerdict.submit: unknown request %s", req)
		}
		policyID = CRDTValuePolicyID
	}
	if cl.st.get(verdictSlot(req))[0] == 1 {
		return nil, revertf("FHEVerdict.submit: verdict for request %s already accepted", req)
	}
	chainID := chainIDWord(cl.env.ChainID())
	hdr, n, err := verifyCommitteeSig(cl, cl.st.get, func(epoch uint64) [32]byte {
		return bls.VerdictDigest(chainID, epoch, req, policyID, digest, result)
	}, sig, signers)
	if err != nil {
		if errors.Is(err, ErrOutOfGas) {
			return nil, err
		}
		return nil, revertf("FHEVerdict.submit: %s", reasonOf(err))
	}
	base := verdictSlot(req)
	var w Hash
	w[0] = 1
	binary.BigEndian.PutUint64(w[8:16], hdr.Epoch)
	binary.BigEndian.PutUint32(w[16:20], uint32(n))
	cl.st.set(base, w)
	cl.st.set(addOffset(base, 1), bigWord(result))
	cl.st.set(addOffset(base, 2), digest)
	return nil, cl.emit("VerdictAccepted", [32]byte(req), [32]byte(policyID), result, [32]byte(digest), hdr.Epoch, uint32(n))
}

// verdictOf implements FHEVerdict.verdictOf.
func (s *Suite) verdictOf(cl *call, a []any) ([]any, error) {
	req, err := argHash(a[0])
	if err != nil {
		return nil, err
	}
	base := verdictSlot(req)
	w := cl.st.get(base)
	if w[0] != 1 {
		return []any{false, new(big.Int), [32]byte{}, uint64(0)}, nil
	}
	r := cl.st.get(addOffset(base, 1))
	return []any{true, new(big.Int).SetBytes(r[:]), outHash(cl.st.get(addOffset(base, 2))), binary.BigEndian.Uint64(w[8:16])}, nil
}

// verdictCommittee implements FHEVerdict.committee.
func (s *Suite) verdictCommittee(cl *call, a []any) ([]any, error) {
	h := decodeHeader(cl.st.get(keyCommittee))
	g := govOf(cl.st.get)
	return []any{h.Epoch, h.Threshold, h.Size, outAddr(g)}, nil
}

// verdictMemberKey implements FHEVerdict.memberKey.
func (s *Suite) verdictMemberKey(cl *call, a []any) ([]any, error) {
	i, err := argU32(a[0])
	if err != nil {
		return nil, err
	}
	h := decodeHeader(cl.st.get(keyCommittee))
	if !h.Present || i >= h.Size {
		return nil, revertf("FHEVerdict.memberKey: no member %d", i)
	}
	pk, err := bls.PublicKeyFromTrustedRaw(loadMemberRaw(cl.st.get, h.Epoch, i))
	if err != nil {
		return nil, revertf("FHEVerdict.memberKey: key %d unreadable", i)
	}
	return []any{pk.Compressed()}, nil
}

// verdictSetCommittee implements FHEVerdict.setCommittee.
func (s *Suite) verdictSetCommittee(cl *call, a []any) ([]any, error) {
	epoch, err := argU64(a[0])
	if err != nil {
		return nil, err
	}
	threshold, err := argU32(a[1])
	if err != nil {
		return nil, err
	}
	pks, err := argBytesList(a[2])
	if err != nil {
		return nil, err
	}
	pops, err := argBytesList(a[3])
	if err != nil {
		return nil, err
	}
	if len(pks) == 0 || len(pks) > MaxCommitteeSize {
		return nil, revertf("FHEVerdict.setCommittee: committee size %d outside [1,%d]", len(pks), MaxCommitteeSize)
	}
	if err := cl.charge(gasVerdictPerMember * uint64(len(pks))); err != nil {
		return nil, err
	}
	// the epoch moves forward by exactly one (1 when no committee is
	// registered): a jump to 2^64-1 would freeze the committee for ever
	h := decodeHeader(cl.st.get(keyCommittee))
	var cur uint64
	if h.Present {
		cur = h.Epoch
	}
	if cur == math.MaxUint64 {
		return nil, revertf("FHEVerdict.setCommittee: epoch %d is the last one", cur)
	}
	if epoch != cur+1 {
		return nil, revertf("FHEVerdict.setCommittee: epoch %d must be the current epoch %d plus one", epoch, cur)
	}
	raws, err := CommitteeConfig{Epoch: epoch, Threshold: threshold, PubKeys: pks, PoPs: pops}.validate()
	if err != nil {
		return nil, revertf("FHEVerdict.setCommittee: %v", err)
	}
	writeCommittee(cl.st.set, epoch, threshold, raws)
	return nil, cl.emit("CommitteeChanged", epoch, threshold, uint32(len(raws)))
}

// verdictTransferGovernance implements FHEVerdict.transferGovernance (step 1
// of 2; governance was checked before decoding). The zero address cancels.
func (s *Suite) verdictTransferGovernance(cl *call, a []any) ([]any, error) {
	next, err := argAddr(a[0])
	if err != nil {
		return nil, err
	}
	cl.st.set(keyPendingGovernance, addrWord(next))
	return nil, cl.emit("GovernanceTransferStarted", outAddr(cl.caller), outAddr(next))
}

// verdictAcceptGovernance implements FHEVerdict.acceptGovernance (step 2 of 2).
func (s *Suite) verdictAcceptGovernance(cl *call, a []any) ([]any, error) {
	pending := addrFromLow(cl.st.get(keyPendingGovernance).Bytes())
	if pending == (Address{}) || pending != cl.caller {
		return nil, revertf("FHEVerdict.acceptGovernance: caller %s is not the pending governance address", cl.caller)
	}
	prev := govOf(cl.st.get)
	cl.st.set(keyGovernance, addrWord(pending))
	cl.st.set(keyPendingGovernance, Hash{})
	return nil, cl.emit("GovernanceTransferred", outAddr(prev), outAddr(pending))
}

// verdictPendingGovernance implements FHEVerdict.pendingGovernance.
func (s *Suite) verdictPendingGovernance(cl *call, a []any) ([]any, error) {
	return []any{outAddr(addrFromLow(cl.st.get(keyPendingGovernance).Bytes()))}, nil
}

// maxSetCommitteeInput bounds setCommittee's calldata (after the selector):
// four head words and two bytes[] of MaxCommitteeSize elements, each an
// offset, a length and at most 96 bytes (an uncompressed key or a PoP).
const maxSetCommitteeInput = 4*32 + 2*(32+MaxCommitteeSize*(32+32+96))

// onlyGovernance authorises the governance address before any argument is
// decoded (the method's size cap has already run).
func onlyGovernance(method string) func(cl *call) error {
	return func(cl *call) error {
		gov := govOf(cl.st.get)
		if gov == (Address{}) || gov != cl.caller {
			return revertf("FHEVerdict.%s: caller %s is not the governance address", method, cl.caller)
		}
		return nil
	}
}

func govOf(get reader) Address {
	w := get(keyGovernance)
	return addrFromLow(w[:])
}
