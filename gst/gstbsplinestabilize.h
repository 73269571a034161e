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
#ifndef __GST_BSPLINE_STABILIZE_H__
#define __GST_BSPLINE_STABILIZE_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>

G_BEGIN_DECLS
#define GST_TYPE_BSPLINE_STABILIZE (gst_bspline_stabilize_get_type ())
G_DECLARE_FINAL_TYPE (GstBSplineStabilize, gst_bspline_stabilize, GST,
    BSPLINE_STABILIZE, GstVideoFilter);

GST_ELEMENT_REGISTER_DECLARE (bsplinestabilize);

G_END_DECLS
#endif /* __GST_BSPLINE_STABILIZE_H__ */
