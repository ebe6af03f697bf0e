package chain_test

import (
	"context"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/apiserver"
	"github.com/fhegate/fhegate/devchain"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/precompiles"
)

// TestPrivateReadOnDevchain: private reads authorised by the real
// FHEInput.isAllowed over JSON-RPC (chain.Adapter as the members' ACL):
// the owner of a registered input reads it; another account is refused
// until the owner calls FHEInput.allow for it on chain, then reads it too.
func TestPrivateReadOnDevchain(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	d := startDevchain(ctx, t)
	apis, stop, err := d.lc.ServeMemberAPIs(apiserver.DevAPIOptions(), d.ad)
	require.NoError(t, err)
	t.Cleanup(stop)

	att := d.uploadAndRegister(1, []int64{21, -4})
	h := [32]byte(att.Items[0].Handle)
	p := d.lc.Member(1).Params()
	mine := fhe.GenKeys(p, nil)
	pkb, err := mine.Public.MarshalBinary()
	require.NoError(t, err)
	deadline := uint64(time.Now().Add(time.Hour).Unix())
	read := func(acct devchain.Account, nonce uint64) ([]uint64, error) {
		req, err := api.SignPrivateRead(acct.Key, d.ch.ChainID(), h, pkb, nonce, deadline)
		require.NoError(t, err)
		return api.ReadPrivate(ctx, apis, "", req, mine.Secret)
	}
	got, err := read(d.alice, 1)
	require.NoError(t, err)
	require.Equal(t, []int64{21, -4}, fhe.Centre(got, p.PlaintextModulus())[:2])

	bob := devchain.DevAccounts()[1]
	_, err = read(bob, 1)
	require.ErrorContains(t, err, "not allowed")
	d.send(precompiles.FHEInputAddress, d.suite.Input.ABI(), "allow", h, common.Address(bob.Address))
	got, err = read(bob, 2)
	require.NoError(t, err)
	require.Equal(t, []int64{21, -4}, fhe.Centre(got, p.PlaintextModulus())[:2])
}
