package inputs

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
)

// TestMeasure: one run on BGVN13 proves, verifies (Measure fails on a
// rejected proof) and reports the proof's parameters: r·log2(2N) bits of
// soundness, a proof and a ciphertext of plausible size.
func TestMeasure(t *testing.T) {
	if testing.Short() {
		t.Skip("BGVN13 key generation and a proof: seconds")
	}
	rows, err := Measure(fhe.BGVN13, 1)
	require.NoError(t, err)
	require.Len(t, rows, 2)
	require.False(t, rows[0].Upload)
	require.Equal(t, rows[0].TopLevel, rows[0].Level)
	require.True(t, rows[1].Upload)
	require.Equal(t, 3, rows[1].Level, "bgv-n13's upload level (zkpok.UploadLevel)")
	require.Less(t, rows[1].CtBytes, rows[0].CtBytes)
	require.Equal(t, rows[0].ProofBytes, rows[1].ProofBytes, "the proof's size does not depend on the level")
	for _, r := range rows {
		require.Equal(t, "bgv-n13-t65537", r.Preset)
		require.Equal(t, 1<<13, r.N)
		require.InDelta(t, float64(r.Reps)*math.Log2(2*float64(r.N)), r.SoundnessBits, 1e-9)
		require.GreaterOrEqual(t, r.SoundnessBits, 128.0)
		require.Len(t, r.LogB, 4)
		require.Positive(t, r.ProveMs)
		require.Positive(t, r.VerifyMs)
		require.Greater(t, r.ProofBytes, r.N)
		require.Greater(t, r.CtBytes, 2*r.N*8)
		require.Equal(t, r.CtBytes+r.ProofBytes, r.InputBytes)
		require.Equal(t, r.CtBytes+r.ProofBytes+26+9, r.UploadBytes, "the binary body is the raw bytes and 35 of framing")
		require.Greater(t, r.JSONBytes, 2*(r.CtBytes+r.ProofBytes))
		b, err := json.Marshal(r)
		require.NoError(t, err)
		for _, k := range []string{"preset", "level", "upload_level", "reps", "soundness_bits", "prove_ms", "encrypt_ms", "verify_ms", "proof_bytes", "ciphertext_bytes", "input_bytes", "upload_bytes", "json_upload_bytes"} {
			require.Contains(t, string(b), `"`+k+`"`)
		}
	}
}

// TestCommandRejectsRuns: no runs is an error before any key is generated.
func TestCommandRejectsRuns(t *testing.T) {
	var out bytes.Buffer
	require.ErrorContains(t, Command{Runs: 0, Stdout: &out, Stderr: &out}.Run(), "--runs")
	require.Zero(t, out.Len())
}
