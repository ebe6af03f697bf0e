// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title FHEInput precompile (0x02000000000000000000000000000000000000f0)
/// @notice Registers committee-attested ciphertext handles and keeps their ACL.
/// A handle is keccak256 of the canonical ciphertext bytes; preset is the
/// parameter-preset id and ctype the ciphertext type tag.
interface IFHEInput {
    event InputRegistered(bytes32 indexed handle, address indexed owner, uint8 preset, uint8 ctype, uint64 epoch);
    event Allowed(bytes32 indexed handle, address indexed account, bool transient);

    /// Register `handle` for `owner`. `signature` is the committee's BLS aggregate
    /// over bls.InputDigest(chainId, epoch, handle, owner, preset, ctype) and
    /// `signers` the signer bitmap (bit i = member i, LSB first, ceil(n/8) bytes).
    function register(bytes32 handle, address owner, uint8 preset, uint8 ctype, bytes calldata signature, bytes calldata signers) external;

    /// Allow `account` to use `handle` (caller must be allowed on it).
    function allow(bytes32 handle, address account) external;

    /// Allow `account` to use `handle` for the rest of this transaction only.
    function allowTransient(bytes32 handle, address account) external;

    function isAllowed(bytes32 handle, address account) external view returns (bool);

    function handleInfo(bytes32 handle) external view returns (bool exists, address owner, uint8 preset, uint8 ctype);
}
