// Package load is fhegate's load generator (`fhegate bench load`, the
// real-node e2e batch): N funded accounts send M policy requests (KYC/AML by
// default) against a running chain and committee, every verdict is checked
// against the plaintext reference, and the run reports throughput, latency,
// gas by step, committee CPU and the bottleneck.
//
// # What one run does
//
// Accounts are derived from a fixed seed (keccak256("fhegate/loadgen" ‖ i))
// and topped up from a funder (dev0 on the devnet). Request k goes to
// account k mod N. The run has two phases with a barrier between them, so
// that the second phase measures the committee alone:
//
//  1. inputs: each account, concurrently with the others, encrypts its
//     requests' random in-range attributes under the committee key with a
//     proof of plaintext knowledge (examples/fheclient) and uploads them for
//     an attestation for the set. With InputsRooted (the default) the upload
//     asks for an input root too and nothing is sent on chain: several
//     uploads per account run at once (at most
//     api.MaxConcurrentStorePuts over all accounts), and those the
//     member attests together share one root (FHEPolicy.evaluateRooted then
//     carries the upload's path; one pairing per root). InputsVector is
//     the same with all of a request's attributes in one vector input (one
//     ciphertext, one proof, one handle: fheclient.Committee.UploadVector).
//     Otherwise it
//     registers the set (FHEInput.registerSet with InputsSet;
//     FHEInput.registerBatch, one slot per handle, with InputsPerHandle; no
//     transaction with InputsInline, whose FHEPolicy.evaluateAttested carries
//     the attestation), keeping up to InFlight transactions in flight
//     (explicit nonces, one receipt wait per window);
//  2. evaluate → verdict: every account sends its FHEPolicy.evaluate
//     transactions at once (a burst: the offered load is the whole batch),
//     then the run waits until FHEVerdict holds a verdict for every request
//     and reads each with verdictOf.
//
// One watcher goroutine polls the head (every Poll) and, for each new block,
// reads its header (gas used, gas limit) and the EvaluationRequested,
// VerdictAccepted and VerdictBatchAccepted logs. A request's latency is the time between the watcher
// seeing the block with its EvaluationRequested event and the block with its
// VerdictAccepted event (same observer, same resolution: Poll), i.e. from
// `evaluate` being on chain to `verdictOf` answering.
//
// # The numbers
//
// Percentiles are nearest-rank: p_q = sorted[⌈q·n⌉−1]. Gas per request is
// split by step: register (the receipts of the request's input
// registrations), evaluate (its evaluate receipt) and its verdict share: the
// gas of the transaction that carried its VerdictAccepted event divided by
// the verdicts in that receipt (1 for FHEVerdict.submit; a
// VerdictBatchAccepted event's count for FHEVerdict.submitBatch, whose
// request ids the watcher reads from the transaction's calldata, since the
// event names only the batch root).
//
// Throughput: accepted req/s = M ÷ (last EvaluationRequested seen − start of
// phase 2); verdicts/s = M ÷ (last VerdictAccepted seen − first
// EvaluationRequested seen). Committee CPU per verdict = ΔCPU ÷ M over phase
// 2, from a caller-supplied probe (the committee processes' /proc CPU, or —
// for the in-process devnet — this process's CPU, which then also counts the
// chain and the load clients' polling; Result says which).
//
// The bottleneck is the stage with the lowest capacity, in requests/s:
//
//	chain     = ⌊gas limit ÷ gas per request⌋ ÷ median block interval
//	committee = verdicts/s (phase 2 offers every request at once)
//	inputs    = M ÷ phase 1 wall (client encryption and proofs, the
//	            committee API's checks and attestations, register over RPC)
//
// and the RPC round trip (eth_blockNumber, measured by the watcher) is
// reported beside them.
//
// Every verdict that differs from the reference (policy.Plan.EvalSpec: the
// policy document evaluated over the integers) is counted and makes Run
// return an error; so does a request that gets no verdict in time.
package load
