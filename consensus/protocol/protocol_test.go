package protocol

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/fhe/noise"
)

type memLedger struct {
	mu sync.Mutex
	m  map[string]struct {
		session string
		share   []byte
	}
}

func newMemLedger() *memLedger {
	return &memLedger{m: map[string]struct {
		session string
		share   []byte
	}{}}
}

func (l *memLedger) Issue(kind ShareKind, d [32]byte, epoch uint64, session string, gen func() ([]byte, error)) ([]byte, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := fmt.Sprintf("%s/%x/%d", kind, d, epoch)
	if e, ok := l.m[k]; ok {
		if e.session == session {
			return e.share, nil
		}
		return nil, ErrAlreadyShared
	}
	b, err := gen()
	if err != nil {
		return nil, err
	}
	l.m[k] = struct {
		session string
		share   []byte
	}{session, b}
	return b, nil
}

type testCommittee struct {
	n, t    int
	muxes   []*transport.Mux
	members []transport.MemberID
	kms     []*KeyMaterial
	keys    []*ThresholdKey
	ledgers []*memLedger
	// hooks make members misbehave (index i: member i+1); noCommit runs
	// the share rounds uncommitted, as they were before commit-before-
	// reveal (tests of the attacks it stops).
	hooks    map[int]roundHook
	noCommit bool
	dkgErrs  []error
}

func (c *testCommittee) group(i int, tb testing.TB) Group {
	timeout := 20 * time.Second
	if c.hooks != nil {
		timeout = 3 * time.Second // a member left waiting by an aborted round gives up sooner
	}
	return Group{Mux: c.muxes[i], Members: c.members, Threshold: c.t, Timeout: timeout, Log: zaptest.NewLogger(tb),
		hook: c.hooks[i], insecureNoCommit: c.noCommit}
}

// parallel runs f for every member index in idx concurrently.
func parallel(idx []int, f func(i int) error) []error {
	errs := make([]error, len(idx))
	var wg sync.WaitGroup
	for k, i := range idx {
		wg.Add(1)
		go func(k, i int) { defer wg.Done(); errs[k] = f(i) }(k, i)
	}
	wg.Wait()
	return errs
}

func all(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// newCommittee runs an epoch-1 DKG among n members on an in-memory hub.
func newCommittee(t *testing.T, p *fhe.Params, n, th int, gal []uint64) *testCommittee {
	return newCommitteeOn(t, p, n, th, 1, gal, nil)
}

// newCommitteeOn is newCommittee for an epoch, with each member's transport
// passed through wrap if it is not nil.
func newCommitteeOn(t *testing.T, p *fhe.Params, n, th int, epoch uint64, gal []uint64, wrap func(transport.Transport) transport.Transport) *testCommittee {
	return newCommitteeKnobs(t, p, n, th, epoch, gal, wrap, nil)
}

// newCommitteeKnobs is newCommitteeOn with per-member DKG knobs (index i:
// member i+1); it runs the DKG but does not require it to succeed when knobs
// are set (c.dkgErrs).
func newCommitteeKnobs(t *testing.T, p *fhe.Params, n, th int, epoch uint64, gal []uint64, wrap func(transport.Transport) transport.Transport, knobs map[int]DKGKnobs) *testCommittee {
	return newCommitteeWith(t, p, n, th, epoch, gal, wrap, knobs, nil, false)
}

// newCommitteeHooked runs a DKG in which members misbehave through round
// hooks (index i: member i+1), the share rounds uncommitted if noCommit; it
// does not require the DKG to succeed (nil key material where it failed,
// c.dkgErrs the errors).
func newCommitteeHooked(t *testing.T, p *fhe.Params, n, th int, epoch uint64, hooks map[int]roundHook, noCommit bool) *testCommittee {
	return newCommitteeWith(t, p, n, th, epoch, nil, nil, nil, hooks, noCommit)
}

func newCommitteeWith(t *testing.T, p *fhe.Params, n, th int, epoch uint64, gal []uint64, wrap func(transport.Transport) transport.Transport,
	knobs map[int]DKGKnobs, hooks map[int]roundHook, noCommit bool) *testCommittee {
	hub := transport.NewHub(n)
	c := &testCommittee{n: n, t: th, hooks: hooks, noCommit: noCommit}
	for i := 1; i <= n; i++ {
		tr := hub.Endpoint(transport.MemberID(i))
		if wrap != nil {
			tr = wrap(tr)
		}
		c.members = append(c.members, transport.MemberID(i))
		c.muxes = append(c.muxes, transport.NewMux(tr, zaptest.NewLogger(t)))
		c.ledgers = append(c.ledgers, newMemLedger())
	}
	t.Cleanup(func() {
		for _, m := range c.muxes {
			m.Close()
		}
	})
	c.kms = make([]*KeyMaterial, n)
	c.keys = make([]*ThresholdKey, n)
	errs := parallel(all(n), func(i int) error {
		km, k, err := RunDKG(context.Background(), c.group(i, t), DKGConfig{Params: p, Epoch: epoch, GaloisElements: gal, Knobs: knobs[i]})
		c.kms[i], c.keys[i] = km, k
		return err
	})
	c.dkgErrs = errs
	if knobs != nil || hooks != nil {
		return c
	}
	for _, err := range errs {
		require.NoError(t, err)
	}
	for i := 1; i < n; i++ {
		require.Equal(t, c.kms[0].Digest, c.kms[i].Digest)
	}
	return c
}

func TestDKGThresholdDecrypt(t *testing.T) {
	t.Parallel()
	f := newDecryptFixture(t)
	t.Run("all five, cross-checked", func(t *testing.T) {
		for _, res := range f.decrypt(t, f.rot, "dec/1", all(5), nil) {
			f.check(t, res)
			require.True(t, res.Checked)
			require.Empty(t, res.Bad)
		}
	})
	t.Run("same ciphertext again: sanitised anew and answered", func(t *testing.T) {
		// The repeated request: a second decryption of the same ciphertext
		// (an identical request) used to be refused forever by the ledger.
		// It is now a new sanitised ciphertext, and answered.
		first := f.decrypt(t, f.rot, "dec/1b", all(5), nil)
		second := f.decrypt(t, f.rot, "dec/1c", all(5), nil)
		f.check(t, first[0])
		f.check(t, second[0])
		require.NotEqual(t, first[0].ShareDigest, second[0].ShareDigest)
		for _, r := range first[1:] {
			require.Equal(t, first[0].ShareDigest, r.ShareDigest, "every member sanitises the same way")
		}
		// the ledger still refuses a second share for one sanitised ciphertext
		c := f.c
		_, err := c.ledgers[0].Issue(KindDecryption, first[0].ShareDigest, c.keys[0].Epoch, "dec/other", func() ([]byte, error) { return []byte{1}, nil })
		require.ErrorIs(t, err, ErrAlreadyShared)
	})
	t.Run("exactly t members: refused, never used unchecked", func(t *testing.T) {
		_, errs := f.tryDecrypt(t, f.reRandomised(t), "dec/2", []int{1, 3, 4}, nil)
		for _, err := range errs {
			require.ErrorIs(t, err, ErrUnchecked)
		}
	})
	t.Run("corrupt share: no value, nobody framed", func(t *testing.T) {
		// r = 5 = 2t−1: every (t−1)-set explains a disagreement, so the
		// decryption is refused and nobody can be named (naming needs
		// r ≥ 3t−2); inside the first subset (first and last position)
		// and outside it.
		for _, bad := range []int{0, 2, 4} {
			_, errs := f.tryDecrypt(t, f.reRandomised(t), fmt.Sprintf("dec/3/%d", bad), all(5), map[int]bool{bad: true})
			for k, err := range errs {
				if k == bad {
					continue
				}
				var ue *ErrUncheckedDecryption
				require.ErrorAs(t, err, &ue)
				require.Empty(t, ue.Named)
				require.Len(t, ue.Good, 4)
			}
		}
	})
	t.Run("refresh then decrypt", f.testRefreshThenDecrypt)
}

// decryptFixture is a 3-of-5 committee after a DKG, with rot, a ciphertext
// computed with the DKG's relinearisation and Galois keys, and want, what rot
// decrypts to.
type decryptFixture struct {
	c    *testCommittee
	p    *fhe.Params
	ev   *fhe.Evaluator
	enc  *fhe.Encryptor
	plan NoisePlan
	rot  *fhe.Ciphertext
	want []int64
}

func newDecryptFixture(t *testing.T) *decryptFixture {
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	gal := p.GaloisElementsForRotations([]int{1})
	f := &decryptFixture{c: newCommittee(t, p, 5, 3, gal), p: p}
	km := f.c.kms[0]
	var err error
	f.ev, err = fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: km.Relin, Galois: km.Galois})
	require.NoError(t, err)
	f.plan, err = PlanNoise(p, 5, 3, 0)
	require.NoError(t, err)
	t.Logf("noise plan: %+v", f.plan)

	r := rand.New(rand.NewPCG(7, 8))
	a := fhetest.RandInts(r, p.Slots(), 100)
	b := fhetest.RandInts(r, p.Slots(), 100)
	f.enc = fhe.NewEncryptor(km.Public)
	ca, err := f.enc.EncryptInts(a)
	require.NoError(t, err)
	cb, err := f.enc.EncryptInts(b)
	require.NoError(t, err)
	prod, err := f.ev.Mul(ca, cb) // relinearisation key from the DKG
	require.NoError(t, err)
	f.rot, err = f.ev.Rotate(prod, 1) // Galois key from the DKG
	require.NoError(t, err)
	f.want = make([]int64, p.Slots())
	half := p.Slots() / 2
	for i := range f.want {
		j := (i%half+1)%half + (i/half)*half
		f.want[i] = a[j] * b[j]
	}
	return f
}

// reRandomised is rot plus a fresh encryption of zero: a new ciphertext (new
// ledger digest) with the same plaintext.
func (f *decryptFixture) reRandomised(t *testing.T) *fhe.Ciphertext {
	ct, err := f.ev.Add(f.rot, mustEnc(t, f.enc, make([]int64, 1)))
	require.NoError(t, err)
	return ct
}

// decrypt threshold-decrypts ct among the members at indexes parts; those
// in corrupt send a share with one flipped bit. Every member must succeed.
func (f *decryptFixture) decrypt(t *testing.T, ct *fhe.Ciphertext, session string, parts []int, corrupt map[int]bool) []*DecryptResult {
	out, errs := f.tryDecrypt(t, ct, session, parts, corrupt)
	for _, err := range errs {
		require.NoError(t, err)
	}
	return out
}

// tryDecrypt is decrypt returning each participant's error.
func (f *decryptFixture) tryDecrypt(t *testing.T, ct *fhe.Ciphertext, session string, parts []int, corrupt map[int]bool) ([]*DecryptResult, []error) {
	c := f.c
	ids := make([]transport.MemberID, len(parts))
	for k, i := range parts {
		ids[k] = c.members[i]
	}
	out := make([]*DecryptResult, len(parts))
	errs := parallel(parts, func(i int) error {
		led := Ledger(c.ledgers[i])
		if corrupt[i] {
			led = corruptLedger{c.ledgers[i]}
		}
		res, err := ThresholdDecrypt(context.Background(), c.group(i, t), c.keys[i], f.plan, f.ev, led, DecryptRequest{Session: session, Ciphertext: ct, Participants: ids, PublicKey: c.kms[i].Public})
		for k, j := range parts {
			if j == i {
				out[k] = res
			}
		}
		return err
	})
	return out, errs
}

func (f *decryptFixture) check(t *testing.T, res *DecryptResult) {
	got := fhe.Centre(res.Values, f.p.PlaintextModulus())
	require.Equal(t, f.want, got)
}

func (f *decryptFixture) testRefreshThenDecrypt(t *testing.T) {
	c, ev := f.c, f.ev
	bottom, err := ev.DropLevels(f.rot, f.rot.Level())
	require.NoError(t, err)
	_, err = PrepareForDecryption(ev, f.plan, bottom)
	if f.plan.Level > 0 {
		require.ErrorIs(t, err, ErrNeedsRefresh)
	}
	// the lowest level a refresh has room for its flooding at
	floor, err := noise.RefreshFloorLevel(f.p, 0, 0)
	require.NoError(t, err)
	low, err := ev.DropLevels(f.rot, f.rot.Level()-floor)
	require.NoError(t, err)
	outs := make([]*fhe.Ciphertext, 5)
	errs := parallel(all(5), func(i int) error {
		o, err := Refresh(context.Background(), c.group(i, t), c.keys[i], c.ledgers[i], RefreshRequest{Session: "ref/1", Ciphertext: low,
			Active: c.members, Receivers: c.members, PublicKey: c.kms[i].Public})
		outs[i] = o
		return err
	})
	for _, err := range errs {
		require.NoError(t, err)
	}
	d0, err := outs[0].Handle()
	require.NoError(t, err)
	for _, o := range outs[1:] {
		d, err := o.Handle()
		require.NoError(t, err)
		require.Equal(t, d0, d)
	}
	require.Equal(t, f.p.MaxLevel(), outs[0].Level())
	for _, res := range f.decrypt(t, outs[0], "dec/4", all(5), nil) {
		f.check(t, res)
	}
}

type corruptLedger struct{ l *memLedger }

func (c corruptLedger) Issue(kind ShareKind, d [32]byte, e uint64, s string, gen func() ([]byte, error)) ([]byte, error) {
	b, err := c.l.Issue(kind, d, e, s, gen)
	if err != nil {
		return nil, err
	}
	b = append([]byte(nil), b...)
	b[1+8*5] ^= 1 // flip a bit in one coefficient (still reduced: low bit)
	return b, nil
}

func mustEnc(t *testing.T, enc *fhe.Encryptor, v []int64) *fhe.Ciphertext {
	ct, err := enc.EncryptInts(v)
	require.NoError(t, err)
	return ct
}

func TestPlanNoise(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		id   fhe.PresetID
		n, t int
	}{{fhe.BGVN13, 5, 3}, {fhe.BGVN14, 5, 3}, {fhe.BGVN13, 3, 2}, {fhetest.InsecureBGVN10, 5, 3}} {
		p := fhe.MustParams(tc.id)
		plan, err := PlanNoise(p, tc.n, tc.t, 0)
		require.NoError(t, err)
		require.GreaterOrEqual(t, plan.HeadroomBits, 2.0)
		require.GreaterOrEqual(t, plan.FloodingBits, float64(noise.DefaultFloodingBits))
		require.Equal(t, float64(noise.CiphertextBits+noise.DefaultFloodingBits), plan.BaseSigmaBits)
		require.LessOrEqual(t, plan.SigmaBits, float64(maxPlanSigmaBits))
		t.Logf("%s %d-of-%d: %+v", p.Preset.Name, tc.t, tc.n, plan)
	}
	_, err := LagrangeBound(17, 3)
	require.Error(t, err)
}

func TestIntegerLagrange(t *testing.T) {
	t.Parallel()
	l, err := IntegerLagrange(5, []transport.MemberID{1, 2, 3})
	require.NoError(t, err)
	// λ = (3, -3, 1); Δ = 120
	require.Equal(t, int64(360), l[1].Int64())
	require.Equal(t, int64(-360), l[2].Int64())
	require.Equal(t, int64(120), l[3].Int64())
}

func TestDKGSelfTest(t *testing.T) {
	t.Parallel()
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	c := newCommittee(t, p, 4, 2, nil)
	plan, err := PlanNoise(p, 4, 2, 0)
	require.NoError(t, err)
	ev, err := fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: c.kms[0].Relin})
	require.NoError(t, err)
	for _, err := range parallel(all(4), func(i int) error {
		return SelfTest(context.Background(), c.group(i, t), c.kms[i], c.keys[i], plan, ev, c.ledgers[i])
	}) {
		require.NoError(t, err, "an honest DKG passes")
	}
	// Member 3's share is corrupted (as if a dealer had sent it a bad Shamir
	// share), in what stands for a fresh DKG: fresh ledgers and another
	// epoch's session names (within one epoch the same self-test would get
	// the same coin, hence the first run's shares back from the ledgers and
	// as late replies).
	c.keys[2].Share.Q.Coeffs[0][0] ^= 1
	fresh := make([]*memLedger, 4)
	for i := range fresh {
		fresh[i] = newMemLedger()
	}
	errs := parallel(all(4), func(i int) error {
		km := *c.kms[i]
		km.Epoch++
		return SelfTest(context.Background(), c.group(i, t), &km, c.keys[i], plan, ev, fresh[i])
	})
	for i, err := range errs {
		require.Error(t, err, "member %d", i+1)
	}
	require.Contains(t, errs[0].Error(), "[3]")
}

// TestDKGSelfTestCatchesBadEvalKeyShare: a member that sends a corrupted
// relinearisation-key share (or Galois-key share) in an otherwise honest DKG
// makes the self-test — hence the DKG — fail on every member.
func TestDKGSelfTestCatchesBadEvalKeyShare(t *testing.T) {
	t.Parallel()
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	gal := p.GaloisElementsForRotations([]int{1, 2})
	for name, knob := range map[string]DKGKnobs{"relinearisation key": {CorruptRelinShare: true}, "Galois keys": {CorruptGaloisShare: true}} {
		t.Run(name, func(t *testing.T) {
			c := newCommitteeKnobs(t, p, 4, 2, 1, gal, nil, map[int]DKGKnobs{1: knob})
			for i := 1; i < 4; i++ {
				require.NotNil(t, c.kms[i], "the DKG itself completes")
				require.Equal(t, c.kms[0].Digest, c.kms[i].Digest)
			}
			plan, err := PlanNoise(p, 4, 2, 0)
			require.NoError(t, err)
			ev, err := fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: c.kms[0].Relin, Galois: c.kms[0].Galois})
			require.NoError(t, err)
			errs := parallel(all(4), func(i int) error {
				return SelfTest(context.Background(), c.group(i, t), c.kms[i], c.keys[i], plan, ev, c.ledgers[i])
			})
			for i, err := range errs {
				require.Error(t, err, "member %d", i+1)
				require.Contains(t, err.Error(), name)
			}
			t.Log(errs[0])
		})
	}
}
