package chain_test

import (
	"context"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/crypto"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/consensus/chain"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/crdt/meta"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/precompiles"
	precompileabi "github.com/fhegate/fhegate/precompiles/abi"
)

// prunedNode is a JSON-RPC stand-in for a pruning node: its head is far
// past the block of one FHECRDT.ValueRequested event, and eth_call at any
// block below the head fails with "missing trie node" (state pruned); at
// "latest" it answers FHECRDT.stateOf.
type prunedNode struct {
	head     uint64
	log      types.Log
	stateOf  []byte // ABI-encoded stateOf result
	historic atomic.Int64
}

func (p *prunedNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     json.RawMessage   `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var result any
	var rpcErr *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	switch req.Method {
	case "eth_blockNumber":
		result = hexutil.Uint64(p.head)
	case "eth_getLogs":
		var q struct{ FromBlock, ToBlock string }
		_ = json.Unmarshal(req.Params[0], &q)
		from, _ := strconv.ParseUint(strings.TrimPrefix(q.FromBlock, "0x"), 16, 64)
		to, _ := strconv.ParseUint(strings.TrimPrefix(q.ToBlock, "0x"), 16, 64)
		logs := []types.Log{}
		if from <= p.log.BlockNumber && p.log.BlockNumber <= to {
			logs = append(logs, p.log)
		}
		result = logs
	case "eth_call":
		var block string
		_ = json.Unmarshal(req.Params[1], &block)
		if n, err := strconv.ParseUint(strings.TrimPrefix(block, "0x"), 16, 64); block != "latest" && (err != nil || n < p.head) {
			p.historic.Add(1)
			rpcErr = &struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			}{-32000, "missing trie node 4b1f0e0d (path ) state 0x… is not available"}
			break
		}
		result = hexutil.Bytes(p.stateOf)
	default:
		rpcErr = &struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}{-32601, "method not found: " + req.Method}
	}
	resp := map[string]any{"jsonrpc": "2.0", "id": req.ID}
	if rpcErr != nil {
		resp["error"] = rpcErr
	} else {
		resp["result"] = result
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

// TestCRDTRequestOnPrunedNode — failure: "the chain adapter stalls forever
// on a pruning node". An adapter catching up from block 0 (a member that was
// down, or a fresh one) decodes a FHECRDT.ValueRequested event of block 5
// while the node's head is block 100000 and the state of block 5 is pruned.
// Reading FHECRDT.stateOf at the event's block failed with "missing trie
// node" on every poll, so the request (and every later one) was never
// delivered; reading at latest (the record is immutable) delivers it.
func TestCRDTRequestOnPrunedNode(t *testing.T) {
	crdtABI, err := precompileabi.Parse(precompileabi.CRDT)
	require.NoError(t, err)

	l := meta.Layout{Type: meta.TypeGCounter, Preset: uint8(fhetest.InsecureBGVN10), Level: 0, Blocks: 1, Width: 2}
	st, err := meta.New(l)
	require.NoError(t, err)
	h := meta.Handle{0xab, 0xcd}
	st, err = st.Put(meta.Entry{Block: 0, Clock: 1, Replica: 0, Handle: h})
	require.NoError(t, err)
	md := st.Encode()
	out, err := crdtABI.Methods["stateOf"].Outputs.Pack(true, uint8(l.Type), common.Address{0x01}, [32]byte(h), [32]byte{}, [32]byte{}, md)
	require.NoError(t, err)

	ev := crdtABI.Events["ValueRequested"]
	data, err := ev.Inputs.NonIndexed().Pack([32]byte(precompiles.CRDTValuePolicyID))
	require.NoError(t, err)
	reqID, stateID := common.Hash{0x11}, common.Hash{0x22}
	node := &prunedNode{head: 100000, stateOf: out, log: types.Log{
		Address: common.Address(precompiles.FHECRDTAddress), BlockNumber: 5, Index: 0, TxHash: common.Hash{0x33}, BlockHash: common.Hash{0x44},
		Topics: []common.Hash{ev.ID, reqID, stateID, common.BytesToHash(common.Address{0x01}.Bytes())}, Data: data}}
	srv := httptest.NewServer(node)
	t.Cleanup(srv.Close)

	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ad, err := chain.Dial(ctx, chain.Config{URL: srv.URL, ChainID: big.NewInt(1337), Key: key, Poll: 20 * time.Millisecond, Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	t.Cleanup(ad.Close)

	reqs, err := ad.Requests(ctx, 0)
	require.NoError(t, err)
	select {
	case r := <-reqs:
		require.Equal(t, [32]byte(reqID), r.ID)
		require.Equal(t, chainio.KindCRDT, r.Kind)
		require.Equal(t, uint64(5), r.Block)
		require.Equal(t, uint8(l.Type), r.CRDTKind)
		require.Equal(t, md, r.CRDTMeta)
		require.Equal(t, []fhe.Handle{fhe.Handle(h)}, r.Inputs)
	case <-time.After(5 * time.Second):
		t.Fatalf("request of block 5 never delivered: %d stateOf reads at pruned blocks", node.historic.Load())
	}
	require.Zero(t, node.historic.Load(), "the adapter read pruned historical state")
}
