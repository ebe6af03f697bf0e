// Package examples holds the example policies shipped with fhegate:
//
//   - kyc_aml.yaml: KYC/AML risk rule — 8 encrypted attributes, a weighted
//     risk score with a threshold, sanctioned-country membership and an age
//     check (unrefreshed depth 9 on BGVN14, 16384 decisions per ciphertext
//     set: 2 refreshes, since a plan consumes at most the 8 levels above the
//     preset's refresh floor, policy.PresetInfo.RefreshFloor);
//   - credit_limit.yaml: a credit-limit rule comparing an encrypted amount
//     with a limit computed from encrypted income and debt (depth 9 on
//     BGVN14: 1 refresh);
//   - allowlist.yaml: membership of an encrypted id in a public allowlist
//     (depth 3, BGVN13: the 3 levels above its refresh floor).
//
// Their plan hashes are pinned in policy/testdata/golden_hashes.json.
//
// deep/ holds policies deeper than every preset, whose plans carry refresh
// points by design (collective MPC refreshes in the committee; `fhegate
// policy eval` runs them through an in-process committee):
//
//   - deep/nested_checks.yaml: nested comparisons over four amounts
//     (4 refreshes on BGVN14);
//   - deep/set_screening.yaml: two list memberships over 0..255 each
//     (4 refreshes on BGVN14).
//
// amounts/ holds policies over wide unsigned integers (policy/wide.go),
// with real units:
//
//   - amounts/credit_dollars.yaml: a 40 % debt-to-income rule over 32-bit
//     dollar amounts (income up to 1,000,000, request up to 100,000);
//   - amounts/sanctions_screen.yaml: two 16-bit entity codes screened
//     against a 1,000-entry list, with a 32-bit amount threshold;
//   - amounts/bid_reserve.yaml: an encrypted bid against an encrypted
//     reserve, both over the whole 16-bit range [0, 65535];
//   - amounts/token_balance.yaml: a 64-bit token balance (18 decimals)
//     against a 2.5-token threshold.
package examples

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.yaml deep/*.yaml amounts/*.yaml
var files embed.FS

// Names lists the shipped top-level examples (file names without .yaml),
// sorted. Only allowlist evaluates without a refresh since plans stay above
// the refresh floor.
func Names() []string { return list(".", "") }

// DeepNames lists the examples whose plans need collective refreshes
// ("deep/NAME"), sorted.
func DeepNames() []string { return list("deep", "deep/") }

// AmountNames lists the examples over wide unsigned integers
// ("amounts/NAME": dollars, 16-bit entity codes, 64-bit token balances),
// sorted.
func AmountNames() []string { return list("amounts", "amounts/") }

// AllNames is Names followed by DeepNames and AmountNames.
func AllNames() []string { return append(append(Names(), DeepNames()...), AmountNames()...) }

func list(dir, prefix string) []string {
	entries, _ := fs.ReadDir(files, dir)
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			out = append(out, prefix+strings.TrimSuffix(e.Name(), ".yaml"))
		}
	}
	sort.Strings(out)
	return out
}

// Get returns the document of an example by name (e.g. "kyc_aml").
func Get(name string) ([]byte, error) {
	b, err := files.ReadFile(name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("policy/examples: no example %q (have %v)", name, AllNames())
	}
	return b, nil
}

// MustGet is Get for tests and benchmarks.
func MustGet(name string) []byte {
	b, err := Get(name)
	if err != nil {
		panic(err)
	}
	return b
}
