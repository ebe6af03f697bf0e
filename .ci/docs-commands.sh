#!/usr/bin/env bash
# Runs every `fhegate` command that README.md and docs/*.md show, in a quick form, so that a command a
# reader copies does not panic or fail (.ci/run's smoke step; people can run it too). Bounded: 25
# commands in 103 s plus the CLI build, measured with `time .ci/docs-commands.sh` on the 2-core dev
# host while other builds ran (2026-12-07; 2 min 24 s in all). Each command's output goes to a log
# printed only if the command fails; one line per command says how long it took.
#
# Covered elsewhere (they need a running chain, committee processes, or minutes):
#   fhegate devnet; keys gen --committee-api; encrypt --submit
#                                               examples/run.sh, against the devnet it starts (with the
#                                               private read of docs/private-reads.md, from JavaScript)
#   fhegate decrypt --handle (private read)     TestDecryptPrivateRead (cmd/fhegate, in go test ./...)
#   fhegate bench load                          TestBenchLoadInProcessDevnet (cmd/fhegate)
#   fhegate bench load --kill-member            TestBenchLoadKillsAMemberMidBatch (cmd/fhegate)
#   fhegate plugin install; committee serve     test/e2e/run.sh (real node, committee as processes)
#   fhegate committee keygen/assemble/dkg/serve/status, committee rotate sign-key/bind-key/switch
#                                               TestCommitteeKeygenAssembleDKGServe, TestCommitteeRotateCLI
#                                               (cmd/fhegate, in go test ./...)
#   fhegate calibrate --quick; calibrate --verify   .ci/run's GPU gate
#   fhegate policy eval of a plan with refresh points (example:kyc_aml, credit_limit, deep/…: an
#     in-process MPC committee at N=2^14, ~1.5 min here)   TestPolicyEvalInProcessCommittee (the same
#                                               code path on a small preset, in go test ./...)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin="$work/fhegate"
go build -o "$bin" ./cmd/fhegate
n=0
total=$(date +%s)

# run LABEL ARGS…: runs the CLI, fails the script (printing its output) if it fails.
run() {
  local t0 rc=0
  t0=$(date +%s)
  n=$((n + 1))
  (cd "$work" && "$bin" --log-level warn "$@") >"$work/out.log" 2>&1 || rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL ($rc): fhegate $*"
    cat "$work/out.log"
    exit 1
  fi
  printf '%4d s  fhegate %s\n' "$(( $(date +%s) - t0 ))" "$*"
}

run version
run dumpconfig
run dumpconfig genesis
run dumpconfig presets
run plugin vmid
run gpu info
run gpu info --table "$PWD/configs/crossover.json" --json

run policy compile example:kyc_aml
run policy compile example:credit_limit -o credit_limit.plan
run policy inspect example:kyc_aml
run policy inspect example:kyc_aml --ops
run policy inspect example:deep/set_screening --json
run policy eval example:allowlist --random 2

run keys gen --out mykeys
run encrypt --key mykeys/public.key --values 1,2,3 --out ct.bin
run decrypt --key mykeys/secret.key --in ct.bin

run committee init --dir c --n 3 --t 2 --chain-id 1337 --preset bgv-n13-t65537 --base-port "$(( 20000 + RANDOM % 20000 ))"
run committee dkg --dir c --all --round-timeout 60s
run committee status --dir c --member 1
run plugin genesis --dev --chain-id 1337 --governance 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 \
  --committee c/committee.json --out genesis.json

run bench workloads --quick
run bench policy --quick --policy credit_limit
run bench crdt --quick
run bench inputs --quick
run bench committee --quick --n 3 --t 2 --stages verdict,batch --batch 4

echo "$n documented commands ran green in $(( $(date +%s) - total )) s"
