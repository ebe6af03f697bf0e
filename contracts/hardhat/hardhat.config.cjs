// Hardhat runs the example contracts' tests on the precompile mocks
// (contracts/src/mocks), etched at the precompile addresses by
// fhegate-mock.cjs. Contracts come from contracts/artifacts, which
// contracts/build.js compiles with the pinned solc-js (npm run build in
// contracts/): Hardhat compiles nothing and downloads no compiler.
const { task } = require("hardhat/config");
const { TASK_COMPILE } = require("hardhat/builtin-tasks/task-names");
require("@nomicfoundation/hardhat-ethers");

task(TASK_COMPILE).setAction(async () => {});

module.exports = {
  networks: { hardhat: { hardfork: "cancun" } },
  paths: { tests: "./test", cache: "./cache" },
  mocha: { timeout: 60000 },
};
