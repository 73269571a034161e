/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lens.c: what a plan checks of its lens stages before it runs them
 * (bspline-stage.h holds the model itself, for both engines): the
 * coefficients, the radius where the model folds over, and that the frame
 * needs no point beyond it, each stage on the frame's points as the
 * stages before it deliver them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bspline.h"
#include "bspline-stage.h"
#include "bspline-projection-setup.h"
#include "lens.h"

#define LENS_PI 3.14159265358979323846
/* Coefficients larger than this are refused as absurd: with |n| <= 1e3
 * (a field of view of 179.9 degrees) the terms would overflow a double. */
#define LENS_MAX_COEFF 1e12
/* Samples of the radial function per unit of radius in the fold search
 * (at least LENS_FOLD_MIN_STEPS in all). */
#define LENS_FOLD_STEPS_PER_UNIT 4096.0
#define LENS_FOLD_MIN_STEPS 4096
#define LENS_FOLD_MAX_STEPS (1L << 20)
/* Samples of each edge of the output frame, and of the interior grid
 * along each axis, where the stage is checked. */
#define LENS_EDGE_SAMPLES 128
#define LENS_GRID_SAMPLES 33

const char *
bspline_lens_model_name (int model)
{
  switch (model) {
    case BSPLINE_LENS_BROWN:
      return "brown";
    case BSPLINE_LENS_FISHEYE:
      return "fisheye";
    case BSPLINE_LENS_STMAP:
      return "stmap";
    case BSPLINE_LENS_PROJECTION:
      return "projection";
    default:
      return "none";
  }
}

int
bspline_lens_n_coeffs (int model)
{
  return model == BSPLINE_LENS_FISHEYE ? 4 :
      model == BSPLINE_LENS_BROWN ? BSPLINE_LENS_MAX_COEFFS : 0;
}

bspline_status
bspline_lens_validate_coeffs (int model, const double *k, int n, char *msg,
    size_t msg_len)
{
  int i;

  if (model != BSPLINE_LENS_BROWN && model != BSPLINE_LENS_FISHEYE) {
    if (msg)
      snprintf (msg, msg_len, "unknown lens model %d", model);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (n < 0 || n > bspline_lens_n_coeffs (model)) {
    if (msg)
      snprintf (msg, msg_len, "the %s model takes at most %d distortion "
          "coefficients, not %d", bspline_lens_model_name (model),
          bspline_lens_n_coeffs (model), n);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  for (i = 0; i < n; i++)
    if (!isfinite (k[i]) || fabs (k[i]) > LENS_MAX_COEFF) {
      if (msg)
        snprintf (msg, msg_len, "distortion coefficient %d is %g: it must "
            "be finite and at most %g in magnitude", i + 1, k[i],
            LENS_MAX_COEFF);
      return BSPLINE_ERROR_INVALID_ARGUMENT;
    }
  return BSPLINE_OK;
}

/* The first radius in (0, limit] where the radial function stops rising,
 * refined by bisection; no fold there: INFINITY (brown) or pi / 2
 * (fisheye, whose theta never reaches it). */
static double
lens_fold (const bspline_lens * lens, double limit)
{
  double none = lens->model == BSPLINE_LENS_FISHEYE ? 0.5 * LENS_PI : INFINITY;
  double step, prev = 0.0;
  long i, n;

  if (lens->model == BSPLINE_LENS_FISHEYE && limit > 0.5 * LENS_PI)
    limit = 0.5 * LENS_PI;
  /* a frame that needs an infinite radius (a chain whose stages send a
   * point to infinity): searched as far as the steps go, and refused by
   * the caller, whose radius is beyond any fold found */
  if (!(limit < 1e6))
    limit = 1e6;
  n = (long) ceil (limit * LENS_FOLD_STEPS_PER_UNIT);
  if (n < LENS_FOLD_MIN_STEPS)
    n = LENS_FOLD_MIN_STEPS;
  if (n > LENS_FOLD_MAX_STEPS)
    n = LENS_FOLD_MAX_STEPS;
  step = limit / n;
  for (i = 1; i <= n; i++) {
    double s = i * step;
    if (!bspline_lens_rises (lens, s)) {
      double lo = prev, hi = s;
      int k;
      for (k = 0; k < 60; k++) {
        double mid = 0.5 * (lo + hi);
        if (bspline_lens_rises (lens, mid))
          lo = mid;
        else
          hi = mid;
      }
      return lo;
    }
    prev = s;
  }
  return none;
}

/* The output sample points where the stage is checked: each edge, and a
 * grid inside. */
static int
lens_check_point (int i, int dst_width, int dst_height, double *u, double *v)
{
  const int E = LENS_EDGE_SAMPLES, G = LENS_GRID_SAMPLES;
  if (i < 4 * E) {
    double t = (double) (i % E) / E;
    switch (i / E) {
      case 0:
        *u = t * dst_width;
        *v = 0.0;
        break;
      case 1:
        *u = dst_width;
        *v = t * dst_height;
        break;
      case 2:
        *u = (1.0 - t) * dst_width;
        *v = dst_height;
        break;
      default:
        *u = 0.0;
        *v = (1.0 - t) * dst_height;
        break;
    }
    return 1;
  }
  i -= 4 * E;
  if (i >= G * G)
    return 0;
  *u = (i % G + 0.5) * dst_width / G;
  *v = (i / G + 0.5) * dst_height / G;
  return 1;
}

bspline_status
bspline_lens_prepare (bspline_lens * lens, const double m[9],
    const bspline_lens * before, int n_before, int dst_width, int dst_height,
    char *msg, size_t msg_len)
{
  double need = 0.0, at_u = 0.0, at_v = 0.0, u, v;
  int i, fisheye = lens->model == BSPLINE_LENS_FISHEYE;
  bspline_status status;

  if (lens->model == BSPLINE_LENS_STMAP) {
    /* a map has no fold to look for: it is what it is, and points past
     * its frame follow its tangent at the edge (bspline_stmap_map) */
    if (!lens->map || lens->map_w < 1 || lens->map_h < 1) {
      if (msg)
        snprintf (msg, msg_len, "the STMap stage has no map");
      return BSPLINE_ERROR_INVALID_ARGUMENT;
    }
    lens->solve = 0;
    lens->fold = lens->fold_r = INFINITY;
    return BSPLINE_OK;
  }
  if (lens->model == BSPLINE_LENS_PROJECTION) {
    /* no fold either: directions a projection does not see are the fill
     * (bspline_projection_map); the types are checked, the ranges were
     * when the stage was set up (bspline_projection_setup) */
    const bspline_projection *p = &lens->projection;
    if (!bspline_projection_type_name (p->in.type)
        || !bspline_projection_type_name (p->out.type)
        || !(p->in.width >= 1.0 && p->in.height >= 1.0
            && p->out.width >= 1.0 && p->out.height >= 1.0)) {
      if (msg)
        snprintf (msg, msg_len, "the projection stage is not set up "
            "(types %d and %d)", p->in.type, p->out.type);
      return BSPLINE_ERROR_INVALID_ARGUMENT;
    }
    lens->solve = 0;
    lens->fold = lens->fold_r = INFINITY;
    return BSPLINE_OK;
  }
  status = bspline_lens_validate_coeffs (lens->model, lens->k,
      BSPLINE_LENS_MAX_COEFFS * !fisheye + 4 * fisheye, msg, msg_len);
  if (status != BSPLINE_OK)
    return status;
  if (fisheye)
    memset (lens->k + 4, 0, sizeof (lens->k) - 4 * sizeof (lens->k[0]));

  /* the largest radius the frame needs: the model's own (theta for the
   * fisheye) where the sampler applies it, the distorted one where it
   * solves it */
  for (i = 0; lens_check_point (i, dst_width, dst_height, &u, &v); i++) {
    double nx, ny, r, s;
    if (!bspline_stage_map_point (m, before, n_before, u, v, &nx, &ny))
      continue;
    r = sqrt (nx * nx + ny * ny);
    s = fisheye && !lens->solve ? atan (r) : r;
    if (s > need || !isfinite (r)) {
      need = isfinite (r) ? s : r;
      at_u = u;
      at_v = v;
      if (!isfinite (r))
        break;
    }
  }
  if (!isfinite (need)) {
    /* no lens model's doing: the matrices before it overflow */
    if (msg)
      snprintf (msg, msg_len, "output point (%.1f, %.1f) maps to a "
          "normalised lens coordinate that is not finite (radius %g): the "
          "camera matrices or the geometry before the lens (translation, "
          "zoom, matrix) are beyond double precision's range",
          at_u, at_v, need);
    return BSPLINE_ERROR_INVALID_TRANSFORM;
  }

  if (!lens->solve) {
    lens->fold = lens_fold (lens, need * (1.0 + 1e-9) + 1e-12);
    if (!(need < lens->fold) && !lens->fill_fold) {
      if (msg)
        snprintf (msg, msg_len, "the %s lens model folds over inside the "
            "frame: its radial function stops growing at %s %.6g, and "
            "output point (%.1f, %.1f) needs %.6g",
            bspline_lens_model_name (lens->model),
            fisheye ? "theta" : "normalised radius", lens->fold, at_u, at_v,
            need);
      return BSPLINE_ERROR_INVALID_TRANSFORM;
    }
  } else {
    /* the radius whose image is the largest distorted radius needed */
    double limit = 1.0, top, ds;
    if (fisheye)
      limit = 0.5 * LENS_PI;
    else
      while (limit < 1e6 && bspline_lens_rises (lens, limit)
          && bspline_lens_radial (lens, limit, &ds) <= need)
        limit *= 2.0;
    lens->fold = lens_fold (lens, limit);
    top = isfinite (lens->fold) ? lens->fold : limit;
    if (!(fisheye && lens->fold == 0.5 * LENS_PI)
        && !(bspline_lens_radial (lens, top, &ds) > need)) {
      if (msg)
        snprintf (msg, msg_len, "the %s lens model folds over before it "
            "reaches the frame: its radial function stops growing at %s "
            "%.6g (distorted radius %.6g), and output point (%.1f, %.1f) "
            "needs distorted radius %.6g",
            bspline_lens_model_name (lens->model),
            fisheye ? "theta" : "normalised radius", top,
            bspline_lens_radial (lens, top, &ds), at_u, at_v, need);
      return BSPLINE_ERROR_INVALID_TRANSFORM;
    }
  }

  /* the sampler's test of a point, once per plan: r (not theta, whose
   * arctangent the fisheye's own evaluation takes again) */
  lens->fold_r = !fisheye ? lens->fold : lens->fold < 0.5 * LENS_PI ?
      tan (lens->fold) : INFINITY;

  /* the tangential and prism terms: the whole map must stay one-to-one
   * (a positive Jacobian) where the frame samples it */
  for (i = 0; lens_check_point (i, dst_width, dst_height, &u, &v); i++) {
    double nx, ny, x, y, J[4];
    if (!bspline_stage_map_point (m, before, n_before, u, v, &nx, &ny))
      continue;
    if (!lens->solve && !(sqrt (nx * nx + ny * ny) < lens->fold_r))
      continue;                 /* past the fold: the fill (fill_fold) */
    if (lens->solve) {
      double rd = sqrt (nx * nx + ny * ny), ds;
      if (fisheye && !(rd < bspline_lens_radial (lens, lens->fold, &ds)))
        continue;               /* outside the image circle: the fill */
      if (!bspline_lens_solve (lens, nx, ny, &x, &y)) {
        if (msg)
          snprintf (msg, msg_len, "the %s lens model cannot be inverted at "
              "output point (%.1f, %.1f) (normalised (%.6g, %.6g)): it "
              "folds over there", bspline_lens_model_name (lens->model), u,
              v, nx, ny);
        return BSPLINE_ERROR_INVALID_TRANSFORM;
      }
    } else {
      x = nx;
      y = ny;
    }
    bspline_lens_distort (lens, x, y, &nx, &ny, J);
    if (!(J[0] * J[3] - J[1] * J[2] > 0.0)) {
      if (msg)
        snprintf (msg, msg_len, "the %s lens model folds over inside the "
            "frame near output point (%.1f, %.1f): its Jacobian is not "
            "positive there (check the tangential and prism coefficients)",
            bspline_lens_model_name (lens->model), u, v);
      return BSPLINE_ERROR_INVALID_TRANSFORM;
    }
  }
  return BSPLINE_OK;
}

/* Where the map's footprint stays under LENS_NO_WIDEN_BELOW input pixels
 * per output pixel at every sampled point (an undistortion onto the
 * camera's own focal length magnifies everywhere), no pixel widens, and
 * the engines need not compute the map's Jacobian per pixel: the margin
 * to 1 covers the footprint's growth between samples. */
#define LENS_NO_WIDEN_BELOW 0.9

int
bspline_lens_never_widens (const bspline_lens * lenses, int n_lenses,
    const double m[9], int dst_width, int dst_height)
{
  double u, v;
  int i;

  for (i = 0; lens_check_point (i, dst_width, dst_height, &u, &v); i++) {
    double x, y, sx, sy;
    if (bspline_stage_footprint_size (m, lenses, n_lenses, u, v, &x, &y, &sx,
            &sy)
        && !(sx < LENS_NO_WIDEN_BELOW && sy < LENS_NO_WIDEN_BELOW))
      return 0;
  }
  return 1;
}
