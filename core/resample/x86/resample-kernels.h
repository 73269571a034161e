/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resample-kernels.h: resample.c's AVX-512 and AVX2 kernels: the rounding
 * and packing of four-channel float sums into 8-bit samples, the
 * anticausal recursion of a group of RGBA rows and the separable path's
 * resampling of such a group along x, each beside the plain C loop of
 * resample.c (or resample-impl.h) that it computes bit for bit.
 *
 * Not installed.  Included once by core/resample/resample.c only, where
 * BSPLINE_X86_DISPATCH is 1: it defines the static functions
 * (sum4_store_u8_f, anticausal_group_impl_f, resample_group_rgba_f) whose
 * plain C twins resample.c defines otherwise. */
#ifndef BSPLINE_X86_RESAMPLE_KERNELS_H
#define BSPLINE_X86_RESAMPLE_KERNELS_H

#include "group-rgba.h"

/* BSPLINE_SUM4 of four weight vectors and the values at four addresses,
 * and BSPLINE_SUM4_FROM b. */
#define SUM4_512(w0, p0, w1, p1, w2, p2, w3, p3) \
  BSPLINE_SUM4 (_mm512_fmadd_ps, w0, _mm512_loadu_ps (p0), w1, \
      _mm512_loadu_ps (p1), w2, _mm512_loadu_ps (p2), w3, _mm512_loadu_ps (p3))
#define SUM4_256(w0, p0, w1, p1, w2, p2, w3, p3) \
  BSPLINE_SUM4 (_mm256_fmadd_ps, w0, _mm256_loadu_ps (p0), w1, \
      _mm256_loadu_ps (p1), w2, _mm256_loadu_ps (p2), w3, _mm256_loadu_ps (p3))
#define SUM4_FROM_512(b, w0, p0, w1, p1, w2, p2, w3, p3) \
  BSPLINE_SUM4_FROM (_mm512_fmadd_ps, b, w0, _mm512_loadu_ps (p0), w1, \
      _mm512_loadu_ps (p1), w2, _mm512_loadu_ps (p2), w3, _mm512_loadu_ps (p3))
#define SUM4_FROM_256(b, w0, p0, w1, p1, w2, p2, w3, p3) \
  BSPLINE_SUM4_FROM (_mm256_fmadd_ps, b, w0, _mm256_loadu_ps (p0), w1, \
      _mm256_loadu_ps (p1), w2, _mm256_loadu_ps (p2), w3, _mm256_loadu_ps (p3))

/* The V-pass of four taps and the U8 store fused in one loop, for float
 * where AVX-512 is there: 0.5 + w0 r0 + w1 r1 + w2 r2 + w3 r3 summed by
 * fused multiply-adds, clamped and truncated as sum4_u8_f (the C loop of
 * resample_columns) does, so the bytes are the same.
 *
 * The loop is bound by the two vector ports that take 512-bit operations
 * (four of them per vector are the sum, the rounding's 0.5 its first
 * addend), so the clamp costs one: u = min (255.5, v) (vminps returns its
 * second operand, v, when either is NaN), then t = (int32) u (cvttps2dq),
 * and the saturating packs (vpackusdw, vpackuswb) clamp t below at 0.  t
 * is what the C expression gives: 0 < v < 255.5 truncates alike;
 * v >= 255.5 gives 255; v <= 0, -inf or NaN give t <= 0 or the integer
 * indefinite 0x80000000 (negative), hence 0, as v > 0 ? v : 0 does.  Four
 * vectors of 16 values are packed into one 64-byte store (a vpermd puts the
 * 4-value pieces that the in-lane packs interleave back in order).
 * Returns 0 where it does not apply. */
__attribute__ ((target ("avx512f,avx512bw,fma")))
static void
sum4_store_u8_avx512 (uint8_t * out, const float *r0,
    const float *r1, const float *r2, const float *r3, const float *w, int n)
{
  const __m512 w0 = _mm512_set1_ps (w[0]), w1 = _mm512_set1_ps (w[1]);
  const __m512 w2 = _mm512_set1_ps (w[2]), w3 = _mm512_set1_ps (w[3]);
  const __m512 zero = _mm512_setzero_ps (), top = _mm512_set1_ps (255.5f);
  const __m512 half = _mm512_set1_ps (0.5f);
  const __m512i order = _mm512_setr_epi32 (0, 4, 8, 12, 1, 5, 9, 13, 2, 6,
      10, 14, 3, 7, 11, 15);
  int i, k;

  for (i = 0; i + 64 <= n; i += 64) {
    __m512i t[4];
    for (k = 0; k < 4; k++) {
      const int e = i + 16 * k;
      __m512 v = SUM4_FROM_512 (half, w0, r0 + e, w1, r1 + e, w2, r2 + e,
          w3, r3 + e);
      t[k] = _mm512_cvttps_epi32 (_mm512_min_ps (top, v));
    }
    _mm512_storeu_si512 ((void *) (out + i), _mm512_permutexvar_epi32 (order,
            _mm512_packus_epi16 (_mm512_packus_epi32 (t[0], t[1]),
                _mm512_packus_epi32 (t[2], t[3]))));
  }
  for (; i + 16 <= n; i += 16) {
    __m512 v = SUM4_FROM_512 (half, w0, r0 + i, w1, r1 + i, w2, r2 + i,
        w3, r3 + i);
    v = _mm512_min_ps (_mm512_max_ps (v, zero), top);
    _mm_storeu_si128 ((__m128i *) (out + i),
        _mm512_cvtepi32_epi8 (_mm512_cvttps_epi32 (v)));
  }
  for (; i < n; i++)
    out[i] = sum4_u8_f (w, r0[i], r1[i], r2[i], r3[i]);
}

/* sum4_store_u8_avx512 for AVX2 machines: eight values a vector, the
 * same operations (min, cvttps2dq and the saturating packs) in the same
 * order, so the bytes are the same; the packs interleave 4-value pieces
 * of the four vectors within 128-bit lanes, which a vpermd puts back. */
__attribute__ ((target ("avx2,fma")))
static void
sum4_store_u8_avx2 (uint8_t * out, const float *r0,
    const float *r1, const float *r2, const float *r3, const float *w, int n)
{
  const __m256 w0 = _mm256_set1_ps (w[0]), w1 = _mm256_set1_ps (w[1]);
  const __m256 w2 = _mm256_set1_ps (w[2]), w3 = _mm256_set1_ps (w[3]);
  const __m256 top = _mm256_set1_ps (255.5f), half = _mm256_set1_ps (0.5f);
  const __m256i order = _mm256_setr_epi32 (0, 4, 1, 5, 2, 6, 3, 7);
  int i, k;

  for (i = 0; i + 32 <= n; i += 32) {
    __m256i t[4];
    for (k = 0; k < 4; k++) {
      const int e = i + 8 * k;
      __m256 v = SUM4_FROM_256 (half, w0, r0 + e, w1, r1 + e, w2, r2 + e,
          w3, r3 + e);
      t[k] = _mm256_cvttps_epi32 (_mm256_min_ps (top, v));
    }
    _mm256_storeu_si256 ((__m256i *) (out + i),
        _mm256_permutevar8x32_epi32 (_mm256_packus_epi16
            (_mm256_packus_epi32 (t[0], t[1]), _mm256_packus_epi32 (t[2],
                    t[3])), order));
  }
  for (; i < n; i++)
    out[i] = sum4_u8_f (w, r0[i], r1[i], r2[i], r3[i]);
}

static int
sum4_store_u8_f (uint8_t * out, const float *r0, const float *r1,
    const float *r2, const float *r3, const float *w, int n)
{
  if (bspline_x86_avx512 ())
    sum4_store_u8_avx512 (out, r0, r1, r2, r3, w, n);
  else if (bspline_x86_avx2 ())
    sum4_store_u8_avx2 (out, r0, r1, r2, r3, w, n);
  else
    return 0;
  return 1;
}

/* Pixels x .. n - 1 of anticausal_group_rgba_body and its AVX2 twin, one
 * value at a time: the same operations in the same order as their
 * vectors, rows count .. 7 of buf copies of the last. */
__attribute__ ((always_inline))
static inline void
anticausal_group_rgba_tail (float *c, const float *const *s,
    const float *const *carry, const float *w, float z, float *buf,
    int count, int x, int n)
{
  int q, k;
  for (; x < n; x++)
    for (k = 0; k < 4; k++) {
      float v = c[4 * x + k];
      for (q = 0; q < 8; q++) {
        if (q < count && carry[q])
          v = BSPLINE_ANTICAUSAL_FUSED (z, v, fmaf (w[q],
                  carry[q][4 * x + k], s[q][4 * x + k]));
        else if (q < count)
          v = BSPLINE_ANTICAUSAL_FUSED (z, v, s[q][4 * x + k]);
        if (buf)
          buf[(ptrdiff_t) x * BSPLINE_GROUP_LANES + 4 * q + k] = v;
      }
      c[4 * x + k] = v;
    }
}

/* Up to eight anticausal steps of the streaming path for four-channel
 * float rows where AVX-512 is there: row q = 0 .. count - 1 is c_q =
 * z (c_{q-1} - (s_q + w_q carry_q)) (c_{-1} is c on entry; no carry term
 * where carry[q] is NULL), with the operations of anticausal_row_c
 * (resample-impl.h) in its order, so the values are the same; c_q goes
 * into lanes 4 q .. 4 q + 3 of buf (interleaved, see resample.h; not with
 * a NULL buf; rows count .. 7 get c_{count-1}) and c_{count-1} into c.
 * Four pixels of the eight rows stay in registers and are transposed by
 * 128-bit lanes, so that buf takes whole-vector stores and c is read and
 * written once per group instead of once per row. */
__attribute__ ((target ("avx512f,fma"), always_inline))
static inline void
anticausal_group_rgba_body (float *c, const float *const *s,
    const float *const *carry, const float *w, float z, float *buf,
    int count, int n)
{
  const __m512 vz = _mm512_set1_ps (z);
  int x, q;

  for (x = 0; x + 4 <= n; x += 4) {
    float *b = buf + (ptrdiff_t) x * BSPLINE_GROUP_LANES;
    __m512 r[8], v = _mm512_loadu_ps (c + 4 * x);
    for (q = 0; q < count; q++) {
      __m512 sv = _mm512_loadu_ps (s[q] + 4 * x);
      if (carry[q])
        sv = _mm512_fmadd_ps (_mm512_set1_ps (w[q]),
            _mm512_loadu_ps (carry[q] + 4 * x), sv);
      v = _mm512_fmsub_ps (vz, v, _mm512_mul_ps (vz, sv));
      r[q] = v;
    }
    for (; q < 8; q++)
      r[q] = v;
    _mm512_storeu_ps (c + 4 * x, v);
    if (buf)
      bspline_group_store_rgba_avx512 (b, r);
  }
  anticausal_group_rgba_tail (c, s, carry, w, z, buf, count, x, n);
}

/* The whole group (count 8, the common case) is compiled apart, with the
 * count a constant: the eight rows then stay in registers (with a
 * variable count, GCC keeps r[] on the stack). */
__attribute__ ((target ("avx512f,fma")))
static void
anticausal_group_rgba_avx512 (float *c, const float *const *s,
    const float *const *carry, const float *w, float z, float *buf,
    int count, int n)
{
  if (count == 8 && buf)
    anticausal_group_rgba_body (c, s, carry, w, z, buf, 8, n);
  else if (count == 8)
    anticausal_group_rgba_body (c, s, carry, w, z, NULL, 8, n);
  else
    anticausal_group_rgba_body (c, s, carry, w, z, buf, count, n);
}

/* anticausal_group_rgba_avx512 for AVX2 machines: two pixels of the
 * eight rows (eight vectors) at a time, the same operations in the same
 * order. */
__attribute__ ((target ("avx2,fma"), always_inline))
static inline void
anticausal_group_rgba_body_avx2 (float *c, const float *const *s,
    const float *const *carry, const float *w, float z, float *buf,
    int count, int n)
{
  const __m256 vz = _mm256_set1_ps (z);
  int x, q;

  for (x = 0; x + 2 <= n; x += 2) {
    __m256 r[8], v = _mm256_loadu_ps (c + 4 * x);
    for (q = 0; q < count; q++) {
      __m256 sv = _mm256_loadu_ps (s[q] + 4 * x);
      if (carry[q])
        sv = _mm256_fmadd_ps (_mm256_set1_ps (w[q]),
            _mm256_loadu_ps (carry[q] + 4 * x), sv);
      v = _mm256_fmsub_ps (vz, v, _mm256_mul_ps (vz, sv));
      r[q] = v;
    }
    for (; q < 8; q++)
      r[q] = v;
    _mm256_storeu_ps (c + 4 * x, v);
    if (buf)
      bspline_group_store_rgba_avx2 (buf + (ptrdiff_t) x *
          BSPLINE_GROUP_LANES, r);
  }
  anticausal_group_rgba_tail (c, s, carry, w, z, buf, count, x, n);
}

__attribute__ ((target ("avx2,fma")))
static void
anticausal_group_rgba_avx2 (float *c, const float *const *s,
    const float *const *carry, const float *w, float z, float *buf,
    int count, int n)
{
  if (count == 8 && buf)
    anticausal_group_rgba_body_avx2 (c, s, carry, w, z, buf, 8, n);
  else if (count == 8)
    anticausal_group_rgba_body_avx2 (c, s, carry, w, z, NULL, 8, n);
  else
    anticausal_group_rgba_body_avx2 (c, s, carry, w, z, buf, count, n);
}

static int
anticausal_group_impl_f (float *c, const float *const *s,
    const float *const *carry, const float *w, float z, float *buf,
    int count, int n)
{
  if (bspline_x86_avx512 ())
    anticausal_group_rgba_avx512 (c, s, carry, w, z, buf, count, n);
  else if (bspline_x86_avx2 ())
    anticausal_group_rgba_avx2 (c, s, carry, w, z, buf, count, n);
  else
    return 0;
  return 1;
}
/* resample_group_c (resample-impl.h) of four taps over a group of eight
 * four-channel float rows where AVX-512 is there: each output value is
 * w0 s0 + w1 s1 + w2 s2 + w3 s3 summed by fused multiply-adds
 * (BSPLINE_SUM4), as the C loop does, so the values are the same.  Four
 * output pixels (eight vectors) are transposed by 128-bit lanes, so that
 * each of the eight rows takes one whole-vector store instead of four
 * 128-bit ones. */
__attribute__ ((target ("avx512f,fma")))
static void
resample_group_rgba_avx512 (const float *buf, float *const *out,
    const int *index, const float *weights, int j0, int j1)
{
  int j, p, h, l;

  for (j = j0; j + 4 <= j1; j += 4) {
    /* a[2 p + h]: output pixel j + p, rows 4 h .. 4 h + 3 */
    __m512 a[8], r[8];
    for (p = 0; p < 4; p++) {
      const int *ix = index + (size_t) (j + p) * 4;
      const float *w = weights + (size_t) (j + p) * 4;
      const float *s0 = buf + (ptrdiff_t) ix[0] * BSPLINE_GROUP_LANES;
      const float *s1 = buf + (ptrdiff_t) ix[1] * BSPLINE_GROUP_LANES;
      const float *s2 = buf + (ptrdiff_t) ix[2] * BSPLINE_GROUP_LANES;
      const float *s3 = buf + (ptrdiff_t) ix[3] * BSPLINE_GROUP_LANES;
      const __m512 w0 = _mm512_set1_ps (w[0]), w1 = _mm512_set1_ps (w[1]);
      const __m512 w2 = _mm512_set1_ps (w[2]), w3 = _mm512_set1_ps (w[3]);
      for (h = 0; h < 2; h++)
        a[2 * p + h] = SUM4_512 (w0, s0 + 16 * h, w1, s1 + 16 * h,
            w2, s2 + 16 * h, w3, s3 + 16 * h);
    }
    bspline_group_rows_rgba_avx512 (a, r);
    for (h = 0; h < 8; h++)
      _mm512_storeu_ps (out[h] + 4 * j, r[h]);
  }
  for (; j < j1; j++) {
    const int *ix = index + (size_t) j * 4;
    const float *w = weights + (size_t) j * 4;
    for (l = 0; l < BSPLINE_GROUP_LANES; l++)
      out[l / 4][4 * j + l % 4] = BSPLINE_SUM4 (fmaf,
          w[0], buf[(ptrdiff_t) ix[0] * BSPLINE_GROUP_LANES + l],
          w[1], buf[(ptrdiff_t) ix[1] * BSPLINE_GROUP_LANES + l],
          w[2], buf[(ptrdiff_t) ix[2] * BSPLINE_GROUP_LANES + l],
          w[3], buf[(ptrdiff_t) ix[3] * BSPLINE_GROUP_LANES + l]);
  }
}

/* resample_group_rgba_avx512 for AVX2 machines: a pixel of the eight
 * rows is four vectors (rows 2 h and 2 h + 1 in a[p][h]), two output pixels
 * at a time; the 128-bit halves of each pair of vectors are exchanged
 * (vperm2f128) so that each row takes one 32-byte store.  The same sums
 * in the same order, so the values are the same. */
__attribute__ ((target ("avx2,fma")))
static void
resample_group_rgba_avx2 (const float *buf, float *const *out,
    const int *index, const float *weights, int j0, int j1)
{
  int j, p, h, l;

  for (j = j0; j + 2 <= j1; j += 2) {
    __m256 a[2][4];
    for (p = 0; p < 2; p++) {
      const int *ix = index + (size_t) (j + p) * 4;
      const float *w = weights + (size_t) (j + p) * 4;
      const float *s0 = buf + (ptrdiff_t) ix[0] * BSPLINE_GROUP_LANES;
      const float *s1 = buf + (ptrdiff_t) ix[1] * BSPLINE_GROUP_LANES;
      const float *s2 = buf + (ptrdiff_t) ix[2] * BSPLINE_GROUP_LANES;
      const float *s3 = buf + (ptrdiff_t) ix[3] * BSPLINE_GROUP_LANES;
      const __m256 w0 = _mm256_set1_ps (w[0]), w1 = _mm256_set1_ps (w[1]);
      const __m256 w2 = _mm256_set1_ps (w[2]), w3 = _mm256_set1_ps (w[3]);
      for (h = 0; h < 4; h++)
        a[p][h] = SUM4_256 (w0, s0 + 8 * h, w1, s1 + 8 * h,
            w2, s2 + 8 * h, w3, s3 + 8 * h);
    }
    for (h = 0; h < 4; h++) {
      _mm256_storeu_ps (out[2 * h] + 4 * j,
          _mm256_permute2f128_ps (a[0][h], a[1][h], 0x20));
      _mm256_storeu_ps (out[2 * h + 1] + 4 * j,
          _mm256_permute2f128_ps (a[0][h], a[1][h], 0x31));
    }
  }
  for (; j < j1; j++) {
    const int *ix = index + (size_t) j * 4;
    const float *w = weights + (size_t) j * 4;
    for (l = 0; l < BSPLINE_GROUP_LANES; l++)
      out[l / 4][4 * j + l % 4] = BSPLINE_SUM4 (fmaf,
          w[0], buf[(ptrdiff_t) ix[0] * BSPLINE_GROUP_LANES + l],
          w[1], buf[(ptrdiff_t) ix[1] * BSPLINE_GROUP_LANES + l],
          w[2], buf[(ptrdiff_t) ix[2] * BSPLINE_GROUP_LANES + l],
          w[3], buf[(ptrdiff_t) ix[3] * BSPLINE_GROUP_LANES + l]);
  }
}

static int
resample_group_rgba_f (const float *buf, float *const *out,
    const int *index, const float *weights, int j0, int j1)
{
  if (BSPLINE_GROUP_LANES != 32)
    return 0;
  if (bspline_x86_avx512 ())
    resample_group_rgba_avx512 (buf, out, index, weights, j0, j1);
  else if (bspline_x86_avx2 ())
    resample_group_rgba_avx2 (buf, out, index, weights, j0, j1);
  else
    return 0;
  return 1;
}

#endif /* BSPLINE_X86_RESAMPLE_KERNELS_H */
