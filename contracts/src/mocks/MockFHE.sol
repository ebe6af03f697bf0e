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
/// Deposits are the precompiles': MockFHEPolicy takes exactly depositOf as
/// the call value of evaluate* and holds it, MockFHEVerdict pays it back to
/// the requester with the verdict (burns it for RESULT_REJECTED_INPUT) as a
/// balance credit that runs no code of the recipient (payDeposit). What
/// differs: the move goes through a throwaway contract FHEPolicy's mock
/// creates (its nonce grows; the chain's precompile just moves the balance),
/// no GasBalanceMove is charged, and value sent to a method that takes none
/// reverts with Solidity's empty revert, not the chain's "not payable" reason.
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
    /// ResultRejectedInput = 2^256 - 3: the request's deposit is burnt.
    uint256 internal constant RESULT_REJECTED_INPUT = type(uint256).max - 2;
    /// precompiles.BatchOccupancy: requests sharing one packed evaluation.
    uint256 internal constant BATCH_OCCUPANCY = 4096;
    /// precompiles.DepositWeiPerGas (1 gwei).
    uint256 internal constant DEPOSIT_WEI_PER_GAS = 1 gwei;

    /// precompiles.Deposit: what a request of a policy of plan cost `cost`
    /// carries (none for a policy evaluated alone).
    function deposit(uint256 cost, bool alone) internal pure returns (uint256) {
        if (alone) return 0;
        return cost * BATCH_OCCUPANCY * DEPOSIT_WEI_PER_GAS;
    }

    /// Moves `amount` wei of this contract's balance to `to` without running
    /// any code of `to`, as the precompile's balance credit does: a throwaway
    /// contract is created with the amount and its init code selfdestructs
    /// to `to` (PUSH20 to, SELFDESTRUCT; EIP-6780 still moves the balance).
    function payDeposit(address to, uint256 amount) internal {
        _selfdestructWith(abi.encodePacked(hex"73", to, hex"ff"), amount);
    }

    /// Burns `amount` wei of this contract's balance: the throwaway
    /// contract's init code selfdestructs to itself (ADDRESS, SELFDESTRUCT),
    /// and a contract destroyed in the transaction that created it burns
    /// what it leaves to itself (EIP-6780; Hardhat's cancun hardfork).
    function burnDeposit(uint256 amount) internal {
        _selfdestructWith(hex"30ff", amount);
    }

    function _selfdestructWith(bytes memory init, uint256 amount) private {
        if (amount == 0) return;
        address made;
        assembly ("memory-safe") {
            made := create(amount, add(init, 32), mload(init))
        }
        require(made != address(0), "MockFHE: deposit transfer failed");
    }

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
