package fhe

// Slot packing for the committee's cross-request batches.
//
// A batch of requests r = 0 … B−1 of one policy is evaluated on one set of
// packed input ciphertexts: packed_j = Σ_r L_{s_r} ⊙ ct_{r,j}, where L_s is
// the 0/1 plaintext with a 1 in slot s only and ct_{r,j} is request r's j-th
// input. Whatever a request's input holds in its other slots is multiplied by
// 0 there, so it cannot reach another request's slot (the cross-talk attack).
//
// Cost. The product is computed in the NTT domain at a low level ℓ (the input
// is only read on its first ℓ+1 limbs: dropping levels costs nothing), with
// the mask's NTT form obtained from L_0's by a Galois automorphism: in the
// NTT domain an automorphism X → X^g is a permutation of the evaluation
// points, and σ_g(L_0) = L_s for the g that moves slot 0 to slot s (the
// slots are the evaluations of the plaintext at the primitive 2N-th roots of
// unity mod t, on which the Galois group acts transitively; a centred lift
// to Z_Q commutes with σ_g, a signed permutation of the coefficients). So
// each (request, input) pair costs 2·(ℓ+1)·N modular multiply-adds and no
// NTT; L_0 is encoded once per (preset, level). The result is exact
// arithmetic mod Q_ℓ, independent of the order in which requests are added.
//
// Noise: ‖L_s‖∞ < t (Lattigo lifts the plaintext coefficients from [0, t)), so
// a product's noise is at most N·t times the input's, and a sum of B
// products at most B·N·t times the largest input noise. The caller chooses ℓ
// so that this bound stays below Q_ℓ/2 for the worst noise an input proof
// accepts (consensus/circuit.PackLevel writes the bound out).

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"

	"github.com/fhegate/fhegate/fhe/engine/kernels/muladd"
)

// maskKey names the cached NTT-domain form of the base mask M_0 = Σ_{i<k}
// L_i (k = 1: L_0, a slot packer's) at one level, with the Shoup constants
// of one multiply-add path.
type maskKey struct {
	p     *Params
	level int
	vec   muladd.Path
	k     int
}

var slotMasks sync.Map // maskKey → *slotMask

// slotMask is lift(L_0) at one level, per limb, in the NTT domain, with the
// Shoup constants of its coefficients: ⌊w·2^64/q⌋ for the Go loop (one
// 64×64→128 high product and two low products per modular multiplication),
// ⌊w·2^52/q⌋ for the vector kernel (fhe/engine/kernels/muladd.MulAdd:
// AVX-512 IFMA, eight lanes of 52-bit products).
type slotMask struct {
	w, shoup [][]uint64
}

// packPathOverride, when ≥ 0, is the multiply-add path new packers use in
// place of muladd.Best() (the IFMA kernel where the CPU has it, else
// PathGo: the Go loop); tests set it to compare the paths.
var packPathOverride atomic.Int32

func init() { packPathOverride.Store(-1) }

func packVecPath() muladd.Path {
	if o := packPathOverride.Load(); o >= 0 {
		return muladd.Path(o)
	}
	return muladd.Best()
}

// blockMask0 returns the cached slotMask of M_0 = Σ_{i<k} L_i (ones in
// slots 0 … k−1) of a preset and level for path vec (PathGo: the Go
// loop's constants); k = 1 gives L_0, a slot packer's base mask.
func blockMask0(p *Params, level int, vec muladd.Path, width int) (*slotMask, error) {
	k := maskKey{p, level, vec, width}
	if v, ok := slotMasks.Load(k); ok {
		return v.(*slotMask), nil
	}
	// EmbedScale without the scale-up: the plaintext is lift(M_0) itself,
	// not the t⁻¹·m an encryption carries (bgv.Encoder.Encode).
	pt := bgv.NewPlaintext(p.bgv, level)
	v := make([]uint64, p.Slots())
	for i := range width {
		v[i] = 1
	}
	if err := bgv.NewEncoder(p.bgv).EmbedScale(v, false, pt.MetaData, pt.Value); err != nil {
		return nil, fmt.Errorf("fhe: slot mask: %w", err)
	}
	if !pt.IsNTT || pt.IsMontgomery {
		return nil, fmt.Errorf("fhe: slot mask not in the plain NTT domain")
	}
	r := p.rlwe.RingQ().AtLevel(level)
	out := &slotMask{w: make([][]uint64, level+1), shoup: make([][]uint64, level+1)}
	for i := 0; i <= level; i++ {
		q := r.SubRings[i].Modulus
		out.w[i] = append([]uint64(nil), pt.Value.Coeffs[i]...)
		out.shoup[i] = make([]uint64, p.N())
		for j, w := range out.w[i] {
			if vec == muladd.PathGo {
				out.shoup[i][j], _ = bits.Div64(w, 0, q) // w < q
			} else {
				out.shoup[i][j], _ = bits.Div64(w>>12, w<<52, q) // ⌊w·2^52/q⌋, w < q < 2^51
			}
		}
	}
	cached, _ := slotMasks.LoadOrStore(k, out)
	return cached.(*slotMask), nil
}

// SlotGaloisElement returns the Galois element g with σ_g(L_0) = L_s: a
// column rotation by −s within the first row, composed with the row swap
// for the slots of the second row (BGV's 2 × N/2 slot layout).
func (p *Params) SlotGaloisElement(s int) (uint64, error) {
	if p.Scheme() != SchemeBGV {
		return 0, fmt.Errorf("fhe: slot packing needs a BGV preset")
	}
	if s < 0 || s >= p.Slots() {
		return 0, fmt.Errorf("fhe: slot %d outside [0, %d)", s, p.Slots())
	}
	half := p.Slots() / 2
	if s < half {
		return p.rlwe.GaloisElement(-s), nil
	}
	nth := p.rlwe.RingQ().NthRoot()
	return p.rlwe.GaloisElementOrderTwoOrthogonalSubgroup() * p.rlwe.GaloisElement(-(s - half)) % nth, nil
}

// SlotPacker accumulates Width packed ciphertexts at one level:
// acc_j = Σ L_{s} ⊙ ct_j over the (slot, inputs) pairs added. Not safe for
// concurrent use.
//
// A block packer (NewBlockPacker) instead accumulates acc_a = Σ M_s ⊙ ct
// over the (accumulator, block, input) triples added by AddEncodedBlock,
// with the block mask M_s = Σ_{i<k} L_{s+i}.
//
// The accumulators are kept lazily reduced: each product adds a value in
// [0, 2q), and all coefficients are reduced mod q every `budget` additions
// (before a uint64 could overflow) and when the result is read.
//
// An upload is evaluated as 2·ct (Ciphertext.Evaluable). Its product goes
// into a second set of accumulators, doubled once when the result is read:
// Σ L ⊙ 2·ct = 2·Σ L ⊙ ct (mod q), the same residues as multiplying each
// 2·ct, for one multiplication per upload instead of two (the bytes are
// those of packing the evaluable forms: TestEvaluableUpload).
type SlotPacker struct {
	p       *Params
	level   int
	mask    *slotMask // the base mask: L_0, or M_0 for a block packer
	acc     []*rlwe.Ciphertext
	accUp   []*rlwe.Ciphertext // Σ of the uploads' products, doubled on read (nil until one is added)
	meta    *rlwe.MetaData
	used    map[int]bool // slot (slot packer) or acc·Slots()+s (block packer) → added
	pending uint64       // additions since the last reduction (an accumulator gets at most one per call)
	budget  uint64       // additions allowed between reductions
	perm    slotMask     // L_s (M_s) of the slot (block) last masked
	next    slotMask     // scratch for the next L_s (M_s)
	last    int          // slot (block start) whose mask perm holds (−1: none)
	step    []uint64     // NTT index table of σ_{5^−stride}: L_{s+1} from L_s (M_{s+stride} from M_s) within a row
	vec     muladd.Path  // the multiply-add's path (PathGo: the Go loop)
	block   int          // k: the block width of a block packer; 0: a slot packer
	stride  int          // VectorStride(k); 1 for a slot packer
	spent   error        // set when AddEncodedBatch failed midway: every later call fails
}

// NewSlotPacker returns a packer of width packed ciphertexts at level.
func NewSlotPacker(p *Params, level, width int) (*SlotPacker, error) {
	return newPacker(p, level, width, 0)
}

// NewBlockPacker returns a packer of accs packed ciphertexts at level whose
// masks are blocks of k consecutive ones: AddEncodedBlock(a, s, raw) adds
// M_s ⊙ ct to accumulator a, M_s = Σ_{i<k} L_{s+i}; s must be a multiple of
// VectorStride(k) (so a block never straddles a slot row), each (a, s) used
// at most once. It is the packer of vector requests (VectorLayout.Place
// gives each request's a and s), and refuses Add and AddEncoded.
//
// M_s is a permutation of the cached NTT form of M_0 = Σ_{i<k} L_i, as L_s
// is of L_0's: σ_g(M_0) = M_s for g = SlotGaloisElement(s). BGV's slots
// form two rows of Slots()/2; σ_{5^−c} rotates each row cyclically by c
// (slot i of a row → slot i+c mod Slots()/2 of the same row) and the row
// swap exchanges the rows, slot for slot; g is σ_{5^−s} for s in the first
// row, the row swap after σ_{5^−(s−Slots()/2)} for s in the second. So g
// sends slot i < k of row 0 to slot s+i whenever s mod Slots()/2 + k ≤
// Slots()/2, which holds for s a multiple of the stride K' ≥ k (a power of
// two dividing Slots()/2): the block is moved whole, inside one row, and
// σ_g(M_0) = Σ_{i<k} σ_g(L_i) = Σ_{i<k} L_{s+i} = M_s (σ_g is linear).
// Likewise σ_{5^−K'}(M_s) = M_{s+K'} when s+K' starts no row, the shortcut
// the packer takes for consecutive blocks; the same block as the last call
// reuses its mask. TestVectorPack checks M_s by decryption.
//
// Noise: ‖M_s‖∞ < t as ‖L_s‖∞ is (the lift is from [0, t)), and an
// accumulator sums at most Slots()/K' products, so the bound of the file
// comment (B·N·t times the largest input noise, B ≤ Slots()) still holds.
func NewBlockPacker(p *Params, level, accs, k int) (*SlotPacker, error) {
	if k < 1 || k > MaxVectorWidth {
		return nil, fmt.Errorf("fhe: block packer of %d attributes (1 … %d)", k, MaxVectorWidth)
	}
	if p.Scheme() == SchemeBGV && VectorStride(k) > p.Slots()/2 {
		return nil, fmt.Errorf("fhe: block stride %d does not fit a slot row of %d", VectorStride(k), p.Slots()/2)
	}
	return newPacker(p, level, accs, k)
}

// newPacker is NewSlotPacker (block = 0) or NewBlockPacker (block = k).
func newPacker(p *Params, level, width, block int) (*SlotPacker, error) {
	if p.Scheme() != SchemeBGV {
		return nil, fmt.Errorf("fhe: slot packing needs a BGV preset, %s is %v", p.Preset.Name, p.Scheme())
	}
	if level < 0 || level > p.MaxLevel() {
		return nil, fmt.Errorf("fhe: packing level %d outside [0, %d]", level, p.MaxLevel())
	}
	if width < 1 || width > 1<<10 {
		return nil, fmt.Errorf("fhe: packing width %d outside [1, 1024]", width)
	}
	// the vector kernel's conditions (muladd.MulAdd), checked once here so
	// that no call of it can fail: the path runnable on this host (which
	// includes reading rows in place as little-endian words), N a multiple
	// of 8, q < 2^51 (muladd.QBound)
	vec := packVecPath()
	if !muladd.Runnable(vec) || p.N()%8 != 0 {
		vec = muladd.PathGo
	}
	for _, q := range p.Q()[:level+1] {
		if q >= muladd.QBound {
			vec = muladd.PathGo
		}
	}
	stride := 1
	if block > 0 {
		stride = VectorStride(block)
	}
	mask, err := blockMask0(p, level, vec, max(block, 1))
	if err != nil {
		return nil, err
	}
	sp := &SlotPacker{p: p, level: level, mask: mask, acc: make([]*rlwe.Ciphertext, width), used: map[int]bool{}, budget: ^uint64(0), vec: vec, block: block, stride: stride}
	sp.perm = slotMask{w: make([][]uint64, level+1), shoup: make([][]uint64, level+1)}
	sp.next = slotMask{w: make([][]uint64, level+1), shoup: make([][]uint64, level+1)}
	for i, q := range p.Q()[:level+1] {
		sp.budget = min(sp.budget, (^uint64(0)-q)/(2*q))
		sp.perm.w[i], sp.perm.shoup[i] = make([]uint64, p.N()), make([]uint64, p.N())
		sp.next.w[i], sp.next.shoup[i] = make([]uint64, p.N()), make([]uint64, p.N())
	}
	r := p.rlwe.RingQ()
	if sp.step, err = ring.AutomorphismNTTIndex(r.N(), r.NthRoot(), p.rlwe.GaloisElement(-stride)); err != nil {
		return nil, err
	}
	sp.last = -1
	for j := range sp.acc {
		sp.acc[j] = rlwe.NewCiphertext(p.rlwe, 1, level)
	}
	return sp, nil
}

// Level returns the level of the packed ciphertexts.
func (sp *SlotPacker) Level() int { return sp.level }

// Add puts slot s of L_s ⊙ ins[j] into packed ciphertext j, for every j.
// Each input must be a degree-1 NTT-domain ciphertext of the packer's preset
// at a level ≥ the packer's, with the scale of the first input added; a slot
// is used at most once. An upload (Ciphertext.IsUpload) is packed as the
// committee evaluates it, 2·ct at scale 1 (Ciphertext.Evaluable): its
// product is doubled when the result is read, here and in AddEncoded and
// AddEncodedBlock.
func (sp *SlotPacker) Add(s int, ins []*Ciphertext) error {
	if err := sp.usable(); err != nil {
		return err
	}
	if err := sp.checkSlot(s, len(ins)); err != nil {
		return err
	}
	for j, c := range ins {
		if err := sp.check(c); err != nil {
			return fmt.Errorf("fhe: pack: input %d: %w", j, err)
		}
	}
	if err := sp.slotMask(s); err != nil {
		return err
	}
	r := sp.p.rlwe.RingQ().AtLevel(sp.level)
	if sp.meta == nil {
		em, _ := sp.p.evaluableMeta(ins[0].ct.MetaData)
		sp.meta = em.CopyNew()
	}
	if sp.pending+1 > sp.budget {
		sp.reduce()
	}
	for j, c := range ins {
		_, times := sp.p.evaluableMeta(c.ct.MetaData)
		acc := sp.target(j, times)
		for k := 0; k < 2; k++ {
			for i := 0; i <= sp.level; i++ {
				sp.mulAddWords(acc.Value[k].Coeffs[i], c.ct.Value[k].Coeffs[i], i, r.SubRings[i].Modulus, false)
			}
		}
	}
	sp.pending++
	sp.used[s] = true
	return nil
}

// AddEncoded is Add for inputs in their canonical encoding (MarshalBinary),
// read in place: only the first ℓ+1 rows (primes) of c0 and c1 are touched,
// and no ciphertext is decoded. For a BGVN14 input at the top level that is
// 3 of 10 rows, and it spares the decoder's copy of the whole 2.6 MB
// (decoding eight inputs costs several times their masking). Every input's
// header, preset, level (≥ the packer's), degree 1, NTT domain, exact
// length and scale are checked (the header checks UnmarshalCiphertext
// makes) before anything is added, and every row
// read is checked reduced modulo its prime as it is added (a bad one undoes
// the call's rows), so a refused call leaves the packer as it was. A seeded input
// (FlagSeeded: c1 regenerated from a seed) is decoded and added as in Add.
func (sp *SlotPacker) AddEncoded(s int, raws [][]byte) error {
	if err := sp.usable(); err != nil {
		return err
	}
	if err := sp.checkSlot(s, len(raws)); err != nil {
		return err
	}
	ins := make([]packIn, len(raws))
	accs := make([]int, len(raws))
	meta := sp.meta // the scale every input must have (nil: the first input's)
	for j, b := range raws {
		in, err := sp.readEncoded(b, meta)
		if err != nil {
			return fmt.Errorf("fhe: pack: input %d: %w", j, err)
		}
		if meta == nil {
			meta = in.meta
		}
		ins[j], accs[j] = in, j
	}
	if err := sp.addEncoded(s, ins, accs); err != nil {
		return fmt.Errorf("fhe: pack: %w", err)
	}
	sp.used[s] = true
	return nil
}

// AddEncodedBlock adds M_s ⊙ ct to accumulator acc of a block packer
// (NewBlockPacker), for the ciphertext ct encoded in raw, read in place as
// in AddEncoded and checked as each of its inputs is (header, preset, level
// ≥ the packer's, degree 1, NTT domain, exact length, the scale of the
// first input added, every row read reduced; a seeded input is decoded): a
// refused call leaves the packer as it was. s must be a multiple of the
// packer's stride VectorStride(k) below Slots(), and each (acc, s) is used
// at most once.
func (sp *SlotPacker) AddEncodedBlock(acc, s int, raw []byte) error {
	if err := sp.usable(); err != nil {
		return err
	}
	if sp.block == 0 {
		return fmt.Errorf("fhe: pack: AddEncodedBlock on a slot packer (NewSlotPacker); use Add or AddEncoded")
	}
	if acc < 0 || acc >= len(sp.acc) {
		return fmt.Errorf("fhe: pack: accumulator %d outside [0, %d)", acc, len(sp.acc))
	}
	if s < 0 || s >= sp.p.Slots() {
		return fmt.Errorf("fhe: pack: block slot %d outside [0, %d)", s, sp.p.Slots())
	}
	if s%sp.stride != 0 {
		return fmt.Errorf("fhe: pack: block slot %d not a multiple of the stride %d", s, sp.stride)
	}
	key := acc*sp.p.Slots() + s
	if sp.used[key] {
		return fmt.Errorf("fhe: pack: block %d of accumulator %d used twice", s, acc)
	}
	in, err := sp.readEncoded(raw, sp.meta)
	if err != nil {
		return fmt.Errorf("fhe: pack: accumulator %d, block %d: %w", acc, s, err)
	}
	if err := sp.addEncoded(s, []packIn{in}, []int{acc}); err != nil {
		return fmt.Errorf("fhe: pack: accumulator %d, block %d: %w", acc, s, err)
	}
	sp.used[key] = true
	return nil
}

// checkSlot validates the slot and the number of inputs of an Add.
func (sp *SlotPacker) checkSlot(s, inputs int) error {
	if sp.block != 0 {
		return fmt.Errorf("fhe: pack: Add or AddEncoded on a block packer (NewBlockPacker); use AddEncodedBlock")
	}
	if inputs != len(sp.acc) {
		return fmt.Errorf("fhe: pack: %d inputs, packer width %d", inputs, len(sp.acc))
	}
	if s < 0 || s >= sp.p.Slots() {
		return fmt.Errorf("fhe: pack: slot %d outside [0, %d)", s, sp.p.Slots())
	}
	if sp.used[s] {
		return fmt.Errorf("fhe: pack: slot %d used twice", s)
	}
	return nil
}

// packIn is one encoded input, checked and ready to be multiplied in: a
// seeded input decoded (dec), any other read in place (rows[k][i]: poly
// k's row i, N little-endian coefficients, not yet checked reduced).
type packIn struct {
	dec   *Ciphertext
	rows  [2][][]byte
	meta  *rlwe.MetaData // as evaluated (Params.evaluableMeta)
	times uint64         // 2 for an upload (evaluated as 2·ct), else 1
}

// readEncoded checks one encoded input of AddEncoded or AddEncodedBlock
// against the packer (header, preset, level ≥ the packer's, degree 1, NTT
// domain, exact length) and its scale against meta's (nil: any scale), and
// returns its rows. Nothing is added.
func (sp *SlotPacker) readEncoded(b []byte, meta *rlwe.MetaData) (packIn, error) {
	l, err := parseCiphertextLayout(b)
	if err != nil {
		return packIn{}, err
	}
	if l.seeded {
		c, err := UnmarshalCiphertext(b)
		if err == nil {
			err = sp.check(c)
		}
		if err != nil {
			return packIn{}, err
		}
		em, times := sp.p.evaluableMeta(c.ct.MetaData)
		if meta != nil && em.Scale.Cmp(meta.Scale) != 0 {
			return packIn{}, fmt.Errorf("scale differs from the first input's")
		}
		return packIn{dec: c, meta: em, times: times}, nil
	}
	em, times := sp.p.evaluableMeta(l.meta)
	switch {
	case l.p != sp.p:
		return packIn{}, fmt.Errorf("preset %s, packer %s", l.p.Preset.Name, sp.p.Preset.Name)
	case l.degree != 1:
		return packIn{}, fmt.Errorf("degree %d", l.degree)
	case l.level < sp.level:
		return packIn{}, fmt.Errorf("level %d, packing level %d (max %d)", l.level, sp.level, l.p.MaxLevel())
	case meta != nil && em.Scale.Cmp(meta.Scale) != 0:
		return packIn{}, fmt.Errorf("scale differs from the first input's")
	}
	n, rows := sp.p.N(), sp.level+1
	in := packIn{meta: em, times: times}
	for k := 0; k < 2; k++ {
		poly := l.body[k*(l.level+1)*n*8:]
		in.rows[k] = make([][]byte, rows)
		for i := range rows {
			in.rows[k][i] = poly[i*n*8 : (i+1)*n*8]
		}
	}
	return in, nil
}

// addEncoded adds mask(s) ⊙ ins[x] to accumulator accs[x] for every x
// (mask(s): L_s, or M_s for a block packer), the inputs read by
// readEncoded, in one pass over the bytes: each row is checked (every
// coefficient < q) as it is multiplied in; if one is not, the rows added
// so far are subtracted again (the lazy sums are exact uint64 arithmetic,
// so that restores them bit for bit) and the call fails, leaving the
// packer's result as it was. It counts one addition (pending) per call:
// each accumulator gets at most one product.
func (sp *SlotPacker) addEncoded(s int, ins []packIn, accs []int) error {
	if err := sp.slotMask(s); err != nil {
		return err
	}
	if sp.pending+1 > sp.budget { // an accumulator gets one product a call
		sp.reduce()
	}
	n, rows := sp.p.N(), sp.level+1
	r := sp.p.rlwe.RingQ().AtLevel(sp.level)
	// row is input x's poly k, prime i, as uint64 (read from the bytes
	// into scratch for an encoded input: only the rare undo needs it).
	var scratch []uint64
	row := func(x, k, i int) []uint64 {
		if c := ins[x].dec; c != nil {
			return c.ct.Value[k].Coeffs[i]
		}
		if scratch == nil {
			scratch = make([]uint64, n)
		}
		for y := range scratch {
			scratch[y] = binary.LittleEndian.Uint64(ins[x].rows[k][i][8*y:])
		}
		return scratch
	}
	type done struct{ x, k, i int }
	var added []done
	// prime outer, polynomial inner: the mask's limb i (w, shoup) is read
	// for c0 and c1 back to back, while it is still in cache
	for x, in := range ins {
		dst := sp.target(accs[x], in.times)
		for i := 0; i < rows; i++ {
			for k := 0; k < 2; k++ {
				q, acc := r.SubRings[i].Modulus, dst.Value[k].Coeffs[i]
				ok := true
				if c := in.dec; c != nil {
					sp.mulAddWords(acc, c.ct.Value[k].Coeffs[i], i, q, false)
				} else {
					ok = sp.mulAddLE(acc, in.rows[k][i], i, q)
				}
				added = append(added, done{x, k, i})
				if !ok {
					for _, d := range added {
						undo := sp.target(accs[d.x], ins[d.x].times)
						sp.mulAddWords(undo.Value[d.k].Coeffs[d.i], row(d.x, d.k, d.i), d.i, r.SubRings[d.i].Modulus, true)
					}
					return fmt.Errorf("input %d: c%d, prime %d: a coefficient is not reduced", x, k, i)
				}
			}
		}
	}
	if sp.meta == nil {
		sp.meta = ins[0].meta.CopyNew()
	}
	sp.pending++
	return nil
}

// target is the accumulator a product of an input evaluated as times·ct
// goes into: accumulator j, or for an upload (times 2) its upload
// accumulator, doubled on read.
func (sp *SlotPacker) target(j int, times uint64) *rlwe.Ciphertext {
	if times != 2 {
		return sp.acc[j]
	}
	if sp.accUp == nil {
		sp.accUp = make([]*rlwe.Ciphertext, len(sp.acc))
		for a := range sp.accUp {
			sp.accUp[a] = rlwe.NewCiphertext(sp.p.rlwe, 1, sp.level)
		}
	}
	return sp.accUp[j]
}

// mulAddLE adds L_s·c on limb i to acc, with c read from little-endian
// bytes, on the packer's path, and reports whether every c read was < q
// (mulAddWords with sub undoes it either way). The two paths' lazy sums
// may differ by multiples of q, never once reduced (Ciphertexts), so a
// packer's result is the same bytes on every machine.
func (sp *SlotPacker) mulAddLE(acc []uint64, c []byte, i int, q uint64) bool {
	return mulAddLEOn(sp.vec, acc, c, sp.perm.w[i], sp.perm.shoup[i], q)
}

// mulAddLEOn is mulAddLE with the mask limb (w, shoup) given, on path vec.
func mulAddLEOn(vec muladd.Path, acc []uint64, c []byte, w, shoup []uint64, q uint64) bool {
	if vec == muladd.PathGo {
		return mulAddLE(acc, c, w, shoup, q)
	}
	ok, err := muladd.MulAdd(vec, acc, c, w, shoup, q, false)
	return ok && err == nil // err is ruled out by NewSlotPacker's checks
}

// mulAddWords adds (sub: subtracts) L_s·c on limb i to acc for a decoded
// row (whose words are < q) on the packer's path; an add and a sub of the
// same row cancel exactly.
func (sp *SlotPacker) mulAddWords(acc, c []uint64, i int, q uint64, sub bool) {
	mulAddWordsOn(sp.vec, acc, c, sp.perm.w[i], sp.perm.shoup[i], q, sub)
}

// mulAddWordsOn is mulAddWords with the mask limb (w, sh) given, on path vec.
func mulAddWordsOn(vec muladd.Path, acc, c, w, sh []uint64, q uint64, sub bool) {
	switch {
	case vec != muladd.PathGo:
		// the row's words read in place as little-endian bytes
		// (muladd.Runnable holds: a little-endian host); no error is possible
		_, _ = muladd.MulAdd(vec, acc, unsafe.Slice((*byte)(unsafe.Pointer(&c[0])), 8*len(c)), w, sh, q, sub)
	case sub:
		mulSub(acc, c, w, sh, q)
	default:
		mulAdd(acc, c, w, sh, q)
	}
}

// mulAddLE is mulAdd with c read from little-endian bytes. It reports
// whether every c read was < q (mulSub undoes it either way, on the same
// words).
func mulAddLE(acc []uint64, c []byte, w, shoup []uint64, q uint64) bool {
	n := len(acc)
	c, w, shoup = c[:8*n], w[:n], shoup[:n]
	var ok uint64 = 1
	j := 0
	// four words a step, the slices re-cut to length 4 so that the compiler
	// drops the bounds checks (≈ 1.2× the one-word loop on this machine)
	for ; j+4 <= n; j += 4 {
		a, ww, ss, cc := acc[j:j+4:j+4], w[j:j+4:j+4], shoup[j:j+4:j+4], c[8*j:8*j+32:8*j+32]
		x0, x1 := binary.LittleEndian.Uint64(cc[0:8]), binary.LittleEndian.Uint64(cc[8:16])
		x2, x3 := binary.LittleEndian.Uint64(cc[16:24]), binary.LittleEndian.Uint64(cc[24:32])
		_, l0 := bits.Sub64(x0, q, 0) // borrow 1 ⇔ x < q
		_, l1 := bits.Sub64(x1, q, 0)
		_, l2 := bits.Sub64(x2, q, 0)
		_, l3 := bits.Sub64(x3, q, 0)
		ok &= l0 & l1 & l2 & l3
		h0, _ := bits.Mul64(ss[0], x0)
		h1, _ := bits.Mul64(ss[1], x1)
		h2, _ := bits.Mul64(ss[2], x2)
		h3, _ := bits.Mul64(ss[3], x3)
		a[0] += ww[0]*x0 - h0*q
		a[1] += ww[1]*x1 - h1*q
		a[2] += ww[2]*x2 - h2*q
		a[3] += ww[3]*x3 - h3*q
	}
	for ; j < n; j++ {
		x := binary.LittleEndian.Uint64(c[8*j : 8*j+8])
		_, lt := bits.Sub64(x, q, 0)
		ok &= lt
		hi, _ := bits.Mul64(shoup[j], x)
		acc[j] += w[j]*x - hi*q
	}
	return ok == 1
}

// slotMask sets sp.perm to L_s (a block packer: M_s) in the NTT domain: a
// permutation of the base mask's NTT form (σ_g, g = SlotGaloisElement(s)),
// or of L_{s−1}'s (M_{s−stride}'s) by the fixed σ_{5^−stride} when slots
// (blocks) are added in order within a row (no index table to compute per
// request); the mask of the last call is kept as it is.
func (sp *SlotPacker) slotMask(s int) error {
	if s == sp.last {
		return nil // sp.perm holds it
	}
	src, idx := sp.mask, sp.step
	if s != sp.last+sp.stride || s == sp.p.Slots()/2 || sp.last < 0 {
		g, err := sp.p.SlotGaloisElement(s)
		if err != nil {
			return err
		}
		r := sp.p.rlwe.RingQ()
		if idx, err = ring.AutomorphismNTTIndex(r.N(), r.NthRoot(), g); err != nil {
			return err
		}
	} else {
		src = &sp.perm
	}
	for i := 0; i <= sp.level; i++ {
		w, sh, pw, psh := src.w[i], src.shoup[i], sp.next.w[i], sp.next.shoup[i]
		for j, x := range idx {
			pw[j], psh[j] = w[x], sh[x]
		}
	}
	sp.perm, sp.next = sp.next, sp.perm
	sp.last = s
	return nil
}

// reduce brings every accumulator coefficient back into [0, q).
func (sp *SlotPacker) reduce() {
	sp.reduceRange(0, sp.p.N())
	sp.pending = 0
}

// check validates one input of Add.
func (sp *SlotPacker) check(c *Ciphertext) error {
	switch {
	case c == nil || c.ct == nil || c.ct.MetaData == nil:
		return fmt.Errorf("nil ciphertext")
	case c.params != sp.p:
		return fmt.Errorf("preset %s, packer %s", c.params.Preset.Name, sp.p.Preset.Name)
	case c.ct.Degree() != 1:
		return fmt.Errorf("degree %d", c.ct.Degree())
	case c.ct.Level() < sp.level:
		return fmt.Errorf("level %d below the packing level %d", c.ct.Level(), sp.level)
	case !c.ct.IsNTT || c.ct.IsMontgomery:
		return fmt.Errorf("not in the plain NTT domain")
	case sp.meta != nil:
		if em, _ := sp.p.evaluableMeta(c.ct.MetaData); em.Scale.Cmp(sp.meta.Scale) != 0 {
			return fmt.Errorf("scale differs from the first input's")
		}
	}
	return nil
}

// mulAdd adds w[j]·c[j] mod q, lazily in [0, 2q), to acc[j] for every j,
// with shoup[j] = ⌊w[j]·2^64/q⌋ (Shoup's multiplication: w·c −
// ⌊shoup·c/2^64⌋·q ∈ [0, 2q) for c < q).
func mulAdd(acc, c, w, shoup []uint64, q uint64) {
	n := len(acc)
	c, w, shoup = c[:n], w[:n], shoup[:n]
	j := 0
	for ; j+4 <= n; j += 4 { // as mulAddLE
		a, ww, ss, cc := acc[j:j+4:j+4], w[j:j+4:j+4], shoup[j:j+4:j+4], c[j:j+4:j+4]
		h0, _ := bits.Mul64(ss[0], cc[0])
		h1, _ := bits.Mul64(ss[1], cc[1])
		h2, _ := bits.Mul64(ss[2], cc[2])
		h3, _ := bits.Mul64(ss[3], cc[3])
		a[0] += ww[0]*cc[0] - h0*q
		a[1] += ww[1]*cc[1] - h1*q
		a[2] += ww[2]*cc[2] - h2*q
		a[3] += ww[3]*cc[3] - h3*q
	}
	for ; j < n; j++ {
		hi, _ := bits.Mul64(shoup[j], c[j])
		acc[j] += w[j]*c[j] - hi*q
	}
}

// mulSub undoes mulAdd (or mulAddLE on the same values) exactly: the lazy
// sums are uint64 arithmetic modulo 2^64.
func mulSub(acc, c, w, shoup []uint64, q uint64) {
	c, w, shoup = c[:len(acc)], w[:len(acc)], shoup[:len(acc)]
	for j := range acc {
		hi, _ := bits.Mul64(shoup[j], c[j])
		acc[j] -= w[j]*c[j] - hi*q
	}
}

// Ciphertexts returns the packed ciphertexts (copies: the packer may go on).
// With nothing added they encrypt nothing (zero ciphertexts) and fail.
func (sp *SlotPacker) Ciphertexts() ([]*Ciphertext, error) {
	if err := sp.usable(); err != nil {
		return nil, err
	}
	if sp.meta == nil {
		return nil, fmt.Errorf("fhe: pack: no input added")
	}
	sp.reduce()
	r := sp.p.rlwe.RingQ().AtLevel(sp.level)
	out := make([]*Ciphertext, len(sp.acc))
	for j, a := range sp.acc {
		c := a.CopyNew()
		if sp.accUp != nil { // c + 2·up, every term reduced mod q
			for k, v := range sp.accUp[j].Value {
				r.Add(c.Value[k], v, c.Value[k])
				r.Add(c.Value[k], v, c.Value[k])
			}
		}
		*c.MetaData = *sp.meta.CopyNew()
		out[j] = &Ciphertext{params: sp.p, ct: c}
	}
	return out, nil
}
