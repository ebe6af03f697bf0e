package main

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/fhe"
)

// decryptOptions are the flags of `fhegate decrypt`.
type decryptOptions struct {
	keyPath, pubPath, inPath string
	slots                    int
	// private read (--handle)
	handle     string
	apis       []string
	signerFile string
	valid      time.Duration
	nonce      uint64
}

func newDecryptCmd(a *app) *cobra.Command {
	var o decryptOptions
	cmd := &cobra.Command{
		Use:   "decrypt",
		Short: "Decrypt a ciphertext with your own secret key, or read a handle privately through the committee",
		Long: `Decrypt a ciphertext file with your own secret key (--in), or read an on-chain handle privately
(--handle): t committee members each re-encrypt their share of it to your public key, authorised by
an EIP-712 signature of an account FHEInput's ACL allows on the handle (--signer-key-file, or
FHEGATE_SIGNER_KEY); the shares are combined and decrypted here. No member learns the plaintext.
Your public key (--public-key, by default public.key beside --key) must be the one fhegate keys gen
wrote with the secret key: each member shares a handle towards at most a few keys, ever.`,
		Example: `  fhegate decrypt --key secret.key --in ct.bin
  fhegate decrypt --key mykeys/secret.key --handle 0xabc… \
      --committee-api https://m1:8600,https://m2:8600,https://m3:8600 --signer-key-file owner.key`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			kb, err := os.ReadFile(o.keyPath)
			if err != nil {
				return err
			}
			sk, err := fhe.UnmarshalSecretKey(kb)
			if err != nil {
				return fmt.Errorf("%s: %w", o.keyPath, err)
			}
			var v []int64
			switch {
			case (o.inPath == "") == (o.handle == ""):
				return errors.New("give exactly one of --in (a ciphertext file) and --handle (a private read)")
			case o.inPath != "":
				v, err = decryptFile(sk, o.inPath)
			default:
				v, err = privateRead(cmd, sk, o)
			}
			if err != nil {
				return err
			}
			if o.slots > 0 && o.slots < len(v) {
				v = v[:o.slots]
			}
			parts := make([]string, len(v))
			for i, x := range v {
				parts[i] = strconv.FormatInt(x, 10)
			}
			fmt.Fprintln(cmd.OutOrStdout(), strings.Join(parts, ","))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.keyPath, "key", "", "your secret key file (fhegate keys gen)")
	f.StringVar(&o.inPath, "in", "", "canonical ciphertext file")
	f.IntVar(&o.slots, "slots", 8, "slots to print (0: all)")
	f.StringVar(&o.handle, "handle", "", "private read: the handle (0x + 64 hex) to read through the committee")
	f.StringSliceVar(&o.apis, "committee-api", nil, "private read: members' client API URLs (at least t; comma-separated or repeated)")
	f.StringVar(&o.pubPath, "public-key", "", "private read: your public key file (default: public.key beside --key)")
	f.StringVar(&o.signerFile, "signer-key-file", "", "private read: secp256k1 key (hex, mode 0600) of an account allowed on the handle (or FHEGATE_SIGNER_KEY)")
	f.DurationVar(&o.valid, "valid", 5*time.Minute, "private read: how long the signed request stays valid")
	f.Uint64Var(&o.nonce, "nonce", 0, "private read: request nonce (0: random); each member refuses a (signer, nonce) twice")
	_ = cmd.MarkFlagRequired("key")
	return cmd
}

func decryptFile(sk *fhe.SecretKey, path string) ([]int64, error) {
	cb, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ct, err := fhe.UnmarshalCiphertext(cb)
	if err != nil {
		return nil, err
	}
	if ct.Params() != sk.Params() {
		return nil, fmt.Errorf("ciphertext is %s, key is %s", ct.Params().Preset.Name, sk.Params().Preset.Name)
	}
	return fhe.NewDecryptor(sk).DecryptInts(ct)
}

// privateRead signs a private read of o.handle towards the public key
// beside the secret key, asks the members for their shares and decrypts.
func privateRead(cmd *cobra.Command, sk *fhe.SecretKey, o decryptOptions) ([]int64, error) {
	if len(o.apis) == 0 {
		return nil, errors.New("--handle needs --committee-api: the client API URLs of at least t members")
	}
	hb, err := api.ParseHandle(o.handle)
	if err != nil {
		return nil, fmt.Errorf("--handle: %w", err)
	}
	signer, err := loadSecpKey(o.signerFile, "--signer-key-file", "FHEGATE_SIGNER_KEY",
		"--signer-key-file (or FHEGATE_SIGNER_KEY) is required with --handle: the key of an account FHEInput allows on the handle", os.Getenv)
	if err != nil {
		return nil, err
	}
	pubPath := o.pubPath
	if pubPath == "" {
		pubPath = filepath.Join(filepath.Dir(o.keyPath), "public.key")
	}
	pkb, err := os.ReadFile(pubPath)
	if err != nil {
		return nil, fmt.Errorf("your public key (--public-key): %w", err)
	}
	pk, err := fhe.UnmarshalPublicKey(pkb)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pubPath, err)
	}
	if pk.Params() != sk.Params() {
		return nil, fmt.Errorf("public key is %s, secret key is %s", pk.Params().Preset.Name, sk.Params().Preset.Name)
	}
	ctx := cmd.Context()
	ann, err := api.FetchKeyAnnouncement(ctx, o.apis[0])
	if err != nil {
		return nil, err
	}
	nonce := o.nonce
	if nonce == 0 {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		nonce = binary.BigEndian.Uint64(b[:]) | 1
	}
	deadline := uint64(time.Now().Add(o.valid).Unix())
	req, err := api.SignPrivateRead(signer, ann.Proof.ChainID, hb, pkb, nonce, deadline)
	if err != nil {
		return nil, err
	}
	u, err := api.ReadPrivate(ctx, o.apis, os.Getenv("FHEGATE_API_TOKEN"), req, sk)
	if err != nil {
		return nil, err
	}
	return fhe.Centre(u, sk.Params().PlaintextModulus()), nil
}
