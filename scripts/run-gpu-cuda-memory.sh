#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 6 on the GPU machine, in one run: the memory:CUDAMemory test
# (tests/gpu/test-cuda-memory.c), the same under compute-sanitizer memcheck
# (three formats), the launch line of docs/element.md, and the CUDA-memory
# benchmark (bench/bench-cuda-memory.c) beside the system-memory figure,
# for bsplinewarp and for bsplinestabilize (1080p and 4K).
# Run from the repository root with the GStreamer kit and the binaries of
# docs/gpu.md ("CUDA memory") in BIN (default .devbin):
#
#   . .gstkit/env.sh; bash scripts/run-gpu-cuda-memory.sh [BIN]
#
# Logs go to $OUT when it is set (the GPU machine's result folder);
# SKIP_SANITIZER=1 leaves out the compute-sanitizer run.
set -u
bin=$(cd "${1:-.devbin}" && pwd)
out=${OUT:-/tmp}
export GST_PLUGIN_PATH=$bin GST_REGISTRY=/tmp/registry-cuda-memory.bin
export BSPLINE_TEST_CLIP=$PWD/tests/gpu/data/testsrc2-640x360-20f.h264
status=0

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u
gst-inspect-1.0 bsplinewarp > /dev/null || status=1
gst-inspect-1.0 cudaupload > /dev/null || echo "no cudaupload: the test skips"

echo "== test-cuda-memory"
timeout 300 "$bin/test-cuda-memory" 2>&1 | tee "$out/test-cuda-memory.log" \
  | grep -v '^$' | tail -40
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

echo "== launch line (docs/element.md): nvh264dec -> bsplinewarp -> cudadownload -> PNG"
timeout 60 gst-launch-1.0 -q filesrc location="$BSPLINE_TEST_CLIP" ! h264parse \
  ! nvh264dec ! bsplinewarp rotation=10 order=5 ! \
  "video/x-raw(memory:CUDAMemory),width=960,height=540" ! cudadownload \
  ! videoconvert ! pngenc snapshot=true ! filesink location="$out/decode-warp.png" \
  || status=1

echo "== compute-sanitizer memcheck (RGBA, NV12, I420_10LE)"
if [ -n "${SKIP_SANITIZER:-}" ]; then
  echo "skipped (SKIP_SANITIZER)"
elif command -v compute-sanitizer > /dev/null; then
  BSPLINE_TEST_FORMATS="RGBA NV12 I420_10LE" timeout 400 compute-sanitizer \
    --tool memcheck --leak-check no --error-exitcode 9 "$bin/test-cuda-memory" \
    > "$out/memcheck-cuda-memory.log" 2>&1
  rc=$?
  grep -E 'ERROR SUMMARY|PASSED|FAILED' "$out/memcheck-cuda-memory.log" | tail -3
  [ $rc -eq 0 ] || { echo "memcheck exit $rc"; status=1; }
else
  echo "no compute-sanitizer on this machine"
fi

echo "== bench-cuda-memory"
timeout 200 "$bin/bench-cuda-memory" --frames 2000 || status=1

# bsplinestabilize (issue 41): default properties (the solve thread), then
# solve-thread=false, at
# 1080p and 4K NV12, from system memory and from CUDA memory, on frames of
# a drifting zone plate (motion to measure); identity is the harness
stab_pattern="zone-plate kx2=20 ky2=20 kt=1 kxt=5 kyt=3"
for size in 1920x1080 3840x2160; do
  for props in "" "solve-thread=false"; do
    echo "== bench-cuda-memory: bsplinestabilize $props at $size"
    timeout 200 "$bin/bench-cuda-memory" --format NV12 --in $size \
      --out $size --frames 1000 --pattern "$stab_pattern" \
      --element "bsplinestabilize backend=cuda $props" || status=1
  done
done
exit $status
