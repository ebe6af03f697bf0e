// The packed @fhegate/client in Node, as an application imports it: the
// wasm core starts from the package's own fhegate.wasm, a committee key
// (FHEGATE_PK: its bytes, written by scripts/pack-test.mjs) encrypts and
// proves two inputs, compilePlan decides a policy, and the ethers and viem
// helpers encode FHEInput.registerBatch from the attestation's fields.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { FheKey, compilePlan, handleOf, init } from "@fhegate/client";
import * as withEthers from "@fhegate/client/ethers";
import * as withViem from "@fhegate/client/viem";
import { Interface } from "ethers";
import { encodeFunctionData } from "viem";

const owner = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const t0 = performance.now();
await init();
const key = await FheKey.fromAnnouncement({ publicKey: readFileSync(process.env.FHEGATE_PK), chainId: "1337", epoch: "1" });
const inputs = await key.encrypt(owner, [5, 1]);
assert.equal(inputs.length, 2);
for (const x of inputs) {
  assert.equal(await handleOf(x.ciphertext), x.handle);
  key.verify(owner, x.ciphertext, x.proof);
}
const plan = await compilePlan("fhegate_policy: 1\nname: gate\ninputs: [{name: income, min: 0, max: 15}, {name: debt, min: 0, max: 15}]\noutput: {expr: \"income > 3*debt\"}\n");
assert.match(plan.planHash, /^0x[0-9a-f]{64}$/);
await assert.rejects(compilePlan("fhegate_policy: 1\nname: wide\ninputs: [{name: x, min: 0, max: 255}]\noutput: {expr: \"x >= 77\"}\n"),
  /result noise exceeds what the decryption flooding hides/);

// an attestation's shape (Committee.submit returns it) through both helpers
const att = { owner, preset: 1, epoch: 1, handles: inputs.map((x) => x.handle), ctypes: [1, 1],
  proofDigests: inputs.map((x) => x.proofDigest), signature: "0x" + "11".repeat(96), signers: "0x03" };
const { input } = withEthers.precompiles(null);
assert.equal((await input.getAddress()).toLowerCase(), withEthers.ADDRESSES.input);
const viaEthers = new Interface(withEthers.INPUT_ABI).encodeFunctionData("registerBatch",
  [att.owner, att.preset, att.handles, att.ctypes, att.proofDigests, att.signature, att.signers]);
const viaViem = encodeFunctionData({ abi: withViem.precompiles.input.abi, functionName: "registerBatch", args: withViem.batchArgs(att) });
assert.equal(viaViem, viaEthers);
assert.equal(withViem.precompiles.verdict.address, withEthers.ADDRESSES.verdict);
console.log(`node: ${key.info.preset}: 2 inputs encrypted and proven, plan ${plan.planHash.slice(0, 10)}…, ethers and viem encode registerBatch alike (${(performance.now() - t0).toFixed(0)} ms)`);
