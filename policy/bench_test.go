package policy_test

import (
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
