package local

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/config"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/internal/ports"
)

// Options configure an in-process committee.
type Options struct {
	N, T    int
	Dir     string // each member keeps dir/member-<id>/member.db
	Preset  string // default DefaultPreset
	ChainID *big.Int
	Epoch   uint64 // default 1
	// Rotations: Galois keys to generate (nil: powers of two, see CommitteeConfig.GaloisElements).
	Rotations []int
	// Chain gives member i (1-based) its chain adapter; nil: one shared MemChain.
	Chain        func(id uint32) chainio.ChainAdapter
	RoundTimeout time.Duration // default 30 s
	Heartbeat    time.Duration // MemberConfig.Heartbeat (0: 1 s)
	// Transport, if set, wraps member id's transport (tests: injected
	// delays, dropped messages).
	Transport func(id uint32, t transport.Transport) transport.Transport
	BatchSize int
	// Packing knobs (MemberConfig.BatchWindow, PackMin, ExpiryBlocks; 0:
	// the member defaults).
	BatchWindow  uint64
	BatchIdle    time.Duration // MemberConfig.BatchIdle
	PackMin      int
	ExpiryBlocks uint64
	RootWindow   time.Duration // MemberConfig.RootWindow (0: DefaultRootWindow)
	Trace        func(member uint32, request [32]byte, phase string, d time.Duration)
	Circuits     circuit.Circuits
	Knobs        consensus.TestingKnobs // every member's test hooks
	// MemberKnobs, if set, gives member id (1-based) its test hooks in place
	// of Knobs (e.g. one faulty member).
	MemberKnobs func(id uint32) consensus.TestingKnobs
	// Serve starts each member's Run loop on its chain adapter (default true
	// through StartCommittee).
	Serve bool
	Log   *zap.Logger
	// SetCommittee, for Rotate on a caller's chain (o.Chain set):
	// registers the new committee there (FHEVerdict.setCommittee) before
	// its key is bound (nil with a shared MemChain: MemChain.SetCommittee).
	SetCommittee func(cfg *config.CommitteeConfig) error
}

// Committee is n members in one process, talking TLS over loopback.
type Committee struct {
	Config  *config.CommitteeConfig
	Secrets []*config.MemberSecrets
	Members []*consensus.Member
	Chain   *MemChain // nil when Options.Chain was given
	Keys    *fhe.PublicKey

	opts       Options
	shared     *protocol.SharedPublic // the members' one copy of their public key material
	stores     []*store.Store
	transports []*transport.TLS
	cancel     []context.CancelFunc
	wg         sync.WaitGroup
	ctx        context.Context
	mu         sync.Mutex
}

// StartCommittee starts an n-member, t-threshold committee over real
// loopback TLS sockets with DefaultPreset, runs the DKG, and serves
// requests from an in-memory chain (Committee.Chain). For the devnet,
// use Start with Options.Chain returning JSON-RPC adapters.
func StartCommittee(ctx context.Context, n, t int, dir string) (*Committee, error) {
	return Start(ctx, Options{N: n, T: t, Dir: dir, Serve: true})
}

// Start starts an in-process committee as configured: fresh member
// secrets (saved under o.Dir, so Resume can bring the committee back),
// then the DKG.
func Start(ctx context.Context, o Options) (*Committee, error) {
	o.defaults()
	lns, addrs, err := listenLoopback(o.N)
	if err != nil {
		return nil, err
	}
	cfg, secrets, err := config.GenerateCommittee(o.ChainID, o.Epoch, o.Preset, o.T, addrs)
	if err != nil {
		closeAll(lns)
		return nil, err
	}
	cfg.Rotations = o.Rotations
	if err := saveLocalState(o.Dir, cfg, secrets); err != nil {
		closeAll(lns)
		return nil, err
	}
	lc, err := newLocal(ctx, o, cfg, secrets, lns)
	if err != nil {
		return nil, err
	}
	errs := make([]error, o.N)
	var wg sync.WaitGroup
	for i, m := range lc.Members {
		wg.Add(1)
		go func(i int, m *consensus.Member) { defer wg.Done(); _, errs[i] = m.DKG(ctx) }(i, m)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		lc.Close()
		return nil, fmt.Errorf("consensus: local DKG: %w", err)
	}
	if err := lc.ready(); err != nil {
		return nil, err
	}
	return lc, nil
}

// HasState reports whether dir holds an in-process committee that
// Start created (its config and every member's secrets).
func HasState(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "committee.json"))
	return err == nil
}

// Resume brings back the in-process committee saved under o.Dir by
// Start: the same members, secrets and DKG keys (from each member's
// store), on fresh loopback ports, without a new DKG. o.N, o.T, o.Preset,
// o.ChainID, o.Epoch and o.Rotations come from the saved config.
func Resume(ctx context.Context, o Options) (*Committee, error) {
	var cfg config.CommitteeConfig
	if err := config.LoadJSON(filepath.Join(o.Dir, "committee.json"), &cfg); err != nil {
		return nil, err
	}
	if _, err := cfg.Validate(); err != nil {
		return nil, err
	}
	secrets := make([]*config.MemberSecrets, len(cfg.Members))
	for i, mi := range cfg.Members {
		// Development: in-process committees keep plain secrets (see saveLocalState).
		sec, err := config.LoadMemberSecrets(localSecretsPath(o.Dir, mi.ID), config.SecretsKey{}, nil)
		if err != nil {
			return nil, err
		}
		secrets[i] = sec
		if secrets[i].ID != mi.ID {
			return nil, fmt.Errorf("consensus: %s is member %d's, not %d's", localSecretsPath(o.Dir, mi.ID), secrets[i].ID, mi.ID)
		}
	}
	o.N, o.T, o.Preset, o.Epoch, o.Rotations = len(cfg.Members), cfg.Threshold, cfg.Preset, cfg.Epoch, cfg.Rotations
	o.ChainID = cfg.ChainIDBig()
	o.defaults()
	lns, addrs, err := listenLoopback(o.N)
	if err != nil {
		return nil, err
	}
	for i := range cfg.Members {
		cfg.Members[i].Addr = addrs[i]
	}
	if err := config.SaveJSON(filepath.Join(o.Dir, "committee.json"), &cfg, 0o644); err != nil {
		closeAll(lns)
		return nil, err
	}
	lc, err := newLocal(ctx, o, &cfg, secrets, lns)
	if err != nil {
		return nil, err
	}
	for _, m := range lc.Members {
		if _, err := m.Keys(); err != nil {
			lc.Close()
			return nil, fmt.Errorf("consensus: resume member %d: %w", m.ID(), err)
		}
	}
	if err := lc.ready(); err != nil {
		return nil, err
	}
	return lc, nil
}

func (o *Options) defaults() {
	if o.Preset == "" {
		o.Preset = config.DefaultPreset
	}
	if o.ChainID == nil {
		o.ChainID = big.NewInt(1337)
	}
	if o.Epoch == 0 {
		o.Epoch = 1
	}
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
}

func localSecretsPath(dir string, id uint32) string {
	return filepath.Join(dir, fmt.Sprintf("member-%d", id), "secrets.json")
}

// saveLocalState writes the committee config and each member's secrets
// (0600, in 0700 directories) under dir. The secrets are plain JSON: an
// in-process committee (tests, the devnet) is a development tool whose
// every member lives in this one directory of one machine, so a passphrase
// would protect nothing from whoever can read it. (Each member's threshold
// key share is still sealed in its store, share_seal.go.)
func saveLocalState(dir string, cfg *config.CommitteeConfig, secrets []*config.MemberSecrets) error {
	for _, sec := range secrets {
		if err := config.SaveMemberSecretsPlaintext(localSecretsPath(dir, sec.ID), sec); err != nil {
			return err
		}
	}
	return config.SaveJSON(filepath.Join(dir, "committee.json"), cfg, 0o644)
}

// listenLoopback listens on n loopback ports below the ephemeral range, so
// that a member stopped and started again (Restart) gets its port back
// (package ports).
func listenLoopback(n int) ([]net.Listener, []string, error) {
	lns := make([]net.Listener, n)
	addrs := make([]string, n)
	for i := range lns {
		ln, err := ports.Listen()
		if err != nil {
			closeAll(lns)
			return nil, nil, err
		}
		lns[i], addrs[i] = ln, ln.Addr().String()
	}
	return lns, addrs, nil
}

// newLocal starts every member of cfg on its listener (not yet serving).
func newLocal(ctx context.Context, o Options, cfg *config.CommitteeConfig, secrets []*config.MemberSecrets, lns []net.Listener) (*Committee, error) {
	// The members share one copy of the public key material they each
	// derive and verify (protocol.SharedPublic), as they share a process.
	lc := &Committee{Config: cfg, Secrets: secrets, opts: o, ctx: ctx, shared: protocol.NewSharedPublic()}
	if o.Chain == nil {
		var err error
		if lc.Chain, err = NewMemChain(cfg); err != nil {
			closeAll(lns)
			return nil, err
		}
	}
	lc.Members = make([]*consensus.Member, o.N)
	lc.stores = make([]*store.Store, o.N)
	lc.transports = make([]*transport.TLS, o.N)
	lc.cancel = make([]context.CancelFunc, o.N)
	for i := 0; i < o.N; i++ {
		if err := lc.start(i, lns[i]); err != nil {
			lc.Close()
			closeAll(lns[i+1:])
			return nil, err
		}
	}
	return lc, nil
}

// ready publishes the public key (lc.Keys, dir/committee.pk) and starts
// serving if configured.
func (lc *Committee) ready() error {
	km, err := lc.Members[0].Keys()
	if err != nil {
		lc.Close()
		return err
	}
	lc.Keys = km.Public
	if pkb, err := km.Public.MarshalBinary(); err == nil {
		_ = os.WriteFile(filepath.Join(lc.opts.Dir, "committee.pk"), pkb, 0o644)
	}
	if lc.opts.Serve {
		for i := range lc.Members {
			lc.serve(i)
		}
	}
	return nil
}

func closeAll(lns []net.Listener) {
	for _, l := range lns {
		if l != nil {
			l.Close()
		}
	}
}

func (lc *Committee) start(i int, ln net.Listener) error {
	o := lc.opts
	sec := lc.Secrets[i]
	tk, err := sec.TLSPrivateKey()
	if err != nil {
		return err
	}
	bk, err := sec.BLSSecretKey()
	if err != nil {
		return err
	}
	peers, err := lc.Config.Peers()
	if err != nil {
		return err
	}
	if ln == nil {
		if ln, err = net.Listen("tcp", peers[i].Addr); err != nil {
			return err
		}
	}
	log := o.Log
	tr, err := transport.ListenTLS(transport.TLSConfig{Self: transport.MemberID(sec.ID), Key: tk, Peers: peers, Listener: ln, Log: log})
	if err != nil {
		ln.Close()
		return err
	}
	st, err := store.Open(filepath.Join(o.Dir, fmt.Sprintf("member-%d", sec.ID), "member.db"))
	if err != nil {
		tr.Close()
		return err
	}
	mc := consensus.MemberConfig{Committee: *lc.Config, Self: sec.ID, BLSKey: bk, RoundTimeout: o.RoundTimeout,
		BatchSize: o.BatchSize, Circuits: o.Circuits, Knobs: o.Knobs, Shared: lc.shared,
		Heartbeat: o.Heartbeat, BatchWindow: o.BatchWindow, BatchIdle: o.BatchIdle, PackMin: o.PackMin, ExpiryBlocks: o.ExpiryBlocks, RootWindow: o.RootWindow}
	if o.MemberKnobs != nil {
		mc.Knobs = o.MemberKnobs(sec.ID)
	}
	if o.Trace != nil {
		id := sec.ID
		mc.Trace = func(r [32]byte, ph string, d time.Duration) { o.Trace(id, r, ph, d) }
	}
	var mt transport.Transport = tr
	if o.Transport != nil {
		mt = o.Transport(sec.ID, tr)
	}
	m, err := consensus.NewMember(mc, mt, st, log)
	if err != nil {
		tr.Close()
		st.Close()
		return err
	}
	lc.mu.Lock()
	lc.Members[i], lc.stores[i], lc.transports[i] = m, st, tr
	lc.mu.Unlock()
	return nil
}

func (lc *Committee) chainFor(i int) chainio.ChainAdapter {
	if lc.opts.Chain != nil {
		return lc.opts.Chain(lc.Secrets[i].ID)
	}
	return lc.Chain
}

// ServeMember starts member id's (1-based) Run loop on its chain adapter
// (for a committee started with Options.Serve false).
func (lc *Committee) ServeMember(id uint32) { lc.serve(int(id) - 1) }

// Dir is the directory the committee keeps its state under.
func (lc *Committee) Dir() string { return lc.opts.Dir }

func (lc *Committee) serve(i int) {
	ctx, cancel := context.WithCancel(lc.ctx)
	lc.cancel[i] = cancel
	m := lc.Members[i]
	lc.wg.Add(1)
	go func() {
		defer lc.wg.Done()
		if err := m.Run(ctx, lc.chainFor(i)); err != nil {
			lc.opts.Log.Warn("member stopped", zap.Uint32("member", uint32(m.ID())), zap.Error(err))
		}
	}()
}

// Kill stops member id (1-based) abruptly: its transport closes, its store
// stays on disk.
func (lc *Committee) Kill(id uint32) {
	i := int(id) - 1
	lc.mu.Lock()
	m, st := lc.Members[i], lc.stores[i]
	lc.Members[i], lc.stores[i] = nil, nil
	lc.mu.Unlock()
	if m == nil {
		return
	}
	if c := lc.cancel[i]; c != nil {
		c()
	}
	m.Close()
	st.Close()
}

// Restart brings a killed member back on the same address and store.
func (lc *Committee) Restart(id uint32) error {
	i := int(id) - 1
	if err := lc.start(i, nil); err != nil {
		return err
	}
	if _, err := lc.Members[i].Keys(); err != nil {
		return fmt.Errorf("consensus: restarted member %d lost its keys: %w", id, err)
	}
	if lc.opts.Serve {
		lc.serve(i)
	}
	return nil
}

// Member returns member id (1-based), or nil if it is killed.
func (lc *Committee) Member(id uint32) *consensus.Member {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	return lc.Members[int(id)-1]
}

// Close stops every member and closes the stores.
func (lc *Committee) Close() {
	for i := range lc.Members {
		if lc.Members[i] != nil {
			lc.Kill(uint32(i + 1))
		}
	}
	lc.wg.Wait()
}

// ServeChain runs every live member's Run loop on chain until ctx ends
// (for callers that built the committee with Serve false, e.g. the devnet,
// which connects the chain adapter after the genesis is written).
func (lc *Committee) ServeChain(ctx context.Context, chain chainio.ChainAdapter) error {
	var wg sync.WaitGroup
	errs := make([]error, len(lc.Members))
	for i := range lc.Members {
		m := lc.Member(uint32(i + 1))
		if m == nil {
			continue
		}
		wg.Add(1)
		go func(i int, m *consensus.Member) { defer wg.Done(); errs[i] = m.Run(ctx, chain) }(i, m)
	}
	wg.Wait()
	return errors.Join(errs...)
}

// SetChainID sets the chain id every member signs for.
func (lc *Committee) SetChainID(id *big.Int) {
	lc.Config.ChainID = id.String()
	for i := range lc.Members {
		if m := lc.Member(uint32(i + 1)); m != nil {
			m.SetChainID(id)
		}
	}
}

// BindKey has the committee's first threshold live members sign its
// collective public key (SignCommitteeKey; they must all report the same
// digest) and posts the aggregate to reg (FHEVerdict.setCommitteeKey). The
// chain must already have the committee registered (setCommittee).
func (lc *Committee) BindKey(ctx context.Context, reg chainio.CommitteeKeyRegistry) ([32]byte, error) {
	var pkd [32]byte
	var sigs [][]byte
	var idx []int
	for i := range lc.Members {
		if len(idx) == lc.Config.Threshold {
			break
		}
		m := lc.Member(uint32(i + 1))
		if m == nil {
			continue
		}
		d, sig, err := m.SignCommitteeKey()
		if err != nil {
			return pkd, err
		}
		if len(idx) > 0 && d != pkd {
			return pkd, fmt.Errorf("consensus: members disagree on the committee key digest (%x, %x)", pkd[:8], d[:8])
		}
		pkd = d
		sigs = append(sigs, sig)
		idx = append(idx, i)
	}
	if len(idx) < lc.Config.Threshold {
		return pkd, fmt.Errorf("%w: %d members up to sign the committee key, threshold %d", consensus.ErrNoQuorum, len(idx), lc.Config.Threshold)
	}
	agg, err := bls.Aggregate(sigs)
	if err != nil {
		return pkd, err
	}
	bm, err := bls.NewBitmap(len(lc.Config.Members), idx)
	if err != nil {
		return pkd, err
	}
	return pkd, reg.SubmitCommitteeKey(ctx, lc.Config.Epoch, pkd, agg, bm)
}

// RegisterPolicy registers a policy spec with every live member
// (Member.RegisterPolicy: persisted in each member's store, then compiled).
// It returns the first compile error, which every member records alike.
func (lc *Committee) RegisterPolicy(policyID [32]byte, spec []byte) error {
	var first error
	for i := range lc.Members {
		if m := lc.Member(uint32(i + 1)); m != nil {
			if err := m.RegisterPolicy(policyID, spec); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}
