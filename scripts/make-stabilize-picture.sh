#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# docs/pictures/stabilize-strip.png: a shaky clip made from the demo photo
# (bench/stabilize-tool.c; a slow pan of 0.3, 0.1 px per frame, shake up
# to 20 px, 3 degrees, 2 percent) before and after bsplinestabilize.  Top: frame 40
# and the mean of frames 36-44, shaky; bottom: the same, stabilized (the
# mean is sharp where the frames line up).  Usage:
#   scripts/make-stabilize-picture.sh [BUILD-DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
work=$(mktemp -d /tmp/stabilize-picture-XXXXXX)
trap 'rm -rf "$work"' EXIT
export GST_PLUGIN_PATH=$PWD/$build/gst GST_REGISTRY=$work/registry.bin
# the core as built (libbspline-1.0)
cc -O2 -std=gnu99 -Icore -Itests/core -Itests/stabilize \
  bench/stabilize-tool.c -L"$build/core" -lbspline-1.0 \
  -Wl,-rpath,"$(realpath "$build/core")" -lm \
  -o "$work/stabilize-tool"
photo=$build/tests/stabilize/face.ppm
[ -f "$photo" ] || /usr/bin/python3 tests/stabilize/make-photo.py "$photo"
"$work/stabilize-tool" make "$photo" 640 360 90 7 "$work/shaky.rgb" \
  "$work/maps.txt" 1 0.3 0.1
gst-launch-1.0 -q filesrc location="$work/shaky.rgb" ! \
  rawvideoparse format=rgb width=640 height=360 framerate=30/1 ! \
  bsplinestabilize smoothing=30 ! filesink location="$work/stable.rgb"
/usr/bin/python3 - "$work/shaky.rgb" "$work/stable.rgb" \
  docs/pictures/stabilize-strip.png <<'PY'
import struct, sys, zlib
import numpy as np

def frames(path):
    return np.fromfile(path, np.uint8).reshape(-1, 360, 640, 3)

def png(path, rgb):
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[y].tobytes() for y in range(h))
    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 9)))
        f.write(chunk(b"IEND", b""))

rows = []
for clip in (frames(sys.argv[1]), frames(sys.argv[2])):
    frame = clip[40]
    mean = clip[36:45].astype(np.float64).mean(axis=0).round().astype(np.uint8)
    rows.append(np.concatenate([frame, np.full((360, 8, 3), 255, np.uint8),
                                mean], axis=1))
gap = np.full((8, rows[0].shape[1], 3), 255, np.uint8)
png(sys.argv[3], np.concatenate([rows[0], gap, rows[1]], axis=0))
PY
echo "wrote docs/pictures/stabilize-strip.png"
