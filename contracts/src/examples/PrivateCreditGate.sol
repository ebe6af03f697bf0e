// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {FHEGate} from "../lib/FHEGate.sol";

/// @title PrivateCreditGate — grants a credit line when a private policy over
/// encrypted income and debt says yes. The contract never sees the numbers: it
/// asks FHEPolicy for an evaluation, the committee evaluates and posts a signed
/// verdict (1 = approve, anything else = deny), and settle() acts on it once.
/// @notice The gate is a deputy: once an owner allows it on their handles, the
/// precompiles let the gate use them whoever calls it. So applyFor binds the
/// handles to the applicant — msg.sender must own both (FHEGate.requireOwned)
/// — and accepts each handle pair once (the committee decrypts a ciphertext
/// once, so a duplicate request would never be answered).
contract PrivateCreditGate {
    bytes32 public immutable policyId;
    uint256 public immutable creditLimit;

    mapping(bytes32 => address) public applicantOf;
    mapping(bytes32 => bool) public settled;
    mapping(address => uint256) public creditLine;
    /// Handle set id (FHEGate.handleSetId([income, debt])) → the request made for it.
    mapping(bytes32 => bytes32) public requestOfHandles;

    event Applied(address indexed applicant, bytes32 indexed requestId);
    event Decision(address indexed applicant, bytes32 indexed requestId, bool approved, uint256 creditLine);

    /// @notice settle: `requestId` was not made by this gate's applyFor.
    error UnknownRequest(bytes32 requestId);
    /// @notice settle: the verdict for `requestId` has already been acted on.
    error AlreadySettled(bytes32 requestId);
    /// @notice applyFor: these handles (in this order; id `handleSetId`) were
    /// already used for request `requestId`. Register fresh inputs to apply again.
    error HandlesAlreadyUsed(bytes32 handleSetId, bytes32 requestId);

    constructor(bytes memory policySpec, uint256 limit) {
        policyId = FHEGate.POLICY.registerPolicy(policySpec);
        creditLimit = limit;
    }

    /// @notice Applies for the credit line with the caller's encrypted income
    /// and debt. The caller must own both handles and have allowed this
    /// contract on them (FHEInput.allow).
    /// @dev Reverts with FHEGate.UnknownHandle / FHEGate.NotHandleOwner when a
    /// handle is not registered or not owned by msg.sender, with
    /// HandlesAlreadyUsed when the pair was already applied with, and with
    /// FHEPolicy's reason when the gate is not allowed on a handle.
    function applyFor(bytes32 incomeHandle, bytes32 debtHandle) external returns (bytes32 requestId) {
        FHEGate.requireOwned(incomeHandle, msg.sender);
        FHEGate.requireOwned(debtHandle, msg.sender);
        bytes32[] memory hs = FHEGate.pair(incomeHandle, debtHandle);
        bytes32 setId = FHEGate.handleSetId(hs);
        bytes32 prior = requestOfHandles[setId];
        if (prior != bytes32(0)) revert HandlesAlreadyUsed(setId, prior);
        requestId = FHEGate.POLICY.evaluate(policyId, hs);
        requestOfHandles[setId] = requestId;
        applicantOf[requestId] = msg.sender;
        emit Applied(msg.sender, requestId);
    }

    /// @notice Acts on the committee's verdict for a request this gate made;
    /// anyone may call it once the verdict is posted.
    /// @dev Reverts with UnknownRequest, AlreadySettled or FHEGate.VerdictNotReady.
    function settle(bytes32 requestId) external returns (bool approved) {
        address applicant = applicantOf[requestId];
        if (applicant == address(0)) revert UnknownRequest(requestId);
        if (settled[requestId]) revert AlreadySettled(requestId);
        uint256 verdict = FHEGate.requireVerdict(requestId);
        settled[requestId] = true;
        approved = verdict == 1;
        if (approved) creditLine[applicant] = creditLimit;
        emit Decision(applicant, requestId, approved, creditLine[applicant]);
    }
}
