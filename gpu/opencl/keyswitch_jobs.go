//go:build opencl && cgo

package opencl

import (
	"fmt"

	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/fhe/engine/kernels"
	"github.com/fhegate/fhegate/gpu"
)

// GadgetMulAcc implements gpu.KeySwitchBackend: every engine.MulAccJob in
// one launch (the digits uploaded once, both outputs of every modulus read
// back once). The gadget keys stay resident in the device's key arena: a
// key limb is uploaded again only when its words differ from the copy
// taken at its last upload (compared in full on every call). It reports false, writing nothing, when a modulus is outside the
// kernel's range (odd, < MaxKeySwitchModulus), the jobs differ in N, or an
// input word is outside the bounds (keys < q, digits < 2q): the caller
// recomputes. A malformed job is an error.
func (b *Backend) GadgetMulAcc(jobs []engine.MulAccJob) (bool, error) {
	if b.KeySwitch&OpMulAcc == 0 {
		return false, nil
	}
	n, in, keyWords, meta := 0, 0, 0, 1+5*len(jobs)
	for i, j := range jobs {
		if err := checkMulAcc(j); err != nil {
			return false, err
		}
		if !oddBelow(j.S.Modulus) || (i > 0 && j.S.N != n) {
			return false, nil
		}
		n = j.S.N
		in += 3 * len(j.D) * n // the digits, and room to stage every key limb
		keyWords += 2 * len(j.D) * n
		meta += 2 * len(j.D)
	}
	return b.ksRun(ksCall{
		what: "gadget multiply-accumulate", kernel: ksMulAcc, in: in, out: 2 * len(jobs) * n, meta: meta,
		n: n, jobs: len(jobs), keyWords: keyWords, counter: &b.ks.mulAccs,
		fill: func(buf, meta []uint64) int {
			off, kAt := 0, 1+5*len(jobs)
			for i, j := range jobs {
				q, digits := j.S.Modulus, len(j.D)
				copy(meta[1+5*i:], []uint64{q, montInv(q), uint64(digits), uint64(off), uint64(kAt)})
				for _, l := range j.D {
					off += copy(buf[off:], l[:n])
				}
				kAt += 2 * digits
			}
			inWords, stage, kAt := off, off, 1+5*len(jobs)
			for _, j := range jobs {
				digits := len(j.D)
				for h, key := range [2][][]uint64{j.K0, j.K1} {
					for i, l := range key {
						at, staged := b.keySlot(l[:n], j.S.Modulus, buf, stage)
						if staged {
							stage += n
						}
						meta[kAt+h*digits+i] = uint64(at)
					}
				}
				kAt += 2 * digits
			}
			return inWords
		},
	}, func(out []uint64) {
		for i, j := range jobs {
			copy(j.Out0[:n], out[2*i*n:])
			copy(j.Out1[:n], out[2*i*n+n:])
		}
	})
}

func checkMulAcc(j engine.MulAccJob) error {
	if err := j.Check(); err != nil {
		return fmt.Errorf("opencl: %w", err)
	}
	return nil
}

// ModUp implements gpu.KeySwitchBackend: every engine.ModUpJob in one
// launch, the constants of each distinct ModUpConstants (with their Shoup
// companions) uploaded with the sources. It reports false, writing nothing,
// for more than kernels.MaxModUpSources sources, a modulus outside the
// kernel's range, jobs of different N, or a source word ≥ 2q_i.
func (b *Backend) ModUp(jobs []engine.ModUpJob) (bool, error) {
	if b.KeySwitch&OpModUp == 0 {
		return false, nil
	}
	n, in, ntMax := 0, 0, 0
	consts := map[*engine.ModUpConstants]int{} // constants → their offset in meta
	meta := 1 + 4*len(jobs)
	for k, j := range jobs {
		ok, err := checkModUp(j)
		if err != nil || !ok {
			return false, err
		}
		if k > 0 && j.N != n {
			return false, nil
		}
		n = j.N
		ns, nt := len(j.C.SrcQ), len(j.C.DstQ)
		in += ns * n
		ntMax = max(ntMax, nt)
		if _, seen := consts[j.C]; !seen {
			consts[j.C] = meta
			meta += 4*ns + nt*(3*ns+2)
		}
	}
	return b.ksRun(ksCall{
		what: "basis extension", kernel: ksModUp, in: in, out: len(jobs) * ntMax * n, meta: meta,
		n: n, ntMax: ntMax, jobs: len(jobs), counter: &b.ks.modUps,
		fill: func(buf, meta []uint64) int {
			for c, at := range consts {
				fillModUpConstants(meta[at:], c)
			}
			off := 0
			for k, j := range jobs {
				copy(meta[1+4*k:], []uint64{uint64(len(j.Src)), uint64(len(j.Dst)), uint64(off), uint64(consts[j.C])})
				for _, l := range j.Src {
					off += copy(buf[off:], l[:n])
				}
			}
			return off
		},
	}, func(out []uint64) {
		for k, j := range jobs {
			for t, l := range j.Dst {
				copy(l[:n], out[(k*ntMax+t)*n:])
			}
		}
	})
}

// fillModUpConstants writes c in the kernel's layout: srcQ, add, inv,
// Shoup(inv); then per target p, qhat, Shoup(qhat), vtab.
func fillModUpConstants(m []uint64, c *engine.ModUpConstants) {
	ns := len(c.SrcQ)
	for i, q := range c.SrcQ {
		m[i], m[ns+i], m[2*ns+i], m[3*ns+i] = q, c.Add[i], c.Inv[i], shoup(c.Inv[i], q)
	}
	m = m[4*ns:]
	for t, p := range c.DstQ {
		m[0] = p
		for i, w := range c.QHat[t] {
			m[1+i], m[1+ns+i] = w, shoup(w, p)
		}
		copy(m[1+2*ns:], c.VTab[t])
		m = m[3*ns+2:]
	}
}

// checkModUp reports an error for a malformed job and false for one the
// kernel declines.
func checkModUp(j engine.ModUpJob) (bool, error) {
	if err := j.Check(); err != nil {
		return false, fmt.Errorf("opencl: %w", err)
	}
	c := j.C
	ns := len(c.SrcQ)
	if ns > kernels.MaxModUpSources {
		return false, nil
	}
	for i, q := range c.SrcQ {
		if !oddBelow(q) {
			return false, nil
		}
		if c.Add[i] >= q || c.Inv[i] >= q {
			return false, fmt.Errorf("opencl: basis extension: constant ≥ source modulus %d", q)
		}
	}
	for t, p := range c.DstQ {
		if !oddBelow(p) {
			return false, nil
		}
		for _, w := range append(c.QHat[t][:ns:ns], c.VTab[t]...) {
			if w >= p {
				return false, fmt.Errorf("opencl: basis extension: constant %d ≥ target modulus %d", w, p)
			}
		}
	}
	return true, nil
}

// ScaleDiff implements gpu.KeySwitchBackend: every engine.ScaleDiffJob in
// one launch. Every input is uploaded before any output is written, so an
// output may alias Y; it reports false, writing nothing, for a modulus
// outside the kernel's range, jobs of different N, or an input word ≥ 2q.
func (b *Backend) ScaleDiff(jobs []engine.ScaleDiffJob) (bool, error) {
	if b.KeySwitch&OpScaleDiff == 0 {
		return false, nil
	}
	n := 0
	for i, j := range jobs {
		switch {
		case j.S == nil:
			return false, fmt.Errorf("opencl: scale-difference: nil SubRing")
		case j.S.N <= 0 || len(j.X) < j.S.N || len(j.Y) < j.S.N || len(j.Out) < j.S.N:
			return false, fmt.Errorf("opencl: scale-difference: N = %d, limbs of %d, %d, %d words", j.S.N, len(j.X), len(j.Y), len(j.Out))
		case !oddBelow(j.S.Modulus) || (i > 0 && j.S.N != n):
			return false, nil
		case j.W >= j.S.Modulus:
			return false, fmt.Errorf("opencl: scale-difference: w = %d ≥ q = %d", j.W, j.S.Modulus)
		}
		n = j.S.N
	}
	return b.ksRun(ksCall{
		what: "scale-difference", kernel: ksScaleDiff, in: 2 * len(jobs) * n, out: len(jobs) * n, meta: 1 + 4*len(jobs),
		n: n, jobs: len(jobs), counter: &b.ks.scaleDiffs,
		fill: func(buf, meta []uint64) int {
			for i, j := range jobs {
				q := j.S.Modulus
				copy(meta[1+4*i:], []uint64{q, j.W, shoup(j.W, q), uint64(2 * i * n)})
				copy(buf[2*i*n:], j.X[:n])
				copy(buf[2*i*n+n:], j.Y[:n])
			}
			return 2 * len(jobs) * n
		},
	}, func(out []uint64) {
		for i, j := range jobs {
			copy(j.Out[:n], out[i*n:])
		}
	})
}

// KeySwitchCounts returns how many moduli of multiply-accumulates, basis
// extensions and ModDown/rescale limbs the key-switch kernels ran since the
// backend was opened.
func (b *Backend) KeySwitchCounts() (mulAcc, modUp, scaleDiff uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ks.mulAccs, b.ks.modUps, b.ks.scaleDiffs
}

var _ gpu.KeySwitchBackend = (*Backend)(nil)

// KeyArenaStats returns the key arena's state: limbs resident, words in
// use, and how many limbs calls found resident and unchanged.
func (b *Backend) KeyArenaStats() (limbs, words int, hits uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.ks.keys), b.ks.used, b.ks.keyHits
}
