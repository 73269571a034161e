/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lens.h: what the plans need of the lens stages (lens.c).
 *
 * Not installed.  Included by core/'s files only. */
#ifndef BSPLINE_LENS_H
#define BSPLINE_LENS_H

#include "bspline.h"

#include <stddef.h>

/* Checks the lens's coefficients and finds its fold radius (lens->fold);
 * fails where the output frame, through the homography m and the
 * (prepared) lens stages before[0 .. n_before - 1], needs a point at or
 * beyond it (the message says where). */
bspline_status bspline_lens_prepare (bspline_lens * lens, const double m[9],
    const bspline_lens * before, int n_before, int dst_width, int dst_height,
    char *msg, size_t msg_len);
/* 1 where the footprint of the geometry (m, then lenses[0 .. n_lenses -
 * 1]) stays well under one input pixel per output pixel over the frame
 * (sampled): no pixel would widen. */
int bspline_lens_never_widens (const bspline_lens * lenses, int n_lenses,
    const double m[9], int dst_width, int dst_height);

#endif /* BSPLINE_LENS_H */
