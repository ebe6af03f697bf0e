package main

import (
	"fmt"
	"math/big"
	"runtime"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// inputsRow is one preset's input-proof measurement.
type inputsRow struct {
	Preset string `json:"preset"`
	N      int    `json:"n"`
	// Reps is the number of parallel repetitions of the monomial-challenge
	// protocol and SoundnessBits −log2 of its knowledge error, r·log2(2N).
	Reps          int     `json:"reps"`
	SoundnessBits float64 `json:"soundness_bits"`
	LogB          []int   `json:"log_b"` // masking bounds of u, e0, e1, m
	// ProveMs is a plain public-key encryption plus the proof
	// (zkpok.Key.EncryptInts); EncryptMs is the plain encryption alone
	// (fhe.Encryptor.EncryptInts), the baseline.
	ProveMs    float64 `json:"prove_ms"`
	EncryptMs  float64 `json:"encrypt_ms"`
	VerifyMs   float64 `json:"verify_ms"`
	ProofBytes int     `json:"proof_bytes"`
	CtBytes    int     `json:"ciphertext_bytes"`
	Runs       int     `json:"runs"`
	GOMAXPROCS int     `json:"gomaxprocs"`
}

func newBenchInputsCmd(a *app) *cobra.Command {
	var (
		jsonPath string
		runs     int
	)
	cmd := &cobra.Command{
		Use:   "inputs",
		Short: "Input proofs of plaintext knowledge (fhe/zkpok): prove and verify time, proof size per ciphertext",
		Long: `Measures, for bgv-n13-t65537 and bgv-n14-t65537, encrypting one ciphertext with its proof of
plaintext knowledge (client side), verifying the proof (every committee member, per upload) and the
proof size, beside a plain public-key encryption; soundness_bits is −log2 of the proof's knowledge
error (r repetitions of 2N monomial challenges). Medians of --runs runs. Published figures of the
protocol family are in the fhe/zkpok package doc.`,
		Example: `  fhegate bench inputs
  fhegate bench inputs --runs 11 --json docs/results/inputs.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log := a.Log()
			if runs < 1 {
				return fmt.Errorf("--runs must be ≥ 1")
			}
			var rows []inputsRow
			for _, id := range []fhe.PresetID{fhe.BGVN13, fhe.BGVN14} {
				r, err := benchInputs(id, runs)
				if err != nil {
					return err
				}
				rows = append(rows, r)
			}
			out := cmd.OutOrStdout()
			if jsonPath == "-" {
				out = cmd.ErrOrStderr()
			}
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "preset\treps\tsoundness_bits\tprove_ms\tencrypt_ms\tverify_ms\tproof_bytes\tciphertext_bytes")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t%d\n", r.Preset, r.Reps, r.SoundnessBits, r.ProveMs, r.EncryptMs, r.VerifyMs, r.ProofBytes, r.CtBytes)
			}
			_ = tw.Flush()
			if jsonPath != "" {
				if err := writeJSON(cmd.OutOrStdout(), jsonPath, rows); err != nil {
					return err
				}
				log.Info("wrote input-proof results", zap.String("file", jsonPath))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&jsonPath, "json", "", "write results as JSON to FILE (- for stdout)")
	cmd.Flags().IntVar(&runs, "runs", 11, "timed runs per row (median reported)")
	return cmd
}

func benchInputs(id fhe.PresetID, runs int) (inputsRow, error) {
	p, err := fhe.NewParams(id)
	if err != nil {
		return inputsRow{}, err
	}
	pk := fhe.GenKeys(p, nil).Public
	key, err := zkpok.NewKey(pk)
	if err != nil {
		return inputsRow{}, err
	}
	ctx := zkpok.Context{ChainID: big.NewInt(43112), Epoch: 1, Owner: [20]byte{1}}
	vals := []int64{1, 2, 3, 4}
	med := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	var prove, verify, enc []time.Duration
	row := inputsRow{Preset: p.Preset.Name, N: p.N(), Reps: key.PP.Reps, SoundnessBits: key.PP.SoundnessBits,
		LogB: key.PP.LogB[:], Runs: runs, GOMAXPROCS: runtime.GOMAXPROCS(0)}
	plain := fhe.NewEncryptor(pk)
	for range runs {
		s := time.Now()
		ct, proof, err := key.EncryptInts(vals, ctx)
		if err != nil {
			return row, err
		}
		prove = append(prove, time.Since(s))
		h, err := ct.Handle()
		if err != nil {
			return row, err
		}
		s = time.Now()
		if err := key.Verify(ct, h, ctx, proof); err != nil {
			return row, err
		}
		verify = append(verify, time.Since(s))
		s = time.Now()
		if _, err := plain.EncryptInts(vals); err != nil {
			return row, err
		}
		enc = append(enc, time.Since(s))
		row.ProofBytes, row.CtBytes = len(proof), ct.EncodedSize()
	}
	row.ProveMs, row.VerifyMs, row.EncryptMs = med(prove), med(verify), med(enc)
	return row, nil
}
