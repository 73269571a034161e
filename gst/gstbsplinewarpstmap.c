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

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstbsplinewarpstmap.h"

GST_DEBUG_CATEGORY_EXTERN (gst_bspline_warp_debug);
#define GST_CAT_DEFAULT gst_bspline_warp_debug

gboolean
gst_bspline_warp_stmap_set_location (GstBSplineWarpStmap * stmap,
    const gchar * location)
{
  g_free (stmap->location);
  stmap->location = location && *location ? g_strdup (location) : NULL;
  return stmap->location != NULL;
}

void
gst_bspline_warp_stmap_snapshot (GstBSplineWarpStmap * stmap)
{
  if (g_strcmp0 (stmap->frame_location, stmap->location) == 0)
    return;
  g_free (stmap->frame_location);
  stmap->frame_location = g_strdup (stmap->location);
}

static gboolean
gst_bspline_warp_stmap_load (GstBSplineWarpStmap * stmap,
    GstElement * element, guint serial, gint frame_width, gint frame_height)
{
  const gchar *path = stmap->frame_location;
  bspline_stmap *map = NULL;
  gchar msg[512] = "";
  bspline_status status;

  /* the frame's own path (its settings snapshot's), not the property's:
   * the property may have changed since (the old map or the new one for
   * this frame, never an error) */
  if (path) {
    /* a map of another aspect ratio is refused from the file's header */
    status = bspline_stmap_load_for_frame (path, frame_width, frame_height,
        &map, msg, sizeof (msg));
    if (status != BSPLINE_OK) {
      GST_ELEMENT_ERROR (element, RESOURCE, READ,
          ("stmap-location=%s cannot be used: %s.", path, msg),
          ("%s", bspline_status_string (status)));
      return FALSE;
    }
    GST_INFO_OBJECT (element, "STMap %s: %dx%d samples", path,
        bspline_stmap_width (map), bspline_stmap_height (map));
  }
  /* the planes' plans hold their own references to the old map */
  bspline_stmap_unref (stmap->map);
  stmap->map = map;
  GST_OBJECT_LOCK (element);
  bspline_stmap_unref (stmap->shown);
  stmap->shown = bspline_stmap_ref (map);
  GST_OBJECT_UNLOCK (element);
  stmap->loaded = TRUE;
  stmap->serial = serial;
  return TRUE;
}

gboolean
gst_bspline_warp_stmap_ensure (GstBSplineWarpStmap * stmap,
    GstElement * element, guint serial, gint frame_width, gint frame_height)
{
  if (stmap->loaded && serial == stmap->serial)
    return TRUE;
  return gst_bspline_warp_stmap_load (stmap, element, serial, frame_width,
      frame_height);
}

void
gst_bspline_warp_stmap_clear (GstBSplineWarpStmap * stmap)
{
  bspline_stmap_unref (stmap->map);
  stmap->map = NULL;
  stmap->loaded = FALSE;
}

void
gst_bspline_warp_stmap_finalize (GstBSplineWarpStmap * stmap)
{
  gst_bspline_warp_stmap_clear (stmap);
  bspline_stmap_unref (stmap->shown);
  stmap->shown = NULL;
  g_free (stmap->location);
  stmap->location = NULL;
  g_free (stmap->frame_location);
  stmap->frame_location = NULL;
}
