package precompiles

import (
	"math/big"

	"github.com/fhegate/fhegate/bls"
)

// Batched verdicts. The committee evaluates up to Slots requests
// of one policy in one packed FHE evaluation, threshold-decrypts all their
// slots together and signs ONE message for the whole batch:
//
//	root   = bls.VerdictBatchRoot((requestId_i, result_i) for i in order)
//	digest = bls.VerdictBatchDigest(chainId, epoch, policyId, resultDigest, root)
//
// submitBatch recomputes root over exactly the pairs it stores, so a pair the
// committee did not sign cannot be stored, and one pairing check covers them
// all: gas per verdict is GasVerdictItem plus (static + BLS)/n.
//
// One bad item reverts the whole batch: an unknown request, a request of
// another policy or a duplicate can only come from a committee bug (the
// members signed it), and a partial batch would leave the chain and the
// committee disagreeing about which verdicts exist; the committee re-forms the
// batch. An item that is already decided is skipped instead (never
// overwritten): anyone may expire a request (expire), and a revert there would
// let one 30k-gas expire call void a whole 16k-verdict batch. A batch in
// which every item is already decided is refused (a replay).

// batchArgs are submitBatch's decoded arguments.
type batchArgs struct {
	policyID, resultDigest Hash
	items                  []bls.VerdictItem
	sig, signers           []byte
}

func decodeBatchArgs(a []any) (batchArgs, error) {
	var b batchArgs
	var err error
	if b.policyID, err = argHash(a[0]); err != nil {
		return b, err
	}
	if b.resultDigest, err = argHash(a[1]); err != nil {
		return b, err
	}
	ids, err := argHashes(a[2])
	if err != nil {
		return b, err
	}
	results, ok := a[3].([]*big.Int)
	if !ok {
		return b, revertf("internal: argument is %T, want uint256[]", a[3])
	}
	if len(results) != len(ids) {
		return b, revertf("FHEVerdict.submitBatch: %d request ids but %d results", len(ids), len(results))
	}
	b.items = make([]bls.VerdictItem, len(ids)) // len(ids) ≤ MaxVerdictBatch (charged and bounded before decoding)
	for i := range ids {
		if results[i] == nil || results[i].Sign() < 0 {
			return b, revertf("internal: result %d is not a uint256", i)
		}
		b.items[i] = bls.VerdictItem{RequestID: ids[i], Result: new(big.Int).Set(results[i])}
	}
	if b.sig, err = argBytes(a[4]); err != nil {
		return b, err
	}
	b.signers, err = argBytes(a[5])
	return b, err
}

// checkedBatch is what checkBatchItems finds: the batch policy's record and,
// per item, its request record and whether it is new (not yet decided).
type checkedBatch struct {
	pol   policyRec
	reqs  []requestRec
	fresh []bool
}

// checkBatchItems checks every item (pending FHEPolicy request of policyID,
// listed once) and returns which are new (not yet decided) and how many.
func checkBatchItems(cl *call, policyID Hash, items []bls.VerdictItem) (checkedBatch, int, error) {
	get := func(k Hash) Hash { return cl.env.PeerState(FHEPolicyAddress, k) }
	// one read of the batch policy's record (index and cost word); each
	// item's header then names its policy by index
	pol := loadPolicyCost(get, policyID)
	if !pol.exists {
		return checkedBatch{}, 0, revertf("FHEVerdict.submitBatch: unknown policy %s", policyID)
	}
	seen := make(map[Hash]int, len(items)) // membership only; never iterated
	fresh := make([]bool, len(items))
	reqs := make([]requestRec, len(items))
	n := 0
	for i, it := range items {
		req := Hash(it.RequestID)
		if j, dup := seen[req]; dup {
			return checkedBatch{}, 0, revertf("FHEVerdict.submitBatch: item %d repeats request %s (item %d)", i, req, j)
		}
		seen[req] = i
		r := decodeReqHeader(get(policyReqSlot(req)))
		if !r.exists {
			return checkedBatch{}, 0, revertf("FHEVerdict.submitBatch: item %d: unknown policy request %s", i, req)
		}
		if r.tag != pol.index {
			return checkedBatch{}, 0, revertf("FHEVerdict.submitBatch: item %d: request %s is for policy %s, not %s", i, req, get(policyIndexSlot(r.tag)), policyID)
		}
		reqs[i] = r
		if !decided(cl.st.get, req) {
			fresh[i] = true
			n++
		}
	}
	if n == 0 {
		return checkedBatch{}, 0, revertf("FHEVerdict.submitBatch: every request of the batch already has a verdict (replay)")
	}
	return checkedBatch{pol: pol, reqs: reqs, fresh: fresh}, n, nil
}

// verdictSubmitBatch implements FHEVerdict.submitBatch.
func (s *Suite) verdictSubmitBatch(cl *call, a []any) ([]any, error) {
	b, err := decodeBatchArgs(a)
	if err != nil {
		return nil, err
	}
	bi, stored, err := checkBatchItems(cl, b.policyID, b.items)
	if err != nil {
		return nil, err
	}
	fresh := bi.fresh
	root := bls.VerdictBatchRoot(b.items)
	chainID := chainIDWord(cl.env.ChainID())
	hdr, n, err := verifyCommitteeSig(cl, "FHEVerdict.submitBatch", cl.st.get, func(epoch uint64) [32]byte {
		return bls.VerdictBatchDigest(chainID, epoch, b.policyID, b.resultDigest, root)
	}, b.sig, b.signers)
	if err != nil {
		return nil, err
	}
	// results ≥ 2^128 other than the sentinels need a second slot
	for i, it := range b.items {
		if fresh[i] && needsExtraSlot(it.Result) {
			if err := cl.charge(GasWrite); err != nil {
				return nil, err
			}
		}
	}
	if err := cl.chargeStore(batchSeqSlot); err != nil {
		return nil, err
	}
	seqW := cl.st.get(batchSeqSlot)
	seq := u64FromWord(seqW) + 1
	cl.st.set(batchSeqSlot, u64Word(seq))
	cl.st.set(batchDigestSlot(seq), b.resultDigest)
	d := depositOf(cl, bi.pol)
	var st settlement
	for i, it := range b.items {
		if !fresh[i] {
			continue
		}
		writePacked(cl.st, Hash(it.RequestID), packedVerdict{seq: seq, epoch: hdr.Epoch, result: it.Result})
		if bi.reqs[i].deposit {
			if err := st.settle(cl, bi.reqs[i].requester, d, it.Result); err != nil {
				return nil, err
			}
		}
	}
	if err := st.emit(cl, b.policyID); err != nil {
		return nil, err
	}
	return nil, cl.emit("VerdictBatchAccepted", [32]byte(b.policyID), root, [32]byte(b.resultDigest),
		hdr.Epoch, uint32(n), uint32(len(b.items)), uint32(stored))
}

// verdictExpire implements FHEVerdict.expire: anyone may store the failure
// verdict ResultExpired for a request at least ExpiryBlocks old that has none.
func (s *Suite) verdictExpire(cl *call, a []any) ([]any, error) {
	req, err := argHash(a[0])
	if err != nil {
		return nil, err
	}
	pr, ok, err := pendingRequest(cl, req, true)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, revertf("FHEVerdict.expire: unknown request %s", req)
	}
	policyID, block := pr.policyID, pr.block
	if decided(cl.st.get, req) {
		return nil, revertf("FHEVerdict.expire: request %s already has a verdict", req)
	}
	now := cl.env.BlockNumber()
	if now < block || now-block < ExpiryBlocks {
		return nil, revertf("FHEVerdict.expire: request %s from block %d expires at block %d (now %d)", req, block, block+ExpiryBlocks, now)
	}
	writePacked(cl.st, req, packedVerdict{result: ResultExpired})
	if err := settleOne(cl, pr, ResultExpired); err != nil {
		return nil, err
	}
	return nil, cl.emit("VerdictExpired", [32]byte(req), [32]byte(policyID), block)
}

func u64FromWord(w Hash) uint64 {
	var x uint64
	for _, b := range w[24:] {
		x = x<<8 | uint64(b)
	}
	return x
}

// SubmitBatchGas is the most gas FHEVerdict.submitBatch charges for a batch
// of items verdicts under a committee of committeeSize members (≤ 256),
// every result below 2^128 or a sentinel (a result in between costs one
// more GasWrite): the call minimum, 2·items + 14 calldata words, the static
// part, the BLS verification, GasVerdictItem per item, the batch counter's
// first write and, when the requests hold deposits, GasBalanceMove per
// item and the DepositsSettled log.
func SubmitBatchGas(items, committeeSize int) uint64 {
	n, m := uint64(items), uint64(committeeSize)
	return GasMinimum + GasInputWord*(2*n+14) + gasVerdictSubmitBatch + GasBLSVerify + GasBLSPerMember*m + (GasVerdictItem+GasBalanceMove)*n + GasWrite + gasDepositsSettled
}

// submitBatchTxGas bounds a whole submitBatch transaction: 21,000 intrinsic
// gas, every calldata byte at the non-zero rate (16) and SubmitBatchGas.
func submitBatchTxGas(items, committeeSize int) uint64 {
	return 21_000 + 16*(4+32*(2*uint64(items)+14)) + SubmitBatchGas(items, committeeSize)
}

// MaxBatchItems is the largest batch whose submitBatch transaction fits
// gasLimit (a block gas limit) with a committee of committeeSize members,
// at most MaxVerdictBatch (0 when not even one item fits). The committee
// splits a packed evaluation's verdicts into batches of this size, each
// signed on its own.
func MaxBatchItems(gasLimit uint64, committeeSize int) int {
	fixed := submitBatchTxGas(0, committeeSize)
	if gasLimit <= fixed {
		return 0
	}
	per := submitBatchTxGas(1, committeeSize) - fixed
	return int(min((gasLimit-fixed)/per, MaxVerdictBatch))
}
