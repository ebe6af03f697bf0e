package consensus

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/transport"
)

func verdictKey(id [32]byte) string { return fmt.Sprintf("verdict/%x", id[:]) }

type storedVerdict struct {
	RequestID, PolicyID, ResultDigest string
	Result                            string
	Epoch                             uint64
	Signature, Signers                []byte
}

func (m *Member) saveVerdict(v *Verdict) error {
	b, _ := json.Marshal(storedVerdict{RequestID: fmt.Sprintf("%x", v.RequestID), PolicyID: fmt.Sprintf("%x", v.PolicyID),
		ResultDigest: fmt.Sprintf("%x", v.ResultDigest), Result: v.Result.String(), Epoch: v.Epoch, Signature: v.Signature, Signers: v.Signers})
	return m.st.PutMeta(verdictKey(v.RequestID), b)
}

// StoredVerdict returns the verdict this member aggregated for a request.
func (m *Member) StoredVerdict(id [32]byte) (*Verdict, bool) {
	b, err := m.st.GetMeta(verdictKey(id))
	if err != nil {
		return nil, false
	}
	var s storedVerdict
	if json.Unmarshal(b, &s) != nil {
		return nil, false
	}
	v := &Verdict{Epoch: s.Epoch, Signature: s.Signature, Signers: s.Signers}
	var ok [4]bool
	v.Result, ok[0] = new(big.Int).SetString(s.Result, 10)
	v.RequestID, ok[1] = unhex32(s.RequestID)
	v.PolicyID, ok[2] = unhex32(s.PolicyID)
	v.ResultDigest, ok[3] = unhex32(s.ResultDigest)
	if ok != [4]bool{true, true, true, true} || v.RequestID != id {
		return nil, false // not a verdict this member wrote for id
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
func (m *Member) signVerdict(ctx context.Context, base string, v *Verdict, signers []transport.MemberID, log *zap.Logger) (int, error) {
	var err error
	vd := v.Digest(m.chain())
	sigs := map[transport.MemberID][]byte{m.id: m.cfg.BLSKey.Sign(vd[:])}
	sctx, cancel := context.WithTimeout(ctx, m.cfg.RoundTimeout)
	defer cancel()
	_ = m.mux.Broadcast(sctx, signers, transport.Message{Type: transport.TypeVerdictSig, Session: base + "/sig", Payload: sigs[m.id]})
	gs := m.mux.CollectQuorum(sctx, base+"/sig", transport.TypeVerdictSig, signers, m.quorumWant(len(signers)-1), m.grace())
	m.mux.Forget(base + "/sig")
	for id, msg := range gs.Got {
		if bls.Verify(m.committee.Keys[id-1].Compressed(), vd[:], msg.Payload) == nil {
			sigs[id] = msg.Payload
		} else {
			log.Warn("excluded: bad verdict signature", zap.Uint32("peer", uint32(id)))
		}
	}
	if v.Signature, v.Signers, err = m.aggregate(sigs); err != nil {
		return 0, err
	}
	return len(sigs), nil
}

func (m *Member) aggregate(sigs map[transport.MemberID][]byte) (sig, bitmap []byte, err error) {
	if len(sigs) < m.cfg.Committee.Threshold {
		return nil, nil, fmt.Errorf("%w: %d signatures, threshold %d", ErrNoQuorum, len(sigs), m.cfg.Committee.Threshold)
	}
	ids := make([]int, 0, len(sigs))
	for id := range sigs {
		ids = append(ids, int(id))
	}
	sort.Ints(ids)
	list := make([][]byte, len(ids))
	idx := make([]int, len(ids))
	for i, id := range ids {
		list[i] = sigs[transport.MemberID(id)]
		idx[i] = id - 1
	}
	if sig, err = bls.Aggregate(list); err != nil {
		return nil, nil, err
	}
	bitmap, err = bls.NewBitmap(len(m.members), idx)
	return sig, bitmap, err
}
