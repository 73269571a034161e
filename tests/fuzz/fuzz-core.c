/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fuzz-core.c: libFuzzer harness over the core API.
 *
 * One input describes: parameters (method, order, bicubic a, boundary,
 * fill, precision, antialias; sometimes out of range), the source and
 * destination images (sizes 1 .. 64 and long lines up to 4096, 1-4
 * channels (at most 4096 output pixels), U8/U16/F32/F64 with bits, shift and row padding, float samples
 * that may be NaN or infinite), a matrix (raw entries that may be NaN, Inf,
 * huge or denormal, or an axis-aligned scale for the separable path, or a
 * rotation, or a perspective), an engine of 1 or 2 threads and up to 16
 * points for bspline_cpu_sample_points.  It runs bspline_plan_new,
 * bspline_cpu_execute and bspline_cpu_sample_points and checks:
 *  - every call returns a bspline_status, and an error comes with a message;
 *  - the engine never writes into the padding of a destination row;
 *  - a point with a NaN coordinate samples to the fill value (documented in
 *    core/resample/resample-impl.h);
 * and AddressSanitizer + UndefinedBehaviorSanitizer check the rest.
 *
 * The same file is linked with replay-main.c into a plain program that
 * replays the committed corpus (tests/fuzz/corpus/core) in every build.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bspline.h"
#include "fuzz-input.h"

#define FUZZ_CHECK(cond, ...) do { \
    if (!(cond)) { \
      fprintf (stderr, "fuzz-core: check failed: %s: ", #cond); \
      fprintf (stderr, __VA_ARGS__); \
      fputc ('\n', stderr); \
      abort (); \
    } \
  } while (0)

#define CANARY 0xa5

static bspline_cpu *engines[2];

static int
pick_side (fuzz_input * in)
{
  uint8_t c = fuzz_u8 (in);

  if (c < 64)
    return 1;
  if (c < 200)
    return fuzz_range (in, 1, 24);
  if (c < 245)
    return fuzz_range (in, 25, 64);
  return fuzz_range (in, 1000, 4096);
}

static void
pick_image (fuzz_input * in, bspline_image * img, int channels)
{
  uint8_t t = fuzz_u8 (in);
  size_t sample, row;

  img->channels = channels;
  img->type = (bspline_sample_type) (t & 3);
  img->bits = 8;
  img->shift = 0;
  if (img->type == BSPLINE_SAMPLE_U16) {
    img->bits = (t >> 2) & 1 ? 16 : fuzz_range (in, 1, 16);
    img->shift = (t >> 3) & 1 ? 0 : fuzz_range (in, 0, 16 - img->bits);
  }
  if (t >= 250) {               /* out of range on purpose */
    img->bits = fuzz_range (in, -2, 20);
    img->shift = fuzz_range (in, -2, 20);
  }
  sample = bspline_sample_size (img->type);
  row = (size_t) img->width * (size_t) channels *sample;
  /* padding: usually a multiple of the sample size; sometimes odd, which
   * misaligns rows of 16-bit and float samples (refused or handled) */
  img->stride = (ptrdiff_t) (row + (fuzz_u8 (in) % 3 == 0 ?
          (size_t) fuzz_range (in, 0, 17) : sample * fuzz_range (in, 0, 3)));
}

static uint8_t *
alloc_image (bspline_image * img)
{
  size_t bytes = (size_t) img->stride * (size_t) img->height;
  uint8_t *data = malloc (bytes ? bytes : 1);

  if (data != NULL)
    memset (data, CANARY, bytes);
  img->data = data;
  return data;
}

static void
fill_source (fuzz_input * in, const bspline_image * img)
{
  size_t sample = bspline_sample_size (img->type);
  size_t row = (size_t) img->width * (size_t) img->channels;
  uint32_t state = fuzz_u32 (in) | 1u;
  int special = fuzz_u8 (in) < 32;
  int y;
  size_t x;

  for (y = 0; y < img->height; y++) {
    uint8_t *line = (uint8_t *) img->data + (ptrdiff_t) y * img->stride;

    for (x = 0; x < row; x++) {
      state = state * 1664525u + 1013904223u;
      switch (img->type) {
        case BSPLINE_SAMPLE_U8:
          line[x] = (uint8_t) (state >> 24);
          break;
        case BSPLINE_SAMPLE_U16:{
          uint16_t v = (uint16_t) (state >> 16);

          memcpy (line + x * sample, &v, sizeof v);
          break;
        }
        case BSPLINE_SAMPLE_F32:{
          float v = special && (state >> 28) == 0 ?
              (float) fuzz_double (in) : (float) (state >> 8) / 65536.0f;

          memcpy (line + x * sample, &v, sizeof v);
          break;
        }
        case BSPLINE_SAMPLE_F64:{
          double v = special && (state >> 28) == 0 ?
              fuzz_double (in) : (double) (state >> 8) / 65536.0;

          memcpy (line + x * sample, &v, sizeof v);
          break;
        }
      }
    }
  }
}

static void
pick_matrix (fuzz_input * in, double m[9], int sw, int sh, int dw, int dh)
{
  int i;
  double a;

  bspline_matrix_identity (m);
  switch (fuzz_u8 (in) % 4) {
    case 0:                    /* raw entries */
      for (i = 0; i < 9; i++)
        m[i] = fuzz_double (in);
      break;
    case 1:                    /* axis-aligned scale: the separable path */
      m[0] = fuzz_u8 (in) < 200 ? (double) sw / dw : fuzz_double (in);
      m[4] = fuzz_u8 (in) < 200 ? (double) sh / dh : fuzz_double (in);
      m[2] = fuzz_u8 (in) < 200 ? 0.0 : fuzz_double (in);
      m[5] = fuzz_u8 (in) < 200 ? 0.0 : fuzz_double (in);
      break;
    case 2:                    /* rotation and scale */
      a = fuzz_range (in, 0, 359) * 3.14159265358979323846 / 180.0;
      m[0] = cos (a) * sw / dw;
      m[1] = -sin (a) * sw / dh;
      m[3] = sin (a) * sh / dw;
      m[4] = cos (a) * sh / dh;
      m[2] = fuzz_double (in);
      m[5] = fuzz_double (in);
      break;
    default:                   /* perspective */
      m[6] = fuzz_double (in) * 1e-3;
      m[7] = fuzz_double (in) * 1e-3;
      m[2] = fuzz_range (in, -20, 20);
      m[5] = fuzz_range (in, -20, 20);
      break;
  }
}

static void
check_padding (const bspline_image * img)
{
  size_t row = (size_t) img->width * (size_t) img->channels *
      bspline_sample_size (img->type);
  int y;
  size_t x;

  for (y = 0; y < img->height; y++) {
    const uint8_t *line = (const uint8_t *) img->data +
        (ptrdiff_t) y * img->stride;

    for (x = row; x < (size_t) img->stride; x++)
      FUZZ_CHECK (line[x] == CANARY, "row %d byte %zu of the padding "
          "(row of %zu bytes, stride %td) was written", y, x, row, img->stride);
  }
}

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  fuzz_input in;
  bspline_params params;
  bspline_image src, dst;
  bspline_plan *plan = NULL;
  bspline_cpu *cpu;
  bspline_status st;
  double m[9], xy[32], out[16 * BSPLINE_MAX_CHANNELS];
  char msg[256];
  int channels, i, c;
  size_t n_points;
  uint8_t *src_data = NULL, *dst_data = NULL;

  fuzz_input_init (&in, data, size);
  if (engines[0] == NULL) {
    engines[0] = bspline_cpu_new (1);
    engines[1] = bspline_cpu_new (2);
    FUZZ_CHECK (engines[0] && engines[1], "bspline_cpu_new failed");
  }
  cpu = engines[fuzz_u8 (&in) & 1];

  bspline_params_init (&params);
  params.method = (bspline_method) (fuzz_u8 (&in) < 220 ? 0 : 1);
  params.order = fuzz_u8 (&in) < 250 ? fuzz_range (&in, 0, 11) :
      fuzz_range (&in, -3, 14);
  params.bicubic_a = fuzz_u8 (&in) < 200 ? -0.5 : fuzz_double (&in);
  params.boundary = (bspline_boundary) (fuzz_u8 (&in) < 250 ?
      fuzz_range (&in, 0, 4) : fuzz_range (&in, -1, 6));
  params.precision = (bspline_precision) (fuzz_u8 (&in) < 250 ?
      fuzz_range (&in, 0, 2) : fuzz_range (&in, -1, 4));
  params.antialias = fuzz_u8 (&in) & 1;
  for (c = 0; c < BSPLINE_MAX_CHANNELS; c++)
    params.fill[c] = fuzz_u8 (&in) < 220 ? fuzz_range (&in, 0, 255) :
        fuzz_double (&in);
  st = bspline_params_validate (&params, msg, sizeof msg);
  FUZZ_CHECK (st == BSPLINE_OK || msg[0] != '\0', "no message");

  channels = fuzz_u8 (&in) < 250 ? fuzz_range (&in, 1, 4) :
      fuzz_range (&in, 0, 5);
  memset (&src, 0, sizeof src);
  memset (&dst, 0, sizeof dst);
  src.width = pick_side (&in);
  src.height = pick_side (&in);
  dst.width = pick_side (&in);
  dst.height = pick_side (&in);
  /* keep an execution in milliseconds: one long source line at most, and
   * at most 4096 output pixels (a pixel of a shrinking warp costs up to
   * (8 (order + 1))^2 taps) */
  if ((double) src.width * src.height > 65536.0)
    src.height = 1;
  if (dst.width > 4096)
    dst.width = 4096;
  if ((double) dst.width * dst.height > 4096.0)
    dst.height = 4096 / dst.width;
  pick_image (&in, &src, channels);
  pick_image (&in, &dst, channels);
  pick_matrix (&in, m, src.width, src.height, dst.width, dst.height);

  src_data = alloc_image (&src);
  dst_data = alloc_image (&dst);
  if (src_data == NULL || dst_data == NULL)
    goto done;
  if (bspline_image_validate (&src, 1, msg, sizeof msg) == BSPLINE_OK)
    fill_source (&in, &src);

  if (getenv ("FUZZ_VERBOSE"))
    fprintf (stderr, "fuzz-core: %s order %d a %g boundary %d precision %d "
        "antialias %d, %d channels, %dx%d type %d bits %d shift %d stride %td "
        "-> %dx%d type %d bits %d shift %d stride %td, matrix "
        "%g %g %g / %g %g %g / %g %g %g\n", params.method ? "bicubic" :
        "bspline", params.order, params.bicubic_a, (int) params.boundary,
        (int) params.precision, params.antialias, channels, src.width,
        src.height, (int) src.type, src.bits, src.shift, src.stride,
        dst.width, dst.height, (int) dst.type, dst.bits, dst.shift,
        dst.stride, m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]);
  msg[0] = '\0';
  st = bspline_plan_new (&params, m, src.width, src.height, dst.width,
      dst.height, channels, &plan, msg, sizeof msg);
  if (st != BSPLINE_OK) {
    FUZZ_CHECK (plan == NULL, "a plan returned with status %d", st);
    FUZZ_CHECK (msg[0] != '\0', "plan_new status %d (%s) without message",
        st, bspline_status_string (st));
  } else {
    FUZZ_CHECK (plan != NULL, "no plan with BSPLINE_OK");
    st = bspline_cpu_execute (cpu, plan, &src, &dst);
    FUZZ_CHECK (st == BSPLINE_OK || bspline_cpu_last_error (cpu) != NULL,
        "execute status %d without message", st);
    if (st == BSPLINE_OK)
      check_padding (&dst);
    bspline_plan_free (plan);
  }

  n_points = (size_t) fuzz_range (&in, 0, 16);
  for (i = 0; i < (int) n_points * 2; i++)
    xy[i] = fuzz_u8 (&in) < 128 ? fuzz_range (&in, -8, 72) + 0.5 :
        fuzz_double (&in);
  st = bspline_cpu_sample_points (cpu, &params, &src, xy, n_points, out);
  if (st == BSPLINE_OK) {
    for (i = 0; i < (int) n_points; i++) {
      if (!isnan (xy[2 * i]) && !isnan (xy[2 * i + 1]))
        continue;
      for (c = 0; c < channels; c++)
        FUZZ_CHECK (out[i * channels + c] == params.fill[c] ||
            (isnan (out[i * channels + c]) && isnan (params.fill[c])),
            "point (%g, %g) channel %d: %g, fill %g", xy[2 * i],
            xy[2 * i + 1], c, out[i * channels + c], params.fill[c]);
    }
  }

done:
  free (src_data);
  free (dst_data);
  return 0;
}
