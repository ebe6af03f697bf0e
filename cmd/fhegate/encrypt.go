package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/config"
	"github.com/fhegate/fhegate/fhe"
)

func parseInts(s string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("value %q: %w", f, err)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no values")
	}
	return out, nil
}

// encryptOptions are the flags of `fhegate encrypt`.
type encryptOptions struct {
	keyPath, values, outPath, submit, owner string
	policy                                  string
	ctype                                   uint8
	rooted, vector                          bool
	level                                   int
}

func newEncryptCmd(a *app) *cobra.Command {
	var o encryptOptions
	cmd := &cobra.Command{
		Use:   "encrypt",
		Short: "Encrypt integers (BGV slots) under the committee public key or your own key",
		Long: `Encrypts --values (slot 0, 1, …; BGV integers mod 65537) under --key: a public key file (the
committee's collective key, e.g. <dir>/committee.pk from 'fhegate committee dkg' or GET /v1/publickey,
or your own public.key from 'fhegate keys gen') or your own secret.key (seeded, half-size
ciphertext). Prints the handle (keccak256 of the canonical bytes).

With --submit URL each of --values is one input instead: encrypted alone, replicated in every slot
(the committee's packed evaluation masks one slot per request), with a proof of plaintext
knowledge bound to --owner and the chain id and key epoch the member announces (fhe/zkpok; --key
must be the committee key). The inputs are uploaded to the member's API as one set (at most 16),
replicated to the committee, and the one quorum attestation of the set is printed as JSON: the
arguments of FHEInput.registerBatch(owner, preset, handles, ctypes, proofDigests, signature,
signers). With --rooted the member also places the upload in an input root the committee signs
once for the uploads it attests together, and the JSON gains "root" (root, index, path, signature,
signers): with the fields above, the arguments of FHEPolicy.evaluateRooted, which --owner sends
(one pairing per root on chain instead of one per upload; docs/gas.md). FHEGATE_API_TOKEN, if set,
is sent as the API's bearer token.

With --vector (and --submit) all of --values are one vector input: one ciphertext whose every
aligned block of K' slots (K' the power of two ≥ the number of values) holds the values in order,
with one proof. A request names its one handle where the policy takes several
(FHEPolicy.evaluate*: one handle or one per input); the committee masks one ciphertext per request
instead of one per input and un-interleaves the attributes in the refresh of its packed batch. The
policy must compile for packed batches (else the committee answers the request unevaluable).

With --policy, --values are the policy's declared inputs in order, and each wide unsigned
integer (type uint8 … uint64) is split into its base-16 digits, least significant first, as the
policy's input slots "<name>.0", "<name>.1", … expect; values outside an input's declared range
are refused.`,
		Example: `  fhegate encrypt --key public.key --values 1,2,3 --out ct.bin
  fhegate encrypt --key committee/committee.pk --policy example:amounts/token_balance \
      --values 3000000000000000000 --vector --submit http://127.0.0.1:8600 --owner 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266
  fhegate encrypt --key committee/committee.pk --values 5,1 --submit http://127.0.0.1:8600 \
      --owner 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266
  fhegate encrypt --key committee/committee.pk --values 30,1,0,0,3,1,2,0 --vector --rooted \
      --submit http://127.0.0.1:8600 --owner 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runEncrypt(cmd.Context(), cmd.OutOrStdout(), o)
		},
	}
	cmd.Flags().StringVar(&o.keyPath, "key", "", "public key (committee or own) or own secret key file")
	cmd.Flags().StringVar(&o.values, "values", "", "comma-separated integers, slot 0 first")
	cmd.Flags().StringVar(&o.outPath, "out", "", "write the canonical ciphertext here")
	cmd.Flags().StringVar(&o.submit, "submit", "", "committee member API URL: upload and print the input attestation")
	cmd.Flags().StringVar(&o.owner, "owner", "", "0x account that may use the input (with --submit)")
	cmd.Flags().Uint8Var(&o.ctype, "ctype", 1, "ciphertext type tag recorded by FHEInput (with --submit)")
	cmd.Flags().BoolVar(&o.vector, "vector", false, "with --submit: encrypt all of --values as ONE vector input (one handle and one proof for every attribute of a request; FHEPolicy takes it for a policy of several inputs, and the committee masks one ciphertext per request instead of one per attribute)")
	cmd.Flags().StringVar(&o.policy, "policy", "", "a policy (FILE or example:NAME): --values are its declared inputs in order, and a wide unsigned integer (uint8 … uint64, up to 18446744073709551615) is split into its base-16 digits, least significant first — the policy's input slots (use with --vector: one ciphertext, one proof)")
	cmd.Flags().IntVar(&o.level, "level", -1, "with --submit: the level to encrypt at (-1: the upload level, the level the committee packs inputs at, a third of the top level's bytes on bgv-n14; a CRDT set writer whose state the committee values above it gives a higher one, up to the top level)")
	cmd.Flags().BoolVar(&o.rooted, "rooted", false, "with --submit: also get the upload's place in an input root (FHEPolicy.evaluateRooted's root, index, path, signature, signers)")
	_ = cmd.MarkFlagRequired("key")
	_ = cmd.MarkFlagRequired("values")
	return cmd
}

// encryptValues parses --values: plain integers, or with --policy the
// policy's declared inputs, wide ones split into digits.
func encryptValues(o encryptOptions) ([]int64, error) {
	if o.policy == "" {
		return parseInts(o.values)
	}
	p, err := compilePolicy(strings.NewReader(""), o.policy)
	if err != nil {
		return nil, err
	}
	row, err := p.DecisionRow(strings.Split(o.values, ","))
	if err != nil {
		return nil, fmt.Errorf("--values for policy %q: %w", p.Name, err)
	}
	return row, nil
}

// runEncrypt encrypts --values under --key and prints the handle or, with
// --submit, uploads one replicated ciphertext per value as one set and
// prints the committee's attestation.
func runEncrypt(ctx context.Context, out io.Writer, o encryptOptions) error {
	vals, err := encryptValues(o)
	if err != nil {
		return err
	}
	kb, err := os.ReadFile(o.keyPath)
	if err != nil {
		return err
	}
	if o.submit != "" {
		return submitInputs(ctx, out, o, kb, vals)
	}
	if o.vector {
		return fmt.Errorf("--vector needs --submit (a vector input is uploaded with its proof)")
	}
	var enc *fhe.Encryptor
	if pk, err := fhe.UnmarshalPublicKey(kb); err == nil {
		enc = fhe.NewEncryptor(pk)
	} else if sk, err2 := fhe.UnmarshalSecretKey(kb); err2 == nil {
		if enc, err = fhe.NewSymmetricEncryptor(sk); err != nil {
			return err
		}
	} else {
		return fmt.Errorf("%s is neither a public nor a secret key: %v", o.keyPath, err)
	}
	ct, err := enc.EncryptInts(vals)
	if err != nil {
		return err
	}
	b, err := ct.MarshalBinary()
	if err != nil {
		return err
	}
	if o.outPath != "" {
		if err := os.WriteFile(o.outPath, b, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "%s\n", fhe.HandleOf(b))
	return nil
}

// submitInputs encrypts each value replicated in every slot under the
// committee key kb with its proof for --owner, uploads them as one set to
// --submit and prints the attestation (FHEInput.registerBatch's arguments).
// With --out, a single input's ciphertext is also written there.
func submitInputs(ctx context.Context, out io.Writer, o encryptOptions, kb []byte, vals []int64) error {
	pk, err := fhe.UnmarshalPublicKey(kb)
	if err != nil {
		return fmt.Errorf("--submit needs the committee public key as --key: %v", err)
	}
	owner, err := api.ParseOwner(o.owner)
	if err != nil {
		return fmt.Errorf("--owner: %w", err)
	}
	if len(vals) > api.MaxUploadItems && !o.vector {
		return fmt.Errorf("--values: %d inputs, one upload takes at most %d", len(vals), api.MaxUploadItems)
	}
	if o.outPath != "" && len(vals) != 1 && !o.vector {
		return fmt.Errorf("--out with --submit writes one ciphertext: give one value (or --vector)")
	}
	ups, pctx, err := encryptInputs(ctx, o.submit, pk, owner, o.ctype, o.vector, o.level, vals)
	if err != nil {
		return err
	}
	if o.outPath != "" {
		if err := os.WriteFile(o.outPath, ups[0].Ciphertext, 0o644); err != nil {
			return err
		}
	}
	uctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var att *api.InputAttestation
	if o.rooted {
		att, err = api.UploadInputsRooted(uctx, o.submit, os.Getenv("FHEGATE_API_TOKEN"), pctx.ChainID, owner, ups)
		if err != nil {
			return err
		}
		if att.Root == nil {
			fmt.Fprintln(os.Stderr, "encrypt: the committee's root round failed: no \"root\" (use FHEPolicy.evaluateAttested or FHEInput.registerBatch)")
		}
	} else if att, err = api.UploadInputs(uctx, o.submit, os.Getenv("FHEGATE_API_TOKEN"), owner, ups); err != nil {
		return err
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(att.JSON())
}

// keysPreset is the preset `fhegate keys gen` generates for: --preset if
// given; else, with --committee-api, the preset of the committee's public
// key (a private read needs the reader's key on the committee's preset);
// else the devnet committee's (config.DefaultPreset). It returns the preset
// and where it came from.
func keysPreset(ctx context.Context, preset, committeeAPI string) (*fhe.Preset, string, error) {
	switch {
	case preset != "":
		pr, err := fhe.PresetByName(preset)
		return pr, "--preset", err
	case committeeAPI != "":
		ann, err := api.FetchKeyAnnouncement(ctx, committeeAPI)
		if err != nil {
			return nil, "", fmt.Errorf("--committee-api: %w", err)
		}
		pk, err := fhe.UnmarshalPublicKey(ann.PublicKey)
		if err != nil {
			return nil, "", fmt.Errorf("--committee-api %s: the committee's public key: %w", committeeAPI, err)
		}
		return pk.Params().Preset, "the committee's key at " + committeeAPI, nil
	default:
		pr, err := fhe.PresetByName(config.DefaultPreset)
		return pr, "the devnet committee's preset (--committee-api URL asks a committee for its own)", err
	}
}

func newKeysCmd(a *app) *cobra.Command {
	keys := &cobra.Command{Use: "keys", Short: "Manage your own FHE keys"}
	var preset, out, committeeAPI string
	gen := &cobra.Command{
		Use:   "gen",
		Short: "Generate your own key pair (secret.key 0600, public.key) for a preset",
		Long: `Generates your own BGV key pair: secret.key (mode 0600) and public.key in --out. The preset is the
committee's: with --committee-api, the preset of the key that committee announces; without it, the
devnet committee's (` + config.DefaultPreset + `); --preset picks one explicitly. A private read
(fhegate decrypt --handle) needs the key on the committee's preset.`,
		Example: `  fhegate keys gen --out ./mykeys
  fhegate keys gen --committee-api http://127.0.0.1:8600 --out ./mykeys
  fhegate keys gen --preset bgv-n13-t65537 --out ./mykeys`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pr, from, err := keysPreset(cmd.Context(), preset, committeeAPI)
			if err != nil {
				return err
			}
			p, err := fhe.NewParams(pr.ID)
			if err != nil {
				return err
			}
			ks := fhe.GenKeys(p, nil)
			skb, err := ks.Secret.MarshalBinary()
			if err != nil {
				return err
			}
			pkb, err := ks.Public.MarshalBinary()
			if err != nil {
				return err
			}
			if err := os.MkdirAll(out, 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(out, "secret.key"), skb, 0o600); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(out, "public.key"), pkb, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s and %s (%s: %s)\n", filepath.Join(out, "secret.key"), filepath.Join(out, "public.key"), p.Preset.Name, from)
			return nil
		},
	}
	gen.Flags().StringVar(&preset, "preset", "", "parameter preset (default: the committee's; see above)")
	gen.Flags().StringVar(&committeeAPI, "committee-api", "", "a committee member's client API URL: generate for the preset of its key")
	gen.Flags().StringVar(&out, "out", ".", "output directory")
	keys.AddCommand(gen)
	return keys
}
