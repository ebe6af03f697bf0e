package gpu

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

var hostCPU = sync.OnceValue(func() string {
	name := runtime.GOARCH
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if ok && strings.TrimSpace(k) == "model name" {
				name = strings.TrimSpace(v)
				break
			}
		}
	}
	return name + " x" + strconv.Itoa(runtime.NumCPU())
})

// HostCPU describes the host processor ("model name ×cores"); part of the
// table fingerprint because the CPU side of every crossover is measured on it.
func HostCPU() string { return hostCPU() }
