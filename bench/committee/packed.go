package committee

import (
	"fmt"
	"math/big"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bench"
	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/examples"
)

// packedPhases are the phases of Member.ProcessPacked reported per batch.
var packedPhases = []string{"pack", "pack-refresh", "eval", "digest", "refresh", "mask", "decrypt", "sign"}

// kycPool is the packed stage's inputs: two proof-checked uploads per KYC/AML
// attribute, each encrypting its value in every slot (as clients encrypt
// packed inputs), with the plaintext values.
type kycPool struct {
	vals    [8][2]int64
	handles [8][2]fhe.Handle
}

// uploadReplicated encrypts v in every slot with a proof and uploads it
// through member 1.
func (b *committeeBench) uploadReplicated(v int64) (fhe.Handle, error) {
	return b.uploadSlots(api.ReplicatedInts(b.p, v))
}

// uploadSlots encrypts the slot vector vals with a proof and uploads it
// through member 1.
func (b *committeeBench) uploadSlots(vals []int64) (fhe.Handle, error) {
	h, _, err := b.uploadAs(vals, [20]byte{2})
	return h, err
}

// kycPoolValues are the two values per KYC/AML attribute the packed stages
// draw requests from.
var kycPoolValues = [8][2]int64{{17, 40}, {7, 12}, {0, 1}, {0, 3}, {3, 15}, {1, 7}, {2, 15}, {0, 3}}

// kycPolicy registers the KYC/AML policy with the bench's circuits and
// compiles its plan; ok is false (and the stage skipped) where it does not
// compile for the preset.
func (b *committeeBench) kycPolicy(stage string) (kycID [32]byte, kplan *policy.Plan, ok bool, err error) {
	spec, err := examples.Get("kyc_aml")
	if err != nil {
		return kycID, nil, false, err
	}
	kycID = [32]byte{0xc0, 0x02}
	if err := b.circuits.Register(kycID, spec); err != nil {
		b.log.Warn("kyc-aml policy does not compile for this preset: stage skipped", zap.String("stage", stage), zap.String("preset", b.preset), zap.Error(err))
		return kycID, nil, false, nil
	}
	kplan, err = policy.CompileWith(spec, circuit.PolicyOptions(b.pr.ID))
	return kycID, kplan, err == nil, err
}

// StagePacked: the KYC/AML policy on packed batches of each --packed size.
func (b *committeeBench) StagePacked() ([]Row, error) {
	if len(b.o.Packed) == 0 {
		return nil, nil
	}
	kycID, kplan, ok, err := b.kycPolicy(StagePacked)
	if !ok {
		return nil, err
	}
	pool := kycPool{vals: kycPoolValues}
	for j := range pool.vals {
		for v := range pool.vals[j] {
			if pool.handles[j][v], err = b.uploadReplicated(pool.vals[j][v]); err != nil {
				return nil, err
			}
		}
	}
	return b.runPackedSizes(StagePacked, kplan, func(tag, size int) (chainio.PackedBatch, []uint64, error) {
		return packedKYCBatch(b.p, kplan, kycID, &pool, tag, size)
	})
}

// runPackedSizes runs one packed batch of each --packed size, built by
// build, and returns the stage's rows.
func (b *committeeBench) runPackedSizes(stage string, kplan *policy.Plan, build func(tag, size int) (chainio.PackedBatch, []uint64, error)) ([]Row, error) {
	var rows []Row
	ladder := b.o.GOMAXPROCS
	if len(ladder) == 0 {
		ladder = []int{0} // as the process runs
	}
	for bi, size := range b.o.Packed {
		size = min(size, b.p.Slots())
		for gi, procs := range ladder {
			// a fresh batch (session, request ids) per run of the ladder
			batch, want, err := build(bi+16*gi, size)
			if err != nil {
				return rows, err
			}
			if procs > 0 {
				prev := runtime.GOMAXPROCS(procs)
				runtime.GC()
				r, err := b.runPackedBatch(stage, batch, want, kplan)
				runtime.GOMAXPROCS(prev)
				if err != nil {
					return rows, fmt.Errorf("batch of %d, GOMAXPROCS %d: %w", size, procs, err)
				}
				for i := range r {
					r[i].GOMAXPROCS = procs
				}
				rows = append(rows, r...)
				continue
			}
			r, err := b.runPackedBatch(stage, batch, want, kplan)
			if err != nil {
				return rows, fmt.Errorf("batch of %d: %w", size, err)
			}
			rows = append(rows, r...)
		}
	}
	return rows, nil
}

// vectorPatterns is the number of distinct vector inputs the
// packed-kyc-vector stage uploads (one proof each) and reuses.
const vectorPatterns = 16

// StageVector: the KYC/AML policy on packed batches of vector requests
// (one ciphertext holding a request's 8 attributes) of each --packed size.
// Pattern p's attribute j takes kycPoolValues[j][bit (j mod 4) of p].
func (b *committeeBench) StageVector() ([]Row, error) {
	if len(b.o.Packed) == 0 {
		return nil, nil
	}
	kycID, kplan, ok, err := b.kycPolicy(StageVector)
	if !ok {
		return nil, err
	}
	var handles [vectorPatterns]fhe.Handle
	var refs [vectorPatterns]uint64
	for pat := range vectorPatterns {
		vals := make([]int64, len(kycPoolValues))
		for j := range vals {
			vals[j] = kycPoolValues[j][(pat>>uint(j%4))&1]
		}
		slots, err := b.p.VectorInts(vals)
		if err != nil {
			return nil, err
		}
		if handles[pat], err = b.uploadSlots(slots); err != nil {
			return nil, err
		}
		if refs[pat], err = planReference(b.p, kplan, vals); err != nil {
			return nil, err
		}
	}
	return b.runPackedSizes(StageVector, kplan, func(tag, size int) (chainio.PackedBatch, []uint64, error) {
		batch := chainio.PackedBatch{PolicyID: kycID, Session: fmt.Sprintf("bench/vector/%d/%d", tag, size)}
		want := make([]uint64, size)
		for k := range size {
			pat := k % vectorPatterns
			want[k] = refs[pat]
			batch.Requests = append(batch.Requests, chainio.Request{ID: [32]byte{5, byte(tag), byte(k), byte(k >> 8)}, PolicyID: kycID,
				Kind: chainio.KindPolicy, Inputs: []fhe.Handle{handles[pat]}, Block: uint64(k / 64), LogIndex: uint(k % 64)})
		}
		return batch, want, nil
	})
}

// planReference is the plan's plaintext verdict (policy.Plan.EvalPlain) on
// one request's attribute values, mod the plaintext modulus of p.
func planReference(p *fhe.Params, plan *policy.Plan, vals []int64) (uint64, error) {
	col := make([][]int64, len(vals))
	for j, v := range vals {
		col[j] = []int64{v}
	}
	ref, err := plan.EvalPlain(col)
	if err != nil {
		return 0, err
	}
	tm := int64(p.PlaintextModulus())
	return uint64((ref[0]%tm + tm) % tm), nil
}

// packedKYCBatch builds a batch of size KYC/AML requests: request k takes
// bit j of k to choose attribute j's input; want holds the plaintext
// references (policy.Plan.EvalPlain).
func packedKYCBatch(p *fhe.Params, kplan *policy.Plan, kycID [32]byte, pool *kycPool, tag, size int) (chainio.PackedBatch, []uint64, error) {
	batch := chainio.PackedBatch{PolicyID: kycID, Session: fmt.Sprintf("bench/packed/%d/%d", tag, size)}
	want := make([]uint64, size)
	refs := map[int]uint64{}
	for k := range size {
		pattern := k & 0xff
		hs := make([]fhe.Handle, 8)
		for j := range hs {
			hs[j] = pool.handles[j][(pattern>>uint(j))&1]
		}
		if _, ok := refs[pattern]; !ok {
			vals := make([]int64, 8)
			for j := range vals {
				vals[j] = pool.vals[j][(pattern>>uint(j))&1]
			}
			ref, err := planReference(p, kplan, vals)
			if err != nil {
				return batch, nil, err
			}
			refs[pattern] = ref
		}
		want[k] = refs[pattern]
		batch.Requests = append(batch.Requests, chainio.Request{ID: [32]byte{4, byte(tag), byte(k), byte(k >> 8)}, PolicyID: kycID,
			Kind: chainio.KindPolicy, Inputs: hs, Block: uint64(k / 64), LogIndex: uint(k % 64)})
	}
	return batch, want, nil
}

// runPackedBatch runs one packed batch on every member at once, checks
// every verdict against its plaintext reference and returns the stage row
// and member 1's phase rows.
func (b *committeeBench) runPackedBatch(stage string, batch chainio.PackedBatch, want []uint64, kplan *policy.Plan) ([]Row, error) {
	b.traceMu.Lock()
	b.phases = map[string]time.Duration{}
	b.memberPhases = map[uint32]map[string]time.Duration{}
	b.traceMu.Unlock()
	procs := runtime.GOMAXPROCS(0)
	stopProfile, err := b.startPackedProfile(stage, len(batch.Requests), procs)
	if err != nil {
		return nil, err
	}
	b.setTracing(true)
	c := bench.CPUTime()
	start := time.Now()
	errs := make([]error, b.n)
	var wg sync.WaitGroup
	for i := 1; i <= b.n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			vs, err := b.lc.Member(uint32(i)).ProcessPacked(b.ctx, batch)
			if err != nil {
				errs[i-1] = err
				return
			}
			for k, v := range vs {
				if v.Result.Cmp(new(big.Int).SetUint64(want[k])) != 0 {
					errs[i-1] = fmt.Errorf("member %d, request %d: verdict %s, plaintext reference %d", i, k, v.Result, want[k])
					return
				}
			}
		}(i)
	}
	wg.Wait()
	d, cpu := time.Since(start), bench.CPUTime()-c
	b.setTracing(false)
	if err := stopProfile(); err != nil {
		return nil, err
	}
	for _, e := range errs {
		if e != nil {
			return nil, e
		}
	}
	level, err := circuit.PackLevel(b.p)
	if err != nil {
		return nil, err
	}
	size := len(batch.Requests)
	b.log.Info("committee packed batch done", zap.Int("batch", size), zap.Duration("took", d), zap.Duration("cpu", cpu),
		zap.Float64("verdicts_per_s", float64(size)/d.Seconds()), zap.Float64("cpu_ms_per_verdict", float64(cpu.Microseconds())/1000/float64(size)))
	how := fmt.Sprintf("%d refreshes of packed inputs", len(batch.Requests[0].Inputs))
	if stage == StageVector {
		l, err := fhe.NewVectorLayout(b.p, len(kplan.Inputs), size)
		if err != nil {
			return nil, err
		}
		how = fmt.Sprintf("vector inputs (one ciphertext per request), block masks, one refresh of %d accumulators un-interleaving them into %d inputs", l.Accs, l.K)
	}
	row := b.row(stage, size, d, cpu, fmt.Sprintf(
		"KYC/AML (8 inputs, plan depth %d) packed: mask at level %d, %s, ONE evaluation, one decryption, one BLS aggregate; all members, every verdict = plaintext reference",
		kplan.UnrefreshedDepth, level, how))
	row.ParallelEfficiency = efficiency(d, cpu, procs)
	b.traceMu.Lock()
	row.Members = memberPhaseRows(b.memberPhases)
	b.traceMu.Unlock()
	rows := []Row{row}
	for _, ph := range packedPhases {
		if dd, ok := b.phases[ph]; ok {
			r := b.row(stage+"/"+ph, size, dd, 0, "member 1's wall time in this phase")
			r.VerdictsPerS = 0
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// startPackedProfile starts a CPU profile of one packed batch when
// Options.PackedProfile is set; the returned func stops it and closes the file.
func (b *committeeBench) startPackedProfile(stage string, size, procs int) (func() error, error) {
	if b.o.PackedProfile == "" {
		return func() error { return nil }, nil
	}
	name := fmt.Sprintf("%s-%s-%d-p%d.prof", b.o.PackedProfile, stage, size, procs)
	f, err := os.Create(name)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("packed profile %s: %w (is --cpuprofile also set?)", name, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}
