// Package par runs independent pieces of one computation on several
// goroutines with results that do not depend on how many: each piece i
// writes only its own output slot, and errors are joined in index order.
// Callers that reduce (sum, hash) combine the per-piece results afterwards
// in index order, so a parallel reduction is the sequential one, byte for
// byte, whatever the worker count (DESIGN.md, "Determinism").
package par

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
)

// Workers is the number of goroutines ForEach uses for n pieces when asked
// for want (want ≤ 0: GOMAXPROCS): at least 1, at most n.
func Workers(n, want int) int {
	if want <= 0 {
		want = runtime.GOMAXPROCS(0)
	}
	return max(min(n, want), 1)
}

// ForEach runs f(w, i) for every i in [0, n) on Workers(n, workers)
// goroutines; w < Workers(n, workers) names the goroutine running the
// piece, so f may use per-worker scratch (scratch[w]) without locks. Pieces
// are handed out in index order; every piece runs even when another fails,
// and the errors are joined in index order. With one worker the pieces run
// in order on the caller's goroutine.
func ForEach(n, workers int, f func(w, i int) error) error {
	if n <= 0 {
		return nil
	}
	errs := make([]error, n)
	w := Workers(n, workers)
	if w == 1 {
		for i := range n {
			errs[i] = f(0, i)
		}
		return errors.Join(errs...)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for wi := range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				errs[i] = f(wi, i)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
