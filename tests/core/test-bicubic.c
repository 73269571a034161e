/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-bicubic.c: method = bicubic against Keys' formula written here.
 *
 * Keys' cubic convolution kernel ([K81] eq. 15) with parameter a:
 *   K(s) = (a + 2)|s|^3 - (a + 3)|s|^2 + 1        for |s| <= 1
 *        = a|s|^3 - 5a|s|^2 + 8a|s| - 4a          for 1 < |s| < 2
 *        = 0                                      otherwise
 * and the interpolated value at sample coordinate (x, y) is
 *   sum_{k, l} f_ext(k, l) K(x - k) K(y - l)
 * over the 4 x 4 samples around it, with f_ext the boundary extension (no
 * prefilter).  Checked for a = -0.5 (Catmull-Rom), a = -0.75 and a random
 * a in [-1, 0], every boundary, 1-4 channels, with
 * bspline_cpu_sample_points (random points inside, near and far outside,
 * pixel centres) and with plans (separable scale + offset, general
 * rotation + zoom; antialias off), at double precision (bound 1e-13 of the
 * signal range) and float precision (bound 1e-6; the factored form of
 * the kernel in bspline-math.h measures 3.2e-7, the expanded polynomial
 * 2.9e-6).
 */
#include "test-common.h"

#define BOUND_DOUBLE 1e-13
#define BOUND_FLOAT 1e-6
#define NEAR 8

static double err_double[5], err_float[5];
static long n_checked;

static long double
keys (long double a, long double s)
{
  s = fabsl (s);
  if (s <= 1.0L)
    return (a + 2.0L) * s * s * s - (a + 3.0L) * s * s + 1.0L;
  if (s < 2.0L)
    return a * s * s * s - 5.0L * a * s * s + 8.0L * a * s - 4.0L * a;
  return 0.0L;
}

static long double
keys_value (const bspline_image * src, const bspline_params * params,
    double px, double py, int c)
{
  /* Beyond 3 samples outside the frame every tap of clamp and constant
   * reads the same extension values. */
  long double x = test_fold_far ((long double) px - 0.5L, src->width,
      params->boundary, NEAR + 2, 3.5L);
  long double y = test_fold_far ((long double) py - 0.5L, src->height,
      params->boundary, NEAR + 2, 3.5L);
  int kx = (int) floorl (x) - 1, ky = (int) floorl (y) - 1, i, j;
  long double sum = 0.0L;

  for (j = 0; j < 4; j++) {
    int sy = test_extend_index (ky + j, src->height, params->boundary);
    long double row = 0.0L;
    for (i = 0; i < 4; i++) {
      int sx = test_extend_index (kx + i, src->width, params->boundary);
      long double v = (sx < 0 || sy < 0) ? (long double) params->fill[c] :
          (long double) test_image_get (src, sx, sy, c);
      row += v * keys (params->bicubic_a, x - (kx + i));
    }
    sum += row * keys (params->bicubic_a, y - (ky + j));
  }
  return sum;
}

static void
record (const bspline_params * params, double err, const char *what,
    double x, double y, int c, double got, long double want)
{
  int dbl = params->precision == BSPLINE_PRECISION_DOUBLE;
  double bound = dbl ? BOUND_DOUBLE : BOUND_FLOAT;
  double *slot = dbl ? &err_double[params->boundary] :
      &err_float[params->boundary];
  if (isnan (err))
    err = INFINITY;
  *slot = fmax (*slot, err);
  n_checked++;
  TEST_CHECK (err <= bound, "%s a = %.17g %s %s: at (%.17g, %.17g) ch %d "
      "got %.17g, Keys %.17Lg: error %.3g of the signal range (bound %.0e)",
      what, params->bicubic_a, test_boundary_name (params->boundary),
      test_precision_name (params->precision), x, y, c, got, want, err,
      bound);
}

static void
check_points (bspline_cpu * cpu, test_rng * rng,
    const bspline_params * params, const bspline_image * src, double scale)
{
  int n = 300, i, c, w = src->width, h = src->height;
  double *xy = malloc (2 * n * sizeof (double));
  double *out = malloc ((size_t) n * src->channels * sizeof (double));
  bspline_status st;

  for (i = 0; i < n; i++) {
    double *p = xy + 2 * i;
    switch (test_rng_int (rng, 0, 5)) {
      case 0:                  /* pixel centres and pixel corners */
        p[0] = test_rng_int (rng, -2, 2 * w + 2) * 0.5;
        p[1] = test_rng_int (rng, -2, 2 * h + 2) * 0.5;
        break;
      case 1:                  /* far away */
        p[0] = test_rng_range (rng, -1e6, 1e6);
        p[1] = test_rng_range (rng, -1e6, 1e6);
        break;
      case 2:                  /* near the frame */
        p[0] = test_rng_range (rng, -NEAR, w + NEAR);
        p[1] = test_rng_range (rng, -NEAR, h + NEAR);
        break;
      default:
        p[0] = test_rng_range (rng, 0, w);
        p[1] = test_rng_range (rng, 0, h);
        break;
    }
  }
  st = bspline_cpu_sample_points (cpu, params, src, xy, n, out);
  TEST_CHECK (st == BSPLINE_OK, "sample_points: %d %s", st,
      bspline_cpu_last_error (cpu));
  if (st == BSPLINE_OK)
    for (i = 0; i < n; i++)
      for (c = 0; c < src->channels; c++) {
        long double want = keys_value (src, params, xy[2 * i],
            xy[2 * i + 1], c);
        double got = out[i * src->channels + c];
        record (params, (double) fabsl (got - want) / scale, "points",
            xy[2 * i], xy[2 * i + 1], c, got, want);
      }
  free (xy);
  free (out);
}

static void
check_plan (bspline_cpu * cpu, test_rng * rng, const bspline_params * params,
    const bspline_image * src, double scale, int general)
{
  int dst_w = test_rng_int (rng, 1, 40), dst_h = test_rng_int (rng, 1, 40);
  double m[9];
  bspline_plan *plan = NULL;
  bspline_image dst;
  char msg[256] = "", what[64];
  bspline_status st;
  int i, j, c;

  if (general) {
    test_rotation_zoom (test_rng_range (rng, -TEST_PI, TEST_PI),
        test_rng_range (rng, 0.4, 3.0), src->width, src->height, dst_w,
        dst_h, m);
  } else {
    bspline_matrix_identity (m);
    m[0] = test_rng_range (rng, -3.0, 3.0);
    m[4] = test_rng_range (rng, 0.2, 3.0);
    m[2] = test_rng_range (rng, -5.0, src->width + 5.0);
    m[5] = test_rng_range (rng, -5.0, src->height + 5.0);
  }
  st = bspline_plan_new (params, m, src->width, src->height, dst_w, dst_h,
      src->channels, &plan, msg, sizeof (msg));
  TEST_CHECK (st == BSPLINE_OK, "plan_new: %d %s", st, msg);
  if (st != BSPLINE_OK)
    return;
  TEST_CHECK (bspline_plan_is_separable (plan) == !general,
      "separable = %d for a %s map", bspline_plan_is_separable (plan),
      general ? "rotated" : "axis-aligned");
  test_image_alloc (&dst, dst_w, dst_h, src->channels, BSPLINE_SAMPLE_F64,
      test_rng_int (rng, 0, 3));
  st = bspline_cpu_execute (cpu, plan, src, &dst);
  TEST_CHECK (st == BSPLINE_OK, "execute: %d %s", st,
      bspline_cpu_last_error (cpu));
  snprintf (what, sizeof (what), "%s plan %dx%d -> %dx%d",
      general ? "general" : "separable", src->width, src->height, dst_w,
      dst_h);
  if (st == BSPLINE_OK)
    for (j = 0; j < dst_h; j++)
      for (i = 0; i < dst_w; i++) {
        double x, y;
        test_map_centre (m, i, j, &x, &y);
        for (c = 0; c < src->channels; c++) {
          long double want = keys_value (src, params, x, y, c);
          double got = test_image_get (&dst, i, j, c);
          record (params, (double) fabsl (got - want) / scale, what, x, y, c,
              got, want);
        }
      }
  test_image_free (&dst);
  bspline_plan_free (plan);
}

int
main (void)
{
  test_rng rng;
  bspline_cpu *cpu;
  bspline_params defaults;
  int boundary, trial, c;
  double worst_double = 0.0, worst_float = 0.0;

  test_begin ("test-bicubic", &rng);
  bspline_params_init (&defaults);
  TEST_CHECK (defaults.bicubic_a == -0.5, "default a is %g, not -0.5",
      defaults.bicubic_a);
  cpu = bspline_cpu_new (0);
  TEST_CHECK (cpu != NULL, "bspline_cpu_new (0) failed");
  if (!cpu)
    return test_end ("no engine");

  for (boundary = 0; boundary < 5; boundary++)
    for (trial = 0; trial < 12; trial++) {
      bspline_params params;
      bspline_image src;
      double range[2], offset = test_rng_range (&rng, -1.0, 1.0);
      int w = test_rng_int (&rng, 1, trial < 4 ? 4 : 30);
      int h = test_rng_int (&rng, 1, trial < 4 ? 4 : 30);

      bspline_params_init (&params);
      params.method = BSPLINE_METHOD_BICUBIC;
      params.bicubic_a = trial % 3 == 0 ? -0.5 : trial % 3 == 1 ? -0.75 :
          test_rng_range (&rng, -1.0, 0.0);
      params.boundary = boundary;
      params.antialias = 0;
      params.precision = trial % 2 ? BSPLINE_PRECISION_FLOAT :
          BSPLINE_PRECISION_DOUBLE;
      test_image_alloc (&src, w, h, test_rng_int (&rng, 1, 4),
          BSPLINE_SAMPLE_F64, test_rng_int (&rng, 0, 3));
      test_image_fill_random (&src, &rng, offset - 1.0, offset + 1.0, range);
      for (c = 0; c < BSPLINE_MAX_CHANNELS; c++)
        params.fill[c] = test_rng_range (&rng, range[0], range[1]);
      check_points (cpu, &rng, &params, &src, test_signal_scale (range));
      check_plan (cpu, &rng, &params, &src, test_signal_scale (range), 0);
      check_plan (cpu, &rng, &params, &src, test_signal_scale (range), 1);
      test_image_free (&src);
    }

  printf ("max error / signal range   reflect    mirror      wrap     clamp"
      "  constant\n");
  printf ("double                   ");
  for (boundary = 0; boundary < 5; boundary++) {
    printf ("%10.2e", err_double[boundary]);
    worst_double = fmax (worst_double, err_double[boundary]);
  }
  printf ("\nfloat                    ");
  for (boundary = 0; boundary < 5; boundary++) {
    printf ("%10.2e", err_float[boundary]);
    worst_float = fmax (worst_float, err_float[boundary]);
  }
  printf ("\n");
  bspline_cpu_free (cpu);
  return test_end ("%ld values vs Keys' formula (a = -0.5, -0.75, random), "
      "5 boundaries, points + separable + general plans: max error double "
      "%.3g (bound %.0e), float %.3g (bound %.0e) of the signal range",
      n_checked, worst_double, BOUND_DOUBLE, worst_float, BOUND_FLOAT);
}
