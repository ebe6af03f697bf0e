package crdt

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/crdt/meta"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// env is a single-party key set with the rotation keys the reads need.
type env struct {
	p   *fhe.Params
	kit *fhetest.Kit
	eng *Engine
	enc *fhe.Encryptor
	dec *fhe.Decryptor
}

func newEnv(t testing.TB, id fhe.PresetID, withKit bool, layouts ...meta.Layout) *env {
	t.Helper()
	p, err := fhe.NewParams(id)
	require.NoError(t, err)
	var keys *fhe.KeySet
	var kit *fhetest.Kit
	if withKit {
		kit, err = fhetest.NewKit(id)
		require.NoError(t, err)
		keys = kit.Keys
	} else {
		keys = fhe.GenKeys(p, nil)
	}
	var els []uint64
	for _, l := range layouts {
		els = append(els, ReadGaloisElements(p, l)...)
	}
	extra, err := fhe.GenGaloisKeys(keys.Secret, els)
	require.NoError(t, err)
	gal, err := fhe.JoinGaloisKeys(keys.Galois, extra)
	require.NoError(t, err)
	ev, err := fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: keys.Relin, Galois: gal})
	require.NoError(t, err)
	eng, err := NewEngine(ev)
	require.NoError(t, err)
	return &env{p: p, kit: kit, eng: eng, enc: fhe.NewEncryptor(keys.Public), dec: fhe.NewDecryptor(keys.Secret)}
}

// write is one writer's ciphertext for a block, with its plaintext.
type write struct {
	entry  meta.Entry
	values []int64 // the block's lanes (counters, LWW) or the universe (set)
}

// world simulates writers and keeps the plaintext of every write, the
// normalised contributions by handle, and a plaintext model of reads.
type world struct {
	t       testing.TB
	e       *env
	l       meta.Layout
	r       *rand.Rand
	history map[uint32][]write
	contrib map[meta.Handle]*fhe.Ciphertext
	byH     map[meta.Handle]write
}

func newWorld(t testing.TB, e *env, l meta.Layout, seed uint64, writesPerBlock int) *world {
	w := &world{t: t, e: e, l: l, r: rand.New(rand.NewPCG(seed, 7)), history: map[uint32][]write{},
		contrib: map[meta.Handle]*fhe.Ciphertext{}, byH: map[meta.Handle]write{}}
	require.NoError(t, e.eng.CheckLayout(l))
	for b := uint32(0); b < l.Blocks; b++ {
		lo, hi := l.BlockLanes(b)
		cur := make([]int64, hi-lo)
		for v := 1; v <= writesPerBlock; v++ {
			en := meta.Entry{Block: b, Clock: uint64(v), Replica: b}
			vals := make([]int64, hi-lo)
			switch l.Type {
			case meta.TypeGCounter:
				for j := range cur {
					cur[j] += w.r.Int64N(100)
				}
				copy(vals, cur)
			case meta.TypePNCounter:
				for j := range cur {
					cur[j] += w.r.Int64N(201) - 100
				}
				copy(vals, cur)
			case meta.TypeLWW:
				en.Clock = 1 + w.r.Uint64N(3) // concurrent writes with equal timestamps
				en.Replica = w.r.Uint32N(4)
				for j := range vals {
					vals[j] = w.r.Int64N(2001) - 1000
				}
			case meta.TypeSet:
				for j := range vals {
					vals[j] = w.r.Int64N(2) * w.r.Int64N(2) // sparse 0/1
				}
			}
			// Garbage outside the block's lanes: normalisation must mask it.
			full := fhetest.RandInts(w.r, e.p.Slots(), 500)
			copy(full[lo:hi], vals)
			// Writers encrypt either at the top level or, smallest, at
			// Level+1: both normalise to the same level and scale.
			raw, err := e.enc.EncryptInts(full)
			if v%2 == 0 {
				raw, err = e.enc.EncryptIntsAtLevel(full, int(l.Level)+1)
			}
			require.NoError(t, err)
			h, err := raw.Handle()
			require.NoError(t, err)
			en.Handle = meta.Handle(h)
			c, err := e.eng.Contribution(l, b, raw)
			require.NoError(t, err)
			w.contrib[en.Handle] = c
			wr := write{entry: en, values: vals}
			w.byH[en.Handle] = wr
			w.history[b] = append(w.history[b], wr)
		}
	}
	return w
}

func (w *world) resolve(b uint32, h meta.Handle) (*fhe.Ciphertext, error) {
	c, ok := w.contrib[h]
	if !ok || w.byH[h].entry.Block != b {
		return nil, errors.New("unknown handle")
	}
	return c, nil
}

// randState picks, per block, nothing or one of its writes.
func (w *world) randState() *meta.State {
	s, err := meta.New(w.l)
	require.NoError(w.t, err)
	for b := uint32(0); b < w.l.Blocks; b++ {
		if w.r.IntN(3) == 0 {
			continue
		}
		h := w.history[b]
		s.Entries = append(s.Entries, h[w.r.IntN(len(h))].entry)
	}
	return s
}

// obj is a state with its materialised aggregate (nil when empty).
type obj struct {
	s   *meta.State
	agg *fhe.Ciphertext
}

func (w *world) obj(s *meta.State) obj {
	agg, err := w.e.eng.Aggregate(s, w.resolve)
	if errors.Is(err, ErrEmpty) {
		return obj{s: s}
	}
	require.NoError(w.t, err)
	return obj{s: s, agg: agg}
}

func (w *world) merge(a, b obj) obj {
	s, plan, err := meta.Join(a.s, b.s)
	require.NoError(w.t, err)
	agg, err := w.e.eng.Materialise(plan, a.agg, b.agg, w.resolve)
	if errors.Is(err, ErrEmpty) {
		require.Empty(w.t, s.Entries)
		return obj{s: s}
	}
	require.NoError(w.t, err)
	return obj{s: s, agg: agg}
}

func bytesOf(t testing.TB, c *fhe.Ciphertext) []byte {
	if c == nil {
		return nil
	}
	b, err := c.MarshalBinary()
	require.NoError(t, err)
	return b
}

// requireSame checks two objects are equal on the metadata bytes AND on the
// aggregate ciphertext bytes (exact sums make the ciphertext order-independent).
func (w *world) requireSame(a, b obj, msg string) {
	require.Equal(w.t, a.s.Encode(), b.s.Encode(), msg+": metadata")
	require.Equal(w.t, bytesOf(w.t, a.agg), bytesOf(w.t, b.agg), msg+": aggregate ciphertext")
}

// model returns the plaintext read of a state: counter totals, LWW lanes or
// set membership.
func (w *world) model(s *meta.State) []int64 {
	t := int64(w.e.p.PlaintextModulus())
	switch w.l.Type {
	case meta.TypeGCounter, meta.TypePNCounter:
		out := make([]int64, w.l.Width)
		for _, en := range s.Entries {
			for j, v := range w.byH[en.Handle].values {
				out[j] += v
			}
		}
		return fhe.Centre(modT(out, t), uint64(t))
	case meta.TypeLWW:
		out := make([]int64, w.l.Lanes())
		for _, en := range s.Entries {
			lo, _ := w.l.BlockLanes(en.Block)
			copy(out[lo:], w.byH[en.Handle].values)
		}
		return out
	default:
		out := make([]int64, w.l.Width)
		for _, en := range s.Entries {
			for j, v := range w.byH[en.Handle].values {
				out[j] |= v
			}
		}
		return out
	}
}

func modT(v []int64, t int64) []uint64 {
	out := make([]uint64, len(v))
	for i, x := range v {
		x %= t
		if x < 0 {
			x += t
		}
		out[i] = uint64(x)
	}
	return out
}

// read decrypts an object's value as the committee would (threshold
// decryption is replaced by the test's secret key).
func (w *world) read(o obj) []int64 {
	n := int(w.l.Width)
	if w.l.Type == meta.TypeLWW {
		n = w.l.Lanes()
	}
	if o.agg == nil {
		return make([]int64, n)
	}
	var c *fhe.Ciphertext
	var err error
	switch w.l.Type {
	case meta.TypeGCounter, meta.TypePNCounter:
		c, err = w.e.eng.CounterTotals(w.l, o.agg)
	case meta.TypeLWW:
		c, err = w.e.eng.Register(w.l, o.agg)
	default:
		c, err = w.e.eng.Membership(w.l, o.agg)
	}
	require.NoError(w.t, err)
	require.Equal(w.t, 0, c.Level(), "reads are ready for threshold decryption at level 0")
	v, err := w.e.dec.DecryptInts(c)
	require.NoError(w.t, err)
	return v[:n]
}

func insecureLayouts() []meta.Layout {
	p := uint8(fhetest.InsecureBGVN10)
	return []meta.Layout{
		{Type: meta.TypeGCounter, Preset: p, Level: 0, Blocks: 6, Width: 4},    // 24 lanes, one row
		{Type: meta.TypePNCounter, Preset: p, Level: 0, Blocks: 16, Width: 64}, // all 1024 slots: row rotation
		{Type: meta.TypeLWW, Preset: p, Level: 0, Blocks: 5, Width: 200},
		{Type: meta.TypeLWW, Preset: p, Level: 1, Blocks: 1, Width: 1024}, // a plain LWW-Register over every slot
		{Type: meta.TypeSet, Preset: p, Level: 3, Blocks: 5, Width: 700},
	}
}

// TestLawsOnDecryptedValueAndMetadata: commutativity, associativity and
// idempotence over random states, on the metadata bytes, on the aggregate
// ciphertext bytes and on the decrypted value against the plaintext model.
func TestLawsOnDecryptedValueAndMetadata(t *testing.T) {
	t.Parallel()
	ls := insecureLayouts()
	e := newEnv(t, fhetest.InsecureBGVN10, true, ls...)
	for i, l := range ls {
		t.Run(l.Type.String(), func(t *testing.T) {
			w := newWorld(t, e, l, uint64(i+1), 3)
			for it := 0; it < 4; it++ {
				a, b, c := w.obj(w.randState()), w.obj(w.randState()), w.obj(w.randState())
				ab, ba := w.merge(a, b), w.merge(b, a)
				w.requireSame(ab, ba, "commutative")
				w.requireSame(w.merge(ab, c), w.merge(a, w.merge(b, c)), "associative")
				w.requireSame(w.merge(a, a), a, "idempotent")
				// incremental materialisation == from-scratch aggregate
				w.requireSame(ab, w.obj(ab.s), "materialise = aggregate")
				require.Equal(t, w.model(ab.s), w.read(ab), "decrypted value = model")
				require.Equal(t, w.read(ab), w.read(ba))
				require.Equal(t, w.read(a), w.read(w.merge(a, a)))
			}
		})
	}
}

// TestRandomMergeOrders: gossip random states in random orders and tree
// shapes; every order converges to the model state, the same ciphertext bytes
// and the model's decrypted value.
func TestRandomMergeOrders(t *testing.T) {
	t.Parallel()
	ls := insecureLayouts()
	e := newEnv(t, fhetest.InsecureBGVN10, true, ls...)
	for i, l := range ls {
		t.Run(l.Type.String(), func(t *testing.T) {
			w := newWorld(t, e, l, uint64(100+i), 3)
			states := make([]obj, 5)
			for k := range states {
				states[k] = w.obj(w.randState())
			}
			// model: per block, the max entry over all states
			want, _ := meta.New(l)
			for _, s := range states {
				var err error
				want, _, err = meta.Join(want, s.s)
				require.NoError(t, err)
			}
			var first obj
			for order := 0; order < 4; order++ {
				pool := append([]obj(nil), states...)
				for len(pool) > 1 { // merge two random members until one is left
					x, y := w.r.IntN(len(pool)), w.r.IntN(len(pool)-1)
					if y >= x {
						y++
					}
					m := w.merge(pool[x], pool[y])
					pool[x] = m
					pool = append(pool[:y], pool[y+1:]...)
				}
				got := pool[0]
				require.Equal(t, want.Encode(), got.s.Encode())
				if order == 0 {
					first = got
					require.Equal(t, w.model(want), w.read(got))
				} else {
					w.requireSame(first, got, "order")
				}
			}
		})
	}
}

func TestDeterminism(t *testing.T) {
	t.Parallel()
	l := insecureLayouts()[0]
	e := newEnv(t, fhetest.InsecureBGVN10, false, l)
	w := newWorld(t, e, l, 9, 1)
	en := w.history[2][0]
	raw, err := e.enc.EncryptInts(append(make([]int64, 8), en.values...))
	require.NoError(t, err)
	c1, err := e.eng.Contribution(l, 2, raw)
	require.NoError(t, err)
	c2, err := e.eng.Contribution(l, 2, raw)
	require.NoError(t, err)
	require.Equal(t, bytesOf(t, c1), bytesOf(t, c2))
	s := w.randState()
	a1, err := e.eng.Aggregate(s, w.resolve)
	require.NoError(t, err)
	a2, err := e.eng.Aggregate(s, w.resolve)
	require.NoError(t, err)
	require.Equal(t, bytesOf(t, a1), bytesOf(t, a2))
}

func TestErrors(t *testing.T) {
	t.Parallel()
	l := insecureLayouts()[0]
	e := newEnv(t, fhetest.InsecureBGVN10, false, l)
	raw, err := e.enc.EncryptInts([]int64{1, 2, 3})
	require.NoError(t, err)
	low, err := e.eng.Evaluator().DropLevels(raw, raw.Level()-int(l.Level))
	require.NoError(t, err)
	_, err = e.eng.Contribution(l, 0, low)
	require.ErrorIs(t, err, ErrInput, "a writer ciphertext must sit above the layout level")
	scaled, err := e.eng.Evaluator().MulInts(raw, []int64{1, 1, 1})
	require.NoError(t, err)
	_, err = e.eng.Contribution(l, 0, scaled)
	require.ErrorIs(t, err, ErrInput)
	_, err = e.eng.Contribution(l, 99, raw)
	require.ErrorIs(t, err, ErrLayout)
	bad := l
	bad.Preset = uint8(fhe.BGVN14)
	_, err = e.eng.Contribution(bad, 0, raw)
	require.ErrorIs(t, err, ErrLayout)
	bad = l
	bad.Width = 3
	require.ErrorIs(t, e.eng.CheckLayout(bad), ErrLayout)
	bad = meta.Layout{Type: meta.TypeSet, Preset: l.Preset, Level: 1, Blocks: 8, Width: 16}
	require.ErrorIs(t, e.eng.CheckLayout(bad), ErrLayout, "8 replicas need depth 4")
	empty, _ := meta.New(l)
	_, err = e.eng.Aggregate(empty, nil)
	require.ErrorIs(t, err, ErrEmpty)
	var h meta.Handle
	h[0] = 1
	s, err := empty.Put(meta.Entry{Block: 1, Clock: 1, Replica: 1, Handle: h})
	require.NoError(t, err)
	_, err = e.eng.Aggregate(s, func(uint32, meta.Handle) (*fhe.Ciphertext, error) { return nil, errors.New("gone") })
	require.ErrorIs(t, err, ErrMissing)
	_, plan, err := meta.Join(s, empty)
	require.NoError(t, err)
	_, err = e.eng.Materialise(plan, nil, nil, nil)
	require.ErrorIs(t, err, ErrMissing)
	_, err = e.eng.Membership(l, raw)
	require.ErrorIs(t, err, ErrType)
}

func TestMembershipPoly(t *testing.T) {
	t.Parallel()
	const q = 65537
	for r := 1; r <= 12; r++ {
		c := membershipPoly(r, q)
		require.Len(t, c, r+1)
		for x := uint64(0); x <= uint64(r); x++ {
			acc, pw := uint64(0), uint64(1)
			for _, ci := range c {
				acc = (acc + uint64(ci)*pw) % q
				pw = pw * x % q
			}
			want := uint64(1)
			if x == 0 {
				want = 0
			}
			require.Equal(t, want, acc, "r=%d x=%d", r, x)
		}
	}
}

// TestRealPresetBGVN14 runs the laws and the reads on the 128-bit preset with
// full 16384-lane layouts (counters spanning both BGV rows, a set over the
// whole universe).
func TestRealPresetBGVN14(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("real preset: keygen and encryption at N=2^14")
	}
	p := uint8(fhe.BGVN14)
	ls := []meta.Layout{
		{Type: meta.TypeGCounter, Preset: p, Level: 0, Blocks: 4, Width: 4096},
		{Type: meta.TypeLWW, Preset: p, Level: 0, Blocks: 2, Width: 8192},
		{Type: meta.TypeSet, Preset: p, Level: 2, Blocks: 3, Width: 16384},
	}
	e := newEnv(t, fhe.BGVN14, false, ls...)
	for i, l := range ls {
		t.Run(l.Type.String(), func(t *testing.T) {
			w := newWorld(t, e, l, uint64(500+i), 2)
			a, b, c := w.obj(w.randState()), w.obj(w.randState()), w.obj(w.randState())
			ab := w.merge(a, b)
			w.requireSame(ab, w.merge(b, a), "commutative")
			w.requireSame(w.merge(ab, c), w.merge(a, w.merge(b, c)), "associative")
			w.requireSame(w.merge(a, a), a, "idempotent")
			require.Equal(t, w.model(ab.s), w.read(ab))
		})
	}
}

// TestStoreAndLongChain: a committee Store binds handles to ciphertexts, and
// a chain of many incremental merges (one replica write at a time, as the
// precompile's Put produces them) stays bit-identical to the from-scratch
// aggregate — the noise is that of the current contributions, not of the
// history.
func TestStoreAndLongChain(t *testing.T) {
	t.Parallel()
	l := meta.Layout{Type: meta.TypePNCounter, Preset: uint8(fhetest.InsecureBGVN10), Level: 0, Blocks: 8, Width: 16}
	e := newEnv(t, fhetest.InsecureBGVN10, false, l)
	st := NewStore(e.eng)
	r := rand.New(rand.NewPCG(11, 12))
	cur := obj{s: &meta.State{Layout: l}}
	model := make([]int64, l.Blocks*l.Width)
	versions := make([]uint64, l.Blocks)
	for step := 0; step < 120; step++ {
		b := r.Uint32N(l.Blocks)
		lo, _ := l.BlockLanes(b)
		for j := 0; j < int(l.Width); j++ {
			model[lo+j] += r.Int64N(21) - 10
		}
		raw, err := e.enc.EncryptInts(model[:lo+int(l.Width)][:])
		require.NoError(t, err)
		h, err := raw.Handle()
		require.NoError(t, err)
		versions[b]++
		en := meta.Entry{Block: b, Clock: versions[b], Replica: b, Handle: meta.Handle(h)}
		require.NoError(t, st.Ingest(l, en, raw))
		require.NoError(t, st.Ingest(l, en, raw), "idempotent ingest")
		single := &meta.State{Layout: l, Entries: []meta.Entry{en}}
		c, err := st.Resolve(b, en.Handle)
		require.NoError(t, err)
		s, plan, err := meta.Join(cur.s, single)
		require.NoError(t, err)
		agg, err := e.eng.Materialise(plan, cur.agg, c, st.Resolve)
		require.NoError(t, err)
		cur = obj{s: s, agg: agg}
	}
	scratch, err := e.eng.Aggregate(cur.s, st.Resolve)
	require.NoError(t, err)
	require.Equal(t, bytesOf(t, scratch), bytesOf(t, cur.agg))
	got, err := e.dec.DecryptInts(cur.agg)
	require.NoError(t, err)
	require.Equal(t, model, got[:len(model)])
	tot, err := e.eng.CounterTotals(l, cur.agg)
	require.NoError(t, err)
	v, err := e.dec.DecryptInts(tot)
	require.NoError(t, err)
	for j := 0; j < int(l.Width); j++ {
		var sum int64
		for b := 0; b < int(l.Blocks); b++ {
			sum += model[b*int(l.Width)+j]
		}
		require.Equal(t, sum, v[j])
	}
	// a handle that does not match the ciphertext is refused
	raw, err := e.enc.EncryptInts([]int64{1})
	require.NoError(t, err)
	require.ErrorIs(t, st.Ingest(l, meta.Entry{Block: 0, Clock: 99, Replica: 0, Handle: meta.Handle{1}}, raw), ErrInput)
	_, err = st.Resolve(0, meta.Handle{1})
	require.ErrorIs(t, err, ErrMissing)
}

// TestLinearSumMatchesAddSub: the lazy-reduction LinearSum equals the
// facade's reduced Add/Sub chain byte for byte, and refuses mixed levels.
func TestLinearSumMatchesAddSub(t *testing.T) {
	t.Parallel()
	e := newEnv(t, fhetest.InsecureBGVN10, false)
	ev := e.eng.Evaluator()
	r := rand.New(rand.NewPCG(5, 6))
	var cts []*fhe.Ciphertext
	for i := 0; i < 8; i++ {
		c, err := e.enc.EncryptInts(fhetest.RandInts(r, 1024, 30000))
		require.NoError(t, err)
		cts = append(cts, c)
	}
	want := cts[0]
	var err error
	for _, c := range cts[1:5] {
		want, err = ev.Add(want, c)
		require.NoError(t, err)
	}
	for _, c := range cts[5:] {
		want, err = ev.Sub(want, c)
		require.NoError(t, err)
	}
	got, err := ev.LinearSum(cts[:5], cts[5:])
	require.NoError(t, err)
	require.Equal(t, bytesOf(t, want), bytesOf(t, got))
	low, err := ev.DropLevels(cts[1], 1)
	require.NoError(t, err)
	_, err = ev.LinearSum([]*fhe.Ciphertext{cts[0], low}, nil)
	require.Error(t, err)
	_, err = ev.LinearSum(nil, cts)
	require.Error(t, err)
}
