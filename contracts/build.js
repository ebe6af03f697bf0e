#!/usr/bin/env node
// Deterministic build of contracts/src with the pinned npm solc (package.json).
// Writes artifacts/<Name>.abi.json, artifacts/<Name>.bin (creation bytecode, hex)
// and artifacts/<Name>.bin-runtime for every contract, interface and library.
// Metadata hash is disabled (bytecodeHash "none") and sources are fed in sorted
// order with relative paths, so output depends only on the source text.
"use strict";
const fs = require("fs");
const path = require("path");
const solc = require("solc");

const root = __dirname;
const srcDir = path.join(root, "src");
const outDir = path.join(root, "artifacts");
const EXPECTED = "0.8.28";

function walk(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else if (e.name.endsWith(".sol")) out.push(p);
  }
  return out;
}

if (!solc.version().startsWith(EXPECTED + "+")) {
  console.error(`solc ${solc.version()} found, ${EXPECTED} required (run npm ci)`);
  process.exit(1);
}

const sources = {};
for (const f of walk(srcDir)) {
  sources[path.relative(srcDir, f).split(path.sep).join("/")] = { content: fs.readFileSync(f, "utf8") };
}
const input = {
  language: "Solidity",
  sources,
  settings: {
    evmVersion: "cancun",
    optimizer: { enabled: true, runs: 200 },
    metadata: { bytecodeHash: "none", appendCBOR: false },
    outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] } },
  },
};
const output = JSON.parse(solc.compile(JSON.stringify(input)));
let failed = false;
for (const e of output.errors || []) {
  console.error(e.formattedMessage);
  if (e.severity === "error") failed = true;
}
if (failed) process.exit(1);

fs.rmSync(outDir, { recursive: true, force: true });
fs.mkdirSync(outDir, { recursive: true });
const names = [];
for (const file of Object.keys(output.contracts).sort()) {
  for (const name of Object.keys(output.contracts[file]).sort()) {
    const c = output.contracts[file][name];
    fs.writeFileSync(path.join(outDir, `${name}.abi.json`), JSON.stringify(c.abi, null, 2) + "\n");
    fs.writeFileSync(path.join(outDir, `${name}.bin`), c.evm.bytecode.object + "\n");
    fs.writeFileSync(path.join(outDir, `${name}.bin-runtime`), c.evm.deployedBytecode.object + "\n");
    names.push(`${name} ${file}`);
  }
}
// The precompile core embeds the interface ABIs (precompiles/abi/), so the
// Solidity interfaces are the single source of truth for selectors and events.
const abiDir = path.join(root, "..", "precompiles", "abi");
fs.mkdirSync(abiDir, { recursive: true });
for (const name of ["IFHEInput", "IFHEPolicy", "IFHECRDT", "IFHEVerdict"]) {
  fs.copyFileSync(path.join(outDir, `${name}.abi.json`), path.join(abiDir, `${name}.abi.json`));
}
fs.writeFileSync(path.join(outDir, "MANIFEST"), `solc ${solc.version()}\n` + names.join("\n") + "\n");
console.log(`compiled ${names.length} contracts with solc ${solc.version()} into ${path.relative(process.cwd(), outDir) || "."}`);
