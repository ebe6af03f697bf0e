package fhe_test

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// TestAddEncodedBatchByteIdentical: a vector batch added at once, its
// coefficients split over 1, 2, 3 or 7 workers, gives the bytes of the
// same requests added one by one (AddEncodedBlock in request order), on
// every multiply-add path, with and without lazy reductions inside the
// batch (a budget of 1, 2 or 5 additions), with honest, junk-filled,
// seeded and dropped-level requests (vectorRequests) and uploads mixed in;
// the result decrypts to the layout (checkVectorPack); so does the batch
// added in runs of consecutive requests (one run splitting a block). A
// second batch on the same packer refuses a block already used.
func TestAddEncodedBatchByteIdentical(t *testing.T) {
	kit := fhetest.MustKit(fhetest.InsecureBGVN10)
	p := kit.Params
	r := rand.New(rand.NewPCG(31, 4))
	const level, k = 1, 3
	l, err := fhe.NewVectorLayout(p, k, p.Slots()/4+5) // two accumulators
	require.NoError(t, err)
	reqs := vectorRequests(t, kit, r, l, level)
	reqs[4].raw = uploadVector(t, kit, r, l, &reqs[4])
	raws := make([][]byte, len(reqs))
	for q := range reqs {
		raws[q] = reqs[q].raw
	}
	for _, path := range packPaths() {
		for _, budget := range []uint64{0, 1, 2, 5} {
			one := newBlockPacker(t, p, path, level, l.Accs, k)
			if budget > 0 {
				one.SetPackBudget(budget)
			}
			for q, raw := range raws {
				a, s := l.Place(q)
				require.NoError(t, one.AddEncodedBlock(a, s, raw))
			}
			want := packedBytes(t, one)
			for _, w := range []int{1, 2, 3, 7} {
				t.Run(fmt.Sprintf("%s/budget%d/workers%d", path, budget, w), func(t *testing.T) {
					sp := newBlockPacker(t, p, path, level, l.Accs, k)
					if budget > 0 {
						sp.SetPackBudget(budget)
					}
					require.NoError(t, sp.AddEncodedBatch(l, 0, raws, w))
					if budget > 0 {
						require.True(t, sp.LazyWithin(budget), "an accumulator went past its reduction point")
					}
					require.Equal(t, want, packedBytes(t, sp))
					// in runs of consecutive requests (a run may split a block)
					runs := newBlockPacker(t, p, path, level, l.Accs, k)
					if budget > 0 {
						runs.SetPackBudget(budget)
					}
					for _, cut := range [][2]int{{0, 1}, {1, 8}, {8, 9}, {9, len(raws)}} {
						require.NoError(t, runs.AddEncodedBatch(l, cut[0], raws[cut[0]:cut[1]], w))
					}
					require.Equal(t, want, packedBytes(t, runs), "in runs")
					if path == packPaths()[0] && budget == 0 && w == 3 {
						checkVectorPack(t, kit, l, reqs, sp)
					}
					require.ErrorContains(t, sp.AddEncodedBatch(l, 0, raws, w), "not free")
					a, s := l.Place(0)
					require.ErrorContains(t, sp.AddEncodedBlock(a, s, raws[0]), "used twice")
				})
			}
		}
	}
}

// uploadVector replaces request q with an upload (zkpok encryption at the
// upload scale, evaluated as 2·ct) of fresh attributes and returns its bytes.
func uploadVector(t *testing.T, kit *fhetest.Kit, r *rand.Rand, l fhe.VectorLayout, req *vectorRequest) []byte {
	t.Helper()
	key, err := zkpok.NewKey(kit.Keys.Public)
	require.NoError(t, err)
	req.attrs = fhetest.RandInts(r, l.K, 1000)
	vals, err := kit.Params.VectorInts(req.attrs)
	require.NoError(t, err)
	up, _, err := key.EncryptInts(vals, zkpok.Context{ChainID: big.NewInt(1)})
	require.NoError(t, err)
	require.True(t, up.IsUpload())
	raw, err := up.MarshalBinary()
	require.NoError(t, err)
	return raw
}

// TestAddEncodedBatchRefuses: a bad layout, a request count that is not
// the layout's, a bad header (the packer is then as it was) and a row with
// a coefficient ≥ q (the call names the request and the packer is spent).
func TestAddEncodedBatchRefuses(t *testing.T) {
	kit := fhetest.MustKit(fhetest.InsecureBGVN10)
	p := kit.Params
	r := rand.New(rand.NewPCG(8, 8))
	const level, k = 1, 3
	l, err := fhe.NewVectorLayout(p, k, 9)
	require.NoError(t, err)
	reqs := vectorRequests(t, kit, r, l, level)
	raws := make([][]byte, len(reqs))
	for q := range reqs {
		raws[q] = reqs[q].raw
	}
	fresh := func() *fhe.SlotPacker {
		return newBlockPacker(t, p, packPaths()[len(packPaths())-1], level, l.Accs, k)
	}
	other, err := fhe.NewVectorLayout(p, k+2, 9)
	require.NoError(t, err)
	require.ErrorContains(t, fresh().AddEncodedBatch(other, 0, raws, 2), "layout")
	require.ErrorContains(t, fresh().AddEncodedBatch(l, 1, raws, 2), "requests 1 … 9, layout of 9")
	require.ErrorContains(t, fresh().AddEncodedBatch(l, -1, raws[:2], 2), "requests")
	slot, err := fhe.NewSlotPacker(p, level, 1)
	require.NoError(t, err)
	require.ErrorContains(t, slot.AddEncodedBatch(l, 0, raws, 2), "slot packer")

	// a bad header: refused before anything is added
	sp := fresh()
	broken := append([][]byte(nil), raws...)
	broken[6] = broken[6][:len(broken[6])-8]
	require.ErrorContains(t, sp.AddEncodedBatch(l, 0, broken, 2), "request 6")
	require.NoError(t, sp.AddEncodedBatch(l, 0, raws, 2))
	want := fresh()
	require.NoError(t, want.AddEncodedBatch(l, 0, raws, 1))
	require.Equal(t, packedBytes(t, want), packedBytes(t, sp))

	// a coefficient ≥ q in request 7's c1, prime 0 (a public-key encryption
	// at the top level, read in place), found by whichever worker owns it
	n, L := p.N(), p.MaxLevel()
	body := len(raws[7]) - 2*(L+1)*n*8
	for _, pos := range []int{0, n - 1, n / 2} {
		bad := append([][]byte(nil), raws...)
		bad[7] = append([]byte(nil), raws[7]...)
		for i := range 8 {
			bad[7][body+(L+1)*n*8+pos*8+i] = 0xff
		}
		sp := fresh()
		require.NoError(t, sp.AddEncodedBatch(l, 0, bad[:5], 3))
		err := sp.AddEncodedBatch(l, 5, bad[5:], 3)
		require.ErrorContains(t, err, "request 7: c1, prime 0")
		_, err = sp.Ciphertexts()
		require.ErrorContains(t, err, "spent")
		a, s := l.Place(0)
		require.ErrorContains(t, sp.AddEncodedBlock(a, s, raws[0]), "spent")
	}
}
