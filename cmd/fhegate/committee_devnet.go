package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ava-labs/libevm/common/hexutil"
	"github.com/ava-labs/libevm/crypto"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/apiserver"
	"github.com/fhegate/fhegate/consensus/chain"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/config"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/fhe"
)

type devCommittee struct {
	log      *zap.Logger
	lc       *local.Committee
	circuits *circuit.PolicyCircuits
	dir      string
	resumed  bool

	joins chan *consensus.Member // restarted members for chain.Serve (Bounce)
	mu    sync.Mutex             // guards apis
	apis  map[uint32]*memberAPI  // each live member's client API server
}

// memberAPI is one member's client API server and the address it keeps
// across a restart of the member (Bounce).
type memberAPI struct {
	srv  *http.Server
	addr string
}

// newLocalDevCommittee starts the devnet's in-process committee under
// dir/committee: resumed from the keys saved there by an earlier start
// (--datadir: a warm start runs no DKG; the saved preset wins), else fresh
// keys through a DKG for preset (default config.DefaultPreset).
func newLocalDevCommittee(ctx context.Context, log *zap.Logger, o devnetOptions, dir string) (DevCommittee, error) {
	n, t := o.committeeN, o.committeeT
	cdir := filepath.Join(dir, "committee")
	opts := local.Options{N: n, T: t, Dir: cdir, Preset: o.committeePre, ChainID: big.NewInt(1337),
		RoundTimeout: 60 * time.Second, Log: log.Named("committee"), BatchWindow: o.batchWindow, RootWindow: o.rootWindow}
	start, resumed := local.Start, local.HasState(cdir)
	if resumed {
		start = local.Resume
		log.Info("committee: resuming with the keys in the data directory (no DKG)", zap.String("dir", cdir))
	} else {
		_ = os.RemoveAll(cdir)
		log.Info("committee: running distributed key generation", zap.Int("n", n), zap.Int("t", t), zap.String("preset", opts.Preset))
	}
	presetName := opts.Preset
	if resumed {
		var saved config.CommitteeConfig
		if err := config.LoadJSON(filepath.Join(cdir, "committee.json"), &saved); err != nil {
			return nil, err
		}
		presetName = saved.Preset
	}
	ps, err := fhe.PresetByName(presetName)
	if err != nil {
		return nil, err
	}
	pc := circuit.NewPolicyCircuits(ps.ID)
	opts.Circuits = pc
	// The committee's background work is bound to Close, not to ctx:
	// runDevnet closes it after the chain on shutdown, so a cancelled ctx
	// (Ctrl-C) must not tear it down underneath the chain.
	lc, err := start(context.WithoutCancel(ctx), opts)
	if err != nil {
		return nil, err
	}
	if resumed && (len(lc.Config.Members) != n || lc.Config.Threshold != t) {
		log.Warn("committee: the saved committee's size wins over --committee-n/-t",
			zap.Int("n", len(lc.Config.Members)), zap.Int("t", lc.Config.Threshold))
	}
	log.Info("committee: keys ready", zap.String("preset", ps.Name), zap.String("publicKey", filepath.Join(cdir, "committee.pk")))
	return &devCommittee{log: log, lc: lc, circuits: pc, dir: cdir, resumed: resumed,
		joins: make(chan *consensus.Member), apis: map[uint32]*memberAPI{}}, nil
}

// Describe implements DevCommittee.
func (d *devCommittee) Describe() string {
	cfg := d.lc.Config
	p, _ := fhe.PresetByName(cfg.Preset)
	how := "keys from a fresh DKG"
	if d.resumed {
		how = "keys resumed from the data directory"
	}
	return fmt.Sprintf("in-process MPC committee, n=%d t=%d, preset %s (depth %d; deeper policies run through collective refreshes), %s",
		len(cfg.Members), cfg.Threshold, cfg.Preset, p.Depth, how)
}

type registryMember struct {
	PublicKey         hexutil.Bytes `json:"publicKey"`
	ProofOfPossession hexutil.Bytes `json:"proofOfPossession"`
}

// Registry implements DevCommittee.
func (d *devCommittee) Registry() (json.RawMessage, error) {
	cfg := d.lc.Config
	reg := struct {
		Epoch     uint64           `json:"epoch"`
		Threshold uint32           `json:"threshold"`
		Members   []registryMember `json:"members"`
	}{Epoch: cfg.Epoch, Threshold: uint32(cfg.Threshold)}
	for _, m := range cfg.Members {
		pk, err := hexutil.Decode("0x" + m.BLSKey)
		if err != nil {
			return nil, err
		}
		pop, err := hexutil.Decode("0x" + m.BLSPoP)
		if err != nil {
			return nil, err
		}
		reg.Members = append(reg.Members, registryMember{PublicKey: pk, ProofOfPossession: pop})
	}
	return json.Marshal(reg)
}

// Serve implements DevCommittee: it serves the client API of member 1 on a
// loopback port (address written to <dir>/committee/api.addr) and runs every
// member against the chain's JSON-RPC endpoint.
func (d *devCommittee) Serve(ctx context.Context, rpcURL string, chainID *big.Int) error {
	keyHex := os.Getenv("FHEGATE_RELAYER_KEY")
	if keyHex == "" {
		keyHex = chain.DevRelayerKey
	}
	key, err := crypto.HexToECDSA(keyHex)
	if err != nil {
		return fmt.Errorf("relayer key: %w", err)
	}
	if chainID != nil {
		d.lc.SetChainID(chainID)
	}
	var closers []func()
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	ready := func(ctx context.Context, ad *chain.Adapter) error {
		apis, stop, err := d.startAPIs(ctx, ad)
		closers = append(closers, stop)
		if err != nil {
			return err
		}
		d.log.Info("member APIs (fhegate decrypt --handle --committee-api)", zap.String("urls", strings.Join(apis, ",")))
		return nil
	}
	err = chain.Serve(ctx, chain.ServeConfig{Members: d.lc.Live(), Ready: ready, Joins: d.joins,
		Config: chain.Config{URL: rpcURL, ChainID: chainID, Key: key, Log: d.log.Named("chain")}})
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// startAPIs binds the committee's FHE public key to its epoch on chain
// (FHEVerdict.setCommitteeKey; a warm start finds it recorded: the key a
// rotation's old members would check, and clients can compare the key they
// encrypt to with committeeKeyOf), then serves every live member's client
// API on a loopback port: member 1's address is written to
// <dir>/committee/api.addr, all of them (for private reads, which need t
// members' APIs) to apis.addr. stop closes the servers.
func (d *devCommittee) startAPIs(ctx context.Context, ad *chain.Adapter) (apis []string, stop func(), err error) {
	if pkd, err := d.lc.BindKey(ctx, ad); err != nil {
		d.log.Warn("committee key not bound on chain", zap.Error(err))
	} else {
		d.log.Info("committee key bound on chain", zap.Uint64("epoch", d.lc.Config.Epoch), zap.String("pkDigest", fmt.Sprintf("%x", pkd)))
	}
	stop = func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		for id, a := range d.apis {
			_ = a.srv.Close()
			delete(d.apis, id)
		}
	}
	for _, m := range d.lc.Live() {
		addr, err := d.serveAPI(m, "127.0.0.1:0")
		if err != nil {
			return apis, stop, err
		}
		apis = append(apis, "http://"+addr)
	}
	if len(apis) == 0 {
		return apis, stop, errors.New("committee: no member is up")
	}
	_ = os.WriteFile(filepath.Join(d.dir, "api.addr"), []byte(apis[0]+"\n"), 0o644)
	d.log.Info("committee API (fhegate encrypt --submit)", zap.String("url", apis[0]))
	_ = os.WriteFile(filepath.Join(d.dir, "apis.addr"), []byte(strings.Join(apis, ",")+"\n"), 0o644)
	return apis, stop, nil
}

// serveAPI serves member m's development client API (DevAPIOptions: no
// token, no quota; NewAPIServer refuses it on anything but loopback) on
// addr and returns the address it listens on.
func (d *devCommittee) serveAPI(m *consensus.Member, addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	srv, err := apiserver.NewAPIServer(m, ln.Addr().String(), apiserver.DevAPIOptions())
	if err != nil {
		ln.Close()
		return "", err
	}
	go func() { _ = apiserver.ServeAPI(srv, ln) }()
	d.mu.Lock()
	d.apis[uint32(m.ID())] = &memberAPI{srv: srv, addr: ln.Addr().String()}
	d.mu.Unlock()
	return ln.Addr().String(), nil
}

// Bounce kills member id abruptly — its transport and serve loop stop
// mid-round, its client API goes away, its store stays on disk — waits
// down, and starts it again on its store, keys and address: the fault a
// validator's crash and restart is. The restarted member resumes its
// request cursor, rejoins the serve loop (chain.ServeConfig.Joins) and its
// client API comes back on the same address. Serve must be running.
func (d *devCommittee) Bounce(ctx context.Context, id uint32, down time.Duration) error {
	if id < 1 || int(id) > len(d.lc.Config.Members) {
		return fmt.Errorf("committee has members 1..%d, not %d", len(d.lc.Config.Members), id)
	}
	if d.lc.Member(id) == nil {
		return fmt.Errorf("member %d is not running", id)
	}
	d.mu.Lock()
	api := d.apis[id]
	d.mu.Unlock()
	if api != nil {
		_ = api.srv.Close()
	}
	d.lc.Kill(id)
	d.log.Warn("fault injection: member killed", zap.Uint32("member", id), zap.Duration("down", down))
	select {
	case <-time.After(down):
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := d.lc.Restart(id); err != nil {
		return fmt.Errorf("restart member %d: %w", id, err)
	}
	m := d.lc.Member(id)
	select {
	case d.joins <- m:
	case <-ctx.Done():
		return ctx.Err()
	}
	if api != nil {
		if _, err := d.serveAPI(m, api.addr); err != nil {
			return fmt.Errorf("member %d's client API on %s: %w", id, api.addr, err)
		}
	}
	d.log.Warn("fault injection: member restarted", zap.Uint32("member", id))
	return nil
}

// Close implements DevCommittee.
func (d *devCommittee) Close() error {
	d.lc.Close()
	return nil
}
