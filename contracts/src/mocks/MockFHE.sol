// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title MockFHE — shared constants and revert-string formatting of the
/// precompile mocks (contracts/src/mocks).
/// @notice The mocks stand in for the fhegate precompiles in contract unit
/// tests (Hardhat, Foundry): the same interfaces, events and revert strings,
/// with PLAINTEXT inside and a `settle` call standing in for the committee.
/// They prove nothing about confidentiality (every "ciphertext" is readable
/// on chain), gas (costs are those of this Solidity, not the precompiles'),
/// the committee's attestations (signatures are not checked) or the
/// encrypted evaluation (the test's committee runs the compiled plan on the
/// plaintexts: fhegate-mock.cjs).
/// Never deploy them on a real chain.
library MockFHE {
    address internal constant INPUT = 0x02000000000000000000000000000000000000F0;
    address internal constant POLICY = 0x02000000000000000000000000000000000000f1;
    address internal constant CRDT = 0x02000000000000000000000000000000000000F2;
    address internal constant VERDICT = 0x02000000000000000000000000000000000000f3;

    /// The committee epoch the mocks report and bind.
    uint64 internal constant EPOCH = 1;
    /// precompiles.MaxHandles (= MaxInputBatch).
    uint256 internal constant MAX_HANDLES = 64;
    /// precompiles.MaxSpecBytes.
    uint256 internal constant MAX_SPEC_BYTES = 16 * 1024;
    /// precompiles.MaxMetadataBytes.
    uint256 internal constant MAX_METADATA_BYTES = 8192;
    /// precompiles.ExpiryBlocks.
    uint64 internal constant EXPIRY_BLOCKS = 1024;
    /// precompiles.CTypeCiphertext.
    uint8 internal constant CTYPE_CIPHERTEXT = 1;
    /// The plaintext modulus of the public presets: verdicts are values in [0, t).
    uint256 internal constant PLAINTEXT_MODULUS = 65537;
    /// ResultExpired = 2^256 - 2.
    uint256 internal constant RESULT_EXPIRED = type(uint256).max - 1;

    bytes16 private constant DIGITS = "0123456789abcdef";

    function hexOf(bytes32 v) internal pure returns (string memory) {
        return _hex(abi.encodePacked(v));
    }

    function hexOf(address v) internal pure returns (string memory) {
        return _hex(abi.encodePacked(v));
    }

    function _hex(bytes memory b) private pure returns (string memory) {
        bytes memory s = new bytes(2 + 2 * b.length);
        s[0] = "0";
        s[1] = "x";
        for (uint256 i = 0; i < b.length; i++) {
            s[2 + 2 * i] = DIGITS[uint8(b[i]) >> 4];
            s[3 + 2 * i] = DIGITS[uint8(b[i]) & 15];
        }
        return string(s);
    }

    function dec(uint256 v) internal pure returns (string memory) {
        if (v == 0) return "0";
        uint256 n;
        for (uint256 x = v; x != 0; x /= 10) n++;
        bytes memory s = new bytes(n);
        for (; v != 0; v /= 10) s[--n] = bytes1(uint8(48 + (v % 10)));
        return string(s);
    }
}
