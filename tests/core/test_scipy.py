#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""scipy.ndimage.map_coordinates as an outside oracle for the double path,
and a dense least-squares reference for the reduction of
core/resample/reduce.c.

Usage: /usr/bin/python3 test_scipy.py LIBBSPLINE_CORE.so PRINT_LAYOUT

Loads the core's shared library with ctypes (the structs of
core/include/bspline.h are mirrored below and checked field by field against
print-layout, a C program compiled with the header) and compares, at double
precision:

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

Bound: 1e-9 of the signal range (the fill value included).

Then the least-squares reduction (antialias=least-squares on axis-aligned
shrinks; the comment opening that section says how the reference is built,
from scipy.interpolate.BSpline and a weighted least-squares fit on a fine
grid, nothing of the core's formulas): orders 0, 1, 2, 3, 5, 11 x ratios
2, 3, 1.5, 4, 1.37 (offset) and -2 (a flip) x the five boundaries on random
1-row and 1-column images, in double (bound 1e-10 of the range) and float;
order 0 also against the exact area average; separable 2-D plans (both axes
reduced, one reduced and the other enlarged or shifted); and scale 1 or
enlargement, where least squares must give the plain interpolation bit for
bit (the identity at scale 1, offset 0).

A fresh seed is drawn each run (BSPLINE_TEST_SEED repeats one); exit status
0 on success.
"""
import ctypes
import os
import subprocess
import sys
import time
import warnings

import numpy as np
import scipy
import scipy.linalg
import scipy.ndimage as ndi
from scipy.interpolate import BSpline

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

# ---- ctypes mirror of core/include/bspline.h (enums are int) ----


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
PRECISION_FLOAT = 0
PRECISION_DOUBLE = 1
METHOD_BSPLINE = 0
ANTIALIAS_NONE = 0
ANTIALIAS_LEAST_SQUARES = 1


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

    def params(self, order, boundary, fill, antialias=ANTIALIAS_NONE,
               precision=PRECISION_DOUBLE):
        p = Params()
        self.lib.bspline_params_init(ctypes.byref(p))
        p.method = METHOD_BSPLINE
        p.order = order
        p.boundary = BOUNDARIES.index(boundary)
        p.precision = precision
        p.antialias = antialias
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


# ---- the least-squares reduction against a dense reference (core/resample/)
#
# The reference shares nothing with the core but the definition: it builds
# the input's spline f, the coarse basis and the least-squares fit from
# scipy.interpolate.BSpline (de Boor's recursion) and dense linear
# algebra.
#
#  f: the extended samples (extend(), from the boundaries' definitions)
#     over a window that reaches P samples past where f is needed, P such
#     that |z|^P < 1e-17 for the interpolation pole z nearest -1 (numpy's
#     roots of the sampled B-spline); the coefficients solve the banded
#     system sum_j beta^n(k - j) c[j] = s[k] on that window
#     (scipy.linalg.solve_banded); f = BSpline(c) on the knots of order n.
#     Checked against map_coordinates for orders 0-5 below.
#  g: the coarse basis beta^n((x - x_m) / T), x_m = x_0 + m T (x_0 an
#     output centre), for m = -M .. n_out - 1 + M: M = n + 3 plus the
#     length over which |z|^M falls below 1e-11, z the root nearest -1 of
#     the sampled B-spline of degree 2n + 1 (0.81 for order 11: M = 137).
#     That is the only use of the identity between that B-spline and the
#     coarse basis's Gram matrix: it sets the window, not the values.
#  the fit: over the union of the supports of those basis functions, on a
#     fine grid: the knots of f and of the coarse basis cut that interval
#     into pieces on which f beta^n and beta^n beta^n are polynomials of
#     degree 2n, and each piece gets the 2n + 1 Clenshaw-Curtis
#     (Chebyshev extreme) points and weights, exact for that degree.  (A
#     composite Simpson grid on the same pieces converges as h^4 only, the
#     pieces being uneven: 2e-8 of the range at 64 steps per piece.)  The
#     weighted least-squares problem over those points is solved through
#     its normal equations A^T W A d = A^T W f (A sparse, from
#     BSpline.design_matrix, whose condition number is at most 2.5e4, for
#     order 11): numpy.linalg.lstsq on the dense A gives the same d
#     (checked below on one case per order) but takes seconds per order-11
#     case with Debian's reference BLAS.
#  out[j] = g(x_j).
#
# The fit's interval ends M coarse samples past the frame on each side; the
# error of the fit there reaches the frame attenuated by |z|^M.  Measured
# over every order and ratio: the reference moves by at most 2e-13 of the
# signal range (orders <= 5: 7e-14) when M grows to |z|^M < 1e-15, and by
# at most 2e-12 (orders <= 5: 1e-14) when lstsq replaces the normal
# equations.
LSQ_ORDERS = (0, 1, 2, 3, 5, 11)
LSQ_RATIOS = ("2", "3", "1.5", "4", "1.37", "-2")
LSQ_WINDOW = 1e-11
# |core - reference| / signal range.  Double: the reference is good to
# 2e-12 (above); over 25 seeds the core came within 4.2e-12 at order 11,
# 1.4e-13 at orders <= 5.  Float: within 1e-6 (order 5; 2-D order 3:
# 7.6e-7); orders >= 9 reduce in double whatever the precision
# (core/resample/reduce.c: their Gram filters amplify float's rounding by up to
# 2.5e4), which the bound of order 11 holds to float quality only.
LSQ_BOUND_DOUBLE = 1e-10
LSQ_BOUND_FLOAT = {0: 5e-7, 1: 1e-6, 2: 2e-6, 3: 3e-6, 5: 5e-6, 11: 1e-5}
LSQ_BOUND_AREA = 1e-12
LSQ_BOUND_IDENTITY = 1e-12


def extend(s, boundary, fill, k):
    """The samples s at the integer indices k (any), extended as
    core/include/bspline-math.h draws it: reflect cba|abcde|edc, mirror
    dcb|abcde|dcb, wrap cde|abcde|abc, clamp aaa|abcde|eee, constant
    vvv|abcde|vvv.  (numpy.pad is no help: numpy 1.24's wrap, symmetric
    and reflect go wrong where a pad is longer than the signal and the two
    pads differ, numpy issues 22464, 28575.)"""
    n = len(s)
    if boundary == "clamp":
        return s[np.clip(k, 0, n - 1)]
    if boundary == "constant":
        return np.where((k >= 0) & (k < n), s[np.clip(k, 0, n - 1)], fill)
    period = {"reflect": np.concatenate([s, s[::-1]]),
              "mirror": np.concatenate([s, s[-2:0:-1]]) if n > 1 else s,
              "wrap": s}[boundary]
    return period[k % len(period)]


def cardinal_bspline(degree):
    """beta^degree, centred, as a scipy BSpline (nan outside its support)."""
    return BSpline.basis_element(np.arange(degree + 2) - (degree + 1) / 2,
                                 extrapolate=False)


def sampled_bspline(degree):
    """beta^degree(k) for |k| <= degree // 2."""
    m = degree // 2
    return np.nan_to_num(cardinal_bspline(degree)(np.arange(-m, m + 1.0)))


def pole_window(degree, tol):
    """Samples after which the inverse filter of the sampled B-spline of
    this degree has decayed below tol (from its root nearest the unit
    circle, numpy.roots); only sets window lengths."""
    v = sampled_bspline(degree)
    if len(v) < 3:
        return 0
    r = np.abs(np.roots(v))
    return int(np.ceil(np.log(tol) / np.log(r[r < 1].max())))


def extended_spline(cols, boundaries, fills, order, lo, hi):
    """f of each signal (columns of the result): the interpolating spline of
    order n of the signal extended by its boundary, valid on [lo, hi]
    (sample coordinates)."""
    n = order
    size = len(cols[0])
    pad = pole_window(n, 1e-17) + n + 2
    k_lo = min(int(np.floor(lo)) - pad, 0)
    k_hi = max(int(np.ceil(hi)) + pad + 1, size)
    k = np.arange(k_lo, k_hi)
    ext = np.stack([extend(s, boundary, fill, k) for s, boundary, fill in
                    zip(cols, boundaries, fills)], axis=1)
    m = n // 2
    if m == 0:
        c = ext
    else:
        v = sampled_bspline(n)
        ab = np.repeat(v[::-1, None], len(ext), axis=1)
        c = scipy.linalg.solve_banded((m, m), ab, ext)
    knots = k_lo - (n + 1) / 2 + np.arange(len(ext) + n + 1)
    return BSpline(knots, c, n, extrapolate=False)


def clenshaw_curtis(N):
    """The N + 1 Clenshaw-Curtis nodes on [0, 1] and their weights (exact
    for polynomials of degree <= N)."""
    k = np.arange(N + 1)
    j = np.arange(1, N // 2 + 1)
    b = np.where(2 * j == N, 1.0, 2.0) / (4.0 * j * j - 1.0)
    w = 1.0 - (b[None, :] * np.cos(2.0 * np.pi * np.outer(k, j) / N)).sum(1)
    w *= np.where((k == 0) | (k == N), 1.0, 2.0) / N
    return (1.0 - np.cos(np.pi * k / N)) / 2.0, w / 2.0


def lsq_reference(cols, boundaries, fills, order, scale, offset, n_out,
                  solver="normal"):
    """Least-squares reduction of each signal by |scale| (see above):
    (n_out, len(cols))."""
    n = order
    T = abs(scale)
    centres = scale * (np.arange(n_out) + 0.5) + offset - 0.5
    x_first = min(centres[0], centres[-1])
    M = pole_window(2 * n + 1, LSQ_WINDOW) + n + 3
    L = n_out + 2 * M
    # knots of L + 2n basis functions; the fit uses the middle L, whose
    # supports cover [X0, X1] = the base interval of the whole set
    knots = x_first + T * (np.arange(-M - n, M + n_out + 2 * n + 1)
                           - (n + 1) / 2)
    X0, X1 = knots[n], knots[L + 2 * n]
    f = extended_spline(cols, boundaries, fills, n, X0, X1)
    c0 = ((n + 1) / 2) % 1.0
    fine = np.arange(np.ceil(X0 - c0), np.floor(X1 - c0) + 1) + c0
    cuts = np.unique(np.concatenate([fine[(fine > X0) & (fine < X1)],
                                     knots[n:L + 2 * n + 1]]))
    cuts = cuts[np.concatenate([[True], np.diff(cuts) > 1e-9])]
    cuts[-1] = X1
    a, b = cuts[:-1], cuts[1:]
    if n == 0:
        u, w = np.array([0.5]), np.array([1.0])
    else:
        u, w = clenshaw_curtis(2 * n)
    x = (a[:, None] + (b - a)[:, None] * u[None, :]).ravel()
    wx = ((b - a)[:, None] * w[None, :]).ravel()
    fx = f(x)
    A = BSpline.design_matrix(x, knots, n).tocsc()[:, n:n + L]
    if solver == "normal":
        AW = A.T.multiply(wx[None, :]).tocsr()
        d = scipy.linalg.solve((AW @ A).toarray(), AW @ fx, assume_a="pos")
    else:
        sw = np.sqrt(wx)[:, None]
        d = np.linalg.lstsq(A.toarray() * sw, fx * sw, rcond=None)[0]
    coef = np.zeros((L + 2 * n, len(cols)))
    coef[n:n + L] = d
    return BSpline(knots, coef, n, extrapolate=False)(centres)


def axis_reference(cols, boundaries, fills, order, scale, offset, n_out):
    """One axis of the separable path: the least-squares reduction where it
    shrinks, else the interpolant at the output centres."""
    if abs(scale) > 1.0 + 1e-9:
        return lsq_reference(cols, boundaries, fills, order, scale, offset,
                             n_out)
    centres = scale * (np.arange(n_out) + 0.5) + offset - 0.5
    return extended_spline(cols, boundaries, fills, order, centres.min(),
                           centres.max())(centres)


def area_average(s, boundary, fill, scale, offset, n_out):
    """Order 0 exactly: the mean of the extended samples (nearest-neighbour
    f) over [x_j - T/2, x_j + T/2]."""
    T = abs(scale)
    centres = scale * (np.arange(n_out) + 0.5) + offset - 0.5
    lo, hi = centres - T / 2, centres + T / 2
    k = np.arange(int(np.floor(lo.min())) - 1, int(np.ceil(hi.max())) + 2)
    ext = extend(s, boundary, fill, k)
    overlap = np.clip(np.minimum(hi[:, None], k + 0.5)
                      - np.maximum(lo[:, None], k - 0.5), 0.0, None)
    return overlap @ ext / T


def lsq_geometry(rng, name):
    """(n_in, n_out, scale, offset) of a ratio case: frames that fit
    (offset 0), but 1.37 with an offset and -2, a flip."""
    if name == "1.37":
        n_in = int(rng.integers(6, 41))
        offset = rng.choice([-1.0, 1.0]) * rng.uniform(0.2, 3.0)
        return n_in, max(1, int(round(n_in / 1.37))), 1.37, offset
    if name == "1.5":
        k = int(rng.integers(2, 11))
        return 3 * k, 2 * k, 1.5, 0.0
    if name == "-2":
        n_out = int(rng.integers(2, 16))
        return 2 * n_out, n_out, -2.0, 2.0 * n_out
    T = int(name)
    n_out = int(rng.integers(1, 40 // T))
    return T * n_out, n_out, float(T), 0.0


def random_signal(rng, n):
    level = rng.uniform(-1, 1)
    return rng.uniform(level - 1, level + 1, n), float(
        rng.uniform(level - 1.5, level + 1.5))


def core_axis(core, col, params, scale, offset, n_out, axis):
    """The core on a 1-row (axis 0: x reduced) or 1-column (axis 1: y
    reduced) image."""
    if axis == 0:
        m = np.array([[scale, 0.0, offset], [0.0, 1.0, 0.0], [0, 0, 1.0]])
        return core.execute(col[None, :].copy(), params, m, n_out, 1)[0, :, 0]
    m = np.array([[1.0, 0.0, 0.0], [0.0, scale, offset], [0, 0, 1.0]])
    return core.execute(col[:, None].copy(), params, m, 1, n_out)[:, 0, 0]


def rel_error(ours, ref, rng_of):
    """max |ours - ref| / rng_of and where; also the max over the two
    outputs at each end and over the others."""
    err = np.abs(ours - ref)
    err[np.isnan(err)] = np.inf
    err /= rng_of
    i = int(np.argmax(err))
    edge = np.zeros(len(err), bool)
    edge[:2] = edge[-2:] = True
    return err[i], i, err[edge].max(), err[~edge].max(initial=0.0)


def check_reduction_1d(core, rng, failures, stats):
    """Every order x ratio x boundary, double and float, on a 1-row image
    (x reduced) or a 1-column one (y reduced), the two alternating (a plan
    of order 11 takes 0.1 s to make); order 0 also against the exact area
    average."""
    for order in LSQ_ORDERS:
        for r, name in enumerate(LSQ_RATIOS):
            n_in, n_out, scale, offset = lsq_geometry(rng, name)
            sig = [random_signal(rng, n_in) for _ in BOUNDARIES]
            cols = [s for s, _ in sig]
            fills = [fv for _, fv in sig]
            ref = lsq_reference(cols, BOUNDARIES, fills, order, scale,
                                offset, n_out)
            for b, boundary in enumerate(BOUNDARIES):
                col, fill = cols[b], fills[b]
                rng_of = signal_range(col, boundary, [fill])
                axis = (r + b) % 2
                desc = ("order %d ratio %s (%d -> %d, scale %g, offset "
                        "%.17g) %s, %s image" % (
                            order, name, n_in, n_out, scale, offset,
                            boundary, "1-row" if axis == 0 else "1-column"))
                for prec, bound in (
                        (PRECISION_DOUBLE, LSQ_BOUND_DOUBLE),
                        (PRECISION_FLOAT, LSQ_BOUND_FLOAT[order])):
                    params = core.params(order, boundary, [fill],
                                         ANTIALIAS_LEAST_SQUARES, prec)
                    ours = core_axis(core, col, params, scale, offset, n_out,
                                     axis)
                    err, j, edge, inside = rel_error(ours, ref[:, b], rng_of)
                    if not err <= bound:
                        failures.append(
                            "least squares %s, %s: error %.3g of the range "
                            "at output %d of %d: ours %.17g, reference "
                            "%.17g (bound %.0e)" % (
                                desc, "double" if prec else "float", err, j,
                                n_out, ours[j], ref[j, b], bound))
                    stats[(prec, order, name, boundary)] = err
                    for key, v in (((prec, order, "edge"), edge),
                                   ((prec, order, "inside"), inside)):
                        stats[key] = max(stats.get(key, 0.0), v)
                if order == 0:
                    exact = area_average(col, boundary, fill, scale, offset,
                                         n_out)
                    params = core.params(0, boundary, [fill],
                                         ANTIALIAS_LEAST_SQUARES)
                    ours = core_axis(core, col, params, scale, offset, n_out,
                                     axis)
                    err, j = rel_error(ours, exact, rng_of)[:2]
                    stats["area"] = max(stats.get("area", 0.0), err)
                    stats["area ref"] = max(stats.get("area ref", 0.0),
                                            rel_error(ref[:, b], exact,
                                                      rng_of)[0])
                    if not err <= LSQ_BOUND_AREA:
                        failures.append(
                            "order 0 area average %s: error %.3g of the "
                            "range at output %d: ours %.17g, exact %.17g"
                            % (desc, err, j, ours[j], exact[j]))


# 2-D separable cases: (sx, ox, sy, oy) drawn per order, cycling through
# both axes reduced, x reduced with y enlarged, x shifted with y reduced
def lsq_geometry_2d(rng, k):
    if k % 3 == 0:
        w, h = int(rng.integers(8, 30)), 2 * int(rng.integers(2, 10))
        ox = rng.uniform(-2, 2)
        return w, h, max(1, int(round(w / 1.37))), h // 2, 1.37, ox, 2.0, 0.0
    if k % 3 == 1:
        w, h = 2 * int(rng.integers(2, 12)), int(rng.integers(3, 12))
        h_out = int(np.ceil(h / 0.75))
        return w, h, w // 2, h_out, 2.0, 0.0, 0.75, rng.uniform(-1, 1)
    w, h = int(rng.integers(3, 20)), 3 * int(rng.integers(2, 8))
    return w, h, w, h // 3, 1.0, 0.4, 3.0, 0.0


def check_reduction_2d(core, rng, failures, table):
    for k, order in enumerate(LSQ_ORDERS):
        w, h, w_out, h_out, sx, ox, sy, oy = lsq_geometry_2d(rng, k)
        boundary = BOUNDARIES[k % len(BOUNDARIES)]
        level = rng.uniform(-1, 1)
        src = rng.uniform(level - 1, level + 1, (h, w, 2))
        fill = list(rng.uniform(level - 1.5, level + 1.5, 2))
        # x: every row of each channel, then y: every column
        rows = [src[i, :, c] for c in range(2) for i in range(h)]
        mid = axis_reference(rows, [boundary] * len(rows),
                             [fill[c] for c in range(2) for i in range(h)],
                             order, sx, ox, w_out)   # (w_out, 2 h)
        mid = mid.T.reshape(2, h, w_out)
        cols = [mid[c, :, j] for c in range(2) for j in range(w_out)]
        ref = axis_reference(cols, [boundary] * len(cols),
                             [fill[c] for c in range(2)
                              for j in range(w_out)],
                             order, sy, oy, h_out)   # (h_out, 2 w_out)
        ref = ref.reshape(h_out, 2, w_out).transpose(0, 2, 1)
        m = np.array([[sx, 0.0, ox], [0.0, sy, oy], [0.0, 0.0, 1.0]])
        rng_of = signal_range(src, boundary, fill)
        for prec, bound in ((PRECISION_DOUBLE, LSQ_BOUND_DOUBLE),
                            (PRECISION_FLOAT, LSQ_BOUND_FLOAT[order])):
            params = core.params(order, boundary, fill,
                                 ANTIALIAS_LEAST_SQUARES, prec)
            ours = core.execute(np.ascontiguousarray(src), params, m, w_out,
                                h_out)
            err = np.abs(ours - ref)
            err[np.isnan(err)] = np.inf
            err = err.max() / rng_of
            table[(order, prec)] = err
            if not err <= bound:
                failures.append(
                    "least squares 2-D, order %d %s %s: %dx%d -> %dx%d, x "
                    "scale %g offset %.17g, y scale %g offset %.17g: error "
                    "%.3g of the range (bound %.0e)" % (
                        order, boundary, "double" if prec else "float", w, h,
                        w_out, h_out, sx, ox, sy, oy, err, bound))


def check_scale_one(core, rng, failures):
    """|scale| <= 1 with antialias least-squares: the very same output as
    plain interpolation (bit for bit), the identity at scale 1 offset 0;
    the shifted and enlarged ones against the interpolation reference."""
    worst_id, worst_ref = 0.0, 0.0
    for order in LSQ_ORDERS:
        for boundary in BOUNDARIES:
            w, h = (int(v) for v in rng.integers(1, 13, 2))
            level = rng.uniform(-1, 1)
            src = rng.uniform(level - 1, level + 1, (h, w))
            fill = [float(rng.uniform(level - 1.5, level + 1.5))]
            rng_of = signal_range(src, boundary, fill)
            ox, oy = rng.uniform(-3, 3, 2)
            s = rng.uniform(0.5, 1.0)
            for label, m, w_out, h_out in (
                    ("identity", np.eye(3), w, h),
                    ("shift", np.array([[1.0, 0, ox], [0, 1.0, oy],
                                        [0, 0, 1]]), w, h),
                    ("enlarge x, shift y", np.array(
                        [[s, 0, ox], [0, 1.0, oy], [0, 0, 1]]),
                     int(np.ceil(w / s)), h)):
                outs = {}
                for prec in (PRECISION_DOUBLE, PRECISION_FLOAT):
                    for aa in (ANTIALIAS_NONE, ANTIALIAS_LEAST_SQUARES):
                        params = core.params(order, boundary, fill, aa, prec)
                        outs[(prec, aa)] = core.execute(
                            src, params, m, w_out, h_out)[:, :, 0]
                    if not np.array_equal(outs[(prec, 0)], outs[(prec, 1)]):
                        failures.append(
                            "%s, order %d %s %s %dx%d: least squares differs "
                            "from plain interpolation by %.3g" % (
                                label, order, boundary,
                                "double" if prec else "float", w, h,
                                np.abs(outs[(prec, 0)]
                                       - outs[(prec, 1)]).max()))
                ours = outs[(PRECISION_DOUBLE, ANTIALIAS_LEAST_SQUARES)]
                if label == "identity":
                    err = np.abs(ours - src).max() / rng_of
                    worst_id = max(worst_id, err)
                else:
                    mid = axis_reference(
                        list(src), [boundary] * h, fill * h, order,
                        m[0, 0], m[0, 2], w_out).T
                    ref = axis_reference(
                        list(mid.T), [boundary] * w_out, fill * w_out,
                        order, m[1, 1], m[1, 2], h_out)
                    err = np.abs(ours - ref).max() / rng_of
                    worst_ref = max(worst_ref, err)
                if not err <= LSQ_BOUND_IDENTITY:
                    failures.append(
                        "%s, order %d %s %dx%d (offset %.17g, %.17g, x "
                        "scale %.17g): error %.3g of the range" % (
                            label, order, boundary, w, h, ox, oy, s, err))
    return worst_id, worst_ref


def check_reference(rng, failures):
    """The reference's own parts: f against map_coordinates (orders 0-5,
    from 2 samples but 24 for reflect, whose prefilter in scipy is not
    exact on short lines), at points up to 3 lengths + 8 samples before and
    8 after the signal (the reference's window is then lopsided); lstsq
    against the normal equations."""
    worst_f = 0.0
    for order in range(6):
        for boundary in BOUNDARIES:
            size = int(rng.integers(24 if boundary == "reflect" else 2, 41))
            s, fill = random_signal(rng, size)
            lo, hi = -3 * size - 8, size + 8
            x = rng.uniform(lo, hi, 300)
            ours = extended_spline([s], [boundary], [fill], order, lo,
                                   hi)(x)[:, 0]
            xy = np.stack([x + 0.5, np.full_like(x, 12.5)], axis=1)
            ref = scipy_values(np.repeat(s[None, :], 25, axis=0), order,
                               boundary, fill, xy)
            err = np.abs(ours - ref).max() / signal_range(s, boundary,
                                                           [fill])
            worst_f = max(worst_f, err)
            if not err <= 1e-11:
                failures.append("reference f, order %d %s: %.3g from "
                                "map_coordinates" % (order, boundary, err))
    worst_solver = 0.0
    for order, name in ((0, "1.37"), (1, "3"), (2, "1.5"), (3, "-2"),
                        (5, "1.37"), (11, "1.5")):
        n_in, n_out, scale, offset = lsq_geometry(rng, name)
        sig = [random_signal(rng, n_in) for _ in BOUNDARIES]
        args = ([s for s, _ in sig], BOUNDARIES, [fv for _, fv in sig],
                order, scale, offset, n_out)
        rng_of = np.array([signal_range(s, b, [fv]) for (s, fv), b in
                           zip(sig, BOUNDARIES)])
        err = (np.abs(lsq_reference(*args) - lsq_reference(
            *args, solver="lstsq")) / rng_of).max()
        worst_solver = max(worst_solver, err)
        if not err <= 1e-11:
            failures.append("reference, order %d ratio %s: lstsq and the "
                            "normal equations differ by %.3g" % (
                                order, name, err))
    return worst_f, worst_solver


def report_reduction(stats, table2d, worst_id, worst_ref, worst_f,
                     worst_solver):
    print("least-squares reduction vs the dense reference: max |ours - "
          "reference| / signal range (1-row and 1-column images), bounds "
          "%.0e (double), %s (float)" % (
              LSQ_BOUND_DOUBLE, ", ".join("%d: %.0e" % kv for kv in
                                          sorted(LSQ_BOUND_FLOAT.items()))))
    for prec in (PRECISION_DOUBLE, PRECISION_FLOAT):
        label = "double" if prec else "float"
        print("%s, by ratio (worst boundary):" % label)
        print("%5s" % "order" + "".join("%10s" % r for r in LSQ_RATIOS))
        for order in LSQ_ORDERS:
            print("%5d" % order + "".join("%10.2e" % max(
                stats[(prec, order, r, b)] for b in BOUNDARIES)
                for r in LSQ_RATIOS))
        print("%s, by boundary (worst ratio):" % label)
        print("%5s" % "order" + "".join("%10s" % b for b in BOUNDARIES))
        for order in LSQ_ORDERS:
            print("%5d" % order + "".join("%10.2e" % max(
                stats[(prec, order, r, b)] for r in LSQ_RATIOS)
                for b in BOUNDARIES))
    print("double, at the 2 outputs of each end / the others: " + ", ".join(
        "%d: %.1e / %.1e" % (o, stats[(PRECISION_DOUBLE, o, "edge")],
                             stats[(PRECISION_DOUBLE, o, "inside")])
        for o in LSQ_ORDERS))
    print("order 0 against the exact area average: ours %.2e, reference "
          "%.2e" % (stats["area"], stats["area ref"]))
    print("2-D separable (double / float): " + ", ".join(
        "order %d %.1e / %.1e" % (o, table2d[(o, PRECISION_DOUBLE)],
                                  table2d[(o, PRECISION_FLOAT)])
        for o in LSQ_ORDERS))
    print("scale 1 and enlargement with least squares: bit-identical to "
          "plain interpolation; identity %.1e, shift/enlarge vs reference "
          "%.1e" % (worst_id, worst_ref))
    print("reference self-checks: f vs map_coordinates %.1e, normal "
          "equations vs lstsq %.1e" % (worst_f, worst_solver))


def check_least_squares(core, seed, failures):
    """Runs the checks of the least-squares reduction (random numbers drawn
    from the run's seed and 1) and prints their tables; returns the number
    of failures."""
    rng = np.random.default_rng([seed, 1])
    start = len(failures)
    stats, table2d = {}, {}
    worst_f, worst_solver = check_reference(rng, failures)
    check_reduction_1d(core, rng, failures, stats)
    check_reduction_2d(core, rng, failures, table2d)
    worst_id, worst_ref = check_scale_one(core, rng, failures)
    report_reduction(stats, table2d, worst_id, worst_ref, worst_f,
                     worst_solver)
    return len(failures) - start


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

    lsq_failures = check_least_squares(core, seed, failures)
    for f in failures[:40]:
        print("FAIL [seed %d] %s" % (seed, f))
    worst = max(table.values())
    print("test_scipy: %s: map_coordinates oracle, orders 0-5 x 5 "
          "boundaries on random, ascent and face (3 channels) images plus "
          "rotation plans on ascent: max error %.3g of the signal range "
          "(bound %.0e); least-squares reduction against the dense "
          "reference, orders %s x ratios %s x 5 boundaries: %s%s" % (
              "FAILED" if failures else "ok", worst, BOUND,
              ", ".join(map(str, LSQ_ORDERS)), ", ".join(LSQ_RATIOS),
              "%d failures" % lsq_failures if lsq_failures else "ok",
              " [%d failures, seed %d: BSPLINE_TEST_SEED=%d repeats]" % (
                  len(failures), seed, seed) if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
