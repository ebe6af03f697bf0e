package consensus_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/bls"
	. "github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/apiserver"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// TestInputProofs — the copied-input attack, "anyone decrypts anyone's data":
// copy (or re-randomise) a victim's ciphertext, upload it with yourself as
// owner and evaluate the identity policy, and the victim's plaintext appears
// in a public verdict. Every member now verifies a proof of plaintext
// knowledge bound to (chain, epoch, owner, public key, ciphertext) before it
// stores or attests an upload, on the client API and on StorePut.
func TestInputProofs(t *testing.T) {
	t.Parallel()
	lc := apiCommittee(t)
	s := &inputProofScenario{t: t, lc: lc, m1: lc.Member(1), m2: lc.Member(2), ctx: context.Background(),
		victim: [20]byte{0xa1}, attacker: [20]byte{0xbb}}
	s.honestUpload()
	s.copiedCiphertexts()
	s.rerandomised()
	s.missingProof()
	s.storePutVerifies()
	s.clientAPI()
}

// inputProofScenario is TestInputProofs's state, its steps run in order:
// the victim's upload (vct, vproof) and the attacker's own (act, aproof).
type inputProofScenario struct {
	t                *testing.T
	lc               *local.Committee
	m1, m2           *Member
	ctx              context.Context
	victim, attacker [20]byte
	vct, vproof      []byte
	act, aproof      []byte
}

// honestUpload: accepted, attested over bls.InputBatchDigest with the
// verified proof's digest in the root (what FHEInput.registerBatch checks).
func (s *inputProofScenario) honestUpload() {
	t, lc := s.t, s.lc
	var err error
	s.vct, s.vproof, err = s.m1.EncryptInput([]int64{4242}, s.victim)
	require.NoError(t, err)
	att, err := s.m1.Upload(s.ctx, s.vct, s.vproof, s.victim, 1)
	require.NoError(t, err)
	committee, _, err := lc.Config.BLSCommittee()
	require.NoError(t, err)
	require.Equal(t, []bls.InputItem{{Handle: att.Handle, CType: 1, ProofDigest: zkpok.Digest(s.vproof)}}, att.Items)
	d := bls.InputBatchDigest(lc.Config.ChainIDBig(), att.Epoch, s.victim, att.Preset, bls.InputBatchRoot(att.Items))
	require.Equal(t, d, att.Digest(lc.Config.ChainIDBig()))
	n, err := committee.VerifyAggregate(att.Signers, d[:], att.Signature)
	require.NoError(t, err)
	require.GreaterOrEqual(t, n, lc.Config.Threshold)
}

// copiedCiphertexts: the victim's ciphertext or proof reused under the
// attacker's name.
func (s *inputProofScenario) copiedCiphertexts() {
	t, m1 := s.t, s.m1
	// Attack: copy the victim's ciphertext bytes and upload them with
	// yourself as owner, replaying the victim's proof: refused.
	_, err := m1.Upload(s.ctx, s.vct, s.vproof, s.attacker, 1)
	require.ErrorIs(t, err, ErrBadProof)

	// Attack: copy with a proof of the attacker's own (for another
	// ciphertext): refused, the handle is in the transcript.
	s.act, s.aproof, err = m1.EncryptInput([]int64{1}, s.attacker)
	require.NoError(t, err)
	_, err = m1.Upload(s.ctx, s.vct, s.aproof, s.attacker, 1)
	require.ErrorIs(t, err, ErrBadProof)

	// Attack: replay the victim's proof with another owner on the
	// attacker's own ciphertext: refused.
	_, err = m1.Upload(s.ctx, s.act, s.vproof, s.attacker, 1)
	require.ErrorIs(t, err, ErrBadProof)
}

// rerandomised — victim ct + a fresh encryption of 0 whose proof the
// attacker can make. The sum has a new handle and the attacker does not
// know its full randomness: no proof verifies.
func (s *inputProofScenario) rerandomised() {
	t, m1 := s.t, s.m1
	zct, zproof, err := m1.EncryptInput(nil, s.attacker)
	require.NoError(t, err)
	ev, err := fhe.NewEvaluator(m1.Params(), fhe.EvaluationKeys{})
	require.NoError(t, err)
	a, err := fhe.UnmarshalCiphertext(s.vct)
	require.NoError(t, err)
	z, err := fhe.UnmarshalCiphertext(zct)
	require.NoError(t, err)
	sum, err := ev.Add(a, z)
	require.NoError(t, err)
	rr, err := sum.MarshalBinary()
	require.NoError(t, err)
	for _, pr := range [][]byte{zproof, s.vproof, s.aproof} {
		_, err = m1.Upload(s.ctx, rr, pr, s.attacker, 1)
		require.ErrorIs(t, err, ErrBadProof)
	}
	require.False(t, m1.Store().Has(fhe.HandleOf(rr)), "a refused upload is not stored")
}

// missingProof: refused.
func (s *inputProofScenario) missingProof() {
	_, err := s.m1.Upload(s.ctx, s.act, nil, s.attacker, 1)
	require.ErrorIs(s.t, err, ErrBadProof)
}

// storePutVerifies: a member that skips the check (or a peer) cannot get
// others to store and sign: StorePut verifies the proof too.
func (s *inputProofScenario) storePutVerifies() {
	t, m1, attacker := s.t, s.m1, s.attacker
	fresh, _, err := m1.EncryptInput([]int64{7}, s.victim) // never uploaded
	require.NoError(t, err)
	for _, payload := range [][]byte{
		StorePut(attacker, []api.InputUpload{{Ciphertext: fresh, Proof: s.vproof, CType: 1}}),
		StorePut(attacker, []api.InputUpload{{Ciphertext: fresh, CType: 1}}),
		append(append(attacker[:], 1), fresh...), // the first framing
		StorePut(attacker, []api.InputUpload{{Proof: make([]byte, zkpok.MaxProofSize+1), CType: 1}}),
		// the attacker's own valid upload with the victim's copied ciphertext beside it
		StorePut(attacker, []api.InputUpload{{Ciphertext: s.act, Proof: s.aproof, CType: 1}, {Ciphertext: fresh, Proof: s.vproof, CType: 1}}),
	} {
		session := "put/attack/" + hex.EncodeToString(payload[len(payload)-8:])
		rctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
		require.NoError(t, m1.Mux().Send(rctx, 2, transport.Message{Type: transport.TypeStorePut, Session: session, Payload: payload}))
		got := m1.Mux().CollectQuorum(rctx, session, transport.TypeStoreAck, []transport.MemberID{2}, 1, 0)
		cancel()
		m1.Mux().Forget(session)
		require.Len(t, got.Got, 1)
		reply := got.Got[2].Payload
		require.Equal(t, byte(0), reply[0], "refused: %s", reply[1:])
	}
	require.False(t, s.m2.Store().Has(fhe.HandleOf(fresh)))
}

// clientAPI: through the client API, 400 with a clear error for a missing
// or a bad proof, 200 for an honest upload.
func (s *inputProofScenario) clientAPI() {
	t := s.t
	srv := startAPI(t, s.lc, apiserver.APIOptions{Tokens: []string{testToken}})
	post := func(ct, proof []byte, owner [20]byte) (int, string) {
		req := api.UploadRequest{Ciphertext: hex.EncodeToString(ct), Owner: "0x" + hex.EncodeToString(owner[:]), CType: 1}
		if proof != nil {
			req.Proof = "0x" + hex.EncodeToString(proof)
		}
		body, _ := json.Marshal(req)
		resp := srv.do(http.MethodPost, "/v1/inputs", testToken, bytes.NewReader(body))
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, msg := post(s.vct, nil, s.attacker)
	require.Equal(t, http.StatusBadRequest, code)
	require.Contains(t, msg, "missing proof")
	code, msg = post(s.vct, s.vproof, s.attacker)
	require.Equal(t, http.StatusBadRequest, code)
	require.Contains(t, msg, "proof")
	code, msg = post(s.act, s.aproof, s.attacker)
	require.Equal(t, http.StatusOK, code, msg)
}
