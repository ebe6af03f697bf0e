#!/usr/bin/env bash
# Rebuild contracts/artifacts (solc, pinned in package.json / package-lock.json),
# precompiles/abi (interface ABIs embedded by the precompile core) and
# contracts/bindings (libevm's abigen generator, accounts/abi/bind.Bind, from the libevm version in go.mod).
# Deterministic: CI runs this and `git diff --exit-code` on the three directories.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -d node_modules/solc ]; then npm ci --no-audit --no-fund; fi
npm run --silent build   # node build.js (artifacts + precompiles/abi) && go run ./contracts/gen (bindings)
gofmt -l bindings | (! grep .) || { echo "bindings not gofmt-clean"; exit 1; }
echo "bindings regenerated in contracts/bindings"
