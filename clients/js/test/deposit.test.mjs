// Deposits on the client side, without a chain: the ABIs the helpers use are
// the precompiles' own (precompiles/abi, which the chain embeds: evaluate*
// payable, depositOf, DepositsSettled), and depositOutcome names what FHEVerdict
// does with a deposit for a result. The helpers sending depositOf and getting
// it back run on the precompile mocks (contracts/hardhat/test/Client.test.cjs)
// and on a devnet (test/devnet.test.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { RESULT_EXPIRED, RESULT_REJECTED_INPUT, RESULT_UNEVALUABLE, depositOutcome } from "../dist/index.js";
import * as withEthers from "../dist/ethers.js";
import * as withViem from "../dist/viem.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const chainABI = (n) => JSON.parse(readFileSync(path.resolve(here, "..", "..", "..", "precompiles", "abi", `${n}.abi.json`), "utf8"));

test("the client's ABIs are the ones the precompiles embed", () => {
  for (const [mine, n] of [[withEthers.INPUT_ABI, "IFHEInput"], [withEthers.POLICY_ABI, "IFHEPolicy"], [withEthers.CRDT_ABI, "IFHECRDT"], [withEthers.VERDICT_ABI, "IFHEVerdict"]]) {
    assert.deepEqual(mine, chainABI(n), `${n}: rebuild (npm run build regenerates src/abi.ts from contracts/artifacts)`);
  }
  assert.equal(withViem.precompiles.policy.abi, withEthers.POLICY_ABI);
  const fn = (name) => withEthers.POLICY_ABI.find((x) => x.type === "function" && x.name === name);
  for (const m of ["evaluate", "evaluateAttested", "evaluateRooted"]) assert.equal(fn(m).stateMutability, "payable", m);
  assert.equal(fn("depositOf").stateMutability, "view");
  assert.ok(withEthers.VERDICT_ABI.find((x) => x.type === "event" && x.name === "DepositsSettled"));
});

test("depositOutcome: burnt for a rejected input, refunded for every other result", () => {
  assert.equal(RESULT_UNEVALUABLE, 2n ** 256n - 1n);
  assert.equal(RESULT_EXPIRED, 2n ** 256n - 2n);
  assert.equal(RESULT_REJECTED_INPUT, 2n ** 256n - 3n);
  assert.equal(depositOutcome(RESULT_REJECTED_INPUT), "burnt");
  for (const r of [0n, 1n, 65536n, RESULT_UNEVALUABLE, RESULT_EXPIRED]) assert.equal(depositOutcome(r), "refunded", String(r));
  assert.equal(withEthers.depositOutcome, depositOutcome);
  assert.equal(withViem.RESULT_REJECTED_INPUT, RESULT_REJECTED_INPUT);
});
