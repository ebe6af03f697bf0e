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

	GasMinimum uint64 = 100    // charged for any call, including malformed / unknown selector
	GasRead    uint64 = 2_100  // storage slot read (EIP-2929 cold SLOAD)
	GasWrite   uint64 = 20_000 // storage slot write (SSTORE zero → non-zero)
	// GasUpdate is a write to a slot already non-zero (EIP-2929 SSTORE
	// reset, 5,000 less the cold access the preceding GasRead paid): nonces,
	// the per-block queue counter, the verdict batch counter.
	GasUpdate    uint64 = 2_900
	GasTRead     uint64 = 100 // transient slot read (EIP-1153 TLOAD)
	GasTWrite    uint64 = 100 // transient slot write (EIP-1153 TSTORE)
	GasLog       uint64 = 375 // per log
	GasLogTopic  uint64 = 375 // per log topic
	GasLogByte   uint64 = 8   // per byte of log data
	GasInputWord uint64 = 3   // per 32-byte word of calldata (decode + hash)

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
	// MaxPlanCost caps a policy's per-request cost: a batch of it (cost ×
	// BatchOccupancy, ≈ one packed evaluation) must fit the committee's
	// per-block budget, or no block could ever queue it (234,375).
	MaxPlanCost = CommitteeGasPerBlock / BatchOccupancy
	// MaxVerdictBatch caps FHEVerdict.submitBatch's item count: one packed
	// evaluation on BGVN14 decides at most 16,384 requests (its slots). The
	// block gas limit binds first in practice (docs/gas.md: ≈ 1,100 items fit
	// a 30M-gas block).
	MaxVerdictBatch = 16_384

	// ExpiryBlocks is the age (in blocks) after which a request that still
	// has no verdict may be expired by anyone (FHEVerdict.expire): 1,024
	// blocks ≈ 34 min at 2 s blocks, far above a committee batch window.
	ExpiryBlocks = 1_024

	// MaxRequestsPerBlock bounds FHEPolicy.evaluate calls per block: one
	// target-occupancy batch (4,096 of BGVN14's 16,384 slots; half of
	// BGVN13's 8,192), so all requests of one policy queued in one block fit
	// one packed evaluation. Above it evaluate reverts with ErrQueueFull.
	MaxRequestsPerBlock = 4_096

	// CommitteeGasPerBlock is the committee CPU one block may queue, in gas
	// at GasPerMicrosecond: 8 cores per member × 2 s (the chain's target
	// block rate) × 60 gas/µs. The first request of a policy in a block opens
	// a packed evaluation and books cost × BatchOccupancy (≈ the whole
	// evaluation's plan gas) against it; later requests of that policy in the
	// block share that evaluation. When the booking would exceed the budget,
	// evaluate reverts with ErrQueueFull (docs/gas.md derives both bounds).
	CommitteeGasPerBlock = 8 * 2_000_000 * GasPerMicrosecond
	// BatchOccupancy is the target occupancy the plan cost is amortised
	// over (corebackends.TargetOccupancy on BGVN14): cost × BatchOccupancy is
	// one evaluation's plan gas (2× above it for BGVN13 plans: conservative).
	BatchOccupancy = 4_096
)

// Batch verdict costs. One item of FHEVerdict.submitBatch: the request's
// one-slot record, which names its policy by index (1 peer read), the
// verdict slot (1 read), one packed
// verdict word (1 write) and the CPU of its leaf hash and duplicate check
// (≈ 2 µs measured, priced at 60 gas/µs, rounded up).
const (
	GasVerdictItemCPU uint64 = 200
	GasVerdictItem           = 2*GasRead + GasWrite + GasVerdictItemCPU
)

func logGas(topics, dataBytes int) uint64 {
	return GasLog + GasLogTopic*uint64(topics) + GasLogByte*uint64(dataBytes)
}

func words(n int) uint64 { return uint64(n+31) / 32 }
