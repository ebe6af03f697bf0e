// The packed @fhegate/client in a browser page, bundled by esbuild as an
// application's code would be: fhegate.wasm sits next to the bundle (the
// client loads it from its own URL), the committee key comes from the page's
// server. window.result is what scripts/pack-test.mjs reads back.
import { FheKey, compilePlan, init } from "@fhegate/client";
import { batchArgs, precompiles } from "@fhegate/client/viem";
import { encodeFunctionData } from "viem";

const owner = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
async function main() {
  const t0 = performance.now();
  await init();
  const pk = new Uint8Array(await (await fetch("pk.bin")).arrayBuffer());
  const key = await FheKey.fromAnnouncement({ publicKey: pk, chainId: "1337", epoch: "1" });
  const [x] = await key.encrypt(owner, [7]);
  key.verify(owner, x.ciphertext, x.proof);
  const plan = await compilePlan("fhegate_policy: 1\nname: gate\ninputs: [{name: income, min: 0, max: 15}, {name: debt, min: 0, max: 15}]\noutput: {expr: \"income > 3*debt\"}\n");
  const data = encodeFunctionData({
    abi: precompiles.input.abi,
    functionName: "registerBatch",
    args: batchArgs({ owner, preset: 1, epoch: 1, handles: [x.handle], ctypes: [1], proofDigests: [x.proofDigest], signature: "0x", signers: "0x" }),
  });
  return { ok: true, preset: key.info.preset, handle: x.handle, planHash: plan.planHash, calldata: data.length, ms: Math.round(performance.now() - t0) };
}
main().then((r) => { window.result = r; }, (e) => { window.result = { ok: false, error: String(e?.stack || e) }; });
