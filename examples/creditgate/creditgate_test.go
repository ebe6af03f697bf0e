package creditgate

import (
	"context"
	"math/big"
	"os"
	"testing"
	"time"

	"github.com/ava-labs/libevm/ethclient"
	"github.com/ava-labs/subnet-evm/plugin/evm"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/configs"
	"github.com/fhegate/fhegate/devchain"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/precompiles/corebackends"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
)

func TestMain(m *testing.M) {
	evm.RegisterAllLibEVMExtras()
	// The backends the VM plugin and `fhegate devnet` use.
	if err := subnetevm.SetBackends(corebackends.Policy{}, corebackends.CRDTMeta{}); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

func TestDefaultPolicySpecCompiles(t *testing.T) {
	plan, err := policy.Compile(DefaultPolicySpec)
	require.NoError(t, err)
	require.Len(t, plan.Inputs, 2)
}

// devnet starts an in-process devchain with committee registered in
// FHEVerdict and dials it.
func devnet(t *testing.T, committee *devchain.Committee) *ethclient.Client {
	t.Helper()
	genesis, err := configs.WithCommittee(configs.DevnetGenesis(), committee.Registry())
	require.NoError(t, err)
	c, err := devchain.New(devchain.Config{Genesis: genesis, HTTPAddr: "127.0.0.1:0", Logger: zaptest.NewLogger(t)})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	cl, err := ethclient.Dial(c.URL())
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return cl
}

// The same flow the e2e test runs on a real node, on the in-process devchain,
// with the stand-in committee.
func TestFlowOnDevchain(t *testing.T) {
	committee := devchain.DevCommittee()
	cl := devnet(t, committee)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, tc := range []struct {
		name    string
		verdict int64
	}{{"approve", 1}, {"deny", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Run(ctx, cl, Options{Committee: committee, Verdict: big.NewInt(tc.verdict), Logf: t.Logf})
			require.NoError(t, err)
			require.Equal(t, tc.verdict == 1, res.Approved)
			require.NotEqual(t, res.Handles[0], res.Handles[1])
		})
	}
}

func TestFlowRejectsWrongCommittee(t *testing.T) {
	cl := devnet(t, devchain.DevCommittee())
	impostor, err := devchain.NewCommittee("impostor", 1, 3, 2)
	require.NoError(t, err)
	_, err = Run(context.Background(), cl, Options{Committee: impostor})
	require.ErrorContains(t, err, "FHEInput.registerBatch")
}
