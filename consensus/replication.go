package consensus

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// uploads is the member's input path: it verifies an upload's proofs of
// plaintext knowledge, stores its ciphertexts and attests them with the
// committee, as the member that received it (upload) or as a peer asked to
// store a replica (onStorePut), and it fetches from its peers an input it
// lacks (fetch) or serves one to them (onFetch).
type uploads struct {
	self       transport.MemberID
	epoch      uint64 // the committee's key epoch
	params     *fhe.Params
	key        *bls.SecretKey
	chain      func() *big.Int                       // Member.chain: set before Run
	keys       func() (*protocol.KeyMaterial, error) // Member.Keys: the current public key
	st         *store.Store
	mux        *transport.Mux
	members    []transport.MemberID
	timeout    time.Duration // MemberConfig.RoundTimeout
	log        *zap.Logger
	wg         *sync.WaitGroup // the member's: Close waits for the handlers
	inStorePut func()          // TestingKnobs.InStorePut
	peers      *peerRounds
	roots      *inputRoots
	putSem     chan struct{}             // StorePut handlers in flight (MaxConcurrentStorePuts)
	zkKey      atomic.Pointer[zkpok.Key] // input-proof key of the current public key (proofKey)
}

// batchDigest is the message members sign for an upload of items by
// owner under this member's chain, epoch and preset.
func (up *uploads) batchDigest(owner [20]byte, items []bls.InputItem) [32]byte {
	return bls.InputBatchDigest(up.chain(), up.epoch, owner, uint8(up.params.Preset.ID), bls.InputBatchRoot(items))
}

// earlyBytesPerPeer is what a member lets each peer have buffered in its mux
// before anyone waits for it: a peer can be at most one protocol round
// ahead, so its early messages are its shares of the current and the next
// round, the largest being a BGVN14 relinearisation-key share (≈ 16 MB).
const earlyBytesPerPeer = 32 << 20

// earlyBytesBudget is the mux's early-message byte budget for a committee of
// n members: transport.MaxBufferedBytes, raised for large committees so
// that honest DKG rounds are never dropped.
func earlyBytesBudget(n int) int64 {
	return max(int64(transport.MaxBufferedBytes), int64(n-1)*earlyBytesPerPeer)
}

func (up *uploads) onStorePut(msg transport.Message) {
	up.peers.answer(msg, up.putSem, "StorePut", "the uploader", transport.TypeStoreAck, func() []byte {
		if k := up.inStorePut; k != nil {
			k()
		}
		owner, ups, err := parseStorePut(msg.Payload)
		if err != nil {
			return append([]byte{0}, err.Error()...)
		}
		items, err := up.accept(owner, ups)
		if err != nil {
			return append([]byte{0}, err.Error()...)
		}
		d := up.batchDigest(owner, items)
		up.roots.signed.add(d) // before the ack: a root round may follow it at once
		return append([]byte{1}, up.key.Sign(d[:])...)
	})
}

func (up *uploads) onFetch(msg transport.Message) {
	up.wg.Add(1)
	go func() {
		defer up.wg.Done()
		var reply []byte
		if len(msg.Payload) == 32 {
			if b, err := up.servable(fhe.Handle(msg.Payload)); err == nil {
				reply = b
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), up.timeout)
		defer cancel()
		_ = up.mux.Send(ctx, msg.From, transport.Message{Type: transport.TypeFetchReply, Session: msg.Session, Payload: reply})
	}()
}

// fetch asks the other members for a ciphertext this member lacks (it was
// down during the upload) and stores the first copy whose handle matches.
// It asks every member, not only those it counts as live: a member that
// just restarted may have marked the holders down (its first rounds timed
// out while they still counted it down), and one answer is enough.
func (up *uploads) fetch(ctx context.Context, h fhe.Handle) (*fhe.Ciphertext, error) {
	session := fmt.Sprintf("fetch/%x/%x", h[:], randTag())
	rctx, cancel := context.WithTimeout(ctx, up.timeout)
	defer cancel()
	defer up.mux.Forget(session)
	// The first copy whose handle matches wins; an empty reply (the peer
	// lacks it too, e.g. it was down as well) or a wrong one does not end
	// the wait. The request goes out in the background: Broadcast returns
	// only when every send has, and a send to a member whose host is gone
	// can hang until rctx ends while the others have answered.
	go func() {
		_ = up.mux.Broadcast(rctx, up.members, transport.Message{Type: transport.TypeFetch, Session: session, Payload: h[:]})
	}()
	replies := make(chan []byte, len(up.members))
	for _, id := range up.members {
		if id == up.self {
			continue
		}
		go func() {
			msg, err := up.mux.Recv(rctx, transport.Key{Session: session, Type: transport.TypeFetchReply, From: id})
			if err != nil {
				msg.Payload = nil
			}
			replies <- msg.Payload
		}()
	}
	for range len(up.members) - 1 {
		b := <-replies
		if len(b) == 0 || fhe.HandleOf(b) != h {
			continue
		}
		if _, ct, err := up.st.Put(b); err == nil {
			return ct, nil
		}
	}
	return nil, fmt.Errorf("%w: ciphertext %s not held by any reachable member", store.ErrNotFound, h)
}

// servable returns the bytes of h for a peer's fetch: only an original
// upload (bytes hashing to h, the only thing the fetcher can check) of the
// current epoch. Re-encrypted inputs are not served: a member that missed a
// rotation's re-encryption cannot check them, and its peers answer for it.
func (up *uploads) servable(h fhe.Handle) ([]byte, error) {
	b, e, err := up.st.GetAt(h)
	if err != nil {
		return nil, err
	}
	if e != up.epoch || fhe.HandleOf(b) != h {
		return nil, fmt.Errorf("%w: %s", ErrStaleKey, h)
	}
	return b, nil
}

// ErrBadProof is wrapped by every upload refused for its proof of
// plaintext knowledge (missing, malformed or not verifying): the client API
// answers 400.
var ErrBadProof = errors.New("consensus: input proof of plaintext knowledge refused")

// ProofContext is what an input proof for owner must be bound to on this
// member: the chain id, the committee's key epoch and the owner (the proof
// also binds the public-key digest and the ciphertext handle).
func (m *Member) ProofContext(owner [20]byte) zkpok.Context { return m.uploads.proofContext(owner) }

// ProofKey returns the committee public key prepared for input proofs at
// the top level (cached until the key material changes); its Verify takes
// every level from zkpok.UploadLevel up, its AtLevel the keys of the
// other levels.
func (m *Member) ProofKey() (*zkpok.Key, error) { return m.uploads.proofKey() }

// proofContext is Member.ProofContext.
func (up *uploads) proofContext(owner [20]byte) zkpok.Context {
	return zkpok.Context{ChainID: up.chain(), Epoch: up.epoch, Owner: owner}
}

// proofKey is Member.ProofKey; the key is cached in zkKey.
func (up *uploads) proofKey() (*zkpok.Key, error) {
	km, err := up.keys()
	if err != nil {
		return nil, err
	}
	if k := up.zkKey.Load(); k != nil && k.PK == km.Public {
		return k, nil
	}
	k, err := zkpok.NewKey(km.Public)
	if err != nil {
		return nil, err
	}
	up.zkKey.Store(k)
	return k, nil
}

// EncryptInput encrypts values under the committee key for owner and proves
// plaintext knowledge for this member's chain and epoch: the canonical
// ciphertext and the proof, as a client uploads them (tests, benchmarks),
// at the upload level (zkpok.UploadLevel; the top level on a preset that
// cannot pack).
func (m *Member) EncryptInput(values []int64, owner [20]byte) (ct, proof []byte, err error) {
	level, err := zkpok.UploadLevel(m.Params())
	if err != nil {
		level = m.Params().MaxLevel()
	}
	return m.EncryptInputAt(values, owner, level)
}

// EncryptInputAt is EncryptInput at level (from zkpok.UploadLevel to the
// top): for inputs a circuit needs above the upload level, such as the
// writer ciphertexts of a CRDT set, whose membership polynomial the
// committee evaluates above its working level (circuit.NewCRDT).
func (m *Member) EncryptInputAt(values []int64, owner [20]byte, level int) (ct, proof []byte, err error) {
	k, err := m.ProofKey()
	if err != nil {
		return nil, nil, err
	}
	if k, err = k.AtLevel(level); err != nil {
		return nil, nil, err
	}
	c, proof, err := k.EncryptInts(values, m.ProofContext(owner))
	if err != nil {
		return nil, nil, err
	}
	if ct, err = c.MarshalBinary(); err != nil {
		return nil, nil, err
	}
	return ct, proof, nil
}

// accept validates every ciphertext of an upload, verifies each proof
// of plaintext knowledge for owner and only then stores them all; it
// returns the upload's items in order. The "anyone decrypts anyone's data" attack: without the
// proof anyone could upload a copy (or a re-randomisation) of a victim's
// ciphertext as their own and have a policy reveal it. An upload is refused
// whole: over MaxUploadItems or MaxUploadBytes, a handle twice, a ctype
// other than 1 (precompiles.CTypeCiphertext), or any proof failing.
func (up *uploads) accept(owner [20]byte, ups []api.InputUpload) ([]bls.InputItem, error) {
	if len(ups) == 0 || len(ups) > api.MaxUploadItems {
		return nil, fmt.Errorf("consensus: upload of %d ciphertexts outside [1,%d]", len(ups), api.MaxUploadItems)
	}
	total := 0
	for _, u := range ups {
		total += len(u.Ciphertext) + len(u.Proof)
	}
	if total > api.MaxUploadBytes {
		return nil, fmt.Errorf("consensus: upload of %d bytes over the limit of %d", total, api.MaxUploadBytes)
	}
	items := make([]bls.InputItem, len(ups))
	for i, u := range ups {
		h, err := up.verify(u, owner)
		if err != nil {
			return nil, fmt.Errorf("ciphertext %d: %w", i, err)
		}
		for j := range i {
			if items[j].Handle == h {
				return nil, fmt.Errorf("consensus: ciphertext %d repeats ciphertext %d (handle %s)", i, j, h)
			}
		}
		items[i] = bls.InputItem{Handle: h, CType: u.CType, ProofDigest: zkpok.Digest(u.Proof)}
	}
	for _, u := range ups {
		if _, _, err := up.st.Put(u.Ciphertext); err != nil {
			return nil, err
		}
	}
	return items, nil
}

// ctypeCiphertext is the only ctype FHEInput accepts today
// (precompiles.CTypeCiphertext: a canonical fhe ciphertext).
const ctypeCiphertext = 1

// verify validates one canonical ciphertext of the committee's preset
// and verifies its proof of plaintext knowledge for owner.
func (up *uploads) verify(u api.InputUpload, owner [20]byte) (fhe.Handle, error) {
	h, c, err := store.Validate(u.Ciphertext)
	if err != nil {
		return h, err
	}
	if u.CType != ctypeCiphertext {
		return h, fmt.Errorf("consensus: ctype %d not accepted (FHEInput accepts %d, a canonical ciphertext)", u.CType, ctypeCiphertext)
	}
	if c.Params() != up.params {
		return h, fmt.Errorf("consensus: ciphertext is %s, committee uses %s", c.Params().Preset.Name, up.params.Preset.Name)
	}
	if len(u.Proof) == 0 {
		return h, fmt.Errorf("%w: missing proof (POST /v1/inputs needs \"proof\": the hex of a zkpok proof bound to owner, chain, epoch and ciphertext)", ErrBadProof)
	}
	k, err := up.proofKey()
	if err != nil {
		return h, err
	}
	if err := k.Verify(c, h, up.proofContext(owner), u.Proof); err != nil {
		return h, fmt.Errorf("%w: %v", ErrBadProof, err)
	}
	return h, nil
}

// Upload is UploadBatch of one ciphertext with its proof.
func (m *Member) Upload(ctx context.Context, ct, proof []byte, owner [20]byte, ctype uint8) (*api.InputAttestation, error) {
	return m.UploadBatch(ctx, owner, []api.InputUpload{{Ciphertext: ct, Proof: proof, CType: ctype}})
}

// UploadBatch verifies the proof of plaintext knowledge of every canonical
// ciphertext of one upload for owner, stores them, replicates them (with
// the proofs: every member verifies them all before it stores or signs) to
// every live member and returns the quorum attestation of the set (≥ t BLS
// signatures over bls.InputBatchDigest), which FHEInput.registerBatch checks
// with one pairing. A missing or invalid proof is an error wrapping
// ErrBadProof; the upload is refused whole.
func (m *Member) UploadBatch(ctx context.Context, owner [20]byte, ups []api.InputUpload) (*api.InputAttestation, error) {
	return m.uploads.upload(ctx, owner, ups, false)
}

// UploadBatchRooted is UploadBatch that also places the upload in an input
// root (roots.go): once the upload is attested, its digest joins the
// open root batch of this member (which waits for the rooted uploads in
// progress here, at most as long as its first took, ≤ RootWindow), the committee
// signs their Merkle root and the attestation's Root carries the upload's
// index, path and the root's aggregate signature. If the root round fails
// (no quorum, timeout) or ctx ends while it runs, the upload is still
// answered, with its own attestation and Root nil.
func (m *Member) UploadBatchRooted(ctx context.Context, owner [20]byte, ups []api.InputUpload) (*api.InputAttestation, error) {
	return m.uploads.upload(ctx, owner, ups, true)
}

// upload is UploadBatch, and UploadBatchRooted when rooted.
func (up *uploads) upload(ctx context.Context, owner [20]byte, ups []api.InputUpload, rooted bool) (att *api.InputAttestation, err error) {
	var ticket rootTicket
	if rooted {
		// counted until it joins the open root batch (inputRoots.await) or
		// fails: the open batch waits for it (up to its hold)
		ticket = up.roots.batch.begin()
		defer func() {
			if err != nil {
				up.roots.batch.abandon()
			}
		}()
	}
	items, err := up.accept(owner, ups)
	if err != nil {
		return nil, err
	}
	d := up.batchDigest(owner, items)
	up.roots.signed.add(d)
	sigs := map[transport.MemberID][]byte{up.self: up.key.Sign(d[:])}
	session := fmt.Sprintf("put/%x/%x/%x", d[:], owner[:], randTag())
	up.peers.collect(ctx, transport.Message{Type: transport.TypeStorePut, Session: session, Payload: storePut(owner, ups)},
		transport.TypeStoreAck, d, sigs, "store replica")
	att = &api.InputAttestation{Owner: owner, Preset: uint8(up.params.Preset.ID), Epoch: up.epoch, Items: items, Handle: items[0].Handle}
	if att.Signature, att.Signers, err = up.peers.aggregate(sigs); err != nil {
		return nil, err
	}
	if rooted {
		// await uncounts the upload as it joins a batch (or the member
		// is closing); either way the upload is answered
		var rerr error
		if att.Root, rerr = up.roots.await(ctx, ticket, d); rerr != nil {
			up.log.Warn("no input root for this upload: answered with its own attestation only", zap.Binary("digest", d[:]), zap.Error(rerr))
		}
	}
	return att, nil
}

func randTag() []byte {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return b[:]
}
