package gpu

import (
	"encoding/binary"
	"math/bits"
	"slices"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/fhe/engine"
)

// KeySwitchBackend is a Backend that also runs the key switch's gadget
// multiply-accumulate (engine.MulAccJob). GadgetMulAcc reports false, with
// no error, when an input lies outside the kernel's bounds or the backend
// has no kernel on its current path; the caller recomputes the outputs.
type KeySwitchBackend interface {
	Backend
	GadgetMulAcc(jobs []engine.MulAccJob) (bool, error)
	// ModUp runs fast exact basis extensions (engine.ModUpJob), with the
	// same conventions.
	ModUp(jobs []engine.ModUpJob) (bool, error)
	// ScaleDiff runs ModDown's and the rescale's last step
	// (engine.ScaleDiffJob); false means nothing was written.
	ScaleDiff(jobs []engine.ScaleDiffJob) (bool, error)
}

// macKey identifies a modulus of the multiply-accumulate for first-use
// verification (the NTT's Key also holds the root, which the
// multiply-accumulate does not use).
type macKey struct {
	n int
	q uint64
}

// GadgetMulAcc implements engine.KeySwitchRouter. The multiply-accumulate
// of one key switch goes to the armed accelerator iff it is a
// KeySwitchBackend and the table routes the same key switch's forward
// NTT batch, shape (N, L+1+#P moduli, B = digits) — the batch whose outputs
// it consumes; else it reports false and the engine runs Lattigo's loop.
// The first call that holds a new (N, q) also computes that modulus with
// Lattigo's reduced Montgomery products and compares (the CPU result is
// kept); a mismatch disables the accelerator's multiply-accumulate for
// that (N, q) for the life of the dispatcher.
func (d *Dispatcher) GadgetMulAcc(jobs []engine.MulAccJob) bool {
	ks, ok := d.accel.(KeySwitchBackend)
	if !ok || !d.routing.Load() || len(jobs) == 0 || jobs[0].S == nil {
		return false
	}
	s := Shape{LogN: log2(jobs[0].S.N), Moduli: len(jobs), B: len(jobs[0].D), Dir: Forward}
	if t := d.thresholdFor(s); t == 0 || s.B < t {
		return false
	}
	keys := make([]macKey, len(jobs))
	for i, j := range jobs {
		if j.S == nil {
			return false
		}
		keys[i] = macKey{j.S.N, j.S.Modulus}
	}
	first, ok := firstUse(d, &d.macVerified, keys)
	if !ok {
		return false
	}
	release, ok := d.claim()
	if !ok {
		return false
	}
	defer release()
	ran := runChecked(d, d.macVerified, keys, first, "multiply-accumulate", func() (bool, error) { return ks.GadgetMulAcc(jobs) },
		func(i int) bool {
			j := jobs[i]
			g0 := restoreLimb(lattigoMulAcc(j, j.K0), j.Out0)
			g1 := restoreLimb(lattigoMulAcc(j, j.K1), j.Out1)
			return g0 && g1
		})
	if ran {
		d.mulAcc.Add(uint64(len(jobs)))
	}
	return ran
}

// lattigoMulAcc is Σ_i key[i]·D[i]·2^{-64} mod q reduced into [0, q) by
// Lattigo's reduced Montgomery products (the digits reduced first: those
// products take words < q). It equals the canonical end of the engine's
// lazy schedule.
func lattigoMulAcc(j engine.MulAccJob, key [][]uint64) []uint64 {
	s := j.S
	out := make([]uint64, s.N)
	d := make([]uint64, s.N)
	for i := range j.D {
		s.Reduce(j.D[i][:s.N], d)
		if i == 0 {
			s.MulCoeffsMontgomery(key[i][:s.N], d, out)
		} else {
			s.MulCoeffsMontgomeryThenAdd(key[i][:s.N], d, out)
		}
	}
	return out
}

// ModUp implements engine.KeySwitchRouter: basis extensions go to the armed
// accelerator iff it is a KeySwitchBackend and the table routes a forward
// NTT batch of the extension's shape (N, sources + targets moduli, B = the
// number of jobs); else false. The first call for a new (N, source moduli,
// target moduli) also runs engine.ModUpJob.Reference on the first
// modUpCheckWords words of every target and compares — a self-test of the
// kernel, whose every 8-word block (IFMA) or work item (OpenCL) runs the
// same instructions; the proof of every word is the conformance tests' —
// and on a mismatch it disables the accelerator's extension for those
// moduli and reports false (the engine recomputes everything with Lattigo).
func (d *Dispatcher) ModUp(jobs []engine.ModUpJob) bool {
	ks, ok := d.accel.(KeySwitchBackend)
	if !ok || !d.routing.Load() || len(jobs) == 0 || jobs[0].C == nil {
		return false
	}
	s := Shape{LogN: log2(jobs[0].N), Moduli: len(jobs[0].C.SrcQ) + len(jobs[0].C.DstQ), B: len(jobs), Dir: Forward}
	if t := d.thresholdFor(s); t == 0 || s.B < t {
		return false
	}
	keys := make([]modUpKey, len(jobs))
	for i, j := range jobs {
		if j.C == nil {
			return false
		}
		keys[i] = modUpKeyOf(j)
	}
	first, ok := firstUse(d, &d.modUpVerified, keys)
	if !ok {
		return false
	}
	release, ok := d.claim()
	if !ok {
		return false
	}
	defer release()
	done, err := ks.ModUp(jobs)
	if err != nil {
		d.accelStats.fallbacks.Add(1)
		d.log.Warn("gpu: accelerator basis extension failed; CPU fallback", zap.String("backend", d.accelNm), zap.Error(err))
		return false
	}
	if !done {
		return false
	}
	for i, j := range jobs {
		if !first[i] {
			continue
		}
		words := min(j.N, modUpCheckWords)
		want := make([][]uint64, len(j.Dst))
		for t := range want {
			want[t] = make([]uint64, words)
		}
		j.Reference(want, words)
		good := true
		for t := range want {
			good = good && slices.Equal(want[t], j.Dst[t][:words])
		}
		settle(d, d.modUpVerified, keys[i], good)
		if !good { // nothing of the accelerator's output is kept
			d.accelStats.fallbacks.Add(1)
			d.log.Error("gpu: accelerator basis extension differs from the engine's reference; disabled for these moduli",
				zap.String("backend", d.accelNm), zap.Int("n", j.N), zap.Uint64s("src", j.C.SrcQ), zap.Uint64s("dst", j.C.DstQ))
			return false
		}
	}
	d.modUps.Add(uint64(len(jobs)))
	return true
}

// modUpCheckWords is how many words of a new extension the dispatcher
// checks against the Go model (which runs ~50× slower than the kernel).
const modUpCheckWords = 256

// modUpKey identifies a basis extension for first-use verification: N and
// the source and target moduli.
type modUpKey struct {
	n      int
	moduli string
}

func modUpKeyOf(j engine.ModUpJob) modUpKey {
	b := make([]byte, 0, 8*(len(j.C.SrcQ)+len(j.C.DstQ)+1))
	for _, q := range j.C.SrcQ {
		b = binary.LittleEndian.AppendUint64(b, q)
	}
	b = binary.LittleEndian.AppendUint64(b, 0)
	for _, p := range j.C.DstQ {
		b = binary.LittleEndian.AppendUint64(b, p)
	}
	return modUpKey{j.N, string(b)}
}

// ScaleDiff implements engine.KeySwitchRouter: ModDown's and the rescale's
// last step go to the armed accelerator iff it is a KeySwitchBackend and
// the table routes a forward NTT batch over the same moduli (B = the
// polynomials); else false. The first call holding a new (N, q) checks
// that limb against the Go definition on a copy of its inputs taken before
// the call (the output may alias Y); a mismatch disables the step for that
// (N, q) and the correct limb is written.
func (d *Dispatcher) ScaleDiff(jobs []engine.ScaleDiffJob) bool {
	ks, ok := d.accel.(KeySwitchBackend)
	if !ok || !d.routing.Load() || len(jobs) == 0 || jobs[0].S == nil {
		return false
	}
	mods := map[uint64]int{}
	for _, j := range jobs {
		if j.S == nil {
			return false
		}
		mods[j.S.Modulus]++
	}
	s := Shape{LogN: log2(jobs[0].S.N), Moduli: len(mods), B: len(jobs) / len(mods), Dir: Forward}
	if t := d.thresholdFor(s); t == 0 || s.B < t {
		return false
	}
	keys := make([]macKey, len(jobs))
	for i, j := range jobs {
		keys[i] = macKey{j.S.N, j.S.Modulus}
	}
	first, ok := firstUse(d, &d.sdVerified, keys)
	if !ok {
		return false
	}
	release, ok := d.claim()
	if !ok {
		return false
	}
	defer release()
	refs := make([][]uint64, len(jobs)) // expected outputs of first-use limbs
	for i, j := range jobs {
		if first[i] {
			refs[i] = scaleDiffRef(j)
		}
	}
	ran := runChecked(d, d.sdVerified, keys, first, "scale-difference", func() (bool, error) { return ks.ScaleDiff(jobs) },
		func(i int) bool { return restoreLimb(refs[i], jobs[i].Out) })
	if ran {
		d.scaleDiffs.Add(uint64(len(jobs)))
	}
	return ran
}

// firstUse reads the first-use verdicts of keys in *m (created on first
// use): ok is false when any key is disabled (−1, its accelerator result
// once differed from the CPU's); first[i] is true when keys[i] has not been
// checked yet (0).
func firstUse[K comparable](d *Dispatcher, m *map[K]int8, keys []K) (first []bool, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if *m == nil {
		*m = map[K]int8{}
	}
	first = make([]bool, len(keys))
	for i, k := range keys {
		switch (*m)[k] {
		case -1:
			return nil, false
		case 0:
			first[i] = true
		}
	}
	return first, true
}

// restoreLimb writes the CPU's words ref over the accelerator's out[:len(ref)]
// and reports whether they were equal: runChecked's restore for one limb.
func restoreLimb(ref, out []uint64) bool {
	good := slices.Equal(ref, out[:len(ref)])
	copy(out, ref)
	return good
}

// runChecked runs call — an accelerator kernel over a batch the dispatcher
// routes — and settles the first-use verdicts of keys[i] (macKey: N and
// the modulus): false when call errs (logged, counted as a fallback) or
// declines, having written nothing usable; else, for every job i still
// unchecked (first[i]), restore(i) writes the CPU's words over the
// accelerator's and reports whether they matched, and a mismatch disables
// the accelerator's what for that key.
func runChecked(d *Dispatcher, verdicts map[macKey]int8, keys []macKey, first []bool, what string,
	call func() (bool, error), restore func(i int) bool) bool {
	done, err := call()
	if err != nil {
		d.accelStats.fallbacks.Add(1)
		d.log.Warn("gpu: accelerator "+what+" failed; CPU fallback", zap.String("backend", d.accelNm), zap.Error(err))
		return false
	}
	if !done {
		return false
	}
	for i, k := range keys {
		if !first[i] {
			continue
		}
		good := restore(i)
		settle(d, verdicts, k, good)
		if !good {
			d.accelStats.fallbacks.Add(1)
			d.log.Error("gpu: accelerator "+what+" differs from the CPU's; disabled for this modulus",
				zap.String("backend", d.accelNm), zap.Int("n", k.n), zap.Uint64("q", k.q))
		}
	}
	return true
}

// settle records the first-use comparison of k: 1 if the accelerator's
// result matched, −1 (disabled from now on) if it did not.
func settle[K comparable](d *Dispatcher, m map[K]int8, k K, good bool) {
	v := int8(1)
	if !good {
		v = -1
	}
	d.mu.Lock()
	m[k] = v
	d.mu.Unlock()
}

// log2 is ⌊log2 n⌋, 0 for n ≤ 1: a Shape's LogN from a ring degree.
func log2(n int) int {
	l := 0
	for ; n > 1; n >>= 1 {
		l++
	}
	return l
}

// scaleDiffRef is (X − Y)·W mod q word by word, in Go.
func scaleDiffRef(j engine.ScaleDiffJob) []uint64 {
	q := j.S.Modulus
	out := make([]uint64, j.S.N)
	for x := range out {
		hi, lo := bits.Mul64((j.X[x]%q+q-j.Y[x]%q)%q, j.W)
		out[x] = bits.Rem64(hi, lo, q)
	}
	return out
}

var _ engine.KeySwitchRouter = (*Dispatcher)(nil)
