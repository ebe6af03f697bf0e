// Command go is the Go client example: against a running `fhegate devnet` it
// deploys the example contracts and takes a private credit application from
// encrypted-input registration to a settled verdict (examples/creditgate has
// the step-by-step code, using ethclient and the abigen bindings in
// contracts/bindings).
//
//	go run ./cmd/fhegate devnet          # terminal 1
//	go run ./examples/go                 # terminal 2
//
// The devnet registers the well-known development committee
// (devchain.DevCommittee) in FHEVerdict; this client signs input attestations
// and the verdict with its public keys, standing in for the MPC committee.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/big"
	"os"
	"time"

	"github.com/ava-labs/libevm/ethclient"

	"github.com/fhegate/fhegate/examples/creditgate"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm/devchain"
)

func main() {
	rpcURL := flag.String("rpc", "http://127.0.0.1:8545", "JSON-RPC endpoint of the devnet")
	account := flag.Int("account", 0, "dev account index that applies (0-10, as printed by the devnet)")
	deny := flag.Bool("deny", false, "have the committee deny the application")
	timeout := flag.Duration("timeout", 2*time.Minute, "give up after this long")
	flag.Parse()
	if err := run(*rpcURL, *account, *deny, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "examples/go:", err)
		os.Exit(1)
	}
}

func run(rpcURL string, account int, deny bool, timeout time.Duration) error {
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
	verdict := big.NewInt(1)
	if deny {
		verdict = big.NewInt(0)
	}
	res, err := creditgate.Run(ctx, cl, creditgate.Options{
		Committee: devchain.DevCommittee(),
		Applicant: &accts[account],
		Verdict:   verdict,
		Logf:      func(f string, a ...any) { fmt.Printf(f+"\n", a...) },
	})
	if err != nil {
		return err
	}
	fmt.Printf("OK: chain %s, request %s, approved=%v, credit line %s (%d transactions)\n",
		res.ChainID, res.RequestID, res.Approved, res.CreditLine, res.Transactions)
	return nil
}
