package subnetevm_test

import (
	"context"
	"encoding/binary"
	"runtime"
	"testing"

	ethereum "github.com/ava-labs/libevm"
	"github.com/ava-labs/libevm/accounts/abi"
	"github.com/ava-labs/libevm/accounts/abi/bind"
	"github.com/ava-labs/libevm/core/types"
	"github.com/stretchr/testify/require"

	precompileabi "github.com/fhegate/fhegate/precompiles/abi"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
)

// noise is the allocation slack allowed for the simulated node's own
// goroutines (block building, RPC); the attack allocated ≈ 64 MB at 64 KiB
// and ≈ 16 GiB at 1 MiB.
const noise = 1 << 20

func w32(x uint64) []byte {
	var w [32]byte
	binary.BigEndian.PutUint64(w[24:], x)
	return w[:]
}

// setCommitteeInput is FHEVerdict.setCommittee calldata of about size bytes.
// aliased: pubkeys and pops are one bytes[] of size/64 elements whose offsets
// all point at one size/2-byte element (decodes to ≈ size²/128 bytes).
// Otherwise the canonical encoding of the same size: one size/2-byte pubkey
// and one size/2-byte pop (a normal, if invalid, call).
func setCommitteeInput(t *testing.T, f *fixture, size int, aliased bool) []byte {
	sel := f.verdictABI(t).Methods["setCommittee"].ID
	in := append([]byte{}, sel...)
	in = append(in, w32(2)...)
	in = append(in, w32(1)...)
	if aliased {
		n, l := size/64, size/2
		in = append(in, w32(128)...)
		in = append(in, w32(128)...)
		in = append(in, w32(uint64(n))...)
		for i := 0; i < n; i++ {
			in = append(in, w32(uint64(32*n))...)
		}
		in = append(in, w32(uint64(l))...)
		return append(in, make([]byte, l)...)
	}
	l := size/2 - 96
	arr := append(append(w32(1), w32(32)...), w32(uint64(l))...)
	arr = append(arr, make([]byte, l)...)
	in = append(in, w32(128)...)
	in = append(in, w32(uint64(128+len(arr)))...)
	in = append(in, arr...)
	return append(in, arr...)
}

func (f *fixture) verdictABI(t *testing.T) abi.ABI {
	a, err := precompileabi.Parse(precompileabi.Verdict)
	require.NoError(t, err)
	return a
}

// allocDuring returns the bytes the process allocated (TotalAlloc) and its
// live heap growth (HeapAlloc after GC) while fn ran: the minimum over three
// runs, so that background goroutines of the simulated node add less noise.
func allocDuring(fn func()) (total, heap uint64) {
	total, heap = ^uint64(0), ^uint64(0)
	for i := 0; i < 3; i++ {
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		fn()
		runtime.ReadMemStats(&b)
		runtime.GC()
		var c runtime.MemStats
		runtime.ReadMemStats(&c)
		total = min(total, b.TotalAlloc-a.TotalAlloc)
		if c.HeapAlloc > a.HeapAlloc {
			heap = min(heap, c.HeapAlloc-a.HeapAlloc)
		} else {
			heap = 0
		}
	}
	return total, heap
}

// TestAliasedSetCommitteeThroughEVM: the node-killing aliased-calldata eth_call
// through the real EVM. Attack: one eth_call (any caller, no gas price, no
// state) of FHEVerdict.setCommittee with 1 MB of calldata whose bytes[]
// offsets alias one payload made the ABI decoder allocate ≈16 GiB. The call
// must revert, from anyone and from governance, and the process must allocate
// at most 1.5× what a canonical setCommittee call of the same size allocates.
// The same holds for a mined transaction (at 100 KiB: the transaction pool
// refuses larger transactions).
func TestAliasedSetCommitteeThroughEVM(t *testing.T) {
	f := newFixture(t)
	to := subnetevm.VerdictAddress
	call := func(from int, data []byte) error {
		_, err := f.client.CallContract(context.Background(), ethereum.CallMsg{From: f.addrs[from], To: &to, Data: data, Gas: 20_000_000}, nil)
		return err
	}
	for _, size := range []int{64 << 10, 128 << 10, 1 << 20} { // a failure stops before 1 MiB
		normal := setCommitteeInput(t, f, size, false)
		bomb := setCommitteeInput(t, f, size, true)
		for _, from := range []int{alice, gov} {
			var errN, errB error
			totN, heapN := allocDuring(func() { errN = call(from, normal) })
			totB, heapB := allocDuring(func() { errB = call(from, bomb) })
			require.Error(t, errN)
			require.Error(t, errB)
			require.Contains(t, errB.Error(), "execution reverted")
			t.Logf("eth_call size %d from %d: normal %d B allocated (heap +%d), aliased %d B (heap +%d): %v", len(bomb), from, totN, heapN, totB, heapB, errB)
			// 1.5× plus a small constant for the simulated node's background work
			require.LessOrEqual(t, totB, totN*3/2+noise, "aliased eth_call allocated %d bytes, a normal one %d", totB, totN)
			require.LessOrEqual(t, heapB, heapN*3/2+4*noise, "aliased eth_call grew the heap by %d bytes, a normal one by %d", heapB, heapN)
		}
	}

	// transaction: sent with a fixed gas limit, mined, reverted
	bc := bind.NewBoundContract(to, abi.ABI{}, f.be(), f.be(), f.be())
	size := 100 << 10
	normal := setCommitteeInput(t, f, size, false)
	bomb := setCommitteeInput(t, f, size, true)
	var rN, rB *types.Receipt
	totN, _ := allocDuring(func() { rN = f.mine(bc.RawTransact(f.opts(gov, 8_000_000), normal)) })
	totB, _ := allocDuring(func() { rB = f.mine(bc.RawTransact(f.opts(gov, 8_000_000), bomb)) })
	require.Equal(t, types.ReceiptStatusFailed, rN.Status)
	require.Equal(t, types.ReceiptStatusFailed, rB.Status)
	t.Logf("transaction size %d: normal %d B allocated, aliased %d B", len(bomb), totN, totB)
	require.LessOrEqual(t, totB, totN*3/2+noise, "aliased transaction allocated %d bytes, a normal one %d", totB, totN)
	ci, err := f.verdict.Committee(nil)
	require.NoError(t, err)
	require.Equal(t, uint64(1), ci.Epoch, "committee unchanged")
}
