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

// IFHECRDTMetaData contains all meta data concerning the IFHECRDT contract.
var IFHECRDTMetaData = &bind.MetaData{
	ABI: "[{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"stateId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"StateAllowed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"stateId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint8\",\"name\":\"kind\",\"type\":\"uint8\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"metadata\",\"type\":\"bytes\"}],\"name\":\"StateCreated\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"stateId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"a\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"b\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint8\",\"name\":\"kind\",\"type\":\"uint8\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"metadata\",\"type\":\"bytes\"}],\"name\":\"StateMerged\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"stateId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"requester\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"policyId\",\"type\":\"bytes32\"}],\"name\":\"ValueRequested\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"stateId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"allow\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint8\",\"name\":\"kind\",\"type\":\"uint8\"},{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"metadata\",\"type\":\"bytes\"}],\"name\":\"create\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"stateId\",\"type\":\"bytes32\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"a\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"b\",\"type\":\"bytes32\"}],\"name\":\"merge\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"stateId\",\"type\":\"bytes32\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"}],\"name\":\"requestOf\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"exists\",\"type\":\"bool\"},{\"internalType\":\"bytes32\",\"name\":\"stateId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"requester\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"blockNumber\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"stateId\",\"type\":\"bytes32\"}],\"name\":\"stateOf\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"exists\",\"type\":\"bool\"},{\"internalType\":\"uint8\",\"name\":\"kind\",\"type\":\"uint8\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"parentA\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"parentB\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"metadata\",\"type\":\"bytes\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"stateId\",\"type\":\"bytes32\"}],\"name\":\"value\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
}

// IFHECRDTABI is the input ABI used to generate the binding from.
// Deprecated: Use IFHECRDTMetaData.ABI instead.
var IFHECRDTABI = IFHECRDTMetaData.ABI

// IFHECRDT is an auto generated Go binding around an Ethereum contract.
type IFHECRDT struct {
	IFHECRDTCaller     // Read-only binding to the contract
	IFHECRDTTransactor // Write-only binding to the contract
	IFHECRDTFilterer   // Log filterer for contract events
}

// IFHECRDTCaller is an auto generated read-only Go binding around an Ethereum contract.
type IFHECRDTCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// IFHECRDTTransactor is an auto generated write-only Go binding around an Ethereum contract.
type IFHECRDTTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// IFHECRDTFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type IFHECRDTFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// IFHECRDTSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type IFHECRDTSession struct {
	Contract     *IFHECRDT         // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// IFHECRDTCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type IFHECRDTCallerSession struct {
	Contract *IFHECRDTCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts   // Call options to use throughout this session
}

// IFHECRDTTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type IFHECRDTTransactorSession struct {
	Contract     *IFHECRDTTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts   // Transaction auth options to use throughout this session
}

// IFHECRDTRaw is an auto generated low-level Go binding around an Ethereum contract.
type IFHECRDTRaw struct {
	Contract *IFHECRDT // Generic contract binding to access the raw methods on
}

// IFHECRDTCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type IFHECRDTCallerRaw struct {
	Contract *IFHECRDTCaller // Generic read-only contract binding to access the raw methods on
}

// IFHECRDTTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type IFHECRDTTransactorRaw struct {
	Contract *IFHECRDTTransactor // Generic write-only contract binding to access the raw methods on
}

// NewIFHECRDT creates a new instance of IFHECRDT, bound to a specific deployed contract.
func NewIFHECRDT(address common.Address, backend bind.ContractBackend) (*IFHECRDT, error) {
	contract, err := bindIFHECRDT(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &IFHECRDT{IFHECRDTCaller: IFHECRDTCaller{contract: contract}, IFHECRDTTransactor: IFHECRDTTransactor{contract: contract}, IFHECRDTFilterer: IFHECRDTFilterer{contract: contract}}, nil
}

// NewIFHECRDTCaller creates a new read-only instance of IFHECRDT, bound to a specific deployed contract.
func NewIFHECRDTCaller(address common.Address, caller bind.ContractCaller) (*IFHECRDTCaller, error) {
	contract, err := bindIFHECRDT(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &IFHECRDTCaller{contract: contract}, nil
}

// NewIFHECRDTTransactor creates a new write-only instance of IFHECRDT, bound to a specific deployed contract.
func NewIFHECRDTTransactor(address common.Address, transactor bind.ContractTransactor) (*IFHECRDTTransactor, error) {
	contract, err := bindIFHECRDT(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &IFHECRDTTransactor{contract: contract}, nil
}

// NewIFHECRDTFilterer creates a new log filterer instance of IFHECRDT, bound to a specific deployed contract.
func NewIFHECRDTFilterer(address common.Address, filterer bind.ContractFilterer) (*IFHECRDTFilterer, error) {
	contract, err := bindIFHECRDT(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &IFHECRDTFilterer{contract: contract}, nil
}

// bindIFHECRDT binds a generic wrapper to an already deployed contract.
func bindIFHECRDT(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := IFHECRDTMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_IFHECRDT *IFHECRDTRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _IFHECRDT.Contract.IFHECRDTCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_IFHECRDT *IFHECRDTRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _IFHECRDT.Contract.IFHECRDTTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_IFHECRDT *IFHECRDTRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _IFHECRDT.Contract.IFHECRDTTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_IFHECRDT *IFHECRDTCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _IFHECRDT.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_IFHECRDT *IFHECRDTTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _IFHECRDT.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_IFHECRDT *IFHECRDTTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _IFHECRDT.Contract.contract.Transact(opts, method, params...)
}

// RequestOf is a free data retrieval call binding the contract method 0xeacb1408.
//
// Solidity: function requestOf(bytes32 requestId) view returns(bool exists, bytes32 stateId, address requester, uint64 blockNumber)
func (_IFHECRDT *IFHECRDTCaller) RequestOf(opts *bind.CallOpts, requestId [32]byte) (struct {
	Exists      bool
	StateId     [32]byte
	Requester   common.Address
	BlockNumber uint64
}, error) {
	var out []interface{}
	err := _IFHECRDT.contract.Call(opts, &out, "requestOf", requestId)

	outstruct := new(struct {
		Exists      bool
		StateId     [32]byte
		Requester   common.Address
		BlockNumber uint64
	})
	if err != nil {
		return *outstruct, err
	}

	outstruct.Exists = *abi.ConvertType(out[0], new(bool)).(*bool)
	outstruct.StateId = *abi.ConvertType(out[1], new([32]byte)).(*[32]byte)
	outstruct.Requester = *abi.ConvertType(out[2], new(common.Address)).(*common.Address)
	outstruct.BlockNumber = *abi.ConvertType(out[3], new(uint64)).(*uint64)

	return *outstruct, err

}

// RequestOf is a free data retrieval call binding the contract method 0xeacb1408.
//
// Solidity: function requestOf(bytes32 requestId) view returns(bool exists, bytes32 stateId, address requester, uint64 blockNumber)
func (_IFHECRDT *IFHECRDTSession) RequestOf(requestId [32]byte) (struct {
	Exists      bool
	StateId     [32]byte
	Requester   common.Address
	BlockNumber uint64
}, error) {
	return _IFHECRDT.Contract.RequestOf(&_IFHECRDT.CallOpts, requestId)
}

// RequestOf is a free data retrieval call binding the contract method 0xeacb1408.
//
// Solidity: function requestOf(bytes32 requestId) view returns(bool exists, bytes32 stateId, address requester, uint64 blockNumber)
func (_IFHECRDT *IFHECRDTCallerSession) RequestOf(requestId [32]byte) (struct {
	Exists      bool
	StateId     [32]byte
	Requester   common.Address
	BlockNumber uint64
}, error) {
	return _IFHECRDT.Contract.RequestOf(&_IFHECRDT.CallOpts, requestId)
}

// StateOf is a free data retrieval call binding the contract method 0x64482ac4.
//
// Solidity: function stateOf(bytes32 stateId) view returns(bool exists, uint8 kind, address owner, bytes32 handle, bytes32 parentA, bytes32 parentB, bytes metadata)
func (_IFHECRDT *IFHECRDTCaller) StateOf(opts *bind.CallOpts, stateId [32]byte) (struct {
	Exists   bool
	Kind     uint8
	Owner    common.Address
	Handle   [32]byte
	ParentA  [32]byte
	ParentB  [32]byte
	Metadata []byte
}, error) {
	var out []interface{}
	err := _IFHECRDT.contract.Call(opts, &out, "stateOf", stateId)

	outstruct := new(struct {
		Exists   bool
		Kind     uint8
		Owner    common.Address
		Handle   [32]byte
		ParentA  [32]byte
		ParentB  [32]byte
		Metadata []byte
	})
	if err != nil {
		return *outstruct, err
	}

	outstruct.Exists = *abi.ConvertType(out[0], new(bool)).(*bool)
	outstruct.Kind = *abi.ConvertType(out[1], new(uint8)).(*uint8)
	outstruct.Owner = *abi.ConvertType(out[2], new(common.Address)).(*common.Address)
	outstruct.Handle = *abi.ConvertType(out[3], new([32]byte)).(*[32]byte)
	outstruct.ParentA = *abi.ConvertType(out[4], new([32]byte)).(*[32]byte)
	outstruct.ParentB = *abi.ConvertType(out[5], new([32]byte)).(*[32]byte)
	outstruct.Metadata = *abi.ConvertType(out[6], new([]byte)).(*[]byte)

	return *outstruct, err

}

// StateOf is a free data retrieval call binding the contract method 0x64482ac4.
//
// Solidity: function stateOf(bytes32 stateId) view returns(bool exists, uint8 kind, address owner, bytes32 handle, bytes32 parentA, bytes32 parentB, bytes metadata)
func (_IFHECRDT *IFHECRDTSession) StateOf(stateId [32]byte) (struct {
	Exists   bool
	Kind     uint8
	Owner    common.Address
	Handle   [32]byte
	ParentA  [32]byte
	ParentB  [32]byte
	Metadata []byte
}, error) {
	return _IFHECRDT.Contract.StateOf(&_IFHECRDT.CallOpts, stateId)
}

// StateOf is a free data retrieval call binding the contract method 0x64482ac4.
//
// Solidity: function stateOf(bytes32 stateId) view returns(bool exists, uint8 kind, address owner, bytes32 handle, bytes32 parentA, bytes32 parentB, bytes metadata)
func (_IFHECRDT *IFHECRDTCallerSession) StateOf(stateId [32]byte) (struct {
	Exists   bool
	Kind     uint8
	Owner    common.Address
	Handle   [32]byte
	ParentA  [32]byte
	ParentB  [32]byte
	Metadata []byte
}, error) {
	return _IFHECRDT.Contract.StateOf(&_IFHECRDT.CallOpts, stateId)
}

// Allow is a paid mutator transaction binding the contract method 0xb9496b62.
//
// Solidity: function allow(bytes32 stateId, address account) returns()
func (_IFHECRDT *IFHECRDTTransactor) Allow(opts *bind.TransactOpts, stateId [32]byte, account common.Address) (*types.Transaction, error) {
	return _IFHECRDT.contract.Transact(opts, "allow", stateId, account)
}

// Allow is a paid mutator transaction binding the contract method 0xb9496b62.
//
// Solidity: function allow(bytes32 stateId, address account) returns()
func (_IFHECRDT *IFHECRDTSession) Allow(stateId [32]byte, account common.Address) (*types.Transaction, error) {
	return _IFHECRDT.Contract.Allow(&_IFHECRDT.TransactOpts, stateId, account)
}

// Allow is a paid mutator transaction binding the contract method 0xb9496b62.
//
// Solidity: function allow(bytes32 stateId, address account) returns()
func (_IFHECRDT *IFHECRDTTransactorSession) Allow(stateId [32]byte, account common.Address) (*types.Transaction, error) {
	return _IFHECRDT.Contract.Allow(&_IFHECRDT.TransactOpts, stateId, account)
}

// Create is a paid mutator transaction binding the contract method 0x3142e55e.
//
// Solidity: function create(uint8 kind, bytes32 handle, bytes metadata) returns(bytes32 stateId)
func (_IFHECRDT *IFHECRDTTransactor) Create(opts *bind.TransactOpts, kind uint8, handle [32]byte, metadata []byte) (*types.Transaction, error) {
	return _IFHECRDT.contract.Transact(opts, "create", kind, handle, metadata)
}

// Create is a paid mutator transaction binding the contract method 0x3142e55e.
//
// Solidity: function create(uint8 kind, bytes32 handle, bytes metadata) returns(bytes32 stateId)
func (_IFHECRDT *IFHECRDTSession) Create(kind uint8, handle [32]byte, metadata []byte) (*types.Transaction, error) {
	return _IFHECRDT.Contract.Create(&_IFHECRDT.TransactOpts, kind, handle, metadata)
}

// Create is a paid mutator transaction binding the contract method 0x3142e55e.
//
// Solidity: function create(uint8 kind, bytes32 handle, bytes metadata) returns(bytes32 stateId)
func (_IFHECRDT *IFHECRDTTransactorSession) Create(kind uint8, handle [32]byte, metadata []byte) (*types.Transaction, error) {
	return _IFHECRDT.Contract.Create(&_IFHECRDT.TransactOpts, kind, handle, metadata)
}

// Merge is a paid mutator transaction binding the contract method 0xb7d1fa86.
//
// Solidity: function merge(bytes32 a, bytes32 b) returns(bytes32 stateId)
func (_IFHECRDT *IFHECRDTTransactor) Merge(opts *bind.TransactOpts, a [32]byte, b [32]byte) (*types.Transaction, error) {
	return _IFHECRDT.contract.Transact(opts, "merge", a, b)
}

// Merge is a paid mutator transaction binding the contract method 0xb7d1fa86.
//
// Solidity: function merge(bytes32 a, bytes32 b) returns(bytes32 stateId)
func (_IFHECRDT *IFHECRDTSession) Merge(a [32]byte, b [32]byte) (*types.Transaction, error) {
	return _IFHECRDT.Contract.Merge(&_IFHECRDT.TransactOpts, a, b)
}

// Merge is a paid mutator transaction binding the contract method 0xb7d1fa86.
//
// Solidity: function merge(bytes32 a, bytes32 b) returns(bytes32 stateId)
func (_IFHECRDT *IFHECRDTTransactorSession) Merge(a [32]byte, b [32]byte) (*types.Transaction, error) {
	return _IFHECRDT.Contract.Merge(&_IFHECRDT.TransactOpts, a, b)
}

// Value is a paid mutator transaction binding the contract method 0x7bfb0934.
//
// Solidity: function value(bytes32 stateId) returns(bytes32 requestId)
func (_IFHECRDT *IFHECRDTTransactor) Value(opts *bind.TransactOpts, stateId [32]byte) (*types.Transaction, error) {
	return _IFHECRDT.contract.Transact(opts, "value", stateId)
}

// Value is a paid mutator transaction binding the contract method 0x7bfb0934.
//
// Solidity: function value(bytes32 stateId) returns(bytes32 requestId)
func (_IFHECRDT *IFHECRDTSession) Value(stateId [32]byte) (*types.Transaction, error) {
	return _IFHECRDT.Contract.Value(&_IFHECRDT.TransactOpts, stateId)
}

// Value is a paid mutator transaction binding the contract method 0x7bfb0934.
//
// Solidity: function value(bytes32 stateId) returns(bytes32 requestId)
func (_IFHECRDT *IFHECRDTTransactorSession) Value(stateId [32]byte) (*types.Transaction, error) {
	return _IFHECRDT.Contract.Value(&_IFHECRDT.TransactOpts, stateId)
}

// IFHECRDTStateAllowedIterator is returned from FilterStateAllowed and is used to iterate over the raw logs and unpacked data for StateAllowed events raised by the IFHECRDT contract.
type IFHECRDTStateAllowedIterator struct {
	Event *IFHECRDTStateAllowed // Event containing the contract specifics and raw log

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
func (it *IFHECRDTStateAllowedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(IFHECRDTStateAllowed)
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
		it.Event = new(IFHECRDTStateAllowed)
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
func (it *IFHECRDTStateAllowedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *IFHECRDTStateAllowedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// IFHECRDTStateAllowed represents a StateAllowed event raised by the IFHECRDT contract.
type IFHECRDTStateAllowed struct {
	StateId [32]byte
	Account common.Address
	Raw     types.Log // Blockchain specific contextual infos
}

// FilterStateAllowed is a free log retrieval operation binding the contract event 0x606cf8074d79c3b176da8f10a0ab98af57e6794b431280782ea6a3ef7c75085f.
//
// Solidity: event StateAllowed(bytes32 indexed stateId, address indexed account)
func (_IFHECRDT *IFHECRDTFilterer) FilterStateAllowed(opts *bind.FilterOpts, stateId [][32]byte, account []common.Address) (*IFHECRDTStateAllowedIterator, error) {

	var stateIdRule []interface{}
	for _, stateIdItem := range stateId {
		stateIdRule = append(stateIdRule, stateIdItem)
	}
	var accountRule []interface{}
	for _, accountItem := range account {
		accountRule = append(accountRule, accountItem)
	}

	logs, sub, err := _IFHECRDT.contract.FilterLogs(opts, "StateAllowed", stateIdRule, accountRule)
	if err != nil {
		return nil, err
	}
	return &IFHECRDTStateAllowedIterator{contract: _IFHECRDT.contract, event: "StateAllowed", logs: logs, sub: sub}, nil
}

// WatchStateAllowed is a free log subscription operation binding the contract event 0x606cf8074d79c3b176da8f10a0ab98af57e6794b431280782ea6a3ef7c75085f.
//
// Solidity: event StateAllowed(bytes32 indexed stateId, address indexed account)
func (_IFHECRDT *IFHECRDTFilterer) WatchStateAllowed(opts *bind.WatchOpts, sink chan<- *IFHECRDTStateAllowed, stateId [][32]byte, account []common.Address) (event.Subscription, error) {

	var stateIdRule []interface{}
	for _, stateIdItem := range stateId {
		stateIdRule = append(stateIdRule, stateIdItem)
	}
	var accountRule []interface{}
	for _, accountItem := range account {
		accountRule = append(accountRule, accountItem)
	}

	logs, sub, err := _IFHECRDT.contract.WatchLogs(opts, "StateAllowed", stateIdRule, accountRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(IFHECRDTStateAllowed)
				if err := _IFHECRDT.contract.UnpackLog(event, "StateAllowed", log); err != nil {
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

// ParseStateAllowed is a log parse operation binding the contract event 0x606cf8074d79c3b176da8f10a0ab98af57e6794b431280782ea6a3ef7c75085f.
//
// Solidity: event StateAllowed(bytes32 indexed stateId, address indexed account)
func (_IFHECRDT *IFHECRDTFilterer) ParseStateAllowed(log types.Log) (*IFHECRDTStateAllowed, error) {
	event := new(IFHECRDTStateAllowed)
	if err := _IFHECRDT.contract.UnpackLog(event, "StateAllowed", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// IFHECRDTStateCreatedIterator is returned from FilterStateCreated and is used to iterate over the raw logs and unpacked data for StateCreated events raised by the IFHECRDT contract.
type IFHECRDTStateCreatedIterator struct {
	Event *IFHECRDTStateCreated // Event containing the contract specifics and raw log

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
func (it *IFHECRDTStateCreatedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(IFHECRDTStateCreated)
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
		it.Event = new(IFHECRDTStateCreated)
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
func (it *IFHECRDTStateCreatedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *IFHECRDTStateCreatedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// IFHECRDTStateCreated represents a StateCreated event raised by the IFHECRDT contract.
type IFHECRDTStateCreated struct {
	StateId  [32]byte
	Owner    common.Address
	Kind     uint8
	Handle   [32]byte
	Metadata []byte
	Raw      types.Log // Blockchain specific contextual infos
}

// FilterStateCreated is a free log retrieval operation binding the contract event 0x7d80e65a5882bc10e2b5e12c19df4365f57e647f54cedfdd2cf1fb95cd9b25cd.
//
// Solidity: event StateCreated(bytes32 indexed stateId, address indexed owner, uint8 kind, bytes32 handle, bytes metadata)
func (_IFHECRDT *IFHECRDTFilterer) FilterStateCreated(opts *bind.FilterOpts, stateId [][32]byte, owner []common.Address) (*IFHECRDTStateCreatedIterator, error) {

	var stateIdRule []interface{}
	for _, stateIdItem := range stateId {
		stateIdRule = append(stateIdRule, stateIdItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _IFHECRDT.contract.FilterLogs(opts, "StateCreated", stateIdRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return &IFHECRDTStateCreatedIterator{contract: _IFHECRDT.contract, event: "StateCreated", logs: logs, sub: sub}, nil
}

// WatchStateCreated is a free log subscription operation binding the contract event 0x7d80e65a5882bc10e2b5e12c19df4365f57e647f54cedfdd2cf1fb95cd9b25cd.
//
// Solidity: event StateCreated(bytes32 indexed stateId, address indexed owner, uint8 kind, bytes32 handle, bytes metadata)
func (_IFHECRDT *IFHECRDTFilterer) WatchStateCreated(opts *bind.WatchOpts, sink chan<- *IFHECRDTStateCreated, stateId [][32]byte, owner []common.Address) (event.Subscription, error) {

	var stateIdRule []interface{}
	for _, stateIdItem := range stateId {
		stateIdRule = append(stateIdRule, stateIdItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _IFHECRDT.contract.WatchLogs(opts, "StateCreated", stateIdRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(IFHECRDTStateCreated)
				if err := _IFHECRDT.contract.UnpackLog(event, "StateCreated", log); err != nil {
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

// ParseStateCreated is a log parse operation binding the contract event 0x7d80e65a5882bc10e2b5e12c19df4365f57e647f54cedfdd2cf1fb95cd9b25cd.
//
// Solidity: event StateCreated(bytes32 indexed stateId, address indexed owner, uint8 kind, bytes32 handle, bytes metadata)
func (_IFHECRDT *IFHECRDTFilterer) ParseStateCreated(log types.Log) (*IFHECRDTStateCreated, error) {
	event := new(IFHECRDTStateCreated)
	if err := _IFHECRDT.contract.UnpackLog(event, "StateCreated", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// IFHECRDTStateMergedIterator is returned from FilterStateMerged and is used to iterate over the raw logs and unpacked data for StateMerged events raised by the IFHECRDT contract.
type IFHECRDTStateMergedIterator struct {
	Event *IFHECRDTStateMerged // Event containing the contract specifics and raw log

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
func (it *IFHECRDTStateMergedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(IFHECRDTStateMerged)
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
		it.Event = new(IFHECRDTStateMerged)
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
func (it *IFHECRDTStateMergedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *IFHECRDTStateMergedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// IFHECRDTStateMerged represents a StateMerged event raised by the IFHECRDT contract.
type IFHECRDTStateMerged struct {
	StateId  [32]byte
	A        [32]byte
	B        [32]byte
	Kind     uint8
	Metadata []byte
	Raw      types.Log // Blockchain specific contextual infos
}

// FilterStateMerged is a free log retrieval operation binding the contract event 0x6939a0dc69abf13c9a8b0fefd8e212db4ddc1c7c771c086c27bb2a8efaae5a9b.
//
// Solidity: event StateMerged(bytes32 indexed stateId, bytes32 indexed a, bytes32 indexed b, uint8 kind, bytes metadata)
func (_IFHECRDT *IFHECRDTFilterer) FilterStateMerged(opts *bind.FilterOpts, stateId [][32]byte, a [][32]byte, b [][32]byte) (*IFHECRDTStateMergedIterator, error) {

	var stateIdRule []interface{}
	for _, stateIdItem := range stateId {
		stateIdRule = append(stateIdRule, stateIdItem)
	}
	var aRule []interface{}
	for _, aItem := range a {
		aRule = append(aRule, aItem)
	}
	var bRule []interface{}
	for _, bItem := range b {
		bRule = append(bRule, bItem)
	}

	logs, sub, err := _IFHECRDT.contract.FilterLogs(opts, "StateMerged", stateIdRule, aRule, bRule)
	if err != nil {
		return nil, err
	}
	return &IFHECRDTStateMergedIterator{contract: _IFHECRDT.contract, event: "StateMerged", logs: logs, sub: sub}, nil
}

// WatchStateMerged is a free log subscription operation binding the contract event 0x6939a0dc69abf13c9a8b0fefd8e212db4ddc1c7c771c086c27bb2a8efaae5a9b.
//
// Solidity: event StateMerged(bytes32 indexed stateId, bytes32 indexed a, bytes32 indexed b, uint8 kind, bytes metadata)
func (_IFHECRDT *IFHECRDTFilterer) WatchStateMerged(opts *bind.WatchOpts, sink chan<- *IFHECRDTStateMerged, stateId [][32]byte, a [][32]byte, b [][32]byte) (event.Subscription, error) {

	var stateIdRule []interface{}
	for _, stateIdItem := range stateId {
		stateIdRule = append(stateIdRule, stateIdItem)
	}
	var aRule []interface{}
	for _, aItem := range a {
		aRule = append(aRule, aItem)
	}
	var bRule []interface{}
	for _, bItem := range b {
		bRule = append(bRule, bItem)
	}

	logs, sub, err := _IFHECRDT.contract.WatchLogs(opts, "StateMerged", stateIdRule, aRule, bRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(IFHECRDTStateMerged)
				if err := _IFHECRDT.contract.UnpackLog(event, "StateMerged", log); err != nil {
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

// ParseStateMerged is a log parse operation binding the contract event 0x6939a0dc69abf13c9a8b0fefd8e212db4ddc1c7c771c086c27bb2a8efaae5a9b.
//
// Solidity: event StateMerged(bytes32 indexed stateId, bytes32 indexed a, bytes32 indexed b, uint8 kind, bytes metadata)
func (_IFHECRDT *IFHECRDTFilterer) ParseStateMerged(log types.Log) (*IFHECRDTStateMerged, error) {
	event := new(IFHECRDTStateMerged)
	if err := _IFHECRDT.contract.UnpackLog(event, "StateMerged", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// IFHECRDTValueRequestedIterator is returned from FilterValueRequested and is used to iterate over the raw logs and unpacked data for ValueRequested events raised by the IFHECRDT contract.
type IFHECRDTValueRequestedIterator struct {
	Event *IFHECRDTValueRequested // Event containing the contract specifics and raw log

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
func (it *IFHECRDTValueRequestedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(IFHECRDTValueRequested)
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
		it.Event = new(IFHECRDTValueRequested)
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
func (it *IFHECRDTValueRequestedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *IFHECRDTValueRequestedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// IFHECRDTValueRequested represents a ValueRequested event raised by the IFHECRDT contract.
type IFHECRDTValueRequested struct {
	RequestId [32]byte
	StateId   [32]byte
	Requester common.Address
	PolicyId  [32]byte
	Raw       types.Log // Blockchain specific contextual infos
}

// FilterValueRequested is a free log retrieval operation binding the contract event 0x788875490b1471951c4b8512f6dfe1298a2a4e9fb31b86484a289571683b0ec8.
//
// Solidity: event ValueRequested(bytes32 indexed requestId, bytes32 indexed stateId, address indexed requester, bytes32 policyId)
func (_IFHECRDT *IFHECRDTFilterer) FilterValueRequested(opts *bind.FilterOpts, requestId [][32]byte, stateId [][32]byte, requester []common.Address) (*IFHECRDTValueRequestedIterator, error) {

	var requestIdRule []interface{}
	for _, requestIdItem := range requestId {
		requestIdRule = append(requestIdRule, requestIdItem)
	}
	var stateIdRule []interface{}
	for _, stateIdItem := range stateId {
		stateIdRule = append(stateIdRule, stateIdItem)
	}
	var requesterRule []interface{}
	for _, requesterItem := range requester {
		requesterRule = append(requesterRule, requesterItem)
	}

	logs, sub, err := _IFHECRDT.contract.FilterLogs(opts, "ValueRequested", requestIdRule, stateIdRule, requesterRule)
	if err != nil {
		return nil, err
	}
	return &IFHECRDTValueRequestedIterator{contract: _IFHECRDT.contract, event: "ValueRequested", logs: logs, sub: sub}, nil
}

// WatchValueRequested is a free log subscription operation binding the contract event 0x788875490b1471951c4b8512f6dfe1298a2a4e9fb31b86484a289571683b0ec8.
//
// Solidity: event ValueRequested(bytes32 indexed requestId, bytes32 indexed stateId, address indexed requester, bytes32 policyId)
func (_IFHECRDT *IFHECRDTFilterer) WatchValueRequested(opts *bind.WatchOpts, sink chan<- *IFHECRDTValueRequested, requestId [][32]byte, stateId [][32]byte, requester []common.Address) (event.Subscription, error) {

	var requestIdRule []interface{}
	for _, requestIdItem := range requestId {
		requestIdRule = append(requestIdRule, requestIdItem)
	}
	var stateIdRule []interface{}
	for _, stateIdItem := range stateId {
		stateIdRule = append(stateIdRule, stateIdItem)
	}
	var requesterRule []interface{}
	for _, requesterItem := range requester {
		requesterRule = append(requesterRule, requesterItem)
	}

	logs, sub, err := _IFHECRDT.contract.WatchLogs(opts, "ValueRequested", requestIdRule, stateIdRule, requesterRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(IFHECRDTValueRequested)
				if err := _IFHECRDT.contract.UnpackLog(event, "ValueRequested", log); err != nil {
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

// ParseValueRequested is a log parse operation binding the contract event 0x788875490b1471951c4b8512f6dfe1298a2a4e9fb31b86484a289571683b0ec8.
//
// Solidity: event ValueRequested(bytes32 indexed requestId, bytes32 indexed stateId, address indexed requester, bytes32 policyId)
func (_IFHECRDT *IFHECRDTFilterer) ParseValueRequested(log types.Log) (*IFHECRDTValueRequested, error) {
	event := new(IFHECRDTValueRequested)
	if err := _IFHECRDT.contract.UnpackLog(event, "ValueRequested", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
