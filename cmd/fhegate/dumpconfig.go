package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"github.com/fhegate/fhegate/configs"
	"github.com/fhegate/fhegate/fhe"
)

// embeddedConfigs are the defaults compiled into the binary, by name.
func embeddedConfigs() map[string]func() ([]byte, error) {
	return map[string]func() ([]byte, error){
		"genesis":   func() ([]byte, error) { return configs.DevnetGenesis(), nil },
		"crossover": func() ([]byte, error) { return configs.CrossoverJSON(), nil },
		"presets":   presetsJSON,
	}
}

func newDumpConfigCmd(_ *app) *cobra.Command {
	return &cobra.Command{
		Use:   "dumpconfig [genesis|crossover|presets]",
		Short: "Print an embedded default configuration (devnet genesis, GPU crossover table, FHE presets) as JSON",
		Long: `dumpconfig prints the defaults compiled into this binary so that an operator can copy and edit them:
  genesis    the devnet chain genesis (precompiles enabled, dev accounts funded)
  crossover  the GPU crossover table in force when no calibrated table is found
  presets    the FHE parameter presets (id, name, scheme, ring degree, moduli, depth)`,
		Example: `  fhegate dumpconfig
  fhegate dumpconfig genesis > genesis.json
  fhegate dumpconfig presets`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			all := embeddedConfigs()
			if len(args) == 0 {
				names := make([]string, 0, len(all))
				for n := range all {
					names = append(names, n)
				}
				sort.Strings(names)
				fmt.Fprintf(cmd.OutOrStdout(), "embedded configs: %v (fhegate dumpconfig NAME)\n", names)
				return nil
			}
			get, ok := all[args[0]]
			if !ok {
				return fmt.Errorf("unknown config %q", args[0])
			}
			raw, err := get()
			if err != nil {
				return err
			}
			var out bytes.Buffer
			if err := json.Indent(&out, raw, "", "  "); err != nil {
				return fmt.Errorf("embedded %s is not valid JSON: %w", args[0], err)
			}
			out.WriteByte('\n')
			_, err = cmd.OutOrStdout().Write(out.Bytes())
			return err
		},
	}
}

func presetsJSON() ([]byte, error) {
	type presetDoc struct {
		ID       uint8    `json:"id"`
		Name     string   `json:"name"`
		Scheme   string   `json:"scheme"`
		LogN     int      `json:"logN"`
		Slots    int      `json:"slots"`
		LogQP    float64  `json:"logQP"`
		Q        []uint64 `json:"q"`
		P        []uint64 `json:"p"`
		T        uint64   `json:"plaintextModulus,omitempty"`
		Depth    int      `json:"depth"`
		Doc      string   `json:"doc"`
		Insecure bool     `json:"insecure,omitempty"`
	}
	var docs []presetDoc
	for _, pr := range fhe.Presets() {
		p, err := fhe.NewParams(pr.ID)
		if err != nil {
			return nil, err
		}
		docs = append(docs, presetDoc{ID: uint8(pr.ID), Name: pr.Name, Scheme: pr.Scheme.String(), LogN: p.LogN(), Slots: p.Slots(),
			LogQP: p.LogQP(), Q: p.Q(), P: p.P(), T: p.PlaintextModulus(), Depth: pr.Depth, Doc: pr.Doc, Insecure: pr.Insecure()})
	}
	return json.Marshal(docs)
}
