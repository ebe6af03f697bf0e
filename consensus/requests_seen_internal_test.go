package consensus

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRequestBook(t *testing.T) {
	id := func(b byte) [32]byte { return [32]byte{b} }
	type step struct {
		saw      map[byte]uint64 // request → block
		answered []byte
		head     uint64
	}
	for _, tc := range []struct {
		name         string
		expiry       uint64
		steps        []step
		seen         uint64
		unanswered   int
		oldestBlock  uint64
		stillTracked []byte
	}{
		{name: "nothing seen", expiry: 10},
		{name: "seen, none answered", expiry: 10,
			steps: []step{{saw: map[byte]uint64{1: 5, 2: 6, 3: 7}, head: 7}},
			seen:  3, unanswered: 3, oldestBlock: 5, stillTracked: []byte{1, 2, 3}},
		{name: "answered ones leave, the count stays", expiry: 10,
			steps: []step{{saw: map[byte]uint64{1: 5, 2: 6, 3: 7}, head: 7}, {answered: []byte{1, 3}}},
			seen:  3, unanswered: 1, oldestBlock: 6, stillTracked: []byte{2}},
		{name: "a re-delivery counts once", expiry: 10,
			steps: []step{{saw: map[byte]uint64{1: 5}, head: 5}, {saw: map[byte]uint64{1: 5}}},
			seen:  1, unanswered: 1, oldestBlock: 5, stillTracked: []byte{1}},
		{name: "expired requests are the chain's to answer", expiry: 10,
			steps: []step{{saw: map[byte]uint64{1: 5, 2: 12}, head: 12}, {head: 15}},
			seen:  2, unanswered: 1, oldestBlock: 12, stillTracked: []byte{2}},
		{name: "no expiry keeps them", expiry: 0,
			steps: []step{{saw: map[byte]uint64{1: 5}, head: 5000}},
			seen:  1, unanswered: 1, oldestBlock: 5, stillTracked: []byte{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newRequestBook(tc.expiry)
			for _, s := range tc.steps {
				b.setHead(s.head)
				for r, blk := range s.saw {
					b.saw(id(r), blk)
				}
				for _, r := range s.answered {
					b.answered(id(r))
				}
			}
			seen, unanswered, oldest := b.counts()
			require.Equal(t, tc.seen, seen)
			require.Equal(t, tc.unanswered, unanswered)
			require.Equal(t, tc.oldestBlock, oldest)
			for _, r := range tc.stillTracked {
				require.Contains(t, b.open, id(r))
			}
		})
	}
}

// TestRequestBookBounded: past maxUnansweredTracked the oldest entry makes
// room (expired ones first), so the book never grows without bound.
func TestRequestBookBounded(t *testing.T) {
	b := newRequestBook(0)
	for i := 0; i < maxUnansweredTracked+10; i++ {
		b.saw([32]byte{byte(i), byte(i >> 8), byte(i >> 16)}, uint64(i+1))
	}
	seen, unanswered, oldest := b.counts()
	require.Equal(t, uint64(maxUnansweredTracked+10), seen)
	require.Equal(t, maxUnansweredTracked, unanswered)
	require.Equal(t, uint64(11), oldest)
}
