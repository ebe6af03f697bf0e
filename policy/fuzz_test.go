package policy_test

import (
	"errors"
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
