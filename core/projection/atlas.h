/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* atlas.h: the input atlas of a projection stage (atlas.c): a cube map's
 * faces, or an equirect frame, gathered by whole-pixel copies into a
 * larger plane whose margins continue each face across its edges (and
 * the equirect across +-180 degrees and over the poles), so that the
 * prefilter and the sampler, run on the atlas as on any frame, see no
 * seam.  Core-private; the engines run it (bspline_atlas_gather on the
 * CPU, cuda/atlas.cu on the GPU, the same table). */
#ifndef BSPLINE_ATLAS_H
#define BSPLINE_ATLAS_H

#include <stdint.h>

#include "bspline.h"
#include "bspline-stage.h"
#include "base.h"

typedef struct bspline_atlas
{
  int frame_width, frame_height;        /* the plane as received */
  int width, height;            /* the atlas */
  int margin;                   /* pixels around each tile */
  /* tiles: the frame's slots, cols x rows, each tile_width x
   * tile_height (a cube face and its margins; EAC's pads left out) */
  int cols, rows, tile_width, tile_height;
  /* atlas pixel (x, y) is frame pixel index[y * width + x] (row-major
   * index into the frame: fy * frame_width + fx) */
  int32_t *index;
} bspline_atlas;

/* The margin, in pixels, an atlas gives each tile for a plan of these
 * parameters: the kernel's reach plus the prefilter's truncation index
 * (bspline_truncation_index) at the plan's precision, so that what lies
 * beyond the margin weighs below that precision on the tile's inside. */
BSPLINE_INTERNAL_API int bspline_atlas_margin (const bspline_params * params);

/* The atlas of a plan whose last stage is `stage`, for a plane of
 * plane_width x plane_height pixels, with margin pixels around each tile;
 * *out NULL (and BSPLINE_OK) where the stage takes none: a stage that is
 * not a projection, an input other than a whole-sphere equirect or a
 * cube map (c3x2, c6x1, c1x6, eac), or a plane whose faces are not whole
 * pixels (an equirect of odd width; cube faces that are not squares of
 * whole pixels on this plane, EAC's 2-pixel pads included), or a plane
 * or atlas of more than 2^31 - 1 pixels.  On success
 * the stage is changed to read the atlas: a cube map's input side takes
 * the faces' shares of their tiles (range_x, range_y: bspline-
 * projection.h) and its post spans the atlas; an equirect's post moves
 * by the margin. */
BSPLINE_INTERNAL_API
    bspline_status bspline_atlas_new (bspline_lens * stage, int plane_width,
    int plane_height, int margin, bspline_atlas ** out);

BSPLINE_INTERNAL_API void bspline_atlas_free (bspline_atlas * atlas);

/* Copies src (the frame) into dst (the atlas: the same sample type and
 * channels), rows split over the pool: the whole atlas, or where window
 * is given only its part x, y, width, height (window[0 .. 3]; the rest of
 * dst is left as it is). */
void bspline_atlas_gather (bspline_pool * pool, const bspline_atlas * atlas,
    const bspline_image * src, const bspline_image * dst, const int *window);

#endif /* BSPLINE_ATLAS_H */
