package meta

import (
	"bytes"
	"testing"
)

// FuzzDecode: Decode never panics; accepted bytes re-encode to themselves.
func FuzzDecode(f *testing.F) {
	for _, l := range testLayouts() {
		s, _ := New(l)
		f.Add(s.Encode())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Decode(b)
		if err != nil {
			if _, ok := err.(*DecodeError); !ok {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		if !bytes.Equal(s.Encode(), b) {
			t.Fatalf("decode∘encode is not the identity")
		}
	})
}

// FuzzMerge: Merge never panics; on accepted inputs it is commutative and
// idempotent and its result decodes.
func FuzzMerge(f *testing.F) {
	l := testLayouts()[0]
	s, _ := New(l)
	f.Add(s.Encode(), s.Encode())
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ab, err := Merge(a, b)
		if err != nil {
			return
		}
		ba, err := Merge(b, a)
		if err != nil || !bytes.Equal(ab, ba) {
			t.Fatalf("not commutative: %v", err)
		}
		aa, err := Merge(a, a)
		if err != nil || !bytes.Equal(aa, a) {
			t.Fatalf("not idempotent: %v", err)
		}
		if _, err := Decode(ab); err != nil {
			t.Fatalf("merge result does not decode: %v", err)
		}
	})
}

// FuzzDecodeLayout: DecodeLayout never panics, returns typed errors, and
// agrees with Decode on the header.
func FuzzDecodeLayout(f *testing.F) {
	for _, l := range testLayouts() {
		s, _ := New(l)
		f.Add(s.Encode())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := DecodeLayout(b)
		if err != nil {
			if _, ok := err.(*DecodeError); !ok {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			if _, err2 := Decode(b); err2 == nil {
				t.Fatalf("Decode accepts what DecodeLayout rejects")
			}
			return
		}
		if l.Validate() != nil {
			t.Fatalf("accepted an invalid layout")
		}
		if s, err := Decode(b); err == nil && s.Layout != l {
			t.Fatalf("layout mismatch")
		}
	})
}
