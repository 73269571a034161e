#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# docs/pictures/lens-*.png (shown in docs/lens.md and docs/pictures.md):
# the demo photo (scipy.misc.face(), 1024x768) made into a fisheye and a
# barrel-distorted picture by bsplinewarp lens-direction=distort, then
# undistorted back by bsplinewarp, with OpenCV's own undistortion of the
# same distorted picture beside it.  Usage:
#   bash scripts/make-lens-pictures.sh [BUILD-DIR]
# BUILD-DIR (default build) holds the plugin (gst/), built with ninja -C.
# OpenCV 4.10 is the python of .venv (scripts/install-deps.sh makes it) or
# $BSPLINE_CV_PYTHON.
#
# Cameras (OpenCV's convention: fx, fy, cx, cy, the centre of the first
# pixel at 0), scaled to the frame as tests/elements/test_lens.py scales
# them (centre c -> (c + 0.5) s - 0.5):
#  - fisheye: OpenCV's fisheye test calibration (modules/calib3d/test/
#    test_fisheye.cpp, fisheyeTest::K, D, 1280x800; "fisheye-opencv-test"
#    in tests/core/test_lens_fit.py) on a 1024x640 crop of the photo
#    (rows 64-703), a scale of 0.8;
#  - brown: the "gopro-like" calibration of tests/core/test_lens_fit.py
#    (1920x1080, k1 -0.28, k2 0.09, p1 0.0008, p2 -0.0005, k3 -0.014) on
#    a 1024x576 crop (rows 96-671), a scale of 8/15.
# Both directions use lens-fit=all: the photo is taken as the pinhole view
# whose camera OpenCV's getOptimalNewCameraMatrix (alpha 1) or
# fisheye::estimateNewCameraMatrixForUndistortRectify (balance 1) gives
# for the distorted frame, so that the distorted picture is filled to its
# edges and undistorting it with the same fit gives the photo back.
# boundary=constant (black) shows where a frame has no input.  The
# pictures are shown 480 pixels wide (cv2.resize INTER_AREA), one PNG
# each, which keeps each under 300 KB.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
py=${BSPLINE_CV_PYTHON:-$PWD/.venv/bin/python3}
work=$(mktemp -d /tmp/lens-pictures-XXXXXX)
trap 'rm -rf "$work"' EXIT
out=docs/pictures
mkdir -p "$out"
export GST_PLUGIN_PATH=$PWD/$build/gst GST_REGISTRY=$work/registry.bin

/usr/bin/python3 scripts/make-demo-image.py "$work/face.png"

# the crops as raw RGBA, and the two cameras as "fx,fy,cx,cy"
read -r K_FISHEYE K_BROWN < <("$py" - "$work" <<'PY'
import sys
import cv2
import numpy as np

work = sys.argv[1]
face = cv2.cvtColor(cv2.imread(work + "/face.png"), cv2.COLOR_BGR2RGBA)


def scaled(c, size, w, h):
    sx, sy = w / size[0], h / size[1]
    return (c[0] * sx, c[1] * sy, (c[2] + 0.5) * sx - 0.5,
            (c[3] + 0.5) * sy - 0.5)


np.ascontiguousarray(face[64:704]).tofile(work + "/fisheye-photo.rgba")
np.ascontiguousarray(face[96:672]).tofile(work + "/brown-photo.rgba")
fish = scaled((558.478087865323, 560.506767351568, 620.458515360843,
               381.939424848348), (1280, 800), 1024, 640)
gopro = scaled((1150.3, 1148.9, 962.1, 538.4), (1920, 1080), 1024, 576)
print(" ".join(",".join("%.17g" % v for v in c) for c in (fish, gopro)))
PY
)
D_FISHEYE="-0.0014613319981768,-0.00329861110580401,0.00605760088590183,-0.00374209380722371"
D_BROWN="-0.28,0.09,0.0008,-0.0005,-0.014"

# warp W H IN OUT PROPERTY...: raw RGBA W x H through bsplinewarp
warp () {
  local w=$1 h=$2 in=$3 outfile=$4
  shift 4
  gst-launch-1.0 -q filesrc location="$in" blocksize=$((w * h * 4)) \
    ! rawvideoparse format=rgba width="$w" height="$h" framerate=1/1 \
    ! bsplinewarp boundary=constant fill-color=0xff000000 "$@" \
    ! video/x-raw,width="$w",height="$h" ! filesink location="$outfile"
}

fisheye="lens-model=fisheye camera-matrix=<$K_FISHEYE> distortion=<$D_FISHEYE> lens-fit=all"
brown="lens-model=brown camera-matrix=<$K_BROWN> distortion=<$D_BROWN> lens-fit=all"
# shellcheck disable=SC2086
warp 1024 640 "$work/fisheye-photo.rgba" "$work/fisheye.rgba" \
  $fisheye lens-direction=distort
# shellcheck disable=SC2086
warp 1024 640 "$work/fisheye.rgba" "$work/fisheye-back.rgba" \
  $fisheye lens-direction=undistort
# shellcheck disable=SC2086
warp 1024 640 "$work/fisheye.rgba" "$work/fisheye-inside.rgba" \
  ${fisheye/lens-fit=all/lens-fit=inside} lens-direction=undistort
# shellcheck disable=SC2086
warp 1024 576 "$work/brown-photo.rgba" "$work/brown.rgba" \
  $brown lens-direction=distort
# shellcheck disable=SC2086
warp 1024 576 "$work/brown.rgba" "$work/brown-back.rgba" \
  $brown lens-direction=undistort
# shellcheck disable=SC2086
warp 1024 576 "$work/brown.rgba" "$work/brown-inside.rgba" \
  ${brown/lens-fit=all/lens-fit=inside} lens-direction=undistort

"$py" - "$work" "$out" "$K_FISHEYE" "$D_FISHEYE" "$K_BROWN" "$D_BROWN" <<'PY'
import os
import sys
import cv2
import numpy as np

work, out = sys.argv[1], sys.argv[2]
kf, df, kb, db = ([float(x) for x in a.split(",")] for a in sys.argv[3:7])


def kmat(c):
    return np.array([[c[0], 0, c[2]], [0, c[1], c[3]], [0, 0, 1.0]])


def raw(name, w, h):
    return np.fromfile("%s/%s.rgba" % (work, name), np.uint8).reshape(
        h, w, 4)[..., :3]


def write(name, rgb):
    """rgb, 480 pixels wide, as docs/pictures/NAME.png"""
    h, w, _ = rgb.shape
    small = cv2.resize(rgb, (480, round(h * 480 / w)),
                       interpolation=cv2.INTER_AREA)
    path = "%s/%s.png" % (out, name)
    cv2.imwrite(path, cv2.cvtColor(small, cv2.COLOR_RGB2BGR),
                [cv2.IMWRITE_PNG_COMPRESSION, 9])
    rgb = small
    print("%s: %dx%d, %d bytes" % (path, rgb.shape[1], rgb.shape[0],
                                   os.path.getsize(path)))


def compare(what, ours, theirs, photo, valid):
    """Numbers for the captions, over the pixels OpenCV's map keeps 4 px
    inside the distorted frame (valid) and 4 px from the frame's edges:
    bsplinewarp against OpenCV's undistortion (bilinear) and against the
    photo."""
    v = valid.copy()
    v[:4] = v[-4:] = False
    v[:, :4] = v[:, -4:] = False
    for name, other in (("OpenCV (bilinear)", theirs),
                        ("the photo (round trip)", photo)):
        d = np.abs(ours.astype(float) - other)[v]
        print("%s: bsplinewarp - %s: mean %.2f, 99th percentile %.0f, max "
              "%.0f (%.1f %% of the frame)" % (
                  what, name, d.mean(), np.percentile(d, 99), d.max(),
                  100 * v.mean()))


def kept(map1, map2, w, h):
    """Output pixels whose source lies 4 px inside the distorted frame."""
    return ((map1 > 4) & (map1 < w - 5) & (map2 > 4) & (map2 < h - 5))


# fisheye: OpenCV's undistortImage of the same fisheye picture, onto the
# camera lens-fit=all picks (balance 1), bilinear (its remap's
# INTER_LINEAR, BORDER_CONSTANT)
w, h = 1024, 640
K, D = kmat(kf), np.array(df)
fish, back = raw("fisheye", w, h), raw("fisheye-back", w, h)
photo = raw("fisheye-photo", w, h)
Knew = cv2.fisheye.estimateNewCameraMatrixForUndistortRectify(
    K, D, (w, h), np.eye(3), balance=1.0, new_size=(w, h))
cv_back = cv2.fisheye.undistortImage(fish, K, D, Knew=Knew, new_size=(w, h))
m1, m2 = cv2.fisheye.initUndistortRectifyMap(K, D, np.eye(3), Knew, (w, h),
                                             cv2.CV_32FC1)
for b in (1.0, 0.0):
    Kb = cv2.fisheye.estimateNewCameraMatrixForUndistortRectify(
        K, D, (w, h), np.eye(3), balance=b, new_size=(w, h))
    print("fisheye new camera (balance %g): fx %.3f fy %.3f cx %.3f cy %.3f"
          % (b, Kb[0, 0], Kb[1, 1], Kb[0, 2], Kb[1, 2]))
compare("fisheye", back, cv_back, photo, kept(m1, m2, w, h))
write("lens-fisheye", fish)
write("lens-fisheye-undistorted", back)
write("lens-fisheye-undistorted-opencv", cv_back)
write("lens-fisheye-undistorted-inside", raw("fisheye-inside", w, h))

# brown: cv2.undistort onto getOptimalNewCameraMatrix's alpha 1 camera
# (bilinear)
w, h = 1024, 576
K, D = kmat(kb), np.array(db)
barrel, back = raw("brown", w, h), raw("brown-back", w, h)
photo = raw("brown-photo", w, h)
Knew = cv2.getOptimalNewCameraMatrix(K, D, (w, h), 1.0, (w, h))[0]
cv_back = cv2.undistort(barrel, K, D, newCameraMatrix=Knew)
m1, m2 = cv2.initUndistortRectifyMap(K, D, None, Knew, (w, h), cv2.CV_32FC1)
for a in (1.0, 0.0):
    Ka = cv2.getOptimalNewCameraMatrix(K, D, (w, h), a, (w, h))[0]
    print("brown new camera (alpha %g): fx %.3f fy %.3f cx %.3f cy %.3f" % (
        a, Ka[0, 0], Ka[1, 1], Ka[0, 2], Ka[1, 2]))
compare("brown", back, cv_back, photo, kept(m1, m2, w, h))
write("lens-brown", barrel)
write("lens-brown-undistorted", back)
write("lens-brown-undistorted-opencv", cv_back)
write("lens-brown-undistorted-inside", raw("brown-inside", w, h))
PY
