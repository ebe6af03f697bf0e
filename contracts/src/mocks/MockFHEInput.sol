// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {IFHEInput} from "../interfaces/IFHEInput.sol";
import {MockFHE} from "./MockFHE.sol";

/// @title MockFHEInput — FHEInput with plaintext "ciphertexts", for tests.
/// @notice mockEncrypt stands in for the client's encryption, its proof and
/// the committee's attestation: it records plaintext values for an owner and
/// returns a fresh handle and proof digest. registerBatch / registerSet then
/// accept the handle for that owner only (as the committee's attestation
/// binds the owner), whatever signature is passed. ACL, events and revert
/// strings follow the precompile. See MockFHE for what a mock cannot show.
/// @dev Deployed with hardhat_setCode at 0x02…f0: no constructor runs, so
/// every state starts at zero.
contract MockFHEInput is IFHEInput {
    struct Handle {
        bool registered;
        address owner;
        uint8 preset;
        uint8 ctype;
    }

    struct Set {
        bool exists;
        address owner;
        uint8 preset;
        uint16 count;
    }

    /// Emitted by mockEncrypt (a test can read the plaintext: it is a mock).
    event MockEncrypted(bytes32 indexed handle, address indexed owner, bytes32 proofDigest, int256[] values);

    uint256 private nonce;
    mapping(bytes32 => int256[]) private plain;
    mapping(bytes32 => address) private attestedFor;
    mapping(bytes32 => Handle) private handles_;
    mapping(bytes32 => mapping(address => bool)) private acl;
    mapping(bytes32 => Set) private sets;
    mapping(bytes32 => mapping(address => bool)) private setAcl;

    // ---- mock-only ----

    /// Stands in for encrypt + prove + upload + attestation: `values` (one
    /// scalar input: one value; a vector input: its attributes) become a
    /// "ciphertext" that `owner` may register.
    function mockEncrypt(address owner, int256[] calldata values) external returns (bytes32 handle, bytes32 proofDigest) {
        require(owner != address(0), "MockFHEInput.mockEncrypt: zero owner");
        require(values.length >= 1 && values.length <= 64, "MockFHEInput.mockEncrypt: 1 to 64 values");
        handle = keccak256(abi.encode("fhegate mock ciphertext", block.chainid, owner, ++nonce, values));
        proofDigest = keccak256(abi.encode("fhegate mock proof", handle));
        plain[handle] = values;
        attestedFor[handle] = owner;
        emit MockEncrypted(handle, owner, proofDigest, values);
    }

    /// The plaintext of a mock ciphertext (empty if it was not made by mockEncrypt).
    function plaintextOf(bytes32 handle) external view returns (int256[] memory) {
        return plain[handle];
    }

    /// The owner mockEncrypt bound `handle` to (the zero address if none).
    function attestedOwner(bytes32 handle) external view returns (address) {
        return attestedFor[handle];
    }

    // ---- IFHEInput ----

    function registerBatch(
        address owner,
        uint8 preset,
        bytes32[] calldata handles,
        uint8[] calldata ctypes,
        bytes32[] calldata proofDigests,
        bytes calldata,
        bytes calldata
    ) external {
        checkBatch("FHEInput.registerBatch", owner, handles, ctypes, proofDigests);
        for (uint256 i = 0; i < handles.length; i++) {
            if (handles_[handles[i]].registered) {
                revert(string.concat("FHEInput.registerBatch: handle ", MockFHE.hexOf(handles[i]), " already registered (nothing registered)"));
            }
        }
        for (uint256 i = 0; i < handles.length; i++) {
            handles_[handles[i]] = Handle(true, owner, preset, ctypes[i]);
            emit InputRegistered(handles[i], owner, preset, ctypes[i], MockFHE.EPOCH);
        }
    }

    function registerSet(
        address owner,
        uint8 preset,
        bytes32[] calldata handles,
        uint8[] calldata ctypes,
        bytes32[] calldata proofDigests,
        bytes calldata,
        bytes calldata
    ) external returns (bytes32 setId) {
        checkBatch("FHEInput.registerSet", owner, handles, ctypes, proofDigests);
        setId = keccak256(abi.encodePacked(handles));
        if (sets[setId].exists) revert(string.concat("FHEInput.registerSet: set ", MockFHE.hexOf(setId), " already registered"));
        sets[setId] = Set(true, owner, preset, uint16(handles.length));
        emit InputSetRegistered(setId, owner, preset, MockFHE.EPOCH, handles);
    }

    /// The precompile's decodeInputBatch checks, then the attestation's
    /// stand-in: every handle came from mockEncrypt for `owner` with its
    /// proof digest.
    function checkBatch(
        string memory method,
        address owner,
        bytes32[] memory handles,
        uint8[] memory ctypes,
        bytes32[] memory proofDigests
    ) public view {
        uint256 n = handles.length;
        if (n == 0 || n > MockFHE.MAX_HANDLES) {
            revert(string.concat(method, ": ", MockFHE.dec(n), " handles outside [1,", MockFHE.dec(MockFHE.MAX_HANDLES), "]"));
        }
        if (ctypes.length != n || proofDigests.length != n) {
            revert(string.concat(method, ": ", MockFHE.dec(n), " handles, ", MockFHE.dec(ctypes.length), " ctypes and ",
                MockFHE.dec(proofDigests.length), " proof digests (lengths must agree)"));
        }
        if (owner == address(0)) revert(string.concat(method, ": zero owner"));
        for (uint256 i = 0; i < n; i++) {
            if (handles[i] == bytes32(0)) revert(string.concat(method, ": zero handle at ", MockFHE.dec(i)));
            if (ctypes[i] != MockFHE.CTYPE_CIPHERTEXT) {
                revert(string.concat(method, ": ciphertext type ", MockFHE.dec(ctypes[i]), " at ", MockFHE.dec(i), " not allowed (allowed: 1)"));
            }
            for (uint256 j = 0; j < i; j++) {
                if (handles[j] == handles[i]) {
                    revert(string.concat(method, ": handle ", MockFHE.hexOf(handles[i]), " at ", MockFHE.dec(j), " and ", MockFHE.dec(i)));
                }
            }
            if (attestedFor[handles[i]] != owner || proofDigests[i] != keccak256(abi.encode("fhegate mock proof", handles[i]))) {
                revert(string.concat(method, ": mock: handle ", MockFHE.hexOf(handles[i]), " was not attested for ",
                    MockFHE.hexOf(owner), " (make inputs with mockEncrypt)"));
            }
        }
    }

    function allowSet(bytes32 setId, address account) external {
        Set storage s = sets[setId];
        if (!s.exists) revert(string.concat("FHEInput.allowSet: unknown set ", MockFHE.hexOf(setId)));
        if (account == address(0)) revert("FHEInput.allowSet: zero account");
        if (msg.sender != s.owner && !setAcl[setId][msg.sender]) {
            revert(string.concat("FHEInput.allowSet: caller ", MockFHE.hexOf(msg.sender), " is not allowed to grant set ",
                MockFHE.hexOf(setId), " (owner or an allowed account only)"));
        }
        setAcl[setId][account] = true;
        emit SetAllowed(setId, account);
    }

    function setInfo(bytes32 setId) external view returns (bool exists, address owner, uint8 preset, uint64 epoch, uint16 count) {
        Set storage s = sets[setId];
        return (s.exists, s.owner, s.preset, s.exists ? MockFHE.EPOCH : 0, s.count);
    }

    /// True when `account` owns set `setId` or was allowed on it.
    function setAllowed(bytes32 setId, address account) external view returns (bool) {
        Set storage s = sets[setId];
        return s.exists && (s.owner == account || setAcl[setId][account]);
    }

    function allow(bytes32 handle, address account) external {
        checkGrant("allow", handle, account);
        acl[handle][account] = true;
        emit Allowed(handle, account, false);
    }

    function allowTransient(bytes32 handle, address account) external {
        checkGrant("allowTransient", handle, account);
        bytes32 slot = transientSlot(handle, account);
        assembly {
            tstore(slot, 1)
        }
        emit Allowed(handle, account, true);
    }

    function checkGrant(string memory name, bytes32 handle, address account) private view {
        Handle storage h = handles_[handle];
        if (!h.registered) revert(string.concat("FHEInput.", name, ": unknown handle ", MockFHE.hexOf(handle)));
        if (msg.sender != h.owner && !acl[handle][msg.sender]) {
            revert(string.concat("FHEInput.", name, ": caller ", MockFHE.hexOf(msg.sender), " is not allowed to grant handle ",
                MockFHE.hexOf(handle), " (owner or persistent ACL only)"));
        }
        if (account == address(0)) revert(string.concat("FHEInput.", name, ": zero account"));
    }

    function transientSlot(bytes32 handle, address account) private pure returns (bytes32) {
        return keccak256(abi.encode("fhegate mock transient acl", handle, account));
    }

    function isAllowed(bytes32 handle, address account) public view returns (bool) {
        Handle storage h = handles_[handle];
        if (!h.registered) return false;
        if (h.owner == account || acl[handle][account]) return true;
        bytes32 slot = transientSlot(handle, account);
        uint256 t;
        assembly {
            t := tload(slot)
        }
        return t != 0;
    }

    /// True when `account` may grant `handle` (owner or persistent ACL), as FHECRDT.create requires.
    function canGrant(bytes32 handle, address account) external view returns (bool) {
        Handle storage h = handles_[handle];
        return h.registered && (h.owner == account || acl[handle][account]);
    }

    function handleInfo(bytes32 handle) external view returns (bool exists, address owner, uint8 preset, uint8 ctype) {
        Handle storage h = handles_[handle];
        return (h.registered, h.owner, h.preset, h.ctype);
    }
}
