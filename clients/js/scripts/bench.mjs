#!/usr/bin/env node
// npm run bench: the numbers docs/LP-137.md reports for @fhegate/client in
// Node — bundle size (raw, gzip -9), wasm start, key preparation, and
// encrypt+prove per scalar input (RUNS runs, default 7: min / median / max)
// for each preset in PRESETS (default bgv-n13-t65537,bgv-n14-t65537).
// Keys come from test/gohelper (single-party, like the committee's shape).
// Needs `npm run build` first. The browser's numbers come from
// examples/web/test.mjs (it prints them).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { FheKey, init } from "../dist/index.js";

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const repo = path.resolve(here, "..", "..");
const runs = Number(process.env.RUNS || 7);
const presets = (process.env.PRESETS || "bgv-n13-t65537,bgv-n14-t65537").split(",");
const owner = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";

const wasm = path.join(here, "dist", "fhegate.wasm");
const raw = statSync(wasm).size;
const gz = gzipSync(readFileSync(wasm), { level: 9 }).length;
const js = ["index.js", "ethers.js", "abi.js", "wasm_exec.js"].reduce((n, f) => n + statSync(path.join(here, "dist", f)).size, 0);
console.log(`bundle: fhegate.wasm ${raw} B (${(raw / 2 ** 20).toFixed(2)} MiB), gzip -9 ${gz} B (${(gz / 2 ** 20).toFixed(2)} MiB); JS ${js} B`);

let t = performance.now();
await init();
console.log(`wasm compile + start: ${(performance.now() - t).toFixed(0)} ms (Node ${process.version})`);

const dir = mkdtempSync(path.join(tmpdir(), "fhegate-bench-"));
try {
  const helper = path.join(dir, "gohelper");
  execFileSync("go", ["build", "-o", helper, "./clients/js/test/gohelper"], { cwd: repo, stdio: "inherit" });
  for (const preset of presets) {
    execFileSync(helper, ["keygen", dir, preset]);
    const pk = readFileSync(path.join(dir, "pk.bin"));
    t = performance.now();
    const key = await FheKey.fromAnnouncement({ publicKey: pk, chainId: "1337", epoch: "1" });
    const prep = performance.now() - t;
    const ms = [];
    for (let i = 0; i < runs; i++) {
      t = performance.now();
      await key.encrypt(owner, [i]);
      ms.push(performance.now() - t);
    }
    ms.sort((a, b) => a - b);
    console.log(`${preset}: key ${pk.length} B prepared in ${prep.toFixed(0)} ms; encrypt+prove per input ` +
      `min ${ms[0].toFixed(0)} / median ${ms[ms.length >> 1].toFixed(0)} / max ${ms[ms.length - 1].toFixed(0)} ms (${runs} runs); proof ${key.info.proofSize} B`);
    key.release();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
