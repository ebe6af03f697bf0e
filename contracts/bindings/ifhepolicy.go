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

// IFHEPolicyMetaData contains all meta data concerning the IFHEPolicy contract.
var IFHEPolicyMetaData = &bind.MetaData{
	ABI: "[{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"policyId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"requester\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes32[]\",\"name\":\"handles\",\"type\":\"bytes32[]\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"cost\",\"type\":\"uint64\"}],\"name\":\"EvaluationRequested\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"policyId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"registrant\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"planHash\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint32\",\"name\":\"depth\",\"type\":\"uint32\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"cost\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"uint32\",\"name\":\"inputs\",\"type\":\"uint32\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"spec\",\"type\":\"bytes\"}],\"name\":\"PolicyRegistered\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"policyId\",\"type\":\"bytes32\"}],\"name\":\"depositOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"deposit\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"policyId\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32[]\",\"name\":\"handles\",\"type\":\"bytes32[]\"}],\"name\":\"evaluate\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"policyId\",\"type\":\"bytes32\"},{\"internalType\":\"uint8\",\"name\":\"preset\",\"type\":\"uint8\"},{\"internalType\":\"bytes32[]\",\"name\":\"handles\",\"type\":\"bytes32[]\"},{\"internalType\":\"uint8[]\",\"name\":\"ctypes\",\"type\":\"uint8[]\"},{\"internalType\":\"bytes32[]\",\"name\":\"proofDigests\",\"type\":\"bytes32[]\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"signers\",\"type\":\"bytes\"}],\"name\":\"evaluateAttested\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"policyId\",\"type\":\"bytes32\"},{\"internalType\":\"uint8\",\"name\":\"preset\",\"type\":\"uint8\"},{\"internalType\":\"bytes32[]\",\"name\":\"handles\",\"type\":\"bytes32[]\"},{\"internalType\":\"uint8[]\",\"name\":\"ctypes\",\"type\":\"uint8[]\"},{\"internalType\":\"bytes32[]\",\"name\":\"proofDigests\",\"type\":\"bytes32[]\"},{\"internalType\":\"bytes32\",\"name\":\"root\",\"type\":\"bytes32\"},{\"internalType\":\"uint32\",\"name\":\"index\",\"type\":\"uint32\"},{\"internalType\":\"bytes32[]\",\"name\":\"path\",\"type\":\"bytes32[]\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"signers\",\"type\":\"bytes\"}],\"name\":\"evaluateRooted\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"policyId\",\"type\":\"bytes32\"}],\"name\":\"policyOf\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"exists\",\"type\":\"bool\"},{\"internalType\":\"bytes32\",\"name\":\"planHash\",\"type\":\"bytes32\"},{\"internalType\":\"uint32\",\"name\":\"depth\",\"type\":\"uint32\"},{\"internalType\":\"uint64\",\"name\":\"cost\",\"type\":\"uint64\"},{\"internalType\":\"uint32\",\"name\":\"inputs\",\"type\":\"uint32\"},{\"internalType\":\"address\",\"name\":\"registrant\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes\",\"name\":\"spec\",\"type\":\"bytes\"}],\"name\":\"registerPolicy\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"policyId\",\"type\":\"bytes32\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"}],\"name\":\"requestOf\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"exists\",\"type\":\"bool\"},{\"internalType\":\"bytes32\",\"name\":\"policyId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"requester\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"blockNumber\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
}

// IFHEPolicyABI is the input ABI used to generate the binding from.
// Deprecated: Use IFHEPolicyMetaData.ABI instead.
var IFHEPolicyABI = IFHEPolicyMetaData.ABI

// IFHEPolicy is an auto generated Go binding around an Ethereum contract.
type IFHEPolicy struct {
	IFHEPolicyCaller     // Read-only binding to the contract
	IFHEPolicyTransactor // Write-only binding to the contract
	IFHEPolicyFilterer   // Log filterer for contract events
}

// IFHEPolicyCaller is an auto generated read-only Go binding around an Ethereum contract.
type IFHEPolicyCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// IFHEPolicyTransactor is an auto generated write-only Go binding around an Ethereum contract.
type IFHEPolicyTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// IFHEPolicyFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type IFHEPolicyFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// IFHEPolicySession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type IFHEPolicySession struct {
	Contract     *IFHEPolicy       // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// IFHEPolicyCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type IFHEPolicyCallerSession struct {
	Contract *IFHEPolicyCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts     // Call options to use throughout this session
}

// IFHEPolicyTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type IFHEPolicyTransactorSession struct {
	Contract     *IFHEPolicyTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts     // Transaction auth options to use throughout this session
}

// IFHEPolicyRaw is an auto generated low-level Go binding around an Ethereum contract.
type IFHEPolicyRaw struct {
	Contract *IFHEPolicy // Generic contract binding to access the raw methods on
}

// IFHEPolicyCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type IFHEPolicyCallerRaw struct {
	Contract *IFHEPolicyCaller // Generic read-only contract binding to access the raw methods on
}

// IFHEPolicyTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type IFHEPolicyTransactorRaw struct {
	Contract *IFHEPolicyTransactor // Generic write-only contract binding to access the raw methods on
}

// NewIFHEPolicy creates a new instance of IFHEPolicy, bound to a specific deployed contract.
func NewIFHEPolicy(address common.Address, backend bind.ContractBackend) (*IFHEPolicy, error) {
	contract, err := bindIFHEPolicy(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &IFHEPolicy{IFHEPolicyCaller: IFHEPolicyCaller{contract: contract}, IFHEPolicyTransactor: IFHEPolicyTransactor{contract: contract}, IFHEPolicyFilterer: IFHEPolicyFilterer{contract: contract}}, nil
}

// NewIFHEPolicyCaller creates a new read-only instance of IFHEPolicy, bound to a specific deployed contract.
func NewIFHEPolicyCaller(address common.Address, caller bind.ContractCaller) (*IFHEPolicyCaller, error) {
	contract, err := bindIFHEPolicy(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &IFHEPolicyCaller{contract: contract}, nil
}

// NewIFHEPolicyTransactor creates a new write-only instance of IFHEPolicy, bound to a specific deployed contract.
func NewIFHEPolicyTransactor(address common.Address, transactor bind.ContractTransactor) (*IFHEPolicyTransactor, error) {
	contract, err := bindIFHEPolicy(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &IFHEPolicyTransactor{contract: contract}, nil
}

// NewIFHEPolicyFilterer creates a new log filterer instance of IFHEPolicy, bound to a specific deployed contract.
func NewIFHEPolicyFilterer(address common.Address, filterer bind.ContractFilterer) (*IFHEPolicyFilterer, error) {
	contract, err := bindIFHEPolicy(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &IFHEPolicyFilterer{contract: contract}, nil
}

// bindIFHEPolicy binds a generic wrapper to an already deployed contract.
func bindIFHEPolicy(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := IFHEPolicyMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_IFHEPolicy *IFHEPolicyRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _IFHEPolicy.Contract.IFHEPolicyCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_IFHEPolicy *IFHEPolicyRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _IFHEPolicy.Contract.IFHEPolicyTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_IFHEPolicy *IFHEPolicyRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _IFHEPolicy.Contract.IFHEPolicyTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_IFHEPolicy *IFHEPolicyCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _IFHEPolicy.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_IFHEPolicy *IFHEPolicyTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _IFHEPolicy.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_IFHEPolicy *IFHEPolicyTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _IFHEPolicy.Contract.contract.Transact(opts, method, params...)
}

// DepositOf is a free data retrieval call binding the contract method 0xcca304de.
//
// Solidity: function depositOf(bytes32 policyId) view returns(uint256 deposit)
func (_IFHEPolicy *IFHEPolicyCaller) DepositOf(opts *bind.CallOpts, policyId [32]byte) (*big.Int, error) {
	var out []interface{}
	err := _IFHEPolicy.contract.Call(opts, &out, "depositOf", policyId)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// DepositOf is a free data retrieval call binding the contract method 0xcca304de.
//
// Solidity: function depositOf(bytes32 policyId) view returns(uint256 deposit)
func (_IFHEPolicy *IFHEPolicySession) DepositOf(policyId [32]byte) (*big.Int, error) {
	return _IFHEPolicy.Contract.DepositOf(&_IFHEPolicy.CallOpts, policyId)
}

// DepositOf is a free data retrieval call binding the contract method 0xcca304de.
//
// Solidity: function depositOf(bytes32 policyId) view returns(uint256 deposit)
func (_IFHEPolicy *IFHEPolicyCallerSession) DepositOf(policyId [32]byte) (*big.Int, error) {
	return _IFHEPolicy.Contract.DepositOf(&_IFHEPolicy.CallOpts, policyId)
}

// PolicyOf is a free data retrieval call binding the contract method 0x5483a0b5.
//
// Solidity: function policyOf(bytes32 policyId) view returns(bool exists, bytes32 planHash, uint32 depth, uint64 cost, uint32 inputs, address registrant)
func (_IFHEPolicy *IFHEPolicyCaller) PolicyOf(opts *bind.CallOpts, policyId [32]byte) (struct {
	Exists     bool
	PlanHash   [32]byte
	Depth      uint32
	Cost       uint64
	Inputs     uint32
	Registrant common.Address
}, error) {
	var out []interface{}
	err := _IFHEPolicy.contract.Call(opts, &out, "policyOf", policyId)

	outstruct := new(struct {
		Exists     bool
		PlanHash   [32]byte
		Depth      uint32
		Cost       uint64
		Inputs     uint32
		Registrant common.Address
	})
	if err != nil {
		return *outstruct, err
	}

	outstruct.Exists = *abi.ConvertType(out[0], new(bool)).(*bool)
	outstruct.PlanHash = *abi.ConvertType(out[1], new([32]byte)).(*[32]byte)
	outstruct.Depth = *abi.ConvertType(out[2], new(uint32)).(*uint32)
	outstruct.Cost = *abi.ConvertType(out[3], new(uint64)).(*uint64)
	outstruct.Inputs = *abi.ConvertType(out[4], new(uint32)).(*uint32)
	outstruct.Registrant = *abi.ConvertType(out[5], new(common.Address)).(*common.Address)

	return *outstruct, err

}

// PolicyOf is a free data retrieval call binding the contract method 0x5483a0b5.
//
// Solidity: function policyOf(bytes32 policyId) view returns(bool exists, bytes32 planHash, uint32 depth, uint64 cost, uint32 inputs, address registrant)
func (_IFHEPolicy *IFHEPolicySession) PolicyOf(policyId [32]byte) (struct {
	Exists     bool
	PlanHash   [32]byte
	Depth      uint32
	Cost       uint64
	Inputs     uint32
	Registrant common.Address
}, error) {
	return _IFHEPolicy.Contract.PolicyOf(&_IFHEPolicy.CallOpts, policyId)
}

// PolicyOf is a free data retrieval call binding the contract method 0x5483a0b5.
//
// Solidity: function policyOf(bytes32 policyId) view returns(bool exists, bytes32 planHash, uint32 depth, uint64 cost, uint32 inputs, address registrant)
func (_IFHEPolicy *IFHEPolicyCallerSession) PolicyOf(policyId [32]byte) (struct {
	Exists     bool
	PlanHash   [32]byte
	Depth      uint32
	Cost       uint64
	Inputs     uint32
	Registrant common.Address
}, error) {
	return _IFHEPolicy.Contract.PolicyOf(&_IFHEPolicy.CallOpts, policyId)
}

// RequestOf is a free data retrieval call binding the contract method 0xeacb1408.
//
// Solidity: function requestOf(bytes32 requestId) view returns(bool exists, bytes32 policyId, address requester, uint64 blockNumber)
func (_IFHEPolicy *IFHEPolicyCaller) RequestOf(opts *bind.CallOpts, requestId [32]byte) (struct {
	Exists      bool
	PolicyId    [32]byte
	Requester   common.Address
	BlockNumber uint64
}, error) {
	var out []interface{}
	err := _IFHEPolicy.contract.Call(opts, &out, "requestOf", requestId)

	outstruct := new(struct {
		Exists      bool
		PolicyId    [32]byte
		Requester   common.Address
		BlockNumber uint64
	})
	if err != nil {
		return *outstruct, err
	}

	outstruct.Exists = *abi.ConvertType(out[0], new(bool)).(*bool)
	outstruct.PolicyId = *abi.ConvertType(out[1], new([32]byte)).(*[32]byte)
	outstruct.Requester = *abi.ConvertType(out[2], new(common.Address)).(*common.Address)
	outstruct.BlockNumber = *abi.ConvertType(out[3], new(uint64)).(*uint64)

	return *outstruct, err

}

// RequestOf is a free data retrieval call binding the contract method 0xeacb1408.
//
// Solidity: function requestOf(bytes32 requestId) view returns(bool exists, bytes32 policyId, address requester, uint64 blockNumber)
func (_IFHEPolicy *IFHEPolicySession) RequestOf(requestId [32]byte) (struct {
	Exists      bool
	PolicyId    [32]byte
	Requester   common.Address
	BlockNumber uint64
}, error) {
	return _IFHEPolicy.Contract.RequestOf(&_IFHEPolicy.CallOpts, requestId)
}

// RequestOf is a free data retrieval call binding the contract method 0xeacb1408.
//
// Solidity: function requestOf(bytes32 requestId) view returns(bool exists, bytes32 policyId, address requester, uint64 blockNumber)
func (_IFHEPolicy *IFHEPolicyCallerSession) RequestOf(requestId [32]byte) (struct {
	Exists      bool
	PolicyId    [32]byte
	Requester   common.Address
	BlockNumber uint64
}, error) {
	return _IFHEPolicy.Contract.RequestOf(&_IFHEPolicy.CallOpts, requestId)
}

// Evaluate is a paid mutator transaction binding the contract method 0x835f9a54.
//
// Solidity: function evaluate(bytes32 policyId, bytes32[] handles) payable returns(bytes32 requestId)
func (_IFHEPolicy *IFHEPolicyTransactor) Evaluate(opts *bind.TransactOpts, policyId [32]byte, handles [][32]byte) (*types.Transaction, error) {
	return _IFHEPolicy.contract.Transact(opts, "evaluate", policyId, handles)
}

// Evaluate is a paid mutator transaction binding the contract method 0x835f9a54.
//
// Solidity: function evaluate(bytes32 policyId, bytes32[] handles) payable returns(bytes32 requestId)
func (_IFHEPolicy *IFHEPolicySession) Evaluate(policyId [32]byte, handles [][32]byte) (*types.Transaction, error) {
	return _IFHEPolicy.Contract.Evaluate(&_IFHEPolicy.TransactOpts, policyId, handles)
}

// Evaluate is a paid mutator transaction binding the contract method 0x835f9a54.
//
// Solidity: function evaluate(bytes32 policyId, bytes32[] handles) payable returns(bytes32 requestId)
func (_IFHEPolicy *IFHEPolicyTransactorSession) Evaluate(policyId [32]byte, handles [][32]byte) (*types.Transaction, error) {
	return _IFHEPolicy.Contract.Evaluate(&_IFHEPolicy.TransactOpts, policyId, handles)
}

// EvaluateAttested is a paid mutator transaction binding the contract method 0x506834f1.
//
// Solidity: function evaluateAttested(bytes32 policyId, uint8 preset, bytes32[] handles, uint8[] ctypes, bytes32[] proofDigests, bytes signature, bytes signers) payable returns(bytes32 requestId)
func (_IFHEPolicy *IFHEPolicyTransactor) EvaluateAttested(opts *bind.TransactOpts, policyId [32]byte, preset uint8, handles [][32]byte, ctypes []uint8, proofDigests [][32]byte, signature []byte, signers []byte) (*types.Transaction, error) {
	return _IFHEPolicy.contract.Transact(opts, "evaluateAttested", policyId, preset, handles, ctypes, proofDigests, signature, signers)
}

// EvaluateAttested is a paid mutator transaction binding the contract method 0x506834f1.
//
// Solidity: function evaluateAttested(bytes32 policyId, uint8 preset, bytes32[] handles, uint8[] ctypes, bytes32[] proofDigests, bytes signature, bytes signers) payable returns(bytes32 requestId)
func (_IFHEPolicy *IFHEPolicySession) EvaluateAttested(policyId [32]byte, preset uint8, handles [][32]byte, ctypes []uint8, proofDigests [][32]byte, signature []byte, signers []byte) (*types.Transaction, error) {
	return _IFHEPolicy.Contract.EvaluateAttested(&_IFHEPolicy.TransactOpts, policyId, preset, handles, ctypes, proofDigests, signature, signers)
}

// EvaluateAttested is a paid mutator transaction binding the contract method 0x506834f1.
//
// Solidity: function evaluateAttested(bytes32 policyId, uint8 preset, bytes32[] handles, uint8[] ctypes, bytes32[] proofDigests, bytes signature, bytes signers) payable returns(bytes32 requestId)
func (_IFHEPolicy *IFHEPolicyTransactorSession) EvaluateAttested(policyId [32]byte, preset uint8, handles [][32]byte, ctypes []uint8, proofDigests [][32]byte, signature []byte, signers []byte) (*types.Transaction, error) {
	return _IFHEPolicy.Contract.EvaluateAttested(&_IFHEPolicy.TransactOpts, policyId, preset, handles, ctypes, proofDigests, signature, signers)
}

// EvaluateRooted is a paid mutator transaction binding the contract method 0x71e962a0.
//
// Solidity: function evaluateRooted(bytes32 policyId, uint8 preset, bytes32[] handles, uint8[] ctypes, bytes32[] proofDigests, bytes32 root, uint32 index, bytes32[] path, bytes signature, bytes signers) payable returns(bytes32 requestId)
func (_IFHEPolicy *IFHEPolicyTransactor) EvaluateRooted(opts *bind.TransactOpts, policyId [32]byte, preset uint8, handles [][32]byte, ctypes []uint8, proofDigests [][32]byte, root [32]byte, index uint32, path [][32]byte, signature []byte, signers []byte) (*types.Transaction, error) {
	return _IFHEPolicy.contract.Transact(opts, "evaluateRooted", policyId, preset, handles, ctypes, proofDigests, root, index, path, signature, signers)
}

// EvaluateRooted is a paid mutator transaction binding the contract method 0x71e962a0.
//
// Solidity: function evaluateRooted(bytes32 policyId, uint8 preset, bytes32[] handles, uint8[] ctypes, bytes32[] proofDigests, bytes32 root, uint32 index, bytes32[] path, bytes signature, bytes signers) payable returns(bytes32 requestId)
func (_IFHEPolicy *IFHEPolicySession) EvaluateRooted(policyId [32]byte, preset uint8, handles [][32]byte, ctypes []uint8, proofDigests [][32]byte, root [32]byte, index uint32, path [][32]byte, signature []byte, signers []byte) (*types.Transaction, error) {
	return _IFHEPolicy.Contract.EvaluateRooted(&_IFHEPolicy.TransactOpts, policyId, preset, handles, ctypes, proofDigests, root, index, path, signature, signers)
}

// EvaluateRooted is a paid mutator transaction binding the contract method 0x71e962a0.
//
// Solidity: function evaluateRooted(bytes32 policyId, uint8 preset, bytes32[] handles, uint8[] ctypes, bytes32[] proofDigests, bytes32 root, uint32 index, bytes32[] path, bytes signature, bytes signers) payable returns(bytes32 requestId)
func (_IFHEPolicy *IFHEPolicyTransactorSession) EvaluateRooted(policyId [32]byte, preset uint8, handles [][32]byte, ctypes []uint8, proofDigests [][32]byte, root [32]byte, index uint32, path [][32]byte, signature []byte, signers []byte) (*types.Transaction, error) {
	return _IFHEPolicy.Contract.EvaluateRooted(&_IFHEPolicy.TransactOpts, policyId, preset, handles, ctypes, proofDigests, root, index, path, signature, signers)
}

// RegisterPolicy is a paid mutator transaction binding the contract method 0xa2ea1376.
//
// Solidity: function registerPolicy(bytes spec) returns(bytes32 policyId)
func (_IFHEPolicy *IFHEPolicyTransactor) RegisterPolicy(opts *bind.TransactOpts, spec []byte) (*types.Transaction, error) {
	return _IFHEPolicy.contract.Transact(opts, "registerPolicy", spec)
}

// RegisterPolicy is a paid mutator transaction binding the contract method 0xa2ea1376.
//
// Solidity: function registerPolicy(bytes spec) returns(bytes32 policyId)
func (_IFHEPolicy *IFHEPolicySession) RegisterPolicy(spec []byte) (*types.Transaction, error) {
	return _IFHEPolicy.Contract.RegisterPolicy(&_IFHEPolicy.TransactOpts, spec)
}

// RegisterPolicy is a paid mutator transaction binding the contract method 0xa2ea1376.
//
// Solidity: function registerPolicy(bytes spec) returns(bytes32 policyId)
func (_IFHEPolicy *IFHEPolicyTransactorSession) RegisterPolicy(spec []byte) (*types.Transaction, error) {
	return _IFHEPolicy.Contract.RegisterPolicy(&_IFHEPolicy.TransactOpts, spec)
}

// IFHEPolicyEvaluationRequestedIterator is returned from FilterEvaluationRequested and is used to iterate over the raw logs and unpacked data for EvaluationRequested events raised by the IFHEPolicy contract.
type IFHEPolicyEvaluationRequestedIterator struct {
	Event *IFHEPolicyEvaluationRequested // Event containing the contract specifics and raw log

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
func (it *IFHEPolicyEvaluationRequestedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(IFHEPolicyEvaluationRequested)
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
		it.Event = new(IFHEPolicyEvaluationRequested)
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
func (it *IFHEPolicyEvaluationRequestedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *IFHEPolicyEvaluationRequestedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// IFHEPolicyEvaluationRequested represents a EvaluationRequested event raised by the IFHEPolicy contract.
type IFHEPolicyEvaluationRequested struct {
	RequestId [32]byte
	PolicyId  [32]byte
	Requester common.Address
	Handles   [][32]byte
	Cost      uint64
	Raw       types.Log // Blockchain specific contextual infos
}

// FilterEvaluationRequested is a free log retrieval operation binding the contract event 0x5813eb3d87cc45b3a3d93cd37f566317c07ea018c925fe154e2f752a95b16262.
//
// Solidity: event EvaluationRequested(bytes32 indexed requestId, bytes32 indexed policyId, address indexed requester, bytes32[] handles, uint64 cost)
func (_IFHEPolicy *IFHEPolicyFilterer) FilterEvaluationRequested(opts *bind.FilterOpts, requestId [][32]byte, policyId [][32]byte, requester []common.Address) (*IFHEPolicyEvaluationRequestedIterator, error) {

	var requestIdRule []interface{}
	for _, requestIdItem := range requestId {
		requestIdRule = append(requestIdRule, requestIdItem)
	}
	var policyIdRule []interface{}
	for _, policyIdItem := range policyId {
		policyIdRule = append(policyIdRule, policyIdItem)
	}
	var requesterRule []interface{}
	for _, requesterItem := range requester {
		requesterRule = append(requesterRule, requesterItem)
	}

	logs, sub, err := _IFHEPolicy.contract.FilterLogs(opts, "EvaluationRequested", requestIdRule, policyIdRule, requesterRule)
	if err != nil {
		return nil, err
	}
	return &IFHEPolicyEvaluationRequestedIterator{contract: _IFHEPolicy.contract, event: "EvaluationRequested", logs: logs, sub: sub}, nil
}

// WatchEvaluationRequested is a free log subscription operation binding the contract event 0x5813eb3d87cc45b3a3d93cd37f566317c07ea018c925fe154e2f752a95b16262.
//
// Solidity: event EvaluationRequested(bytes32 indexed requestId, bytes32 indexed policyId, address indexed requester, bytes32[] handles, uint64 cost)
func (_IFHEPolicy *IFHEPolicyFilterer) WatchEvaluationRequested(opts *bind.WatchOpts, sink chan<- *IFHEPolicyEvaluationRequested, requestId [][32]byte, policyId [][32]byte, requester []common.Address) (event.Subscription, error) {

	var requestIdRule []interface{}
	for _, requestIdItem := range requestId {
		requestIdRule = append(requestIdRule, requestIdItem)
	}
	var policyIdRule []interface{}
	for _, policyIdItem := range policyId {
		policyIdRule = append(policyIdRule, policyIdItem)
	}
	var requesterRule []interface{}
	for _, requesterItem := range requester {
		requesterRule = append(requesterRule, requesterItem)
	}

	logs, sub, err := _IFHEPolicy.contract.WatchLogs(opts, "EvaluationRequested", requestIdRule, policyIdRule, requesterRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(IFHEPolicyEvaluationRequested)
				if err := _IFHEPolicy.contract.UnpackLog(event, "EvaluationRequested", log); err != nil {
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

// ParseEvaluationRequested is a log parse operation binding the contract event 0x5813eb3d87cc45b3a3d93cd37f566317c07ea018c925fe154e2f752a95b16262.
//
// Solidity: event EvaluationRequested(bytes32 indexed requestId, bytes32 indexed policyId, address indexed requester, bytes32[] handles, uint64 cost)
func (_IFHEPolicy *IFHEPolicyFilterer) ParseEvaluationRequested(log types.Log) (*IFHEPolicyEvaluationRequested, error) {
	event := new(IFHEPolicyEvaluationRequested)
	if err := _IFHEPolicy.contract.UnpackLog(event, "EvaluationRequested", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// IFHEPolicyPolicyRegisteredIterator is returned from FilterPolicyRegistered and is used to iterate over the raw logs and unpacked data for PolicyRegistered events raised by the IFHEPolicy contract.
type IFHEPolicyPolicyRegisteredIterator struct {
	Event *IFHEPolicyPolicyRegistered // Event containing the contract specifics and raw log

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
func (it *IFHEPolicyPolicyRegisteredIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(IFHEPolicyPolicyRegistered)
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
		it.Event = new(IFHEPolicyPolicyRegistered)
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
func (it *IFHEPolicyPolicyRegisteredIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *IFHEPolicyPolicyRegisteredIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// IFHEPolicyPolicyRegistered represents a PolicyRegistered event raised by the IFHEPolicy contract.
type IFHEPolicyPolicyRegistered struct {
	PolicyId   [32]byte
	Registrant common.Address
	PlanHash   [32]byte
	Depth      uint32
	Cost       uint64
	Inputs     uint32
	Spec       []byte
	Raw        types.Log // Blockchain specific contextual infos
}

// FilterPolicyRegistered is a free log retrieval operation binding the contract event 0x673e3f85f907901cea3de87bc57708544a12d63b0c4f0860d64ecaf07d0a9a64.
//
// Solidity: event PolicyRegistered(bytes32 indexed policyId, address indexed registrant, bytes32 planHash, uint32 depth, uint64 cost, uint32 inputs, bytes spec)
func (_IFHEPolicy *IFHEPolicyFilterer) FilterPolicyRegistered(opts *bind.FilterOpts, policyId [][32]byte, registrant []common.Address) (*IFHEPolicyPolicyRegisteredIterator, error) {

	var policyIdRule []interface{}
	for _, policyIdItem := range policyId {
		policyIdRule = append(policyIdRule, policyIdItem)
	}
	var registrantRule []interface{}
	for _, registrantItem := range registrant {
		registrantRule = append(registrantRule, registrantItem)
	}

	logs, sub, err := _IFHEPolicy.contract.FilterLogs(opts, "PolicyRegistered", policyIdRule, registrantRule)
	if err != nil {
		return nil, err
	}
	return &IFHEPolicyPolicyRegisteredIterator{contract: _IFHEPolicy.contract, event: "PolicyRegistered", logs: logs, sub: sub}, nil
}

// WatchPolicyRegistered is a free log subscription operation binding the contract event 0x673e3f85f907901cea3de87bc57708544a12d63b0c4f0860d64ecaf07d0a9a64.
//
// Solidity: event PolicyRegistered(bytes32 indexed policyId, address indexed registrant, bytes32 planHash, uint32 depth, uint64 cost, uint32 inputs, bytes spec)
func (_IFHEPolicy *IFHEPolicyFilterer) WatchPolicyRegistered(opts *bind.WatchOpts, sink chan<- *IFHEPolicyPolicyRegistered, policyId [][32]byte, registrant []common.Address) (event.Subscription, error) {

	var policyIdRule []interface{}
	for _, policyIdItem := range policyId {
		policyIdRule = append(policyIdRule, policyIdItem)
	}
	var registrantRule []interface{}
	for _, registrantItem := range registrant {
		registrantRule = append(registrantRule, registrantItem)
	}

	logs, sub, err := _IFHEPolicy.contract.WatchLogs(opts, "PolicyRegistered", policyIdRule, registrantRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(IFHEPolicyPolicyRegistered)
				if err := _IFHEPolicy.contract.UnpackLog(event, "PolicyRegistered", log); err != nil {
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

// ParsePolicyRegistered is a log parse operation binding the contract event 0x673e3f85f907901cea3de87bc57708544a12d63b0c4f0860d64ecaf07d0a9a64.
//
// Solidity: event PolicyRegistered(bytes32 indexed policyId, address indexed registrant, bytes32 planHash, uint32 depth, uint64 cost, uint32 inputs, bytes spec)
func (_IFHEPolicy *IFHEPolicyFilterer) ParsePolicyRegistered(log types.Log) (*IFHEPolicyPolicyRegistered, error) {
	event := new(IFHEPolicyPolicyRegistered)
	if err := _IFHEPolicy.contract.UnpackLog(event, "PolicyRegistered", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
