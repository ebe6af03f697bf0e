//go:build !unix

package workloads

func processCPU() (int64, bool) { return 0, false }
