// Package eval evaluates compiled policy plans (package policy) on encrypted
// inputs, through package fhe only.
//
// Layout: inputs[j] encrypts input j of the plan; slot i of every input is
// decision i, so one Evaluate call decides up to plan.Slots requests (16384 on
// BGVN14) and returns one ciphertext whose slot i is verdict i. Every op is a
// deterministic fhe.Evaluator call (no randomness, no clock, no map order), so
// equal inputs give byte-equal verdict ciphertexts on every machine and for
// every Options.Parallel.
//
// API for the committee:
//
//	plan, _ := policy.Compile(spec)                       // or from the registry
//	keys needed: relinearisation key; rotations plan.GaloisRotations() (none)
//	if err := eval.Check(plan, ev, inputs); err != nil {…} // typed: ErrPreset, ErrArity, *InputError
//	out, err := eval.EvaluateWith(ctx, plan, ev, inputs, eval.Options{Refresh: mpcRefresh})
//	outs, err := eval.EvaluateBatch(ctx, plan, ev, sets, eval.Options{Parallel: n})
//
// Plans with plan.NeedsRefresh need Options.Refresh (the committee's
// collective bootstrapping); without it Evaluate returns ErrNeedsRefresh.
// The plaintext reference is plan.EvalPlain, with identical semantics
// (including inputs outside their declared range).
//
// Gathered evaluation (Options.Gather) is for a GPU gate: a GPU pays a
// kernel launch and a PCIe round trip per batch, so it needs many
// polynomials per call, while one key switch hands it only its own
// (≈ 10 per-limb polynomials at N = 2^14). The plan is a DAG; with Gather
// every op is a participant of one engine.Gather and starts as soon as its
// operands are ready, and fhe's polynomial evaluation forks the
// independent products of its power basis and of its giant steps the same
// way. A participant that hands the engine a batch of transforms waits
// until no participant can add to the round, and the round goes to the
// router as one call: the transforms of every key switch and rescale at
// the same step of the same depth level. CPU work is unchanged (width
// max(Parallel, 1) runs at once) and so are the bytes: each transform is
// the one the sequential evaluation runs, only batched with others.
package eval
