#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# docs/pictures/projection-*.png (shown in docs/projections.md): four
# scikit-image photographs (astronaut, chelsea, rocket, coffee) tiled onto
# an equirect frame (512x256; the lower row the upper one turned), then
# reframed by bsplinewarp into a flat view, a c3x2 cube map and a
# stereographic little planet.  Usage:
#   bash scripts/make-projection-pictures.sh [BUILD-DIR]
# BUILD-DIR (default build) holds the plugin (gst/); the python is .venv's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=$root/docs/pictures
export GST_PLUGIN_PATH=$build/gst
"$root/.venv/bin/python3" - "$out/projection-equirect.png" <<'PY'
import sys
import numpy as np
import skimage.data as d
from skimage.transform import resize
from PIL import Image
tiles = [resize(x, (128, 128)) for x in (d.astronaut(), d.chelsea(),
                                         d.rocket(), d.coffee())]
top = np.concatenate(tiles, 1)
bottom = np.concatenate([t[::-1] for t in tiles[::-1]], 1)
Image.fromarray((np.concatenate([top, bottom], 0) * 255).astype(np.uint8)) \
    .save(sys.argv[1])
PY
reframe () {
  gst-launch-1.0 -q filesrc location="$out/projection-equirect.png" \
    ! pngdec ! videoconvert ! bsplinewarp projection-in=equirect "$@" \
    ! videoconvert ! pngenc ! filesink location="$pic"
}
pic=$out/projection-flat.png reframe projection-out=flat h-fov=100 \
  v-fov=79 yaw=-60 pitch=-10 ! video/x-raw,width=360,height=270
pic=$out/projection-c3x2.png reframe projection-out=c3x2 boundary=wrap \
  ! video/x-raw,width=384,height=256
pic=$out/projection-little-planet.png reframe projection-out=sg h-fov=300 \
  v-fov=300 pitch=-90 boundary=wrap ! video/x-raw,width=300,height=300
