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

// FHEProbeMetaData contains all meta data concerning the FHEProbe contract.
var FHEProbeMetaData = &bind.MetaData{
	ABI: "[{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"bool\",\"name\":\"ok\",\"type\":\"bool\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"name\":\"Probed\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"target\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"},{\"internalType\":\"uint256\",\"name\":\"gasLimit\",\"type\":\"uint256\"}],\"name\":\"callWithGas\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"ok\",\"type\":\"bool\"},{\"internalType\":\"bytes\",\"name\":\"ret\",\"type\":\"bytes\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"policyId\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32[]\",\"name\":\"handles\",\"type\":\"bytes32[]\"}],\"name\":\"evaluate\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"policyId\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32[]\",\"name\":\"handles\",\"type\":\"bytes32[]\"}],\"name\":\"evaluateThenRevert\",\"outputs\":[],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"staticAllow\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"ok\",\"type\":\"bool\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"staticIsAllowed\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"transientAllowAndCheck\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	Bin: "0x6080604052348015600e575f5ffd5b506107a98061001c5f395ff3fe608060405260043610610054575f3560e01c806336d17990146100585780633a4ef53e1461008c5780633b3d753d146100ab5780637f062159146100d8578063835f9a54146100f7578063ab4f838814610118575b5f5ffd5b348015610063575f5ffd5b506100776100723660046105a8565b61012d565b60405190151581526020015b60405180910390f35b348015610097575f5ffd5b506100776100a63660046105a8565b6101aa565b3480156100b6575f5ffd5b506100ca6100c53660046105a8565b6102d6565b6040516100839291906105d2565b3480156100e3575f5ffd5b506100ca6100f2366004610610565b6103b9565b61010a610105366004610695565b61045f565b604051908152602001610083565b61012b610126366004610695565b6104da565b005b6040516382027b6d60e01b8152600481018390526001600160a01b03821660248201525f9060f0600160991b01906382027b6d90604401602060405180830381865afa15801561017f573d5f5f3e3d5ffd5b505050506040513d601f19601f820116820180604052508101906101a3919061070f565b9392505050565b604051630f8e573b60e21b8152600481018390526001600160a01b03821660248201525f9060f0600160991b0190633e395cec906044015f604051808303815f87803b1580156101f8575f5ffd5b505af115801561020a573d5f5f3e3d5ffd5b50506040516382027b6d60e01b8152600481018690526001600160a01b03851660248201525f925060f0600160991b0191506382027b6d90604401602060405180830381865afa158015610260573d5f5f3e3d5ffd5b505050506040513d601f19601f82011682018060405250810190610284919061070f565b90507fab1e30c429a1e4412e29a205fcaadb007932e2f54cbcd2352e9dbd9ac2927826816040516102c791151581526040602082018190525f9082015260600190565b60405180910390a19392505050565b604051602481018390526001600160a01b03821660448201525f9060609060f0600160991b019060640160408051601f198184030181529181526020820180516001600160e01b0316635ca4b5b160e11b17905251610335919061072e565b5f60405180830381855afa9150503d805f811461036d576040519150601f19603f3d011682016040523d82523d5f602084013e610372565b606091505b5060405191935091507fab1e30c429a1e4412e29a205fcaadb007932e2f54cbcd2352e9dbd9ac2927826906103aa90849084906105d2565b60405180910390a19250929050565b5f6060856001600160a01b03168386866040516103d7929190610744565b5f604051808303815f8787f1925050503d805f8114610411576040519150601f19603f3d011682016040523d82523d5f602084013e610416565b606091505b5060405191935091507fab1e30c429a1e4412e29a205fcaadb007932e2f54cbcd2352e9dbd9ac29278269061044e90849084906105d2565b60405180910390a194509492505050565b6040516320d7e69560e21b81525f9060f1600160991b019063835f9a5490349061049190889088908890600401610753565b60206040518083038185885af11580156104ad573d5f5f3e3d5ffd5b50505050506040513d601f19601f820116820180604052508101906104d29190610792565b949350505050565b6040516320d7e69560e21b815260f1600160991b019063835f9a5490349061050a90879087908790600401610753565b60206040518083038185885af1158015610526573d5f5f3e3d5ffd5b50505050506040513d601f19601f8201168201806040525081019061054b9190610792565b5060405162461bcd60e51b815260206004820152601260248201527170726f62653a20726f6c6c6564206261636b60701b604482015260640160405180910390fd5b80356001600160a01b03811681146105a3575f5ffd5b919050565b5f5f604083850312156105b9575f5ffd5b823591506105c96020840161058d565b90509250929050565b8215158152604060208201525f82518060408401528060208501606085015e5f606082850101526060601f19601f8301168401019150509392505050565b5f5f5f5f60608587031215610623575f5ffd5b61062c8561058d565b9350602085013567ffffffffffffffff811115610647575f5ffd5b8501601f81018713610657575f5ffd5b803567ffffffffffffffff81111561066d575f5ffd5b87602082840101111561067e575f5ffd5b949760209190910196509394604001359392505050565b5f5f5f604084860312156106a7575f5ffd5b83359250602084013567ffffffffffffffff8111156106c4575f5ffd5b8401601f810186136106d4575f5ffd5b803567ffffffffffffffff8111156106ea575f5ffd5b8660208260051b84010111156106fe575f5ffd5b939660209190910195509293505050565b5f6020828403121561071f575f5ffd5b815180151581146101a3575f5ffd5b5f82518060208501845e5f920191825250919050565b818382375f9101908152919050565b83815260406020820181905281018290525f6001600160fb1b03831115610778575f5ffd5b8260051b8085606085013791909101606001949350505050565b5f602082840312156107a2575f5ffd5b505191905056",
}

// FHEProbeABI is the input ABI used to generate the binding from.
// Deprecated: Use FHEProbeMetaData.ABI instead.
var FHEProbeABI = FHEProbeMetaData.ABI

// FHEProbeBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use FHEProbeMetaData.Bin instead.
var FHEProbeBin = FHEProbeMetaData.Bin

// DeployFHEProbe deploys a new Ethereum contract, binding an instance of FHEProbe to it.
func DeployFHEProbe(auth *bind.TransactOpts, backend bind.ContractBackend) (common.Address, *types.Transaction, *FHEProbe, error) {
	parsed, err := FHEProbeMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(FHEProbeBin), backend)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &FHEProbe{FHEProbeCaller: FHEProbeCaller{contract: contract}, FHEProbeTransactor: FHEProbeTransactor{contract: contract}, FHEProbeFilterer: FHEProbeFilterer{contract: contract}}, nil
}

// FHEProbe is an auto generated Go binding around an Ethereum contract.
type FHEProbe struct {
	FHEProbeCaller     // Read-only binding to the contract
	FHEProbeTransactor // Write-only binding to the contract
	FHEProbeFilterer   // Log filterer for contract events
}

// FHEProbeCaller is an auto generated read-only Go binding around an Ethereum contract.
type FHEProbeCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// FHEProbeTransactor is an auto generated write-only Go binding around an Ethereum contract.
type FHEProbeTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// FHEProbeFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type FHEProbeFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// FHEProbeSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type FHEProbeSession struct {
	Contract     *FHEProbe         // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// FHEProbeCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type FHEProbeCallerSession struct {
	Contract *FHEProbeCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts   // Call options to use throughout this session
}

// FHEProbeTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type FHEProbeTransactorSession struct {
	Contract     *FHEProbeTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts   // Transaction auth options to use throughout this session
}

// FHEProbeRaw is an auto generated low-level Go binding around an Ethereum contract.
type FHEProbeRaw struct {
	Contract *FHEProbe // Generic contract binding to access the raw methods on
}

// FHEProbeCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type FHEProbeCallerRaw struct {
	Contract *FHEProbeCaller // Generic read-only contract binding to access the raw methods on
}

// FHEProbeTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type FHEProbeTransactorRaw struct {
	Contract *FHEProbeTransactor // Generic write-only contract binding to access the raw methods on
}

// NewFHEProbe creates a new instance of FHEProbe, bound to a specific deployed contract.
func NewFHEProbe(address common.Address, backend bind.ContractBackend) (*FHEProbe, error) {
	contract, err := bindFHEProbe(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &FHEProbe{FHEProbeCaller: FHEProbeCaller{contract: contract}, FHEProbeTransactor: FHEProbeTransactor{contract: contract}, FHEProbeFilterer: FHEProbeFilterer{contract: contract}}, nil
}

// NewFHEProbeCaller creates a new read-only instance of FHEProbe, bound to a specific deployed contract.
func NewFHEProbeCaller(address common.Address, caller bind.ContractCaller) (*FHEProbeCaller, error) {
	contract, err := bindFHEProbe(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &FHEProbeCaller{contract: contract}, nil
}

// NewFHEProbeTransactor creates a new write-only instance of FHEProbe, bound to a specific deployed contract.
func NewFHEProbeTransactor(address common.Address, transactor bind.ContractTransactor) (*FHEProbeTransactor, error) {
	contract, err := bindFHEProbe(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &FHEProbeTransactor{contract: contract}, nil
}

// NewFHEProbeFilterer creates a new log filterer instance of FHEProbe, bound to a specific deployed contract.
func NewFHEProbeFilterer(address common.Address, filterer bind.ContractFilterer) (*FHEProbeFilterer, error) {
	contract, err := bindFHEProbe(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &FHEProbeFilterer{contract: contract}, nil
}

// bindFHEProbe binds a generic wrapper to an already deployed contract.
func bindFHEProbe(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := FHEProbeMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_FHEProbe *FHEProbeRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _FHEProbe.Contract.FHEProbeCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_FHEProbe *FHEProbeRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _FHEProbe.Contract.FHEProbeTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_FHEProbe *FHEProbeRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _FHEProbe.Contract.FHEProbeTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_FHEProbe *FHEProbeCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _FHEProbe.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_FHEProbe *FHEProbeTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _FHEProbe.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_FHEProbe *FHEProbeTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _FHEProbe.Contract.contract.Transact(opts, method, params...)
}

// StaticIsAllowed is a free data retrieval call binding the contract method 0x36d17990.
//
// Solidity: function staticIsAllowed(bytes32 handle, address account) view returns(bool)
func (_FHEProbe *FHEProbeCaller) StaticIsAllowed(opts *bind.CallOpts, handle [32]byte, account common.Address) (bool, error) {
	var out []interface{}
	err := _FHEProbe.contract.Call(opts, &out, "staticIsAllowed", handle, account)

	if err != nil {
		return *new(bool), err
	}

	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)

	return out0, err

}

// StaticIsAllowed is a free data retrieval call binding the contract method 0x36d17990.
//
// Solidity: function staticIsAllowed(bytes32 handle, address account) view returns(bool)
func (_FHEProbe *FHEProbeSession) StaticIsAllowed(handle [32]byte, account common.Address) (bool, error) {
	return _FHEProbe.Contract.StaticIsAllowed(&_FHEProbe.CallOpts, handle, account)
}

// StaticIsAllowed is a free data retrieval call binding the contract method 0x36d17990.
//
// Solidity: function staticIsAllowed(bytes32 handle, address account) view returns(bool)
func (_FHEProbe *FHEProbeCallerSession) StaticIsAllowed(handle [32]byte, account common.Address) (bool, error) {
	return _FHEProbe.Contract.StaticIsAllowed(&_FHEProbe.CallOpts, handle, account)
}

// CallWithGas is a paid mutator transaction binding the contract method 0x7f062159.
//
// Solidity: function callWithGas(address target, bytes data, uint256 gasLimit) returns(bool ok, bytes ret)
func (_FHEProbe *FHEProbeTransactor) CallWithGas(opts *bind.TransactOpts, target common.Address, data []byte, gasLimit *big.Int) (*types.Transaction, error) {
	return _FHEProbe.contract.Transact(opts, "callWithGas", target, data, gasLimit)
}

// CallWithGas is a paid mutator transaction binding the contract method 0x7f062159.
//
// Solidity: function callWithGas(address target, bytes data, uint256 gasLimit) returns(bool ok, bytes ret)
func (_FHEProbe *FHEProbeSession) CallWithGas(target common.Address, data []byte, gasLimit *big.Int) (*types.Transaction, error) {
	return _FHEProbe.Contract.CallWithGas(&_FHEProbe.TransactOpts, target, data, gasLimit)
}

// CallWithGas is a paid mutator transaction binding the contract method 0x7f062159.
//
// Solidity: function callWithGas(address target, bytes data, uint256 gasLimit) returns(bool ok, bytes ret)
func (_FHEProbe *FHEProbeTransactorSession) CallWithGas(target common.Address, data []byte, gasLimit *big.Int) (*types.Transaction, error) {
	return _FHEProbe.Contract.CallWithGas(&_FHEProbe.TransactOpts, target, data, gasLimit)
}

// Evaluate is a paid mutator transaction binding the contract method 0x835f9a54.
//
// Solidity: function evaluate(bytes32 policyId, bytes32[] handles) payable returns(bytes32)
func (_FHEProbe *FHEProbeTransactor) Evaluate(opts *bind.TransactOpts, policyId [32]byte, handles [][32]byte) (*types.Transaction, error) {
	return _FHEProbe.contract.Transact(opts, "evaluate", policyId, handles)
}

// Evaluate is a paid mutator transaction binding the contract method 0x835f9a54.
//
// Solidity: function evaluate(bytes32 policyId, bytes32[] handles) payable returns(bytes32)
func (_FHEProbe *FHEProbeSession) Evaluate(policyId [32]byte, handles [][32]byte) (*types.Transaction, error) {
	return _FHEProbe.Contract.Evaluate(&_FHEProbe.TransactOpts, policyId, handles)
}

// Evaluate is a paid mutator transaction binding the contract method 0x835f9a54.
//
// Solidity: function evaluate(bytes32 policyId, bytes32[] handles) payable returns(bytes32)
func (_FHEProbe *FHEProbeTransactorSession) Evaluate(policyId [32]byte, handles [][32]byte) (*types.Transaction, error) {
	return _FHEProbe.Contract.Evaluate(&_FHEProbe.TransactOpts, policyId, handles)
}

// EvaluateThenRevert is a paid mutator transaction binding the contract method 0xab4f8388.
//
// Solidity: function evaluateThenRevert(bytes32 policyId, bytes32[] handles) payable returns()
func (_FHEProbe *FHEProbeTransactor) EvaluateThenRevert(opts *bind.TransactOpts, policyId [32]byte, handles [][32]byte) (*types.Transaction, error) {
	return _FHEProbe.contract.Transact(opts, "evaluateThenRevert", policyId, handles)
}

// EvaluateThenRevert is a paid mutator transaction binding the contract method 0xab4f8388.
//
// Solidity: function evaluateThenRevert(bytes32 policyId, bytes32[] handles) payable returns()
func (_FHEProbe *FHEProbeSession) EvaluateThenRevert(policyId [32]byte, handles [][32]byte) (*types.Transaction, error) {
	return _FHEProbe.Contract.EvaluateThenRevert(&_FHEProbe.TransactOpts, policyId, handles)
}

// EvaluateThenRevert is a paid mutator transaction binding the contract method 0xab4f8388.
//
// Solidity: function evaluateThenRevert(bytes32 policyId, bytes32[] handles) payable returns()
func (_FHEProbe *FHEProbeTransactorSession) EvaluateThenRevert(policyId [32]byte, handles [][32]byte) (*types.Transaction, error) {
	return _FHEProbe.Contract.EvaluateThenRevert(&_FHEProbe.TransactOpts, policyId, handles)
}

// StaticAllow is a paid mutator transaction binding the contract method 0x3b3d753d.
//
// Solidity: function staticAllow(bytes32 handle, address account) returns(bool ok, bytes data)
func (_FHEProbe *FHEProbeTransactor) StaticAllow(opts *bind.TransactOpts, handle [32]byte, account common.Address) (*types.Transaction, error) {
	return _FHEProbe.contract.Transact(opts, "staticAllow", handle, account)
}

// StaticAllow is a paid mutator transaction binding the contract method 0x3b3d753d.
//
// Solidity: function staticAllow(bytes32 handle, address account) returns(bool ok, bytes data)
func (_FHEProbe *FHEProbeSession) StaticAllow(handle [32]byte, account common.Address) (*types.Transaction, error) {
	return _FHEProbe.Contract.StaticAllow(&_FHEProbe.TransactOpts, handle, account)
}

// StaticAllow is a paid mutator transaction binding the contract method 0x3b3d753d.
//
// Solidity: function staticAllow(bytes32 handle, address account) returns(bool ok, bytes data)
func (_FHEProbe *FHEProbeTransactorSession) StaticAllow(handle [32]byte, account common.Address) (*types.Transaction, error) {
	return _FHEProbe.Contract.StaticAllow(&_FHEProbe.TransactOpts, handle, account)
}

// TransientAllowAndCheck is a paid mutator transaction binding the contract method 0x3a4ef53e.
//
// Solidity: function transientAllowAndCheck(bytes32 handle, address account) returns(bool)
func (_FHEProbe *FHEProbeTransactor) TransientAllowAndCheck(opts *bind.TransactOpts, handle [32]byte, account common.Address) (*types.Transaction, error) {
	return _FHEProbe.contract.Transact(opts, "transientAllowAndCheck", handle, account)
}

// TransientAllowAndCheck is a paid mutator transaction binding the contract method 0x3a4ef53e.
//
// Solidity: function transientAllowAndCheck(bytes32 handle, address account) returns(bool)
func (_FHEProbe *FHEProbeSession) TransientAllowAndCheck(handle [32]byte, account common.Address) (*types.Transaction, error) {
	return _FHEProbe.Contract.TransientAllowAndCheck(&_FHEProbe.TransactOpts, handle, account)
}

// TransientAllowAndCheck is a paid mutator transaction binding the contract method 0x3a4ef53e.
//
// Solidity: function transientAllowAndCheck(bytes32 handle, address account) returns(bool)
func (_FHEProbe *FHEProbeTransactorSession) TransientAllowAndCheck(handle [32]byte, account common.Address) (*types.Transaction, error) {
	return _FHEProbe.Contract.TransientAllowAndCheck(&_FHEProbe.TransactOpts, handle, account)
}

// FHEProbeProbedIterator is returned from FilterProbed and is used to iterate over the raw logs and unpacked data for Probed events raised by the FHEProbe contract.
type FHEProbeProbedIterator struct {
	Event *FHEProbeProbed // Event containing the contract specifics and raw log

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
func (it *FHEProbeProbedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(FHEProbeProbed)
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
		it.Event = new(FHEProbeProbed)
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
func (it *FHEProbeProbedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *FHEProbeProbedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// FHEProbeProbed represents a Probed event raised by the FHEProbe contract.
type FHEProbeProbed struct {
	Ok   bool
	Data []byte
	Raw  types.Log // Blockchain specific contextual infos
}

// FilterProbed is a free log retrieval operation binding the contract event 0xab1e30c429a1e4412e29a205fcaadb007932e2f54cbcd2352e9dbd9ac2927826.
//
// Solidity: event Probed(bool ok, bytes data)
func (_FHEProbe *FHEProbeFilterer) FilterProbed(opts *bind.FilterOpts) (*FHEProbeProbedIterator, error) {

	logs, sub, err := _FHEProbe.contract.FilterLogs(opts, "Probed")
	if err != nil {
		return nil, err
	}
	return &FHEProbeProbedIterator{contract: _FHEProbe.contract, event: "Probed", logs: logs, sub: sub}, nil
}

// WatchProbed is a free log subscription operation binding the contract event 0xab1e30c429a1e4412e29a205fcaadb007932e2f54cbcd2352e9dbd9ac2927826.
//
// Solidity: event Probed(bool ok, bytes data)
func (_FHEProbe *FHEProbeFilterer) WatchProbed(opts *bind.WatchOpts, sink chan<- *FHEProbeProbed) (event.Subscription, error) {

	logs, sub, err := _FHEProbe.contract.WatchLogs(opts, "Probed")
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(FHEProbeProbed)
				if err := _FHEProbe.contract.UnpackLog(event, "Probed", log); err != nil {
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

// ParseProbed is a log parse operation binding the contract event 0xab1e30c429a1e4412e29a205fcaadb007932e2f54cbcd2352e9dbd9ac2927826.
//
// Solidity: event Probed(bool ok, bytes data)
func (_FHEProbe *FHEProbeFilterer) ParseProbed(log types.Log) (*FHEProbeProbed, error) {
	event := new(FHEProbeProbed)
	if err := _FHEProbe.contract.UnpackLog(event, "Probed", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
