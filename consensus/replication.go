package consensus

import (
	"context"
	"crypto/rand"
	"fmt"
	"sort"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
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
}

func (m *Member) inputDigest(h fhe.Handle, owner [20]byte, preset, ctype uint8) [32]byte {
	return bls.InputDigest(m.chain(), m.cfg.Committee.Epoch, [32]byte(h), owner, preset, ctype)
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
		if len(msg.Payload) < 21 {
			reply = append(reply, "short payload"...)
		} else {
			var owner [20]byte
			copy(owner[:], msg.Payload[:20])
			ctype := msg.Payload[20]
			h, ct, err := m.st.Put(msg.Payload[21:])
			switch {
			case err != nil:
				reply = append(reply, err.Error()...)
			case ct.Params() != m.params:
				reply = append(reply, "wrong preset"...)
			default:
				d := m.inputDigest(h, owner, uint8(m.params.Preset.ID), ctype)
				reply = append([]byte{1}, m.cfg.BLSKey.Sign(d[:])...)
			}
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

// Upload validates a canonical ciphertext, stores it, replicates it to every
// live member and returns the quorum input attestation (≥ t BLS signatures
// over bls.InputDigest).
func (m *Member) Upload(ctx context.Context, ct []byte, owner [20]byte, ctype uint8) (*InputAttestation, error) {
	h, c, err := m.st.Put(ct)
	if err != nil {
		return nil, err
	}
	if c.Params() != m.params {
		return nil, fmt.Errorf("consensus: ciphertext is %s, committee uses %s", c.Params().Preset.Name, m.params.Preset.Name)
	}
	preset := uint8(m.params.Preset.ID)
	d := m.inputDigest(h, owner, preset, ctype)
	sigs := map[transport.MemberID][]byte{m.id: m.cfg.BLSKey.Sign(d[:])}
	session := fmt.Sprintf("put/%x/%x/%d/%x", h[:], owner[:], ctype, randTag())
	payload := append(append(owner[:], ctype), ct...)
	live := m.live()
	rctx, cancel := context.WithTimeout(ctx, m.cfg.RoundTimeout)
	defer cancel()
	_ = m.mux.Broadcast(rctx, live, transport.Message{Type: transport.TypeStorePut, Session: session, Payload: payload})
	got := m.mux.CollectQuorum(rctx, session, transport.TypeStoreAck, live, m.quorumWant(len(live)-1), m.grace())
	m.mux.Forget(session)
	for id, msg := range got.Got {
		if len(msg.Payload) == 1+bls.SignatureLen && msg.Payload[0] == 1 {
			sig := msg.Payload[1:]
			if bls.Verify(m.committee.Keys[id-1].Compressed(), d[:], sig) == nil {
				sigs[id] = sig
				continue
			}
		}
		m.log.Warn("store replica refused or bad signature", zap.Uint32("peer", uint32(id)), zap.ByteString("reply", tail(msg.Payload)))
	}
	m.markDown(got.Missing)
	att := &InputAttestation{Handle: h, Owner: owner, Preset: preset, CType: ctype, Epoch: m.cfg.Committee.Epoch}
	if att.Signature, att.Signers, err = m.aggregate(sigs); err != nil {
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
