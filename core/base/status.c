/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* status.c: status codes, error messages and the checks of an image's
 * description (bspline_image_validate). */
#include "base.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

void
bspline_set_error (char *msg, size_t msg_len, const char *fmt, ...)
{
  va_list args;
  if (!msg || msg_len == 0)
    return;
  va_start (args, fmt);
  vsnprintf (msg, msg_len, fmt, args);
  va_end (args);
}

const char *
bspline_status_string (bspline_status status)
{
  switch (status) {
    case BSPLINE_OK:
      return "success";
    case BSPLINE_ERROR_INVALID_ARGUMENT:
      return "invalid argument";
    case BSPLINE_ERROR_INVALID_TRANSFORM:
      return "invalid transform";
    case BSPLINE_ERROR_NO_MEMORY:
      return "out of memory";
    case BSPLINE_ERROR_BACKEND:
      return "engine failure";
  }
  return "unknown error";
}

size_t
bspline_sample_size (bspline_sample_type type)
{
  switch (type) {
    case BSPLINE_SAMPLE_U8:
      return 1;
    case BSPLINE_SAMPLE_U16:
      return 2;
    case BSPLINE_SAMPLE_F32:
      return 4;
    case BSPLINE_SAMPLE_F64:
      return 8;
  }
  return 0;
}

bspline_status
bspline_image_validate (const bspline_image * img, int need_data, char *msg,
    size_t msg_len)
{
  size_t size;
  if (!img) {
    bspline_set_error (msg, msg_len, "no image given");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  size = bspline_sample_size (img->type);
  if (size == 0) {
    bspline_set_error (msg, msg_len, "unknown sample type %d", (int) img->type);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (img->width < 1 || img->height < 1 || img->width > BSPLINE_MAX_SIDE
      || img->height > BSPLINE_MAX_SIDE) {
    bspline_set_error (msg, msg_len, "image size %dx%d is out of range "
        "(1 to %d per side)", img->width, img->height, BSPLINE_MAX_SIDE);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (img->channels < 1 || img->channels > BSPLINE_MAX_CHANNELS) {
    bspline_set_error (msg, msg_len, "%d channels per pixel is out of range "
        "(1 to %d)", img->channels, BSPLINE_MAX_CHANNELS);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (img->type == BSPLINE_SAMPLE_U8 && img->bits != 8) {
    bspline_set_error (msg, msg_len, "8-bit samples must have bits = 8");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (img->type == BSPLINE_SAMPLE_U16 && (img->bits < 1 || img->bits > 16
          || img->shift < 0 || img->shift > 16 - img->bits)) {
    bspline_set_error (msg, msg_len, "16-bit samples with %d bits shifted "
        "by %d do not fit", img->bits, img->shift);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (need_data && !img->data) {
    bspline_set_error (msg, msg_len, "image has no data");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (img->stride < 0
      || (size_t) img->stride < size * img->channels * (size_t) img->width) {
    bspline_set_error (msg, msg_len, "row stride %td is smaller than a row "
        "of %dx%d samples of %zu bytes", img->stride, img->width,
        img->channels, size);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  /* The engines load samples of 2, 4 and 8 bytes as such: every row must
   * start on a multiple of the sample size (C99 6.3.2.3p7: a misaligned
   * pointer is undefined behaviour). */
  if (img->stride % (ptrdiff_t) size != 0
      || (img->data && (uintptr_t) img->data % size != 0)) {
    bspline_set_error (msg, msg_len, "rows of %zu-byte samples must start "
        "on multiples of %zu bytes (data %p, stride %td)", size, size,
        img->data, img->stride);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  return BSPLINE_OK;
}
