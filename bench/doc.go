// Package bench is the one home of fhegate's measurements: every number in
// docs/LP-137.md comes from a command of `fhegate bench`, and each command's
// logic lives in one package under bench/ (the CLI in cmd/fhegate only wires
// flags to a package's Command):
//
//	bench/inputs     fhegate bench inputs      proofs of plaintext knowledge: prove, verify, size
//	bench/policy     fhegate bench policy      the policy engine, per request and per packed decision (--wide: wide integers)
//	bench/committee  fhegate bench committee   the MPC committee over loopback TLS: DKG, verdicts, batches, packed batches, refresh
//	bench/workloads  fhegate bench workloads   six encrypted workloads, Lattigo baseline vs fhegate
//	bench/crdt       fhegate bench crdt        encrypted CRDT merges on BGVN14
//	bench/load       fhegate bench load        the load generator against a chain and its committee (also the e2e batch)
//
// This package holds what they share: the NTT gate's columns (Gate: the
// backend in force, the engine's transform counters and the pure-Go
// baseline of the same run, WithPureGo), process CPU time, medians, the
// --json and --cpuprofile plumbing. Baselines are measured in the same
// process as what they are compared with, so ratios carry across machines
// where absolute times do not. Timings read the wall clock and getrusage:
// nothing here is reachable from a precompile.
package bench
