package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/fhegate/fhegate/bench"
	"github.com/fhegate/fhegate/internal/usage"
)

// Devnet is an in-process chain and committee a run without an RPC URL
// starts (the code path of `fhegate devnet`).
type Devnet struct {
	RPC, CommitteeAPI string
	Note              string // how the committee was set up, for the progress line
	Close             func()
}

// Command is `fhegate bench load`: Config against the chain at Config.RPC
// and its committee, or — without an RPC URL — against the devnet
// StartDevnet starts; PIDs are committee processes whose CPU is measured
// (with an RPC URL). Progress and the summary go to Out, the result as JSON
// to JSONPath.
type Command struct {
	Config      Config
	JSONPath    string
	PIDs        []int
	StartDevnet func(ctx context.Context) (*Devnet, error)
	Out         io.Writer
}

// Run runs the load and writes the result, also when a verdict mismatched
// (the error then says so).
func (c Command) Run(ctx context.Context) error {
	if c.Out == nil {
		c.Out = io.Discard
	}
	cfg := c.Config
	cfg.Progress = c.Out
	switch {
	case cfg.RPC == "":
		if cfg.CommitteeAPI != "" || len(c.PIDs) > 0 {
			return usage.Errorf("--committee-api and --committee-pid need --rpc (without it the devnet's own committee is used)")
		}
		if c.StartDevnet == nil {
			return errors.New("no --rpc and no in-process devnet")
		}
		d, err := c.StartDevnet(ctx)
		if err != nil {
			return err
		}
		defer d.Close()
		if d.CommitteeAPI == "" {
			return fmt.Errorf("the in-process committee did not start its client API")
		}
		cfg.RPC, cfg.CommitteeAPI = d.RPC, d.CommitteeAPI
		fmt.Fprintf(c.Out, "load: devnet %s, committee API %s (%s)\n", cfg.RPC, cfg.CommitteeAPI, d.Note)
		cfg.CommitteeCPU = func() (time.Duration, error) { return bench.CPUTime(), nil }
		cfg.CPUSource = "process CPU of this process (in-process devnet: committee + chain + load clients' polling)"
	case cfg.CommitteeAPI == "":
		return usage.Errorf("--rpc needs --committee-api")
	case len(c.PIDs) > 0:
		cfg.CommitteeCPU = ProcessCPU(c.PIDs)
		cfg.CPUSource = fmt.Sprintf("/proc CPU of committee processes %v", c.PIDs)
	}
	res, err := Run(ctx, cfg)
	if res != nil && c.JSONPath != "" {
		if werr := bench.WriteJSON(c.Out, c.JSONPath, res); werr != nil {
			return werr
		}
	}
	return err
}
