package protocol

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	keccakpkg "github.com/fhegate/fhegate/internal/keccak"
)

// Group is the view a protocol run has of the committee: the message mux,
// every member's ID, the threshold and the per-round deadline.
type Group struct {
	Mux       *transport.Mux
	Members   []transport.MemberID // every committee member, ascending
	Threshold int
	Timeout   time.Duration // per round; 0: 60 s
	// Grace is how long a round keeps waiting for stragglers once it has
	// enough answers to proceed (0: Timeout/10, at most 1 s).
	Grace time.Duration
	// ProduceWait is how much longer than Timeout a member that is not
	// active in an active-members round (AgreedFromActive, a refresh's
	// share round) waits for the active members, which compute their values
	// while it waits: an agreed packed result is the whole plan's
	// evaluation. 0: no longer.
	ProduceWait time.Duration
	Log         *zap.Logger
	// Coins makes this member's coin-toss contributions a function of the
	// session (and remembers the others' first commitments), so that a
	// retried round commits and reveals what the first attempt did: see
	// CoinToss. nil: the process's (processCoins).
	Coins *CoinState
	// OnEquivocation, if set, is told of every member caught revealing a
	// share that does not match its commitment (the identifiable abort of
	// a committed round; the member's status lists them).
	OnEquivocation func(ErrEquivocation)
	// Masks, if set, holds this member's refresh masks made ahead of time
	// (used when it is for the refresh's key, epoch and member); nil:
	// Refresh makes each mask when it needs it.
	Masks *MaskPool

	// hook makes this member misbehave in share rounds (tests only: it is
	// unexported and no production code sets it). See roundHook.
	hook roundHook
	// transformMaskEdit changes this masker's mask plaintexts of a refresh
	// transform (the A input masks, then the output masks of the group)
	// before they are encrypted and proven (tests only: a masker running
	// modified code).
	transformMaskEdit func(vals [][]int64)
	// transformMessageLimit, if set, is the message size a refresh
	// transform's mask messages must fit instead of the transport's (tests
	// only: output groups on a small preset).
	transformMessageLimit int
	// insecureNoCommit runs the share rounds without commitments, as they
	// were before commit-before-reveal (tests only: the control runs of the
	// attacks it stops).
	insecureNoCommit bool
	// commitContext is bound into every signed commitment of a committed
	// round (exchangeCommitted): the DKG sets its CRS seed, fresh in every
	// attempt, so that a signed commitment of a failed attempt cannot be
	// relayed as evidence into the next one. Zero elsewhere.
	commitContext [32]byte
}

// roundHook is a test's stand-in for a malicious member in a share round. It
// is called with the stage, the round's session and message type and the
// payload the honest protocol would send, and returns the payload to send
// instead: at hookSend for the share this member sends (in a committed
// round: the share it commits to), at hookReveal for what it reveals (in a
// committed round, once every commitment is in). peek returns the other
// senders' shares of the round that have arrived — what a rushing member
// waits for: at hookSend of an uncommitted round it waits for all of them;
// at hookSend of a committed round it waits briefly, and nothing can have
// arrived, since no honest member reveals before it has this member's
// commitment.
type roundHook func(stage hookStage, session string, typ transport.Type, own []byte, peek func() map[transport.MemberID][]byte) []byte

// hookStage says where a roundHook is called.
type hookStage int

const (
	hookSend   hookStage = iota // the share sent (committed rounds: the one committed to)
	hookReveal                  // committed rounds: the share revealed
)

func (g Group) grace() time.Duration {
	if g.Grace > 0 {
		return g.Grace
	}
	d := g.timeout() / 10
	if d > time.Second {
		d = time.Second
	}
	return d
}

// Self is the local member.
func (g Group) Self() transport.MemberID { return g.Mux.Self() }

// N is the committee size.
func (g Group) N() int { return len(g.Members) }

func (g Group) timeout() time.Duration {
	if g.Timeout <= 0 {
		return 60 * time.Second
	}
	return g.Timeout
}

func (g Group) log() *zap.Logger {
	if g.Log == nil {
		return zap.NewNop()
	}
	return g.Log
}

// ShareKind says what a share is a share of. A Ledger keys its entries on
// (kind, digest, epoch) and persists the kind's string as the first part of
// the key, so these values are part of the on-disk format and never change.
type ShareKind string

// The kinds of share the protocols issue.
const (
	KindDecryption ShareKind = "dec"     // ThresholdDecrypt: d_j = c1·tsk_j + e_j
	KindRefresh    ShareKind = "refresh" // Refresh: masked decryption and re-encryption share
	// KindRefreshMask is a refresh's proven mask (Refresh): not a share of
	// anything secret, kept so that a retried refresh (same session)
	// commits to and reveals the mask its first attempt did.
	KindRefreshMask ShareKind = "refresh-mask"
)

// Ledger is what the protocols need from the share ledger.
type Ledger interface {
	// Issue returns the share this member gives for (kind, digest, epoch) in
	// session: the stored bytes if this same session already issued it, a
	// fresh share from gen — persisted and fsync'd before Issue returns — if
	// none was ever issued, and an error wrapping ErrAlreadyShared if another
	// session did.
	Issue(kind ShareKind, digest [32]byte, epoch uint64, session string, gen func() ([]byte, error)) ([]byte, error)
}

// ErrAlreadyShared is returned (wrapped) by a Ledger for a second share.
var ErrAlreadyShared = errors.New("share already issued for this ciphertext and epoch (re-randomise it)")

// ErrMissing reports members that did not answer a round in time.
type ErrMissing struct {
	Session string
	Missing []transport.MemberID
}

func (e *ErrMissing) Error() string {
	return fmt.Sprintf("protocol: %s: no answer from members %v", e.Session, e.Missing)
}

// ErrActiveFailed reports an active member that told the receivers of an
// active-members round that it could not produce its value (its
// computation or share failed), so they need not wait out the round.
type ErrActiveFailed struct {
	Session string
	Member  transport.MemberID
}

func (e *ErrActiveFailed) Error() string {
	return fmt.Sprintf("protocol: %s: active member %d could not produce its value", e.Session, e.Member)
}

// exchangeAll broadcasts payload to `members` and collects one message of the
// same type from each of them; every one must answer (n-of-n rounds: DKG).
func exchangeAll(ctx context.Context, g Group, members []transport.MemberID, session string, typ transport.Type, payload []byte) (map[transport.MemberID][]byte, error) {
	rctx, cancel := context.WithTimeout(ctx, g.timeout())
	defer cancel()
	var got transport.Gather
	if g.hook != nil {
		peek := func() map[transport.MemberID][]byte {
			if got.Got == nil {
				got = g.Mux.Collect(rctx, session, typ, others(members, g.Self()))
			}
			return payloads(got)
		}
		payload = g.hook(hookSend, session, typ, payload, peek)
	}
	if err := g.Mux.Broadcast(rctx, members, transport.Message{Type: typ, Session: session, Payload: payload}); err != nil {
		g.log().Info("broadcast: a first send failed; retried until the round's deadline", zap.String("session", session), zap.Error(err))
	}
	if got.Got == nil {
		got = g.Mux.Collect(rctx, session, typ, members)
	}
	if len(got.Missing) > 0 {
		return nil, &ErrMissing{Session: session, Missing: got.Missing}
	}
	out := map[transport.MemberID][]byte{g.Self(): payload}
	for id, m := range got.Got {
		out[id] = m.Payload
	}
	return out, nil
}

// others is ids without self.
func others(ids []transport.MemberID, self transport.MemberID) []transport.MemberID {
	out := make([]transport.MemberID, 0, len(ids))
	for _, id := range ids {
		if id != self {
			out = append(out, id)
		}
	}
	return out
}

// payloads is the payload of every message of a gather, by sender.
func payloads(g transport.Gather) map[transport.MemberID][]byte {
	out := make(map[transport.MemberID][]byte, len(g.Got))
	for id, m := range g.Got {
		out[id] = m.Payload
	}
	return out
}

// sortedIDs returns the keys of m, ascending.
func sortedIDs[V any](m map[transport.MemberID]V) []transport.MemberID {
	out := make([]transport.MemberID, 0, len(m))
	for id := range m {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

var keccak = keccakpkg.Sum

// share is a Lattigo protocol share S whose pointer decodes from bytes.
type share[S any] interface {
	*S
	UnmarshalBinary([]byte) error
}

// lattigoEncoded is a share type encoded by Lattigo's MarshalBinary, whose
// decoder trusts the length, level and degree fields it reads. A share
// type that validates its own encoding (transformShare) does not
// implement it.
type lattigoEncoded interface {
	MarshalBinary() ([]byte, error)
}

// shapeGuard returns a check that a payload has exactly the structure of
// tmpl's encoding (fhe.SameLattigoShape), or nil when S decodes itself
// safely. The two reference encodings are made once per round, not per
// member: tmpl with every coefficient 0 and with every coefficient
// 2^64−1 (fillCoefficients); every other field of tmpl — lengths,
// levels, a Galois element, metadata — is what an honest share carries.
func shapeGuard[S any](tmpl S) (func([]byte) error, error) {
	if _, ok := any(&tmpl).(lattigoEncoded); !ok {
		return nil, nil
	}
	encode := func(fill uint64) ([]byte, error) {
		fillCoefficients(reflect.ValueOf(&tmpl).Elem(), fill)
		var b []byte
		err := safe("share template", func() (err error) {
			b, err = any(&tmpl).(lattigoEncoded).MarshalBinary()
			return err
		})
		return b, err
	}
	zero, err := encode(0)
	if err != nil {
		return nil, err
	}
	ones, err := encode(^uint64(0))
	if err != nil {
		return nil, err
	}
	return func(b []byte) error {
		return fhe.SameLattigoShape(b, func(fill uint64) ([]byte, error) {
			if fill == 0 {
				return zero, nil
			}
			return ones, nil
		})
	}, nil
}

// fillCoefficients sets every element of every []uint64 reachable from v
// through exported struct fields, slices and arrays — the coefficients of
// Lattigo's ring.Poly, ringqp.Poly, vectors and matrices of them — to
// fill. It never follows a pointer, so shared objects (parameters, the
// metadata a ciphertext points to) are left alone.
func fillCoefficients(v reflect.Value, fill uint64) {
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint64 {
			if v.Kind() == reflect.Array && !v.CanSet() {
				return
			}
			if c, ok := v.Interface().([]uint64); ok { // a limb: fill it directly, not word by word through reflect
				for i := range c {
					c[i] = fill
				}
				return
			}
			for i := range v.Len() {
				v.Index(i).SetUint(fill)
			}
			return
		}
		for i := range v.Len() {
			fillCoefficients(v.Index(i), fill)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillCoefficients(v.Field(i), fill)
			}
		}
	}
}

// aggregateShares decodes every member's share from payloads, in the order of
// members — each payload first checked against the structure of alloc()'s
// encoding (shapeGuard), so a member cannot make Lattigo's decoder recurse
// on a forged length field —, checks each with check (if not nil) and sums them with add: the
// first decoded share becomes the aggregate. A decoding or aggregation error
// — or a Lattigo panic, reported as "protocol: <what> share" or "<what>
// aggregate" — names the member.
func aggregateShares[S any, PS share[S]](what string, members []transport.MemberID, payloads map[transport.MemberID][]byte,
	alloc func() S, check func(transport.MemberID, S) error, add func(a, b S, out *S) error) (S, error) {
	agg := alloc()
	guard, err := shapeGuard(alloc())
	if err != nil {
		return agg, fmt.Errorf("protocol: %s share template: %w", what, err)
	}
	for i, id := range members {
		if guard != nil {
			if err := guard(payloads[id]); err != nil {
				return agg, fmt.Errorf("member %d: protocol: %s share: %w", id, what, err)
			}
		}
		sh := alloc()
		if err := safe(what+" share", func() error { return PS(&sh).UnmarshalBinary(payloads[id]) }); err != nil {
			return agg, fmt.Errorf("member %d: %w", id, err)
		}
		if check != nil {
			if err := check(id, sh); err != nil {
				return agg, err
			}
		}
		if i == 0 {
			agg = sh
			continue
		}
		if err := safe(what+" aggregate", func() error { return add(agg, sh, &agg) }); err != nil {
			return agg, fmt.Errorf("member %d: %w", id, err)
		}
	}
	return agg, nil
}

// safe runs f and turns a panic from Lattigo (e.g. on a malformed share)
// into an error.
func safe(what string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("protocol: %s: %v", what, r)
		}
	}()
	return f()
}

// memberIDBytes is ids as consecutive 4-byte big-endian words: how the
// ledger keys of the refresh, refresh-transform and re-encryption shares
// bind their active set.
func memberIDBytes(ids []transport.MemberID) []byte {
	out := make([]byte, 0, 4*len(ids))
	for _, id := range ids {
		out = binary.BigEndian.AppendUint32(out, uint32(id))
	}
	return out
}

func contains(ids []transport.MemberID, id transport.MemberID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// ErrCopiesDiffer is returned by AgreedFromActive to a receiver that is not
// active when the active members sent different values.
var ErrCopiesDiffer = errors.New("protocol: the active members sent different values")

// AgreedFromActive is a round in which the t active members each compute
// the same value independently and send it to every receiver. An active
// member computes it with produce, broadcasts it and returns it (it logs
// a warning when another active member's copy differs). A receiver that
// is not active returns the value when every active member's copy is
// byte-identical — with at most t−1 corrupt members, one of the t is
// honest, so an agreed value is the right one — and ErrCopiesDiffer
// otherwise (the caller computes the value itself). A missing active
// member fails the round with ErrMissing.
func AgreedFromActive(ctx context.Context, g Group, typ transport.Type, session string, active, receivers []transport.MemberID, what string, produce func() ([]byte, error)) ([]byte, error) {
	copies, err := exchangeActive(ctx, g, typ, session, active, receivers, what, produce)
	if err != nil {
		return nil, err
	}
	var first []byte
	same := true
	for i, id := range active {
		if i == 0 {
			first = copies[id]
		} else if !bytes.Equal(first, copies[id]) {
			same = false
		}
	}
	if contains(active, g.Self()) {
		if !same {
			g.log().Warn(what+": an active member sent a value that differs from this member's", zap.String("session", session))
		}
		return copies[g.Self()], nil
	}
	if !same {
		return nil, fmt.Errorf("%w (%s, session %s)", ErrCopiesDiffer, what, session)
	}
	return first, nil
}
