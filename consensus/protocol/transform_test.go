package protocol

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/multiparty"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/fhe/noise"
)

// transformFixture is a 2-of-3 committee (newRefreshCommittee) with A
// inputs encrypting random slot vectors at the refresh floor and their
// plaintexts (mod t).
type transformFixture struct {
	*refreshCommittee
	floor int
	ins   []*fhe.Ciphertext
	plain [][]uint64
	// edit, if set, changes member i's copy of the request (transform).
	edit func(i int, r *TransformRequest)
}

func newTransformFixture(t *testing.T, inputs int, seed uint64) *transformFixture {
	f := &transformFixture{refreshCommittee: newRefreshCommittee(t, fhetest.InsecureBGVN10)}
	var err error
	f.floor, err = noise.RefreshFloorLevel(f.p, 0, 0)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(seed, 17))
	tp := f.p.PlaintextModulus()
	for range inputs {
		x := fhetest.RandInts(r, f.p.Slots(), int64(tp/2))
		f.ins = append(f.ins, f.encAt(t, x, f.floor))
		u := make([]uint64, len(x))
		for i, v := range x {
			u[i] = uint64((v%int64(tp) + int64(tp)) % int64(tp))
		}
		f.plain = append(f.plain, u)
	}
	return f
}

// encAt encrypts x and drops it to level l.
func (f *transformFixture) encAt(t *testing.T, x []int64, l int) *fhe.Ciphertext {
	ct, err := f.enc.EncryptInts(x)
	require.NoError(t, err)
	ct, err = f.ev.DropLevels(ct, ct.Level()-l)
	require.NoError(t, err)
	return ct
}

// transform runs RefreshTransform on every member (members 1 and 2 active)
// with the ledger of member i given by led (nil: the committee's), and
// returns member 1's outputs after checking that every member computed the
// same bytes, or the first error.
func (f *transformFixture) transform(t *testing.T, led func(i int) Ledger, req TransformRequest) ([]*fhe.Ciphertext, []error) {
	c := f.c
	outs := make([][]*fhe.Ciphertext, c.n)
	errs := parallel(all(c.n), func(i int) error {
		r := req
		r.Receivers, r.PublicKey = c.members, c.kms[i].Public
		if r.Active == nil {
			r.Active = []transport.MemberID{1, 2}
		}
		if f.edit != nil {
			f.edit(i, &r)
		}
		l := Ledger(c.ledgers[i])
		if led != nil {
			l = led(i)
		}
		o, err := RefreshTransform(context.Background(), c.group(i, t), c.keys[i], l, r)
		outs[i] = o
		return err
	})
	for _, err := range errs {
		if err != nil {
			return nil, errs
		}
	}
	for i := range outs {
		require.Len(t, outs[i], req.Outputs)
	}
	for k := range req.Outputs {
		h0, err := outs[0][k].Handle()
		require.NoError(t, err)
		for i := 1; i < c.n; i++ {
			h, err := outs[i][k].Handle()
			require.NoError(t, err)
			require.Equal(t, h0, h, "member %d computes the same output %d", i+1, k)
		}
	}
	return outs[0], nil
}

// decryptTo threshold-decrypts ct among all members and checks every
// member's result against want (mod t).
func (f *transformFixture) decryptTo(t *testing.T, session string, ct *fhe.Ciphertext, want []uint64) {
	c := f.c
	tp := f.p.PlaintextModulus()
	wantC := fhe.Centre(want, tp)
	errs := parallel(all(c.n), func(i int) error {
		res, err := ThresholdDecrypt(context.Background(), c.group(i, t), c.keys[i], f.plan, f.ev, c.ledgers[i],
			DecryptRequest{Session: session, Ciphertext: ct, Participants: c.members, PublicKey: c.kms[i].Public})
		if err != nil {
			return err
		}
		if got := fhe.Centre(res.Values, tp); !slices.Equal(got, wantC) {
			return fmt.Errorf("member %d decrypted %v…, want %v…", i+1, got[:4], wantC[:4])
		}
		return nil
	})
	for _, err := range errs {
		require.NoError(t, err)
	}
}

func (f *transformFixture) issued() []int {
	out := make([]int, f.c.n)
	for i, l := range f.c.ledgers {
		out[i] = l.count()
	}
	return out
}

// vectorLayout is the un-interleaving transform of 300 vector requests of
// 3 attributes on N = 2^10 (stride 4): 2 accumulators, 3 outputs.
func vectorLayout(t *testing.T, p *fhe.Params) fhe.VectorLayout {
	l, err := fhe.NewVectorLayout(p, 3, 300)
	require.NoError(t, err)
	require.Equal(t, 2, l.Accs)
	return l
}

// TestRefreshTransformVector: two inputs un-interleaved into three outputs
// by VectorLayout.Unpack (out_k[r] = in[r mod 2][⌊r/2⌋·4 + k]): every
// receiver computes the same outputs, at the top level, and each decrypts
// to the transform of the plaintexts in every slot.
func TestRefreshTransformVector(t *testing.T) {
	t.Parallel()
	f := newTransformFixture(t, 2, 1)
	l := vectorLayout(t, f.p)
	outs, errs := f.transform(t, nil, TransformRequest{Session: "rt/vector", Inputs: f.ins, Outputs: l.K, TransformID: "unpack/3/300", Transform: l.Unpack})
	require.NoError(t, errs2(errs))
	want := make([][]uint64, l.K)
	for k := range want {
		want[k] = make([]uint64, f.p.Slots())
	}
	require.NoError(t, l.Unpack(f.plain, want))
	require.NotEqual(t, want[0], want[1])
	require.Equal(t, []int{1, 1, 0}, f.issued(), "one share per active member and request (member 3 is passive)")
	for k, o := range outs {
		require.Equal(t, f.p.MaxLevel(), o.Level())
		f.decryptTo(t, fmt.Sprintf("rt/vector/dec/%d", k), o, want[k])
	}
}

// TestRefreshTransformWorkers: members that spread the transform over
// different numbers of workers (1, 4 and 2; more inputs and outputs than
// any of them) compute the same output bytes from the same shares (the
// fixture checks every receiver's outputs against member 1's), and the
// outputs decrypt to the transform of the plaintexts.
func TestRefreshTransformWorkers(t *testing.T) {
	t.Parallel()
	f := newTransformFixture(t, 2, 3)
	l := vectorLayout(t, f.p)
	workers := []int{1, 4, 2}
	f.edit = func(i int, r *TransformRequest) { r.Workers = workers[i] }
	outs, errs := f.transform(t, nil, TransformRequest{Session: "rt/workers", Inputs: f.ins, Outputs: l.K, TransformID: "unpack/3/300", Transform: l.Unpack})
	require.NoError(t, errs2(errs))
	want := make([][]uint64, l.K)
	for k := range want {
		want[k] = make([]uint64, f.p.Slots())
	}
	require.NoError(t, l.Unpack(f.plain, want))
	for k, o := range outs {
		f.decryptTo(t, fmt.Sprintf("rt/workers/dec/%d", k), o, want[k])
	}
}

func errs2(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// TestRefreshTransformIdentity: one input, one output, the identity
// transform: the output decrypts like Refresh's.
func TestRefreshTransformIdentity(t *testing.T) {
	t.Parallel()
	f := newTransformFixture(t, 1, 2)
	id := func(in, out [][]uint64) error {
		copy(out[0], in[0])
		return nil
	}
	outs, errs := f.transform(t, nil, TransformRequest{Session: "rt/id", Inputs: f.ins, Outputs: 1, TransformID: "identity", Transform: id})
	require.NoError(t, errs2(errs))
	require.Equal(t, f.p.MaxLevel(), outs[0].Level())
	f.decryptTo(t, "rt/id/dec", outs[0], f.plain[0])
	ref, err := f.refresh(t, "rt/id/refresh", f.ins[0], 0, 0)
	require.NoError(t, err)
	require.Equal(t, ref.Level(), outs[0].Level())
	require.True(t, ref.Lattigo().MetaData.Equal(outs[0].Lattigo().MetaData), "same metadata as Refresh's output")
	f.decryptTo(t, "rt/id/refresh/dec", ref, f.plain[0])
}

// TestRefreshTransformRefusals: malformed requests are refused before any
// coin toss or share (no ledger entry).
func TestRefreshTransformRefusals(t *testing.T) {
	t.Parallel()
	f := newTransformFixture(t, 2, 3)
	l := vectorLayout(t, f.p)
	below := f.encAt(t, make([]int64, 1), f.floor-1)
	above := f.encAt(t, make([]int64, 1), f.floor+1)
	scaled := f.ins[1].Lattigo().CopyNew()
	scaled.Scale = rlwe.NewScale(3)
	rescaled, err := fhe.WrapCiphertext(f.p, scaled)
	require.NoError(t, err)
	many := make([]*fhe.Ciphertext, MaxTransformInputs+1)
	for i := range many {
		many[i] = f.ins[0]
	}
	base := TransformRequest{Inputs: f.ins, Outputs: l.K, TransformID: "unpack/3/300", Transform: l.Unpack}
	for _, tc := range []struct {
		name string
		mod  func(r *TransformRequest)
		is   error
		msg  string
	}{
		{name: "below floor", mod: func(r *TransformRequest) { r.Inputs = []*fhe.Ciphertext{below, below} }, is: ErrRefreshNoRoom,
			msg: fmt.Sprintf("level %d, floor %d", f.floor-1, f.floor)},
		{name: "levels differ", mod: func(r *TransformRequest) { r.Inputs = []*fhe.Ciphertext{f.ins[0], above} }, msg: "input 1 at level"},
		{name: "scales differ", mod: func(r *TransformRequest) { r.Inputs = []*fhe.Ciphertext{f.ins[0], rescaled} }, msg: "input 1 has scale"},
		{name: "no inputs", mod: func(r *TransformRequest) { r.Inputs = nil }, msg: "of 0 inputs"},
		{name: "too many inputs", mod: func(r *TransformRequest) { r.Inputs = many }, msg: fmt.Sprintf("of %d inputs", MaxTransformInputs+1)},
		{name: "no outputs", mod: func(r *TransformRequest) { r.Outputs = 0 }, msg: "into 0 outputs"},
		{name: "too many outputs", mod: func(r *TransformRequest) { r.Outputs = MaxTransformOutputs + 1 }, msg: fmt.Sprintf("into %d outputs", MaxTransformOutputs+1)},
		{name: "nil transform", mod: func(r *TransformRequest) { r.Transform = nil }, msg: "without a transform"},
		{name: "one active", mod: func(r *TransformRequest) { r.Active = []transport.MemberID{1} }, msg: "exactly t=2 active members, got 1"},
		{name: "three active", mod: func(r *TransformRequest) { r.Active = []transport.MemberID{1, 2, 3} }, msg: "exactly t=2 active members, got 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := f.issued()
			r := base
			r.Session = "rt/refuse/" + tc.name
			tc.mod(&r)
			_, errs := f.transform(t, nil, r)
			for i, err := range errs {
				require.Error(t, err, "member %d", i+1)
				if tc.is != nil {
					require.ErrorIs(t, err, tc.is)
				}
				require.ErrorContains(t, err, tc.msg)
			}
			require.Equal(t, before, f.issued(), "no share issued")
		})
	}
}

// mangleLedger issues member shares through l and returns them mangled.
type mangleLedger struct {
	l      *memLedger
	mangle func([]byte) []byte
}

func (m mangleLedger) Issue(kind ShareKind, d [32]byte, e uint64, s string, gen func() ([]byte, error)) ([]byte, error) {
	b, err := m.l.Issue(kind, d, e, s, gen)
	if err != nil {
		return nil, err
	}
	return m.mangle(append([]byte(nil), b...)), nil
}

// TestRefreshTransformMalformedShare: a malformed share from active member
// 2 fails the round on every member with an error naming it, no panic.
func TestRefreshTransformMalformedShare(t *testing.T) {
	t.Parallel()
	f := newTransformFixture(t, 2, 4)
	l := vectorLayout(t, f.p)
	n := f.p.N()
	e2sSize := 1 + (f.floor+1)*n*8
	for _, tc := range []struct {
		name   string
		mangle func([]byte) []byte
		msg    string
	}{
		{name: "truncated", mangle: func(b []byte) []byte { return b[:len(b)-1] }, msg: "bytes, want"},
		{name: "empty", mangle: func(b []byte) []byte { return nil }, msg: "share of 0 bytes"},
		{name: "more inputs", mangle: func(b []byte) []byte { binary.BigEndian.PutUint16(b, 3); return b }, msg: "has 3 e2s and 3 s2e shares, want 2 and 3"},
		{name: "fewer outputs", mangle: func(b []byte) []byte { binary.BigEndian.PutUint16(b[2:], 2); return b }, msg: "has 2 e2s and 2 s2e shares, want 2 and 3"},
		{name: "huge counts", mangle: func(b []byte) []byte { return []byte{0xff, 0xff, 0xff, 0xff} }, msg: "has 65535 e2s"},
		{name: "e2s level", mangle: func(b []byte) []byte { b[4] = byte(f.floor + 1); return b }, msg: "e2s share 0"},
		{name: "s2e level", mangle: func(b []byte) []byte { b[4+2*e2sSize] = byte(f.floor); return b }, msg: "s2e share 0"},
		{name: "unreduced", mangle: func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[4+e2sSize+1:], ^uint64(0))
			return b
		}, msg: "e2s share 1: protocol: decryption share coefficient not reduced"},
		{name: "e2s at the top level", mangle: func(b []byte) []byte {
			top := 1 + (f.p.MaxLevel()+1)*n*8
			return slices.Concat(b[:4], make([]byte, 2*top), b[4+2*e2sSize:])
		}, msg: "bytes, want"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			led := func(i int) Ledger {
				if i == 1 {
					return mangleLedger{l: f.c.ledgers[i], mangle: tc.mangle}
				}
				return f.c.ledgers[i]
			}
			_, errs := f.transform(t, led, TransformRequest{Session: "rt/bad/" + tc.name, Inputs: f.ins, Outputs: l.K, TransformID: "unpack/3/300", Transform: l.Unpack})
			for i, err := range errs {
				require.Error(t, err, "member %d", i+1)
				require.ErrorContains(t, err, "member 2: ")
				require.ErrorContains(t, err, tc.msg)
			}
		})
	}
}

// TestRefreshTransformShareDecoderBounded: a header claiming more shares
// than the request's is rejected before anything is allocated for them.
func TestRefreshTransformShareDecoderBounded(t *testing.T) {
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	b := []byte{0xff, 0xff, 0xff, 0xff}
	allocs := testing.AllocsPerRun(20, func() {
		s := transformShare{p: p, level: 1, inputs: 2, outputs: 3}
		require.Error(t, s.UnmarshalBinary(b))
	})
	require.LessOrEqual(t, allocs, 8.0)
}

// FuzzTransformShare: the refresh-transform share decoder accepts only a
// share of the request's shape (2 e2s shares at level 1, 3 s2e shares at
// the top level, reduced), rejects anything else without panicking, and
// never allocates for counts beyond the request's.
func FuzzTransformShare(f *testing.F) {
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	const level, inputs, outputs = 1, 2, 3
	good := make([]byte, transformShareSize(p, level, inputs, outputs))
	binary.BigEndian.PutUint16(good, inputs)
	binary.BigEndian.PutUint16(good[2:], outputs)
	o := 4
	for range inputs {
		good[o] = level
		o += 1 + (level+1)*p.N()*8
	}
	for range outputs {
		good[o] = byte(p.MaxLevel())
		o += 1 + (p.MaxLevel()+1)*p.N()*8
	}
	if err := (&transformShare{p: p, level: level, inputs: inputs, outputs: outputs}).UnmarshalBinary(good); err != nil {
		f.Fatalf("the well-formed seed is refused: %v", err)
	}
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add(good[:4])
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 2, 0, 3, 1})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		s := transformShare{p: p, level: level, inputs: inputs, outputs: outputs}
		if err := s.UnmarshalBinary(b); err != nil {
			return
		}
		if len(s.e2s) != inputs || len(s.s2e) != outputs {
			t.Fatalf("accepted %d e2s and %d s2e shares", len(s.e2s), len(s.s2e))
		}
		check := func(sh []multiparty.KeySwitchShare, l int) {
			for _, x := range sh {
				if x.Level() != l {
					t.Fatalf("share at level %d, want %d", x.Level(), l)
				}
				for i, q := range p.Q()[:l+1] {
					for _, c := range x.Value.Coeffs[i] {
						if c >= q {
							t.Fatal("unreduced coefficient accepted")
						}
					}
				}
			}
		}
		check(s.e2s, level)
		check(s.s2e, p.MaxLevel())
		if !slices.Equal(s.MarshalBinary(), b) {
			t.Fatal("accepted share does not re-encode to its bytes")
		}
	})
}
