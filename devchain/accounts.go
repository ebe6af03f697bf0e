package devchain

import (
	"crypto/ecdsa"
	"fmt"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"
)

// Account is a development account: a well-known, public private key that the
// devnet genesis (configs/genesis-devnet.json) funds. Never use these keys on
// a network with value.
type Account struct {
	Name    string
	Key     *ecdsa.PrivateKey
	Address common.Address
}

// KeyHex is the private key as 0x-prefixed hex, as wallets import it.
func (a Account) KeyHex() string {
	return "0x" + common.Bytes2Hex(crypto.FromECDSA(a.Key))
}

// devKeys are the ten accounts of the Hardhat/Anvil test mnemonic ("test test
// … junk", m/44'/60'/0'/0/i) followed by Avalanche's "ewoq" key, which local
// avalanchego networks (and tmpnet) fund.
var devKeys = []struct{ name, hex string }{
	{"dev0", "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"},
	{"dev1", "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"},
	{"dev2", "5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"},
	{"dev3", "7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6"},
	{"dev4", "47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a"},
	{"dev5", "8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba"},
	{"dev6", "92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e"},
	{"dev7", "4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356"},
	{"dev8", "dbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97"},
	{"dev9", "2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6"},
	{"ewoq", "56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"},
}

// DevAccounts returns the development accounts, in a fixed order: dev0…dev9
// (Hardhat/Anvil accounts 0–9) and ewoq.
func DevAccounts() []Account {
	out := make([]Account, len(devKeys))
	for i, k := range devKeys {
		key, err := crypto.HexToECDSA(k.hex)
		if err != nil {
			panic("devchain: bad built-in dev key " + k.name) // constant input; covered by tests
		}
		out[i] = Account{Name: k.name, Key: key, Address: crypto.PubkeyToAddress(key.PublicKey)}
	}
	return out
}

// hardhatExtra are Hardhat's default accounts 10–19 (same mnemonic and path
// as dev0…dev9; Anvil makes only 0–9). Nothing funds them here, but their keys
// are as public as the others'.
var hardhatExtra = []string{
	"0xBcd4042DE499D14e55001CcbB24a551F3b954096",
	"0x71bE63f3384f5fb98995898A86B02Fb2426c5788",
	"0xFABB0ac9d68B0B445fB7357272Ff202C5651694a",
	"0x1CBd3b2770909D4e10f157cABC84C7264073C9Ec",
	"0xdF3e18d64BC6A983f673Ab319CCaE4f1a57C7097",
	"0xcd3B766CCDd6AE721141F452C550Ca635964ce71",
	"0x2546BcD3c84621e976D8185a91A922aE77ECEc30",
	"0xbDA5747bFD65F08deb54cb465eB87D40e51B197E",
	"0xdD2FD4581271e230360230F9337D5c0430Bf44C0",
	"0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199",
}

// WellKnownAddresses returns every address whose private key is public and
// which development tools fund: Hardhat/Anvil's default accounts 0–19 (dev0…
// dev9 among them) and ewoq. A production genesis must give none of them a
// role (fhegate plugin genesis refuses them without --dev).
func WellKnownAddresses() []common.Address {
	var out []common.Address
	for _, a := range DevAccounts() {
		out = append(out, a.Address)
	}
	for _, h := range hardhatExtra {
		out = append(out, common.HexToAddress(h))
	}
	return out
}

// IsWellKnownAddress reports whether addr is one of WellKnownAddresses, and
// names it (dev0…dev9, hardhat10…hardhat19, ewoq).
func IsWellKnownAddress(addr common.Address) (string, bool) {
	for _, a := range DevAccounts() {
		if a.Address == addr {
			return a.Name, true
		}
	}
	for i, h := range hardhatExtra {
		if common.HexToAddress(h) == addr {
			return fmt.Sprintf("hardhat%d", 10+i), true
		}
	}
	return "", false
}
