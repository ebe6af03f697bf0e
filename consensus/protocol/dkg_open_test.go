package protocol

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/multiparty"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// shamirTamper is member 2's transport in the dispute case: it adds 1 to
// one coefficient of the Shamir share it sends member 3, after having
// committed (in its dealing) to the share it computed.
type shamirTamper struct {
	transport.Transport
	p *fhe.Params
	q uint64
}

func (s shamirTamper) Send(ctx context.Context, to transport.MemberID, msg transport.Message) error {
	if msg.Type == transport.TypeShamirShare && msg.Session == "dkg/1/shamir" && to == 3 {
		sh := multiparty.NewThresholdizer(s.p.RLWE()).AllocateThresholdSecretShare()
		if err := sh.UnmarshalBinary(msg.Payload); err != nil {
			return err
		}
		c := &sh.Q.Coeffs[0][0]
		*c = (*c + 1) % s.q
		nb, err := sh.MarshalBinary()
		if err != nil {
			return err
		}
		msg.Payload = nb
	}
	return s.Transport.Send(ctx, to, msg)
}

// TestDKGOpenOnAbortNamesDealer: a 2-of-4 DKG on the real protocol code
// (InsecureBGVN10, in-memory transport) in which member 2 misbehaves in
// the Shamir round. The DKG completes, the self-test fails on every member
// and the dealings are opened:
//
//   - member 2 deals member 3 a share off its polynomial and commits to it:
//     no polynomial of degree < t matches its commitments, every honest
//     member names member 2 and only member 2 (the self-test alone named
//     member 3, the honest receiver of the bad share);
//   - member 2 deals a consistent polynomial whose constant is not the
//     secret s_2 behind its public-key share: the residual p_2 + a·P_2(0)
//     of its opened polynomial is not short, and it is named;
//   - member 2 commits to its true shares but sends member 3 another one:
//     member 3 complains, member 2's opening matches its commitments; the
//     pair is a dispute and no one is named — in particular not member 3.
//
// An honest DKG passes its self-test and drops the dealing records.
func TestDKGOpenOnAbortNamesDealer(t *testing.T) {
	t.Parallel()
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	plan, err := PlanNoise(p, 4, 2, 0)
	require.NoError(t, err)
	selfTest := func(t *testing.T, c *testCommittee) []error {
		for i := range 4 {
			require.NoError(t, c.dkgErrs[i], "the DKG itself completes (member %d)", i+1)
			require.NotNil(t, c.kms[i].dealing, "the dealing record is kept until the self-test")
		}
		ev, err := fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: c.kms[0].Relin, Galois: c.kms[0].Galois})
		require.NoError(t, err)
		errs := parallel(all(4), func(i int) error {
			return SelfTest(context.Background(), c.group(i, t), c.kms[i], c.keys[i], plan, ev, c.ledgers[i])
		})
		for i := range 4 {
			require.Nil(t, c.kms[i].dealing, "member %d: the dealing record is dropped after the self-test", i+1)
		}
		return errs
	}
	for _, tc := range []struct {
		name     string
		knobs    map[int]DKGKnobs
		wrap     func(transport.Transport) transport.Transport
		named    []transport.MemberID
		disputes [][2]transport.MemberID
	}{
		{name: "inconsistent dealing", knobs: map[int]DKGKnobs{1: {InconsistentShamirShare: true}}, named: []transport.MemberID{2}},
		{name: "dealing of another secret", knobs: map[int]DKGKnobs{1: {DealOtherSecret: true}}, named: []transport.MemberID{2}},
		{name: "share other than committed", knobs: map[int]DKGKnobs{}, wrap: tamperFrom(2, p.Q()[0]), disputes: [][2]transport.MemberID{{2, 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCommitteeKnobs(t, p, 4, 2, 1, nil, tc.wrap, tc.knobs)
			errs := selfTest(t, c)
			for _, i := range []int{0, 2, 3} { // the honest members
				var bad *ErrBadDealing
				require.True(t, errors.As(errs[i], &bad), "member %d: %v", i+1, errs[i])
				require.Equal(t, tc.named, bad.Named, "member %d names: %v", i+1, bad)
				require.Equal(t, tc.disputes, bad.Disputes, "member %d", i+1)
				require.Error(t, bad.Cause, "the self-test failure that triggered the opening")
				t.Logf("member %d: %v", i+1, bad)
			}
		})
	}
	t.Run("honest", func(t *testing.T) {
		c := newCommitteeKnobs(t, p, 4, 2, 1, nil, nil, map[int]DKGKnobs{})
		for i, err := range selfTest(t, c) {
			require.NoError(t, err, "member %d", i+1)
		}
	})
}

// tamperFrom wraps member id's transport in shamirTamper.
func tamperFrom(id transport.MemberID, q uint64) func(transport.Transport) transport.Transport {
	return func(tr transport.Transport) transport.Transport {
		if tr.Self() != id {
			return tr
		}
		return shamirTamper{Transport: tr, p: fhe.MustParams(fhetest.InsecureBGVN10), q: q}
	}
}
