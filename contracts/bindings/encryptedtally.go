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

// EncryptedTallyMetaData contains all meta data concerning the EncryptedTally contract.
var EncryptedTallyMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"voter\",\"type\":\"address\"}],\"name\":\"AlreadyVoted\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"},{\"internalType\":\"uint256\",\"name\":\"result\",\"type\":\"uint256\"}],\"name\":\"NotAValue\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"NotHandleOwner\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NothingToReveal\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"}],\"name\":\"UnknownHandle\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"}],\"name\":\"VerdictNotReady\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"state\",\"type\":\"bytes32\"}],\"name\":\"RevealRequested\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"voter\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"state\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"merged\",\"type\":\"bytes32\"}],\"name\":\"Voted\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"current\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"requestReveal\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"revealRequest\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"total\",\"outputs\":[{\"internalType\":\"int256\",\"name\":\"\",\"type\":\"int256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"metadata\",\"type\":\"bytes\"}],\"name\":\"vote\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"merged\",\"type\":\"bytes32\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"voted\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"votes\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	Bin: "0x6080604052348015600e575f5ffd5b5061079b8061001c5f395ff3fe608060405234801561000f575f5ffd5b506004361061007a575f3560e01c8063aec2ccae11610058578063aec2ccae146100aa578063b07870b5146100dc578063e168c3ec146100e4578063fffeba4e146100ed575f5ffd5b806303d6139f1461007e5780632ddbd13a1461009a5780639fa6a6e3146100a2575b5f5ffd5b61008760025481565b6040519081526020015b60405180910390f35b610087610100565b6100875f5481565b6100cc6100b8366004610577565b60036020525f908152604090205460ff1681565b6040519015158152602001610091565b610087610111565b61008760015481565b6100876100fb366004610592565b6101d1565b5f61010c600254610370565b905090565b5f8054610131576040516332cce4d560e11b815260040160405180910390fd5b5f54604051631efec24d60e21b8152600481019190915260f2600160991b0190637bfb0934906024016020604051808303815f875af1158015610176573d5f5f3e3d5ffd5b505050506040513d601f19601f8201168201806040525081019061019a9190610609565b60028190555f80546040519293509183917ff8eff52ca535ad18cf9c4db3fa2c74d55e7e001f607f00d83ccd567b3d39b29d91a390565b335f9081526003602052604081205460ff161561020857604051633512759d60e21b81523360048201526024015b60405180910390fd5b61021284336103d8565b335f90815260036020526040808220805460ff19166001179055516318a172af60e11b815260f2600160991b0190633142e55e9061025b90600290899089908990600401610620565b6020604051808303815f875af1158015610277573d5f5f3e3d5ffd5b505050506040513d601f19601f8201168201806040525081019061029b9190610609565b5f549091501561031a575f54604051635be8fd4360e11b815260048101919091526024810182905260f2600160991b019063b7d1fa86906044016020604051808303815f875af11580156102f1573d5f5f3e3d5ffd5b505050506040513d601f19601f820116820180604052508101906103159190610609565b61031c565b805b9150815f819055506001805f8282546103359190610673565b90915550506040518290829033907f0a51713c76a3d455999e2c765be7c2638c7b06efe8099dc35c4a40d6cdc42dc3905f90a4509392505050565b5f5f61037b83610435565b90506201000181106103aa576040516312a1c5ef60e11b815260048101849052602481018290526044016101ff565b6103b860026201000161068c565b81116103c457806103d1565b6103d162010001826106ab565b9392505050565b5f6103e2836104c7565b9050816001600160a01b0316816001600160a01b0316146104305760405163b3f1bedb60e01b8152600481018490526001600160a01b038084166024830152821660448201526064016101ff565b505050565b604051637b96882b60e01b8152600481018290525f908190819060f3600160991b0190637b96882b90602401608060405180830381865afa15801561047c573d5f5f3e3d5ffd5b505050506040513d601f19601f820116820180604052508101906104a091906106e5565b505091509150816103d157604051630ed9f2c960e41b8152600481018590526024016101ff565b60405163c282a92b60e01b8152600481018290525f90819060f0600160991b019063c282a92b90602401608060405180830381865afa15801561050c573d5f5f3e3d5ffd5b505050506040513d601f19601f820116820180604052508101906105309190610748565b5090935090915081905061055a576040516327f5265760e01b8152600481018490526024016101ff565b50919050565b6001600160a01b0381168114610574575f5ffd5b50565b5f60208284031215610587575f5ffd5b81356103d181610560565b5f5f5f604084860312156105a4575f5ffd5b83359250602084013567ffffffffffffffff8111156105c1575f5ffd5b8401601f810186136105d1575f5ffd5b803567ffffffffffffffff8111156105e7575f5ffd5b8660208284010111156105f8575f5ffd5b939660209190910195509293505050565b5f60208284031215610619575f5ffd5b5051919050565b60ff8516815283602082015260606040820152816060820152818360808301375f818301608090810191909152601f909201601f191601019392505050565b634e487b7160e01b5f52601160045260245ffd5b808201808211156106865761068661065f565b92915050565b5f826106a657634e487b7160e01b5f52601260045260245ffd5b500490565b8181035f8312801583831316838312821617156106ca576106ca61065f565b5092915050565b805180151581146106e0575f5ffd5b919050565b5f5f5f5f608085870312156106f8575f5ffd5b610701856106d1565b602086015160408701516060880151929650909450925067ffffffffffffffff8116811461072d575f5ffd5b939692955090935050565b805160ff811681146106e0575f5ffd5b5f5f5f5f6080858703121561075b575f5ffd5b610764856106d1565b9350602085015161077481610560565b925061078260408601610738565b915061079060608601610738565b90509295919450925056",
}

// EncryptedTallyABI is the input ABI used to generate the binding from.
// Deprecated: Use EncryptedTallyMetaData.ABI instead.
var EncryptedTallyABI = EncryptedTallyMetaData.ABI

// EncryptedTallyBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use EncryptedTallyMetaData.Bin instead.
var EncryptedTallyBin = EncryptedTallyMetaData.Bin

// DeployEncryptedTally deploys a new Ethereum contract, binding an instance of EncryptedTally to it.
func DeployEncryptedTally(auth *bind.TransactOpts, backend bind.ContractBackend) (common.Address, *types.Transaction, *EncryptedTally, error) {
	parsed, err := EncryptedTallyMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(EncryptedTallyBin), backend)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &EncryptedTally{EncryptedTallyCaller: EncryptedTallyCaller{contract: contract}, EncryptedTallyTransactor: EncryptedTallyTransactor{contract: contract}, EncryptedTallyFilterer: EncryptedTallyFilterer{contract: contract}}, nil
}

// EncryptedTally is an auto generated Go binding around an Ethereum contract.
type EncryptedTally struct {
	EncryptedTallyCaller     // Read-only binding to the contract
	EncryptedTallyTransactor // Write-only binding to the contract
	EncryptedTallyFilterer   // Log filterer for contract events
}

// EncryptedTallyCaller is an auto generated read-only Go binding around an Ethereum contract.
type EncryptedTallyCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// EncryptedTallyTransactor is an auto generated write-only Go binding around an Ethereum contract.
type EncryptedTallyTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// EncryptedTallyFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type EncryptedTallyFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// EncryptedTallySession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type EncryptedTallySession struct {
	Contract     *EncryptedTally   // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// EncryptedTallyCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type EncryptedTallyCallerSession struct {
	Contract *EncryptedTallyCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts         // Call options to use throughout this session
}

// EncryptedTallyTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type EncryptedTallyTransactorSession struct {
	Contract     *EncryptedTallyTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts         // Transaction auth options to use throughout this session
}

// EncryptedTallyRaw is an auto generated low-level Go binding around an Ethereum contract.
type EncryptedTallyRaw struct {
	Contract *EncryptedTally // Generic contract binding to access the raw methods on
}

// EncryptedTallyCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type EncryptedTallyCallerRaw struct {
	Contract *EncryptedTallyCaller // Generic read-only contract binding to access the raw methods on
}

// EncryptedTallyTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type EncryptedTallyTransactorRaw struct {
	Contract *EncryptedTallyTransactor // Generic write-only contract binding to access the raw methods on
}

// NewEncryptedTally creates a new instance of EncryptedTally, bound to a specific deployed contract.
func NewEncryptedTally(address common.Address, backend bind.ContractBackend) (*EncryptedTally, error) {
	contract, err := bindEncryptedTally(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &EncryptedTally{EncryptedTallyCaller: EncryptedTallyCaller{contract: contract}, EncryptedTallyTransactor: EncryptedTallyTransactor{contract: contract}, EncryptedTallyFilterer: EncryptedTallyFilterer{contract: contract}}, nil
}

// NewEncryptedTallyCaller creates a new read-only instance of EncryptedTally, bound to a specific deployed contract.
func NewEncryptedTallyCaller(address common.Address, caller bind.ContractCaller) (*EncryptedTallyCaller, error) {
	contract, err := bindEncryptedTally(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &EncryptedTallyCaller{contract: contract}, nil
}

// NewEncryptedTallyTransactor creates a new write-only instance of EncryptedTally, bound to a specific deployed contract.
func NewEncryptedTallyTransactor(address common.Address, transactor bind.ContractTransactor) (*EncryptedTallyTransactor, error) {
	contract, err := bindEncryptedTally(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &EncryptedTallyTransactor{contract: contract}, nil
}

// NewEncryptedTallyFilterer creates a new log filterer instance of EncryptedTally, bound to a specific deployed contract.
func NewEncryptedTallyFilterer(address common.Address, filterer bind.ContractFilterer) (*EncryptedTallyFilterer, error) {
	contract, err := bindEncryptedTally(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &EncryptedTallyFilterer{contract: contract}, nil
}

// bindEncryptedTally binds a generic wrapper to an already deployed contract.
func bindEncryptedTally(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := EncryptedTallyMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_EncryptedTally *EncryptedTallyRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _EncryptedTally.Contract.EncryptedTallyCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_EncryptedTally *EncryptedTallyRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _EncryptedTally.Contract.EncryptedTallyTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_EncryptedTally *EncryptedTallyRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _EncryptedTally.Contract.EncryptedTallyTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_EncryptedTally *EncryptedTallyCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _EncryptedTally.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_EncryptedTally *EncryptedTallyTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _EncryptedTally.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_EncryptedTally *EncryptedTallyTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _EncryptedTally.Contract.contract.Transact(opts, method, params...)
}

// Current is a free data retrieval call binding the contract method 0x9fa6a6e3.
//
// Solidity: function current() view returns(bytes32)
func (_EncryptedTally *EncryptedTallyCaller) Current(opts *bind.CallOpts) ([32]byte, error) {
	var out []interface{}
	err := _EncryptedTally.contract.Call(opts, &out, "current")

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// Current is a free data retrieval call binding the contract method 0x9fa6a6e3.
//
// Solidity: function current() view returns(bytes32)
func (_EncryptedTally *EncryptedTallySession) Current() ([32]byte, error) {
	return _EncryptedTally.Contract.Current(&_EncryptedTally.CallOpts)
}

// Current is a free data retrieval call binding the contract method 0x9fa6a6e3.
//
// Solidity: function current() view returns(bytes32)
func (_EncryptedTally *EncryptedTallyCallerSession) Current() ([32]byte, error) {
	return _EncryptedTally.Contract.Current(&_EncryptedTally.CallOpts)
}

// RevealRequest is a free data retrieval call binding the contract method 0x03d6139f.
//
// Solidity: function revealRequest() view returns(bytes32)
func (_EncryptedTally *EncryptedTallyCaller) RevealRequest(opts *bind.CallOpts) ([32]byte, error) {
	var out []interface{}
	err := _EncryptedTally.contract.Call(opts, &out, "revealRequest")

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// RevealRequest is a free data retrieval call binding the contract method 0x03d6139f.
//
// Solidity: function revealRequest() view returns(bytes32)
func (_EncryptedTally *EncryptedTallySession) RevealRequest() ([32]byte, error) {
	return _EncryptedTally.Contract.RevealRequest(&_EncryptedTally.CallOpts)
}

// RevealRequest is a free data retrieval call binding the contract method 0x03d6139f.
//
// Solidity: function revealRequest() view returns(bytes32)
func (_EncryptedTally *EncryptedTallyCallerSession) RevealRequest() ([32]byte, error) {
	return _EncryptedTally.Contract.RevealRequest(&_EncryptedTally.CallOpts)
}

// Total is a free data retrieval call binding the contract method 0x2ddbd13a.
//
// Solidity: function total() view returns(int256)
func (_EncryptedTally *EncryptedTallyCaller) Total(opts *bind.CallOpts) (*big.Int, error) {
	var out []interface{}
	err := _EncryptedTally.contract.Call(opts, &out, "total")

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Total is a free data retrieval call binding the contract method 0x2ddbd13a.
//
// Solidity: function total() view returns(int256)
func (_EncryptedTally *EncryptedTallySession) Total() (*big.Int, error) {
	return _EncryptedTally.Contract.Total(&_EncryptedTally.CallOpts)
}

// Total is a free data retrieval call binding the contract method 0x2ddbd13a.
//
// Solidity: function total() view returns(int256)
func (_EncryptedTally *EncryptedTallyCallerSession) Total() (*big.Int, error) {
	return _EncryptedTally.Contract.Total(&_EncryptedTally.CallOpts)
}

// Voted is a free data retrieval call binding the contract method 0xaec2ccae.
//
// Solidity: function voted(address ) view returns(bool)
func (_EncryptedTally *EncryptedTallyCaller) Voted(opts *bind.CallOpts, arg0 common.Address) (bool, error) {
	var out []interface{}
	err := _EncryptedTally.contract.Call(opts, &out, "voted", arg0)

	if err != nil {
		return *new(bool), err
	}

	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)

	return out0, err

}

// Voted is a free data retrieval call binding the contract method 0xaec2ccae.
//
// Solidity: function voted(address ) view returns(bool)
func (_EncryptedTally *EncryptedTallySession) Voted(arg0 common.Address) (bool, error) {
	return _EncryptedTally.Contract.Voted(&_EncryptedTally.CallOpts, arg0)
}

// Voted is a free data retrieval call binding the contract method 0xaec2ccae.
//
// Solidity: function voted(address ) view returns(bool)
func (_EncryptedTally *EncryptedTallyCallerSession) Voted(arg0 common.Address) (bool, error) {
	return _EncryptedTally.Contract.Voted(&_EncryptedTally.CallOpts, arg0)
}

// Votes is a free data retrieval call binding the contract method 0xe168c3ec.
//
// Solidity: function votes() view returns(uint256)
func (_EncryptedTally *EncryptedTallyCaller) Votes(opts *bind.CallOpts) (*big.Int, error) {
	var out []interface{}
	err := _EncryptedTally.contract.Call(opts, &out, "votes")

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Votes is a free data retrieval call binding the contract method 0xe168c3ec.
//
// Solidity: function votes() view returns(uint256)
func (_EncryptedTally *EncryptedTallySession) Votes() (*big.Int, error) {
	return _EncryptedTally.Contract.Votes(&_EncryptedTally.CallOpts)
}

// Votes is a free data retrieval call binding the contract method 0xe168c3ec.
//
// Solidity: function votes() view returns(uint256)
func (_EncryptedTally *EncryptedTallyCallerSession) Votes() (*big.Int, error) {
	return _EncryptedTally.Contract.Votes(&_EncryptedTally.CallOpts)
}

// RequestReveal is a paid mutator transaction binding the contract method 0xb07870b5.
//
// Solidity: function requestReveal() returns(bytes32 requestId)
func (_EncryptedTally *EncryptedTallyTransactor) RequestReveal(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _EncryptedTally.contract.Transact(opts, "requestReveal")
}

// RequestReveal is a paid mutator transaction binding the contract method 0xb07870b5.
//
// Solidity: function requestReveal() returns(bytes32 requestId)
func (_EncryptedTally *EncryptedTallySession) RequestReveal() (*types.Transaction, error) {
	return _EncryptedTally.Contract.RequestReveal(&_EncryptedTally.TransactOpts)
}

// RequestReveal is a paid mutator transaction binding the contract method 0xb07870b5.
//
// Solidity: function requestReveal() returns(bytes32 requestId)
func (_EncryptedTally *EncryptedTallyTransactorSession) RequestReveal() (*types.Transaction, error) {
	return _EncryptedTally.Contract.RequestReveal(&_EncryptedTally.TransactOpts)
}

// Vote is a paid mutator transaction binding the contract method 0xfffeba4e.
//
// Solidity: function vote(bytes32 handle, bytes metadata) returns(bytes32 merged)
func (_EncryptedTally *EncryptedTallyTransactor) Vote(opts *bind.TransactOpts, handle [32]byte, metadata []byte) (*types.Transaction, error) {
	return _EncryptedTally.contract.Transact(opts, "vote", handle, metadata)
}

// Vote is a paid mutator transaction binding the contract method 0xfffeba4e.
//
// Solidity: function vote(bytes32 handle, bytes metadata) returns(bytes32 merged)
func (_EncryptedTally *EncryptedTallySession) Vote(handle [32]byte, metadata []byte) (*types.Transaction, error) {
	return _EncryptedTally.Contract.Vote(&_EncryptedTally.TransactOpts, handle, metadata)
}

// Vote is a paid mutator transaction binding the contract method 0xfffeba4e.
//
// Solidity: function vote(bytes32 handle, bytes metadata) returns(bytes32 merged)
func (_EncryptedTally *EncryptedTallyTransactorSession) Vote(handle [32]byte, metadata []byte) (*types.Transaction, error) {
	return _EncryptedTally.Contract.Vote(&_EncryptedTally.TransactOpts, handle, metadata)
}

// EncryptedTallyRevealRequestedIterator is returned from FilterRevealRequested and is used to iterate over the raw logs and unpacked data for RevealRequested events raised by the EncryptedTally contract.
type EncryptedTallyRevealRequestedIterator struct {
	Event *EncryptedTallyRevealRequested // Event containing the contract specifics and raw log

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
func (it *EncryptedTallyRevealRequestedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(EncryptedTallyRevealRequested)
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
		it.Event = new(EncryptedTallyRevealRequested)
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
func (it *EncryptedTallyRevealRequestedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *EncryptedTallyRevealRequestedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// EncryptedTallyRevealRequested represents a RevealRequested event raised by the EncryptedTally contract.
type EncryptedTallyRevealRequested struct {
	RequestId [32]byte
	State     [32]byte
	Raw       types.Log // Blockchain specific contextual infos
}

// FilterRevealRequested is a free log retrieval operation binding the contract event 0xf8eff52ca535ad18cf9c4db3fa2c74d55e7e001f607f00d83ccd567b3d39b29d.
//
// Solidity: event RevealRequested(bytes32 indexed requestId, bytes32 indexed state)
func (_EncryptedTally *EncryptedTallyFilterer) FilterRevealRequested(opts *bind.FilterOpts, requestId [][32]byte, state [][32]byte) (*EncryptedTallyRevealRequestedIterator, error) {

	var requestIdRule []interface{}
	for _, requestIdItem := range requestId {
		requestIdRule = append(requestIdRule, requestIdItem)
	}
	var stateRule []interface{}
	for _, stateItem := range state {
		stateRule = append(stateRule, stateItem)
	}

	logs, sub, err := _EncryptedTally.contract.FilterLogs(opts, "RevealRequested", requestIdRule, stateRule)
	if err != nil {
		return nil, err
	}
	return &EncryptedTallyRevealRequestedIterator{contract: _EncryptedTally.contract, event: "RevealRequested", logs: logs, sub: sub}, nil
}

// WatchRevealRequested is a free log subscription operation binding the contract event 0xf8eff52ca535ad18cf9c4db3fa2c74d55e7e001f607f00d83ccd567b3d39b29d.
//
// Solidity: event RevealRequested(bytes32 indexed requestId, bytes32 indexed state)
func (_EncryptedTally *EncryptedTallyFilterer) WatchRevealRequested(opts *bind.WatchOpts, sink chan<- *EncryptedTallyRevealRequested, requestId [][32]byte, state [][32]byte) (event.Subscription, error) {

	var requestIdRule []interface{}
	for _, requestIdItem := range requestId {
		requestIdRule = append(requestIdRule, requestIdItem)
	}
	var stateRule []interface{}
	for _, stateItem := range state {
		stateRule = append(stateRule, stateItem)
	}

	logs, sub, err := _EncryptedTally.contract.WatchLogs(opts, "RevealRequested", requestIdRule, stateRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(EncryptedTallyRevealRequested)
				if err := _EncryptedTally.contract.UnpackLog(event, "RevealRequested", log); err != nil {
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

// ParseRevealRequested is a log parse operation binding the contract event 0xf8eff52ca535ad18cf9c4db3fa2c74d55e7e001f607f00d83ccd567b3d39b29d.
//
// Solidity: event RevealRequested(bytes32 indexed requestId, bytes32 indexed state)
func (_EncryptedTally *EncryptedTallyFilterer) ParseRevealRequested(log types.Log) (*EncryptedTallyRevealRequested, error) {
	event := new(EncryptedTallyRevealRequested)
	if err := _EncryptedTally.contract.UnpackLog(event, "RevealRequested", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// EncryptedTallyVotedIterator is returned from FilterVoted and is used to iterate over the raw logs and unpacked data for Voted events raised by the EncryptedTally contract.
type EncryptedTallyVotedIterator struct {
	Event *EncryptedTallyVoted // Event containing the contract specifics and raw log

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
func (it *EncryptedTallyVotedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(EncryptedTallyVoted)
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
		it.Event = new(EncryptedTallyVoted)
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
func (it *EncryptedTallyVotedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *EncryptedTallyVotedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// EncryptedTallyVoted represents a Voted event raised by the EncryptedTally contract.
type EncryptedTallyVoted struct {
	Voter  common.Address
	State  [32]byte
	Merged [32]byte
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterVoted is a free log retrieval operation binding the contract event 0x0a51713c76a3d455999e2c765be7c2638c7b06efe8099dc35c4a40d6cdc42dc3.
//
// Solidity: event Voted(address indexed voter, bytes32 indexed state, bytes32 indexed merged)
func (_EncryptedTally *EncryptedTallyFilterer) FilterVoted(opts *bind.FilterOpts, voter []common.Address, state [][32]byte, merged [][32]byte) (*EncryptedTallyVotedIterator, error) {

	var voterRule []interface{}
	for _, voterItem := range voter {
		voterRule = append(voterRule, voterItem)
	}
	var stateRule []interface{}
	for _, stateItem := range state {
		stateRule = append(stateRule, stateItem)
	}
	var mergedRule []interface{}
	for _, mergedItem := range merged {
		mergedRule = append(mergedRule, mergedItem)
	}

	logs, sub, err := _EncryptedTally.contract.FilterLogs(opts, "Voted", voterRule, stateRule, mergedRule)
	if err != nil {
		return nil, err
	}
	return &EncryptedTallyVotedIterator{contract: _EncryptedTally.contract, event: "Voted", logs: logs, sub: sub}, nil
}

// WatchVoted is a free log subscription operation binding the contract event 0x0a51713c76a3d455999e2c765be7c2638c7b06efe8099dc35c4a40d6cdc42dc3.
//
// Solidity: event Voted(address indexed voter, bytes32 indexed state, bytes32 indexed merged)
func (_EncryptedTally *EncryptedTallyFilterer) WatchVoted(opts *bind.WatchOpts, sink chan<- *EncryptedTallyVoted, voter []common.Address, state [][32]byte, merged [][32]byte) (event.Subscription, error) {

	var voterRule []interface{}
	for _, voterItem := range voter {
		voterRule = append(voterRule, voterItem)
	}
	var stateRule []interface{}
	for _, stateItem := range state {
		stateRule = append(stateRule, stateItem)
	}
	var mergedRule []interface{}
	for _, mergedItem := range merged {
		mergedRule = append(mergedRule, mergedItem)
	}

	logs, sub, err := _EncryptedTally.contract.WatchLogs(opts, "Voted", voterRule, stateRule, mergedRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(EncryptedTallyVoted)
				if err := _EncryptedTally.contract.UnpackLog(event, "Voted", log); err != nil {
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

// ParseVoted is a log parse operation binding the contract event 0x0a51713c76a3d455999e2c765be7c2638c7b06efe8099dc35c4a40d6cdc42dc3.
//
// Solidity: event Voted(address indexed voter, bytes32 indexed state, bytes32 indexed merged)
func (_EncryptedTally *EncryptedTallyFilterer) ParseVoted(log types.Log) (*EncryptedTallyVoted, error) {
	event := new(EncryptedTallyVoted)
	if err := _EncryptedTally.contract.UnpackLog(event, "Voted", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
