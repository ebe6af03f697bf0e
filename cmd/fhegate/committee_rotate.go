package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus"
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
before FHEVerdict.setCommittee switches the chain to it:

  fhegate committee rotate reencrypt --dir OLD --member i --to NEW/committee.pk --out reenc-i.bin
      on at least t members of the old committee at the same time (their serve stopped): collective
      public-key switch of every input this member stores under the old epoch to the new key
  fhegate committee rotate adopt --dir NEW --member j --from reenc-1.bin,reenc-2.bin,... --quorum t_old --old-committee OLD/committee.json
      on every member of the new committee at the same time: keep the copies t_old old members agree
      on, refresh them under the new key, compare digests, store them under their handles`,
	}
	cmd.AddCommand(newRotateReencryptCmd(a), newRotateAdoptCmd(a))
	return cmd
}

func newRotateReencryptCmd(a *app) *cobra.Command {
	var dir, to, out string
	var id uint32
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:     "reencrypt",
		Short:   "Re-encrypt this old member's stored inputs to the next committee's public key (t old members at once)",
		Example: "  fhegate committee rotate reencrypt --dir old --member 1 --to new/committee.pk --out reenc-1.bin",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if id == 0 || to == "" || out == "" {
				return usageErrorf("--member, --to and --out are required")
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
			rs, err := m.Reencrypt(ctx, target, handles)
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
	cmd.Flags().StringVar(&to, "to", "", "the new committee's collective public key (its committee.pk)")
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
			var oldCfg consensus.CommitteeConfig
			if err := consensus.LoadJSON(filepath.Clean(oldCommittee), &oldCfg); err != nil {
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
