/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* motion-solve.h: the arithmetic of one Gauss-Newton step of the motion
 * estimation (core/stabilize/motion.c) that follows a pass over the pixels:
 * the robust scale from the residual histogram, the solve of the small
 * normal equations and the inverse-compositional update with its
 * convergence test.  Compiled by cc for the CPU engine and by nvcc for the
 * GPU's, whose blocks each run it on the device after a pass
 * (cuda/motion.cu), so that both engines take the same decisions from the
 * same sums without a round trip to the host per step.
 *
 * Baker & Matthews 2004, "Lucas-Kanade 20 years on", IJCV 56(3), sec. 3.2
 * (the inverse-compositional update W <- W o W(dp)^-1) and sec. 4.4 (robust
 * weights by iteratively reweighted least squares).
 *
 * Not installed.  Included by core/stabilize/motion.c and cuda/motion.cu
 * only. */
#ifndef BSPLINE_MOTION_SOLVE_H
#define BSPLINE_MOTION_SOLVE_H

#include <math.h>
#include "bspline-math.h"
#include "bspline-stabilize.h"

/* Huber's k and Tukey's c, times the residual scale: 95 percent
 * efficiency under Gaussian noise (Huber 1981; Beaton & Tukey 1974). */
#define BSPLINE_MOTION_HUBER_K 1.345
#define BSPLINE_MOTION_TUKEY_C 4.685

/* The scale of the residuals when the median |residual| falls in histogram
 * bin `bin` (bin < 0: no residual at all): 1.4826 times the bin's centre,
 * the MAD estimate of a Gaussian's standard deviation, at least half a
 * grey level (quantisation). */
BSPLINE_HD static inline double
bspline_motion_scale_of_bin (int bin)
{
  double s = 1.4826 * (bin + 0.5) / BSPLINE_MOTION_HIST_SCALE;

  return bin < 0 || s < 0.5 ? 0.5 : s;
}

/* Solves the symmetric positive definite system hh x = b (upper triangle
 * of hh given, n x n row-major) by Cholesky; returns 0 when it is not
 * positive definite. */
BSPLINE_HD static inline int
bspline_motion_solve (const double *hh, const double *b, int n, double *x)
{
  double l[BSPLINE_MOTION_MAX_PARAMS * BSPLINE_MOTION_MAX_PARAMS];
  double y[BSPLINE_MOTION_MAX_PARAMS];
  int i, j, k;

  for (i = 0; i < n; i++)
    for (j = 0; j <= i; j++) {
      double s = hh[j * n + i];

      for (k = 0; k < j; k++)
        s -= l[i * n + k] * l[j * n + k];
      if (i == j) {
        if (!(s > 1e-12 * fabs (hh[i * n + i])) || s <= 0.0)
          return 0;
        l[i * n + i] = sqrt (s);
      } else {
        l[i * n + j] = s / l[j * n + j];
      }
    }
  for (i = 0; i < n; i++) {
    double s = b[i];

    for (k = 0; k < i; k++)
      s -= l[i * n + k] * y[k];
    y[i] = s / l[i * n + i];
  }
  for (i = n - 1; i >= 0; i--) {
    double s = y[i];

    for (k = i + 1; k < n; k++)
      s -= l[k * n + i] * x[k];
    x[i] = s / l[i * n + i];
  }
  return 1;
}

/* r = a after b for 2x3 maps (r may be a or b): motion.c's
 * bspline_affine_compose, here so that the GPU's step composes alike. */
BSPLINE_HD static inline void
bspline_motion_compose (const double *a, const double *b, double *r)
{
  double m[6];
  int k;

  m[0] = a[0] * b[0] + a[1] * b[3];
  m[1] = a[0] * b[1] + a[1] * b[4];
  m[2] = a[0] * b[2] + a[1] * b[5] + a[2];
  m[3] = a[3] * b[0] + a[4] * b[3];
  m[4] = a[3] * b[1] + a[4] * b[4];
  m[5] = a[3] * b[2] + a[4] * b[5] + a[5];
  for (k = 0; k < 6; k++)
    r[k] = m[k];
}

/* The inverse of a 2x3 map into inv (motion.c's bspline_affine_invert);
 * returns 0 when a is singular or not finite. */
BSPLINE_HD static inline int
bspline_motion_invert (const double *a, double *inv)
{
  double det = a[0] * a[4] - a[1] * a[3], m[6];
  int k;

  for (k = 0; k < 6; k++)
    if (!isfinite (a[k]))
      return 0;
  if (det == 0.0 || !isfinite (1.0 / det))
    return 0;
  m[0] = a[4] / det;
  m[1] = -a[1] / det;
  m[3] = -a[3] / det;
  m[4] = a[0] / det;
  m[2] = -(m[0] * a[2] + m[1] * a[5]);
  m[5] = -(m[3] * a[2] + m[4] * a[5]);
  for (k = 0; k < 6; k++)
    inv[k] = m[k];
  return 1;
}

/* One step's update of the warp m (level pixels, template -> image) from
 * the normal equations hh dp = b of the parameters about (cx, cy): m <- m
 * o W(dp)^-1.  Returns -1 when the equations are singular or the update
 * not finite, 1 when the step moved no corner of the w x h level by
 * `tolerance` or more (and it is not the level's first step), else 0. */
BSPLINE_HD static inline int
bspline_motion_gn_update (double *m, const double *hh, const double *b,
    int np, double cx, double cy, int w, int h, int step, double tolerance)
{
  double dp[BSPLINE_MOTION_MAX_PARAMS], dm[6], inv[6];
  double ta, tb, tc, td, tx, ty, shift = 0.0;
  int k;

  if (!bspline_motion_solve (hh, b, np, dp))
    return -1;
  /* the warp of the parameters dp about the centre:
   * x' = c + L (x - c) + t */
  if (np == 4) {
    ta = 1.0 + dp[0];
    tb = -dp[1];
    tc = dp[1];
    td = 1.0 + dp[0];
    tx = dp[2];
    ty = dp[3];
  } else {
    ta = 1.0 + dp[0];
    tb = dp[1];
    tx = dp[2];
    tc = dp[3];
    td = 1.0 + dp[4];
    ty = dp[5];
  }
  dm[0] = ta;
  dm[1] = tb;
  dm[2] = cx + tx - ta * cx - tb * cy;
  dm[3] = tc;
  dm[4] = td;
  dm[5] = cy + ty - tc * cx - td * cy;
  /* m o W(dp)^-1 */
  if (!bspline_motion_invert (dm, inv))
    return -1;
  bspline_motion_compose (m, inv, m);
  /* the largest move of a corner of the level by the step */
  for (k = 0; k < 4; k++) {
    double x = (k & 1) ? (double) w : 0.0, y = (k & 2) ? (double) h : 0.0;
    double mx = dm[0] * x + dm[1] * y + dm[2] - x;
    double my = dm[3] * x + dm[4] * y + dm[5] - y;

    shift = fmax (shift, hypot (mx, my));
  }
  if (!isfinite (shift))
    return -1;
  return shift < tolerance && step > 0 ? 1 : 0;
}

#endif /* BSPLINE_MOTION_SOLVE_H */
