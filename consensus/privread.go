package consensus

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/ledger"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/internal/keccak"
)

// Private reads: the holder of a handle (anyone FHEInput's ACL allows)
// reads its plaintext without it becoming public. The requester sends each
// of t members a PrivateReadRequest, signed EIP-712 over the handle, the
// digest of its own FHE public key, a nonce and a deadline; each member
// checks the deadline and the signature (VerifyPrivateRead: the API meters
// only a signer whose signature recovered), then the nonce and the key cap,
// and only then FHEInput.isAllowed on chain, and answers with its
// private-read share (protocol.GenPrivateReadShare): a public-key switch
// share of the ciphertext the committee evaluates for the handle (2·ct for
// an upload, fhe.Ciphertext.Evaluable: one handle, one value) towards the
// requester's key, flooded like a decryption share.
// The requester combines t shares (protocol.CombinePrivateRead) and
// decrypts with its secret key; no member, and no one without that key,
// learns the plaintext. See docs/committee.md, "Private reads".

// Private-read limits.
const (
	// MaxPrivateReadKeys bounds the distinct requester keys a member ever
	// shares one handle towards (per key epoch). Each key gets one share,
	// c1·tsk_j + E with fresh flooding E; k shares of the same c1 let their
	// holders average the flooding down by √k, so the cap costs
	// log2 √4 = 1 bit of the flooding margin (docs/committee.md).
	MaxPrivateReadKeys = 4
	// MaxPrivateReadValidity bounds a request's deadline: a signature
	// cannot authorise reads further ahead than this.
	MaxPrivateReadValidity = 24 * time.Hour
	// privateReadSession names every private-read ledger entry, so a
	// repeated (handle, key) gets the stored share back.
	privateReadSession = "private-read"
)

// Private-read errors; the API maps them to status codes.
var (
	ErrPrivateReadUnauthorised = errors.New("consensus: private read: signer not allowed on the handle by FHEInput's ACL")
	ErrPrivateReadReplay       = errors.New("consensus: private read: nonce already used by this signer")
	ErrPrivateReadExpired      = errors.New("consensus: private read: deadline passed")
	ErrPrivateReadKeyCap       = fmt.Errorf("consensus: private read: handle already read towards %d keys (MaxPrivateReadKeys)", MaxPrivateReadKeys)
	ErrNoACL                   = errors.New("consensus: private read: this member has no chain ACL to check (serve with --rpc)")
)

// ACL is read access to FHEInput's access-control list: whether account
// may use handle (FHEInput.isAllowed at the latest accepted block).
type ACL interface {
	IsAllowed(ctx context.Context, handle [32]byte, account [20]byte) (bool, error)
}

// privateReads is the member's private-read job: it verifies a request
// (verify), checks its nonce, key cap and ACL and answers with this
// member's share (read). It holds the ACL it checks and the lock that
// makes the nonce and key-cap checks atomic with their record.
type privateReads struct {
	self      transport.MemberID
	members   int // committee size (PrivateReadResponse.Members)
	threshold int
	params    *fhe.Params
	st        *store.Store
	led       *ledger.Ledger
	log       *zap.Logger
	chain     func() *big.Int         // Member.chain: set before Run
	snap      func() (keySnap, error) // Member.snap: the current keys

	mu  sync.Mutex
	acl ACL
	now func() time.Time // tests
	// inflight holds the nonce records of the reads being served, so that
	// a request sent twice at once does the work once.
	inflight map[string]bool
}

// SetACL sets the chain ACL that authorises private reads (the chain
// adapter's FHEInput.isAllowed, or a MemACL). Without one every private
// read is refused.
func (m *Member) SetACL(acl ACL) {
	m.preads.mu.Lock()
	m.preads.acl = acl
	m.preads.mu.Unlock()
}

// PrivateReadSeed seeds the sanitisation of a private read of handle
// towards the key whose canonical bytes hash to target, under key epoch
// epoch: keccak256("fhegate/private-read/seed/v1" ‖ handle ‖ target ‖ epoch).
func PrivateReadSeed(handle, target [32]byte, epoch uint64) [32]byte {
	return keccak.Sum([]byte("fhegate/private-read/seed/v1"), handle[:], target[:], binary.BigEndian.AppendUint64(nil, epoch))
}

func hex0x(b []byte) string { return "0x" + hex.EncodeToString(b) }

// Meta-record prefixes of private reads.
const (
	preadNoncePrefix = "pread/nonce/" // + signer hex + "/" + nonce: a used (signer, nonce)
	preadKeyPrefix   = "pread/key/"   // + epoch + "/" + handle hex + "/" + key digest hex: a key the handle was shared towards
)

// VerifiedPrivateRead is a private-read request whose deadline is in range
// and whose EIP-712 signature recovers the signer it names
// (Member.VerifyPrivateRead). It holds its own copy of the request.
type VerifiedPrivateRead struct {
	r api.PrivateRead
}

// Signer is the request's signer, recovered from its signature.
func (v *VerifiedPrivateRead) Signer() [20]byte { return v.r.Signer }

// VerifyPrivateRead checks what a request costs nothing but its own bytes
// to check: its deadline (not passed, at most MaxPrivateReadValidity
// ahead) and its signature (one ecrecover, which must give the signer the
// request names). The API server calls it before it meters the signer's
// quota, so a request with a junk signature naming someone else costs that
// account nothing; PrivateRead takes only what it returns.
func (m *Member) VerifyPrivateRead(r *api.PrivateRead) (*VerifiedPrivateRead, error) {
	return m.preads.verify(r)
}

// verify is Member.VerifyPrivateRead.
func (pr *privateReads) verify(r *api.PrivateRead) (*VerifiedPrivateRead, error) {
	if r == nil {
		return nil, errors.New("consensus: private read: no request")
	}
	pr.mu.Lock()
	now := pr.now()
	pr.mu.Unlock()
	unix := uint64(now.Unix())
	if r.Deadline < unix {
		return nil, fmt.Errorf("%w (%d < now %d)", ErrPrivateReadExpired, r.Deadline, unix)
	}
	if r.Deadline > unix+uint64(MaxPrivateReadValidity/time.Second) {
		return nil, fmt.Errorf("consensus: private read: deadline more than %s ahead", MaxPrivateReadValidity)
	}
	signer, err := r.RecoverSigner(pr.chain())
	if err != nil {
		return nil, err
	}
	if signer != r.Signer {
		return nil, fmt.Errorf("%w: recovered %x, request names %x", api.ErrPrivateReadBadSignature, signer, r.Signer)
	}
	v := &VerifiedPrivateRead{r: *r}
	v.r.PublicKey = append([]byte(nil), r.PublicKey...)
	return v, nil
}

// PrivateRead serves one verified private read, cheapest refusals first:
// the requester key's preset; then, without a chain call, a store read or
// any FHE work, that the (signer, nonce) is fresh and that the handle has
// room for the requester key (at most MaxPrivateReadKeys keys per handle);
// then the ACL (FHEInput.isAllowed(handle, signer)). It records the nonce
// and the requester key and returns this member's share, towards pk, of the
// ciphertext the committee evaluates for the handle — 2·ct for an upload
// (fhe.Ciphertext.Evaluable), so a private read returns the value every
// policy computes on, even for an upload whose ct alone decrypts to
// something else — at the decryption level. One share per (ciphertext,
// key, key epoch) ever: a repeated (handle, key), under a fresh nonce, gets
// the identical stored share back. The deadline is checked again: a
// verified request may have waited.
func (m *Member) PrivateRead(ctx context.Context, v *VerifiedPrivateRead, pk *fhe.PublicKey) (*api.PrivateReadResponse, error) {
	return m.preads.read(ctx, v, pk)
}

// read is Member.PrivateRead.
func (pr *privateReads) read(ctx context.Context, v *VerifiedPrivateRead, pk *fhe.PublicKey) (*api.PrivateReadResponse, error) {
	if v == nil {
		return nil, errors.New("consensus: private read: no verified request")
	}
	r := &v.r
	signer := r.Signer
	pr.mu.Lock()
	acl, now := pr.acl, pr.now()
	pr.mu.Unlock()
	if r.Deadline < uint64(now.Unix()) {
		return nil, fmt.Errorf("%w (%d < now %d)", ErrPrivateReadExpired, r.Deadline, now.Unix())
	}
	ks, err := pr.snap()
	if err != nil {
		return nil, err
	}
	if pk == nil || pk.Params() != pr.params {
		return nil, errors.New("consensus: private read: requester key of another preset")
	}
	target := keccak.Sum(r.PublicKey)
	nonceKey := fmt.Sprintf("%s%x/%d", preadNoncePrefix, signer, r.Nonce)
	handlePrefix := fmt.Sprintf("%s%d/%x/", preadKeyPrefix, ks.key.Epoch, r.Handle)
	keyKey := fmt.Sprintf("%s%x", handlePrefix, target)

	// Nonce and key cap, before anything that costs: a replayed request is
	// refused here. The nonce is held in flight until the read ends.
	pr.mu.Lock()
	if err := pr.check(nonceKey, handlePrefix, keyKey); err != nil {
		pr.mu.Unlock()
		return nil, err
	}
	pr.inflight[nonceKey] = true
	pr.mu.Unlock()
	defer func() {
		pr.mu.Lock()
		delete(pr.inflight, nonceKey)
		pr.mu.Unlock()
	}()

	if acl == nil {
		return nil, ErrNoACL
	}
	ok, err := acl.IsAllowed(ctx, r.Handle, signer)
	if err != nil {
		return nil, fmt.Errorf("consensus: private read: FHEInput.isAllowed: %w", err)
	}
	if !ok {
		return nil, ErrPrivateReadUnauthorised
	}
	ct, epoch, err := pr.st.GetCiphertextAt(fhe.Handle(r.Handle))
	if err != nil {
		return nil, err
	}
	if epoch != 0 && epoch != ks.key.Epoch {
		return nil, fmt.Errorf("consensus: private read: ciphertext under key epoch %d, this member's key is epoch %d", epoch, ks.key.Epoch)
	}
	// The value of a handle is what the committee evaluates: an upload's
	// proof bounds only 2·ct (fhe/zkpok, "Soundness"), and 2·ct at scale 1
	// is what every policy reads (evaluableInput, fhe.SlotPacker). Reading
	// back ct itself would let an upload accepted under the relaxed proof
	// read back as one value and evaluate as another.
	if ct, err = ct.Evaluable(); err != nil {
		return nil, err
	}
	prepared, err := protocol.PrepareForDecryption(ks.ev, ks.plan, ct)
	if err != nil {
		return nil, err
	}
	// Sanitise, as before every decryption, so that no one chose the c1
	// the share multiplies by the key: the stored c1 may be a user's
	// choice (an input), so add an encryption of zero under the collective
	// key whose randomness comes from PrivateReadSeed. Every member derives
	// the same seed from public data the requester cannot steer except by
	// grinding keys or uploads (docs/committee.md, "Private reads").
	if prepared, err = protocol.Sanitise(pr.params, ks.km.Public, prepared, PrivateReadSeed(r.Handle, target, ks.key.Epoch)); err != nil {
		return nil, err
	}
	ctBytes, err := prepared.MarshalBinary()
	if err != nil {
		return nil, err
	}

	pr.mu.Lock()
	defer pr.mu.Unlock()
	// Again, atomically with the record: another nonce of the same handle
	// may have taken the last key slot meanwhile. (The nonce leaves
	// inflight now; the lock is held until it is recorded.)
	delete(pr.inflight, nonceKey)
	if err := pr.check(nonceKey, handlePrefix, keyKey); err != nil {
		return nil, err
	}
	// The nonce and the key are recorded (fsynced) before the share exists.
	if err := pr.st.PutMetaBatch([]string{nonceKey, keyKey}, [][]byte{{1}, {1}}); err != nil {
		return nil, err
	}
	share, err := pr.led.Issue(protocol.KindPrivateRead, protocol.PrivateReadShareDigest(prepared, target), ks.key.Epoch, privateReadSession, func() ([]byte, error) {
		return protocol.GenPrivateReadShare(ks.key, ks.plan, prepared, pk)
	})
	if err != nil {
		return nil, err
	}
	pr.log.Info("private read", zap.String("handle", hex0x(r.Handle[:8])), zap.String("signer", hex0x(signer[:])), zap.Uint64("nonce", r.Nonce))
	return &api.PrivateReadResponse{Member: uint32(pr.self), Members: pr.members, Threshold: pr.threshold, Epoch: ks.key.Epoch,
		Ciphertext: hex0x(ctBytes), Share: hex0x(share)}, nil
}

// errInFlight: the same (signer, nonce) is being served right now.
var errInFlight = fmt.Errorf("%w (a read under this nonce is in progress)", ErrPrivateReadReplay)

// check refuses a used or in-flight nonce and a requester key the handle
// has no room for (called with pr.mu held; meta reads only).
func (pr *privateReads) check(nonceKey, handlePrefix, keyKey string) error {
	if pr.inflight[nonceKey] {
		return errInFlight
	}
	if _, err := pr.st.GetMeta(nonceKey); err == nil {
		return ErrPrivateReadReplay
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if _, err := pr.st.GetMeta(keyKey); errors.Is(err, store.ErrNotFound) {
		if len(pr.st.MetaKeys(handlePrefix)) >= MaxPrivateReadKeys {
			return ErrPrivateReadKeyCap
		}
	} else if err != nil {
		return err
	}
	return nil
}
