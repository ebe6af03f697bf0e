// One test file, two targets: fhegate(hre) returns the test handle on the
// precompile mocks (fhegate-mock.cjs) when Hardhat runs its own network, and
// on a running `fhegate devnet` (fhegate-devnet.cjs) under
// `npx hardhat test --network devnet`. Both have encrypt, batchArgs, settle
// (the mocks post the policy plan's verdict; the devnet waits for the
// committee's), settleValue, deploy and the four precompile contracts;
// `fhe.mock` tells a test which one it has (the mocks add plaintextOf,
// forced verdicts and the like).
const { installMocks } = require("./fhegate-mock.cjs");
const { connectDevnet } = require("./fhegate-devnet.cjs");

async function fhegate(hre, { reset = true } = {}) {
  if (hre.network.name === "hardhat") return installMocks(hre, { reset });
  return connectDevnet(hre);
}

module.exports = { fhegate };
