package subnetevm_test

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"os"
	"testing"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/crypto"
	"github.com/ava-labs/subnet-evm/eth/ethconfig"
	"github.com/ava-labs/subnet-evm/ethclient/simulated"
	"github.com/ava-labs/subnet-evm/node"
	"github.com/ava-labs/subnet-evm/plugin/evm"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
)

func TestMain(m *testing.M) {
	evm.RegisterAllLibEVMExtras()
	os.Exit(m.Run())
}

// testCommittee is n deterministic BLS members.
type testCommittee struct {
	epoch     uint64
	threshold uint32
	keys      []*bls.SecretKey
}

func newCommittee(t testing.TB, tag string, epoch uint64, n int, threshold uint32) *testCommittee {
	c := &testCommittee{epoch: epoch, threshold: threshold}
	for i := 0; i < n; i++ {
		seed := crypto.Keccak256([]byte(fmt.Sprintf("fhegate-test-committee/%s/%d", tag, i)))
		sk, err := bls.Keygen(seed)
		require.NoError(t, err)
		c.keys = append(c.keys, sk)
	}
	return c
}

func (c *testCommittee) config() *subnetevm.Committee {
	out := &subnetevm.Committee{Epoch: c.epoch, Threshold: c.threshold}
	for _, k := range c.keys {
		out.Members = append(out.Members, subnetevm.Member{PublicKey: k.PublicKey(), ProofOfPossession: k.ProvePossession()})
	}
	return out
}

// sign returns the aggregate signature and bitmap of members idx over digest.
func (c *testCommittee) sign(t testing.TB, digest [32]byte, idx ...int) ([]byte, []byte) {
	var sigs [][]byte
	for _, i := range idx {
		sigs = append(sigs, c.keys[i].Sign(digest[:]))
	}
	agg, err := bls.Aggregate(sigs)
	require.NoError(t, err)
	bm, err := bls.NewBitmap(len(c.keys), idx)
	require.NoError(t, err)
	return agg, bm
}

type chain struct {
	t       testing.TB
	backend *simulated.Backend
	client  simulated.Client
	chainID *big.Int
	keys    []*ecdsa.PrivateKey
	addrs   []common.Address
}

func newChain(t testing.TB, governance int, committee *testCommittee) *chain {
	c := &chain{t: t}
	alloc := types.GenesisAlloc{}
	for i := 0; i < 4; i++ {
		k, err := crypto.ToECDSA(crypto.Keccak256([]byte(fmt.Sprintf("fhegate-test-account/%d", i))))
		require.NoError(t, err)
		c.keys = append(c.keys, k)
		c.addrs = append(c.addrs, crypto.PubkeyToAddress(k.PublicKey))
		alloc[c.addrs[i]] = types.Account{Balance: new(big.Int).Mul(big.NewInt(1000), big.NewInt(1e18))}
	}
	var cc *subnetevm.Committee
	if committee != nil {
		cc = committee.config()
	}
	gov := c.addrs[governance]
	c.backend = simulated.NewBackend(alloc, simulated.WithBlockGasLimit(30_000_000), func(_ *node.Config, ec *ethconfig.Config) {
		subnetevm.Enable(ec.Genesis.Config, gov, cc)
	})
	t.Cleanup(func() { c.backend.Close() })
	c.client = c.backend.Client()
	id, err := c.client.ChainID(context.Background())
	require.NoError(t, err)
	c.chainID = id
	return c
}
