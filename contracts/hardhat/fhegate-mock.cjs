// Mock mode for contract tests: etches the precompile mocks
// (contracts/src/mocks, compiled into contracts/artifacts) at the fhegate
// precompile addresses with hardhat_setCode, and gives tests the client's
// side and the committee's: encrypt (mockEncrypt: an attestation of the same
// shape as @fhegate/client's), and settle (the verdict the committee would
// post: by default what the policy's compiled plan gives on the request's
// plaintexts, run by @fhegate/client's wasm core; a test may force one).
// The mock FHEPolicy registers a spec as the chain does: @fhegate/client's
// compilePlan (the Go compiler and the chain's admission rule) decides its
// policy id, depth, cost and input count, or refuses it with the chain's
// reason (compileOnDemand).
//
//   const { installMocks } = require("../fhegate-mock.cjs");
//   const fhe = await installMocks(hre);
//   const att = await fhe.encrypt(alice, [5, 1]);
//   await fhe.input.connect(alice).registerBatch(...fhe.batchArgs(att));
//   ... await fhe.settle(requestId);               // the registered policy's plan decides
//   ... await fhe.settle(requestId, UNEVALUABLE);  // or the test forces a verdict
//
// fhegate.cjs picks these mocks or a running devnet (fhegate-devnet.cjs)
// by the Hardhat network, so one test file runs on both.
//
// Deposits are the chain's: evaluate* take exactly FHEPolicy.depositOf as
// their value (cost × 4096 × 1 gwei for a packed policy, 0 for one evaluated
// alone), and settle / settleValue / expire pay it back to the requester —
// a balance credit, no code of the requester runs — or burn it for
// REJECTED_INPUT, logging DepositsSettled.
//
// LIMITS: plaintext on chain, no proofs, no signatures, no packing and none
// of the precompiles' gas. A passing mock test says the contract's logic and
// its use of the interfaces are right; it says nothing about
// confidentiality or gas (run those against `fhegate devnet`).
const fs = require("node:fs");
const path = require("node:path");

const ARTIFACTS = path.resolve(__dirname, "..", "artifacts");
const ADDRESSES = {
  input: "0x02000000000000000000000000000000000000f0",
  policy: "0x02000000000000000000000000000000000000f1",
  crdt: "0x02000000000000000000000000000000000000f2",
  verdict: "0x02000000000000000000000000000000000000f3",
};
const MOCKS = { input: "MockFHEInput", policy: "MockFHEPolicy", crdt: "MockFHECRDT", verdict: "MockFHEVerdict" };

// @fhegate/client (ESM), loaded when a plan is first needed: the package
// where the project depends on it, else this repository's build.
let clientP;
function client() {
  clientP ??= import("@fhegate/client").catch(() =>
    import(require("node:url").pathToFileURL(path.resolve(__dirname, "..", "..", "clients", "js", "dist", "index.js")).href).catch((e) => {
      clientP = undefined;
      throw new Error(`the mocks decide as the chain does with @fhegate/client's wasm core (policy registration, plans, CRDT metadata): build it (cd clients/js && npm ci && npm run build) or add it to your project (${e.message})`);
    }),
  );
  return clientP;
}

// FHEVerdict's sentinels (precompiles/verdict.go): what a test forces with
// fhe.settle(requestId, UNEVALUABLE) to see a contract handle them.
const UNEVALUABLE = (1n << 256n) - 1n; // the committee cannot evaluate the request
const REJECTED_INPUT = (1n << 256n) - 3n; // an input outside the plan's declared range
// t of the public presets: the committee posts decrypted values in [0, t).
const PLAINTEXT_MODULUS = 65537n;

const abi = (name) => JSON.parse(fs.readFileSync(path.join(ARTIFACTS, `${name}.abi.json`), "utf8"));
const bin = (name, kind = "bin") => "0x" + fs.readFileSync(path.join(ARTIFACTS, `${name}.${kind}`), "utf8").trim();

/**
 * Etches the four mocks and returns the test handle on them. With
 * { reset: true } it first resets the Hardhat chain, so every test starts
 * with empty precompile state (etching replaces code, not storage).
 * It also lets the mock FHEPolicy register specs and the mock FHECRDT take
 * and merge metadata as the chain does (compileOnDemand).
 */
async function installMocks(hre, { reset = false } = {}) {
  const { ethers, network } = hre;
  if (reset) await network.provider.send("hardhat_reset");
  const c = {};
  for (const [k, name] of Object.entries(MOCKS)) {
    await network.provider.send("hardhat_setCode", [ADDRESSES[k], bin(name, "bin-runtime")]);
    c[k] = new ethers.Contract(ADDRESSES[k], abi(name), (await ethers.getSigners())[0]);
  }
  compileOnDemand(network.provider, { policy: c.policy.interface, crdt: c.crdt.interface });
  return new MockFHE(hre, c);
}

// The mocks keep what the chain's Go code decides — MockFHEPolicy what
// registration decides about a spec (`compiled`, storage slot 0),
// MockFHECRDT what create decides about metadata (`checked`, slot 0) and
// the join merge computes (`merged`, slot 1) — and revert with
// SpecNotCompiled, MetadataNotChecked or MetadataNotMerged for what they
// have not seen. compileOnDemand wraps the Hardhat provider: when a call, a
// gas estimate or a transaction would revert so, it asks @fhegate/client's
// wasm core (compilePlan: the Go compiler and the chain's admission rule;
// crdtCheck, crdtMerge: fhe/crdt/meta), writes the decision into the mock's
// storage (hardhat_setStorageAt: no transaction, no block) and runs the
// request again. A transaction is tried as a call first, so a reverted one
// is never mined. Policy ids, depth, cost, input counts, merged metadata
// and refusals are then the chain's.
const WRAPPED = Symbol.for("fhegate.compileOnDemand");
function compileOnDemand(provider, ifaces) {
  if (provider[WRAPPED]) return;
  provider[WRAPPED] = true;
  const request = provider.request.bind(provider);
  const decide = {
    [ifaces.policy.getError("SpecNotCompiled").selector]: (d) => declarePlan(request, ...ifaces.policy.parseError(d).args),
    [ifaces.crdt.getError("MetadataNotChecked").selector]: (d) => declareChecked(request, ...ifaces.crdt.parseError(d).args),
    [ifaces.crdt.getError("MetadataNotMerged").selector]: (d) => declareMerged(request, ...ifaces.crdt.parseError(d).args),
  };
  // what a failed request needs decided, or undefined
  const pending = (e) => {
    for (let x = e, i = 0; x && i < 6; x = x.error || x.cause || x.info?.error, i++) {
      const d = typeof x.data === "string" ? x.data : x.data?.data;
      if (typeof d === "string" && decide[d.slice(0, 10)]) return () => decide[d.slice(0, 10)](d);
    }
    return undefined;
  };
  const failed = Symbol("decision failed");
  const withDecided = async (fn) => {
    for (let i = 0; ; i++) {
      try {
        return await fn();
      } catch (e) {
        const need = pending(e);
        if (!need || i >= 64) throw e;
        await need().catch((err) => {
          err[failed] = true; // the wasm core could not be loaded: say so, not the mock's revert
          throw err;
        });
      }
    }
  };
  provider.request = async (args) => {
    switch (args.method) {
      case "eth_call":
      case "eth_estimateGas":
        return withDecided(() => request(args));
      case "eth_sendTransaction": {
        const tx = args.params[0];
        await withDecided(() => request({ method: "eth_call", params: [tx, "pending"] })).catch((e) => {
          if (e?.[failed]) throw e; // any other revert: the transaction reports it
        });
        return request(args);
      }
      default:
        return request(args);
    }
  };
  provider.send = (method, params) => provider.request({ method, params });
}

// Storage writers: a word, a Solidity string/bytes (short: inline with
// 2·length; long: 2·length + 1, the data from keccak256(slot)) and a
// bytes32[] (its length, the elements from keccak256(slot)).
function storage(request, address) {
  const { keccak256, toBeHex, zeroPadValue, hexlify } = require("ethers");
  const u = (n) => toBeHex(BigInt(n), 32);
  const word = (slot, w) => request({ method: "hardhat_setStorageAt", params: [address, toBeHex(slot), zeroPadValue(w, 32)] });
  return {
    u,
    word,
    async bytes(slot, b) {
      if (b.length < 32) {
        const w = new Uint8Array(32);
        w.set(b);
        w[31] = b.length * 2;
        return word(slot, hexlify(w));
      }
      await word(slot, u(b.length * 2 + 1));
      const data = BigInt(keccak256(u(slot)));
      for (let i = 0; i * 32 < b.length; i++) {
        const w = new Uint8Array(32);
        w.set(b.subarray(i * 32, i * 32 + 32));
        await word(data + BigInt(i), hexlify(w));
      }
    },
    async words(slot, ws) {
      await word(slot, u(ws.length));
      const data = BigInt(keccak256(u(slot)));
      for (const [i, w] of ws.entries()) await word(data + BigInt(i), w);
    },
  };
}

// mapSlot is the storage slot of mapping[key] for a mapping at slot n.
function mapSlot(key, n) {
  const { AbiCoder, keccak256 } = require("ethers");
  return BigInt(keccak256(AbiCoder.defaultAbiCoder().encode(["bytes32", "uint256"], [key, n])));
}

// declarePlan writes MockFHEPolicy's `compiled[specHash]`: what compilePlan
// decides about spec (status 1: plan hash, depth, cost, inputs, alone — the
// plan is evaluated by itself and takes no deposit; status 2: the reason).
async function declarePlan(request, specHash, spec) {
  const { getBytes, toUtf8Bytes } = require("ethers");
  const st = storage(request, ADDRESSES.policy);
  const base = mapSlot(specHash, 0);
  const { compilePlan } = await client();
  let plan;
  try {
    plan = await compilePlan(getBytes(spec));
  } catch (e) {
    await st.bytes(base + 5n, toUtf8Bytes(e.message));
    await st.word(base, st.u(2));
    return;
  }
  await st.word(base + 1n, plan.planHash);
  await st.word(base + 2n, st.u(plan.depth));
  await st.word(base + 3n, st.u(plan.cost));
  await st.word(base + 4n, st.u(plan.inputs));
  await st.word(base + 6n, st.u(plan.alone ? 1 : 0));
  await st.word(base, st.u(1));
}

// declareChecked writes MockFHECRDT's `checked[keccak(kind, metadata)]`:
// what crdtCheck decides (status 1: the referenced handles; status 2: the reason).
async function declareChecked(request, kind, metadata) {
  const { AbiCoder, keccak256, getBytes, toUtf8Bytes } = require("ethers");
  const st = storage(request, ADDRESSES.crdt);
  const base = mapSlot(keccak256(AbiCoder.defaultAbiCoder().encode(["uint8", "bytes"], [kind, metadata])), 0);
  const { crdtCheck } = await client();
  let handles;
  try {
    handles = await crdtCheck(Number(kind), getBytes(metadata));
  } catch (e) {
    await st.bytes(base + 1n, toUtf8Bytes(e.message));
    await st.word(base, st.u(2));
    return;
  }
  await st.words(base + 2n, handles);
  await st.word(base, st.u(1));
}

// declareMerged writes MockFHECRDT's `merged[keccak(kind, a, b)]`: what
// crdtMerge decides (status 1: the merged metadata; status 2: the reason).
async function declareMerged(request, kind, a, b) {
  const { AbiCoder, keccak256, getBytes, toUtf8Bytes } = require("ethers");
  const st = storage(request, ADDRESSES.crdt);
  const base = mapSlot(keccak256(AbiCoder.defaultAbiCoder().encode(["uint8", "bytes", "bytes"], [kind, a, b])), 1);
  const { crdtMerge } = await client();
  let m;
  try {
    m = await crdtMerge(Number(kind), getBytes(a), getBytes(b));
  } catch (e) {
    await st.bytes(base + 1n, toUtf8Bytes(e.message));
    await st.word(base, st.u(2));
    return;
  }
  await st.bytes(base + 2n, m);
  await st.word(base, st.u(1));
}

class MockFHE {
  constructor(hre, c) {
    this.hre = hre;
    this.mock = true;
    Object.assign(this, c);
  }

  /**
   * The client side: owner's values as inputs (one per value, or with
   * vector one vector input), "attested" for owner. Returns the same object
   * @fhegate/client's Committee.submit does.
   */
  async encrypt(owner, values, { vector = false } = {}) {
    const addr = await owner.getAddress();
    const groups = vector ? [values] : values.map((v) => [v]);
    const att = { owner: addr, preset: 0, epoch: 1, handles: [], ctypes: [], proofDigests: [], signature: "0x", signers: "0x" };
    for (const g of groups) {
      const r = await (await this.input.mockEncrypt(addr, g.map(BigInt))).wait();
      const e = r.logs.map((l) => this.input.interface.parseLog(l)).find((x) => x && x.name === "MockEncrypted");
      att.handles.push(e.args.handle);
      att.ctypes.push(1);
      att.proofDigests.push(e.args.proofDigest);
    }
    return att;
  }

  /** FHEInput.registerBatch's arguments from an attestation. */
  batchArgs(a) {
    return [a.owner, a.preset, a.handles, a.ctypes, a.proofDigests, a.signature, a.signers];
  }

  /** The plaintext values of a request's inputs, in order (vector inputs flattened). */
  async requestInputs(requestId) {
    const out = [];
    for (const h of await this.policy.handlesOf(requestId)) out.push(...(await this.input.plaintextOf(h)));
    return out;
  }

  /**
   * The compiled plan of a policy registered on the mock (by a contract or a
   * test): its spec is read from the mock's PolicyRegistered event and
   * compiled by @fhegate/client's wasm core (the Go compiler). Returns
   * { spec, plan }, plan being compilePlan's PlanInfo (plan.planHash is the
   * policy id the chain would give it; plan.inputs its input slots).
   */
  async plan(policyId) {
    const logs = await this.policy.queryFilter(this.policy.filters.PolicyRegistered(policyId));
    if (logs.length === 0) throw new Error(`policy ${policyId} is not registered on the mock FHEPolicy`);
    const spec = this.hre.ethers.getBytes(logs[0].args.spec);
    return { spec, plan: await (await client()).compilePlan(spec) };
  }

  /**
   * The verdict the policy's compiled plan gives on a request's plaintext
   * inputs (evalPlan: the arithmetic of the encrypted evaluation, centred).
   */
  async planVerdict(requestId) {
    const [exists, policyId] = await this.policy.requestOf(requestId);
    if (!exists) throw new Error(`request ${requestId} is not an FHEPolicy request of the mock`);
    const { spec, plan } = await this.plan(policyId);
    const row = await this.requestInputs(requestId);
    if (row.length !== plan.inputs) {
      throw new Error(`request ${requestId}: ${row.length} input values, the plan of "${plan.name}" takes ${plan.inputs} input slots`);
    }
    return (await client()).evalPlan(spec, row);
  }

  /**
   * What the committee would post for a request: the plan's verdict
   * (planVerdict), or REJECTED_INPUT when it lies outside the plan's declared
   * output range (0 or 1 for a bool plan, [min, max] for a score: an input
   * outside its declared range; consensus/isolate.go's outOfRange).
   */
  async committeeVerdict(requestId) {
    const [, policyId] = await this.policy.requestOf(requestId);
    const v = await this.planVerdict(requestId);
    const { plan } = await this.plan(policyId);
    const [lo, hi] = plan.output.type === "bool" ? [0n, 1n] : [BigInt(plan.output.min), BigInt(plan.output.max)];
    return v < lo || v > hi ? REJECTED_INPUT : v;
  }

  /**
   * The committee's side: posts the verdict of an FHEPolicy request —
   * `result`, or `result(values)` for the plaintext inputs, or (no result)
   * what the committee would post (committeeVerdict: the policy's compiled
   * plan on the plaintexts, REJECTED_INPUT outside its output range) — with
   * MockFHEVerdict.settle — and returns it as FHEVerdict stores it (the
   * devnet target's settle returns the committee's the same way). As the
   * committee does, a value is posted mod t, in [0, t): a negative one
   * (a score, a total) as t − |value| (FHEGate.requireSignedValue reads it
   * back centred); UNEVALUABLE and REJECTED_INPUT force the committee's
   * sentinels.
   */
  async settle(requestId, result) {
    let r;
    if (result === undefined) r = await this.committeeVerdict(requestId);
    else r = typeof result === "function" ? BigInt(await result(await this.requestInputs(requestId))) : BigInt(result);
    const word = r < 0n ? ((r % PLAINTEXT_MODULUS) + PLAINTEXT_MODULUS) % PLAINTEXT_MODULUS : r;
    await (await this.verdict.settle(requestId, word)).wait();
    return word;
  }

  /** Posts the plaintext value of a counter state's FHECRDT.value request. */
  async settleValue(requestId) {
    await (await this.verdict.settleValue(requestId)).wait();
  }

  /** Deploys a contract of contracts/artifacts. */
  async deploy(name, args = [], signer) {
    const { ethers } = this.hre;
    const f = new ethers.ContractFactory(abi(name), bin(name), signer ?? (await ethers.getSigners())[0]);
    const c = await f.deploy(...args);
    await c.waitForDeployment();
    return c;
  }
}

// revertReason is the Error(string) a reverted call carries, decoded from its
// revert data wherever the provider put it (Hardhat's in-process network, a
// node's JSON-RPC), or undefined.
function revertReason(err) {
  const { AbiCoder, dataSlice } = require("ethers");
  for (let x = err, i = 0; x && i < 6; x = x.error || x.cause || x.info?.error, i++) {
    if (x.revert?.name === "Error") return x.revert.args[0];
    const d = typeof x.data === "string" ? x.data : x.data?.data;
    if (typeof d === "string" && d.startsWith("0x08c379a0")) {
      try {
        return AbiCoder.defaultAbiCoder().decode(["string"], dataSlice(d, 4))[0];
      } catch {
        /* not an Error(string) */
      }
    }
  }
  return undefined;
}

/**
 * Awaits a transaction (or call) that must revert: with a reason string
 * matching `want` (a RegExp), or with the custom error `want.error` of
 * contract `want.on` (and its arguments `want.args`, when given).
 */
async function expectRevert(p, want) {
  let err;
  try {
    const tx = await p;
    if (tx && tx.wait) await tx.wait();
  } catch (e) {
    err = e;
  }
  if (!err) throw new Error(`expected a revert (${want.error || want})`);
  if (want instanceof RegExp) {
    const msg = revertReason(err) ?? err.reason ?? err.shortMessage ?? err.message;
    if (!want.test(msg)) throw new Error(`revert "${msg}" does not match ${want}`);
    return;
  }
  const data = err.data || err.error?.data || err.info?.error?.data;
  const parsed = data && want.on.interface.parseError(data);
  if (!parsed || parsed.name !== want.error) throw new Error(`expected ${want.error}, got ${parsed ? parsed.name : err.shortMessage || err.message}`);
  if (want.args) {
    const got = parsed.args.map((x) => (typeof x === "string" ? x.toLowerCase() : x));
    const exp = want.args.map((x) => (typeof x === "string" ? x.toLowerCase() : x));
    if (JSON.stringify(got, (_, v) => (typeof v === "bigint" ? v.toString() : v)) !== JSON.stringify(exp, (_, v) => (typeof v === "bigint" ? v.toString() : v))) {
      throw new Error(`${want.error}(${got}) , want (${exp})`);
    }
  }
}

module.exports = { installMocks, expectRevert, ADDRESSES, abi, bin, client, UNEVALUABLE, REJECTED_INPUT, PLAINTEXT_MODULUS };
