/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-float-vs-double.c: the float path against the double path.
 *
 * The same plan (rotation + zoom about the centre, antialias least-squares,
 * so that shrinking plans reduce by least squares) runs with precision double and with
 * precision float (and fast, which is float on the CPU) on the same F64
 * source into F64 outputs; the difference is the float path's error.
 * Sources: random images (white noise, the worst case for the prefilter's
 * conditioning) with 1-4 channels, and the real ascent image
 * (make-test-images.py), for every order and every boundary.  Bounds, of
 * the signal range: order <= 3: 2e-6; orders 4-11: 1e-4 on the real image
 * and g^2 2^-24 on noise (g the prefilter's gain at Nyquist, see
 * test-identity.c), which is 7.6e-4 for order 11, times the least-squares
 * chain's gain where the plan shrinks (bound_for).  Worst of 15 runs:
 * order 3 4.1e-7 (noise and ascent), order 11 1.0e-4 (noise), 2.3e-5
 * (ascent).  Also bspline_cubic_weights_f, the GPU's closed form of the
 * order-3 weights, against the recursion in double (bound 2.5e-7).
 */
#include "test-common.h"

static double err_noise[BSPLINE_MAX_ORDER + 1];
static double err_real[BSPLINE_MAX_ORDER + 1];

/* Runs the plan of m at both precisions; returns the largest difference
 * over the frame in units of scale. */
static double
float_error (bspline_cpu * cpu, bspline_params * params, const double m[9],
    const bspline_image * src, int dst_w, int dst_h, bspline_precision fp,
    double scale, const char *what)
{
  bspline_image out[2];
  bspline_precision precisions[2] = { BSPLINE_PRECISION_DOUBLE, fp };
  double worst = 0.0;
  int k, i, j, c, ok = 1;

  for (k = 0; k < 2; k++) {
    bspline_plan *plan = NULL;
    char msg[256] = "";
    bspline_status st;
    params->precision = precisions[k];
    test_image_alloc (&out[k], dst_w, dst_h, src->channels,
        BSPLINE_SAMPLE_F64, 0);
    st = bspline_plan_new (params, m, src->width, src->height, dst_w, dst_h,
        src->channels, &plan, msg, sizeof (msg));
    TEST_CHECK (st == BSPLINE_OK, "%s: plan_new: %d %s", what, st, msg);
    if (st == BSPLINE_OK) {
      st = bspline_cpu_execute (cpu, plan, src, &out[k]);
      TEST_CHECK (st == BSPLINE_OK, "%s: execute: %d %s", what, st,
          bspline_cpu_last_error (cpu));
    }
    ok = ok && st == BSPLINE_OK;
    bspline_plan_free (plan);
  }
  if (ok)
    for (j = 0; j < dst_h; j++)
      for (i = 0; i < dst_w; i++)
        for (c = 0; c < src->channels; c++) {
          double d = fabs (test_image_get (&out[0], i, j, c)
              - test_image_get (&out[1], i, j, c)) / scale;
          if (!(d <= worst))
            worst = isnan (d) ? INFINITY : d;
        }
  test_image_free (&out[0]);
  test_image_free (&out[1]);
  return worst;
}

static void
run (bspline_cpu * cpu, test_rng * rng, const bspline_image * src,
    const double range[2], int order, int boundary, int real, const char *name)
{
  double scale = test_signal_scale (range);
  bspline_params params;
  double m[9], angle = test_rng_range (rng, -TEST_PI, TEST_PI);
  double zoom = test_rng_range (rng, 0.6, 1.7), err, bound;
  int dst_w = (int) ceil (src->width * test_rng_range (rng, 0.5, 1.2));
  int dst_h = (int) ceil (src->height * test_rng_range (rng, 0.5, 1.2));
  bspline_precision fp = test_rng_int (rng, 0, 1) ?
      BSPLINE_PRECISION_FLOAT : BSPLINE_PRECISION_FAST;
  char what[256];
  int c;

  bspline_params_init (&params);
  params.order = order;
  params.boundary = boundary;
  params.antialias = BSPLINE_ANTIALIAS_LEAST_SQUARES;
  for (c = 0; c < BSPLINE_MAX_CHANNELS; c++)
    params.fill[c] = test_rng_range (rng, range[0], range[1]);
  /* rotation + zoom (general path); every fourth run an axis-aligned
   * scale + offset (separable path) */
  if (test_rng_int (rng, 0, 3) == 0)
    test_rotation_zoom (0.0, zoom, src->width, src->height, dst_w, dst_h, m);
  else
    test_rotation_zoom (angle, zoom, src->width, src->height, dst_w, dst_h, m);
  snprintf (what, sizeof (what), "%s %dx%d ch %d order %d %s, %s, angle "
      "%.6f zoom %.6f", name, src->width, src->height, src->channels, order,
      test_boundary_name (boundary), test_precision_name (fp),
      m[1] == 0.0 ? 0.0 : angle, zoom);
  err = float_error (cpu, &params, m, src, dst_w, dst_h, fp, scale, what);
  bound = test_float_bound (order, real, zoom < 1.0);
  if (real)
    err_real[order] = fmax (err_real[order], err);
  else
    err_noise[order] = fmax (err_noise[order], err);
  TEST_CHECK (err <= bound, "%s: float differs from double by %.3g of the "
      "signal range, bound %.3g", what, err, bound);
}

/* bspline_cubic_weights_f (the GPU's closed form for order 3) against
 * the recursion in double: t = 0, 1 - 2^-24, and random t in [0, 1).
 * Returns the largest difference. */
#define BOUND_CUBIC_WEIGHTS 2.5e-7
static double
check_cubic_weights (test_rng * rng)
{
  double worst = 0.0;
  int n, j;

  for (n = 0; n < 100000; n++) {
    float t = n == 0 ? 0.0f : n == 1 ? 1.0f - 0x1p-24f :
        (float) test_rng_range (rng, 0.0, 1.0);
    float wf[4];
    double wd[4], err = 0.0;
    if (t >= 1.0f)
      t = 1.0f - 0x1p-24f;
    bspline_cubic_weights_f (t, wf);
    bspline_weights_d (3, (double) t, wd);
    for (j = 0; j < 4; j++)
      err = fmax (err, fabs ((double) wf[j] - wd[j]));
    worst = fmax (worst, err);
    if (err > BOUND_CUBIC_WEIGHTS) {
      TEST_CHECK (0, "cubic weights at t = %.9g differ from the recursion "
          "by %.3g (bound %.2g)", (double) t, err, BOUND_CUBIC_WEIGHTS);
      break;
    }
  }
  return worst;
}

int
main (int argc, char **argv)
{
  test_rng rng;
  bspline_cpu *cpu;
  bspline_image ascent, crop;
  int order, boundary, trial, have_ascent;
  double worst_low = 0.0, worst_real = 0.0, range_8bit[2] = { 0.0, 255.0 };

  test_begin ("test-float-vs-double", &rng);
  if (argc < 2) {
    printf ("usage: %s ascent.pgm\n", argv[0]);
    return 2;
  }
  have_ascent = test_read_pgm (argv[1], &ascent);
  TEST_CHECK (have_ascent, "cannot read the real image %s", argv[1]);
  cpu = bspline_cpu_new (0);
  TEST_CHECK (cpu != NULL, "bspline_cpu_new (0) failed");
  if (!cpu || !have_ascent)
    return test_end ("no engine or no image");
  printf ("closed-form cubic weights (float) against the recursion "
      "(double): max %.3g (bound %.2g)\n", check_cubic_weights (&rng),
      BOUND_CUBIC_WEIGHTS);

  for (order = 0; order <= BSPLINE_MAX_ORDER; order++)
    for (boundary = 0; boundary < 5; boundary++) {
      for (trial = 0; trial < 2; trial++) {
        bspline_image src;
        double range[2], offset = test_rng_range (&rng, -1.0, 1.0);
        test_image_alloc (&src, test_rng_int (&rng, 8, 96),
            test_rng_int (&rng, 8, 96), test_rng_int (&rng, 1, 4),
            BSPLINE_SAMPLE_F64, test_rng_int (&rng, 0, 4));
        test_image_fill_random (&src, &rng, offset - 1.0, offset + 1.0, range);
        run (cpu, &rng, &src, range, order, boundary, 0, "noise");
        test_image_free (&src);
      }
      /* the real image, whole or a random crop (a view into it: the
       * stride is the full image's) */
      crop = ascent;
      if (test_rng_int (&rng, 0, 1)) {
        int x0 = test_rng_int (&rng, 0, ascent.width - 64);
        int y0 = test_rng_int (&rng, 0, ascent.height - 64);
        crop.width = test_rng_int (&rng, 16, ascent.width - x0);
        crop.height = test_rng_int (&rng, 16, ascent.height - y0);
        crop.data = (char *) ascent.data + y0 * ascent.stride
            + x0 * sizeof (double);
      }
      run (cpu, &rng, &crop, range_8bit, order, boundary, 1, "ascent");
    }

  printf ("max |float - double| / signal range\n");
  printf ("order        noise  bound(noise)      ascent  bound(ascent)\n");
  for (order = 0; order <= BSPLINE_MAX_ORDER; order++) {
    printf ("%5d  %11.3g  %12.3g  %10.3g  %13.3g\n", order, err_noise[order],
        test_float_bound (order, 0, 0), err_real[order], test_float_bound (order, 1, 0));
    if (order <= 3)
      worst_low = fmax (worst_low, fmax (err_noise[order], err_real[order]));
    worst_real = fmax (worst_real, err_real[order]);
  }
  test_image_free (&ascent);
  bspline_cpu_free (cpu);
  return test_end ("float vs double through rotation/zoom plans, orders "
      "0-11 x 5 boundaries: orders 0-3 max %.3g (bound %.0e); order 3 "
      "noise %.3g, ascent %.3g; order 11 noise %.3g (bound %.2g), ascent "
      "%.3g (bound %.0e); worst ascent %.3g", worst_low, TEST_FLOAT_BOUND_LOW_ORDERS,
      err_noise[3], err_real[3], err_noise[11], test_float_bound (11, 0, 0),
      err_real[11], test_float_bound (11, 1, 0), worst_real);
}
