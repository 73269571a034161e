/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ripmap.c: the levels of coefficients that bound the cost of a lens
 * plan's widened kernel (the maths: bspline-stage.h, "the widened kernel
 * of a lens plan, bounded in cost").
 *
 * Level (lx, ly) is the coefficient plane reduced lx times by 2 along x
 * and ly times along y.  One step: coarse sample m of level l, the fine
 * pixels 2^l m .. 2^l (m + 1) - 1, is the samples of level l - 1 under
 * the plan's kernel widened by 2 at that level's sample coordinate
 * 2m + 0.5 (bspline_axis_taps, as the widened kernel reads them).  Level
 * 0 of an axis is the coefficients as the plan reads them, its boundary
 * rule included; level l >= 1 keeps the coarse samples of the window of
 * bspline_level_range (the frame's extension by its boundary, a frame
 * each side, and a margin), read through an axis that clamps at the
 * window's ends: the boundary is thus the frame's at every level, where a
 * level's own length would round the frame up to a multiple of 2^l.
 * Level (lx, ly) is made from (lx - 1, ly) along x, or from (0, ly - 1)
 * along y where lx is 0.
 *
 * The levels are made only when a pixel of the execution reads them, by
 * the first worker that asks, under the ripmap's lock (the others wait
 * for it); an engine keeps its ripmap's planes from frame to frame. */
#include "resample.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct bspline_ripmap
{
  pthread_mutex_t lock;
  void *data[BSPLINE_RIPMAP_LEVELS][BSPLINE_RIPMAP_LEVELS];
  size_t size[BSPLINE_RIPMAP_LEVELS][BSPLINE_RIPMAP_LEVELS];
  /* 1 once made in this execution (read with acquire, set with release
   * under the lock) */
  int made[BSPLINE_RIPMAP_LEVELS][BSPLINE_RIPMAP_LEVELS];
  const bspline_plan *plan;
  const bspline_coefficients *coef;
  uint64_t taps;                /* coefficients read (bspline_ripmap_taps) */
};

bspline_ripmap *
bspline_ripmap_new (void)
{
  bspline_ripmap *r = calloc (1, sizeof (*r));
  if (r && pthread_mutex_init (&r->lock, NULL) != 0) {
    free (r);
    return NULL;
  }
  return r;
}

void
bspline_ripmap_free (bspline_ripmap * r)
{
  int i, j;
  if (!r)
    return;
  for (i = 0; i < BSPLINE_RIPMAP_LEVELS; i++)
    for (j = 0; j < BSPLINE_RIPMAP_LEVELS; j++)
      free (r->data[i][j]);
  pthread_mutex_destroy (&r->lock);
  free (r);
}

void
bspline_ripmap_begin (bspline_ripmap * r, const bspline_plan * plan,
    const bspline_coefficients * coef)
{
  memset (r->made, 0, sizeof (r->made));
  r->plan = plan;
  r->coef = coef;
  r->taps = 0;
}

uint64_t
bspline_ripmap_taps (const bspline_ripmap * r)
{
  return __atomic_load_n (&r->taps, __ATOMIC_RELAXED);
}

void
bspline_ripmap_count (bspline_ripmap * r, uint64_t taps)
{
  __atomic_add_fetch (&r->taps, taps, __ATOMIC_RELAXED);
}

/* The taps of one step of reduction from an axis `from` to the n_out
 * coarse samples first, first + 1, ...: n taps (index, weight) each. */
static int
step_taps (const bspline_axis * from, int first, int n_out, int **index,
    double **w)
{
  const double radius = bspline_kernel_radius (from->method, from->order);
  const int n = (int) ceil (4.0 * radius) + 1;
  int m;
  *index = malloc (sizeof (int) * (size_t) n * n_out);
  *w = malloc (sizeof (double) * (size_t) n * n_out);
  if (!*index || !*w) {
    free (*index);
    free (*w);
    return 0;
  }
  for (m = 0; m < n_out; m++)
    bspline_axis_taps_d (from, 2.0 * (first + m) + 0.5, 2.0,
        *index + (size_t) m * n, *w + (size_t) m * n);
  return n;
}

#define DEFINE_STEPS(SUFFIX, REAL) \
/* Along x: rows x w_in values -> rows x w_out. */ \
static void \
step_x_##SUFFIX (const REAL * src, ptrdiff_t src_row, REAL * dst, \
    int w_out, int rows, int C, const int *index, const double *w, int n) \
{ \
  int i, m, k, c; \
  for (i = 0; i < rows; i++) { \
    const REAL *s = src + (ptrdiff_t) i * src_row; \
    REAL *d = dst + (ptrdiff_t) i * w_out * C; \
    for (m = 0; m < w_out; m++) { \
      REAL acc[BSPLINE_MAX_CHANNELS] = { 0 }; \
      for (k = 0; k < n; k++) { \
        const REAL *p = s + (ptrdiff_t) index[m * n + k] * C; \
        const REAL wk = (REAL) w[m * n + k]; \
        for (c = 0; c < C; c++) \
          acc[c] += wk * p[c]; \
      } \
      for (c = 0; c < C; c++) \
        d[m * C + c] = acc[c]; \
    } \
  } \
} \
/* Along y: h_in rows of `values` values -> h_out rows. */ \
static void \
step_y_##SUFFIX (const REAL * src, ptrdiff_t src_row, REAL * dst, \
    int h_out, ptrdiff_t values, const int *index, const double *w, int n) \
{ \
  int m, k; \
  ptrdiff_t v; \
  for (m = 0; m < h_out; m++) { \
    REAL *d = dst + (ptrdiff_t) m * values; \
    for (v = 0; v < values; v++) \
      d[v] = (REAL) 0; \
    for (k = 0; k < n; k++) { \
      const REAL *s = src + (ptrdiff_t) index[m * n + k] * src_row; \
      const REAL wk = (REAL) w[m * n + k]; \
      for (v = 0; v < values; v++) \
        d[v] += wk * s[v]; \
    } \
  } \
}

DEFINE_STEPS (d, double)
DEFINE_STEPS (f, float)
#undef DEFINE_STEPS

/* Level (lx, ly) as it is (made, or level 0). */
static void
ripmap_plane (const bspline_ripmap * r, int lx, int ly, bspline_level * out)
{
  out->axis_x = bspline_level_axis (&r->plan->axis_x, lx);
  out->axis_y = bspline_level_axis (&r->plan->axis_y, ly);
  if (lx == 0 && ly == 0) {
    out->data = r->coef->data;
    out->row_len = r->coef->row_len;
  } else {
    out->data = r->data[lx][ly];
    out->row_len = (ptrdiff_t) bspline_level_stored (&out->axis_x)
        * r->plan->channels;
  }
}

/* Makes level (lx, ly), and the levels it is made from; under the lock.
 * Returns 0 where there is no memory. */
static int
make_level (bspline_ripmap * r, int lx, int ly)
{
  const bspline_plan *plan = r->plan;
  const int C = plan->channels;
  const size_t real = plan->use_double ? sizeof (double) : sizeof (float);
  const int along_x = lx > 0;
  const int fx = along_x ? lx - 1 : lx, fy = along_x ? ly : ly - 1;
  const bspline_axis from = along_x ? bspline_level_axis (&plan->axis_x, fx) :
      bspline_level_axis (&plan->axis_y, fy);
  const bspline_axis to = along_x ? bspline_level_axis (&plan->axis_x, lx) :
      bspline_level_axis (&plan->axis_y, ly);
  bspline_level src, dst;
  size_t bytes;
  int *index, n, w_out, h_out;
  double *w;

  if (__atomic_load_n (&r->made[lx][ly], __ATOMIC_ACQUIRE))
    return 1;
  if ((fx > 0 || fy > 0) && !make_level (r, fx, fy))
    return 0;
  ripmap_plane (r, fx, fy, &src);
  ripmap_plane (r, lx, ly, &dst);
  w_out = bspline_level_stored (&dst.axis_x);
  h_out = bspline_level_stored (&dst.axis_y);
  bytes = (size_t) w_out * h_out * C * real;
  if (r->size[lx][ly] < bytes) {
    free (r->data[lx][ly]);
    r->data[lx][ly] = malloc (bytes);
    r->size[lx][ly] = r->data[lx][ly] ? bytes : 0;
    if (!r->data[lx][ly])
      return 0;
  }
  n = step_taps (&from, -to.pad, bspline_level_stored (&to), &index, &w);
  if (n == 0)
    return 0;
  if (along_x && plan->use_double)
    step_x_d (src.data, src.row_len, r->data[lx][ly], w_out, h_out, C,
        index, w, n);
  else if (along_x)
    step_x_f (src.data, src.row_len, r->data[lx][ly], w_out, h_out, C,
        index, w, n);
  else if (plan->use_double)
    step_y_d (src.data, src.row_len, r->data[lx][ly], h_out,
        (ptrdiff_t) w_out * C, index, w, n);
  else
    step_y_f (src.data, src.row_len, r->data[lx][ly], h_out,
        (ptrdiff_t) w_out * C, index, w, n);
  free (index);
  free (w);
  bspline_ripmap_count (r, (uint64_t) w_out * h_out * n);
  __atomic_store_n (&r->made[lx][ly], 1, __ATOMIC_RELEASE);
  return 1;
}

int
bspline_ripmap_level (bspline_ripmap * r, int lx, int ly, bspline_level * out)
{
  if (!__atomic_load_n (&r->made[lx][ly], __ATOMIC_ACQUIRE)) {
    int ok;
    pthread_mutex_lock (&r->lock);
    ok = make_level (r, lx, ly);
    pthread_mutex_unlock (&r->lock);
    if (!ok)
      return 0;
  }
  ripmap_plane (r, lx, ly, out);
  return 1;
}
