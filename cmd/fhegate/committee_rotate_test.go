package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	ethereum "github.com/ava-labs/libevm"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/ethclient"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/configs"
	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/chain"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/config"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/devchain"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	keccakpkg "github.com/fhegate/fhegate/internal/keccak"
	"github.com/fhegate/fhegate/internal/ports"
	"github.com/fhegate/fhegate/precompiles"
	precompileabi "github.com/fhegate/fhegate/precompiles/abi"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
)

// freeBase returns a base port whose next 8 ports were free a moment ago,
// below the kernel's ephemeral range, so that the 127.0.0.1:0 listeners and
// outgoing connections of tests running in parallel cannot take them
// between this check and their use (package ports).
func freeBase(t *testing.T) int {
	t.Helper()
	base, err := ports.FreeBase(8)
	require.NoError(t, err)
	return base
}

// runAllAfter runs one CLI invocation per member id at the same time, member
// id's started after[id] later than the others, and requires each to
// succeed.
func runAllAfter(t *testing.T, ids []uint32, after map[uint32]time.Duration, args func(id uint32) []string) {
	t.Helper()
	errs := make([]error, len(ids))
	outs := make([]string, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func(i int, id uint32) {
			defer wg.Done()
			time.Sleep(after[id])
			outs[i], errs[i] = runCLI(t, args(id)...)
		}(i, id)
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "member %d: %s", ids[i], outs[i])
	}
}

// runArgs runs the CLI invocations at the same time and requires each to
// succeed.
func runArgs(t *testing.T, runs [][]string) {
	t.Helper()
	errs := make([]error, len(runs))
	outs := make([]string, len(runs))
	var wg sync.WaitGroup
	for i, args := range runs {
		wg.Add(1)
		go func() { defer wg.Done(); outs[i], errs[i] = runCLI(t, args...) }()
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "%v: %s", runs[i], outs[i])
	}
}

// TestCommitteeRotateCLI: inputs uploaded to a 2-of-3 epoch-1 committee
// are moved to an epoch-2 committee by `committee rotate switch`, run by
// old members 1 and 2 and the three new members as separate commands over
// TLS on loopback sockets: every new member stores each input under its
// handle, under epoch 2, with the same bytes, and the new committee
// evaluates 5·(−7) over them to the plaintext's result. An old member
// refuses a target the chain has not recorded (bindNewKeyOnChain), its own
// committee's key, and a run in which it is not active.
func TestCommitteeRotateCLI(t *testing.T) {
	dir := t.TempDir()
	oldDir, newDir := filepath.Join(dir, "old"), filepath.Join(dir, "new")
	preset := fhe.MustParams(fhetest.InsecureBGVN10).Preset.Name
	ids := []uint32{1, 2, 3}
	_, err := runCLI(t, "committee", "init", "--dir", oldDir, "--n", "3", "--t", "2", "--preset", preset, "--base-port", fmt.Sprint(freeBase(t)))
	require.NoError(t, err)
	_, err = runCLI(t, "committee", "dkg", "--dir", oldDir, "--all", "--round-timeout", "20s")
	require.NoError(t, err)

	// Upload two inputs through member 1 while all three are up.
	var handles []fhe.Handle
	func() {
		ms := make([]*consensus.Member, 3)
		for i, id := range ids {
			m, st, err := openMember(oldDir, id, 10*time.Second, zap.NewNop())
			require.NoError(t, err)
			defer st.Close()
			defer m.Close()
			ms[i] = m
		}
		for _, v := range []int64{5, -7} {
			b, proof, err := ms[0].EncryptInput([]int64{v}, [20]byte{1})
			require.NoError(t, err)
			att, err := ms[0].Upload(context.Background(), b, proof, [20]byte{1}, 1)
			require.NoError(t, err)
			handles = append(handles, att.Handle)
		}
	}()

	_, err = runCLI(t, "committee", "init", "--dir", newDir, "--epoch", "2", "--n", "3", "--t", "2", "--preset", preset, "--base-port", fmt.Sprint(freeBase(t)))
	require.NoError(t, err)
	_, err = runCLI(t, "committee", "dkg", "--dir", newDir, "--all", "--round-timeout", "20s")
	require.NoError(t, err)

	rpc := bindNewKeyOnChain(t, dir, oldDir, newDir)
	switchArgs := func(side string, id uint32, extra ...string) []string {
		return append([]string{"committee", "rotate", "switch", "--side", side, "--member", fmt.Sprint(id), "--old", oldDir, "--new", newDir,
			"--rpc", rpc, "--round-timeout", "20s", "--wait", "1m"}, extra...)
	}
	// Old member 3 is not active (default: 1..t): it refuses to run.
	_, err = runCLI(t, switchArgs("old", 3)...)
	require.ErrorContains(t, err, "not one of the active old members")
	// A directory holding the old committee's own key as the "new" one.
	fake := filepath.Join(dir, "fake")
	require.NoError(t, os.MkdirAll(fake, 0o755))
	for f, from := range map[string]string{"committee.json": newDir, "committee.pk": oldDir} {
		b, err := os.ReadFile(filepath.Join(from, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(fake, f), b, 0o644))
	}
	_, err = runCLI(t, "committee", "rotate", "switch", "--side", "old", "--member", "1", "--old", oldDir, "--new", fake, "--rpc", rpc, "--wait", "5s")
	require.ErrorContains(t, err, "own key")

	start := time.Now()
	runArgs(t, [][]string{switchArgs("old", 1), switchArgs("old", 2), switchArgs("new", 1), switchArgs("new", 2), switchArgs("new", 3)})
	// Reported, not asserted (docs/LP-137.md, "Rotation over TLS").
	t.Logf("rotate switch (2 old + 3 new members, %d inputs, over loopback TLS): %v", len(handles), time.Since(start))

	var first [][]byte
	for _, id := range ids {
		st, err := store.Open(filepath.Join(memberDir(newDir, id), "member.db"))
		require.NoError(t, err)
		for k, h := range handles {
			b, e, err := st.GetAt(h)
			require.NoError(t, err)
			require.Equal(t, uint64(2), e)
			require.NotEqual(t, h, fhe.HandleOf(b))
			if id == 1 {
				first = append(first, b)
			} else {
				require.Equal(t, first[k], b, "member %d", id)
			}
		}
		require.NoError(t, st.Close())
	}

	// The active old members retired at the end of their switch; old
	// member 3 (not active) retires by hand — not before the chain recorded
	// the next key (bindNewKeyOnChain did), and only once.
	noShare := func(id uint32) {
		st, err := store.Open(filepath.Join(memberDir(oldDir, id), "member.db"))
		require.NoError(t, err)
		defer st.Close()
		_, err = st.GetMeta("epoch/1/tsk")
		require.ErrorIs(t, err, store.ErrNotFound, "old member %d's key share", id)
	}
	noShare(1)
	noShare(2)
	out, err := runCLI(t, "committee", "rotate", "retire", "--dir", oldDir, "--member", "3", "--rpc", rpc)
	require.NoError(t, err)
	require.Contains(t, out, "member 3 retired from epoch 1")
	noShare(3)
	_, err = runCLI(t, "committee", "rotate", "retire", "--dir", oldDir, "--member", "3", "--rpc", rpc)
	require.ErrorIs(t, err, consensus.ErrNoKeys, "a retired member has nothing left to retire")

	// The new committee evaluates over the migrated inputs: 5·(−7) mod t.
	ms := make([]*consensus.Member, 3)
	for i, id := range ids {
		m, st, err := openMember(newDir, id, 20*time.Second, zap.NewNop())
		require.NoError(t, err)
		defer st.Close()
		defer m.Close()
		ms[i] = m
	}
	tmod := int64(ms[0].Params().PlaintextModulus())
	want := big.NewInt((5*-7%tmod + tmod) % tmod)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req := chainio.Request{ID: [32]byte{0x70}, PolicyID: circuit.PolicyProductSum, Kind: chainio.KindPolicy, Inputs: handles}
	vs := make([]*chainio.Verdict, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Add(1)
		go func() { defer wg.Done(); vs[i], errs[i] = m.Process(ctx, req) }()
	}
	wg.Wait()
	for i := range ms {
		require.NoError(t, errs[i], "new member %d", i+1)
		require.Equal(t, want, vs[i].Result, "new member %d", i+1)
		require.Equal(t, uint64(2), vs[i].Epoch)
	}
}

// bindNewKeyOnChain starts a devchain whose genesis registers the old
// committee (governance: dev account 0), and walks the key binding: an old
// member refuses to key-switch to the new key while the chain has recorded
// none for epoch 2; governance installs
// the new committee (setCommittee); its members sign their key (`rotate
// sign-key`); one signature is under the threshold and refused; two are
// recorded (`rotate bind-key`, FHEVerdict.setCommitteeKey), and binding
// again is a no-op. It returns the chain's JSON-RPC URL.
func bindNewKeyOnChain(t *testing.T, dir, oldDir, newDir string) string {
	t.Helper()
	registerEVMExtras()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	var oldCfg, newCfg config.CommitteeConfig
	require.NoError(t, config.LoadJSON(filepath.Join(oldDir, "committee.json"), &oldCfg))
	require.NoError(t, config.LoadJSON(filepath.Join(newDir, "committee.json"), &newCfg))
	keys := func(cfg *config.CommitteeConfig) (pks, pops [][]byte) {
		for _, m := range cfg.Members {
			pk, err := hex.DecodeString(m.BLSKey)
			require.NoError(t, err)
			pop, err := hex.DecodeString(m.BLSPoP)
			require.NoError(t, err)
			pks, pops = append(pks, pk), append(pops, pop)
		}
		return pks, pops
	}
	reg := &subnetevm.Committee{Epoch: oldCfg.Epoch, Threshold: uint32(oldCfg.Threshold)}
	pks, pops := keys(&oldCfg)
	for i := range pks {
		reg.Members = append(reg.Members, subnetevm.Member{PublicKey: pks[i], ProofOfPossession: pops[i]})
	}
	genesis, err := configs.WithCommittee(configs.DevnetGenesis(), reg)
	require.NoError(t, err)
	ch, err := devchain.New(devchain.Config{Genesis: genesis, HTTPAddr: "127.0.0.1:0", Logger: zap.NewNop()})
	require.NoError(t, err)
	t.Cleanup(func() { ch.Close() })
	require.Equal(t, oldCfg.ChainIDBig(), ch.ChainID(), "committee init's default chain id is the devnet's")
	rpc := ch.URL()

	_, err = runCLI(t, "committee", "rotate", "switch", "--side", "old", "--member", "1", "--old", oldDir, "--new", newDir,
		"--rpc", rpc, "--round-timeout", "5s", "--wait", "5s")
	require.ErrorIs(t, err, chainio.ErrTargetKeyNotOnChain)
	require.ErrorContains(t, err, "no key recorded for epoch 2")
	// … and an old member does not retire before the rotation either.
	_, err = runCLI(t, "committee", "rotate", "retire", "--dir", oldDir, "--member", "3", "--rpc", rpc)
	require.ErrorContains(t, err, "recorded no committee key for epoch 2")

	// governance (dev account 0) installs the epoch-2 committee
	c, err := ethclient.DialContext(ctx, rpc)
	require.NoError(t, err)
	defer c.Close()
	verdict, err := precompileabi.Parse(precompileabi.Verdict)
	require.NoError(t, err)
	npks, npops := keys(&newCfg)
	data, err := verdict.Pack("setCommittee", newCfg.Epoch, uint32(newCfg.Threshold), npks, npops)
	require.NoError(t, err)
	sendTx(ctx, t, c, ch.ChainID(), devchain.DevAccounts()[0], precompiles.FHEVerdictAddress, data)

	sig := func(id uint32) string { return filepath.Join(dir, fmt.Sprintf("key-sig-%d.json", id)) }
	for _, id := range []uint32{1, 2} {
		_, err := runCLI(t, "committee", "rotate", "sign-key", "--dir", newDir, "--member", fmt.Sprint(id), "--out", sig(id))
		require.NoError(t, err)
	}
	relayer := filepath.Join(dir, "relayer.key")
	require.NoError(t, os.WriteFile(relayer, []byte(chain.DevRelayerKey), 0o600))
	bind := func(sigs ...string) error {
		_, err := runCLI(t, "committee", "rotate", "bind-key", "--dir", newDir, "--rpc", rpc, "--relayer-key-file", relayer,
			"--sig", strings.Join(sigs, ","))
		return err
	}
	require.ErrorContains(t, bind(sig(1)), "threshold is 2")
	require.ErrorContains(t, bind(sig(1), sig(1)), "member 1 signed twice")
	require.NoError(t, bind(sig(1), sig(2)))
	require.NoError(t, bind(sig(2), sig(1)), "binding the recorded key again is a no-op")

	ad, err := chain.Dial(ctx, chain.Config{URL: rpc, Key: devchain.DevAccounts()[1].Key})
	require.NoError(t, err)
	defer ad.Close()
	pkb, err := os.ReadFile(filepath.Join(newDir, "committee.pk"))
	require.NoError(t, err)
	require.NoError(t, chainio.VerifyTargetKey(ctx, ad, 2, keccakpkg.Sum(pkb)))
	return rpc
}

// sendTx sends data to `to` from acct and requires the receipt to succeed.
func sendTx(ctx context.Context, t *testing.T, c *ethclient.Client, chainID *big.Int, acct devchain.Account, to precompiles.Address, data []byte) {
	t.Helper()
	toA := common.Address(to)
	gas, err := c.EstimateGas(ctx, ethereum.CallMsg{From: acct.Address, To: &toA, Data: data})
	require.NoError(t, err)
	nonce, err := c.PendingNonceAt(ctx, acct.Address)
	require.NoError(t, err)
	tip, err := c.SuggestGasTipCap(ctx)
	require.NoError(t, err)
	head, err := c.HeaderByNumber(ctx, nil)
	require.NoError(t, err)
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: tip,
		GasFeeCap: new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2))), Gas: gas * 2, To: &toA, Data: data})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(chainID), acct.Key)
	require.NoError(t, err)
	require.NoError(t, c.SendTransaction(ctx, signed))
	for {
		rc, err := c.TransactionReceipt(ctx, signed.Hash())
		if err == nil {
			require.Equal(t, types.ReceiptStatusSuccessful, rc.Status)
			return
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// FuzzParseKeySignature: the `rotate sign-key` file decoder never panics,
// and what it accepts has a 32-byte digest, a 96-byte signature and a
// member ≥ 1, and re-encodes to a file it accepts again with the same values.
func FuzzParseKeySignature(f *testing.F) {
	good := `{"member":1,"epoch":2,"pkDigest":"` + strings.Repeat("ab", 32) + `","signature":"` + strings.Repeat("cd", 96) + `"}`
	f.Add([]byte(good))
	f.Add([]byte(good + good))
	f.Add([]byte(`{"member":0}`))
	f.Add([]byte(`{"member":1,"extra":1}`))
	f.Add([]byte(strings.Repeat(" ", maxKeySignature+1)))
	f.Fuzz(func(t *testing.T, b []byte) {
		ks, pkd, sig, err := parseKeySignature(b)
		if err != nil {
			return
		}
		require.Len(t, sig, 96)
		require.GreaterOrEqual(t, ks.Member, uint32(1))
		re, err := json.Marshal(keySignature{Member: ks.Member, Epoch: ks.Epoch, PKDigest: hex.EncodeToString(pkd[:]), Signature: hex.EncodeToString(sig)})
		require.NoError(t, err)
		ks2, pkd2, sig2, err := parseKeySignature(re)
		require.NoError(t, err)
		require.Equal(t, ks.Member, ks2.Member)
		require.Equal(t, ks.Epoch, ks2.Epoch)
		require.Equal(t, pkd, pkd2)
		require.Equal(t, sig, sig2)
	})
}

// TestParseKeySignature: malformed `rotate sign-key` files are refused with
// a clear error.
func TestParseKeySignature(t *testing.T) {
	d, s := strings.Repeat("ab", 32), strings.Repeat("cd", 96)
	tests := []struct{ name, in, want string }{
		{"good", `{"member":1,"epoch":2,"pkDigest":"` + d + `","signature":"` + s + `"}`, ""},
		{"short digest", `{"member":1,"epoch":2,"pkDigest":"ab","signature":"` + s + `"}`, "pkDigest must be 32 hex bytes"},
		{"short signature", `{"member":1,"epoch":2,"pkDigest":"` + d + `","signature":"cd"}`, "signature must be 96 hex bytes"},
		{"member zero", `{"member":0,"epoch":2,"pkDigest":"` + d + `","signature":"` + s + `"}`, "member must be"},
		{"unknown field", `{"member":1,"who":2}`, "unknown field"},
		{"trailing", `{"member":1,"epoch":2,"pkDigest":"` + d + `","signature":"` + s + `"} {}`, "trailing data"},
		{"too long", strings.Repeat(" ", maxKeySignature+1), "is not a key signature"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, _, err := parseKeySignature([]byte(tc.in))
			if tc.want == "" {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, tc.want)
			}
		})
	}
}
