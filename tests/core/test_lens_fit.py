#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bspline_lens_fit (core/lens/lens-fit.c) against OpenCV 4.10 itself:
cv2.getOptimalNewCameraMatrix (brown, centerPrincipalPoint=False) and
cv2.fisheye.estimateNewCameraMatrixForUndistortRectify (R = identity,
fov_scale = 1), the calls the element's lens-fit property mirrors.

Usage: test_lens_fit.py LIBBSPLINE_CORE.so

The reference is opencv-python-headless 4.10 in the tests' own
environment: BSPLINE_CV_PYTHON names its interpreter; unset, the project's
venv <repo root>/.venv/bin/python3 is used where it exists.  The script
re-executes itself under that interpreter; with none, or with no cv2 (or
another minor version than 4.10: other versions sample other grids, see
docs/notes/lens-fit.md), it runs the checks that need no OpenCV (bad
input) and exits 77 (skipped) with a message.

Checked:
 - fixed calibrations: OpenCV's tutorial camera
   (samples/cpp/tutorial_code/calib3d/camera_calibration/out_camera_data.yml)
   and representative ones (a mild webcam barrel, a GoPro-like wide lens
   with k1-k3 and tangential terms, a rational k1-k6 lens, a thin-prism
   one), and OpenCV's fisheye test camera (modules/calib3d/test/
   test_fisheye.cpp, 1280x800); alpha 0, 1 and in between; new size equal
   to the image size, half of it, larger, and of another aspect;
 - random calibrations (seeded; BSPLINE_TEST_SEED repeats a run): equal
   to OpenCV where the model reaches every point OpenCV undistorts, a
   refusal where it folds before one (told apart by model_reaches, a
   dense scan independent of the C code);
 - bad input, OpenCV's 1920x1080 fisheye test camera among it (FULLHD:
   OpenCV builds its matrix from points it mirrors; lens-fit refuses):
   the error and its message.

Bound: |ours - OpenCV| <= 1e-12 * max(1, |OpenCV|) on each of fx, fy, cx,
cy (measured on x86-64: 0, the same operations in the same order; the
core is C99 without -ffast-math, so nothing is contracted or reordered;
the margin is for builds that contract a * b + c into an FMA).  Also
printed, for the notes: how far OpenCV's matrix (from its 5 fixed-point
undistortion steps) is from the one a converged undistortion gives.
"""
import ctypes
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
REEXEC = "BSPLINE_LENS_FIT_REEXEC"
SKIP = 77
BOUND = 1e-12

BROWN = 1
FISHEYE = 2

# name: (model, (fx, fy, cx, cy), coefficients (OpenCV order), (w, h))
CALIBRATIONS = {
    # OpenCV's tutorial calibration (a 640x480 webcam, strong barrel)
    "opencv-tutorial": (BROWN, (657.46697810243404, 657.46697810243404,
                                319.5, 239.5),
                        (-0.41802327018241026, 0.50715243805833121, 0., 0.,
                         -0.57843596847939704), (640, 480)),
    "webcam-mild": (BROWN, (1395.2, 1397.8, 958.7, 541.3),
                    (-0.102, 0.0631, 0.00041, -0.00023), (1920, 1080)),
    "gopro-like": (BROWN, (1150.3, 1148.9, 962.1, 538.4),
                   (-0.28, 0.09, 0.0008, -0.0005, -0.014), (1920, 1080)),
    # numerator and denominator of similar size, as RGB-D cameras'
    # factory rational calibrations have them
    "rational": (BROWN, (605.8, 605.7, 637.8, 367.6),
                 (0.47, -2.67, 0.00063, -0.00024, 1.59, 0.35, -2.50, 1.52),
                 (1280, 720)),
    "thin-prism": (BROWN, (820.4, 819.6, 327.9, 243.1),
                   (-0.21, 0.06, 0.0012, -0.0009, -0.008, 0., 0., 0.,
                    0.0021, -0.0007, 0.0016, 0.0004), (640, 480)),
    # modules/calib3d/test/test_fisheye.cpp: fisheyeTest::K, D, imageSize
    "fisheye-opencv-test": (FISHEYE, (558.478087865323, 560.506767351568,
                                      620.458515360843, 381.939424848348),
                            (-0.0014613319981768, -0.00329861110580401,
                             0.00605760088590183, -0.00374209380722371),
                            (1280, 800)),
}
# The same file, TEST_F(fisheyeTest,
# estimateNewCameraMatrixForUndistortRectify): a lens wider than the
# model's 180 degrees.  Its frame's left and right edge midpoints lie at
# distorted radius 1.65 and 1.55, beyond theta_d (pi / 2) = 1.414, the
# largest the model reaches: OpenCV's undistortPoints solves them to
# theta > pi / 2 and returns them mirrored through the centre (x = +5.83
# and -6.43) and builds its matrix from them (4.10, balance 0: fx 387.51,
# cx 1033.94, 42 px off the principal point, where the mirrored points
# moved their centre of mass).
# lens-fit refuses the camera instead (issue 22: a model that folds over
# inside the frame is an error that says where).
FULLHD = (FISHEYE, (600.44477382, 578.99298055, 992.06425788,
                    549.26826242),
          (-0.05090103223466704, 0.030944413642173308,
           -0.021509225493198905, 0.0043378096628297145), (1920, 1080))


def cv_python():
    """(the interpreter that has the reference OpenCV or None, why not)"""
    env = os.environ.get("BSPLINE_CV_PYTHON")
    venv = os.path.join(ROOT, ".venv", "bin", "python3")
    if env:
        if os.access(env, os.X_OK):
            return env, None
        return None, "BSPLINE_CV_PYTHON=%s is not an executable" % env
    if os.access(venv, os.X_OK):
        return venv, None
    return None, "BSPLINE_CV_PYTHON is unset and there is no %s" % venv


class Core:
    def __init__(self, path):
        lib = ctypes.CDLL(path)
        f = lib.bspline_lens_fit
        f.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_double),
                      ctypes.POINTER(ctypes.c_double), ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                      ctypes.c_double, ctypes.POINTER(ctypes.c_double),
                      ctypes.c_char_p, ctypes.c_size_t]
        f.restype = ctypes.c_int
        self.f = f

    def fit(self, model, camera, coeffs, size, new_size, alpha):
        """(status, (fx, fy, cx, cy), message)"""
        cam = (ctypes.c_double * 4)(*camera)
        k = (ctypes.c_double * max(1, len(coeffs)))(*coeffs)
        out = (ctypes.c_double * 4)(*([float("nan")] * 4))
        msg = ctypes.create_string_buffer(512)
        st = self.f(model, cam, k, len(coeffs), size[0], size[1],
                    new_size[0], new_size[1], alpha, out, msg, len(msg))
        return st, tuple(out), msg.value.decode()


def opencv_fit(cv2, np, model, camera, coeffs, size, new_size, alpha):
    fx, fy, cx, cy = camera
    K = np.array([[fx, 0., cx], [0., fy, cy], [0., 0., 1.]])
    if model == BROWN:
        M, _ = cv2.getOptimalNewCameraMatrix(
            K, np.array(coeffs, dtype=np.float64), size, alpha, new_size,
            centerPrincipalPoint=False)
    else:
        M = cv2.fisheye.estimateNewCameraMatrixForUndistortRectify(
            K, np.array(coeffs, dtype=np.float64).reshape(4, 1), size,
            np.eye(3), balance=alpha, new_size=new_size, fov_scale=1.0)
    return (M[0, 0], M[1, 1], M[0, 2], M[1, 2])


def converged_brown(np, camera, coeffs, size, new_size, alpha):
    """getOptimalNewCameraMatrix's construction with each grid point
    undistorted to convergence (Newton on the whole map) instead of 5
    fixed-point steps: only printed, to say what those steps cost."""
    fx, fy, cx, cy = camera
    k = list(coeffs) + [0.] * (12 - len(coeffs))
    w, h = size

    def distort(x, y):
        r2 = x * x + y * y
        R = ((1 + r2 * (k[0] + r2 * (k[1] + r2 * k[4]))) /
             (1 + r2 * (k[5] + r2 * (k[6] + r2 * k[7]))))
        return (x * R + 2 * k[2] * x * y + k[3] * (r2 + 2 * x * x) +
                k[8] * r2 + k[9] * r2 * r2,
                y * R + k[2] * (r2 + 2 * y * y) + 2 * k[3] * x * y +
                k[10] * r2 + k[11] * r2 * r2)

    def undistort(u, v):
        qx, qy = (u - cx) / fx, (v - cy) / fy
        x, y = qx, qy
        for _ in range(100):
            dx, dy = distort(x, y)
            e = 1e-7
            ax, ay = distort(x + e, y)
            bx, by = distort(x, y + e)
            J = np.array([[(ax - dx) / e, (bx - dx) / e],
                          [(ay - dy) / e, (by - dy) / e]])
            step = np.linalg.solve(J, [dx - qx, dy - qy])
            x, y = x - step[0], y - step[1]
            if abs(step[0]) + abs(step[1]) < 1e-15:
                break
        return x, y

    n = 9
    pts = [(gx, gy) + undistort(gx * (w - 1) / (n - 1), gy * (h - 1) / (n - 1))
           for gy in range(n) for gx in range(n)]
    ix0 = max(p[2] for p in pts if p[0] == 0)
    ix1 = min(p[2] for p in pts if p[0] == n - 1)
    iy0 = max(p[3] for p in pts if p[1] == 0)
    iy1 = min(p[3] for p in pts if p[1] == n - 1)
    ox0, ox1 = min(p[2] for p in pts), max(p[2] for p in pts)
    oy0, oy1 = min(p[3] for p in pts), max(p[3] for p in pts)
    nw, nh = new_size
    f0 = ((nw - 1) / (ix1 - ix0), (nh - 1) / (iy1 - iy0))
    f1 = ((nw - 1) / (ox1 - ox0), (nh - 1) / (oy1 - oy0))
    return (f0[0] * (1 - alpha) + f1[0] * alpha,
            f0[1] * (1 - alpha) + f1[1] * alpha,
            -f0[0] * ix0 * (1 - alpha) - f1[0] * ox0 * alpha,
            -f0[1] * iy0 * (1 - alpha) - f1[1] * oy0 * alpha)


def worst_error(ours, ref):
    return max(abs(a - b) / max(1.0, abs(b)) for a, b in zip(ours, ref))


def check_without_opencv(core, failures):
    """Bad input: status 1 and a message that says what."""
    nan, inf = float("nan"), float("inf")
    tut = CALIBRATIONS["opencv-tutorial"]
    fish = CALIBRATIONS["fisheye-opencv-test"]
    bad = [
        ("NaN fx", (BROWN, (nan,) + tut[1][1:], tut[2], tut[3], tut[3], 0.),
         "finite"),
        ("infinite cy", (BROWN, tut[1][:3] + (inf,), tut[2], tut[3], tut[3],
                         0.), "finite"),
        ("fx 0", (BROWN, (0.,) + tut[1][1:], tut[2], tut[3], tut[3], 0.),
         "positive"),
        ("fy < 0", (FISHEYE, fish[1][:1] + (-1.,) + fish[1][2:], fish[2],
                    fish[3], fish[3], 0.), "positive"),
        ("NaN k2", (BROWN, tut[1], (0.1, nan), tut[3], tut[3], 0.),
         "coefficient 2"),
        ("13 coefficients", (BROWN, tut[1], (0.,) * 13, tut[3], tut[3], 0.),
         "at most 12"),
        ("5 fisheye coefficients", (FISHEYE, fish[1], (0.,) * 5, fish[3],
                                    fish[3], 0.), "at most 4"),
        ("width 0", (BROWN, tut[1], tut[2], (0, 480), tut[3], 0.),
         "positive"),
        ("new height 0", (FISHEYE, fish[1], fish[2], fish[3], (640, 0), 1.),
         "positive"),
        ("NaN alpha", (BROWN, tut[1], tut[2], tut[3], tut[3], nan),
         "alpha"),
        ("model none", (0, tut[1], (), tut[3], tut[3], 0.), "lens model"),
        ("new width 1", (BROWN, tut[1], tut[2], tut[3], (1, 480), 0.),
         "positive"),
        # a wide lens whose brown fit folds over before the frame's
        # corners (r R(r^2) peaks at r = 1.27, the corner needs 1.25 distorted)
        ("folding brown", (BROWN, (880., 880., 960., 540.),
                           (-0.30, 0.10, 0.001, -0.001, -0.015),
                           (1920, 1080), (1920, 1080), 1.), "folds over"),
        # a circular fisheye: the frame's left and right edges lie beyond
        # the model's 180 degrees
        ("fisheye beyond 180 degrees", (FISHEYE, (300., 300., 960., 540.),
                                        (0., 0., 0., 0.), (1920, 1080),
                                        (1920, 1080), 0.), "180-degree"),
        ("OpenCV's fullhd fisheye", FULLHD[:3] + (FULLHD[3], FULLHD[3], 0.),
         "(1920.0, 540.0)"),
    ]
    for name, args, words in bad:
        st, got, msg = core.fit(*args)
        print("bad input %-28s -> %d: %s" % (name, st, msg))
        if st != 1 or words not in msg:
            failures.append("bad input %s: status %d, message %r (wanted "
                            "status 1 and %r)" % (name, st, msg, words))
    # a NULL message buffer must be accepted
    cam = (ctypes.c_double * 4)(0., 1., 2., 3.)
    out = (ctypes.c_double * 4)()
    if core.f(BROWN, cam, None, 0, 640, 480, 640, 480, 0., out, None, 0) != 1:
        failures.append("fx 0 with msg NULL did not fail with status 1")


def new_sizes(size):
    w, h = size
    return [size, (w // 2, h // 2), (w * 3 // 2 + 1, h * 3 // 2 + 1),
            (w, w * 9 // 16 if w * 9 // 16 != h else h * 3 // 4)]


def check_fixed(core, cv2, np, failures):
    worst = 0.0
    print("%-20s %5s %11s %9s  %-44s %s" % (
        "calibration", "alpha", "new size", "max err", "OpenCV fx fy cx cy",
        "converged-undistortion variant - OpenCV (px)"))
    for name, (model, camera, coeffs, size) in CALIBRATIONS.items():
        for new_size in new_sizes(size):
            for alpha in (0.0, 1.0, 0.25):
                ref = opencv_fit(cv2, np, model, camera, coeffs, size,
                                 new_size, alpha)
                st, got, msg = core.fit(model, camera, coeffs, size,
                                        new_size, alpha)
                err = worst_error(got, ref) if st == 0 else float("inf")
                worst = max(worst, err)
                extra = ""
                if model == BROWN and new_size == size and alpha in (0., 1.):
                    conv = converged_brown(np, camera, coeffs, size,
                                           new_size, alpha)
                    extra = " ".join("%+.2g" % (a - b)
                                     for a, b in zip(conv, ref))
                print("%-20s %5.2f %5dx%-5d %9.2g  %-44s %s" % (
                    name, alpha, new_size[0], new_size[1], err,
                    " ".join("%.6f" % v for v in ref), extra))
                if not err <= BOUND:
                    failures.append("%s alpha %g new size %s: ours %s, "
                                    "OpenCV %s (%s)" % (
                                        name, alpha, new_size, got, ref, msg))
    return worst


def check_fullhd_in_opencv(cv2, np, failures):
    """What the refusal of FULLHD stands on: OpenCV undistorts its left and
    right edge midpoints to the wrong sides."""
    model, camera, coeffs, size = FULLHD
    ref = opencv_fit(cv2, np, model, camera, coeffs, size, size, 0.0)
    fx, fy, cx, cy = camera
    K = np.array([[fx, 0., cx], [0., fy, cy], [0., 0., 1.]])
    w, h = size
    mid = np.array([[[w // 2, 0], [w, h // 2], [w // 2, h], [0, h // 2]]],
                   dtype=np.float64)
    und = cv2.fisheye.undistortPoints(mid, K, np.array(coeffs).reshape(4, 1),
                                      R=np.eye(3))[0]
    print("OpenCV's fullhd fisheye: K_new %s, from edge midpoints "
          "undistorted to %s" % (" ".join("%.6f" % v for v in ref),
                                 " ".join("(%.3f, %.3f)" % tuple(p)
                                          for p in und)))
    if not und[1][0] < 0 < und[3][0]:
        failures.append("OpenCV's fullhd fisheye: OpenCV no longer mirrors "
                        "its edge midpoints; revisit the refusal")


def model_reaches(np, model, camera, coeffs, size):
    """Independent of the C code: the smallest margin (peak of the radial
    function before its first fold, or before theta = pi / 2, minus the
    distorted radius needed) over the points OpenCV undistorts; negative
    where lens-fit must refuse.  Also returns a band and a radius: the
    margin is radial only, and a brown model's tangential and thin-prism
    terms move a point by up to about the band; where the margin is
    inside the band, or where the radial function's slope comes within
    reach of those terms' own slope (a plateau, where they can fold the
    map in two dimensions), the radial scan decides nothing and the
    caller checks the map itself out to the radius."""
    fx, fy, cx, cy = camera
    w, h = size
    if model == BROWN:
        n = 9
        pts = [(gx * (w - 1) / (n - 1), gy * (h - 1) / (n - 1))
               for gy in range(n) for gx in range(n)]
        k = list(coeffs) + [0.] * (12 - len(coeffs))
        s = np.linspace(0., 20., 400001)[1:]
        r2 = s * s
        num = 1 + r2 * (k[0] + r2 * (k[1] + r2 * k[4]))
        den = 1 + r2 * (k[5] + r2 * (k[6] + r2 * k[7]))
        f = s * num / den
    else:
        pts = [(w // 2, 0), (w, h // 2), (w // 2, h), (0, h // 2)]
        k = list(coeffs) + [0.] * (4 - len(coeffs))
        s = np.linspace(0., np.pi / 2, 100001)[1:]
        t2 = s * s
        f = s * (1 + t2 * (k[0] + t2 * (k[1] + t2 * (k[2] + t2 * k[3]))))
        den = np.ones_like(s)
    slope = np.diff(f, prepend=0.)
    rises = (slope > 0) & (den > 0)
    end = len(s) if rises.all() else int(np.argmin(rises))
    peak = f[:end].max() if end > 0 else 0.
    rd = max(np.hypot((u - cx) / fx, (v - cy) / fy) for u, v in pts)
    band, radius = 1e-6, 0.
    if model == BROWN and end > 0:
        reach = f[:end] > rd
        i = int(np.argmax(reach)) if reach.any() else end - 1
        radius = 1.1 * s[i]
        r2 = radius * radius
        # displacement, then slope, of the tangential and prism terms
        band = ((3 * (abs(k[2]) + abs(k[3])) + abs(k[8]) + abs(k[10])) * r2
                + (abs(k[9]) + abs(k[11])) * r2 * r2 + 1e-6)
        radius += band
        inside = s <= radius
        tangential_slope = (6 * (abs(k[2]) + abs(k[3])) * radius
                            + 2 * (abs(k[8]) + abs(k[10])) * radius
                            + 4 * (abs(k[9]) + abs(k[11])) * radius ** 3)
        if (peak > rd and (slope[inside] / (s[1] - s[0])).min()
                <= tangential_slope):
            band = np.inf
    return peak - rd, band, radius


def brown_min_det(np, coeffs, radius):
    """The smallest Jacobian determinant of the whole brown map (radial,
    tangential, thin prism; central differences) on a polar grid over the
    disc of this radius: <= 0 where the map folds inside it."""
    k = list(coeffs) + [0.] * (12 - len(coeffs))

    def d(x, y):
        r2 = x * x + y * y
        rad = ((1 + r2 * (k[0] + r2 * (k[1] + r2 * k[4])))
               / (1 + r2 * (k[5] + r2 * (k[6] + r2 * k[7]))))
        return (x * rad + 2 * k[2] * x * y + k[3] * (r2 + 2 * x * x)
                + k[8] * r2 + k[9] * r2 * r2,
                y * rad + k[2] * (r2 + 2 * y * y) + 2 * k[3] * x * y
                + k[10] * r2 + k[11] * r2 * r2)
    r, a = np.meshgrid(np.linspace(0., radius, 2001)[1:],
                       np.linspace(0., 2 * np.pi, 1441)[:-1])
    x, y, e = r * np.cos(a), r * np.sin(a), 1e-7
    xp, yp = d(x + e, y)
    xm, ym = d(x - e, y)
    xq, yq = d(x, y + e)
    xn, yn = d(x, y - e)
    return float((((xp - xm) * (yq - yn) - (xq - xn) * (yp - ym))
                  / (4 * e * e)).min())


def brown_grid(np, camera, size, n):
    """The n x n grid of pixel positions that getOptimalNewCameraMatrix
    samples (OpenCV's convention), as OpenCV takes points, and the camera
    matrix."""
    fx, fy, cx, cy = camera
    w, h = size
    pts = np.array([[(gx * (w - 1) / (n - 1), gy * (h - 1) / (n - 1))
                     for gy in range(n) for gx in range(n)]], np.float64)
    return pts, np.array([[fx, 0., cx], [0., fy, cy], [0., 0., 1.]])


def opencv_inside_out(cv2, np, camera, coeffs, size):
    """Whether OpenCV's own undistortion of the 9 x 9 grid that
    getOptimalNewCameraMatrix samples (cv2.undistortPoints, its 5 default
    steps) leaves no inscribed rectangle: the left column's largest x not
    below the right column's smallest, or the same for the rows.  OpenCV
    then returns a degenerate matrix (fx near 0 or negative) where
    lens-fit refuses."""
    n = 9
    pts, K = brown_grid(np, camera, size, n)
    und = cv2.undistortPoints(pts, K, np.array(coeffs, np.float64))
    g = und[:, 0].reshape(n, n, 2)
    return not (g[:, -1, 0].min() - g[:, 0, 0].max() > 0
                and g[-1, :, 1].min() - g[0, :, 1].max() > 0)


def opencv_fisheye_fails(cv2, np, camera, coeffs, size):
    """Whether cv2.fisheye.undistortPoints (its default 10 Newton steps,
    as estimateNewCameraMatrixForUndistortRectify runs it) fails on one of
    the four edge midpoints that function samples: the point it returns,
    distorted again by cv2.fisheye.distortPoints, is not the point (1e-4
    pixels).  OpenCV then builds its matrix from garbage (fx near 0),
    where lens-fit refuses."""
    fx, fy, cx, cy = camera
    w, h = size
    K = np.array([[fx, 0., cx], [0., fy, cy], [0., 0., 1.]])
    D = np.array(coeffs, np.float64).reshape(4, 1)
    mid = np.array([[[w // 2, 0], [w, h // 2], [w // 2, h], [0, h // 2]]],
                   np.float64)
    und = cv2.fisheye.undistortPoints(mid, K, D)
    back = cv2.fisheye.distortPoints(und, K, D)
    return not float(np.abs(back - mid).max()) <= 1e-4


def opencv_round_trips(cv2, np, camera, coeffs, size):
    """Whether OpenCV's undistortPointsIter (200 steps), redistorted by OpenCV's
    projectPoints, gives back every point of the 9 x 9 grid model_reaches
    uses (to 1e-6 pixels): False where OpenCV's answer for some point is
    not a preimage, that is, where no undistortion of it exists near the
    one OpenCV found."""
    pts, K = brown_grid(np, camera, size, 9)
    D = np.array(coeffs, np.float64)
    und = cv2.undistortPointsIter(pts, K, D, None, None,
                                  (cv2.TERM_CRITERIA_COUNT
                                   | cv2.TERM_CRITERIA_EPS, 200, 1e-15))
    obj = np.concatenate([und[0], np.ones((und.shape[1], 1))], axis=1)
    back, _ = cv2.projectPoints(obj, np.zeros(3), np.zeros(3), K, D)
    return float(np.abs(back[:, 0] - pts[0]).max()) <= 1e-6


def random_calibration(rng):
    """A brown (70 %) or fisheye camera; some fold over inside the frame
    (check_random tells them apart independently)."""
    w, h = [(640, 480), (1280, 720), (1920, 1080), (3840, 2160),
            (1440, 1080), (800, 800)][rng.integers(6)]
    fisheye = rng.random() < 0.3
    f = rng.uniform(0.3, 1.2) if fisheye else rng.uniform(0.6, 2.5)
    f *= w / 2
    camera = (f * rng.uniform(0.98, 1.02), f * rng.uniform(0.98, 1.02),
              (w - 1) / 2 + rng.uniform(-0.04, 0.04) * w,
              (h - 1) / 2 + rng.uniform(-0.04, 0.04) * h)
    if fisheye:
        k = (rng.uniform(-0.1, 0.1), rng.uniform(-0.05, 0.05),
             rng.uniform(-0.02, 0.02), rng.uniform(-0.005, 0.005))
        return FISHEYE, camera, k, (w, h)
    k = [rng.uniform(-0.4, 0.15), rng.uniform(-0.1, 0.2),
         rng.uniform(-2e-3, 2e-3), rng.uniform(-2e-3, 2e-3),
         rng.uniform(-0.05, 0.05)]
    kind = rng.integers(3)
    if kind >= 1:
        k += [rng.uniform(-0.1, 0.1), rng.uniform(-0.02, 0.02),
              rng.uniform(-0.01, 0.01)]
    if kind == 2:
        k += list(rng.uniform(-2e-3, 2e-3, 4))
    return BROWN, camera, tuple(k), (w, h)


def check_random(core, cv2, np, seed, failures, n=300):
    """Random cameras: where the model reaches every point OpenCV
    undistorts (model_reaches), ours must equal OpenCV's; where it does
    not, ours must refuse.  Cases within 1e-6 of that boundary count
    neither way."""
    rng = np.random.default_rng([seed, 22])
    worst, compared, refused, ambiguous_refused, inside_out = 0., 0, 0, 0, 0
    for i in range(n):
        model, camera, coeffs, size = random_calibration(rng)
        new_size = new_sizes(size)[rng.integers(4)]
        alpha = float(rng.choice([0.0, 1.0, rng.random()]))
        margin, band, radius = model_reaches(np, model, camera, coeffs,
                                             size)
        st, got, msg = core.fit(model, camera, coeffs, size, new_size, alpha)
        case = ("random case %d (model %d, camera %s, coeffs %s, size %s, "
                "new size %s, alpha %g, margin %.3g, band %.3g)" % (
                    i, model, camera, coeffs, size, new_size, alpha, margin,
                    band))
        if abs(margin) < band:
            # Too close to the fold for the radial scan: a refusal must be
            # confirmed by OpenCV itself, an answer must equal OpenCV's.
            if st == 1:
                ambiguous_refused += 1
                if (opencv_round_trips(cv2, np, camera, coeffs, size)
                        and not (model == BROWN and brown_min_det(
                            np, coeffs, radius) <= 0)):
                    failures.append("%s: lens-fit refused (%s), but "
                                    "OpenCV undistorts every grid point "
                                    "and projects it back, and the map "
                                    "does not fold within radius %g" % (
                                        case, msg, radius))
                continue
            if st != 0:
                failures.append("%s: lens-fit gave status %d" % (case, st))
                continue
        elif margin < 0:
            refused += 1
            if st != 1:
                failures.append("%s: the model folds before a point OpenCV "
                                "undistorts, but lens-fit gave %s" % (case,
                                                                      got))
            continue
        if st == 1 and (
                opencv_inside_out(cv2, np, camera, coeffs, size)
                if model == BROWN else
                opencv_fisheye_fails(cv2, np, camera, coeffs, size)):
            inside_out += 1
            continue
        ref = opencv_fit(cv2, np, model, camera, coeffs, size, new_size,
                         alpha)
        err = worst_error(got, ref) if st == 0 else float("inf")
        worst = max(worst, err)
        compared += 1
        if not err <= BOUND:
            failures.append("%s: ours %s, OpenCV %s (%s)" % (case, got, ref,
                                                             msg))
    print("random calibrations: %d compared with OpenCV (worst relative "
          "error %.3g), %d refused as folding (each confirmed by the radial "
          "scan), %d near the fold refused (each confirmed by OpenCV's "
          "round trip failing or the map's own fold), %d refused where "
          "OpenCV's own undistortion of its sample points fails (inside "
          "out, or no convergence; each confirmed on OpenCV's points)" % (
              compared, worst, refused, ambiguous_refused, inside_out))
    if compared < n // 2:
        failures.append("only %d of %d random cases compared" % (compared,
                                                                  n))
    return worst


def reference_opencv(script, reexec):
    """(cv2, numpy, have, why not): the first time (the environment
    variable `reexec` unset), re-executes `script` with this process's
    arguments under cv_python(), the tests' reference interpreter, where
    there is one; have is whether cv2 4.10 and numpy are here."""
    cv2 = np = None
    try:
        import numpy as np
        import cv2
        have, why = (cv2.__version__.split(".")[:2] == ["4", "10"],
                     "cv2 %s is not 4.10" % cv2.__version__)
    except ImportError as e:
        have, why = False, "no numpy or cv2 (%s)" % e
    if not os.environ.get(reexec):
        py, why_not = cv_python()
        if py:
            os.environ[reexec] = "1"
            sys.stdout.flush()
            os.execv(py, [py, os.path.abspath(script)] + sys.argv[1:])
        have, why = False, why_not
    return cv2, np, have, why


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    cv2, np, have_cv2, why = reference_opencv(__file__, REEXEC)

    core = Core(sys.argv[1])
    failures = []
    check_without_opencv(core, failures)
    if have_cv2:
        env = os.environ.get("BSPLINE_TEST_SEED")
        seed = int(env, 0) if env else (time.time_ns() ^ os.getpid()) % 2**63
        print("test_lens_fit: seed %d (BSPLINE_TEST_SEED=%d repeats this "
              "run); %s, cv2 %s, numpy %s" % (seed, seed, sys.executable,
                                               cv2.__version__,
                                               np.__version__))
        check_fullhd_in_opencv(cv2, np, failures)
        worst = check_fixed(core, cv2, np, failures)
        worst = max(worst, check_random(core, cv2, np, seed, failures))
        print("worst relative error against OpenCV %.3g (bound %g)" % (
            worst, BOUND))
    for f in failures:
        print("FAIL %s" % f)
    if failures:
        if have_cv2:
            print("%d failures [seed %d: BSPLINE_TEST_SEED=%d repeats]" % (
                len(failures), seed, seed))
        sys.exit(1)
    if not have_cv2:
        print("SKIP: the comparison with OpenCV did not run: %s; set "
              "BSPLINE_CV_PYTHON to a python with opencv-python-headless "
              "4.10" % why)
        sys.exit(SKIP)
    print("test_lens_fit: all passed")


if __name__ == "__main__":
    main()
