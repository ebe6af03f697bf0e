// Command go is the Go client example: against a running `fhegate devnet` it
// deploys the example contracts and takes a private credit application from
// encrypted-input registration to a settled verdict (examples/creditgate has
// the step-by-step code, using ethclient and the abigen bindings in
// contracts/bindings).
//
//	go run ./cmd/fhegate devnet --datadir /tmp/fhegate   # terminal 1
//	go run ./examples/go --datadir /tmp/fhegate          # terminal 2
//
// The income and debt are encrypted under the committee's key and uploaded
// to the devnet's MPC committee, which attests them; the committee evaluates
// the policy on the ciphertexts and posts the verdict; the client settles.
// With `devnet --dev-committee` (no MPC committee), pass --dev-committee: the
// client then signs the attestations and the verdict itself with the public
// development keys (devchain.DevCommittee) and no FHE runs.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ava-labs/libevm/ethclient"

	"github.com/fhegate/fhegate/devchain"
	"github.com/fhegate/fhegate/examples/creditgate"
)

func main() {
	rpcURL := flag.String("rpc", "http://127.0.0.1:8545", "JSON-RPC endpoint of the devnet")
	account := flag.Int("account", 0, "dev account index that applies (0-10, as printed by the devnet)")
	api := flag.String("committee-api", "", "committee client API URL (default: read from --datadir's committee/api.addr)")
	dataDir := flag.String("datadir", "", "the devnet's --datadir, to find the committee API")
	dev := flag.Bool("dev-committee", false, "the devnet runs with --dev-committee: sign attestations and the verdict locally")
	income := flag.Int64("income", 5, "private income bucket (0-7)")
	debt := flag.Int64("debt", 1, "private debt bucket (0-2); approved iff income > 3*debt")
	timeout := flag.Duration("timeout", 2*time.Minute, "give up after this long")
	flag.Parse()
	if err := run(*rpcURL, *account, *api, *dataDir, *dev, *income, *debt, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "examples/go:", err)
		os.Exit(1)
	}
}

func run(rpcURL string, account int, api, dataDir string, dev bool, income, debt int64, timeout time.Duration) error {
	accts := devchain.DevAccounts()
	if account < 0 || account >= len(accts) {
		return fmt.Errorf("--account %d: want 0..%d", account, len(accts)-1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cl, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		return err
	}
	defer cl.Close()
	if _, err := cl.ChainID(ctx); err != nil {
		return fmt.Errorf("no chain at %s (is `go run ./cmd/fhegate devnet` running?): %w", rpcURL, err)
	}
	opts := creditgate.Options{
		Applicant: &accts[account],
		Income:    income,
		Debt:      debt,
		Logf:      func(f string, a ...any) { fmt.Printf(f+"\n", a...) },
	}
	switch {
	case dev:
		opts.Committee = devchain.DevCommittee()
	case api != "":
		opts.CommitteeAPI = api
	case dataDir != "":
		b, err := os.ReadFile(filepath.Join(dataDir, "committee", "api.addr"))
		if err != nil {
			return fmt.Errorf("committee API address: %w", err)
		}
		opts.CommitteeAPI = strings.TrimSpace(string(b))
	default:
		return fmt.Errorf("say how to reach the committee: --datadir DIR (the devnet's), --committee-api URL, or --dev-committee")
	}
	res, err := creditgate.Run(ctx, cl, opts)
	if err != nil {
		return err
	}
	fmt.Printf("OK: chain %s, request %s, verdict %s, approved=%v, credit line %s (%d transactions)\n",
		res.ChainID, res.RequestID, res.Verdict, res.Approved, res.CreditLine, res.Transactions)
	return nil
}
