// Package calib measures the crossover table of package gpu: the ladder of
// batched forward-NTT times, CPU backend versus accelerator, over ring degrees
// N = 2^10 … 2^16 and batch sizes B = 1, 2, 4, … 2048 within a time budget
// (best-of-k, interleaved rounds), the crossover per N (gpu.DeriveCrossover),
// an LP-137-style text table, a speedup plot (gonum.org/v1/plot), and the
// --verify check that routed time ≤ 1.05 × min(cpu, accelerator) per cell.
//
// Every cell times what fhe/engine hands the gate: input words below
// EngineInputBound(dir)·q (forward: Lattigo's lazy outputs in [0, 2q);
// inverse: reduced), and on the CPU side Lattigo's lazy transforms (the
// engine's unrouted path, never slower than the reduced ones), so a shape
// routed by the table is not slower than the CPU for the engine's real
// inputs (a backend that treats lazy words differently — the native vector
// path reduces them on load — pays that cost in the ladder).
// TestCalibrationMatchesEngine records the engine's key switch and rescale
// on every public preset and checks their inputs against the bound.
//
// Lux's LP-137 (../shared/reference/000_*.txt, outside this repository;
// docs/LP-137.md has ours) measured the M1 Max ladder this reproduces per
// machine; the reading of a ladder is the user's: on PoCL the "accelerator"
// is the same CPU running OpenCL C, so no GPU speed can be inferred from it.
package calib
