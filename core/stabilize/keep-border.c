/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* keep-border.c: the keep-border composition on the CPU
 * (bspline-keep-border.h).
 *
 * The homography alone.  Along output row v (y = v + 0.5) the homography
 * sends the pixel centre c = u + 0.5 to (X / W, Y / W) with X, Y and W
 * linear in c.  The centre has an input point inside [0, w] x [0, h]
 * exactly where
 *   W > 0,  X >= 0,  w W - X >= 0,  Y >= 0,  h W - Y >= 0
 * (with W > 0, x = X / W >= 0 is X >= 0, and so on): five half-lines in
 * c, whose intersection is one interval.  The rule itself is computed in
 * double, each of X, Y, W rounded three times and the quotient once, so
 * a constraint f = a c + b of the list is decided as the exact
 * arithmetic decides it wherever |f| exceeds a bound of those roundings,
 * a few units of 2^-53 times the sum S of the magnitudes of its terms
 * (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.,
 * sec. 3.1, lemma 3.1 and eq. 3.4, with a few ulps more for the quotient's
 * rounding against w or h).  Here that bound is taken as
 * KEEP_BORDER_SLACK S, three thousand times over: a pixel is surely
 * inside where every f >= 2 KEEP_BORDER_SLACK S, surely outside where one
 * f <= -2 KEEP_BORDER_SLACK S.  Per row, the intervals are found in
 * closed form, their ends checked against those thresholds (f is linear,
 * so its ends bound it), the spans surely outside copied whole and the
 * few pixels within the rounding of an end given the rule itself: the
 * result is the rule's, byte for byte.
 *
 * A lens stage: no closed form; the rule at every pixel, the rows split
 * over the CPU engine's threads. */
#include "bspline-keep-border.h"
#include "resample.h"

#include <math.h>
#include <string.h>

/* The rounding bound of the rule as a multiple of the magnitude sum S of
 * a constraint's terms (3 unit roundoffs and the quotient's would do),
 * and the least bound, which keeps a quotient decided as surely outside
 * from underflowing to zero (|x| >= 2e-200 / (3e100 2^24) > 4e-308). */
#define KEEP_BORDER_SLACK 1e-12
#define KEEP_BORDER_FLOOR 1e-200
/* Matrices with larger entries take the rule at every pixel. */
#define KEEP_BORDER_MAX_ENTRY 1e100

/* The five constraints of a row: f_k (c) = a[k] c + b[k]; inside where
 * f_0 > 0 and f_1 .. f_4 >= 0; eps[k] the rounding threshold of f_k. */
typedef struct
{
  double a[5], b[5], eps[5];
} row_constraints;

static void
row_constraints_init (row_constraints * r, const double *m, double y,
    double c_max, int in_width, int in_height)
{
  double bx = m[1] * y + m[2], by = m[4] * y + m[5], bw = m[7] * y + m[8];
  double sx = fabs (m[0]) * c_max + fabs (m[1] * y) + fabs (m[2]);
  double sy = fabs (m[3]) * c_max + fabs (m[4] * y) + fabs (m[5]);
  double sw = fabs (m[6]) * c_max + fabs (m[7] * y) + fabs (m[8]);
  double s[5];
  int k;

  r->a[0] = m[6];
  r->b[0] = bw;
  s[0] = sw;
  r->a[1] = m[0];
  r->b[1] = bx;
  s[1] = sx;
  r->a[2] = in_width * m[6] - m[0];
  r->b[2] = in_width * bw - bx;
  s[2] = sx + in_width * sw;
  r->a[3] = m[3];
  r->b[3] = by;
  s[3] = sy;
  r->a[4] = in_height * m[6] - m[3];
  r->b[4] = in_height * bw - by;
  s[4] = sy + in_height * sw;
  for (k = 0; k < 5; k++)
    r->eps[k] = KEEP_BORDER_SLACK * s[k] + KEEP_BORDER_FLOOR;
}

static double
row_f (const row_constraints * r, int k, int u)
{
  return r->a[k] * (u + 0.5) + r->b[k];
}

/* The centres c where every f_k >= scale eps_k, as an interval of
 * pixels [*first, *last] (empty: *first > *last); sizes beyond the row
 * are clamped (the ends are checked afterwards, so rounding here costs
 * at most a pixel given the rule). */
static void
row_interval (const row_constraints * r, double scale, int width, int *first,
    int *last)
{
  double lo = -INFINITY, hi = INFINITY;
  int k;

  for (k = 0; k < 5; k++) {
    double t = scale * r->eps[k];
    if (r->a[k] > 0.0)
      lo = fmax (lo, (t - r->b[k]) / r->a[k]);
    else if (r->a[k] < 0.0)
      hi = fmin (hi, (t - r->b[k]) / r->a[k]);
    else if (r->b[k] < t)
      lo = INFINITY;
  }
  /* pixels u with lo <= u + 0.5 <= hi */
  lo = fmin (fmax (lo - 0.5, -2.0), width + 2.0);
  hi = fmin (fmax (hi - 0.5, -2.0), width + 2.0);
  *first = (int) ceil (lo);
  *last = (int) floor (hi);
}

/* Pixel u is surely outside by a constraint that does not grow towards
 * lower u (towards_lower) or towards higher u. */
static int
surely_outside (const row_constraints * r, int u, int towards_lower)
{
  int k;
  for (k = 0; k < 5; k++)
    if ((towards_lower ? r->a[k] >= 0.0 : r->a[k] <= 0.0)
        && row_f (r, k, u) <= -2.0 * r->eps[k])
      return 1;
  return 0;
}

static int
surely_inside (const row_constraints * r, int u)
{
  int k;
  for (k = 0; k < 5; k++)
    if (!(row_f (r, k, u) >= 2.0 * r->eps[k]))
      return 0;
  return 1;
}

typedef struct
{
  const bspline_image *dst, *previous;
  const double *m;
  const bspline_lens *lens;
  int in_width, in_height;
  size_t pixel;
  int n_bands;
} keep_border_job;

/* The rule at pixels [u0, u1) of row v. */
static void
keep_pixels (const keep_border_job * job, unsigned char *out,
    const unsigned char *prev, int v, int u0, int u1)
{
  size_t pixel = job->pixel;
  int u;

  for (u = u0; u < u1; u++)
    if (bspline_keep_border_outside (job->m, job->lens, u, v, job->in_width,
            job->in_height))
      memcpy (out + u * pixel, prev + u * pixel, pixel);
}

static void
keep_span (const keep_border_job * job, unsigned char *out,
    const unsigned char *prev, int u0, int u1)
{
  if (u1 > u0)
    memcpy (out + u0 * job->pixel, prev + u0 * job->pixel,
        (size_t) (u1 - u0) * job->pixel);
}

/* Row v of the homography alone (see the top of the file). */
static void
keep_row_homography (const keep_border_job * job, int v)
{
  const int width = job->dst->width;
  unsigned char *out = (unsigned char *) job->dst->data +
      (ptrdiff_t) v * job->dst->stride;
  const unsigned char *prev = (const unsigned char *) job->previous->data +
      (ptrdiff_t) v * job->previous->stride;
  row_constraints r;
  int first, last, left, right, in_first, in_last;

  row_constraints_init (&r, job->m, v + 0.5, width, job->in_width,
      job->in_height);
  /* where no f_k is surely negative: outside it, surely outside */
  row_interval (&r, -3.0, width, &first, &last);
  left = first - 1 < 0 ? 0 : first - 1 > width ? width : first - 1;
  right = last + 2 > width ? width : last + 2 < 0 ? 0 : last + 2;
  if (left > 0 && !surely_outside (&r, left - 1, 1))
    left = 0;
  if (right < width && !surely_outside (&r, right, 0))
    right = width;
  if (right <= left) {
    keep_span (job, out, prev, 0, width);
    return;
  }
  keep_span (job, out, prev, 0, left);
  keep_span (job, out, prev, right, width);
  /* within [left, right): surely inside where every f_k is surely
   * positive, the rule elsewhere */
  row_interval (&r, 3.0, width, &in_first, &in_last);
  in_first = in_first + 1 < left ? left : in_first + 1;
  in_last = in_last - 1 >= right ? right - 1 : in_last - 1;
  if (in_first > in_last || !surely_inside (&r, in_first)
      || !surely_inside (&r, in_last)) {
    keep_pixels (job, out, prev, v, left, right);
    return;
  }
  keep_pixels (job, out, prev, v, left, in_first);
  keep_pixels (job, out, prev, v, in_last + 1, right);
}

/* A band of rows with the rule at every pixel. */
static void
keep_band (void *ctx, int task, int worker)
{
  const keep_border_job *job = ctx;
  int height = job->dst->height;
  int v0 = (int) ((long long) height * task / job->n_bands);
  int v1 = (int) ((long long) height * (task + 1) / job->n_bands);
  int v;

  (void) worker;
  for (v = v0; v < v1; v++)
    keep_pixels (job, (unsigned char *) job->dst->data +
        (ptrdiff_t) v * job->dst->stride,
        (const unsigned char *) job->previous->data +
        (ptrdiff_t) v * job->previous->stride, v, 0, job->dst->width);
}

/* The homography can take the closed form: finite entries of a sane
 * size. */
static int
closed_form_usable (const double *m)
{
  int i;
  for (i = 0; i < 9; i++)
    if (!(fabs (m[i]) <= KEEP_BORDER_MAX_ENTRY))
      return 0;
  return 1;
}

bspline_status
bspline_cpu_keep_border (bspline_cpu * cpu, const bspline_image * dst,
    const bspline_image * previous, const double inverse[9],
    const bspline_lens * lens, int in_width, int in_height)
{
  keep_border_job job;
  bspline_pool *pool = cpu ? bspline_cpu_pool (cpu) : NULL;
  int v;

  if (!dst || !previous || !inverse || !dst->data || !previous->data
      || previous->width != dst->width || previous->height != dst->height
      || previous->channels != dst->channels || previous->type != dst->type
      || in_width < 0 || in_height < 0
      || bspline_image_validate (dst, 1, NULL, 0) != BSPLINE_OK
      || bspline_image_validate (previous, 1, NULL, 0) != BSPLINE_OK)
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  job.dst = dst;
  job.previous = previous;
  job.m = inverse;
  job.lens = lens && lens->model != BSPLINE_LENS_NONE ? lens : NULL;
  job.in_width = in_width;
  job.in_height = in_height;
  job.pixel = (size_t) dst->channels * bspline_sample_size (dst->type);
  if (!job.lens && closed_form_usable (inverse)) {
    for (v = 0; v < dst->height; v++)
      keep_row_homography (&job, v);
    return BSPLINE_OK;
  }
  /* bands of a few rows, claimed by whichever thread is free */
  job.n_bands = dst->height < 256 ? dst->height : 256;
  if (job.n_bands == 0)
    return BSPLINE_OK;
  if (pool)
    bspline_pool_run (pool, job.n_bands, keep_band, &job);
  else
    for (v = 0; v < job.n_bands; v++)
      keep_band (&job, v, 0);
  return BSPLINE_OK;
}
