package consensus

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/config"
	keccakpkg "github.com/fhegate/fhegate/internal/keccak"
)

// Signed re-encryption bundles (`fhegate committee rotate`): an old member
// signs the bundle it hands to the new committee with its BLS key, and a
// new member counts the bundles by signer — a member of the old
// committee's committee.json whose signature verifies — not by file.
//
//	magic "FHEGRE2\n" ‖ signer (4) ‖ MarshalReencrypted's body (source
//	epoch ‖ target digest ‖ count ‖ inputs) ‖ BLS signature (96) over
//	keccak256("fhegate/reencrypt-bundle/v2" ‖ everything before it)

var signedReencryptedMagic = []byte("FHEGRE2\n")

// ErrBundleSignature is returned for a bundle whose signer is not a member
// of the old committee or whose signature does not verify.
var ErrBundleSignature = errors.New("consensus: re-encryption bundle not signed by a member of the old committee")

func bundleDigest(signed []byte) [32]byte {
	return keccakpkg.Sum([]byte("fhegate/reencrypt-bundle/v2"), signed)
}

// SignReencrypted encodes rs as a bundle signed by old member signer.
func SignReencrypted(fromEpoch uint64, target [32]byte, rs []Reencrypted, signer uint32, sk *bls.SecretKey) []byte {
	body := MarshalReencrypted(fromEpoch, target, rs)[len(reencryptedMagic):]
	b := append([]byte(nil), signedReencryptedMagic...)
	b = binary.BigEndian.AppendUint32(b, signer)
	b = append(b, body...)
	d := bundleDigest(b)
	return append(b, sk.Sign(d[:])...)
}

// ReencryptBundle is this member's signed bundle of rs, re-encrypted from
// its epoch to the key with digest target.
func (m *Member) ReencryptBundle(target [32]byte, rs []Reencrypted) ([]byte, error) {
	if m.cfg.BLSKey == nil {
		return nil, errors.New("consensus: no BLS key to sign the re-encryption bundle")
	}
	return SignReencrypted(m.Epoch(), target, rs, uint32(m.id), m.cfg.BLSKey), nil
}

// VerifyReencrypted decodes a signed bundle and checks it against old, the
// old committee's configuration: the signer is one of its members, the
// signature verifies under that member's BLS key, and the inputs are of
// its epoch.
func VerifyReencrypted(b []byte, old *config.CommitteeConfig) (signer uint32, target [32]byte, rs []Reencrypted, err error) {
	hl := len(signedReencryptedMagic) + 4
	if len(b) < hl+bls.SignatureLen || !bytes.Equal(b[:len(signedReencryptedMagic)], signedReencryptedMagic) {
		return 0, target, nil, errors.New("consensus: malformed signed re-encryption bundle")
	}
	signed, sig := b[:len(b)-bls.SignatureLen], b[len(b)-bls.SignatureLen:]
	signer = binary.BigEndian.Uint32(b[len(signedReencryptedMagic):])
	var key []byte
	for _, mi := range old.Members {
		if mi.ID == signer {
			if key, err = hex.DecodeString(mi.BLSKey); err != nil {
				return 0, target, nil, err
			}
		}
	}
	if key == nil {
		return 0, target, nil, fmt.Errorf("%w: member %d is not in the epoch-%d committee", ErrBundleSignature, signer, old.Epoch)
	}
	d := bundleDigest(signed)
	if err := bls.Verify(key, d[:], sig); err != nil {
		return 0, target, nil, fmt.Errorf("%w: member %d: %v", ErrBundleSignature, signer, err)
	}
	fromEpoch, target, rs, err := UnmarshalReencrypted(append(append([]byte(nil), reencryptedMagic...), signed[hl:]...))
	if err != nil {
		return 0, target, nil, err
	}
	if fromEpoch != old.Epoch {
		return 0, target, nil, fmt.Errorf("consensus: bundle of member %d holds inputs of epoch %d, the old committee is epoch %d", signer, fromEpoch, old.Epoch)
	}
	return signer, target, rs, nil
}
