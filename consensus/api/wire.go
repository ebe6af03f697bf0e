package api

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/api/uploadwire"
	"github.com/fhegate/fhegate/fhe"
)

// InputAttestation is the quorum attestation of one upload that
// FHEInput.registerBatch checks: the members' aggregate BLS signature over
// bls.InputBatchDigest(chainId, Epoch, Owner, Preset,
// bls.InputBatchRoot(Items)).
type InputAttestation struct {
	Owner  [20]byte
	Preset uint8
	Epoch  uint64
	// Items are the upload's (handle, ctype, proof digest) in upload order —
	// registerBatch's handles, ctypes and proofDigests. ProofDigest is
	// keccak256 of the proof of plaintext knowledge (fhe/zkpok) every signer
	// verified before signing; the chain binds it through the root.
	Items     []bls.InputItem
	Signature []byte // aggregate BLS over bls.InputBatchDigest
	Signers   []byte // bitmap
	// Handle is Items[0].Handle, the handle of a one-ciphertext Upload.
	Handle fhe.Handle
	// Root, set for a rooted upload (UploadBatchRooted) whose root round
	// reached a quorum, places Digest(chainId) in an input root the
	// committee signed for Epoch (FHEPolicy.evaluateRooted); nil otherwise.
	Root *InputRootAttestation
}

// Digest is the message the attestation signs for chainID.
func (a *InputAttestation) Digest(chainID *big.Int) [32]byte {
	return bls.InputBatchDigest(chainID, a.Epoch, a.Owner, a.Preset, bls.InputBatchRoot(a.Items))
}

// Handles, CTypes and ProofDigests are the attestation's items as
// FHEInput.registerBatch's array arguments.
func (a *InputAttestation) Handles() [][32]byte {
	out := make([][32]byte, len(a.Items))
	for i, it := range a.Items {
		out[i] = it.Handle
	}
	return out
}

// CTypes: see Handles.
func (a *InputAttestation) CTypes() []uint8 {
	out := make([]uint8, len(a.Items))
	for i, it := range a.Items {
		out[i] = it.CType
	}
	return out
}

// ProofDigests: see Handles.
func (a *InputAttestation) ProofDigests() [][32]byte {
	out := make([][32]byte, len(a.Items))
	for i, it := range a.Items {
		out[i] = it.ProofDigest
	}
	return out
}

// InputUpload is one ciphertext of an upload: canonical bytes, its proof of
// plaintext knowledge bound to the upload's owner, and the ctype tag
// FHEInput records.
type InputUpload struct {
	Ciphertext, Proof []byte
	CType             uint8
}

// MaxConcurrentStorePuts bounds the StorePut requests a member handles at
// once (what a client paces its uploads by: bench/load) (each validates and fsyncs a ciphertext of up to
// store.MaxCiphertext). A StorePut arriving beyond the bound is not run: it
// is answered at once with a refusal (0 ‖ "busy: …"; at most 4 such answers
// in flight to one peer, beyond which it is dropped with a log), and the
// uploader attests with the other members' signatures; the refusal keeps
// the uploader from counting the member missing and marking it down when
// another peer filled its slots. Without the bound every received message
// spawned a goroutine, so a peer (or an upload flood through the client
// API) could pin unbounded memory and disk bandwidth on every member.
const MaxConcurrentStorePuts = 16

// Upload bounds. MaxUploadItems ciphertexts at most per upload (so one
// request can carry the 8 attributes of the KYC/AML policy, with room), and
// MaxUploadBytes of ciphertexts and proofs together, so that one StorePut
// stays under transport.DefaultMaxMessage: 16 fresh BGVN13 ciphertexts with
// their proofs (≈ 1.8 MB each: 0.66 MB of ciphertext and a 1.16 MB proof of
// 10 repetitions that carries the upload's residues mod P), or 11 BGVN14
// ones (≈ 4.95 MB each: 2.6 MB and 2.33 MB). FHEInput.registerBatch takes up to
// precompiles.MaxInputBatch (64) handles.
const (
	MaxUploadItems = uploadwire.MaxItems
	MaxUploadBytes = 56 << 20
)

// InputRootAttestation is an upload's place in an input root and the
// committee's aggregate signature over
// bls.InputRootDigest(chainId, epoch, Root), epoch being the enclosing
// InputAttestation's Epoch: FHEPolicy.evaluateRooted's root, index, path,
// signature and signers.
type InputRootAttestation struct {
	Root      [32]byte
	Index     uint64
	Path      [][32]byte // siblings from the leaf up (≤ bls.MaxInputRootDepth)
	Signature []byte     // aggregate BLS over bls.InputRootDigest
	Signers   []byte     // bitmap
}

// ErrNoRoot is returned by InputAttestation.RootDigest for an attestation
// without a root, or whose path does not lead from its digest to its root.
var ErrNoRoot = errors.New("consensus: attestation has no input root for this chain")

// RootDigest checks that the attestation's own digest for chainID (its
// leaf) reaches a.Root.Root along a.Root.Path, and returns the message the
// root signature signs: bls.InputRootDigest(chainID, a.Epoch, root).
func (a *InputAttestation) RootDigest(chainID *big.Int) ([32]byte, error) {
	if a.Root == nil {
		return [32]byte{}, ErrNoRoot
	}
	got, err := bls.InputRootFromPath(a.Digest(chainID), a.Root.Index, a.Root.Path)
	if err != nil {
		return [32]byte{}, err
	}
	if got != a.Root.Root {
		return [32]byte{}, fmt.Errorf("%w: the path of leaf %d leads to %x, not to %x", ErrNoRoot, a.Root.Index, got[:8], a.Root.Root[:8])
	}
	return bls.InputRootDigest(chainID, a.Epoch, a.Root.Root), nil
}

// UploadRequest is the body of POST /v1/inputs: one owner's upload of
// 1…MaxUploadItems ciphertexts, attested as one set. Inputs lists them; the
// top-level Ciphertext, CType and Proof are the shorthand for a one-input
// upload (not both).
type UploadRequest struct {
	Owner  string        `json:"owner"` // 0x-prefixed 20-byte account allowed to use them
	Inputs []UploadInput `json:"inputs,omitempty"`

	Ciphertext string `json:"ciphertext,omitempty"`
	CType      uint8  `json:"ctype,omitempty"`
	Proof      string `json:"proof,omitempty"`

	// Rooted asks for an input root as well (Member.UploadBatchRooted): the
	// answer's "root" places the upload in a Merkle root the committee
	// signed once for many uploads (FHEPolicy.evaluateRooted). The upload
	// is answered without "root" if the root round fails.
	Rooted bool `json:"rooted,omitempty"`
}

// UploadInput is one ciphertext of an UploadRequest.
type UploadInput struct {
	Ciphertext string `json:"ciphertext"` // hex (0x optional) canonical ciphertext
	CType      uint8  `json:"ctype"`      // ciphertext type tag recorded by FHEInput (1)
	// Proof is the hex (0x optional) of an fhe/zkpok proof of plaintext
	// knowledge bound to (chain id, key epoch, owner, public-key digest,
	// ciphertext handle). Required: a missing or invalid proof is a 400.
	Proof string `json:"proof"`
}

// Items returns the request's ciphertexts (the shorthand as one input),
// 1…MaxUploadItems of them.
func (r *UploadRequest) Items() ([]UploadInput, error) {
	single := r.Ciphertext != "" || r.Proof != "" || r.CType != 0
	switch {
	case single && len(r.Inputs) > 0:
		return nil, errors.New("give either \"inputs\" or one \"ciphertext\"/\"proof\"/\"ctype\", not both")
	case single:
		return []UploadInput{{Ciphertext: r.Ciphertext, CType: r.CType, Proof: r.Proof}}, nil
	case len(r.Inputs) == 0:
		return nil, errors.New("no ciphertext: \"inputs\" is empty")
	case len(r.Inputs) > MaxUploadItems:
		return nil, fmt.Errorf("%d ciphertexts in one upload, at most %d", len(r.Inputs), MaxUploadItems)
	}
	return r.Inputs, nil
}

// AttestationJSON is an InputAttestation as JSON (hex fields, 0x-prefixed):
// the arguments of FHEInput.registerBatch(owner, preset, handles, ctypes,
// proofDigests, signature, signers), in upload order, plus the epoch.
type AttestationJSON struct {
	Owner        string   `json:"owner"`
	Preset       uint8    `json:"preset"`
	Epoch        uint64   `json:"epoch"`
	Handles      []string `json:"handles"`
	CTypes       []uint16 `json:"ctypes"`       // numbers (a []uint8 would marshal as base64, which ethers.js refuses as uint8[])
	ProofDigests []string `json:"proofDigests"` // keccak256 of each verified proof
	Signature    string   `json:"signature"`    // aggregate over bls.InputBatchDigest
	Signers      string   `json:"signers"`
	// Root is set for a rooted upload whose root round reached a quorum.
	Root *InputRootJSON `json:"root,omitempty"`
}

// InputRootJSON is an InputRootAttestation as JSON (hex fields,
// 0x-prefixed): FHEPolicy.evaluateRooted's root, index, path, signature
// (aggregate over bls.InputRootDigest(chainId, epoch, root), epoch being the
// attestation's) and signers.
type InputRootJSON struct {
	Root      string   `json:"root"`
	Index     uint64   `json:"index"`
	Path      []string `json:"path"` // siblings from the leaf up
	Signature string   `json:"signature"`
	Signers   string   `json:"signers"`
}

func hex0x(b []byte) string { return "0x" + hex.EncodeToString(b) }

// JSON converts the attestation.
func (a *InputAttestation) JSON() AttestationJSON {
	j := AttestationJSON{Owner: hex0x(a.Owner[:]), Preset: a.Preset, Epoch: a.Epoch,
		Signature: hex0x(a.Signature), Signers: hex0x(a.Signers), CTypes: make([]uint16, len(a.Items))}
	for i, it := range a.Items {
		j.Handles = append(j.Handles, hex0x(it.Handle[:]))
		j.CTypes[i] = uint16(it.CType)
		j.ProofDigests = append(j.ProofDigests, hex0x(it.ProofDigest[:]))
	}
	if r := a.Root; r != nil {
		j.Root = &InputRootJSON{Root: hex0x(r.Root[:]), Index: r.Index, Path: make([]string, len(r.Path)),
			Signature: hex0x(r.Signature), Signers: hex0x(r.Signers)}
		for i, s := range r.Path {
			j.Root.Path[i] = hex0x(s[:])
		}
	}
	return j
}

// Headers of GET /v1/publickey: the key epoch and chain id an input proof
// (fhe/zkpok Context) must be bound to.
const (
	HeaderEpoch   = "X-Fhegate-Epoch"
	HeaderChainID = "X-Fhegate-Chain-Id"
)

// ParseOwner parses a 0x-prefixed 20-byte address.
func ParseOwner(s string) ([20]byte, error) {
	var out [20]byte
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil || len(b) != 20 {
		return out, fmt.Errorf("owner %q is not a 20-byte hex address", s)
	}
	copy(out[:], b)
	return out, nil
}

// Status summarises a member: the body of GET /v1/status
// (consensus.Member.Status).
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
	Refreshes uint64 `json:"refreshes"`
	// Evaluations counts the circuit runs this member completed since it
	// started: one per request evaluated alone, one per packed batch (and
	// one per re-run of an out-of-range batch's parts, consensus/pipeline/isolate.go).
	Evaluations uint64 `json:"evaluations"`
	// DecidedDropped counts requests the serve loop dropped instead of
	// processing or retrying them because their verdict was already on
	// chain (a member that fell behind catching up).
	DecidedDropped uint64 `json:"decidedDropped"`
	// Progress is the highest block whose requests the serve loop handled
	// (the heartbeat's payload, liveness.go).
	Progress uint64 `json:"progress"`
	// RequestsSeen counts the requests the serve loop took from the chain
	// since the member started (not those already answered when they came).
	RequestsSeen uint64 `json:"requestsSeen"`
	// Unanswered is how many of them have no verdict on chain as far as
	// this member knows, expired ones left out: waiting in a packing window,
	// being evaluated or retried, given up, or with a verdict transaction
	// that failed or is not mined. It growing while requests keep coming is
	// a committee (or its relayer) that is stuck.
	Unanswered int `json:"unanswered"`
	// OldestUnanswered is the block of the oldest unanswered request (0:
	// none).
	OldestUnanswered uint64   `json:"oldestUnansweredBlock,omitempty"`
	Down             []uint32 `json:"down,omitempty"`
	// Equivocations are the members this member caught revealing a share
	// that does not match their commitment (each aborted its round), the
	// most recent last.
	Equivocations []Equivocation `json:"equivocations,omitempty"`
}

// Equivocation is one identifiable abort: the member and the round.
type Equivocation struct {
	Member  uint32 `json:"member"`
	Session string `json:"session"`
	Reason  string `json:"reason"`
}
