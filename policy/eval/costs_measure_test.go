package eval_test

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/policy"
)

// measureCommand regenerates policy/costs.json (single-threaded, ~2 min).
const measureCommand = "FHEGATE_MEASURE_COSTS=1 GOMAXPROCS=1 go test ./policy/eval -run TestMeasureCosts -count=1 -v -timeout 30m"

// TestMeasureCosts is not a check but the generator of policy/costs.json:
// it measures the per-operation CPU costs of the public presets and
// rewrites that file. A plain `go test` skips it; it runs only with
// FHEGATE_MEASURE_COSTS=1. To regenerate the table, on an otherwise idle
// machine, from the repository root:
//
//	FHEGATE_MEASURE_COSTS=1 GOMAXPROCS=1 go test ./policy/eval -run TestMeasureCosts -count=1 -v -timeout 30m
//
// (the command is recorded in the file's "command" field; see
// docs/gas-policy.md). The version goes up by one; commit the new file.
func TestMeasureCosts(t *testing.T) {
	if os.Getenv("FHEGATE_MEASURE_COSTS") != "1" {
		t.Skip("set FHEGATE_MEASURE_COSTS=1 to re-measure policy/costs.json (" + measureCommand + ")")
	}
	table := policy.Costs()
	table.Version++
	table.Command = measureCommand
	table.Machine = machine()
	table.Date = time.Now().UTC().Format(time.RFC3339)
	table.Presets = nil
	for _, pi := range policy.Presets {
		row := measurePreset(t, pi)
		t.Logf("%s: %+v", pi.Name, row)
		table.Presets = append(table.Presets, row)
	}
	out, err := json.MarshalIndent(table, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile("../costs.json", append(out, '\n'), 0o644))
}

// measurePreset measures one preset's row: fresh keys (relinearisation and
// rotation by 1), two encryptions of the same random vector, then each
// operation and the polynomial evaluations of degree 2^1 … 2^Depth.
func measurePreset(t *testing.T, pi policy.PresetInfo) policy.OpCosts {
	p, err := fhe.NewParams(fhe.PresetID(pi.ID))
	require.NoError(t, err)
	keys := fhe.GenKeys(p, []int{1})
	ev, err := fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: keys.Relin, Galois: keys.Galois})
	require.NoError(t, err)
	enc := fhe.NewEncryptor(keys.Public)
	r := rand.New(rand.NewPCG(7, 7))
	vals := make([]int64, p.Slots())
	for i := range vals {
		vals[i] = r.Int64N(128)
	}
	a, err := enc.EncryptInts(vals)
	require.NoError(t, err)
	b, err := enc.EncryptInts(vals)
	require.NoError(t, err)
	us := func(f func() (*fhe.Ciphertext, error)) float64 { return cpuMicros(t, f) }

	row := policy.OpCosts{Preset: pi.ID, Name: pi.Name}
	row.AddUS = us(func() (*fhe.Ciphertext, error) { return ev.Add(a, b) })
	seventeen := filled(p.Slots(), 17)
	row.AddConstUS = us(func() (*fhe.Ciphertext, error) { return ev.AddInts(a, seventeen) })
	row.MulConstUS = us(func() (*fhe.Ciphertext, error) { return ev.MulConst(a, 17) })
	row.MulUS = us(func() (*fhe.Ciphertext, error) { return ev.Mul(a, b) })
	ones := filled(p.Slots(), 1)
	row.MulPlainUS = us(func() (*fhe.Ciphertext, error) { return ev.MulInts(a, ones) })
	row.RotateUS = us(func() (*fhe.Ciphertext, error) { return ev.Rotate(a, 1) })
	for k := 1; k <= pi.Depth; k++ {
		coeffs := make([]int64, 1<<k)
		for i := range coeffs {
			coeffs[i] = r.Int64N(policy.PlaintextModulus)
		}
		row.PolyUS = append(row.PolyUS, us(func() (*fhe.Ciphertext, error) { return ev.EvalPolyInts(a, coeffs) }))
	}
	for _, v := range []*float64{&row.AddUS, &row.AddConstUS, &row.MulConstUS, &row.MulUS, &row.MulPlainUS, &row.RotateUS} {
		*v = round1(*v)
	}
	for i := range row.PolyUS {
		row.PolyUS[i] = round1(row.PolyUS[i])
	}
	return row
}

// filled is n copies of v.
func filled(n int, v int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// cpuMicros is the CPU time per call of f (getrusage: robust on a shared,
// overloaded machine where wall time is not), best of 3 trials of at least
// 200 ms and 2 calls each, after one warm-up call, in µs.
func cpuMicros(t *testing.T, f func() (*fhe.Ciphertext, error)) float64 {
	call := func() {
		_, err := f()
		require.NoError(t, err)
	}
	call() // warm-up
	best := 0.0
	for k := 0; k < 3; k++ {
		n, start := 0, cpuNow()
		for n < 2 || cpuNow()-start < 200*time.Millisecond {
			call()
			n++
		}
		v := float64(cpuNow()-start) / float64(n) / 1e3
		if k == 0 || v < best {
			best = v
		}
	}
	return best
}

// cpuNow is the process's user+system CPU time.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func round1(v float64) float64 { return float64(int64(v*10+0.5)) / 10 }

func machine() string {
	cpu := runtime.GOARCH
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "model name") {
				cpu = strings.TrimSpace(strings.SplitN(line, ":", 2)[1])
				break
			}
		}
	}
	return cpu + ", " + runtime.GOOS + "/" + runtime.GOARCH + ", " + strconv.Itoa(runtime.NumCPU()) + " CPUs (shared), GOMAXPROCS=" + strconv.Itoa(runtime.GOMAXPROCS(0)) + ", " + runtime.Version()
}
