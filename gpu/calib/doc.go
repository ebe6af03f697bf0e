// Package calib measures the crossover table of package gpu: the ladder of
// batched forward-NTT times, CPU backend versus accelerator, over ring degrees
// N = 2^10 … 2^16 and batch sizes B = 1, 2, 4, … 2048 within a time budget
// (best-of-k, interleaved rounds), the crossover per N (gpu.DeriveCrossover),
// an LP-137-style text table, a speedup plot (gonum.org/v1/plot), and the
// --verify check that routed time ≤ 1.05 × min(cpu, accelerator) per cell.
//
// Lux's LP-137 (../shared/reference/000_*.txt, outside this repository;
// docs/LP-137.md has ours) measured the M1 Max ladder this reproduces per
// machine; the reading of a ladder is the user's: on PoCL the "accelerator"
// is the same CPU running OpenCL C, so no GPU speed can be inferred from it.
package calib
