package protocol

import (
	"testing"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// FuzzUnmarshalDecryptionShare: the share decoder rejects anything that is
// not a reduced share at the expected level, without panicking.
func FuzzUnmarshalDecryptionShare(f *testing.F) {
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	good := make([]byte, 1+3*p.N()*8)
	good[0] = 2
	f.Add(good)
	f.Add([]byte{2})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := UnmarshalDecryptionShare(p, 2, b)
		if err != nil {
			return
		}
		if s.Level != 2 {
			t.Fatalf("level %d", s.Level)
		}
		for i, q := range p.Q()[:3] {
			for _, c := range s.Value.Coeffs[i] {
				if c >= q {
					t.Fatal("unreduced coefficient accepted")
				}
			}
		}
	})
}

// FuzzUnmarshalThresholdKey: stored threshold keys decode or fail cleanly.
func FuzzUnmarshalThresholdKey(f *testing.F) {
	f.Add([]byte("FHEGTSK1"))
	f.Add(append([]byte("FHEGTSK1"), make([]byte, 60)...))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("panic: %v", r)
			}
		}()
		_, _ = UnmarshalThresholdKey(b)
	})
}
