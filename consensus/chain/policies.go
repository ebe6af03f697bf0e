package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	ethereum "github.com/ava-labs/libevm"
	"github.com/ava-labs/libevm/common"

	"github.com/fhegate/fhegate/precompiles"
)

// ReplayPolicies delivers every PolicyRegistered event from block `from`
// to the current head to Config.OnPolicy, in chain order, in windows of
// replayWindow blocks. A member calls it on start, before Requests: its
// request cursor resumes where it stopped, but the policies of requests
// after the cursor may have been registered long before it, and compiled
// plans live in memory only. It returns the number of policies delivered.
func (a *Adapter) ReplayPolicies(ctx context.Context, from uint64) (int, error) {
	regEv, ok := a.policy.Events["PolicyRegistered"]
	if !ok {
		return 0, errors.New("chain: precompile ABI lacks PolicyRegistered")
	}
	if a.cfg.OnPolicy == nil {
		return 0, nil
	}
	head, err := a.client.BlockNumber(ctx)
	if err != nil {
		return 0, fmt.Errorf("chain: replay policies: %w", err)
	}
	n := 0
	for lo := from; lo <= head; lo += replayWindow {
		hi := min(lo+replayWindow-1, head)
		logs, err := a.client.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: new(big.Int).SetUint64(lo), ToBlock: new(big.Int).SetUint64(hi),
			Addresses: []common.Address{addr(precompiles.FHEPolicyAddress)}, Topics: [][]common.Hash{{regEv.ID}}})
		if err != nil {
			return n, fmt.Errorf("chain: replay policies in blocks %d-%d: %w", lo, hi, err)
		}
		for _, l := range logs {
			if !l.Removed {
				a.onPolicy(l)
				n++
			}
		}
	}
	return n, nil
}

// replayWindow bounds the block range of one eth_getLogs call of
// ReplayPolicies (nodes cap log queries by range).
const replayWindow = 2048
