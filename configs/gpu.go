package configs

import _ "embed"

//go:embed crossover.json
var crossoverJSON []byte

// CrossoverJSON returns a copy of the embedded GPU crossover table
// (crossover.json, schema gpu.TableVersion). The shipped table was measured
// on fhegate's 2-vCPU AMD EPYC machine class without AVX-512 (native backend,
// scalar C, vs Lattigo's Go NTT, per shape): it has no crossovers, so every
// NTT runs on the CPU there; on another machine its fingerprint does not
// match and the dispatcher stays CPU only until `fhegate calibrate` measured
// that machine and its output replaced the file (or is passed with --table).
func CrossoverJSON() []byte { return append([]byte(nil), crossoverJSON...) }

// CrossoverFile is the file name of the crossover table inside configs/ and
// inside a `fhegate calibrate --out` directory.
const CrossoverFile = "crossover.json"
