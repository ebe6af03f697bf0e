package configs

import _ "embed"

//go:embed crossover.json
var crossoverJSON []byte

// CrossoverJSON returns a copy of the embedded GPU crossover table
// (crossover.json, schema gpu.TableVersion). The shipped default has no
// crossovers: every NTT runs on the CPU until `fhegate calibrate` measured
// this machine and its output replaced the file (or is passed with --table).
func CrossoverJSON() []byte { return append([]byte(nil), crossoverJSON...) }

// CrossoverFile is the file name of the crossover table inside configs/ and
// inside a `fhegate calibrate --out` directory.
const CrossoverFile = "crossover.json"
