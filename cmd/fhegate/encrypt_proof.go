package main

import (
	"bytes"
	"context"
	"fmt"
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
	ann, err := consensus.FetchKeyAnnouncement(rctx, api)
	if err != nil {
		return nil, nil, err
	}
	mine, err := pk.MarshalBinary()
	if err != nil {
		return nil, nil, err
	}
	if !bytes.Equal(ann.PublicKey, mine) {
		return nil, nil, fmt.Errorf("--key is not the public key of the committee at %s (its key epoch changed?)", api)
	}
	key, err := zkpok.NewKey(pk)
	if err != nil {
		return nil, nil, err
	}
	ct, proof, err := key.EncryptInts(vals, zkpok.Context{ChainID: ann.Proof.ChainID, Epoch: ann.Proof.Epoch, Owner: owner})
	if err != nil {
		return nil, nil, err
	}
	b, err := ct.MarshalBinary()
	if err != nil {
		return nil, nil, err
	}
	return b, proof, nil
}
