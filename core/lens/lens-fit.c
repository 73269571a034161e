/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lens-fit.c: the undistorted frame's camera matrix for lens-fit=inside
 * (alpha 0) and lens-fit=all (alpha 1), by OpenCV's own algorithms, step
 * for step, so that a calibration pasted from OpenCV gives OpenCV's
 * matrix (docs/notes/lens-fit.md: the source read, the measured
 * agreement).
 *
 * Source: OpenCV 4.x, modules/calib3d/src/calibration.cpp
 * (cvGetOptimalNewCameraMatrix and icvGetRectangles in the form 4.10
 * has: a 9 x 9 grid of double points at x (width - 1) / 8, y (height - 1)
 * / 8, Rect_<double>; 4.7 and older sampled x width / 8 in float, later
 * versions the border only), modules/calib3d/src/undistort.dispatch.cpp
 * (cvUndistortPointsInternal) and modules/calib3d/src/fisheye.cpp
 * (undistortPoints, estimateNewCameraMatrixForUndistortRectify); equal,
 * bit for bit, to opencv-python-headless 4.10.0.84
 * (tests/core/test_lens_fit.py).
 *
 * OpenCV undistorts its sample points with a fixed number of iterations
 * (brown: 5 fixed-point steps, cv::undistortPoints' default
 * TermCriteria(MAX_ITER, 5, 0.01); fisheye: Newton on theta, at most 10
 * steps to 1e-8).  Those are replicated, not replaced by a converged
 * solve: the five steps stop short of the solution on strong lenses (by
 * up to 6 px in the matrix on a GoPro-like calibration, the notes say),
 * and lens-fit promises OpenCV's matrix.  The converged solve
 * (bspline_lens_solve) is used here only to refuse a calibration whose
 * model folds over before it reaches a point OpenCV samples, where
 * OpenCV's result means nothing.
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "bspline-lens-fit.h"
#include "bspline-stage.h"

/* icvGetRectangles' grid: N x N points over the distorted frame. */
#define FIT_GRID 9
/* cv::undistortPoints' default: TermCriteria(MAX_ITER, 5, 0.01), the
 * count alone. */
#define FIT_BROWN_STEPS 5
/* cv::fisheye::undistortPoints' default: TermCriteria(MAX_ITER + EPS, 10,
 * 1e-8). */
#define FIT_FISHEYE_STEPS 10
#define FIT_FISHEYE_EPS 1e-8
/* CV_PI */
#define FIT_PI 3.1415926535897932384626433832795
/* The walk along the radial function that looks for its first fold:
 * steps of (1 + radius) / FIT_FOLD_STEPS_PER_UNIT (near the centre as
 * fine as lens.c samples), and the radius where it gives up on a brown
 * model that never reaches the point. */
#define FIT_FOLD_STEPS_PER_UNIT 4096.0
#define FIT_FOLD_MAX_RADIUS 1e3

static bspline_status
fit_fail (char *msg, size_t msg_len, const char *format, ...)
{
  if (msg && msg_len > 0) {
    va_list args;
    va_start (args, format);
    vsnprintf (msg, msg_len, format, args);
    va_end (args);
  }
  return BSPLINE_ERROR_INVALID_ARGUMENT;
}

/* cvUndistortPointsInternal for one point, R and P absent, no tilt:
 * (u, v) in pixels -> normalised undistorted (x, y), FIT_BROWN_STEPS
 * fixed-point steps x = (x0 - delta (x)) / R (x).  Where the radial factor
 * turns negative OpenCV gives up and returns the distorted point
 * (its "test: undistortPoints.regression_14583"). */
static void
fit_opencv_undistort_brown (const double *k, const double camera[4],
    double u, double v, double *x_out, double *y_out)
{
  double ifx = 1. / camera[0], ify = 1. / camera[1];
  double x = (u - camera[2]) * ifx, y = (v - camera[3]) * ify;
  double x0 = x, y0 = y;
  int j;

  for (j = 0; j < FIT_BROWN_STEPS; j++) {
    double r2 = x * x + y * y;
    double icdist = (1 + ((k[7] * r2 + k[6]) * r2 + k[5]) * r2) /
        (1 + ((k[4] * r2 + k[1]) * r2 + k[0]) * r2);
    double delta_x, delta_y;
    if (icdist < 0) {
      x = (u - camera[2]) * ifx;
      y = (v - camera[3]) * ify;
      break;
    }
    delta_x = 2 * k[2] * x * y + k[3] * (r2 + 2 * x * x) + k[8] * r2 +
        k[9] * r2 * r2;
    delta_y = k[2] * (r2 + 2 * y * y) + 2 * k[3] * x * y + k[10] * r2 +
        k[11] * r2 * r2;
    x = (x0 - delta_x) * icdist;
    y = (y0 - delta_y) * icdist;
  }
  *x_out = x;
  *y_out = y;
}

/* cv::fisheye::undistortPoints for one point, R identity, P absent:
 * Newton on theta_d = theta (1 + k1 theta^2 + ...) from theta = theta_d
 * (clipped to pi / 2 as OpenCV does).  Returns 0 where OpenCV marks the
 * point invalid (no convergence, or theta changed sign). */
static int
fit_opencv_undistort_fisheye (const double *k, const double camera[4],
    double u, double v, double *x_out, double *y_out)
{
  double pw_x = (u - camera[2]) / camera[0];
  double pw_y = (v - camera[3]) / camera[1];
  double theta_d = sqrt (pw_x * pw_x + pw_y * pw_y), theta, scale = 0.0;
  int converged = 0, j;

  if (theta_d > FIT_PI / 2.)
    theta_d = FIT_PI / 2.;
  theta = theta_d;
  if (fabs (theta_d) > FIT_FISHEYE_EPS) {
    for (j = 0; j < FIT_FISHEYE_STEPS; j++) {
      double theta2 = theta * theta, theta4 = theta2 * theta2;
      double theta6 = theta4 * theta2, theta8 = theta6 * theta2;
      double k0_theta2 = k[0] * theta2, k1_theta4 = k[1] * theta4;
      double k2_theta6 = k[2] * theta6, k3_theta8 = k[3] * theta8;
      double theta_fix = (theta * (1 + k0_theta2 + k1_theta4 + k2_theta6 +
              k3_theta8) - theta_d) / (1 + 3 * k0_theta2 + 5 * k1_theta4 +
          7 * k2_theta6 + 9 * k3_theta8);
      theta = theta - theta_fix;
      if (fabs (theta_fix) < FIT_FISHEYE_EPS) {
        converged = 1;
        break;
      }
    }
    scale = tan (theta) / theta_d;
  } else
    converged = 1;
  *x_out = pw_x * scale;
  *y_out = pw_y * scale;
  return converged && !(theta_d > 0 && theta < 0);
}

/* Checks that input pixel (u, v) has an undistorted position before the
 * model's first fold, where the model is one-to-one, and fails with a
 * message that says where otherwise: walks the radial function out from
 * the centre until it passes the point's distorted radius (then
 * bspline_lens_solve, bracketed there, finds the position) or stops
 * rising (the fold) or, for the fisheye, reaches theta = pi / 2. */
static bspline_status
fit_check_point (const bspline_lens * model, const double camera[4],
    double u, double v, char *msg, size_t msg_len)
{
  bspline_lens lens = *model;
  int fisheye = lens.model == BSPLINE_LENS_FISHEYE;
  double qx = (u - camera[2]) / camera[0], qy = (v - camera[3]) / camera[1];
  double rd = sqrt (qx * qx + qy * qy), limit, s, ds, x, y, r;
  const char *what = fisheye ? "theta" : "normalised radius";

  limit = fisheye ? FIT_PI / 2 : FIT_FOLD_MAX_RADIUS;
  /* the last step lands on the limit itself: a fisheye frame whose edge
   * lies just inside theta_d (pi / 2) is reached there */
  for (s = 1.0 / FIT_FOLD_STEPS_PER_UNIT;; s = s + (1.0 + s) /
      FIT_FOLD_STEPS_PER_UNIT < limit ? s + (1.0 + s) /
      FIT_FOLD_STEPS_PER_UNIT : limit) {
    if (!bspline_lens_rises (&lens, s))
      return fit_fail (msg, msg_len, "lens-fit: input point (%.1f, %.1f) "
          "(normalised distorted radius %.6g) has no undistorted position: "
          "the %s model folds over at %s %.6g, where its radial function "
          "peaks at %.6g (check the distortion coefficients and the camera "
          "matrix)", u, v, rd, fisheye ? "fisheye" : "brown", what, s,
          bspline_lens_radial (&lens, s, &ds));
    if (bspline_lens_radial (&lens, s, &ds) > rd || s == limit)
      break;
  }
  if (!(bspline_lens_radial (&lens, s, &ds) > rd))
    return fit_fail (msg, msg_len, "lens-fit: input point (%.1f, %.1f) "
        "(normalised distorted radius %.6g) lies beyond the %s model's "
        "reach: %s", u, v, rd, fisheye ? "fisheye" : "brown", fisheye ?
        "theta_d (pi / 2), the edge of its 180-degree field, is smaller; "
        "the frame's edges must lie inside the image circle" :
        "its radial function does not get there");
  /* [0, s] is one-to-one: the solve's bracket */
  lens.fold = s;
  if (bspline_lens_solve (&lens, qx, qy, &x, &y)) {
    r = sqrt (x * x + y * y);
    if (fisheye)
      r = atan (r);
    if (r <= s || bspline_lens_rises (&lens, r))
      return BSPLINE_OK;
  }
  return fit_fail (msg, msg_len, "lens-fit: the %s model cannot be "
      "inverted at input point (%.1f, %.1f) (normalised (%.6g, %.6g)): "
      "it folds over there (check the tangential and prism coefficients)",
      fisheye ? "fisheye" : "brown", u, v, qx, qy);
}

/* cvGetOptimalNewCameraMatrix, centerPrincipalPoint = 0: the inscribed
 * (inner) and bounding (outer) rectangles of the undistorted grid
 * (icvGetRectangles), each mapped onto the new frame's pixel centres
 * 0 .. new_width - 1, then interpolated by alpha. */
static bspline_status
fit_brown (const bspline_lens * lens, const double camera[4], int width,
    int height, int new_width, int new_height, double alpha,
    double new_camera[4], char *msg, size_t msg_len)
{
  /* OpenCV starts from FLT_MAX */
  double ix0 = -FLT_MAX, ix1 = FLT_MAX, iy0 = -FLT_MAX, iy1 = FLT_MAX;
  double ox0 = FLT_MAX, ox1 = -FLT_MAX, oy0 = FLT_MAX, oy1 = -FLT_MAX;
  double inner_w, inner_h, outer_w, outer_h, fx0, fy0, cx0, cy0, fx1, fy1,
      cx1, cy1;
  int gx, gy;
  bspline_status status;

  for (gy = 0; gy < FIT_GRID; gy++)
    for (gx = 0; gx < FIT_GRID; gx++) {
      double u = (double) gx * (width - 1) / (FIT_GRID - 1);
      double v = (double) gy * (height - 1) / (FIT_GRID - 1);
      double x, y;
      status = fit_check_point (lens, camera, u, v, msg, msg_len);
      if (status != BSPLINE_OK)
        return status;
      fit_opencv_undistort_brown (lens->k, camera, u, v, &x, &y);
      ox0 = x < ox0 ? x : ox0;
      ox1 = x > ox1 ? x : ox1;
      oy0 = y < oy0 ? y : oy0;
      oy1 = y > oy1 ? y : oy1;
      if (gx == 0)
        ix0 = x > ix0 ? x : ix0;
      if (gx == FIT_GRID - 1)
        ix1 = x < ix1 ? x : ix1;
      if (gy == 0)
        iy0 = y > iy0 ? y : iy0;
      if (gy == FIT_GRID - 1)
        iy1 = y < iy1 ? y : iy1;
    }
  inner_w = ix1 - ix0;
  inner_h = iy1 - iy0;
  outer_w = ox1 - ox0;
  outer_h = oy1 - oy0;
  if (!(inner_w > 0.0 && inner_h > 0.0 && outer_w > 0.0 && outer_h > 0.0))
    return fit_fail (msg, msg_len, "lens-fit: the undistorted %dx%d frame "
        "has no inscribed rectangle (normalised x %.6g .. %.6g, y %.6g .. "
        "%.6g): the model turns the frame's edges inside out", width,
        height, ix0, ix1, iy0, iy1);

  fx0 = (new_width - 1) / inner_w;
  fy0 = (new_height - 1) / inner_h;
  cx0 = -fx0 * ix0;
  cy0 = -fy0 * iy0;
  fx1 = (new_width - 1) / outer_w;
  fy1 = (new_height - 1) / outer_h;
  cx1 = -fx1 * ox0;
  cy1 = -fy1 * oy0;
  new_camera[0] = fx0 * (1 - alpha) + fx1 * alpha;
  new_camera[1] = fy0 * (1 - alpha) + fy1 * alpha;
  new_camera[2] = cx0 * (1 - alpha) + cx1 * alpha;
  new_camera[3] = cy0 * (1 - alpha) + cy1 * alpha;
  return BSPLINE_OK;
}

/* estimateNewCameraMatrixForUndistortRectify: the undistorted midpoints
 * of the four edges (integer halves, as OpenCV takes them), their centre
 * of mass as the principal point, the focal length that puts the nearest
 * (balance 0: no border) or the farthest (balance 1) of them on the frame
 * edge, in the aspect of fx / fy, then scaled to the new size. */
static bspline_status
fit_fisheye (const bspline_lens * lens, const double camera[4], int w,
    int h, int new_width, int new_height, double balance,
    double new_camera[4], char *msg, size_t msg_len)
{
  double pu[4], pv[4], px[4], py[4], cn_x, cn_y, aspect;
  double minx = DBL_MAX, miny = DBL_MAX, maxx = -DBL_MAX, maxy = -DBL_MAX;
  double f1, f2, f3, f4, f_min, f_max, f, new_f_x, new_f_y, new_c_x, new_c_y,
      rx, ry;
  int i;
  bspline_status status;

  balance = balance < 0.0 ? 0.0 : balance > 1.0 ? 1.0 : balance;
  pu[0] = w / 2;
  pv[0] = 0;
  pu[1] = w;
  pv[1] = h / 2;
  pu[2] = w / 2;
  pv[2] = h;
  pu[3] = 0;
  pv[3] = h / 2;
  for (i = 0; i < 4; i++) {
    status = fit_check_point (lens, camera, pu[i], pv[i], msg, msg_len);
    if (status != BSPLINE_OK)
      return status;
    if (!fit_opencv_undistort_fisheye (lens->k, camera, pu[i], pv[i],
            &px[i], &py[i]))
      return fit_fail (msg, msg_len, "lens-fit: OpenCV's fisheye "
          "undistortion does not converge at input point (%.1f, %.1f)",
          pu[i], pv[i]);
  }
  /* cv::mean */
  cn_x = (px[0] + px[1] + px[2] + px[3]) * (1. / 4);
  cn_y = (py[0] + py[1] + py[2] + py[3]) * (1. / 4);

  aspect = camera[0] / camera[1];
  cn_y *= aspect;
  for (i = 0; i < 4; i++) {
    py[i] *= aspect;
    miny = py[i] < miny ? py[i] : miny;
    maxy = py[i] > maxy ? py[i] : maxy;
    minx = px[i] < minx ? px[i] : minx;
    maxx = px[i] > maxx ? px[i] : maxx;
  }
  f1 = w * 0.5 / (cn_x - minx);
  f2 = w * 0.5 / (maxx - cn_x);
  f3 = h * 0.5 * aspect / (cn_y - miny);
  f4 = h * 0.5 * aspect / (maxy - cn_y);
  f_min = fmin (f1, fmin (f2, fmin (f3, f4)));
  f_max = fmax (f1, fmax (f2, fmax (f3, f4)));
  f = balance * f_min + (1.0 - balance) * f_max;

  new_f_x = f;
  new_f_y = f;
  new_c_x = -cn_x * f + w * 0.5;
  new_c_y = -cn_y * f + h * aspect * 0.5;
  new_f_y /= aspect;
  new_c_y /= aspect;
  rx = new_width / (double) w;
  ry = new_height / (double) h;
  new_camera[0] = new_f_x * rx;
  new_camera[1] = new_f_y * ry;
  new_camera[2] = new_c_x * rx;
  new_camera[3] = new_c_y * ry;
  return BSPLINE_OK;
}

bspline_status
bspline_lens_fit (bspline_lens_model model, const double camera[4],
    const double *coeffs, int n_coeffs, int dist_width, int dist_height,
    int new_width, int new_height, double alpha, double new_camera[4],
    char *msg, size_t msg_len)
{
  bspline_lens lens = { 0 };
  bspline_status status;
  int i;

  if (!camera || !new_camera || (n_coeffs > 0 && !coeffs))
    return fit_fail (msg, msg_len, "lens-fit: missing camera matrix, "
        "distortion coefficients or result");
  /* the model and its coefficients, as every lens stage checks them */
  status = bspline_lens_validate_coeffs (model, coeffs, n_coeffs, msg,
      msg_len);
  if (status != BSPLINE_OK)
    return status;
  for (i = 0; i < 4; i++)
    if (!isfinite (camera[i]))
      return fit_fail (msg, msg_len, "lens-fit: camera matrix value %d is "
          "%g: it must be finite", i + 1, camera[i]);
  if (!(camera[0] > 0.0 && camera[1] > 0.0))
    return fit_fail (msg, msg_len, "lens-fit: the camera matrix's fx and "
        "fy must be positive, not %g and %g", camera[0], camera[1]);
  if (dist_width <= 0 || dist_height <= 0 || new_width <= 0 || new_height <= 0)
    return fit_fail (msg, msg_len, "lens-fit: frame sizes must be "
        "positive, not %dx%d (distorted) and %dx%d (undistorted)",
        dist_width, dist_height, new_width, new_height);
  if (!isfinite (alpha))
    return fit_fail (msg, msg_len, "lens-fit: alpha is %g: it must be "
        "finite", alpha);

  lens.model = model;
  lens.solve = 1;
  for (i = 0; i < n_coeffs; i++)
    lens.k[i] = coeffs[i];
  /* fit_check_point finds the fold where it needs it */
  lens.fold = model == BSPLINE_LENS_FISHEYE ? FIT_PI / 2 : INFINITY;

  if (model == BSPLINE_LENS_BROWN)
    status = fit_brown (&lens, camera, dist_width, dist_height, new_width,
        new_height, alpha, new_camera, msg, msg_len);
  else
    status = fit_fisheye (&lens, camera, dist_width, dist_height,
        new_width, new_height, alpha, new_camera, msg, msg_len);
  if (status != BSPLINE_OK)
    return status;
  for (i = 0; i < 4; i++)
    if (!isfinite (new_camera[i]))
      return fit_fail (msg, msg_len, "lens-fit: the fitted camera matrix "
          "is not finite (fx %g, fy %g, cx %g, cy %g)", new_camera[0],
          new_camera[1], new_camera[2], new_camera[3]);
  if (!(new_camera[0] > 0.0 && new_camera[1] > 0.0))
    return fit_fail (msg, msg_len, "lens-fit: the fitted camera matrix has "
        "fx %g and fy %g; both must be positive (is the %dx%d output at "
        "least 2 pixels a side?)", new_camera[0], new_camera[1], new_width,
        new_height);
  return BSPLINE_OK;
}
