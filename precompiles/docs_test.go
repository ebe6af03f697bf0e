package precompiles

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// methodRows renders one markdown table row per method and event, in a fixed order.
func methodRows(s *Suite) []string {
	var rows []string
	for _, c := range s.Contracts() {
		names := c.Methods()
		for _, n := range names {
			m := c.ABI().Methods[n]
			gas, _ := c.StaticGas(n)
			rw := "view"
			if cm, _ := c.lookup(m.ID); !cm.readOnly {
				rw = "write"
			}
			rows = append(rows, fmt.Sprintf("| %s | `%s` | `0x%x` | %s | %d |", c.Name(), m.Sig, m.ID, rw, gas))
		}
	}
	return rows
}

func eventRows(s *Suite) []string {
	var rows []string
	for _, c := range s.Contracts() {
		var names []string
		for n := range c.ABI().Events {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			e := c.ABI().Events[n]
			rows = append(rows, fmt.Sprintf("| %s | `%s` | `%s` |", c.Name(), e.Sig, e.ID.Hex()))
		}
	}
	return rows
}

// TestDocsInSync: docs/precompiles.md lists every selector, static gas and
// event topic exactly as the code has them. Print the rows with -v.
func TestDocsInSync(t *testing.T) {
	t.Parallel()
	s, err := NewSuite(testOptions())
	require.NoError(t, err)
	raw, err := os.ReadFile("../docs/precompiles.md")
	if os.IsNotExist(err) {
		t.Skip("docs/precompiles.md not present")
	}
	require.NoError(t, err)
	doc := string(raw)
	for _, r := range append(methodRows(s), eventRows(s)...) {
		t.Log(r)
		require.True(t, strings.Contains(doc, r), "docs/precompiles.md is missing or has a stale row:\n%s", r)
	}
}
