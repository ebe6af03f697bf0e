package precompiles

// Gas schedule. docs/gas.md explains every entry; the BLS verification and the
// per-byte compile/merge charges are derived from the benchmarks in
// bench_test.go (command in docs/gas.md) at the calibration rate GasPerMicrosecond,
// the storage and log charges mirror the EVM's own (EIP-2929 cold SLOAD,
// SSTORE set, LOG).
const (
	// GasPerMicrosecond converts measured CPU time to gas: 3000 gas for the
	// ecrecover precompile at ≈50 µs gives 60 gas/µs.
	GasPerMicrosecond = 60

	GasMinimum   uint64 = 100    // charged for any call, including malformed / unknown selector
	GasRead      uint64 = 2_100  // storage slot read (EIP-2929 cold SLOAD)
	GasWrite     uint64 = 20_000 // storage slot write (SSTORE zero → non-zero)
	GasTRead     uint64 = 100    // transient slot read (EIP-1153 TLOAD)
	GasTWrite    uint64 = 100    // transient slot write (EIP-1153 TSTORE)
	GasLog       uint64 = 375    // per log
	GasLogTopic  uint64 = 375    // per log topic
	GasLogByte   uint64 = 8      // per byte of log data
	GasInputWord uint64 = 3      // per 32-byte word of calldata (decode + hash)

	// BLS aggregate verification: one hash-to-G2 + one pairing check
	// (≈1.2 ms measured → 72k gas, rounded up) plus, per committee member, the
	// key load (3 warm slots) and one G1 addition.
	GasBLSVerify    uint64 = 75_000
	GasBLSPerMember uint64 = 400
	// PoP check per key at setCommittee: a full single-signature verification.
	GasBLSPoP uint64 = 75_000

	// Policy compile. policy.Compile bounds its work by a deterministic budget
	// (policy.MaxCompileWork); the worst adversarial document measured at that
	// budget takes ≈60 ms of CPU (docs/gas-policy.md), so every registration
	// pays that worst case up front (60 ms × 60 gas/µs) plus a per-byte charge
	// for parsing and the event data. Registration is a one-off per policy.
	GasCompileBase uint64 = 3_600_000
	GasCompileByte uint64 = 16
	// CRDT metadata merge, per byte of metadata (both sides).
	GasMergeByte uint64 = 8

	// Limits.
	MaxSpecBytes     = 16 * 1024
	MaxHandles       = 64
	MaxMetadataBytes = 8192
	MaxCommitteeSize = 256
	MaxPlanCost      = 30_000_000
)

func logGas(topics, dataBytes int) uint64 {
	return GasLog + GasLogTopic*uint64(topics) + GasLogByte*uint64(dataBytes)
}

func words(n int) uint64 { return uint64(n+31) / 32 }
