// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {IFHEPolicy} from "../interfaces/IFHEPolicy.sol";
import {MockFHE} from "./MockFHE.sol";
import {MockFHEInput} from "./MockFHEInput.sol";

/// @title MockFHEPolicy — FHEPolicy without a compiler or a committee, for tests.
/// @notice registerPolicy does not compile the spec: the policy id is
/// keccak256(spec) (the precompile's is the compiled plan hash), depth and
/// cost are 0, and the input count is whatever mockSetInputs declares (0:
/// any count, as for an input-less policy). evaluate* check the ACL and
/// record the request as the precompile does, and keep its handles so a test
/// can compute the verdict from their plaintexts and post it with
/// MockFHEVerdict.settle. See MockFHE for what a mock cannot show.
contract MockFHEPolicy is IFHEPolicy {
    struct Policy {
        bool exists;
        uint32 inputs;
        address registrant;
    }

    struct Request {
        bool exists;
        bytes32 policyId;
        address requester;
        uint64 blockNumber;
        bytes32[] handles;
    }

    uint256 private nonce;
    mapping(bytes32 => Policy) private policies;
    mapping(bytes32 => Request) private requests;

    function input() private pure returns (MockFHEInput) {
        return MockFHEInput(MockFHE.INPUT);
    }

    // ---- mock-only ----

    /// Declares the input count the compiled plan of `policyId` would have
    /// (enables the K-handles-or-one-vector-input rule).
    function mockSetInputs(bytes32 policyId, uint32 inputs) external {
        require(policies[policyId].exists, "MockFHEPolicy.mockSetInputs: unknown policy");
        policies[policyId].inputs = inputs;
    }

    /// The handles of a request (the precompile keeps them in its event only).
    function handlesOf(bytes32 requestId) external view returns (bytes32[] memory) {
        return requests[requestId].handles;
    }

    // ---- IFHEPolicy ----

    function registerPolicy(bytes calldata spec) external returns (bytes32 policyId) {
        if (spec.length == 0 || spec.length > MockFHE.MAX_SPEC_BYTES) {
            revert(string.concat("FHEPolicy.registerPolicy: spec length ", MockFHE.dec(spec.length), " outside [1,",
                MockFHE.dec(MockFHE.MAX_SPEC_BYTES), "]"));
        }
        policyId = keccak256(spec);
        if (!policies[policyId].exists) {
            policies[policyId] = Policy(true, 0, msg.sender);
            emit PolicyRegistered(policyId, msg.sender, policyId, 0, 0, 0, spec);
        }
    }

    function evaluate(bytes32 policyId, bytes32[] calldata handles) external returns (bytes32) {
        if (handles.length == 0 || handles.length > MockFHE.MAX_HANDLES) {
            revert(string.concat("FHEPolicy.evaluate: ", MockFHE.dec(handles.length), " handles outside [1,", MockFHE.dec(MockFHE.MAX_HANDLES), "]"));
        }
        checkPolicy("evaluate", policyId, handles.length);
        if (!input().setAllowed(keccak256(abi.encodePacked(handles)), msg.sender)) {
            for (uint256 i = 0; i < handles.length; i++) {
                if (!input().isAllowed(handles[i], msg.sender)) {
                    revert(string.concat("FHEPolicy.evaluate: caller ", MockFHE.hexOf(msg.sender), " is not allowed on handle ",
                        MockFHE.dec(i), " (", MockFHE.hexOf(handles[i]), ")"));
                }
            }
        }
        return record(policyId, handles);
    }

    function evaluateAttested(
        bytes32 policyId,
        uint8,
        bytes32[] calldata handles,
        uint8[] calldata ctypes,
        bytes32[] calldata proofDigests,
        bytes calldata,
        bytes calldata
    ) external returns (bytes32) {
        input().checkBatch("FHEPolicy.evaluateAttested", msg.sender, handles, ctypes, proofDigests);
        checkPolicy("evaluateAttested", policyId, handles.length);
        return record(policyId, handles);
    }

    /// The root, index and path are not checked (no committee signs roots
    /// here). Public with memory arguments: calldata arrays would not fit the stack.
    function evaluateRooted(
        bytes32 policyId,
        uint8,
        bytes32[] memory handles,
        uint8[] memory ctypes,
        bytes32[] memory proofDigests,
        bytes32,
        uint32,
        bytes32[] memory,
        bytes memory,
        bytes memory
    ) public returns (bytes32) {
        input().checkBatch("FHEPolicy.evaluateRooted", msg.sender, handles, ctypes, proofDigests);
        checkPolicy("evaluateRooted", policyId, handles.length);
        return record(policyId, handles);
    }

    function checkPolicy(string memory method, bytes32 policyId, uint256 n) private view {
        Policy storage p = policies[policyId];
        if (!p.exists) revert(string.concat("FHEPolicy.", method, ": unknown policy ", MockFHE.hexOf(policyId)));
        uint256 k = p.inputs;
        if (k > 1 && n != k && n != 1) {
            revert(string.concat("FHEPolicy.", method, ": policy takes ", MockFHE.dec(k), " inputs: pass ", MockFHE.dec(k),
                " handles (one ciphertext per input) or 1 (a vector input holding all ", MockFHE.dec(k), "), got ", MockFHE.dec(n)));
        }
    }

    function record(bytes32 policyId, bytes32[] memory handles) private returns (bytes32 requestId) {
        requestId = keccak256(abi.encode(block.chainid, policyId, msg.sender, keccak256(abi.encodePacked(handles)), ++nonce));
        requests[requestId] = Request(true, policyId, msg.sender, uint64(block.number), handles);
        emit EvaluationRequested(requestId, policyId, msg.sender, handles, 0);
    }

    function policyOf(bytes32 policyId)
        external
        view
        returns (bool exists, bytes32 planHash, uint32 depth, uint64 cost, uint32 inputs, address registrant)
    {
        Policy storage p = policies[policyId];
        return (p.exists, p.exists ? policyId : bytes32(0), 0, 0, p.inputs, p.registrant);
    }

    function requestOf(bytes32 requestId) external view returns (bool exists, bytes32 policyId, address requester, uint64 blockNumber) {
        Request storage r = requests[requestId];
        return (r.exists, r.policyId, r.requester, r.blockNumber);
    }
}
