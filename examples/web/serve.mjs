// A static server for the page on loopback: the page (this directory), the
// built @fhegate/client (clients/js/dist, with the .wasm as
// application/wasm), ethers' browser build, the contract artifacts and the
// credit policy. Nothing else of the repository is served.
//
//   node serve.mjs [--port 41546]     then open http://127.0.0.1:41546/?rpc=…&api=…
import { createReadStream, statSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..", "..");
const require_ = (p) => path.join(here, "node_modules", p);

const ROUTES = [
  ["/client/", path.join(repo, "clients", "js", "dist")],
  ["/artifacts/", path.join(repo, "contracts", "artifacts")],
  ["/policy/", path.join(repo, "examples", "creditgate")],
  ["/vendor/ethers.min.js", require_("ethers/dist/ethers.min.js")],
  ["/", here],
];
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript", ".json": "application/json",
  ".wasm": "application/wasm", ".yaml": "text/plain; charset=utf-8", ".bin": "text/plain", ".png": "image/png" };

function resolve(urlPath) {
  for (const [prefix, target] of ROUTES) {
    if (!urlPath.startsWith(prefix)) continue;
    if (!prefix.endsWith("/")) return urlPath === prefix ? target : null;
    const rel = decodeURIComponent(urlPath.slice(prefix.length)) || "index.html";
    const file = path.resolve(target, rel);
    if (!file.startsWith(target + path.sep) && file !== target) return null; // no ../ escapes
    if (prefix === "/" && (rel.startsWith("node_modules") || !/\.(html|js)$/.test(rel))) return null;
    return file;
  }
  return null;
}

export function createServer() {
  return http.createServer((req, res) => {
    const file = resolve(new URL(req.url, "http://x").pathname);
    let st;
    try {
      st = file && statSync(file);
    } catch {}
    if (!st || !st.isFile()) {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("not found\n");
      return;
    }
    res.writeHead(200, { "Content-Type": TYPES[path.extname(file)] || "application/octet-stream", "Content-Length": st.size, "Cache-Control": "no-store" });
    createReadStream(file).pipe(res);
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--port");
  const port = i > 0 ? Number(process.argv[i + 1]) : 0;
  const srv = createServer().listen(port, "127.0.0.1", () => console.log(`examples/web at http://127.0.0.1:${srv.address().port}/`));
}
