/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-horizon.c: what a perspective map shows beyond its horizon
 * (issue 27).
 *
 * An inverse homography m takes the output pixel centre (u, v) to
 * (X, Y, W); where W <= 0 no input point is seen (the line of sight runs
 * backwards), and the pixel must get the fill value whatever the boundary
 * (projective arithmetic alone would show the picture again there, upside
 * down).  For random maps whose horizon crosses the output, and their
 * negatives (the same homography with the other side in front), at every
 * boundary, precision, antialias setting and a range of kernels:
 *  - every pixel with W <= 0 (W computed here as the engine does:
 *    bspline_map_point) holds exactly the fill value;
 *  - every pixel with W > 0 holds the interpolant at (X / W, Y / W), as
 *    bspline_cpu_sample_points gives it (antialias off; within 1e-9 in
 *    double, 1e-3 code values in float), or a finite value within the
 *    prefilter's bound (antialias on, where the footprint near the horizon
 *    widens the kernel);
 *  - maps with W < 0 everywhere (m[8] < 0, no perspective: the separable
 *    path's shape) fill the whole output.
 * A hash of the W > 0 outputs is printed: with BSPLINE_TEST_SEED it shows
 * that they are the same bits as before beyond-horizon filling.
 */
#include "test-common.h"

#define SRC_W 37
#define SRC_H 29
#define DST_W 48
#define DST_H 40
#define MAPS 12

static const int orders[] = { 0, 1, 3, 5, 11, -1 };     /* -1: bicubic */
static const double fills[BSPLINE_MAX_CHANNELS] = { 12.5, 200.25, 0.0, 77.0 };

static long n_beyond, n_front, n_compared;
static uint64_t front_hash = 1469598103934665603ull;

static void
hash_value (double v)
{
  uint64_t bits;
  int k;

  memcpy (&bits, &v, sizeof (bits));
  for (k = 0; k < 8; k++) {
    front_hash ^= (bits >> (8 * k)) & 0xff;
    front_hash *= 1099511628211ull;
  }
}

/* A random inverse map whose horizon (W = 0) crosses the output: the line
 * through a point of the middle of the output at a random angle, W growing
 * by 0.005 to 0.05 per pixel across it. */
static void
random_horizon_map (test_rng * rng, double m[9])
{
  double u0 = test_rng_range (rng, 0.25, 0.75) * DST_W;
  double v0 = test_rng_range (rng, 0.25, 0.75) * DST_H;
  double angle = test_rng_range (rng, 0.0, 2.0 * TEST_PI);
  double slope = test_rng_range (rng, 0.005, 0.05);

  m[0] = test_rng_range (rng, -1.0, 1.0);
  m[1] = test_rng_range (rng, -1.0, 1.0);
  m[2] = test_rng_range (rng, -20.0, 20.0);
  m[3] = test_rng_range (rng, -1.0, 1.0);
  m[4] = test_rng_range (rng, -1.0, 1.0);
  m[5] = test_rng_range (rng, -20.0, 20.0);
  m[6] = slope * cos (angle);
  m[7] = slope * sin (angle);
  m[8] = -(m[6] * u0 + m[7] * v0);
}

/* One plan of map m: every output pixel checked as the header says. */
static void
check_map (bspline_cpu * cpu, const bspline_image * src, const double m[9],
    int order, int boundary, int precision, int antialias, const char *name)
{
  const int C = src->channels;
  bspline_params p;
  bspline_plan *plan = NULL;
  bspline_image dst;
  double *xy, *ref, limit, g;
  int *pixel;
  size_t n_points = 0, k;
  char msg[256] = "", what[200];
  int i, j, c;

  bspline_params_init (&p);
  if (order < 0)
    p.method = BSPLINE_METHOD_BICUBIC;
  else
    p.order = order;
  p.boundary = boundary;
  p.precision = precision;
  p.antialias = antialias;
  memcpy (p.fill, fills, sizeof (p.fill));
  snprintf (what, sizeof (what), "%s, order %d, %s, %s, antialias %d", name,
      order, test_boundary_name (boundary), test_precision_name (precision),
      antialias);
  if (bspline_plan_new (&p, m, SRC_W, SRC_H, DST_W, DST_H, C, &plan, msg,
          sizeof (msg)) != BSPLINE_OK) {
    TEST_CHECK (0, "%s: plan_new: %s", what, msg);
    return;
  }
  test_image_alloc (&dst, DST_W, DST_H, C, BSPLINE_SAMPLE_F64, 0);
  TEST_CHECK (bspline_cpu_execute (cpu, plan, src, &dst) == BSPLINE_OK,
      "%s: execute: %s", what, bspline_cpu_last_error (cpu));
  pixel = malloc (sizeof (int) * DST_W * DST_H);
  xy = malloc (sizeof (double) * 2 * DST_W * DST_H);
  ref = malloc (sizeof (double) * C * DST_W * DST_H);
  if (!pixel || !xy || !ref) {
    printf ("out of memory\n");
    exit (99);
  }
  g = order < 0 ? 1.5 : test_prefilter_nyquist_gain (order);
  limit = 1.001 * g * g * 255.0 + 1.0;
  for (i = 0; i < DST_H; i++)
    for (j = 0; j < DST_W; j++) {
      const double u = j + 0.5, v = i + 0.5;
      const double X = m[0] * u + m[1] * v + m[2];
      const double Y = m[3] * u + m[4] * v + m[5];
      const double W = m[6] * u + m[7] * v + m[8];

      if (W <= 0.0) {
        n_beyond++;
        for (c = 0; c < C; c++)
          TEST_CHECK (test_image_get (&dst, j, i, c) == fills[c], "%s: "
              "pixel (%d, %d) beyond the horizon (W = %.3g), channel %d: "
              "%.17g, not the fill %g", what, j, i, W, c,
              test_image_get (&dst, j, i, c), fills[c]);
        continue;
      }
      n_front++;
      for (c = 0; c < C; c++) {
        double value = test_image_get (&dst, j, i, c);

        hash_value (value);
        TEST_CHECK (isfinite (value) && fabs (value) <= limit, "%s: pixel "
            "(%d, %d) (W = %.3g), channel %d: %.17g, outside +-%.3g", what,
            j, i, W, c, value, limit);
      }
      if (!antialias && isfinite (X / W) && isfinite (Y / W)) {
        pixel[n_points] = i * DST_W + j;
        xy[2 * n_points] = X / W;
        xy[2 * n_points + 1] = Y / W;
        n_points++;
      }
    }
  if (n_points > 0) {
    const double tolerance = precision == BSPLINE_PRECISION_DOUBLE ? 1e-9 :
        1e-3;

    TEST_CHECK (bspline_cpu_sample_points (cpu, &p, src, xy, n_points,
            ref) == BSPLINE_OK, "%s: sample_points: %s", what,
        bspline_cpu_last_error (cpu));
    for (k = 0; k < n_points; k++) {
      j = pixel[k] % DST_W;
      i = pixel[k] / DST_W;
      for (c = 0; c < C; c++) {
        double want = ref[k * C + c];
        double got = test_image_get (&dst, j, i, c);

        n_compared++;
        TEST_CHECK (fabs (got - want) <= tolerance * (1.0 + fabs (want)),
            "%s: pixel (%d, %d), channel %d: %.17g, the interpolant at "
            "(%.6g, %.6g) %.17g", what, j, i, c, got, xy[2 * k],
            xy[2 * k + 1], want);
      }
    }
  }
  free (pixel);
  free (xy);
  free (ref);
  test_image_free (&dst);
  bspline_plan_free (plan);
}

int
main (void)
{
  test_rng rng;
  bspline_cpu *cpu;
  bspline_image src;
  double range[2];
  int map, sign, b, prec, aa, k;

  test_begin ("test-horizon", &rng);
  cpu = bspline_cpu_new (0);
  TEST_CHECK (cpu != NULL, "bspline_cpu_new (0) failed");
  if (!cpu)
    return test_end ("no engine");
  for (map = 0; map < MAPS; map++) {
    double m[9];
    int order = orders[map % (int) (sizeof (orders) / sizeof (orders[0]))];
    int channels = test_rng_int (&rng, 1, 4);
    char name[64];

    random_horizon_map (&rng, m);
    test_image_alloc (&src, SRC_W, SRC_H, channels, BSPLINE_SAMPLE_U8, 0);
    test_image_fill_random (&src, &rng, 0.0, 255.0, range);
    for (sign = 0; sign < 2; sign++) {
      snprintf (name, sizeof (name), "map %d%s", map, sign ? " negated" : "");
      for (b = 0; b < 5; b++)
        for (prec = 0; prec < 3; prec++)
          for (aa = 0; aa <= 1; aa++)
            check_map (cpu, &src, m, order, b, prec, aa, name);
      for (k = 0; k < 9; k++)
        m[k] = -m[k];
    }
    test_image_free (&src);
  }

  /* no perspective, W = m[8] < 0 everywhere: all beyond the horizon */
  test_image_alloc (&src, SRC_W, SRC_H, 4, BSPLINE_SAMPLE_U8, 0);
  test_image_fill_random (&src, &rng, 0.0, 255.0, range);
  for (b = 0; b < 5; b++)
    for (prec = 0; prec < 3; prec++) {
      double m[9] = { -0.7, 0.0, 3.0, 0.0, -0.6, -2.0, 0.0, 0.0, -1.0 };
      check_map (cpu, &src, m, 3, b, prec, 1, "W = -1 everywhere");
    }
  test_image_free (&src);
  bspline_cpu_free (cpu);
  printf ("hash of the W > 0 outputs: %016llx\n",
      (unsigned long long) front_hash);
  return test_end ("%d maps across the horizon and their negatives, every "
      "boundary, precision and antialias: %ld pixels beyond exactly the "
      "fill, %ld in front finite and bounded, %ld samples equal to the "
      "interpolant", MAPS, n_beyond, n_front, n_compared);
}
