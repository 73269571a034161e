/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* store-impl.h: the rounding of sums into an output row, for one
 * arithmetic type.  Included with REAL and SUFFIX(name) by
 * resample-impl.h and by fold.c. */

/* Clamps n values of acc to [0, top] in place, NaN becoming 0, in a loop
 * of its own: fused with the conversion to integers below, GCC blends the
 * converted bytes under three masks instead. */
static BSPLINE_INLINE void
SUFFIX (clamp_values) (REAL * acc, int n, REAL top)
{
  int i;
  for (i = 0; i < n; i++) {
    REAL v = acc[i];
    v = v > (REAL) 0 ? v : (REAL) 0;
    acc[i] = v < top ? v : top;
  }
}

/* Writes n values of acc into row `row` of dst from value `first` on:
 * integers are clamped to the code range (NaN becoming 0) and rounded
 * half up.  acc is clobbered. */
static BSPLINE_INLINE void
SUFFIX (store_values) (const bspline_image * dst, int row, ptrdiff_t first,
    REAL * acc, int n)
{
  uint8_t *out = (uint8_t *) dst->data + (ptrdiff_t) row * dst->stride;
  int i;
  switch (dst->type) {
    /* clamp first, then round: separate loops, so that the compiler
     * vectorises each in its own domain */
    case BSPLINE_SAMPLE_U8:
      SUFFIX (clamp_values) (acc, n, (REAL) 255);
      out += first;
      for (i = 0; i < n; i++)
        out[i] = (uint8_t) (int32_t) (acc[i] + (REAL) 0.5);
      break;
    case BSPLINE_SAMPLE_U16:{
      const int shift = dst->shift;
      uint16_t *o = (uint16_t *) out + first;
      SUFFIX (clamp_values) (acc, n, (REAL) ((1 << dst->bits) - 1));
      for (i = 0; i < n; i++)
        o[i] = (uint16_t) ((int32_t) (acc[i] + (REAL) 0.5) << shift);
      break;
    }
    case BSPLINE_SAMPLE_F32:
      for (i = 0; i < n; i++)
        ((float *) out)[first + i] = (float) acc[i];
      break;
    case BSPLINE_SAMPLE_F64:
      for (i = 0; i < n; i++)
        ((double *) out)[first + i] = (double) acc[i];
      break;
  }
}
