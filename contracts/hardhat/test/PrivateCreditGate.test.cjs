// PrivateCreditGate's tests, one file for two targets: the precompile mocks
// (`npx hardhat test`: milliseconds per case) and a running `fhegate devnet`
// (`npx hardhat test --network devnet`: real encryption, attestation and the
// committee's verdicts). The verdict is the policy's own: on the mocks the
// spec's compiled plan run on the plaintexts (fhe.settle), on the devnet the
// committee's threshold-decrypted evaluation. Cases marked "mocks only" use
// what only a mock has (plaintexts on chain, forced verdicts).
const hre = require("hardhat");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { fhegate } = require("../fhegate.cjs");
const { expectRevert, UNEVALUABLE, REJECTED_INPUT } = require("../fhegate-mock.cjs");

const repo = path.resolve(__dirname, "..", "..", "..");
const SPEC = fs.readFileSync(path.join(repo, "examples", "creditgate", "credit_policy.yaml"));
// What the chain's FHEPolicy.registerPolicy gives the shipped policies and
// the reasons it refuses specs with (precompiles/corebackends, TestChainPoliciesFixture).
const CHAIN = require("./chain-policies.json");
const LIMIT = 1000n;
const onMocks = hre.network.name === "hardhat";
const mocksOnly = onMocks ? it : it.skip;

describe(`PrivateCreditGate (${onMocks ? "precompile mocks" : `network ${hre.network.name}`})`, function () {
  let fhe, gate, signers, alice, bob;

  beforeEach(async function () {
    fhe = await fhegate(hre);
    signers = await hre.ethers.getSigners();
    [, alice, bob] = signers;
    gate = await fhe.deploy("PrivateCreditGate", [SPEC, LIMIT]);
  });

  // alicePair is Alice's registered inputs (5, 1) for the cases that need
  // registered handles but no verdict: made once on a devnet (a proof takes
  // seconds; each case deploys its own gate, so the handles serve them all),
  // after every reset on the mocks.
  let pair;
  async function alicePair() {
    if (fhe.mock || !pair) {
      const att = await fhe.encrypt(alice, [5, 1]);
      await (await fhe.input.connect(alice).registerBatch(...fhe.batchArgs(att))).wait();
      pair = att;
    }
    return pair;
  }

  // deposit is what FHEPolicy takes with each of the gate's requests (the applicant sends it).
  const deposit = async () => fhe.policy.depositOf(await gate.policyId());

  // apply runs the applicant's side: inputs, registration, allowing the gate, applyFor with the deposit.
  async function apply(who, income, debt) {
    const att = await fhe.encrypt(who, [income, debt]);
    await (await fhe.input.connect(who).registerBatch(...fhe.batchArgs(att))).wait();
    for (const h of att.handles) await (await fhe.input.connect(who).allow(h, await gate.getAddress())).wait();
    const r = await (await gate.connect(who).applyFor(att.handles[0], att.handles[1], { value: await deposit() })).wait();
    const applied = r.logs.map((l) => gate.interface.parseLog(l)).find((e) => e && e.name === "Applied");
    return { att, requestId: applied.args.requestId };
  }

  // settleBy has signers[0] settle a request on the gate and returns how the
  // applicant's balance moved (the refund the gate passed on).
  async function settleBy(requestId, who) {
    const before = await hre.ethers.provider.getBalance(who);
    await (await gate.connect(signers[0]).settle(requestId)).wait();
    return (await hre.ethers.provider.getBalance(who)) - before;
  }

  it("approves exactly when income > 3·debt: the policy's own verdict", async function () {
    const cases = [
      { income: 5, debt: 1, approved: true },
      { income: 2, debt: 1, approved: false },
      { income: 3, debt: 1, approved: false }, // not strictly more
      { income: 1, debt: 0, approved: true },
    ].slice(0, fhe.mock ? 4 : 2); // on a devnet each applicant costs seconds of proofs and evaluation: one approval, one denial
    // every applicant applies first (on the devnet the committee evaluates them together)
    const applied = [];
    for (const [i, tc] of cases.entries()) {
      const who = signers[3 + i]; // a fresh applicant each: a credit line, once granted, stays
      const { requestId } = await apply(who, tc.income, tc.debt);
      if (fhe.mock) await expectRevert(gate.settle(requestId), { on: gate, error: "VerdictNotReady", args: [requestId] });
      applied.push({ ...tc, who, requestId });
    }
    for (const tc of applied) {
      const what = `income ${tc.income}, debt ${tc.debt}`;
      assert.equal(await fhe.settle(tc.requestId), tc.approved ? 1n : 0n, what);
      assert.equal(await settleBy(tc.requestId, tc.who.address), await deposit(), `${what}: the deposit comes back to the applicant`);
      assert.equal(await gate.creditLine(tc.who.address), tc.approved ? LIMIT : 0n, what);
      await expectRevert(gate.settle(tc.requestId), { on: gate, error: "AlreadySettled", args: [tc.requestId] });
    }
  });

  it("registers the policy with FHEPolicy at deployment, under the chain's policy id", async function () {
    const want = CHAIN.policies.find((p) => p.file === "examples/creditgate/credit_policy.yaml");
    assert.equal(await gate.policyId(), want.policyId);
    const [exists, planHash, depth, cost, inputs, registrant] = await fhe.policy.policyOf(want.policyId);
    assert.equal(exists, true);
    assert.deepEqual([planHash, Number(depth), Number(cost), Number(inputs)], [want.policyId, want.depth, want.cost, want.inputs]);
    if (fhe.mock) assert.equal(registrant, await gate.getAddress()); // on a long-lived devnet an earlier gate may have registered it
  });

  it("FHEPolicy registers every shipped policy under the chain's id, depth, cost and input count", async function () {
    for (const want of CHAIN.policies) {
      const spec = fs.readFileSync(path.join(repo, want.file));
      assert.equal(await fhe.policy.registerPolicy.staticCall(spec), want.policyId, want.file);
      await (await fhe.policy.registerPolicy(spec)).wait();
      const [exists, planHash, depth, cost, inputs] = await fhe.policy.policyOf(want.policyId);
      assert.equal(exists, true, want.file);
      assert.deepEqual([planHash, Number(depth), Number(cost), Number(inputs)], [want.policyId, want.depth, want.cost, want.inputs], want.file);
    }
  });

  it("FHEPolicy refuses what the chain refuses, with the chain's reason", async function () {
    const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    for (const r of CHAIN.refused) {
      await expectRevert(fhe.policy.connect(alice).registerPolicy(hre.ethers.toUtf8Bytes(r.spec)), new RegExp(`^${escape(r.reason)}$`));
    }
  });

  it("refuses handles the caller does not own (the gate is a deputy)", async function () {
    const att = await alicePair();
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
    const att = await alicePair();
    await (await fhe.input.connect(alice).allow(att.handles[0], await gate.getAddress())).wait();
    const gateAddr = (await gate.getAddress()).toLowerCase();
    await expectRevert(gate.connect(alice).applyFor(att.handles[0], att.handles[1], { value: await deposit() }),
      new RegExp(`FHEPolicy\\.evaluate: caller ${gateAddr} is not allowed on handle 1 \\(${att.handles[1]}\\)`, "i"));
  });

  it("accepts each handle pair once", async function () {
    const att = await alicePair();
    for (const h of att.handles) await (await fhe.input.connect(alice).allow(h, await gate.getAddress())).wait();
    const r = await (await gate.connect(alice).applyFor(att.handles[0], att.handles[1], { value: await deposit() })).wait();
    const { requestId } = r.logs.map((l) => gate.interface.parseLog(l)).find((e) => e && e.name === "Applied").args;
    const setId = hre.ethers.keccak256(hre.ethers.concat(att.handles));
    await expectRevert(gate.connect(alice).applyFor(att.handles[0], att.handles[1]), {
      on: gate, error: "HandlesAlreadyUsed", args: [setId, requestId],
    });
  });

  it("settles only its own requests", async function () {
    const r = hre.ethers.keccak256("0x02");
    await expectRevert(gate.settle(r), { on: gate, error: "UnknownRequest", args: [r] });
  });

  mocksOnly("denies a request the committee could not evaluate (mocks only: a forced verdict)", async function () {
    const { requestId } = await apply(alice, 5, 1);
    assert.equal(await fhe.planVerdict(requestId), 1n, "the plan would approve");
    assert.equal(await fhe.settle(requestId, UNEVALUABLE), UNEVALUABLE);
    assert.equal(await settleBy(requestId, alice.address), await deposit(), "an unevaluable request's deposit comes back");
    assert.equal(await gate.creditLine(alice.address), 0n);
  });

  it("an input outside its declared range gets the committee's rejected-input verdict, and no credit", async function () {
    // income is declared in [0, 7]; an input proof says nothing about ranges, so a client may encrypt 40
    const { client } = require("../fhegate-mock.cjs");
    const { evalPlan } = await client();
    // the first income above the range whose plan value is neither 0 nor 1
    let income = 8;
    while (income < 1000 && [0n, 1n].includes(await evalPlan(SPEC, [income, 0]))) income++;
    assert.ok(income < 1000, "some out-of-range income gives the plan a value outside {0, 1}");
    const { requestId } = await apply(alice, income, 0);
    const gateBalance = await hre.ethers.provider.getBalance(await gate.getAddress());
    assert.equal(await fhe.settle(requestId), REJECTED_INPUT, `income ${income}`);
    assert.equal(await settleBy(requestId, alice.address), 0n, "a rejected input's deposit is burnt: no refund");
    assert.equal(await hre.ethers.provider.getBalance(await gate.getAddress()), gateBalance, "nor does the gate get it");
    assert.equal(await gate.creditLine(alice.address), 0n);
  });

  mocksOnly("the mock's plan is the chain's: plan hash, inputs and declared names (mocks only)", async function () {
    const { plan } = await fhe.plan(await gate.policyId());
    assert.equal(plan.planHash, await gate.policyId());
    assert.equal(plan.name, "credit-gate-example");
    assert.equal(plan.inputs, 2);
    assert.deepEqual(plan.declared, ["income", "debt"]);
  });

  mocksOnly("FHEInput mock: an input registers once, for the owner it was attested for (mocks only)", async function () {
    const att = await fhe.encrypt(alice, [5]);
    await expectRevert(fhe.input.connect(bob).registerBatch(...fhe.batchArgs({ ...att, owner: bob.address })), /was not attested for/);
    await (await fhe.input.connect(alice).registerBatch(...fhe.batchArgs(att))).wait();
    await expectRevert(fhe.input.registerBatch(...fhe.batchArgs(att)),
      new RegExp(`FHEInput\\.registerBatch: handle ${att.handles[0]} already registered \\(nothing registered\\)`));
    await expectRevert(fhe.input.connect(alice).registerBatch(...fhe.batchArgs({ ...att, ctypes: [2] })),
      /ciphertext type 2 at 0 not allowed \(allowed: 1\)/);
  });

  mocksOnly("FHEVerdict mock: a verdict is accepted once, and no committee signature is (mocks only)", async function () {
    const { requestId } = await apply(alice, 5, 1);
    await fhe.settle(requestId);
    await expectRevert(fhe.verdict.settle(requestId, 0n), /already accepted/);
    await expectRevert(fhe.verdict.submit(requestId, 1n, hre.ethers.ZeroHash, "0x", "0x"), /no committee signs here/);
  });
  it("takes exactly the policy's deposit with applyFor (WrongDeposit otherwise)", async function () {
    const d = await deposit();
    const [, , , cost] = await fhe.policy.policyOf(await gate.policyId());
    assert.equal(d, cost * 4096n * 10n ** 9n, "a packed policy's deposit: cost × 4096 × 1 gwei");
    const att = await alicePair();
    for (const h of att.handles) await (await fhe.input.connect(alice).allow(h, await gate.getAddress())).wait();
    for (const v of [0n, d - 1n, d + 1n]) {
      await expectRevert(gate.connect(alice).applyFor(att.handles[0], att.handles[1], { value: v }), { on: gate, error: "WrongDeposit", args: [d, v] });
    }
  });

  mocksOnly("keeps the refund claimable when the applicant refuses ETH (mocks only: a contract applicant)", async function () {
    const who = await fhe.deploy("RefusingApplicant");
    const whoAddr = await who.getAddress();
    const gateAddr = await gate.getAddress();
    const att = await fhe.encrypt({ getAddress: async () => whoAddr }, [5, 1]);
    await (await fhe.input.registerBatch(...fhe.batchArgs(att))).wait();
    for (const h of att.handles) await (await who.allow(h, gateAddr)).wait();
    const d = await deposit();
    const r = await (await who.applyFor(gateAddr, att.handles[0], att.handles[1], { value: d })).wait();
    const { requestId } = r.logs.map((l) => (l.address === gateAddr ? gate.interface.parseLog(l) : null)).find((e) => e && e.name === "Applied").args;
    assert.equal(await fhe.settle(requestId), 1n);
    // FHEVerdict credits the gate (the requester) without running its code; settle's transfer to the applicant fails
    assert.equal(await hre.ethers.provider.getBalance(gateAddr), d);
    await (await gate.settle(requestId)).wait();
    assert.equal(await gate.creditLine(whoAddr), LIMIT);
    assert.equal(await gate.refundOf(whoAddr), d, "the refund waits in refundOf");
    assert.equal(await hre.ethers.provider.getBalance(whoAddr), 0n);
    await expectRevert(gate.connect(alice).withdrawRefund(), { on: gate, error: "NothingToWithdraw" });
    await (await who.withdrawRefund(gateAddr)).wait();
    assert.equal(await gate.refundOf(whoAddr), 0n);
    assert.equal(await hre.ethers.provider.getBalance(whoAddr), d, "withdrawRefund paid it");
    assert.equal(await hre.ethers.provider.getBalance(gateAddr), 0n, "the gate keeps nothing");
  });
});
