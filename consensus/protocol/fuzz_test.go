package protocol

import (
	"strings"
	"testing"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/multiparty"

	"github.com/fhegate/fhegate/consensus/transport"
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

// FuzzAggregateRefreshShare: a member's refresh share is decoded by
// aggregateShares only after its structure matches an honest share's, so
// any payload either aggregates or is refused naming the member — it never
// makes Lattigo's decoder panic or recurse out of stack.
func FuzzAggregateRefreshShare(f *testing.F) {
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	rfp, err := newRefreshProtocol(p)
	if err != nil {
		f.Fatal(err)
	}
	ct := rlwe.NewCiphertext(p.RLWE(), 1, 1)
	ct.IsNTT = true
	alloc := func() multiparty.RefreshShare {
		s := rfp.AllocateShare(ct.Level(), p.MaxLevel())
		s.MetaData = *ct.MetaData
		return s
	}
	good, err := alloc().MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte{})
	members := []transport.MemberID{1, 2}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, err := aggregateShares("refresh", members, map[transport.MemberID][]byte{1: good, 2: b}, alloc, nil, rfp.AggregateShares)
		if err != nil && !strings.Contains(err.Error(), "member 2") {
			t.Fatalf("error does not name the member: %v", err)
		}
	})
}
