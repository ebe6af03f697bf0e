// Package corebackends connects the precompile core's PolicyCompiler and
// CRDTMerger interfaces to fhegate's real implementations: package policy
// (policy spec → BGV plan: hash, depth, gas, inputs) and package fhe/crdt/meta
// (public CRDT metadata: canonical encoding and the pointwise-max join, see its
// doc for the lattice argument). The precompile core (package precompiles)
// imports neither fhe nor Lattigo; this package does, through policy/eval:
// registering a policy applies the admission rule the committee applies too
// (eval.Admit with eval.Chain), which builds the preset's parameters (package
// fhe) to check the plan's noise estimate and refresh room. That work is
// pure arithmetic on parameters — no ciphertext is touched in a block.
//
// Wire them once at start-up, before any chain is created:
//
//	subnetevm.SetBackends(corebackends.Policy{}, corebackends.CRDTMeta{})
package corebackends
