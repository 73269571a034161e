/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fuzz-input.h: reads typed values from a fuzzer's byte string.
 *
 * Every read succeeds: past the end of the data it returns zeros, so any
 * byte string (including the empty one) is a valid input and a shorter
 * input is a prefix of a longer one, which helps libFuzzer's mutations.
 */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct
{
  const uint8_t *data;
  size_t size, pos;
} fuzz_input;

static inline void
fuzz_input_init (fuzz_input * in, const uint8_t * data, size_t size)
{
  in->data = data;
  in->size = size;
  in->pos = 0;
}

static inline int
fuzz_input_left (const fuzz_input * in)
{
  return in->pos < in->size;
}

static inline uint8_t
fuzz_u8 (fuzz_input * in)
{
  return in->pos < in->size ? in->data[in->pos++] : 0;
}

static inline uint32_t
fuzz_u32 (fuzz_input * in)
{
  uint32_t v = 0;
  int i;

  for (i = 0; i < 4; i++)
    v = (v << 8) | fuzz_u8 (in);
  return v;
}

/* An integer in lo .. hi (inclusive). */
static inline int
fuzz_range (fuzz_input * in, int lo, int hi)
{
  uint32_t span = (uint32_t) (hi - lo) + 1u;

  return lo + (int) ((span <= 256 ? fuzz_u8 (in) : fuzz_u32 (in)) % span);
}

/* A double that is often special: one byte picks a value from a table of
 * the cases that break arithmetic (NaN, infinities, denormals, the
 * extremes, values near the singular and near the identity) or reads the
 * next 8 bytes as raw IEEE bits. */
static inline double
fuzz_double (fuzz_input * in)
{
  static const double special[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-300, -1e-300, 4.9e-324, -4.9e-324,
    2.2250738585072014e-308, DBL_MAX, -DBL_MAX, 1e300, -1e300, 1e150,
    1e-12, 1e12, 3.0, 0.25, 1.0000000001, 0.9999999999, 65535.0, 255.0,
    1e308, 16777216.0, -16777217.0, 2147483648.0
  };
  const size_t n_special = sizeof (special) / sizeof (special[0]);
  uint8_t pick = fuzz_u8 (in);
  uint64_t bits = 0;
  double v;
  int i;

  if (pick < n_special)
    return special[pick];
  if (pick < 40)
    return pick & 1 ? NAN : (pick & 2 ? INFINITY : -INFINITY);
  if (pick < 128)
    return (double) (int8_t) fuzz_u8 (in) / 8.0;
  for (i = 0; i < 8; i++)
    bits = (bits << 8) | fuzz_u8 (in);
  memcpy (&v, &bits, sizeof v);
  return v;
}

#endif /* FUZZ_INPUT_H */
