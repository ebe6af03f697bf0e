package chain_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common/hexutil"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/crypto"
	"github.com/ava-labs/libevm/ethclient"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/consensus/chain"
	"github.com/fhegate/fhegate/consensus/chainio"
)

// lossyRPC forwards JSON-RPC to a chain, except that it loses the next
// eth_sendRawTransaction calls it is told to: "drop" answers the hash as if
// sent and never forwards it (a pool that evicted it, a node restarted
// before mining it); "replace" sends instead a transfer from the same key
// under the same nonce with twice the fees (another process using the
// relayer's key), which the chain mines; "front-run" sends that transfer
// first and then the relayer's own (which the chain refuses: nonce too low,
// or an underpriced replacement).
type lossyRPC struct {
	t      *testing.T
	target string
	chain  *ethclient.Client
	key    *ecdsa.PrivateKey

	mu   sync.Mutex
	lose []string
	lost []string
}

func (p *lossyRPC) loseNext(modes ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lose = append(p.lose, modes...)
}

func (p *lossyRPC) losses() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.lost...)
}

func (p *lossyRPC) next() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.lose) == 0 {
		return ""
	}
	mode := p.lose[0]
	p.lose = p.lose[1:]
	p.lost = append(p.lost, mode)
	return mode
}

func (p *lossyRPC) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req struct {
		ID     json.RawMessage   `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	if json.Unmarshal(body, &req) == nil && req.Method == "eth_sendRawTransaction" && len(req.Params) == 1 {
		if mode := p.next(); mode != "" {
			var raw hexutil.Bytes
			tx := new(types.Transaction)
			if err := json.Unmarshal(req.Params[0], &raw); err != nil || tx.UnmarshalBinary(raw) != nil {
				http.Error(w, "bad transaction", http.StatusBadRequest)
				return
			}
			if mode != "drop" {
				p.replace(r.Context(), tx)
			}
			if mode != "front-run" {
				w.Header().Set("Content-Type", "application/json")
				_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": tx.Hash()})
				return
			}
		}
	}
	resp, err := http.Post(p.target, "application/json", bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// replace sends a 0-value self-transfer under tx's nonce with twice its
// fees.
func (p *lossyRPC) replace(ctx context.Context, tx *types.Transaction) {
	from := crypto.PubkeyToAddress(p.key.PublicKey)
	rep := types.MustSignNewTx(p.key, types.LatestSignerForChainID(tx.ChainId()), &types.DynamicFeeTx{
		ChainID: tx.ChainId(), Nonce: tx.Nonce(), To: &from, Gas: 21000,
		GasTipCap: new(big.Int).Mul(tx.GasTipCap(), big.NewInt(2)), GasFeeCap: new(big.Int).Mul(tx.GasFeeCap(), big.NewInt(2)),
	})
	require.NoError(p.t, p.chain.SendTransaction(ctx, rep))
}

// TestRelayerRecoversLostTransaction: the adapter's verdict transaction is
// dropped before it reaches the pool, or replaced by another transaction
// from the relayer's key under its nonce; the adapter notices (neither
// mined nor pending), sends the verdict again under a fresh nonce, and the
// verdicts after it land too. Before, it waited for the lost
// transaction's receipt until its context ended, holding every later
// verdict behind it.
func TestRelayerRecoversLostTransaction(t *testing.T) {
	for _, tc := range []struct {
		name string
		lose []string
	}{
		{name: "dropped", lose: []string{"drop"}},
		{name: "replaced", lose: []string{"replace"}},
		{name: "nonce taken before it was sent", lose: []string{"front-run"}},
		{name: "dropped, then its resend replaced", lose: []string{"drop", "replace"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			r := newBatchRig(ctx, t)
			relayer, err := crypto.HexToECDSA(chain.DevRelayerKey)
			require.NoError(t, err)
			proxy := &lossyRPC{t: t, target: r.ch.URL(), chain: r.c, key: relayer}
			srv := httptest.NewServer(proxy)
			defer srv.Close()
			ad, err := chain.Dial(ctx, chain.Config{URL: srv.URL, Key: relayer, Poll: 20 * time.Millisecond, Log: zaptest.NewLogger(t)})
			require.NoError(t, err)
			defer ad.Close()

			policyID, ids := r.requests(3)
			for i, id := range ids {
				v := &chainio.Verdict{RequestID: id, PolicyID: policyID, Result: big.NewInt(int64(i % 2)),
					ResultDigest: [32]byte(crypto.Keccak256Hash([]byte("relayer result"), id[:])), Epoch: 1}
				v.Signature, v.Signers, err = r.com.Sign(v.Digest(r.ch.ChainID()))
				require.NoError(t, err)
				if i == 0 {
					proxy.loseNext(tc.lose...)
				}
				// a deadline for a hung relayer, not a speed assertion
				subCtx, subCancel := context.WithTimeout(ctx, 30*time.Second)
				require.NoError(t, ad.SubmitVerdict(subCtx, v), "verdict %d", i)
				subCancel()
				posted, err := ad.VerdictPosted(ctx, id)
				require.NoError(t, err)
				require.True(t, posted, "verdict %d", i)
			}
			require.Equal(t, tc.lose, proxy.losses())

			// the relayer's nonce is where its landed transactions put it:
			// 3 verdicts, plus the replacements that used a nonce
			replaced := 0
			for _, m := range tc.lose {
				if m != "drop" {
					replaced++
				}
			}
			nonce, err := r.c.NonceAt(ctx, crypto.PubkeyToAddress(relayer.PublicKey), nil)
			require.NoError(t, err)
			require.Equal(t, uint64(len(ids)+replaced), nonce)
			pending, err := r.c.PendingNonceAt(ctx, crypto.PubkeyToAddress(relayer.PublicKey))
			require.NoError(t, err)
			require.Equal(t, nonce, pending, "nothing left pending")
		})
	}
}
