package fhe

// A whole vector batch packed on several cores.
//
// Packing is a long run of multiply-adds, acc_a += M_s ⊙ ct_r, that each
// read the request's rows (8 bytes a coefficient), the mask's value and
// Shoup constant (16) and the accumulator (16, read and written): a memory
// stream, not arithmetic. Splitting the batch's requests over goroutines,
// each with accumulators of its own, multiplies the accumulators (A of
// them, 2·(ℓ+1)·N words each) by the worker count, spills them out of the
// caches and adds a merge. AddEncodedBatch splits the coefficients instead:
// worker j owns the coefficient range [lo_j, hi_j) of every limb of every
// accumulator and runs the whole batch over it, in request order. Its
// accumulator range (A·2·(ℓ+1)·(hi−lo) words) and mask range stay in its
// own core's caches, nothing is merged, and each coefficient sees the same
// sequence of lazy additions and reductions as in a sequential packer, so
// the result is that packer's, bit for bit, for any worker count
// (TestAddEncodedBatchByteIdentical).
//
// A worker builds its range of each block mask M_s directly from the
// cached M_0: the NTT-domain automorphism σ_g is the permutation
// index[i] = bitrev(((g·(2·bitrev(i)+1) mod 2N) − 1)/2) (Lattigo's
// ring.AutomorphismNTTIndex), which it evaluates for i in its range only,
// once per block (A requests share a block), carrying g·(2·bitrev(i)+1)
// mod 2N from one block to the next by one multiplication.

import (
	"fmt"
	"math/bits"

	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/utils"

	"github.com/fhegate/fhegate/internal/par"
)

// AddEncodedBatch adds the requests first … first+len(raws)−1 of a vector
// batch to a block packer (NewBlockPacker with layout.Accs accumulators and
// layout.K attributes): request r's ciphertext, encoded in raws[r−first],
// goes to accumulator and block layout.Place(r), as
// AddEncodedBlock(layout.Place(r), raws[r−first]) for r in order would add
// it, with the same checks, the coefficients split over `workers`
// goroutines (≤ 0: GOMAXPROCS). The result is the same bytes as those
// calls', and a batch may be added in runs of consecutive requests. The
// raws are read during the call only.
//
// Every request's header, preset, level, scale and place are checked before
// anything is added; a refused header leaves the packer as it was. A row
// with a coefficient ≥ q is found only while it is multiplied in: the call
// then fails naming the first such request, and the packer is spent (every
// later call fails), since the other workers' ranges have moved on.
func (sp *SlotPacker) AddEncodedBatch(layout VectorLayout, first int, raws [][]byte, workers int) error {
	if err := sp.usable(); err != nil {
		return err
	}
	switch {
	case sp.block == 0:
		return fmt.Errorf("fhe: pack: AddEncodedBatch on a slot packer (NewSlotPacker)")
	case layout.K != sp.block || layout.Accs != len(sp.acc) || layout.Stride != sp.stride || layout.Slots != sp.p.Slots():
		return fmt.Errorf("fhe: pack: layout of %d attributes, %d accumulators, stride %d, %d slots; packer %d, %d, %d, %d",
			layout.K, layout.Accs, layout.Stride, layout.Slots, sp.block, len(sp.acc), sp.stride, sp.p.Slots())
	case first < 0 || len(raws) > layout.Requests-first:
		return fmt.Errorf("fhe: pack: requests %d … %d, layout of %d", first, first+len(raws)-1, layout.Requests)
	}
	ins := make([]packIn, len(raws))
	meta := sp.meta
	seen := make(map[int]bool, len(raws))
	uploads := false
	for x, raw := range raws {
		r := first + x
		acc, s := layout.Place(r)
		key := acc*sp.p.Slots() + s
		if s >= sp.p.Slots() || s%sp.stride != 0 || sp.used[key] || seen[key] {
			return fmt.Errorf("fhe: pack: request %d: block %d of accumulator %d not free", r, s, acc)
		}
		seen[key] = true
		in, err := sp.readEncoded(raw, meta)
		if err != nil {
			return fmt.Errorf("fhe: pack: request %d (accumulator %d, block %d): %w", r, acc, s, err)
		}
		if meta == nil {
			meta = in.meta
		}
		ins[x] = in
		uploads = uploads || in.times == 2
	}
	if len(ins) == 0 {
		return nil
	}
	if uploads {
		sp.target(0, 2) // the upload accumulators exist before the workers read them
	}
	n := sp.p.N()
	w := par.Workers(n/8, workers) // ranges of whole 8-word groups (the vector kernel's unit)
	bad := make([]badRow, w)
	pending := make([]uint64, w)
	_ = par.ForEach(w, w, func(_, j int) error {
		bad[j], pending[j] = sp.addBatchRange(layout, first, ins, 8*(n/8*j/w), 8*(n/8*(j+1)/w))
		return nil
	})
	lowest := badRow{request: -1}
	for _, b := range bad {
		if b.request >= 0 && (lowest.request < 0 || b.request < lowest.request) {
			lowest = b
		}
	}
	if lowest.request >= 0 {
		sp.spent = fmt.Errorf("fhe: pack: request %d: c%d, prime %d: a coefficient is not reduced", lowest.request, lowest.poly, lowest.prime)
		return sp.spent
	}
	for x := range ins {
		acc, s := layout.Place(first + x)
		sp.used[acc*sp.p.Slots()+s] = true
	}
	if sp.meta == nil {
		sp.meta = ins[0].meta.CopyNew()
	}
	sp.pending = pending[0] // every range ran the same additions and reductions
	return nil
}

// badRow names the first row of a batch range with a coefficient ≥ q
// (request −1: none).
type badRow struct{ request, poly, prime int }

// addBatchRange runs AddEncodedBatch's requests over the coefficients [lo,
// hi) of every limb: its own range of each block mask, its own count of
// additions since the last reduction (the packer's, advanced as a
// sequential packer would, and returned), the reduction of its range only.
func (sp *SlotPacker) addBatchRange(layout VectorLayout, first int, ins []packIn, lo, hi int) (badRow, uint64) {
	rows := sp.level + 1
	r := sp.p.rlwe.RingQ()
	w, sh := make([][]uint64, rows), make([][]uint64, rows)
	for i := range rows {
		w[i], sh[i] = make([]uint64, hi-lo), make([]uint64, hi-lo)
	}
	// the index of σ_g at coefficient i is rev((v_i − 1)/2) with
	// v_i = g·e_i mod 2N, e_i = 2·rev(i)+1 (rev: the bit reversal over
	// log2(2N) bits): e is fixed, and v moves from one block to the next
	// in the same slot row by one multiplication by 5^−K' (g_{s+K'} =
	// g_s·5^−K', the packer's step)
	logNth := bits.Len64(r.NthRoot()-1) - 1
	nthMask := r.NthRoot() - 1
	rev := func(x uint64) uint64 { return utils.BitReverse64(x, logNth) }
	if logNth <= 16 {
		rev = func(x uint64) uint64 { return uint64(bits.Reverse16(uint16(x)) >> (16 - logNth)) }
	}
	gStep := sp.p.rlwe.GaloisElement(-sp.stride)
	e, v, idx := make([]uint64, hi-lo), make([]uint64, hi-lo), make([]uint64, hi-lo)
	for i := range e {
		e[i] = 2*rev(uint64(lo+i)) + 1
	}
	pending, last := sp.pending, -1
	bad := badRow{request: -1}
	for x, in := range ins {
		acc, s := layout.Place(first + x)
		if s != last {
			if last >= 0 && s == last+sp.stride && s != sp.p.Slots()/2 {
				for i, y := range v {
					v[i] = y * gStep & nthMask
				}
			} else {
				g, _ := sp.p.SlotGaloisElement(s) // s < Slots(): checked by AddEncodedBatch
				for i, y := range e {
					v[i] = g * y & nthMask
				}
			}
			for i, y := range v {
				idx[i] = rev((y - 1) >> 1)
			}
			for i := range rows {
				mw, msh := sp.mask.w[i], sp.mask.shoup[i]
				for j, y := range idx {
					w[i][j], sh[i][j] = mw[y], msh[y]
				}
			}
			last = s
		}
		if pending+1 > sp.budget {
			sp.reduceRange(lo, hi)
			pending = 0
		}
		dst := sp.target(acc, in.times)
		for i := range rows {
			qi := r.SubRings[i].Modulus
			for k := 0; k < 2; k++ {
				a := dst.Value[k].Coeffs[i][lo:hi]
				if c := in.dec; c != nil {
					mulAddWordsOn(sp.vec, a, c.ct.Value[k].Coeffs[i][lo:hi], w[i], sh[i], qi, false)
				} else if !mulAddLEOn(sp.vec, a, in.rows[k][i][8*lo:8*hi], w[i], sh[i], qi) && bad.request < 0 {
					bad = badRow{first + x, k, i}
				}
			}
		}
		pending++
	}
	return bad, pending
}

// reduceRange brings the accumulators' coefficients [lo, hi) of every limb
// back into [0, q).
func (sp *SlotPacker) reduceRange(lo, hi int) {
	r := sp.p.rlwe.RingQ().AtLevel(sp.level)
	for _, a := range append(sp.acc[:len(sp.acc):len(sp.acc)], sp.accUp...) {
		for k := 0; k < 2; k++ {
			for i := 0; i <= sp.level; i++ {
				sr := r.SubRings[i]
				row := a.Value[k].Coeffs[i][lo:hi]
				for j, x := range row {
					row[j] = ring.BRedAdd(x, sr.Modulus, sr.BRedConstant)
				}
			}
		}
	}
}

// usable fails once the packer is spent (a batch that failed midway).
func (sp *SlotPacker) usable() error {
	if sp.spent != nil {
		return fmt.Errorf("fhe: pack: packer spent by an earlier failure: %w", sp.spent)
	}
	return nil
}
