// Package circuit holds what a committee member evaluates: the Circuit
// interface and its implementations (the built-in circuits, compiled policy
// plans, PolicyCircuits, and the FHECRDT value read, NewCRDT), the noise
// bounds a collective refresh is sized from (RefreshBounds, PlanBounds) and
// the packing bounds of a packed batch (PackBounds, PackLevel). Nothing here
// talks to other members: package consensus runs these circuits, supplying
// the collective refresh as a RefreshFunc.
//
// Packed batches (consensus.Member.ProcessPacked) evaluate up to Slots()
// requests of one policy at once. Slot assignment (request r's inputs
// masked to slot r, fhe.SlotPacker), refresh noise (every refresh of a
// packed batch is followed by a rescale, so the policy runs as compiled
// with MaxLevel − 1 levels: PolicyCircuits.LookupPacked) and the mask level
// (PackLevel: the lowest level at which the packed input both decrypts with
// every input at the noise its proof accepts and has room for its refresh's
// flooding, noise.RefreshFloorLevel of PackBounds) are derived in
// docs/derivations.md, "Packed batches"; TestPackLevelFloor checks its
// numbers.
package circuit
