package protocol

import (
	"sync"
	"weak"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"

	"github.com/fhegate/fhegate/fhe"
)

// SharedPublic lets committee members that live in one process (an
// in-process committee: the devnet, tests) hold one copy of the public key
// material they each derive, instead of one copy per member. On BGVN14 the
// relinearisation key and 15 Galois keys are ≈ 250 MB per member; an evaluator's
// worker pool holds its own buffers besides.
//
// Sharing never replaces verification: every member still runs every round
// of the DKG, derives every key from the shares it checked, computes the
// digest of its material and compares it with every peer's, exactly as a
// member alone in its process. A member swaps a key of its own for the
// shared object only when their coefficients are equal (the same bytes
// under the canonical encoding: compared, not hashed), so every digest it
// computes and every check it makes covers exactly the bytes it derived
// or loaded. A member whose key differs keeps its own. The cache holds weak references: material no member uses any
// more is collected. A nil *SharedPublic shares nothing. Safe for
// concurrent use.
type SharedPublic struct {
	mu     sync.Mutex
	galois map[uint64][]weak.Pointer[rlwe.GaloisKey]
	pubs   []weak.Pointer[fhe.PublicKey]
	relins []weak.Pointer[fhe.RelinKey]
	sets   []weak.Pointer[fhe.GaloisKeys]
	evals  []sharedEvaluator
}

type sharedEvaluator struct {
	rlk weak.Pointer[fhe.RelinKey]
	gal weak.Pointer[fhe.GaloisKeys]
	ev  weak.Pointer[fhe.Evaluator]
}

// NewSharedPublic returns an empty cache for the members of one process.
func NewSharedPublic() *SharedPublic {
	return &SharedPublic{galois: map[uint64][]weak.Pointer[rlwe.GaloisKey]{}}
}

// intern returns the live cached object that same reports equal to v, or
// caches v and returns it; it drops collected entries from *list.
func intern[T any](list *[]weak.Pointer[T], v *T, same func(a, b *T) bool) *T {
	live := (*list)[:0]
	var found *T
	for _, w := range *list {
		c := w.Value()
		if c == nil {
			continue
		}
		live = append(live, w)
		if found == nil && same(c, v) {
			found = c
		}
	}
	clear((*list)[len(live):])
	*list = live
	if found != nil {
		return found
	}
	*list = append(*list, weak.Make(v))
	return v
}

// GaloisKey returns the shared Galois key equal to gk (same element, same
// coefficients), or gk itself, which later calls then share.
func (s *SharedPublic) GaloisKey(gk *rlwe.GaloisKey) *rlwe.GaloisKey {
	if s == nil || gk == nil {
		return gk
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.galois[gk.GaloisElement]
	out := intern(&list, gk, fhe.SameGaloisKey)
	if len(list) == 0 {
		delete(s.galois, gk.GaloisElement)
	} else {
		s.galois[gk.GaloisElement] = list
	}
	return out
}

// Adopt replaces km's public, relinearisation and Galois keys with the
// shared objects equal to them (each compared coefficient by coefficient
// with km's own), caching km's where none is. The caller has already
// verified km (its digest against every peer's, or against the stored
// digest): Adopt changes which object holds the bytes, never the bytes.
func (s *SharedPublic) Adopt(km *KeyMaterial) {
	if s == nil || km == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if km.Public != nil {
		km.Public = intern(&s.pubs, km.Public, fhe.SamePublicKey)
	}
	if km.Relin != nil {
		km.Relin = intern(&s.relins, km.Relin, fhe.SameRelinKey)
	}
	if km.Galois != nil {
		km.Galois = intern(&s.sets, km.Galois, fhe.SameGaloisKeys)
	}
}

// Evaluator returns the shared evaluator over exactly the keys rlk and gal
// (the same objects: Adopt them first), or the one build makes, which
// later calls then share. An fhe.Evaluator is safe for concurrent use and
// holds no member's secret.
func (s *SharedPublic) Evaluator(rlk *fhe.RelinKey, gal *fhe.GaloisKeys, build func() (*fhe.Evaluator, error)) (*fhe.Evaluator, error) {
	if s == nil {
		return build()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	live := s.evals[:0]
	var found *fhe.Evaluator
	for _, e := range s.evals {
		ev := e.ev.Value()
		if ev == nil {
			continue
		}
		live = append(live, e)
		if found == nil && e.rlk.Value() == rlk && e.gal.Value() == gal {
			found = ev
		}
	}
	clear(s.evals[len(live):])
	s.evals = live
	if found != nil {
		return found, nil
	}
	ev, err := build()
	if err != nil {
		return nil, err
	}
	s.evals = append(s.evals, sharedEvaluator{rlk: weak.Make(rlk), gal: weak.Make(gal), ev: weak.Make(ev)})
	return ev, nil
}
