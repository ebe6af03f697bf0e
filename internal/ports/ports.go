// Package ports picks loopback listening ports that a restarted process can
// bind again.
//
// A port from the kernel's ephemeral range (Linux:
// net.ipv4.ip_local_port_range, 32768–60999 by default) — which is what
// listening on 127.0.0.1:0 hands out — is also what the kernel gives the
// local end of every outgoing connection. While the listener is down (a
// committee member killed and restarted), any process's next outgoing
// connection may take its port, and the restart then fails with "address
// already in use" for as long as that connection lives (a websocket
// subscription: for the whole run). The end-to-end test lost its killed
// member this way. Ports below the ephemeral range are never handed out for
// outgoing connections, so a listener there gets its port back.
package ports

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// DefaultEphemeralLow is the first port of Linux's default ephemeral range.
const DefaultEphemeralLow = 32768

// EphemeralRange returns the kernel's ephemeral port range: Linux's
// /proc/sys/net/ipv4/ip_local_port_range, or 32768–60999 where it cannot be
// read (other systems use 49152–65535, inside that).
func EphemeralRange() (lo, hi int) {
	lo, hi = DefaultEphemeralLow, 60999
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return lo, hi
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return lo, hi
	}
	l, err1 := strconv.Atoi(f[0])
	h, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || l < 1 || h < l || h > 65535 {
		return lo, hi
	}
	return l, h
}

// Ephemeral reports whether port lies in the kernel's ephemeral range (a
// listener there may find its port taken by an outgoing connection after a
// restart).
func Ephemeral(port int) bool {
	lo, hi := EphemeralRange()
	return port >= lo && port <= hi
}

// pool is where FreeBase and Listen draw ports from: the 12,000 ports
// below the ephemeral range (20000–32767 by default), at least from 1024.
func pool() (lo, hi int) {
	e, _ := EphemeralRange()
	hi = e - 1
	lo = max(1024, hi-12000)
	return lo, hi
}

// FreeBase returns a base port such that base+1 … base+n were free on
// 127.0.0.1 a moment ago, below the ephemeral range (a process listening
// on base+i gets it back after a restart). Ports are drawn at random, so
// tests running in parallel rarely pick the same ones.
func FreeBase(n int) (int, error) {
	lo, hi := pool()
	if n < 1 || hi-lo < n+1 {
		return 0, fmt.Errorf("ports: no room for %d ports in %d–%d", n, lo, hi)
	}
	for range 200 {
		base := lo + rand.IntN(hi-lo-n)
		free := true
		for p := base + 1; p <= base+n && free; p++ {
			ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err != nil {
				free = false
				continue
			}
			_ = ln.Close()
		}
		if free {
			return base, nil
		}
	}
	return 0, fmt.Errorf("ports: no %d consecutive free loopback ports in %d–%d", n, lo, hi)
}

// Listen listens on a free 127.0.0.1 port below the ephemeral range.
func Listen() (net.Listener, error) {
	lo, hi := pool()
	var last error
	for range 200 {
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(lo+rand.IntN(hi-lo+1)))
		if err == nil {
			return ln, nil
		}
		last = err
	}
	return nil, fmt.Errorf("ports: no free loopback port in %d–%d: %w", lo, hi, last)
}

// InUse reports whether err is a listen failing because the address is in
// use.
func InUse(err error) bool { return errors.Is(err, syscall.EADDRINUSE) }
