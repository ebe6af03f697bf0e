// Package policy compiles declarative access/risk policies over encrypted
// integers into deterministic BGV evaluation plans with a known depth, cost
// and gas. It does not import package fhe or Lattigo: the on-chain policy
// registry (precompiles/) calls Compile to register a policy, and the
// committee evaluates the plan with policy/eval.
//
// # Language
//
// A policy is a YAML (or JSON) document:
//
//	fhegate_policy: 1                 # schema version (required)
//	name: kyc-aml                     # [a-z_][a-z0-9_-]*
//	preset: auto                      # optional: auto | bgv-n13-t65537 | bgv-n14-t65537
//	inputs:                           # encrypted integers with declared ranges, in order
//	  - {name: age, min: 0, max: 127}
//	  - {name: income, type: uint32, max: 1000000}  # a wide unsigned integer (uint8 … uint64)
//	constants:                        # public integers and sets
//	  adult: 18
//	  sanctioned: [7, 19, 23]
//	let:                              # named intermediate expressions, in order
//	  - {name: risk, expr: "16*pep + 6*adverse + 8*jur"}
//	output:
//	  type: bool                      # or: score, with min and max
//	  expr: "age >= adult && country not in sanctioned && risk < 60"
//
// The schema is policy/schema.json (JSON Schema 2020-12; YAML documents follow it too).
//
// Expressions: integer literals, names, + − ×, comparisons == != < <= > >=,
// membership "x in {1, 2, 5..9}" / "x not in set", && / and, || / or, ! / not,
// if(cond, then, else) and parentheses. Booleans are the integers 0 and 1; an
// integer known to be 0 or 1 (e.g. an input declared 0..1) is a boolean.
// Errors are *Error values naming the line, column and field, wrapping one of
// ErrSyntax, ErrSchema, ErrUndeclared, ErrType, ErrRange, ErrTooDeep.
//
// # Compilation (the math)
//
// Slots hold integers mod t = 65537 (BGV, SIMD batching: slot i of input
// ciphertext j is attribute j of decision i, so one evaluation decides up to
// 8192 (BGVN13) or 16384 (BGVN14) requests at once; plans are slot-wise and
// need no rotations).
//
//   - Affine forms c + Σ wᵢ·xᵢ (weighted sums, constants, NOT = 1 − b) cost
//     no level: ct×constant and additions.
//   - Every comparison and membership is an exact polynomial over the operand's
//     declared value set D (tracked by interval and bitset analysis through
//     the expression): the unique polynomial of degree < |D| interpolating the
//     predicate on D modulo t (Lagrange interpolation mod t). x ≥ c over 0..127
//     is a degree-127 polynomial, depth 7; a ≤ b becomes (a − b) ≤ 0 over the
//     value set of a − b. This is the interpolation approach to BGV/BFV
//     comparison of Iliashenko and Zucca, "Faster homomorphic comparison
//     operations for BGV and BFV", PoPETs 2021(3), specialised to the
//     declared range instead of all of Z_t.
//   - Fusion: everything that is a function of one base affine form (several
//     comparisons of the same input, its memberships, their AND/OR/NOT,
//     if-then-else, products of the input with itself) is tabulated on the
//     base's value set and costs ONE polynomial, whatever its size.
//   - Polynomials are evaluated with the baby-step giant-step form of the
//     Paterson–Stockmeyer algorithm (M. S. Paterson, L. J. Stockmeyer, "On the
//     number of nonscalar multiplications necessary to evaluate polynomials",
//     SIAM J. Comput. 2(1), 1973) as implemented by Lattigo's
//     circuits/.../polynomial evaluator (fhe.Evaluator.EvalPolyInts):
//     ⌈log2(d+1)⌉ levels and O(√d) ct×ct products for degree d.
//   - Booleans over different bases combine as 0/1 arithmetic: AND = product,
//     OR = 1 − Π(1 − bᵢ), NOT = 1 − b. n-ary AND/OR chains multiply in a
//     depth-balanced tree (always the two shallowest operands first), so k
//     predicates of depths dᵢ cost ⌈log2 Σ 2^dᵢ⌉ levels.
//   - Noise: a weighted sum multiplies the noise by Σ|wᵢ|. Above NoiseBudget
//     (8, measured) the compiler multiplies the sum by the all-ones plaintext
//     and rescales (OpRescale, one level) before it enters a polynomial or a
//     product; below it costs nothing.
//
// Refresh floor: the committee's collective refresh floods its input's
// masked decryption and needs the input at a level with room for that
// flooding (noise.RefreshFloorLevel: level 1 on both public
// presets, PresetInfo.RefreshFloor). Every register of a plan therefore
// stays at level ≥ the floor: a segment between refreshes (or from the
// inputs) consumes at most Depth − RefreshFloor levels (PresetInfo.Budget:
// 3 on BGVN13, 8 on BGVN14), which covers the refresh points and the
// committee's refresh of the result before its mask alike.
//
// # Wide integers (uint8 … uint64): amounts, balances, codes
//
// A single comparison polynomial is limited to 2^Budget values (256 at
// depth 8), and digit extraction from one slot costs a degree-(t−1)
// polynomial, so an input declared {type: uint8 | uint16 | uint32 |
// uint64, max: M} is encrypted by the client as ⌈bits(M)/4⌉ base-16 digits,
// each one plan input ("name.0" least significant … "name.k"), all carried in
// ONE vector input under one proof (Plan.DecisionRow splits a value;
// `fhegate encrypt --policy … --vector`, fheclient.UploadDecision).
// Comparisons (with constants up to 2^64 − 1 and with each other) run
// digit-wise after Iliashenko–Zucca: per digit a degree-≤30 lt/eq pair,
// combined by a balanced (L, E) tree; sums are exact (carry look-ahead, the
// width grows by one digit — the overflow rule: never wraps, refused past
// 128 bits); k·x for a constant k splits nibble products into low and high
// digits; x ∈ S for x ≤ 16 bits evaluates S's vanishing polynomial in
// chunks and maps it to 0/1 with z^(t−1). A wide subtraction is
// compiled only directly in a comparison, by moving the subtracted terms to
// the other side (a − b ≥ c as a ≥ b + c: exact, a negative difference
// compares as negative); products of two
// encrypted wide values are refused. docs/derivations.md ("Wide integers")
// has the math, the costs and what an out-of-range digit (≥ 16) can do: only
// garble its own request's verdict. Plans over wide integers also track BGV scale classes (a sum of
// differently rescaled registers costs ≈ √t noise per class, Lattigo's
// scale matching): see ScaleMatchNoise.
//
// The plan records its depth, the ct×ct / ct×constant / ct×plaintext /
// rotation counts (Counts), and the preset it needs: BGVN13 if the depth is
// ≤ 3, BGVN14 if ≤ 8, else BGVN14 with refresh points: the registers marked
// Op.Refresh must be refreshed (the committee's MPC bootstrap) before use.
// A single polynomial deeper than the deepest preset's budget (operand value
// set of more than 256 values) cannot be split and is rejected with
// ErrTooDeep.
//
// Determinism: the plan is built by a deterministic walk of the document (no
// map iteration, no floats), and its canonical bytes (CanonicalBytes) contain
// only integers and names; Hash = keccak256(canonical bytes). Gas is integer
// arithmetic over the committed cost table (costs.json, measured by
// policy/eval TestMeasureCosts, see docs/gas-policy.md).
//
// # Out-of-range input (declared behaviour)
//
// The polynomials are only defined on the declared ranges. For an encrypted
// input outside its declared range (the client encrypted, say, age = 200 for
// an input declared 0..127) the verdict is the plan evaluated over Z_t — a
// deterministic residue, exactly what EvalPlain returns for the same input,
// on every validator — but it is NOT guaranteed to be 0 or 1: in general it
// is an arbitrary element of [−32768, 32768] (TestOutOfRange proves both
// statements on an example). Consumers must therefore treat any verdict
// other than exactly 1 as a denial (Approved), and range enforcement belongs
// to the input layer (a range proof with the ciphertext); a plan cannot
// detect an out-of-range input, since a polynomial that is 0/1 on all of Z_t
// would have degree up to t − 1.
//
// # References
//
//   - M. S. Paterson, L. J. Stockmeyer, SIAM J. Comput. 2(1):60–66, 1973.
//   - I. Iliashenko, V. Zucca, "Faster homomorphic comparison operations for
//     BGV and BFV", PoPETs 2021(3):246–264 (ePrint 2021/315).
//   - Lattigo v6 (tuneinsight/lattigo/v6 v6.2.0): circuits/common/polynomial,
//     baby-step giant-step evaluation with bignum.OptimalSplit.
//   - Z. Brakerski, C. Gentry, V. Vaikuntanathan, "(Leveled) fully
//     homomorphic encryption without bootstrapping", ITCS 2012 (BGV).
package policy
