package consensus

// A rotation's joint session: the two committees' members as joint
// transport ids, the target key, and the handle lists the session agrees on.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	keccakpkg "github.com/fhegate/fhegate/internal/keccak"
)

// jointPlan is one rotation's joint session: the two committees' members
// as joint transport IDs and the target key.
type jointPlan struct {
	fromEpoch                       uint64
	target                          *fhe.PublicKey
	tpd                             [32]byte
	oldT                            int
	old, nw                         []transport.MemberID
	oldActive, newActive, receivers []transport.MemberID
	oldOff                          transport.MemberID
}

// newJointPlan lays out a rotation from a committee of n members
// (threshold oldT, epoch fromEpoch) to one of n2 members (threshold newT):
// oldActive are old committee IDs.
func newJointPlan(fromEpoch uint64, n, oldT, n2, newT int, oldActive []uint32, target *fhe.PublicKey) (jointPlan, error) {
	if len(oldActive) != oldT {
		return jointPlan{}, fmt.Errorf("consensus: a key switch needs exactly t=%d active old members, got %d", oldT, len(oldActive))
	}
	if newT < 1 || newT > n2 {
		return jointPlan{}, fmt.Errorf("consensus: new committee threshold %d outside 1..%d", newT, n2)
	}
	if target == nil {
		return jointPlan{}, errors.New("consensus: key switch without a target key")
	}
	pkb, err := target.MarshalBinary()
	if err != nil {
		return jointPlan{}, err
	}
	p := jointPlan{fromEpoch: fromEpoch, target: target, tpd: keccakpkg.Sum(pkb), oldT: oldT, oldOff: transport.MemberID(n2)}
	for k := 1; k <= n2; k++ {
		id := transport.MemberID(k)
		p.nw = append(p.nw, id)
		if k <= newT {
			p.newActive = append(p.newActive, id)
		} else {
			p.receivers = append(p.receivers, id)
		}
	}
	for i := 1; i <= n; i++ {
		p.old = append(p.old, p.oldOff+transport.MemberID(i))
	}
	seen := map[uint32]bool{}
	for _, i := range oldActive {
		if i < 1 || int(i) > n || seen[i] {
			return jointPlan{}, fmt.Errorf("consensus: active old member %d is not one of 1..%d (or listed twice)", i, n)
		}
		seen[i] = true
		p.oldActive = append(p.oldActive, p.oldOff+transport.MemberID(i))
	}
	slices.Sort(p.oldActive)
	return p, nil
}

// participants are the joint IDs that take part: the old active members
// and every new member.
func (p jointPlan) participants() []transport.MemberID {
	return append(append([]transport.MemberID(nil), p.nw...), p.oldActive...)
}

// members is every joint ID (the group's member list).
func (p jointPlan) members() []transport.MemberID {
	return append(append([]transport.MemberID(nil), p.nw...), p.old...)
}

func (p jointPlan) base() string { return fmt.Sprintf("xks/%d/%x", p.fromEpoch, p.tpd[:8]) }

func (p jointPlan) request(h fhe.Handle, ct *fhe.Ciphertext) protocol.KeySwitchRequest {
	return protocol.KeySwitchRequest{
		Session:    fmt.Sprintf("ks/%d/%x/%x", p.fromEpoch, p.tpd[:8], h[:8]),
		Ciphertext: ct, Target: p.target, Old: p.old, New: p.nw, OldActive: p.oldActive, NewActive: p.newActive,
		OldOffset: p.oldOff, Receivers: p.receivers,
	}
}

// maxSwitchHandles bounds the handle list of a joint session (a store holds
// far fewer inputs per epoch; the bound keeps a decoded list's allocation
// within the transport's message limit).
const maxSwitchHandles = transport.DefaultMaxMessage / 32

// encodeHandles is count (4, big-endian) ‖ the handles, sorted.
func encodeHandles(hs []fhe.Handle) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(hs)))
	for _, h := range hs {
		b = append(b, h[:]...)
	}
	return b
}

// decodeHandles decodes encodeHandles strictly: exact length, strictly
// ascending (so no duplicates).
func decodeHandles(b []byte) ([]fhe.Handle, error) {
	if len(b) < 4 {
		return nil, errors.New("consensus: malformed handle list")
	}
	n := binary.BigEndian.Uint32(b)
	if n > maxSwitchHandles || uint64(len(b)-4) != uint64(n)*32 {
		return nil, fmt.Errorf("consensus: handle list of %d bytes does not hold %d handles", len(b), n)
	}
	hs := make([]fhe.Handle, n)
	for i := range hs {
		copy(hs[i][:], b[4+32*i:])
		if i > 0 && string(hs[i-1][:]) >= string(hs[i][:]) {
			return nil, errors.New("consensus: handle list not strictly ascending")
		}
	}
	return hs, nil
}

// named adds to err how to read the member IDs it names: those of the
// joint transport.
func (p jointPlan) named(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w (member IDs of the joint session: new member k is k, old member i is %d+i)", err, p.oldOff)
}
