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

/**
 * SECTION:gstbsplinechainmeta
 * @title: GstBSplineChainMeta
 * @short_description: the geometric chain still to be applied to a frame
 *
 * A #GstBSplineChainMeta carries a list of geometric stages (homographies,
 * lens and STMap stages: bspline-chain.h of libbspline-1.0) that a frame
 * is still to go through.  bsplinewarp and bsplinestabilize with
 * `defer=true` append their geometry to it instead of resampling; the
 * first element that resamples (bsplinewarp without `defer`) composes the
 * whole chain with its own geometry and interpolates once.  An
 * application adds its own stages from a pad probe:
 *
 * |[<!-- language="C" -->
 * GstBSplineChainMeta *chain;
 * const gdouble shift[9] = { 1, 0, 4.5, 0, 1, -2, 0, 0, 1 };
 *
 * buffer = gst_buffer_make_writable (buffer);
 * chain = gst_buffer_get_bspline_chain_meta (buffer);
 * if (chain == NULL)
 *   chain = gst_buffer_add_bspline_chain_meta (buffer,
 *       GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info));
 * gst_bspline_chain_meta_add_homography (chain, shift);
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "bspline-chain-meta.h"

#include <bspline-stmap.h>

/* a lens stage's post is a 3x3 homography (bspline-stage.h) */
G_STATIC_ASSERT (sizeof (((bspline_lens *) NULL)->post) == 9 * sizeof (double));

static gboolean
gst_bspline_chain_meta_init (GstMeta * meta, G_GNUC_UNUSED gpointer params,
    G_GNUC_UNUSED GstBuffer * buffer)
{
  GstBSplineChainMeta *chain = (GstBSplineChainMeta *) meta;

  chain->width = 0;
  chain->height = 0;
  chain->n_stages = 0;
  chain->stages = NULL;
  return TRUE;
}

static void
gst_bspline_chain_meta_free (GstMeta * meta, G_GNUC_UNUSED GstBuffer * buffer)
{
  GstBSplineChainMeta *chain = (GstBSplineChainMeta *) meta;
  guint i;

  for (i = 0; i < chain->n_stages; i++) {
    if (chain->stages[i].lens.model == BSPLINE_LENS_STMAP)
      bspline_stmap_unref (chain->stages[i].lens.stmap);
  }
  g_free (chain->stages);
  chain->stages = NULL;
  chain->n_stages = 0;
}

/* Appends a copy of stage, referencing its STMap: the caller has checked
 * it. */
static void
gst_bspline_chain_meta_append (GstBSplineChainMeta * chain,
    const bspline_chain_stage * stage)
{
  chain->stages = g_renew (bspline_chain_stage, chain->stages,
      chain->n_stages + 1);
  chain->stages[chain->n_stages] = *stage;
  if (stage->lens.model == BSPLINE_LENS_STMAP)
    bspline_stmap_ref (stage->lens.stmap);
  chain->n_stages++;
}

/* The chain of a frame scaled from chain's size to width x height:
 * conjugated by S = diag (width / chain->width, height / chain->height),
 * which takes the old frame's pixel coordinates to the new one's (pixel
 * edges at 0 on both, so no offset).  The frame the buffer holds becomes
 * P' = P o S^-1, and the picture the chain makes of it must become D o
 * S^-1 too (what scaling the chain's result would show), so that, from an
 * output pixel y' of the new frame, the new chain evaluates
 *
 *   S^-1 (new -> old units), the old stages' inverses, last first,
 *   S (old units -> the pixels of P')
 *
 * that is, as stages in the order they act on the picture: a first stage
 * of forward S^-1 (inverse S), the old stages, a last stage of forward S
 * (inverse S^-1).  Those two are folded into the old end stages instead
 * of added, exactly (so that a chain scaled many times does not grow):
 * S^-1 multiplies the last stage's inverse on the right, as it is the
 * first map evaluated; S multiplies the first stage's inverse on the left
 * where it is a homography, and its lens or STMap stage's post (3x3,
 * which ends in the old input pixels) on the left where it has one. */
static gboolean
gst_bspline_chain_meta_scale (GstBSplineChainMeta * dest,
    const GstBSplineChainMeta * src)
{
  const gdouble sx = (gdouble) dest->width / src->width;
  const gdouble sy = (gdouble) dest->height / src->height;
  const gdouble scale[9] = { sx, 0.0, 0.0, 0.0, sy, 0.0, 0.0, 0.0, 1.0 };
  const gdouble unscale[9] = { 1.0 / sx, 0.0, 0.0, 0.0, 1.0 / sy, 0.0,
    0.0, 0.0, 1.0
  };
  bspline_chain_stage *first, *last;
  gdouble m[9];
  guint i;

  for (i = 0; i < src->n_stages; i++)
    gst_bspline_chain_meta_append (dest, &src->stages[i]);
  if (dest->n_stages == 0)
    return TRUE;

  last = &dest->stages[dest->n_stages - 1];
  bspline_matrix_multiply (last->inverse, unscale, m);
  memcpy (last->inverse, m, sizeof (m));

  first = &dest->stages[0];
  if (first->lens.model == BSPLINE_LENS_NONE) {
    bspline_matrix_multiply (scale, first->inverse, m);
    memcpy (first->inverse, m, sizeof (m));
  } else {
    bspline_matrix_multiply (scale, first->lens.post, m);
    memcpy (first->lens.post, m, sizeof (m));
  }
  return TRUE;
}

static gboolean
gst_bspline_chain_meta_transform (GstBuffer * dest, GstMeta * meta,
    G_GNUC_UNUSED GstBuffer * buffer, GQuark type, gpointer data)
{
  GstBSplineChainMeta *src = (GstBSplineChainMeta *) meta, *chain;
  guint i;

  if (GST_META_TRANSFORM_IS_COPY (type)) {
    GstMetaTransformCopy *copy = data;

    /* part of the buffer: not a frame the chain describes */
    if (copy->region)
      return FALSE;
    chain = gst_buffer_add_bspline_chain_meta (dest, src->width, src->height);
    if (chain == NULL)
      return FALSE;
    for (i = 0; i < src->n_stages; i++)
      gst_bspline_chain_meta_append (chain, &src->stages[i]);
    return TRUE;
  } else if (GST_VIDEO_META_TRANSFORM_IS_SCALE (type)) {
    GstVideoMetaTransform *trans = data;
    gint width = GST_VIDEO_INFO_WIDTH (trans->out_info);
    gint height = GST_VIDEO_INFO_HEIGHT (trans->out_info);

    if (width < 1 || height < 1)
      return FALSE;
    chain = gst_buffer_add_bspline_chain_meta (dest, width, height);
    if (chain == NULL)
      return FALSE;
    return gst_bspline_chain_meta_scale (chain, src);
  }
  /* any other transform (a flip, a crop, a conversion we do not know):
   * the chain would no longer describe the frame */
  return FALSE;
}

/**
 * gst_bspline_chain_meta_api_get_type:
 *
 * The API type of #GstBSplineChainMeta, "GstBSplineChainMetaAPI", tagged
 * %GST_META_TAG_VIDEO_STR, %GST_META_TAG_VIDEO_SIZE_STR and
 * %GST_META_TAG_VIDEO_ORIENTATION_STR.  Elements list it in their
 * allocation query to say that they take the meta.
 *
 * Returns: the #GType of the API, registered on the first call.
 */
GType
gst_bspline_chain_meta_api_get_type (void)
{
  static gsize type = 0;
  static const gchar *tags[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_SIZE_STR, GST_META_TAG_VIDEO_ORIENTATION_STR, NULL
  };

  if (g_once_init_enter (&type)) {
    GType api = gst_meta_api_type_register ("GstBSplineChainMetaAPI", tags);
    g_once_init_leave (&type, api);
  }
  return (GType) type;
}

/**
 * gst_bspline_chain_meta_get_info:
 *
 * The #GstMetaInfo of #GstBSplineChainMeta: its implementation, which
 * copies it with whole buffers (not with a region of one), scales it with
 * the frame (a #GstVideoMetaTransform of type "gst-video-scale") and
 * drops it on any other transform.
 *
 * Returns: (transfer none): the #GstMetaInfo, registered on the first
 *     call.
 */
const GstMetaInfo *
gst_bspline_chain_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *registered =
        gst_meta_register (GST_BSPLINE_CHAIN_META_API_TYPE,
        "GstBSplineChainMeta", sizeof (GstBSplineChainMeta),
        gst_bspline_chain_meta_init, gst_bspline_chain_meta_free,
        gst_bspline_chain_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) registered);
  }
  return info;
}

/**
 * gst_buffer_get_bspline_chain_meta:
 * @buffer: a #GstBuffer
 *
 * The buffer's chain of geometric stages still to be applied.
 *
 * Returns: (transfer none) (nullable): the first #GstBSplineChainMeta of
 *     @buffer, or %NULL where it has none.
 */
GstBSplineChainMeta *
gst_buffer_get_bspline_chain_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  return (GstBSplineChainMeta *) gst_buffer_get_meta (buffer,
      GST_BSPLINE_CHAIN_META_API_TYPE);
}

/**
 * gst_buffer_add_bspline_chain_meta:
 * @buffer: a writable #GstBuffer
 * @width: width of the buffer's frame in luma pixels, at least 1
 * @height: height of the buffer's frame in luma pixels, at least 1
 *
 * Adds an empty chain (no stages) referring to a @width x @height frame,
 * the frame @buffer holds.
 *
 * Returns: (transfer none) (nullable): the new #GstBSplineChainMeta, or
 *     %NULL where @width or @height is less than 1.
 */
GstBSplineChainMeta *
gst_buffer_add_bspline_chain_meta (GstBuffer * buffer, gint width, gint height)
{
  GstBSplineChainMeta *chain;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (width >= 1, NULL);
  g_return_val_if_fail (height >= 1, NULL);

  chain = (GstBSplineChainMeta *) gst_buffer_add_meta (buffer,
      GST_BSPLINE_CHAIN_META_INFO, NULL);
  if (chain == NULL)
    return NULL;
  chain->width = width;
  chain->height = height;
  return chain;
}

/**
 * gst_bspline_chain_meta_add_stage:
 * @meta: a #GstBSplineChainMeta of a writable buffer
 * @stage: the stage, on @meta's frame, stored as its inverse
 *     (bspline-chain.h)
 *
 * Appends a copy of @stage to the end of the chain: it acts on the
 * picture after every stage already there.  An STMap stage
 * (lens.model %BSPLINE_LENS_STMAP) must have its lens.stmap object, on
 * which the meta takes a reference (lens.map points into it).
 *
 * Returns: %TRUE where appended; %FALSE, with nothing appended, where
 *     @stage's inverse is not finite or is singular, its lens model is
 *     not one of bspline_lens_model's, or an STMap stage has no object.
 */
gboolean
gst_bspline_chain_meta_add_stage (GstBSplineChainMeta * meta,
    const bspline_chain_stage * stage)
{
  gdouble forward[9];

  g_return_val_if_fail (meta != NULL, FALSE);
  g_return_val_if_fail (stage != NULL, FALSE);

  if (!bspline_matrix_is_finite (stage->inverse)
      || !bspline_matrix_invert (stage->inverse, forward))
    return FALSE;
  switch (stage->lens.model) {
    case BSPLINE_LENS_NONE:
    case BSPLINE_LENS_BROWN:
    case BSPLINE_LENS_FISHEYE:
    case BSPLINE_LENS_PROJECTION:
      break;
    case BSPLINE_LENS_STMAP:
      if (stage->lens.stmap == NULL || stage->lens.map == NULL)
        return FALSE;
      break;
    default:
      return FALSE;
  }
  gst_bspline_chain_meta_append (meta, stage);
  return TRUE;
}

/**
 * gst_bspline_chain_meta_add_homography:
 * @meta: a #GstBSplineChainMeta of a writable buffer
 * @forward: (array fixed-size=9): the FORWARD map, 3x3 row-major: the
 *     picture's pixel coordinates before the stage (x, y, 1) -> after it
 *     (x', y', w') -> (x' / w', y' / w'), on @meta's frame (pixel (i, j)
 *     covers [i, i+1) x [j, j+1), x right, y down)
 *
 * Appends a homography stage, stored inverted (the stages are kept as
 * the sampler evaluates them).  A translation of the picture by (tx, ty)
 * pixels is { 1, 0, tx, 0, 1, ty, 0, 0, 1 }.
 *
 * Returns: %TRUE where appended; %FALSE, with nothing appended, where
 *     @forward is not finite or is singular.
 */
gboolean
gst_bspline_chain_meta_add_homography (GstBSplineChainMeta * meta,
    const gdouble forward[9])
{
  bspline_chain_stage stage;

  g_return_val_if_fail (meta != NULL, FALSE);
  g_return_val_if_fail (forward != NULL, FALSE);

  memset (&stage, 0, sizeof (stage));
  stage.lens.model = BSPLINE_LENS_NONE;
  if (!bspline_matrix_is_finite (forward)
      || !bspline_matrix_invert (forward, stage.inverse))
    return FALSE;
  return gst_bspline_chain_meta_add_stage (meta, &stage);
}

/**
 * gst_bspline_chain_meta_count_lenses:
 * @meta: a #GstBSplineChainMeta
 *
 * How many of the chain's stages are lens or STMap stages (lens.model
 * other than %BSPLINE_LENS_NONE): one plan resamples at most
 * %BSPLINE_CHAIN_MAX_LENSES of them.
 *
 * Returns: the number of lens and STMap stages.
 */
guint
gst_bspline_chain_meta_count_lenses (const GstBSplineChainMeta * meta)
{
  guint i, n = 0;

  g_return_val_if_fail (meta != NULL, 0);

  for (i = 0; i < meta->n_stages; i++) {
    if (meta->stages[i].lens.model != BSPLINE_LENS_NONE)
      n++;
  }
  return n;
}
