#!/usr/bin/env bash
# Runs both client examples against a fresh `fhegate devnet` (with its in-process MPC committee), for CI
# and for people: builds the CLI, starts the devnet on a free loopback port with a temporary --datadir,
# runs examples/go, examples/policies, then examples/js (npm ci; ethers pinned in package-lock.json), then stops the devnet
# with SIGTERM and checks that it exited cleanly.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
bin="$work/fhegate"
datadir="$work/devnet"
go build -o "$bin" ./cmd/fhegate

"$bin" devnet --http-port 0 --datadir "$datadir" >"$work/devnet.out" 2>"$work/devnet.err" &
devnet_pid=$!
cleanup() {
  if kill -0 "$devnet_pid" 2>/dev/null; then kill -TERM "$devnet_pid" 2>/dev/null || true; wait "$devnet_pid" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

rpc=""
for _ in $(seq 1 240); do
  rpc=$(grep -Eo 'JSON-RPC +http://[0-9.:]+' "$work/devnet.out" | awk '{print $2}' || true)
  if [ -n "$rpc" ] && [ -f "$datadir/committee/api.addr" ]; then break; fi
  if ! kill -0 "$devnet_pid" 2>/dev/null; then echo "devnet exited:"; cat "$work/devnet.err"; exit 1; fi
  sleep 0.5
done
if [ -z "$rpc" ] || [ ! -f "$datadir/committee/api.addr" ]; then
  echo "devnet did not come up"; cat "$work/devnet.out" "$work/devnet.err"; exit 1
fi
echo "devnet at $rpc (committee API $(cat "$datadir/committee/api.addr"))"

echo "--- examples/go"
go run ./examples/go --rpc "$rpc" --datadir "$datadir"
go run ./examples/go --rpc "$rpc" --datadir "$datadir" --account 2 --income 2 --debt 1   # denied

echo "--- examples/policies (every shipped policy, KYC/AML and the 2- and 4-refresh ones included, random inputs)"
go run ./examples/policies --rpc "$rpc" --datadir "$datadir" --count 2

echo "--- examples/js"
(cd examples/js && npm ci --no-audit --no-fund --silent \
  && RPC_URL="$rpc" FHEGATE_DATADIR="$datadir" FHEGATE_BIN="$bin" npm start --silent)

echo "--- stopping the devnet (SIGTERM)"
kill -TERM "$devnet_pid"
wait "$devnet_pid"
grep -q "stopping devnet" "$work/devnet.out"
echo "examples OK"
