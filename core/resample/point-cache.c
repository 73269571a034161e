/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* point-cache.c: the input point of every output pixel of a plan with
 * lens or STMap stages, a row at a time, and the plan's copy of them kept
 * from its second execution on.
 *
 * Evaluating the stage (bspline-stage.h: an atan and polynomials for the
 * fisheye, a division for brown, a 16-tap cubic for an STMap, the
 * Jacobian too where the kernel widens) costs more than sampling the
 * coefficients there.  The points depend on the plan only, and an element
 * keeps its plan from frame to frame while its properties stay, so the
 * plan keeps them: its first execution computes each row into the
 * engine's scratch, its second into the cache, and later ones read the
 * cache.  A plan made for one frame (bsplinestabilize's) never allocates
 * it.  The cache holds the doubles that the same functions return, so the
 * output is the same bits with and without it; except that where the
 * points read only a part of the input, the filling execution keeps them
 * less that window's origin and the engine prefilters the window only
 * from the third execution on (bspline_point_cache_window: the output
 * moves by the prefilter's truncation, docs/accuracy.md). */
#include "resample.h"

#include "bspline-stage.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The cache is mutable state of a plan that the engines see const: it is
 * reached through the plan's pointer (plan->points) and changed only
 * under the protocol below.  state goes EMPTY -> FILLING (one execution,
 * the one that wins the exchange, from the second execution on) ->
 * READY, or EMPTY -> NONE where the rows would pass
 * BSPLINE_POINT_CACHE_MAX_BYTES or the allocation fails.  The filling
 * execution writes each row once, from whichever pool thread computes
 * that row, and publishes READY (release) after the pool's join; an
 * execution that reads READY (acquire) sees every row.  Executions that
 * run beside the filling one (two engines sharing a plan) compute their
 * own rows. */
enum
{
  CACHE_EMPTY,
  CACHE_FILLING,
  CACHE_READY,
  CACHE_NONE
};

struct bspline_point_cache
{
  unsigned long executions;
  int state;
  double *rows;
  int has_window;               /* READY: the rows are the window's */
  int window[4];                /* x, y, width, height in the input */
};

bspline_point_cache *
bspline_point_cache_new (void)
{
  return calloc (1, sizeof (bspline_point_cache));
}

void
bspline_point_cache_free (bspline_point_cache * cache)
{
  if (!cache)
    return;
  free (cache->rows);
  free (cache);
}

int
bspline_point_values (const bspline_plan * plan)
{
  return plan->widen ? 4 : 2;
}

/* The cache's block: the rows of points, then one byte per row (whether
 * the row has a widened pixel). */
static void
rows_of_cache (const bspline_plan * plan, bspline_point_cache * cache,
    bspline_point_rows * rows)
{
  rows->rows = cache->rows;
  rows->widened = (unsigned char *) (cache->rows + (size_t) plan->dst_height
      * bspline_point_values (plan) * plan->dst_width);
}

void
bspline_point_cache_begin (const bspline_plan * plan, bspline_point_rows * rows)
{
  bspline_point_cache *cache = plan->points;
  const uint64_t bytes = (uint64_t) plan->dst_width * plan->dst_height
      * bspline_point_values (plan) * sizeof (double) + plan->dst_height;
  unsigned long n;
  int expected = CACHE_EMPTY;

  rows->rows = NULL;
  rows->widened = NULL;
  rows->fill = 0;
  if (!cache)
    return;
  n = __atomic_add_fetch (&cache->executions, 1, __ATOMIC_RELAXED);
  if (__atomic_load_n (&cache->state, __ATOMIC_ACQUIRE) == CACHE_READY) {
    /* a window's points to the engine's copy on the window only; a plan
     * on the whole frame (an engine that found the cache not ready yet)
     * computes its own */
    if (cache->has_window == plan->in_window)
      rows_of_cache (plan, cache, rows);
    return;
  }
  if (n < 2 || !__atomic_compare_exchange_n (&cache->state, &expected,
          CACHE_FILLING, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
    return;
  if (bytes <= BSPLINE_POINT_CACHE_MAX_BYTES)
    cache->rows = malloc ((size_t) bytes);
  if (!cache->rows) {
    __atomic_store_n (&cache->state, CACHE_NONE, __ATOMIC_RELEASE);
    return;
  }
  rows_of_cache (plan, cache, rows);
  rows->fill = 1;
}

/* One axis of the window: the taps' box [lo, hi] (pixel coordinates) on
 * an input side of len pixels, margin pixels more on each side; *start
 * and *end the pixels kept.  The whole axis where a folding boundary is
 * reached (the sampler folds taps past the frame back into it), and under
 * wrap where the window with its margin reaches an edge (wrap's prefilter
 * starts there from the far end of the line: a window from 0 to 111 of
 * 149 columns moved a double plan's output by 1.7e-5 of the range,
 * test-lens-cache seed 1796900567064037674).  Where the box reaches past
 * an edge (clamp, constant), at least margin pixels at that edge, so that
 * the coefficients there stay within the truncation. */
static void
window_axis (double lo, double hi, int len, int margin, int folds,
    int wraps, int *start, int *end)
{
  double a = floor (lo) - margin, b = ceil (hi) + margin;
  if ((folds && (lo < 0.0 || hi > len))
      || (wraps && (a <= 0.0 || b >= len))) {
    *start = 0;
    *end = len;
    return;
  }
  a = a < 0.0 ? 0.0 : a > len ? len : a;
  b = b < 0.0 ? 0.0 : b > len ? len : b;
  *start = (int) a;
  *end = (int) b;
  if (*start > len - margin)
    *start = len - margin > 0 ? len - margin : 0;
  if (*end < margin)
    *end = margin < len ? margin : len;
}

/* The window of a filled cache (bspline_point_cache_window), its points
 * moved into it. */
static void
find_window (const bspline_plan * plan, bspline_point_cache * cache)
{
  const int W = plan->dst_width;
  const int boundary = plan->params.boundary;
  const int folds = boundary == BSPLINE_BOUNDARY_REFLECT
      || boundary == BSPLINE_BOUNDARY_MIRROR
      || boundary == BSPLINE_BOUNDARY_WRAP;
  /* half the kernel's support (Keys bicubic: 2 pixels), and a pixel more
   * for the rounding of the taps' origin */
  const double half = (plan->params.method == BSPLINE_METHOD_BSPLINE ?
      plan->params.order + 1 : 4) / 2.0 + 1.0;
  double lo_x = INFINITY, hi_x = -INFINITY, lo_y = INFINITY, hi_y = -INFINITY;
  bspline_point_rows rows;
  int margin = 2, i, j, x0, x1, y0, y1;

  rows_of_cache (plan, cache, &rows);
  for (i = 0; i < plan->dst_height; i++) {
    const double *row = bspline_point_rows_row (plan, &rows, i);
    const int widened = rows.widened[i];
    for (j = 0; j < W; j++) {
      const double x = row[j], y = row[W + j];
      const double rx = half * (widened ? row[2 * W + j] : 1.0);
      const double ry = half * (widened ? row[3 * W + j] : 1.0);
      if (isnan (x))
        continue;
      lo_x = fmin (lo_x, x - rx);
      hi_x = fmax (hi_x, x + rx);
      lo_y = fmin (lo_y, y - ry);
      hi_y = fmax (hi_y, y + ry);
    }
  }
  if (!(lo_x <= hi_x && lo_y <= hi_y))
    return;
  if (plan->prefilter)
    for (i = 0; i < plan->setup.n_poles; i++)
      margin += plan->setup.truncation[i];
  window_axis (lo_x, hi_x, plan->src_width, margin, folds,
      boundary == BSPLINE_BOUNDARY_WRAP, &x0, &x1);
  window_axis (lo_y, hi_y, plan->src_height, margin, folds,
      boundary == BSPLINE_BOUNDARY_WRAP, &y0, &y1);
  if (x0 == 0 && y0 == 0 && x1 == plan->src_width && y1 == plan->src_height)
    return;
  for (i = 0; i < plan->dst_height; i++) {
    double *row = bspline_point_rows_row (plan, &rows, i);
    for (j = 0; j < W; j++) {
      row[j] -= x0;
      row[W + j] -= y0;
    }
  }
  cache->window[0] = x0;
  cache->window[1] = y0;
  cache->window[2] = x1 - x0;
  cache->window[3] = y1 - y0;
  cache->has_window = 1;
}

void
bspline_point_cache_filled (const bspline_plan * plan)
{
  find_window (plan, plan->points);
  __atomic_store_n (&plan->points->state, CACHE_READY, __ATOMIC_RELEASE);
}

int
bspline_point_cache_window (const bspline_plan * plan, int window[4])
{
  if (!bspline_point_cache_ready (plan) || !plan->points->has_window)
    return 0;
  memcpy (window, plan->points->window, sizeof (plan->points->window));
  return 1;
}

int
bspline_point_cache_ready (const bspline_plan * plan)
{
  return plan->points && __atomic_load_n (&plan->points->state,
      __ATOMIC_ACQUIRE) == CACHE_READY;
}

int
bspline_point_row (const bspline_plan * plan, int i, double *row)
{
  const double *m = plan->inverse;
  const bspline_lens *lenses = plan->lens;
  const int n_lenses = plan->n_lenses;
  const int W = plan->dst_width;
  const double v = i + 0.5;
  int j, widened = 0;

  for (j = 0; j < W; j++) {
    const double u = j + 0.5;
    double x, y, widen_x = 1.0, widen_y = 1.0;
    const int found = plan->widen ? bspline_stage_footprint (m, lenses,
        n_lenses, u, v, BSPLINE_MAX_LENS_WIDENING, &x, &y, &widen_x,
        &widen_y) : bspline_stage_map_point (m, lenses, n_lenses, u, v, &x,
        &y);
    if (!found)
      x = y = NAN;
    row[j] = x;
    row[W + j] = y;
    if (plan->widen) {
      row[2 * W + j] = widen_x;
      row[3 * W + j] = widen_y;
      if (bspline_lens_reads_level (plan, widen_x, widen_y))
        widened = 2;
      else if (widen_x != 1.0 || widen_y != 1.0)
        widened = widened > 1 ? widened : 1;
    }
  }
  return widened;
}
