package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// encryptWithProof encrypts vals under pk with a proof of plaintext
// knowledge (fhe/zkpok) for owner, bound to the chain id and key epoch the
// committee at api announces with its public key (GET /v1/publickey); pk
// must be that committee key. It returns the canonical ciphertext and the
// proof (what POST /v1/inputs requires).
func encryptWithProof(ctx context.Context, api string, pk *fhe.PublicKey, owner [20]byte, vals []int64) ([]byte, []byte, error) {
	rctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, strings.TrimRight(api, "/")+"/v1/publickey", nil)
	if err != nil {
		return nil, nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	kb, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("committee public key (%s): %s", resp.Status, strings.TrimSpace(string(kb)))
	}
	mine, err := pk.MarshalBinary()
	if err != nil {
		return nil, nil, err
	}
	if !bytes.Equal(kb, mine) {
		return nil, nil, fmt.Errorf("--key is not the public key of the committee at %s (its key epoch changed?)", api)
	}
	epoch, err1 := strconv.ParseUint(resp.Header.Get(consensus.HeaderEpoch), 10, 64)
	chain, ok := new(big.Int).SetString(resp.Header.Get(consensus.HeaderChainID), 10)
	if err1 != nil || !ok {
		return nil, nil, fmt.Errorf("committee at %s did not announce %s / %s (needed for the input proof)", api, consensus.HeaderEpoch, consensus.HeaderChainID)
	}
	key, err := zkpok.NewKey(pk)
	if err != nil {
		return nil, nil, err
	}
	ct, proof, err := key.EncryptInts(vals, zkpok.Context{ChainID: chain, Epoch: epoch, Owner: owner})
	if err != nil {
		return nil, nil, err
	}
	b, err := ct.MarshalBinary()
	if err != nil {
		return nil, nil, err
	}
	return b, proof, nil
}
