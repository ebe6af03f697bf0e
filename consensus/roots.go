package consensus

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/transport"
)

// Input roots. Every upload gets its own quorum attestation over
// bls.InputBatchDigest (one pairing on chain per upload). A rooted upload
// (UploadBatchRooted, POST /v1/inputs with "rooted": true) also gets a
// second, optional attestation: the member whose API received it collects
// the digests of the rooted uploads it attests into a batch, and the
// committee signs one Merkle root over them (bls.InputRootTree), so the
// chain verifies one pairing per root (FHEPolicy.evaluateRooted). A batch
// opens with its first upload and waits while rooted uploads are in
// progress at the member (being verified, replicated): it closes once none
// is left, at MaxRootLeaves, or after as long as its first upload took to
// be attested, at most RootWindow (rootBatcher). So a burst fills one root
// however slowly the member attests it, and a member with no other upload
// in progress answers at once. A member signs a root only over digests it
// signed itself, per upload, within SignedDigestTTL: a root attests
// nothing the members did not attest one by one.

// Input-root bounds.
const (
	// MaxRootLeaves bounds the uploads of one root (a round's payload is
	// 12 + 32·MaxRootLeaves bytes; the path is 10 siblings).
	MaxRootLeaves = 1024
	// DefaultRootWindow is the longest a root's batch waits for the
	// uploads in progress at its member (MemberConfig.RootWindow). A batch
	// waits no longer than its first upload took to be attested and closes
	// as soon as none is in progress (rootBatcher): this bound matters only
	// on a member that takes minutes to attest an upload. A member with no
	// other upload in progress does not wait at all.
	DefaultRootWindow = 2 * time.Minute
	// SignedDigestTTL is how long a member remembers an upload digest it
	// signed, i.e. how long after an upload a root may include it.
	SignedDigestTTL = 10 * time.Minute
	// MaxSignedDigests bounds the digests a member remembers (the oldest
	// are forgotten first), whatever its peers and clients send.
	MaxSignedDigests = 1 << 16
	// MaxConcurrentRootSigns bounds the TypeRootSign requests a member
	// handles at once; beyond it they are answered "busy" (or, past the
	// busy answers one peer may have in flight, dropped with a log), like
	// StorePut.
	MaxConcurrentRootSigns = 16
	// maxRootRounds bounds the root rounds a coordinator runs at once;
	// beyond it a batch is answered without a root.
	maxRootRounds = 16
	// rootLeafWait is how long a member asked to sign a root waits for a
	// leaf it has not signed yet: the upload's StorePut may still be on its
	// way or in its handler (the coordinator went on with the other
	// members' acknowledgements), and a lagging member would otherwise
	// refuse every root under load.
	rootLeafWait = 2 * time.Second
)

// rootSign encodes a TypeRootSign payload: epoch(8) ‖ count(4) ‖
// count×32-byte leaves (big-endian).
func rootSign(epoch uint64, leaves [][32]byte) []byte {
	out := make([]byte, 0, 12+32*len(leaves))
	out = binary.BigEndian.AppendUint64(out, epoch)
	out = binary.BigEndian.AppendUint32(out, uint32(len(leaves)))
	for _, l := range leaves {
		out = append(out, l[:]...)
	}
	return out
}

// parseRootSign decodes a TypeRootSign payload. The count is checked
// against [1, MaxRootLeaves] and the payload's exact length before any
// allocation.
func parseRootSign(b []byte) (epoch uint64, leaves [][32]byte, err error) {
	if len(b) < 12 {
		return 0, nil, fmt.Errorf("root request of %d bytes, shorter than its 12-byte header", len(b))
	}
	epoch = binary.BigEndian.Uint64(b[:8])
	n := binary.BigEndian.Uint32(b[8:12])
	if n == 0 || n > MaxRootLeaves {
		return 0, nil, fmt.Errorf("root request of %d leaves outside [1,%d]", n, MaxRootLeaves)
	}
	if want := 12 + 32*int(n); len(b) != want {
		return 0, nil, fmt.Errorf("root request of %d leaves is %d bytes, want %d", n, len(b), want)
	}
	leaves = make([][32]byte, n)
	for i := range leaves {
		copy(leaves[i][:], b[12+32*i:])
	}
	return epoch, leaves, nil
}

// inputRoots is the member's part in input roots: as a coordinator it
// batches the digests of the rooted uploads it attested and runs their root
// round (await), and as a peer it signs another coordinator's root over
// digests it signed itself (onSign).
type inputRoots struct {
	self      transport.MemberID
	epoch     uint64 // the committee's key epoch
	threshold int
	key       *bls.SecretKey
	chain     func() *big.Int // Member.chain: set before Run
	refuse    bool            // TestingKnobs.RefuseRootSign
	log       *zap.Logger
	closed    <-chan struct{} // closed by Member.Close
	wg        *sync.WaitGroup // the member's: Close waits for the rounds and handlers
	peers     *peerRounds
	live      func() bool   // waits (≤ RoundTimeout) until a quorum is live: heartbeats.awaitQuorum
	signed    *signedLog    // upload digests this member signed
	batch     rootBatcher   // rooted uploads waiting for their root round
	sem       chan struct{} // TypeRootSign handlers in flight (MaxConcurrentRootSigns)
}

// sign is this member's signature over the root of leaves for epoch,
// given only if signable.
func (r *inputRoots) sign(epoch uint64, leaves [][32]byte) ([]byte, error) {
	if err := r.signable(epoch, leaves); err != nil {
		return nil, err
	}
	root, _, err := bls.InputRootTree(leaves)
	if err != nil {
		return nil, err
	}
	d := bls.InputRootDigest(r.chain(), epoch, root)
	return r.key.Sign(d[:]), nil
}

// signable checks that this member may sign a root of leaves for
// epoch: epoch is the committee's and every leaf is an upload digest this
// member signed within SignedDigestTTL (waiting up to rootLeafWait for
// late ones); otherwise an *unknownLeavesError says which leaves it knows.
func (r *inputRoots) signable(epoch uint64, leaves [][32]byte) error {
	if epoch != r.epoch {
		return fmt.Errorf("root for epoch %d, this committee's epoch is %d", epoch, r.epoch)
	}
	if len(leaves) == 0 || len(leaves) > MaxRootLeaves {
		return fmt.Errorf("root of %d leaves outside [1,%d]", len(leaves), MaxRootLeaves)
	}
	if i, ok := r.signed.awaitAll(leaves, rootLeafWait, r.closed); !ok {
		known := make([]bool, len(leaves))
		for j, l := range leaves {
			known[j] = r.signed.has(l)
		}
		return &unknownLeavesError{first: i, leaf: leaves[i], ttl: r.signed.ttl, known: known}
	}
	return nil
}

// unknownLeavesError is signable's refusal of a root with leaves this
// member did not sign: known says which of them it did.
type unknownLeavesError struct {
	first int
	leaf  [32]byte
	ttl   time.Duration
	known []bool
}

func (e *unknownLeavesError) Error() string {
	return fmt.Sprintf("leaf %d (%x…) is not an upload digest this member signed in the last %s", e.first, e.leaf[:8], e.ttl)
}

// Root acknowledgement statuses (TypeRootAck's first byte).
const (
	rootRefused = 0 // ‖ reason
	rootSigned  = 1 // ‖ BLS signature
	rootPartial = 2 // ‖ bitmap of the leaves this member signed (bit i of byte i/8, LSB first)
)

// onSign answers a peer's TypeRootSign with a TypeRootAck: 1 ‖ this
// member's signature, 2 ‖ the bitmap of the leaves it knows when it did not
// sign them all (the coordinator may then ask for the root of a subset),
// or 0 ‖ why it refuses. At most
// MaxConcurrentRootSigns run at once; the excess is dropped with a log.
func (r *inputRoots) onSign(msg transport.Message) {
	r.peers.answer(msg, r.sem, "root", "the coordinator", transport.TypeRootAck, func() []byte {
		if r.refuse {
			return append([]byte{0}, "refused (test knob)"...)
		}
		epoch, leaves, err := parseRootSign(msg.Payload)
		if err != nil {
			return append([]byte{0}, err.Error()...)
		}
		sig, err := r.sign(epoch, leaves)
		var ule *unknownLeavesError
		switch {
		case errors.As(err, &ule):
			bm := make([]byte, 1+(len(leaves)+7)/8)
			bm[0] = rootPartial
			for i, k := range ule.known {
				if k {
					bm[1+i/8] |= 1 << (i % 8)
				}
			}
			return bm
		case err != nil:
			return append([]byte{rootRefused}, err.Error()...)
		}
		return append([]byte{rootSigned}, sig...)
	})
}
