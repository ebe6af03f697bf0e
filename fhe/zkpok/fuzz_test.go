package zkpok_test

import (
	"testing"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// FuzzUnmarshal: the proof decoder never panics, checks the length before
// allocating, and re-encodes what it accepts to the same bytes.
func FuzzUnmarshal(f *testing.F) {
	pp, err := zkpok.ParamsFor(fhe.MustParams(fhetest.InsecureBGVN4))
	if err != nil {
		f.Fatal(err)
	}
	good := make([]byte, pp.Size())
	good[0], good[1] = zkpok.Version, byte(fhetest.InsecureBGVN4)
	f.Add(good)
	f.Add([]byte{})
	f.Add([]byte{zkpok.Version, byte(fhetest.InsecureBGVN4)})
	f.Fuzz(func(t *testing.T, b []byte) {
		pr, err := pp.Unmarshal(b)
		if err != nil {
			return
		}
		if got := pp.Marshal(pr); string(got) != string(b) {
			t.Fatalf("re-encoding differs")
		}
	})
}
