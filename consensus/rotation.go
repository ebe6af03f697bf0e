package consensus

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/fhe"
	keccakpkg "github.com/fhegate/fhegate/internal/keccak"
)

// Committee rotation (see docs/committee.md, "Rotation").
//
// The chain switches committees with FHEVerdict.setCommittee (epoch e → e+1,
// new BLS keys) and the new committee binds its FHE public key to e+1 with
// FHEVerdict.setCommitteeKey (committee_key.go); old members re-encrypt
// only to that recorded key. Inputs registered under epoch e are
// encrypted under the old collective key, so before the new committee
// serves, t members of the old committee re-encrypt every stored input to
// the new public key (Member.Reencrypt: collective public-key switching with
// decryption-sized noise flooding, protocol.Reencrypt), hand the results to
// the new members, and each new member takes the copy at least t old
// members agree on, refreshes it collectively under the new key (the
// switched ciphertext carries the flooding noise) and checks with its peers
// that the refreshed digests agree (Member.AdoptReencrypted). The handle of
// an input never changes: the stores map handle → (key epoch, ciphertext)
// and evaluation refuses a ciphertext whose key epoch is not the committee's
// (ErrStaleKey).

// ErrStaleKey is returned for an input whose stored ciphertext is under
// another key epoch than the committee's current one (e.g. uploaded before a
// rotation and never re-encrypted): evaluating it would produce garbage.
var ErrStaleKey = errors.New("consensus: input ciphertext is under another committee key epoch (not re-encrypted)")

// Reencrypted is one input re-encrypted by the old committee to the next
// committee's public key.
type Reencrypted struct {
	Handle     fhe.Handle // the input's handle (unchanged by rotation)
	Ciphertext []byte     // canonical bytes under the target key
}

// prepareStore labels the store's new ciphertexts with the member's epoch
// and adopts pre-epoch (legacy) records into it.
func (m *Member) prepareStore() error {
	m.st.SetEpoch(m.cfg.Committee.Epoch)
	n, err := m.st.AdoptLegacy(m.cfg.Committee.Epoch)
	if n > 0 {
		m.log.Info("labelled legacy ciphertexts with the committee epoch", zap.Int("count", n), zap.Uint64("epoch", m.cfg.Committee.Epoch))
	}
	return err
}

// currentInput returns the stored ciphertext of h if it is under the key
// of `epoch`, ErrStaleKey otherwise.
func (m *Member) currentInput(h fhe.Handle, epoch uint64) (*fhe.Ciphertext, error) {
	ct, e, err := m.st.GetCiphertextAt(h)
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

// servable returns the bytes of h for a peer's fetch: only an original
// upload (bytes hashing to h, the only thing the fetcher can check) of the
// current epoch. Re-encrypted inputs are not served: a member that missed a
// rotation's re-encryption cannot check them, and its peers answer for it.
func (m *Member) servable(h fhe.Handle) ([]byte, error) {
	b, e, err := m.st.GetAt(h)
	if err != nil {
		return nil, err
	}
	if e != m.cfg.Committee.Epoch || fhe.HandleOf(b) != h {
		return nil, fmt.Errorf("%w: %s", ErrStaleKey, h)
	}
	return b, nil
}

// CurrentHandles lists the stored inputs under this member's current key
// epoch, sorted (what a rotation re-encrypts).
func (m *Member) CurrentHandles() ([]fhe.Handle, error) {
	all, err := m.st.Handles()
	if err != nil {
		return nil, err
	}
	var out []fhe.Handle
	for h, e := range all {
		if e == m.cfg.Committee.Epoch {
			out = append(out, h)
		}
	}
	sortHandles(out)
	return out, nil
}

func sortHandles(hs []fhe.Handle) {
	sort.Slice(hs, func(i, j int) bool { return string(hs[i][:]) < string(hs[j][:]) })
}

// Reencrypt re-encrypts the stored inputs `handles` (under this member's
// current key epoch) to target, the next committee's collective public key,
// with its live peers: every live member calls it with the same arguments;
// the first t live members issue one share per input (protocol.Reencrypt,
// via the ledger, which pins the target key per input and epoch) and every
// live member computes the results. A round whose active member does not
// answer is retried once with the next t live members. A member lacking an
// input fetches it from its peers first. It returns the inputs it
// re-encrypted and the errors of the others.
//
// Re-encrypting to a key someone holds is a decryption for them, so the
// member first checks that target's digest is the one the chain recorded
// for the next epoch (reg: FHEVerdict.committeeKeyOf(epoch+1), bound there
// by a quorum of the new committee; VerifyTargetKey) and refuses otherwise
// with ErrTargetKeyNotOnChain, before pinning the target for its epoch.
func (m *Member) Reencrypt(ctx context.Context, reg chainio.CommitteeKeyRegistry, target *fhe.PublicKey, handles []fhe.Handle) ([]Reencrypted, error) {
	ks, err := m.snap()
	if err != nil {
		return nil, err
	}
	if target == nil || target.Params() != m.params {
		return nil, errors.New("consensus: re-encryption target key is for another preset")
	}
	pkb, err := target.MarshalBinary()
	if err != nil {
		return nil, err
	}
	tpd := keccakpkg.Sum(pkb)
	if tpd == ks.km.PKDigest {
		return nil, errors.New("consensus: re-encryption target is this committee's own key")
	}
	if err := chainio.VerifyTargetKey(ctx, reg, ks.km.Epoch+1, tpd); err != nil {
		return nil, err
	}
	if err := m.pinEpochTarget(ks, tpd); err != nil {
		return nil, err
	}
	out := make([]Reencrypted, len(handles))
	errs := make([]error, len(handles))
	sem := make(chan struct{}, m.cfg.Parallel)
	var wg sync.WaitGroup
	for i, h := range handles {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, h fhe.Handle) {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = m.reencryptOne(ctx, ks, target, tpd, h)
		}(i, h)
	}
	wg.Wait()
	done := out[:0]
	for i := range out {
		if errs[i] == nil {
			done = append(done, out[i])
		}
	}
	return done, errors.Join(errs...)
}

func (m *Member) reencryptOne(ctx context.Context, ks keySnap, target *fhe.PublicKey, tpd [32]byte, h fhe.Handle) (Reencrypted, error) {
	// The evaluable form (2·ct for an upload): the re-encryption is stored
	// at scale 1 and never doubled again.
	ct, err := m.evaluableInput(ctx, h, ks.km.Epoch)
	if err != nil {
		return Reencrypted{}, fmt.Errorf("consensus: re-encrypt %s: %w", h, err)
	}
	t := m.cfg.Committee.Threshold
	run := func() (*fhe.Ciphertext, error) {
		live := m.live()
		if len(live) < t {
			return nil, fmt.Errorf("%w: %d live members for a re-encryption, threshold %d", ErrNoQuorum, len(live), t)
		}
		active := live[:t]
		return protocol.Reencrypt(ctx, m.group(), ks.key, ks.plan, m.led, protocol.ReencryptRequest{
			Session:    fmt.Sprintf("reenc/%d/%x/%x/%v", ks.km.Epoch, tpd[:8], h[:8], active),
			Ciphertext: ct, Target: target, Active: active, Receivers: live})
	}
	res, err := run()
	var miss *protocol.ErrMissing
	if errors.As(err, &miss) && ctx.Err() == nil {
		m.markDown(miss.Missing)
		res, err = run()
	}
	if err != nil {
		return Reencrypted{}, fmt.Errorf("consensus: re-encrypt %s: %w", h, err)
	}
	b, err := res.MarshalBinary()
	if err != nil {
		return Reencrypted{}, err
	}
	return Reencrypted{Handle: h, Ciphertext: b}, nil
}

// ErrEpochTargetPinned is returned when a member is asked to re-encrypt
// its inputs to another key than the one it already re-encrypted any input
// to under the same key epoch: a committee rotates to one key per epoch.
var ErrEpochTargetPinned = errors.New("consensus: this epoch's inputs are already re-encrypted to another key")

// pinEpochTarget pins, in the share ledger, the one key (digest tpd) this
// member re-encrypts to from its key epoch: the first call for the epoch
// records it, a later call with another key fails with
// ErrEpochTargetPinned (and wraps protocol.ErrAlreadyShared). The ledger
// pins the target per ciphertext as well; this pin also covers inputs not
// yet re-encrypted.
func (m *Member) pinEpochTarget(ks keySnap, tpd [32]byte) error {
	d := keccakpkg.Sum([]byte("fhegate/rotation/epoch-target/v1"))
	_, err := m.led.Issue(protocol.KindReencrypt, d, ks.km.Epoch, fmt.Sprintf("reenc/epoch-target/%x", tpd), func() ([]byte, error) { return tpd[:], nil })
	if errors.Is(err, protocol.ErrAlreadyShared) {
		return fmt.Errorf("%w: %w", ErrEpochTargetPinned, err)
	}
	return err
}

// AdoptReencrypted installs a rotation's re-encrypted inputs on a member of
// the new committee. copies holds what each old member delivered; an input
// is taken only when at least quorum (the old committee's threshold) old
// members delivered byte-identical ciphertexts. Every live new member calls
// it with its copies at the same time: for each input they run a collective
// refresh under the new key (removing the re-encryption's flooding noise and
// restoring the top level), agree on the refreshed ciphertext's digest (a
// member in the minority fails with ErrDigestMismatch), and store it under
// the input's handle with this member's key epoch. It returns the number of
// inputs stored.
func (m *Member) AdoptReencrypted(ctx context.Context, copies [][]Reencrypted, quorum int) (int, error) {
	ks, err := m.snap()
	if err != nil {
		return 0, err
	}
	if quorum < 1 {
		return 0, errors.New("consensus: adopting re-encrypted inputs needs a quorum ≥ 1")
	}
	votes := map[fhe.Handle]map[[32]byte]*copyVote{}
	for _, from := range copies {
		seen := map[fhe.Handle]bool{}
		for _, r := range from {
			if seen[r.Handle] {
				continue // one vote per old member and input
			}
			seen[r.Handle] = true
			if votes[r.Handle] == nil {
				votes[r.Handle] = map[[32]byte]*copyVote{}
			}
			d := fhe.HandleOf(r.Ciphertext)
			if v := votes[r.Handle][d]; v != nil {
				v.n++
			} else {
				votes[r.Handle][d] = &copyVote{b: r.Ciphertext, n: 1}
			}
		}
	}
	picks := map[fhe.Handle][]byte{}
	var errs []error
	for h, v := range votes {
		pick, err := pickCopy(v, quorum)
		if err != nil {
			errs = append(errs, fmt.Errorf("consensus: input %s: %w", h, err))
			continue
		}
		picks[h] = pick
	}
	n, err := m.adoptAll(ctx, ks, picks, quorum)
	return n, errors.Join(append(errs, err)...)
}

// adoptAll refreshes every ciphertext of picks under the new key with the
// live new members, agrees on its digest and stores it under its handle
// (adoptOne); oldT is the old committee's threshold (its shares made the
// noise). Every live new member calls it with the same picks at once.
func (m *Member) adoptAll(ctx context.Context, ks keySnap, picks map[fhe.Handle][]byte, oldT int) (int, error) {
	handles := make([]fhe.Handle, 0, len(picks))
	for h := range picks {
		handles = append(handles, h)
	}
	sortHandles(handles)
	errs := make([]error, len(handles))
	var stored atomic.Int64
	sem := make(chan struct{}, m.cfg.Parallel)
	var wg sync.WaitGroup
	for i, h := range handles {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, h fhe.Handle) {
			defer wg.Done()
			defer func() { <-sem }()
			ok, err := m.adoptOne(ctx, ks, h, picks[h], oldT)
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

// pickCopy returns the re-encryption delivered byte-identically by the most
// old members, if they are at least quorum and no other copy ties.
func pickCopy(votes map[[32]byte]*copyVote, quorum int) ([]byte, error) {
	var pick []byte
	best, tie := 0, false
	for _, v := range votes {
		switch {
		case v.n > best:
			pick, best, tie = v.b, v.n, false
		case v.n == best:
			tie = true
		}
	}
	if best < quorum || tie {
		return nil, fmt.Errorf("no %d old members agree on its re-encryption (best %d, tie %v)", quorum, best, tie)
	}
	return pick, nil
}

// copyVote is one distinct re-encrypted ciphertext and how many old members
// delivered it.
type copyVote struct {
	b []byte
	n int
}

func (m *Member) adoptOne(ctx context.Context, ks keySnap, h fhe.Handle, b []byte, oldT int) (bool, error) {
	_, ct, err := store.Validate(b)
	if err != nil {
		return false, err
	}
	if ct.Params() != m.params {
		return false, errors.New("re-encrypted ciphertext is for another preset")
	}
	base := fmt.Sprintf("rot/%d/%x", ks.km.Epoch, h[:8])
	bounds, err := reencryptedBounds(m.params, protocol.MaxReencryptSigmaBits, oldT)
	if err != nil {
		return false, err
	}
	fresh, err := m.refreshLive(ctx, ks, base, ct, bounds)
	if err != nil {
		return false, fmt.Errorf("refresh under the new key: %w", err)
	}
	rd, err := fresh.Handle()
	if err != nil {
		return false, err
	}
	if _, err := m.agreeDigest(ctx, base, rd, m.log); err != nil {
		return false, err
	}
	fb, err := fresh.MarshalBinary()
	if err != nil {
		return false, err
	}
	return m.st.PutAt(h, fb, ks.km.Epoch)
}

// reencryptedMagic starts a re-encryption bundle (MarshalReencrypted).
var reencryptedMagic = []byte("FHEGRE1\n")

// MarshalReencrypted encodes an old member's re-encryption results for the
// new committee (`fhegate committee rotate reencrypt` writes it, `rotate
// adopt` reads it): magic ‖ source epoch (8) ‖ keccak of the target public
// key (32) ‖ count (4) ‖ per input: handle (32) ‖ length (4) ‖ canonical
// ciphertext, integers big-endian.
func MarshalReencrypted(fromEpoch uint64, target [32]byte, rs []Reencrypted) []byte {
	b := append([]byte(nil), reencryptedMagic...)
	b = binary.BigEndian.AppendUint64(b, fromEpoch)
	b = append(b, target[:]...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(rs)))
	for _, r := range rs {
		b = append(b, r.Handle[:]...)
		b = binary.BigEndian.AppendUint32(b, uint32(len(r.Ciphertext)))
		b = append(b, r.Ciphertext...)
	}
	return b
}

// UnmarshalReencrypted decodes a bundle of MarshalReencrypted.
func UnmarshalReencrypted(b []byte) (fromEpoch uint64, target [32]byte, rs []Reencrypted, err error) {
	bad := errors.New("consensus: malformed re-encryption bundle")
	hl := len(reencryptedMagic) + 8 + 32 + 4
	if len(b) < hl || !bytes.Equal(b[:len(reencryptedMagic)], reencryptedMagic) {
		return 0, target, nil, bad
	}
	o := len(reencryptedMagic)
	fromEpoch = binary.BigEndian.Uint64(b[o:])
	copy(target[:], b[o+8:o+40])
	n := int(binary.BigEndian.Uint32(b[o+40:]))
	o = hl
	for i := 0; i < n; i++ {
		if len(b)-o < 36 {
			return 0, target, nil, bad
		}
		var r Reencrypted
		copy(r.Handle[:], b[o:o+32])
		l := int(binary.BigEndian.Uint32(b[o+32:]))
		o += 36
		if l > store.MaxCiphertext || len(b)-o < l {
			return 0, target, nil, bad
		}
		r.Ciphertext = append([]byte(nil), b[o:o+l]...)
		o += l
		rs = append(rs, r)
	}
	if o != len(b) {
		return 0, target, nil, bad
	}
	return fromEpoch, target, rs, nil
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
// 2^protocol.CiphertextNoiseBits. The input is at the stored input's (top)
// level, far above the floor either bound needs.
func reencryptedBounds(p *fhe.Params, oldSigmaBits float64, oldT int) (circuit.RefreshBounds, error) {
	honest := float64(protocol.CiphertextNoiseBits)
	accepted, err := circuit.AcceptedInputNoiseBits(p)
	if err != nil {
		return circuit.RefreshBounds{}, err
	}
	if oldT < 1 || oldT > protocol.MaxMembers {
		return circuit.RefreshBounds{}, fmt.Errorf("consensus: old committee threshold %d outside 1..%d", oldT, protocol.MaxMembers)
	}
	sigma := oldSigmaBits
	if sigma <= 0 {
		sigma = protocol.CiphertextNoiseBits + protocol.DefaultFloodingBits
	}
	tt := float64(oldT)
	return circuit.RefreshBounds{
		NoiseBits: math.Log2((tt + 1) * math.Exp2(honest)),
		WorstBits: math.Log2(tt*8*math.Exp2(sigma) + tt*math.Exp2(honest) + math.Exp2(accepted)),
	}, nil
}
