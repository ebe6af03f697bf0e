package fhe_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// Every decoder is fuzzed for two properties: it never panics, and whatever it
// accepts re-encodes to exactly the input bytes (the encoding is canonical).
// The committed corpus (testdata/fuzz/<Target>/) holds small valid encodings
// and near-misses; TestWriteFuzzCorpus regenerates it with FHE_WRITE_CORPUS=1.

type marshaler interface{ MarshalBinary() ([]byte, error) }

func checkCanonical[T marshaler](t *testing.T, in []byte, dec func([]byte) (T, error)) {
	v, err := dec(in)
	if err != nil {
		return
	}
	out, err := v.MarshalBinary()
	if err != nil {
		t.Fatalf("accepted input does not re-encode: %v", err)
	}
	if !bytes.Equal(in, out) {
		t.Fatalf("accepted a non-canonical encoding (%d bytes in, %d out)", len(in), len(out))
	}
}

// smallCiphertexts returns encodings small enough for a fuzz corpus: level-0
// seeded and unseeded ciphertexts of the insecure presets.
func smallCiphertexts(tb testing.TB) map[string][]byte {
	out := map[string][]byte{}
	for _, id := range []fhe.PresetID{fhetest.InsecureBGVN4, fhetest.InsecureCKKSN4} {
		kit := fhetest.MustKit(id)
		var a, b *fhe.Ciphertext
		var err error
		if kit.Params.Scheme() == fhe.SchemeBGV {
			a, err = kit.Sym.EncryptInts([]int64{1, 2, 3})
			if err == nil {
				b, err = kit.Enc.EncryptInts([]int64{4})
			}
		} else {
			a, err = kit.Sym.EncryptFloats([]float64{0.5})
			if err == nil {
				b, err = kit.Enc.EncryptFloats([]float64{0.25})
			}
		}
		if err != nil {
			tb.Fatal(err)
		}
		// A seeded ciphertext stays seeded only while untouched, so encode the
		// top-level seeded one and a level-0 unseeded one.
		low, err := kit.Eval.DropLevels(b, b.Level())
		if err != nil {
			tb.Fatal(err)
		}
		for name, c := range map[string]*fhe.Ciphertext{"seeded": a, "level0": low} {
			enc, err := c.MarshalBinary()
			if err != nil {
				tb.Fatal(err)
			}
			out[fmt.Sprintf("%s-%s", kit.Params.Preset.Name, name)] = enc
		}
	}
	return out
}

func FuzzUnmarshalCiphertext(f *testing.F) {
	for _, b := range smallCiphertexts(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) { checkCanonical(t, in, fhe.UnmarshalCiphertext) })
}

func keySeeds(f *testing.F) {
	kit := fhetest.MustKit(fhetest.InsecureBGVN4, 1)
	for _, m := range []marshaler{kit.Keys.Public, kit.Keys.Secret, kit.Keys.Relin, kit.Keys.Galois} {
		b, err := m.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:headerSize()+16])
	}
}

func headerSize() int { return 12 }

func FuzzUnmarshalPublicKey(f *testing.F) {
	keySeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) { checkCanonical(t, in, fhe.UnmarshalPublicKey) })
}

func FuzzUnmarshalSecretKey(f *testing.F) {
	keySeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) { checkCanonical(t, in, fhe.UnmarshalSecretKey) })
}

func FuzzUnmarshalRelinKey(f *testing.F) {
	keySeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) { checkCanonical(t, in, fhe.UnmarshalRelinKey) })
}

func FuzzUnmarshalGaloisKeys(f *testing.F) {
	keySeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) { checkCanonical(t, in, fhe.UnmarshalGaloisKeys) })
}

// TestWriteFuzzCorpus regenerates the committed seed corpus.
func TestWriteFuzzCorpus(t *testing.T) {
	if os.Getenv("FHE_WRITE_CORPUS") == "" {
		t.Skip("set FHE_WRITE_CORPUS=1 to regenerate testdata/fuzz")
	}
	write := func(target, name string, b []byte) {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cts := smallCiphertexts(t)
	for name, b := range cts {
		write("FuzzUnmarshalCiphertext", name, b)
	}
	kit := fhetest.MustKit(fhetest.InsecureBGVN4, 1)
	pk, _ := kit.Keys.Public.MarshalBinary()
	sk, _ := kit.Keys.Secret.MarshalBinary()
	rlk, _ := kit.Keys.Relin.MarshalBinary()
	gks, _ := kit.Keys.Galois.MarshalBinary()
	write("FuzzUnmarshalPublicKey", "valid", pk)
	write("FuzzUnmarshalRelinKey", "valid", rlk)
	write("FuzzUnmarshalGaloisKeys", "valid", gks)
	hdr := func(b []byte, kind fhe.Kind) []byte {
		h := append([]byte(nil), b[:12]...)
		h[5] = byte(kind)
		return append(h, 0, 0, 0, 0, 0, 0, 0, 0)
	}
	write("FuzzUnmarshalPublicKey", "truncated", pk[:64])
	write("FuzzUnmarshalSecretKey", "valid", sk)
	write("FuzzUnmarshalRelinKey", "header", hdr(pk, fhe.KindRelinKey))
	write("FuzzUnmarshalGaloisKeys", "one-key-header", append(hdr(pk, fhe.KindGaloisKeys)[:12], 1, 0, 5, 0, 0, 0, 0, 0, 0, 0))
	write("FuzzUnmarshalGaloisKeys", "zero-keys", append(hdr(pk, fhe.KindGaloisKeys)[:12], 0, 0))
}
