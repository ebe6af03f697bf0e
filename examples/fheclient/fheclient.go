// Package fheclient is the small client library the examples share: it
// encrypts values (each replicated in every slot, or all of them in one
// vector input) under an fhegate
// committee's public key and uploads them as one set to the committee's
// client API for one quorum attestation (FHEInput.registerBatch), and it sends
// transactions from one key and waits for their receipts. It uses only
// public APIs (the committee's HTTP API, ethclient, the abigen bindings), so
// it is what a dApp would write.
package fheclient

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ava-labs/libevm/accounts/abi/bind"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/ethclient"

	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/contracts/bindings"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/zkpok"
	"github.com/fhegate/fhegate/policy"
)

// Attestation is a committee's quorum attestation of one upload: the
// arguments of FHEInput.registerBatch and FHEInput.registerSet.
type Attestation struct {
	Owner        common.Address
	Preset       uint8
	Handles      [][32]byte
	CTypes       []uint8
	ProofDigests [][32]byte // keccak256 of each input's proof, bound on chain
	Signature    []byte
	Signers      []byte
	// Root places the upload in an input root the committee signed once for
	// many uploads (UploadRooted; nil for Upload, or when the committee's
	// root round failed): FHEPolicy.evaluateRooted's root, index, path,
	// signature and signers.
	Root *api.InputRootAttestation
}

// PayDeposit sets opts.Value, when unset, to policyID's deposit
// (FHEPolicy.depositOf): the exact value every request of a packed policy
// carries. The chain pays it back to the requester with the verdict and
// burns it when the verdict is ResultRejectedInput (an input outside the
// policy's range); a policy evaluated alone takes none.
func PayDeposit(opts *bind.TransactOpts, policy *bindings.IFHEPolicy, policyID [32]byte) error {
	if opts.Value != nil {
		return nil
	}
	d, err := policy.DepositOf(&bind.CallOpts{Context: opts.Context}, policyID)
	if err != nil {
		return fmt.Errorf("fheclient: FHEPolicy.depositOf: %w", err)
	}
	opts.Value = d
	return nil
}

// Evaluate requests an evaluation of policyID on the upload's inputs, by
// their owner (opts.From), with the committee's attestation inline — no
// FHEInput registration, one transaction:
//
//   - with a Root, FHEPolicy.evaluateRooted. The root's signature is left
//     out when the chain already verified the root in this epoch (the gas
//     estimate without it succeeds: the request pays two reads instead of
//     the pairing) and sent otherwise; with opts.GasLimit set there is no
//     estimate and it is always sent (the chain skips verifying a known
//     root either way).
//   - without one, FHEPolicy.evaluateAttested (one pairing).
//
// The request carries the policy's deposit (PayDeposit) unless opts.Value
// is already set.
func (a *Attestation) Evaluate(opts *bind.TransactOpts, policy *bindings.IFHEPolicy, policyID [32]byte) (*types.Transaction, error) {
	if err := PayDeposit(opts, policy, policyID); err != nil {
		return nil, err
	}
	r := a.Root
	if r == nil {
		return policy.EvaluateAttested(opts, policyID, a.Preset, a.Handles, a.CTypes, a.ProofDigests, a.Signature, a.Signers)
	}
	if r.Index > math.MaxUint32 {
		return nil, fmt.Errorf("fheclient: root index %d", r.Index)
	}
	send := func(sig, signers []byte) (*types.Transaction, error) {
		return policy.EvaluateRooted(opts, policyID, a.Preset, a.Handles, a.CTypes, a.ProofDigests, r.Root, uint32(r.Index), r.Path, sig, signers)
	}
	if opts.GasLimit == 0 {
		if tx, err := send(nil, nil); err == nil || !strings.Contains(err.Error(), "is not yet verified") {
			return tx, err
		}
	}
	return send(r.Signature, r.Signers)
}

// Register sends FHEInput.registerBatch(a) with opts: one transaction and
// one BLS verification for every handle of the upload.
func (a *Attestation) Register(opts *bind.TransactOpts, input *bindings.IFHEInput) (*types.Transaction, error) {
	return input.RegisterBatch(opts, a.Owner, a.Preset, a.Handles, a.CTypes, a.ProofDigests, a.Signature, a.Signers)
}

// RegisterSet sends FHEInput.registerSet(a) with opts: the upload as one
// input set — one storage slot instead of one per handle (8 handles:
// 139,528 gas against 307,848, docs/gas.md). FHEPolicy.evaluate with exactly
// a.Handles, in this order, by the owner (or an account the owner allowed
// with FHEInput.allowSet) then checks the set once. The handles are not in
// the per-handle registry: use Register for inputs that are granted to a
// contract one by one (allow) or captured in FHECRDT state.
func (a *Attestation) RegisterSet(opts *bind.TransactOpts, input *bindings.IFHEInput) (*types.Transaction, error) {
	return input.RegisterSet(opts, a.Owner, a.Preset, a.Handles, a.CTypes, a.ProofDigests, a.Signature, a.Signers)
}

// Committee is a committee member's client API (GET /v1/publickey,
// POST /v1/inputs).
type Committee struct {
	API   string
	Token string // bearer token of the API ("" on a loopback devnet)
	// Level is the level inputs are encrypted at; 0 means the upload level
	// (zkpok.UploadLevel: the level the committee packs inputs at, a third
	// of the top level's bytes on bgv-n14). A CRDT set writer whose state
	// the committee values above the upload level (circuit.NewCRDT's
	// working level: the membership polynomial's depth above the refresh
	// floor) sets a higher one, up to Params.MaxLevel().
	Level int

	once sync.Once
	pk   *fhe.PublicKey
	key  *zkpok.Key
	ctx  zkpok.Context // chain id and key epoch from GET /v1/publickey
	err  error
}

// PublicKey fetches (once) the committee's public key.
func (c *Committee) PublicKey(ctx context.Context) (*fhe.PublicKey, error) {
	c.once.Do(func() {
		var ann *api.KeyAnnouncement
		if ann, c.err = api.FetchKeyAnnouncement(ctx, c.API); c.err != nil {
			c.err = fmt.Errorf("fheclient: %w", c.err)
			return
		}
		if c.pk, c.err = fhe.UnmarshalPublicKey(ann.PublicKey); c.err != nil {
			c.err = fmt.Errorf("fheclient: committee public key: %w", c.err)
			return
		}
		if c.Level == 0 {
			c.key, c.err = zkpok.NewUploadKey(c.pk)
		} else {
			c.key, c.err = zkpok.NewKeyAt(c.pk, c.Level)
		}
		if c.err != nil {
			c.err = fmt.Errorf("fheclient: committee public key: %w", c.err)
			return
		}
		c.ctx = ann.Proof
	})
	return c.pk, c.err
}

// Upload encrypts each of values replicated in every slot (one ciphertext
// per value: the committee's packed evaluation masks the slot of each
// request, so every slot must hold the value) under the committee's public
// key, each with a proof of plaintext knowledge bound to owner, the chain
// and the key epoch (fhe/zkpok), and posts them as one set to the committee
// API, which verifies every proof, stores and replicates the ciphertexts
// and returns one quorum attestation for the set; the attested owner,
// handles and proof digests are checked against what was sent.
func (c *Committee) Upload(ctx context.Context, owner common.Address, values ...int64) (*Attestation, error) {
	return c.upload(ctx, owner, false, false, values)
}

// UploadVector is UploadRooted for one vector input: all of values in ONE
// ciphertext (every aligned block of K' slots holds them in order,
// fhe.Params.VectorInts) with one proof, so the attestation has one handle.
// FHEPolicy takes that one handle for a policy of len(values) inputs
// (Attestation.Evaluate); the committee masks one ciphertext per request
// instead of one per attribute (the fast path of its packed batches) and
// answers a policy that does not compile for packed batches unevaluable.
func (c *Committee) UploadVector(ctx context.Context, owner common.Address, values ...int64) (*Attestation, error) {
	return c.upload(ctx, owner, true, true, values)
}

// UploadDecision uploads one request's inputs for a compiled policy as ONE
// vector input: values are the policy's declared inputs in order, as
// decimal strings, and each wide unsigned integer (uint8 … uint64) is split
// into its base-16 digits, least significant first
// (policy.Plan.DecisionRow), so a 64-bit amount travels as 16 slots of the
// same ciphertext under one proof. Values outside an input's declared
// range are refused before anything is encrypted.
func (c *Committee) UploadDecision(ctx context.Context, owner common.Address, plan *policy.Plan, values ...string) (*Attestation, error) {
	row, err := plan.DecisionRow(values)
	if err != nil {
		return nil, fmt.Errorf("fheclient: %w", err)
	}
	return c.UploadVector(ctx, owner, row...)
}

// UploadRooted is Upload asking the committee for an input root as well
// (POST /v1/inputs with "rooted": true): the member puts the upload's
// attestation digest into one Merkle root with the other uploads it
// receives before its root batch closes, and the committee signs that root once,
// so the chain verifies one pairing per root instead of one per upload
// (Attestation.Evaluate → FHEPolicy.evaluateRooted). The path from this
// upload's digest to the root is checked here. Root is nil when the
// committee's root round failed; the per-upload attestation still stands.
func (c *Committee) UploadRooted(ctx context.Context, owner common.Address, values ...int64) (*Attestation, error) {
	return c.upload(ctx, owner, true, false, values)
}

func (c *Committee) upload(ctx context.Context, owner common.Address, rooted, vector bool, values []int64) (*Attestation, error) {
	pk, err := c.PublicKey(ctx)
	if err != nil {
		return nil, err
	}
	pctx := c.ctx
	pctx.Owner = owner
	vecs, err := api.InputSlotVectors(pk.Params(), vector, values)
	if err != nil {
		return nil, fmt.Errorf("fheclient: %w", err)
	}
	ups := make([]api.InputUpload, len(vecs))
	for i, v := range vecs {
		ct, proof, err := c.key.EncryptInts(v, pctx)
		if err != nil {
			return nil, err
		}
		if ups[i].Ciphertext, err = ct.MarshalBinary(); err != nil {
			return nil, err
		}
		ups[i].Proof, ups[i].CType = proof, 1
	}
	var att *api.InputAttestation
	if rooted {
		att, err = api.UploadInputsRooted(ctx, c.API, c.Token, c.ctx.ChainID, owner, ups)
	} else {
		att, err = api.UploadInputs(ctx, c.API, c.Token, owner, ups)
	}
	if err != nil {
		return nil, fmt.Errorf("fheclient: upload: %w", err)
	}
	return &Attestation{Owner: common.Address(att.Owner), Preset: att.Preset, Handles: att.Handles(), CTypes: att.CTypes(),
		ProofDigests: att.ProofDigests(), Signature: att.Signature, Signers: att.Signers, Root: att.Root}, nil
}

// HTTP does one request and returns the body of a 200 answer (at most 8 MiB);
// any other status is an error carrying the body.
func HTTP(ctx context.Context, method, url string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: %s: %s", method, url, resp.Status, strings.TrimSpace(string(b)))
	}
	return b, nil
}

// Sender sends transactions from one key and waits for their receipts.
type Sender struct {
	Client  *ethclient.Client
	Key     *ecdsa.PrivateKey
	ChainID *big.Int

	Count int            // transactions mined
	Last  *types.Receipt // the last receipt
}

// Send builds a transaction with fresh options and waits until it is mined.
// A revert is an error: gas estimation runs the call first and reports the
// reason; a mined failure is reported by status.
func (s *Sender) Send(ctx context.Context, build func(*bind.TransactOpts) (*types.Transaction, error)) error {
	o, err := bind.NewKeyedTransactorWithChainID(s.Key, s.ChainID)
	if err != nil {
		return err
	}
	o.Context = ctx
	tx, err := build(o)
	if err != nil {
		return err
	}
	r, err := bind.WaitMined(ctx, s.Client, tx)
	if err != nil {
		return err
	}
	s.Count++
	s.Last = r
	if r.Status != types.ReceiptStatusSuccessful {
		return fmt.Errorf("transaction %s reverted", tx.Hash())
	}
	return nil
}

// ReadPrivate reads handle privately: signer (an account FHEInput's ACL
// allows on the handle) signs an EIP-712 request towards the reader's own
// FHE key pair (mine: the key pair of fhe.GenKeys, kept — each member
// shares a handle towards a few keys only, ever), every member behind
// apis (at least t of them) re-encrypts its share of the handle to
// mine.Public, and the shares are combined and decrypted here. It returns
// the slot values centred in (−t/2, t/2]. c.API supplies the chain id
// the signature binds.
func (c *Committee) ReadPrivate(ctx context.Context, apis []string, signer *ecdsa.PrivateKey, handle [32]byte, mine *fhe.KeySet, validFor time.Duration) ([]int64, error) {
	if _, err := c.PublicKey(ctx); err != nil {
		return nil, err
	}
	pkb, err := mine.Public.MarshalBinary()
	if err != nil {
		return nil, err
	}
	var nb [8]byte
	if _, err := rand.Read(nb[:]); err != nil {
		return nil, err
	}
	req, err := api.SignPrivateRead(signer, c.ctx.ChainID, handle, pkb, binary.BigEndian.Uint64(nb[:])|1, uint64(time.Now().Add(validFor).Unix()))
	if err != nil {
		return nil, err
	}
	u, err := api.ReadPrivate(ctx, apis, c.Token, req, mine.Secret)
	if err != nil {
		return nil, fmt.Errorf("fheclient: %w", err)
	}
	return fhe.Centre(u, mine.Secret.Params().PlaintextModulus()), nil
}
