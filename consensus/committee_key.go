package consensus

import (
	"errors"

	"github.com/fhegate/fhegate/bls"
)

// The new key bound on chain (docs/committee.md, "The new key bound on
// chain").
//
// A rotation re-encrypts (key-switches) every stored input of epoch e to
// the collective FHE public key of epoch e+1. Switching to a key somebody
// holds is a decryption for them, so the old members must not take the
// target key from a file or a peer: the committee of epoch e+1, once
// setCommittee registered it, signs
//
//	bls.CommitteeKeyDigest(chainId, e+1, keccak256(pk′))
//
// with its on-chain BLS keys; anyone posts the aggregate with
// FHEVerdict.setCommitteeKey, which checks it against the registered
// committee's keys and quorum and records the digest once for the epoch.
// An old member re-encrypts only to a key whose digest equals the one the
// chain recorded for its epoch + 1 (VerifyTargetKey), and pins that one
// target per epoch in its share ledger (Member.pinEpochTarget). A coalition
// of t−1 old members therefore needs t′ members of the new committee (a
// quorum the chain's governance installed) to sign a key they hold.

// SignCommitteeKey is this member's BLS signature binding its committee's
// collective public key to its epoch: over bls.CommitteeKeyDigest(chainId,
// epoch, PKDigest) of the key material its own DKG produced (a member never
// signs a digest it is handed).
func (m *Member) SignCommitteeKey() (pkDigest [32]byte, sig []byte, err error) {
	ks, err := m.snap()
	if err != nil {
		return pkDigest, nil, err
	}
	if m.cfg.BLSKey == nil {
		return pkDigest, nil, errors.New("consensus: no BLS key to sign the committee key")
	}
	d := bls.CommitteeKeyDigest(m.chain(), ks.km.Epoch, ks.km.PKDigest)
	return ks.km.PKDigest, m.cfg.BLSKey.Sign(d[:]), nil
}
