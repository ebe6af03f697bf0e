package luxevm

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/holiman/uint256"
	"github.com/luxfi/evm/precompile/contract"
	"github.com/luxfi/evm/precompile/modules"
	"github.com/luxfi/evm/precompile/precompileconfig"
	"github.com/luxfi/geth/common"
	"github.com/luxfi/geth/core/types"
	"github.com/luxfi/geth/core/vm"
)

// stateDB is an in-memory contract.StateDB with transient storage.
type stateDB struct {
	state, transient map[common.Address]map[common.Hash]common.Hash
	nonces           map[common.Address]uint64
	logs             []*types.Log
}

func newStateDB() *stateDB {
	return &stateDB{state: map[common.Address]map[common.Hash]common.Hash{}, transient: map[common.Address]map[common.Hash]common.Hash{}, nonces: map[common.Address]uint64{}}
}

func set(m map[common.Address]map[common.Hash]common.Hash, a common.Address, k, v common.Hash) {
	if m[a] == nil {
		m[a] = map[common.Hash]common.Hash{}
	}
	m[a][k] = v
}

func (s *stateDB) GetState(a common.Address, k common.Hash) common.Hash { return s.state[a][k] }
func (s *stateDB) SetState(a common.Address, k, v common.Hash)          { set(s.state, a, k, v) }
func (s *stateDB) GetTransientState(a common.Address, k common.Hash) common.Hash {
	return s.transient[a][k]
}
func (s *stateDB) SetTransientState(a common.Address, k, v common.Hash)        { set(s.transient, a, k, v) }
func (s *stateDB) SetNonce(a common.Address, n uint64)                         { s.nonces[a] = n }
func (s *stateDB) GetNonce(a common.Address) uint64                            { return s.nonces[a] }
func (s *stateDB) GetBalance(common.Address) *uint256.Int                      { return new(uint256.Int) }
func (s *stateDB) AddBalance(common.Address, *uint256.Int)                     {}
func (s *stateDB) CreateAccount(common.Address)                                {}
func (s *stateDB) Exist(common.Address) bool                                   { return true }
func (s *stateDB) AddLog(l *types.Log)                                         { s.logs = append(s.logs, l) }
func (s *stateDB) GetPredicateStorageSlots(common.Address, int) ([]byte, bool) { return nil, false }
func (s *stateDB) GetTxHash() common.Hash                                      { return common.Hash{} }
func (s *stateDB) Snapshot() int                                               { return 0 }
func (s *stateDB) RevertToSnapshot(int)                                        {}

type blockContext struct{}

func (blockContext) Number() *big.Int                                       { return big.NewInt(3) }
func (blockContext) Timestamp() uint64                                      { return 1_700_000_000 }
func (blockContext) GetPredicateResults(common.Hash, common.Address) []byte { return nil }

type accessibleState struct{ db *stateDB }

func (a accessibleState) GetStateDB() contract.StateDB                 { return a.db }
func (a accessibleState) GetBlockContext() contract.BlockContext       { return blockContext{} }
func (a accessibleState) GetConsensusContext() context.Context         { return context.Background() }
func (a accessibleState) GetChainConfig() precompileconfig.ChainConfig { return nil }

var _ contract.AccessibleState = accessibleState{}

// TestLuxAdapter: the four modules are in Lux's registry; until the VM sets
// the chain id activation fails and calls revert; the chain config JSON
// parses, verifies and activates FHEVerdict; a view call answers.
func TestLuxAdapter(t *testing.T) {
	for _, key := range []string{InputConfigKey, PolicyConfigKey, CRDTConfigKey, VerdictConfigKey} {
		m, ok := modules.GetPrecompileModule(key)
		if !ok {
			t.Fatalf("%s not registered", key)
		}
		if g := m.MakeGenesisConfig(); g.Key() != key || g.Timestamp() == nil || *g.Timestamp() != 0 {
			t.Fatalf("%s: genesis config %+v", key, g)
		}
	}
	if len(Modules) != 4 {
		t.Fatalf("%d modules", len(Modules))
	}
	verdict := Modules[3]
	if err := verdict.MakeGenesisConfig().Verify(nil); err == nil {
		t.Fatal("the verdict genesis config (no committee, no governance) verifies")
	}

	db := newStateDB()
	as := accessibleState{db}
	committee, err := Suite().Verdict.ABI().Pack("committee")
	if err != nil {
		t.Fatal(err)
	}
	ret, _, err := verdict.Contract.Run(as, common.Address{1}, verdict.Address, committee, 100_000, true)
	if err != vm.ErrExecutionReverted || !contains(ret, "chain id not set (luxevm.SetChainID)") {
		t.Fatalf("before SetChainID: %v %q", err, ret)
	}

	cfg := verdict.MakeConfig()
	raw := `{"blockTimestamp": 0, "governance": "0x00000000000000000000000000000000000000aa"}`
	if err := json.Unmarshal([]byte(raw), cfg); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Verify(nil); err != nil {
		t.Fatal(err)
	}
	if !cfg.Equal(cfg) || cfg.Equal(verdict.MakeGenesisConfig()) {
		t.Fatal("VerdictConfig.Equal")
	}
	if err := verdict.Configure(nil, cfg, db, blockContext{}); err == nil {
		t.Fatal("activation before SetChainID")
	}
	SetChainID(big.NewInt(96369))
	if err := verdict.Configure(nil, cfg, db, blockContext{}); err != nil {
		t.Fatal(err)
	}
	if db.GetNonce(verdict.Address) != 1 {
		t.Fatal("nonce not set at activation")
	}
	ret, rem, err := verdict.Contract.Run(as, common.Address{1}, verdict.Address, committee, 100_000, true)
	if err != nil || rem == 0 || rem >= 100_000 {
		t.Fatalf("committee(): %v, %d gas left", err, rem)
	}
	out, err := Suite().Verdict.ABI().Unpack("committee", ret)
	if err != nil {
		t.Fatal(err)
	}
	if gov, ok := out[3].(interface{ Bytes() []byte }); !ok || !bytes.Equal(gov.Bytes(), common.HexToAddress("0xaa").Bytes()) {
		t.Fatalf("governance %v", out[3])
	}

	// delegatecall is refused; a module's config of the wrong kind too
	if _, _, err := verdict.Contract.Run(as, common.Address{1}, common.Address{9}, committee, 100_000, true); err != vm.ErrExecutionReverted {
		t.Fatalf("delegatecall: %v", err)
	}
	if err := Modules[0].Configure(nil, cfg, db, blockContext{}); err == nil {
		t.Fatal("FHEInput activated with a VerdictConfig")
	}
	if _, _, err := verdict.Contract.Run(as, common.Address{1}, verdict.Address, committee, 10, true); err != vm.ErrOutOfGas {
		t.Fatalf("below the minimum gas: %v", err)
	}
}

func contains(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }
