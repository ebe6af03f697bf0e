// Package committee measures the MPC committee (`fhegate bench committee`):
// an in-process committee of n members (local.Start) talking TLS
// 1.3 over loopback, each with its own bbolt store and share ledger, runs
// its stages on each preset — the DKG, one upload, one verdict end to end
// (with member 1's phases), a batch of requests, a batch of KYC/AML policy
// requests, packed batches of the KYC/AML policy with per-attribute and with
// vector inputs (consensus.Member.ProcessPacked: one evaluation and one
// threshold decryption for the whole batch) and the collective refresh
// (the verified refresh, protocol.Refresh, from the preset's refresh floor to the
// top level) on committees of each --refresh-n size. Every verdict is
// checked against its plaintext reference and every refreshed ciphertext is
// threshold-decrypted and compared with what was encrypted. The members
// share this machine's cores, so times include n-fold CPU contention;
// `fhegate bench committee --help` describes each stage's row.
package committee

import (
	"context"
	"fmt"
	"io"
	"math/big"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bench"
	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/examples"
)

// Row is one measurement of `fhegate bench committee`.
type Row struct {
	Stage        string  `json:"stage"`
	Preset       string  `json:"preset"`
	N            int     `json:"n"`
	T            int     `json:"t"`
	Batch        int     `json:"batch"`
	Ms           float64 `json:"ms"`
	CPUMs        float64 `json:"cpu_ms"` // process user+sys CPU time during the stage (all members)
	VerdictsPerS float64 `json:"verdicts_per_s,omitempty"`
	// CPUMsPerVerdict is cpu_ms / batch for the stages that produce verdicts.
	CPUMsPerVerdict float64 `json:"cpu_ms_per_verdict,omitempty"`
	DecryptLevel    int     `json:"decrypt_level"`
	FloodSigmaLog   float64 `json:"flood_sigma_log2"`
	Note            string  `json:"note,omitempty"`
	// Refresh stage only: runs measured (ms and cpu_ms are their medians),
	// the marshalled refresh share and the bytes each active member sends.
	Runs           int `json:"runs,omitempty"`
	ShareBytes     int `json:"share_bytes,omitempty"`
	BytesPerMember int `json:"bytes_per_member,omitempty"`
	// GOMAXPROCS the packed stages ran with (--procs; 0: the process's).
	GOMAXPROCS int `json:"gomaxprocs,omitempty"`
	// Packed stages only: ParallelEfficiency is cpu_ms / (ms × GOMAXPROCS
	// in effect), the share of the cores the run kept busy; Members are
	// every member's wall time per phase of Member.ProcessPacked.
	ParallelEfficiency float64        `json:"parallel_efficiency,omitempty"`
	Members            []MemberPhases `json:"members,omitempty"`
	bench.Gate                        // NTT gate columns (bench/gate.go)
}

// The stages of `fhegate bench committee`, in the order they run.
const (
	StageDKG      = "dkg"
	StageUpload   = "upload"
	StageVerdict  = "verdict"
	StageBatch    = "batch"
	StageKYCBatch = "kyc-batch"
	StageRefresh  = "refresh"
	StagePacked   = "packed-kyc"
	StageVector   = "packed-kyc-vector"
)

// Stages are the stages of `fhegate bench committee`, in the order they run.
var Stages = []string{StageDKG, StageUpload, StageVerdict, StageBatch, StageKYCBatch, StagePacked, StageVector, StageRefresh}

// Options configure `fhegate bench committee`.
type Options struct {
	Presets  []string
	N, T     int // committee of the dkg … kyc-batch stages
	Batch    int // requests in the batch stage
	KYCBatch int // requests in the kyc-batch stage (0: skip)
	// Packed are the batch sizes of the packed-kyc stage (each capped at the
	// preset's slot count; none: skip).
	Packed []int
	Stages []string // subset of Stages
	// RefreshN are the committee sizes of the refresh stage (t = ⌊n/2⌋+1);
	// RefreshK the refreshes measured per (preset, n).
	RefreshN []int
	RefreshK int
	// GOMAXPROCS is the ladder of the packed stages: each batch runs once
	// per value, on the same committee (empty: once, as the process runs).
	GOMAXPROCS []int
	// PackedProfile, when set, is a file name prefix: each packed batch
	// writes a Go CPU profile of that batch alone (the committee's set-up,
	// DKG and uploads excluded) to PackedProfile-<stage>-<size>-p<GOMAXPROCS>.prof.
	PackedProfile string
	Log           *zap.Logger
}

// Has reports whether stage is selected.
func (o *Options) Has(stage string) bool { return slices.Contains(o.Stages, stage) }

// mainStages reports whether any stage that runs on the (N, T) committee
// after its DKG is selected.
func (o *Options) mainStages() bool {
	return o.Has(StageUpload) || o.Has(StageVerdict) || o.Has(StageBatch) || o.Has(StageKYCBatch) || o.Has(StagePacked) || o.Has(StageVector)
}

// refreshThreshold is the threshold of the refresh stage's committee of n.
func refreshThreshold(n int) int { return n/2 + 1 }

// Validate checks the stages, batch sizes, GOMAXPROCS ladder and refresh
// committees.
func (o *Options) Validate() error {
	for _, s := range o.Stages {
		if !slices.Contains(Stages, s) {
			return fmt.Errorf("unknown stage %q (stages: %s)", s, strings.Join(Stages, ","))
		}
	}
	for _, b := range o.Packed {
		if b < 1 {
			return fmt.Errorf("--packed %d: a batch has at least one request", b)
		}
	}
	for _, g := range o.GOMAXPROCS {
		if g < 1 || g > 4096 {
			return fmt.Errorf("--procs %d: outside [1, 4096]", g)
		}
	}
	for _, n := range o.RefreshN {
		if n < 2 {
			return fmt.Errorf("--refresh-n %d: a committee has at least 2 members", n)
		}
	}
	if o.Has(StageRefresh) && o.RefreshK < 1 {
		return fmt.Errorf("--refresh-k %d: at least one refresh", o.RefreshK)
	}
	return nil
}

// Command is `fhegate bench committee`: the stages of Options under the
// dispatcher Gate installs, with a Go CPU profile of the whole run written
// to CPUProfile. The table goes to Stdout (Stderr when JSONPath is "-"), the
// rows as JSON to JSONPath.
type Command struct {
	Options
	JSONPath, CPUProfile string
	Gate                 bench.Install
	Stdout, Stderr       io.Writer
}

// Run validates the options, measures, prints and writes the rows.
func (c Command) Run(ctx context.Context) error {
	o := c.Options
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	if err := o.Validate(); err != nil {
		return err
	}
	stopGate, err := c.Gate.Start(o.Log)
	if err != nil {
		return err
	}
	defer stopGate()
	stopProfile, err := bench.StartCPUProfile(c.CPUProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	rows, err := Measure(ctx, &o)
	if err != nil {
		return err
	}
	return bench.Report(c.Stdout, c.Stderr, c.JSONPath, o.Log, "committee", rows, func(w io.Writer) { Print(w, rows) })
}

// Print prints the result table (and, when the refresh stage
// ran, its bytes on the wire) and the machine line.
func Print(out io.Writer, rows []Row) {
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "stage\tpreset\tn\tt\tbatch\tGOMAXPROCS\tms\tcpu ms\tverdicts/s\tcpu ms/verdict\tdec level\tlog2 σ\n")
	for _, r := range rows {
		procs := "–"
		if r.GOMAXPROCS > 0 {
			procs = fmt.Sprint(r.GOMAXPROCS)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%.1f\t%.1f\t%.2f\t%.2f\t%d\t%.0f\n", r.Stage, r.Preset, r.N, r.T, r.Batch, procs, r.Ms, r.CPUMs, r.VerdictsPerS, r.CPUMsPerVerdict, r.DecryptLevel, r.FloodSigmaLog)
	}
	tw.Flush()
	var refresh []Row
	for _, r := range rows {
		if r.Stage == StageRefresh {
			refresh = append(refresh, r)
		}
	}
	if len(refresh) > 0 {
		fmt.Fprintln(out)
		fmt.Fprintf(tw, "refresh\tpreset\tn\tt\truns\tmedian ms\tmedian cpu ms\tshare bytes\tbytes/active member\n")
		for _, r := range refresh {
			fmt.Fprintf(tw, "\t%s\t%d\t%d\t%d\t%.1f\t%.1f\t%d\t%d\n", r.Preset, r.N, r.T, r.Runs, r.Ms, r.CPUMs, r.ShareBytes, r.BytesPerMember)
		}
		tw.Flush()
	}
	printLadder(out, rows)
	printCommitteeGate(out, rows)
	fmt.Fprintf(out, "machine: %s/%s, %d CPUs (GOMAXPROCS %d), %s\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version())
}

// Measure runs the selected stages on every preset.
func Measure(ctx context.Context, o *Options) ([]Row, error) {
	var rows []Row
	for _, name := range o.Presets {
		r, err := benchCommitteePreset(ctx, o, name)
		if err != nil {
			return rows, fmt.Errorf("%s: %w", name, err)
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

// benchCommitteePreset runs the stages on one preset: dkg … kyc-batch on the
// (N, T) committee, then the refresh stage on each --refresh-n committee
// (reusing the (N, T) one when it is running anyway).
func benchCommitteePreset(ctx context.Context, o *Options, preset string) ([]Row, error) {
	var rows []Row
	var main *committeeBench
	if o.Has(StageDKG) || o.mainStages() {
		b, row, err := startCommitteeBench(ctx, o, preset, o.N, o.T)
		if err != nil {
			return nil, err
		}
		defer b.close()
		main = b
		rows = append(rows, row)
		for _, st := range []struct {
			name string
			run  func() ([]Row, error)
		}{{StageUpload, b.StageUpload}, {StageVerdict, b.StageVerdict}, {StageBatch, b.StageBatch}, {StageKYCBatch, b.StageKYCBatch}, {StagePacked, b.StagePacked}, {StageVector, b.StageVector}} {
			if !o.Has(st.name) {
				continue
			}
			r, err := gateStage(st.run)
			if err != nil {
				return rows, fmt.Errorf("%s: %w", st.name, err)
			}
			rows = append(rows, r...)
		}
	}
	if !o.Has(StageRefresh) {
		return rows, nil
	}
	for _, n := range o.RefreshN {
		t := refreshThreshold(n)
		b := main
		if b == nil || b.n != n || b.t != t {
			var row Row
			var err error
			if b, row, err = startCommitteeBench(ctx, o, preset, n, t); err != nil {
				return rows, fmt.Errorf("refresh committee n=%d: %w", n, err)
			}
			row.Note += " (refresh stage committee)"
			rows = append(rows, row)
		}
		r, err := b.StageRefresh()
		if b != main {
			b.close()
		}
		if err != nil {
			return rows, fmt.Errorf("refresh n=%d: %w", n, err)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// committeeBench is one running committee and what its stages share.
type committeeBench struct {
	ctx      context.Context
	o        *Options
	log      *zap.Logger
	preset   string
	pr       *fhe.Preset
	n, t     int
	dir      string
	lc       *local.Committee
	circuits *circuit.PolicyCircuits
	m1       *consensus.Member
	p        *fhe.Params
	enc      *fhe.Encryptor
	common   *fhe.Handle // the shared second input of the product-sum requests (upload stage)

	traceMu sync.Mutex
	tracing bool
	phases  map[string]time.Duration // member 1's phases of the verdict stage
	// every member's phases of the packed stages (member → phase → wall)
	memberPhases map[uint32]map[string]time.Duration
}

// startCommitteeBench starts an n-member committee on preset (the dkg stage)
// and returns it with the dkg row.
func startCommitteeBench(ctx context.Context, o *Options, preset string, n, t int) (*committeeBench, Row, error) {
	pr, err := fhe.PresetByName(preset)
	if err != nil {
		return nil, Row{}, err
	}
	dir, err := os.MkdirTemp("", "fhegate-bench-committee-")
	if err != nil {
		return nil, Row{}, err
	}
	b := &committeeBench{ctx: ctx, o: o, log: o.Log, preset: preset, pr: pr, n: n, t: t, dir: dir,
		phases: map[string]time.Duration{}, memberPhases: map[uint32]map[string]time.Duration{}}
	c0 := bench.CPUTime()
	t0 := time.Now()
	b.circuits = circuit.NewPolicyCircuits(pr.ID)
	b.lc, err = local.Start(ctx, local.Options{N: n, T: t, Dir: dir, Preset: preset, RoundTimeout: 120 * time.Second,
		Log: o.Log, Trace: b.trace, Circuits: b.circuits})
	if err != nil {
		os.RemoveAll(dir)
		return nil, Row{}, err
	}
	dkg := time.Since(t0)
	dkgCPU := bench.CPUTime() - c0
	b.m1 = b.lc.Member(1)
	b.p = b.m1.Params()
	b.enc = fhe.NewEncryptor(b.lc.Keys)
	galois := len(b.lc.Config.GaloisElements(b.p))
	b.log.Info("committee dkg done", zap.String("preset", preset), zap.Int("n", n), zap.Duration("took", dkg))
	return b, b.row(StageDKG, 0, dkg, dkgCPU, fmt.Sprintf("pk + rlk + %d galois keys + thresholdisation", galois)), nil
}

func (b *committeeBench) close() {
	b.lc.Close()
	os.RemoveAll(b.dir)
}

func (b *committeeBench) trace(member uint32, _ [32]byte, ph string, d time.Duration) {
	b.traceMu.Lock()
	defer b.traceMu.Unlock()
	if !b.tracing {
		return
	}
	if b.phases == nil {
		b.phases = map[string]time.Duration{}
	}
	if b.memberPhases == nil {
		b.memberPhases = map[uint32]map[string]time.Duration{}
	}
	if member == 1 {
		b.phases[ph] += d
	}
	if b.memberPhases[member] == nil {
		b.memberPhases[member] = map[string]time.Duration{}
	}
	b.memberPhases[member][ph] += d
}

func (b *committeeBench) setTracing(on bool) {
	b.traceMu.Lock()
	b.tracing = on
	b.traceMu.Unlock()
}

func (b *committeeBench) row(stage string, batch int, d, cpu time.Duration, note string) Row {
	plan := b.m1.NoisePlan()
	r := Row{Stage: stage, Preset: b.preset, N: b.n, T: b.t, Batch: batch, Ms: float64(d.Microseconds()) / 1000, CPUMs: float64(cpu.Microseconds()) / 1000,
		DecryptLevel: plan.Level, FloodSigmaLog: plan.SigmaBits, Note: note}
	if stage != StageDKG && stage != StageUpload && stage != StageRefresh && d > 0 {
		r.VerdictsPerS = float64(batch) / d.Seconds()
		if cpu > 0 && batch > 0 {
			r.CPUMsPerVerdict = r.CPUMs / float64(batch)
		}
	}
	return r
}

// upload encrypts v, uploads it through member 1 and returns its handle and
// the upload's wall time.
func (b *committeeBench) upload(v int64) (fhe.Handle, time.Duration, error) {
	return b.uploadAs([]int64{v}, [20]byte{1})
}

// uploadAs encrypts the slot vector vals with a proof for owner, uploads it
// through member 1 and returns its handle and the upload's wall time.
func (b *committeeBench) uploadAs(vals []int64, owner [20]byte) (fhe.Handle, time.Duration, error) {
	raw, proof, err := b.m1.EncryptInput(vals, owner)
	if err != nil {
		return fhe.Handle{}, 0, err
	}
	s := time.Now()
	att, err := b.m1.Upload(b.ctx, raw, proof, owner, 1)
	if err != nil {
		return fhe.Handle{}, 0, err
	}
	return att.Handle, time.Since(s), nil
}

// commonInput uploads the product-sum requests' shared input (3) once.
func (b *committeeBench) commonInput() (fhe.Handle, time.Duration, time.Duration, error) {
	if b.common != nil {
		return *b.common, 0, 0, nil
	}
	c := bench.CPUTime()
	h, d, err := b.upload(3)
	if err != nil {
		return fhe.Handle{}, 0, 0, err
	}
	b.common = &h
	return h, d, bench.CPUTime() - c, nil
}

// StageUpload: one ciphertext uploaded, replicated and attested.
func (b *committeeBench) StageUpload() ([]Row, error) {
	_, d, cpu, err := b.commonInput()
	if err != nil {
		return nil, err
	}
	return []Row{b.row(StageUpload, 1, d, cpu, "validate, store, replicate to n−1, quorum BLS attestation")}, nil
}

// productSumRequests uploads count inputs and returns product-sum requests
// (input × 3) with their plaintext references.
func (b *committeeBench) productSumRequests(tag byte, count int) ([]chainio.Request, []uint64, error) {
	common, _, _, err := b.commonInput()
	if err != nil {
		return nil, nil, err
	}
	tm := int64(b.p.PlaintextModulus())
	reqs := make([]chainio.Request, count)
	want := make([]uint64, count)
	for k := range reqs {
		v := int64(k%200 - 100)
		h, _, err := b.upload(v)
		if err != nil {
			return nil, nil, err
		}
		reqs[k] = chainio.Request{ID: [32]byte{tag, byte(k), byte(k >> 8)}, PolicyID: circuit.PolicyProductSum, Kind: chainio.KindPolicy,
			Inputs: []fhe.Handle{h, common}}
		want[k] = uint64((v*3%tm + tm) % tm)
	}
	return reqs, want, nil
}

// process runs reqs end to end on every member and checks every verdict
// against want; it returns the wall and process CPU time.
func (b *committeeBench) process(reqs []chainio.Request, want []uint64) (time.Duration, time.Duration, error) {
	c := bench.CPUTime()
	var wg sync.WaitGroup
	errs := make([]error, b.n)
	start := time.Now()
	for i := 1; i <= b.n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			vs, es := b.lc.Member(uint32(i)).ProcessBatch(b.ctx, reqs)
			for k := range vs {
				if es[k] != nil {
					errs[i-1] = es[k]
					return
				}
				if vs[k].Result.Cmp(new(big.Int).SetUint64(want[k])) != 0 {
					errs[i-1] = fmt.Errorf("request %d: verdict %s, plaintext reference %d", k, vs[k].Result, want[k])
					return
				}
			}
		}(i)
	}
	wg.Wait()
	d := time.Since(start)
	cpu := bench.CPUTime() - c
	for _, e := range errs {
		if e != nil {
			return d, cpu, e
		}
	}
	return d, cpu, nil
}

// StageVerdict: one request end to end, with member 1's phases.
func (b *committeeBench) StageVerdict() ([]Row, error) {
	reqs, want, err := b.productSumRequests(1, 1)
	if err != nil {
		return nil, err
	}
	b.setTracing(true)
	d, cpu, err := b.process(reqs, want)
	b.setTracing(false)
	if err != nil {
		return nil, err
	}
	rows := []Row{b.row(StageVerdict, 1, d, cpu, "evaluate + digest agreement + masked threshold decryption + BLS aggregate, all members")}
	for _, ph := range []string{"eval", "digest", "mask", "decrypt", "sign"} {
		if dd, ok := b.phases[ph]; ok {
			r := b.row(StageVerdict+"/"+ph, 1, dd, 0, "member 1's share of the verdict stage")
			r.VerdictsPerS = 0
			rows = append(rows, r)
		}
	}
	b.log.Info("committee verdict done", zap.Duration("took", d))
	return rows, nil
}

// StageBatch: --batch product-sum requests end to end.
func (b *committeeBench) StageBatch() ([]Row, error) {
	reqs, want, err := b.productSumRequests(2, b.o.Batch)
	if err != nil {
		return nil, err
	}
	d, cpu, err := b.process(reqs, want)
	if err != nil {
		return nil, err
	}
	b.log.Info("committee batch done", zap.Duration("took", d))
	return []Row{b.row(StageBatch, b.o.Batch, d, cpu, "requests end to end on all members, 8 in flight per member")}, nil
}

// StageKYCBatch: the KYC/AML policy (policy/examples/kyc_aml.yaml, 8
// encrypted attributes) compiled for the preset and evaluated with
// policy/eval; on BGVN13 the plan is deeper than the preset, so every
// request also runs collective refreshes. Inputs: two uploaded ciphertexts
// per attribute, request k takes bit j of k to choose attribute j's.
func (b *committeeBench) StageKYCBatch() ([]Row, error) {
	if b.o.KYCBatch <= 0 {
		return nil, nil
	}
	spec, err := examples.Get("kyc_aml")
	if err != nil {
		return nil, err
	}
	kycID := [32]byte{0xc0, 0x01}
	if err := b.circuits.Register(kycID, spec); err != nil {
		b.log.Warn("kyc-aml policy does not compile for this preset: stage skipped", zap.String("preset", b.preset), zap.Error(err))
		return nil, nil
	}
	kplan, err := policy.CompileWith(spec, circuit.PolicyOptions(b.pr.ID))
	if err != nil {
		return nil, err
	}
	vals := [8][2]int64{{17, 40}, {7, 12}, {0, 1}, {0, 3}, {3, 15}, {1, 7}, {2, 15}, {0, 3}}
	var pool [8][2]fhe.Handle
	for j := range vals {
		for v := range vals[j] {
			if pool[j][v], _, err = b.upload(vals[j][v]); err != nil {
				return nil, err
			}
		}
	}
	tm := int64(b.p.PlaintextModulus())
	reqs := make([]chainio.Request, b.o.KYCBatch)
	want := make([]uint64, b.o.KYCBatch)
	for k := range reqs {
		hs := make([]fhe.Handle, 8)
		col := make([][]int64, 8)
		for j := range hs {
			bit := (k >> uint(j)) & 1
			hs[j] = pool[j][bit]
			col[j] = []int64{vals[j][bit]}
		}
		ref, err := kplan.EvalPlain(col)
		if err != nil {
			return nil, err
		}
		reqs[k] = chainio.Request{ID: [32]byte{3, byte(k), byte(k >> 8)}, PolicyID: kycID, Kind: chainio.KindPolicy, Inputs: hs}
		want[k] = uint64((ref[0]%tm + tm) % tm)
	}
	d, cpu, err := b.process(reqs, want)
	if err != nil {
		return nil, err
	}
	b.log.Info("committee kyc batch done", zap.Duration("took", d))
	note := fmt.Sprintf("KYC/AML policy (8 inputs, plan depth %d, refresh=%v), all members", kplan.UnrefreshedDepth, kplan.NeedsRefresh)
	return []Row{b.row(StageKYCBatch, b.o.KYCBatch, d, cpu, note)}, nil
}

// StageRefresh: --refresh-k verified collective refreshes
// (local.Committee.Refresh: every member contributes) of fresh ciphertexts at
// the preset's refresh floor (the lowest level a compiled plan refreshes
// at) back to the top level; ms and cpu_ms are the medians. Each
// refreshed ciphertext is threshold-decrypted and compared with the
// encrypted vector, and the members' ledgers must have issued a share
// bundle each and t masks per refresh. Bytes: a masking member sends its
// mask and share bundle (share_bytes, protocol.RefreshBytes) to the n−1
// others.
func (b *committeeBench) StageRefresh() (Row, error) {
	ev, err := b.lc.Evaluator()
	if err != nil {
		return Row{}, err
	}
	floor, err := noise.RefreshFloorLevel(b.p, 0, 0)
	if err != nil {
		return Row{}, err
	}
	k := b.o.RefreshK
	walls := make([]time.Duration, 0, k)
	cpus := make([]time.Duration, 0, k)
	shareBytes := 0
	for run := range k {
		want := refreshVector(b.p, run)
		ct, err := b.enc.EncryptInts(want)
		if err != nil {
			return Row{}, err
		}
		if ct, err = ev.DropLevels(ct, ct.Level()-floor); err != nil {
			return Row{}, err
		}
		mask, shares, err := protocol.RefreshBytes(b.p, ct.Level(), b.n, b.t)
		if err != nil {
			return Row{}, err
		}
		shareBytes = mask + shares
		issued0, refreshes0 := b.ledgerCounts()
		c := bench.CPUTime()
		s := time.Now()
		out, err := b.lc.Refresh(b.ctx, ct)
		d, cpu := time.Since(s), bench.CPUTime()-c
		if err != nil {
			return Row{}, err
		}
		issued1, refreshes1 := b.ledgerCounts()
		// every member contributes a share bundle, the first t a mask too
		// (ledger entries), and every member completes the refresh
		if issued1-issued0 != b.n+b.t || refreshes1-refreshes0 != uint64(b.n) {
			return Row{}, fmt.Errorf("refresh %d: %d ledger entries (want n+t=%d), %d member refreshes (want n=%d)", run, issued1-issued0, b.n+b.t, refreshes1-refreshes0, b.n)
		}
		if err := b.checkRefreshed(out, want); err != nil {
			return Row{}, fmt.Errorf("refresh %d: %w", run, err)
		}
		walls = append(walls, d)
		cpus = append(cpus, cpu)
	}
	r := b.row(StageRefresh, 1, bench.MedianDuration(walls), bench.MedianDuration(cpus),
		fmt.Sprintf("level %d (refresh floor) → %d, verified: all %d members contribute C(n−1, t−1) subset shares, the first t=%d a proven mask too, masks from each member's pool, made ahead (their CPU counted); median of %d (wall %s … %s); share_bytes = one contributor's mask and share bundle, bytes_per_member = (n−1) × share_bytes",
			floor, b.p.MaxLevel(), b.n, b.t, k, slices.Min(walls).Round(time.Millisecond), slices.Max(walls).Round(time.Millisecond)))
	r.Runs, r.ShareBytes, r.BytesPerMember = k, shareBytes, (b.n-1)*shareBytes
	b.log.Info("committee refresh done", zap.String("preset", b.preset), zap.Int("n", b.n), zap.Float64("median_ms", r.Ms))
	return r, nil
}

// ledgerCounts sums the shares issued and the refreshes completed over the
// live members.
func (b *committeeBench) ledgerCounts() (issued int, refreshes uint64) {
	for i := 1; i <= b.n; i++ {
		if m := b.lc.Member(uint32(i)); m != nil {
			s := m.Status()
			issued += s.SharesIssued
			refreshes += s.Refreshes
		}
	}
	return issued, refreshes
}

// checkRefreshed checks that out is at the top level and threshold-decrypts
// (every slot) to want.
func (b *committeeBench) checkRefreshed(out *fhe.Ciphertext, want []int64) error {
	if out.Level() != b.p.MaxLevel() {
		return fmt.Errorf("refreshed ciphertext at level %d, want %d", out.Level(), b.p.MaxLevel())
	}
	got, err := b.lc.DecryptSlots(b.ctx, out)
	if err != nil {
		return err
	}
	if len(got) < len(want) {
		return fmt.Errorf("decrypted %d slots, encrypted %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i] != uint64(w) {
			return fmt.Errorf("slot %d decrypts to %d after the refresh, encrypted %d", i, got[i], w)
		}
	}
	return nil
}

// refreshVector is the plaintext of refresh run `run`: every slot set,
// values in [0, t) that differ between runs.
func refreshVector(p *fhe.Params, run int) []int64 {
	tm := int64(p.PlaintextModulus())
	v := make([]int64, p.Slots())
	for i := range v {
		v[i] = (int64(i)*7919 + int64(run)*104729 + 1) % tm
	}
	return v
}

// gateStage runs one `bench committee` stage with the gate's counters reset
// before and stamped on each of its rows after. baseline_go_ms: where no
// transform was routed, the stage itself ran every transform on Lattigo's
// Go NTT, so it is the stage's own time; where some were, it stays 0 — a
// stage cannot be replayed in the same process (its request ids are spent,
// and a member issues at most one decryption share per ciphertext), so the
// pure-Go figure is a second run with --gpu-backend cpu.
func gateStage(run func() ([]Row, error)) ([]Row, error) {
	var rows []Row
	g, err := bench.GateOf(func() (err error) {
		rows, err = run()
		return err
	})
	for i := range rows {
		rows[i].Gate = g
		if g.Routed == 0 {
			rows[i].BaselineGoMs = rows[i].Ms
		}
	}
	return rows, err
}

// printCommitteeGate prints the gate line of every stage row that carries
// counters.
func printCommitteeGate(out io.Writer, rows []Row) {
	fmt.Fprintln(out, "NTT gate per stage (counters over all members):")
	for _, r := range rows {
		if r.Backend == "" || strings.Contains(r.Stage, "/") {
			continue
		}
		bench.PrintGateLine(out, r.Stage+" "+r.Preset, r.Gate, r.Ms)
	}
}
