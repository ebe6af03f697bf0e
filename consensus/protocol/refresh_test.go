package protocol

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/fhe/noise"
)

// packedNoise is the (NoiseBits, WorstBits) of a refresh of a packed input
// (consensus/pipeline/packed.go): values carried in the noise, ≈2^57 hidden, ≈2^89
// in the worst case.
var packedNoise = [2]float64{57, 89}

// TestRefreshFloorLevel pins the floor of the presets that ship and of the
// test presets: t_p·(2^worst + 8·2^(30+noise)) < Q_ℓ/4.
func TestRefreshFloorLevel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		id           fhe.PresetID
		noise, worst float64
		floor        int
	}{
		{id: fhe.BGVN14, floor: 1},
		{id: fhe.BGVN13, floor: 1},
		{id: fhe.BGVN14, noise: packedNoise[0], worst: packedNoise[1], floor: 2},
		{id: fhe.BGVN13, noise: packedNoise[0], worst: packedNoise[1], floor: 3},
		{id: fhetest.InsecureBGVN10, floor: 1},
		{id: fhetest.InsecureBGVN10, noise: packedNoise[0], worst: packedNoise[1], floor: 3},
		{id: fhetest.InsecureBGVN10Deep, floor: 1},
		{id: fhetest.InsecureBGVN10Deep, noise: packedNoise[0], worst: packedNoise[1], floor: 2},
		// a bound below noise.CiphertextBits counts as noise.CiphertextBits
		// (the sanitisation's own noise)
		{id: fhe.BGVN14, noise: 4, floor: 1},
	} {
		p := fhe.MustParams(tc.id)
		floor, err := noise.RefreshFloorLevel(p, tc.noise, tc.worst)
		require.NoError(t, err)
		require.Equal(t, tc.floor, floor, "%s (%v, %v)", p.Preset.Name, tc.noise, tc.worst)
	}
	require.Equal(t, 46.0, noise.RefreshFlooding(0))
	require.Equal(t, 46.0, noise.RefreshFlooding(4))
	require.Equal(t, 87.0, noise.RefreshFlooding(57))
	require.InDelta(t, 46-math.Log2(3)/2, RefreshShareSigmaBits(0, 3), 1e-12)
	// no level of InsecureBGVN10 (log Q = 162) holds a 2^(30+120) flooding
	_, err := noise.RefreshFloorLevel(fhe.MustParams(fhetest.InsecureBGVN10), 120, 0)
	require.Error(t, err)
}

// refreshCommittee is a 2-of-3 committee on p with a ciphertext x·x (a
// relinearised product: its noise carries the plaintext product's carries)
// and its plaintext reference.
type refreshCommittee struct {
	c    *testCommittee
	p    *fhe.Params
	ev   *fhe.Evaluator
	enc  *fhe.Encryptor
	plan NoisePlan
	prod *fhe.Ciphertext
	want []int64
}

func newRefreshCommittee(t *testing.T, id fhe.PresetID) *refreshCommittee {
	p := fhe.MustParams(id)
	f := &refreshCommittee{c: newCommittee(t, p, 3, 2, nil), p: p}
	km := f.c.kms[0]
	var err error
	f.ev, err = fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: km.Relin})
	require.NoError(t, err)
	f.plan, err = PlanNoise(p, 3, 2, 0)
	require.NoError(t, err)
	f.enc = fhe.NewEncryptor(km.Public)
	x := fhetest.RandInts(rand.New(rand.NewPCG(11, uint64(id))), p.Slots(), 150) // x² < t/2
	cx, err := f.enc.EncryptInts(x)
	require.NoError(t, err)
	f.prod, err = f.ev.Mul(cx, cx)
	require.NoError(t, err)
	f.want = make([]int64, len(x))
	for i, v := range x {
		f.want[i] = v * v
	}
	return f
}

// atLevel is f.prod dropped to level l.
func (f *refreshCommittee) atLevel(t *testing.T, l int) *fhe.Ciphertext {
	require.LessOrEqual(t, l, f.prod.Level())
	ct, err := f.ev.DropLevels(f.prod, f.prod.Level()-l)
	require.NoError(t, err)
	return ct
}

// refresh runs Refresh on every member (all three contribute) and returns
// member 1's output after checking that all agree.
func (f *refreshCommittee) refresh(t *testing.T, session string, ct *fhe.Ciphertext, noise, worst float64) (*fhe.Ciphertext, error) {
	c := f.c
	outs := make([]*fhe.Ciphertext, c.n)
	errs := parallel(all(c.n), func(i int) error {
		o, err := Refresh(context.Background(), c.group(i, t), c.keys[i], c.ledgers[i], RefreshRequest{Session: session, Ciphertext: ct,
			Active: c.members, Receivers: c.members, PublicKey: c.kms[i].Public, NoiseBits: noise, WorstBits: worst})
		outs[i] = o
		return err
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	h0, err := outs[0].Handle()
	require.NoError(t, err)
	for _, o := range outs[1:] {
		h, err := o.Handle()
		require.NoError(t, err)
		require.Equal(t, h0, h, "every receiver computes the same refreshed ciphertext")
	}
	return outs[0], nil
}

// decrypt threshold-decrypts ct among all members and checks every
// member's result against the plaintext reference.
func (f *refreshCommittee) decrypt(t *testing.T, session string, ct *fhe.Ciphertext) {
	c := f.c
	errs := parallel(all(c.n), func(i int) error {
		res, err := ThresholdDecrypt(context.Background(), c.group(i, t), c.keys[i], f.plan, f.ev, c.ledgers[i],
			DecryptRequest{Session: session, Ciphertext: ct, Participants: c.members, PublicKey: c.kms[i].Public})
		if err != nil {
			return err
		}
		if got := fhe.Centre(res.Values, f.p.PlaintextModulus()); !slices.Equal(got, f.want) {
			return fmt.Errorf("member %d decrypted %v…, want %v…", i+1, got[:4], f.want[:4])
		}
		return nil
	})
	for _, err := range errs {
		require.NoError(t, err)
	}
}

func (l *memLedger) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.m)
}

// TestRefreshFloor: (a) a refresh at the floor level — for the default
// bounds and for a packed input's (2^57 hidden, 2^89 worst, flooding
// σ = 2^87) — decrypts to the plaintext reference; (b) one level below it
// is refused with ErrRefreshNoRoom before any share is issued.
func TestRefreshFloor(t *testing.T) {
	t.Parallel()
	for _, id := range []fhe.PresetID{fhetest.InsecureBGVN10, fhetest.InsecureBGVN10Deep} {
		f := newRefreshCommittee(t, id)
		for _, nb := range [][2]float64{{0, 0}, packedNoise} {
			name := fmt.Sprintf("%s/noise=%v,worst=%v", f.p.Preset.Name, nb[0], nb[1])
			floor, err := noise.RefreshFloorLevel(f.p, nb[0], nb[1])
			require.NoError(t, err)
			require.Greater(t, floor, 0, name)
			t.Run(name+"/at floor", func(t *testing.T) {
				out, err := f.refresh(t, "ref/floor/"+name, f.atLevel(t, floor), nb[0], nb[1])
				require.NoError(t, err)
				require.Equal(t, f.p.MaxLevel(), out.Level())
				f.decrypt(t, "dec/floor/"+name, out)
			})
			t.Run(name+"/below floor", func(t *testing.T) {
				before := make([]int, f.c.n)
				for i, l := range f.c.ledgers {
					before[i] = l.count()
				}
				_, err := f.refresh(t, "ref/below/"+name, f.atLevel(t, floor-1), nb[0], nb[1])
				require.ErrorIs(t, err, ErrRefreshNoRoom)
				require.ErrorContains(t, err, fmt.Sprintf("level %d, floor %d", floor-1, floor))
				for i, l := range f.c.ledgers {
					require.Equal(t, before[i], l.count(), "member %d issued a share", i+1)
				}
			})
		}
	}
}

// memberView is what a member that decodes one t-subset of a refresh of ct
// learns: it sums the subset's decryption shares of the masked input (here
// ct itself: the masks are public, so subtracting them changes nothing of
// the view), computes c0 + Σ_{j∈S} h_j^S = t⁻¹·m + e_in + Σ E_j (mod Q_ℓ),
// decodes m as the refresh does and subtracts its t⁻¹ multiple: the
// remainder is e_in + ΣE_j (up to ±1 from the representative of m mod t),
// one value per coefficient. Each member of the subset floods with
// σ_j = 2^sigmaBits (0: no flooding). The shares are generated by
// genSubsetShares, exactly as Refresh issues them.
func memberView(t *testing.T, c *testCommittee, ct *fhe.Ciphertext, active []int, sigmaBits float64) []float64 {
	p := c.keys[0].Params
	ids := make([]transport.MemberID, len(active))
	for k, i := range active {
		ids[k] = c.members[i]
	}
	subsets := [][]transport.MemberID{ids}
	level := ct.Level()
	ringQ := p.RLWE().RingQ().AtLevel(level)
	acc := ringQ.NewPoly()
	ringQ.Add(acc, ct.Lattigo().Value[0], acc)
	for _, i := range active {
		b, err := genSubsetShares(c.keys[i], c.members[i], c.members, ct, subsets, sigmaBits)
		require.NoError(t, err)
		sh, err := splitSubsetShares(p, level, c.members[i], subsets, b)
		require.NoError(t, err)
		ringQ.Add(acc, sh[0].Value, acc)
	}
	ringQ.INTT(acc, acc)
	ecd := bgv.NewEncoder(p.BGV())
	plain := p.BGV().RingT().NewPoly()
	ecd.RingQ2T(level, true, acc, plain) // m, as the refresh decodes it
	back := ringQ.NewPoly()
	ecd.RingT2Q(level, true, plain, back) // t⁻¹·m
	ringQ.Sub(acc, back, acc)
	return centredFloats(ringQ, acc)
}

func meanStd(xs []float64) (float64, float64) {
	var s, s2 float64
	for _, x := range xs {
		s += x
	}
	m := s / float64(len(xs))
	for _, x := range xs {
		s2 += (x - m) * (x - m)
	}
	return m, math.Sqrt(s2 / float64(len(xs)))
}

// withNoise is ct with a uniform polynomial in [−2^bits, 2^bits] added to
// c0: the same plaintext with phase noise ≈2^bits.
func withNoise(t *testing.T, p *fhe.Params, ct *fhe.Ciphertext, bits int, seed uint64) *fhe.Ciphertext {
	r := rand.New(rand.NewPCG(seed, 99))
	in := ct.Lattigo().CopyNew()
	ringQ := p.RLWE().RingQ().AtLevel(ct.Level())
	e := ringQ.NewPoly()
	for i := 0; i < p.N(); i++ {
		x := r.Int64N(2<<bits+1) - 1<<bits
		for j, q := range ringQ.ModuliChain()[:ct.Level()+1] {
			e.Coeffs[j][i] = uint64((x%int64(q) + int64(q)) % int64(q))
		}
	}
	ringQ.NTT(e, e)
	ringQ.Add(in.Value[0], e, in.Value[0])
	out, err := fhe.WrapCiphertext(p, in)
	require.NoError(t, err)
	return out
}

// TestRefreshMemberView is the noise-leak attack on the refresh: a member that
// finalises a refresh learns the input's phase noise e_in (a function of s
// and of the plaintexts' product carries) plus the flooding. It reproduces
// that member's view for two inputs with the same plaintext and very
// different noise (std ≈2^4, a relinearised product of fresh encryptions at
// N = 2^10, and ≈2^13.2 with a uniform ±2^14 added): without the flooding (Lattigo's own 3.2-σ share noise only)
// the remainder's spread tells them apart by far; with the refresh's
// flooding its std is σ = 2^noise.RefreshFlooding (within a factor 1.2) for
// both, and their means and stds agree within the resolution of 16 384
// coefficients. The packed bound (NoiseBits 57, σ = 2^87, wide sampler) is
// checked for its σ at its floor level.
func TestRefreshMemberView(t *testing.T) {
	t.Parallel()
	f := newRefreshCommittee(t, fhetest.InsecureBGVN10)
	active := []int{0, 2}
	const rounds = 16 // fresh shares (fresh flooding) per input
	view := func(ct *fhe.Ciphertext, sigmaBits float64) []float64 {
		var xs []float64
		for range rounds {
			xs = append(xs, memberView(t, f.c, ct, active, sigmaBits)...)
		}
		return xs
	}
	for _, nb := range [][2]float64{{0, 0}, packedNoise} {
		floor, err := noise.RefreshFloorLevel(f.p, nb[0], nb[1])
		require.NoError(t, err)
		small := f.atLevel(t, floor)
		large := withNoise(t, f.p, small, 14, uint64(floor))
		sigma := math.Exp2(noise.RefreshFlooding(nb[0]))
		t.Run(fmt.Sprintf("noise=%v", nb[0]), func(t *testing.T) {
			if nb[0] == 0 {
				// the attack: without flooding the view is the input's noise
				_, s0 := meanStd(view(small, 0))
				_, s1 := meanStd(view(large, 0))
				t.Logf("no flooding: std %.1f bits (input ≈ fresh product) vs %.1f bits (2^14 added)", math.Log2(s0), math.Log2(s1))
				require.Greater(t, s1, 8*s0, "the unflooded view reveals the input noise")
				require.InDelta(t, math.Exp2(14)/math.Sqrt(3), s1, math.Exp2(14)/math.Sqrt(3)*0.2, "the unflooded view is the input noise")
			}
			sb := RefreshShareSigmaBits(nb[0], len(active))
			xs0, xs1 := view(small, sb), view(large, sb)
			m0, s0 := meanStd(xs0)
			m1, s1 := meanStd(xs1)
			n := float64(len(xs0))
			t.Logf("flooding σ = 2^%.1f: mean %.2e σ / %.2e σ, std %.4f σ / %.4f σ (%d coefficients each)", math.Log2(sigma), m0/sigma, m1/sigma, s0/sigma, s1/sigma, len(xs0))
			for _, s := range []float64{s0, s1} {
				require.Greater(t, s, sigma/1.2)
				require.Less(t, s, sigma*1.2)
			}
			// indistinguishable at this resolution: means within 5 standard
			// errors of each other (SE of the difference σ·√(2/n)), stds
			// within 5 (SE of a std σ/√(2n), of the difference σ/√n)
			require.Less(t, math.Abs(m0-m1), 5*sigma*math.Sqrt(2/n))
			require.Less(t, math.Abs(s0-s1), 5*sigma/math.Sqrt(n))
		})
	}
}

// TestRefreshShareReissued: a refresh share bundle is random (fresh
// flooding each time it is generated), so a retransmission must come from
// the ledger: the same (kind, digest, epoch, session) gets the same bytes
// back, another session is refused.
func TestRefreshShareReissued(t *testing.T) {
	t.Parallel()
	f := newRefreshCommittee(t, fhetest.InsecureBGVN10)
	floor, err := noise.RefreshFloorLevel(f.p, 0, 0)
	require.NoError(t, err)
	ct := f.atLevel(t, floor)
	ids := f.c.members
	subsets := subsetsOf(ids, 2)
	key := f.c.keys[0]
	gen := func() ([]byte, error) {
		return genSubsetShares(key, 1, ids, ct, subsets, RefreshShareSigmaBits(0, 2))
	}
	a, err := gen()
	require.NoError(t, err)
	b, err := gen()
	require.NoError(t, err)
	require.NotEqual(t, a, b, "shares are randomised")
	led := newMemLedger()
	d := refreshDigest(ct, ids)
	first, err := led.Issue(KindRefresh, d, key.Epoch, "ref/x", gen)
	require.NoError(t, err)
	again, err := led.Issue(KindRefresh, d, key.Epoch, "ref/x", gen)
	require.NoError(t, err)
	require.Equal(t, first, again, "a re-issued share is the stored one")
	_, err = led.Issue(KindRefresh, d, key.Epoch, "ref/y", gen)
	require.ErrorIs(t, err, ErrAlreadyShared)
}
