// The devnet target of the example contracts' tests: the same handle as
// fhegate-mock.cjs's (encrypt, batchArgs, settle, settleValue, deploy, the
// four precompile contracts), on a running `fhegate devnet` instead of the
// mocks. encrypt encrypts and proves with @fhegate/client and has the
// committee attest the inputs (Committee.submit); settle and settleValue
// wait for the verdict the committee posts to FHEVerdict instead of posting
// one. Chosen by fhegate.cjs when Hardhat runs with --network devnet
// (hardhat.config.cjs: http://127.0.0.1:8545, chain id 1337, the devnet's
// dev accounts).
//
// Environment:
//   FHEGATE_RPC_URL        the devnet's JSON-RPC (hardhat.config.cjs; default http://127.0.0.1:8545)
//   FHEGATE_COMMITTEE_API  the committee's client API, or
//   FHEGATE_DATADIR        the devnet's --datadir (its committee/api.addr)
//   FHEGATE_VERDICT_TIMEOUT_MS  how long settle waits for a verdict (default 180000)
const fs = require("node:fs");
const path = require("node:path");
const { ADDRESSES, abi, bin, client } = require("./fhegate-mock.cjs");

const INTERFACES = { input: "IFHEInput", policy: "IFHEPolicy", crdt: "IFHECRDT", verdict: "IFHEVerdict" };

function committeeAPI() {
  const env = process.env;
  if (env.FHEGATE_COMMITTEE_API) return env.FHEGATE_COMMITTEE_API;
  if (env.FHEGATE_DATADIR) {
    const f = path.join(env.FHEGATE_DATADIR, "committee", "api.addr");
    if (!fs.existsSync(f)) throw new Error(`${f} does not exist: is FHEGATE_DATADIR the running devnet's --datadir, and has its committee finished key generation?`);
    return fs.readFileSync(f, "utf8").trim();
  }
  throw new Error("the devnet target needs the committee's API: set FHEGATE_COMMITTEE_API, or FHEGATE_DATADIR to the devnet's --datadir");
}

/** Connects to the devnet of hre's network and returns the test handle on it. */
async function connectDevnet(hre) {
  const { ethers } = hre;
  const [signer] = await ethers.getSigners();
  for (const [k, addr] of Object.entries(ADDRESSES)) {
    if ((await ethers.provider.getCode(addr)) === "0x") {
      throw new Error(`network "${hre.network.name}" has no ${INTERFACES[k].slice(1)} precompile at ${addr}: is it a running fhegate devnet?`);
    }
  }
  const c = {};
  for (const [k, name] of Object.entries(INTERFACES)) c[k] = new ethers.Contract(ADDRESSES[k], abi(name), signer);
  const { Committee } = await client();
  return new DevnetFHE(hre, c, new Committee(committeeAPI()));
}

class DevnetFHE {
  constructor(hre, c, committee) {
    this.hre = hre;
    this.mock = false;
    this.committee = committee;
    Object.assign(this, c);
  }

  /** The owner's values encrypted, proven and attested by the committee (Committee.submit). */
  async encrypt(owner, values, { vector = false } = {}) {
    return this.committee.submit(await owner.getAddress(), values, { vector });
  }

  /** FHEInput.registerBatch's arguments from an attestation. */
  batchArgs(a) {
    return [a.owner, a.preset, a.handles, a.ctypes, a.proofDigests, a.signature, a.signers];
  }

  /**
   * Waits for the committee's verdict on a request (FHEPolicy or FHECRDT)
   * and returns it as FHEVerdict stores it (a uint256). A verdict forced by
   * the test (`result`) exists only on the mocks.
   */
  async settle(requestId, result) {
    if (result !== undefined) throw new Error("a verdict forced by the test needs the mocks (the devnet's committee decides)");
    const timeoutMs = Number(process.env.FHEGATE_VERDICT_TIMEOUT_MS ?? 180000);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [ready, r] = await this.verdict.verdictOf(requestId);
      if (ready) return r;
      if (Date.now() > deadline) throw new Error(`no verdict on request ${requestId} within ${timeoutMs} ms`);
      await new Promise((res) => setTimeout(res, 250));
    }
  }

  /** Waits for the committee's value of a counter state (FHECRDT.value). */
  async settleValue(requestId) {
    await this.settle(requestId);
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

module.exports = { connectDevnet, DevnetFHE };
