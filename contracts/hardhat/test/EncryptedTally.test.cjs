// EncryptedTally on the precompile mocks: ballots merged into one PN-counter
// state through FHECRDT, one reveal request, the committee's value of the
// counter (the sum of the ballots' plaintexts) read back as total(). Each
// ballot carries the canonical CRDT metadata the chain takes (fhe/crdt/meta,
// built by @fhegate/client's crdtMetadata): the voter's replica block, version
// 1, the ballot's handle; the mock merges it by the chain's rules.
const hre = require("hardhat");
const assert = require("node:assert/strict");
const { fhegate } = require("../fhegate.cjs");
const { expectRevert, client, PLAINTEXT_MODULUS } = require("../fhegate-mock.cjs");

const KIND_PNCOUNTER = 2;
// The tally's counter: one replica block per voter (at most 8 here), one lane each,
// on the committee's preset (bgv-n14-t65537: fhe.BGVN14 = 2).
const LAYOUT = { type: KIND_PNCOUNTER, preset: 2, level: 0, blocks: 8, width: 1 };
const onMocks = hre.network.name === "hardhat";

// ballotMetadata is voter i's replica block holding its ballot.
async function ballotMetadata(i, handle, layout = LAYOUT) {
  const { crdtMetadata } = await client();
  return crdtMetadata(layout, [{ block: i, clock: 1, replica: i, handle }]);
}

(onMocks ? describe : describe.skip)("EncryptedTally (precompile mocks: the committee's CRDT reads are not run on a devnet here)", function () {
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
      await (await tally.connect(voters[i]).vote(h, await ballotMetadata(i, h))).wait();
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
      const [, posted] = await fhe.verdict.verdictOf(ev.args.requestId);
      assert.equal(posted, (tc.total + PLAINTEXT_MODULUS) % PLAINTEXT_MODULUS, "the committee posts the total mod t");
      assert.equal(await tally.total(), tc.total);
      const [exists, kind] = await fhe.crdt.stateOf(await tally.current());
      assert.equal(exists, true);
      assert.equal(Number(kind), KIND_PNCOUNTER);
    });
  }

  it("merge is idempotent and commutative, and joins the metadata as the chain does", async function () {
    const [a, b] = voters;
    const ha = await ballot(a, 1);
    const hb = await ballot(b, 1);
    const ma = await ballotMetadata(0, ha);
    const mb = await ballotMetadata(1, hb);
    const sa = await fhe.crdt.connect(a).create.staticCall(KIND_PNCOUNTER, ha, ma);
    await (await fhe.crdt.connect(a).create(KIND_PNCOUNTER, ha, ma)).wait();
    await (await fhe.crdt.connect(a).allow(sa, b.address)).wait();
    const sb = await fhe.crdt.connect(b).create.staticCall(KIND_PNCOUNTER, hb, mb);
    await (await fhe.crdt.connect(b).create(KIND_PNCOUNTER, hb, mb)).wait();
    const ab = await fhe.crdt.connect(b).merge.staticCall(sa, sb);
    await (await fhe.crdt.connect(b).merge(sa, sb)).wait();
    assert.equal(await fhe.crdt.connect(b).merge.staticCall(sb, sa), ab);
    const [lo, hi] = BigInt(sa) < BigInt(sb) ? [sa, sb] : [sb, sa];
    assert.equal(ab, hre.ethers.solidityPackedKeccak256(["string", "bytes32", "bytes32"], ["fhegate/crdt/merge/v1", lo, hi]), "the chain's merged-state id");
    const { crdtMetadata, crdtMerge } = await client();
    const [, , owner, , , , metadata] = await fhe.crdt.stateOf(ab);
    assert.equal(owner, hre.ethers.ZeroAddress, "states of two owners merge into a state nobody owns");
    assert.equal(metadata, hre.ethers.hexlify(await crdtMerge(KIND_PNCOUNTER, ma, mb)));
    assert.equal(metadata, hre.ethers.hexlify(await crdtMetadata(LAYOUT, [
      { block: 0, clock: 1, replica: 0, handle: ha }, { block: 1, clock: 1, replica: 1, handle: hb }])));
    const again = await fhe.crdt.connect(b).merge.staticCall(ab, sb);
    await (await fhe.crdt.connect(b).merge(ab, sb)).wait();
    assert.equal(await fhe.crdt.counterValue(ab), 2n);
    assert.equal(await fhe.crdt.counterValue(again), 2n, "merging a state already inside counts it once");
  });

  it("FHECRDT refuses metadata the chain refuses, with the chain's reason", async function () {
    const h = await ballot(voters[0], 1);
    await expectRevert(tally.connect(voters[0]).vote(h, "0x"), /^FHECRDT\.create: metadata: crdt\/meta: /);
    const lww = await ballotMetadata(0, h, { ...LAYOUT, type: 3 });
    await expectRevert(tally.connect(voters[0]).vote(h, lww), /^FHECRDT\.create: metadata: metadata is a lww state, kind 2 requested$/);
  });

  it("FHECRDT refuses to merge states of different layouts", async function () {
    const [a, b] = voters;
    const h0 = await ballot(a, 1);
    await (await tally.connect(a).vote(h0, await ballotMetadata(0, h0))).wait();
    const h1 = await ballot(b, 1);
    await expectRevert(tally.connect(b).vote(h1, await ballotMetadata(1, h1, { ...LAYOUT, blocks: 16 })), /^FHECRDT\.merge: metadata: crdt\/meta: merge: /);
  });

  it("one vote per address", async function () {
    await castAll([1]);
    const h = await ballot(voters[0], 1);
    await expectRevert(tally.connect(voters[0]).vote(h, await ballotMetadata(0, h)), { on: tally, error: "AlreadyVoted", args: [voters[0].address] });
  });

  it("a ballot counts only as its owner's vote", async function () {
    const h = await ballot(voters[0], 1);
    await expectRevert(tally.connect(voters[1]).vote(h, await ballotMetadata(1, h)), {
      on: tally, error: "NotHandleOwner", args: [h, voters[1].address, voters[0].address],
    });
  });

  it("nothing to reveal before the first vote", async function () {
    await expectRevert(tally.requestReveal(), { on: tally, error: "NothingToReveal" });
  });

  it("a ballot the tally is not allowed on is refused by FHECRDT", async function () {
    const att = await fhe.encrypt(voters[0], [1]);
    await (await fhe.input.connect(voters[0]).registerBatch(...fhe.batchArgs(att))).wait();
    await expectRevert(tally.connect(voters[0]).vote(att.handles[0], await ballotMetadata(0, att.handles[0])), /FHECRDT\.create: caller 0x[0-9a-f]{40} is not allowed to grant handle/);
  });

  it("an unanswered reveal expires after 1024 blocks", async function () {
    await castAll([1]);
    const id = await tally.requestReveal.staticCall();
    await (await tally.requestReveal()).wait();
    await expectRevert(fhe.verdict.expire(id), /expires at block/);
    await hre.network.provider.send("hardhat_mine", ["0x400"]);
    await (await fhe.verdict.expire(id)).wait();
    const RESULT_EXPIRED = (1n << 256n) - 2n;
    await expectRevert(tally.total(), { on: tally, error: "NotAValue", args: [id, RESULT_EXPIRED] });
  });
});
