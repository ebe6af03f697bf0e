package protocol

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/ring"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// twoCommittees is an old and a new committee, each after its own DKG
// among its members 1..n on its own in-memory hub, and a joint hub on
// which the old members are 1..n and the new ones n+1..2n.
type twoCommittees struct {
	old, next *testCommittee
	joint     map[transport.MemberID]*transport.Mux
}

func newTwoCommittees(t *testing.T, p *fhe.Params, n, th int) *twoCommittees {
	tc := &twoCommittees{old: newCommitteeOn(t, p, n, th, 1, nil, nil), next: newCommitteeOn(t, p, n, th, 2, nil, nil),
		joint: map[transport.MemberID]*transport.Mux{}}
	hub := transport.NewHub(2 * n)
	for id := transport.MemberID(1); id <= transport.MemberID(2*n); id++ {
		mux := transport.NewMux(hub.Endpoint(id), zaptest.NewLogger(t))
		t.Cleanup(func() { mux.Close() })
		tc.joint[id] = mux
	}
	return tc
}

// participant is the committee, index and joint group of joint member id.
func (tc *twoCommittees) participant(t *testing.T, id transport.MemberID, hook roundHook) (*testCommittee, int, Group) {
	c, i := tc.old, int(id)-1
	if i >= tc.old.n {
		c, i = tc.next, i-tc.old.n
	}
	var members []transport.MemberID
	for id := range tc.joint {
		members = append(members, id)
	}
	g := Group{Mux: tc.joint[id], Members: members, Threshold: c.t, Timeout: 10 * time.Second, Log: zaptest.NewLogger(t), hook: hook}
	return c, i, g
}

// TestCrossKeySwitch: the cross-committee key switch moves a ciphertext
// from a 2-of-3 committee's key to another 2-of-3 committee's, over one
// in-memory transport (the new committee's Shamir points 1..3 are IDs 4..6
// there, NewOffset 3); every participant and the new committee's inactive
// member (a receiver) compute the same ciphertext,
// which decrypts under the new collective secret to the plaintext and
// whose c1 is the input's plus the re-randomiser every participant derives
// (keySwitchC1). A corrupt participant that adds K to what it sends
// (the K-shift of TestReencryptKShift, which has no c1 to act on here) only
// moves the phase by a constant it knows: round(noise/K) is that constant,
// not s′. No coalition of the other participants learns c0 + c1·s from the
// old members' revealed shares: they are masked.
func TestCrossKeySwitch(t *testing.T) {
	t.Parallel()
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	tc := newTwoCommittees(t, p, 3, 2)
	plan, err := PlanNoise(p, 3, 2, 0)
	require.NoError(t, err)
	sNew := shamirSecret(t, tc.next, []int{0, 1})
	wantS := secretCoeffs(p, sNew)
	r := rand.New(rand.NewPCG(7, 8))
	const k = uint64(1) << 63

	run := func(t *testing.T, session string, hooks map[transport.MemberID]roundHook) (*fhe.Ciphertext, *fhe.Ciphertext, []int64) {
		msg := fhetest.RandInts(r, p.Slots(), 1000)
		in := mustEnc(t, fhe.NewEncryptor(tc.old.kms[0].Public), msg)
		req := KeySwitchRequest{Session: session, Ciphertext: in, Target: tc.next.kms[0].Public,
			Old: []transport.MemberID{1, 2, 3}, New: []transport.MemberID{4, 5, 6}, OldActive: []transport.MemberID{1, 3}, NewActive: []transport.MemberID{4, 6},
			NewOffset: 3, Receivers: []transport.MemberID{5}}
		parts := []transport.MemberID{1, 3, 4, 5, 6}
		outs := map[transport.MemberID]*fhe.Ciphertext{}
		var mu sync.Mutex
		for k, err := range parallel(all(len(parts)), func(x int) error {
			id := parts[x]
			c, i, g := tc.participant(t, id, hooks[id])
			o, err := CrossKeySwitch(context.Background(), g, c.keys[i], plan, c.ledgers[i], req)
			mu.Lock()
			outs[id] = o
			mu.Unlock()
			return err
		}) {
			require.NoError(t, err, "participant %d", parts[k])
		}
		h0, err := outs[1].Handle()
		require.NoError(t, err)
		for id, o := range outs {
			h, err := o.Handle()
			require.NoError(t, err)
			require.Equal(t, h0, h, "participant %d computed another ciphertext", id)
		}
		out := outs[1]
		pkb, err := tc.next.kms[0].Public.MarshalBinary()
		require.NoError(t, err)
		wantC1 := keySwitchC1(p.RLWE().RingQ().AtLevel(in.Level()), keccak(pkb), in)
		require.True(t, out.Lattigo().Value[1].Equal(&wantC1), "the output's c1 is the input's plus the public re-randomiser")
		require.False(t, out.Lattigo().Value[1].Equal(&in.Lattigo().Value[1]))
		return in, out, msg
	}

	t.Run("honest: decrypts under the new key", func(t *testing.T) {
		_, out, msg := run(t, "ks/honest", nil)
		got, err := fhe.NewDecryptor(fhe.WrapSecretKey(p, sNew)).DecryptInts(out)
		require.NoError(t, err)
		require.Equal(t, msg, got)
		require.Equal(t, make([]int64, p.N()), phaseOver(p, out, sNew, k))
	})

	shift := func(stage hookStage, _ string, typ transport.Type, own []byte, _ func() map[transport.MemberID][]byte) []byte {
		if stage != hookSend || typ != transport.TypeReencryptShare {
			return own
		}
		// add the constant K (K in every NTT evaluation) to the share
		level := p.MaxLevel()
		rq := p.RLWE().RingQ().AtLevel(level)
		sh := rq.NewPoly()
		if err := decodeLevelPoly(p, level, own, &sh); err != nil {
			panic(err)
		}
		for i, s := range rq.SubRings[:level+1] {
			for w := range sh.Coeffs[i] {
				sh.Coeffs[i][w] = (sh.Coeffs[i][w] + k%s.Modulus) % s.Modulus
			}
		}
		b, err := sh.MarshalBinary()
		if err != nil {
			panic(err)
		}
		return b
	}
	for _, corrupt := range []transport.MemberID{1, 6} {
		t.Run(fmt.Sprintf("shift by member %d", corrupt), func(t *testing.T) {
			_, out, _ := run(t, fmt.Sprintf("ks/shift/%d", corrupt), map[transport.MemberID]roundHook{corrupt: shift})
			got := phaseOver(p, out, sNew, k)
			want := make([]int64, p.N())
			want[0] = 1 // the constant K, known to the one who added it
			require.Equal(t, want, got)
			require.NotEqual(t, wantS, got, "the new secret is not read")
		})
	}

	t.Run("revealed old shares are masked", func(t *testing.T) {
		var mu sync.Mutex
		revealed := map[transport.MemberID][]byte{}
		hooks := map[transport.MemberID]roundHook{}
		for _, id := range []transport.MemberID{1, 3} {
			hooks[id] = func(stage hookStage, _ string, typ transport.Type, own []byte, _ func() map[transport.MemberID][]byte) []byte {
				if stage == hookReveal {
					mu.Lock()
					revealed[id] = own
					mu.Unlock()
				}
				return own
			}
		}
		in, _, _ := run(t, "ks/masked", hooks)
		// c0 + Σ_old d_j = t⁻¹m + e + ΣE_j unmasked: t·(that), centred, is
		// m + t·(e + ΣE_j), below 2^70. With the masks it is uniform mod Q.
		level := in.Level()
		rq := p.RLWE().RingQ().AtLevel(level)
		maxBits := func(shares [][]byte) int {
			v := *in.Lattigo().Value[0].CopyNew()
			sh := rq.NewPoly()
			for _, b := range shares {
				require.NoError(t, decodeLevelPoly(p, level, b, &sh))
				rq.Add(v, sh, v)
			}
			rq.INTT(v, v)
			rq.MulScalar(v, p.PlaintextModulus(), v)
			coeffs := make([]*big.Int, p.N())
			for i := range coeffs {
				coeffs[i] = new(big.Int)
			}
			rq.PolyToBigintCentered(v, 1, coeffs)
			m := 0
			for _, c := range coeffs {
				m = max(m, c.BitLen())
			}
			return m
		}
		require.Greater(t, maxBits([][]byte{revealed[1], revealed[3]}), 150, "the revealed old shares look uniform mod Q")
		// Control: the old members' unmasked shares, from their ledgers.
		var unmasked [][]byte
		for _, i := range []int{0, 2} {
			for _, e := range tc.old.ledgers[i].m {
				if e.session == "ks/masked" {
					unmasked = append(unmasked, e.share)
				}
			}
		}
		require.Len(t, unmasked, 2)
		require.Less(t, maxBits(unmasked), 70, "unmasked, they would decrypt")
	})
}

// FuzzKeySwitchShare: the key-switch share decoder accepts exactly a
// reduced polynomial at the requested level and rejects anything else
// without panicking, before allocating for it.
func FuzzKeySwitchShare(f *testing.F) {
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	rq := p.RLWE().RingQ().AtLevel(1)
	good, err := rq.NewPoly().MarshalBinary()
	require.NoError(f, err)
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		var x ring.Poly
		if err := decodeLevelPoly(p, 1, b, &x); err == nil {
			require.Equal(t, 1, x.Level())
			require.Equal(t, p.N(), x.N())
		}
	})
}
