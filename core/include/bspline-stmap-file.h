/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bspline-stmap-file.h: reads an STMap file (core/stmap/stmap-file.c).
 *
 * An STMap is a picture whose first two channels (R, G) hold, at each
 * sample, the source position normalised to 0..1 as Nuke documents it:
 * (0, 0) at the bottom-left corner of the source frame, (1, 1) at the
 * top-right.  The reader returns the values as stored; converting them to
 * pixel positions is the STMap stage's business, at its own boundary.
 *
 * Formats, told apart by their first bytes (not by the file name):
 *  - OpenEXR (OpenEXRCore): scanline or tiled, channels R and G of type
 *    HALF, FLOAT or UINT, any compression the library decodes, the data
 *    window equal to the display window; of a multi-part file, part 0;
 *  - PNG: 16 bits per channel, RGB or RGBA, values v / 65535;
 *  - TIFF: 16-bit unsigned (v / 65535) or 32-bit float samples, at least
 *    two per pixel, strips or tiles, contiguous or separate planes.
 * 8-bit files are refused: steps of 1/255 of the frame are too coarse for
 * a map.
 */
#ifndef BSPLINE_STMAP_FILE_H
#define BSPLINE_STMAP_FILE_H

#include <stddef.h>
#include "bspline.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* Reads the STMap at path.  On success *width x *height is its size and
 * *st a malloc'ed array of 2 * width * height doubles, s (R) then t (G)
 * per sample, the samples in rows from the top row of the picture as
 * displayed down to the bottom row (for EXR, PNG and TIFF: the file's row
 * order, top first), each row from left to right.  The caller frees it
 * with free().  Maps of 1 x 1 are returned: the caller decides what it
 * accepts.
 *
 * On error *st is NULL, *width and *height 0, msg (where not NULL) holds a
 * message that names the file and what is wrong with it, and the status
 * is BSPLINE_ERROR_INVALID_ARGUMENT (a missing, unreadable, truncated or
 * corrupt file, a format or layout that is not an STMap, a side of 0 or
 * more than BSPLINE_MAX_SIDE, a NaN or infinite value) or
 * BSPLINE_ERROR_NO_MEMORY (an allocation failed, or the map declares
 * more than BSPLINE_STMAP_MAX_SAMPLES samples, bspline-stmap.h: refused
 * before any sample is decoded). */
  BSPLINE_API
  bspline_status bspline_stmap_read (const char *path, int *width,
      int *height, double **st, char *msg, size_t msg_len);

/* bspline_stmap_read of a map for a frame of frame_width x frame_height
 * pixels: a file whose declared size has another aspect ratio
 * (bspline_stmap_fits_frame, bspline-stmap.h) is refused from its header,
 * before any sample is decoded or the samples' memory allocated, with
 * BSPLINE_ERROR_INVALID_ARGUMENT.  A frame size of 0 takes any map. */
  BSPLINE_API
  bspline_status bspline_stmap_read_for_frame (const char *path,
      int frame_width, int frame_height, int *width, int *height,
      double **st, char *msg, size_t msg_len);

#ifdef __cplusplus
}
#endif
#endif                          /* BSPLINE_STMAP_FILE_H */
