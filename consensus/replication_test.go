package consensus_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	. "github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/consensus/transport"
)

// TestStorePutConcurrencyBound — attack: "replication flood". Every
// StorePut a member received spawned its own goroutine (validate, fsync,
// sign), so a peer — or a client flooding the API, whose every upload is
// replicated to all n members — could run unboundedly many at once. A
// member now runs at most MaxConcurrentStorePuts and drops the excess with
// a log; the uploader's quorum logic treats the silent member as missing
// and still attests with the others' signatures.
func TestStorePutConcurrencyBound(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var inflight, peak, entered atomic.Int64
	gate := make(chan struct{})
	var release sync.Once
	open := func() { release.Do(func() { close(gate) }) }
	t.Cleanup(open)
	knobs := func(id uint32) TestingKnobs {
		if id != 2 {
			return TestingKnobs{}
		}
		return TestingKnobs{InStorePut: func() {
			n := inflight.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			entered.Add(1)
			<-gate
			inflight.Add(-1)
		}}
	}
	lc, err := local.Start(ctx, local.Options{N: 3, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10", Rotations: []int{1},
		RoundTimeout: 3 * time.Second, MemberKnobs: knobs, Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	t.Cleanup(lc.Close)

	b, proof, err := lc.Member(1).EncryptInput([]int64{1}, [20]byte{})
	require.NoError(t, err)
	payload := StorePut([20]byte{}, []api.InputUpload{{Ciphertext: b, Proof: proof, CType: 1}})
	m1 := lc.Member(1)
	const flood = 4 * api.MaxConcurrentStorePuts
	for i := 0; i < flood; i++ {
		require.NoError(t, m1.Mux().Send(ctx, 2, transport.Message{Type: transport.TypeStorePut, Session: fmt.Sprintf("flood/%d", i), Payload: payload}))
	}
	require.Eventually(t, func() bool { return lc.Member(2).Mux().Seen(1) > 0 && entered.Load() == api.MaxConcurrentStorePuts },
		10*time.Second, 5*time.Millisecond, "member 2 never filled its StorePut slots")
	time.Sleep(200 * time.Millisecond) // the rest of the flood is dropped, not queued
	require.Equal(t, int64(api.MaxConcurrentStorePuts), peak.Load())

	// While member 2 is saturated an upload still gets its attestation
	// from members 1 and 3 (member 2's ack is missing).
	b2, proof2, err := m1.EncryptInput([]int64{2}, [20]byte{0xaa})
	require.NoError(t, err)
	att, err := m1.Upload(ctx, b2, proof2, [20]byte{0xaa}, 1)
	require.NoError(t, err)
	require.Equal(t, []byte{0b101}, att.Signers, "attested by members 1 and 3")
	require.LessOrEqual(t, peak.Load(), int64(api.MaxConcurrentStorePuts))

	open()
	require.Eventually(t, func() bool { return inflight.Load() == 0 }, 10*time.Second, 5*time.Millisecond)
	require.Equal(t, int64(api.MaxConcurrentStorePuts), entered.Load(), "the excess StorePuts must be dropped, not run later")
	require.LessOrEqual(t, peak.Load(), int64(api.MaxConcurrentStorePuts))
}

// TestBusyMemberIsRefusedNotMissing — attack: "get an honest member marked
// down". Member 3 keeps member 2's StorePut slots full with slow requests;
// member 2 then dropped member 1's StorePut unanswered, and member 1
// counted member 2 missing and marked it down (until its next heartbeat,
// again and again while the flood lasted). Member 2 now answers a request
// it has no slot for with a refusal ("busy"), so member 1 has its answer:
// the upload is attested by members 1 and 3, and member 2 is not marked.
func TestBusyMemberIsRefusedNotMissing(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var entered atomic.Int64
	gate := make(chan struct{})
	var release sync.Once
	open := func() { release.Do(func() { close(gate) }) }
	knobs := func(id uint32) TestingKnobs {
		if id != 2 {
			return TestingKnobs{}
		}
		return TestingKnobs{InStorePut: func() {
			entered.Add(1)
			<-gate
		}}
	}
	// A heartbeat far longer than the test: a mark, once made, stays.
	lc, err := local.Start(ctx, local.Options{N: 3, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10", Rotations: []int{1},
		RoundTimeout: 3 * time.Second, Heartbeat: time.Hour, MemberKnobs: knobs, Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	t.Cleanup(open) // before Close (cleanups run last first): Close waits for the held handlers

	m1, m3 := lc.Member(1), lc.Member(3)
	b, proof, err := m3.EncryptInput([]int64{1}, [20]byte{})
	require.NoError(t, err)
	payload := StorePut([20]byte{}, []api.InputUpload{{Ciphertext: b, Proof: proof, CType: 1}})
	for i := 0; i < 2*api.MaxConcurrentStorePuts; i++ {
		require.NoError(t, m3.Mux().Send(ctx, 2, transport.Message{Type: transport.TypeStorePut, Session: fmt.Sprintf("flood/%d", i), Payload: payload}))
	}
	require.Eventually(t, func() bool { return entered.Load() == api.MaxConcurrentStorePuts },
		10*time.Second, 5*time.Millisecond, "member 2 never filled its StorePut slots")
	require.Empty(t, m1.Status().Down)

	b2, proof2, err := m1.EncryptInput([]int64{2}, [20]byte{0xaa})
	require.NoError(t, err)
	att, err := m1.Upload(ctx, b2, proof2, [20]byte{0xaa}, 1)
	require.NoError(t, err)
	require.Equal(t, []byte{0b101}, att.Signers, "attested by members 1 and 3")
	require.Empty(t, m1.Status().Down, "member 2 answered busy: it is not marked down")
	open()
}
