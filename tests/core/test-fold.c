/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-fold.c: the folded least-squares reduction (core/resample/fold.c)
 * against the reduction's two plans.
 *
 * Axis-aligned shrinks at rational ratios p / q (q <= 8), with and without
 * a crop's offset, orders 0-8 (the fold takes every order to 5 at ratios
 * with p <= 6; beyond, where its table would pass BSPLINE_FOLD_MAX_TAPS,
 * and at orders 6-8, the two plans run), the boundaries the fold takes
 * (reflect, mirror, wrap), 1-4 channels, random sizes down to a single
 * output sample; sources: white noise and crops of the real ascent image
 * (make-test-images.py).  Each plan runs
 *   - in float, folded where the engine folds it (the test fails where a
 *     plan of order 5 or less at p <= 6 is not);
 *   - in float through the project and sample plans (the fold taken off
 *     the plan), and in double (never folded),
 * on an F64 source into F64 outputs: the folded float output is within
 * test_float_bound of the double one (the float path's own bound), and
 * within twice that of the unfolded float one.  8- and 16-bit sources and
 * outputs: within one code value of the double path's rounded output.
 * The output of one thread equals that of three, bit for bit.  Plans the
 * fold does not take (an irrational ratio, double precision, clamp and
 * constant boundaries, an axis not reduced, a flip) are checked to keep
 * the two plans.
 */
#include "test-common.h"
#include "resample.h"

#define TRIALS 120

static const int ratios[][2] = {
  {2, 1}, {3, 1}, {4, 1}, {3, 2}, {4, 3}, {5, 2}, {5, 4}, {7, 3}, {9, 8},
  {6, 1}, {11, 4}
};

#define N_RATIOS ((int) (sizeof (ratios) / sizeof (ratios[0])))

static const int boundaries[] = {
  BSPLINE_BOUNDARY_REFLECT, BSPLINE_BOUNDARY_MIRROR, BSPLINE_BOUNDARY_WRAP
};

/* Runs plan into out; fold 0 takes the fold off the plan for the run. */
static int
execute (bspline_cpu * cpu, bspline_plan * plan, const bspline_image * src,
    const bspline_image * out, int fold)
{
  bspline_fold *saved = plan->reduce ? plan->reduce->fold : NULL;
  bspline_status status;
  if (!fold && plan->reduce)
    plan->reduce->fold = NULL;
  status = bspline_cpu_execute (cpu, plan, src, out);
  if (plan->reduce)
    plan->reduce->fold = saved;
  TEST_CHECK (status == BSPLINE_OK, "execute: %s",
      bspline_cpu_last_error (cpu));
  return status == BSPLINE_OK;
}

static double
largest_difference (const bspline_image * a, const bspline_image * b)
{
  double worst = 0.0;
  int x, y, c;
  for (y = 0; y < a->height; y++)
    for (x = 0; x < a->width; x++)
      for (c = 0; c < a->channels; c++) {
        double d = fabs (test_image_get (a, x, y, c)
            - test_image_get (b, x, y, c));
        worst = d > worst || isnan (d) ? d : worst;
      }
  return worst;
}

static bspline_plan *
make_plan (int order, int boundary, bspline_precision precision,
    const double m[9], int src_w, int src_h, int dst_w, int dst_h,
    int channels)
{
  bspline_params params;
  bspline_plan *plan = NULL;
  char msg[256] = "";
  bspline_params_init (&params);
  params.order = order;
  params.boundary = boundary;
  params.precision = precision;
  params.antialias = BSPLINE_ANTIALIAS_LEAST_SQUARES;
  TEST_CHECK (bspline_plan_new (&params, m, src_w, src_h, dst_w, dst_h,
          channels, &plan, msg, sizeof (msg)) == BSPLINE_OK, "plan: %s",
      msg);
  return plan;
}

static double worst_double[BSPLINE_MAX_ORDER + 1];
static double worst_unfolded[BSPLINE_MAX_ORDER + 1];
static int worst_code;
static double worst_fir;

/* A fold axis's output-grid filter two ways on a random margined line
 * y: its recursions (fold.c's, in double from the axis's float poles,
 * started from zero at the line's ends) then b^n, and its FIR
 * (bspline_fold_axis.fir); the largest difference over the frame's
 * outputs, relative to max |y| times the FIR's l1 norm. */
static double
fir_error (const bspline_fold_axis * f, test_rng * rng)
{
  const int n = f->n_out, frame = n - 2 * f->margin;
  double *c = malloc (sizeof (double) * n * 2), *y = c + n, top = 0.0,
      l1 = 0.0, worst = 0.0;
  int i, j, k, m;

  for (k = 0; k < n; k++) {
    c[k] = y[k] = test_rng_range (rng, -1.0, 1.0);
    top = fmax (top, fabs (y[k]));
  }
  for (i = 0; i < f->n_recursions; i++) {
    for (k = f->lag[i]; k < n; k++)
      c[k] += f->pole[i] * c[k - f->lag[i]];
    for (k = n - 1 - f->lag[i]; k >= 0; k--)
      c[k] += f->pole[i] * c[k + f->lag[i]];
  }
  for (m = 0; m <= 2 * f->fir_half; m++)
    l1 += fabs (f->fir[m]);
  for (j = 0; j < frame; j++) {
    double rec = 0.0, fir = 0.0;
    for (k = -f->half; k <= f->half; k++)
      rec += f->sample[k + f->half] * c[j + f->margin + k];
    for (m = -f->fir_half; m <= f->fir_half; m++)
      fir += f->fir[f->fir_half + m] * y[j + f->margin + m];
    worst = fmax (worst, fabs (rec - fir) / (top * l1));
  }
  free (c);
  return worst;
}

/* One shrink of src by the ratio's pairs along x and y. */
static void
trial (bspline_cpu * cpu, bspline_cpu * cpu3, test_rng * rng,
    const bspline_image * src, const double range[2], int real)
{
  const int *rx = ratios[test_rng_int (rng, 0, N_RATIOS - 1)];
  const int *ry = ratios[test_rng_int (rng, 0, N_RATIOS - 1)];
  const int order = test_rng_int (rng, 0, 8);
  const int boundary = boundaries[test_rng_int (rng, 0, 2)];
  const int crop = test_rng_int (rng, 0, 2) == 0;
  /* any size: the map's scale is the ratio */
  const int dst_w = test_rng_int (rng, 1, src->width * rx[1] / rx[0]);
  const int dst_h = test_rng_int (rng, 1, src->height * ry[1] / ry[0]);
  const double scale = test_signal_scale (range);
  double m[9] = { (double) rx[0] / rx[1], 0, 0, 0, (double) ry[0] / ry[1],
    0, 0, 0, 1
  };
  bspline_plan *plan, *plan_d;
  bspline_image out_f, out_u, out_d, out_3;
  double bound, err_d, err_u;
  char what[256];

  if (crop) {
    m[2] = test_rng_range (rng, -3.0, 5.0);
    m[5] = test_rng_range (rng, -3.0, 5.0);
  }
  snprintf (what, sizeof (what), "%s %dx%d ch %d -> %dx%d (x %d/%d, y "
      "%d/%d, offset %.4f %.4f) order %d %s", real ? "ascent" : "noise",
      src->width, src->height, src->channels, dst_w, dst_h, rx[0], rx[1],
      ry[0], ry[1], m[2], m[5], order, test_boundary_name (boundary));
  plan = make_plan (order, boundary, BSPLINE_PRECISION_FLOAT, m, src->width,
      src->height, dst_w, dst_h, src->channels);
  plan_d = make_plan (order, boundary, BSPLINE_PRECISION_DOUBLE, m,
      src->width, src->height, dst_w, dst_h, src->channels);
  if (!plan || !plan_d) {
    bspline_plan_free (plan);
    bspline_plan_free (plan_d);
    return;
  }
  /* the fold takes orders to BSPLINE_FOLD_MAX_ORDER, and its table holds
   * at most BSPLINE_FOLD_MAX_TAPS taps: every such order at ratios to 6
   * (p <= 6) */
  TEST_CHECK ((plan->reduce && plan->reduce->fold) || order > 5
      || rx[0] > 6 || ry[0] > 6, "%s: not folded", what);
  TEST_CHECK (order <= BSPLINE_FOLD_MAX_ORDER || !plan->reduce
      || !plan->reduce->fold, "%s: folded", what);
  TEST_CHECK (!plan_d->reduce || !plan_d->reduce->fold, "%s: the double "
      "plan is folded", what);
  if (plan->reduce && plan->reduce->fold) {
    /* the FIR of the output grid's filter (the GPU engine's): within
     * 1e-6 of the recursions and b^n (float poles and taps, in double) */
    const bspline_fold *fold = plan->reduce->fold;
    const double e = fmax (fir_error (&fold->x, rng),
        fir_error (&fold->y, rng));
    worst_fir = fmax (worst_fir, e);
    TEST_CHECK (e <= 1e-6 && fold->x.fir_half <= fold->x.margin
        && fold->y.fir_half <= fold->y.margin, "%s: the FIR of the output "
        "grid's filter differs from its recursions by %.3g (taps +-%d, +-%d; "
        "margins %d, %d)", what, e, fold->x.fir_half, fold->y.fir_half,
        fold->x.margin, fold->y.margin);
  }
  test_image_alloc (&out_f, dst_w, dst_h, src->channels, BSPLINE_SAMPLE_F64,
      test_rng_int (rng, 0, 3));
  test_image_alloc (&out_u, dst_w, dst_h, src->channels, BSPLINE_SAMPLE_F64,
      0);
  test_image_alloc (&out_d, dst_w, dst_h, src->channels, BSPLINE_SAMPLE_F64,
      0);
  test_image_alloc (&out_3, dst_w, dst_h, src->channels, BSPLINE_SAMPLE_F64,
      test_rng_int (rng, 0, 3));
  if (execute (cpu, plan, src, &out_f, 1) && execute (cpu, plan, src,
          &out_u, 0) && execute (cpu, plan_d, src, &out_d, 1)
      && execute (cpu3, plan, src, &out_3, 1)) {
    bound = test_float_bound (order, real, 1);
    err_d = largest_difference (&out_f, &out_d) / scale;
    err_u = largest_difference (&out_f, &out_u) / scale;
    worst_double[order] = fmax (worst_double[order], err_d);
    worst_unfolded[order] = fmax (worst_unfolded[order], err_u);
    TEST_CHECK (err_d <= bound, "%s: folded float differs from double by "
        "%.3g of the signal range, bound %.3g", what, err_d, bound);
    TEST_CHECK (err_u <= 2.0 * bound, "%s: folded float differs from the "
        "two plans in float by %.3g of the signal range, bound %.3g", what,
        err_u, 2.0 * bound);
    TEST_CHECK (largest_difference (&out_f, &out_3) == 0.0, "%s: 3 threads "
        "differ from 1", what);
  }
  test_image_free (&out_f);
  test_image_free (&out_u);
  test_image_free (&out_d);
  test_image_free (&out_3);
  bspline_plan_free (plan);
  bspline_plan_free (plan_d);
}

/* 8- and 16-bit: the folded output within one code value of the double
 * path's. */
static void
trial_integer (bspline_cpu * cpu, test_rng * rng, bspline_sample_type type)
{
  const int *r = ratios[test_rng_int (rng, 0, N_RATIOS - 1)];
  const int channels = test_rng_int (rng, 1, 4);
  const int order = test_rng_int (rng, 0, 5);
  const int dst_w = r[1] * test_rng_int (rng, 1, 12);
  const int dst_h = r[1] * test_rng_int (rng, 1, 12);
  const int src_w = dst_w * r[0] / r[1], src_h = dst_h * r[0] / r[1];
  const double m[9] = { (double) r[0] / r[1], 0, 0, 0, (double) r[0] / r[1],
    0, 0, 0, 1
  };
  const int boundary = boundaries[test_rng_int (rng, 0, 2)];
  bspline_plan *plan, *plan_d;
  bspline_image src, out_f, out_d;
  double range[2], err;

  test_image_alloc (&src, src_w, src_h, channels, type, 1);
  if (type == BSPLINE_SAMPLE_U16) {
    src.bits = test_rng_int (rng, 9, 16);
    src.shift = test_rng_int (rng, 0, 16 - src.bits);
  }
  test_image_fill_random (&src, rng, 0, 0, range);
  test_image_alloc (&out_f, dst_w, dst_h, channels, type, 2);
  test_image_alloc (&out_d, dst_w, dst_h, channels, type, 0);
  out_f.bits = out_d.bits = src.bits;
  out_f.shift = out_d.shift = src.shift;
  plan = make_plan (order, boundary, BSPLINE_PRECISION_FLOAT, m, src_w,
      src_h, dst_w, dst_h, channels);
  plan_d = make_plan (order, boundary, BSPLINE_PRECISION_DOUBLE, m, src_w,
      src_h, dst_w, dst_h, channels);
  if (plan && plan_d && execute (cpu, plan, &src, &out_f, 1)
      && execute (cpu, plan_d, &src, &out_d, 1)) {
    TEST_CHECK (plan->reduce && plan->reduce->fold, "%s %dx%d: not folded",
        test_type_name (type), src_w, src_h);
    err = largest_difference (&out_f, &out_d);
    worst_code = err > worst_code ? (int) err : worst_code;
    TEST_CHECK (err <= 1.0, "%s %d bits, %dx%d ch %d -> %dx%d order %d %s: "
        "folded output %g code values from the double path's",
        test_type_name (type), src.bits, src_w, src_h, channels, dst_w,
        dst_h, order, test_boundary_name (boundary), err);
  }
  bspline_plan_free (plan);
  bspline_plan_free (plan_d);
  test_image_free (&src);
  test_image_free (&out_f);
  test_image_free (&out_d);
}

/* Plans that keep the two plans. */
static void
check_not_folded (void)
{
  static const struct
  {
    const char *what;
    double sx, sy;
    int boundary;
    bspline_precision precision;
  } cases[] = {
    {"an irrational ratio", 1.4142135623730951, 2.0,
        BSPLINE_BOUNDARY_REFLECT, BSPLINE_PRECISION_FLOAT},
    {"double precision", 2.0, 2.0, BSPLINE_BOUNDARY_REFLECT,
        BSPLINE_PRECISION_DOUBLE},
    {"clamp", 2.0, 2.0, BSPLINE_BOUNDARY_CLAMP, BSPLINE_PRECISION_FLOAT},
    {"constant", 2.0, 2.0, BSPLINE_BOUNDARY_CONSTANT,
        BSPLINE_PRECISION_FLOAT},
    {"an axis enlarged", 2.0, 0.5, BSPLINE_BOUNDARY_REFLECT,
        BSPLINE_PRECISION_FLOAT},
    {"a flip", -2.0, 2.0, BSPLINE_BOUNDARY_REFLECT, BSPLINE_PRECISION_FLOAT},
  };
  int i;
  for (i = 0; i < (int) (sizeof (cases) / sizeof (cases[0])); i++) {
    double m[9] = { cases[i].sx, 0, 0, 0, cases[i].sy, 0, 0, 0, 1 };
    bspline_plan *plan;
    if (cases[i].sx < 0)
      m[2] = 64.0;
    plan = make_plan (3, cases[i].boundary, cases[i].precision, m, 64, 64,
        30, 30, 1);
    TEST_CHECK (!plan || !plan->reduce || !plan->reduce->fold,
        "%s: folded", cases[i].what);
    bspline_plan_free (plan);
  }
}

int
main (int argc, char **argv)
{
  test_rng rng;
  bspline_cpu *cpu, *cpu3;
  bspline_image ascent, src, crop;
  int have_ascent, t, order, n_trials, n_integer;
  double range[2];

  test_begin ("fold", &rng);
  if (argc < 2) {
    printf ("usage: %s ascent.pgm\n", argv[0]);
    return 99;
  }
  have_ascent = test_read_pgm (argv[1], &ascent);
  TEST_CHECK (have_ascent, "cannot read the real image %s", argv[1]);
  cpu = bspline_cpu_new (1);
  cpu3 = bspline_cpu_new (3);
  if (!cpu || !cpu3 || !have_ascent)
    return test_end ("setup failed");
  check_not_folded ();
  n_trials = test_trials (TRIALS);
  n_integer = test_trials (40);
  for (t = 0; t < n_trials; t++) {
    if (t % 2 == 0) {
      test_image_alloc (&src, test_rng_int (&rng, 48, 120),
          test_rng_int (&rng, 48, 120), test_rng_int (&rng, 1, 4),
          BSPLINE_SAMPLE_F64, test_rng_int (&rng, 0, 3));
      test_image_fill_random (&src, &rng, -1.0, 1.0, range);
      trial (cpu, cpu3, &rng, &src, range, 0);
      test_image_free (&src);
    } else {
      /* a crop of the photograph, sharing its rows */
      int x0, y0, x, y;
      crop = ascent;
      crop.width = test_rng_int (&rng, 48, 160);
      crop.height = test_rng_int (&rng, 48, 160);
      x0 = test_rng_int (&rng, 0, ascent.width - crop.width);
      y0 = test_rng_int (&rng, 0, ascent.height - crop.height);
      crop.data = (char *) ascent.data + (ptrdiff_t) y0 * ascent.stride
          + (ptrdiff_t) x0 * sizeof (double);
      range[0] = INFINITY;
      range[1] = -INFINITY;
      for (y = 0; y < crop.height; y++)
        for (x = 0; x < crop.width; x++) {
          range[0] = fmin (range[0], test_image_get (&crop, x, y, 0));
          range[1] = fmax (range[1], test_image_get (&crop, x, y, 0));
        }
      trial (cpu, cpu3, &rng, &crop, range, 1);
    }
  }
  for (t = 0; t < n_integer; t++)
    trial_integer (cpu, &rng, t % 2 ? BSPLINE_SAMPLE_U16 : BSPLINE_SAMPLE_U8);
  printf ("order  float (folded to order %d) vs double  vs the two plans "
      "in float  bound (noise)\n", BSPLINE_FOLD_MAX_ORDER);
  for (order = 0; order <= 8; order++)
    printf ("%5d  %34.3g  %25.3g  %.3g\n", order, worst_double[order],
        worst_unfolded[order], test_float_bound (order, 0, 1));
  bspline_cpu_free (cpu);
  bspline_cpu_free (cpu3);
  test_image_free (&ascent);
  return test_end ("%d shrinks at rational ratios, orders 0-8: worst "
      "folded float against double %.3g of the range at order 3, %.3g at "
      "order 5; 8 and 16 bits within %d code value of the double path; the "
      "output grid's FIR within %.3g of its recursions",
      n_trials + n_integer, worst_double[3], worst_double[5], worst_code,
      worst_fir);
}
