// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {FHEGate} from "../lib/FHEGate.sol";
import {PrivateCreditGate} from "../examples/PrivateCreditGate.sol";

/// @title RefusingApplicant — a contract applicant of PrivateCreditGate whose
/// receive() reverts while `refusing` is set: settle cannot send it the
/// deposit's refund, which must stay claimable (withdrawRefund). Test
/// contract (contracts/hardhat/test); never deploy it on a real chain.
contract RefusingApplicant {
    bool public refusing = true;

    /// Lets `account` (the gate) use a handle this contract owns.
    function allow(bytes32 handle, address account) external {
        FHEGate.INPUT.allow(handle, account);
    }

    /// Applies to `gate`, forwarding msg.value as the deposit.
    function applyFor(PrivateCreditGate gate, bytes32 income, bytes32 debt) external payable returns (bytes32) {
        return gate.applyFor{value: msg.value}(income, debt);
    }

    /// Starts taking ETH, then claims the refund settle could not send.
    function withdrawRefund(PrivateCreditGate gate) external {
        refusing = false;
        gate.withdrawRefund();
    }

    receive() external payable {
        require(!refusing, "RefusingApplicant: refusing ETH");
    }
}
