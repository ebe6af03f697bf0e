package consensus

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/ledger"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
	keccakpkg "github.com/fhegate/fhegate/internal/keccak"
)

// Committee rotation (see docs/committee.md, "Rotation").
//
// The chain switches committees with FHEVerdict.setCommittee (epoch e → e+1,
// new BLS keys) and the new committee binds its FHE public key to e+1 with
// FHEVerdict.setCommitteeKey (committee_key.go); old members key-switch
// only to that recorded key. Inputs registered under epoch e are
// encrypted under the old collective key, so before the new committee
// serves, t members of the old committee and the members of the new one
// move every stored input to the new key in one joint session
// (rotation_joint.go: the cross-committee key switch,
// protocol.CrossKeySwitch, whose output keeps the input's c1), and the new
// members refresh each output under the new key and check with their peers
// that the refreshed digests agree (adoptAll). The handle of an input never
// changes: the stores map handle → (key epoch, ciphertext) and evaluation
// refuses a ciphertext whose key epoch is not the committee's
// (ErrStaleKey).

// rotation is the member's part in a committee rotation, apart from its
// entry points (SwitchToNext, AdoptFromPrevious, Retire): as an old active
// member it checks and pins the target key and key-switches its stored
// inputs in the joint session (rotation_joint.go); as a new member it takes
// part in the key switch, then refreshes each output under its key, agrees
// on its digest with its peers and stores it under its handle (adoptAll).
type rotation struct {
	self      transport.MemberID
	epoch     uint64 // the committee's key epoch
	threshold int
	timeout   time.Duration // MemberConfig.RoundTimeout
	parallel  int           // MemberConfig.Parallel: inputs adopted at once
	params    *fhe.Params
	st        *store.Store
	led       *ledger.Ledger
	log       *zap.Logger
	blame     func(protocol.ErrEquivocation) // records a member caught equivocating (Status)
	m         rotationMember                 // the member: keys, refresh and digest rounds
}

// rotationMember is what a rotation needs of its member (Member): its
// current keys, the collective refresh and the digest agreement among the
// live members, and a stored input under a key epoch.
type rotationMember interface {
	snap() (keySnap, error)
	refreshLive(ctx context.Context, ks keySnap, base string, ct *fhe.Ciphertext, b circuit.RefreshBounds) (*fhe.Ciphertext, error)
	agreeDigest(ctx context.Context, base string, rd [32]byte, log *zap.Logger) ([]transport.MemberID, error)
	currentInput(h fhe.Handle, epoch uint64) (*fhe.Ciphertext, error)
}

// rotationRuns is a member's rotationMember: its keys and stored inputs,
// and its request pipeline's refreshes and digest rounds.
type rotationRuns struct{ m *Member }

func (r rotationRuns) snap() (keySnap, error) { return r.m.snap() }

func (r rotationRuns) refreshLive(ctx context.Context, ks keySnap, base string, ct *fhe.Ciphertext, b circuit.RefreshBounds) (*fhe.Ciphertext, error) {
	return r.m.pipe.RefreshLive(ctx, ks.pipe(), base, ct, b)
}

func (r rotationRuns) agreeDigest(ctx context.Context, base string, rd [32]byte, log *zap.Logger) ([]transport.MemberID, error) {
	return r.m.pipe.AgreeDigest(ctx, base, rd, log)
}

func (r rotationRuns) currentInput(h fhe.Handle, epoch uint64) (*fhe.Ciphertext, error) {
	return currentInput(r.m.st, h, epoch)
}

// ErrStaleKey is returned for an input whose stored ciphertext is under
// another key epoch than the committee's current one (e.g. uploaded before a
// rotation and never re-encrypted): evaluating it would produce garbage.
var ErrStaleKey = errors.New("consensus: input ciphertext is under another committee key epoch (not re-encrypted)")

// prepareStore labels the store's new ciphertexts with the member's epoch
// and adopts pre-epoch (legacy) records into it.
func prepareStore(st *store.Store, epoch uint64, log *zap.Logger) error {
	st.SetEpoch(epoch)
	n, err := st.AdoptLegacy(epoch)
	if n > 0 {
		log.Info("labelled legacy ciphertexts with the committee epoch", zap.Int("count", n), zap.Uint64("epoch", epoch))
	}
	return err
}

// currentInput returns the stored ciphertext of h if it is under the key
// of `epoch`, ErrStaleKey otherwise.
func currentInput(st *store.Store, h fhe.Handle, epoch uint64) (*fhe.Ciphertext, error) {
	ct, e, err := st.GetCiphertextAt(h)
	if err != nil {
		return nil, err
	}
	if err := checkEpoch(h, e, epoch); err != nil {
		return nil, err
	}
	return ct, nil
}

// checkEpoch refuses an input stored under key epoch e for a committee at
// epoch (ErrStaleKey).
func checkEpoch(h fhe.Handle, e, epoch uint64) error {
	if e != epoch {
		return fmt.Errorf("%w: %s is under epoch %d, committee epoch %d", ErrStaleKey, h, e, epoch)
	}
	return nil
}

// CurrentHandles lists the stored inputs under this member's current key
// epoch, sorted (what a rotation re-encrypts).
func (m *Member) CurrentHandles() ([]fhe.Handle, error) { return m.rot.currentHandles() }

// currentHandles is Member.CurrentHandles.
func (r *rotation) currentHandles() ([]fhe.Handle, error) {
	all, err := r.st.Handles()
	if err != nil {
		return nil, err
	}
	var out []fhe.Handle
	for h, e := range all {
		if e == r.epoch {
			out = append(out, h)
		}
	}
	sortHandles(out)
	return out, nil
}

func sortHandles(hs []fhe.Handle) {
	sort.Slice(hs, func(i, j int) bool { return string(hs[i][:]) < string(hs[j][:]) })
}

// ErrEpochTargetPinned is returned when a member is asked to key-switch
// its inputs to another key than the one it already re-encrypted any input
// to under the same key epoch: a committee rotates to one key per epoch.
var ErrEpochTargetPinned = errors.New("consensus: this epoch's inputs are already re-encrypted to another key")

// pinEpochTarget pins, in the share ledger, the one key (digest tpd) this
// member re-encrypts to from its key epoch: the first call for the epoch
// records it, a later call with another key fails with
// ErrEpochTargetPinned (and wraps protocol.ErrAlreadyShared). The ledger
// pins the target per ciphertext as well; this pin also covers inputs not
// yet re-encrypted.
func (r *rotation) pinEpochTarget(ks keySnap, tpd [32]byte) error {
	d := keccakpkg.Sum([]byte("fhegate/rotation/epoch-target/v1"))
	_, err := r.led.Issue(protocol.KindReencrypt, d, ks.km.Epoch, fmt.Sprintf("reenc/epoch-target/%x", tpd), func() ([]byte, error) { return tpd[:], nil })
	if errors.Is(err, protocol.ErrAlreadyShared) {
		return fmt.Errorf("%w: %w", ErrEpochTargetPinned, err)
	}
	return err
}

// adoptAll refreshes every ciphertext of picks under the new key with the
// live new members, agrees on its digest and stores it under its handle
// (adoptOne); oldT is the old committee's threshold (its shares made the
// noise). Every live new member calls it with the same picks at once.
func (r *rotation) adoptAll(ctx context.Context, ks keySnap, picks map[fhe.Handle][]byte, oldT int) (int, error) {
	handles := make([]fhe.Handle, 0, len(picks))
	for h := range picks {
		handles = append(handles, h)
	}
	sortHandles(handles)
	errs := make([]error, len(handles))
	var stored atomic.Int64
	sem := make(chan struct{}, r.parallel)
	var wg sync.WaitGroup
	for i, h := range handles {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, h fhe.Handle) {
			defer wg.Done()
			defer func() { <-sem }()
			ok, err := r.adoptOne(ctx, ks, h, picks[h], oldT)
			if err != nil {
				errs[i] = fmt.Errorf("consensus: input %s: %w", h, err)
			} else if ok {
				stored.Add(1)
			}
		}(i, h)
	}
	wg.Wait()
	return int(stored.Load()), errors.Join(errs...)
}

func (r *rotation) adoptOne(ctx context.Context, ks keySnap, h fhe.Handle, b []byte, oldT int) (bool, error) {
	_, ct, err := store.Validate(b)
	if err != nil {
		return false, err
	}
	if ct.Params() != r.params {
		return false, errors.New("re-encrypted ciphertext is for another preset")
	}
	base := fmt.Sprintf("rot/%d/%x", ks.km.Epoch, h[:8])
	bounds, err := keySwitchedBounds(r.params, protocol.MaxReencryptSigmaBits, oldT, ks.key.T)
	if err != nil {
		return false, err
	}
	fresh, err := r.m.refreshLive(ctx, ks, base, ct, bounds)
	if err != nil {
		return false, fmt.Errorf("refresh under the new key: %w", err)
	}
	rd, err := fresh.Handle()
	if err != nil {
		return false, err
	}
	if _, err := r.m.agreeDigest(ctx, base, rd, r.log); err != nil {
		return false, err
	}
	fb, err := fresh.MarshalBinary()
	if err != nil {
		return false, err
	}
	return r.st.PutAt(h, fb, ks.km.Epoch)
}

// Epoch returns the member's committee epoch.
func (m *Member) Epoch() uint64 { return m.cfg.Committee.Epoch }

// reencryptedBounds are the noise bounds of a re-encrypted input
// (protocol.Reencrypt: e_ct + Σ_j (E_j + e0_j + u_j·e′ + e1_j·s′) over the
// OLD committee's t active members, at the input's level) for its refresh
// under the new key: oldT is the old committee's threshold (the adoption
// quorum) and oldSigmaBits the old committee's re-encryption σ (the new
// member does not know the old configuration: it passes
// protocol.MaxReencryptSigmaBits, the cap every re-encryption σ is under).
// WorstBits is the whole noise: oldT floodings cut at 8σ, oldT public-key
// encryptions of zero under the new key and an input noise e_ct up to the
// accepted bound. NoiseBits is what the refresh must hide beyond that: the
// re-encryption's flooding is itself the noise that hides e_ct from
// everyone who sees the switched ciphertext's phase (protocol doc of
// ReencryptSigmaBits: the refresh that follows reveals it "up to the
// refresh's own, smaller flooding"), so what is left are the oldT + 1
// honest-encryption-sized terms (e_ct of an honest input, and each share's
// encryption of zero under the new key), (oldT + 1)·B_ct with B_ct =
// 2^noise.CiphertextBits. The input is at the stored input's (top)
// level, far above the floor either bound needs.
func reencryptedBounds(p *fhe.Params, oldSigmaBits float64, oldT int) (circuit.RefreshBounds, error) {
	honest := float64(noise.CiphertextBits)
	accepted, err := circuit.AcceptedInputNoiseBits(p)
	if err != nil {
		return circuit.RefreshBounds{}, err
	}
	if oldT < 1 || oldT > noise.MaxMembers {
		return circuit.RefreshBounds{}, fmt.Errorf("consensus: old committee threshold %d outside 1..%d", oldT, noise.MaxMembers)
	}
	sigma := oldSigmaBits
	if sigma <= 0 {
		sigma = noise.CiphertextBits + noise.DefaultFloodingBits
	}
	tt := float64(oldT)
	return circuit.RefreshBounds{
		NoiseBits: math.Log2((tt + 1) * math.Exp2(honest)),
		WorstBits: math.Log2(tt*8*math.Exp2(sigma) + tt*math.Exp2(honest) + math.Exp2(accepted)),
	}, nil
}
