// viem helpers for the fhegate precompiles, the counterparts of
// "@fhegate/client/ethers": register an attested upload, request an
// evaluation (sending the policy's deposit), wait for the committee's verdict.
//
//   import { createPublicClient, createWalletClient, http } from "viem";
//   import { registerBatch, evaluate, waitForVerdict } from "@fhegate/client/viem";
//   await registerBatch(wallet, client, att);
//   const { requestId, deposit } = await evaluate(wallet, client, policyId, att.handles);   // value: FHEPolicy.depositOf
//   const { result } = await waitForVerdict(client, requestId);
//
// wallet is a viem WalletClient with an account and a chain; client a
// PublicClient on the same chain.
import { parseEventLogs, type Hex, type PublicClient, type TransactionReceipt, type WalletClient } from "viem";
import { CRDT_ABI, INPUT_ABI, POLICY_ABI, VERDICT_ABI } from "./abi.js";
import { ADDRESSES } from "./addresses.js";
import type { Attestation, EvaluateOptions } from "./index.js";

export { ADDRESSES, CRDT_ABI, INPUT_ABI, POLICY_ABI, VERDICT_ABI };
export { depositOutcome, RESULT_EXPIRED, RESULT_REJECTED_INPUT, RESULT_UNEVALUABLE } from "./index.js";
export type { DepositOutcome, EvaluateOptions } from "./index.js";

/** The four precompiles as viem contract configurations ({ address, abi }: readContract, writeContract, getContract). */
export const precompiles = {
  input: { address: ADDRESSES.input, abi: INPUT_ABI },
  policy: { address: ADDRESSES.policy, abi: POLICY_ABI },
  crdt: { address: ADDRESSES.crdt, abi: CRDT_ABI },
  verdict: { address: ADDRESSES.verdict, abi: VERDICT_ABI },
} as const;

/** FHEInput.registerBatch's (and registerSet's) arguments from an attestation. */
export function batchArgs(a: Attestation) {
  return [a.owner as Hex, a.preset, a.handles as Hex[], a.ctypes, a.proofDigests as Hex[], a.signature as Hex, a.signers as Hex] as const;
}

async function send(wallet: WalletClient, client: PublicClient, contract: { address: Hex; abi: readonly unknown[] }, functionName: string, args: readonly unknown[], value?: bigint): Promise<TransactionReceipt> {
  if (!wallet.account) throw new Error("@fhegate/client/viem: the wallet client has no account");
  const hash = await wallet.writeContract({ ...contract, functionName, args, value, account: wallet.account, chain: wallet.chain } as any);
  const r = await client.waitForTransactionReceipt({ hash });
  if (r.status !== "success") throw new Error(`transaction ${hash} reverted`);
  return r;
}

/** FHEInput.registerBatch(attestation): one transaction, one BLS check for every handle. */
export function registerBatch(wallet: WalletClient, client: PublicClient, a: Attestation): Promise<TransactionReceipt> {
  return send(wallet, client, precompiles.input, "registerBatch", batchArgs(a));
}

/**
 * FHEInput.registerSet(attestation): the upload as one input set (one storage
 * slot); FHEPolicy.evaluate with exactly these handles, in order, checks it once.
 */
export function registerSet(wallet: WalletClient, client: PublicClient, a: Attestation): Promise<TransactionReceipt> {
  return send(wallet, client, precompiles.input, "registerSet", batchArgs(a));
}

/** A request, the receipt that made it and the deposit it carried (wei). */
export interface Requested {
  requestId: Hex;
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
export async function depositOf(client: PublicClient, policyId: string): Promise<bigint> {
  return (await client.readContract({ ...precompiles.policy, functionName: "depositOf", args: [policyId as Hex] } as any)) as bigint;
}

/** The request id of the EvaluationRequested event in receipt. */
export function requestIdOf(receipt: TransactionReceipt): Hex {
  const logs = receipt.logs.filter((l) => l.address.toLowerCase() === ADDRESSES.policy);
  for (const e of parseEventLogs({ abi: POLICY_ABI, logs, eventName: "EvaluationRequested" }) as any[]) {
    return e.args.requestId as Hex;
  }
  throw new Error(`transaction ${receipt.transactionHash} requested no evaluation`);
}

/**
 * FHEPolicy.evaluate(policyId, handles) on registered handles, sending the
 * policy's deposit (FHEPolicy.depositOf, or opts.value).
 */
export async function evaluate(wallet: WalletClient, client: PublicClient, policyId: string, handles: string[], opts: EvaluateOptions = {}): Promise<Requested> {
  const deposit = opts.value ?? (await depositOf(client, policyId));
  const receipt = await send(wallet, client, precompiles.policy, "evaluate", [policyId, handles], deposit);
  return { requestId: requestIdOf(receipt), receipt, deposit };
}

/**
 * FHEPolicy.evaluateAttested: the attestation inline, no registration (one
 * pairing), sending the policy's deposit (FHEPolicy.depositOf, or opts.value).
 */
export async function evaluateAttested(wallet: WalletClient, client: PublicClient, policyId: string, a: Attestation, opts: EvaluateOptions = {}): Promise<Requested> {
  const deposit = opts.value ?? (await depositOf(client, policyId));
  const receipt = await send(wallet, client, precompiles.policy, "evaluateAttested",
    [policyId, a.preset, a.handles, a.ctypes, a.proofDigests, a.signature, a.signers], deposit);
  return { requestId: requestIdOf(receipt), receipt, deposit };
}

/**
 * FHEPolicy.evaluateRooted with the attestation's input root, sending the
 * policy's deposit (FHEPolicy.depositOf, or opts.value). The root's
 * signature is left out when the chain already verified the root in this
 * epoch (the gas estimate without it succeeds) and sent otherwise, as the
 * Go client and the ethers helper do.
 */
export async function evaluateRooted(wallet: WalletClient, client: PublicClient, policyId: string, a: Attestation, opts: EvaluateOptions = {}): Promise<Requested> {
  const r = a.root;
  if (!r) throw new Error("attestation has no input root (upload with { rooted: true })");
  if (!wallet.account) throw new Error("@fhegate/client/viem: the wallet client has no account");
  const deposit = opts.value ?? (await depositOf(client, policyId));
  const args = (sig: string, signers: string) =>
    [policyId, a.preset, a.handles, a.ctypes, a.proofDigests, r.root, r.index, r.path, sig, signers] as const;
  let withSig = true;
  try {
    await client.estimateContractGas({ ...precompiles.policy, functionName: "evaluateRooted", args: args("0x", "0x"), value: deposit, account: wallet.account } as any);
    withSig = false;
  } catch (e: any) {
    if (!`${e?.shortMessage ?? ""} ${e?.message ?? e}`.includes("is not yet verified")) throw e;
  }
  const receipt = await send(wallet, client, precompiles.policy, "evaluateRooted", withSig ? args(r.signature, r.signers) : args("0x", "0x"), deposit);
  return { requestId: requestIdOf(receipt), receipt, deposit };
}

export interface Verdict {
  result: bigint;
  resultDigest: Hex;
  epoch: bigint;
}

/** Polls FHEVerdict.verdictOf(requestId) until the committee's verdict is accepted. */
export async function waitForVerdict(
  client: PublicClient,
  requestId: string,
  opts: { timeoutMs?: number; pollMs?: number; signal?: AbortSignal } = {},
): Promise<Verdict> {
  const timeoutMs = opts.timeoutMs ?? 180_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    opts.signal?.throwIfAborted();
    const [ready, result, resultDigest, epoch] = (await client.readContract({
      ...precompiles.verdict,
      functionName: "verdictOf",
      args: [requestId as Hex],
    } as any)) as [boolean, bigint, Hex, bigint];
    if (ready) return { result, resultDigest, epoch };
    if (Date.now() > deadline) throw new Error(`no verdict for ${requestId} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 250));
  }
}
