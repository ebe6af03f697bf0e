// Package backends enumerates the NTT backends compiled into this binary
// (cpu always; opencl with -tags opencl; metal on darwin with cgo; native —
// C with AVX-512 IFMA or scalar C — with cgo), opens
// them, and assembles the process dispatcher: accelerator + self-test +
// crossover table (see package gpu).
package backends
