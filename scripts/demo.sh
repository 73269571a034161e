#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The README's first command: installs what is missing, builds, writes a
# real photo (scipy.misc.face(), 1024x768) into build/demo/ and runs
# bsplinewarp and, for comparison, videoscale on it with gst-launch-1.0.
# Prints where the PNGs are.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
# the plugin, and the libraries it links: not the tests
bash scripts/build.sh gst/libgstbspline.so

demo=build/demo
mkdir -p "$demo"
/usr/bin/python3 scripts/make-demo-image.py "$demo/face.png"

export GST_PLUGIN_PATH="$PWD/build/gst"
if ! gst-inspect-1.0 bsplinewarp >/dev/null 2>&1; then
  echo "demo: gst-inspect-1.0 finds no bsplinewarp in $GST_PLUGIN_PATH:" >&2
  gst-inspect-1.0 "$GST_PLUGIN_PATH/libgstbspline.so" >&2 || true
  exit 1
fi

outputs=()

# run NAME PIPELINE-MIDDLE...: decodes face.png to RGBA, runs the middle of
# the pipeline, encodes the result to $demo/NAME.png.
run () {
  local name=$1
  shift
  echo "demo: $name"
  gst-launch-1.0 -q filesrc location="$demo/face.png" ! pngdec \
    ! videoconvert ! video/x-raw,format=RGBA \
    ! "$@" \
    ! videoconvert ! pngenc ! filesink location="$demo/$name.png"
  outputs+=("$demo/$name.png")
}

x2=video/x-raw,width=2048,height=1536

# (a) upscale x2 with the cubic B-spline, plain and with a rotation
run face-x2-bsplinewarp-order3 bsplinewarp order=3 ! "$x2"
run face-x2-bsplinewarp-order3-rotation7 \
  bsplinewarp order=3 rotation=7 boundary=constant ! "$x2"
# (b) the same upscale with videoscale, for comparison
run face-x2-videoscale-bilinear videoscale method=bilinear ! "$x2"
run face-x2-videoscale-4tap videoscale method=4-tap ! "$x2"
run face-x2-videoscale-lanczos videoscale method=lanczos ! "$x2"
# (c) a perspective warp (forward homography about the frame's centre)
run face-perspective-bsplinewarp-order3 \
  bsplinewarp order=3 boundary=constant \
  matrix="<1.0,0.1,0.0,0.0,1.0,0.0,0.0,0.0005,1.0>"

echo
echo "demo: input photo  $demo/face.png (1024x768)"
for f in "${outputs[@]}"; do
  echo "demo: wrote        $f"
done
echo "demo: compare the x2 files at 100% zoom, e.g. at the eyes and whiskers"
