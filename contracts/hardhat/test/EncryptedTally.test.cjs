// EncryptedTally on the precompile mocks: ballots merged into one PN-counter
// state through FHECRDT, one reveal request, the committee's value of the
// counter (the sum of the ballots' plaintexts) read back as total().
const hre = require("hardhat");
const assert = require("node:assert/strict");
const { fhegate } = require("../fhegate.cjs");
const { expectRevert } = require("../fhegate-mock.cjs");

const KIND_PNCOUNTER = 2;
// On a devnet FHECRDT.create takes only canonical CRDT metadata
// (fhe/crdt/meta), which these ballots do not carry yet: the mocks only.
const onMocks = hre.network.name === "hardhat";

(onMocks ? describe : describe.skip)("EncryptedTally (precompile mocks only: ballots without CRDT metadata)", function () {
  let fhe, tally, voters;

  beforeEach(async function () {
    fhe = await fhegate(hre);
    voters = (await hre.ethers.getSigners()).slice(1, 6);
    tally = await fhe.deploy("EncryptedTally");
  });

  async function ballot(voter, vote) {
    const att = await fhe.encrypt(voter, [vote]);
    await (await fhe.input.connect(voter).registerBatch(...fhe.batchArgs(att))).wait();
    await (await fhe.input.connect(voter).allow(att.handles[0], await tally.getAddress())).wait();
    return att.handles[0];
  }

  async function castAll(votes) {
    for (const [i, v] of votes.entries()) {
      const h = await ballot(voters[i], v);
      await (await tally.connect(voters[i]).vote(h, hre.ethers.AbiCoder.defaultAbiCoder().encode(["bytes32"], [h]))).wait();
    }
  }

  for (const tc of [
    { name: "three for, one against", votes: [1, 1, 1, -1], total: 2n },
    { name: "a majority against", votes: [-1, -1, 1, -1, -1], total: -3n },
    { name: "one vote", votes: [1], total: 1n },
  ]) {
    it(`${tc.name}: total ${tc.total}`, async function () {
      await castAll(tc.votes);
      assert.equal(await tally.votes(), BigInt(tc.votes.length));
      const r = await (await tally.requestReveal()).wait();
      const ev = r.logs.map((l) => tally.interface.parseLog(l)).find((e) => e && e.name === "RevealRequested");
      await expectRevert(tally.total(), { on: tally, error: "VerdictNotReady", args: [ev.args.requestId] });
      await fhe.settleValue(ev.args.requestId);
      assert.equal(await tally.total(), tc.total);
      const [exists, kind] = await fhe.crdt.stateOf(await tally.current());
      assert.equal(exists, true);
      assert.equal(Number(kind), KIND_PNCOUNTER);
    });
  }

  it("merge is idempotent and commutative (the mock's counter follows the CRDT laws)", async function () {
    const [a, b] = voters;
    const ha = await ballot(a, 1);
    const hb = await ballot(b, 1);
    const sa = await fhe.crdt.connect(a).create.staticCall(KIND_PNCOUNTER, ha, "0x");
    await (await fhe.crdt.connect(a).create(KIND_PNCOUNTER, ha, "0x")).wait();
    await (await fhe.crdt.connect(a).allow(sa, b.address)).wait();
    const sb = await fhe.crdt.connect(b).create.staticCall(KIND_PNCOUNTER, hb, "0x");
    await (await fhe.crdt.connect(b).create(KIND_PNCOUNTER, hb, "0x")).wait();
    const ab = await fhe.crdt.connect(b).merge.staticCall(sa, sb);
    await (await fhe.crdt.connect(b).merge(sa, sb)).wait();
    assert.equal(await fhe.crdt.connect(b).merge.staticCall(sb, sa), ab);
    await (await fhe.crdt.connect(b).allow(ab, a.address)).wait();
    await (await fhe.crdt.connect(b).allow(sb, a.address)).wait();
    const again = await fhe.crdt.connect(b).merge.staticCall(ab, sb);
    await (await fhe.crdt.connect(b).merge(ab, sb)).wait();
    assert.equal(await fhe.crdt.counterValue(ab), 2n);
    assert.equal(await fhe.crdt.counterValue(again), 2n, "merging a state already inside counts it once");
  });

  it("one vote per address", async function () {
    await castAll([1]);
    const h = await ballot(voters[0], 1);
    await expectRevert(tally.connect(voters[0]).vote(h, "0x"), { on: tally, error: "AlreadyVoted", args: [voters[0].address] });
  });

  it("a ballot counts only as its owner's vote", async function () {
    const h = await ballot(voters[0], 1);
    await expectRevert(tally.connect(voters[1]).vote(h, "0x"), {
      on: tally, error: "NotHandleOwner", args: [h, voters[1].address, voters[0].address],
    });
  });

  it("nothing to reveal before the first vote", async function () {
    await expectRevert(tally.requestReveal(), { on: tally, error: "NothingToReveal" });
  });

  it("a ballot the tally is not allowed on is refused by FHECRDT", async function () {
    const att = await fhe.encrypt(voters[0], [1]);
    await (await fhe.input.connect(voters[0]).registerBatch(...fhe.batchArgs(att))).wait();
    await expectRevert(tally.connect(voters[0]).vote(att.handles[0], "0x"), /FHECRDT\.create: caller 0x[0-9a-f]{40} is not allowed to grant handle/);
  });

  it("an unanswered reveal expires after 1024 blocks", async function () {
    await castAll([1]);
    const id = await tally.requestReveal.staticCall();
    await (await tally.requestReveal()).wait();
    await expectRevert(fhe.verdict.expire(id), /expires at block/);
    await hre.network.provider.send("hardhat_mine", ["0x400"]);
    await (await fhe.verdict.expire(id)).wait();
    assert.equal(await tally.total(), -2n, "RESULT_EXPIRED = 2^256 - 2 reads as -2 in two's complement");
  });
});
