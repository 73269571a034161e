/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* print-lens-outputs.c: one line per random plan with a lens or STMap
 * stage (lens-cases.h), the plan and a hash of what the CPU engine wrote,
 * for test_kernels.py (the `lens-kernels` test), which runs this program
 * linked with the core as built (the general path's vector rows taking a
 * lens plan's rows of points, core/resample/point-cache.c), with
 * BSPLINE_NO_AVX512, with BSPLINE_NO_X86_DISPATCH (the plain C loops) and
 * with BSPLINE_NO_WARP_FAST (warp_rows_d and warp_rows_f alone, evaluating
 * the stage pixel by pixel, no rows of points, no cache): all must write
 * the same bits.  Each plan runs four times, on 1, 3, 1 and 3 threads (its
 * points computed, then cached, then read); an execution that differs from
 * the first is reported on the line (THREADS DIFFER, which test_kernels.py
 * fails), but for the last two of a plan whose cached points read a
 * window of the input, which must only agree with each other.  Float sources hold a few NaN, infinite and huge values, so that
 * the vector rows' exceptions are exercised; NaN results are hashed as one
 * canonical NaN.
 *
 *   print-lens-outputs N_CASES   (seed from BSPLINE_TEST_SEED) */
#include "lens-cases.h"
#include "resample.h"

static uint64_t
hash_image (const bspline_image * img)
{
  const size_t row = (size_t) img->width * img->channels;
  uint64_t h = 1469598103934665603ull;
  int y;
  size_t i, b;
  for (y = 0; y < img->height; y++) {
    const char *p = (const char *) img->data + (ptrdiff_t) y * img->stride;
    for (i = 0; i < row; i++) {
      unsigned char bytes[8];
      size_t n = test_sample_size (img->type);
      if (img->type == BSPLINE_SAMPLE_F32) {
        float v = ((const float *) p)[i];
        if (isnan (v))
          v = NAN;
        memcpy (bytes, &v, n);
      } else if (img->type == BSPLINE_SAMPLE_F64) {
        double v = ((const double *) p)[i];
        if (isnan (v))
          v = NAN;
        memcpy (bytes, &v, n);
      } else {
        memcpy (bytes, p + i * n, n);
      }
      for (b = 0; b < n; b++) {
        h ^= bytes[b];
        h *= 1099511628211ull;
      }
    }
  }
  return h;
}

int
main (int argc, char **argv)
{
  static const int threads[4] = { 1, 3, 1, 3 };
  test_rng rng;
  int n_cases = argc > 1 ? atoi (argv[1]) : 60, k, e;
  bspline_cpu *one = bspline_cpu_new (1), *three = bspline_cpu_new (3);

  test_begin ("print-lens-outputs", &rng);
  if (!one || !three) {
    printf ("cannot start the CPU engine\n");
    return 1;
  }
  for (k = 0; k < n_cases; k++) {
    lens_case c;
    bspline_image src, dst;
    bspline_plan *plan;
    double range[2];
    char msg[256];
    uint64_t h[4];
    int windowed, window[4];
    size_t i, n;

    lens_case_draw (&rng, &c);
    test_image_alloc (&src, c.src_width, c.src_height, c.channels,
        test_rng_int (&rng, 0, 1) ? BSPLINE_SAMPLE_U8 : BSPLINE_SAMPLE_F32,
        test_rng_int (&rng, 0, 3));
    test_image_alloc (&dst, c.dst_width, c.dst_height, c.channels,
        test_rng_int (&rng, 0, 3) ? BSPLINE_SAMPLE_F32 : BSPLINE_SAMPLE_U8,
        test_rng_int (&rng, 0, 3));
    test_image_fill_random (&src, &rng, -20.0, 280.0, range);
    if (src.type == BSPLINE_SAMPLE_F32 && test_rng_int (&rng, 0, 3) == 0) {
      n = (size_t) src.height * src.stride / sizeof (float);
      for (i = 0; i < n; i++) {
        const int r = test_rng_int (&rng, 0, 1999);
        float *p = (float *) src.data + i;
        *p = r == 0 ? NAN : r == 1 ? INFINITY : r == 2 ? -1e30f : *p;
      }
    }
    if (lens_case_plan (&c, &plan, msg, sizeof (msg)) != BSPLINE_OK) {
      printf ("case %d (%s): plan: %s\n", k, c.name, msg);
      return 1;
    }
    for (e = 0; e < 4; e++) {
      bspline_cpu *cpu = threads[e] == 1 ? one : three;
      memset (dst.data, 0, (size_t) dst.height * dst.stride);
      if (bspline_cpu_execute (cpu, plan, &src, &dst) != BSPLINE_OK) {
        printf ("case %d (%s): %s\n", k, c.name, bspline_cpu_last_error (cpu));
        return 1;
      }
      h[e] = hash_image (&dst);
    }
    /* where the cached points read a window of the input, executions 3
     * and 4 prefilter only the window (bspline_point_cache_window; not in
     * the BSPLINE_NO_WARP_FAST copy, which keeps no points): they may
     * differ from the whole frame's by the prefilter's truncation, and
     * must agree with each other */
    windowed = bspline_point_cache_window (plan, window);
    printf ("case %d: %s, %s -> %s: %016llx%s\n", k, c.name,
        test_type_name (src.type), test_type_name (dst.type),
        (unsigned long long) h[0], h[1] == h[0] && h[3] == h[2]
        && (windowed || h[2] == h[0]) ? "" : " THREADS DIFFER");
    bspline_plan_free (plan);
    test_image_free (&src);
    test_image_free (&dst);
    lens_case_clear (&c);
  }
  bspline_cpu_free (one);
  bspline_cpu_free (three);
  return 0;
}
