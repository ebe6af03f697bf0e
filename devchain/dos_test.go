package devchain

import (
	"context"
	"encoding/binary"
	"runtime"
	"testing"

	ethereum "github.com/ava-labs/libevm"
	"github.com/ava-labs/libevm/common"
	"github.com/stretchr/testify/require"

	precompileabi "github.com/fhegate/fhegate/precompiles/abi"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
)

func word(x uint64) []byte {
	var w [32]byte
	binary.BigEndian.PutUint64(w[24:], x)
	return w[:]
}

// setCommitteeCalldata is FHEVerdict.setCommittee(1, 1, pubkeys, pops) of
// about size bytes: aliased (pubkeys = pops = size/64 offsets all pointing at
// one size/2-byte element) or canonical (one size/2-byte key and pop).
func setCommitteeCalldata(t *testing.T, size int, aliased bool) []byte {
	a, err := precompileabi.Parse(precompileabi.Verdict)
	require.NoError(t, err)
	in := append([]byte{}, a.Methods["setCommittee"].ID...)
	in = append(append(in, word(1)...), word(1)...)
	if aliased {
		n, l := size/64, size/2
		in = append(append(in, word(128)...), word(128)...)
		in = append(in, word(uint64(n))...)
		for i := 0; i < n; i++ {
			in = append(in, word(uint64(32*n))...)
		}
		in = append(in, word(uint64(l))...)
		return append(in, make([]byte, l)...)
	}
	l := size/2 - 96
	arr := append(append(word(1), word(32)...), word(uint64(l))...)
	arr = append(arr, make([]byte, l)...)
	in = append(append(in, word(128)...), word(uint64(128+len(arr)))...)
	return append(append(in, arr...), arr...)
}

// TestAliasedSetCommitteeEthCall: the node-killing aliased-calldata eth_call
// against the full dev node over HTTP JSON-RPC. Attack: one eth_call of
// FHEVerdict.setCommittee with 1 MB of calldata whose bytes[] offsets all
// alias one payload (≈16 GiB decoded). It must revert — from anyone and from
// the governance account — and the process must allocate at most 1.5× what a
// canonical call of the same size allocates (runtime.MemStats.TotalAlloc;
// HeapAlloc growth logged).
func TestAliasedSetCommitteeEthCall(t *testing.T) {
	c := newTestChain(t, Config{})
	cl := dial(t, c)
	to := subnetevm.VerdictAddress
	accts := DevAccounts()
	for _, from := range []common.Address{accts[1].Address, accts[0].Address /* governance in the devnet genesis */} {
		for _, size := range []int{64 << 10, 1 << 20} {
			measure := func(data []byte) (uint64, uint64, error) {
				var a, b runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&a)
				_, err := cl.CallContract(context.Background(), ethereum.CallMsg{From: from, To: &to, Data: data, Gas: 20_000_000}, nil)
				runtime.ReadMemStats(&b)
				heap := uint64(0)
				if b.HeapAlloc > a.HeapAlloc {
					heap = b.HeapAlloc - a.HeapAlloc
				}
				return b.TotalAlloc - a.TotalAlloc, heap, err
			}
			totN, heapN, errN := measure(setCommitteeCalldata(t, size, false))
			totB, heapB, errB := measure(setCommitteeCalldata(t, size, true))
			require.Error(t, errN)
			require.ErrorContains(t, errB, "execution reverted")
			t.Logf("from %s, %d bytes: canonical %d B allocated (heap +%d), aliased %d B (heap +%d): %v", from, size, totN, heapN, totB, heapB, errB)
			// 1.5× plus 1 MiB for the node's own goroutines (the attack: ≈ 70 MB at 64 KiB, ≈ 16 GiB at 1 MiB)
			require.LessOrEqual(t, totB, totN*3/2+1<<20, "aliased eth_call allocated %d bytes, a canonical one %d", totB, totN)
		}
	}
}
