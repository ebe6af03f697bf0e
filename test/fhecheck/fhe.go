package fhecheck

import (
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/bench/workloads"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/internal/testseed"
)

// RunFHE proves that routing never changes an output byte: FHE evaluations
// through package fhe — a BGV multiply (tensor, relinearise, modulus switch)
// followed by a rotation, and a CKKS multiply (relinearise, rescale) followed
// by a rotation — give byte-identical canonical ciphertexts with acc armed
// and forced on at threshold 1 (every NTT of the evaluation goes to acc) and
// with no dispatcher at all. It runs the batch once sequentially and once
// from concurrent goroutines, and checks the
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
	r := newFHERun(t, fhetest.MustKit(id))
	r.reference()

	d := forced(t, acc)
	require.NoError(t, d.Install())
	defer d.Uninstall()
	r.sequential()
	r.concurrent()

	stats := d.Stats()
	require.Len(t, stats, 2)
	acs := stats[1]
	require.Equal(t, acc.Name(), acs.Backend)
	require.Zero(t, acs.Fallbacks)
	requireRouted(t, d, acc, "fhe")
}

// requireRouted asserts that the engine handed d transforms and that the
// accelerator ran some of them, and logs the seam counters.
func requireRouted(t *testing.T, d *gpu.Dispatcher, acc gpu.Backend, what string) gpu.RouterStats {
	t.Helper()
	rs := d.RouterStats()
	require.Positive(t, rs.Routed, "%s: no transform reached %s", what, acc.Name())
	t.Logf("%s: %d of %d engine transforms routed to %s (%.1f%%) in %d batches; batch size median %d, p95 %d; key switch: %d multiply-accumulate moduli, %d basis extensions, %d ModDown/rescale limbs; BGV products: %d tensor limbs, %d multiply-add limbs",
		what, rs.Routed, rs.Transforms, acc.Name(), 100*rs.RoutedFraction(), rs.Batches, rs.MedianBatch, rs.P95Batch, rs.MulAcc, rs.ModUp, rs.ScaleDiff, rs.Tensor, rs.MulAdd)
	return rs
}

// forced returns a dispatcher (not installed) with acc armed and forced on
// at threshold 1, so that every NTT goes to acc.
func forced(t *testing.T, acc gpu.Backend) *gpu.Dispatcher {
	t.Helper()
	d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: acc, ForceThreshold: 1})
	st := d.Status()
	require.True(t, st.Armed, st.Reason)
	return d
}

// fheJobs is the number of evaluations in one RunFHE case.
const fheJobs = 4

// fheJob is one multiply-then-rotate evaluation: two encrypted operands and
// their plaintexts (integers for BGV, floats for CKKS).
type fheJob struct {
	a, b   *fhe.Ciphertext
	ia, ib []int64
	fa, fb []float64
}

// fheRun is one RunFHE case: its jobs and, once reference has run, the
// product and rotation bytes that plain Lattigo gives for each.
type fheRun struct {
	t            *testing.T
	kit          *fhetest.Kit
	bgv          bool
	jobs         []fheJob
	wantP, wantR [][]byte
}

// newFHERun encrypts fheJobs pairs of fresh random operands.
func newFHERun(t *testing.T, kit *fhetest.Kit) *fheRun {
	rng := testseed.Rand(t, 7)
	r := &fheRun{t: t, kit: kit, bgv: kit.Params.Scheme() == fhe.SchemeBGV, jobs: make([]fheJob, fheJobs)}
	slots := kit.Params.Slots()
	for i := range r.jobs {
		j := &r.jobs[i]
		var err error
		if r.bgv {
			j.ia, j.ib = fhetest.RandInts(rng, slots, 100), fhetest.RandInts(rng, slots, 100)
			j.a, err = kit.Enc.EncryptInts(j.ia)
			require.NoError(t, err)
			j.b, err = kit.Enc.EncryptInts(j.ib)
		} else {
			j.fa, j.fb = fhetest.RandFloats(rng, slots), fhetest.RandFloats(rng, slots)
			j.a, err = kit.Enc.EncryptFloats(j.fa)
			require.NoError(t, err)
			j.b, err = kit.Enc.EncryptFloats(j.fb)
		}
		require.NoError(t, err)
	}
	return r
}

// eval multiplies j's operands, rotates the product by one slot and returns
// both canonical encodings.
func (r *fheRun) eval(j fheJob) (prod, rot []byte) {
	t := r.t
	p, err := r.kit.Eval.Mul(j.a, j.b)
	require.NoError(t, err)
	rc, err := r.kit.Eval.Rotate(p, 1)
	require.NoError(t, err)
	pb, err := p.MarshalBinary()
	require.NoError(t, err)
	rb, err := rc.MarshalBinary()
	require.NoError(t, err)
	return pb, rb
}

// reference evaluates every job with plain Lattigo (no dispatcher), records
// the output bytes and checks each product by decryption.
func (r *fheRun) reference() {
	r.wantP = make([][]byte, len(r.jobs))
	r.wantR = make([][]byte, len(r.jobs))
	for i, j := range r.jobs {
		r.wantP[i], r.wantR[i] = r.eval(j)
		r.checkProduct(j, r.wantP[i])
	}
}

// checkProduct decrypts an encoded product of j against the plaintext
// product: exact for BGV, within 1e-4 per slot for CKKS.
func (r *fheRun) checkProduct(j fheJob, prod []byte) {
	t := r.t
	ct, err := fhe.UnmarshalCiphertext(prod)
	require.NoError(t, err)
	if r.bgv {
		got, err := r.kit.Dec.DecryptInts(ct)
		require.NoError(t, err)
		for s := range j.ia {
			require.Equal(t, j.ia[s]*j.ib[s], got[s], "slot %d", s)
		}
		return
	}
	got, err := r.kit.Dec.DecryptFloats(ct)
	require.NoError(t, err)
	for s := range j.fa {
		require.LessOrEqual(t, math.Abs(j.fa[s]*j.fb[s]-got[s]), 1e-4, "slot %d", s)
	}
}

// sequential re-evaluates the jobs one after another (every NTT is a lone
// call, B = 1) and requires the reference bytes.
func (r *fheRun) sequential() {
	for i, j := range r.jobs {
		p, rot := r.eval(j)
		require.Equal(r.t, r.wantP[i], p, "job %d product", i)
		require.Equal(r.t, r.wantR[i], rot, "job %d rotation", i)
	}
}

// concurrent re-evaluates the jobs from one goroutine each (the engine's
// batches from several goroutines reach the dispatcher at once) and requires
// the reference bytes.
func (r *fheRun) concurrent() {
	var wg sync.WaitGroup
	gotP := make([][]byte, len(r.jobs))
	gotR := make([][]byte, len(r.jobs))
	for i := range r.jobs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			gotP[i], gotR[i] = r.eval(r.jobs[i])
		}(i)
	}
	wg.Wait()
	for i := range r.jobs {
		require.Equal(r.t, r.wantP[i], gotP[i], "concurrent job %d product", i)
		require.Equal(r.t, r.wantR[i], gotR[i], "concurrent job %d rotation", i)
	}
}

// WorkloadTolerance is the CKKS decryption tolerance of RunWorkloads (the
// insecure N=2^10 presets; BGV is exact).
const WorkloadTolerance = 1e-5

// RunWorkloads runs every encrypted workload of bench/workloads (both
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
			c, err := workloads.New(name, env, testseed.Rand(t, 3), false)
			require.NoError(t, err)
			for _, v := range workloads.Variants {
				if c.Has(v) {
					runWorkload(t, acc, env, c, name, v)
				}
			}
		})
	}
}

// runWorkload runs variant v of workload c without and with acc and checks
// the outputs' bytes and decryptions.
func runWorkload(t *testing.T, acc gpu.Backend, env *workloads.Env, c *workloads.Case, name string, v workloads.Variant) {
	outs, err := c.Run(v)
	require.NoError(t, err)
	want := marshalAll(t, env.P, outs)

	d := forced(t, acc)
	require.NoError(t, d.Install())
	outs, err = c.Run(v)
	d.Uninstall()
	require.NoError(t, err)
	require.Equal(t, want, marshalAll(t, env.P, outs), "%s/%v: output bytes differ with %s", name, v, acc.Name())
	if v == workloads.Fhegate {
		requireRouted(t, d, acc, fmt.Sprintf("%s/%v", name, v))
	} else {
		// The baseline is plain Lattigo (what a first-time user writes): it
		// never enters fhegate's engine, so nothing of it is routed.
		require.Zero(t, d.RouterStats().Transforms, "%s/%v: the baseline entered the engine", name, v)
	}
	maxErr, err := c.MaxErr(v, outs)
	require.NoError(t, err)
	tol := WorkloadTolerance
	if c.Exact() {
		tol = 0
	}
	require.LessOrEqual(t, maxErr, tol, "%s/%v", name, v)
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
