// Package e2e runs fhegate's VM plugin inside a real avalanchego v1.14.0 node
// booted by avalanchego's tests/fixture/tmpnet: one node (sybil protection off,
// --fd-limit=16384), a subnet, and a chain running the fhegate VM with the
// precompiles enabled in its genesis. The MPC committee (n=3, t=2) runs as
// three separate `fhegate committee serve` processes against the node's
// JSON-RPC; its keys come from `fhegate committee init` + `dkg` and are
// registered with `fhegate plugin genesis`. A Go client (examples/creditgate)
// encrypts two inputs under the committee key, has them attested, applies
// through PrivateCreditGate, and settles on the verdict the committee posts.
// Then the load generator (bench/load) sends a batch of 64 requests
// (allowlist; FHEGATE_E2E_LOAD_POLICY and FHEGATE_E2E_LOAD_REQUESTS change
// it) from 4 accounts and checks every verdict against the plaintext
// reference. Everything listens on 127.0.0.1.
//
// FHEGATE_E2E_KEEP_LOGS=DIR copies the members' full logs into DIR when the
// run fails.
//
// FHEGATE_E2E_COMMITTEE=standin replaces the committee processes by a
// stand-in that signs with registered keys (no FHE): the VM alone.
//
// Run it with test/e2e/run.sh (installs avalanchego, builds the plugin), or
//
//	AVALANCHEGO_PATH=/path/to/avalanchego go test -tags e2e -count=1 -v ./test/e2e/...
//
// Without avalanchego the test skips and says how to get it.
package e2e
