package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at link time (-ldflags "-X main.version=…"); otherwise the
// module version from the build info is used.
var version = ""

func newVersionCmd(_ *app) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the fhegate version and the versions of its core dependencies",
		Example: "  fhegate version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := version
			deps := map[string]string{}
			if bi, ok := debug.ReadBuildInfo(); ok {
				if v == "" {
					v = bi.Main.Version
				}
				for _, d := range bi.Deps {
					deps[d.Path] = d.Version
				}
			}
			if v == "" {
				v = "(devel)"
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "fhegate %s (%s %s/%s)\n", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			for _, p := range []string{"github.com/tuneinsight/lattigo/v6", "github.com/ava-labs/subnet-evm", "github.com/ava-labs/avalanchego", "github.com/ava-labs/libevm"} {
				if dv, ok := deps[p]; ok {
					fmt.Fprintf(out, "  %s %s\n", p, dv)
				}
			}
			return nil
		},
	}
}
