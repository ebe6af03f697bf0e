package transport

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"sort"
	"sync"
)

// Hub is an in-memory network of endpoints for unit tests. Messages are
// copied on send; an endpoint's inbox is a bounded queue.
type Hub struct {
	mu    sync.Mutex
	nodes map[MemberID]*memEndpoint
	ids   []MemberID
	max   int
	keys  map[MemberID]ed25519.PrivateKey // identity keys (Signer), fixed at NewHub
}

// NewHub returns a hub for members 1..n.
func NewHub(n int) *Hub {
	h := &Hub{nodes: map[MemberID]*memEndpoint{}, max: DefaultMaxMessage, keys: map[MemberID]ed25519.PrivateKey{}}
	for i := 1; i <= n; i++ {
		id := MemberID(i)
		_, k, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			panic(fmt.Sprintf("transport: hub identity key: %v", err))
		}
		h.keys[id] = k
		h.ids = append(h.ids, id)
		h.nodes[id] = &memEndpoint{hub: h, id: id, inbox: make(chan Message, 4096), done: make(chan struct{})}
	}
	return h
}

// Endpoint returns member id's transport (a fresh one if the old one was closed,
// as when a member restarts).
func (h *Hub) Endpoint(id MemberID) Transport {
	h.mu.Lock()
	defer h.mu.Unlock()
	e, ok := h.nodes[id]
	if !ok {
		panic(fmt.Sprintf("transport: hub has no member %d", id))
	}
	if e.isClosed() {
		e = &memEndpoint{hub: h, id: id, inbox: make(chan Message, 4096), done: make(chan struct{})}
		h.nodes[id] = e
	}
	return e
}

type memEndpoint struct {
	hub   *Hub
	id    MemberID
	inbox chan Message
	once  sync.Once
	done  chan struct{}
}

func (e *memEndpoint) isClosed() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

func (e *memEndpoint) Self() MemberID { return e.id }

func (e *memEndpoint) Peers() []MemberID {
	out := make([]MemberID, 0, len(e.hub.ids)-1)
	for _, id := range e.hub.ids {
		if id != e.id {
			out = append(out, id)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func (e *memEndpoint) Send(ctx context.Context, to MemberID, msg Message) error {
	if e.isClosed() {
		return ErrClosed
	}
	if err := checkMsg(msg, e.hub.max); err != nil {
		return err
	}
	e.hub.mu.Lock()
	dst, ok := e.hub.nodes[to]
	e.hub.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: %d", ErrUnknownPeer, to)
	}
	if dst.isClosed() {
		return fmt.Errorf("transport: member %d unreachable: %w", to, ErrClosed)
	}
	m := Message{From: e.id, Type: msg.Type, Session: msg.Session, Payload: append([]byte(nil), msg.Payload...)}
	select {
	case dst.inbox <- m:
		return nil
	case <-dst.done:
		return fmt.Errorf("transport: member %d unreachable: %w", to, ErrClosed)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (e *memEndpoint) Recv(ctx context.Context) (Message, error) {
	select {
	case m := <-e.inbox:
		return m, nil
	case <-e.done:
		return Message{}, ErrClosed
	case <-ctx.Done():
		return Message{}, ctx.Err()
	}
}

func (e *memEndpoint) Close() error {
	e.once.Do(func() { close(e.done) })
	return nil
}
