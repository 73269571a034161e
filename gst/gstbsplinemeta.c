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

/* gstbsplinemeta.c: metas and navigation events through bsplinewarp's
 * geometry (docs/element.md, "Metas" and "Navigation").  The points are
 * mapped by the core (bspline_geometry_map_point, _unmap_point), the
 * sampler's own evaluation; this file is the GStreamer side. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstbsplinemeta.h"

GST_DEBUG_CATEGORY_STATIC (gst_bspline_meta_debug);
#define GST_CAT_DEFAULT gst_bspline_meta_debug

/* Points per edge of a region's outline: enough that the bounding box
 * follows a lens's curvature (a barrel-distorted edge bulges between its
 * corners) to well under a pixel on frames of up to a few thousand. */
#define GST_BSPLINE_META_EDGE_POINTS 16

/* A box's bounds that a rounding left within this of an integer are that
 * integer: the corners of a quarter turn land on whole pixels. */
#define GST_BSPLINE_META_SNAP 1e-6

static void
gst_bspline_meta_init_debug (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_bspline_meta_debug, "bsplinemeta", 0,
        "bsplinewarp's metas and navigation events");
    g_once_init_leave (&once, 1);
  }
}

/* The tags videoscale scales for: a meta with these alone depends on the
 * picture's size and orientation and on nothing else. */
static const gchar *const gst_bspline_meta_video_tags[] = {
  GST_META_TAG_VIDEO_STR,
  GST_META_TAG_VIDEO_SIZE_STR,
  GST_META_TAG_VIDEO_ORIENTATION_STR,
  NULL
};

/* 1 where the meta has tags and all are video tags. */
static gboolean
gst_bspline_meta_only_video_tags (const GstMeta * meta)
{
  const gchar *const *tags = gst_meta_api_type_get_tags (meta->info->api);
  const gchar *const *tag;

  if (tags == NULL || *tags == NULL)
    return FALSE;
  for (tag = tags; *tag; tag++)
    if (!g_strv_contains (gst_bspline_meta_video_tags, *tag))
      return FALSE;
  return TRUE;
}

gboolean
gst_bspline_meta_needs_geometry (const GstMeta * meta)
{
  return gst_bspline_meta_only_video_tags (meta);
}

/* The region's outline mapped into the output frame: its bounding box
 * (pixels that the mapped region touches), clipped to the frame; FALSE
 * where none of it lands inside. */
static gboolean
gst_bspline_meta_map_box (const bspline_geometry_points * points,
    const GstVideoRegionOfInterestMeta * roi, gint out_w, gint out_h,
    gint * x, gint * y, gint * w, gint * h)
{
  const gint n = GST_BSPLINE_META_EDGE_POINTS;
  const gdouble corner_x[5] = { roi->x, roi->x + (gdouble) roi->w,
    roi->x + (gdouble) roi->w, roi->x, roi->x
  };
  const gdouble corner_y[5] = { roi->y, roi->y, roi->y + (gdouble) roi->h,
    roi->y + (gdouble) roi->h, roi->y
  };
  gdouble min_x = INFINITY, min_y = INFINITY, max_x = -INFINITY,
      max_y = -INFINITY, x0, y0, x1, y1;
  gint edge, k, found = 0;

  for (edge = 0; edge < 4; edge++)
    for (k = 0; k < n; k++) {
      gdouble t = (gdouble) k / n, u, v;
      gdouble px = corner_x[edge] + t * (corner_x[edge + 1] - corner_x[edge]);
      gdouble py = corner_y[edge] + t * (corner_y[edge + 1] - corner_y[edge]);

      /* a point with no image (behind a perspective's horizon, outside
       * what a lens stage reaches) is not on the output */
      if (!bspline_geometry_unmap_point (points, px, py, &u, &v))
        continue;
      min_x = MIN (min_x, u);
      max_x = MAX (max_x, u);
      min_y = MIN (min_y, v);
      max_y = MAX (max_y, v);
      found++;
    }
  if (found == 0)
    return FALSE;
  x0 = floor (MAX (min_x, 0.0) + GST_BSPLINE_META_SNAP);
  y0 = floor (MAX (min_y, 0.0) + GST_BSPLINE_META_SNAP);
  x1 = ceil (MIN (max_x, (gdouble) out_w) - GST_BSPLINE_META_SNAP);
  y1 = ceil (MIN (max_y, (gdouble) out_h) - GST_BSPLINE_META_SNAP);
  if (!(x1 > x0 && y1 > y0))
    return FALSE;
  *x = (gint) x0;
  *y = (gint) y0;
  *w = (gint) (x1 - x0);
  *h = (gint) (y1 - y0);
  return TRUE;
}

static gpointer
gst_bspline_meta_copy_structure (gconstpointer structure,
    G_GNUC_UNUSED gpointer data)
{
  return gst_structure_copy (structure);
}

static gboolean
gst_bspline_meta_map_roi (GstObject * element, GstBuffer * outbuf,
    const GstVideoRegionOfInterestMeta * roi, GstVideoInfo * out_info,
    const bspline_geometry * geometry)
{
  GstVideoRegionOfInterestMeta *out;
  bspline_geometry_points points;
  gchar msg[256] = "";
  gint x, y, w, h;

  if (bspline_geometry_points_init (geometry, &points, msg,
          sizeof (msg)) != BSPLINE_OK) {
    GST_DEBUG_OBJECT (element, "dropping region of interest %d: the "
        "geometry cannot map it (%s)", roi->id, msg);
    return FALSE;
  }
  if (!gst_bspline_meta_map_box (&points, roi,
          GST_VIDEO_INFO_WIDTH (out_info), GST_VIDEO_INFO_HEIGHT (out_info),
          &x, &y, &w, &h)) {
    GST_DEBUG_OBJECT (element, "dropping region of interest %d (%u, %u, "
        "%ux%u): it maps outside the output frame", roi->id, roi->x, roi->y,
        roi->w, roi->h);
    return FALSE;
  }
  out = gst_buffer_add_video_region_of_interest_meta_id (outbuf,
      roi->roi_type, x, y, w, h);
  if (out == NULL)
    return FALSE;
  out->id = roi->id;
  out->parent_id = roi->parent_id;
  out->params = g_list_copy_deep (roi->params,
      gst_bspline_meta_copy_structure, NULL);
  GST_DEBUG_OBJECT (element, "region of interest %d: (%u, %u, %ux%u) -> "
      "(%d, %d, %dx%d)", roi->id, roi->x, roi->y, roi->w, roi->h, x, y, w, h);
  return TRUE;
}

gboolean
gst_bspline_meta_transform (GstObject * element, GstBuffer * outbuf,
    GstMeta * meta, GstBuffer * inbuf, GstVideoInfo * in_info,
    GstVideoInfo * out_info, const bspline_geometry * geometry,
    gboolean use_meta)
{
  const GstMetaInfo *info = meta->info;
  const gchar *const *tags = gst_meta_api_type_get_tags (info->api);

  gst_bspline_meta_init_debug ();

  /* untagged: copied, as GstBaseTransform's default does */
  if (tags == NULL || *tags == NULL)
    return TRUE;
  if (!gst_bspline_meta_only_video_tags (meta)) {
    GST_DEBUG_OBJECT (element, "dropping %s: a tag other than video, size "
        "and orientation", g_type_name (info->api));
    return FALSE;
  }
  if (use_meta && info->api == GST_VIDEO_AFFINE_TRANSFORMATION_META_API_TYPE) {
    GST_DEBUG_OBJECT (element, "dropping %s: use-meta warped by it",
        g_type_name (info->api));
    return FALSE;
  }
  if (geometry == NULL) {
    GST_DEBUG_OBJECT (element, "dropping %s: no negotiated geometry",
        g_type_name (info->api));
    return FALSE;
  }

  if (bspline_geometry_is_pure_scaling (geometry)) {
    /* as videoscale does (gst_video_convert_scale_transform_meta, 1.22) */
    if (gst_meta_api_type_has_tag (info->api,
            g_quark_from_static_string (GST_META_TAG_VIDEO_SIZE_STR))) {
      GstVideoMetaTransform scale = { in_info, out_info };

      if (info->transform_func)
        info->transform_func (outbuf, meta, inbuf,
            gst_video_meta_transform_scale_get_quark (), &scale);
      return FALSE;
    }
    return TRUE;
  }

  /* any other geometry */
  if (info->api == GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE) {
    gst_bspline_meta_map_roi (element, outbuf,
        (const GstVideoRegionOfInterestMeta *) meta, out_info, geometry);
    return FALSE;
  }
  if (!gst_meta_api_type_has_tag (info->api,
          g_quark_from_static_string (GST_META_TAG_VIDEO_SIZE_STR))
      && !gst_meta_api_type_has_tag (info->api,
          g_quark_from_static_string (GST_META_TAG_VIDEO_ORIENTATION_STR))) {
    /* a video meta that depends on neither: copied, as videoscale does */
    return TRUE;
  }
  GST_DEBUG_OBJECT (element, "dropping %s: GStreamer 1.22 has no transform "
      "for a warp (rotation, perspective, lens or STMap), only for a scaling",
      g_type_name (info->api));
  return FALSE;
}

GstEvent *
gst_bspline_meta_navigation_event (GstObject * element, GstEvent * event,
    const bspline_geometry * geometry)
{
  bspline_geometry_points points;
  gchar msg[256] = "";
  gdouble u, v, x, y;

  gst_bspline_meta_init_debug ();

  if (GST_EVENT_TYPE (event) != GST_EVENT_NAVIGATION
      || !gst_navigation_event_get_coordinates (event, &u, &v))
    return event;
  if (bspline_geometry_points_init (geometry, &points, msg,
          sizeof (msg)) != BSPLINE_OK) {
    /* the frames fail the same way (an element error): nothing to map by */
    GST_DEBUG_OBJECT (element, "navigation event at (%g, %g) unmapped: %s",
        u, v, msg);
    return event;
  }
  if (!bspline_geometry_map_point (&points, u, v, &x, &y)) {
    GST_DEBUG_OBJECT (element, "dropping navigation event at (%g, %g): no "
        "input point shows there", u, v);
    gst_event_unref (event);
    return NULL;
  }
  event = gst_event_make_writable (event);
  gst_navigation_event_set_coordinates (event, x, y);
  GST_LOG_OBJECT (element, "navigation event (%g, %g) -> (%g, %g)", u, v, x, y);
  return event;
}
