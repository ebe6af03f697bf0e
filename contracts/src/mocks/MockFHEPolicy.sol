// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {IFHEPolicy} from "../interfaces/IFHEPolicy.sol";
import {MockFHE} from "./MockFHE.sol";
import {MockFHEInput} from "./MockFHEInput.sol";

/// @title MockFHEPolicy — FHEPolicy without a committee, for tests.
/// @notice registerPolicy registers a spec as the chain does — under the
/// chain's policy id (the compiled plan's hash), depth, cost and input
/// count, or not at all, with the chain's revert reason — from what the Go
/// policy compiler and the chain's admission rule decided about the spec
/// (the WebAssembly client's compilePlan, run outside the EVM). fhegate-mock.cjs
/// writes that decision into `compiled` when a call first needs it; without
/// it, declare it with mockCompiled / mockRefused (a Foundry test: from
/// `fhegate policy inspect`). A spec nobody compiled reverts with
/// SpecNotCompiled. evaluate* check the ACL, the input count and the
/// deposit (exactly depositOf, held at this address) and record the request
/// as the precompile does, and keep its handles so the test's committee
/// (fhegate-mock.cjs) can run the plan on their plaintexts and post the
/// verdict with MockFHEVerdict.settle, which settles the deposit
/// (mockSettleDeposit). See MockFHE for what a mock cannot show.
contract MockFHEPolicy is IFHEPolicy {
    /// What registration decides about a spec (keccak256(spec) → decision).
    /// status: 0 not compiled, 1 admitted, 2 refused (reason: the revert
    /// reason after "FHEPolicy.registerPolicy: "); alone: 1 when the plan is
    /// evaluated alone (compilePlan's PlanInfo.alone: no deposit), else 0.
    /// fhegate-mock.cjs writes it with hardhat_setStorageAt: it must stay
    /// the first state variable, every field one slot, in this order (new
    /// fields go at the end).
    struct Compiled {
        uint256 status;
        bytes32 planHash;
        uint256 depth;
        uint256 cost;
        uint256 inputs;
        string reason;
        uint256 alone;
    }

    struct Policy {
        bool exists;
        bool alone;
        uint32 depth;
        uint32 inputs;
        uint64 cost;
        address registrant;
    }

    struct Request {
        bool exists;
        bool deposit; // holds its policy's deposit until MockFHEVerdict settles it
        bytes32 policyId;
        address requester;
        uint64 blockNumber;
        bytes32[] handles;
    }

    uint256 internal constant ADMITTED = 1;
    uint256 internal constant REFUSED = 2;

    mapping(bytes32 => Compiled) private compiled; // slot 0: see Compiled
    uint256 private nonce;
    mapping(bytes32 => Policy) private policies;
    mapping(bytes32 => Request) private requests;

    /// registerPolicy met a spec whose compiled plan nobody declared: compile
    /// it (fhegate-mock.cjs does, then retries the call) or declare it with
    /// mockCompiled / mockRefused.
    error SpecNotCompiled(bytes32 specHash, bytes spec);

    function input() private pure returns (MockFHEInput) {
        return MockFHEInput(MockFHE.INPUT);
    }

    // ---- mock-only ----

    /// Declares what registration gives the spec of hash `specHash`: the
    /// plan hash (the policy id), depth, cost, input count and whether the
    /// plan is evaluated alone (no deposit) (fhegate policy inspect, or the
    /// WebAssembly client's compilePlan).
    function mockCompiled(bytes32 specHash, bytes32 planHash, uint32 depth, uint64 cost, uint32 inputs, bool alone) external {
        require(planHash != bytes32(0), "MockFHEPolicy.mockCompiled: zero plan hash");
        compiled[specHash] = Compiled(ADMITTED, planHash, depth, cost, inputs, "", alone ? 1 : 0);
    }

    /// Declares that registration refuses the spec of hash `specHash`, with
    /// `reason` (what follows "FHEPolicy.registerPolicy: " in the chain's revert).
    function mockRefused(bytes32 specHash, string calldata reason) external {
        compiled[specHash] = Compiled(REFUSED, bytes32(0), 0, 0, 0, reason, 0);
    }

    /// The handles of a request (the precompile keeps them in its event only).
    function handlesOf(bytes32 requestId) external view returns (bytes32[] memory) {
        return requests[requestId].handles;
    }

    /// MockFHEVerdict's side of a decision: settles the deposit request
    /// `requestId` holds (if any) for verdict `result` — paid back to the
    /// requester as a balance credit (MockFHE.payDeposit: none of its code
    /// runs) or, for RESULT_REJECTED_INPUT, burnt — and returns the amount and
    /// whether it was burnt. Only the verdict mock may call it.
    function mockSettleDeposit(bytes32 requestId, uint256 result) external returns (uint256 amount, bool burnt) {
        require(msg.sender == MockFHE.VERDICT, "MockFHEPolicy.mockSettleDeposit: only FHEVerdict settles deposits");
        Request storage r = requests[requestId];
        if (!r.deposit) return (0, false);
        r.deposit = false;
        Policy storage p = policies[r.policyId];
        amount = MockFHE.deposit(p.cost, p.alone);
        burnt = result == MockFHE.RESULT_REJECTED_INPUT;
        if (burnt) MockFHE.burnDeposit(amount);
        else MockFHE.payDeposit(r.requester, amount);
    }

    // ---- IFHEPolicy ----

    function registerPolicy(bytes calldata spec) external returns (bytes32 policyId) {
        if (spec.length == 0 || spec.length > MockFHE.MAX_SPEC_BYTES) {
            revert(string.concat("FHEPolicy.registerPolicy: spec length ", MockFHE.dec(spec.length), " outside [1,",
                MockFHE.dec(MockFHE.MAX_SPEC_BYTES), "]"));
        }
        bytes32 specHash = keccak256(spec);
        Compiled storage c = compiled[specHash];
        if (c.status == REFUSED) revert(string.concat("FHEPolicy.registerPolicy: ", c.reason));
        if (c.status != ADMITTED) revert SpecNotCompiled(specHash, spec);
        policyId = c.planHash;
        if (!policies[policyId].exists) {
            policies[policyId] = Policy(true, c.alone != 0, uint32(c.depth), uint32(c.inputs), uint64(c.cost), msg.sender);
            emit PolicyRegistered(policyId, msg.sender, policyId, uint32(c.depth), uint64(c.cost), uint32(c.inputs), spec);
        }
    }

    function evaluate(bytes32 policyId, bytes32[] calldata handles) external payable returns (bytes32) {
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
    ) external payable returns (bytes32) {
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
    ) public payable returns (bytes32) {
        input().checkBatch("FHEPolicy.evaluateRooted", msg.sender, handles, ctypes, proofDigests);
        checkPolicy("evaluateRooted", policyId, handles.length);
        return record(policyId, handles);
    }

    /// The precompile's checks of a request, in its order: the policy, the
    /// input count, then the deposit (exactly depositOf as the call value).
    function checkPolicy(string memory method, bytes32 policyId, uint256 n) private view {
        Policy storage p = policies[policyId];
        if (!p.exists) revert(string.concat("FHEPolicy.", method, ": unknown policy ", MockFHE.hexOf(policyId)));
        uint256 k = p.inputs;
        if (k > 1 && n != k && n != 1) {
            revert(string.concat("FHEPolicy.", method, ": policy takes ", MockFHE.dec(k), " inputs: pass ", MockFHE.dec(k),
                " handles (one ciphertext per input) or 1 (a vector input holding all ", MockFHE.dec(k), "), got ", MockFHE.dec(n)));
        }
        uint256 want = MockFHE.deposit(p.cost, p.alone);
        if (msg.value != want) {
            revert(string.concat("FHEPolicy.", method, ": wrong deposit: policy ", MockFHE.hexOf(policyId), " takes a deposit of exactly ",
                MockFHE.dec(want), " wei (FHEPolicy.depositOf: refunded with the verdict, burnt when the input is rejected), the call carries ",
                MockFHE.dec(msg.value)));
        }
    }

    function record(bytes32 policyId, bytes32[] memory handles) private returns (bytes32 requestId) {
        requestId = keccak256(abi.encode(block.chainid, policyId, msg.sender, keccak256(abi.encodePacked(handles)), ++nonce));
        requests[requestId] = Request(true, msg.value != 0, policyId, msg.sender, uint64(block.number), handles);
        emit EvaluationRequested(requestId, policyId, msg.sender, handles, policies[policyId].cost);
    }

    function policyOf(bytes32 policyId)
        external
        view
        returns (bool exists, bytes32 planHash, uint32 depth, uint64 cost, uint32 inputs, address registrant)
    {
        Policy storage p = policies[policyId];
        return (p.exists, p.exists ? policyId : bytes32(0), p.depth, p.cost, p.inputs, p.registrant);
    }

    function depositOf(bytes32 policyId) public view returns (uint256) {
        Policy storage p = policies[policyId];
        if (!p.exists) revert(string.concat("FHEPolicy.depositOf: unknown policy ", MockFHE.hexOf(policyId)));
        return MockFHE.deposit(p.cost, p.alone);
    }

    function requestOf(bytes32 requestId) external view returns (bool exists, bytes32 policyId, address requester, uint64 blockNumber) {
        Request storage r = requests[requestId];
        return (r.exists, r.policyId, r.requester, r.blockNumber);
    }
}
