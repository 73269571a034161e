#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 22's CPU target: bsplinewarp's 1080p RGBA fisheye undistortion
# beside its own rotation by 10 degrees, and beside OpenCV's cv2.remap
# (INTER_CUBIC, INTER_LANCZOS4) on maps made once by
# cv2.fisheye.initUndistortRectifyMap, in the same run.
#
#   bash bench/lens-vs-opencv.sh [BUILD-DIR] [ROUNDS] [FRAMES] [THREADS]
#
# BUILD-DIR (default build) holds bench/bench-warp and the plugin (gst/);
# OpenCV 4.10 is the python of .venv (scripts/install-deps.sh makes it) or
# $BSPLINE_CV_PYTHON.  The camera is OpenCV's fisheye test calibration
# (modules/calib3d/test/test_fisheye.cpp, fisheyeTest::K, D, 1280x800;
# tests/core/test_lens_fit.py's "fisheye-opencv-test") scaled to the
# frame as test_lens.py scales it: centre c -> (c + 0.5) s - 0.5.  Two
# undistorted views: onto the camera's own focal length (the element's
# default new camera at equal sizes) and onto 0.6 of it (new-camera-matrix:
# the map shrinks the picture 1 / 0.6 = 1.67 times at the centre, less
# toward the edges, and the default antialias widens the kernel there).
# Prints bench-warp's lines
# with the lens properties written as [fisheye] and [0.6 f] (their full
# text is printed first: the full descriptions, over 200 characters, would
# squeeze bench/plot-benchmarks.py's labels), and OpenCV's in the same row
# format (frames/s over the timed frames, median and shortest ms), so that
# the chart draws them as the anchors of the run.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
rounds=${2:-3}
frames=${3:-30}
threads=${4:-2}
py=${BSPLINE_CV_PYTHON:-$PWD/.venv/bin/python3}
work=$(mktemp -d /tmp/lens-bench-XXXXXX)
trap 'rm -rf "$work"' EXIT
export GST_PLUGIN_PATH=$PWD/$build/gst GST_REGISTRY=$work/registry.bin

W=1920
H=1080
# fx fy cx cy of the frame, and of the 0.6 f view
read -r fx fy cx cy < <(/usr/bin/python3 -c "
W, H = $W, $H
sx, sy = W / 1280, H / 800
print('%.17g %.17g %.17g %.17g' % (558.478087865323 * sx,
    560.506767351568 * sy, (620.458515360843 + 0.5) * sx - 0.5,
    (381.939424848348 + 0.5) * sy - 0.5))")
D="-0.0014613319981768,-0.00329861110580401,0.00605760088590183,-0.00374209380722371"
K="$fx,$fy,$cx,$cy"
K06=$(/usr/bin/python3 -c "print('%.17g,%.17g,$cx,$cy' % ($fx * 0.6, $fy * 0.6))")

base="bsplinewarp backend=cpu order=3 n-threads=$threads"
lens="lens-model=fisheye camera-matrix=<$K> distortion=<$D>"

echo "# bench/lens-vs-opencv.sh $build $rounds $frames $threads"
echo "# machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $(uname -r)"
echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "# [fisheye] = $lens"
echo "# [0.6 f] = new-camera-matrix=<$K06>"
for round in $(seq 1 "$rounds"); do
  echo "# round $round"
  "$build/bench/bench-warp" --format RGBA --in ${W}x${H} --out ${W}x${H} \
    --threads "$threads" --frames "$frames" \
    --element "$base rotation=10" \
    --element "$base $lens" \
    --element "$base $lens antialias=none" \
    --element "$base $lens new-camera-matrix=<$K06>" \
    --element "$base $lens new-camera-matrix=<$K06> antialias=none" \
    | sed -e "s|$lens|[fisheye]|" -e "s|new-camera-matrix=<$K06>|[0.6 f]|"
  "$py" - "$W" "$H" "$K" "$K06" "$D" "$frames" "$threads" <<'PY'
import sys, time
import numpy as np
import cv2

w, h = int(sys.argv[1]), int(sys.argv[2])
cams = [[float(x) for x in sys.argv[i].split(",")] for i in (3, 4)]
D = np.array([float(x) for x in sys.argv[5].split(",")])
frames, threads = int(sys.argv[6]), int(sys.argv[7])
cv2.setNumThreads(threads)


def kmat(c):
    return np.array([[c[0], 0, c[2]], [0, c[1], c[3]], [0, 0, 1.0]])


rng = np.random.default_rng(2026)
inputs = [rng.integers(0, 256, (h, w, 4), np.uint8) for _ in range(4)]
print("# cv2 %s, numpy %s, cv2.getNumThreads() %d; RGBA %dx%d -> %dx%d, "
      "%d frames after 3 warm-up, CV_32FC1 maps made once" % (
          cv2.__version__, np.__version__, cv2.getNumThreads(), w, h, w, h,
          frames))
for view, newcam in (("", cams[0]), (" [0.6 f]", cams[1])):
    t0 = time.perf_counter()
    m1, m2 = cv2.fisheye.initUndistortRectifyMap(
        kmat(cams[0]), D, np.eye(3), kmat(newcam), (w, h), cv2.CV_32FC1)
    t_map = time.perf_counter() - t0
    for name in ("INTER_CUBIC", "INTER_LANCZOS4"):
        interp = getattr(cv2, name)
        times = []
        for i in range(3 + frames):
            t0 = time.perf_counter()
            cv2.remap(inputs[i % 4], m1, m2, interp)
            if i >= 3:
                times.append(time.perf_counter() - t0)
        times.sort()
        print("%-45s %8.2f frames/s   median %8.2f ms/frame   best %8.2f" % (
            "cv2.remap %s [fisheye]%s" % (name, view), frames / sum(times),
            1e3 * times[frames // 2], 1e3 * times[0]))
    print("# cv2.fisheye.initUndistortRectifyMap [fisheye]%s: %.1f ms, "
          "once" % (view, 1e3 * t_map))
PY
done
