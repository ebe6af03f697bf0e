package precompiles

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// aloneCompiler is the stand-in compiler, except that a spec starting with
// "alone:" compiles to a plan without a packed form (PlanInfo.Alone) whose
// requests each book aloneGas; "alone: huge" books one gas more than a
// block's committee budget, "alone: zero" none.
type aloneCompiler struct{ standInCompiler }

const aloneGas = CommitteeGasPerBlock / 3 // three fill a block's budget, a fourth overfills it

func (c aloneCompiler) Compile(spec []byte) (PlanInfo, error) {
	info, err := c.standInCompiler.Compile(spec)
	if err != nil || !bytes.HasPrefix(spec, []byte("alone:")) {
		return info, err
	}
	info.Alone, info.AloneGas = true, aloneGas
	switch {
	case bytes.HasPrefix(spec, []byte("alone: huge")):
		info.AloneGas = CommitteeGasPerBlock + 1
	case bytes.HasPrefix(spec, []byte("alone: zero")):
		info.AloneGas = 0
	}
	return info, nil
}

// TestCommitteeBudgetAlone: a policy the committee cannot pack is evaluated
// request by request, so every one of its requests books its whole
// evaluation (AloneGas) against CommitteeGasPerBlock — where a packed
// policy's later requests in the block share the first one's booking — and
// writes no batch marker. What the request is charged stays the policy's
// per-request cost, before anything is queued, and does not depend on the
// block it lands in or on what the block booked before it. The request that
// would overfill the budget reverts with ErrQueueFull and changes nothing;
// packed policies share the same budget; the next block has a fresh one.
func TestCommitteeBudgetAlone(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.s.compiler = aloneCompiler{}
	spec := []byte("alone: income*1 > 0; inputs=2")
	alone := Hash(w.must(w.s.Policy, w.alice, "registerPolicy", spec)[0].([32]byte))
	get := w.st.Store(FHEPolicyAddress).GetState
	p := loadPolicy(get, alone)
	require.True(t, p.alone)
	require.Equal(t, uint64(aloneGas), p.aloneGas)
	require.Equal(t, 1000+10*uint64(len(spec)), p.cost, "the charge is the per-request cost")
	require.False(t, loadPolicy(get, w.policy).alone, "stand-in policies are packed")
	require.Zero(t, loadPolicy(get, w.policy).aloneGas)

	w.number = 90
	eval := func(id Hash, gas uint64) result {
		return w.run(w.s.Policy, w.gate, false, gas, w.pack(w.s.Policy, "evaluate", [32]byte(id), [][32]byte{w.hA, w.hB}))
	}
	booked := func() uint64 { return decodeBlockQueue(get(policyQueueSlot)).Booked }
	// gas before work: a request that cannot pay its charge queues nothing
	before := w.st.Fingerprint()
	r := eval(alone, p.cost)
	require.Error(t, r.err)
	require.Equal(t, before, w.st.Fingerprint())

	require.NoError(t, eval(w.policy, 10_000_000).err) // the queue slot exists: every later write is an update
	packedBooked := booked()
	require.Equal(t, loadPolicy(get, w.policy).cost*BatchOccupancy, packedBooked)
	require.LessOrEqual(t, packedBooked, uint64(CommitteeGasPerBlock-2*aloneGas), "a packed evaluation and two alone requests fit")

	var used []uint64
	for i := range 2 {
		r := eval(alone, 10_000_000)
		require.NoError(t, r.err, r.reason)
		require.Less(t, r.used, uint64(200_000), "the request pays its per-request cost, not its evaluation")
		require.Equal(t, packedBooked+uint64(i+1)*aloneGas, booked(), "every request of the policy books its own evaluation")
		used = append(used, r.used)
	}
	require.True(t, get(policyBatchSlot(alone)).IsZero(), "no batch marker for a policy evaluated alone")

	before = w.st.Fingerprint()
	r = eval(alone, 10_000_000)
	require.True(t, errors.Is(r.err, ErrQueueFull), "%v", r.err)
	require.Contains(t, r.reason, "request queue full for this block: block 90 already booked")
	require.Contains(t, r.reason, "evaluated alone needs")
	require.Equal(t, before, w.st.Fingerprint())
	require.NoError(t, eval(w.policy, 10_000_000).err, "the packed policy's evaluation is booked: its later requests still join it")

	w.number++
	r = eval(alone, 10_000_000)
	require.NoError(t, r.err, "a fresh block, a fresh budget")
	require.Equal(t, uint64(aloneGas), booked())
	used = append(used, r.used)
	require.Equal(t, used[0], used[1], "the charge does not depend on what the block booked before")
	require.Equal(t, used[0], used[2], "the charge does not depend on the block")
}

// TestRegisterAlone: registration refuses a policy evaluated alone whose
// one evaluation exceeds a block's committee budget (no block could ever
// queue a request of it) or that books nothing, and the CLI's AdmitPolicy
// refuses the same; a packed policy's AloneGas is dropped.
func TestRegisterAlone(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.s.compiler = aloneCompiler{}
	for _, tc := range []struct{ spec, reason string }{
		{"alone: huge; inputs=2", "no packed form, so each request is a whole evaluation of 960000001 gas, more than the committee's per-block budget 960000000"},
		{"alone: zero; inputs=2", "evaluated alone without its evaluation's gas"},
	} {
		before := w.st.Fingerprint()
		r := w.run(w.s.Policy, w.alice, false, 100_000_000, w.pack(w.s.Policy, "registerPolicy", []byte(tc.spec)))
		require.Error(t, r.err, tc.spec)
		require.Contains(t, r.reason, tc.reason)
		require.Equal(t, before, w.st.Fingerprint())
		_, err := AdmitPolicy(aloneCompiler{}, []byte(tc.spec))
		require.ErrorContains(t, err, tc.reason)
	}
	info, err := AdmitPolicy(aloneCompiler{}, []byte("alone: x; inputs=1"))
	require.NoError(t, err)
	require.True(t, info.Alone)
	require.Equal(t, uint64(aloneGas), info.AloneGas)
	info, err = AdmitPolicy(packedWithAloneGas{}, []byte("x > 0; inputs=1"))
	require.NoError(t, err)
	require.False(t, info.Alone)
	require.Zero(t, info.AloneGas)
}

type packedWithAloneGas struct{ standInCompiler }

func (c packedWithAloneGas) Compile(spec []byte) (PlanInfo, error) {
	info, err := c.standInCompiler.Compile(spec)
	info.AloneGas = CommitteeGasPerBlock * 2
	return info, err
}

// TestCostWord: a policy record's cost word round-trips, a record written
// before the alone flag existed (cost only) reads as a packed policy, and
// only the flag value 1 marks a policy evaluated alone.
func TestCostWord(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cost     uint64
		alone    bool
		aloneGas uint64
	}{
		{1_100, false, 0},
		{10_640, true, 58_165_080},
		{MaxPlanCost, true, CommitteeGasPerBlock},
	} {
		c, a, g := decodeCostWord(encodeCostWord(tc.cost, tc.alone, tc.aloneGas))
		require.Equal(t, tc.cost, c)
		require.Equal(t, tc.alone, a)
		require.Equal(t, tc.aloneGas, g)
	}
	old := u64Word(29_647) // the layout before the flag
	c, a, g := decodeCostWord(old)
	require.Equal(t, uint64(29_647), c)
	require.False(t, a)
	require.Zero(t, g)
	w := encodeCostWord(10_640, true, 58_165_080)
	w[0] = 2
	_, a, g = decodeCostWord(w)
	require.False(t, a)
	require.Zero(t, g)
}

// FuzzCostWord: decoding any 32-byte cost word never panics, marks a policy
// alone exactly when the flag byte is 1, and re-encodes to a word that
// decodes the same.
func FuzzCostWord(f *testing.F) {
	f.Add(make([]byte, 32))
	w := encodeCostWord(10_640, true, 58_165_080)
	f.Add(w[:])
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) != 32 {
			return
		}
		c, a, g := decodeCostWord(Hash(b))
		require.Equal(t, b[0] == 1, a)
		if !a {
			require.Zero(t, g)
		}
		c2, a2, g2 := decodeCostWord(encodeCostWord(c, a, g))
		require.Equal(t, [3]any{c, a, g}, [3]any{c2, a2, g2})
	})
}

// TestBlockQueueBook: the per-block queue counts requests and booked gas
// per block, starts afresh in a new block, refuses (ErrQueueFull, queue
// unchanged) a booking beyond the budget — without overflowing near
// 2^64 — and the MaxRequestsPerBlock-th request onwards.
func TestBlockQueueBook(t *testing.T) {
	t.Parallel()
	var q BlockQueue
	require.NoError(t, q.Book(5, CommitteeGasPerBlock-1, "x"))
	require.Equal(t, BlockQueue{Block: 5, Requests: 1, Booked: CommitteeGasPerBlock - 1}, q)
	require.NoError(t, q.Book(5, 0, ""), "a request joining a booked evaluation")
	require.NoError(t, q.Book(5, 1, "x"))
	for _, g := range []uint64{1, ^uint64(0)} {
		err := q.Book(5, g, "x")
		require.ErrorIs(t, err, ErrQueueFull)
		require.Equal(t, BlockQueue{Block: 5, Requests: 3, Booked: CommitteeGasPerBlock}, q)
	}
	require.ErrorIs(t, (&BlockQueue{}).Book(0, ^uint64(0), "x"), ErrQueueFull)
	require.NoError(t, q.Book(6, 7, "x"))
	require.Equal(t, BlockQueue{Block: 6, Requests: 1, Booked: 7}, q)
	q.Requests = MaxRequestsPerBlock
	require.ErrorIs(t, q.Book(6, 0, ""), ErrQueueFull)
	require.Equal(t, q, decodeBlockQueue(q.encode()))
}
