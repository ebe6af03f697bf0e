#!/usr/bin/env bash
# Builds, vets, staticchecks and tests the Lux adapter (precompiles/host/luxevm, a nested module) against the
# stand-ins of Lux's API in precompiles/host/luxevm/standin/ (the real luxfi modules cannot be
# downloaded here). A go.work file in a temporary directory puts the adapter and the main module in
# one workspace and replaces luxfi/evm and luxfi/geth with the stand-ins; nothing in the tree is
# written.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/go.work" <<WORK
go 1.26.4

use (
	$root
	$root/precompiles/host/luxevm
)

replace (
	github.com/luxfi/evm => $root/precompiles/host/luxevm/standin/evm
	github.com/luxfi/geth => $root/precompiles/host/luxevm/standin/geth
)
WORK
export GOWORK="$work/go.work"
pkgs=(github.com/fhegate/fhegate/precompiles/host/luxevm/...
  github.com/luxfi/evm/commontype github.com/luxfi/evm/precompile/contract github.com/luxfi/evm/precompile/modules
  github.com/luxfi/evm/precompile/precompileconfig
  github.com/luxfi/geth/common github.com/luxfi/geth/core/types github.com/luxfi/geth/core/vm)
go build "${pkgs[@]}"
go vet "${pkgs[@]}"
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 "${pkgs[@]}" # the main run's pinned version
go test -count=1 github.com/fhegate/fhegate/precompiles/host/luxevm/...
