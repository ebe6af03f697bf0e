package fheclient

import (
	"context"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/apiserver"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/fhe"
	_ "github.com/fhegate/fhegate/fhe/fhetest" // registers the Insecure test presets
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// TestUploadAttachesProof: Upload proves plaintext knowledge for the owner
// (against the copied-input attack) of each value with the chain id and epoch the
// committee announces with its key, and the committee attests the set with
// one aggregate over bls.InputBatchDigest (proof digests in the root).
func TestUploadAttachesProof(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	lc, err := local.Start(ctx, local.Options{N: 3, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10", Rotations: []int{1},
		RoundTimeout: 5 * time.Second, Log: zap.NewNop()})
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv, err := apiserver.NewAPIServer(lc.Member(2), ln.Addr().String(), apiserver.APIOptions{NoAuth: true})
	require.NoError(t, err)
	go func() { _ = apiserver.ServeAPI(srv, ln) }()
	t.Cleanup(func() { srv.Close() })

	c := &Committee{API: "http://" + ln.Addr().String()}
	owner := common.HexToAddress("0x00000000000000000000000000000000000000a1")
	a, err := c.Upload(ctx, owner, 42, 7, 0)
	require.NoError(t, err)
	require.Len(t, a.Handles, 3)
	require.Equal(t, []uint8{1, 1, 1}, a.CTypes)
	committee, _, err := lc.Config.BLSCommittee()
	require.NoError(t, err)
	items := make([]bls.InputItem, len(a.Handles))
	for i := range items {
		items[i] = bls.InputItem{Handle: a.Handles[i], CType: a.CTypes[i], ProofDigest: a.ProofDigests[i]}
		require.True(t, lc.Member(1).Store().Has(a.Handles[i]))
	}
	d := bls.InputBatchDigest(lc.Config.ChainIDBig(), lc.Config.Epoch, owner, a.Preset, bls.InputBatchRoot(items))
	_, err = committee.VerifyAggregate(a.Signers, d[:], a.Signature)
	require.NoError(t, err)
}

// TestReplicatedEncryptionDecrypts: the way Upload encrypts a value (every
// slot = v, with its proof) decrypts to v in every slot — checked with a
// key pair of our own, since no one holds the committee's secret.
func TestReplicatedEncryptionDecrypts(t *testing.T) {
	pr, err := fhe.PresetByName("InsecureBGVN10")
	require.NoError(t, err)
	p, err := fhe.NewParams(pr.ID)
	require.NoError(t, err)
	ks := fhe.GenKeys(p, nil)
	key, err := zkpok.NewKey(ks.Public)
	require.NoError(t, err)
	for _, v := range []int64{0, 42, -3} {
		ct, _, err := key.EncryptInts(api.ReplicatedInts(p, v), zkpok.Context{ChainID: big.NewInt(1), Epoch: 1, Owner: [20]byte{1}})
		require.NoError(t, err)
		got, err := fhe.NewDecryptor(ks.Secret).DecryptInts(ct)
		require.NoError(t, err)
		require.Len(t, got, p.Slots())
		for i, x := range got {
			require.Equal(t, v, x, "slot %d", i)
		}
	}
}

// TestReadPrivate: the owner of an uploaded value reads it back privately
// (Committee.ReadPrivate): t members re-encrypt it to the owner's own key,
// which decrypts the value in every slot; after the grant is revoked the
// members refuse.
func TestReadPrivate(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	lc, err := local.Start(ctx, local.Options{N: 3, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10",
		RoundTimeout: 5 * time.Second, Log: zap.NewNop()})
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	acl := local.NewMemACL()
	apis, stop, err := lc.ServeMemberAPIs(apiserver.DevAPIOptions(), acl)
	require.NoError(t, err)
	t.Cleanup(stop)

	signer, err := crypto.GenerateKey()
	require.NoError(t, err)
	owner := crypto.PubkeyToAddress(signer.PublicKey)
	c := &Committee{API: apis[0]}
	a, err := c.Upload(ctx, owner, -1234)
	require.NoError(t, err)
	acl.Allow(a.Handles[0], owner)
	pk, err := c.PublicKey(ctx)
	require.NoError(t, err)
	mine := fhe.GenKeys(pk.Params(), nil)

	got, err := c.ReadPrivate(ctx, apis, signer, a.Handles[0], mine, time.Minute)
	require.NoError(t, err)
	for i, v := range got {
		require.Equal(t, int64(-1234), v, "slot %d", i)
	}
	acl.Revoke(a.Handles[0], owner)
	_, err = c.ReadPrivate(ctx, apis, signer, a.Handles[0], mine, time.Minute)
	require.ErrorContains(t, err, "not allowed")
}
