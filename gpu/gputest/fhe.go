package gputest

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/luxfi/lattice/v7/core/rlwe"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/fhe/workloads"
	"github.com/fhegate/fhegate/gpu"
)

// RunFHE proves that routing never changes an output byte: FHE evaluations
// through package fhe — a BGV multiply (tensor, relinearise, modulus switch)
// followed by a rotation, and a CKKS multiply (relinearise, rescale) followed
// by a rotation — give byte-identical canonical ciphertexts with acc armed
// and forced on at threshold 1 (every NTT of the evaluation goes to acc) and
// with no dispatcher at all. It runs the batch once sequentially and once
// from concurrent goroutines (so the dispatcher coalesces), and checks the
// products by decryption against the plaintext products.
func RunFHE(t *testing.T, acc gpu.Backend) {
	for _, tc := range []struct {
		name string
		id   fhe.PresetID
	}{{"BGV mul+relin+rescale, rotate", fhetest.InsecureBGVN10}, {"CKKS mul+relin+rescale, rotate", fhetest.InsecureCKKSN10}} {
		t.Run(tc.name, func(t *testing.T) { runFHE(t, acc, tc.id) })
	}
}

func runFHE(t *testing.T, acc gpu.Backend, id fhe.PresetID) {
	require.Nil(t, gpu.Installed(), "another dispatcher is installed")
	kit := fhetest.MustKit(id)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	const jobs = 4
	bgv := kit.Params.Scheme() == fhe.SchemeBGV
	slots := kit.Params.Slots()
	type job struct {
		a, b   *fhe.Ciphertext
		ia, ib []int64
		fa, fb []float64
	}
	js := make([]job, jobs)
	for i := range js {
		var err error
		if bgv {
			js[i].ia, js[i].ib = fhetest.RandInts(rng, slots, 100), fhetest.RandInts(rng, slots, 100)
			js[i].a, err = kit.Enc.EncryptInts(js[i].ia)
			require.NoError(t, err)
			js[i].b, err = kit.Enc.EncryptInts(js[i].ib)
		} else {
			js[i].fa, js[i].fb = fhetest.RandFloats(rng, slots), fhetest.RandFloats(rng, slots)
			js[i].a, err = kit.Enc.EncryptFloats(js[i].fa)
			require.NoError(t, err)
			js[i].b, err = kit.Enc.EncryptFloats(js[i].fb)
		}
		require.NoError(t, err)
	}
	eval := func(j job) (prod, rot []byte) {
		p, err := kit.Eval.Mul(j.a, j.b)
		require.NoError(t, err)
		r, err := kit.Eval.Rotate(p, 1)
		require.NoError(t, err)
		pb, err := p.MarshalBinary()
		require.NoError(t, err)
		rb, err := r.MarshalBinary()
		require.NoError(t, err)
		return pb, rb
	}

	// Reference: plain Lattigo, no dispatcher.
	wantP := make([][]byte, jobs)
	wantR := make([][]byte, jobs)
	for i, j := range js {
		wantP[i], wantR[i] = eval(j)
		ct, err := fhe.UnmarshalCiphertext(wantP[i])
		require.NoError(t, err)
		if bgv {
			got, err := kit.Dec.DecryptInts(ct)
			require.NoError(t, err)
			for s := range j.ia {
				require.Equal(t, j.ia[s]*j.ib[s], got[s], "slot %d", s)
			}
		} else {
			got, err := kit.Dec.DecryptFloats(ct)
			require.NoError(t, err)
			for s := range j.fa {
				require.LessOrEqual(t, math.Abs(j.fa[s]*j.fb[s]-got[s]), 1e-4, "slot %d", s)
			}
		}
	}

	d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: acc, ForceThreshold: 1})
	st := d.Status()
	require.True(t, st.Armed, st.Reason)
	require.NoError(t, d.Install())
	defer d.Uninstall()

	for i, j := range js { // sequential: every NTT is a lone call, B = 1
		p, r := eval(j)
		require.Equal(t, wantP[i], p, "job %d product", i)
		require.Equal(t, wantR[i], r, "job %d rotation", i)
	}
	var wg sync.WaitGroup
	gotP := make([][]byte, jobs)
	gotR := make([][]byte, jobs)
	for i := range js { // concurrent: NTTs on the shared rings coalesce
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			gotP[i], gotR[i] = eval(js[i])
		}(i)
	}
	wg.Wait()
	for i := range js {
		require.Equal(t, wantP[i], gotP[i], "concurrent job %d product", i)
		require.Equal(t, wantR[i], gotR[i], "concurrent job %d rotation", i)
	}
	stats := d.Stats()
	require.Len(t, stats, 2)
	acs := stats[1]
	require.Equal(t, acc.Name(), acs.Backend)
	require.Positive(t, acs.Polys, "the accelerator ran NTTs")
	require.Zero(t, acs.Fallbacks)
	t.Logf("%s: %d NTT polynomials in %d batches on the accelerator (mean batch %.2f), %d on the CPU",
		acc.Name(), acs.Polys, acs.Batches, float64(acs.Polys)/float64(acs.Batches), stats[0].Polys)
}

// WorkloadTolerance is the CKKS decryption tolerance of RunWorkloads (the
// insecure N=2^10 presets; BGV is exact).
const WorkloadTolerance = 1e-5

// RunWorkloads runs every encrypted workload of fhe/workloads (both
// variants, insecure N=2^10 presets) with no dispatcher and then with acc
// armed and forced on at threshold 1, and requires byte-identical output
// ciphertexts; the accelerated outputs are also decrypted against the
// workload's plaintext reference.
func RunWorkloads(t *testing.T, acc gpu.Backend) {
	require.Nil(t, gpu.Installed(), "another dispatcher is installed")
	envs := map[fhe.PresetID]*workloads.Env{}
	for _, name := range workloads.Names {
		t.Run(name, func(t *testing.T) {
			id := fhetest.InsecureCKKSN10
			if name == "bgv_dot_128" {
				id = fhetest.InsecureBGVN10
			}
			env := envs[id]
			if env == nil {
				var err error
				env, err = workloads.NewEnv(id)
				require.NoError(t, err)
				envs[id] = env
			}
			c, err := workloads.New(name, env, rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 3)), false)
			require.NoError(t, err)
			for _, v := range workloads.Variants {
				if !c.Has(v) {
					continue
				}
				outs, err := c.Run(v)
				require.NoError(t, err)
				want := marshalAll(t, env.P, outs)

				d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: acc, ForceThreshold: 1})
				require.True(t, d.Status().Armed, d.Status().Reason)
				require.NoError(t, d.Install())
				outs, err = c.Run(v)
				d.Uninstall()
				require.NoError(t, err)
				require.Equal(t, want, marshalAll(t, env.P, outs), "%s/%v: output bytes differ with %s", name, v, acc.Name())
				require.Positive(t, d.Stats()[1].Polys, "%s/%v: no NTT reached %s", name, v, acc.Name())
				maxErr, err := c.MaxErr(v, outs)
				require.NoError(t, err)
				tol := WorkloadTolerance
				if c.Exact() {
					tol = 0
				}
				require.LessOrEqual(t, maxErr, tol, "%s/%v", name, v)
			}
		})
	}
}

func marshalAll(t *testing.T, p *fhe.Params, cts []*rlwe.Ciphertext) [][]byte {
	t.Helper()
	out := make([][]byte, len(cts))
	for i, ct := range cts {
		w, err := fhe.WrapCiphertext(p, ct)
		require.NoError(t, err)
		out[i], err = w.MarshalBinary()
		require.NoError(t, err)
	}
	return out
}
