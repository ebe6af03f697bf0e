package consensus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/fhe"
)

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
		GaloisElements: m.cfg.Committee.GaloisElements(m.params), Shared: m.cfg.Shared})
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
	m.forgetDKGBroadcasts()
	return km, nil
}

// forgetDKGBroadcasts drops the mux's late-reply copies of this epoch's
// DKG key rounds (each Galois-key share is ≈ 8 MB on BGVN14): the self-test
// passed with every member, so no member runs those rounds again. The
// self-test's own rounds stay remembered.
func (m *Member) forgetDKGBroadcasts() {
	prefix := fmt.Sprintf("dkg/%d/", m.cfg.Committee.Epoch)
	m.mux.ForgetSent(func(session string) bool {
		return strings.HasPrefix(session, prefix) && !strings.HasPrefix(session, prefix+"selftest")
	})
}

// The Galois keys are stored a key at a time, outside the database:
// epoch/<e>/gal holds the header and count of their canonical encoding
// (fhe.GaloisKeys.MarshalHeader), the store's blob epoch-<e>-galois-<i>
// entry i (store.PutBlob: bbolt would copy each ≈ 16 MB key again at every
// write beside it, and keep it in its memory map). A member never holds
// the whole encoding (≈ 250 MB on BGVN14) at once. A store written before
// holds the whole encoding at epoch/<e>/gal; loadKeys reads both. The
// digest in epoch/<e>/info covers every byte, wherever it was read from.
// The relinearisation key (≈ 16 MB) is the blob epoch-<e>-relin (before:
// epoch/<e>/rlk).
func (m *Member) galoisBlob(i int) string {
	return fmt.Sprintf("epoch-%d-galois-%d", m.cfg.Committee.Epoch, i)
}

func (m *Member) relinBlob() string { return fmt.Sprintf("epoch-%d-relin", m.cfg.Committee.Epoch) }

func (m *Member) saveKeys(km *protocol.KeyMaterial, key *protocol.ThresholdKey) error {
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
	tsk, err := shareSealOf(m.cfg).seal(plainTSK) // never stored in plain (share_seal.go)
	clear(plainTSK)
	if err != nil {
		return err
	}
	if err := m.st.PutBlob(m.relinBlob(), rlk); err != nil {
		return err
	}
	var entry []byte
	for i := 0; i < km.Galois.Len(); i++ {
		entry = km.Galois.AppendEntry(entry[:0], i)
		if err := m.st.PutBlob(m.galoisBlob(i), entry); err != nil {
			return err
		}
	}
	info, _ := json.Marshal(keyInfo{N: km.N, T: km.T, Digest: fmt.Sprintf("%x", km.Digest), PKDigest: fmt.Sprintf("%x", km.PKDigest), CRSSeed: fmt.Sprintf("%x", km.CRSSeed)})
	for _, kv := range []struct {
		k string
		v []byte
	}{{"pk", pk}, {"gal", km.Galois.MarshalHeader()}, {"tsk", tsk}} {
		if err := m.st.PutMeta(m.epochKey(kv.k), kv.v); err != nil {
			return err
		}
	}
	return m.st.PutMeta(m.epochKey("info"), info) // written last: marks the set complete
}

// loadGalois decodes the stored Galois keys: the whole encoding (a store
// written before they were stored a key at a time) or the header and one
// entry per key, each swapped for the in-process peers' equal key
// (MemberConfig.Shared) as it is read.
func (m *Member) loadGalois(galB []byte) (*fhe.GaloisKeys, error) {
	if len(galB) != len(m.emptyGaloisHeader()) {
		return fhe.UnmarshalGaloisKeys(galB)
	}
	return fhe.UnmarshalGaloisKeysEntries(galB, func(i int) ([]byte, error) { return m.st.GetBlob(m.galoisBlob(i)) },
		m.cfg.Shared.GaloisKey)
}

// emptyGaloisHeader is the header and count of a Galois key set of this
// member's preset: the length of what epoch/<e>/gal holds when the keys
// are stored a key at a time.
func (m *Member) emptyGaloisHeader() []byte {
	return fhe.WrapGaloisKeys(m.params, nil).MarshalHeader()
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
	pkB, galB, tskB := get("pk"), get("gal"), get("tsk")
	if err != nil {
		return err
	}
	rlkB, err := m.st.GetBlob(m.relinBlob())
	if errors.Is(err, store.ErrNotFound) {
		rlkB, err = m.st.GetMeta(m.epochKey("rlk")) // a store written before
	}
	if err != nil {
		return incomplete(err)
	}
	km := &protocol.KeyMaterial{Params: m.params, Epoch: m.cfg.Committee.Epoch, N: info.N, T: info.T}
	if km.Public, err = fhe.UnmarshalPublicKey(pkB); err != nil {
		return err
	}
	if km.Relin, err = fhe.UnmarshalRelinKey(rlkB); err != nil {
		return err
	}
	if km.Galois, err = m.loadGalois(galB); err != nil {
		return incomplete(err)
	}
	if km.PKDigest, km.Digest, err = protocol.MaterialDigest(km.Public, km.Relin, km.Galois); err != nil {
		return err
	}
	if fmt.Sprintf("%x", km.Digest) != info.Digest {
		return errors.New("consensus: stored key material does not match its digest")
	}
	var key *protocol.ThresholdKey
	if shareSealed(tskB) {
		plain, err := shareSealOf(m.cfg).open(tskB)
		if err != nil {
			return err
		}
		key, err = protocol.UnmarshalThresholdKey(plain)
		clear(plain)
		if err != nil {
			return err
		}
	} else {
		// Written before shares were sealed: load it, then seal it in place.
		if key, err = protocol.UnmarshalThresholdKey(tskB); err != nil {
			return err
		}
		m.log.Warn("this member's threshold key share was stored unencrypted; sealing it now " +
			"(copy the store with `bbolt compact` to drop the freed plaintext page)")
		sealed, err := shareSealOf(m.cfg).seal(tskB)
		if err != nil {
			return err
		}
		if err := m.st.PutMeta(m.epochKey("tsk"), sealed); err != nil {
			return fmt.Errorf("consensus: sealing the stored threshold key share: %w", err)
		}
	}
	return m.install(km, key)
}

// install makes km and key this member's keys. km has been verified (the
// DKG's digest round, or the stored digest); with in-process peers
// (MemberConfig.Shared) its public keys are swapped for their equal ones
// and the evaluator over them is shared.
func (m *Member) install(km *protocol.KeyMaterial, key *protocol.ThresholdKey) error {
	if km.Public.Params() != m.params || key.Params != m.params {
		return errors.New("consensus: key material is for another preset")
	}
	m.cfg.Shared.Adopt(km)
	ev, err := m.cfg.Shared.Evaluator(km.Relin, km.Galois, func() (*fhe.Evaluator, error) {
		return fhe.NewEvaluator(m.params, fhe.EvaluationKeys{Relin: km.Relin, Galois: km.Galois})
	})
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
