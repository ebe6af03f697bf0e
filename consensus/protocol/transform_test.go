package protocol

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"

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
	// groupEdit, if set, changes member i's group (transform).
	groupEdit func(i int, g *Group)
}

func newTransformFixture(t *testing.T, inputs int, seed uint64) *transformFixture {
	return newTransformFixtureOf(t, newRefreshCommittee(t, fhetest.InsecureBGVN10), inputs, seed)
}

// newTransformFixtureOf is newTransformFixture on committee rc.
func newTransformFixtureOf(t *testing.T, rc *refreshCommittee, inputs int, seed uint64) *transformFixture {
	f := &transformFixture{refreshCommittee: rc}
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

// transform runs RefreshTransform on every member (every member contributing)
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
			r.Active = c.members
		}
		if f.edit != nil {
			f.edit(i, &r)
		}
		l := Ledger(c.ledgers[i])
		if led != nil {
			l = led(i)
		}
		g := c.group(i, t)
		if f.groupEdit != nil {
			f.groupEdit(i, &g)
		}
		o, err := RefreshTransform(context.Background(), g, c.keys[i], l, r)
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

// unpackReq is the request of l's un-interleaving transform.
func unpackReq(session string, ins []*fhe.Ciphertext, l fhe.VectorLayout) TransformRequest {
	return TransformRequest{Session: session, Inputs: ins, Outputs: l.K, TransformID: fmt.Sprintf("unpack/%d/%d", l.K, l.Requests),
		Transform: l.Unpack, Adjoint: l.UnpackAdjoint}
}

// unpacked is Unpack of f's plaintexts.
func (f *transformFixture) unpacked(t *testing.T, l fhe.VectorLayout) [][]uint64 {
	want := make([][]uint64, l.K)
	for k := range want {
		want[k] = make([]uint64, f.p.Slots())
	}
	require.NoError(t, l.Unpack(f.plain, want))
	return want
}

// TestRefreshTransformVector: two inputs un-interleaved into three outputs
// by VectorLayout.Unpack (out_k[r] = in[r mod 2][⌊r/2⌋·4 + k]): every
// receiver computes the same outputs, at the top level, and each decrypts
// to the transform of the plaintexts in every slot.
func TestRefreshTransformVector(t *testing.T) {
	t.Parallel()
	f := newTransformFixture(t, 2, 1)
	l := vectorLayout(t, f.p)
	outs, errs := f.transform(t, nil, unpackReq("rt/vector", f.ins, l))
	require.NoError(t, errs2(errs))
	want := f.unpacked(t, l)
	require.NotEqual(t, want[0], want[1])
	require.Equal(t, []int{2, 2, 1}, f.issued(), "one mask message per masker (members 1 and 2) and one share bundle per contributor")
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
	outs, errs := f.transform(t, nil, unpackReq("rt/workers", f.ins, l))
	require.NoError(t, errs2(errs))
	want := f.unpacked(t, l)
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
// transform: the output decrypts like Refresh's, with the same metadata.
func TestRefreshTransformIdentity(t *testing.T) {
	t.Parallel()
	f := newTransformFixture(t, 1, 2)
	id := func(in, out [][]uint64) error {
		copy(out[0], in[0])
		return nil
	}
	outs, errs := f.transform(t, nil, TransformRequest{Session: "rt/id", Inputs: f.ins, Outputs: 1, TransformID: "identity", Transform: id, Adjoint: id})
	require.NoError(t, errs2(errs))
	require.Equal(t, f.p.MaxLevel(), outs[0].Level())
	f.decryptTo(t, "rt/id/dec", outs[0], f.plain[0])
	ref, err := f.refresh(t, "rt/id/refresh", f.ins[0], 0, 0)
	require.NoError(t, err)
	require.Equal(t, ref.Level(), outs[0].Level())
	require.True(t, ref.Lattigo().MetaData.Equal(outs[0].Lattigo().MetaData), "same metadata as Refresh's output")
	f.decryptTo(t, "rt/id/refresh/dec", ref, f.plain[0])
}

// TestUnpackAdjoint: ⟨ρ, Unpack(x)⟩ = ⟨UnpackAdjoint(ρ), x⟩ mod t on random
// vectors, and the adjoint overwrites every entry.
func TestUnpackAdjoint(t *testing.T) {
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	l := vectorLayout(t, p)
	tm := p.PlaintextModulus()
	r := rand.New(rand.NewPCG(5, 5))
	vec := func(n int) [][]uint64 {
		v := make([][]uint64, n)
		for i := range v {
			v[i] = make([]uint64, p.Slots())
			for j := range v[i] {
				v[i][j] = r.Uint64N(tm)
			}
		}
		return v
	}
	x, rho, ux, arho := vec(l.Accs), vec(l.K), vec(l.K), vec(l.Accs)
	require.NoError(t, l.Unpack(x, ux))
	require.NoError(t, l.UnpackAdjoint(rho, arho))
	require.Equal(t, ip(tm, rho, ux), ip(tm, arho, x))
	require.Error(t, l.UnpackAdjoint(rho[:1], arho))
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
	base := unpackReq("", f.ins, l)
	for _, tc := range []struct {
		name string
		mod  func(r *TransformRequest)
		is   error
		msg  string
	}{
		{name: "below floor", mod: func(r *TransformRequest) { r.Inputs = []*fhe.Ciphertext{below, below} }, is: ErrRefreshNoRoom,
			msg: fmt.Sprintf("level %d, floor", f.floor-1)},
		{name: "levels differ", mod: func(r *TransformRequest) { r.Inputs = []*fhe.Ciphertext{f.ins[0], above} }, msg: "input 1 at level"},
		{name: "scales differ", mod: func(r *TransformRequest) { r.Inputs = []*fhe.Ciphertext{f.ins[0], rescaled} }, msg: "input 1 has scale"},
		{name: "no inputs", mod: func(r *TransformRequest) { r.Inputs = nil }, msg: "of 0 inputs"},
		{name: "too many inputs", mod: func(r *TransformRequest) { r.Inputs = many }, msg: fmt.Sprintf("of %d inputs", MaxTransformInputs+1)},
		{name: "no outputs", mod: func(r *TransformRequest) { r.Outputs = 0 }, msg: "into 0 outputs"},
		{name: "too many outputs", mod: func(r *TransformRequest) { r.Outputs = MaxTransformOutputs + 1 }, msg: fmt.Sprintf("into %d outputs", MaxTransformOutputs+1)},
		{name: "nil transform", mod: func(r *TransformRequest) { r.Transform = nil }, msg: "without a transform"},
		{name: "nil adjoint", mod: func(r *TransformRequest) { r.Adjoint = nil }, msg: "without the transform's adjoint"},
		{name: "wrong adjoint", mod: func(r *TransformRequest) {
			r.Adjoint = func(out, in [][]uint64) error {
				if err := l.UnpackAdjoint(out, in); err != nil {
					return err
				}
				in[0][0]++
				return nil
			}
		}, msg: "Adjoint is not the adjoint of Transform"},
		{name: "two contributors", mod: func(r *TransformRequest) { r.Active = []transport.MemberID{1, 2} }, is: ErrUnchecked, msg: "needs 3 contributing members for t=2"},
		{name: "not ascending", mod: func(r *TransformRequest) { r.Active = []transport.MemberID{2, 1, 3} }, msg: "not ascending"},
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

// mangleLedger issues member shares of one kind through l and returns them
// mangled.
type mangleLedger struct {
	l      *memLedger
	kind   ShareKind
	mangle func([]byte) []byte
}

func (m mangleLedger) Issue(kind ShareKind, d [32]byte, e uint64, s string, gen func() ([]byte, error)) ([]byte, error) {
	b, err := m.l.Issue(kind, d, e, s, gen)
	if err != nil || kind != m.kind {
		return b, err
	}
	return m.mangle(append([]byte(nil), b...)), nil
}

// TestRefreshTransformMalformed: a malformed mask message or share bundle
// from member 2 fails the transform on every other member with an error
// naming member 2, no panic.
func TestRefreshTransformMalformed(t *testing.T) {
	t.Parallel()
	f := newTransformFixture(t, 2, 4)
	l := vectorLayout(t, f.p)
	for _, tc := range []struct {
		name   string
		kind   ShareKind
		mangle func([]byte) []byte
		msg    string
	}{
		{name: "masks truncated", kind: KindRefreshMask, mangle: func(b []byte) []byte { return b[:len(b)-1] }, msg: "refresh transform mask refused"},
		{name: "masks empty", kind: KindRefreshMask, mangle: func(b []byte) []byte { return nil }, msg: "mask message of 0 bytes"},
		{name: "masks count", kind: KindRefreshMask, mangle: func(b []byte) []byte { binary.BigEndian.PutUint16(b, 4); return b }, msg: "mask message of 4 masks, want 5"},
		{name: "masks huge length", kind: KindRefreshMask, mangle: func(b []byte) []byte { binary.BigEndian.PutUint32(b[2:], 1<<31); return b }, msg: "in the"},
		{name: "mask proof", kind: KindRefreshMask, mangle: func(b []byte) []byte { b[len(b)-100] ^= 1; return b }, msg: "mask 4: mask proof"},
		{name: "shares truncated", kind: KindRefresh, mangle: func(b []byte) []byte { return b[:len(b)-1] }, msg: "share bundle of"},
		{name: "shares empty", kind: KindRefresh, mangle: func(b []byte) []byte { return nil }, msg: "share bundle of 0 bytes"},
		{name: "check unreduced", kind: KindRefresh, mangle: func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[len(b)-8:], ^uint64(0))
			return b
		}, msg: "check share not reduced"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			led := func(i int) Ledger {
				if i == 1 {
					return mangleLedger{l: f.c.ledgers[i], kind: tc.kind, mangle: tc.mangle}
				}
				return f.c.ledgers[i]
			}
			_, errs := f.transform(t, led, unpackReq("rt/bad/"+tc.name, f.ins, l))
			for i, err := range errs {
				require.Error(t, err, "member %d", i+1)
				if i == 1 {
					continue // the mangler itself
				}
				var e *ErrEquivocation
				require.ErrorAs(t, err, &e, "member %d", i+1)
				require.Equal(t, transport.MemberID(2), e.Member)
				require.ErrorContains(t, err, tc.msg)
			}
		})
	}
}

// FuzzTransformMasks: the mask message splitter accepts exactly n masks
// whose lengths add up to the message, rejects anything else without
// panicking, and never slices beyond its input.
func FuzzTransformMasks(f *testing.F) {
	good := []byte{0, 2, 0, 0, 0, 1, 7, 0, 0, 0, 2, 8, 9}
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add([]byte{0xff, 0xff})
	f.Add([]byte{0, 2, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		parts, err := splitTransformMasks(b, 2)
		if err != nil {
			return
		}
		out := []byte{0, 2}
		for _, m := range parts {
			out = binary.BigEndian.AppendUint32(out, uint32(len(m)))
			out = append(out, m...)
		}
		if !slices.Equal(out, b) {
			t.Fatal("accepted message does not re-encode to its bytes")
		}
	})
}

// TestRefreshTransformOneMemberCannotMoveIt: a member running modified code
// tries to move a refresh transform's outputs — by output masks that are
// not the transform of its input masks (each proven: the proofs verify),
// by shifting its decryption shares of a masked input, or by shifting its
// check shares. Every honest member returns no output; a masker with bad
// output masks is named by all of them; the 2-of-3 committee names nobody
// for a shifted share (r = 2t−1: every explanation is possible) and the
// 2-of-4 committee names the member that shifts all its shares alike.
func TestRefreshTransformOneMemberCannotMoveIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ n, th int }{{3, 2}, {4, 2}} {
		name := fmt.Sprintf("%d-of-%d", tc.th, tc.n)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := fhe.MustParams(fhetest.InsecureBGVN10)
			rc := &refreshCommittee{c: newCommittee(t, p, tc.n, tc.th, nil), p: p}
			var err error
			rc.ev, err = fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: rc.c.kms[0].Relin})
			require.NoError(t, err)
			rc.plan, err = PlanNoise(p, tc.n, tc.th, 0)
			require.NoError(t, err)
			rc.enc = fhe.NewEncryptor(rc.c.kms[0].Public)
			f := newTransformFixtureOf(t, rc, 2, 9)
			l := vectorLayout(t, p)
			const bad = 1 // member 2: a masker
			honest := slices.DeleteFunc(all(tc.n), func(i int) bool { return i == bad })
			named := make([][]transport.MemberID, tc.n)
			var mu sync.Mutex
			f.groupEdit = func(i int, g *Group) {
				g.OnEquivocation = func(e ErrEquivocation) {
					mu.Lock()
					defer mu.Unlock()
					named[i] = append(named[i], e.Member)
				}
			}
			run := func(t *testing.T, session string, hook roundHook, edit func(vals [][]int64)) []error {
				clear(named)
				f.c.hooks = nil
				if hook != nil {
					f.c.hooks = map[int]roundHook{bad: hook}
				}
				prev := f.groupEdit
				f.groupEdit = func(i int, g *Group) {
					prev(i, g)
					if i == bad {
						g.transformMaskEdit = edit
					}
				}
				defer func() { f.groupEdit, f.c.hooks = prev, nil }()
				_, errs := f.transform(t, nil, unpackReq(session, f.ins, l))
				for _, i := range honest {
					require.Error(t, errs[i], "member %d used outputs member %d moved", i+1, bad+1)
					for _, id := range named[i] {
						require.Equal(t, transport.MemberID(bad+1), id, "member %d named an honest member", i+1)
					}
				}
				return errs
			}
			t.Run("honest", func(t *testing.T) {
				outs, errs := f.transform(t, nil, unpackReq("atk/honest", f.ins, l))
				require.NoError(t, errs2(errs))
				want := f.unpacked(t, l)
				f.decryptTo(t, "atk/honest/dec", outs[0], want[0])
			})
			t.Run("output mask shifted, proven", func(t *testing.T) {
				errs := run(t, "atk/wmask", nil, func(vals [][]int64) {
					w := vals[len(f.ins)] // output 0's mask
					w[0] = (w[0] + 1) % int64(p.PlaintextModulus())
				})
				for _, i := range honest {
					var e *ErrEquivocation
					require.ErrorAs(t, errs[i], &e)
					require.Equal(t, transport.MemberID(bad+1), e.Member)
					require.Contains(t, e.Reason, "output masks are not the transform of its input masks")
					require.Contains(t, named[i], transport.MemberID(bad+1))
				}
			})
			t.Run("input mask shifted, proven", func(t *testing.T) {
				errs := run(t, "atk/xmask", nil, func(vals [][]int64) {
					vals[0][0] = (vals[0][0] + 1) % int64(p.PlaintextModulus())
				})
				for _, i := range honest {
					var e *ErrEquivocation
					require.ErrorAs(t, errs[i], &e)
					require.Equal(t, transport.MemberID(bad+1), e.Member)
				}
			})
			subsets := subsetsOf(f.c.members, tc.th)
			shareHook := func(edit func(own []byte) []byte) roundHook {
				return func(stage hookStage, session string, typ transport.Type, own []byte, _ func() map[transport.MemberID][]byte) []byte {
					if stage != hookSend || typ != transport.TypeRefreshShare || strings.HasSuffix(session, "/mask") || !strings.HasPrefix(session, "atk/") {
						return own
					}
					return edit(own)
				}
			}
			t.Run("input share shifted alike", func(t *testing.T) {
				errs := run(t, "atk/inshare", shareHook(func(own []byte) []byte {
					held := 0
					for _, s := range subsets {
						if contains(s, transport.MemberID(bad+1)) {
							held++
						}
					}
					size := held * (1 + (f.floor+1)*p.N()*8)
					first := shiftBundle(t, p, f.ins[0], transport.MemberID(bad+1), subsets, own[:size], func(int) bool { return true })
					return slices.Concat(first, own[size:])
				}), nil)
				for _, i := range honest {
					var e *ErrRefreshDisagree
					require.ErrorAs(t, errs[i], &e)
					if tc.n == 4 {
						require.Equal(t, []transport.MemberID{bad + 1}, e.Named)
					} else {
						require.Empty(t, e.Named)
					}
				}
			})
			t.Run("check share shifted alike", func(t *testing.T) {
				top := p.MaxLevel()
				moduli := p.RLWE().RingQ().AtLevel(top).ModuliChain()[:top+1]
				tInv := make([]uint64, len(moduli))
				for j, q := range moduli {
					tInv[j] = new(big.Int).ModInverse(new(big.Int).SetUint64(p.PlaintextModulus()), new(big.Int).SetUint64(q)).Uint64()
				}
				errs := run(t, "atk/checkshare", shareHook(func(own []byte) []byte {
					out := slices.Clone(own)
					// every check residue of the bundle: its tail
					nc := TransformChecks(p.PlaintextModulus()) * tc.th
					held := RefreshSubsets(tc.n-1, tc.th-1)
					n := held * nc * (top + 1)
					base := len(out) - 8*n
					for x := range n {
						o := base + 8*x
						q := moduli[x%(top+1)]
						v := binary.LittleEndian.Uint64(out[o:])
						binary.LittleEndian.PutUint64(out[o:], (v+tInv[x%(top+1)])%q)
					}
					return out
				}), nil)
				for _, i := range honest {
					var e *ErrRefreshDisagree
					require.ErrorAs(t, errs[i], &e)
					if tc.n == 4 {
						require.Equal(t, []transport.MemberID{bad + 1}, e.Named)
					} else {
						require.Empty(t, e.Named)
					}
				}
			})
		})
	}
}

// TestRefreshTransformGroups: when a masker's A + K masks would not fit a
// message the outputs are refreshed in groups, each with masks of its own
// (here a limit that holds the two input masks and one output mask: three
// groups); the outputs are those of one group, in order.
func TestRefreshTransformGroups(t *testing.T) {
	t.Parallel()
	f := newTransformFixture(t, 2, 6)
	l := vectorLayout(t, f.p)
	zk, err := proofKey(f.c.kms[0].Public, nil)
	require.NoError(t, err)
	mb, err := maskBytes(zk.PK.Params())
	require.NoError(t, err)
	limit := 2 + 3*(4+mb)
	groups, err := transformGroups(zk, 2, l.K, limit)
	require.NoError(t, err)
	require.Equal(t, [][2]int{{0, 1}, {1, 2}, {2, 3}}, groups)
	_, err = transformGroups(zk, 3, l.K, limit)
	require.ErrorContains(t, err, "do not fit a message")
	f.groupEdit = func(_ int, g *Group) { g.transformMessageLimit = limit }
	outs, errs := f.transform(t, nil, unpackReq("rt/groups", f.ins, l))
	require.NoError(t, errs2(errs))
	require.Equal(t, []int{2 * 3, 2 * 3, 3}, f.issued(), "a mask message and a share bundle per group")
	want := f.unpacked(t, l)
	for k, o := range outs {
		f.decryptTo(t, fmt.Sprintf("rt/groups/dec/%d", k), o, want[k])
	}
}
