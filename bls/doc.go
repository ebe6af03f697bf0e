// Package bls implements the committee signatures fhegate's verdict and input
// precompiles check: BLS signatures over BLS12-381 in the "minimal public key"
// variant (public keys in G1, 48 bytes compressed; signatures in G2, 96 bytes
// compressed), aggregated over a signer bitmap.
//
// Scheme: draft-irtf-cfrg-bls-signature-05, proof-of-possession ciphersuite
// BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_ (the suite Ethereum consensus and
// avalanchego use). Every registered committee key must come with a proof of
// possession (PopProve / PopVerify, DST BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_),
// which is the standard defence against rogue-key attacks on same-message
// aggregation: with PoP checked at registration, FastAggregateVerify over the
// signers' keys is sound (Ristenpart–Yilek, EUROCRYPT 2007; Boneh–Drijvers–Neven,
// ASIACRYPT 2018).
//
// All curve arithmetic comes from github.com/supranational/blst (audited, the
// library avalanchego uses); this package only fixes encodings, domains and
// the bitmap convention:
//
//   - signer bitmap: bit i (byte i/8, bit i%8, least significant bit first) set
//     means committee member i signed; bits at or beyond the committee size
//     must be zero, and the bitmap must be exactly ceil(n/8) bytes.
//   - digests (VerdictDigest, InputDigest) are keccak256 over a fixed,
//     length-delimited layout that starts with a domain tag, so a signature
//     for one purpose can never be replayed as another.
//
// Key generation is deterministic from a seed (KeyGen of the IETF draft); the
// caller supplies at least 32 bytes of secret seed material.
package bls
