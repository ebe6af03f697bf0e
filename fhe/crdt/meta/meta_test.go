package meta

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func testLayouts() []Layout {
	return []Layout{
		{Type: TypeGCounter, Preset: 2, Level: 0, Blocks: 16, Width: 1024},
		{Type: TypePNCounter, Preset: 1, Level: 0, Blocks: 8, Width: 3},
		{Type: TypeLWW, Preset: 2, Level: 0, Blocks: 4, Width: 4096},
		{Type: TypeLWW, Preset: 2, Level: 0, Blocks: 1, Width: 16384},
		{Type: TypeSet, Preset: 2, Level: 3, Blocks: 7, Width: 16384},
	}
}

// randState draws a random valid state; small clocks and a small handle pool
// make ties on (clock, replica) with different handles likely.
func randState(r *rand.Rand, l Layout) *State {
	s := &State{Layout: l}
	for b := uint32(0); b < l.Blocks; b++ {
		if r.IntN(3) == 0 {
			continue
		}
		e := Entry{Block: b, Clock: 1 + r.Uint64N(3), Replica: b}
		if l.Type == TypeLWW {
			e.Replica = r.Uint32N(3)
		}
		e.Handle[0] = byte(1 + r.IntN(3))
		e.Handle[31] = byte(b)
		s.Entries = append(s.Entries, e)
	}
	return s
}

func mustJoin(t *testing.T, a, b *State) *State {
	t.Helper()
	j, _, err := Join(a, b)
	require.NoError(t, err)
	return j
}

func TestMergeLaws(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for _, l := range testLayouts() {
		t.Run(l.Type.String(), func(t *testing.T) {
			for it := 0; it < 200; it++ {
				a, b, c := randState(r, l), randState(r, l), randState(r, l)
				ab, ba := mustJoin(t, a, b), mustJoin(t, b, a)
				require.Equal(t, ab.Encode(), ba.Encode(), "commutative")
				require.Equal(t, mustJoin(t, ab, c).Encode(), mustJoin(t, a, mustJoin(t, b, c)).Encode(), "associative")
				require.Equal(t, a.Encode(), mustJoin(t, a, a).Encode(), "idempotent")
				ok, err := LessEq(a, ab)
				require.NoError(t, err)
				require.True(t, ok, "a ⊑ a⊔b")
				// byte API agrees with the struct API
				m, err := Merge(a.Encode(), b.Encode())
				require.NoError(t, err)
				require.Equal(t, ab.Encode(), m)
			}
		})
	}
}

// TestRandomMergeOrders gossips random states among replicas in random orders
// and checks every order converges to the same bytes as the model (pointwise
// max of all entries ever produced).
func TestRandomMergeOrders(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for _, l := range testLayouts() {
		t.Run(l.Type.String(), func(t *testing.T) {
			for it := 0; it < 20; it++ {
				states := make([]*State, 6)
				model := map[uint32]Entry{}
				for i := range states {
					states[i] = randState(r, l)
					for _, e := range states[i].Entries {
						if m, ok := model[e.Block]; !ok || m.Less(e) {
							model[e.Block] = e
						}
					}
				}
				want := &State{Layout: l}
				for b := uint32(0); b < l.Blocks; b++ {
					if e, ok := model[b]; ok {
						want.Entries = append(want.Entries, e)
					}
				}
				for order := 0; order < 5; order++ {
					perm := r.Perm(len(states))
					acc, _ := New(l)
					for _, k := range perm {
						// random tree shape: sometimes merge into the input instead
						if r.IntN(2) == 0 {
							acc = mustJoin(t, acc, states[k])
						} else {
							acc = mustJoin(t, states[k], acc)
						}
					}
					require.Equal(t, want.Encode(), acc.Encode())
				}
			}
		})
	}
}

func TestPlan(t *testing.T) {
	t.Parallel()
	l := Layout{Type: TypeGCounter, Preset: 2, Blocks: 4, Width: 10}
	h := func(x byte) Handle { var h Handle; h[0] = x; return h }
	a := &State{Layout: l, Entries: []Entry{
		{Block: 0, Clock: 2, Replica: 0, Handle: h(1)},
		{Block: 1, Clock: 1, Replica: 1, Handle: h(2)},
		{Block: 2, Clock: 5, Replica: 2, Handle: h(3)},
	}}
	b := &State{Layout: l, Entries: []Entry{
		{Block: 0, Clock: 2, Replica: 0, Handle: h(1)},
		{Block: 1, Clock: 3, Replica: 1, Handle: h(4)},
		{Block: 3, Clock: 1, Replica: 3, Handle: h(5)},
	}}
	_, plan, err := Join(a, b)
	require.NoError(t, err)
	require.Len(t, plan.Picks, 4)
	require.Equal(t, SideBoth, plan.Picks[0].From)
	require.Equal(t, Pick{Block: 1, Lo: 10, Hi: 20, From: SideB, Winner: h(4), Loser: h(2), HasLoser: true,
		WinEntry: b.Entries[1], LoseEntry: a.Entries[1]}, plan.Picks[1])
	require.Equal(t, SideA, plan.Picks[2].From)
	require.Equal(t, SideB, plan.Picks[3].From)
	require.False(t, plan.Picks[3].HasLoser)
	base, ch := plan.Base()
	require.Equal(t, SideB, base)
	require.Len(t, ch, 1)
	require.Equal(t, uint32(2), ch[0].Block)
	require.Len(t, plan.Changes(SideA), 2)
}

func TestPut(t *testing.T) {
	t.Parallel()
	l := Layout{Type: TypeLWW, Preset: 2, Blocks: 2, Width: 8}
	s, err := New(l)
	require.NoError(t, err)
	b := s.Encode()
	var h Handle
	h[5] = 9
	b, err = Put(b, Entry{Block: 1, Clock: 7, Replica: 3, Handle: h})
	require.NoError(t, err)
	b2, err := Put(b, Entry{Block: 1, Clock: 7, Replica: 2, Handle: h}) // older writer id loses the tie
	require.NoError(t, err)
	require.Equal(t, b, b2)
	_, err = Put(b, Entry{Block: 2, Clock: 7, Replica: 2, Handle: h})
	require.ErrorIs(t, err, &MergeError{Kind: ErrBadEntry})
}

func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	l := Layout{Type: TypeGCounter, Preset: 2, Blocks: 4, Width: 10}
	var h Handle
	h[0] = 1
	good := (&State{Layout: l, Entries: []Entry{{Block: 1, Clock: 1, Replica: 1, Handle: h}, {Block: 2, Clock: 1, Replica: 2, Handle: h}}}).Encode()
	mut := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	cases := []struct {
		name string
		in   []byte
		kind DecodeErrorKind
	}{
		{"empty", nil, ErrKindTruncated},
		{"short", good[:10], ErrKindTruncated},
		{"magic", mut(func(b []byte) []byte { b[0] = 'X'; return b }), ErrKindMagic},
		{"version", mut(func(b []byte) []byte { b[4] = 2; return b }), ErrKindVersion},
		{"type", mut(func(b []byte) []byte { b[5] = 9; return b }), ErrKindType},
		{"preset0", mut(func(b []byte) []byte { b[6] = 0; return b }), ErrKindLayout},
		{"blocks0", mut(func(b []byte) []byte { b[11] = 0; return b }), ErrKindLayout},
		{"too-many-lanes", mut(func(b []byte) []byte { b[13] = 0xff; return b }), ErrKindLayout},
		{"count>blocks", mut(func(b []byte) []byte { b[19] = 5; return b }), ErrKindLength},
		{"missing-entry", good[:len(good)-1], ErrKindTruncated},
		{"trailing", append(bytes.Clone(good), 0), ErrKindTrailing},
		{"block-range", mut(func(b []byte) []byte { b[HeaderSize+EntrySize+3] = 9; return b }), ErrKindEntry},
		{"clock0", mut(func(b []byte) []byte { b[HeaderSize+11] = 0; return b }), ErrKindEntry},
		{"replica≠block", mut(func(b []byte) []byte { b[HeaderSize+15] = 2; return b }), ErrKindEntry},
		{"zero-handle", mut(func(b []byte) []byte { b[HeaderSize+16] = 0; return b }), ErrKindEntry},
		{"order", mut(func(b []byte) []byte { b[HeaderSize+EntrySize+3], b[HeaderSize+EntrySize+15] = 1, 1; return b }), ErrKindOrder},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(c.in)
			require.ErrorIs(t, err, &DecodeError{Kind: c.kind})
			var de *DecodeError
			require.True(t, errors.As(err, &de))
		})
	}
	s, err := Decode(good)
	require.NoError(t, err)
	require.Equal(t, good, s.Encode())
}

func TestMergeErrors(t *testing.T) {
	t.Parallel()
	a, _ := New(Layout{Type: TypeGCounter, Preset: 2, Blocks: 4, Width: 10})
	b, _ := New(Layout{Type: TypePNCounter, Preset: 2, Blocks: 4, Width: 10})
	_, err := Merge(a.Encode(), b.Encode())
	require.ErrorIs(t, err, &MergeError{Kind: ErrLayoutMismatch})
	_, err = Merge(a.Encode(), []byte("junk"))
	require.ErrorIs(t, err, &DecodeError{Kind: ErrKindTruncated})
	bad := &State{Layout: a.Layout, Entries: []Entry{{Block: 9, Clock: 1, Replica: 9, Handle: Handle{1}}}}
	_, _, err = Join(a, bad)
	require.ErrorIs(t, err, &MergeError{Kind: ErrInvalidState})
}

// BenchmarkMergeFull merges two states with an entry in every one of 16384
// blocks (the largest metadata a precompile can be asked to merge).
func BenchmarkMergeFull(b *testing.B) {
	l := Layout{Type: TypePNCounter, Preset: 2, Blocks: 16384, Width: 1}
	r := rand.New(rand.NewPCG(1, 1))
	mk := func() []byte {
		s := &State{Layout: l}
		for k := uint32(0); k < l.Blocks; k++ {
			e := Entry{Block: k, Clock: 1 + r.Uint64N(2), Replica: k}
			e.Handle[0] = byte(1 + r.IntN(200))
			s.Entries = append(s.Entries, e)
		}
		return s.Encode()
	}
	x, y := mk(), mk()
	b.SetBytes(int64(len(x) + len(y)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Merge(x, y); err != nil {
			b.Fatal(err)
		}
	}
}
