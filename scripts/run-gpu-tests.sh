#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs the GPU tests, a real pipeline, the element benchmark and
# compute-sanitizer on the GPU machine, from .devbin/ beside .gstkit/
# (docs/gpu.md says how to make both).
set -u
here=$(cd "$(dirname "$0")" && pwd)   # .devbin: the plugin and test binaries
. "$here/../.gstkit/env.sh"
export GST_PLUGIN_PATH="$here" GST_REGISTRY=/tmp/bspline-registry.bin CK_DEFAULT_TIMEOUT=600
out=${OUT:-/tmp}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== gst-inspect"; gst-inspect-1.0 bsplinewarp | grep -A3 "^  backend" | head -4
echo "== test-gpu-engine"; "$here/test-gpu-engine" | tail -3
echo "== test-gpu-element"; "$here/test-gpu-element" 2>&1 | tail -4
echo "== test-gpu-linear-light (from the repository root: tests/gpu/data)"; "$here/test-gpu-linear-light" 2>&1 | tail -22
echo "== test-gpu-motion and stabilize-element on cuda (with face.ppm from build/tests/stabilize)"; "$here/test-gpu-motion" "$here/face.ppm" | tail -2; BSPLINE_TEST_BACKEND=cuda "$here/test-stabilize-element" "$here/face.ppm" 2>&1 | tail -2
echo "== elements suite on cuda"; BSPLINE_TEST_BACKEND=cuda "$here/test-bsplinewarp" > $out/elements-cuda.log 2>&1; echo "rc=$?"; grep -v "^0:00" $out/elements-cuda.log | tail -5
echo "== pipeline"; gst-launch-1.0 -q videotestsrc num-buffers=1 pattern=smpte ! video/x-raw,width=640,height=480 ! bsplinewarp backend=cuda rotation=15 order=5 boundary=constant ! video/x-raw,width=960,height=720 ! videoconvert ! pngenc ! filesink location=$out/cuda-rotate.png && ls -la $out/cuda-rotate.png
gst-launch-1.0 -q videotestsrc num-buffers=1 pattern=smpte ! video/x-raw,width=640,height=480 ! bsplinewarp backend=cpu rotation=15 order=5 boundary=constant ! video/x-raw,width=960,height=720 ! videoconvert ! pngenc ! filesink location=$out/cpu-rotate.png && cmp $out/cuda-rotate.png $out/cpu-rotate.png && echo "cuda and cpu PNGs identical" || echo "cuda and cpu PNGs differ (float rounding)"
echo "== bench"; "$here/bench-warp" --frames 300 --element "bsplinewarp backend=cuda order=3" --element "bsplinewarp backend=cuda order=3 precision=fast rotation=10" --element "bsplinewarp backend=cpu order=3 n-threads=16" --element "videoscale method=4-tap n-threads=16" --element "videoscale method=lanczos n-threads=16" 2>&1 | tail -6
"$here/bench-warp" --frames 1000 --pool --element "bsplinewarp backend=cuda order=3" --element "bsplinewarp backend=cuda order=3 rotation=10" 2>&1 | tail -3
# a real pipeline: 2000 frames/s of the time 2200 frames take beyond 200
# (the start-up), and the source alone the same way
rate () {
  local t0 t1 t2
  t0=$(date +%s.%N); gst-launch-1.0 -q videotestsrc num-buffers=200 pattern=black ! video/x-raw,format=RGBA,width=1920,height=1080,framerate=30/1 ! queue max-size-buffers=3 ! $1 ! fakesink sync=false || return
  t1=$(date +%s.%N); gst-launch-1.0 -q videotestsrc num-buffers=2200 pattern=black ! video/x-raw,format=RGBA,width=1920,height=1080,framerate=30/1 ! queue max-size-buffers=3 ! $1 ! fakesink sync=false || return
  t2=$(date +%s.%N); python3 -c "print('pipeline %-70s %7.1f frames/s' % ('$1', 2000 / (($t2 - $t1) - ($t1 - $t0))))"
}
rate "bsplinewarp backend=cuda order=3 ! video/x-raw,width=3840,height=2160"
rate "bsplinewarp backend=cuda order=3 rotation=10 ! video/x-raw,width=3840,height=2160"
rate identity
echo "== compute-sanitizer memcheck (engine test)"; BSPLINE_TEST_SEED=11 compute-sanitizer --tool memcheck --leak-check full "$here/test-gpu-engine" 2>&1 | tail -2
echo "== compute-sanitizer racecheck (engine test)"; BSPLINE_TEST_SEED=12 compute-sanitizer --tool racecheck "$here/test-gpu-engine" 2>&1 | tail -1
echo "== compute-sanitizer initcheck (engine test)"; BSPLINE_TEST_SEED=13 compute-sanitizer --tool initcheck "$here/test-gpu-engine" 2>&1 | tail -1
echo "== compute-sanitizer memcheck (element test)"; compute-sanitizer --tool memcheck "$here/test-gpu-element" 2>&1 | tail -3
