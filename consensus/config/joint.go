package config

import (
	"context"
	"fmt"

	"github.com/fhegate/fhegate/consensus/transport"
)

// The joint transport of a rotation (consensus.JointRotation,
// docs/committee.md "Rotation"): the old and the new committee meet on one
// TLS transport, new member k as k, old member i as n′+i.

// JointOldID is old member id's ID on the joint transport of a rotation to
// the committee nw: n′ + id.
func JointOldID(nw *CommitteeConfig, id uint32) transport.MemberID {
	return transport.MemberID(len(nw.Members)) + transport.MemberID(id)
}

// JointPeers is the peer list of a rotation's joint transport: the new
// committee's members under their IDs at their addresses, the old
// committee's at JointOldID, each with its pinned TLS key. The two
// committees must not share a TLS key or an address.
func JointPeers(old, nw *CommitteeConfig) ([]transport.Peer, error) {
	np, err := nw.Peers()
	if err != nil {
		return nil, err
	}
	op, err := old.Peers()
	if err != nil {
		return nil, err
	}
	keys, addrs := map[string]bool{}, map[string]bool{}
	out := make([]transport.Peer, 0, len(np)+len(op))
	for _, p := range np {
		keys[string(p.PubKey)], addrs[p.Addr] = true, true
		out = append(out, p)
	}
	for _, p := range op {
		if keys[string(p.PubKey)] {
			return nil, fmt.Errorf("consensus: old member %d uses a new member's TLS key: the joint session could not tell them apart", p.ID)
		}
		if addrs[p.Addr] {
			return nil, fmt.Errorf("consensus: old member %d listens at %s, as a new member does: give the committees distinct addresses", p.ID, p.Addr)
		}
		p.ID = JointOldID(nw, uint32(p.ID))
		out = append(out, p)
	}
	return out, nil
}

// JointMemberTransport is a new member's transport for a rotation: tr is
// its TLS transport over JointPeers (its joint ID is its committee ID);
// messages from the old members (IDs above n′) reach it only if they are of
// the key switch's types, so an old member cannot use the new member's
// request handlers (store, fetch, root signing).
func JointMemberTransport(tr transport.Transport, nw *CommitteeConfig) transport.Transport {
	return &jointFilter{Transport: tr, n: transport.MemberID(len(nw.Members))}
}

type jointFilter struct {
	transport.Transport
	n transport.MemberID
}

func (f *jointFilter) Recv(ctx context.Context) (transport.Message, error) {
	for {
		msg, err := f.Transport.Recv(ctx)
		if err != nil || msg.From <= f.n {
			return msg, err
		}
		switch msg.Type {
		case transport.TypeAgreed, transport.TypeShareCommit, transport.TypeReencryptShare, transport.TypeMaskSeed:
			return msg, nil
		}
	}
}
