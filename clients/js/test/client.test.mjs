// @fhegate/client against the Go implementation, in Node (node --test):
// inputs encrypted and proven by the WebAssembly core are read by the
// committee's own decoder (consensus/api/uploadwire), verified by its
// verifier (zkpok.Key.Verify) and decrypted against the plaintext by a Go
// helper (test/gohelper); inputs the Go client encrypts verify in the
// WebAssembly core, with the same handles and the same upload body bytes.
// Both sides draw fresh randomness (zkpok.Key.EncryptInts offers no seed),
// so ciphertexts are compared through the verifier and the decryption, and
// the deterministic parts (handles, digests, body encoding) byte for byte.
//
// Needs `npm run build` first. FHEGATE_TEST_PRESET picks the preset
// (default bgv-n14-t65537, the devnet's).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Committee, FheKey, compilePlan, crdtCheck, crdtMerge, crdtMetadata, decisionRow, evalPlan, handleOf, init, uploadBody } from "../dist/index.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..", "..", "..");
const preset = process.env.FHEGATE_TEST_PRESET || "bgv-n14-t65537";
const owner = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const chainId = "43114";
const epoch = "2";

let dir, helper, key;
const hex = (b) => "0x" + Buffer.from(b).toString("hex");
// a job's binary upload body travels to the helper as hex
const go = (cmd, job) =>
  JSON.parse(
    execFileSync(helper, [cmd, dir], {
      input: JSON.stringify(job.body instanceof Uint8Array ? { ...job, body: hex(job.body) } : job),
      encoding: "utf8",
      maxBuffer: 256 << 20,
    }),
  );
const unhex = (s) => new Uint8Array(Buffer.from(s.replace(/^0x/, ""), "hex"));

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "fhegate-client-"));
  helper = path.join(dir, "gohelper");
  execFileSync("go", ["build", "-o", helper, "./clients/js/test/gohelper"], { cwd: repo, stdio: "inherit" });
  execFileSync(helper, ["keygen", dir, preset], { stdio: "inherit" });
  const t0 = performance.now();
  await init();
  const t1 = performance.now();
  key = await FheKey.fromAnnouncement({ publicKey: readFileSync(path.join(dir, "pk.bin")), chainId, epoch });
  const t2 = performance.now();
  console.log(`# ${preset}: wasm start ${(t1 - t0).toFixed(0)} ms, key prepared in ${(t2 - t1).toFixed(0)} ms, proof ${key.info.proofSize} bytes`);
});

after(() => {
  key?.release();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

for (const tc of [
  { name: "two scalar inputs", values: [5, 1], vector: false, rooted: false },
  { name: "one vector input of 8 attributes, rooted", values: [30, 1, 0, 0, 3, 1, 2, 0], vector: true, rooted: true },
  { name: "negative and large values (mod t)", values: ["-3", 65536n, 70000], vector: false, rooted: false },
]) {
  test(`wasm → Go: ${tc.name} verify, decrypt and encode as the committee reads them`, async () => {
    const progress = [];
    const t0 = performance.now();
    const inputs = await key.encrypt(owner, tc.values, { vector: tc.vector, onProgress: (p) => progress.push(p.done) });
    const ms = (performance.now() - t0) / inputs.length;
    console.log(`# ${preset}: encrypt+prove ${ms.toFixed(0)} ms per input (${inputs.length} inputs, Node ${process.version})`);
    assert.equal(inputs.length, tc.vector ? 1 : tc.values.length);
    assert.deepEqual(progress, [...Array(inputs.length + 1).keys()]);
    const body = await uploadBody(owner, inputs, tc.rooted);
    const values = tc.values.map((v) => Number(v));
    const res = go("check", { chainId, epoch: Number(epoch), owner, vector: tc.vector, values, body, rooted: tc.rooted, handles: inputs.map((i) => i.handle) });
    assert.deepEqual(res.handles, inputs.map((i) => i.handle));
    assert.deepEqual(res.proofDigests, inputs.map((i) => i.proofDigest));
    // uploads at the upload level, below the top (the helper checks every ciphertext's level)
    assert.ok(key.info.level >= 1 && key.info.level < key.info.topLevel, `level ${key.info.level} of ${key.info.topLevel}`);
    for (const i of inputs) {
      assert.equal(i.proof.length, key.info.proofSize);
      key.verify(owner, i.ciphertext, i.proof);
    }
  });
}

test("Go → wasm: the Go client's inputs verify in wasm, with the same handles and body bytes", async () => {
  for (const vector of [false, true]) {
    const got = go("encrypt", { chainId, epoch: Number(epoch), owner, vector, values: [7, 0, 2], rooted: vector });
    const inputs = [];
    for (const [n, x] of got.inputs.entries()) {
      const ciphertext = unhex(x.ciphertext);
      const proof = unhex(x.proof);
      key.verify(owner, ciphertext, proof);
      assert.equal(await handleOf(ciphertext), got.handles[n]);
      assert.equal(await handleOf(proof), got.proofDigests[n]);
      inputs.push({ ciphertext, proof, handle: got.handles[n], proofDigest: got.proofDigests[n] });
    }
    assert.equal(hex(await uploadBody(owner, inputs, vector)), got.body);
  }
});

test("proofs are bound to owner, chain and key epoch; tampering is refused by both verifiers", async () => {
  const [i] = await key.encrypt(owner, [9]);
  assert.throws(() => key.verify("0x" + "11".repeat(20), i.ciphertext, i.proof), /invalid proof/);
  const other = await FheKey.fromAnnouncement({ publicKey: readFileSync(path.join(dir, "pk.bin")), chainId, epoch: "3" });
  assert.throws(() => other.verify(owner, i.ciphertext, i.proof), /invalid proof/);
  other.release();
  assert.throws(() => other.verify(owner, i.ciphertext, i.proof), /released/);
  const bad = Uint8Array.from(i.proof);
  bad[bad.length >> 1] ^= 1;
  assert.throws(() => key.verify(owner, i.ciphertext, bad), /invalid proof/);
  const body = await uploadBody(owner, [{ ...i, proof: bad }]);
  assert.throws(() => go("check", { chainId, epoch: Number(epoch), owner, values: [9], body }), /invalid proof/);
});

test("bad arguments are clear errors", async () => {
  await assert.rejects(key.encrypt(owner, []), /no values/);
  await assert.rejects(key.encrypt(owner, [1.5]), /not a safe integer/);
  await assert.rejects(key.encrypt(owner, ["1e3"]), /not an integer/);
  await assert.rejects(key.encrypt(owner, Array(17).fill(1)), /at most 16/);
  await assert.rejects(key.encrypt(owner, Array(65).fill(1), { vector: true }), /at most 64/);
  await assert.rejects(key.encrypt("0x1234", [1]), /not a 20-byte hex address/);
  await assert.rejects(FheKey.fromAnnouncement({ publicKey: new Uint8Array([1, 2, 3]), chainId, epoch }), /committee public key/);
  await assert.rejects(FheKey.fromAnnouncement({ publicKey: readFileSync(path.join(dir, "pk.bin")), chainId: "0x1", epoch }), /not an integer/);
  await assert.rejects(uploadBody(owner, []), /outside \[1,16\]/);
});

test("Committee: reads the announcement headers and refuses an attestation of another set", async () => {
  const pk = readFileSync(path.join(dir, "pk.bin"));
  const [input] = await key.encrypt(owner, [4]);
  const att = { owner, preset: key.info.presetId, epoch: 2, handles: [input.handle], ctypes: [1], proofDigests: [input.proofDigest], signature: "0x", signers: "0x" };
  let posted;
  const fake = (answer, headers = { "X-Fhegate-Chain-Id": chainId, "X-Fhegate-Epoch": epoch }) => async (url, init) => {
    if (url.endsWith("/v1/publickey")) return new Response(pk, { headers });
    posted = init.body;
    return new Response(JSON.stringify(answer), { status: 200 });
  };
  const c = new Committee("http://committee.test/", { fetch: fake(att) });
  assert.equal((await c.key()).info.chainId, chainId);
  assert.deepEqual(await c.upload(owner, [input]), att);
  assert.deepEqual(posted, await uploadBody(owner, [input]));
  const lying = new Committee("http://committee.test", { fetch: fake({ ...att, handles: ["0x" + "00".repeat(32)] }) });
  await assert.rejects(lying.upload(owner, [input]), /another set/);
  const mute = new Committee("http://committee.test", { fetch: fake(att, {}) });
  await assert.rejects(mute.key(), /did not announce/);
});

test("Committee: a missing URL or a chain's JSON-RPC URL is a clear error", async () => {
  for (const bad of [undefined, null, "", "127.0.0.1:8600", 8600]) {
    assert.throws(() => new Committee(bad), (e) => e instanceof TypeError && /committee member's client API URL/.test(e.message), String(bad));
  }
  // A JSON-RPC endpoint answers GET with 200 and an empty body, no headers.
  const rpc = new Committee("http://127.0.0.1:8545", { fetch: async () => new Response(null, { status: 200 }) });
  await assert.rejects(rpc.key(), /does not look like a committee client API .* not the chain's JSON-RPC URL/);
});

// A policy over every kind of input: one-slot, uint16, uint32 (max 10^6: 5
// digits) and uint64 (16 digits).
const WIDE = `fhegate_policy: 1
name: wide_mix
inputs:
  - {name: age, min: 0, max: 127}
  - {name: code, type: uint16}
  - {name: amount, type: uint32, max: 1000000}
  - {name: balance, type: uint64}
output:
  type: bool
  expr: "age >= 18 && code != 7 && balance >= amount"
`;

test("wide integers: the policy's digits are the Go client's, in one vector input with one proof", async () => {
  const U64 = (1n << 64n) - 1n;
  const rnd = (bits) => {
    let x = 0n;
    for (let i = 0; i < bits; i += 16) x = (x << 16n) | BigInt(Math.floor(Math.random() * 65536));
    return x & ((1n << BigInt(bits)) - 1n);
  };
  const decisions = [
    [0, 0, 0, 0n],
    [127, 65535, 1000000, U64],
    [18, "7", "999999", "18446744073709551614"],
    [Math.floor(Math.random() * 128), rnd(16), rnd(19) % 1000001n, rnd(64)],
  ];
  for (const values of decisions) {
    const declared = values.map(String);
    const row = await decisionRow(WIDE, values);
    assert.equal(row.length, 1 + 4 + 5 + 16);
    // the digits recombine to the values (an independent reading of the layout)
    const digits = (first, n) => row.slice(first, first + n).reduceRight((acc, d) => (acc << 4n) | d, 0n);
    assert.deepEqual([row[0], digits(1, 4), digits(5, 5), digits(10, 16)], values.map((v) => BigInt(v)));
    const inputs = await key.encrypt(owner, values, { policy: WIDE });
    assert.equal(inputs.length, 1, "one vector input");
    const body = await uploadBody(owner, inputs);
    const res = go("check", { chainId, epoch: Number(epoch), owner, vector: true, policy: WIDE, declared, body, handles: inputs.map((i) => i.handle) });
    assert.deepEqual(res.row.map(BigInt), row, `${declared}: Go's DecisionRow`);
    key.verify(owner, inputs[0].ciphertext, inputs[0].proof);
  }
  // vector: false keeps one input per slot of the row (26 > 16: refused)
  await assert.rejects(key.encrypt(owner, decisions[1], { policy: WIDE, vector: false }), /at most 16/);
});

test("wide integers: out-of-range and malformed values are refused before encryption", async () => {
  await assert.rejects(decisionRow(WIDE, [20, 1, 1000001, 5]), /amount = 1000001 above its max 1000000/);
  await assert.rejects(decisionRow(WIDE, [20, 65536, 1, 5]), /code = 65536 above its max 65535/);
  await assert.rejects(decisionRow(WIDE, [20, 1, 1, 1n << 64n]), /balance.*out of range/);
  await assert.rejects(decisionRow(WIDE, [20, -1, 1, 5]), /code/);
  await assert.rejects(decisionRow(WIDE, [200, 1, 1, 5]), /age = 200 outside \[0, 127\]/);
  await assert.rejects(decisionRow(WIDE, [20, 1, 1]), /3 values, policy "wide_mix" declares 4 inputs/);
  await assert.rejects(decisionRow(WIDE, [20, 1, 1, 2 ** 60]), /not a safe integer/);
  await assert.rejects(decisionRow("fhegate_policy: 1\nname: x\n", [1]), /policy/);
  await assert.rejects(key.encrypt(owner, [20, 1, 1000001, 5], { policy: WIDE }), /above its max/);
});

test("compilePlan and evalPlan: the Go compiler's plan and its verdicts (what the contract mocks settle with)", async () => {
  const spec = readFileSync(path.join(repo, "examples", "creditgate", "credit_policy.yaml"));
  const plan = await compilePlan(spec);
  assert.equal(plan.name, "credit-gate-example");
  assert.equal(plan.inputs, 2);
  assert.deepEqual(plan.declared, ["income", "debt"]);
  assert.match(plan.planHash, /^0x[0-9a-f]{64}$/); // the chain's policy id: wasm/core_test.go's TestCompileAndEvalPlan
  assert.equal((await compilePlan(spec.toString("utf8"))).planHash, plan.planHash);
  for (let income = 0n; income <= 7n; income++) {
    for (let debt = 0n; debt <= 2n; debt++) {
      assert.equal(await evalPlan(spec, [income, debt]), income > 3n * debt ? 1n : 0n, `income ${income}, debt ${debt}`);
    }
  }
  await assert.rejects(evalPlan(spec, [1n]), /1 values, the plan of "credit-gate-example" takes 2 input slots/);
  await assert.rejects(compilePlan("fhegate_policy: 1\nname: x\ninputs: [{name: x, min: 0, max: 1000}]\noutput: {expr: \"x >= 77\"}\n"), /\{name: x, type: uint16, max: 1000\}/);
});

test("compilePlan decides what FHEPolicy.registerPolicy decides (the chain's ids, costs and refusals)", async () => {
  // contracts/hardhat/test/chain-policies.json: written by the chain's own code (precompiles/corebackends)
  const chain = JSON.parse(readFileSync(path.join(repo, "contracts", "hardhat", "test", "chain-policies.json"), "utf8"));
  for (const want of chain.policies) {
    const plan = await compilePlan(readFileSync(path.join(repo, want.file)));
    assert.deepEqual([plan.planHash, plan.depth, plan.cost, plan.inputs], [want.policyId, want.depth, want.cost, want.inputs], want.file);
  }
  for (const r of chain.refused) {
    await assert.rejects(compilePlan(r.spec), (e) => {
      assert.equal("FHEPolicy.registerPolicy: " + e.message, r.reason);
      return true;
    }, r.name);
  }
});

test("crdtMetadata, crdtCheck, crdtMerge: FHECRDT's metadata rules (what the contract mocks create and merge with)", async () => {
  const layout = { type: 2, preset: 2, level: 0, blocks: 4, width: 1 };
  const h = (b) => "0x" + b.repeat(32);
  const a = await crdtMetadata(layout, [{ block: 0, clock: 1, replica: 0, handle: h("a1") }]);
  const b = await crdtMetadata(layout, [{ block: 1, clock: 1, replica: 1, handle: h("b1") }]);
  assert.ok(a instanceof Uint8Array);
  assert.equal(Buffer.from(a.subarray(0, 4)).toString(), "FCRD");
  assert.deepEqual(await crdtCheck(2, a), [h("a1")]);
  const ab = await crdtMerge(2, a, b);
  assert.deepEqual(await crdtCheck(2, ab), [h("a1"), h("b1")]);
  assert.deepEqual(await crdtMerge(2, b, a), ab, "the join does not depend on the order");
  assert.deepEqual(ab, await crdtMetadata(layout, [{ block: 1, clock: 1, replica: 1, handle: h("b1") }, { block: 0, clock: 1, replica: 0, handle: h("a1") }]));
  await assert.rejects(crdtCheck(3, a), /^Error: metadata is a pn-counter state, kind 3 requested$/);
  await assert.rejects(crdtCheck(2, new Uint8Array([1, 2])), /crdt\/meta/);
  await assert.rejects(crdtMerge(2, a, await crdtMetadata({ ...layout, blocks: 8 }, [])), /crdt\/meta: merge: /);
  await assert.rejects(crdtMetadata(layout, [{ block: 1, clock: 1, replica: 0, handle: h("c1") }]), /replica 0 ≠ block/);
  await assert.rejects(crdtCheck(256, a), /kind: not an integer in \[0, 255\]/);
});
