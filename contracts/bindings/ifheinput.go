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

// IFHEInputMetaData contains all meta data concerning the IFHEInput contract.
var IFHEInputMetaData = &bind.MetaData{
	ABI: "[{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bool\",\"name\":\"transient\",\"type\":\"bool\"}],\"name\":\"Allowed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint8\",\"name\":\"preset\",\"type\":\"uint8\"},{\"indexed\":false,\"internalType\":\"uint8\",\"name\":\"ctype\",\"type\":\"uint8\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"epoch\",\"type\":\"uint64\"}],\"name\":\"InputRegistered\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"setId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint8\",\"name\":\"preset\",\"type\":\"uint8\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"epoch\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"bytes32[]\",\"name\":\"handles\",\"type\":\"bytes32[]\"}],\"name\":\"InputSetRegistered\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"setId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"SetAllowed\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"allow\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"setId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"allowSet\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"allowTransient\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"}],\"name\":\"handleInfo\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"exists\",\"type\":\"bool\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"uint8\",\"name\":\"preset\",\"type\":\"uint8\"},{\"internalType\":\"uint8\",\"name\":\"ctype\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"isAllowed\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"uint8\",\"name\":\"preset\",\"type\":\"uint8\"},{\"internalType\":\"bytes32[]\",\"name\":\"handles\",\"type\":\"bytes32[]\"},{\"internalType\":\"uint8[]\",\"name\":\"ctypes\",\"type\":\"uint8[]\"},{\"internalType\":\"bytes32[]\",\"name\":\"proofDigests\",\"type\":\"bytes32[]\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"signers\",\"type\":\"bytes\"}],\"name\":\"registerBatch\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"uint8\",\"name\":\"preset\",\"type\":\"uint8\"},{\"internalType\":\"bytes32[]\",\"name\":\"handles\",\"type\":\"bytes32[]\"},{\"internalType\":\"uint8[]\",\"name\":\"ctypes\",\"type\":\"uint8[]\"},{\"internalType\":\"bytes32[]\",\"name\":\"proofDigests\",\"type\":\"bytes32[]\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"signers\",\"type\":\"bytes\"}],\"name\":\"registerSet\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"setId\",\"type\":\"bytes32\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"setId\",\"type\":\"bytes32\"}],\"name\":\"setInfo\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"exists\",\"type\":\"bool\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"uint8\",\"name\":\"preset\",\"type\":\"uint8\"},{\"internalType\":\"uint64\",\"name\":\"epoch\",\"type\":\"uint64\"},{\"internalType\":\"uint16\",\"name\":\"count\",\"type\":\"uint16\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
}

// IFHEInputABI is the input ABI used to generate the binding from.
// Deprecated: Use IFHEInputMetaData.ABI instead.
var IFHEInputABI = IFHEInputMetaData.ABI

// IFHEInput is an auto generated Go binding around an Ethereum contract.
type IFHEInput struct {
	IFHEInputCaller     // Read-only binding to the contract
	IFHEInputTransactor // Write-only binding to the contract
	IFHEInputFilterer   // Log filterer for contract events
}

// IFHEInputCaller is an auto generated read-only Go binding around an Ethereum contract.
type IFHEInputCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// IFHEInputTransactor is an auto generated write-only Go binding around an Ethereum contract.
type IFHEInputTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// IFHEInputFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type IFHEInputFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// IFHEInputSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type IFHEInputSession struct {
	Contract     *IFHEInput        // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// IFHEInputCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type IFHEInputCallerSession struct {
	Contract *IFHEInputCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts    // Call options to use throughout this session
}

// IFHEInputTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type IFHEInputTransactorSession struct {
	Contract     *IFHEInputTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts    // Transaction auth options to use throughout this session
}

// IFHEInputRaw is an auto generated low-level Go binding around an Ethereum contract.
type IFHEInputRaw struct {
	Contract *IFHEInput // Generic contract binding to access the raw methods on
}

// IFHEInputCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type IFHEInputCallerRaw struct {
	Contract *IFHEInputCaller // Generic read-only contract binding to access the raw methods on
}

// IFHEInputTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type IFHEInputTransactorRaw struct {
	Contract *IFHEInputTransactor // Generic write-only contract binding to access the raw methods on
}

// NewIFHEInput creates a new instance of IFHEInput, bound to a specific deployed contract.
func NewIFHEInput(address common.Address, backend bind.ContractBackend) (*IFHEInput, error) {
	contract, err := bindIFHEInput(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &IFHEInput{IFHEInputCaller: IFHEInputCaller{contract: contract}, IFHEInputTransactor: IFHEInputTransactor{contract: contract}, IFHEInputFilterer: IFHEInputFilterer{contract: contract}}, nil
}

// NewIFHEInputCaller creates a new read-only instance of IFHEInput, bound to a specific deployed contract.
func NewIFHEInputCaller(address common.Address, caller bind.ContractCaller) (*IFHEInputCaller, error) {
	contract, err := bindIFHEInput(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &IFHEInputCaller{contract: contract}, nil
}

// NewIFHEInputTransactor creates a new write-only instance of IFHEInput, bound to a specific deployed contract.
func NewIFHEInputTransactor(address common.Address, transactor bind.ContractTransactor) (*IFHEInputTransactor, error) {
	contract, err := bindIFHEInput(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &IFHEInputTransactor{contract: contract}, nil
}

// NewIFHEInputFilterer creates a new log filterer instance of IFHEInput, bound to a specific deployed contract.
func NewIFHEInputFilterer(address common.Address, filterer bind.ContractFilterer) (*IFHEInputFilterer, error) {
	contract, err := bindIFHEInput(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &IFHEInputFilterer{contract: contract}, nil
}

// bindIFHEInput binds a generic wrapper to an already deployed contract.
func bindIFHEInput(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := IFHEInputMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_IFHEInput *IFHEInputRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _IFHEInput.Contract.IFHEInputCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_IFHEInput *IFHEInputRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _IFHEInput.Contract.IFHEInputTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_IFHEInput *IFHEInputRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _IFHEInput.Contract.IFHEInputTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_IFHEInput *IFHEInputCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _IFHEInput.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_IFHEInput *IFHEInputTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _IFHEInput.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_IFHEInput *IFHEInputTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _IFHEInput.Contract.contract.Transact(opts, method, params...)
}

// HandleInfo is a free data retrieval call binding the contract method 0xc282a92b.
//
// Solidity: function handleInfo(bytes32 handle) view returns(bool exists, address owner, uint8 preset, uint8 ctype)
func (_IFHEInput *IFHEInputCaller) HandleInfo(opts *bind.CallOpts, handle [32]byte) (struct {
	Exists bool
	Owner  common.Address
	Preset uint8
	Ctype  uint8
}, error) {
	var out []interface{}
	err := _IFHEInput.contract.Call(opts, &out, "handleInfo", handle)

	outstruct := new(struct {
		Exists bool
		Owner  common.Address
		Preset uint8
		Ctype  uint8
	})
	if err != nil {
		return *outstruct, err
	}

	outstruct.Exists = *abi.ConvertType(out[0], new(bool)).(*bool)
	outstruct.Owner = *abi.ConvertType(out[1], new(common.Address)).(*common.Address)
	outstruct.Preset = *abi.ConvertType(out[2], new(uint8)).(*uint8)
	outstruct.Ctype = *abi.ConvertType(out[3], new(uint8)).(*uint8)

	return *outstruct, err

}

// HandleInfo is a free data retrieval call binding the contract method 0xc282a92b.
//
// Solidity: function handleInfo(bytes32 handle) view returns(bool exists, address owner, uint8 preset, uint8 ctype)
func (_IFHEInput *IFHEInputSession) HandleInfo(handle [32]byte) (struct {
	Exists bool
	Owner  common.Address
	Preset uint8
	Ctype  uint8
}, error) {
	return _IFHEInput.Contract.HandleInfo(&_IFHEInput.CallOpts, handle)
}

// HandleInfo is a free data retrieval call binding the contract method 0xc282a92b.
//
// Solidity: function handleInfo(bytes32 handle) view returns(bool exists, address owner, uint8 preset, uint8 ctype)
func (_IFHEInput *IFHEInputCallerSession) HandleInfo(handle [32]byte) (struct {
	Exists bool
	Owner  common.Address
	Preset uint8
	Ctype  uint8
}, error) {
	return _IFHEInput.Contract.HandleInfo(&_IFHEInput.CallOpts, handle)
}

// IsAllowed is a free data retrieval call binding the contract method 0x82027b6d.
//
// Solidity: function isAllowed(bytes32 handle, address account) view returns(bool)
func (_IFHEInput *IFHEInputCaller) IsAllowed(opts *bind.CallOpts, handle [32]byte, account common.Address) (bool, error) {
	var out []interface{}
	err := _IFHEInput.contract.Call(opts, &out, "isAllowed", handle, account)

	if err != nil {
		return *new(bool), err
	}

	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)

	return out0, err

}

// IsAllowed is a free data retrieval call binding the contract method 0x82027b6d.
//
// Solidity: function isAllowed(bytes32 handle, address account) view returns(bool)
func (_IFHEInput *IFHEInputSession) IsAllowed(handle [32]byte, account common.Address) (bool, error) {
	return _IFHEInput.Contract.IsAllowed(&_IFHEInput.CallOpts, handle, account)
}

// IsAllowed is a free data retrieval call binding the contract method 0x82027b6d.
//
// Solidity: function isAllowed(bytes32 handle, address account) view returns(bool)
func (_IFHEInput *IFHEInputCallerSession) IsAllowed(handle [32]byte, account common.Address) (bool, error) {
	return _IFHEInput.Contract.IsAllowed(&_IFHEInput.CallOpts, handle, account)
}

// SetInfo is a free data retrieval call binding the contract method 0xed56900f.
//
// Solidity: function setInfo(bytes32 setId) view returns(bool exists, address owner, uint8 preset, uint64 epoch, uint16 count)
func (_IFHEInput *IFHEInputCaller) SetInfo(opts *bind.CallOpts, setId [32]byte) (struct {
	Exists bool
	Owner  common.Address
	Preset uint8
	Epoch  uint64
	Count  uint16
}, error) {
	var out []interface{}
	err := _IFHEInput.contract.Call(opts, &out, "setInfo", setId)

	outstruct := new(struct {
		Exists bool
		Owner  common.Address
		Preset uint8
		Epoch  uint64
		Count  uint16
	})
	if err != nil {
		return *outstruct, err
	}

	outstruct.Exists = *abi.ConvertType(out[0], new(bool)).(*bool)
	outstruct.Owner = *abi.ConvertType(out[1], new(common.Address)).(*common.Address)
	outstruct.Preset = *abi.ConvertType(out[2], new(uint8)).(*uint8)
	outstruct.Epoch = *abi.ConvertType(out[3], new(uint64)).(*uint64)
	outstruct.Count = *abi.ConvertType(out[4], new(uint16)).(*uint16)

	return *outstruct, err

}

// SetInfo is a free data retrieval call binding the contract method 0xed56900f.
//
// Solidity: function setInfo(bytes32 setId) view returns(bool exists, address owner, uint8 preset, uint64 epoch, uint16 count)
func (_IFHEInput *IFHEInputSession) SetInfo(setId [32]byte) (struct {
	Exists bool
	Owner  common.Address
	Preset uint8
	Epoch  uint64
	Count  uint16
}, error) {
	return _IFHEInput.Contract.SetInfo(&_IFHEInput.CallOpts, setId)
}

// SetInfo is a free data retrieval call binding the contract method 0xed56900f.
//
// Solidity: function setInfo(bytes32 setId) view returns(bool exists, address owner, uint8 preset, uint64 epoch, uint16 count)
func (_IFHEInput *IFHEInputCallerSession) SetInfo(setId [32]byte) (struct {
	Exists bool
	Owner  common.Address
	Preset uint8
	Epoch  uint64
	Count  uint16
}, error) {
	return _IFHEInput.Contract.SetInfo(&_IFHEInput.CallOpts, setId)
}

// Allow is a paid mutator transaction binding the contract method 0xb9496b62.
//
// Solidity: function allow(bytes32 handle, address account) returns()
func (_IFHEInput *IFHEInputTransactor) Allow(opts *bind.TransactOpts, handle [32]byte, account common.Address) (*types.Transaction, error) {
	return _IFHEInput.contract.Transact(opts, "allow", handle, account)
}

// Allow is a paid mutator transaction binding the contract method 0xb9496b62.
//
// Solidity: function allow(bytes32 handle, address account) returns()
func (_IFHEInput *IFHEInputSession) Allow(handle [32]byte, account common.Address) (*types.Transaction, error) {
	return _IFHEInput.Contract.Allow(&_IFHEInput.TransactOpts, handle, account)
}

// Allow is a paid mutator transaction binding the contract method 0xb9496b62.
//
// Solidity: function allow(bytes32 handle, address account) returns()
func (_IFHEInput *IFHEInputTransactorSession) Allow(handle [32]byte, account common.Address) (*types.Transaction, error) {
	return _IFHEInput.Contract.Allow(&_IFHEInput.TransactOpts, handle, account)
}

// AllowSet is a paid mutator transaction binding the contract method 0x5d5a73aa.
//
// Solidity: function allowSet(bytes32 setId, address account) returns()
func (_IFHEInput *IFHEInputTransactor) AllowSet(opts *bind.TransactOpts, setId [32]byte, account common.Address) (*types.Transaction, error) {
	return _IFHEInput.contract.Transact(opts, "allowSet", setId, account)
}

// AllowSet is a paid mutator transaction binding the contract method 0x5d5a73aa.
//
// Solidity: function allowSet(bytes32 setId, address account) returns()
func (_IFHEInput *IFHEInputSession) AllowSet(setId [32]byte, account common.Address) (*types.Transaction, error) {
	return _IFHEInput.Contract.AllowSet(&_IFHEInput.TransactOpts, setId, account)
}

// AllowSet is a paid mutator transaction binding the contract method 0x5d5a73aa.
//
// Solidity: function allowSet(bytes32 setId, address account) returns()
func (_IFHEInput *IFHEInputTransactorSession) AllowSet(setId [32]byte, account common.Address) (*types.Transaction, error) {
	return _IFHEInput.Contract.AllowSet(&_IFHEInput.TransactOpts, setId, account)
}

// AllowTransient is a paid mutator transaction binding the contract method 0x3e395cec.
//
// Solidity: function allowTransient(bytes32 handle, address account) returns()
func (_IFHEInput *IFHEInputTransactor) AllowTransient(opts *bind.TransactOpts, handle [32]byte, account common.Address) (*types.Transaction, error) {
	return _IFHEInput.contract.Transact(opts, "allowTransient", handle, account)
}

// AllowTransient is a paid mutator transaction binding the contract method 0x3e395cec.
//
// Solidity: function allowTransient(bytes32 handle, address account) returns()
func (_IFHEInput *IFHEInputSession) AllowTransient(handle [32]byte, account common.Address) (*types.Transaction, error) {
	return _IFHEInput.Contract.AllowTransient(&_IFHEInput.TransactOpts, handle, account)
}

// AllowTransient is a paid mutator transaction binding the contract method 0x3e395cec.
//
// Solidity: function allowTransient(bytes32 handle, address account) returns()
func (_IFHEInput *IFHEInputTransactorSession) AllowTransient(handle [32]byte, account common.Address) (*types.Transaction, error) {
	return _IFHEInput.Contract.AllowTransient(&_IFHEInput.TransactOpts, handle, account)
}

// RegisterBatch is a paid mutator transaction binding the contract method 0xe0c04c97.
//
// Solidity: function registerBatch(address owner, uint8 preset, bytes32[] handles, uint8[] ctypes, bytes32[] proofDigests, bytes signature, bytes signers) returns()
func (_IFHEInput *IFHEInputTransactor) RegisterBatch(opts *bind.TransactOpts, owner common.Address, preset uint8, handles [][32]byte, ctypes []uint8, proofDigests [][32]byte, signature []byte, signers []byte) (*types.Transaction, error) {
	return _IFHEInput.contract.Transact(opts, "registerBatch", owner, preset, handles, ctypes, proofDigests, signature, signers)
}

// RegisterBatch is a paid mutator transaction binding the contract method 0xe0c04c97.
//
// Solidity: function registerBatch(address owner, uint8 preset, bytes32[] handles, uint8[] ctypes, bytes32[] proofDigests, bytes signature, bytes signers) returns()
func (_IFHEInput *IFHEInputSession) RegisterBatch(owner common.Address, preset uint8, handles [][32]byte, ctypes []uint8, proofDigests [][32]byte, signature []byte, signers []byte) (*types.Transaction, error) {
	return _IFHEInput.Contract.RegisterBatch(&_IFHEInput.TransactOpts, owner, preset, handles, ctypes, proofDigests, signature, signers)
}

// RegisterBatch is a paid mutator transaction binding the contract method 0xe0c04c97.
//
// Solidity: function registerBatch(address owner, uint8 preset, bytes32[] handles, uint8[] ctypes, bytes32[] proofDigests, bytes signature, bytes signers) returns()
func (_IFHEInput *IFHEInputTransactorSession) RegisterBatch(owner common.Address, preset uint8, handles [][32]byte, ctypes []uint8, proofDigests [][32]byte, signature []byte, signers []byte) (*types.Transaction, error) {
	return _IFHEInput.Contract.RegisterBatch(&_IFHEInput.TransactOpts, owner, preset, handles, ctypes, proofDigests, signature, signers)
}

// RegisterSet is a paid mutator transaction binding the contract method 0x6bee15b6.
//
// Solidity: function registerSet(address owner, uint8 preset, bytes32[] handles, uint8[] ctypes, bytes32[] proofDigests, bytes signature, bytes signers) returns(bytes32 setId)
func (_IFHEInput *IFHEInputTransactor) RegisterSet(opts *bind.TransactOpts, owner common.Address, preset uint8, handles [][32]byte, ctypes []uint8, proofDigests [][32]byte, signature []byte, signers []byte) (*types.Transaction, error) {
	return _IFHEInput.contract.Transact(opts, "registerSet", owner, preset, handles, ctypes, proofDigests, signature, signers)
}

// RegisterSet is a paid mutator transaction binding the contract method 0x6bee15b6.
//
// Solidity: function registerSet(address owner, uint8 preset, bytes32[] handles, uint8[] ctypes, bytes32[] proofDigests, bytes signature, bytes signers) returns(bytes32 setId)
func (_IFHEInput *IFHEInputSession) RegisterSet(owner common.Address, preset uint8, handles [][32]byte, ctypes []uint8, proofDigests [][32]byte, signature []byte, signers []byte) (*types.Transaction, error) {
	return _IFHEInput.Contract.RegisterSet(&_IFHEInput.TransactOpts, owner, preset, handles, ctypes, proofDigests, signature, signers)
}

// RegisterSet is a paid mutator transaction binding the contract method 0x6bee15b6.
//
// Solidity: function registerSet(address owner, uint8 preset, bytes32[] handles, uint8[] ctypes, bytes32[] proofDigests, bytes signature, bytes signers) returns(bytes32 setId)
func (_IFHEInput *IFHEInputTransactorSession) RegisterSet(owner common.Address, preset uint8, handles [][32]byte, ctypes []uint8, proofDigests [][32]byte, signature []byte, signers []byte) (*types.Transaction, error) {
	return _IFHEInput.Contract.RegisterSet(&_IFHEInput.TransactOpts, owner, preset, handles, ctypes, proofDigests, signature, signers)
}

// IFHEInputAllowedIterator is returned from FilterAllowed and is used to iterate over the raw logs and unpacked data for Allowed events raised by the IFHEInput contract.
type IFHEInputAllowedIterator struct {
	Event *IFHEInputAllowed // Event containing the contract specifics and raw log

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
func (it *IFHEInputAllowedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(IFHEInputAllowed)
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
		it.Event = new(IFHEInputAllowed)
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
func (it *IFHEInputAllowedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *IFHEInputAllowedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// IFHEInputAllowed represents a Allowed event raised by the IFHEInput contract.
type IFHEInputAllowed struct {
	Handle    [32]byte
	Account   common.Address
	Transient bool
	Raw       types.Log // Blockchain specific contextual infos
}

// FilterAllowed is a free log retrieval operation binding the contract event 0x491c54c140892e2c7cc587b2a894ec95a5c9c26b698d29ae0a48abb02982559d.
//
// Solidity: event Allowed(bytes32 indexed handle, address indexed account, bool transient)
func (_IFHEInput *IFHEInputFilterer) FilterAllowed(opts *bind.FilterOpts, handle [][32]byte, account []common.Address) (*IFHEInputAllowedIterator, error) {

	var handleRule []interface{}
	for _, handleItem := range handle {
		handleRule = append(handleRule, handleItem)
	}
	var accountRule []interface{}
	for _, accountItem := range account {
		accountRule = append(accountRule, accountItem)
	}

	logs, sub, err := _IFHEInput.contract.FilterLogs(opts, "Allowed", handleRule, accountRule)
	if err != nil {
		return nil, err
	}
	return &IFHEInputAllowedIterator{contract: _IFHEInput.contract, event: "Allowed", logs: logs, sub: sub}, nil
}

// WatchAllowed is a free log subscription operation binding the contract event 0x491c54c140892e2c7cc587b2a894ec95a5c9c26b698d29ae0a48abb02982559d.
//
// Solidity: event Allowed(bytes32 indexed handle, address indexed account, bool transient)
func (_IFHEInput *IFHEInputFilterer) WatchAllowed(opts *bind.WatchOpts, sink chan<- *IFHEInputAllowed, handle [][32]byte, account []common.Address) (event.Subscription, error) {

	var handleRule []interface{}
	for _, handleItem := range handle {
		handleRule = append(handleRule, handleItem)
	}
	var accountRule []interface{}
	for _, accountItem := range account {
		accountRule = append(accountRule, accountItem)
	}

	logs, sub, err := _IFHEInput.contract.WatchLogs(opts, "Allowed", handleRule, accountRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(IFHEInputAllowed)
				if err := _IFHEInput.contract.UnpackLog(event, "Allowed", log); err != nil {
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

// ParseAllowed is a log parse operation binding the contract event 0x491c54c140892e2c7cc587b2a894ec95a5c9c26b698d29ae0a48abb02982559d.
//
// Solidity: event Allowed(bytes32 indexed handle, address indexed account, bool transient)
func (_IFHEInput *IFHEInputFilterer) ParseAllowed(log types.Log) (*IFHEInputAllowed, error) {
	event := new(IFHEInputAllowed)
	if err := _IFHEInput.contract.UnpackLog(event, "Allowed", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// IFHEInputInputRegisteredIterator is returned from FilterInputRegistered and is used to iterate over the raw logs and unpacked data for InputRegistered events raised by the IFHEInput contract.
type IFHEInputInputRegisteredIterator struct {
	Event *IFHEInputInputRegistered // Event containing the contract specifics and raw log

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
func (it *IFHEInputInputRegisteredIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(IFHEInputInputRegistered)
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
		it.Event = new(IFHEInputInputRegistered)
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
func (it *IFHEInputInputRegisteredIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *IFHEInputInputRegisteredIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// IFHEInputInputRegistered represents a InputRegistered event raised by the IFHEInput contract.
type IFHEInputInputRegistered struct {
	Handle [32]byte
	Owner  common.Address
	Preset uint8
	Ctype  uint8
	Epoch  uint64
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterInputRegistered is a free log retrieval operation binding the contract event 0x6b7299300003a7ef2d4ca0cc830ce8df9040e256e09224348b6074c8bbc81814.
//
// Solidity: event InputRegistered(bytes32 indexed handle, address indexed owner, uint8 preset, uint8 ctype, uint64 epoch)
func (_IFHEInput *IFHEInputFilterer) FilterInputRegistered(opts *bind.FilterOpts, handle [][32]byte, owner []common.Address) (*IFHEInputInputRegisteredIterator, error) {

	var handleRule []interface{}
	for _, handleItem := range handle {
		handleRule = append(handleRule, handleItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _IFHEInput.contract.FilterLogs(opts, "InputRegistered", handleRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return &IFHEInputInputRegisteredIterator{contract: _IFHEInput.contract, event: "InputRegistered", logs: logs, sub: sub}, nil
}

// WatchInputRegistered is a free log subscription operation binding the contract event 0x6b7299300003a7ef2d4ca0cc830ce8df9040e256e09224348b6074c8bbc81814.
//
// Solidity: event InputRegistered(bytes32 indexed handle, address indexed owner, uint8 preset, uint8 ctype, uint64 epoch)
func (_IFHEInput *IFHEInputFilterer) WatchInputRegistered(opts *bind.WatchOpts, sink chan<- *IFHEInputInputRegistered, handle [][32]byte, owner []common.Address) (event.Subscription, error) {

	var handleRule []interface{}
	for _, handleItem := range handle {
		handleRule = append(handleRule, handleItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _IFHEInput.contract.WatchLogs(opts, "InputRegistered", handleRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(IFHEInputInputRegistered)
				if err := _IFHEInput.contract.UnpackLog(event, "InputRegistered", log); err != nil {
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

// ParseInputRegistered is a log parse operation binding the contract event 0x6b7299300003a7ef2d4ca0cc830ce8df9040e256e09224348b6074c8bbc81814.
//
// Solidity: event InputRegistered(bytes32 indexed handle, address indexed owner, uint8 preset, uint8 ctype, uint64 epoch)
func (_IFHEInput *IFHEInputFilterer) ParseInputRegistered(log types.Log) (*IFHEInputInputRegistered, error) {
	event := new(IFHEInputInputRegistered)
	if err := _IFHEInput.contract.UnpackLog(event, "InputRegistered", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// IFHEInputInputSetRegisteredIterator is returned from FilterInputSetRegistered and is used to iterate over the raw logs and unpacked data for InputSetRegistered events raised by the IFHEInput contract.
type IFHEInputInputSetRegisteredIterator struct {
	Event *IFHEInputInputSetRegistered // Event containing the contract specifics and raw log

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
func (it *IFHEInputInputSetRegisteredIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(IFHEInputInputSetRegistered)
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
		it.Event = new(IFHEInputInputSetRegistered)
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
func (it *IFHEInputInputSetRegisteredIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *IFHEInputInputSetRegisteredIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// IFHEInputInputSetRegistered represents a InputSetRegistered event raised by the IFHEInput contract.
type IFHEInputInputSetRegistered struct {
	SetId   [32]byte
	Owner   common.Address
	Preset  uint8
	Epoch   uint64
	Handles [][32]byte
	Raw     types.Log // Blockchain specific contextual infos
}

// FilterInputSetRegistered is a free log retrieval operation binding the contract event 0xabb1d941693aaa7144edc080fc8308211080e5a6b4417e471b9c8cb6e4c4602e.
//
// Solidity: event InputSetRegistered(bytes32 indexed setId, address indexed owner, uint8 preset, uint64 epoch, bytes32[] handles)
func (_IFHEInput *IFHEInputFilterer) FilterInputSetRegistered(opts *bind.FilterOpts, setId [][32]byte, owner []common.Address) (*IFHEInputInputSetRegisteredIterator, error) {

	var setIdRule []interface{}
	for _, setIdItem := range setId {
		setIdRule = append(setIdRule, setIdItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _IFHEInput.contract.FilterLogs(opts, "InputSetRegistered", setIdRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return &IFHEInputInputSetRegisteredIterator{contract: _IFHEInput.contract, event: "InputSetRegistered", logs: logs, sub: sub}, nil
}

// WatchInputSetRegistered is a free log subscription operation binding the contract event 0xabb1d941693aaa7144edc080fc8308211080e5a6b4417e471b9c8cb6e4c4602e.
//
// Solidity: event InputSetRegistered(bytes32 indexed setId, address indexed owner, uint8 preset, uint64 epoch, bytes32[] handles)
func (_IFHEInput *IFHEInputFilterer) WatchInputSetRegistered(opts *bind.WatchOpts, sink chan<- *IFHEInputInputSetRegistered, setId [][32]byte, owner []common.Address) (event.Subscription, error) {

	var setIdRule []interface{}
	for _, setIdItem := range setId {
		setIdRule = append(setIdRule, setIdItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _IFHEInput.contract.WatchLogs(opts, "InputSetRegistered", setIdRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(IFHEInputInputSetRegistered)
				if err := _IFHEInput.contract.UnpackLog(event, "InputSetRegistered", log); err != nil {
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

// ParseInputSetRegistered is a log parse operation binding the contract event 0xabb1d941693aaa7144edc080fc8308211080e5a6b4417e471b9c8cb6e4c4602e.
//
// Solidity: event InputSetRegistered(bytes32 indexed setId, address indexed owner, uint8 preset, uint64 epoch, bytes32[] handles)
func (_IFHEInput *IFHEInputFilterer) ParseInputSetRegistered(log types.Log) (*IFHEInputInputSetRegistered, error) {
	event := new(IFHEInputInputSetRegistered)
	if err := _IFHEInput.contract.UnpackLog(event, "InputSetRegistered", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// IFHEInputSetAllowedIterator is returned from FilterSetAllowed and is used to iterate over the raw logs and unpacked data for SetAllowed events raised by the IFHEInput contract.
type IFHEInputSetAllowedIterator struct {
	Event *IFHEInputSetAllowed // Event containing the contract specifics and raw log

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
func (it *IFHEInputSetAllowedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(IFHEInputSetAllowed)
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
		it.Event = new(IFHEInputSetAllowed)
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
func (it *IFHEInputSetAllowedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *IFHEInputSetAllowedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// IFHEInputSetAllowed represents a SetAllowed event raised by the IFHEInput contract.
type IFHEInputSetAllowed struct {
	SetId   [32]byte
	Account common.Address
	Raw     types.Log // Blockchain specific contextual infos
}

// FilterSetAllowed is a free log retrieval operation binding the contract event 0x1e40b1815c64a64cf3862340a645c8ecfece37bfcb96ae2645343a88a3440a37.
//
// Solidity: event SetAllowed(bytes32 indexed setId, address indexed account)
func (_IFHEInput *IFHEInputFilterer) FilterSetAllowed(opts *bind.FilterOpts, setId [][32]byte, account []common.Address) (*IFHEInputSetAllowedIterator, error) {

	var setIdRule []interface{}
	for _, setIdItem := range setId {
		setIdRule = append(setIdRule, setIdItem)
	}
	var accountRule []interface{}
	for _, accountItem := range account {
		accountRule = append(accountRule, accountItem)
	}

	logs, sub, err := _IFHEInput.contract.FilterLogs(opts, "SetAllowed", setIdRule, accountRule)
	if err != nil {
		return nil, err
	}
	return &IFHEInputSetAllowedIterator{contract: _IFHEInput.contract, event: "SetAllowed", logs: logs, sub: sub}, nil
}

// WatchSetAllowed is a free log subscription operation binding the contract event 0x1e40b1815c64a64cf3862340a645c8ecfece37bfcb96ae2645343a88a3440a37.
//
// Solidity: event SetAllowed(bytes32 indexed setId, address indexed account)
func (_IFHEInput *IFHEInputFilterer) WatchSetAllowed(opts *bind.WatchOpts, sink chan<- *IFHEInputSetAllowed, setId [][32]byte, account []common.Address) (event.Subscription, error) {

	var setIdRule []interface{}
	for _, setIdItem := range setId {
		setIdRule = append(setIdRule, setIdItem)
	}
	var accountRule []interface{}
	for _, accountItem := range account {
		accountRule = append(accountRule, accountItem)
	}

	logs, sub, err := _IFHEInput.contract.WatchLogs(opts, "SetAllowed", setIdRule, accountRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(IFHEInputSetAllowed)
				if err := _IFHEInput.contract.UnpackLog(event, "SetAllowed", log); err != nil {
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

// ParseSetAllowed is a log parse operation binding the contract event 0x1e40b1815c64a64cf3862340a645c8ecfece37bfcb96ae2645343a88a3440a37.
//
// Solidity: event SetAllowed(bytes32 indexed setId, address indexed account)
func (_IFHEInput *IFHEInputFilterer) ParseSetAllowed(log types.Log) (*IFHEInputSetAllowed, error) {
	event := new(IFHEInputSetAllowed)
	if err := _IFHEInput.contract.UnpackLog(event, "SetAllowed", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
