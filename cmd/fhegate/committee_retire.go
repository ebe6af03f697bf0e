package main

import (
	"crypto/ed25519"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/config"
	"github.com/fhegate/fhegate/consensus/transport"
)

// newRotateRetireCmd is `fhegate committee rotate retire`: an old member
// that did not take part in the joint key switch (or was down during it)
// deletes its key share and wipes its ledger's share bytes
// (consensus.Member.Retire), once the chain recorded the next epoch's key.
// The active old members retire by themselves at the end of `rotate
// switch`.
func newRotateRetireCmd(a *app) *cobra.Command {
	var dir, rpc string
	var id uint32
	cmd := &cobra.Command{
		Use:   "retire",
		Short: "Delete an old member's key share and wipe its ledger after a rotation (the inactive old members)",
		Long: `Run on each old member that was not among the active ones of rotate switch (those retire
by themselves once every new member acknowledged the adoption). Refuses unless the chain recorded
a key for the next epoch (FHEVerdict.committeeKeyOf(epoch+1)); then drops the member's threshold
key share (zeroed, and deleted from its store with the key set's completion record) and the share
bytes of every ledger entry of its epoch. Afterwards the member cannot decrypt or key-switch
anything of its epoch: run it only once the new committee holds the inputs.`,
		Example: "  fhegate committee rotate retire --dir old --member 3 --rpc http://127.0.0.1:8545",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if id == 0 || rpc == "" {
				return usageErrorf("--member and --rpc are required")
			}
			log := a.Log().With(zap.Uint32("member", id))
			ctx := cmd.Context()
			// The old committee does not meet: an in-memory transport.
			m, st, err := openMemberOn(dir, id, time.Minute, log, func(cfg *config.CommitteeConfig, _ ed25519.PrivateKey) (transport.Transport, error) {
				return transport.NewHub(len(cfg.Members)).Endpoint(transport.MemberID(id)), nil
			})
			if err != nil {
				return err
			}
			defer st.Close()
			defer m.Close()
			reg, err := dialKeyReader(ctx, rpc, dir, log)
			if err != nil {
				return err
			}
			defer reg.Close()
			next := m.Epoch() + 1
			d, err := reg.CommitteeKeyOf(ctx, next)
			if err != nil {
				return err
			}
			if d == ([32]byte{}) {
				return fmt.Errorf("the chain recorded no committee key for epoch %d: not retiring before the rotation", next)
			}
			n, err := m.Retire()
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "member %d retired from epoch %d: key share deleted, %d ledger entries wiped\n", id, m.Epoch(), n)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "committee", "the old committee's directory (this member's secrets and store)")
	cmd.Flags().Uint32Var(&id, "member", 0, "this member's id in the old committee")
	cmd.Flags().StringVar(&rpc, "rpc", "", "chain JSON-RPC URL: FHEVerdict.committeeKeyOf(epoch+1) must be set")
	return cmd
}
