package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"strings"

	"go.uber.org/zap"
)

// profileAddrEnv names the environment variable that, when set to a
// loopback host:port, serves Go's runtime profiles (net/http/pprof: heap,
// allocs, goroutine, profile, trace) there for the life of the process —
// a development aid for measuring where a devnet's memory or CPU goes,
// e.g.
//
//	FHEGATE_PPROF_ADDR=127.0.0.1:6060 fhegate devnet --http-port 0
//	go tool pprof -sample_index=inuse_space http://127.0.0.1:6060/debug/pprof/heap
//
// It is not a flag: no operator needs it, and it is refused on anything
// but a loopback address.
const profileAddrEnv = "FHEGATE_PPROF_ADDR"

// startProfileServer serves the runtime profiles on $FHEGATE_PPROF_ADDR
// if it is set; it returns an error for a non-loopback address.
func startProfileServer(log *zap.Logger) error {
	addr := strings.TrimSpace(os.Getenv(profileAddrEnv))
	if addr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s=%q: %w", profileAddrEnv, addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%s=%q: profiles are served on a loopback address only", profileAddrEnv, addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("%s: %w", profileAddrEnv, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	log.Info("runtime profiles served ("+profileAddrEnv+")", zap.String("url", "http://"+ln.Addr().String()+"/debug/pprof/"))
	go func() { _ = http.Serve(ln, mux) }() //nolint:gosec // loopback development aid
	return nil
}
