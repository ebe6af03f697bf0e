package fheclient

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus"
	_ "github.com/fhegate/fhegate/fhe/fhetest" // registers the Insecure test presets
)

// TestUploadAttachesProof: Upload proves plaintext knowledge for the owner
// (issue 11 attack (2)) with the chain id and epoch the committee announces
// with its key, and the committee attests the input.
func TestUploadAttachesProof(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	lc, err := consensus.StartLocal(ctx, consensus.LocalOptions{N: 3, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10", Rotations: []int{1},
		RoundTimeout: 5 * time.Second, Log: zap.NewNop()})
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv, err := consensus.NewAPIServer(lc.Member(2), ln.Addr().String(), consensus.APIOptions{NoAuth: true})
	require.NoError(t, err)
	go func() { _ = consensus.ServeAPI(srv, ln) }()
	t.Cleanup(func() { srv.Close() })

	c := &Committee{API: "http://" + ln.Addr().String()}
	owner := common.HexToAddress("0x00000000000000000000000000000000000000a1")
	a, err := c.Upload(ctx, 42, owner)
	require.NoError(t, err)
	committee, _, err := lc.Config.BLSCommittee()
	require.NoError(t, err)
	d := bls.InputDigest(lc.Config.ChainIDBig(), lc.Config.Epoch, [32]byte(a.Handle), owner, a.Preset, a.CType)
	_, err = committee.VerifyAggregate(a.Signers, d[:], a.Signature)
	require.NoError(t, err)
}
