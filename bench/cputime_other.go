//go:build !unix

package bench

import "time"

// ProcessCPU reports no CPU time where the platform has no getrusage.
func ProcessCPU() (time.Duration, bool) { return 0, false }
