package precompiles

import (
	"bytes"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// buildWith builds a suite whose FHEPolicy table is edited by edit.
func buildWith(t *testing.T, edit func([]methodSpec) []methodSpec) error {
	t.Helper()
	s := &Suite{compiler: standInCompiler{}, merger: standInMerger{}}
	defs := s.contractDefs()
	require.Equal(t, "FHEPolicy", defs[1].name)
	defs[1].methods = edit(slices.Clone(defs[1].methods))
	return s.build(defs)
}

func TestSuiteRejectsABIMethodWithoutHandler(t *testing.T) {
	t.Parallel()
	err := buildWith(t, func(ms []methodSpec) []methodSpec {
		return slices.DeleteFunc(ms, func(m methodSpec) bool { return m.name == "evaluate" })
	})
	require.EqualError(t, err, "precompiles: FHEPolicy: ABI method evaluate has no handler")
}

func TestSuiteRejectsHandlerWithoutABIMethod(t *testing.T) {
	t.Parallel()
	err := buildWith(t, func(ms []methodSpec) []methodSpec {
		return append(ms, methodSpec{name: "unregister", gas: 1, run: ms[0].run})
	})
	require.EqualError(t, err, "precompiles: FHEPolicy: handler unregister has no method in the ABI")
}

func TestSuiteRejectsDuplicateRegistration(t *testing.T) {
	t.Parallel()
	err := buildWith(t, func(ms []methodSpec) []methodSpec { return append(ms, ms[1]) })
	require.EqualError(t, err, "precompiles: FHEPolicy: method evaluate registered twice")
}

func TestSuiteRejectsNilHandler(t *testing.T) {
	t.Parallel()
	err := buildWith(t, func(ms []methodSpec) []methodSpec {
		ms[0].run = nil
		return ms
	})
	require.EqualError(t, err, "precompiles: FHEPolicy: method registerPolicy has a nil handler")
}

// TestMethodTables: every contract's table is sorted by selector, lookup finds
// every ABI method, and Methods lists the names in name order.
func TestMethodTables(t *testing.T) {
	t.Parallel()
	s, err := NewSuite(testOptions())
	require.NoError(t, err)
	for _, c := range s.Contracts() {
		require.Len(t, c.methods, len(c.abi.Methods), c.Name())
		require.True(t, slices.IsSortedFunc(c.methods, func(x, y *method) int { return bytes.Compare(x.abi.ID, y.abi.ID) }), c.Name())
		for name, am := range c.abi.Methods {
			m, ok := c.lookup(am.ID)
			require.True(t, ok, "%s.%s", c.Name(), name)
			require.Equal(t, name, m.name)
		}
		_, ok := c.lookup([]byte{0, 0, 0, 0})
		require.False(t, ok)
		require.True(t, slices.IsSorted(c.Methods()), c.Name())
	}
}

// TestNewSuiteRefusesNilBackends. Attack/defect: NewSuite silently installed
// the stand-in compiler and merger when a host passed nil, so a validator
// wired without backends (e.g. SetBackends(nil, nil) left over from a test)
// would run test stand-ins on a real chain and disagree with every other
// validator. NewSuite must refuse a nil compiler or merger.
func TestNewSuiteRefusesNilBackends(t *testing.T) {
	t.Parallel()
	for _, o := range []Options{{}, {Compiler: standInCompiler{}}, {Merger: standInMerger{}}} {
		s, err := NewSuite(o)
		require.Error(t, err)
		require.Nil(t, s)
	}
	s, err := NewSuite(testOptions())
	require.NoError(t, err)
	require.NotNil(t, s)
}
