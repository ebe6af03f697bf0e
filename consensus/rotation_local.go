package consensus

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/fhe"
)

// RotateLocal rotates an in-process committee to epoch old+1:
//
//  1. the old committee stops serving (its members stay up: their keys
//     answer the re-encryption, and nothing else);
//  2. a new committee — fresh member identities under o.Dir, o.N/o.T
//     (default: the old ones), the same preset and chain id — runs a new
//     DKG under epoch old+1;
//  3. the live old members re-encrypt every input stored under the old
//     epoch to the new public key (Member.Reencrypt; t of them must be up);
//  4. each new member takes the copies at least t_old old members agree on,
//     refreshes them under the new key with its peers and checks the
//     digests agree (Member.AdoptReencrypted);
//  5. the in-memory chain switches committee (MemChain.SetCommittee, the
//     setCommittee of FHEVerdict: epoch+1) and, if o.Serve, the new
//     committee serves it.
//
// The caller closes the old committee when it no longer needs it. o.Chain,
// if set, is the new committee's chain (the caller switches its committee);
// otherwise the new committee shares old.Chain, or, if the old committee had
// none either, gets a fresh MemChain of its own.
func RotateLocal(ctx context.Context, old *LocalCommittee, o LocalOptions) (*LocalCommittee, error) {
	if o.Dir == "" || filepath.Clean(o.Dir) == filepath.Clean(old.opts.Dir) {
		return nil, errors.New("consensus: the rotated committee needs its own directory")
	}
	if o.Epoch == 0 {
		o.Epoch = old.Config.Epoch + 1
	}
	if o.Epoch != old.Config.Epoch+1 {
		return nil, fmt.Errorf("consensus: rotation from epoch %d to %d (must be +1)", old.Config.Epoch, o.Epoch)
	}
	if o.Preset == "" {
		o.Preset = old.Config.Preset
	}
	if o.Preset != old.Config.Preset {
		return nil, fmt.Errorf("consensus: rotation keeps the preset (%s), got %s", old.Config.Preset, o.Preset)
	}
	if o.N == 0 {
		o.N = len(old.Config.Members)
	}
	if o.T == 0 {
		o.T = old.Config.Threshold
	}
	if o.Rotations == nil {
		o.Rotations = old.Config.Rotations
	}
	o.ChainID = old.Config.ChainIDBig()
	serve := o.Serve
	o.Serve = false
	shared := o.Chain == nil && old.Chain != nil
	if shared {
		chain := old.Chain
		o.Chain = func(uint32) ChainAdapter { return chain }
	}
	old.stopServing()

	nc, err := StartLocal(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("consensus: rotation DKG: %w", err)
	}
	if shared {
		nc.Chain = old.Chain
	}
	if err := reencryptLocal(ctx, old, nc); err != nil {
		nc.Close()
		return nil, err
	}
	if shared {
		if err := nc.Chain.SetCommittee(nc.Config); err != nil {
			nc.Close()
			return nil, err
		}
	}
	nc.opts.Serve = serve
	if serve {
		for i := range nc.Members {
			nc.serve(i)
		}
	}
	return nc, nil
}

// reencryptLocal moves every input of the old committee to the new one
// (steps 3 and 4 of RotateLocal).
func reencryptLocal(ctx context.Context, old, nc *LocalCommittee) error {
	var live []*Member
	seen := map[fhe.Handle]bool{}
	var handles []fhe.Handle
	for i := range old.Members {
		m := old.Member(uint32(i + 1))
		if m == nil {
			continue
		}
		live = append(live, m)
		hs, err := m.CurrentHandles()
		if err != nil {
			return err
		}
		for _, h := range hs {
			if !seen[h] {
				seen[h] = true
				handles = append(handles, h)
			}
		}
	}
	if len(live) < old.Config.Threshold {
		return fmt.Errorf("%w: %d old members up for the re-encryption, threshold %d", ErrNoQuorum, len(live), old.Config.Threshold)
	}
	sortHandles(handles)
	if len(handles) == 0 {
		return nil
	}
	copies := make([][]Reencrypted, len(live))
	errs := make([]error, len(live))
	var wg sync.WaitGroup
	for i, m := range live {
		wg.Add(1)
		go func(i int, m *Member) {
			defer wg.Done()
			copies[i], errs[i] = m.Reencrypt(ctx, nc.Keys, handles)
		}(i, m)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			old.opts.Log.Warn("old member's re-encryption incomplete", zap.Uint32("member", uint32(live[i].ID())), zap.Error(err))
		}
	}
	stored := make([]int, len(nc.Members))
	aerrs := make([]error, len(nc.Members))
	for i, m := range nc.Members {
		wg.Add(1)
		go func(i int, m *Member) {
			defer wg.Done()
			stored[i], aerrs[i] = m.AdoptReencrypted(ctx, copies, old.Config.Threshold)
		}(i, m)
	}
	wg.Wait()
	if err := errors.Join(aerrs...); err != nil {
		return fmt.Errorf("consensus: adopting re-encrypted inputs: %w (old members: %v)", err, errors.Join(errs...))
	}
	for i, n := range stored {
		if n != len(handles) {
			return fmt.Errorf("consensus: new member %d stored %d of %d re-encrypted inputs", i+1, n, len(handles))
		}
	}
	return nil
}

// stopServing ends every member's Run loop (the members stay up).
func (lc *LocalCommittee) stopServing() {
	lc.mu.Lock()
	lc.opts.Serve = false
	cancels := append([]context.CancelFunc(nil), lc.cancel...)
	lc.mu.Unlock()
	for _, c := range cancels {
		if c != nil {
			c()
		}
	}
}
