#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what is missing, builds, runs the whole test suite and ends with
# one line "N passed, N failed, N skipped".  The suite is run four ways
# (docs/reliability.md), each pass building only what it runs:
#   1. build/          the normal build (scripts/build.sh: everything, the
#                      CUDA kernels for this machine's GPU or, without one,
#                      for one architecture as a compile check): every test;
#   2. build-asan/     AddressSanitizer + UndefinedBehaviorSanitizer (gcc),
#                      meson test --setup asan: every test but the GPU ones
#                      and the kernel-variant hashes, the longest at a
#                      smaller work scale (tests/sanitizers/meson.build);
#   3. build-valgrind/ valgrind memcheck, meson test --setup valgrind: the
#                      tests that exercise memory and threads, at a smaller
#                      work scale (tests/sanitizers/meson.build);
#   4. build-fuzz/     libFuzzer (clang): each harness for FUZZ_SECONDS
#                      (default 45, both at once) from tests/fuzz/corpus;
#                      a crash counts as a failed test.
# Arguments are passed to the first `meson test` only.  BSPLINE_TEST_FAST=1
# runs the first pass alone (for a quick check while developing).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh || { echo "0 passed, 1 failed, 0 skipped"; exit 1; }
bash scripts/build.sh || { echo "0 passed, 1 failed, 0 skipped"; exit 1; }

status=0
logs=(build/meson-logs/testlog.json)
meson test -C build --print-errorlogs --num-processes "$(nproc)" "$@" || status=1

# extra_result NAME OK|FAIL: a result that is not a meson test (a fuzzer,
# or a pass that could not be built and counts as one failed test)
extra=build/meson-logs/extra-results.json
: > "$extra"
logs+=("$extra")
extra_result () {
  printf '{"name": "%s", "result": "%s"}\n' "$1" "$2" >> "$extra"
  [ "$2" = OK ] || status=1
}

# configure DIR MESON-OPTIONS...: configures DIR once
configure () {
  local dir=$1
  shift
  [ -f "$dir/build.ninja" ] && return 0
  meson setup "$dir" "$@" >"build/$dir.setup.log" 2>&1 || {
    cat "build/$dir.setup.log"; return 1; }
}

# build_targets DIR TARGET...: builds those targets of DIR alone
build_targets () {
  local dir=$1
  shift
  ninja -C "$dir" "$@" >"build/$dir.build.log" 2>&1 || {
    tail -40 "build/$dir.build.log"; return 1; }
}

# build_for_setup DIR SETUP: builds what the tests of meson test --setup
# SETUP run in DIR (scripts/test-targets.py), not every target: the kernel
# variants and the tests a setup leaves out are never compiled there
build_for_setup () {
  local targets
  targets=$(python3 scripts/test-targets.py "$1" "$2") && [ -n "$targets" ] \
    || { echo "test.sh: no targets for the $2 tests of $1"; return 1; }
  # shellcheck disable=SC2086
  build_targets "$1" $targets
}

if [ "${BSPLINE_TEST_FAST:-0}" != 1 ]; then
  # 2. ASan + UBSan.  The CUDA engine is left out: the static CUDA runtime
  # reserves address ranges that clash with ASan's shadow memory; the GPU
  # engine is checked by compute-sanitizer instead.  gcc, not the clang of
  # the fuzz build (one clang build could serve both, saving the fuzz
  # build's 44 s): the x86 kernels are gcc's target_clones, so under clang
  # the tests would run the plain C loops alone and ASan would no longer
  # see the AVX2 and AVX-512 kernels (valgrind runs the AVX2 ones only).
  echo "== AddressSanitizer + UndefinedBehaviorSanitizer (build-asan)"
  if configure build-asan -Db_sanitize=address,undefined \
      -Db_lundef=false -Dbuildtype=debugoptimized -Dcuda=disabled \
      && build_for_setup build-asan asan; then
    rm -f build-asan/meson-logs/testlog-asan.json
    meson test -C build-asan --setup asan --no-rebuild --print-errorlogs \
      --num-processes "$(nproc)" || status=1
    logs+=(build-asan/meson-logs/testlog-asan.json)
  else
    extra_result asan-build FAIL
  fi

  # 3. valgrind memcheck
  echo "== valgrind memcheck (build-valgrind)"
  if configure build-valgrind -Dbuildtype=debugoptimized -Dcuda=disabled \
      && build_for_setup build-valgrind valgrind; then
    rm -f build-valgrind/meson-logs/testlog-valgrind.json
    meson test -C build-valgrind --setup valgrind --no-rebuild \
      --print-errorlogs --num-processes "$(nproc)" || status=1
    logs+=(build-valgrind/meson-logs/testlog-valgrind.json)
  else
    extra_result valgrind-build FAIL
  fi

  # 4. libFuzzer
  echo "== libFuzzer (build-fuzz), ${FUZZ_SECONDS:-45} s per harness"
  # the two harnesses alone: the fuzz build runs nothing else
  if CC=clang configure build-fuzz -Dfuzzing=true -Dcuda=disabled \
      -Db_sanitize=address,undefined -Db_lundef=false \
      -Dc_args=-fsanitize=fuzzer-no-link -Dbuildtype=debugoptimized \
      && build_targets build-fuzz tests/fuzz/fuzz-core tests/fuzz/fuzz-element
  then
    bash scripts/run-fuzzers.sh "${FUZZ_SECONDS:-45}" build-fuzz
    for name in core element; do
      if [ -f "build-fuzz/fuzz-$name.ok" ]; then
        extra_result "fuzz-$name" OK
      else
        extra_result "fuzz-$name" FAIL
      fi
    done
  else
    extra_result fuzz-build FAIL
  fi
fi

/usr/bin/python3 scripts/test-summary.py "${logs[@]}" || status=1
exit $status
