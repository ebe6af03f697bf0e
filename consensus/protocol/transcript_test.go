package protocol

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/fhe/noise"
)

var seedSuffix = regexp.MustCompile(`/[0-9a-f]{12}(/\[[0-9 ]+\])?(/mask)?(/echo)?$`)

var updateTranscript = flag.Bool("update", false, "rewrite testdata/*.transcript")

// recorder wraps a Transport and notes the shape of every message sent: the
// receiver, type, session and payload length (payloads themselves are random).
type recorder struct {
	transport.Transport
	mu   sync.Mutex
	sent []string
}

func (r *recorder) Send(ctx context.Context, to transport.MemberID, msg transport.Message) error {
	r.mu.Lock()
	// the coin-toss seed in a session name is random: pinned as <seed>
	session := seedSuffix.ReplaceAllString(msg.Session, "/<seed>${1}${2}${3}")
	r.sent = append(r.sent, fmt.Sprintf("%d->%d type=%d session=%s bytes=%d", r.Self(), to, msg.Type, session, len(msg.Payload)))
	r.mu.Unlock()
	return r.Transport.Send(ctx, to, msg)
}

// recipient is the receiver of a recorded line ("from->to …").
func recipient(line string) int {
	var from, to int
	_, _ = fmt.Sscanf(line, "%d->%d", &from, &to)
	return to
}

// TestProtocolTranscript pins the messages each member sends, in order per
// recipient, in a
// DKG (2-of-4, two Galois elements given unsorted and repeated), a
// collective refresh and a threshold decryption: the wire protocol, not just
// its outcome.
func TestProtocolTranscript(t *testing.T) {
	t.Parallel()
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	const n, th = 4, 2 // a verified refresh and decryption need 2t−1 ≤ n
	gal := p.GaloisElementsForRotations([]int{2, 1})
	gal = append(gal, gal[0]) // RunDKG sorts and deduplicates
	recs := make([]*recorder, n)
	c := newCommitteeOn(t, p, n, th, 3, gal, func(tr transport.Transport) transport.Transport {
		recs[tr.Self()-1] = &recorder{Transport: tr}
		return recs[tr.Self()-1]
	})
	group := func(i int) Group { return c.group(i, t) }
	ctx := context.Background()
	ev, err := fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: c.kms[0].Relin, Galois: c.kms[0].Galois})
	require.NoError(t, err)
	ct, err := fhe.NewEncryptor(c.kms[0].Public).EncryptInts([]int64{5, 6, 7})
	require.NoError(t, err)
	floor, err := noise.RefreshFloorLevel(p, 0, 0)
	require.NoError(t, err)
	low, err := ev.DropLevels(ct, ct.Level()-floor)
	require.NoError(t, err)
	refreshed := make([]*fhe.Ciphertext, n)
	for _, err := range parallel(all(n), func(i int) error {
		var err error
		refreshed[i], err = Refresh(ctx, group(i), c.keys[i], c.ledgers[i], RefreshRequest{Session: "ref/t", Ciphertext: low,
			Active: c.members, Receivers: c.members, PublicKey: c.kms[i].Public})
		return err
	}) {
		require.NoError(t, err)
	}
	plan, err := PlanNoise(p, n, th, 0)
	require.NoError(t, err)
	for _, err := range parallel(all(n), func(i int) error {
		res, err := ThresholdDecrypt(ctx, group(i), c.keys[i], plan, ev, c.ledgers[i], DecryptRequest{Session: "dec/t",
			Ciphertext: refreshed[0], Participants: c.members, PublicKey: c.kms[i].Public})
		if err == nil && (fhe.Centre(res.Values[:3], p.PlaintextModulus())[2] != 7 || len(res.Bad) > 0) {
			err = fmt.Errorf("member %d decrypted %v, bad %v", i+1, res.Values[:3], res.Bad)
		}
		return err
	}) {
		require.NoError(t, err)
	}

	var b strings.Builder
	for _, r := range recs {
		// Broadcast sends to its recipients concurrently: the order per
		// recipient is the protocol's, the interleaving across recipients
		// is not.
		sort.SliceStable(r.sent, func(i, j int) bool { return recipient(r.sent[i]) < recipient(r.sent[j]) })
		for _, line := range r.sent {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	golden := filepath.Join("testdata", "protocol.transcript")
	if *updateTranscript {
		require.NoError(t, os.WriteFile(golden, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.Equal(t, string(want), b.String())
}
