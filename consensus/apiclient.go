package consensus

import (
	"context"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"strings"

	"github.com/fhegate/fhegate/fhe/zkpok"
)

// KeyAnnouncement is what a member's GET /v1/publickey announces: the
// collective public key (canonical bytes) and the chain id and key epoch an
// input proof must be bound to (zkpok.Context without the owner).
type KeyAnnouncement struct {
	PublicKey []byte
	Proof     zkpok.Context
}

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
