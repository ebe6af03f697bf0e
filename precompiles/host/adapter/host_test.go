package adapter

import (
	"errors"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/precompiles"
	"github.com/fhegate/fhegate/precompiles/precompilestest"
)

type (
	addr [20]byte
	word [32]byte
)

// memDB is a host StateDB with nonces; transient storage only when wrapped in
// memTransient.
type memDB struct {
	state  map[addr]map[word]word
	nonces map[addr]uint64
}

func newMemDB() *memDB { return &memDB{state: map[addr]map[word]word{}, nonces: map[addr]uint64{}} }

func (m *memDB) GetState(a addr, k word) word { return m.state[a][k] }
func (m *memDB) SetState(a addr, k, v word) {
	if m.state[a] == nil {
		m.state[a] = map[word]word{}
	}
	m.state[a][k] = v
}
func (m *memDB) GetNonce(a addr) uint64    { return m.nonces[a] }
func (m *memDB) SetNonce(a addr, n uint64) { m.nonces[a] = n }

type memTransient struct {
	*memDB
	t memDB
}

func (m *memTransient) GetTransientState(a addr, k word) word { return m.t.GetState(a, k) }
func (m *memTransient) SetTransientState(a addr, k, v word)   { m.t.SetState(a, k, v) }

type block struct{ n *big.Int }

func (b block) Number() *big.Int  { return b.n }
func (b block) Timestamp() uint64 { return 77 }

var (
	errReverted = errors.New("reverted")
	errOOG      = errors.New("out of gas")
	vmErrs      = VMErrors{Reverted: errReverted, OutOfGas: errOOG}
)

func testHost(t *testing.T, source ChainIDSource) *Host {
	h, err := NewHost("testhost", source)
	require.NoError(t, err)
	require.NoError(t, h.SetBackends(precompilestest.Compiler{}, precompilestest.Merger{}))
	return h
}

func TestRunRefusals(t *testing.T) {
	t.Parallel()
	h := testHost(t, ChainIDAtStartup)
	never := func() Call[addr, word] { t.Fatal("call built for a refused call"); return Call[addr, word]{} }
	in := addr(Addresses[0])

	// a startup-chain-id host without its id: revert after the minimum gas, or out of gas below it
	ret, rem, err := Run(h, 0, in, nil, 10_000, vmErrs, never)
	require.ErrorIs(t, err, errReverted)
	require.Equal(t, uint64(10_000-precompiles.GasMinimum), rem)
	require.Contains(t, string(ret), "chain id not set (testhost.SetChainID)")
	_, rem, err = Run(h, 0, in, nil, precompiles.GasMinimum-1, vmErrs, never)
	require.ErrorIs(t, err, errOOG)
	require.Zero(t, rem)
	require.ErrorContains(t, Configure[addr, word](h, InputConfigKey, NewModule(InputConfigKey), newMemDB(), in), "chain id not set")

	h.SetChainID(nil)
	h.SetChainID(big.NewInt(0))
	_, _, err = Run(h, 0, in, nil, 10_000, vmErrs, never)
	require.ErrorIs(t, err, errReverted, "a zero chain id is ignored")
	h.SetChainID(big.NewInt(5))

	// delegatecall / callcode: the called address is not the module's
	ret, rem, err = Run(h, 1, in, nil, 10_000, vmErrs, never)
	require.ErrorIs(t, err, errReverted)
	require.Equal(t, uint64(10_000-precompiles.GasMinimum), rem)
	require.Contains(t, string(ret), "delegatecall and callcode are not supported")

	// no backends
	before := h.SwapSuite(nil)
	ret, _, err = Run(h, 0, in, nil, 10_000, vmErrs, never)
	require.ErrorIs(t, err, errReverted)
	require.Contains(t, string(ret), "backends not set (testhost.SetBackends)")
	require.ErrorContains(t, Configure[addr, word](h, InputConfigKey, NewModule(InputConfigKey), nil, in), "backends not set")
	h.SwapSuite(before)
	require.Error(t, h.SetBackends(nil, nil))
	require.Same(t, before, h.Suite())

	// a panic in the host's view of the call reverts with all gas consumed
	ret, rem, err = Run(h, 0, in, nil, 10_000, vmErrs, func() Call[addr, word] { panic("host broke") })
	require.ErrorIs(t, err, errReverted)
	require.Zero(t, rem)
	require.Contains(t, string(ret), "internal error")
}

// TestEnv: the Env a call sees reads and writes the module's own storage,
// reads its peers', emits logs from its own address and reports the host's
// block and chain id.
func TestEnv(t *testing.T) {
	t.Parallel()
	h := testHost(t, ChainIDAtStartup)
	h.SetChainID(big.NewInt(9))
	db := &memTransient{memDB: newMemDB(), t: *newMemDB()}
	self, peer := addr(Addresses[1]), addr(Addresses[3])
	type log struct {
		a  addr
		ts []word
		n  uint64
	}
	var logs []log
	e := &env[addr, word]{self: self, host: h, c: Call[addr, word]{
		State: db, Transient: AsTransient[addr, word](db), Block: block{big.NewInt(12)}, Caller: addr{7}, ReadOnly: true,
		AddLog: func(a addr, ts []word, _ []byte, n uint64) { logs = append(logs, log{a, ts, n}) },
	}}
	k, v := precompiles.Hash{1}, precompiles.Hash{2}
	e.SetState(k, v)
	require.Equal(t, v, e.GetState(k))
	require.Equal(t, word(v), db.GetState(self, word(k)))
	db.SetState(peer, word(k), word{3})
	require.Equal(t, precompiles.Hash{3}, e.PeerState(precompiles.Address(peer), k))
	e.SetTransientState(k, v)
	require.Equal(t, v, e.GetTransientState(k))
	require.Equal(t, precompiles.Hash{}, e.GetState(precompiles.Hash{9}))
	require.Equal(t, precompiles.Address{7}, e.Caller())
	require.True(t, e.ReadOnly())
	require.Equal(t, uint64(12), e.BlockNumber())
	require.Equal(t, uint64(77), e.BlockTime())
	require.Equal(t, int64(9), e.ChainID().Int64())
	e.ChainID().SetInt64(1) // a caller cannot change the host's id
	require.Equal(t, int64(9), e.ChainID().Int64())
	e.AddLog([]precompiles.Hash{k}, nil)
	require.Equal(t, []log{{self, []word{word(k)}, 12}}, logs)

	// a block number beyond uint64 reads as 0; a per-call chain id wins
	e.c.Block = block{new(big.Int).Lsh(big.NewInt(1), 70)}
	require.Zero(t, e.BlockNumber())
	e.c.ChainID = func() *big.Int { return big.NewInt(42) }
	require.Equal(t, int64(42), e.ChainID().Int64())

	// a StateDB without transient storage: reads see zero, writes are dropped
	plain := newMemDB()
	e.c.State, e.c.Transient = plain, AsTransient[addr, word](plain)
	require.Nil(t, e.c.Transient)
	e.SetTransientState(k, v)
	require.Equal(t, precompiles.Hash{}, e.GetTransientState(k))
}

func TestConfigure(t *testing.T) {
	t.Parallel()
	h := testHost(t, ChainIDPerCall)
	db := newMemDB()
	in, vd := addr(Addresses[0]), addr(Addresses[3])
	require.NoError(t, Configure[addr, word](h, InputConfigKey, NewModule(InputConfigKey), db, in))
	require.Equal(t, uint64(1), db.GetNonce(in), "EIP-158: the account is kept alive")
	db.SetNonce(in, 5)
	require.NoError(t, Configure[addr, word](h, InputConfigKey, NewModule(InputConfigKey), db, in))
	require.Equal(t, uint64(5), db.GetNonce(in), "a nonce already set is left alone")

	require.ErrorContains(t, Configure[addr, word](h, InputConfigKey, "not a config", db, in), "expected *Config, got string")
	require.ErrorContains(t, Configure[addr, word](h, VerdictConfigKey, NewModule(VerdictConfigKey), db, vd), "expected *VerdictConfig")

	gov := precompiles.Address{0xaa}
	require.NoError(t, Configure[addr, word](h, VerdictConfigKey, verdictCfg{Verdict{Governance: gov}}, db, vd))
	require.Equal(t, uint64(1), db.GetNonce(vd))
	require.NotEmpty(t, db.state[vd], "governance written to the verdict precompile's storage")
}

type verdictCfg struct{ v Verdict }

func (c verdictCfg) VerdictSettings() Verdict { return c.v }

// TestMapErr: the core's outcomes as the host EVM sees them.
func TestMapErr(t *testing.T) {
	t.Parallel()
	ret, rem, err := mapErr([]byte{1}, 9, nil, vmErrs)
	require.NoError(t, err)
	require.Equal(t, []byte{1}, ret)
	require.Equal(t, uint64(9), rem)
	ret, rem, err = mapErr([]byte{1}, 9, precompiles.ErrOutOfGas, vmErrs)
	require.ErrorIs(t, err, errOOG)
	require.Nil(t, ret)
	require.Zero(t, rem)
	ret, rem, err = mapErr(nil, 9, &precompiles.RevertError{Reason: "no"}, vmErrs)
	require.ErrorIs(t, err, errReverted)
	require.Equal(t, precompiles.EncodeRevert("no"), ret)
	require.Equal(t, uint64(9), rem)
	ret, _, err = mapErr(nil, 9, errors.New("other"), vmErrs)
	require.ErrorIs(t, err, errReverted)
	require.Equal(t, precompiles.EncodeRevert("other"), ret)
}
