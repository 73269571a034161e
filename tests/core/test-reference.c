/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-reference.c: the double path against an independent, slow reference.
 *
 * The reference shares nothing with the engine but the definitions:
 *  - the signal is extended explicitly by a margin of M samples on every
 *    side with the boundary rule, iterated for short signals
 *    (reflect cba|abc|cba, mirror cb|abc|ba, wrap, clamp, constant);
 *  - the interpolation system sum_k c_k beta^n(i - k) = f_i is solved on
 *    the extended domain by banded Gaussian elimination in long double (no
 *    recursive filter), rows then columns; the truncation of the domain
 *    disturbs c by |z_0|^d at distance d from its edge, and M is chosen so
 *    that this is below 1e-20 wherever it is read;
 *  - the spline is evaluated from the explicit formula of beta^n
 *    (test_bspline_explicit, long double).
 * It is compared with bspline_cpu_sample_points (double precision) at
 * random coordinates inside the frame, up to 20 pixels outside, at pixel
 * centres, at knots, and far away (|x| up to 1e9: the reference then uses
 * the period of the folding extensions, or the far field of clamp and
 * constant), for all orders, all boundaries, 1-D (Nx1 and 1xN) and 2-D
 * random images; and with plans (separable scale + offset, general affine
 * and perspective maps, antialias off) at the mapped output centres.
 *
 * Long lines (65536 samples) are beyond the reference; there the
 * extensions' own symmetry is checked instead: reflect is symmetric about
 * pixel coordinate 0 (f(-p) = f(p)), mirror about 0.5 (f(0.5 - e) =
 * f(0.5 + e)), so points just left of the frame must give the values of
 * their mirror images inside it, to 1e-13 of the signal range, which
 * catches coordinates that lose bits when they are brought into range.
 */
#include "test-common.h"

#include <float.h>

#define NEAR_MARGIN 20          /* random points reach this far outside */
/* Bound relative to the signal scale: 1e-12, or 2 g^2 2^-53 where that is
 * larger (order 11: 2.8e-12), g the prefilter's gain at Nyquist, as in
 * test-identity.c; worst of 15 runs 5.0e-13 for order 11. */
#define BOUND 1e-12
#define BOUND_ULPS 2.0
#define MAX_SIDE 40
#define LONG_LINE_BOUND 1e-13

typedef struct
{
  int order, boundary, width, height, channels;
  int margin;                   /* M */
  int far_distance;             /* where the far field of clamp/constant is
                                 * read, in samples from the frame */
  int ext_w, ext_h;
  long double *coef;            /* ext_w x ext_h per channel */
} reference;

static double
order_bound (int order)
{
  static double bound[BSPLINE_MAX_ORDER + 1];
  if (bound[order] == 0.0) {
    double g = test_prefilter_nyquist_gain (order);
    bound[order] = fmax (BOUND, BOUND_ULPS * g * g * ldexp (1.0, -53));
  }
  return bound[order];
}

static double err_points[BSPLINE_MAX_ORDER + 1][5];
static double err_plans[BSPLINE_MAX_ORDER + 1][5];
static long n_points_checked, n_plan_pixels;

/* Solves the banded Toeplitz system sum_k A[i][k] x_k = rhs_i, A[i][k] =
 * beta^n(i - k), of size len in place, for `count` right-hand sides spaced
 * `step` apart with elements `elem` apart, by Gaussian elimination without
 * pivoting (the matrix is symmetric positive definite: its symbol
 * sum_k beta^n(k) e^{ikw} is positive). */
static void
solve_banded (int order, int len, long double *x, int count,
    ptrdiff_t step, ptrdiff_t elem)
{
  int h = order / 2, bw = 2 * h + 1, i, r, c, v;
  long double *a, b[BSPLINE_MAX_ORDER + 1];

  if (h == 0)
    return;                     /* orders 0 and 1: A = I */
  for (i = 0; i <= h; i++)
    b[i] = test_bspline_explicit (order, i);
  a = malloc (sizeof (long double) * (size_t) len * bw);
  /* a[i * bw + (c - i + h)] = A[i][c] */
  for (i = 0; i < len; i++)
    for (c = i - h; c <= i + h; c++)
      a[i * bw + c - i + h] = (c >= 0 && c < len) ? b[abs (c - i)] : 0.0L;
  for (i = 0; i < len; i++)
    for (r = i + 1; r <= i + h && r < len; r++) {
      long double f = a[r * bw + i - r + h] / a[i * bw + h];
      a[r * bw + i - r + h] = f;
      for (c = i + 1; c <= i + h && c < len; c++)
        a[r * bw + c - r + h] -= f * a[i * bw + c - i + h];
    }
  for (v = 0; v < count; v++) {
    long double *y = x + v * step;
    for (r = 0; r < len; r++)
      for (i = r - h > 0 ? r - h : 0; i < r; i++)
        y[r * elem] -= a[r * bw + i - r + h] * y[i * elem];
    for (i = len - 1; i >= 0; i--) {
      for (c = i + 1; c <= i + h && c < len; c++)
        y[i * elem] -= a[i * bw + c - i + h] * y[c * elem];
      y[i * elem] /= a[i * bw + h];
    }
  }
  free (a);
}

static void
reference_init (reference * ref, const bspline_image * src,
    const bspline_params * params)
{
  int n = params->order, x, y, c, e = 0;
  long double z0 = n >= 2 ? fabsl ((long double) bspline_pole (n, 0)) : 0.0L;

  ref->order = n;
  ref->boundary = params->boundary;
  ref->width = src->width;
  ref->height = src->height;
  ref->channels = src->channels;
  /* e samples bring the pole's influence below 1e-20. */
  if (n >= 2)
    e = (int) ceill (-46.0L / logl (z0));
  ref->far_distance = e + n + NEAR_MARGIN + 4;
  ref->margin = 2 * e + 2 * n + 2 * NEAR_MARGIN + 16 + MAX_SIDE / 2;
  ref->ext_w = src->width + 2 * ref->margin;
  ref->ext_h = src->height + 2 * ref->margin;
  ref->coef = malloc (sizeof (long double) * (size_t) ref->ext_w * ref->ext_h
      * ref->channels);
  for (c = 0; c < ref->channels; c++) {
    long double *p = ref->coef + (size_t) c * ref->ext_w * ref->ext_h;
    for (y = 0; y < ref->ext_h; y++)
      for (x = 0; x < ref->ext_w; x++) {
        int sx = test_extend_index (x - ref->margin, src->width,
            ref->boundary);
        int sy = test_extend_index (y - ref->margin, src->height,
            ref->boundary);
        p[(size_t) y * ref->ext_w + x] = (sx < 0 || sy < 0) ?
            (long double) params->fill[c] : test_image_get (src, sx, sy, c);
      }
    /* rows, then columns */
    solve_banded (n, ref->ext_w, p, ref->ext_h, ref->ext_w, 1);
    solve_banded (n, ref->ext_h, p, ref->ext_w, 1, ref->ext_w);
  }
}

/* The reference value at input pixel coordinate (px, py), channel c. */
static long double
reference_eval (const reference * ref, double px, double py, int c)
{
  long double sx = test_fold_far ((long double) px - 0.5L, ref->width,
      ref->boundary, NEAR_MARGIN + 2, ref->far_distance);
  long double sy = test_fold_far ((long double) py - 0.5L, ref->height,
      ref->boundary, NEAR_MARGIN + 2, ref->far_distance);
  long double wx[BSPLINE_MAX_TAPS + 4], wy[BSPLINE_MAX_TAPS + 4], sum = 0.0L;
  const long double *p = ref->coef + (size_t) c * ref->ext_w * ref->ext_h;
  int r = (ref->order + 1) / 2 + 1, n = 2 * r + 1, kx0, ky0, i, j;

  kx0 = (int) floorl (sx) - r;
  ky0 = (int) floorl (sy) - r;
  for (i = 0; i < n; i++) {
    wx[i] = test_bspline_explicit (ref->order, sx - (kx0 + i));
    wy[i] = test_bspline_explicit (ref->order, sy - (ky0 + i));
  }
  for (j = 0; j < n; j++) {
    long double row = 0.0L;
    const long double *line;
    if (wy[j] == 0.0L)
      continue;
    line = p + (size_t) (ky0 + j + ref->margin) * ref->ext_w + ref->margin;
    for (i = 0; i < n; i++)
      row += wx[i] * line[kx0 + i];
    sum += wy[j] * row;
  }
  return sum;
}

static void
random_point (test_rng * rng, int w, int h, double *x, double *y)
{
  int kind = test_rng_int (rng, 0, 9);
  switch (kind) {
    case 0:                    /* pixel centre */
      *x = test_rng_int (rng, 0, w - 1) + 0.5;
      *y = test_rng_int (rng, 0, h - 1) + 0.5;
      break;
    case 1:                    /* knots of odd orders, centres of even */
      *x = test_rng_int (rng, -3, w + 3);
      *y = test_rng_int (rng, -3, h + 3);
      break;
    case 2:                    /* far away */
      *x = test_rng_range (rng, -1.0, 1.0) * pow (10.0,
          test_rng_range (rng, 1.5, 9.0));
      if (test_rng_int (rng, 0, 3) == 0)
        /* just right of -2^k, where x - 0.5 rounds into the next binade */
        *x = -ldexp (1.0, test_rng_int (rng, 6, 40))
            + test_rng_range (rng, 0.0, 0.5);
      *y = test_rng_range (rng, -NEAR_MARGIN, h + NEAR_MARGIN);
      if (test_rng_int (rng, 0, 1)) {
        double t = *x;
        *x = *y * w / h;
        *y = t;
      }
      break;
    case 3:
    case 4:                    /* near the frame */
      *x = test_rng_range (rng, -NEAR_MARGIN, w + NEAR_MARGIN);
      *y = test_rng_range (rng, -NEAR_MARGIN, h + NEAR_MARGIN);
      break;
    default:                   /* inside */
      *x = test_rng_range (rng, 0.0, w);
      *y = test_rng_range (rng, 0.0, h);
      break;
  }
}

static void
check_points (bspline_cpu * cpu, test_rng * rng, const reference * ref,
    const bspline_params * params, const bspline_image * src, double scale)
{
  int n = 400, i, c;
  double *xy = malloc (2 * n * sizeof (double));
  double *out = malloc ((size_t) n * src->channels * sizeof (double));
  bspline_status st;

  for (i = 0; i < n; i++)
    random_point (rng, src->width, src->height, &xy[2 * i], &xy[2 * i + 1]);
  st = bspline_cpu_sample_points (cpu, params, src, xy, n, out);
  TEST_CHECK (st == BSPLINE_OK, "sample_points failed: %d %s", st,
      bspline_cpu_last_error (cpu));
  if (st == BSPLINE_OK)
    for (i = 0; i < n; i++)
      for (c = 0; c < src->channels; c++) {
        long double want = reference_eval (ref, xy[2 * i], xy[2 * i + 1], c);
        double err = (double) fabsl (out[i * src->channels + c] - want)
            / scale;
        double *slot = &err_points[params->order][params->boundary];
        if (isnan (err))
          err = INFINITY;
        *slot = fmax (*slot, err);
        n_points_checked++;
        TEST_CHECK (err <= order_bound (params->order), "%dx%d ch %d/%d "
            "order %d %s: at (%.17g, "
            "%.17g) got %.17g, reference %.17Lg: error %.3g of the signal "
            "scale", src->width, src->height, c, src->channels,
            params->order, test_boundary_name (params->boundary),
            xy[2 * i], xy[2 * i + 1], out[i * src->channels + c], want, err);
      }
  free (xy);
  free (out);
}

/* A random inverse map of one of three kinds: axis-aligned scale + offset
 * (separable path), affine, or mildly perspective (general path). */
static void
random_map (test_rng * rng, const bspline_image * src, int dst_w, int dst_h,
    int kind, double m[9])
{
  double sx = test_rng_range (rng, 0.3, 3.0), sy = test_rng_range (rng, 0.3,
      3.0);
  if (test_rng_int (rng, 0, 3) == 0)
    sx = -sx;
  bspline_matrix_identity (m);
  if (kind == 0) {
    m[0] = sx;
    m[4] = sy;
  } else {
    double a = test_rng_range (rng, -TEST_PI, TEST_PI);
    m[0] = sx * cos (a);
    m[1] = -sy * sin (a);
    m[3] = sx * sin (a);
    m[4] = sy * cos (a);
    if (kind == 2) {
      m[6] = test_rng_range (rng, -0.3, 0.3) / dst_w;
      m[7] = test_rng_range (rng, -0.3, 0.3) / dst_h;
    }
  }
  /* centre of the output near the centre of the input, +- a few pixels */
  m[2] = 0.5 * src->width - (m[0] * 0.5 * dst_w + m[1] * 0.5 * dst_h)
      + test_rng_range (rng, -3.0, 3.0);
  m[5] = 0.5 * src->height - (m[3] * 0.5 * dst_w + m[4] * 0.5 * dst_h)
      + test_rng_range (rng, -3.0, 3.0);
}

static void
check_plan (bspline_cpu * cpu, test_rng * rng, const reference * ref,
    const bspline_params * params, const bspline_image * src, double scale,
    int kind)
{
  int dst_w = test_rng_int (rng, 1, 12), dst_h = test_rng_int (rng, 1, 12);
  int i, j, c;
  double m[9];
  bspline_image dst;
  bspline_plan *plan = NULL;
  char msg[256] = "";
  bspline_status st;

  random_map (rng, src, dst_w, dst_h, kind, m);
  st = bspline_plan_new (params, m, src->width, src->height, dst_w, dst_h,
      src->channels, &plan, msg, sizeof (msg));
  TEST_CHECK (st == BSPLINE_OK, "plan_new failed: %d %s", st, msg);
  if (st != BSPLINE_OK)
    return;
  TEST_CHECK (bspline_plan_is_separable (plan) == (kind == 0),
      "map kind %d: separable = %d", kind, bspline_plan_is_separable (plan));
  test_image_alloc (&dst, dst_w, dst_h, src->channels, BSPLINE_SAMPLE_F64,
      test_rng_int (rng, 0, 3));
  st = bspline_cpu_execute (cpu, plan, src, &dst);
  TEST_CHECK (st == BSPLINE_OK, "execute failed: %d %s", st,
      bspline_cpu_last_error (cpu));
  if (st == BSPLINE_OK)
    for (j = 0; j < dst_h; j++)
      for (i = 0; i < dst_w; i++) {
        double x, y;
        test_map_centre (m, i, j, &x, &y);
        for (c = 0; c < src->channels; c++) {
          long double want = reference_eval (ref, x, y, c);
          double got = test_image_get (&dst, i, j, c);
          double err = (double) fabsl (got - want) / scale;
          double *slot = &err_plans[params->order][params->boundary];
          if (isnan (err))
            err = INFINITY;
          *slot = fmax (*slot, err);
          n_plan_pixels++;
          TEST_CHECK (err <= order_bound (params->order), "%dx%d order %d "
              "%s, map kind %d "
              "[%.17g %.17g %.17g; %.17g %.17g %.17g; %.17g %.17g %.17g] "
              "output (%d, %d) ch %d -> input (%.17g, %.17g): got %.17g, "
              "reference %.17Lg, error %.3g", src->width, src->height,
              params->order, test_boundary_name (params->boundary), kind,
              m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], i, j, c,
              x, y, got, want, err);
        }
      }
  test_image_free (&dst);
  bspline_plan_free (plan);
}

/* Left edge of a line of 65536 samples (Nx1 and 1xN), reflect and mirror:
 * returns the largest |f(p) - f(mirror image of p)| / signal range. */
static double
check_long_line (bspline_cpu * cpu, test_rng * rng, int method, int order,
    int boundary, int vertical)
{
  const int len = 1 << 16, n = 1000;
  bspline_params params;
  bspline_image src;
  double range[2], *xy = malloc (4 * n * sizeof (double));
  double *out = malloc (2 * n * sizeof (double)), worst = 0.0;
  double axis = boundary == BSPLINE_BOUNDARY_REFLECT ? 0.0 : 0.5;
  int i, k = 0, a = vertical ? 1 : 0;
  bspline_status st;

  bspline_params_init (&params);
  params.method = method;
  params.order = order;
  params.boundary = boundary;
  params.precision = BSPLINE_PRECISION_DOUBLE;
  test_image_alloc (&src, vertical ? 1 : len, vertical ? len : 1, 1,
      BSPLINE_SAMPLE_F64, 0);
  test_image_fill_random (&src, rng, -1.0, 1.0, range);
  while (k < n) {
    /* p = axis - e and its image axis + e, both exactly representable */
    double e = test_rng_range (rng, 8.0, 40.0);
    double p = axis - e, q = axis + e;
    if ((long double) p + (long double) q != 2.0L * axis)
      continue;
    xy[4 * k + a] = p;
    xy[4 * k + 1 - a] = 0.5;
    xy[4 * k + 2 + a] = q;
    xy[4 * k + 3 - a] = 0.5;
    k++;
  }
  st = bspline_cpu_sample_points (cpu, &params, &src, xy, 2 * n, out);
  TEST_CHECK (st == BSPLINE_OK, "sample_points: %d %s", st,
      bspline_cpu_last_error (cpu));
  for (i = 0; st == BSPLINE_OK && i < n; i++) {
    double err = fabs (out[2 * i] - out[2 * i + 1])
        / test_signal_scale (range);
    if (isnan (err))
      err = INFINITY;
    worst = fmax (worst, err);
    TEST_CHECK (err <= LONG_LINE_BOUND, "%s line of %d, %s %d %s: f(%.17g) "
        "= %.17g but its mirror image f(%.17g) = %.17g: %.3g of the signal "
        "range", vertical ? "vertical" : "horizontal", len,
        method == BSPLINE_METHOD_BICUBIC ? "bicubic" : "order", order,
        test_boundary_name (boundary), xy[4 * i + a], out[2 * i],
        xy[4 * i + 2 + a], out[2 * i + 1], err);
  }
  test_image_free (&src);
  free (xy);
  free (out);
  return worst;
}

static void
run_case (bspline_cpu * cpu, test_rng * rng, int order, int boundary,
    int w, int h, int with_plans)
{
  bspline_params params;
  bspline_image src;
  reference ref;
  double range[2], offset = test_rng_range (rng, -1.0, 1.0);
  int ch = test_rng_int (rng, 1, 2), c, kind;

  bspline_params_init (&params);
  params.method = BSPLINE_METHOD_BSPLINE;
  params.order = order;
  params.boundary = boundary;
  params.precision = BSPLINE_PRECISION_DOUBLE;
  params.antialias = 0;
  for (c = 0; c < BSPLINE_MAX_CHANNELS; c++)
    params.fill[c] = test_rng_range (rng, -2.0, 2.0);
  test_image_alloc (&src, w, h, ch, BSPLINE_SAMPLE_F64,
      test_rng_int (rng, 0, 3));
  test_image_fill_random (&src, rng, offset - 1.0, offset + 1.0, range);
  if (boundary == BSPLINE_BOUNDARY_CONSTANT)
    for (c = 0; c < ch; c++) {
      range[0] = fmin (range[0], params.fill[c]);
      range[1] = fmax (range[1], params.fill[c]);
    }
  reference_init (&ref, &src, &params);
  check_points (cpu, rng, &ref, &params, &src, test_signal_scale (range));
  if (with_plans)
    for (kind = 0; kind < 3; kind++)
      check_plan (cpu, rng, &ref, &params, &src, test_signal_scale (range),
          kind);
  free (ref.coef);
  test_image_free (&src);
}

int
main (void)
{
  test_rng rng;
  bspline_cpu *cpu;
  int order, boundary, i, vertical;
  double worst = 0.0, worst_long = 0.0;

  test_begin ("test-reference", &rng);
  cpu = bspline_cpu_new (0);
  TEST_CHECK (cpu != NULL, "bspline_cpu_new (0) failed");
  if (!cpu)
    return test_end ("no engine");

  for (order = 0; order <= BSPLINE_MAX_ORDER; order++)
    for (boundary = 0; boundary < 5; boundary++) {
      static const int lengths[] = { 1, 2, 3, 5, 8 };
      /* 1-D: N x 1 and 1 x N */
      for (i = 0; i < 5; i++)
        run_case (cpu, &rng, order, boundary, lengths[i], 1, 0);
      run_case (cpu, &rng, order, boundary, test_rng_int (&rng, 9, MAX_SIDE),
          1, 1);
      run_case (cpu, &rng, order, boundary, 1, test_rng_int (&rng, 2,
              MAX_SIDE), 1);
      /* 2-D */
      run_case (cpu, &rng, order, boundary, test_rng_int (&rng, 1, 4),
          test_rng_int (&rng, 1, 4), 1);
      run_case (cpu, &rng, order, boundary, test_rng_int (&rng, 5, 24),
          test_rng_int (&rng, 5, 24), 1);
    }

  for (boundary = 0; boundary < 2; boundary++)
    for (vertical = 0; vertical <= 1; vertical++) {
      static const int orders[] = { 1, 3, 5, 11 };
      for (i = 0; i < 4; i++)
        worst_long = fmax (worst_long, check_long_line (cpu, &rng,
                BSPLINE_METHOD_BSPLINE, orders[i], boundary, vertical));
      worst_long = fmax (worst_long, check_long_line (cpu, &rng,
              BSPLINE_METHOD_BICUBIC, 3, boundary, vertical));
    }

  printf ("max error / signal scale, sample_points | plans:\n");
  printf ("order   reflect    mirror      wrap     clamp  constant |"
      "   reflect    mirror      wrap     clamp  constant\n");
  for (order = 0; order <= BSPLINE_MAX_ORDER; order++) {
    printf ("%5d", order);
    for (boundary = 0; boundary < 5; boundary++)
      printf ("%10.2e", err_points[order][boundary]);
    printf (" |");
    for (boundary = 0; boundary < 5; boundary++) {
      printf ("%10.2e", err_plans[order][boundary]);
      worst = fmax (worst, fmax (err_plans[order][boundary],
              err_points[order][boundary]));
    }
    printf ("\n");
  }
  bspline_cpu_free (cpu);
  return test_end ("%ld points and %ld plan pixels vs the banded-solve "
      "reference, orders 0-11 x 5 boundaries, double: max error %.3g of the "
      "signal scale (bound %.0e, order 11: %.2g); reflect/mirror symmetry "
      "at the left edge of 65536-sample lines: %.3g (bound %.0e)",
      n_points_checked, n_plan_pixels, worst, BOUND, order_bound (11),
      worst_long, LONG_LINE_BOUND);
}
