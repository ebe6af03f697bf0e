package transport

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"sort"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/internal/ports"
)

// Peer is a member's network identity as pinned in the committee config.
type Peer struct {
	ID     MemberID
	Addr   string            // host:port
	PubKey ed25519.PublicKey // pinned TLS identity key
}

// TLSConfig configures a TLS transport.
type TLSConfig struct {
	Self  MemberID
	Key   ed25519.PrivateKey // this member's TLS identity key
	Peers []Peer             // every member, Self included (its Addr is where to listen)
	// Listener, if set, is used instead of listening on Self's Addr (tests
	// listen on 127.0.0.1:0 first to learn the ports).
	Listener     net.Listener
	MaxMessage   int           // 0: DefaultMaxMessage
	DialTimeout  time.Duration // 0: 5 s (connect + handshake)
	WriteTimeout time.Duration // 0: 60 s per message unless the context is shorter
	// MaxHandshakes bounds the accepted connections that have not yet
	// completed the TLS handshake and the pin check (0: DefaultMaxHandshakes).
	// A connection accepted beyond it is closed at once; each pending one
	// is closed after DialTimeout.
	MaxHandshakes int
	// ListenWait is how long ListenTLS keeps retrying Self's address while
	// it is in use (0: DefaultListenWait): a member restarted right after
	// it died may find its old connections' sockets, or another process's
	// outgoing connection on a port of the ephemeral range, still holding
	// the port (package internal/ports).
	ListenWait time.Duration
	Log        *zap.Logger
}

// DefaultListenWait is TLSConfig.ListenWait's default.
const DefaultListenWait = 30 * time.Second

// TLS is a Transport over TCP with TLS 1.3 and mutual authentication by
// pinned ed25519 keys. Each member dials one outgoing connection per peer
// for what it sends and accepts the peers' connections for what it
// receives. Frames are: uint32 length | type | uint16 session length |
// session | payload (big-endian lengths); the sender is the authenticated
// peer, never a field of the frame.
type TLS struct {
	cfg    TLSConfig
	ln     net.Listener
	cert   tls.Certificate
	byKey  map[string]MemberID
	peers  map[MemberID]Peer
	inbox  chan Message
	done   chan struct{}
	once   sync.Once
	wg     sync.WaitGroup
	mu     sync.Mutex
	out    map[MemberID]*outConn
	inConn map[net.Conn]struct{}
	// pending holds one token per accepted connection still in its
	// handshake (cap MaxHandshakes).
	pending chan struct{}
	// ctx ends when the transport closes (it stops background redials).
	ctx    context.Context
	cancel context.CancelFunc
}

// DefaultMaxHandshakes bounds the concurrent unauthenticated inbound
// connections of a TLS transport: a committee has at most a few dozen
// members, each with one outgoing connection per peer, so honest traffic
// needs a handful at once, while anyone who can reach the port could
// otherwise hold unbounded goroutines and TLS state by connecting and
// stalling (each still dropped after DialTimeout).
const DefaultMaxHandshakes = 64

type outConn struct {
	mu   sync.Mutex
	conn *tls.Conn
	bw   *bufio.Writer
	dead chan struct{} // closed when the peer closes the connection
	// down is set when a dial times out (a host that does not answer):
	// Sends then fail at once with ErrPeerDown instead of each waiting up to
	// DialTimeout — a protocol round that broadcasts to a hung host would
	// otherwise pay the timeout in every round — while one background
	// redial retries with backoff and clears it. A dial that fails fast
	// (connection refused: the process is down, the host is up) leaves it
	// clear: the next Send dials again at no cost, as a restarting member
	// needs.
	down    bool
	downErr error
}

// Backoff of the background redial of a peer that is down: the first retry
// after probeMinBackoff, doubling up to probeMaxBackoff.
const (
	probeMinBackoff = 100 * time.Millisecond
	probeMaxBackoff = 2 * time.Second
)

// NewIdentityKey returns a fresh ed25519 key for a member's TLS identity.
func NewIdentityKey() (ed25519.PrivateKey, error) {
	_, k, err := ed25519.GenerateKey(rand.Reader)
	return k, err
}

// SelfSignedCert builds the member's self-signed TLS certificate.
func SelfSignedCert(id MemberID, key ed25519.PrivateKey) (tls.Certificate, error) {
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(int64(id) + 1),
		Subject:      pkix.Name{CommonName: fmt.Sprintf("fhegate-member-%d", id)},
		NotBefore:    time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:     time.Date(2120, 1, 1, 0, 0, 0, 0, time.UTC),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		DNSNames:     []string{"fhegate-member"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// ListenTLS starts a TLS transport: it listens (or uses cfg.Listener) and
// dials peers lazily on first Send.
func ListenTLS(cfg TLSConfig) (*TLS, error) {
	if cfg.MaxMessage == 0 {
		cfg.MaxMessage = DefaultMaxMessage
	}
	if cfg.DialTimeout == 0 {
		cfg.DialTimeout = 5 * time.Second
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = 60 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = zap.NewNop()
	}
	if cfg.MaxHandshakes <= 0 {
		cfg.MaxHandshakes = DefaultMaxHandshakes
	}
	if cfg.ListenWait <= 0 {
		cfg.ListenWait = DefaultListenWait
	}
	if len(cfg.Key) != ed25519.PrivateKeySize {
		return nil, errors.New("transport: TLS identity key must be ed25519")
	}
	t := &TLS{cfg: cfg, byKey: map[string]MemberID{}, peers: map[MemberID]Peer{}, inbox: make(chan Message, 1024),
		done: make(chan struct{}), out: map[MemberID]*outConn{}, inConn: map[net.Conn]struct{}{},
		pending: make(chan struct{}, cfg.MaxHandshakes)}
	t.ctx, t.cancel = context.WithCancel(context.Background())
	var self *Peer
	for i := range cfg.Peers {
		p := cfg.Peers[i]
		if len(p.PubKey) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("transport: member %d: pinned key must be an ed25519 public key", p.ID)
		}
		if _, dup := t.peers[p.ID]; dup {
			return nil, fmt.Errorf("transport: member %d listed twice", p.ID)
		}
		t.peers[p.ID] = p
		t.byKey[string(p.PubKey)] = p.ID
		if p.ID == cfg.Self {
			self = &cfg.Peers[i]
		}
	}
	if self == nil {
		return nil, fmt.Errorf("transport: self %d not in the peer list", cfg.Self)
	}
	if !self.PubKey.Equal(cfg.Key.Public()) {
		return nil, fmt.Errorf("transport: key does not match member %d's pinned key", cfg.Self)
	}
	cert, err := SelfSignedCert(cfg.Self, cfg.Key)
	if err != nil {
		return nil, err
	}
	t.cert = cert
	ln := cfg.Listener
	if ln == nil {
		if ln, err = listenWaiting(self.Addr, cfg.ListenWait, cfg.Log); err != nil {
			return nil, fmt.Errorf("transport: listen %s: %w", self.Addr, err)
		}
	}
	t.ln = tls.NewListener(ln, t.tlsConfig(0))
	t.wg.Add(1)
	go t.acceptLoop()
	return t, nil
}

// listenWaiting listens on addr, retrying every 500 ms for up to wait
// while the address is in use; the first such failure is logged with its
// likely cause.
func listenWaiting(addr string, wait time.Duration, log *zap.Logger) (net.Listener, error) {
	deadline := time.Now().Add(wait)
	for logged := false; ; logged = true {
		ln, err := net.Listen("tcp", addr)
		if err == nil || !ports.InUse(err) {
			return ln, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w (retried for %s; a port inside the kernel's ephemeral range can be taken by any outgoing connection while its listener is down: listen below that range)", err, wait)
		}
		if !logged {
			log.Warn("listen address in use: retrying", zap.String("addr", addr), zap.Duration("for", wait), zap.Error(err))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// Addr is the listening address.
func (t *TLS) Addr() net.Addr { return t.ln.Addr() }

// tlsConfig: want=0 accepts any pinned member (server side); otherwise the
// peer must be exactly member `want` (client side).
func (t *TLS) tlsConfig(want MemberID) *tls.Config {
	return &tls.Config{
		MinVersion:         tls.VersionTLS13,
		MaxVersion:         tls.VersionTLS13,
		Certificates:       []tls.Certificate{t.cert},
		ClientAuth:         tls.RequireAnyClientCert,
		InsecureSkipVerify: true, // replaced by the pin check below: no CA, keys are pinned
		ServerName:         "fhegate-member",
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			id, err := t.pinned(raw)
			if err != nil {
				return err
			}
			if want != 0 && id != want {
				return fmt.Errorf("transport: peer presented member %d's key, expected member %d", id, want)
			}
			return nil
		},
	}
}

func (t *TLS) pinned(raw [][]byte) (MemberID, error) {
	if len(raw) != 1 {
		return 0, fmt.Errorf("transport: want exactly one certificate, got %d", len(raw))
	}
	c, err := x509.ParseCertificate(raw[0])
	if err != nil {
		return 0, fmt.Errorf("transport: peer certificate: %w", err)
	}
	pk, ok := c.PublicKey.(ed25519.PublicKey)
	if !ok {
		return 0, errors.New("transport: peer certificate key is not ed25519")
	}
	if err := c.CheckSignature(c.SignatureAlgorithm, c.RawTBSCertificate, c.Signature); err != nil {
		return 0, fmt.Errorf("transport: peer certificate self-signature: %w", err)
	}
	id, ok := t.byKey[string(pk)]
	if !ok {
		return 0, errors.New("transport: peer key is not pinned in the committee config")
	}
	return id, nil
}

func (t *TLS) acceptLoop() {
	defer t.wg.Done()
	for {
		c, err := t.ln.Accept()
		if err != nil {
			select {
			case <-t.done:
				return
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			t.cfg.Log.Warn("accept failed", zap.Error(err))
			return
		}
		select {
		case t.pending <- struct{}{}:
		default:
			t.cfg.Log.Debug("too many pending TLS handshakes: connection refused", zap.Stringer("remote", c.RemoteAddr()))
			c.Close()
			continue
		}
		t.wg.Add(1)
		go t.serve(c.(*tls.Conn))
	}
}

// PendingHandshakes returns the accepted connections still in their
// handshake.
func (t *TLS) PendingHandshakes() int { return len(t.pending) }

func (t *TLS) serve(c *tls.Conn) {
	defer t.wg.Done()
	t.mu.Lock()
	t.inConn[c] = struct{}{}
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.inConn, c)
		t.mu.Unlock()
		c.Close()
	}()
	from, ok := t.authenticate(c)
	if !ok {
		return
	}
	br := bufio.NewReaderSize(c, 1<<16)
	for {
		msg, err := readFrame(br, t.cfg.MaxMessage)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				t.cfg.Log.Debug("connection dropped", zap.Uint32("peer", uint32(from)), zap.Error(err))
			}
			return
		}
		msg.From = from
		select {
		case t.inbox <- msg:
		case <-t.done:
			return
		}
	}
}

// authenticate runs the handshake under DialTimeout and the pin check,
// holding one of the MaxHandshakes tokens until it is done.
func (t *TLS) authenticate(c *tls.Conn) (MemberID, bool) {
	defer func() { <-t.pending }()
	_ = c.SetDeadline(time.Now().Add(t.cfg.DialTimeout))
	if err := c.Handshake(); err != nil {
		t.cfg.Log.Debug("handshake failed", zap.Error(err))
		return 0, false
	}
	_ = c.SetDeadline(time.Time{})
	st := c.ConnectionState()
	if len(st.PeerCertificates) != 1 {
		return 0, false
	}
	from, err := t.pinned([][]byte{st.PeerCertificates[0].Raw})
	return from, err == nil
}

// Self implements Transport.
func (t *TLS) Self() MemberID { return t.cfg.Self }

// Peers implements Transport.
func (t *TLS) Peers() []MemberID {
	out := make([]MemberID, 0, len(t.peers))
	for id := range t.peers {
		if id != t.cfg.Self {
			out = append(out, id)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func (t *TLS) dial(ctx context.Context, to MemberID) (*tls.Conn, error) {
	p, ok := t.peers[to]
	if !ok {
		return nil, fmt.Errorf("%w: %d", ErrUnknownPeer, to)
	}
	dctx, cancel := context.WithTimeout(ctx, t.cfg.DialTimeout)
	defer cancel()
	d := tls.Dialer{Config: t.tlsConfig(to)}
	c, err := d.DialContext(dctx, "tcp", p.Addr)
	if err != nil {
		return nil, fmt.Errorf("transport: dial member %d at %s: %w", to, p.Addr, err)
	}
	return c.(*tls.Conn), nil
}

// Send implements Transport. A failed write drops the connection and is
// retried once on a fresh one. A dial that times out marks the peer down:
// until a background redial reconnects, Sends to it fail at once
// (ErrPeerDown).
func (t *TLS) Send(ctx context.Context, to MemberID, msg Message) error {
	select {
	case <-t.done:
		return ErrClosed
	default:
	}
	if err := checkMsg(msg, t.cfg.MaxMessage); err != nil {
		return err
	}
	if to == t.cfg.Self {
		return fmt.Errorf("%w: send to self", ErrBadMessage)
	}
	t.mu.Lock()
	oc, ok := t.out[to]
	if !ok {
		oc = &outConn{}
		t.out[to] = oc
	}
	t.mu.Unlock()
	oc.mu.Lock()
	defer oc.mu.Unlock()
	// Sends to one peer are serialised; one that waited here past its
	// caller's deadline gives up before writing a byte, so it never starts
	// a frame it would have to cut (a cut frame costs the connection, and
	// every other session's frames queued on it).
	if err := ctx.Err(); err != nil {
		return err
	}
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		if oc.conn != nil {
			select {
			case <-oc.dead: // the peer went away (e.g. restarted): writes would vanish
				oc.conn.Close()
				oc.conn, oc.bw = nil, nil
			default:
			}
		}
		if oc.conn == nil {
			if oc.down {
				return fmt.Errorf("%w: member %d (%v; redialling in the background)", ErrPeerDown, to, oc.downErr)
			}
			c, derr := t.dial(ctx, to)
			if derr != nil {
				if ctx.Err() == nil && isTimeout(derr) { // a hung host, not the caller's deadline
					t.markDown(oc, to, derr)
				}
				return derr
			}
			install(oc, c)
		}
		dl := time.Now().Add(t.cfg.WriteTimeout)
		if d, ok := ctx.Deadline(); ok && d.Before(dl) {
			dl = d
		}
		_ = oc.conn.SetWriteDeadline(dl)
		if err = writeFrame(oc.bw, msg); err == nil {
			if err = oc.bw.Flush(); err == nil {
				return nil
			}
		}
		oc.conn.Close()
		oc.conn, oc.bw = nil, nil
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return fmt.Errorf("transport: send to member %d: %w", to, err)
}

// install makes c the connection of oc (oc.mu held).
func install(oc *outConn, c *tls.Conn) {
	oc.conn, oc.bw, oc.dead = c, bufio.NewWriterSize(c, 1<<16), make(chan struct{})
	// The peer never writes on this connection; a read returns only when it
	// closes, which tells the next Send to redial instead of writing into a
	// socket nobody reads.
	go func(c *tls.Conn, dead chan struct{}) {
		var b [1]byte
		_, _ = c.Read(b[:])
		close(dead)
	}(c, oc.dead)
}

// markDown marks a peer down after a timed-out dial and starts its background
// redial (oc.mu held; no-op once the transport is closing — Close takes
// oc.mu after closing done, so the WaitGroup's Add precedes its Wait).
func (t *TLS) markDown(oc *outConn, to MemberID, err error) {
	oc.downErr = err
	if oc.down {
		return
	}
	select {
	case <-t.done:
		return
	default:
	}
	oc.down = true
	t.wg.Add(1)
	go t.redial(oc, to)
}

// redial retries the dial of a down peer with backoff until it connects,
// fails fast (the host answers again: Sends dial themselves from then on)
// or the transport closes; a connection it makes serves the next Send.
func (t *TLS) redial(oc *outConn, to MemberID) {
	defer t.wg.Done()
	backoff := probeMinBackoff
	for {
		select {
		case <-t.ctx.Done():
			return
		case <-time.After(backoff):
		}
		c, err := t.dial(t.ctx, to)
		oc.mu.Lock()
		if err == nil {
			if oc.conn == nil && t.ctx.Err() == nil {
				install(oc, c)
			} else {
				c.Close()
			}
			oc.down, oc.downErr = false, nil
			oc.mu.Unlock()
			t.cfg.Log.Debug("transport: peer reachable again", zap.Uint32("member", uint32(to)))
			return
		}
		if !isTimeout(err) {
			oc.down, oc.downErr = false, nil
			oc.mu.Unlock()
			return
		}
		oc.downErr = err
		oc.mu.Unlock()
		backoff = min(2*backoff, probeMaxBackoff)
	}
}

// isTimeout reports whether a dial failed by running out of time (the peer
// did not answer) rather than being refused.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// Recv implements Transport.
func (t *TLS) Recv(ctx context.Context) (Message, error) {
	select {
	case m := <-t.inbox:
		return m, nil
	case <-t.done:
		return Message{}, ErrClosed
	case <-ctx.Done():
		return Message{}, ctx.Err()
	}
}

// Close implements Transport: it stops listening and drops every connection.
func (t *TLS) Close() error {
	t.once.Do(func() {
		close(t.done)
		t.cancel()
		t.ln.Close()
		t.mu.Lock()
		for _, oc := range t.out {
			oc.mu.Lock()
			if oc.conn != nil {
				oc.conn.Close()
			}
			oc.mu.Unlock()
		}
		for c := range t.inConn {
			c.Close()
		}
		t.mu.Unlock()
	})
	t.wg.Wait()
	return nil
}

func writeFrame(w *bufio.Writer, msg Message) error {
	var hdr [7]byte
	body := 1 + 2 + len(msg.Session) + len(msg.Payload)
	binary.BigEndian.PutUint32(hdr[:4], uint32(body))
	hdr[4] = byte(msg.Type)
	binary.BigEndian.PutUint16(hdr[5:7], uint16(len(msg.Session)))
	if _, err := w.Write(hdr[:]); err != nil {
		return err
	}
	if _, err := w.WriteString(msg.Session); err != nil {
		return err
	}
	_, err := w.Write(msg.Payload)
	return err
}

// readFrame reads one frame, refusing frames over max payload bytes before
// allocating them.
func readFrame(r io.Reader, max int) (Message, error) {
	var hdr [7]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return Message{}, err
	}
	body := int(binary.BigEndian.Uint32(hdr[:4]))
	sl := int(binary.BigEndian.Uint16(hdr[5:7]))
	if sl > MaxSession || body < 3+sl || body-3-sl > max {
		return Message{}, fmt.Errorf("%w or malformed frame: body %d, session %d", ErrTooLarge, body, sl)
	}
	buf := make([]byte, body-3)
	if _, err := io.ReadFull(r, buf); err != nil {
		return Message{}, err
	}
	return Message{Type: Type(hdr[4]), Session: string(buf[:sl]), Payload: buf[sl:]}, nil
}
