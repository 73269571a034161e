/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-gpu-engine.c: the CUDA engine against the CPU double reference.
 *
 * For every order 0-11 and bicubic, every boundary, float and double,
 * random channel counts and sample types, on random images: separable
 * upscale, antialiased downscale, rotation and an antialiased perspective
 * warp.  The GPU in double must match the CPU in double to 1e-9 of the
 * signal range; the GPU in float must stay within the CPU float path's
 * tolerance of the double reference; integer outputs must match the CPU
 * engine at the same precision to one code value.  Skips (exit 77) where
 * there is no GPU. */
#include "../core/test-common.h"
#include "bspline-chain.h"
#include "bspline-cuda.h"
#include "bspline-geometry.h"
#include "bspline-stmap.h"
#include "photo.h"
#include "resample.h"

/* Tolerance of the float path against the double reference, relative to
 * the signal range (issue 2: order 3 within 2e-6, order 11 within 1e-4). */
static double
float_tolerance (int method, int order)
{
  if (method == BSPLINE_METHOD_BICUBIC || order <= 3)
    return 2e-6;
  if (order <= 6)
    return 1e-5;
  return 1e-4;
}

/* Largest difference between two images of the same size (NaN counts as
 * infinite). */
static double
max_difference (const bspline_image * a, const bspline_image * b)
{
  double worst = 0.0;
  int x, y, c;
  for (y = 0; y < a->height; y++)
    for (x = 0; x < a->width; x++)
      for (c = 0; c < a->channels; c++) {
        double d = fabs (test_image_get (a, x, y, c)
            - test_image_get (b, x, y, c));
        if (!(d <= worst))
          worst = isnan (d) ? INFINITY : d;
      }
  return worst;
}

/* The largest difference between a and b beyond each output pixel's
 * slack (point_slack; NULL: none), in units of scale. */
static double
max_excess (const bspline_image * a, const bspline_image * b, double scale,
    const double *slack)
{
  double worst = 0.0;
  int x, y, c;
  for (y = 0; y < a->height; y++)
    for (x = 0; x < a->width; x++)
      for (c = 0; c < a->channels; c++) {
        double d = fabs (test_image_get (a, x, y, c)
            - test_image_get (b, x, y, c)) / scale
            - (slack ? slack[(size_t) y * a->width + x] : 0.0);
        if (!(d <= worst))
          worst = isnan (d) ? INFINITY : d;
      }
  return worst;
}

/* The points of a plan with lens or projection stages are computed by two
 * engines whose roundings differ (CUDA's sin, atan2, ... within 1 or 2
 * units in the last place, its fused multiply-adds): each engine's point
 * carries the rounding of the output pixel's position and of the stage's
 * steps, carried on by the stage's Jacobian J (input pixels per output
 * pixel), and of the point's own size:
 *
 *   |p_gpu - p_cpu| <= c eps Q,  Q = |x| + |y| + (dst_w + dst_h) (sx + sy)
 *
 * (sx, sy: J's rows' norms).  With every projection pair's stage compiled
 * twice, once with each libm result moved by up to 2 ulp and fused
 * multiply-adds, c stayed below 100 over 3000 random frames of this
 * test's distributions (docs/projections.md).  Q is of
 * the frame's size inside the frame, but grows without bound where the
 * point goes to infinity: a wide view of a flat input reaches 1e7 pixels
 * outside it (Q ~ 1e10).  The test's 1e-9 of the range holds where Q is
 * at most Q_0 = 4 (src_w + src_h + dst_w + dst_h) and grows with Q
 * beyond: the slack of a pixel is 1e-9 (Q / Q_0 - 1) of the range
 * (a spline's slope of up to 1e-9 / (100 eps Q_0) ~ 20 range per pixel
 * keeps within it).  At order 0, whose nearest sample jumps at a tie (an
 * integer x or y), a point within 2^-43 Q of one may take either sample:
 * its pixel is not compared.  NULL for a plan without stages. */
static double *
point_slack (const bspline_plan * plan)
{
  const int dw = plan->dst_width, dh = plan->dst_height;
  const double q0 = 4.0 * (plan->src_width + plan->src_height + dw + dh);
  const int nearest = plan->axis_x.method == BSPLINE_METHOD_BSPLINE
      && plan->axis_x.order == 0;
  double *slack;
  int i, j;

  if (plan->n_lenses == 0)
    return NULL;
  slack = malloc (sizeof (double) * dw * dh);
  for (i = 0; i < dh; i++)
    for (j = 0; j < dw; j++) {
      double x, y, sx, sy, q, reach;
      double *s = &slack[(size_t) i * dw + j];
      *s = 0.0;
      if (!bspline_stage_footprint_size (plan->inverse, plan->lens,
              plan->n_lenses, j + 0.5, i + 0.5, &x, &y, &sx, &sy))
        continue;
      q = fabs (x) + fabs (y) + (dw + dh) * (sx + sy);
      if (!isfinite (q)) {
        *s = INFINITY;
        continue;
      }
      *s = 1e-9 * fmax (0.0, q / q0 - 1.0);
      reach = ldexp (q, -43);
      if (nearest && (fabs (x - rint (x)) < reach
              || fabs (y - rint (y)) < reach))
        *s = INFINITY;
    }
  return slack;
}

/* The first few output values where a and b differ by more than tol (and
 * the pixel's slack, in units of scale, where slack is not NULL), printed
 * with the failing check (where and by how much). */
static void
print_differences_slack (const char *what, const bspline_image * a,
    const bspline_image * b, double tol, double scale, const double *slack)
{
  int x, y, c, shown = 0;
  for (y = 0; y < a->height && shown < 4; y++)
    for (x = 0; x < a->width && shown < 4; x++)
      for (c = 0; c < a->channels && shown < 4; c++) {
        const double u = test_image_get (a, x, y, c);
        const double v = test_image_get (b, x, y, c);
        const double s = slack ? slack[(size_t) y * a->width + x] : 0.0;
        if (!(fabs (u - v) <= tol + s * scale)) {
          printf ("  %s: pixel (%d, %d) channel %d: %.17g against %.17g\n",
              what, x, y, c, u, v);
          shown++;
        }
      }
}

static void
print_differences (const char *what, const bspline_image * a,
    const bspline_image * b, double tol)
{
  print_differences_slack (what, a, b, tol, 1.0, NULL);
}

typedef struct
{
  const char *name;
  int dst_w, dst_h;
  double m[9];
} test_case;

static void
make_cases (int w, int h, test_case * cases)
{
  /* separable magnification x 1.7 / x 1.3 */
  cases[0].name = "upscale";
  cases[0].dst_w = (int) (w * 1.7);
  cases[0].dst_h = (int) (h * 1.3);
  bspline_matrix_identity (cases[0].m);
  cases[0].m[0] = (double) w / cases[0].dst_w;
  cases[0].m[4] = (double) h / cases[0].dst_h;
  /* separable minification, antialiased kernels */
  cases[1].name = "downscale";
  cases[1].dst_w = w / 3 > 0 ? w / 3 : 1;
  cases[1].dst_h = h / 2 > 0 ? h / 2 : 1;
  bspline_matrix_identity (cases[1].m);
  cases[1].m[0] = (double) w / cases[1].dst_w;
  cases[1].m[4] = (double) h / cases[1].dst_h;
  /* rotation by 17 degrees about the centre, slight zoom */
  cases[2].name = "rotation";
  cases[2].dst_w = w;
  cases[2].dst_h = h;
  test_rotation_zoom (17.0 * TEST_PI / 180.0, 1.1, w, h, w, h, cases[2].m);
  /* perspective: a tilt that shrinks strongly towards the top */
  cases[3].name = "perspective";
  cases[3].dst_w = w;
  cases[3].dst_h = h;
  test_rotation_zoom (-5.0 * TEST_PI / 180.0, 0.9, w, h, w, h, cases[3].m);
  cases[3].m[7] = 0.6 / h;
  cases[3].m[8] = 1.0;
}

#define BSPLINE_CUDA_SLOTS_TESTED 3

/* Frames in flight: BSPLINE_CUDA_SLOTS_TESTED frames with different plans
 * submitted before any is finished, from pinned and pageable memory, each
 * equal to the synchronous result of its own plan. */
static void
test_in_flight (bspline_cuda * cuda, bspline_cpu * cpu, test_rng * rng)
{
  bspline_image src[BSPLINE_CUDA_SLOTS_TESTED], dst[BSPLINE_CUDA_SLOTS_TESTED];
  bspline_image ref[BSPLINE_CUDA_SLOTS_TESTED];
  bspline_plan *plan[BSPLINE_CUDA_SLOTS_TESTED];
  int slot[BSPLINE_CUDA_SLOTS_TESTED], i, x, y, c;
  char msg[256];

  for (i = 0; i < BSPLINE_CUDA_SLOTS_TESTED; i++) {
    bspline_params p;
    double m[9], range[2];
    int w = 200 + 37 * i, h = 150 - 20 * i, size;
    bspline_params_init (&p);
    p.order = 3 + 2 * i;
    test_rotation_zoom (0.1 * (i + 1), 1.0, w, h, w, h, m);
    bspline_plan_new (&p, m, w, h, w, h, 4, &plan[i], msg, sizeof (msg));
    test_image_alloc (&src[i], w, h, 4, BSPLINE_SAMPLE_U8, 0);
    test_image_alloc (&ref[i], w, h, 4, BSPLINE_SAMPLE_U8, 0);
    test_image_alloc (&dst[i], w, h, 4, BSPLINE_SAMPLE_U8, 0);
    size = (int) src[i].stride * h;
    if (i == 1) {               /* pinned source */
      void *pinned = bspline_cuda_host_alloc (size);
      free (src[i].data);
      src[i].data = pinned;
    }
    if (i == 2) {               /* pinned destination */
      void *pinned = bspline_cuda_host_alloc (size);
      free (dst[i].data);
      dst[i].data = pinned;
    }
    test_image_fill_random (&src[i], rng, 0, 0, range);
    bspline_cpu_execute (cpu, plan[i], &src[i], &ref[i]);
  }
  for (i = 0; i < BSPLINE_CUDA_SLOTS_TESTED; i++)
    TEST_CHECK (bspline_cuda_submit (cuda, plan[i], &src[i], &dst[i],
            &slot[i]) == BSPLINE_OK, "submit %d: %s", i,
        bspline_cuda_last_error (cuda));
  /* the other slots take more frames; one more than there are slots is
   * refused */
  {
    int extra[BSPLINE_CUDA_SLOTS], n = 0;
    while (n < BSPLINE_CUDA_SLOTS - BSPLINE_CUDA_SLOTS_TESTED
        && bspline_cuda_submit (cuda, plan[0], &src[0], &dst[0],
            &extra[n]) == BSPLINE_OK)
      n++;
    TEST_CHECK (n == BSPLINE_CUDA_SLOTS - BSPLINE_CUDA_SLOTS_TESTED,
        "only %d more frames in flight", n);
    TEST_CHECK (bspline_cuda_submit (cuda, plan[0], &src[0], &dst[0],
            &x) != BSPLINE_OK, "a frame beyond the slots was accepted");
    while (n > 0)
      TEST_CHECK (bspline_cuda_finish (cuda, extra[--n]) == BSPLINE_OK,
          "finish extra: %s", bspline_cuda_last_error (cuda));
  }
  for (i = 0; i < BSPLINE_CUDA_SLOTS_TESTED; i++) {
    int worst = 0;
    TEST_CHECK (bspline_cuda_finish (cuda, slot[i]) == BSPLINE_OK,
        "finish %d: %s", i, bspline_cuda_last_error (cuda));
    for (y = 0; y < dst[i].height; y++)
      for (x = 0; x < dst[i].width; x++)
        for (c = 0; c < 4; c++) {
          int d = abs ((int) test_image_get (&dst[i], x, y, c)
              - (int) test_image_get (&ref[i], x, y, c));
          worst = d > worst ? d : worst;
        }
    TEST_CHECK (worst <= 1, "frame %d in flight differs from the CPU by %d",
        i, worst);
  }
  for (i = 0; i < BSPLINE_CUDA_SLOTS_TESTED; i++) {
    if (i == 1)
      bspline_cuda_host_free (src[i].data);
    else
      test_image_free (&src[i]);
    if (i == 2)
      bspline_cuda_host_free (dst[i].data);
    else
      test_image_free (&dst[i]);
    test_image_free (&ref[i]);
    bspline_plan_free (plan[i]);
  }
  printf ("frames in flight: %d submitted before the first finish, pinned "
      "and pageable, all equal to the CPU engine\n", BSPLINE_CUDA_SLOTS_TESTED);
}

/* Frames long enough that the GPU prefilter cuts their lines into several
 * segments (128 samples or more each): the seams must not show. */
static void
test_segments (bspline_cuda * cuda, bspline_cpu * cpu, test_rng * rng)
{
  static const int orders[] = { 2, 3, 5, 11 };
  double worst = 0.0;
  int o, boundary;

  for (o = 0; o < 4; o++)
    for (boundary = 0; boundary < 5; boundary++) {
      int w = test_rng_int (rng, 300, 900), h = test_rng_int (rng, 300, 700);
      int channels = test_rng_int (rng, 1, 4);
      bspline_image src, ref, gpu;
      bspline_params p;
      bspline_plan *plan = NULL;
      double m[9], range[2], err;
      char msg[256];

      bspline_params_init (&p);
      p.order = orders[o];
      p.boundary = (bspline_boundary) boundary;
      p.precision = BSPLINE_PRECISION_DOUBLE;
      p.fill[0] = 0.5;
      test_rotation_zoom (0.3, 1.2, w, h, w, h, m);
      test_image_alloc (&src, w, h, channels, BSPLINE_SAMPLE_F32, 0);
      test_image_alloc (&ref, w, h, channels, BSPLINE_SAMPLE_F64, 0);
      test_image_alloc (&gpu, w, h, channels, BSPLINE_SAMPLE_F64, 0);
      test_image_fill_random (&src, rng, 0.0, 1.0, range);
      bspline_plan_new (&p, m, w, h, w, h, channels, &plan, msg, sizeof (msg));
      bspline_cpu_execute (cpu, plan, &src, &ref);
      TEST_CHECK (bspline_cuda_execute (cuda, plan, &src, &gpu) == BSPLINE_OK,
          "cuda: %s", bspline_cuda_last_error (cuda));
      err = max_difference (&gpu, &ref) / test_signal_scale (range);
      TEST_CHECK (err <= 1e-9, "segments: order %d %s %dx%dx%d: GPU double "
          "differs from CPU double by %.3g of the range", orders[o],
          test_boundary_name (boundary), w, h, channels, err);
      worst = fmax (worst, err);
      bspline_plan_free (plan);
      test_image_free (&src);
      test_image_free (&ref);
      test_image_free (&gpu);
    }
  printf ("segmented prefilter: 20 frames of 300-900 px, orders 2, 3, 5, "
      "11, every boundary: GPU double vs CPU double max %.3g of the "
      "range\n", worst);
}

/* Float frames of several prefilter windows in each direction (the
 * register windows of orders 2-3, 36-46 interior samples; the scan and
 * tiled windows of orders 4-11, 64 or 128 interior samples, halos up to
 * 125 at order 11): GPU float against CPU double, every order from 2 and
 * every boundary. */
static void
test_tiled (bspline_cuda * cuda, bspline_cpu * cpu, test_rng * rng)
{
  double worst = 0.0;
  int order, boundary;

  for (order = 2; order <= BSPLINE_MAX_ORDER; order++)
    for (boundary = 0; boundary < 5; boundary++) {
      int w = test_rng_int (rng, 130, 330), h = test_rng_int (rng, 130, 330);
      int channels = test_rng_int (rng, 1, 4);
      bspline_image src, ref, gpu, cpu_f;
      bspline_params p;
      bspline_plan *plan_d = NULL, *plan_f = NULL;
      double m[9], range[2], err, err_cpu, tol;
      char msg[256];

      bspline_params_init (&p);
      p.order = order;
      p.boundary = (bspline_boundary) boundary;
      p.fill[0] = p.fill[1] = p.fill[2] = p.fill[3] = 0.25;
      test_rotation_zoom (0.3, 1.2, w, h, w, h, m);
      test_image_alloc (&src, w, h, channels, BSPLINE_SAMPLE_F32, 0);
      test_image_alloc (&ref, w, h, channels, BSPLINE_SAMPLE_F64, 0);
      test_image_alloc (&cpu_f, w, h, channels, BSPLINE_SAMPLE_F64, 0);
      test_image_alloc (&gpu, w, h, channels, BSPLINE_SAMPLE_F64, 0);
      test_image_fill_random (&src, rng, -1.0, 1.0, range);
      p.precision = BSPLINE_PRECISION_DOUBLE;
      bspline_plan_new (&p, m, w, h, w, h, channels, &plan_d, msg,
          sizeof (msg));
      p.precision = BSPLINE_PRECISION_FLOAT;
      bspline_plan_new (&p, m, w, h, w, h, channels, &plan_f, msg,
          sizeof (msg));
      bspline_cpu_execute (cpu, plan_d, &src, &ref);
      bspline_cpu_execute (cpu, plan_f, &src, &cpu_f);
      TEST_CHECK (bspline_cuda_execute (cuda, plan_f, &src, &gpu) ==
          BSPLINE_OK, "cuda: %s", bspline_cuda_last_error (cuda));
      err = max_difference (&gpu, &ref) / test_signal_scale (range);
      err_cpu = max_difference (&cpu_f, &ref) / test_signal_scale (range);
      tol = fmax (float_tolerance (0, order), 1.5 * err_cpu);
      TEST_CHECK (err <= tol, "tiled: order %d %s %dx%dx%d: GPU float "
          "differs from CPU double by %.3g of the range (tolerance %.3g)",
          order, test_boundary_name (boundary), w, h, channels, err, tol);
      worst = fmax (worst, err / tol);
      bspline_plan_free (plan_d);
      bspline_plan_free (plan_f);
      test_image_free (&src);
      test_image_free (&ref);
      test_image_free (&cpu_f);
      test_image_free (&gpu);
    }
  printf ("tiled prefilter: 50 float frames of 130-330 px, orders 2-11, "
      "every boundary: GPU float at most %.2f of its tolerance\n", worst);
}

/* The fused separable passes (docs/gpu.md): frames of several windows
 * each way, upscales, antialiased downscales, flips and sub-pixel shifts,
 * every boundary, orders with a prefilter, 1-4 channels.  Orders 2 and 3
 * must take the fused passes on every device (their windows fit 64 KB of
 * shared memory); the higher orders take the planes (measured faster),
 * and are here as the comparison.  GPU float
 * against CPU double (F32 or U8 source, F64 output), and U8 output
 * against the CPU float engine within one code value. */
static void
test_fused (bspline_cuda * cuda, bspline_cpu * cpu, test_rng * rng)
{
  static const int orders[] = { 2, 3, 4, 5, 7, 9, 11 };
  double worst = 0.0;
  int o, boundary, kind, runs = 0, worst_int = 0, fused = 0;

  for (o = 0; o < 7; o++)
    for (boundary = 0; boundary < 5; boundary++)
      for (kind = 0; kind < 3; kind++) {
        int w = test_rng_int (rng, 150, 600), h = test_rng_int (rng, 140, 400);
        int channels = test_rng_int (rng, 1, 4);
        int u8 = test_rng_int (rng, 0, 1), dw, dh, c, d_int;
        bspline_image src, ref, gpu, cpu_f, cpu_int, gpu_int;
        bspline_params p;
        bspline_plan *plan_d = NULL, *plan_f = NULL;
        double m[9], range[2], err, err_cpu, tol;
        char msg[256];

        bspline_matrix_identity (m);
        if (kind == 0) {        /* upscale */
          dw = (int) (w * test_rng_range (rng, 1.3, 2.2));
          dh = (int) (h * test_rng_range (rng, 1.1, 2.0));
          m[0] = (double) w / dw;
          m[4] = (double) h / dh;
        } else if (kind == 1) { /* antialiased shrink along x, flipped */
          dw = (int) (w / test_rng_range (rng, 1.4, 2.5));
          dh = (int) (h * test_rng_range (rng, 1.0, 1.6));
          m[0] = -(double) w / dw;
          m[2] = w;
          m[4] = (double) h / dh;
        } else {                /* sub-pixel shift, flipped along y */
          dw = w;
          dh = h;
          m[2] = test_rng_range (rng, -3.0, 3.0);
          m[4] = -1.0;
          m[5] = h + test_rng_range (rng, -3.0, 3.0);
        }
        bspline_params_init (&p);
        p.order = orders[o];
        p.boundary = (bspline_boundary) boundary;
        /* the widened kernels: the least-squares reduction runs two plans
         * (test_reduction) */
        p.antialias = BSPLINE_ANTIALIAS_WIDEN;
        for (c = 0; c < 4; c++)
          p.fill[c] = test_rng_range (rng, 0.0, u8 ? 255.0 : 1.0);
        test_image_alloc (&src, w, h, channels, u8 ? BSPLINE_SAMPLE_U8 :
            BSPLINE_SAMPLE_F32, test_rng_int (rng, 0, 7));
        test_image_alloc (&ref, dw, dh, channels, BSPLINE_SAMPLE_F64, 0);
        test_image_alloc (&cpu_f, dw, dh, channels, BSPLINE_SAMPLE_F64, 0);
        test_image_alloc (&gpu, dw, dh, channels, BSPLINE_SAMPLE_F64, 3);
        test_image_alloc (&cpu_int, dw, dh, channels, BSPLINE_SAMPLE_U8, 0);
        test_image_alloc (&gpu_int, dw, dh, channels, BSPLINE_SAMPLE_U8, 5);
        test_image_fill_random (&src, rng, 0.0, u8 ? 255.0 : 1.0, range);
        p.precision = BSPLINE_PRECISION_DOUBLE;
        bspline_plan_new (&p, m, w, h, dw, dh, channels, &plan_d, msg,
            sizeof (msg));
        p.precision = BSPLINE_PRECISION_FLOAT;
        if (bspline_plan_new (&p, m, w, h, dw, dh, channels, &plan_f, msg,
                sizeof (msg)) != BSPLINE_OK || !plan_d) {
          TEST_CHECK (0, "fused: plan: %s", msg);
          goto next;
        }
        if (bspline_cuda_plan_fused (cuda, plan_f))
          fused++;
        else
          TEST_CHECK (orders[o] > 3, "fused: order %d %s kind %d %dx%d -> "
              "%dx%d: the plan does not take the fused passes", orders[o],
              test_boundary_name (boundary), kind, w, h, dw, dh);
        bspline_cpu_execute (cpu, plan_d, &src, &ref);
        bspline_cpu_execute (cpu, plan_f, &src, &cpu_f);
        memset (gpu.data, 0xff, (size_t) gpu.stride * gpu.height);
        if (bspline_cuda_execute (cuda, plan_f, &src, &gpu) != BSPLINE_OK) {
          TEST_CHECK (0, "fused: cuda: %s", bspline_cuda_last_error (cuda));
          goto next;
        }
        err = max_difference (&gpu, &ref) / test_signal_scale (range);
        err_cpu = max_difference (&cpu_f, &ref) / test_signal_scale (range);
        tol = fmax (float_tolerance (0, orders[o]), 1.5 * err_cpu);
        if (err > tol) {
          print_differences ("fused: GPU float vs CPU double", &gpu, &ref,
              tol * test_signal_scale (range));
          /* the CPU float path's largest differences, for comparison */
          print_differences ("fused: CPU float vs CPU double", &cpu_f, &ref,
              0.9 * err_cpu * test_signal_scale (range));
        }
        TEST_CHECK (err <= tol, "fused: order %d %s kind %d %dx%dx%d %s -> "
            "%dx%d: GPU float differs from CPU double by %.3g of the range "
            "(tolerance %.3g)", orders[o], test_boundary_name (boundary),
            kind, w, h, channels, u8 ? "U8" : "F32", dw, dh, err, tol);
        worst = fmax (worst, err / tol);
        bspline_cpu_execute (cpu, plan_f, &src, &cpu_int);
        if (bspline_cuda_execute (cuda, plan_f, &src, &gpu_int) != BSPLINE_OK)
          TEST_CHECK (0, "fused: cuda u8: %s", bspline_cuda_last_error (cuda));
        d_int = (int) max_difference (&gpu_int, &cpu_int);
        TEST_CHECK (d_int <= 1, "fused: order %d %s kind %d: U8 output "
            "differs from the CPU engine by %d code values", orders[o],
            test_boundary_name (boundary), kind, d_int);
        worst_int = d_int > worst_int ? d_int : worst_int;
        runs++;
      next:
        bspline_plan_free (plan_d);
        bspline_plan_free (plan_f);
        test_image_free (&src);
        test_image_free (&ref);
        test_image_free (&cpu_f);
        test_image_free (&gpu);
        test_image_free (&cpu_int);
        test_image_free (&gpu_int);
      }
  printf ("fused separable passes: %d frames of 140-600 px (upscales, "
      "antialiased shrinks, flips, shifts), orders 2-11, every boundary, "
      "%d of them fused: GPU float at most %.2f of its tolerance, U8 within "
      "%d code value(s) of the CPU\n", runs, fused, worst, worst_int);
}

/* Worst figures of compare_plans over a test's frames. */
typedef struct
{
  double d, f;                  /* double: of the range; float: of tol */
  int u8;                       /* code values */
  int runs;
} plan_worst;

/* One frame through a double and a float plan of the same geometry: the
 * GPU in double against the CPU in double (1e-9 of the range), the GPU in
 * float against the CPU double within float_factor times the CPU float
 * path's own error (at least float_tolerance of the order), and 8-bit
 * outputs within one code value of the CPU engine's, each beyond the
 * slack of a stage's ill-conditioned points (point_slack); w x h: the
 * plans' output; `what` names the frame in a failure. */
static void
compare_plans (bspline_cuda * cuda, bspline_cpu * cpu,
    const bspline_plan * plan_d, const bspline_plan * plan_f,
    const bspline_image * src, int w, int h, const double range[2],
    int order, double float_factor, const char *what, plan_worst * worst)
{
  const int channels = src->channels;
  const double scale = test_signal_scale (range);
  double *slack = point_slack (plan_d);
  bspline_image ref, gpu, cpu_f, cpu_int, gpu_int;
  double err_d, err, err_cpu, tol;
  int d_int;

  test_image_alloc (&ref, w, h, channels, BSPLINE_SAMPLE_F64, 0);
  test_image_alloc (&cpu_f, w, h, channels, BSPLINE_SAMPLE_F64, 0);
  test_image_alloc (&gpu, w, h, channels, BSPLINE_SAMPLE_F64, 3);
  test_image_alloc (&cpu_int, w, h, channels, BSPLINE_SAMPLE_U8, 0);
  test_image_alloc (&gpu_int, w, h, channels, BSPLINE_SAMPLE_U8, 5);
  bspline_cpu_execute (cpu, plan_d, src, &ref);
  bspline_cpu_execute (cpu, plan_f, src, &cpu_f);
  memset (gpu.data, 0xff, (size_t) gpu.stride * gpu.height);
  if (bspline_cuda_execute (cuda, plan_d, src, &gpu) != BSPLINE_OK) {
    TEST_CHECK (0, "%s: cuda double: %s", what, bspline_cuda_last_error (cuda));
    goto done;
  }
  err_d = max_excess (&gpu, &ref, scale, slack);
  if (err_d > 1e-9) {
    int x, y, c, shown = 0;
    print_differences_slack ("GPU double vs CPU double", &gpu, &ref,
        1e-9 * scale, scale, slack);
    /* where the first such pixel samples (a tie of order 0, a fold) */
    for (y = 0; y < h && !shown; y++)
      for (x = 0; x < w && !shown; x++)
        for (c = 0; c < channels && !shown; c++)
          if (!(fabs (test_image_get (&gpu, x, y, c) - test_image_get (&ref,
                          x, y, c)) <= (1e-9 + (slack ? slack[(size_t) y
                              * w + x] : 0.0)) * scale)) {
            double px = NAN, py = NAN;
            int found = bspline_plan_map_point (plan_d, x + 0.5, y + 0.5,
                &px, &py);
            printf ("  output pixel (%d, %d) samples input point (%.17g, "
                "%.17g) (found %d)\n", x, y, px, py, found);
            shown = 1;
          }
  }
  TEST_CHECK (err_d <= 1e-9, "%s: GPU double differs from CPU double by "
      "%.3g of the range", what, err_d);
  memset (gpu.data, 0xff, (size_t) gpu.stride * gpu.height);
  if (bspline_cuda_execute (cuda, plan_f, src, &gpu) != BSPLINE_OK) {
    TEST_CHECK (0, "%s: cuda float: %s", what, bspline_cuda_last_error (cuda));
    goto done;
  }
  err = max_excess (&gpu, &ref, scale, slack);
  err_cpu = max_difference (&cpu_f, &ref) / scale;
  tol = fmax (float_tolerance (0, order), float_factor * err_cpu);
  if (err > tol)
    print_differences_slack ("GPU float vs CPU double", &gpu, &ref,
        tol * scale, scale, slack);
  TEST_CHECK (err <= tol, "%s: GPU float differs from CPU double by %.3g of "
      "the range (tolerance %.3g)", what, err, tol);
  bspline_cpu_execute (cpu, plan_f, src, &cpu_int);
  if (bspline_cuda_execute (cuda, plan_f, src, &gpu_int) != BSPLINE_OK)
    TEST_CHECK (0, "%s: cuda u8: %s", what, bspline_cuda_last_error (cuda));
  /* code values beyond the slack (whole where there is none) */
  d_int = (int) ceil (max_excess (&gpu_int, &cpu_int, scale, slack) * scale
      - 1e-6);
  TEST_CHECK (d_int <= 1, "%s: U8 output differs from the CPU engine by %d "
      "code values", what, d_int);
  /* a plan with a lens or STMap stage runs from the slot's lens table from
   * its second run on (the U8 run above made it): the float output again,
   * its points now within 2^-21 pixel of the stage's */
  memset (gpu.data, 0xff, (size_t) gpu.stride * gpu.height);
  if (bspline_cuda_execute (cuda, plan_f, src, &gpu) != BSPLINE_OK) {
    TEST_CHECK (0, "%s: cuda float again: %s", what,
        bspline_cuda_last_error (cuda));
    goto done;
  }
  err = fmax (err, max_excess (&gpu, &ref, scale, slack));
  TEST_CHECK (err <= tol, "%s: GPU float, run again, differs from CPU double "
      "by %.3g of the range (tolerance %.3g)", what, err, tol);
  worst->d = fmax (worst->d, err_d);
  worst->f = fmax (worst->f, err / tol);
  worst->u8 = d_int > worst->u8 ? d_int : worst->u8;
  worst->runs++;
done:
  free (slack);
  test_image_free (&ref);
  test_image_free (&cpu_f);
  test_image_free (&gpu);
  test_image_free (&cpu_int);
  test_image_free (&gpu_int);
}

/* A reduction's double and float plans of p's geometry m (src ->
 * dw x dh) through compare_plans, the float path's tolerance doubled (the
 * chain b^n / b^(2n+1) amplifies rounding near the Nyquist frequency:
 * tests/core/test-float-vs-double.c); fold: the float plan must run
 * folded and the double one not (0: either).  Returns whether the float
 * plan ran folded. */
static int
compare_reduction (bspline_cuda * cuda, bspline_cpu * cpu, bspline_params p,
    const double m[9], const bspline_image * src, int dw, int dh,
    const double range[2], const char *what, int fold, plan_worst * worst)
{
  bspline_plan *plan_d = NULL, *plan_f = NULL;
  char msg[256];
  int folded = 0;

  p.precision = BSPLINE_PRECISION_DOUBLE;
  bspline_plan_new (&p, m, src->width, src->height, dw, dh, src->channels,
      &plan_d, msg, sizeof (msg));
  p.precision = BSPLINE_PRECISION_FLOAT;
  if (bspline_plan_new (&p, m, src->width, src->height, dw, dh,
          src->channels, &plan_f, msg, sizeof (msg)) != BSPLINE_OK || !plan_d)
    TEST_CHECK (0, "%s: plan: %s", what, msg);
  else {
    folded = bspline_cuda_plan_folded (cuda, plan_f);
    if (fold) {
      TEST_CHECK (folded, "%s: not run folded", what);
      TEST_CHECK (!bspline_cuda_plan_folded (cuda, plan_d), "%s: the double "
          "plan folded", what);
    }
    compare_plans (cuda, cpu, plan_d, plan_f, src, dw, dh, range, p.order,
        2.0, what, worst);
  }
  bspline_plan_free (plan_d);
  bspline_plan_free (plan_f);
  return folded;
}

/* The least-squares reduction (core/resample/reduce.c: two plans through an
 * intermediate plane, the Gram prefilter of degree 2n + 1 along the
 * reduced axes only): orders 0-11, every boundary, both axes reduced,
 * x alone (y enlarged, flipped) or y alone, ratios 1.2-3.5, and the
 * warps that shrink (a rotation with zoom 0.3-0.8, a perspective: the
 * warp onto the fine grid, then the reduction), 1-4 channels.  GPU
 * double equals CPU double within 1e-9 of the range, GPU float within
 * the float path's tolerance of it (or 2 x the CPU float path's own
 * error), 8-bit outputs within one code value of the CPU. */
static void
test_reduction (bspline_cuda * cuda, bspline_cpu * cpu, test_rng * rng)
{
  plan_worst worst = { 0 };
  int order, boundary, kind;

  for (order = 0; order <= BSPLINE_MAX_ORDER; order++)
    for (boundary = 0; boundary < 5; boundary++)
      for (kind = 0; kind < 5; kind++) {
        int w = test_rng_int (rng, 20, 300), h = test_rng_int (rng, 20, 200);
        int channels = test_rng_int (rng, 1, 4), dw, dh, c;
        double rx = test_rng_range (rng, 1.2, 3.5);
        double ry = test_rng_range (rng, 1.2, 3.5);
        bspline_image src;
        bspline_params p;
        double m[9], range[2];
        char what[160];

        bspline_matrix_identity (m);
        dw = (int) (w / rx) + 1;
        dh = (int) (h / ry) + 1;
        if (kind == 1) {        /* x reduced, y enlarged and flipped */
          dh = (int) (h * test_rng_range (rng, 1.0, 1.5));
          m[4] = -(double) h / dh;
          m[5] = h;
        } else if (kind == 2) { /* y reduced, x shifted */
          dw = w;
          m[2] = test_rng_range (rng, -2.0, 2.0);
        }
        if (kind != 2)
          m[0] = (double) w / dw;
        if (kind != 1)
          m[4] = (double) h / dh;
        if (kind == 3) {        /* rotation with zoom < 1: a warp onto the
                                 * fine grid, then the reduction */
          dw = w;
          dh = h;
          test_rotation_zoom (test_rng_range (rng, -3.0, 3.0),
              test_rng_range (rng, 0.3, 0.8), w, h, dw, dh, m);
        } else if (kind == 4) { /* a shrinking perspective, no horizon */
          test_rotation_zoom (test_rng_range (rng, -0.5, 0.5),
              test_rng_range (rng, 0.4, 0.7), w, h, dw, dh, m);
          m[6] = test_rng_range (rng, -0.3, 0.3) / w;
          m[7] = test_rng_range (rng, -0.3, 0.3) / h;
          m[8] = 1.0 - 0.5 * (m[6] * dw + m[7] * dh);
        }
        bspline_params_init (&p);
        p.order = order;
        p.boundary = (bspline_boundary) boundary;
        for (c = 0; c < 4; c++)
          p.fill[c] = test_rng_range (rng, 0.0, 255.0);
        test_image_alloc (&src, w, h, channels, BSPLINE_SAMPLE_U8,
            test_rng_int (rng, 0, 7));
        test_image_fill_random (&src, rng, 0.0, 255.0, range);
        snprintf (what, sizeof (what), "reduction: order %d %s kind %d "
            "%dx%dx%d -> %dx%d", order, test_boundary_name (boundary), kind,
            w, h, channels, dw, dh);
        compare_reduction (cuda, cpu, p, m, &src, dw, dh, range, what, 0,
            &worst);
        test_image_free (&src);
      }
  printf ("least-squares reduction: %d frames (orders 0-11, every boundary, "
      "both axes / x / y reduced, rotations with zoom < 1, perspective "
      "shrinks): GPU double within %.3g of the range, GPU "
      "float at most %.2f of its tolerance, U8 within %d code value(s)\n",
      worst.runs, worst.d, worst.f, worst.u8);
}

/* The folded reduction (fold.cu): both axes shrunk at ratios p / q the
 * fold takes (2, 3, 4, 3/2, 5/2, 4/3, 5/3, 7/4), orders 0-5, the
 * boundaries it takes (reflect, mirror, wrap), 1-4 channels, 8- and
 * 10-bit sources, offsets, sizes down to a 1-pixel output, each frame
 * checked to run folded (bspline_cuda_plan_folded) and compared as the
 * reduction's (compare_plans, twice the CPU float path's own error: the
 * CPU engine folds these too); BSPLINE_CUDA_FOLD=0 would run them as two
 * plans. */
static void
test_fold (bspline_cuda * cuda, bspline_cpu * cpu, test_rng * rng,
    int max_order)
{
  static const int ratio[][2] = { {2, 1}, {3, 1}, {4, 1}, {3, 2}, {5, 2},
  {4, 3}, {5, 3}, {7, 4}
  };
  static const bspline_boundary boundaries[] = { BSPLINE_BOUNDARY_REFLECT,
    BSPLINE_BOUNDARY_MIRROR, BSPLINE_BOUNDARY_WRAP
  };
  plan_worst worst = { 0 };
  int order, b, k, folded = 0;

  for (order = 0; order <= max_order; order++)
    for (b = 0; b < 3; b++)
      for (k = 0; k < 4; k++) {
        const int *rx = ratio[test_rng_int (rng, 0, 7)];
        const int *ry = ratio[test_rng_int (rng, 0, 7)];
        /* outputs of 1 to 120 pixels, the source their multiple */
        const int dw = k == 0 ? test_rng_int (rng, 1, 3)
            : test_rng_int (rng, 4, 120) / rx[1] * rx[1] + rx[1];
        const int dh = k == 1 ? test_rng_int (rng, 1, 3)
            : test_rng_int (rng, 4, 90) / ry[1] * ry[1] + ry[1];
        const int w = dw * rx[0] / rx[1], h = dh * ry[0] / ry[1];
        const int channels = test_rng_int (rng, 1, 4);
        const bspline_sample_type type = k == 3 ? BSPLINE_SAMPLE_U16 :
            BSPLINE_SAMPLE_U8;
        bspline_image src;
        bspline_params p;
        double m[9], range[2];
        char what[200];
        int c;

        bspline_matrix_identity (m);
        m[0] = (double) rx[0] / rx[1];
        m[4] = (double) ry[0] / ry[1];
        if (k == 2) {           /* offsets: the tables' origins move */
          m[2] = test_rng_range (rng, -3.0, 3.0);
          m[5] = test_rng_range (rng, -3.0, 3.0);
        }
        bspline_params_init (&p);
        p.order = order;
        p.boundary = boundaries[b];
        for (c = 0; c < 4; c++)
          p.fill[c] = test_rng_range (rng, 0.0, 255.0);
        test_image_alloc (&src, w, h, channels, type,
            test_rng_int (rng, 0, 7));
        if (type == BSPLINE_SAMPLE_U16)
          src.bits = 10;
        test_image_fill_random (&src, rng, 0.0, type == BSPLINE_SAMPLE_U16 ?
            1023.0 : 255.0, range);
        snprintf (what, sizeof (what), "fold: order %d %s %dx%dx%d%s -> "
            "%dx%d (%d/%d, %d/%d) offset (%.3f, %.3f)", order,
            test_boundary_name (p.boundary), w, h, channels,
            type == BSPLINE_SAMPLE_U16 ? " (10 bits)" : "", dw, dh, rx[0],
            rx[1], ry[0], ry[1], m[2], m[5]);
        folded += compare_reduction (cuda, cpu, p, m, &src, dw, dh, range,
            what, 1, &worst);
        test_image_free (&src);
      }
  printf ("folded reduction: %d frames (%d folded; orders 0-%d, reflect, "
      "mirror, wrap, ratios 4/3 to 4): GPU float at most %.2f of its "
      "tolerance, U8 within %d code value(s)\n", worst.runs, folded,
      max_order, worst.f, worst.u8);
}

/* The folded reduction with the device failing (BSPLINE_CUDA_FAULT=
 * KIND:N, N = 1 .. 32: each allocation, copy and launch of a fresh
 * engine's first frame in turn): each failure fails the frame with the
 * injected CUDA error, never a crash, and some of them are the fold's own
 * (its tables, its launches); then a frame without faults is the CPU
 * engine's within one code value. */
static void
fold_faults (bspline_cuda * cuda, bspline_cpu * cpu, test_rng * rng)
{
  static const char *kinds[] = { "alloc", "copy", "launch" };
  static const char *errors[] = { "cudaErrorMemoryAllocation",
    "cudaErrorUnknown", "cudaErrorLaunchFailure"
  };
  static const char *fold_calls[] = { "&fc->data", "fold->", "fold_run" };
  bspline_params p;
  bspline_plan *plan = NULL;
  bspline_image src, dst, ref;
  double m[9], range[2];
  char msg[256], fault[32];
  int kind, n, x, y, c, failed = 0, own = 0, worst = 0;

  bspline_params_init (&p);
  p.precision = BSPLINE_PRECISION_FLOAT;
  bspline_matrix_identity (m);
  m[0] = m[4] = 2.0;
  if (bspline_plan_new (&p, m, 64, 48, 32, 24, 4, &plan, msg,
          sizeof (msg)) != BSPLINE_OK) {
    TEST_CHECK (0, "fold faults: plan: %s", msg);
    return;
  }
  TEST_CHECK (bspline_cuda_plan_folded (cuda, plan), "fold faults: the "
      "plan does not fold");
  test_image_alloc (&src, 64, 48, 4, BSPLINE_SAMPLE_U8, 0);
  test_image_alloc (&dst, 32, 24, 4, BSPLINE_SAMPLE_U8, 0);
  test_image_alloc (&ref, 32, 24, 4, BSPLINE_SAMPLE_U8, 0);
  test_image_fill_random (&src, rng, 0.0, 255.0, range);
  for (kind = 0; kind < 3; kind++)
    for (n = 1; n <= 32; n++) {
      bspline_cuda *faulty;
      const char *err;
      snprintf (fault, sizeof (fault), "%s:%d", kinds[kind], n);
      setenv ("BSPLINE_CUDA_FAULT", fault, 1);
      if (bspline_cuda_new (-1, &faulty, msg, sizeof (msg)) != BSPLINE_OK) {
        TEST_CHECK (strstr (msg, errors[kind]) != NULL, "fold faults, %s: "
            "engine: %s", fault, msg);
        continue;
      }
      if (bspline_cuda_execute (faulty, plan, &src, &dst) == BSPLINE_OK) {
        bspline_cuda_free (faulty);
        continue;
      }
      err = bspline_cuda_last_error (faulty);
      failed++;
      TEST_CHECK (strstr (err, errors[kind]) != NULL, "fold faults, %s: "
          "\"%s\"", fault, err);
      own += strstr (err, fold_calls[kind]) != NULL;
      bspline_cuda_free (faulty);
    }
  unsetenv ("BSPLINE_CUDA_FAULT");
  TEST_CHECK (own >= 3, "fold faults: %d of %d failures in the fold's own "
      "calls (its tables' allocation, their copies, its launch)", own,
      failed);
  if (bspline_cuda_execute (cuda, plan, &src, &dst) != BSPLINE_OK)
    TEST_CHECK (0, "fold faults: the frame without faults: %s",
        bspline_cuda_last_error (cuda));
  bspline_cpu_execute (cpu, plan, &src, &ref);
  for (y = 0; y < 24; y++)
    for (x = 0; x < 32; x++)
      for (c = 0; c < 4; c++) {
        const int d = abs ((int) test_image_get (&dst, x, y, c)
            - (int) test_image_get (&ref, x, y, c));
        worst = d > worst ? d : worst;
      }
  TEST_CHECK (worst <= 1, "fold faults: the frame without faults differs "
      "from the CPU engine's by %d code values", worst);
  printf ("folded reduction, device failures: %d allocations, copies and "
      "launches failed in turn, each an error (%d in the fold's own "
      "calls); then within %d code value of the CPU\n", failed, own, worst);
  bspline_plan_free (plan);
  test_image_free (&src);
  test_image_free (&dst);
  test_image_free (&ref);
}

/* Lens stages (issue 22): brown and fisheye models, undistort and
 * distort, antialiased (the chain's Jacobian per pixel) or not, every
 * order and boundary, through the geometry as the element builds it: the
 * GPU against the CPU double reference, as for the other warps. */
/* One frame of a geometry with a lens or STMap stage (luma grid): its
 * double and float plans through compare_plans; a plan refused with a
 * message containing `tolerated` (NULL: none) is skipped. */
static void
compare_stage (bspline_cuda * cuda, bspline_cpu * cpu,
    const bspline_geometry * g, bspline_params p, const bspline_image * src,
    const double range[2], const char *tolerated, const char *what,
    plan_worst * worst)
{
  bspline_plane_grid grid = { 1, 1, 0.0, 0.0 };
  bspline_plan *plan_d = NULL, *plan_f = NULL;
  bspline_lens lens;
  double m[9];
  char msg[256];

  if (bspline_geometry_plane_map (g, &grid, m, &lens, msg,
          sizeof (msg)) != BSPLINE_OK) {
    TEST_CHECK (0, "%s: geometry: %s", what, msg);
    return;
  }
  p.precision = BSPLINE_PRECISION_DOUBLE;
  bspline_plan_new_lens (&p, m, &lens, g->src_width, g->src_height,
      g->dst_width, g->dst_height, src->channels, &plan_d, msg, sizeof (msg));
  p.precision = BSPLINE_PRECISION_FLOAT;
  if (bspline_plan_new_lens (&p, m, &lens, g->src_width, g->src_height,
          g->dst_width, g->dst_height, src->channels, &plan_f, msg,
          sizeof (msg)) != BSPLINE_OK || !plan_d) {
    TEST_CHECK (tolerated && strstr (msg, tolerated), "%s: plan: %s", what,
        msg);
  } else
    compare_plans (cuda, cpu, plan_d, plan_f, src, g->dst_width,
        g->dst_height, range, p.order, 1.5, what, worst);
  bspline_plan_free (plan_d);
  bspline_plan_free (plan_f);
}

static void
test_lens (bspline_cuda * cuda, bspline_cpu * cpu, test_rng * rng)
{
  plan_worst worst = { 0 };
  int order, boundary, variant;

  for (order = 0; order <= BSPLINE_MAX_ORDER; order++)
    for (boundary = 0; boundary < 5; boundary++)
      for (variant = 0; variant < 4; variant++) {
        int w = test_rng_int (rng, 24, 260), h = test_rng_int (rng, 24, 200);
        int channels = test_rng_int (rng, 1, 4), c;
        int fisheye = variant & 1, distort = (variant >> 1) & 1;
        bspline_geometry g;
        bspline_image src;
        bspline_params p;
        double range[2];
        char what[160];

        bspline_geometry_init (&g, w, h, w, h);
        g.lens_model = fisheye ? BSPLINE_LENS_FISHEYE : BSPLINE_LENS_BROWN;
        g.lens_distort = distort;
        /* the fisheye's focal length from the larger side: its image
         * circle (theta = 90 degrees) outside the frame, where the
         * undistorted radius tan (theta) grows without bound and the
         * point is ill-conditioned (a narrow frame measured from its
         * width put it inside: the engines' roundings of theta then moved
         * points 1e5 pixels away by 1e-7 of a pixel) */
        g.camera[0] = test_rng_range (rng, 0.5, 1.0) * (fisheye && h > w ?
            h : w);
        g.camera[1] = g.camera[0] * test_rng_range (rng, 0.95, 1.05);
        g.camera[2] = 0.5 * w - 0.5 + test_rng_range (rng, -3.0, 3.0);
        g.camera[3] = 0.5 * h - 0.5 + test_rng_range (rng, -3.0, 3.0);
        if (fisheye) {
          g.n_distortion = 4;
          for (c = 0; c < 4; c++)
            g.distortion[c] = test_rng_range (rng, -0.02, 0.02);
        } else {
          g.n_distortion = 5;
          g.distortion[0] = test_rng_range (rng, -0.25, 0.1);
          g.distortion[1] = test_rng_range (rng, -0.02, 0.05);
          g.distortion[2] = test_rng_range (rng, -0.002, 0.002);
          g.distortion[3] = test_rng_range (rng, -0.002, 0.002);
        }
        /* the pinhole view zoomed out: its corners shrink (antialiased) */
        g.new_camera_set = 1;
        g.new_camera[0] = g.camera[0] * test_rng_range (rng, 0.5, 1.0);
        g.new_camera[1] = g.new_camera[0];
        g.new_camera[2] = g.camera[2];
        g.new_camera[3] = g.camera[3];
        bspline_params_init (&p);
        p.order = order;
        p.boundary = (bspline_boundary) boundary;
        p.antialias = test_rng_int (rng, 0, 1) ? BSPLINE_ANTIALIAS_NONE :
            BSPLINE_ANTIALIAS_LEAST_SQUARES;
        for (c = 0; c < 4; c++)
          p.fill[c] = test_rng_range (rng, 0.0, 255.0);
        test_image_alloc (&src, w, h, channels, BSPLINE_SAMPLE_U8,
            test_rng_int (rng, 0, 7));
        test_image_fill_random (&src, rng, 0.0, 255.0, range);
        snprintf (what, sizeof (what), "lens: order %d %s %s %s %dx%dx%d",
            order, test_boundary_name (boundary), fisheye ? "fisheye" :
            "brown", distort ? "distort" : "undistort", w, h, channels);
        /* a model that folds over inside this frame is refused: not this
         * test's concern (tests/elements/test_lens.py) */
        compare_stage (cuda, cpu, &g, p, &src, range, "folds over", what,
            &worst);
        test_image_free (&src);
      }
  TEST_CHECK (worst.runs >= 200, "lens: only %d of 240 frames ran", worst.runs);
  printf ("lens stages: %d frames (orders 0-11, every boundary, brown and "
      "fisheye, undistort and distort, antialiased or not): GPU double "
      "within %.3g of the range, GPU float at most %.2f of its tolerance, "
      "U8 within %d code value(s)\n", worst.runs, worst.d, worst.f, worst.u8);
}

/* The device out of memory for a level (BSPLINE_CUDA_FAULT=alloc:N, N =
 * 1 .. 64: each allocation of a fresh engine's first frame of a plan that
 * reads levels in turn): each failure fails the frame with CUDA's error,
 * and those of the levels' planes name them. */
static void
lens_levels_no_memory (test_rng * rng)
{
  bspline_plane_grid grid = { 1, 1, 0.0, 0.0 };
  bspline_geometry g;
  bspline_lens lens;
  bspline_params p;
  bspline_plan *plan = NULL;
  bspline_image src, dst;
  double m[9], range[2];
  char msg[256], fault[32];
  int n, failed = 0, named = 0;

  bspline_geometry_init (&g, 64, 48, 64, 48);
  g.lens_model = BSPLINE_LENS_BROWN;
  g.camera[0] = g.camera[1] = 51.2;
  g.camera[2] = 32.0;
  g.camera[3] = 24.0;
  g.distortion[0] = 0.05;
  g.n_distortion = 1;
  g.zoom = 0.25;
  bspline_params_init (&p);
  p.antialias = BSPLINE_ANTIALIAS_LEAST_SQUARES;
  p.precision = BSPLINE_PRECISION_FLOAT;
  if (bspline_geometry_plane_map (&g, &grid, m, &lens, msg,
          sizeof (msg)) != BSPLINE_OK
      || bspline_plan_new_lens (&p, m, &lens, 64, 48, 64, 48, 4, &plan, msg,
          sizeof (msg)) != BSPLINE_OK) {
    TEST_CHECK (0, "lens levels, no memory: plan: %s", msg);
    return;
  }
  test_image_alloc (&src, 64, 48, 4, BSPLINE_SAMPLE_U8, 0);
  test_image_alloc (&dst, 64, 48, 4, BSPLINE_SAMPLE_U8, 0);
  test_image_fill_random (&src, rng, 0.0, 255.0, range);
  for (n = 1; n <= 64; n++) {
    bspline_cuda *faulty;
    bspline_status st;
    snprintf (fault, sizeof (fault), "alloc:%d", n);
    setenv ("BSPLINE_CUDA_FAULT", fault, 1);
    if (bspline_cuda_new (-1, &faulty, msg, sizeof (msg)) != BSPLINE_OK) {
      TEST_CHECK (strstr (msg, "cudaErrorMemoryAllocation") != NULL,
          "lens levels, %s: engine: %s", fault, msg);
      continue;
    }
    st = bspline_cuda_execute (faulty, plan, &src, &dst);
    if (st == BSPLINE_OK) {
      bspline_cuda_free (faulty);
      continue;
    }
    failed++;
    TEST_CHECK (strstr (bspline_cuda_last_error (faulty),
            "cudaErrorMemoryAllocation") != NULL, "lens levels, %s: \"%s\"",
        fault, bspline_cuda_last_error (faulty));
    if (strstr (bspline_cuda_last_error (faulty), "level_plane_ensure"))
      named++;
    bspline_cuda_free (faulty);
  }
  unsetenv ("BSPLINE_CUDA_FAULT");
  TEST_CHECK (named >= 1, "lens levels: %d of %d failed allocations named "
      "a level's plane", named, failed);
  printf ("lens levels, no memory: %d allocations failed in turn, each an "
      "error (%d naming the level's plane)\n", failed, named);
  bspline_plan_free (plan);
  test_image_free (&src);
  test_image_free (&dst);
}

/* The levels of a lens plan's widened kernel (bspline-stage.h; issue 43,
 * defect 5): pixels shrunk more than 2 sqrt 2 times are sampled from a
 * ripmap of the coefficients (ripmap.cu on the GPU, ripmap.c on the CPU).
 * The defect's case (a brown lens, zoom 0.05, translated 1000 output
 * pixels) and a mild 4x shrink (zoom 0.25), orders 1, 3, 5 and 11,
 * reflect, mirror and constant, through compare_plans (GPU double within
 * 1e-9 of the range of the CPU double, which reads the same levels; a
 * GPU sampling level 0, its widening held to 8 as before the levels,
 * reads another kernel there).  Counts the pixels that read a level (each
 * case must have some) and the highest level read. */
static void
test_lens_levels (bspline_cuda * cuda, bspline_cpu * cpu, test_rng * rng)
{
  static const double zooms[] = { 0.05, 0.25 };
  static const double shifts[] = { 1000.0, 0.0 };
  static const int orders[] = { 1, 3, 5, 11 };
  static const bspline_boundary boundaries[] = { BSPLINE_BOUNDARY_REFLECT,
    BSPLINE_BOUNDARY_MIRROR, BSPLINE_BOUNDARY_CONSTANT
  };
  plan_worst worst = { 0 };
  long level_pixels = 0;
  int most_level = 0, z, o, b;

  for (z = 0; z < 2; z++)
    for (o = 0; o < 4; o++)
      for (b = 0; b < 3; b++) {
        const int w = test_rng_int (rng, 120, 200);
        const int h = test_rng_int (rng, 80, 140);
        const int channels = test_rng_int (rng, 1, 4);
        bspline_plane_grid grid = { 1, 1, 0.0, 0.0 };
        bspline_geometry g;
        bspline_lens lens;
        bspline_image src;
        bspline_params p;
        bspline_plan *plan = NULL;
        double m[9], range[2];
        char what[160], msg[256];
        long n = 0;
        int i, j, c;

        bspline_geometry_init (&g, w, h, w, h);
        g.lens_model = BSPLINE_LENS_BROWN;
        g.camera[0] = g.camera[1] = 0.8 * w;
        g.camera[2] = w / 2.0;
        g.camera[3] = h / 2.0;
        g.distortion[0] = 0.05;
        g.n_distortion = 1;
        g.zoom = zooms[z];
        g.translate_x = shifts[z];
        bspline_params_init (&p);
        p.order = orders[o];
        p.boundary = boundaries[b];
        p.antialias = BSPLINE_ANTIALIAS_LEAST_SQUARES;
        for (c = 0; c < 4; c++)
          p.fill[c] = test_rng_range (rng, 0.0, 255.0);
        /* the pixels that read a level, from the CPU engine's maths */
        if (bspline_geometry_plane_map (&g, &grid, m, &lens, msg,
                sizeof (msg)) != BSPLINE_OK
            || bspline_plan_new_lens (&p, m, &lens, w, h, w, h, channels,
                &plan, msg, sizeof (msg)) != BSPLINE_OK) {
          TEST_CHECK (0, "lens levels: plan: %s", msg);
          continue;
        }
        for (i = 0; i < h; i++)
          for (j = 0; j < w; j++) {
            double x, y, wx, wy, rx, ry;
            int lx, ly;
            if (!bspline_stage_footprint (plan->inverse, plan->lens,
                    plan->n_lenses, j + 0.5, i + 0.5,
                    BSPLINE_MAX_LENS_WIDENING, &x, &y, &wx, &wy))
              continue;
            bspline_lens_levels (plan, wx, wy, &lx, &ly, &rx, &ry);
            if (lx > 0 || ly > 0)
              n++;
            most_level = lx > most_level ? lx : most_level;
            most_level = ly > most_level ? ly : most_level;
          }
        bspline_plan_free (plan);
        TEST_CHECK (n > 0, "lens levels: zoom %g: no pixel reads a level",
            zooms[z]);
        level_pixels += n;
        test_image_alloc (&src, w, h, channels, BSPLINE_SAMPLE_U8,
            test_rng_int (rng, 0, 7));
        test_image_fill_random (&src, rng, 0.0, 255.0, range);
        snprintf (what, sizeof (what), "lens levels: zoom %g order %d %s "
            "%dx%dx%d (%ld pixels on levels)", zooms[z], orders[o],
            test_boundary_name (boundaries[b]), w, h, channels, n);
        compare_stage (cuda, cpu, &g, p, &src, range, NULL, what, &worst);
        test_image_free (&src);
      }
  TEST_CHECK (worst.runs == 24, "lens levels: only %d of 24 frames ran",
      worst.runs);
  lens_levels_no_memory (rng);
  printf ("lens levels: %d frames (zoom 0.05 translated and 0.25, orders "
      "1/3/5/11, reflect/mirror/constant), %ld pixels read a level (up to "
      "level %d): GPU double within %.3g of the range, GPU float at most "
      "%.2f of its tolerance, U8 within %d code value(s)\n", worst.runs,
      level_pixels, most_level, worst.d, worst.f, worst.u8);
}

/* Projection stages (issue 42): every input projection against a random
 * output one (all 15 of each over the run), a random view and fields of
 * view inside each projection's range, every order and boundary,
 * antialiased (the stage's Jacobian per pixel) or not, through the
 * geometry as the element builds it: the GPU against the CPU double
 * reference, as for the lens stages. */
static double
projection_random_fov (test_rng * rng, int type)
{
  switch (type) {
    case BSPLINE_PROJECTION_FLAT:
    case BSPLINE_PROJECTION_CYLINDRICAL:
      return test_rng_range (rng, 40.0, 150.0);
    case BSPLINE_PROJECTION_ORTHOGRAPHIC:
      return test_rng_range (rng, 60.0, 180.0);
    case BSPLINE_PROJECTION_PANNINI:
      return test_rng_range (rng, 0.1, 2.0);
    case BSPLINE_PROJECTION_EQUIRECT:
      return test_rng_range (rng, 120.0, 180.0);
    default:
      return test_rng_range (rng, 120.0, 300.0);
  }
}

static void
test_projection (bspline_cuda * cuda, bspline_cpu * cpu, test_rng * rng)
{
  plan_worst worst = { 0 };
  int order, boundary, variant;

  for (order = 0; order <= BSPLINE_MAX_ORDER; order++)
    for (boundary = 0; boundary < 5; boundary++)
      for (variant = 0; variant < 4; variant++) {
        int w = test_rng_int (rng, 24, 260), h = test_rng_int (rng, 24, 200);
        int dw = test_rng_int (rng, 24, 200), dh = test_rng_int (rng, 24, 160);
        int channels = test_rng_int (rng, 1, 4), c;
        int in =
            (order * 20 + boundary * 4 + variant) % BSPLINE_PROJECTION_COUNT;
        int out = test_rng_int (rng, 0, BSPLINE_PROJECTION_COUNT - 1);
        bspline_geometry g;
        bspline_image src;
        bspline_params p;
        double range[2];
        char what[200];

        bspline_geometry_init (&g, w, h, dw, dh);
        g.projection_set = 1;
        bspline_projection_params_init (&g.projection);
        g.projection.in = in;
        g.projection.out = out;
        g.projection.yaw = test_rng_range (rng, -180.0, 180.0);
        g.projection.pitch = test_rng_range (rng, -90.0, 90.0);
        g.projection.roll = test_rng_range (rng, -180.0, 180.0);
        g.projection.h_fov = projection_random_fov (rng, out);
        g.projection.v_fov = out == BSPLINE_PROJECTION_EQUIRECT ?
            test_rng_range (rng, 90.0, 180.0) :
            out == BSPLINE_PROJECTION_FLAT
            || out == BSPLINE_PROJECTION_CYLINDRICAL ?
            test_rng_range (rng, 40.0, 150.0) : projection_random_fov (rng,
            out == BSPLINE_PROJECTION_PANNINI ? BSPLINE_PROJECTION_FISHEYE :
            out);
        g.projection.ih_fov = projection_random_fov (rng, in);
        g.projection.iv_fov = in == BSPLINE_PROJECTION_EQUIRECT ?
            test_rng_range (rng, 90.0, 180.0) :
            in == BSPLINE_PROJECTION_FLAT
            || in == BSPLINE_PROJECTION_CYLINDRICAL ?
            test_rng_range (rng, 40.0, 150.0) : projection_random_fov (rng,
            in == BSPLINE_PROJECTION_PANNINI ? BSPLINE_PROJECTION_FISHEYE : in);
        bspline_params_init (&p);
        p.order = order;
        p.boundary = (bspline_boundary) boundary;
        p.antialias = variant & 1 ? BSPLINE_ANTIALIAS_NONE :
            BSPLINE_ANTIALIAS_LEAST_SQUARES;
        for (c = 0; c < 4; c++)
          p.fill[c] = test_rng_range (rng, 0.0, 255.0);
        test_image_alloc (&src, w, h, channels, BSPLINE_SAMPLE_U8,
            test_rng_int (rng, 0, 7));
        test_image_fill_random (&src, rng, 0.0, 255.0, range);
        snprintf (what, sizeof (what), "projection: order %d %s %s -> %s "
            "ypr %.2f %.2f %.2f %dx%dx%d -> %dx%d", order,
            test_boundary_name (boundary),
            bspline_projection_type_name (in),
            bspline_projection_type_name (out), g.projection.yaw,
            g.projection.pitch, g.projection.roll, w, h, channels, dw, dh);
        compare_stage (cuda, cpu, &g, p, &src, range, NULL, what, &worst);
        test_image_free (&src);
      }
  TEST_CHECK (worst.runs >= 230, "projection: only %d of 240 frames ran",
      worst.runs);
  printf ("projection stages: %d frames (every input projection, random "
      "outputs, views and fields of view, orders 0-11, every boundary, "
      "antialiased or not): GPU double within %.3g of the range, GPU float "
      "at most %.2f of its tolerance, U8 within %d code value(s)\n",
      worst.runs, worst.d, worst.f, worst.u8);
}

/* Projection inputs read through their atlas (core/projection/atlas.h):
 * a whole-sphere equirect and the four cube layouts at sizes whose faces
 * are whole pixels (the plan is checked to hold an atlas), random outputs,
 * views, boundaries and channels, orders 0-11: the GPU's gather (cuda/
 * atlas.cu, the CPU's table) and the plan on the atlas against the CPU
 * double reference.  A GPU that sampled the frame instead of the atlas
 * differs by whole code values at every face edge and pole. */
static void
test_projection_atlas (bspline_cuda * cuda, bspline_cpu * cpu,
    test_rng * rng)
{
  static const int inputs[5] = { BSPLINE_PROJECTION_EQUIRECT,
    BSPLINE_PROJECTION_CUBEMAP_3X2, BSPLINE_PROJECTION_CUBEMAP_6X1,
    BSPLINE_PROJECTION_CUBEMAP_1X6, BSPLINE_PROJECTION_EAC
  };
  plan_worst worst = { 0 };
  int order, k;

  for (order = 0; order <= BSPLINE_MAX_ORDER; order++)
    for (k = 0; k < 5; k++) {
      int in = inputs[k], face = 2 * test_rng_int (rng, 8, 40), w, h, c;
      int dw = test_rng_int (rng, 24, 200), dh = test_rng_int (rng, 24, 160);
      int channels = test_rng_int (rng, 1, 4);
      int out = test_rng_int (rng, 0, BSPLINE_PROJECTION_COUNT - 1);
      bspline_plane_grid grid = { 1, 1, 0.0, 0.0 };
      bspline_plan *plan = NULL;
      bspline_geometry g;
      bspline_image src;
      bspline_params p;
      bspline_lens lens;
      double range[2], m[9];
      char what[200], msg[256];

      w = in == BSPLINE_PROJECTION_EQUIRECT ? 4 * face :
          in == BSPLINE_PROJECTION_CUBEMAP_6X1 ? 6 * face :
          in == BSPLINE_PROJECTION_CUBEMAP_1X6 ? face :
          in == BSPLINE_PROJECTION_EAC ? 3 * face + 4 : 3 * face;
      h = in == BSPLINE_PROJECTION_EQUIRECT ? 2 * face :
          in == BSPLINE_PROJECTION_CUBEMAP_6X1 ? face :
          in == BSPLINE_PROJECTION_CUBEMAP_1X6 ? 6 * face :
          in == BSPLINE_PROJECTION_EAC ? 2 * face + 8 : 2 * face;
      bspline_geometry_init (&g, w, h, dw, dh);
      g.projection_set = 1;
      bspline_projection_params_init (&g.projection);
      g.projection.in = in;
      g.projection.out = out;
      g.projection.yaw = test_rng_range (rng, -180.0, 180.0);
      g.projection.pitch = test_rng_range (rng, -90.0, 90.0);
      g.projection.roll = test_rng_range (rng, -180.0, 180.0);
      g.projection.h_fov = projection_random_fov (rng, out);
      g.projection.v_fov = out == BSPLINE_PROJECTION_EQUIRECT ?
          test_rng_range (rng, 90.0, 180.0) :
          out == BSPLINE_PROJECTION_FLAT
          || out == BSPLINE_PROJECTION_CYLINDRICAL ?
          test_rng_range (rng, 40.0, 150.0) : projection_random_fov (rng,
          out == BSPLINE_PROJECTION_PANNINI ? BSPLINE_PROJECTION_FISHEYE :
          out);
      bspline_params_init (&p);
      p.order = order;
      p.boundary = (bspline_boundary) test_rng_int (rng, 0, 4);
      p.antialias = test_rng_int (rng, 0, 1) ? BSPLINE_ANTIALIAS_NONE :
          BSPLINE_ANTIALIAS_LEAST_SQUARES;
      for (c = 0; c < 4; c++)
        p.fill[c] = test_rng_range (rng, 0.0, 255.0);
      snprintf (what, sizeof (what), "projection atlas: order %d %s %s -> "
          "%s ypr %.2f %.2f %.2f %dx%dx%d -> %dx%d", order,
          test_boundary_name (p.boundary), bspline_projection_type_name (in),
          bspline_projection_type_name (out), g.projection.yaw,
          g.projection.pitch, g.projection.roll, w, h, channels, dw, dh);
      if (bspline_geometry_plane_map (&g, &grid, m, &lens, msg,
              sizeof (msg)) != BSPLINE_OK
          || bspline_plan_new_lens (&p, m, &lens, w, h, dw, dh, channels,
              &plan, msg, sizeof (msg)) != BSPLINE_OK) {
        TEST_CHECK (0, "%s: %s", what, msg);
        continue;
      }
      TEST_CHECK (plan->atlas != NULL, "%s: the plan holds no atlas", what);
      bspline_plan_free (plan);
      test_image_alloc (&src, w, h, channels, BSPLINE_SAMPLE_U8,
          test_rng_int (rng, 0, 7));
      test_image_fill_random (&src, rng, 0.0, 255.0, range);
      compare_stage (cuda, cpu, &g, p, &src, range, NULL, what, &worst);
      test_image_free (&src);
    }
  TEST_CHECK (worst.runs >= 55, "projection atlas: only %d of 60 frames "
      "ran", worst.runs);
  printf ("projection inputs through their atlas: %d frames (equirect, "
      "c3x2, c6x1, c1x6, eac; random outputs, views, boundaries; orders "
      "0-11): GPU double within %.3g of the range, GPU float at most %.2f "
      "of its tolerance, U8 within %d code value(s)\n", worst.runs,
      worst.d, worst.f, worst.u8);
}

/* The STMap stage: smooth random maps (a wave of up to 6 % of the frame
 * about the identity, some reaching outside the input frame) of the
 * frame's size, a quarter of it and twice it, alone or under a rotation
 * and a 2x shrink (antialiased from the map's Jacobian), every order and
 * boundary; two maps alternate in one engine, so that a slot's device
 * copy of a map is replaced and taken again. */
static bspline_stmap *
gpu_test_stmap (test_rng * rng, int mw, int mh)
{
  double *st = malloc (sizeof (double) * 2 * mw * mh);
  double ax = test_rng_range (rng, -0.06, 0.06);
  double ay = test_rng_range (rng, -0.06, 0.06);
  double fx = test_rng_range (rng, 0.5, 3.0), fy = test_rng_range (rng, 0.5,
      3.0);
  bspline_stmap *map = NULL;
  char msg[256];
  int x, y;

  for (y = 0; y < mh; y++)
    for (x = 0; x < mw; x++) {
      double u = (x + 0.5) / mw, v = (y + 0.5) / mh;
      st[2 * (y * mw + x)] = u + ax * sin (2 * TEST_PI * fy * v);
      st[2 * (y * mw + x) + 1] = 1.0 - v - ay * sin (2 * TEST_PI * fx * u);
    }
  if (bspline_stmap_new (st, mw, mh, &map, msg, sizeof (msg)) != BSPLINE_OK)
    TEST_CHECK (0, "stmap: %s", msg);
  free (st);
  return map;
}

static void
test_stmap (bspline_cuda * cuda, bspline_cpu * cpu, test_rng * rng)
{
  plan_worst worst = { 0 };
  int order, boundary, variant;
  int w = test_rng_int (rng, 40, 200), h = test_rng_int (rng, 30, 150);
  bspline_stmap *maps[3];

  maps[0] = gpu_test_stmap (rng, w, h);
  maps[1] = gpu_test_stmap (rng, (w + 3) / 4, (h + 3) / 4);
  maps[2] = gpu_test_stmap (rng, 2 * w, 2 * h);
  for (order = 0; order <= BSPLINE_MAX_ORDER; order++)
    for (boundary = 0; boundary < 5; boundary++)
      for (variant = 0; variant < 4; variant++) {
        int channels = test_rng_int (rng, 1, 4), c;
        int shrink = variant == 3, dw = shrink ? w / 2 : w;
        int dh = shrink ? h / 2 : h;
        bspline_geometry g;
        bspline_image src;
        bspline_params p;
        double range[2];
        char what[160];

        if (!maps[variant % 3])
          continue;
        bspline_geometry_init (&g, w, h, dw, dh);
        g.lens_model = BSPLINE_LENS_STMAP;
        g.stmap = maps[variant % 3];
        if (variant >= 2)
          g.rotation = test_rng_range (rng, -40.0, 40.0);
        bspline_params_init (&p);
        p.order = order;
        p.boundary = (bspline_boundary) boundary;
        p.antialias = shrink ? BSPLINE_ANTIALIAS_LEAST_SQUARES :
            BSPLINE_ANTIALIAS_NONE;
        for (c = 0; c < 4; c++)
          p.fill[c] = test_rng_range (rng, 0.0, 255.0);
        test_image_alloc (&src, w, h, channels, BSPLINE_SAMPLE_U8,
            test_rng_int (rng, 0, 7));
        test_image_fill_random (&src, rng, 0.0, 255.0, range);
        snprintf (what, sizeof (what), "stmap: order %d %s map %dx%d%s%s "
            "%dx%dx%d", order, test_boundary_name (boundary),
            bspline_stmap_width (g.stmap), bspline_stmap_height (g.stmap),
            variant >= 2 ? " rotated" : "", shrink ? " shrunk 2x" : "", w,
            h, channels);
        compare_stage (cuda, cpu, &g, p, &src, range, NULL, what, &worst);
        test_image_free (&src);
      }
  for (variant = 0; variant < 3; variant++)
    bspline_stmap_unref (maps[variant]);
  TEST_CHECK (worst.runs >= 200, "stmap: only %d of 240 frames ran",
      worst.runs);
  printf ("STMap stages: %d frames (orders 0-11, every boundary, maps of "
      "the frame's size, a quarter and twice it, rotated, shrunk 2x and "
      "antialiased): GPU double within %.3g of the range, GPU float at "
      "most %.2f of its tolerance, U8 within %d code value(s)\n",
      worst.runs, worst.d, worst.f, worst.u8);
}

/* Chains of two lens stages in one plan (bspline_chain_compose,
 * bspline_plan_new_chain), each stage made from a geometry as the element
 * makes its own (bspline_geometry_plane_map): a brown lens then an STMap,
 * a rotated STMap then a fisheye, two STMaps (two device copies in a
 * slot), and a rotated STMap shrunk 2x (antialiased through both stages'
 * Jacobians) then a brown lens; every order and boundary, the STMaps
 * alternating between frames so that a slot's copy of each stage's map
 * is replaced and taken again.  The GPU against the CPU double reference
 * as for the single lens and STMap stages (compare_plans, float within
 * 1.5 times the CPU float path's own error). */
static void
chain_lens_geometry (test_rng * rng, bspline_geometry * g, int w, int h,
    int fisheye)
{
  int c;

  bspline_geometry_init (g, w, h, w, h);
  g->lens_model = fisheye ? BSPLINE_LENS_FISHEYE : BSPLINE_LENS_BROWN;
  g->lens_distort = test_rng_int (rng, 0, 1);
  /* the fisheye's focal length from the larger side (test_lens says
   * why) */
  g->camera[0] = test_rng_range (rng, 0.6, 1.0) * (fisheye && h > w ? h : w);
  g->camera[1] = g->camera[0] * test_rng_range (rng, 0.95, 1.05);
  g->camera[2] = 0.5 * w - 0.5 + test_rng_range (rng, -3.0, 3.0);
  g->camera[3] = 0.5 * h - 0.5 + test_rng_range (rng, -3.0, 3.0);
  if (fisheye) {
    g->n_distortion = 4;
    for (c = 0; c < 4; c++)
      g->distortion[c] = test_rng_range (rng, -0.02, 0.02);
  } else {
    g->n_distortion = 4;
    g->distortion[0] = test_rng_range (rng, -0.2, 0.1);
    g->distortion[1] = test_rng_range (rng, -0.02, 0.04);
    g->distortion[2] = test_rng_range (rng, -0.002, 0.002);
    g->distortion[3] = test_rng_range (rng, -0.002, 0.002);
  }
}

static void
test_chain (bspline_cuda * cuda, bspline_cpu * cpu, test_rng * rng)
{
  static const char *const names[4] = { "brown, stmap",
    "stmap rotated, fisheye", "stmap, stmap", "stmap rotated shrunk 2x, brown"
  };
  plan_worst worst = { 0 };
  int order, boundary, variant;
  int w = test_rng_int (rng, 40, 200), h = test_rng_int (rng, 30, 150);
  bspline_stmap *maps[3];

  maps[0] = gpu_test_stmap (rng, w, h);
  maps[1] = gpu_test_stmap (rng, (w + 3) / 4, (h + 3) / 4);
  maps[2] = gpu_test_stmap (rng, 2 * w, 2 * h);
  for (order = 0; order <= BSPLINE_MAX_ORDER; order++)
    for (boundary = 0; boundary < 5; boundary++)
      for (variant = 0; variant < 4; variant++) {
        const int shrink = variant == 3, dw = shrink ? w / 2 : w;
        const int dh = shrink ? h / 2 : h;
        const int flip = (order + boundary) % 2;
        bspline_plane_grid grid = { 1, 1, 0.0, 0.0 };
        bspline_chain_stage stages[2];
        bspline_lens lenses[BSPLINE_CHAIN_MAX_LENSES];
        bspline_geometry g[2];
        bspline_plan *plan_d = NULL, *plan_f = NULL;
        bspline_image src;
        bspline_params p;
        bspline_status st = BSPLINE_OK;
        double range[2], inverse[9];
        char what[200], msg[256];
        int channels = test_rng_int (rng, 1, 4), n_lenses = 0, c, k;

        if (!maps[0] || !maps[1] || !maps[2])
          break;
        /* evaluation order: g[0] nearest the output */
        for (k = 0; k < 2; k++) {
          const int stmap = variant == 2 || (variant == 0) == (k == 1);
          if (stmap) {
            bspline_geometry_init (&g[k], w, h, k == 0 ? dw : w,
                k == 0 ? dh : h);
            g[k].lens_model = BSPLINE_LENS_STMAP;
            g[k].stmap = maps[(k + flip + (variant == 2)) % 3];
            if (k == 0 && variant != 0 && variant != 2)
              g[k].rotation = test_rng_range (rng, -30.0, 30.0);
          } else
            chain_lens_geometry (rng, &g[k], w, h, variant == 1);
          memset (&stages[k], 0, sizeof (stages[k]));
          if (st == BSPLINE_OK)
            st = bspline_geometry_plane_map (&g[k], &grid,
                stages[k].inverse, &stages[k].lens, msg, sizeof (msg));
        }
        if (st == BSPLINE_OK)
          st = bspline_chain_compose (stages, 2, inverse, lenses, &n_lenses,
              msg, sizeof (msg));
        if (st != BSPLINE_OK) {
          TEST_CHECK (0, "chain %s: %s", names[variant], msg);
          continue;
        }
        TEST_CHECK (n_lenses == 2, "chain %s: %d lens stages composed",
            names[variant], n_lenses);
        bspline_params_init (&p);
        p.order = order;
        p.boundary = (bspline_boundary) boundary;
        p.antialias = shrink || test_rng_int (rng, 0, 1) ?
            BSPLINE_ANTIALIAS_LEAST_SQUARES : BSPLINE_ANTIALIAS_NONE;
        for (c = 0; c < 4; c++)
          p.fill[c] = test_rng_range (rng, 0.0, 255.0);
        p.precision = BSPLINE_PRECISION_DOUBLE;
        bspline_plan_new_chain (&p, inverse, lenses, n_lenses, w, h, dw, dh,
            channels, &plan_d, msg, sizeof (msg));
        p.precision = BSPLINE_PRECISION_FLOAT;
        if (bspline_plan_new_chain (&p, inverse, lenses, n_lenses, w, h, dw,
                dh, channels, &plan_f, msg, sizeof (msg)) != BSPLINE_OK
            || !plan_d) {
          /* a lens that folds over inside this frame: not this test's
           * concern (test_lens) */
          TEST_CHECK (strstr (msg, "folds over") != NULL, "chain %s: plan: "
              "%s", names[variant], msg);
        } else {
          test_image_alloc (&src, w, h, channels, BSPLINE_SAMPLE_U8,
              test_rng_int (rng, 0, 7));
          test_image_fill_random (&src, rng, 0.0, 255.0, range);
          snprintf (what, sizeof (what), "chain %s: order %d %s %dx%dx%d "
              "-> %dx%d%s", names[variant], order,
              test_boundary_name (boundary), w, h, channels, dw, dh,
              p.antialias ? " antialiased" : "");
          compare_plans (cuda, cpu, plan_d, plan_f, &src, dw, dh, range,
              order, 1.5, what, &worst);
          test_image_free (&src);
        }
        bspline_plan_free (plan_d);
        bspline_plan_free (plan_f);
      }
  for (variant = 0; variant < 3; variant++)
    bspline_stmap_unref (maps[variant]);
  TEST_CHECK (worst.runs >= 200, "chains: only %d of 240 frames ran",
      worst.runs);
  printf ("chains of two lens stages: %d frames (orders 0-11, every "
      "boundary; brown, fisheye and STMaps, two STMaps in one plan, a 2x "
      "shrink antialiased through both): GPU double within %.3g of the "
      "range, GPU float at most %.2f of its tolerance, U8 within %d code "
      "value(s)\n", worst.runs, worst.d, worst.f, worst.u8);
}

/* ---- precision=fast (cuda/texture.cu) ---- */

/* The code range R that scales the binary16 plane (cuda/engine.c,
 * resample_half): the plane holds (c - R / 2) / R. */
static double
fast_range (const bspline_image * src)
{
  return src->type == BSPLINE_SAMPLE_U8 ? 255.0 : src->bits >= 1
      && src->bits <= 16 ? (double) ((1 << src->bits) - 1) : 65535.0;
}

/* The bound of docs/accuracy.md ("precision=fast") on |fast - exact| for
 * src under plan (a double plan of the same geometry), from its
 * coefficient plane c (padded, as the plan stores it): with M = max |c -
 * R / 2| and Dx, Dy the largest differences of neighbouring coefficients
 * along x and y,
 *   2^-11 M                 the plane's rounding to binary16,
 *   (2^-8 + 2^-10) (Dx + Dy) the filter's 8-bit fractions (and texel
 *                            coordinates in float),
 *   2^-13 (R + M)           the prefilter's truncation at 2^-14 and the
 *                            float arithmetic. */
static double
fast_bound (const bspline_plan * plan, const bspline_image * src,
    double *m_out, double *d_out)
{
  const int C = src->channels, pad = bspline_plan_padding (plan);
  const int wc = src->width + 2 * pad, hc = src->height + 2 * pad;
  const double R = fast_range (src), mid = 0.5 * R;
  bspline_pool *pool = bspline_pool_new (1);
  void *scratch = malloc (bspline_prefilter_scratch_size (plan, 1) + 1);
  bspline_coefficients coef;
  double *c, m = 0.0, dx = 0.0, dy = 0.0;
  int x, y, k;

  coef.width = src->width;
  coef.height = src->height;
  coef.pad = pad;
  coef.channels = C;
  coef.row_len = (ptrdiff_t) wc *C;
  c = calloc ((size_t) wc * hc * C, sizeof (double));
  coef.data = c;
  if (!pool || !scratch || !c) {
    printf ("%s: out of memory\n", test_name);
    exit (99);
  }
  bspline_prefilter_image (pool, plan, src, &coef, scratch);
  for (y = 0; y < hc; y++)
    for (x = 0; x < wc; x++)
      for (k = 0; k < C; k++) {
        const double v = c[((size_t) y * wc + x) * C + k];
        m = fmax (m, fabs (v - mid));
        if (x + 1 < wc)
          dx = fmax (dx, fabs (c[((size_t) y * wc + x + 1) * C + k] - v));
        if (y + 1 < hc)
          dy = fmax (dy, fabs (c[((size_t) (y + 1) * wc + x) * C + k] - v));
      }
  free (c);
  free (scratch);
  bspline_pool_free (pool);
  if (m_out)
    *m_out = m;
  if (d_out)
    *d_out = dx + dy;
  return ldexp (m, -11) + (ldexp (1.0, -8) + ldexp (1.0, -10)) * (dx + dy)
      + ldexp (R + m, -13);
}

/* A smooth picture: a few low-frequency waves about the middle of the
 * code range. */
static void
fill_smooth (const bspline_image * img, test_rng * rng)
{
  const double R = fast_range (img);
  double fx[3], fy[3], ph[3];
  int x, y, c, k;

  for (k = 0; k < 3; k++) {
    fx[k] = test_rng_range (rng, -0.15, 0.15);
    fy[k] = test_rng_range (rng, -0.15, 0.15);
    ph[k] = test_rng_range (rng, 0.0, 6.3);
  }
  for (y = 0; y < img->height; y++)
    for (x = 0; x < img->width; x++)
      for (c = 0; c < img->channels; c++) {
        double v = 0.5;
        for (k = 0; k < 3; k++)
          v += 0.15 * sin (fx[k] * x + fy[k] * y + ph[k] + c);
        test_image_set (img, x, y, c, floor (v * R + 0.5));
      }
}

/* precision=compact's 16-bit coefficient plane (cuda/engine.c,
 * uses_compact; docs/accuracy.md, "The 16-bit coefficient plane").  Where
 * the engine takes it (the B-spline's orders 2 and 3 from 8-bit samples,
 * order 2 from 10-bit ones, one or four channels, the general path without
 * lens stages), its bound must be L^2 M / 131068, L = 2 or 3 the l1 norm
 * of the order's inverse filter, counted here apart from the library; the
 * output must stay within that bound and the float path's tolerance of
 * CPU double on the photograph, random noise and a checkerboard of 0 and
 * M (all Nyquist: the coefficients at the ends of the proven range, which
 * a range too narrow would clamp), under every boundary, a rotation at
 * the default antialiasing, a shrinking rotation with the kernel widened
 * (warp.cu's widened_pixel) and a perspective map; and differ from
 * precision=float's (the plane ran).  Elsewhere (order 1 or 5, three
 * channels, a 10-bit sample stored without a shift, whose container can
 * hold any 16-bit value) the bound is 0 and compact's output equals
 * float's to the bit.  8-bit outputs on the photograph: within 1 code
 * value of the CPU engine, at least 99.5 % of them identical. */
static void
test_compact (bspline_cuda * cuda, bspline_cpu * cpu, test_rng * rng)
{
  static const int orders[4] = { 1, 2, 3, 5 };
  static const char *kinds[3] = { "photograph", "noise", "checkerboard" };
  static const char *maps[3] = { "rotation", "widened shrink",
    "perspective"
  };
  static const int chans[3] = { 4, 1, 3 };
  unsigned char *photo = malloc (PHOTO_BYTES);
  double worst_ratio = 0.0, worst_checker = 0.0;
  long same = 0, total = 0;
  int o, kind, map, boundary, runs = 0, compact_runs = 0, expected = 0;
  int worst_int = 0;

  if (!photo || !test_read_photo (photo)) {
    TEST_CHECK (0, "compact: the photograph %s cannot be read", ASTRONAUT);
    free (photo);
    return;
  }
  for (o = 0; o < 4; o++)
    for (kind = 0; kind < 3; kind++)
      for (map = 0; map < 3; map++)
        for (boundary = 0; boundary < 5; boundary++) {
          const int order = orders[o];
          const int sample = (kind + map + boundary + o) % 3;
          const int channels = chans[(kind + boundary) % 3];
          const int w = kind == 0 ? PHOTO_W : test_rng_int (rng, 40, 120);
          const int h = kind == 0 ? PHOTO_H : test_rng_int (rng, 30, 100);
          bspline_image src, ref, cmp, flt, cpu_f, cpu_int, gpu_int;
          bspline_plan *plan_d = NULL, *plan_f = NULL, *plan_c = NULL;
          bspline_params p;
          double m[9], M, L, expect, bound, err, err_cpu, tol;
          int x, y, c, differs = 0, eq = 0;

          /* 0: 8-bit; 1: 10-bit above a shift of 6 (P010's); 2: 10-bit
           * in the low bits */
          test_image_alloc (&src, w, h, channels, sample == 0 ?
              BSPLINE_SAMPLE_U8 : BSPLINE_SAMPLE_U16, test_rng_int (rng, 0,
                  5));
          if (sample > 0) {
            src.bits = 10;
            src.shift = sample == 1 ? 6 : 0;
          }
          M = sample == 0 ? 255.0 : 1023.0;
          for (y = 0; y < h; y++)
            for (x = 0; x < w; x++)
              for (c = 0; c < channels; c++) {
                double v;
                if (kind == 0) {
                  const unsigned char *px = photo + (y * PHOTO_W + x) * 3;
                  /* one channel: green; four: RGB and red as alpha */
                  const int v8 = channels == 1 ? px[1] : px[c < 3 ? c : 0];
                  v = sample == 0 ? v8 : v8 * 4 + (v8 >> 6);
                } else if (kind == 1) {
                  v = floor (test_rng_uniform (rng) * (M + 1.0));
                } else {
                  v = (x + y) % 2 ? 0.0 : M;
                }
                test_image_set (&src, x, y, c, v);
              }
          bspline_params_init (&p);
          p.order = order;
          p.boundary = (bspline_boundary) boundary;
          for (c = 0; c < 4; c++)
            p.fill[c] = floor (test_rng_range (rng, 0.0, M));
          if (map == 0) {
            test_rotation_zoom (10.0 * TEST_PI / 180.0, 1.0, w, h, w, h, m);
          } else if (map == 1) {
            test_rotation_zoom (25.0 * TEST_PI / 180.0, 0.6, w, h, w, h, m);
            p.antialias = BSPLINE_ANTIALIAS_WIDEN;
          } else {
            test_rotation_zoom (-5.0 * TEST_PI / 180.0, 0.9, w, h, w, h, m);
            m[7] = 0.6 / h;
            p.antialias = BSPLINE_ANTIALIAS_NONE;
          }
          p.precision = BSPLINE_PRECISION_DOUBLE;
          bspline_plan_new (&p, m, w, h, w, h, channels, &plan_d, NULL, 0);
          p.precision = BSPLINE_PRECISION_FLOAT;
          bspline_plan_new (&p, m, w, h, w, h, channels, &plan_f, NULL, 0);
          p.precision = BSPLINE_PRECISION_COMPACT;
          bspline_plan_new (&p, m, w, h, w, h, channels, &plan_c, NULL, 0);
          if (!plan_d || !plan_f || !plan_c) {
            TEST_CHECK (0, "compact: no plan for order %d %s", order,
                maps[map]);
            goto next;
          }
          /* the bound, counted here: L = 1 / |B(-1)|, B's samples b(0) and
           * b(+-1) of the order (2: 3/4, 1/8; 3: 2/3, 1/6) */
          L = order == 2 ? 1.0 / (0.75 - 2.0 * 0.125) : 1.0 / (2.0 / 3.0
              - 2.0 / 6.0);
          expect = (order == 2 || order == 3) && channels != 3
              && sample != 2 && L * L * M / 131068.0 <= 1.0 / 32.0 ?
              L * L * M / 131068.0 : 0.0;
          bound = bspline_cuda_plan_compact (cuda, plan_c, &src);
          expected += expect > 0.0;
          TEST_CHECK (fabs (bound - expect) <= 1e-12, "compact: order %d %s "
              "%s, %d channels, sample %d: bound %.6g where %.6g was "
              "expected", order, maps[map], kinds[kind], channels, sample,
              bound, expect);
          test_image_alloc (&ref, w, h, channels, BSPLINE_SAMPLE_F64, 0);
          test_image_alloc (&cmp, w, h, channels, BSPLINE_SAMPLE_F64, 1);
          test_image_alloc (&flt, w, h, channels, BSPLINE_SAMPLE_F64, 0);
          test_image_alloc (&cpu_f, w, h, channels, BSPLINE_SAMPLE_F64, 0);
          memset (cmp.data, 0xff, (size_t) cmp.stride * cmp.height);
          TEST_CHECK (bspline_cpu_execute (cpu, plan_d, &src, &ref) == 0
              && bspline_cpu_execute (cpu, plan_f, &src, &cpu_f) == 0,
              "cpu: %s", bspline_cpu_last_error (cpu));
          if (bspline_cuda_execute (cuda, plan_c, &src, &cmp) != BSPLINE_OK
              || bspline_cuda_execute (cuda, plan_f, &src, &flt)
              != BSPLINE_OK) {
            TEST_CHECK (0, "compact: %s", bspline_cuda_last_error (cuda));
            goto free_images;
          }
          err = max_difference (&cmp, &ref);
          err_cpu = max_difference (&cpu_f, &ref) / M;
          tol = fmax (float_tolerance (0, order), 1.5 * err_cpu) * M + bound;
          if (!(err <= tol))
            print_differences ("compact (16-bit plane) vs CPU double", &cmp,
                &ref, tol);
          TEST_CHECK (err <= tol, "compact: order %d %s %s %s %dx%dx%d "
              "sample %d: %.4g code values from CPU double, over %.4g (bound "
              "%.4g)", order, maps[map], kinds[kind],
              test_boundary_name (boundary), w, h, channels, sample, err,
              tol, bound);
          for (y = 0; y < h; y++)
            for (x = 0; x < w; x++)
              for (c = 0; c < channels; c++)
                differs |= test_image_get (&cmp, x, y, c)
                    != test_image_get (&flt, x, y, c);
          if (bound > 0.0) {
            TEST_CHECK (differs, "compact: order %d %s %s %s: the output "
                "equals float's (the 16-bit plane did not run)", order,
                maps[map], kinds[kind], test_boundary_name (boundary));
            worst_ratio = fmax (worst_ratio, (err - (tol - bound)) / bound);
            if (kind == 2)
              worst_checker = fmax (worst_checker, err / bound);
            compact_runs++;
          } else {
            TEST_CHECK (!differs, "compact: order %d %s %s %s, %d channels, "
                "sample %d: the output differs from float's without the "
                "16-bit plane", order, maps[map], kinds[kind],
                test_boundary_name (boundary), channels, sample);
          }
          /* 8-bit outputs of the photograph against the CPU engine's */
          if (kind == 0 && sample == 0) {
            test_image_alloc (&cpu_int, w, h, channels, BSPLINE_SAMPLE_U8, 0);
            test_image_alloc (&gpu_int, w, h, channels, BSPLINE_SAMPLE_U8, 3);
            bspline_cpu_execute (cpu, plan_f, &src, &cpu_int);
            if (bspline_cuda_execute (cuda, plan_c, &src, &gpu_int))
              TEST_CHECK (0, "compact u8: %s", bspline_cuda_last_error (cuda));
            for (y = 0; y < h; y++)
              for (x = 0; x < w; x++)
                for (c = 0; c < channels; c++) {
                  int d = abs ((int) test_image_get (&gpu_int, x, y, c)
                      - (int) test_image_get (&cpu_int, x, y, c));
                  worst_int = d > worst_int ? d : worst_int;
                  eq += d == 0;
                }
            same += eq;
            total += (long) w * h * channels;
            test_image_free (&cpu_int);
            test_image_free (&gpu_int);
          }
          runs++;
        free_images:
          test_image_free (&ref);
          test_image_free (&cmp);
          test_image_free (&flt);
          test_image_free (&cpu_f);
        next:
          bspline_plan_free (plan_d);
          bspline_plan_free (plan_f);
          bspline_plan_free (plan_c);
          test_image_free (&src);
        }
  free (photo);
  TEST_CHECK (compact_runs == expected && expected >= 24, "compact: %d runs "
      "took the 16-bit plane, %d expected", compact_runs, expected);
  TEST_CHECK (worst_int <= 1, "compact: 8-bit outputs %d code values from "
      "the CPU engine", worst_int);
  TEST_CHECK (total > 0 && same >= 0.995 * total, "compact: %ld of %ld 8-bit "
      "outputs of the photograph equal the CPU engine's (under 99.5 %%)",
      same, total);
  printf ("16-bit plane: %d frames, %d of them on the plane (orders 1, 2, 3, "
      "5; photograph, noise, checkerboard; every boundary; rotation, widened "
      "shrink, perspective; 8-bit and 10-bit samples): beyond the float "
      "tolerance at most %.2f of the bound, the checkerboard at most %.2f "
      "of it; 8-bit outputs of the photograph within %d of the CPU engine, "
      "%.3f %% identical\n", runs, compact_runs, worst_ratio, worst_checker,
      worst_int, total ? 100.0 * same / total : 0.0);
}

/* precision=fast against the CPU double reference, within fast_bound, for
 * every B-spline order 0-11 and boundary, 1, 2 and 4 channels, 8- and
 * 16-bit (10 significant bits) sources, noise and smooth pictures, on the
 * fetches (upscale, rotation, a sub-pixel shift), the exact evaluation at
 * the edges and the widened kernel (a perspective map antialiased by
 * widening).  The fast path must be the one that ran: its output differs
 * from the float path's on every noise frame of order 1 or more. */
static void
test_fast (bspline_cuda * cuda, bspline_cpu * cpu, test_rng * rng)
{
  static const int chans[3] = { 1, 2, 4 };
  double worst_ratio = 0.0, worst_noise[BSPLINE_MAX_ORDER + 1] = { 0 };
  double worst_smooth[BSPLINE_MAX_ORDER + 1] = { 0 };
  int order, boundary, k, runs = 0;

  for (order = 0; order <= BSPLINE_MAX_ORDER; order++)
    for (boundary = 0; boundary < 5; boundary++)
      for (k = 0; k < 4; k++) {
        const int channels = chans[(order + boundary + k) % 3];
        const int smooth = (boundary + k) % 2;
        const int w = test_rng_int (rng, 12, 140);
        const int h = test_rng_int (rng, 12, 110);
        const bspline_sample_type type = (order + k) % 2 ?
            BSPLINE_SAMPLE_U16 : BSPLINE_SAMPLE_U8;
        bspline_image src, ref, fast, flt;
        bspline_plan *plan_d = NULL, *plan_fast = NULL, *plan_f = NULL;
        bspline_params p;
        double m[9], bound, err, R, big, dsum;
        int dst_w = w, dst_h = h, x, y, c, differs = 0;
        const char *name;

        test_image_alloc (&src, w, h, channels, type, test_rng_int (rng, 0, 5));
        if (type == BSPLINE_SAMPLE_U16)
          src.bits = 10;
        R = fast_range (&src);
        if (smooth) {
          fill_smooth (&src, rng);
        } else {
          double range[2];
          test_image_fill_random (&src, rng, 0.0, R, range);
        }
        bspline_params_init (&p);
        p.order = order;
        p.boundary = (bspline_boundary) boundary;
        for (c = 0; c < 4; c++)
          p.fill[c] = test_rng_range (rng, 0.0, R);
        if (k == 0) {
          name = "upscale";
          dst_w = (int) (w * 1.7);
          dst_h = (int) (h * 1.3);
          bspline_matrix_identity (m);
          m[0] = (double) w / dst_w;
          m[4] = (double) h / dst_h;
        } else if (k == 1) {
          name = "rotation";
          test_rotation_zoom (test_rng_range (rng, -40.0, 40.0) * TEST_PI
              / 180.0, 1.05, w, h, w, h, m);
        } else if (k == 2) {
          name = "shift";
          bspline_matrix_identity (m);
          m[2] = test_rng_range (rng, -3.0, 3.0);
          m[5] = test_rng_range (rng, -3.0, 3.0);
        } else {
          name = "perspective (widened)";
          test_rotation_zoom (-5.0 * TEST_PI / 180.0, 0.9, w, h, w, h, m);
          m[7] = 0.6 / h;
          p.antialias = BSPLINE_ANTIALIAS_WIDEN;
        }
        p.precision = BSPLINE_PRECISION_DOUBLE;
        bspline_plan_new (&p, m, w, h, dst_w, dst_h, channels, &plan_d, NULL,
            0);
        p.precision = BSPLINE_PRECISION_FAST;
        bspline_plan_new (&p, m, w, h, dst_w, dst_h, channels, &plan_fast,
            NULL, 0);
        p.precision = BSPLINE_PRECISION_FLOAT;
        bspline_plan_new (&p, m, w, h, dst_w, dst_h, channels, &plan_f, NULL,
            0);
        if (!plan_d || !plan_fast || !plan_f) {
          TEST_CHECK (0, "fast: no plan for order %d %s", order, name);
          goto next;
        }
        test_image_alloc (&ref, dst_w, dst_h, channels, BSPLINE_SAMPLE_F64, 0);
        test_image_alloc (&fast, dst_w, dst_h, channels, BSPLINE_SAMPLE_F64, 2);
        test_image_alloc (&flt, dst_w, dst_h, channels, BSPLINE_SAMPLE_F64, 0);
        memset (fast.data, 0xff, (size_t) fast.stride * fast.height);
        TEST_CHECK (bspline_cpu_execute (cpu, plan_d, &src, &ref) == 0,
            "cpu: %s", bspline_cpu_last_error (cpu));
        if (bspline_cuda_execute (cuda, plan_fast, &src, &fast) != BSPLINE_OK
            || bspline_cuda_execute (cuda, plan_f, &src, &flt) != BSPLINE_OK) {
          TEST_CHECK (0, "cuda fast: %s", bspline_cuda_last_error (cuda));
          goto free_images;
        }
        bound = fast_bound (plan_d, &src, &big, &dsum);
        err = max_difference (&fast, &ref);
        for (y = 0; y < dst_h && !differs; y++)
          for (x = 0; x < dst_w && !differs; x++)
            for (c = 0; c < channels; c++)
              differs |= test_image_get (&fast, x, y, c)
                  != test_image_get (&flt, x, y, c);
        if (!(err <= bound))
          print_differences ("fast vs CPU double", &fast, &ref, bound);
        TEST_CHECK (err <= bound, "fast %s order %d %s %dx%dx%d %s %s: %.4g "
            "code values from CPU double, over the bound %.4g (M %.4g, Dx + "
            "Dy %.4g, R %g)", name, order, test_boundary_name (boundary), w,
            h, channels, test_type_name (type), smooth ? "smooth" : "noise",
            err, bound, big, dsum, R);
        TEST_CHECK (differs || smooth || order == 0, "fast %s order %d %s "
            "%dx%dx%d: the output equals the float path's (the binary16 "
            "plane did not run)", name, order, test_boundary_name (boundary),
            w, h, channels);
        worst_ratio = fmax (worst_ratio, err / bound);
        /* in 8-bit code values */
        if (smooth)
          worst_smooth[order] = fmax (worst_smooth[order], err * 255.0 / R);
        else
          worst_noise[order] = fmax (worst_noise[order], err * 255.0 / R);
        runs++;
      free_images:
        test_image_free (&ref);
        test_image_free (&fast);
        test_image_free (&flt);
      next:
        bspline_plan_free (plan_d);
        bspline_plan_free (plan_fast);
        bspline_plan_free (plan_f);
        test_image_free (&src);
      }
  printf ("precision=fast: %d frames (orders 0-11, every boundary, 1/2/4 "
      "channels, U8 and 10-bit U16, noise and smooth; upscale, rotation, "
      "shift, widened perspective) within the bound, at most %.2f of it\n",
      runs, worst_ratio);
  printf ("precision=fast, largest error in 8-bit code values by order "
      "(noise / smooth):");
  for (order = 0; order <= BSPLINE_MAX_ORDER; order++)
    printf (" %d: %.3g/%.3g", order, worst_noise[order], worst_smooth[order]);
  printf ("\n");
}

/* Where precision=fast takes the binary16 plane by default (cuda/engine.c,
 * uses_half): on an affine map of four channels at order 5 the output is
 * the float path's, bit for bit; it differs from it on the same map at
 * order 3, on a perspective map at order 5 and on a two-channel plane at
 * order 5. */
static void
test_fast_routing (test_rng * rng)
{
  static const char *what[4] = { "an affine map, 4 channels, order 5",
    "an affine map, 4 channels, order 3", "a perspective map, order 5",
    "2 channels, order 5"
  };
  bspline_cuda *cuda = NULL;
  char msg[256];
  int k;

  unsetenv ("BSPLINE_CUDA_FAST_TEXTURE");
  if (bspline_cuda_new (-1, &cuda, msg, sizeof (msg)) != BSPLINE_OK) {
    TEST_CHECK (0, "cannot create the CUDA engine: %s", msg);
    return;
  }
  for (k = 0; k < 4; k++) {
    const int w = 96, h = 64, channels = k == 3 ? 2 : 4;
    bspline_image src, a, b;
    bspline_plan *fast = NULL, *flt = NULL;
    bspline_params p;
    double m[9], range[2];
    int same;

    test_image_alloc (&src, w, h, channels, BSPLINE_SAMPLE_U8, 0);
    test_image_fill_random (&src, rng, 0.0, 255.0, range);
    test_image_alloc (&a, w, h, channels, BSPLINE_SAMPLE_F32, 0);
    test_image_alloc (&b, w, h, channels, BSPLINE_SAMPLE_F32, 0);
    test_rotation_zoom (0.2, 1.0, w, h, w, h, m);
    if (k == 2)
      m[7] = 0.3 / h;
    bspline_params_init (&p);
    p.order = k == 1 ? 3 : 5;
    p.precision = BSPLINE_PRECISION_FAST;
    bspline_plan_new (&p, m, w, h, w, h, channels, &fast, NULL, 0);
    p.precision = BSPLINE_PRECISION_FLOAT;
    bspline_plan_new (&p, m, w, h, w, h, channels, &flt, NULL, 0);
    if (!fast || !flt || bspline_cuda_execute (cuda, fast, &src, &a)
        || bspline_cuda_execute (cuda, flt, &src, &b)) {
      TEST_CHECK (0, "fast routing: %s", bspline_cuda_last_error (cuda));
    } else {
      same = memcmp (a.data, b.data, (size_t) a.stride * h) == 0;
      TEST_CHECK (k == 0 ? same : !same, "precision=fast on %s: %s the "
          "float path's output", what[k], same ? "equals" : "differs from");
    }
    bspline_plan_free (fast);
    bspline_plan_free (flt);
    test_image_free (&src);
    test_image_free (&a);
    test_image_free (&b);
  }
  bspline_cuda_free (cuda);
  printf ("precision=fast routing: the float kernels on an affine map of 4 "
      "channels at order 5, the binary16 plane at order 3, on a "
      "perspective map and on 2 channels\n");
}

/* The texture unit's fraction: order 1, fast, from a 2x2 frame (columns
 * of 0 and the top code value) to 4096 x 1 outputs on its first row,
 * which read the fractions of the bilinear filter directly (printed for
 * docs/accuracy.md; every tap inside the plane, so that the fetches and
 * not the exact evaluation of the edges take them). */
static void
measure_fast_fractions (bspline_cuda * cuda)
{
  bspline_image src, out;
  bspline_plan *plan = NULL;
  bspline_params p;
  double m[9], worst = 0.0, levels[600];
  int x, n_levels = 0, i;

  test_image_alloc (&src, 2, 2, 1, BSPLINE_SAMPLE_U16, 0);
  for (i = 0; i < 2; i++) {
    test_image_set (&src, 0, i, 0, 0.0);
    test_image_set (&src, 1, i, 0, 65535.0);
  }
  test_image_alloc (&out, 4096, 1, 1, BSPLINE_SAMPLE_F64, 0);
  bspline_params_init (&p);
  p.order = 1;
  p.boundary = BSPLINE_BOUNDARY_CLAMP;
  p.precision = BSPLINE_PRECISION_FAST;
  p.antialias = BSPLINE_ANTIALIAS_NONE;
  bspline_matrix_identity (m);
  m[0] = 1.0 / 4096.0;
  m[2] = 0.5;                   /* output centre u + 0.5 -> x in [0.5, 1.5] */
  bspline_plan_new (&p, m, 2, 2, 4096, 1, 1, &plan, NULL, 0);
  if (!plan || bspline_cuda_execute (cuda, plan, &src, &out) != BSPLINE_OK) {
    TEST_CHECK (0, "fast fractions: %s", bspline_cuda_last_error (cuda));
  } else {
    for (x = 0; x < 4096; x++) {
      const double t = (x + 0.5) / 4096.0;      /* the exact fraction */
      const double v = test_image_get (&out, x, 0, 0) / 65535.0;
      worst = fmax (worst, fabs (v - t));
      for (i = 0; i < n_levels && levels[i] != v; i++);
      if (i == n_levels && n_levels < 600)
        levels[n_levels++] = v;
    }
    printf ("texture filter: %d distinct fractions over [0, 1]%s, largest "
        "error %.3g (2^%.2f)\n", n_levels, n_levels == 600 ? " or more" : "",
        worst, log2 (worst));
    TEST_CHECK (worst <= ldexp (1.0, -8) + ldexp (1.0, -10),
        "the texture filter's fractions are off by %.3g, over the bound's "
        "2^-8 + 2^-10", worst);
  }
  bspline_plan_free (plan);
  test_image_free (&src);
  test_image_free (&out);
}

/* The rounding of 8-bit outputs (u8_bits in cuda/kernels-common.cuh: an
 * addition to 2^23, not a conversion instruction) equal to the CPU
 * engine's, code value for code value: float inputs on a grid of 1/8
 * (ties at .5 included) and just below and above each .5, from -20 to 280, through
 * order 1 maps that sample exactly at pixel centres, so that each output
 * is an input value as it is: a 90 degree rotation (the warp kernel's
 * staged, fixed-point path) and an integer shift (the separable passes),
 * with 1 and 4 channels.  The other tests allow U8 outputs one code value
 * apart, which a rounding off by one would pass. */
static void
test_u8_rounding (bspline_cuda * cuda, bspline_cpu * cpu)
{
  const int w = 301, h = 64;
  int map, channels, x, y, c, n = 0;

  for (map = 0; map < 2; map++)
    for (channels = 1; channels <= 4; channels += 3) {
      const int dw = map == 0 ? h : w, dh = map == 0 ? w : h;
      bspline_image src, gpu, cpu_int;
      bspline_params p;
      bspline_plan *plan = NULL;
      double m[9], d;
      char msg[256];

      bspline_matrix_identity (m);
      if (map == 0) {           /* (u, v) -> (v, h - u) */
        m[0] = 0.0;
        m[1] = 1.0;
        m[3] = -1.0;
        m[4] = 0.0;
        m[5] = h;
      } else {
        m[2] = 2.0;
        m[5] = -3.0;
      }
      test_image_alloc (&src, w, h, channels, BSPLINE_SAMPLE_F32, 0);
      test_image_alloc (&gpu, dw, dh, channels, BSPLINE_SAMPLE_U8, 0);
      test_image_alloc (&cpu_int, dw, dh, channels, BSPLINE_SAMPLE_U8, 0);
      for (y = 0; y < h; y++)
        for (x = 0; x < w; x++)
          for (c = 0; c < channels; c++) {
            const int k = (y * w + x) * channels + c;
            const float base = -20.0f + 0.125f * (float) (k / 3 % 2401);
            /* the grid value, or the floats beside it */
            const float v = k % 3 == 0 ? base : nextafterf (base,
                k % 3 == 1 ? -INFINITY : INFINITY);
            test_image_set (&src, x, y, c, v);
          }
      bspline_params_init (&p);
      p.order = 1;
      p.precision = BSPLINE_PRECISION_FLOAT;
      if (bspline_plan_new (&p, m, w, h, dw, dh, channels, &plan, msg,
              sizeof (msg)) != BSPLINE_OK) {
        TEST_CHECK (0, "u8 rounding: plan: %s", msg);
      } else {
        bspline_cpu_execute (cpu, plan, &src, &cpu_int);
        TEST_CHECK (bspline_cuda_execute (cuda, plan, &src, &gpu) ==
            BSPLINE_OK, "u8 rounding: cuda: %s", bspline_cuda_last_error
            (cuda));
        d = max_difference (&gpu, &cpu_int);
        TEST_CHECK (d == 0.0, "u8 rounding: %s, %d channel(s): U8 outputs "
            "differ from the CPU engine's by up to %g code values",
            map == 0 ? "90 degree rotation" : "integer shift", channels, d);
        n += dw * dh * channels;
      }
      bspline_plan_free (plan);
      test_image_free (&src);
      test_image_free (&gpu);
      test_image_free (&cpu_int);
    }
  printf ("u8 rounding: %d float values from -20 to 280 (ties at .5 and "
      "their neighbours) through a rotation and a shift: U8 outputs equal "
      "to the CPU engine's\n", n);
}

/* A perspective whose horizon crosses the output (issue 27): pixels with
 * W <= 0 (W computed as bspline_map_point does) hold exactly the fill on
 * the GPU, as on the CPU, for every boundary, precision and antialias
 * setting; the other pixels match the CPU double reference as the main
 * test's do (precision=fast: finite; its texture path has its own
 * tolerance, measured on maps without a horizon). */
static void
test_horizon (bspline_cuda * cuda, bspline_cpu * cpu, test_rng * rng)
{
  static const int orders[] = { 1, 3, 5, -1 };  /* -1: bicubic */
  const int w = 83, h = 61, dw = 200, dh = 150;
  long n_beyond = 0, n_front = 0;
  int map, b, prec, aa, x, y, c;

  for (map = 0; map < 4; map++) {
    const int order = orders[map];
    const int channels = test_rng_int (rng, 1, 4);
    const double angle = test_rng_range (rng, 0.0, 2.0 * TEST_PI);
    const double slope = test_rng_range (rng, 0.002, 0.02);
    bspline_image src;
    double m[9], range[2], scale;

    test_image_alloc (&src, w, h, channels, BSPLINE_SAMPLE_F32, 0);
    test_image_fill_random (&src, rng, -1.0, 1.0, range);
    scale = test_signal_scale (range);
    test_rotation_zoom (test_rng_range (rng, -0.5, 0.5), 0.5, w, h, dw, dh, m);
    /* the horizon through the middle of the output */
    m[6] = slope * cos (angle);
    m[7] = slope * sin (angle);
    m[8] = -(m[6] * test_rng_range (rng, 0.3, 0.7) * dw
        + m[7] * test_rng_range (rng, 0.3, 0.7) * dh);
    for (b = 0; b < 5; b++)
      for (aa = 0; aa <= 1; aa++) {
        bspline_plan *plans[3] = { NULL, NULL, NULL };
        bspline_image ref, cpu_f, gpu;
        bspline_params p;
        double tol_f = 0.0;
        char msg[256];

        bspline_params_init (&p);
        if (order < 0)
          p.method = BSPLINE_METHOD_BICUBIC;
        else
          p.order = order;
        p.boundary = (bspline_boundary) b;
        p.antialias = aa;
        /* fill values that float holds: the float paths write (float) fill */
        for (c = 0; c < 4; c++)
          p.fill[c] = (float) test_rng_range (rng, range[0], range[1]);
        test_image_alloc (&ref, dw, dh, channels, BSPLINE_SAMPLE_F64, 0);
        test_image_alloc (&cpu_f, dw, dh, channels, BSPLINE_SAMPLE_F64, 0);
        test_image_alloc (&gpu, dw, dh, channels, BSPLINE_SAMPLE_F64, 3);
        for (prec = 0; prec < 3; prec++) {
          p.precision = (bspline_precision) prec;
          if (bspline_plan_new (&p, m, w, h, dw, dh, channels, &plans[prec],
                  msg, sizeof (msg)) != BSPLINE_OK)
            TEST_CHECK (0, "horizon: plan: %s", msg);
        }
        if (!plans[0] || !plans[1] || !plans[2])
          goto next;
        bspline_cpu_execute (cpu, plans[BSPLINE_PRECISION_DOUBLE], &src, &ref);
        bspline_cpu_execute (cpu, plans[BSPLINE_PRECISION_FLOAT], &src, &cpu_f);
        tol_f = fmax (float_tolerance (p.method, p.order),
            1.5 * max_difference (&cpu_f, &ref) / scale);
        for (prec = 0; prec < 3; prec++) {
          const double tol = prec == BSPLINE_PRECISION_DOUBLE ? 1e-9 :
              prec == BSPLINE_PRECISION_FLOAT ? tol_f : INFINITY;
          int shown = 0;

          /* poison: every output value must be written */
          memset (gpu.data, 0xff, (size_t) gpu.stride * gpu.height);
          if (bspline_cuda_execute (cuda, plans[prec], &src, &gpu)) {
            TEST_CHECK (0, "horizon: cuda: %s", bspline_cuda_last_error (cuda));
            continue;
          }
          for (y = 0; y < dh; y++)
            for (x = 0; x < dw; x++) {
              const double u = x + 0.5, v = y + 0.5;
              const double W = m[6] * u + m[7] * v + m[8];

              if (W <= 0.0)
                n_beyond++;
              else
                n_front++;
              for (c = 0; c < channels; c++) {
                const double g = test_image_get (&gpu, x, y, c);
                const double r = test_image_get (&ref, x, y, c);
                int ok = W <= 0.0 ? g == p.fill[c] && r == p.fill[c] :
                    isfinite (g) && fabs (g - r) <= tol * scale;

                TEST_CHECK (ok || shown++ > 3, "horizon: order %d %s %s "
                    "antialias %d: pixel (%d, %d) channel %d (W = %.3g): "
                    "GPU %.17g, CPU double %.17g, fill %.17g", order,
                    test_boundary_name (b), test_precision_name (prec), aa,
                    x, y, c, W, g, r, p.fill[c]);
              }
            }
        }
      next:
        for (prec = 0; prec < 3; prec++)
          bspline_plan_free (plans[prec]);
        test_image_free (&ref);
        test_image_free (&cpu_f);
        test_image_free (&gpu);
      }
    test_image_free (&src);
  }
  printf ("horizon: %ld pixels (of three precisions) beyond the horizon "
      "exactly the fill on the GPU and the CPU, %ld in front as the CPU's\n",
      n_beyond, n_front);
}

int
main (void)
{
  test_rng rng;
  char msg[512];
  bspline_cuda *cuda = NULL;
  bspline_cpu *cpu;
  double worst_double = 0.0, worst_float_ratio = 0.0, worst_fast = 0.0;
  int worst_int = 0, runs = 0;
  int method, order, boundary, k;

  test_begin ("test-gpu-engine", &rng);
  if (bspline_cuda_device_count (msg, sizeof (msg)) == 0) {
    printf ("SKIP: %s\n", msg);
    return 77;
  }
  test_fast_routing (&rng);
  /* the binary16 plane of precision=fast on every plan that can take it,
   * also where the engine would run the faster float kernels */
  setenv ("BSPLINE_CUDA_FAST_TEXTURE", "1", 1);
  if (bspline_cuda_new (-1, &cuda, msg, sizeof (msg)) != BSPLINE_OK) {
    printf ("FAIL: cannot create the CUDA engine: %s\n", msg);
    return 1;
  }
  printf ("device: %s\n", bspline_cuda_device_name (cuda));
  cpu = bspline_cpu_new (0);
  /* BSPLINE_TEST_ONLY=lens: that part alone (compute-sanitizer runs it
   * in minutes where the whole test would take an hour) */
  if (getenv ("BSPLINE_TEST_ONLY")
      && strcmp (getenv ("BSPLINE_TEST_ONLY"), "lens") == 0) {
    test_lens (cuda, cpu, &rng);
    test_lens_levels (cuda, cpu, &rng);
    test_stmap (cuda, cpu, &rng);
    test_chain (cuda, cpu, &rng);
    test_projection (cuda, cpu, &rng);
    test_projection_atlas (cuda, cpu, &rng);
    bspline_cuda_free (cuda);
    bspline_cpu_free (cpu);
    return test_end ("lens, STMap and projection stages and their chains "
        "only (BSPLINE_TEST_ONLY=lens)");
  }
  /* BSPLINE_TEST_ONLY=fold: the least-squares reductions alone, the same
   * way; fold1: the folded ones of orders 0 and 1 (for racecheck, whose
   * pace is a frame every few seconds) */
  if (getenv ("BSPLINE_TEST_ONLY")
      && strncmp (getenv ("BSPLINE_TEST_ONLY"), "fold", 4) == 0) {
    const int quick = strcmp (getenv ("BSPLINE_TEST_ONLY"), "fold1") == 0;
    test_fold (cuda, cpu, &rng, quick ? 1 : 5);
    if (!quick) {
      fold_faults (cuda, cpu, &rng);
      test_reduction (cuda, cpu, &rng);
    }
    bspline_cuda_free (cuda);
    bspline_cpu_free (cpu);
    return test_end ("the least-squares reductions only "
        "(BSPLINE_TEST_ONLY=fold)");
  }
  /* BSPLINE_TEST_ONLY=compact: the 16-bit coefficient plane alone */
  if (getenv ("BSPLINE_TEST_ONLY")
      && strcmp (getenv ("BSPLINE_TEST_ONLY"), "compact") == 0) {
    test_compact (cuda, cpu, &rng);
    bspline_cuda_free (cuda);
    bspline_cpu_free (cpu);
    return test_end ("the 16-bit coefficient plane only "
        "(BSPLINE_TEST_ONLY=compact)");
  }
  /* BSPLINE_TEST_ONLY=fast: precision=fast alone, the same way */
  if (getenv ("BSPLINE_TEST_ONLY")
      && strcmp (getenv ("BSPLINE_TEST_ONLY"), "fast") == 0) {
    test_fast (cuda, cpu, &rng);
    measure_fast_fractions (cuda);
    bspline_cuda_free (cuda);
    bspline_cpu_free (cpu);
    return test_end ("precision=fast only (BSPLINE_TEST_ONLY=fast)");
  }

  for (method = 0; method < 2; method++)
    for (order = 0; order <= (method ? 0 : BSPLINE_MAX_ORDER); order++)
      for (boundary = 0; boundary < 5; boundary++) {
        int w = test_rng_int (&rng, 1, 90), h = test_rng_int (&rng, 1, 70);
        int channels = test_rng_int (&rng, 1, 4);
        bspline_sample_type type = (bspline_sample_type) test_rng_int (&rng,
            0, 2);
        bspline_image src;
        test_case cases[4];
        double range[2], scale;

        if (k = test_rng_int (&rng, 0, 5), k == 0) {
          w = 1;                /* 1xN and Nx1 and 1x1 now and then */
        } else if (k == 1) {
          h = 1;
        }
        test_image_alloc (&src, w, h, channels, type, test_rng_int (&rng, 0,
                7));
        test_image_fill_random (&src, &rng, -1.0, 1.0, range);
        scale = test_signal_scale (range);
        make_cases (w, h, cases);

        for (k = 0; k < 4; k++) {
          bspline_params p;
          bspline_plan *plan_d = NULL, *plan_f = NULL, *plan_fast = NULL;
          bspline_image ref, gpu, cpu_int, gpu_int;
          double err_d, err_f, err_fast, err_cpu_f, tol_f, fast_tol;
          int err_int = 0, x, y, c;

          bspline_params_init (&p);
          p.method = (bspline_method) method;
          p.order = order;
          p.boundary = (bspline_boundary) boundary;
          for (c = 0; c < 4; c++)
            p.fill[c] = test_rng_range (&rng, range[0], range[1]);
          p.precision = BSPLINE_PRECISION_DOUBLE;
          if (bspline_plan_new (&p, cases[k].m, w, h, cases[k].dst_w,
                  cases[k].dst_h, channels, &plan_d, msg, sizeof (msg))) {
            TEST_CHECK (0, "plan: %s", msg);
            continue;
          }
          p.precision = BSPLINE_PRECISION_FLOAT;
          bspline_plan_new (&p, cases[k].m, w, h, cases[k].dst_w,
              cases[k].dst_h, channels, &plan_f, msg, sizeof (msg));
          test_image_alloc (&ref, cases[k].dst_w, cases[k].dst_h, channels,
              BSPLINE_SAMPLE_F64, 0);
          test_image_alloc (&gpu, cases[k].dst_w, cases[k].dst_h, channels,
              BSPLINE_SAMPLE_F64, 3);
          test_image_alloc (&cpu_int, cases[k].dst_w, cases[k].dst_h,
              channels, BSPLINE_SAMPLE_U8, 0);
          test_image_alloc (&gpu_int, cases[k].dst_w, cases[k].dst_h,
              channels, BSPLINE_SAMPLE_U8, 5);
          /* poison: every output value must be written */
          memset (gpu.data, 0xff, (size_t) gpu.stride * gpu.height);

          TEST_CHECK (bspline_cpu_execute (cpu, plan_d, &src, &ref) == 0,
              "cpu: %s", bspline_cpu_last_error (cpu));
          if (bspline_cuda_execute (cuda, plan_d, &src, &gpu) != BSPLINE_OK) {
            TEST_CHECK (0, "cuda double: %s", bspline_cuda_last_error (cuda));
            goto next;
          }
          err_d = max_difference (&gpu, &ref);
          if (err_d > 1e-9 * scale)
            print_differences ("GPU double vs CPU double", &gpu, &ref,
                1e-9 * scale);
          memset (gpu.data, 0xff, (size_t) gpu.stride * gpu.height);
          if (bspline_cuda_execute (cuda, plan_f, &src, &gpu) != BSPLINE_OK) {
            TEST_CHECK (0, "cuda float: %s", bspline_cuda_last_error (cuda));
            goto next;
          }
          err_f = max_difference (&gpu, &ref);
          /* precision=fast: the binary16 plane where it applies (B-spline
           * orders from 8- and 16-bit sources, not the reductions), within
           * its bound (test_fast); the float path elsewhere */
          p.precision = BSPLINE_PRECISION_FAST;
          bspline_plan_new (&p, cases[k].m, w, h, cases[k].dst_w,
              cases[k].dst_h, channels, &plan_fast, msg, sizeof (msg));
          memset (gpu.data, 0xff, (size_t) gpu.stride * gpu.height);
          if (bspline_cuda_execute (cuda, plan_fast, &src, &gpu)) {
            TEST_CHECK (0, "cuda fast: %s", bspline_cuda_last_error (cuda));
            goto next;
          }
          err_fast = max_difference (&gpu, &ref);
          /* "the same tolerance as the CPU float path": the issue's bound,
           * or the CPU float path's own error where an adversarial image
           * (e.g. a 2-row mirror image is all Nyquist) goes beyond it */
          bspline_cpu_execute (cpu, plan_f, &src, &gpu);
          err_cpu_f = max_difference (&gpu, &ref) / scale;
          tol_f = fmax (float_tolerance (method, order), 1.5 * err_cpu_f);
          fast_tol = tol_f * scale;
          if (method == 0 && type != BSPLINE_SAMPLE_F32
              && type != BSPLINE_SAMPLE_F64)
            fast_tol = fmax (fast_tol, fast_bound (plan_d, &src, NULL, NULL));
          TEST_CHECK (err_fast <= fast_tol,
              "%s order %d %s %dx%dx%d: precision=fast differs from CPU "
              "double by %.3g, over its bound %.3g", cases[k].name, order,
              test_boundary_name (boundary), w, h, channels, err_fast,
              fast_tol);
          worst_fast = fmax (worst_fast, err_fast / fast_tol);
          /* integer output: same rounding as the CPU engine */
          if (type == BSPLINE_SAMPLE_U8) {
            bspline_cpu_execute (cpu, plan_f, &src, &cpu_int);
            if (bspline_cuda_execute (cuda, plan_f, &src, &gpu_int))
              TEST_CHECK (0, "cuda u8: %s", bspline_cuda_last_error (cuda));
            for (y = 0; y < ref.height; y++)
              for (x = 0; x < ref.width; x++)
                for (c = 0; c < channels; c++) {
                  int d = abs ((int) test_image_get (&gpu_int, x, y, c)
                      - (int) test_image_get (&cpu_int, x, y, c));
                  if (d > err_int)
                    err_int = d;
                }
          }
          err_d /= scale;
          err_f /= scale;
          TEST_CHECK (err_d <= 1e-9, "%s %s order %d %s %dx%dx%d %s: GPU "
              "double differs from CPU double by %.3g of the range",
              method ? "bicubic" : "bspline", cases[k].name, order,
              test_boundary_name (boundary), w, h, channels,
              test_type_name (type), err_d);
          TEST_CHECK (err_f <= tol_f, "%s %s "
              "order %d %s %dx%dx%d %s: GPU float differs from CPU double "
              "by %.3g of the range", method ? "bicubic" : "bspline",
              cases[k].name, order, test_boundary_name (boundary), w, h,
              channels, test_type_name (type), err_f);
          TEST_CHECK (err_int <= 1, "%s order %d %s: U8 output differs from "
              "the CPU engine by %d code values", cases[k].name, order,
              test_boundary_name (boundary), err_int);
          worst_double = fmax (worst_double, err_d);
          worst_float_ratio = fmax (worst_float_ratio, err_f / tol_f);
          if (err_int > worst_int)
            worst_int = err_int;
          runs++;
        next:
          test_image_free (&ref);
          test_image_free (&gpu);
          test_image_free (&cpu_int);
          test_image_free (&gpu_int);
          bspline_plan_free (plan_d);
          bspline_plan_free (plan_f);
          bspline_plan_free (plan_fast);
        }
        test_image_free (&src);
      }
  test_fast (cuda, cpu, &rng);
  measure_fast_fractions (cuda);
  test_compact (cuda, cpu, &rng);
  test_in_flight (cuda, cpu, &rng);
  test_u8_rounding (cuda, cpu);
  test_horizon (cuda, cpu, &rng);
  test_segments (cuda, cpu, &rng);
  test_tiled (cuda, cpu, &rng);
  test_fused (cuda, cpu, &rng);
  test_reduction (cuda, cpu, &rng);
  test_fold (cuda, cpu, &rng, 5);
  fold_faults (cuda, cpu, &rng);
  test_lens (cuda, cpu, &rng);
  test_lens_levels (cuda, cpu, &rng);
  test_stmap (cuda, cpu, &rng);
  test_chain (cuda, cpu, &rng);
  test_projection (cuda, cpu, &rng);
  test_projection_atlas (cuda, cpu, &rng);
  bspline_cuda_free (cuda);
  bspline_cpu_free (cpu);
  return test_end ("%d plans: GPU double vs CPU double max %.3g of the "
      "range; GPU float at most %.2f of its tolerance; precision=fast "
      "at most %.2f of its bound; U8 outputs within %d code value(s)", runs,
      worst_double, worst_float_ratio, worst_fast, worst_int);
}
