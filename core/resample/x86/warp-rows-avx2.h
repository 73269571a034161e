/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* warp-rows-avx2.h: the general path's fast rows with AVX2 gathers, eight
 * pixels a vector (orders 0-5 and bicubic; 1, 2 and 4 channels), each lane
 * the same operations in the same order as resample.c's fast_pixel.
 *
 * Not installed.  Included once by core/resample/resample.c only, where
 * BSPLINE_X86_DISPATCH is 1: it uses that file's static helpers
 * (fast_pixel, point_at, store_values_f, ...) and defines the
 * warp_rows_avx2_* functions that its warp_rows_fast_for picks. */
#ifndef BSPLINE_X86_WARP_ROWS_AVX2_H
#define BSPLINE_X86_WARP_ROWS_AVX2_H

#include <immintrin.h>

/* The fast rows of a one-channel plane under an unwidened affine map,
 * B-spline orders 0-5, eight pixels a vector where AVX2 is there: each
 * lane takes fast_pixel's operations in the same order (the coordinates
 * in double, floor, the weights by the same recursion in float, the sums
 * of gathered coefficients without fused multiply-adds), so the values
 * are the same bits; a group of eight with any pixel that fast_pixel
 * would not take on its fast branch (taps past the stored plane, no input
 * point) goes through fast_pixel pixel by pixel.  Two and four
 * channels: four or two pixels a vector, one tap's values in each part.
 * The offsets are 32-bit: the caller checks that the stored plane has
 * fewer than 2^31 values. */
/* bspline_keys_f, lane by lane: both branches, then selected. */
__attribute__ ((target ("avx2"), always_inline))
static inline __m256
keys_avx2 (__m256 a, __m256 x)
{
  const __m256 one = _mm256_set1_ps (1.0f), two = _mm256_set1_ps (2.0f);
  const __m256 ax = _mm256_andnot_ps (_mm256_set1_ps (-0.0f), x);
  const __m256 near = _mm256_mul_ps (_mm256_sub_ps (ax, one),
      _mm256_sub_ps (_mm256_mul_ps (_mm256_sub_ps (_mm256_mul_ps
                  (_mm256_add_ps (a, two), ax), one), ax), one));
  const __m256 far = _mm256_mul_ps (_mm256_mul_ps (_mm256_mul_ps (a,
              _mm256_sub_ps (ax, one)), _mm256_sub_ps (ax, two)),
      _mm256_sub_ps (ax, two));
  return _mm256_blendv_ps (_mm256_and_ps (far, _mm256_cmp_ps (ax, two,
              _CMP_LT_OQ)), near, _mm256_cmp_ps (ax, one, _CMP_LE_OQ));
}

/* The weights of one axis at fractional positions t (bspline_weights_f,
 * or bspline_keys_weights_f for ORDER -1), lane by lane. */
__attribute__ ((target ("avx2"), always_inline))
static inline void
weights_avx2 (const int ORDER, float bicubic_a, const float *inv, __m256 t,
    __m256 * w)
{
  int k, a;
  if (ORDER < 0) {
    const __m256 va = _mm256_set1_ps (bicubic_a), one = _mm256_set1_ps (1.0f);
    w[0] = keys_avx2 (va, _mm256_add_ps (t, one));
    w[1] = keys_avx2 (va, t);
    w[2] = keys_avx2 (va, _mm256_sub_ps (one, t));
    w[3] = keys_avx2 (va, _mm256_sub_ps (_mm256_set1_ps (2.0f), t));
    return;
  }
  w[0] = _mm256_set1_ps (1.0f);
  for (k = 1; k <= ORDER; k++) {
    const __m256 inv_k = _mm256_set1_ps (inv[k]);
    __m256 prev = _mm256_setzero_ps ();
    for (a = 0; a < k; a++) {
      __m256 wa = w[a];
      w[a] = _mm256_add_ps (prev, _mm256_mul_ps (_mm256_mul_ps
              (_mm256_sub_ps (_mm256_set1_ps ((float) (a + 1)), t), inv_k),
              wa));
      prev = _mm256_mul_ps (_mm256_mul_ps (_mm256_add_ps (t,
                  _mm256_set1_ps ((float) (k - 1 - a))), inv_k), wa);
    }
    w[k] = prev;
  }
}

/* One pixel of warp_rows_avx2_body that the vectors do not take: as
 * warp_rows_fast_body does it. */
__attribute__ ((always_inline))
static inline void
warp_pixel_avx2_exception (const bspline_plan * plan,
    const bspline_coefficients * coef, float *acc, const double *row,
    int widened, int j, int i, const int ORDER, const int C)
{
  double x, y, widen_x = 1.0, widen_y = 1.0;
  int c;
  if (row ? point_at (plan, row, widened, j, &x, &y, &widen_x, &widen_y) :
      fast_map (plan->inverse, 1, j, i, &x, &y)) {
    fast_pixel (plan, coef, x, y, widen_x, widen_y, ORDER, C,
        acc + (ptrdiff_t) j * C);
  } else {
    for (c = 0; c < C; c++)
      acc[(ptrdiff_t) j * C + c] = (float) plan->params.fill[c];
  }
}

/* The affine map's rows, or a lens plan's rows of points (points not
 * NULL, its rows first .. last - 1; point-cache.c): the input points are
 * then the stored doubles, which fast_pixel would take, and where the rows
 * have widened pixels (`widened`), a group of eight with one (kernel
 * widening other than 1 along either axis) goes pixel by pixel too. */
__attribute__ ((target ("avx2"), always_inline))
static inline void
warp_rows_avx2_body (const bspline_plan * plan,
    const bspline_coefficients * coef, float *acc, const bspline_image * dst,
    int first, int last, const double *points, int widened, const int ORDER,
    const int C)
{
  const double *m = plan->inverse;
  const int W = plan->dst_width;
  const int widen = points && widened;
  const __m256d one = _mm256_set1_pd (1.0);
  const int N = ORDER < 0 ? 4 : ORDER + 1;
  const int row_len = (int) coef->row_len;
  const float a_f = (float) plan->axis_x.bicubic_a;
  const float *data = (const float *) coef->data;
  const __m256d lane = _mm256_set_pd (3.5, 2.5, 1.5, 0.5);
  const __m256d m0 = _mm256_set1_pd (m[0]), m3 = _mm256_set1_pd (m[3]);
  const __m256d half = _mm256_set1_pd (0.5);
  /* bspline_origin_d: u = x + (n + 1) / 2, origin floor (u) - n; bicubic
   * (fast_axis_taps): origin floor (x) - 1 */
  const __m256d shift = _mm256_set1_pd (ORDER < 0 ? 0.0 :
      (double) (ORDER + 1) * 0.5);
  const __m256d lo = _mm256_set1_pd (-1e6), hi = _mm256_set1_pd (1e6);
  const __m256i pad = _mm256_set1_epi32 (plan->pad - (ORDER < 0 ? 1 :
          ORDER));
  const __m256i most_x = _mm256_set1_epi32 (plan->axis_x.len
      + 2 * plan->pad - N);
  const __m256i most_y = _mm256_set1_epi32 (plan->axis_y.len
      + 2 * plan->pad - N);
  const __m256i zero = _mm256_setzero_si256 ();
  const __m256i vrow = _mm256_set1_epi32 (row_len);
  float inv[BSPLINE_MAX_TAPS];
  int i, j, k, q, a, b;

  for (k = 1; k <= ORDER; k++)
    inv[k] = 1.0f / (float) k;
  for (i = first; i < last; i++) {
    const double v = i + 0.5;
    const __m256d ry = _mm256_set1_pd (m[4] * v), rx = _mm256_set1_pd (m[1]
        * v);
    const __m256d cx = _mm256_set1_pd (m[2]), cy = _mm256_set1_pd (m[5]);
    const double *row = points ? points + point_row_offset (plan, i, first) :
        NULL;
    for (j = 0; j + 8 <= W; j += 8) {
      __m256d xs[2], ys[2], tx[2], ty[2];
      __m128i ox[2], oy[2];
      __m256i bx, by, ok;
      __m256 wx[BSPLINE_MAX_TAPS], wy[BSPLINE_MAX_TAPS], sum;
      int good = 1;
      for (q = 0; q < 2; q++) {
        __m256d x, y, fx, fy;
        if (row) {
          /* NaN where there is no input point: not good below */
          x = _mm256_loadu_pd (row + j + 4 * q);
          y = _mm256_loadu_pd (row + W + j + 4 * q);
          if (widen)
            good &= _mm256_movemask_pd (_mm256_and_pd (_mm256_cmp_pd
                    (_mm256_loadu_pd (row + 2 * W + j + 4 * q), one,
                        _CMP_EQ_OQ), _mm256_cmp_pd (_mm256_loadu_pd (row
                            + 3 * W + j + 4 * q), one, _CMP_EQ_OQ))) == 15;
        } else {
          /* u = j + 4 q + 0.5 + lane, exactly as (j + 4 q + lane) + 0.5 */
          __m256d u = _mm256_add_pd (_mm256_set1_pd ((double) (j + 4 * q)),
              lane);
          x = _mm256_add_pd (_mm256_add_pd (_mm256_mul_pd (m0, u), rx), cx);
          y = _mm256_add_pd (_mm256_add_pd (_mm256_mul_pd (m3, u), ry), cy);
        }
        xs[q] = _mm256_sub_pd (x, half);
        ys[q] = _mm256_sub_pd (y, half);
        good &= _mm256_movemask_pd (_mm256_and_pd (_mm256_and_pd
                (_mm256_cmp_pd (xs[q], lo, _CMP_GT_OQ), _mm256_cmp_pd (xs[q],
                        hi, _CMP_LT_OQ)), _mm256_and_pd (_mm256_cmp_pd (ys[q],
                        lo, _CMP_GT_OQ), _mm256_cmp_pd (ys[q], hi,
                        _CMP_LT_OQ)))) == 15;
        if (ORDER >= 0) {
          xs[q] = _mm256_add_pd (xs[q], shift);
          ys[q] = _mm256_add_pd (ys[q], shift);
        }
        fx = _mm256_floor_pd (xs[q]);
        fy = _mm256_floor_pd (ys[q]);
        tx[q] = _mm256_sub_pd (xs[q], fx);
        ty[q] = _mm256_sub_pd (ys[q], fy);
        ox[q] = _mm256_cvttpd_epi32 (fx);
        oy[q] = _mm256_cvttpd_epi32 (fy);
      }
      if (!good)
        goto scalar;
      /* bases = origin - ORDER + pad, within 0 .. len + 2 pad - N */
      bx = _mm256_add_epi32 (_mm256_set_m128i (ox[1], ox[0]), pad);
      by = _mm256_add_epi32 (_mm256_set_m128i (oy[1], oy[0]), pad);
      ok = _mm256_or_si256 (_mm256_or_si256 (_mm256_cmpgt_epi32 (zero, bx),
              _mm256_cmpgt_epi32 (bx, most_x)),
          _mm256_or_si256 (_mm256_cmpgt_epi32 (zero, by),
              _mm256_cmpgt_epi32 (by, most_y)));
      if (!_mm256_testz_si256 (ok, ok))
        goto scalar;
      /* the weights, lane by lane */
      weights_avx2 (ORDER, a_f, inv, _mm256_set_m128 (_mm256_cvtpd_ps
              (tx[1]), _mm256_cvtpd_ps (tx[0])), wx);
      weights_avx2 (ORDER, a_f, inv, _mm256_set_m128 (_mm256_cvtpd_ps
              (ty[1]), _mm256_cvtpd_ps (ty[0])), wy);
      /* the sums: offset of tap (0, 0) = by row_len + bx C */
      bx = _mm256_add_epi32 (_mm256_mullo_epi32 (by, vrow), C == 1 ? bx :
          _mm256_slli_epi32 (bx, C == 2 ? 1 : 2));
      if (C == 1) {
        sum = _mm256_setzero_ps ();
        for (b = 0; b < N; b++) {
          __m256 line = _mm256_setzero_ps ();
          for (a = 0; a < N; a++)
            line = _mm256_add_ps (line, _mm256_mul_ps (wx[a],
                    _mm256_i32gather_ps (data + (ptrdiff_t) b * row_len + a,
                        bx, 4)));
          sum = _mm256_add_ps (sum, _mm256_mul_ps (wy[b], line));
        }
        _mm256_storeu_ps (acc + j, sum);
      } else if (C == 2) {
        /* two channels: pixels p .. p + 3 in the quarters of a vector,
         * each quarter one tap's two values, its weight in both lanes */
        int off[8];
        _mm256_storeu_si256 ((__m256i *) off, bx);
        for (q = 0; q < 8; q += 4) {
          const __m256i pick = _mm256_setr_epi32 (q, q, q + 1, q + 1, q + 2,
              q + 2, q + 3, q + 3);
          const float *s0 = data + off[q], *s1 = data + off[q + 1];
          const float *s2 = data + off[q + 2], *s3 = data + off[q + 3];
          sum = _mm256_setzero_ps ();
          for (b = 0; b < N; b++) {
            const ptrdiff_t r = (ptrdiff_t) b * row_len;
            __m256 line = _mm256_setzero_ps ();
            for (a = 0; a < N; a++) {
              const __m128 lo = _mm_castpd_ps (_mm_loadh_pd (_mm_load_sd
                      ((const double *) (s0 + r + 2 * a)),
                      (const double *) (s1 + r + 2 * a)));
              const __m128 hi = _mm_castpd_ps (_mm_loadh_pd (_mm_load_sd
                      ((const double *) (s2 + r + 2 * a)),
                      (const double *) (s3 + r + 2 * a)));
              line = _mm256_add_ps (line, _mm256_mul_ps
                  (_mm256_permutevar8x32_ps (wx[a], pick),
                      _mm256_set_m128 (hi, lo)));
            }
            sum = _mm256_add_ps (sum, _mm256_mul_ps
                (_mm256_permutevar8x32_ps (wy[b], pick), line));
          }
          _mm256_storeu_ps (acc + (ptrdiff_t) (j + q) * 2, sum);
        }
      } else {
        /* four channels: pixels p and p + 1 in the halves of a vector,
         * each half one tap's four values, its weight in all four lanes */
        int off[8];
        _mm256_storeu_si256 ((__m256i *) off, bx);
        for (q = 0; q < 8; q += 2) {
          const __m256i pick = _mm256_setr_epi32 (q, q, q, q, q + 1, q + 1,
              q + 1, q + 1);
          const float *s0 = data + off[q], *s1 = data + off[q + 1];
          sum = _mm256_setzero_ps ();
          for (b = 0; b < N; b++) {
            __m256 line = _mm256_setzero_ps ();
            for (a = 0; a < N; a++)
              line = _mm256_add_ps (line, _mm256_mul_ps
                  (_mm256_permutevar8x32_ps (wx[a], pick),
                      _mm256_loadu2_m128 (s1 + (ptrdiff_t) b * row_len
                          + 4 * a, s0 + (ptrdiff_t) b * row_len + 4 * a)));
            sum = _mm256_add_ps (sum, _mm256_mul_ps
                (_mm256_permutevar8x32_ps (wy[b], pick), line));
          }
          _mm256_storeu_ps (acc + (ptrdiff_t) (j + q) * 4, sum);
        }
      }
      continue;
    scalar:
      for (q = j; q < j + 8; q++)
        warp_pixel_avx2_exception (plan, coef, acc, row, widened, q, i,
            ORDER, C);
    }
    for (; j < W; j++)
      warp_pixel_avx2_exception (plan, coef, acc, row, widened, j, i, ORDER, C);
    store_values_f (dst, i, 0, acc, (ptrdiff_t) W * C);
  }
}

#define WARP_AVX2_CASE(NAME, ORDER, C) \
__attribute__ ((target ("avx2"))) static void \
warp_rows_avx2_##NAME##_##C (const bspline_plan * plan, \
    const bspline_coefficients * coef, float *acc, \
    const bspline_image * dst, int first, int last, const double *points, \
    int widened) \
{ \
  warp_rows_avx2_body (plan, coef, acc, dst, first, last, points, widened, \
      ORDER, C); \
}
#define WARP_AVX2_CASES(NAME, ORDER) \
  WARP_AVX2_CASE (NAME, ORDER, 1) WARP_AVX2_CASE (NAME, ORDER, 2) \
  WARP_AVX2_CASE (NAME, ORDER, 4)
WARP_AVX2_CASES (0, 0) WARP_AVX2_CASES (1, 1) WARP_AVX2_CASES (2, 2)
WARP_AVX2_CASES (3, 3) WARP_AVX2_CASES (4, 4) WARP_AVX2_CASES (5, 5)
WARP_AVX2_CASES (bicubic, -1)
#undef WARP_AVX2_CASE
#undef WARP_AVX2_CASES

#endif /* BSPLINE_X86_WARP_ROWS_AVX2_H */
