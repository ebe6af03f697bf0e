package load

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// userHZ is Linux's clock tick for /proc/<pid>/stat times (USER_HZ, 100 on
// every architecture Go supports).
const userHZ = 100

// ProcessCPU returns a CommitteeCPU probe that sums user+system CPU time of
// the processes pids() names at each call (Linux /proc/<pid>/stat, fields
// 14 and 15): for a committee whose members run as separate processes on
// this machine. The set may change between calls (a member killed and
// restarted): the probe keeps the last reading of every process it has
// seen, so a process that is gone still counts what it had used when last
// read, and a new one counts from zero — the difference of two readings is
// never negative. Run reads it just before a Fault, so a killed process's
// work up to the kill is counted.
func ProcessCPU(pids func() []int) func() (time.Duration, error) {
	var mu sync.Mutex
	last := map[int]time.Duration{}
	return func() (time.Duration, error) {
		mu.Lock()
		defer mu.Unlock()
		for _, pid := range pids() {
			d, err := procStatCPU(pid)
			if err != nil {
				if _, seen := last[pid]; seen {
					continue // exited since its last reading
				}
				return 0, err
			}
			last[pid] = max(d, last[pid])
		}
		var total time.Duration
		for _, d := range last {
			total += d
		}
		return total, nil
	}
}

func procStatCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("load: CPU of process %d: %w", pid, err)
	}
	return parseProcStat(b)
}

// parseProcStat reads utime+stime from a /proc/<pid>/stat line. The command
// name (field 2) is in parentheses and may hold spaces or parentheses, so
// fields are counted from the last ')'.
func parseProcStat(b []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("load: /proc stat line without a command name")
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, fmt.Errorf("load: /proc stat line has %d fields after the name, want ≥ 13", len(f))
	}
	var ticks int64
	for _, s := range f[11:13] { // fields 14 (utime) and 15 (stime)
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 {
			return 0, fmt.Errorf("load: /proc stat CPU field %q", s)
		}
		ticks += v
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}
