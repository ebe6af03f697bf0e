package api

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/api/uploadwire"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// KeyAnnouncement is what a member's GET /v1/publickey announces: the
// collective public key (canonical bytes) and the chain id and key epoch an
// input proof must be bound to (zkpok.Context without the owner).
type KeyAnnouncement struct {
	PublicKey []byte
	Proof     zkpok.Context
}

// ErrNotCommitteeAPI: the URL given as a committee member's client API
// answered without the key announcement's headers (e.g. a chain's JSON-RPC
// URL).
var ErrNotCommitteeAPI = errors.New("not a committee client API")

// FetchKeyAnnouncement is the client side of GET /v1/publickey (public, no
// token): it reads the key (at most 64 MiB) and the HeaderChainID and
// HeaderEpoch headers, which input proofs bind.
func FetchKeyAnnouncement(ctx context.Context, api string) (*KeyAnnouncement, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(api, "/")+"/v1/publickey", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	kb, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusOK && resp.Header.Get(HeaderEpoch) == "" && resp.Header.Get(HeaderChainID) == "" {
		// Not a member's client API at all (a chain's JSON-RPC URL answers
		// a GET with 200 and no body): say what to pass instead of failing
		// on the body. (A member answers errors without the headers too,
		// but never with 200.)
		return nil, fmt.Errorf("%w: %s answered GET /v1/publickey with %s, %d bytes and no %s header; pass a committee member's client API URL (fhegate devnet prints it as \"committee API\" and writes it to DATADIR/committee/api.addr), not the chain's JSON-RPC URL",
			ErrNotCommitteeAPI, api, resp.Status, len(kb), HeaderEpoch)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("committee public key (%s): %s", resp.Status, strings.TrimSpace(string(kb)))
	}
	epoch, err1 := strconv.ParseUint(resp.Header.Get(HeaderEpoch), 10, 64)
	chain, ok := new(big.Int).SetString(resp.Header.Get(HeaderChainID), 10)
	if err1 != nil || !ok {
		return nil, fmt.Errorf("committee at %s did not announce %s / %s (the proof of plaintext knowledge binds them)", api, HeaderEpoch, HeaderChainID)
	}
	return &KeyAnnouncement{PublicKey: kb, Proof: zkpok.Context{ChainID: chain, Epoch: epoch}}, nil
}

// ReplicatedInts is v in every slot of p: how clients encrypt an input.
// The committee's packed evaluation multiplies each input by a slot mask
// (one request per slot), so a value only in slot 0 would be lost; a
// replicated value is also correct for the slot-0 path.
func ReplicatedInts(p *fhe.Params, v int64) []int64 { return p.ReplicatedInts(v) }

// InputSlotVectors returns the slot vectors a client encrypts for one
// request's attribute values: one replicated vector per value (one handle
// per attribute: the policy's input count of handles), or, with vector, one
// vector holding all of them (fhe.Params.VectorInts: one handle, which
// FHEPolicy accepts for a policy of several inputs; the committee packs it
// with one mask per request instead of one per attribute, and needs a
// policy that compiles for packed batches).
func InputSlotVectors(p *fhe.Params, vector bool, values []int64) ([][]int64, error) {
	return p.InputSlotVectors(vector, values)
}

// UploadInputs is the client side of POST /v1/inputs: it uploads one
// owner's ciphertexts (with their proofs) as one set to the member API at
// api (with "Authorization: Bearer token" unless token is empty) and
// returns the quorum attestation, checked against what was sent (owner,
// handles, ctypes and proof digests in order) — the arguments of
// FHEInput.registerBatch.
func UploadInputs(ctx context.Context, api, token string, owner [20]byte, ups []InputUpload) (*InputAttestation, error) {
	return uploadInputs(ctx, api, token, owner, ups, false)
}

// UploadInputsRooted is UploadInputs asking for an input root as well
// ("rooted": true): the attestation's Root, when the committee's root round
// reached a quorum, places the upload in a root signed once for many
// uploads (FHEPolicy.evaluateRooted's root, index, path, signature,
// signers); without one (the round failed) Root is nil and the per-upload
// attestation stands. chainID is the chain the proofs were bound to
// (KeyAnnouncement.Proof.ChainID): the upload's leaf is its digest for
// that chain, and the path must lead from it to the root
// (InputAttestation.RootDigest); with a nil chainID only the path's shape
// is checked here and the chain checks the rest.
func UploadInputsRooted(ctx context.Context, api, token string, chainID *big.Int, owner [20]byte, ups []InputUpload) (*InputAttestation, error) {
	att, err := uploadInputs(ctx, api, token, owner, ups, true)
	if err != nil || att.Root == nil || chainID == nil {
		return att, err
	}
	if _, err := att.RootDigest(chainID); err != nil {
		return nil, fmt.Errorf("committee answered an input root that does not hold the upload: %w", err)
	}
	return att, nil
}

func uploadInputs(ctx context.Context, api, token string, owner [20]byte, ups []InputUpload, rooted bool) (*InputAttestation, error) {
	if len(ups) == 0 || len(ups) > MaxUploadItems {
		return nil, fmt.Errorf("upload of %d ciphertexts outside [1,%d]", len(ups), MaxUploadItems)
	}
	want := make([]bls.InputItem, len(ups))
	for i, up := range ups {
		want[i] = bls.InputItem{Handle: fhe.HandleOf(up.Ciphertext), CType: up.CType, ProofDigest: zkpok.Digest(up.Proof)}
	}
	body, err := UploadBody(owner, ups, rooted)
	if err != nil {
		return nil, err
	}
	rb, err := postUpload(ctx, strings.TrimRight(api, "/")+"/v1/inputs", token, body)
	if err != nil {
		return nil, err
	}
	var aj AttestationJSON
	if err := json.Unmarshal(rb, &aj); err != nil {
		return nil, fmt.Errorf("attestation: %w", err)
	}
	att, err := aj.Attestation()
	if err != nil {
		return nil, err
	}
	if att.Owner != owner || !slices.Equal(att.Items, want) {
		return nil, fmt.Errorf("committee attested another set (owner %x, %d items) than the one uploaded", att.Owner, len(att.Items))
	}
	return att, nil
}

// UploadBody is the binary body of POST /v1/inputs (uploadwire.ContentType)
// that UploadInputs sends: half the bytes of the JSON form (UploadRequest),
// which a member also reads.
func UploadBody(owner [20]byte, ups []InputUpload, rooted bool) ([]byte, error) {
	u := uploadwire.Upload{Owner: owner, Rooted: rooted, Items: make([]uploadwire.Item, len(ups))}
	for i, up := range ups {
		u.Items[i] = uploadwire.Item{CType: up.CType, Ciphertext: up.Ciphertext, Proof: up.Proof}
	}
	return uploadwire.Encode(u)
}

// DecodeUploadBody reads a body UploadBody made (uploadwire.Decode, each
// ciphertext at most maxCiphertext bytes and each proof at most maxProof):
// the owner, whether a root was asked for, and the uploads, which alias b.
func DecodeUploadBody(b []byte, maxCiphertext, maxProof int) (owner [20]byte, rooted bool, ups []InputUpload, err error) {
	u, err := uploadwire.Decode(b, maxCiphertext, maxProof)
	if err != nil {
		return owner, false, nil, err
	}
	ups = make([]InputUpload, len(u.Items))
	for i, it := range u.Items {
		ups[i] = InputUpload{Ciphertext: it.Ciphertext, Proof: it.Proof, CType: it.CType}
	}
	return u.Owner, u.Rooted, ups, nil
}

// Upload retries. An upload is idempotent — its handles are hashes of the
// canonical ciphertext bytes and a member stores a ciphertext once — so a
// try that got no answer (the connection closed or reset before one: a
// member's read timeout on a starved host, a restart) or a 503 (the member
// is busy) or 429 (the owner's quota, with Retry-After) is sent again, at
// most uploadTries times in all, uploadBackoff·2^k apart (Retry-After
// instead when the member gives one, at most maxRetryAfter). Any other
// answer is final.
const (
	uploadTries   = 4
	uploadBackoff = time.Second
	maxRetryAfter = 30 * time.Second
)

// postUpload posts an upload body and returns the body of its 200 answer.
func postUpload(ctx context.Context, url, token string, body []byte) ([]byte, error) {
	var last error
	for try := 0; try < uploadTries; try++ {
		if try > 0 {
			wait := uploadBackoff << (try - 1)
			var ra *retryAfterError
			if errors.As(last, &ra) && ra.wait > 0 {
				wait = min(ra.wait, maxRetryAfter)
			}
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return nil, fmt.Errorf("%w (after: %w)", ctx.Err(), last)
			}
		}
		rb, again, err := postUploadOnce(ctx, url, token, body)
		if err == nil || !again || ctx.Err() != nil {
			return rb, err
		}
		last = err
	}
	return nil, fmt.Errorf("%w (%d tries)", last, uploadTries)
}

// retryAfterError is a 503 or 429 answer, with the wait it asked for.
type retryAfterError struct {
	msg  string
	wait time.Duration
}

func (e *retryAfterError) Error() string { return e.msg }

// postUploadOnce is one try of postUpload; again reports whether a later
// try may succeed.
func postUploadOnce(ctx context.Context, url, token string, body []byte) (rb []byte, again bool, err error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, false, err
	}
	hr.Header.Set("Content-Type", uploadwire.ContentType)
	if token != "" {
		hr.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		return nil, true, err // no answer: the upload may be sent again
	}
	defer resp.Body.Close()
	if rb, err = io.ReadAll(io.LimitReader(resp.Body, 1<<20)); err != nil {
		return nil, true, err
	}
	switch resp.StatusCode {
	case http.StatusOK:
		return rb, false, nil
	case http.StatusServiceUnavailable, http.StatusTooManyRequests:
		e := &retryAfterError{msg: fmt.Sprintf("committee refused the upload (%s): %s", resp.Status, strings.TrimSpace(string(rb)))}
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			e.wait = time.Duration(s) * time.Second
		}
		return nil, true, e
	}
	return nil, false, fmt.Errorf("committee refused the upload (%s): %s", resp.Status, strings.TrimSpace(string(rb)))
}

// Attestation decodes the JSON form (lengths checked).
func (j *AttestationJSON) Attestation() (*InputAttestation, error) {
	owner, err := ParseOwner(j.Owner)
	if err != nil {
		return nil, err
	}
	n := len(j.Handles)
	if n == 0 || n > MaxUploadItems || len(j.CTypes) != n || len(j.ProofDigests) != n {
		return nil, fmt.Errorf("attestation lists %d handles, %d ctypes and %d proof digests", n, len(j.CTypes), len(j.ProofDigests))
	}
	a := &InputAttestation{Owner: owner, Preset: j.Preset, Epoch: j.Epoch, Items: make([]bls.InputItem, n)}
	for i := range a.Items {
		h, err1 := word32(j.Handles[i])
		pd, err2 := word32(j.ProofDigests[i])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("attestation item %d: handle or proof digest is not 32-byte hex", i)
		}
		if j.CTypes[i] > 0xff {
			return nil, fmt.Errorf("attestation item %d: ctype %d is not a uint8", i, j.CTypes[i])
		}
		a.Items[i] = bls.InputItem{Handle: h, CType: uint8(j.CTypes[i]), ProofDigest: pd}
	}
	a.Handle = a.Items[0].Handle
	if a.Signature, err = hex.DecodeString(strings.TrimPrefix(j.Signature, "0x")); err != nil {
		return nil, fmt.Errorf("attestation signature: %w", err)
	}
	if a.Signers, err = hex.DecodeString(strings.TrimPrefix(j.Signers, "0x")); err != nil {
		return nil, fmt.Errorf("attestation signers: %w", err)
	}
	if j.Root != nil {
		if a.Root, err = j.Root.rootAttestation(); err != nil {
			return nil, fmt.Errorf("attestation root: %w", err)
		}
	}
	return a, nil
}

// rootAttestation decodes an input root: a 32-byte root, at most
// bls.MaxInputRootDepth 32-byte siblings, an index inside the tree the
// path describes, a signature of bls.SignatureLen bytes and a signer
// bitmap of at most noise.MaxMembers bits.
func (j *InputRootJSON) rootAttestation() (*InputRootAttestation, error) {
	if len(j.Path) > bls.MaxInputRootDepth {
		return nil, fmt.Errorf("path of %d siblings, at most %d", len(j.Path), bls.MaxInputRootDepth)
	}
	if j.Index>>uint(len(j.Path)) != 0 {
		return nil, fmt.Errorf("index %d outside a tree of depth %d", j.Index, len(j.Path))
	}
	r := &InputRootAttestation{Index: j.Index, Path: make([][32]byte, len(j.Path))}
	var err error
	if r.Root, err = word32(j.Root); err != nil {
		return nil, fmt.Errorf("root: %w", err)
	}
	for i, s := range j.Path {
		if r.Path[i], err = word32(s); err != nil {
			return nil, fmt.Errorf("path sibling %d: %w", i, err)
		}
	}
	if r.Signature, err = hex.DecodeString(strings.TrimPrefix(j.Signature, "0x")); err != nil || len(r.Signature) != bls.SignatureLen {
		return nil, fmt.Errorf("signature is not %d-byte hex", bls.SignatureLen)
	}
	if r.Signers, err = hex.DecodeString(strings.TrimPrefix(j.Signers, "0x")); err != nil || len(r.Signers) == 0 || len(r.Signers) > bls.BitmapLen(noise.MaxMembers) {
		return nil, fmt.Errorf("signers is not a hex bitmap of 1…%d bytes", bls.BitmapLen(noise.MaxMembers))
	}
	return r, nil
}

func word32(s string) ([32]byte, error) {
	var w [32]byte
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil || len(b) != 32 {
		return w, fmt.Errorf("not 32-byte hex")
	}
	copy(w[:], b)
	return w, nil
}
