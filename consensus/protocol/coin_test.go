package protocol

import (
	"context"
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
