// Hardhat runs the example contracts' tests on the precompile mocks
// (contracts/src/mocks), etched at the precompile addresses by
// fhegate-mock.cjs. Contracts come from contracts/artifacts, which
// contracts/build.js compiles with the pinned solc-js (npm run build in
// contracts/): Hardhat compiles nothing and downloads no compiler.
//
// `npx hardhat test --network devnet` runs the same tests against a running
// `fhegate devnet` (fhegate.cjs picks the target): its JSON-RPC
// (FHEGATE_RPC_URL, default http://127.0.0.1:8545), chain id 1337 and its
// funded dev accounts — the Hardhat/Anvil test mnemonic's first ten, keys
// published everywhere: never use them on a real network. The committee's
// API comes from FHEGATE_COMMITTEE_API or FHEGATE_DATADIR (fhegate-devnet.cjs).
const { task } = require("hardhat/config");
const { TASK_COMPILE } = require("hardhat/builtin-tasks/task-names");
require("@nomicfoundation/hardhat-ethers");

task(TASK_COMPILE).setAction(async () => {});

module.exports = {
  networks: {
    hardhat: { hardfork: "cancun" },
    devnet: {
      url: process.env.FHEGATE_RPC_URL || "http://127.0.0.1:8545",
      chainId: 1337,
      accounts: { mnemonic: "test test test test test test test test test test test junk", count: 10 },
      timeout: 120000,
    },
  },
  paths: { tests: "./test", cache: "./cache" },
  // a devnet verdict takes seconds (encryption, proof, the committee's evaluation)
  mocha: { timeout: 300000 },
};
