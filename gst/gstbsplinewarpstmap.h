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

/* bsplinewarp's STMap stage: the file that stmap-location names.  The
 * first map since start is read in the streaming thread by the first
 * frame; a map set later is read on a thread of its own while the frames
 * keep the map in use (docs/stmap.md, "Changing the map"), and an element
 * message says when a map goes into use.  The map in use is kept for
 * navigation events too. */

#ifndef __GST_BSPLINE_WARP_STMAP_H__
#define __GST_BSPLINE_WARP_STMAP_H__

#include <gst/gst.h>

#include "bspline-stmap.h"

G_BEGIN_DECLS

/* The element message posted when frames start using a map (or none):
 * "location" (string, NULL for none) and "pts" (guint64, the first such
 * frame's PTS, GST_CLOCK_TIME_NONE where unknown). */
#define GST_BSPLINE_WARP_STMAP_MESSAGE "bsplinewarp-stmap"

typedef struct _GstBSplineWarpStmapLoad GstBSplineWarpStmapLoad;

typedef struct
{
  /* behind the element's object lock */
  gchar *location;              /* stmap-location, NULL: none */
  bspline_stmap *shown;         /* the map in use, for navigation */
  /* streaming thread only */
  gchar *frame_location;        /* location when the frame's settings
                                 * were snapshot (the path it loads) */
  bspline_stmap *map;           /* the map in use, or NULL ... */
  gchar *map_location;          /* ... read from this path */
  gboolean loaded;              /* a map (or none) in use since start, ... */
  guint serial;                 /* ... of the settings of this serial */
  GstBSplineWarpStmapLoad *load;        /* a read in progress, or NULL */
  gchar *error;                 /* a failed read's message, for ensure */
  bspline_status error_status;
  GstClockTime pts;             /* the frame's, for the message */
} GstBSplineWarpStmap;

/* Sets stmap-location (an empty string unsets it); called with the
 * element's object lock held.  TRUE where a location is set. */
gboolean gst_bspline_warp_stmap_set_location (GstBSplineWarpStmap * stmap,
    const gchar * location);

/* With the element's object lock held, where the frame's settings are
 * snapshot: the frame's path is the location now. */
void gst_bspline_warp_stmap_snapshot (GstBSplineWarpStmap * stmap);

/* After the snapshot, outside the object lock, for each frame (of PTS
 * pts, input frames of frame_width x frame_height) once a map is in use:
 * a read that has finished goes into use (or its error is kept for
 * ensure); settings of another serial start a read of the frame's path
 * on a thread of its own, or remove the stage at once where the path is
 * NULL.  Sets *stmap_set to whether the frame has a map: the map in use,
 * the old one while the new one is read.  Never waits. */
void gst_bspline_warp_stmap_update (GstBSplineWarpStmap * stmap,
    GstElement * element, guint serial, gint frame_width, gint frame_height,
    GstClockTime pts, gboolean * stmap_set);

/* The map of the frame: the first since start is read here, in the
 * streaming thread (a map of another aspect ratio is refused before it
 * is decoded), for the settings of serial; a failed read (here or on the
 * reader's thread) posts an element error naming the property and the
 * file, and returns FALSE. */
gboolean gst_bspline_warp_stmap_ensure (GstBSplineWarpStmap * stmap,
    GstElement * element, guint serial, gint frame_width, gint frame_height);

/* Forgets the map in use (stop: the file may change before the next
 * start), after waiting for a read in progress. */
void gst_bspline_warp_stmap_clear (GstBSplineWarpStmap * stmap);

/* Frees all of it: clear, the location and the navigation's map. */
void gst_bspline_warp_stmap_finalize (GstBSplineWarpStmap * stmap);

G_END_DECLS
#endif /* __GST_BSPLINE_WARP_STMAP_H__ */
