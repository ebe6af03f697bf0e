package fhe_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

func TestPublicPresetsWithinSecurityBound(t *testing.T) {
	t.Parallel()
	for _, p := range fhe.Presets() {
		if p.Insecure() {
			continue
		}
		params, err := fhe.NewParams(p.ID)
		require.NoError(t, err, p.Name)
		require.LessOrEqual(t, params.LogQP(), fhe.HESecurityBound128(params.LogN()), "%s exceeds the 128-bit bound", p.Name)
		require.Equal(t, p.Depth, params.MaxLevel(), "%s: documented depth", p.Name)
	}
}

func TestPresetLookup(t *testing.T) {
	t.Parallel()
	p, err := fhe.PresetByName("bgv-n13-t65537")
	require.NoError(t, err)
	require.Equal(t, fhe.BGVN13, p.ID)
	_, err = fhe.PresetByID(0x7f)
	require.Error(t, err)
	require.Error(t, fhe.RegisterTestPreset(0x10, "InsecureX", fhe.SchemeBGV, 1, 10, []int{40}, []int{40}, 0), "public id range")
	require.Error(t, fhe.RegisterTestPreset(0x90, "Fast", fhe.SchemeBGV, 1, 10, []int{40}, []int{40}, 0), "name must say Insecure")
}

// TestPresetDepth checks each preset's documented depth: Depth chained
// squarings decrypt exactly (BGV) or within 1e-5 (CKKS).
func TestPresetDepth(t *testing.T) {
	t.Parallel()
	ids := []fhe.PresetID{fhetest.InsecureBGVN10, fhetest.InsecureCKKSN10, fhetest.InsecureBGVN10Deep, fhe.BGVN13, fhe.CKKSN13}
	if !testing.Short() {
		ids = append(ids, fhe.BGVN14, fhe.CKKSN14)
	}
	for _, id := range ids {
		kit := fhetest.MustKit(id)
		t.Run(kit.Params.Preset.Name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(id)))
			p := kit.Params
			if p.Scheme() == fhe.SchemeBGV {
				tmod := int64(p.PlaintextModulus())
				x := fhetest.RandInts(r, p.Slots(), tmod/2)
				ct, err := kit.Enc.EncryptInts(x)
				require.NoError(t, err)
				for d := 0; d < p.Preset.Depth; d++ {
					ct, err = kit.Eval.Square(ct)
					require.NoError(t, err)
					for i := range x {
						x[i] = mod(x[i]*x[i], tmod)
					}
				}
				require.Equal(t, 0, ct.Level())
				got, err := kit.Dec.DecryptUints(ct)
				require.NoError(t, err)
				for i := range x {
					require.Equal(t, uint64(x[i]), got[i], "slot %d", i)
				}
				return
			}
			x := fhetest.RandFloats(r, p.Slots())
			ct, err := kit.Enc.EncryptFloats(x)
			require.NoError(t, err)
			for d := 0; d < p.Preset.Depth; d++ {
				ct, err = kit.Eval.Square(ct)
				require.NoError(t, err)
				for i := range x {
					x[i] *= x[i]
				}
			}
			got, err := kit.Dec.DecryptFloats(ct)
			require.NoError(t, err)
			requireClose(t, x, got, 1e-5)
		})
	}
}

// then chains a fallible evaluation step.
func then(c *fhe.Ciphertext, err error) func(func(*fhe.Ciphertext) (*fhe.Ciphertext, error)) (*fhe.Ciphertext, error) {
	return func(f func(*fhe.Ciphertext) (*fhe.Ciphertext, error)) (*fhe.Ciphertext, error) {
		if err != nil {
			return nil, err
		}
		return f(c)
	}
}

func mod(x, t int64) int64 {
	x %= t
	if x < 0 {
		x += t
	}
	return x
}

func requireClose(t *testing.T, want, got []float64, tol float64) {
	t.Helper()
	for i := range want {
		require.InDelta(t, want[i], got[i], tol, "slot %d", i)
	}
}

// TestBGVOps checks every evaluator operation against a plaintext reference.
func TestBGVOps(t *testing.T) {
	t.Parallel()
	kit := fhetest.MustKit(fhetest.InsecureBGVN10, 3, -5)
	p := kit.Params
	ref := bgvRef{n: p.Slots(), t: int64(p.PlaintextModulus())}
	r := rand.New(rand.NewPCG(7, 7))
	in := bgvOpInputs{
		a: fhetest.RandInts(r, ref.n, 1000),
		b: fhetest.RandInts(r, ref.n, 1000),
		v: fhetest.RandInts(r, ref.n, 50),
	}
	var err error
	in.ca, err = kit.Enc.EncryptInts(in.a)
	require.NoError(t, err)
	in.cb, err = kit.Sym.EncryptInts(in.b)
	require.NoError(t, err)
	half := ref.n / 2
	for _, c := range bgvOpCases(kit, ref, in) {
		t.Run(c.name, func(t *testing.T) {
			ct, err := c.run()
			require.NoError(t, err)
			got, err := kit.Dec.DecryptUints(ct)
			require.NoError(t, err)
			for i := range got {
				if c.check > 0 && i%half >= c.check {
					continue
				}
				require.Equal(t, uint64(mod(c.want[i], ref.t)), got[i], "slot %d", i)
			}
		})
	}
}

// bgvOpInputs are the operands of TestBGVOps: two encrypted vectors (a
// public-key and a symmetric encryption) and a plaintext vector.
type bgvOpInputs struct {
	a, b, v []int64
	ca, cb  *fhe.Ciphertext
}

// bgvOpCase is one evaluator operation and its plaintext result.
type bgvOpCase struct {
	name string
	run  func() (*fhe.Ciphertext, error)
	want []int64
	// only the first `check` slots of each row are defined (inner sum)
	check int
}

func bgvOpCases(kit *fhetest.Kit, ref bgvRef, in bgvOpInputs) []bgvOpCase {
	ev, ca, cb, a, b, v, tm := kit.Eval, in.ca, in.cb, in.a, in.b, in.v, ref.t
	add := func(x, y int64) int64 { return x + y }
	mul := func(x, y int64) int64 { return x * y }
	id := func(x int64) int64 { return x }
	return []bgvOpCase{
		{"add", func() (*fhe.Ciphertext, error) { return ev.Add(ca, cb) }, ref.zip(add, a, b), 0},
		{"sub", func() (*fhe.Ciphertext, error) { return ev.Sub(ca, cb) }, ref.zip(func(x, y int64) int64 { return x - y }, a, b), 0},
		{"neg", func() (*fhe.Ciphertext, error) { return ev.Neg(ca) }, ref.each(func(x int64) int64 { return -x }, a), 0},
		{"add-plain", func() (*fhe.Ciphertext, error) { return ev.AddInts(ca, v) }, ref.zip(add, a, v), 0},
		{"mul-plain", func() (*fhe.Ciphertext, error) { return ev.MulInts(ca, v) }, ref.zip(mul, a, v), 0},
		{"mul-const", func() (*fhe.Ciphertext, error) { return ev.MulConst(ca, -3) }, ref.each(func(x int64) int64 { return -3 * x }, a), 0},
		{"add-const", func() (*fhe.Ciphertext, error) { return ev.AddConst(ca, 42) }, ref.each(func(x int64) int64 { return x + 42 }, a), 0},
		{"mul", func() (*fhe.Ciphertext, error) { return ev.Mul(ca, cb) }, ref.zip(mul, a, b), 0},
		// Scalar operations after a rescale, where the plaintext scale is no longer 1.
		{"mul-then-add-const", func() (*fhe.Ciphertext, error) {
			return then(ev.Mul(ca, cb))(func(x *fhe.Ciphertext) (*fhe.Ciphertext, error) { return ev.AddConst(x, 1) })
		},
			ref.zip(func(x, y int64) int64 { return x*y + 1 }, a, b), 0},
		{"mul-then-mul-const", func() (*fhe.Ciphertext, error) {
			return then(ev.Mul(ca, cb))(func(x *fhe.Ciphertext) (*fhe.Ciphertext, error) { return ev.MulConst(x, 3) })
		},
			ref.zip(func(x, y int64) int64 { return mod(x*y, tm) * 3 }, a, b), 0},
		{"square", func() (*fhe.Ciphertext, error) { return ev.Square(ca) }, ref.zip(mul, a, a), 0},
		{"rotate+3", func() (*fhe.Ciphertext, error) { return ev.Rotate(ca, 3) }, ref.each(id, ref.rot(a, 3)), 0},
		{"rotate-5", func() (*fhe.Ciphertext, error) { return ev.Rotate(ca, -5) }, ref.each(id, ref.rot(a, -5)), 0},
		{"inner-sum", func() (*fhe.Ciphertext, error) { return ev.InnerSum(ca, 4, 16) }, ref.innerSum(a, 4, 16), 4},
		{"drop-level", func() (*fhe.Ciphertext, error) { return ev.DropLevels(ca, 2) }, ref.each(id, a), 0},
		{"poly", func() (*fhe.Ciphertext, error) { return ev.EvalPolyInts(ca, []int64{5, -2, 0, 7}) },
			ref.each(func(x int64) int64 { return mod(mod(5-2*x, tm)+mod(7*mod(mod(x*x, tm)*x, tm), tm), tm) }, a), 0},
	}
}

// bgvRef is the plaintext model of BGV slots: n slots in two rows of n/2,
// arithmetic mod t.
type bgvRef struct {
	n int
	t int64
}

// rot rotates each row of n/2 left by k.
func (r bgvRef) rot(x []int64, k int) []int64 {
	half := r.n / 2
	out := make([]int64, r.n)
	for row := 0; row < 2; row++ {
		for i := 0; i < half; i++ {
			out[row*half+i] = x[row*half+((i+k)%half+half)%half]
		}
	}
	return out
}

func (r bgvRef) zip(f func(x, y int64) int64, x, y []int64) []int64 {
	out := make([]int64, r.n)
	for i := range out {
		out[i] = mod(f(x[i], y[i]), r.t)
	}
	return out
}

func (r bgvRef) each(f func(x int64) int64, x []int64) []int64 {
	out := make([]int64, r.n)
	for i := range out {
		out[i] = mod(f(x[i]), r.t)
	}
	return out
}

// innerSum sums cnt strided blocks of batch slots in each row into the
// first batch slots of the row.
func (r bgvRef) innerSum(x []int64, batch, cnt int) []int64 {
	half := r.n / 2
	out := make([]int64, r.n)
	for row := 0; row < 2; row++ {
		for i := 0; i < batch; i++ {
			var s int64
			for j := 0; j < cnt; j++ {
				s += x[row*half+i+j*batch]
			}
			out[row*half+i] = mod(s, r.t)
		}
	}
	return out
}

func TestCKKSOps(t *testing.T) {
	t.Parallel()
	kit := fhetest.MustKit(fhetest.InsecureCKKSN10, 3)
	p := kit.Params
	n := p.Slots()
	r := rand.New(rand.NewPCG(9, 9))
	a, b, v := fhetest.RandFloats(r, n), fhetest.RandFloats(r, n), fhetest.RandFloats(r, n)
	ca, err := kit.Enc.EncryptFloats(a)
	require.NoError(t, err)
	cb, err := kit.Sym.EncryptFloats(b)
	require.NoError(t, err)
	f2 := func(f func(x, y float64) float64, x, y []float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = f(x[i], y[i])
		}
		return out
	}
	sum := make([]float64, n)
	for i := 0; i < 8; i++ {
		for j := 0; j < 16; j++ {
			sum[i] += a[i+8*j]
		}
	}
	rot3 := make([]float64, n)
	for i := range rot3 {
		rot3[i] = a[(i+3)%n]
	}
	cases := []struct {
		name  string
		run   func() (*fhe.Ciphertext, error)
		want  []float64
		check int
	}{
		{"add", func() (*fhe.Ciphertext, error) { return kit.Eval.Add(ca, cb) }, f2(func(x, y float64) float64 { return x + y }, a, b), 0},
		{"sub", func() (*fhe.Ciphertext, error) { return kit.Eval.Sub(ca, cb) }, f2(func(x, y float64) float64 { return x - y }, a, b), 0},
		{"neg", func() (*fhe.Ciphertext, error) { return kit.Eval.Neg(ca) }, f2(func(x, _ float64) float64 { return -x }, a, a), 0},
		{"add-plain", func() (*fhe.Ciphertext, error) { return kit.Eval.AddFloats(ca, v) }, f2(func(x, y float64) float64 { return x + y }, a, v), 0},
		{"mul-plain", func() (*fhe.Ciphertext, error) { return kit.Eval.MulFloats(ca, v) }, f2(func(x, y float64) float64 { return x * y }, a, v), 0},
		{"mul-const", func() (*fhe.Ciphertext, error) { return kit.Eval.MulConst(ca, 0.5) }, f2(func(x, _ float64) float64 { return 0.5 * x }, a, a), 0},
		{"add-const", func() (*fhe.Ciphertext, error) { return kit.Eval.AddConst(ca, 0.25) }, f2(func(x, _ float64) float64 { return x + 0.25 }, a, a), 0},
		{"mul", func() (*fhe.Ciphertext, error) { return kit.Eval.Mul(ca, cb) }, f2(func(x, y float64) float64 { return x * y }, a, b), 0},
		{"rotate", func() (*fhe.Ciphertext, error) { return kit.Eval.Rotate(ca, 3) }, rot3, 0},
		{"inner-sum", func() (*fhe.Ciphertext, error) { return kit.Eval.InnerSum(ca, 8, 16) }, sum, 8},
		{"poly", func() (*fhe.Ciphertext, error) { return kit.Eval.EvalPolyFloats(ca, []float64{0.5, -1, 0.25}) },
			f2(func(x, _ float64) float64 { return 0.5 - x + 0.25*x*x }, a, a), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ct, err := c.run()
			require.NoError(t, err)
			got, err := kit.Dec.DecryptFloats(ct)
			require.NoError(t, err)
			m := len(got)
			if c.check > 0 {
				m = c.check
			}
			requireClose(t, c.want[:m], got[:m], 1e-5)
		})
	}
}

func TestEvaluatorErrors(t *testing.T) {
	t.Parallel()
	kit := fhetest.MustKit(fhetest.InsecureBGVN10)
	other := fhetest.MustKit(fhetest.InsecureCKKSN10)
	ct, err := kit.Enc.EncryptInts([]int64{1, 2, 3})
	require.NoError(t, err)
	foreign, err := other.Enc.EncryptFloats([]float64{1})
	require.NoError(t, err)
	_, err = kit.Eval.Add(ct, foreign)
	require.ErrorContains(t, err, "evaluator is InsecureBGVN10")
	_, err = kit.Eval.Add(ct, nil)
	require.ErrorContains(t, err, "nil")
	_, err = kit.Eval.Rotate(ct, 3)
	require.ErrorContains(t, err, "no galois key")
	low, err := kit.Eval.DropLevels(ct, ct.Level())
	require.NoError(t, err)
	_, err = kit.Eval.Mul(low, low)
	require.ErrorIs(t, err, fhe.ErrLevel)
	_, err = kit.Eval.EvalPolyInts(ct, make([]int64, 64))
	require.ErrorIs(t, err, fhe.ErrLevel)
	_, err = kit.Eval.MulConst(ct, 0.5)
	require.Error(t, err)
	_, err = kit.Enc.EncryptInts(make([]int64, kit.Params.Slots()+1))
	require.Error(t, err)
	_, err = kit.Enc.EncryptFloats([]float64{1})
	require.Error(t, err)
	_, err = kit.Dec.DecryptUints(foreign)
	require.Error(t, err)
}

// TestDeterminism: the same evaluation on the same decoded inputs gives the
// same bytes, also when run concurrently.
func TestDeterminism(t *testing.T) {
	t.Parallel()
	kit := fhetest.MustKit(fhetest.InsecureBGVN10, 1)
	r := rand.New(rand.NewPCG(3, 3))
	ca, err := kit.Enc.EncryptInts(fhetest.RandInts(r, kit.Params.Slots(), 100))
	require.NoError(t, err)
	cb, err := kit.Sym.EncryptInts(fhetest.RandInts(r, kit.Params.Slots(), 100))
	require.NoError(t, err)
	run := func() []byte {
		x, err := kit.Eval.Mul(ca, cb)
		require.NoError(t, err)
		x, err = kit.Eval.Rotate(x, 1)
		require.NoError(t, err)
		x, err = kit.Eval.AddInts(x, []int64{1, 2, 3})
		require.NoError(t, err)
		x, err = kit.Eval.EvalPolyInts(x, []int64{1, 2, 3})
		require.NoError(t, err)
		b, err := x.MarshalBinary()
		require.NoError(t, err)
		return b
	}
	first := run()
	var wg sync.WaitGroup
	results := make([][]byte, 4)
	for i := range results {
		wg.Add(1)
		go func() { defer wg.Done(); results[i] = run() }()
	}
	wg.Wait()
	for i, b := range results {
		require.True(t, bytes.Equal(first, b), "run %d differs", i)
	}
}

func TestCiphertextRoundTrip(t *testing.T) {
	t.Parallel()
	for _, id := range []fhe.PresetID{fhetest.InsecureBGVN10, fhetest.InsecureCKKSN10} {
		kit := fhetest.MustKit(id)
		t.Run(kit.Params.Preset.Name, func(t *testing.T) {
			var pk, seeded *fhe.Ciphertext
			var err error
			if kit.Params.Scheme() == fhe.SchemeBGV {
				pk, err = kit.Enc.EncryptInts([]int64{1, -2, 3})
				require.NoError(t, err)
				seeded, err = kit.Sym.EncryptInts([]int64{4, 5, -6})
			} else {
				pk, err = kit.Enc.EncryptFloats([]float64{0.5, -0.25})
				require.NoError(t, err)
				seeded, err = kit.Sym.EncryptFloats([]float64{0.125})
			}
			require.NoError(t, err)
			require.True(t, seeded.Seeded())
			require.False(t, pk.Seeded())
			prod, err := kit.Eval.Mul(pk, seeded)
			require.NoError(t, err)
			for name, ct := range map[string]*fhe.Ciphertext{"pk": pk, "seeded": seeded, "product": prod} {
				b, err := ct.MarshalBinary()
				require.NoError(t, err, name)
				require.Len(t, b, ct.EncodedSize(), name)
				back, err := fhe.UnmarshalCiphertext(b)
				require.NoError(t, err, name)
				b2, err := back.MarshalBinary()
				require.NoError(t, err, name)
				require.Equal(t, b, b2, "%s: decode∘encode is the identity", name)
				require.Equal(t, fhe.HandleOf(b), mustHandle(t, back), name)
				if kit.Params.Scheme() == fhe.SchemeBGV {
					w, err := kit.Dec.DecryptUints(ct)
					require.NoError(t, err)
					g, err := kit.Dec.DecryptUints(back)
					require.NoError(t, err)
					require.Equal(t, w, g, name)
				} else {
					w, err := kit.Dec.DecryptFloats(ct)
					require.NoError(t, err)
					g, err := kit.Dec.DecryptFloats(back)
					require.NoError(t, err)
					requireClose(t, w, g, 1e-9)
				}
			}
			full, _ := pk.MarshalBinary()
			half, _ := seeded.MarshalBinary()
			require.Less(t, len(half), len(full)/2+64, "seeded encoding is about half the size")
		})
	}
}

func mustHandle(t *testing.T, c *fhe.Ciphertext) fhe.Handle {
	h, err := c.Handle()
	require.NoError(t, err)
	return h
}

func TestKeyRoundTrip(t *testing.T) {
	t.Parallel()
	kit := fhetest.MustKit(fhetest.InsecureBGVN10, 5)
	pkb, err := kit.Keys.Public.MarshalBinary()
	require.NoError(t, err)
	pk, err := fhe.UnmarshalPublicKey(pkb)
	require.NoError(t, err)
	again, _ := pk.MarshalBinary()
	require.Equal(t, pkb, again)

	rlb, err := kit.Keys.Relin.MarshalBinary()
	require.NoError(t, err)
	rlk, err := fhe.UnmarshalRelinKey(rlb)
	require.NoError(t, err)
	again, _ = rlk.MarshalBinary()
	require.Equal(t, rlb, again)

	gkb, err := kit.Keys.Galois.MarshalBinary()
	require.NoError(t, err)
	gks, err := fhe.UnmarshalGaloisKeys(gkb)
	require.NoError(t, err)
	again, _ = gks.MarshalBinary()
	require.Equal(t, gkb, again)
	require.Equal(t, kit.Keys.Galois.Elements(), gks.Elements())

	skb, err := kit.Keys.Secret.MarshalBinary()
	require.NoError(t, err)
	sk, err := fhe.UnmarshalSecretKey(skb)
	require.NoError(t, err)

	// Decoded keys work: encrypt under the decoded public key, evaluate with
	// the decoded evaluation keys, decrypt with the decoded secret key.
	eval, err := fhe.NewEvaluator(kit.Params, fhe.EvaluationKeys{Relin: rlk, Galois: gks})
	require.NoError(t, err)
	ct, err := fhe.NewEncryptor(pk).EncryptInts([]int64{3, 4, 5, 6, 7, 8})
	require.NoError(t, err)
	ct, err = eval.Mul(ct, ct)
	require.NoError(t, err)
	ct, err = eval.Rotate(ct, 5)
	require.NoError(t, err)
	got, err := fhe.NewDecryptor(sk).DecryptInts(ct)
	require.NoError(t, err)
	require.Equal(t, int64(64), got[0])
}

func TestDecodeRejects(t *testing.T) {
	t.Parallel()
	kit := fhetest.MustKit(fhetest.InsecureBGVN10)
	ct, err := kit.Enc.EncryptInts([]int64{1})
	require.NoError(t, err)
	good, err := ct.MarshalBinary()
	require.NoError(t, err)
	seededCt, err := kit.Sym.EncryptInts([]int64{1})
	require.NoError(t, err)
	seeded, err := seededCt.MarshalBinary()
	require.NoError(t, err)
	mut := func(src []byte, f func(b []byte) []byte) []byte { return f(append([]byte(nil), src...)) }
	q0 := kit.Params.Q()[0]
	cases := []struct {
		name string
		in   []byte
		kind fhe.DecodeErrorKind
	}{
		{"empty", nil, fhe.ErrKindTruncated},
		{"short header", good[:5], fhe.ErrKindTruncated},
		{"magic", mut(good, func(b []byte) []byte { b[0] = 'X'; return b }), fhe.ErrKindMagic},
		{"version", mut(good, func(b []byte) []byte { b[4] = 2; return b }), fhe.ErrKindVersion},
		{"kind", mut(good, func(b []byte) []byte { b[5] = byte(fhe.KindPublicKey); return b }), fhe.ErrKindKind},
		{"scheme", mut(good, func(b []byte) []byte { b[6] = byte(fhe.SchemeCKKS); return b }), fhe.ErrKindScheme},
		{"preset", mut(good, func(b []byte) []byte { b[7] = 0x7e; return b }), fhe.ErrKindPreset},
		{"level", mut(good, func(b []byte) []byte { b[8] = 9; return b }), fhe.ErrKindLevel},
		{"unknown flag", mut(good, func(b []byte) []byte { b[9] |= 0x80; return b }), fhe.ErrKindFlags},
		{"not NTT", mut(good, func(b []byte) []byte { b[9] &^= fhe.FlagNTT; return b }), fhe.ErrKindFlags},
		{"degree 0", mut(good, func(b []byte) []byte { b[10] = 0; return b }), fhe.ErrKindDegree},
		{"degree 3", mut(good, func(b []byte) []byte { b[10] = 3; return b }), fhe.ErrKindDegree},
		{"reserved", mut(good, func(b []byte) []byte { b[11] = 1; return b }), fhe.ErrKindNonCanonical},
		{"truncated body", good[:len(good)-1], fhe.ErrKindLength},
		{"trailing", append(append([]byte(nil), good...), 0), fhe.ErrKindTrailing},
		{"scale zero", mut(good, func(b []byte) []byte { binary.LittleEndian.PutUint64(b[12:], 0); return b }), fhe.ErrKindScale},
		{"scale ≥ t", mut(good, func(b []byte) []byte { binary.LittleEndian.PutUint64(b[12:], 65537); return b }), fhe.ErrKindScale},
		{"coefficient = q", mut(good, func(b []byte) []byte { binary.LittleEndian.PutUint64(b[20:], q0); return b }), fhe.ErrKindCoefficient},
		{"coefficient max", mut(good, func(b []byte) []byte { binary.LittleEndian.PutUint64(b[len(b)-8:], math.MaxUint64); return b }), fhe.ErrKindCoefficient},
		{"seeded degree 2", mut(seeded, func(b []byte) []byte { b[10] = 2; return b }), fhe.ErrKindDegree},
		{"seeded trailing", append(append([]byte(nil), seeded...), 1), fhe.ErrKindTrailing},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := fhe.UnmarshalCiphertext(c.in)
			var de *fhe.DecodeError
			require.True(t, errors.As(err, &de), "got %v", err)
			require.Equal(t, c.kind, de.Kind, "got %v", err)
			require.ErrorIs(t, err, &fhe.DecodeError{Kind: c.kind})
		})
	}
	for name, dec := range map[string]func([]byte) error{
		"public":    func(b []byte) error { _, err := fhe.UnmarshalPublicKey(b); return err },
		"relin":     func(b []byte) error { _, err := fhe.UnmarshalRelinKey(b); return err },
		"galois":    func(b []byte) error { _, err := fhe.UnmarshalGaloisKeys(b); return err },
		"secret":    func(b []byte) error { _, err := fhe.UnmarshalSecretKey(b); return err },
		"ct-as-key": func(b []byte) error { _, err := fhe.UnmarshalPublicKey(good); return err },
	} {
		require.Error(t, dec(good[:20]), name)
	}
}
