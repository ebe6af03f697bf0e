package gpu

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"

	"go.uber.org/zap"
)

// TableVersion is the crossover table schema version this build writes:
// version 2 keys entries by shape (N, moduli, direction). Version 1 tables
// (one entry per N, any moduli, any direction) are still read.
const TableVersion = 2

// minTableVersion is the oldest schema this build reads.
const minTableVersion = 1

// Table is the crossover table (configs/crossover.json): measured on one
// device, it says from which batch size B (polynomials per modulus) the
// accelerator beats the CPU, per shape (N, number of moduli, direction) —
// the shapes fhegate's engine hands over in one multi-modulus batch.
type Table struct {
	Version     int         `json:"version"`
	Fingerprint Fingerprint `json:"fingerprint"`
	// Created is an RFC 3339 time stamp and Command the command line that
	// produced the table (documentation only; never read by routing).
	Created string  `json:"created,omitempty"`
	Command string  `json:"command,omitempty"`
	Note    string  `json:"note,omitempty"`
	Entries []Entry `json:"entries"`
}

// Fingerprint identifies the machine a table was measured on.
type Fingerprint struct {
	Backend string `json:"backend"`
	Device  string `json:"device"`
	Driver  string `json:"driver"`
	HostCPU string `json:"host_cpu"`
}

// FingerprintOf returns the fingerprint of a backend on this host.
func FingerprintOf(b Backend) Fingerprint {
	i := b.Info()
	return Fingerprint{Backend: b.Name(), Device: i.Device, Driver: i.Driver, HostCPU: HostCPU()}
}

// Entry is the measurement for one shape: ring degree N = 2^LogN, Moduli
// limbs per batch (0: any — version 1 tables) and direction Dir ("forward",
// "inverse", or "": any).
type Entry struct {
	LogN   int    `json:"log_n"`
	Moduli int    `json:"moduli,omitempty"`
	Dir    string `json:"dir,omitempty"`
	// Crossover is the smallest B from which the accelerator was faster at
	// every measured B' ≥ B; nil means never (route everything to the CPU).
	Crossover *int   `json:"crossover"`
	Ladder    []Cell `json:"ladder"`
}

// Cell is one measured batch size: best-of-k wall time of one batch of B
// polynomials per modulus × the entry's moduli, in the entry's direction.
type Cell struct {
	B       int     `json:"b"`
	CPUNs   float64 `json:"cpu_ns"`
	AccelNs float64 `json:"accel_ns,omitempty"`
	// Speedup is CPUNs/AccelNs (>1: accelerator faster); 0 if not measured.
	Speedup float64 `json:"speedup,omitempty"`
	// Paired is the median over the cell's interleaved rounds of cpu/accel
	// in the same round (robust to a burst of load that slows one side's
	// rounds together); 0 in tables from before it was recorded.
	Paired float64 `json:"paired_speedup,omitempty"`
}

// Errors of table loading.
var (
	ErrTableMissing = errors.New("gpu: crossover table missing")
	ErrTableInvalid = errors.New("gpu: crossover table invalid")
)

// ParseTable decodes and validates a table. Unknown fields are rejected so a
// typo cannot silently disable a threshold.
func ParseTable(data []byte) (*Table, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var t Table
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTableInvalid, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: trailing data", ErrTableInvalid)
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return &t, nil
}

// Validate checks the schema invariants.
func (t *Table) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrTableInvalid}, a...)...)
	}
	if t.Version < minTableVersion || t.Version > TableVersion {
		return bad("version %d, this build reads %d…%d", t.Version, minTableVersion, TableVersion)
	}
	if t.Fingerprint.Backend == "" && len(t.Entries) > 0 {
		return bad("entries without a fingerprint backend")
	}
	prev := [3]int{}
	for i, e := range t.Entries {
		if e.LogN < 4 || e.LogN > MaxLogN {
			return bad("entry %d: log_n %d out of [4, %d]", i, e.LogN, MaxLogN)
		}
		if e.Moduli < 0 || e.Moduli > MaxModuli {
			return bad("entry %d: moduli %d out of [0, %d]", i, e.Moduli, MaxModuli)
		}
		dr, ok := dirRank[e.Dir]
		if !ok {
			return bad("entry %d: dir %q (want forward, inverse or empty)", i, e.Dir)
		}
		if t.Version == 1 && (e.Moduli != 0 || e.Dir != "") {
			return bad("entry %d: moduli/dir need version 2", i)
		}
		key := [3]int{e.LogN, e.Moduli, dr}
		if i > 0 && !lessKey(prev, key) {
			return bad("entry %d: (log_n, moduli, dir) = (%d, %d, %q) not strictly increasing", i, e.LogN, e.Moduli, e.Dir)
		}
		prev = key
		if e.Crossover != nil && (*e.Crossover < 1 || *e.Crossover > 1<<20) {
			return bad("log_n %d: crossover %d out of [1, 2^20]", e.LogN, *e.Crossover)
		}
		pb := 0
		for _, c := range e.Ladder {
			if c.B <= pb {
				return bad("log_n %d: ladder B=%d not strictly increasing", e.LogN, c.B)
			}
			pb = c.B
			for _, v := range []float64{c.CPUNs, c.AccelNs, c.Speedup, c.Paired} {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					return bad("log_n %d B=%d: bad number %v", e.LogN, c.B, v)
				}
			}
			if c.CPUNs > 0 && c.AccelNs > 0 && math.Abs(c.Speedup-c.CPUNs/c.AccelNs) > 1e-3*c.Speedup+1e-9 {
				return bad("log_n %d B=%d: speedup %v ≠ cpu/accel %v", e.LogN, c.B, c.Speedup, c.CPUNs/c.AccelNs)
			}
		}
	}
	return nil
}

var dirRank = map[string]int{"": 0, "forward": 1, "inverse": 2}

func lessKey(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// Crossover returns the routing threshold of the first entry for ring
// degree n (a version 1 table's only one): batches of at least B go to the
// accelerator. ok is false when that entry has no crossover (CPU only).
// Routing uses Route, which also matches moduli and direction.
func (t *Table) Crossover(n int) (b int, ok bool) {
	if t == nil {
		return 0, false
	}
	logN := 0
	for m := n; m > 1; m >>= 1 {
		logN++
	}
	i := sort.Search(len(t.Entries), func(i int) bool { return t.Entries[i].LogN >= logN })
	if i == len(t.Entries) || t.Entries[i].LogN != logN || t.Entries[i].Crossover == nil {
		return 0, false
	}
	return *t.Entries[i].Crossover, true
}

// EntryFor returns the entry that governs shape s, or nil: among the
// entries of s's N whose direction is s.Dir or any, the one whose moduli
// count is nearest s.Moduli (an entry for any moduli counts as farthest;
// ties go to the direction-specific entry, then to fewer moduli).
func (t *Table) EntryFor(s Shape) *Entry {
	if t == nil {
		return nil
	}
	var best *Entry
	bestScore := 0
	for i := range t.Entries {
		e := &t.Entries[i]
		if e.LogN != s.LogN || (e.Dir != "" && e.Dir != s.Dir.String()) {
			continue
		}
		dist := MaxModuli + 1
		if e.Moduli > 0 {
			dist = e.Moduli - s.Moduli
			if dist < 0 {
				dist = -dist
			}
		}
		score := 2 * dist
		if e.Dir == "" {
			score++
		}
		if best == nil || score < bestScore {
			best, bestScore = e, score
		}
	}
	return best
}

// Route returns the routing threshold for shape s (EntryFor's crossover):
// a batch of that shape with s.B ≥ the threshold goes to the accelerator.
// ok is false when no entry governs s or it has no crossover (CPU only).
func (t *Table) Route(s Shape) (b int, ok bool) {
	e := t.EntryFor(s)
	if e == nil || e.Crossover == nil {
		return 0, false
	}
	return *e.Crossover, true
}

// HasCrossover reports whether any shape routes to the accelerator.
func (t *Table) HasCrossover() bool {
	if t == nil {
		return false
	}
	for _, e := range t.Entries {
		if e.Crossover != nil {
			return true
		}
	}
	return false
}

// Marshal encodes t as indented JSON (stable field order).
func (t *Table) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// MinSpeedup is the margin DeriveCrossover asks of the accelerator: a cell
// counts as a win only if cpu/accel ≥ MinSpeedup by the fastest calls and,
// where recorded, by the paired median (Cell.Paired). Cells within a few
// per cent are noise on a loaded machine, and routing them buys nothing.
const MinSpeedup = 1.05

// DeriveCrossover picks the threshold from a ladder: the smallest measured B
// such that the accelerator was at least MinSpeedup× faster at B and at
// every larger measured B. Cells without an accelerator time break the
// chain.
func DeriveCrossover(ladder []Cell) *int {
	var best *int
	for i := len(ladder) - 1; i >= 0; i-- {
		c := ladder[i]
		if c.AccelNs <= 0 || c.CPUNs <= 0 || c.CPUNs < MinSpeedup*c.AccelNs || (c.Paired > 0 && c.Paired < MinSpeedup) {
			break
		}
		b := c.B
		best = &b
	}
	return best
}

// TableSource says where LoadTable found the table.
const (
	SourceEmbedded = "embedded:configs/crossover.json"
)

// LoadTable loads the crossover table from path, or the embedded default
// (configs.CrossoverJSON(), passed in by the caller so that this package does
// not depend on configs) when path is empty. A missing or invalid table is
// not fatal: it returns (nil, source, err) and logs exactly one warning, and
// the caller runs CPU only.
func LoadTable(path string, embedded []byte, log *zap.Logger) (*Table, string, error) {
	if log == nil {
		log = zap.NewNop()
	}
	src := SourceEmbedded
	data := embedded
	if path != "" {
		src = path
		b, err := os.ReadFile(path)
		if err != nil {
			err = fmt.Errorf("%w: %v", ErrTableMissing, err)
			log.Warn("gpu: no crossover table; accelerators stay off (CPU only)", zap.String("source", src), zap.Error(err))
			return nil, src, err
		}
		data = b
	}
	if len(data) == 0 {
		err := fmt.Errorf("%w: empty", ErrTableMissing)
		log.Warn("gpu: no crossover table; accelerators stay off (CPU only)", zap.String("source", src), zap.Error(err))
		return nil, src, err
	}
	t, err := ParseTable(data)
	if err != nil {
		log.Warn("gpu: invalid crossover table; accelerators stay off (CPU only)", zap.String("source", src), zap.Error(err))
		return nil, src, err
	}
	return t, src, nil
}
