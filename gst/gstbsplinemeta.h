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

/* gstbsplinemeta.h: what bsplinewarp does with the metas of a buffer and
 * the pointer of a navigation event, given the frame's geometry
 * (docs/element.md, "Metas" and "Navigation"). */
#ifndef __GST_BSPLINE_META_H__
#define __GST_BSPLINE_META_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "bspline-geometry.h"
#include "bspline-stmap.h"

G_BEGIN_DECLS
/* GstBaseTransform::transform_meta for a frame of geometry `geometry`
 * between in_info and out_info: scales the metas that say they depend on
 * the size only as videoscale does where the geometry is a pure scaling,
 * maps a GstVideoRegionOfInterestMeta through the geometry otherwise,
 * copies untagged metas and drops the rest.  use_meta: the element warped
 * by the buffer's GstVideoAffineTransformationMeta, which it therefore
 * consumed.  Returns TRUE where GstBaseTransform is to copy the meta. */
    gboolean gst_bspline_meta_transform (GstObject * element,
    GstBuffer * outbuf, GstMeta * meta, GstBuffer * inbuf,
    GstVideoInfo * in_info, GstVideoInfo * out_info,
    const bspline_geometry * geometry, gboolean use_meta);

/* 1 when meta needs the frame's geometry (gst_bspline_meta_transform),
 * 0 when its fate does not depend on it. */
gboolean gst_bspline_meta_needs_geometry (const GstMeta * meta);

/* A navigation event going upstream, its pointer mapped from the output
 * frame to the input frame through `geometry`; the event itself where it
 * carries no pointer, NULL (the event dropped) where the output point has
 * no input point.  Takes the event's reference. */
GstEvent *gst_bspline_meta_navigation_event (GstObject * element,
    GstEvent * event, const bspline_geometry * geometry);

G_END_DECLS
#endif /* __GST_BSPLINE_META_H__ */
