package consensus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/pipeline"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
)

type keyInfo struct {
	N, T     int
	Digest   string
	PKDigest string
	CRSSeed  string
}

// keyStore keeps a member's key material of its epoch in its store: the
// public key, the relinearisation and Galois keys (blobs), the threshold
// key share (sealed, share_seal.go) and the info record, written last,
// that marks the set complete.
type keyStore struct {
	st     *store.Store
	params *fhe.Params
	epoch  uint64
	seal   shareSeal
	shared *protocol.SharedPublic // MemberConfig.Shared: the in-process peers' equal keys
	log    *zap.Logger
}

// meta is the store's meta key of record s of the epoch's key set.
func (k *keyStore) meta(s string) string {
	return fmt.Sprintf("epoch/%d/%s", k.epoch, s)
}

// DKG runs the distributed key generation with every member (all must call
// it concurrently), stores the result and installs the keys.
func (m *Member) DKG(ctx context.Context) (*protocol.KeyMaterial, error) {
	if km, _ := m.Keys(); km != nil {
		return km, nil
	}
	km, key, err := protocol.RunDKG(ctx, m.group(), protocol.DKGConfig{Params: m.params, Epoch: m.cfg.Committee.Epoch,
		GaloisElements: m.cfg.Committee.GaloisElements(m.params), Shared: m.cfg.Shared})
	if err != nil {
		return nil, err
	}
	// Install in memory, self-test with every member, then persist.
	if err := m.keyring.install(km, key); err != nil {
		return nil, err
	}
	ks, _ := m.snap()
	if err := protocol.SelfTest(ctx, m.group(), km, key, ks.plan, ks.ev, m.led); err != nil {
		m.keyring.drop()
		return nil, err
	}
	if err := m.keyStore.save(km, key); err != nil {
		return nil, err
	}
	forgetDKGBroadcasts(m.mux, m.cfg.Committee.Epoch)
	return km, nil
}

// forgetDKGBroadcasts drops mux's late-reply copies of epoch's DKG key
// rounds (each Galois-key share is ≈ 8 MB on BGVN14): the self-test
// passed with every member, so no member runs those rounds again. The
// self-test's own rounds stay remembered.
func forgetDKGBroadcasts(mux *transport.Mux, epoch uint64) {
	prefix := fmt.Sprintf("dkg/%d/", epoch)
	mux.ForgetSent(func(session string) bool {
		return strings.HasPrefix(session, prefix) && !strings.HasPrefix(session, prefix+"selftest")
	})
}

// The Galois keys are stored a key at a time, outside the database:
// epoch/<e>/gal holds the header and count of their canonical encoding
// (fhe.GaloisKeys.MarshalHeader), the store's blob epoch-<e>-galois-<i>
// entry i (store.PutBlob: bbolt would copy each ≈ 16 MB key again at every
// write beside it, and keep it in its memory map). A member never holds
// the whole encoding (≈ 250 MB on BGVN14) at once. A store written before
// holds the whole encoding at epoch/<e>/gal; keyStore.load reads both. The
// digest in epoch/<e>/info covers every byte, wherever it was read from.
// The relinearisation key (≈ 16 MB) is the blob epoch-<e>-relin (before:
// epoch/<e>/rlk).
func (k *keyStore) galoisBlob(i int) string {
	return fmt.Sprintf("epoch-%d-galois-%d", k.epoch, i)
}

func (k *keyStore) relinBlob() string { return fmt.Sprintf("epoch-%d-relin", k.epoch) }

// save stores km and key, the info record last.
func (k *keyStore) save(km *protocol.KeyMaterial, key *protocol.ThresholdKey) error {
	pk, err := km.Public.MarshalBinary()
	if err != nil {
		return err
	}
	rlk, err := km.Relin.MarshalBinary()
	if err != nil {
		return err
	}
	plainTSK, err := key.MarshalBinary()
	if err != nil {
		return err
	}
	tsk, err := k.seal.seal(plainTSK) // never stored in plain (share_seal.go)
	clear(plainTSK)
	if err != nil {
		return err
	}
	if err := k.st.PutBlob(k.relinBlob(), rlk); err != nil {
		return err
	}
	var entry []byte
	for i := 0; i < km.Galois.Len(); i++ {
		entry = km.Galois.AppendEntry(entry[:0], i)
		if err := k.st.PutBlob(k.galoisBlob(i), entry); err != nil {
			return err
		}
	}
	info, _ := json.Marshal(keyInfo{N: km.N, T: km.T, Digest: fmt.Sprintf("%x", km.Digest), PKDigest: fmt.Sprintf("%x", km.PKDigest), CRSSeed: fmt.Sprintf("%x", km.CRSSeed)})
	for _, kv := range []struct {
		k string
		v []byte
	}{{"pk", pk}, {"gal", km.Galois.MarshalHeader()}, {"tsk", tsk}} {
		if err := k.st.PutMeta(k.meta(kv.k), kv.v); err != nil {
			return err
		}
	}
	return k.st.PutMeta(k.meta("info"), info) // written last: marks the set complete
}

// loadGalois decodes the stored Galois keys: the whole encoding (a store
// written before they were stored a key at a time) or the header and one
// entry per key, each swapped for the in-process peers' equal key
// (MemberConfig.Shared) as it is read.
func (k *keyStore) loadGalois(galB []byte) (*fhe.GaloisKeys, error) {
	if len(galB) != len(k.emptyGaloisHeader()) {
		return fhe.UnmarshalGaloisKeys(galB)
	}
	return fhe.UnmarshalGaloisKeysEntries(galB, func(i int) ([]byte, error) { return k.st.GetBlob(k.galoisBlob(i)) },
		k.shared.GaloisKey)
}

// emptyGaloisHeader is the header and count of a Galois key set of this
// member's preset: the length of what epoch/<e>/gal holds when the keys
// are stored a key at a time.
func (k *keyStore) emptyGaloisHeader() []byte {
	return fhe.WrapGaloisKeys(k.params, nil).MarshalHeader()
}

// incomplete reports a part of a key set whose info record is stored as
// missing: an error, not the "no keys yet" of store.ErrNotFound (e.g. a
// store copied without its blobs directory).
func incomplete(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("consensus: stored key material is incomplete (is the store's .blobs directory missing?): %v", err)
	}
	return err
}

// load reads the epoch's key set back (store.ErrNotFound: none is
// stored), sealing a share stored in plain in place.
func (k *keyStore) load() (*protocol.KeyMaterial, *protocol.ThresholdKey, error) {
	infoB, err := k.st.GetMeta(k.meta("info"))
	if err != nil {
		return nil, nil, err
	}
	var info keyInfo
	if err := json.Unmarshal(infoB, &info); err != nil {
		return nil, nil, err
	}
	get := func(name string) []byte {
		b, e := k.st.GetMeta(k.meta(name))
		if e != nil && err == nil {
			err = e
		}
		return b
	}
	pkB, galB, tskB := get("pk"), get("gal"), get("tsk")
	if err != nil {
		return nil, nil, err
	}
	rlkB, err := k.st.GetBlob(k.relinBlob())
	if errors.Is(err, store.ErrNotFound) {
		rlkB, err = k.st.GetMeta(k.meta("rlk")) // a store written before
	}
	if err != nil {
		return nil, nil, incomplete(err)
	}
	km := &protocol.KeyMaterial{Params: k.params, Epoch: k.epoch, N: info.N, T: info.T}
	if km.Public, err = fhe.UnmarshalPublicKey(pkB); err != nil {
		return nil, nil, err
	}
	if km.Relin, err = fhe.UnmarshalRelinKey(rlkB); err != nil {
		return nil, nil, err
	}
	if km.Galois, err = k.loadGalois(galB); err != nil {
		return nil, nil, incomplete(err)
	}
	if km.PKDigest, km.Digest, err = protocol.MaterialDigest(km.Public, km.Relin, km.Galois); err != nil {
		return nil, nil, err
	}
	if fmt.Sprintf("%x", km.Digest) != info.Digest {
		return nil, nil, errors.New("consensus: stored key material does not match its digest")
	}
	var key *protocol.ThresholdKey
	if shareSealed(tskB) {
		plain, err := k.seal.open(tskB)
		if err != nil {
			return nil, nil, err
		}
		key, err = protocol.UnmarshalThresholdKey(plain)
		clear(plain)
		if err != nil {
			return nil, nil, err
		}
	} else {
		// Written before shares were sealed: load it, then seal it in place.
		if key, err = protocol.UnmarshalThresholdKey(tskB); err != nil {
			return nil, nil, err
		}
		k.log.Warn("this member's threshold key share was stored unencrypted; sealing it now " +
			"(copy the store with `bbolt compact` to drop the freed plaintext page)")
		sealed, err := k.seal.seal(tskB)
		if err != nil {
			return nil, nil, err
		}
		if err := k.st.PutMeta(k.meta("tsk"), sealed); err != nil {
			return nil, nil, fmt.Errorf("consensus: sealing the stored threshold key share: %w", err)
		}
	}
	return km, key, nil
}

// keyring holds the member's installed keys: the key material, its
// threshold key share, the evaluator over the evaluation keys and the noise
// plan, swapped together under one lock (install, drop) and read together
// (snap).
type keyring struct {
	params       *fhe.Params
	shared       *protocol.SharedPublic // MemberConfig.Shared: the in-process peers' equal keys
	members      int                    // committee size
	threshold    int
	floodingBits int // CommitteeConfig.FloodingBits

	mu   sync.RWMutex
	km   *protocol.KeyMaterial
	key  *protocol.ThresholdKey
	ev   *fhe.Evaluator
	plan protocol.NoisePlan
}

// install makes km and key this member's keys. km has been verified (the
// DKG's digest round, or the stored digest); with in-process peers
// (MemberConfig.Shared) its public keys are swapped for their equal ones
// and the evaluator over them is shared.
func (r *keyring) install(km *protocol.KeyMaterial, key *protocol.ThresholdKey) error {
	if km.Public.Params() != r.params || key.Params != r.params {
		return errors.New("consensus: key material is for another preset")
	}
	r.shared.Adopt(km)
	ev, err := r.shared.Evaluator(km.Relin, km.Galois, func() (*fhe.Evaluator, error) {
		return fhe.NewEvaluator(r.params, fhe.EvaluationKeys{Relin: km.Relin, Galois: km.Galois})
	})
	if err != nil {
		return err
	}
	plan, err := protocol.PlanNoise(r.params, r.members, r.threshold, r.floodingBits)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.km, r.key, r.ev, r.plan = km, key, ev, plan
	r.mu.Unlock()
	return nil
}

// drop uninstalls the keys (a failed self-test, Retire) and returns the
// key material and share it held; the noise plan stays.
func (r *keyring) drop() (*protocol.KeyMaterial, *protocol.ThresholdKey) {
	r.mu.Lock()
	defer r.mu.Unlock()
	km, key := r.km, r.key
	r.km, r.key, r.ev = nil, nil, nil
	return km, key
}

// Keys returns the installed key material (ErrNoKeys before the DKG).
func (m *Member) Keys() (*protocol.KeyMaterial, error) {
	ks, err := m.keyring.snap()
	return ks.km, err
}

// NoisePlan returns the decryption level and flooding parameters.
func (m *Member) NoisePlan() protocol.NoisePlan {
	m.keyring.mu.RLock()
	defer m.keyring.mu.RUnlock()
	return m.keyring.plan
}

type keySnap struct {
	km   *protocol.KeyMaterial
	key  *protocol.ThresholdKey
	ev   *fhe.Evaluator
	plan protocol.NoisePlan
}

func (m *Member) snap() (keySnap, error) { return m.keyring.snap() }

// pipe is the snapshot as the request pipeline takes it.
func (ks keySnap) pipe() pipeline.Keys { return pipeline.NewKeys(ks.km, ks.key, ks.ev, ks.plan) }

// snap returns the installed keys (ErrNoKeys before the DKG).
func (r *keyring) snap() (keySnap, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.km == nil {
		return keySnap{}, ErrNoKeys
	}
	return keySnap{r.km, r.key, r.ev, r.plan}, nil
}
