/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-seams.c: the separable path on frames tall enough to be split into
 * chunks (the streaming path starts each chunk's recursions from the rows
 * around it), against the general point sampler in double, and the same
 * bytes on one thread as on all of them.  Random sizes, orders 2-5, every
 * boundary, float and double, mirrored and shifted maps.  Also: 16
 * threads equal one (whatever the machine's core count), and a 4-channel
 * U8 frame equals its four channels run one by one, bit for bit (the
 * interleaved planes take the engine's vector loops, single channels the
 * plain C ones). */
#include "test-common.h"

#define TRIALS 14

/* An RGBA U8 frame and its four channels as single planes. */
static void
check_channels_split (test_rng * rng, bspline_cpu * cpu)
{
  const int sw = 640, sh = 720, dw = 1280, dh = 1440;
  bspline_image src, dst, plane_src, plane_dst;
  bspline_params p;
  bspline_plan *plan4 = NULL, *plan1 = NULL;
  double m[9] = { 0.5, 0, 0, 0, 0.5, 0, 0, 0, 1 }, range[2];
  char msg[256];
  long differ = 0;
  int c, x, y;

  bspline_params_init (&p);
  test_image_alloc (&src, sw, sh, 4, BSPLINE_SAMPLE_U8, 0);
  test_image_alloc (&dst, dw, dh, 4, BSPLINE_SAMPLE_U8, 0);
  test_image_alloc (&plane_src, sw, sh, 1, BSPLINE_SAMPLE_U8, 0);
  test_image_alloc (&plane_dst, dw, dh, 1, BSPLINE_SAMPLE_U8, 0);
  test_image_fill_random (&src, rng, 0, 0, range);
  bspline_plan_new (&p, m, sw, sh, dw, dh, 4, &plan4, msg, sizeof (msg));
  bspline_plan_new (&p, m, sw, sh, dw, dh, 1, &plan1, msg, sizeof (msg));
  TEST_CHECK (bspline_cpu_execute (cpu, plan4, &src, &dst) == BSPLINE_OK,
      "rgba: %s", bspline_cpu_last_error (cpu));
  for (c = 0; c < 4; c++) {
    for (y = 0; y < sh; y++)
      for (x = 0; x < sw; x++)
        test_image_set (&plane_src, x, y, 0, test_image_get (&src, x, y, c));
    TEST_CHECK (bspline_cpu_execute (cpu, plan1, &plane_src,
            &plane_dst) == BSPLINE_OK, "plane: %s",
        bspline_cpu_last_error (cpu));
    for (y = 0; y < dh; y++)
      for (x = 0; x < dw; x++)
        differ += test_image_get (&plane_dst, x, y, 0)
            != test_image_get (&dst, x, y, c);
  }
  TEST_CHECK (differ == 0, "RGBA %dx%d -> %dx%d: %ld samples differ from "
      "the channels run one by one", sw, sh, dw, dh, differ);
  printf ("RGBA U8 %dx%d -> %dx%d equals its channels one by one: %s\n",
      sw, sh, dw, dh, differ ? "no" : "yes, bit for bit");
  bspline_plan_free (plan4);
  bspline_plan_free (plan1);
  test_image_free (&src);
  test_image_free (&dst);
  test_image_free (&plane_src);
  test_image_free (&plane_dst);
}

int
main (void)
{
  test_rng rng;
  bspline_cpu *all, *one, *sixteen;
  double worst_double = 0.0, worst_float = 0.0;
  int trial, checked = 0;

  test_begin ("test-seams", &rng);
  all = bspline_cpu_new (0);
  one = bspline_cpu_new (1);
  sixteen = bspline_cpu_new (16);
  for (trial = 0; trial < test_trials (TRIALS); trial++) {
    int sw = test_rng_int (&rng, 50, 700), sh = test_rng_int (&rng, 200, 1100);
    int dw = test_rng_int (&rng, 30, 700), dh = test_rng_int (&rng, 30, 1500);
    int channels = test_rng_int (&rng, 1, 4);
    bspline_params p, pr;
    bspline_plan *plan = NULL;
    bspline_image src, out, out1;
    double m[9] = { 0 }, range[2], *xy = NULL, *ref = NULL, err = 0.0;
    char msg[256];
    int i, j, c;

    bspline_params_init (&p);
    p.order = test_rng_int (&rng, 2, 5);
    p.boundary = (bspline_boundary) test_rng_int (&rng, 0, 4);
    p.precision = test_rng_int (&rng, 0, 1) ? BSPLINE_PRECISION_DOUBLE :
        BSPLINE_PRECISION_FLOAT;
    p.antialias = test_rng_uniform (&rng) < 0.7;
    for (c = 0; c < 4; c++)
      p.fill[c] = test_rng_range (&rng, 0.0, 255.0);
    m[0] = (double) sw / dw * test_rng_range (&rng, 0.6, 1.4);
    m[2] = test_rng_range (&rng, -10.0, 10.0);
    m[4] = (double) sh / dh * test_rng_range (&rng, 0.6, 1.4);
    m[5] = test_rng_range (&rng, -10.0, 10.0);
    m[8] = 1.0;
    if (test_rng_uniform (&rng) < 0.3) {        /* mirrored along x */
      m[0] = -m[0];
      m[2] += sw;
    }
    test_image_alloc (&src, sw, sh, channels, BSPLINE_SAMPLE_F64, 0);
    test_image_alloc (&out, dw, dh, channels, BSPLINE_SAMPLE_F64, 0);
    test_image_alloc (&out1, dw, dh, channels, BSPLINE_SAMPLE_F64, 0);
    test_image_fill_random (&src, &rng, 0.0, 255.0, range);
    if (bspline_plan_new (&p, m, sw, sh, dw, dh, channels, &plan, msg,
            sizeof (msg)) != BSPLINE_OK) {
      TEST_CHECK (0, "plan: %s", msg);
      goto next;
    }
    TEST_CHECK (bspline_cpu_execute (all, plan, &src, &out) == BSPLINE_OK,
        "execute: %s", bspline_cpu_last_error (all));
    TEST_CHECK (bspline_cpu_execute (one, plan, &src, &out1) == BSPLINE_OK,
        "execute: %s", bspline_cpu_last_error (one));
    TEST_CHECK (memcmp (out.data, out1.data, (size_t) out.stride * dh) == 0,
        "trial %d: %d threads and 1 thread differ", trial,
        bspline_cpu_n_threads (all));
    TEST_CHECK (bspline_cpu_execute (sixteen, plan, &src, &out) == BSPLINE_OK,
        "execute: %s", bspline_cpu_last_error (sixteen));
    TEST_CHECK (memcmp (out.data, out1.data, (size_t) out.stride * dh) == 0,
        "trial %d %dx%dx%d -> %dx%d order %d %s %s: 16 threads and 1 "
        "thread differ", trial, sw, sh, channels, dw, dh, p.order,
        test_boundary_name (p.boundary), test_precision_name (p.precision));
    /* where no kernel is widened the separable plan is the interpolant at
     * the mapped pixel centres */
    if (p.antialias && (fabs (m[0]) > 1.0 || m[4] > 1.0))
      goto next;
    xy = malloc (sizeof (double) * 2 * dw * dh);
    ref = malloc (sizeof (double) * dw * dh * channels);
    for (j = 0; j < dh; j++)
      for (i = 0; i < dw; i++) {
        xy[2 * (j * dw + i)] = m[0] * (i + 0.5) + m[2];
        xy[2 * (j * dw + i) + 1] = m[4] * (j + 0.5) + m[5];
      }
    pr = p;
    pr.precision = BSPLINE_PRECISION_DOUBLE;
    bspline_cpu_sample_points (one, &pr, &src, xy, (size_t) dw * dh, ref);
    for (j = 0; j < dh; j++)
      for (i = 0; i < dw; i++)
        for (c = 0; c < channels; c++)
          err = fmax (err, fabs (test_image_get (&out, i, j, c)
                  - ref[(j * dw + i) * channels + c]));
    err /= test_signal_scale (range);
    if (p.precision == BSPLINE_PRECISION_DOUBLE) {
      TEST_CHECK (err <= 1e-12, "trial %d %dx%d -> %dx%d order %d %s: "
          "double differs from the point sampler by %.3g of the range",
          trial, sw, sh, dw, dh, p.order, test_boundary_name (p.boundary), err);
      worst_double = fmax (worst_double, err);
    } else {
      TEST_CHECK (err <= 1e-5, "trial %d %dx%d -> %dx%d order %d %s: "
          "float differs from the point sampler by %.3g of the range",
          trial, sw, sh, dw, dh, p.order, test_boundary_name (p.boundary), err);
      worst_float = fmax (worst_float, err);
    }
    checked++;
  next:
    free (xy);
    free (ref);
    bspline_plan_free (plan);
    test_image_free (&src);
    test_image_free (&out);
    test_image_free (&out1);
  }
  check_channels_split (&rng, all);
  bspline_cpu_free (all);
  bspline_cpu_free (one);
  bspline_cpu_free (sixteen);
  return test_end ("%d trials, %d against the point sampler: double max "
      "%.3g, float max %.3g of the range; all threads, 16 threads and 1 "
      "thread bit-identical", TRIALS, checked, worst_double, worst_float);
}
