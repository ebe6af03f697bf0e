package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ava-labs/libevm/crypto"
	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/chain"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/config"
	"github.com/fhegate/fhegate/fhe"
	keccakpkg "github.com/fhegate/fhegate/internal/keccak"
)

// newCommitteeRotateCmd is `fhegate committee rotate`: moving the stored
// inputs of one committee epoch to the next (docs/committee.md, "Rotation").
func newCommitteeRotateCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rotate",
		Short: "Committee rotation: re-encrypt the stored inputs to the next committee's key, adopt them there",
		Long: `After the new committee's DKG (its own committee.json with epoch+1, fhegate committee dkg) and
FHEVerdict.setCommittee registering its BLS keys for epoch+1:

  fhegate committee rotate sign-key --dir NEW --member j --out key-sig-j.json
      on at least t' members of the new committee: sign (chain id, epoch, digest of this member's
      DKG public key) with the member's BLS key
  fhegate committee rotate bind-key --dir NEW --rpc URL --relayer-key-file relayer.key --sig key-sig-1.json,...
      anyone: aggregate the signatures and record the key on chain (FHEVerdict.setCommitteeKey)
  fhegate committee rotate reencrypt --dir OLD --member i --to NEW/committee.pk --rpc URL --out reenc-i.bin
      on at least t members of the old committee at the same time (their serve stopped): refuse unless
      the digest of --to is the one the chain recorded for epoch+1, then collective public-key switch
      of every input this member stores under the old epoch to the new key.
      WARNING: this file hand-over uses the public-key switch (PCKS), in which one corrupt active
      old member can shift the output's c1 and, with one corrupt new member, learn the new secret
      (docs/operators.md, "Rotation"); the in-process rotation uses the cross-committee key switch.
  fhegate committee rotate adopt --dir NEW --member j --from reenc-1.bin,reenc-2.bin,... --quorum t_old --old-committee OLD/committee.json
      on every member of the new committee at the same time: keep the copies t_old old members agree
      on, refresh them under the new key, compare digests, store them under their handles`,
	}
	cmd.AddCommand(newRotateSignKeyCmd(a), newRotateBindKeyCmd(a), newRotateReencryptCmd(a), newRotateAdoptCmd(a))
	return cmd
}

func newRotateReencryptCmd(a *app) *cobra.Command {
	var dir, to, out, rpc string
	var id uint32
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:     "reencrypt",
		Short:   "Re-encrypt this old member's stored inputs to the next committee's public key (t old members at once)",
		Example: "  fhegate committee rotate reencrypt --dir old --member 1 --to new/committee.pk --rpc http://127.0.0.1:8545 --out reenc-1.bin",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if id == 0 || to == "" || out == "" || rpc == "" {
				return usageErrorf("--member, --to, --rpc and --out are required")
			}
			log := a.Log().With(zap.Uint32("member", id))
			ctx := cmd.Context()
			pkb, err := os.ReadFile(to)
			if err != nil {
				return err
			}
			target, err := fhe.UnmarshalPublicKey(pkb)
			if err != nil {
				return fmt.Errorf("--to: %w", err)
			}
			m, st, err := openMember(dir, id, timeout, log)
			if err != nil {
				return err
			}
			defer st.Close()
			defer m.Close()
			handles, err := m.CurrentHandles()
			if err != nil {
				return err
			}
			reg, err := dialKeyReader(ctx, rpc, dir, log)
			if err != nil {
				return err
			}
			defer reg.Close()
			rs, err := m.Reencrypt(ctx, reg, target, handles)
			if errors.Is(err, chainio.ErrTargetKeyNotOnChain) {
				return err // nothing re-encrypted: write no bundle
			}
			bundle, berr := m.ReencryptBundle(keccakpkg.Sum(pkb), rs)
			if berr != nil {
				return berr
			}
			if werr := os.WriteFile(out, bundle, 0o644); werr != nil {
				return werr
			}
			fmt.Fprintf(cmd.OutOrStdout(), "re-encrypted %d of %d inputs of epoch %d to %s; wrote %s\n", len(rs), len(handles), m.Epoch(), to, out)
			return err
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "committee", "the old committee's directory")
	cmd.Flags().Uint32Var(&id, "member", 0, "this member's id in the old committee")
	cmd.Flags().StringVar(&to, "to", "", "the new committee's collective public key (its committee.pk); refused unless the chain recorded its digest for epoch+1")
	cmd.Flags().StringVar(&rpc, "rpc", "", "chain JSON-RPC URL: FHEVerdict.committeeKeyOf(epoch+1) must equal the digest of --to")
	cmd.Flags().StringVar(&out, "out", "", "where to write the re-encrypted inputs")
	cmd.Flags().DurationVar(&timeout, "round-timeout", 2*time.Minute, "per-round deadline")
	return cmd
}

func newRotateAdoptCmd(a *app) *cobra.Command {
	var dir, oldCommittee string
	var from []string
	var id uint32
	var quorum int
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:     "adopt",
		Short:   "Install the old committee's re-encrypted inputs on a new member (every new member at once)",
		Example: "  fhegate committee rotate adopt --dir new --member 1 --from reenc-1.bin,reenc-2.bin,reenc-3.bin --quorum 3 --old-committee old/committee.json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if id == 0 || len(from) == 0 || quorum < 1 || oldCommittee == "" {
				return usageErrorf("--member, --from, --quorum and --old-committee are required")
			}
			log := a.Log().With(zap.Uint32("member", id))
			ctx := cmd.Context()
			m, st, err := openMember(dir, id, timeout, log)
			if err != nil {
				return err
			}
			defer st.Close()
			defer m.Close()
			km, err := m.Keys()
			if err != nil {
				return err
			}
			var oldCfg config.CommitteeConfig
			if err := config.LoadJSON(filepath.Clean(oldCommittee), &oldCfg); err != nil {
				return fmt.Errorf("--old-committee: %w", err)
			}
			if oldCfg.Epoch+1 != m.Epoch() {
				return fmt.Errorf("--old-committee is epoch %d, this committee is epoch %d", oldCfg.Epoch, m.Epoch())
			}
			// One vote per old member that signed a bundle, not per file.
			var copies [][]consensus.Reencrypted
			signers := map[uint32]string{}
			for _, f := range from {
				b, err := os.ReadFile(filepath.Clean(f))
				if err != nil {
					return err
				}
				signer, target, rs, err := consensus.VerifyReencrypted(b, &oldCfg)
				if err != nil {
					return fmt.Errorf("%s: %w", f, err)
				}
				if target != km.PKDigest {
					return fmt.Errorf("%s: re-encrypted to another key than this committee's", f)
				}
				if prev, ok := signers[signer]; ok {
					return fmt.Errorf("%s and %s are both signed by old member %d", prev, f, signer)
				}
				signers[signer] = f
				copies = append(copies, rs)
			}
			n, err := m.AdoptReencrypted(ctx, copies, quorum)
			fmt.Fprintf(cmd.OutOrStdout(), "stored %d re-encrypted inputs under epoch %d\n", n, m.Epoch())
			return err
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "committee", "the new committee's directory")
	cmd.Flags().Uint32Var(&id, "member", 0, "this member's id in the new committee")
	cmd.Flags().StringSliceVar(&from, "from", nil, "bundles written by `rotate reencrypt` on the old members")
	cmd.Flags().IntVar(&quorum, "quorum", 0, "identical copies, from that many distinct signing old members, required per input (the old committee's threshold)")
	cmd.Flags().StringVar(&oldCommittee, "old-committee", "", "the old committee's committee.json: a bundle counts only if one of its members signed it")
	cmd.Flags().DurationVar(&timeout, "round-timeout", 2*time.Minute, "per-round deadline")
	return cmd
}

// dialKeyReader connects to the chain to read FHEVerdict.committeeKeyOf
// only: the adapter's transaction key is a throwaway one (it never sends).
func dialKeyReader(ctx context.Context, rpc, dir string, log *zap.Logger) (*chain.Adapter, error) {
	var cfg config.CommitteeConfig
	if err := config.LoadJSON(filepath.Join(dir, "committee.json"), &cfg); err != nil {
		return nil, err
	}
	k, err := crypto.GenerateKey()
	if err != nil {
		return nil, err
	}
	return chain.Dial(ctx, chain.Config{URL: rpc, ChainID: cfg.ChainIDBig(), Key: k, Log: log.Named("chain")})
}

// keySignature is what `rotate sign-key` writes: one new member's BLS
// signature over bls.CommitteeKeyDigest(chainId, epoch, pkDigest).
type keySignature struct {
	Member    uint32 `json:"member"`
	Epoch     uint64 `json:"epoch"`
	PKDigest  string `json:"pkDigest"`  // hex, 32 bytes
	Signature string `json:"signature"` // hex, 96 bytes
}

func newRotateSignKeyCmd(a *app) *cobra.Command {
	var dir, out string
	var id uint32
	cmd := &cobra.Command{
		Use:     "sign-key",
		Short:   "Sign the new committee's public key for its epoch with this member's BLS key (t' new members)",
		Example: "  fhegate committee rotate sign-key --dir new --member 1 --out key-sig-1.json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if id == 0 || out == "" {
				return usageErrorf("--member and --out are required")
			}
			m, st, err := openMember(dir, id, time.Minute, a.Log().With(zap.Uint32("member", id)))
			if err != nil {
				return err
			}
			defer st.Close()
			defer m.Close()
			pkd, sig, err := m.SignCommitteeKey()
			if err != nil {
				return err
			}
			b, err := json.MarshalIndent(keySignature{Member: id, Epoch: m.Epoch(), PKDigest: hex.EncodeToString(pkd[:]), Signature: hex.EncodeToString(sig)}, "", "  ")
			if err != nil {
				return err
			}
			if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "member %d signed key %x for epoch %d; wrote %s\n", id, pkd, m.Epoch(), out)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "committee", "the new committee's directory")
	cmd.Flags().Uint32Var(&id, "member", 0, "this member's id in the new committee")
	cmd.Flags().StringVar(&out, "out", "", "where to write the signature")
	return cmd
}

func newRotateBindKeyCmd(a *app) *cobra.Command {
	var dir, rpc, relayerKeyFile string
	var sigs []string
	cmd := &cobra.Command{
		Use:     "bind-key",
		Short:   "Record the new committee's public key on chain from t' members' signatures (FHEVerdict.setCommitteeKey)",
		Example: "  fhegate committee rotate bind-key --dir new --rpc http://127.0.0.1:8545 --relayer-key-file relayer.key --sig key-sig-1.json,key-sig-2.json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if rpc == "" || len(sigs) == 0 {
				return usageErrorf("--rpc and --sig are required")
			}
			var cfg config.CommitteeConfig
			if err := config.LoadJSON(filepath.Join(dir, "committee.json"), &cfg); err != nil {
				return err
			}
			pkd, agg, bm, err := aggregateKeySignatures(&cfg, sigs)
			if err != nil {
				return err
			}
			key, err := loadRelayerKey(relayerKeyFile, os.Getenv)
			if err != nil {
				return err
			}
			ad, err := chain.Dial(cmd.Context(), chain.Config{URL: rpc, ChainID: cfg.ChainIDBig(), Key: key, Log: a.Log().Named("chain")})
			if err != nil {
				return err
			}
			defer ad.Close()
			if err := ad.SubmitCommitteeKey(cmd.Context(), cfg.Epoch, pkd, agg, bm); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "recorded key %x for epoch %d\n", pkd, cfg.Epoch)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "committee", "the new committee's directory (its committee.json)")
	cmd.Flags().StringVar(&rpc, "rpc", "", "chain JSON-RPC URL")
	cmd.Flags().StringVar(&relayerKeyFile, "relayer-key-file", "", "file holding the hex secp256k1 key paying for the transaction (mode 0600; default: FHEGATE_RELAYER_KEY)")
	cmd.Flags().StringSliceVar(&sigs, "sig", nil, "signatures written by `rotate sign-key` (at least the committee's threshold, distinct members)")
	return cmd
}

// maxKeySignature bounds a `rotate sign-key` file (its JSON is ≈ 330 bytes).
const maxKeySignature = 4096

// readBounded reads at most limit+1 bytes of a file (parseKeySignature
// refuses more): a huge or endless file is not read whole.
func readBounded(path string, limit int) ([]byte, error) {
	fh, err := os.Open(filepath.Clean(path))
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return io.ReadAll(io.LimitReader(fh, int64(limit)+1))
}

// parseKeySignature decodes a `rotate sign-key` file strictly: bounded
// size, known fields only, a 32-byte digest and a 96-byte signature.
func parseKeySignature(b []byte) (ks keySignature, pkd [32]byte, sig []byte, err error) {
	if len(b) > maxKeySignature {
		return ks, pkd, nil, fmt.Errorf("%d bytes is not a key signature (at most %d)", len(b), maxKeySignature)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ks); err != nil {
		return ks, pkd, nil, err
	}
	if dec.More() {
		return ks, pkd, nil, errors.New("trailing data after the key signature")
	}
	d, err := hex.DecodeString(ks.PKDigest)
	if err != nil || len(d) != 32 {
		return ks, pkd, nil, errors.New("pkDigest must be 32 hex bytes")
	}
	sig, err = hex.DecodeString(ks.Signature)
	if err != nil || len(sig) != bls.SignatureLen {
		return ks, pkd, nil, fmt.Errorf("signature must be %d hex bytes", bls.SignatureLen)
	}
	if ks.Member == 0 {
		return ks, pkd, nil, errors.New("member must be ≥ 1")
	}
	return ks, [32]byte(d), sig, nil
}

// aggregateKeySignatures reads `rotate sign-key` files, checks each one
// against its member's BLS key in cfg (same epoch and digest, distinct
// members, at least the threshold) and aggregates them.
func aggregateKeySignatures(cfg *config.CommitteeConfig, files []string) (pkd [32]byte, agg, bitmap []byte, err error) {
	var sigs [][]byte
	var idx []int
	seen := map[uint32]bool{}
	for n, f := range files {
		b, err := readBounded(f, maxKeySignature)
		if err != nil {
			return pkd, nil, nil, err
		}
		ks, d, sig, err := parseKeySignature(b)
		if err != nil {
			return pkd, nil, nil, fmt.Errorf("%s: %w", f, err)
		}
		if ks.Epoch != cfg.Epoch {
			return pkd, nil, nil, fmt.Errorf("%s: signed for epoch %d, the committee is epoch %d", f, ks.Epoch, cfg.Epoch)
		}
		if n == 0 {
			pkd = d
		} else if d != pkd {
			return pkd, nil, nil, fmt.Errorf("%s: signs key %x, %s signs %x", f, d[:8], files[0], pkd[:8])
		}
		if seen[ks.Member] {
			return pkd, nil, nil, fmt.Errorf("%s: member %d signed twice", f, ks.Member)
		}
		seen[ks.Member] = true
		pos := -1
		for i, mi := range cfg.Members {
			if mi.ID == ks.Member {
				pos = i
			}
		}
		if pos < 0 {
			return pkd, nil, nil, fmt.Errorf("%s: member %d is not in the epoch-%d committee", f, ks.Member, cfg.Epoch)
		}
		pub, err := hex.DecodeString(cfg.Members[pos].BLSKey)
		if err != nil {
			return pkd, nil, nil, err
		}
		msg := bls.CommitteeKeyDigest(cfg.ChainIDBig(), cfg.Epoch, pkd)
		if err := bls.Verify(pub, msg[:], sig); err != nil {
			return pkd, nil, nil, fmt.Errorf("%s: member %d's signature does not verify: %w", f, ks.Member, err)
		}
		sigs = append(sigs, sig)
		idx = append(idx, pos)
	}
	if len(idx) < cfg.Threshold {
		return pkd, nil, nil, fmt.Errorf("%d signatures, the committee's threshold is %d", len(idx), cfg.Threshold)
	}
	if agg, err = bls.Aggregate(sigs); err != nil {
		return pkd, nil, nil, err
	}
	if bitmap, err = bls.NewBitmap(len(cfg.Members), idx); err != nil {
		return pkd, nil, nil, err
	}
	return pkd, agg, bitmap, nil
}
