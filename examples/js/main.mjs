// fhegate JavaScript client example (ethers v6 + @fhegate/client), against
// `fhegate devnet`: a private credit application from encrypted inputs to the
// MPC committee's verdict, the same flow as examples/go.
//
//   go run ./cmd/fhegate devnet --datadir /tmp/fhegate          # terminal 1
//   (cd clients/js && npm ci && npm run build)                  # the WebAssembly client, once
//   cd examples/js && npm ci && FHEGATE_DATADIR=/tmp/fhegate npm start
//
// The two inputs are encrypted under the committee's public key (each value in
// every slot), proven (proof of plaintext knowledge bound to the applicant,
// chain and key epoch) and uploaded as one set for one quorum attestation by
// @fhegate/client — the Go client compiled to WebAssembly, running here in
// Node. Everything on chain — registering the attested inputs with one
// FHEInput.registerBatch, allowing the contract, deploying PrivateCreditGate,
// applying with the policy's deposit (FHEPolicy.depositOf), waiting for the
// verdict the committee posts, settling (the gate passes the deposit's refund
// on; a rejected input's deposit is burnt) — is ethers (with the package's
// helpers).
//
// Environment:
//   RPC_URL           devnet JSON-RPC (default http://127.0.0.1:8545)
//   FHEGATE_DATADIR   the devnet's --datadir (committee/api.addr)
//   COMMITTEE_API     committee client API URL (instead of FHEGATE_DATADIR)
//   PRIVATE_KEY       applicant key (default: dev account 1, printed by the devnet)
//   INCOME, DEBT      private values (default 5 and 1; approved iff income > 3*debt)
//   TIMEOUT_MS        give up after this long (default 180000)

import { ethers } from "ethers";
import { Committee } from "@fhegate/client";
import { depositOf, depositOutcome, precompiles, registerBatch, waitForVerdict } from "@fhegate/client/ethers";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..", "..");
const artifacts = path.join(repo, "contracts", "artifacts");
const abi = (name) => JSON.parse(readFileSync(path.join(artifacts, `${name}.abi.json`), "utf8"));
const bytecode = (name) => "0x" + readFileSync(path.join(artifacts, `${name}.bin`), "utf8").trim();

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

function committeeAPI() {
  if (env.COMMITTEE_API) return env.COMMITTEE_API;
  if (!env.FHEGATE_DATADIR) throw new Error("set FHEGATE_DATADIR to the devnet's --datadir (or COMMITTEE_API)");
  return readFileSync(path.join(env.FHEGATE_DATADIR, "committee", "api.addr"), "utf8").trim();
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

  const { input, policy, verdict: verdicts } = precompiles(wallet);
  for (const c of [input, verdicts]) {
    const addr = await c.getAddress();
    if ((await provider.getCode(addr)) !== "0x01") throw new Error(`precompile ${addr} is not active`);
  }
  const [epoch, threshold, size] = await verdicts.committee();
  log(`committee: epoch ${epoch}, ${threshold} of ${size}`);

  // 1. Encrypted and proven here (WebAssembly), attested by the committee,
  //    registered on chain.
  const committee = new Committee(committeeAPI());
  const t0 = performance.now();
  const a = await committee.submit(applicant, [INCOME, DEBT]);
  log(`encrypted, proven and attested in ${(performance.now() - t0).toFixed(0)} ms (key ${(await committee.key()).info.preset})`);
  const rc = await registerBatch(input, a);
  const handles = a.handles;
  log(`income, debt: handles ${handles.join(", ")} registered with one registerBatch (epoch ${a.epoch}, gas ${rc.gasUsed})`);

  // 2. The gate registers the policy; it may use the applicant's inputs.
  const factory = new ethers.ContractFactory(abi("PrivateCreditGate"), bytecode("PrivateCreditGate"), wallet);
  const gate = await factory.deploy(ethers.toUtf8Bytes(POLICY), 1000n);
  await gate.waitForDeployment();
  const gateAddr = await gate.getAddress();
  log(`PrivateCreditGate at ${gateAddr}, policy ${await gate.policyId()}`);
  for (const h of handles) await (await input.allow(h, gateAddr)).wait();

  // 3. Apply, sending the policy's deposit (FHEPolicy holds it until the
  //    verdict): the request id comes back in the Applied event.
  const deposit = await depositOf(policy, await gate.policyId());
  log(`deposit ${ethers.formatEther(deposit)} ETH (${deposit} wei): refunded with the verdict, burnt if the input is rejected`);
  const receipt = await (await gate.applyFor(handles[0], handles[1], { value: deposit })).wait();
  const applied = receipt.logs.map((l) => { try { return gate.interface.parseLog(l); } catch { return null; } })
    .find((e) => e && e.name === "Applied");
  if (!applied) throw new Error("applyFor emitted no Applied event");
  const requestId = applied.args.requestId;
  log(`request ${requestId}; waiting for the committee's verdict…`);

  // 4. The committee evaluates the policy on the ciphertexts, threshold-
  //    decrypts only the verdict and posts it to FHEVerdict.
  const { result, epoch: vEpoch } = await waitForVerdict(verdicts, requestId, { timeoutMs: Math.max(0, deadline - Date.now()) });
  log(`verdict ${result} (epoch ${vEpoch})`);
  // settle passes the refund FHEVerdict paid the gate on to the applicant
  // (the settling account here, so its balance moves by refund − fee)
  const before = await provider.getBalance(applicant);
  const settled = await (await gate.settle(requestId)).wait();
  const received = (await provider.getBalance(applicant)) - before + settled.fee;
  const line = await gate.creditLine(applicant);
  const approved = line === 1000n;
  log(`settled: approved=${approved}, credit line ${line}; deposit ${depositOutcome(result)}, ${ethers.formatEther(received)} ETH back`);
  const want = depositOutcome(result) === "refunded" ? deposit : 0n;
  if (received !== want) throw new Error(`got ${received} wei of the deposit back, want ${want}`);
  if (approved !== (INCOME > 3 * DEBT)) throw new Error("verdict disagrees with the policy on the plaintext inputs");
  log("OK");
}

main().catch((e) => { console.error("examples/js:", e.shortMessage || e.message || e); if (env.DEBUG) console.error(e); process.exit(1); });
