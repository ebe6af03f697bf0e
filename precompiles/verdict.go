package precompiles

import (
	"encoding/binary"
	"math"
	"math/big"

	"github.com/fhegate/fhegate/bls"
)

// FHEVerdict storage (committee layout in committee.go):
//
//	slot("vd.v", req)+0  [0]=1 (submit): epoch at [8:16], signers at [16:20]
//	slot("vd.v", req)+1  result
//	slot("vd.v", req)+2  result digest
//
// or, for a verdict stored by submitBatch or expire, one packed word:
//
//	slot("vd.v", req)+0  [0]=2, [1]=form, batch sequence at [2:8], epoch at
//	                     [8:16], r at [16:32] (128 bits)
//	slot("vd.v", req)+1  result, form 2 only
//	slot("vd.bn")        last batch sequence number
//	slot("vd.b", seq)    result digest of batch seq (seq 0: none, an expired verdict)
//
// form 0: result = r; form 1: result = 2^256 − 1 − r (the sentinels
// ResultUnevaluable, ResultExpired and ResultRejectedInput, r = 0, 1 and 2);
// form 2: any other result
// (≥ 2^128), in the next slot. Real verdicts are plaintexts mod t < 2^64, so a
// batch verdict costs one storage write (docs/gas.md).

func verdictSlot(req Hash) Hash { return slot("vd.v", req[:]) }

func batchDigestSlot(seq uint64) Hash { return slot("vd.b", u64Word(seq).Bytes()) }

var batchSeqSlot = slot("vd.bn")

// Verdict sentinels. A real verdict is a decrypted plaintext in [0, t) with
// t < 2^64, so neither can be a genuine result; a contract that approves only
// on verdict == 1 denies both.
var (
	// ResultUnevaluable (2^256 − 1) is the committee's verdict for a request
	// it cannot evaluate (consensus/chainio.ResultUnevaluable mirrors it; a test in
	// consensus/chain checks they agree).
	ResultUnevaluable = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	// ResultExpired (2^256 − 2) is the failure verdict FHEVerdict.expire
	// stores for a request that got no verdict within ExpiryBlocks.
	ResultExpired = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(2))
	// ResultRejectedInput (2^256 − 3) is the committee's verdict for a
	// request whose own evaluation decrypted outside its plan's declared
	// output range: an out-of-range or malformed input, isolated from a
	// packed batch (consensus/chainio.ResultRejectedInput mirrors it).
	ResultRejectedInput = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(3))
)

var two128 = new(big.Int).Lsh(big.NewInt(1), 128)

// packedVerdict is the one-word form of a batch or expired verdict.
type packedVerdict struct {
	seq    uint64 // batch sequence (0: no digest)
	epoch  uint64
	result *big.Int
}

// words encodes v: the packed word and, for form 2, the result slot.
func (v packedVerdict) words() (Hash, *Hash) {
	var w Hash
	w[0] = 2
	var seq [8]byte
	binary.BigEndian.PutUint64(seq[:], v.seq)
	copy(w[2:8], seq[2:])
	binary.BigEndian.PutUint64(w[8:16], v.epoch)
	switch {
	case v.result.Cmp(two128) < 0:
		v.result.FillBytes(w[16:32])
		return w, nil
	case new(big.Int).Sub(ResultUnevaluable, v.result).Cmp(two128) < 0:
		w[1] = 1
		new(big.Int).Sub(ResultUnevaluable, v.result).FillBytes(w[16:32])
		return w, nil
	}
	w[1] = 2
	r := bigWord(v.result)
	return w, &r
}

// needsExtraSlot reports whether result needs form 2 (a second write).
func needsExtraSlot(result *big.Int) bool {
	return result.Cmp(two128) >= 0 && new(big.Int).Sub(ResultUnevaluable, result).Cmp(two128) >= 0
}

// readVerdict decodes the verdict of req (ready false when none).
func readVerdict(get reader, req Hash) (ready bool, result *big.Int, digest Hash, epoch uint64) {
	base := verdictSlot(req)
	w := get(base)
	switch w[0] {
	case 1:
		r := get(addOffset(base, 1))
		return true, new(big.Int).SetBytes(r[:]), get(addOffset(base, 2)), binary.BigEndian.Uint64(w[8:16])
	case 2:
		r := new(big.Int).SetBytes(w[16:32])
		switch w[1] {
		case 1:
			r.Sub(ResultUnevaluable, r)
		case 2:
			x := get(addOffset(base, 1))
			r.SetBytes(x[:])
		}
		var seq [8]byte
		copy(seq[2:], w[2:8])
		if s := binary.BigEndian.Uint64(seq[:]); s != 0 {
			digest = get(batchDigestSlot(s))
		}
		return true, r, digest, binary.BigEndian.Uint64(w[8:16])
	}
	return false, new(big.Int), Hash{}, 0
}

// writePacked stores v as req's verdict.
func writePacked(st *overlay, req Hash, v packedVerdict) {
	w, extra := v.words()
	base := verdictSlot(req)
	st.set(base, w)
	if extra != nil {
		st.set(addOffset(base, 1), *extra)
	}
}

// pendingReq is what FHEVerdict needs of a request: its policy (or
// CRDTValuePolicyID), block, requester and the deposit it holds (zero when
// none; deposit.go).
type pendingReq struct {
	policyID  Hash
	block     uint64
	requester Address
	deposit   *big.Int
}

// pendingRequest finds req in FHEPolicy (then in FHECRDT when crdt is true);
// found is false when neither has it. A request holding a deposit costs one
// more read (its policy's cost word), charged here.
func pendingRequest(cl *call, req Hash, crdt bool) (pendingReq, bool, error) {
	get := func(k Hash) Hash { return cl.env.PeerState(FHEPolicyAddress, k) }
	pr, pid := loadPolicyRequest(get, req)
	if pr.exists {
		p := pendingReq{policyID: pid, block: pr.block, requester: pr.requester, deposit: new(big.Int)}
		if pr.deposit {
			if err := cl.charge(GasRead); err != nil {
				return p, true, err
			}
			p.deposit = depositOf(cl, loadPolicyCost(get, pid))
		}
		return p, true, nil
	}
	if !crdt {
		return pendingReq{}, false, nil
	}
	cr := decodeReqHeader(cl.env.PeerState(FHECRDTAddress, crdtReqSlot(req)))
	return pendingReq{policyID: CRDTValuePolicyID, block: cr.block, requester: cr.requester, deposit: new(big.Int)}, cr.exists, nil
}

var (
	// request lookup (policy: header + policy index; crdt: header), verdict check, committee header, 3 writes, log
	gasVerdictSubmit       = 3*GasRead + GasRead + GasRead + 3*GasWrite + logGas(3, 4*32)
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
	// committee header, the epoch's key slot (replay), one write, log (2
	// topics, 2 words); the BLS verification is charged by
	// verifyCommitteeSig from the registered committee's size.
	gasVerdictSetCommitteeKey = 2*GasRead + GasWrite + logGas(2, 2*32)
	gasVerdictCommitteeKeyOf  = GasRead
	// committee header, the batch policy's record (its index and cost
	// word), batch counter read; the batch digest write and the
	// log (3 topics, 5 words). Per item: GasVerdictItem (charged from the
	// calldata count before decoding); the counter write is GasWrite once,
	// GasUpdate after.
	gasVerdictSubmitBatch = 4*GasRead + GasWrite + logGas(3, 5*32)
	// request lookup (policy, then CRDT), verdict check, one write, log
	gasVerdictExpire = 3*GasRead + GasRead + GasWrite + logGas(3, 32)
)

// maxSubmitBatchInput bounds submitBatch's calldata (after the selector): six
// head words, two arrays of MaxVerdictBatch words, a 96-byte signature and a
// bitmap of at most 32 bytes (MaxCommitteeSize members).
const maxSubmitBatchInput = 6*32 + 2*(32+MaxVerdictBatch*32) + (32 + 96) + (32 + 32)

// verdictMethods is FHEVerdict's method table.
func (s *Suite) verdictMethods() []methodSpec {
	return []methodSpec{
		{name: "submit", gas: gasVerdictSubmit, run: s.verdictSubmit},
		{name: "submitBatch", gas: gasVerdictSubmitBatch, maxInput: maxSubmitBatchInput,
			items: &itemGas{arg: 2, max: MaxVerdictBatch, gas: GasVerdictItem}, run: s.verdictSubmitBatch},
		{name: "expire", gas: gasVerdictExpire, run: s.verdictExpire},
		{name: "verdictOf", readOnly: true, gas: gasVerdictOf, run: s.verdictOf},
		{name: "committee", readOnly: true, gas: gasVerdictCommittee, run: s.verdictCommittee},
		{name: "memberKey", readOnly: true, gas: gasVerdictMemberKey, run: s.verdictMemberKey},
		{name: "setCommittee", gas: gasVerdictSetCommittee, maxInput: maxSetCommitteeInput, auth: onlyGovernance("setCommittee"), run: s.verdictSetCommittee},
		{name: "setCommitteeKey", gas: gasVerdictSetCommitteeKey, maxInput: maxSetCommitteeKeyInput, run: s.verdictSetCommitteeKey},
		{name: "committeeKeyOf", readOnly: true, gas: gasVerdictCommitteeKeyOf, run: s.verdictCommitteeKeyOf},
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
	pr, ok, err := pendingRequest(cl, req, true)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, revertf("FHEVerdict.submit: unknown request %s", req)
	}
	policyID := pr.policyID
	if decided(cl.st.get, req) {
		return nil, revertf("FHEVerdict.submit: verdict for request %s already accepted", req)
	}
	chainID := chainIDWord(cl.env.ChainID())
	hdr, n, err := verifyCommitteeSig(cl, "FHEVerdict.submit", cl.st.get, func(epoch uint64) [32]byte {
		return bls.VerdictDigest(chainID, epoch, req, policyID, digest, result)
	}, sig, signers)
	if err != nil {
		return nil, err
	}
	base := verdictSlot(req)
	var w Hash
	w[0] = 1
	binary.BigEndian.PutUint64(w[8:16], hdr.Epoch)
	binary.BigEndian.PutUint32(w[16:20], uint32(n))
	cl.st.set(base, w)
	cl.st.set(addOffset(base, 1), bigWord(result))
	cl.st.set(addOffset(base, 2), digest)
	if err := settleOne(cl, pr, result); err != nil {
		return nil, err
	}
	return nil, cl.emit("VerdictAccepted", [32]byte(req), [32]byte(policyID), result, [32]byte(digest), hdr.Epoch, uint32(n))
}

// verdictOf implements FHEVerdict.verdictOf.
func (s *Suite) verdictOf(cl *call, a []any) ([]any, error) {
	req, err := argHash(a[0])
	if err != nil {
		return nil, err
	}
	ready, result, digest, epoch := readVerdict(cl.st.get, req)
	return []any{ready, result, outHash(digest), epoch}, nil
}

// decided reports whether req already has a verdict (committee or expired).
func decided(get reader, req Hash) bool { return get(verdictSlot(req))[0] != 0 }

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

// maxSetCommitteeKeyInput bounds setCommitteeKey's calldata (after the
// selector): four head words, a 96-byte signature and a bitmap of at most
// 32 bytes (MaxCommitteeSize members), each with its length word.
const maxSetCommitteeKeyInput = 4*32 + (32 + 96) + (32 + 32)

// committeeKeySlot holds the FHE public-key digest recorded for epoch.
func committeeKeySlot(epoch uint64) Hash { return slot("vd.pk", u64Word(epoch).Bytes()) }

// verdictSetCommitteeKey implements FHEVerdict.setCommitteeKey: the
// registered committee binds its collective FHE public key to its epoch,
// once. Anyone may submit it; the quorum signature is the authority.
func (s *Suite) verdictSetCommitteeKey(cl *call, a []any) ([]any, error) {
	const what = "FHEVerdict.setCommitteeKey"
	epoch, err := argU64(a[0])
	if err != nil {
		return nil, err
	}
	pkDigest, err := argHash(a[1])
	if err != nil {
		return nil, err
	}
	sig, err := argBytes(a[2])
	if err != nil {
		return nil, err
	}
	signers, err := argBytes(a[3])
	if err != nil {
		return nil, err
	}
	if pkDigest == (Hash{}) {
		return nil, revertf("%s: the key digest must not be zero", what)
	}
	h := decodeHeader(cl.st.get(keyCommittee))
	if !h.Present || epoch != h.Epoch {
		return nil, revertf("%s: epoch %d is not the registered committee's epoch %d", what, epoch, h.Epoch)
	}
	if prev := cl.st.get(committeeKeySlot(epoch)); prev != (Hash{}) {
		return nil, revertf("%s: the key of epoch %d is already recorded (%s)", what, epoch, prev)
	}
	chainID := chainIDWord(cl.env.ChainID())
	_, n, err := verifyCommitteeSig(cl, what, cl.st.get, func(e uint64) [32]byte {
		return bls.CommitteeKeyDigest(chainID, e, pkDigest)
	}, sig, signers)
	if err != nil {
		return nil, err
	}
	cl.st.set(committeeKeySlot(epoch), pkDigest)
	return nil, cl.emit("CommitteeKeySet", epoch, [32]byte(pkDigest), uint32(n))
}

// verdictCommitteeKeyOf implements FHEVerdict.committeeKeyOf.
func (s *Suite) verdictCommitteeKeyOf(cl *call, a []any) ([]any, error) {
	epoch, err := argU64(a[0])
	if err != nil {
		return nil, err
	}
	return []any{outHash(cl.st.get(committeeKeySlot(epoch)))}, nil
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
