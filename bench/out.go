package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/internal/stats"
)

// Install installs the NTT dispatcher a bench runs under (the CLI's
// --gpu-backend / --gpu-table) and returns the function that removes it.
type Install func(log *zap.Logger) (stop func(), err error)

// Start installs the dispatcher and returns the function that removes it;
// a nil Install installs nothing (every transform stays on Lattigo's Go NTT
// and the gate columns read backend "none").
func (in Install) Start(log *zap.Logger) (stop func(), err error) {
	if in == nil {
		return func() {}, nil
	}
	return in(log)
}

// Report prints a bench's table with print — to stdout, or to stderr when
// the JSON goes to stdout (jsonPath "-") — and writes rows as JSON to
// jsonPath (nothing when it is empty), logging the file as "wrote <what>
// results".
func Report(stdout, stderr io.Writer, jsonPath string, log *zap.Logger, what string, rows any, print func(io.Writer)) error {
	print(TableOut(stdout, stderr, jsonPath))
	if jsonPath == "" {
		return nil
	}
	if err := WriteJSON(stdout, jsonPath, rows); err != nil {
		return err
	}
	if log != nil {
		log.Info("wrote "+what+" results", zap.String("file", jsonPath))
	}
	return nil
}

// CPUTime is this process's user + system CPU time (0 where the platform
// does not report it).
func CPUTime() time.Duration {
	d, _ := ProcessCPU()
	return d
}

// MedianDuration is the median of ds (the mean of the middle two for an
// even count; stats.Median).
func MedianDuration(ds []time.Duration) time.Duration { return stats.Median(ds) }

// WriteJSON writes v as indented JSON to path ("-" is stdout, the command's
// output writer).
func WriteJSON(stdout io.Writer, path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if path == "-" {
		_, err = stdout.Write(b)
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// TableOut is where a bench prints its table: stdout, or stderr when the
// JSON goes to stdout (--json -), so that stdout stays machine-readable.
func TableOut(stdout, stderr io.Writer, jsonPath string) io.Writer {
	if jsonPath == "-" {
		return stderr
	}
	return stdout
}

// StartCPUProfile starts a Go CPU profile written to path (--cpuprofile) and
// returns the function that stops it; an empty path profiles nothing.
func StartCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// Round2 rounds v to two decimals (half up), as the JSON rows print
// milliseconds.
func Round2(v float64) float64 { return float64(int64(v*100+0.5)) / 100 }
