package local

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/chainio"
)

// Rotate rotates an in-process committee to epoch old+1:
//
//  1. the old committee stops serving (its members stay up: their keys
//     answer the re-encryption, and nothing else);
//  2. a new committee — fresh member identities under o.Dir, o.N/o.T
//     (default: the old ones), the same preset and chain id — runs a new
//     DKG under epoch old+1;
//  3. the chain switches committee (Options.SetCommittee, the
//     setCommittee of FHEVerdict: epoch+1; with a shared MemChain,
//     MemChain.SetCommittee) and t′ new members sign their collective
//     public key's digest for epoch+1, posted with setCommitteeKey
//     (Committee.BindKey; docs/committee.md, "The new key bound on
//     chain");
//  4. t live old members, each having checked on its chain adapter that
//     the target key is the one recorded for epoch+1, and t′ new members
//     switch every input stored
//     under the old epoch to the new key with the cross-committee key
//     switch (consensus.KeySwitch, protocol.CrossKeySwitch: the output keeps the
//     input's c1, so no member can shift it); t old members must be up;
//  5. each new member refreshes its outputs under the new key with its
//     peers and checks the digests agree (as Member.AdoptFromPrevious);
//     then, if o.Serve, the new committee serves the chain.
//
// The caller closes the old committee when it no longer needs it. o.Chain,
// if set, is the new committee's chain and o.SetCommittee must register
// the new committee on it; otherwise the new committee shares old.Chain,
// or, if the old committee had none either, gets a fresh MemChain of its
// own (and the old members, reading their own chain, refuse the key).
func Rotate(ctx context.Context, old *Committee, o Options) (*Committee, error) {
	return RotateWith(ctx, old, o, func(ctx context.Context, old, nc *Committee) error {
		return consensus.KeySwitch(ctx, old.InProcess(), nc.InProcess())
	})
}

// RotateWith is Rotate with steps 4–5 done by keySwitch (tests run the
// joint session over TLS instead of consensus.KeySwitch's in-memory hub).
func RotateWith(ctx context.Context, old *Committee, o Options, keySwitch func(ctx context.Context, old, nc *Committee) error) (*Committee, error) {
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
		o.Chain = func(uint32) chainio.ChainAdapter { return chain }
	}
	old.stopServing()

	nc, err := Start(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("consensus: rotation DKG: %w", err)
	}
	if shared {
		nc.Chain = old.Chain
	}
	register := o.SetCommittee
	if register == nil && shared {
		register = nc.Chain.SetCommittee
	}
	if register == nil {
		nc.Close()
		return nil, errors.New("consensus: rotation on the caller's chain needs Options.SetCommittee (FHEVerdict.setCommittee before the key binding)")
	}
	if err := register(nc.Config); err != nil {
		nc.Close()
		return nil, fmt.Errorf("consensus: registering the epoch-%d committee: %w", nc.Config.Epoch, err)
	}
	reg, err := chainio.KeyRegistryOf(nc.chainFor(0))
	if err == nil {
		_, err = nc.BindKey(ctx, reg)
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("consensus: binding the epoch-%d committee key on chain: %w", nc.Config.Epoch, err)
	}
	if err := keySwitch(ctx, old, nc); err != nil {
		nc.Close()
		return nil, err
	}
	nc.opts.Serve = serve
	if serve {
		for i := range nc.Members {
			nc.serve(i)
		}
	}
	return nc, nil
}

// stopServing ends every member's Run loop (the members stay up).
func (lc *Committee) stopServing() {
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

// InProcess is the committee as consensus.KeySwitch sees it: its members
// now (nil for a killed one), key and chain adapters.
func (lc *Committee) InProcess() consensus.InProcess {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	return consensus.InProcess{Config: lc.Config, Members: append([]*consensus.Member(nil), lc.Members...), Keys: lc.Keys,
		Chain: func(id uint32) chainio.ChainAdapter { return lc.chainFor(int(id) - 1) }, Log: lc.opts.Log}
}
