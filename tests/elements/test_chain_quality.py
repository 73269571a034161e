#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A warp chain resampled once against the same chain resampled at every
element (issue 23, docs/chains.md).

Usage: test_chain_quality.py scripts/downscale_compare.py

Eight `bsplinewarp rotation=45` in a row turn the picture by 360 degrees:
the exact result is the input itself.  Each photograph (RGBA, 8 bits,
boundary reflect) goes through the eight elements twice:
  eight  every element resamples (defer=false, the default): eight
         interpolations, each rounded to 8 bits;
  once   the first seven defer (defer=true: each appends its rotation to
         the buffer's GstBSplineChainMeta and pushes the frame unchanged)
         and the eighth resamples the composed chain, the identity up to
         rounding of the matrix: one interpolation.
Both against the input, PSNR over R, G and B inside the central disc of
radius min(W, H) / 2 - MARGIN about the frame's centre (every rotation
keeps that disc inside the frame, so no reflected picture reaches it but
through the prefilter's tail, which the margin leaves out), for orders 1
(bilinear), 3 (the default) and 5.  Checked, for each photo and order:
  - once is at least ONCE_MIN_DB[order] (an identical frame is +inf);
  - once beats eight by at least GAIN_MIN_DB[order];
  - eight is at least EIGHT_MIN_DB[order] (a rotation that went wrong
    would make the gain meaningless);
  - no element warned that it could not defer.
The composition is checked where it is not the identity too: eight
rotations of 40 degrees resampled once against one `bsplinewarp
rotation=320` (the same map, composed in another order of floating-point
operations): at least SAME_MIN of the 8-bit values identical, none more
than 1 apart (measured: every byte identical).
The photographs are downscale_compare.photos()'s (Debian's python3-skimage
and scipy).  The plugin is the one of GST_PLUGIN_PATH (meson sets the
build tree's).  Exits 77 (skipped) only without numpy, scipy or
python3-skimage.
"""
import importlib.util
import os
import subprocess
import sys
import tempfile
import time

SKIP = 77

ORDERS = (1, 3, 5)
PHOTOS = ("astronaut", "face")
STEPS = 8
ANGLE = 45
MARGIN = 16

# Measured 2026-11-26 on the CPU engine, precision float (astronaut
# 512x512, face 1024x768; the table this prints, docs/chains.md): eight
# resamplings 27.95 and 28.55 dB at order 1, 37.38 and 43.85 at order 3,
# 40.10 and 47.83 at order 5; once, every byte of the disc identical to
# the input (+inf: the composed matrix is the identity to 1e-15, and one
# float interpolation there rounds back to the input's bytes).  Asserted
# with headroom: once at least 60 dB (one code value off in 6 % of the
# values would be 60 dB), a gain of at least 10 dB (measured at least
# 12 dB wherever once reaches 60), and eight no more than 3 dB under its
# measured value (a rotation gone wrong would inflate the gain).
ONCE_MIN_DB = {1: 60.0, 3: 60.0, 5: 60.0}
GAIN_MIN_DB = {1: 10.0, 3: 10.0, 5: 10.0}
EIGHT_MIN_DB = {1: 25.0, 3: 34.0, 5: 37.0}
SAME_ANGLE = 40
SAME_MIN = 0.999

REFUSAL = "defer=true, but this element resamples"


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def chain(order, deferred, angle=ANGLE):
    """The eight elements; `deferred`: the first seven defer."""
    els = []
    for i in range(STEPS):
        e = f"bsplinewarp rotation={angle} order={order}"
        if deferred and i < STEPS - 1:
            e += " defer=true"
        els.append(e)
    return " ! ".join(els)


def run(np, img, element, tmp):
    """img (H x W x 4, uint8) through `element` (a launch-line middle);
    (output, what gst-launch printed).  Not -q: gst-launch prints element
    warnings only when not quiet."""
    h, w, _ = img.shape
    fin, fout = os.path.join(tmp, "in.rgba"), os.path.join(tmp, "out.rgba")
    np.ascontiguousarray(img).tofile(fin)
    cmd = (["gst-launch-1.0", "filesrc", f"location={fin}",
            f"blocksize={w * h * 4}", "!", "rawvideoparse", "format=rgba",
            f"width={w}", f"height={h}", "framerate=1/1", "!"]
           + element.split()
           + ["!", f"video/x-raw,width={w},height={h}", "!", "filesink",
              f"location={fout}"])
    env = dict(os.environ)
    env.setdefault("GST_REGISTRY", os.path.join(tmp, "registry.bin"))
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    text = r.stdout + r.stderr
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {text}")
    out = np.fromfile(fout, np.uint8)
    if out.size != w * h * 4:
        raise RuntimeError(f"{element}: {out.size} bytes, expected "
                           f"{w * h * 4}")
    return out.reshape(h, w, 4), text


def disc(np, w, h):
    """Pixels whose centre lies within min(w, h) / 2 - MARGIN of the
    frame's centre."""
    y, x = np.mgrid[0:h, 0:w]
    r = min(w, h) / 2 - MARGIN
    return (x + 0.5 - w / 2) ** 2 + (y + 0.5 - h / 2) ** 2 <= r * r


def psnr(np, a, b, mask):
    d = a[..., :3][mask].astype(np.float64) - b[..., :3][mask]
    mse = np.mean(d * d)
    return float("inf") if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    try:
        import numpy as np
        import scipy.ndimage  # noqa: F401  (downscale_compare needs it)
        import skimage.data  # noqa: F401
    except ImportError as e:
        print(f"SKIP: {e} (numpy, scipy and python3-skimage give the "
              "photographs)")
        return SKIP
    dc = load(sys.argv[1], "downscale_compare")
    photos = dc.photos()
    names = [n for n in PHOTOS if n in photos]
    if "astronaut" not in names:
        print("FAIL: no astronaut among downscale_compare.photos()")
        return 1

    failures = []
    rows, same = [], []
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            img = dc.rgba(photos[name])
            h, w, _ = img.shape
            mask = disc(np, w, h)
            for order in ORDERS:
                got = {}
                for kind, deferred in (("eight", False), ("once", True)):
                    out, text = run(np, img, chain(order, deferred), tmp)
                    got[kind] = psnr(np, out, img, mask)
                    if REFUSAL in text:
                        failures.append(f"{name} order {order} {kind}: an "
                                        f"element did not defer: {text}")
                rows.append((name, w, h, order, got["eight"], got["once"]))
                once, text = run(np, img, chain(order, True, SAME_ANGLE),
                                 tmp)
                single, _ = run(np, img, f"bsplinewarp rotation="
                                f"{STEPS * SAME_ANGLE} order={order}", tmp)
                d = np.abs(once.astype(int) - single)
                same.append((name, order, (d == 0).mean(), d.max()))
                if REFUSAL in text:
                    failures.append(f"{name} order {order} {SAME_ANGLE}: an "
                                    f"element did not defer: {text}")
    elapsed = time.monotonic() - t0

    print(f"{STEPS} x bsplinewarp rotation={ANGLE} (360 degrees), PSNR "
          f"(dB) against the input inside the central disc (radius "
          f"min(W, H) / 2 - {MARGIN}); eight: every element resamples, "
          f"once: {STEPS - 1} defer=true and the last resamples")
    print(f"{'photo':18} {'order':>5} {'eight':>8} {'once':>8} {'gain':>8}")
    for name, w, h, order, eight, once in rows:
        print(f"{name + f' {w}x{h}':18} {order:5d} {eight:8.2f} "
              f"{once:8.2f} {once - eight:8.2f}")
        case = f"{name} order {order}"
        if not once >= ONCE_MIN_DB[order]:
            failures.append(f"{case}: once {once:.2f} dB < "
                            f"{ONCE_MIN_DB[order]}")
        if not once - eight >= GAIN_MIN_DB[order]:
            failures.append(f"{case}: once {once:.2f} dB beats eight "
                            f"{eight:.2f} by less than {GAIN_MIN_DB[order]}")
        if not eight >= EIGHT_MIN_DB[order]:
            failures.append(f"{case}: eight {eight:.2f} dB < "
                            f"{EIGHT_MIN_DB[order]}")
    print(f"\n{STEPS} x rotation={SAME_ANGLE} resampled once against one "
          f"rotation={STEPS * SAME_ANGLE}, whole frame")
    for name, order, frac, worst in same:
        line = (f"{name} order {order}: {100 * frac:.3f} % of the values "
                f"identical, max diff {worst}")
        print(line)
        if frac < SAME_MIN or worst > 1:
            failures.append(line)
    print(f"({elapsed:.1f} s)")
    for f in failures:
        print("FAIL:", f)
    if failures:
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
