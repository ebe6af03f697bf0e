// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title FHEVerdict precompile (0x02000000000000000000000000000000000000f3)
/// @notice Committee registry and verdict verification. A verdict is accepted
/// once, if the BLS aggregate signature by at least `threshold` registered
/// members verifies over bls.VerdictDigest(chainId, epoch, requestId, policyId,
/// resultDigest, result) for the current epoch. A batch of verdicts of one
/// policy is accepted under one aggregate (submitBatch); a request with no
/// verdict after EXPIRY_BLOCKS (1024) blocks may be expired by anyone, which
/// stores the failure verdict RESULT_EXPIRED = 2^256 - 2 (type(uint256).max - 1;
/// type(uint256).max is the committee's "unevaluable" verdict).
interface IFHEVerdict {
    event VerdictAccepted(bytes32 indexed requestId, bytes32 indexed policyId, uint256 result, bytes32 resultDigest, uint64 epoch, uint32 signers);
    /// One per submitBatch: `count` items signed, `stored` of them new (items
    /// already decided, e.g. expired meanwhile, are skipped, never overwritten).
    event VerdictBatchAccepted(bytes32 indexed policyId, bytes32 indexed root, bytes32 resultDigest, uint64 epoch, uint32 signers, uint32 count, uint32 stored);
    event VerdictExpired(bytes32 indexed requestId, bytes32 indexed policyId, uint64 requestBlock);
    /// Deposits settled by one submit, submitBatch or expire of `policyId`'s requests
    /// (IFHEPolicy, "Deposits"): `refunded` paid back to their requesters, `forfeited`
    /// (verdict ResultRejectedInput) burnt.
    event DepositsSettled(bytes32 indexed policyId, uint32 refunded, uint32 forfeited, uint256 refundedWei, uint256 forfeitedWei);
    event CommitteeChanged(uint64 indexed epoch, uint32 threshold, uint32 size);
    /// The committee of `epoch` bound its collective FHE public key (keccak256
    /// of its canonical bytes) to the epoch; `signers` members signed.
    event CommitteeKeySet(uint64 indexed epoch, bytes32 pkDigest, uint32 signers);
    event GovernanceTransferStarted(address indexed governance, address indexed pendingGovernance);
    event GovernanceTransferred(address indexed previousGovernance, address indexed newGovernance);

    function submit(bytes32 requestId, uint256 result, bytes32 resultDigest, bytes calldata signature, bytes calldata signers) external;

    /// Accept the verdicts of one packed evaluation of `policyId`: the BLS
    /// aggregate must verify over bls.VerdictBatchDigest(chainId, epoch,
    /// policyId, resultDigest, bls.VerdictBatchRoot(pairs)) where pairs are
    /// (requestIds[i], results[i]) in order. Every request must be a pending
    /// FHEPolicy request of `policyId`, listed once; at most 16384 items.
    /// Reverts if any item is invalid or if every item is already decided.
    function submitBatch(bytes32 policyId, bytes32 resultDigest, bytes32[] calldata requestIds, uint256[] calldata results, bytes calldata signature, bytes calldata signers) external;

    /// Anyone: store the failure verdict RESULT_EXPIRED for a request (FHEPolicy
    /// or FHECRDT) at least EXPIRY_BLOCKS old that has no verdict yet. A later
    /// committee verdict for it is refused.
    function expire(bytes32 requestId) external;

    function verdictOf(bytes32 requestId) external view returns (bool ready, uint256 result, bytes32 resultDigest, uint64 epoch);

    function committee() external view returns (uint64 epoch, uint32 threshold, uint32 size, address governance);

    /// 48-byte compressed BLS public key of member `index` in the current epoch.
    function memberKey(uint32 index) external view returns (bytes memory pubkey);

    /// Governance only: install a new committee. `epoch` must be exactly the
    /// current epoch plus one (1 when none is registered); every key needs its
    /// proof of possession.
    function setCommittee(uint64 epoch, uint32 threshold, bytes[] calldata pubkeys, bytes[] calldata pops) external;

    /// Anyone: record the collective FHE public key of the current
    /// committee, once per epoch. `epoch` must be the registered committee's
    /// epoch, `pkDigest` non-zero, and the BLS aggregate by at least
    /// `threshold` of its members must verify over
    /// bls.CommitteeKeyDigest(chainId, epoch, pkDigest). A rotation's old
    /// committee re-encrypts its inputs only to the key recorded here.
    function setCommitteeKey(uint64 epoch, bytes32 pkDigest, bytes calldata signature, bytes calldata signers) external;

    /// The FHE public-key digest recorded for `epoch` (zero when none).
    function committeeKeyOf(uint64 epoch) external view returns (bytes32 pkDigest);

    /// Governance only, step 1 of 2: propose `newGovernance` (the zero address
    /// cancels a pending proposal). Governance changes only when it accepts.
    function transferGovernance(address newGovernance) external;

    /// Step 2 of 2: the pending governance address accepts and becomes governance.
    function acceptGovernance() external;

    /// The proposed governance address (zero when none is pending).
    function pendingGovernance() external view returns (address);
}
