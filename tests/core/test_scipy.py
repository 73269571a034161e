#!/usr/bin/python3
"""scipy.ndimage.map_coordinates as an outside oracle for the double path.

Usage: /usr/bin/python3 test_scipy.py LIBBSPLINE_CORE.so PRINT_LAYOUT

Loads the core's shared library with ctypes (the structs of core/bspline.h
are mirrored below and checked field by field against print-layout, a C
program compiled with the header) and compares, at double precision:

 - bspline_cpu_sample_points with map_coordinates(prefilter=True) for
   orders 0-5 (scipy's maximum) and the five boundaries, on random images
   with 1-3 channels and on the real images scipy.misc.ascent() and the three
   channels of scipy.misc.face(), at random coordinates inside the frame,
   partly outside it, and (for the periodic boundaries) several periods
   away;
 - a whole plan (rotation about the centre, bspline_plan_new +
   bspline_cpu_execute on an F64 image) with map_coordinates at the same
   output pixel centres.

Conventions: our pixel coordinate p is scipy's coordinate p - 0.5.  Our
boundaries map to scipy modes reflect -> 'reflect' (= 'grid-mirror'),
mirror -> 'mirror', wrap -> 'grid-wrap'.  scipy's 'nearest' and
'grid-constant' pad only 12 samples before the prefilter, so for clamp and
constant the input is padded here by 120 samples (np.pad 'edge' or the fill
value) first, which makes scipy exact for them too.

scipy 1.10's 'reflect' prefilter is not exact on short lines: its causal
initialisation sums one pass over the line, an error of about |z_0|^(2 len)
(measured against tests/core/test-reference.c's banded solve: 3.4e-3 for
order 5 on 3 samples, 1.8e-7 on 9; the engine is within 1e-15 of the
reference on both).  Random images for reflect therefore have at least 24
samples a side (0.43^48 = 2e-18 for order 5); the other modes take sides
from 1.

Bound: 1e-9 of the signal range (the fill value included).  A fresh seed is
drawn each run (BSPLINE_TEST_SEED repeats one); exit status 0 on success.
"""
import ctypes
import os
import subprocess
import sys
import time
import warnings

import numpy as np
import scipy
import scipy.ndimage as ndi

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import scipy.misc

    ASCENT = scipy.misc.ascent().astype(np.float64)
    FACE = scipy.misc.face().astype(np.float64)

BOUND = 1e-9
PAD = 120
NEAR = 8
ORDERS = range(6)
BOUNDARIES = ["reflect", "mirror", "wrap", "clamp", "constant"]
SCIPY_MODE = {"reflect": "reflect", "mirror": "mirror", "wrap": "grid-wrap",
              "clamp": "nearest", "constant": "grid-constant"}

# ---- ctypes mirror of core/bspline.h (enums are int) ----


class Image(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p),
                ("stride", ctypes.c_ssize_t),
                ("width", ctypes.c_int),
                ("height", ctypes.c_int),
                ("channels", ctypes.c_int),
                ("type", ctypes.c_int),
                ("bits", ctypes.c_int),
                ("shift", ctypes.c_int)]


class Params(ctypes.Structure):
    _fields_ = [("method", ctypes.c_int),
                ("order", ctypes.c_int),
                ("bicubic_a", ctypes.c_double),
                ("boundary", ctypes.c_int),
                ("fill", ctypes.c_double * 4),
                ("precision", ctypes.c_int),
                ("antialias", ctypes.c_int)]


SAMPLE_F64 = 3
PRECISION_DOUBLE = 1
METHOD_BSPLINE = 0


def check_layout(print_layout):
    """Compares the ctypes mirrors with the C compiler's layout."""
    out = subprocess.run([print_layout], check=True, capture_output=True,
                         text=True).stdout
    c_layout = dict((k, int(v)) for k, v in
                    (line.split() for line in out.splitlines()))
    ours = {}
    for name, cls in (("bspline_image", Image), ("bspline_params", Params)):
        ours["sizeof." + name] = ctypes.sizeof(cls)
        for field, _ in cls._fields_:
            ours["%s.%s" % (name, field)] = getattr(cls, field).offset
    for key in ("sizeof.bspline_method", "sizeof.bspline_boundary",
                "sizeof.bspline_precision", "sizeof.bspline_sample_type",
                "sizeof.bspline_status"):
        ours[key] = ctypes.sizeof(ctypes.c_int)
    ours["sizeof.int"] = ctypes.sizeof(ctypes.c_int)
    bad = ["%s: C %s, ctypes %s" % (k, c_layout.get(k), ours.get(k))
           for k in sorted(set(c_layout) | set(ours))
           if c_layout.get(k) != ours.get(k)]
    return bad, len(c_layout)


class Core:
    def __init__(self, path):
        lib = ctypes.CDLL(path)
        lib.bspline_params_init.argtypes = [ctypes.POINTER(Params)]
        lib.bspline_params_init.restype = None
        lib.bspline_cpu_new.argtypes = [ctypes.c_int]
        lib.bspline_cpu_new.restype = ctypes.c_void_p
        lib.bspline_cpu_free.argtypes = [ctypes.c_void_p]
        lib.bspline_cpu_free.restype = None
        lib.bspline_cpu_last_error.argtypes = [ctypes.c_void_p]
        lib.bspline_cpu_last_error.restype = ctypes.c_char_p
        lib.bspline_cpu_sample_points.argtypes = [
            ctypes.c_void_p, ctypes.POINTER(Params), ctypes.POINTER(Image),
            ctypes.POINTER(ctypes.c_double), ctypes.c_size_t,
            ctypes.POINTER(ctypes.c_double)]
        lib.bspline_cpu_sample_points.restype = ctypes.c_int
        lib.bspline_plan_new.argtypes = [
            ctypes.POINTER(Params), ctypes.POINTER(ctypes.c_double),
            ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
            ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p,
            ctypes.c_size_t]
        lib.bspline_plan_new.restype = ctypes.c_int
        lib.bspline_plan_free.argtypes = [ctypes.c_void_p]
        lib.bspline_plan_free.restype = None
        lib.bspline_cpu_execute.argtypes = [
            ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(Image),
            ctypes.POINTER(Image)]
        lib.bspline_cpu_execute.restype = ctypes.c_int
        self.lib = lib
        self.cpu = lib.bspline_cpu_new(0)
        if not self.cpu:
            raise RuntimeError("bspline_cpu_new failed")

    def params(self, order, boundary, fill):
        p = Params()
        self.lib.bspline_params_init(ctypes.byref(p))
        p.method = METHOD_BSPLINE
        p.order = order
        p.boundary = BOUNDARIES.index(boundary)
        p.precision = PRECISION_DOUBLE
        p.antialias = 0
        for c, v in enumerate(fill):
            p.fill[c] = v
        return p

    @staticmethod
    def image(arr):
        """arr: C-contiguous float64 (h, w) or (h, w, channels)."""
        assert arr.dtype == np.float64 and arr.flags.c_contiguous
        img = Image()
        img.data = arr.ctypes.data
        img.stride = arr.strides[0]
        img.height, img.width = arr.shape[:2]
        img.channels = 1 if arr.ndim == 2 else arr.shape[2]
        img.type = SAMPLE_F64
        img.bits = 0
        img.shift = 0
        return img

    def sample_points(self, arr, params, xy):
        """xy: (n, 2) pixel coordinates; returns (n, channels)."""
        img = self.image(arr)
        xy = np.ascontiguousarray(xy, dtype=np.float64)
        out = np.empty((len(xy), img.channels))
        st = self.lib.bspline_cpu_sample_points(
            self.cpu, ctypes.byref(params), ctypes.byref(img),
            xy.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), len(xy),
            out.ctypes.data_as(ctypes.POINTER(ctypes.c_double)))
        if st != 0:
            raise RuntimeError("sample_points: %d %s" % (
                st, self.lib.bspline_cpu_last_error(self.cpu)))
        return out

    def execute(self, arr, params, inverse, dst_w, dst_h):
        src = self.image(arr)
        dst_arr = np.zeros((dst_h, dst_w, src.channels))
        dst = self.image(dst_arr)
        m = (ctypes.c_double * 9)(*inverse.ravel())
        plan = ctypes.c_void_p()
        msg = ctypes.create_string_buffer(256)
        st = self.lib.bspline_plan_new(
            ctypes.byref(params), m, src.width, src.height, dst_w, dst_h,
            src.channels, ctypes.byref(plan), msg, 256)
        if st != 0:
            raise RuntimeError("plan_new: %d %s" % (st, msg.value))
        st = self.lib.bspline_cpu_execute(self.cpu, plan, ctypes.byref(src),
                                          ctypes.byref(dst))
        self.lib.bspline_plan_free(plan)
        if st != 0:
            raise RuntimeError("execute: %d %s" % (
                st, self.lib.bspline_cpu_last_error(self.cpu)))
        return dst_arr


def scipy_values(plane, order, boundary, fill, xy):
    """map_coordinates of one plane at our pixel coordinates xy."""
    coords = np.array([xy[:, 1] - 0.5, xy[:, 0] - 0.5])
    mode = SCIPY_MODE[boundary]
    if boundary == "clamp":
        plane = np.pad(plane, PAD, mode="edge")
        coords = coords + PAD
    elif boundary == "constant":
        plane = np.pad(plane, PAD, mode="constant", constant_values=fill)
        coords = coords + PAD
    return ndi.map_coordinates(plane, coords, order=order, mode=mode,
                               cval=fill, prefilter=True)


def random_points(rng, w, h, boundary, n):
    """Pixel coordinates: 60% inside, 30% within NEAR pixels outside, 10%
    several periods away for the periodic boundaries (near otherwise)."""
    kind = rng.random(n)
    x = rng.uniform(0, w, n)
    y = rng.uniform(0, h, n)
    near = kind >= 0.6
    x[near] = rng.uniform(-NEAR, w + NEAR, near.sum())
    y[near] = rng.uniform(-NEAR, h + NEAR, near.sum())
    if boundary in ("reflect", "mirror", "wrap"):
        far = kind >= 0.9
        x[far] += rng.integers(-3, 4, far.sum()) * 2 * w + rng.uniform(
            -w, w, far.sum())
        y[far] += rng.integers(-3, 4, far.sum()) * 2 * h + rng.uniform(
            -h, h, far.sum())
    return np.stack([x, y], axis=1)


def signal_range(arr, boundary, fill):
    lo, hi = arr.min(), arr.max()
    if boundary == "constant":
        lo, hi = min(lo, min(fill)), max(hi, max(fill))
    r = max(hi - lo, abs(lo), abs(hi))
    return r if r > 0 else 1.0


def compare_points(core, rng, arr, order, boundary, n):
    h, w = arr.shape[:2]
    ch = 1 if arr.ndim == 2 else arr.shape[2]
    fill = list(rng.uniform(arr.min(), arr.max(), ch))
    xy = random_points(rng, w, h, boundary, n)
    ours = core.sample_points(arr, core.params(order, boundary, fill), xy)
    worst = 0.0
    worst_at = None
    for c in range(ch):
        plane = arr if arr.ndim == 2 else np.ascontiguousarray(arr[:, :, c])
        ref = scipy_values(plane, order, boundary, fill[c], xy)
        err = np.abs(ours[:, c] - ref)
        err[np.isnan(err)] = np.inf
        i = int(np.argmax(err))
        if err[i] >= worst:
            worst = err[i]
            worst_at = (c, xy[i], ours[i, c], ref[i])
    return worst / signal_range(arr, boundary, fill), worst_at


def rotation_about_centre(angle, w, h):
    """Inverse map (output pixel -> input pixel) of a rotation by angle
    about the frame centre, output frame = input frame."""
    c, s = np.cos(angle), np.sin(angle)
    cx, cy = 0.5 * w, 0.5 * h
    return np.array([[c, -s, cx - c * cx + s * cy],
                     [s, c, cy - s * cx - c * cy],
                     [0.0, 0.0, 1.0]])


def compare_plan(core, rng, arr, order, boundary):
    h, w = arr.shape[:2]
    fill = [float(rng.uniform(arr.min(), arr.max()))]
    m = rotation_about_centre(rng.uniform(-np.pi, np.pi), w, h)
    params = core.params(order, boundary, fill)
    ours = core.execute(arr, params, m, w, h)[:, :, 0]
    v, u = np.mgrid[0:h, 0:w] + 0.5
    x = m[0, 0] * u + m[0, 1] * v + m[0, 2]
    y = m[1, 0] * u + m[1, 1] * v + m[1, 2]
    xy = np.stack([x.ravel(), y.ravel()], axis=1)
    ref = scipy_values(arr, order, boundary, fill[0], xy).reshape(h, w)
    err = np.abs(ours - ref)
    err[np.isnan(err)] = np.inf
    return err.max() / signal_range(arr, boundary, fill)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    env = os.environ.get("BSPLINE_TEST_SEED")
    seed = int(env, 0) if env else (time.time_ns() ^ os.getpid()) % 2**63
    print("test_scipy: seed %d (BSPLINE_TEST_SEED=%d repeats this run); "
          "scipy %s, numpy %s" % (seed, seed, scipy.__version__,
                                  np.__version__))
    rng = np.random.default_rng(seed)
    failures = []

    bad, n_fields = check_layout(sys.argv[2])
    for b in bad:
        failures.append("struct layout: " + b)
    print("struct layout: %d sizes/offsets compared with the C compiler, "
          "%d differ" % (n_fields, len(bad)))
    if bad:
        print("\n".join("FAIL " + f for f in failures))
        return 1

    core = Core(sys.argv[1])
    face_planes = np.ascontiguousarray(FACE)
    sources = [("random", None), ("ascent", ASCENT), ("face", face_planes)]
    table = {}
    for name, arr in sources:
        for order in ORDERS:
            for boundary in BOUNDARIES:
                trials = 3 if arr is None else 1
                worst = 0.0
                for _ in range(trials):
                    if arr is None:
                        low = 24 if boundary == "reflect" else 1
                        w, h = rng.integers(low, low + 40, 2)
                        ch = int(rng.integers(1, 4))
                        off = rng.uniform(-1, 1)
                        src = rng.uniform(off - 1, off + 1, (h, w, ch))
                        if ch == 1:
                            src = src[:, :, 0].copy()
                        n = 1500
                    else:
                        src = arr
                        n = 4000
                    err, at = compare_points(core, rng, src, order, boundary,
                                             n)
                    worst = max(worst, err)
                    if not err <= BOUND:
                        failures.append(
                            "%s %s order %d %s: error %.3g of the range at "
                            "channel %d, (x, y) = (%.17g, %.17g): ours "
                            "%.17g, scipy %.17g" % (
                                name, "x".join(map(str, src.shape)), order,
                                boundary, err, at[0], at[1][0], at[1][1],
                                at[2], at[3]))
                table[(name, order, boundary)] = worst

    for order in (1, 3, 5):
        for boundary in BOUNDARIES:
            err = compare_plan(core, rng, ASCENT, order, boundary)
            table[("plan", order, boundary)] = err
            if not err <= BOUND:
                failures.append("rotation plan on ascent, order %d %s: "
                                "error %.3g of the range" % (order, boundary,
                                                             err))

    print("max |ours - scipy| / signal range (double path), bound %.0e"
          % BOUND)
    print("%-7s %5s" % ("source", "order") +
          "".join("%11s" % b for b in BOUNDARIES))
    for name in ("random", "ascent", "face", "plan"):
        for order in ORDERS:
            if (name, order, "reflect") not in table:
                continue
            print("%-7s %5d" % (name, order) + "".join(
                "%11.2e" % table[(name, order, b)] for b in BOUNDARIES))
    for f in failures[:40]:
        print("FAIL [seed %d] %s" % (seed, f))
    worst = max(table.values())
    print("test_scipy: %s: map_coordinates oracle, orders 0-5 x 5 "
          "boundaries on random, ascent and face (3 channels) images plus "
          "rotation plans on ascent: max error %.3g of the signal range "
          "(bound %.0e)%s" % (
              "FAILED" if failures else "ok", worst, BOUND,
              " [%d failures, seed %d: BSPLINE_TEST_SEED=%d repeats]" % (
                  len(failures), seed, seed) if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
