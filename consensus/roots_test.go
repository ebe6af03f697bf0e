package consensus_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/bls"
	. "github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/apiserver"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/consensus/transport"
)

// startRootCommittee is an n-member committee (no Run loop) whose members
// collect rooted uploads for window.
func startRootCommittee(t *testing.T, n, th int, window time.Duration, knobs func(id uint32) TestingKnobs) *local.Committee {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	lc, err := local.Start(ctx, local.Options{N: n, T: th, Dir: t.TempDir(), Preset: "InsecureBGVN10", Rotations: []int{1},
		RoundTimeout: 10 * time.Second, RootWindow: window, MemberKnobs: knobs, Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	return lc
}

func rootUpload(t *testing.T, m *Member, owner [20]byte, v int64) []api.InputUpload {
	t.Helper()
	ct, proof, err := m.EncryptInput(api.ReplicatedInts(m.Params(), v), owner)
	require.NoError(t, err)
	return []api.InputUpload{{Ciphertext: ct, Proof: proof, CType: 1}}
}

// checkRoot: the attestation's per-upload aggregate verifies; its leaf is
// the upload's bls.InputBatchDigest, its path leads to the root, and the
// root's aggregate verifies over bls.InputRootDigest with ≥ t signers.
func checkRoot(t *testing.T, lc *local.Committee, att *api.InputAttestation) {
	t.Helper()
	committee, _, err := lc.Config.BLSCommittee()
	require.NoError(t, err)
	chain := lc.Config.ChainIDBig()
	leaf := bls.InputBatchDigest(chain, lc.Config.Epoch, att.Owner, att.Preset, bls.InputBatchRoot(att.Items))
	require.Equal(t, leaf, att.Digest(chain))
	n, err := committee.VerifyAggregate(att.Signers, leaf[:], att.Signature)
	require.NoError(t, err)
	require.GreaterOrEqual(t, n, lc.Config.Threshold)
	require.NotNil(t, att.Root, "rooted upload without a root")
	checkLeafRoot(t, lc, leaf, att.Root)
	rd, err := att.RootDigest(chain)
	require.NoError(t, err)
	require.Equal(t, bls.InputRootDigest(chain, lc.Config.Epoch, att.Root.Root), rd)
}

// TestInputRoots: concurrent rooted uploads of different owners
// through one member — by Member.UploadBatchRooted and by the HTTP client —
// share one root the committee signed, each with the path of its own
// digest; the attacks below get refusals, a waiter that gives up does not
// break the batch, and a plain upload is unchanged.
func TestInputRoots(t *testing.T) {
	t.Parallel()
	const viaMember, viaAPI = 3, 2
	// Each peer holds its first viaMember+viaAPI StorePuts until all have
	// arrived: no upload can finish (and, being the last one in progress,
	// close the batch early) before every upload has begun.
	knobs := func(id uint32) TestingKnobs {
		if id == 1 {
			return TestingKnobs{}
		}
		var arrived sync.WaitGroup
		arrived.Add(viaMember + viaAPI)
		var entered atomic.Int32
		return TestingKnobs{InStorePut: func() {
			if entered.Add(1) <= viaMember+viaAPI {
				arrived.Done()
				arrived.Wait()
			}
		}}
	}
	lc := startRootCommittee(t, 5, 3, time.Minute, knobs)
	m1 := lc.Member(1)
	srv := startAPI(t, lc, apiserver.DevAPIOptions())
	chain := lc.Config.ChainIDBig()

	atts := make([]*api.InputAttestation, viaMember+viaAPI)
	errs := make([]error, len(atts))
	ups := make([][]api.InputUpload, len(atts))
	for i := range ups {
		ups[i] = rootUpload(t, m1, [20]byte{0xd0, byte(i)}, int64(i))
	}
	var wg sync.WaitGroup
	for i := range atts {
		wg.Go(func() {
			owner := [20]byte{0xd0, byte(i)}
			if i < viaMember {
				atts[i], errs[i] = m1.UploadBatchRooted(context.Background(), owner, ups[i])
			} else {
				atts[i], errs[i] = api.UploadInputsRooted(context.Background(), srv.url, "", chain, owner, ups[i])
			}
		})
	}
	wg.Wait()
	seen := map[uint64]bool{}
	for i, att := range atts {
		require.NoError(t, errs[i], "upload %d", i)
		checkRoot(t, lc, att)
		require.Equal(t, atts[0].Root.Root, att.Root.Root, "upload %d has another root", i)
		require.False(t, seen[att.Root.Index], "index %d twice", att.Root.Index)
		seen[att.Root.Index] = true
		require.Len(t, att.Root.Path, 3, "5 leaves: a tree of depth 3")
	}

	leaves := make([][32]byte, len(atts))
	for i, att := range atts {
		leaves[i] = att.Digest(chain)
	}
	t.Run("forged roots are refused", func(t *testing.T) { rootAttacks(t, lc, leaves) })
	t.Run("a waiter that gives up", func(t *testing.T) { rootWaiterGivesUp(t, lc) })
	t.Run("plain upload unchanged", func(t *testing.T) {
		att, err := m1.UploadBatch(context.Background(), [20]byte{0xd9}, rootUpload(t, m1, [20]byte{0xd9}, 9))
		require.NoError(t, err)
		require.Nil(t, att.Root)
		require.NotContains(t, rawUpload(t, srv, [20]byte{0xda}, false), `"root"`)
		require.Contains(t, rawUpload(t, srv, [20]byte{0xdb}, true), `"root"`)
	})
}

// rawUpload posts one upload of owner to the API and returns the answer.
func rawUpload(t *testing.T, a *apiRig, owner [20]byte, rooted bool) string {
	t.Helper()
	u := rootUpload(t, a.lc.Member(1), owner, 1)[0]
	body, err := json.Marshal(api.UploadRequest{Owner: Hex0x(owner[:]), Ciphertext: Hex0x(u.Ciphertext), Proof: Hex0x(u.Proof), CType: 1, Rooted: rooted})
	require.NoError(t, err)
	resp := a.do(http.MethodPost, "/v1/inputs", "", bytes.NewReader(body))
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	return string(b)
}

// rootAttacks — member 1 acts as a dishonest coordinator and sends its own
// TypeRootSign requests to the others:
//
//   - a root with a leaf no member signed (an upload never attested, or
//     another statement altogether) — every member refuses (answering which
//     leaves it knows, for a round over a subset): a root signature must
//     attest nothing the per-upload signatures did not;
//   - the honest leaves for another epoch — refused (the chain checks the
//     root under its current epoch);
//   - a count over MaxRootLeaves, or a length that does not match the
//     count — refused before the leaves are allocated.
//
// The honest request (the uploads' own digests, the committee's epoch) is
// signed.
func rootAttacks(t *testing.T, lc *local.Committee, leaves [][32]byte) {
	m1 := lc.Member(1)
	epoch := lc.Config.Epoch
	forged := append([][32]byte{{0xee, 0xee}}, leaves...)
	huge := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, epoch), MaxRootLeaves+1)
	huge = append(huge, make([]byte, 32*(MaxRootLeaves+1))...)
	short := RootSign(epoch, leaves)
	short = short[:len(short)-1]
	root, _, err := bls.InputRootTree(leaves)
	require.NoError(t, err)
	committee, _, err := lc.Config.BLSCommittee()
	require.NoError(t, err)
	d := bls.InputRootDigest(lc.Config.ChainIDBig(), epoch, root)
	for i, tc := range []struct {
		name    string
		payload []byte
		refusal string // "" : signed
	}{
		{"leaf nobody signed", RootSign(epoch, forged), "partial"},
		{"wrong epoch", RootSign(epoch+1, leaves), fmt.Sprintf("root for epoch %d, this committee's epoch is %d", epoch+1, epoch)},
		{"count over MaxRootLeaves", huge, "outside [1,1024]"},
		{"length does not match the count", short, "want"},
		{"zero leaves", RootSign(epoch, nil), "outside [1,1024]"},
		{"honest", RootSign(epoch, leaves), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			session := fmt.Sprintf("evil/%d/%x", i, RandTag())
			peers := []transport.MemberID{2, 3, 4, 5}
			require.NoError(t, m1.Mux().Broadcast(ctx, peers, transport.Message{Type: transport.TypeRootSign, Session: session, Payload: tc.payload}))
			got := m1.Mux().Collect(ctx, session, transport.TypeRootAck, peers)
			require.Empty(t, got.Missing)
			for id, msg := range got.Got {
				require.NotEmpty(t, msg.Payload)
				if tc.refusal == "partial" {
					// no signature: the bitmap of the leaves the member
					// knows (all but the forged leaf 0), for a subset round
					require.Equal(t, []byte{RootPartial, 0b111110}, msg.Payload, "member %d", id)
					continue
				}
				if tc.refusal != "" {
					require.Equal(t, byte(0), msg.Payload[0], "member %d signed", id)
					require.Contains(t, string(msg.Payload[1:]), tc.refusal)
					continue
				}
				require.Equal(t, byte(1), msg.Payload[0], "member %d refused: %s", id, msg.Payload[1:])
				require.NoError(t, bls.Verify(committee.Keys[id-1].Compressed(), d[:], msg.Payload[1:]))
			}
		})
	}
}

// rootWaiterGivesUp — three waiters share a batch; the one whose context
// ends while the batch collects returns without a root, and the other two
// still get the root of all three leaves.
func rootWaiterGivesUp(t *testing.T, lc *local.Committee) {
	m1 := lc.Member(1)
	leaves := [][32]byte{{0xf1}, {0xf2}, {0xf3}}
	for _, m := range lc.Members {
		for _, l := range leaves {
			m.MarkSigned(l) // as if each member had signed these uploads
		}
	}
	// one more upload "in progress" keeps the batch open until it is
	// abandoned (a batch closes early once none is left)
	tickets := make([]RootTicket, len(leaves)+1)
	for i := range tickets {
		tickets[i] = m1.RootsBegin()
	}
	quitter, quit := context.WithCancel(context.Background())
	res := make([]*api.InputRootAttestation, len(leaves))
	errs := make([]error, len(leaves))
	var wg sync.WaitGroup
	for i, l := range leaves {
		ctx := context.Background()
		if i == 0 {
			ctx = quitter
		}
		wg.Go(func() { res[i], errs[i] = m1.AwaitRoot(ctx, tickets[i], l) })
	}
	require.Eventually(t, func() bool {
		open, n := m1.RootsOpen()
		return open && n == len(leaves)
	}, 10*time.Second, time.Millisecond, "all three are in the batch")
	quit()
	m1.RootsAbandon() // the last upload in progress gives up: the batch closes now
	wg.Wait()
	require.ErrorIs(t, errs[0], context.Canceled)
	require.Nil(t, res[0])
	for i := 1; i < len(leaves); i++ {
		require.NoError(t, errs[i])
		require.Len(t, res[i].Path, 2, "the quitter's leaf is still in the tree")
		checkLeafRoot(t, lc, leaves[i], res[i])
	}
	require.Equal(t, res[1].Root, res[2].Root)
}

// checkLeafRoot: leaf's path leads to its root, whose aggregate verifies
// over bls.InputRootDigest with ≥ t signers.
func checkLeafRoot(t *testing.T, lc *local.Committee, leaf [32]byte, r *api.InputRootAttestation) {
	t.Helper()
	committee, _, err := lc.Config.BLSCommittee()
	require.NoError(t, err)
	got, err := bls.InputRootFromPath(leaf, r.Index, r.Path)
	require.NoError(t, err)
	require.Equal(t, r.Root, got)
	d := bls.InputRootDigest(lc.Config.ChainIDBig(), lc.Config.Epoch, r.Root)
	n, err := committee.VerifyAggregate(r.Signers, d[:], r.Signature)
	require.NoError(t, err)
	require.GreaterOrEqual(t, n, lc.Config.Threshold)
}

// TestInputRootNoQuorum: members 2 and 3 refuse every root, so a root round
// at member 1 has one signature of the two needed; rooted uploads are
// still answered, with their own attestation and no root (over the API:
// no "root" field). A member closed while a batch collects ends it and
// its waiters at once.
func TestInputRootNoQuorum(t *testing.T) {
	t.Parallel()
	lc := startRootCommittee(t, 3, 2, time.Second, func(id uint32) TestingKnobs {
		return TestingKnobs{RefuseRootSign: id != 1}
	})
	m1 := lc.Member(1)
	owner := [20]byte{0xe1}
	att, err := m1.UploadBatchRooted(context.Background(), owner, rootUpload(t, m1, owner, 3))
	require.NoError(t, err)
	require.Nil(t, att.Root)
	committee, _, err := lc.Config.BLSCommittee()
	require.NoError(t, err)
	d := att.Digest(lc.Config.ChainIDBig())
	n, err := committee.VerifyAggregate(att.Signers, d[:], att.Signature)
	require.NoError(t, err)
	require.GreaterOrEqual(t, n, lc.Config.Threshold)
	_, err = att.RootDigest(lc.Config.ChainIDBig())
	require.ErrorIs(t, err, api.ErrNoRoot)

	srv := startAPI(t, lc, apiserver.DevAPIOptions())
	require.NotContains(t, rawUpload(t, srv, [20]byte{0xe2}, true), `"root"`)
	catt, err := api.UploadInputsRooted(context.Background(), srv.url, "", lc.Config.ChainIDBig(), [20]byte{0xe3}, rootUpload(t, m1, [20]byte{0xe3}, 4))
	require.NoError(t, err)
	require.Nil(t, catt.Root)

	// Close while a batch collects: the waiter returns, Close does not hang.
	m1.MarkSigned([32]byte{0xc0})
	tk := m1.RootsBegin()
	m1.RootsBegin() // another upload still in progress: the batch waits for it
	done := make(chan error, 1)
	go func() { _, err := m1.AwaitRoot(context.Background(), tk, [32]byte{0xc0}); done <- err }()
	require.Eventually(t, func() bool {
		open, _ := m1.RootsOpen()
		return open
	}, 5*time.Second, time.Millisecond)
	start := time.Now()
	lc.Kill(1)
	require.ErrorContains(t, <-done, "member closed")
	require.Less(t, time.Since(start), time.Second, "the batch waits out its window after Close")
	_, err = m1.AwaitRoot(context.Background(), m1.RootsBegin(), [32]byte{0xc0})
	require.ErrorContains(t, err, "member closed")
}

// TestInputRootClosesWhenIdle: a batch does not wait out its window once no
// rooted upload is still in progress at its member — a lone rooted upload
// under a one-hour window is answered with a root of one leaf (a quiet
// member does not hold its uploads), and so are two sequential ones, each
// in its own root.
func TestInputRootClosesWhenIdle(t *testing.T) {
	t.Parallel()
	lc := startRootCommittee(t, 3, 2, time.Hour, nil)
	m1 := lc.Member(1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var roots [][32]byte
	for i := range 2 {
		owner := [20]byte{0xe8, byte(i)}
		att, err := m1.UploadBatchRooted(ctx, owner, rootUpload(t, m1, owner, int64(i)))
		require.NoError(t, err)
		checkRoot(t, lc, att)
		require.Empty(t, att.Root.Path, "a root of one leaf")
		roots = append(roots, att.Root.Root)
	}
	require.NotEqual(t, roots[0], roots[1])
	require.Zero(t, m1.RootsPending())
}

// TestInputRootWaitsForUploadsInProgress: a batch waits (under a one-hour
// window) for the rooted uploads in progress at its member — one attested
// late, and one that began after the batch opened (a client answered by
// an earlier root coming back), share its root.
func TestInputRootWaitsForUploadsInProgress(t *testing.T) {
	t.Parallel()
	lc := startRootCommittee(t, 3, 2, time.Hour, nil)
	m1 := lc.Member(1)
	leaves := [][32]byte{{0xa0}, {0xb0}, {0xc0}}
	for _, m := range lc.Members {
		for _, l := range leaves {
			m.MarkSigned(l) // as if each member had signed these uploads
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res := make([]*api.InputRootAttestation, len(leaves))
	errs := make([]error, len(leaves))
	var wg sync.WaitGroup
	ta, tb := m1.RootsBegin(), m1.RootsBegin()                           // a and b in progress
	wg.Go(func() { res[0], errs[0] = m1.AwaitRoot(ctx, ta, leaves[0]) }) // a is attested first: it opens the batch
	require.Eventually(t, func() bool {
		open, n := m1.RootsOpen()
		return open && n == 1
	}, 10*time.Second, time.Millisecond, "a's batch opened")
	tc := m1.RootsBegin() // c begins after the batch opened
	wg.Go(func() { res[1], errs[1] = m1.AwaitRoot(ctx, tb, leaves[1]) })
	require.Eventually(t, func() bool {
		open, n := m1.RootsOpen()
		return open && n == 2
	}, 10*time.Second, time.Millisecond, "b joined; c, still in progress, keeps the batch open")
	res[2], errs[2] = m1.AwaitRoot(ctx, tc, leaves[2])
	wg.Wait()
	for i, l := range leaves {
		require.NoError(t, errs[i])
		require.Equal(t, res[0].Root, res[i].Root, "upload %d has another root", i)
		require.Len(t, res[i].Path, 2, "a root of three leaves")
		checkLeafRoot(t, lc, l, res[i])
	}
	require.Zero(t, m1.RootsPending())
}

// TestInputRootHoldIsBounded: a batch waits for the uploads in progress no
// longer than its first upload took to be attested — an upload attested
// quickly gets its root while a slow one is still in progress, which then
// opens a batch of its own.
func TestInputRootHoldIsBounded(t *testing.T) {
	t.Parallel()
	lc := startRootCommittee(t, 3, 2, time.Hour, nil)
	m1 := lc.Member(1)
	quick, slow := [32]byte{0xa1}, [32]byte{0xa2}
	for _, m := range lc.Members {
		m.MarkSigned(quick)
		m.MarkSigned(slow)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ts := m1.RootsBegin()                                                      // slow: in progress throughout
	rq, err := m1.AwaitRoot(ctx, m1.RootsBeganAgo(50*time.Millisecond), quick) // took 50 ms: holds ≤ 50 ms
	require.NoError(t, err)
	require.Empty(t, rq.Path, "a root of its one leaf")
	checkLeafRoot(t, lc, quick, rq)
	require.Equal(t, 1, m1.RootsPending(), "the slow upload is still in progress")
	rs, err := m1.AwaitRoot(ctx, ts, slow)
	require.NoError(t, err)
	require.NotEqual(t, rq.Root, rs.Root)
	checkLeafRoot(t, lc, slow, rs)
}

// TestInputRootWaitsForLivePeers: peers marked unresponsive (they missed
// a round's deadline on a busy host) are re-admitted by their heartbeats
// before a root round asks for signatures, so the batch gets its root
// instead of failing for want of a quorum.
func TestInputRootWaitsForLivePeers(t *testing.T) {
	t.Parallel()
	lc := startRootCommittee(t, 3, 2, time.Hour, nil)
	m1 := lc.Member(1)
	leaf := [32]byte{0xd1}
	for _, m := range lc.Members {
		m.MarkSigned(leaf)
	}
	m1.MarkDown([]transport.MemberID{2, 3})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := m1.AwaitRoot(ctx, m1.RootsBegin(), leaf)
	require.NoError(t, err)
	checkLeafRoot(t, lc, leaf, r)
}

// TestSignRootWaitsForLateLeaf: a root request that reaches a member
// before the StorePut of one of its uploads (the coordinator went on with
// the other members' acknowledgements) is signed once the member has
// signed that upload, within RootLeafWait; a leaf that never comes is
// refused after it.
func TestSignRootWaitsForLateLeaf(t *testing.T) {
	t.Parallel()
	lc := startRootCommittee(t, 3, 2, time.Second, nil)
	m2 := lc.Member(2)
	early, late := [32]byte{0xa1}, [32]byte{0xa2}
	m2.MarkSigned(early)
	go func() {
		time.Sleep(RootLeafWait / 4)
		m2.MarkSigned(late)
	}()
	sig, err := m2.SignRoot(lc.Config.Epoch, [][32]byte{early, late})
	require.NoError(t, err)
	root, _, err := bls.InputRootTree([][32]byte{early, late})
	require.NoError(t, err)
	d := bls.InputRootDigest(lc.Config.ChainIDBig(), lc.Config.Epoch, root)
	require.NoError(t, bls.Verify(m2.BLSKey().PublicKey(), d[:], sig))

	_, err = m2.SignRoot(lc.Config.Epoch, [][32]byte{early, {0xa3}})
	require.ErrorContains(t, err, "leaf 1")
}

// TestInputRootSubset: when too few members attested some uploads of a
// batch (a StorePut dropped at a member's bound, a restart), the root
// round answers with the leaves each member knows and the coordinator
// signs the root of those that enough members know: the other uploads go
// without a root (their own attestation stands) instead of the whole batch.
// n = 3, t = 2: member 2 knows leaves 0 and 1, member 3 only leaf 0, so
// the root holds leaves 0 and 1 and is signed by members 1 and 2.
func TestInputRootSubset(t *testing.T) {
	t.Parallel()
	lc := startRootCommittee(t, 3, 2, time.Minute, nil)
	m1 := lc.Member(1)
	leaves := [][32]byte{{0xb0}, {0xb1}, {0xb2}}
	tickets := make([]RootTicket, len(leaves))
	for i, l := range leaves {
		m1.MarkSigned(l)
		tickets[i] = m1.RootsBegin()
	}
	lc.Member(2).MarkSigned(leaves[0])
	lc.Member(2).MarkSigned(leaves[1])
	lc.Member(3).MarkSigned(leaves[0])
	res := make([]*api.InputRootAttestation, len(leaves))
	errs := make([]error, len(leaves))
	var wg sync.WaitGroup
	for i, l := range leaves {
		wg.Go(func() { res[i], errs[i] = m1.AwaitRoot(context.Background(), tickets[i], l) })
	}
	wg.Wait()
	require.ErrorContains(t, errs[2], "too few members attested this upload")
	require.Nil(t, res[2])
	for i := range 2 {
		require.NoError(t, errs[i])
		require.Len(t, res[i].Path, 1, "a root of the two leaves enough members know")
		checkLeafRoot(t, lc, leaves[i], res[i])
	}
	require.Equal(t, res[0].Root, res[1].Root)
	require.Equal(t, []int{1, 2}, signerIDs(t, res[0].Signers))
}

func signerIDs(t *testing.T, bitmap []byte) []int {
	t.Helper()
	idx, err := bls.Signers(3, bitmap)
	require.NoError(t, err)
	for i := range idx {
		idx[i]++
	}
	return idx
}

// TestInputRootJSON: a rooted attestation survives JSON both ways; a plain
// one has no "root"; a malformed root is refused.
func TestInputRootJSON(t *testing.T) {
	t.Parallel()
	att := &api.InputAttestation{Owner: [20]byte{1}, Preset: 2, Epoch: 3, Items: []bls.InputItem{{Handle: [32]byte{4}, CType: 1, ProofDigest: [32]byte{5}}},
		Signature: bytes.Repeat([]byte{6}, bls.SignatureLen), Signers: []byte{7}}
	att.Handle = att.Items[0].Handle
	plain, err := json.Marshal(att.JSON())
	require.NoError(t, err)
	require.NotContains(t, string(plain), `"root"`)

	att.Root = &api.InputRootAttestation{Root: [32]byte{8}, Index: 5, Path: [][32]byte{{9}, {10}, {11}},
		Signature: bytes.Repeat([]byte{12}, bls.SignatureLen), Signers: []byte{0b111}}
	b, err := json.Marshal(att.JSON())
	require.NoError(t, err)
	var j api.AttestationJSON
	require.NoError(t, json.Unmarshal(b, &j))
	require.Equal(t, uint64(5), j.Root.Index)
	require.Len(t, j.Root.Path, 3)
	back, err := j.Attestation()
	require.NoError(t, err)
	require.Equal(t, att, back)

	one := &api.InputAttestation{Owner: att.Owner, Items: att.Items, Handle: att.Handle, Signature: att.Signature, Signers: att.Signers,
		Root: &api.InputRootAttestation{Root: [32]byte{1}, Path: [][32]byte{}, Signature: att.Root.Signature, Signers: []byte{1}}}
	b, err = json.Marshal(one.JSON())
	require.NoError(t, err)
	require.Contains(t, string(b), `"path":[]`, "a one-leaf root has an empty path, not null")

	sib := Hex0x(make([]byte, 32))
	for _, tc := range []struct {
		name string
		mod  func(r *api.InputRootJSON)
		want string
	}{
		{"path too long", func(r *api.InputRootJSON) {
			r.Path = make([]string, bls.MaxInputRootDepth+1)
			for i := range r.Path {
				r.Path[i] = sib
			}
		}, "path of 17 siblings"},
		{"index outside the tree", func(r *api.InputRootJSON) { r.Index = 8 }, "index 8 outside a tree of depth 3"},
		{"root not 32 bytes", func(r *api.InputRootJSON) { r.Root = "0x01" }, "root: not 32-byte hex"},
		{"sibling not hex", func(r *api.InputRootJSON) { r.Path[1] = "0xzz" }, "path sibling 1"},
		{"signature length", func(r *api.InputRootJSON) { r.Signature = "0x0102" }, "signature is not 96-byte hex"},
		{"no signers", func(r *api.InputRootJSON) { r.Signers = "0x" }, "signers is not a hex bitmap"},
		{"signers too long", func(r *api.InputRootJSON) { r.Signers = "0x010203" }, "signers is not a hex bitmap"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jj := att.JSON()
			tc.mod(jj.Root)
			_, err := jj.Attestation()
			require.ErrorContains(t, err, tc.want)
		})
	}
	require.Equal(t, "0x"+hex.EncodeToString(att.Root.Root[:]), att.JSON().Root.Root)
}
