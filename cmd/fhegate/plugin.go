package main

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ava-labs/libevm/common"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/configs"
	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/internal/devchain"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
)

// pluginPackage is the Go package of the VM plugin binary.
const pluginPackage = "github.com/fhegate/fhegate/cmd/fhegate-vm"

func init() { registerCommand(newPluginCmd) }

func newPluginCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugin",
		Short: "Install the fhegate VM plugin into an avalanchego plugin directory",
	}
	cmd.AddCommand(newPluginVMIDCmd(), newPluginInstallCmd(a), newPluginGenesisCmd(a))
	return cmd
}

func newPluginVMIDCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "vmid",
		Short: "Print the fhegate VM ID (CB58), the plugin's file name in the plugin directory",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), configs.VMID())
			return err
		},
	}
}

func newPluginInstallCmd(a *app) *cobra.Command {
	var pluginDir, binary string
	cmd := &cobra.Command{
		Use:   "install --plugin-dir DIR",
		Short: "Build (or copy) the VM plugin to DIR/<VM ID>",
		Long: `Build the VM plugin (cmd/fhegate-vm) with the Go toolchain from this checkout,
or copy a prebuilt binary given with --binary, to DIR/<VM ID>, where avalanchego
looks for it (its --plugin-dir, default ~/.avalanchego/plugins).

The chain's genesis must enable the fhegate precompiles; see docs/operators.md.
Run the node with --fd-limit at or below the process's hard open-file limit.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dst, err := installPlugin(a.Log(), pluginDir, binary)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), dst)
			return err
		},
	}
	cmd.Flags().StringVar(&pluginDir, "plugin-dir", "", "avalanchego plugin directory (required)")
	cmd.Flags().StringVar(&binary, "binary", "", "copy this prebuilt fhegate-vm binary instead of building")
	_ = cmd.MarkFlagRequired("plugin-dir")
	return cmd
}

// installPlugin places the plugin at pluginDir/<VM ID> and returns that path.
// The file appears atomically (written beside it, then renamed), so a node
// scanning the directory never sees a partial binary.
func installPlugin(log *zap.Logger, pluginDir, binary string) (string, error) {
	if pluginDir == "" {
		return "", errors.New("--plugin-dir is required")
	}
	if err := os.MkdirAll(pluginDir, 0o755); err != nil {
		return "", fmt.Errorf("plugin dir: %w", err)
	}
	dst := filepath.Join(pluginDir, configs.VMID().String())
	tmp := dst + ".tmp"
	defer os.Remove(tmp) // no-op after the rename

	if binary != "" {
		if err := copyExecutable(binary, tmp); err != nil {
			return "", err
		}
	} else {
		if err := buildPlugin(log, tmp); err != nil {
			return "", err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dst); err != nil {
		return "", fmt.Errorf("install plugin: %w", err)
	}
	log.Info("plugin installed", zap.String("path", dst), zap.Stringer("vmID", configs.VMID()))
	return dst, nil
}

// buildPlugin runs `go build -o out github.com/fhegate/fhegate/cmd/fhegate-vm`
// inside the fhegate module the current directory belongs to.
func buildPlugin(log *zap.Logger, out string) error {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return errors.New("building the plugin needs the Go toolchain on PATH (or pass --binary)")
	}
	gomod, err := exec.Command(goBin, "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("go env GOMOD: %w", err)
	}
	modDir := filepath.Dir(strings.TrimSpace(string(gomod)))
	if data, err := os.ReadFile(filepath.Join(modDir, "go.mod")); err != nil ||
		!strings.Contains(string(data), "module github.com/fhegate/fhegate\n") {
		return errors.New("not inside the fhegate source tree: run from the checkout, or pass --binary")
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	log.Info("building the VM plugin (first build takes a few minutes)", zap.String("package", pluginPackage))
	build := exec.Command(goBin, "build", "-o", abs, pluginPackage)
	build.Dir = modDir
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build %s: %w", pluginPackage, err)
	}
	return nil
}

func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("--binary: %w", err)
	}
	defer in.Close()
	if st, err := in.Stat(); err != nil || st.IsDir() {
		return fmt.Errorf("--binary %s: not a file", src)
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func newPluginGenesisCmd(a *app) *cobra.Command {
	var o genesisOptions
	cmd := &cobra.Command{
		Use:   "genesis",
		Short: "Write a chain genesis for the fhegate VM: precompiles enabled, committee registered",
		Long: `Write a subnet-evm genesis for a chain running the fhegate VM plugin: the four fhegate
precompiles enabled from genesis, FHEVerdict's governance address, and the committee's BLS keys
(from the committee.json written by 'fhegate committee init') registered in FHEVerdict.

The base document is --genesis, or configs/genesis-devnet.json (chain id 1337, well-known dev keys
funded: test networks only — give your own --genesis with your own alloc for anything else).
The result is checked the way the VM will parse it (committee keys against their proofs of
possession) before it is written.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out, err := buildPluginGenesis(a.Log(), o)
			if err != nil {
				return err
			}
			if o.out == "" {
				_, err = cmd.OutOrStdout().Write(append(out, '\n'))
				return err
			}
			return os.WriteFile(o.out, append(out, '\n'), 0o644)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.base, "genesis", "", "base genesis JSON (default: the embedded devnet genesis — test networks only)")
	f.StringVar(&o.committee, "committee", "", "committee.json from `fhegate committee init` (public part: epoch, threshold, members' BLS keys)")
	f.Uint64Var(&o.chainID, "chain-id", 0, "EVM chain id (default: committee.json's chainId, else the base genesis's)")
	f.StringVar(&o.governance, "governance", "", "FHEVerdict governance address (may call setCommittee); default: the base genesis's")
	f.StringVar(&o.out, "out", "", "write here instead of stdout")
	return cmd
}

type genesisOptions struct {
	base, committee, governance, out string
	chainID                          uint64
}

func buildPluginGenesis(log *zap.Logger, o genesisOptions) ([]byte, error) {
	genesis := configs.DevnetGenesis()
	if o.base != "" {
		var err error
		if genesis, err = os.ReadFile(o.base); err != nil {
			return nil, fmt.Errorf("--genesis: %w", err)
		}
	} else {
		log.Warn("base genesis is the devnet's: it funds well-known development keys; use --genesis for a real network")
	}
	chainID := o.chainID
	if o.committee != "" {
		raw, err := os.ReadFile(o.committee)
		if err != nil {
			return nil, fmt.Errorf("--committee: %w", err)
		}
		var cc consensus.CommitteeConfig
		if err := json.Unmarshal(raw, &cc); err != nil {
			return nil, fmt.Errorf("--committee %s: %w", o.committee, err)
		}
		reg := subnetevm.Committee{Epoch: cc.Epoch, Threshold: uint32(cc.Threshold)}
		for _, m := range cc.Members {
			pk, err1 := hex.DecodeString(strings.TrimPrefix(m.BLSKey, "0x"))
			pop, err2 := hex.DecodeString(strings.TrimPrefix(m.BLSPoP, "0x"))
			if err := errors.Join(err1, err2); err != nil {
				return nil, fmt.Errorf("--committee: member %d: %w", m.ID, err)
			}
			reg.Members = append(reg.Members, subnetevm.Member{PublicKey: pk, ProofOfPossession: pop})
		}
		if genesis, err = configs.WithCommittee(genesis, reg); err != nil {
			return nil, err
		}
		if chainID == 0 && cc.ChainID != "" {
			id, ok := new(big.Int).SetString(cc.ChainID, 10)
			if !ok || !id.IsUint64() {
				return nil, fmt.Errorf("--committee: chainId %q", cc.ChainID)
			}
			chainID = id.Uint64()
		}
	}
	if chainID != 0 {
		var err error
		if genesis, err = configs.WithChainID(genesis, chainID); err != nil {
			return nil, err
		}
	}
	if o.governance != "" {
		if !common.IsHexAddress(o.governance) {
			return nil, fmt.Errorf("--governance %q is not an address", o.governance)
		}
		var err error
		if genesis, err = configs.WithGovernance(genesis, common.HexToAddress(o.governance).Hex()); err != nil {
			return nil, err
		}
	}
	// Parse it as the VM will: precompile configs (and committee PoPs) verified.
	registerEVMExtras()
	if _, err := devchain.ParseGenesis(genesis, 0, nil); err != nil {
		return nil, err
	}
	return genesis, nil
}
