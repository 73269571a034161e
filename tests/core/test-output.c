/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-output.c: what the engine writes, whatever it computed.
 *
 *  - Integer outputs: U8 and U16 (10 bits shifted by 6, as P010, and 16
 *    bits) must be the F64 output of the same plan rounded half up and
 *    clamped to the code range, sample for sample (bicubic and high orders
 *    overshoot, so clamping is exercised).  At float precision the engine
 *    rounds in float, so values within 1e-6 of a half code may go either
 *    way; at double precision the match must be exact.
 *  - Strides: outputs with padded rows must hold the same samples as
 *    tight ones, and the padding must stay untouched.
 *  - Threads: an engine with 1 thread and one with all cores must give
 *    bit-identical outputs (the bands are independent).
 * Random sources (F64, F32, U8, U16), random rotation/zoom and
 * axis-aligned plans, all boundaries, orders 0-11 and bicubic.
 */
#include "test-common.h"

#define PAD_BYTE 0xa5

static long n_samples, n_ties;

static void
run_plan (bspline_cpu * cpu, const bspline_plan * plan,
    const bspline_image * src, const bspline_image * dst, const char *what)
{
  bspline_status st = bspline_cpu_execute (cpu, plan, src, dst);
  TEST_CHECK (st == BSPLINE_OK, "%s: execute: %d %s", what, st,
      bspline_cpu_last_error (cpu));
}

/* dst of type `type` with its padding bytes set to PAD_BYTE. */
static void
alloc_padded (bspline_image * img, int w, int h, int ch,
    bspline_sample_type type, int bits, int shift, int extra)
{
  test_image_alloc (img, w, h, ch, type, extra);
  img->bits = bits;
  img->shift = shift;
  memset (img->data, PAD_BYTE, (size_t) h * img->stride);
}

static int
padding_intact (const bspline_image * img)
{
  size_t row = (size_t) img->width * img->channels
      * test_sample_size (img->type);
  int y;
  size_t i;
  for (y = 0; y < img->height; y++) {
    const unsigned char *p = (const unsigned char *) img->data
        + (ptrdiff_t) y * img->stride;
    for (i = row; i < (size_t) img->stride; i++)
      if (p[i] != PAD_BYTE)
        return 0;
  }
  return 1;
}

static void
one_case (bspline_cpu * all, bspline_cpu * single, test_rng * rng, int trial)
{
  static const bspline_sample_type types[] = {
    BSPLINE_SAMPLE_F64, BSPLINE_SAMPLE_F32, BSPLINE_SAMPLE_U8,
    BSPLINE_SAMPLE_U16
  };
  bspline_params params;
  bspline_image src, ref, ref1, u8, u16a, u16b;
  bspline_plan *plan = NULL;
  double m[9], range[2];
  int sw = test_rng_int (rng, 1, 70), sh = test_rng_int (rng, 1, 70);
  int dw = test_rng_int (rng, 1, 90), dh = test_rng_int (rng, 1, 90);
  int ch = test_rng_int (rng, 1, 4), i, j, c, k;
  bspline_sample_type st_type = types[test_rng_int (rng, 0, 3)];
  char msg[256] = "", what[200];
  bspline_status st;

  bspline_params_init (&params);
  params.method = trial % 5 == 0 ? BSPLINE_METHOD_BICUBIC :
      BSPLINE_METHOD_BSPLINE;
  params.order = test_rng_int (rng, 0, BSPLINE_MAX_ORDER);
  params.boundary = test_rng_int (rng, 0, 4);
  params.precision = test_rng_int (rng, 0, 2);
  params.antialias = test_rng_int (rng, 0, 1);
  for (c = 0; c < BSPLINE_MAX_CHANNELS; c++)
    params.fill[c] = test_rng_range (rng, -20.0, 300.0);
  if (test_rng_int (rng, 0, 2) == 0) {
    bspline_matrix_identity (m);
    m[0] = test_rng_range (rng, -2.5, 2.5);
    m[4] = test_rng_range (rng, 0.3, 2.5);
    m[2] = test_rng_range (rng, -10, sw + 10);
    m[5] = test_rng_range (rng, -10, sh + 10);
  } else {
    test_rotation_zoom (test_rng_range (rng, -TEST_PI, TEST_PI),
        test_rng_range (rng, 0.3, 3.0), sw, sh, dw, dh, m);
  }
  snprintf (what, sizeof (what), "trial %d: %s %dx%d ch %d -> %dx%d, %s "
      "order %d, %s, %s, antialias %d", trial, test_type_name (st_type), sw,
      sh, ch, dw, dh, params.method ? "bicubic" : "bspline", params.order,
      test_boundary_name (params.boundary),
      test_precision_name (params.precision), params.antialias);

  test_image_alloc (&src, sw, sh, ch, st_type, test_rng_int (rng, 0, 3));
  if (st_type == BSPLINE_SAMPLE_U16) {
    src.bits = 12;
    src.shift = 4;
  }
  /* F32/F64 sources span [-20, 300] so that both clamps engage */
  test_image_fill_random (&src, rng, -20.0, 300.0, range);
  st = bspline_plan_new (&params, m, sw, sh, dw, dh, ch, &plan, msg,
      sizeof (msg));
  TEST_CHECK (st == BSPLINE_OK, "%s: plan_new: %d %s", what, st, msg);
  if (st != BSPLINE_OK) {
    test_image_free (&src);
    return;
  }
  alloc_padded (&ref, dw, dh, ch, BSPLINE_SAMPLE_F64, 0, 0, 0);
  alloc_padded (&ref1, dw, dh, ch, BSPLINE_SAMPLE_F64, 0, 0,
      test_rng_int (rng, 1, 5));
  alloc_padded (&u8, dw, dh, ch, BSPLINE_SAMPLE_U8, 8, 0,
      test_rng_int (rng, 1, 9));
  alloc_padded (&u16a, dw, dh, ch, BSPLINE_SAMPLE_U16, 10, 6,
      test_rng_int (rng, 1, 9));
  alloc_padded (&u16b, dw, dh, ch, BSPLINE_SAMPLE_U16, 16, 0,
      test_rng_int (rng, 1, 9));
  run_plan (all, plan, &src, &ref, what);
  run_plan (single, plan, &src, &ref1, what);
  run_plan (all, plan, &src, &u8, what);
  run_plan (all, plan, &src, &u16a, what);
  run_plan (single, plan, &src, &u16b, what);

  TEST_CHECK (padding_intact (&ref1) && padding_intact (&u8)
      && padding_intact (&u16a) && padding_intact (&u16b),
      "%s: the engine wrote into the padding between rows", what);
  for (j = 0; j < dh; j++)
    for (i = 0; i < dw; i++)
      for (c = 0; c < ch; c++) {
        double v = test_image_get (&ref, i, j, c);
        double v1 = test_image_get (&ref1, i, j, c);
        const bspline_image *outs[3] = { &u8, &u16a, &u16b };
        TEST_CHECK (v == v1 || (isnan (v) && isnan (v1)), "%s: (%d, %d, %d) "
            "all threads %.17g, one thread %.17g", what, i, j, c, v, v1);
        for (k = 0; k < 3; k++) {
          double top = (double) ((1 << outs[k]->bits) - 1);
          double want = floor (fmin (fmax (v, 0.0), top) + 0.5);
          double got = test_image_get (outs[k], i, j, c);
          double frac = v - floor (v);
          int tie = params.precision != BSPLINE_PRECISION_DOUBLE
              && fabs (frac - 0.5) < 1e-6 * fmax (1.0, fabs (v));
          n_samples++;
          if (tie && got != want) {
            n_ties++;
            TEST_CHECK (fabs (got - want) == 1.0, "%s: %d-bit output (%d, "
                "%d, %d) = %g, F64 output %.17g", what, outs[k]->bits, i, j,
                c, got, v);
            continue;
          }
          TEST_CHECK (got == want, "%s: %d-bit output (%d, %d, %d) = %g, "
              "but the F64 output %.17g rounds to %g", what, outs[k]->bits,
              i, j, c, got, v, want);
        }
      }
  test_image_free (&src);
  test_image_free (&ref);
  test_image_free (&ref1);
  test_image_free (&u8);
  test_image_free (&u16a);
  test_image_free (&u16b);
  bspline_plan_free (plan);
}

int
main (void)
{
  test_rng rng;
  bspline_cpu *all, *single;
  int trial, n_trials;

  test_begin ("test-output", &rng);
  all = bspline_cpu_new (0);
  single = bspline_cpu_new (1);
  TEST_CHECK (all && single, "bspline_cpu_new failed");
  if (!all || !single)
    return test_end ("no engine");
  TEST_CHECK (bspline_cpu_n_threads (single) == 1, "bspline_cpu_new (1) has "
      "%d threads", bspline_cpu_n_threads (single));
  n_trials = test_trials (300);
  for (trial = 0; trial < n_trials; trial++)
    one_case (all, single, &rng, trial);
  printf ("engine threads: %d and 1\n", bspline_cpu_n_threads (all));
  bspline_cpu_free (all);
  bspline_cpu_free (single);
  return test_end ("%d random plans: %ld U8/U16 samples equal to the "
      "rounded, clamped F64 output (%ld float half-code ties within one "
      "code); padded strides untouched; 1 thread and %s threads "
      "bit-identical", n_trials, n_samples, n_ties, "all");
}
