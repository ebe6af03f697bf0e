package transport

import (
	"crypto/ed25519"
	"strings"
)

// Signer is part of every Transport: its members hold identity keys that
// every peer knows (TLS: the pinned ed25519 keys; Hub: keys it makes for
// its members). A signature, unlike the authenticated channel a message
// arrives on, convinces a third member: a protocol can relay what a peer
// signed as evidence (protocol.exchangeCommitted's commitment echo names a
// member that signed two different commitments for one round). A wrapper
// that embeds a Transport forwards it, so every member of a committee signs
// in the same way.
//
// Messages signed through Signer must start with a protocol domain of
// their own ("fhegate/…"; others are refused): the TLS key also signs TLS
// 1.3 handshakes, whose signed content starts with 64 spaces, and the
// member's self-signed certificate, DER starting with 0x30, so no signed
// protocol message is either.
type Signer interface {
	// Sign signs msg with this member's identity key.
	Sign(msg []byte) []byte
	// VerifyFrom reports whether sig is member id's signature of msg.
	VerifyFrom(id MemberID, msg, sig []byte) bool
}

// SignatureSize is the size of a Signer's signatures (ed25519).
const SignatureSize = ed25519.SignatureSize

// signable refuses messages outside the protocol domains (see Signer).
func signable(msg []byte) bool { return strings.HasPrefix(string(msg), "fhegate/") }

// Sign signs msg with this member's TLS identity key (nil for a message
// outside the "fhegate/" domains).
func (t *TLS) Sign(msg []byte) []byte {
	if !signable(msg) {
		return nil
	}
	return ed25519.Sign(t.cfg.Key, msg)
}

// VerifyFrom checks sig against member id's pinned TLS identity key (the
// peer list includes this member; it is fixed once the transport exists).
func (t *TLS) VerifyFrom(id MemberID, msg, sig []byte) bool {
	p, ok := t.peers[id]
	return ok && signable(msg) && len(sig) == ed25519.SignatureSize && ed25519.Verify(p.PubKey, msg, sig)
}

// Sign signs msg with the key the hub made for this member.
func (e *memEndpoint) Sign(msg []byte) []byte {
	if !signable(msg) {
		return nil
	}
	return ed25519.Sign(e.hub.keys[e.id], msg)
}

// VerifyFrom checks sig against the key the hub made for member id.
func (e *memEndpoint) VerifyFrom(id MemberID, msg, sig []byte) bool {
	k, ok := e.hub.keys[id]
	return ok && signable(msg) && len(sig) == ed25519.SignatureSize && ed25519.Verify(k.Public().(ed25519.PublicKey), msg, sig)
}

// Signer returns the transport's Signer.
func (m *Mux) Signer() Signer { return m.t }
