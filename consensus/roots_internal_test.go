package consensus

import (
	"bytes"
	"encoding/binary"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSignedLog: a member remembers the digests it signed for the TTL and
// at most max of them, the oldest forgotten first; signing a digest again
// restarts its lifetime.
func TestSignedLog(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	l := newSignedLog(10*time.Minute, 4)
	l.now = func() time.Time { return now }
	d := func(b byte) [32]byte { return [32]byte{b} }
	for _, step := range []struct {
		name    string
		advance time.Duration
		add     []byte
		has     []byte
		hasNot  []byte
		size    int
	}{
		{"added", 0, []byte{1, 2}, []byte{1, 2}, []byte{3}, 2},
		{"before the TTL", 9 * time.Minute, []byte{3}, []byte{1, 2, 3}, nil, 3},
		{"1 and 2 expire", time.Minute, nil, []byte{3}, []byte{1, 2}, 1},
		{"signed again", 0, []byte{3}, []byte{3}, nil, 1},
		{"cap: the oldest go", 0, []byte{4, 5, 6, 7, 8}, []byte{5, 6, 7, 8}, []byte{3, 4}, 4},
		{"re-signing", 0, []byte{5}, []byte{5, 6, 7, 8}, nil, 4},
		{"a re-signed digest is not the oldest", 0, []byte{9}, []byte{5, 7, 8, 9}, []byte{6}, 4},
		{"all expire", 10 * time.Minute, nil, nil, []byte{5, 7, 8, 9}, 0},
	} {
		now = now.Add(step.advance)
		for _, b := range step.add {
			l.add(d(b))
		}
		for _, b := range step.has {
			require.True(t, l.has(d(b)), "%s: %d", step.name, b)
		}
		for _, b := range step.hasNot {
			require.False(t, l.has(d(b)), "%s: %d", step.name, b)
		}
		require.Equal(t, step.size, l.len(), step.name)
		require.LessOrEqual(t, len(l.q), 8, step.name)
	}

	// A flood of digests stays within the cap.
	big := newSignedLog(time.Hour, 100)
	for i := range 10_000 {
		big.add([32]byte{byte(i), byte(i >> 8)})
	}
	require.Equal(t, 100, big.len())
	require.LessOrEqual(t, len(big.q), 200)

	// Re-signing one digest over and over neither grows the queue nor
	// pushes out the other digests.
	again := newSignedLog(time.Hour, 10)
	again.add([32]byte{1})
	for range 10_000 {
		again.add([32]byte{2})
	}
	require.True(t, again.has([32]byte{1}))
	require.Equal(t, 2, again.len())
	require.LessOrEqual(t, len(again.q), 20)
}

// TestParseRootSign: the TypeRootSign framing refuses every malformed
// payload, and a huge count is refused before anything is allocated.
func TestParseRootSign(t *testing.T) { // not parallel: it measures allocations
	leaves := [][32]byte{{1}, {2}, {3}}
	ok := rootSign(7, leaves)
	header := func(count uint32) []byte {
		return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, 7), count)
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want string // "" : accepted
	}{
		{"ok", ok, ""},
		{"max leaves", rootSign(7, make([][32]byte, MaxRootLeaves)), ""},
		{"empty", nil, "shorter than its 12-byte header"},
		{"short header", ok[:11], "shorter than its 12-byte header"},
		{"zero leaves", header(0), "0 leaves outside [1,1024]"},
		{"over MaxRootLeaves", append(header(MaxRootLeaves+1), make([]byte, 32*(MaxRootLeaves+1))...), "1025 leaves outside"},
		{"huge count", header(math.MaxUint32), "4294967295 leaves outside"},
		{"one byte short", ok[:len(ok)-1], "want 108"},
		{"one byte over", append(bytes.Clone(ok), 0), "want 108"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			epoch, got, err := parseRootSign(tc.b)
			if tc.want != "" {
				require.ErrorContains(t, err, tc.want)
				require.Nil(t, got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, uint64(7), epoch)
			require.Equal(t, tc.b, rootSign(epoch, got))
		})
	}
	// A count the payload does not carry is refused before the leaves are
	// allocated: 32 KiB each for MaxRootLeaves, only the error here.
	for _, b := range [][]byte{header(math.MaxUint32), header(MaxRootLeaves)} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 100 {
			_, _, err := parseRootSign(b)
			require.Error(t, err)
		}
		runtime.ReadMemStats(&after)
		require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(100*4096), "leaves allocated for a payload without them")
	}
}

// FuzzParseRootSign: the TypeRootSign framing never panics, accepts only
// 1…MaxRootLeaves leaves and re-frames what it accepts to the same bytes.
func FuzzParseRootSign(f *testing.F) {
	f.Add(rootSign(1, [][32]byte{{1}}))
	f.Add(rootSign(9, [][32]byte{{1}, {2}, {3}}))
	f.Add([]byte{})
	f.Add(make([]byte, 12))
	f.Add(append(make([]byte, 8), 0xff, 0xff, 0xff, 0xff))
	f.Fuzz(func(t *testing.T, b []byte) {
		in := bytes.Clone(b)
		epoch, leaves, err := parseRootSign(b)
		if !bytes.Equal(in, b) {
			t.Fatal("input mutated")
		}
		if err != nil {
			return
		}
		if len(leaves) == 0 || len(leaves) > MaxRootLeaves {
			t.Fatalf("%d leaves accepted", len(leaves))
		}
		if !bytes.Equal(rootSign(epoch, leaves), b) {
			t.Fatal("re-framing differs")
		}
	})
}
