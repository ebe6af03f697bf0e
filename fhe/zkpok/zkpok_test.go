package zkpok_test

import (
	"errors"
	"math"
	"math/big"
	"sync"
	"testing"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

type kit struct {
	p    *fhe.Params
	keys *fhe.KeySet
	key  *zkpok.Key
}

var (
	kitMu   sync.Mutex
	kitByID = map[fhe.PresetID]*kit{}
)

func getKit(t testing.TB, id fhe.PresetID) *kit {
	kitMu.Lock()
	defer kitMu.Unlock()
	if k := kitByID[id]; k != nil {
		return k
	}
	p, err := fhe.NewParams(id)
	if err != nil {
		t.Fatal(err)
	}
	keys := fhe.GenKeys(p, nil)
	key, err := zkpok.NewKey(keys.Public)
	if err != nil {
		t.Fatal(err)
	}
	k := &kit{p: p, keys: keys, key: key}
	kitByID[id] = k
	return k
}

var (
	victim   = zkpok.Context{ChainID: big.NewInt(43112), Epoch: 3, Owner: [20]byte{0xa1}}
	attacker = zkpok.Context{ChainID: big.NewInt(43112), Epoch: 3, Owner: [20]byte{0xbb}}
)

func encrypt(t testing.TB, k *kit, vals []int64, ctx zkpok.Context) (*fhe.Ciphertext, fhe.Handle, []byte) {
	ct, proof, err := k.key.EncryptInts(vals, ctx)
	if err != nil {
		t.Fatal(err)
	}
	h, err := ct.Handle()
	if err != nil {
		t.Fatal(err)
	}
	return ct, h, proof
}

// TestHonest: an honest proof verifies, the ciphertext decrypts to the input
// and round-trips through the canonical encoding.
func TestHonest(t *testing.T) {
	for _, id := range []fhe.PresetID{fhetest.InsecureBGVN10, fhe.BGVN13} {
		k := getKit(t, id)
		vals := []int64{7, -3, 65536, 32768, -32768, 0, 1}
		ct, h, proof := encrypt(t, k, vals, victim)
		if len(proof) != k.key.PP.Size() {
			t.Fatalf("proof %d bytes, want %d", len(proof), k.key.PP.Size())
		}
		b, _ := ct.MarshalBinary()
		ct2, err := fhe.UnmarshalCiphertext(b)
		if err != nil {
			t.Fatal(err)
		}
		if err := k.key.Verify(ct2, h, victim, proof); err != nil {
			t.Fatalf("%s: honest proof refused: %v", k.p.Preset.Name, err)
		}
		got, err := fhe.NewDecryptor(k.keys.Secret).DecryptInts(ct2)
		if err != nil {
			t.Fatal(err)
		}
		want := []int64{7, -3, -1, 32768, -32768, 0, 1}
		for i, w := range want {
			if got[i] != w {
				t.Fatalf("%s: slot %d = %d, want %d", k.p.Preset.Name, i, got[i], w)
			}
		}
		t.Logf("%s: r=%d (2^-%.1f knowledge error), logB=%v, proof %d bytes", k.p.Preset.Name, k.key.PP.Reps, k.key.PP.SoundnessBits, k.key.PP.LogB, len(proof))
	}
}

// TestAttackCopiedCiphertext — the copied-input attack, copy: the attacker
// uploads the victim's ciphertext bytes with itself as owner, reusing the
// victim's proof (replay) — refused, the owner is in the transcript.
func TestAttackCopiedCiphertext(t *testing.T) {
	k := getKit(t, fhetest.InsecureBGVN10)
	ct, h, proof := encrypt(t, k, []int64{42}, victim)
	if err := k.key.Verify(ct, h, attacker, proof); !errors.Is(err, zkpok.ErrInvalid) {
		t.Fatalf("copied ciphertext with the victim's proof under another owner: %v", err)
	}
	// Replayed under another chain id or epoch: refused too.
	for _, c := range []zkpok.Context{
		{ChainID: big.NewInt(1), Epoch: victim.Epoch, Owner: victim.Owner},
		{ChainID: victim.ChainID, Epoch: victim.Epoch + 1, Owner: victim.Owner},
	} {
		if err := k.key.Verify(ct, h, c, proof); !errors.Is(err, zkpok.ErrInvalid) {
			t.Fatalf("proof replayed in context %+v accepted: %v", c, err)
		}
	}
}

// TestAttackReplayedProof — the copied-input attack, replay: the attacker
// attaches the victim's proof to its own ciphertext, or its own valid proof
// (for another ciphertext) to the victim's — both refused: the ciphertext
// handle is in the transcript.
func TestAttackReplayedProof(t *testing.T) {
	k := getKit(t, fhetest.InsecureBGVN10)
	vct, vh, vproof := encrypt(t, k, []int64{42}, victim)
	act, ah, aproof := encrypt(t, k, []int64{1}, attacker)
	if err := k.key.Verify(act, ah, attacker, vproof); !errors.Is(err, zkpok.ErrInvalid) {
		t.Fatalf("victim's proof on the attacker's ciphertext: %v", err)
	}
	if err := k.key.Verify(vct, vh, attacker, aproof); !errors.Is(err, zkpok.ErrInvalid) {
		t.Fatalf("attacker's proof on the victim's ciphertext: %v", err)
	}
}

// TestAttackRerandomised — the copied-input attack, re-randomisation: the
// attacker adds a fresh encryption of 0 (whose proof it can make) to the
// victim's ciphertext; the sum is a new ciphertext with a new handle, but the
// attacker knows only part of its randomness: neither its own proof nor the
// victim's verifies for it.
func TestAttackRerandomised(t *testing.T) {
	k := getKit(t, fhetest.InsecureBGVN10)
	vct, _, vproof := encrypt(t, k, []int64{42}, victim)
	zct, _, zproof := encrypt(t, k, nil, attacker)
	ev, err := fhe.NewEvaluator(k.p, fhe.EvaluationKeys{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := ev.Add(vct, zct)
	if err != nil {
		t.Fatal(err)
	}
	sh, err := sum.Handle()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := fhe.NewDecryptor(k.keys.Secret).DecryptInts(sum)
	if got[0] != 42 {
		t.Fatalf("re-randomised ciphertext decrypts to %d", got[0])
	}
	for name, pr := range map[string][]byte{"victim's": vproof, "attacker's zero": zproof} {
		if err := k.key.Verify(sum, sh, attacker, pr); !errors.Is(err, zkpok.ErrInvalid) {
			t.Fatalf("re-randomised ciphertext with the %s proof accepted: %v", name, err)
		}
	}
}

// TestTamperedProof: flipping any part of the proof is refused, as is a
// proof for another key.
func TestTamperedProof(t *testing.T) {
	k := getKit(t, fhetest.InsecureBGVN10)
	ct, h, proof := encrypt(t, k, []int64{5}, victim)
	for _, off := range []int{0, 1, 2, 40, len(proof) / 2, len(proof) - 1} {
		bad := append([]byte(nil), proof...)
		bad[off] ^= 1
		if err := k.key.Verify(ct, h, victim, bad); !errors.Is(err, zkpok.ErrInvalid) {
			t.Fatalf("tampered byte %d accepted: %v", off, err)
		}
	}
	if err := k.key.Verify(ct, h, victim, proof[:len(proof)-1]); !errors.Is(err, zkpok.ErrInvalid) {
		t.Fatal("short proof accepted")
	}
	if err := k.key.Verify(ct, h, victim, append(proof, 0)); !errors.Is(err, zkpok.ErrInvalid) {
		t.Fatal("long proof accepted")
	}
	other, err := zkpok.NewKey(fhe.GenKeys(k.p, nil).Public)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Verify(ct, h, victim, proof); !errors.Is(err, zkpok.ErrInvalid) {
		t.Fatalf("proof under another key accepted: %v", err)
	}
	// A ciphertext from the plain (unproven) encryptor has no valid proof.
	plain, err := fhe.NewEncryptor(k.keys.Public).EncryptInts([]int64{5})
	if err != nil {
		t.Fatal(err)
	}
	ph, _ := plain.Handle()
	if err := k.key.Verify(plain, ph, victim, proof); !errors.Is(err, zkpok.ErrInvalid) {
		t.Fatalf("foreign ciphertext accepted: %v", err)
	}
}

// TestChallengeSpace: the repetitions of monomial challenges give a
// knowledge error ≤ 2^-128 on every BGV preset (test rings included), and
// the extracted message bound N·2Z_m stays far below Q.
func TestChallengeSpace(t *testing.T) {
	for _, tc := range []struct {
		id   fhe.PresetID
		reps int
	}{
		{fhe.BGVN13, 10}, {fhe.BGVN14, 9}, {fhetest.InsecureBGVN10, 12}, {fhetest.InsecureBGVN4, 26},
	} {
		p := fhe.MustParams(tc.id)
		pp, err := zkpok.ParamsFor(p)
		if err != nil {
			t.Fatal(err)
		}
		if pp.Reps != tc.reps || pp.SoundnessBits < zkpok.SoundnessTarget {
			t.Fatalf("%s: r=%d, 2^-%.1f", p.Preset.Name, pp.Reps, pp.SoundnessBits)
		}
		logQ := 0.0
		for _, q := range p.Q() {
			logQ += math.Log2(float64(q))
		}
		for i, z := range pp.Z {
			if b := math.Log2(float64(pp.N) * 4 * float64(z)); b >= logQ-1 {
				t.Fatalf("%s: component %d: extracted bound 2^%.1f not below Q/2", p.Preset.Name, i, b)
			}
		}
		t.Logf("%s: r=%d 2^-%.1f, logB=%v, proof %d bytes", p.Preset.Name, pp.Reps, pp.SoundnessBits, pp.LogB, pp.Size())
	}
}

// TestProvenInputDepth: the prover's own encryption (over Q, no auxiliary
// P) has a larger fresh noise than Lattigo's; the presets' full depth still
// decrypts correctly from it.
func TestProvenInputDepth(t *testing.T) {
	ids := []fhe.PresetID{fhetest.InsecureBGVN10Deep, fhe.BGVN13}
	if !testing.Short() {
		ids = append(ids, fhe.BGVN14)
	}
	for _, id := range ids {
		k := getKit(t, id)
		p := k.p
		tmod := int64(p.PlaintextModulus())
		x := make([]int64, p.Slots())
		for i := range x {
			x[i] = int64(i*7919+13) % tmod
		}
		ct, _, proof := encrypt(t, k, x, victim)
		_ = proof
		ev, err := fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: k.keys.Relin})
		if err != nil {
			t.Fatal(err)
		}
		for d := 0; d < p.Preset.Depth; d++ {
			if ct, err = ev.Square(ct); err != nil {
				t.Fatal(err)
			}
			for i := range x {
				x[i] = x[i] * x[i] % tmod
			}
		}
		got, err := fhe.NewDecryptor(k.keys.Secret).DecryptUints(ct)
		if err != nil {
			t.Fatal(err)
		}
		for i := range x {
			if got[i] != uint64(x[i]) {
				t.Fatalf("%s: slot %d after depth %d: %d, want %d", p.Preset.Name, i, p.Preset.Depth, got[i], x[i])
			}
		}
	}
}
