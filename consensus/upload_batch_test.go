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
	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/api/uploadwire"
	"github.com/fhegate/fhegate/consensus/apiserver"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// TestUploadBatch: one owner's upload of several ciphertexts (each value
// replicated in every slot, as the clients encrypt them) gets one quorum
// attestation over bls.InputBatchDigest whose root lists every (handle,
// ctype, proof digest) in upload order, and every member stores every
// ciphertext. The attacks below are refused whole, with nothing stored.
func TestUploadBatch(t *testing.T) {
	t.Parallel()
	lc := apiCommittee(t)
	m1 := lc.Member(1)
	owner, victim := [20]byte{0xa1}, [20]byte{0xb2}
	enc := func(v int64, who [20]byte) api.InputUpload {
		ct, proof, err := m1.EncryptInput(api.ReplicatedInts(m1.Params(), v), who)
		require.NoError(t, err)
		return api.InputUpload{Ciphertext: ct, Proof: proof, CType: 1}
	}
	ups := []api.InputUpload{enc(30, owner), enc(4, owner), enc(1, owner)}
	att, err := m1.UploadBatch(context.Background(), owner, ups)
	require.NoError(t, err)
	require.Len(t, att.Items, len(ups))
	for i, u := range ups {
		require.Equal(t, bls.InputItem{Handle: fhe.HandleOf(u.Ciphertext), CType: 1, ProofDigest: zkpok.Digest(u.Proof)}, att.Items[i])
	}
	require.Equal(t, owner, att.Owner)
	committee, _, err := lc.Config.BLSCommittee()
	require.NoError(t, err)
	d := bls.InputBatchDigest(lc.Config.ChainIDBig(), lc.Config.Epoch, owner, att.Preset, bls.InputBatchRoot(att.Items))
	n, err := committee.VerifyAggregate(att.Signers, d[:], att.Signature)
	require.NoError(t, err)
	require.GreaterOrEqual(t, n, lc.Config.Threshold)
	require.Eventually(t, func() bool {
		for _, m := range lc.Members {
			for _, it := range att.Items {
				if !m.Store().Has(it.Handle) {
					return false
				}
			}
		}
		return true
	}, 10*time.Second, 10*time.Millisecond, "every member stores every ciphertext of the upload")

	t.Run("attacks", func(t *testing.T) { uploadBatchAttacks(t, lc, owner, victim, enc) })
}

// uploadBatchAttacks — each refused whole: no attestation, and the honest
// ciphertexts of the set are not stored either.
//
//   - "one bad apple": an honest ciphertext with a copy of the victim's
//     ciphertext and proof beside it, claimed for the attacker (the
//     copied-input attack hidden in a set);
//   - a proof made for another owner inside the set;
//   - the same ciphertext twice (it would register once and be counted twice);
//   - a ctype FHEInput would refuse (the members would attest a set the chain
//     cannot register);
//   - more than MaxUploadItems ciphertexts or MaxUploadBytes in one upload
//     (a member's memory, CPU and fsyncs per request are bounded).
func uploadBatchAttacks(t *testing.T, lc *local.Committee, attacker, victim [20]byte, enc func(int64, [20]byte) api.InputUpload) {
	m1 := lc.Member(1)
	fresh := enc(9, attacker)
	stolen := enc(77, victim)
	other := enc(5, victim)
	tooMany := make([]api.InputUpload, api.MaxUploadItems+1)
	for i := range tooMany {
		tooMany[i] = fresh
	}
	badType := fresh
	badType.CType = 2
	for _, tc := range []struct {
		name string
		ups  []api.InputUpload
		want string
	}{
		{"copied ciphertext in the set", []api.InputUpload{fresh, stolen}, "proof of plaintext knowledge refused"},
		{"proof for another owner", []api.InputUpload{other, fresh}, "proof of plaintext knowledge refused"},
		{"ciphertext twice", []api.InputUpload{fresh, fresh}, "repeats ciphertext 0"},
		{"ctype", []api.InputUpload{badType}, "ctype 2 not accepted"},
		{"too many", tooMany, "outside [1,16]"},
		{"empty", nil, "outside [1,16]"},
		{"too many bytes", []api.InputUpload{{Ciphertext: make([]byte, api.MaxUploadBytes+1), Proof: fresh.Proof, CType: 1}}, "over the limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := m1.UploadBatch(context.Background(), attacker, tc.ups)
			require.ErrorContains(t, err, tc.want)
		})
	}
	require.False(t, m1.Store().Has(fhe.HandleOf(fresh.Ciphertext)), "nothing of a refused set is stored")
	require.False(t, m1.Store().Has(fhe.HandleOf(other.Ciphertext)))
}

// TestUploadBatchAPI: POST /v1/inputs with "inputs" uploads a set and
// answers registerBatch's arguments; the per-owner quota counts
// ciphertexts, not requests (attack: "upload flood" in one request), and a
// set larger than the burst is a 400, not a 429 that no wait would cure.
func TestUploadBatchAPI(t *testing.T) {
	t.Parallel()
	lc := apiCommittee(t)
	now := time.Unix(1_700_000_000, 0)
	o := apiserver.APIOptions{Tokens: []string{testToken}, OwnerRate: 0.5, OwnerBurst: 3}
	o.Clock = func() time.Time { return now }
	a := startAPI(t, lc, o)
	owner := "0x" + hex.EncodeToString(bytes.Repeat([]byte{0xc1}, 20))
	ob, err := api.ParseOwner(owner)
	require.NoError(t, err)
	inputs := func(vals ...int64) []api.UploadInput {
		var out []api.UploadInput
		for _, v := range vals {
			ct, proof, err := lc.Member(1).EncryptInput(api.ReplicatedInts(lc.Member(1).Params(), v), ob)
			require.NoError(t, err)
			out = append(out, api.UploadInput{Ciphertext: "0x" + hex.EncodeToString(ct), CType: 1, Proof: "0x" + hex.EncodeToString(proof)})
		}
		return out
	}
	post := func(req api.UploadRequest) (int, []byte) {
		body, _ := json.Marshal(req)
		resp := a.do(http.MethodPost, "/v1/inputs", testToken, bytes.NewReader(body))
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}

	code, b := post(api.UploadRequest{Owner: owner, Inputs: inputs(1, 2, 3, 4)})
	require.Equal(t, http.StatusBadRequest, code)
	require.Contains(t, string(b), "exceeds the per-owner burst of 3")

	two := inputs(5, 6)
	code, b = post(api.UploadRequest{Owner: owner, Inputs: two})
	require.Equal(t, http.StatusOK, code, string(b))
	var att api.AttestationJSON
	require.NoError(t, json.Unmarshal(b, &att))
	require.Len(t, att.Handles, 2)
	require.Equal(t, []uint16{1, 1}, att.CTypes)
	require.Len(t, att.ProofDigests, 2)
	for i, in := range two {
		ct, _ := hex.DecodeString(in.Ciphertext[2:])
		require.Equal(t, fhe.HandleOf(ct).String(), att.Handles[i])
	}

	code, _ = post(api.UploadRequest{Owner: owner, Inputs: inputs(7, 8)}) // one token left
	require.Equal(t, http.StatusTooManyRequests, code)

	one := inputs(9)[0]
	code, b = post(api.UploadRequest{Owner: owner, Inputs: []api.UploadInput{one}, Ciphertext: one.Ciphertext, Proof: one.Proof, CType: 1})
	require.Equal(t, http.StatusBadRequest, code)
	require.Contains(t, string(b), "not both")
	code, b = post(api.UploadRequest{Owner: owner, Ciphertext: one.Ciphertext, Proof: one.Proof, CType: 1}) // the one-input shorthand
	require.Equal(t, http.StatusOK, code, string(b))
}

// TestReplicatedInts: every slot holds the value, for each preset size.
func TestReplicatedInts(t *testing.T) {
	p := apiCommitteeParams(t)
	v := api.ReplicatedInts(p, -7)
	require.Len(t, v, p.Slots())
	for _, x := range v {
		require.Equal(t, int64(-7), x)
	}
}

func apiCommitteeParams(t *testing.T) *fhe.Params {
	pr, err := fhe.PresetByName("InsecureBGVN10")
	require.NoError(t, err)
	p, err := fhe.NewParams(pr.ID)
	require.NoError(t, err)
	return p
}

// TestUploadBinaryAPI: the binary body (uploadwire, what both clients send)
// uploads the same set as its JSON form at half the bytes, with the same
// quota; a malformed or oversized body is refused before anything is
// verified, with the reason.
func TestUploadBinaryAPI(t *testing.T) {
	t.Parallel()
	lc := apiCommittee(t)
	a := startAPI(t, lc, apiserver.APIOptions{Tokens: []string{testToken}, OwnerRate: 0.001, OwnerBurst: 4})
	owner := [20]byte{0xd4}
	var items []uploadwire.Item
	var js []api.UploadInput
	for _, v := range []int64{3, 4} {
		ct, proof, err := lc.Member(1).EncryptInput(api.ReplicatedInts(lc.Member(1).Params(), v), owner)
		require.NoError(t, err)
		items = append(items, uploadwire.Item{CType: 1, Ciphertext: ct, Proof: proof})
		js = append(js, api.UploadInput{Ciphertext: "0x" + hex.EncodeToString(ct), CType: 1, Proof: "0x" + hex.EncodeToString(proof)})
	}
	post := func(body []byte, contentType string) (int, []byte) {
		req, err := http.NewRequest(http.MethodPost, a.url+"/v1/inputs", bytes.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", contentType)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	bin, err := uploadwire.Encode(uploadwire.Upload{Owner: owner, Items: items})
	require.NoError(t, err)
	jb, err := json.Marshal(api.UploadRequest{Owner: "0x" + hex.EncodeToString(owner[:]), Inputs: js})
	require.NoError(t, err)
	t.Logf("two inputs: binary body %d bytes, JSON body %d bytes", len(bin), len(jb))
	require.Less(t, 2*len(bin), len(jb)+1024)

	code, b := post(bin, uploadwire.ContentType+"; charset=binary")
	require.Equal(t, http.StatusOK, code, string(b))
	var fromBin, fromJSON api.AttestationJSON
	require.NoError(t, json.Unmarshal(b, &fromBin))
	code, b = post(jb, "application/json")
	require.Equal(t, http.StatusOK, code, string(b))
	require.NoError(t, json.Unmarshal(b, &fromJSON))
	require.Equal(t, fromJSON.Handles, fromBin.Handles, "one upload, one set of handles, whichever form carries it")
	require.Equal(t, fromJSON.ProofDigests, fromBin.ProofDigests)
	for i, it := range items {
		require.Equal(t, fhe.HandleOf(it.Ciphertext).String(), fromBin.Handles[i])
	}

	code, b = post(bin, uploadwire.ContentType) // the burst of 4 is spent
	require.Equal(t, http.StatusTooManyRequests, code, string(b))

	for _, tc := range []struct {
		name string
		body []byte
		code int
		want string
	}{
		{"JSON sent as binary", jb, http.StatusBadRequest, "not a binary upload"},
		{"trailing bytes", append(bytes.Clone(bin), 0), http.StatusBadRequest, "after the last input"},
		{"over the binary limit", make([]byte, apiserver.UploadBinaryLimit(lc.Member(1).Params())+1), http.StatusRequestEntityTooLarge, "limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, b := post(tc.body, uploadwire.ContentType)
			require.Equal(t, tc.code, code, string(b))
			require.Contains(t, string(b), tc.want)
		})
	}
}
