/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GStreamer
 * Copyright (C) 2026 gst-bspline contributors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * This library is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Library General Public License for more details.
 */
/* gstbsplinelinear.h: gamma-mode=remap, resampling in linear light.  The
 * caps' transfer function (colorimetry) says how the code values code
 * light; a plane is decoded to linear light in float before the CPU
 * engine and encoded after (core/base/transfer.c), so that the engine
 * resamples, and least squares averages, light rather than codes. */
#ifndef __GST_BSPLINE_LINEAR_H__
#define __GST_BSPLINE_LINEAR_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "bspline.h"
#include "bspline-transfer.h"

G_BEGIN_DECLS

typedef enum
{
  GST_BSPLINE_GAMMA_MODE_NONE,
  GST_BSPLINE_GAMMA_MODE_REMAP
} GstBSplineGammaMode;

GType gst_bspline_gamma_mode_get_type (void);
#define GST_TYPE_BSPLINE_GAMMA_MODE (gst_bspline_gamma_mode_get_type ())

/* How the planes of info are resampled in linear light: the transfer
 * functions of the input (info) and the output (out_info), and the
 * channels of each plane that are not colour (alpha, padding), which
 * pass as they are.  FALSE with msg where they cannot be (not 8- or
 * 16-bit RGB, a transfer function without a decoding here). */
typedef struct
{
  bspline_transfer in, out;
  guint pass_mask[GST_VIDEO_MAX_PLANES];
} GstBSplineLinear;

gboolean gst_bspline_linear_init (GstBSplineLinear * linear,
    const GstVideoInfo * in_info, const GstVideoInfo * out_info,
    gchar * msg, gsize msg_len);

/* The fill code values of a plane of info (gst_bspline_frame_plane_fill)
 * as the linear light the engine then fills with. */
void gst_bspline_linear_fill (const GstVideoInfo * info, guint plane,
    const bspline_image * image, gdouble fill[BSPLINE_MAX_CHANNELS]);

/* src resampled into dst by plan in linear light: src decoded to float,
 * the plan run by cpu, the result encoded into dst. */
bspline_status gst_bspline_linear_execute (const GstBSplineLinear * linear,
    guint plane, bspline_cpu * cpu, const bspline_plan * plan,
    const bspline_image * src, const bspline_image * dst, gchar * msg,
    gsize msg_len);

G_END_DECLS
#endif /* __GST_BSPLINE_LINEAR_H__ */
