/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-antialias.c: antialiasing when the map shrinks.
 *
 * A vertical grating f(i, j) = C + A cos(2 pi nu i + phi) at nu = 0.4
 * cycles per input pixel (0.8 x the input Nyquist frequency) is shrunk by
 * 1/2 and 1/4, through the separable path (axis-aligned scale) and the
 * general path (rotation by a random angle + the same shrink).  The
 * grating is then above the output Nyquist frequency (0.25 or 0.125 cycles
 * per input pixel), so an ideal resampler outputs the constant C and every
 * deviation from it is aliasing.  Measured over the output pixels whose
 * kernel footprint lies inside the input frame (no boundary effects), as
 * the RMS of (output - its mean) / A:
 *  - antialias on: below the stated bound (2% for B-spline order 3);
 *  - antialias off: above 15% and 5x the "on" figure (the aliased grating
 *    comes through: linear interpolation halfway between samples keeps
 *    cos(0.4 pi) = 0.31 of it, RMS 0.22), so the test proves that the
 *    widening is what removes it;
 * and, with antialias on, a grating well inside the output band (at 20%
 * of the output Nyquist frequency) must keep its amplitude (gain by least
 * squares within [gain_min, 1.02]; the widened kernel of order n responds
 * with about sinc(0.1)^(n+1) there, so gain_min falls with the order) and
 * the fitted constant must stay C (within 0.5% of A): a filter that
 * blurred everything away would fail these.  When the map magnifies,
 * antialias on and off must give identical outputs.
 *
 * "On" is each of the two methods: least-squares (the default: on the
 * separable path the least-squares reduction of core/resample/reduce.c,
 * elsewhere the widened kernel) and widen.  The least-squares reduction's
 * output is the samples of the coarse spline, whose response to a grating
 * at nu cycles per output sample is H(nu) = B(nu) sum_k B(nu + k) / sum_k
 * B(nu + k)^2, B(nu) = sinc(nu)^(n+1) (the analysis, the Gram filter 1 /
 * b^(2n+1) and the sampling b^n): its passband gain must be that figure
 * (within 0.01; 1.033 at order 1, 1.0002 at order 3), not merely in
 * [gain_min, 1.02]; a rotated warp reduces along the output's axes, H(nu
 * cos a) H(nu sin a) (within 0.02).
 */
#include "test-common.h"

#define ALIAS_ON_BOUND_ORDER_3 0.02
#define ALIAS_OFF_FLOOR 0.15
#define ALIAS_OFF_RATIO 5.0
#define PASS_GAIN_MAX 1.02
#define MEAN_BOUND 0.005
#define SIDE 256

typedef struct
{
  double alias;                 /* RMS (out - mean) / A */
  double gain;                  /* fitted amplitude / A */
  double mean_error;            /* |fitted constant - C| / A */
  long n;
} grating_result;

/* Kernels measured, with their bound on aliasing when antialias is on
 * and the least passband gain. */
static const struct
{
  const char *name;
  int method, order;
  double alias_bound, gain_min;
} kernels[] = {
  {"bspline-1", BSPLINE_METHOD_BSPLINE, 1, 0.06, 0.9},
  {"bspline-3", BSPLINE_METHOD_BSPLINE, 3, ALIAS_ON_BOUND_ORDER_3, 0.9},
  {"bspline-5", BSPLINE_METHOD_BSPLINE, 5, 0.02, 0.87},
  {"bspline-11", BSPLINE_METHOD_BSPLINE, 11, 0.02, 0.78},
  {"bicubic", BSPLINE_METHOD_BICUBIC, 3, 0.04, 0.9},
};

#define N_KERNELS ((int) (sizeof (kernels) / sizeof (kernels[0])))

static void
fill_grating (const bspline_image * img, double nu, double phase, double c0,
    double amplitude)
{
  int i, j;
  for (j = 0; j < img->height; j++)
    for (i = 0; i < img->width; i++)
      test_image_set (img, i, j, 0, c0 + amplitude * cos (2.0 * TEST_PI * nu
              * i + phase));
}

static double
sinc (double x)
{
  return x == 0.0 ? 1.0 : sin (TEST_PI * x) / (TEST_PI * x);
}

/* H(nu) of the least-squares reduction of order n (see above). */
static double
ls_response (int n, double nu)
{
  double num = 0.0, den = 0.0, b0 = pow (sinc (nu), n + 1);
  int k;
  for (k = -60; k <= 60; k++) {
    double b = pow (sinc (nu + k), n + 1);
    num += b;
    den += b * b;
  }
  return b0 * num / den;
}

/* Solves the 3 x 3 system a x = b by Cramer's rule. */
static void
solve3 (const double a[3][3], const double b[3], double x[3])
{
  double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
      - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
      + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  int k, r;
  for (k = 0; k < 3; k++) {
    double m[3][3];
    memcpy (m, a, sizeof (m));
    for (r = 0; r < 3; r++)
      m[r][k] = b[r];
    x[k] = (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])) / det;
  }
}

static grating_result
run_grating (bspline_cpu * cpu, const bspline_params * params,
    const double m[9], int dst_w, int dst_h, double nu, double phase,
    double c0, double amplitude, double margin, bspline_image * keep)
{
  bspline_image src, dst;
  bspline_plan *plan = NULL;
  grating_result res = { 0.0, 0.0, 0.0, 0 };
  char msg[256] = "";
  bspline_status st;
  double sum = 0.0, sum2 = 0.0, ata[3][3] = { {0} }, atb[3] = { 0 }, x[3];
  int i, j, r, k;

  test_image_alloc (&src, SIDE, SIDE, 1, BSPLINE_SAMPLE_F64, 0);
  fill_grating (&src, nu, phase, c0, amplitude);
  test_image_alloc (&dst, dst_w, dst_h, 1, BSPLINE_SAMPLE_F64, 0);
  st = bspline_plan_new (params, m, SIDE, SIDE, dst_w, dst_h, 1, &plan, msg,
      sizeof (msg));
  TEST_CHECK (st == BSPLINE_OK, "plan_new: %d %s", st, msg);
  if (st == BSPLINE_OK) {
    st = bspline_cpu_execute (cpu, plan, &src, &dst);
    TEST_CHECK (st == BSPLINE_OK, "execute: %d %s", st,
        bspline_cpu_last_error (cpu));
  }
  if (st == BSPLINE_OK) {
    for (j = 0; j < dst_h; j++)
      for (i = 0; i < dst_w; i++) {
        double px, py, v = test_image_get (&dst, i, j, 0), basis[3];
        test_map_centre (m, i, j, &px, &py);
        if (px < margin || py < margin || px > SIDE - margin
            || py > SIDE - margin)
          continue;
        res.n++;
        sum += v;
        sum2 += v * v;
        /* least squares of v = x0 + x1 cos(theta) + x2 sin(theta), theta
         * the grating's phase at the input point */
        basis[0] = 1.0;
        basis[1] = cos (2.0 * TEST_PI * nu * (px - 0.5) + phase);
        basis[2] = sin (2.0 * TEST_PI * nu * (px - 0.5) + phase);
        for (r = 0; r < 3; r++) {
          for (k = 0; k < 3; k++)
            ata[r][k] += basis[r] * basis[k];
          atb[r] += basis[r] * v;
        }
      }
    if (res.n > 16) {
      double mean = sum / res.n;
      res.alias = sqrt (fmax (sum2 / res.n - mean * mean, 0.0)) / amplitude;
      solve3 (ata, atb, x);
      res.mean_error = fabs (x[0] - c0) / amplitude;
      res.gain = hypot (x[1], x[2]) / amplitude;
    }
  }
  bspline_plan_free (plan);
  test_image_free (&src);
  if (keep)
    *keep = dst;
  else
    test_image_free (&dst);
  return res;
}

static void
shrink_map (int general, double angle, double shrink, int *dst_w,
    int *dst_h, double m[9])
{
  *dst_w = *dst_h = (int) (SIDE * shrink);
  test_rotation_zoom (general ? angle : 0.0, shrink, SIDE, SIDE, *dst_w,
      *dst_h, m);
  if (!general) {
    /* exactly axis-aligned */
    m[1] = m[3] = 0.0;
  }
}

int
main (void)
{
  static const double shrinks[] = { 0.5, 0.25 };
  test_rng rng;
  bspline_cpu *cpu;
  int kern, general, s, aa, mode;
  double worst_on_3 = 0.0, least_off = INFINITY, worst_magnify = 0.0;
  double least_gain = INFINITY;

  test_begin ("test-antialias", &rng);
  cpu = bspline_cpu_new (0);
  TEST_CHECK (cpu != NULL, "bspline_cpu_new (0) failed");
  if (!cpu)
    return test_end ("no engine");

  printf ("grating at 0.4 cycles/pixel, RMS alias / A with antialias on | "
      "off; passband gain (at 0.1 x shrink cycles/pixel) with antialias "
      "on\n");
  printf ("%-6s %-11s %-9s %6s %9s %9s %9s %8s %8s\n", "mode", "kernel",
      "path", "shrink", "alias on", "bound", "alias off", "gain", "min");
  for (mode = BSPLINE_ANTIALIAS_LEAST_SQUARES; mode <= BSPLINE_ANTIALIAS_WIDEN;
      mode++)
    for (kern = 0; kern < N_KERNELS; kern++)
      for (general = 0; general <= 1; general++)
        for (s = 0; s < 2; s++) {
          const int least_squares = mode == BSPLINE_ANTIALIAS_LEAST_SQUARES
              && kernels[kern].method == BSPLINE_METHOD_BSPLINE;
          bspline_params params;
          grating_result on, off, pass;
          double alias_bound;
          double m[9], angle = test_rng_range (&rng, 0.2, 1.3);
          double phase = test_rng_range (&rng, 0.0, 2.0 * TEST_PI);
          double c0 = test_rng_range (&rng, -1.0, 1.0);
          double amplitude = test_rng_range (&rng, 0.5, 2.0);
          double widen = 1.0 / shrinks[s];
          double radius = bspline_kernel_radius (kernels[kern].method,
              kernels[kern].order);
          /* least squares: the Gram filter's slowest pole z rings at the
           * edges of the picture for about log (1e-2) / log |z| output
           * pixels (23 at order 11), which a rotation brings inside; at
           * most an eighth of the frame */
          double margin = 2.0 * radius * widen + 4.0 + (least_squares
              && kernels[kern].order >= 1 ? fmin (SIDE / 8.0,
                  widen * ceil (log (1e-2) / log (fabs (bspline_pole (2
                                  * kernels[kern].order + 1, 0))))) : 0.0);
          int dst_w, dst_h;
          char what[128];

          bspline_params_init (&params);
          params.method = kernels[kern].method;
          params.order = kernels[kern].order;
          params.precision = test_rng_int (&rng, 0, 1) ?
              BSPLINE_PRECISION_DOUBLE : BSPLINE_PRECISION_FLOAT;
          params.boundary = test_rng_int (&rng, 0, 4);
          shrink_map (general, angle, shrinks[s], &dst_w, &dst_h, m);
          snprintf (what, sizeof (what), "%s %s %s shrink %g angle %.4f %s %s",
              mode == BSPLINE_ANTIALIAS_WIDEN ? "widen" : "least-squares",
              kernels[kern].name, general ? "general" : "separable",
              shrinks[s], general ? angle : 0.0,
              test_precision_name (params.precision),
              test_boundary_name (params.boundary));

          /* The least-squares reduction (of a rotated warp: along the
           * output's axes, core/resample/reduce.c) passes the grating, at nu =
           * 0.4 / shrink cycles per output pixel, with the amplitude
           * H(nu |cos a|) H(nu |sin a|): 0.18 at 45 degrees and order 3
           * (both components in the transition band, 0.57 cycles), far
           * less along an axis.  Its RMS (that over sqrt 2) plus 20%, or
           * the widened kernel's bound where larger, plus 0.01 for the
           * first warp's interpolation and the Gram filter's ringing at
           * the edges (the margin above leaves out where it passes 1%), is
           * the bound; and antialias off must leave 2x as much at least. */
          alias_bound = kernels[kern].alias_bound;
          if (least_squares) {
            const double a = general ? angle : 0.0, nu = 0.4 / shrinks[s];
            alias_bound = fmax (kernels[kern].alias_bound, 1.2
                * ls_response (kernels[kern].order, nu * fabs (cos (a)))
                * ls_response (kernels[kern].order, nu * fabs (sin (a)))
                / sqrt (2.0)) + 0.01;
          }
          params.antialias = mode;
          on = run_grating (cpu, &params, m, dst_w, dst_h, 0.4, phase, c0,
              amplitude, margin, NULL);
          pass = run_grating (cpu, &params, m, dst_w, dst_h, 0.1 * shrinks[s],
              phase, c0, amplitude, margin, NULL);
          params.antialias = BSPLINE_ANTIALIAS_NONE;
          off = run_grating (cpu, &params, m, dst_w, dst_h, 0.4, phase, c0,
              amplitude, margin, NULL);
          printf ("%-6s %-11s %-9s %6g %9.4f %9.3f %9.4f %8.4f %8.2f\n",
              mode == BSPLINE_ANTIALIAS_WIDEN ? "widen" : "lsq",
              kernels[kern].name, general ? "general" : "separable",
              shrinks[s], on.alias, alias_bound, off.alias,
              pass.gain, kernels[kern].gain_min);

          TEST_CHECK (on.n > 100 && off.n > 100 && pass.n > 100,
              "%s: only %ld output pixels measured", what, on.n);
          TEST_CHECK (on.alias <= alias_bound, "%s: antialias on leaves "
              "%.4f of the amplitude aliased, bound %.4f", what, on.alias,
              alias_bound);
          TEST_CHECK (off.alias >= ALIAS_OFF_FLOOR
              && off.alias >= (least_squares ? 2.0 : ALIAS_OFF_RATIO)
              * on.alias, "%s: antialias off leaves only %.4f aliased, "
              "expected at least %.2f and %g x %.4f (does the test still "
              "measure aliasing?)", what, off.alias, ALIAS_OFF_FLOOR,
              least_squares ? 2.0 : ALIAS_OFF_RATIO, on.alias);
          if (least_squares) {
            const double a = general ? angle : 0.0;
            const double h = ls_response (kernels[kern].order,
                0.1 * fabs (cos (a))) * ls_response (kernels[kern].order,
                0.1 * fabs (sin (a)));
            TEST_CHECK (fabs (pass.gain - h) <= (general ? 0.02 : 0.01),
                "%s: passband gain %.4f, the least-squares reduction's "
                "H(0.1 cos a) H(0.1 sin a) is %.4f", what, pass.gain, h);
          } else {
            TEST_CHECK (pass.gain >= kernels[kern].gain_min
                && pass.gain <= PASS_GAIN_MAX, "%s: passband gain %.4f "
                "outside [%.2f, %.2f]", what, pass.gain,
                kernels[kern].gain_min, PASS_GAIN_MAX);
          }
          TEST_CHECK (on.mean_error <= MEAN_BOUND && pass.mean_error <=
              MEAN_BOUND, "%s: mean moved by %.4f / %.4f of the amplitude",
              what, on.mean_error, pass.mean_error);
          if (kernels[kern].order == 3
              && kernels[kern].method == BSPLINE_METHOD_BSPLINE)
            worst_on_3 = fmax (worst_on_3, on.alias);
          least_off = fmin (least_off, off.alias);
          least_gain = fmin (least_gain, pass.gain);
        }

  /* Magnification: the widening must not engage. */
  for (general = 0; general <= 1; general++)
    for (kern = 0; kern < N_KERNELS; kern++) {
      bspline_params params;
      bspline_image out[3];
      double m[9], zoom = test_rng_range (&rng, 1.0, 3.0), diff = 0.0;
      int dst_w, dst_h, i, j;

      bspline_params_init (&params);
      params.method = kernels[kern].method;
      params.order = kernels[kern].order;
      params.boundary = test_rng_int (&rng, 0, 4);
      shrink_map (general, test_rng_range (&rng, -TEST_PI, TEST_PI), zoom,
          &dst_w, &dst_h, m);
      for (aa = 0; aa <= 2; aa++) {
        params.antialias = (bspline_antialias) aa;
        run_grating (cpu, &params, m, dst_w, dst_h, 0.4, 0.3, 0.0, 1.0, 0.0,
            &out[aa]);
      }
      for (j = 0; j < dst_h; j++)
        for (i = 0; i < dst_w; i++)
          for (aa = 1; aa <= 2; aa++)
            diff = fmax (diff, fabs (test_image_get (&out[0], i, j, 0)
                    - test_image_get (&out[aa], i, j, 0)));
      worst_magnify = fmax (worst_magnify, diff);
      TEST_CHECK (diff == 0.0, "%s %s zoom %.4f: antialias changed a "
          "magnified output by %.3g", kernels[kern].name,
          general ? "general" : "separable", zoom, diff);
      for (aa = 0; aa <= 2; aa++)
        test_image_free (&out[aa]);
    }

  bspline_cpu_free (cpu);
  return test_end ("0.4 cycles/pixel grating shrunk by 1/2 and 1/4: aliased "
      "RMS with antialias on %.4f of the amplitude for B-spline 3 (bound "
      "%.2f; least squares: its response H), with it off at least %.3f (floor %.2f); passband gain at "
      "least %.3f; magnification unchanged by antialias (max diff %.3g)",
      worst_on_3, ALIAS_ON_BOUND_ORDER_3, least_off, ALIAS_OFF_FLOOR,
      least_gain, worst_magnify);
}
