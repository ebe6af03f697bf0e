package main

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
	"github.com/fhegate/fhegate/fhe/pkswitch"
)

// Private reads (docs/committee.md, "Private reads"): the reader's own key
// pair, the POST /v1/private-read body (api.PrivateReadRequest) and
// the combination of t members' answers (api.PrivateReadResponse)
// into the plaintext, with the same code as the Go client (fhe/pkswitch).

// ReaderKeys generates a reader's key pair for the preset (name or id as
// fhe.PresetByName takes it): canonical secret and public key bytes. The
// reader keeps both: each member shares a handle towards a few keys only.
func ReaderKeys(preset string) (sk, pk []byte, err error) {
	pr, err := fhe.PresetByName(preset)
	if err != nil {
		return nil, nil, err
	}
	p, err := fhe.NewParams(pr.ID)
	if err != nil {
		return nil, nil, err
	}
	s, k := rlwe.NewKeyGenerator(p.RLWE()).GenKeyPairNew()
	if sk, err = fhe.WrapSecretKey(p, s).MarshalBinary(); err != nil {
		return nil, nil, err
	}
	if pk, err = fhe.WrapPublicKey(p, k).MarshalBinary(); err != nil {
		return nil, nil, err
	}
	return sk, pk, nil
}

// PrivateReadRequest is api.PrivateReadRequest (checked equal in
// privread_test.go).
type PrivateReadRequest struct {
	Handle    string `json:"handle"`
	PublicKey string `json:"publicKey"`
	Signer    string `json:"signer"`
	Nonce     uint64 `json:"nonce"`
	Deadline  uint64 `json:"deadline"`
	Signature string `json:"signature"`
}

// PrivateReadResponse is api.PrivateReadResponse.
type PrivateReadResponse struct {
	Member     uint32 `json:"member"`
	Members    int    `json:"members"`
	Threshold  int    `json:"threshold"`
	Epoch      uint64 `json:"epoch"`
	Ciphertext string `json:"ciphertext"`
	Share      string `json:"share"`
}

// PrivateReadBody is the body of POST /v1/private-read.
func PrivateReadBody(handle string, pk []byte, signer string, nonce, deadline uint64, signature string) ([]byte, error) {
	if len(strings.TrimPrefix(handle, "0x")) != 64 || len(strings.TrimPrefix(signature, "0x")) != 130 {
		return nil, errors.New("private read: handle must be 32 bytes and signature 65 bytes of hex")
	}
	if _, err := ParseOwner(signer); err != nil {
		return nil, err
	}
	return json.Marshal(PrivateReadRequest{Handle: handle, PublicKey: hex0x(pk), Signer: signer, Nonce: nonce, Deadline: deadline, Signature: signature})
}

// CombinePrivateRead decrypts a private read from members' answers (the
// JSON bodies of POST /v1/private-read): the first t answers from distinct
// members that agree on the ciphertext and the committee shape are
// combined (pkswitch.Combine) and decrypted with sk (canonical bytes).
// It returns the slots centred in (−t/2, t/2].
func CombinePrivateRead(sk []byte, answers []string) ([]int64, error) {
	key, err := fhe.UnmarshalSecretKey(sk)
	if err != nil {
		return nil, fmt.Errorf("secret key: %w", err)
	}
	p := key.Params()
	var (
		ct     *fhe.Ciphertext
		ctHex  string
		n, t   int
		set    []uint32
		shares = map[uint32][]byte{}
	)
	for i, a := range answers {
		if t > 0 && len(set) == t {
			break
		}
		var r PrivateReadResponse
		if err := json.Unmarshal([]byte(a), &r); err != nil {
			return nil, fmt.Errorf("answer %d: %w", i, err)
		}
		if _, dup := shares[r.Member]; dup || r.Threshold < 1 || r.Members < r.Threshold || r.Members > noise.MaxMembers {
			return nil, fmt.Errorf("answer %d: member %d twice or a bad committee shape", i, r.Member)
		}
		if ct == nil {
			b, err := hex.DecodeString(strings.TrimPrefix(r.Ciphertext, "0x"))
			if err != nil {
				return nil, fmt.Errorf("answer %d: ciphertext is not hex", i)
			}
			if ct, err = fhe.UnmarshalCiphertext(b); err != nil || ct.Params() != p {
				return nil, fmt.Errorf("answer %d: ciphertext malformed or of another preset (%v)", i, err)
			}
			ctHex, n, t = r.Ciphertext, r.Members, r.Threshold
		} else if r.Ciphertext != ctHex || r.Members != n || r.Threshold != t {
			return nil, fmt.Errorf("answer %d: member %d shared another ciphertext or committee shape", i, r.Member)
		}
		sb, err := hex.DecodeString(strings.TrimPrefix(r.Share, "0x"))
		if err != nil {
			return nil, fmt.Errorf("answer %d: share is not hex", i)
		}
		shares[r.Member] = sb
		set = append(set, r.Member)
	}
	switch {
	case t == 0:
		return nil, fmt.Errorf("%w: no member answers to combine", pkswitch.ErrTooFewShares)
	case len(set) < t:
		return nil, fmt.Errorf("%w: %d member answers, the committee's threshold is t=%d", pkswitch.ErrTooFewShares, len(set), t)
	}
	slices.Sort(set)
	out, err := pkswitch.Combine(p, n, ct, set, shares)
	if err != nil {
		return nil, err
	}
	return fhe.NewDecryptor(key).DecryptInts(out)
}
