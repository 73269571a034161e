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
/* gstbsplineframe.h: how the plugin's elements describe the planes of a
 * GstVideoFrame to the engines (core/bspline.h): image layout, chroma
 * grid, fill colour and engine parameters of each plane. */
#ifndef __GST_BSPLINE_FRAME_H__
#define __GST_BSPLINE_FRAME_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "bspline.h"
#include "bspline-geometry.h"

G_BEGIN_DECLS
/* The quality settings that become a plane's bspline_params. */
    typedef struct
{
  bspline_method method;
  gint order;
  gdouble bicubic_a;
  bspline_boundary boundary;
  guint32 fill_color;           /* 0xAARRGGBB */
  bspline_precision precision;
  gboolean antialias;
} GstBSplineQuality;

/* Describes plane p of a frame (or, with frame NULL, of info) to the
 * engine: every sample of a pixel is a channel, padding bytes included
 * (RGBx), so that the engine sees the plane's memory layout as it is. */
void gst_bspline_frame_plane_image (const GstVideoInfo * info,
    GstVideoFrame * frame, guint plane, bspline_image * image);

/* How plane p's samples sit on the luma grid, honouring the chroma site. */
void gst_bspline_frame_plane_grid (const GstVideoInfo * info,
    GstVideoChromaSite site, guint plane, bspline_plane_grid * grid);

/* fill-color (0xAARRGGBB) as code values of each component of the
 * format. */
void gst_bspline_frame_fill_components (const GstVideoInfo * info,
    guint32 argb, gdouble value[GST_VIDEO_MAX_COMPONENTS]);

/* The engine parameters of plane p: the quality settings, with the fill
 * value of each channel (padding channels get the largest code value). */
void gst_bspline_frame_plane_params (const GstVideoInfo * info, guint plane,
    const GstBSplineQuality * quality, const bspline_image * image,
    bspline_params * params);

G_END_DECLS
#endif /* __GST_BSPLINE_FRAME_H__ */
