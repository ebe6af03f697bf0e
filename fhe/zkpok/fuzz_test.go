package zkpok_test

import (
	"errors"
	"testing"

	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// FuzzUnmarshal: the proof decoder never panics, checks the header
// (version, preset, repetitions) and the exact length before allocating, and re-encodes what it accepts to the same bytes; whatever it
// accepts, Verify handles without panicking (and refuses unless it is the
// real proof).
func FuzzUnmarshal(f *testing.F) {
	k := getKit(f, fhetest.InsecureBGVN4)
	pp := k.key.PP
	ct, h, proof := encrypt(f, k, []int64{3}, victim)
	f.Add(proof)
	good := make([]byte, pp.Size())
	good[0], good[1], good[2] = zkpok.Version, byte(fhetest.InsecureBGVN4), byte(pp.Reps)
	f.Add(good)
	f.Add([]byte{})
	f.Add([]byte{zkpok.Version, byte(fhetest.InsecureBGVN4)})
	f.Add([]byte{zkpok.Version, byte(fhetest.InsecureBGVN4), byte(pp.Reps)})
	// A header claiming another shape (repetitions) or the previous version
	// is refused before the length is looked at.
	other := append([]byte(nil), proof...)
	other[2]++
	f.Add(other)
	old := append([]byte(nil), proof...)
	old[0] = zkpok.Version - 1
	f.Add(old)
	f.Fuzz(func(t *testing.T, b []byte) {
		pr, err := pp.Unmarshal(b)
		if err != nil {
			if !errors.Is(err, zkpok.ErrInvalid) {
				t.Fatalf("decode error does not wrap ErrInvalid: %v", err)
			}
			return
		}
		if got := pp.Marshal(pr); string(got) != string(b) {
			t.Fatalf("re-encoding differs")
		}
		err = k.key.Verify(ct, h, victim, b)
		if string(b) == string(proof) {
			if err != nil {
				t.Fatalf("the real proof refused: %v", err)
			}
		} else if err == nil {
			t.Logf("another accepting proof for the same statement (fine: proofs are not unique)")
		}
	})
}
