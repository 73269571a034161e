/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* print-outputs.c: one line per random plan, the plan and a hash of what
 * the CPU engine wrote, for test_kernels.py, which runs this program
 * linked with the core as built (x86 kernels chosen at run time) and
 * linked with a copy built with BSPLINE_NO_X86_DISPATCH (the plain C
 * loops only), with the same seed: the x86 kernels must write the same
 * bits as the C loops they stand for.
 *
 * The cases lean on what the kernels take (four channels, U8 sources and
 * outputs, orders 2 and 3 on the streaming path, widths that are not
 * multiples of the kernels' four pixels, groups cut short by the frame
 * and by the constant boundary's padding lines) and cover the rest too:
 * every sample type in and out, every boundary, orders 1-5, bicubic,
 * downscales (more taps than four), rotations and perspective maps (the
 * general path, whose fast rows must equal its per-pixel ones: the copy
 * built with BSPLINE_NO_WARP_FAST has only the latter).
 * Float sources hold NaN, infinities and huge values, so that the clamps
 * of the integer stores are exercised; NaN results are hashed as one
 * canonical NaN (their payload and sign are not part of the contract).
 *
 *   print-outputs N_CASES   (seed from BSPLINE_TEST_SEED, test-common.h)
 */
#include "test-common.h"

static uint64_t
hash_bytes (uint64_t h, const void *data, size_t n)
{
  const unsigned char *p = data;
  size_t i;
  for (i = 0; i < n; i++) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

static uint64_t
hash_image (const bspline_image * img)
{
  const size_t row = (size_t) img->width * img->channels;
  uint64_t h = 1469598103934665603ull;
  int y;
  size_t i;
  for (y = 0; y < img->height; y++) {
    const char *p = (const char *) img->data + (ptrdiff_t) y * img->stride;
    if (img->type == BSPLINE_SAMPLE_F32) {
      for (i = 0; i < row; i++) {
        float v = ((const float *) p)[i];
        if (isnan (v))
          v = NAN;
        h = hash_bytes (h, &v, sizeof (v));
      }
    } else if (img->type == BSPLINE_SAMPLE_F64) {
      for (i = 0; i < row; i++) {
        double v = ((const double *) p)[i];
        if (isnan (v))
          v = NAN;
        h = hash_bytes (h, &v, sizeof (v));
      }
    } else {
      h = hash_bytes (h, p, row * test_sample_size (img->type));
    }
  }
  return h;
}

static bspline_sample_type
pick_type (test_rng * rng)
{
  /* U8 half of the time: the kernels' case */
  static const bspline_sample_type types[] = { BSPLINE_SAMPLE_U8,
    BSPLINE_SAMPLE_U8, BSPLINE_SAMPLE_U8, BSPLINE_SAMPLE_U16,
    BSPLINE_SAMPLE_F32, BSPLINE_SAMPLE_F64
  };
  return types[test_rng_int (rng, 0, 5)];
}

static void
fill_source (const bspline_image * img, test_rng * rng)
{
  double range[2];
  size_t i, n = (size_t) img->height * img->stride / sizeof (float);
  if (img->type == BSPLINE_SAMPLE_U16) {
    int x, y, c;
    for (y = 0; y < img->height; y++)
      for (x = 0; x < img->width; x++)
        for (c = 0; c < img->channels; c++)
          test_image_set (img, x, y, c, test_rng_int (rng, 0, 1023));
    return;
  }
  test_image_fill_random (img, rng, -80.0, 340.0, range);
  if (img->type != BSPLINE_SAMPLE_F32)
    return;
  for (i = 0; i < n; i++) {
    const int r = test_rng_int (rng, 0, 999);
    float *p = (float *) img->data + i;
    *p = r == 0 ? NAN : r == 1 ? INFINITY : r == 2 ? -INFINITY :
        r == 3 ? -1e30f : r == 4 ? 1e30f : *p;
  }
}

int
main (int argc, char **argv)
{
  test_rng rng;
  int n_cases = argc > 1 ? atoi (argv[1]) : 60, k;
  bspline_cpu *one = bspline_cpu_new (1), *three = bspline_cpu_new (3);

  test_begin ("print-outputs", &rng);
  if (!one || !three) {
    printf ("cannot start the CPU engine\n");
    return 1;
  }
  for (k = 0; k < n_cases; k++) {
    bspline_params p;
    bspline_image src, dst;
    bspline_plan *plan;
    double m[9];
    char msg[256];
    /* a third rotated or perspective, with 1, 2 and 4 channels (the
     * vector rows of the general path) more often than 3 */
    const int rotate = test_rng_int (&rng, 0, 2) == 0;
    const int pick = test_rng_int (&rng, 0, 6);
    const int C = rotate ? (pick < 2 ? 1 : pick < 4 ? 2 : pick < 6 ? 4 : 3) :
        test_rng_int (&rng, 0, 2) ? 4 : test_rng_int (&rng, 1, 3);
    const int sw = test_rng_int (&rng, 1, 3) == 1 ? test_rng_int (&rng, 1,
        40) : test_rng_int (&rng, 60, 700);
    const int sh = test_rng_int (&rng, 1, 3) == 1 ? test_rng_int (&rng, 1,
        40) : test_rng_int (&rng, 60, 500);
    const double zx = test_rng_int (&rng, 0, 3) ? 2.0 :
        test_rng_range (&rng, 0.3, 3.0);
    const double zy = test_rng_int (&rng, 0, 3) ? zx :
        test_rng_range (&rng, 0.3, 3.0);
    const int dw = (int) ceil (sw * zx), dh = (int) ceil (sh * zy);
    int method_pick = test_rng_int (&rng, 0, 9);
    uint64_t h1, h3;

    bspline_params_init (&p);
    p.method = method_pick == 0 || (rotate && method_pick >= 8) ?
        BSPLINE_METHOD_BICUBIC : BSPLINE_METHOD_BSPLINE;
    p.order = method_pick < 6 ? 3 : method_pick < 8 ? 2 :
        test_rng_int (&rng, 0, 5);
    p.boundary = test_rng_int (&rng, 0, 4);
    p.precision = test_rng_int (&rng, 0, 4) ? BSPLINE_PRECISION_FLOAT :
        BSPLINE_PRECISION_DOUBLE;
    p.antialias = (bspline_antialias) test_rng_int (&rng, 0, 2);
    p.fill[0] = 30;
    p.fill[1] = 200;
    p.fill[2] = -5;
    p.fill[3] = 300;
    if (rotate) {
      /* half of them small angles (a stabilizer's), where most pixels
       * are far from the borders */
      const double angle = test_rng_range (&rng, -0.5, 0.5);
      test_rotation_zoom (test_rng_int (&rng, 0, 1) ? angle : 0.05 * angle,
          zx, sw, sh, dw, dh, m);
      if (test_rng_int (&rng, 0, 3) == 0) {
        /* a perspective map (the general path's non-affine pixels) */
        m[6] = test_rng_range (&rng, -0.5, 0.5) / (dw + 1.0);
        m[7] = test_rng_range (&rng, -0.5, 0.5) / (dh + 1.0);
      }
    } else {
      bspline_matrix_identity (m);
      m[0] = (double) sw / dw;
      m[2] = test_rng_range (&rng, -1.0, 1.0);
      m[4] = (double) sh / dh;
      m[5] = test_rng_range (&rng, -1.0, 1.0);
    }
    test_image_alloc (&src, sw, sh, C, pick_type (&rng),
        test_rng_int (&rng, 0, 5));
    /* float outputs show a change of one unit in the last place */
    test_image_alloc (&dst, dw, dh, C, rotate && test_rng_int (&rng, 0, 1) ?
        BSPLINE_SAMPLE_F32 : pick_type (&rng),
        test_rng_int (&rng, 0, 5));
    if (src.type == BSPLINE_SAMPLE_U16)
      src.bits = 10, src.shift = 6;
    if (dst.type == BSPLINE_SAMPLE_U16)
      dst.bits = 10, dst.shift = 6;
    fill_source (&src, &rng);
    if (bspline_plan_new (&p, m, sw, sh, dw, dh, C, &plan, msg,
            sizeof (msg)) != BSPLINE_OK) {
      printf ("case %d: plan: %s\n", k, msg);
      return 1;
    }
    if (bspline_cpu_execute (one, plan, &src, &dst) != BSPLINE_OK) {
      printf ("case %d: %s\n", k, bspline_cpu_last_error (one));
      return 1;
    }
    h1 = hash_image (&dst);
    memset (dst.data, 0, (size_t) dh * dst.stride);
    if (bspline_cpu_execute (three, plan, &src, &dst) != BSPLINE_OK) {
      printf ("case %d: %s\n", k, bspline_cpu_last_error (three));
      return 1;
    }
    h3 = hash_image (&dst);
    /* the line test_kernels.py compares; the thread check is this
     * program's own */
    printf ("case %d: %dx%d %s C=%d -> %dx%d %s, %s order %d, %s, %s, %s%s: "
        "%016llx%s\n", k, sw, sh, test_type_name (src.type), C, dw, dh,
        test_type_name (dst.type), p.method == BSPLINE_METHOD_BICUBIC ?
        "bicubic" : "bspline", p.order, test_boundary_name (p.boundary),
        test_precision_name (p.precision), rotate ? "rotated" : "separable",
        p.antialias ? ", antialias" : "", (unsigned long long) h1,
        h1 == h3 ? "" : " THREADS DIFFER");
    bspline_plan_free (plan);
    test_image_free (&src);
    test_image_free (&dst);
  }
  bspline_cpu_free (one);
  bspline_cpu_free (three);
  return 0;
}
