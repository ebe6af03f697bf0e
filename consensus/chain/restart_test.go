package chain_test

import (
	"context"
	"encoding/hex"
	"math/big"
	"path/filepath"
	"testing"
	"time"

	ethereum "github.com/ava-labs/libevm"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"
	"github.com/ava-labs/libevm/ethclient"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/configs"
	"github.com/fhegate/fhegate/consensus/chain"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/devchain"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/precompiles"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
	"github.com/fhegate/fhegate/precompiles/precompilestest"
)

// restartRig is a devchain on a data directory and the committee that
// serves it, each of which can be stopped and started again on its state,
// as `fhegate devnet --datadir` does.
type restartRig struct {
	chainRig
	chainDir, committeeDir string
	opts                   local.Options
	genesis                []byte
	stopServe              func()
}

func newRestartRig(ctx context.Context, t *testing.T) *restartRig {
	log := zaptest.NewLogger(t)
	pc := circuit.NewPolicyCircuits(fhetest.InsecureBGVN10)
	r := &restartRig{chainDir: filepath.Join(t.TempDir(), "chain"), committeeDir: t.TempDir()}
	r.opts = local.Options{N: 3, T: 2, Dir: r.committeeDir, Preset: "InsecureBGVN10", Rotations: []int{1},
		Circuits: pc, RoundTimeout: 20 * time.Second, Log: log}
	lc, err := local.Start(ctx, r.opts)
	require.NoError(t, err)
	reg := &subnetevm.Committee{Epoch: lc.Config.Epoch, Threshold: uint32(lc.Config.Threshold)}
	for _, m := range lc.Config.Members {
		pk, _ := hex.DecodeString(m.BLSKey)
		pop, _ := hex.DecodeString(m.BLSPoP)
		reg.Members = append(reg.Members, subnetevm.Member{PublicKey: pk, ProofOfPossession: pop})
	}
	r.genesis, err = configs.WithCommittee(configs.DevnetGenesis(), reg)
	require.NoError(t, err)
	suite, err := precompilestest.NewSuite()
	require.NoError(t, err)
	r.chainRig = chainRig{t: t, ctx: ctx, lc: lc, suite: suite, alice: devchain.DevAccounts()[0], enc: fhe.NewEncryptor(lc.Keys)}
	r.startChain()
	return r
}

// startChain starts the devchain on its data directory and a client of it.
func (r *restartRig) startChain() {
	t := r.t
	ch, err := devchain.New(devchain.Config{Genesis: r.genesis, DataDir: r.chainDir, HTTPAddr: "127.0.0.1:0", Logger: zaptest.NewLogger(t)})
	require.NoError(t, err)
	r.ch = ch
	r.lc.SetChainID(ch.ChainID())
	r.c, err = ethclient.DialContext(r.ctx, ch.URL())
	require.NoError(t, err)
}

// serve runs the committee's serve loops on the chain until stopped.
func (r *restartRig) serve() {
	t := r.t
	relayer, err := crypto.HexToECDSA(chain.DevRelayerKey)
	require.NoError(t, err)
	pc := r.opts.Circuits.(*circuit.PolicyCircuits)
	ad, err := chain.Dial(r.ctx, chain.Config{URL: r.ch.URL(), Key: relayer, Poll: 100 * time.Millisecond, Log: zaptest.NewLogger(t),
		OnPolicy: func(id [32]byte, spec []byte) { require.NoError(t, pc.Register(id, spec)) }})
	require.NoError(t, err)
	r.ad = ad
	ctx, stop := context.WithCancel(r.ctx)
	done := make(chan error, 1)
	go func() { done <- r.lc.ServeChain(ctx, ad) }()
	r.stopServe = func() {
		stop()
		require.NoError(t, <-done)
		ad.Close()
		r.stopServe = nil
	}
}

// stop stops the committee (serve loops if running, then members) and the
// chain.
func (r *restartRig) stop() {
	if r.stopServe != nil {
		r.stopServe()
	}
	r.lc.Close()
	r.c.Close()
	require.NoError(r.t, r.ch.Close())
}

// restart resumes the committee from its stores and the chain from its
// data directory, and serves again.
func (r *restartRig) restart() {
	lc, err := local.Resume(r.ctx, r.opts)
	require.NoError(r.t, err)
	r.lc = lc
	r.startChain()
	r.serve()
}

// request uploads and registers one allowlist input and queues its
// evaluation; it returns the request id and the plaintext reference.
func (r *restartRig) request(plan *policy.Plan, policyID [32]byte, member int64) ([32]byte, int64) {
	att := r.uploadAndRegister(2, []int64{member})
	rc := r.send(precompiles.FHEPolicyAddress, r.suite.Policy.ABI(), "evaluate", policyID, [][32]byte{[32]byte(att.Handle)})
	ref, err := plan.EvalPlain([][]int64{{member}})
	require.NoError(r.t, err)
	return r.topic(rc, r.suite.Policy.ABI(), "EvaluationRequested"), ref[0]
}

// storedVerdicts counts the verdicts FHEVerdict stored: one per
// VerdictAccepted, the stored count of each VerdictBatchAccepted.
func (r *restartRig) storedVerdicts() int {
	va := r.suite.Verdict.ABI()
	logs, err := r.c.FilterLogs(r.ctx, ethereum.FilterQuery{FromBlock: big.NewInt(0),
		Addresses: []common.Address{common.Address(precompiles.FHEVerdictAddress)}})
	require.NoError(r.t, err)
	n := 0
	for _, l := range logs {
		switch l.Topics[0] {
		case va.Events["VerdictAccepted"].ID:
			n++
		case va.Events["VerdictBatchAccepted"].ID:
			vals, err := va.Unpack("VerdictBatchAccepted", l.Data)
			require.NoError(r.t, err)
			n += int(vals[len(vals)-1].(uint32))
		}
	}
	return n
}

// TestRestartWithRequestsPending: the chain and the committee are stopped
// while requests wait for verdicts (queued after the committee stopped
// serving, so none was answered) and started again on their state, as
// `fhegate devnet --datadir` is. Nothing is lost: every request, the
// earlier answered one included, has exactly one verdict stored, equal to
// its plaintext reference.
func TestRestartWithRequestsPending(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	r := newRestartRig(ctx, t)
	r.serve()
	stopped := false
	defer func() {
		if !stopped {
			r.stop()
		}
	}()

	rc := r.send(precompiles.FHEPolicyAddress, r.suite.Policy.ABI(), "registerPolicy", []byte(allowlist))
	policyID := r.topic(rc, r.suite.Policy.ABI(), "PolicyRegistered")
	plan, err := policy.CompileWith([]byte(allowlist), circuit.PolicyOptions(fhetest.InsecureBGVN10))
	require.NoError(t, err)

	first, want := r.request(plan, policyID, 3)
	require.Equal(t, want, r.waitVerdict(first, "the request before the restart").Int64())

	// Queued while nobody serves: they are pending when everything stops.
	r.stopServe()
	type pending struct {
		id   [32]byte
		want int64
	}
	var queued []pending
	for _, member := range []int64{1, 2, 0} {
		id, want := r.request(plan, policyID, member)
		queued = append(queued, pending{id, want})
	}
	for _, p := range queued {
		ready, _ := r.verdictOf(p.id)
		require.False(t, ready)
	}
	r.stop()
	stopped = true

	r.restart()
	stopped = false
	for i, p := range queued {
		require.Equal(t, p.want, r.waitVerdict(p.id, "pending request %d after the restart", i).Int64(), "request %d", i)
	}
	require.Equal(t, 1+len(queued), r.storedVerdicts(), "one verdict stored per request")
}
