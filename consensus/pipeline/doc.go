// Package pipeline is a committee member's request pipeline: what a member
// does with a request or a packed batch of them, from the inputs to the
// signed verdict. Runner depends on the parts of a member it is given
// (Deps: the transport, the share ledger, the liveness marks, the store,
// and the member's keys, input fetches, signatures and verdict records),
// not on the member itself.
//
// A request's way, in the order of the files:
//
//   - process.go: Process takes one request. A compiled policy with a
//     packed plan is answered as a packed batch of one (processAlone ->
//     ProcessPacked); a policy that does not compile for the preset is
//     answered unevaluable; a CRDT merge or a built-in test circuit runs
//     alone, a compiled policy's inputs after their entry refresh.
//   - packed.go: ProcessPacked packs a batch's inputs into slots (one
//     refreshed ciphertext per input position), or, for vector requests,
//     packed_vector.go packs each request's one ciphertext into
//     accumulators that the verified refresh transform un-interleaves.
//   - run.go: the phases every run shares — evaluate (with the plan's
//     refresh points), agree on the result digest, refresh if needed and
//     mask to the verdict slots, threshold-decrypt; refresh_live.go holds
//     the refreshes a run starts (with the live members, all contributing).
//   - isolate.go: a packed run whose verdicts leave the plan's output range
//     signs no value; the offenders are rejected together and the rest
//     re-run, within IsolationRuns extra runs per batch.
//   - process.go (run) and packed.go (runPacked) sign what the run
//     decrypted: one verdict, or one BLS aggregate over the batch digest.
//
// The protocols themselves (refresh, decryption, coin tosses) are
// consensus/protocol's; the circuits consensus/circuit's.
package pipeline
