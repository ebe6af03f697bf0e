package precompiles

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ava-labs/libevm/accounts/abi"
)

// Allocation bound of one precompile call: allocFactor × len(input) + allocConst bytes.
const (
	allocFactor = 64
	allocConst  = 1 << 20
)

// word32 is a big-endian 32-byte ABI word holding x.
func word32(x uint64) []byte {
	var w [32]byte
	binary.BigEndian.PutUint64(w[24:], x)
	return w[:]
}

// aliasedBytesList is the body of a bytes[] argument (starting at its length
// word) of about size bytes whose n element offsets all point at one shared
// element of length l: n·l decoded bytes from n·32 + l bytes of calldata.
func aliasedBytesList(size int) []byte {
	n := size / 64
	if n < 1 {
		n = 1
	}
	l := size / 2
	out := make([]byte, 0, 32+32*n+32+l+32)
	out = append(out, word32(uint64(n))...)
	for i := 0; i < n; i++ {
		out = append(out, word32(uint64(32*n))...) // relative to the element area
	}
	out = append(out, word32(uint64(l))...)
	out = append(out, make([]byte, (l+31)/32*32)...)
	return out
}

// aliasedSetCommittee is FHEVerdict.setCommittee calldata of about size bytes
// whose pubkeys and pops are the same aliased bytes[] (the aliased-calldata
// eth_call that killed a node).
func aliasedSetCommittee(sel []byte, size int) []byte {
	in := append([]byte{}, sel...)
	in = append(in, word32(2)...)   // epoch
	in = append(in, word32(1)...)   // threshold
	in = append(in, word32(128)...) // pubkeys
	in = append(in, word32(128)...) // pops: the same array
	return append(in, aliasedBytesList(size)...)
}

// bombBody builds calldata for method m of about size bytes in which every
// dynamic argument is as expensive to decode as the encoding allows: bytes
// and bytes32[] fill their share, bytes[] aliases one element.
func bombBody(m abi.Method, size int) []byte {
	head := make([]byte, 0, 32*len(m.Inputs))
	var tail []byte
	dyn := 0
	for _, in := range m.Inputs {
		if isDynamic(in.Type) {
			dyn++
		}
	}
	share := size
	if dyn > 0 {
		share = size / dyn
	}
	for _, in := range m.Inputs {
		if !isDynamic(in.Type) {
			head = append(head, word32(1)...)
			continue
		}
		head = append(head, word32(uint64(32*len(m.Inputs)+len(tail)))...)
		switch {
		case in.Type.T == abi.BytesTy || in.Type.T == abi.StringTy:
			tail = append(tail, word32(uint64(share))...)
			tail = append(tail, make([]byte, (share+31)/32*32)...)
		case in.Type.T == abi.SliceTy && isDynamic(*in.Type.Elem):
			tail = append(tail, aliasedBytesList(share)...)
		default: // static-element slice
			n := share / 32
			tail = append(tail, word32(uint64(n))...)
			tail = append(tail, make([]byte, 32*n)...)
		}
	}
	out := append(append([]byte{}, m.ID...), head...)
	return append(out, tail...)
}

// allocOf returns the bytes allocated by one call (runtime TotalAlloc delta).
func allocOf(w *world, c *Contract, from Address, input []byte) (uint64, result) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := w.run(c, from, false, 1<<40, input)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, r
}

// TestAllocationBound is the allocation harness over every method of every
// precompile. Attack: calldata whose ABI offsets alias one payload (or that
// claims huge counts) so that decoding allocates far more than the input —
// FHEVerdict.setCommittee with 1 MB of aliased bytes[] allocated ≈16 GiB
// before the size cap and the governance check and killed the node from one
// eth_call. Every call (committed vectors, random bodies, per-method decode
// bombs of 64 KiB and 1 MiB, the aliased setCommittee as governance and as
// anyone) must allocate at most 64× its input plus 1 MiB, measured with
// runtime.MemStats.TotalAlloc.
func TestAllocationBound(t *testing.T) {
	base := newWorld(t)
	type tc struct {
		name  string
		c     *Contract
		from  Address
		input []byte
	}
	var cases []tc
	for _, c := range base.s.Contracts() {
		raw, err := os.ReadFile(filepath.Join("testdata", c.Name()+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var vs []vector
		if err := json.Unmarshal(raw, &vs); err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			in, _ := hex.DecodeString(v.Input)
			from, ok := base.accounts()[v.Caller]
			if !ok {
				from = acct(v.Caller)
			}
			cases = append(cases, tc{"vector/" + c.Name() + "/" + v.Name, c, from, in})
		}
		rng := rand.New(rand.NewSource(12))
		for _, name := range c.Methods() {
			m := c.ABI().Methods[name]
			for _, size := range []int{4 << 10, 64 << 10, 1 << 20} {
				cases = append(cases, tc{"bomb/" + c.Name() + "." + name + "/" + itoa(size), c, base.gov, bombBody(m, size)})
			}
			body := make([]byte, 4+rng.Intn(4096))
			rng.Read(body)
			copy(body, m.ID)
			cases = append(cases, tc{"random/" + c.Name() + "." + name, c, base.alice, body})
		}
	}
	sel := base.s.Verdict.ABI().Methods["setCommittee"].ID
	for _, size := range []int{64 << 10, 1 << 20} {
		cases = append(cases,
			tc{"aliased-setCommittee/gov/" + itoa(size), base.s.Verdict, base.gov, aliasedSetCommittee(sel, size)},
			tc{"aliased-setCommittee/anyone/" + itoa(size), base.s.Verdict, base.carol, aliasedSetCommittee(sel, size)})
	}
	// submitBatch at its caps: the largest batch the calldata cap admits
	// (16,384 items, all naming one request: decoded, charged per item,
	// refused as duplicates) and a count word claiming 2^20 items
	full := make([]Hash, MaxVerdictBatch)
	one := func(int) *big.Int { return big.NewInt(1) }
	cases = append(cases, tc{"submitBatch/max-items", base.s.Verdict, base.carol,
		base.packBatch(base.policy, Hash{}, batchItems(full, one), make([]byte, 96), make([]byte, 1))})
	lie := base.packBatch(base.policy, Hash{}, batchItems(full[:2], one), make([]byte, 96), make([]byte, 1))
	copy(lie[4+6*32:4+7*32], word32(1<<20)) // requestIds length word
	cases = append(cases, tc{"submitBatch/count-lie", base.s.Verdict, base.carol, lie})
	for _, k := range cases {
		t.Run(k.name, func(t *testing.T) {
			w := base.fork(t)
			n, _ := allocOf(w, k.c, k.from, k.input)
			limit := uint64(allocFactor*len(k.input) + allocConst)
			if n > limit {
				t.Fatalf("one call with %d bytes of input allocated %d bytes (limit %d)", len(k.input), n, limit)
			}
		})
	}
}

func itoa(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmtInt(n>>20) + "MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmtInt(n>>10) + "KiB"
	}
	return fmtInt(n) + "B"
}

func fmtInt(n int) string {
	b := []byte{}
	if n == 0 {
		return "0"
	}
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// isDynamic reports whether t is ABI-dynamic (test-side copy of the rule).
func isDynamic(t abi.Type) bool {
	switch t.T {
	case abi.BytesTy, abi.StringTy, abi.SliceTy:
		return true
	case abi.ArrayTy:
		return isDynamic(*t.Elem)
	case abi.TupleTy:
		for _, e := range t.TupleElems {
			if isDynamic(*e) {
				return true
			}
		}
	}
	return false
}
