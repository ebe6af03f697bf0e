// Package corebackends connects the precompile core's PolicyCompiler and
// CRDTMerger interfaces to fhegate's real implementations: package policy
// (policy spec → BGV plan: hash, depth, gas, inputs) and package fhe/crdt/meta
// (public CRDT metadata: canonical encoding and the pointwise-max join, see its
// doc for the lattice argument). Neither imports package fhe or Lattigo, so a
// validator's precompiles stay free of FHE code.
//
// Wire them once at start-up, before any chain is created:
//
//	subnetevm.SetBackends(corebackends.Policy{}, corebackends.CRDTMeta{})
package corebackends
