#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Regenerates the PNGs of docs/pictures/ (shown in docs/pictures.md) from
# the demo photo with gst-launch-1.0 and the plugin of build/.
# Needs what scripts/install-deps.sh installs.
#   bash scripts/make-doc-pictures.sh [SECTION...]
# SECTION: boundary, magnify, downscale (default: all three).
# BSPLINE_BUILD=DIR takes the plugin of DIR/gst (built with ninja -C DIR)
# instead of build/'s.
set -euo pipefail
cd "$(dirname "$0")/.."

sections=" ${*:-boundary magnify downscale} "
want () { [[ "$sections" == *" $1 "* ]]; }

build=${BSPLINE_BUILD:-build}
if [ "$build" = build ]; then
  bash scripts/build.sh >/dev/null
else
  ninja -C "$build" >/dev/null
fi
work=build/doc-pictures
out=docs/pictures
mkdir -p "$work" "$out"
/usr/bin/python3 scripts/make-demo-image.py "$work/face.png"
export GST_PLUGIN_PATH="$PWD/$build/gst"
# a registry of our own: never a plugin cached from another build
export GST_REGISTRY="$PWD/$work/registry.bin"

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
if want boundary; then
  for boundary in reflect mirror wrap clamp constant; do
    picture "boundary-$boundary" \
      bsplinewarp rotation=30 zoom=0.6 boundary="$boundary" \
      fill-color=0xff000000 ! "$small"
  done
fi

# (b) a 48x36 region of whiskers below the left eye (x 496-543, y 330-365
# of the 1024x768 photo) magnified 8 times to 384x288; order=0 shows the
# input pixels as 8x8 squares.
magnify () {
  local name=$1
  shift
  picture "magnify-$name" \
    videocrop left=496 right=480 top=330 bottom=402 ! "$@" ! "$small"
}
if want magnify; then
  magnify bsplinewarp-order0 bsplinewarp order=0
  magnify bsplinewarp-order1 bsplinewarp order=1
  magnify bsplinewarp-bicubic bsplinewarp method=bicubic
  magnify bsplinewarp-order3 bsplinewarp order=3
  magnify bsplinewarp-order5 bsplinewarp order=5
  magnify videoscale-bilinear videoscale method=bilinear
  magnify videoscale-4tap videoscale method=4-tap
fi

# (c) reduction by 3 (issue 21): antialias least-squares (the default)
# against none (the input's spline sampled at the output centres), on a
# zone plate and on the photo.  The property's values as launch lines
# spell them (antialias is a boolean today, true the least-squares
# reduction; as an enum these are least-squares and none, with true and
# false kept as aliases):
aa_least_squares=true
aa_none=false
if want downscale; then
  # the zone plate of scripts/downscale_compare.py, 768x768 (its
  # frequency reaches the input's Nyquist frequency at the middle of each
  # edge), to 256x256
  /usr/bin/python3 -c 'import sys; sys.path.insert(0, "scripts")
import downscale_compare as d
d.zone_plate(768).tofile(sys.argv[1])' "$work/zone.rgb"
  zone () {
    local name=$1
    shift
    gst-launch-1.0 -q filesrc location="$work/zone.rgb" \
      blocksize=$((768 * 768 * 3)) ! rawvideoparse format=rgb width=768 \
      height=768 framerate=1/1 ! videoconvert ! video/x-raw,format=RGBA \
      ! "$@" ! video/x-raw,width=256,height=256 \
      ! videoconvert ! video/x-raw,format=RGB \
      ! pngenc compression-level=9 ! filesink location="$out/$name.png"
    echo "$out/$name.png"
  }
  zone downscale-zone-least-squares bsplinewarp antialias="$aa_least_squares"
  zone downscale-zone-none bsplinewarp antialias="$aa_none"
  # zimg (ffmpeg's zscale, lanczos), the anchor of docs/benchmarks.md
  ffmpeg -v error -y -f rawvideo -pix_fmt rgb24 -s 768x768 \
    -i "$work/zone.rgb" -vf zscale=w=256:h=256:filter=lanczos \
    -f rawvideo -pix_fmt rgb24 "$work/zone-zimg.rgb"
  gst-launch-1.0 -q filesrc location="$work/zone-zimg.rgb" \
    blocksize=$((256 * 256 * 3)) ! rawvideoparse format=rgb width=256 \
    height=256 framerate=1/1 ! pngenc compression-level=9 \
    ! filesink location="$out/downscale-zone-zimg.png"
  echo "$out/downscale-zone-zimg.png"

  # the photo to 341x256 (default order 3), then a 128x96 region around
  # the eyes and the nose (x 130-257, y 80-175 of the reduction) shown 3
  # times larger, each output pixel a 3x3 square (order=0)
  photo () {
    picture "downscale-photo-$1" \
      bsplinewarp antialias="$2" ! video/x-raw,width=341,height=256 \
      ! videocrop left=130 right=83 top=80 bottom=80 \
      ! bsplinewarp order=0 ! "$small"
  }
  photo least-squares "$aa_least_squares"
  photo none "$aa_none"
fi

du -ch "$out"/*.png | tail -n 1
