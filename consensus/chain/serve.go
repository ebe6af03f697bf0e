package chain

import (
	"context"
	"errors"
	"sync"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus"
)

// ServeConfig configures Serve.
type ServeConfig struct {
	// Config is the adapter's; Serve sets its OnPolicy.
	Config
	// Members are the members this process runs on the chain: one for a
	// committee member (`fhegate committee serve`), every member of an
	// in-process committee for the devnet.
	Members []*consensus.Member
	// Ready, if set, runs once the policies registered before this start
	// are compiled and before the members serve (the devnet binds its key
	// and starts its members' client APIs there).
	Ready func(ctx context.Context, ad *Adapter) error
}

// Serve is a serving member's whole wiring to a chain: it dials the chain,
// registers every policy the chain registers with every member
// (Member.RegisterPolicy: persisted, then compiled; a policy that does not
// compile for the committee is recorded, and its requests are answered
// with the signed chainio.ResultUnevaluable verdict), has the members check
// private reads against FHEInput's ACL on this chain, replays the policies
// registered before this start (compiled plans live in memory; the request
// cursor resumes after them), calls Ready, and runs every member's serve
// loop (Member.Run) on the chain until ctx ends.
func Serve(ctx context.Context, c ServeConfig) error {
	log := c.Log
	if log == nil {
		log = zap.NewNop()
	}
	c.OnPolicy = func(id [32]byte, spec []byte) {
		for _, m := range c.Members {
			if err := m.RegisterPolicy(id, spec); err != nil {
				log.Warn("policy not compiled for the committee; its requests will be answered unevaluable",
					zap.Uint32("member", uint32(m.ID())), zap.Error(err))
			}
		}
	}
	ad, err := Dial(ctx, c.Config)
	if err != nil {
		return err
	}
	defer ad.Close()
	for _, m := range c.Members {
		m.SetACL(ad)
	}
	if n, err := ad.ReplayPolicies(ctx, 0); err != nil {
		return err
	} else if n > 0 {
		log.Info("policies registered before this start compiled", zap.Int("policies", n))
	}
	if c.Ready != nil {
		if err := c.Ready(ctx, ad); err != nil {
			return err
		}
	}
	errs := make([]error, len(c.Members))
	var wg sync.WaitGroup
	for i, m := range c.Members {
		wg.Go(func() { errs[i] = m.Run(ctx, ad) })
	}
	wg.Wait()
	return errors.Join(errs...)
}
