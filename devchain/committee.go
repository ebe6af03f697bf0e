package devchain

import (
	"fmt"

	"github.com/ava-labs/libevm/crypto"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
)

// Committee is a development stand-in for the MPC committee: n BLS keys
// derived from a public tag, threshold t. It signs what the committee signs —
// input attestations (bls.InputDigest) and verdicts (bls.VerdictDigest) — so
// contracts can be exercised end to end on a devnet, but it does no FHE and
// its keys are public: like the dev accounts, never register it on a network
// with value.
type Committee struct {
	Epoch     uint64
	Threshold uint32
	keys      []*bls.SecretKey
}

// NewCommittee derives n member keys from tag (same tag → same keys).
func NewCommittee(tag string, epoch uint64, n int, threshold uint32) (*Committee, error) {
	if n < 1 || threshold < 1 || int(threshold) > n {
		return nil, fmt.Errorf("devchain: committee threshold %d of %d", threshold, n)
	}
	c := &Committee{Epoch: epoch, Threshold: threshold}
	for i := 0; i < n; i++ {
		sk, err := bls.Keygen(crypto.Keccak256([]byte(fmt.Sprintf("fhegate/dev-committee/%s/%d", tag, i))))
		if err != nil {
			return nil, err
		}
		c.keys = append(c.keys, sk)
	}
	return c, nil
}

// DevCommittee is the well-known development committee `fhegate devnet`
// registers when it runs without the MPC committee: epoch 1, 3 members,
// threshold 2, keys derived from the tag "devnet".
func DevCommittee() *Committee {
	c, err := NewCommittee("devnet", 1, 3, 2)
	if err != nil {
		panic("devchain: built-in dev committee: " + err.Error()) // constant input; covered by tests
	}
	return c
}

// Size is the number of members.
func (c *Committee) Size() int { return len(c.keys) }

// Registry is the committee as FHEVerdict's genesis config takes it
// ("fheVerdictConfig"."committee"; see configs.WithCommittee).
func (c *Committee) Registry() *subnetevm.Committee {
	out := &subnetevm.Committee{Epoch: c.Epoch, Threshold: c.Threshold}
	for _, k := range c.keys {
		out.Members = append(out.Members, subnetevm.Member{PublicKey: k.PublicKey(), ProofOfPossession: k.ProvePossession()})
	}
	return out
}

// Sign returns the aggregate signature of the first Threshold members over
// digest and the signer bitmap, as FHEInput.registerBatch and FHEVerdict.submit(Batch)
// take them.
func (c *Committee) Sign(digest [32]byte) (signature, signers []byte, err error) {
	sigs := make([][]byte, 0, c.Threshold)
	idx := make([]int, 0, c.Threshold)
	for i := 0; i < int(c.Threshold); i++ {
		sigs = append(sigs, c.keys[i].Sign(digest[:]))
		idx = append(idx, i)
	}
	if signature, err = bls.Aggregate(sigs); err != nil {
		return nil, nil, err
	}
	if signers, err = bls.NewBitmap(len(c.keys), idx); err != nil {
		return nil, nil, err
	}
	return signature, signers, nil
}
