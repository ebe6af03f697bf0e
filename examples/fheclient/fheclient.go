// Package fheclient is the small client library the examples share: it
// encrypts a value under an fhegate committee's public key and uploads it to
// the committee's client API for a quorum attestation, and it sends
// transactions from one key and waits for their receipts. It uses only
// public APIs (the committee's HTTP API, ethclient, the abigen bindings), so
// it is what a dApp would write.
package fheclient

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"

	"github.com/ava-labs/libevm/accounts/abi/bind"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/ethclient"

	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// Attestation is a committee's quorum attestation of one input: the
// arguments of FHEInput.register.
type Attestation struct {
	Handle    common.Hash
	Owner     common.Address
	Preset    uint8
	CType     uint8
	Signature []byte
	Signers   []byte
}

// Committee is a committee member's client API (GET /v1/publickey,
// POST /v1/inputs).
type Committee struct {
	API string

	once sync.Once
	pk   *fhe.PublicKey
	key  *zkpok.Key
	ctx  zkpok.Context // chain id and key epoch from GET /v1/publickey
	err  error
}

// PublicKey fetches (once) the committee's public key.
func (c *Committee) PublicKey(ctx context.Context) (*fhe.PublicKey, error) {
	c.once.Do(func() {
		var ann *consensus.KeyAnnouncement
		if ann, c.err = consensus.FetchKeyAnnouncement(ctx, c.API); c.err != nil {
			c.err = fmt.Errorf("fheclient: %w", c.err)
			return
		}
		if c.pk, c.err = fhe.UnmarshalPublicKey(ann.PublicKey); c.err != nil {
			c.err = fmt.Errorf("fheclient: committee public key: %w", c.err)
			return
		}
		if c.key, c.err = zkpok.NewKey(c.pk); c.err != nil {
			c.err = fmt.Errorf("fheclient: committee public key: %w", c.err)
			return
		}
		c.ctx = ann.Proof
	})
	return c.pk, c.err
}

// Upload encrypts value (slot 0) under the committee's public key with a
// proof of plaintext knowledge bound to owner, the chain and the key epoch
// (fhe/zkpok), and posts both to the committee API, which verifies the proof,
// stores and replicates the ciphertext and returns the quorum attestation;
// the attested handle and owner are checked.
func (c *Committee) Upload(ctx context.Context, value int64, owner common.Address) (*Attestation, error) {
	if _, err := c.PublicKey(ctx); err != nil {
		return nil, err
	}
	pctx := c.ctx
	pctx.Owner = owner
	ct, proof, err := c.key.EncryptInts([]int64{value}, pctx)
	if err != nil {
		return nil, err
	}
	ctBytes, err := ct.MarshalBinary()
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(consensus.UploadRequest{Ciphertext: hexutil.Encode(ctBytes), Owner: owner.Hex(), CType: 1, Proof: hexutil.Encode(proof)})
	if err != nil {
		return nil, err
	}
	rb, err := HTTP(ctx, http.MethodPost, strings.TrimRight(c.API, "/")+"/v1/inputs", body)
	if err != nil {
		return nil, fmt.Errorf("fheclient: upload: %w", err)
	}
	var aj consensus.AttestationJSON
	if err := json.Unmarshal(rb, &aj); err != nil {
		return nil, fmt.Errorf("fheclient: attestation: %w", err)
	}
	a := &Attestation{Handle: common.HexToHash(aj.Handle), Owner: common.HexToAddress(aj.Owner), Preset: aj.Preset, CType: aj.CType}
	if a.Signature, err = hexutil.Decode(aj.Signature); err != nil {
		return nil, fmt.Errorf("fheclient: attestation signature: %w", err)
	}
	if a.Signers, err = hexutil.Decode(aj.Signers); err != nil {
		return nil, fmt.Errorf("fheclient: attestation signers: %w", err)
	}
	if want := common.Hash(fhe.HandleOf(ctBytes)); a.Handle != want || a.Owner != owner {
		return nil, fmt.Errorf("fheclient: committee attested %s for %s, expected %s for %s", a.Handle, a.Owner, want, owner)
	}
	return a, nil
}

// HTTP does one request and returns the body of a 200 answer (at most 8 MiB);
// any other status is an error carrying the body.
func HTTP(ctx context.Context, method, url string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: %s: %s", method, url, resp.Status, strings.TrimSpace(string(b)))
	}
	return b, nil
}

// Sender sends transactions from one key and waits for their receipts.
type Sender struct {
	Client  *ethclient.Client
	Key     *ecdsa.PrivateKey
	ChainID *big.Int

	Count int            // transactions mined
	Last  *types.Receipt // the last receipt
}

// Send builds a transaction with fresh options and waits until it is mined.
// A revert is an error: gas estimation runs the call first and reports the
// reason; a mined failure is reported by status.
func (s *Sender) Send(ctx context.Context, build func(*bind.TransactOpts) (*types.Transaction, error)) error {
	o, err := bind.NewKeyedTransactorWithChainID(s.Key, s.ChainID)
	if err != nil {
		return err
	}
	o.Context = ctx
	tx, err := build(o)
	if err != nil {
		return err
	}
	r, err := bind.WaitMined(ctx, s.Client, tx)
	if err != nil {
		return err
	}
	s.Count++
	s.Last = r
	if r.Status != types.ReceiptStatusSuccessful {
		return fmt.Errorf("transaction %s reverted", tx.Hash())
	}
	return nil
}
