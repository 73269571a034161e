/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bspline-transfer.h: transfer functions (the coding of light in sample
 * values), for resampling in linear light: a plane's code values are
 * decoded to linear light in float before the engine and encoded after,
 * so that the engines themselves stay free of them. */
#ifndef BSPLINE_TRANSFER_H
#define BSPLINE_TRANSFER_H

#include "bspline.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  BSPLINE_TRANSFER_LINEAR = 0,  /* the code values are linear already */
  BSPLINE_TRANSFER_SRGB = 1,    /* IEC 61966-2-1 */
  BSPLINE_TRANSFER_BT709 = 2,   /* BT.709 / BT.601 / BT.2020 OETF */
  BSPLINE_TRANSFER_GAMMA22 = 3, /* a pure power 2.2 */
  BSPLINE_TRANSFER_GAMMA28 = 4, /* a pure power 2.8 */
  BSPLINE_TRANSFER_PQ = 5,      /* SMPTE ST 2084, BT.2100 PQ */
  BSPLINE_TRANSFER_HLG = 6      /* ARIB STD-B67, BT.2100 HLG */
} bspline_transfer;

/* The linear light (0 .. 1: PQ's 10000 cd/m2, HLG's scene light) of the
 * coded value e (0 .. 1), and back; values outside 0 .. 1 are clamped. */
BSPLINE_API
double bspline_transfer_to_linear (bspline_transfer transfer, double e);
BSPLINE_API
double bspline_transfer_from_linear (bspline_transfer transfer, double l);

/* The tables both engines decode and encode with (the CUDA engine copies
 * them to the device: cuda/transfer.cu), for codes of bits bits (1 .. 16),
 * max = 2^bits - 1: decode[c] (max + 1 entries) = max * to_linear (c /
 * max), the linear light of code c in code units; threshold[c] (max
 * entries) = max * to_linear ((c + 0.5) / max), the linear light of the
 * midpoint between codes c and c + 1, rising: the code nearest to a linear
 * value v is the number of thresholds below v. */
BSPLINE_API
void bspline_transfer_decode_table (bspline_transfer transfer, int bits,
    float *decode);
BSPLINE_API
void bspline_transfer_encode_thresholds (bspline_transfer transfer, int bits,
    double *threshold);

/* src's code values (U8 or U16) into dst (F32, src's size and channels) as
 * linear light in code units: max * to_linear (code / max), max = 2^bits
 * - 1; the channels of pass_mask (bit c: channel c; alpha, padding) as
 * they are. */
BSPLINE_API
bspline_status bspline_transfer_decode (bspline_transfer transfer,
    const bspline_image * src, const bspline_image * dst,
    unsigned pass_mask, char *msg, size_t msg_len);

/* The reverse: src (F32, linear light in code units) into dst's code
 * values (U8 or U16), rounded to nearest and clamped to 0 .. max. */
BSPLINE_API
bspline_status bspline_transfer_encode (bspline_transfer transfer,
    const bspline_image * src, const bspline_image * dst,
    unsigned pass_mask, char *msg, size_t msg_len);

/* The code whose coded value is nearest to linear value v, given the
 * thresholds (the linear values of the midpoints between codes, rising,
 * max of them): the number of thresholds below v.  The CPU's encode and
 * the CUDA engine's (cuda/transfer.cu) both search so. */
BSPLINE_HD static inline unsigned
bspline_transfer_nearest_code (const double *threshold, unsigned max,
    float v)
{
  unsigned lo = 0, hi = max;

  while (lo < hi) {
    unsigned mid = (lo + hi) / 2;
    if (threshold[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

#ifdef __cplusplus
}
#endif
#endif /* BSPLINE_TRANSFER_H */
