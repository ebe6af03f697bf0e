// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {IFHECRDT} from "../interfaces/IFHECRDT.sol";
import {MockFHE} from "./MockFHE.sol";
import {MockFHEInput} from "./MockFHEInput.sol";

/// @title MockFHECRDT — FHECRDT over plaintext counters, for tests.
/// @notice A state is the set of input handles merged into it; merge is the
/// union (commutative, associative, idempotent, the id depends only on
/// {a, b}), and a counter's value (G- and PN-counter kinds) is the sum of the
/// plaintext values of its handles, which MockFHEVerdict.settleValue posts
/// as the verdict of a value() request. Metadata is stored and echoed but not
/// parsed or merged (the precompile merges per-replica metadata); LWW and
/// OR-set values are not computed (post them with MockFHEVerdict.settle).
/// See MockFHE for what a mock cannot show.
contract MockFHECRDT is IFHECRDT {
    uint8 internal constant KIND_GCOUNTER = 1;
    uint8 internal constant KIND_PNCOUNTER = 2;

    struct State {
        bool exists;
        uint8 kind;
        address owner;
        bytes32 handle;
        bytes32 parentA;
        bytes32 parentB;
        bytes metadata;
        bytes32[] leaves;
    }

    struct Request {
        bool exists;
        bytes32 stateId;
        address requester;
        uint64 blockNumber;
    }

    uint256 private nonce;
    mapping(bytes32 => State) private states;
    mapping(bytes32 => mapping(address => bool)) private acl;
    mapping(bytes32 => Request) private requests;

    function create(uint8 kind, bytes32 handle, bytes calldata metadata) external returns (bytes32 stateId) {
        if (kind == 0) revert("FHECRDT.create: kind 0 is reserved");
        if (!MockFHEInput(MockFHE.INPUT).canGrant(handle, msg.sender)) {
            revert(string.concat("FHECRDT.create: caller ", MockFHE.hexOf(msg.sender), " is not allowed to grant handle ",
                MockFHE.hexOf(handle), " (owner or persistent ACL only)"));
        }
        stateId = keccak256(abi.encode("fhegate mock crdt state", kind, handle, metadata));
        State storage s = states[stateId];
        if (!s.exists) {
            s.exists = true;
            s.kind = kind;
            s.owner = msg.sender;
            s.handle = handle;
            s.metadata = metadata;
            s.leaves.push(handle);
        }
        emit StateCreated(stateId, msg.sender, kind, handle, metadata);
    }

    function merge(bytes32 a, bytes32 b) external returns (bytes32 stateId) {
        State storage sa = states[a];
        State storage sb = states[b];
        if (!sa.exists || !sb.exists) revert("FHECRDT.merge: unknown state");
        if (sa.kind != sb.kind) revert(string.concat("FHECRDT.merge: kinds differ (", MockFHE.dec(sa.kind), ", ", MockFHE.dec(sb.kind), ")"));
        if (!allowed(a, msg.sender) || !allowed(b, msg.sender)) {
            revert(string.concat("FHECRDT.merge: caller ", MockFHE.hexOf(msg.sender), " is not allowed on both states"));
        }
        (bytes32 lo, bytes32 hi) = a < b ? (a, b) : (b, a);
        stateId = keccak256(abi.encode("fhegate mock crdt merge", lo, hi));
        State storage m = states[stateId];
        if (!m.exists) {
            m.exists = true;
            m.kind = sa.kind;
            m.owner = msg.sender;
            m.parentA = lo;
            m.parentB = hi;
            m.metadata = sa.metadata;
            _union(m.leaves, sa.leaves, sb.leaves);
        }
        emit StateMerged(stateId, lo, hi, sa.kind, m.metadata);
    }

    function _union(bytes32[] storage out, bytes32[] storage x, bytes32[] storage y) private {
        for (uint256 i = 0; i < x.length; i++) out.push(x[i]);
        for (uint256 j = 0; j < y.length; j++) {
            bool seen;
            for (uint256 i = 0; i < x.length && !seen; i++) seen = x[i] == y[j];
            if (!seen) out.push(y[j]);
        }
    }

    function value(bytes32 stateId) external returns (bytes32 requestId) {
        if (!states[stateId].exists) revert(string.concat("FHECRDT.value: unknown state ", MockFHE.hexOf(stateId)));
        if (!allowed(stateId, msg.sender)) {
            revert(string.concat("FHECRDT.value: caller ", MockFHE.hexOf(msg.sender), " is not allowed on state ", MockFHE.hexOf(stateId)));
        }
        requestId = keccak256(abi.encode("fhegate mock crdt value", block.chainid, stateId, msg.sender, ++nonce));
        requests[requestId] = Request(true, stateId, msg.sender, uint64(block.number));
        emit ValueRequested(requestId, stateId, msg.sender, bytes32(0));
    }

    function allow(bytes32 stateId, address account) external {
        State storage s = states[stateId];
        if (!s.exists) revert(string.concat("FHECRDT.allow: unknown state ", MockFHE.hexOf(stateId)));
        if (msg.sender != s.owner) revert(string.concat("FHECRDT.allow: only the owner of state ", MockFHE.hexOf(stateId), " may allow others"));
        if (account == address(0)) revert("FHECRDT.allow: zero account");
        acl[stateId][account] = true;
        emit StateAllowed(stateId, account);
    }

    function allowed(bytes32 stateId, address account) private view returns (bool) {
        return states[stateId].owner == account || acl[stateId][account];
    }

    function stateOf(bytes32 stateId)
        external
        view
        returns (bool exists, uint8 kind, address owner, bytes32 handle, bytes32 parentA, bytes32 parentB, bytes memory metadata)
    {
        State storage s = states[stateId];
        return (s.exists, s.kind, s.owner, s.handle, s.parentA, s.parentB, s.metadata);
    }

    function requestOf(bytes32 requestId) external view returns (bool exists, bytes32 stateId, address requester, uint64 blockNumber) {
        Request storage r = requests[requestId];
        return (r.exists, r.stateId, r.requester, r.blockNumber);
    }

    // ---- mock-only ----

    /// The plaintext value of a counter state: the sum of its inputs' values.
    function counterValue(bytes32 stateId) public view returns (int256 sum) {
        State storage s = states[stateId];
        require(s.exists, "MockFHECRDT.counterValue: unknown state");
        require(s.kind == KIND_GCOUNTER || s.kind == KIND_PNCOUNTER, "MockFHECRDT.counterValue: not a counter (settle it by hand)");
        for (uint256 i = 0; i < s.leaves.length; i++) {
            int256[] memory v = MockFHEInput(MockFHE.INPUT).plaintextOf(s.leaves[i]);
            for (uint256 j = 0; j < v.length; j++) sum += v[j];
        }
    }

    /// The handles merged into a state.
    function leavesOf(bytes32 stateId) external view returns (bytes32[] memory) {
        return states[stateId].leaves;
    }
}
