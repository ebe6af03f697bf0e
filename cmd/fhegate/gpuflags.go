package main

import (
	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/configs"
	"github.com/fhegate/fhegate/gpu/backends"
)

// gpuFlags are the dispatcher options of the processes that evaluate FHE
// (committee members, the devnet's in-process committee).
type gpuFlags struct {
	backend string
	table   string
}

func (g *gpuFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&g.backend, "gpu-backend", "", `NTT accelerator ("" = the crossover table's, "cpu" = none); see fhegate gpu info`)
	cmd.Flags().StringVar(&g.table, "gpu-table", "", "crossover table from fhegate calibrate (default: the embedded one, which routes everything to the CPU)")
}

// install makes the NTT dispatcher the router of fhegate's engine
// (engine.SetRouter) for the life of the process. An accelerator is used only if it passes its
// self-test and only for batches at or above the table's crossover, so the
// results are byte-identical either way.
func (g *gpuFlags) install(log *zap.Logger) (func(), error) {
	d, stop, err := backends.Install(backends.Config{Log: log.Named("gpu"), Backend: g.backend, TablePath: g.table, Embedded: configs.CrossoverJSON()})
	if err != nil {
		return nil, err
	}
	log.Debug("NTT dispatcher installed", zap.Any("status", d.Status()))
	return stop, nil
}
