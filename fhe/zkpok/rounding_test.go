package zkpok

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// TestHighPartsExact: highParts computes ⌊V/D⌋ of each coefficient's
// representative in [0, Q·P) exactly — checked against big integers (CRT
// reconstruction, floor division, reduction mod every other prime) for
// random V and for values next to the edges of their D-intervals, at the
// top and the upload level.
func TestHighPartsExact(t *testing.T) {
	for _, id := range []fhe.PresetID{fhetest.InsecureBGVN10, fhe.BGVN14} {
		p := fhe.MustParams(id)
		keys := fhe.GenKeys(p, nil)
		for _, k := range levelKeys(t, keys.Public) {
			rqp, n := k.rqp, k.PP.N
			r := rand.New(rand.NewPCG(uint64(id), 5))
			qp := rqp.ModulusAtLevel[rqp.Level()]
			d := new(big.Int).SetUint64(k.PP.D)
			ints := make([]*big.Int, n)
			for l := range ints {
				x := new(big.Int)
				for range qp.BitLen()/64 + 2 {
					x.Lsh(x, 64)
					x.Or(x, new(big.Int).SetUint64(r.Uint64()))
				}
				x.Mod(x, qp)
				switch l % 4 { // every other coefficient at an edge: jD, jD−1, jD+1
				case 1:
					x.Sub(x, new(big.Int).Mod(x, d))
				case 2:
					x.Sub(x, new(big.Int).Mod(x, d))
					x.Sub(x, big.NewInt(1))
					x.Mod(x, qp)
				case 3:
					x.Sub(x, new(big.Int).Mod(x, d))
					x.Add(x, big.NewInt(1))
				}
				ints[l] = x
			}
			v := rqp.NewPoly()
			rqp.SetCoefficientsBigint(ints, v)
			k.highParts(v)
			for l, x := range ints {
				hi := new(big.Int).Quo(x, d)
				for i, s := range rqp.SubRings {
					want := new(big.Int).Mod(hi, new(big.Int).SetUint64(s.Modulus)).Uint64()
					if i == k.dRow {
						want = new(big.Int).Mod(x, d).Uint64()
					}
					require.Equal(t, want, v.Coeffs[i][l], "%s level %d: coefficient %d row %d", p.Preset.Name, k.Level(), l, i)
				}
			}
		}
	}
}

// shiftedInput is an honest input whose ĉ_i has had delta added to its
// coefficient 0 (over QP) before the ModDown, with a proof made by the
// honest prover from the honest witness: high parts of the honest W, the
// honest responses.
func shiftedInput(t *testing.T, k *Key, i int, delta *big.Int, ctx Context, r *rand.Rand) (*fhe.Ciphertext, fhe.Handle, []byte) {
	t.Helper()
	w, pt := honestWitness(t, k, []int64{5, 6, 7}, r)
	hat := k.hatQP(w)
	for row, s := range k.rqp.SubRings {
		dm := new(big.Int).Mod(delta, new(big.Int).SetUint64(s.Modulus)).Uint64()
		hat[i].Coeffs[row][0] = (hat[i].Coeffs[row][0] + dm) % s.Modulus
	}
	raw, rho := k.finish(hat, pt.MetaData)
	ct, h := wrap(t, k, raw)
	proof, err := k.prove(w, rho, h, ctx)
	require.NoError(t, err)
	return ct, h, proof
}

// TestShiftBeyondD: an input off the relation by more than D in one
// coefficient of ĉ0 or ĉ1 is refused although its proof's committed high
// parts and responses are the honest ones: V moves by that shift (times a
// monomial), out of W's D-interval. A shift of 1 (below D) is the slack
// the rounding admits — the extracted error bound N·D of the package doc —
// and is accepted.
func TestShiftBeyondD(t *testing.T) {
	for _, id := range []fhe.PresetID{fhetest.InsecureBGVN10, fhe.BGVN13} {
		if testing.Short() && id == fhe.BGVN13 {
			continue
		}
		p := fhe.MustParams(id)
		keys := fhe.GenKeys(p, nil)
		for _, k := range levelKeys(t, keys.Public) {
			r := rand.New(rand.NewPCG(uint64(id), 77))
			ctx := Context{Owner: [20]byte{0xd0}}
			d := new(big.Int).SetUint64(k.PP.D)
			for i := range 2 {
				for _, delta := range []*big.Int{new(big.Int).Add(d, big.NewInt(1)), new(big.Int).Neg(new(big.Int).Lsh(d, 1))} {
					ct, h, proof := shiftedInput(t, k, i, delta, ctx, r)
					require.ErrorIs(t, k.Verify(ct, h, ctx, proof), ErrInvalid, "%s level %d: ĉ%d shifted by %v", p.Preset.Name, k.Level(), i, delta)
				}
				ct, h, proof := shiftedInput(t, k, i, big.NewInt(1), ctx, r)
				require.NoError(t, k.Verify(ct, h, ctx, proof), "%s level %d: ĉ%d shifted by 1", p.Preset.Name, k.Level(), i)
			}
		}
	}
}

// TestRefuseVersion3: a version-3 proof (responses for e0 and e1) is
// refused by the decoder with an error that names the version.
func TestRefuseVersion3(t *testing.T) {
	for _, id := range []fhe.PresetID{fhetest.InsecureBGVN10, fhe.BGVN14} {
		pp, err := ParamsFor(fhe.MustParams(id))
		require.NoError(t, err)
		ke := int(math.Ceil(math.Log2(4 * float64(pp.N) * float64(pp.Reps) * BetaE)))
		bits := pp.Reps * pp.N * (pp.Bits[compU] + 2*(ke+1) + pp.Bits[compM])
		for _, b := range pp.PBits {
			bits += 2 * b * pp.N
		}
		v3 := make([]byte, headerSize+(bits+7)/8)
		v3[0], v3[1], v3[2] = 3, byte(pp.FHE.Preset.ID), byte(pp.Reps)
		if id == fhe.BGVN14 {
			require.Equal(t, 2326563, len(v3), "version 3's size on bgv-n14")
		}
		_, err = pp.Unmarshal(v3)
		require.ErrorIs(t, err, ErrInvalid)
		require.True(t, strings.Contains(err.Error(), "version 3"), err.Error())
	}
}

// TestRestartRate measures the prover's restarts: rejection sampling of
// z_u, z_m (≈ e^{1/2} attempts expected) and the rounding check on V's low
// parts, whose probability per attempt is at most 2·N·r·(2βe+1)/D
// (2^-22.1 on InsecureBGVN10, 2^-21.4 on BGVN13, 2^-16.5 on BGVN14).
func TestRestartRate(t *testing.T) {
	for _, tc := range []struct {
		id     fhe.PresetID
		proofs int
	}{{fhetest.InsecureBGVN10, 100}, {fhe.BGVN13, 10}, {fhe.BGVN14, 10}} {
		if testing.Short() && tc.id != fhetest.InsecureBGVN10 {
			continue
		}
		p := fhe.MustParams(tc.id)
		keys := fhe.GenKeys(p, nil)
		k, err := NewUploadKey(keys.Public)
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(uint64(tc.id), 3))
		var total proveStats
		for range tc.proofs {
			w, pt := honestWitness(t, k, []int64{1, 2}, r)
			raw, rho := k.encryptQP(w, pt.MetaData)
			_, h := wrap(t, k, raw)
			_, st, err := k.proveStats(w, rho, h, Context{})
			require.NoError(t, err)
			total.Attempts += st.Attempts
			total.Box += st.Box
			total.Rounding += st.Rounding
		}
		pp := k.PP
		bound := 2 * float64(pp.N) * float64(pp.Reps) * (2*BetaE + 1) / float64(pp.D)
		t.Logf("%s: %d proofs, %d attempts (%.2f a proof), %d box restarts, %d rounding restarts (bound 2^%.1f an attempt)",
			p.Preset.Name, tc.proofs, total.Attempts, float64(total.Attempts)/float64(tc.proofs), total.Box, total.Rounding, math.Log2(bound))
		require.Less(t, float64(total.Attempts)/float64(tc.proofs), 3.0)
		require.LessOrEqual(t, total.Rounding, 1)
	}
}
