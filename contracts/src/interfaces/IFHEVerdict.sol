// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title FHEVerdict precompile (0x02000000000000000000000000000000000000f3)
/// @notice Committee registry and verdict verification. A verdict is accepted
/// once, if the BLS aggregate signature by at least `threshold` registered
/// members verifies over bls.VerdictDigest(chainId, epoch, requestId, policyId,
/// resultDigest, result) for the current epoch.
interface IFHEVerdict {
    event VerdictAccepted(bytes32 indexed requestId, bytes32 indexed policyId, uint256 result, bytes32 resultDigest, uint64 epoch, uint32 signers);
    event CommitteeChanged(uint64 indexed epoch, uint32 threshold, uint32 size);
    event GovernanceTransferStarted(address indexed governance, address indexed pendingGovernance);
    event GovernanceTransferred(address indexed previousGovernance, address indexed newGovernance);

    function submit(bytes32 requestId, uint256 result, bytes32 resultDigest, bytes calldata signature, bytes calldata signers) external;

    function verdictOf(bytes32 requestId) external view returns (bool ready, uint256 result, bytes32 resultDigest, uint64 epoch);

    function committee() external view returns (uint64 epoch, uint32 threshold, uint32 size, address governance);

    /// 48-byte compressed BLS public key of member `index` in the current epoch.
    function memberKey(uint32 index) external view returns (bytes memory pubkey);

    /// Governance only: install a new committee. `epoch` must be exactly the
    /// current epoch plus one (1 when none is registered); every key needs its
    /// proof of possession.
    function setCommittee(uint64 epoch, uint32 threshold, bytes[] calldata pubkeys, bytes[] calldata pops) external;

    /// Governance only, step 1 of 2: propose `newGovernance` (the zero address
    /// cancels a pending proposal). Governance changes only when it accepts.
    function transferGovernance(address newGovernance) external;

    /// Step 2 of 2: the pending governance address accepts and becomes governance.
    function acceptGovernance() external;

    /// The proposed governance address (zero when none is pending).
    function pendingGovernance() external view returns (address);
}
