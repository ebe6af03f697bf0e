// Package chain is the JSON-RPC ChainAdapter of the committee: it watches
// FHEPolicy.EvaluationRequested and FHECRDT.ValueRequested (and
// FHEPolicy.PolicyRegistered, to compile the plans) in accepted blocks and
// posts aggregated verdicts with FHEVerdict.submit (one request) or
// FHEVerdict.submitBatch (a packed evaluation's verdicts under one
// aggregate), and expires stale requests with FHEVerdict.expire, using the precompiles'
// ABI (precompiles/abi, contracts/src/interfaces).
//
// On Avalanche-family chains (subnet-evm, Lux EVM) the "latest" block of
// the JSON-RPC API is the last accepted block, so polling up to
// eth_blockNumber acts on accepted blocks only. Submissions are idempotent:
// a verdict already accepted (FHEVerdict.verdictOf says ready) is not sent
// again, and a revert "already accepted" counts as success. A verdict
// transaction that is dropped or whose nonce another transaction takes is
// sent again under a fresh nonce (Adapter.transact).
package chain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	ethereum "github.com/ava-labs/libevm"
	"github.com/ava-labs/libevm/accounts/abi"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/crypto"
	"github.com/ava-labs/libevm/ethclient"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/crdt/meta"
	"github.com/fhegate/fhegate/precompiles"
	precompileabi "github.com/fhegate/fhegate/precompiles/abi"
)

// DevRelayerKey is the well-known Hardhat/Anvil development account #9
// (funded in configs/genesis-devnet.json); only for devnets.
const DevRelayerKey = "2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6"

// Config configures an adapter.
type Config struct {
	URL     string
	ChainID *big.Int // nil: eth_chainId
	// Key signs FHEVerdict.submit transactions (any funded account: the
	// precompile checks the committee's signature, not the sender).
	Key  *ecdsa.PrivateKey
	Poll time.Duration // 0: 500 ms
	// OnPolicy is called for every PolicyRegistered event (policy id, spec).
	OnPolicy func(policyID [32]byte, spec []byte)
	Log      *zap.Logger
}

// Adapter implements chainio.ChainAdapter over JSON-RPC.
type Adapter struct {
	cfg    Config
	client *ethclient.Client
	input  abi.ABI
	policy abi.ABI
	crdt   abi.ABI
	verd   abi.ABI
	from   common.Address
	txMu   sync.Mutex
}

var _ chainio.ChainAdapter = (*Adapter)(nil)

// Dial connects to the chain.
func Dial(ctx context.Context, cfg Config) (*Adapter, error) {
	if cfg.Key == nil {
		return nil, errors.New("chain: a transaction key is required")
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 500 * time.Millisecond
	}
	if cfg.Log == nil {
		cfg.Log = zap.NewNop()
	}
	c, err := ethclient.DialContext(ctx, cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("chain: dial %s: %w", cfg.URL, err)
	}
	if cfg.ChainID == nil {
		if cfg.ChainID, err = c.ChainID(ctx); err != nil {
			c.Close()
			return nil, fmt.Errorf("chain: eth_chainId: %w", err)
		}
	}
	a := &Adapter{cfg: cfg, client: c, from: crypto.PubkeyToAddress(cfg.Key.PublicKey)}
	for _, p := range []struct {
		dst  *abi.ABI
		name string
	}{{&a.input, precompileabi.Input}, {&a.policy, precompileabi.Policy}, {&a.crdt, precompileabi.CRDT}, {&a.verd, precompileabi.Verdict}} {
		if *p.dst, err = precompileabi.Parse(p.name); err != nil {
			c.Close()
			return nil, fmt.Errorf("chain: %w", err)
		}
	}
	return a, nil
}

// MakeBlocks implements chainio.BlockMaker on a devnet: evm_mine until the
// head is at least upTo (at most 256 blocks per call). A chain without
// evm_mine answers an error and is left alone.
func (a *Adapter) MakeBlocks(ctx context.Context, upTo uint64) error {
	for range 256 {
		head, err := a.client.BlockNumber(ctx)
		if err != nil || head >= upTo {
			return err
		}
		var n hexutil.Uint64
		if err := a.client.Client().CallContext(ctx, &n, "evm_mine"); err != nil {
			return fmt.Errorf("chain: evm_mine: %w", err)
		}
	}
	return nil
}

// Close closes the connection.
func (a *Adapter) Close() { a.client.Close() }

func addr(x precompiles.Address) common.Address { return common.Address(x) }

// Requests implements chainio.ChainAdapter: it polls accepted blocks from
// fromBlock on and streams the request events in (block, log index) order,
// each polled range followed by its block mark (chainio.BlockSeen).
func (a *Adapter) Requests(ctx context.Context, from uint64) (<-chan chainio.Request, error) {
	evalEv, ok1 := a.policy.Events["EvaluationRequested"]
	regEv, ok2 := a.policy.Events["PolicyRegistered"]
	valEv, ok3 := a.crdt.Events["ValueRequested"]
	if !ok1 || !ok2 || !ok3 {
		return nil, errors.New("chain: precompile ABI lacks the request events")
	}
	out := make(chan chainio.Request, 1024)
	go func() {
		defer close(out)
		next := from
		for {
			head, err := a.client.BlockNumber(ctx)
			if err == nil && head >= next {
				q := ethereum.FilterQuery{FromBlock: new(big.Int).SetUint64(next), ToBlock: new(big.Int).SetUint64(head),
					Addresses: []common.Address{addr(precompiles.FHEPolicyAddress), addr(precompiles.FHECRDTAddress)},
					Topics:    [][]common.Hash{{evalEv.ID, regEv.ID, valEv.ID}}}
				logs, ferr := a.client.FilterLogs(ctx, q)
				if ferr == nil {
				logs:
					for _, l := range logs {
						if l.Removed {
							continue
						}
						switch l.Topics[0] {
						case regEv.ID:
							a.onPolicy(l)
						case evalEv.ID, valEv.ID:
							r, derr := a.decodeRequest(ctx, l)
							if errors.Is(derr, errRPC) {
								// stateOf failed: poll this range again
								// (re-delivery is allowed).
								ferr = derr
								break logs
							}
							if derr != nil {
								a.cfg.Log.Warn("undecodable request event", zap.Error(derr))
								continue
							}
							select {
							case out <- r:
							case <-ctx.Done():
								return
							}
						}
					}
				}
				if ferr == nil {
					// every request of the blocks ≤ head is out: the
					// block mark closes the packing windows they end
					select {
					case out <- chainio.BlockSeen(head):
					case <-ctx.Done():
						return
					}
					next = head + 1
				} else {
					err = ferr
				}
			}
			if err != nil && ctx.Err() == nil {
				a.cfg.Log.Debug("poll failed", zap.Error(err))
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(a.cfg.Poll):
			}
		}
	}()
	return out, nil
}

func (a *Adapter) onPolicy(l types.Log) {
	if a.cfg.OnPolicy == nil || len(l.Topics) < 2 {
		return
	}
	vals, err := a.policy.Unpack("PolicyRegistered", l.Data)
	if err != nil {
		a.cfg.Log.Warn("undecodable PolicyRegistered", zap.Error(err))
		return
	}
	// non-indexed: planHash, depth, cost, inputs, spec
	spec, ok := vals[len(vals)-1].([]byte)
	if !ok {
		return
	}
	a.cfg.OnPolicy([32]byte(l.Topics[1]), spec)
}

func (a *Adapter) decodeRequest(ctx context.Context, l types.Log) (chainio.Request, error) {
	r := chainio.Request{Block: l.BlockNumber, LogIndex: l.Index}
	if len(l.Topics) < 3 {
		return r, errors.New("chain: request event without indexed ids")
	}
	r.ID = [32]byte(l.Topics[1])
	if l.Address == addr(precompiles.FHEPolicyAddress) {
		r.Kind, r.PolicyID = chainio.KindPolicy, [32]byte(l.Topics[2])
		vals, err := a.policy.Unpack("EvaluationRequested", l.Data)
		if err != nil {
			return r, err
		}
		hs, ok := vals[0].([][32]byte)
		if !ok {
			return r, fmt.Errorf("chain: EvaluationRequested handles are %T", vals[0])
		}
		for _, h := range hs {
			r.Inputs = append(r.Inputs, fhe.Handle(h))
		}
		return r, nil
	}
	r.Kind, r.PolicyID = chainio.KindCRDT, [32]byte(precompiles.CRDTValuePolicyID)
	// ValueRequested(requestId, stateId, requester, policyId): the state's
	// kind and public metadata are read with FHECRDT.stateOf; the committee
	// materialises the value from the writer ciphertexts the metadata
	// references (consensus' CRDT circuit).
	//
	// stateOf is read at the latest block, not at the event's block: a
	// pruning node has no state for old blocks ("missing trie node"), and
	// an adapter catching up after downtime would retry that read forever.
	// Reading at latest returns the same answer because a CRDT state record
	// is immutable once it exists (precompiles/crdt.go): storeState is only
	// called by create, under a fresh nonce-derived id, and by merge, under
	// keccak(lo, hi) and only when that record does not exist yet ("already
	// merged" returns early); nothing deletes or rewrites a record, and
	// allow only adds ACL slots, which stateOf does not return. value
	// requires the state to exist, so it exists at every block from the
	// event's on, and accepted blocks are final (no reorg can remove it).
	kind, md, err := a.stateOf(ctx, [32]byte(l.Topics[2]))
	if err != nil {
		return r, err
	}
	s, err := meta.Decode(md)
	if err != nil {
		return r, fmt.Errorf("chain: state %x metadata: %w", l.Topics[2][:4], err)
	}
	r.CRDTKind, r.CRDTMeta = kind, md
	for _, h := range s.Handles() {
		r.Inputs = append(r.Inputs, fhe.Handle(h))
	}
	return r, nil
}

// errRPC marks a failed chain call while decoding a request (retried).
var errRPC = errors.New("chain: rpc")

// stateOf calls FHECRDT.stateOf(stateId) at the latest block and returns
// the state's kind and metadata (immutable: see decodeRequest).
func (a *Adapter) stateOf(ctx context.Context, id [32]byte) (uint8, []byte, error) {
	data, err := a.crdt.Pack("stateOf", id)
	if err != nil {
		return 0, nil, err
	}
	to := addr(precompiles.FHECRDTAddress)
	res, err := a.client.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil) // latest
	if err != nil {
		return 0, nil, fmt.Errorf("%w: FHECRDT.stateOf: %v", errRPC, err)
	}
	vals, err := a.crdt.Unpack("stateOf", res)
	if err != nil || len(vals) != 7 {
		return 0, nil, fmt.Errorf("chain: FHECRDT.stateOf: %d values, %v", len(vals), err)
	}
	// (exists, kind, owner, handle, parentA, parentB, metadata)
	exists, _ := vals[0].(bool)
	kind, ok1 := vals[1].(uint8)
	md, ok2 := vals[6].([]byte)
	if !exists || !ok1 || !ok2 {
		return 0, nil, fmt.Errorf("chain: FHECRDT.stateOf %x: no such state", id[:4])
	}
	return kind, md, nil
}

var _ consensus.ACL = (*Adapter)(nil)

// IsAllowed implements consensus.ACL: FHEInput.isAllowed(handle, account)
// at the latest block (eth_call), which private reads check.
func (a *Adapter) IsAllowed(ctx context.Context, handle [32]byte, account [20]byte) (bool, error) {
	data, err := a.input.Pack("isAllowed", handle, common.Address(account))
	if err != nil {
		return false, err
	}
	to := addr(precompiles.FHEInputAddress)
	res, err := a.client.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil) // latest
	if err != nil {
		return false, fmt.Errorf("%w: FHEInput.isAllowed: %v", errRPC, err)
	}
	vals, err := a.input.Unpack("isAllowed", res)
	if err != nil || len(vals) != 1 {
		return false, fmt.Errorf("chain: FHEInput.isAllowed: %d values, %v", len(vals), err)
	}
	ok, _ := vals[0].(bool)
	return ok, nil
}

// VerdictPosted implements chainio.ChainAdapter (FHEVerdict.verdictOf).
func (a *Adapter) VerdictPosted(ctx context.Context, id [32]byte) (bool, error) {
	data, err := a.verd.Pack("verdictOf", id)
	if err != nil {
		return false, err
	}
	to := addr(precompiles.FHEVerdictAddress)
	res, err := a.client.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil)
	if err != nil {
		return false, err
	}
	vals, err := a.verd.Unpack("verdictOf", res)
	if err != nil || len(vals) == 0 {
		return false, fmt.Errorf("chain: verdictOf: %v", err)
	}
	ready, _ := vals[0].(bool)
	return ready, nil
}

// SubmitVerdict implements chainio.ChainAdapter.
func (a *Adapter) SubmitVerdict(ctx context.Context, v *chainio.Verdict) error {
	if posted, err := a.VerdictPosted(ctx, v.RequestID); err == nil && posted {
		return nil
	}
	data, err := a.verd.Pack("submit", v.RequestID, v.Result, v.ResultDigest, v.Signature, v.Signers)
	if err != nil {
		return err
	}
	return a.transact(ctx, "FHEVerdict.submit", data, "already accepted", func() bool {
		posted, _ := a.VerdictPosted(ctx, v.RequestID)
		return posted
	})
}

// SubmitVerdictBatch posts the verdicts of one packed evaluation of policyID
// with FHEVerdict.submitBatch: signature is the committee's aggregate (signer
// bitmap signers) over bls.VerdictBatchDigest(chainId, epoch, policyID,
// resultDigest, bls.VerdictBatchRoot(items)). It returns nil once the batch
// is accepted, or when every item already had a verdict (a resubmission).
// The batch must fit one transaction: precompiles.MaxBatchItems says how many
// items a block gas limit admits.
func (a *Adapter) SubmitVerdictBatch(ctx context.Context, policyID, resultDigest [32]byte, epoch uint64, items []bls.VerdictItem, signature, signers []byte) error {
	if len(items) == 0 || len(items) > precompiles.MaxVerdictBatch {
		return fmt.Errorf("chain: verdict batch of %d items outside [1,%d]", len(items), precompiles.MaxVerdictBatch)
	}
	if cur, err := a.committeeEpoch(ctx); err == nil && cur != epoch {
		return fmt.Errorf("chain: verdict batch signed for epoch %d, the chain's committee is at epoch %d", epoch, cur)
	}
	ids := make([][32]byte, len(items))
	results := make([]*big.Int, len(items))
	for i, it := range items {
		if it.Result == nil || it.Result.Sign() < 0 || it.Result.BitLen() > 256 {
			return fmt.Errorf("chain: verdict batch item %d: result is not a uint256", i)
		}
		ids[i], results[i] = it.RequestID, it.Result
	}
	data, err := a.verd.Pack("submitBatch", policyID, resultDigest, ids, results, signature, signers)
	if err != nil {
		return err
	}
	last := items[len(items)-1].RequestID
	return a.transact(ctx, "FHEVerdict.submitBatch", data, "already has a verdict (replay)", func() bool {
		posted, _ := a.VerdictPosted(ctx, last)
		return posted
	})
}

// Expire calls FHEVerdict.expire(id): the request gets the failure verdict
// precompiles.ResultExpired. It fails (with the chain's reason) while the
// request is younger than precompiles.ExpiryBlocks; a request that already
// has a verdict counts as done.
func (a *Adapter) Expire(ctx context.Context, id [32]byte) error {
	data, err := a.verd.Pack("expire", id)
	if err != nil {
		return err
	}
	return a.transact(ctx, "FHEVerdict.expire", data, "already has a verdict", func() bool {
		posted, _ := a.VerdictPosted(ctx, id)
		return posted
	})
}

// committeeEpoch reads FHEVerdict.committee's epoch.
func (a *Adapter) committeeEpoch(ctx context.Context) (uint64, error) {
	data, err := a.verd.Pack("committee")
	if err != nil {
		return 0, err
	}
	to := addr(precompiles.FHEVerdictAddress)
	res, err := a.client.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil)
	if err != nil {
		return 0, err
	}
	vals, err := a.verd.Unpack("committee", res)
	if err != nil || len(vals) == 0 {
		return 0, fmt.Errorf("chain: committee: %v", err)
	}
	e, ok := vals[0].(uint64)
	if !ok {
		return 0, fmt.Errorf("chain: committee epoch is %T", vals[0])
	}
	return e, nil
}

// maxSends bounds how often transact sends one payload: the first
// transaction and its resends after one was dropped or replaced.
const maxSends = 4

// lostAfter is how many polls in a row must find a sent transaction neither
// mined nor in the pool before transact counts it lost: a block being
// accepted shows its transactions in neither for a moment.
const lostAfter = 3

// errTxLost is a sent transaction that will never be mined: dropped from the
// pool, or its nonce used by another transaction from the same key.
var errTxLost = errors.New("transaction dropped or replaced")

// transact sends data to FHEVerdict from the adapter's key and waits for the
// receipt. A revert whose reason contains done (estimated or mined), or a
// failed receipt after which posted reports true, counts as success: another
// relayer got there first.
//
// A transaction that is lost — dropped from the pool (a restarted node, an
// evicted pool entry) or replaced (another process with the same key used
// its nonce, or sent first: "nonce too low", "replacement transaction
// underpriced") — is sent again under a fresh pending nonce, at most
// maxSends times in all, unless posted says its effect is already on chain.
// Before, transact waited for the lost transaction's receipt until ctx
// ended, holding every later verdict behind it.
func (a *Adapter) transact(ctx context.Context, what string, data []byte, done string, posted func() bool) error {
	a.txMu.Lock()
	defer a.txMu.Unlock()
	for send := 1; ; send++ {
		err := a.sendOnce(ctx, what, data, done, posted)
		if !errors.Is(err, errTxLost) || ctx.Err() != nil {
			return err
		}
		if posted() {
			return nil
		}
		if send >= maxSends {
			return fmt.Errorf("chain: %s: %d transactions lost: %w", what, send, err)
		}
		a.cfg.Log.Warn("transaction lost: sending it again under a fresh nonce",
			zap.String("what", what), zap.Int("send", send), zap.Error(err))
	}
}

// sendOnce is one send of transact and the wait for its receipt; errTxLost
// (wrapped) when the transaction will never be mined.
func (a *Adapter) sendOnce(ctx context.Context, what string, data []byte, done string, posted func() bool) error {
	to := addr(precompiles.FHEVerdictAddress)
	gas, err := a.client.EstimateGas(ctx, ethereum.CallMsg{From: a.from, To: &to, Data: data})
	if err != nil {
		if strings.Contains(err.Error(), done) {
			return nil
		}
		return fmt.Errorf("chain: %s would revert: %w", what, err)
	}
	nonce, err := a.client.PendingNonceAt(ctx, a.from)
	if err != nil {
		return err
	}
	tip, err := a.client.SuggestGasTipCap(ctx)
	if err != nil {
		return err
	}
	head, err := a.client.HeaderByNumber(ctx, nil)
	if err != nil {
		return err
	}
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: a.cfg.ChainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap,
		Gas: gas + gas/4, To: &to, Data: data})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(a.cfg.ChainID), a.cfg.Key)
	if err != nil {
		return err
	}
	if err := a.client.SendTransaction(ctx, signed); err != nil {
		if msg := err.Error(); strings.Contains(msg, "nonce too low") || strings.Contains(msg, "replacement transaction underpriced") {
			return fmt.Errorf("chain: send %s: nonce %d taken: %w (%v)", what, nonce, errTxLost, err)
		}
		return fmt.Errorf("chain: send %s: %w", what, err)
	}
	misses := 0
	for {
		rc, err := a.client.TransactionReceipt(ctx, signed.Hash())
		if err == nil {
			if rc.Status != types.ReceiptStatusSuccessful && !posted() {
				return fmt.Errorf("chain: %s reverted (tx %s)", what, signed.Hash())
			}
			return nil
		}
		if why := a.lost(ctx, signed); why != "" {
			if misses++; misses >= lostAfter {
				return fmt.Errorf("chain: %s (tx %s, nonce %d): %s: %w", what, signed.Hash(), nonce, why, errTxLost)
			}
		} else {
			misses = 0
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(a.cfg.Poll):
		}
	}
}

// lost says why tx will never be mined ("" while it may be): it is neither
// in the pool nor mined, and its nonce is used (replaced) or not (dropped).
// A read that fails says nothing.
func (a *Adapter) lost(ctx context.Context, tx *types.Transaction) string {
	if _, _, err := a.client.TransactionByHash(ctx, tx.Hash()); !errors.Is(err, ethereum.NotFound) {
		return ""
	}
	used, err := a.client.NonceAt(ctx, a.from, nil)
	switch {
	case err != nil:
		return ""
	case used > tx.Nonce():
		return "replaced: its nonce was used by another transaction"
	default:
		return "dropped from the pool"
	}
}

// CommitteeKeyOf implements chainio.CommitteeKeyRegistry with
// FHEVerdict.committeeKeyOf: the FHE public-key digest recorded for epoch
// (zero when none).
func (a *Adapter) CommitteeKeyOf(ctx context.Context, epoch uint64) ([32]byte, error) {
	data, err := a.verd.Pack("committeeKeyOf", epoch)
	if err != nil {
		return [32]byte{}, err
	}
	to := addr(precompiles.FHEVerdictAddress)
	res, err := a.client.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil)
	if err != nil {
		return [32]byte{}, err
	}
	vals, err := a.verd.Unpack("committeeKeyOf", res)
	if err != nil || len(vals) != 1 {
		return [32]byte{}, fmt.Errorf("chain: committeeKeyOf: %v", err)
	}
	d, ok := vals[0].([32]byte)
	if !ok {
		return [32]byte{}, fmt.Errorf("chain: committeeKeyOf returned %T", vals[0])
	}
	return d, nil
}

// SubmitCommitteeKey implements chainio.CommitteeKeyRegistry with
// FHEVerdict.setCommitteeKey: signature is the committee's aggregate
// (signer bitmap signers) over bls.CommitteeKeyDigest(chainId, epoch,
// pkDigest). It returns nil once the digest is recorded, also when another
// relayer recorded the same digest first; another digest already recorded
// for the epoch is an error.
func (a *Adapter) SubmitCommitteeKey(ctx context.Context, epoch uint64, pkDigest [32]byte, signature, signers []byte) error {
	if cur, err := a.CommitteeKeyOf(ctx, epoch); err == nil && cur != ([32]byte{}) {
		if cur == pkDigest {
			return nil
		}
		return fmt.Errorf("chain: epoch %d already has committee key %x", epoch, cur[:8])
	}
	data, err := a.verd.Pack("setCommitteeKey", epoch, pkDigest, signature, signers)
	if err != nil {
		return err
	}
	recorded := func() bool {
		cur, err := a.CommitteeKeyOf(ctx, epoch)
		return err == nil && cur == pkDigest
	}
	if err := a.transact(ctx, "FHEVerdict.setCommitteeKey", data, "already recorded", recorded); err != nil {
		return err
	}
	if !recorded() {
		return fmt.Errorf("chain: epoch %d has another committee key recorded", epoch)
	}
	return nil
}
