/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An STMap as the sampler uses it: the map's cubic B-spline coefficients,
 * ready for the STMap stage (bspline-stage.h).
 *
 * The file convention (Nuke's STMap): at each sample the picture's R and
 * G hold (s, t), the source position normalised to 0..1 with (0, 0) at
 * the bottom-left corner of the source frame and (1, 1) at its top-right;
 * pixel centres at half steps (an identity map of a W x H frame holds
 * ((i + 0.5) / W, 1 - (j + 0.5) / H) at column i, row j from the top).
 * This is the one place that converts it: the object holds
 * (x, y) = (s, 1 - t), the source position as a fraction of the frame
 * with y down, the house's convention scaled by the frame's size.
 *
 * The map's own samples sit at the centres of a map_w x map_h grid laid
 * over the whole source frame; between them the map is a cubic B-spline
 * that interpolates them (C2: a continuous Jacobian for antialiasing;
 * linear maps, such as an identity map of any size, reproduced exactly).
 * Past the outer samples, out to the frame's edge (half a sample), it is
 * extended by point symmetry about the edge sample, f(-k) = 2 f(0) - f(k)
 * on each axis, which continues the map linearly (to second order)
 * instead of bending it flat as a mirror would.  Past the frame's edge
 * (points other stages send outside the input frame) the map goes on
 * along its tangent at the edge.
 *
 * Objects are immutable once made and reference counted (a plan holds a
 * reference), so an element may load a new map while a plan still uses
 * the old one.
 */
#ifndef BSPLINE_STMAP_H
#define BSPLINE_STMAP_H

#include <stddef.h>
#include "bspline.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bspline_stmap bspline_stmap;

/* The most samples a map may have: 2^22 (2048 x 2048, 2560 x 1600).  A
 * map is read as doubles (16 bytes a sample) and made into coefficients
 * (16 more): 128 MiB at this size, and 192 MiB while bsplinewarp still
 * holds the coefficients of the map it replaces (docs/stmap.md, Memory).
 * Larger files are refused from the size they declare, before any sample
 * is decoded. */
#define BSPLINE_STMAP_MAX_SAMPLES (1 << 22)

/* A map from (s, t) samples as stored (2 * width * height doubles, s then
 * t per sample, rows from the top: bspline_stmap_read's layout).  Fails
 * on sizes out of range and on non-finite values (naming the sample). */
BSPLINE_API
bspline_status bspline_stmap_new (const double *st, int width, int height,
    bspline_stmap ** out, char *msg, size_t msg_len);

/* bspline_stmap_read (bspline-stmap-file.h), then bspline_stmap_new. */
BSPLINE_API
bspline_status bspline_stmap_load (const char *path, bspline_stmap ** out,
    char *msg, size_t msg_len);

/* bspline_stmap_load of a map for a frame of frame_width x frame_height
 * pixels: bspline_stmap_read_for_frame, which refuses a map of another
 * aspect ratio before decoding it, then bspline_stmap_new. */
BSPLINE_API
bspline_status bspline_stmap_load_for_frame (const char *path,
    int frame_width, int frame_height, bspline_stmap ** out, char *msg,
    size_t msg_len);

/* Whether a map of map_width x map_height samples lies over a frame of
 * width x height pixels: its samples divide the frame evenly, so a map
 * made for the frame (any size, rounded to whole samples) has the frame's
 * aspect ratio within one sample on either axis. */
BSPLINE_API
int bspline_stmap_fits_frame (int map_width, int map_height, int width,
    int height);

BSPLINE_API
bspline_stmap *bspline_stmap_ref (bspline_stmap * map);
BSPLINE_API
void bspline_stmap_unref (bspline_stmap * map);

BSPLINE_API
int bspline_stmap_width (const bspline_stmap * map);
BSPLINE_API
int bspline_stmap_height (const bspline_stmap * map);

/* The coefficients, (x, y) pairs on a (width + 2 * BSPLINE_STMAP_PAD) x
 * (height + 2 * BSPLINE_STMAP_PAD) grid whose first BSPLINE_STMAP_PAD rows
 * and columns are the point-symmetric extension; the size in bytes in
 * *bytes where it is not NULL (for an engine's copy). */
BSPLINE_API
const double *bspline_stmap_coefficients (const bspline_stmap * map,
    size_t * bytes);

/* The source position (x, y, fractions of the frame, y down) at map
 * position (mx, my) in map samples (the centre of sample (i, j) at
 * (i + 0.5, j + 0.5)), through the same evaluation as the sampler's. */
BSPLINE_API
int bspline_stmap_eval (const bspline_stmap * map, double mx, double my,
    double *x, double *y);

#ifdef __cplusplus
}
#endif

#endif /* BSPLINE_STMAP_H */
