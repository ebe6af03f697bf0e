package protocol

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"sync"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
	"github.com/fhegate/fhegate/fhe/zkpok"
	"github.com/fhegate/fhegate/internal/par"
)

// The pieces of the verified refresh (Refresh): proven masks, per-subset
// decryption shares, their cross-check and the re-encryption.

// ErrUnchecked is wrapped by a refresh or decryption that has fewer than
// CheckedMembers(t) consistent members: its output could have been set by
// t−1 deviating members, so it is not used.
var ErrUnchecked = errors.New("protocol: output not cross-checked by enough members")

// MaxRefreshSubsets bounds C(r, t), the t-subsets a refresh decodes (and so
// the shares a contributor sends, C(r−1, t−1) ≤ C(r, t)): 2-of-3 decodes 3,
// 3-of-5 decodes 10, 4-of-7 35, 5-of-9 126.
const MaxRefreshSubsets = 128

// proofKeys caches the input-proof key of each collective public key
// (zkpok.NewKey lifts the key to R_QP once).
var proofKeys sync.Map // *fhe.PublicKey → *zkpok.Key

func proofKey(pk *fhe.PublicKey, given *zkpok.Key) (*zkpok.Key, error) {
	if pk == nil {
		return nil, errors.New("protocol: refresh needs the collective public key")
	}
	if given != nil {
		if given.PK != pk {
			return nil, errors.New("protocol: refresh proof key is for another public key")
		}
		return given.AtLevel(pk.Params().MaxLevel()) // masks are top-level encryptions
	}
	if k, ok := proofKeys.Load(pk); ok {
		return k.(*zkpok.Key), nil
	}
	k, err := zkpok.NewKey(pk)
	if err != nil {
		return nil, err
	}
	got, _ := proofKeys.LoadOrStore(pk, k)
	return got.(*zkpok.Key), nil
}

// maskedBounds adds the r masks' encryption noise to a refresh input's
// bounds: an honest mask's noise (zkpok HonestNoiseBits, a function of s)
// joins what the flooding hides, a mask at the proof's accepted bound joins
// the worst case the level must hold.
func maskedBounds(zk *zkpok.Key, members, r int, noiseBits, worstBits float64) (float64, float64) {
	noiseBits, worstBits = noise.RefreshBounds(noiseBits, worstBits)
	rr := float64(r)
	noiseBits = math.Log2(math.Exp2(noiseBits) + rr*math.Exp2(zk.PP.HonestNoiseBits(members)))
	worstBits = math.Log2(math.Exp2(worstBits) + rr*math.Exp2(zk.PP.AcceptedNoiseBits(members)))
	return noiseBits, worstBits
}

// maskNonce is the random nonce a mask's proof is bound to besides the
// epoch and its sender.
const maskNonce = 16

// maskContext binds a mask's proof to its sender, the key epoch and the
// mask's own random nonce, so that nobody can present another member's mask
// as its own. (Not to a session: a mask may be made ahead of its refresh,
// MaskPool. Within a refresh the masks are committed before any is
// revealed, so a mask cannot depend on another member's.)
func maskContext(epoch uint64, id transport.MemberID, nonce []byte) zkpok.Context {
	var idb [4]byte
	binary.BigEndian.PutUint32(idb[:], uint32(id))
	h := keccak([]byte("fhegate/refresh/mask/v1"), idb[:], nonce)
	var owner [20]byte
	copy(owner[:], h[:20])
	return zkpok.Context{ChainID: new(big.Int), Epoch: epoch, Owner: owner}
}

// newMask draws a uniform slot vector mod t and encrypts it for sender
// self (encryptMask).
func newMask(zk *zkpok.Key, epoch uint64, self transport.MemberID) ([]byte, error) {
	p := zk.PK.Params()
	vals := make([]int64, p.Slots())
	if err := uniformSlots(p.PlaintextModulus(), vals); err != nil {
		return nil, err
	}
	return encryptMask(zk, epoch, self, vals)
}

// uniformSlots fills vals with uniform values mod tm (crypto/rand). 64
// random bits reduced mod a 17-bit t: statistical distance 2^−47 per value
// from uniform, far below what a mask must hide (its sum with the
// plaintext is revealed once).
func uniformSlots(tm uint64, vals []int64) error {
	words := make([]byte, 8*len(vals))
	if _, err := rand.Read(words); err != nil {
		return err
	}
	for i := range vals {
		vals[i] = int64(binary.LittleEndian.Uint64(words[8*i:]) % tm)
	}
	clear(words)
	return nil
}

// encryptMask encrypts the slot vector vals with its proof of plaintext
// knowledge for sender self under a fresh random nonce; the message is
// nonce ‖ len(ct) ‖ ct ‖ proof.
func encryptMask(zk *zkpok.Key, epoch uint64, self transport.MemberID, vals []int64) ([]byte, error) {
	nonce := make([]byte, maskNonce)
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	ct, proof, err := zk.EncryptInts(vals, maskContext(epoch, self, nonce))
	if err != nil {
		return nil, err
	}
	cb, err := ct.MarshalBinary()
	if err != nil {
		return nil, err
	}
	out := make([]byte, maskNonce+4, maskNonce+4+len(cb)+len(proof))
	copy(out, nonce)
	binary.BigEndian.PutUint32(out[maskNonce:], uint32(len(cb)))
	return append(append(out, cb...), proof...), nil
}

// splitMask decodes a mask message into its nonce, ciphertext and proof,
// bounding every length before it allocates.
func splitMask(zk *zkpok.Key, b []byte) (nonce []byte, ct *fhe.Ciphertext, proof []byte, err error) {
	if len(b) < maskNonce+4 {
		return nil, nil, nil, fmt.Errorf("mask of %d bytes", len(b))
	}
	nonce, b = b[:maskNonce], b[maskNonce:]
	n := int(binary.BigEndian.Uint32(b))
	if n > len(b)-4 {
		return nil, nil, nil, fmt.Errorf("mask ciphertext of %d bytes in a %d-byte message", n, len(b))
	}
	if ct, err = fhe.UnmarshalCiphertext(b[4 : 4+n]); err != nil {
		return nil, nil, nil, fmt.Errorf("mask ciphertext: %w", err)
	}
	if ct.Params() != zk.PK.Params() {
		return nil, nil, nil, fmt.Errorf("mask ciphertext is %s, key is %s", ct.Params().Preset.Name, zk.PK.Params().Preset.Name)
	}
	if top := zk.PK.Params().MaxLevel(); ct.Level() != top {
		// unmask subtracts masks at the top level; the proof alone would
		// take any level from the upload level up
		return nil, nil, nil, fmt.Errorf("mask ciphertext at level %d, masks are at the top level %d", ct.Level(), top)
	}
	return nonce, ct, b[4+n:], nil
}

// decodeMask is this member's own mask message decoded (no proof check).
func decodeMask(zk *zkpok.Key, b []byte) (*fhe.Ciphertext, error) {
	_, ct, _, err := splitMask(zk, b)
	return ct, err
}

// openMask decodes and verifies member id's mask message; every error names
// what is wrong with it.
func openMask(zk *zkpok.Key, epoch uint64, id transport.MemberID, b []byte) (*fhe.Ciphertext, error) {
	nonce, ct, proof, err := splitMask(zk, b)
	if err != nil {
		return nil, err
	}
	h, err := ct.Handle()
	if err != nil {
		return nil, err
	}
	if err := zk.Verify(ct, h, maskContext(epoch, id, nonce), proof); err != nil {
		return nil, fmt.Errorf("mask proof: %w", err)
	}
	return ct, nil
}

// MaskPool makes a member's refresh masks ahead of the refreshes that use
// them (the proof is most of a refresh's cost on a contributor: ≈ 0.25 s on
// BGVN14), one at a time in the background, up to its size; Refresh takes
// one when the pool matches its key, epoch and member, and makes its own
// otherwise. Each mask is handed out once. Safe for concurrent use.
type MaskPool struct {
	zk    *zkpok.Key
	epoch uint64
	self  transport.MemberID
	ready chan []byte
	done  chan struct{}
	once  sync.Once
	wg    sync.WaitGroup
}

// NewMaskPool starts a pool of size masks (≥ 1) for member self under zk's
// key at epoch; Close stops it.
func NewMaskPool(zk *zkpok.Key, epoch uint64, self transport.MemberID, size int) *MaskPool {
	mp := &MaskPool{zk: zk, epoch: epoch, self: self, ready: make(chan []byte, max(size, 1)), done: make(chan struct{})}
	mp.wg.Add(1)
	go func() {
		defer mp.wg.Done()
		for {
			m, err := newMask(zk, epoch, self)
			if err != nil {
				return // Refresh makes its own
			}
			select {
			case mp.ready <- m:
			case <-mp.done:
				return
			}
		}
	}()
	return mp
}

// take returns a ready mask if the pool is for (zk, epoch, self) and has
// one, else a fresh one.
func (mp *MaskPool) take(zk *zkpok.Key, epoch uint64, self transport.MemberID) ([]byte, error) {
	if mp.For(zk, epoch, self) {
		select {
		case m := <-mp.ready:
			return m, nil
		default:
		}
	}
	return newMask(zk, epoch, self)
}

// Close stops the pool's maker and waits for it.
func (mp *MaskPool) Close() {
	mp.once.Do(func() { close(mp.done) })
	mp.wg.Wait()
}

// For reports whether the pool makes masks for (zk, epoch, self).
func (mp *MaskPool) For(zk *zkpok.Key, epoch uint64, self transport.MemberID) bool {
	return mp != nil && mp.zk == zk && mp.epoch == epoch && mp.self == self
}

// exchangeMasks is the mask round: every contributor makes and commits to
// its proven mask (exchangeCommitted), every receiver verifies every proof
// (in parallel). A mask that does not verify names its sender
// (ErrEquivocation, reported to g.OnEquivocation). The mask is issued
// through the ledger for (the sanitised input, the contributors): a retried
// refresh — the same session — sends the same mask, so its commitment
// matches what the first attempt committed to.
func exchangeMasks(ctx context.Context, g Group, key *ThresholdKey, zk *zkpok.Key, led Ledger, ct *fhe.Ciphertext, session string, active, receivers []transport.MemberID) (map[transport.MemberID]*fhe.Ciphertext, error) {
	d := ShareDigest(ct)
	digest := keccak([]byte("fhegate/refresh/mask-ledger/v1"), d[:], memberIDBytes(active))
	msgs, err := exchangeCommitted(ctx, g, transport.TypeRefreshShare, session, active, receivers, func() ([]byte, error) {
		return led.Issue(KindRefreshMask, digest, key.Epoch, session, func() ([]byte, error) {
			return g.Masks.take(zk, key.Epoch, g.Self())
		})
	})
	if err != nil {
		return nil, err
	}
	masks := make([]*fhe.Ciphertext, len(active))
	errs := make([]error, len(active))
	_ = par.ForEach(len(active), len(active), func(_, i int) error {
		if active[i] == g.Self() {
			// its own mask: made here, its proof need not be checked here
			masks[i], errs[i] = decodeMask(zk, msgs[active[i]])
			return nil
		}
		masks[i], errs[i] = openMask(zk, key.Epoch, active[i], msgs[active[i]])
		return nil
	})
	out := make(map[transport.MemberID]*fhe.Ciphertext, len(active))
	for i, id := range active {
		if errs[i] != nil {
			return nil, g.equivocation(&ErrEquivocation{Session: session, Member: id, Reason: "refresh mask refused: " + errs[i].Error()})
		}
		out[id] = masks[i]
	}
	return out, nil
}

// maskedInput is Z = ct + Σ_i X_i with every mask dropped to ct's level by
// discarding limbs (which keeps the phase t⁻¹·M_i + e_i exactly), added
// polynomial by polynomial: Z keeps ct's metadata (its scale), and its
// plaintext polynomial is m + ΣM_i.
func maskedInput(ct *fhe.Ciphertext, masks map[transport.MemberID]*fhe.Ciphertext, active []transport.MemberID) (*fhe.Ciphertext, error) {
	p := ct.Params()
	level := ct.Level()
	ringQ := p.RLWE().RingQ().AtLevel(level)
	z := ct.Lattigo().CopyNew()
	for _, id := range active {
		x := masks[id].Lattigo()
		if x.Degree() != 1 || !x.IsNTT || x.IsMontgomery != z.IsMontgomery || x.Level() < level {
			return nil, fmt.Errorf("protocol: mask of member %d is not a degree-1 NTT ciphertext at level ≥ %d", id, level)
		}
		ringQ.Add(z.Value[0], x.Value[0], z.Value[0])
		ringQ.Add(z.Value[1], x.Value[1], z.Value[1])
	}
	return fhe.WrapCiphertext(p, z)
}

// subsetsOf lists the t-subsets of active (ascending) in lexicographic order.
func subsetsOf(active []transport.MemberID, t int) [][]transport.MemberID {
	var out [][]transport.MemberID
	forSubsets(len(active), t, func(idx []int) bool {
		s := make([]transport.MemberID, t)
		for k, i := range idx {
			s[k] = active[i]
		}
		out = append(out, s)
		return true
	})
	return out
}

// RefreshSubsets is C(r, t), the t-subsets a refresh among r contributors
// decodes, or MaxRefreshSubsets+1 once it is larger.
func RefreshSubsets(r, t int) int {
	c := 1
	for k := 0; k < t; k++ {
		c = c * (r - k) / (k + 1)
		if c > MaxRefreshSubsets {
			return MaxRefreshSubsets + 1
		}
	}
	return c
}

// genSubsetShares is this member's share bundle of a refresh: for every
// t-subset S holding self, in order, h^S = c1(z)·λ_self^S·tsk_self + E^S
// with E^S ← D_{Z,2^sigmaBits} from a fresh sampler (flood), each encoded as
// a DecryptionShare at z's level.
func genSubsetShares(key *ThresholdKey, self transport.MemberID, members []transport.MemberID, z *fhe.Ciphertext, subsets [][]transport.MemberID, sigmaBits float64) ([]byte, error) {
	p := key.Params
	level := z.Level()
	ringQ := p.RLWE().RingQ().AtLevel(level)
	var out []byte
	for _, s := range subsets {
		if !contains(s, self) {
			continue
		}
		add, err := additiveShareAt(key, self, members, s)
		if err != nil {
			return nil, err
		}
		h := ringQ.NewPoly()
		ringQ.MulCoeffsMontgomery(z.Lattigo().Value[1], add.Value.Q, h)
		zero(add)
		if err := flood(p, level, sigmaBits, h); err != nil {
			return nil, err
		}
		out = append(out, DecryptionShare{Level: level, Value: h}.MarshalBinary()...)
	}
	return out, nil
}

// splitSubsetShares decodes member id's bundle: exactly one share at level
// per subset holding id, every coefficient reduced.
func splitSubsetShares(p *fhe.Params, level int, id transport.MemberID, subsets [][]transport.MemberID, b []byte) ([]DecryptionShare, error) {
	size := 1 + (level+1)*p.N()*8
	var held int
	for _, s := range subsets {
		if contains(s, id) {
			held++
		}
	}
	if len(b) != held*size {
		return nil, fmt.Errorf("refresh share bundle of %d bytes, want %d shares of %d", len(b), held, size)
	}
	out := make([]DecryptionShare, held)
	for k := range out {
		s, err := UnmarshalDecryptionShare(p, level, b[k*size:(k+1)*size])
		if err != nil {
			return nil, err
		}
		out[k] = s
	}
	return out, nil
}

// combineSubsetShares decodes every t-subset's decryption of z and returns
// the common slot values, or fails with ErrRefreshDisagree (naming the
// members every explanation needs, reported to g.OnEquivocation). A bundle
// that does not decode names its sender at once.
func combineSubsetShares(g Group, key *ThresholdKey, session string, z *fhe.Ciphertext, active []transport.MemberID, subsets [][]transport.MemberID, bundles map[transport.MemberID][]byte) ([]uint64, error) {
	p := key.Params
	level := z.Level()
	byMember := map[transport.MemberID][]DecryptionShare{}
	for _, id := range active {
		sh, err := splitSubsetShares(p, level, id, subsets, bundles[id])
		if err != nil {
			return nil, g.equivocation(&ErrEquivocation{Session: session, Member: id, Reason: err.Error()})
		}
		byMember[id] = sh
	}
	next := map[transport.MemberID]int{}
	vals := make([][]uint64, len(subsets))
	hashes := make([][32]byte, len(subsets))
	ringQ := p.RLWE().RingQ().AtLevel(level)
	for k, s := range subsets {
		acc := ringQ.NewPoly()
		ringQ.Add(acc, z.Lattigo().Value[0], acc)
		for _, id := range s {
			ringQ.Add(acc, byMember[id][next[id]].Value, acc)
			next[id]++
		}
		v, err := decodePhase(p, z, acc)
		if err != nil {
			return nil, err
		}
		vals[k], hashes[k] = v, hashValues(v)
	}
	distinct := map[[32]byte]bool{}
	for _, h := range hashes {
		distinct[h] = true
	}
	if len(distinct) == 1 {
		return vals[0], nil
	}
	e := &ErrRefreshDisagree{Session: session, Active: active, Values: len(distinct), Named: certainDeviators(active, key.T, subsets, hashes)}
	for _, id := range e.Named {
		_ = g.equivocation(&ErrEquivocation{Session: session, Member: id, Reason: "its refresh shares move the masked value (every explanation of the disagreement includes it)"})
	}
	return nil, e
}

// certainDeviators returns the members in every explanation of a
// disagreement: a set F of at most t−1 members such that every t-subset
// avoiding F decodes to one value. The true deviators form one such F (the
// subsets avoiding them are all honest), so a member in all of them
// certainly deviated, and no honest member is ever returned. With r ≤ 2t−1
// contributors every (t−1)-set explains anything, and the answer is empty.
func certainDeviators(active []transport.MemberID, t int, subsets [][]transport.MemberID, hashes [][32]byte) []transport.MemberID {
	r := len(active)
	index := map[transport.MemberID]int{}
	for i, id := range active {
		index[id] = i
	}
	masks := make([]uint64, len(subsets))
	for k, s := range subsets {
		for _, id := range s {
			masks[k] |= 1 << uint(index[id])
		}
	}
	all := uint64(1)<<uint(r) - 1
	inter := all
	found := false
	for f := uint64(0); f <= all; f++ {
		if bits.OnesCount64(f) > t-1 {
			continue
		}
		var first *[32]byte
		ok := true
		for k := range subsets {
			if masks[k]&f != 0 {
				continue
			}
			if first == nil {
				first = &hashes[k]
			} else if *first != hashes[k] {
				ok = false
				break
			}
		}
		if ok {
			found = true
			inter &= f
		}
	}
	var out []transport.MemberID
	if !found {
		return nil
	}
	for i, id := range active {
		if inter&(1<<uint(i)) != 0 {
			out = append(out, id)
		}
	}
	return out
}

// decodePhase decodes the slot values of a phase c0 + c1·s + E of z (NTT
// domain, z's level) with z's metadata, as Lattigo's decryptor and BGV
// decoder do.
func decodePhase(p *fhe.Params, z *fhe.Ciphertext, acc ring.Poly) ([]uint64, error) {
	return decodeSlots(p, z.Level(), *z.Lattigo().MetaData, acc, "refresh decode")
}

// unmask is the refresh's output: the values z encoded at the top level with
// z's metadata, as a trivial ciphertext, minus every mask at the top level.
func unmask(p *fhe.Params, z *fhe.Ciphertext, vals []uint64, masks map[transport.MemberID]*fhe.Ciphertext, active []transport.MemberID) (*fhe.Ciphertext, error) {
	xs := make([]*fhe.Ciphertext, len(active))
	for i, id := range active {
		xs[i] = masks[id]
	}
	return unmaskCts(p, *z.Lattigo().MetaData, vals, xs)
}

// unmaskCts is (Enc_top(vals), 0) under metadata md minus every ciphertext
// of xs (each at the top level).
func unmaskCts(p *fhe.Params, md rlwe.MetaData, vals []uint64, xs []*fhe.Ciphertext) (*fhe.Ciphertext, error) {
	top := p.MaxLevel()
	pt := bgv.NewPlaintext(p.BGV(), top)
	pt.MetaData = &md
	if err := safe("refresh encode", func() error { return bgv.NewEncoder(p.BGV()).Encode(vals, pt) }); err != nil {
		return nil, fmt.Errorf("protocol: refresh encode: %w", err)
	}
	ringQ := p.RLWE().RingQ().AtLevel(top)
	out := rlwe.NewCiphertext(p.RLWE(), 1, top)
	*out.MetaData = md
	ringQ.Add(out.Value[0], pt.Value, out.Value[0])
	for _, x := range xs {
		x := x.Lattigo()
		ringQ.Sub(out.Value[0], x.Value[0], out.Value[0])
		ringQ.Sub(out.Value[1], x.Value[1], out.Value[1])
	}
	return fhe.WrapCiphertext(p, out)
}

// RefreshBytes is what one contributor of a refresh among r contributors
// with threshold t sends to each receiver, for an input at level: its mask
// message (nonce, the top-level mask ciphertext and its proof; only the
// first t contributors send one) and its share bundle (one decryption
// share at level per t-subset holding it).
func RefreshBytes(p *fhe.Params, level, r, t int) (mask, shares int, err error) {
	if mask, err = maskBytes(p); err != nil {
		return 0, 0, err
	}
	return mask, RefreshSubsets(r-1, t-1) * (1 + (level+1)*p.N()*8), nil
}

// maskBytes is the wire size of one mask message on p (encryptMask: nonce,
// length, the top-level ciphertext and its proof).
func maskBytes(p *fhe.Params) (int, error) {
	pp, err := zkpok.ParamsFor(p)
	if err != nil {
		return 0, err
	}
	ct, err := fhe.WrapCiphertext(p, bgv.NewCiphertext(p.BGV(), 1, p.MaxLevel()))
	if err != nil {
		return 0, err
	}
	cb, err := ct.MarshalBinary()
	if err != nil {
		return 0, err
	}
	return maskNonce + 4 + len(cb) + pp.Size(), nil
}
