package calib_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/calib"
	"github.com/fhegate/fhegate/internal/testseed"
)

// boundRouter records, per direction, the largest input word of every job
// relative to its modulus (in units of q, rounded up) and runs the jobs as
// Lattigo does.
type boundRouter struct {
	mu    sync.Mutex
	worst map[gpu.Direction]uint64
	jobs  map[gpu.Direction]int
}

func (r *boundRouter) Transform(inverse, lazy bool, jobs []engine.Job) {
	dir := gpu.Forward
	if inverse {
		dir = gpu.Inverse
	}
	r.mu.Lock()
	for _, j := range jobs {
		r.worst[dir] = max(r.worst[dir], slices.Max(j.Src)/j.S.Modulus+1)
		r.jobs[dir]++
	}
	r.mu.Unlock()
	engine.RunLattigo(inverse, lazy, jobs)
}

// TestCalibrationMatchesEngine: calibration times batches whose input words
// are as large as the engine's (EngineInputBound), so a shape it routes is
// routed for the inputs the engine really hands over (the native backend's
// vector path reduces lazy words on load, at a cost the ladder must include).
// The engine's key switch (relinearisation) and rescale run on every public
// preset at its top level and at level 1, through a router that records the
// largest input word of every transform.
func TestCalibrationMatchesEngine(t *testing.T) {
	rng := testseed.Rand(t, 26)
	r := &boundRouter{worst: map[gpu.Direction]uint64{}, jobs: map[gpu.Direction]int{}}
	engine.SetRouter(r)
	defer engine.SetRouter(nil)
	for _, pr := range fhe.Presets() {
		if pr.Insecure() {
			continue
		}
		p, err := fhe.NewParams(pr.ID)
		require.NoError(t, err)
		params := p.RLWE()
		kgen := rlwe.NewKeyGenerator(params)
		rlk := kgen.GenRelinearizationKeyNew(kgen.GenSecretKeyNew())
		ks := engine.NewKeySwitcher(params, rlwe.NewEvaluator(params, rlwe.NewMemEvaluationKeySet(rlk)))
		for _, level := range []int{params.MaxLevel(), 1} {
			ct := uniformCiphertext(rng, params, level)
			out := rlwe.NewCiphertext(params, 1, level)
			require.NoError(t, ks.Relinearize(ct, rlk, out), "%s level %d", pr.Name, level)
			rq := params.RingQ().AtLevel(level)
			engine.DivRoundByLastModulusNTT(rq, out.Value, []ring.Poly{rq.NewPoly(), rq.NewPoly()})
		}
	}
	for _, dir := range []gpu.Direction{gpu.Forward, gpu.Inverse} {
		require.NotZero(t, r.jobs[dir], "the engine handed over %s transforms", dir)
		t.Logf("%s: %d transforms, largest input word < %d·q (calibration: < %d·q)", dir, r.jobs[dir], r.worst[dir], calib.EngineInputBound(dir))
		require.LessOrEqual(t, r.worst[dir], calib.EngineInputBound(dir), fmt.Sprintf("%s inputs above the calibrated bound", dir))
	}
	require.Equal(t, uint64(2), r.worst[gpu.Forward], "the engine hands lazy forward inputs, so calibration must time them")
}

// uniformCiphertext is a degree-2 ciphertext at level with every limb
// uniform in [0, q), in the NTT domain (what a tensor product leaves).
func uniformCiphertext(rng *rand.Rand, params rlwe.Parameters, level int) *rlwe.Ciphertext {
	ct := rlwe.NewCiphertext(params, 2, level)
	for _, v := range ct.Value {
		for x, s := range params.RingQ().AtLevel(level).SubRings[:level+1] {
			for j := range v.Coeffs[x] {
				v.Coeffs[x][j] = rng.Uint64N(s.Modulus)
			}
		}
	}
	return ct
}
