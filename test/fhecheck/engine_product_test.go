package fhecheck_test

import (
	"bytes"
	"math/big"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/internal/testseed"
)

// productRouter stands in for an accelerator with product kernels: it
// computes every job from its definition into fresh buffers (the big.Int
// residue for the first `stop` words, as a kernel would, Finish for the
// rest, as a kernel that met an out-of-bounds word hands over), poisoning
// the outputs in between; decline makes it refuse every call.
type productRouter struct {
	reducedRouter
	stop             int
	decline          bool
	tensors, muladds atomic.Uint64
}

func bigMod(x *big.Int, q uint64) uint64 {
	return new(big.Int).Mod(x, new(big.Int).SetUint64(q)).Uint64()
}

func (r *productRouter) Tensor(jobs []engine.TensorJob) bool {
	if r.decline {
		return false
	}
	for _, j := range jobs {
		n, q := j.S.N, j.S.Modulus
		stop := min(r.stop, n)
		t := new(big.Int).SetUint64(j.T())
		o0, o1, o2 := make([]uint64, stop), make([]uint64, stop), make([]uint64, stop)
		for x := range stop {
			a0, a1 := new(big.Int).SetUint64(j.A0[x]), new(big.Int).SetUint64(j.A1[x])
			b0, b1 := new(big.Int).SetUint64(j.B0[x]), new(big.Int).SetUint64(j.B1[x])
			o0[x] = bigMod(new(big.Int).Mul(new(big.Int).Mul(a0, b0), t), q)
			o2[x] = bigMod(new(big.Int).Mul(new(big.Int).Mul(a1, b1), t), q)
			m := new(big.Int).Add(new(big.Int).Mul(a0, b1), new(big.Int).Mul(a1, b0))
			o1[x] = bigMod(m.Mul(m, t), q)
		}
		// Words ≥ stop still hold the inputs Finish reads (same-index
		// aliasing): poison only the words computed above.
		poison(j.Out0[:stop])
		poison(j.Out1[:stop])
		poison(j.Out2[:stop])
		copy(j.Out0, o0)
		copy(j.Out1, o1)
		copy(j.Out2, o2)
		j.Finish(stop)
	}
	r.tensors.Add(uint64(len(jobs)))
	return true
}

func (r *productRouter) MulAdd(jobs []engine.MulAddJob) bool {
	if r.decline {
		return false
	}
	for _, j := range jobs {
		stop := min(r.stop, j.S.N)
		out := make([]uint64, stop)
		w := new(big.Int).SetUint64(j.W)
		for x := range stop {
			s := new(big.Int).Mul(new(big.Int).SetUint64(j.A[x]), w)
			out[x] = bigMod(s.Add(s, new(big.Int).SetUint64(j.Out[x])), j.S.Modulus)
		}
		poison(j.Out[:stop])
		copy(j.Out, out)
		j.Finish(stop)
	}
	r.muladds.Add(uint64(len(jobs)))
	return true
}

// productRouters are the routers of the product tests: none, one without
// product kernels, one declining, and two splitting every job between the
// definition and Finish at different words.
func productRouters() []engine.Router {
	return []engine.Router{nil, &keySwitchRouter{}, &productRouter{decline: true}, &productRouter{stop: 520},
		&productRouter{stop: 24}}
}

// degree1 returns a copy of ct's first two polynomials as a degree-1
// ciphertext.
func degree1(ct *rlwe.Ciphertext) *rlwe.Ciphertext {
	c := ct.CopyNew()
	c.Value = c.Value[:2]
	return c
}

// TestTensorBGVByteIdentical proves engine.TensorBGV byte-identical to the
// tensor of Lattigo's bgv.Evaluator.MulNew on every BGV preset at every
// level — a product, a square, and the output aliasing either operand or
// both — with no router, a router without product kernels, a declining
// one, and routers answering from the definition (then Finish), every routed output poisoned first.
func TestTensorBGVByteIdentical(t *testing.T) {
	rng := testseed.Rand(t, 18)
	for _, pr := range fhe.Presets() {
		if pr.Scheme != fhe.SchemeBGV {
			continue
		}
		t.Run(pr.Name, func(t *testing.T) {
			p, err := fhe.NewParams(pr.ID)
			require.NoError(t, err)
			params := p.BGV()
			ref := bgv.NewEvaluator(params, nil)
			for level := 0; level <= params.MaxLevel(); level++ {
				ringQ := params.RingQ().AtLevel(level)
				tm := engine.TMontgomery(params.RingQ(), params.PlaintextModulus())
				a := degree1(randomCiphertext(rng, params.Parameters, level))
				b := degree1(randomCiphertext(rng, params.Parameters, level))
				for _, square := range []bool{false, true} {
					op1 := b
					if square {
						op1 = a
					}
					want, err := ref.MulNew(a, op1)
					require.NoError(t, err)
					for alias := range 3 { // fresh output, output over a, output over op1
						for _, router := range productRouters() {
							x, y := a.CopyNew(), op1.CopyNew()
							if square {
								y = x
							}
							out := []ring.Poly{ringQ.NewPoly(), ringQ.NewPoly(), ringQ.NewPoly()}
							switch alias {
							case 1:
								out[0], out[1] = x.Value[0], x.Value[1]
							case 2:
								out[0], out[1] = y.Value[0], y.Value[1]
							}
							engine.SetRouter(router)
							engine.TensorBGV(ringQ, tm, x.Value, y.Value, out)
							engine.SetRouter(nil)
							got := want.CopyNew()
							got.Value = out
							require.True(t, bytes.Equal(marshal(t, want), marshal(t, got)),
								"level %d square %v alias %d router %T: differs from Lattigo's tensor", level, square, alias, router)
							if pr, ok := router.(*productRouter); ok && !pr.decline {
								require.Positive(t, pr.tensors.Load())
							}
						}
					}
				}
			}
		})
	}
}

// TestMulScalarThenAddByteIdentical proves engine.MulScalarThenAdd
// byte-identical to Lattigo's Ring.MulScalarBigintThenAdd on every BGV
// preset at every level, for small, negative and wide scalars, with the
// output separate from and aliasing the input, under every product router.
func TestMulScalarThenAddByteIdentical(t *testing.T) {
	rng := testseed.Rand(t, 20)
	wide, _ := new(big.Int).SetString("-123456789012345678901234567890123", 10)
	scalars := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(7), big.NewInt(-3), big.NewInt(65536), wide}
	for _, pr := range fhe.Presets() {
		if pr.Scheme != fhe.SchemeBGV {
			continue
		}
		t.Run(pr.Name, func(t *testing.T) {
			p, err := fhe.NewParams(pr.ID)
			require.NoError(t, err)
			params := p.BGV()
			for level := 0; level <= params.MaxLevel(); level++ {
				ringQ := params.RingQ().AtLevel(level)
				a := degree1(randomCiphertext(rng, params.Parameters, level))
				acc := degree1(randomCiphertext(rng, params.Parameters, level))
				for _, sc := range scalars {
					for _, alias := range []bool{false, true} {
						want := acc.CopyNew()
						src := a
						if alias {
							src = want
						}
						for i := range want.Value {
							ringQ.MulScalarBigintThenAdd(src.Value[i], sc, want.Value[i])
						}
						for _, router := range productRouters() {
							got := acc.CopyNew()
							src := a.CopyNew()
							if alias {
								src = got
							}
							engine.SetRouter(router)
							engine.MulScalarThenAdd(ringQ, src.Value, sc, got.Value)
							engine.SetRouter(nil)
							require.True(t, bytes.Equal(marshal(t, want), marshal(t, got)),
								"level %d scalar %v alias %v router %T: differs from Lattigo", level, sc, alias, router)
						}
					}
				}
			}
		})
	}
}

// linCombRouter is productRouter with whole linear combinations computed
// from their definition (the big.Int sum for the first `stop` words,
// Finish for the rest), the output poisoned in between, or declined.
type linCombRouter struct {
	productRouter
	lincombs atomic.Uint64
}

func (r *linCombRouter) LinComb(jobs []engine.LinCombJob) bool {
	if r.decline {
		return false
	}
	for _, j := range jobs {
		stop := min(r.stop, j.S.N)
		out := make([]uint64, stop)
		for x := range stop {
			s := new(big.Int).SetUint64(j.Out[x])
			for k := range j.A {
				s.Add(s, new(big.Int).Mul(new(big.Int).SetUint64(j.A[k][x]), new(big.Int).SetUint64(j.W[k])))
			}
			out[x] = bigMod(s, j.S.Modulus)
		}
		poison(j.Out[:stop])
		copy(j.Out, out)
		j.Finish(stop)
	}
	r.lincombs.Add(uint64(len(jobs)))
	return true
}

// TestLinCombByteIdentical proves engine.LinComb byte-identical to
// Lattigo's term-by-term Ring.MulScalarBigintThenAdd (bgv MulThenAdd's
// arithmetic) on every BGV preset at its top level: five terms (one a
// level lower, so the top limb has four; small, negative and wide
// scalars) into each polynomial of a degree-1 output, under no router, the
// product routers (the terms then go to MulAdd one by one) and linear-
// combination routers that answer, split or decline.
func TestLinCombByteIdentical(t *testing.T) {
	rng := testseed.Rand(t, 21)
	wide, _ := new(big.Int).SetString("-123456789012345678901234567890123", 10)
	scalars := []*big.Int{big.NewInt(7), big.NewInt(-3), wide, big.NewInt(65536), big.NewInt(0)}
	routers := append(productRouters(), &linCombRouter{productRouter: productRouter{stop: 1 << 20}},
		&linCombRouter{productRouter: productRouter{stop: 24}}, &linCombRouter{productRouter: productRouter{decline: true}})
	for _, pr := range fhe.Presets() {
		if pr.Scheme != fhe.SchemeBGV {
			continue
		}
		t.Run(pr.Name, func(t *testing.T) {
			p, err := fhe.NewParams(pr.ID)
			require.NoError(t, err)
			params := p.BGV()
			top := params.MaxLevel()
			var terms []*rlwe.Ciphertext
			for k := range scalars {
				terms = append(terms, degree1(randomCiphertext(rng, params.Parameters, top-min(k/4, top))))
			}
			acc := degree1(randomCiphertext(rng, params.Parameters, top))
			want := acc.CopyNew()
			for k, c := range terms {
				ringQ := params.RingQ().AtLevel(c.Level())
				for i := range want.Value {
					ringQ.MulScalarBigintThenAdd(c.Value[i], scalars[k], want.Value[i])
				}
			}
			for _, router := range routers {
				got := acc.CopyNew()
				var jobs []engine.LinCombJob
				for i := range got.Value {
					for x, s := range params.RingQ().SubRings[:top+1] {
						j := engine.LinCombJob{S: s, Out: got.Value[i].Coeffs[x]}
						for k, c := range terms {
							if x <= c.Level() {
								j.A = append(j.A, c.Value[i].Coeffs[x])
								j.W = append(j.W, new(big.Int).Mod(scalars[k], new(big.Int).SetUint64(s.Modulus)).Uint64())
							}
						}
						require.NoError(t, j.Check())
						jobs = append(jobs, j)
					}
				}
				lr, isLC := router.(*linCombRouter)
				var before uint64
				if isLC {
					before = lr.lincombs.Load()
				}
				engine.SetRouter(router)
				engine.LinComb(jobs)
				engine.SetRouter(nil)
				require.True(t, bytes.Equal(marshal(t, want), marshal(t, got)), "router %T: differs from Lattigo", router)
				if isLC && !lr.decline {
					require.EqualValues(t, len(jobs), lr.lincombs.Load()-before, "one call took every job")
				}
			}
		})
	}
}
