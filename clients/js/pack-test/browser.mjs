// Bundles page.js with esbuild (as an application would bundle its code with
// the packed @fhegate/client), serves the bundle, fhegate.wasm beside it and
// the committee key (FHEGATE_PK) on a loopback port, and runs the page in
// headless Chromium (puppeteer-core; CHROMIUM or chromium on PATH).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { build } from "esbuild";
import puppeteer from "puppeteer-core";

const www = path.resolve("www");
mkdirSync(www, { recursive: true });
const t0 = performance.now();
await build({ entryPoints: ["page.js"], bundle: true, format: "esm", platform: "browser", target: "es2022", outdir: www, logLevel: "warning" });
copyFileSync(path.resolve("node_modules/@fhegate/client/dist/fhegate.wasm"), path.join(www, "fhegate.wasm"));
copyFileSync("index.html", path.join(www, "index.html"));
copyFileSync(process.env.FHEGATE_PK, path.join(www, "pk.bin"));
const kib = (f) => (statSync(path.join(www, f)).size / 1024).toFixed(0);
console.log(`browser: esbuild bundled page.js in ${(performance.now() - t0).toFixed(0)} ms: page.js ${kib("page.js")} KiB + fhegate.wasm ${kib("fhegate.wasm")} KiB`);

const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".bin": "application/octet-stream" };
const server = createServer((req, res) => {
  const f = path.join(www, path.normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)).replace(/^(\.\.[/\\])+/, ""));
  try {
    const body = readFileSync(f.endsWith(path.sep) ? path.join(f, "index.html") : f);
    res.writeHead(200, { "Content-Type": types[path.extname(f)] || "application/octet-stream" });
    res.end(body);
  } catch {
    res.writeHead(404);
    res.end();
  }
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}/index.html`;

const which = (c) => { try { return execFileSync("sh", ["-c", `command -v ${c}`], { encoding: "utf8" }).trim(); } catch { return ""; } };
const executablePath = process.env.CHROMIUM || which("chromium") || which("chromium-browser");
if (!executablePath) throw new Error("no Chromium: apt-get install chromium, or set CHROMIUM");
const browser = await puppeteer.launch({ executablePath, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
try {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => window.result !== undefined, { timeout: 240_000, polling: 250 });
  const r = await page.evaluate(() => window.result);
  assert.equal(r.ok, true, r.error);
  assert.match(r.handle, /^0x[0-9a-f]{64}$/);
  assert.match(r.planHash, /^0x[0-9a-f]{64}$/);
  assert.deepEqual(errors, []);
  console.log(`browser: ${r.preset}: an input encrypted and proven, a plan compiled, viem encodes registerBatch (${r.ms} ms in Chromium)`);
} finally {
  await browser.close();
  server.close();
}
