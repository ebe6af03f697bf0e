package load

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"sync"
	"time"

	ethereum "github.com/ava-labs/libevm"
	"github.com/ava-labs/libevm/accounts/abi"
	"github.com/ava-labs/libevm/common"

	"github.com/fhegate/fhegate/contracts/bindings"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
)

// maxSamples bounds the RPC round-trip samples and block records kept.
const maxSamples = 1 << 17

// sighting is when the watcher saw an event's block.
type sighting struct {
	at    time.Time
	block uint64
	tx    common.Hash
}

// blockStat is one block of the run.
type blockStat struct {
	number, gasUsed, gasLimit uint64
	time                      uint64 // header timestamp, seconds
	seen                      time.Time
}

// watcher follows the head: block gas, EvaluationRequested and
// VerdictAccepted sightings, RPC round trips, progress lines.
type watcher struct {
	g                                   *gen
	evalTopic, verdictTopic, batchTopic common.Hash
	submit, submitBatch                 abi.Method

	mu       sync.Mutex
	head     uint64
	evals    map[[32]byte]sighting
	verdicts map[[32]byte]sighting
	signers  map[[32]byte][]byte // signer bitmap of the transaction that answered the request
	blocks   []blockStat
	rtts     []time.Duration
	lastErr  error

	cancel context.CancelFunc
	done   chan struct{}
}

func newWatcher(g *gen) *watcher {
	pa, _ := bindings.IFHEPolicyMetaData.GetAbi()
	va, _ := bindings.IFHEVerdictMetaData.GetAbi()
	return &watcher{g: g, evalTopic: pa.Events["EvaluationRequested"].ID, verdictTopic: va.Events["VerdictAccepted"].ID,
		batchTopic: va.Events["VerdictBatchAccepted"].ID, submit: va.Methods["submit"], submitBatch: va.Methods["submitBatch"],
		evals: map[[32]byte]sighting{}, verdicts: map[[32]byte]sighting{}, signers: map[[32]byte][]byte{}, done: make(chan struct{})}
}

func (w *watcher) start(ctx context.Context) error {
	head, err := w.g.cl.BlockNumber(ctx)
	if err != nil {
		return fmt.Errorf("load: head: %w", err)
	}
	w.head = head
	ctx, w.cancel = context.WithCancel(ctx)
	go w.loop(ctx)
	return nil
}

func (w *watcher) stop() {
	w.cancel()
	<-w.done
}

func (w *watcher) loop(ctx context.Context) {
	defer close(w.done)
	t0 := time.Now()
	lastProgress := t0
	tick := time.NewTicker(w.g.cfg.Poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := w.poll(ctx); err != nil && ctx.Err() == nil {
			w.mu.Lock()
			w.lastErr = err
			w.mu.Unlock()
		}
		if time.Since(lastProgress) >= w.g.cfg.ProgressEvery {
			lastProgress = time.Now()
			w.progress(time.Since(t0))
		}
	}
}

// poll reads the head and, for the blocks since the last poll, their
// headers and the request and verdict events.
func (w *watcher) poll(ctx context.Context) error {
	t := time.Now()
	n, err := w.g.cl.BlockNumber(ctx)
	if err != nil {
		return err
	}
	seen := time.Now()
	w.mu.Lock()
	if len(w.rtts) < maxSamples {
		w.rtts = append(w.rtts, seen.Sub(t))
	}
	from := w.head + 1
	w.mu.Unlock()
	if n < from {
		return nil
	}
	blocks := make([]blockStat, 0, n-from+1)
	for b := from; b <= n; b++ {
		h, err := w.g.cl.HeaderByNumber(ctx, new(big.Int).SetUint64(b))
		if err != nil {
			return err
		}
		blocks = append(blocks, blockStat{number: b, gasUsed: h.GasUsed, gasLimit: h.GasLimit, time: h.Time, seen: seen})
	}
	logs, err := w.g.cl.FilterLogs(ctx, ethereum.FilterQuery{
		FromBlock: new(big.Int).SetUint64(from), ToBlock: new(big.Int).SetUint64(n),
		Addresses: []common.Address{subnetevm.PolicyAddress, subnetevm.VerdictAddress},
		Topics:    [][]common.Hash{{w.evalTopic, w.verdictTopic, w.batchTopic}},
	})
	if err != nil {
		return err
	}
	batches := map[common.Hash][][32]byte{}
	bitmaps := map[common.Hash][]byte{} // signer bitmaps of the verdict transactions
	for _, l := range logs {
		if len(l.Topics) == 0 {
			continue
		}
		switch {
		case l.Topics[0] == w.batchTopic && batches[l.TxHash] == nil:
			if batches[l.TxHash], bitmaps[l.TxHash], err = w.batchIDs(ctx, l.TxHash); err != nil {
				return err
			}
		case l.Topics[0] == w.verdictTopic && bitmaps[l.TxHash] == nil:
			// participation only: a verdict posted through a contract
			// (not a direct submit call) has no bitmap to read
			bitmaps[l.TxHash], _ = w.submitSigners(ctx, l.TxHash)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range logs {
		s := sighting{at: seen, block: l.BlockNumber, tx: l.TxHash}
		switch {
		case len(l.Topics) < 2:
		case l.Topics[0] == w.evalTopic:
			w.evals[l.Topics[1]] = s
		case l.Topics[0] == w.verdictTopic:
			w.verdicts[l.Topics[1]] = s
			if bm := bitmaps[l.TxHash]; bm != nil {
				w.signers[l.Topics[1]] = bm
			}
		case l.Topics[0] == w.batchTopic:
			for _, id := range batches[l.TxHash] {
				if _, dup := w.verdicts[id]; !dup { // a replayed item is skipped on chain, not overwritten
					w.verdicts[id] = s
					w.signers[id] = bitmaps[l.TxHash]
				}
			}
		}
	}
	if len(w.blocks)+len(blocks) <= maxSamples {
		w.blocks = append(w.blocks, blocks...)
	}
	w.head = n
	return nil
}

// batchIDs returns the request ids and the signer bitmap of the
// FHEVerdict.submitBatch transaction h (its calldata: the
// VerdictBatchAccepted event names only the batch's root and a signer
// count).
func (w *watcher) batchIDs(ctx context.Context, h common.Hash) ([][32]byte, []byte, error) {
	tx, _, err := w.g.cl.TransactionByHash(ctx, h)
	if err != nil {
		return nil, nil, fmt.Errorf("verdict batch transaction %s: %w", h, err)
	}
	return decodeBatchIDs(w.submitBatch, tx.Data())
}

// submitSigners returns the signer bitmap of the FHEVerdict.submit
// transaction h.
func (w *watcher) submitSigners(ctx context.Context, h common.Hash) ([]byte, error) {
	tx, _, err := w.g.cl.TransactionByHash(ctx, h)
	if err != nil {
		return nil, err
	}
	args, err := unpackCall(w.submit, tx.Data())
	if err != nil {
		return nil, err
	}
	bm, ok := args[4].([]byte)
	if !ok {
		return nil, fmt.Errorf("submit calldata: signers are %T", args[4])
	}
	return bm, nil
}

// unpackCall decodes the arguments of a direct call of m.
func unpackCall(m abi.Method, data []byte) ([]any, error) {
	if len(data) < 4 || !bytes.Equal(data[:4], m.ID) {
		return nil, fmt.Errorf("verdict transaction is not a direct FHEVerdict.%s call", m.Name)
	}
	args, err := m.Inputs.Unpack(data[4:])
	if err != nil {
		return nil, fmt.Errorf("%s calldata: %w", m.Name, err)
	}
	if len(args) != len(m.Inputs) {
		return nil, fmt.Errorf("%s calldata: %d arguments", m.Name, len(args))
	}
	return args, nil
}

// decodeBatchIDs reads requestIds and the signer bitmap from submitBatch
// calldata.
func decodeBatchIDs(m abi.Method, data []byte) ([][32]byte, []byte, error) {
	args, err := unpackCall(m, data)
	if err != nil {
		return nil, nil, err
	}
	ids, ok := args[2].([][32]byte)
	if !ok || len(ids) == 0 {
		return nil, nil, fmt.Errorf("submitBatch calldata: request ids are %T", args[2])
	}
	bm, ok := args[5].([]byte)
	if !ok {
		return nil, nil, fmt.Errorf("submitBatch calldata: signers are %T", args[5])
	}
	return ids, bm, nil
}

func (w *watcher) progress(d time.Duration) {
	w.mu.Lock()
	head, nv, err := w.head, len(w.verdicts), w.lastErr
	w.mu.Unlock()
	m := len(w.g.reqs)
	line := fmt.Sprintf("load %7.1fs  inputs %d/%d  evaluated %d/%d  verdicts %d/%d  block %d",
		d.Seconds(), w.g.inputsDone.Load(), m, w.g.evalsDone.Load(), m, min(nv, m), m, head)
	if err != nil {
		line += fmt.Sprintf("  (last RPC error: %v)", err)
	}
	w.g.progressf("%s\n", line)
}

// missing counts the ids without a verdict sighting.
func (w *watcher) missing(ids [][32]byte) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, id := range ids {
		if _, ok := w.verdicts[id]; !ok {
			n++
		}
	}
	return n
}

// counts is how many evaluation requests and verdicts the watcher has
// seen since the run started.
func (w *watcher) counts() (evals, verdicts int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.evals), len(w.verdicts)
}

func (w *watcher) verdictOf(id [32]byte) (sighting, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.verdicts[id]
	return s, ok
}
