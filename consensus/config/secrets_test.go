package config

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filippo.io/age"
	"github.com/stretchr/testify/require"

	_ "github.com/fhegate/fhegate/fhe/fhetest" // registers the insecure test presets
)

// TestSecretsAtRest: a member's secrets file is encrypted to a passphrase
// (scrypt) or an age key file, is 0600 in a 0700 directory, fails clearly
// with a wrong or missing passphrase, is refused when its group or others
// may read it; plain JSON secrets of older versions still load, with a
// warning.
func TestSecretsAtRest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sec, pub, err := GenerateMemberSecrets(2, "127.0.0.1:9702")
	require.NoError(t, err)
	again, err := sec.Public(pub.Addr)
	require.NoError(t, err)
	require.Equal(t, pub, again)

	pass := SecretsKey{Passphrase: "correct horse battery staple", WorkFactor: 10}
	p := filepath.Join(dir, "member-2", "secrets.json")
	require.NoError(t, SaveMemberSecrets(p, sec, pass))
	fi, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	di, err := os.Stat(filepath.Dir(p))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), di.Mode().Perm())
	raw, err := os.ReadFile(p)
	require.NoError(t, err)
	require.True(t, SecretsEncrypted(raw))
	for _, s := range []string{sec.BLSKey, sec.TLSKey, `"blsKey"`} {
		require.NotContains(t, string(raw), s)
	}

	got, err := LoadMemberSecrets(p, SecretsKey{Passphrase: pass.Passphrase}, nil)
	require.NoError(t, err)
	require.Equal(t, sec, got)

	_, err = LoadMemberSecrets(p, SecretsKey{Passphrase: "wrong"}, nil)
	require.ErrorIs(t, err, ErrWrongSecretsKey)
	require.ErrorContains(t, err, "wrong passphrase")
	_, err = LoadMemberSecrets(p, SecretsKey{}, nil)
	require.ErrorIs(t, err, ErrSecretsLocked)
	require.ErrorContains(t, err, "FHEGATE_KEY_PASSPHRASE")

	// Group/world-readable: refused, encrypted or not.
	for _, mode := range []os.FileMode{0o640, 0o604, 0o644} {
		require.NoError(t, os.Chmod(p, mode))
		_, err = LoadMemberSecrets(p, SecretsKey{Passphrase: pass.Passphrase}, nil)
		require.ErrorIs(t, err, ErrSecretsExposed, "mode %o", mode)
	}
	require.NoError(t, os.Chmod(p, 0o600))

	// A key file (age X25519 identity), created 0600; another key file fails.
	kf := filepath.Join(dir, "keys", "member.key")
	_, err = GenerateKeyFile(kf)
	require.NoError(t, err)
	_, err = GenerateKeyFile(kf)
	require.Error(t, err, "never overwrites a key file")
	kfi, err := os.Stat(kf)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), kfi.Mode().Perm())
	p2 := filepath.Join(dir, "kf", "secrets.json")
	require.NoError(t, SaveMemberSecrets(p2, sec, SecretsKey{KeyFile: kf}))
	got, err = LoadMemberSecrets(p2, SecretsKey{KeyFile: kf}, nil)
	require.NoError(t, err)
	require.Equal(t, sec, got)
	other := filepath.Join(dir, "keys", "other.key")
	_, err = GenerateKeyFile(other)
	require.NoError(t, err)
	_, err = LoadMemberSecrets(p2, SecretsKey{KeyFile: other}, nil)
	require.ErrorIs(t, err, ErrWrongSecretsKey)
	_, err = LoadMemberSecrets(p2, SecretsKey{Passphrase: pass.Passphrase}, nil)
	require.ErrorIs(t, err, ErrWrongSecretsKey)
	require.NoError(t, os.Chmod(kf, 0o644))
	_, err = LoadMemberSecrets(p2, SecretsKey{KeyFile: kf}, nil)
	require.ErrorIs(t, err, ErrSecretsExposed)
	require.ErrorIs(t, SaveMemberSecrets(p2, sec, SecretsKey{}), ErrNoSecretsKey, "never writes unencrypted")
}

// TestPlaintextSecretsStillLoad: secrets.json as written by earlier versions
// (plain JSON by SaveJSON, 0600) loads, with a warning.
func TestPlaintextSecretsStillLoad(t *testing.T) {
	t.Parallel()
	sec, _, err := GenerateMemberSecrets(1, "127.0.0.1:1")
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "secrets.json")
	require.NoError(t, SaveJSON(p, sec, 0o600)) // the old writer
	var warned []string
	got, err := LoadMemberSecrets(p, SecretsKey{Passphrase: "unused"}, func(m string) { warned = append(warned, m) })
	require.NoError(t, err)
	require.Equal(t, sec, got)
	require.Len(t, warned, 1)
	require.Contains(t, warned[0], "UNENCRYPTED")
}

// TestAssembleCommittee: the config is built from public parts only; a bad
// proof of possession, a duplicate key or address, and ids out of order are
// refused.
func TestAssembleCommittee(t *testing.T) {
	t.Parallel()
	var pubs []MemberInfo
	for id := uint32(1); id <= 3; id++ {
		_, pub, err := GenerateMemberSecrets(id, fmt.Sprintf("10.0.0.%d:9700", id))
		require.NoError(t, err)
		pubs = append(pubs, pub)
	}
	assemble := func(ms []MemberInfo) error {
		_, err := AssembleCommittee("1337", 1, "InsecureBGVN10", 2, nil, ms)
		return err
	}
	cfg, err := AssembleCommittee("1337", 1, "InsecureBGVN10", 2, []int{1}, pubs)
	require.NoError(t, err)
	require.Equal(t, pubs, cfg.Members)
	require.Equal(t, big.NewInt(1337), cfg.ChainIDBig())

	mod := func(f func(ms []MemberInfo)) []MemberInfo {
		ms := append([]MemberInfo(nil), pubs...)
		f(ms)
		return ms
	}
	// Bad PoP: member 2 presents member 3's proof; or a flipped bit.
	require.ErrorContains(t, assemble(mod(func(ms []MemberInfo) { ms[1].BLSPoP = pubs[2].BLSPoP })), "proof of possession")
	require.ErrorContains(t, assemble(mod(func(ms []MemberInfo) {
		b, _ := hex.DecodeString(ms[1].BLSPoP)
		b[len(b)-1] ^= 1
		ms[1].BLSPoP = hex.EncodeToString(b)
	})), "member 2")
	// Duplicate BLS key (with its valid PoP), TLS key, address.
	require.ErrorContains(t, assemble(mod(func(ms []MemberInfo) { ms[2].BLSKey, ms[2].BLSPoP = pubs[0].BLSKey, pubs[0].BLSPoP })), "same BLS key")
	require.ErrorContains(t, assemble(mod(func(ms []MemberInfo) { ms[2].TLSKey = strings.ToUpper(pubs[1].TLSKey) })), "same TLS key")
	require.ErrorContains(t, assemble(mod(func(ms []MemberInfo) { ms[2].Addr = pubs[0].Addr })), "same address")
	// Out of order, duplicated or missing ids.
	require.ErrorContains(t, assemble([]MemberInfo{pubs[1], pubs[0], pubs[2]}), "in order")
	require.ErrorContains(t, assemble([]MemberInfo{pubs[0], pubs[0], pubs[2]}), "in order")
	require.ErrorContains(t, assemble([]MemberInfo{pubs[0], pubs[2]}), "in order")
	require.Error(t, assemble(nil))
}

// TestSecretsBinaryAge: a binary (unarmored) age file, e.g. re-encrypted by
// an operator with the age CLI, loads too.
func TestSecretsBinaryAge(t *testing.T) {
	t.Parallel()
	sec, _, err := GenerateMemberSecrets(1, "127.0.0.1:1")
	require.NoError(t, err)
	r, err := age.NewScryptRecipient("pw")
	require.NoError(t, err)
	r.SetWorkFactor(10)
	var buf bytes.Buffer
	w, err := age.Encrypt(&buf, r)
	require.NoError(t, err)
	require.NoError(t, json.NewEncoder(w).Encode(sec))
	require.NoError(t, w.Close())
	p := filepath.Join(t.TempDir(), "secrets.json")
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o600))
	got, err := LoadMemberSecrets(p, SecretsKey{Passphrase: "pw"}, nil)
	require.NoError(t, err)
	require.Equal(t, sec, got)
}
