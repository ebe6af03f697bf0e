package pipeline

import (
	"context"
	"errors"
	"math/big"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/ledger"
	"github.com/fhegate/fhegate/consensus/liveness"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// Errors of a run.
var (
	ErrDigestMismatch = errors.New("consensus: this member's result digest disagrees with the quorum")
	ErrNoQuorum       = errors.New("consensus: no quorum")
	ErrBadDecryption  = errors.New("consensus: decryption does not have the verdict shape (non-zero masked slots)")
)

// Keys is one snapshot of a member's installed keys: the key material, its
// threshold key share, the evaluator and the noise plan. A run uses the
// snapshot it started with throughout.
type Keys struct {
	km   *protocol.KeyMaterial
	key  *protocol.ThresholdKey
	ev   *fhe.Evaluator
	plan protocol.NoisePlan
}

// NewKeys is a snapshot of installed keys.
func NewKeys(km *protocol.KeyMaterial, key *protocol.ThresholdKey, ev *fhe.Evaluator, plan protocol.NoisePlan) Keys {
	return Keys{km: km, key: key, ev: ev, plan: plan}
}

// Knobs are the test hooks of a run (consensus.TestingKnobs carries them
// to the runner): each makes the member deviate, or reports, at one point.
type Knobs struct {
	AfterRefresh   func(request [32]byte, refreshes int)
	BeforeRefresh  func(level int, b circuit.RefreshBounds)
	CorruptShares  bool
	CorruptRefresh bool
	CorruptAgreed  bool
	WrongDigest    bool
	Workers        int
}

// Config is what a run reads of the member's configuration.
type Config struct {
	Threshold    int
	RoundTimeout time.Duration
	Parallel     int // requests of a ProcessBatch in flight at once
	Circuits     circuit.Circuits
	// Trace, if set, is told the duration of every phase of every run.
	Trace func(request [32]byte, phase string, d time.Duration)
	Knobs Knobs
}

// Deps are the parts of a member a run uses: its identity and committee,
// the transport, share ledger, liveness marks and store it shares with the
// member's other jobs, and the member's answers to what only it knows —
// its keys, its inputs (fetched from peers when missing), the signatures
// of its peers and the verdicts it stored.
type Deps struct {
	Config  Config
	Params  *fhe.Params
	Self    transport.MemberID
	Members []transport.MemberID
	Log     *zap.Logger
	Mux     *transport.Mux
	Ledger  *ledger.Ledger
	Marks   *liveness.Marks
	Store   *store.Store

	// Snap returns the installed keys (an error before the DKG).
	Snap func() (Keys, error)
	// Group is the protocol group of a round among the committee.
	Group func() protocol.Group
	// Fetch gets an input from the peers (and stores it); CurrentInput
	// reads a stored one, refusing another key epoch's.
	Fetch        func(ctx context.Context, h fhe.Handle) (*fhe.Ciphertext, error)
	CurrentInput func(h fhe.Handle, epoch uint64) (*fhe.Ciphertext, error)
	// CheckEpoch refuses an input stored under key epoch stored for a run
	// at epoch.
	CheckEpoch func(h fhe.Handle, stored, epoch uint64) error
	// SignVerdict and SignDigest exchange BLS signatures with the signers
	// and aggregate them (the verdict's, or a batch digest's).
	SignVerdict func(ctx context.Context, base string, v *chainio.Verdict, signers []transport.MemberID, log *zap.Logger) (int, error)
	SignDigest  func(ctx context.Context, base string, d [32]byte, signers []transport.MemberID, log *zap.Logger) ([]byte, []byte, int, error)
	// SaveVerdict, SaveBatch and StoredVerdict persist and read verdicts.
	SaveVerdict   func(v *chainio.Verdict) error
	SaveBatch     func(b *chainio.VerdictBatch, vs []*chainio.Verdict) error
	StoredVerdict func(id [32]byte) (*chainio.Verdict, bool)
	// ProofKey is the input-proof key of the current public key.
	ProofKey func() (*zkpok.Key, error)
	// QuorumWant is how many of others' answers a quorum round waits for;
	// Grace how long it waits after that.
	QuorumWant func(others int) int
	Grace      time.Duration
	// Chain is the chain id verdicts are signed for.
	Chain func() *big.Int
	// Refreshes and Evaluations count the collective refreshes and the
	// circuit runs this member completed (the member's status).
	Refreshes, Evaluations *atomic.Uint64
}

// Runner is a member's request pipeline (see the package doc).
type Runner struct {
	d     Deps
	masks atomic.Pointer[protocol.MaskPool] // refresh masks made ahead (masksFor)
}

// New returns the pipeline of a member with these parts.
func New(d Deps) *Runner { return &Runner{d: d} }

// Close stops the pool of refresh masks made ahead, if any.
func (rn *Runner) Close() {
	if mp := rn.masks.Load(); mp != nil {
		mp.Close()
	}
}
