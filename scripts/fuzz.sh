#!/usr/bin/env bash
# Builds the libFuzzer harnesses of test/fuzz and runs each for SECONDS
# (default 600) from its seed corpus, printing executions and any crash.
#
#   scripts/fuzz.sh [SECONDS] [NAME...]     (names: safetensors npy manifest
#                                            artifact mlir tosa onnx; default all)
#
# BUILD (default build/) must be configured with RLX_BUILD_FUZZERS=ON (the
# default under clang). New inputs go to BUILD/test/fuzz/corpus/NAME, crash
# inputs to BUILD/test/fuzz/crashes/NAME-*; copy a crash into
# test/fuzz/corpus/NAME once it is fixed, as its regression input.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
seconds=${1:-600}
shift || true
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(safetensors npy manifest artifact mlir tosa onnx)

targets=()
for name in "${names[@]}"; do targets+=("rlx-fuzz-$name"); done
cmake --build "$build" --target "${targets[@]}"

out=$build/test/fuzz
status=0
for name in "${names[@]}"; do
  mkdir -p "$out/corpus/$name" "$out/crashes"
  log=$out/$name.log
  echo "== $name: ${seconds}s"
  # -fork would survive a crash and keep going; one process reports the first
  # crash and stops, which is what a regression needs.
  if "$build/bin/rlx-fuzz-$name" -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$out/crashes/$name-" \
      "$out/corpus/$name" "$root/test/fuzz/corpus/$name" >"$log" 2>&1; then
    :
  else
    status=1
  fi
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)' "$log" |
    sed 's/^/   /' || true
  grep -E 'DONE|INITED' "$log" | tail -1 | sed 's/^/   /' || true
  if grep -q 'Test unit written to' "$log"; then
    grep -E 'ERROR: |SUMMARY: |Test unit written to' "$log" | sed 's/^/   /'
    echo "   CRASH (log: $log)"
  fi
done
exit $status
