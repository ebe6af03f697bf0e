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

// TestCoinTossWithholderCannotChoose is the grinding attack on retries:
// member 1 (the lowest id, so its value would be in every seed over the t
// lowest contributors) stays silent in attempt 1, reads the honest reveals
// (the same values in every attempt of a session), grinds a contribution
// that gives the seed it wants with them, and commits to it and reveals it
// in attempt 2. The honest members pinned their contributors when they
// revealed in attempt 1: they refuse its commitment and reach their
// attempt-1 seed again, never the attacker's.
func TestCoinTossWithholderCannotChoose(t *testing.T) {
	gs := coinGroups(t, 3, 2)
	const session = "req/grind/1/dec/coin"
	subject := []byte("ciphertext digest")
	first, errs := toss(gs, []int{1, 2}, session, subject)
	for _, err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, first[0].Seed, first[1].Seed)
	require.Equal(t, []transport.MemberID{2, 3}, first[0].Contributors)

	// The attacker saw the honest reveals: member 2's value.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	rev, err := gs[0].Mux.Recv(ctx, transport.Key{Session: session, Type: transport.TypeCoinReveal, From: 2})
	require.NoError(t, err)
	vals := map[transport.MemberID][]byte{2: rev.Payload}
	// It grinds its value until the seed over {1, 2} starts with a zero byte.
	var target [32]byte
	for i := uint64(0); ; i++ {
		vals[1] = binary.BigEndian.AppendUint64(make([]byte, 24), i)
		if target = coinSeed(session, []transport.MemberID{1, 2}, vals); target[0] == 0 {
			break
		}
	}
	commit := coinCommitment(session, 1, vals[1])
	for _, m := range []transport.Message{
		{Type: transport.TypeCoinCommit, Session: session, Payload: commit[:]},
		{Type: transport.TypeCoinReveal, Session: session, Payload: vals[1]},
	} {
		require.NoError(t, gs[0].Mux.Broadcast(ctx, []transport.MemberID{2, 3}, m))
	}

	again, errs := toss(gs, []int{1, 2}, session, subject)
	for i, err := range errs {
		require.NoError(t, err, "member %d", i+2)
		require.NotEqual(t, target, again[i].Seed, "member %d used the attacker's chosen value", i+2)
		require.Equal(t, first[i].Seed, again[i].Seed, "member %d: the retry reaches the attempt-1 seed", i+2)
		require.NotContains(t, again[i].Contributors, transport.MemberID(1))
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
