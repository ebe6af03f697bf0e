// @fhegate/client's ethers and viem helpers (clients/js/dist, as
// fhegate-mock.cjs loads it) on the precompile mocks: evaluate,
// evaluateAttested and evaluateRooted send FHEPolicy.depositOf as the call
// value (or the caller's override), report it, and the deposit comes back
// with the verdict (burnt for a rejected input: depositOutcome). Mocks only:
// the devnet side is clients/js/test/devnet.test.mjs.
const hre = require("hardhat");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { createRequire } = require("node:module");
const { pathToFileURL } = require("node:url");
const { fhegate } = require("../fhegate.cjs");
const { expectRevert, REJECTED_INPUT } = require("../fhegate-mock.cjs");

const repo = path.resolve(__dirname, "..", "..", "..");
const clientDir = path.join(repo, "clients", "js");
const SPEC = fs.readFileSync(path.join(repo, "examples", "creditgate", "credit_policy.yaml"));
const onMocks = hre.network.name === "hardhat";

(onMocks ? describe : describe.skip)("@fhegate/client helpers send and get back deposits (precompile mocks)", function () {
  let fhe, alice, bob, policyId, d, withEthers, withViem;
  const balance = (a) => hre.ethers.provider.getBalance(a);

  before(async function () {
    const dist = (f) => import(pathToFileURL(path.join(clientDir, "dist", f)).href);
    withEthers = await dist("ethers.js");
    withViem = await dist("viem.js");
  });

  beforeEach(async function () {
    fhe = await fhegate(hre);
    [, alice, bob] = await hre.ethers.getSigners();
    await (await fhe.policy.registerPolicy(SPEC)).wait();
    policyId = await fhe.policy.registerPolicy.staticCall(SPEC);
    d = await fhe.policy.depositOf(policyId);
    assert.ok(d > 0n, "the credit policy is packed: it takes a deposit");
  });

  // attested gives alice's inputs, registered or not, with a stand-in input root
  async function attested(values, register = true) {
    const att = await fhe.encrypt(alice, values);
    if (register) await (await fhe.input.connect(alice).registerBatch(...fhe.batchArgs(att))).wait();
    return { ...att, root: { root: hre.ethers.ZeroHash, index: 0, path: [], signature: "0x", signers: "0x" } };
  }

  it("ethers: depositOf, and each evaluate helper sends exactly it", async function () {
    const { policy } = withEthers.precompiles(alice);
    assert.equal(await withEthers.depositOf(policy, policyId), d);
    const runs = [
      ["evaluate", async () => withEthers.evaluate(policy, policyId, (await attested([5, 1])).handles)],
      ["evaluateAttested", async () => withEthers.evaluateAttested(policy, policyId, await attested([5, 1], false))],
      ["evaluateRooted", async () => withEthers.evaluateRooted(policy, policyId, await attested([5, 1], false))],
    ];
    for (const [name, run] of runs) {
      const held = await balance(fhe.policy.target);
      const r = await run();
      assert.equal(r.deposit, d, name);
      assert.equal(await balance(fhe.policy.target), held + d, `${name}: FHEPolicy holds the deposit`);
      const before = await balance(alice.address);
      const result = await fhe.settle(r.requestId);
      assert.equal(result, 1n);
      assert.equal(withEthers.depositOutcome(result), "refunded");
      assert.equal(await balance(alice.address), before + d, `${name}: refunded with the verdict`);
    }
  });

  it("ethers: a caller's value overrides depositOf (and a wrong one reverts); a rejected input's deposit is burnt", async function () {
    const { policy } = withEthers.precompiles(alice);
    const att = await attested([5, 1]);
    await expectRevert(withEthers.evaluate(policy, policyId, att.handles, { value: d - 1n }), /wrong deposit: .* exactly \d+ wei .*the call carries \d+/);
    const r = await withEthers.evaluate(policy, policyId, att.handles, { value: d });
    assert.equal(r.deposit, d);
    const before = await balance(alice.address);
    const result = await fhe.settle(r.requestId, REJECTED_INPUT);
    assert.equal(withEthers.depositOutcome(result), "burnt");
    assert.equal(withEthers.RESULT_REJECTED_INPUT, REJECTED_INPUT);
    assert.equal(await balance(alice.address), before, "no refund");
  });

  it("viem: depositOf, and each evaluate helper sends exactly it", async function () {
    const req = createRequire(path.join(clientDir, "package.json"));
    const { createPublicClient, createWalletClient, custom } = req("viem");
    const { hardhat } = req("viem/chains");
    const transport = custom(hre.network.provider);
    const client = createPublicClient({ chain: hardhat, transport });
    const wallet = createWalletClient({ account: alice.address, chain: hardhat, transport });
    assert.equal(await withViem.depositOf(client, policyId), d);
    const runs = [
      ["evaluate", async () => withViem.evaluate(wallet, client, policyId, (await attested([5, 1])).handles)],
      ["evaluateAttested", async () => withViem.evaluateAttested(wallet, client, policyId, await attested([5, 1], false))],
      ["evaluateRooted", async () => withViem.evaluateRooted(wallet, client, policyId, await attested([5, 1], false))],
      ["evaluate, value given", async () => withViem.evaluate(wallet, client, policyId, (await attested([5, 1])).handles, { value: d })],
    ];
    for (const [name, run] of runs) {
      const held = await balance(fhe.policy.target);
      const r = await run();
      assert.equal(r.deposit, d, name);
      assert.equal(await balance(fhe.policy.target), held + d, `${name}: FHEPolicy holds the deposit`);
      const before = await balance(alice.address);
      await fhe.settle(r.requestId);
      assert.equal(await balance(alice.address), before + d, `${name}: refunded with the verdict`);
    }
    await expectRevert(withViem.evaluate(wallet, client, policyId, (await attested([5, 1])).handles, { value: 0n }), /wrong deposit/);
  });
});
