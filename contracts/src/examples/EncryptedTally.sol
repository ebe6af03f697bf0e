// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {FHEGate} from "../lib/FHEGate.sol";

/// @title EncryptedTally — an encrypted vote tally on a PN-counter CRDT.
/// Each vote is a committee-attested ciphertext (+1 or -1 in the voter's replica
/// slot) with public per-replica metadata. The tally merges every vote into one
/// CRDT state on chain (symbolically: metadata only; the committee materialises
/// the ciphertext) and asks the committee to decrypt the total once.
/// @notice The tally is a deputy: once a voter allows it on their ballot, the
/// precompiles let the tally use it whoever calls vote. So vote requires that
/// msg.sender owns `handle` (FHEGate.requireOwned); with one vote per address
/// each ballot is counted at most once, as its owner's vote.
/// @dev FHECRDT.create checks that the tally is allowed on every handle
/// `metadata` references, not who owns them; this contract does not parse
/// metadata, so a vote's metadata should reference only `handle` (clients
/// build it that way).
contract EncryptedTally {
    bytes32 public current;
    uint256 public votes;
    bytes32 public revealRequest;
    mapping(address => bool) public voted;

    event Voted(address indexed voter, bytes32 indexed state, bytes32 indexed merged);
    event RevealRequested(bytes32 indexed requestId, bytes32 indexed state);

    /// @notice vote: `voter` has already voted.
    error AlreadyVoted(address voter);
    /// @notice requestReveal: no vote has been cast.
    error NothingToReveal();

    /// @notice Casts the caller's encrypted ballot. The caller must own `handle`
    /// and have allowed this contract on it (FHEInput.allow).
    /// @dev Reverts with AlreadyVoted, FHEGate.UnknownHandle or
    /// FHEGate.NotHandleOwner, or with FHECRDT's reason.
    function vote(bytes32 handle, bytes calldata metadata) external returns (bytes32 merged) {
        if (voted[msg.sender]) revert AlreadyVoted(msg.sender);
        FHEGate.requireOwned(handle, msg.sender);
        voted[msg.sender] = true;
        bytes32 s = FHEGate.CRDT.create(FHEGate.KIND_PNCOUNTER, handle, metadata);
        merged = current == bytes32(0) ? s : FHEGate.CRDT.merge(current, s);
        current = merged;
        votes += 1;
        emit Voted(msg.sender, s, merged);
    }

    function requestReveal() external returns (bytes32 requestId) {
        if (current == bytes32(0)) revert NothingToReveal();
        requestId = FHEGate.CRDT.value(current);
        revealRequest = requestId;
        emit RevealRequested(requestId, current);
    }

    /// @notice The decrypted tally, once the committee has posted it (a
    /// value mod t, read centred: FHEGate.requireSignedValue); reverts with
    /// FHEGate.VerdictNotReady before and with FHEGate.NotAValue when the
    /// reveal failed (expired, unevaluable).
    function total() external view returns (int256) {
        return FHEGate.requireSignedValue(revealRequest);
    }
}
