package consensus

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// InputAttestation is the quorum attestation FHEInput.register checks.
type InputAttestation struct {
	Handle    fhe.Handle
	Owner     [20]byte
	Preset    uint8
	CType     uint8
	Epoch     uint64
	Signature []byte // aggregate BLS over bls.InputDigest
	Signers   []byte // bitmap
	// ProofDigest is keccak256 of the proof of plaintext knowledge the
	// members verified before signing (see fhe/zkpok), and ProofSignature
	// the aggregate BLS signature of the same Signers over
	// InputProofDigest(bls.InputDigest(…), ProofDigest): the off-chain
	// binding of the attestation to that proof (FHEInput.register checks
	// Signature only; see InputProofDigest).
	ProofDigest    [32]byte
	ProofSignature []byte
}

// InputProofDomain separates InputProofDigest.
const InputProofDomain = "fhegate/input-proof/v1"

// InputProofDigest is what each member signs besides bls.InputDigest once
// it has verified an upload's proof of plaintext knowledge:
//
//	keccak256("fhegate/input-proof/v1" ‖ inputDigest ‖ keccak256(proof))
//
// What binds what. The proof's Fiat–Shamir transcript binds (chain id, key
// epoch, owner, public-key digest, ciphertext handle); bls.InputDigest, the
// message FHEInput.register verifies on chain, binds (chain id, epoch,
// handle, owner, preset, ctype) — the same statement (the epoch fixes the
// key). An honest member signs InputDigest only after verifying a proof for
// exactly that (handle, owner, chain, epoch), so the on-chain attestation
// already certifies that a quorum saw a valid proof for that owner: a copier
// who registers a victim's handle under its own address needs t signatures
// over an InputDigest with its owner, which honest members give only for a
// proof it cannot make without the victim's randomness. The proof-digest
// signature adds the proof bytes themselves (auditable: anyone holding the
// proof can check which one the quorum accepted). Putting it on chain
// needs FHEInput.register to take the proof digest (an ABI change).
func InputProofDigest(inputDigest, proofDigest [32]byte) [32]byte {
	return [32]byte(fhe.HandleOf(append(append([]byte(InputProofDomain), inputDigest[:]...), proofDigest[:]...)))
}

func (m *Member) inputDigest(h fhe.Handle, owner [20]byte, preset, ctype uint8) [32]byte {
	return bls.InputDigest(m.chain(), m.cfg.Committee.Epoch, [32]byte(h), owner, preset, ctype)
}

// signInput signs an accepted upload: bls.InputDigest ‖ InputProofDigest.
func (m *Member) signInput(d [32]byte, proof []byte) []byte {
	pd := InputProofDigest(d, zkpok.Digest(proof))
	return append(m.cfg.BLSKey.Sign(d[:]), m.cfg.BLSKey.Sign(pd[:])...)
}

// MaxConcurrentStorePuts bounds the StorePut requests a member handles at
// once (each validates and fsyncs a ciphertext of up to
// store.MaxCiphertext). A StorePut arriving beyond the bound is dropped
// with a log and never acknowledged: the uploader's CollectQuorum counts the
// member as missing and attests with the other members' signatures, as it
// does for a slow or dead member. Without the bound every received message
// spawned a goroutine, so a peer (or an upload flood through the client
// API) could pin unbounded memory and disk bandwidth on every member.
const MaxConcurrentStorePuts = 16

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
	select {
	case m.putSem <- struct{}{}:
	default:
		m.log.Warn("too many concurrent StorePut requests: dropped (the uploader counts this member as missing)",
			zap.Uint32("from", uint32(msg.From)), zap.Int("bytes", len(msg.Payload)))
		return
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		defer func() { <-m.putSem }()
		if k := m.cfg.Knobs.InStorePut; k != nil {
			k()
		}
		reply := []byte{0}
		if owner, ctype, proof, ct, err := parseStorePut(msg.Payload); err != nil {
			reply = append(reply, err.Error()...)
		} else if h, err := m.acceptInput(ct, proof, owner); err != nil {
			reply = append(reply, err.Error()...)
		} else {
			d := m.inputDigest(h, owner, uint8(m.params.Preset.ID), ctype)
			reply = append([]byte{1}, m.signInput(d, proof)...)
		}
		ctx, cancel := context.WithTimeout(context.Background(), m.cfg.RoundTimeout)
		defer cancel()
		if err := m.mux.Send(ctx, msg.From, transport.Message{Type: transport.TypeStoreAck, Session: msg.Session, Payload: reply}); err != nil {
			m.log.Debug("store ack not delivered", zap.Error(err))
		}
	}()
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

// fetch asks the live members for a ciphertext this member lacks (it was
// down during the upload) and stores the first copy whose handle matches.
func (m *Member) fetch(ctx context.Context, h fhe.Handle) (*fhe.Ciphertext, error) {
	session := fmt.Sprintf("fetch/%x/%x", h[:], randTag())
	live := m.live()
	rctx, cancel := context.WithTimeout(ctx, m.cfg.RoundTimeout)
	defer cancel()
	_ = m.mux.Broadcast(rctx, live, transport.Message{Type: transport.TypeFetch, Session: session, Payload: h[:]})
	got := m.mux.CollectQuorum(rctx, session, transport.TypeFetchReply, live, 1, 0)
	m.mux.Forget(session)
	for _, id := range sortedKeys(got.Got) {
		b := got.Got[id].Payload
		if len(b) == 0 || fhe.HandleOf(b) != h {
			continue
		}
		if _, ct, err := m.st.Put(b); err == nil {
			return ct, nil
		}
	}
	return nil, fmt.Errorf("%w: ciphertext %s not held by any live member", store.ErrNotFound, h)
}

func sortedKeys(m map[transport.MemberID]transport.Message) []transport.MemberID {
	out := make([]transport.MemberID, 0, len(m))
	for id := range m {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
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

// acceptInput validates a canonical ciphertext, verifies its proof of
// plaintext knowledge for owner and only then stores it. Issue 11 attack (2):
// without the proof anyone could upload a copy (or a re-randomisation) of a
// victim's ciphertext as their own and have a policy reveal it.
func (m *Member) acceptInput(b, proof []byte, owner [20]byte) (fhe.Handle, error) {
	h, c, err := store.Validate(b)
	if err != nil {
		return h, err
	}
	if c.Params() != m.params {
		return h, fmt.Errorf("consensus: ciphertext is %s, committee uses %s", c.Params().Preset.Name, m.params.Preset.Name)
	}
	if len(proof) == 0 {
		return h, fmt.Errorf("%w: missing proof (POST /v1/inputs needs \"proof\": the hex of a zkpok proof bound to owner, chain, epoch and ciphertext)", ErrBadProof)
	}
	k, err := m.ProofKey()
	if err != nil {
		return h, err
	}
	if err := k.Verify(c, h, m.ProofContext(owner), proof); err != nil {
		return h, fmt.Errorf("%w: %v", ErrBadProof, err)
	}
	if _, _, err := m.st.Put(b); err != nil {
		return h, err
	}
	return h, nil
}

// storePut encodes a StorePut payload: owner(20) ‖ ctype(1) ‖
// len(proof)(4, big-endian) ‖ proof ‖ ciphertext.
func storePut(owner [20]byte, ctype uint8, proof, ct []byte) []byte {
	out := make([]byte, 0, 25+len(proof)+len(ct))
	out = append(append(out, owner[:]...), ctype)
	out = binary.BigEndian.AppendUint32(out, uint32(len(proof)))
	return append(append(out, proof...), ct...)
}

// parseStorePut decodes a StorePut payload, checking every length first.
func parseStorePut(b []byte) (owner [20]byte, ctype uint8, proof, ct []byte, err error) {
	if len(b) < 25 {
		return owner, 0, nil, nil, fmt.Errorf("short payload")
	}
	copy(owner[:], b[:20])
	ctype = b[20]
	n := binary.BigEndian.Uint32(b[21:25])
	rest := b[25:]
	if uint64(n) > uint64(len(rest)) || n > zkpok.MaxProofSize {
		return owner, 0, nil, nil, fmt.Errorf("proof length %d exceeds the payload (%d bytes) or %d", n, len(rest), zkpok.MaxProofSize)
	}
	return owner, ctype, rest[:n], rest[n:], nil
}

// Upload verifies the proof of plaintext knowledge of a canonical ciphertext
// for owner, stores it, replicates it (with the proof: every member verifies
// it before it stores or signs) to every live member and returns the quorum
// input attestation (≥ t BLS signatures over bls.InputDigest). A missing or
// invalid proof is an error wrapping ErrBadProof.
func (m *Member) Upload(ctx context.Context, ct, proof []byte, owner [20]byte, ctype uint8) (*InputAttestation, error) {
	h, err := m.acceptInput(ct, proof, owner)
	if err != nil {
		return nil, err
	}
	preset := uint8(m.params.Preset.ID)
	d := m.inputDigest(h, owner, preset, ctype)
	pd := InputProofDigest(d, zkpok.Digest(proof))
	own := m.signInput(d, proof)
	sigs := map[transport.MemberID][]byte{m.id: own[:bls.SignatureLen]}
	psigs := map[transport.MemberID][]byte{m.id: own[bls.SignatureLen:]}
	session := fmt.Sprintf("put/%x/%x/%d/%x", h[:], owner[:], ctype, randTag())
	payload := storePut(owner, ctype, proof, ct)
	live := m.live()
	rctx, cancel := context.WithTimeout(ctx, m.cfg.RoundTimeout)
	defer cancel()
	_ = m.mux.Broadcast(rctx, live, transport.Message{Type: transport.TypeStorePut, Session: session, Payload: payload})
	got := m.mux.CollectQuorum(rctx, session, transport.TypeStoreAck, live, m.quorumWant(len(live)-1), m.grace())
	m.mux.Forget(session)
	for id, msg := range got.Got {
		if len(msg.Payload) == 1+2*bls.SignatureLen && msg.Payload[0] == 1 {
			sig, psig := msg.Payload[1:1+bls.SignatureLen], msg.Payload[1+bls.SignatureLen:]
			pub := m.committee.Keys[id-1].Compressed()
			if bls.Verify(pub, d[:], sig) == nil && bls.Verify(pub, pd[:], psig) == nil {
				sigs[id], psigs[id] = sig, psig
				continue
			}
		}
		m.log.Warn("store replica refused or bad signature", zap.Uint32("peer", uint32(id)), zap.ByteString("reply", tail(msg.Payload)))
	}
	m.markDown(got.Missing)
	att := &InputAttestation{Handle: h, Owner: owner, Preset: preset, CType: ctype, Epoch: m.cfg.Committee.Epoch, ProofDigest: zkpok.Digest(proof)}
	if att.Signature, att.Signers, err = m.aggregate(sigs); err != nil {
		return nil, err
	}
	if att.ProofSignature, _, err = m.aggregate(psigs); err != nil {
		return nil, err
	}
	return att, nil
}

func tail(b []byte) []byte {
	if len(b) > 0 {
		return b[1:]
	}
	return b
}

func randTag() []byte {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return b[:]
}
