package api

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe/pkswitch"
)

// TestFetchKeyAnnouncementNotACommittee: a URL that answers GET
// /v1/publickey with 200 and none of the announcement's headers — what a
// chain's JSON-RPC endpoint does — is named as not a committee client API,
// with what to pass instead; a member's own error answers keep their
// status and text, and a member's announcement is read.
func TestFetchKeyAnnouncementNotACommittee(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		is      error  // nil: no sentinel
		want    string // in the error ("" = no error)
	}{
		{"JSON-RPC endpoint", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) },
			ErrNotCommitteeAPI, "pass a committee member's client API URL"},
		{"web page", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html></html>")) },
			ErrNotCommitteeAPI, "13 bytes and no X-Fhegate-Epoch header"},
		{"member without keys yet", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "keys not ready", http.StatusServiceUnavailable)
		}, nil, "committee public key (503 Service Unavailable): keys not ready"},
		{"member", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set(HeaderEpoch, "3")
			w.Header().Set(HeaderChainID, "1337")
			_, _ = w.Write([]byte{1, 2, 3})
		}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			ann, err := FetchKeyAnnouncement(context.Background(), srv.URL)
			if tc.want == "" {
				require.NoError(t, err)
				require.Equal(t, uint64(3), ann.Proof.Epoch)
				require.Equal(t, int64(1337), ann.Proof.ChainID.Int64())
				require.Equal(t, []byte{1, 2, 3}, ann.PublicKey)
				return
			}
			require.ErrorContains(t, err, tc.want)
			if tc.is != nil {
				require.ErrorIs(t, err, tc.is)
			} else {
				require.NotErrorIs(t, err, ErrNotCommitteeAPI)
			}
		})
	}
}

// TestTooFewSharesNamesTheCause: ReadPrivate's error when fewer than t
// members shared names the threshold the answers announced (never "t=0"
// when none answered) and the cause: no URL, too few URLs, or the others'
// refusals.
func TestTooFewSharesNamesTheCause(t *testing.T) {
	refusal := &PrivateReadHTTPError{API: "http://m2", Status: 403, Msg: "not allowed"}
	for _, tc := range []struct {
		name          string
		got, t, given int
		errs          []error
		want, mustNot string
	}{
		{"no URL", 0, 0, 0, nil, "no member API URL given", "t="},
		{"none answered", 0, 0, 2, []error{refusal, errors.New("connection refused")},
			"none of the 2 members asked shared (a member's answer names the threshold t): private read at http://m2: 403 Forbidden: not allowed\nconnection refused", "t=0"},
		{"too few URLs", 1, 2, 1, nil, "1 of the 1 members asked shared, the committee's threshold is t=2: give at least 2 member API URLs", "%!"},
		{"others refused", 1, 2, 3, []error{refusal}, "1 of the 3 members asked shared, the committee's threshold is t=2; the others: private read at http://m2", "%!"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tooFewShares(tc.got, tc.t, tc.given, tc.errs)
			require.ErrorIs(t, err, pkswitch.ErrTooFewShares)
			require.ErrorContains(t, err, tc.want)
			require.NotContains(t, err.Error(), tc.mustNot)
		})
	}
}
