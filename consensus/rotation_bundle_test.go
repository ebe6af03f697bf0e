package consensus

import (
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/config"
	"github.com/fhegate/fhegate/fhe"
)

func bundleCommittee(t testing.TB, epoch uint64, n int) (*config.CommitteeConfig, []*bls.SecretKey) {
	cfg := &config.CommitteeConfig{Epoch: epoch}
	var sks []*bls.SecretKey
	for i := 1; i <= n; i++ {
		sk, err := bls.Keygen([]byte(fmt.Sprintf("re-encryption bundle test key %02d ....", i)))
		require.NoError(t, err)
		sks = append(sks, sk)
		cfg.Members = append(cfg.Members, config.MemberInfo{ID: uint32(i), BLSKey: hex.EncodeToString(sk.PublicKey())})
	}
	return cfg, sks
}

// TestReencryptBundleSigned: a new member takes a re-encryption bundle only
// if a member of the old committee signed it (its signer, not its file,
// is what the adoption quorum counts); a bundle from a non-member, with a
// forged or broken signature, altered after signing or of another epoch is
// refused.
func TestReencryptBundleSigned(t *testing.T) {
	t.Parallel()
	old, sks := bundleCommittee(t, 1, 3)
	target := [32]byte{7}
	rs := []Reencrypted{{Handle: fhe.Handle{1}, Ciphertext: []byte("ct one")}, {Handle: fhe.Handle{2}, Ciphertext: []byte("ct two")}}
	good := SignReencrypted(1, target, rs, 2, sks[1])

	signer, tg, got, err := VerifyReencrypted(good, old)
	require.NoError(t, err)
	require.Equal(t, uint32(2), signer)
	require.Equal(t, target, tg)
	require.Equal(t, rs, got)

	_, otherSks := bundleCommittee(t, 1, 4) // member 4 of a larger committee: not one of the three
	for _, tc := range []struct {
		name   string
		bundle []byte
		msg    string
	}{
		{"signed by a non-member", SignReencrypted(1, target, rs, 4, otherSks[3]), "not in the epoch-1 committee"},
		{"member 1 claimed, member 2's key", SignReencrypted(1, target, rs, 1, sks[1]), "member 1"},
		{"altered after signing", func() []byte {
			b := append([]byte(nil), good...)
			b[len(b)-bls.SignatureLen-1] ^= 1
			return b
		}(), "not signed"},
		{"signer changed after signing", func() []byte {
			b := append([]byte(nil), good...)
			b[len(signedReencryptedMagic)+3] = 3
			return b
		}(), "member 3"},
		{"broken signature", append(append([]byte(nil), good[:len(good)-bls.SignatureLen]...), make([]byte, bls.SignatureLen)...), "not signed"},
		{"another epoch's inputs", SignReencrypted(2, target, rs, 2, sks[1]), "epoch 2"},
		{"truncated", good[:20], "malformed"},
		{"unsigned (v1) bundle", MarshalReencrypted(1, target, rs), "malformed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, _, err := VerifyReencrypted(tc.bundle, old)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}

// FuzzVerifyReencrypted: the signed-bundle decoder never panics and accepts
// nothing that a member of the committee did not sign.
func FuzzVerifyReencrypted(f *testing.F) {
	old, sks := bundleCommittee(f, 1, 3)
	rs := []Reencrypted{{Handle: fhe.Handle{1}, Ciphertext: []byte("ct")}}
	good := SignReencrypted(1, [32]byte{7}, rs, 1, sks[0])
	f.Add(good)
	f.Add(good[:30])
	f.Add([]byte("FHEGRE2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		signer, _, _, err := VerifyReencrypted(b, old)
		if err == nil {
			require.Equal(t, good, b, "only the signed bundle verifies (signer %d)", signer)
		}
	})
}
