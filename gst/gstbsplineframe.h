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
/* gstbsplineframe.h: how the plugin's elements describe the planes of a
 * GstVideoFrame to the engines (core/include/bspline.h): image layout, chroma
 * grid and fill colour of each plane; gstbsplinesettings.c turns the
 * properties into each plane's engine parameters with them. */
#ifndef __GST_BSPLINE_FRAME_H__
#define __GST_BSPLINE_FRAME_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "bspline.h"
#include "bspline-geometry.h"

G_BEGIN_DECLS
/* Describes plane p of a frame (or, with frame NULL, of info) to the
 * engine: every sample of a pixel is a channel, padding bytes included
 * (RGBx), so that the engine sees the plane's memory layout as it is. */
void gst_bspline_frame_plane_image (const GstVideoInfo * info,
    GstVideoFrame * frame, guint plane, bspline_image * image);

/* A sink and a src pad template, both of the caps described by caps. */
void gst_bspline_frame_add_pad_templates (GstElementClass * klass,
    const gchar * caps);

/* The chroma site of the caps: GStreamer 1.22's gst_video_info_from_caps()
 * replaces the caps' chroma-site with the default one when the caps carry
 * no colorimetry, so the field itself is read. */
GstVideoChromaSite gst_bspline_frame_chroma_site (GstCaps * caps,
    const GstVideoInfo * info);

/* How plane p's samples sit on the luma grid, honouring the chroma site. */
void gst_bspline_frame_plane_grid (const GstVideoInfo * info,
    GstVideoChromaSite site, guint plane, bspline_plane_grid * grid);

/* How component c's samples sit on the luma grid. */
void gst_bspline_frame_component_grid (const GstVideoInfo * info,
    GstVideoChromaSite site, guint c, bspline_plane_grid * grid);

/* fill-color (0xAARRGGBB) as the code value of each component of info's
 * format (GST_VIDEO_COMP_*), at the component's depth. */
void gst_bspline_frame_fill_components (const GstVideoInfo * info,
    guint32 argb, gdouble value[GST_VIDEO_MAX_COMPONENTS]);

/* fill-color (0xAARRGGBB) as the fill value of each channel of plane p
 * (described by image): padding channels get the largest code value. */
void gst_bspline_frame_plane_fill (const GstVideoInfo * info, guint plane,
    guint32 argb, const bspline_image * image,
    double fill[BSPLINE_MAX_CHANNELS]);

G_END_DECLS
#endif /* __GST_BSPLINE_FRAME_H__ */
