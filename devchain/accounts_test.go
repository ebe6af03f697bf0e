package devchain

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha512"
	"encoding/binary"
	"math/big"
	"testing"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"
	"github.com/stretchr/testify/require"
)

// testMnemonic is Hardhat's and Anvil's default mnemonic.
const testMnemonic = "test test test test test test test test test test test junk"

// deriveHardhatKey derives m/44'/60'/0'/0/index from testMnemonic (BIP39 seed
// without passphrase, BIP32 secp256k1 derivation), the way Hardhat and Anvil
// make their default accounts.
func deriveHardhatKey(t *testing.T, index uint32) []byte {
	t.Helper()
	seed, err := pbkdf2.Key(sha512.New, testMnemonic, []byte("mnemonic"), 2048, 64)
	require.NoError(t, err)
	mac := hmac.New(sha512.New, []byte("Bitcoin seed"))
	mac.Write(seed)
	sum := mac.Sum(nil)
	key, chain := new(big.Int).SetBytes(sum[:32]), sum[32:]
	n := crypto.S256().Params().N
	const hardened = 0x80000000
	for _, i := range []uint32{44 + hardened, 60 + hardened, hardened, 0, index} {
		var data []byte
		if i >= hardened {
			data = append([]byte{0}, common.LeftPadBytes(key.Bytes(), 32)...)
		} else {
			priv, err := crypto.ToECDSA(common.LeftPadBytes(key.Bytes(), 32))
			require.NoError(t, err)
			data = crypto.CompressPubkey(&priv.PublicKey)
		}
		data = binary.BigEndian.AppendUint32(data, i)
		mac := hmac.New(sha512.New, chain)
		mac.Write(data)
		sum := mac.Sum(nil)
		key = new(big.Int).Add(new(big.Int).SetBytes(sum[:32]), key)
		key.Mod(key, n)
		chain = sum[32:]
	}
	return common.LeftPadBytes(key.Bytes(), 32)
}

// TestWellKnownAddressesAreTheHardhatAccounts derives Hardhat's twenty
// default accounts from the test mnemonic: dev0…dev9 are accounts 0–9, and
// WellKnownAddresses lists all twenty, plus ewoq.
func TestWellKnownAddressesAreTheHardhatAccounts(t *testing.T) {
	accts := DevAccounts()
	var derived []common.Address
	for i := uint32(0); i < 20; i++ {
		k := deriveHardhatKey(t, i)
		priv, err := crypto.ToECDSA(k)
		require.NoError(t, err)
		addr := crypto.PubkeyToAddress(priv.PublicKey)
		if i < 10 {
			require.Equal(t, accts[i].Address, addr, "dev%d is Hardhat account %d", i, i)
		}
		t.Logf("hardhat %2d %s", i, addr.Hex())
		derived = append(derived, addr)
	}
	known := WellKnownAddresses()
	for i, a := range derived {
		name, ok := IsWellKnownAddress(a)
		require.True(t, ok, "Hardhat account %d %s", i, a)
		require.NotEmpty(t, name)
	}
	for _, a := range accts {
		_, ok := IsWellKnownAddress(a.Address)
		require.True(t, ok, a.Name)
	}
	require.Len(t, known, 21) // Hardhat 0–19 and ewoq
	_, ok := IsWellKnownAddress(common.HexToAddress("0x00000000000000000000000000000000000000a1"))
	require.False(t, ok)
}
