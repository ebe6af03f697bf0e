package protocol

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// notListening is a transport whose sends to a member that has not started
// fail as a TCP dial to a port nobody listens on does ("connection
// refused"): the message is not delivered.
type notListening struct {
	transport.Transport
	up map[transport.MemberID]*atomic.Bool
}

func (n notListening) Send(ctx context.Context, to transport.MemberID, msg transport.Message) error {
	if u := n.up[to]; u != nil && !u.Load() {
		return fmt.Errorf("transport: dial member %d: %w", to, errors.New("connect: connection refused"))
	}
	return n.Transport.Send(ctx, to, msg)
}

// TestDKGMemberStartsLate: every member runs the DKG, one of them seconds
// after the others (it decrypted its secrets with scrypt first); the
// others' first messages to it are refused. The DKG completes: a refused
// round message is sent again until the round's deadline. (Before, member
// 3 waited for member 1's seed commitment for ever while 1 and 2 waited for
// member 3's reveal: the asymmetric stall CI saw under CPU pressure.)
func TestDKGMemberStartsLate(t *testing.T) {
	t.Parallel()
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	const n, late = 3, 2 // index 2: member 3
	hub := transport.NewHub(n)
	up := map[transport.MemberID]*atomic.Bool{}
	for i := 1; i <= n; i++ {
		up[transport.MemberID(i)] = &atomic.Bool{}
	}
	var muxes []*transport.Mux
	var members []transport.MemberID
	for i := 1; i <= n; i++ {
		muxes = append(muxes, transport.NewMux(notListening{hub.Endpoint(transport.MemberID(i)), up}, zaptest.NewLogger(t)))
		members = append(members, transport.MemberID(i))
	}
	t.Cleanup(func() {
		for _, m := range muxes {
			m.Close()
		}
	})
	kms := make([]*KeyMaterial, n)
	errs := parallel(all(n), func(i int) error {
		if i == late {
			time.Sleep(1500 * time.Millisecond)
		}
		up[transport.MemberID(i+1)].Store(true)
		g := Group{Mux: muxes[i], Members: members, Threshold: 2, Timeout: 20 * time.Second, Log: zaptest.NewLogger(t)}
		km, _, err := RunDKG(context.Background(), g, DKGConfig{Params: p, Epoch: 1})
		kms[i] = km
		return err
	})
	for i, err := range errs {
		require.NoError(t, err, "member %d", i+1)
	}
	require.Equal(t, kms[0].Digest, kms[1].Digest)
	require.Equal(t, kms[0].Digest, kms[2].Digest)
}
