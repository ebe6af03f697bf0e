package consensus_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/ring"
	"go.uber.org/zap/zaptest"

	. "github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/config"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
)

// kShiftTransport is a corrupt old member's joint transport in a rotation:
// it adds the constant K to every key-switch share it sends (K in every
// NTT evaluation, in every RNS row). This is the K-shift that reads the new
// secret through the public-key switch (protocol TestReencryptKShift), run
// against the joint key switch of `fhegate committee rotate switch`.
// Before the commitment echo it held each commitment back until its member
// revealed the share, then sent the commitment of the shifted share with
// the shifted share; now no member reveals before every sender's
// commitment is confirmed by every sender's echo, so a member at the
// transport layer cannot commit to a share it has not seen: its
// commitments and echoes go out as its member made them, and only the
// reveal is shifted. (A corrupt member that shifts inside the protocol,
// before it commits, is protocol TestCrossKeySwitch's: the phase shows the
// constant K, not s′.)
type kShiftTransport struct {
	transport.Transport
	q       []uint64 // the RNS moduli
	k       uint64
	mu      sync.Mutex
	shifted int
}

func (c *kShiftTransport) Send(ctx context.Context, to transport.MemberID, msg transport.Message) error {
	if !strings.HasPrefix(msg.Session, "ks/") || strings.Contains(msg.Session, "/seed") {
		return c.Transport.Send(ctx, to, msg)
	}
	switch msg.Type {
	case transport.TypeReencryptShare:
		var x ring.Poly
		if err := x.UnmarshalBinary(msg.Payload); err != nil {
			return err
		}
		if len(x.Coeffs) > len(c.q) {
			return errors.New("share above the top level")
		}
		for i := range x.Coeffs {
			q := c.q[i]
			for w := range x.Coeffs[i] {
				x.Coeffs[i][w] = (x.Coeffs[i][w] + c.k%q) % q
			}
		}
		b, err := x.MarshalBinary()
		if err != nil {
			return err
		}
		c.mu.Lock()
		c.shifted++
		c.mu.Unlock()
		msg.Payload = b
	}
	return c.Transport.Send(ctx, to, msg)
}

// jointTLS starts one TLS transport per joint ID on 127.0.0.1:0 with fresh
// identity keys (the joint session's peers: new members 1..n2, old members
// n2+1..n2+n).
func jointTLS(t *testing.T, ids int) map[transport.MemberID]*transport.TLS {
	t.Helper()
	keys := make([]ed25519.PrivateKey, ids+1)
	lns := make([]net.Listener, ids+1)
	var peers []transport.Peer
	for id := 1; id <= ids; id++ {
		k, err := transport.NewIdentityKey()
		require.NoError(t, err)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		keys[id], lns[id] = k, ln
		peers = append(peers, transport.Peer{ID: transport.MemberID(id), Addr: ln.Addr().String(), PubKey: k.Public().(ed25519.PublicKey)})
	}
	out := map[transport.MemberID]*transport.TLS{}
	for id := 1; id <= ids; id++ {
		tr, err := transport.ListenTLS(transport.TLSConfig{Self: transport.MemberID(id), Key: keys[id], Peers: peers, Listener: lns[id]})
		require.NoError(t, err)
		out[transport.MemberID(id)] = tr
	}
	return out
}

// TestJointRotationKShiftOverTLS: a 2-of-3 committee rotates to a new
// 2-of-3 committee with the joint key switch over real TLS sockets, old
// member 1 corrupt: it adds K = 2^63 to its key-switch shares. It used to
// commit to the shifted shares (holding each commitment back until its own
// reveal), so nothing caught it, and the test showed the shift landing in
// the phase as the constant K. With the commitment echo no reveal leaves
// before every commitment is confirmed, so a transport-level member can
// only shift what it reveals: every honest participant names it (joint ID
// 4: new members are 1..3, old member i is 3+i) and the key switch fails
// before any output is adopted. The committed K-shift made inside the
// protocol is protocol TestCrossKeySwitch's.
func TestJointRotationKShiftOverTLS(t *testing.T) {
	t.Parallel()
	old := startTest(t, 3, 2, true)
	reqs := makeRequests(t, old, 1, 3, 41)
	old.Chain.Post(reqs[0].req)
	waitVerdicts(t, old.Chain, reqs[:1])
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const k = uint64(1) << 63
	var corrupt *kShiftTransport
	var outs []map[fhe.Handle][]byte

	overTLS := jointOverTLS(t, func(tr transport.Transport) transport.Transport {
		corrupt = &kShiftTransport{Transport: tr, q: old.Member(1).Params().Q(), k: k}
		return corrupt
	}, &outs)
	nc, err := local.RotateWith(ctx, old, local.Options{Dir: t.TempDir(), RoundTimeout: 10 * time.Second, BatchSize: 8, Serve: true, Log: zaptest.NewLogger(t)}, overTLS)
	if nc != nil {
		t.Cleanup(nc.Close)
	}
	require.Error(t, err, "a shifted reveal must not pass")
	require.Positive(t, corrupt.shifted, "the corrupt member's shifted shares went out")
	require.ErrorContains(t, err, "member 4 equivocated: revealed share does not match its commitment")
	for _, id := range []string{"member 1 equivocated", "member 2 equivocated", "member 3 equivocated", "member 5 equivocated", "member 6 equivocated"} {
		require.NotContains(t, err.Error(), id, "an honest member named")
	}
}

// jointOverTLS is a local.RotateWith key switch that runs the joint session of
// `fhegate committee rotate switch` over TLS on loopback (fresh identity
// keys; old members 1 and 2 active, their SwitchToNext as the CLI runs it,
// retiring at the end; the new members' barrier, switchIn, adoption and
// acknowledgement as AdoptFromPrevious runs them, keeping the key-switched
// outputs in *outs). corrupt wraps old
// member 1's joint transport.
func jointOverTLS(t *testing.T, corrupt func(transport.Transport) transport.Transport, outs *[]map[fhe.Handle][]byte) func(ctx context.Context, old, nc *local.Committee) error {
	return func(ctx context.Context, old, nc *local.Committee) error {
		n, n2 := len(old.Config.Members), len(nc.Members)
		trs := jointTLS(t, n+n2)
		j := JointRotation{Old: old.Config, New: nc.Config, Target: nc.Keys, Wait: time.Minute}
		muxes := map[transport.MemberID]*transport.Mux{}
		for id, tr := range trs {
			var tt transport.Transport = tr
			if id == config.JointOldID(nc.Config, 1) && corrupt != nil {
				tt = corrupt(tr)
			}
			muxes[id] = transport.NewMux(tt, zaptest.NewLogger(t))
		}
		defer func() {
			for _, mx := range muxes {
				mx.Close()
			}
		}()
		*outs = make([]map[fhe.Handle][]byte, n2)
		errs := make([]error, 2+n2)
		var wg sync.WaitGroup
		for x, id := range []uint32{1, 2} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[x] = old.Member(id).SwitchToNext(ctx, old.Chain, muxes[config.JointOldID(nc.Config, id)], j)
			}()
		}
		// Each new member adopts right after its switch, as
		// AdoptFromPrevious does: the old members retire only when every
		// new member acknowledged the adoption.
		for x, m := range nc.Members {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mx := muxes[transport.MemberID(x+1)]
				if (*outs)[x], errs[2+x] = m.JointSwitchIn(ctx, j, mx); errs[2+x] == nil {
					_, errs[2+x] = m.JointAdopt(ctx, j, mx, (*outs)[x])
				}
			}()
		}
		wg.Wait()
		return errors.Join(errs...)
	}
}

// ctSwap is a corrupt old member's joint transport that sends the new
// members another c1 than the stored input's (its last byte changed) in
// the ciphertext round.
type ctSwap struct{ transport.Transport }

func (c ctSwap) Send(ctx context.Context, to transport.MemberID, msg transport.Message) error {
	if msg.Type == transport.TypeAgreed && strings.Contains(msg.Session, "/ct/") && len(msg.Payload) > 0 {
		b := append([]byte(nil), msg.Payload...)
		b[len(b)-1] ^= 1
		msg.Payload = b
	}
	return c.Transport.Send(ctx, to, msg)
}

// TestJointRotationRefusesSwappedCiphertext: an active old member that
// sends the new members another ciphertext than the stored input's (a c1
// it chose, which could make the output's c0 reveal s′) is refused: the
// new members take an input only when all t old members' copies are
// byte-identical, and the rotation fails (ErrCopiesDiffer) without any new
// member storing anything.
func TestJointRotationRefusesSwappedCiphertext(t *testing.T) {
	t.Parallel()
	old := startTest(t, 3, 2, false)
	makeRequests(t, old, 1, 1, 43)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var outs []map[fhe.Handle][]byte
	_, err := local.RotateWith(ctx, old, local.Options{Dir: t.TempDir(), RoundTimeout: 5 * time.Second, BatchSize: 8, Log: zaptest.NewLogger(t)},
		jointOverTLS(t, func(tr transport.Transport) transport.Transport { return ctSwap{tr} }, &outs))
	require.ErrorIs(t, err, protocol.ErrCopiesDiffer)
	for _, o := range outs {
		require.Empty(t, o, "no output for a swapped input")
	}
}
