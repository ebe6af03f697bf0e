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
	"github.com/fhegate/fhegate/consensus/config"
	"github.com/fhegate/fhegate/devchain"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
)

// pluginPackage is the Go package of the VM plugin binary.
const pluginPackage = "github.com/fhegate/fhegate/cmd/fhegate-vm"

func newPluginCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugin",
		Short: "The fhegate VM plugin: its VM ID, installing it, a genesis with the precompiles",
		Long: `The fhegate VM plugin for avalanchego (plugin protocol 44). Subcommands:

  vmid      print the VM ID (CB58), the plugin's file name in the plugin directory
  install   build (or copy) the plugin to DIR/<VM ID>
  genesis   write a subnet-evm genesis with the fhegate precompiles and the committee`,
	}
	cmd.AddCommand(newPluginVMIDCmd(), newPluginInstallCmd(a), newPluginGenesisCmd(a))
	return cmd
}

func newPluginVMIDCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "vmid",
		Short: "Print the fhegate VM ID (CB58), the plugin's file name in the plugin directory",
		Example: `  fhegate plugin vmid
  go build -o ~/.avalanchego/plugins/$(fhegate plugin vmid) ./cmd/fhegate-vm`,
		Args: cobra.NoArgs,
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
		Example: `  fhegate plugin install --plugin-dir ~/.avalanchego/plugins
  fhegate plugin install --plugin-dir ~/.avalanchego/plugins --binary ./build/fhegate-vm`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dst, err := installPlugin(a.Log(), cmd.ErrOrStderr(), pluginDir, binary)
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
// scanning the directory never sees a partial binary. The go build's output
// goes to stderr.
func installPlugin(log *zap.Logger, stderr io.Writer, pluginDir, binary string) (string, error) {
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
		if err := buildPlugin(log, stderr, tmp); err != nil {
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
// inside the fhegate module the current directory belongs to; its output goes
// to stderr.
func buildPlugin(log *zap.Logger, stderr io.Writer, out string) error {
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
	build.Stdout, build.Stderr = stderr, stderr
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
		Use:   "genesis --genesis FILE --governance ADDR --chain-id ID [--committee committee.json]",
		Short: "Write a chain genesis for the fhegate VM: precompiles enabled, committee registered",
		Long: `Write a subnet-evm genesis for a chain running the fhegate VM plugin: the four fhegate
precompiles enabled from genesis, FHEVerdict's governance address, and the committee's BLS keys
(from the committee.json written by 'fhegate committee init') registered in FHEVerdict.

--governance (the only address that may call FHEVerdict.setCommittee) and --chain-id are
required. --genesis is the base document, with your network's own alloc.

Development values are refused unless --dev says the chain is a development chain: a
well-known development address (the Hardhat/Anvil default accounts, ewoq: their private keys
are public) as governance or anywhere in the genesis, chain id 1337 or 31337, and the embedded
devnet base genesis (configs/genesis-devnet.json, which funds those accounts).
The result is checked the way the VM will parse it (committee keys against their proofs of
possession) before it is written.`,
		Example: `  fhegate plugin genesis --genesis base.json --chain-id 43117 \
      --governance 0x1234567890abcdef1234567890abcdef12345678 --committee committee/committee.json > genesis.json
  fhegate plugin genesis --dev --chain-id 1337 --governance 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 \
      --committee committee/committee.json --out genesis.json`,
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
	f.StringVar(&o.base, "genesis", "", "base genesis JSON with your network's alloc (required unless --dev; with --dev the default is the embedded devnet genesis)")
	f.StringVar(&o.committee, "committee", "", "committee.json from `fhegate committee init` (public part: epoch, threshold, members' BLS keys); its chainId must be --chain-id")
	f.Uint64Var(&o.chainID, "chain-id", 0, "EVM chain id (required; 1337 and 31337 only with --dev)")
	f.StringVar(&o.governance, "governance", "", "FHEVerdict governance address, the only one that may call setCommittee (required; a well-known dev account only with --dev)")
	f.BoolVar(&o.dev, "dev", false, "this is a development chain: allow the devnet base genesis, dev chain ids and well-known dev accounts")
	f.StringVar(&o.out, "out", "", "write here instead of stdout")
	return cmd
}

type genesisOptions struct {
	base, committee, governance, out string
	chainID                          uint64
	dev                              bool
}

// devChainIDs are the chain ids development tools use by default: the devnet's
// and Hardhat's/Anvil's.
var devChainIDs = map[uint64]string{1337: "the devnet's", 31337: "Hardhat's and Anvil's"}

// checkGenesisOptions refuses missing or development values for a production
// genesis (everything but the base genesis's content, see checkNoDevAccounts).
func checkGenesisOptions(o genesisOptions) error {
	if o.governance == "" {
		return usageErrorf("--governance is required: the address that may call FHEVerdict.setCommittee " +
			"(a multisig or a key you control; see docs/operators.md)")
	}
	if o.chainID == 0 {
		return usageErrorf("--chain-id is required: your network's EVM chain id")
	}
	if !common.IsHexAddress(o.governance) {
		return fmt.Errorf("--governance %q is not an address", o.governance)
	}
	if o.dev {
		return nil
	}
	if name, ok := devchain.IsWellKnownAddress(common.HexToAddress(o.governance)); ok {
		return fmt.Errorf("--governance %s is the well-known development account %s: its private key is public, "+
			"so anyone could call setCommittee; use an address you control (or --dev for a development chain)", o.governance, name)
	}
	if what, ok := devChainIDs[o.chainID]; ok {
		return fmt.Errorf("--chain-id %d is %s development chain id: choose your network's own (or --dev for a development chain)", o.chainID, what)
	}
	if o.base == "" {
		return errors.New("--genesis is required: the embedded devnet genesis funds well-known development keys; " +
			"give your network's base genesis (or --dev for a development chain)")
	}
	return nil
}

// checkNoDevAccounts refuses a genesis that funds, or names anywhere (e.g. as
// a precompile admin), a well-known development account.
func checkNoDevAccounts(genesis []byte) error {
	var doc struct {
		Alloc map[string]json.RawMessage `json:"alloc"`
	}
	if err := json.Unmarshal(genesis, &doc); err != nil {
		return fmt.Errorf("genesis: %w", err)
	}
	funded := make(map[common.Address]bool, len(doc.Alloc))
	for k := range doc.Alloc {
		if common.IsHexAddress(k) {
			funded[common.HexToAddress(k)] = true
		}
	}
	for _, addr := range devchain.WellKnownAddresses() {
		if funded[addr] {
			name, _ := devchain.IsWellKnownAddress(addr)
			return fmt.Errorf("the base genesis funds the well-known development account %s (%s), whose private key is public: "+
				"remove it from --genesis's alloc (or --dev for a development chain)", name, addr.Hex())
		}
	}
	text := strings.ToLower(string(genesis))
	for _, addr := range devchain.WellKnownAddresses() {
		if strings.Contains(text, strings.ToLower(addr.Hex()[2:])) {
			name, _ := devchain.IsWellKnownAddress(addr)
			return fmt.Errorf("the genesis names the well-known development account %s (%s), whose private key is public "+
				"(an admin or allow-list entry?): remove it from --genesis (or --dev for a development chain)", name, addr.Hex())
		}
	}
	return nil
}

func buildPluginGenesis(log *zap.Logger, o genesisOptions) ([]byte, error) {
	if err := checkGenesisOptions(o); err != nil {
		return nil, err
	}
	genesis := configs.DevnetGenesis()
	if o.base != "" {
		var err error
		if genesis, err = os.ReadFile(o.base); err != nil {
			return nil, fmt.Errorf("--genesis: %w", err)
		}
	} else {
		log.Warn("--dev: base genesis is the devnet's: it funds well-known development keys")
	}
	if o.committee != "" {
		raw, err := os.ReadFile(o.committee)
		if err != nil {
			return nil, fmt.Errorf("--committee: %w", err)
		}
		var cc config.CommitteeConfig
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
		// The committee binds its chain id into attestations and verdicts:
		// a committee made for another chain could not serve this one.
		if cc.ChainID != "" {
			id, ok := new(big.Int).SetString(cc.ChainID, 10)
			if !ok || !id.IsUint64() {
				return nil, fmt.Errorf("--committee: chainId %q", cc.ChainID)
			}
			if id.Uint64() != o.chainID {
				return nil, fmt.Errorf("--committee %s was made for chainId %s, not --chain-id %d: "+
					"run `fhegate committee init --chain-id %d`", o.committee, cc.ChainID, o.chainID, o.chainID)
			}
		}
	}
	var err error
	if genesis, err = configs.WithChainID(genesis, o.chainID); err != nil {
		return nil, err
	}
	if genesis, err = configs.WithGovernance(genesis, common.HexToAddress(o.governance).Hex()); err != nil {
		return nil, err
	}
	if !o.dev {
		if err := checkNoDevAccounts(genesis); err != nil {
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
