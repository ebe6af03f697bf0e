// FHEPolicy's isolation deposits, called directly (precompiles/deposit.go):
// a request of a packed policy carries exactly FHEPolicy.depositOf wei,
// FHEVerdict pays it back to the requester with the verdict (a balance
// credit: no code of the requester runs) or burns it for a rejected input,
// and logs DepositsSettled. The revert cases run on both targets (the
// deposit is checked before the ACL, so they need no registered input);
// the settlement cases force verdicts and expiry, so they need the mocks.
const hre = require("hardhat");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { fhegate } = require("../fhegate.cjs");
const { expectRevert, UNEVALUABLE, REJECTED_INPUT } = require("../fhegate-mock.cjs");

const repo = path.resolve(__dirname, "..", "..", "..");
const CHAIN = require("./chain-policies.json");
const spec = (file) => fs.readFileSync(path.join(repo, file));
const PACKED = "examples/creditgate/credit_policy.yaml"; // 2 inputs, packed: a deposit
const ALONE = "policy/examples/allowlist.yaml"; // 1 input, evaluated alone: no deposit
const GWEI = 10n ** 9n;
const onMocks = hre.network.name === "hardhat";
const mocksOnly = onMocks ? it : it.skip;

describe(`FHEPolicy deposits (${onMocks ? "precompile mocks" : `network ${hre.network.name}`})`, function () {
  let fhe, signers, alice, bob, packed, alone;
  const balance = (a) => hre.ethers.provider.getBalance(a);

  beforeEach(async function () {
    fhe = await fhegate(hre);
    signers = await hre.ethers.getSigners();
    [, alice, bob] = signers;
    for (const f of [PACKED, ALONE]) await (await fhe.policy.registerPolicy(spec(f))).wait();
    packed = CHAIN.policies.find((p) => p.file === PACKED);
    alone = CHAIN.policies.find((p) => p.file === ALONE);
  });

  // request has alice register inputs and evaluate `policy` with its deposit;
  // returns the request id, the deposit and the receipt.
  async function request(policy, values) {
    const att = await fhe.encrypt(alice, values);
    await (await fhe.input.connect(alice).registerBatch(...fhe.batchArgs(att))).wait();
    const d = await fhe.policy.depositOf(policy.policyId);
    const r = await (await fhe.policy.connect(alice).evaluate(policy.policyId, att.handles, { value: d })).wait();
    const e = r.logs.map((l) => fhe.policy.interface.parseLog(l)).find((x) => x && x.name === "EvaluationRequested");
    return { requestId: e.args.requestId, deposit: d, receipt: r };
  }

  // settled is the DepositsSettled log of a receipt, or undefined.
  const settled = (r) =>
    r.logs.map((l) => (l.address.toLowerCase() === fhe.verdict.target.toLowerCase() ? fhe.verdict.interface.parseLog(l) : null))
      .find((x) => x && x.name === "DepositsSettled");

  it("depositOf: cost × 4096 × 1 gwei for a packed policy, 0 for one evaluated alone, a revert for an unknown one", async function () {
    assert.equal(await fhe.policy.depositOf(packed.policyId), BigInt(packed.cost) * 4096n * GWEI);
    assert.equal(await fhe.policy.depositOf(alone.policyId), 0n);
    const unknown = hre.ethers.keccak256("0x03");
    await expectRevert(fhe.policy.depositOf(unknown), new RegExp(`FHEPolicy\\.depositOf: unknown policy ${unknown}`));
  });

  it("evaluate refuses no deposit, a short one and an excess, with the precompile's reason", async function () {
    const d = await fhe.policy.depositOf(packed.policyId);
    const hs = [hre.ethers.keccak256("0x04"), hre.ethers.keccak256("0x05")]; // checked after the deposit
    for (const v of [0n, d - 1n, d + 1n]) {
      await expectRevert(fhe.policy.connect(alice).evaluate(packed.policyId, hs, { value: v }),
        new RegExp(`^FHEPolicy\\.evaluate: wrong deposit: policy ${packed.policyId} takes a deposit of exactly ${d} wei ` +
          `\\(FHEPolicy\\.depositOf: refunded with the verdict, burnt when the input is rejected\\), the call carries ${v}$`));
    }
    await expectRevert(fhe.policy.connect(alice).evaluate(alone.policyId, [hs[0]], { value: 1n }),
      /^FHEPolicy\.evaluate: wrong deposit: policy 0x[0-9a-f]{64} takes a deposit of exactly 0 wei .*the call carries 1$/);
  });

  mocksOnly("holds the exact deposit at FHEPolicy and pays it back with the verdict (mocks only: verdicts on demand)", async function () {
    const before = await balance(fhe.policy.target);
    const { requestId, deposit } = await request(packed, [5, 1]);
    assert.ok(deposit > 0n);
    assert.equal(await balance(fhe.policy.target), before + deposit, "held at FHEPolicy's address");
    const aliceBefore = await balance(alice.address);
    const r = await (await fhe.verdict.connect(bob).settle(requestId, 1n)).wait();
    assert.equal(await balance(alice.address), aliceBefore + deposit, "paid back to the requester");
    assert.equal(await balance(fhe.policy.target), before);
    const e = settled(r);
    assert.deepEqual([e.args.policyId, e.args.refunded, e.args.forfeited, e.args.refundedWei, e.args.forfeitedWei],
      [packed.policyId, 1n, 0n, deposit, 0n]);
    const names = r.logs.map((l) => fhe.verdict.interface.parseLog(l)?.name);
    assert.deepEqual(names, ["DepositsSettled", "VerdictAccepted"], "the precompile's order");
  });

  mocksOnly("refunds the committee's failures: unevaluable, expired (mocks only)", async function () {
    const a = await request(packed, [5, 1]);
    let before = await balance(alice.address);
    await (await fhe.verdict.connect(bob).settle(a.requestId, UNEVALUABLE)).wait();
    assert.equal(await balance(alice.address), before + a.deposit);

    const b = await request(packed, [2, 1]);
    await hre.network.provider.send("hardhat_mine", ["0x400"]); // ExpiryBlocks = 1024
    before = await balance(alice.address);
    const r = await (await fhe.verdict.connect(bob).expire(b.requestId)).wait();
    assert.equal(await balance(alice.address), before + b.deposit, "an expired request's deposit comes back");
    assert.equal(settled(r).args.refundedWei, b.deposit);
    await expectRevert(fhe.verdict.connect(bob).expire(b.requestId), /already has a verdict/);
  });

  mocksOnly("burns the deposit of a rejected input (mocks only)", async function () {
    const { requestId, deposit } = await request(packed, [5, 1]);
    const aliceBefore = await balance(alice.address);
    const policyBefore = await balance(fhe.policy.target);
    // the mock burns through a throwaway contract created by FHEPolicy: it must keep nothing either
    const throwaway = hre.ethers.getCreateAddress({ from: fhe.policy.target, nonce: await hre.ethers.provider.getTransactionCount(fhe.policy.target) });
    const r = await (await fhe.verdict.connect(bob).settle(requestId, REJECTED_INPUT)).wait();
    assert.equal(await balance(alice.address), aliceBefore, "no refund");
    assert.equal(await balance(fhe.policy.target), policyBefore - deposit, "FHEPolicy no longer holds it");
    assert.equal(await balance(throwaway), 0n, "and nobody else does");
    const e = settled(r);
    assert.deepEqual([e.args.refunded, e.args.forfeited, e.args.refundedWei, e.args.forfeitedWei], [0n, 1n, 0n, deposit]);
  });

  mocksOnly("pays a contract requester without running its code (mocks only)", async function () {
    // FHEProbe has no receive or fallback: a plain transfer to it would revert
    const probe = await fhe.deploy("FHEProbe");
    const probeAddr = await probe.getAddress();
    const att = await fhe.encrypt(alice, [5, 1]);
    await (await fhe.input.connect(alice).registerBatch(...fhe.batchArgs(att))).wait();
    for (const h of att.handles) await (await fhe.input.connect(alice).allow(h, probeAddr)).wait();
    const d = await fhe.policy.depositOf(packed.policyId);
    const r = await (await probe.evaluate(packed.policyId, att.handles, { value: d })).wait();
    const { requestId, requester } = r.logs.map((l) => fhe.policy.interface.parseLog(l)).find((x) => x && x.name === "EvaluationRequested").args;
    assert.equal(requester, probeAddr);
    await (await fhe.verdict.settle(requestId, 0n)).wait();
    assert.equal(await balance(probeAddr), d, "credited to the probe, the caller of evaluate");
  });

  mocksOnly("a policy evaluated alone takes and settles nothing (mocks only)", async function () {
    const { requestId, deposit } = await request(alone, [1]);
    assert.equal(deposit, 0n);
    const r = await (await fhe.verdict.settle(requestId, 1n)).wait();
    assert.equal(settled(r), undefined, "no DepositsSettled");
  });

  mocksOnly("evaluateAttested and evaluateRooted take the deposit too (mocks only)", async function () {
    const d = await fhe.policy.depositOf(packed.policyId);
    const att = await fhe.encrypt(alice, [5, 1]);
    const attested = (v) => fhe.policy.connect(alice).evaluateAttested(packed.policyId, att.preset, att.handles, att.ctypes, att.proofDigests, "0x", "0x", { value: v });
    await expectRevert(attested(0n), new RegExp(`^FHEPolicy\\.evaluateAttested: wrong deposit: .* exactly ${d} wei .*the call carries 0$`));
    const rooted = (v) => fhe.policy.connect(alice).evaluateRooted(packed.policyId, att.preset, att.handles, att.ctypes, att.proofDigests,
      hre.ethers.ZeroHash, 0, [], "0x", "0x", { value: v });
    await expectRevert(rooted(d + 1n), new RegExp(`^FHEPolicy\\.evaluateRooted: wrong deposit: .* exactly ${d} wei .*the call carries ${d + 1n}$`));
    await (await attested(d)).wait();
  });

  mocksOnly("methods that hold no deposit refuse value (mocks only: Solidity's plain revert, the precompile says \"not payable\")", async function () {
    await expectRevert(fhe.policy.registerPolicy(spec(PACKED), { value: 1n }), /./);
    await expectRevert(fhe.verdict.expire(hre.ethers.ZeroHash, { value: 1n }), /./);
  });
});
