// Code generated - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package bindings

import (
	"errors"
	"math/big"
	"strings"

	ethereum "github.com/ava-labs/libevm"
	"github.com/ava-labs/libevm/accounts/abi"
	"github.com/ava-labs/libevm/accounts/abi/bind"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/event"
)

// Reference imports to suppress errors if they are not otherwise used.
var (
	_ = errors.New
	_ = big.NewInt
	_ = strings.NewReader
	_ = ethereum.NotFound
	_ = bind.Bind
	_ = common.Big1
	_ = types.BloomLookup
	_ = event.NewSubscription
	_ = abi.ConvertType
)

// IFHEVerdictMetaData contains all meta data concerning the IFHEVerdict contract.
var IFHEVerdictMetaData = &bind.MetaData{
	ABI: "[{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint64\",\"name\":\"epoch\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"uint32\",\"name\":\"threshold\",\"type\":\"uint32\"},{\"indexed\":false,\"internalType\":\"uint32\",\"name\":\"size\",\"type\":\"uint32\"}],\"name\":\"CommitteeChanged\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint64\",\"name\":\"epoch\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"pkDigest\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint32\",\"name\":\"signers\",\"type\":\"uint32\"}],\"name\":\"CommitteeKeySet\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"policyId\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint32\",\"name\":\"refunded\",\"type\":\"uint32\"},{\"indexed\":false,\"internalType\":\"uint32\",\"name\":\"forfeited\",\"type\":\"uint32\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"refundedWei\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"forfeitedWei\",\"type\":\"uint256\"}],\"name\":\"DepositsSettled\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"governance\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"pendingGovernance\",\"type\":\"address\"}],\"name\":\"GovernanceTransferStarted\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"previousGovernance\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"newGovernance\",\"type\":\"address\"}],\"name\":\"GovernanceTransferred\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"policyId\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"result\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"resultDigest\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"epoch\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"uint32\",\"name\":\"signers\",\"type\":\"uint32\"}],\"name\":\"VerdictAccepted\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"policyId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"root\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"resultDigest\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"epoch\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"uint32\",\"name\":\"signers\",\"type\":\"uint32\"},{\"indexed\":false,\"internalType\":\"uint32\",\"name\":\"count\",\"type\":\"uint32\"},{\"indexed\":false,\"internalType\":\"uint32\",\"name\":\"stored\",\"type\":\"uint32\"}],\"name\":\"VerdictBatchAccepted\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"policyId\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"requestBlock\",\"type\":\"uint64\"}],\"name\":\"VerdictExpired\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"acceptGovernance\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"committee\",\"outputs\":[{\"internalType\":\"uint64\",\"name\":\"epoch\",\"type\":\"uint64\"},{\"internalType\":\"uint32\",\"name\":\"threshold\",\"type\":\"uint32\"},{\"internalType\":\"uint32\",\"name\":\"size\",\"type\":\"uint32\"},{\"internalType\":\"address\",\"name\":\"governance\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"epoch\",\"type\":\"uint64\"}],\"name\":\"committeeKeyOf\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"pkDigest\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"}],\"name\":\"expire\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint32\",\"name\":\"index\",\"type\":\"uint32\"}],\"name\":\"memberKey\",\"outputs\":[{\"internalType\":\"bytes\",\"name\":\"pubkey\",\"type\":\"bytes\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"pendingGovernance\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"epoch\",\"type\":\"uint64\"},{\"internalType\":\"uint32\",\"name\":\"threshold\",\"type\":\"uint32\"},{\"internalType\":\"bytes[]\",\"name\":\"pubkeys\",\"type\":\"bytes[]\"},{\"internalType\":\"bytes[]\",\"name\":\"pops\",\"type\":\"bytes[]\"}],\"name\":\"setCommittee\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"epoch\",\"type\":\"uint64\"},{\"internalType\":\"bytes32\",\"name\":\"pkDigest\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"signers\",\"type\":\"bytes\"}],\"name\":\"setCommitteeKey\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"},{\"internalType\":\"uint256\",\"name\":\"result\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"resultDigest\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"signers\",\"type\":\"bytes\"}],\"name\":\"submit\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"policyId\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"resultDigest\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32[]\",\"name\":\"requestIds\",\"type\":\"bytes32[]\"},{\"internalType\":\"uint256[]\",\"name\":\"results\",\"type\":\"uint256[]\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"signers\",\"type\":\"bytes\"}],\"name\":\"submitBatch\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"newGovernance\",\"type\":\"address\"}],\"name\":\"transferGovernance\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"}],\"name\":\"verdictOf\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"ready\",\"type\":\"bool\"},{\"internalType\":\"uint256\",\"name\":\"result\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"resultDigest\",\"type\":\"bytes32\"},{\"internalType\":\"uint64\",\"name\":\"epoch\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
}

// IFHEVerdictABI is the input ABI used to generate the binding from.
// Deprecated: Use IFHEVerdictMetaData.ABI instead.
var IFHEVerdictABI = IFHEVerdictMetaData.ABI

// IFHEVerdict is an auto generated Go binding around an Ethereum contract.
type IFHEVerdict struct {
	IFHEVerdictCaller     // Read-only binding to the contract
	IFHEVerdictTransactor // Write-only binding to the contract
	IFHEVerdictFilterer   // Log filterer for contract events
}

// IFHEVerdictCaller is an auto generated read-only Go binding around an Ethereum contract.
type IFHEVerdictCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// IFHEVerdictTransactor is an auto generated write-only Go binding around an Ethereum contract.
type IFHEVerdictTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// IFHEVerdictFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type IFHEVerdictFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// IFHEVerdictSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type IFHEVerdictSession struct {
	Contract     *IFHEVerdict      // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// IFHEVerdictCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type IFHEVerdictCallerSession struct {
	Contract *IFHEVerdictCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts      // Call options to use throughout this session
}

// IFHEVerdictTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type IFHEVerdictTransactorSession struct {
	Contract     *IFHEVerdictTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts      // Transaction auth options to use throughout this session
}

// IFHEVerdictRaw is an auto generated low-level Go binding around an Ethereum contract.
type IFHEVerdictRaw struct {
	Contract *IFHEVerdict // Generic contract binding to access the raw methods on
}

// IFHEVerdictCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type IFHEVerdictCallerRaw struct {
	Contract *IFHEVerdictCaller // Generic read-only contract binding to access the raw methods on
}

// IFHEVerdictTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type IFHEVerdictTransactorRaw struct {
	Contract *IFHEVerdictTransactor // Generic write-only contract binding to access the raw methods on
}

// NewIFHEVerdict creates a new instance of IFHEVerdict, bound to a specific deployed contract.
func NewIFHEVerdict(address common.Address, backend bind.ContractBackend) (*IFHEVerdict, error) {
	contract, err := bindIFHEVerdict(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &IFHEVerdict{IFHEVerdictCaller: IFHEVerdictCaller{contract: contract}, IFHEVerdictTransactor: IFHEVerdictTransactor{contract: contract}, IFHEVerdictFilterer: IFHEVerdictFilterer{contract: contract}}, nil
}

// NewIFHEVerdictCaller creates a new read-only instance of IFHEVerdict, bound to a specific deployed contract.
func NewIFHEVerdictCaller(address common.Address, caller bind.ContractCaller) (*IFHEVerdictCaller, error) {
	contract, err := bindIFHEVerdict(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &IFHEVerdictCaller{contract: contract}, nil
}

// NewIFHEVerdictTransactor creates a new write-only instance of IFHEVerdict, bound to a specific deployed contract.
func NewIFHEVerdictTransactor(address common.Address, transactor bind.ContractTransactor) (*IFHEVerdictTransactor, error) {
	contract, err := bindIFHEVerdict(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &IFHEVerdictTransactor{contract: contract}, nil
}

// NewIFHEVerdictFilterer creates a new log filterer instance of IFHEVerdict, bound to a specific deployed contract.
func NewIFHEVerdictFilterer(address common.Address, filterer bind.ContractFilterer) (*IFHEVerdictFilterer, error) {
	contract, err := bindIFHEVerdict(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &IFHEVerdictFilterer{contract: contract}, nil
}

// bindIFHEVerdict binds a generic wrapper to an already deployed contract.
func bindIFHEVerdict(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := IFHEVerdictMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_IFHEVerdict *IFHEVerdictRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _IFHEVerdict.Contract.IFHEVerdictCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_IFHEVerdict *IFHEVerdictRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _IFHEVerdict.Contract.IFHEVerdictTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_IFHEVerdict *IFHEVerdictRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _IFHEVerdict.Contract.IFHEVerdictTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_IFHEVerdict *IFHEVerdictCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _IFHEVerdict.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_IFHEVerdict *IFHEVerdictTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _IFHEVerdict.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_IFHEVerdict *IFHEVerdictTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _IFHEVerdict.Contract.contract.Transact(opts, method, params...)
}

// Committee is a free data retrieval call binding the contract method 0xd864e740.
//
// Solidity: function committee() view returns(uint64 epoch, uint32 threshold, uint32 size, address governance)
func (_IFHEVerdict *IFHEVerdictCaller) Committee(opts *bind.CallOpts) (struct {
	Epoch      uint64
	Threshold  uint32
	Size       uint32
	Governance common.Address
}, error) {
	var out []interface{}
	err := _IFHEVerdict.contract.Call(opts, &out, "committee")

	outstruct := new(struct {
		Epoch      uint64
		Threshold  uint32
		Size       uint32
		Governance common.Address
	})
	if err != nil {
		return *outstruct, err
	}

	outstruct.Epoch = *abi.ConvertType(out[0], new(uint64)).(*uint64)
	outstruct.Threshold = *abi.ConvertType(out[1], new(uint32)).(*uint32)
	outstruct.Size = *abi.ConvertType(out[2], new(uint32)).(*uint32)
	outstruct.Governance = *abi.ConvertType(out[3], new(common.Address)).(*common.Address)

	return *outstruct, err

}

// Committee is a free data retrieval call binding the contract method 0xd864e740.
//
// Solidity: function committee() view returns(uint64 epoch, uint32 threshold, uint32 size, address governance)
func (_IFHEVerdict *IFHEVerdictSession) Committee() (struct {
	Epoch      uint64
	Threshold  uint32
	Size       uint32
	Governance common.Address
}, error) {
	return _IFHEVerdict.Contract.Committee(&_IFHEVerdict.CallOpts)
}

// Committee is a free data retrieval call binding the contract method 0xd864e740.
//
// Solidity: function committee() view returns(uint64 epoch, uint32 threshold, uint32 size, address governance)
func (_IFHEVerdict *IFHEVerdictCallerSession) Committee() (struct {
	Epoch      uint64
	Threshold  uint32
	Size       uint32
	Governance common.Address
}, error) {
	return _IFHEVerdict.Contract.Committee(&_IFHEVerdict.CallOpts)
}

// CommitteeKeyOf is a free data retrieval call binding the contract method 0x3e8d5aa4.
//
// Solidity: function committeeKeyOf(uint64 epoch) view returns(bytes32 pkDigest)
func (_IFHEVerdict *IFHEVerdictCaller) CommitteeKeyOf(opts *bind.CallOpts, epoch uint64) ([32]byte, error) {
	var out []interface{}
	err := _IFHEVerdict.contract.Call(opts, &out, "committeeKeyOf", epoch)

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// CommitteeKeyOf is a free data retrieval call binding the contract method 0x3e8d5aa4.
//
// Solidity: function committeeKeyOf(uint64 epoch) view returns(bytes32 pkDigest)
func (_IFHEVerdict *IFHEVerdictSession) CommitteeKeyOf(epoch uint64) ([32]byte, error) {
	return _IFHEVerdict.Contract.CommitteeKeyOf(&_IFHEVerdict.CallOpts, epoch)
}

// CommitteeKeyOf is a free data retrieval call binding the contract method 0x3e8d5aa4.
//
// Solidity: function committeeKeyOf(uint64 epoch) view returns(bytes32 pkDigest)
func (_IFHEVerdict *IFHEVerdictCallerSession) CommitteeKeyOf(epoch uint64) ([32]byte, error) {
	return _IFHEVerdict.Contract.CommitteeKeyOf(&_IFHEVerdict.CallOpts, epoch)
}

// MemberKey is a free data retrieval call binding the contract method 0xe5e709e2.
//
// Solidity: function memberKey(uint32 index) view returns(bytes pubkey)
func (_IFHEVerdict *IFHEVerdictCaller) MemberKey(opts *bind.CallOpts, index uint32) ([]byte, error) {
	var out []interface{}
	err := _IFHEVerdict.contract.Call(opts, &out, "memberKey", index)

	if err != nil {
		return *new([]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([]byte)).(*[]byte)

	return out0, err

}

// MemberKey is a free data retrieval call binding the contract method 0xe5e709e2.
//
// Solidity: function memberKey(uint32 index) view returns(bytes pubkey)
func (_IFHEVerdict *IFHEVerdictSession) MemberKey(index uint32) ([]byte, error) {
	return _IFHEVerdict.Contract.MemberKey(&_IFHEVerdict.CallOpts, index)
}

// MemberKey is a free data retrieval call binding the contract method 0xe5e709e2.
//
// Solidity: function memberKey(uint32 index) view returns(bytes pubkey)
func (_IFHEVerdict *IFHEVerdictCallerSession) MemberKey(index uint32) ([]byte, error) {
	return _IFHEVerdict.Contract.MemberKey(&_IFHEVerdict.CallOpts, index)
}

// PendingGovernance is a free data retrieval call binding the contract method 0xf39c38a0.
//
// Solidity: function pendingGovernance() view returns(address)
func (_IFHEVerdict *IFHEVerdictCaller) PendingGovernance(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _IFHEVerdict.contract.Call(opts, &out, "pendingGovernance")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// PendingGovernance is a free data retrieval call binding the contract method 0xf39c38a0.
//
// Solidity: function pendingGovernance() view returns(address)
func (_IFHEVerdict *IFHEVerdictSession) PendingGovernance() (common.Address, error) {
	return _IFHEVerdict.Contract.PendingGovernance(&_IFHEVerdict.CallOpts)
}

// PendingGovernance is a free data retrieval call binding the contract method 0xf39c38a0.
//
// Solidity: function pendingGovernance() view returns(address)
func (_IFHEVerdict *IFHEVerdictCallerSession) PendingGovernance() (common.Address, error) {
	return _IFHEVerdict.Contract.PendingGovernance(&_IFHEVerdict.CallOpts)
}

// VerdictOf is a free data retrieval call binding the contract method 0x7b96882b.
//
// Solidity: function verdictOf(bytes32 requestId) view returns(bool ready, uint256 result, bytes32 resultDigest, uint64 epoch)
func (_IFHEVerdict *IFHEVerdictCaller) VerdictOf(opts *bind.CallOpts, requestId [32]byte) (struct {
	Ready        bool
	Result       *big.Int
	ResultDigest [32]byte
	Epoch        uint64
}, error) {
	var out []interface{}
	err := _IFHEVerdict.contract.Call(opts, &out, "verdictOf", requestId)

	outstruct := new(struct {
		Ready        bool
		Result       *big.Int
		ResultDigest [32]byte
		Epoch        uint64
	})
	if err != nil {
		return *outstruct, err
	}

	outstruct.Ready = *abi.ConvertType(out[0], new(bool)).(*bool)
	outstruct.Result = *abi.ConvertType(out[1], new(*big.Int)).(**big.Int)
	outstruct.ResultDigest = *abi.ConvertType(out[2], new([32]byte)).(*[32]byte)
	outstruct.Epoch = *abi.ConvertType(out[3], new(uint64)).(*uint64)

	return *outstruct, err

}

// VerdictOf is a free data retrieval call binding the contract method 0x7b96882b.
//
// Solidity: function verdictOf(bytes32 requestId) view returns(bool ready, uint256 result, bytes32 resultDigest, uint64 epoch)
func (_IFHEVerdict *IFHEVerdictSession) VerdictOf(requestId [32]byte) (struct {
	Ready        bool
	Result       *big.Int
	ResultDigest [32]byte
	Epoch        uint64
}, error) {
	return _IFHEVerdict.Contract.VerdictOf(&_IFHEVerdict.CallOpts, requestId)
}

// VerdictOf is a free data retrieval call binding the contract method 0x7b96882b.
//
// Solidity: function verdictOf(bytes32 requestId) view returns(bool ready, uint256 result, bytes32 resultDigest, uint64 epoch)
func (_IFHEVerdict *IFHEVerdictCallerSession) VerdictOf(requestId [32]byte) (struct {
	Ready        bool
	Result       *big.Int
	ResultDigest [32]byte
	Epoch        uint64
}, error) {
	return _IFHEVerdict.Contract.VerdictOf(&_IFHEVerdict.CallOpts, requestId)
}

// AcceptGovernance is a paid mutator transaction binding the contract method 0x238efcbc.
//
// Solidity: function acceptGovernance() returns()
func (_IFHEVerdict *IFHEVerdictTransactor) AcceptGovernance(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _IFHEVerdict.contract.Transact(opts, "acceptGovernance")
}

// AcceptGovernance is a paid mutator transaction binding the contract method 0x238efcbc.
//
// Solidity: function acceptGovernance() returns()
func (_IFHEVerdict *IFHEVerdictSession) AcceptGovernance() (*types.Transaction, error) {
	return _IFHEVerdict.Contract.AcceptGovernance(&_IFHEVerdict.TransactOpts)
}

// AcceptGovernance is a paid mutator transaction binding the contract method 0x238efcbc.
//
// Solidity: function acceptGovernance() returns()
func (_IFHEVerdict *IFHEVerdictTransactorSession) AcceptGovernance() (*types.Transaction, error) {
	return _IFHEVerdict.Contract.AcceptGovernance(&_IFHEVerdict.TransactOpts)
}

// Expire is a paid mutator transaction binding the contract method 0xc6441798.
//
// Solidity: function expire(bytes32 requestId) returns()
func (_IFHEVerdict *IFHEVerdictTransactor) Expire(opts *bind.TransactOpts, requestId [32]byte) (*types.Transaction, error) {
	return _IFHEVerdict.contract.Transact(opts, "expire", requestId)
}

// Expire is a paid mutator transaction binding the contract method 0xc6441798.
//
// Solidity: function expire(bytes32 requestId) returns()
func (_IFHEVerdict *IFHEVerdictSession) Expire(requestId [32]byte) (*types.Transaction, error) {
	return _IFHEVerdict.Contract.Expire(&_IFHEVerdict.TransactOpts, requestId)
}

// Expire is a paid mutator transaction binding the contract method 0xc6441798.
//
// Solidity: function expire(bytes32 requestId) returns()
func (_IFHEVerdict *IFHEVerdictTransactorSession) Expire(requestId [32]byte) (*types.Transaction, error) {
	return _IFHEVerdict.Contract.Expire(&_IFHEVerdict.TransactOpts, requestId)
}

// SetCommittee is a paid mutator transaction binding the contract method 0x7fa7b91d.
//
// Solidity: function setCommittee(uint64 epoch, uint32 threshold, bytes[] pubkeys, bytes[] pops) returns()
func (_IFHEVerdict *IFHEVerdictTransactor) SetCommittee(opts *bind.TransactOpts, epoch uint64, threshold uint32, pubkeys [][]byte, pops [][]byte) (*types.Transaction, error) {
	return _IFHEVerdict.contract.Transact(opts, "setCommittee", epoch, threshold, pubkeys, pops)
}

// SetCommittee is a paid mutator transaction binding the contract method 0x7fa7b91d.
//
// Solidity: function setCommittee(uint64 epoch, uint32 threshold, bytes[] pubkeys, bytes[] pops) returns()
func (_IFHEVerdict *IFHEVerdictSession) SetCommittee(epoch uint64, threshold uint32, pubkeys [][]byte, pops [][]byte) (*types.Transaction, error) {
	return _IFHEVerdict.Contract.SetCommittee(&_IFHEVerdict.TransactOpts, epoch, threshold, pubkeys, pops)
}

// SetCommittee is a paid mutator transaction binding the contract method 0x7fa7b91d.
//
// Solidity: function setCommittee(uint64 epoch, uint32 threshold, bytes[] pubkeys, bytes[] pops) returns()
func (_IFHEVerdict *IFHEVerdictTransactorSession) SetCommittee(epoch uint64, threshold uint32, pubkeys [][]byte, pops [][]byte) (*types.Transaction, error) {
	return _IFHEVerdict.Contract.SetCommittee(&_IFHEVerdict.TransactOpts, epoch, threshold, pubkeys, pops)
}

// SetCommitteeKey is a paid mutator transaction binding the contract method 0xc70a5d03.
//
// Solidity: function setCommitteeKey(uint64 epoch, bytes32 pkDigest, bytes signature, bytes signers) returns()
func (_IFHEVerdict *IFHEVerdictTransactor) SetCommitteeKey(opts *bind.TransactOpts, epoch uint64, pkDigest [32]byte, signature []byte, signers []byte) (*types.Transaction, error) {
	return _IFHEVerdict.contract.Transact(opts, "setCommitteeKey", epoch, pkDigest, signature, signers)
}

// SetCommitteeKey is a paid mutator transaction binding the contract method 0xc70a5d03.
//
// Solidity: function setCommitteeKey(uint64 epoch, bytes32 pkDigest, bytes signature, bytes signers) returns()
func (_IFHEVerdict *IFHEVerdictSession) SetCommitteeKey(epoch uint64, pkDigest [32]byte, signature []byte, signers []byte) (*types.Transaction, error) {
	return _IFHEVerdict.Contract.SetCommitteeKey(&_IFHEVerdict.TransactOpts, epoch, pkDigest, signature, signers)
}

// SetCommitteeKey is a paid mutator transaction binding the contract method 0xc70a5d03.
//
// Solidity: function setCommitteeKey(uint64 epoch, bytes32 pkDigest, bytes signature, bytes signers) returns()
func (_IFHEVerdict *IFHEVerdictTransactorSession) SetCommitteeKey(epoch uint64, pkDigest [32]byte, signature []byte, signers []byte) (*types.Transaction, error) {
	return _IFHEVerdict.Contract.SetCommitteeKey(&_IFHEVerdict.TransactOpts, epoch, pkDigest, signature, signers)
}

// Submit is a paid mutator transaction binding the contract method 0x957a00df.
//
// Solidity: function submit(bytes32 requestId, uint256 result, bytes32 resultDigest, bytes signature, bytes signers) returns()
func (_IFHEVerdict *IFHEVerdictTransactor) Submit(opts *bind.TransactOpts, requestId [32]byte, result *big.Int, resultDigest [32]byte, signature []byte, signers []byte) (*types.Transaction, error) {
	return _IFHEVerdict.contract.Transact(opts, "submit", requestId, result, resultDigest, signature, signers)
}

// Submit is a paid mutator transaction binding the contract method 0x957a00df.
//
// Solidity: function submit(bytes32 requestId, uint256 result, bytes32 resultDigest, bytes signature, bytes signers) returns()
func (_IFHEVerdict *IFHEVerdictSession) Submit(requestId [32]byte, result *big.Int, resultDigest [32]byte, signature []byte, signers []byte) (*types.Transaction, error) {
	return _IFHEVerdict.Contract.Submit(&_IFHEVerdict.TransactOpts, requestId, result, resultDigest, signature, signers)
}

// Submit is a paid mutator transaction binding the contract method 0x957a00df.
//
// Solidity: function submit(bytes32 requestId, uint256 result, bytes32 resultDigest, bytes signature, bytes signers) returns()
func (_IFHEVerdict *IFHEVerdictTransactorSession) Submit(requestId [32]byte, result *big.Int, resultDigest [32]byte, signature []byte, signers []byte) (*types.Transaction, error) {
	return _IFHEVerdict.Contract.Submit(&_IFHEVerdict.TransactOpts, requestId, result, resultDigest, signature, signers)
}

// SubmitBatch is a paid mutator transaction binding the contract method 0x11594cfa.
//
// Solidity: function submitBatch(bytes32 policyId, bytes32 resultDigest, bytes32[] requestIds, uint256[] results, bytes signature, bytes signers) returns()
func (_IFHEVerdict *IFHEVerdictTransactor) SubmitBatch(opts *bind.TransactOpts, policyId [32]byte, resultDigest [32]byte, requestIds [][32]byte, results []*big.Int, signature []byte, signers []byte) (*types.Transaction, error) {
	return _IFHEVerdict.contract.Transact(opts, "submitBatch", policyId, resultDigest, requestIds, results, signature, signers)
}

// SubmitBatch is a paid mutator transaction binding the contract method 0x11594cfa.
//
// Solidity: function submitBatch(bytes32 policyId, bytes32 resultDigest, bytes32[] requestIds, uint256[] results, bytes signature, bytes signers) returns()
func (_IFHEVerdict *IFHEVerdictSession) SubmitBatch(policyId [32]byte, resultDigest [32]byte, requestIds [][32]byte, results []*big.Int, signature []byte, signers []byte) (*types.Transaction, error) {
	return _IFHEVerdict.Contract.SubmitBatch(&_IFHEVerdict.TransactOpts, policyId, resultDigest, requestIds, results, signature, signers)
}

// SubmitBatch is a paid mutator transaction binding the contract method 0x11594cfa.
//
// Solidity: function submitBatch(bytes32 policyId, bytes32 resultDigest, bytes32[] requestIds, uint256[] results, bytes signature, bytes signers) returns()
func (_IFHEVerdict *IFHEVerdictTransactorSession) SubmitBatch(policyId [32]byte, resultDigest [32]byte, requestIds [][32]byte, results []*big.Int, signature []byte, signers []byte) (*types.Transaction, error) {
	return _IFHEVerdict.Contract.SubmitBatch(&_IFHEVerdict.TransactOpts, policyId, resultDigest, requestIds, results, signature, signers)
}

// TransferGovernance is a paid mutator transaction binding the contract method 0xd38bfff4.
//
// Solidity: function transferGovernance(address newGovernance) returns()
func (_IFHEVerdict *IFHEVerdictTransactor) TransferGovernance(opts *bind.TransactOpts, newGovernance common.Address) (*types.Transaction, error) {
	return _IFHEVerdict.contract.Transact(opts, "transferGovernance", newGovernance)
}

// TransferGovernance is a paid mutator transaction binding the contract method 0xd38bfff4.
//
// Solidity: function transferGovernance(address newGovernance) returns()
func (_IFHEVerdict *IFHEVerdictSession) TransferGovernance(newGovernance common.Address) (*types.Transaction, error) {
	return _IFHEVerdict.Contract.TransferGovernance(&_IFHEVerdict.TransactOpts, newGovernance)
}

// TransferGovernance is a paid mutator transaction binding the contract method 0xd38bfff4.
//
// Solidity: function transferGovernance(address newGovernance) returns()
func (_IFHEVerdict *IFHEVerdictTransactorSession) TransferGovernance(newGovernance common.Address) (*types.Transaction, error) {
	return _IFHEVerdict.Contract.TransferGovernance(&_IFHEVerdict.TransactOpts, newGovernance)
}

// IFHEVerdictCommitteeChangedIterator is returned from FilterCommitteeChanged and is used to iterate over the raw logs and unpacked data for CommitteeChanged events raised by the IFHEVerdict contract.
type IFHEVerdictCommitteeChangedIterator struct {
	Event *IFHEVerdictCommitteeChanged // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *IFHEVerdictCommitteeChangedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(IFHEVerdictCommitteeChanged)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(IFHEVerdictCommitteeChanged)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *IFHEVerdictCommitteeChangedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *IFHEVerdictCommitteeChangedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// IFHEVerdictCommitteeChanged represents a CommitteeChanged event raised by the IFHEVerdict contract.
type IFHEVerdictCommitteeChanged struct {
	Epoch     uint64
	Threshold uint32
	Size      uint32
	Raw       types.Log // Blockchain specific contextual infos
}

// FilterCommitteeChanged is a free log retrieval operation binding the contract event 0xd9236699de0b7e0d63631da204efe859b87aae7da642b0ca4ba05614e5dba279.
//
// Solidity: event CommitteeChanged(uint64 indexed epoch, uint32 threshold, uint32 size)
func (_IFHEVerdict *IFHEVerdictFilterer) FilterCommitteeChanged(opts *bind.FilterOpts, epoch []uint64) (*IFHEVerdictCommitteeChangedIterator, error) {

	var epochRule []interface{}
	for _, epochItem := range epoch {
		epochRule = append(epochRule, epochItem)
	}

	logs, sub, err := _IFHEVerdict.contract.FilterLogs(opts, "CommitteeChanged", epochRule)
	if err != nil {
		return nil, err
	}
	return &IFHEVerdictCommitteeChangedIterator{contract: _IFHEVerdict.contract, event: "CommitteeChanged", logs: logs, sub: sub}, nil
}

// WatchCommitteeChanged is a free log subscription operation binding the contract event 0xd9236699de0b7e0d63631da204efe859b87aae7da642b0ca4ba05614e5dba279.
//
// Solidity: event CommitteeChanged(uint64 indexed epoch, uint32 threshold, uint32 size)
func (_IFHEVerdict *IFHEVerdictFilterer) WatchCommitteeChanged(opts *bind.WatchOpts, sink chan<- *IFHEVerdictCommitteeChanged, epoch []uint64) (event.Subscription, error) {

	var epochRule []interface{}
	for _, epochItem := range epoch {
		epochRule = append(epochRule, epochItem)
	}

	logs, sub, err := _IFHEVerdict.contract.WatchLogs(opts, "CommitteeChanged", epochRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(IFHEVerdictCommitteeChanged)
				if err := _IFHEVerdict.contract.UnpackLog(event, "CommitteeChanged", log); err != nil {
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseCommitteeChanged is a log parse operation binding the contract event 0xd9236699de0b7e0d63631da204efe859b87aae7da642b0ca4ba05614e5dba279.
//
// Solidity: event CommitteeChanged(uint64 indexed epoch, uint32 threshold, uint32 size)
func (_IFHEVerdict *IFHEVerdictFilterer) ParseCommitteeChanged(log types.Log) (*IFHEVerdictCommitteeChanged, error) {
	event := new(IFHEVerdictCommitteeChanged)
	if err := _IFHEVerdict.contract.UnpackLog(event, "CommitteeChanged", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// IFHEVerdictCommitteeKeySetIterator is returned from FilterCommitteeKeySet and is used to iterate over the raw logs and unpacked data for CommitteeKeySet events raised by the IFHEVerdict contract.
type IFHEVerdictCommitteeKeySetIterator struct {
	Event *IFHEVerdictCommitteeKeySet // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *IFHEVerdictCommitteeKeySetIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(IFHEVerdictCommitteeKeySet)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(IFHEVerdictCommitteeKeySet)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *IFHEVerdictCommitteeKeySetIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *IFHEVerdictCommitteeKeySetIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// IFHEVerdictCommitteeKeySet represents a CommitteeKeySet event raised by the IFHEVerdict contract.
type IFHEVerdictCommitteeKeySet struct {
	Epoch    uint64
	PkDigest [32]byte
	Signers  uint32
	Raw      types.Log // Blockchain specific contextual infos
}

// FilterCommitteeKeySet is a free log retrieval operation binding the contract event 0x97f1ae7651f35b52f489feb759468fb8f9158e0876e462693848052d620ea8eb.
//
// Solidity: event CommitteeKeySet(uint64 indexed epoch, bytes32 pkDigest, uint32 signers)
func (_IFHEVerdict *IFHEVerdictFilterer) FilterCommitteeKeySet(opts *bind.FilterOpts, epoch []uint64) (*IFHEVerdictCommitteeKeySetIterator, error) {

	var epochRule []interface{}
	for _, epochItem := range epoch {
		epochRule = append(epochRule, epochItem)
	}

	logs, sub, err := _IFHEVerdict.contract.FilterLogs(opts, "CommitteeKeySet", epochRule)
	if err != nil {
		return nil, err
	}
	return &IFHEVerdictCommitteeKeySetIterator{contract: _IFHEVerdict.contract, event: "CommitteeKeySet", logs: logs, sub: sub}, nil
}

// WatchCommitteeKeySet is a free log subscription operation binding the contract event 0x97f1ae7651f35b52f489feb759468fb8f9158e0876e462693848052d620ea8eb.
//
// Solidity: event CommitteeKeySet(uint64 indexed epoch, bytes32 pkDigest, uint32 signers)
func (_IFHEVerdict *IFHEVerdictFilterer) WatchCommitteeKeySet(opts *bind.WatchOpts, sink chan<- *IFHEVerdictCommitteeKeySet, epoch []uint64) (event.Subscription, error) {

	var epochRule []interface{}
	for _, epochItem := range epoch {
		epochRule = append(epochRule, epochItem)
	}

	logs, sub, err := _IFHEVerdict.contract.WatchLogs(opts, "CommitteeKeySet", epochRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(IFHEVerdictCommitteeKeySet)
				if err := _IFHEVerdict.contract.UnpackLog(event, "CommitteeKeySet", log); err != nil {
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseCommitteeKeySet is a log parse operation binding the contract event 0x97f1ae7651f35b52f489feb759468fb8f9158e0876e462693848052d620ea8eb.
//
// Solidity: event CommitteeKeySet(uint64 indexed epoch, bytes32 pkDigest, uint32 signers)
func (_IFHEVerdict *IFHEVerdictFilterer) ParseCommitteeKeySet(log types.Log) (*IFHEVerdictCommitteeKeySet, error) {
	event := new(IFHEVerdictCommitteeKeySet)
	if err := _IFHEVerdict.contract.UnpackLog(event, "CommitteeKeySet", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// IFHEVerdictDepositsSettledIterator is returned from FilterDepositsSettled and is used to iterate over the raw logs and unpacked data for DepositsSettled events raised by the IFHEVerdict contract.
type IFHEVerdictDepositsSettledIterator struct {
	Event *IFHEVerdictDepositsSettled // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *IFHEVerdictDepositsSettledIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(IFHEVerdictDepositsSettled)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(IFHEVerdictDepositsSettled)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *IFHEVerdictDepositsSettledIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *IFHEVerdictDepositsSettledIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// IFHEVerdictDepositsSettled represents a DepositsSettled event raised by the IFHEVerdict contract.
type IFHEVerdictDepositsSettled struct {
	PolicyId     [32]byte
	Refunded     uint32
	Forfeited    uint32
	RefundedWei  *big.Int
	ForfeitedWei *big.Int
	Raw          types.Log // Blockchain specific contextual infos
}

// FilterDepositsSettled is a free log retrieval operation binding the contract event 0x241fecced495102235eba96758951dc23751f1433face19e358ca552d100a65c.
//
// Solidity: event DepositsSettled(bytes32 indexed policyId, uint32 refunded, uint32 forfeited, uint256 refundedWei, uint256 forfeitedWei)
func (_IFHEVerdict *IFHEVerdictFilterer) FilterDepositsSettled(opts *bind.FilterOpts, policyId [][32]byte) (*IFHEVerdictDepositsSettledIterator, error) {

	var policyIdRule []interface{}
	for _, policyIdItem := range policyId {
		policyIdRule = append(policyIdRule, policyIdItem)
	}

	logs, sub, err := _IFHEVerdict.contract.FilterLogs(opts, "DepositsSettled", policyIdRule)
	if err != nil {
		return nil, err
	}
	return &IFHEVerdictDepositsSettledIterator{contract: _IFHEVerdict.contract, event: "DepositsSettled", logs: logs, sub: sub}, nil
}

// WatchDepositsSettled is a free log subscription operation binding the contract event 0x241fecced495102235eba96758951dc23751f1433face19e358ca552d100a65c.
//
// Solidity: event DepositsSettled(bytes32 indexed policyId, uint32 refunded, uint32 forfeited, uint256 refundedWei, uint256 forfeitedWei)
func (_IFHEVerdict *IFHEVerdictFilterer) WatchDepositsSettled(opts *bind.WatchOpts, sink chan<- *IFHEVerdictDepositsSettled, policyId [][32]byte) (event.Subscription, error) {

	var policyIdRule []interface{}
	for _, policyIdItem := range policyId {
		policyIdRule = append(policyIdRule, policyIdItem)
	}

	logs, sub, err := _IFHEVerdict.contract.WatchLogs(opts, "DepositsSettled", policyIdRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(IFHEVerdictDepositsSettled)
				if err := _IFHEVerdict.contract.UnpackLog(event, "DepositsSettled", log); err != nil {
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseDepositsSettled is a log parse operation binding the contract event 0x241fecced495102235eba96758951dc23751f1433face19e358ca552d100a65c.
//
// Solidity: event DepositsSettled(bytes32 indexed policyId, uint32 refunded, uint32 forfeited, uint256 refundedWei, uint256 forfeitedWei)
func (_IFHEVerdict *IFHEVerdictFilterer) ParseDepositsSettled(log types.Log) (*IFHEVerdictDepositsSettled, error) {
	event := new(IFHEVerdictDepositsSettled)
	if err := _IFHEVerdict.contract.UnpackLog(event, "DepositsSettled", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// IFHEVerdictGovernanceTransferStartedIterator is returned from FilterGovernanceTransferStarted and is used to iterate over the raw logs and unpacked data for GovernanceTransferStarted events raised by the IFHEVerdict contract.
type IFHEVerdictGovernanceTransferStartedIterator struct {
	Event *IFHEVerdictGovernanceTransferStarted // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *IFHEVerdictGovernanceTransferStartedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(IFHEVerdictGovernanceTransferStarted)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(IFHEVerdictGovernanceTransferStarted)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *IFHEVerdictGovernanceTransferStartedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *IFHEVerdictGovernanceTransferStartedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// IFHEVerdictGovernanceTransferStarted represents a GovernanceTransferStarted event raised by the IFHEVerdict contract.
type IFHEVerdictGovernanceTransferStarted struct {
	Governance        common.Address
	PendingGovernance common.Address
	Raw               types.Log // Blockchain specific contextual infos
}

// FilterGovernanceTransferStarted is a free log retrieval operation binding the contract event 0x1c4bb4e3cab7b72da7eb9f0ae62554dda85dc7fb907c946ad2776095b95ac1ad.
//
// Solidity: event GovernanceTransferStarted(address indexed governance, address indexed pendingGovernance)
func (_IFHEVerdict *IFHEVerdictFilterer) FilterGovernanceTransferStarted(opts *bind.FilterOpts, governance []common.Address, pendingGovernance []common.Address) (*IFHEVerdictGovernanceTransferStartedIterator, error) {

	var governanceRule []interface{}
	for _, governanceItem := range governance {
		governanceRule = append(governanceRule, governanceItem)
	}
	var pendingGovernanceRule []interface{}
	for _, pendingGovernanceItem := range pendingGovernance {
		pendingGovernanceRule = append(pendingGovernanceRule, pendingGovernanceItem)
	}

	logs, sub, err := _IFHEVerdict.contract.FilterLogs(opts, "GovernanceTransferStarted", governanceRule, pendingGovernanceRule)
	if err != nil {
		return nil, err
	}
	return &IFHEVerdictGovernanceTransferStartedIterator{contract: _IFHEVerdict.contract, event: "GovernanceTransferStarted", logs: logs, sub: sub}, nil
}

// WatchGovernanceTransferStarted is a free log subscription operation binding the contract event 0x1c4bb4e3cab7b72da7eb9f0ae62554dda85dc7fb907c946ad2776095b95ac1ad.
//
// Solidity: event GovernanceTransferStarted(address indexed governance, address indexed pendingGovernance)
func (_IFHEVerdict *IFHEVerdictFilterer) WatchGovernanceTransferStarted(opts *bind.WatchOpts, sink chan<- *IFHEVerdictGovernanceTransferStarted, governance []common.Address, pendingGovernance []common.Address) (event.Subscription, error) {

	var governanceRule []interface{}
	for _, governanceItem := range governance {
		governanceRule = append(governanceRule, governanceItem)
	}
	var pendingGovernanceRule []interface{}
	for _, pendingGovernanceItem := range pendingGovernance {
		pendingGovernanceRule = append(pendingGovernanceRule, pendingGovernanceItem)
	}

	logs, sub, err := _IFHEVerdict.contract.WatchLogs(opts, "GovernanceTransferStarted", governanceRule, pendingGovernanceRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(IFHEVerdictGovernanceTransferStarted)
				if err := _IFHEVerdict.contract.UnpackLog(event, "GovernanceTransferStarted", log); err != nil {
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseGovernanceTransferStarted is a log parse operation binding the contract event 0x1c4bb4e3cab7b72da7eb9f0ae62554dda85dc7fb907c946ad2776095b95ac1ad.
//
// Solidity: event GovernanceTransferStarted(address indexed governance, address indexed pendingGovernance)
func (_IFHEVerdict *IFHEVerdictFilterer) ParseGovernanceTransferStarted(log types.Log) (*IFHEVerdictGovernanceTransferStarted, error) {
	event := new(IFHEVerdictGovernanceTransferStarted)
	if err := _IFHEVerdict.contract.UnpackLog(event, "GovernanceTransferStarted", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// IFHEVerdictGovernanceTransferredIterator is returned from FilterGovernanceTransferred and is used to iterate over the raw logs and unpacked data for GovernanceTransferred events raised by the IFHEVerdict contract.
type IFHEVerdictGovernanceTransferredIterator struct {
	Event *IFHEVerdictGovernanceTransferred // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *IFHEVerdictGovernanceTransferredIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(IFHEVerdictGovernanceTransferred)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(IFHEVerdictGovernanceTransferred)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *IFHEVerdictGovernanceTransferredIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *IFHEVerdictGovernanceTransferredIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// IFHEVerdictGovernanceTransferred represents a GovernanceTransferred event raised by the IFHEVerdict contract.
type IFHEVerdictGovernanceTransferred struct {
	PreviousGovernance common.Address
	NewGovernance      common.Address
	Raw                types.Log // Blockchain specific contextual infos
}

// FilterGovernanceTransferred is a free log retrieval operation binding the contract event 0x5f56bee8cffbe9a78652a74a60705edede02af10b0bbb888ca44b79a0d42ce80.
//
// Solidity: event GovernanceTransferred(address indexed previousGovernance, address indexed newGovernance)
func (_IFHEVerdict *IFHEVerdictFilterer) FilterGovernanceTransferred(opts *bind.FilterOpts, previousGovernance []common.Address, newGovernance []common.Address) (*IFHEVerdictGovernanceTransferredIterator, error) {

	var previousGovernanceRule []interface{}
	for _, previousGovernanceItem := range previousGovernance {
		previousGovernanceRule = append(previousGovernanceRule, previousGovernanceItem)
	}
	var newGovernanceRule []interface{}
	for _, newGovernanceItem := range newGovernance {
		newGovernanceRule = append(newGovernanceRule, newGovernanceItem)
	}

	logs, sub, err := _IFHEVerdict.contract.FilterLogs(opts, "GovernanceTransferred", previousGovernanceRule, newGovernanceRule)
	if err != nil {
		return nil, err
	}
	return &IFHEVerdictGovernanceTransferredIterator{contract: _IFHEVerdict.contract, event: "GovernanceTransferred", logs: logs, sub: sub}, nil
}

// WatchGovernanceTransferred is a free log subscription operation binding the contract event 0x5f56bee8cffbe9a78652a74a60705edede02af10b0bbb888ca44b79a0d42ce80.
//
// Solidity: event GovernanceTransferred(address indexed previousGovernance, address indexed newGovernance)
func (_IFHEVerdict *IFHEVerdictFilterer) WatchGovernanceTransferred(opts *bind.WatchOpts, sink chan<- *IFHEVerdictGovernanceTransferred, previousGovernance []common.Address, newGovernance []common.Address) (event.Subscription, error) {

	var previousGovernanceRule []interface{}
	for _, previousGovernanceItem := range previousGovernance {
		previousGovernanceRule = append(previousGovernanceRule, previousGovernanceItem)
	}
	var newGovernanceRule []interface{}
	for _, newGovernanceItem := range newGovernance {
		newGovernanceRule = append(newGovernanceRule, newGovernanceItem)
	}

	logs, sub, err := _IFHEVerdict.contract.WatchLogs(opts, "GovernanceTransferred", previousGovernanceRule, newGovernanceRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(IFHEVerdictGovernanceTransferred)
				if err := _IFHEVerdict.contract.UnpackLog(event, "GovernanceTransferred", log); err != nil {
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseGovernanceTransferred is a log parse operation binding the contract event 0x5f56bee8cffbe9a78652a74a60705edede02af10b0bbb888ca44b79a0d42ce80.
//
// Solidity: event GovernanceTransferred(address indexed previousGovernance, address indexed newGovernance)
func (_IFHEVerdict *IFHEVerdictFilterer) ParseGovernanceTransferred(log types.Log) (*IFHEVerdictGovernanceTransferred, error) {
	event := new(IFHEVerdictGovernanceTransferred)
	if err := _IFHEVerdict.contract.UnpackLog(event, "GovernanceTransferred", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// IFHEVerdictVerdictAcceptedIterator is returned from FilterVerdictAccepted and is used to iterate over the raw logs and unpacked data for VerdictAccepted events raised by the IFHEVerdict contract.
type IFHEVerdictVerdictAcceptedIterator struct {
	Event *IFHEVerdictVerdictAccepted // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *IFHEVerdictVerdictAcceptedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(IFHEVerdictVerdictAccepted)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(IFHEVerdictVerdictAccepted)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *IFHEVerdictVerdictAcceptedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *IFHEVerdictVerdictAcceptedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// IFHEVerdictVerdictAccepted represents a VerdictAccepted event raised by the IFHEVerdict contract.
type IFHEVerdictVerdictAccepted struct {
	RequestId    [32]byte
	PolicyId     [32]byte
	Result       *big.Int
	ResultDigest [32]byte
	Epoch        uint64
	Signers      uint32
	Raw          types.Log // Blockchain specific contextual infos
}

// FilterVerdictAccepted is a free log retrieval operation binding the contract event 0xd2faee3b8bf9298aa97f661828446523472c723e3b203c5e1efb644923149c61.
//
// Solidity: event VerdictAccepted(bytes32 indexed requestId, bytes32 indexed policyId, uint256 result, bytes32 resultDigest, uint64 epoch, uint32 signers)
func (_IFHEVerdict *IFHEVerdictFilterer) FilterVerdictAccepted(opts *bind.FilterOpts, requestId [][32]byte, policyId [][32]byte) (*IFHEVerdictVerdictAcceptedIterator, error) {

	var requestIdRule []interface{}
	for _, requestIdItem := range requestId {
		requestIdRule = append(requestIdRule, requestIdItem)
	}
	var policyIdRule []interface{}
	for _, policyIdItem := range policyId {
		policyIdRule = append(policyIdRule, policyIdItem)
	}

	logs, sub, err := _IFHEVerdict.contract.FilterLogs(opts, "VerdictAccepted", requestIdRule, policyIdRule)
	if err != nil {
		return nil, err
	}
	return &IFHEVerdictVerdictAcceptedIterator{contract: _IFHEVerdict.contract, event: "VerdictAccepted", logs: logs, sub: sub}, nil
}

// WatchVerdictAccepted is a free log subscription operation binding the contract event 0xd2faee3b8bf9298aa97f661828446523472c723e3b203c5e1efb644923149c61.
//
// Solidity: event VerdictAccepted(bytes32 indexed requestId, bytes32 indexed policyId, uint256 result, bytes32 resultDigest, uint64 epoch, uint32 signers)
func (_IFHEVerdict *IFHEVerdictFilterer) WatchVerdictAccepted(opts *bind.WatchOpts, sink chan<- *IFHEVerdictVerdictAccepted, requestId [][32]byte, policyId [][32]byte) (event.Subscription, error) {

	var requestIdRule []interface{}
	for _, requestIdItem := range requestId {
		requestIdRule = append(requestIdRule, requestIdItem)
	}
	var policyIdRule []interface{}
	for _, policyIdItem := range policyId {
		policyIdRule = append(policyIdRule, policyIdItem)
	}

	logs, sub, err := _IFHEVerdict.contract.WatchLogs(opts, "VerdictAccepted", requestIdRule, policyIdRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(IFHEVerdictVerdictAccepted)
				if err := _IFHEVerdict.contract.UnpackLog(event, "VerdictAccepted", log); err != nil {
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseVerdictAccepted is a log parse operation binding the contract event 0xd2faee3b8bf9298aa97f661828446523472c723e3b203c5e1efb644923149c61.
//
// Solidity: event VerdictAccepted(bytes32 indexed requestId, bytes32 indexed policyId, uint256 result, bytes32 resultDigest, uint64 epoch, uint32 signers)
func (_IFHEVerdict *IFHEVerdictFilterer) ParseVerdictAccepted(log types.Log) (*IFHEVerdictVerdictAccepted, error) {
	event := new(IFHEVerdictVerdictAccepted)
	if err := _IFHEVerdict.contract.UnpackLog(event, "VerdictAccepted", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// IFHEVerdictVerdictBatchAcceptedIterator is returned from FilterVerdictBatchAccepted and is used to iterate over the raw logs and unpacked data for VerdictBatchAccepted events raised by the IFHEVerdict contract.
type IFHEVerdictVerdictBatchAcceptedIterator struct {
	Event *IFHEVerdictVerdictBatchAccepted // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *IFHEVerdictVerdictBatchAcceptedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(IFHEVerdictVerdictBatchAccepted)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(IFHEVerdictVerdictBatchAccepted)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *IFHEVerdictVerdictBatchAcceptedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *IFHEVerdictVerdictBatchAcceptedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// IFHEVerdictVerdictBatchAccepted represents a VerdictBatchAccepted event raised by the IFHEVerdict contract.
type IFHEVerdictVerdictBatchAccepted struct {
	PolicyId     [32]byte
	Root         [32]byte
	ResultDigest [32]byte
	Epoch        uint64
	Signers      uint32
	Count        uint32
	Stored       uint32
	Raw          types.Log // Blockchain specific contextual infos
}

// FilterVerdictBatchAccepted is a free log retrieval operation binding the contract event 0xc61ba76b302e43c7c7ed5261c87f4e97d446f4a0bb984f229f140e3a2529da9a.
//
// Solidity: event VerdictBatchAccepted(bytes32 indexed policyId, bytes32 indexed root, bytes32 resultDigest, uint64 epoch, uint32 signers, uint32 count, uint32 stored)
func (_IFHEVerdict *IFHEVerdictFilterer) FilterVerdictBatchAccepted(opts *bind.FilterOpts, policyId [][32]byte, root [][32]byte) (*IFHEVerdictVerdictBatchAcceptedIterator, error) {

	var policyIdRule []interface{}
	for _, policyIdItem := range policyId {
		policyIdRule = append(policyIdRule, policyIdItem)
	}
	var rootRule []interface{}
	for _, rootItem := range root {
		rootRule = append(rootRule, rootItem)
	}

	logs, sub, err := _IFHEVerdict.contract.FilterLogs(opts, "VerdictBatchAccepted", policyIdRule, rootRule)
	if err != nil {
		return nil, err
	}
	return &IFHEVerdictVerdictBatchAcceptedIterator{contract: _IFHEVerdict.contract, event: "VerdictBatchAccepted", logs: logs, sub: sub}, nil
}

// WatchVerdictBatchAccepted is a free log subscription operation binding the contract event 0xc61ba76b302e43c7c7ed5261c87f4e97d446f4a0bb984f229f140e3a2529da9a.
//
// Solidity: event VerdictBatchAccepted(bytes32 indexed policyId, bytes32 indexed root, bytes32 resultDigest, uint64 epoch, uint32 signers, uint32 count, uint32 stored)
func (_IFHEVerdict *IFHEVerdictFilterer) WatchVerdictBatchAccepted(opts *bind.WatchOpts, sink chan<- *IFHEVerdictVerdictBatchAccepted, policyId [][32]byte, root [][32]byte) (event.Subscription, error) {

	var policyIdRule []interface{}
	for _, policyIdItem := range policyId {
		policyIdRule = append(policyIdRule, policyIdItem)
	}
	var rootRule []interface{}
	for _, rootItem := range root {
		rootRule = append(rootRule, rootItem)
	}

	logs, sub, err := _IFHEVerdict.contract.WatchLogs(opts, "VerdictBatchAccepted", policyIdRule, rootRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(IFHEVerdictVerdictBatchAccepted)
				if err := _IFHEVerdict.contract.UnpackLog(event, "VerdictBatchAccepted", log); err != nil {
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseVerdictBatchAccepted is a log parse operation binding the contract event 0xc61ba76b302e43c7c7ed5261c87f4e97d446f4a0bb984f229f140e3a2529da9a.
//
// Solidity: event VerdictBatchAccepted(bytes32 indexed policyId, bytes32 indexed root, bytes32 resultDigest, uint64 epoch, uint32 signers, uint32 count, uint32 stored)
func (_IFHEVerdict *IFHEVerdictFilterer) ParseVerdictBatchAccepted(log types.Log) (*IFHEVerdictVerdictBatchAccepted, error) {
	event := new(IFHEVerdictVerdictBatchAccepted)
	if err := _IFHEVerdict.contract.UnpackLog(event, "VerdictBatchAccepted", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// IFHEVerdictVerdictExpiredIterator is returned from FilterVerdictExpired and is used to iterate over the raw logs and unpacked data for VerdictExpired events raised by the IFHEVerdict contract.
type IFHEVerdictVerdictExpiredIterator struct {
	Event *IFHEVerdictVerdictExpired // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *IFHEVerdictVerdictExpiredIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(IFHEVerdictVerdictExpired)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(IFHEVerdictVerdictExpired)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *IFHEVerdictVerdictExpiredIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *IFHEVerdictVerdictExpiredIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// IFHEVerdictVerdictExpired represents a VerdictExpired event raised by the IFHEVerdict contract.
type IFHEVerdictVerdictExpired struct {
	RequestId    [32]byte
	PolicyId     [32]byte
	RequestBlock uint64
	Raw          types.Log // Blockchain specific contextual infos
}

// FilterVerdictExpired is a free log retrieval operation binding the contract event 0xfc619d142ee568969b9ac4b68d22471d84839c810e96bd674281b0a92d273c61.
//
// Solidity: event VerdictExpired(bytes32 indexed requestId, bytes32 indexed policyId, uint64 requestBlock)
func (_IFHEVerdict *IFHEVerdictFilterer) FilterVerdictExpired(opts *bind.FilterOpts, requestId [][32]byte, policyId [][32]byte) (*IFHEVerdictVerdictExpiredIterator, error) {

	var requestIdRule []interface{}
	for _, requestIdItem := range requestId {
		requestIdRule = append(requestIdRule, requestIdItem)
	}
	var policyIdRule []interface{}
	for _, policyIdItem := range policyId {
		policyIdRule = append(policyIdRule, policyIdItem)
	}

	logs, sub, err := _IFHEVerdict.contract.FilterLogs(opts, "VerdictExpired", requestIdRule, policyIdRule)
	if err != nil {
		return nil, err
	}
	return &IFHEVerdictVerdictExpiredIterator{contract: _IFHEVerdict.contract, event: "VerdictExpired", logs: logs, sub: sub}, nil
}

// WatchVerdictExpired is a free log subscription operation binding the contract event 0xfc619d142ee568969b9ac4b68d22471d84839c810e96bd674281b0a92d273c61.
//
// Solidity: event VerdictExpired(bytes32 indexed requestId, bytes32 indexed policyId, uint64 requestBlock)
func (_IFHEVerdict *IFHEVerdictFilterer) WatchVerdictExpired(opts *bind.WatchOpts, sink chan<- *IFHEVerdictVerdictExpired, requestId [][32]byte, policyId [][32]byte) (event.Subscription, error) {

	var requestIdRule []interface{}
	for _, requestIdItem := range requestId {
		requestIdRule = append(requestIdRule, requestIdItem)
	}
	var policyIdRule []interface{}
	for _, policyIdItem := range policyId {
		policyIdRule = append(policyIdRule, policyIdItem)
	}

	logs, sub, err := _IFHEVerdict.contract.WatchLogs(opts, "VerdictExpired", requestIdRule, policyIdRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(IFHEVerdictVerdictExpired)
				if err := _IFHEVerdict.contract.UnpackLog(event, "VerdictExpired", log); err != nil {
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseVerdictExpired is a log parse operation binding the contract event 0xfc619d142ee568969b9ac4b68d22471d84839c810e96bd674281b0a92d273c61.
//
// Solidity: event VerdictExpired(bytes32 indexed requestId, bytes32 indexed policyId, uint64 requestBlock)
func (_IFHEVerdict *IFHEVerdictFilterer) ParseVerdictExpired(log types.Log) (*IFHEVerdictVerdictExpired, error) {
	event := new(IFHEVerdictVerdictExpired)
	if err := _IFHEVerdict.contract.UnpackLog(event, "VerdictExpired", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
