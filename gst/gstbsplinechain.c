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

/* gstbsplinechain.c: the warp chain of a buffer in the elements (see the
 * header).  The maths of composing it is the core's (bspline-chain.h);
 * here are the grids of the planes around it and GStreamer's side of
 * deferring (the meta, the allocation query). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstbsplinechain.h"
#include "gstbsplinewarp.h"

bspline_status
gst_bspline_chain_own_stage (const bspline_geometry * geometry,
    bspline_chain_stage * stage, gchar * msg, gsize msg_len)
{
  const bspline_plane_grid luma = { 1, 1, 0.0, 0.0 };

  memset (stage, 0, sizeof (*stage));
  return bspline_geometry_plane_map (geometry, &luma, stage->inverse,
      &stage->lens, msg, msg_len);
}

/* The buffer's GstVideoAffineTransformationMeta as a stage on a W x H
 * frame.  The meta's 4x4 matrix A (column-major: row i, column j at
 * matrix[i + 4 j]) maps the frame's points n = (x / W - 0.5, 0.5 - y / H)
 * (unit coordinates about the centre, y up, as its documentation has it)
 * forward to A n; in pixels about the centre P that is
 * q = P + D A D^-1 (p - P) with D = diag (W, -H). */
static gboolean
gst_bspline_chain_affine_stage (GstBuffer * buffer, const GstVideoInfo * info,
    bspline_chain_stage * stage, gchar * msg, gsize msg_len)
{
  GstVideoAffineTransformationMeta *meta =
      gst_buffer_get_video_affine_transformation_meta (buffer);
  gdouble w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  gdouble m[9], to[9], from[9], tmp[9], forward[9];
  const gfloat *a;

  a = meta->matrix;
  m[0] = a[0];
  m[1] = -a[4] * w / h;
  m[2] = a[12] * w;
  m[3] = -a[1] * h / w;
  m[4] = a[5];
  m[5] = -a[13] * h;
  m[6] = 0.0;
  m[7] = 0.0;
  m[8] = 1.0;
  bspline_matrix_identity (to);
  to[2] = 0.5 * w;
  to[5] = 0.5 * h;
  bspline_matrix_identity (from);
  from[2] = -0.5 * w;
  from[5] = -0.5 * h;
  bspline_matrix_multiply (m, from, tmp);
  bspline_matrix_multiply (to, tmp, forward);
  memset (stage, 0, sizeof (*stage));
  if (!bspline_matrix_is_finite (forward)
      || !bspline_matrix_invert (forward, stage->inverse)) {
    g_snprintf (msg, msg_len, "the buffer's GstVideoAffineTransformationMeta "
        "is singular or not finite (use-meta)");
    return FALSE;
  }
  bspline_chain_stage_homography (stage, stage->inverse);
  return TRUE;
}

bspline_chain_stage *
gst_bspline_chain_stages (GstBuffer * buffer, const GstVideoInfo * info,
    gboolean use_affine, guint * n_stages, gboolean * bad, gchar * msg,
    gsize msg_len)
{
  GstBSplineChainMeta *chain = gst_buffer_get_bspline_chain_meta (buffer);
  gboolean affine = use_affine
      && gst_buffer_get_video_affine_transformation_meta (buffer) != NULL;
  guint n = chain ? chain->n_stages : 0;
  bspline_chain_stage *stages;

  *bad = FALSE;
  *n_stages = 0;
  if (n > 0 && (chain->width != GST_VIDEO_INFO_WIDTH (info)
          || chain->height != GST_VIDEO_INFO_HEIGHT (info))) {
    g_snprintf (msg, msg_len, "the buffer's warp chain (GstBSplineChainMeta, "
        "%u stages) refers to a %dx%d frame, the buffer holds a %dx%d one",
        chain->n_stages, chain->width, chain->height,
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info));
    *bad = TRUE;
    return NULL;
  }
  if (n + affine == 0)
    return NULL;
  stages = g_new (bspline_chain_stage, n + affine);
  if (n > 0)
    memcpy (stages, chain->stages, n * sizeof (stages[0]));
  if (affine && !gst_bspline_chain_affine_stage (buffer, info, &stages[n],
          msg, msg_len)) {
    g_free (stages);
    *bad = TRUE;
    return NULL;
  }
  *n_stages = n + affine;
  return stages;
}

/* Plane pixel coordinates of grid -> luma pixel coordinates
 * (bspline-geometry.h: c -> sub * c + offset on each axis). */
static void
gst_bspline_chain_grid_to_luma (const bspline_plane_grid * grid, gdouble m[9])
{
  bspline_matrix_identity (m);
  m[0] = grid->sub_x;
  m[2] = grid->offset_x;
  m[4] = grid->sub_y;
  m[5] = grid->offset_y;
}

bspline_status
gst_bspline_chain_plane_map (const bspline_geometry * geometry,
    const bspline_plane_grid * out_grid, const bspline_plane_grid * in_grid,
    const bspline_chain_stage * chain, guint n_chain, gdouble inverse[9],
    bspline_lens lenses[BSPLINE_CHAIN_MAX_LENSES], gint * n_lenses,
    gchar * msg, gsize msg_len)
{
  /* in evaluation order: the element's geometry (onto its input plane,
   * whose grid is out_grid's), that plane onto the luma grid, the chain
   * last stage first, the luma grid onto the input plane as it is */
  guint n = n_chain + 3, i;
  bspline_chain_stage *stages = g_new0 (bspline_chain_stage, n);
  gdouble to_luma[9];
  bspline_status status;

  status = bspline_geometry_plane_map (geometry, out_grid, stages[0].inverse,
      &stages[0].lens, msg, msg_len);
  if (status == BSPLINE_OK) {
    gst_bspline_chain_grid_to_luma (out_grid, to_luma);
    bspline_chain_stage_homography (&stages[1], to_luma);
    for (i = 0; i < n_chain; i++)
      stages[2 + i] = chain[n_chain - 1 - i];
    gst_bspline_chain_grid_to_luma (in_grid, to_luma);
    if (!bspline_matrix_invert (to_luma, stages[n - 1].inverse)) {
      g_snprintf (msg, msg_len, "a plane's grid is singular");
      status = BSPLINE_ERROR_INVALID_ARGUMENT;
    } else
      bspline_chain_stage_homography (&stages[n - 1], stages[n - 1].inverse);
  }
  if (status == BSPLINE_OK)
    status = bspline_chain_compose (stages, (int) n, inverse, lenses,
        n_lenses, msg, msg_len);
  g_free (stages);
  return status;
}

/* Elements that pass a buffer's metas on with the frame unchanged, or
 * scaled with it (GstVideoMetaTransform "gst-video-scale", which the chain
 * meta takes), by factory name. */
static const gchar *const gst_bspline_chain_carriers[] = {
  "queue", "queue2", "multiqueue", "tee", "capsfilter", "identity", "valve",
  "videorate", "videoconvert", "videoscale", "videoconvertscale", NULL
};

#define GST_BSPLINE_CHAIN_MAX_HOPS 32

static gchar *gst_bspline_chain_walk (GstPad * srcpad, gboolean query_takes,
    guint hops);

/* The element a pad belongs to, through ghost pads; NULL for a pad of no
 * element (the application's). */
static GstElement *
gst_bspline_chain_pad_element (GstPad * pad_in)
{
  GstPad *pad = gst_object_ref (pad_in);
  GstElement *element;

  while (GST_IS_GHOST_PAD (pad)) {
    GstPad *target = gst_ghost_pad_get_target (GST_GHOST_PAD (pad));

    gst_object_unref (pad);
    if (target == NULL)
      return NULL;
    pad = target;
  }
  element = gst_pad_get_parent_element (pad);
  gst_object_unref (pad);
  return element;
}

/* Calls visit (pad, data) on the pads of it until it returns TRUE; TRUE
 * where one did.  Frees it. */
static gboolean
gst_bspline_chain_any_pad (GstIterator * it, gboolean (*visit) (GstPad * pad,
        gpointer data), gpointer data)
{
  GValue item = G_VALUE_INIT;
  gboolean done = FALSE, found = FALSE;

  while (!done && !found) {
    switch (gst_iterator_next (it, &item)) {
      case GST_ITERATOR_OK:
        found = visit (g_value_get_object (&item), data);
        g_value_reset (&item);
        break;
      case GST_ITERATOR_RESYNC:
        gst_iterator_resync (it);
        break;
      default:
        done = TRUE;
        break;
    }
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  return found;
}

typedef struct
{
  gboolean query_takes;
  guint hops;
  gchar *refusal;
} GstBSplineChainWalk;

static gboolean
gst_bspline_chain_walk_pad (GstPad * srcpad, gpointer data)
{
  GstBSplineChainWalk *walk = data;

  walk->refusal = gst_bspline_chain_walk (srcpad, walk->query_takes,
      walk->hops + 1);
  return walk->refusal != NULL;
}

/* Every src pad of element carries the chain on. */
static gchar *
gst_bspline_chain_walk_element (GstElement * element, gboolean query_takes,
    guint hops)
{
  GstBSplineChainWalk walk = { query_takes, hops, NULL };

  gst_bspline_chain_any_pad (gst_element_iterate_src_pads (element),
      gst_bspline_chain_walk_pad, &walk);
  return walk.refusal;
}

static gchar *
gst_bspline_chain_walk (GstPad * srcpad, gboolean query_takes, guint hops)
{
  GstPad *peer = gst_pad_get_peer (srcpad);
  GstElement *element;
  GstElementFactory *factory;
  gchar *refusal = NULL;

  if (hops > GST_BSPLINE_CHAIN_MAX_HOPS)
    return g_strdup ("the element that resamples is too far downstream");
  if (peer == NULL)
    return g_strdup ("the element's src pad is not linked");
  /* a pad inside a bin, linked to the bin's src ghost pad: on from there */
  if (GST_IS_PROXY_PAD (peer) && !GST_IS_GHOST_PAD (peer)) {
    GstObject *ghost = gst_object_get_parent (GST_OBJECT (peer));

    gst_object_unref (peer);
    if (ghost && GST_IS_GHOST_PAD (ghost))
      refusal = gst_bspline_chain_walk (GST_PAD (ghost), query_takes, hops + 1);
    else
      refusal = query_takes ? NULL : g_strdup ("downstream does not take "
          "the warp chain meta");
    if (ghost)
      gst_object_unref (ghost);
    return refusal;
  }
  element = gst_bspline_chain_pad_element (peer);
  gst_object_unref (peer);
  if (element == NULL || element->numsrcpads == 0) {
    /* the end: an application's pad or a sink, which asked for the meta
     * in its allocation query or not */
    if (!query_takes)
      refusal = g_strdup ("downstream does not take the warp chain meta (its "
          "allocation query does not list GstBSplineChainMetaAPI): the "
          "meta would be lost");
  } else if (G_TYPE_CHECK_INSTANCE_TYPE (element, GST_TYPE_BSPLINE_WARP)) {
    /* it applies the chain, or defers onto it and checks for itself */
  } else if ((factory = gst_element_get_factory (element)) != NULL
      && g_strv_contains (gst_bspline_chain_carriers,
          gst_plugin_feature_get_name (GST_PLUGIN_FEATURE (factory)))) {
    refusal = gst_bspline_chain_walk_element (element, query_takes, hops);
  } else {
    refusal = g_strdup_printf ("%s (%s) downstream does not apply the warp "
        "chain meta, nor is it known to pass it on unharmed",
        GST_ELEMENT_NAME (element), factory ?
        gst_plugin_feature_get_name (GST_PLUGIN_FEATURE (factory)) :
        G_OBJECT_TYPE_NAME (element));
  }
  if (element)
    gst_object_unref (element);
  return refusal;
}

gchar *
gst_bspline_chain_downstream_refusal (GstPad * srcpad, gboolean query_takes)
{
  return gst_bspline_chain_walk (srcpad, query_takes, 0);
}

static gboolean gst_bspline_chain_upstream_walk (GstPad * sinkpad, guint hops);

static gboolean
gst_bspline_chain_upstream_pad (GstPad * sinkpad, gpointer hops)
{
  return gst_bspline_chain_upstream_walk (sinkpad, GPOINTER_TO_UINT (hops)
      + 1);
}

static gboolean
gst_bspline_chain_upstream_walk (GstPad * sinkpad, guint hops)
{
  GstPad *peer = gst_pad_get_peer (sinkpad);
  GstElement *element;
  GstElementFactory *factory;
  const gchar *name;
  gboolean defers = FALSE;

  if (peer == NULL || hops > GST_BSPLINE_CHAIN_MAX_HOPS) {
    if (peer)
      gst_object_unref (peer);
    return FALSE;
  }
  /* a pad inside a bin, linked to the bin's sink ghost pad: on from there */
  if (GST_IS_PROXY_PAD (peer) && !GST_IS_GHOST_PAD (peer)) {
    GstObject *ghost = gst_object_get_parent (GST_OBJECT (peer));

    gst_object_unref (peer);
    if (ghost && GST_IS_GHOST_PAD (ghost))
      defers = gst_bspline_chain_upstream_walk (GST_PAD (ghost), hops + 1);
    if (ghost)
      gst_object_unref (ghost);
    return defers;
  }
  element = gst_bspline_chain_pad_element (peer);
  gst_object_unref (peer);
  if (element == NULL)
    return FALSE;
  factory = gst_element_get_factory (element);
  name = factory ? gst_plugin_feature_get_name (GST_PLUGIN_FEATURE (factory))
      : "";
  if (g_str_equal (name, "bsplinewarp") || g_str_equal (name,
          "bsplinestabilize")) {
    g_object_get (element, "defer", &defers, NULL);
  } else if (g_strv_contains (gst_bspline_chain_carriers, name)) {
    defers = gst_bspline_chain_any_pad (gst_element_iterate_sink_pads
        (element), gst_bspline_chain_upstream_pad, GUINT_TO_POINTER (hops));
  }
  gst_object_unref (element);
  return defers;
}

gboolean
gst_bspline_chain_upstream_defers (GstPad * sinkpad)
{
  return gst_bspline_chain_upstream_walk (sinkpad, 0);
}

const gchar *
gst_bspline_chain_stream_refusal (const GstVideoInfo * in_info,
    const GstVideoInfo * out_info, gboolean same_memory,
    const gchar * downstream_refusal)
{
  if (GST_VIDEO_INFO_WIDTH (in_info) != GST_VIDEO_INFO_WIDTH (out_info)
      || GST_VIDEO_INFO_HEIGHT (in_info) != GST_VIDEO_INFO_HEIGHT (out_info))
    return "the output frame has another size than the input's";
  if (!gst_video_info_is_equal (in_info, out_info))
    return "the output caps differ from the input's (format, interlacing, "
        "colorimetry or pixel aspect ratio)";
  /* downstream before the memory: where downstream would not apply the
   * chain, a CUDA build's preference for CUDA memory downstream is beside
   * the point */
  if (downstream_refusal)
    return downstream_refusal;
  if (!same_memory)
    return "the output is in another memory than the input";
  return NULL;
}

void
gst_bspline_chain_warn_refusal (GstElement * element, GstVideoFilter * filter,
    const gchar * refusal, gboolean * warned)
{
  if (refusal == NULL || *warned)
    return;
  GST_ELEMENT_WARNING (element, STREAM, NOT_IMPLEMENTED,
      ("defer=true, but this element resamples: %s.", refusal),
      ("%s %dx%d -> %s %dx%d; warned once per caps",
          GST_VIDEO_INFO_NAME (&filter->in_info),
          GST_VIDEO_INFO_WIDTH (&filter->in_info),
          GST_VIDEO_INFO_HEIGHT (&filter->in_info),
          GST_VIDEO_INFO_NAME (&filter->out_info),
          GST_VIDEO_INFO_WIDTH (&filter->out_info),
          GST_VIDEO_INFO_HEIGHT (&filter->out_info)));
  *warned = TRUE;
}

const gchar *
gst_bspline_chain_buffer_refusal (GstBuffer * buffer,
    const bspline_chain_stage * stages, guint n)
{
  guint i, lenses = 0;

  if (gst_buffer_get_video_crop_meta (buffer))
    return "the buffer has a crop meta";
  for (i = 0; i < n; i++)
    lenses += bspline_chain_stage_has_lens (&stages[i]);
  if (lenses > BSPLINE_CHAIN_MAX_LENSES)
    return "its chain would hold more lens and STMap stages than one "
        "resampling takes";
  return NULL;
}

GstBuffer *
gst_bspline_chain_defer (GstBuffer * buffer, const GstVideoInfo * info,
    gboolean use_affine, const bspline_chain_stage * stage)
{
  GstVideoAffineTransformationMeta *affine;
  GstBSplineChainMeta *chain;
  bspline_chain_stage first;
  gchar msg[128];

  buffer = gst_buffer_make_writable (buffer);
  chain = gst_buffer_get_bspline_chain_meta (buffer);
  if (chain == NULL)
    chain = gst_buffer_add_bspline_chain_meta (buffer,
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info));
  /* the stages passed the checks of gst_bspline_chain_stages and of
   * bspline_chain_compose (the caller's) */
  affine = use_affine ?
      gst_buffer_get_video_affine_transformation_meta (buffer) : NULL;
  if (affine) {
    if (!gst_bspline_chain_affine_stage (buffer, info, &first, msg,
            sizeof (msg)) || !gst_bspline_chain_meta_add_stage (chain, &first))
      g_warn_if_reached ();
    gst_buffer_remove_meta (buffer, (GstMeta *) affine);
  }
  if (!gst_bspline_chain_meta_add_stage (chain, stage))
    g_warn_if_reached ();
  return buffer;
}

void
gst_bspline_chain_propose (GstQuery * query)
{
  if (!gst_query_find_allocation_meta (query, GST_BSPLINE_CHAIN_META_API_TYPE,
          NULL))
    gst_query_add_allocation_meta (query, GST_BSPLINE_CHAIN_META_API_TYPE,
        NULL);
}

gboolean
gst_bspline_chain_downstream_takes (GstQuery * query)
{
  return gst_query_find_allocation_meta (query,
      GST_BSPLINE_CHAIN_META_API_TYPE, NULL);
}

void
gst_bspline_chain_defer_reset (GstBSplineChainDefer * defer)
{
  defer->warned = FALSE;
  g_free (defer->downstream_refusal);
  defer->downstream_refusal = g_strdup ("downstream has not been asked "
      "whether it takes the warp chain meta");
}

void
gst_bspline_chain_defer_decide (GstBSplineChainDefer * defer,
    GstPad * srcpad, GstQuery * query)
{
  g_free (defer->downstream_refusal);
  defer->downstream_refusal = gst_bspline_chain_downstream_refusal (srcpad,
      gst_bspline_chain_downstream_takes (query));
}

const gchar *
gst_bspline_chain_defer_refusal (GstBSplineChainDefer * defer,
    GstVideoFilter * filter, gboolean enabled, gboolean same_memory,
    const gchar * own_refusal)
{
  const gchar *refusal;

  if (!enabled || !filter->negotiated)
    return NULL;
  refusal = gst_bspline_chain_stream_refusal (&filter->in_info,
      &filter->out_info, same_memory, defer->downstream_refusal);
  if (refusal == NULL)
    refusal = own_refusal;
  gst_bspline_chain_warn_refusal (GST_ELEMENT (filter), filter, refusal,
      &defer->warned);
  return refusal;
}

void
gst_bspline_chain_defer_clear (GstBSplineChainDefer * defer)
{
  g_free (defer->downstream_refusal);
  defer->downstream_refusal = NULL;
}
