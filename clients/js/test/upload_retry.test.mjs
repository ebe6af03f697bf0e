// Committee.upload resends an upload that got no answer or a busy answer
// (it is idempotent: handles hash the canonical bytes), and a refusal is
// final — what the Go client does (consensus/api, TestUploadRetriesWhatGotNoAnswer).
// A fake fetch plays the member; needs `npm run build` first (uploadBody
// runs in the wasm core).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Committee, UPLOAD_TRIES, handleOf } from "../dist/index.js";

const owner = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";

async function input() {
  const ciphertext = new TextEncoder().encode("canonical ciphertext bytes");
  const proof = new TextEncoder().encode("proof bytes");
  return { ciphertext, proof, handle: await handleOf(ciphertext), proofDigest: await handleOf(proof) };
}

function member(answers) {
  let tries = 0;
  const fetch = async () => {
    const a = answers[Math.min(tries++, answers.length - 1)];
    return a();
  };
  return { fetch, tries: () => tries };
}

const hangUp = () => {
  throw new TypeError("fetch failed");
};
const busy = (status) => () => new Response("member busy", { status, headers: { "Retry-After": "0" } });
const refuse = () => new Response("invalid proof", { status: 400 });

test("an upload that got no answer or a busy answer is sent again; a refusal is final", async () => {
  const x = await input();
  const attest = () =>
    new Response(JSON.stringify({ owner, handles: [x.handle], ctypes: [1], proofDigests: [x.proofDigest], signature: "0x00", signers: "0x01" }));
  let m = member([hangUp, busy(503), busy(429), attest]);
  const a = await new Committee("http://member.invalid", { fetch: m.fetch }).upload(owner, [x]);
  assert.equal(a.handles[0], x.handle);
  assert.equal(m.tries(), 4);

  m = member([refuse, attest]);
  await assert.rejects(new Committee("http://member.invalid", { fetch: m.fetch }).upload(owner, [x]), /refused the upload \(400\)/);
  assert.equal(m.tries(), 1);

  m = member([busy(503)]);
  await assert.rejects(new Committee("http://member.invalid", { fetch: m.fetch }).upload(owner, [x]), /after 4 tries: committee refused the upload \(503\)/);
  assert.equal(m.tries(), UPLOAD_TRIES);
});
