package chainio

import (
	"context"
	"errors"
	"fmt"
)

// CommitteeKeyRegistry is the part of the chain that binds each epoch's
// collective FHE public key (FHEVerdict.setCommitteeKey and
// committeeKeyOf). MemChain and the JSON-RPC adapter (consensus/chain)
// implement it.
type CommitteeKeyRegistry interface {
	// SubmitCommitteeKey posts the committee's aggregate signature
	// (signer bitmap signers) over bls.CommitteeKeyDigest(chainId, epoch,
	// pkDigest). The epoch must be the registered committee's; a digest
	// already recorded for the epoch is refused unless it is the same one
	// (idempotent resubmission).
	SubmitCommitteeKey(ctx context.Context, epoch uint64, pkDigest [32]byte, signature, signers []byte) error
	// CommitteeKeyOf returns the digest recorded for epoch (zero when none).
	CommitteeKeyOf(ctx context.Context, epoch uint64) ([32]byte, error)
}

// ErrTargetKeyNotOnChain is returned when a rotation's target key is not
// the key the chain recorded for the next epoch: old members refuse to
// re-encrypt to it.
var ErrTargetKeyNotOnChain = errors.New("consensus: re-encryption target key is not the key the chain recorded for the next committee")

// VerifyTargetKey checks that target (keccak256 of the canonical public-key
// bytes) is the key the chain recorded for epoch (the next committee's).
func VerifyTargetKey(ctx context.Context, reg CommitteeKeyRegistry, epoch uint64, target [32]byte) error {
	if reg == nil {
		return fmt.Errorf("%w: no chain to read the epoch-%d key from", ErrTargetKeyNotOnChain, epoch)
	}
	got, err := reg.CommitteeKeyOf(ctx, epoch)
	if err != nil {
		return fmt.Errorf("consensus: reading the epoch-%d committee key from the chain: %w", epoch, err)
	}
	if got == ([32]byte{}) {
		return fmt.Errorf("%w: no key recorded for epoch %d (setCommitteeKey not called yet)", ErrTargetKeyNotOnChain, epoch)
	}
	if got != target {
		return fmt.Errorf("%w: target %x, the chain recorded %x for epoch %d", ErrTargetKeyNotOnChain, target[:8], got[:8], epoch)
	}
	return nil
}

// KeyRegistryOf returns the adapter's key registry, if it has one.
func KeyRegistryOf(c ChainAdapter) (CommitteeKeyRegistry, error) {
	reg, ok := c.(CommitteeKeyRegistry)
	if !ok || reg == nil {
		return nil, fmt.Errorf("%w: the chain adapter %T cannot read committee keys", ErrTargetKeyNotOnChain, c)
	}
	return reg, nil
}
