package fhe_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/schemes/ckks"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

func TestSumSlotsSplit(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 4096; n <<= 1 {
		prod := 1
		for _, f := range fhe.SumSlotsSplit(n) {
			require.LessOrEqual(t, f, 16)
			require.GreaterOrEqual(t, f, 2)
			prod *= f
		}
		require.Equal(t, n, prod, "n=%d", n)
	}
	require.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8, 16, 24, 32, 40, 48, 56}, fhe.SumSlotsRotations(64))
	require.Empty(t, fhe.SumSlotsRotations(1))
}

// cyc returns slot i+k of v, rotating within the row of slot i.
func cyc(v []int64, i, k, row int) int64 {
	base := (i / row) * row
	return v[base+(i-base+k)%row]
}

func TestFastOpsBGV(t *testing.T) {
	t.Parallel()
	const n = 128
	kit := fhetest.MustKit(fhetest.InsecureBGVN10, append(fhe.SumSlotsRotations(n), 3, 5)...)
	p := kit.Params
	r := rand.New(rand.NewPCG(4, 4))
	x := fhetest.RandInts(r, p.Slots(), 100)
	ct, err := kit.Enc.EncryptInts(x)
	require.NoError(t, err)
	before, err := ct.MarshalBinary()
	require.NoError(t, err)

	checkSumSlotsBGV(t, kit, ct, x, n)
	checkRotateManyBGV(t, kit, ct, x)
	checkInnerProductBGV(t, kit, r)

	after, err := ct.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, before, after, "inputs must not change")
}

// checkSumSlotsBGV: SumSlots of ct (encrypting x) over m ≤ n slots, at the
// top level and after dropping to level 0.
func checkSumSlotsBGV(t *testing.T, kit *fhetest.Kit, ct *fhe.Ciphertext, x []int64, n int) {
	p := kit.Params
	row := p.Slots() / 2
	tm := int64(p.PlaintextModulus())
	for _, drop := range []int{0, p.MaxLevel()} {
		in, err := kit.Eval.DropLevels(ct, drop)
		require.NoError(t, err)
		for _, m := range []int{1, 2, 8, n} {
			sum, err := kit.Eval.SumSlots(in, m)
			require.NoError(t, err)
			require.Equal(t, in.Level(), sum.Level())
			got, err := kit.Dec.DecryptInts(sum)
			require.NoError(t, err)
			for i := range got {
				var want int64
				for k := range m {
					want += cyc(x, i, k, row)
				}
				require.Equal(t, mod(want, tm), mod(got[i], tm), "n=%d slot %d", m, i)
			}
		}
	}
}

// checkRotateManyBGV: RotateMany of ct (encrypting x) decrypts to the
// rotations of x and agrees with single rotations.
func checkRotateManyBGV(t *testing.T, kit *fhetest.Kit, ct *fhe.Ciphertext, x []int64) {
	p := kit.Params
	row := p.Slots() / 2
	tm := int64(p.PlaintextModulus())
	steps := []int{0, 1, 3, 5, 8}
	rots, err := kit.Eval.RotateMany(ct, steps)
	require.NoError(t, err)
	require.Len(t, rots, len(steps))
	for j, k := range steps {
		got, err := kit.Dec.DecryptInts(rots[j])
		require.NoError(t, err)
		for i := range got {
			require.Equal(t, mod(cyc(x, i, k, row), tm), mod(got[i], tm), "step %d slot %d", k, i)
		}
		single, err := kit.Eval.Rotate(ct, k)
		require.NoError(t, err)
		sg, err := kit.Dec.DecryptInts(single)
		require.NoError(t, err)
		require.Equal(t, sg, got)
	}
}

// checkInnerProductBGV: InnerProduct of three pairs of fresh random vectors
// drawn from r costs one level and decrypts to the slot-wise inner product.
func checkInnerProductBGV(t *testing.T, kit *fhetest.Kit, r *rand.Rand) {
	p := kit.Params
	tm := int64(p.PlaintextModulus())
	var as, bs []*fhe.Ciphertext
	var xs, ys [][]int64
	for range 3 {
		a, b := fhetest.RandInts(r, p.Slots(), 50), fhetest.RandInts(r, p.Slots(), 50)
		ca, err := kit.Enc.EncryptInts(a)
		require.NoError(t, err)
		cb, err := kit.Enc.EncryptInts(b)
		require.NoError(t, err)
		as, bs, xs, ys = append(as, ca), append(bs, cb), append(xs, a), append(ys, b)
	}
	ip, err := kit.Eval.InnerProduct(as, bs)
	require.NoError(t, err)
	require.Equal(t, p.MaxLevel()-1, ip.Level())
	got, err := kit.Dec.DecryptInts(ip)
	require.NoError(t, err)
	for i := range got {
		var want int64
		for j := range xs {
			want += xs[j][i] * ys[j][i]
		}
		require.Equal(t, mod(want, tm), mod(got[i], tm))
	}
}

func TestFastOpsCKKS(t *testing.T) {
	t.Parallel()
	const n = 64
	kit := fhetest.MustKit(fhetest.InsecureCKKSN10, fhe.SumSlotsRotations(n)...)
	p := kit.Params
	row := p.Slots()
	r := rand.New(rand.NewPCG(5, 5))
	x := fhetest.RandFloats(r, row)
	ct, err := kit.Enc.EncryptFloats(x)
	require.NoError(t, err)
	at := func(i int) float64 { return x[i%row] }

	low, err := kit.Eval.DropLevels(ct, p.MaxLevel())
	require.NoError(t, err)
	for _, in := range []*fhe.Ciphertext{ct, low} {
		sum, err := kit.Eval.SumSlots(in, n)
		require.NoError(t, err)
		got, err := kit.Dec.DecryptFloats(sum)
		require.NoError(t, err)
		want := make([]float64, row)
		for i := range want {
			for k := range n {
				want[i] += at(i + k)
			}
		}
		requireClose(t, want, got, 1e-5)

		// Same function as the facade's InnerSum(1, n) tree.
		ref, err := kit.Eval.InnerSum(in, 1, n)
		require.NoError(t, err)
		rg, err := kit.Dec.DecryptFloats(ref)
		require.NoError(t, err)
		requireClose(t, rg, got, 2e-5)
	}

	rots, err := kit.Eval.RotateMany(ct, []int{1, 2, 4, 0})
	require.NoError(t, err)
	for j, k := range []int{1, 2, 4, 0} {
		got, err := kit.Dec.DecryptFloats(rots[j])
		require.NoError(t, err)
		want := make([]float64, row)
		for i := range want {
			want[i] = at(i + k)
		}
		requireClose(t, want, got, 1e-5)
	}

	var as, bs []*fhe.Ciphertext
	want := make([]float64, row)
	for range 4 {
		a, b := fhetest.RandFloats(r, row), fhetest.RandFloats(r, row)
		ca, err := kit.Enc.EncryptFloats(a)
		require.NoError(t, err)
		cb, err := kit.Enc.EncryptFloats(b)
		require.NoError(t, err)
		as, bs = append(as, ca), append(bs, cb)
		for i := range want {
			want[i] += a[i] * b[i]
		}
	}
	ip, err := kit.Eval.InnerProduct(as, bs)
	require.NoError(t, err)
	got, err := kit.Dec.DecryptFloats(ip)
	require.NoError(t, err)
	requireClose(t, want, got, 1e-5)
}

func TestFastOpsDeterministicAndConcurrent(t *testing.T) {
	t.Parallel()
	kit := fhetest.MustKit(fhetest.InsecureCKKSN10, fhe.SumSlotsRotations(64)...)
	r := rand.New(rand.NewPCG(6, 6))
	ct, err := kit.Enc.EncryptFloats(fhetest.RandFloats(r, kit.Params.Slots()))
	require.NoError(t, err)
	first, err := kit.Eval.SumSlots(ct, 64)
	require.NoError(t, err)
	want, err := first.MarshalBinary()
	require.NoError(t, err)
	errs := make(chan error, 4)
	outs := make(chan []byte, 4)
	for range 4 {
		go func() {
			s, err := kit.Eval.SumSlots(ct, 64)
			if err != nil {
				errs <- err
				return
			}
			b, err := s.MarshalBinary()
			errs <- err
			outs <- b
		}()
	}
	for range 4 {
		require.NoError(t, <-errs)
	}
	for range 4 {
		require.Equal(t, want, <-outs)
	}
}

func TestFastOpsErrors(t *testing.T) {
	t.Parallel()
	kit := fhetest.MustKit(fhetest.InsecureCKKSN10) // power-of-two keys only
	other := fhetest.MustKit(fhetest.InsecureBGVN10)
	ct, err := kit.Enc.EncryptFloats([]float64{1, 2})
	require.NoError(t, err)
	bct, err := other.Enc.EncryptInts([]int64{1})
	require.NoError(t, err)

	_, err = kit.Eval.SumSlots(ct, 64) // needs the BSGS keys (3, 5, …)
	require.Error(t, err)
	_, err = kit.Eval.SumSlots(ct, 3)
	require.Error(t, err)
	_, err = kit.Eval.SumSlots(ct, 0)
	require.Error(t, err)
	_, err = kit.Eval.SumSlots(nil, 2)
	require.Error(t, err)
	_, err = kit.Eval.SumSlots(bct, 2)
	require.Error(t, err)
	sum, err := kit.Eval.SumSlots(ct, 4) // 4: steps 1, 2, 3 — 3 is missing
	require.Error(t, err)
	require.Nil(t, sum)

	_, err = kit.Eval.RotateMany(ct, []int{3})
	require.Error(t, err)
	_, err = kit.Eval.RotateMany(nil, []int{1})
	require.Error(t, err)
	_, err = kit.Eval.RotateMany(bct, []int{1})
	require.Error(t, err)

	_, err = kit.Eval.InnerProduct(nil, nil)
	require.Error(t, err)
	_, err = kit.Eval.InnerProduct([]*fhe.Ciphertext{ct}, []*fhe.Ciphertext{ct, ct})
	require.Error(t, err)
	low, err := kit.Eval.DropLevels(ct, 1)
	require.NoError(t, err)
	_, err = kit.Eval.InnerProduct([]*fhe.Ciphertext{ct}, []*fhe.Ciphertext{low})
	require.Error(t, err)
	bottom, err := kit.Eval.DropLevels(ct, kit.Params.MaxLevel())
	require.NoError(t, err)
	_, err = kit.Eval.InnerProduct([]*fhe.Ciphertext{bottom}, []*fhe.Ciphertext{bottom})
	require.ErrorIs(t, err, fhe.ErrLevel)
	_, err = kit.Eval.InnerProduct([]*fhe.Ciphertext{ct}, []*fhe.Ciphertext{bct})
	require.Error(t, err)
}

func TestHoistedRotationSumLattigo(t *testing.T) {
	t.Parallel()
	kit := fhetest.MustKit(fhetest.InsecureCKKSN10, 3)
	p := kit.Params
	ev := ckks.NewEvaluator(p.CKKS(), rlwe.NewMemEvaluationKeySet(kit.Keys.Relin.Lattigo(), kit.Keys.Galois.Lattigo()...)).Evaluator
	r := rand.New(rand.NewPCG(7, 7))
	x := fhetest.RandFloats(r, p.Slots())
	ct, err := kit.Enc.EncryptFloats(x)
	require.NoError(t, err)
	in := ct.Lattigo()
	els := p.GaloisElementsForRotations([]int{1, 3})
	out := rlwe.NewCiphertext(p.RLWE(), 1, in.Level())
	s := fhe.NewRotationScratch(p.RLWE())

	for _, tc := range []struct {
		els      []uint64
		withSelf bool
		coef     [3]float64 // of x, rot1(x), rot3(x)
	}{
		{[]uint64{els[0], els[1]}, true, [3]float64{1, 1, 1}},
		{[]uint64{els[0], els[1]}, false, [3]float64{0, 1, 1}},
		{[]uint64{1, els[0]}, false, [3]float64{1, 1, 0}},
		{[]uint64{1, 1}, true, [3]float64{3, 0, 0}},
		{nil, false, [3]float64{0, 0, 0}},
	} {
		require.NoError(t, fhe.HoistedRotationSum(ev, in, tc.els, tc.withSelf, out, s))
		w, err := fhe.WrapCiphertext(p, out)
		require.NoError(t, err)
		got, err := kit.Dec.DecryptFloats(w)
		require.NoError(t, err)
		n := len(x)
		want := make([]float64, n)
		for i := range want {
			want[i] = tc.coef[0]*x[i] + tc.coef[1]*x[(i+1)%n] + tc.coef[2]*x[(i+3)%n]
		}
		requireClose(t, want, got, 1e-5)
	}

	// Errors, not panics.
	require.Error(t, fhe.HoistedRotationSum(ev, in, els, true, in, s), "aliasing")
	require.Error(t, fhe.HoistedRotationSum(ev, nil, els, true, out, s))
	require.Error(t, fhe.HoistedRotationSum(ev, in, p.GaloisElementsForRotations([]int{5}), true, out, s), "missing key")
	other := fhe.NewRotationScratch(fhe.MustParams(fhe.CKKSN13).RLWE())
	require.Error(t, fhe.HoistedRotationSum(ev, in, els, true, out, other), "foreign scratch")
	deg2 := rlwe.NewCiphertext(p.RLWE(), 2, in.Level())
	require.Error(t, fhe.HoistedRotationSum(ev, deg2, els, true, out, s))
	require.Error(t, fhe.SumSlotsLattigo(p, ev, in, 4, out, out, s), "out == tmp")
	tmp := rlwe.NewCiphertext(p.RLWE(), 1, in.Level())
	require.Error(t, fhe.SumSlotsLattigo(p, ev, in, 6, out, tmp, s), "not a power of two")
}
