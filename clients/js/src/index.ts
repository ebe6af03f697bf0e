// @fhegate/client: encrypt and prove fhegate inputs in the browser or in
// Node ≥ 18. The cryptography is the Go client's (fhe, fhe/zkpok) compiled
// to WebAssembly (clients/js/wasm); this module loads it and wraps the
// committee's client API (GET /v1/publickey, POST /v1/inputs).
//
//   import { Committee } from "@fhegate/client";
//   const committee = new Committee("http://127.0.0.1:8600");
//   const att = await committee.submit(owner, [5, 1], { onProgress: console.log });
//   // att: FHEInput.registerBatch's arguments (see "@fhegate/client/ethers")
import "./wasm_exec.js"; // the Go toolchain's loader: defines globalThis.Go

/** The committee key a client encrypts under, as the wasm core describes it. */
export interface KeyInfo {
  preset: string;
  presetId: number;
  slots: number;
  plaintextModulus: string;
  /** keccak256 of the canonical public-key bytes (bound by every proof). */
  keyDigest: string;
  chainId: string;
  epoch: string;
  /** Bytes of one input proof. */
  proofSize: number;
  /**
   * The level inputs are encrypted at: the upload level (fhe/zkpok
   * UploadLevel), the level the committee packs inputs at — a third of the
   * top level's bytes on bgv-n14-t65537.
   */
  level: number;
  /** The preset's top level. */
  topLevel: number;
  /** Most ciphertexts in one upload. */
  maxInputs: number;
  /** Most attributes in one vector input. */
  maxVector: number;
}

/** One encrypted input with its proof of plaintext knowledge. */
export interface EncryptedInput {
  ciphertext: Uint8Array;
  proof: Uint8Array;
  /** keccak256 of the ciphertext: the on-chain handle. */
  handle: string;
  /** keccak256 of the proof, bound on chain. */
  proofDigest: string;
}

/** An input root the committee signed for many uploads (FHEPolicy.evaluateRooted). */
export interface InputRoot {
  root: string;
  index: number;
  path: string[];
  signature: string;
  signers: string;
}

/** A quorum attestation of one upload: FHEInput.registerBatch's arguments. */
export interface Attestation {
  owner: string;
  preset: number;
  epoch: number;
  handles: string[];
  ctypes: number[];
  proofDigests: string[];
  signature: string;
  signers: string;
  root?: InputRoot;
}

/** Progress of a submission: the key, each proof, the upload. */
export interface Progress {
  stage: "key" | "prove" | "upload";
  done: number;
  total: number;
}

export interface EncryptOptions {
  /** All values in ONE vector input (one handle) instead of one input per value. */
  vector?: boolean;
  /**
   * A policy document (YAML): the values are its declared inputs in order, and
   * each wide unsigned integer (type uint8 … uint64; pass a bigint or a decimal
   * string above 2^53) is split into its base-16 digits, least significant
   * first (decisionRow). The row goes in ONE vector input with one proof unless
   * vector is false.
   */
  policy?: string | Uint8Array;
  onProgress?: (p: Progress) => void;
}

export interface SubmitOptions extends EncryptOptions {
  /** Ask for an input root as well (FHEPolicy.evaluateRooted). */
  rooted?: boolean;
}

/** The announcement of GET /v1/publickey. */
export interface KeyAnnouncement {
  publicKey: Uint8Array;
  chainId: string;
  epoch: string;
}

export type Value = number | bigint | string;

/** What wasm/main_js.go installs as globalThis.__fhegate. */
interface Core {
  session(pk: Uint8Array, chainId: string, epoch: string): { id: number; info: KeyInfo } | Error;
  release(id: number): void;
  inputCount(values: string[], vector: boolean): number | Error;
  encryptInput(id: number, owner: string, values: string[], vector: boolean, i: number): EncryptedInput | Error;
  uploadBody(owner: string, inputs: { ciphertext: Uint8Array; proof: Uint8Array }[], rooted: boolean): Uint8Array | Error;
  verify(id: number, owner: string, ciphertext: Uint8Array, proof: Uint8Array): null | Error;
  handleOf(b: Uint8Array): string | Error;
  decisionRow(spec: Uint8Array, values: string[]): string[] | Error;
  compilePlan(spec: Uint8Array): string | Error;
  evalPlan(spec: Uint8Array, row: string[]): string | Error;
  crdtMetadata(layout: string, entries: string): Uint8Array | Error;
  crdtCheck(kind: number, metadata: Uint8Array): string[] | Error;
  crdtMerge(kind: number, a: Uint8Array, b: Uint8Array): Uint8Array | Error;
  readerKeys(preset: string): ReaderKeys | Error;
  privateReadBody(handle: string, pk: Uint8Array, signer: string, nonce: string, deadline: string, signature: string): string | Error;
  combinePrivateRead(sk: Uint8Array, answers: string[]): string[] | Error;
}

/** Headers of GET /v1/publickey (consensus.HeaderChainID, HeaderEpoch). */
export const HEADER_CHAIN_ID = "X-Fhegate-Chain-Id";
export const HEADER_EPOCH = "X-Fhegate-Epoch";

const MAX_KEY_BYTES = 64 << 20;

let core: Core | undefined;
let loading: Promise<Core> | undefined;

function ok<T>(v: T | Error): T {
  if (v instanceof Error) throw v;
  return v;
}

/**
 * Loads and starts the WebAssembly core (once; every other call awaits it).
 * By default it reads fhegate.wasm next to this module: from the file system
 * in Node, with fetch in a browser. Pass a URL, the bytes or a compiled
 * module to load it from elsewhere.
 */
export function init(wasm?: string | URL | ArrayBuffer | Uint8Array | WebAssembly.Module): Promise<Core> {
  if (core) return Promise.resolve(core);
  loading ??= load(wasm).catch((e) => {
    loading = undefined;
    throw e;
  });
  return loading;
}

async function load(wasm?: string | URL | ArrayBuffer | Uint8Array | WebAssembly.Module): Promise<Core> {
  const g = globalThis as any;
  const go = new g.Go();
  let instance: WebAssembly.Instance;
  if (wasm instanceof WebAssembly.Module) {
    instance = await WebAssembly.instantiate(wasm, go.importObject);
  } else if (wasm instanceof ArrayBuffer || wasm instanceof Uint8Array) {
    instance = (await WebAssembly.instantiate(wasm, go.importObject)).instance;
  } else {
    const url = new URL(wasm ?? "./fhegate.wasm", import.meta.url);
    if (url.protocol === "file:") {
      // A specifier in a variable: bundlers targeting browsers (esbuild, webpack,
      // Vite) leave the import alone instead of failing to resolve it; only
      // Node takes this branch (a file: URL).
      const fsModule = "node:fs/promises";
      const fs = await import(/* webpackIgnore: true */ /* @vite-ignore */ fsModule);
      instance = (await WebAssembly.instantiate(await fs.readFile(url), go.importObject)).instance;
    } else {
      const resp = await fetch(url);
      if (!resp.ok) throw new Error(`@fhegate/client: ${url}: ${resp.status} ${resp.statusText}`);
      instance = resp.headers.get("Content-Type")?.startsWith("application/wasm")
        ? (await WebAssembly.instantiateStreaming(resp, go.importObject)).instance
        : (await WebAssembly.instantiate(await resp.arrayBuffer(), go.importObject)).instance;
    }
  }
  const ready = new Promise<void>((resolve) => {
    g.__fhegateReady = resolve;
  });
  go.run(instance); // resolves when the Go program exits: never
  await ready;
  core = g.__fhegate as Core;
  return core;
}

function decimal(v: Value, what: string): string {
  if (typeof v === "number" && !Number.isSafeInteger(v)) throw new Error(`${what}: ${v} is not a safe integer`);
  const s = String(v).trim();
  if (!/^-?\d+$/.test(s)) throw new Error(`${what}: ${JSON.stringify(v)} is not an integer`);
  return s;
}

const yieldToEventLoop = () => new Promise<void>((r) => setTimeout(r, 0));

/** Tries of one upload (Committee.upload): the first and up to three resends. */
export const UPLOAD_TRIES = 4;

/** keccak256 of bytes, 0x-hex (a ciphertext's handle, a proof's digest). */
export async function handleOf(b: Uint8Array): Promise<string> {
  return ok((await init()).handleOf(b));
}

/** The media type of a binary POST /v1/inputs body (consensus/api/uploadwire). */
export const UPLOAD_CONTENT_TYPE = "application/vnd.fhegate.upload";

/**
 * The binary body of POST /v1/inputs for owner's inputs (consensus/api/uploadwire:
 * raw ciphertexts and proofs with their lengths, half the bytes of the JSON form),
 * byte for byte what the Go client sends.
 */
export async function uploadBody(owner: string, inputs: EncryptedInput[], rooted = false): Promise<Uint8Array> {
  return ok((await init()).uploadBody(owner, inputs.map((i) => ({ ciphertext: i.ciphertext, proof: i.proof })), rooted));
}

/**
 * The input row of one decision for a policy document (YAML): values are the
 * policy's declared inputs in order; a one-slot input stays as it is and a
 * wide unsigned integer (uint8 … uint64, a bigint or decimal string for values
 * above 2^53) becomes its base-16 digits, least significant first — the
 * policy's input slots "<name>.0", "<name>.1", … The policy is compiled by the
 * Go compiler inside the wasm core (policy.Plan.DecisionRow, what the Go
 * client and `fhegate encrypt --policy` call), so the slots are the Go
 * client's. A value outside its input's declared range is refused.
 */
export async function decisionRow(spec: string | Uint8Array, values: Value[]): Promise<bigint[]> {
  const doc = typeof spec === "string" ? new TextEncoder().encode(spec) : spec;
  const vals = values.map((v, i) => decimal(v, `value ${i}`));
  return ok((await init()).decisionRow(doc, vals)).map((d) => BigInt(d));
}

/**
 * What FHEPolicy.registerPolicy records for a policy document, and what its
 * compiled plan tells a client or a contract test (compilePlan).
 */
export interface PlanInfo {
  name: string;
  /** The plan hash: the policy id FHEPolicy.registerPolicy returns on chain. */
  planHash: string;
  preset: string;
  /** The plan's depth between refreshes (FHEPolicy.policyOf's depth). */
  depth: number;
  /** Input slots: one per one-slot input, one per base-16 digit of a wide one. */
  inputs: number;
  /** The declared inputs' names, in order. */
  declared: string[];
  /** The committee's CPU for one evaluation of the plan, in gas. */
  gas: number;
  /** The gas one evaluate() pays (FHEPolicy.policyOf's cost). */
  cost: number;
  /** The committee evaluates each request by itself (no packed form), booking aloneGas. */
  alone: boolean;
  aloneGas?: number;
  /**
   * The verdict's declared range ("bool": 0 or 1; "score": [min, max]): a
   * committee posts the rejected-input sentinel for a verdict outside it.
   */
  output: { type: "bool" | "score"; min: number; max: number };
}

/**
 * Decides about a policy document what FHEPolicy.registerPolicy decides on
 * chain, with the Go code inside the wasm core: the compiler, the chain's
 * side of the admission rule (the result's noise must stay within what the
 * decryption's flooding hides, each refresh needs room for its flooding)
 * and the chain's limits. Returns the plan hash (the policy id), preset,
 * depth, cost and input slots; a document the chain refuses is refused with
 * the reason registerPolicy reverts with (after "FHEPolicy.registerPolicy: ").
 */
export async function compilePlan(spec: string | Uint8Array): Promise<PlanInfo> {
  const doc = typeof spec === "string" ? new TextEncoder().encode(spec) : spec;
  return JSON.parse(ok((await init()).compilePlan(doc))) as PlanInfo;
}

/**
 * The verdict a policy's plan gives on one decision row (one value per input
 * slot; decisionRow makes the row of declared values), with the arithmetic of
 * the encrypted evaluation (policy.Plan.EvalPlain): what the committee would
 * decrypt, centred in [−32768, 32768]. Contract mocks settle requests with it.
 */
export async function evalPlan(spec: string | Uint8Array, row: Value[]): Promise<bigint> {
  const doc = typeof spec === "string" ? new TextEncoder().encode(spec) : spec;
  return BigInt(ok((await init()).evalPlan(doc, row.map((v, i) => decimal(v, `row value ${i}`)))));
}

/** The CRDT kinds of FHECRDT (fhe/crdt/meta.Type). */
export const CRDT_KIND = { gCounter: 1, pnCounter: 2, lww: 3, set: 4 } as const;

/** A CRDT state's layout (fhe/crdt/meta.Layout): only states of equal layouts merge. */
export interface CrdtLayout {
  /** CRDT_KIND: G- or PN-counter, LWW register map, add-wins set. */
  type: number;
  /** The fhe preset id of the ciphertexts (the committee's). */
  preset: number;
  /** The level contributions are normalised to. */
  level: number;
  /** Replicas (counters, set) or register keys (LWW). */
  blocks: number;
  /** Lanes per block (counters, LWW) or the set's universe size. */
  width: number;
}

/** One block's latest write: for counters and sets replica = block, clock its version (≥ 1). */
export interface CrdtEntry {
  block: number;
  clock: number;
  replica: number;
  /** The handle of the writer's ciphertext. */
  handle: string;
}

/**
 * The canonical metadata of a CRDT state (fhe/crdt/meta): what
 * FHECRDT.create takes beside the writer's handle. A replica writes its
 * block with a larger clock than its last write.
 */
export async function crdtMetadata(layout: CrdtLayout, entries: CrdtEntry[]): Promise<Uint8Array> {
  return ok((await init()).crdtMetadata(JSON.stringify(layout), JSON.stringify(entries)));
}

/**
 * What FHECRDT.create decides about metadata for a state of kind: the
 * handles it references, or the reason create reverts with (after
 * "FHECRDT.create: metadata: "). Contract mocks create states with it.
 */
export async function crdtCheck(kind: number, metadata: Uint8Array): Promise<string[]> {
  return ok((await init()).crdtCheck(kind, metadata));
}

/**
 * What FHECRDT.merge decides about two states' metadata: their join, or the
 * reason merge reverts with (after "FHECRDT.merge: metadata: ").
 */
export async function crdtMerge(kind: number, a: Uint8Array, b: Uint8Array): Promise<Uint8Array> {
  return ok((await init()).crdtMerge(kind, a, b));
}

/** A committee public key prepared for proving (its QP form computed once). */
export class FheKey {
  private constructor(
    private readonly core: Core,
    private id: number,
    readonly info: KeyInfo,
  ) {}

  /** Prepares the key of an announcement (GET /v1/publickey). */
  static async fromAnnouncement(a: KeyAnnouncement): Promise<FheKey> {
    const c = await init();
    const s = ok(c.session(a.publicKey, decimal(a.chainId, "chain id"), decimal(a.epoch, "key epoch")));
    return new FheKey(c, s.id, s.info);
  }

  /**
   * Encrypts values for owner: each value replicated in every slot (one input
   * each), or with vector all of them in one vector input (with policy: the
   * policy's declared inputs, wide integers as digits; decisionRow); each input carries
   * a proof of plaintext knowledge bound to owner, the chain and the key
   * epoch. Between proofs it yields to the event loop (progress repaints).
   */
  async encrypt(owner: string, values: Value[], opts: EncryptOptions = {}): Promise<EncryptedInput[]> {
    let vals = values.map((v, i) => decimal(v, `value ${i}`));
    let vector = !!opts.vector;
    if (opts.policy !== undefined) {
      vals = (await decisionRow(opts.policy, values)).map(String);
      vector = opts.vector ?? true;
    }
    const n = ok(this.core.inputCount(vals, vector));
    const out: EncryptedInput[] = [];
    opts.onProgress?.({ stage: "prove", done: 0, total: n });
    for (let i = 0; i < n; i++) {
      await yieldToEventLoop();
      out.push(ok(this.core.encryptInput(this.live(), owner, vals, vector, i)));
      opts.onProgress?.({ stage: "prove", done: i + 1, total: n });
    }
    return out;
  }

  /** Checks a ciphertext's proof for owner as a committee member does; throws if invalid. */
  verify(owner: string, ciphertext: Uint8Array, proof: Uint8Array): void {
    const err = this.core.verify(this.live(), owner, ciphertext, proof);
    if (err) throw err;
  }

  /** Frees the prepared key inside the wasm core. */
  release(): void {
    if (this.id) this.core.release(this.id);
    this.id = 0;
  }

  private live(): number {
    if (!this.id) throw new Error("@fhegate/client: key released");
    return this.id;
  }
}

export interface CommitteeOptions {
  /** Bearer token of the API (none on a loopback devnet). */
  token?: string;
  fetch?: typeof fetch;
}

/** A committee member's client API. */
export class Committee {
  readonly api: string;
  private readonly token?: string;
  private readonly fetch: typeof fetch;
  private keyP?: Promise<FheKey>;

  constructor(api: string, opts: CommitteeOptions = {}) {
    if (typeof api !== "string" || !/^https?:\/\/[^/]/.test(api)) {
      throw new TypeError(
        `new Committee(api): api must be a committee member's client API URL (http:// or https://, e.g. the "committee API" fhegate devnet prints, also in DATADIR/committee/api.addr), got ${typeof api === "string" ? JSON.stringify(api) : String(api)}`,
      );
    }
    this.api = api.replace(/\/+$/, "");
    this.token = opts.token;
    this.fetch = opts.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** GET /v1/publickey: the collective key and the chain id and epoch proofs bind. */
  async announcement(): Promise<KeyAnnouncement> {
    const resp = await this.fetch(`${this.api}/v1/publickey`);
    const buf = new Uint8Array(await resp.arrayBuffer());
    if (!resp.ok) throw new Error(`committee public key (${resp.status}): ${new TextDecoder().decode(buf.subarray(0, 512))}`);
    const chainId = resp.headers.get(HEADER_CHAIN_ID);
    const epoch = resp.headers.get(HEADER_EPOCH);
    if (chainId == null && epoch == null && buf.length === 0) {
      // A chain's JSON-RPC endpoint answers a GET with 200 and no body.
      throw new Error(
        `${this.api} does not look like a committee client API (GET /v1/publickey answered ${resp.status} with no key and no ${HEADER_EPOCH} header): pass a committee member's client API URL (fhegate devnet prints it as "committee API" and writes it to DATADIR/committee/api.addr), not the chain's JSON-RPC URL`,
      );
    }
    if (buf.length === 0 || buf.length > MAX_KEY_BYTES) throw new Error(`committee public key of ${buf.length} bytes`);
    if (chainId == null || epoch == null) {
      throw new Error(`committee at ${this.api} did not announce ${HEADER_EPOCH} / ${HEADER_CHAIN_ID} (a browser needs them in Access-Control-Expose-Headers)`);
    }
    return { publicKey: buf, chainId, epoch };
  }

  /** The committee key, fetched and prepared once. */
  key(): Promise<FheKey> {
    this.keyP ??= this.announcement().then(FheKey.fromAnnouncement).catch((e) => {
      this.keyP = undefined;
      throw e;
    });
    return this.keyP;
  }

  async encrypt(owner: string, values: Value[], opts: EncryptOptions = {}): Promise<EncryptedInput[]> {
    opts.onProgress?.({ stage: "key", done: 0, total: 1 });
    const key = await this.key();
    opts.onProgress?.({ stage: "key", done: 1, total: 1 });
    return key.encrypt(owner, values, opts);
  }

  /**
   * POST /v1/inputs: uploads owner's inputs as one set and returns the quorum
   * attestation, checked against what was sent (owner, handles, ctypes and
   * proof digests in order).
   */
  async upload(owner: string, inputs: EncryptedInput[], opts: { rooted?: boolean } = {}): Promise<Attestation> {
    const body = await uploadBody(owner, inputs, !!opts.rooted);
    const headers: Record<string, string> = { "Content-Type": UPLOAD_CONTENT_TYPE };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    const text = await this.postUpload(body, headers);
    const a = JSON.parse(text) as Attestation;
    const same = (x: string, y: string) => x.toLowerCase() === y.toLowerCase();
    if (
      !same(a.owner ?? "", owner) ||
      a.handles?.length !== inputs.length ||
      a.ctypes?.length !== inputs.length ||
      a.proofDigests?.length !== inputs.length ||
      inputs.some((x, i) => !same(a.handles[i], x.handle) || !same(a.proofDigests[i], x.proofDigest) || a.ctypes[i] !== 1)
    ) {
      throw new Error("committee attested another set than the one uploaded");
    }
    return a;
  }

  /**
   * Posts an upload body and returns the text of its 200 answer. An upload
   * is idempotent (its handles hash the canonical ciphertext bytes and a
   * member stores a ciphertext once), so a try that got no answer (fetch
   * threw: the connection closed or reset — a member's read timeout on a
   * starved host, a restart) or a 503 (member busy) or 429 (the owner's
   * quota) is sent again, at most UPLOAD_TRIES times in all, 1 s · 2^k apart
   * (the answer's Retry-After instead, at most 30 s), as the Go client does
   * (consensus/api). Any other answer is final.
   */
  private async postUpload(body: Uint8Array, headers: Record<string, string>): Promise<string> {
    let last = "";
    for (let attempt = 0, wait = 0; attempt < UPLOAD_TRIES; attempt++) {
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      wait = 1000 * 2 ** attempt;
      let resp: Response;
      try {
        resp = await this.fetch(`${this.api}/v1/inputs`, { method: "POST", headers, body });
      } catch (e) {
        last = `no answer: ${e instanceof Error ? e.message : String(e)}`;
        continue;
      }
      const text = await resp.text();
      if (resp.ok) return text;
      const refused = `committee refused the upload (${resp.status}): ${text.trim()}`;
      if (resp.status !== 503 && resp.status !== 429) throw new Error(refused);
      last = refused;
      const after = Number(resp.headers.get("Retry-After") ?? "");
      if (Number.isFinite(after) && after >= 0 && resp.headers.has("Retry-After")) wait = Math.min(after, 30) * 1000;
    }
    throw new Error(`upload failed after ${UPLOAD_TRIES} tries: ${last}`);
  }

  /** encrypt, prove and upload: the attestation of owner's values. */
  async submit(owner: string, values: Value[], opts: SubmitOptions = {}): Promise<Attestation> {
    const inputs = await this.encrypt(owner, values, opts);
    opts.onProgress?.({ stage: "upload", done: 0, total: 1 });
    const a = await this.upload(owner, inputs, opts);
    opts.onProgress?.({ stage: "upload", done: 1, total: 1 });
    return a;
  }
}

// ---------------------------------------------------------------------------
// Private reads (docs/committee.md, "Private reads"): an account FHEInput's
// ACL allows on a handle reads its plaintext under its own FHE key; t
// committee members each re-encrypt their share of it to that key, and the
// shares are combined and decrypted here. No member learns the plaintext.

/** The FHEInput precompile: the EIP-712 verifying contract of a private read. */
export const FHE_INPUT_ADDRESS = "0x02000000000000000000000000000000000000f0";

/** A reader's own FHE key pair (canonical bytes). Keep it: each member shares a handle towards a few keys only, ever. */
export interface ReaderKeys {
  secretKey: Uint8Array;
  publicKey: Uint8Array;
}

/** The preset of the devnet committee's key (`fhegate devnet`, consensus/config.DefaultPreset). */
export const DEVNET_PRESET = "bgv-n14-t65537";

/**
 * Generates a reader's key pair for the committee's preset: given a
 * Committee, the preset of the key it announces; given a preset name, that
 * preset; given nothing, the devnet committee's (DEVNET_PRESET). A private
 * read needs the pair on the committee's preset.
 */
export async function readerKeys(committeeOrPreset?: Committee | string): Promise<ReaderKeys> {
  let preset = DEVNET_PRESET;
  if (committeeOrPreset instanceof Committee) preset = (await committeeOrPreset.key()).info.preset;
  else if (typeof committeeOrPreset === "string") preset = committeeOrPreset;
  else if (committeeOrPreset != null) throw new TypeError(`readerKeys: a Committee or a preset name, got ${String(committeeOrPreset)}`);
  return ok((await init()).readerKeys(preset));
}

/** What signs a private read: an ethers v6 Signer (Wallet, JsonRpcSigner) fits. */
export interface TypedDataSigner {
  getAddress(): Promise<string>;
  signTypedData(
    domain: Record<string, unknown>,
    types: Record<string, { name: string; type: string }[]>,
    message: Record<string, unknown>,
  ): Promise<string>;
}

/** The EIP-712 payload of a private read (consensus.PrivateReadTypedData); publicKey is keccak256 of the key's bytes. */
export function privateReadTypedData(chainId: string, handle: string, publicKeyDigest: string, nonce: string, deadline: string) {
  return {
    domain: { name: "fhegate", version: "1", chainId, verifyingContract: FHE_INPUT_ADDRESS },
    types: {
      PrivateRead: [
        { name: "handle", type: "bytes32" },
        { name: "publicKey", type: "bytes32" },
        { name: "nonce", type: "uint256" },
        { name: "deadline", type: "uint256" },
      ],
    },
    message: { handle, publicKey: publicKeyDigest, nonce, deadline },
  };
}

export interface ReadPrivateOptions {
  /** The handle to read (0x + 64 hex). */
  handle: string;
  /** The reader's key pair (readerKeys). */
  keys: ReaderKeys;
  /** An account FHEInput allows on the handle. */
  signer: TypedDataSigner;
  /** The chain id (default: announced by the first member's GET /v1/publickey). */
  chainId?: Value;
  /** Seconds the signed request stays valid (default 300; members refuse more than a day). */
  validSeconds?: number;
  token?: string;
  fetch?: typeof fetch;
}

/**
 * Reads a handle privately through the members behind apis (one URL per
 * member, at least t): signs one EIP-712 request, posts it to members in
 * order until t answer, combines their shares and decrypts with keys. Returns
 * the slot values centred in (−t/2, t/2].
 */
export async function readPrivate(apis: string[], opts: ReadPrivateOptions): Promise<bigint[]> {
  const c = await init();
  const f = opts.fetch ?? globalThis.fetch.bind(globalThis);
  if (apis.length === 0) throw new Error("readPrivate: no member APIs");
  const chainId =
    opts.chainId != null ? decimal(opts.chainId, "chain id") : (await new Committee(apis[0], { token: opts.token, fetch: f }).announcement()).chainId;
  const rnd = new Uint32Array(2);
  globalThis.crypto.getRandomValues(rnd);
  const nonce = ((BigInt(rnd[0] & 0x1fffff) << 32n) | BigInt(rnd[1]) | 1n).toString(); // < 2^53: a JSON-safe number
  const deadline = String(Math.floor(Date.now() / 1000) + (opts.validSeconds ?? 300));
  const pkDigest = ok(c.handleOf(opts.keys.publicKey));
  const td = privateReadTypedData(chainId, opts.handle, pkDigest, nonce, deadline);
  const signature = await opts.signer.signTypedData(td.domain, td.types, td.message);
  const body = ok(c.privateReadBody(opts.handle, opts.keys.publicKey, await opts.signer.getAddress(), nonce, deadline, signature));
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  const answers: string[] = [];
  const refusals: string[] = [];
  let t = 0;
  for (const api of apis) {
    if (t > 0 && answers.length >= t) break;
    try {
      const resp = await f(`${api.replace(/\/+$/, "")}/v1/private-read`, { method: "POST", headers, body });
      const text = await resp.text();
      if (!resp.ok) {
        refusals.push(`${api}: ${resp.status} ${text.trim()}`);
        continue;
      }
      t ||= Number(JSON.parse(text).threshold);
      answers.push(text);
    } catch (e) {
      refusals.push(`${api}: ${e}`);
    }
  }
  if (answers.length === 0) {
    throw new Error(
      `readPrivate: none of the ${apis.length} members asked answered (a member's answer names the threshold t): ${refusals.join("; ")}`,
    );
  }
  if (answers.length < t) {
    throw new Error(
      `readPrivate: ${answers.length} of the ${apis.length} members asked answered, the committee's threshold is t=${t}` +
        (refusals.length > 0 ? `; the others: ${refusals.join("; ")}` : `: give at least ${t} member API URLs`),
    );
  }
  return ok(c.combinePrivateRead(opts.keys.secretKey, answers)).map((v) => BigInt(v));
}

/**
 * FHEVerdict's sentinel results (precompiles/verdict.go): the committee could
 * not evaluate the request (2^256 − 1), the request expired unanswered
 * (2^256 − 2), an input decrypted outside the plan's declared range
 * (2^256 − 3). Every other result is the plan's value mod t.
 */
export const RESULT_UNEVALUABLE = (1n << 256n) - 1n;
export const RESULT_EXPIRED = (1n << 256n) - 2n;
export const RESULT_REJECTED_INPUT = (1n << 256n) - 3n;

/** Options of the ethers and viem evaluate helpers. */
export interface EvaluateOptions {
  /**
   * The call value to send, in wei. Default: FHEPolicy.depositOf(policyId),
   * the exact deposit the policy takes (any other amount reverts with
   * "wrong deposit"); set it to skip that read.
   */
  value?: bigint;
}

/** What became of a request's deposit once its verdict is in. */
export type DepositOutcome = "refunded" | "burnt";

/**
 * What FHEVerdict did with a request's deposit when it accepted verdict
 * `result` (or expired the request): paid it back to the requester — the
 * account that called evaluate, as a plain balance credit in the verdict's
 * transaction — for every result but RESULT_REJECTED_INPUT, for which it is
 * burnt. (A policy evaluated alone takes no deposit: nothing moves.)
 */
export function depositOutcome(result: bigint): DepositOutcome {
  return result === RESULT_REJECTED_INPUT ? "burnt" : "refunded";
}
