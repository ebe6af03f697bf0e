package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/configs"
)

// pluginPackage is the Go package of the VM plugin binary.
const pluginPackage = "github.com/fhegate/fhegate/cmd/fhegate-vm"

func init() { registerCommand(newPluginCmd) }

func newPluginCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugin",
		Short: "Install the fhegate VM plugin into an avalanchego plugin directory",
	}
	cmd.AddCommand(newPluginVMIDCmd(), newPluginInstallCmd(a))
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
