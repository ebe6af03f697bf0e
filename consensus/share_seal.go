package consensus

import (
	"bytes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"

	"github.com/fhegate/fhegate/bls"
)

// The threshold key share at rest.
//
// The member's share of the committee's secret key (the store's
// "epoch/<e>/tsk" record) is sealed with XChaCha20-Poly1305 under a key
// derived (HKDF-SHA256) from the member's BLS secret key, which itself lives
// only in the member's secrets file, encrypted under its passphrase or key
// file (secrets.go). So the bbolt file alone — a backup, a copied disk —
// does not reveal the share. The record is bound to its epoch and member
// (the associated data), so records cannot be swapped between them.
//
// Stores written before hold the share in plain; keyStore.load still reads them,
// warns, and re-seals the record in place. (bbolt reuses freed pages but
// does not wipe them: copy the store with `bbolt compact` to drop the old
// plaintext page.)

// sealedShareMagic starts a sealed share record (version 1).
var sealedShareMagic = []byte("fhegate-sealed-share/v1\x00")

// shareSeal seals and opens one member's threshold key share record: the
// key comes from its BLS secret key, the associated data names its epoch and
// member.
type shareSeal struct {
	blsKey *bls.SecretKey
	epoch  uint64
	self   uint32
}

// shareSealOf is the seal of a member's share record for its configured
// epoch.
func shareSealOf(cfg MemberConfig) shareSeal {
	return shareSeal{blsKey: cfg.BLSKey, epoch: cfg.Committee.Epoch, self: cfg.Self}
}

func (s shareSeal) ad() []byte {
	ad := append([]byte(nil), sealedShareMagic...)
	ad = binary.BigEndian.AppendUint64(ad, s.epoch)
	return binary.BigEndian.AppendUint32(ad, s.self)
}

// aead is the XChaCha20-Poly1305 instance under the share key, derived
// with HKDF-SHA256 from the BLS secret key; the key bytes (and the copy of
// the BLS key) are cleared once the cipher holds its own copy.
func (s shareSeal) aead() (cipher.AEAD, error) {
	sk := s.blsKey.Bytes()
	defer clear(sk)
	key, err := hkdf.Key(sha256.New, sk, []byte("fhegate/store/threshold-key-share"), "xchacha20poly1305 key v1", chacha20poly1305.KeySize)
	if err != nil {
		return nil, err
	}
	defer clear(key)
	return chacha20poly1305.NewX(key)
}

// seal encrypts the marshalled threshold key share for the store.
func (s shareSeal) seal(plain []byte) ([]byte, error) {
	aead, err := s.aead()
	if err != nil {
		return nil, err
	}
	out := make([]byte, len(sealedShareMagic)+aead.NonceSize(), len(sealedShareMagic)+aead.NonceSize()+len(plain)+aead.Overhead())
	copy(out, sealedShareMagic)
	nonce := out[len(sealedShareMagic):]
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return aead.Seal(out, nonce, plain, s.ad()), nil
}

// shareSealed reports whether a stored share record is sealed.
func shareSealed(rec []byte) bool { return bytes.HasPrefix(rec, sealedShareMagic) }

// open decrypts a sealed share record.
func (s shareSeal) open(rec []byte) ([]byte, error) {
	aead, err := s.aead()
	if err != nil {
		return nil, err
	}
	body := rec[len(sealedShareMagic):]
	if len(body) < aead.NonceSize()+aead.Overhead() {
		return nil, errors.New("consensus: sealed threshold key share is truncated")
	}
	plain, err := aead.Open(nil, body[:aead.NonceSize()], body[aead.NonceSize():], s.ad())
	if err != nil {
		return nil, fmt.Errorf("consensus: cannot open the stored threshold key share (another member's or epoch's store, or a different BLS key): %w", err)
	}
	return plain, nil
}
