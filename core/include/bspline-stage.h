/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bspline-stage.h: the lens stage of a plan's geometry, once, for both
 * engines (static inline on plain C types, compiled by cc and by nvcc as
 * bspline-math.h is).
 *
 * A plan's geometry is its homography (bspline_map_point: output pixel
 * centre -> a point) followed by up to BSPLINE_CHAIN_MAX_LENSES lens
 * stages (bspline-chain.h), each evaluated on the result of the one
 * before: a lens stage's point is a camera's normalised image coordinates
 * n = (x, y) (x = X / Z, y = Y / Z), the stage applies a distortion model
 * to it (or solves the model for it) and its `post` homography takes the
 * result on to the next stage's domain, or to input pixel coordinates
 * after the last stage.  The matrices that put the camera matrices'
 * conventions (OpenCV: the centre of the first pixel at 0) around it are
 * built in geometry.c, and chains composed in chain.c; here is only the
 * model.
 *
 * The models are OpenCV's, with its coefficient order:
 *  - BROWN, the pinhole model of cv::undistort / cv::projectPoints
 *    (OpenCV's "Camera Calibration and 3D Reconstruction" page, the
 *    equations under "Detailed description"), with r^2 = x^2 + y^2:
 *      x'' = x R + 2 p1 x y + p2 (r^2 + 2 x^2) + s1 r^2 + s2 r^4
 *      y'' = y R + p1 (r^2 + 2 y^2) + 2 p2 x y + s3 r^2 + s4 r^4
 *      R = (1 + k1 r^2 + k2 r^4 + k3 r^6) / (1 + k4 r^2 + k5 r^4 + k6 r^6)
 *    coefficients (k1, k2, p1, p2, k3, k4, k5, k6, s1, s2, s3, s4); the
 *    tilt (tau_x, tau_y) is not taken.
 *  - FISHEYE, the Kannala-Brandt model of cv::fisheye (OpenCV's "Fisheye
 *    camera model" page): theta = atan (r),
 *      theta_d = theta (1 + k1 theta^2 + k2 theta^4 + k3 theta^6
 *                       + k4 theta^8),
 *      (x'', y'') = (theta_d / r) (x, y)
 *    coefficients (k1, k2, k3, k4).
 *
 * `distort` (the function d above, normalised -> normalised distorted) is
 * what the sampler applies when the output is the undistorted view (the
 * element's lens-direction=undistort, as cv::initUndistortRectifyMap);
 * `solve` finds n with d(n) = q, when the output is the distorted view
 * (lens-direction=distort): a safeguarded Newton iteration along the
 * radius, then damped Newton on the whole map, converged to
 * BSPLINE_LENS_TOL.
 *
 * The radial function r -> r R(r^2) (theta -> theta_d for the fisheye)
 * folds over where its derivative reaches 0; `fold` is the first radius
 * where it does (r for brown, theta for fisheye; INFINITY or pi / 2 when
 * none; `fold_r` the same as a normalised radius), found when the plan
 * is made (bspline_lens_prepare, lens.c).  The
 * map is one-to-one inside it only: points beyond it get the fill (the
 * plan refuses a frame that needs them, geometry.c).
 */
#ifndef BSPLINE_STAGE_H
#define BSPLINE_STAGE_H

#include "bspline-math.h"
#include "bspline-projection.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  BSPLINE_LENS_NONE = 0,
  BSPLINE_LENS_BROWN = 1,
  BSPLINE_LENS_FISHEYE = 2,
  /* not a lens: an STMap (bspline-stmap.h), the same stage slot */
  BSPLINE_LENS_STMAP = 3,
  /* not a lens: a projection through the sphere (bspline-projection.h),
   * the same stage slot; n is the output's normalised (a, b) */
  BSPLINE_LENS_PROJECTION = 4
} bspline_lens_model;

#define BSPLINE_LENS_MAX_COEFFS 12
/* Newton's stopping rule: |d(n) - q| at most this (normalised units, 1e-12
 * of a focal length: 4e-9 px at f = 4000 px). */
#define BSPLINE_LENS_TOL 1e-12
#define BSPLINE_LENS_MAX_ITER 60
/* how often the map's Newton halves a step that does not reduce the
 * residual before it gives up (2^-30: no progress left) */
#define BSPLINE_LENS_MAX_HALVINGS 30

typedef struct
{
  int model;                    /* bspline_lens_model */
  int solve;                    /* 0: apply d; 1: solve d(n) = q */
  double k[BSPLINE_LENS_MAX_COEFFS];    /* OpenCV's order (above) */
  double fold;                  /* r (brown) or theta (fisheye) limit */
  double fold_r;                /* the same as a normalised radius r */
  /* applying d (solve 0): 1 when the frame may reach past the fold, whose
   * points are then the fill; 0 when that is an error (the plan fails) */
  int fill_fold;
  /* 3x3 row-major homography: the model's result -> the next stage's
   * domain or input pixels (an affine one, last row 0 0 1, for a lens
   * alone: bspline_geometry_plane_map) */
  double post[9];
  /* BSPLINE_LENS_STMAP: n is a position in map samples; the map's
   * coefficients (bspline_stmap_coefficients' layout, in the memory of
   * the engine that runs the plan) give the source position as fractions
   * of the frame, which post takes to input pixels */
  const double *map;
  int map_w, map_h;
  struct bspline_stmap *stmap;  /* the object that owns map (host side) */
  /* BSPLINE_LENS_PROJECTION: the stage (its result is the input's
   * normalised (a', b'), which post takes on) */
  bspline_projection projection;
} bspline_lens;

/* Rows and columns of point-symmetric extension around an STMap's
 * coefficients: the cubic's four taps reach two samples past the last
 * one at the frame's edge (half a sample beyond it). */
#define BSPLINE_STMAP_PAD 2

/* Radial factor of brown: R(r^2) and dR/d(r^2); den: its denominator. */
BSPLINE_HD static inline double
bspline_lens_brown_radial (const double *k, double r2, double *dR,
    double *den)
{
  double num = 1.0 + r2 * (k[0] + r2 * (k[1] + r2 * k[4]));
  double d = 1.0 + r2 * (k[5] + r2 * (k[6] + r2 * k[7]));
  double dnum = k[0] + r2 * (2.0 * k[1] + 3.0 * r2 * k[4]);
  double dden = k[5] + r2 * (2.0 * k[6] + 3.0 * r2 * k[7]);
  *dR = (dnum * d - num * dden) / (d * d);
  *den = d;
  return num / d;
}

/* Fisheye: theta_d (theta) and its derivative. */
BSPLINE_HD static inline double
bspline_lens_fisheye_theta_d (const double *k, double t, double *dtd)
{
  double t2 = t * t;
  double p = 1.0 + t2 * (k[0] + t2 * (k[1] + t2 * (k[2] + t2 * k[3])));
  *dtd = 1.0 + t2 * (3.0 * k[0] + t2 * (5.0 * k[1] + t2 * (7.0 * k[2]
              + t2 * 9.0 * k[3])));
  return t * p;
}

/* The radial function of the model at radius s (r for brown, theta for
 * the fisheye) and its derivative: r R(r^2) or theta_d (theta). */
BSPLINE_HD static inline double
bspline_lens_radial (const bspline_lens * lens, double s, double *ds)
{
  if (lens->model == BSPLINE_LENS_FISHEYE)
    return bspline_lens_fisheye_theta_d (lens->k, s, ds);
  else {
    double dR, den, R = bspline_lens_brown_radial (lens->k, s * s, &dR,
        &den);
    *ds = R + 2.0 * s * s * dR;
    return s * R;
  }
}

/* 1 where the radial function still rises at s (for brown, with a
 * positive denominator of R): inside the fold. */
BSPLINE_HD static inline int
bspline_lens_rises (const bspline_lens * lens, double s)
{
  double ds;
  if (lens->model == BSPLINE_LENS_BROWN) {
    double dR, den;
    bspline_lens_brown_radial (lens->k, s * s, &dR, &den);
    if (!(den > 0.0))
      return 0;
  }
  bspline_lens_radial (lens, s, &ds);
  return ds > 0.0;
}

/* d(x, y) -> (xd, yd), and its Jacobian J = [dxd/dx dxd/dy; dyd/dx dyd/dy]
 * (row-major) where J is not NULL. */
BSPLINE_HD static inline void
bspline_lens_distort (const bspline_lens * lens, double x, double y,
    double *xd, double *yd, double *J)
{
  const double *k = lens->k;
  double r2 = x * x + y * y;

  if (lens->model == BSPLINE_LENS_FISHEYE) {
    double r = sqrt (r2), s, g;
    if (r < 1e-8) {
      /* theta_d / r = 1 + (k1 - 1/3) r^2 + O(r^4) */
      s = 1.0 + (k[0] - 1.0 / 3.0) * r2;
      g = 2.0 * (k[0] - 1.0 / 3.0);
    } else {
      double t = atan (r), dtd, td = bspline_lens_fisheye_theta_d (k, t,
          &dtd);
      s = td / r;
      /* g = (ds/dr) / r, with dtheta/dr = 1 / (1 + r^2) */
      g = (dtd / (1.0 + r2) - s) / r2;
    }
    *xd = s * x;
    *yd = s * y;
    if (J) {
      J[0] = s + g * x * x;
      J[1] = g * x * y;
      J[2] = g * x * y;
      J[3] = s + g * y * y;
    }
  } else {
    double dR, den, R = bspline_lens_brown_radial (k, r2, &dR, &den);
    double p1 = k[2], p2 = k[3];
    double ax = k[8] + 2.0 * k[9] * r2, ay = k[10] + 2.0 * k[11] * r2;
    *xd = x * R + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x)
        + r2 * (k[8] + k[9] * r2);
    *yd = y * R + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y
        + r2 * (k[10] + k[11] * r2);
    if (J) {
      J[0] = R + 2.0 * x * x * dR + 2.0 * p1 * y + 6.0 * p2 * x
          + 2.0 * x * ax;
      J[1] = 2.0 * x * y * dR + 2.0 * p1 * x + 2.0 * p2 * y + 2.0 * y * ax;
      J[2] = 2.0 * x * y * dR + 2.0 * p1 * x + 2.0 * p2 * y + 2.0 * x * ay;
      J[3] = R + 2.0 * y * y * dR + 6.0 * p1 * y + 2.0 * p2 * x
          + 2.0 * y * ay;
    }
  }
}

/* The radius s in [0, fold) whose radial function is rd: safeguarded
 * Newton (bisection where a step leaves the bracket).  Returns 0 where rd
 * is at or beyond the radial function's value at fold. */
BSPLINE_HD static inline int
bspline_lens_radial_inverse (const bspline_lens * lens, double rd,
    double *s_out)
{
  double lo = 0.0, hi = lens->fold, s, ds, f;
  int i;

  if (!(rd >= 0.0))
    return 0;
  if (isfinite (hi)) {
    if (bspline_lens_radial (lens, hi, &ds) <= rd)
      return 0;
  } else {
    /* no fold: the radial function grows without bound; bracket it */
    hi = rd > 1.0 ? rd : 1.0;
    for (i = 0; i < 200 && bspline_lens_radial (lens, hi, &ds) <= rd
        && ds > 0.0; i++)
      hi *= 2.0;
    if (!(ds > 0.0))
      return 0;                 /* a fold beyond the one searched */
    if (i == 200)
      return 0;
  }
  s = rd < hi ? rd : 0.5 * hi;
  for (i = 0; i < BSPLINE_LENS_MAX_ITER; i++) {
    double next;
    f = bspline_lens_radial (lens, s, &ds) - rd;
    if (f > 0.0)
      hi = s;
    else
      lo = s;
    next = ds > 0.0 ? s - f / ds : s;
    if (fabs (f) <= BSPLINE_LENS_TOL * (1.0 + rd)) {
      /* one more Newton step where it stays in the bracket: near the
       * last bits, where both engines land on the same radius */
      if (next >= lo && next <= hi)
        s = next;
      break;
    }
    if (!(next > lo && next < hi))
      next = 0.5 * (lo + hi);
    s = next;
  }
  *s_out = s;
  return fabs (bspline_lens_radial (lens, s, &ds) - rd)
      <= 1e3 * BSPLINE_LENS_TOL * (1.0 + rd);
}

/* n with d(n) = q: the radius first, then Newton on the whole map (the
 * tangential and prism terms).  Returns 0 where there is none inside the
 * fold or Newton does not converge. */
BSPLINE_HD static inline int
bspline_lens_solve (const bspline_lens * lens, double qx, double qy,
    double *x, double *y)
{
  double rd = sqrt (qx * qx + qy * qy), s, r, xs, ys;
  int i;

  if (!bspline_lens_radial_inverse (lens, rd, &s))
    return 0;
  r = lens->model == BSPLINE_LENS_FISHEYE ? tan (s) : s;
  if (rd > 0.0) {
    xs = qx * (r / rd);
    ys = qy * (r / rd);
  } else
    xs = ys = 0.0;
  /* Newton to BSPLINE_LENS_TOL, then one step more (quadratic
   * convergence: near the last bits), so that the CPU and the GPU, whose
   * roundings differ, land on the same point where the map is
   * ill-conditioned too.  Damped: a step is halved until |d(n) - q|
   * shrinks at a point where the map is still one-to-one (det J > 0), so
   * that a radial function that nearly flattens (a plateau short of the
   * fold, with tangential terms beside it) does not throw the iteration
   * out; the full step, taken near the answer, costs nothing extra. */
  {
    double xd, yd, J[4], fx, fy, res, det;
    bspline_lens_distort (lens, xs, ys, &xd, &yd, J);
    fx = xd - qx;
    fy = yd - qy;
    res = fx * fx + fy * fy;
    for (i = 0; i < BSPLINE_LENS_MAX_ITER; i++) {
      double dx, dy, t = 1.0, tx = xs, ty = ys, tJ[4], tfx = fx, tfy = fy,
          tres = res;
      int h;
      det = J[0] * J[3] - J[1] * J[2];
      if (!(det > 0.0))
        return 0;
      dx = (J[3] * fx - J[1] * fy) / det;
      dy = (J[0] * fy - J[2] * fx) / det;
      if (fabs (fx) + fabs (fy) <= BSPLINE_LENS_TOL * (1.0 + rd)) {
        *x = xs - dx;
        *y = ys - dy;
        return isfinite (*x) && isfinite (*y);
      }
      for (h = 0; h < BSPLINE_LENS_MAX_HALVINGS; h++, t *= 0.5) {
        tx = xs - t * dx;
        ty = ys - t * dy;
        bspline_lens_distort (lens, tx, ty, &xd, &yd, tJ);
        tfx = xd - qx;
        tfy = yd - qy;
        tres = tfx * tfx + tfy * tfy;
        if (tres < res && tJ[0] * tJ[3] - tJ[1] * tJ[2] > 0.0)
          break;
      }
      if (h == BSPLINE_LENS_MAX_HALVINGS)
        return 0;
      xs = tx;
      ys = ty;
      fx = tfx;
      fy = tfy;
      res = tres;
      J[0] = tJ[0];
      J[1] = tJ[1];
      J[2] = tJ[2];
      J[3] = tJ[3];
    }
  }
  return 0;
}

/* The STMap at (mx, my), map samples: the cubic B-spline of the
 * coefficients ([U99] eq. 3; weights of bspline-math.h), and its Jacobian
 * (the weights' derivatives: d/dt of s^3 / 6, 2/3 + t^2 (t / 2 - 1), ...)
 * where J is not NULL.  Past the map's frame [0, map_w] x [0, map_h] (a
 * point the other stages send outside the input frame) the map goes on
 * along its tangent at the nearest point of the frame's edge, so that
 * such points reach the input's boundary as they would without a map.
 * Returns 0 for a position that is not a number. */
BSPLINE_HD static inline int
bspline_stmap_map (const double *map, int map_w, int map_h, double mx,
    double my, double *x, double *y, double *J)
{
  const int stride = map_w + 2 * BSPLINE_STMAP_PAD;
  double cx = mx < 0.0 ? 0.0 : mx > map_w ? map_w : mx;
  double cy = my < 0.0 ? 0.0 : my > map_h ? map_h : my;
  double tx = cx - 0.5, ty = cy - 0.5, fx, fy, s, wx[4], wy[4], gx[4],
      gy[4], sx = 0.0, sy = 0.0, dxx = 0.0, dxy = 0.0, dyx = 0.0, dyy = 0.0;
  int ix, iy, i, j;

  if (!(cx == cx && cy == cy))
    return 0;
  ix = (int) floor (tx);
  iy = (int) floor (ty);
  /* the last edge (tx = map_w - 0.5) uses the cell before it */
  if (ix > map_w - 1)
    ix = map_w - 1;
  if (iy > map_h - 1)
    iy = map_h - 1;
  fx = tx - ix;
  fy = ty - iy;
  bspline_cubic_weights_d (fx, wx);
  bspline_cubic_weights_d (fy, wy);
  s = 1.0 - fx;
  gx[0] = -0.5 * s * s;
  gx[1] = fx * (1.5 * fx - 2.0);
  gx[2] = -s * (1.5 * s - 2.0);
  gx[3] = 0.5 * fx * fx;
  s = 1.0 - fy;
  gy[0] = -0.5 * s * s;
  gy[1] = fy * (1.5 * fy - 2.0);
  gy[2] = -s * (1.5 * s - 2.0);
  gy[3] = 0.5 * fy * fy;
  for (j = 0; j < 4; j++) {
    const double *row = map + 2 * ((size_t) (iy - 1 + j + BSPLINE_STMAP_PAD)
        * stride + (ix - 1 + BSPLINE_STMAP_PAD));
    double rx = 0.0, ry = 0.0, drx = 0.0, dry = 0.0;
    for (i = 0; i < 4; i++) {
      rx += wx[i] * row[2 * i];
      ry += wx[i] * row[2 * i + 1];
      drx += gx[i] * row[2 * i];
      dry += gx[i] * row[2 * i + 1];
    }
    sx += wy[j] * rx;
    sy += wy[j] * ry;
    dxx += wy[j] * drx;
    dyx += wy[j] * dry;
    dxy += gy[j] * rx;
    dyy += gy[j] * ry;
  }
  /* the tangent past the edge (nothing added inside the frame) */
  *x = sx + dxx * (mx - cx) + dxy * (my - cy);
  *y = sy + dyx * (mx - cx) + dyy * (my - cy);
  if (J) {
    J[0] = dxx;
    J[1] = dxy;
    J[2] = dyx;
    J[3] = dyy;
  }
  return 1;
}

/* The Jacobian d(nx, ny) / d(u, v) (row-major) of the homography m at
 * (u, v), whose image is (nx, ny) (bspline_map_point). */
BSPLINE_HD static inline void
bspline_homography_jacobian (const double *m, double u, double v,
    double nx, double ny, double H[4])
{
  double W = BSPLINE_MAP_ROW (m[6], u, m[7], v, m[8]);

  H[0] = (m[0] - nx * m[6]) / W;
  H[1] = (m[1] - nx * m[7]) / W;
  H[2] = (m[3] - ny * m[6]) / W;
  H[3] = (m[4] - ny * m[7]) / W;
}

/* The 2x2 product P = A B (row-major), the chain rule's step. */
BSPLINE_HD static inline void
bspline_jacobian_product (const double A[4], const double B[4],
    double P[4])
{
  double p0 = A[0] * B[0] + A[1] * B[2], p1 = A[0] * B[1] + A[1] * B[3];
  double p2 = A[2] * B[0] + A[3] * B[2], p3 = A[2] * B[1] + A[3] * B[3];
  P[0] = p0;
  P[1] = p1;
  P[2] = p2;
  P[3] = p3;
}

/* The stage: n -> the model's result -> (post) the next stage's domain or
 * input pixel coordinates (x, y), and the Jacobian of that map where J is
 * not NULL (the chain rule: post's Jacobian at the model's result times
 * the model's).  Returns 0 where the point has no image: beyond the fold
 * (brown) or behind the camera (fisheye's theta >= pi/2, solving), where
 * solving fails, or on or beyond post's horizon (W <= 0, as
 * bspline_map_point decides it).  An affine post (last row 0 0 1) has
 * W = 1 exactly and divides by it exactly: the same bits as the 2x3 map
 * it was before chains. */
BSPLINE_HD static inline int
bspline_lens_map (const bspline_lens * lens, double nx, double ny, double *x,
    double *y, double *J)
{
  const double *p = lens->post;
  double mx, my, L[4], X, Y, W;

  if (lens->model == BSPLINE_LENS_STMAP) {
    if (!bspline_stmap_map (lens->map, lens->map_w, lens->map_h, nx, ny,
            &mx, &my, J ? L : NULL))
      return 0;
  } else if (lens->model == BSPLINE_LENS_PROJECTION) {
    if (!bspline_projection_map (&lens->projection, nx, ny, &mx, &my,
            J ? L : NULL))
      return 0;
  } else if (lens->solve) {
    if (!bspline_lens_solve (lens, nx, ny, &mx, &my))
      return 0;
    if (J) {
      /* the inverse map's Jacobian: the inverse of d's at the solution */
      double D[4], det, xd, yd;
      bspline_lens_distort (lens, mx, my, &xd, &yd, D);
      det = D[0] * D[3] - D[1] * D[2];
      L[0] = D[3] / det;
      L[1] = -D[1] / det;
      L[2] = -D[2] / det;
      L[3] = D[0] / det;
    }
  } else {
    double r = sqrt (nx * nx + ny * ny);
    if (!(r < lens->fold_r))
      return 0;
    bspline_lens_distort (lens, nx, ny, &mx, &my, J ? L : NULL);
  }
  X = BSPLINE_MAP_ROW (p[0], mx, p[1], my, p[2]);
  Y = BSPLINE_MAP_ROW (p[3], mx, p[4], my, p[5]);
  W = BSPLINE_MAP_ROW (p[6], mx, p[7], my, p[8]);
  if (!(W > 0.0))
    return 0;
  *x = X / W;
  *y = Y / W;
  if (J) {
    double A[4];
    bspline_homography_jacobian (p, mx, my, *x, *y, A);
    bspline_jacobian_product (A, L, J);
  }
  return isfinite (*x) && isfinite (*y);
}

/* The lens stages lenses[0 .. n_lenses - 1] in turn from the point
 * (nx, ny) that the homography gives, each on the result of the one
 * before, and the Jacobian of the whole geometry where J is not NULL: J
 * holds the homography's on entry, and each stage's own Jacobian
 * multiplies it from the left (the chain rule).  Returns 0 where a stage
 * gives no point. */
BSPLINE_HD static inline int
bspline_lenses_map (const bspline_lens * lenses, int n_lenses, double nx,
    double ny, double *x, double *y, double *J)
{
  double L[4];
  int k;

  for (k = 0; k < n_lenses; k++) {
    if (!bspline_lens_map (&lenses[k], nx, ny, &nx, &ny, J ? L : NULL))
      return 0;
    if (J)
      bspline_jacobian_product (L, J, J);
  }
  *x = nx;
  *y = ny;
  return 1;
}

/* The whole geometry at output pixel centre (u, v): the homography m, then
 * the lens stages lenses[0 .. n_lenses - 1] (n_lenses 0: none; lenses may
 * then be NULL).  Returns 0 where there is no input point
 * (bspline_map_point, bspline_lens_map). */
BSPLINE_HD static inline int
bspline_stage_map_point (const double *m, const bspline_lens * lenses,
    int n_lenses, double u, double v, double *x, double *y)
{
  double nx, ny;
  if (!bspline_map_point (m, u, v, &nx, &ny))
    return 0;
  return bspline_lenses_map (lenses, n_lenses, nx, ny, x, y, NULL);
}

/* The footprint at output pixel (u, v): how far x and y move per output
 * pixel (sx, sy), from the whole geometry's Jacobian (chain rule: each
 * lens stage's own Jacobian times the homography's and those of the
 * stages before it; docs/chains.md), as bspline_footprint takes them for
 * the homography alone (n_lenses 0 gives its values).  Returns 0 where
 * there is no input point. */
BSPLINE_HD static inline int
bspline_stage_footprint_size (const double *m,
    const bspline_lens * lenses, int n_lenses, double u, double v, double *x,
    double *y, double *sx, double *sy)
{
  double nx, ny, J[4];

  if (!bspline_map_point (m, u, v, &nx, &ny))
    return 0;
  bspline_homography_jacobian (m, u, v, nx, ny, J);
  if (!bspline_lenses_map (lenses, n_lenses, nx, ny, x, y, J))
    return 0;
  *sx = sqrt (J[0] * J[0] + J[1] * J[1]);
  *sy = sqrt (J[2] * J[2] + J[3] * J[3]);
  return 1;
}

/* Kernel widening at output pixel (u, v) from the footprint above. */
BSPLINE_HD static inline int
bspline_stage_footprint (const double *m, const bspline_lens * lenses,
    int n_lenses, double u, double v, double max_widen, double *x,
    double *y, double *widen_x, double *widen_y)
{
  double sx, sy;
  if (!bspline_stage_footprint_size (m, lenses, n_lenses, u, v, x, y, &sx,
          &sy))
    return 0;
  *widen_x = bspline_widening (sx, max_widen);
  *widen_y = bspline_widening (sy, max_widen);
  return 1;
}

/* ---- the widened kernel of a lens plan, bounded in cost ----
 *
 * A lens plan's kernel is widened per pixel by the footprint above, which
 * grows without bound as the output shrinks: the widened kernel reads
 * (2 r w + 1)^2 coefficients (r the kernel's radius, w the widening).  The
 * engines therefore sample a pixel whose widening passes
 * BSPLINE_LEVEL_MAX_REST from a level of a ripmap of the coefficients
 * (level lx, ly: the plane reduced lx times by 2 along x and ly times
 * along y, each step the same kernel widened by 2 at the coarse sample
 * centres), with the rest of the widening w_l at that level.  Each step
 * of reduction blurs by a kernel widened by 2^i (fine pixels); w_l is
 * chosen so that the cascade's variance (which adds over convolutions)
 * is that of the kernel widened by w on the fine plane:
 *
 *   4^l w_l^2 + sum_{i=1..l} 4^i = w^2,
 *   w_l^2 = w^2 / 4^l - (4 / 3) (1 - 4^-l),
 *
 * at the largest level l where w_l >= 1.  Level 0 (w below 2 sqrt 2) is
 * the widened kernel itself, unchanged; from there w_l stays within
 * [1, 2 sqrt 2], so a pixel reads at most (4 r sqrt 2 + 1)^2
 * coefficients (13 x 13 for cubic) whatever it shrinks by.  docs/lens.md
 * measures the seams between levels. */

/* The largest widening of a lens plan's footprint (past it the last
 * level is read; the cost does not depend on it). */
#define BSPLINE_MAX_LENS_WIDENING 65536.0
/* The most widening read at any level: 2 sqrt 2. */
#define BSPLINE_LEVEL_MAX_REST 2.8284271247461903
/* Levels per axis of the ripmap (planes up to 2^15 samples reach one). */
#define BSPLINE_RIPMAP_LEVELS 16

/* The level of one axis for a kernel widening `widen`, at most max_level
 * (bspline_max_level), and the widening
 * left at that level (*rest; widen itself at level 0). */
BSPLINE_HD static inline int
bspline_widening_level (double widen, int max_level, double *rest)
{
  const double w2 = widen * widen;
  double r = widen, s = 1.0;    /* s = 4^-l */
  int l = 0;
  while (l < max_level) {
    const double next = w2 * s * 0.25 - (4.0 / 3.0) * (1.0 - s * 0.25);
    if (!(next >= 1.0))
      break;
    r = sqrt (next);
    s *= 0.25;
    l++;
  }
  *rest = r < BSPLINE_LEVEL_MAX_REST ? r : BSPLINE_LEVEL_MAX_REST;
  return l;
}

/* The coarse samples m = *lo .. *hi - 1 that level l >= 1 of an axis of n
 * samples keeps (coarse sample m is the fine pixels 2^l m .. 2^l (m + 1)
 * - 1, its centre at fine sample coordinate 2^l (m + 0.5) - 0.5): the
 * fine window -n .. 2n (the frame's extension by its boundary, about a
 * point reduced into the frame by bspline_level_point) and a margin of
 * ceil (7 r) + 4 coarse samples (r the kernel's radius) past it, where
 * the window clamps. */
BSPLINE_HD static inline void
bspline_level_range (int n, int l, double radius, int *lo, int *hi)
{
  const int margin = (int) ceil (7.0 * radius) + 4;
  *lo = -(int) (((long long) n + (1LL << l) - 1) >> l) - margin;
  *hi = (int) ((2LL * n + (1LL << l) - 1) >> l) + margin;
}

/* The axis of level l of a plan's axis a: a itself at level 0; else
 * coarse coordinates whose samples lo .. hi - 1 of bspline_level_range
 * are stored from index 0 on, clamped past them (the clamp of
 * bspline_boundary_index: index k + pad within 0 .. len + 2 pad - 1).
 * Both engines' levels are laid out so (core/resample/ripmap.c,
 * cuda/ripmap.cu). */
BSPLINE_HD static inline bspline_axis
bspline_level_axis (const bspline_axis * a, int l)
{
  bspline_axis c = *a;
  int lo, hi;
  if (l == 0)
    return c;
  bspline_level_range (a->len, l, bspline_kernel_radius (a->method,
          a->order), &lo, &hi);
  c.boundary = BSPLINE_BOUNDARY_CLAMP;
  c.pad = -lo;
  c.len = hi + lo;
  return c;
}

/* Samples stored along an axis (level 0: the padding included). */
BSPLINE_HD static inline int
bspline_level_stored (const bspline_axis * a)
{
  return a->len + 2 * a->pad;
}

/* A pixel's fine sample coordinate x on an axis (ax: the plan's) brought
 * into the frame for the levels: the boundary's period taken out
 * (bspline_reduce_coordinate with no reach: within -n .. n for reflect),
 * then reflect and mirror folded onto their frame's side (x and its
 * mirror image have the same value): within -0.5 .. n, or -n / 2 .. n / 2
 * for wrap, -pad .. n - 1 + pad for clamp and constant. */
BSPLINE_HD static inline double
bspline_level_point (const bspline_axis * ax, double x)
{
  x = bspline_reduce_coordinate (x, ax->len, ax->pad, ax->boundary, 0.0);
  if (ax->boundary == BSPLINE_BOUNDARY_REFLECT && x < -0.5)
    x = -1.0 - x;
  else if (ax->boundary == BSPLINE_BOUNDARY_MIRROR && x < 0.0)
    x = -x;
  return x;
}

/* The last level of an axis of n samples: the first at which one coarse
 * sample spans the frame, at most BSPLINE_RIPMAP_LEVELS - 1. */
BSPLINE_HD static inline int
bspline_max_level (int n)
{
  int l = 0;
  while (l < BSPLINE_RIPMAP_LEVELS - 1 && (1LL << l) < n)
    l++;
  return l;
}

#ifdef __cplusplus
}
#endif
#endif /* BSPLINE_STAGE_H */
