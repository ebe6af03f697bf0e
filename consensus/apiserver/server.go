package apiserver

import (
	"bufio"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/api/uploadwire"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// MaxCanonicalCiphertext is the largest canonical ciphertext of a preset:
// degree 2 (the most UnmarshalCiphertext accepts) at the top level, plus
// the header and scale (capped by store.MaxCiphertext).
func MaxCanonicalCiphertext(p *fhe.Params) int {
	n := 12 + 8 + 3*(p.MaxLevel()+1)*p.N()*8
	return min(n, store.MaxCiphertext)
}

// UploadBodyLimit bounds a POST /v1/inputs body for a preset: the hex of
// MaxUploadItems of its largest canonical ciphertexts with their input
// proofs, capped at the hex of MaxUploadBytes, plus the JSON around them.
// The decoded upload is checked again against MaxUploadBytes.
func UploadBodyLimit(p *fhe.Params) int64 {
	return 2*uploadRaw(p) + 256*api.MaxUploadItems + 1024
}

// UploadBinaryLimit bounds a binary POST /v1/inputs body (uploadwire) for a
// preset: the raw bytes UploadBodyLimit's hex carries, plus the framing.
func UploadBinaryLimit(p *fhe.Params) int64 {
	return uploadRaw(p) + int64(uploadwire.Size(make([]uploadwire.Item, api.MaxUploadItems)))
}

// uploadRaw is the most ciphertext and proof bytes of one upload.
func uploadRaw(p *fhe.Params) int64 {
	return int64(min(api.MaxUploadItems*(MaxCanonicalCiphertext(p)+maxProof(p)), api.MaxUploadBytes))
}

// maxProof is the input-proof size of the preset (0 when it has none).
func maxProof(p *fhe.Params) int {
	if pp, err := zkpok.ParamsFor(p); err == nil {
		return pp.Size()
	}
	return 0
}

// API defaults (APIOptions).
const (
	DefaultAPIReadHeaderTimeout = 5 * time.Second
	DefaultAPIReadTimeout       = 60 * time.Second
	DefaultAPIWriteTimeout      = 2 * time.Minute // covers ReadTimeout plus the replication round
	DefaultAPIIdleTimeout       = 60 * time.Second
	DefaultOwnerRate            = 1.0 // uploads per second per owner, sustained
	DefaultOwnerBurst           = 30  // uploads per owner at once
	maxAPIHeaderBytes           = 16 << 10
	maxQuotaOwners              = 1 << 16 // quota buckets kept before full ones are forgotten
)

// APIOptions configure a member's client API (APIHandler, NewAPIServer).
type APIOptions struct {
	// Tokens are the accepted bearer tokens ("Authorization: Bearer <t>"),
	// e.g. from LoadAPITokens. Every route but GET /v1/publickey needs one.
	Tokens []string
	// NoAuth serves without tokens. It is for development only (the
	// devnet, a loopback `committee serve` without --api-tokens):
	// NewAPIServer refuses it off loopback.
	NoAuth bool
	// OwnerRate and OwnerBurst are the per-owner upload quota, a token
	// bucket keyed by UploadRequest.Owner, one token per ciphertext (0: DefaultOwnerRate,
	// DefaultOwnerBurst; OwnerRate < 0: no quota). Every upload is
	// replicated and fsynced on all n members, so one owner's uploads are
	// bounded on the whole committee; beyond the quota the API answers 429
	// with Retry-After.
	OwnerRate  float64
	OwnerBurst int
	// TLSCert and TLSKey (PEM files) serve HTTPS; required off loopback.
	TLSCert, TLSKey string
	// AllowOrigins are the browser origins (scheme://host[:port]; a port
	// of * matches any port; "*" matches every origin) whose pages may call
	// the API across origins (CORS): they get Access-Control-Allow-Origin,
	// the announcement's HeaderChainID and HeaderEpoch exposed, and an
	// answer to the preflight of a JSON upload. Tokens still apply. Empty:
	// no cross-origin access (a page can only call an API on its own
	// origin).
	AllowOrigins []string
	// Timeouts of the http.Server (0: the Default… constants above).
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration

	// Clock is the API's clock, for the quotas (nil: time.Now).
	Clock func() time.Time
}

// DevAPIOptions are the devnet's API options: no token and no quota. The
// devnet listens on loopback only (NewAPIServer enforces it), for
// `fhegate encrypt --submit` and the examples on the same machine.
// Pages served from this machine (DevAllowOrigins) may call it from a
// browser.
func DevAPIOptions() APIOptions {
	return APIOptions{NoAuth: true, OwnerRate: -1, AllowOrigins: DevAllowOrigins}
}

// DevAllowOrigins are the browser origins of pages served from this
// machine, on any port.
var DevAllowOrigins = []string{"http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"}

func (o *APIOptions) defaults() {
	if o.OwnerRate == 0 {
		o.OwnerRate = DefaultOwnerRate
	}
	if o.OwnerBurst <= 0 {
		o.OwnerBurst = DefaultOwnerBurst
	}
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = DefaultAPIReadHeaderTimeout
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = DefaultAPIReadTimeout
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultAPIWriteTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultAPIIdleTimeout
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
}

// LoadAPITokens reads bearer tokens from a file: one per line, blank lines
// and lines starting with # ignored. Tokens shorter than 16 characters are
// refused (they would be guessable).
func LoadAPITokens(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for ln := 1; sc.Scan(); ln++ {
		tok := strings.TrimSpace(sc.Text())
		if tok == "" || strings.HasPrefix(tok, "#") {
			continue
		}
		if len(tok) < 16 {
			return nil, fmt.Errorf("%s:%d: API token shorter than 16 characters", path, ln)
		}
		out = append(out, tok)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no API tokens", path)
	}
	return out, nil
}

// IsLoopback reports whether a listen address (host:port) binds loopback
// only ("localhost", 127.0.0.0/8, ::1); an empty host binds every
// interface and is not loopback.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// NewAPIServer returns the http.Server of a member's client API for a
// listen address, with read-header/read/write/idle timeouts and a header
// size bound. Off loopback it requires TLS (o.TLSCert, o.TLSKey) and
// tokens; without tokens o.NoAuth must say so, and only on loopback. Serve
// it with ServeAPI.
func NewAPIServer(m *consensus.Member, addr string, o APIOptions) (*http.Server, error) {
	o.defaults()
	loop := IsLoopback(addr)
	if (o.TLSCert == "") != (o.TLSKey == "") {
		return nil, errors.New("consensus: API TLS needs both a certificate and a key")
	}
	if !loop && o.TLSCert == "" {
		return nil, fmt.Errorf("consensus: the client API on %s (not loopback) requires TLS (--api-tls-cert, --api-tls-key)", addr)
	}
	if o.NoAuth && !loop {
		return nil, fmt.Errorf("consensus: the client API on %s (not loopback) requires bearer tokens (--api-tokens)", addr)
	}
	h, err := APIHandler(m, o)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: o.ReadHeaderTimeout, ReadTimeout: o.ReadTimeout,
		WriteTimeout: o.WriteTimeout, IdleTimeout: o.IdleTimeout, MaxHeaderBytes: maxAPIHeaderBytes}
	if o.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("consensus: API TLS: %w", err)
		}
		srv.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
	}
	return srv, nil
}

// ServeAPI serves srv (from NewAPIServer) on ln, over TLS when srv has a
// TLS configuration.
func ServeAPI(srv *http.Server, ln net.Listener) error {
	if srv.TLSConfig != nil {
		ln = tls.NewListener(ln, srv.TLSConfig)
	}
	return srv.Serve(ln)
}

// APIHandler serves a member's client API:
//
//	POST /v1/inputs     uploadwire body (Content-Type uploadwire.ContentType, at most UploadBinaryLimit)
//	                    or UploadRequest JSON (1…MaxUploadItems ciphertexts of one owner) → AttestationJSON
//	                    (verify every proof, store, replicate, attest the set; with "rooted", also
//	                    an input root shared with other uploads); token, quota per ciphertext
//	GET  /v1/publickey  the collective public key, canonical bytes; public
//	GET  /v1/status     Status; token
//	POST /v1/private-read  PrivateReadRequest (EIP-712 signed by a holder of the handle) →
//	                    PrivateReadResponse (this member's share of the handle re-encrypted to
//	                    the requester's key); token, quota per signer
//
// Bodies are bounded per route (UploadBodyLimit of the member's preset for
// uploads, none for the GET routes): 413 beyond. A missing or unknown
// token is 401; an owner over its quota is 429 with Retry-After.
func APIHandler(m *consensus.Member, o APIOptions) (http.Handler, error) {
	o.defaults()
	if !o.NoAuth && len(o.Tokens) == 0 {
		return nil, errors.New("consensus: the client API needs bearer tokens (or NoAuth for a loopback devnet)")
	}
	s := &apiServer{m: m, o: o, auth: newTokenSet(o.Tokens)}
	if o.OwnerRate > 0 {
		s.quota = &quotas{rate: o.OwnerRate, burst: float64(o.OwnerBurst), now: o.Clock, b: map[[20]byte]*bucket{}}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/inputs", s.guard(UploadBodyLimit(m.Params()), true, s.upload))
	mux.HandleFunc("GET /v1/publickey", s.guard(0, false, s.publicKey))
	mux.HandleFunc("GET /v1/status", s.guard(0, true, s.status))
	mux.HandleFunc("POST /v1/private-read", s.guard(api.PrivateReadBodyLimit(m.Params()), true, s.privateRead))
	if len(o.AllowOrigins) == 0 {
		return mux, nil
	}
	allow, err := parseAllowOrigins(o.AllowOrigins)
	if err != nil {
		return nil, err
	}
	return corsHandler(allow, mux), nil
}

// parseAllowOrigins checks APIOptions.AllowOrigins: "*", or
// scheme://host with an optional :port or :* and nothing else.
func parseAllowOrigins(origins []string) ([]string, error) {
	out := make([]string, 0, len(origins))
	for _, o := range origins {
		o = strings.TrimSpace(o)
		if o == "*" {
			out = append(out, o)
			continue
		}
		scheme, rest, ok := strings.Cut(o, "://")
		if !ok || (scheme != "http" && scheme != "https") || rest == "" || strings.ContainsAny(rest, "/?#@ ") {
			return nil, fmt.Errorf("consensus: allowed origin %q is not scheme://host[:port|:*]", o)
		}
		out = append(out, strings.ToLower(o))
	}
	return out, nil
}

// originAllowed reports whether a request's Origin matches one of the
// patterns (exactly, or up to a ":*" port wildcard that matches a decimal
// port).
func originAllowed(allow []string, origin string) bool {
	origin = strings.ToLower(origin)
	for _, a := range allow {
		if a == "*" || a == origin {
			return true
		}
		if base, ok := strings.CutSuffix(a, ":*"); ok {
			if port, ok := strings.CutPrefix(origin, base+":"); ok && port != "" && len(port) <= 5 && strings.Trim(port, "0123456789") == "" {
				return true
			}
		}
	}
	return false
}

// corsHandler lets pages of the allowed origins call next from a browser:
// the allowed origin is echoed, the announcement headers are exposed and a
// preflight (OPTIONS with Access-Control-Request-Method) is answered 204.
// A request from another origin gets no CORS headers, so its browser
// refuses it (and never sends the preflighted JSON upload).
func corsHandler(allow []string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Add("Vary", "Origin")
		if !originAllowed(allow, origin) {
			next.ServeHTTP(w, r)
			return
		}
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Expose-Headers", api.HeaderChainID+", "+api.HeaderEpoch+", Retry-After")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", "GET, POST")
			h.Set("Access-Control-Allow-Headers", "Content-Type, Authorization")
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// apiServer holds what APIHandler's routes share: the member, the
// options, the bearer tokens and the per-owner upload quotas (nil when
// uploads are unmetered).
type apiServer struct {
	m     *consensus.Member
	o     APIOptions
	auth  tokenSet
	quota *quotas
}

// guard wraps a route: it checks the bearer token when needAuth (unless
// NoAuth), refuses a declared body over limit with 413 and bounds the body
// read to limit.
func (s *apiServer) guard(limit int64, needAuth bool, f http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if needAuth && !s.o.NoAuth && !s.auth.ok(r.Header.Get("Authorization")) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="fhegate-committee"`)
			http.Error(w, "missing or unknown bearer token", http.StatusUnauthorized)
			return
		}
		if r.ContentLength > limit {
			http.Error(w, fmt.Sprintf("body of %d bytes over this route's limit of %d", r.ContentLength, limit), http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		f(w, r)
	}
}

// upload serves POST /v1/inputs: decode (the binary body of uploadwire, or
// JSON), meter the owner, then store, replicate and attest.
func (s *apiServer) upload(w http.ResponseWriter, r *http.Request) {
	var (
		owner  [20]byte
		rooted bool
		ups    []api.InputUpload
		err    error
	)
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == uploadwire.ContentType {
		owner, rooted, ups, err = s.decodeBinaryUpload(r.Body)
	} else {
		owner, rooted, ups, err = decodeJSONUpload(r.Body)
	}
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			http.Error(w, fmt.Sprintf("body over this route's limit of %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if s.quota != nil && !s.meter(w, owner, "0x"+hex.EncodeToString(owner[:]), len(ups)) {
		return
	}
	upload := s.m.UploadBatch
	if rooted {
		upload = s.m.UploadBatchRooted
	}
	att, err := upload(r.Context(), owner, ups)
	if err != nil {
		code := http.StatusBadRequest
		if errors.Is(err, consensus.ErrNoQuorum) {
			code = http.StatusServiceUnavailable
		}
		http.Error(w, err.Error(), code)
		return
	}
	writeJSONResp(w, att.JSON())
}

// decodeJSONUpload reads an api.UploadRequest.
func decodeJSONUpload(body io.Reader) (owner [20]byte, rooted bool, ups []api.InputUpload, err error) {
	var req api.UploadRequest
	if err := json.NewDecoder(body).Decode(&req); err != nil {
		return owner, false, nil, fmt.Errorf("bad request body: %w", err) // a *http.MaxBytesError stays visible to errors.As
	}
	if owner, err = api.ParseOwner(req.Owner); err != nil {
		return owner, false, nil, err
	}
	ins, err := req.Items()
	if err != nil {
		return owner, false, nil, err
	}
	ups, err = decodeUploads(ins)
	return owner, req.Rooted, ups, err
}

// decodeBinaryUpload reads an uploadwire body: at most the binary limit of
// the member's preset (UploadBinaryLimit, below the route's JSON limit),
// every ciphertext and proof bounded by the preset's sizes.
func (s *apiServer) decodeBinaryUpload(body io.Reader) (owner [20]byte, rooted bool, ups []api.InputUpload, err error) {
	p := s.m.Params()
	limit := UploadBinaryLimit(p)
	b, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return owner, false, nil, err
	}
	if int64(len(b)) > limit {
		return owner, false, nil, &http.MaxBytesError{Limit: limit}
	}
	return api.DecodeUploadBody(b, MaxCanonicalCiphertext(p), maxProof(p))
}

// decodeUploads decodes the hex of every input; a missing proof is refused
// here, before anything is verified.
func decodeUploads(ins []api.UploadInput) ([]api.InputUpload, error) {
	ups := make([]api.InputUpload, len(ins))
	for i, in := range ins {
		ct, err := hex.DecodeString(strings.TrimPrefix(in.Ciphertext, "0x"))
		if err != nil || len(ct) == 0 {
			return nil, fmt.Errorf("input %d: ciphertext is not hex", i)
		}
		if in.Proof == "" {
			return nil, fmt.Errorf("input %d: missing proof: POST /v1/inputs needs \"proof\", the hex of an fhe/zkpok proof of plaintext knowledge bound to owner, chain, epoch and ciphertext", i)
		}
		proof, err := hex.DecodeString(strings.TrimPrefix(in.Proof, "0x"))
		if err != nil {
			return nil, fmt.Errorf("input %d: proof is not hex", i)
		}
		ups[i] = api.InputUpload{Ciphertext: ct, Proof: proof, CType: in.CType}
	}
	return ups, nil
}

// meter spends n uploads of owner's quota (one per ciphertext: each is
// verified, replicated and fsynced on every member) or answers 429 with
// Retry-After — or 400 when n exceeds the burst, which no wait would cure.
func (s *apiServer) meter(w http.ResponseWriter, owner [20]byte, name string, n int) bool {
	if float64(n) > s.quota.burst {
		http.Error(w, fmt.Sprintf("upload of %d ciphertexts exceeds the per-owner burst of %v: split it", n, s.quota.burst), http.StatusBadRequest)
		return false
	}
	wait, ok := s.quota.take(owner, n)
	if !ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		http.Error(w, fmt.Sprintf("upload quota of owner %s exhausted: retry in %s", name, wait.Round(time.Millisecond)), http.StatusTooManyRequests)
	}
	return ok
}

// publicKey serves GET /v1/publickey: the collective public key's
// canonical bytes, with the epoch and chain an input proof must be bound to
// in headers.
func (s *apiServer) publicKey(w http.ResponseWriter, r *http.Request) {
	km, err := s.m.Keys()
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	b, err := km.Public.MarshalBinary()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	// What an input proof must be bound to besides the key (fhe/zkpok).
	pc := s.m.ProofContext([20]byte{})
	w.Header().Set(api.HeaderEpoch, strconv.FormatUint(pc.Epoch, 10))
	if pc.ChainID != nil {
		w.Header().Set(api.HeaderChainID, pc.ChainID.String())
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	_, _ = w.Write(b)
}

// status serves GET /v1/status: the member's Status as JSON.
func (s *apiServer) status(w http.ResponseWriter, r *http.Request) {
	writeJSONResp(w, s.m.Status())
}

// tokenSet checks bearer tokens in constant time: the presented token and
// every configured one are hashed to 32 bytes and all are compared, so the
// time taken reveals neither a prefix nor which token matched.
type tokenSet [][32]byte

func newTokenSet(tokens []string) tokenSet {
	out := make(tokenSet, len(tokens))
	for i, t := range tokens {
		out[i] = sha256.Sum256([]byte(t))
	}
	return out
}

func (s tokenSet) ok(header string) bool {
	tok, found := strings.CutPrefix(header, "Bearer ")
	if !found || tok == "" {
		return false
	}
	h := sha256.Sum256([]byte(tok))
	match := 0
	for i := range s {
		match |= subtle.ConstantTimeCompare(h[:], s[i][:])
	}
	return match == 1
}

// quotas is a token bucket per owner.
type quotas struct {
	rate, burst float64
	now         func() time.Time
	mu          sync.Mutex
	b           map[[20]byte]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

// take spends n uploads of owner's bucket, or returns how long until n
// are available (n ≤ burst: the caller checks).
func (q *quotas) take(owner [20]byte, n int) (time.Duration, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.now()
	b, ok := q.b[owner]
	if !ok {
		if len(q.b) >= maxQuotaOwners {
			q.forgetFull(now)
			if len(q.b) >= maxQuotaOwners {
				// maxQuotaOwners owners all mid-quota: a flood over
				// fresh owners; refuse new ones until buckets refill.
				return time.Duration(float64(time.Second) / q.rate), false
			}
		}
		b = &bucket{tokens: q.burst, last: now}
		q.b[owner] = b
	}
	b.tokens = math.Min(q.burst, b.tokens+now.Sub(b.last).Seconds()*q.rate)
	b.last = now
	if need := float64(n); b.tokens < need {
		return time.Duration((need - b.tokens) / q.rate * float64(time.Second)), false
	}
	b.tokens -= float64(n)
	return 0, true
}

// forgetFull drops the buckets that have refilled (a fresh bucket is full,
// so forgetting them changes no answer) to bound the map.
func (q *quotas) forgetFull(now time.Time) {
	for k, b := range q.b {
		if b.tokens+now.Sub(b.last).Seconds()*q.rate >= q.burst {
			delete(q.b, k)
		}
	}
}

func writeJSONResp(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// privateRead serves POST /v1/private-read.
func (s *apiServer) privateRead(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			http.Error(w, fmt.Sprintf("body over this route's limit of %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "bad request body: "+err.Error(), http.StatusBadRequest)
		return
	}
	req, pk, err := api.DecodePrivateRead(s.m.Params(), body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	// The signature first: only a signer whose signature recovered is
	// metered, so a junk signature naming someone costs that account none
	// of its quota (and the deadline, checked with it, is free).
	v, err := s.m.VerifyPrivateRead(req)
	if err != nil {
		http.Error(w, err.Error(), privateReadStatus(err))
		return
	}
	if s.quota != nil && !s.meter(w, v.Signer(), "0x"+hex.EncodeToString(req.Signer[:]), 1) {
		return
	}
	resp, err := s.m.PrivateRead(r.Context(), v, pk)
	if err != nil {
		http.Error(w, err.Error(), privateReadStatus(err))
		return
	}
	writeJSONResp(w, resp)
}

// privateReadStatus maps a private-read error to its HTTP status.
func privateReadStatus(err error) int {
	switch {
	case errors.Is(err, consensus.ErrPrivateReadUnauthorised), errors.Is(err, api.ErrPrivateReadBadSignature),
		errors.Is(err, consensus.ErrPrivateReadExpired), errors.Is(err, consensus.ErrPrivateReadKeyCap):
		return http.StatusForbidden
	case errors.Is(err, consensus.ErrPrivateReadReplay):
		return http.StatusConflict
	case errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, consensus.ErrNoACL), errors.Is(err, consensus.ErrNoKeys):
		return http.StatusServiceUnavailable
	}
	return http.StatusBadRequest
}
