// The page's logic: connect (dev key on a devnet), encrypt and prove the two
// inputs with @fhegate/client, register them, apply to PrivateCreditGate with
// the policy's deposit (the client's depositOf), wait for the committee's
// verdict, settle and show it and what became of the deposit (refunded, or
// burnt for a rejected input). No framework, no bundler: the import map in
// index.html resolves ethers and the client.
import { ethers } from "ethers";
import { Committee, init } from "@fhegate/client";
import { depositOf, depositOutcome, precompiles, registerBatch, waitForVerdict } from "@fhegate/client/ethers";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
// Dev account 1 of `fhegate devnet` (a well-known key).
const DEV_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
$("rpc").value = params.get("rpc") || "http://127.0.0.1:8545";
$("api").value = params.get("api") || "";
$("key").value = params.get("key") || DEV_KEY;

// What a test reads back (examples/web/test.mjs).
window.fhegateDemo = { stages: [], timings: {}, errors: [] };
const demo = window.fhegateDemo;

function log(msg) {
  $("log").textContent += `${new Date().toISOString().slice(11, 19)}  ${msg}\n`;
  $("log").scrollTop = $("log").scrollHeight;
}

// The progress bar: fixed shares of 100 per stage, the proofs in between.
const SHARES = { wasm: [0, 5], key: [5, 15], prove: [15, 60], upload: [60, 65], register: [65, 72], apply: [72, 80], verdict: [80, 97], settle: [97, 100] };
function progress(stage, done = 0, total = 1, text = "") {
  const [a, b] = SHARES[stage];
  $("progress").value = a + ((b - a) * done) / total;
  $("stage").textContent = text || stage;
  demo.stages.push(`${stage}:${done}/${total}`);
}

let session; // { wallet, provider, address, committee, gate, input, policy, verdict }

async function artifact(name) {
  const [abi, bin] = await Promise.all([
    fetch(`/artifacts/${name}.abi.json`).then((r) => r.json()),
    fetch(`/artifacts/${name}.bin`).then((r) => r.text()),
  ]);
  return { abi, bytecode: "0x" + bin.trim() };
}

// deployGate deploys PrivateCreditGate with the credit policy (once per
// page).
async function deployGate(wallet) {
  const spec = await fetch("/policy/credit_policy.yaml").then((r) => r.text());
  const { abi, bytecode } = await artifact("PrivateCreditGate");
  const gate = await new ethers.ContractFactory(abi, bytecode, wallet).deploy(ethers.toUtf8Bytes(spec), 1000n);
  await gate.waitForDeployment();
  log(`PrivateCreditGate at ${await gate.getAddress()}, policy ${(await gate.policyId()).slice(0, 18)}…`);
  return gate;
}

async function connect() {
  $("connect").disabled = true;
  try {
    progress("wasm", 0, 1, "loading the WebAssembly client…");
    let t = performance.now();
    await init();
    demo.timings.wasmMs = performance.now() - t;
    log(`WebAssembly client ready (${demo.timings.wasmMs.toFixed(0)} ms)`);
    progress("wasm", 1, 1);

    const provider = new ethers.JsonRpcProvider($("rpc").value, undefined, { pollingInterval: 250 });
    const wallet = new ethers.NonceManager(new ethers.Wallet($("key").value, provider));
    const { chainId } = await provider.getNetwork();
    const address = await wallet.getAddress();
    const { input, verdict, policy } = precompiles(wallet);
    for (const c of [input, policy, verdict]) {
      if ((await provider.getCode(await c.getAddress())) === "0x") throw new Error(`precompile ${await c.getAddress()} is not active on this chain`);
    }
    const [epoch, threshold, size] = await verdict.committee();
    log(`chain ${chainId}, account ${address}, committee epoch ${epoch} (${threshold} of ${size})`);

    progress("key", 0, 1, "fetching and preparing the committee key…");
    t = performance.now();
    const committee = new Committee($("api").value);
    const key = await committee.key();
    demo.timings.keyMs = performance.now() - t;
    log(`committee key ${key.info.preset}, digest ${key.info.keyDigest.slice(0, 18)}…, proofs bound to chain ${key.info.chainId} epoch ${key.info.epoch} (${demo.timings.keyMs.toFixed(0)} ms)`);
    progress("key", 1, 1);

    session = { wallet, provider, address, committee, input, policy, verdict, gate: null };
    $("account").textContent = `connected as ${address}`;
    $("submit").disabled = false;
    $("stage").textContent = "connected";
    document.body.dataset.state = "connected";
  } catch (e) {
    fail(e);
    $("connect").disabled = false;
  }
}

async function apply(ev) {
  ev.preventDefault();
  const income = Number($("income").value);
  const debt = Number($("debt").value);
  $("verdict").textContent = "";
  $("verdict").className = "";
  $("deposit").textContent = "";
  demo.deposit = undefined;
  $("progress").value = 0;
  $("stage").textContent = "";
  if (!Number.isInteger(income) || income < 0 || income > 7 || !Number.isInteger(debt) || debt < 0 || debt > 2) {
    return fail(new Error("income must be 0…7 and debt 0…2 (the policy's input ranges)"));
  }
  if (!session) return fail(new Error("connect first"));
  $("submit").disabled = true;
  document.body.dataset.state = "working";
  const { committee, provider, address, input, policy, verdict } = session;
  try {
    let t = performance.now();
    const att = await committee.submit(address, [income, debt], {
      onProgress: (p) => {
        if (p.stage === "prove" && p.done === 0) t = performance.now();
        if (p.stage === "prove" && p.done === p.total) demo.timings.proveMs = (performance.now() - t) / p.total;
        const text = p.stage === "prove" ? `encrypting and proving input ${Math.min(p.done + 1, p.total)} of ${p.total} in your browser…`
          : p.stage === "upload" ? "uploading to the committee for its attestation…" : "committee key";
        progress(p.stage, p.done, p.total, text);
      },
    });
    log(`2 inputs proven (${demo.timings.proveMs.toFixed(0)} ms each) and attested: ${att.handles.map((h) => h.slice(0, 10) + "…").join(", ")}`);
    progress("register", 0, 1, "registering the attested inputs on chain…");
    await registerBatch(input, att);
    const gate = session.gate ?? (session.gate = await deployGate(session.wallet));
    const gateAddr = await gate.getAddress();
    for (const h of att.handles) await (await input.allow(h, gateAddr)).wait();
    // FHEPolicy takes a deposit with the request (one packed evaluation's
    // committee gas): paid back with the verdict, burnt if the input is rejected
    const deposit = await depositOf(policy, await gate.policyId());
    const eth = `${ethers.formatEther(deposit)} ETH`;
    demo.deposit = { wei: deposit.toString() };
    $("deposit").textContent = `Deposit ${eth} sent with the application: held until the verdict.`;
    log(`deposit ${eth} (${deposit} wei, FHEPolicy.depositOf)`);
    progress("apply", 0, 1, "applying…");
    const rc = await (await gate.applyFor(att.handles[0], att.handles[1], { value: deposit })).wait();
    const applied = rc.logs.map((l) => { try { return gate.interface.parseLog(l); } catch { return null; } }).find((e) => e?.name === "Applied");
    const requestId = applied.args.requestId;
    log(`request ${requestId.slice(0, 18)}…; the committee evaluates it under encryption`);
    progress("verdict", 0, 1, "waiting for the committee's verdict…");
    t = performance.now();
    const v = await waitForVerdict(verdict, requestId, { timeoutMs: 240_000 });
    demo.timings.verdictMs = performance.now() - t;
    log(`verdict ${v.result} (epoch ${v.epoch}) after ${(demo.timings.verdictMs / 1000).toFixed(1)} s`);
    progress("settle", 0, 1, "settling…");
    // settle passes the refund on to us (the settling account: refund − fee)
    const before = await provider.getBalance(address);
    const settled = await (await gate.settle(requestId)).wait();
    const received = (await provider.getBalance(address)) - before + settled.fee;
    const claimable = await gate.refundOf(address);
    const outcome = depositOutcome(v.result);
    Object.assign(demo.deposit, { outcome, received: received.toString(), claimable: claimable.toString() });
    $("deposit").textContent = outcome === "burnt"
      ? `Deposit ${eth} burnt: the committee rejected an input outside the policy's range.`
      : `Deposit ${eth} refunded with the verdict: ${ethers.formatEther(received)} ETH received` +
        (claimable > 0n ? `, ${ethers.formatEther(claimable)} ETH claimable (withdrawRefund).` : ".");
    log(`deposit ${outcome}: ${received} wei received${claimable > 0n ? `, ${claimable} wei claimable` : ""}`);
    const line = await gate.creditLine(address);
    progress("settle", 1, 1, "done");
    const approved = v.result === 1n;
    $("verdict").textContent = approved ? `Approved — credit line ${line}` : "Denied";
    $("verdict").className = approved ? "approved" : "denied";
    document.body.dataset.state = approved ? "approved" : "denied";
  } catch (e) {
    fail(e);
  } finally {
    $("submit").disabled = false;
  }
}

function fail(e) {
  const msg = e?.shortMessage || e?.message || String(e);
  demo.errors.push(msg);
  log(`error: ${msg}`);
  $("verdict").textContent = msg;
  $("verdict").className = "error";
  document.body.dataset.state = "error";
}

$("connect").addEventListener("click", connect);
$("apply").addEventListener("submit", apply);
if (params.get("autoconnect") === "1") connect();
