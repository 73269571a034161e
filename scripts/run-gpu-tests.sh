#!/bin/bash
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
echo "== test-gpu-motion and stabilize-element on cuda (with face.ppm from build/tests/stabilize)"; "$here/test-gpu-motion" "$here/face.ppm" | tail -2; BSPLINE_TEST_BACKEND=cuda "$here/test-stabilize-element" "$here/face.ppm" 2>&1 | tail -2
echo "== elements suite on cuda"; BSPLINE_TEST_BACKEND=cuda "$here/test-bsplinewarp" > $out/elements-cuda.log 2>&1; echo "rc=$?"; grep -v "^0:00" $out/elements-cuda.log | tail -5
echo "== pipeline"; gst-launch-1.0 -q videotestsrc num-buffers=1 pattern=smpte ! video/x-raw,width=640,height=480 ! bsplinewarp backend=cuda rotation=15 order=5 boundary=constant ! video/x-raw,width=960,height=720 ! videoconvert ! pngenc ! filesink location=$out/cuda-rotate.png && ls -la $out/cuda-rotate.png
gst-launch-1.0 -q videotestsrc num-buffers=1 pattern=smpte ! video/x-raw,width=640,height=480 ! bsplinewarp backend=cpu rotation=15 order=5 boundary=constant ! video/x-raw,width=960,height=720 ! videoconvert ! pngenc ! filesink location=$out/cpu-rotate.png && cmp $out/cuda-rotate.png $out/cpu-rotate.png && echo "cuda and cpu PNGs identical" || echo "cuda and cpu PNGs differ (float rounding)"
echo "== bench"; "$here/bench-warp" --frames 300 --element "bsplinewarp backend=cuda order=3" --element "bsplinewarp backend=cuda order=3 precision=fast rotation=10" --element "bsplinewarp backend=cpu order=3 n-threads=16" --element "videoscale method=4-tap n-threads=16" --element "videoscale method=lanczos n-threads=16" 2>&1 | tail -6
echo "== compute-sanitizer memcheck (engine test)"; BSPLINE_TEST_SEED=11 compute-sanitizer --tool memcheck --leak-check full "$here/test-gpu-engine" 2>&1 | tail -2
echo "== compute-sanitizer racecheck (engine test)"; BSPLINE_TEST_SEED=12 compute-sanitizer --tool racecheck "$here/test-gpu-engine" 2>&1 | tail -1
echo "== compute-sanitizer initcheck (engine test)"; BSPLINE_TEST_SEED=13 compute-sanitizer --tool initcheck "$here/test-gpu-engine" 2>&1 | tail -1
echo "== compute-sanitizer memcheck (element test)"; compute-sanitizer --tool memcheck "$here/test-gpu-element" 2>&1 | tail -3
