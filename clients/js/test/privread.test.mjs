// Private reads from Node with @fhegate/client (readPrivate): a Go helper
// runs a 2-of-3 in-process committee with an in-memory FHEInput ACL and
// one input of the owner; the owner's ethers Wallet signs the EIP-712
// request, two members re-encrypt their shares to the reader's own key,
// and the WebAssembly core combines and decrypts them. A stranger's
// signature is refused by every member. Needs `npm run build` first.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { Wallet } from "ethers";
import { Committee, DEVNET_PRESET, readerKeys, readPrivate } from "../dist/index.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..", "..", "..");
const ownerKey = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

let dir, proc, info;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "fhegate-privread-"));
  const helper = path.join(dir, "gohelper");
  execFileSync("go", ["build", "-o", helper, "./clients/js/test/gohelper"], { cwd: repo, stdio: "inherit" });
  proc = spawn(helper, ["committee", path.join(dir, "c"), ownerKey.slice(2)], { stdio: ["pipe", "pipe", "inherit"] });
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout }).once("line", resolve);
    proc.once("exit", (code) => reject(new Error(`gohelper committee exited ${code}`)));
  });
  info = JSON.parse(line);
});

after(() => {
  proc?.stdin.end();
  proc?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("the owner reads its input privately", async () => {
  // The key pair on the committee's preset, asked from a member's API.
  const keys = await readerKeys(new Committee(info.apis[0]));
  assert.notEqual(info.preset, DEVNET_PRESET, "the helper's committee is on a small preset: the default would not fit");
  const got = await readPrivate(info.apis, { handle: info.handle, keys, signer: new Wallet(ownerKey), chainId: info.chainId });
  assert.deepEqual(got.slice(0, 3), [11n, -22n, 33n]);
  // From another pair of members, with the chain id from the announcement.
  const again = await readPrivate(info.apis.slice(1), { handle: info.handle, keys, signer: new Wallet(ownerKey) });
  assert.deepEqual(again.slice(0, 3), [11n, -22n, 33n]);
});

test("a stranger is refused, and too few members is a clear error", async () => {
  const keys = await readerKeys(info.preset);
  const refused = await readPrivate(info.apis, { handle: info.handle, keys, signer: Wallet.createRandom(), chainId: info.chainId }).then(
    () => assert.fail("read"),
    (e) => e.message,
  );
  assert.match(refused, /none of the 3 members asked answered \(a member's answer names the threshold t\): .*not allowed/);
  assert.doesNotMatch(refused, /t=\?|t=0/);
  await assert.rejects(
    readPrivate(info.apis.slice(0, 1), { handle: info.handle, keys, signer: new Wallet(ownerKey), chainId: info.chainId }),
    /1 of the 1 members asked answered, the committee's threshold is t=2: give at least 2 member API URLs/,
  );
});
