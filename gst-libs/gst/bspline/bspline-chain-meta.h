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

#ifndef __GST_BSPLINE_CHAIN_META_H__
#define __GST_BSPLINE_CHAIN_META_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include <bspline-chain.h>

G_BEGIN_DECLS
/* Exported from libgstbspline-1.0 (built with hidden visibility), as
 * GST_VIDEO_API is from libgstvideo-1.0. */
#ifndef GST_BSPLINE_API
#ifdef BUILDING_GST_BSPLINE
#define GST_BSPLINE_API GST_API_EXPORT
#else
#define GST_BSPLINE_API GST_API_IMPORT
#endif
#endif
#define GST_BSPLINE_CHAIN_META_API_TYPE (gst_bspline_chain_meta_api_get_type ())
#define GST_BSPLINE_CHAIN_META_INFO (gst_bspline_chain_meta_get_info ())
typedef struct _GstBSplineChainMeta GstBSplineChainMeta;

/**
 * GstBSplineChainMeta:
 * @meta: parent #GstMeta
 * @width: width in luma pixels of the frame the stages refer to: the
 *     buffer's
 * @height: height in luma pixels of that frame
 * @n_stages: number of stages in @stages
 * @stages: the stages, in the order they act on the picture: @stages[0]
 *     first, nearest the pixels the buffer holds; each stored as its
 *     inverse (bspline-chain.h: output pixel coordinates -> input pixel
 *     coordinates, or a lens or STMap stage's domain), on @width x @height
 *     frames (pixel (i, j) covers [i, i+1) x [j, j+1), x right, y down)
 *
 * The geometric chain still to be applied to a frame: an element that
 * defers its warp appends its stage here instead of resampling, and the
 * element that resamples applies the whole chain at once (one
 * interpolation for the lot).  The meta owns its stages (an STMap stage
 * holds a reference on its #bspline_stmap); change it through
 * gst_bspline_chain_meta_add_stage() and
 * gst_bspline_chain_meta_add_homography() only, on a writable buffer.
 *
 * Its API is tagged video, size and orientation: an element that does not
 * know it drops it rather than copy it onto a frame it no longer
 * describes; a scaling element (videoscale) gets it scaled to its output
 * frame.
 */
struct _GstBSplineChainMeta
{
  GstMeta meta;

  gint width, height;
  guint n_stages;
  bspline_chain_stage *stages;
};

GST_BSPLINE_API GType gst_bspline_chain_meta_api_get_type (void);

GST_BSPLINE_API const GstMetaInfo *gst_bspline_chain_meta_get_info (void);

GST_BSPLINE_API
    GstBSplineChainMeta * gst_buffer_get_bspline_chain_meta (GstBuffer *
    buffer);

GST_BSPLINE_API
    GstBSplineChainMeta * gst_buffer_add_bspline_chain_meta (GstBuffer * buffer,
    gint width, gint height);

GST_BSPLINE_API
    gboolean gst_bspline_chain_meta_add_stage (GstBSplineChainMeta * meta,
    const bspline_chain_stage * stage);

GST_BSPLINE_API
    gboolean gst_bspline_chain_meta_add_homography (GstBSplineChainMeta * meta,
    const gdouble forward[9]);

GST_BSPLINE_API
    guint gst_bspline_chain_meta_count_lenses (const GstBSplineChainMeta *
    meta);

G_END_DECLS
#endif /* __GST_BSPLINE_CHAIN_META_H__ */
