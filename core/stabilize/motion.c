/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* motion.c: camera motion between consecutive frames (see
 * bspline-stabilize.h and docs/stabilization.md).
 *
 * For every frame the luma is averaged down by a power of two to the
 * analysis resolution, then into a pyramid of 2x2 box averages.  With the
 * pixel-edge origin of the project's coordinates, level l pixel
 * coordinates are the full-frame ones divided by s = factor * 2^l exactly,
 * so a map estimated at one level moves to another by scaling its
 * translation.
 *
 * Between the previous frame's pyramid (the template T) and the current
 * one (the image I):
 *  0. frames whose motion cannot be measured are decided before any
 *     refinement, so that they cost less than textured ones: too little
 *     texture in T, or texture in too few cells of it (a lone object on a
 *     flat background), or, after the coarse search, no shift that matches
 *     distinctly better than the others (noise, a flash): unreliable, the
 *     identity;
 *  1. at the coarsest level, the rotation (0, +-2, +-4, +-6 degrees) and
 *     integer shift with the smallest mean absolute difference within the
 *     search range (an exhaustive search: the coarsest level is about 60
 *     to 120 pixels wide, so this costs less than the refinement, and
 *     unlike a gradient method it cannot stop in a local minimum for
 *     shifts of several pixels or turns of several degrees);
 *  2. at every level, coarse to fine, inverse-compositional Gauss-Newton on
 *     the warp parameters (Baker & Matthews 2004, "Lucas-Kanade 20 years
 *     on: a unifying framework", IJCV 56(3), sec. 3.2: the Jacobian of the
 *     template, evaluated once, and the update W <- W o W(dp)^-1), with the
 *     residuals reweighted at each step (sec. 4.4 for robust IC; Huber
 *     weights on the first step of a level, when the map is still up to a
 *     pixel off, Tukey's biweight afterwards, with the scale from the
 *     median absolute residual): pixels of objects that move on their own
 *     get weight 0 and do not pull the camera motion.
 *  The warp maps template pixel coordinates to image pixel coordinates.
 *  The parameters are about the level's centre, so that rotation and
 *  translation are nearly uncorrelated in the normal equations.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bspline-stabilize.h"
#include "base.h"
#include "motion-solve.h"

#define MOTION_MAX_LEVELS BSPLINE_MOTION_MAX_LEVELS
/* The coarsest level is the last one at least this wide and high. */
#define MOTION_MIN_LEVEL_SIDE 32
/* Rows of the finest levels are split into this many tasks, whatever the
 * thread count, so that the sums (and the result) do not depend on it. */
#define MOTION_TASKS 16
#define MOTION_MAX_PARAMS BSPLINE_MOTION_MAX_PARAMS
#define MOTION_HIST_SCALE BSPLINE_MOTION_HIST_SCALE
#define MOTION_HIST_BINS BSPLINE_MOTION_HIST_BINS

typedef struct
{
  int w, h;
  float *img;                   /* w * h */
  float *gx, *gy;               /* central differences, 0 on the border */
} motion_level;

typedef struct
{
  int n_levels;
  motion_level levels[MOTION_MAX_LEVELS];
} motion_pyramid;

struct bspline_motion_estimator
{
  bspline_motion_params params;
  int width, height;            /* full frame */
  int factor;                   /* full frame / analysis resolution */
  motion_pyramid pyramids[2];
  int current;                  /* pyramid of the latest frame */
  int have_previous;
  float *scratch;               /* a level-0 image, for the coarse search */
  bspline_pool *pool;
};

/* ---- affine maps ---- */

void
bspline_affine_identity (bspline_affine * a)
{
  static const double id[6] = { 1, 0, 0, 0, 1, 0 };
  memcpy (a->m, id, sizeof (id));
}

void
bspline_affine_compose (const bspline_affine * a, const bspline_affine * b,
    bspline_affine * r)
{
  bspline_motion_compose (a->m, b->m, r->m);
}

int
bspline_affine_invert (const bspline_affine * a, bspline_affine * inv)
{
  double m[6];

  if (!bspline_motion_invert (a->m, m))
    return 0;
  memcpy (inv->m, m, sizeof (m));
  return 1;
}

void
bspline_affine_to_matrix (const bspline_affine * a, double m[9])
{
  memcpy (m, a->m, 6 * sizeof (double));
  m[6] = 0.0;
  m[7] = 0.0;
  m[8] = 1.0;
}

void
bspline_affine_decompose (const bspline_affine * a, double cx, double cy,
    double *dx, double *dy, double *angle_degrees, double *scale)
{
  const double *p = a->m;
  double det = p[0] * p[4] - p[1] * p[3];

  /* the rotation nearest to the linear part L = [p0 p1; p3 p4] in the
   * Frobenius norm has the angle of (p0 + p4, p3 - p1) */
  if (dx)
    *dx = p[0] * cx + p[1] * cy + p[2] - cx;
  if (dy)
    *dy = p[3] * cx + p[4] * cy + p[5] - cy;
  if (angle_degrees)
    *angle_degrees = atan2 (p[3] - p[1], p[0] + p[4]) * (180.0 / BSPLINE_STABILIZE_PI);
  if (scale)
    *scale = sqrt (fabs (det));
}

/* ---- parameters ---- */

void
bspline_motion_params_init (bspline_motion_params * params)
{
  memset (params, 0, sizeof (*params));
  params->model = BSPLINE_MOTION_SIMILARITY;
  params->search_range = 64.0;
  params->analysis_width = 960;
  params->min_texture = 1.0;
  params->min_inliers = 0.25;
  params->n_threads = 0;
}

static void
motion_pyramid_free (motion_pyramid * pyr)
{
  int l;

  for (l = 0; l < MOTION_MAX_LEVELS; l++) {
    free (pyr->levels[l].img);
    free (pyr->levels[l].gx);
    free (pyr->levels[l].gy);
  }
  memset (pyr, 0, sizeof (*pyr));
}

static int
motion_pyramid_alloc (motion_pyramid * pyr, int w, int h)
{
  int l;

  memset (pyr, 0, sizeof (*pyr));
  for (l = 0; l < MOTION_MAX_LEVELS; l++) {
    motion_level *lv = &pyr->levels[l];
    size_t n = (size_t) w * (size_t) h;

    lv->w = w;
    lv->h = h;
    lv->img = malloc (n * sizeof (float));
    lv->gx = malloc (n * sizeof (float));
    lv->gy = malloc (n * sizeof (float));
    if (!lv->img || !lv->gx || !lv->gy)
      return 0;
    pyr->n_levels = l + 1;
    if (w / 2 < MOTION_MIN_LEVEL_SIDE || h / 2 < MOTION_MIN_LEVEL_SIDE)
      break;
    w /= 2;
    h /= 2;
  }
  return 1;
}

int
bspline_motion_analysis_factor (const bspline_motion_params * params,
    int width, int height)
{
  int factor = 1;

  while (width / (factor * 2) >= params->analysis_width / 2
      && width / factor > params->analysis_width
      && height / (factor * 2) >= 16)
    factor *= 2;
  return factor;
}

bspline_status
bspline_motion_estimator_new (const bspline_motion_params * params,
    int width, int height, bspline_motion_estimator ** estimator, char *msg,
    size_t msg_len)
{
  bspline_motion_estimator *e;
  int factor, aw, ah;

  *estimator = NULL;
  if (params->model != BSPLINE_MOTION_SIMILARITY
      && params->model != BSPLINE_MOTION_AFFINE) {
    snprintf (msg, msg_len, "unknown motion model %d", (int) params->model);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (width < BSPLINE_MOTION_MIN_SIDE || height < BSPLINE_MOTION_MIN_SIDE
      || width > BSPLINE_MAX_SIDE || height > BSPLINE_MAX_SIDE) {
    snprintf (msg, msg_len, "frames of %dx%d cannot be analysed: each side "
        "must be %d to %d pixels", width, height, BSPLINE_MOTION_MIN_SIDE,
        BSPLINE_MAX_SIDE);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (!(params->search_range >= 0.0) || params->analysis_width < 16
      || !(params->min_texture >= 0.0) || !(params->min_inliers >= 0.0)
      || params->min_inliers > 1.0 || params->n_threads < 0) {
    snprintf (msg, msg_len, "bad motion parameters (search range %g, "
        "analysis width %d, min texture %g, min inliers %g, threads %d)",
        params->search_range, params->analysis_width, params->min_texture,
        params->min_inliers, params->n_threads);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  factor = bspline_motion_analysis_factor (params, width, height);
  aw = width / factor;
  ah = height / factor;

  e = calloc (1, sizeof (*e));
  if (e == NULL)
    goto no_memory;
  e->params = *params;
  e->width = width;
  e->height = height;
  e->factor = factor;
  if (!motion_pyramid_alloc (&e->pyramids[0], aw, ah)
      || !motion_pyramid_alloc (&e->pyramids[1], aw, ah))
    goto no_memory;
  e->scratch = malloc ((size_t) aw * (size_t) ah * sizeof (float));
  if (e->scratch == NULL)
    goto no_memory;
  e->pool = bspline_pool_new (params->n_threads);
  if (e->pool == NULL)
    goto no_memory;
  *estimator = e;
  return BSPLINE_OK;

no_memory:
  bspline_motion_estimator_free (e);
  snprintf (msg, msg_len, "out of memory for the motion pyramids of "
      "%dx%d frames", width, height);
  return BSPLINE_ERROR_NO_MEMORY;
}

void
bspline_motion_estimator_free (bspline_motion_estimator * e)
{
  if (e == NULL)
    return;
  motion_pyramid_free (&e->pyramids[0]);
  motion_pyramid_free (&e->pyramids[1]);
  free (e->scratch);
  if (e->pool)
    bspline_pool_free (e->pool);
  free (e);
}

void
bspline_motion_estimator_reset (bspline_motion_estimator * e)
{
  e->have_previous = 0;
}

/* ---- the pyramid ---- */

typedef struct
{
  const bspline_luma_frame *frame;
  motion_level *dst;
  int factor;
} luma_task;

/* Rows of the analysis level: the mean of factor x factor luma values. */
static void
motion_luma_rows (void *ctx, int task, int worker)
{
  const luma_task *t = ctx;
  const bspline_luma_frame *f = t->frame;
  motion_level *dst = t->dst;
  int k = t->factor, j0 = (int) ((long) dst->h * task / MOTION_TASKS);
  int j1 = (int) ((long) dst->h * (task + 1) / MOTION_TASKS), i, j, a, b;
  float norm = 1.0f / (float) (k * k);
  int rgb = f->offset_r >= 0;

  (void) worker;
  for (j = j0; j < j1; j++) {
    float *out = dst->img + (size_t) j * dst->w;

    for (i = 0; i < dst->w; i++)
      out[i] = 0.0f;
    for (b = 0; b < k; b++) {
      const uint8_t *row = f->data + (ptrdiff_t) (j * k + b) * f->stride;

      if (rgb) {
        const uint8_t *r = row + f->offset_r, *g = row + f->offset_g;
        const uint8_t *bl = row + f->offset_b;
        int ps = f->pixel_stride;

        for (i = 0; i < dst->w; i++)
          for (a = 0; a < k; a++) {
            ptrdiff_t o = (ptrdiff_t) (i * k + a) * ps;

            out[i] += 0.299f * r[o] + 0.587f * g[o] + 0.114f * bl[o];
          }
      } else {
        const uint8_t *y = row + f->offset_y;
        int ps = f->pixel_stride;

        for (i = 0; i < dst->w; i++)
          for (a = 0; a < k; a++)
            out[i] += y[(ptrdiff_t) (i * k + a) * ps];
      }
    }
    for (i = 0; i < dst->w; i++)
      out[i] *= norm;
  }
}

static void
motion_gradients (motion_level * lv)
{
  int w = lv->w, h = lv->h, i, j;

  for (j = 0; j < h; j++) {
    const float *row = lv->img + (size_t) j * w;
    float *gx = lv->gx + (size_t) j * w, *gy = lv->gy + (size_t) j * w;

    for (i = 0; i < w; i++) {
      if (i == 0 || j == 0 || i == w - 1 || j == h - 1) {
        gx[i] = 0.0f;
        gy[i] = 0.0f;
        continue;
      }
      gx[i] = 0.5f * (row[i + 1] - row[i - 1]);
      gy[i] = 0.5f * (row[i + w] - row[i - w]);
    }
  }
}

static void
motion_build_pyramid (bspline_motion_estimator * e,
    const bspline_luma_frame * frame, motion_pyramid * pyr)
{
  luma_task task = { frame, &pyr->levels[0], e->factor };
  int l, i, j;

  bspline_pool_run (e->pool, MOTION_TASKS, motion_luma_rows, &task);
  for (l = 1; l < pyr->n_levels; l++) {
    const motion_level *src = &pyr->levels[l - 1];
    motion_level *dst = &pyr->levels[l];

    for (j = 0; j < dst->h; j++) {
      const float *a = src->img + (size_t) (2 * j) * src->w;
      const float *b = a + src->w;
      float *out = dst->img + (size_t) j * dst->w;

      for (i = 0; i < dst->w; i++)
        out[i] = 0.25f * (a[2 * i] + a[2 * i + 1] + b[2 * i] + b[2 * i + 1]);
    }
  }
  for (l = 0; l < pyr->n_levels; l++)
    motion_gradients (&pyr->levels[l]);
}

/* For each cell of the level (BSPLINE_MOTION_TEXTURE_GRID), the sums
 * over its pixels of the structure tensor's entries gx^2, gx gy, gy^2. */
static void
motion_texture_cells (const motion_level * lv, double *cells)
{
  const int g = BSPLINE_MOTION_TEXTURE_GRID;
  int a, b, i, j;

  for (b = 0; b < g; b++)
    for (a = 0; a < g; a++) {
      int i0 = lv->w * a / g, i1 = lv->w * (a + 1) / g;
      int j0 = lv->h * b / g, j1 = lv->h * (b + 1) / g;
      double sxx = 0, sxy = 0, syy = 0;

      for (j = j0; j < j1; j++)
        for (i = i0; i < i1; i++) {
          double gx = lv->gx[(size_t) j * lv->w + i];
          double gy = lv->gy[(size_t) j * lv->w + i];

          sxx += gx * gx;
          sxy += gx * gy;
          syy += gy * gy;
        }
      cells[3 * (b * g + a)] = sxx;
      cells[3 * (b * g + a) + 1] = sxy;
      cells[3 * (b * g + a) + 2] = syy;
    }
}

/* Smallest eigenvalue of the structure tensor [sxx sxy; sxy syy] / n. */
static double
motion_min_eigenvalue (double sxx, double sxy, double syy, double n)
{
  double tr, det;

  sxx /= n;
  sxy /= n;
  syy /= n;
  tr = sxx + syy;
  det = sxx * syy - sxy * sxy;
  return 0.5 * tr - sqrt (fmax (0.25 * tr * tr - det, 0.0));
}

/* Camera motion is measured where texture is spread over the frame: a
 * frame textured in fewer than this many of the 64 cells, an eighth of it,
 * shows a lone object, whose motion is not the camera's (videotestsrc's
 * ball, 40 pixels wide, covers up to 4 cells at 640x360 and up to 6 at
 * 480x270, where 6 let one frame of 150 through: reported reliable after
 * 120 Gauss-Newton steps). */
#define MOTION_MIN_TEXTURED_CELLS 8

/* The smallest eigenvalue of the mean structure tensor of a w x h level
 * from its cells' sums (the gradients are 0 on the border), and how many
 * cells have one of at least min_texture. */
static double
motion_texture (const double *cells, int w, int h, double min_texture,
    int *textured_cells)
{
  const int g = BSPLINE_MOTION_TEXTURE_GRID;
  double sxx = 0, sxy = 0, syy = 0;
  int a, b;

  *textured_cells = 0;
  for (b = 0; b < g; b++)
    for (a = 0; a < g; a++) {
      const double *c = cells + 3 * (b * g + a);
      double n = (double) (w * (a + 1) / g - w * a / g)
          * (double) (h * (b + 1) / g - h * b / g);

      sxx += c[0];
      sxy += c[1];
      syy += c[2];
      if (n > 0 && motion_min_eigenvalue (c[0], c[1], c[2], n)
          >= min_texture)
        (*textured_cells)++;
    }
  return motion_min_eigenvalue (sxx, sxy, syy, (double) (w - 2) *
      (double) (h - 2));
}

/* ---- the coarsest level: rotation and integer shift ---- */

/* Rotations tried by the coarse search, degrees: consecutive frames of a
 * hand-held camera turn by up to a few degrees, beyond the reach of
 * Gauss-Newton from a translation alone at the coarsest level. */
static const double motion_search_angles[] = { 0, -2, 2, -4, 4, -6, 6 };

#define MOTION_N_SEARCH_ANGLES \
  ((int) (sizeof (motion_search_angles) / sizeof (motion_search_angles[0])))

/* The search range at a level of w x h: at most a quarter of each side. */
static int
motion_search_range (int range, int w, int h)
{
  if (range > w / 4)
    range = w / 4;
  if (range > h / 4)
    range = h / 4;
  return range;
}

/* For each rotation about the centre, the integer shift (the map from
 * the template's pixels to the image's) with the smallest mean absolute
 * difference over the template's pixels whose shifted sample lies in the
 * rotated image, and that difference (INFINITY where fewer than half of
 * the inner pixels overlap).  Comparing only the pixels at least `range`
 * from the border, as before, left a central region of 46 x 19 pixels at
 * a 60 x 33 level, where an object moving on its own over a sixth of the
 * frame weighs over a third: the search then chose its shift (2 of 60
 * seeds of the motion test failed that way, 0 of 120 with the whole
 * overlap).  For each
 * angle the image is resampled once (bilinear, in double, stored as float,
 * NAN outside), rotated back, and the shifts are then integer offsets into
 * it; the differences are float, summed in double. */
static void
motion_search (const motion_level * t, const motion_level * im, int range,
    float *rotated, double *cost, int *best_x, int *best_y, double *mean_cost)
{
  double cx = 0.5 * t->w, cy = 0.5 * t->h, total = 0.0;
  int sx, sy, i, j, a;
  long n_costs = 0;

  for (a = 0; a < MOTION_N_SEARCH_ANGLES; a++) {
    double r = motion_search_angles[a] * (BSPLINE_STABILIZE_PI / 180.0);
    double c = cos (r), s = sin (r);

    cost[a] = INFINITY;
    best_x[a] = 0;
    best_y[a] = 0;

    /* rotated(x) = im(R (x - c) + c), bilinear, NAN outside */
    for (j = 0; j < t->h; j++)
      for (i = 0; i < t->w; i++) {
        double x = i + 0.5 - cx, y = j + 0.5 - cy;
        double u = c * x - s * y + cx - 0.5, v = s * x + c * y + cy - 0.5;
        int iu, iv;
        double fu, fv;
        const float *p;

        if (!(u >= 0.0 && v >= 0.0 && u < im->w - 1 && v < im->h - 1)) {
          rotated[(size_t) j * t->w + i] = NAN;
          continue;
        }
        iu = (int) u;
        iv = (int) v;
        fu = u - iu;
        fv = v - iv;
        p = im->img + (size_t) iv * im->w + iu;
        rotated[(size_t) j * t->w + i] = (float) ((1.0 - fv) * ((1.0 - fu)
                * p[0] + fu * p[1]) + fv * ((1.0 - fu) * p[im->w]
                + fu * p[im->w + 1]));
      }
    for (sy = -range; sy <= range; sy++)
      for (sx = -range; sx <= range; sx++) {
        double sad = 0.0;
        long n = 0;

        /* every template pixel whose shifted sample lies in the level */
        const int j0 = sy < 0 ? -sy : 0, j1 = sy > 0 ? t->h - sy : t->h;
        const int i0 = sx < 0 ? -sx : 0, i1 = sx > 0 ? t->w - sx : t->w;

        for (j = j0; j < j1; j++) {
          const float *ta = t->img + (size_t) j * t->w;
          const float *rb = rotated + (size_t) (j + sy) * t->w + sx;

          for (i = i0; i < i1; i++) {
            float d = rb[i] - ta[i];

            if (d == d) {
              sad += fabsf (d);
              n++;
            }
          }
        }
        if (n < (long) (t->w - 2 * range) * (t->h - 2 * range) / 2)
          continue;
        sad /= (double) n;
        total += sad;
        n_costs++;
        if (sad < cost[a]) {
          cost[a] = sad;
          best_x[a] = sx;
          best_y[a] = sy;
        }
      }
  }
  *mean_cost = n_costs > 0 ? total / (double) n_costs : INFINITY;
}

/* Frames whose best match in the coarse search is no better than this
 * fraction of the mean over every shift and angle tried have no distinct
 * motion: independent noise, a flash, a cut.  Measured 2026-11-26 on
 * 640x360 clips of 120 frames (bench/stabilize-content.sh's): best / mean
 * 0.08 to 0.28 on the textured shaky clip, 0.012 to 0.016 on
 * videotestsrc's smpte, 0.93 to 0.95 on its snow. */
#define MOTION_MAX_COST_RATIO 0.8

/* Hypotheses of the coarse search refined at the coarsest level: the
 * best MOTION_SEARCH_HYPOTHESES angles, then, while none of those has
 * converged within MOTION_COARSE_STEPS, the next ones in the order of
 * their cost (a large object moving on its own, with a zoom of a few
 * percent, can rank the right angle fourth or later: seed
 * 1795507744901353477 of the motion test, where the three best did not
 * converge, at residual scales of 18-19 grey levels, and the fifth did,
 * at 6.9, within 0.01 px of the truth). */
#define MOTION_SEARCH_HYPOTHESES 3
#define MOTION_COARSE_STEPS 20

/* ---- Gauss-Newton at one level ---- */

/* What a pass over a task's rows sums. */
typedef struct
{
  /* upper triangle of J^T W J (n_params x n_params, row-major) and
   * J^T W r */
  double h[MOTION_MAX_PARAMS * MOTION_MAX_PARAMS];
  double b[MOTION_MAX_PARAMS];
  long valid, inliers;          /* pass 1: pixels inside, weight > 0.5 */
  unsigned hist[MOTION_HIST_BINS];
} motion_sums;

typedef struct
{
  const motion_level *t, *im;
  double m[6];                  /* current warp, level pixels, T -> I */
  double cx, cy;
  int n_params;
  int pass;                     /* 0: residuals; 1: and normal equations */
  int sampling;                 /* every pixel (1) or every other (2) */
  int tukey;                    /* weights: 0 Huber, 1 Tukey */
  double scale;                 /* Huber k or Tukey c */
  double sigma;                 /* scale of the last residuals, or < 0 */
  /* the sums of each task, with its histogram of |residual| for the
   * median */
  motion_sums sums[MOTION_TASKS];
} gn_task;

static inline double
motion_weight (const gn_task * g, double r)
{
  double a = fabs (r);

  if (g->tukey) {
    double u;

    if (a >= g->scale)
      return 0.0;
    u = 1.0 - (r / g->scale) * (r / g->scale);
    return u * u;
  }
  return a <= g->scale ? 1.0 : g->scale / a;
}

static void
motion_gn_rows (void *ctx, int task, int worker)
{
  gn_task *g = ctx;
  const motion_level *t = g->t, *im = g->im;
  int w = t->w, h = t->h, np = g->n_params;
  int j0 = 1 + (int) ((long) (h - 2) * task / MOTION_TASKS);
  int j1 = 1 + (int) ((long) (h - 2) * (task + 1) / MOTION_TASKS), i, j;
  const double *m = g->m;
  /* sums on the stack: the tasks' slots of g share cache lines, and
   * writing them for every pixel would make the threads fight over them */
  double hh[MOTION_MAX_PARAMS * MOTION_MAX_PARAMS], bb[MOTION_MAX_PARAMS];
  unsigned *hist = g->sums[task].hist;
  long valid = 0, inliers = 0;

  (void) worker;
  memset (hist, 0, sizeof (g->sums[task].hist));
  memset (hh, 0, sizeof (hh));
  memset (bb, 0, sizeof (bb));
  for (j = j0; j < j1; j++) {
    double y = j + 0.5;
    const float *trow = t->img + (size_t) j * w;
    const float *gxr = t->gx + (size_t) j * w, *gyr = t->gy + (size_t) j * w;

    if (j % g->sampling != 0)
      continue;
    for (i = g->sampling; i < w - 1; i += g->sampling) {
      double x = i + 0.5, r, wt, gx, gy, dx, dy, jac[MOTION_MAX_PARAMS];
      int p, q;

      /* image position in sample indices (centre of sample k at k+0.5) */
      double u = m[0] * x + m[1] * y + m[2] - 0.5;
      double v = m[3] * x + m[4] * y + m[5] - 0.5;

      if (!(u >= 0.0 && v >= 0.0 && u < im->w - 1 && v < im->h - 1))
        continue;
      {
        int iu, iv, bin;
        double fu, fv;
        const float *s;

        iu = (int) u;
        iv = (int) v;
        fu = u - iu;
        fv = v - iv;
        s = im->img + (size_t) iv * im->w + iu;
        r = (1.0 - fv) * ((1.0 - fu) * s[0] + fu * s[1])
            + fv * ((1.0 - fu) * s[im->w] + fu * s[im->w + 1]) - trow[i];
        bin = (int) (fabs (r) * MOTION_HIST_SCALE);
        hist[bin < MOTION_HIST_BINS - 1 ? bin : MOTION_HIST_BINS - 1]++;
        if (g->pass == 0)
          continue;
      }
      valid++;
      wt = motion_weight (g, r);
      if (wt > 0.5)
        inliers++;
      if (wt == 0.0)
        continue;
      gx = gxr[i];
      gy = gyr[i];
      dx = x - g->cx;
      dy = y - g->cy;
      if (np == 4) {
        jac[0] = gx * dx + gy * dy;
        jac[1] = gy * dx - gx * dy;
        jac[2] = gx;
        jac[3] = gy;
      } else {
        jac[0] = gx * dx;
        jac[1] = gx * dy;
        jac[2] = gx;
        jac[3] = gy * dx;
        jac[4] = gy * dy;
        jac[5] = gy;
      }
      for (p = 0; p < np; p++) {
        double wj = wt * jac[p];

        bb[p] += wj * r;
        for (q = p; q < np; q++)
          hh[p * np + q] += wj * jac[q];
      }
    }
  }
  memcpy (g->sums[task].h, hh, sizeof (hh));
  memcpy (g->sums[task].b, bb, sizeof (bb));
  g->sums[task].valid = valid;
  g->sums[task].inliers = inliers;
}

/* The scale of the last pass's residuals: 1.4826 times their median
 * absolute value, from the tasks' histograms (bins of 1/32 grey level). */
static double
motion_residual_scale (const gn_task * g)
{
  size_t n = 0, half, acc = 0;
  int bin, k;

  for (k = 0; k < MOTION_TASKS; k++)
    for (bin = 0; bin < MOTION_HIST_BINS; bin++)
      n += g->sums[k].hist[bin];
  if (n == 0)
    return bspline_motion_scale_of_bin (-1);
  half = (n + 1) / 2;
  for (bin = 0; bin < MOTION_HIST_BINS; bin++) {
    for (k = 0; k < MOTION_TASKS; k++)
      acc += g->sums[k].hist[bin];
    if (acc >= half)
      break;
  }
  return bspline_motion_scale_of_bin (bin);
}

/* The warp x' = R (x + shift - c) + c of a coarse search result: the image
 * sample the search compared with template pixel x. */
static void
motion_start (gn_task * g, const motion_level * lv, double angle, int sx,
    int sy)
{
  double r = angle * (BSPLINE_STABILIZE_PI / 180.0), c = cos (r);
  double sn = sin (r), cx = 0.5 * lv->w, cy = 0.5 * lv->h;

  g->m[0] = c;
  g->m[1] = -sn;
  g->m[3] = sn;
  g->m[4] = c;
  g->m[2] = cx - c * (cx - sx) + sn * (cy - sy);
  g->m[5] = cy - sn * (cx - sx) - c * (cy - sy);
}

/* One pass over the level's pixels. */
static void
motion_run_rows (bspline_motion_estimator * e, gn_task * g, int tasks)
{
  int k;

  if (tasks == 1)
    for (k = 0; k < MOTION_TASKS; k++)
      motion_gn_rows (g, k, 0);
  else
    bspline_pool_run (e->pool, MOTION_TASKS, motion_gn_rows, g);
}

/* Refines the warp at one level; returns the number of steps taken, or -1
 * when the normal equations are singular.  The first step of a level
 * weighs residuals with Huber's function, which still lets every pixel
 * pull (the map can be a pixel off after the coarser level); the later
 * ones with Tukey's biweight, which gives pixels of other motions no
 * weight at all.  (Plain least squares on the first steps converged
 * faster from far away but followed a large moving object; see
 * docs/stabilization.md.)  The arithmetic between passes is
 * motion-solve.h's, which the GPU engine runs on the device. */
static int
motion_refine_level (bspline_motion_estimator * e, gn_task * g,
    int max_steps, double tolerance)
{
  int step, np = g->n_params, p, q, k, status;
  int tasks = g->t->w * g->t->h > 40000 ? MOTION_TASKS : 1;

  for (step = 0; step < max_steps; step++) {
    double hh[MOTION_MAX_PARAMS * MOTION_MAX_PARAMS], b[MOTION_MAX_PARAMS];

    /* one pass computes the residuals and the normal equations, weighted
     * with the scale of the previous step's residuals (lagged IRLS); the
     * very first step measures the scale first */
    if (g->sigma < 0.0) {
      g->pass = 0;
      motion_run_rows (e, g, tasks);
      g->sigma = motion_residual_scale (g);
    }
    g->tukey = step > 0;
    g->scale = g->tukey ? BSPLINE_MOTION_TUKEY_C * g->sigma :
        BSPLINE_MOTION_HUBER_K * g->sigma;
    g->pass = 1;
    motion_run_rows (e, g, tasks);
    g->sigma = motion_residual_scale (g);
    memset (hh, 0, sizeof (hh));
    memset (b, 0, sizeof (b));
    for (k = 0; k < MOTION_TASKS; k++)
      for (p = 0; p < np; p++) {
        b[p] += g->sums[k].b[p];
        for (q = p; q < np; q++)
          hh[p * np + q] += g->sums[k].h[p * np + q];
      }
    status = bspline_motion_gn_update (g->m, hh, b, np, g->cx, g->cy,
        g->t->w, g->t->h, step, tolerance);
    if (status < 0)
      return -1;
    if (status > 0)
      return step + 1;
  }
  return max_steps;
}

/* The refinement at level l from g->m and g->sigma, here or by ops: the
 * steps taken (or -1: singular, -2: ops failed, its error in *error); the
 * refined warp, residual scales and the counts of the last pass in g and
 * *valid, *inliers. */
static int
motion_refine (bspline_motion_estimator * e, const bspline_motion_ops * ops,
    void *ctx, gn_task * g, const motion_pyramid * prev,
    const motion_pyramid * cur, int l, int max_steps, double tolerance,
    long *valid, long *inliers, bspline_status * error)
{
  int steps, k;

  g->t = &prev->levels[l];
  g->im = &cur->levels[l];
  g->cx = 0.5 * g->t->w;
  g->cy = 0.5 * g->t->h;
  if (ops) {
    bspline_motion_refine in;
    bspline_motion_refined out;

    in.level = l;
    memcpy (in.m, g->m, sizeof (in.m));
    in.cx = g->cx;
    in.cy = g->cy;
    in.n_params = g->n_params;
    in.sampling = g->sampling;
    in.sigma = g->sigma;
    in.max_steps = max_steps;
    in.tolerance = tolerance;
    *error = ops->refine (ctx, e->current ^ 1, &in, &out);
    if (*error != BSPLINE_OK)
      return -2;
    memcpy (g->m, out.m, sizeof (g->m));
    g->sigma = out.sigma;
    g->scale = out.scale;
    *valid = out.valid;
    *inliers = out.inliers;
    return out.steps;
  }
  steps = motion_refine_level (e, g, max_steps, tolerance);
  *valid = 0;
  *inliers = 0;
  for (k = 0; k < MOTION_TASKS; k++) {
    *valid += g->sums[k].valid;
    *inliers += g->sums[k].inliers;
  }
  return steps;
}

/* The estimation of bspline_motion_estimate, with the passes over pixels
 * done here (ops NULL: the pyramids of e, frame a bspline_luma_frame) or by
 * ops (frame opaque). */
static bspline_status
motion_estimate (bspline_motion_estimator * e, const bspline_motion_ops * ops,
    void *ctx, const void *frame, bspline_motion_result * result)
{
  motion_pyramid *prev, *cur;
  gn_task *g = NULL;
  int l, range, steps, np, k, best_x[MOTION_N_SEARCH_ANGLES];
  int best_y[MOTION_N_SEARCH_ANGLES], n_levels, lw, lh, converged;
  int textured_cells;
  double cost[MOTION_N_SEARCH_ANGLES], best_sigma, best_m[6], best_cost;
  double s, texture, cells[3 * BSPLINE_MOTION_TEXTURE_CELLS], mean_cost;
  long valid = 0, inliers = 0;
  bspline_status status;

  e->current ^= 1;
  cur = &e->pyramids[e->current];
  prev = &e->pyramids[e->current ^ 1];
  n_levels = cur->n_levels;
  if (ops) {
    status = ops->pyramid (ctx, e->current, frame);
    if (status != BSPLINE_OK)
      goto ops_failed;
  } else {
    motion_build_pyramid (e, frame, cur);
  }
  if (!e->have_previous) {
    e->have_previous = 1;
    return BSPLINE_OK;
  }

  /* 0. texture: too little, or only in a few cells (a lone object on a
   * flat background), and the frame is decided at once */
  if (ops) {
    status = ops->texture (ctx, e->current ^ 1, cells);
    if (status != BSPLINE_OK)
      goto ops_failed;
  } else {
    motion_texture_cells (&prev->levels[0], cells);
  }
  texture = motion_texture (cells, prev->levels[0].w, prev->levels[0].h,
      e->params.min_texture, &textured_cells);
  result->texture = texture;
  if (texture < e->params.min_texture
      || textured_cells < MOTION_MIN_TEXTURED_CELLS)
    return BSPLINE_OK;

  g = malloc (sizeof (*g));
  if (g == NULL)
    return BSPLINE_ERROR_NO_MEMORY;
  memset (g, 0, sizeof (*g));
  np = e->params.model == BSPLINE_MOTION_AFFINE ? 6 : 4;
  g->n_params = np;
  g->sigma = -1.0;

  /* 1. rotation and integer shift at the coarsest level */
  l = n_levels - 1;
  lw = cur->levels[l].w;
  lh = cur->levels[l].h;
  s = (double) e->factor * (double) (1 << l);
  range = motion_search_range ((int) ceil (e->params.search_range / s) + 1,
      lw, lh);
  if (ops) {
    status = ops->search (ctx, e->current ^ 1, l, range,
        motion_search_angles, MOTION_N_SEARCH_ANGLES, cost, best_x, best_y,
        &mean_cost);
    if (status != BSPLINE_OK)
      goto ops_failed_g;
  } else {
    motion_search (&prev->levels[l], &cur->levels[l], range, e->scratch,
        cost, best_x, best_y, &mean_cost);
  }
  /* no distinct best match: nothing to refine */
  best_cost = INFINITY;
  for (k = 0; k < MOTION_N_SEARCH_ANGLES; k++)
    best_cost = fmin (best_cost, cost[k]);
  if (!(best_cost <= MOTION_MAX_COST_RATIO * mean_cost))
    goto unreliable;

  /* the three best angles, each refined at the coarsest level from its
   * best shift; the one whose residuals end smallest goes on (one
   * hypothesis alone can settle in a wrong minimum when a large object
   * moves on its own) */
  best_sigma = INFINITY;
  converged = 0;
  for (k = 0; k < MOTION_N_SEARCH_ANGLES
      && (k < MOTION_SEARCH_HYPOTHESES || !converged); k++) {
    int a, pick = -1;

    for (a = 0; a < MOTION_N_SEARCH_ANGLES; a++)
      if (isfinite (cost[a]) && (pick < 0 || cost[a] < cost[pick]))
        pick = a;
    if (pick < 0)
      break;
    motion_start (g, &cur->levels[l], motion_search_angles[pick],
        best_x[pick], best_y[pick]);
    cost[pick] = INFINITY;
    g->sampling = 1;
    g->sigma = -1.0;
    steps = motion_refine (e, ops, ctx, g, prev, cur, l, MOTION_COARSE_STEPS,
        0.01, &valid, &inliers, &status);
    if (steps == -2)
      goto ops_failed_g;
    if (steps < 0)
      continue;
    result->iterations += steps;
    if (steps < MOTION_COARSE_STEPS)
      converged = 1;
    if (g->sigma < best_sigma) {
      best_sigma = g->sigma;
      memcpy (best_m, g->m, sizeof (best_m));
    }
  }
  if (!isfinite (best_sigma))
    goto unreliable;
  memcpy (g->m, best_m, sizeof (best_m));
  if (l > 0) {
    g->m[2] *= 2.0;
    g->m[5] *= 2.0;
    l--;
  }

  /* 2. Gauss-Newton, coarse to fine */
  for (; l >= 0; l--) {
    /* at the analysis resolution, every other pixel of every other row:
     * a quarter of the work, and still over 10^4 pixels for frames of
     * 320x180 and more, so that the error (which averages over them) stays
     * far below the jitter target */
    g->sampling = l == 0 && prev->levels[l].w >= 320 ? 2 : 1;
    steps = motion_refine (e, ops, ctx, g, prev, cur, l, l == 0 ? 6 : 10,
        l == 0 ? 0.003 : 0.01, &valid, &inliers, &status);
    if (steps == -2)
      goto ops_failed_g;
    if (steps < 0)
      goto unreliable;
    result->iterations += steps;
    if (l > 0) {
      /* to the next finer level: translations double */
      g->m[2] *= 2.0;
      g->m[5] *= 2.0;
    }
  }
  result->inliers = valid > 0 ? (double) inliers / (double) valid : 0.0;
  result->residual = g->scale / BSPLINE_MOTION_TUKEY_C;
  if (result->inliers < e->params.min_inliers)
    goto unreliable;

  /* to full-frame pixels */
  result->motion.m[0] = g->m[0];
  result->motion.m[1] = g->m[1];
  result->motion.m[2] = g->m[2] * e->factor;
  result->motion.m[3] = g->m[3];
  result->motion.m[4] = g->m[4];
  result->motion.m[5] = g->m[5] * e->factor;
  {
    double dx, dy;

    bspline_affine_decompose (&result->motion, 0.5 * e->width,
        0.5 * e->height, &dx, &dy, NULL, NULL);
    if (!(hypot (dx, dy) <= 2.0 * e->params.search_range + 1.0))
      goto unreliable;
  }
  result->reliable = 1;
  free (g);
  return BSPLINE_OK;

unreliable:
  bspline_affine_identity (&result->motion);
  result->reliable = 0;
  free (g);
  return BSPLINE_OK;

ops_failed_g:
  free (g);
ops_failed:
  /* the pyramids behind ops are not to be trusted: a new sequence */
  e->have_previous = 0;
  memset (result, 0, sizeof (*result));
  bspline_affine_identity (&result->motion);
  return status;
}

bspline_status
bspline_motion_estimate (bspline_motion_estimator * e,
    const bspline_luma_frame * frame, bspline_motion_result * result)
{
  memset (result, 0, sizeof (*result));
  bspline_affine_identity (&result->motion);
  if (frame == NULL || frame->data == NULL || frame->width != e->width
      || frame->height != e->height || frame->pixel_stride < 1
      || frame->stride < (ptrdiff_t) frame->width * frame->pixel_stride)
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  return motion_estimate (e, NULL, NULL, frame, result);
}

bspline_status
bspline_motion_estimate_with (bspline_motion_estimator * e,
    const bspline_motion_ops * ops, void *ctx, const void *frame,
    bspline_motion_result * result)
{
  memset (result, 0, sizeof (*result));
  bspline_affine_identity (&result->motion);
  if (ops == NULL || ops->pyramid == NULL || ops->texture == NULL
      || ops->search == NULL || ops->refine == NULL)
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  return motion_estimate (e, ops, ctx, frame, result);
}

void
bspline_motion_estimator_layout (const bspline_motion_estimator * e,
    bspline_motion_layout * layout)
{
  const motion_pyramid *pyr = &e->pyramids[0];
  int l;

  memset (layout, 0, sizeof (*layout));
  layout->factor = e->factor;
  layout->n_levels = pyr->n_levels;
  for (l = 0; l < pyr->n_levels; l++) {
    layout->width[l] = pyr->levels[l].w;
    layout->height[l] = pyr->levels[l].h;
  }
}
