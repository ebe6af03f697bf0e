package protocol

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/consensus/transport"
)

// agreedGroups is n members on an in-memory hub (no keys: an agreed round
// needs none), each with round timeout `timeout`.
func agreedGroups(t *testing.T, n int, timeout time.Duration) []Group {
	hub := transport.NewHub(n)
	var members []transport.MemberID
	for i := 1; i <= n; i++ {
		members = append(members, transport.MemberID(i))
	}
	out := make([]Group, n)
	for i := range out {
		mux := transport.NewMux(hub.Endpoint(transport.MemberID(i+1)), zaptest.NewLogger(t))
		t.Cleanup(func() { mux.Close() })
		out[i] = Group{Mux: mux, Members: members, Threshold: 2, Timeout: timeout, Log: zaptest.NewLogger(t)}
	}
	return out
}

// TestAgreedFromActiveSlowProducer: the round's deadline bounds the
// exchange, not the active members' computation. Members 1 and 2 compute a
// value for longer than a round timeout (a packed plan under load); member
// 3 waits with ProduceWait. Every member gets the value; without
// ProduceWait the passive member gives up, and an active member whose
// computation fails tells the others at once (ErrActiveFailed) instead of
// leaving them to wait out the round.
func TestAgreedFromActiveSlowProducer(t *testing.T) {
	t.Parallel()
	const timeout = 300 * time.Millisecond
	active := []transport.MemberID{1, 2}
	receivers := []transport.MemberID{1, 2, 3}
	value := []byte("packed result")
	type outcome struct {
		val  []byte
		err  error
		took time.Duration
	}
	run := func(t *testing.T, session string, produceWait time.Duration, produce func(i int) ([]byte, error), after ...func(i int)) []outcome {
		gs := agreedGroups(t, 3, timeout)
		out := make([]outcome, len(gs))
		done := make(chan struct{})
		for i := range gs {
			go func() {
				defer func() { done <- struct{}{} }()
				g := gs[i]
				g.ProduceWait = produceWait
				start := time.Now()
				v, err := AgreedFromActive(context.Background(), g, transport.TypeAgreed, session, active, receivers, "value",
					func() ([]byte, error) { return produce(i) })
				out[i] = outcome{v, err, time.Since(start)}
				for _, f := range after {
					f(i)
				}
			}()
		}
		for range gs {
			<-done
		}
		return out
	}
	slow := func(int) ([]byte, error) { time.Sleep(3 * timeout); return value, nil }

	t.Run("computation longer than a round", func(t *testing.T) {
		t.Parallel()
		for i, o := range run(t, "slow", 10*timeout, slow) {
			require.NoError(t, o.err, "member %d", i+1)
			require.Equal(t, value, o.val, "member %d", i+1)
		}
	})
	t.Run("passive member without ProduceWait", func(t *testing.T) {
		t.Parallel()
		out := run(t, "short", 0, slow)
		for i := 0; i < 2; i++ {
			require.NoError(t, out[i].err, "active member %d", i+1)
		}
		var missing *ErrMissing
		require.ErrorAs(t, out[2].err, &missing)
		require.Equal(t, active, missing.Missing)
	})
	t.Run("an active member fails", func(t *testing.T) {
		t.Parallel()
		// Member 1 fails at once; member 2 is still computing, and finishes
		// only once member 3 has its answer: member 3 must not wait for it.
		boom := errors.New("evaluation failed")
		release := make(chan struct{})
		out := run(t, "abort", time.Minute, func(i int) ([]byte, error) {
			if i == 0 {
				return nil, boom
			}
			select {
			case <-release:
			case <-time.After(time.Minute):
			}
			return value, nil
		}, func(i int) {
			if i == 2 {
				close(release)
			}
		})
		require.ErrorIs(t, out[0].err, boom)
		for i := 1; i < 3; i++ {
			var failed *ErrActiveFailed
			require.ErrorAs(t, out[i].err, &failed, "member %d", i+1)
			require.Equal(t, transport.MemberID(1), failed.Member)
			require.Less(t, out[i].took, time.Minute, "member %d waited out the round", i+1)
		}
	})
}

// TestCommittedRoundSlowIssue: a committed share round's deadline starts
// once the share exists, so senders whose shares take longer than a round
// to issue (a loaded member, many concurrent refreshes) still exchange
// them; a member that only receives waits with ProduceWait.
func TestCommittedRoundSlowIssue(t *testing.T) {
	t.Parallel()
	const timeout = 300 * time.Millisecond
	gs := agreedGroups(t, 3, timeout)
	senders := []transport.MemberID{1, 2}
	out := make([]map[transport.MemberID][]byte, len(gs))
	errs := make([]error, len(gs))
	done := make(chan struct{})
	for i := range gs {
		go func() {
			defer func() { done <- struct{}{} }()
			g := gs[i]
			g.ProduceWait = 10 * timeout
			out[i], errs[i] = exchangeCommitted(context.Background(), g, transport.TypeAgreed, "slow-issue", senders, []transport.MemberID{3},
				func() ([]byte, error) { time.Sleep(3 * timeout); return []byte{byte(i + 1)}, nil })
		}()
	}
	for range gs {
		<-done
	}
	for i := range gs {
		require.NoError(t, errs[i], "member %d", i+1)
		require.Equal(t, map[transport.MemberID][]byte{1: {1}, 2: {2}}, out[i], "member %d", i+1)
	}
}
