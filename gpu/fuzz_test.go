package gpu_test

import (
	"testing"

	"github.com/fhegate/fhegate/gpu"
)

// FuzzParseTable: the crossover table decoder never panics, and whatever it
// accepts re-encodes to a table it accepts again with the same routing.
func FuzzParseTable(f *testing.F) {
	f.Add([]byte(`{"version":1,"fingerprint":{},"entries":[]}`))
	f.Add([]byte(`{"version":1,"fingerprint":{"backend":"opencl","device":"d","driver":"v","host_cpu":"c"},"entries":[{"log_n":10,"crossover":8,"ladder":[{"b":8,"cpu_ns":80,"accel_ns":40,"speedup":2}]}]}`))
	f.Add([]byte(`{"version":2,"fingerprint":{"backend":"native"},"entries":[{"log_n":14,"moduli":6,"dir":"forward","crossover":2,"ladder":[]},{"log_n":14,"moduli":6,"dir":"inverse","crossover":null,"ladder":[]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := gpu.ParseTable(data)
		if err != nil {
			return
		}
		out, err := tab.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		again, err := gpu.ParseTable(out)
		if err != nil {
			t.Fatalf("re-encoded table rejected: %v", err)
		}
		for logN := 4; logN <= gpu.MaxLogN; logN++ {
			b1, ok1 := tab.Crossover(1 << logN)
			b2, ok2 := again.Crossover(1 << logN)
			if b1 != b2 || ok1 != ok2 {
				t.Fatalf("routing changed at 2^%d", logN)
			}
			for _, l := range []int{1, 2, 7, gpu.MaxModuli} {
				for _, dir := range []gpu.Direction{gpu.Forward, gpu.Inverse} {
					sh := gpu.Shape{LogN: logN, Moduli: l, B: 1, Dir: dir}
					b1, ok1 := tab.Route(sh)
					b2, ok2 := again.Route(sh)
					if b1 != b2 || ok1 != ok2 {
						t.Fatalf("shape routing changed at %v", sh)
					}
				}
			}
		}
	})
}
