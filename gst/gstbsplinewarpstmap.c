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

/* A map read on a thread of its own: the thread writes map, status and
 * msg, then sets done; the streaming thread reads them after done, and
 * joins the thread. */
struct _GstBSplineWarpStmapLoad
{
  gchar *path;
  guint serial;
  gint frame_width, frame_height;
  GThread *thread;
  gint done;                    /* atomic */
  bspline_stmap *map;
  bspline_status status;
  gchar msg[512];
};

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

/* The map frames use from now on (NULL: none), read from path for the
 * settings of serial; posts the element message that says so. */
static void
gst_bspline_warp_stmap_use (GstBSplineWarpStmap * stmap,
    GstElement * element, bspline_stmap * map, const gchar * path, guint serial)
{
  /* the planes' plans hold their own references to the old map */
  bspline_stmap_unref (stmap->map);
  stmap->map = map;
  GST_OBJECT_LOCK (element);
  bspline_stmap_unref (stmap->shown);
  stmap->shown = bspline_stmap_ref (map);
  GST_OBJECT_UNLOCK (element);
  stmap->loaded = TRUE;
  stmap->serial = serial;
  g_free (stmap->map_location);
  stmap->map_location = g_strdup (path);
  if (map)
    GST_INFO_OBJECT (element, "STMap %s in use: %dx%d samples", path,
        bspline_stmap_width (map), bspline_stmap_height (map));
  gst_element_post_message (element, gst_message_new_element (GST_OBJECT
          (element), gst_structure_new (GST_BSPLINE_WARP_STMAP_MESSAGE,
              "location", G_TYPE_STRING, path, "pts", G_TYPE_UINT64, stmap->pts,
              NULL)));
}

static gpointer
gst_bspline_warp_stmap_load_thread (gpointer data)
{
  GstBSplineWarpStmapLoad *load = data;

  load->status = bspline_stmap_load_for_frame (load->path,
      load->frame_width, load->frame_height, &load->map, load->msg,
      sizeof (load->msg));
  g_atomic_int_set (&load->done, 1);
  return NULL;
}

/* Joins the load's thread (at once where it is done) and frees it. */
static void
gst_bspline_warp_stmap_load_free (GstBSplineWarpStmapLoad * load)
{
  g_thread_join (load->thread);
  bspline_stmap_unref (load->map);
  g_free (load->path);
  g_free (load);
}

void
gst_bspline_warp_stmap_update (GstBSplineWarpStmap * stmap,
    GstElement * element, guint serial, gint frame_width, gint frame_height,
    GstClockTime pts, gboolean * stmap_set)
{
  GstBSplineWarpStmapLoad *load = stmap->load;
  GError *err = NULL;

  stmap->pts = pts;
  /* the first map since start is read by ensure, where the frame waits;
   * without one, none is in use from the first frame on */
  if (!stmap->loaded && stmap->frame_location)
    return;
  if (!stmap->loaded)
    gst_bspline_warp_stmap_use (stmap, element, NULL, NULL, serial);
  if (load && g_atomic_int_get (&load->done)) {
    stmap->load = NULL;
    if (load->serial == serial && load->status == BSPLINE_OK) {
      gst_bspline_warp_stmap_use (stmap, element, load->map, load->path,
          serial);
      load->map = NULL;
    } else if (load->serial == serial) {
      /* reported by ensure, where the frame can fail */
      g_free (stmap->error);
      stmap->error = g_strdup_printf ("stmap-location=%s cannot be used: "
          "%s.", load->path, load->msg);
      stmap->error_status = load->status;
      stmap->serial = serial;
    }
    /* else a map of settings changed since: read the new ones below */
    gst_bspline_warp_stmap_load_free (load);
  }
  if (serial != stmap->serial && !stmap->load) {
    if (!stmap->frame_location) {
      /* removing the stage needs no file */
      gst_bspline_warp_stmap_use (stmap, element, NULL, NULL, serial);
    } else {
      load = g_new0 (GstBSplineWarpStmapLoad, 1);
      load->path = g_strdup (stmap->frame_location);
      load->serial = serial;
      load->frame_width = frame_width;
      load->frame_height = frame_height;
      load->thread = g_thread_try_new ("bsplinewarp-stmap",
          gst_bspline_warp_stmap_load_thread, load, &err);
      if (load->thread) {
        stmap->load = load;
      } else {
        g_free (stmap->error);
        stmap->error = g_strdup_printf ("stmap-location=%s cannot be used: "
            "no thread to read it on: %s.", load->path, err->message);
        stmap->error_status = BSPLINE_ERROR_NO_MEMORY;
        stmap->serial = serial;
        g_clear_error (&err);
        g_free (load->path);
        g_free (load);
      }
    }
  }
  /* the stage the frame has: the map in use, not yet the one read */
  *stmap_set = stmap->map != NULL;
}

gboolean
gst_bspline_warp_stmap_ensure (GstBSplineWarpStmap * stmap,
    GstElement * element, guint serial, gint frame_width, gint frame_height)
{
  const gchar *path = stmap->frame_location;
  bspline_stmap *map = NULL;
  gchar msg[512] = "";
  bspline_status status;

  if (stmap->error) {
    GST_ELEMENT_ERROR (element, RESOURCE, READ, ("%s", stmap->error),
        ("%s", bspline_status_string (stmap->error_status)));
    g_clear_pointer (&stmap->error, g_free);
    return FALSE;
  }
  if (stmap->loaded)
    return TRUE;
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
  }
  gst_bspline_warp_stmap_use (stmap, element, map, path, serial);
  return TRUE;
}

void
gst_bspline_warp_stmap_clear (GstBSplineWarpStmap * stmap)
{
  /* a read in progress is waited for: its file may be large */
  if (stmap->load)
    gst_bspline_warp_stmap_load_free (stmap->load);
  stmap->load = NULL;
  bspline_stmap_unref (stmap->map);
  stmap->map = NULL;
  g_clear_pointer (&stmap->map_location, g_free);
  stmap->loaded = FALSE;
  g_clear_pointer (&stmap->error, g_free);
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
