package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fhegate/fhegate/consensus"
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
	ctype                                   uint8
}

func newEncryptCmd(a *app) *cobra.Command {
	var o encryptOptions
	cmd := &cobra.Command{
		Use:   "encrypt",
		Short: "Encrypt integers (BGV slots) under the committee public key or your own key",
		Long: `Encrypts --values (slot 0, 1, …; BGV integers mod 65537) under --key: a public key file (the
committee's collective key, e.g. <dir>/committee.pk from 'fhegate committee dkg' or GET /v1/publickey,
or your own public.key from 'fhegate keys gen') or your own secret.key (seeded, half-size
ciphertext). Prints the handle (keccak256 of the canonical bytes). With --submit URL the ciphertext
is uploaded to a committee member's API with a proof of plaintext knowledge bound to --owner and
the chain id and key epoch the member announces (fhe/zkpok; --key must be the committee key),
replicated to the committee, and the quorum input attestation is printed (the arguments of
FHEInput.register).`,
		Example: `  fhegate encrypt --key public.key --values 1,2,3 --out ct.bin
  fhegate encrypt --key committee/committee.pk --values 5 --submit http://127.0.0.1:8600 \
      --owner 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266`,
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
	_ = cmd.MarkFlagRequired("key")
	_ = cmd.MarkFlagRequired("values")
	return cmd
}

// runEncrypt encrypts --values under --key, prints the handle or, with
// --submit, uploads the ciphertext and prints the committee's attestation.
func runEncrypt(ctx context.Context, out io.Writer, o encryptOptions) error {
	vals, err := parseInts(o.values)
	if err != nil {
		return err
	}
	kb, err := os.ReadFile(o.keyPath)
	if err != nil {
		return err
	}
	var enc *fhe.Encryptor
	var b, proof []byte
	if pk, err := fhe.UnmarshalPublicKey(kb); err == nil && o.submit != "" {
		// Uploads carry a proof of plaintext knowledge (fhe/zkpok).
		ownerAddr, err := consensus.ParseOwner(o.owner)
		if err != nil {
			return fmt.Errorf("--owner: %w", err)
		}
		if b, proof, err = encryptWithProof(ctx, o.submit, pk, ownerAddr, vals); err != nil {
			return err
		}
	} else if err == nil {
		enc = fhe.NewEncryptor(pk)
	} else if o.submit != "" {
		return fmt.Errorf("--submit needs the committee public key as --key: %v", err)
	} else if sk, err2 := fhe.UnmarshalSecretKey(kb); err2 == nil {
		if enc, err = fhe.NewSymmetricEncryptor(sk); err != nil {
			return err
		}
	} else {
		return fmt.Errorf("%s is neither a public nor a secret key: %v", o.keyPath, err)
	}
	if enc != nil {
		ct, err := enc.EncryptInts(vals)
		if err != nil {
			return err
		}
		if b, err = ct.MarshalBinary(); err != nil {
			return err
		}
	}
	h := fhe.HandleOf(b)
	if o.outPath != "" {
		if err := os.WriteFile(o.outPath, b, 0o644); err != nil {
			return err
		}
	}
	if o.submit == "" {
		fmt.Fprintf(out, "%s\n", h)
		return nil
	}
	att, err := submitCiphertext(ctx, o, b, proof, h)
	if err != nil {
		return err
	}
	enc2 := json.NewEncoder(out)
	enc2.SetIndent("", "  ")
	return enc2.Encode(att)
}

// submitCiphertext uploads the canonical ciphertext b (handle h) with its
// proof of plaintext knowledge to the committee member at --submit and
// returns the input attestation.
func submitCiphertext(ctx context.Context, o encryptOptions, b, proof []byte, h fhe.Handle) (*consensus.AttestationJSON, error) {
	if _, err := consensus.ParseOwner(o.owner); err != nil {
		return nil, fmt.Errorf("--owner: %w", err)
	}
	body, _ := json.Marshal(consensus.UploadRequest{Ciphertext: "0x" + hex.EncodeToString(b), Owner: o.owner, CType: o.ctype, Proof: "0x" + hex.EncodeToString(proof)})
	client := &http.Client{Timeout: 2 * time.Minute}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(o.submit, "/")+"/v1/inputs", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if tok := os.Getenv("FHEGATE_API_TOKEN"); tok != "" { // committee API bearer token
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("committee refused the upload (%s): %s", resp.Status, strings.TrimSpace(string(rb)))
	}
	var att consensus.AttestationJSON
	if err := json.Unmarshal(rb, &att); err != nil {
		return nil, err
	}
	if att.Handle != h.String() {
		return nil, fmt.Errorf("committee attested handle %s, expected %s", att.Handle, h)
	}
	return &att, nil
}

func newDecryptCmd(a *app) *cobra.Command {
	var keyPath, inPath string
	var slots int
	cmd := &cobra.Command{
		Use:   "decrypt",
		Short: "Decrypt a ciphertext with your own secret key",
		Example: `  fhegate decrypt --key secret.key --in ct.bin
  fhegate decrypt --key secret.key --in ct.bin --slots 0`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			kb, err := os.ReadFile(keyPath)
			if err != nil {
				return err
			}
			sk, err := fhe.UnmarshalSecretKey(kb)
			if err != nil {
				return fmt.Errorf("%s: %w", keyPath, err)
			}
			cb, err := os.ReadFile(inPath)
			if err != nil {
				return err
			}
			ct, err := fhe.UnmarshalCiphertext(cb)
			if err != nil {
				return err
			}
			if ct.Params() != sk.Params() {
				return fmt.Errorf("ciphertext is %s, key is %s", ct.Params().Preset.Name, sk.Params().Preset.Name)
			}
			v, err := fhe.NewDecryptor(sk).DecryptInts(ct)
			if err != nil {
				return err
			}
			if slots > 0 && slots < len(v) {
				v = v[:slots]
			}
			parts := make([]string, len(v))
			for i, x := range v {
				parts[i] = strconv.FormatInt(x, 10)
			}
			fmt.Fprintln(cmd.OutOrStdout(), strings.Join(parts, ","))
			return nil
		},
	}
	cmd.Flags().StringVar(&keyPath, "key", "", "your secret key file (fhegate keys gen)")
	cmd.Flags().StringVar(&inPath, "in", "", "canonical ciphertext file")
	cmd.Flags().IntVar(&slots, "slots", 8, "slots to print (0: all)")
	_ = cmd.MarkFlagRequired("key")
	_ = cmd.MarkFlagRequired("in")
	return cmd
}

func newKeysCmd(a *app) *cobra.Command {
	keys := &cobra.Command{Use: "keys", Short: "Manage your own FHE keys"}
	var preset, out string
	gen := &cobra.Command{
		Use:   "gen",
		Short: "Generate your own key pair (secret.key 0600, public.key) for a preset",
		Example: `  fhegate keys gen --out ./mykeys
  fhegate keys gen --preset bgv-n14-t65537 --out ./mykeys`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pr, err := fhe.PresetByName(preset)
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
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s and %s (%s)\n", filepath.Join(out, "secret.key"), filepath.Join(out, "public.key"), p.Preset.Name)
			return nil
		},
	}
	gen.Flags().StringVar(&preset, "preset", "bgv-n13-t65537", "parameter preset")
	gen.Flags().StringVar(&out, "out", ".", "output directory")
	keys.AddCommand(gen)
	return keys
}
