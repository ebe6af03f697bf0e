// EncryptedTally's tests, one file for two targets (see
// PrivateCreditGate.test.cjs): ballots merged into one PN-counter state
// through FHECRDT, one reveal request, the committee's value of the counter
// read back as total(). On the mocks the value is the sum of the ballots'
// plaintexts; on a devnet the committee decrypts the merged state. Each
// ballot carries the canonical CRDT metadata the chain takes (fhe/crdt/meta,
// built by @fhegate/client's crdtMetadata): the voter's replica block,
// version 1, the ballot's handle.
const hre = require("hardhat");
const assert = require("node:assert/strict");
const { fhegate } = require("../fhegate.cjs");
const { expectRevert, client, PLAINTEXT_MODULUS } = require("../fhegate-mock.cjs");

const KIND_PNCOUNTER = 2;
// The tally's counter: one replica block per voter (at most 8 here), one lane each,
// on the committee's preset (bgv-n14-t65537: fhe.BGVN14 = 2).
const LAYOUT = { type: KIND_PNCOUNTER, preset: 2, level: 0, blocks: 8, width: 1 };
const onMocks = hre.network.name === "hardhat";
const mocksOnly = onMocks ? it : it.skip;

// ballotMetadata is voter i's replica block holding its ballot.
async function ballotMetadata(i, handle, layout = LAYOUT) {
  const { crdtMetadata } = await client();
  return crdtMetadata(layout, [{ block: i, clock: 1, replica: i, handle }]);
}

describe(`EncryptedTally (${onMocks ? "precompile mocks" : `network ${hre.network.name}`})`, function () {
  let fhe, tally, voters;

  beforeEach(async function () {
    fhe = await fhegate(hre);
    voters = (await hre.ethers.getSigners()).slice(1, 6);
    tally = await fhe.deploy("EncryptedTally");
  });

  // ballot is voter i's registered ballot `vote`, allowed on this test's
  // tally unless { allow: false }. On a devnet a ballot is encrypted and
  // proven once and serves every test (each deploys its own tally).
  const registered = new Map();
  async function ballot(i, vote, { allow = true } = {}) {
    let h = fhe.mock ? undefined : registered.get(`${i}:${vote}`);
    if (!h) {
      const att = await fhe.encrypt(voters[i], [vote]);
      await (await fhe.input.connect(voters[i]).registerBatch(...fhe.batchArgs(att))).wait();
      h = att.handles[0];
      if (!fhe.mock) registered.set(`${i}:${vote}`, h);
    }
    if (allow) await (await fhe.input.connect(voters[i]).allow(h, await tally.getAddress())).wait();
    return h;
  }

  async function castAll(votes) {
    const hs = [];
    for (const [i, v] of votes.entries()) {
      const h = await ballot(i, v);
      await (await tally.connect(voters[i]).vote(h, await ballotMetadata(i, h))).wait();
      hs.push(h);
    }
    return hs;
  }

  for (const tc of [
    { name: "one for, two against", votes: [1, -1, -1], total: -1n, devnet: true },
    { name: "three for, one against", votes: [1, 1, 1, -1], total: 2n },
    { name: "a majority against", votes: [-1, -1, 1, -1, -1], total: -3n },
    { name: "one vote", votes: [1], total: 1n },
  ]) {
    // on a devnet one case: each ballot costs seconds of proofs, the reveal a committee evaluation
    (onMocks || tc.devnet ? it : it.skip)(`${tc.name}: total ${tc.total}`, async function () {
      await castAll(tc.votes);
      assert.equal(await tally.votes(), BigInt(tc.votes.length));
      const r = await (await tally.requestReveal()).wait();
      const ev = r.logs.map((l) => tally.interface.parseLog(l)).find((e) => e && e.name === "RevealRequested");
      if (fhe.mock) await expectRevert(tally.total(), { on: tally, error: "VerdictNotReady", args: [ev.args.requestId] });
      await fhe.settleValue(ev.args.requestId);
      const [, posted] = await fhe.verdict.verdictOf(ev.args.requestId);
      assert.equal(posted, (tc.total + PLAINTEXT_MODULUS) % PLAINTEXT_MODULUS, "the committee posts the total mod t");
      assert.equal(await tally.total(), tc.total);
      const [exists, kind] = await fhe.crdt.stateOf(await tally.current());
      assert.equal(exists, true);
      assert.equal(Number(kind), KIND_PNCOUNTER);
    });
  }

  it("merges the ballots' metadata as the chain does", async function () {
    const [h0, h1] = await castAll([1, -1]);
    const { crdtMetadata } = await client();
    const [, , owner, , , , metadata] = await fhe.crdt.stateOf(await tally.current());
    assert.equal(owner, await tally.getAddress(), "the tally created both states: it owns their merge");
    assert.equal(metadata, hre.ethers.hexlify(await crdtMetadata(LAYOUT, [
      { block: 0, clock: 1, replica: 0, handle: h0 }, { block: 1, clock: 1, replica: 1, handle: h1 }])));
  });

  mocksOnly("merge is idempotent and commutative, and joins the metadata as the chain does (mocks only: plaintext counters)", async function () {
    const [a, b] = voters;
    const ha = await ballot(0, 1, { allow: false });
    const hb = await ballot(1, 1, { allow: false });
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
    const h = await ballot(0, 1);
    await expectRevert(tally.connect(voters[0]).vote(h, "0x"), /^FHECRDT\.create: metadata: crdt\/meta: /);
    const lww = await ballotMetadata(0, h, { ...LAYOUT, type: 3 });
    await expectRevert(tally.connect(voters[0]).vote(h, lww), /^FHECRDT\.create: metadata: metadata is a lww state, kind 2 requested$/);
  });

  it("FHECRDT refuses to merge states of different layouts", async function () {
    const h0 = await ballot(0, 1);
    await (await tally.connect(voters[0]).vote(h0, await ballotMetadata(0, h0))).wait();
    const h1 = await ballot(1, -1);
    await expectRevert(tally.connect(voters[1]).vote(h1, await ballotMetadata(1, h1, { ...LAYOUT, blocks: 16 })), /^FHECRDT\.merge: metadata: crdt\/meta: merge: /);
  });

  it("one vote per address", async function () {
    const h = await ballot(0, 1);
    await (await tally.connect(voters[0]).vote(h, await ballotMetadata(0, h))).wait();
    const another = hre.ethers.keccak256("0x03"); // refused before the handle matters
    await expectRevert(tally.connect(voters[0]).vote(another, await ballotMetadata(0, another)), { on: tally, error: "AlreadyVoted", args: [voters[0].address] });
  });

  it("a ballot counts only as its owner's vote", async function () {
    const h = await ballot(0, 1);
    await expectRevert(tally.connect(voters[1]).vote(h, await ballotMetadata(1, h)), {
      on: tally, error: "NotHandleOwner", args: [h, voters[1].address, voters[0].address],
    });
  });

  it("nothing to reveal before the first vote", async function () {
    await expectRevert(tally.requestReveal(), { on: tally, error: "NothingToReveal" });
  });

  it("a ballot the tally is not allowed on is refused by FHECRDT", async function () {
    const h = await ballot(0, 1, { allow: false });
    await expectRevert(tally.connect(voters[0]).vote(h, await ballotMetadata(0, h)), /FHECRDT\.create: caller 0x[0-9a-f]{40} is not allowed to grant handle/i);
  });

  mocksOnly("an unanswered reveal expires after 1024 blocks (mocks only: mines 1024 blocks)", async function () {
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
