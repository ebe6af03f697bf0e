package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/ava-labs/libevm/crypto"
	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/chain"
	"github.com/fhegate/fhegate/consensus/config"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
)

// newCommitteeRotateCmd is `fhegate committee rotate`: moving the stored
// inputs of one committee epoch to the next (docs/committee.md, "Rotation").
func newCommitteeRotateCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rotate",
		Short: "Committee rotation: bind the next committee's key on chain, key-switch the stored inputs to it",
		Long: `After the new committee's DKG (its own directory and committee.json with epoch+1 and addresses
distinct from the old committee's, fhegate committee dkg) and FHEVerdict.setCommittee registering
its BLS keys for epoch+1:

  fhegate committee rotate sign-key --dir NEW --member j --out key-sig-j.json
      on at least t' members of the new committee: sign (chain id, epoch, digest of this member's
      DKG public key) with the member's BLS key
  fhegate committee rotate bind-key --dir NEW --rpc URL --relayer-key-file relayer.key --sig key-sig-1.json,...
      anyone: aggregate the signatures and record the key on chain (FHEVerdict.setCommitteeKey)
  fhegate committee rotate switch --side old --member i --old OLD --new NEW --rpc URL
      on t members of the old committee (default members 1..t, --old-active to choose; serve stopped)
  fhegate committee rotate switch --side new --member j --old OLD --new NEW
      on every member of the new committee (before it serves)

The switch commands run together, started in any order within --wait: they form one joint session
over TLS (each member listens at its committee.json address and pins the other committee's TLS
keys from its committee.json; NEW and OLD need only the other committee's committee.json and
the new committee's committee.pk). Each old member first refuses unless the digest of
NEW/committee.pk is the key the chain recorded for epoch+1, then the t old and the new members
move every input stored under the old epoch to the new key with the cross-committee key switch
(no member writes the output's c1, so none can shift it towards the new secret; the new members'
shares are flooded, so the old members cannot read the new secret), and the new members refresh the
outputs under the new key, agree on their digests and store them under the inputs' handles. Once
every new member acknowledged that, the active old members retire (key share and ledger wiped).

  fhegate committee rotate retire --dir OLD --member i --rpc URL
      on every other old member, afterwards: delete its key share and wipe its ledger`,
	}
	cmd.AddCommand(newRotateSignKeyCmd(a), newRotateBindKeyCmd(a), newRotateSwitchCmd(a), newRotateRetireCmd(a))
	return cmd
}

func newRotateSwitchCmd(a *app) *cobra.Command {
	var oldDir, newDir, side, rpc string
	var id uint32
	var active []uint
	var timeout, wait time.Duration
	cmd := &cobra.Command{
		Use:   "switch",
		Short: "Key-switch the stored inputs to the next committee (t old and every new member at once)",
		Example: `  fhegate committee rotate switch --side old --member 1 --old old --new new --rpc http://127.0.0.1:8545
  fhegate committee rotate switch --side new --member 1 --old old --new new`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if id == 0 || oldDir == "" || newDir == "" {
				return usageErrorf("--member, --old and --new are required")
			}
			if side != "old" && side != "new" {
				return usageErrorf("--side must be old or new")
			}
			if side == "old" && rpc == "" {
				return usageErrorf("--rpc is required on the old side: the target key must be the one the chain recorded")
			}
			log := a.Log().With(zap.String("side", side), zap.Uint32("member", id))
			ctx := cmd.Context()
			j, err := loadJointRotation(oldDir, newDir, active, wait)
			if err != nil {
				return err
			}
			peers, err := config.JointPeers(j.Old, j.New)
			if err != nil {
				return err
			}
			if side == "new" {
				m, st, err := openMemberOn(newDir, id, timeout, log, func(cfg *config.CommitteeConfig, tk ed25519.PrivateKey) (transport.Transport, error) {
					tr, err := transport.ListenTLS(transport.TLSConfig{Self: transport.MemberID(id), Key: tk, Peers: peers, Log: log})
					if err != nil {
						return nil, err
					}
					return config.JointMemberTransport(tr, j.New), nil
				})
				if err != nil {
					return err
				}
				defer st.Close()
				defer m.Close()
				n, err := m.AdoptFromPrevious(ctx, j)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "stored %d key-switched inputs under epoch %d\n", n, j.New.Epoch)
				return nil
			}
			// The old member's own committee does not meet: its member runs
			// on an in-memory transport nobody else is on, and the joint
			// session on a TLS transport at its committee address.
			var jt *transport.TLS
			m, st, err := openMemberOn(oldDir, id, timeout, log, func(cfg *config.CommitteeConfig, tk ed25519.PrivateKey) (transport.Transport, error) {
				var err error
				if jt, err = transport.ListenTLS(transport.TLSConfig{Self: config.JointOldID(j.New, id), Key: tk, Peers: peers, Log: log}); err != nil {
					return nil, err
				}
				return transport.NewHub(len(cfg.Members)).Endpoint(transport.MemberID(id)), nil
			})
			if err != nil {
				if jt != nil {
					jt.Close()
				}
				return err
			}
			defer st.Close()
			defer m.Close()
			joint := transport.NewMux(jt, log)
			defer joint.Close()
			reg, err := dialKeyReader(ctx, rpc, oldDir, log)
			if err != nil {
				return err
			}
			defer reg.Close()
			n, err := m.SwitchToNext(ctx, reg, joint, j)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "key-switched %d inputs of epoch %d to the epoch-%d key\n", n, j.Old.Epoch, j.New.Epoch)
			return nil
		},
	}
	cmd.Flags().StringVar(&side, "side", "", "old: this is a member of the old committee (--old holds its secrets); new: of the new committee (--new holds them)")
	cmd.Flags().Uint32Var(&id, "member", 0, "this member's id in its committee")
	cmd.Flags().StringVar(&oldDir, "old", "", "the old committee's directory (its committee.json; with --side old, this member's secrets and store)")
	cmd.Flags().StringVar(&newDir, "new", "", "the new committee's directory (its committee.json and committee.pk; with --side new, this member's secrets and store)")
	cmd.Flags().StringVar(&rpc, "rpc", "", "chain JSON-RPC URL (old side): FHEVerdict.committeeKeyOf(epoch+1) must equal the digest of NEW/committee.pk")
	cmd.Flags().UintSliceVar(&active, "old-active", nil, "the t old members that take part, the same list on every participant (default 1..t)")
	cmd.Flags().DurationVar(&timeout, "round-timeout", 2*time.Minute, "per-round deadline")
	cmd.Flags().DurationVar(&wait, "wait", 5*time.Minute, "how long to wait for every participant to start")
	return cmd
}

// loadJointRotation reads both committees' configurations and the new
// committee's public key.
func loadJointRotation(oldDir, newDir string, active []uint, wait time.Duration) (consensus.JointRotation, error) {
	j := consensus.JointRotation{Old: &config.CommitteeConfig{}, New: &config.CommitteeConfig{}, Wait: wait}
	if err := config.LoadJSON(filepath.Join(oldDir, "committee.json"), j.Old); err != nil {
		return j, fmt.Errorf("--old: %w", err)
	}
	if err := config.LoadJSON(filepath.Join(newDir, "committee.json"), j.New); err != nil {
		return j, fmt.Errorf("--new: %w", err)
	}
	pkb, err := readBounded(filepath.Join(newDir, "committee.pk"), maxPublicKey)
	if err != nil {
		return j, fmt.Errorf("--new: %w", err)
	}
	if len(pkb) > maxPublicKey {
		return j, fmt.Errorf("--new: committee.pk is larger than %d bytes", maxPublicKey)
	}
	if j.Target, err = fhe.UnmarshalPublicKey(pkb); err != nil {
		return j, fmt.Errorf("--new: committee.pk: %w", err)
	}
	for _, i := range active {
		if i == 0 || i > math.MaxUint32 {
			return j, usageErrorf("--old-active: member %d out of range", i)
		}
		j.OldActive = append(j.OldActive, uint32(i))
	}
	return j, nil
}

// maxPublicKey bounds a committee.pk file (a public key at N=2^16 with
// the largest modulus chain is a few MB).
const maxPublicKey = 64 << 20

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
