/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* STMaps: from the file's (s, t) samples to the coefficients the STMap
 * stage evaluates (bspline-stmap.h says the conventions).
 *
 * The coefficients are those of the cubic B-spline that interpolates the
 * map ([U99] eqs. 3-4) with the point-symmetric extension at both ends of
 * each axis.  Write a line f(0..n-1) as the ramp L(k) through f(0) and
 * f(n-1) plus the rest h = f - L: L extends point-symmetrically into
 * itself, and the cubic's prefilter leaves a linear sequence unchanged
 * (the B-spline reproduces polynomials of degree <= 3 and its samples of
 * a line are the line), so L is its own coefficient sequence.  h is zero
 * at both ends, and its point-symmetric extension is odd about each end:
 * periodic with period P = 2 (n - 1).  The prefilter of one period,
 * with the causal and anti-causal initial values summed over whole
 * periods in closed form, gives h's coefficients exactly (no truncation);
 * they are odd about both ends as well, so the coefficients of f extend
 * by the same point symmetry, which the padding stores.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bspline-math.h"
#include "bspline-stage.h"
#include "bspline-stmap.h"
#include "bspline-stmap-file.h"
#include "base.h"

struct bspline_stmap
{
  int ref_count;
  int width, height;
  int stride;                   /* width + 2 * BSPLINE_STMAP_PAD */
  size_t bytes;
  double *coefficients;         /* (x, y) pairs, padded */
};

/* How far outside the frame a map value may point, in frames: values
 * beyond [-STMAP_REACH, 1 + STMAP_REACH] are clamped to it before the
 * prefilter. */
#define STMAP_REACH 1.0

/* A map value clamped to the map's reach.  The interpolating spline
 * reproduces every sample exactly, but in floating point a sample of 1e30
 * leaves errors of about 1e30 x 2^-52 x 0.268^k at the samples k away
 * (the prefilter's pole): a cross of wrong positions over the whole map.
 * Clamped, an outlier is a point a frame outside, whose error at the
 * other samples is rounding, and which the input's boundary treats like
 * any point that far out. */
static double
stmap_clamp (double v)
{
  return v < -STMAP_REACH ? -STMAP_REACH : v > 1.0 + STMAP_REACH ?
      1.0 + STMAP_REACH : v;
}

/* The cubic prefilter of one period e[0..period-1] of a periodic line, in
 * place ([U99] eqs. 6-7 with the periodic initial values: the causal
 * c+(0) = sum_k z^k e(-k) over all k, the anti-causal c-(P-1) =
 * -z sum_j z^j c+(P-1+j), each a geometric series over the periods). */
static void
stmap_prefilter_periodic (double *e, int period)
{
  const double z = bspline_pole (3, 0);
  const double gain = bspline_prefilter_gain (3);
  const double zp = pow (z, period);
  double sum = 0.0, zk = 1.0;
  int k;

  for (k = 0; k < period; k++, zk *= z)
    sum += zk * e[(period - k) % period];
  e[0] = sum / (1.0 - zp);
  for (k = 1; k < period; k++)
    e[k] += z * e[k - 1];
  sum = 0.0;
  zk = 1.0;
  for (k = 0; k < period; k++, zk *= z)
    sum += zk * e[(period - 1 + k) % period];
  {
    double last = -z * sum / (1.0 - zp);
    double *c = e;
    c[period - 1] = last;
    for (k = period - 2; k >= 0; k--)
      c[k] = z * (c[k + 1] - c[k]);
  }
  for (k = 0; k < period; k++)
    e[k] *= gain;
}

/* The coefficients of one line of n samples (stride apart), in place:
 * the ramp plus the periodic prefilter of the odd rest (above); work
 * holds 2 (n - 1) doubles. */
static void
stmap_prefilter_line (double *line, size_t stride, int n, double *work)
{
  const int period = 2 * (n - 1);
  double f0, f1;
  int k;

  if (n < 3)
    return;                     /* a point or a line: its own coefficients */
  f0 = line[0];
  f1 = line[(size_t) (n - 1) * stride];
  for (k = 0; k < n; k++)
    work[k] = line[(size_t) k * stride] - (f0 + (f1 - f0) * k / (n - 1));
  for (k = n; k < period; k++)
    work[k] = -work[period - k];
  stmap_prefilter_periodic (work, period);
  for (k = 1; k < n - 1; k++)
    line[(size_t) k * stride] = work[k] + (f0 + (f1 - f0) * k / (n - 1));
}

/* The padding of one line of n values (stride apart) with pad values
 * before and after: v(-k) = 2 v(0) - v(k), v(n-1+k) = 2 v(n-1) -
 * v(n-1-k), applied again where a short line sends k past the other end
 * (n = 1: a constant; n = 2: the line through both). */
static double
stmap_extended (const double *line, size_t stride, int n, int k)
{
  if (n == 1)
    return line[0];
  if (k < 0)
    return 2.0 * line[0] - stmap_extended (line, stride, n, -k);
  if (k > n - 1)
    return 2.0 * line[(size_t) (n - 1) * stride] - stmap_extended (line,
        stride, n, 2 * (n - 1) - k);
  return line[(size_t) k * stride];
}

static void
stmap_pad_line (double *line, size_t stride, int n)
{
  double before[BSPLINE_STMAP_PAD], after[BSPLINE_STMAP_PAD];
  int k;

  for (k = 1; k <= BSPLINE_STMAP_PAD; k++) {
    before[k - 1] = stmap_extended (line, stride, n, -k);
    after[k - 1] = stmap_extended (line, stride, n, n - 1 + k);
  }
  for (k = 1; k <= BSPLINE_STMAP_PAD; k++) {
    line[-(ptrdiff_t) k * (ptrdiff_t) stride] = before[k - 1];
    line[(size_t) (n - 1 + k) * stride] = after[k - 1];
  }
}

bspline_status
bspline_stmap_new (const double *st, int width, int height,
    bspline_stmap ** out, char *msg, size_t msg_len)
{
  bspline_stmap *map;
  double *work, *origin;
  size_t samples, padded, i;
  int x, y, c, pad = BSPLINE_STMAP_PAD, n;

  if (!out) {
    bspline_set_error (msg, msg_len, "no STMap pointer given");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  *out = NULL;
  if (!st || width < 1 || height < 1 || width > BSPLINE_MAX_SIDE
      || height > BSPLINE_MAX_SIDE
      || (size_t) width * (size_t) height > BSPLINE_STMAP_MAX_SAMPLES) {
    bspline_set_error (msg, msg_len, "an STMap of %dx%d samples is out of "
        "range (1 to %d samples)", width, height, BSPLINE_STMAP_MAX_SAMPLES);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  samples = (size_t) width * height;
  for (i = 0; i < 2 * samples; i++)
    if (!isfinite (st[i])) {
      bspline_set_error (msg, msg_len, "the STMap's %s value at column %zu, "
          "row %zu (from the top) is %g: every value must be finite",
          i % 2 ? "t (G)" : "s (R)", (i / 2) % width, (i / 2) / width,
          st[i]);
      return BSPLINE_ERROR_INVALID_ARGUMENT;
    }

  padded = (size_t) (width + 2 * pad) * (height + 2 * pad);
  map = calloc (1, sizeof (*map));
  n = width > height ? width : height;
  work = malloc (sizeof (double) * 2 * (size_t) n);
  if (map)
    map->coefficients = malloc (sizeof (double) * 2 * padded);
  if (!map || !work || !map->coefficients) {
    if (map)
      free (map->coefficients);
    free (map);
    free (work);
    bspline_set_error (msg, msg_len, "out of memory for an STMap of %dx%d "
        "samples", width, height);
    return BSPLINE_ERROR_NO_MEMORY;
  }
  map->ref_count = 1;
  map->width = width;
  map->height = height;
  map->stride = width + 2 * pad;
  map->bytes = sizeof (double) * 2 * padded;

  /* the one conversion: (s, t), t up -> (x, y) fractions, y down */
  origin = map->coefficients + 2 * ((size_t) pad * map->stride + pad);
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      const double *v = st + 2 * ((size_t) y * width + x);
      double *o = origin + 2 * ((size_t) y * map->stride + x);
      o[0] = stmap_clamp (v[0]);
      o[1] = 1.0 - stmap_clamp (v[1]);
    }
  for (c = 0; c < 2; c++) {
    for (y = 0; y < height; y++)
      stmap_prefilter_line (origin + 2 * (size_t) y * map->stride + c, 2,
          width, work);
    for (x = 0; x < width; x++)
      stmap_prefilter_line (origin + 2 * (size_t) x + c,
          2 * (size_t) map->stride, height, work);
    for (y = 0; y < height; y++)
      stmap_pad_line (origin + 2 * (size_t) y * map->stride + c, 2, width);
    for (x = -pad; x < width + pad; x++)
      stmap_pad_line (origin + 2 * (ptrdiff_t) x + c,
          2 * (size_t) map->stride, height);
  }
  free (work);
  *out = map;
  return BSPLINE_OK;
}

int
bspline_stmap_fits_frame (int map_width, int map_height, int width, int height)
{
  return width > 0 && height > 0 && map_width > 0 && map_height > 0
      && (fabs (map_width - (double) map_height * width / height) <= 1.0
      || fabs (map_height - (double) map_width * height / width) <= 1.0);
}

bspline_status
bspline_stmap_load (const char *path, bspline_stmap ** out, char *msg,
    size_t msg_len)
{
  return bspline_stmap_load_for_frame (path, 0, 0, out, msg, msg_len);
}

bspline_status
bspline_stmap_load_for_frame (const char *path, int frame_width,
    int frame_height, bspline_stmap ** out, char *msg, size_t msg_len)
{
  double *st = NULL;
  int width = 0, height = 0;
  bspline_status status;

  if (out)
    *out = NULL;
  status = bspline_stmap_read_for_frame (path, frame_width, frame_height,
      &width, &height, &st, msg, msg_len);
  if (status != BSPLINE_OK)
    return status;
  status = bspline_stmap_new (st, width, height, out, msg, msg_len);
  free (st);
  return status;
}

bspline_stmap *
bspline_stmap_ref (bspline_stmap * map)
{
  if (map)
    __atomic_add_fetch (&map->ref_count, 1, __ATOMIC_RELAXED);
  return map;
}

void
bspline_stmap_unref (bspline_stmap * map)
{
  if (map && __atomic_sub_fetch (&map->ref_count, 1, __ATOMIC_ACQ_REL) == 0) {
    free (map->coefficients);
    free (map);
  }
}

int
bspline_stmap_width (const bspline_stmap * map)
{
  return map->width;
}

int
bspline_stmap_height (const bspline_stmap * map)
{
  return map->height;
}

const double *
bspline_stmap_coefficients (const bspline_stmap * map, size_t * bytes)
{
  if (bytes)
    *bytes = map->bytes;
  return map->coefficients;
}

int
bspline_stmap_eval (const bspline_stmap * map, double mx, double my,
    double *x, double *y)
{
  return bspline_stmap_map (map->coefficients, map->width, map->height, mx,
      my, x, y, NULL);
}
