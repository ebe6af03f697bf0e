#!/usr/bin/env node
// npm run test:pack: @fhegate/client as a project installs it. Packs the
// package (npm pack: the built dist/ only; run npm run build first), makes a
// fresh project in a temporary directory from pack-test/ (pinned ethers,
// viem, esbuild and puppeteer-core), installs the tarball there, then
//   node.mjs     imports it in Node, encrypts and proves under a committee
//                key, compiles a policy, encodes with the ethers and viem helpers;
//   browser.mjs  bundles a page with esbuild and runs it in headless Chromium
//                (skipped without a Chromium unless CI=true).
// Offline but for the registry: the committee key is a fresh bgv-n13 key
// (test/gohelper keygen, or FHEGATE_PK: a committee.pk of a devnet).
// Prints the tarball's size and each step's time.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const repo = path.resolve(here, "..", "..");
const tmp = mkdtempSync(path.join(tmpdir(), "fhegate-pack-"));
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: "inherit", ...opts });
const step = (what, fn) => {
  const t0 = performance.now();
  const r = fn();
  console.log(`pack: ${what} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return r;
};

try {
  const [packed] = step("npm pack", () =>
    JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", tmp], { cwd: here, encoding: "utf8" })));
  const mib = (n) => (n / (1 << 20)).toFixed(2);
  console.log(`pack: ${packed.filename}: ${packed.size} bytes (${mib(packed.size)} MiB) packed, ${packed.unpackedSize} bytes (${mib(packed.unpackedSize)} MiB) unpacked, ${packed.entryCount} files`);
  for (const need of ["dist/index.js", "dist/ethers.js", "dist/viem.js", "dist/fhegate.wasm", "dist/wasm_exec.js", "dist/index.d.ts"]) {
    if (!packed.files.some((f) => f.path === need)) throw new Error(`the tarball lacks ${need} (run npm run build first)`);
  }

  const proj = path.join(tmp, "project");
  mkdirSync(proj);
  for (const f of readdirSync(path.join(here, "pack-test"), { withFileTypes: true })) {
    if (f.isFile()) copyFileSync(path.join(here, "pack-test", f.name), path.join(proj, f.name));
  }
  step("npm ci (ethers, viem, esbuild, puppeteer-core)", () => run("npm", ["ci", "--no-audit", "--no-fund", "--silent"], { cwd: proj }));
  step("npm install the tarball", () =>
    run("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--silent", path.join(tmp, packed.filename)], { cwd: proj }));

  let pk = process.env.FHEGATE_PK;
  if (!pk) {
    step("a committee key (bgv-n13-t65537, test/gohelper keygen)", () => {
      run("go", ["build", "-o", path.join(tmp, "gohelper"), "./clients/js/test/gohelper"], { cwd: repo });
      run(path.join(tmp, "gohelper"), ["keygen", tmp, "bgv-n13-t65537"]);
    });
    pk = path.join(tmp, "pk.bin");
  }
  const env = { ...process.env, FHEGATE_PK: pk };
  step("Node", () => run(process.execPath, ["node.mjs"], { cwd: proj, env }));
  const chromium = process.env.CHROMIUM || ["chromium", "chromium-browser"].find((c) => {
    try {
      execFileSync("sh", ["-c", `command -v ${c}`], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  });
  if (chromium) step("browser (esbuild bundle, headless Chromium)", () => run(process.execPath, ["browser.mjs"], { cwd: proj, env }));
  else if (process.env.CI === "true") throw new Error("no Chromium (apt-get install chromium, or set CHROMIUM)");
  else console.log("pack: browser skipped: no Chromium on PATH (apt-get install chromium, or set CHROMIUM)");
  console.log("pack: OK");
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
