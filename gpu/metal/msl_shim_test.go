package metal_test

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe/engine/kernels"
	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/gputest"
)

// mslCPP is a gpu.Backend that runs ntt.metal compiled as C++ (shim:
// testdata/shim/metal_stdlib, grid loop: testdata/mslhost.cpp) in a child
// process. It exists to check the MSL kernels byte-equal against Lattigo on
// machines without Metal.
type mslCPP struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  *bufio.Writer
	out *bufio.Reader
}

func (*mslCPP) Name() string { return "msl-as-cpp" }

func (*mslCPP) Info() gpu.DeviceInfo {
	return gpu.DeviceInfo{Backend: "msl-as-cpp", Device: "host CPU via g++", HostCPU: gpu.HostCPU()}
}

func (m *mslCPP) Close() error {
	_ = m.cmd.Process.Kill()
	_ = m.cmd.Wait()
	return nil
}

func (m *mslCPP) NTT(dir gpu.Direction, p *gpu.Params, src, dst [][]uint64) error {
	if err := gpu.CheckBatch(p, src, dst); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	st, roots := kernels.ForwardStages(p.LogN()), p.RootsForward
	inv := uint64(0)
	if dir == gpu.Inverse {
		st, roots, inv = kernels.InverseStages(p.LogN()), p.RootsBackward, 1
	}
	w := []uint64{inv, uint64(p.LogN()), uint64(len(src)), p.Q, p.MRedConstant, p.BRedConstant[0], p.NInv, uint64(len(st))}
	for _, s := range st {
		w = append(w, uint64(s.LogT), uint64(s.Reduce))
	}
	w = append(w, roots[:p.N]...)
	for _, s := range src {
		w = append(w, s...)
	}
	if err := binary.Write(m.in, binary.LittleEndian, w); err != nil {
		return err
	}
	if err := m.in.Flush(); err != nil {
		return err
	}
	out := make([]uint64, len(src)*p.N)
	if err := binary.Read(m.out, binary.LittleEndian, out); err != nil {
		return fmt.Errorf("mslhost: %w", err)
	}
	for i := range dst {
		copy(dst[i], out[i*p.N:])
	}
	return nil
}

// buildMSLHost compiles the MSL kernels as C++; it skips the test when no
// C++ compiler is installed.
func buildMSLHost(t *testing.T) *mslCPP {
	t.Helper()
	cxx := os.Getenv("CXX")
	if cxx == "" {
		cxx = "g++"
	}
	if _, err := exec.LookPath(cxx); err != nil {
		t.Skipf("no C++ compiler (%s): the MSL-as-C++ byte-equality check needs g++ (set CXX to use another)", cxx)
	}
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skipf("shim assumes a 64-bit little-endian LP64 host, have %s", runtime.GOARCH)
	}
	dir := t.TempDir()
	write := func(name, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600))
	}
	// The kernel files exactly as embedded: ntt.metal includes ntt_arith.h
	// and <metal_stdlib> (the shim).
	write("ntt.metal", kernels.MetalKernelFile())
	write(kernels.ArithHeaderFile, kernels.ArithHeader())
	shim, err := filepath.Abs("testdata/shim")
	require.NoError(t, err)
	host, err := filepath.Abs("testdata/mslhost.cpp")
	require.NoError(t, err)
	bin := filepath.Join(dir, "mslhost")
	cmd := exec.Command(cxx, "-std=c++17", "-O2", "-Wall", "-Wno-attributes", "-Wno-unused-parameter",
		"-I", shim, "-I", dir, "-x", "c++", host, "-o", bin)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "compiling ntt.metal as C++:\n%s", out)

	run := exec.Command(bin)
	stdin, err := run.StdinPipe()
	require.NoError(t, err)
	stdout, err := run.StdoutPipe()
	require.NoError(t, err)
	run.Stderr = os.Stderr
	require.NoError(t, run.Start())
	m := &mslCPP{cmd: run, in: bufio.NewWriterSize(stdin, 1<<20), out: bufio.NewReaderSize(stdout, 1<<20)}
	t.Cleanup(func() { _ = stdin.Close(); _, _ = io.Copy(io.Discard, stdout); _ = m.Close() })
	return m
}

// TestMSLAsCPPConformance runs the conformance suite on the MSL source.
func TestMSLAsCPPConformance(t *testing.T) {
	gputest.Run(t, buildMSLHost(t))
}

func TestMSLAsCPPSelfTest(t *testing.T) {
	require.NoError(t, gpu.SelfTest(buildMSLHost(t), 11))
}
