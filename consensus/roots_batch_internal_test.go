package consensus

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRootBatcherFills: which root batch each rooted upload joins and when
// a batch may close before its hold, for the arrival patterns a member
// sees. An upload "b" begins (verification, replication), "j" joins the
// open batch once attested (opening one if none is open), "a" fails
// before joining, "s" seals the open batch (its round starts: its hold
// ended or it closed early). A batch waits while uploads are in progress
// at its member: a burst fills one root however slowly it is attested,
// uploads of the burst that arrive later still join it, and a lone upload
// closes its batch at once.
func TestRootBatcherFills(t *testing.T) {
	t.Parallel()
	type step struct {
		op   byte // 'b' begin, 'j' join, 'a' abandon, 's' seal
		id   int  // the upload (b, j)
		want int  // j: the batch (1, 2, …) the upload joins
		// after a j or a step: whether the open batch may close now (no
		// upload is left in progress), and how many are
		ready   bool
		pending int
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
			{op: j, id: 3, want: 1, pending: 3}, {op: j, id: 1, want: 1, pending: 2},
			{op: j, id: 4, want: 1, pending: 1}, {op: j, id: 2, want: 1, ready: true}, {op: s},
		}, []int{4}},
		{"a failed upload stops holding the batch", []step{
			{op: b, id: 1}, {op: b, id: 2}, {op: b, id: 3},
			{op: j, id: 1, want: 1, pending: 2}, {op: a, pending: 1}, {op: j, id: 3, want: 1, ready: true}, {op: s},
		}, []int{2}},
		{"uploads that begin while it is open hold it and join", []step{
			{op: b, id: 1}, {op: b, id: 2},
			{op: j, id: 1, want: 1, pending: 1},
			{op: b, id: 3}, // a client answered by an earlier root comes back
			{op: j, id: 2, want: 1, pending: 1},
			{op: j, id: 3, want: 1, ready: true},
			{op: s},
		}, []int{3}},
		{"the hold ended: the uploads still in progress go to the next batch", []step{
			{op: b, id: 1}, {op: b, id: 2}, {op: b, id: 3},
			{op: j, id: 1, want: 1, pending: 2}, {op: s}, // sealed by its hold
			{op: j, id: 2, want: 2, pending: 1}, {op: j, id: 3, want: 2, ready: true}, {op: s},
		}, []int{1, 2}},
		{"an upload abandoned after its batch was sealed holds nothing", []step{
			{op: b, id: 1}, {op: b, id: 2},
			{op: j, id: 1, want: 1, pending: 1}, {op: s},
			{op: b, id: 3}, {op: a, pending: 1},
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
					continue
				case a:
					rb.abandon()
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
				require.Equal(t, st.pending, rb.pending, "step %d: uploads in progress", i)
				if open != nil {
					require.Equal(t, st.ready, open.early, "step %d: may the batch close now", i)
				}
			}
			require.Equal(t, tc.sizes, sizes)
			require.Zero(t, rb.pending, "every upload joined or failed")
		})
	}
}

// TestRootBatcherFull: a batch closes at MaxRootLeaves even while uploads
// are in progress; they go to the next batch, which waits for them.
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
	require.Equal(t, 1, rb.pending, "the last upload in progress holds the next batch")
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
