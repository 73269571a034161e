#!/usr/bin/env bash
# Regenerates the PNGs of docs/pictures/ (shown in docs/pictures.md) from
# the demo photo with gst-launch-1.0 and the plugin of build/.
# Needs what scripts/install-deps.sh installs.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/build.sh >/dev/null
work=build/doc-pictures
out=docs/pictures
mkdir -p "$work" "$out"
/usr/bin/python3 scripts/make-demo-image.py "$work/face.png"
export GST_PLUGIN_PATH="$PWD/build/gst"

# picture NAME PIPELINE-MIDDLE...: face.png as RGBA through the middle of
# the pipeline into docs/pictures/NAME.png (RGB, smallest PNG).
picture () {
  local name=$1
  shift
  gst-launch-1.0 -q filesrc location="$work/face.png" ! pngdec \
    ! videoconvert ! video/x-raw,format=RGBA \
    ! "$@" \
    ! videoconvert ! video/x-raw,format=RGB \
    ! pngenc compression-level=9 ! filesink location="$out/$name.png"
  echo "$out/$name.png"
}

# (a) boundary modes: rotated by 30 degrees and zoomed out, so that the
# extension of the picture beyond its edges fills most of the frame.
small=video/x-raw,width=384,height=288
for boundary in reflect mirror wrap clamp constant; do
  picture "boundary-$boundary" \
    bsplinewarp rotation=30 zoom=0.6 boundary="$boundary" \
    fill-color=0xff000000 ! "$small"
done

# (b) a 48x36 region of whiskers below the left eye (x 496-543, y 330-365
# of the 1024x768 photo) magnified 8 times to 384x288; order=0 shows the
# input pixels as 8x8 squares.
magnify () {
  local name=$1
  shift
  picture "magnify-$name" \
    videocrop left=496 right=480 top=330 bottom=402 ! "$@" ! "$small"
}
magnify bsplinewarp-order0 bsplinewarp order=0
magnify bsplinewarp-order1 bsplinewarp order=1
magnify bsplinewarp-bicubic bsplinewarp method=bicubic
magnify bsplinewarp-order3 bsplinewarp order=3
magnify bsplinewarp-order5 bsplinewarp order=5
magnify videoscale-bilinear videoscale method=bilinear
magnify videoscale-4tap videoscale method=4-tap

du -ch "$out"/*.png | tail -n 1
