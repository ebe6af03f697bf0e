package zkpok_test

import (
	"testing"

	"github.com/fhegate/fhegate/fhe"
)

// BenchmarkProve / BenchmarkVerify: one proof per ciphertext (covers all N
// coefficients) for both public BGV presets; proof bytes as a metric.
// go test ./fhe/zkpok -run '^$' -bench . -benchtime 5x
func BenchmarkProve(b *testing.B) {
	for _, id := range []fhe.PresetID{fhe.BGVN13, fhe.BGVN14} {
		k := getKit(b, id)
		b.Run(k.p.Preset.Name, func(b *testing.B) {
			var size int
			for b.Loop() {
				_, _, proof := encrypt(b, k, []int64{1, 2, 3}, victim)
				size = len(proof)
			}
			b.ReportMetric(float64(size), "proof-bytes")
		})
	}
}

func BenchmarkVerify(b *testing.B) {
	for _, id := range []fhe.PresetID{fhe.BGVN13, fhe.BGVN14} {
		k := getKit(b, id)
		ct, h, proof := encrypt(b, k, []int64{1, 2, 3}, victim)
		b.Run(k.p.Preset.Name, func(b *testing.B) {
			for b.Loop() {
				if err := k.key.Verify(ct, h, victim, proof); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(proof)), "proof-bytes")
		})
	}
}
