/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stmap-png.c: the STMap file reader's PNG files, through libpng's
 * classic API (its simplified API applies gamma; stmap-file.c reads the
 * file and picks the codec). */
#include "stmap-reader.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

static void
stmap_png_error (png_structp png, png_const_charp text)
{
  stmap_reader *r = png_get_error_ptr (png);

  if (r->lib_msg[0] == '\0')
    snprintf (r->lib_msg, sizeof (r->lib_msg), "%s", text);
  png_longjmp (png, 1);
}

static void
stmap_png_warning (png_structp png, png_const_charp text)
{
  /* warnings (an unknown chunk, a bad sRGB profile) change no sample */
  (void) png;
  (void) text;
}

/* libpng reads the file in order, from offset on. */
typedef struct
{
  stmap_reader *r;
  uint64_t offset;
} stmap_png_io;

static void
stmap_png_read (png_structp png, png_bytep data, size_t length)
{
  stmap_png_io *io = png_get_io_ptr (png);
  int64_t n = stmap_pread (io->r, data, length, io->offset);
  stmap_errno_text text;

  if (n < 0)
    png_error (png, stmap_strerror (errno, &text));
  if ((uint64_t) n < length)
    png_error (png, "the file ends early (truncated)");
  io->offset += length;
}

bspline_status
stmap_read_png (stmap_reader * r)
{
  stmap_png_io io = { r, 0 };
  png_structp png;
  png_infop info = NULL;
  /* set after setjmp and freed after a longjmp: volatile, so that they
   * hold their last values there (C99 7.13.2.1) */
  unsigned char *volatile pixels = NULL;
  png_bytep *volatile rows = NULL;
  volatile bspline_status st = BSPLINE_OK;
  png_uint_32 width, height, y, x;
  int depth, color, channels;
  size_t row_bytes;

  png = png_create_read_struct (PNG_LIBPNG_VER_STRING, r, stmap_png_error,
      stmap_png_warning);
  if (png)
    info = png_create_info_struct (png);
  if (!info) {
    png_destroy_read_struct (&png, NULL, NULL);
    return stmap_fail (r, BSPLINE_ERROR_NO_MEMORY,
        "out of memory for the PNG reader");
  }
  if (setjmp (png_jmpbuf (png))) {
    st = stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "not a readable PNG file (truncated or corrupt?): %s",
        stmap_lib_said (r));
    goto done;
  }
  png_set_read_fn (png, &io, stmap_png_read);
  /* libpng's own limit (1000000 pixels a side) would refuse a wider map
   * in its words: stmap_alloc checks the sides, before any row is read */
  png_set_user_limits (png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
  png_read_info (png, info);
  png_get_IHDR (png, info, &width, &height, &depth, &color, NULL, NULL, NULL);
  if (color == PNG_COLOR_TYPE_PALETTE) {
    st = stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "a palette PNG: an STMap needs R and G of 16 bits each");
    goto done;
  }
  if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) {
    st = stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "a grey%s PNG: an STMap needs R and G channels (RGB or RGBA)",
        color == PNG_COLOR_TYPE_GRAY_ALPHA ? " + alpha" : "");
    goto done;
  }
  if (depth != 16) {
    st = stmap_refuse_few_bits (r, "a PNG", depth);
    goto done;
  }
  st = stmap_alloc (r, width, height);
  if (st != BSPLINE_OK)
    goto done;

  /* Adam7 images come in passes over the whole image: decode it all
   * (at most half the bytes of the doubles returned), then convert */
  png_set_interlace_handling (png);
  png_read_update_info (png, info);
  channels = png_get_channels (png, info);
  row_bytes = png_get_rowbytes (png, info);
  if ((channels != 3 && channels != 4)
      || row_bytes != (size_t) width * channels * 2) {
    st = stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "corrupt PNG: %d channels, %zu bytes per row of %u pixels",
        channels, row_bytes, (unsigned) width);
    goto done;
  }
  pixels = malloc (row_bytes * height);
  rows = malloc (sizeof (png_bytep) * height);
  if (!pixels || !rows) {
    st = stmap_fail (r, BSPLINE_ERROR_NO_MEMORY,
        "out of memory for a %u x %u PNG", (unsigned) width, (unsigned) height);
    goto done;
  }
  for (y = 0; y < height; y++)
    rows[y] = pixels + row_bytes * y;
  png_read_image (png, rows);
  /* to the end of the file: a truncated or damaged file is refused even
   * where the damage is past the pixels */
  png_read_end (png, NULL);

  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      const unsigned char *p = rows[y] + (size_t) x * channels * 2;
      double *to = r->st + 2 * ((size_t) y * width + x);
      /* PNG stores 16-bit samples big-endian */
      to[0] = ((p[0] << 8) | p[1]) / 65535.0;
      to[1] = ((p[2] << 8) | p[3]) / 65535.0;
    }

done:
  free (rows);
  free (pixels);
  png_destroy_read_struct (&png, &info, NULL);
  return st;
}
