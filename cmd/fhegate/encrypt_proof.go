package main

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// proofKey prepares input proofs for the committee at apiURL: it checks that
// pk is the public key the member announces (GET /v1/publickey) and returns
// the proof key at level (< 0: the upload level, zkpok.UploadLevel) and the
// context (chain id, key epoch) proofs for owner must be bound to.
func proofKey(ctx context.Context, apiURL string, pk *fhe.PublicKey, owner [20]byte, level int) (*zkpok.Key, zkpok.Context, error) {
	rctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	ann, err := api.FetchKeyAnnouncement(rctx, apiURL)
	if err != nil {
		return nil, zkpok.Context{}, err
	}
	mine, err := pk.MarshalBinary()
	if err != nil {
		return nil, zkpok.Context{}, err
	}
	if !bytes.Equal(ann.PublicKey, mine) {
		return nil, zkpok.Context{}, fmt.Errorf("--key is not the public key of the committee at %s (its key epoch changed?)", apiURL)
	}
	var key *zkpok.Key
	if level < 0 {
		key, err = zkpok.NewUploadKey(pk)
	} else {
		key, err = zkpok.NewKeyAt(pk, level)
	}
	if err != nil {
		return nil, zkpok.Context{}, err
	}
	return key, zkpok.Context{ChainID: ann.Proof.ChainID, Epoch: ann.Proof.Epoch, Owner: owner}, nil
}

// encryptInputs encrypts each of vals replicated in every slot (with vector,
// all of vals in one vector input: api.InputSlotVectors) under the
// committee key pk, each with a proof of plaintext knowledge for owner bound
// to the chain id and key epoch the committee at apiURL announces: the uploads
// of one POST /v1/inputs, at level (< 0: the upload level). It also returns
// that context (the chain id an input root's leaf is computed for).
func encryptInputs(ctx context.Context, apiURL string, pk *fhe.PublicKey, owner [20]byte, ctype uint8, vector bool, level int, vals []int64) ([]api.InputUpload, zkpok.Context, error) {
	key, pctx, err := proofKey(ctx, apiURL, pk, owner, level)
	if err != nil {
		return nil, pctx, err
	}
	vecs, err := api.InputSlotVectors(pk.Params(), vector, vals)
	if err != nil {
		return nil, pctx, err
	}
	ups := make([]api.InputUpload, len(vecs))
	for i, v := range vecs {
		ct, proof, err := key.EncryptInts(v, pctx)
		if err != nil {
			return nil, pctx, err
		}
		b, err := ct.MarshalBinary()
		if err != nil {
			return nil, pctx, err
		}
		ups[i] = api.InputUpload{Ciphertext: b, Proof: proof, CType: ctype}
	}
	return ups, pctx, nil
}
