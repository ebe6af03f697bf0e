// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title FHEInput precompile (0x02000000000000000000000000000000000000f0)
/// @notice Registers committee-attested ciphertext handles and keeps their ACL.
/// A handle is keccak256 of the canonical ciphertext bytes; preset is the
/// parameter-preset id and ctype the ciphertext type tag.
interface IFHEInput {
    event InputRegistered(bytes32 indexed handle, address indexed owner, uint8 preset, uint8 ctype, uint64 epoch);
    event Allowed(bytes32 indexed handle, address indexed account, bool transient);
    event InputSetRegistered(bytes32 indexed setId, address indexed owner, uint8 preset, uint64 epoch, bytes32[] handles);
    event SetAllowed(bytes32 indexed setId, address indexed account);

    /// Register the handles of one upload for `owner`, all under one committee
    /// attestation (one BLS verification for the set; at most 64 handles).
    /// handles[i] has ciphertext type ctypes[i], and proofDigests[i] is
    /// keccak256 of the proof of plaintext knowledge the committee verified for
    /// it. `signature` is the committee's BLS aggregate over
    /// bls.InputBatchDigest(chainId, epoch, owner, preset, root), root =
    /// bls.InputBatchRoot of the (handle, ctype, proofDigest) triples in this
    /// order, and `signers` the signer bitmap (bit i = member i, LSB first,
    /// ceil(n/8) bytes). Reverts as a whole when any handle is already
    /// registered. A single input is a batch of one.
    function registerBatch(
        address owner,
        uint8 preset,
        bytes32[] calldata handles,
        uint8[] calldata ctypes,
        bytes32[] calldata proofDigests,
        bytes calldata signature,
        bytes calldata signers
    ) external;

    /// Register the handles of one upload as one input set for `owner`: the
    /// same arguments and committee attestation as registerBatch, but one
    /// storage slot for the whole set instead of one per handle (one write
    /// instead of handles.length). setId = keccak256 of the handles in this
    /// order — the handlesHash FHEPolicy.evaluate records — and
    /// FHEPolicy.evaluate, called with exactly this list by the owner or by an
    /// account allowed on the set (allowSet), checks the set once instead of
    /// every handle. Handles registered only in a set are unknown to
    /// handleInfo, isAllowed, allow and FHECRDT (use registerBatch for those).
    /// Reverts if the set is already registered.
    function registerSet(
        address owner,
        uint8 preset,
        bytes32[] calldata handles,
        uint8[] calldata ctypes,
        bytes32[] calldata proofDigests,
        bytes calldata signature,
        bytes calldata signers
    ) external returns (bytes32 setId);

    /// Allow `account` to evaluate policies on input set `setId` (caller must
    /// be its owner or already allowed on it).
    function allowSet(bytes32 setId, address account) external;

    function setInfo(bytes32 setId) external view returns (bool exists, address owner, uint8 preset, uint64 epoch, uint16 count);

    /// Allow `account` to use `handle` (caller must be allowed on it).
    function allow(bytes32 handle, address account) external;

    /// Allow `account` to use `handle` for the rest of this transaction only.
    function allowTransient(bytes32 handle, address account) external;

    function isAllowed(bytes32 handle, address account) external view returns (bool);

    function handleInfo(bytes32 handle) external view returns (bool exists, address owner, uint8 preset, uint8 ctype);
}
