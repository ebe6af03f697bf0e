package transport

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
)

// Key selects the messages a protocol step waits for.
type Key struct {
	Session string
	Type    Type
	From    MemberID
}

// Mux demultiplexes a Transport's incoming messages by (session, type,
// sender). Messages that arrive before anyone waits for them are buffered,
// bounded both by count (MaxBuffered) and by total session+payload bytes
// (MaxBufferedBytes): a peer may send frames of up to DefaultMaxMessage
// (64 MiB) for sessions nobody will ever wait for, and 8192 of them would
// be 512 GiB.
//
// Fairness. The bounds are shared, but eviction is per sender: beyond a
// bound, the messages dropped are those of the sender that holds the most
// of it (messages or bytes, whichever bound is exceeded), oldest first and
// sessions nobody waits in before sessions in progress (a session is in
// progress from the first Recv on it until Forget). Another sender's
// message is dropped to make room for an arrival only if that sender holds
// more than its fair share (the bound divided by the number of peers) and
// the message is not of a session in progress: when the largest holder has
// nothing such, the next largest is tried, and at the end the arriving
// sender's own oldest message goes. So a sender within its fair share
// never loses a message to another sender, and a peer flooding
// fresh sessions evicts only its own messages: it cannot make an honest
// peer's early reveal disappear and have that peer named missing. A
// protocol step whose early messages were dropped sees the sender as
// missing, like a slow peer. Handlers registered with Handle receive every
// message of a type instead (for request-style traffic such as store
// replication).
type Mux struct {
	t   Transport
	log *zap.Logger

	mu       sync.Mutex
	queues   map[Key][]Message
	waiters  map[Key]chan struct{}
	holds    map[MemberID]*holding // per sender: what it has buffered
	peers    int                   // len(t.Peers()), fixed: the fair share's divisor
	active   map[string]bool       // sessions in progress: Recv called, not yet forgotten
	actOrder []string              // active's sessions, oldest first (bounded: maxActive)
	buffered int
	bufBytes int64
	maxMsgs  int
	maxBytes int64
	handlers map[Type]func(Message)
	seen     map[MemberID]uint64
	recvd    uint64
	closed   bool
	done     chan struct{}
	// ctx is cancelled by Close (under mu): it ends the late replies in
	// flight, which bg counts and Close waits for, and stops new ones.
	bg     sync.WaitGroup
	ctx    context.Context
	cancel context.CancelFunc

	// sent remembers this member's broadcasts for late replies (see
	// "Late replies" on BroadcastAllowing), oldest first in sentOrder.
	sent      map[sentKey]*sentEntry
	sentOrder []sentKey
	sentBytes int64

	// retrying and retryBytes count the messages SendRetrying is still
	// trying to deliver, and their bytes.
	retrying   int
	retryBytes int64
	retryTo    map[MemberID]int
}

// holding is one sender's share of the early-message buffer: its keys with
// buffered messages, oldest first, and their count and bytes.
type holding struct {
	order   []Key
	msgs    int
	bytes   int64
	dropped uint64 // messages dropped, for the log
}

// maxActive bounds the sessions a Mux remembers as in progress; beyond it
// the oldest is forgotten (its messages are then evicted as any other's).
const maxActive = 4096

type sentKey struct {
	Session string
	Type    Type
}

// sentEntry is one remembered broadcast: the message, who may have it
// again, and how many messages of the key each peer has sent (a second one
// means the peer runs the round again and lost what it had).
type sentEntry struct {
	msg     Message
	allowed map[MemberID]bool
	from    map[MemberID]int
	replies map[MemberID]int
}

// maxLateReplies bounds the late replies one remembered broadcast sends to
// one peer (a peer retries a request a few times, see consensus'
// maxAttempts).
const maxLateReplies = 8

// Late-reply bounds: how many broadcasts, and how many payload bytes, a Mux
// remembers (oldest forgotten first).
const (
	MaxRemembered      = 4096
	MaxRememberedBytes = 64 << 20
)

// replyMark ends the session name of a late reply: a reply is delivered
// under the original session, and never answered itself.
const replyMark = "\x00re"

// MaxBuffered bounds the messages a Mux holds for which nobody waits yet.
const MaxBuffered = 8192

// MaxBufferedBytes bounds the bytes (session + payload) of the messages a
// Mux holds for which nobody waits yet: 256 MiB, four maximal frames, and
// far above what the protocol's rounds buffer (decryption and refresh
// shares of a batch are a few MiB at the production presets).
const MaxBufferedBytes = 256 << 20

// msgBytes is what a buffered message counts against MaxBufferedBytes.
func msgBytes(msg Message) int64 { return int64(len(msg.Session) + len(msg.Payload)) }

// NewMux starts a receive loop over t. Close the Mux to stop it (it closes t).
func NewMux(t Transport, log *zap.Logger) *Mux {
	m := &Mux{t: t, log: log, queues: map[Key][]Message{}, waiters: map[Key]chan struct{}{},
		holds: map[MemberID]*holding{}, active: map[string]bool{},
		handlers: map[Type]func(Message){}, seen: map[MemberID]uint64{}, done: make(chan struct{}), sent: map[sentKey]*sentEntry{},
		maxMsgs: MaxBuffered, maxBytes: MaxBufferedBytes, peers: max(1, len(t.Peers()))}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	go m.loop()
	return m
}

// SetBufferLimits changes the early-message bounds (messages ≤ 0 or
// bytes ≤ 0 keep the current bound); tests shrink them.
func (m *Mux) SetBufferLimits(messages int, bytes int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if messages > 0 {
		m.maxMsgs = messages
	}
	if bytes > 0 {
		m.maxBytes = bytes
	}
}

// Buffered returns the number and total bytes of the messages buffered for
// which nobody waits yet.
func (m *Mux) Buffered() (messages int, bytes int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.buffered, m.bufBytes
}

// Transport returns the underlying transport.
func (m *Mux) Transport() Transport { return m.t }

// Self is the local member ID.
func (m *Mux) Self() MemberID { return m.t.Self() }

// Handle registers f for every incoming message of type typ (called on the
// receive goroutine; f must not block for long).
func (m *Mux) Handle(typ Type, f func(Message)) {
	m.mu.Lock()
	m.handlers[typ] = f
	m.mu.Unlock()
}

func (m *Mux) loop() {
	defer close(m.done)
	for {
		msg, err := m.t.Recv(context.Background())
		if err != nil {
			if !errors.Is(err, ErrClosed) {
				m.log.Warn("transport receive failed", zap.Error(err))
			}
			m.mu.Lock()
			m.closed = true
			for _, w := range m.waiters {
				close(w)
			}
			m.waiters = map[Key]chan struct{}{}
			m.mu.Unlock()
			return
		}
		m.deliver(msg)
	}
}

func (m *Mux) deliver(msg Message) {
	m.mu.Lock()
	m.recvd++
	m.seen[msg.From] = m.recvd
	if h := m.handlers[msg.Type]; h != nil {
		m.mu.Unlock()
		h(msg)
		return
	}
	if strings.HasSuffix(msg.Session, replyMark) {
		msg.Session = strings.TrimSuffix(msg.Session, replyMark)
	} else {
		m.lateReply(msg)
	}
	k := Key{Session: msg.Session, Type: msg.Type, From: msg.From}
	h := m.holds[msg.From]
	if h == nil {
		h = &holding{}
		m.holds[msg.From] = h
	}
	if _, ok := m.queues[k]; !ok {
		h.order = append(h.order, k)
	}
	m.queues[k] = append(m.queues[k], msg)
	size := msgBytes(msg)
	m.buffered++
	m.bufBytes += size
	h.msgs++
	h.bytes += size
	for m.buffered > m.maxMsgs || m.bufBytes > m.maxBytes {
		m.evictFor(msg.From, m.bufBytes > m.maxBytes)
	}
	if w, ok := m.waiters[k]; ok && m.queues[k] != nil {
		close(w)
		delete(m.waiters, k)
	}
	m.mu.Unlock()
}

// Seen returns a counter that increases with every message received from
// id (0: never heard from). Callers compare two readings to learn whether a
// member has been heard from since.
func (m *Mux) Seen(id MemberID) uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.seen[id]
}

// Recv waits for the next message matching k.
func (m *Mux) Recv(ctx context.Context, k Key) (Message, error) {
	m.mu.Lock()
	m.markActive(k.Session)
	m.mu.Unlock()
	for {
		m.mu.Lock()
		if q := m.queues[k]; len(q) > 0 {
			msg := q[0]
			if len(q) == 1 {
				delete(m.queues, k)
				m.removeOrder(k)
			} else {
				m.queues[k] = q[1:]
			}
			m.release(k.From, 1, msgBytes(msg))
			m.mu.Unlock()
			return msg, nil
		}
		if m.closed {
			m.mu.Unlock()
			return Message{}, ErrClosed
		}
		w, ok := m.waiters[k]
		if !ok {
			w = make(chan struct{})
			m.waiters[k] = w
		}
		m.mu.Unlock()
		select {
		case <-w:
		case <-ctx.Done():
			return Message{}, ctx.Err()
		}
	}
}

// markActive records session as in progress (called with m.mu held).
func (m *Mux) markActive(session string) {
	if m.active[session] {
		return
	}
	m.active[session] = true
	m.actOrder = append(m.actOrder, session)
	if len(m.actOrder) > maxActive {
		delete(m.active, m.actOrder[0])
		m.actOrder = m.actOrder[1:]
	}
}

// release uncounts n messages of `bytes` bytes from sender's holding
// (called with m.mu held).
func (m *Mux) release(from MemberID, n int, bytes int64) {
	m.buffered -= n
	m.bufBytes -= bytes
	if h := m.holds[from]; h != nil {
		h.msgs -= n
		h.bytes -= bytes
	}
}

// removeOrder takes k out of its sender's key order (called with m.mu held).
func (m *Mux) removeOrder(k Key) {
	h := m.holds[k.From]
	if h == nil {
		return
	}
	for i, o := range h.order {
		if o == k {
			h.order = append(h.order[:i], h.order[i+1:]...)
			return
		}
	}
}

// evictFor drops one key's buffered messages to make room after a message
// from `arriving` (see "Fairness" on Mux), by bytes when byBytes, else by
// count: the senders are tried from the largest holder down (ties: the
// arriving sender first, then the lower ID); another sender above its fair
// share loses its oldest key of a session not in progress, the arriving
// sender its oldest such key, else its oldest key. Called with m.mu held; the arriving
// sender holds at least the message that just arrived, so something is
// always dropped.
func (m *Mux) evictFor(arriving MemberID, byBytes bool) {
	ids := make([]MemberID, 0, len(m.holds))
	for id, h := range m.holds {
		if h.msgs > 0 {
			ids = append(ids, id)
		}
	}
	use := func(id MemberID) int64 {
		if byBytes {
			return m.holds[id].bytes
		}
		return int64(m.holds[id].msgs)
	}
	fair := int64(m.maxMsgs)
	if byBytes {
		fair = m.maxBytes
	}
	fair /= int64(m.peers)
	sort.Slice(ids, func(i, j int) bool {
		a, b := ids[i], ids[j]
		if ua, ub := use(a), use(b); ua != ub {
			return ua > ub
		}
		if (a == arriving) != (b == arriving) {
			return a == arriving
		}
		return a < b
	})
	for _, id := range ids {
		if id != arriving && use(id) <= fair {
			continue // within its fair share: only its own arrivals evict it
		}
		h := m.holds[id]
		for i, k := range h.order {
			if !m.active[k.Session] {
				m.drop(h, i)
				return
			}
		}
		if id == arriving {
			m.drop(h, 0)
			return
		}
	}
	// Not reached while the arriving sender holds the message that just
	// arrived; never leave the caller looping.
	m.buffered, m.bufBytes = min(m.buffered, m.maxMsgs), min(m.bufBytes, m.maxBytes)
}

// drop evicts the buffered messages of h.order[i] (called with m.mu held).
func (m *Mux) drop(h *holding, i int) {
	k := h.order[i]
	if i == 0 {
		h.order = h.order[1:] // a flood drops from the front: O(1)
	} else {
		h.order = append(h.order[:i], h.order[i+1:]...)
	}
	q := m.queues[k]
	delete(m.queues, k)
	var b int64
	for _, d := range q {
		b += msgBytes(d)
	}
	before := h.dropped
	h.dropped += uint64(len(q))
	if before == 0 || before/1024 != h.dropped/1024 {
		// the first drop from a sender, then one line per 1024 messages
		m.log.Warn("mux buffer full: dropped messages of the sender holding the most", zap.String("session", k.Session),
			zap.Uint8("type", uint8(k.Type)), zap.Uint32("from", uint32(k.From)), zap.Int("messages", len(q)),
			zap.Uint64("dropped_from_sender", h.dropped), zap.Int("sender_buffered", h.msgs-len(q)))
	}
	m.release(k.From, len(q), b)
}

// Forget drops buffered messages of a session.
func (m *Mux) Forget(session string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, q := range m.queues {
		if k.Session == session {
			var b int64
			for _, d := range q {
				b += msgBytes(d)
			}
			delete(m.queues, k)
			m.removeOrder(k)
			m.release(k.From, len(q), b)
		}
	}
	if m.active[session] {
		delete(m.active, session)
		for i, a := range m.actOrder {
			if a == session {
				m.actOrder = append(m.actOrder[:i], m.actOrder[i+1:]...)
				break
			}
		}
	}
}

// Send sends through the underlying transport.
func (m *Mux) Send(ctx context.Context, to MemberID, msg Message) error {
	return m.t.Send(ctx, to, msg)
}

// Broadcast sends msg to every member of `to` but Self, each send
// through SendRetrying.
func (m *Mux) Broadcast(ctx context.Context, to []MemberID, msg Message) error {
	return broadcast(ctx, m.Self(), to, func(ctx context.Context, id MemberID) error { return m.SendRetrying(ctx, id, msg) })
}

// SendRetrying sends msg to `to` and, when that fails for a reason that
// may pass — the peer is not listening yet (it is still starting: a member
// that decrypts its secrets first joins seconds after the others), is down
// until a redial reconnects it, or dropped the connection — keeps trying in
// the background, with backoff, until ctx's deadline (DefaultRetryWindow
// when it has none) or Close. It returns the first attempt's error.
//
// Why: a round's messages are sent once. A member whose message to a
// starting peer was refused would otherwise never send it again, while the
// peer waits a round timeout for it and then fails the round — an n-of-n
// round (the DKG) deadlocks on it: the peer cannot advance, and the others
// wait for what it would send next. The retry outlives the caller's
// cancellation (a round ends at the sender once it has everyone's messages,
// not once everyone has its own) but not its deadline. A message is the
// same bytes in every attempt, so a peer that receives it twice (a write
// that failed after the bytes left) sees a duplicate, which a round
// ignores. A retried message may reach the peer after later ones; the
// Mux keys messages by (session, type, sender), so a round does not
// depend on their order. Retries are bounded (MaxRetrying messages, MaxRetryingPerPeer
// to one peer — a dead member is dialled for at most that many messages at
// a time, at most once a second each —, MaxRetryingBytes of payload);
// beyond a bound a failed send is not retried.
func (m *Mux) SendRetrying(ctx context.Context, to MemberID, msg Message) error {
	err := m.t.Send(ctx, to, msg)
	if err == nil || !retryable(err) || ctx.Err() != nil {
		return err
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(DefaultRetryWindow)
	}
	size := msgBytes(msg)
	m.mu.Lock()
	if m.ctx.Err() != nil || m.retrying >= MaxRetrying || m.retryTo[to] >= MaxRetryingPerPeer || m.retryBytes+size > MaxRetryingBytes {
		m.mu.Unlock()
		return err
	}
	if m.retryTo == nil {
		m.retryTo = map[MemberID]int{}
	}
	m.retrying++
	m.retryTo[to]++
	m.retryBytes += size
	m.bg.Add(1) // under mu, before Close's cancel: Close waits for it
	m.mu.Unlock()
	// The caller owns its payload once this returns (it may reuse or clear
	// the buffer); the retry sends its own copy.
	msg.Payload = append([]byte(nil), msg.Payload...)
	go func() {
		defer m.bg.Done()
		defer func() {
			m.mu.Lock()
			m.retrying--
			m.retryTo[to]--
			m.retryBytes -= size
			m.mu.Unlock()
		}()
		rctx, cancel := context.WithDeadline(m.ctx, deadline)
		defer cancel()
		backoff := retryMinBackoff
		for {
			select {
			case <-rctx.Done():
				m.log.Debug("transport: message not delivered before its deadline", zap.String("session", msg.Session),
					zap.Uint8("type", uint8(msg.Type)), zap.Uint32("to", uint32(to)))
				return
			case <-time.After(backoff):
			}
			err := m.t.Send(rctx, to, msg)
			if err == nil {
				m.log.Debug("transport: message delivered on retry", zap.String("session", msg.Session),
					zap.Uint8("type", uint8(msg.Type)), zap.Uint32("to", uint32(to)))
				return
			}
			if !retryable(err) {
				return
			}
			backoff = min(2*backoff, retryMaxBackoff)
		}
	}()
	return err
}

// retryable reports whether a failed send may succeed later: not when the
// transport is closed, the peer unknown, the message malformed or the
// caller's time is up.
func retryable(err error) bool {
	return !errors.Is(err, ErrClosed) && !errors.Is(err, ErrUnknownPeer) && !errors.Is(err, ErrTooLarge) &&
		!errors.Is(err, ErrBadMessage) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// Retry bounds of SendRetrying.
const (
	DefaultRetryWindow = 30 * time.Second
	MaxRetrying        = 1024
	MaxRetryingPerPeer = 256
	MaxRetryingBytes   = 256 << 20
	retryMinBackoff    = 25 * time.Millisecond
	retryMaxBackoff    = time.Second
)

// BroadcastAllowing is Broadcast for the rounds of a request (digest, coin
// toss, decryption, refresh and signature shares), with late replies.
//
// Late replies. Rounds are asynchronous and a request's rounds keep their
// session names when it is retried, but every round forgets its buffered
// messages when it ends: a member that runs a round after a peer finished
// it (it was slow, restarted, or counted that peer down and so was not sent
// to), or that runs it again after a failure, would wait a round timeout
// for messages nobody sends again. So the Mux remembers these broadcasts
// (bounded: MaxRemembered, MaxRememberedBytes) and answers a peer's message
// of the same session and type with its own, once per message (at most
// maxLateReplies times per peer), when the peer is in `allowed` and was not
// among the recipients of ours, or when this is the peer's second message
// of the key (it is running the round again). Answers carry replyMark and
// are never answered. Only rounds whose message is the same in every
// attempt of a session may use it (ledger-issued shares, digests,
// deterministic signatures and coin contributions): a late reply of an
// attempt's message must be as good as the current one. The DKG, whose
// retries deal new secrets, uses Broadcast.
func (m *Mux) BroadcastAllowing(ctx context.Context, to, allowed []MemberID, msg Message) error {
	m.remember(msg, to, allowed)
	return m.Broadcast(ctx, to, msg)
}

func (m *Mux) remember(msg Message, to, allowed []MemberID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.handlers[msg.Type] != nil {
		return // request-style traffic (store, fetch): answered by handlers
	}
	k := sentKey{msg.Session, msg.Type}
	e := &sentEntry{msg: msg, allowed: map[MemberID]bool{}, from: map[MemberID]int{}, replies: map[MemberID]int{}}
	for _, id := range allowed {
		e.allowed[id] = true
	}
	for _, id := range to {
		e.allowed[id] = true
		e.from[id] = 0
	}
	if old, ok := m.sent[k]; ok {
		m.sentBytes -= msgBytes(old.msg)
	} else {
		m.sentOrder = append(m.sentOrder, k)
	}
	m.sent[k] = e
	m.sentBytes += msgBytes(msg)
	for (len(m.sentOrder) > MaxRemembered || m.sentBytes > MaxRememberedBytes) && len(m.sentOrder) > 0 {
		old := m.sentOrder[0]
		m.sentOrder = m.sentOrder[1:]
		if e, ok := m.sent[old]; ok {
			m.sentBytes -= msgBytes(e.msg)
			delete(m.sent, old)
		}
	}
}

// ForgetSent drops the remembered broadcasts (BroadcastAllowing) of the
// sessions match accepts: rounds that can never run again (a completed
// DKG's key rounds, whose shares are the largest messages a member sends),
// so that their late-reply copies do not stay in memory until newer
// broadcasts push them out.
func (m *Mux) ForgetSent(match func(session string) bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	kept := m.sentOrder[:0]
	for _, k := range m.sentOrder {
		if e, ok := m.sent[k]; ok && match(k.Session) {
			m.sentBytes -= msgBytes(e.msg)
			delete(m.sent, k)
			continue
		}
		kept = append(kept, k)
	}
	clear(m.sentOrder[len(kept):])
	m.sentOrder = kept
}

// lateReply answers msg with this member's remembered broadcast of the
// same session and type, if any and if the sender needs it (see
// BroadcastAllowing). Called with m.mu held; the send runs in the
// background.
func (m *Mux) lateReply(msg Message) {
	e, ok := m.sent[sentKey{msg.Session, msg.Type}]
	if !ok || !e.allowed[msg.From] {
		return
	}
	n, wasRecipient := e.from[msg.From]
	e.from[msg.From] = n + 1
	if wasRecipient && n == 0 {
		return // it got ours with the broadcast
	}
	if e.replies[msg.From] >= maxLateReplies {
		return // a peer's small messages must not buy unbounded large replies
	}
	if m.ctx.Err() != nil { // closing
		return
	}
	e.replies[msg.From]++
	reply := e.msg
	reply.Session += replyMark
	m.bg.Add(1)
	go func() {
		defer m.bg.Done()
		ctx, cancel := context.WithTimeout(m.ctx, lateReplyTimeout)
		defer cancel()
		if err := m.t.Send(ctx, msg.From, reply); err != nil {
			m.log.Debug("late reply not delivered", zap.String("session", msg.Session), zap.Uint32("to", uint32(msg.From)), zap.Error(err))
		}
	}()
}

// lateReplyTimeout bounds one late reply's send.
const lateReplyTimeout = 30 * time.Second

// Close closes the transport and waits for the receive loop and the late
// replies in flight to end (none logs after Close returns).
func (m *Mux) Close() error {
	m.mu.Lock()
	m.cancel()
	m.mu.Unlock()
	err := m.t.Close()
	<-m.done
	m.bg.Wait()
	return err
}

// Gather is the result of Collect.
type Gather struct {
	Got     map[MemberID]Message
	Missing []MemberID
}

// Collect waits for one message of (session, typ) from each member in from
// (Self excluded) until all arrived or ctx ends; it returns what arrived and
// who is missing. It never returns an error: absence is the caller's decision.
func (m *Mux) Collect(ctx context.Context, session string, typ Type, from []MemberID) Gather {
	return m.CollectQuorum(ctx, session, typ, from, len(from), 0)
}

// CollectQuorum is Collect that stops waiting `grace` after `want` messages
// have arrived (so that a dead member costs a grace period, not a timeout).
func (m *Mux) CollectQuorum(ctx context.Context, session string, typ Type, from []MemberID, want int, grace time.Duration) Gather {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type res struct {
		id  MemberID
		msg Message
		err error
	}
	ch := make(chan res, len(from))
	n := 0
	for _, id := range from {
		if id == m.Self() {
			continue
		}
		n++
		go func(id MemberID) {
			msg, err := m.Recv(ctx, Key{Session: session, Type: typ, From: id})
			ch <- res{id, msg, err}
		}(id)
	}
	g := Gather{Got: map[MemberID]Message{}}
	var graceC <-chan time.Time
	for i := 0; i < n; i++ {
		select {
		case r := <-ch:
			if r.err != nil {
				g.Missing = append(g.Missing, r.id)
				continue
			}
			g.Got[r.id] = r.msg
			if len(g.Got) >= want && graceC == nil && len(g.Got) < n {
				graceC = time.After(grace)
			}
		case <-graceC:
			cancel()
			graceC = nil
			i--
		}
	}
	sortIDs(g.Missing)
	return g
}

func sortIDs(v []MemberID) {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j] < v[j-1]; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}
