package devchain

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// servedNamespaces are the JSON-RPC namespaces the development chain serves,
// besides its own evm_mine. subnet-evm's eth service also offers admin
// (exportChain/importChain: files on the host), debug (profiles and traces
// written to any path, raw chain data) and personal; a devnet has no use for
// them over the network, and any web page could reach them.
var servedNamespaces = map[string]bool{"eth": true, "net": true, "web3": true, "txpool": true}

// DefaultAllowOrigins are the browser origins the JSON-RPC endpoint accepts
// unless Config.AllowOrigins adds more: pages served from this machine (a
// dApp's dev server) on any port.
var DefaultAllowOrigins = []string{"http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"}

// originPattern is one allowed browser origin: scheme and host exactly, and a
// port (anyPort: any port, or none).
type originPattern struct {
	scheme, host, port string
	anyPort            bool
}

// parseOrigins parses origins of the form scheme://host[:port|:*], or "*"
// (any origin: every web page the developer visits may call the chain).
func parseOrigins(origins []string) (pats []originPattern, any bool, err error) {
	for _, o := range origins {
		if o == "*" {
			any = true
			continue
		}
		p, err := parseOrigin(o)
		if err != nil {
			return nil, false, err
		}
		pats = append(pats, p)
	}
	return pats, any, nil
}

func parseOrigin(o string) (originPattern, error) {
	bad := func(why string) (originPattern, error) {
		return originPattern{}, fmt.Errorf("devchain: allowed origin %q: %s (want scheme://host[:port], port may be *)", o, why)
	}
	anyPort := strings.HasSuffix(o, ":*")
	u, err := url.Parse(strings.TrimSuffix(strings.ToLower(o), ":*"))
	switch {
	case err != nil:
		return bad(err.Error())
	case u.Scheme != "http" && u.Scheme != "https":
		return bad("scheme must be http or https")
	case u.Host == "" || u.Hostname() == "":
		return bad("no host")
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return bad("an origin has no path, query or user")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 || anyPort {
			return bad("bad port")
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return bad("bad port")
	}
	return originPattern{scheme: u.Scheme, host: u.Hostname(), port: u.Port(), anyPort: anyPort}, nil
}

// originPolicy decides which browser origins may use the endpoint.
type originPolicy struct {
	pats []originPattern
	any  bool
}

func newOriginPolicy(extra []string) (*originPolicy, error) {
	pats, any, err := parseOrigins(append(append([]string(nil), DefaultAllowOrigins...), extra...))
	if err != nil {
		return nil, err
	}
	return &originPolicy{pats: pats, any: any}, nil
}

// allowed reports whether a request's Origin header value is allowed.
func (p *originPolicy) allowed(origin string) bool {
	if p.any {
		return true
	}
	u, err := url.Parse(strings.ToLower(origin))
	if err != nil || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
		return false // includes "null" (file://, sandboxed frames)
	}
	host, port := u.Hostname(), u.Port()
	for _, pat := range p.pats {
		if pat.scheme == u.Scheme && pat.host == host && (pat.anyPort || pat.port == port) {
			return true
		}
	}
	return false
}

// guard applies the origin policy in front of the JSON-RPC handlers. A request
// without Origin is not from a browser page (Go, node, curl) and passes
// without CORS headers. One with an allowed Origin gets the CORS grant for
// that origin; any other is refused (403) before it reaches the RPC server,
// WebSocket upgrades included.
func (p *originPolicy) guard(rpcHTTP, ws http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		isWS := strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
		if origins, ok := r.Header["Origin"]; ok {
			if len(origins) != 1 || !p.allowed(origins[0]) {
				http.Error(w, "origin not allowed (fhegate devnet --rpc-allow-origin adds one)", http.StatusForbidden)
				return
			}
			h := w.Header()
			h.Add("Vary", "Origin")
			if !isWS {
				h.Set("Access-Control-Allow-Origin", origins[0])
				h.Set("Access-Control-Allow-Methods", "POST, GET, OPTIONS")
				h.Set("Access-Control-Allow-Headers", "Content-Type, Authorization")
				h.Set("Access-Control-Max-Age", "600")
			}
		}
		switch {
		case isWS:
			ws.ServeHTTP(w, r)
		case r.Method == http.MethodOptions:
			w.WriteHeader(http.StatusNoContent)
		default:
			rpcHTTP.ServeHTTP(w, r)
		}
	})
}

// ValidateOrigins checks origins the way Config.AllowOrigins is checked, so
// that a command can refuse a bad one before doing anything slow.
func ValidateOrigins(origins []string) error {
	_, _, err := parseOrigins(origins)
	return err
}
