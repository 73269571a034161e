/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* orient.c: exact 90-degree rotations and flips (see bspline-orient.h). */
#include <stdio.h>
#include <string.h>

#include "bspline-orient.h"

/* Every orientation reads destination sample (x, y) from source sample
 * (col0 + col_x * x + col_y * y, row0 + row_x * x + row_y * y); these are
 * the inverses of the maps in bspline_orientation_matrix taken at pixel
 * centres. */
typedef struct
{
  int col0, col_x, col_y;
  int row0, row_x, row_y;
} orient_index_map;

int
bspline_orientation_swaps_axes (bspline_orientation orientation)
{
  switch (orientation) {
    case BSPLINE_ORIENT_ROTATE_90:
    case BSPLINE_ORIENT_ROTATE_270:
    case BSPLINE_ORIENT_TRANSPOSE:
    case BSPLINE_ORIENT_ANTI_TRANSPOSE:
      return 1;
    default:
      return 0;
  }
}

void
bspline_orientation_matrix (bspline_orientation orientation, int width,
    int height, double m[9])
{
  double w = width, h = height;
  /* rows: X = m[0] x + m[1] y + m[2], Y = m[3] x + m[4] y + m[5] */
  const double table[8][6] = {
    {1, 0, 0, 0, 1, 0},         /* identity */
    {0, -1, h, 1, 0, 0},        /* rotate 90:  X = h - y, Y = x */
    {-1, 0, w, 0, -1, h},       /* rotate 180: X = w - x, Y = h - y */
    {0, 1, 0, -1, 0, w},        /* rotate 270: X = y,     Y = w - x */
    {-1, 0, w, 0, 1, 0},        /* flip horizontal */
    {1, 0, 0, 0, -1, h},        /* flip vertical */
    {0, 1, 0, 1, 0, 0},         /* transpose:      X = y,     Y = x */
    {0, -1, h, -1, 0, w},       /* anti-transpose: X = h - y, Y = w - x */
  };
  int k = (orientation >= 0 && orientation < 8) ? (int) orientation : 0;

  memcpy (m, table[k], 6 * sizeof (double));
  m[6] = 0.0;
  m[7] = 0.0;
  m[8] = 1.0;
}

static void
orient_index_map_set (orient_index_map * map, int col0, int col_x, int col_y,
    int row0, int row_x, int row_y)
{
  map->col0 = col0;
  map->col_x = col_x;
  map->col_y = col_y;
  map->row0 = row0;
  map->row_x = row_x;
  map->row_y = row_y;
}

static orient_index_map
orient_index_map_get (bspline_orientation orientation, int src_width,
    int src_height)
{
  int w1 = src_width - 1, h1 = src_height - 1;
  orient_index_map map;

  switch (orientation) {
    case BSPLINE_ORIENT_ROTATE_90:     /* (y, h1 - x) */
      orient_index_map_set (&map, 0, 0, 1, h1, -1, 0);
      break;
    case BSPLINE_ORIENT_ROTATE_180:    /* (w1 - x, h1 - y) */
      orient_index_map_set (&map, w1, -1, 0, h1, 0, -1);
      break;
    case BSPLINE_ORIENT_ROTATE_270:    /* (w1 - y, x) */
      orient_index_map_set (&map, w1, 0, -1, 0, 1, 0);
      break;
    case BSPLINE_ORIENT_FLIP_HORIZONTAL:       /* (w1 - x, y) */
      orient_index_map_set (&map, w1, -1, 0, 0, 0, 1);
      break;
    case BSPLINE_ORIENT_FLIP_VERTICAL: /* (x, h1 - y) */
      orient_index_map_set (&map, 0, 1, 0, h1, 0, -1);
      break;
    case BSPLINE_ORIENT_TRANSPOSE:     /* (y, x) */
      orient_index_map_set (&map, 0, 0, 1, 0, 1, 0);
      break;
    case BSPLINE_ORIENT_ANTI_TRANSPOSE:        /* (w1 - y, h1 - x) */
      orient_index_map_set (&map, w1, 0, -1, h1, -1, 0);
      break;
    default:                   /* identity: (x, y) */
      orient_index_map_set (&map, 0, 1, 0, 0, 0, 1);
      break;
  }
  return map;
}

/* Copies one destination row: n elements of `size` bytes, reading the
 * source `step` bytes apart.  Fixed-size loads for the common sizes. */
static void
orient_copy_row (unsigned char *dst, const unsigned char *src,
    ptrdiff_t step, int n, size_t size)
{
  int x;

  switch (size) {
    case 1:
      for (x = 0; x < n; x++, src += step)
        dst[x] = *src;
      break;
    case 2:
      for (x = 0; x < n; x++, src += step)
        memcpy (dst + 2 * x, src, 2);
      break;
    case 4:
      for (x = 0; x < n; x++, src += step)
        memcpy (dst + 4 * x, src, 4);
      break;
    default:
      for (x = 0; x < n; x++, src += step)
        memcpy (dst + size * x, src, size);
      break;
  }
}

bspline_status
bspline_orient_plane (bspline_orientation orientation,
    const bspline_image * src, const bspline_image * dst, char *msg,
    size_t msg_len)
{
  bspline_status status;
  orient_index_map map;
  size_t size;
  int want_w, want_h, y;

  if (orientation < BSPLINE_ORIENT_IDENTITY
      || orientation > BSPLINE_ORIENT_ANTI_TRANSPOSE) {
    if (msg)
      snprintf (msg, msg_len, "unknown orientation %d", (int) orientation);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  status = bspline_image_validate (src, 1, msg, msg_len);
  if (status != BSPLINE_OK)
    return status;
  status = bspline_image_validate (dst, 1, msg, msg_len);
  if (status != BSPLINE_OK)
    return status;
  if (src->type != dst->type || src->channels != dst->channels
      || src->bits != dst->bits || src->shift != dst->shift) {
    if (msg)
      snprintf (msg, msg_len, "source and destination planes differ in "
          "sample type or channel count");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  want_w = bspline_orientation_swaps_axes (orientation) ? src->height :
      src->width;
  want_h = bspline_orientation_swaps_axes (orientation) ? src->width :
      src->height;
  if (dst->width != want_w || dst->height != want_h) {
    if (msg)
      snprintf (msg, msg_len, "a %dx%d plane reorients to %dx%d, not %dx%d",
          src->width, src->height, want_w, want_h, dst->width, dst->height);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }

  size = bspline_sample_size (src->type) * (size_t) src->channels;
  map = orient_index_map_get (orientation, src->width, src->height);
  for (y = 0; y < dst->height; y++) {
    ptrdiff_t col = map.col0 + (ptrdiff_t) map.col_y * y;
    ptrdiff_t row = map.row0 + (ptrdiff_t) map.row_y * y;
    const unsigned char *s = (const unsigned char *) src->data
        + row * src->stride + col * (ptrdiff_t) size;
    ptrdiff_t step = map.col_x * (ptrdiff_t) size + map.row_x * src->stride;
    unsigned char *d = (unsigned char *) dst->data + y * dst->stride;

    if (step == (ptrdiff_t) size)
      memcpy (d, s, size * (size_t) dst->width);
    else
      orient_copy_row (d, s, step, dst->width, size);
  }
  return BSPLINE_OK;
}
