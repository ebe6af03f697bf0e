package workloads

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/internal/stats"
)

// ckksTol is the correctness bound for CKKS on inputs in [-1, 1].
const ckksTol = 1e-5

var (
	envMu    sync.Mutex
	envCache = map[fhe.PresetID]*Env{}
)

func testEnv(t testing.TB, id fhe.PresetID) *Env {
	t.Helper()
	envMu.Lock()
	defer envMu.Unlock()
	if e, ok := envCache[id]; ok {
		return e
	}
	e, err := NewEnv(id)
	require.NoError(t, err)
	envCache[id] = e
	return e
}

func presetFor(name string, bgvID, ckksID fhe.PresetID) fhe.PresetID {
	if name == "bgv_dot_128" {
		return bgvID
	}
	return ckksID
}

func hasPacked(name string) bool { return name != "mul_pipeline" && name != "square" }

func marshal(t *testing.T, e *Env, outs []*rlwe.Ciphertext) [][]byte {
	t.Helper()
	var out [][]byte
	for _, ct := range outs {
		w, err := fhe.WrapCiphertext(e.P, ct)
		require.NoError(t, err)
		b, err := w.MarshalBinary()
		require.NoError(t, err)
		out = append(out, b)
	}
	return out
}

// checkCase runs every variant the case has, checks the decrypted results
// against the plaintext reference, checks that the variants agree with each
// other, and that a second evaluation gives identical bytes (determinism,
// and evidence that the inputs were not modified by the first run).
func checkCase(t *testing.T, c *Case) {
	t.Helper()
	tol := ckksTol
	if c.Exact() {
		tol = 0
	}
	var results [][]float64
	for _, v := range Variants {
		if !c.Has(v) {
			continue
		}
		outs, err := c.Run(v)
		require.NoError(t, err, "%s/%v", c.Name, v)
		first := marshal(t, c.Env(), outs)
		e, err := c.MaxErr(v, outs)
		require.NoError(t, err)
		require.LessOrEqual(t, e, tol, "%s/%v: max error %g", c.Name, v, e)
		got, err := c.Results(v, outs)
		require.NoError(t, err)
		require.Len(t, got, len(c.Want()))
		results = append(results, got)

		outs, err = c.Run(v)
		require.NoError(t, err)
		again := marshal(t, c.Env(), outs)
		require.Equal(t, len(first), len(again))
		for i := range first {
			require.True(t, bytes.Equal(first[i], again[i]), "%s/%v: second run differs", c.Name, v)
		}
	}
	// Both variants compute the same function.
	for i := 1; i < len(results); i++ {
		require.InDeltaSlice(t, results[0], results[i], 2*tol, "%s: variants disagree", c.Name)
	}
}

func TestWorkloadsInsecure(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, name := range Names {
		env := testEnv(t, presetFor(name, fhetest.InsecureBGVN10, fhetest.InsecureCKKSN10))
		t.Run(name, func(t *testing.T) {
			c, err := New(name, env, rng, false)
			require.NoError(t, err)
			require.True(t, c.Has(Baseline) && c.Has(Fhegate) && c.Has(SameLevel))
			require.Equal(t, 1, c.Batch)
			checkCase(t, c)
			requireSameLevels(t, c)
			if hasPacked(name) {
				pc, err := New(name, env, rng, true)
				require.NoError(t, err)
				require.False(t, pc.Has(Baseline))
				require.False(t, pc.Has(SameLevel))
				require.Greater(t, pc.Batch, 1)
				checkCase(t, pc)
			}
		})
	}
}

// TestWorkloadsRealPreset is the correctness check at the presets the
// benchmark uses (CKKSN13, BGVN13). Key generation at N=2^13 takes a few
// seconds on a shared core, so it is skipped under -short.
func TestWorkloadsRealPreset(t *testing.T) {
	if testing.Short() {
		t.Skip("real presets: slow")
	}
	rng := rand.New(rand.NewPCG(3, 5))
	for _, name := range Names {
		env := testEnv(t, presetFor(name, fhe.BGVN13, fhe.CKKSN13))
		t.Run(name, func(t *testing.T) {
			c, err := New(name, env, rng, false)
			require.NoError(t, err)
			checkCase(t, c)
			if hasPacked(name) {
				pc, err := New(name, env, rng, true)
				require.NoError(t, err)
				checkCase(t, pc)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	ck := testEnv(t, fhetest.InsecureCKKSN10)
	bg := testEnv(t, fhetest.InsecureBGVN10)
	rng := rand.New(rand.NewPCG(1, 1))
	for _, tc := range []struct {
		name   string
		env    *Env
		packed bool
	}{
		{"nope", ck, false},
		{"bgv_dot_128", ck, false},
		{"dot_64", bg, false},
		{"mul_pipeline", ck, true},
		{"square", ck, true},
	} {
		_, err := New(tc.name, tc.env, rng, tc.packed)
		require.Error(t, err, tc.name)
	}
	c, err := New("dense_64x4", ck, rng, true)
	require.NoError(t, err)
	_, err = c.Run(Baseline)
	require.Error(t, err)
	_, err = c.MaxErr(Baseline, nil)
	require.Error(t, err)
}

func TestAtLevelLeavesInputAlone(t *testing.T) {
	env := testEnv(t, fhetest.InsecureCKKSN10)
	ct, err := env.encryptFloats([]float64{0.5, -0.25})
	require.NoError(t, err)
	before := ct.CopyNew()
	v := atLevel(ct, 0)
	require.Equal(t, 0, v.Level())
	require.Equal(t, env.P.MaxLevel(), ct.Level())
	v.Resize(1, 2) // growing the view must not touch ct's rows
	env.CKKS.DropLevel(v, 2)
	require.True(t, ct.Equal(before))
}

// requireSameLevels: the same-level column really runs at fhegate's output
// level, and below the baseline's (the column exists to separate the level
// choice from the algorithms).
func requireSameLevels(t *testing.T, c *Case) {
	t.Helper()
	level := func(v Variant) int {
		outs, err := c.Run(v)
		require.NoError(t, err)
		return outs[0].Level()
	}
	fl, sl, bl := level(Fhegate), level(SameLevel), level(Baseline)
	require.Equal(t, fl, sl, "%s: same-level output level", c.Name)
	require.Less(t, sl, bl, "%s: same-level runs below the baseline's level", c.Name)
}

func TestMeasure(t *testing.T) {
	env := testEnv(t, fhetest.InsecureCKKSN10)
	rng := rand.New(rand.NewPCG(2, 2))
	c, err := New("dot_64", env, rng, false)
	require.NoError(t, err)
	pc, err := New("dot_64", env, rng, true)
	require.NoError(t, err)
	wrapped := 0
	r, err := MeasureWith(c, pc, Options{Runs: 3, PureGo: func(f func() error) error { wrapped++; return f() }})
	require.NoError(t, err)
	require.Equal(t, 4, wrapped, "warm-up + 3 runs of the pure-Go series")
	require.Positive(t, r.SameLevelMS)
	require.Positive(t, r.FhegateGoMS)
	require.NotEmpty(t, r.SameLevelTimed)
	require.Equal(t, "dot_64", r.Name)
	require.Equal(t, 1, r.Threads)
	require.Equal(t, 3, r.Runs)
	require.Positive(t, r.BaselineMS)
	require.Positive(t, r.FhegateMS)
	require.LessOrEqual(t, r.MaxErr, ckksTol)
	require.Equal(t, pc.Batch, r.Batch)
	require.Positive(t, r.AmortizedMS)
	require.Equal(t, 2.0, stats.Median([]float64{3, 1, 2}))
	require.Equal(t, 2.5, stats.Median([]float64{4, 1, 2, 3}))
}
