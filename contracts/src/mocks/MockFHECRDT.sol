// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {IFHECRDT} from "../interfaces/IFHECRDT.sol";
import {MockFHE} from "./MockFHE.sol";
import {MockFHEInput} from "./MockFHEInput.sol";

/// @title MockFHECRDT — FHECRDT over plaintext counters, for tests.
/// @notice States carry canonical CRDT metadata (fhe/crdt/meta) as on the
/// chain: create accepts only metadata the chain accepts, for the kind it
/// names, and checks the caller may grant every handle it references;
/// merge stores the metadata's join under the chain's id
/// (keccak("fhegate/crdt/merge/v1", lo, hi)), with the chain's owner rule
/// (the inputs' common owner, else none) and access for every caller
/// allowed on both inputs. What the metadata rules decide (the Go code of
/// fhe/crdt/meta, run outside the EVM by the WebAssembly client:
/// crdtCheck, crdtMerge) is written into `checked` and `merged` by
/// fhegate-mock.cjs when a call first needs it; without it, declare it with
/// mockChecked / mockMerged. Metadata nobody decided reverts with
/// MetadataNotChecked or MetadataNotMerged. A counter's value (G- and
/// PN-counters) is what the committee decrypts: the sum over the state's
/// entries of lane (block × width) of the entry's plaintext, which
/// MockFHEVerdict.settleValue posts as the verdict of a value() request.
/// LWW and set values are not computed (post them with
/// MockFHEVerdict.settle). See MockFHE for what a mock cannot show.
contract MockFHECRDT is IFHECRDT {
    uint8 internal constant KIND_GCOUNTER = 1;
    uint8 internal constant KIND_PNCOUNTER = 2;
    uint256 internal constant ACCEPTED = 1;
    uint256 internal constant REFUSED = 2;

    /// What create decides about (kind, metadata), keyed by
    /// keccak256(abi.encode(kind, metadata)): status (0 undecided, 1
    /// accepted, 2 refused), the reason (after "FHECRDT.create: metadata: ")
    /// and the referenced handles. fhegate-mock.cjs writes it with
    /// hardhat_setStorageAt: first state variable, each field one slot.
    struct Checked {
        uint256 status;
        string reason;
        bytes32[] handles;
    }

    /// What merge decides about (kind, a's metadata, b's metadata), keyed by
    /// keccak256(abi.encode(kind, a, b)): status, the reason (after
    /// "FHECRDT.merge: metadata: ") and the merged metadata. Second state
    /// variable, each field one slot.
    struct Merged {
        uint256 status;
        string reason;
        bytes metadata;
    }

    struct State {
        bool exists;
        uint8 kind;
        address owner;
        bytes32 handle;
        bytes32 parentA;
        bytes32 parentB;
        bytes metadata;
    }

    struct Request {
        bool exists;
        bytes32 stateId;
        address requester;
        uint64 blockNumber;
    }

    mapping(bytes32 => Checked) private checked; // slot 0: see Checked
    mapping(bytes32 => Merged) private merged; // slot 1: see Merged
    uint256 private stateNonce;
    uint256 private nonce;
    mapping(bytes32 => State) private states;
    mapping(bytes32 => mapping(address => bool)) private acl;
    mapping(bytes32 => Request) private requests;

    /// create met metadata whose decision nobody declared (fhegate-mock.cjs
    /// decides it and retries the call; or mockChecked).
    error MetadataNotChecked(uint8 kind, bytes metadata);
    /// merge met two states' metadata whose join nobody declared.
    error MetadataNotMerged(uint8 kind, bytes a, bytes b);

    // ---- mock-only ----

    /// Declares that create accepts `metadata` for `kind`, referencing `handles`.
    function mockChecked(uint8 kind, bytes calldata metadata, bytes32[] calldata handles) external {
        Checked storage c = checked[keccak256(abi.encode(kind, metadata))];
        c.status = ACCEPTED;
        c.handles = handles;
    }

    /// Declares the join of two states' metadata.
    function mockMerged(uint8 kind, bytes calldata a, bytes calldata b, bytes calldata metadata) external {
        merged[keccak256(abi.encode(kind, a, b))] = Merged(ACCEPTED, "", metadata);
    }

    // ---- IFHECRDT ----

    function create(uint8 kind, bytes32 handle, bytes calldata metadata) external returns (bytes32 stateId) {
        if (kind == 0) revert("FHECRDT.create: kind 0 is reserved");
        if (metadata.length > MockFHE.MAX_METADATA_BYTES) {
            revert(string.concat("FHECRDT.create: metadata ", MockFHE.dec(metadata.length), " bytes, max ", MockFHE.dec(MockFHE.MAX_METADATA_BYTES)));
        }
        MockFHEInput input = MockFHEInput(MockFHE.INPUT);
        if (!input.canGrant(handle, msg.sender)) {
            revert(string.concat("FHECRDT.create: caller ", MockFHE.hexOf(msg.sender), " is not allowed to grant handle ",
                MockFHE.hexOf(handle), " (owner or persistent ACL only)"));
        }
        Checked storage c = checked[keccak256(abi.encode(kind, metadata))];
        if (c.status == REFUSED) revert(string.concat("FHECRDT.create: metadata: ", c.reason));
        if (c.status != ACCEPTED) revert MetadataNotChecked(kind, metadata);
        if (c.handles.length > MockFHE.MAX_HANDLES) {
            revert(string.concat("FHECRDT.create: metadata references ", MockFHE.dec(c.handles.length), " handles, max ", MockFHE.dec(MockFHE.MAX_HANDLES)));
        }
        for (uint256 i = 0; i < c.handles.length; i++) {
            bytes32 r = c.handles[i];
            if (r != handle && !input.canGrant(r, msg.sender)) {
                revert(string.concat("FHECRDT.create: caller ", MockFHE.hexOf(msg.sender), " is not allowed to grant metadata handle ",
                    MockFHE.dec(i), " (", MockFHE.hexOf(r), ") (owner or persistent ACL only)"));
            }
        }
        stateId = keccak256(abi.encodePacked("fhegate/crdt/state/v1", block.chainid, stateNonce++));
        states[stateId] = State(true, kind, msg.sender, handle, bytes32(0), bytes32(0), metadata);
        emit StateCreated(stateId, msg.sender, kind, handle, metadata);
    }

    function merge(bytes32 a, bytes32 b) external returns (bytes32 stateId) {
        (bytes32 lo, bytes32 hi) = a < b ? (a, b) : (b, a);
        State storage sa = states[lo];
        State storage sb = states[hi];
        if (!sa.exists || !sb.exists) revert("FHECRDT.merge: unknown state");
        if (sa.kind != sb.kind) revert(string.concat("FHECRDT.merge: kinds differ (", MockFHE.dec(sa.kind), ", ", MockFHE.dec(sb.kind), ")"));
        if (!allowed(lo, msg.sender) || !allowed(hi, msg.sender)) {
            revert(string.concat("FHECRDT.merge: caller ", MockFHE.hexOf(msg.sender), " is not allowed on both states"));
        }
        if (lo == hi) return lo; // merge is idempotent
        // the chain's rule: the inputs' common owner, else nobody; every caller allowed on both gets access
        stateId = keccak256(abi.encodePacked("fhegate/crdt/merge/v1", lo, hi));
        address owner = sa.owner == sb.owner ? sa.owner : address(0);
        if (!states[stateId].exists) {
            Merged storage m = merged[keccak256(abi.encode(sa.kind, sa.metadata, sb.metadata))];
            if (m.status == REFUSED) revert(string.concat("FHECRDT.merge: metadata: ", m.reason));
            if (m.status != ACCEPTED) revert MetadataNotMerged(sa.kind, sa.metadata, sb.metadata);
            if (m.metadata.length > MockFHE.MAX_METADATA_BYTES) {
                revert(string.concat("FHECRDT.merge: merged metadata ", MockFHE.dec(m.metadata.length), " bytes, max ",
                    MockFHE.dec(MockFHE.MAX_METADATA_BYTES)));
            }
            states[stateId] = State(true, sa.kind, owner, bytes32(0), lo, hi, m.metadata);
            emit StateMerged(stateId, lo, hi, sa.kind, m.metadata);
        }
        if (!(owner != address(0) && msg.sender == owner) && !acl[stateId][msg.sender]) {
            acl[stateId][msg.sender] = true;
            emit StateAllowed(stateId, msg.sender);
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
        if (s.owner == address(0) || msg.sender != s.owner) {
            revert(string.concat("FHECRDT.allow: only the owner of state ", MockFHE.hexOf(stateId), " may allow others"));
        }
        if (account == address(0)) revert("FHECRDT.allow: zero account");
        acl[stateId][account] = true;
        emit StateAllowed(stateId, account);
    }

    function allowed(bytes32 stateId, address account) private view returns (bool) {
        address owner = states[stateId].owner;
        return (owner != address(0) && owner == account) || acl[stateId][account];
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

    /// The plaintext value of a counter state, as the committee decrypts it:
    /// Σ over the metadata's entries of lane (block × width) of the entry's
    /// plaintext (a scalar input holds its value in every lane).
    function counterValue(bytes32 stateId) public view returns (int256 sum) {
        State storage s = states[stateId];
        require(s.exists, "MockFHECRDT.counterValue: unknown state");
        require(s.kind == KIND_GCOUNTER || s.kind == KIND_PNCOUNTER, "MockFHECRDT.counterValue: not a counter (settle it by hand)");
        bytes memory m = s.metadata;
        // "FCRD" | version | type | preset | level | blocks u32 | width u32 | count u32 | count × (block u32 | clock u64 | replica u32 | handle)
        uint256 width = be(m, 12, 4);
        uint256 count = be(m, 16, 4);
        for (uint256 i = 0; i < count; i++) {
            uint256 e = 20 + 48 * i;
            uint256 lane = be(m, e, 4) * width;
            bytes32 h;
            assembly {
                h := mload(add(add(m, 32), add(e, 16)))
            }
            int256[] memory v = MockFHEInput(MockFHE.INPUT).plaintextOf(h);
            if (v.length == 1) sum += v[0];
            else if (lane < v.length) sum += v[lane];
        }
    }

    function be(bytes memory b, uint256 at, uint256 n) private pure returns (uint256 x) {
        for (uint256 i = 0; i < n; i++) x = (x << 8) | uint8(b[at + i]);
    }
}
