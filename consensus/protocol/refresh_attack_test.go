package protocol

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/fhe/noise"
)

// A member running modified code tries to move a refresh's output. The
// shift it applies is a plaintext m′ = (v, 0, …, 0): only slot 0 changes, so
// a verdict-shaped result stays verdict-shaped — the attack that set any
// verdict through the old refresh's re-encryption share.
const shiftV = 1

// shiftPoly is t⁻¹·m′ at level, NTT domain, under z's metadata: adding it
// to a phase adds m′ to what decodes.
func shiftPoly(t *testing.T, p *fhe.Params, z *fhe.Ciphertext, level int) []byte {
	pt := bgv.NewPlaintext(p.BGV(), level)
	md := *z.Lattigo().MetaData
	pt.MetaData = &md
	vals := make([]uint64, p.Slots())
	vals[0] = shiftV
	require.NoError(t, bgv.NewEncoder(p.BGV()).Encode(vals, pt))
	return DecryptionShare{Level: level, Value: pt.Value}.MarshalBinary()
}

// shiftBundle adds t⁻¹·m′ to the shares of a bundle selected by which
// (index in the bundle → shift), re-encoding it.
func shiftBundle(t *testing.T, p *fhe.Params, z *fhe.Ciphertext, self transport.MemberID, subsets [][]transport.MemberID, b []byte, which func(k int) bool) []byte {
	level := z.Level()
	sh, err := splitSubsetShares(p, level, self, subsets, b)
	require.NoError(t, err)
	d, err := UnmarshalDecryptionShare(p, level, shiftPoly(t, p, z, level))
	require.NoError(t, err)
	rq := p.RLWE().RingQ().AtLevel(level)
	var out []byte
	for k, s := range sh {
		if which(k) {
			rq.Add(s.Value, d.Value, s.Value)
		}
		out = append(out, s.MarshalBinary()...)
	}
	return out
}

type refreshOutcome struct {
	outs []*fhe.Ciphertext
	errs []error
	// named collects, per member, whom it reported (OnEquivocation).
	named [][]transport.MemberID
}

// runRefresh runs Refresh of ct on every member of c with every member
// contributing; member hooks are c.hooks.
func runRefresh(t *testing.T, c *testCommittee, session string, ct *fhe.Ciphertext) refreshOutcome {
	o := refreshOutcome{outs: make([]*fhe.Ciphertext, c.n), named: make([][]transport.MemberID, c.n)}
	o.errs = parallel(all(c.n), func(i int) error {
		g := c.group(i, t)
		g.OnEquivocation = func(e ErrEquivocation) { o.named[i] = append(o.named[i], e.Member) }
		out, err := Refresh(context.Background(), g, c.keys[i], c.ledgers[i], RefreshRequest{Session: session, Ciphertext: ct,
			Active: c.members, Receivers: c.members, PublicKey: c.kms[i].Public})
		o.outs[i] = out
		return err
	})
	return o
}

// refreshInput is a ciphertext of want at the refresh floor of c's preset.
func refreshInput(t *testing.T, c *testCommittee, want []int64) *fhe.Ciphertext {
	p := c.keys[0].Params
	ct, err := fhe.NewEncryptor(c.kms[0].Public).EncryptInts(want)
	require.NoError(t, err)
	floor, err := noise.RefreshFloorLevel(p, 0, 0)
	require.NoError(t, err)
	ev, err := fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: c.kms[0].Relin})
	require.NoError(t, err)
	ct, err = ev.DropLevels(ct, ct.Level()-floor)
	require.NoError(t, err)
	return ct
}

// decryptAll threshold-decrypts ct among every member of c (no hooks) and
// returns the centred values.
func decryptAll(t *testing.T, c *testCommittee, ct *fhe.Ciphertext, session string) []int64 {
	p := c.keys[0].Params
	plan, err := PlanNoise(p, c.n, c.t, 0)
	require.NoError(t, err)
	ev, err := fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: c.kms[0].Relin})
	require.NoError(t, err)
	hooks := c.hooks
	c.hooks = nil
	defer func() { c.hooks = hooks }()
	vals := make([][]int64, c.n)
	errs := parallel(all(c.n), func(i int) error {
		res, err := ThresholdDecrypt(context.Background(), c.group(i, t), c.keys[i], plan, ev, c.ledgers[i],
			DecryptRequest{Session: session, Ciphertext: ct, Participants: c.members, PublicKey: c.kms[i].Public})
		if err != nil {
			return err
		}
		vals[i] = fhe.Centre(res.Values, p.PlaintextModulus())
		return nil
	})
	for _, err := range errs {
		require.NoError(t, err)
	}
	return vals[0]
}

// TestRefreshOneMemberCannotMoveIt: a member that shifts its refresh shares
// (one subset's, or all of them by the same plaintext) or its mask gets no
// refreshed ciphertext out of the committee: every honest member refuses,
// and a member is named only where that is certain — never an honest one.
// The 2-of-3 committee (r = 3 = 2t−1) detects; a 2-of-4 committee
// (r = 4 = 3t−2) also names the member.
func TestRefreshOneMemberCannotMoveIt(t *testing.T) {
	t.Parallel()
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	want := fhetest.RandInts(rand.New(rand.NewPCG(37, 1)), p.Slots(), 100)
	want[0] = 0 // the "verdict" slot the attacker moves to 1
	for _, tc := range []struct {
		n, th int
		named bool
	}{{3, 2, false}, {4, 2, true}} {
		c := newCommittee(t, p, tc.n, tc.th, nil)
		in := refreshInput(t, c, want)
		const bad = 1 // member 2 deviates
		honest := slices.DeleteFunc(all(tc.n), func(i int) bool { return i == bad })
		check := func(t *testing.T, o refreshOutcome, named bool) {
			for _, i := range honest {
				require.Error(t, o.errs[i], "member %d used a refresh member %d moved", i+1, bad+1)
				require.Nil(t, o.outs[i])
				for _, id := range o.named[i] {
					require.Equal(t, transport.MemberID(bad+1), id, "member %d named an honest member", i+1)
				}
				if named {
					require.Contains(t, o.named[i], transport.MemberID(bad+1), "member %d did not name the deviating member", i+1)
				}
			}
		}
		name := fmt.Sprintf("%d-of-%d", tc.th, tc.n)
		t.Run(name+"/honest", func(t *testing.T) {
			c.hooks = nil
			o := runRefresh(t, c, "atk/honest/"+name, in)
			for _, err := range o.errs {
				require.NoError(t, err)
			}
			require.Equal(t, want, decryptAll(t, c, o.outs[0], "atk/honest/dec/"+name))
		})
		subsets := subsetsOf(c.members, tc.th)
		shifting := func(which func(k int) bool) map[int]roundHook {
			return map[int]roundHook{bad: func(stage hookStage, session string, typ transport.Type, own []byte, _ func() map[transport.MemberID][]byte) []byte {
				if stage != hookSend || typ != transport.TypeRefreshShare || strings.HasSuffix(session, "/mask") || !strings.HasPrefix(session, "atk/") {
					return own
				}
				// the shares are of the masked input at the input's level;
				// the shift's encoding needs only its metadata.
				return shiftBundle(t, p, in, transport.MemberID(bad+1), subsets, own, which)
			}}
		}
		for _, sc := range []struct {
			what  string
			which func(k int) bool
			// nameable: the disagreement has one explanation. A single
			// shifted subset {a, b} is explained by a or by b alike.
			nameable bool
		}{
			{"one subset's share shifted", func(k int) bool { return k == 0 }, false},
			{"every share shifted alike", func(int) bool { return true }, true},
		} {
			t.Run(name+"/"+sc.what, func(t *testing.T) {
				c.hooks = shifting(sc.which)
				o := runRefresh(t, c, "atk/"+sc.what+"/"+name, in)
				check(t, o, tc.named && sc.nameable)
				for _, i := range honest {
					var e *ErrRefreshDisagree
					require.ErrorAs(t, o.errs[i], &e)
					if tc.named && sc.nameable {
						require.Equal(t, []transport.MemberID{bad + 1}, e.Named)
					} else {
						require.Empty(t, e.Named, "r = 2t−1 cannot name anyone")
					}
				}
			})
		}
		t.Run(name+"/mask shifted under its proof", func(t *testing.T) {
			// X + (t⁻¹·m′, 0) with X's proof: the proof no longer verifies.
			c.hooks = map[int]roundHook{bad: func(stage hookStage, session string, typ transport.Type, own []byte, _ func() map[transport.MemberID][]byte) []byte {
				if stage != hookSend || !strings.HasSuffix(session, "/mask") {
					return own
				}
				return shiftMask(t, p, own)
			}}
			o := runRefresh(t, c, "atk/mask/"+name, in)
			check(t, o, true)
			for _, i := range honest {
				var e *ErrEquivocation
				require.ErrorAs(t, o.errs[i], &e)
				require.Equal(t, transport.MemberID(bad+1), e.Member)
				require.Contains(t, e.Reason, "mask")
			}
		})
		c.hooks = nil
	}
}

// shiftMask adds t⁻¹·m′ to the mask ciphertext of a mask message and keeps
// its proof.
func shiftMask(t *testing.T, p *fhe.Params, msg []byte) []byte {
	head := msg[:maskNonce+4]
	msg = msg[maskNonce:]
	n := int(uint32(msg[0])<<24 | uint32(msg[1])<<16 | uint32(msg[2])<<8 | uint32(msg[3]))
	ct, err := fhe.UnmarshalCiphertext(msg[4 : 4+n])
	require.NoError(t, err)
	d, err := UnmarshalDecryptionShare(p, ct.Level(), shiftPoly(t, p, ct, ct.Level()))
	require.NoError(t, err)
	x := ct.Lattigo().CopyNew()
	p.RLWE().RingQ().AtLevel(ct.Level()).Add(x.Value[0], d.Value, x.Value[0])
	out, err := fhe.WrapCiphertext(p, x)
	require.NoError(t, err)
	b, err := out.MarshalBinary()
	require.NoError(t, err)
	require.Len(t, b, n)
	return append(append(append([]byte(nil), head...), b...), msg[4+n:]...)
}

// TestDecryptOneMemberCannotMoveIt: a member that shifts its decryption
// share by t⁻¹·m′ (a verdict-shaped change) gets no value used: with exactly
// t participants nothing is returned; a 2-of-3 committee (all three)
// refuses and names nobody; a 2-of-4 committee returns the honest value and
// names the member.
func TestDecryptOneMemberCannotMoveIt(t *testing.T) {
	t.Parallel()
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	want := fhetest.RandInts(rand.New(rand.NewPCG(41, 1)), p.Slots(), 100)
	for _, tc := range []struct {
		n, th int
		parts []int
		ok    bool // the honest value is returned and the member named
	}{
		{3, 2, []int{0, 1}, false},
		{3, 2, []int{0, 1, 2}, false},
		{4, 2, []int{0, 1, 2, 3}, true},
	} {
		t.Run(fmt.Sprintf("%d-of-%d/%d participants", tc.th, tc.n, len(tc.parts)), func(t *testing.T) {
			c := newCommittee(t, p, tc.n, tc.th, nil)
			ct, err := fhe.NewEncryptor(c.kms[0].Public).EncryptInts(want)
			require.NoError(t, err)
			plan, err := PlanNoise(p, tc.n, tc.th, 0)
			require.NoError(t, err)
			ev, err := fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: c.kms[0].Relin})
			require.NoError(t, err)
			const bad = 0
			lowered, err := PrepareForDecryption(ev, plan, ct)
			require.NoError(t, err)
			shift, err := UnmarshalDecryptionShare(p, plan.Level, shiftPoly(t, p, lowered, plan.Level))
			require.NoError(t, err)
			ids := make([]transport.MemberID, len(tc.parts))
			for k, i := range tc.parts {
				ids[k] = c.members[i]
			}
			named := make([][]transport.MemberID, tc.n)
			res := make([]*DecryptResult, tc.n)
			errs := parallel(tc.parts, func(i int) error {
				g := c.group(i, t)
				g.OnEquivocation = func(e ErrEquivocation) { named[i] = append(named[i], e.Member) }
				led := Ledger(c.ledgers[i])
				if i == bad {
					// a modified binary: it commits to and reveals the shifted share
					led = shiftingLedger{c.ledgers[i], p, plan.Level, shift}
				}
				r, err := ThresholdDecrypt(context.Background(), g, c.keys[i], plan, ev, led,
					DecryptRequest{Session: "atk/dec", Ciphertext: ct, Participants: ids, PublicKey: c.kms[i].Public})
				res[i] = r
				return err
			})
			for k, i := range tc.parts {
				if i == bad {
					continue
				}
				for _, id := range named[i] {
					require.Equal(t, transport.MemberID(bad+1), id, "member %d named an honest member", i+1)
				}
				if !tc.ok {
					require.ErrorIs(t, errs[k], ErrUnchecked, "member %d", i+1)
					require.Nil(t, res[i])
					continue
				}
				require.NoError(t, errs[k])
				require.Equal(t, want, fhe.Centre(res[i].Values, p.PlaintextModulus()))
				require.Equal(t, []transport.MemberID{bad + 1}, res[i].Bad)
				require.Contains(t, named[i], transport.MemberID(bad+1))
			}
		})
	}
}

// shiftingLedger issues every decryption share plus a fixed shift.
type shiftingLedger struct {
	l     *memLedger
	p     *fhe.Params
	level int
	shift DecryptionShare
}

func (s shiftingLedger) Issue(kind ShareKind, d [32]byte, e uint64, session string, gen func() ([]byte, error)) ([]byte, error) {
	b, err := s.l.Issue(kind, d, e, session, gen)
	if err != nil || kind != KindDecryption {
		return b, err
	}
	sh, err := UnmarshalDecryptionShare(s.p, s.level, b)
	if err != nil {
		return nil, err
	}
	s.p.RLWE().RingQ().AtLevel(s.level).Add(sh.Value, s.shift.Value, sh.Value)
	return sh.MarshalBinary(), nil
}

// TestMaskPool: a pooled mask verifies as its member's for its epoch and
// for nobody else (another member presenting it, or another epoch, is
// refused); every take hands out a new mask; a pool for another member or
// epoch is not used.
func TestMaskPool(t *testing.T) {
	t.Parallel()
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	c := newCommittee(t, p, 3, 2, nil)
	zk, err := proofKey(c.kms[0].Public, nil)
	require.NoError(t, err)
	mp := NewMaskPool(zk, 1, 2, 2)
	defer mp.Close()
	a, err := mp.take(zk, 1, 2)
	require.NoError(t, err)
	b, err := mp.take(zk, 1, 2)
	require.NoError(t, err)
	require.NotEqual(t, a, b, "a mask is handed out once")
	_, err = openMask(zk, 1, 2, a)
	require.NoError(t, err)
	_, err = openMask(zk, 1, 3, a)
	require.ErrorContains(t, err, "mask proof", "another member presents member 2's mask")
	_, err = openMask(zk, 2, 2, a)
	require.ErrorContains(t, err, "mask proof", "a mask of another epoch")
	require.True(t, mp.For(zk, 1, 2))
	require.False(t, mp.For(zk, 1, 3))
	other, err := mp.take(zk, 1, 3) // not this pool's member: made fresh for member 3
	require.NoError(t, err)
	_, err = openMask(zk, 1, 3, other)
	require.NoError(t, err)
}

// TestRefreshBytes: RefreshBytes counts what newMask and genSubsetShares
// really produce.
func TestRefreshBytes(t *testing.T) {
	t.Parallel()
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	c := newCommittee(t, p, 3, 2, nil)
	zk, err := proofKey(c.kms[0].Public, nil)
	require.NoError(t, err)
	in := refreshInput(t, c, []int64{1, 2, 3})
	mask, shares, err := RefreshBytes(p, in.Level(), 3, 2)
	require.NoError(t, err)
	m, err := newMask(zk, 1, 1)
	require.NoError(t, err)
	require.Len(t, m, mask)
	b, err := genSubsetShares(c.keys[0], 1, c.members, in, subsetsOf(c.members, 2), 0)
	require.NoError(t, err)
	require.Len(t, b, shares)
}
