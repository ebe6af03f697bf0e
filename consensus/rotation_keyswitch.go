package consensus

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/config"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
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
// committee's key with the joint key-switch session of rotation_joint.go,
// run on an in-memory transport: after each active old member checked on
// its chain adapter that the key is the one recorded for the next epoch
// and pinned it (prepareSwitchOut), the first t live old members
// (switchOut) and every new member (switchIn) key-switch each input, then
// every new member adopts its outputs (adoptAll's refresh under the new
// key, digest agreement and store, with the old committee's threshold for
// the noise bounds); last, every live old member retires (Member.Retire:
// key share and issued shares wiped). `fhegate committee rotate switch` runs the same
// session over the members' TLS transports (SwitchToNext,
// AdoptFromPrevious).
func KeySwitch(ctx context.Context, old, nc InProcess) error {
	var live []uint32
	for i := range old.Members {
		if old.Member(uint32(i+1)) != nil {
			live = append(live, uint32(i+1))
		}
	}
	t := old.Config.Threshold
	if len(live) < t {
		return fmt.Errorf("%w: %d old members up for the key switch, threshold %d", ErrNoQuorum, len(live), t)
	}
	n, n2 := len(old.Config.Members), len(nc.Members)
	p, err := newJointPlan(old.Config.Epoch, n, t, n2, nc.Config.Threshold, live[:t], nc.Keys)
	if err != nil {
		return err
	}
	hub := transport.NewHub(n + n2)
	muxes := make([]*transport.Mux, n+n2+1)
	for id := 1; id <= n+n2; id++ {
		muxes[id] = transport.NewMux(hub.Endpoint(transport.MemberID(id)), old.Log)
	}
	defer func() {
		for _, mx := range muxes[1:] {
			mx.Close()
		}
	}()
	snaps := make([]keySnap, t)
	for x, id := range live[:t] {
		// each old member reads the target's digest from its own chain
		// adapter: the new committee's quorum bound it there for epoch+1
		reg, err := chainio.KeyRegistryOf(old.Chain(id))
		if err != nil {
			return fmt.Errorf("consensus: old member %d refuses the key switch: %w", id, err)
		}
		if snaps[x], err = old.Member(id).rot.prepareSwitchOut(ctx, reg, p); err != nil {
			return err
		}
	}
	outs := make([]map[fhe.Handle][]byte, n2)
	errs := make([]error, t+n2)
	var wg sync.WaitGroup
	for x, id := range live[:t] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := old.Member(id)
			_, errs[x] = m.rot.switchOut(ctx, m.rot.group(p, muxes[p.oldOff+transport.MemberID(id)]), snaps[x], p)
		}()
	}
	for k, m := range nc.Members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[k], errs[t+k] = m.rot.switchIn(ctx, m.rot.group(p, muxes[k+1]), p)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	stored := make([]int, n2)
	aerrs := make([]error, n2)
	for k, m := range nc.Members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ks, err := m.snap()
			if err != nil {
				aerrs[k] = err
				return
			}
			stored[k], aerrs[k] = m.rot.adoptAll(ctx, ks, outs[k], t)
		}()
	}
	wg.Wait()
	if err := errors.Join(aerrs...); err != nil {
		return fmt.Errorf("consensus: adopting key-switched inputs: %w", err)
	}
	for k, c := range stored {
		if c != len(outs[k]) {
			return fmt.Errorf("consensus: new member %d stored %d of %d key-switched inputs", k+1, c, len(outs[k]))
		}
	}
	// The last step: every old member that is up retires.
	for _, id := range live {
		if _, err := old.Member(id).Retire(); err != nil {
			return fmt.Errorf("consensus: old member %d retiring: %w", id, err)
		}
	}
	return nil
}

// keySwitchedBounds are the noise bounds of a key-switched input for its
// refresh under the new key: reencryptedBounds for the old committee's oldT
// floodings, plus the newT new active members' floodings E′_k of the same σ
// cap in WorstBits (protocol.CrossKeySwitch floods the new members' shares
// too, so that the old members cannot read s′ from the output).
// NoiseBits is unchanged: E′ depends on no secret the refresh must hide.
func keySwitchedBounds(p *fhe.Params, sigmaBits float64, oldT, newT int) (circuit.RefreshBounds, error) {
	b, err := reencryptedBounds(p, sigmaBits, oldT)
	if err != nil {
		return b, err
	}
	if newT < 1 || newT > noise.MaxMembers {
		return b, fmt.Errorf("consensus: new committee threshold %d outside 1..%d", newT, noise.MaxMembers)
	}
	if sigmaBits <= 0 {
		sigmaBits = noise.CiphertextBits + noise.DefaultFloodingBits
	}
	b.WorstBits = math.Log2(math.Exp2(b.WorstBits) + float64(newT)*8*math.Exp2(sigmaBits))
	return b, nil
}
