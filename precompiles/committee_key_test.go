package precompiles

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/bls"
)

// keySig signs bls.CommitteeKeyDigest(epoch, pkd) with members idx of keys.
func (w *world) keySig(pkd Hash, keys []*bls.SecretKey, epoch uint64, idx ...int) ([]byte, []byte) {
	return aggSign(w.t, keys, bls.CommitteeKeyDigest(w.chainID, epoch, pkd), idx...)
}

// TestSetCommitteeKey. Attack: t−1 corrupt members of the old committee
// want the stored inputs re-encrypted to a key they hold. The chain records
// one FHE public-key digest per epoch, and only under a quorum signature of
// that epoch's registered committee: an under-quorum aggregate, signatures
// by non-members (another committee's keys), a signature over another
// digest, epoch or chain, a zero digest, another epoch than the registered
// one and a second call for the same epoch are all refused, leaving state
// untouched.
func TestSetCommitteeKey(t *testing.T) {
	pkd := Keccak256([]byte("new committee public key"))
	other := Keccak256([]byte("a key the coalition holds"))
	outsiders := committeeKeys(t, "outsiders", 4)
	tests := []struct {
		name  string
		epoch uint64
		pkd   Hash
		sign  func(w *world) ([]byte, []byte)
		want  string
	}{
		{"under quorum", 1, pkd, func(w *world) ([]byte, []byte) { return w.keySig(pkd, w.com, 1, 0, 1) }, "under quorum: 2 signers, threshold 3"},
		{"non-members", 1, pkd, func(w *world) ([]byte, []byte) { return w.keySig(pkd, outsiders, 1, 0, 1, 2) }, "does not verify"},
		{"other digest signed", 1, pkd, func(w *world) ([]byte, []byte) { return w.keySig(other, w.com, 1, 0, 1, 2) }, "does not verify"},
		{"other epoch signed", 1, pkd, func(w *world) ([]byte, []byte) { return w.keySig(pkd, w.com, 2, 0, 1, 2) }, "does not verify"},
		{"unregistered epoch", 2, pkd, func(w *world) ([]byte, []byte) { return w.keySig(pkd, w.com, 2, 0, 1, 2) }, "is not the registered committee's epoch 1"},
		{"zero digest", 1, Hash{}, func(w *world) ([]byte, []byte) { return w.keySig(Hash{}, w.com, 1, 0, 1, 2) }, "must not be zero"},
		{"short signature", 1, pkd, func(w *world) ([]byte, []byte) { s, b := w.keySig(pkd, w.com, 1, 0, 1, 2); return s[:95], b }, "signature must be 96 bytes"},
		{"bitmap beyond committee", 1, pkd, func(w *world) ([]byte, []byte) { s, _ := w.keySig(pkd, w.com, 1, 0, 1, 2); return s, []byte{0x17} }, "signer bitmap"},
	}
	base := newWorld(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := base.fork(t)
			sig, bm := tc.sign(w)
			w.mustFail(w.s.Verdict, w.carol, tc.want, "setCommitteeKey", tc.epoch, [32]byte(tc.pkd), sig, bm)
			require.Equal(t, [32]byte{}, w.must(w.s.Verdict, w.bob, "committeeKeyOf", tc.epoch)[0])
		})
	}

	t.Run("happy path, then replay", func(t *testing.T) {
		w := base.fork(t)
		require.Equal(t, [32]byte{}, w.must(w.s.Verdict, w.bob, "committeeKeyOf", uint64(1))[0])
		sig, bm := w.keySig(pkd, w.com, 1, 0, 2, 3)
		w.must(w.s.Verdict, w.carol, "setCommitteeKey", uint64(1), [32]byte(pkd), sig, bm)
		require.Equal(t, [32]byte(pkd), w.must(w.s.Verdict, w.bob, "committeeKeyOf", uint64(1))[0])
		// replay, and a second key for the same epoch even under a full quorum
		w.mustFail(w.s.Verdict, w.carol, "already recorded", "setCommitteeKey", uint64(1), [32]byte(pkd), sig, bm)
		sig2, bm2 := w.keySig(other, w.com, 1, 0, 1, 2, 3)
		w.mustFail(w.s.Verdict, w.carol, "already recorded", "setCommitteeKey", uint64(1), [32]byte(other), sig2, bm2)

		// the next committee records its own key for its epoch; epoch 1's stays
		next := committeeKeys(t, "next", 5)
		cc := committeeConfig(next, 2, 3)
		w.must(w.s.Verdict, w.gov, "setCommittee", uint64(2), uint32(3), cc.PubKeys, cc.PoPs)
		// the old committee can no longer sign for the new epoch
		sig, bm = w.keySig(other, w.com, 2, 0, 1, 2)
		w.mustFail(w.s.Verdict, w.carol, "does not verify", "setCommitteeKey", uint64(2), [32]byte(other), sig, bm)
		sig, bm = w.keySig(other, next, 2, 1, 3, 4)
		w.must(w.s.Verdict, w.carol, "setCommitteeKey", uint64(2), [32]byte(other), sig, bm)
		require.Equal(t, [32]byte(other), w.must(w.s.Verdict, w.bob, "committeeKeyOf", uint64(2))[0])
		require.Equal(t, [32]byte(pkd), w.must(w.s.Verdict, w.bob, "committeeKeyOf", uint64(1))[0])
	})
}
