/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-common.h: seed, random numbers, failure reporting and image helpers
 * shared by the core tests.
 *
 * Every test draws a fresh seed per run (from the clock and the process id)
 * unless BSPLINE_TEST_SEED is set, prints it first, and repeats it with every
 * failure, so that any failing run can be replayed exactly.
 */
#ifndef TEST_COMMON_H
#define TEST_COMMON_H

#include "bspline.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TEST_MAX_PRINTED_FAILURES 40
#define TEST_PI 3.14159265358979323846

static const char *test_name;
static uint64_t test_seed;
static long test_n_failures;

/* ---- random numbers: xoshiro256** seeded through splitmix64 ---- */

typedef struct
{
  uint64_t s[4];
} test_rng;

static inline uint64_t
test_splitmix64 (uint64_t * x)
{
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static inline void
test_rng_init (test_rng * rng, uint64_t seed)
{
  int i;
  for (i = 0; i < 4; i++)
    rng->s[i] = test_splitmix64 (&seed);
}

static inline uint64_t
test_rng_u64 (test_rng * rng)
{
  uint64_t *s = rng->s;
  uint64_t r = s[1] * 5, t = s[1] << 17;
  r = ((r << 7) | (r >> 57)) * 9;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = (s[3] << 45) | (s[3] >> 19);
  return r;
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double
test_rng_uniform (test_rng * rng)
{
  return (test_rng_u64 (rng) >> 11) * (1.0 / 9007199254740992.0);
}

static inline double
test_rng_range (test_rng * rng, double lo, double hi)
{
  return lo + (hi - lo) * test_rng_uniform (rng);
}

/* Uniform integer in [lo, hi]. */
static inline int
test_rng_int (test_rng * rng, int lo, int hi)
{
  return lo + (int) (test_rng_u64 (rng) % (uint64_t) (hi - lo + 1));
}

/* ---- work scale ---- */

/* test_trials (n): the number of repetitions of a test's random trials,
 * n scaled by $BSPLINE_TEST_WORK (a fraction in (0, 1]; 1 when unset),
 * at least 1.  The sanitizer setups (tests/sanitizers/meson.build) run
 * fewer repetitions of the same code; every case's code still runs. */
static inline int
test_trials (int n)
{
  const char *env = getenv ("BSPLINE_TEST_WORK");
  double scale = env && *env ? strtod (env, NULL) : 1.0;
  int k;
  if (!(scale > 0.0 && scale <= 1.0))
    scale = 1.0;
  k = (int) ceil (n * scale);
  return k < 1 ? 1 : k;
}

/* ---- seed and reporting ---- */

/* Prints the test's name and seed and returns a generator seeded with it. */
static inline void
test_begin (const char *name, test_rng * rng)
{
  const char *env = getenv ("BSPLINE_TEST_SEED");
  test_name = name;
  if (env && *env) {
    test_seed = strtoull (env, NULL, 0);
  } else {
    struct timespec ts;
    clock_gettime (CLOCK_REALTIME, &ts);
    test_seed = ((uint64_t) ts.tv_sec * 1000000007ull)
        ^ ((uint64_t) ts.tv_nsec << 20) ^ (uint64_t) getpid ();
  }
  printf ("%s: seed %llu (BSPLINE_TEST_SEED=%llu repeats this run)\n",
      name, (unsigned long long) test_seed, (unsigned long long) test_seed);
  fflush (stdout);
  test_rng_init (rng, test_seed);
}

static inline void
test_fail_at (const char *file, int line, const char *fmt, ...)
{
  va_list ap;
  test_n_failures++;
  if (test_n_failures > TEST_MAX_PRINTED_FAILURES)
    return;
  printf ("FAIL %s:%d [seed %llu]: ", file, line,
      (unsigned long long) test_seed);
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  printf ("\n");
  fflush (stdout);
}

#define TEST_CHECK(cond, ...) \
  do { \
    if (!(cond)) \
      test_fail_at (__FILE__, __LINE__, __VA_ARGS__); \
  } while (0)

/* Prints the one-line summary (what was measured) and returns the exit
 * code of the test. */
static inline int
test_end (const char *summary_fmt, ...)
{
  va_list ap;
  printf ("%s: %s: ", test_name, test_n_failures ? "FAILED" : "ok");
  va_start (ap, summary_fmt);
  vprintf (summary_fmt, ap);
  va_end (ap);
  if (test_n_failures)
    printf (" [%ld failures, seed %llu: BSPLINE_TEST_SEED=%llu repeats]",
        test_n_failures, (unsigned long long) test_seed,
        (unsigned long long) test_seed);
  printf ("\n");
  return test_n_failures ? 1 : 0;
}

/* ---- names ---- */

static inline const char *
test_boundary_name (int boundary)
{
  static const char *const names[] = {
    "reflect", "mirror", "wrap", "clamp", "constant"
  };
  return boundary >= 0 && boundary < 5 ? names[boundary] : "?";
}

static inline const char *
test_precision_name (int precision)
{
  static const char *const names[] = { "float", "double", "fast" };
  return precision >= 0 && precision < 3 ? names[precision] : "?";
}

static inline const char *
test_type_name (int type)
{
  static const char *const names[] = { "U8", "U16", "F32", "F64" };
  return type >= 0 && type < 4 ? names[type] : "?";
}

/* ---- images ---- */

static inline size_t
test_sample_size (bspline_sample_type type)
{
  switch (type) {
    case BSPLINE_SAMPLE_U8:
      return 1;
    case BSPLINE_SAMPLE_U16:
      return 2;
    case BSPLINE_SAMPLE_F32:
      return 4;
    default:
      return 8;
  }
}

/* Allocates a zeroed image; its stride exceeds a row by extra_samples
 * samples, so that the engine's use of the stride is exercised. */
static inline void
test_image_alloc (bspline_image * img, int width, int height, int channels,
    bspline_sample_type type, int extra_samples)
{
  size_t ss = test_sample_size (type);
  memset (img, 0, sizeof (*img));
  img->width = width;
  img->height = height;
  img->channels = channels;
  img->type = type;
  img->bits = type == BSPLINE_SAMPLE_U8 ? 8 : type == BSPLINE_SAMPLE_U16 ?
      16 : 0;
  img->shift = 0;
  img->stride = (ptrdiff_t) (((size_t) width * channels + extra_samples) * ss);
  img->data = calloc ((size_t) height * img->stride + 1, 1);
  if (!img->data) {
    printf ("%s: out of memory\n", test_name);
    exit (99);
  }
}

static inline void
test_image_free (bspline_image * img)
{
  free (img->data);
  img->data = NULL;
}

/* Sample value in code values (integers: without the shift). */
static inline double
test_image_get (const bspline_image * img, int x, int y, int c)
{
  const char *row = (const char *) img->data + (ptrdiff_t) y * img->stride;
  size_t i = (size_t) x * img->channels + c;
  switch (img->type) {
    case BSPLINE_SAMPLE_U8:
      return ((const uint8_t *) row)[i];
    case BSPLINE_SAMPLE_U16:
      return ((const uint16_t *) row)[i] >> img->shift;
    case BSPLINE_SAMPLE_F32:
      return ((const float *) row)[i];
    default:
      return ((const double *) row)[i];
  }
}

/* Stores v (integers: a code value in range, shifted into place). */
static inline void
test_image_set (const bspline_image * img, int x, int y, int c, double v)
{
  char *row = (char *) img->data + (ptrdiff_t) y * img->stride;
  size_t i = (size_t) x * img->channels + c;
  switch (img->type) {
    case BSPLINE_SAMPLE_U8:
      ((uint8_t *) row)[i] = (uint8_t) v;
      break;
    case BSPLINE_SAMPLE_U16:
      ((uint16_t *) row)[i] = (uint16_t) ((unsigned) v << img->shift);
      break;
    case BSPLINE_SAMPLE_F32:
      ((float *) row)[i] = (float) v;
      break;
    default:
      ((double *) row)[i] = v;
      break;
  }
}

/* Fills an image with uniform random values in [lo, hi) (integers: any
 * code value), and returns in range[0..1] the smallest and largest value
 * actually stored. */
static inline void
test_image_fill_random (const bspline_image * img, test_rng * rng,
    double lo, double hi, double range[2])
{
  int x, y, c;
  double vmax = img->type == BSPLINE_SAMPLE_U8 ? 255.0 :
      img->type == BSPLINE_SAMPLE_U16 ? (double) ((1 << img->bits) - 1) : 0.0;
  range[0] = INFINITY;
  range[1] = -INFINITY;
  for (y = 0; y < img->height; y++)
    for (x = 0; x < img->width; x++)
      for (c = 0; c < img->channels; c++) {
        double v;
        if (vmax > 0.0)
          v = floor (test_rng_uniform (rng) * (vmax + 1.0));
        else
          v = test_rng_range (rng, lo, hi);
        test_image_set (img, x, y, c, v);
        v = test_image_get (img, x, y, c);
        range[0] = fmin (range[0], v);
        range[1] = fmax (range[1], v);
      }
}

/* The scale errors are measured against: the signal range, or its largest
 * magnitude where the range is tiny (1x1 images, constant images). */
static inline double
test_signal_scale (const double range[2])
{
  double s = fmax (range[1] - range[0], fmax (fabs (range[0]),
          fabs (range[1])));
  return s > 0.0 ? s : 1.0;
}

/* Reads a binary grey PGM (P5, maxval < 256) written by
 * make-test-images.py into a newly allocated F64 image. */
static inline int
test_read_pgm (const char *path, bspline_image * img)
{
  FILE *f = fopen (path, "rb");
  int w, h, maxval, x, y;
  if (!f) {
    printf ("%s: cannot open %s\n", test_name, path);
    return 0;
  }
  if (fscanf (f, "P5 %d %d %d", &w, &h, &maxval) != 3 || maxval > 255
      || w <= 0 || h <= 0 || fgetc (f) == EOF) {
    printf ("%s: %s is not a binary 8-bit PGM\n", test_name, path);
    fclose (f);
    return 0;
  }
  test_image_alloc (img, w, h, 1, BSPLINE_SAMPLE_F64, 0);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      int v = fgetc (f);
      if (v == EOF) {
        printf ("%s: %s is truncated\n", test_name, path);
        fclose (f);
        test_image_free (img);
        return 0;
      }
      test_image_set (img, x, y, 0, v);
    }
  fclose (f);
  return 1;
}

/* ---- boundary extensions, written as the rules themselves ---- */

/* Index of the stored sample that extended index k reads, or -1 for the
 * fill value: the rule (reflect cba|abc|cba, mirror cb|abc|ba, wrap,
 * clamp, constant) applied until the index lands inside, so that short
 * signals extend correctly. */
static inline int
test_extend_index (int k, int len, int boundary)
{
  switch (boundary) {
    case BSPLINE_BOUNDARY_REFLECT:
      while (k < 0 || k >= len)
        k = k < 0 ? -1 - k : 2 * len - 1 - k;
      return k;
    case BSPLINE_BOUNDARY_MIRROR:
      if (len == 1)
        return 0;
      while (k < 0 || k >= len)
        k = k < 0 ? -k : 2 * (len - 1) - k;
      return k;
    case BSPLINE_BOUNDARY_WRAP:
      while (k < 0)
        k += len;
      while (k >= len)
        k -= len;
      return k;
    case BSPLINE_BOUNDARY_CLAMP:
      return k < 0 ? 0 : k >= len ? len - 1 : k;
    default:
      return k < 0 || k >= len ? -1 : k;
  }
}

/* Brings a sample coordinate s more than `near` samples outside a line of
 * len samples back to where a reference holds it: by whole periods for the
 * folding extensions (the extended signal and its interpolant are
 * periodic: 2 len, 2 len - 2, len), and to `far` samples outside the line
 * for clamp and constant, where the reference's interpolant has become
 * constant. */
static inline long double
test_fold_far (long double s, int len, int boundary, long double near,
    long double far)
{
  long double period;
  switch (boundary) {
    case BSPLINE_BOUNDARY_REFLECT:
      period = 2 * len;
      break;
    case BSPLINE_BOUNDARY_MIRROR:
      period = len > 1 ? 2 * len - 2 : 1;
      break;
    case BSPLINE_BOUNDARY_WRAP:
      period = len;
      break;
    default:
      if (s < -far)
        return -far;
      if (s > len - 1 + far)
        return len - 1 + far;
      return s;
  }
  if (s < -near || s > len - 1 + near)
    s -= period * floorl ((s - 0.5L * len) / period + 0.5L);
  return s;
}

/* ---- transforms ---- */

/* The inverse map (output pixel -> input pixel) of a rotation by angle
 * (radians) and a scale `zoom` (> 1 magnifies) that sends the centre of
 * the output frame to the centre of the input frame. */
static inline void
test_rotation_zoom (double angle, double zoom, int src_w, int src_h,
    int dst_w, int dst_h, double m[9])
{
  double c = cos (angle) / zoom, s = sin (angle) / zoom;
  double ocx = 0.5 * dst_w, ocy = 0.5 * dst_h;
  m[0] = c;
  m[1] = -s;
  m[2] = 0.5 * src_w - c * ocx + s * ocy;
  m[3] = s;
  m[4] = c;
  m[5] = 0.5 * src_h - s * ocx - c * ocy;
  m[6] = 0.0;
  m[7] = 0.0;
  m[8] = 1.0;
}

/* Where the plan samples the input for output pixel (i, j): the image of
 * the pixel centre under the inverse map. */
static inline void
test_map_centre (const double m[9], int i, int j, double *x, double *y)
{
  double u = i + 0.5, v = j + 0.5;
  double w = m[6] * u + m[7] * v + m[8];
  *x = (m[0] * u + m[1] * v + m[2]) / w;
  *y = (m[3] * u + m[4] * v + m[5]) / w;
}

/* ---- the centred B-spline from its explicit definition ([U99] eq. 3):
 *   beta^n(x) = 1/n! sum_{k=0}^{n+1} (-1)^k C(n+1, k) (x + (n+1)/2 - k)_+^n
 * in long double.  For n >= 1 the symmetric form beta^n(-|x|) is used: its
 * nonzero terms are the few with k < (n+1)/2 - |x|, which keeps the
 * cancellation small for order 11.  Order 0 keeps the half-open support
 * [-1/2, 1/2) of the engines ((t)_+^0 = 1 for t >= 0). */
static inline long double
test_bspline_explicit (int n, long double x)
{
  long double sum = 0.0L, binom = 1.0L, fact = 1.0L;
  int k, j;
  if (n > 0)
    x = -fabsl (x);
  for (j = 2; j <= n; j++)
    fact *= j;
  for (k = 0; k <= n + 1; k++) {
    long double t = x + 0.5L * (n + 1) - k;
    if (t >= 0.0L && (n == 0 || t > 0.0L)) {
      long double p = 1.0L;
      for (j = 0; j < n; j++)
        p *= t;
      sum += (k % 2 ? -binom : binom) * p;
    }
    binom = binom * (n + 1 - k) / (k + 1);
  }
  return sum / fact;
}

/* The largest gain of the B-spline prefilter of order n, reached at the
 * Nyquist frequency: 1 / sum_k beta^n(k) (-1)^k.  Rounding errors of the
 * prefilter are amplified by up to its square on an image (rows, then
 * columns), so float bounds are stated in units of gain^2 * 2^-24. */
static inline double
test_prefilter_nyquist_gain (int n)
{
  long double sum = 0.0L;
  int k;
  for (k = -n; k <= n; k++)
    sum += (k % 2 ? -1.0L : 1.0L) * test_bspline_explicit (n, k);
  return (double) (1.0L / sum);
}

/* The float path's error against the double path, of the signal range
 * (test-float-vs-double.c and test-fold.c measure it): g^2 2^-24, g the
 * prefilter's gain at Nyquist (test-identity.c), 7.6e-4 for order 11;
 * times, where the plan shrinks (`shrink`) and reduces by least squares
 * (core/resample/reduce.c), the gain of the chain b^n / b^(2n+1) on the
 * output grid, which amplifies rounding at the Nyquist frequency by up to
 * (pi / 2)^(n+1) (the two sampled B-splines' values there, 2 (2 /
 * pi)^(n+1) and 2 (2 / pi)^(2n+2)): 6.1 at order 3, 9.5 at order 4.
 * Orders <= 3: at least 2e-6; orders 4-11 on a real image: 1e-4.
 * Measured: noise 2.6e-6 at order 4 shrinking, against 1.4e-6 for g^2
 * 2^-24; 3:1 shrinks of the ascent photograph at order 3 up to 2.3e-6,
 * against 3.3e-6 for the bound. */
#define TEST_FLOAT_BOUND_LOW_ORDERS 2e-6
static inline double
test_float_bound (int order, int real, int shrink)
{
  double g = test_prefilter_nyquist_gain (order);
  double chain = g * g * ldexp (1.0, -24) * (shrink ? pow (TEST_PI / 2.0,
          order + 1) : 1.0);
  if (order <= 3)
    return fmax (TEST_FLOAT_BOUND_LOW_ORDERS, chain);
  return real ? 1e-4 : chain;
}

/* m (3x3 row-major) = rotate by angle about (cx, cy), scale, translate by
 * (tx, ty): the output -> input map of a stabilizer-like correction. */
static inline void
test_similarity_matrix (double *m, double angle, double scale, double tx,
    double ty, double cx, double cy)
{
  double c = cos (angle) * scale, s = sin (angle) * scale;

  m[0] = c;
  m[1] = -s;
  m[2] = cx - c * cx + s * cy + tx;
  m[3] = s;
  m[4] = c;
  m[5] = cy - s * cx - c * cy + ty;
  m[6] = 0.0;
  m[7] = 0.0;
  m[8] = 1.0;
}

#endif /* TEST_COMMON_H */
