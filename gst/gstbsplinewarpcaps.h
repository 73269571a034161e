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

/* bsplinewarp's caps negotiation and fixation (GstBaseTransform's
 * transform_caps and fixate_caps). */

#ifndef __GST_BSPLINE_WARP_CAPS_H__
#define __GST_BSPLINE_WARP_CAPS_H__

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

/* Any size in either direction; format, colorimetry, chroma-site,
 * framerate and the rest stay as they are. */
GstCaps *gst_bspline_warp_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);

/* videoscale's fixation for the reoriented input (defer=true: the
 * input's caps where downstream takes them). */
GstCaps *gst_bspline_warp_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps);

G_END_DECLS
#endif /* __GST_BSPLINE_WARP_CAPS_H__ */
