// Command fhegate-vm is the fhegate VM plugin for avalanchego v1.14.x: the
// subnet-evm v0.8.0 VM with the fhegate precompiles registered, served over
// avalanchego's rpcchainvm protocol (version 44).
//
// Install it as <plugin-dir>/<VM ID> (`fhegate plugin install --plugin-dir DIR`,
// VM ID from `fhegate plugin vmid`). Unlike subnet-evm's own plugin runner, it
// does not raise the process's open-file limit to 32768 (that fails where the
// hard limit is lower); the node's --fd-limit governs, and the plugin inherits
// the node's limit.
//
// Flags (for tooling; avalanchego starts the plugin without arguments):
//
//	--version       print a human-readable version line and exit
//	--version-json  print {"rpcchainvm":44,…} and exit (tmpnet's compatibility check)
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/ava-labs/avalanchego/version"
	"github.com/ava-labs/avalanchego/vms/rpcchainvm"
	"github.com/ava-labs/subnet-evm/plugin/evm"

	"github.com/fhegate/fhegate/configs"
	"github.com/fhegate/fhegate/precompiles/corebackends"
	// Importing it registers the fhegate precompile modules with subnet-evm.
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
)

func main() {
	for _, arg := range os.Args[1:] {
		switch arg {
		case "--version", "-version":
			fmt.Printf("fhegate-vm %s (Subnet-EVM %s, AvalancheGo %s, rpcchainvm=%d)\n",
				configs.VMID(), evm.Version, version.Current, version.RPCChainVMProtocol)
			return
		case "--version-json", "-version-json":
			out, _ := json.Marshal(map[string]any{
				"rpcchainvm": version.RPCChainVMProtocol,
				"subnetevm":  evm.Version,
				"vmid":       configs.VMID().String(),
				"vmName":     configs.VMName,
			})
			fmt.Println(string(out))
			return
		default:
			fmt.Fprintf(os.Stderr, "fhegate-vm: unknown argument %q (the VM is started by avalanchego)\n", arg)
			os.Exit(2)
		}
	}
	// Must run exactly once, before anything touches libevm types.
	evm.RegisterAllLibEVMExtras()
	// The real policy compiler and CRDT metadata join, before any chain
	// starts: every validator must run the same backends.
	if err := subnetevm.SetBackends(corebackends.Policy{}, corebackends.CRDTMeta{}); err != nil {
		fmt.Fprintln(os.Stderr, "fhegate-vm: precompile backends:", err)
		os.Exit(1)
	}
	if err := rpcchainvm.Serve(context.Background(), &evm.VM{}); err != nil {
		fmt.Fprintln(os.Stderr, "fhegate-vm:", err)
		os.Exit(1)
	}
}
