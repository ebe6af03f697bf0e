package apiserver

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/consensus/api"
)

// A page on an allowed origin may fetch the key (and read the headers an
// input proof binds) and upload JSON after a preflight; a page elsewhere
// gets no CORS headers, so its browser refuses the answer and never sends
// the preflighted upload.
func TestAPICORS(t *testing.T) {
	allow, err := parseAllowOrigins(DevAllowOrigins)
	require.NoError(t, err)
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(api.HeaderEpoch, "1")
		w.WriteHeader(http.StatusOK)
	})
	h := corsHandler(allow, next)
	for _, tc := range []struct {
		name, method, origin string
		preflight            bool
		wantStatus           int
		wantAllow            string
	}{
		{"no origin (curl, Go client)", http.MethodGet, "", false, 200, ""},
		{"localhost page", http.MethodGet, "http://localhost:5173", false, 200, "http://localhost:5173"},
		{"127.0.0.1 page, preflight", http.MethodOptions, "http://127.0.0.1:41545", true, 204, "http://127.0.0.1:41545"},
		{"IPv6 loopback page", http.MethodPost, "http://[::1]:8080", false, 200, "http://[::1]:8080"},
		{"another site", http.MethodGet, "https://evil.example", false, 200, ""},
		{"another site's preflight", http.MethodOptions, "https://evil.example", true, 200, ""},
		{"lookalike host", http.MethodGet, "http://localhost.evil.example:80", false, 200, ""},
		{"port not a number", http.MethodGet, "http://localhost:80x", false, 200, ""},
		{"no port", http.MethodGet, "http://localhost", false, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, "/v1/publickey", nil)
			if tc.origin != "" {
				r.Header.Set("Origin", tc.origin)
			}
			if tc.preflight {
				r.Header.Set("Access-Control-Request-Method", "POST")
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			require.Equal(t, tc.wantStatus, w.Code)
			require.Equal(t, tc.wantAllow, w.Header().Get("Access-Control-Allow-Origin"))
			if tc.wantAllow != "" {
				require.Contains(t, w.Header().Get("Access-Control-Expose-Headers"), api.HeaderChainID)
				require.Contains(t, w.Header().Get("Access-Control-Expose-Headers"), api.HeaderEpoch)
			}
		})
	}
	for _, bad := range []string{"localhost:80", "ftp://x", "http://", "http://a/b", "http://a b"} {
		_, err := parseAllowOrigins([]string{bad})
		require.Error(t, err, bad)
	}
	any, err := parseAllowOrigins([]string{"*"})
	require.NoError(t, err)
	require.True(t, originAllowed(any, "https://anything.example"))
}
