package protocol

import (
	"context"
	"encoding/binary"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/consensus/transport"
)

// coinGroups is n members on an in-memory hub, each with its own CoinState.
func coinGroups(t *testing.T, n, th int) []Group {
	hub := transport.NewHub(n)
	var ids []transport.MemberID
	for i := 1; i <= n; i++ {
		ids = append(ids, transport.MemberID(i))
	}
	gs := make([]Group, n)
	for i := range gs {
		mux := transport.NewMux(hub.Endpoint(transport.MemberID(i+1)), zaptest.NewLogger(t))
		t.Cleanup(func() { mux.Close() })
		cs, err := NewCoinState()
		require.NoError(t, err)
		gs[i] = Group{Mux: mux, Members: ids, Threshold: th, Timeout: 2 * time.Second, Grace: 100 * time.Millisecond,
			Log: zaptest.NewLogger(t), Coins: cs}
	}
	return gs
}

func toss(gs []Group, idx []int, session string, subject []byte) ([]Coin, []error) {
	coins := make([]Coin, len(idx))
	errs := parallel(idx, func(i int) error {
		for k, j := range idx {
			if j == i {
				var err error
				coins[k], err = coinToss(context.Background(), gs[i], gs[i].Threshold, session, subject, gs[i].Members)
				return err
			}
		}
		return nil
	})
	return coins, errs
}

// TestCoinTossLateMemberAgrees is the liveness failure behind a flaky
// committee test: members 1 and 2 finish a toss while member 3 is slow; when
// member 3 runs the same toss later it reads their buffered messages and must
// reach the same seed (seed over the t lowest contributors), and a retry of
// members 1 and 2 under the same session must reproduce it (deterministic
// contributions), so that a retried decryption meets the late member.
func TestCoinTossLateMemberAgrees(t *testing.T) {
	gs := coinGroups(t, 3, 2)
	subject := []byte("ciphertext digest")
	first, errs := toss(gs, []int{0, 1}, "req/x/1/dec/coin", subject)
	for _, err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, first[0].Seed, first[1].Seed)
	require.Equal(t, []transport.MemberID{1, 2}, first[0].Contributors)

	late, errs := toss(gs, []int{2}, "req/x/1/dec/coin", subject)
	require.NoError(t, errs[0])
	require.Equal(t, first[0].Seed, late[0].Seed, "a late member reaches the seed the others used")

	again, errs := toss(gs, []int{0, 1, 2}, "req/x/1/dec/coin", subject)
	for i, err := range errs {
		require.NoError(t, err)
		require.Equal(t, first[0].Seed, again[i].Seed, "member %d: a retry reproduces the seed", i+1)
	}

	// The contribution is bound to what the toss is for (the committee's
	// coin sessions also name the ciphertext digest, so a second toss for
	// another ciphertext never shares a session with this one).
	c := gs[0].Coins
	require.NotEqual(t, c.contribution("req/x/1/dec/coin", subject), c.contribution("req/x/1/dec/coin", []byte("another ciphertext")))
}

// TestCoinTossSecondCommitmentIgnored: a member that saw the honest reveals
// of a failed attempt cannot commit to a new value in the retry (it could
// then grind the seed): its first commitment is remembered, so an honest
// member either excludes its new reveal or — when the cheater's reveal from
// the first attempt reaches it late — uses the first value. Member 1 cheats
// (the lowest id, so its value would be in every seed over the t lowest
// contributors); its new value must never enter an honest member's seed.
func TestCoinTossSecondCommitmentIgnored(t *testing.T) {
	gs := coinGroups(t, 3, 2)
	subject := []byte("d")
	first, errs := toss(gs, []int{0, 1, 2}, "s/coin", subject)
	for _, err := range errs {
		require.NoError(t, err)
	}
	// Member 1 switches to another contribution secret (as a cheater would
	// to choose a new value) and everybody retries the session.
	cs, err := NewCoinState()
	require.NoError(t, err)
	gs[0].Coins = cs
	again, errs := toss(gs, []int{0, 1, 2}, "s/coin", subject)
	require.NoError(t, errs[0])
	for i := 1; i < 3; i++ {
		if errs[i] != nil {
			continue // too few valid contributions is a failed toss, not a biased one
		}
		require.NotEqual(t, again[0].Seed, again[i].Seed, "member %d used the cheater's new value", i+1)
		if !slices.Contains(again[i].Excluded, transport.MemberID(1)) {
			require.Equal(t, first[i].Seed, again[i].Seed, "member %d: the cheater counts only with its first value", i+1)
		}
	}
}

// coinSeed is the seed coinToss computes from the contributions vals of the
// t lowest contributors ids (ascending).
func coinSeed(session string, ids []transport.MemberID, vals map[transport.MemberID][]byte) [32]byte {
	parts := [][]byte{[]byte("fhegate/coin/seed/v1"), []byte(session)}
	for _, id := range ids {
		parts = append(parts, binary.BigEndian.AppendUint32(nil, uint32(id)), vals[id])
	}
	return keccak(parts...)
}

// tossAmong is toss with the participants each member sees given
// explicitly (the committee's live view).
func tossAmong(gs []Group, idx []int, session string, subject []byte, participants []transport.MemberID) ([]Coin, []error) {
	coins := make([]Coin, len(idx))
	errs := parallel(idx, func(i int) error {
		for k, j := range idx {
			if j == i {
				var err error
				coins[k], err = coinToss(context.Background(), gs[i], gs[i].Threshold, session, subject, participants)
				return err
			}
		}
		return nil
	})
	return coins, errs
}

// TestCoinTossWithholderCannotChoose is the grinding attack on retries:
// member 1 (the lowest id, a contributor whenever it is a participant)
// stays silent in attempt 1 to read the honest reveals, then grinds a
// value that gives the seed it wants with them and commits to it in a
// later attempt.
//
//   - Attempt 1, participants {1, 2, 3}: the contributors are {1, 2};
//     without member 1's commitment member 2 never reveals, and the toss
//     fails naming member 1 missing (the committee then counts it down).
//   - Attempt 2, participants {2, 3}: contributors {2, 3}, a toss of its
//     own session; member 2's reveal there is all the attacker learns.
//   - Attempt 3, member 1 back, participants {1, 2, 3}: the attacker
//     grinds against member 2's attempt-2 value and commits first. Member
//     2's contribution to the set {1, 2} is another value (contributions
//     are bound to the set), so the seed is not the attacker's target.
func TestCoinTossWithholderCannotChoose(t *testing.T) {
	gs := coinGroups(t, 3, 2)
	const session = "req/grind/1/dec/coin"
	subject := []byte("ciphertext digest")
	all := []transport.MemberID{1, 2, 3}

	_, errs := tossAmong(gs, []int{1, 2}, session, subject, all)
	for i, err := range errs {
		require.ErrorIs(t, err, ErrCoinToss, "member %d", i+2)
		var miss *ErrMissing
		require.ErrorAs(t, err, &miss)
		require.Equal(t, []transport.MemberID{1}, miss.Missing)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, err := gs[0].Mux.Recv(ctx, transport.Key{Session: session + "/[1 2]", Type: transport.TypeCoinReveal, From: 2})
	cancel()
	require.Error(t, err, "member 2 revealed while a contributor had not committed")

	second, errs := tossAmong(gs, []int{1, 2}, session, subject, []transport.MemberID{2, 3})
	for i, err := range errs {
		require.NoError(t, err, "member %d", i+2)
	}
	require.Equal(t, second[0].Seed, second[1].Seed)
	require.Equal(t, []transport.MemberID{2, 3}, second[0].Contributors)

	// The attacker learnt member 2's reveal for the set {2, 3} (sent to
	// member 3 only; a worst case: the attacker has it anyway).
	ctx, cancel = context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	rev := gs[1].Coins.contribution(session+"/[2 3]", subject)
	target3 := session + "/[1 2]"
	vals := map[transport.MemberID][]byte{2: rev[:]}
	var target [32]byte
	for i := uint64(0); ; i++ {
		vals[1] = binary.BigEndian.AppendUint64(make([]byte, 24), i)
		if target = coinSeed(target3, []transport.MemberID{1, 2}, vals); target[0] == 0 {
			break
		}
	}
	commit := coinCommitment(target3, 1, vals[1])
	for _, m := range []transport.Message{
		{Type: transport.TypeCoinCommit, Session: target3, Payload: commit[:]},
		{Type: transport.TypeCoinReveal, Session: target3, Payload: vals[1]},
	} {
		require.NoError(t, gs[0].Mux.Broadcast(ctx, []transport.MemberID{2, 3}, m))
	}
	third, errs := tossAmong(gs, []int{1, 2}, session, subject, all)
	for i, err := range errs {
		require.NoError(t, err, "member %d", i+2)
		require.Equal(t, []transport.MemberID{1, 2}, third[i].Contributors)
		require.NotEqual(t, target, third[i].Seed, "member %d used the attacker's chosen seed", i+2)
	}
	require.Equal(t, third[0].Seed, third[1].Seed)
}

// TestCoinTossViewsConverge: members whose views of the participants
// differ run different tosses (the session names the contributors) and
// fail without revealing to each other; once their views agree they reach
// one seed. Before, the contributors were pinned at a member's first
// reveal, and two members that had revealed with different sets never
// agreed again (a committee test that stalled under CPU pressure).
func TestCoinTossViewsConverge(t *testing.T) {
	gs := coinGroups(t, 3, 2)
	const session = "req/views/1/dec/coin"
	subject := []byte("d")
	// member 1 counts member 2 down, member 3 counts member 1 down
	var c1, c3 Coin
	errs := parallel([]int{0, 2}, func(i int) error {
		var err error
		if i == 0 {
			c1, err = coinToss(context.Background(), gs[0], 2, session, subject, []transport.MemberID{1, 3})
		} else {
			c3, err = coinToss(context.Background(), gs[2], 2, session, subject, []transport.MemberID{2, 3})
		}
		return err
	})
	for _, err := range errs {
		require.ErrorIs(t, err, ErrCoinToss)
	}
	require.Zero(t, c1.Seed)
	require.Zero(t, c3.Seed)
	// the views agree again: every member reaches the same seed
	again, errs := toss(gs, []int{0, 1, 2}, session, subject)
	for i, err := range errs {
		require.NoError(t, err, "member %d", i+1)
		require.Equal(t, again[0].Seed, again[i].Seed)
		require.Equal(t, []transport.MemberID{1, 2}, again[i].Contributors)
	}
}

// TestCoinTossNoRevealWithoutQuorum: a member that holds too few
// commitments for t contributions fails the toss without revealing its
// value (a peer that commits later must not see it first).
func TestCoinTossNoRevealWithoutQuorum(t *testing.T) {
	gs := coinGroups(t, 3, 3)
	_, errs := toss(gs, []int{1}, "s/quiet", []byte("d"))
	require.ErrorIs(t, errs[0], ErrCoinToss)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := gs[0].Mux.Recv(ctx, transport.Key{Session: "s/quiet", Type: transport.TypeCoinReveal, From: 2})
	require.Error(t, err, "member 2 revealed without a quorum of commitments")
}
