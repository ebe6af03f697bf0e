package backends

import (
	"errors"
	"fmt"
	"os"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/metal"
	"github.com/fhegate/fhegate/gpu/native"
	"github.com/fhegate/fhegate/gpu/opencl"
)

// Names lists every backend fhegate knows, accelerators in preference order.
var Names = []string{gpu.CPUName, metal.Name, opencl.Name, native.Name}

// Built reports whether a backend is compiled into this binary.
func Built(name string) bool {
	switch name {
	case gpu.CPUName:
		return true
	case opencl.Name:
		return opencl.Built
	case metal.Name:
		return metal.Built
	case native.Name:
		return native.Built
	}
	return false
}

// Open opens a backend by name.
func Open(name string) (gpu.Backend, error) {
	switch name {
	case gpu.CPUName:
		return gpu.NewCPU(), nil
	case opencl.Name:
		return opencl.New()
	case metal.Name:
		return metal.New()
	case native.Name:
		return native.New()
	}
	return nil, fmt.Errorf("gpu: unknown backend %q (known: %v)", name, Names)
}

// Probe is what Open found for one backend.
type Probe struct {
	Name    string
	Built   bool
	Backend gpu.Backend // nil if unavailable
	Err     error
}

// ProbeAll opens every backend; the caller closes the opened ones.
func ProbeAll() []Probe {
	out := make([]Probe, 0, len(Names))
	for _, n := range Names {
		b, err := Open(n)
		out = append(out, Probe{Name: n, Built: Built(n), Backend: b, Err: err})
	}
	return out
}

// OpenAccelerator opens the accelerator named want, or with want == "" the
// first available one (metal, then opencl, then native). It returns (nil, reason) when
// there is none; want == "cpu" means none on purpose.
func OpenAccelerator(want string) (gpu.Backend, error) {
	if want == gpu.CPUName {
		return nil, errors.New("cpu backend selected: no accelerator")
	}
	if want != "" {
		return Open(want)
	}
	var errs []error
	for _, n := range Names[1:] {
		b, err := Open(n)
		if err == nil {
			return b, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("no accelerator available: %w", errors.Join(errs...))
}

// Config selects the dispatcher's inputs.
type Config struct {
	Log *zap.Logger
	// Backend names the accelerator ("" = the table's backend if built, else the first available; "cpu" = none).
	Backend string
	// TablePath is the crossover table file ("" = Embedded).
	TablePath string
	// Embedded is the built-in table (configs.CrossoverJSON()).
	Embedded []byte
	// ForceThreshold, if > 0, routes every batch of that size or more to the accelerator (tests, calibration).
	ForceThreshold int
}

// NewDispatcher loads the table, opens and self-tests the accelerator and
// returns a dispatcher (not installed) plus the accelerator to Close at exit
// (nil if none). Problems degrade to CPU only with one warning; they are
// never fatal.
func NewDispatcher(c Config) (*gpu.Dispatcher, gpu.Backend) {
	log := c.Log
	if log == nil {
		log = zap.NewNop()
	}
	tab, src, _ := gpu.LoadTable(c.TablePath, c.Embedded, log)
	want := c.Backend
	if want == "" && tab != nil && tab.HasCrossover() && Built(tab.Fingerprint.Backend) {
		want = tab.Fingerprint.Backend
	}
	acc, err := OpenAccelerator(want)
	if err != nil {
		log.Info("gpu: CPU only", zap.String("why", err.Error()))
		acc = nil
	}
	// FHEGATE_GPU_QUEUE=1: calls wait for a busy exclusive device instead
	// of running on the CPU (gpu.Options.Queue), for comparisons
	d := gpu.NewDispatcher(gpu.Options{Log: log, Accelerator: acc, Table: tab, TableSource: src, ForceThreshold: c.ForceThreshold,
		Queue: os.Getenv("FHEGATE_GPU_QUEUE") == "1"})
	return d, acc
}

// Install builds the dispatcher (NewDispatcher) and installs it as the
// router of fhegate's engine (engine.SetRouter). The returned stop function uninstalls it and closes
// the accelerator; call it once, at shutdown. Use it from a process's main
// (VM plugin, committee server), before any FHE work starts.
func Install(c Config) (*gpu.Dispatcher, func(), error) {
	d, acc := NewDispatcher(c)
	if err := d.Install(); err != nil {
		if acc != nil {
			_ = acc.Close()
		}
		return nil, nil, err
	}
	stop := func() {
		d.Uninstall()
		if acc != nil {
			_ = acc.Close()
		}
	}
	return d, stop, nil
}
