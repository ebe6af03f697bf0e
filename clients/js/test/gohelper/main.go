// Command gohelper is the Go side of @fhegate/client's cross-check test
// (clients/js/test/client.test.mjs): it generates a committee-like key
// pair, verifies an upload body the WebAssembly client produced with the
// committee's own decoder and verifier (and decrypts it against the
// plaintext), and encrypts with the Go client's code path for the
// WebAssembly verifier to check. Not for production use: it writes a
// secret key to disk.
//
//	gohelper keygen DIR PRESET     writes DIR/pk.bin and DIR/sk.bin
//	gohelper check DIR < job.json  verifies job.body; prints {"handles","proofDigests"} (and "row" with job.policy)
//	gohelper encrypt DIR < job.json encrypts job.values; prints {"body","inputs","handles","proofDigests"}
//	gohelper committee DIR OWNERKEY  a 2-of-3 committee for private reads (committee.go)
package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"

	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/zkpok"
	"github.com/fhegate/fhegate/policy"
)

// job is what the Node test sends on stdin.
type job struct {
	ChainID string   `json:"chainId"`
	Epoch   uint64   `json:"epoch"`
	Owner   string   `json:"owner"`
	Vector  bool     `json:"vector"`
	Values  []int64  `json:"values"`
	Body    string   `json:"body"` // check: the hex of a binary POST /v1/inputs body
	Rooted  bool     `json:"rooted"`
	Handles []string `json:"handles"` // check: what the client claims
	// Policy (YAML), if set: Values are ignored and the slots are the
	// policy's input row of Declared (policy.Plan.DecisionRow: wide
	// integers as base-16 digits), as the Go client encodes them.
	Policy   string   `json:"policy"`
	Declared []string `json:"declared"`
}

type result struct {
	Body         string     `json:"body,omitempty"`   // encrypt: the hex of the Go client's binary body
	Inputs       []hexInput `json:"inputs,omitempty"` // encrypt: its ciphertexts and proofs
	Handles      []string   `json:"handles"`
	ProofDigests []string   `json:"proofDigests"`
	Row          []int64    `json:"row,omitempty"` // with a policy: the Go client's input row
}

type hexInput struct {
	Ciphertext string `json:"ciphertext"`
	Proof      string `json:"proof"`
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gohelper:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: gohelper keygen|check|encrypt DIR [PRESET]")
	}
	dir := args[1]
	if args[0] == "committee" {
		if len(args) != 3 {
			return fmt.Errorf("committee DIR OWNERKEY")
		}
		return privateReadCommittee(dir, args[2])
	}
	if args[0] == "keygen" {
		if len(args) != 3 {
			return fmt.Errorf("keygen DIR PRESET")
		}
		return keygen(dir, args[2])
	}
	var j job
	if err := json.NewDecoder(io.LimitReader(os.Stdin, 256<<20)).Decode(&j); err != nil {
		return fmt.Errorf("job: %w", err)
	}
	pkb, err := os.ReadFile(filepath.Join(dir, "pk.bin"))
	if err != nil {
		return err
	}
	pk, err := fhe.UnmarshalPublicKey(pkb)
	if err != nil {
		return err
	}
	key, err := zkpok.NewUploadKey(pk) // as clients encrypt; its Verify takes every level from there up
	if err != nil {
		return err
	}
	owner, err := api.ParseOwner(j.Owner)
	if err != nil {
		return err
	}
	chain, ok := new(big.Int).SetString(j.ChainID, 10)
	if !ok {
		return fmt.Errorf("chain id %q", j.ChainID)
	}
	pctx := zkpok.Context{ChainID: chain, Epoch: j.Epoch, Owner: owner}
	var res result
	if j.Policy != "" {
		plan, err := policy.Compile([]byte(j.Policy))
		if err != nil {
			return err
		}
		if j.Values, err = plan.DecisionRow(j.Declared); err != nil {
			return err
		}
	}
	want, err := api.InputSlotVectors(pk.Params(), j.Vector, j.Values)
	if err != nil {
		return err
	}
	switch args[0] {
	case "check":
		skb, err := os.ReadFile(filepath.Join(dir, "sk.bin"))
		if err != nil {
			return err
		}
		sk, err := fhe.UnmarshalSecretKey(skb)
		if err != nil {
			return err
		}
		if res, err = check(key, sk, pctx, j, want); err != nil {
			return err
		}
	case "encrypt":
		owner, err := api.ParseOwner(j.Owner)
		if err != nil {
			return err
		}
		var ups []api.InputUpload
		for _, v := range want {
			ct, proof, err := key.EncryptInts(v, pctx)
			if err != nil {
				return err
			}
			b, err := ct.MarshalBinary()
			if err != nil {
				return err
			}
			ups = append(ups, api.InputUpload{Ciphertext: b, Proof: proof, CType: 1})
			res.Inputs = append(res.Inputs, hexInput{Ciphertext: "0x" + hex.EncodeToString(b), Proof: "0x" + hex.EncodeToString(proof)})
			h, d := fhe.HandleOf(b), zkpok.Digest(proof)
			res.Handles = append(res.Handles, "0x"+hex.EncodeToString(h[:]))
			res.ProofDigests = append(res.ProofDigests, "0x"+hex.EncodeToString(d[:]))
		}
		body, err := api.UploadBody(owner, ups, j.Rooted)
		if err != nil {
			return err
		}
		res.Body = "0x" + hex.EncodeToString(body)
	default:
		return fmt.Errorf("unknown command %q", args[0])
	}
	if j.Policy != "" {
		res.Row = j.Values
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

func keygen(dir, preset string) error {
	pr, err := fhe.PresetByName(preset)
	if err != nil {
		return err
	}
	p, err := fhe.NewParams(pr.ID)
	if err != nil {
		return err
	}
	sk, pk := rlwe.NewKeyGenerator(p.RLWE()).GenKeyPairNew()
	pkb, err := fhe.WrapPublicKey(p, pk).MarshalBinary()
	if err != nil {
		return err
	}
	skb, err := fhe.WrapSecretKey(p, sk).MarshalBinary()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "pk.bin"), pkb, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "sk.bin"), skb, 0o600)
}

// check reads the body as the member's API does (uploadwire), checks that
// it is byte for byte the Go client's encoding of the same upload, verifies
// every proof, decrypts every ciphertext against the slot vectors the
// values make, and returns the handles and proof digests.
func check(key *zkpok.Key, sk *fhe.SecretKey, pctx zkpok.Context, j job, want [][]int64) (result, error) {
	var res result
	body, err := hex.DecodeString(strings.TrimPrefix(j.Body, "0x"))
	if err != nil {
		return res, fmt.Errorf("body is not hex: %w", err)
	}
	bodyOwner, rooted, ups, err := api.DecodeUploadBody(body, 1<<26, 1<<26)
	if err != nil {
		return res, fmt.Errorf("body: %w", err)
	}
	owner, err := api.ParseOwner(j.Owner)
	if err != nil {
		return res, err
	}
	again, err := api.UploadBody(bodyOwner, ups, rooted)
	if err != nil {
		return res, err
	}
	if !bytes.Equal(again, body) {
		return res, fmt.Errorf("body is not the Go client's encoding of the same upload (%d bytes, Go's %d)", len(body), len(again))
	}
	if bodyOwner != owner || rooted != j.Rooted || len(ups) != len(want) {
		return res, fmt.Errorf("body: owner %x rooted %v with %d inputs, want %s %v %d", bodyOwner, rooted, len(ups), j.Owner, j.Rooted, len(want))
	}
	dec := fhe.NewDecryptor(sk)
	for i, up := range ups {
		ctb, proof := up.Ciphertext, up.Proof
		if up.CType != 1 {
			return res, fmt.Errorf("input %d: ctype %d", i, up.CType)
		}
		ct, err := fhe.UnmarshalCiphertext(ctb)
		if err != nil {
			return res, fmt.Errorf("input %d: %w", i, err)
		}
		if ct.Level() != key.Level() {
			return res, fmt.Errorf("input %d at level %d, clients upload at the upload level %d", i, ct.Level(), key.Level())
		}
		h := fhe.HandleOf(ctb)
		if err := key.Verify(ct, h, pctx, proof); err != nil {
			return res, fmt.Errorf("input %d: %w", i, err)
		}
		got, err := dec.DecryptInts(ct)
		if err != nil {
			return res, fmt.Errorf("input %d: %w", i, err)
		}
		t := int64(sk.Params().PlaintextModulus())
		if !slices.EqualFunc(got, want[i], func(a, b int64) bool { return ((a-b)%t+t)%t == 0 }) {
			return res, fmt.Errorf("input %d decrypts to %v…, want %v…", i, got[:8], want[i][:8])
		}
		d := zkpok.Digest(proof)
		res.Handles = append(res.Handles, "0x"+hex.EncodeToString(h[:]))
		res.ProofDigests = append(res.ProofDigests, "0x"+hex.EncodeToString(d[:]))
	}
	if j.Handles != nil && !slices.EqualFunc(j.Handles, res.Handles, strings.EqualFold) {
		return res, fmt.Errorf("client handles %v, the member computes %v", j.Handles, res.Handles)
	}
	return res, nil
}
