package fhecheck_test

import (
	"bytes"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/ring/ringqp"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/internal/testseed"
)

// reducedRouter stands in for an accelerator: it runs every job, lazy or
// not, with Lattigo's reduced SubRing.NTT/INTT (what every fhegate backend is
// proved byte-identical to), and counts the jobs.
type reducedRouter struct{ jobs, batches atomic.Uint64 }

func (r *reducedRouter) Transform(inverse, lazy bool, jobs []engine.Job) {
	r.batches.Add(1)
	r.jobs.Add(uint64(len(jobs)))
	engine.RunLattigo(inverse, false, jobs)
}

// keySwitchRouter stands in for an accelerator with key-switch kernels: the
// transforms as reducedRouter, the multiply-accumulate as the canonical
// residue (Lattigo's reduced Montgomery products) and the basis extensions
// as engine.ModUpJob.Reference, every output poisoned first.
type keySwitchRouter struct {
	reducedRouter
	macs, modUps, scaleDiffs atomic.Uint64
}

func poison(s []uint64) {
	for i := range s {
		s[i] = 0xABABABABABABABAB
	}
}

func (r *keySwitchRouter) GadgetMulAcc(jobs []engine.MulAccJob) bool {
	for _, j := range jobs {
		poison(j.Out0)
		poison(j.Out1)
		d := make([]uint64, j.S.N)
		for i := range j.D {
			j.S.Reduce(j.D[i], d)
			if i == 0 {
				j.S.MulCoeffsMontgomery(j.K0[i], d, j.Out0)
				j.S.MulCoeffsMontgomery(j.K1[i], d, j.Out1)
			} else {
				j.S.MulCoeffsMontgomeryThenAdd(j.K0[i], d, j.Out0)
				j.S.MulCoeffsMontgomeryThenAdd(j.K1[i], d, j.Out1)
			}
		}
	}
	r.macs.Add(uint64(len(jobs)))
	return true
}

func (r *keySwitchRouter) ModUp(jobs []engine.ModUpJob) bool {
	for _, j := range jobs {
		for _, d := range j.Dst {
			poison(d[:j.N])
		}
		j.Reference(j.Dst, j.N)
	}
	r.modUps.Add(uint64(len(jobs)))
	return true
}

func (r *keySwitchRouter) ScaleDiff(jobs []engine.ScaleDiffJob) bool {
	for _, j := range jobs {
		q := j.S.Modulus
		out := make([]uint64, j.S.N)
		for x := range out {
			hi, lo := bits.Mul64((j.X[x]%q+q-j.Y[x]%q)%q, j.W)
			out[x] = bits.Rem64(hi, lo, q)
		}
		copy(j.Out, out) // Out may alias Y: written only now
	}
	r.scaleDiffs.Add(uint64(len(jobs)))
	return true
}

// routers are the routers every byte-identity test runs: none, reduced
// transforms, reduced transforms with the key-switch kernels' models.
func routers() []engine.Router { return []engine.Router{nil, &reducedRouter{}, &keySwitchRouter{}} }

// randomCiphertext returns a degree-2 ciphertext at level with uniform
// coefficients (every limb in [0, q)), in the NTT domain.
func randomCiphertext(rng *rand.Rand, params rlwe.Parameters, level int) *rlwe.Ciphertext {
	ct := rlwe.NewCiphertext(params, 2, level)
	ringQ := params.RingQ().AtLevel(level)
	for _, v := range ct.Value {
		for x, s := range ringQ.SubRings[:level+1] {
			for j := range v.Coeffs[x] {
				v.Coeffs[x][j] = rng.Uint64N(s.Modulus)
			}
		}
	}
	return ct
}

func marshal(t *testing.T, ct *rlwe.Ciphertext) []byte {
	b, err := ct.MarshalBinary()
	require.NoError(t, err)
	return b
}

// TestRelinearizeByteIdentical proves the engine's relinearisation
// byte-identical to Lattigo's rlwe.Evaluator.Relinearize on every registered
// preset (BGV and CKKS, single and multiple P) at every level, with no
// router (Lattigo's own per-limb transforms) and with a router that answers
// the lazy transforms with reduced ones, as an accelerator does.
func TestRelinearizeByteIdentical(t *testing.T) {
	rng := testseed.Rand(t, 14)
	forEachPreset(t, func(t *testing.T, params rlwe.Parameters) {
		kgen := rlwe.NewKeyGenerator(params)
		sk := kgen.GenSecretKeyNew()
		rlk := kgen.GenRelinearizationKeyNew(sk)
		evk := rlwe.NewMemEvaluationKeySet(rlk)
		ref := rlwe.NewEvaluator(params, evk)
		ks := engine.NewKeySwitcher(params, rlwe.NewEvaluator(params, evk))
		for level := 0; level <= params.MaxLevel(); level++ {
			ct := randomCiphertext(rng, params, level)
			want := rlwe.NewCiphertext(params, 1, level)
			require.NoError(t, ref.Relinearize(ct, want))
			wantB := marshal(t, want)

			got := rlwe.NewCiphertext(params, 1, level)
			require.NoError(t, ks.Relinearize(ct, rlk, got))
			require.True(t, bytes.Equal(wantB, marshal(t, got)), "level %d: engine (Lattigo transforms) differs from Relinearize", level)

			r := &reducedRouter{}
			engine.SetRouter(r)
			got2 := rlwe.NewCiphertext(params, 1, level)
			err := ks.Relinearize(ct, rlk, got2)
			engine.SetRouter(nil)
			require.NoError(t, err)
			require.True(t, bytes.Equal(wantB, marshal(t, got2)), "level %d: engine (reduced router) differs from Relinearize", level)
			require.EqualValues(t, 4, r.batches.Load(), "per key switch: decomposition INTT, digit NTTs, ModDown INTT, ModDown NTT")
			t.Logf("level %d: %d transforms routed in %d batches, byte-identical", level, r.jobs.Load(), r.batches.Load())

			kr := &keySwitchRouter{}
			engine.SetRouter(kr)
			got3 := rlwe.NewCiphertext(params, 1, level)
			err = ks.Relinearize(ct, rlk, got3)
			engine.SetRouter(nil)
			require.NoError(t, err)
			require.True(t, bytes.Equal(wantB, marshal(t, got3)), "level %d: engine (key-switch kernels' models) differs from Relinearize", level)
			require.EqualValues(t, 1, kr.macs.Load()/uint64(level+1+params.PCount()), "one multiply-accumulate call over Q∪P")
			require.Positive(t, kr.modUps.Load(), "ModDown's extension at least")
			require.EqualValues(t, 2*(level+1), kr.scaleDiffs.Load(), "ModDown's last step, both polynomials")
		}
	})
}

// TestDecomposeNTTByteIdentical proves engine.DecomposeNTT (the hoisted
// decomposition of rotations) byte-identical to rlwe.Evaluator.DecomposeNTT
// on every preset at every level, from either domain, with Lattigo's
// transforms and with a reduced router.
func TestDecomposeNTTByteIdentical(t *testing.T) {
	rng := testseed.Rand(t, 15)
	forEachPreset(t, func(t *testing.T, params rlwe.Parameters) {
		ev := rlwe.NewEvaluator(params, nil)
		levelP := params.MaxLevelP()
		digits := params.BaseRNSDecompositionVectorSize(params.MaxLevelQ(), levelP)
		newDecomp := func() []ringqp.Poly {
			d := make([]ringqp.Poly, digits)
			for i := range d {
				d[i] = params.RingQP().NewPoly()
			}
			return d
		}
		for level := 0; level <= params.MaxLevel(); level++ {
			for _, isNTT := range []bool{true, false} {
				c2 := randomCiphertext(rng, params, level).Value[2]
				if !isNTT {
					plantCentringBoundary(params, level, levelP+1, c2)
				}
				want := newDecomp()
				ev.DecomposeNTT(level, levelP, levelP+1, c2, isNTT, want)
				for _, router := range routers() {
					got := newDecomp()
					engine.SetRouter(router)
					engine.DecomposeNTT(ev, level, levelP, levelP+1, c2, isNTT, got)
					engine.SetRouter(nil)
					n := params.BaseRNSDecompositionVectorSize(level, levelP)
					for i := 0; i < n; i++ {
						for x := 0; x <= level; x++ {
							require.Equal(t, want[i].Q.Coeffs[x], got[i].Q.Coeffs[x], "level %d ntt=%v digit %d Q limb %d", level, isNTT, i, x)
						}
						for x := 0; x <= levelP; x++ {
							require.Equal(t, want[i].P.Coeffs[x], got[i].P.Coeffs[x], "level %d ntt=%v digit %d P limb %d", level, isNTT, i, x)
						}
					}
				}
			}
		}
	})
}

// TestAutomorphismByteIdentical proves the engine's rotation key switch
// byte-identical to rlwe.Evaluator.Automorphism on every preset at every
// level (rotation by 1 and by 5), with Lattigo's transforms and with a
// reduced router.
func TestAutomorphismByteIdentical(t *testing.T) {
	rng := testseed.Rand(t, 16)
	forEachPreset(t, func(t *testing.T, params rlwe.Parameters) {
		kgen := rlwe.NewKeyGenerator(params)
		sk := kgen.GenSecretKeyNew()
		els := []uint64{params.GaloisElement(1), params.GaloisElement(5)}
		var gks []*rlwe.GaloisKey
		for _, g := range els {
			gks = append(gks, kgen.GenGaloisKeyNew(g, sk))
		}
		evk := rlwe.NewMemEvaluationKeySet(nil, gks...)
		ref := rlwe.NewEvaluator(params, evk)
		ks := engine.NewKeySwitcher(params, rlwe.NewEvaluator(params, evk))
		for level := 0; level <= params.MaxLevel(); level++ {
			c := randomCiphertext(rng, params, level)
			ct := rlwe.NewCiphertext(params, 1, level)
			ct.Value[0], ct.Value[1] = c.Value[0], c.Value[1]
			for _, g := range els {
				want := rlwe.NewCiphertext(params, 1, level)
				require.NoError(t, ref.Automorphism(ct, g, want))
				wantB := marshal(t, want)
				for _, router := range routers() {
					got := rlwe.NewCiphertext(params, 1, level)
					engine.SetRouter(router)
					err := ks.Automorphism(ct, g, got)
					engine.SetRouter(nil)
					require.NoError(t, err)
					require.True(t, bytes.Equal(wantB, marshal(t, got)), "level %d galEl %d router %v: differs from Automorphism", level, g, router != nil)
				}
			}
		}
	})
}

// TestModDownByteIdentical proves engine.ModDown byte-identical to
// rlwe.Evaluator.ModDown (NTT → NTT) on every preset at every level, with
// Lattigo's lazy transforms and with a router answering them reduced.
func TestModDownByteIdentical(t *testing.T) {
	rng := testseed.Rand(t, 17)
	forEachPreset(t, func(t *testing.T, params rlwe.Parameters) {
		ev := rlwe.NewEvaluator(params, nil)
		levelP := params.MaxLevelP()
		for level := 0; level <= params.MaxLevel(); level++ {
			el := rlwe.NewElementExtended(params, 1, level, levelP)
			el.IsNTT = true
			rqp := params.RingQP().AtLevel(level, levelP)
			for _, v := range el.Value {
				for x, s := range rqp.RingQ.SubRings[:level+1] {
					for j := range v.Q.Coeffs[x] {
						v.Q.Coeffs[x][j] = rng.Uint64N(s.Modulus)
					}
				}
				for x, s := range rqp.RingP.SubRings[:levelP+1] {
					for j := range v.P.Coeffs[x] {
						v.P.Coeffs[x][j] = rng.Uint64N(s.Modulus)
					}
				}
			}
			want := rlwe.NewCiphertext(params, 1, level)
			ev.ModDown(level, levelP, el.CopyNew(), want)
			wantB := marshal(t, want)
			for _, router := range routers() {
				got := rlwe.NewCiphertext(params, 1, level)
				engine.SetRouter(router)
				engine.ModDown(ev, level, levelP, el.CopyNew(), got)
				engine.SetRouter(nil)
				require.True(t, bytes.Equal(wantB, marshal(t, got)), "level %d router %v: differs from ModDown", level, router != nil)
			}
		}
	})
}

// plantCentringBoundary writes, in the first words of c2 (coefficient
// domain), values whose centred lift within the first decomposition digit
// is within 2 of a multiple of the digit's modulus: there the basis
// extension's floating-point estimate of v is decided by rounding.
func plantCentringBoundary(params rlwe.Parameters, level, nbPi int, c2 ring.Poly) {
	subs := params.RingQ().SubRings[:min(nbPi, level+1)]
	if len(subs) < 2 {
		return
	}
	Q := big.NewInt(1)
	for _, s := range subs {
		Q.Mul(Q, new(big.Int).SetUint64(s.Modulus))
	}
	H := new(big.Int).Rsh(Q, 1)
	for w, eps := range []int64{0, 1, 2, -1, -2} {
		x := new(big.Int).Sub(Q, H)
		x.Add(x, big.NewInt(eps)).Mod(x, Q)
		for i, s := range subs {
			c2.Coeffs[i][w] = new(big.Int).Mod(x, new(big.Int).SetUint64(s.Modulus)).Uint64()
		}
	}
}

// forEachPreset runs f as a subtest per registered preset with its RLWE
// parameters.
func forEachPreset(t *testing.T, f func(t *testing.T, params rlwe.Parameters)) {
	for _, pr := range fhe.Presets() {
		t.Run(pr.Name, func(t *testing.T) {
			p, err := fhe.NewParams(pr.ID)
			require.NoError(t, err)
			f(t, p.RLWE())
		})
	}
}

// TestDivRoundByLastModulusNTTByteIdentical proves the engine's rescale
// kernel byte-identical to ring.Ring.DivRoundByLastModulusNTT on every
// preset at every level ≥ 1 (two polynomials, in place and not), with
// Lattigo's lazy transforms and with a router answering them reduced.
func TestDivRoundByLastModulusNTTByteIdentical(t *testing.T) {
	rng := testseed.Rand(t, 18)
	forEachPreset(t, func(t *testing.T, params rlwe.Parameters) {
		for level := 1; level <= params.MaxLevel(); level++ {
			r := params.RingQ().AtLevel(level)
			ct := randomCiphertext(rng, params, level)
			in := []ring.Poly{ct.Value[0], ct.Value[1]}
			want := []ring.Poly{r.NewPoly(), r.NewPoly()}
			for k := range in {
				r.DivRoundByLastModulusNTT(in[k], want[k])
			}
			for _, router := range routers() {
				got := []ring.Poly{r.NewPoly(), r.NewPoly()}
				inPlace := []ring.Poly{*in[0].CopyNew(), *in[1].CopyNew()}
				engine.SetRouter(router)
				engine.DivRoundByLastModulusNTT(r, in, got)
				engine.DivRoundByLastModulusNTT(r, inPlace, inPlace)
				engine.SetRouter(nil)
				for k := range in {
					for i := 0; i < level; i++ {
						require.Equal(t, want[k].Coeffs[i], got[k].Coeffs[i], "level %d poly %d limb %d router %v", level, k, i, router != nil)
						require.Equal(t, want[k].Coeffs[i], inPlace[k].Coeffs[i], "in place: level %d poly %d limb %d router %v", level, k, i, router != nil)
					}
				}
			}
		}
	})
}
