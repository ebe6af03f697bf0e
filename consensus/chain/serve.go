package chain

import (
	"context"
	"errors"
	"fmt"
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
	// Joins, if set, delivers members that start while Serve runs — a
	// member of an in-process committee killed and brought back on its
	// store (the devnet's fault injection, `fhegate bench load
	// --kill-member`). Each is wired as the first ones are (ACL, policies
	// registered from then on) and served until ctx ends; it replaces the
	// member of the same id in the policy fan-out.
	Joins <-chan *consensus.Member
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
	members := newMemberSet(c.Members)
	c.OnPolicy = func(id [32]byte, spec []byte) {
		for _, m := range members.all() {
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
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	run := func(m *consensus.Member) {
		wg.Go(func() {
			if err := m.Run(ctx, ad); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("member %d: %w", m.ID(), err))
				mu.Unlock()
			}
		})
	}
	for _, m := range c.Members {
		run(m)
	}
	if c.Joins != nil {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case m, ok := <-c.Joins:
					if !ok {
						return
					}
					m.SetACL(ad)
					members.put(m)
					log.Info("member joined the serve loop", zap.Uint32("member", uint32(m.ID())))
					run(m)
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// memberSet is the members Serve runs, by id: a member that joins
// replaces the one of its id (killed, so no longer served).
type memberSet struct {
	mu sync.Mutex
	ms []*consensus.Member
}

func newMemberSet(ms []*consensus.Member) *memberSet {
	return &memberSet{ms: append([]*consensus.Member(nil), ms...)}
}

func (s *memberSet) all() []*consensus.Member {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*consensus.Member(nil), s.ms...)
}

func (s *memberSet) put(m *consensus.Member) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, old := range s.ms {
		if old.ID() == m.ID() {
			s.ms[i] = m
			return
		}
	}
	s.ms = append(s.ms, m)
}
