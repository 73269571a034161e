/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-transfer.c: the transfer functions of gamma-mode=remap
 * (core/base/transfer.c, bspline-transfer.h).
 *
 *  - Each curve: decoding then encoding returns the coded value on a grid
 *    of 4097 values (to 1e-12; PQ to 1e-6, as ST 2084 encodes light 0 as
 *    c1^m2 = 7.3e-7; HLG to 1e-8, as BT.2100's rounded constants decode
 *    1 to 1 + 2.4e-8); increasing; continuous where its pieces meet (to
 *    1e-8: IEC 61966-2-1's own pieces differ by 2.3e-9 at 0.04045); the
 *    standards' values: sRGB 0.5 -> 0.214041140482232,
 *    PQ 100 cd/m2 (0.01) -> 0.508078421517399 (ST 2084), HLG 0.5 -> 1/12
 *    and 1 -> 1 (BT.2100, to its constants' 1e-6).
 *  - Planes: every code of U8, U16 (10 bits shifted by 6) and U16 (16
 *    bits) decoded to float and encoded back is itself, for every curve;
 *    the pass channels (alpha, padding) keep their codes.
 *  - Encoding random linear values (in and out of range, NaN) gives the
 *    code nearest in the coded domain (within half a code and 1e-9),
 *    clamped to 0 .. max.
 */
#include "test-common.h"
#include "bspline-transfer.h"

static const char *const names[] = {
  "linear", "sRGB", "BT.709", "gamma 2.2", "gamma 2.8", "PQ", "HLG"
};

#define N_CURVES 7

static void
check_curves (void)
{
  /* where the pieces meet: sRGB, BT.709 (coded side), HLG */
  static const struct
  {
    int curve;
    double at;
  } joints[] = {
    {BSPLINE_TRANSFER_SRGB, 0.04045},
    {BSPLINE_TRANSFER_BT709, 4.5 * 0.018053968510807},
    {BSPLINE_TRANSFER_HLG, 0.5},
  };
  int t, i;

  for (t = 0; t < N_CURVES; t++) {
    double last = -1.0;
    for (i = 0; i <= 4096; i++) {
      double e = i / 4096.0;
      double l = bspline_transfer_to_linear (t, e);
      double back = bspline_transfer_from_linear (t, l);
      double tol = t == BSPLINE_TRANSFER_PQ ? 1e-6 :
          t == BSPLINE_TRANSFER_HLG ? 1e-8 : 1e-12;
      TEST_CHECK (fabs (back - e) < tol, "%s: %.17g -> %.17g -> %.17g",
          names[t], e, l, back);
      TEST_CHECK (l > last, "%s: not increasing at %.17g", names[t], e);
      last = l;
    }
  }
  for (i = 0; i < 3; i++) {
    double a = bspline_transfer_to_linear (joints[i].curve,
        joints[i].at - 1e-12);
    double b = bspline_transfer_to_linear (joints[i].curve,
        joints[i].at + 1e-12);
    TEST_CHECK (fabs (a - b) < 1e-8, "%s: a step of %g at %g",
        names[joints[i].curve], b - a, joints[i].at);
  }
  TEST_CHECK (fabs (bspline_transfer_to_linear (BSPLINE_TRANSFER_SRGB, 0.5)
          - 0.214041140482232) < 1e-12, "sRGB 0.5");
  TEST_CHECK (fabs (bspline_transfer_from_linear (BSPLINE_TRANSFER_PQ, 0.01)
          - 0.508078421517399) < 1e-9, "PQ 100 cd/m2: %.15g",
      bspline_transfer_from_linear (BSPLINE_TRANSFER_PQ, 0.01));
  TEST_CHECK (fabs (bspline_transfer_to_linear (BSPLINE_TRANSFER_HLG, 0.5)
          - 1.0 / 12.0) < 1e-12, "HLG 0.5");
  TEST_CHECK (fabs (bspline_transfer_to_linear (BSPLINE_TRANSFER_HLG, 1.0)
          - 1.0) < 1e-6, "HLG 1: %.15g",
      bspline_transfer_to_linear (BSPLINE_TRANSFER_HLG, 1.0));
}

/* every code of a depth, in channel 0-2 of a 4-channel plane whose
 * channel 3 passes, through decode and encode */
static void
check_planes (test_rng * rng)
{
  static const struct
  {
    bspline_sample_type type;
    int bits, shift;
  } depths[] = {
    {BSPLINE_SAMPLE_U8, 8, 0},
    {BSPLINE_SAMPLE_U16, 10, 6},
    {BSPLINE_SAMPLE_U16, 16, 0},
  };
  char msg[256];
  int t, d, i, c;

  for (d = 0; d < 3; d++) {
    int max = (1 << depths[d].bits) - 1;
    int w = 256, h = (max + w) / w;
    bspline_image coded, lin, back;

    test_image_alloc (&coded, w, h, 4, depths[d].type, test_rng_int (rng, 0,
            5));
    test_image_alloc (&back, w, h, 4, depths[d].type, 3);
    test_image_alloc (&lin, w, h, 4, BSPLINE_SAMPLE_F32, 1);
    coded.bits = back.bits = depths[d].bits;
    coded.shift = back.shift = depths[d].shift;
    for (i = 0; i < w * h; i++) {
      int code = i <= max ? i : max;
      for (c = 0; c < 4; c++) {
        int v = c == 3 ? test_rng_int (rng, 0, max) : code;
        uint8_t *row = (uint8_t *) coded.data + (i / w) * coded.stride;
        if (coded.type == BSPLINE_SAMPLE_U8)
          row[(i % w) * 4 + c] = (uint8_t) v;
        else
          ((uint16_t *) row)[(i % w) * 4 + c] = (uint16_t) (v << coded.shift);
      }
    }
    for (t = 0; t < N_CURVES; t++) {
      bspline_status s1 = bspline_transfer_decode (t, &coded, &lin, 1u << 3,
          msg, sizeof (msg));
      bspline_status s2 = bspline_transfer_encode (t, &lin, &back, 1u << 3,
          msg, sizeof (msg));
      int bad = 0, y;
      TEST_CHECK (s1 == BSPLINE_OK && s2 == BSPLINE_OK, "%s: %s", names[t],
          msg);
      for (y = 0; y < h; y++)
        bad += memcmp ((uint8_t *) coded.data + y * coded.stride,
            (uint8_t *) back.data + y * back.stride,
            (size_t) w * 4 * (coded.type == BSPLINE_SAMPLE_U8 ? 1 : 2)) != 0;
      TEST_CHECK (bad == 0, "%s, %d bits: %d rows differ after decode and "
          "encode", names[t], depths[d].bits, bad);
    }
    free (coded.data);
    free (lin.data);
    free (back.data);
  }
}

/* random linear values: the nearest code in the coded domain */
static long
check_nearest (test_rng * rng)
{
  char msg[256];
  long n = 0;
  int t, i;

  for (t = 0; t < N_CURVES; t++) {
    bspline_image lin, coded;
    test_image_alloc (&lin, 1000, 1, 1, BSPLINE_SAMPLE_F32, 0);
    test_image_alloc (&coded, 1000, 1, 1, BSPLINE_SAMPLE_U8, 0);
    for (i = 0; i < 1000; i++)
      ((float *) lin.data)[i] = i == 0 ? NAN :
          (float) test_rng_range (rng, -20.0, 280.0);
    TEST_CHECK (bspline_transfer_encode (t, &lin, &coded, 0, msg,
            sizeof (msg)) == BSPLINE_OK, "%s: %s", names[t], msg);
    for (i = 1; i < 1000; i++) {
      double v = ((float *) lin.data)[i];
      double want = 255.0 * bspline_transfer_from_linear (t, v / 255.0);
      int code = ((uint8_t *) coded.data)[i];
      TEST_CHECK (fabs (code - want) <= 0.5 + 1e-9, "%s: %.9g -> %d, the "
          "nearest code is %.6f", names[t], v, code, want);
      n++;
    }
    TEST_CHECK (((uint8_t *) coded.data)[0] == 0, "%s: NaN -> %d", names[t],
        ((uint8_t *) coded.data)[0]);
    free (lin.data);
    free (coded.data);
  }
  return n;
}

int
main (void)
{
  test_rng rng;
  long n;

  test_begin ("test-transfer", &rng);
  check_curves ();
  check_planes (&rng);
  n = check_nearest (&rng);
  return test_end ("7 curves: decode-encode identity on 4097 values and on "
      "every 8-, 10- and 16-bit code; %ld random linear values encoded to "
      "the nearest code", n);
}
