package config

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"filippo.io/age"
	"filippo.io/age/armor"

	"github.com/fhegate/fhegate/bls"
)

// Member secrets at rest.
//
// A member's secrets file (secrets.json: its TLS identity seed and BLS
// secret key) is an age file (https://age-encryption.org/v1, ASCII-armored)
// encrypted either to a passphrase (age's scrypt recipient: a memory-hard
// KDF) or to an X25519 identity kept in a key file. The file is mode 0600 in
// a 0700 directory, and LoadMemberSecrets refuses a file its group or others
// may read. The member's threshold key share in its store is sealed under a
// key derived from the member's BLS secret (consensus, share_seal.go), so it is protected
// by the same passphrase or key file.
//
// Secrets files written before (plain JSON) still load, with a warning; the
// in-process committees (consensus/local, the devnet) keep writing plain JSON:
// they are development tools whose every member lives in one directory of
// one machine anyway.

// DefaultScryptWorkFactor is log2 of the scrypt cost of passphrase-encrypted
// secrets (age's default: N = 2^18, r = 8, about 256 MiB and a second).
const DefaultScryptWorkFactor = 18

// SecretsKey unlocks (and encrypts) a member's secrets file: a passphrase,
// or an age X25519 identity file. Neither ever comes from the command line:
// the CLI reads the passphrase from FHEGATE_KEY_PASSPHRASE and the identity
// from --key-file.
type SecretsKey struct {
	Passphrase string
	KeyFile    string
	// WorkFactor is log2 of the scrypt cost when encrypting to a passphrase
	// (0: DefaultScryptWorkFactor). Decryption reads it from the file.
	WorkFactor int
}

// IsZero reports whether neither a passphrase nor a key file is set.
func (k SecretsKey) IsZero() bool { return k.Passphrase == "" && k.KeyFile == "" }

// Errors of the secrets files.
var (
	ErrSecretsLocked   = errors.New("consensus: the secrets file is encrypted: set FHEGATE_KEY_PASSPHRASE or pass --key-file")
	ErrWrongSecretsKey = errors.New("consensus: cannot decrypt the secrets file: wrong passphrase (FHEGATE_KEY_PASSPHRASE) or key file (--key-file)")
	ErrNoSecretsKey    = errors.New("consensus: no passphrase or key file: member secrets are never written unencrypted (SaveMemberSecretsPlaintext is for development)")
	ErrSecretsExposed  = errors.New("consensus: the secrets file is readable by its group or others")
)

// SecretsEncrypted reports whether b is an encrypted secrets file (as
// opposed to the plain JSON of older versions and development committees).
func SecretsEncrypted(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return bytes.HasPrefix(b, []byte(armor.Header)) || bytes.HasPrefix(b, []byte("age-encryption.org/"))
}

// checkPrivateFile refuses a secrets or key file that is not a regular file
// or that its group or others may access.
func checkPrivateFile(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("consensus: %s is not a regular file", path)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%w: %s has mode %04o; chmod 600 %s", ErrSecretsExposed, path, perm, path)
	}
	return nil
}

// GenerateKeyFile writes a new age X25519 identity to path (0600, the
// directory 0700) and returns it. It refuses to overwrite an existing file.
func GenerateKeyFile(path string) (*age.X25519Identity, error) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	_, werr := fmt.Fprintf(f, "# fhegate member key file (age X25519 identity); public key: %s\n%s\n", id.Recipient(), id)
	if err := errors.Join(werr, f.Close()); err != nil {
		return nil, err
	}
	return id, nil
}

func loadKeyFile(path string) ([]age.Identity, error) {
	if err := checkPrivateFile(path); err != nil {
		return nil, fmt.Errorf("--key-file: %w", err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--key-file: %w", err)
	}
	defer f.Close()
	ids, err := age.ParseIdentities(f)
	if err != nil {
		// ParseIdentities' errors do not quote key material.
		return nil, fmt.Errorf("--key-file %s: %w", path, err)
	}
	return ids, nil
}

func (k SecretsKey) recipient() (age.Recipient, error) {
	if k.Passphrase != "" && k.KeyFile != "" {
		return nil, errors.New("consensus: give a passphrase or a key file, not both")
	}
	if k.Passphrase != "" {
		r, err := age.NewScryptRecipient(k.Passphrase)
		if err != nil {
			return nil, err
		}
		wf := k.WorkFactor
		if wf == 0 {
			wf = DefaultScryptWorkFactor
		}
		r.SetWorkFactor(wf)
		return r, nil
	}
	if k.KeyFile == "" {
		return nil, ErrSecretsLocked
	}
	ids, err := loadKeyFile(k.KeyFile)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if x, ok := id.(*age.X25519Identity); ok {
			return x.Recipient(), nil
		}
	}
	return nil, fmt.Errorf("--key-file %s: no X25519 identity in it", k.KeyFile)
}

func (k SecretsKey) identities() ([]age.Identity, error) {
	var ids []age.Identity
	if k.Passphrase != "" {
		id, err := age.NewScryptIdentity(k.Passphrase)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	if k.KeyFile != "" {
		kf, err := loadKeyFile(k.KeyFile)
		if err != nil {
			return nil, err
		}
		ids = append(ids, kf...)
	}
	if len(ids) == 0 {
		return nil, ErrSecretsLocked
	}
	return ids, nil
}

// EncryptSecrets returns s as an armored age file encrypted to k.
func EncryptSecrets(s *MemberSecrets, k SecretsKey) ([]byte, error) {
	r, err := k.recipient()
	if err != nil {
		return nil, err
	}
	plain, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	defer clear(plain)
	var buf bytes.Buffer
	aw := armor.NewWriter(&buf)
	w, err := age.Encrypt(aw, r)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(plain); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	if err := aw.Close(); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// DecryptSecrets opens an encrypted secrets file's bytes with k.
func DecryptSecrets(b []byte, k SecretsKey) (*MemberSecrets, error) {
	ids, err := k.identities()
	if err != nil {
		return nil, err
	}
	b = bytes.TrimLeft(b, " \t\r\n")
	var src io.Reader = bytes.NewReader(b)
	if bytes.HasPrefix(b, []byte(armor.Header)) {
		src = armor.NewReader(src)
	} // else a binary age file (e.g. re-encrypted with the age CLI)
	r, err := age.Decrypt(src, ids...)
	if err != nil {
		var nm *age.NoIdentityMatchError
		if errors.As(err, &nm) || errors.Is(err, age.ErrIncorrectIdentity) {
			return nil, ErrWrongSecretsKey
		}
		return nil, fmt.Errorf("consensus: secrets file: %w", err)
	}
	plain, err := io.ReadAll(io.LimitReader(r, 1<<16))
	if err != nil {
		return nil, fmt.Errorf("consensus: secrets file: %w", err)
	}
	defer clear(plain)
	var s MemberSecrets
	if err := json.Unmarshal(plain, &s); err != nil {
		return nil, errors.New("consensus: secrets file: decrypted content is not member secrets")
	}
	return &s, nil
}

// SaveMemberSecrets writes s to path encrypted to k (mode 0600; the
// directory is created 0700). A zero k is refused: use
// SaveMemberSecretsPlaintext for development committees.
func SaveMemberSecrets(path string, s *MemberSecrets, k SecretsKey) error {
	if k.IsZero() {
		return ErrNoSecretsKey
	}
	b, err := EncryptSecrets(s, k)
	if err != nil {
		return err
	}
	return writePrivate(path, b)
}

// SaveMemberSecretsPlaintext writes s as plain JSON (mode 0600, directory
// 0700): development only (fhegate committee init without a passphrase or
// key file, in-process committees).
func SaveMemberSecretsPlaintext(path string, s *MemberSecrets) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return writePrivate(path, append(b, '\n'))
}

func writePrivate(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	// A new file gets 0600; an existing one is truncated and tightened.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	_, werr := f.Write(b)
	return errors.Join(werr, f.Close())
}

// LoadMemberSecrets reads a member's secrets file: encrypted (k opens it)
// or, from older versions and development committees, plain JSON, for which
// warn (if set) is told that the secrets are stored unencrypted. A file that
// its group or others may read is refused.
func LoadMemberSecrets(path string, k SecretsKey, warn func(msg string)) (*MemberSecrets, error) {
	if err := checkPrivateFile(path); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	defer clear(b)
	if SecretsEncrypted(b) {
		s, err := DecryptSecrets(b, k)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return s, nil
	}
	var s MemberSecrets
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: neither an encrypted secrets file nor plain JSON secrets", path)
	}
	if warn != nil {
		warn(fmt.Sprintf("%s holds this member's keys UNENCRYPTED (written by an older version or by `committee init` "+
			"without a passphrase): re-create it with `fhegate committee keygen` (FHEGATE_KEY_PASSPHRASE or --key-file)", path))
	}
	return &s, nil
}

// GenerateMemberSecrets creates one member's secrets (TLS identity seed, BLS
// key) and its public part for the committee config, on the member's own
// machine (fhegate committee keygen). addr is its transport address.
func GenerateMemberSecrets(id uint32, addr string) (*MemberSecrets, MemberInfo, error) {
	if id < 1 {
		return nil, MemberInfo{}, errors.New("consensus: member ids start at 1")
	}
	var seed, bseed [32]byte
	if _, err := rand.Read(seed[:]); err != nil {
		return nil, MemberInfo{}, err
	}
	if _, err := rand.Read(bseed[:]); err != nil {
		return nil, MemberInfo{}, err
	}
	defer clear(bseed[:])
	tk := ed25519.NewKeyFromSeed(seed[:])
	bk, err := bls.Keygen(bseed[:])
	if err != nil {
		return nil, MemberInfo{}, err
	}
	info := MemberInfo{ID: id, Addr: addr,
		TLSKey: hex.EncodeToString(tk.Public().(ed25519.PublicKey)),
		BLSKey: hex.EncodeToString(bk.PublicKey()), BLSPoP: hex.EncodeToString(bk.ProvePossession())}
	sec := &MemberSecrets{ID: id, TLSKey: hex.EncodeToString(seed[:]), BLSKey: hex.EncodeToString(bk.Bytes())}
	clear(seed[:])
	return sec, info, nil
}

// Public returns the public part of s (for the committee config), with addr
// as its transport address.
func (s *MemberSecrets) Public(addr string) (MemberInfo, error) {
	tk, err := s.TLSPrivateKey()
	if err != nil {
		return MemberInfo{}, err
	}
	bk, err := s.BLSSecretKey()
	if err != nil {
		return MemberInfo{}, err
	}
	return MemberInfo{ID: s.ID, Addr: addr, TLSKey: hex.EncodeToString(tk.Public().(ed25519.PublicKey)),
		BLSKey: hex.EncodeToString(bk.PublicKey()), BLSPoP: hex.EncodeToString(bk.ProvePossession())}, nil
}

// AssembleCommittee builds a committee config from the members' public parts
// only (fhegate committee assemble): members must be given in id order
// 1..n, every BLS proof of possession must verify, and no TLS or BLS key
// (nor address) may appear twice.
func AssembleCommittee(chainID string, epoch uint64, preset string, t int, rotations []int, members []MemberInfo) (*CommitteeConfig, error) {
	tls, blsKeys, addrs := map[string]uint32{}, map[string]uint32{}, map[string]uint32{}
	for i, m := range members {
		if m.ID != uint32(i+1) {
			return nil, fmt.Errorf("consensus: public part %d is member %d: give members 1..n in order, each once", i+1, m.ID)
		}
		if strings.TrimSpace(m.Addr) == "" {
			return nil, fmt.Errorf("consensus: member %d has no address", m.ID)
		}
		if err := m.verifyBLS(); err != nil {
			return nil, err
		}
		tk, bk, ad := strings.ToLower(m.TLSKey), strings.ToLower(m.BLSKey), strings.ToLower(m.Addr)
		if o, dup := tls[tk]; dup {
			return nil, fmt.Errorf("consensus: members %d and %d have the same TLS key", o, m.ID)
		}
		if o, dup := blsKeys[bk]; dup {
			return nil, fmt.Errorf("consensus: members %d and %d have the same BLS key", o, m.ID)
		}
		if o, dup := addrs[ad]; dup {
			return nil, fmt.Errorf("consensus: members %d and %d have the same address %s", o, m.ID, m.Addr)
		}
		tls[tk], blsKeys[bk], addrs[ad] = m.ID, m.ID, m.ID
	}
	cfg := &CommitteeConfig{ChainID: chainID, Epoch: epoch, Preset: preset, Threshold: t, Rotations: rotations,
		Members: append([]MemberInfo(nil), members...)}
	if _, err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}
