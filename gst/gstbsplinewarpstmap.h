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

/* bsplinewarp's STMap stage: the file that stmap-location names, read in
 * the streaming thread when a frame first needs it after the property
 * changed (docs/stmap.md), and the map of the last frame kept for
 * navigation events. */

#ifndef __GST_BSPLINE_WARP_STMAP_H__
#define __GST_BSPLINE_WARP_STMAP_H__

#include <gst/gst.h>

#include "bspline-stmap.h"

G_BEGIN_DECLS

typedef struct
{
  /* behind the element's object lock */
  gchar *location;              /* stmap-location, NULL: none */
  bspline_stmap *shown;         /* the map of the last frame, for navigation */
  /* streaming thread only */
  gchar *frame_location;        /* location when the frame's settings
                                 * were snapshot (the path it loads) */
  bspline_stmap *map;           /* loaded from frame_location, or NULL */
  gboolean loaded;              /* since start, for ... */
  guint serial;                 /* ... the settings' serial */
} GstBSplineWarpStmap;

/* Sets stmap-location (an empty string unsets it); called with the
 * element's object lock held.  TRUE where a location is set. */
gboolean gst_bspline_warp_stmap_set_location (GstBSplineWarpStmap * stmap,
    const gchar * location);

/* A copy of stmap-location, taken under the element's object lock. */
/* With the element's object lock held, where the frame's settings are
 * snapshot: the frame's path is the location now. */
void gst_bspline_warp_stmap_snapshot (GstBSplineWarpStmap * stmap);

/* Reads the file where it was not read since start or since the setting
 * of serial (outside the object lock: a file); FALSE after an element
 * error naming the property and the file. */
/* The map of the frame's settings (serial, the path snapshot with them)
 * loaded where it is not, for input frames of frame_width x
 * frame_height: a map of another aspect ratio is refused before it is
 * decoded.  FALSE after an element error. */
gboolean gst_bspline_warp_stmap_ensure (GstBSplineWarpStmap * stmap,
    GstElement * element, guint serial, gint frame_width, gint frame_height);

/* Forgets the map read (stop: the file may change before the next start). */
void gst_bspline_warp_stmap_clear (GstBSplineWarpStmap * stmap);

/* Frees all of it: clear, the location and the navigation's map. */
void gst_bspline_warp_stmap_finalize (GstBSplineWarpStmap * stmap);

G_END_DECLS
#endif /* __GST_BSPLINE_WARP_STMAP_H__ */
