// Package abi embeds the Solidity ABIs of fhegate's four precompiles (the
// interfaces in contracts/src/interfaces, one *.abi.json per interface) and
// parses them with libevm's accounts/abi. The precompile core builds its
// method tables from these ABIs; clients such as consensus/chain use them to
// read events and pack calls without building the precompiles.
package abi

import (
	"bytes"
	"embed"
	"fmt"

	ethabi "github.com/ava-labs/libevm/accounts/abi"
)

//go:embed *.abi.json
var files embed.FS

// Interface names, one per precompile.
const (
	Input   = "IFHEInput"   // FHEInput
	Policy  = "IFHEPolicy"  // FHEPolicy
	CRDT    = "IFHECRDT"    // FHECRDT
	Verdict = "IFHEVerdict" // FHEVerdict
)

// JSON returns the embedded ABI JSON of interface name (Input, Policy, CRDT
// or Verdict).
func JSON(name string) ([]byte, error) {
	raw, err := files.ReadFile(name + ".abi.json")
	if err != nil {
		return nil, fmt.Errorf("abi: no embedded ABI %q: %w", name, err)
	}
	return raw, nil
}

// Parse returns the parsed ABI of interface name (a fresh value per call).
func Parse(name string) (ethabi.ABI, error) {
	raw, err := JSON(name)
	if err != nil {
		return ethabi.ABI{}, err
	}
	return ethabi.JSON(bytes.NewReader(raw))
}
