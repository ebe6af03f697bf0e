package abi

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	t.Parallel()
	events := map[string]string{Input: "InputRegistered", Policy: "EvaluationRequested", CRDT: "ValueRequested", Verdict: "VerdictAccepted"}
	for name, ev := range events {
		a, err := Parse(name)
		require.NoError(t, err, name)
		require.NotEmpty(t, a.Methods, name)
		require.Contains(t, a.Events, ev, name)
	}
	_, err := Parse("IFHENothing")
	require.Error(t, err)
}
