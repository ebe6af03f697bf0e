package policy_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/examples"
)

// FuzzParse: Compile never panics; it returns a plan or a *policy.Error, and
// a plan's plaintext evaluation is defined on its declared ranges.
// Seed corpus: testdata/fuzz/FuzzParse. Run: go test ./policy -run '^$' -fuzz FuzzParse -fuzztime 60s
func FuzzParse(f *testing.F) {
	for _, name := range examples.Names() {
		f.Add(examples.MustGet(name))
	}
	f.Add([]byte("fhegate_policy: 1\nname: p\ninputs: [{name: x, min: -3, max: 3}]\noutput: {type: score, min: -9, max: 9, expr: \"if(x > 0, x*x, -x)\"}\n"))
	f.Add([]byte("fhegate_policy: 1\nname: w\ninputs: [{name: x, type: uint16}, {name: y, type: uint32, max: 99999}]\noutput: {expr: \"x * 3 + 7 <= y && x in {1, 300..310}\"}\n"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		p, err := policy.Compile(doc)
		if err != nil {
			var pe *policy.Error
			if !errors.As(err, &pe) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		if p.Depth > p.PresetDepth || len(p.CanonicalBytes()) == 0 {
			t.Fatalf("plan depth %d > preset %d", p.Depth, p.PresetDepth)
		}
		in := make([][]int64, len(p.Inputs))
		for j, d := range p.Inputs {
			in[j] = []int64{d.Min, d.Max}
		}
		want, err := p.EvalSpec(in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.EvalPlain(in)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if want[i] != got[i] {
				t.Fatalf("spec %v ≠ plan %v on %v", want, got, in)
			}
		}
	})
}

// FuzzDecisionRow: splitting a decision's declared values into plan inputs
// never panics; it returns a row within every input's range or an
// ErrInput, and a wide value's digits recombine to the value.
func FuzzDecisionRow(f *testing.F) {
	plan, err := policy.Compile([]byte("fhegate_policy: 1\nname: w\ninputs: [{name: a, min: -5, max: 9}, {name: x, type: uint64}, {name: y, type: uint32, max: 1000000}]\noutput: {expr: \"a > 0 && x > y\"}\n"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add("3", "18446744073709551615", "1000000")
	f.Add("-5", "0", "1000001")
	f.Add("x", "-1", " 7")
	f.Fuzz(func(t *testing.T, a, x, y string) {
		row, err := plan.DecisionRow([]string{a, x, y})
		if err != nil {
			if !errors.Is(err, policy.ErrInput) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		for j, in := range plan.Inputs {
			if row[j] < in.Min || row[j] > in.Max {
				t.Fatalf("input %s = %d outside [%d, %d]", in.Name, row[j], in.Min, in.Max)
			}
		}
		var v uint64
		for i := 16; i >= 1; i-- {
			v = v<<policy.DigitBits | uint64(row[i])
		}
		if got := strconv.FormatUint(v, 10); got != strings.TrimSpace(x) && strings.TrimLeft(strings.TrimSpace(x), "0+") != strings.TrimLeft(got, "0") {
			t.Fatalf("digits recombine to %s, want %s", got, x)
		}
	})
}
