package consensus_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math/big"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/multiparty"
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
// NTT evaluation, in every RNS row) and commits to the shifted share, so
// the commitment check passes: it holds back each commitment until the
// member reveals its share, then sends the commitment of the shifted share
// and the shifted share. This is the K-shift that reads the new secret
// through the public-key switch (protocol TestReencryptKShift), run against
// the joint key switch of `fhegate committee rotate switch`.
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
	case transport.TypeShareCommit:
		return nil // sent with the share
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
		cm := testShareCommitment(msg.Session, msg.Type, c.Self(), b)
		if err := c.Transport.Send(ctx, to, transport.Message{Type: transport.TypeShareCommit, Session: msg.Session, Payload: cm[:]}); err != nil {
			return err
		}
		c.mu.Lock()
		c.shifted++
		c.mu.Unlock()
		msg.Payload = b
	}
	return c.Transport.Send(ctx, to, msg)
}

// testShareCommitment is protocol's commitment to a share (SHA-256 over
// the domain, the session, the type, the member and the share), which a
// corrupt member computes as any honest one does.
func testShareCommitment(session string, typ transport.Type, id transport.MemberID, share []byte) [32]byte {
	var hdr [9]byte
	binary.BigEndian.PutUint32(hdr[:4], uint32(len(session)))
	hdr[4] = byte(typ)
	binary.BigEndian.PutUint32(hdr[5:], uint32(id))
	h := sha256.New()
	h.Write([]byte("fhegate/share-commit/v1"))
	h.Write(hdr[:4])
	h.Write([]byte(session))
	h.Write(hdr[4:])
	h.Write(share)
	return [32]byte(h.Sum(nil))
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
// member 1 corrupt: it adds K = 2^63 to its key-switch shares and commits
// to the shifted shares, so nothing catches it. With the public-key switch
// this let one corrupt new member read s′ from the phase noise. Here the
// output keeps the input's c1, so the shift lands in the phase as the
// constant K, which its sender knows: the key-switched outputs' phase
// noise over K, under the reconstructed new secret s′, is (1, 0, …, 0) —
// not s′ — and the new committee's verdicts over the migrated inputs still
// equal the plaintext reference (K is noise, far below Q/2t).
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
	fc := newFloorChecker(old.Live()[0].Params())
	nc, err := local.RotateWith(ctx, old, local.Options{Dir: t.TempDir(), RoundTimeout: 10 * time.Second, BatchSize: 8, Serve: true, Knobs: fc.knobs(), Log: zaptest.NewLogger(t)}, overTLS)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	require.Positive(t, corrupt.shifted, "the corrupt member's shifted shares went out")
	for id := uint32(1); id <= 3; id++ {
		require.Empty(t, nc.Member(id).Status().Equivocations, "the shift was committed: no one is caught, none is needed")
	}

	// The corrupt new member's view: the outputs' phase under s′.
	p := nc.Member(1).Params()
	sNew := collectiveSecret(t, nc, []uint32{1, 2})
	require.NotEmpty(t, outs[0])
	want := make([]int64, p.N())
	want[0] = 1 // the constant K, known to the member that added it
	for h, b := range outs[1] {
		ct, err := fhe.UnmarshalCiphertext(b)
		require.NoError(t, err)
		require.Equal(t, want, phaseOverK(p, ct, sNew, k), "input %s: the phase shows K, not s′", h)
	}

	var handles []fhe.Handle
	for _, r := range reqs {
		handles = append(handles, r.req.Inputs...)
	}
	requireInputsCarried(t, nc, handles)
	requireVerdictsAfterRotation(t, nc, reqs)
	// The active old members retired once every new member acknowledged
	// the adoption.
	requireRetired(ctx, t, old, []uint32{1, 2}, []uint32{1, 2}, fhe.GenKeys(p, nil).Public)
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

// collectiveSecret reconstructs s′ = Σ λ_i·tsk_i from the members ids of
// lc (the secret no member is meant to hold; tests only).
func collectiveSecret(t *testing.T, lc *local.Committee, ids []uint32) *rlwe.SecretKey {
	t.Helper()
	p := lc.Member(1).Params().RLWE()
	points := make([]multiparty.ShamirPublicPoint, len(lc.Config.Members))
	for i := range points {
		points[i] = multiparty.ShamirPublicPoint(i + 1)
	}
	active := make([]multiparty.ShamirPublicPoint, len(ids))
	for i, id := range ids {
		active[i] = multiparty.ShamirPublicPoint(id)
	}
	sum := rlwe.NewSecretKey(p)
	for _, id := range ids {
		key, err := lc.Member(id).ThresholdKey()
		require.NoError(t, err)
		cmb := multiparty.NewCombiner(p, multiparty.ShamirPublicPoint(id), points, key.T)
		add := rlwe.NewSecretKey(p)
		require.NoError(t, cmb.GenAdditiveShare(active, multiparty.ShamirPublicPoint(id), key.Share, add))
		p.RingQP().Add(sum.Value, add.Value, sum.Value)
	}
	return sum
}

// phaseOverK is round(e/k) coefficient-wise for the noise e of ct under s
// (Lattigo's BGV phase is t⁻¹·m + e: t·phase, centred, is m + t·e).
func phaseOverK(p *fhe.Params, ct *fhe.Ciphertext, s *rlwe.SecretKey, k uint64) []int64 {
	c := ct.Lattigo()
	rq := p.RLWE().RingQ().AtLevel(c.Level())
	ph := rq.NewPoly()
	rq.MulCoeffsMontgomery(c.Value[1], s.Value.Q, ph)
	rq.Add(ph, c.Value[0], ph)
	rq.INTT(ph, ph)
	rq.MulScalar(ph, p.PlaintextModulus(), ph)
	coeffs := make([]*big.Int, p.N())
	for i := range coeffs {
		coeffs[i] = new(big.Int)
	}
	rq.PolyToBigintCentered(ph, 1, coeffs)
	tk := new(big.Int).Mul(new(big.Int).SetUint64(p.PlaintextModulus()), new(big.Int).SetUint64(k))
	half := new(big.Int).Rsh(tk, 1)
	out := make([]int64, p.N())
	for i, v := range coeffs {
		q := new(big.Int)
		if v.Sign() >= 0 {
			q.Div(new(big.Int).Add(v, half), tk)
		} else {
			q.Neg(new(big.Int).Div(new(big.Int).Add(new(big.Int).Neg(v), half), tk))
		}
		out[i] = q.Int64()
	}
	return out
}
