// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title FHECRDT precompile (0x02000000000000000000000000000000000000f2)
/// @notice Encrypted CRDT states: a packed ciphertext handle plus public
/// per-replica metadata. merge() merges the metadata on chain (deterministic,
/// commutative, associative, idempotent) and records the merge; the committee
/// materialises the merged ciphertext. value() queues a decryption request.
interface IFHECRDT {
    event StateCreated(bytes32 indexed stateId, address indexed owner, uint8 kind, bytes32 handle, bytes metadata);
    event StateMerged(bytes32 indexed stateId, bytes32 indexed a, bytes32 indexed b, uint8 kind, bytes metadata);
    event ValueRequested(bytes32 indexed requestId, bytes32 indexed stateId, address indexed requester, bytes32 policyId);
    event StateAllowed(bytes32 indexed stateId, address indexed account);

    /// Create a state of CRDT `kind` from ciphertext `handle` (caller must be allowed on it).
    function create(uint8 kind, bytes32 handle, bytes calldata metadata) external returns (bytes32 stateId);

    /// Merge two states of the same kind; the id depends only on {a, b}, so merging twice is a no-op.
    function merge(bytes32 a, bytes32 b) external returns (bytes32 stateId);

    /// Request the committee to decrypt the state's value; returns the request id FHEVerdict answers.
    function value(bytes32 stateId) external returns (bytes32 requestId);

    /// Let `account` merge / request the value of `stateId` (caller must be its owner).
    function allow(bytes32 stateId, address account) external;

    function stateOf(bytes32 stateId) external view returns (bool exists, uint8 kind, address owner, bytes32 handle, bytes32 parentA, bytes32 parentB, bytes memory metadata);

    function requestOf(bytes32 requestId) external view returns (bool exists, bytes32 stateId, address requester, uint64 blockNumber);
}
