/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-identity.c: sampling at the pixel centres returns the input.
 *
 * B-spline interpolation reproduces its samples: after the exact prefilter,
 * sum_k c_k beta^n(i - k) = f_i ([U99] eq. 4).  This holds only if the
 * poles, the gain, the boundary initialisations and the truncation indices
 * are all right, so this is also the test that proves the poles.  Checked
 * for every order 0-11, every boundary, float and double, images of 1 to 64
 * pixels a side (square and not), 1-4 channels, strides wider than a row:
 *  - through plans: the identity (separable path), a horizontal flip
 *    (separable, negative scale) and a rotation by 90 degrees (general
 *    path), each of which sends output pixel centres onto input centres;
 *  - through bspline_cpu_sample_points at the centres;
 *  - U8 and U16 images must come back bit-exact.
 * Separately, each tabulated pole z must be a root of the Laurent
 * polynomial sum_k beta^n(k) z^k, with beta^n(k) from the explicit formula
 * in long double: the Newton correction Q(z) / Q'(z) of the polynomial
 * Q(z) = z^m sum_k beta^n(k) z^k must be below 2.5 ulp of z.
 */
#include "test-common.h"

/* Bounds, relative to the signal scale (the range of the samples and of
 * the fill value), per order.  Rounding errors of the prefilter grow with
 * g^2, g its gain at Nyquist (test_prefilter_nyquist_gain: 3 for order 3,
 * 113 for order 11), so the bounds do too:
 *  - the double path (double precision, F64 output): 1e-12, or 2 g^2 2^-53
 *    where that is larger (order 10: 1.1e-12, order 11: 2.8e-12), so that
 *    a rare seed cannot fail a correct engine; measured, every order stays
 *    under issue 2's 1e-12 (order 11: worst 7.6e-13 in 27 runs)
 *    for order 11, 3.0e-13 for order 10, 1.3e-15 for order 3;
 *  - everything that stores or computes in float: (4 g^2 + 4) 2^-24
 *    (2.4e-6 for order 3, 3.0e-3 for order 11); worst of 15 runs about
 *    2 g^2 2^-24 for order 2, 0.4 g^2 2^-24 for order 11. */
#define DOUBLE_BOUND 1e-12
#define DOUBLE_ULPS 2.0
#define FLOAT_ULPS 4.0
#define POLE_BOUND 2.5e-16

static double double_bound[BSPLINE_MAX_ORDER + 1];
static double float_bound[BSPLINE_MAX_ORDER + 1];

enum
{
  MAP_IDENTITY,
  MAP_FLIP,
  MAP_ROTATE_90
};

static double err_double[BSPLINE_MAX_ORDER + 1];
static double err_float[BSPLINE_MAX_ORDER + 1];
static double err_points_double[BSPLINE_MAX_ORDER + 1];
static double err_points_float[BSPLINE_MAX_ORDER + 1];
static long n_runs, n_integer_runs;

/* ---- poles ---- */

static double
check_poles (void)
{
  double worst = 0.0;
  int n;

  for (n = 0; n <= BSPLINE_MAX_ORDER; n++) {
    int np = bspline_n_poles (n), m = n / 2, i, j;
    long double b[2 * BSPLINE_MAX_POLES + 1];

    TEST_CHECK (np == n / 2, "order %d: %d poles, expected %d", n, np, n / 2);
    TEST_CHECK (bspline_pole (n, np) == 0.0,
        "order %d: pole %d exists beyond the %d poles", n, np, np);
    /* Q(z) = sum_{j=0}^{2m} beta^n(j - m) z^j: the poles of the prefilter
     * are its m roots inside the unit circle (the others are 1/z). */
    for (j = 0; j <= 2 * m; j++)
      b[j] = test_bspline_explicit (n, (long double) (j - m));
    for (i = 0; i < np; i++) {
      long double z = bspline_pole (n, i), q = 0.0L, dq = 0.0L, step;
      for (j = 2 * m; j >= 0; j--) {
        dq = dq * z + q;
        q = q * z + b[j];
      }
      step = fabsl (q / dq / z);
      worst = fmax (worst, (double) step);
      TEST_CHECK (z > -1.0L && z < 0.0L, "order %d pole %d = %.17g is not "
          "in (-1, 0)", n, i, (double) z);
      TEST_CHECK (step < POLE_BOUND, "order %d pole %d = %.17g: Newton "
          "step %.3g relative, more than %.3g", n, i, (double) z,
          (double) step, POLE_BOUND);
      if (i > 0)
        TEST_CHECK (bspline_pole (n, i - 1) < z - 1e-3 * fabsl (z),
            "order %d: poles %d and %d are not distinct and increasing",
            n, i - 1, i);
    }
  }
  return worst;
}

/* ---- images ---- */

static void
expected_source (int map, int i, int j, const bspline_image * src, int *x,
    int *y)
{
  switch (map) {
    case MAP_FLIP:
      *x = src->width - 1 - i;
      *y = j;
      break;
    case MAP_ROTATE_90:
      *x = j;
      *y = src->height - 1 - i;
      break;
    default:
      *x = i;
      *y = j;
      break;
  }
}

static void
map_matrix (int map, const bspline_image * src, double m[9], int *dst_w,
    int *dst_h)
{
  bspline_matrix_identity (m);
  *dst_w = src->width;
  *dst_h = src->height;
  if (map == MAP_FLIP) {
    m[0] = -1.0;
    m[2] = src->width;
  } else if (map == MAP_ROTATE_90) {
    /* x_in = v, y_in = src_h - u */
    m[0] = 0.0;
    m[1] = 1.0;
    m[3] = -1.0;
    m[4] = 0.0;
    m[5] = src->height;
    *dst_w = src->height;
    *dst_h = src->width;
  }
}

/* Largest |dst - expected| over the frame, in code values. */
static double
compare_mapped (int map, const bspline_image * src, const bspline_image * dst)
{
  double worst = 0.0;
  int i, j, c, x, y;
  for (j = 0; j < dst->height; j++)
    for (i = 0; i < dst->width; i++) {
      expected_source (map, i, j, src, &x, &y);
      for (c = 0; c < src->channels; c++) {
        double d = fabs (test_image_get (dst, i, j, c)
            - test_image_get (src, x, y, c));
        if (!(d <= worst))
          worst = isnan (d) ? INFINITY : d;
      }
    }
  return worst;
}

static void
run_plan (bspline_cpu * cpu, const bspline_params * params, int map,
    const bspline_image * src, bspline_sample_type dst_type, double scale,
    int order, const char *what)
{
  bspline_plan *plan = NULL;
  bspline_image dst;
  double m[9], err, bound;
  int dst_w, dst_h, exact_double;
  char msg[256] = "";
  bspline_status st;

  map_matrix (map, src, m, &dst_w, &dst_h);
  st = bspline_plan_new (params, m, src->width, src->height, dst_w, dst_h,
      src->channels, &plan, msg, sizeof (msg));
  TEST_CHECK (st == BSPLINE_OK, "%s: plan_new failed: %d %s", what, st, msg);
  if (st != BSPLINE_OK)
    return;
  if (map == MAP_ROTATE_90 && src->width > 1 && src->height > 1)
    TEST_CHECK (!bspline_plan_is_separable (plan),
        "%s: a 90 degree rotation took the separable path", what);
  if (map != MAP_ROTATE_90)
    TEST_CHECK (bspline_plan_is_separable (plan),
        "%s: an axis-aligned map did not take the separable path", what);

  test_image_alloc (&dst, dst_w, dst_h, src->channels, dst_type, 3);
  if (dst_type == BSPLINE_SAMPLE_U16 && src->type == BSPLINE_SAMPLE_U16) {
    dst.bits = src->bits;
    dst.shift = src->shift;
  }
  st = bspline_cpu_execute (cpu, plan, src, &dst);
  TEST_CHECK (st == BSPLINE_OK, "%s: execute failed: %d %s", what, st,
      bspline_cpu_last_error (cpu));
  if (st == BSPLINE_OK) {
    err = compare_mapped (map, src, &dst);
    n_runs++;
    if (src->type <= BSPLINE_SAMPLE_U16) {
      n_integer_runs++;
      TEST_CHECK (err == 0.0, "%s: integer identity not exact: %g code "
          "values", what, err);
    } else {
      exact_double = params->precision == BSPLINE_PRECISION_DOUBLE
          && dst_type == BSPLINE_SAMPLE_F64;
      err /= scale;
      bound = exact_double ? double_bound[order] : float_bound[order];
      if (exact_double)
        err_double[order] = fmax (err_double[order], err);
      else
        err_float[order] = fmax (err_float[order], err);
      TEST_CHECK (err <= bound, "%s: error %.3g of the signal scale, bound "
          "%.3g", what, err, bound);
    }
  }
  test_image_free (&dst);
  bspline_plan_free (plan);
}

static void
run_points (bspline_cpu * cpu, const bspline_params * params,
    const bspline_image * src, double scale, int order, const char *what)
{
  size_t n = (size_t) src->width * src->height, k;
  double *xy = malloc (2 * n * sizeof (double));
  double *out = malloc (n * src->channels * sizeof (double));
  double err = 0.0, bound;
  int i, j, c, exact_double;
  bspline_status st;

  for (j = 0; j < src->height; j++)
    for (i = 0; i < src->width; i++) {
      k = (size_t) j * src->width + i;
      xy[2 * k] = i + 0.5;
      xy[2 * k + 1] = j + 0.5;
    }
  st = bspline_cpu_sample_points (cpu, params, src, xy, n, out);
  TEST_CHECK (st == BSPLINE_OK, "%s: sample_points failed: %d %s", what, st,
      bspline_cpu_last_error (cpu));
  if (st == BSPLINE_OK) {
    for (j = 0; j < src->height; j++)
      for (i = 0; i < src->width; i++)
        for (c = 0; c < src->channels; c++) {
          k = (size_t) j * src->width + i;
          double d = fabs (out[k * src->channels + c]
              - test_image_get (src, i, j, c)) / scale;
          if (!(d <= err))
            err = isnan (d) ? INFINITY : d;
        }
    exact_double = params->precision == BSPLINE_PRECISION_DOUBLE;
    bound = exact_double ? double_bound[order] : float_bound[order];
    if (exact_double)
      err_points_double[order] = fmax (err_points_double[order], err);
    else
      err_points_float[order] = fmax (err_points_float[order], err);
    TEST_CHECK (err <= bound, "%s: sample_points error %.3g of the signal "
        "scale, bound %.3g", what, err, bound);
  }
  free (xy);
  free (out);
}

int
main (void)
{
  static const int sizes[][2] = {
    {1, 1}, {2, 1}, {1, 2}, {3, 3}, {5, 2}, {2, 5}, {17, 3}, {3, 17},
    {5, 17}, {1, 64}, {64, 1}, {64, 17}, {17, 64}, {64, 64}
  };
  static const bspline_precision precisions[] = {
    BSPLINE_PRECISION_DOUBLE, BSPLINE_PRECISION_FLOAT,
    BSPLINE_PRECISION_FAST
  };
  test_rng rng;
  bspline_cpu *cpu;
  double pole_step, worst_double = 0.0, worst_float = 0.0;
  size_t s;
  int ch, order, boundary, p, map;

  test_begin ("test-identity", &rng);
  for (order = 0; order <= BSPLINE_MAX_ORDER; order++) {
    double g = test_prefilter_nyquist_gain (order);
    double_bound[order] = fmax (DOUBLE_BOUND, DOUBLE_ULPS * g * g
        * ldexp (1.0, -53));
    float_bound[order] = (FLOAT_ULPS * g * g + 4.0) * ldexp (1.0, -24);
  }
  pole_step = check_poles ();
  printf ("poles: largest Newton step |Q(z)/Q'(z)/z| = %.3g (bound %.3g)\n",
      pole_step, POLE_BOUND);

  cpu = bspline_cpu_new (0);
  TEST_CHECK (cpu != NULL, "bspline_cpu_new (0) failed");
  if (!cpu)
    return test_end ("no engine");

  for (s = 0; s < sizeof (sizes) / sizeof (sizes[0]); s++)
    for (ch = 1; ch <= BSPLINE_MAX_CHANNELS; ch++)
      for (order = 0; order <= BSPLINE_MAX_ORDER; order++)
        for (boundary = 0; boundary < 5; boundary++) {
          int w = sizes[s][0], h = sizes[s][1];
          bspline_image f64, f32, u8, u16;
          double range[2], range32[2], scale, scale32, offset, dummy[2];
          bspline_params params;
          char what[200];

          bspline_params_init (&params);
          params.method = BSPLINE_METHOD_BSPLINE;
          params.order = order;
          params.boundary = boundary;
          params.antialias = test_rng_int (&rng, 0, 1);
          for (p = 0; p < BSPLINE_MAX_CHANNELS; p++)
            params.fill[p] = test_rng_range (&rng, -3.0, 3.0);

          offset = test_rng_range (&rng, -2.0, 2.0);
          test_image_alloc (&f64, w, h, ch, BSPLINE_SAMPLE_F64,
              test_rng_int (&rng, 0, 5));
          test_image_fill_random (&f64, &rng, offset - 1.0, offset + 1.0,
              range);
          test_image_alloc (&f32, w, h, ch, BSPLINE_SAMPLE_F32,
              test_rng_int (&rng, 0, 5));
          test_image_fill_random (&f32, &rng, offset - 1.0, offset + 1.0,
              range32);
          /* the constant extension is part of the signal */
          if (boundary == BSPLINE_BOUNDARY_CONSTANT)
            for (p = 0; p < ch; p++) {
              range[0] = fmin (range[0], params.fill[p]);
              range[1] = fmax (range[1], params.fill[p]);
              range32[0] = fmin (range32[0], params.fill[p]);
              range32[1] = fmax (range32[1], params.fill[p]);
            }
          scale = test_signal_scale (range);
          scale32 = test_signal_scale (range32);
          test_image_alloc (&u8, w, h, ch, BSPLINE_SAMPLE_U8,
              test_rng_int (&rng, 0, 5));
          test_image_fill_random (&u8, &rng, 0, 0, dummy);
          test_image_alloc (&u16, w, h, ch, BSPLINE_SAMPLE_U16,
              test_rng_int (&rng, 0, 5));
          u16.bits = 10;
          u16.shift = 6;
          test_image_fill_random (&u16, &rng, 0, 0, dummy);

          for (p = 0; p < 3; p++) {
            params.precision = precisions[p];
            for (map = MAP_IDENTITY; map <= MAP_ROTATE_90; map++) {
              snprintf (what, sizeof (what), "%dx%d ch %d order %d %s %s "
                  "map %d antialias %d", w, h, ch, order,
                  test_boundary_name (boundary),
                  test_precision_name (params.precision), map,
                  params.antialias);
              run_plan (cpu, &params, map, &f64, BSPLINE_SAMPLE_F64, scale,
                  order, what);
              if (map != MAP_IDENTITY)
                continue;
              run_plan (cpu, &params, map, &f64, BSPLINE_SAMPLE_F32, scale,
                  order, what);
              run_plan (cpu, &params, map, &f32, BSPLINE_SAMPLE_F32,
                  scale32, order, what);
              run_plan (cpu, &params, map, &f32, BSPLINE_SAMPLE_F64,
                  scale32, order, what);
              if (p < 2) {
                run_plan (cpu, &params, map, &u8, BSPLINE_SAMPLE_U8, 1.0,
                    order, what);
                run_plan (cpu, &params, map, &u16, BSPLINE_SAMPLE_U16, 1.0,
                    order, what);
                run_points (cpu, &params, &f64, scale, order, what);
              }
            }
          }
          test_image_free (&f64);
          test_image_free (&f32);
          test_image_free (&u8);
          test_image_free (&u16);
        }

  printf ("max error / signal scale\n");
  printf ("order  plan double  points double  bound    plan float  "
      "points float  bound\n");
  for (order = 0; order <= BSPLINE_MAX_ORDER; order++) {
    printf ("%5d  %11.3g  %13.3g  %7.2g  %10.3g  %12.3g  %7.2g\n", order,
        err_double[order], err_points_double[order], double_bound[order],
        err_float[order], err_points_float[order], float_bound[order]);
    worst_double = fmax (worst_double, fmax (err_double[order],
            err_points_double[order]));
    worst_float = fmax (worst_float, fmax (err_float[order],
            err_points_float[order]));
  }
  bspline_cpu_free (cpu);
  return test_end ("%ld runs at pixel centres, orders 0-11 x 5 boundaries, "
      "max error of the signal scale: double %.3g (order 3: %.3g, bound "
      "%.2g; order 11: %.3g, bound %.2g), float %.3g (order 3: %.3g, bound "
      "%.2g; order 11: %.3g, bound %.2g); %ld integer runs exact; pole "
      "Newton step %.3g", n_runs, worst_double,
      fmax (err_double[3], err_points_double[3]), double_bound[3],
      fmax (err_double[11], err_points_double[11]), double_bound[11],
      worst_float, fmax (err_float[3], err_points_float[3]), float_bound[3],
      fmax (err_float[11], err_points_float[11]), float_bound[11],
      n_integer_runs, pole_step);
}
