package consensus_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/apiserver"
	"github.com/fhegate/fhegate/consensus/local"
)

const testToken = "test-token-0123456789abcdef"

// apiRig is a member's client API served on loopback.
type apiRig struct {
	t   *testing.T
	lc  *local.Committee
	url string
}

func startAPI(t *testing.T, lc *local.Committee, o apiserver.APIOptions) *apiRig {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv, err := apiserver.NewAPIServer(lc.Member(1), ln.Addr().String(), o)
	require.NoError(t, err)
	go func() { _ = apiserver.ServeAPI(srv, ln) }()
	t.Cleanup(func() { srv.Close() })
	return &apiRig{t: t, lc: lc, url: "http://" + ln.Addr().String()}
}

func (a *apiRig) do(method, path, token string, body io.Reader) *http.Response {
	a.t.Helper()
	req, err := http.NewRequest(method, a.url+path, body)
	require.NoError(a.t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(a.t, err)
	a.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func (a *apiRig) upload(token string, owner string, v int64) *http.Response {
	a.t.Helper()
	o, err := api.ParseOwner(owner)
	require.NoError(a.t, err)
	b, proof, err := a.lc.Member(1).EncryptInput([]int64{v}, o)
	require.NoError(a.t, err)
	body, _ := json.Marshal(api.UploadRequest{Ciphertext: "0x" + hex.EncodeToString(b), Owner: owner, CType: 1, Proof: "0x" + hex.EncodeToString(proof)})
	return a.do(http.MethodPost, "/v1/inputs", token, bytes.NewReader(body))
}

func apiCommittee(t *testing.T) *local.Committee {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	lc, err := local.Start(ctx, local.Options{N: 3, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10", Rotations: []int{1},
		RoundTimeout: 5 * time.Second, Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	return lc
}

// TestAPIHardening covers the client API's defences; each subtest names
// the attack it stops (see the comment of its function).
func TestAPIHardening(t *testing.T) {
	t.Parallel()
	lc := apiCommittee(t)
	owner := "0x" + strings.Repeat("ab", 20)
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, lc *local.Committee, owner string)
	}{
		{"401 without a valid token", apiNeedsToken},
		{"413 over the route's body limit", apiBodyLimit},
		{"429 over the owner's quota", apiOwnerQuota},
		{"slow-loris clients are cut off", apiSlowLoris},
		{"non-loopback needs TLS", apiNeedsTLS},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, lc, owner) })
	}
}

// apiNeedsToken — Attack: "anonymous uploads". Anyone who reached the port could make
// every member store, fsync and sign ciphertexts. Uploads and status
// need a bearer token; the collective public key stays public.
func apiNeedsToken(t *testing.T, lc *local.Committee, owner string) {
	a := startAPI(t, lc, apiserver.APIOptions{Tokens: []string{testToken}})
	require.Equal(t, http.StatusUnauthorized, a.upload("", owner, 1).StatusCode)
	require.Equal(t, http.StatusUnauthorized, a.upload(testToken+"x", owner, 1).StatusCode)
	require.Equal(t, http.StatusUnauthorized, a.do(http.MethodGet, "/v1/status", "", nil).StatusCode)
	require.Equal(t, http.StatusOK, a.do(http.MethodGet, "/v1/publickey", "", nil).StatusCode)
	require.Equal(t, http.StatusOK, a.do(http.MethodGet, "/v1/status", testToken, nil).StatusCode)
	require.Equal(t, http.StatusOK, a.upload(testToken, owner, 1).StatusCode)
	_, err := apiserver.APIHandler(lc.Member(1), apiserver.APIOptions{})
	require.Error(t, err, "an API without tokens must say NoAuth")
}

// apiBodyLimit — Attack: "oversized bodies". A flat 16 MB body limit let any client
// make the member buffer and hex-decode 16 MB per request, whatever the
// preset. The upload route's limit is the hex of the preset's largest
// canonical ciphertext; the GET routes take no body.
func apiBodyLimit(t *testing.T, lc *local.Committee, owner string) {
	a := startAPI(t, lc, apiserver.APIOptions{Tokens: []string{testToken}})
	limit := apiserver.UploadBodyLimit(lc.Member(1).Params())
	require.Less(t, limit, int64(16<<20))
	big := strings.NewReader(`{"ciphertext":"` + strings.Repeat("0", int(limit)) + `"}`)
	require.Equal(t, http.StatusRequestEntityTooLarge, a.do(http.MethodPost, "/v1/inputs", testToken, big).StatusCode, "declared length")
	// No Content-Length (chunked): cut off while reading.
	chunked := io.MultiReader(strings.NewReader(`{"ciphertext":"`), strings.NewReader(strings.Repeat("0", int(limit))))
	require.Equal(t, http.StatusRequestEntityTooLarge, a.do(http.MethodPost, "/v1/inputs", testToken, chunked).StatusCode, "chunked")
	require.Equal(t, http.StatusRequestEntityTooLarge, a.do(http.MethodGet, "/v1/status", testToken, strings.NewReader("x")).StatusCode)
	// A maximal legitimate ciphertext still fits.
	require.GreaterOrEqual(t, limit, int64(2*apiserver.MaxCanonicalCiphertext(lc.Member(1).Params())+100))
}

// apiOwnerQuota — Attack: "upload flood". Every upload is replicated and fsynced on all
// n members; one owner's uploads are bounded by a token bucket and the
// excess answered 429 with Retry-After.
func apiOwnerQuota(t *testing.T, lc *local.Committee, owner string) {
	now := time.Unix(1_700_000_000, 0)
	o := apiserver.APIOptions{Tokens: []string{testToken}, OwnerRate: 0.5, OwnerBurst: 2}
	o.Clock = func() time.Time { return now }
	a := startAPI(t, lc, o)
	require.Equal(t, http.StatusOK, a.upload(testToken, owner, 1).StatusCode)
	require.Equal(t, http.StatusOK, a.upload(testToken, owner, 2).StatusCode)
	resp := a.upload(testToken, owner, 3)
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	require.Equal(t, "2", resp.Header.Get("Retry-After"))
	// Another owner has its own bucket (a bad body past the quota: 400).
	other := "0x" + strings.Repeat("cd", 20)
	body := fmt.Sprintf(`{"ciphertext":"zz","owner":%q}`, other)
	require.Equal(t, http.StatusBadRequest, a.do(http.MethodPost, "/v1/inputs", testToken, strings.NewReader(body)).StatusCode)
	now = now.Add(2 * time.Second) // one upload refilled
	require.Equal(t, http.StatusOK, a.upload(testToken, owner, 4).StatusCode)
	require.Equal(t, http.StatusTooManyRequests, a.upload(testToken, owner, 5).StatusCode)
}

// apiSlowLoris — Attack: "slow loris". A client that sends its headers or body a byte
// at a time held a connection and a goroutine forever (no read
// timeout). The server closes it after ReadHeaderTimeout/ReadTimeout.
func apiSlowLoris(t *testing.T, lc *local.Committee, owner string) {
	a := startAPI(t, lc, apiserver.APIOptions{Tokens: []string{testToken}, ReadHeaderTimeout: 300 * time.Millisecond, ReadTimeout: 700 * time.Millisecond})
	addr := strings.TrimPrefix(a.url, "http://")
	closedWithin := func(send func(c net.Conn) error) time.Duration {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		start := time.Now()
		done := make(chan struct{})
		go func() { // drip until the server hangs up (at most 20 s)
			defer close(done)
			for time.Since(start) < 20*time.Second {
				if send(c) != nil {
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
		}()
		_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
		_, _ = io.Copy(io.Discard, bufio.NewReader(c)) // until EOF or reset
		d := time.Since(start)
		c.Close()
		<-done
		return d
	}
	// Headers, one byte per 100 ms, never finished.
	hdr := "POST /v1/inputs HTTP/1.1\r\nHost: x\r\nX-Slow: " + strings.Repeat("a", 400)
	i := 0
	d := closedWithin(func(c net.Conn) error {
		_, err := c.Write([]byte{hdr[i%len(hdr)]})
		i++
		return err
	})
	require.Less(t, d, 5*time.Second, "slow headers held the connection")
	// Headers at once, then the body dripped.
	first := true
	d = closedWithin(func(c net.Conn) error {
		if first {
			first = false
			_, err := fmt.Fprintf(c, "POST /v1/inputs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"ciphertext\":\"", testToken)
			return err
		}
		_, err := c.Write([]byte("00"))
		return err
	})
	require.Less(t, d, 5*time.Second, "a slow body held the connection")
}

// apiNeedsTLS — Attack: "plaintext API on the network". Tokens and uploads crossed
// the network in clear HTTP. Off loopback the server needs TLS (and
// tokens); NoAuth is loopback-only.
func apiNeedsTLS(t *testing.T, lc *local.Committee, owner string) {
	m := lc.Member(1)
	for _, addr := range []string{"0.0.0.0:8600", ":8600", "10.1.2.3:8600", "[::]:8600", "example.com:8600"} {
		_, err := apiserver.NewAPIServer(m, addr, apiserver.APIOptions{Tokens: []string{testToken}})
		require.ErrorContains(t, err, "requires TLS", addr)
	}
	cert, key := writeTestCert(t)
	_, err := apiserver.NewAPIServer(m, "0.0.0.0:8600", apiserver.APIOptions{NoAuth: true, TLSCert: cert, TLSKey: key})
	require.ErrorContains(t, err, "requires bearer tokens")
	_, err = apiserver.NewAPIServer(m, "0.0.0.0:8600", apiserver.APIOptions{Tokens: []string{testToken}, TLSCert: cert})
	require.Error(t, err, "a certificate without its key")
	for _, addr := range []string{"127.0.0.1:8600", "localhost:8600", "[::1]:8600"} {
		_, err := apiserver.NewAPIServer(m, addr, apiserver.DevAPIOptions())
		require.NoError(t, err, addr)
	}
	srv, err := apiserver.NewAPIServer(m, "0.0.0.0:8600", apiserver.APIOptions{Tokens: []string{testToken}, TLSCert: cert, TLSKey: key})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = apiserver.ServeAPI(srv, ln) }()
	t.Cleanup(func() { srv.Close() })
	cl := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := cl.Get("https://" + ln.Addr().String() + "/v1/publickey")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	_, err = http.Get("http://" + ln.Addr().String() + "/v1/publickey")
	if err == nil {
		t.Log("plain HTTP got an answer from the TLS listener (expected a TLS alert)")
	}
}

// TestLoadAPITokens: comments and blanks are skipped, short tokens refused.
func TestLoadAPITokens(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "tokens")
	require.NoError(t, os.WriteFile(p, []byte("# relayer\n"+testToken+"\n\n  second-token-abcdefghijkl  \n"), 0o600))
	toks, err := apiserver.LoadAPITokens(p)
	require.NoError(t, err)
	require.Equal(t, []string{testToken, "second-token-abcdefghijkl"}, toks)
	require.NoError(t, os.WriteFile(p, []byte("short\n"), 0o600))
	_, err = apiserver.LoadAPITokens(p)
	require.Error(t, err)
	require.NoError(t, os.WriteFile(p, []byte("# none\n"), 0o600))
	_, err = apiserver.LoadAPITokens(p)
	require.Error(t, err)
}

func writeTestCert(t *testing.T) (certPath, keyPath string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "api"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), DNSNames: []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	require.NoError(t, err)
	kb, err := x509.MarshalECPrivateKey(k)
	require.NoError(t, err)
	dir := t.TempDir()
	certPath, keyPath = filepath.Join(dir, "api.crt"), filepath.Join(dir, "api.key")
	require.NoError(t, os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600))
	return certPath, keyPath
}
