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
#include "gstbsplinewarp.h"
#include "gstbsplinestabilize.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  return GST_ELEMENT_REGISTER (bsplinewarp, plugin)
      && GST_ELEMENT_REGISTER (bsplinestabilize, plugin);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, bspline,
    "Exact B-spline resampling: scaling, rotation, affine and perspective "
    "warps", plugin_init, VERSION, "LGPL", PACKAGE, GST_PACKAGE_ORIGIN)
