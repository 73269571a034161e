#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# docs/pictures/stmap-*.png (shown in docs/stmap.md): an STMap written by
# OpenCV (a 256x192 16-bit PNG: a ripple about the centre, in Nuke's
# convention) shown as the picture compositing tools show it (R = s,
# G = t), and the demo photo (scipy.misc.face(), 1024x768) remapped
# through it by bsplinewarp stmap-location=..., beside cv2.remap on the
# same positions (bilinear).  Usage:
#   bash scripts/make-stmap-pictures.sh [BUILD-DIR]
# BUILD-DIR (default build) holds the plugin (gst/), built with ninja -C.
# OpenCV 4.10 is the python of .venv (scripts/install-deps.sh makes it) or
# $BSPLINE_CV_PYTHON.  The pictures are shown 480 pixels wide
# (cv2.resize INTER_AREA).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
py=${BSPLINE_CV_PYTHON:-$PWD/.venv/bin/python3}
work=$(mktemp -d /tmp/stmap-pictures-XXXXXX)
trap 'rm -rf "$work"' EXIT
out=docs/pictures
mkdir -p "$out"
export GST_PLUGIN_PATH=$PWD/$build/gst GST_REGISTRY=$work/registry.bin

/usr/bin/python3 scripts/make-demo-image.py "$work/face.png"

"$py" - "$work" <<'PY'
import sys
import cv2
import numpy as np

work = sys.argv[1]
face = cv2.cvtColor(cv2.imread(work + "/face.png"), cv2.COLOR_BGR2RGBA)
np.ascontiguousarray(face).tofile(work + "/face.rgba")
# the ripple: each sample looks 2.5 % of the frame further out or in,
# with the distance from the centre (a 256x192 map over the 1024x768
# frame, interpolated between its samples)
mw, mh = 256, 192
x = (np.arange(mw) + 0.5) / mw
y = (np.arange(mh) + 0.5) / mh
X, Y = np.meshgrid(x, y)
dx, dy = X - 0.5, (Y - 0.5) * mh / mw
r = np.hypot(dx, dy)
k = 1 + 0.025 * np.sin(2 * np.pi * r / 0.12) / np.maximum(r, 1e-9) * \
    np.exp(-r / 0.35)
s = 0.5 + dx * k
t = 1 - (0.5 + dy * k * mw / mh)
q = lambda a: np.clip(np.rint(a * 65535), 0, 65535).astype(np.uint16)
cv2.imwrite(work + "/ripple.png", np.dstack([np.zeros_like(q(s)), q(t),
                                             q(s)]))
np.save(work + "/ripple.npy", np.stack([s, t], -1))
PY

gst-launch-1.0 -q filesrc location="$work/face.rgba" \
  blocksize=$((1024 * 768 * 4)) \
  ! rawvideoparse format=rgba width=1024 height=768 framerate=1/1 \
  ! bsplinewarp stmap-location="$work/ripple.png" \
  ! video/x-raw,width=1024,height=768 ! filesink location="$work/out.rgba"

"$py" - "$work" "$out" <<'PY'
import os
import sys
import cv2
import numpy as np

work, out = sys.argv[1], sys.argv[2]


def write(name, rgb):
    h, w, _ = rgb.shape
    small = cv2.resize(rgb, (480, round(h * 480 / w)),
                       interpolation=cv2.INTER_AREA)
    path = "%s/%s.png" % (out, name)
    cv2.imwrite(path, cv2.cvtColor(small, cv2.COLOR_RGB2BGR),
                [cv2.IMWRITE_PNG_COMPRESSION, 9])
    print("%s: %dx%d, %d bytes" % (path, small.shape[1], small.shape[0],
                                   os.path.getsize(path)))


ours = np.fromfile(work + "/out.rgba", np.uint8).reshape(768, 1024, 4)
face = np.fromfile(work + "/face.rgba", np.uint8).reshape(768, 1024, 4)
st = np.load(work + "/ripple.npy")
# the map as compositing tools show it: R = s, G = t, 8 bits for the eye
shown = np.dstack([st[..., 0], st[..., 1], np.zeros(st.shape[:2])])
shown = np.clip(np.rint(shown * 255), 0, 255).astype(np.uint8)
write("stmap-ripple-map", cv2.resize(shown, (1024, 768),
                                     interpolation=cv2.INTER_NEAREST))
write("stmap-ripple", ours[..., :3])
# cv2.remap on the map sampled at every output pixel centre (the map's
# own bilinear upsampling: cv2.resize INTER_LINEAR), OpenCV's convention
up = cv2.resize(st.astype(np.float32), (1024, 768),
                interpolation=cv2.INTER_LINEAR)
mx = up[..., 0] * 1024 - 0.5
my = (1 - up[..., 1]) * 768 - 0.5
cv = cv2.remap(face, mx, my, cv2.INTER_LINEAR,
               borderMode=cv2.BORDER_REFLECT)
d = np.abs(ours[..., :3].astype(float) - cv[..., :3])
print("bsplinewarp (order 3, cubic map) - cv2.remap (bilinear, bilinear "
      "map): mean %.2f, 99th percentile %.0f" % (d.mean(),
                                                 np.percentile(d, 99)))
PY
