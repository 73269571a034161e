#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bsplinestabilize's lens stage against OpenCV and scipy (issue 22).

Usage: test_stabilize_lens.py PHOTO.ppm TEST_LENS_PY

PHOTO.ppm is the stabilization tests' photograph (make-photo.py: scipy's
face, 1024x768); TEST_LENS_PY is tests/elements/test_lens.py, whose
environment helpers (OpenCV 4.10 from the project's .venv) are used here.

The clip: a camera with OpenCV's fisheye test calibration (fisheyeTest::K,
D of modules/calib3d/test/test_fisheye.cpp, 1280x800, scaled to the
976x560 frame) shakes in its undistorted (pinhole) coordinates: frame k
of the pinhole view is the photo seen through a rotation by theta_k about
the frame centre and a shift t_k (sums of sines, up to 16 pixels and 1.5
degrees). The lens's picture of it is made with OpenCV and scipy alone:
cv2.fisheye.undistortPoints takes every distorted pixel centre to its
pinhole point, where scipy.ndimage.map_coordinates samples the photo
(cubic spline, double), rounded to 8 bits. 976 pixels wide, the estimator
analyses the frames at half resolution, so the undistortion to the
analysis grid (factor 2) is part of what is checked.

bsplinestabilize tripod=true with the lens properties then undistorts and
stabilizes each frame in one resampling, the motion estimated on the
undistorted frames:
1. Motion: every frame's motion in the transforms file against the true
   motion of the pinhole view (pixel-edge coordinates), at the centre and
   the corners of the frame's middle half: at most MOTION_TOL pixels off.
2. Pixels: every output frame against the first frame's pinhole view
   rendered directly from the photo (scipy, double), inside a margin of
   48 pixels: at least MIN_PSNR dB.
3. The check can fail: the same clip without the lens properties (the
   motion estimated on the distorted frames, where the shake is no
   similarity) leaves every frame further from its first one (the
   distorted first frame, measured the same way) by at least
   MIN_GAIN_DB.
4. Bad input: lens-direction=distort, fx <= 0 and a model that folds over
   inside the frame each stop the pipeline with an error naming the lens
   stage; never a crash.

Exits 77 (skipped) without OpenCV 4.10. The plugin is the one of
GST_PLUGIN_PATH.
"""
import importlib.util
import math
import os
import subprocess
import sys
import tempfile
import time

SKIP = 77
REEXEC = "BSPLINE_TEST_STABILIZE_LENS_REEXEC"
W, H, N = 976, 560, 24
FISHEYE_K = (558.478087865323, 560.506767351568, 620.458515360843,
             381.939424848348)
FISHEYE_SIZE = (1280, 800)
FISHEYE_D = (-0.0014613319981768, -0.00329861110580401, 0.00605760088590183,
             -0.00374209380722371)
SHIFT, ANGLE = 16.0, 1.5        # shake amplitudes: pixels, degrees
MARGIN = 48
MOTION_TOL = 0.25               # pixels
MIN_PSNR = 30.0                 # dB
MIN_GAIN_DB = 3.0


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def read_ppm(np, path):
    with open(path, "rb") as f:
        data = f.read()
    parts = data.split(maxsplit=4)
    if parts[0] != b"P6" or int(parts[3]) != 255:
        raise ValueError("%s is not a binary 8-bit PPM" % path)
    w, h = int(parts[1]), int(parts[2])
    return np.frombuffer(parts[4][:w * h * 3], np.uint8).reshape(h, w, 3)


def shake(np, seed):
    """(theta_k in radians, t_k) for every frame: each a random sum of
    three sines of 0.08 to 0.25 cycles per frame, within its amplitude."""
    rng = np.random.default_rng(seed)
    k = np.arange(N)
    out = []
    for amp in (math.radians(ANGLE), SHIFT, SHIFT):
        f = rng.uniform(0.08, 0.25, 3)
        ph = rng.uniform(0, 2 * math.pi, 3)
        wgt = rng.dirichlet(np.ones(3))
        out.append(amp * sum(wgt[i] * np.sin(2 * math.pi * f[i] * k + ph[i])
                             for i in range(3)))
    return out[0], np.stack([out[1], out[2]], axis=1)


def to_photo(np, theta, t, photo_shape):
    """The 2x3 map of frame k's pinhole pixels to photo pixels (OpenCV's
    integer centres): P = c_p + R(theta) (q - c) + t."""
    c = np.array([(W - 1) / 2.0, (H - 1) / 2.0])
    cp = np.array([(photo_shape[1] - 1) / 2.0, (photo_shape[0] - 1) / 2.0])
    r = np.array([[math.cos(theta), -math.sin(theta)],
                  [math.sin(theta), math.cos(theta)]])
    return np.hstack([r, (cp + t - r @ c)[:, None]])


def sample(ndimage, np, coeffs, m, qx, qy):
    """The photo's spline (prefiltered coeffs) at m(q), rounded."""
    px = m[0, 0] * qx + m[0, 1] * qy + m[0, 2]
    py = m[1, 0] * qx + m[1, 1] * qy + m[1, 2]
    out = np.empty(qx.shape + (3,))
    for c in range(3):
        out[..., c] = ndimage.map_coordinates(coeffs[c], [py, px], order=3,
                                              mode="reflect", prefilter=False)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def true_motion(np, theta, t, k):
    """The motion from frame k - 1 to frame k of the pinhole view, in
    pixel-edge coordinates, as the transforms file gives it."""
    def full(m):
        return np.vstack([m, [0, 0, 1.0]])
    shape = (768, 1024)
    edge = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1.0]])
    a = full(to_photo(np, theta[k - 1], t[k - 1], shape))
    b = full(to_photo(np, theta[k], t[k], shape))
    # x_k = E B^-1 A E^-1 x_(k-1)
    return (edge @ np.linalg.inv(b) @ a @ np.linalg.inv(edge))[:2]


def run(np, frames, props, tmp, transforms=None, expect_ok=True):
    fin, fout = os.path.join(tmp, "in.rgba"), os.path.join(tmp, "out.rgba")
    rgba = np.concatenate([frames, np.full(frames.shape[:3] + (1,), 255,
                                           np.uint8)], axis=3)
    np.ascontiguousarray(rgba).tofile(fin)
    element = ["bsplinestabilize", "tripod=true", "smoothing=4",
               "crop=fill", "backend=cpu"] + props.split()
    if transforms:
        element.append("transforms-location=" + transforms)
    cmd = ["gst-launch-1.0", "-q", "filesrc", "location=" + fin,
           "blocksize=%d" % (W * H * 4), "!", "rawvideoparse",
           "format=rgba", "width=%d" % W, "height=%d" % H,
           "framerate=30/1", "!"] + element + [
               "!", "filesink", "location=" + fout]
    env = dict(os.environ)
    env.setdefault("GST_REGISTRY", os.path.join(tmp, "registry.bin"))
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, env=env,
                           timeout=600 if expect_ok else 20)
        code, text = r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:
        # gst-launch-1.0 1.22 may hang after an element error while it
        # prerolls (tests/elements/test_lens.py); the message is out
        out = [x.decode() if isinstance(x, bytes) else (x or "")
               for x in (e.stdout, e.stderr)]
        code, text = "hung after its error", out[0] + out[1]
    if not expect_ok:
        return code, text
    if code != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd), text))
    out = np.fromfile(fout, np.uint8)
    return out.reshape(-1, H, W, 4)[..., :3]


def psnr(np, a, b):
    sl = (slice(MARGIN, H - MARGIN), slice(MARGIN, W - MARGIN))
    d = a[sl].astype(float) - b[sl].astype(float)
    mse = float(np.mean(d * d))
    return 99.0 if mse == 0 else 10 * math.log10(255.0 ** 2 / mse)


def read_motions(np, path):
    motions = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith("#") or not w[0].isdigit():
                continue
            motions[int(w[0])] = (int(w[1]), np.array(
                [float(x) for x in w[2:8]]).reshape(2, 3))
    return motions


def check_motion(np, motions, theta, t, failures):
    pts = [(W / 2, H / 2)] + [(W / 2 + sx * W / 4, H / 2 + sy * H / 4)
                             for sx in (-1, 1) for sy in (-1, 1)]
    worst = 0.0
    for k in range(1, N):
        if k not in motions or not motions[k][0]:
            failures.append("frame %d: no reliable motion recorded" % k)
            continue
        est, ref = motions[k][1], true_motion(np, theta, t, k)
        for x, y in pts:
            v = np.array([x, y, 1.0])
            worst = max(worst, float(np.hypot(*(est @ v - ref @ v))))
    print("motion: largest error %.4f px over %d frames (tolerance %g)" % (
        worst, N - 1, MOTION_TOL))
    if not worst <= MOTION_TOL:
        failures.append("motion off by %.4f px (tolerance %g)" % (
            worst, MOTION_TOL))


def check_bad_input(np, frames, lens, tmp, failures):
    k, d = lens
    cases = [
        ("lens-direction=distort " + k + " " + d, "lens-direction=distort"),
        ("lens-model=brown camera-matrix=<-5,500,488,280>",
         "must be finite with fx and fy > 0"),
        ("lens-model=brown camera-matrix=<300,300,488,280> "
         "distortion=<-0.4>", "folds over inside the frame"),
    ]
    for props, expect in cases:
        code, text = run(np, frames[:2], props, tmp, expect_ok=False)
        ok = code != 0 and expect in text and "crash" not in text.lower() \
            and ("lens" in text)
        print("bad input %s: %s" % (props, "error as expected" if ok else
                                     "UNEXPECTED"))
        if not ok:
            failures.append("%s: exit %s, %s" % (props, code, text[-400:]))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    lens_helpers = load(sys.argv[2], "test_lens")
    cv2, np, ndimage = lens_helpers.references(__file__, REEXEC)
    env = os.environ.get("BSPLINE_TEST_SEED")
    seed = int(env, 0) if env else (time.time_ns() ^ os.getpid()) % 2**63
    print("test_stabilize_lens: seed %d; cv2 %s" % (seed, cv2.__version__))
    photo = read_ppm(np, sys.argv[1])
    coeffs = [ndimage.spline_filter(photo[..., c].astype(float), order=3,
                                    mode="reflect") for c in range(3)]
    theta, t = shake(np, seed)

    sx, sy = W / FISHEYE_SIZE[0], H / FISHEYE_SIZE[1]
    fx, fy, cx, cy = FISHEYE_K
    cam = (fx * sx, fy * sy, (cx + 0.5) * sx - 0.5, (cy + 0.5) * sy - 0.5)
    kmat = np.array([[cam[0], 0, cam[2]], [0, cam[1], cam[3]], [0, 0, 1.0]])
    dist = np.array(FISHEYE_D)
    # every distorted pixel centre's pinhole point (the new camera is the
    # camera itself: the element's default at equal sizes)
    gx, gy = np.meshgrid(np.arange(W, dtype=float), np.arange(H, dtype=float))
    pts = np.stack([gx.ravel(), gy.ravel()], axis=1)[:, None, :]
    und = cv2.fisheye.undistortPoints(pts, kmat, dist, P=kmat)
    qx, qy = und[:, 0, 0].reshape(H, W), und[:, 0, 1].reshape(H, W)
    distorted = np.stack([sample(ndimage, np, coeffs, to_photo(
        np, theta[k], t[k], photo.shape), qx, qy) for k in range(N)])
    pinhole0 = sample(ndimage, np, coeffs, to_photo(np, theta[0], t[0],
                                                    photo.shape), gx, gy)

    lens = ("lens-model=fisheye camera-matrix=<%s>" % ",".join(
        "%.17g" % v for v in cam), "distortion=<%s>" % ",".join(
        "%.17g" % v for v in FISHEYE_D))
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        tr = os.path.join(tmp, "transforms.txt")
        out = run(np, distorted, " ".join(lens), tmp, transforms=tr)
        if out.shape[0] != N:
            failures.append("%d frames out of %d" % (out.shape[0], N))
        check_motion(np, read_motions(np, tr), theta, t, failures)
        with_lens = [psnr(np, out[k], pinhole0) for k in range(len(out))]
        ctrl = run(np, distorted, "", tmp)
        without = [psnr(np, ctrl[k], distorted[0]) for k in range(len(ctrl))]
        print("PSNR against the first frame, lens stage: min %.2f, mean "
              "%.2f dB; without it: min %.2f, mean %.2f dB" % (
                  min(with_lens), np.mean(with_lens), min(without),
                  np.mean(without)))
        if not min(with_lens) >= MIN_PSNR:
            failures.append("frame %d: %.2f dB from the pinhole view "
                            "(at least %g)" % (int(np.argmin(with_lens)),
                                               min(with_lens), MIN_PSNR))
        if not np.mean(with_lens) >= np.mean(without) + MIN_GAIN_DB:
            failures.append("the lens stage gains %.2f dB over none (at "
                            "least %g)" % (np.mean(with_lens) -
                                           np.mean(without), MIN_GAIN_DB))
        check_bad_input(np, distorted, lens, tmp, failures)
        if os.environ.get("BSPLINE_TEST_PICTURES"):
            import skimage.io
            d = os.environ["BSPLINE_TEST_PICTURES"]
            for name, img in (("distorted-5", distorted[5]),
                              ("stabilized-5", out[5]),
                              ("pinhole-0", pinhole0),
                              ("without-lens-5", ctrl[5])):
                skimage.io.imsave(os.path.join(d, name + ".png"), img)
    lens_helpers.finish(failures, seed, "test_stabilize_lens")


if __name__ == "__main__":
    main()
