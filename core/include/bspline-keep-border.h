/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bspline-keep-border.h: bsplinestabilize's crop=keep-border, the border a
 * corrected frame leaves filled from the previous output frame (the way
 * vid.stab's "keep" border and FFmpeg's deshake edge=blank do it).
 *
 * The rule, once, for both engines (static inline on plain C types,
 * compiled by cc and nvcc as bspline-stage.h is): an output pixel keeps
 * the previous output frame's pixel where its centre (u + 0.5, v + 0.5)
 * has no input point (bspline_stage_map_point: beyond the horizon of the
 * homography, past the lens stage's fold) or has one outside the input
 * plane, x < 0, y < 0, x > in_width or y > in_height (a point on the
 * plane's edge is inside). */
#ifndef BSPLINE_KEEP_BORDER_H
#define BSPLINE_KEEP_BORDER_H

#include "bspline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 where output pixel (u, v) takes the previous frame's pixel; lens NULL
 * for the homography m alone (one lens stage at most: bsplinestabilize's
 * geometry has one). */
BSPLINE_HD static inline int
bspline_keep_border_outside (const double *m, const bspline_lens * lens,
    int u, int v, int in_width, int in_height)
{
  double x, y;
      return !bspline_stage_map_point (m, lens, lens != NULL, u + 0.5, v + 0.5,
        &x, &y)
      || x < 0.0 || y < 0.0 || x > in_width || y > in_height;
}

/* The keep-border composition of one plane on the CPU: every pixel of dst
 * that bspline_keep_border_outside picks (by inverse and lens; lens NULL
 * or of model BSPLINE_LENS_NONE: the homography alone) takes previous's
 * pixel (an image of dst's size, sample type and channels).  The
 * homography alone: each row meets the inside set, convex, in one
 * interval, found in closed form with the rounding of the rule bounded,
 * and only the spans outside it are copied (the pixels within rounding
 * of its ends take the rule itself).  A lens stage: the rule at every
 * pixel, the rows split over cpu's threads.  The result is the rule's,
 * byte for byte, either way. */
BSPLINE_API
bspline_status bspline_cpu_keep_border (bspline_cpu * cpu,
    const bspline_image * dst, const bspline_image * previous,
    const double inverse[9], const bspline_lens * lens, int in_width,
    int in_height);

#ifdef __cplusplus
}
#endif
#endif /* BSPLINE_KEEP_BORDER_H */
