/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* transfer.c: the transfer functions of bspline-transfer.h, and a plane's
 * code values decoded to linear light in float and encoded back (the
 * elements' gamma-mode=remap: the engines resample the linear planes). */
#include "base.h"
#include "bspline-transfer.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* BT.2020 (Table 4) gives BT.709's OETF with the constants to the
 * precision that makes its two pieces meet. */
#define BT709_ALPHA 1.09929682680944
#define BT709_BETA 0.018053968510807
/* SMPTE ST 2084 (2014), section 5.3 */
#define PQ_M1 (2610.0 / 16384.0)
#define PQ_M2 (2523.0 / 4096.0 * 128.0)
#define PQ_C1 (3424.0 / 4096.0)
#define PQ_C2 (2413.0 / 4096.0 * 32.0)
#define PQ_C3 (2392.0 / 4096.0 * 32.0)
/* ITU-R BT.2100-2, Table 5 (HLG OETF) */
#define HLG_A 0.17883277
#define HLG_B 0.28466892
#define HLG_C 0.55991073

static double
clamp01 (double v)
{
  return v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v;
}

double
bspline_transfer_to_linear (bspline_transfer transfer, double e)
{
  double p;

  e = clamp01 (e);
  switch (transfer) {
    case BSPLINE_TRANSFER_SRGB:
      /* IEC 61966-2-1, eq. for the decoding */
      return e <= 0.04045 ? e / 12.92 : pow ((e + 0.055) / 1.055, 2.4);
    case BSPLINE_TRANSFER_BT709:
      /* the inverse of BT.709's OETF (BT.709-6, 1.2) */
      return e < 4.5 * BT709_BETA ? e / 4.5 :
          pow ((e + BT709_ALPHA - 1.0) / BT709_ALPHA, 1.0 / 0.45);
    case BSPLINE_TRANSFER_GAMMA22:
      return pow (e, 2.2);
    case BSPLINE_TRANSFER_GAMMA28:
      return pow (e, 2.8);
    case BSPLINE_TRANSFER_PQ:
      /* ST 2084's EOTF, normalised to 10000 cd/m2 */
      p = pow (e, 1.0 / PQ_M2);
      return pow (fmax (p - PQ_C1, 0.0) / (PQ_C2 - PQ_C3 * p), 1.0 / PQ_M1);
    case BSPLINE_TRANSFER_HLG:
      /* the inverse of BT.2100's HLG OETF: scene light */
      return e <= 0.5 ? e * e / 3.0 :
          (exp ((e - HLG_C) / HLG_A) + HLG_B) / 12.0;
    case BSPLINE_TRANSFER_LINEAR:
    default:
      return e;
  }
}

double
bspline_transfer_from_linear (bspline_transfer transfer, double l)
{
  double p;

  l = clamp01 (l);
  switch (transfer) {
    case BSPLINE_TRANSFER_SRGB:
      return l <= 0.0031308 ? 12.92 * l : 1.055 * pow (l, 1.0 / 2.4) - 0.055;
    case BSPLINE_TRANSFER_BT709:
      return l < BT709_BETA ? 4.5 * l :
          BT709_ALPHA * pow (l, 0.45) - (BT709_ALPHA - 1.0);
    case BSPLINE_TRANSFER_GAMMA22:
      return pow (l, 1.0 / 2.2);
    case BSPLINE_TRANSFER_GAMMA28:
      return pow (l, 1.0 / 2.8);
    case BSPLINE_TRANSFER_PQ:
      p = pow (l, PQ_M1);
      return pow ((PQ_C1 + PQ_C2 * p) / (1.0 + PQ_C3 * p), PQ_M2);
    case BSPLINE_TRANSFER_HLG:
      return l <= 1.0 / 12.0 ? sqrt (3.0 * l) :
          HLG_A * log (12.0 * l - HLG_B) + HLG_C;
    case BSPLINE_TRANSFER_LINEAR:
    default:
      return l;
  }
}

void
bspline_transfer_decode_table (bspline_transfer transfer, int bits,
    float *decode)
{
  unsigned max = (1u << bits) - 1, c;

  for (c = 0; c <= max; c++)
    decode[c] = (float) (max * bspline_transfer_to_linear (transfer,
            (double) c / max));
}

void
bspline_transfer_encode_thresholds (bspline_transfer transfer, int bits,
    double *threshold)
{
  unsigned max = (1u << bits) - 1, c;

  for (c = 0; c < max; c++)
    threshold[c] = max * bspline_transfer_to_linear (transfer, (c + 0.5) / max);
}

static bspline_status
check_pair (const bspline_image * coded, const bspline_image * linear,
    char *msg, size_t msg_len)
{
  bspline_status status = bspline_image_validate (coded, 1, msg, msg_len);

  if (status == BSPLINE_OK)
    status = bspline_image_validate (linear, 1, msg, msg_len);
  if (status != BSPLINE_OK)
    return status;
  if (coded->type != BSPLINE_SAMPLE_U8 && coded->type != BSPLINE_SAMPLE_U16) {
    bspline_set_error (msg, msg_len, "linear light needs integer code "
        "values");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (linear->type != BSPLINE_SAMPLE_F32 || linear->width != coded->width
      || linear->height != coded->height
      || linear->channels != coded->channels) {
    bspline_set_error (msg, msg_len, "the linear plane must be float, of the "
        "coded plane's size and channels");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  return BSPLINE_OK;
}

static unsigned
code_at (const bspline_image * im, const uint8_t * row, int i)
{
  if (im->type == BSPLINE_SAMPLE_U8)
    return row[i];
  return (((const uint16_t *) row)[i] >> im->shift) & ((1u << im->bits) - 1);
}

bspline_status
bspline_transfer_decode (bspline_transfer transfer,
    const bspline_image * src, const bspline_image * dst,
    unsigned pass_mask, char *msg, size_t msg_len)
{
  bspline_status status = check_pair (src, dst, msg, msg_len);
  unsigned max;
  float *table;
  int x, y, n;

  if (status != BSPLINE_OK)
    return status;
  max = (1u << src->bits) - 1;
  table = malloc ((max + 1) * sizeof (float));
  if (!table)
    return BSPLINE_ERROR_NO_MEMORY;
  bspline_transfer_decode_table (transfer, src->bits, table);
  n = src->width * src->channels;
  for (y = 0; y < src->height; y++) {
    const uint8_t *in = (const uint8_t *) src->data + y * src->stride;
    float *out = (float *) ((uint8_t *) dst->data + y * dst->stride);
    for (x = 0; x < n; x++) {
      unsigned code = code_at (src, in, x);
      out[x] = pass_mask >> (x % src->channels) & 1 ? (float) code :
          table[code];
    }
  }
  free (table);
  return BSPLINE_OK;
}

bspline_status
bspline_transfer_encode (bspline_transfer transfer,
    const bspline_image * src, const bspline_image * dst,
    unsigned pass_mask, char *msg, size_t msg_len)
{
  bspline_status status = check_pair (dst, src, msg, msg_len);
  unsigned max;
  double *threshold;
  int x, y, n;

  if (status != BSPLINE_OK)
    return status;
  max = (1u << dst->bits) - 1;
  threshold = malloc (max * sizeof (double));
  if (!threshold)
    return BSPLINE_ERROR_NO_MEMORY;
  bspline_transfer_encode_thresholds (transfer, dst->bits, threshold);
  n = dst->width * dst->channels;
  for (y = 0; y < dst->height; y++) {
    const float *in = (const float *) ((const uint8_t *) src->data +
        y * src->stride);
    uint8_t *out = (uint8_t *) dst->data + y * dst->stride;
    for (x = 0; x < n; x++) {
      float v = in[x];
      unsigned code;
      if (pass_mask >> (x % dst->channels) & 1)
        code = !(v > 0.0f) ? 0 : v >= (float) max ? max : (unsigned) lrintf (v);
      else
        code = bspline_transfer_nearest_code (threshold, max,
            isnan (v) ? 0.0f : v);
      if (dst->type == BSPLINE_SAMPLE_U8)
        out[x] = (uint8_t) code;
      else
        ((uint16_t *) out)[x] = (uint16_t) (code << dst->shift);
    }
  }
  free (threshold);
  return BSPLINE_OK;
}
