#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bsplinewarp's STMap stage (stmap-location) against OpenCV and scipy
(issue 22).

Usage: test_stmap.py TEST_LENS_PY TEST_LENS_FIT_PY

TEST_LENS_PY is tests/elements/test_lens.py (its cases, OpenCV's maps and
the gst-launch runner are used here too); TEST_LENS_FIT_PY is
tests/core/test_lens_fit.py (the calibrations).

The STMaps are written by OpenCV (cv2.imwrite: OpenEXR float, 16-bit PNG,
32-bit float TIFF) from OpenCV's own double lens maps, converted once, here,
from OpenCV's integer pixel centres to Nuke's convention:
s = (x + 0.5) / W, t = 1 - (y + 0.5) / H.

1. The convention against scipy: real photographs through an STMap of the
   frame's size, order 3 and 5, double: every output pixel centre is a map
   sample, so the element must sample the photo at exactly the stored
   positions: against scipy.ndimage.map_coordinates there (OpenCV's
   convention: x - 0.5, mode reflect, double, rounded), at least 99.95 %
   of the 8-bit values identical and none more than 1 off (float: 99.5 %).
2. The STMap written from a lens map gives the same frame as the lens
   stage (OpenEXR and TIFF float: 99.9 % identical, none more than 1 off;
   16-bit PNG, quantised to 1/65535 of the frame and holding 0..1 only,
   where the map stays in the frame: 97 %, none more than 2 off).
3. Against OpenCV's remap: cv2.remap INTER_LINEAR on the same map (its
   own convention) beside order=1 (bilinear): OpenCV interpolates with
   1/32-pixel fixed-point weights, so at least 99 % within 1 and none more
   than 3 off; a convention slip (half a pixel, a flipped t) is tens off.
4. A map of another size: the lens map sampled on a grid a quarter of the
   frame's size (the map is interpolated between its samples by a cubic
   B-spline): at least 97 % of the values within 1 of the lens stage.
5. Antialiasing from the map's Jacobian: a map that shrinks the frame 4
   times leaves at most half of antialias=none's noise variance.
6. One large finite value (1e30 in a 64x48 identity map): without
   antialiasing as many pixels change as with cv2.remap on the same map
   (one); with it, at most 49, within 10 pixels of the outlier (issue 43;
   values are clamped to a frame beyond the edges, docs/stmap.md).
7. Property changes while PLAYING (Python GStreamer, appsrc ! bsplinewarp !
   appsink): no map, one map, another, none again; every frame arrives,
   each the frame of the map in use as the element message
   'bsplinewarp-stmap' (location, pts) says: the old map until the new
   one is read on its own thread, the new one from the frame the message
   names on, no map at once after a removal.
8. Bad input: a missing file, a truncated one, an 8-bit PNG, NaN in an
   OpenEXR map, a map of another aspect ratio, lens-model and
   stmap-location together: gst-launch fails with an error that names
   stmap-location (or both properties) and the reason, never a crash.
9. A map of another aspect ratio (4096x4096 in a small PNG over a
   64x48 frame) refused from the file's header, before any sample is
   decoded, gst-launch's peak memory under 256 MiB.
10. Memory and stalls (issue 43, defect 2): an 8192x6144 map of the
   frame's aspect ratio (300 KB PNG) refused from its header (more than
   2^22 samples), gst-launch's peak under 256 MiB (main: 1.55 GB, 26 s);
   a pipeline in a child process whose map of 2^22 samples is replaced
   by another while PLAYING: the child's peak at most 256 MiB above the
   same pipeline without a map, and no frame waits for the read: the
   slowest frame takes less than a third of the time the new map took to
   go into use (main read it in the streaming thread: one frame waited
   for the whole read).

The script re-executes itself under $BSPLINE_CV_PYTHON or <repo>/.venv's
python and exits 77 (skipped) without OpenCV 4.10.  The plugin is the one
of GST_PLUGIN_PATH.
"""
import importlib.util
import os
import struct
import subprocess
import sys
import tempfile
import time
import zlib

SKIP = 77
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
REEXEC = "BSPLINE_TEST_STMAP_REEXEC"


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def to_stmap(np, m, w, h):
    """OpenCV's map (x, y with integer pixel centres, y down) of a w x h
    input as Nuke's (s, t): the one conversion."""
    s = (m[..., 0] + 0.5) / w
    t = 1.0 - (m[..., 1] + 0.5) / h
    return s, t


def write_stmap(cv2, np, path, s, t, kind):
    """R = s, G = t (OpenCV writes B, G, R)."""
    z = np.zeros_like(s)
    if kind == "exr":
        img = np.dstack([z, t, s]).astype(np.float32)
        ok = cv2.imwrite(path, img, [cv2.IMWRITE_EXR_TYPE,
                                     cv2.IMWRITE_EXR_TYPE_FLOAT])
    elif kind == "png16":
        q = lambda a: np.clip(np.rint(a * 65535), 0, 65535).astype(np.uint16)
        ok = cv2.imwrite(path, np.dstack([q(z), q(t), q(s)]))
    elif kind == "tiff":
        # uncompressed: OpenCV's default for float TIFF is LogLuv, a lossy
        # colour encoding that the reader refuses
        ok = cv2.imwrite(path, np.dstack([z, t, s]).astype(np.float32),
                         [cv2.IMWRITE_TIFF_COMPRESSION, 1])
    else:
        raise ValueError(kind)
    if not ok:
        raise RuntimeError("cv2.imwrite %s failed" % path)


def stored_positions(cv2, np, path, w, h):
    """What the file holds, read back by OpenCV, as OpenCV pixel positions
    (the positions the element must sample at the map's samples)."""
    img = cv2.imread(path, cv2.IMREAD_UNCHANGED).astype(np.float64)
    if path.endswith(".png"):
        img /= 65535.0
    s, t = img[..., 2], img[..., 1]
    return np.stack([s * w - 0.5, (1.0 - t) * h - 0.5], -1)


def compare(np, a, b, where=None):
    d = np.abs(a.astype(float) - b.astype(float))[..., :3]
    if where is not None:
        d = d[where]
    return (d == 0).mean(), (d <= 1).mean(), d.max()


def check_convention(L, cv2, np, ndimage, cal, tmp, failures):
    for pname, img in L.photos(np):
        h, w, _ = img.shape
        case = L.pixel_cases(cal, w, h)[0]           # gopro-like barrel
        m = L.opencv_map(cv2, np, case)[0]
        s, t = to_stmap(np, m, w, h)
        path = os.path.join(tmp, "conv.exr")
        write_stmap(cv2, np, path, s, t, "exr")
        pos = stored_positions(cv2, np, path, w, h)
        for order in (3, 5):
            ref = L.reference(ndimage, np, img, pos, order)
            for precision in ("float", "double"):
                out = L.run_element(np, img, "bsplinewarp stmap-location=%s "
                                    "order=%d precision=%s antialias=none" % (
                                        path, order, precision), w, h, tmp)
                same, within, worst = compare(np, out, ref)
                line = ("convention: %s %s STMap order %d %s against scipy "
                        "at the stored positions: %.3f %% identical, max "
                        "diff %d" % (pname, case.name, order, precision,
                                     100 * same, worst))
                print(line)
                if same < L.PIXEL_SAME[precision] or worst > 1:
                    failures.append(line)


def check_lens_equivalence(L, cv2, np, cal, tmp, failures):
    name, img = L.photos(np)[1]
    h, w, _ = img.shape
    for case in L.pixel_cases(cal, w, h)[:4:3]:      # brown, fisheye 0.6 f
        m = L.opencv_map(cv2, np, case)[0]
        s, t = to_stmap(np, m, w, h)
        lens = L.run_element(np, img, case.element("antialias=none "
                                                   "precision=double"),
                             w, h, tmp)
        for kind, need_same, most in (("exr", 0.999, 1), ("png16", 0.97, 2),
                                      ("tiff", 0.999, 1)):
            path = os.path.join(tmp, "lens." + ("tif" if kind == "tiff" else
                                                "png" if kind == "png16" else
                                                "exr"))
            write_stmap(cv2, np, path, s, t, kind)
            out = L.run_element(np, img, "bsplinewarp stmap-location=%s "
                                "antialias=none precision=double" % path,
                                w, h, tmp)
            # a 16-bit map holds 0..1 only: where the lens map leaves the
            # frame (a fisheye's corners) it cannot say where
            inside = ((s >= 0) & (s <= 1) & (t >= 0) & (t <= 1)
                      if kind == "png16" else None)
            same, within, worst = compare(np, out, lens, inside)
            line = ("lens equivalence: %s %s, STMap %s: %.3f %% identical "
                    "to the lens stage, max diff %d%s" % (
                        name, case.name, kind, 100 * same, worst,
                        " (where the map stays in 0..1, %.1f %% of the "
                        "frame)" % (100 * inside.mean()) if kind == "png16"
                        else ""))
            print(line)
            if same < need_same or worst > most:
                failures.append(line)

        # 4: a map of a quarter of the frame's size
        qw, qh = w // 4, h // 4
        # the quarter grid sampled from the full map's continuous form:
        # OpenCV's points at the centres of the quarter grid's samples
        K, D = L.kmat(np, case.camera), np.array(case.coeffs)
        Kn = L.new_camera_cv(cv2, np, case)
        u, v = np.meshgrid((np.arange(qw) + 0.5) * (w / qw) - 0.5,
                           (np.arange(qh) + 0.5) * (h / qh) - 0.5)
        xn = (u - Kn[0, 2]) / Kn[0, 0]
        yn = (v - Kn[1, 2]) / Kn[1, 1]
        if case.model == "fisheye":
            pts = np.stack([xn.ravel(), yn.ravel()], 1).reshape(-1, 1, 2)
            mq = cv2.fisheye.distortPoints(pts, K, D)
        else:
            obj = np.stack([xn.ravel(), yn.ravel(), np.ones(xn.size)], 1)
            mq = cv2.projectPoints(obj, np.zeros(3), np.zeros(3), K, D)[0]
        mq = mq.reshape(qh, qw, 2)
        s, t = to_stmap(np, mq, w, h)
        path = os.path.join(tmp, "quarter.exr")
        write_stmap(cv2, np, path, s, t, "exr")
        out = L.run_element(np, img, "bsplinewarp stmap-location=%s "
                            "antialias=none precision=double" % path,
                            w, h, tmp)
        same, within, worst = compare(np, out, lens)
        line = ("a %dx%d map of %s over %dx%d: %.2f %% within 1 of the lens "
                "stage, %.2f %% identical, max diff %d" % (
                    qw, qh, case.name, w, h, 100 * within, 100 * same,
                    worst))
        print(line)
        if within < 0.97:
            failures.append(line)


def check_remap(L, cv2, np, cal, tmp, failures):
    name, img = L.photos(np)[0]
    h, w, _ = img.shape
    case = L.pixel_cases(cal, w, h)[1]               # rational
    m = L.opencv_map(cv2, np, case)[0]
    s, t = to_stmap(np, m, w, h)
    path = os.path.join(tmp, "remap.exr")
    write_stmap(cv2, np, path, s, t, "exr")
    pos = stored_positions(cv2, np, path, w, h).astype(np.float32)
    ref = cv2.remap(img, pos[..., 0], pos[..., 1], cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REFLECT)
    out = L.run_element(np, img, "bsplinewarp stmap-location=%s order=1 "
                        "antialias=none precision=double" % path, w, h, tmp)
    # inside, where neither boundary rule is involved
    inside = ((pos[..., 0] > 1) & (pos[..., 0] < w - 2) & (pos[..., 1] > 1)
              & (pos[..., 1] < h - 2))
    d = np.abs(out.astype(float) - ref.astype(float))[..., :3][inside]
    line = ("cv2.remap INTER_LINEAR on the STMap's positions beside order=1:"
            " %.2f %% within 1, max diff %d (%s %s)" % (
                100 * (d <= 1).mean(), d.max(), name, case.name))
    print(line)
    if (d <= 1).mean() < 0.99 or d.max() > 3:
        failures.append(line)


def check_antialias(L, cv2, np, seed, tmp, failures):
    w, h = 320, 200
    rng = np.random.default_rng([seed, 5])
    noise = np.full((h, w, 4), 255, np.uint8)
    noise[..., :3] = rng.integers(0, 256, (h, w, 3))
    # the whole frame into its top-left quarter's worth: 4x shrink about
    # the centre
    x = (np.arange(w) + 0.5) / w
    y = (np.arange(h) + 0.5) / h
    X, Y = np.meshgrid(x, y)
    s = 0.5 + 4 * (X - 0.5)
    t = 1 - (0.5 + 4 * (Y - 0.5))
    path = os.path.join(tmp, "shrink.exr")
    write_stmap(cv2, np, path, s, t, "exr")
    none = L.run_element(np, noise, "bsplinewarp stmap-location=%s "
                         "antialias=none" % path, w, h, tmp)
    aa = L.run_element(np, noise, "bsplinewarp stmap-location=%s" % path,
                       w, h, tmp)
    core = (slice(h * 3 // 8, h * 5 // 8), slice(w * 3 // 8, w * 5 // 8))
    vn = none[core][..., :3].astype(float).var()
    va = aa[core][..., :3].astype(float).var()
    line = ("antialias: a 4x shrinking STMap, variance of noise %.1f "
            "(none) %.1f (default)" % (vn, va))
    print(line)
    if not va <= 0.5 * vn:
        failures.append(line)


def check_outlier(L, cv2, np, seed, tmp, failures):
    """One large finite value (s = 1e30 at one sample of a 64x48 identity
    map) changes the output near that sample only, as cv2.remap changes
    one pixel (issue 43, defect 4; main changed about 1700 of 3072)."""
    w, h, ox, oy = 64, 48, 20, 30
    rng = np.random.default_rng([seed, 43])
    img = np.full((h, w, 4), 255, np.uint8)
    img[..., :3] = rng.integers(0, 256, (h, w, 3))
    x = (np.arange(w) + 0.5) / w
    y = (np.arange(h) + 0.5) / h
    s, Y = np.meshgrid(x, y)
    t = 1.0 - Y
    write_stmap(cv2, np, os.path.join(tmp, "identity.exr"), s, t, "exr")
    s_out = s.copy()
    s_out[oy, ox] = 1e30
    write_stmap(cv2, np, os.path.join(tmp, "outlier.exr"), s_out, t, "exr")
    pos = np.stack([s_out * w - 0.5, Y * h - 0.5], -1).astype(np.float32)
    same = np.stack([s * w - 0.5, Y * h - 0.5], -1).astype(np.float32)
    remap = [cv2.remap(img, p[..., 0], p[..., 1], cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_REFLECT) for p in (same, pos)]
    n_remap = int((remap[0] != remap[1]).any(-1).sum())
    # with antialiasing the map's steep Jacobian next to the outlier widens
    # the kernel there: changes within 10 pixels of it, at most 49
    for extra, most, reach in (("antialias=none", n_remap, 0),
                               ("", 49, 10)):
        out = [L.run_element(np, img, "bsplinewarp stmap-location=%s %s" % (
            os.path.join(tmp, name), extra), w, h, tmp)
            for name in ("identity.exr", "outlier.exr")]
        ys, xs = np.nonzero((out[0] != out[1]).any(-1))
        far = max([0] + [max(abs(a - ox), abs(b - oy))
                         for a, b in zip(xs, ys)])
        line = ("an STMap outlier (1e30 at (%d, %d) of 64x48) %s: %d "
                "pixels changed, the farthest %d from it (cv2.remap: %d "
                "changed)" % (ox, oy, extra or "antialias default", len(xs),
                              far, n_remap))
        print(line)
        if len(xs) > most or far > reach:
            failures.append(line)


def pop_map_messages(Gst, bus):
    """The element messages 'bsplinewarp-stmap' on the bus as (location,
    pts), and the first error's text or None."""
    used, error = [], None
    while True:
        msg = bus.pop_filtered(Gst.MessageType.ELEMENT
                               | Gst.MessageType.ERROR)
        if msg is None:
            return used, error
        if msg.type == Gst.MessageType.ERROR:
            error = error or msg.parse_error()[0].message
            continue
        st = msg.get_structure()
        if st.get_name() == "bsplinewarp-stmap":
            used.append((st.get_value("location"), st.get_value("pts")))


def check_playing(L, cv2, np, tmp, failures):
    """stmap-location changed between buffers of a running pipeline."""
    try:
        import gi
        gi.require_version("Gst", "1.0")
        gi.require_version("GstApp", "1.0")
        from gi.repository import Gst, GstApp  # noqa: F401
    except (ImportError, ValueError) as e:
        failures.append("PLAYING: no GStreamer Python bindings (%s)" % e)
        return
    Gst.init(None)
    w, h = 64, 48
    rng = np.random.default_rng(7)
    frame = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    x = (np.arange(w) + 0.5) / w
    y = (np.arange(h) + 0.5) / h
    X, Y = np.meshgrid(x, y)
    flip = os.path.join(tmp, "flip.exr")        # mirror left-right
    write_stmap(cv2, np, flip, 1 - X, 1 - Y, "exr")
    shift = os.path.join(tmp, "shift.exr")      # 5 pixels right
    write_stmap(cv2, np, shift, X + 5.0 / w, 1 - Y, "exr")
    pipe = Gst.parse_launch(
        "appsrc name=src format=time caps=video/x-raw,format=RGBA,"
        "width=%d,height=%d,framerate=30/1 ! bsplinewarp name=warp "
        "boundary=reflect antialias=none ! appsink name=sink sync=false" % (
            w, h))
    src, warp, sink = (pipe.get_by_name(n) for n in ("src", "warp", "sink"))
    bus = pipe.get_bus()
    pipe.set_state(Gst.State.PLAYING)

    def expected_off(o, loc):
        if loc == shift:
            # 5 px right: output x samples input x + 5 (inside)
            d = o[:, :w - 5].astype(int) - frame[:, 5:].astype(int)
        else:
            e = frame[:, ::-1] if loc == flip else frame
            d = o.astype(int) - e.astype(int)
        return int(np.abs(d).max())

    # each location set, then frames until it is in use, and one more
    plan = [None, flip, shift, ""]
    in_use, i, counts, error = "unknown", 0, [], None
    for loc in plan:
        target = loc or None
        if loc is not None:
            warp.set_property("stmap-location", loc)
        n = 0
        while error is None and n < 400:
            buf = Gst.Buffer.new_wrapped(frame.tobytes())
            buf.pts = i * Gst.SECOND // 30
            buf.duration = Gst.SECOND // 30
            src.emit("push-buffer", buf)
            sample = sink.emit("try-pull-sample", 5 * Gst.SECOND)
            used, error = pop_map_messages(Gst, bus)
            if sample is None:
                error = error or "frame %d did not come out" % i
                break
            for where, pts in used:
                if pts != buf.pts:
                    failures.append("PLAYING: map %s in use from PTS %s, "
                                    "not at a frame's" % (where, pts))
                in_use = where
            b = sample.get_buffer()
            ok, info = b.map(Gst.MapFlags.READ)
            o = np.frombuffer(info.data, np.uint8).reshape(h, w, 4)
            off = expected_off(o, in_use)
            b.unmap(info)
            if off > 1:
                failures.append("PLAYING: frame %d (map in use %s) is %d "
                                "off" % (i, in_use, off))
            i += 1
            n += 1
            if in_use == target and n > 1:
                break
            if in_use != target:
                time.sleep(0.01)
        counts.append(n - 1)
        if in_use != target:
            failures.append("PLAYING: stmap-location=%s not in use after %d "
                            "frames (%s)" % (loc, n, error))
            break
    src.emit("end-of-stream")
    pipe.set_state(Gst.State.NULL)
    if error is not None:
        failures.append("PLAYING: error %s" % error)
    print("PLAYING: %d frames, stmap-location none, flip, shift, none: in "
          "use after %s frames, each frame its map's" % (i, counts)
          if not any(f.startswith("PLAYING") for f in failures) else
          "PLAYING: failed")


def check_bad_input(L, cv2, np, tmp, failures):
    w, h = 64, 48
    img = np.full((h, w, 4), 128, np.uint8)
    x = (np.arange(w) + 0.5) / w
    y = (np.arange(h) + 0.5) / h
    X, Y = np.meshgrid(x, y)
    good = os.path.join(tmp, "good.exr")
    write_stmap(cv2, np, good, X, 1 - Y, "exr")
    data = open(good, "rb").read()
    trunc = os.path.join(tmp, "trunc.exr")
    open(trunc, "wb").write(data[:len(data) // 2])
    png8 = os.path.join(tmp, "eight.png")
    cv2.imwrite(png8, np.zeros((h, w, 3), np.uint8))
    nan = os.path.join(tmp, "nan.exr")
    s = X.copy()
    s[3, 7] = np.nan
    write_stmap(cv2, np, nan, s, 1 - Y, "exr")
    aspect = os.path.join(tmp, "aspect.exr")
    Xa, Ya = np.meshgrid((np.arange(40) + 0.5) / 40,
                         (np.arange(40) + 0.5) / 40)
    write_stmap(cv2, np, aspect, Xa, 1 - Ya, "exr")
    cases = [
        ("missing", "stmap-location=%s" % os.path.join(tmp, "none.exr"),
         ["stmap-location"]),
        ("truncated", "stmap-location=%s" % trunc, ["stmap-location"]),
        ("8-bit PNG", "stmap-location=%s" % png8, ["stmap-location",
                                                   "8"]),
        ("NaN", "stmap-location=%s" % nan, ["stmap-location", "column 7",
                                            "row 3"]),
        ("aspect", "stmap-location=%s" % aspect, ["stmap-location",
                                                  "40x40", "64x48"]),
        ("with a lens", "stmap-location=%s lens-model=brown "
         "camera-matrix=\"<50.0,50.0,31.5,23.5>\"" % good,
         ["lens-model", "stmap-location"]),
    ]
    for what, props, words in cases:
        rc, out = L.run_element(np, img, "bsplinewarp " + props, w, h, tmp,
                                expect_ok=False)
        ok = rc != 0 and all(wd in out for wd in words) and \
            "Segmentation" not in out
        print("bad input %s: rc %s, %s" % (what, rc, "error names " + ", ".join(
            words) if ok else "UNEXPECTED"))
        if not ok:
            failures.append("bad input %s: rc %s, output %r" % (what, rc,
                                                                out[-600:]))


def constant_png16(path, w, h, value=30000):
    """A 16-bit RGB PNG of one value, written row by row (a few hundred
    kilobytes on disk for millions of samples, as the hostile round's
    maps were)."""
    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff))
    row = b"\0" + struct.pack(">H", value) * (3 * w)
    z = zlib.compressobj(9)
    idat = b"".join(z.compress(row) for _ in range(h)) + z.flush()
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" +
                chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, 2, 0, 0, 0))
                + chunk(b"IDAT", idat) + chunk(b"IEND", b""))


def peak_of(launch, env):
    """The peak resident memory (KiB) of a command alone, a child of a
    fresh interpreter, and what it printed.  As in test_lens.py's
    run_element, gst-launch 1.22 may hang after an element error while it
    prerolls: killed after 30 s, what it printed is read."""
    probe = ("import resource, subprocess, sys\n"
             "try:\n"
             "    r = subprocess.run(sys.argv[1:], capture_output=True, "
             "text=True, timeout=30)\n"
             "    out = r.stdout + r.stderr\n"
             "except subprocess.TimeoutExpired as e:\n"
             "    out = ''.join(x.decode() if isinstance(x, bytes) else "
             "(x or '') for x in (e.stdout, e.stderr))\n"
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
             "sys.stdout.write(out)\n")
    r = subprocess.run([sys.executable, "-c", probe] + launch,
                       capture_output=True, text=True, env=env)
    first, _, said = r.stdout.partition("\n")
    return (int(first) if first.isdigit() else 1 << 30), said + r.stderr


def check_declared_size(L, np, tmp, failures):
    """A map of another aspect ratio than the frame, 4096x4096 samples of
    one value in a small PNG, is refused from its header, before any
    sample is decoded: the error says so, and gst-launch's peak memory
    stays under 256 MiB (main decoded it first: about 600 MB)."""
    w, h = 64, 48
    path = os.path.join(tmp, "square.png")
    constant_png16(path, 4096, 4096)
    fin = os.path.join(tmp, "grey.rgba")
    np.full((h, w, 4), 128, np.uint8).tofile(fin)
    launch = ["gst-launch-1.0", "-q", "filesrc", "location=" + fin,
              "blocksize=%d" % (w * h * 4), "!", "rawvideoparse",
              "format=rgba", "width=%d" % w, "height=%d" % h,
              "framerate=1/1", "!", "bsplinewarp", "stmap-location=" + path,
              "!", "fakesink"]
    peak_kb, said = peak_of(launch, L.gst_env(tmp))
    ok = ("4096x4096" in said and "before any sample was decoded" in said
          and peak_kb < 256 * 1024)
    line = ("a 4096x4096 STMap (%d bytes) over a 64x48 frame: peak %.1f MiB, "
            "%s" % (os.path.getsize(path), peak_kb / 1024.0,
                    "refused from its header" if ok else "UNEXPECTED: " +
                    said[-400:]))
    print(line)
    if not ok:
        failures.append(line)


# The child of check_memory: appsrc ! bsplinewarp ! appsink with 64x48
# RGBA frames; with two map paths, the first in use from the first frame,
# then the second set and frames pushed (10 ms apart) until it is in use.
# Prints the seconds the second map took to go into use, the slowest
# frame's seconds, the frames and whether the last frame is the second
# constant map's (every pixel alike, and unlike the first map's).
SWAP_CHILD = """
import sys, time
import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst
Gst.init(None)
w, h = 64, 48
maps = sys.argv[1:]
pipe = Gst.parse_launch(
    "appsrc name=src format=time caps=video/x-raw,format=RGBA,width=%d,"
    "height=%d,framerate=30/1 ! bsplinewarp name=warp ! appsink name=sink "
    "sync=false" % (w, h))
src, warp, sink = (pipe.get_by_name(n) for n in ("src", "warp", "sink"))
bus = pipe.get_bus()
if maps:
    warp.set_property("stmap-location", maps[0])
pipe.set_state(Gst.State.PLAYING)
data = bytes(range(256)) * (w * h * 4 // 256)
def push(i):
    buf = Gst.Buffer.new_wrapped(data)
    buf.pts = i * Gst.SECOND // 30
    t = time.monotonic()
    src.emit("push-buffer", buf)
    sample = sink.emit("try-pull-sample", 60 * Gst.SECOND)
    if sample is None:
        sys.exit("frame %d did not come out" % i)
    used = False
    while True:
        msg = bus.pop_filtered(Gst.MessageType.ELEMENT
                               | Gst.MessageType.ERROR)
        if msg is None:
            break
        if msg.type == Gst.MessageType.ERROR:
            sys.exit(msg.parse_error()[0].message)
        st = msg.get_structure()
        used = used or (maps and st.get_name() == "bsplinewarp-stmap"
                        and st.get_value("location") == maps[-1])
    ok, info = sample.get_buffer().map(Gst.MapFlags.READ)
    px = bytes(info.data)
    sample.get_buffer().unmap(info)
    return time.monotonic() - t, used, px[:4] * (w * h) == px and px[:4]
first = push(0)[2]
slowest, n, used, flat, start = 0.0, 1, not maps, False, time.monotonic()
if maps:
    warp.set_property("stmap-location", maps[1])
while not used and time.monotonic() - start < 120:
    took, used, flat = push(n)
    slowest, n = max(slowest, took), n + 1
    time.sleep(0.01)
took = time.monotonic() - start
src.emit("end-of-stream")
pipe.set_state(Gst.State.NULL)
print(took, slowest, n, bool(used and flat and first and flat != first))
"""


def check_memory(L, np, tmp, failures):
    """Issue 43, defect 2: no STMap makes the element hold more than 256
    MiB, and no frame waits for a map read while PLAYING (10. above)."""
    w, h = 64, 48
    path = os.path.join(tmp, "huge.png")
    constant_png16(path, 8192, 6144)
    fin = os.path.join(tmp, "grey.rgba")
    np.full((h, w, 4), 128, np.uint8).tofile(fin)
    launch = ["gst-launch-1.0", "-q", "filesrc", "location=" + fin,
              "blocksize=%d" % (w * h * 4), "!", "rawvideoparse",
              "format=rgba", "width=%d" % w, "height=%d" % h,
              "framerate=1/1", "!", "bsplinewarp", "stmap-location=" + path,
              "!", "fakesink"]
    t = time.monotonic()
    peak_kb, said = peak_of(launch, L.gst_env(tmp))
    ok = ("8192x6144" in said and "2^22" in said and "2364x1773" in said
          and "before any sample was decoded" in said
          and peak_kb < 256 * 1024)
    line = ("an 8192x6144 STMap (%d bytes) over a 64x48 frame: peak %.1f "
            "MiB, %.1f s, %s" % (
                os.path.getsize(path), peak_kb / 1024.0,
                time.monotonic() - t, "refused from its header" if ok else
                "UNEXPECTED: " + said[-400:]))
    print(line)
    if not ok:
        failures.append(line)

    # the largest maps (2364x1773 <= 2^22 samples), one replacing the other
    a, b = os.path.join(tmp, "max-a.png"), os.path.join(tmp, "max-b.png")
    constant_png16(a, 2364, 1773, 20000)
    constant_png16(b, 2364, 1773, 40000)
    # the peaks of the children alone (peak_of): ru_maxrss is kept across
    # exec, so a child of this interpreter would report this one's peak
    runs = []
    for maps in ([], [a, b]):
        peak_kb, said = peak_of([sys.executable, "-c", SWAP_CHILD] + maps,
                                L.gst_env(tmp))
        runs.append([peak_kb] + said.split())
        if len(runs[-1]) != 5 or runs[-1][4] not in ("True", "False"):
            line = "swap of two 2^22-sample maps: UNEXPECTED: %s" % (
                said[-600:])
            print(line)
            failures.append(line)
            return
    n, last_ok = runs[1][3], runs[1][4]
    extra = (runs[1][0] - runs[0][0]) / 1024.0
    took, slowest = runs[1][1], runs[1][2]
    took, slowest = float(took), float(slowest)
    ok = extra <= 256 and slowest < took / 3 and last_ok == "True"
    line = ("two 2364x1773 STMaps (2^22 samples), the second set while "
            "PLAYING: peak %.1f MiB above no map; in use after %.2f s and "
            "%s frames, the slowest frame %.3f s, %s" % (
                extra, took, n, slowest, "the new map's frame"
                if last_ok == "True" else "NOT the new map's frame"))
    print(line)
    if not ok:
        failures.append(line)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    # before cv2 is imported (here or in the re-executed interpreter)
    os.environ["OPENCV_IO_ENABLE_OPENEXR"] = "1"
    L = load(sys.argv[1], "test_lens")
    cv2, np, ndimage = L.references(__file__, REEXEC)
    cal = load(sys.argv[2], "test_lens_fit").CALIBRATIONS
    env = os.environ.get("BSPLINE_TEST_SEED")
    seed = int(env, 0) if env else (time.time_ns() ^ os.getpid()) % 2**63
    print("test_stmap: seed %d; cv2 %s" % (seed, cv2.__version__))
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        check_convention(L, cv2, np, ndimage, cal, tmp, failures)
        check_lens_equivalence(L, cv2, np, cal, tmp, failures)
        check_remap(L, cv2, np, cal, tmp, failures)
        check_antialias(L, cv2, np, seed, tmp, failures)
        check_outlier(L, cv2, np, seed, tmp, failures)
        check_playing(L, cv2, np, tmp, failures)
        check_bad_input(L, cv2, np, tmp, failures)
        check_declared_size(L, np, tmp, failures)
        check_memory(L, np, tmp, failures)
    L.finish(failures, seed, "test_stmap")


if __name__ == "__main__":
    main()
