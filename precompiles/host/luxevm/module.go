// Package luxevm hosts fhegate's precompiles in github.com/luxfi/evm. It is
// the subnet-evm adapter with Lux's import paths; see README.md (not built in
// fhegate's CI).
package luxevm

import (
	"errors"
	"fmt"
	"math/big"
	"sync/atomic"

	"github.com/luxfi/evm/precompile/contract"
	"github.com/luxfi/evm/precompile/modules"
	"github.com/luxfi/evm/precompile/precompileconfig"
	"github.com/luxfi/geth/common"
	"github.com/luxfi/geth/common/hexutil"
	"github.com/luxfi/geth/core/types"
	"github.com/luxfi/geth/core/vm"

	"github.com/fhegate/fhegate/precompiles"
	"github.com/fhegate/fhegate/precompiles/corebackends"
)

// Config keys (identical to the subnet-evm adapter's).
const (
	InputConfigKey   = "fheInputConfig"
	PolicyConfigKey  = "fhePolicyConfig"
	CRDTConfigKey    = "fheCRDTConfig"
	VerdictConfigKey = "fheVerdictConfig"
)

var (
	suite   atomic.Pointer[precompiles.Suite]
	chainID atomic.Pointer[big.Int]
)

// SetBackends installs the policy compiler and CRDT merger. Both are required
// (nil is an error); init installs the real pair from precompiles/corebackends.
func SetBackends(c precompiles.PolicyCompiler, m precompiles.CRDTMerger) error {
	s, err := precompiles.NewSuite(precompiles.Options{Compiler: c, Merger: m})
	if err != nil {
		return err
	}
	suite.Store(s)
	return nil
}

// SetChainID sets the EVM chain id bound into verdict and input digests. The
// VM must call it at start-up, before activation: until it does, activation
// fails and every call reverts (a zero chain id would let verdicts and input
// attestations replay across chains). A nil or non-positive id is ignored
// (the precompiles stay disabled).
func SetChainID(id *big.Int) {
	if id == nil || id.Sign() <= 0 {
		return
	}
	chainID.Store(new(big.Int).Set(id))
}

// notReady reports why the precompiles cannot run yet ("" when they can).
func notReady() string {
	if suite.Load() == nil {
		return "fhegate: precompile backends not set (luxevm.SetBackends)"
	}
	if chainID.Load() == nil {
		return "fhegate: chain id not set (luxevm.SetChainID)"
	}
	return ""
}

func init() {
	if err := SetBackends(corebackends.Policy{}, corebackends.CRDTMeta{}); err != nil {
		panic(err)
	}
	keys := []string{InputConfigKey, PolicyConfigKey, CRDTConfigKey, VerdictConfigKey}
	addrs := []precompiles.Address{precompiles.FHEInputAddress, precompiles.FHEPolicyAddress, precompiles.FHECRDTAddress, precompiles.FHEVerdictAddress}
	for i := range keys {
		i := i
		pick := func(s *precompiles.Suite) *precompiles.Contract { return s.Contracts()[i] }
		a := common.Address(addrs[i])
		if err := modules.RegisterModule(modules.Module{
			ConfigKey:    keys[i],
			Address:      a,
			Contract:     &stateful{addr: a, pick: pick},
			Configurator: &configurator{key: keys[i], addr: a},
		}); err != nil {
			panic(fmt.Sprintf("fhegate: register %s: %v", keys[i], err))
		}
	}
}

type stateful struct {
	addr common.Address
	pick func(*precompiles.Suite) *precompiles.Contract
}

func (p *stateful) Run(as contract.AccessibleState, caller, addr common.Address, input []byte, gas uint64, readOnly bool) (ret []byte, remaining uint64, err error) {
	defer func() {
		if r := recover(); r != nil {
			ret, remaining, err = precompiles.EncodeRevert("fhegate: internal error"), 0, vm.ErrExecutionReverted
		}
	}()
	if why := notReady(); why != "" {
		if gas < precompiles.GasMinimum {
			return nil, 0, vm.ErrOutOfGas
		}
		return precompiles.EncodeRevert(why), gas - precompiles.GasMinimum, vm.ErrExecutionReverted
	}
	c := p.pick(suite.Load())
	if addr != p.addr {
		if gas < precompiles.GasMinimum {
			return nil, 0, vm.ErrOutOfGas
		}
		return precompiles.EncodeRevert(c.Name() + ": delegatecall and callcode are not supported"), gas - precompiles.GasMinimum, vm.ErrExecutionReverted
	}
	ret, remaining, err = c.Run(&env{as: as, sdb: as.GetStateDB(), caller: caller, self: p.addr, readOnly: readOnly}, input, gas)
	if err == nil {
		return ret, remaining, nil
	}
	if errors.Is(err, precompiles.ErrOutOfGas) {
		return nil, 0, vm.ErrOutOfGas
	}
	var rev *precompiles.RevertError
	if errors.As(err, &rev) {
		return precompiles.EncodeRevert(rev.Reason), remaining, vm.ErrExecutionReverted
	}
	return precompiles.EncodeRevert(err.Error()), remaining, vm.ErrExecutionReverted
}

type transientDB interface {
	GetTransientState(common.Address, common.Hash) common.Hash
	SetTransientState(common.Address, common.Hash, common.Hash)
}

type env struct {
	as       contract.AccessibleState
	sdb      contract.StateDB
	caller   common.Address
	self     common.Address
	readOnly bool
}

func (e *env) Caller() precompiles.Address { return precompiles.Address(e.caller) }
func (e *env) ReadOnly() bool              { return e.readOnly }
func (e *env) GetState(k precompiles.Hash) precompiles.Hash {
	return precompiles.Hash(e.sdb.GetState(e.self, common.Hash(k)))
}
func (e *env) SetState(k, v precompiles.Hash) { e.sdb.SetState(e.self, common.Hash(k), common.Hash(v)) }
func (e *env) GetTransientState(k precompiles.Hash) precompiles.Hash {
	return e.PeerTransientState(precompiles.Address(e.self), k)
}
func (e *env) SetTransientState(k, v precompiles.Hash) {
	if t, ok := e.sdb.(transientDB); ok {
		t.SetTransientState(e.self, common.Hash(k), common.Hash(v))
	}
}
func (e *env) PeerState(p precompiles.Address, k precompiles.Hash) precompiles.Hash {
	return precompiles.Hash(e.sdb.GetState(common.Address(p), common.Hash(k)))
}
func (e *env) PeerTransientState(p precompiles.Address, k precompiles.Hash) precompiles.Hash {
	if t, ok := e.sdb.(transientDB); ok {
		return precompiles.Hash(t.GetTransientState(common.Address(p), common.Hash(k)))
	}
	return precompiles.Hash{}
}
func (e *env) AddLog(topics []precompiles.Hash, data []byte) {
	ts := make([]common.Hash, len(topics))
	for i := range topics {
		ts[i] = common.Hash(topics[i])
	}
	e.sdb.AddLog(&types.Log{Address: e.self, Topics: ts, Data: data, BlockNumber: e.BlockNumber()})
}
func (e *env) BlockNumber() uint64 {
	if n := e.as.GetBlockContext().Number(); n != nil && n.IsUint64() {
		return n.Uint64()
	}
	return 0
}
func (e *env) BlockTime() uint64 { return e.as.GetBlockContext().Timestamp() }
func (e *env) ChainID() *big.Int {
	if id := chainID.Load(); id != nil {
		return id
	}
	return new(big.Int)
}

// Config activates FHEInput, FHEPolicy or FHECRDT.
type Config struct {
	precompileconfig.Upgrade
	key string
}

func (c *Config) Key() string                               { return c.key }
func (c *Config) Verify(precompileconfig.ChainConfig) error { return nil }
func (c *Config) Equal(o precompileconfig.Config) bool {
	x, ok := o.(*Config)
	return ok && x.key == c.key && c.Upgrade.Equal(&x.Upgrade)
}

// Member, Committee and VerdictConfig mirror the subnet-evm adapter's JSON.
type Member struct {
	PublicKey         hexutil.Bytes `json:"publicKey"`
	ProofOfPossession hexutil.Bytes `json:"proofOfPossession"`
}

type Committee struct {
	Epoch     uint64   `json:"epoch"`
	Threshold uint32   `json:"threshold"`
	Members   []Member `json:"members"`
}

type VerdictConfig struct {
	precompileconfig.Upgrade
	Governance common.Address `json:"governance"`
	Committee  *Committee     `json:"committee,omitempty"`
}

func (c *VerdictConfig) Key() string { return VerdictConfigKey }
func (c *VerdictConfig) Verify(precompileconfig.ChainConfig) error {
	if c.Committee == nil && c.Governance == (common.Address{}) && !c.Disable {
		return errors.New("fheVerdictConfig: needs a committee or a governance address")
	}
	return nil
}
func (c *VerdictConfig) Equal(o precompileconfig.Config) bool {
	x, ok := o.(*VerdictConfig)
	return ok && c.Upgrade.Equal(&x.Upgrade) && c.Governance == x.Governance && c.Committee == nil && x.Committee == nil
}

func (c *VerdictConfig) committee() *precompiles.CommitteeConfig {
	if c.Committee == nil {
		return nil
	}
	cc := &precompiles.CommitteeConfig{Epoch: c.Committee.Epoch, Threshold: c.Committee.Threshold}
	for _, m := range c.Committee.Members {
		cc.PubKeys = append(cc.PubKeys, []byte(m.PublicKey))
		cc.PoPs = append(cc.PoPs, []byte(m.ProofOfPossession))
	}
	return cc
}

type configurator struct {
	key  string
	addr common.Address
}

func (c *configurator) MakeConfig() precompileconfig.Config {
	if c.key == VerdictConfigKey {
		return new(VerdictConfig)
	}
	return &Config{key: c.key}
}

func (c *configurator) Configure(_ precompileconfig.ChainConfig, cfg precompileconfig.Config, state contract.StateDB, _ contract.ConfigurationBlockContext) error {
	if why := notReady(); why != "" {
		return errors.New(why)
	}
	if state.GetNonce(c.addr) == 0 { // EIP-158: keep the account (and its storage) alive
		state.SetNonce(c.addr, 1)
	}
	vc, ok := cfg.(*VerdictConfig)
	if !ok {
		return nil
	}
	return precompiles.ConfigureVerdict(store{state, c.addr}, precompiles.Address(vc.Governance), vc.committee())
}

type store struct {
	state contract.StateDB
	addr  common.Address
}

func (s store) GetState(k precompiles.Hash) precompiles.Hash {
	return precompiles.Hash(s.state.GetState(s.addr, common.Hash(k)))
}
func (s store) SetState(k, v precompiles.Hash) {
	s.state.SetState(s.addr, common.Hash(k), common.Hash(v))
}
