// PrivateCreditGate on the precompile mocks: the gate's own logic (owner
// binding, one request per handle pair, settle once, the decision) and its
// use of FHEInput / FHEPolicy / FHEVerdict, in milliseconds per case. The
// committee's verdict is the credit policy evaluated on the plaintexts.
const hre = require("hardhat");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { installMocks, expectRevert } = require("../fhegate-mock.cjs");

const SPEC = fs.readFileSync(path.resolve(__dirname, "..", "..", "..", "examples", "creditgate", "credit_policy.yaml"));
// The policy's expression, "income > 3*debt", on plaintexts: what the committee computes.
const creditPolicy = ([income, debt]) => (income > 3n * debt ? 1n : 0n);
const LIMIT = 1000n;

describe("PrivateCreditGate (mock precompiles)", function () {
  let fhe, gate, alice, bob;

  beforeEach(async function () {
    fhe = await installMocks(hre, { reset: true });
    [, alice, bob] = await hre.ethers.getSigners();
    gate = await fhe.deploy("PrivateCreditGate", [SPEC, LIMIT]);
  });

  // apply runs the applicant's side: inputs, registration, allowing the gate, applyFor.
  async function apply(who, income, debt) {
    const att = await fhe.encrypt(who, [income, debt]);
    await (await fhe.input.connect(who).registerBatch(...fhe.batchArgs(att))).wait();
    for (const h of att.handles) await (await fhe.input.connect(who).allow(h, await gate.getAddress())).wait();
    const r = await (await gate.connect(who).applyFor(att.handles[0], att.handles[1])).wait();
    const applied = r.logs.map((l) => gate.interface.parseLog(l)).find((e) => e && e.name === "Applied");
    return { att, requestId: applied.args.requestId };
  }

  for (const tc of [
    { name: "approves income 5, debt 1", income: 5, debt: 1, approved: true },
    { name: "denies income 2, debt 1", income: 2, debt: 1, approved: false },
    { name: "denies income 3, debt 1 (not strictly more)", income: 3, debt: 1, approved: false },
    { name: "approves income 1, debt 0", income: 1, debt: 0, approved: true },
  ]) {
    it(tc.name, async function () {
      const { requestId } = await apply(alice, tc.income, tc.debt);
      assert.deepEqual(await fhe.requestInputs(requestId), [BigInt(tc.income), BigInt(tc.debt)]);
      await expectRevert(gate.settle(requestId), { on: gate, error: "VerdictNotReady", args: [requestId] });
      assert.equal(await fhe.settle(requestId, creditPolicy), tc.approved ? 1n : 0n);
      await (await gate.settle(requestId)).wait();
      assert.equal(await gate.creditLine(alice.address), tc.approved ? LIMIT : 0n);
      await expectRevert(gate.settle(requestId), { on: gate, error: "AlreadySettled", args: [requestId] });
    });
  }

  it("settles by the policy's own compiled plan (no reference function)", async function () {
    // The spec the gate registered, compiled by the Go compiler in @fhegate/client's wasm core.
    const { plan } = await fhe.plan(await gate.policyId());
    assert.equal(plan.name, "credit-gate-example");
    assert.equal(plan.inputs, 2);
    assert.deepEqual(plan.declared, ["income", "debt"]);
    assert.match(plan.planHash, /^0x[0-9a-f]{64}$/);
    const signers = await hre.ethers.getSigners();
    for (const [i, [income, debt]] of [[5, 1], [3, 1], [7, 2], [6, 2], [0, 0]].entries()) {
      const who = signers[3 + i]; // a fresh applicant each: a credit line, once granted, stays
      const { requestId } = await apply(who, income, debt);
      const want = creditPolicy([BigInt(income), BigInt(debt)]);
      assert.equal(await fhe.planVerdict(requestId), want, `income ${income}, debt ${debt}`);
      assert.equal(await fhe.settle(requestId), want);
      await (await gate.settle(requestId)).wait();
      assert.equal(await gate.creditLine(who.address), want === 1n ? LIMIT : 0n);
    }
  });

  it("settle without a verdict refuses a policy the compiler refuses, with its error", async function () {
    const bad = hre.ethers.toUtf8Bytes("fhegate_policy: 1\nname: wide\ninputs: [{name: x, min: 0, max: 1000}]\noutput: {expr: \"x >= 77\"}\n");
    await (await fhe.policy.connect(alice).registerPolicy(bad)).wait();
    const att = await fhe.encrypt(alice, [500]);
    await (await fhe.input.connect(alice).registerBatch(...fhe.batchArgs(att))).wait();
    const r = await (await fhe.policy.connect(alice).evaluate(hre.ethers.keccak256(bad), att.handles)).wait();
    const requestId = r.logs.map((l) => fhe.policy.interface.parseLog(l)).find((e) => e && e.name === "EvaluationRequested").args.requestId;
    await assert.rejects(fhe.settle(requestId), /needs a polynomial of degree > 255.*\{name: x, type: uint16, max: 1000\}/);
    assert.equal(await fhe.settle(requestId, 1n), 1n, "a verdict given by the test still settles it");
  });

  it("registers the policy with FHEPolicy at deployment", async function () {
    const [exists, , , , , registrant] = await fhe.policy.policyOf(await gate.policyId());
    assert.equal(exists, true);
    assert.equal(registrant, await gate.getAddress());
  });

  it("refuses handles the caller does not own (the gate is a deputy)", async function () {
    const att = await fhe.encrypt(alice, [5, 1]);
    await (await fhe.input.connect(alice).registerBatch(...fhe.batchArgs(att))).wait();
    for (const h of att.handles) await (await fhe.input.connect(alice).allow(h, await gate.getAddress())).wait();
    await expectRevert(gate.connect(bob).applyFor(att.handles[0], att.handles[1]), {
      on: gate, error: "NotHandleOwner", args: [att.handles[0], bob.address, alice.address],
    });
  });

  it("refuses unknown handles", async function () {
    const h = hre.ethers.keccak256("0x01");
    await expectRevert(gate.connect(alice).applyFor(h, h), { on: gate, error: "UnknownHandle", args: [h] });
  });

  it("needs the owner's allowance on every handle (FHEPolicy's revert string)", async function () {
    const att = await fhe.encrypt(alice, [5, 1]);
    await (await fhe.input.connect(alice).registerBatch(...fhe.batchArgs(att))).wait();
    await (await fhe.input.connect(alice).allow(att.handles[0], await gate.getAddress())).wait();
    const gateAddr = (await gate.getAddress()).toLowerCase();
    await expectRevert(gate.connect(alice).applyFor(att.handles[0], att.handles[1]),
      new RegExp(`FHEPolicy\\.evaluate: caller ${gateAddr} is not allowed on handle 1 \\(${att.handles[1]}\\)`));
  });

  it("accepts each handle pair once", async function () {
    const { att, requestId } = await apply(alice, 5, 1);
    const setId = hre.ethers.keccak256(hre.ethers.concat(att.handles));
    await expectRevert(gate.connect(alice).applyFor(att.handles[0], att.handles[1]), {
      on: gate, error: "HandlesAlreadyUsed", args: [setId, requestId],
    });
  });

  it("settles only its own requests", async function () {
    const r = hre.ethers.keccak256("0x02");
    await expectRevert(gate.settle(r), { on: gate, error: "UnknownRequest", args: [r] });
  });

  it("FHEInput mock: an input registers once, for the owner it was attested for", async function () {
    const att = await fhe.encrypt(alice, [5]);
    await expectRevert(fhe.input.connect(bob).registerBatch(...fhe.batchArgs({ ...att, owner: bob.address })), /was not attested for/);
    await (await fhe.input.connect(alice).registerBatch(...fhe.batchArgs(att))).wait();
    await expectRevert(fhe.input.registerBatch(...fhe.batchArgs(att)),
      new RegExp(`FHEInput\\.registerBatch: handle ${att.handles[0]} already registered \\(nothing registered\\)`));
    await expectRevert(fhe.input.connect(alice).registerBatch(...fhe.batchArgs({ ...att, ctypes: [2] })),
      /ciphertext type 2 at 0 not allowed \(allowed: 1\)/);
  });

  it("FHEVerdict mock: a verdict is accepted once, and no committee signature is", async function () {
    const { requestId } = await apply(alice, 5, 1);
    await fhe.settle(requestId, 1n);
    await expectRevert(fhe.verdict.settle(requestId, 0n), /already accepted/);
    await expectRevert(fhe.verdict.submit(requestId, 1n, hre.ethers.ZeroHash, "0x", "0x"), /no committee signs here/);
  });
});
