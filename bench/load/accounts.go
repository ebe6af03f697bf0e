package load

import (
	"context"
	"crypto/ecdsa"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"time"

	ethereum "github.com/ava-labs/libevm"
	"github.com/ava-labs/libevm/accounts/abi/bind"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/crypto"
	"github.com/ava-labs/libevm/ethclient"
)

// An account sends transactions with nonces it counts itself, so that
// several can be in flight.
type account struct {
	key   *ecdsa.PrivateKey
	addr  common.Address
	nonce uint64
}

func addrOf(k *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(k.PublicKey) }

// Funding: an account below minBalance plus the deposits of its share of
// the requests (FHEPolicy.depositOf each, locked until its verdict) is
// topped up to that plus topUp from the funder.
var (
	minBalance = new(big.Int).Mul(big.NewInt(5), big.NewInt(1e18))
	topUp      = new(big.Int).Mul(big.NewInt(20), big.NewInt(1e18))
)

// DeriveKeys returns the load accounts' keys: key i is
// keccak256("fhegate/loadgen" ‖ uint64 i), public like the dev keys (never
// fund them on a network with value).
func DeriveKeys(n int) ([]*ecdsa.PrivateKey, error) {
	if n < 1 || n > MaxAccounts {
		return nil, fmt.Errorf("load: %d accounts: want 1..%d", n, MaxAccounts)
	}
	keys := make([]*ecdsa.PrivateKey, n)
	for i := range keys {
		var idx [8]byte
		binary.BigEndian.PutUint64(idx[:], uint64(i))
		k, err := crypto.ToECDSA(crypto.Keccak256([]byte("fhegate/loadgen"), idx[:]))
		if err != nil {
			return nil, fmt.Errorf("load: account %d: %w", i, err)
		}
		keys[i] = k
	}
	return keys, nil
}

func (a *account) syncNonce(ctx context.Context, cl *ethclient.Client) error {
	n, err := cl.PendingNonceAt(ctx, a.addr)
	if err != nil {
		return fmt.Errorf("load: nonce of %s: %w", a.addr, err)
	}
	a.nonce = n
	return nil
}

// fund derives the accounts, tops up those below minBalance from the funder
// and reads their nonces.
func (g *gen) fund(ctx context.Context) ([]*account, error) {
	keys, err := DeriveKeys(g.cfg.Accounts)
	if err != nil {
		return nil, err
	}
	funder := &account{key: g.cfg.Funder, addr: addrOf(g.cfg.Funder)}
	if err := funder.syncNonce(ctx, g.cl); err != nil {
		return nil, err
	}
	dep, err := g.policy.DepositOf(&bind.CallOpts{Context: ctx}, g.policyID)
	if err != nil {
		return nil, fmt.Errorf("load: FHEPolicy.depositOf: %w", err)
	}
	g.deposits = Deposits{PerRequestWei: dep.String(), refundedWei: new(big.Int), forfeitedWei: new(big.Int)}
	perAccount := (g.cfg.Requests + len(keys) - 1) / len(keys)
	need := new(big.Int).Add(minBalance, new(big.Int).Mul(dep, big.NewInt(int64(perAccount))))
	accts := make([]*account, len(keys))
	var sent []common.Hash
	for i, k := range keys {
		a := &account{key: k, addr: addrOf(k)}
		accts[i] = a
		if err := a.syncNonce(ctx, g.cl); err != nil {
			return nil, err
		}
		bal, err := g.cl.BalanceAt(ctx, a.addr, nil)
		if err != nil {
			return nil, fmt.Errorf("load: balance of %s: %w", a.addr, err)
		}
		if bal.Cmp(need) >= 0 {
			continue
		}
		h, err := g.transfer(ctx, funder, a.addr, new(big.Int).Add(new(big.Int).Sub(need, bal), topUp))
		if err != nil {
			return nil, fmt.Errorf("load: funding %s from %s: %w", a.addr, funder.addr, err)
		}
		sent = append(sent, h)
	}
	if len(sent) > 0 {
		if _, err := g.receipts(ctx, sent); err != nil {
			return nil, fmt.Errorf("load: funding: %w", err)
		}
		g.progressf("load: funded %d accounts from %s\n", len(sent), funder.addr)
	}
	return accts, nil
}

// transfer sends value from a to to (dynamic fee: twice the base fee plus
// the suggested tip).
func (g *gen) transfer(ctx context.Context, a *account, to common.Address, value *big.Int) (common.Hash, error) {
	tip, err := g.cl.SuggestGasTipCap(ctx)
	if err != nil {
		return common.Hash{}, err
	}
	head, err := g.cl.HeaderByNumber(ctx, nil)
	if err != nil {
		return common.Hash{}, err
	}
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: g.chainID, Nonce: a.nonce, GasTipCap: tip, GasFeeCap: feeCap,
		Gas: 21000, To: &to, Value: value})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(g.chainID), a.key)
	if err != nil {
		return common.Hash{}, err
	}
	if err := g.cl.SendTransaction(ctx, signed); err != nil {
		return common.Hash{}, err
	}
	a.nonce++
	return signed.Hash(), nil
}

// transact sends the transaction build makes, from a with a's next nonce
// (gas estimated by the binding, so a revert is reported with its reason
// before anything is sent).
func (g *gen) transact(a *account, build func(*bind.TransactOpts) (*types.Transaction, error)) (common.Hash, error) {
	o, err := bind.NewKeyedTransactorWithChainID(a.key, g.chainID)
	if err != nil {
		return common.Hash{}, err
	}
	o.Nonce = new(big.Int).SetUint64(a.nonce)
	tx, err := build(o)
	if err != nil {
		return common.Hash{}, err
	}
	a.nonce++
	return tx.Hash(), nil
}

// receipts waits until the last of hashes is mined (they come from one
// sender with consecutive nonces, so the others are mined by then) and
// returns every receipt; a failed transaction is an error.
func (g *gen) receipts(ctx context.Context, hashes []common.Hash) ([]*types.Receipt, error) {
	if len(hashes) == 0 {
		return nil, nil
	}
	if _, err := g.waitReceipt(ctx, hashes[len(hashes)-1]); err != nil {
		return nil, err
	}
	out := make([]*types.Receipt, len(hashes))
	for i, h := range hashes {
		r, err := g.waitReceipt(ctx, h)
		if err != nil {
			return nil, err
		}
		if r.Status != types.ReceiptStatusSuccessful {
			return nil, fmt.Errorf("transaction %s failed (block %d)", h, r.BlockNumber)
		}
		out[i] = r
	}
	return out, nil
}

func (g *gen) waitReceipt(ctx context.Context, h common.Hash) (*types.Receipt, error) {
	for {
		r, err := g.cl.TransactionReceipt(ctx, h)
		if err == nil {
			return r, nil
		}
		if !errors.Is(err, ethereum.NotFound) {
			return nil, fmt.Errorf("receipt of %s: %w", h, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("transaction %s not mined: %w", h, ctx.Err())
		case <-time.After(g.cfg.Poll):
		}
	}
}
