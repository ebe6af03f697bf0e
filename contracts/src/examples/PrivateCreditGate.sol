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
/// @notice Deposits: FHEPolicy takes a deposit with every request of a packed
/// policy (IFHEPolicy.depositOf) and pays it back with the verdict unless the
/// input was rejected. The applicant sends it with applyFor; settle passes the
/// refund on to the applicant (or keeps it claimable with withdrawRefund when
/// the applicant cannot take it), so the gate never pays from its own balance.
contract PrivateCreditGate {
    bytes32 public immutable policyId;
    uint256 public immutable creditLimit;

    mapping(bytes32 => address) public applicantOf;
    mapping(bytes32 => bool) public settled;
    mapping(address => uint256) public creditLine;
    /// Handle set id (FHEGate.handleSetId([income, debt])) → the request made for it.
    mapping(bytes32 => bytes32) public requestOfHandles;
    /// Request → the deposit its applicant paid (cleared by settle).
    mapping(bytes32 => uint256) public depositOf;
    /// Refunds an applicant could not take when settle sent them.
    mapping(address => uint256) public refundOf;

    event Applied(address indexed applicant, bytes32 indexed requestId);
    event Decision(address indexed applicant, bytes32 indexed requestId, bool approved, uint256 creditLine);

    /// @notice settle: `requestId` was not made by this gate's applyFor.
    error UnknownRequest(bytes32 requestId);
    /// @notice settle: the verdict for `requestId` has already been acted on.
    error AlreadySettled(bytes32 requestId);
    /// @notice applyFor: these handles (in this order; id `handleSetId`) were
    /// already used for request `requestId`. Register fresh inputs to apply again.
    error HandlesAlreadyUsed(bytes32 handleSetId, bytes32 requestId);
    /// @notice applyFor: send exactly the policy's deposit (`want` wei,
    /// IFHEPolicy.depositOf); the call carried `got`.
    error WrongDeposit(uint256 want, uint256 got);
    /// @notice withdrawRefund: nothing is owed to the caller.
    error NothingToWithdraw();

    constructor(bytes memory policySpec, uint256 limit) {
        policyId = FHEGate.POLICY.registerPolicy(policySpec);
        creditLimit = limit;
    }

    /// @notice Applies for the credit line with the caller's encrypted income
    /// and debt. The caller must own both handles and have allowed this
    /// contract on them (FHEInput.allow), and send the policy's deposit
    /// (IFHEPolicy.depositOf(policyId)); settle returns it unless the
    /// committee rejects the input.
    /// @dev Reverts with FHEGate.UnknownHandle / FHEGate.NotHandleOwner when a
    /// handle is not registered or not owned by msg.sender, with
    /// HandlesAlreadyUsed when the pair was already applied with, with
    /// WrongDeposit, and with FHEPolicy's reason when the gate is not allowed
    /// on a handle.
    function applyFor(bytes32 incomeHandle, bytes32 debtHandle) external payable returns (bytes32 requestId) {
        FHEGate.requireOwned(incomeHandle, msg.sender);
        FHEGate.requireOwned(debtHandle, msg.sender);
        bytes32[] memory hs = FHEGate.pair(incomeHandle, debtHandle);
        bytes32 setId = FHEGate.handleSetId(hs);
        bytes32 prior = requestOfHandles[setId];
        if (prior != bytes32(0)) revert HandlesAlreadyUsed(setId, prior);
        uint256 d = FHEGate.POLICY.depositOf(policyId);
        if (msg.value != d) revert WrongDeposit(d, msg.value);
        requestId = FHEGate.POLICY.evaluate{value: d}(policyId, hs);
        requestOfHandles[setId] = requestId;
        applicantOf[requestId] = msg.sender;
        depositOf[requestId] = d;
        emit Applied(msg.sender, requestId);
    }

    /// @notice Acts on the committee's verdict for a request this gate made;
    /// anyone may call it once the verdict is posted. It passes the deposit
    /// FHEVerdict paid back with the verdict on to the applicant (nothing
    /// when the verdict is a rejected input: the deposit was burnt).
    /// @dev Reverts with UnknownRequest, AlreadySettled or FHEGate.VerdictNotReady.
    function settle(bytes32 requestId) external returns (bool approved) {
        address applicant = applicantOf[requestId];
        if (applicant == address(0)) revert UnknownRequest(requestId);
        if (settled[requestId]) revert AlreadySettled(requestId);
        uint256 verdict = FHEGate.requireVerdict(requestId);
        settled[requestId] = true;
        approved = verdict == 1;
        if (approved) creditLine[applicant] = creditLimit;
        uint256 refund = depositOf[requestId];
        delete depositOf[requestId];
        emit Decision(applicant, requestId, approved, creditLine[applicant]);
        if (refund != 0 && verdict != FHEGate.RESULT_REJECTED_INPUT) {
            // effects are done: a re-entering applicant finds the request settled
            (bool ok,) = payable(applicant).call{value: refund}("");
            if (!ok) refundOf[applicant] += refund;
        }
    }

    /// @notice Takes a refund settle could not send to the caller.
    function withdrawRefund() external {
        uint256 amount = refundOf[msg.sender];
        if (amount == 0) revert NothingToWithdraw();
        refundOf[msg.sender] = 0;
        (bool ok,) = payable(msg.sender).call{value: amount}("");
        require(ok, "PrivateCreditGate: refund transfer failed");
    }
}
