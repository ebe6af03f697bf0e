package api

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"slices"
	"strings"

	"github.com/ava-labs/libevm/crypto"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
	"github.com/fhegate/fhegate/fhe/pkswitch"
	"github.com/fhegate/fhegate/internal/keccak"
)

// Private reads, the requester's side (docs/committee.md, "Private
// reads"): the holder of a handle signs a PrivateRead (EIP-712 over the
// handle, the digest of its own FHE public key, a nonce and a deadline),
// sends it to t members (RequestPrivateRead), combines their public-key
// switch shares (fhe/pkswitch) and decrypts with its secret key
// (ReadPrivate). The members' side is consensus.Member.PrivateRead.

// FHEInputAddress is the FHEInput precompile (precompiles.FHEInputAddress):
// the verifying contract of the private-read EIP-712 domain, whose ACL
// (isAllowed) authorises a read.
var FHEInputAddress = [20]byte{0x02, 19: 0xf0}

// ErrPrivateReadBadSignature: the request's signature does not recover its signer.
var ErrPrivateReadBadSignature = errors.New("consensus: private read: signature does not recover the signer")

// PrivateRead is a decoded, not yet verified, private-read request.
type PrivateRead struct {
	Handle    [32]byte
	PublicKey []byte // canonical fhe.PublicKey bytes of the requester's key
	Signer    [20]byte
	Nonce     uint64
	Deadline  uint64 // unix seconds
	Signature [65]byte
}

// PrivateReadRequest is the JSON body of POST /v1/private-read.
type PrivateReadRequest struct {
	Handle    string `json:"handle"`    // 0x + 64 hex
	PublicKey string `json:"publicKey"` // 0x + hex of the requester's canonical FHE public key
	Signer    string `json:"signer"`    // 0x + 40 hex
	Nonce     uint64 `json:"nonce"`
	Deadline  uint64 `json:"deadline"`  // unix seconds
	Signature string `json:"signature"` // 0x + 130 hex: r ‖ s ‖ v (v = 27/28 or 0/1)
}

// PrivateReadResponse is a member's answer: its share and the ciphertext
// it shared (the stored one at the decryption level, canonical bytes),
// with the committee shape the requester combines under.
type PrivateReadResponse struct {
	Member     uint32 `json:"member"`
	Members    int    `json:"members"`   // n
	Threshold  int    `json:"threshold"` // t
	Epoch      uint64 `json:"epoch"`
	Ciphertext string `json:"ciphertext"` // 0x + hex
	Share      string `json:"share"`      // 0x + hex, protocol.GenPrivateReadShare
}

// PrivateReadBodyLimit bounds a POST /v1/private-read body for a preset:
// the hex of a public key and a few hundred bytes of fields.
func PrivateReadBodyLimit(p *fhe.Params) int64 {
	return int64(2*publicKeySize(p)) + 1024
}

func publicKeySize(p *fhe.Params) int {
	// two polynomials over QP, 8 bytes a coefficient, plus the header
	return 2*p.N()*8*(len(p.Q())+len(p.P())) + 64
}

// DecodePrivateRead checks and decodes a request body (at most
// PrivateReadBodyLimit bytes: the caller bounds the read). Every hex field's
// length is checked before it is decoded; the public key must be a
// canonical key of preset p.
func DecodePrivateRead(p *fhe.Params, body []byte) (*PrivateRead, *fhe.PublicKey, error) {
	if int64(len(body)) > PrivateReadBodyLimit(p) {
		return nil, nil, fmt.Errorf("private read: body of %d bytes over %d", len(body), PrivateReadBodyLimit(p))
	}
	var req PrivateReadRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, nil, fmt.Errorf("private read: bad request body: %w", err)
	}
	var out PrivateRead
	if err := fixedHex("handle", req.Handle, out.Handle[:]); err != nil {
		return nil, nil, err
	}
	if err := fixedHex("signer", req.Signer, out.Signer[:]); err != nil {
		return nil, nil, err
	}
	if err := fixedHex("signature", req.Signature, out.Signature[:]); err != nil {
		return nil, nil, err
	}
	pkHex := strings.TrimPrefix(req.PublicKey, "0x")
	if want := publicKeySize(p); len(pkHex) == 0 || len(pkHex) > 2*want {
		return nil, nil, fmt.Errorf("private read: publicKey of %d hex characters, at most %d", len(pkHex), 2*want)
	}
	pkb, err := hex.DecodeString(pkHex)
	if err != nil {
		return nil, nil, errors.New("private read: publicKey is not hex")
	}
	pk, err := fhe.UnmarshalPublicKey(pkb)
	if err != nil {
		return nil, nil, fmt.Errorf("private read: publicKey: %w", err)
	}
	if pk.Params() != p {
		return nil, nil, fmt.Errorf("private read: publicKey of preset %s, the committee's is %s", pk.Params().Preset.Name, p.Preset.Name)
	}
	out.PublicKey, out.Nonce, out.Deadline = pkb, req.Nonce, req.Deadline
	return &out, pk, nil
}

// ParseHandle parses a handle: 0x (optional) and 64 hex digits.
func ParseHandle(s string) ([32]byte, error) {
	var h [32]byte
	s = strings.TrimSpace(s)
	if err := fixedHex("handle", s, h[:]); err != nil {
		return h, err
	}
	return h, nil
}

// fixedHex decodes 0x-prefixed (optional) hex of exactly len(dst) bytes.
func fixedHex(name, s string, dst []byte) error {
	s = strings.TrimPrefix(s, "0x")
	if len(s) != 2*len(dst) {
		return fmt.Errorf("private read: %s must be %d bytes of hex", name, len(dst))
	}
	if _, err := hex.Decode(dst, []byte(s)); err != nil {
		return fmt.Errorf("private read: %s is not hex", name)
	}
	return nil
}

// JSON is the request body of r.
func (r *PrivateRead) JSON() PrivateReadRequest {
	return PrivateReadRequest{Handle: hex0x(r.Handle[:]), PublicKey: hex0x(r.PublicKey), Signer: hex0x(r.Signer[:]),
		Nonce: r.Nonce, Deadline: r.Deadline, Signature: hex0x(r.Signature[:])}
}

// EIP-712 type strings of a private read.
const (
	eip712DomainType = "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
	PrivateReadType  = "PrivateRead(bytes32 handle,bytes32 publicKey,uint256 nonce,uint256 deadline)"
	// PrivateReadDomainName and PrivateReadDomainVersion are the EIP-712
	// domain's name and version (verifyingContract is FHEInputAddress).
	PrivateReadDomainName    = "fhegate"
	PrivateReadDomainVersion = "1"
)

func word(x uint64) []byte {
	var w [32]byte
	binary.BigEndian.PutUint64(w[24:], x)
	return w[:]
}

// PrivateReadDigest is the EIP-712 digest a requester signs:
// keccak256(0x1901 ‖ domainSeparator ‖ hashStruct(PrivateRead)), with
// domain {name "fhegate", version "1", chainId, verifyingContract
// FHEInput} and publicKey = keccak256 of the key's canonical bytes. Wallets
// sign it as eth_signTypedData_v4 of PrivateReadTypedData.
func PrivateReadDigest(chainID *big.Int, handle [32]byte, publicKey []byte, nonce, deadline uint64) [32]byte {
	var cid [32]byte
	if chainID != nil {
		chainID.FillBytes(cid[:])
	}
	var vc [32]byte
	copy(vc[12:], FHEInputAddress[:])
	dt := keccak.Sum([]byte(eip712DomainType))
	dn := keccak.Sum([]byte(PrivateReadDomainName))
	dv := keccak.Sum([]byte(PrivateReadDomainVersion))
	domain := keccak.Sum(dt[:], dn[:], dv[:], cid[:], vc[:])
	st := keccak.Sum([]byte(PrivateReadType))
	pkd := keccak.Sum(publicKey)
	s := keccak.Sum(st[:], handle[:], pkd[:], word(nonce), word(deadline))
	return keccak.Sum([]byte{0x19, 0x01}, domain[:], s[:])
}

// SignPrivateRead builds a signed request for handle towards pk (canonical
// bytes) with key, the signer's secp256k1 key.
func SignPrivateRead(key *ecdsa.PrivateKey, chainID *big.Int, handle [32]byte, pk []byte, nonce, deadline uint64) (*PrivateRead, error) {
	d := PrivateReadDigest(chainID, handle, pk, nonce, deadline)
	sig, err := crypto.Sign(d[:], key)
	if err != nil {
		return nil, err
	}
	r := &PrivateRead{Handle: handle, PublicKey: pk, Signer: crypto.PubkeyToAddress(key.PublicKey), Nonce: nonce, Deadline: deadline}
	copy(r.Signature[:], sig)
	r.Signature[64] += 27
	return r, nil
}

// RecoverSigner returns the address that signed the request's digest.
func (r *PrivateRead) RecoverSigner(chainID *big.Int) ([20]byte, error) {
	d := PrivateReadDigest(chainID, r.Handle, r.PublicKey, r.Nonce, r.Deadline)
	sig := r.Signature
	if sig[64] >= 27 {
		sig[64] -= 27
	}
	if sig[64] > 1 {
		return [20]byte{}, ErrPrivateReadBadSignature
	}
	pub, err := crypto.SigToPub(d[:], sig[:])
	if err != nil {
		return [20]byte{}, fmt.Errorf("%w: %v", ErrPrivateReadBadSignature, err)
	}
	return crypto.PubkeyToAddress(*pub), nil
}

// RequestPrivateRead is the client side of POST /v1/private-read on one
// member's API.
func RequestPrivateRead(ctx context.Context, api, token string, r *PrivateRead) (*PrivateReadResponse, error) {
	body, err := json.Marshal(r.JSON())
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(api, "/")+"/v1/private-read", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	// A share and a ciphertext at the decryption level, in hex: bounded by
	// the largest canonical ciphertext, three times over.
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &PrivateReadHTTPError{API: api, Status: resp.StatusCode, Msg: strings.TrimSpace(string(b))}
	}
	var out PrivateReadResponse
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("private read from %s: %w", api, err)
	}
	return &out, nil
}

// PrivateReadHTTPError is a member's refusal of a private read.
type PrivateReadHTTPError struct {
	API    string
	Status int
	Msg    string
}

func (e *PrivateReadHTTPError) Error() string {
	return fmt.Sprintf("private read at %s: %d %s: %s", e.API, e.Status, http.StatusText(e.Status), e.Msg)
}

// tooFewShares is ReadPrivate's error when fewer than t members shared:
// got shares from the given member URLs, t as the answers announced it (0:
// no member answered, so t is unknown), errs the refusals and failures.
func tooFewShares(got, t, given int, errs []error) error {
	switch {
	case t == 0 && len(errs) == 0:
		return fmt.Errorf("%w: no member API URL given", pkswitch.ErrTooFewShares)
	case t == 0:
		return fmt.Errorf("%w: none of the %d members asked shared (a member's answer names the threshold t): %w", pkswitch.ErrTooFewShares, given, errors.Join(errs...))
	case len(errs) == 0:
		return fmt.Errorf("%w: %d of the %d members asked shared, the committee's threshold is t=%d: give at least %d member API URLs", pkswitch.ErrTooFewShares, got, given, t, t)
	default:
		return fmt.Errorf("%w: %d of the %d members asked shared, the committee's threshold is t=%d; the others: %w", pkswitch.ErrTooFewShares, got, given, t, errors.Join(errs...))
	}
}

// ReadPrivate is the requester's whole private read: it asks the members
// behind apis (one URL per member, at least t of them) for their shares of
// r's handle, until t agree on the ciphertext, combines them
// (pkswitch.Combine) and decrypts with sk, the secret key of the
// public key r names. Each member records r's nonce, so r is good for one
// read per member; a refusal by one member (down, or its ACL view behind)
// is skipped as long as t others answer. When more than t members are
// listed it asks for t + 1 shares and decrypts two t-subsets: a corrupt
// share (which cannot reveal anything, but can falsify the value) then
// shows as a disagreement, reported as an error instead of a wrong value.
func ReadPrivate(ctx context.Context, apis []string, token string, r *PrivateRead, sk *fhe.SecretKey) ([]uint64, error) {
	p := sk.Params()
	var (
		ct     *fhe.Ciphertext
		ctHex  string
		n, t   int
		set    []uint32
		shares = map[uint32][]byte{}
		errs   []error
	)
	for _, api := range apis {
		if t > 0 && len(set) == min(t+1, len(apis)) {
			break
		}
		resp, err := RequestPrivateRead(ctx, api, token, r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		id := resp.Member
		if _, dup := shares[id]; dup || resp.Threshold < 1 || resp.Members < resp.Threshold || resp.Members > noise.MaxMembers {
			errs = append(errs, fmt.Errorf("%s: member %d answered twice or with a bad committee shape", api, resp.Member))
			continue
		}
		if ct == nil {
			b, err := hex.DecodeString(strings.TrimPrefix(resp.Ciphertext, "0x"))
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: ciphertext is not hex", api))
				continue
			}
			c, err := fhe.UnmarshalCiphertext(b)
			if err != nil || c.Params() != p {
				errs = append(errs, fmt.Errorf("%s: ciphertext of another preset or malformed: %v", api, err))
				continue
			}
			ct, ctHex, n, t = c, resp.Ciphertext, resp.Members, resp.Threshold
		} else if resp.Ciphertext != ctHex || resp.Members != n || resp.Threshold != t {
			errs = append(errs, fmt.Errorf("%s: member %d shared another ciphertext or committee shape", api, resp.Member))
			continue
		}
		sb, err := hex.DecodeString(strings.TrimPrefix(resp.Share, "0x"))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: share is not hex", api))
			continue
		}
		shares[id] = sb
		set = append(set, id)
	}
	if t == 0 || len(set) < t {
		return nil, tooFewShares(len(set), t, len(apis), errs)
	}
	dec := fhe.NewDecryptor(sk)
	read := func(sub []uint32) ([]uint64, error) {
		sub = slices.Clone(sub)
		slices.Sort(sub)
		out, err := pkswitch.Combine(p, n, ct, sub, shares)
		if err != nil {
			return nil, err
		}
		return dec.DecryptUints(out)
	}
	v, err := read(set[:t])
	if err != nil || len(set) == t {
		return v, err
	}
	// t+1 shares: the subset without the first member must agree.
	w, err := read(set[1:])
	if err != nil {
		return nil, err
	}
	if !slices.Equal(v, w) {
		return nil, fmt.Errorf("consensus: private read: members %v and %v decrypt to different values: a member sent a corrupt share", set[:t], set[1:])
	}
	return v, nil
}

// PrivateReadTypedData is the eth_signTypedData_v4 payload of a private
// read (what a wallet shows and signs; its hash is PrivateReadDigest).
func PrivateReadTypedData(chainID *big.Int, handle [32]byte, publicKey []byte, nonce, deadline uint64) map[string]any {
	pkd := keccak.Sum(publicKey)
	cid := new(big.Int)
	if chainID != nil {
		cid.Set(chainID)
	}
	return map[string]any{
		"types": map[string]any{
			"EIP712Domain": []map[string]string{
				{"name": "name", "type": "string"}, {"name": "version", "type": "string"},
				{"name": "chainId", "type": "uint256"}, {"name": "verifyingContract", "type": "address"},
			},
			"PrivateRead": []map[string]string{
				{"name": "handle", "type": "bytes32"}, {"name": "publicKey", "type": "bytes32"},
				{"name": "nonce", "type": "uint256"}, {"name": "deadline", "type": "uint256"},
			},
		},
		"primaryType": "PrivateRead",
		"domain": map[string]any{
			"name": PrivateReadDomainName, "version": PrivateReadDomainVersion,
			"chainId": cid.String(), "verifyingContract": hex0x(FHEInputAddress[:]),
		},
		"message": map[string]any{
			"handle": hex0x(handle[:]), "publicKey": hex0x(pkd[:]),
			"nonce": new(big.Int).SetUint64(nonce).String(), "deadline": new(big.Int).SetUint64(deadline).String(),
		},
	}
}
