// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {FHEGate} from "../lib/FHEGate.sol";
import {IFHEInput} from "../interfaces/IFHEInput.sol";

/// @title FHEProbe — test harness for the real-EVM tests: reverts after a
/// successful precompile call, writes through STATICCALL, bounded-gas calls and
/// transient allowances.
contract FHEProbe {
    event Probed(bool ok, bytes data);

    /// Evaluates (forwarding msg.value as the deposit), then reverts: the
    /// request must leave no trace.
    function evaluateThenRevert(bytes32 policyId, bytes32[] calldata handles) external payable {
        FHEGate.POLICY.evaluate{value: msg.value}(policyId, handles);
        revert("probe: rolled back");
    }

    /// Tries FHEInput.allow through STATICCALL; returns the call's success flag and return data.
    function staticAllow(bytes32 handle, address account) external returns (bool ok, bytes memory data) {
        (ok, data) = address(FHEGate.INPUT).staticcall(abi.encodeCall(IFHEInput.allow, (handle, account)));
        emit Probed(ok, data);
    }

    /// Reads isAllowed through STATICCALL (must work).
    function staticIsAllowed(bytes32 handle, address account) external view returns (bool) {
        return FHEGate.INPUT.isAllowed(handle, account);
    }

    /// Calls `data` on precompile `target` with exactly `gasLimit` gas.
    function callWithGas(address target, bytes calldata data, uint256 gasLimit) external returns (bool ok, bytes memory ret) {
        (ok, ret) = target.call{gas: gasLimit}(data);
        emit Probed(ok, ret);
    }

    /// Grants `account` a transient allowance and checks it inside the same transaction.
    function transientAllowAndCheck(bytes32 handle, address account) external returns (bool) {
        FHEGate.INPUT.allowTransient(handle, account);
        bool allowed = FHEGate.INPUT.isAllowed(handle, account);
        emit Probed(allowed, "");
        return allowed;
    }

    /// Evaluates with the probe as the caller (the probe must be allowed on
    /// the handles), forwarding msg.value as the deposit; the refund comes
    /// back to the probe.
    function evaluate(bytes32 policyId, bytes32[] calldata handles) external payable returns (bytes32) {
        return FHEGate.POLICY.evaluate{value: msg.value}(policyId, handles);
    }
}
