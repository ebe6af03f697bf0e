// ethers v6 helpers for the fhegate precompiles: register an attested
// upload, request an evaluation (sending the policy's deposit), wait for the
// committee's verdict.
//
//   import { precompiles, registerBatch, evaluate, waitForVerdict } from "@fhegate/client/ethers";
//   const { input, policy, verdict } = precompiles(wallet);
//   await registerBatch(input, att);
//   const { requestId, deposit } = await evaluate(policy, policyId, att.handles);   // value: FHEPolicy.depositOf
//   const { result } = await waitForVerdict(verdict, requestId);
//   depositOutcome(result);   // "refunded" (paid back with the verdict) or "burnt" (rejected input)
import { Contract, type ContractRunner, type TransactionReceipt } from "ethers";
import { CRDT_ABI, INPUT_ABI, POLICY_ABI, VERDICT_ABI } from "./abi.js";
import { ADDRESSES } from "./addresses.js";
import type { Attestation, EvaluateOptions } from "./index.js";

export { CRDT_ABI, INPUT_ABI, POLICY_ABI, VERDICT_ABI };
export { depositOutcome, RESULT_EXPIRED, RESULT_REJECTED_INPUT, RESULT_UNEVALUABLE } from "./index.js";
export type { DepositOutcome, EvaluateOptions } from "./index.js";

export { ADDRESSES };

/** The four precompiles as ethers contracts on runner (a signer to send, a provider to read). */
export function precompiles(runner: ContractRunner | null) {
  return {
    input: new Contract(ADDRESSES.input, INPUT_ABI, runner),
    policy: new Contract(ADDRESSES.policy, POLICY_ABI, runner),
    crdt: new Contract(ADDRESSES.crdt, CRDT_ABI, runner),
    verdict: new Contract(ADDRESSES.verdict, VERDICT_ABI, runner),
  };
}

async function mined(txp: Promise<any>): Promise<TransactionReceipt> {
  const tx = await txp;
  const r: TransactionReceipt | null = await tx.wait();
  if (!r || r.status !== 1) throw new Error(`transaction ${tx.hash} reverted`);
  return r;
}

const batchArgs = (a: Attestation) => [a.owner, a.preset, a.handles, a.ctypes, a.proofDigests, a.signature, a.signers];

/** FHEInput.registerBatch(attestation): one transaction, one BLS check for every handle. */
export function registerBatch(input: Contract, a: Attestation): Promise<TransactionReceipt> {
  return mined(input.getFunction("registerBatch")(...batchArgs(a)));
}

/**
 * FHEInput.registerSet(attestation): the upload as one input set (one storage
 * slot); FHEPolicy.evaluate with exactly these handles, in order, checks it once.
 */
export function registerSet(input: Contract, a: Attestation): Promise<TransactionReceipt> {
  return mined(input.getFunction("registerSet")(...batchArgs(a)));
}

/** A request, the receipt that made it and the deposit it carried (wei). */
export interface Requested {
  requestId: string;
  receipt: TransactionReceipt;
  /**
   * The call value sent: FHEPolicy holds it until the verdict, then pays it
   * back to the sender, or burns it when the verdict is RESULT_REJECTED_INPUT
   * (depositOutcome). 0n for a policy evaluated alone.
   */
  deposit: bigint;
}

/**
 * FHEPolicy.depositOf(policyId): the exact call value evaluate,
 * evaluateAttested and evaluateRooted need for a request of the policy (wei;
 * cost × 4096 × 1 gwei for a packed policy, 0n for one evaluated alone).
 */
export async function depositOf(policy: Contract, policyId: string): Promise<bigint> {
  return BigInt(await policy.getFunction("depositOf")(policyId));
}

// the deposit to send: the caller's, else FHEPolicy.depositOf
async function depositFor(policy: Contract, policyId: string, opts: EvaluateOptions): Promise<bigint> {
  return opts.value ?? (await depositOf(policy, policyId));
}

/** The request id of the EvaluationRequested event in receipt. */
export function requestIdOf(policy: Contract, receipt: TransactionReceipt): string {
  for (const l of receipt.logs) {
    if (l.address.toLowerCase() !== ADDRESSES.policy) continue;
    const e = policy.interface.parseLog(l);
    if (e?.name === "EvaluationRequested") return e.args.requestId as string;
  }
  throw new Error(`transaction ${receipt.hash} requested no evaluation`);
}

async function requested(policy: Contract, txp: Promise<any>, deposit: bigint): Promise<Requested> {
  const receipt = await mined(txp);
  return { requestId: requestIdOf(policy, receipt), receipt, deposit };
}

/**
 * FHEPolicy.evaluate(policyId, handles) on registered handles, sending the
 * policy's deposit (FHEPolicy.depositOf, or opts.value).
 */
export async function evaluate(policy: Contract, policyId: string, handles: string[], opts: EvaluateOptions = {}): Promise<Requested> {
  const value = await depositFor(policy, policyId, opts);
  return requested(policy, policy.getFunction("evaluate")(policyId, handles, { value }), value);
}

/**
 * FHEPolicy.evaluateAttested: the attestation inline, no registration (one
 * pairing), sending the policy's deposit (FHEPolicy.depositOf, or opts.value).
 */
export async function evaluateAttested(policy: Contract, policyId: string, a: Attestation, opts: EvaluateOptions = {}): Promise<Requested> {
  const value = await depositFor(policy, policyId, opts);
  return requested(
    policy,
    policy.getFunction("evaluateAttested")(policyId, a.preset, a.handles, a.ctypes, a.proofDigests, a.signature, a.signers, { value }),
    value,
  );
}

/**
 * FHEPolicy.evaluateRooted with the attestation's input root, sending the
 * policy's deposit (FHEPolicy.depositOf, or opts.value). The root's
 * signature is left out when the chain already verified the root in this
 * epoch (the estimate without it succeeds) and sent otherwise, as the Go
 * client does.
 */
export async function evaluateRooted(policy: Contract, policyId: string, a: Attestation, opts: EvaluateOptions = {}): Promise<Requested> {
  const r = a.root;
  if (!r) throw new Error("attestation has no input root (upload with { rooted: true })");
  const value = await depositFor(policy, policyId, opts);
  const f = policy.getFunction("evaluateRooted");
  const args = (sig: string, signers: string) =>
    [policyId, a.preset, a.handles, a.ctypes, a.proofDigests, r.root, r.index, r.path, sig, signers, { value }] as const;
  try {
    await f.estimateGas(...args("0x", "0x"));
    return await requested(policy, f(...args("0x", "0x")), value);
  } catch (e: any) {
    if (!String(e?.shortMessage ?? e?.message ?? e).includes("is not yet verified")) throw e;
  }
  return requested(policy, f(...args(r.signature, r.signers)), value);
}

export interface Verdict {
  result: bigint;
  resultDigest: string;
  epoch: bigint;
}

/** Polls FHEVerdict.verdictOf(requestId) until the committee's verdict is accepted. */
export async function waitForVerdict(
  verdict: Contract,
  requestId: string,
  opts: { timeoutMs?: number; pollMs?: number; signal?: AbortSignal } = {},
): Promise<Verdict> {
  const deadline = Date.now() + (opts.timeoutMs ?? 180_000);
  for (;;) {
    opts.signal?.throwIfAborted();
    const [ready, result, resultDigest, epoch] = await verdict.getFunction("verdictOf")(requestId);
    if (ready) return { result, resultDigest, epoch };
    if (Date.now() > deadline) throw new Error(`no verdict for ${requestId} after ${opts.timeoutMs ?? 180_000} ms`);
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 250));
  }
}
