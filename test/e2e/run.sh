#!/usr/bin/env bash
# End-to-end test on a real node, for CI and for people:
#   1. installs avalanchego v1.14.0 (rpcchainvm 44, matching subnet-evm v0.8.0) unless a matching one
#      is already at $AVALANCHEGO_PATH or $(go env GOPATH)/bin/avalanchego (`go install` names it `main`;
#      it is renamed to avalanchego) — about 2.5 min of compiling on 2 cores the first time;
#   2. builds the fhegate CLI and installs the VM plugin into a temporary plugin dir with
#      `fhegate plugin install`;
#   3. runs `go test -tags e2e ./test/e2e/...`: one node via tmpnet, the MPC committee as three
#      `fhegate committee serve` processes, the example contracts from encrypted inputs to verdicts
#      (loopback only), then a load batch of 64 requests from 4 accounts (bench/load).
# Extra arguments are passed to go test (e.g. -run, -timeout).
set -euo pipefail
cd "$(dirname "$0")/../.."

AVALANCHEGO_VERSION=v1.14.0
RPCCHAINVM=44

matches() { [ -x "$1" ] && "$1" --version-json 2>/dev/null | grep -Eq "\"rpcchainvm\": *$RPCCHAINVM([^0-9]|\$)"; }

avago="${AVALANCHEGO_PATH:-$(go env GOPATH)/bin/avalanchego}"
if matches "$avago"; then
  echo "using $avago ($("$avago" --version))"
else
  echo "installing avalanchego $AVALANCHEGO_VERSION to $avago (go install; first time ~2.5 min)"
  gobin=$(mktemp -d)
  GOBIN="$gobin" GOFLAGS=-buildvcs=false go install "github.com/ava-labs/avalanchego/main@$AVALANCHEGO_VERSION"
  mkdir -p "$(dirname "$avago")"
  mv "$gobin/main" "$avago"
  rmdir "$gobin"
  matches "$avago" || { echo "installed $avago does not speak rpcchainvm $RPCCHAINVM" >&2; exit 1; }
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/fhegate" ./cmd/fhegate
"$work/fhegate" plugin install --plugin-dir "$work/plugins"

AVALANCHEGO_PATH="$avago" FHEGATE_PLUGIN_DIR="$work/plugins" FHEGATE_BIN="$work/fhegate" \
  go test -tags e2e -count=1 -v -timeout 30m "$@" ./test/e2e/...
