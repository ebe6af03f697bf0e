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

// PrivateCreditGateMetaData contains all meta data concerning the PrivateCreditGate contract.
var PrivateCreditGateMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"bytes\",\"name\":\"policySpec\",\"type\":\"bytes\"},{\"internalType\":\"uint256\",\"name\":\"limit\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"}],\"name\":\"AlreadySettled\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"handleSetId\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"}],\"name\":\"HandlesAlreadyUsed\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"NotHandleOwner\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NothingToWithdraw\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"}],\"name\":\"UnknownHandle\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"}],\"name\":\"UnknownRequest\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"}],\"name\":\"VerdictNotReady\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"want\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"got\",\"type\":\"uint256\"}],\"name\":\"WrongDeposit\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"applicant\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"}],\"name\":\"Applied\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"applicant\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"bool\",\"name\":\"approved\",\"type\":\"bool\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"creditLine\",\"type\":\"uint256\"}],\"name\":\"Decision\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"name\":\"applicantOf\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"incomeHandle\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"debtHandle\",\"type\":\"bytes32\"}],\"name\":\"applyFor\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"creditLimit\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"creditLine\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"name\":\"depositOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"policyId\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"refundOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"name\":\"requestOfHandles\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"requestId\",\"type\":\"bytes32\"}],\"name\":\"settle\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"approved\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"name\":\"settled\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"withdrawRefund\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	Bin: "0x60c060405234801561000f575f5ffd5b50604051610dc0380380610dc083398101604081905261002e916100c5565b60405163517509bb60e11b81527302000000000000000000000000000000000000f19063a2ea137690610065908590600401610179565b6020604051808303815f875af1158015610081573d5f5f3e3d5ffd5b505050506040513d601f19601f820116820180604052508101906100a591906101ae565b60805260a052506101c5565b634e487b7160e01b5f52604160045260245ffd5b5f5f604083850312156100d6575f5ffd5b82516001600160401b038111156100eb575f5ffd5b8301601f810185136100fb575f5ffd5b80516001600160401b03811115610114576101146100b1565b604051601f8201601f19908116603f011681016001600160401b0381118282101715610142576101426100b1565b604052818152828201602001871015610159575f5ffd5b8160208401602083015e5f60209282018301529401519395939450505050565b602081525f82518060208401528060208501604085015e5f604082850101526040601f19601f83011684010191505092915050565b5f602082840312156101be575f5ffd5b5051919050565b60805160a051610bc56101fb5f395f818161012e015261043701525f8181610273015281816105e201526106a80152610bc55ff3fe60806040526004361061009a575f3560e01c8063987757dd11610062578063987757dd1461019c578063bd414158146101cb578063cca304de146101de578063d945af1d14610209578063e4ee7ac914610237578063ee89ef3a14610262575f5ffd5b806307738ad21461009e578063110f8874146100dc5780631c3536e7146100f257806327d4dbe91461011d5780638aa7f55314610150575b5f5ffd5b3480156100a9575f5ffd5b506100c96100b83660046109bc565b60056020525f908152604090205481565b6040519081526020015b60405180910390f35b3480156100e7575f5ffd5b506100f0610295565b005b3480156100fd575f5ffd5b506100c961010c3660046109bc565b60026020525f908152604090205481565b348015610128575f5ffd5b506100c97f000000000000000000000000000000000000000000000000000000000000000081565b34801561015b575f5ffd5b5061018461016a3660046109d7565b5f602081905290815260409020546001600160a01b031681565b6040516001600160a01b0390911681526020016100d3565b3480156101a7575f5ffd5b506101bb6101b63660046109d7565b610384565b60405190151581526020016100d3565b6100c96101d93660046109ee565b61056d565b3480156101e9575f5ffd5b506100c96101f83660046109d7565b60046020525f908152604090205481565b348015610214575f5ffd5b506101bb6102233660046109d7565b60016020525f908152604090205460ff1681565b348015610242575f5ffd5b506100c96102513660046109d7565b60036020525f908152604090205481565b34801561026d575f5ffd5b506100c97f000000000000000000000000000000000000000000000000000000000000000081565b335f90815260056020526040812054908190036102c557604051630686827b60e51b815260040160405180910390fd5b335f818152600560205260408082208290555190919083908381818185875af1925050503d805f8114610313576040519150601f19603f3d011682016040523d82523d5f602084013e610318565b606091505b50509050806103805760405162461bcd60e51b815260206004820152602960248201527f50726976617465437265646974476174653a20726566756e64207472616e7366604482015268195c8819985a5b195960ba1b60648201526084015b60405180910390fd5b5050565b5f818152602081905260408120546001600160a01b0316806103bc57604051637bbe34c960e01b815260048101849052602401610377565b5f8381526001602052604090205460ff16156103ee576040516358cb522560e11b815260048101849052602401610377565b5f6103f884610782565b5f858152600160208190526040909120805460ff1916821790558114935090508215610459576001600160a01b0382165f9081526002602052604090207f000000000000000000000000000000000000000000000000000000000000000090555b5f8481526004602090815260408083208054908490556001600160a01b038616808552600284529382902054825188151581529384015292879290917f195522eca12ab2228e5d2119c3ad8b4c4c0c32f4c9b72c864e414ab769f81421910160405180910390a380158015906104da57506104d660025f19610a22565b8214155b15610565575f836001600160a01b0316826040515f6040518083038185875af1925050503d805f8114610528576040519150601f19603f3d011682016040523d82523d5f602084013e61052d565b606091505b5050905080610563576001600160a01b0384165f908152600560205260408120805484929061055d908490610a3b565b90915550505b505b505050919050565b5f610578833361081b565b610582823361081b565b5f61058d8484610878565b90505f610599826108dd565b5f8181526003602052604090205490915080156105d3576040516305a425c360e21b81526004810183905260248101829052604401610377565b604051636651826f60e11b81527f000000000000000000000000000000000000000000000000000000000000000060048201525f9060f1600160991b019063cca304de90602401602060405180830381865afa158015610635573d5f5f3e3d5ffd5b505050506040513d601f19601f820116820180604052508101906106599190610a4e565b9050803414610684576040516305897f0960e01b815260048101829052346024820152604401610377565b6040516320d7e69560e21b815260f1600160991b019063835f9a549083906106d2907f0000000000000000000000000000000000000000000000000000000000000000908990600401610a65565b60206040518083038185885af11580156106ee573d5f5f3e3d5ffd5b50505050506040513d601f19601f820116820180604052508101906107139190610a4e565b5f84815260036020908152604080832084905583835282825280832080546001600160a01b03191633908117909155600490925280832085905551929750879290917fdccfd1ecbf1966a67855915ae80920d862de428abfec0a877d6a7e8e22a631b191a35050505092915050565b604051637b96882b60e01b8152600481018290525f908190819060f3600160991b0190637b96882b90602401608060405180830381865afa1580156107c9573d5f5f3e3d5ffd5b505050506040513d601f19601f820116820180604052508101906107ed9190610ac6565b5050915091508161081457604051630ed9f2c960e41b815260048101859052602401610377565b9392505050565b5f6108258361090c565b9050816001600160a01b0316816001600160a01b0316146108735760405163b3f1bedb60e01b8152600481018490526001600160a01b03808416602483015282166044820152606401610377565b505050565b604080516002808252606080830184529260208301908036833701905050905082815f815181106108ab576108ab610b19565b60200260200101818152505081816001815181106108cb576108cb610b19565b60200260200101818152505092915050565b5f816040516020016108ef9190610b2d565b604051602081830303815290604052805190602001209050919050565b60405163c282a92b60e01b8152600481018290525f90819060f0600160991b019063c282a92b90602401608060405180830381865afa158015610951573d5f5f3e3d5ffd5b505050506040513d601f19601f820116820180604052508101906109759190610b72565b5090935090915081905061099f576040516327f5265760e01b815260048101849052602401610377565b50919050565b6001600160a01b03811681146109b9575f5ffd5b50565b5f602082840312156109cc575f5ffd5b8135610814816109a5565b5f602082840312156109e7575f5ffd5b5035919050565b5f5f604083850312156109ff575f5ffd5b50508035926020909101359150565b634e487b7160e01b5f52601160045260245ffd5b81810381811115610a3557610a35610a0e565b92915050565b80820180821115610a3557610a35610a0e565b5f60208284031215610a5e575f5ffd5b5051919050565b5f60408201848352604060208401528084518083526060850191506020860192505f5b81811015610aa6578351835260209384019390920191600101610a88565b50909695505050505050565b80518015158114610ac1575f5ffd5b919050565b5f5f5f5f60808587031215610ad9575f5ffd5b610ae285610ab2565b602086015160408701516060880151929650909450925067ffffffffffffffff81168114610b0e575f5ffd5b939692955090935050565b634e487b7160e01b5f52603260045260245ffd5b81515f90829060208501835b82811015610b57578151845260209384019390910190600101610b39565b509195945050505050565b805160ff81168114610ac1575f5ffd5b5f5f5f5f60808587031215610b85575f5ffd5b610b8e85610ab2565b93506020850151610b9e816109a5565b9250610bac60408601610b62565b9150610bba60608601610b62565b90509295919450925056",
}

// PrivateCreditGateABI is the input ABI used to generate the binding from.
// Deprecated: Use PrivateCreditGateMetaData.ABI instead.
var PrivateCreditGateABI = PrivateCreditGateMetaData.ABI

// PrivateCreditGateBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use PrivateCreditGateMetaData.Bin instead.
var PrivateCreditGateBin = PrivateCreditGateMetaData.Bin

// DeployPrivateCreditGate deploys a new Ethereum contract, binding an instance of PrivateCreditGate to it.
func DeployPrivateCreditGate(auth *bind.TransactOpts, backend bind.ContractBackend, policySpec []byte, limit *big.Int) (common.Address, *types.Transaction, *PrivateCreditGate, error) {
	parsed, err := PrivateCreditGateMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(PrivateCreditGateBin), backend, policySpec, limit)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &PrivateCreditGate{PrivateCreditGateCaller: PrivateCreditGateCaller{contract: contract}, PrivateCreditGateTransactor: PrivateCreditGateTransactor{contract: contract}, PrivateCreditGateFilterer: PrivateCreditGateFilterer{contract: contract}}, nil
}

// PrivateCreditGate is an auto generated Go binding around an Ethereum contract.
type PrivateCreditGate struct {
	PrivateCreditGateCaller     // Read-only binding to the contract
	PrivateCreditGateTransactor // Write-only binding to the contract
	PrivateCreditGateFilterer   // Log filterer for contract events
}

// PrivateCreditGateCaller is an auto generated read-only Go binding around an Ethereum contract.
type PrivateCreditGateCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// PrivateCreditGateTransactor is an auto generated write-only Go binding around an Ethereum contract.
type PrivateCreditGateTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// PrivateCreditGateFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type PrivateCreditGateFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// PrivateCreditGateSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type PrivateCreditGateSession struct {
	Contract     *PrivateCreditGate // Generic contract binding to set the session for
	CallOpts     bind.CallOpts      // Call options to use throughout this session
	TransactOpts bind.TransactOpts  // Transaction auth options to use throughout this session
}

// PrivateCreditGateCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type PrivateCreditGateCallerSession struct {
	Contract *PrivateCreditGateCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts            // Call options to use throughout this session
}

// PrivateCreditGateTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type PrivateCreditGateTransactorSession struct {
	Contract     *PrivateCreditGateTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts            // Transaction auth options to use throughout this session
}

// PrivateCreditGateRaw is an auto generated low-level Go binding around an Ethereum contract.
type PrivateCreditGateRaw struct {
	Contract *PrivateCreditGate // Generic contract binding to access the raw methods on
}

// PrivateCreditGateCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type PrivateCreditGateCallerRaw struct {
	Contract *PrivateCreditGateCaller // Generic read-only contract binding to access the raw methods on
}

// PrivateCreditGateTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type PrivateCreditGateTransactorRaw struct {
	Contract *PrivateCreditGateTransactor // Generic write-only contract binding to access the raw methods on
}

// NewPrivateCreditGate creates a new instance of PrivateCreditGate, bound to a specific deployed contract.
func NewPrivateCreditGate(address common.Address, backend bind.ContractBackend) (*PrivateCreditGate, error) {
	contract, err := bindPrivateCreditGate(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &PrivateCreditGate{PrivateCreditGateCaller: PrivateCreditGateCaller{contract: contract}, PrivateCreditGateTransactor: PrivateCreditGateTransactor{contract: contract}, PrivateCreditGateFilterer: PrivateCreditGateFilterer{contract: contract}}, nil
}

// NewPrivateCreditGateCaller creates a new read-only instance of PrivateCreditGate, bound to a specific deployed contract.
func NewPrivateCreditGateCaller(address common.Address, caller bind.ContractCaller) (*PrivateCreditGateCaller, error) {
	contract, err := bindPrivateCreditGate(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &PrivateCreditGateCaller{contract: contract}, nil
}

// NewPrivateCreditGateTransactor creates a new write-only instance of PrivateCreditGate, bound to a specific deployed contract.
func NewPrivateCreditGateTransactor(address common.Address, transactor bind.ContractTransactor) (*PrivateCreditGateTransactor, error) {
	contract, err := bindPrivateCreditGate(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &PrivateCreditGateTransactor{contract: contract}, nil
}

// NewPrivateCreditGateFilterer creates a new log filterer instance of PrivateCreditGate, bound to a specific deployed contract.
func NewPrivateCreditGateFilterer(address common.Address, filterer bind.ContractFilterer) (*PrivateCreditGateFilterer, error) {
	contract, err := bindPrivateCreditGate(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &PrivateCreditGateFilterer{contract: contract}, nil
}

// bindPrivateCreditGate binds a generic wrapper to an already deployed contract.
func bindPrivateCreditGate(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := PrivateCreditGateMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_PrivateCreditGate *PrivateCreditGateRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _PrivateCreditGate.Contract.PrivateCreditGateCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_PrivateCreditGate *PrivateCreditGateRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _PrivateCreditGate.Contract.PrivateCreditGateTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_PrivateCreditGate *PrivateCreditGateRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _PrivateCreditGate.Contract.PrivateCreditGateTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_PrivateCreditGate *PrivateCreditGateCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _PrivateCreditGate.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_PrivateCreditGate *PrivateCreditGateTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _PrivateCreditGate.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_PrivateCreditGate *PrivateCreditGateTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _PrivateCreditGate.Contract.contract.Transact(opts, method, params...)
}

// ApplicantOf is a free data retrieval call binding the contract method 0x8aa7f553.
//
// Solidity: function applicantOf(bytes32 ) view returns(address)
func (_PrivateCreditGate *PrivateCreditGateCaller) ApplicantOf(opts *bind.CallOpts, arg0 [32]byte) (common.Address, error) {
	var out []interface{}
	err := _PrivateCreditGate.contract.Call(opts, &out, "applicantOf", arg0)

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// ApplicantOf is a free data retrieval call binding the contract method 0x8aa7f553.
//
// Solidity: function applicantOf(bytes32 ) view returns(address)
func (_PrivateCreditGate *PrivateCreditGateSession) ApplicantOf(arg0 [32]byte) (common.Address, error) {
	return _PrivateCreditGate.Contract.ApplicantOf(&_PrivateCreditGate.CallOpts, arg0)
}

// ApplicantOf is a free data retrieval call binding the contract method 0x8aa7f553.
//
// Solidity: function applicantOf(bytes32 ) view returns(address)
func (_PrivateCreditGate *PrivateCreditGateCallerSession) ApplicantOf(arg0 [32]byte) (common.Address, error) {
	return _PrivateCreditGate.Contract.ApplicantOf(&_PrivateCreditGate.CallOpts, arg0)
}

// CreditLimit is a free data retrieval call binding the contract method 0x27d4dbe9.
//
// Solidity: function creditLimit() view returns(uint256)
func (_PrivateCreditGate *PrivateCreditGateCaller) CreditLimit(opts *bind.CallOpts) (*big.Int, error) {
	var out []interface{}
	err := _PrivateCreditGate.contract.Call(opts, &out, "creditLimit")

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// CreditLimit is a free data retrieval call binding the contract method 0x27d4dbe9.
//
// Solidity: function creditLimit() view returns(uint256)
func (_PrivateCreditGate *PrivateCreditGateSession) CreditLimit() (*big.Int, error) {
	return _PrivateCreditGate.Contract.CreditLimit(&_PrivateCreditGate.CallOpts)
}

// CreditLimit is a free data retrieval call binding the contract method 0x27d4dbe9.
//
// Solidity: function creditLimit() view returns(uint256)
func (_PrivateCreditGate *PrivateCreditGateCallerSession) CreditLimit() (*big.Int, error) {
	return _PrivateCreditGate.Contract.CreditLimit(&_PrivateCreditGate.CallOpts)
}

// CreditLine is a free data retrieval call binding the contract method 0x1c3536e7.
//
// Solidity: function creditLine(address ) view returns(uint256)
func (_PrivateCreditGate *PrivateCreditGateCaller) CreditLine(opts *bind.CallOpts, arg0 common.Address) (*big.Int, error) {
	var out []interface{}
	err := _PrivateCreditGate.contract.Call(opts, &out, "creditLine", arg0)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// CreditLine is a free data retrieval call binding the contract method 0x1c3536e7.
//
// Solidity: function creditLine(address ) view returns(uint256)
func (_PrivateCreditGate *PrivateCreditGateSession) CreditLine(arg0 common.Address) (*big.Int, error) {
	return _PrivateCreditGate.Contract.CreditLine(&_PrivateCreditGate.CallOpts, arg0)
}

// CreditLine is a free data retrieval call binding the contract method 0x1c3536e7.
//
// Solidity: function creditLine(address ) view returns(uint256)
func (_PrivateCreditGate *PrivateCreditGateCallerSession) CreditLine(arg0 common.Address) (*big.Int, error) {
	return _PrivateCreditGate.Contract.CreditLine(&_PrivateCreditGate.CallOpts, arg0)
}

// DepositOf is a free data retrieval call binding the contract method 0xcca304de.
//
// Solidity: function depositOf(bytes32 ) view returns(uint256)
func (_PrivateCreditGate *PrivateCreditGateCaller) DepositOf(opts *bind.CallOpts, arg0 [32]byte) (*big.Int, error) {
	var out []interface{}
	err := _PrivateCreditGate.contract.Call(opts, &out, "depositOf", arg0)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// DepositOf is a free data retrieval call binding the contract method 0xcca304de.
//
// Solidity: function depositOf(bytes32 ) view returns(uint256)
func (_PrivateCreditGate *PrivateCreditGateSession) DepositOf(arg0 [32]byte) (*big.Int, error) {
	return _PrivateCreditGate.Contract.DepositOf(&_PrivateCreditGate.CallOpts, arg0)
}

// DepositOf is a free data retrieval call binding the contract method 0xcca304de.
//
// Solidity: function depositOf(bytes32 ) view returns(uint256)
func (_PrivateCreditGate *PrivateCreditGateCallerSession) DepositOf(arg0 [32]byte) (*big.Int, error) {
	return _PrivateCreditGate.Contract.DepositOf(&_PrivateCreditGate.CallOpts, arg0)
}

// PolicyId is a free data retrieval call binding the contract method 0xee89ef3a.
//
// Solidity: function policyId() view returns(bytes32)
func (_PrivateCreditGate *PrivateCreditGateCaller) PolicyId(opts *bind.CallOpts) ([32]byte, error) {
	var out []interface{}
	err := _PrivateCreditGate.contract.Call(opts, &out, "policyId")

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// PolicyId is a free data retrieval call binding the contract method 0xee89ef3a.
//
// Solidity: function policyId() view returns(bytes32)
func (_PrivateCreditGate *PrivateCreditGateSession) PolicyId() ([32]byte, error) {
	return _PrivateCreditGate.Contract.PolicyId(&_PrivateCreditGate.CallOpts)
}

// PolicyId is a free data retrieval call binding the contract method 0xee89ef3a.
//
// Solidity: function policyId() view returns(bytes32)
func (_PrivateCreditGate *PrivateCreditGateCallerSession) PolicyId() ([32]byte, error) {
	return _PrivateCreditGate.Contract.PolicyId(&_PrivateCreditGate.CallOpts)
}

// RefundOf is a free data retrieval call binding the contract method 0x07738ad2.
//
// Solidity: function refundOf(address ) view returns(uint256)
func (_PrivateCreditGate *PrivateCreditGateCaller) RefundOf(opts *bind.CallOpts, arg0 common.Address) (*big.Int, error) {
	var out []interface{}
	err := _PrivateCreditGate.contract.Call(opts, &out, "refundOf", arg0)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// RefundOf is a free data retrieval call binding the contract method 0x07738ad2.
//
// Solidity: function refundOf(address ) view returns(uint256)
func (_PrivateCreditGate *PrivateCreditGateSession) RefundOf(arg0 common.Address) (*big.Int, error) {
	return _PrivateCreditGate.Contract.RefundOf(&_PrivateCreditGate.CallOpts, arg0)
}

// RefundOf is a free data retrieval call binding the contract method 0x07738ad2.
//
// Solidity: function refundOf(address ) view returns(uint256)
func (_PrivateCreditGate *PrivateCreditGateCallerSession) RefundOf(arg0 common.Address) (*big.Int, error) {
	return _PrivateCreditGate.Contract.RefundOf(&_PrivateCreditGate.CallOpts, arg0)
}

// RequestOfHandles is a free data retrieval call binding the contract method 0xe4ee7ac9.
//
// Solidity: function requestOfHandles(bytes32 ) view returns(bytes32)
func (_PrivateCreditGate *PrivateCreditGateCaller) RequestOfHandles(opts *bind.CallOpts, arg0 [32]byte) ([32]byte, error) {
	var out []interface{}
	err := _PrivateCreditGate.contract.Call(opts, &out, "requestOfHandles", arg0)

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// RequestOfHandles is a free data retrieval call binding the contract method 0xe4ee7ac9.
//
// Solidity: function requestOfHandles(bytes32 ) view returns(bytes32)
func (_PrivateCreditGate *PrivateCreditGateSession) RequestOfHandles(arg0 [32]byte) ([32]byte, error) {
	return _PrivateCreditGate.Contract.RequestOfHandles(&_PrivateCreditGate.CallOpts, arg0)
}

// RequestOfHandles is a free data retrieval call binding the contract method 0xe4ee7ac9.
//
// Solidity: function requestOfHandles(bytes32 ) view returns(bytes32)
func (_PrivateCreditGate *PrivateCreditGateCallerSession) RequestOfHandles(arg0 [32]byte) ([32]byte, error) {
	return _PrivateCreditGate.Contract.RequestOfHandles(&_PrivateCreditGate.CallOpts, arg0)
}

// Settled is a free data retrieval call binding the contract method 0xd945af1d.
//
// Solidity: function settled(bytes32 ) view returns(bool)
func (_PrivateCreditGate *PrivateCreditGateCaller) Settled(opts *bind.CallOpts, arg0 [32]byte) (bool, error) {
	var out []interface{}
	err := _PrivateCreditGate.contract.Call(opts, &out, "settled", arg0)

	if err != nil {
		return *new(bool), err
	}

	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)

	return out0, err

}

// Settled is a free data retrieval call binding the contract method 0xd945af1d.
//
// Solidity: function settled(bytes32 ) view returns(bool)
func (_PrivateCreditGate *PrivateCreditGateSession) Settled(arg0 [32]byte) (bool, error) {
	return _PrivateCreditGate.Contract.Settled(&_PrivateCreditGate.CallOpts, arg0)
}

// Settled is a free data retrieval call binding the contract method 0xd945af1d.
//
// Solidity: function settled(bytes32 ) view returns(bool)
func (_PrivateCreditGate *PrivateCreditGateCallerSession) Settled(arg0 [32]byte) (bool, error) {
	return _PrivateCreditGate.Contract.Settled(&_PrivateCreditGate.CallOpts, arg0)
}

// ApplyFor is a paid mutator transaction binding the contract method 0xbd414158.
//
// Solidity: function applyFor(bytes32 incomeHandle, bytes32 debtHandle) payable returns(bytes32 requestId)
func (_PrivateCreditGate *PrivateCreditGateTransactor) ApplyFor(opts *bind.TransactOpts, incomeHandle [32]byte, debtHandle [32]byte) (*types.Transaction, error) {
	return _PrivateCreditGate.contract.Transact(opts, "applyFor", incomeHandle, debtHandle)
}

// ApplyFor is a paid mutator transaction binding the contract method 0xbd414158.
//
// Solidity: function applyFor(bytes32 incomeHandle, bytes32 debtHandle) payable returns(bytes32 requestId)
func (_PrivateCreditGate *PrivateCreditGateSession) ApplyFor(incomeHandle [32]byte, debtHandle [32]byte) (*types.Transaction, error) {
	return _PrivateCreditGate.Contract.ApplyFor(&_PrivateCreditGate.TransactOpts, incomeHandle, debtHandle)
}

// ApplyFor is a paid mutator transaction binding the contract method 0xbd414158.
//
// Solidity: function applyFor(bytes32 incomeHandle, bytes32 debtHandle) payable returns(bytes32 requestId)
func (_PrivateCreditGate *PrivateCreditGateTransactorSession) ApplyFor(incomeHandle [32]byte, debtHandle [32]byte) (*types.Transaction, error) {
	return _PrivateCreditGate.Contract.ApplyFor(&_PrivateCreditGate.TransactOpts, incomeHandle, debtHandle)
}

// Settle is a paid mutator transaction binding the contract method 0x987757dd.
//
// Solidity: function settle(bytes32 requestId) returns(bool approved)
func (_PrivateCreditGate *PrivateCreditGateTransactor) Settle(opts *bind.TransactOpts, requestId [32]byte) (*types.Transaction, error) {
	return _PrivateCreditGate.contract.Transact(opts, "settle", requestId)
}

// Settle is a paid mutator transaction binding the contract method 0x987757dd.
//
// Solidity: function settle(bytes32 requestId) returns(bool approved)
func (_PrivateCreditGate *PrivateCreditGateSession) Settle(requestId [32]byte) (*types.Transaction, error) {
	return _PrivateCreditGate.Contract.Settle(&_PrivateCreditGate.TransactOpts, requestId)
}

// Settle is a paid mutator transaction binding the contract method 0x987757dd.
//
// Solidity: function settle(bytes32 requestId) returns(bool approved)
func (_PrivateCreditGate *PrivateCreditGateTransactorSession) Settle(requestId [32]byte) (*types.Transaction, error) {
	return _PrivateCreditGate.Contract.Settle(&_PrivateCreditGate.TransactOpts, requestId)
}

// WithdrawRefund is a paid mutator transaction binding the contract method 0x110f8874.
//
// Solidity: function withdrawRefund() returns()
func (_PrivateCreditGate *PrivateCreditGateTransactor) WithdrawRefund(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _PrivateCreditGate.contract.Transact(opts, "withdrawRefund")
}

// WithdrawRefund is a paid mutator transaction binding the contract method 0x110f8874.
//
// Solidity: function withdrawRefund() returns()
func (_PrivateCreditGate *PrivateCreditGateSession) WithdrawRefund() (*types.Transaction, error) {
	return _PrivateCreditGate.Contract.WithdrawRefund(&_PrivateCreditGate.TransactOpts)
}

// WithdrawRefund is a paid mutator transaction binding the contract method 0x110f8874.
//
// Solidity: function withdrawRefund() returns()
func (_PrivateCreditGate *PrivateCreditGateTransactorSession) WithdrawRefund() (*types.Transaction, error) {
	return _PrivateCreditGate.Contract.WithdrawRefund(&_PrivateCreditGate.TransactOpts)
}

// PrivateCreditGateAppliedIterator is returned from FilterApplied and is used to iterate over the raw logs and unpacked data for Applied events raised by the PrivateCreditGate contract.
type PrivateCreditGateAppliedIterator struct {
	Event *PrivateCreditGateApplied // Event containing the contract specifics and raw log

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
func (it *PrivateCreditGateAppliedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(PrivateCreditGateApplied)
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
		it.Event = new(PrivateCreditGateApplied)
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
func (it *PrivateCreditGateAppliedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *PrivateCreditGateAppliedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// PrivateCreditGateApplied represents a Applied event raised by the PrivateCreditGate contract.
type PrivateCreditGateApplied struct {
	Applicant common.Address
	RequestId [32]byte
	Raw       types.Log // Blockchain specific contextual infos
}

// FilterApplied is a free log retrieval operation binding the contract event 0xdccfd1ecbf1966a67855915ae80920d862de428abfec0a877d6a7e8e22a631b1.
//
// Solidity: event Applied(address indexed applicant, bytes32 indexed requestId)
func (_PrivateCreditGate *PrivateCreditGateFilterer) FilterApplied(opts *bind.FilterOpts, applicant []common.Address, requestId [][32]byte) (*PrivateCreditGateAppliedIterator, error) {

	var applicantRule []interface{}
	for _, applicantItem := range applicant {
		applicantRule = append(applicantRule, applicantItem)
	}
	var requestIdRule []interface{}
	for _, requestIdItem := range requestId {
		requestIdRule = append(requestIdRule, requestIdItem)
	}

	logs, sub, err := _PrivateCreditGate.contract.FilterLogs(opts, "Applied", applicantRule, requestIdRule)
	if err != nil {
		return nil, err
	}
	return &PrivateCreditGateAppliedIterator{contract: _PrivateCreditGate.contract, event: "Applied", logs: logs, sub: sub}, nil
}

// WatchApplied is a free log subscription operation binding the contract event 0xdccfd1ecbf1966a67855915ae80920d862de428abfec0a877d6a7e8e22a631b1.
//
// Solidity: event Applied(address indexed applicant, bytes32 indexed requestId)
func (_PrivateCreditGate *PrivateCreditGateFilterer) WatchApplied(opts *bind.WatchOpts, sink chan<- *PrivateCreditGateApplied, applicant []common.Address, requestId [][32]byte) (event.Subscription, error) {

	var applicantRule []interface{}
	for _, applicantItem := range applicant {
		applicantRule = append(applicantRule, applicantItem)
	}
	var requestIdRule []interface{}
	for _, requestIdItem := range requestId {
		requestIdRule = append(requestIdRule, requestIdItem)
	}

	logs, sub, err := _PrivateCreditGate.contract.WatchLogs(opts, "Applied", applicantRule, requestIdRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(PrivateCreditGateApplied)
				if err := _PrivateCreditGate.contract.UnpackLog(event, "Applied", log); err != nil {
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

// ParseApplied is a log parse operation binding the contract event 0xdccfd1ecbf1966a67855915ae80920d862de428abfec0a877d6a7e8e22a631b1.
//
// Solidity: event Applied(address indexed applicant, bytes32 indexed requestId)
func (_PrivateCreditGate *PrivateCreditGateFilterer) ParseApplied(log types.Log) (*PrivateCreditGateApplied, error) {
	event := new(PrivateCreditGateApplied)
	if err := _PrivateCreditGate.contract.UnpackLog(event, "Applied", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// PrivateCreditGateDecisionIterator is returned from FilterDecision and is used to iterate over the raw logs and unpacked data for Decision events raised by the PrivateCreditGate contract.
type PrivateCreditGateDecisionIterator struct {
	Event *PrivateCreditGateDecision // Event containing the contract specifics and raw log

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
func (it *PrivateCreditGateDecisionIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(PrivateCreditGateDecision)
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
		it.Event = new(PrivateCreditGateDecision)
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
func (it *PrivateCreditGateDecisionIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *PrivateCreditGateDecisionIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// PrivateCreditGateDecision represents a Decision event raised by the PrivateCreditGate contract.
type PrivateCreditGateDecision struct {
	Applicant  common.Address
	RequestId  [32]byte
	Approved   bool
	CreditLine *big.Int
	Raw        types.Log // Blockchain specific contextual infos
}

// FilterDecision is a free log retrieval operation binding the contract event 0x195522eca12ab2228e5d2119c3ad8b4c4c0c32f4c9b72c864e414ab769f81421.
//
// Solidity: event Decision(address indexed applicant, bytes32 indexed requestId, bool approved, uint256 creditLine)
func (_PrivateCreditGate *PrivateCreditGateFilterer) FilterDecision(opts *bind.FilterOpts, applicant []common.Address, requestId [][32]byte) (*PrivateCreditGateDecisionIterator, error) {

	var applicantRule []interface{}
	for _, applicantItem := range applicant {
		applicantRule = append(applicantRule, applicantItem)
	}
	var requestIdRule []interface{}
	for _, requestIdItem := range requestId {
		requestIdRule = append(requestIdRule, requestIdItem)
	}

	logs, sub, err := _PrivateCreditGate.contract.FilterLogs(opts, "Decision", applicantRule, requestIdRule)
	if err != nil {
		return nil, err
	}
	return &PrivateCreditGateDecisionIterator{contract: _PrivateCreditGate.contract, event: "Decision", logs: logs, sub: sub}, nil
}

// WatchDecision is a free log subscription operation binding the contract event 0x195522eca12ab2228e5d2119c3ad8b4c4c0c32f4c9b72c864e414ab769f81421.
//
// Solidity: event Decision(address indexed applicant, bytes32 indexed requestId, bool approved, uint256 creditLine)
func (_PrivateCreditGate *PrivateCreditGateFilterer) WatchDecision(opts *bind.WatchOpts, sink chan<- *PrivateCreditGateDecision, applicant []common.Address, requestId [][32]byte) (event.Subscription, error) {

	var applicantRule []interface{}
	for _, applicantItem := range applicant {
		applicantRule = append(applicantRule, applicantItem)
	}
	var requestIdRule []interface{}
	for _, requestIdItem := range requestId {
		requestIdRule = append(requestIdRule, requestIdItem)
	}

	logs, sub, err := _PrivateCreditGate.contract.WatchLogs(opts, "Decision", applicantRule, requestIdRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(PrivateCreditGateDecision)
				if err := _PrivateCreditGate.contract.UnpackLog(event, "Decision", log); err != nil {
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

// ParseDecision is a log parse operation binding the contract event 0x195522eca12ab2228e5d2119c3ad8b4c4c0c32f4c9b72c864e414ab769f81421.
//
// Solidity: event Decision(address indexed applicant, bytes32 indexed requestId, bool approved, uint256 creditLine)
func (_PrivateCreditGate *PrivateCreditGateFilterer) ParseDecision(log types.Log) (*PrivateCreditGateDecision, error) {
	event := new(PrivateCreditGateDecision)
	if err := _PrivateCreditGate.contract.UnpackLog(event, "Decision", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
