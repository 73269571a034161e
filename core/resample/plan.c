/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* plan.c: parameters and resampling plans.
 *
 * A plan holds everything that depends only on the parameters, the
 * transform and the frame geometry: the prefilter's poles and truncation
 * indices, the padding of the coefficient planes and, for axis-aligned
 * maps, the taps and weights of every output row and column. */
#include "bspline-stmap.h"
#include "atlas.h"
#include "lens.h"
#include "resample.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long plan_serial;

void
bspline_params_init (bspline_params * params)
{
  memset (params, 0, sizeof (*params));
  params->method = BSPLINE_METHOD_BSPLINE;
  params->order = 3;
  params->bicubic_a = -0.5;
  params->boundary = BSPLINE_BOUNDARY_REFLECT;
  params->precision = BSPLINE_PRECISION_FLOAT;
  params->antialias = BSPLINE_ANTIALIAS_LEAST_SQUARES;
}

bspline_status
bspline_params_validate (const bspline_params * p, char *msg, size_t msg_len)
{
  int c;
  if (!p) {
    bspline_set_error (msg, msg_len, "no parameters given");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (p->method != BSPLINE_METHOD_BSPLINE
      && p->method != BSPLINE_METHOD_BICUBIC) {
    bspline_set_error (msg, msg_len, "unknown method %d", (int) p->method);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (p->method == BSPLINE_METHOD_BSPLINE
      && (p->order < 0 || p->order > BSPLINE_MAX_ORDER)) {
    bspline_set_error (msg, msg_len,
        "B-spline order %d is out of range (0 to %d)", p->order,
        BSPLINE_MAX_ORDER);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (p->method == BSPLINE_METHOD_BICUBIC && !(isfinite (p->bicubic_a)
          && p->bicubic_a >= -3.0 && p->bicubic_a <= 0.0)) {
    bspline_set_error (msg, msg_len,
        "bicubic parameter a = %g is out of range (-3 to 0)", p->bicubic_a);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if ((int) p->boundary < BSPLINE_BOUNDARY_REFLECT
      || (int) p->boundary > BSPLINE_BOUNDARY_CONSTANT) {
    bspline_set_error (msg, msg_len, "unknown boundary %d", (int) p->boundary);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if ((int) p->precision < BSPLINE_PRECISION_FLOAT
      || (int) p->precision > BSPLINE_PRECISION_COMPACT) {
    bspline_set_error (msg, msg_len, "unknown precision %d",
        (int) p->precision);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if ((int) p->antialias < BSPLINE_ANTIALIAS_NONE
      || (int) p->antialias > BSPLINE_ANTIALIAS_WIDEN) {
    bspline_set_error (msg, msg_len, "unknown antialias method %d",
        (int) p->antialias);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  for (c = 0; c < BSPLINE_MAX_CHANNELS; c++)
    if (!isfinite (p->fill[c])) {
      bspline_set_error (msg, msg_len, "fill value of channel %d is not "
          "finite", c);
      return BSPLINE_ERROR_INVALID_ARGUMENT;
    }
  return BSPLINE_OK;
}

/* The prefilter of the plan, that of B-splines of degree `degree` (the
 * order, or the Gram filter's 2 n + 1): poles and truncation indices for
 * the plan's precision, with eps' = eps rho / 2 for a 2-D image
 * ([BD19] Theorem 2). */
static void
setup_prefilter (bspline_plan * plan, int degree)
{
  const bspline_params *p = &plan->params;
  double eps = plan->use_double ? BSPLINE_EPSILON_DOUBLE :
      BSPLINE_EPSILON_FLOAT;
  int i, largest = 0;

  plan->prefilter = p->method == BSPLINE_METHOD_BSPLINE && degree >= 2;
  plan->setup.boundary = p->boundary;
  plan->setup.n_poles = plan->prefilter ? bspline_n_poles (degree) : 0;
  plan->gain = plan->prefilter ? bspline_prefilter_gain (degree) : 1.0;
  bspline_plan_filter_axes (plan, 1, 1);
  eps *= bspline_prefilter_rho (degree) / 2.0;
  for (i = 0; i < plan->setup.n_poles; i++) {
    plan->setup.poles[i] = bspline_pole (degree, i);
    plan->setup.truncation[i] = bspline_truncation_index (degree, i, eps);
    if (plan->setup.truncation[i] < 1)
      plan->setup.truncation[i] = 1;
    if (plan->setup.truncation[i] > largest)
      largest = plan->setup.truncation[i];
  }
  /* clamp and constant are not transmitted by the exponential filters
   * ([BD19] section 2.2, approach 1): the line is extended by `pad` samples
   * of the extension, long enough for every intermediate signal to be
   * constant beyond it to the target precision; constant needs at least one
   * sample of fill even without a prefilter. */
  plan->pad = 0;
  if (p->boundary == BSPLINE_BOUNDARY_CLAMP
      || p->boundary == BSPLINE_BOUNDARY_CONSTANT) {
    if (plan->prefilter)
      plan->pad = largest + degree + 1;
    else if (p->boundary == BSPLINE_BOUNDARY_CONSTANT)
      plan->pad = 1;
  }
}

void
bspline_plan_filter_axes (bspline_plan * plan, int x, int y)
{
  plan->filter_x = x;
  plan->filter_y = y;
  plan->gain2 = (x ? plan->gain : 1.0) * (y ? plan->gain : 1.0);
}

bspline_status
bspline_axis_table_alloc (bspline_axis_table * t, int n_out, int n_taps)
{
  t->n_out = n_out;
  t->n_taps = n_taps;
  t->index = malloc (sizeof (int) * (size_t) n_out * n_taps);
  t->weight_d = calloc ((size_t) n_out * n_taps, sizeof (double));
  t->weight_f = malloc (sizeof (float) * (size_t) n_out * n_taps);
  t->first = malloc (sizeof (int) * (size_t) n_out);
  return t->index && t->weight_d && t->weight_f && t->first ? BSPLINE_OK :
      BSPLINE_ERROR_NO_MEMORY;
}

static void
axis_table_clear (bspline_axis_table * t)
{
  free (t->index);
  free (t->first);
  free (t->weight_d);
  free (t->weight_f);
  memset (t, 0, sizeof (*t));
}

/* Taps and weights of output samples j = 0 .. n_out - 1 of one axis whose
 * input sample coordinate is scale * (j + 0.5) + offset - 0.5.  Where the
 * map shrinks (|scale| > 1) and antialiasing is on but not by least
 * squares (antialias=widen, or the Keys kernel, or a reduction whose
 * tables would be too large), the kernel is widened by |scale| and its
 * weights renormalised to sum to one, as zimg and videoscale do for
 * downscaling. */
bspline_status
bspline_build_axis_table (const bspline_plan * plan,
    const bspline_axis * axis, bspline_axis_table * t, int n_out,
    double scale, double offset)
{
  const bspline_params *p = &plan->params;
  const int len = axis->len;
  double radius = bspline_kernel_radius (p->method, p->order);
  double widen = 1.0;
  int j, k;

  if (p->antialias != BSPLINE_ANTIALIAS_NONE && fabs (scale) > 1.0 + 1e-9
      && !bspline_reduction_axis (p, scale))
    widen = fabs (scale);
  if (widen > 1.0) {
    double most = (double) BSPLINE_MAX_TABLE_ENTRIES / n_out;
    /* Past the whole source there is nothing more to average; past the
     * table limit the kernel is kept at the largest affordable width. */
    if (widen > len + 2.0)
      widen = len + 2.0;
    if (2.0 * radius * widen + 1.0 > most)
      widen = (most - 1.0) / (2.0 * radius);
    if (widen < 1.0)
      widen = 1.0;
  }
  if (bspline_axis_table_alloc (t, n_out, widen > 1.0 ?
          (int) ceil (2.0 * radius * widen) + 1 :
          p->method == BSPLINE_METHOD_BICUBIC ? 4 : p->order + 1)
      != BSPLINE_OK)
    return BSPLINE_ERROR_NO_MEMORY;

  for (j = 0; j < n_out; j++) {
    double x = scale * (j + 0.5) + offset - 0.5, reduced = x, frac;
    double *w = t->weight_d + (size_t) j * t->n_taps;
    int n;
    t->first[j] = bspline_axis_origin (axis, &reduced, widen, &n, &frac)
        + axis->pad;
    bspline_axis_taps_d (axis, x, widen, t->index + (size_t) j * t->n_taps, w);
    for (k = 0; k < t->n_taps; k++)
      t->weight_f[(size_t) j * t->n_taps + k] = (float) w[k];
  }
  return BSPLINE_OK;
}

bspline_status
bspline_plan_new (const bspline_params * params, const double inverse[9],
    int src_width, int src_height, int dst_width, int dst_height,
    int channels, bspline_plan ** out, char *msg, size_t msg_len)
{
  return bspline_plan_new_lens (params, inverse, NULL, src_width, src_height,
      dst_width, dst_height, channels, out, msg, msg_len);
}

bspline_status
bspline_plan_new_lens (const bspline_params * params,
    const double inverse[9], const bspline_lens * lens, int src_width,
    int src_height, int dst_width, int dst_height, int channels,
    bspline_plan ** out, char *msg, size_t msg_len)
{
  return bspline_plan_new_chain (params, inverse, lens,
      lens && lens->model != BSPLINE_LENS_NONE, src_width, src_height,
      dst_width, dst_height, channels, out, msg, msg_len);
}

/* Lens stage k of n, checked and prepared (bspline_lens_prepare) on the
 * frame's points through m and the stages before it, stages[0 .. k - 1],
 * already prepared; into stages[k]. */
static bspline_status
plan_prepare_lens (const bspline_lens * lens, int k, int n,
    const double m[9], bspline_lens * stages, int dst_width, int dst_height,
    char *msg, size_t msg_len)
{
  bspline_lens *stage = &stages[k];
  double check[9];
  char what[64] = "";
  bspline_status status;

  /* a chain's message says which of its stages fails */
  if (n > 1)
    snprintf (what, sizeof (what), " (lens stage %d of %d)", k + 1, n);
  *stage = *lens;
  if (!bspline_matrix_is_finite (stage->post)) {
    bspline_set_error (msg, msg_len, "the lens stage's camera matrix (its "
        "post homography) has NaN or infinite entries%s", what);
    return BSPLINE_ERROR_INVALID_TRANSFORM;
  }
  if (!bspline_matrix_invert (stage->post, check)) {
    bspline_set_error (msg, msg_len, "the lens stage's camera matrix (its "
        "post homography) is singular%s", what);
    return BSPLINE_ERROR_INVALID_TRANSFORM;
  }
  /* (bspline_lens_prepare refuses other models too; NONE, no stage, is
   * refused here, where a chain holds stages only) */
  if (stage->model == BSPLINE_LENS_NONE) {
    bspline_set_error (msg, msg_len, "a lens stage has no model%s", what);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (stage->model == BSPLINE_LENS_STMAP && (!stage->stmap
          || stage->map != bspline_stmap_coefficients (stage->stmap, NULL)
          || stage->map_w != bspline_stmap_width (stage->stmap)
          || stage->map_h != bspline_stmap_height (stage->stmap))) {
    bspline_set_error (msg, msg_len, "the STMap stage's map is not the "
        "one its object holds%s", what);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (stage->model != BSPLINE_LENS_STMAP)
    stage->stmap = NULL;
  status = bspline_lens_prepare (stage, m, stages, k, dst_width, dst_height,
      msg, msg_len);
  if (status != BSPLINE_OK && n > 1 && msg && msg_len > 0) {
    size_t len = strlen (msg);
    if (len + strlen (what) < msg_len)
      memcpy (msg + len, what, strlen (what) + 1);
  }
  return status;
}

static bspline_status plan_new_geometry (const bspline_params * params,
    const double inverse[9], const bspline_lens * lenses, int n_lenses,
    int src_width, int src_height, int dst_width, int dst_height,
    int channels, bspline_plan ** out, char *msg, size_t msg_len);

/* A chain whose last stage (the one that reaches the input) is a
 * projection from an equirect or a cube map: the plan on the input's
 * atlas (core/projection/atlas.h), held by the plan on the frame as it is
 * (whose points, bspline_plan_map_point, are the frame's), which the
 * engines run by gathering the atlas first; any other chain, or a plane
 * the atlas does not fit, as it is. */
static bspline_status
plan_new_atlas (const bspline_params * params, const double inverse[9],
    const bspline_lens * lenses, int n_lenses, int src_width,
    int src_height, int dst_width, int dst_height, int channels,
    bspline_plan ** out, char *msg, size_t msg_len)
{
  bspline_lens stages[BSPLINE_CHAIN_MAX_LENSES];
  bspline_atlas *atlas;
  bspline_plan *plan, *inner;
  bspline_status status;

  memcpy (stages, lenses, sizeof (*lenses) * n_lenses);
  status = bspline_atlas_new (&stages[n_lenses - 1], src_width, src_height,
      bspline_atlas_margin (params), &atlas);
  if (status != BSPLINE_OK) {
    bspline_set_error (msg, msg_len, "out of memory for the atlas of a "
        "%dx%d input", src_width, src_height);
    return status;
  }
  if (!atlas)
    return plan_new_geometry (params, inverse, lenses, n_lenses, src_width,
        src_height, dst_width, dst_height, channels, out, msg, msg_len);
  status = plan_new_geometry (params, inverse, stages, n_lenses,
      atlas->width, atlas->height, dst_width, dst_height, channels, &inner,
      msg, msg_len);
  if (status != BSPLINE_OK) {
    bspline_atlas_free (atlas);
    return status;
  }
  status = plan_new_geometry (params, inverse, lenses, n_lenses, src_width,
      src_height, dst_width, dst_height, channels, &plan, msg, msg_len);
  if (status != BSPLINE_OK) {
    bspline_atlas_free (atlas);
    bspline_plan_free (inner);
    return status;
  }
  plan->atlas = atlas;
  plan->atlas_plan = inner;
  *out = plan;
  return BSPLINE_OK;
}

bspline_status
bspline_plan_new_chain (const bspline_params * params,
    const double inverse[9], const bspline_lens * lenses, int n_lenses,
    int src_width, int src_height, int dst_width, int dst_height,
    int channels, bspline_plan ** out, char *msg, size_t msg_len)
{
  bspline_status status;

  if (!out) {
    bspline_set_error (msg, msg_len, "no plan pointer given");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  *out = NULL;
  status = bspline_params_validate (params, msg, msg_len);
  if (status != BSPLINE_OK)
    return status;
  if (src_width < 1 || src_height < 1 || dst_width < 1 || dst_height < 1
      || src_width > BSPLINE_MAX_SIDE || src_height > BSPLINE_MAX_SIDE
      || dst_width > BSPLINE_MAX_SIDE || dst_height > BSPLINE_MAX_SIDE) {
    bspline_set_error (msg, msg_len, "frame sizes %dx%d -> %dx%d are out of "
        "range (1 to %d per side)", src_width, src_height, dst_width,
        dst_height, BSPLINE_MAX_SIDE);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (channels < 1 || channels > BSPLINE_MAX_CHANNELS) {
    bspline_set_error (msg, msg_len, "%d channels is out of range (1 to %d)",
        channels, BSPLINE_MAX_CHANNELS);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (n_lenses < 0 || n_lenses > BSPLINE_CHAIN_MAX_LENSES
      || (n_lenses > 0 && !lenses)) {
    bspline_set_error (msg, msg_len, "%d lens stages%s: a plan takes 0 to "
        "%d", n_lenses, n_lenses > 0 && !lenses ? " but none given" : "",
        BSPLINE_CHAIN_MAX_LENSES);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (!inverse || !bspline_matrix_is_finite (inverse)) {
    bspline_set_error (msg, msg_len, "the transform matrix is missing or "
        "has NaN or infinite entries");
    return BSPLINE_ERROR_INVALID_TRANSFORM;
  }
  {
    double check[9];
    if (!bspline_matrix_invert (inverse, check)) {
      bspline_set_error (msg, msg_len, "the transform matrix is singular: "
          "it maps the frame onto a line or a point");
      return BSPLINE_ERROR_INVALID_TRANSFORM;
    }
  }

  if (n_lenses > 0)
    return plan_new_atlas (params, inverse, lenses, n_lenses, src_width,
        src_height, dst_width, dst_height, channels, out, msg, msg_len);
  return plan_new_geometry (params, inverse, lenses, n_lenses, src_width,
      src_height, dst_width, dst_height, channels, out, msg, msg_len);
}

/* bspline_plan_new_chain on checked arguments, with the input as it is. */
static bspline_status
plan_new_geometry (const bspline_params * params,
    const double inverse[9], const bspline_lens * lenses, int n_lenses,
    int src_width, int src_height, int dst_width, int dst_height,
    int channels, bspline_plan ** out, char *msg, size_t msg_len)
{
  bspline_plan *plan;
  bspline_status status;
  const double *m = inverse;
  bspline_lens stages[BSPLINE_CHAIN_MAX_LENSES];
  int k;

  for (k = 0; k < n_lenses; k++) {
    status = plan_prepare_lens (&lenses[k], k, n_lenses, inverse, stages,
        dst_width, dst_height, msg, msg_len);
    if (status != BSPLINE_OK)
      return status;
  }

  if (bspline_plan_alloc (params, inverse, src_width, src_height, dst_width,
          dst_height, channels, params->order, &plan) != BSPLINE_OK) {
    bspline_set_error (msg, msg_len, "out of memory for a plan");
    return BSPLINE_ERROR_NO_MEMORY;
  }
  if (n_lenses > 0) {
    /* lens stages: the general path, its kernel widened per pixel by the
     * whole geometry's Jacobian wherever antialiasing is on */
    plan->n_lenses = n_lenses;
    for (k = 0; k < n_lenses; k++) {
      plan->lens[k] = stages[k];
      /* the plan keeps the map alive as long as it runs */
      bspline_stmap_ref (plan->lens[k].stmap);
    }
    plan->widen = params->antialias != BSPLINE_ANTIALIAS_NONE
        && !bspline_lens_never_widens (stages, n_lenses, inverse, dst_width,
        dst_height);
    /* without it (no memory for a few bytes), every execution computes
     * its points */
    plan->points = bspline_point_cache_new ();
    *out = plan;
    return BSPLINE_OK;
  }

  /* m[8] < 0: every output pixel is beyond the horizon (W = m[8]), which
   * the general path fills (bspline_map_point) */
  plan->separable = m[1] == 0.0 && m[3] == 0.0 && m[6] == 0.0
      && m[7] == 0.0 && m[8] > 0.0;
  if (plan->separable) {
    double sx = m[0] / m[8], ox = m[2] / m[8];
    double sy = m[4] / m[8], oy = m[5] / m[8];
    double x_end = sx * dst_width + ox, y_end = sy * dst_height + oy;
    if (!isfinite (sx) || !isfinite (ox) || !isfinite (sy) || !isfinite (oy)
        || !isfinite (x_end) || !isfinite (y_end)) {
      bspline_plan_free (plan);
      bspline_set_error (msg, msg_len, "the transform sends the frame out "
          "of the range of representable coordinates");
      return BSPLINE_ERROR_INVALID_TRANSFORM;
    }
    status = BSPLINE_ERROR_NO_MEMORY;
    if (bspline_reduction_axis (params, sx)
        || bspline_reduction_axis (params, sy)) {
      status = bspline_reduction_new (plan, sx, ox, sy, oy);
      if (status != BSPLINE_OK) {
        /* tables past BSPLINE_MAX_TABLE_ENTRIES (a shrink by thousands)
         * or no memory for them: the widened kernel, whose tables are
         * bounded */
        bspline_reduction_free (plan->reduce);
        bspline_plan_free (plan->shrink);
        bspline_plan_free (plan->warp);
        plan->reduce = NULL;
        plan->params.antialias = BSPLINE_ANTIALIAS_WIDEN;
      }
    }
    if (!plan->reduce) {
      status = bspline_build_axis_table (plan, &plan->axis_x, &plan->x,
          dst_width, sx, ox);
      if (status == BSPLINE_OK)
        status = bspline_build_axis_table (plan, &plan->axis_y, &plan->y,
            dst_height, sy, oy);
    }
    if (status != BSPLINE_OK) {
      bspline_plan_free (plan);
      bspline_set_error (msg, msg_len, "out of memory for the weight tables "
          "of a %dx%d output", dst_width, dst_height);
      return status;
    }
  } else {
    plan->widen = params->antialias != BSPLINE_ANTIALIAS_NONE;
    status = bspline_warp_reduction_new (plan, msg, msg_len);
    if (status != BSPLINE_OK) {
      bspline_plan_free (plan);
      return status;
    }
  }
  *out = plan;
  return BSPLINE_OK;
}

bspline_status
bspline_plan_alloc (const bspline_params * params, const double inverse[9],
    int src_width, int src_height, int dst_width, int dst_height,
    int channels, int degree, bspline_plan ** out)
{
  bspline_plan *plan = calloc (1, sizeof (*plan));
  *out = plan;
  if (!plan)
    return BSPLINE_ERROR_NO_MEMORY;
  /* engines cache per-plan device state by serial, not by address,
   * since a freed plan's address can come back */
  plan->serial = __atomic_add_fetch (&plan_serial, 1, __ATOMIC_RELAXED);
  plan->params = *params;
  memcpy (plan->inverse, inverse, sizeof (plan->inverse));
  plan->src_width = src_width;
  plan->src_height = src_height;
  plan->dst_width = dst_width;
  plan->dst_height = dst_height;
  plan->channels = channels;
  plan->use_double = params->precision == BSPLINE_PRECISION_DOUBLE;
  setup_prefilter (plan, degree);
  plan->axis_x.method = plan->axis_y.method = params->method;
  plan->axis_x.order = plan->axis_y.order = params->order;
  plan->axis_x.boundary = plan->axis_y.boundary = params->boundary;
  plan->axis_x.bicubic_a = plan->axis_y.bicubic_a = params->bicubic_a;
  plan->axis_x.pad = plan->axis_y.pad = plan->pad;
  plan->axis_x.len = src_width;
  plan->axis_y.len = src_height;
  return BSPLINE_OK;
}

void
bspline_plan_free (bspline_plan * plan)
{
  int k;

  if (!plan)
    return;
  bspline_reduction_free (plan->reduce);
  bspline_plan_free (plan->shrink);
  bspline_plan_free (plan->warp);
  bspline_plan_free (plan->atlas_plan);
  bspline_atlas_free (plan->atlas);
  axis_table_clear (&plan->x);
  axis_table_clear (&plan->y);
  for (k = 0; k < plan->n_lenses; k++)
    bspline_stmap_unref (plan->lens[k].stmap);
  bspline_point_cache_free (plan->points);
  free (plan);
}

int
bspline_plan_is_separable (const bspline_plan * plan)
{
  return plan->separable;
}

const bspline_params *
bspline_plan_params (const bspline_plan * plan)
{
  return &plan->params;
}

int
bspline_plan_padding (const bspline_plan * plan)
{
  return plan->pad;
}

int
bspline_plan_map_point (const bspline_plan * plan, double u, double v,
    double *x, double *y)
{
  return bspline_stage_map_point (plan->inverse, plan->lens, plan->n_lenses,
      u, v, x, y);
}
