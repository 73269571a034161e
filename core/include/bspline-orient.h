/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bspline-orient.h: exact 90-degree rotations and flips of image planes.
 *
 * The eight orientations of a rectangle (the dihedral group D4) move whole
 * samples: no interpolation, no rounding, bit-exact.  The element uses them
 * for video-direction; the geometry code (bspline-geometry.h) uses their
 * matrices when an orientation is combined with a warp.
 *
 * Coordinates as in bspline.h: pixel (i, j) covers [i, i+1) x [j, j+1).
 */
#ifndef BSPLINE_ORIENT_H
#define BSPLINE_ORIENT_H

#include "bspline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Same order and meaning as GStreamer's GstVideoOrientationMethod (the
 * element still maps the values one by one). */
typedef enum
{
  BSPLINE_ORIENT_IDENTITY = 0,
  BSPLINE_ORIENT_ROTATE_90 = 1,         /* clockwise on screen */
  BSPLINE_ORIENT_ROTATE_180 = 2,
  BSPLINE_ORIENT_ROTATE_270 = 3,        /* 90 degrees counter-clockwise */
  BSPLINE_ORIENT_FLIP_HORIZONTAL = 4,
  BSPLINE_ORIENT_FLIP_VERTICAL = 5,
  BSPLINE_ORIENT_TRANSPOSE = 6,         /* across the upper-left diagonal */
  BSPLINE_ORIENT_ANTI_TRANSPOSE = 7     /* across the upper-right diagonal */
} bspline_orientation;

/* 1 when the orientation exchanges width and height. */
BSPLINE_API
int bspline_orientation_swaps_axes (bspline_orientation orientation);

/* The forward map, in pixel coordinates, of a width x height frame onto its
 * reoriented frame (height x width when the axes swap), as a 3x3 row-major
 * matrix.  For example ROTATE_90 maps (x, y) to (height - y, x). */
BSPLINE_API
void bspline_orientation_matrix (bspline_orientation orientation,
    int width, int height, double m[9]);

/* dst = src reoriented, sample by sample.  src and dst must have the same
 * sample type, bits, shift and channel count, and dst must have src's size
 * with the axes swapped when the orientation swaps them.  src and dst must
 * not overlap. */
BSPLINE_API
bspline_status bspline_orient_plane (bspline_orientation orientation,
    const bspline_image * src, const bspline_image * dst, char *msg,
    size_t msg_len);

#ifdef __cplusplus
}
#endif
#endif /* BSPLINE_ORIENT_H */
