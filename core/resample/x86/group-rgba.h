/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* group-rgba.h: the AVX-512 and AVX2 transposes between a group of RGBA
 * rows, as the prefilter and the separable path interleave them
 * (BSPLINE_GROUP_LANES, resample.h), and one vector per row.
 *
 * Not installed.  Included by core/resample/x86/'s kernels only, where
 * BSPLINE_X86_DISPATCH is 1. */
#ifndef BSPLINE_X86_GROUP_RGBA_H
#define BSPLINE_X86_GROUP_RGBA_H

#include <immintrin.h>

#include "resample.h"

/* Pixels x .. x + 3 of the eight rows of an RGBA group, one vector r[q]
 * per row (4 pixels x 4 channels), as the group holds them: the 128-bit
 * lanes (pixels) transposed into a[2 p + h], pixel x + p of rows 4 h ..
 * 4 h + 3 (the transpose is its own inverse).  The store puts them at b =
 * buf + x * BSPLINE_GROUP_LANES, every store a whole 64-byte vector.  For
 * the AVX-512 loops of prefilter.c and resample.c. */
__attribute__ ((target ("avx512f"), always_inline))
static inline void
bspline_group_transpose_rgba_avx512 (const __m512 * r, __m512 * a)
{
  int h;
  for (h = 0; h < 2; h++) {
    __m512 t0 = _mm512_shuffle_f32x4 (r[4 * h], r[4 * h + 1], 0x44);
    __m512 t1 = _mm512_shuffle_f32x4 (r[4 * h], r[4 * h + 1], 0xEE);
    __m512 t2 = _mm512_shuffle_f32x4 (r[4 * h + 2], r[4 * h + 3], 0x44);
    __m512 t3 = _mm512_shuffle_f32x4 (r[4 * h + 2], r[4 * h + 3], 0xEE);
    a[h] = _mm512_shuffle_f32x4 (t0, t2, 0x88);
    a[2 + h] = _mm512_shuffle_f32x4 (t0, t2, 0xDD);
    a[4 + h] = _mm512_shuffle_f32x4 (t1, t3, 0x88);
    a[6 + h] = _mm512_shuffle_f32x4 (t1, t3, 0xDD);
  }
}

/* The inverse: the group's vectors a[2 p + h] (as stored at b, see
 * above) back into one vector per row, r[q] holding pixels x .. x + 3 of
 * row q. */
__attribute__ ((target ("avx512f"), always_inline))
static inline void
bspline_group_rows_rgba_avx512 (const __m512 * a, __m512 * r)
{
  int h;
  for (h = 0; h < 2; h++) {
    __m512 t0 = _mm512_shuffle_f32x4 (a[h], a[2 + h], 0x44);
    __m512 t1 = _mm512_shuffle_f32x4 (a[h], a[2 + h], 0xEE);
    __m512 t2 = _mm512_shuffle_f32x4 (a[4 + h], a[6 + h], 0x44);
    __m512 t3 = _mm512_shuffle_f32x4 (a[4 + h], a[6 + h], 0xEE);
    r[4 * h] = _mm512_shuffle_f32x4 (t0, t2, 0x88);
    r[4 * h + 1] = _mm512_shuffle_f32x4 (t0, t2, 0xDD);
    r[4 * h + 2] = _mm512_shuffle_f32x4 (t1, t3, 0x88);
    r[4 * h + 3] = _mm512_shuffle_f32x4 (t1, t3, 0xDD);
  }
}

__attribute__ ((target ("avx512f"), always_inline))
static inline void
bspline_group_store_rgba_avx512 (float *b, const __m512 * r)
{
  __m512 a[8];
  int k;
  bspline_group_transpose_rgba_avx512 (r, a);
  for (k = 0; k < 8; k++)
    _mm512_storeu_ps (b + 16 * k, a[k]);
}

/* The same for AVX2: pixels x and x + 1 of the eight rows, one vector r[q]
 * per row (2 pixels x 4 channels); rows 2 h and 2 h + 1 of a pixel make
 * one vector of the group, their 128-bit halves exchanged by vperm2f128. */
__attribute__ ((target ("avx2"), always_inline))
static inline void
bspline_group_store_rgba_avx2 (float *b, const __m256 * r)
{
  int h;
  for (h = 0; h < 4; h++) {
    _mm256_storeu_ps (b + 8 * h, _mm256_permute2f128_ps (r[2 * h],
            r[2 * h + 1], 0x20));
    _mm256_storeu_ps (b + BSPLINE_GROUP_LANES + 8 * h,
        _mm256_permute2f128_ps (r[2 * h], r[2 * h + 1], 0x31));
  }
}

#endif /* BSPLINE_X86_GROUP_RGBA_H */
