package consensus

import (
	"time"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/config"
	"github.com/fhegate/fhegate/consensus/protocol"
)

// MemberConfig configures one member.
type MemberConfig struct {
	Committee config.CommitteeConfig
	Self      uint32
	BLSKey    *bls.SecretKey
	// RoundTimeout bounds each protocol round (0: 30 s).
	RoundTimeout time.Duration
	// Heartbeat is how often the member tells every peer it is alive and
	// how far its serve loop got (liveness.go; 0: 1 s): a peer marked
	// unresponsive is re-admitted by it, no session needed.
	Heartbeat time.Duration
	// BatchSize and BatchInterval: a chain without block marks flushes its
	// one-by-one requests when BatchSize wait or every BatchInterval (0: 64, 200 ms).
	BatchSize     int
	BatchInterval time.Duration
	// Parallel is the number of requests of a batch in flight at once (0: 8).
	Parallel int
	// SubmitStagger delays the k-th signer's verdict submission by k·stagger
	// so that normally only the lowest signer posts (0: 2 s).
	SubmitStagger time.Duration
	// Circuits resolves policy ids to circuits (nil: BuiltinCircuits).
	Circuits circuit.Circuits
	// Packing (chainio/batch.go, pipeline/packed.go): policy requests are packed into
	// aligned windows of BatchWindow blocks (0: 1); a window closes when
	// the chain adapter has delivered its last block (a block mark), never
	// on a clock (so on a chain that builds blocks only for transactions, a
	// wider window's last requests wait for the next transaction). A closed
	// window with at least PackMin requests of one policy is evaluated as
	// packed batches (0: DefaultPackMin = 2; negative: never pack), smaller
	// ones request by request. Requests older than ExpiryBlocks blocks are
	// dropped (0: 1024). The chain books one packed evaluation per policy
	// and block (docs/gas.md, "Booked work"): a PackMin above 2 evaluates
	// requests one by one that the chain booked as one evaluation.
	BatchWindow uint64
	// BatchIdle: when a window is open, no block has come for BatchIdle
	// and the chain adapter is a BlockMaker (a devnet), the member asks
	// the chain for blocks up to the window's last one (0: 2 s). The
	// window still closes on its block mark, never on this timer.
	BatchIdle    time.Duration
	PackMin      int
	ExpiryBlocks uint64
	// RootWindow is the longest an input root's batch at this member waits
	// for the rooted uploads in progress here before the committee signs
	// its root; it closes sooner once none is left, or once it has waited
	// as long as its first upload took to be attested (input roots,
	// roots.go; ≤ 0: DefaultRootWindow, 2 min).
	RootWindow time.Duration
	// Trace, if set, receives the duration of each phase of Process
	// ("eval", "digest", "refresh", "mask", "decrypt", "sign") — for benchmarks.
	Trace func(request [32]byte, phase string, d time.Duration)
	// Knobs are hooks for tests only; production leaves them zero.
	Knobs TestingKnobs
	// Shared, when several members run in one process (an in-process
	// committee: local.Start, the devnet), is their common cache of public
	// key material: each member verifies its keys as it would alone, then
	// keeps the one copy of the equal keys and the one evaluator over them
	// (protocol.SharedPublic). Nil (a member alone in its process, as
	// `fhegate committee serve` runs it): the member holds its own.
	Shared *protocol.SharedPublic
}

// TestingKnobs let tests act at points inside a member's protocol rounds
// (e.g. kill a peer between two refreshes of one request) or make a member
// misbehave (for tests of detection and exclusion). Zero in production.
type TestingKnobs struct {
	// AfterRefresh is called when this member has completed a collective
	// refresh inside a request's evaluation (not the final refresh before
	// decryption); refreshes counts the request's refreshes so far.
	AfterRefresh func(request [32]byte, refreshes int)
	// BeforeRefresh is called before every collective refresh this member
	// takes part in (plan refresh points, final refreshes, packed inputs,
	// rotation) with the input's level and the noise bounds the refresh is
	// sized for; tests check the level against noise.RefreshFloorLevel.
	BeforeRefresh func(level int, b circuit.RefreshBounds)
	// CorruptShares flips a bit of every decryption share this member sends
	// (a member that detection must exclude).
	CorruptShares bool
	// CorruptRefresh flips a bit of every share in every refresh share
	// bundle this member sends, well-formed: a member that moves the value
	// of every refresh it contributes to, which the cross-check must refuse.
	CorruptRefresh bool
	// CorruptAgreed flips a bit of every value this member sends in a
	// vector batch's agreed rounds (its packed accumulators and its
	// evaluation result, protocol.AgreedFromActive), keeping its own copy
	// right: a lying packer.
	CorruptAgreed bool
	// WrongDigest makes this member announce a wrong result digest.
	WrongDigest bool
	// InStorePut is called by each StorePut handler while it holds its
	// MaxConcurrentStorePuts slot, before it stores the ciphertext.
	InStorePut func()
	// RefuseRootSign makes this member refuse every input-root request
	// (a root round that cannot reach quorum).
	RefuseRootSign bool
	// Workers > 0 bounds the goroutines of this member's block packing and
	// refresh transform (else GOMAXPROCS), as on a machine with fewer cores.
	Workers int
}

// DefaultPackMin is the smallest window of one policy's requests the serve
// loop packs: every window of ≥ 2 requests is one packed evaluation, which
// is what FHEPolicy books per policy and block (docs/gas.md, "Booked
// work"); a window of one request is one evaluation either way.
const DefaultPackMin = 2

func (c *MemberConfig) defaults() {
	if c.RoundTimeout <= 0 {
		c.RoundTimeout = 30 * time.Second
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = time.Second
	}
	if c.BatchSize <= 0 {
		c.BatchSize = 64
	}
	if c.BatchInterval <= 0 {
		c.BatchInterval = 200 * time.Millisecond
	}
	if c.Parallel <= 0 {
		c.Parallel = 8
	}
	if c.BatchWindow == 0 {
		c.BatchWindow = 1
	}
	if c.BatchIdle <= 0 {
		c.BatchIdle = 2 * time.Second
	}
	if c.PackMin == 0 {
		c.PackMin = DefaultPackMin
	}
	if c.ExpiryBlocks == 0 {
		c.ExpiryBlocks = 1024
	}
	if c.SubmitStagger <= 0 {
		c.SubmitStagger = 2 * time.Second
	}
	if c.Circuits == nil {
		c.Circuits = circuit.BuiltinCircuits{}
	}
}
