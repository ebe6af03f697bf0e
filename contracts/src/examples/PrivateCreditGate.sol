// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {FHEGate} from "../lib/FHEGate.sol";

/// @title PrivateCreditGate — grants a credit line when a private policy over
/// encrypted income and debt says yes. The contract never sees the numbers: it
/// asks FHEPolicy for an evaluation, the committee evaluates and posts a signed
/// verdict (1 = approve, 0 = deny), and settle() acts on it once.
contract PrivateCreditGate {
    bytes32 public immutable policyId;
    uint256 public immutable creditLimit;

    mapping(bytes32 => address) public applicantOf;
    mapping(bytes32 => bool) public settled;
    mapping(address => uint256) public creditLine;

    event Applied(address indexed applicant, bytes32 indexed requestId);
    event Decision(address indexed applicant, bytes32 indexed requestId, bool approved, uint256 creditLine);

    error UnknownRequest(bytes32 requestId);
    error AlreadySettled(bytes32 requestId);

    constructor(bytes memory policySpec, uint256 limit) {
        policyId = FHEGate.POLICY.registerPolicy(policySpec);
        creditLimit = limit;
    }

    /// The applicant must first allow this contract on both handles (FHEInput.allow).
    function applyFor(bytes32 incomeHandle, bytes32 debtHandle) external returns (bytes32 requestId) {
        requestId = FHEGate.evaluate2(policyId, incomeHandle, debtHandle);
        applicantOf[requestId] = msg.sender;
        emit Applied(msg.sender, requestId);
    }

    /// Acts on the committee's verdict; anyone may call it once the verdict is posted.
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
