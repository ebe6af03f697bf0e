// Package transport moves typed committee messages between members.
//
// Protocol code (package protocol) never touches the network: it talks to a
// Transport, which sends a Message to one member and receives messages from
// any member. Two implementations live here: Hub (in-memory, for unit tests)
// and TLS (TCP + TLS 1.3, mutually authenticated with per-member ed25519
// certificates whose public keys are pinned in the committee configuration).
// Mux sits on top of either and demultiplexes incoming messages by
// (session, type, sender), so that many protocol instances can run at once.
package transport

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// MemberID identifies a committee member. IDs are 1..n; the ID is also the
// member's Shamir evaluation point and (ID-1) its bit in a BLS signer bitmap.
type MemberID uint32

// Type is a message type tag.
type Type uint8

// Message types. The numeric values are part of the wire format.
const (
	TypeSeedCommit   Type = 1  // DKG: commitment to a CRS seed contribution
	TypeSeedReveal   Type = 2  // DKG: the seed contribution
	TypePKShare      Type = 3  // DKG: public-key share
	TypeRLKShare1    Type = 4  // DKG: relinearisation-key share, round 1
	TypeRLKShare2    Type = 5  // DKG: relinearisation-key share, round 2
	TypeGaloisShare  Type = 6  // DKG: Galois-key share (payload starts with the element)
	TypeShamirShare  Type = 7  // DKG: private Shamir share of a member's secret (confidential)
	TypeKeyDigest    Type = 8  // DKG: digest of the public key material each member derived
	TypeDecShare     Type = 9  // threshold decryption share
	TypeRefreshShare Type = 10 // collective refresh share
	TypeResultDigest Type = 11 // batch: digest of a result ciphertext
	TypeVerdictSig   Type = 12 // batch: BLS signature over a verdict digest
	TypeStorePut     Type = 13 // store replication: a canonical ciphertext
	TypeStoreAck     Type = 14 // store replication: BLS signature over an input digest
	TypeBatch        Type = 15 // batch announcement (leader → members)
	TypeRefreshAgg   Type = 16 // collective refresh: aggregated share (leader → members)
	TypePing         Type = 17
	TypeFetch        Type = 18 // store sync: a handle this member lacks
	TypeFetchReply   Type = 19 // store sync: its canonical bytes (empty if unknown)
	// TypeReencryptShare is a collective public-key-switch share (rotation).
	TypeReencryptShare Type = 20
	// TypeCoinCommit / TypeCoinReveal are the commit-reveal coin toss that
	// seeds the sanitisation (an encryption of zero) added to a ciphertext
	// before a threshold decryption or a refresh: keccak commitment to 32
	// random bytes, then the bytes.
	TypeCoinCommit Type = 21
	TypeCoinReveal Type = 22
	// TypeRootSign / TypeRootAck are an input-root round: the
	// member that received a window of uploads asks the others to sign
	// one Merkle root over those uploads' attestation digests
	// (epoch(8) ‖ count(4) ‖ count×32-byte leaves); each answers 1 ‖ a
	// BLS signature, or 0 ‖ the reason it refuses.
	TypeRootSign Type = 23
	TypeRootAck  Type = 24
	// TypeAgreed carries a value that each of t active members computed
	// independently to the others (protocol.AgreedFromActive): a vector
	// batch's packed accumulators (count(2) ‖ count × (length(4) ‖
	// canonical ciphertext)) or its evaluation result (a canonical
	// ciphertext); a member that is not active takes it only when all t
	// copies are identical.
	TypeAgreed Type = 25
	// TypeShareCommit is the commitment a member sends before its share in
	// a committed share round (protocol.exchangeCommitted): SHA-256 over
	// the session, the share's type, the member and the share (32 bytes).
	TypeShareCommit Type = 26
	// TypeMaskSeed is a pairwise mask seed of a cross-committee key switch
	// (protocol.CrossKeySwitch), sent to one member only (confidential).
	TypeMaskSeed Type = 27
)

// Message is one typed message. Session names the protocol instance (e.g.
// "dkg/1/pk" or "dec/<digest>"); From is set by the transport from the
// authenticated peer identity, never trusted from the payload.
type Message struct {
	From    MemberID
	Type    Type
	Session string
	Payload []byte
}

// Transport sends and receives messages. Implementations are safe for
// concurrent use. Send respects the context deadline.
type Transport interface {
	// Self is this member's ID.
	Self() MemberID
	// Peers lists every other member, ascending.
	Peers() []MemberID
	// Send delivers msg to member `to` (msg.From is ignored and set to Self).
	Send(ctx context.Context, to MemberID, msg Message) error
	// Recv returns the next incoming message.
	Recv(ctx context.Context) (Message, error)
	// Close releases the transport; Recv then returns ErrClosed.
	Close() error
	// Signer: members sign with their identity keys (see Signer). A
	// wrapper that embeds a Transport forwards it.
	Signer
}

// Errors.
var (
	ErrClosed      = errors.New("transport: closed")
	ErrUnknownPeer = errors.New("transport: unknown peer")
	// ErrPeerDown: the last dial to the peer failed and a background
	// redial has not reconnected yet (TLS transport).
	ErrPeerDown = errors.New("transport: peer down")
	ErrTooLarge = errors.New("transport: message too large")
	// ErrBadMessage: a message no peer can take (a session name over
	// MaxSession, a send to Self); sending it again would not help.
	ErrBadMessage = errors.New("transport: bad message")
)

// Limits shared by the implementations.
const (
	// DefaultMaxMessage bounds one message (a Galois-key share at N=2^14 is
	// ≈ 8 MB, a relinearisation-key share ≈ 16 MB).
	DefaultMaxMessage = 64 << 20
	// MaxSession bounds the session-name length.
	MaxSession = 256
)

func checkMsg(msg Message, max int) error {
	if len(msg.Session) > MaxSession {
		return fmt.Errorf("%w: session name of %d bytes exceeds %d", ErrBadMessage, len(msg.Session), MaxSession)
	}
	if len(msg.Payload) > max {
		return fmt.Errorf("%w: %d bytes > %d", ErrTooLarge, len(msg.Payload), max)
	}
	return nil
}

// Broadcast sends msg to every member in `to` except Self, to all of them
// at once, and returns the error of the first member in `to` whose send
// failed (the others are sent to regardless).
func Broadcast(ctx context.Context, t Transport, to []MemberID, msg Message) error {
	return broadcast(ctx, t.Self(), to, func(ctx context.Context, id MemberID) error { return t.Send(ctx, id, msg) })
}

// broadcast runs send for every member of `to` but self, all at once, and
// returns the first error in the order of `to`.
func broadcast(ctx context.Context, self MemberID, to []MemberID, send func(context.Context, MemberID) error) error {
	// One goroutine per recipient: a peer whose dial hangs (a dead host
	// drops SYNs) must not hold back the message to the others until ctx
	// ends. Each call returns after every send's first attempt, so one
	// sender's messages reach each peer in call order unless a send is
	// retried (Mux.SendRetrying).
	errs := make([]error, len(to))
	var wg sync.WaitGroup
	for i, id := range to {
		if id == self {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := send(ctx, id); err != nil {
				errs[i] = fmt.Errorf("send to %d: %w", id, err)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
