// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {FHEGate} from "../lib/FHEGate.sol";

/// @title EncryptedTally — an encrypted vote tally on a PN-counter CRDT.
/// Each vote is a committee-attested ciphertext (+1 or -1 in the voter's replica
/// slot) with public per-replica metadata. The tally merges every vote into one
/// CRDT state on chain (symbolically: metadata only; the committee materialises
/// the ciphertext) and asks the committee to decrypt the total once.
contract EncryptedTally {
    bytes32 public current;
    uint256 public votes;
    bytes32 public revealRequest;
    mapping(address => bool) public voted;

    event Voted(address indexed voter, bytes32 indexed state, bytes32 indexed merged);
    event RevealRequested(bytes32 indexed requestId, bytes32 indexed state);

    error AlreadyVoted(address voter);
    error NothingToReveal();

    /// The voter must first allow this contract on `handle` (FHEInput.allow).
    function vote(bytes32 handle, bytes calldata metadata) external returns (bytes32 merged) {
        if (voted[msg.sender]) revert AlreadyVoted(msg.sender);
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

    /// The decrypted tally (two's complement), once the committee has posted it.
    function total() external view returns (int256) {
        return int256(FHEGate.requireVerdict(revealRequest));
    }
}
