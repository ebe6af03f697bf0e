// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {IFHEInput} from "../interfaces/IFHEInput.sol";
import {IFHEPolicy} from "../interfaces/IFHEPolicy.sol";
import {IFHECRDT} from "../interfaces/IFHECRDT.sol";
import {IFHEVerdict} from "../interfaces/IFHEVerdict.sol";

/// @title FHEGate — addresses of the fhegate precompiles and small helpers.
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

    error VerdictNotReady(bytes32 requestId);

    /// Returns the accepted result for `requestId` or reverts with VerdictNotReady.
    function requireVerdict(bytes32 requestId) internal view returns (uint256 result) {
        (bool ready, uint256 r,,) = VERDICT.verdictOf(requestId);
        if (!ready) revert VerdictNotReady(requestId);
        return r;
    }

    /// True when the committee has posted a verdict for `requestId`.
    function verdictReady(bytes32 requestId) internal view returns (bool ready) {
        (ready,,,) = VERDICT.verdictOf(requestId);
    }

    /// Requests an evaluation of `policyId` over two handles.
    function evaluate2(bytes32 policyId, bytes32 a, bytes32 b) internal returns (bytes32 requestId) {
        bytes32[] memory hs = new bytes32[](2);
        hs[0] = a;
        hs[1] = b;
        return POLICY.evaluate(policyId, hs);
    }
}
