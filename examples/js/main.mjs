// fhegate JavaScript client example (ethers v6), against `fhegate devnet`:
// a private credit application from encrypted inputs to the MPC committee's
// verdict, the same flow as examples/go.
//
//   go run ./cmd/fhegate devnet --datadir /tmp/fhegate          # terminal 1
//   cd examples/js && npm ci && FHEGATE_DATADIR=/tmp/fhegate npm start
//
// There is no FHE library for JavaScript here: the two inputs are encrypted
// under the committee's public key (each value in every slot) and uploaded as
// one set for one quorum attestation by the fhegate CLI (`fhegate encrypt
// --submit`, Lattigo underneath). Everything on chain — registering the
// attested inputs with one FHEInput.registerBatch, allowing the contract, deploying
// PrivateCreditGate, applying, waiting for the verdict the committee posts,
// settling — is plain ethers.
//
// Environment:
//   RPC_URL           devnet JSON-RPC (default http://127.0.0.1:8545)
//   FHEGATE_DATADIR   the devnet's --datadir (committee/api.addr, committee/committee.pk)
//   COMMITTEE_API     committee client API URL (instead of FHEGATE_DATADIR)
//   COMMITTEE_PK      committee public key file (instead of FHEGATE_DATADIR)
//   FHEGATE_BIN       fhegate CLI (default: `go run ./cmd/fhegate` in this repository)
//   PRIVATE_KEY       applicant key (default: dev account 1, printed by the devnet)
//   INCOME, DEBT      private values (default 5 and 1; approved iff income > 3*debt)
//   TIMEOUT_MS        give up after this long (default 180000)

import { ethers } from "ethers";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..", "..");
const artifacts = path.join(repo, "contracts", "artifacts");
const abi = (name) => JSON.parse(readFileSync(path.join(artifacts, `${name}.abi.json`), "utf8"));
const bytecode = (name) => "0x" + readFileSync(path.join(artifacts, `${name}.bin`), "utf8").trim();

// Precompile addresses (docs/precompiles.md).
const FHE_INPUT = "0x02000000000000000000000000000000000000f0";
const FHE_VERDICT = "0x02000000000000000000000000000000000000f3";

// The credit policy (a policy/ document with PrivateCreditGate's two inputs),
// shared with the Go client.
const POLICY = readFileSync(path.join(repo, "examples", "creditgate", "credit_policy.yaml"), "utf8");

const env = process.env;
const RPC_URL = env.RPC_URL || "http://127.0.0.1:8545";
// Dev account 1: a well-known public key, funded by the devnet genesis.
const PRIVATE_KEY = env.PRIVATE_KEY || "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const INCOME = Number(env.INCOME ?? 5);
const DEBT = Number(env.DEBT ?? 1);
const TIMEOUT_MS = Number(env.TIMEOUT_MS ?? 180000);

function committeeEndpoints() {
  if (env.COMMITTEE_API && env.COMMITTEE_PK) return { api: env.COMMITTEE_API, pk: env.COMMITTEE_PK };
  if (!env.FHEGATE_DATADIR) {
    throw new Error("set FHEGATE_DATADIR to the devnet's --datadir (or COMMITTEE_API and COMMITTEE_PK)");
  }
  const dir = path.join(env.FHEGATE_DATADIR, "committee");
  return { api: readFileSync(path.join(dir, "api.addr"), "utf8").trim(), pk: path.join(dir, "committee.pk") };
}

// encryptAndAttest encrypts each of values (one input per value, replicated
// in every slot) under the committee key, uploads them as one set and returns
// the committee's attestation — FHEInput.registerBatch's arguments:
// {owner, preset, epoch, handles, ctypes, proofDigests, signature, signers}.
function encryptAndAttest(values, owner, { api, pk }) {
  const cli = env.FHEGATE_BIN ? [env.FHEGATE_BIN] : ["go", "run", "./cmd/fhegate"];
  const out = execFileSync(cli[0], [...cli.slice(1), "encrypt", "--key", pk, "--values", values.join(","),
    "--submit", api, "--owner", owner, "--log-level", "warn"], { cwd: repo, encoding: "utf8" });
  return JSON.parse(out);
}

const log = (...a) => console.log(...a);

async function main() {
  const deadline = Date.now() + TIMEOUT_MS;
  const provider = new ethers.JsonRpcProvider(RPC_URL, undefined, { pollingInterval: 250 });
  // NonceManager counts nonces locally instead of asking the node before
  // every transaction (robust when transactions follow each other closely).
  const wallet = new ethers.NonceManager(new ethers.Wallet(PRIVATE_KEY, provider));
  const { chainId } = await provider.getNetwork();
  const applicant = await wallet.getAddress();
  log(`chain ${chainId} at ${RPC_URL}, applicant ${applicant}`);

  for (const addr of [FHE_INPUT, FHE_VERDICT]) {
    if ((await provider.getCode(addr)) !== "0x01") throw new Error(`precompile ${addr} is not active`);
  }
  const input = new ethers.Contract(FHE_INPUT, abi("IFHEInput"), wallet);
  const verdicts = new ethers.Contract(FHE_VERDICT, abi("IFHEVerdict"), wallet);
  const [epoch, threshold, size] = await verdicts.committee();
  log(`committee: epoch ${epoch}, ${threshold} of ${size}`);

  // 1. Encrypted inputs, attested by the committee, registered on chain.
  const committee = committeeEndpoints();
  const a = encryptAndAttest([INCOME, DEBT], applicant, committee);
  const rc = await (await input.registerBatch(a.owner, a.preset, a.handles, a.ctypes, a.proofDigests, a.signature, a.signers)).wait();
  const handles = a.handles;
  log(`income, debt: handles ${handles.join(", ")} registered with one registerBatch (epoch ${a.epoch}, gas ${rc.gasUsed})`);

  // 2. The gate registers the policy; it may use the applicant's inputs.
  const factory = new ethers.ContractFactory(abi("PrivateCreditGate"), bytecode("PrivateCreditGate"), wallet);
  const gate = await factory.deploy(ethers.toUtf8Bytes(POLICY), 1000n);
  await gate.waitForDeployment();
  const gateAddr = await gate.getAddress();
  log(`PrivateCreditGate at ${gateAddr}, policy ${await gate.policyId()}`);
  for (const h of handles) await (await input.allow(h, gateAddr)).wait();

  // 3. Apply: the request id comes back in the Applied event.
  const receipt = await (await gate.applyFor(handles[0], handles[1])).wait();
  const applied = receipt.logs.map((l) => { try { return gate.interface.parseLog(l); } catch { return null; } })
    .find((e) => e && e.name === "Applied");
  if (!applied) throw new Error("applyFor emitted no Applied event");
  const requestId = applied.args.requestId;
  log(`request ${requestId}; waiting for the committee's verdict…`);

  // 4. The committee evaluates the policy on the ciphertexts, threshold-
  //    decrypts only the verdict and posts it to FHEVerdict.
  for (;;) {
    const [ready, result, , vEpoch] = await verdicts.verdictOf(requestId);
    if (ready) { log(`verdict ${result} (epoch ${vEpoch})`); break; }
    if (Date.now() > deadline) throw new Error(`no verdict for ${requestId} after ${TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
  await (await gate.settle(requestId)).wait();
  const line = await gate.creditLine(applicant);
  const approved = line === 1000n;
  log(`settled: approved=${approved}, credit line ${line}`);
  if (approved !== (INCOME > 3 * DEBT)) throw new Error("verdict disagrees with the policy on the plaintext inputs");
  log("OK");
}

main().catch((e) => { console.error("examples/js:", e.shortMessage || e.message || e); if (env.DEBUG) console.error(e); process.exit(1); });
