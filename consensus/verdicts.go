package consensus

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/consensus/transport"
)

func verdictKey(id [32]byte) string { return fmt.Sprintf("verdict/%x", id[:]) }

// storedVerdict is a verdict as persisted. A verdict of a packed batch
// names its batch (Batch: the store key of the batch, saved once by
// saveBatch), whose aggregate signature covers every verdict of the batch.
type storedVerdict struct {
	RequestID, PolicyID, ResultDigest string
	Result                            string
	Epoch                             uint64
	Signature, Signers                []byte
	Batch                             string `json:",omitempty"`
}

// verdictStore persists the verdicts a member aggregated (and the batches
// they were signed in) in its store's meta bucket.
type verdictStore struct{ st *store.Store }

// save persists a verdict decided alone, or one of a batch saved before.
func (vs verdictStore) save(v *chainio.Verdict) error {
	bk := ""
	if v.Batch != nil {
		bk = batchKey(v.Batch.Root())
	}
	return vs.st.PutMeta(verdictKey(v.RequestID), encodeVerdict(v, bk))
}

// encodeVerdict is the stored form of v; bk is the store key of its batch
// ("" for a verdict decided alone), computed once per batch by the caller
// (the batch root hashes every item).
func encodeVerdict(v *chainio.Verdict, bk string) []byte {
	sv := storedVerdict{RequestID: fmt.Sprintf("%x", v.RequestID), PolicyID: fmt.Sprintf("%x", v.PolicyID),
		ResultDigest: fmt.Sprintf("%x", v.ResultDigest), Result: v.Result.String(), Epoch: v.Epoch, Signature: v.Signature, Signers: v.Signers}
	sv.Batch = bk
	b, _ := json.Marshal(sv)
	return b
}

func batchKey(root [32]byte) string { return fmt.Sprintf("vbatch/%x", root[:]) }

// saveBatch persists a verdict batch and the verdict of each of its
// requests (pointing at the batch), in one store transaction.
func (vst verdictStore) saveBatch(b *chainio.VerdictBatch, vs []*chainio.Verdict) error {
	raw, err := json.Marshal(b)
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(vs)+1)
	vals := make([][]byte, 0, len(vs)+1)
	bk := batchKey(b.Root())
	keys, vals = append(keys, bk), append(vals, raw)
	for _, v := range vs {
		keys, vals = append(keys, verdictKey(v.RequestID)), append(vals, encodeVerdict(v, bk))
	}
	return vst.st.PutMetaBatch(keys, vals)
}

// loadBatch reads from st a verdict batch saved by saveBatch.
func loadBatch(st *store.Store, key string) (*chainio.VerdictBatch, bool) {
	raw, err := st.GetMeta(key)
	if err != nil {
		return nil, false
	}
	var b chainio.VerdictBatch
	if json.Unmarshal(raw, &b) != nil || batchKey(b.Root()) != key {
		return nil, false
	}
	return &b, true
}

// StoredVerdict returns the verdict this member aggregated for a request.
func (m *Member) StoredVerdict(id [32]byte) (*chainio.Verdict, bool) { return m.verdicts.stored(id) }

// stored reads the verdict saved for a request.
func (vs verdictStore) stored(id [32]byte) (*chainio.Verdict, bool) {
	b, err := vs.st.GetMeta(verdictKey(id))
	if err != nil {
		return nil, false
	}
	var s storedVerdict
	if json.Unmarshal(b, &s) != nil {
		return nil, false
	}
	v := &chainio.Verdict{Epoch: s.Epoch, Signature: s.Signature, Signers: s.Signers}
	var ok [4]bool
	v.Result, ok[0] = new(big.Int).SetString(s.Result, 10)
	v.RequestID, ok[1] = unhex32(s.RequestID)
	v.PolicyID, ok[2] = unhex32(s.PolicyID)
	v.ResultDigest, ok[3] = unhex32(s.ResultDigest)
	if ok != [4]bool{true, true, true, true} || v.RequestID != id {
		return nil, false // not a verdict this member wrote for id
	}
	if s.Batch != "" {
		if v.Batch, ok[0] = loadBatch(vs.st, s.Batch); !ok[0] {
			return nil, false
		}
	}
	return v, true
}

// unhex32 decodes the 64-hex-digit form saveVerdict writes.
func unhex32(s string) (out [32]byte, ok bool) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(out) {
		return out, false
	}
	copy(out[:], b)
	return out, true
}

// signVerdict exchanges BLS signatures over v's digest with signers and
// sets v's aggregate signature and signer bitmap; it returns the number of
// valid signatures aggregated.
func (p *peerRounds) signVerdict(ctx context.Context, base string, v *chainio.Verdict, signers []transport.MemberID, log *zap.Logger) (int, error) {
	var n int
	var err error
	v.Signature, v.Signers, n, err = p.signDigest(ctx, base, v.Digest(p.chain()), signers, log)
	return n, err
}

// signDigest signs d, exchanges signatures with signers (session base/sig),
// checks theirs and aggregates ≥ threshold valid ones: the aggregate
// signature, its signer bitmap and the number of signatures.
func (p *peerRounds) signDigest(ctx context.Context, base string, d [32]byte, signers []transport.MemberID, log *zap.Logger) ([]byte, []byte, int, error) {
	sigs := map[transport.MemberID][]byte{p.self: p.key.Sign(d[:])}
	sctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	_ = p.mux.BroadcastAllowing(sctx, signers, p.ids, transport.Message{Type: transport.TypeVerdictSig, Session: base + "/sig", Payload: sigs[p.self]})
	gs := p.mux.CollectQuorum(sctx, base+"/sig", transport.TypeVerdictSig, signers, p.quorum(len(signers)-1), p.grace)
	p.mux.Forget(base + "/sig")
	for id, msg := range gs.Got {
		if bls.Verify(p.committee.Keys[id-1].Compressed(), d[:], msg.Payload) == nil {
			sigs[id] = msg.Payload
		} else {
			log.Warn("excluded: bad verdict signature", zap.Uint32("peer", uint32(id)))
		}
	}
	sig, bitmap, err := p.aggregate(sigs)
	if err != nil {
		return nil, nil, 0, err
	}
	return sig, bitmap, len(sigs), nil
}
