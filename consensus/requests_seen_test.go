package consensus_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/local"
)

// refusingChain is a MemChain whose verdict submissions fail while refuse
// is set, as a relayer whose transactions never land does.
type refusingChain struct {
	*local.MemChain
	mu      sync.Mutex
	refuse  bool
	refused map[[32]byte]bool // requests whose verdict submission was refused
}

var errRelayerStuck = errors.New("test: verdict transaction not mined")

func (c *refusingChain) refusing(ids ...[32]byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.refuse {
		for _, id := range ids {
			c.refused[id] = true
		}
	}
	return c.refuse
}

func (c *refusingChain) SubmitVerdict(ctx context.Context, v *chainio.Verdict) error {
	if c.refusing(v.RequestID) {
		return errRelayerStuck
	}
	return c.MemChain.SubmitVerdict(ctx, v)
}

func (c *refusingChain) SubmitVerdictBatch(ctx context.Context, policyID, resultDigest [32]byte, epoch uint64, items []bls.VerdictItem, signature, signers []byte) error {
	ids := make([][32]byte, len(items))
	for i, it := range items {
		ids[i] = it.RequestID
	}
	if c.refusing(ids...) {
		return errRelayerStuck
	}
	return c.MemChain.SubmitVerdictBatch(ctx, policyID, resultDigest, epoch, items, signature, signers)
}

// TestStatusCountsUnansweredRequests: a member's status counts the requests
// it took from the chain and those with no verdict on chain — here, those
// whose verdict transactions never landed — while verdicts that do land
// leave the count.
func TestStatusCountsUnansweredRequests(t *testing.T) {
	lc := startTest(t, 3, 2, false)
	chain := &refusingChain{MemChain: lc.Chain, refuse: true, refused: map[[32]byte]bool{}}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- lc.ServeChain(ctx, chain) }()
	defer func() { cancel(); require.NoError(t, <-served) }()

	stuck := makeRequests(t, lc, 1, 3, 11)
	var first uint64
	for i, r := range stuck {
		posted := lc.Chain.Post(r.req)
		if i == 0 {
			first = posted.Block
		}
	}
	require.Eventually(t, func() bool {
		chain.mu.Lock()
		defer chain.mu.Unlock()
		return len(chain.refused) == len(stuck)
	}, 3*time.Minute, 20*time.Millisecond, "the committee never tried to post the verdicts")
	// No verdict can land while the relayer is stuck: every member (a slow
	// one once it has read the blocks) counts all three as unanswered.
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		for id := uint32(1); id <= 3; id++ {
			st := lc.Member(id).Status()
			assert.Equal(c, uint64(len(stuck)), st.RequestsSeen, "member %d", id)
			assert.Equal(c, len(stuck), st.Unanswered, "member %d", id)
			assert.Equal(c, first, st.OldestUnanswered, "member %d", id)
		}
	}, 3*time.Minute, 20*time.Millisecond)

	chain.mu.Lock()
	chain.refuse = false
	chain.mu.Unlock()
	landed := makeRequests(t, lc, 2, 2, 12)
	for _, r := range landed {
		lc.Chain.Post(r.req)
	}
	waitVerdicts(t, lc.Chain, landed)
	// Every member learns that the new ones are answered (its own post, or
	// its peer's seen when its turn comes). A stuck one stays counted until
	// a verdict for it is on chain: a member whose turn came after the
	// relayer recovered posts it, and the others see it there.
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		open := 0
		for _, r := range stuck {
			if _, ok := lc.Chain.Verdict(r.req.ID); !ok {
				open++
			}
		}
		for id := uint32(1); id <= 3; id++ {
			st := lc.Member(id).Status()
			assert.Equal(c, uint64(len(stuck)+len(landed)), st.RequestsSeen, "member %d", id)
			assert.Equal(c, open, st.Unanswered, "member %d", id)
		}
	}, 3*time.Minute, 20*time.Millisecond)
}
