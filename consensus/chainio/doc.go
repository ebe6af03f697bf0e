// Package chainio is the committee's input and output on the chain: the
// requests it reads from accepted blocks (Request: FHEPolicy and FHECRDT
// events, and block marks), the verdicts it posts (Verdict, VerdictBatch,
// with the digests the members sign), the adapter that connects a member
// to a chain (ChainAdapter, BlockMaker, CommitteeKeyRegistry; the JSON-RPC
// one is package consensus/chain, the in-memory one consensus/local's
// MemChain), and the formation of packed batches from requests (Batcher,
// PackedBatch), which is a function of accepted blocks only, so that every
// member forms the same batches (batch.go).
package chainio
