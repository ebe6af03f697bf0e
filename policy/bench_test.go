package policy_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/examples"
)

// BenchmarkCompile measures Compile per example (the on-chain registration
// cost): go test ./policy -run '^$' -bench Compile -benchtime 20x
func BenchmarkCompile(b *testing.B) {
	for _, name := range examples.Names() {
		doc := examples.MustGet(name)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for i := 0; i < b.N; i++ {
				if _, err := policy.Compile(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// worstCaseDocs are adversarial documents that push Compile to its work limit.
func worstCaseDocs() map[string][]byte {
	var b strings.Builder
	docs := map[string][]byte{}
	// 1. Many maximum-degree polynomials on distinct inputs.
	b.WriteString("fhegate_policy: 1\nname: w1\ninputs:\n")
	var terms []string
	for i := 0; i < 64; i++ {
		fmt.Fprintf(&b, "  - {name: x%d, min: 0, max: 511}\n", i)
		terms = append(terms, fmt.Sprintf("x%d >= %d", i, 7+i))
	}
	fmt.Fprintf(&b, "output: {expr: \"%s\"}\n", strings.Join(terms, " && "))
	docs["polys"] = []byte(b.String())
	// 2. Wide sums: value-set enumeration.
	b.Reset()
	b.WriteString("fhegate_policy: 1\nname: w2\ninputs:\n")
	terms = terms[:0]
	for i := 0; i < 64; i++ {
		fmt.Fprintf(&b, "  - {name: x%d, min: 0, max: 500}\n", i)
		terms = append(terms, fmt.Sprintf("%d*x%d", 2*i+1, i))
	}
	b.WriteString("let:\n")
	for l := 0; l < 40; l++ {
		fmt.Fprintf(&b, "  - {name: l%d, expr: \"%s\"}\n", l, strings.Join(terms[l%8:l%8+24], " + "))
	}
	b.WriteString("output: {type: score, min: -32768, max: 32768, expr: \"l1 - l2\"}\n")
	docs["sums"] = []byte(b.String())
	// 3. Large fused tables on one input.
	b.Reset()
	b.WriteString("fhegate_policy: 1\nname: w3\ninputs: [{name: x, min: 0, max: 4000}, {name: y, min: 0, max: 3}]\noutput: {expr: \"")
	for i := 0; i < 400; i++ {
		if i > 0 {
			b.WriteString(" || ")
		}
		fmt.Fprintf(&b, "x*x == %d", i*i+3)
	}
	b.WriteString("\"}\n")
	docs["tables"] = []byte(b.String())
	return docs
}

// BenchmarkCompileWorstCase: go test ./policy -run '^$' -bench CompileWorstCase -benchtime 3x
func BenchmarkCompileWorstCase(b *testing.B) {
	docs := worstCaseDocs()
	for _, name := range []string{"polys", "sums", "tables"} {
		doc := docs[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for i := 0; i < b.N; i++ {
				_, err := policy.Compile(doc)
				if err != nil && !errors.Is(err, policy.ErrSchema) && !errors.Is(err, policy.ErrTooDeep) && !errors.Is(err, policy.ErrRange) {
					b.Fatal(err)
				}
				if i == 0 {
					b.Logf("%d bytes: %v", len(doc), err)
				}
			}
		})
	}
}
