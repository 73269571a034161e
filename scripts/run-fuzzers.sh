#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# run-fuzzers.sh SECONDS BUILD-DIR: runs tests/fuzz's libFuzzer harnesses
# (built with -Dfuzzing=true) side by side for SECONDS each, starting from
# the committed corpus.  New inputs go to BUILD-DIR/fuzz-corpus/NAME (not
# committed); a crash is written to BUILD-DIR/fuzz-artifacts/ and printed
# with the command that replays it.  Writes BUILD-DIR/fuzz-NAME.ok for each
# harness that ran its time without a crash, and prints the executions.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=$1
build=$2
export ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1
export G_SLICE=always-malloc
# the element harness registers the element itself: no plugin to scan
export GST_PLUGIN_SYSTEM_PATH_1_0= GST_PLUGIN_PATH_1_0=
export GST_REGISTRY_1_0=$PWD/$build/fuzz-registry.bin
mkdir -p "$build/fuzz-artifacts"
pids=()
for name in core element; do
  rm -f "$build/fuzz-$name.ok"
  mkdir -p "$build/fuzz-corpus/$name"
  "$build/tests/fuzz/fuzz-$name" -max_total_time="$seconds" -timeout=60 \
    -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$name-" \
    "$build/fuzz-corpus/$name" "tests/fuzz/corpus/$name" \
    >"$build/fuzz-$name.log" 2>&1 &
  pids+=($!)
done
i=0
for name in core element; do
  if wait "${pids[$i]}"; then
    touch "$build/fuzz-$name.ok"
    echo "fuzz-$name: OK, $(grep -a 'stat::number_of_executed_units' \
      "$build/fuzz-$name.log" | awk '{print $2}') executions in ${seconds} s," \
      "corpus $(find "$build/fuzz-corpus/$name" "tests/fuzz/corpus/$name" \
      -type f | wc -l) inputs"
  else
    echo "fuzz-$name: FAILED; the end of $build/fuzz-$name.log:"
    grep -a -E 'ERROR|runtime error|check failed|SUMMARY|#[0-9]+ 0x|Test unit written|artifact' \
      "$build/fuzz-$name.log" | head -40
    echo "Replay: $build/tests/fuzz/replay-$name $build/fuzz-artifacts/$name-*;" \
      "copy the input to tests/fuzz/corpus/$name/crash-WHAT and fix the bug."
  fi
  i=$((i + 1))
done
