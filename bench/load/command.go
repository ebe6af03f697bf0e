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
	// Bounce kills committee member id and restarts it after down (nil:
	// the devnet cannot).
	Bounce func(ctx context.Context, id uint32, down time.Duration) error
}

// DefaultKillFor is how long a member killed mid-batch stays down
// (Command.KillFor).
const DefaultKillFor = 15 * time.Second

// Command is `fhegate bench load`: Config against the chain at Config.RPC
// and its committee, or — without an RPC URL — against the devnet
// StartDevnet starts; PIDs are committee processes whose CPU is measured
// (with an RPC URL). Progress and the summary go to Out, the result as JSON
// to JSONPath.
type Command struct {
	Config   Config
	JSONPath string
	PIDs     []int
	// KillMember, if not 0, is the in-process committee member killed
	// mid-batch (Config.Fault, after Config.FaultAfter verdicts) and
	// restarted KillFor later: the run passes only if every request is
	// still answered, once, as its reference says.
	KillMember  uint32
	KillFor     time.Duration
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
	case c.KillMember != 0 && cfg.RPC != "":
		return usage.Errorf("--kill-member needs the in-process devnet (no --rpc): a committee served elsewhere is stopped by its operator")
	case c.KillMember == 0 && (c.KillFor != 0 || cfg.FaultAfter != 0):
		return usage.Errorf("--kill-for and --kill-after need --kill-member")
	case c.KillFor < 0:
		return usage.Errorf("--kill-for %s: want a positive duration", c.KillFor)
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
		if c.KillMember != 0 {
			if d.Bounce == nil {
				return errors.New("this devnet cannot kill a committee member")
			}
			down := c.KillFor
			if down == 0 {
				down = DefaultKillFor
			}
			cfg.Fault = func(ctx context.Context) (string, error) {
				if err := d.Bounce(ctx, c.KillMember, down); err != nil {
					return "", err
				}
				return fmt.Sprintf("committee member %d killed, restarted %s later", c.KillMember, down), nil
			}
		}
		cfg.CPUSource = "process CPU of this process (in-process devnet: committee + chain + load clients' polling)"
	case cfg.CommitteeAPI == "":
		return usage.Errorf("--rpc needs --committee-api")
	case len(c.PIDs) > 0:
		cfg.CommitteeCPU = ProcessCPU(func() []int { return c.PIDs })
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
