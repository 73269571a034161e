#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bsplinewarp gamma-mode=remap: resampling in linear light (issue 43).

Usage: test_linear_light.py

1. Stripes: 1-pixel black and white stripes (RGBA, sRGB) reduced by 2
   and 3 across them (least squares, the default antialias), vertical and
   horizontal: the mean of the output within 1 code value of the numpy
   reference (decode sRGB in double, average, encode: 187.5), where
   gamma-mode=none darkens it to 127.5; zimg (ffmpeg zscale, linear light
   through zscale=t=linear and float) in the same run, within 1 of the
   reference too.  The same with the caps' transfer PQ (bt2100-pq) and
   HLG (bt2100-hlg), against numpy's own ST 2084 and BT.2100 formulas.
2. Photographs (scikit-image's astronaut, coffee): scaled by 1.37 and
   0.71 with antialias=none, order 3, double, against numpy: decode sRGB,
   scipy.ndimage.map_coordinates (order 3, reflect) in double at the
   element's pixel-area coordinates, encode, round: at least 99.9 % of the
   values identical, none more than 1 off.  Shrunk by 3 (least squares)
   against zimg's linear-light spline36: closer (PSNR) with remap than
   with none.
3. No banding: a ramp of every code 0-255 upscaled 4 times keeps every
   code (a linear intermediate of 8 bits would merge the dark ones).
4. A format it does not take (I420) is an element error that says what
   it takes.

Where this interpreter lacks numpy, scipy or scikit-image, the script
re-executes itself under <repo>/.venv's python (scripts/install-deps.sh
makes it); skipped (77) without them or ffmpeg's zscale.
"""
import os
import subprocess
import sys
import tempfile

SKIP = 77
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
REEXEC = "BSPLINE_TEST_LINEAR_LIGHT_REEXEC"


def srgb_decode(np, e):
    return np.where(e <= 0.04045, e / 12.92, ((e + 0.055) / 1.055) ** 2.4)


def srgb_encode(np, v):
    v = np.clip(v, 0, 1)
    return np.where(v <= 0.0031308, 12.92 * v,
                    1.055 * v ** (1 / 2.4) - 0.055)


# SMPTE ST 2084 and ITU-R BT.2100 (HLG), written here from the standards
M1, M2 = 2610 / 16384, 2523 / 4096 * 128
C1, C2, C3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
HA, HB, HC = 0.17883277, 0.28466892, 0.55991073


def pq_decode(np, e):
    p = e ** (1 / M2)
    return (np.maximum(p - C1, 0) / (C2 - C3 * p)) ** (1 / M1)


def pq_encode(np, v):
    p = np.clip(v, 0, 1) ** M1
    return ((C1 + C2 * p) / (1 + C3 * p)) ** M2


def hlg_decode(np, e):
    return np.where(e <= 0.5, e * e / 3, (np.exp((e - HC) / HA) + HB) / 12)


def hlg_encode(np, v):
    v = np.clip(v, 0, 1)
    return np.where(v <= 1 / 12, np.sqrt(3 * v),
                    HA * np.log(np.maximum(12 * v - HB, 1e-12)) + HC)


def run(np, rgba, element, ow, oh, tmp, colorimetry=None, fmt="rgba",
        size=None):
    ih, iw = size or rgba.shape[:2]
    fin, fout = os.path.join(tmp, "in.raw"), os.path.join(tmp, "out.raw")
    np.ascontiguousarray(rgba).tofile(fin)
    parse = ["rawvideoparse", "format=" + fmt, "width=%d" % iw,
             "height=%d" % ih, "framerate=1/1"]
    if colorimetry:
        parse.append("colorimetry=" + colorimetry)
    cmd = ["gst-launch-1.0", "-q", "filesrc", "location=" + fin,
           "blocksize=%d" % rgba.nbytes, "!"] + parse + ["!"] + \
        element.split() + ["!", "video/x-raw,width=%d,height=%d" % (ow, oh),
                           "!", "filesink", "location=" + fout]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError("%s: %s%s" % (" ".join(cmd), r.stdout, r.stderr))
    dtype = np.uint16 if fmt.endswith("64-le") else np.uint8
    return np.fromfile(fout, dtype).reshape(oh, ow, -1)


def zimg_linear(np, rgb, ow, oh, tmp, filt="spline36"):
    """ffmpeg's zscale in linear light: sRGB decoded to float, scaled,
    encoded."""
    ih, iw = rgb.shape[:2]
    fin, fout = os.path.join(tmp, "z.rgb"), os.path.join(tmp, "zo.rgb")
    np.ascontiguousarray(rgb).tofile(fin)
    vf = ("zscale=tin=iec61966-2-1:t=linear,format=gbrpf32le,"
          "zscale=w=%d:h=%d:filter=%s,zscale=tin=linear:t=iec61966-2-1,"
          "format=rgb24" % (ow, oh, filt))
    subprocess.run(["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt",
                    "rgb24", "-s", "%dx%d" % (iw, ih), "-i", fin, "-vf", vf,
                    "-f", "rawvideo", "-pix_fmt", "rgb24", "-y", fout],
                   check=True, capture_output=True)
    return np.fromfile(fout, np.uint8).reshape(oh, ow, 3)


def stripes(np, w, h, vertical):
    img = np.zeros((h, w, 4), np.uint8)
    img[..., 3] = 255
    if vertical:
        img[:, ::2, :3] = 255
    else:
        img[::2, :, :3] = 255
    return img


def check_stripes(np, tmp, failures):
    w = h = 96
    curves = {"sRGB": (None, srgb_decode, srgb_encode),
              "PQ": ("bt2100-pq", pq_decode, pq_encode),
              "HLG": ("bt2100-hlg", hlg_decode, hlg_encode)}
    for name, (colorimetry, decode, encode) in curves.items():
        for vertical, factor in ((True, 2), (True, 3), (False, 2)):
            img = stripes(np, w, h, vertical)
            ow, oh = (w // factor, h) if vertical else (w, h // factor)
            ref = 255 * encode(np, decode(np, img[..., :3] / 255.0).mean())
            means = {}
            for mode in ("remap", "none"):
                out = run(np, img, "bsplinewarp gamma-mode=" + mode, ow, oh,
                          tmp, colorimetry)
                means[mode] = out[..., :3].mean()
                if (out[..., 3] != 255).any():
                    failures.append("%s stripes: alpha changed" % name)
            line = ("stripes %s %s / %d: reference %.2f, remap %.2f, none "
                    "%.2f" % (name, "vertical" if vertical else "horizontal",
                              factor, ref, means["remap"], means["none"]))
            if name == "sRGB":
                means["zimg"] = zimg_linear(np, img[..., :3], ow, oh,
                                            tmp).mean()
                line += ", zimg %.2f" % means["zimg"]
                if abs(means["zimg"] - ref) > 1:
                    failures.append(line + " (zimg)")
            print(line)
            if abs(means["remap"] - ref) > 1 or means["none"] > ref - 10:
                failures.append(line)


def photos(np):
    import skimage.data
    out = []
    for name in ("astronaut", "coffee"):
        rgb = getattr(skimage.data, name)()
        a = np.full(rgb.shape[:2] + (4,), 255, np.uint8)
        a[..., :3] = rgb
        out.append((name, a))
    return out


def reference(np, ndimage, img, ow, oh, top=255.0):
    """decode, the order-3 spline in double at the element's pixel-area
    coordinates (reflect), encode, round (codes 0 .. top)"""
    ih, iw = img.shape[:2]
    y = (np.arange(oh) + 0.5) * ih / oh - 0.5
    x = (np.arange(ow) + 0.5) * iw / ow - 0.5
    yy, xx = np.meshgrid(y, x, indexing="ij")
    out = np.empty((oh, ow, 3))
    for c in range(3):
        lin = srgb_decode(np, img[..., c] / top)
        s = ndimage.map_coordinates(lin, [yy, xx], order=3, mode="reflect")
        out[..., c] = top * srgb_encode(np, s)
    return np.rint(out)


def psnr(np, a, b):
    mse = ((a.astype(float) - b.astype(float)) ** 2).mean()
    return 10 * np.log10(255 ** 2 / mse)


def check_photos(np, ndimage, tmp, failures):
    for name, img in photos(np):
        ih, iw = img.shape[:2]
        for scale in (1.37, 0.71):
            ow, oh = int(iw * scale), int(ih * scale)
            out = run(np, img, "bsplinewarp gamma-mode=remap order=3 "
                      "precision=double antialias=none", ow, oh, tmp)
            d = np.abs(out[..., :3].astype(float) -
                       reference(np, ndimage, img, ow, oh))
            same = (d == 0).mean()
            line = "%s x%.2f against numpy: %.3f %% identical, max diff %d" \
                % (name, scale, 100 * same, d.max())
            print(line)
            if same < 0.999 or d.max() > 1:
                failures.append(line)
        # the brightness of a photograph shrunk by 3 (least squares) is
        # zimg's in linear light (spline36), not the darker gamma-space
        # one; the PSNRs, printed, differ mostly at edges, where least
        # squares (order 3) and spline36 are different filters
        ow, oh = iw // 3, ih // 3
        z = zimg_linear(np, img[..., :3], ow, oh, tmp)
        p, m = {}, {}
        for mode in ("remap", "none"):
            out = run(np, img, "bsplinewarp gamma-mode=" + mode, ow, oh, tmp)
            p[mode] = psnr(np, out[..., :3], z)
            m[mode] = out[..., :3].mean() - z.mean()
        line = ("%s / 3 against zimg's linear-light spline36: mean %+.2f "
                "remap, %+.2f none; PSNR %.2f dB remap, %.2f dB none" % (
                    name, m["remap"], m["none"], p["remap"], p["none"]))
        print(line)
        if abs(m["remap"]) >= abs(m["none"]) or abs(m["remap"]) > 1:
            failures.append(line)


def check_16bit(np, ndimage, tmp, failures):
    """RGBA64_LE: a photograph's codes (v * 257) scaled in double against
    numpy at 16 bits, and stripes of 0 and 65535 reduced by 2 against
    65535 * encode (0.5)."""
    name, img = photos(np)[1]
    img16 = img.astype(np.uint16) * 257
    ih, iw = img.shape[:2]
    ow, oh = int(iw * 0.71), int(ih * 0.71)
    out = run(np, img16, "bsplinewarp gamma-mode=remap order=3 "
              "precision=double antialias=none", ow, oh, tmp,
              fmt="rgba64-le")
    d = np.abs(out[..., :3].astype(float) -
               reference(np, ndimage, img16, ow, oh, 65535.0))
    line = "%s x0.71 RGBA64_LE against numpy: %.3f %% identical, max diff " \
        "%d (of 65535)" % (name, 100 * (d == 0).mean(), d.max())
    print(line)
    if (d == 0).mean() < 0.999 or d.max() > 1 or (out[..., 3] != 65535).any():
        failures.append(line)
    stripe = stripes(np, 96, 96, True).astype(np.uint16) * 257
    out = run(np, stripe, "bsplinewarp gamma-mode=remap", 48, 96, tmp,
              fmt="rgba64-le")
    ref = 65535 * srgb_encode(np, 0.5)
    line = "stripes RGBA64_LE vertical / 2: reference %.2f, remap %.2f" % (
        ref, out[..., :3].mean())
    print(line)
    if abs(out[..., :3].mean() - ref) > 257:
        failures.append(line)


def check_banding(np, tmp, failures):
    ramp = np.zeros((4, 256, 4), np.uint8)
    ramp[..., :3] = np.arange(256, dtype=np.uint8)[None, :, None]
    ramp[..., 3] = 255
    out = run(np, ramp, "bsplinewarp gamma-mode=remap antialias=none",
              1024, 4, tmp)
    codes = len(np.unique(out[..., 0]))
    line = "ramp of 256 codes upscaled 4 times: %d distinct codes" % codes
    print(line)
    if codes < 256:
        failures.append(line)


def check_refused(failures):
    """in this process: gst-launch-1.0 1.22 itself hangs now and then
    after an element error while it prerolls (test_lens.py)"""
    gi = __import__("gi")
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
    Gst.init(None)
    pipe = Gst.parse_launch(
        "videotestsrc num-buffers=1 ! video/x-raw,format=I420,width=64,"
        "height=48 ! bsplinewarp gamma-mode=remap ! video/x-raw,width=32,"
        "height=24 ! fakesink")
    pipe.set_state(Gst.State.PLAYING)
    msg = pipe.get_bus().timed_pop_filtered(
        10 * Gst.SECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS)
    text = msg.parse_error()[0].message if msg and \
        msg.type == Gst.MessageType.ERROR else "no error"
    pipe.set_state(Gst.State.NULL)
    line = "I420 with gamma-mode=remap: " + text
    print(line)
    if "RGB in one plane" not in text or "videoconvert" not in text:
        failures.append(line)


def main():
    try:
        import numpy as np
        import scipy.ndimage as ndimage
        import skimage.data  # noqa: F401
    except ImportError as e:
        venv = os.path.join(ROOT, ".venv", "bin", "python3")
        if not os.environ.get(REEXEC) and os.access(venv, os.X_OK):
            os.environ[REEXEC] = "1"
            sys.stdout.flush()
            os.execv(venv, [venv, os.path.abspath(__file__)])
        print("SKIP: %s" % e)
        sys.exit(SKIP)
    z = subprocess.run(["ffmpeg", "-hide_banner", "-filters"],
                       capture_output=True, text=True)
    if z.returncode != 0 or " zscale " not in z.stdout:
        print("SKIP: no ffmpeg with zscale")
        sys.exit(SKIP)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        check_stripes(np, tmp, failures)
        check_photos(np, ndimage, tmp, failures)
        check_16bit(np, ndimage, tmp, failures)
        check_banding(np, tmp, failures)
        check_refused(failures)
    for f in failures:
        print("FAIL %s" % f)
    if failures:
        sys.exit(1)
    print("test_linear_light: all passed")


if __name__ == "__main__":
    main()
