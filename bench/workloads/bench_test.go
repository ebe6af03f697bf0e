package workloads

import (
	"math/rand/v2"
	"testing"

	"github.com/fhegate/fhegate/fhe"
)

// BenchmarkWorkloads measures each variant at the real presets (CKKSN13,
// BGVN13): BenchmarkWorkloads/<name>/<variant>. Only Case.Run is timed;
// key generation, encryption, plaintext encoding and decryption are not.
// Use -benchtime=Nx with a small N on shared machines.
func BenchmarkWorkloads(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, name := range Names {
		b.Run(name, func(b *testing.B) {
			env := testEnv(b, presetFor(name, fhe.BGVN13, fhe.CKKSN13))
			c, err := New(name, env, rng, false)
			if err != nil {
				b.Fatal(err)
			}
			for _, v := range Variants {
				b.Run(v.String(), func(b *testing.B) {
					for b.Loop() {
						if _, err := c.Run(v); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
