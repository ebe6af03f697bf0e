#!/usr/bin/env bash
# Runs every Fuzz target in the tree for FUZZ_SECONDS (default 8) each; used by .ci/run and by people
# (FUZZ_SECONDS=60 .ci/fuzz.sh is the 60-second run docs/LP-137.md reports). Prints one line per target
# and a closing "N passed, N failed" line.
#
# A target fails when the fuzzer finds something: it writes the failing input under testdata/fuzz/ and
# says "Failing input written to". Go 1.26's fuzz coordinator has a shutdown race at the -fuzztime
# boundary (go.dev/issue/75804, fixed in Go 1.27): on a loaded machine a worker still mid-input when the
# deadline fires makes the target FAIL with a bare "context deadline exceeded" and no input written.
# Such a run is not a finding; it is run once more, and if that ends the same way the target's seed and
# committed corpus is replayed deterministically (go test -run '^Target$'), which must pass.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-8}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
passed=0
failed=0

# fuzz PKG TARGET: 0 = ran clean, 1 = finding or other failure, 2 = bare shutdown-race failure.
# -fuzzminimizetime 5x: a short run must not spend its time minimizing a newly interesting input
# (minimizing a multi-kilobyte key encoding can outlast -fuzztime).
fuzz() {
  if go test -run '^$' -fuzz "^$2\$" -fuzztime "${seconds}s" -fuzzminimizetime 5x "$1" >"$out" 2>&1; then
    return 0
  fi
  if grep -q 'Failing input written to' "$out" || grep -Eq 'panic:|fatal error:' "$out" ||
    ! grep -q '^    context deadline exceeded$' "$out"; then
    return 1
  fi
  return 2
}

while read -r f; do
  pkg="./$(dirname "$f")"
  for target in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | cut -d' ' -f2); do
    rc=0
    how=fuzzed
    fuzz "$pkg" "$target" || rc=$?
    if [ "$rc" -eq 2 ]; then
      echo "  $pkg $target: fuzz coordinator shutdown race (no input written), running it again"
      rc=0
      fuzz "$pkg" "$target" || rc=$?
      if [ "$rc" -eq 2 ]; then
        echo "  $pkg $target: shutdown race again; replaying its corpus instead"
        go test -count=1 -run "^$target\$" "$pkg" >"$out" 2>&1 && rc=0 || rc=1
        how=replayed
      fi
    fi
    if [ "$rc" -eq 0 ]; then
      passed=$((passed + 1))
      if [ "$how" = fuzzed ]; then
        echo "  $pkg $target: ok ($(grep -Eo 'execs: [0-9]+' "$out" | tail -1 | cut -d' ' -f2) execs)"
      else
        echo "  $pkg $target: ok (corpus replayed)"
      fi
    else
      failed=$((failed + 1))
      echo "  $pkg $target: FAILED"
      cat "$out"
    fi
  done
done < <(git grep -l '^func Fuzz' -- '*_test.go')

echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
