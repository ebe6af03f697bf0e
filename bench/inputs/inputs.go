// Package inputs measures input proofs of plaintext knowledge (fhe/zkpok,
// `fhegate bench inputs`): for bgv-n13-t65537 and bgv-n14-t65537, at the
// top level and at the upload level clients use (zkpok.UploadLevel, the
// pack level), encrypting one ciphertext with its proof (client side),
// verifying it (every committee member, per upload) and the bytes of the
// ciphertext and the proof, beside a plain public-key encryption of the
// same values at the same level. soundness_bits is −log2 of the knowledge
// error of r parallel repetitions of the monomial-challenge Σ-protocol
// (Lyubashevsky's proofs with aborts, Fiat–Shamir: r·log2(2N)); published
// figures of the protocol family are in the fhe/zkpok package doc.
package inputs

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"runtime"
	"slices"
	"text/tabwriter"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bench"
	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// Row is one preset's input-proof measurement.
type Row struct {
	Preset string `json:"preset"`
	N      int    `json:"n"`
	// Level is the level of the input (Upload: zkpok.UploadLevel, what
	// clients send; otherwise the top level, TopLevel).
	Level    int  `json:"level"`
	TopLevel int  `json:"top_level"`
	Upload   bool `json:"upload_level"`
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
	// InputBytes is CtBytes + ProofBytes: what one input costs on the wire
	// before framing.
	InputBytes int `json:"input_bytes"`
	// UploadBytes is the POST /v1/inputs body of one input as the clients
	// send it (api.UploadBody, binary); JSONBytes the same upload as JSON
	// (api.UploadRequest, hex), which a member also reads.
	UploadBytes int `json:"upload_bytes"`
	JSONBytes   int `json:"json_upload_bytes"`
	Runs        int `json:"runs"`
	GOMAXPROCS  int `json:"gomaxprocs"`
}

// Command is `fhegate bench inputs`: Runs timed runs per row (median
// reported) on bgv-n13-t65537 and bgv-n14-t65537; the table goes to Stdout
// (Stderr when JSONPath is "-"), the rows as JSON to JSONPath.
type Command struct {
	JSONPath       string
	Runs           int
	Log            *zap.Logger
	Stdout, Stderr io.Writer
}

// Run measures both presets at both levels, prints the table and writes
// the JSON.
func (c Command) Run() error {
	if c.Runs < 1 {
		return fmt.Errorf("--runs must be ≥ 1")
	}
	var rows []Row
	for _, id := range []fhe.PresetID{fhe.BGVN13, fhe.BGVN14} {
		r, err := Measure(id, c.Runs)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}
	return bench.Report(c.Stdout, c.Stderr, c.JSONPath, c.Log, "input-proof", rows, func(w io.Writer) { Print(w, rows) })
}

// Print prints the rows as a table.
func Print(w io.Writer, rows []Row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "preset\tlevel\treps\tsoundness_bits\tprove_ms\tencrypt_ms\tverify_ms\tproof_bytes\tciphertext_bytes\tinput_bytes\tupload_bytes\tjson_upload_bytes\truns")
	for _, r := range rows {
		level := fmt.Sprintf("%d (top)", r.Level)
		if r.Upload {
			level = fmt.Sprintf("%d (upload)", r.Level)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t%d\t%d\t%d\t%d\t%d\n", r.Preset, level, r.Reps, r.SoundnessBits, r.ProveMs, r.EncryptMs, r.VerifyMs, r.ProofBytes, r.CtBytes, r.InputBytes, r.UploadBytes, r.JSONBytes, r.Runs)
	}
	_ = tw.Flush()
}

// Measure is one preset's rows, the top level then the upload level: Runs
// encryptions with a proof, verifications and plain encryptions of the same
// values at each level, the two levels alternating within each run (the
// same machine state for both), medians.
func Measure(id fhe.PresetID, runs int) ([]Row, error) {
	p, err := fhe.NewParams(id)
	if err != nil {
		return nil, err
	}
	pk := fhe.GenKeys(p, nil).Public
	top, err := zkpok.NewKey(pk)
	if err != nil {
		return nil, err
	}
	up, err := zkpok.NewUploadKey(pk)
	if err != nil {
		return nil, err
	}
	ctx := zkpok.Context{ChainID: big.NewInt(43112), Epoch: 1, Owner: [20]byte{1}}
	vals := []int64{1, 2, 3, 4}
	med := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	keys := []*zkpok.Key{top, up}
	rows := make([]Row, len(keys))
	prove, verify, enc := make([][]time.Duration, len(keys)), make([][]time.Duration, len(keys)), make([][]time.Duration, len(keys))
	for i, key := range keys {
		rows[i] = Row{Preset: p.Preset.Name, N: p.N(), Level: key.Level(), TopLevel: p.MaxLevel(), Upload: key == up,
			Reps: key.PP.Reps, SoundnessBits: key.PP.SoundnessBits, LogB: key.PP.LogB[:], Runs: runs, GOMAXPROCS: runtime.GOMAXPROCS(0)}
	}
	plain := fhe.NewEncryptor(pk)
	for range runs {
		for i, key := range keys {
			row := &rows[i]
			s := time.Now()
			ct, proof, err := key.EncryptInts(vals, ctx)
			if err != nil {
				return nil, err
			}
			prove[i] = append(prove[i], time.Since(s))
			h, err := ct.Handle()
			if err != nil {
				return nil, err
			}
			s = time.Now()
			if err := top.Verify(ct, h, ctx, proof); err != nil { // as a member does, whatever the level
				return nil, err
			}
			verify[i] = append(verify[i], time.Since(s))
			s = time.Now()
			if _, err := plain.EncryptIntsAtLevel(vals, key.Level()); err != nil {
				return nil, err
			}
			enc[i] = append(enc[i], time.Since(s))
			if row.UploadBytes == 0 { // the sizes are the same every run
				row.ProofBytes, row.CtBytes = len(proof), ct.EncodedSize()
				row.InputBytes = row.CtBytes + row.ProofBytes
				if row.UploadBytes, row.JSONBytes, err = uploadSizes(ctx.Owner, ct, proof); err != nil {
					return nil, err
				}
			}
		}
	}
	for i := range rows {
		rows[i].ProveMs, rows[i].VerifyMs, rows[i].EncryptMs = med(prove[i]), med(verify[i]), med(enc[i])
	}
	return rows, nil
}

// uploadSizes are the binary and the JSON POST /v1/inputs bodies of one
// input.
func uploadSizes(owner [20]byte, ct *fhe.Ciphertext, proof []byte) (binary, jsonBytes int, err error) {
	cb, err := ct.MarshalBinary()
	if err != nil {
		return 0, 0, err
	}
	b, err := api.UploadBody(owner, []api.InputUpload{{Ciphertext: cb, Proof: proof, CType: 1}}, false)
	if err != nil {
		return 0, 0, err
	}
	j, err := json.Marshal(api.UploadRequest{Owner: "0x" + hex.EncodeToString(owner[:]),
		Inputs: []api.UploadInput{{Ciphertext: "0x" + hex.EncodeToString(cb), CType: 1, Proof: "0x" + hex.EncodeToString(proof)}}})
	return len(b), len(j), err
}
