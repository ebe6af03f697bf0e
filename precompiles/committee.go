package precompiles

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/fhegate/fhegate/bls"
)

// Committee state lives in FHEVerdict's storage:
//
//	slot("vd.c")              header: [0]=1, epoch at [8:16], threshold at [16:20], size at [20:24]
//	slot("vd.g")              governance address (low 20 bytes)
//	slot("vd.pg")             pending governance address (transferGovernance → acceptGovernance)
//	slot("vd.k", epoch, i)+j  member i's 96-byte uncompressed key, j = 0..2
//	slot("vd.pk", epoch)      the FHE public-key digest recorded for epoch (setCommitteeKey)
var (
	keyCommittee  = slot("vd.c")
	keyGovernance = slot("vd.g")
	// keyPendingGovernance holds the address proposed by transferGovernance.
	keyPendingGovernance = slot("vd.pg")
)

func memberKeySlot(epoch uint64, i uint32) Hash {
	var e [8]byte
	var n [4]byte
	binary.BigEndian.PutUint64(e[:], epoch)
	binary.BigEndian.PutUint32(n[:], i)
	return slot("vd.k", e[:], n[:])
}

// CommitteeHeader is the registered committee's header.
type CommitteeHeader struct {
	Present   bool
	Epoch     uint64
	Threshold uint32
	Size      uint32
}

func decodeHeader(w Hash) CommitteeHeader {
	return CommitteeHeader{
		Present:   w[0] == 1,
		Epoch:     binary.BigEndian.Uint64(w[8:16]),
		Threshold: binary.BigEndian.Uint32(w[16:20]),
		Size:      binary.BigEndian.Uint32(w[20:24]),
	}
}

func (h CommitteeHeader) encode() Hash {
	var w Hash
	w[0] = 1
	binary.BigEndian.PutUint64(w[8:16], h.Epoch)
	binary.BigEndian.PutUint32(w[16:20], h.Threshold)
	binary.BigEndian.PutUint32(w[20:24], h.Size)
	return w
}

type reader func(Hash) Hash

func loadMemberRaw(get reader, epoch uint64, i uint32) []byte {
	base := memberKeySlot(epoch, i)
	out := make([]byte, 0, bls.PublicKeyRawLen)
	for j := uint64(0); j < 3; j++ {
		w := get(addOffset(base, j))
		out = append(out, w[:]...)
	}
	return out
}

// CommitteeConfig is a committee to install (genesis or setCommittee).
type CommitteeConfig struct {
	Epoch     uint64
	Threshold uint32
	PubKeys   [][]byte // 48-byte compressed (or 96-byte uncompressed) BLS public keys, member order
	PoPs      [][]byte // proofs of possession, one per key
}

// validate checks sizes, keys, PoPs and duplicates; returns the raw keys.
func (cc CommitteeConfig) validate() ([][]byte, error) {
	n := len(cc.PubKeys)
	if n == 0 || n > MaxCommitteeSize {
		return nil, fmt.Errorf("committee size %d outside [1,%d]", n, MaxCommitteeSize)
	}
	if len(cc.PoPs) != n {
		return nil, fmt.Errorf("%d proofs of possession for %d keys", len(cc.PoPs), n)
	}
	if cc.Epoch == math.MaxUint64 {
		return nil, fmt.Errorf("epoch %d leaves no successor", cc.Epoch)
	}
	if cc.Threshold == 0 || int(cc.Threshold) > n {
		return nil, fmt.Errorf("threshold %d outside [1,%d]", cc.Threshold, n)
	}
	raws := make([][]byte, n)
	seen := make(map[string]int, n) // membership only; never iterated
	for i, b := range cc.PubKeys {
		pk, err := bls.ParsePublicKey(b)
		if err != nil {
			return nil, fmt.Errorf("member %d: %w", i, err)
		}
		if err := bls.PopVerify(b, cc.PoPs[i]); err != nil {
			return nil, fmt.Errorf("member %d: %w", i, err)
		}
		raw := pk.Raw()
		if j, dup := seen[string(raw)]; dup {
			return nil, fmt.Errorf("member %d duplicates member %d", i, j)
		}
		seen[string(raw)] = i
		raws[i] = raw
	}
	return raws, nil
}

// StateStore is persistent storage at one address (used at genesis activation).
type StateStore interface {
	GetState(key Hash) Hash
	SetState(key, value Hash)
}

// ConfigureVerdict installs the genesis committee and governance address into
// FHEVerdict's storage. The host adapter calls it from its configurator.
func ConfigureVerdict(st StateStore, governance Address, cc *CommitteeConfig) error {
	st.SetState(keyGovernance, addrWord(governance))
	if cc == nil {
		return nil
	}
	raws, err := cc.validate()
	if err != nil {
		return err
	}
	writeCommittee(st.SetState, cc.Epoch, cc.Threshold, raws)
	return nil
}

func writeCommittee(set func(Hash, Hash), epoch uint64, threshold uint32, raws [][]byte) {
	for i, raw := range raws {
		base := memberKeySlot(epoch, uint32(i))
		for j := 0; j < 3; j++ {
			set(addOffset(base, uint64(j)), Hash(raw[32*j:32*j+32]))
		}
	}
	set(keyCommittee, CommitteeHeader{Epoch: epoch, Threshold: threshold, Size: uint32(len(raws))}.encode())
}

// verifyCommitteeSig charges for and checks an aggregate signature by the
// current committee over digest, with a quorum check. get reads FHEVerdict's
// storage. Its reverts start with what ("FHEVerdict.submit", "…: attestation");
// running out of gas is returned as is.
func verifyCommitteeSig(c *call, what string, get reader, digestFor func(epoch uint64) [32]byte, sig, signers []byte) (CommitteeHeader, int, error) {
	h := decodeHeader(get(keyCommittee))
	if !h.Present || h.Size == 0 {
		return h, 0, revertf("%s: no committee registered", what)
	}
	if err := c.charge(GasBLSVerify + GasBLSPerMember*uint64(h.Size)); err != nil {
		return h, 0, err
	}
	if len(sig) != bls.SignatureLen {
		return h, 0, revertf("%s: signature must be %d bytes, got %d", what, bls.SignatureLen, len(sig))
	}
	idx, err := bls.Signers(int(h.Size), signers)
	if err != nil {
		return h, 0, revertf("%s: signer bitmap must be %d bytes with no bits beyond member %d", what, bls.BitmapLen(int(h.Size)), h.Size-1)
	}
	if len(idx) < int(h.Threshold) {
		return h, 0, revertf("%s: under quorum: %d signers, threshold %d of %d (epoch %d)", what, len(idx), h.Threshold, h.Size, h.Epoch)
	}
	keys := make([]*bls.PublicKey, h.Size)
	for _, i := range idx {
		pk, err := bls.PublicKeyFromTrustedRaw(loadMemberRaw(get, h.Epoch, uint32(i)))
		if err != nil {
			return h, 0, revertf("%s: committee key %d unreadable", what, i)
		}
		keys[i] = pk
	}
	d := digestFor(h.Epoch)
	cm := bls.Committee{Keys: keys}
	n, err := cm.VerifyAggregate(signers, d[:], sig)
	if err != nil {
		return h, 0, revertf("%s: aggregate signature does not verify for committee epoch %d", what, h.Epoch)
	}
	return h, n, nil
}

func chainIDWord(id *big.Int) *big.Int {
	if id == nil {
		return new(big.Int)
	}
	return id
}
