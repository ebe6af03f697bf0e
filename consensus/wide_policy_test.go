package consensus_test

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/examples"
	"github.com/fhegate/fhegate/precompiles"
	"github.com/fhegate/fhegate/precompiles/corebackends"
)

// TestWidePolicyVerdicts: policies over wide unsigned integers (a 64-bit
// token balance, two 16-bit codes against a 1,000-entry list) answered by
// an n=3, t=2 committee on the deep test preset: each request is ONE vector
// input holding every base-16 digit, evaluated with the plan's collective
// refreshes, and every member's verdict equals a reference written by hand
// from the policy's text (not the compiler's plan).
func TestWidePolicyVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two committees")
	}
	listed := map[uint64]bool{}
	for x := uint64(20240601); len(listed) < 1000; {
		x = x*6364136223846793005 + 1442695040888963407
		listed[x>>48] = true
	}
	var onList, offList uint64
	for v := uint64(0); onList == 0 || offList == 0; v++ {
		if listed[v] && onList == 0 {
			onList = v
		} else if !listed[v] && offList == 0 {
			offList = v
		}
	}
	for _, tc := range []struct {
		name string
		vals [][]uint64
		ref  func(v []uint64) bool
	}{
		{"amounts/token_balance", [][]uint64{{2_500_000_000_000_000_000}, {2_499_999_999_999_999_999}, {^uint64(0)}},
			func(v []uint64) bool { return v[0] >= 2_500_000_000_000_000_000 }},
		{"amounts/sanctions_screen", [][]uint64{{offList, offList, 20000}, {onList, offList, 9000}, {onList, offList, 20000}, {offList, onList, 5}},
			func(v []uint64) bool { return !listed[v[1]] && (v[2] <= 10000 || !listed[v[0]]) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := examples.MustGet(tc.name)
			kf := newPolicyFixture(t, [32]byte{0xd0, byte(len(tc.name))}, spec, nil)
			f := kf.packFixture
			for k, v := range tc.vals {
				s := make([]string, len(v))
				for i, x := range v {
					s[i] = strconv.FormatUint(x, 10)
				}
				row, err := kf.plan.DecisionRow(s)
				require.NoError(t, err)
				slots, err := f.p.VectorInts(row)
				require.NoError(t, err)
				ct, err := f.enc.EncryptInts(slots)
				require.NoError(t, err)
				req := f.lc.Chain.Post(chainio.Request{ID: [32]byte{0xcf, byte(k), byte(len(tc.name))}, PolicyID: kf.id, Kind: chainio.KindPolicy, Inputs: []fhe.Handle{f.put(ct)}})
				require.Equal(t, len(row), f.lc.Member(1).VectorWidthOf(req))
				out, errs := f.onAll(func(m *Member) ([]*chainio.Verdict, error) {
					v, err := m.Process(context.Background(), req)
					return []*chainio.Verdict{v}, err
				})
				want := big.NewInt(0)
				if tc.ref(v) {
					want.SetInt64(1)
				}
				for i := range out {
					require.NoError(t, errs[i])
					require.Equal(t, want, out[i][0].Result, "%s %v (member %d)", tc.name, v, i)
				}
			}
		})
	}
}

// TestChainAcceptsWhatCommitteeEvaluates: for policies over wide integers
// (the shipped ones and ones past the chain's limits), FHEPolicy's
// admission (precompiles.AdmitPolicy with the chain's compiler) accepts a
// spec exactly when the committee's registry compiles it for BGVN14, both
// for single requests and for packed batches.
func TestChainAcceptsWhatCommitteeEvaluates(t *testing.T) {
	specs := map[string][]byte{}
	for _, name := range examples.AmountNames() {
		specs[name] = examples.MustGet(name)
	}
	doc := func(inputs, expr string) []byte {
		return []byte("fhegate_policy: 1\nname: w\ninputs:\n" + inputs + "output: {expr: \"" + expr + "\"}\n")
	}
	specs["u16 lt"] = doc("  - {name: x, type: uint16}\n", "x < 40000")
	specs["u32 xy"] = doc("  - {name: x, type: uint32}\n  - {name: y, type: uint32}\n", "x <= y")
	specs["u64 xy (too costly)"] = doc("  - {name: x, type: uint64}\n  - {name: y, type: uint64}\n", "x + y <= 100000000000000000")
	specs["u64 mul (too costly)"] = doc("  - {name: x, type: uint64}\n", "x * 1000 >= 18446744073709551615")
	accepted := 0
	for name, spec := range specs {
		_, chainErr := precompiles.AdmitPolicy(corebackends.Policy{}, spec)
		pc := circuit.NewPolicyCircuits(fhe.BGVN14)
		committeeErr := pc.Register([32]byte{1}, spec)
		if committeeErr == nil {
			_, committeeErr = pc.LookupPacked([32]byte{1})
		}
		if chainErr == nil {
			accepted++
			require.NoError(t, committeeErr, "%s: the chain accepts it, the committee must evaluate it", name)
			plan, err := policy.Compile(spec)
			require.NoError(t, err)
			require.Equal(t, fhe.BGVN14, fhe.PresetID(plan.Preset), name)
		}
	}
	require.GreaterOrEqual(t, accepted, len(examples.AmountNames())+2)
}

// TestPackedWideDigitIsolated: a client's input proof shows knowledge of
// its plaintext, not that each base-16 digit of a wide integer is below 16.
// In a packed batch of amounts/bid_reserve requests (two uint16 amounts,
// four digits each, ONE vector input per request), one client encrypts a
// top digit of 16, 300 or 65536 (≡ −1 mod t). Every other request's verdict
// equals bid ≥ reserve, written by hand; the crafted request gets either
// ResultRejectedInput (its slot decrypted out of range and the committee
// isolated it, pipeline/isolate.go) or the plan over Z_t on its own digits — only
// its own verdict moves (docs/derivations.md, "Wide integers").
func TestPackedWideDigitIsolated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a committee")
	}
	const n, bad = 8, 5
	spec := examples.MustGet("amounts/bid_reserve")
	kf := newPolicyFixture(t, [32]byte{0xd1, 0x6e}, spec, nil)
	f := kf.packFixture
	r := rand.New(rand.NewPCG(25, 16))
	for ci, crafted := range []int64{16, 300, 65536} {
		b := chainio.PackedBatch{PolicyID: kf.id, Session: fmt.Sprintf("test/pack/wide-digit/%d", crafted)}
		want := map[[32]byte]int64{}
		var badRow []int64
		for k := range n {
			bid, reserve := r.Uint64N(65536), r.Uint64N(65536)
			if k%3 == 0 {
				reserve = bid
			}
			row, err := kf.plan.DecisionRow([]string{strconv.FormatUint(bid, 10), strconv.FormatUint(reserve, 10)})
			require.NoError(t, err)
			if k == bad {
				row[3] = crafted // bid.3, the top digit of bid
				badRow = row
			}
			slots, err := f.p.VectorInts(row)
			require.NoError(t, err)
			ct, err := f.enc.EncryptInts(slots)
			require.NoError(t, err)
			req := f.lc.Chain.Post(chainio.Request{ID: [32]byte{0xd2, byte(ci), byte(k)}, PolicyID: kf.id, Kind: chainio.KindPolicy, Inputs: []fhe.Handle{f.put(ct)}})
			b.Requests = append(b.Requests, req)
			want[req.ID] = 0
			if bid >= reserve {
				want[req.ID] = 1
			}
		}
		out, errs := kf.processAll(b)
		for i := range out {
			require.NoError(t, errs[i], "member %d", i+1)
			require.Len(t, out[i], n)
			for s, v := range out[i] {
				if s == bad {
					continue
				}
				require.Equal(t, big.NewInt(want[v.RequestID]), v.Result, "digit %d: member %d, slot %d", crafted, i+1, s)
			}
		}
		offender := out[0][bad]
		if !offender.IsRejectedInput() {
			col := make([][]int64, len(badRow))
			for j, x := range badRow {
				col[j] = []int64{x}
			}
			z, err := kf.plan.EvalPlain(col)
			require.NoError(t, err)
			require.Equal(t, new(big.Int).SetUint64(mod(z[0], f.p.PlaintextModulus())), offender.Result, "digit %d: the crafted request's own verdict is the plan over Z_t", crafted)
		}
		t.Logf("top digit %d: crafted request's verdict %v (rejected input: %v)", crafted, offender.Result, offender.IsRejectedInput())
	}
}
