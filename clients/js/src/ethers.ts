// ethers v6 helpers for the fhegate precompiles: register an attested
// upload, request an evaluation, wait for the committee's verdict.
//
//   import { precompiles, registerBatch, evaluate, waitForVerdict } from "@fhegate/client/ethers";
//   const { input, policy, verdict } = precompiles(wallet);
//   await registerBatch(input, att);
//   const { requestId } = await evaluate(policy, policyId, att.handles);
//   const { result } = await waitForVerdict(verdict, requestId);
import { Contract, type ContractRunner, type TransactionReceipt } from "ethers";
import { CRDT_ABI, INPUT_ABI, POLICY_ABI, VERDICT_ABI } from "./abi.js";
import { ADDRESSES } from "./addresses.js";
import type { Attestation } from "./index.js";

export { CRDT_ABI, INPUT_ABI, POLICY_ABI, VERDICT_ABI };

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

/** A request and the receipt that made it. */
export interface Requested {
  requestId: string;
  receipt: TransactionReceipt;
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

async function requested(policy: Contract, txp: Promise<any>): Promise<Requested> {
  const receipt = await mined(txp);
  return { requestId: requestIdOf(policy, receipt), receipt };
}

/** FHEPolicy.evaluate(policyId, handles) on registered handles. */
export function evaluate(policy: Contract, policyId: string, handles: string[]): Promise<Requested> {
  return requested(policy, policy.getFunction("evaluate")(policyId, handles));
}

/** FHEPolicy.evaluateAttested: the attestation inline, no registration (one pairing). */
export function evaluateAttested(policy: Contract, policyId: string, a: Attestation): Promise<Requested> {
  return requested(
    policy,
    policy.getFunction("evaluateAttested")(policyId, a.preset, a.handles, a.ctypes, a.proofDigests, a.signature, a.signers),
  );
}

/**
 * FHEPolicy.evaluateRooted with the attestation's input root. The root's
 * signature is left out when the chain already verified the root in this
 * epoch (the estimate without it succeeds) and sent otherwise, as the Go
 * client does.
 */
export async function evaluateRooted(policy: Contract, policyId: string, a: Attestation): Promise<Requested> {
  const r = a.root;
  if (!r) throw new Error("attestation has no input root (upload with { rooted: true })");
  const f = policy.getFunction("evaluateRooted");
  const args = (sig: string, signers: string) =>
    [policyId, a.preset, a.handles, a.ctypes, a.proofDigests, r.root, r.index, r.path, sig, signers] as const;
  try {
    await f.estimateGas(...args("0x", "0x"));
    return await requested(policy, f(...args("0x", "0x")));
  } catch (e: any) {
    if (!String(e?.shortMessage ?? e?.message ?? e).includes("is not yet verified")) throw e;
  }
  return requested(policy, f(...args(r.signature, r.signers)));
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
