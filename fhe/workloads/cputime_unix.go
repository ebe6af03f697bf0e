//go:build unix

package workloads

import "syscall"

// processCPU returns the CPU time (user + system) the process has used, in
// nanoseconds, and whether it is available.
func processCPU() (int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
