#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# docs/pictures/chain-eight-warps.png (docs/chains.md, docs/pictures.md):
# the demo photo (scipy.misc.face(), 1024x768) turned by 360 degrees in
# eight `bsplinewarp rotation=45`, resampled by every element (left)
# against seven defer=true and one resampling (right), at order 3 (top)
# and order 1 (bottom).  Each panel is the 96x72 region of whiskers at
# x 472-567, y 316-387 of the frame (inside the disc that every rotation
# keeps in the frame) shown 4 times larger, each pixel a 4x4 square
# (bsplinewarp order=0).  Labels are drawn with PIL
# (python3-pil).  Needs what scripts/install-deps.sh installs.
#   bash scripts/make-chain-picture.sh
# BSPLINE_BUILD=DIR takes the plugin of DIR/gst (built with ninja -C DIR)
# instead of build/'s.
set -euo pipefail
cd "$(dirname "$0")/.."

build=${BSPLINE_BUILD:-build}
if [ "$build" = build ]; then
  bash scripts/build.sh >/dev/null
else
  ninja -C "$build" >/dev/null
fi
work=$(mktemp -d /tmp/chain-picture-XXXXXX)
trap 'rm -rf "$work"' EXIT
out=docs/pictures/chain-eight-warps.png
/usr/bin/python3 scripts/make-demo-image.py "$work/face.png"
export GST_PLUGIN_PATH="$PWD/$build/gst"
# a registry of our own: never a plugin cached from another build
export GST_REGISTRY="$work/registry.bin"

# panel NAME ORDER DEFER: the eight rotations (the first seven with
# defer=DEFER), the region cut with videocrop, magnified 4 times.  The
# caps after the eighth keep the frame's size: without them the eighth
# element would scale to whatever videocrop's caps ask (384x288 plus the
# cut), as any scaler before videocrop does.
panel () {
  local name=$1 order=$2 defer=$3 chain="" n
  for n in 1 2 3 4 5 6 7; do
    chain="$chain bsplinewarp name=r$n rotation=45 order=$order"
    chain="$chain defer=$defer !"
  done
  # shellcheck disable=SC2086
  gst-launch-1.0 -q filesrc location="$work/face.png" ! pngdec \
    ! videoconvert ! video/x-raw,format=RGBA ! $chain \
    bsplinewarp rotation=45 order="$order" \
    ! video/x-raw,width=1024,height=768 \
    ! videocrop left=472 right=456 top=316 bottom=380 \
    ! bsplinewarp order=0 ! video/x-raw,width=384,height=288 \
    ! videoconvert ! video/x-raw,format=RGB \
    ! pngenc ! filesink location="$work/$name.png"
}
panel eight-3 3 false
panel once-3 3 true
panel eight-1 1 false
panel once-1 1 true

/usr/bin/python3 - "$work" "$out" <<'PY'
import os
import sys

from PIL import Image, ImageDraw, ImageFont

work, out = sys.argv[1:]
font = ImageFont.truetype(
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 15)
pad, label = 8, 24
w, h = 384, 288
sheet = Image.new("RGB", (2 * w + 3 * pad, 2 * (h + label) + 3 * pad),
                  "white")
draw = ImageDraw.Draw(sheet)
for row, order in enumerate((3, 1)):
    for col, (kind, text) in enumerate((
            ("eight", "order %d: resampled by each of 8 elements"),
            ("once", "order %d: 7 x defer=true, resampled once"))):
        x = pad + col * (w + pad)
        y = pad + row * (h + label + pad)
        draw.text((x, y + 2), text % order, fill="black", font=font)
        panel = Image.open(os.path.join(work, "%s-%d.png" % (kind, order)))
        sheet.paste(panel, (x, y + label))
sheet.save(out, optimize=True)
PY
echo "$out"
