package consensus

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/config"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	keccakpkg "github.com/fhegate/fhegate/internal/keccak"
)

// InProcess is a committee whose members run in this process
// (consensus/local.Committee): what KeySwitch needs of the old committee
// and of the new one.
type InProcess struct {
	Config  *config.CommitteeConfig
	Members []*Member      // member id − 1 → member; nil for one that is down
	Keys    *fhe.PublicKey // the committee's collective public key
	Chain   func(id uint32) chainio.ChainAdapter
	Log     *zap.Logger
}

// Member returns member id (1-based), nil if it is down.
func (c InProcess) Member(id uint32) *Member { return c.Members[id-1] }

// KeySwitch moves every stored input of the old committee to the new
// committee's key — after each active old member checked on its chain that
// the key is the one recorded for the next epoch (VerifyTargetKey) and
// pinned it for its epoch — with the cross-committee key switch
// (protocol.CrossKeySwitch: the output keeps the input's c1, so no member
// can shift it — the K-shift of the public-key switch), then every new
// member adopts its output (AdoptReencrypted's refresh under the new key,
// digest agreement and store, with the old committee's threshold for the
// noise bounds).
//
// The two committees meet on a joint in-memory transport for the switch:
// old member i is i there, new member k is n+k (its Shamir point k is
// shifted by n, KeySwitchRequest.NewOffset). The first t live old members
// and the first t′ new members are active; the other new members receive.
// The new members take each input's ciphertext from the first active old
// member (in one process; across machines they would fetch it and check it
// against the handle).
func KeySwitch(ctx context.Context, old, nc InProcess) error {
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
	t := old.Config.Threshold
	if len(live) < t {
		return fmt.Errorf("%w: %d old members up for the key switch, threshold %d", ErrNoQuorum, len(live), t)
	}
	sortHandles(handles)
	if len(handles) == 0 {
		return nil
	}
	n, n2 := len(old.Config.Members), len(nc.Members)
	off := transport.MemberID(n)
	hub := transport.NewHub(n + n2)
	muxes := make([]*transport.Mux, n+n2+1)
	joint := make([]transport.MemberID, 0, n+n2)
	for id := 1; id <= n+n2; id++ {
		muxes[id] = transport.NewMux(hub.Endpoint(transport.MemberID(id)), old.Log)
		joint = append(joint, transport.MemberID(id))
	}
	defer func() {
		for _, mx := range muxes[1:] {
			mx.Close()
		}
	}()
	oldActive := make([]transport.MemberID, 0, t)
	for _, m := range live[:t] {
		oldActive = append(oldActive, m.ID())
	}
	var newActive, receivers []transport.MemberID
	for k := range nc.Members {
		id := off + transport.MemberID(k+1)
		if k < nc.Config.Threshold {
			newActive = append(newActive, id)
		} else {
			receivers = append(receivers, id)
		}
	}
	group := func(m *Member, id transport.MemberID) protocol.Group {
		return protocol.Group{Mux: muxes[id], Members: joint, Threshold: m.cfg.Committee.Threshold, Timeout: m.cfg.RoundTimeout,
			Log: m.log, OnEquivocation: m.blame}
	}
	pkb, err := nc.Keys.MarshalBinary()
	if err != nil {
		return err
	}
	tpd := keccakpkg.Sum(pkb)
	for _, id := range oldActive {
		m := old.Member(uint32(id))
		ks, err := m.snap()
		if err != nil {
			return err
		}
		// each old member reads the target's digest from its own chain
		// adapter: the new committee's quorum bound it there for epoch+1
		reg, err := chainio.KeyRegistryOf(old.Chain(uint32(id)))
		if err != nil {
			return err
		}
		if err := chainio.VerifyTargetKey(ctx, reg, ks.km.Epoch+1, tpd); err != nil {
			return fmt.Errorf("consensus: old member %d refuses the key switch: %w", id, err)
		}
		if err := m.pinEpochTarget(ks, tpd); err != nil {
			return err
		}
	}
	outs := make([]map[fhe.Handle][]byte, n2)
	for k := range outs {
		outs[k] = map[fhe.Handle][]byte{}
	}
	first := old.Member(uint32(oldActive[0]))
	for _, h := range handles {
		fks, err := first.snap()
		if err != nil {
			return err
		}
		ct, err := first.currentInput(h, fks.km.Epoch)
		if err != nil {
			return fmt.Errorf("consensus: key switch %s: %w", h, err)
		}
		req := protocol.KeySwitchRequest{
			Session:    fmt.Sprintf("ks/%d/%x/%x", fks.km.Epoch, tpd[:8], h[:8]),
			Ciphertext: ct, Target: nc.Keys, Old: joint[:n], New: joint[n:], OldActive: oldActive, NewActive: newActive,
			NewOffset: off, Receivers: receivers,
		}
		var wg sync.WaitGroup
		errs := make([]error, t+n2)
		for x, id := range oldActive {
			wg.Add(1)
			go func(x int, m *Member, id transport.MemberID) {
				defer wg.Done()
				ks, err := m.snap()
				if err == nil {
					r := req
					if r.Ciphertext, err = m.currentInput(h, ks.km.Epoch); err == nil {
						_, err = protocol.CrossKeySwitch(ctx, group(m, id), ks.key, ks.plan, m.led, r)
					}
				}
				errs[x] = err
			}(x, old.Member(uint32(id)), id)
		}
		for k, m := range nc.Members {
			wg.Add(1)
			go func(k int, m *Member) {
				defer wg.Done()
				ks, err := m.snap()
				if err != nil {
					errs[t+k] = err
					return
				}
				out, err := protocol.CrossKeySwitch(ctx, group(m, off+transport.MemberID(k+1)), ks.key, ks.plan, m.led, req)
				if err == nil {
					outs[k][h], err = out.MarshalBinary()
				}
				errs[t+k] = err
			}(k, m)
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("consensus: key switch %s: %w", h, err)
		}
		old.Log.Debug("input key-switched to the new committee", zap.String("handle", h.String()))
	}
	stored := make([]int, n2)
	aerrs := make([]error, n2)
	var wg sync.WaitGroup
	for k, m := range nc.Members {
		wg.Add(1)
		go func(k int, m *Member) {
			defer wg.Done()
			ks, err := m.snap()
			if err != nil {
				aerrs[k] = err
				return
			}
			stored[k], aerrs[k] = m.adoptAll(ctx, ks, outs[k], t)
		}(k, m)
	}
	wg.Wait()
	if err := errors.Join(aerrs...); err != nil {
		return fmt.Errorf("consensus: adopting key-switched inputs: %w", err)
	}
	for k, c := range stored {
		if c != len(handles) {
			return fmt.Errorf("consensus: new member %d stored %d of %d key-switched inputs", k+1, c, len(handles))
		}
	}
	return nil
}
