// @fhegate/client against a running devnet (skipped unless FHEGATE_RPC_URL
// and FHEGATE_COMMITTEE_API are set; examples/run.sh sets them): every
// ethers helper on real attestations — registerBatch + evaluate,
// registerSet + evaluate, evaluateAttested, evaluateRooted with scalar and
// with vector inputs — each sending FHEPolicy.depositOf as its deposit and
// each verdict checked against the credit policy on the plaintexts
// (approved iff income > 3·debt) and the deposits refunded (DepositsSettled); and one policy over wide
// integers (amounts/bid_reserve: two uint16 amounts, each as four base-16
// digits, in one vector input with one proof), checked against bid ≥ reserve.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ethers } from "ethers";
import { Committee, readerKeys, readPrivate } from "../dist/index.js";
import { depositOf, depositOutcome, evaluate, evaluateAttested, evaluateRooted, precompiles, registerBatch, registerSet, waitForVerdict } from "../dist/ethers.js";

const rpc = process.env.FHEGATE_RPC_URL;
const api = process.env.FHEGATE_COMMITTEE_API;
const apis = (process.env.FHEGATE_COMMITTEE_APIS || "").split(",").filter(Boolean);
const here = path.dirname(fileURLToPath(import.meta.url));
const SPEC = readFileSync(path.resolve(here, "..", "..", "..", "examples", "creditgate", "credit_policy.yaml"));
const WIDE = readFileSync(path.resolve(here, "..", "..", "..", "policy", "examples", "amounts", "bid_reserve.yaml"));
// Dev account 3 of `fhegate devnet` (examples/js and examples/web use account 1).
const KEY = "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6";

test("every ethers helper on a devnet, verdicts checked against the plaintext policy", { skip: !rpc || !api ? "set FHEGATE_RPC_URL and FHEGATE_COMMITTEE_API" : false, timeout: 600_000 }, async () => {
  const provider = new ethers.JsonRpcProvider(rpc, undefined, { pollingInterval: 250 });
  const wallet = new ethers.NonceManager(new ethers.Wallet(KEY, provider));
  const owner = await wallet.getAddress();
  const { input, policy, verdict } = precompiles(wallet);
  const committee = new Committee(api);
  await (await policy.registerPolicy(SPEC)).wait();
  const policyId = await policy.registerPolicy.staticCall(SPEC);
  const deposit = await depositOf(policy, policyId);
  const from = await provider.getBlockNumber();
  assert.ok(deposit > 0n, "the credit policy is packed: its requests carry a deposit");
  const cases = [
    { name: "registerBatch + evaluate", income: 5, debt: 1, run: async (a) => (await registerBatch(input, a), evaluate(policy, policyId, a.handles)) },
    { name: "registerSet + evaluate", income: 2, debt: 1, run: async (a) => (await registerSet(input, a), evaluate(policy, policyId, a.handles)) },
    { name: "evaluateAttested", income: 7, debt: 2, run: (a) => evaluateAttested(policy, policyId, a) },
    { name: "evaluateRooted", income: 6, debt: 2, rooted: true, run: (a) => evaluateRooted(policy, policyId, a) },
    { name: "evaluateRooted, one vector input", income: 4, debt: 1, rooted: true, vector: true, run: (a) => evaluateRooted(policy, policyId, a) },
  ];
  const pending = [];
  for (const c of cases) {
    const a = await committee.submit(owner, [c.income, c.debt], { rooted: !!c.rooted, vector: !!c.vector });
    assert.equal(a.handles.length, c.vector ? 1 : 2, c.name);
    if (c.rooted) assert.ok(a.root, `${c.name}: the committee answered no input root`);
    const r = await c.run(a);
    assert.equal(r.deposit, deposit, `${c.name}: the deposit sent`);
    const { requestId } = r;
    pending.push(waitForVerdict(verdict, requestId, { timeoutMs: 300_000 }).then((v) => ({ c, v })));
  }
  for (const { c, v } of await Promise.all(pending)) {
    assert.equal(v.result, c.income > 3 * c.debt ? 1n : 0n, `${c.name}: income ${c.income}, debt ${c.debt}`);
    assert.equal(depositOutcome(v.result), "refunded", c.name);
  }
  // FHEVerdict paid them back in the transactions that posted the verdicts
  const logs = await verdict.queryFilter(verdict.filters.DepositsSettled(policyId), from);
  const refunded = logs.reduce((n, l) => n + Number(l.args.refunded), 0);
  assert.ok(refunded >= cases.length, `DepositsSettled: ${refunded} refunds since block ${from}, want ≥ ${cases.length}`);
});

test("a policy over wide integers on a devnet: uint16 digits in one vector input, verdict = bid ≥ reserve", { skip: !rpc || !api ? "set FHEGATE_RPC_URL and FHEGATE_COMMITTEE_API" : false, timeout: 600_000 }, async () => {
  const provider = new ethers.JsonRpcProvider(rpc, undefined, { pollingInterval: 250 });
  const wallet = new ethers.NonceManager(new ethers.Wallet(KEY, provider));
  const owner = await wallet.getAddress();
  const { policy, verdict } = precompiles(wallet);
  const committee = new Committee(api);
  await (await policy.registerPolicy(WIDE)).wait();
  const policyId = await policy.registerPolicy.staticCall(WIDE);
  const bid = 1 + Math.floor(Math.random() * 65534); // 1 … 65534: reserve stays in [0, 65535]
  const pending = [];
  for (const reserve of [bid, bid - 1 + 2 * Math.floor(Math.random() * 2)]) { // equal; then one apart either way
    const a = await committee.submit(owner, [bid, reserve], { policy: WIDE, rooted: true });
    assert.equal(a.handles.length, 1, "one vector input");
    const { requestId } = await evaluateRooted(policy, policyId, a);
    pending.push(waitForVerdict(verdict, requestId, { timeoutMs: 300_000 }).then((v) => ({ reserve, v })));
  }
  for (const { reserve, v } of await Promise.all(pending)) {
    assert.equal(v.result, bid >= reserve ? 1n : 0n, `bid ${bid}, reserve ${reserve}`);
  }
});

test("a private read on a devnet, as docs/private-reads.md shows it", { skip: !rpc || apis.length === 0 ? "set FHEGATE_RPC_URL and FHEGATE_COMMITTEE_APIS" : false, timeout: 300_000 }, async () => {
  const provider = new ethers.JsonRpcProvider(rpc, undefined, { pollingInterval: 250 });
  const wallet = new ethers.NonceManager(new ethers.Wallet(KEY, provider));
  const owner = await wallet.getAddress();
  const { input } = precompiles(wallet);
  const committee = new Committee(apis[0]);
  const a = await committee.submit(owner, [1234, -56]);
  await registerBatch(input, a);
  const keys = await readerKeys(committee); // the committee's preset (bgv-n14-t65537 on the devnet)
  const values = await readPrivate(apis, { handle: a.handles[0], keys, signer: wallet });
  assert.equal(values[0], 1234n);
  const other = await readPrivate(apis, { handle: a.handles[1], keys, signer: wallet });
  assert.equal(other[0], -56n);
});
