// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title FHEInput precompile (0x02000000000000000000000000000000000000f0)
/// @notice Registers committee-attested ciphertext handles and keeps their ACL.
/// A handle is keccak256 of the canonical ciphertext bytes; preset is the
/// parameter-preset id and ctype the ciphertext type tag.
interface IFHEInput {
    event InputRegistered(bytes32 indexed handle, address indexed owner, uint8 preset, uint8 ctype, uint64 epoch);
    event Allowed(bytes32 indexed handle, address indexed account, bool transient);

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

    /// Allow `account` to use `handle` (caller must be allowed on it).
    function allow(bytes32 handle, address account) external;

    /// Allow `account` to use `handle` for the rest of this transaction only.
    function allowTransient(bytes32 handle, address account) external;

    function isAllowed(bytes32 handle, address account) external view returns (bool);

    function handleInfo(bytes32 handle) external view returns (bool exists, address owner, uint8 preset, uint8 ctype);
}
