// Drives examples/web in headless Chromium (Debian's chromium through
// puppeteer-core; no browser download) against an fhegate devnet: the page
// encrypts and proves the inputs with @fhegate/client in the browser,
// submits them with the policy's deposit and must show the verdict the
// credit policy gives on the plaintexts and the deposit refunded. Takes a screenshot of every failed case (and, with
// SCREENSHOT_DIR, of every case) and prints "N passed, N failed".
//
//   node test.mjs                        starts its own devnet (FHEGATE_BIN, else `go build ./cmd/fhegate`)
//   RPC_URL=… COMMITTEE_API=… node test.mjs   uses a running one (examples/run.sh does)
//
// Needs clients/js built (npm run build there). CHROMIUM picks the browser
// (default: chromium, chromium-browser or google-chrome on PATH).
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer from "puppeteer-core";
import { createServer } from "./serve.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..", "..");
const env = process.env;
const shots = env.SCREENSHOT_DIR || path.join(tmpdir(), "fhegate-web-screenshots");

function browserPath() {
  if (env.CHROMIUM) return env.CHROMIUM;
  for (const b of ["chromium", "chromium-browser", "google-chrome"]) {
    try {
      return execFileSync("sh", ["-c", `command -v ${b}`], { encoding: "utf8" }).trim();
    } catch {}
  }
  throw new Error("no Chromium found: apt-get install chromium, or set CHROMIUM");
}

// startDevnet runs `fhegate devnet --http-port 0` in a temporary datadir and
// waits for its JSON-RPC URL and committee API.
async function startDevnet(work) {
  let bin = env.FHEGATE_BIN;
  if (!bin) {
    bin = path.join(work, "fhegate");
    execFileSync("go", ["build", "-o", bin, "./cmd/fhegate"], { cwd: repo, stdio: "inherit" });
  }
  const datadir = path.join(work, "devnet");
  const proc = spawn(bin, ["devnet", "--http-port", "0", "--datadir", datadir], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  proc.stdout.on("data", (d) => (out += d));
  proc.stderr.on("data", (d) => (err += d));
  const deadline = Date.now() + 240_000;
  for (;;) {
    const m = out.match(/JSON-RPC +(http:\/\/[0-9.:]+)/);
    const apiFile = path.join(datadir, "committee", "api.addr");
    if (m && existsSync(apiFile)) return { proc, rpc: m[1], api: readFileSync(apiFile, "utf8").trim() };
    if (proc.exitCode !== null) throw new Error(`devnet exited ${proc.exitCode}:\n${err.slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`devnet did not come up:\n${err.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function stopDevnet(proc) {
  if (proc.exitCode !== null) return;
  const done = new Promise((r) => proc.once("exit", r));
  proc.kill("SIGTERM");
  await done;
}

const CASES = [
  { name: "approves income 5, debt 1", income: 5, debt: 1, want: "approved" },
  { name: "denies income 2, debt 1", income: 2, debt: 1, want: "denied" },
  { name: "refuses an income outside the policy's range before any work", income: 9, debt: 0, want: "error", text: /income must be 0…7/ },
];

async function main() {
  const work = mkdtempSync(path.join(tmpdir(), "fhegate-web-"));
  mkdirSync(shots, { recursive: true });
  let devnet, server, browser;
  let passed = 0;
  let failed = 0;
  try {
    let rpc = env.RPC_URL;
    let api = env.COMMITTEE_API;
    if (!rpc || !api) {
      devnet = await startDevnet(work);
      ({ rpc, api } = devnet);
      for (const sig of ["SIGINT", "SIGTERM"]) {
        process.once(sig, () => {
          devnet.proc.kill("SIGTERM");
          process.exit(130);
        });
      }
    }
    console.log(`devnet at ${rpc}, committee API ${api}`);
    server = createServer();
    await new Promise((r) => server.listen(Number(env.WEB_PORT || 0), "127.0.0.1", r));
    const origin = `http://127.0.0.1:${server.address().port}`;
    browser = await puppeteer.launch({
      executablePath: browserPath(),
      headless: true,
      args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
    });
    const page = await browser.newPage();
    await page.setViewport({ width: 900, height: 1000 });
    const consoleLines = [];
    page.on("console", (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
    page.on("pageerror", (e) => consoleLines.push(`pageerror: ${e.message}`));
    page.on("response", (r) => r.status() >= 400 && consoleLines.push(`HTTP ${r.status()} ${r.url()}`));
    const url = `${origin}/?rpc=${encodeURIComponent(rpc)}&api=${encodeURIComponent(api)}`;

    const step = async (name, fn) => {
      const t0 = Date.now();
      try {
        await fn();
        passed++;
        console.log(`ok   ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
        if (env.SCREENSHOT_DIR) await page.screenshot({ path: path.join(shots, `${name.replace(/\W+/g, "_")}.png`), fullPage: true });
      } catch (e) {
        failed++;
        const shot = path.join(shots, `FAILED_${name.replace(/\W+/g, "_")}.png`);
        await page.screenshot({ path: shot, fullPage: true }).catch(() => {});
        console.log(`FAIL ${name}: ${e.message}\n     screenshot ${shot}`);
        const logText = await page.$eval("#log", (el) => el.textContent).catch(() => "");
        if (logText) console.log(logText.replace(/^/gm, "     | "));
        for (const l of consoleLines.slice(-10)) console.log(`     console ${l}`);
      }
    };

    await step("page connects: wasm client, chain, committee key", async () => {
      await page.goto(url, { waitUntil: "load" });
      await page.click("#connect");
      await page.waitForFunction(() => ["connected", "error"].includes(document.body.dataset.state), { timeout: 120_000 });
      const state = await page.evaluate(() => document.body.dataset.state);
      if (state !== "connected") throw new Error(`page says: ${await page.$eval("#verdict", (el) => el.textContent)}`);
    });

    for (const c of CASES) {
      await step(c.name, async () => {
        await page.evaluate(() => (window.fhegateDemo.stages.length = 0));
        for (const [id, v] of [["#income", c.income], ["#debt", c.debt]]) {
          await page.$eval(id, (el) => (el.value = ""));
          await page.type(id, String(v));
        }
        // the form's own number bounds would block a bad value before our code: submit through the handler
        await page.$eval("#apply", (f) => f.dispatchEvent(new Event("submit", { cancelable: true })));
        if (env.SCREENSHOT_DIR && c.want !== "error") {
          // the progress indicator while the committee works
          await page.waitForFunction(() => window.fhegateDemo.stages.includes("verdict:0/1") || document.body.dataset.state === "error", { timeout: 240_000 });
          await page.screenshot({ path: path.join(shots, `${c.name.replace(/\W+/g, "_")}_waiting.png`), fullPage: true });
        }
        await page.waitForFunction(() => ["approved", "denied", "error"].includes(document.body.dataset.state), { timeout: 240_000 });
        const { state, text, stages, timings, deposit, depositText } = await page.evaluate(() => ({
          state: document.body.dataset.state,
          text: document.getElementById("verdict").textContent,
          stages: [...window.fhegateDemo.stages],
          timings: { ...window.fhegateDemo.timings },
          deposit: window.fhegateDemo.deposit,
          depositText: document.getElementById("deposit").textContent,
        }));
        if (state !== c.want) throw new Error(`page shows ${state} ("${text}"), want ${c.want}`);
        if (c.text && !c.text.test(text)) throw new Error(`page says "${text}", want ${c.text}`);
        if (c.want === "error") {
          if (stages.length) throw new Error(`work started for a refused input: ${stages}`);
          return;
        }
        for (const s of ["prove:0/2", "prove:1/2", "prove:2/2", "upload:1/1", "verdict:0/1", "settle:1/1"]) {
          if (!stages.includes(s)) throw new Error(`progress never showed ${s}: ${stages.join(" ")}`);
        }
        if ((await page.$eval("#progress", (el) => el.value)) !== 100) throw new Error("progress bar did not reach 100");
        // the credit policy is packed: a deposit went with the application and came back with the verdict
        if (!deposit || !(BigInt(deposit.wei) > 0n)) throw new Error(`no deposit sent: ${JSON.stringify(deposit)}`);
        if (deposit.outcome !== "refunded" || deposit.received !== deposit.wei) {
          throw new Error(`deposit ${deposit.wei} wei: ${deposit.outcome}, ${deposit.received} wei received (want all of it refunded)`);
        }
        if (!/^Deposit [0-9.]+ ETH refunded with the verdict/.test(depositText)) throw new Error(`page says "${depositText}" about the deposit`);
        console.log(`     browser: wasm start ${timings.wasmMs?.toFixed(0)} ms, key ${timings.keyMs?.toFixed(0)} ms, encrypt+prove ${timings.proveMs.toFixed(0)} ms per input, verdict after ${(timings.verdictMs / 1000).toFixed(1)} s`);
      });
    }
  } catch (e) {
    failed++;
    console.log(`FAIL setup: ${e.message}`);
  } finally {
    await browser?.close().catch(() => {});
    server?.close();
    if (devnet) await stopDevnet(devnet.proc);
    rmSync(work, { recursive: true, force: true });
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main();
