package consensus

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/ledger"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
)

// Errors returned by a member.
var (
	ErrNoKeys         = errors.New("consensus: no committee keys for this epoch (run the DKG)")
	ErrDigestMismatch = errors.New("consensus: this member's result digest disagrees with the quorum")
	ErrNoQuorum       = errors.New("consensus: no quorum")
	ErrBadDecryption  = errors.New("consensus: decryption does not have the verdict shape (non-zero masked slots)")
)

// Faults injects misbehaviour into a member, for tests of detection and
// exclusion only.
type Faults struct {
	CorruptShares bool // flip a bit of every decryption share it sends
	WrongDigest   bool // announce a wrong result digest
}

// Member is one committee member: it holds its threshold key share, the
// public key material, the ciphertext store and the share ledger, answers
// its peers, and processes request batches.
type Member struct {
	cfg       MemberConfig
	id        transport.MemberID
	log       *zap.Logger
	st        *store.Store
	led       *ledger.Ledger
	mux       *transport.Mux
	params    *fhe.Params
	chainID   *big.Int
	committee *bls.Committee
	members   []transport.MemberID

	// Faults is for tests only.
	Faults Faults

	mu   sync.RWMutex
	km   *protocol.KeyMaterial
	key  *protocol.ThresholdKey
	ev   *fhe.Evaluator
	plan protocol.NoisePlan

	liveMu sync.Mutex
	down   map[transport.MemberID]uint64

	refreshes atomic.Uint64 // collective refreshes completed (Status.Refreshes)

	wg     sync.WaitGroup
	closed chan struct{}
	once   sync.Once
}

// NewMember builds a member over a transport and its store. It loads the key
// material of the configured epoch if a previous DKG stored it.
func NewMember(cfg MemberConfig, tr transport.Transport, st *store.Store, log *zap.Logger) (*Member, error) {
	cfg.defaults()
	if log == nil {
		log = zap.NewNop()
	}
	params, err := cfg.Committee.Validate()
	if err != nil {
		return nil, err
	}
	if cfg.BLSKey == nil {
		return nil, errors.New("consensus: member needs its BLS key")
	}
	if cfg.Self < 1 || int(cfg.Self) > len(cfg.Committee.Members) {
		return nil, fmt.Errorf("consensus: self %d not in the committee", cfg.Self)
	}
	if uint32(tr.Self()) != cfg.Self {
		return nil, fmt.Errorf("consensus: transport is member %d, config says %d", tr.Self(), cfg.Self)
	}
	committee, raw, err := cfg.Committee.BLSCommittee()
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(raw[cfg.Self-1], cfg.BLSKey.PublicKey()) {
		return nil, errors.New("consensus: BLS key does not match the committee config")
	}
	led, err := ledger.New(st.DB())
	if err != nil {
		return nil, err
	}
	m := &Member{cfg: cfg, id: transport.MemberID(cfg.Self), log: log.With(zap.Uint32("member", cfg.Self)), st: st, led: led,
		params: params, chainID: cfg.Committee.ChainIDBig(), committee: committee, members: cfg.Committee.IDs(),
		down: map[transport.MemberID]uint64{}, closed: make(chan struct{})}
	m.mux = transport.NewMux(tr, m.log)
	m.mux.Handle(transport.TypeStorePut, m.onStorePut)
	m.mux.Handle(transport.TypeFetch, m.onFetch)
	if err := m.loadKeys(); err != nil && !errors.Is(err, store.ErrNotFound) {
		m.mux.Close()
		return nil, err
	}
	return m, nil
}

// SetChainID changes the chain id bound into input and verdict digests
// (before Run; the devnet learns it after the committee is built).
func (m *Member) SetChainID(id *big.Int) {
	m.mu.Lock()
	m.chainID = new(big.Int).Set(id)
	m.mu.Unlock()
}

func (m *Member) chain() *big.Int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.chainID
}

// RegisterPolicy compiles an on-chain policy spec for this member's
// circuits (when they are PolicyCircuits).
func (m *Member) RegisterPolicy(policyID [32]byte, spec []byte) error {
	pc, ok := m.cfg.Circuits.(*PolicyCircuits)
	if !ok {
		return errors.New("consensus: member circuits do not accept policy specs")
	}
	return pc.Register(policyID, spec)
}

// ID returns the member's ID.
func (m *Member) ID() transport.MemberID { return m.id }

// Params returns the committee preset's parameters.
func (m *Member) Params() *fhe.Params { return m.params }

// Store returns the member's store.
func (m *Member) Store() *store.Store { return m.st }

// Ledger returns the member's share ledger.
func (m *Member) Ledger() *ledger.Ledger { return m.led }

// Close stops the member (its transport included); the store stays open.
func (m *Member) Close() error {
	m.once.Do(func() { close(m.closed) })
	err := m.mux.Close()
	m.wg.Wait()
	return err
}

func (m *Member) group() protocol.Group {
	return protocol.Group{Mux: m.mux, Members: m.members, Threshold: m.cfg.Committee.Threshold, Timeout: m.cfg.RoundTimeout, Grace: m.grace(), Log: m.log}
}

// ---- keys ----

type keyInfo struct {
	N, T     int
	Digest   string
	PKDigest string
	CRSSeed  string
}

func (m *Member) epochKey(s string) string {
	return fmt.Sprintf("epoch/%d/%s", m.cfg.Committee.Epoch, s)
}

// DKG runs the distributed key generation with every member (all must call
// it concurrently), stores the result and installs the keys.
func (m *Member) DKG(ctx context.Context) (*protocol.KeyMaterial, error) {
	if km, _ := m.Keys(); km != nil {
		return km, nil
	}
	km, key, err := protocol.RunDKG(ctx, m.group(), protocol.DKGConfig{Params: m.params, Epoch: m.cfg.Committee.Epoch,
		GaloisElements: m.cfg.Committee.GaloisElements(m.params)})
	if err != nil {
		return nil, err
	}
	// Install in memory, self-test with every member, then persist.
	if err := m.install(km, key); err != nil {
		return nil, err
	}
	ks, _ := m.snap()
	if err := protocol.SelfTest(ctx, m.group(), km, key, ks.plan, ks.ev, m.led); err != nil {
		m.mu.Lock()
		m.km, m.key, m.ev = nil, nil, nil
		m.mu.Unlock()
		return nil, err
	}
	if err := m.saveKeys(km, key); err != nil {
		return nil, err
	}
	return km, nil
}

func (m *Member) saveKeys(km *protocol.KeyMaterial, key *protocol.ThresholdKey) error {
	pk, err := km.Public.MarshalBinary()
	if err != nil {
		return err
	}
	rlk, err := km.Relin.MarshalBinary()
	if err != nil {
		return err
	}
	gal, err := km.Galois.MarshalBinary()
	if err != nil {
		return err
	}
	tsk, err := key.MarshalBinary()
	if err != nil {
		return err
	}
	info, _ := json.Marshal(keyInfo{N: km.N, T: km.T, Digest: fmt.Sprintf("%x", km.Digest), PKDigest: fmt.Sprintf("%x", km.PKDigest), CRSSeed: fmt.Sprintf("%x", km.CRSSeed)})
	for k, v := range map[string][]byte{"pk": pk, "rlk": rlk, "gal": gal, "tsk": tsk} {
		if err := m.st.PutMeta(m.epochKey(k), v); err != nil {
			return err
		}
	}
	return m.st.PutMeta(m.epochKey("info"), info) // written last: marks the set complete
}

func (m *Member) loadKeys() error {
	infoB, err := m.st.GetMeta(m.epochKey("info"))
	if err != nil {
		return err
	}
	var info keyInfo
	if err := json.Unmarshal(infoB, &info); err != nil {
		return err
	}
	get := func(k string) []byte {
		b, e := m.st.GetMeta(m.epochKey(k))
		if e != nil && err == nil {
			err = e
		}
		return b
	}
	pkB, rlkB, galB, tskB := get("pk"), get("rlk"), get("gal"), get("tsk")
	if err != nil {
		return err
	}
	km := &protocol.KeyMaterial{Params: m.params, Epoch: m.cfg.Committee.Epoch, N: info.N, T: info.T}
	if km.Public, err = fhe.UnmarshalPublicKey(pkB); err != nil {
		return err
	}
	if km.Relin, err = fhe.UnmarshalRelinKey(rlkB); err != nil {
		return err
	}
	if km.Galois, err = fhe.UnmarshalGaloisKeys(galB); err != nil {
		return err
	}
	if km.PKDigest, km.Digest, err = protocol.MaterialDigest(km.Public, km.Relin, km.Galois); err != nil {
		return err
	}
	if fmt.Sprintf("%x", km.Digest) != info.Digest {
		return errors.New("consensus: stored key material does not match its digest")
	}
	key, err := protocol.UnmarshalThresholdKey(tskB)
	if err != nil {
		return err
	}
	return m.install(km, key)
}

func (m *Member) install(km *protocol.KeyMaterial, key *protocol.ThresholdKey) error {
	if km.Public.Params() != m.params || key.Params != m.params {
		return errors.New("consensus: key material is for another preset")
	}
	ev, err := fhe.NewEvaluator(m.params, fhe.EvaluationKeys{Relin: km.Relin, Galois: km.Galois})
	if err != nil {
		return err
	}
	plan, err := protocol.PlanNoise(m.params, len(m.members), m.cfg.Committee.Threshold, m.cfg.Committee.FloodingBits)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.km, m.key, m.ev, m.plan = km, key, ev, plan
	m.mu.Unlock()
	return nil
}

// Keys returns the installed key material (ErrNoKeys before the DKG).
func (m *Member) Keys() (*protocol.KeyMaterial, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.km == nil {
		return nil, ErrNoKeys
	}
	return m.km, nil
}

// NoisePlan returns the decryption level and flooding parameters.
func (m *Member) NoisePlan() protocol.NoisePlan {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.plan
}

type keySnap struct {
	km   *protocol.KeyMaterial
	key  *protocol.ThresholdKey
	ev   *fhe.Evaluator
	plan protocol.NoisePlan
}

func (m *Member) snap() (keySnap, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.km == nil {
		return keySnap{}, ErrNoKeys
	}
	return keySnap{m.km, m.key, m.ev, m.plan}, nil
}

// ---- liveness ----

func (m *Member) live() []transport.MemberID {
	m.liveMu.Lock()
	defer m.liveMu.Unlock()
	var out []transport.MemberID
	for _, id := range m.members {
		if at, isDown := m.down[id]; isDown {
			if m.mux.Seen(id) <= at {
				continue
			}
			delete(m.down, id)
		}
		out = append(out, id)
	}
	return out
}

func (m *Member) markDown(ids []transport.MemberID) {
	if len(ids) == 0 {
		return
	}
	m.liveMu.Lock()
	defer m.liveMu.Unlock()
	for _, id := range ids {
		if _, ok := m.down[id]; !ok {
			m.log.Warn("member unresponsive: not waited for until heard from again", zap.Uint32("peer", uint32(id)))
		}
		m.down[id] = m.mux.Seen(id)
	}
}

// grace is how long a round keeps waiting for stragglers once it has a
// quorum: RoundTimeout/5, at least 1 s (members evaluate at different
// speeds on a shared machine; a member that misses the digest round only
// loses its part in that request).
func (m *Member) grace() time.Duration {
	g := m.cfg.RoundTimeout / 5
	if g < time.Second {
		g = time.Second
	}
	return g
}

// quorumWant is how many answers from others a round waits for before the
// grace period starts: enough for t with one cross-check.
func (m *Member) quorumWant(others int) int {
	w := m.cfg.Committee.Threshold
	if w > others {
		w = others
	}
	return w
}

// ---- store replication and input attestation ----

// InputAttestation is the quorum attestation FHEInput.register checks.
type InputAttestation struct {
	Handle    fhe.Handle
	Owner     [20]byte
	Preset    uint8
	CType     uint8
	Epoch     uint64
	Signature []byte // aggregate BLS over bls.InputDigest
	Signers   []byte // bitmap
}

func (m *Member) inputDigest(h fhe.Handle, owner [20]byte, preset, ctype uint8) [32]byte {
	return bls.InputDigest(m.chain(), m.cfg.Committee.Epoch, [32]byte(h), owner, preset, ctype)
}

func (m *Member) onStorePut(msg transport.Message) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		reply := []byte{0}
		if len(msg.Payload) < 21 {
			reply = append(reply, "short payload"...)
		} else {
			var owner [20]byte
			copy(owner[:], msg.Payload[:20])
			ctype := msg.Payload[20]
			h, ct, err := m.st.Put(msg.Payload[21:])
			switch {
			case err != nil:
				reply = append(reply, err.Error()...)
			case ct.Params() != m.params:
				reply = append(reply, "wrong preset"...)
			default:
				d := m.inputDigest(h, owner, uint8(m.params.Preset.ID), ctype)
				reply = append([]byte{1}, m.cfg.BLSKey.Sign(d[:])...)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), m.cfg.RoundTimeout)
		defer cancel()
		if err := m.mux.Send(ctx, msg.From, transport.Message{Type: transport.TypeStoreAck, Session: msg.Session, Payload: reply}); err != nil {
			m.log.Debug("store ack not delivered", zap.Error(err))
		}
	}()
}

func (m *Member) onFetch(msg transport.Message) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		var reply []byte
		if len(msg.Payload) == 32 {
			if b, err := m.st.Get(fhe.Handle(msg.Payload)); err == nil {
				reply = b
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), m.cfg.RoundTimeout)
		defer cancel()
		_ = m.mux.Send(ctx, msg.From, transport.Message{Type: transport.TypeFetchReply, Session: msg.Session, Payload: reply})
	}()
}

// fetch asks the live members for a ciphertext this member lacks (it was
// down during the upload) and stores the first copy whose handle matches.
func (m *Member) fetch(ctx context.Context, h fhe.Handle) (*fhe.Ciphertext, error) {
	session := fmt.Sprintf("fetch/%x/%x", h[:], randTag())
	live := m.live()
	rctx, cancel := context.WithTimeout(ctx, m.cfg.RoundTimeout)
	defer cancel()
	_ = m.mux.Broadcast(rctx, live, transport.Message{Type: transport.TypeFetch, Session: session, Payload: h[:]})
	got := m.mux.CollectQuorum(rctx, session, transport.TypeFetchReply, live, 1, 0)
	m.mux.Forget(session)
	for _, id := range sortedKeys(got.Got) {
		b := got.Got[id].Payload
		if len(b) == 0 || fhe.HandleOf(b) != h {
			continue
		}
		if _, ct, err := m.st.Put(b); err == nil {
			return ct, nil
		}
	}
	return nil, fmt.Errorf("%w: ciphertext %s not held by any live member", store.ErrNotFound, h)
}

func sortedKeys(m map[transport.MemberID]transport.Message) []transport.MemberID {
	out := make([]transport.MemberID, 0, len(m))
	for id := range m {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Upload validates a canonical ciphertext, stores it, replicates it to every
// live member and returns the quorum input attestation (≥ t BLS signatures
// over bls.InputDigest).
func (m *Member) Upload(ctx context.Context, ct []byte, owner [20]byte, ctype uint8) (*InputAttestation, error) {
	h, c, err := m.st.Put(ct)
	if err != nil {
		return nil, err
	}
	if c.Params() != m.params {
		return nil, fmt.Errorf("consensus: ciphertext is %s, committee uses %s", c.Params().Preset.Name, m.params.Preset.Name)
	}
	preset := uint8(m.params.Preset.ID)
	d := m.inputDigest(h, owner, preset, ctype)
	sigs := map[transport.MemberID][]byte{m.id: m.cfg.BLSKey.Sign(d[:])}
	session := fmt.Sprintf("put/%x/%x/%d/%x", h[:], owner[:], ctype, randTag())
	payload := append(append(owner[:], ctype), ct...)
	live := m.live()
	rctx, cancel := context.WithTimeout(ctx, m.cfg.RoundTimeout)
	defer cancel()
	_ = m.mux.Broadcast(rctx, live, transport.Message{Type: transport.TypeStorePut, Session: session, Payload: payload})
	got := m.mux.CollectQuorum(rctx, session, transport.TypeStoreAck, live, m.quorumWant(len(live)-1), m.grace())
	m.mux.Forget(session)
	for id, msg := range got.Got {
		if len(msg.Payload) == 1+bls.SignatureLen && msg.Payload[0] == 1 {
			sig := msg.Payload[1:]
			if bls.Verify(m.committee.Keys[id-1].Compressed(), d[:], sig) == nil {
				sigs[id] = sig
				continue
			}
		}
		m.log.Warn("store replica refused or bad signature", zap.Uint32("peer", uint32(id)), zap.ByteString("reply", tail(msg.Payload)))
	}
	m.markDown(got.Missing)
	att := &InputAttestation{Handle: h, Owner: owner, Preset: preset, CType: ctype, Epoch: m.cfg.Committee.Epoch}
	if att.Signature, att.Signers, err = m.aggregate(sigs); err != nil {
		return nil, err
	}
	return att, nil
}

func tail(b []byte) []byte {
	if len(b) > 0 {
		return b[1:]
	}
	return b
}

func randTag() []byte {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return b[:]
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

// ---- request processing ----

// ProcessBatch evaluates and decrypts a batch of requests (Parallel at a
// time) and returns, per request, the aggregated verdict or the error.
func (m *Member) ProcessBatch(ctx context.Context, reqs []Request) ([]*Verdict, []error) {
	out := make([]*Verdict, len(reqs))
	errs := make([]error, len(reqs))
	sem := make(chan struct{}, m.cfg.Parallel)
	var wg sync.WaitGroup
	for i := range reqs {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = m.Process(ctx, reqs[i])
		}(i)
	}
	wg.Wait()
	return out, errs
}

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

// Process runs one request end to end on this member: deterministic
// evaluation, result-digest agreement (members with another digest are
// excluded), collective refresh if the result is below the decryption level,
// masking to slot 0, threshold decryption (one share, via the ledger),
// BLS signature exchange and aggregation. The verdict is persisted.
func (m *Member) Process(ctx context.Context, req Request) (*Verdict, error) {
	if v, ok := m.StoredVerdict(req.ID); ok {
		return v, nil
	}
	ks, err := m.snap()
	if err != nil {
		return nil, err
	}
	base := fmt.Sprintf("req/%x/%d", req.ID[:], ks.km.Epoch)
	log := m.log.With(zap.String("request", fmt.Sprintf("%x", req.ID[:6])))
	var circuit Circuit
	if req.Kind == KindCRDT {
		circuit, err = newCRDTCircuit(req, m.params)
	} else {
		circuit, err = m.cfg.Circuits.Lookup(req.PolicyID)
		if errors.Is(err, ErrUnevaluable) {
			return m.processUnevaluable(ctx, req, ks, base, log, err)
		}
	}
	if err != nil {
		return nil, err
	}
	inputs := make([]*fhe.Ciphertext, len(req.Inputs))
	for i, h := range req.Inputs {
		if inputs[i], err = m.st.GetCiphertext(h); errors.Is(err, store.ErrNotFound) {
			inputs[i], err = m.fetch(ctx, h)
		}
		if err != nil {
			return nil, fmt.Errorf("consensus: input %d: %w", i, err)
		}
	}
	mark := time.Now()
	phase := func(name string) {
		if m.cfg.Trace != nil {
			now := time.Now()
			m.cfg.Trace(req.ID, name, now.Sub(mark))
			mark = now
		}
	}
	nRefresh := 0
	refresh := func(ctx context.Context, ct *fhe.Ciphertext) (*fhe.Ciphertext, error) {
		out, err := m.refreshLive(ctx, ks, base, ct)
		if err != nil {
			return nil, err
		}
		nRefresh++
		if hook := m.cfg.Knobs.AfterRefresh; hook != nil {
			hook(req.ID, nRefresh)
		}
		return out, nil
	}
	result, err := circuit.Evaluate(ctx, ks.ev, inputs, refresh)
	if err != nil {
		return nil, fmt.Errorf("consensus: evaluate: %w", err)
	}
	rd, err := result.Handle()
	if err != nil {
		return nil, err
	}
	phase("eval")

	// Result-digest agreement.
	participants, err := m.agreeDigest(ctx, base, rd, log)
	if err != nil {
		return nil, err
	}
	phase("digest")

	// Refresh if the result has no level left for the mask above the
	// decryption level, then keep only slot 0.
	ct := result
	if ct.Level() < ks.plan.Level+1 {
		if ct, err = m.refresh(ctx, ks, base+"/final-refresh", ct, participants); err != nil {
			return nil, err
		}
		phase("refresh")
	}
	mask := make([]int64, 1)
	mask[0] = 1
	if ct, err = ks.ev.MulInts(ct, mask); err != nil {
		return nil, err
	}
	phase("mask")

	led := protocol.Ledger(m.led)
	if m.Faults.CorruptShares {
		led = corruptingLedger{m.led}
	}
	dres, err := protocol.ThresholdDecrypt(ctx, m.group(), ks.key, ks.plan, ks.ev, led,
		protocol.DecryptRequest{Session: base + "/dec", Ciphertext: ct, Participants: participants, Valid: verdictShape})
	if err != nil {
		return nil, err
	}
	m.markDown(dres.Missing)
	if len(dres.Bad) > 0 {
		log.Warn("excluded: decryption share disagrees with the quorum", zap.Any("members", dres.Bad))
	}
	for _, v := range dres.Values[1:] {
		if v != 0 {
			return nil, ErrBadDecryption
		}
	}
	phase("decrypt")
	v := &Verdict{RequestID: req.ID, PolicyID: req.PolicyID, Result: new(big.Int).SetUint64(dres.Values[0]), ResultDigest: [32]byte(rd), Epoch: ks.km.Epoch}
	nsigs, err := m.signVerdict(ctx, base, v, without(participants, dres.Bad), log)
	if err != nil {
		return nil, err
	}
	if err := m.saveVerdict(v); err != nil {
		return nil, err
	}
	phase("sign")
	log.Debug("verdict", zap.String("result", v.Result.String()), zap.Int("signers", nsigs), zap.Bool("checked", dres.Checked))
	return v, nil
}

// agreeDigest announces this member's result digest rd for the request
// session base, collects the others' and returns the members that announced
// the majority digest (sorted). It fails with ErrNoQuorum when no digest has
// a threshold of votes (or on a tie) and with ErrDigestMismatch when this
// member is not in the majority.
func (m *Member) agreeDigest(ctx context.Context, base string, rd [32]byte, log *zap.Logger) ([]transport.MemberID, error) {
	t := m.cfg.Committee.Threshold
	live := m.live()
	announce := rd
	if m.Faults.WrongDigest {
		announce[0] ^= 0xff
	}
	dctx, cancel := context.WithTimeout(ctx, m.cfg.RoundTimeout)
	_ = m.mux.Broadcast(dctx, live, transport.Message{Type: transport.TypeResultDigest, Session: base + "/digest", Payload: announce[:]})
	got := m.mux.CollectQuorum(dctx, base+"/digest", transport.TypeResultDigest, live, m.quorumWant(len(live)-1), m.grace())
	cancel()
	m.mux.Forget(base + "/digest")
	m.markDown(got.Missing)
	votes := map[[32]byte][]transport.MemberID{announce: {m.id}}
	for id, msg := range got.Got {
		if len(msg.Payload) == 32 {
			votes[[32]byte(msg.Payload)] = append(votes[[32]byte(msg.Payload)], id)
		}
	}
	var major [32]byte
	best, tie := 0, false
	for d, ids := range votes {
		switch {
		case len(ids) > best:
			major, best, tie = d, len(ids), false
		case len(ids) == best:
			tie = true
		}
	}
	if best < t || tie {
		return nil, fmt.Errorf("%w: result digests %d-way split, best %d of threshold %d", ErrNoQuorum, len(votes), best, t)
	}
	participants := votes[major]
	sort.Slice(participants, func(i, j int) bool { return participants[i] < participants[j] })
	for d, ids := range votes {
		if d != major {
			log.Warn("excluded: wrong result digest", zap.Any("members", ids))
		}
	}
	if major != announce {
		return nil, ErrDigestMismatch
	}
	return participants, nil
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

// processUnevaluable answers a policy request whose policy definitely does
// not compile for the committee preset (cause wraps ErrUnevaluable) with the
// ResultUnevaluable verdict: no evaluation, refresh or decryption, but the
// same digest agreement (over UnevaluableDigest) and BLS signing as an
// evaluated verdict. The verdict is persisted, so the request's outcome is
// decided once.
func (m *Member) processUnevaluable(ctx context.Context, req Request, ks keySnap, base string, log *zap.Logger, cause error) (*Verdict, error) {
	log.Warn("policy not compiled for the committee preset: answering unevaluable", zap.Error(cause))
	rd := UnevaluableDigest(req.PolicyID)
	participants, err := m.agreeDigest(ctx, base, rd, log)
	if err != nil {
		return nil, err
	}
	v := &Verdict{RequestID: req.ID, PolicyID: req.PolicyID, Result: new(big.Int).Set(ResultUnevaluable), ResultDigest: rd, Epoch: ks.km.Epoch}
	n, err := m.signVerdict(ctx, base, v, participants, log)
	if err != nil {
		return nil, err
	}
	if err := m.saveVerdict(v); err != nil {
		return nil, err
	}
	log.Debug("verdict", zap.String("result", "unevaluable"), zap.Int("signers", n))
	return v, nil
}

// verdictShape accepts a decryption of a ciphertext masked to slot 0.
func verdictShape(v []uint64) bool {
	for _, x := range v[1:] {
		if x != 0 {
			return false
		}
	}
	return true
}

func without(ids, bad []transport.MemberID) []transport.MemberID {
	var out []transport.MemberID
	for _, id := range ids {
		skip := false
		for _, b := range bad {
			skip = skip || b == id
		}
		if !skip {
			out = append(out, id)
		}
	}
	return out
}

// refreshLive runs a collective refresh of ct inside a request's evaluation
// (a plan's refresh point) with the members this member believes live. The
// session is named by the ciphertext's digest, not by a call counter, so
// every member names the same refresh the same way whatever order its
// evaluator reaches the plan's refresh points in. When an active member does
// not answer, it is marked down and the refresh is run once more with the
// next t live members (a new session: a member killed between two refreshes
// of one request costs one round timeout, not the request).
func (m *Member) refreshLive(ctx context.Context, ks keySnap, base string, ct *fhe.Ciphertext) (*fhe.Ciphertext, error) {
	d := protocol.ShareDigest(ct)
	session := fmt.Sprintf("%s/refresh/%x", base, d[:8])
	out, err := m.refresh(ctx, ks, session, ct, m.live())
	var miss *protocol.ErrMissing
	if errors.As(err, &miss) && ctx.Err() == nil {
		m.markDown(miss.Missing)
		out, err = m.refresh(ctx, ks, session, ct, m.live())
	}
	return out, err
}

// refresh runs one collective refresh with the first t participants active
// and every participant receiving (protocol.Refresh); it counts the
// refreshes this member completed (Status.Refreshes).
func (m *Member) refresh(ctx context.Context, ks keySnap, session string, ct *fhe.Ciphertext, participants []transport.MemberID) (*fhe.Ciphertext, error) {
	t := m.cfg.Committee.Threshold
	if len(participants) < t {
		return nil, fmt.Errorf("%w: %d live members for a refresh, threshold %d", ErrNoQuorum, len(participants), t)
	}
	active := participants[:t]
	out, err := protocol.Refresh(ctx, m.group(), ks.key, m.led, protocol.RefreshRequest{Session: fmt.Sprintf("%s/%v", session, active),
		Ciphertext: ct, Active: active, Receivers: participants})
	if err == nil {
		m.refreshes.Add(1)
	}
	return out, err
}

type corruptingLedger struct{ l *ledger.Ledger }

func (c corruptingLedger) Issue(kind string, d [32]byte, e uint64, s string, gen func() ([]byte, error)) ([]byte, error) {
	b, err := c.l.Issue(kind, d, e, s, gen)
	if err != nil || kind != "dec" || len(b) < 64 {
		return b, err
	}
	b = append([]byte(nil), b...)
	b[41] ^= 1
	return b, nil
}

// ---- serving ----

// Run serves requests from the chain until ctx ends: it batches them
// (BatchSize / BatchInterval), processes each batch and posts the verdicts
// (the lowest signer at once, the k-th signer after k·SubmitStagger if no
// verdict was accepted meanwhile). Requests already answered are skipped;
// the block cursor is persisted, so a restart resumes where it stopped.
func (m *Member) Run(ctx context.Context, chain ChainAdapter) error {
	if _, err := m.Keys(); err != nil {
		return err
	}
	cursor := uint64(0)
	if b, err := m.st.GetMeta("cursor"); err == nil && len(b) == 8 {
		cursor = binary.BigEndian.Uint64(b)
	}
	reqs, err := chain.Requests(ctx, cursor)
	if err != nil {
		return err
	}
	var batch []Request
	attempts := map[[32]byte]int{}
	retry := make(chan Request, 1024)
	tick := time.NewTicker(m.cfg.BatchInterval)
	defer tick.Stop()
	flush := func() {
		if len(batch) == 0 {
			return
		}
		b := batch
		batch = nil
		vs, errs := m.ProcessBatch(ctx, b)
		allOK := true
		maxBlock := uint64(0)
		for i, v := range vs {
			if b[i].Block > maxBlock {
				maxBlock = b[i].Block
			}
			if errs[i] != nil {
				allOK = false
				if ctx.Err() == nil {
					m.log.Warn("request failed", zap.String("request", fmt.Sprintf("%x", b[i].ID[:6])), zap.Error(errs[i]))
				}
				// Transient failures (a member died mid-round) are retried a
				// few times; the ledger hands back the same shares to the
				// same sessions, so a retry never issues a second share.
				if attempts[b[i].ID]++; attempts[b[i].ID] < 3 && !errors.Is(errs[i], ErrDigestMismatch) && ctx.Err() == nil {
					r := b[i]
					m.wg.Add(1)
					go func() {
						defer m.wg.Done()
						select {
						case <-time.After(m.grace()):
							select {
							case retry <- r:
							default:
							}
						case <-ctx.Done():
						case <-m.closed:
						}
					}()
				}
				continue
			}
			delete(attempts, b[i].ID)
			m.wg.Add(1)
			go func(v *Verdict) { defer m.wg.Done(); m.submit(ctx, chain, v) }(v)
		}
		if allOK && maxBlock >= cursor {
			cursor = maxBlock + 1
			_ = m.st.PutMeta("cursor", binary.BigEndian.AppendUint64(nil, cursor))
		}
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-m.closed:
			return nil
		case r, ok := <-reqs:
			if !ok {
				flush()
				return nil
			}
			if posted, err := chain.VerdictPosted(ctx, r.ID); err == nil && posted {
				continue
			}
			batch = append(batch, r)
			if len(batch) >= m.cfg.BatchSize {
				flush()
			}
		case r := <-retry:
			batch = append(batch, r)
		case <-tick.C:
			flush()
		}
	}
}

func (m *Member) submit(ctx context.Context, chain ChainAdapter, v *Verdict) {
	signers, _ := bls.Signers(len(m.members), v.Signers)
	rank := 0
	for i, s := range signers {
		if transport.MemberID(s+1) == m.id {
			rank = i
		}
	}
	if rank > 0 {
		select {
		case <-time.After(time.Duration(rank) * m.cfg.SubmitStagger):
		case <-ctx.Done():
			return
		case <-m.closed:
			return
		}
		if posted, err := chain.VerdictPosted(ctx, v.RequestID); err == nil && posted {
			return
		}
	}
	if err := chain.SubmitVerdict(ctx, v); err != nil && ctx.Err() == nil {
		m.log.Warn("verdict submission failed", zap.String("request", fmt.Sprintf("%x", v.RequestID[:6])), zap.Error(err))
	}
}

// Status summarises the member.
type Status struct {
	ID           uint32  `json:"id"`
	Epoch        uint64  `json:"epoch"`
	Preset       string  `json:"preset"`
	HaveKeys     bool    `json:"haveKeys"`
	KeyDigest    string  `json:"keyDigest,omitempty"`
	DecryptLevel int     `json:"decryptLevel"`
	SigmaBits    float64 `json:"floodingSigmaLog2"`
	Ciphertexts  int     `json:"ciphertexts"`
	SharesIssued int     `json:"sharesIssued"`
	Verdicts     int     `json:"verdicts"`
	// Refreshes counts the collective refreshes (MPC bootstraps) this member
	// completed since it started: a plan's refresh points and the refresh
	// before a decryption when a result has no level left.
	Refreshes uint64   `json:"refreshes"`
	Down      []uint32 `json:"down,omitempty"`
}

// Status returns the member's status.
func (m *Member) Status() Status {
	s := Status{ID: uint32(m.id), Epoch: m.cfg.Committee.Epoch, Preset: m.params.Preset.Name, Ciphertexts: m.st.Count(),
		SharesIssued: m.led.Count(), Verdicts: len(m.st.MetaKeys("verdict/")), Refreshes: m.refreshes.Load()}
	if km, err := m.Keys(); err == nil {
		s.HaveKeys, s.KeyDigest = true, fmt.Sprintf("%x", km.Digest)
		p := m.NoisePlan()
		s.DecryptLevel, s.SigmaBits = p.Level, p.SigmaBits
	}
	live := m.live()
	for _, id := range m.members {
		if !contains(live, id) {
			s.Down = append(s.Down, uint32(id))
		}
	}
	return s
}

func contains(ids []transport.MemberID, id transport.MemberID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
