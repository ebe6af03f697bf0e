package consensus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/ledger"
	"github.com/fhegate/fhegate/consensus/liveness"
	"github.com/fhegate/fhegate/consensus/pipeline"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
)

// Errors returned by a member.
var (
	ErrNoKeys         = errors.New("consensus: no committee keys for this epoch (run the DKG)")
	ErrDigestMismatch = pipeline.ErrDigestMismatch
	ErrNoQuorum       = pipeline.ErrNoQuorum
	ErrBadDecryption  = pipeline.ErrBadDecryption
)

// Member is one committee member: it holds its threshold key share, the
// public key material, the ciphertext store and the share ledger, answers
// its peers, and processes request batches.
type Member struct {
	cfg       MemberConfig
	id        transport.MemberID
	log       *zap.Logger
	st        *store.Store
	led       *ledger.Ledger
	mux       *transport.Mux
	params    *fhe.Params
	chainID   *big.Int
	committee *bls.Committee
	members   []transport.MemberID

	mu      sync.RWMutex // guards chainID (SetChainID)
	keyring *keyring     // the installed keys, evaluator and noise plan (keys.go)

	marks *liveness.Marks // who is down, peers' heartbeats, this member's progress (liveness.go)
	beats *heartbeats     // heartbeats to the peers, the wait for a live quorum (liveness.go)

	refreshes atomic.Uint64 // collective refreshes completed (Status.Refreshes)
	// evaluations counts the circuit runs (a request's, or a packed
	// batch's) this member completed (Status.Evaluations)
	evaluations atomic.Uint64

	blamed equivocations // members caught equivocating (Status.Equivocations)

	// decidedDropped counts requests the serve loop dropped instead of
	// (re)trying because the chain had decided them (Status.DecidedDropped).
	decidedDropped atomic.Uint64
	// requests holds the requests the serve loop took from the chain and
	// has not seen answered (Status.RequestsSeen, Unanswered).
	requests *requestBook

	peers *peerRounds // answering peers' requests, collecting and aggregating their signatures (peers.go)

	roots    *inputRoots // input roots (roots.go): signed upload digests, root batches and rounds
	uploads  *uploads    // uploads (replication.go): proofs, replicas, attestations, fetches
	rot      *rotation   // a rotation's key switch and adoption (rotation.go)
	pipe     *pipeline.Runner
	verdicts verdictStore // the verdicts this member aggregated (verdicts.go) // the request pipeline: Process, ProcessPacked (consensus/pipeline)

	coins *protocol.CoinState // coin-toss contributions and peers' first commitments (protocol.CoinToss, "Retries")

	keyStore *keyStore     // the key material of the epoch in the store (keys.go)
	preads   *privateReads // private reads (privread.go): the ACL, the nonce and key-cap checks, the shares

	wg     sync.WaitGroup
	closed chan struct{}
	once   sync.Once
}

// NewMember builds a member over a transport and its store. It loads the key
// material of the configured epoch if a previous DKG stored it.
func NewMember(cfg MemberConfig, tr transport.Transport, st *store.Store, log *zap.Logger) (*Member, error) {
	cfg.defaults()
	if log == nil {
		log = zap.NewNop()
	}
	params, err := cfg.Committee.Validate()
	if err != nil {
		return nil, err
	}
	if cfg.BLSKey == nil {
		return nil, errors.New("consensus: member needs its BLS key")
	}
	if cfg.Self < 1 || int(cfg.Self) > len(cfg.Committee.Members) {
		return nil, fmt.Errorf("consensus: self %d not in the committee", cfg.Self)
	}
	if uint32(tr.Self()) != cfg.Self {
		return nil, fmt.Errorf("consensus: transport is member %d, config says %d", tr.Self(), cfg.Self)
	}
	committee, raw, err := cfg.Committee.BLSCommittee()
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(raw[cfg.Self-1], cfg.BLSKey.PublicKey()) {
		return nil, errors.New("consensus: BLS key does not match the committee config")
	}
	led, err := ledger.New(st.DB())
	if err != nil {
		return nil, err
	}
	m := &Member{cfg: cfg, id: transport.MemberID(cfg.Self), log: log.With(zap.Uint32("member", cfg.Self)), st: st, led: led,
		params: params, chainID: cfg.Committee.ChainIDBig(), committee: committee, members: cfg.Committee.IDs(),
		closed: make(chan struct{}), requests: newRequestBook(cfg.ExpiryBlocks), verdicts: verdictStore{st},
	}
	m.marks = liveness.New(m.id, m.members, m.log)
	m.keyring = &keyring{params: params, shared: cfg.Shared, members: len(m.members), threshold: cfg.Committee.Threshold,
		floodingBits: cfg.Committee.FloodingBits}
	m.keyStore = &keyStore{st: st, params: params, epoch: cfg.Committee.Epoch, seal: shareSealOf(cfg), shared: cfg.Shared, log: m.log}
	if m.coins, err = protocol.NewCoinState(); err != nil {
		return nil, err
	}
	if err := prepareStore(st, cfg.Committee.Epoch, m.log); err != nil {
		return nil, err
	}
	m.mux = transport.NewMux(tr, m.log)
	m.mux.SetBufferLimits(0, earlyBytesBudget(len(m.members)))
	m.peers = &peerRounds{mux: m.mux, log: m.log, wg: &m.wg, marks: m.marks, committee: committee, members: len(m.members),
		threshold: cfg.Committee.Threshold, timeout: cfg.RoundTimeout, grace: graceOf(cfg.RoundTimeout), quorum: quorumFor(cfg.Committee.Threshold),
		self: m.id, key: cfg.BLSKey, ids: m.members, chain: m.chain}
	m.roots = &inputRoots{self: m.id, epoch: cfg.Committee.Epoch, threshold: cfg.Committee.Threshold, key: cfg.BLSKey,
		chain: m.chain, refuse: cfg.Knobs.RefuseRootSign, log: m.log, closed: m.closed,
		wg: &m.wg, peers: m.peers, signed: newSignedLog(SignedDigestTTL, MaxSignedDigests),
		batch: rootBatcher{rounds: make(chan struct{}, maxRootRounds), window: cfg.RootWindow}, sem: make(chan struct{}, MaxConcurrentRootSigns)}
	m.uploads = &uploads{self: m.id, epoch: cfg.Committee.Epoch, params: params, key: cfg.BLSKey, chain: m.chain, keys: m.Keys,
		st: st, mux: m.mux, members: m.members, timeout: cfg.RoundTimeout, log: m.log, wg: &m.wg, inStorePut: cfg.Knobs.InStorePut,
		peers: m.peers, roots: m.roots, putSem: make(chan struct{}, api.MaxConcurrentStorePuts)}
	m.rot = &rotation{self: m.id, epoch: cfg.Committee.Epoch, threshold: cfg.Committee.Threshold, timeout: cfg.RoundTimeout,
		parallel: cfg.Parallel, params: params, st: st, led: led, log: m.log, blame: m.blamed.add, m: rotationRuns{m}}
	m.preads = &privateReads{self: m.id, members: len(m.members), threshold: cfg.Committee.Threshold, params: params, st: st, led: led,
		log: m.log, chain: m.chain, snap: m.snap, now: time.Now, inflight: map[string]bool{}}
	m.pipe = pipeline.New(pipeline.Deps{
		Config: pipeline.Config{Threshold: cfg.Committee.Threshold, RoundTimeout: cfg.RoundTimeout, Parallel: cfg.Parallel,
			Circuits: cfg.Circuits, Trace: cfg.Trace, Knobs: pipeline.Knobs{AfterRefresh: cfg.Knobs.AfterRefresh,
				BeforeRefresh: cfg.Knobs.BeforeRefresh, CorruptShares: cfg.Knobs.CorruptShares, CorruptRefresh: cfg.Knobs.CorruptRefresh,
				CorruptAgreed: cfg.Knobs.CorruptAgreed, WrongDigest: cfg.Knobs.WrongDigest, Workers: cfg.Knobs.Workers}},
		Params: params, Self: m.id, Members: m.members, Log: m.log, Mux: m.mux, Ledger: led, Marks: m.marks, Store: st,
		Snap: func() (pipeline.Keys, error) {
			ks, err := m.snap()
			return ks.pipe(), err
		},
		Group: m.group, Fetch: m.uploads.fetch, CheckEpoch: checkEpoch,
		CurrentInput: func(h fhe.Handle, epoch uint64) (*fhe.Ciphertext, error) { return currentInput(st, h, epoch) },
		SignVerdict:  m.peers.signVerdict, SignDigest: m.peers.signDigest, SaveVerdict: m.verdicts.save, SaveBatch: m.verdicts.saveBatch,
		StoredVerdict: m.verdicts.stored, ProofKey: m.ProofKey, QuorumWant: quorumFor(cfg.Committee.Threshold),
		Grace: graceOf(cfg.RoundTimeout), Chain: m.chain,
		Refreshes: &m.refreshes, Evaluations: &m.evaluations,
	})
	m.mux.Handle(transport.TypeStorePut, m.uploads.onStorePut)
	m.mux.Handle(transport.TypeFetch, m.uploads.onFetch)
	m.mux.Handle(transport.TypeRootSign, m.roots.onSign)
	m.mux.Handle(transport.TypePing, m.marks.OnHeartbeat)
	km, key, err := m.keyStore.load()
	if err == nil {
		err = m.keyring.install(km, key)
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		m.mux.Close()
		return nil, err
	}
	if n := m.LoadPolicies(); n > 0 {
		m.log.Info("policies restored from the store", zap.Int("policies", n))
	}
	m.beats = &heartbeats{self: m.id, members: m.members, marks: m.marks, mux: m.mux, every: cfg.Heartbeat, timeout: cfg.RoundTimeout,
		threshold: cfg.Committee.Threshold, closed: m.closed, wg: &m.wg}
	m.roots.live = func() bool { return m.beats.awaitQuorum(context.Background()) }
	m.wg.Add(1)
	go m.beats.run()
	return m, nil
}

// SetChainID changes the chain id bound into input and verdict digests
// (before Run; the devnet learns it after the committee is built).
func (m *Member) SetChainID(id *big.Int) {
	m.mu.Lock()
	m.chainID = new(big.Int).Set(id)
	m.mu.Unlock()
}

func (m *Member) chain() *big.Int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.chainID
}

// ID returns the member's ID.
func (m *Member) ID() transport.MemberID { return m.id }

// Params returns the committee preset's parameters.
func (m *Member) Params() *fhe.Params { return m.params }

// Store returns the member's store.
func (m *Member) Store() *store.Store { return m.st }

// Ledger returns the member's share ledger.
func (m *Member) Ledger() *ledger.Ledger { return m.led }

// Close stops the member (its transport included); the store stays open.
func (m *Member) Close() error {
	m.once.Do(func() { close(m.closed) })
	m.roots.batch.close()
	err := m.mux.Close()
	m.wg.Wait()
	m.pipe.Close()
	return err
}

func (m *Member) group() protocol.Group {
	return protocol.Group{Mux: m.mux, Members: m.members, Threshold: m.cfg.Committee.Threshold, Timeout: m.cfg.RoundTimeout, Grace: graceOf(m.cfg.RoundTimeout), Log: m.log, Coins: m.coins,
		OnEquivocation: m.blamed.add}
}

// maxBlamed bounds the equivocations a member remembers for its status.
const maxBlamed = 64

// equivocations remembers the members caught revealing a share that does
// not match their commitment (a committed round's identifiable abort), the
// last maxBlamed of them, for Status.Equivocations.
type equivocations struct {
	mu   sync.Mutex
	list []protocol.ErrEquivocation
}

// add records e (protocol.Group.OnEquivocation).
func (q *equivocations) add(e protocol.ErrEquivocation) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.list = append(q.list, e)
	if len(q.list) > maxBlamed {
		q.list = q.list[len(q.list)-maxBlamed:]
	}
}

// all returns the recorded equivocations, oldest first.
func (q *equivocations) all() []protocol.ErrEquivocation {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.list)
}
