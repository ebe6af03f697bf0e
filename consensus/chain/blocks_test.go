package chain_test

import (
	"context"
	"testing"
	"time"

	"github.com/ava-labs/libevm/crypto"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/configs"
	"github.com/fhegate/fhegate/consensus/chain"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/devchain"
)

// TestAdapterBlocksAndMarks: on a devnet (which builds blocks only for
// transactions) the adapter makes empty blocks with evm_mine up to a
// target (chainio.BlockMaker), and its request stream delivers a block
// mark for every range it read, so a packing window closes on the mark of
// its last block without any transaction.
func TestAdapterBlocksAndMarks(t *testing.T) {
	log := zaptest.NewLogger(t)
	ch, err := devchain.New(devchain.Config{Genesis: configs.DevnetGenesis(), HTTPAddr: "127.0.0.1:0", Logger: log})
	require.NoError(t, err)
	t.Cleanup(func() { ch.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	relayer, err := crypto.HexToECDSA(chain.DevRelayerKey)
	require.NoError(t, err)
	ad, err := chain.Dial(ctx, chain.Config{URL: ch.URL(), Key: relayer, Poll: 20 * time.Millisecond, Log: log})
	require.NoError(t, err)
	t.Cleanup(ad.Close)
	var _ chainio.BlockMaker = ad

	head := ch.Head().NumberU64()
	reqs, err := ad.Requests(ctx, head+1)
	require.NoError(t, err)
	require.NoError(t, ad.MakeBlocks(ctx, head+3))
	require.GreaterOrEqual(t, ch.Head().NumberU64(), head+3)
	require.NoError(t, ad.MakeBlocks(ctx, head+2), "already there: no block")
	require.Equal(t, head+3, ch.Head().NumberU64())
	for {
		select {
		case r := <-reqs:
			require.Equal(t, chainio.KindBlockSeen, r.Kind, "empty blocks carry no request")
			if r.Block >= head+3 {
				return
			}
		case <-ctx.Done():
			t.Fatal("no block mark for the made blocks")
		}
	}
}
