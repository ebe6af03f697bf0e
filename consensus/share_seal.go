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
// Stores written before hold the share in plain; loadKeys still reads them,
// warns, and re-seals the record in place. (bbolt reuses freed pages but
// does not wipe them: copy the store with `bbolt compact` to drop the old
// plaintext page.)

// sealedShareMagic starts a sealed share record (version 1).
var sealedShareMagic = []byte("fhegate-sealed-share/v1\x00")

func (m *Member) shareKey() ([]byte, error) {
	sk := m.cfg.BLSKey.Bytes()
	defer clear(sk)
	return hkdf.Key(sha256.New, sk, []byte("fhegate/store/threshold-key-share"), "xchacha20poly1305 key v1", chacha20poly1305.KeySize)
}

func (m *Member) shareAD() []byte {
	ad := append([]byte(nil), sealedShareMagic...)
	ad = binary.BigEndian.AppendUint64(ad, m.cfg.Committee.Epoch)
	return binary.BigEndian.AppendUint32(ad, m.cfg.Self)
}

// shareAEAD is the XChaCha20-Poly1305 instance under the share key (the
// key bytes are cleared once the cipher holds its own copy).
func (m *Member) shareAEAD() (cipher.AEAD, error) {
	key, err := m.shareKey()
	if err != nil {
		return nil, err
	}
	defer clear(key)
	return chacha20poly1305.NewX(key)
}

// sealShare encrypts the marshalled threshold key share for the store.
func (m *Member) sealShare(plain []byte) ([]byte, error) {
	aead, err := m.shareAEAD()
	if err != nil {
		return nil, err
	}
	out := make([]byte, len(sealedShareMagic)+aead.NonceSize(), len(sealedShareMagic)+aead.NonceSize()+len(plain)+aead.Overhead())
	copy(out, sealedShareMagic)
	nonce := out[len(sealedShareMagic):]
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return aead.Seal(out, nonce, plain, m.shareAD()), nil
}

// shareSealed reports whether a stored share record is sealed.
func shareSealed(rec []byte) bool { return bytes.HasPrefix(rec, sealedShareMagic) }

// openShare decrypts a sealed share record.
func (m *Member) openShare(rec []byte) ([]byte, error) {
	aead, err := m.shareAEAD()
	if err != nil {
		return nil, err
	}
	body := rec[len(sealedShareMagic):]
	if len(body) < aead.NonceSize()+aead.Overhead() {
		return nil, errors.New("consensus: sealed threshold key share is truncated")
	}
	plain, err := aead.Open(nil, body[:aead.NonceSize()], body[aead.NonceSize():], m.shareAD())
	if err != nil {
		return nil, fmt.Errorf("consensus: cannot open the stored threshold key share (another member's or epoch's store, or a different BLS key): %w", err)
	}
	return plain, nil
}
