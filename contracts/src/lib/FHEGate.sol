// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {IFHEInput} from "../interfaces/IFHEInput.sol";
import {IFHEPolicy} from "../interfaces/IFHEPolicy.sol";
import {IFHECRDT} from "../interfaces/IFHECRDT.sol";
import {IFHEVerdict} from "../interfaces/IFHEVerdict.sol";

/// @title FHEGate — addresses of the fhegate precompiles and small helpers.
/// @notice A contract that acts on handles a caller passes in is a deputy: the
/// precompiles check that the *contract* is allowed on them, not that the
/// caller is. Bind every handle to the account you act for with
/// `requireOwned` (or `requireAllOwned`) before evaluating, accept each handle
/// set once (`handleSetId`), and act only on verdicts for request ids your own
/// call returned (`requireVerdict`). See docs/precompiles.md, "What a contract
/// must check".
library FHEGate {
    IFHEInput internal constant INPUT = IFHEInput(0x02000000000000000000000000000000000000F0);
    IFHEPolicy internal constant POLICY = IFHEPolicy(0x02000000000000000000000000000000000000f1);
    IFHECRDT internal constant CRDT = IFHECRDT(0x02000000000000000000000000000000000000F2);
    IFHEVerdict internal constant VERDICT = IFHEVerdict(0x02000000000000000000000000000000000000f3);

    // CRDT kinds understood by FHECRDT (metadata layout is defined by fhe/crdt).
    uint8 internal constant KIND_GCOUNTER = 1;
    uint8 internal constant KIND_PNCOUNTER = 2;
    uint8 internal constant KIND_LWW = 3;
    uint8 internal constant KIND_ORSET = 4;

    /// @notice FHEVerdict has no accepted verdict for `requestId` yet.
    error VerdictNotReady(bytes32 requestId);
    /// @notice The verdict of `requestId` is a sentinel (unevaluable,
    /// expired, rejected input), not a decrypted value.
    error NotAValue(bytes32 requestId, uint256 result);
    /// @notice `handle` is not registered with FHEInput.
    error UnknownHandle(bytes32 handle);
    /// @notice `account` is not the registered owner of `handle`; `owner` is.
    error NotHandleOwner(bytes32 handle, address account, address owner);

    /// @notice The registered owner of `handle` (the account the committee
    /// attested the ciphertext for). Reverts with UnknownHandle when `handle`
    /// is not registered.
    function ownerOf(bytes32 handle) internal view returns (address owner) {
        bool exists;
        (exists, owner,,) = INPUT.handleInfo(handle);
        if (!exists) revert UnknownHandle(handle);
    }

    /// @notice Reverts with NotHandleOwner unless `who` owns `handle` (and with
    /// UnknownHandle when it is not registered). Call it with the account the
    /// contract acts for (usually msg.sender) on every handle the caller passes
    /// in: being allowed on a handle (isAllowed) is not enough, because the
    /// owner's allowance to this contract is what makes the handle usable here,
    /// whoever passes it in, and isAllowed is also true for accounts allowed
    /// transiently or by delegation.
    function requireOwned(bytes32 handle, address who) internal view {
        address owner = ownerOf(handle);
        if (owner != who) revert NotHandleOwner(handle, who, owner);
    }

    /// @notice requireOwned on every handle of `handles`, in order.
    function requireAllOwned(bytes32[] memory handles, address who) internal view {
        for (uint256 i = 0; i < handles.length; i++) {
            requireOwned(handles[i], who);
        }
    }

    /// @notice The id of an ordered handle set: keccak256(abi.encodePacked(handles)),
    /// the handles hash bound into the id of a request over `handles` and the
    /// id of an FHEInput input set. Use it to accept each handle set once: the committee decrypts
    /// a ciphertext once, so a second request over the same handles is never answered.
    function handleSetId(bytes32[] memory handles) internal pure returns (bytes32) {
        return keccak256(abi.encodePacked(handles));
    }

    /// @notice The two-element handle array [a, b].
    function pair(bytes32 a, bytes32 b) internal pure returns (bytes32[] memory hs) {
        hs = new bytes32[](2);
        hs[0] = a;
        hs[1] = b;
    }

    /// @notice Returns the accepted result for `requestId` or reverts with
    /// VerdictNotReady. Pass only request ids your own evaluate/value call
    /// returned (keep them in storage), never one a caller supplies unchecked.
    function requireVerdict(bytes32 requestId) internal view returns (uint256 result) {
        (bool ready, uint256 r,,) = VERDICT.verdictOf(requestId);
        if (!ready) revert VerdictNotReady(requestId);
        return r;
    }

    /// The plaintext modulus t of every public preset (bgv-n13-t65537,
    /// bgv-n14-t65537): the committee posts a decrypted value in [0, t), a
    /// negative one as t − |value|.
    uint256 internal constant PLAINTEXT_MODULUS = 65537;

    /// @notice The accepted result for `requestId` read as a signed value
    /// (a PN-counter's total, a score that may be negative): centred mod t,
    /// in [−32768, 32768]. Reverts with VerdictNotReady before the verdict
    /// and with NotAValue when the verdict is a sentinel (unevaluable,
    /// expired, rejected input).
    function requireSignedValue(bytes32 requestId) internal view returns (int256) {
        uint256 r = requireVerdict(requestId);
        if (r >= PLAINTEXT_MODULUS) revert NotAValue(requestId, r);
        return r > PLAINTEXT_MODULUS / 2 ? int256(r) - int256(PLAINTEXT_MODULUS) : int256(r);
    }

    /// True when the committee has posted a verdict for `requestId`.
    function verdictReady(bytes32 requestId) internal view returns (bool ready) {
        (ready,,,) = VERDICT.verdictOf(requestId);
    }

    /// The committee's verdict for a request whose input decrypted outside
    /// its plan's output range (2^256 − 3): the request's deposit is burnt.
    uint256 internal constant RESULT_REJECTED_INPUT = type(uint256).max - 2;

    /// @notice Requests an evaluation of `policyId` over two handles, paying
    /// the policy's deposit (IFHEPolicy.depositOf) from this contract's
    /// balance; returns the request id and the deposit paid. FHEVerdict pays
    /// the deposit back to this contract with the verdict unless the verdict
    /// is RESULT_REJECTED_INPUT. It does not check who owns the handles: call
    /// requireOwned first.
    function evaluate2(bytes32 policyId, bytes32 a, bytes32 b) internal returns (bytes32 requestId, uint256 deposit) {
        deposit = POLICY.depositOf(policyId);
        requestId = POLICY.evaluate{value: deposit}(policyId, pair(a, b));
    }
}
