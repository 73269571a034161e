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
/* gstbsplineframe.c: see gstbsplineframe.h.  The plane helpers of both
 * elements. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstbsplineframe.h"

/* The first component stored in a plane. */
static guint
gst_bspline_frame_plane_component (const GstVideoInfo * info, guint plane)
{
  guint c;

  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++)
    if (info->finfo->plane[c] == plane)
      return c;
  return 0;
}

static guint
gst_bspline_frame_sample_bytes (const GstVideoInfo * info, guint component)
{
  return GST_VIDEO_INFO_COMP_DEPTH (info, component) > 8 ? 2 : 1;
}

void
gst_bspline_frame_plane_image (const GstVideoInfo * info,
    GstVideoFrame * frame, guint plane, bspline_image * image)
{
  guint c = gst_bspline_frame_plane_component (info, plane);
  guint bytes = gst_bspline_frame_sample_bytes (info, c);

  memset (image, 0, sizeof (*image));
  if (frame) {
    image->data = GST_VIDEO_FRAME_PLANE_DATA (frame, plane);
    image->stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, plane);
  }
  image->width = GST_VIDEO_INFO_COMP_WIDTH (info, c);
  image->height = GST_VIDEO_INFO_COMP_HEIGHT (info, c);
  image->channels = GST_VIDEO_INFO_COMP_PSTRIDE (info, c) / bytes;
  image->type = bytes == 2 ? BSPLINE_SAMPLE_U16 : BSPLINE_SAMPLE_U8;
  image->bits = GST_VIDEO_INFO_COMP_DEPTH (info, c);
  image->shift = bytes == 2 ? GST_VIDEO_FORMAT_INFO_SHIFT (info->finfo, c) : 0;
}

void
gst_bspline_frame_add_pad_templates (GstElementClass * klass,
    const gchar * caps)
{
  GstCaps *c = gst_caps_from_string (caps);

  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, c));
  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, c));
  gst_caps_unref (c);
}

GstVideoChromaSite
gst_bspline_frame_chroma_site (GstCaps * caps, const GstVideoInfo * info)
{
  const gchar *site = gst_structure_get_string (gst_caps_get_structure (caps,
          0), "chroma-site");

  if (site && gst_video_chroma_site_from_string (site) !=
      GST_VIDEO_CHROMA_SITE_UNKNOWN)
    return gst_video_chroma_site_from_string (site);
  return GST_VIDEO_INFO_CHROMA_SITE (info);
}

void
gst_bspline_frame_plane_grid (const GstVideoInfo * info,
    GstVideoChromaSite site, guint plane, bspline_plane_grid * grid)
{
  gst_bspline_frame_component_grid (info, site,
      gst_bspline_frame_plane_component (info, plane), grid);
}

void
gst_bspline_frame_component_grid (const GstVideoInfo * info,
    GstVideoChromaSite site, guint c, bspline_plane_grid * grid)
{
  const GstVideoFormatInfo *finfo = info->finfo;

  grid->sub_x = 1 << GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c);
  grid->sub_y = 1 << GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c);
  grid->offset_x = bspline_plane_grid_offset (grid->sub_x,
      (site & GST_VIDEO_CHROMA_SITE_H_COSITED) != 0);
  grid->offset_y = bspline_plane_grid_offset (grid->sub_y,
      (site & GST_VIDEO_CHROMA_SITE_V_COSITED) != 0);
}

/* R'G'B' scaled to the component range for RGB formats; for YUV and gray,
 * Y'CbCr from the caps' matrix coefficients (Kr, Kb; BT.709 when the caps
 * name none, e.g. gray) with the offsets and scales of the caps' range, as
 * GStreamer's video-converter does. */
void
gst_bspline_frame_fill_components (const GstVideoInfo * info, guint32 argb,
    gdouble value[GST_VIDEO_MAX_COMPONENTS])
{
  gdouble a = ((argb >> 24) & 0xff) / 255.0, r = ((argb >> 16) & 0xff) / 255.0;
  gdouble g = ((argb >> 8) & 0xff) / 255.0, b = (argb & 0xff) / 255.0;
  gint offset[GST_VIDEO_MAX_COMPONENTS], scale[GST_VIDEO_MAX_COMPONENTS];
  guint c;

  gst_video_color_range_offsets (info->colorimetry.range, info->finfo,
      offset, scale);
  if (GST_VIDEO_INFO_IS_RGB (info)) {
    value[GST_VIDEO_COMP_R] = offset[0] + r * scale[0];
    value[GST_VIDEO_COMP_G] = offset[1] + g * scale[1];
    value[GST_VIDEO_COMP_B] = offset[2] + b * scale[2];
  } else {
    gdouble kr, kb, y;

    if (!gst_video_color_matrix_get_Kr_Kb (info->colorimetry.matrix, &kr, &kb)) {
      kr = 0.2126;
      kb = 0.0722;
    }
    y = kr * r + (1.0 - kr - kb) * g + kb * b;
    value[GST_VIDEO_COMP_Y] = offset[0] + y * scale[0];
    value[GST_VIDEO_COMP_U] = offset[1] + (b - y) / (2.0 * (1.0 - kb))
        * scale[1];
    value[GST_VIDEO_COMP_V] = offset[2] + (r - y) / (2.0 * (1.0 - kr))
        * scale[2];
  }
  value[GST_VIDEO_COMP_A] = a * ((1 << GST_VIDEO_INFO_COMP_DEPTH (info,
              GST_VIDEO_COMP_A)) - 1);

  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    gdouble max;

    /* a palette's 32-bit entries (RGB8P) are no code values: its fill
     * comes from gst_bspline_layout_fill */
    if (GST_VIDEO_INFO_COMP_DEPTH (info, c) > 16)
      continue;
    max = (1 << GST_VIDEO_INFO_COMP_DEPTH (info, c)) - 1;
    value[c] = CLAMP (floor (value[c] + 0.5), 0.0, max);
  }
}

/* The channel of component `component` within its plane's pixels.
 * GstVideoFormatInfo's poffset counts bytes, but GStreamer 1.22 gives the
 * P01x formats' chroma offsets in samples (P010_10LE: 0 and 1 where the
 * bytes are 0 and 2), so poffset / sample bytes put Cb and Cr both in
 * channel 0.  A sample of two bytes never starts at an odd byte: when one
 * of the plane's offsets is not a multiple of the sample size, the plane's
 * offsets count samples.  Offsets, not ranks among the plane's components,
 * because padding (RGBx, xRGB) holds a channel that is no component. */
static guint
gst_bspline_frame_component_channel (const GstVideoInfo * info, guint component)
{
  guint plane = GST_VIDEO_INFO_COMP_PLANE (info, component);
  guint bytes = gst_bspline_frame_sample_bytes (info, component);
  guint c;

  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++)
    if (GST_VIDEO_INFO_COMP_PLANE (info, c) == plane &&
        GST_VIDEO_INFO_COMP_POFFSET (info, c) % bytes != 0)
      return GST_VIDEO_INFO_COMP_POFFSET (info, component);
  return GST_VIDEO_INFO_COMP_POFFSET (info, component) / bytes;
}

void
gst_bspline_frame_plane_fill (const GstVideoInfo * info, guint plane,
    guint32 argb, const bspline_image * image,
    double fill[BSPLINE_MAX_CHANNELS])
{
  gdouble value[GST_VIDEO_MAX_COMPONENTS];
  guint c, ch;

  gst_bspline_frame_fill_components (info, argb, value);
  for (ch = 0; ch < BSPLINE_MAX_CHANNELS; ch++)
    fill[ch] = (1 << image->bits) - 1;
  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    if (GST_VIDEO_INFO_COMP_PLANE (info, c) != plane)
      continue;
    ch = gst_bspline_frame_component_channel (info, c);
    if (ch < BSPLINE_MAX_CHANNELS)
      fill[ch] = value[c];
  }
}
