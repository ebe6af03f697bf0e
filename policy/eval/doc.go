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
package eval
