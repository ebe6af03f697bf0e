package consensus

import (
	"context"
	"math/big"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/pipeline"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
)

// Test hooks. The tests that need an in-process committee are in package
// consensus_test (package local imports consensus); these expose to them
// what they check inside a member.

var (
	StorePut       = storePut
	VerdictBatches = pipeline.VerdictBatches
	Rotated        = pipeline.Rotated
	Hex0x          = hex0x
	ShareSealed    = shareSealed
	RootSign       = rootSign
	RandTag        = randTag
)

const (
	RootPartial  = rootPartial
	RootLeafWait = rootLeafWait
)

func (m *Member) PackedCircuit(id [32]byte) (circuit.Circuit, error) { return m.pipe.PackedCircuit(id) }
func (m *Member) VectorWidthOf(r chainio.Request) int                { return m.pipe.VectorWidthOf(r) }
func (m *Member) Mux() *transport.Mux                                { return m.mux }
func (m *Member) ChainID() *big.Int                                  { return m.chain() }
func (m *Member) Servable(h fhe.Handle) ([]byte, error)              { return m.uploads.servable(h) }
func (m *Member) SetProgress(block uint64)                           { m.marks.SetProgress(block) }
func (m *Member) MarkDown(ids []transport.MemberID)                  { m.marks.MarkDown(ids) }
func (m *Member) BLSKey() *bls.SecretKey                             { return m.cfg.BLSKey }
func (m *Member) ThresholdKeyBytes() ([]byte, error)                 { return m.keyring.key.MarshalBinary() }

// KeyEpoch is the epoch of the member's key material.
func (m *Member) KeyEpoch() (uint64, error) {
	ks, err := m.snap()
	return ks.km.Epoch, err
}

// HeartbeatsFrom is how many heartbeats the member received from id.
func (m *Member) HeartbeatsFrom(id transport.MemberID) uint64 { return m.marks.HeartbeatsFrom(id) }

// PackBlocks packs reqs as a vector batch does (pipeline.Runner.PackBlocks),
// in runs of the value SetPackViewRun set.
func (m *Member) PackBlocks(ctx context.Context, reqs []chainio.Request, layout fhe.VectorLayout, level int, log *zap.Logger) ([]*fhe.Ciphertext, error) {
	return m.pipe.PackBlocks(ctx, reqs, layout, level, packViewRun, log)
}

// packViewRun is the run length PackBlocks reads in (0: the pipeline's).
var packViewRun int

// Input roots.
func (m *Member) MarkSigned(d [32]byte) { m.roots.signed.add(d) }

type RootTicket = rootTicket

// RootsBegin counts an upload in progress that began an hour ago: a batch
// it opens holds for up to its window (an upload's hold is as long as it
// took to be attested).
func (m *Member) RootsBegin() RootTicket { return m.RootsBeganAgo(time.Hour) }

// RootsBeganAgo counts an upload in progress that began d ago.
func (m *Member) RootsBeganAgo(d time.Duration) RootTicket {
	t := m.roots.batch.begin()
	t.began = t.began.Add(-d)
	return t
}

func (m *Member) RootsAbandon() { m.roots.batch.abandon() }
func (m *Member) AwaitRoot(ctx context.Context, t RootTicket, leaf [32]byte) (*api.InputRootAttestation, error) {
	return m.roots.await(ctx, t, leaf)
}
func (m *Member) SignRoot(epoch uint64, leaves [][32]byte) ([]byte, error) {
	return m.roots.sign(epoch, leaves)
}

// RootsOpen reports whether a root batch is open and how many leaves it
// holds.
func (m *Member) RootsOpen() (bool, int) {
	m.roots.batch.mu.Lock()
	defer m.roots.batch.mu.Unlock()
	if m.roots.batch.open == nil {
		return false, 0
	}
	return true, len(m.roots.batch.open.leaves)
}

// RootsPending is the number of uploads the root batcher waits for.
func (m *Member) RootsPending() int {
	m.roots.batch.mu.Lock()
	defer m.roots.batch.mu.Unlock()
	return m.roots.batch.pending
}

// PrepareSwitchOut runs an old member's check and pin of a joint rotation
// (prepareSwitchOut) for the plan of that shape: from epoch, n old members
// of threshold t, n2 new members of threshold t2, active old members.
func (m *Member) PrepareSwitchOut(ctx context.Context, reg chainio.CommitteeKeyRegistry, epoch uint64, n, t, n2, t2 int, active []uint32, target *fhe.PublicKey) error {
	p, err := newJointPlan(epoch, n, t, n2, t2, active, target)
	if err != nil {
		return err
	}
	_, err = m.rot.prepareSwitchOut(ctx, reg, p)
	return err
}

// JointSwitchIn is a new member's side of j's joint session on mx as
// AdoptFromPrevious runs it, up to the key switch: the start barrier and
// switchIn. It returns the key-switched outputs.
func (m *Member) JointSwitchIn(ctx context.Context, j JointRotation, mx *transport.Mux) (map[fhe.Handle][]byte, error) {
	p, err := j.plan()
	if err != nil {
		return nil, err
	}
	if err := jointBarrier(ctx, mx, p.participants(), p.base()+"/ready", j.wait()); err != nil {
		return nil, err
	}
	return m.rot.switchIn(ctx, m.rot.group(p, mx), p)
}

// JointAdopt is the adoption after JointSwitchIn as AdoptFromPrevious runs
// it (adoptAll, with the old committee's threshold, then the
// acknowledgement on mx that lets the old active members retire).
func (m *Member) JointAdopt(ctx context.Context, j JointRotation, mx *transport.Mux, outs map[fhe.Handle][]byte) (int, error) {
	p, err := j.plan()
	if err != nil {
		return 0, err
	}
	return m.rot.adoptSwitched(ctx, j, p, mx, outs)
}

// ThresholdKey is the member's threshold key share (tests reconstruct the
// collective secret from t of them).
func (m *Member) ThresholdKey() (*protocol.ThresholdKey, error) {
	ks, err := m.snap()
	return ks.key, err
}

// SetPackViewRun sets the requests packBlocks reads per store transaction
// and returns the function that restores it.
func SetPackViewRun(n int) func() {
	prev := packViewRun
	packViewRun = n
	return func() { packViewRun = prev }
}
