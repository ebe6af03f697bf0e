package load

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/ava-labs/libevm/accounts/abi/bind"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"

	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/examples/fheclient"
)

// pending is a sent transaction and the request it belongs to.
type pending struct {
	r *request
	h common.Hash
}

// window keeps up to InFlight transactions of one account in flight; flush
// waits for their receipts and hands each to done.
type window struct {
	g    *gen
	txs  []pending
	done func(*request, *types.Receipt) error
}

func (w *window) add(ctx context.Context, r *request, h common.Hash) error {
	w.txs = append(w.txs, pending{r, h})
	if len(w.txs) >= w.g.cfg.InFlight {
		return w.flush(ctx)
	}
	return nil
}

func (w *window) flush(ctx context.Context) error {
	hs := make([]common.Hash, len(w.txs))
	for i, p := range w.txs {
		hs[i] = p.h
	}
	rs, err := w.g.receipts(ctx, hs)
	if err != nil {
		return err
	}
	for i, rc := range rs {
		if err := w.done(w.txs[i].r, rc); err != nil {
			return err
		}
	}
	w.txs = w.txs[:0]
	return nil
}

// sendInputs is phase 1 for one account: encrypt, upload and register every
// input of its requests.
func (g *gen) sendInputs(ctx context.Context, a *account, mine []*request) error {
	w := &window{g: g, done: func(r *request, rc *types.Receipt) error {
		r.gas.Register += rc.GasUsed
		return nil
	}}
	if g.cfg.Inputs.rooted() {
		return g.uploadConcurrently(ctx, a, mine)
	}
	for _, r := range mine {
		hs, err := g.registerInputs(ctx, a, r)
		if err != nil {
			return fmt.Errorf("request %d: %w", r.idx, err)
		}
		for _, h := range hs {
			if err := w.add(ctx, r, h); err != nil {
				return err
			}
		}
		g.inputsDone.Add(1)
	}
	return w.flush(ctx)
}

// uploadConcurrently is phase 1 with InputsRooted or InputsVector: no transactions, so an
// account's uploads go out several at a time — InFlight, but at most
// api.MaxConcurrentStorePuts over all accounts, the uploads a member
// replicates at once (beyond it its peers drop them) — and the uploads
// the member attests together share a root (its batch closes when none is
// left in progress, or after its window).
func (g *gen) uploadConcurrently(ctx context.Context, a *account, mine []*request) error {
	sem := make(chan struct{}, min(g.cfg.InFlight, max(1, api.MaxConcurrentStorePuts/g.cfg.Accounts)))
	errs := make([]error, len(mine))
	var wg sync.WaitGroup
	for i, r := range mine {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			errs[i] = ctx.Err()
		}
		if errs[i] != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if _, err := g.registerInputs(ctx, a, r); err != nil {
				errs[i] = fmt.Errorf("request %d: %w", r.idx, err)
				return
			}
			g.inputsDone.Add(1)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// registerInputs uploads the request's inputs as one set (each value
// replicated in every slot, one proof each, one quorum attestation for the
// set; with InputsRooted also its place in an input root; with InputsVector
// all values in one vector input, under a root) and sends one
// FHEInput.registerSet for them (registerBatch with InputsPerHandle;
// nothing with InputsInline, InputsRooted and InputsVector, whose evaluation carries the
// attestation); it returns the transactions. This is the one place that
// knows how inputs reach the chain (through examples/fheclient).
func (g *gen) registerInputs(ctx context.Context, a *account, r *request) ([]common.Hash, error) {
	upload, want := g.api.Upload, len(r.vals)
	switch g.cfg.Inputs {
	case InputsRooted:
		upload = g.api.UploadRooted
	case InputsVector:
		upload, want = g.api.UploadVector, 1
	}
	at, err := upload(ctx, a.addr, r.vals...)
	if err != nil {
		return nil, err
	}
	if len(at.Handles) != want {
		return nil, fmt.Errorf("committee attested %d handles for %d inputs", len(at.Handles), len(r.vals))
	}
	r.handles = at.Handles
	register, name := at.RegisterSet, "FHEInput.registerSet"
	switch g.cfg.Inputs {
	case InputsInline, InputsRooted, InputsVector:
		r.at = at
		return nil, nil
	case InputsPerHandle:
		register, name = at.Register, "FHEInput.registerBatch"
	}
	h, err := g.transact(a, func(o *bind.TransactOpts) (*types.Transaction, error) { return register(o, g.input) })
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return []common.Hash{h}, nil
}

// sendEvaluates is phase 2 for one account: FHEPolicy.evaluate for each of
// its requests, recording the request id and the gas.
func (g *gen) sendEvaluates(ctx context.Context, a *account, mine []*request) error {
	w := &window{g: g, done: func(r *request, rc *types.Receipt) error {
		for _, l := range rc.Logs {
			if ev, err := g.policy.ParseEvaluationRequested(*l); err == nil {
				r.id = ev.RequestId
			}
		}
		if r.id == ([32]byte{}) {
			return fmt.Errorf("request %d: evaluate %s emitted no EvaluationRequested event", r.idx, rc.TxHash)
		}
		r.gas.Evaluate = rc.GasUsed
		g.evalsDone.Add(1)
		return nil
	}}
	for _, r := range mine {
		if err := g.pace(ctx, r); err != nil {
			return err
		}
		h, err := g.transact(a, func(o *bind.TransactOpts) (*types.Transaction, error) {
			if at := r.at; at != nil {
				return at.Evaluate(o, g.policy, g.policyID) // evaluateRooted, or evaluateAttested without a root
			}
			if err := fheclient.PayDeposit(o, g.policy, g.policyID); err != nil {
				return nil, err
			}
			return g.policy.Evaluate(o, g.policyID, r.handles)
		})
		if err != nil {
			return fmt.Errorf("request %d: FHEPolicy.evaluate: %w", r.idx, err)
		}
		if err := w.add(ctx, r, h); err != nil {
			return err
		}
	}
	return w.flush(ctx)
}

// pace waits, in a paced run (Config.Rate), until request r's send time:
// r.idx/Rate seconds after phase 2 started.
func (g *gen) pace(ctx context.Context, r *request) error {
	if g.cfg.Rate <= 0 {
		return nil
	}
	wait := time.Until(g.paceStart.Add(time.Duration(float64(r.idx) / g.cfg.Rate * float64(time.Second))))
	if wait <= 0 {
		return nil
	}
	select {
	case <-time.After(wait):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitVerdicts waits until the watcher has seen a VerdictAccepted event for
// every request.
func (g *gen) waitVerdicts(ctx context.Context) error {
	ids := make([][32]byte, len(g.reqs))
	for i, r := range g.reqs {
		ids[i] = r.id
	}
	for {
		missing := g.w.missing(ids)
		if missing == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("load: %d of %d requests have no verdict: %w", missing, len(ids), ctx.Err())
		case <-time.After(g.cfg.Poll):
		}
	}
}

// readVerdicts reads every verdict with FHEVerdict.verdictOf and compares it
// with the plaintext reference.
func (g *gen) readVerdicts(ctx context.Context) error {
	for _, r := range g.reqs {
		v, err := g.verdict.VerdictOf(&bind.CallOpts{Context: ctx}, r.id)
		if err != nil {
			return fmt.Errorf("load: verdictOf(%x): %w", r.id[:8], err)
		}
		if !v.Ready {
			return fmt.Errorf("load: request %x: VerdictAccepted seen but verdictOf is not ready", r.id[:8])
		}
		r.verdict = decodeVerdict(v.Result)
	}
	return nil
}

// verdictGas gives each request its share of the transaction that carried
// its verdict: that transaction's gas ÷ the verdicts in it.
func (g *gen) verdictGas(ctx context.Context) error {
	share := map[common.Hash]uint64{}
	for _, r := range g.reqs {
		s, ok := g.w.verdictOf(r.id)
		if !ok {
			return errors.New("load: verdict vanished") // waitVerdicts saw them all
		}
		if _, done := share[s.tx]; !done {
			rc, err := g.cl.TransactionReceipt(ctx, s.tx)
			if err != nil {
				return fmt.Errorf("load: verdict transaction %s: %w", s.tx, err)
			}
			share[s.tx] = perItem(rc.GasUsed, g.verdictItems(rc.Logs))
			g.settled(rc.Logs)
		}
		r.gas.Verdict = share[s.tx]
	}
	return nil
}

// verdictItems counts the verdicts a receipt's logs carry: one per
// VerdictAccepted (FHEVerdict.submit) plus each VerdictBatchAccepted's count
// (FHEVerdict.submitBatch).
func (g *gen) verdictItems(logs []*types.Log) int {
	n := 0
	for _, l := range logs {
		if len(l.Topics) == 0 {
			continue
		}
		switch l.Topics[0] {
		case g.w.verdictTopic:
			n++
		case g.w.batchTopic:
			if ev, err := g.verdict.ParseVerdictBatchAccepted(*l); err == nil {
				n += int(ev.Count)
			}
		}
	}
	return n
}

// settled adds the DepositsSettled events of a verdict transaction's logs
// (one per settling call) to the run's deposit tally.
func (g *gen) settled(logs []*types.Log) {
	for _, l := range logs {
		ev, err := g.verdict.ParseDepositsSettled(*l)
		if err != nil {
			continue
		}
		d := &g.deposits
		if d.refundedWei == nil {
			d.refundedWei, d.forfeitedWei = new(big.Int), new(big.Int)
		}
		d.Refunded += int(ev.Refunded)
		d.Forfeited += int(ev.Forfeited)
		d.refundedWei.Add(d.refundedWei, ev.RefundedWei)
		d.forfeitedWei.Add(d.forfeitedWei, ev.ForfeitedWei)
	}
}

// perItem is gas ÷ items (rounded), the whole gas when items is 0.
func perItem(gas uint64, items int) uint64 {
	if items <= 1 {
		return gas
	}
	return (gas + uint64(items)/2) / uint64(items)
}
