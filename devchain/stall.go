package devchain

import (
	"time"

	"go.uber.org/zap"
)

// stallWatch decides when a head that does not move is a stall: the head has
// stayed at one block for at least after while the pool held executable
// (pending) transactions the whole time. An idle chain (nothing pending) never
// stalls. It is a pure function of what it is shown, so it is tested with
// made-up times.
type stallWatch struct {
	after time.Duration

	head    uint64
	started bool
	since   time.Time // first observation of head with transactions pending; zero while none are
	warned  time.Time // last warning in the current stall; zero if none
}

// stallReport is what observe found: warn (log a warning now), recovered (the
// head moved or the pool emptied after a warning), and how long the head has
// been stuck.
type stallReport struct {
	warn, recovered bool
	stuckFor        time.Duration
}

// observe records the head and the number of pending transactions at now.
func (w *stallWatch) observe(now time.Time, head uint64, pending int) stallReport {
	var r stallReport
	if !w.started || head != w.head || pending == 0 {
		r.recovered = !w.warned.IsZero()
		w.started, w.head = true, head
		w.since, w.warned = time.Time{}, time.Time{}
		if pending > 0 {
			w.since = now
		}
		return r
	}
	if w.since.IsZero() {
		w.since = now
	}
	r.stuckFor = now.Sub(w.since)
	if r.stuckFor >= w.after && (w.warned.IsZero() || now.Sub(w.warned) >= w.after) {
		r.warn = true
		w.warned = now
	}
	return r
}

// stallPoll is how often watchStall looks at the head, at most: a quarter of
// the warning delay, so a warning comes at most a quarter late.
const stallPoll = time.Second

// watchStall logs a warning while the head has not advanced for after with
// executable transactions pending, and a note when it moves again, until
// Close. It reads the chain and the pool without the producer's lock, which a
// stuck producer holds.
func (c *Chain) watchStall(after time.Duration) {
	defer c.watchers.Done()
	every := min(after/4, stallPoll)
	if every <= 0 {
		every = after
	}
	t := time.NewTicker(every)
	defer t.Stop()
	w := stallWatch{after: after}
	pool, chain := c.eth.TxPool(), c.eth.BlockChain()
	for {
		select {
		case <-c.quit:
			return
		case now := <-t.C:
			head := chain.LastAcceptedBlock().NumberU64()
			pending, queued := pool.Stats()
			r := w.observe(now, head, pending)
			switch {
			case r.warn:
				c.log.Warn("devchain head stalled: executable transactions pending but no block accepted",
					zap.Uint64("head", head),
					zap.Duration("stuckFor", r.stuckFor.Round(time.Millisecond)),
					zap.Int("pending", pending),
					zap.Int("queued", queued),
				)
			case r.recovered:
				c.log.Info("devchain head advancing again", zap.Uint64("head", head), zap.Int("pending", pending))
			}
		}
	}
}
