package protocol

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/multiparty"
	"github.com/tuneinsight/lattigo/v6/ring/ringqp"
	"github.com/tuneinsight/lattigo/v6/utils/sampling"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// rushingRelin is a corrupt member in the relinearisation-key rounds of a
// DKG that rushes: it waits for every honest share before sending its own.
//
// Round 1: it sends (X_k − Σ_honest h0_k, A − Σ_honest h1_k) for every
// gadget entry k, so that the aggregate is (X_k, A) with A uniform (its
// choice), X_0 = 0 and X_1 = 2^30 (constant polynomials), X_k = 0 beyond.
// Round 2: every honest share is X_k·s_i + (u_i − s_i)·A + e_ik, so entry 1
// minus entry 0 is 2^30·s_i + e: it reads every s_i (its own too, from its
// own honest round-2 share) and sums them into s = Σ s_i. It then sends
// T_k − Σ_honest r2_k with T_k = −A·s + P·w_k·s² + e_k, so the
// relinearisation key (T_k, A) is valid and the DKG completes.
type rushingRelin struct {
	rp  rlwe.Parameters
	rkg multiparty.RelinearizationKeyGenProtocol
	a   ringqp.Poly
	n   int // committee size

	mu      sync.Mutex
	stolen  *rlwe.SecretKey // s, NTT and Montgomery form, as Lattigo keeps it
	rushed1 bool            // it saw every honest round-1 share before sending
	atSend  []int           // how many honest round-1 shares it saw before it sent (committed: before it committed)
}

func newRushingRelin(t *testing.T, p *fhe.Params, n int) *rushingRelin {
	rp := p.RLWE()
	prng, err := sampling.NewPRNG()
	require.NoError(t, err)
	a := rp.RingQP().NewPoly()
	ringqp.NewUniformSampler(prng, *rp.RingQP()).Read(a)
	return &rushingRelin{rp: rp, rkg: multiparty.NewRelinearizationKeyGenProtocol(rp), a: a, n: n}
}

func (r *rushingRelin) share(b []byte) multiparty.RelinearizationKeyGenShare {
	_, sh, _ := r.rkg.AllocateShare()
	if err := sh.UnmarshalBinary(b); err != nil {
		panic(err)
	}
	return sh
}

func (r *rushingRelin) sum(shares map[transport.MemberID][]byte) multiparty.RelinearizationKeyGenShare {
	var agg multiparty.RelinearizationKeyGenShare
	for k, b := range mapValues(shares) {
		if k == 0 {
			agg = r.share(b) // round-2 shares have degree 0: start from one
			continue
		}
		r.rkg.AggregateShares(agg, r.share(b), &agg)
	}
	return agg
}

// constant sets x to the constant polynomial c (in NTT form every
// evaluation is c), over Q and P.
func (r *rushingRelin) constant(x ringqp.Poly, c uint64) {
	rq := r.rp.RingQP()
	for i, s := range rq.RingQ.SubRings[:x.Q.Level()+1] {
		for w := range x.Q.Coeffs[i] {
			x.Q.Coeffs[i][w] = c % s.Modulus
		}
	}
	if rq.RingP != nil {
		for i, s := range rq.RingP.SubRings[:x.P.Level()+1] {
			for w := range x.P.Coeffs[i] {
				x.P.Coeffs[i][w] = c % s.Modulus
			}
		}
	}
}

func (r *rushingRelin) hook(stage hookStage, session string, typ transport.Type, own []byte, peek func() map[transport.MemberID][]byte) []byte {
	switch typ {
	case transport.TypeRLKShare1:
		honest := peek()
		if stage == hookSend {
			r.mu.Lock()
			r.atSend = append(r.atSend, len(honest))
			r.mu.Unlock()
		}
		return r.round1(own, honest)
	case transport.TypeRLKShare2:
		return r.round2(own, peek())
	}
	return own
}

func (r *rushingRelin) round1(own []byte, honest map[transport.MemberID][]byte) []byte {
	if len(honest) < r.n-1 {
		return own // nothing to rush on: behave
	}
	r.mu.Lock()
	r.rushed1 = true
	r.mu.Unlock()
	rq := r.rp.RingQP()
	sum := r.sum(honest)
	mal := r.share(own)
	x := rq.NewPoly()
	for i := range mal.Value {
		for j := range mal.Value[i] {
			r.constant(x, 0)
			if i == 1 && j == 0 {
				r.constant(x, 1<<30)
			}
			rq.Sub(x, sum.Value[i][j][0], mal.Value[i][j][0])
			rq.Sub(r.a, sum.Value[i][j][1], mal.Value[i][j][1])
		}
	}
	b, err := mal.MarshalBinary()
	if err != nil {
		panic(err)
	}
	return b
}

// readSecret reads s_i from a round-2 share built on the rigged aggregate:
// coefficients of (entry 1 − entry 0)/2^30, rounded, over the first prime.
func (r *rushingRelin) readSecret(sh multiparty.RelinearizationKeyGenShare) []int64 {
	rq := r.rp.RingQ()
	d := rq.NewPoly()
	rq.Sub(sh.Value[1][0][0].Q, sh.Value[0][0][0].Q, d)
	rq.INTT(d, d)
	q := rq.SubRings[0].Modulus
	out := make([]int64, rq.N())
	for w, c := range d.Coeffs[0] {
		v := int64(c)
		if c > q/2 {
			v = int64(c) - int64(q)
		}
		out[w] = (v + 1<<29) >> 30
	}
	return out
}

func (r *rushingRelin) round2(own []byte, honest map[transport.MemberID][]byte) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.rushed1 || len(honest) < r.n-1 {
		return own
	}
	rq := r.rp.RingQP()
	n := r.rp.N()
	s := make([]int64, n)
	for _, b := range append(mapValues(honest), own) {
		for w, v := range r.readSecret(r.share(b)) {
			s[w] += v
		}
	}
	sk := rlwe.NewSecretKey(r.rp)
	setSmall(rq, sk.Value, s)
	rq.NTT(sk.Value, sk.Value)
	rq.MForm(sk.Value, sk.Value)
	r.stolen = sk

	// T_k = −u·A + P·w_k·s² + e_k + (u − s)·A: Lattigo's round one with
	// the secret s² against a CRP equal to A everywhere, then its own
	// ephemeral u swapped for s.
	s2 := rlwe.NewSecretKey(r.rp)
	rq.MulCoeffsMontgomery(sk.Value, sk.Value, s2.Value)
	eph, target, _ := r.rkg.AllocateShare()
	crp := r.rkg.SampleCRP(mustPRNG())
	for i := range crp.Value {
		for j := range crp.Value[i] {
			crp.Value[i][j] = *r.a.CopyNew()
		}
	}
	r.rkg.GenShareRoundOne(s2, crp, eph, &target)
	us := rq.NewPoly()
	rq.Sub(eph.Value, sk.Value, us)
	sum := r.sum(honest)
	mal := r.share(own)
	for i := range target.Value {
		for j := range target.Value[i] {
			rq.MulCoeffsMontgomeryThenAdd(us, r.a, target.Value[i][j][0])
			rq.Sub(target.Value[i][j][0], sum.Value[i][j][0], mal.Value[i][j][0])
		}
	}
	b, err := mal.MarshalBinary()
	if err != nil {
		panic(err)
	}
	return b
}

func mapValues(m map[transport.MemberID][]byte) [][]byte {
	out := make([][]byte, 0, len(m))
	for _, id := range sortedIDs(m) {
		out = append(out, m[id])
	}
	return out
}

func mustPRNG() sampling.PRNG {
	p, err := sampling.NewPRNG()
	if err != nil {
		panic(err)
	}
	return p
}

// setSmall writes the small integer polynomial s into x (coefficient
// domain) over every prime of Q and P.
func setSmall(rq *ringqp.Ring, x ringqp.Poly, s []int64) {
	for i, sr := range rq.RingQ.SubRings[:x.Q.Level()+1] {
		q := int64(sr.Modulus)
		for w, v := range s {
			x.Q.Coeffs[i][w] = uint64(((v % q) + q) % q)
		}
	}
	if rq.RingP != nil {
		for i, sr := range rq.RingP.SubRings[:x.P.Level()+1] {
			q := int64(sr.Modulus)
			for w, v := range s {
				x.P.Coeffs[i][w] = uint64(((v % q) + q) % q)
			}
		}
	}
}

// shamirSecret reconstructs s = Σ_i λ_i·tsk_i from t members' Shamir
// shares (the collective secret no member is meant to hold), coefficient
// domain, centred.
func shamirSecret(t *testing.T, c *testCommittee, idx []int) *rlwe.SecretKey {
	rp := c.keys[0].Params.RLWE()
	active := make([]transport.MemberID, len(idx))
	for k, i := range idx {
		active[k] = c.members[i]
	}
	sum := rlwe.NewSecretKey(rp)
	for _, i := range idx {
		add, err := additiveShare(c.group(i, t), c.keys[i], active)
		require.NoError(t, err)
		rp.RingQP().Add(sum.Value, add.Value, sum.Value)
	}
	return sum
}

// TestDKGRushingRelinearisation is the rushing attack on the
// relinearisation-key rounds, run with the real RunDKG over the in-memory
// transport: a 2-of-4 committee, member 2 corrupt.
//
// Uncommitted (the share rounds as they were: broadcast, then collect), the
// corrupt member sees every honest round-1 share before it sends its own,
// rigs the aggregate, reads every s_i from the honest round-2 shares and
// repairs the key: every member derives the same digest, SelfTest passes,
// and the stolen s is the Shamir-reconstructed secret and decrypts a
// ciphertext under the collective key.
//
// Committed (commit before reveal): the corrupt member must commit to its
// round-1 share before it sees any honest one. If it reveals something
// else, every honest member aborts naming it (ErrEquivocation).
func TestDKGRushingRelinearisation(t *testing.T) {
	t.Parallel()
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	const n, th, corrupt = 4, 2, 1 // member 2

	t.Run("uncommitted rounds: one member recovers s", func(t *testing.T) {
		att := newRushingRelin(t, p, n)
		c := newCommitteeHooked(t, p, n, th, 1, map[int]roundHook{corrupt: att.hook}, true)
		for i := range c.kms {
			require.NotNil(t, c.kms[i], "member %d: the DKG completes", i+1)
			require.Equal(t, c.kms[0].Digest, c.kms[i].Digest)
		}
		require.True(t, att.rushed1)
		require.NotNil(t, att.stolen, "the corrupt member read every s_i")

		plan, err := PlanNoise(p, n, th, 0)
		require.NoError(t, err)
		ev, err := fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: c.kms[0].Relin})
		require.NoError(t, err)
		for i, err := range parallel(all(n), func(i int) error {
			return SelfTest(context.Background(), c.group(i, t), c.kms[i], c.keys[i], plan, ev, c.ledgers[i])
		}) {
			require.NoError(t, err, "member %d: the self-test passes on the rigged key", i+1)
		}

		want := shamirSecret(t, c, []int{0, 3})
		require.True(t, att.stolen.Value.Equal(&want.Value), "the stolen s is the collective secret")
		r := rand.New(rand.NewPCG(1, 2))
		msg := fhetest.RandInts(r, p.Slots(), 1000)
		ct := mustEnc(t, fhe.NewEncryptor(c.kms[0].Public), msg)
		got, err := fhe.NewDecryptor(fhe.WrapSecretKey(p, att.stolen)).DecryptInts(ct)
		require.NoError(t, err)
		require.Equal(t, msg, got, "the stolen s decrypts a user's ciphertext")
	})

	t.Run("committed rounds: it commits blind, and a different reveal is named", func(t *testing.T) {
		att := newRushingRelin(t, p, n)
		c := newCommitteeHooked(t, p, n, th, 1, map[int]roundHook{corrupt: att.hook}, false)
		require.Equal(t, []int{0}, att.atSend, "no honest round-1 share reaches it before it commits")
		require.True(t, att.rushed1, "it rigs its reveal once the honest shares are out")
		require.Nil(t, att.stolen, "the rigged reveal is refused: no round 2")
		for i, err := range c.dkgErrs {
			if i == corrupt {
				continue
			}
			var eq *ErrEquivocation
			require.ErrorAs(t, err, &eq, "member %d", i+1)
			require.Equal(t, transport.MemberID(corrupt+1), eq.Member, "member %d names the corrupt member", i+1)
			require.Nil(t, c.kms[i])
		}
	})
}
