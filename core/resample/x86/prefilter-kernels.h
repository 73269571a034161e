/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* prefilter-kernels.h: prefilter.c's AVX-512 and AVX2 kernels: the
 * output of a group of RGBA rows (with the causal recursion along y), the
 * anticausal recursion into the output rows and the loading of 8-bit RGBA
 * rows into a group, each computing what the plain C loop of
 * prefilter-impl.h computes, bit for bit.
 *
 * Not installed.  Included once by core/resample/prefilter.c only, where
 * BSPLINE_X86_DISPATCH is 1: it defines the static functions
 * (group_out_all_f, anticausal_out_all_f, load_group_rgba8_f,
 * load_causal_f, ...) whose plain C twins prefilter.c defines otherwise. */
#ifndef BSPLINE_X86_PREFILTER_KERNELS_H
#define BSPLINE_X86_PREFILTER_KERNELS_H

#include "group-rgba.h"

/* group_out of a whole group of four-channel float rows where AVX-512 is
 * there: rows q = 0 .. count - 1 of buf (interleaved, see resample.h) into
 * out[q], each after the causal recursion along y against the row above
 * when chain is set (the row above row 0 is prev; none when prev is
 * NULL), s_k = x_k + z s_{k-1} ([BD19] eq. 15, across rows), with the
 * fused multiply-add of line_out (prefilter-impl.h), so the values are
 * the same.  Four pixels of the eight rows are read at once (eight
 * vectors) and transposed by 128-bit lanes, instead of the whole buffer
 * once per row as the C loop does.  Returns 0 where it does not apply. */

/* Pixels x .. n - 1 of group_out_rgba_body and its AVX2 twin, one value
 * at a time: the same operations in the same order as their vectors. */
__attribute__ ((always_inline))
static inline void
group_out_rgba_tail (const float *buf, int count, float *const *out,
    const float *prev, int chain, float z, int x, int n)
{
  int q, c;
  for (; x < n; x++)
    for (c = 0; c < 4; c++) {
      float s = buf[(ptrdiff_t) x * BSPLINE_GROUP_LANES + c];
      if (chain && prev)
        s = fmaf (z, prev[4 * x + c], s);
      out[0][4 * x + c] = s;
      for (q = 1; q < count; q++) {
        float u = buf[(ptrdiff_t) x * BSPLINE_GROUP_LANES + 4 * q + c];
        s = chain ? fmaf (z, s, u) : u;
        out[q][4 * x + c] = s;
      }
    }
}

/* Pixels x .. x + 3 of rows 0 .. count - 1 of a group, one vector per
 * row (r[q]), into out[q], chained along y as group_out_rgba_tail does. */
__attribute__ ((target ("avx512f,fma"), always_inline))
static inline void
group_rows_out_avx512 (const __m512 * r, int count, float *const *out,
    const float *prev, int chain, __m512 vz, int x)
{
  __m512 v = r[0];
  int q;
  if (chain && prev)
    v = _mm512_fmadd_ps (vz, _mm512_loadu_ps (prev + 4 * x), v);
  _mm512_storeu_ps (out[0] + 4 * x, v);
  for (q = 1; q < count; q++) {
    v = chain ? _mm512_fmadd_ps (vz, v, r[q]) : r[q];
    _mm512_storeu_ps (out[q] + 4 * x, v);
  }
}

__attribute__ ((target ("avx512f,fma"), always_inline))
static inline void
group_out_rgba_body (const float *buf, int count,
    float *const *out, const float *prev, int chain, float z, int n)
{
  const __m512 vz = _mm512_set1_ps (z);
  int x, k;

  for (x = 0; x + 4 <= n; x += 4) {
    const float *b = buf + (ptrdiff_t) x * BSPLINE_GROUP_LANES;
    __m512 a[8], r[8];
    for (k = 0; k < 8; k++)
      a[k] = _mm512_loadu_ps (b + 16 * k);
    bspline_group_rows_rgba_avx512 (a, r);
    group_rows_out_avx512 (r, count, out, prev, chain, vz, x);
  }
  group_out_rgba_tail (buf, count, out, prev, chain, z, x, n);
}

/* The whole chained group (count 8, the common case) is compiled apart,
 * with the count a constant: the eight rows then stay in registers (with
 * a variable count, GCC keeps r[] on the stack). */
__attribute__ ((target ("avx512f,fma")))
static void
group_out_rgba_avx512 (const float *buf, int count,
    float *const *out, const float *prev, int chain, float z, int n)
{
  if (count == 8 && chain)
    group_out_rgba_body (buf, 8, out, prev, 1, z, n);
  else
    group_out_rgba_body (buf, count, out, prev, chain, z, n);
}

/* The last anticausal recursion along x of a whole group of eight
 * four-channel float rows (left by filter_group: pixel n - 1 holds its
 * initialisation) fused with group_out_rgba_body's chained pass where
 * AVX-512 is there: the recursion runs from pixel n - 2 down to 0, four
 * pixels at a time, and each block of four goes out along its eight rows
 * at once instead of being stored into buf and read back.  The operations
 * are those of filter_lines and line_out in their order (the recursion of
 * every lane is the same chain; each pixel's rows are chained on their
 * own), so the values are the same. */
__attribute__ ((target ("avx512f,fma")))
static void
anticausal_out_rgba_avx512 (float *buf, float *const *out,
    const float *prev, float z, int n)
{
  const __m512 vz = _mm512_set1_ps (z);
  const int xa = n & ~3;
  float *e = buf + (ptrdiff_t) (n - 1) * BSPLINE_GROUP_LANES;
  __m512 s0 = _mm512_loadu_ps (e), s1 = _mm512_loadu_ps (e + 16);
  int x, p;

  /* pixels xa .. n - 1, one at a time */
  for (x = n - 2; x >= xa; x--) {
    float *b = buf + (ptrdiff_t) x * BSPLINE_GROUP_LANES;
    s0 = _mm512_fmsub_ps (vz, s0, _mm512_mul_ps (vz, _mm512_loadu_ps (b)));
    s1 = _mm512_fmsub_ps (vz, s1, _mm512_mul_ps (vz,
            _mm512_loadu_ps (b + 16)));
    _mm512_storeu_ps (b, s0);
    _mm512_storeu_ps (b + 16, s1);
  }
  group_out_rgba_tail (buf, 8, out, prev, 1, z, xa, n);
  for (x = xa - 4; x >= 0; x -= 4) {
    const float *b = buf + (ptrdiff_t) x * BSPLINE_GROUP_LANES;
    __m512 a[8], r[8];
    for (p = 3; p >= 0; p--) {
      a[2 * p] = _mm512_loadu_ps (b + p * BSPLINE_GROUP_LANES);
      a[2 * p + 1] = _mm512_loadu_ps (b + p * BSPLINE_GROUP_LANES + 16);
      if (x + p < n - 1) {
        s0 = _mm512_fmsub_ps (vz, s0, _mm512_mul_ps (vz, a[2 * p]));
        s1 = _mm512_fmsub_ps (vz, s1, _mm512_mul_ps (vz, a[2 * p + 1]));
        a[2 * p] = s0;
        a[2 * p + 1] = s1;
      } else {
        s0 = a[2 * p];
        s1 = a[2 * p + 1];
      }
    }
    bspline_group_rows_rgba_avx512 (a, r);
    group_rows_out_avx512 (r, 8, out, prev, 1, vz, x);
  }
}

/* group_out_rgba_avx512 for AVX2 machines: two pixels of the eight rows
 * (eight vectors) at a time, the same operations in the same order. */
__attribute__ ((target ("avx2,fma"), always_inline))
static inline void
group_out_rgba_body_avx2 (const float *buf, int count,
    float *const *out, const float *prev, int chain, float z, int n)
{
  const __m256 vz = _mm256_set1_ps (z);
  int x, q, h;

  for (x = 0; x + 2 <= n; x += 2) {
    const float *b = buf + (ptrdiff_t) x * BSPLINE_GROUP_LANES;
    __m256 r[8], v;
    for (h = 0; h < 4; h++) {
      __m256 g0 = _mm256_loadu_ps (b + 8 * h);
      __m256 g1 = _mm256_loadu_ps (b + BSPLINE_GROUP_LANES + 8 * h);
      r[2 * h] = _mm256_permute2f128_ps (g0, g1, 0x20);
      r[2 * h + 1] = _mm256_permute2f128_ps (g0, g1, 0x31);
    }
    v = r[0];
    if (chain && prev)
      v = _mm256_fmadd_ps (vz, _mm256_loadu_ps (prev + 4 * x), v);
    _mm256_storeu_ps (out[0] + 4 * x, v);
    for (q = 1; q < count; q++) {
      v = chain ? _mm256_fmadd_ps (vz, v, r[q]) : r[q];
      _mm256_storeu_ps (out[q] + 4 * x, v);
    }
  }
  group_out_rgba_tail (buf, count, out, prev, chain, z, x, n);
}

__attribute__ ((target ("avx2,fma")))
static void
group_out_rgba_avx2 (const float *buf, int count,
    float *const *out, const float *prev, int chain, float z, int n)
{
  if (count == 8 && chain)
    group_out_rgba_body_avx2 (buf, 8, out, prev, 1, z, n);
  else
    group_out_rgba_body_avx2 (buf, count, out, prev, chain, z, n);
}

static int
group_out_all_f (const bspline_plan * plan, const float *buf, int count,
    float *const *out, const float *prev, int chain, float z)
{
  const int n = plan->src_width + 2 * plan->pad;
  if (plan->channels != 4)
    return 0;
  if (bspline_x86_avx512 ())
    group_out_rgba_avx512 (buf, count, out, prev, chain, z, n);
  else if (bspline_x86_avx2 ())
    group_out_rgba_avx2 (buf, count, out, prev, chain, z, n);
  else
    return 0;
  return 1;
}

/* Whether anticausal_out_all_f takes a group of count rows of plan. */
static int
anticausal_out_usable_f (const bspline_plan * plan, int count)
{
  return plan->channels == 4 && count == 8 && bspline_group_rows (4) == 8
      && bspline_x86_avx512 ();
}

static void
anticausal_out_all_f (const bspline_plan * plan, float *buf,
    float *const *out, const float *prev, float z)
{
  anticausal_out_rgba_avx512 (buf, out, prev, z,
      plan->src_width + 2 * plan->pad);
}

/* The source pixels of eight four-channel U8 rows into the body of a
 * group (interleaved, see resample.h), each value converted and times
 * gain as read_row and interleave (prefilter-impl.h) do, so the values
 * are the same: four pixels of the eight rows are loaded (eight vectors)
 * and transposed by 128-bit lanes, so that the group takes whole-vector
 * stores instead of one 128-bit store per pixel and row. */
__attribute__ ((target ("avx512f")))
static void
load_group_rgba8_avx512 (float *body, const uint8_t * const *row, float gain,
    int n)
{
  const __m512 g = _mm512_set1_ps (gain);
  int x, q, c;

  for (x = 0; x + 4 <= n; x += 4) {
    float *b = body + (ptrdiff_t) x * BSPLINE_GROUP_LANES;
    __m512 r[8];
    for (q = 0; q < 8; q++)
      r[q] = _mm512_mul_ps (_mm512_cvtepi32_ps (_mm512_cvtepu8_epi32
              (_mm_loadu_si128 ((const __m128i *) (row[q] + 4 * x)))), g);
    bspline_group_store_rgba_avx512 (b, r);
  }
  for (; x < n; x++)
    for (q = 0; q < 8; q++)
      for (c = 0; c < 4; c++)
        body[(ptrdiff_t) x * BSPLINE_GROUP_LANES + 4 * q + c] =
            (float) row[q][4 * x + c] * gain;
}

/* load_group_rgba8_avx512 for AVX2 machines: two pixels of the eight rows
 * (eight vectors) at a time. */
__attribute__ ((target ("avx2")))
static void
load_group_rgba8_avx2 (float *body, const uint8_t * const *row, float gain,
    int n)
{
  const __m256 g = _mm256_set1_ps (gain);
  int x, q, c;

  for (x = 0; x + 2 <= n; x += 2) {
    __m256 r[8];
    for (q = 0; q < 8; q++)
      r[q] = _mm256_mul_ps (_mm256_cvtepi32_ps (_mm256_cvtepu8_epi32
              (_mm_loadl_epi64 ((const __m128i *) (row[q] + 4 * x)))), g);
    bspline_group_store_rgba_avx2 (body + (ptrdiff_t) x *
        BSPLINE_GROUP_LANES, r);
  }
  for (; x < n; x++)
    for (q = 0; q < 8; q++)
      for (c = 0; c < 4; c++)
        body[(ptrdiff_t) x * BSPLINE_GROUP_LANES + 4 * q + c] =
            (float) row[q][4 * x + c] * gain;
}

/* Pixels x0 .. x1 - 1 of the body of a group of eight four-channel U8
 * rows (see load_group_rgba8_avx512). */
static int
load_group_rgba8_f (const bspline_plan * plan, const bspline_image * src,
    float *body, const uint8_t * const *row, float gain, int x0, int x1)
{
  const uint8_t *r[8];
  int q;
  if (plan->channels != 4 || src->type != BSPLINE_SAMPLE_U8
      || bspline_group_rows (4) != 8)
    return 0;
  for (q = 0; q < 8; q++)
    r[q] = row[q] + 4 * x0;
  body += (ptrdiff_t) x0 * BSPLINE_GROUP_LANES;
  if (bspline_x86_avx512 ())
    load_group_rgba8_avx512 (body, r, gain, x1 - x0);
  else if (bspline_x86_avx2 ())
    load_group_rgba8_avx2 (body, r, gain, x1 - x0);
  else
    return 0;
  return 1;
}

/* Pixel x of the body of such a group, loaded and filtered causally from
 * pixel x - 1 as load_group_rgba8_avx512 and filter_lines do. */
__attribute__ ((target ("avx512f,fma"), always_inline))
static inline void
load_causal_pixel (float *body, const uint8_t * const *row, float gain,
    float z, int x)
{
  float *b = body + (ptrdiff_t) x * BSPLINE_GROUP_LANES;
  int q, c;
  for (q = 0; q < 8; q++)
    for (c = 0; c < 4; c++)
      b[4 * q + c] = fmaf (z, b[4 * q + c - BSPLINE_GROUP_LANES],
          (float) row[q][4 * x + c] * gain);
}

/* Pixels x0 .. n - 1 (x0 >= 1, or a padded body) of the body of a group of
 * eight four-channel U8 rows, loaded and filtered causally along x from
 * pixel x0 - 1 on: load_group_rgba8_avx512's loads and transposes, then
 * the recursion of filter_lines on the four pixels in registers, so that
 * the group is written once instead of written, read and written again.
 * The same operations in the same order, so the same values. */
__attribute__ ((target ("avx512f,fma")))
static void
load_causal_rgba8_avx512 (float *body, const uint8_t * const *row,
    float gain, float z, int x0, int n)
{
  const __m512 g = _mm512_set1_ps (gain), vz = _mm512_set1_ps (z);
  __m512 s0, s1;
  int x = x0, q, p;

  for (; x < n && (x & 3); x++)
    load_causal_pixel (body, row, gain, z, x);
  s0 = _mm512_loadu_ps (body + (ptrdiff_t) (x - 1) * BSPLINE_GROUP_LANES);
  s1 = _mm512_loadu_ps (body + (ptrdiff_t) (x - 1) * BSPLINE_GROUP_LANES
      + 16);
  for (; x + 4 <= n; x += 4) {
    float *b = body + (ptrdiff_t) x * BSPLINE_GROUP_LANES;
    __m512 r[8], a[8];
    for (q = 0; q < 8; q++)
      r[q] = _mm512_mul_ps (_mm512_cvtepi32_ps (_mm512_cvtepu8_epi32
              (_mm_loadu_si128 ((const __m128i *) (row[q] + 4 * x)))), g);
    bspline_group_transpose_rgba_avx512 (r, a);
    for (p = 0; p < 4; p++) {
      s0 = _mm512_fmadd_ps (vz, s0, a[2 * p]);
      s1 = _mm512_fmadd_ps (vz, s1, a[2 * p + 1]);
      _mm512_storeu_ps (b + p * BSPLINE_GROUP_LANES, s0);
      _mm512_storeu_ps (b + p * BSPLINE_GROUP_LANES + 16, s1);
    }
  }
  for (; x < n; x++)
    load_causal_pixel (body, row, gain, z, x);
}

static int
load_causal_usable_f (const bspline_plan * plan)
{
  return plan->channels == 4 && bspline_group_rows (4) == 8
      && bspline_x86_avx512 ();
}

static void
load_causal_f (float *body, const uint8_t * const *row, float gain, float z,
    int x0, int n)
{
  load_causal_rgba8_avx512 (body, row, gain, z, x0, n);
}

#endif /* BSPLINE_X86_PREFILTER_KERNELS_H */
