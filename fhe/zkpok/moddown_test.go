package zkpok

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
)

// TestLifterExact compares the integer-only ModDown_P with a big.Int
// reference — (c − [ρ]_P)·P^{-1} mod q_i, [ρ]_P the centred representative
// — on random residues and on the edges of the centring ((P−1)/2 is
// positive, (P+1)/2 negative), for both presets' Q and P; P·ct + lift
// inverts it.
func TestLifterExact(t *testing.T) {
	for _, id := range []fhe.PresetID{fhe.BGVN13, fhe.BGVN14} {
		p := fhe.MustParams(id)
		qs, ps := p.Q(), p.RLWE().P()
		l, err := newLifter(qs, ps)
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(uint64(id), 7))
		bigP := l.bigP
		half := new(big.Int).Rsh(new(big.Int).Sub(bigP, big.NewInt(1)), 1)
		xs := []*big.Int{big.NewInt(0), big.NewInt(1), new(big.Int).Set(half), new(big.Int).Add(half, big.NewInt(1)), new(big.Int).Sub(bigP, big.NewInt(1))}
		for range 200 {
			x := new(big.Int)
			for range 3 {
				x.Lsh(x, 64).Or(x, new(big.Int).SetUint64(r.Uint64()))
			}
			xs = append(xs, x.Mod(x, bigP))
		}
		n := len(xs)
		rho := make([][]uint64, len(ps))
		for j, pj := range ps {
			rho[j] = make([]uint64, n)
			for c, x := range xs {
				rho[j][c] = new(big.Int).Mod(x, new(big.Int).SetUint64(pj)).Uint64()
			}
		}
		c := make([][]uint64, len(qs))
		out := make([][]uint64, len(qs))
		back := make([][]uint64, len(qs))
		for i, q := range qs {
			c[i], out[i], back[i] = make([]uint64, n), make([]uint64, n), make([]uint64, n)
			for k := range c[i] {
				c[i][k] = r.Uint64N(q)
			}
		}
		l.modDown(c, rho, out)
		l.lift(rho, n, back)
		for i, q := range qs { // P·ct + [ρ]_P
			for k := range back[i] {
				back[i][k] = addMod(back[i][k], new(big.Int).Mod(new(big.Int).Mul(new(big.Int).SetUint64(out[i][k]), bigP), new(big.Int).SetUint64(q)).Uint64(), q)
			}
		}
		for k, x := range xs {
			centred := new(big.Int).Set(x)
			if x.Cmp(half) > 0 {
				centred.Sub(centred, bigP)
			}
			for i, q := range qs {
				bq := new(big.Int).SetUint64(q)
				want := new(big.Int).Sub(new(big.Int).SetUint64(c[i][k]), centred)
				want.Mul(want, new(big.Int).ModInverse(bigP, bq)).Mod(want, bq)
				require.Equal(t, want.Uint64(), out[i][k], "%s: q_%d, x=%s", p.Preset.Name, i, x)
				require.Equal(t, c[i][k], back[i][k], "P·ct + [ρ]_P inverts modDown")
			}
		}
	}
}

// TestLifterWithoutP: P = 1 (a preset without an auxiliary modulus):
// ModDown is the identity.
func TestLifterWithoutP(t *testing.T) {
	l, err := newLifter([]uint64{97, 193}, nil)
	require.NoError(t, err)
	c := [][]uint64{{1, 96}, {2, 192}}
	out := [][]uint64{make([]uint64, 2), make([]uint64, 2)}
	l.modDown(c, nil, out)
	require.Equal(t, c, out)
	l.lift(nil, 2, out)
	require.Equal(t, [][]uint64{{0, 0}, {0, 0}}, out)
}

// TestTamperedRho: ρ is part of the statement — changing one residue (still
// reduced) changes the rebuilt ĉ and the transcript, and the proof fails.
func TestTamperedRho(t *testing.T) {
	p := fhe.MustParams(fhe.BGVN13)
	keys := fhe.GenKeys(p, nil)
	k, err := NewKey(keys.Public)
	require.NoError(t, err)
	ctx := Context{Owner: [20]byte{7}}
	ct, proof, err := k.EncryptInts([]int64{5}, ctx)
	require.NoError(t, err)
	h, err := ct.Handle()
	require.NoError(t, err)
	require.NoError(t, k.Verify(ct, h, ctx, proof))
	pr, err := k.PP.Unmarshal(proof)
	require.NoError(t, err)
	pr.Rho[1][0][3] = (pr.Rho[1][0][3] + 1) % k.PP.PModuli[0]
	require.ErrorIs(t, k.Verify(ct, h, ctx, k.PP.Marshal(pr)), ErrInvalid)
}
