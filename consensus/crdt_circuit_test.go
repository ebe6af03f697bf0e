package consensus_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/crdt"
	"github.com/fhegate/fhegate/fhe/crdt/meta"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/fhe/noise"
)

// crdtValuePolicy stands for precompiles.CRDTValuePolicyID (the chain adapter
// sets the real one; local.MemChain only checks it matches the request's).
var crdtValuePolicy = [32]byte{0xc7, 0xd7}

// crdtRequest encrypts one writer ciphertext per replica (replica r's
// counter 0 holds vals[r], its other lanes junk the mask removes, and lanes
// of other blocks junk the normalisation removes), uploads them through
// member 1 and builds the FHECRDT.ValueRequested request of the state.
func crdtRequest(t *testing.T, lc *local.Committee, id byte, typ meta.Type, width uint32, vals []int64) (chainio.Request, *meta.State) {
	t.Helper()
	m := lc.Member(1)
	p := m.Params()
	l := meta.Layout{Type: typ, Preset: uint8(p.Preset.ID), Level: 0, Blocks: uint32(len(vals)), Width: width}
	s, err := meta.New(l)
	require.NoError(t, err)
	for r, v := range vals {
		lanes := make([]int64, l.Lanes())
		for i := range lanes {
			lanes[i] = int64(1000*(r+1) + i) // junk outside counter 0 of block r
		}
		lo, _ := l.BlockLanes(uint32(r))
		lanes[lo] = v
		b, proof, err := m.EncryptInput(lanes, [20]byte{id})
		require.NoError(t, err)
		att, err := m.Upload(context.Background(), b, proof, [20]byte{id}, 1)
		require.NoError(t, err)
		s, err = s.Put(meta.Entry{Block: uint32(r), Clock: uint64(r + 1), Replica: uint32(r), Handle: meta.Handle(att.Handle)})
		require.NoError(t, err)
	}
	req := chainio.Request{ID: [32]byte{0xcd, id}, PolicyID: crdtValuePolicy, Kind: chainio.KindCRDT, CRDTKind: uint8(typ), CRDTMeta: s.Encode()}
	for _, h := range s.Handles() {
		req.Inputs = append(req.Inputs, fhe.Handle(h))
	}
	return req, s
}

// TestCommitteeValuesCRDT: the committee answers FHECRDT.ValueRequested for
// G- and PN-Counters: every member materialises the same aggregate, reads
// the total, and the verdict local.MemChain accepts (BLS-checked) is the plaintext
// total mod t.
func TestCommitteeValuesCRDT(t *testing.T) {
	t.Parallel()
	fc := newFloorChecker(fhe.MustParams(fhetest.InsecureBGVN10))
	lc := startTestKnobs(t, 3, 2, true, func(uint32) TestingKnobs { return fc.knobs() })
	p := lc.Member(1).Params()
	tmod := p.PlaintextModulus()
	cases := []struct {
		name  string
		typ   meta.Type
		width uint32
		vals  []int64
	}{
		{"g-counter", meta.TypeGCounter, 4, []int64{5, 17, 3}},
		{"pn-counter", meta.TypePNCounter, 2, []int64{40, -75, 7, 1, 2}},
	}
	var reqs []testReq
	for i, c := range cases {
		req, s := crdtRequest(t, lc, byte(i+1), c.typ, c.width, c.vals)
		circ, err := circuit.NewCRDT(req.CRDTKind, req.CRDTMeta, req.Inputs, p)
		require.NoError(t, err, c.name)
		require.Equal(t, s.Entries, circ.State().Entries)
		floor, err := noise.RefreshFloorLevel(p, circ.Bounds().NoiseBits, circ.Bounds().WorstBits)
		require.NoError(t, err)
		require.GreaterOrEqual(t, int(circ.State().Layout.Level), floor, c.name)
		var total int64
		for _, v := range c.vals {
			total += v
		}
		want := mod(total, tmod)
		require.Equal(t, want, circ.Reference(p, c.vals), c.name)
		reqs = append(reqs, testReq{req: req, want: want})
	}
	for _, r := range reqs {
		lc.Chain.Post(r.req)
	}
	waitVerdicts(t, lc.Chain, reqs)
	// A PN-Counter's negative total is posted as t − |total|.
	v, _ := lc.Chain.Verdict(reqs[1].req.ID)
	require.Equal(t, tmod-25, v.Result.Uint64())
	// The layouts are at level 0; the committee valued them at its working
	// level, and every refresh (of a read result) had room for its flooding.
	fc.check(t, 0)
}

// TestCRDTRequestRejected: malformed value requests fail cleanly before any
// protocol round.
func TestCRDTRequestRejected(t *testing.T) {
	t.Parallel()
	lc := startTest(t, 3, 2, false)
	good, _ := crdtRequest(t, lc, 9, meta.TypeGCounter, 2, []int64{1, 2})
	empty, err := meta.New(meta.Layout{Type: meta.TypeGCounter, Preset: good.CRDTMeta[6], Blocks: 2, Width: 2})
	require.NoError(t, err)
	otherPreset := append([]byte(nil), good.CRDTMeta...)
	otherPreset[6]++
	for _, tc := range []struct {
		name string
		edit func(r *chainio.Request)
	}{
		{"kind mismatch", func(r *chainio.Request) { r.CRDTKind = uint8(meta.TypeLWW) }},
		{"bad metadata", func(r *chainio.Request) { r.CRDTMeta = r.CRDTMeta[:len(r.CRDTMeta)-1] }},
		{"other preset", func(r *chainio.Request) { r.CRDTMeta = otherPreset }},
		{"empty state", func(r *chainio.Request) { r.CRDTMeta, r.Inputs = empty.Encode(), nil }},
		{"missing input", func(r *chainio.Request) { r.Inputs = r.Inputs[:1] }},
		{"swapped inputs", func(r *chainio.Request) { r.Inputs = []fhe.Handle{r.Inputs[1], r.Inputs[0]} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := good
			r.Inputs = append([]fhe.Handle(nil), good.Inputs...)
			tc.edit(&r)
			_, err := lc.Member(1).Process(context.Background(), r)
			require.ErrorIs(t, err, circuit.ErrBadCRDTRequest)
		})
	}
}

// TestCRDTGaloisElements: the DKG generates every Galois key a CRDT read of
// the preset can need, whatever rotations the committee was configured with.
func TestCRDTGaloisElements(t *testing.T) {
	t.Parallel()
	lc := startTest(t, 3, 2, false)
	p := lc.Member(1).Params()
	have := map[uint64]bool{}
	for _, g := range lc.Config.GaloisElements(p) {
		require.False(t, have[g], "duplicate element %d", g)
		have[g] = true
	}
	for _, l := range []meta.Layout{
		{Type: meta.TypeGCounter, Blocks: 3, Width: 4},
		{Type: meta.TypePNCounter, Blocks: uint32(p.Slots() / 2), Width: 2},
		{Type: meta.TypeGCounter, Blocks: 2, Width: uint32(p.Slots() / 2)},
		{Type: meta.TypeSet, Blocks: 3, Width: uint32(p.Slots())},
		{Type: meta.TypeSet, Blocks: 2, Width: 5},
	} {
		l.Preset = uint8(p.Preset.ID)
		for _, g := range crdt.ReadGaloisElements(p, l) {
			require.True(t, have[g], "%v %d×%d needs Galois element %d", l.Type, l.Blocks, l.Width, g)
		}
	}
	// The member's evaluator holds them: a full-width cardinality sum works.
	ev, err := lc.Member(1).Evaluator()
	require.NoError(t, err)
	ct, err := fhe.NewEncryptor(lc.Keys).EncryptInts([]int64{1, 2, 3})
	require.NoError(t, err)
	_, err = ev.InnerSum(ct, 1, p.Slots())
	require.NoError(t, err)
}
