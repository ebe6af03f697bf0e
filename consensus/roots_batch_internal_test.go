package consensus

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRootBatcherFills: which root batch each rooted upload joins and when
// a batch may close before its window, for the arrival patterns a member
// sees. An upload "b" begins (verification, replication), "j" joins the
// open batch once attested (opening one if none is open), "a" fails
// before joining, "s" seals the open batch (its round starts: the window
// ended or it closed early). A batch waits for the uploads that were in
// progress when it opened and for no other: a burst fills one root,
// however slowly its uploads are attested, a lone upload closes its batch
// at once, and a steady stream never holds a batch open by itself.
func TestRootBatcherFills(t *testing.T) {
	t.Parallel()
	type step struct {
		op   byte // 'b' begin, 'j' join, 'a' abandon, 's' seal
		id   int  // the upload (b, j, a)
		want int  // j: the batch (1, 2, …) the upload joins
		// after a j or a step: whether the open batch may close now (it
		// has none left to wait for), and how many it still waits for
		ready bool
		held  int
	}
	b, j, a, s := byte('b'), byte('j'), byte('a'), byte('s')
	for _, tc := range []struct {
		name  string
		steps []step
		sizes []int // leaves of each sealed batch, in order
	}{
		{"a lone upload closes its batch at once", []step{
			{op: b, id: 1}, {op: j, id: 1, want: 1, ready: true}, {op: s},
		}, []int{1}},
		{"sequential uploads: one root each, none held", []step{
			{op: b, id: 1}, {op: j, id: 1, want: 1, ready: true}, {op: s},
			{op: b, id: 2}, {op: j, id: 2, want: 2, ready: true}, {op: s},
		}, []int{1, 1}},
		{"a burst fills one root however slowly it is attested", []step{
			{op: b, id: 1}, {op: b, id: 2}, {op: b, id: 3}, {op: b, id: 4},
			{op: j, id: 3, want: 1, held: 3}, {op: j, id: 1, want: 1, held: 2},
			{op: j, id: 4, want: 1, held: 1}, {op: j, id: 2, want: 1, ready: true}, {op: s},
		}, []int{4}},
		{"a failed upload stops holding the batch", []step{
			{op: b, id: 1}, {op: b, id: 2}, {op: b, id: 3},
			{op: j, id: 1, want: 1, held: 2}, {op: a, id: 2, held: 1}, {op: j, id: 3, want: 1, ready: true}, {op: s},
		}, []int{2}},
		{"uploads that begin while it is open join but do not hold it", []step{
			{op: b, id: 1}, {op: b, id: 2},
			{op: j, id: 1, want: 1, held: 1},
			{op: b, id: 3}, {op: b, id: 4},
			{op: j, id: 3, want: 1, held: 1}, // attested before the batch closed: it joins
			{op: j, id: 2, want: 1, ready: true},
			{op: s},
			// upload 4, begun while batch 1 was open, holds batch 2
			{op: b, id: 5},
			{op: j, id: 5, want: 2, held: 1}, {op: j, id: 4, want: 2, ready: true}, {op: s},
		}, []int{3, 2}},
		{"a steady stream: each batch waits only for the uploads ahead of it", []step{
			{op: b, id: 1}, {op: b, id: 2},
			{op: j, id: 1, want: 1, held: 1}, {op: b, id: 3}, {op: j, id: 2, want: 1, ready: true}, {op: s},
			{op: b, id: 4}, {op: j, id: 3, want: 2, held: 1}, {op: b, id: 5}, {op: j, id: 4, want: 2, ready: true}, {op: s},
			{op: j, id: 5, want: 3, ready: true}, {op: s},
		}, []int{2, 2, 1}},
		{"the window ended: the uploads still in progress hold the next batch", []step{
			{op: b, id: 1}, {op: b, id: 2}, {op: b, id: 3},
			{op: j, id: 1, want: 1, held: 2}, {op: s}, // sealed by its window
			{op: j, id: 2, want: 2, held: 1}, {op: j, id: 3, want: 2, ready: true}, {op: s},
		}, []int{1, 2}},
		{"an upload abandoned after its batch was sealed holds nothing", []step{
			{op: b, id: 1}, {op: b, id: 2},
			{op: j, id: 1, want: 1, held: 1}, {op: s},
			{op: b, id: 3}, {op: a, id: 2},
			{op: j, id: 3, want: 2, ready: true}, {op: s},
		}, []int{1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rb rootBatcher
			tickets := map[int]rootTicket{}
			var open *rootBatch
			var batches []*rootBatch
			var sizes []int
			for i, st := range tc.steps {
				switch st.op {
				case b:
					tickets[st.id] = rb.begin()
				case a:
					rb.abandon(tickets[st.id])
				case j:
					got, idx, opened := rb.add(tickets[st.id], [32]byte{byte(st.id)})
					if opened {
						batches = append(batches, got)
						open = got
					}
					require.Same(t, open, got, "step %d: upload %d is not in the open batch", i, st.id)
					require.Equal(t, st.want, len(batches), "step %d: upload %d joined batch %d", i, st.id, len(batches))
					require.Equal(t, [32]byte{byte(st.id)}, got.leaves[idx], "step %d", i)
				case s:
					require.NotNil(t, open, "step %d: nothing to seal", i)
					sizes = append(sizes, len(rb.seal(open)))
					require.Nil(t, rb.open, "step %d", i)
					open = nil
					continue
				}
				if open != nil && st.op != b { // a begin changes neither
					require.Equal(t, st.ready, open.early, "step %d: may the batch close now", i)
					require.Equal(t, st.held, open.held, "step %d: uploads the batch waits for", i)
				}
			}
			require.Equal(t, tc.sizes, sizes)
			require.Zero(t, rb.pending, "every upload joined or failed")
		})
	}
}

// TestRootBatcherFull: a batch closes at MaxRootLeaves even while uploads
// it waits for are in progress; they go to the next batch, which waits
// for them.
func TestRootBatcherFull(t *testing.T) {
	t.Parallel()
	var rb rootBatcher
	tickets := make([]rootTicket, MaxRootLeaves+2)
	for i := range tickets {
		tickets[i] = rb.begin()
	}
	first, _, opened := rb.add(tickets[0], [32]byte{0})
	require.True(t, opened)
	for i := 1; i < MaxRootLeaves; i++ {
		got, idx, opened := rb.add(tickets[i], [32]byte{byte(i), byte(i >> 8)})
		require.False(t, opened)
		require.Same(t, first, got)
		require.Equal(t, i, idx)
	}
	require.True(t, first.early, "a full batch closes at once")
	require.Nil(t, rb.open, "a full batch takes no more leaves")
	next, idx, opened := rb.add(tickets[MaxRootLeaves], [32]byte{0xff})
	require.True(t, opened)
	require.Zero(t, idx)
	require.Equal(t, 1, next.held, "the last upload in progress holds the next batch")
	require.False(t, next.early)
	rb.add(tickets[MaxRootLeaves+1], [32]byte{0xfe})
	require.True(t, next.early)
	require.Len(t, next.leaves, 2)
}

// TestRootBatchHold: a batch waits for the uploads in progress at most as
// long as its first upload took from its arrival to its attestation,
// never longer than the window (RootWindow, DefaultRootWindow when unset).
func TestRootBatchHold(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		window time.Duration
		took   time.Duration // the opening upload: begin → attested
		want   time.Duration
	}{
		{"an upload attested at once holds for nothing", time.Minute, 0, 0},
		{"an idle member: milliseconds", time.Minute, 40 * time.Millisecond, 40 * time.Millisecond},
		{"a busy member: seconds", time.Minute, 12 * time.Second, 12 * time.Second},
		{"at most the window", time.Minute, 5 * time.Minute, time.Minute},
		{"the default window", 0, time.Hour, DefaultRootWindow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Unix(1_700_000_000, 0)
			b := rootBatcher{window: tc.window, now: func() time.Time { return now }}
			first, other := b.begin(), b.begin()
			now = now.Add(tc.took)
			rb, _, opened := b.add(first, [32]byte{1})
			require.True(t, opened)
			require.Equal(t, tc.want, rb.hold)
			require.False(t, rb.early, "it waits for the other upload in progress")
			b.add(other, [32]byte{2})
			require.True(t, rb.early)
		})
	}
}
