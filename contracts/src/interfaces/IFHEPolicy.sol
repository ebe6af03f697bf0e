// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title FHEPolicy precompile (0x02000000000000000000000000000000000000f1)
/// @notice Policy registry and evaluation requests. A policy is canonical spec
/// bytes; registration compiles it to a plan (hash, depth, cost, input count).
/// evaluate() checks the ACL on every handle, charges the plan's gas, records a
/// request and emits EvaluationRequested, which the committee watches.
/// @dev Deposits: a request of a packed policy carries depositOf(policyId) wei
/// as its call value (exactly; other amounts revert with "wrong deposit"). The
/// deposit is worth one whole packed evaluation — the work the committee does
/// again when an input's verdict falls outside the plan's output range. It is
/// settled in the transaction that posts the request's verdict: paid back to
/// the requester (the caller of evaluate; a balance credit, no code runs)
/// for any verdict but ResultRejectedInput (2^256 − 3), burnt for that one
/// (IFHEVerdict.DepositsSettled). Expired requests are refunded too. A policy
/// evaluated alone takes no deposit (depositOf returns 0).
interface IFHEPolicy {
    event PolicyRegistered(bytes32 indexed policyId, address indexed registrant, bytes32 planHash, uint32 depth, uint64 cost, uint32 inputs, bytes spec);
    event EvaluationRequested(bytes32 indexed requestId, bytes32 indexed policyId, address indexed requester, bytes32[] handles, uint64 cost);

    /// Register (idempotently) the policy with canonical spec bytes `spec`.
    /// policyId is the compiled plan hash.
    function registerPolicy(bytes calldata spec) external returns (bytes32 policyId);

    /// Queue an evaluation of `policyId` over `handles`; the caller must be allowed on every handle.
    /// For a policy of K > 1 inputs, `handles` is either K handles (one ciphertext per input) or
    /// exactly 1 handle: a vector input, one ciphertext holding all K attributes (see
    /// docs/precompiles.md); any other count reverts, naming both. The same rule holds for
    /// evaluateAttested and evaluateRooted. A policy whose input count is 0 takes any count.
    /// At most MAX_REQUESTS_PER_BLOCK (4096) requests are queued per block; above
    /// that evaluate reverts with "FHEPolicy.evaluate: request queue full for this block: ..." and
    /// queues nothing (retry in a later block). A request without a verdict
    /// after 1024 blocks can be expired (IFHEVerdict.expire).
    function evaluate(bytes32 policyId, bytes32[] calldata handles) external payable returns (bytes32 requestId);

    /// evaluate, with the inputs' committee attestation inline instead of a
    /// prior FHEInput registration — one transaction for inputs and request.
    /// The arguments after policyId are FHEInput.registerBatch's without the
    /// owner: the attestation must be for msg.sender (bls.InputBatchDigest
    /// with owner = caller), so nobody else can spend it. Nothing is stored
    /// for the inputs: they serve this request (register them with FHEInput to
    /// reuse them or to let a contract use them). Same input-count rule
    /// (K handles or 1 vector input), queue bound and EvaluationRequested
    /// event as evaluate.
    function evaluateAttested(
        bytes32 policyId,
        uint8 preset,
        bytes32[] calldata handles,
        uint8[] calldata ctypes,
        bytes32[] calldata proofDigests,
        bytes calldata signature,
        bytes calldata signers
    ) external payable returns (bytes32 requestId);

    /// evaluateAttested, with the inputs authorised by the committee's
    /// signature over a Merkle root of many uploads' attestation digests
    /// (an upload made with "rooted": true; see docs/precompiles.md): the
    /// leaf is msg.sender's upload digest under the current committee epoch,
    /// `index` and `path` (at most 16 siblings, leaf first) lead it to `root`.
    /// The first request under a root in an epoch passes the root's aggregate
    /// `signature` and `signers` and pays its one pairing; later requests pass
    /// empty bytes and pay two reads and the path's hashes. Same input-count
    /// rule as evaluate: the upload is K handles or 1 vector input.
    function evaluateRooted(
        bytes32 policyId,
        uint8 preset,
        bytes32[] calldata handles,
        uint8[] calldata ctypes,
        bytes32[] calldata proofDigests,
        bytes32 root,
        uint32 index,
        bytes32[] calldata path,
        bytes calldata signature,
        bytes calldata signers
    ) external payable returns (bytes32 requestId);

    /// The call value evaluate, evaluateAttested and evaluateRooted require for a
    /// request of `policyId`: cost × 4096 × 1 gwei for a packed policy, 0 for
    /// one evaluated alone. Reverts for an unknown policy.
    function depositOf(bytes32 policyId) external view returns (uint256 deposit);

    function policyOf(bytes32 policyId) external view returns (bool exists, bytes32 planHash, uint32 depth, uint64 cost, uint32 inputs, address registrant);

    /// A request's record: one storage slot. Its handles are in its
    /// EvaluationRequested event and bound into requestId
    /// (keccak256(abi.encodePacked(handles)) is one of the id's inputs).
    function requestOf(bytes32 requestId) external view returns (bool exists, bytes32 policyId, address requester, uint64 blockNumber);
}
