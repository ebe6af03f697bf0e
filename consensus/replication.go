package consensus

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// inputBatchDigest is the message members sign for an upload of items by
// owner under this member's chain, epoch and preset.
func (m *Member) inputBatchDigest(owner [20]byte, items []bls.InputItem) [32]byte {
	return bls.InputBatchDigest(m.chain(), m.cfg.Committee.Epoch, owner, uint8(m.params.Preset.ID), bls.InputBatchRoot(items))
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

func (m *Member) onStorePut(msg transport.Message) {
	m.peers.answer(msg, m.putSem, "StorePut", "the uploader", transport.TypeStoreAck, func() []byte {
		if k := m.cfg.Knobs.InStorePut; k != nil {
			k()
		}
		owner, ups, err := parseStorePut(msg.Payload)
		if err != nil {
			return append([]byte{0}, err.Error()...)
		}
		items, err := m.acceptInputs(owner, ups)
		if err != nil {
			return append([]byte{0}, err.Error()...)
		}
		d := m.inputBatchDigest(owner, items)
		m.roots.signed.add(d) // before the ack: a root round may follow it at once
		return append([]byte{1}, m.cfg.BLSKey.Sign(d[:])...)
	})
}

func (m *Member) onFetch(msg transport.Message) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		var reply []byte
		if len(msg.Payload) == 32 {
			if b, err := m.servable(fhe.Handle(msg.Payload)); err == nil {
				reply = b
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), m.cfg.RoundTimeout)
		defer cancel()
		_ = m.mux.Send(ctx, msg.From, transport.Message{Type: transport.TypeFetchReply, Session: msg.Session, Payload: reply})
	}()
}

// fetch asks the other members for a ciphertext this member lacks (it was
// down during the upload) and stores the first copy whose handle matches.
// It asks every member, not only those it counts as live: a member that
// just restarted may have marked the holders down (its first rounds timed
// out while they still counted it down), and one answer is enough.
func (m *Member) fetch(ctx context.Context, h fhe.Handle) (*fhe.Ciphertext, error) {
	session := fmt.Sprintf("fetch/%x/%x", h[:], randTag())
	rctx, cancel := context.WithTimeout(ctx, m.cfg.RoundTimeout)
	defer cancel()
	defer m.mux.Forget(session)
	// The first copy whose handle matches wins; an empty reply (the peer
	// lacks it too, e.g. it was down as well) or a wrong one does not end
	// the wait. The request goes out in the background: Broadcast returns
	// only when every send has, and a send to a member whose host is gone
	// can hang until rctx ends while the others have answered.
	go func() {
		_ = m.mux.Broadcast(rctx, m.members, transport.Message{Type: transport.TypeFetch, Session: session, Payload: h[:]})
	}()
	replies := make(chan []byte, len(m.members))
	for _, id := range m.members {
		if id == m.id {
			continue
		}
		go func() {
			msg, err := m.mux.Recv(rctx, transport.Key{Session: session, Type: transport.TypeFetchReply, From: id})
			if err != nil {
				msg.Payload = nil
			}
			replies <- msg.Payload
		}()
	}
	for range len(m.members) - 1 {
		b := <-replies
		if len(b) == 0 || fhe.HandleOf(b) != h {
			continue
		}
		if _, ct, err := m.st.Put(b); err == nil {
			return ct, nil
		}
	}
	return nil, fmt.Errorf("%w: ciphertext %s not held by any reachable member", store.ErrNotFound, h)
}

// ErrBadProof is wrapped by every upload refused for its proof of
// plaintext knowledge (missing, malformed or not verifying): the client API
// answers 400.
var ErrBadProof = errors.New("consensus: input proof of plaintext knowledge refused")

// ProofContext is what an input proof for owner must be bound to on this
// member: the chain id, the committee's key epoch and the owner (the proof
// also binds the public-key digest and the ciphertext handle).
func (m *Member) ProofContext(owner [20]byte) zkpok.Context {
	return zkpok.Context{ChainID: m.chain(), Epoch: m.cfg.Committee.Epoch, Owner: owner}
}

// ProofKey returns the committee public key prepared for input proofs
// (cached until the key material changes).
func (m *Member) ProofKey() (*zkpok.Key, error) {
	km, err := m.Keys()
	if err != nil {
		return nil, err
	}
	if k := m.zkKey.Load(); k != nil && k.PK == km.Public {
		return k, nil
	}
	k, err := zkpok.NewKey(km.Public)
	if err != nil {
		return nil, err
	}
	m.zkKey.Store(k)
	return k, nil
}

// EncryptInput encrypts values under the committee key for owner and proves
// plaintext knowledge for this member's chain and epoch: the canonical
// ciphertext and the proof, as a client uploads them (tests, benchmarks).
func (m *Member) EncryptInput(values []int64, owner [20]byte) (ct, proof []byte, err error) {
	k, err := m.ProofKey()
	if err != nil {
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

// acceptInputs validates every ciphertext of an upload, verifies each proof
// of plaintext knowledge for owner and only then stores them all; it
// returns the upload's items in order. The "anyone decrypts anyone's data" attack: without the
// proof anyone could upload a copy (or a re-randomisation) of a victim's
// ciphertext as their own and have a policy reveal it. An upload is refused
// whole: over MaxUploadItems or MaxUploadBytes, a handle twice, a ctype
// other than 1 (precompiles.CTypeCiphertext), or any proof failing.
func (m *Member) acceptInputs(owner [20]byte, ups []api.InputUpload) ([]bls.InputItem, error) {
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
		h, err := m.verifyInput(u, owner)
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
		if _, _, err := m.st.Put(u.Ciphertext); err != nil {
			return nil, err
		}
	}
	return items, nil
}

// ctypeCiphertext is the only ctype FHEInput accepts today
// (precompiles.CTypeCiphertext: a canonical fhe ciphertext).
const ctypeCiphertext = 1

// verifyInput validates one canonical ciphertext of the committee's preset
// and verifies its proof of plaintext knowledge for owner.
func (m *Member) verifyInput(u api.InputUpload, owner [20]byte) (fhe.Handle, error) {
	h, c, err := store.Validate(u.Ciphertext)
	if err != nil {
		return h, err
	}
	if u.CType != ctypeCiphertext {
		return h, fmt.Errorf("consensus: ctype %d not accepted (FHEInput accepts %d, a canonical ciphertext)", u.CType, ctypeCiphertext)
	}
	if c.Params() != m.params {
		return h, fmt.Errorf("consensus: ciphertext is %s, committee uses %s", c.Params().Preset.Name, m.params.Preset.Name)
	}
	if len(u.Proof) == 0 {
		return h, fmt.Errorf("%w: missing proof (POST /v1/inputs needs \"proof\": the hex of a zkpok proof bound to owner, chain, epoch and ciphertext)", ErrBadProof)
	}
	k, err := m.ProofKey()
	if err != nil {
		return h, err
	}
	if err := k.Verify(c, h, m.ProofContext(owner), u.Proof); err != nil {
		return h, fmt.Errorf("%w: %v", ErrBadProof, err)
	}
	return h, nil
}

// storePut encodes a StorePut payload: owner(20) ‖ count(1) ‖ per
// ciphertext: ctype(1) ‖ len(proof)(4) ‖ proof ‖ len(ct)(4) ‖ ct (lengths
// big-endian).
func storePut(owner [20]byte, ups []api.InputUpload) []byte {
	n := 21
	for _, u := range ups {
		n += 9 + len(u.Proof) + len(u.Ciphertext)
	}
	out := make([]byte, 0, n)
	out = append(append(out, owner[:]...), byte(len(ups)))
	for _, u := range ups {
		out = append(out, u.CType)
		out = binary.BigEndian.AppendUint32(out, uint32(len(u.Proof)))
		out = append(out, u.Proof...)
		out = binary.BigEndian.AppendUint32(out, uint32(len(u.Ciphertext)))
		out = append(out, u.Ciphertext...)
	}
	return out
}

// parseStorePut decodes a StorePut payload, checking the count and every
// length before slicing (the parts alias b: nothing is copied).
func parseStorePut(b []byte) (owner [20]byte, ups []api.InputUpload, err error) {
	if len(b) < 21 {
		return owner, nil, fmt.Errorf("short payload")
	}
	copy(owner[:], b[:20])
	n := int(b[20])
	if n == 0 || n > api.MaxUploadItems {
		return owner, nil, fmt.Errorf("upload of %d ciphertexts outside [1,%d]", n, api.MaxUploadItems)
	}
	rest := b[21:]
	ups = make([]api.InputUpload, n)
	for i := range ups {
		if len(rest) < 5 {
			return owner, nil, fmt.Errorf("ciphertext %d: short payload", i)
		}
		ups[i].CType = rest[0]
		var part []byte
		if part, rest, err = lengthPrefixed(rest[1:], zkpok.MaxProofSize); err != nil {
			return owner, nil, fmt.Errorf("ciphertext %d: proof: %w", i, err)
		}
		ups[i].Proof = part
		if part, rest, err = lengthPrefixed(rest, store.MaxCiphertext); err != nil {
			return owner, nil, fmt.Errorf("ciphertext %d: %w", i, err)
		}
		ups[i].Ciphertext = part
	}
	if len(rest) != 0 {
		return owner, nil, fmt.Errorf("%d trailing bytes", len(rest))
	}
	return owner, ups, nil
}

// lengthPrefixed splits len(4, big-endian) ‖ part ‖ rest, with len ≤ limit.
func lengthPrefixed(b []byte, limit int) (part, rest []byte, err error) {
	if len(b) < 4 {
		return nil, nil, fmt.Errorf("short payload")
	}
	n := binary.BigEndian.Uint32(b[:4])
	b = b[4:]
	if uint64(n) > uint64(len(b)) || uint64(n) > uint64(limit) {
		return nil, nil, fmt.Errorf("length %d exceeds the payload (%d bytes) or %d", n, len(b), limit)
	}
	return b[:n], b[n:], nil
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
	return m.uploadBatch(ctx, owner, ups, false)
}

// UploadBatchRooted is UploadBatch that also places the upload in an input
// root (roots.go): once the upload is attested, its digest joins the
// rooted uploads this member receives within RootWindow, the committee
// signs their Merkle root and the attestation's Root carries the upload's
// index, path and the root's aggregate signature. If the root round fails
// (no quorum, timeout) or ctx ends while it runs, the upload is still
// answered, with its own attestation and Root nil.
func (m *Member) UploadBatchRooted(ctx context.Context, owner [20]byte, ups []api.InputUpload) (*api.InputAttestation, error) {
	return m.uploadBatch(ctx, owner, ups, true)
}

func (m *Member) uploadBatch(ctx context.Context, owner [20]byte, ups []api.InputUpload, rooted bool) (att *api.InputAttestation, err error) {
	if rooted {
		// counted until it joins the open root batch (inputRoots.await) or fails:
		// the batch closes early once no counted upload is left
		m.roots.batch.begin()
		defer func() {
			if err != nil {
				m.roots.batch.abandon()
			}
		}()
	}
	items, err := m.acceptInputs(owner, ups)
	if err != nil {
		return nil, err
	}
	d := m.inputBatchDigest(owner, items)
	m.roots.signed.add(d)
	sigs := map[transport.MemberID][]byte{m.id: m.cfg.BLSKey.Sign(d[:])}
	session := fmt.Sprintf("put/%x/%x/%x", d[:], owner[:], randTag())
	m.peers.collect(ctx, transport.Message{Type: transport.TypeStorePut, Session: session, Payload: storePut(owner, ups)},
		transport.TypeStoreAck, d, sigs, "store replica")
	att = &api.InputAttestation{Owner: owner, Preset: uint8(m.params.Preset.ID), Epoch: m.cfg.Committee.Epoch, Items: items, Handle: items[0].Handle}
	if att.Signature, att.Signers, err = m.peers.aggregate(sigs); err != nil {
		return nil, err
	}
	if rooted {
		// await uncounts the upload as it joins a batch (or the member
		// is closing); either way the upload is answered
		var rerr error
		if att.Root, rerr = m.roots.await(ctx, d); rerr != nil {
			m.log.Warn("no input root for this upload: answered with its own attestation only", zap.Binary("digest", d[:]), zap.Error(rerr))
		}
	}
	return att, nil
}

func randTag() []byte {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return b[:]
}
