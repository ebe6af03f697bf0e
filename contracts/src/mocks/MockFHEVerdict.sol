// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {IFHEVerdict} from "../interfaces/IFHEVerdict.sol";
import {MockFHE} from "./MockFHE.sol";
import {MockFHEPolicy} from "./MockFHEPolicy.sol";
import {MockFHECRDT} from "./MockFHECRDT.sol";

/// @title MockFHEVerdict — FHEVerdict with `settle` standing in for the committee.
/// @notice A one-member committee of epoch 1 that signs nothing: submit and
/// submitBatch revert; a test posts the verdict the committee would (computed
/// from the plaintexts, MockFHEInput.plaintextOf) with settle, or the value
/// of a counter state with settleValue. Verdicts are accepted once and emit
/// VerdictAccepted, expire follows the precompile. Both settle the request's
/// deposit as the precompile does (MockFHEPolicy.mockSettleDeposit): paid
/// back to the requester, burnt for a rejected input, with one
/// DepositsSettled before VerdictAccepted / VerdictExpired. See MockFHE for
/// what a mock cannot show.
contract MockFHEVerdict is IFHEVerdict {
    struct Verdict {
        bool ready;
        uint256 result;
        bytes32 resultDigest;
    }

    mapping(bytes32 => Verdict) private verdicts;

    /// Posts `result` for a pending FHEPolicy or FHECRDT request, as the committee would.
    function settle(bytes32 requestId, uint256 result) public {
        (bool known, bytes32 policyId,) = requestInfo(requestId);
        if (!known) revert(string.concat("FHEVerdict.submit: unknown request ", MockFHE.hexOf(requestId)));
        if (verdicts[requestId].ready) {
            revert(string.concat("FHEVerdict.submit: verdict for request ", MockFHE.hexOf(requestId), " already accepted"));
        }
        bytes32 digest = keccak256(abi.encode("fhegate mock result", requestId, result));
        verdicts[requestId] = Verdict(true, result, digest);
        settleDeposit(requestId, policyId, result);
        emit VerdictAccepted(requestId, policyId, result, digest, MockFHE.EPOCH, 1);
    }

    /// Posts the plaintext value of the counter state an FHECRDT.value
    /// request names as the committee does: mod t, in [0, t) (a negative
    /// total as t − |total|).
    function settleValue(bytes32 requestId) external {
        (bool exists, bytes32 stateId,,) = MockFHECRDT(MockFHE.CRDT).requestOf(requestId);
        require(exists, "MockFHEVerdict.settleValue: not an FHECRDT value request");
        int256 t = int256(MockFHE.PLAINTEXT_MODULUS);
        settle(requestId, uint256(((MockFHECRDT(MockFHE.CRDT).counterValue(stateId) % t) + t) % t));
    }

    /// Settles the deposit of an FHEPolicy request decided with `result`
    /// (FHECRDT requests hold none) and logs DepositsSettled when there was one.
    function settleDeposit(bytes32 requestId, bytes32 policyId, uint256 result) private {
        if (policyId == bytes32(0)) return;
        (uint256 amount, bool burnt) = MockFHEPolicy(MockFHE.POLICY).mockSettleDeposit(requestId, result);
        if (amount == 0) return;
        if (burnt) emit DepositsSettled(policyId, 0, 1, 0, amount);
        else emit DepositsSettled(policyId, 1, 0, amount, 0);
    }

    function requestInfo(bytes32 requestId) private view returns (bool known, bytes32 policyId, uint64 blockNumber) {
        bool exists;
        (exists, policyId,, blockNumber) = MockFHEPolicy(MockFHE.POLICY).requestOf(requestId);
        if (exists) return (true, policyId, blockNumber);
        (exists,,, blockNumber) = MockFHECRDT(MockFHE.CRDT).requestOf(requestId);
        return (exists, bytes32(0), blockNumber);
    }

    function submit(bytes32, uint256, bytes32, bytes calldata, bytes calldata) external pure {
        revert("FHEVerdict.submit: mock: no committee signs here (post verdicts with settle)");
    }

    function submitBatch(bytes32, bytes32, bytes32[] calldata, uint256[] calldata, bytes calldata, bytes calldata) external pure {
        revert("FHEVerdict.submitBatch: mock: no committee signs here (post verdicts with settle)");
    }

    function expire(bytes32 requestId) external {
        (bool known, bytes32 policyId, uint64 blockNumber) = requestInfo(requestId);
        if (!known) revert(string.concat("FHEVerdict.expire: unknown request ", MockFHE.hexOf(requestId)));
        if (verdicts[requestId].ready) revert(string.concat("FHEVerdict.expire: request ", MockFHE.hexOf(requestId), " already has a verdict"));
        if (block.number < uint256(blockNumber) + MockFHE.EXPIRY_BLOCKS) {
            revert(string.concat("FHEVerdict.expire: request ", MockFHE.hexOf(requestId), " from block ", MockFHE.dec(blockNumber),
                " expires at block ", MockFHE.dec(uint256(blockNumber) + MockFHE.EXPIRY_BLOCKS), " (now ", MockFHE.dec(block.number), ")"));
        }
        verdicts[requestId] = Verdict(true, MockFHE.RESULT_EXPIRED, bytes32(0));
        settleDeposit(requestId, policyId, MockFHE.RESULT_EXPIRED);
        emit VerdictExpired(requestId, policyId, blockNumber);
    }

    function verdictOf(bytes32 requestId) external view returns (bool ready, uint256 result, bytes32 resultDigest, uint64 epoch) {
        Verdict storage v = verdicts[requestId];
        return (v.ready, v.result, v.resultDigest, v.ready ? MockFHE.EPOCH : 0);
    }

    function committee() external pure returns (uint64 epoch, uint32 threshold, uint32 size, address governance) {
        return (MockFHE.EPOCH, 1, 1, address(0));
    }

    function memberKey(uint32 index) external pure returns (bytes memory) {
        revert(string.concat("FHEVerdict.memberKey: no member ", MockFHE.dec(index), " (mock committee has no keys)"));
    }

    function setCommittee(uint64, uint32, bytes[] calldata, bytes[] calldata) external pure {
        revert("FHEVerdict.setCommittee: mock: the committee is fixed");
    }

    function setCommitteeKey(uint64, bytes32, bytes calldata, bytes calldata) external pure {
        revert("FHEVerdict.setCommitteeKey: mock: no committee signs here");
    }

    function committeeKeyOf(uint64) external pure returns (bytes32) {
        return bytes32(0);
    }

    function transferGovernance(address) external pure {
        revert("FHEVerdict.transferGovernance: mock: no governance");
    }

    function acceptGovernance() external pure {
        revert("FHEVerdict.acceptGovernance: mock: no governance");
    }

    function pendingGovernance() external pure returns (address) {
        return address(0);
    }
}
