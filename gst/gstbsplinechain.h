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

/* gstbsplinechain.h: what bsplinewarp and bsplinestabilize do with the
 * warp chain a buffer carries (GstBSplineChainMeta, gst-libs/) - defer
 * their own geometry onto it, or compose it into the planes they
 * resample (docs/chains.md). */
#ifndef __GST_BSPLINE_CHAIN_H__
#define __GST_BSPLINE_CHAIN_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>
#include <gst/bspline/bspline-chain-meta.h>

#include "bspline-chain.h"
#include "bspline-geometry.h"

G_BEGIN_DECLS
/* The element's own geometry as one stage of a chain, on the luma grid of
 * its frames (bspline_geometry_plane_map with the identity grid).  An
 * STMap stage borrows geometry->stmap (the meta references it). */
    bspline_status gst_bspline_chain_own_stage (const bspline_geometry *
    geometry, bspline_chain_stage * stage, gchar * msg, gsize msg_len);

/* The stages the buffer asks for before the element's own geometry, in
 * the order they act (g_free the array; NULL and *n_stages 0 where none):
 * its chain (GstBSplineChainMeta), then, where use_affine, its
 * GstVideoAffineTransformationMeta as a homography about the frame's
 * centre (the meta's unit coordinates: x / W - 0.5, 0.5 - y / H).  A
 * chain that refers to another frame size than info's is an error: *bad
 * is set and msg says why. */
bspline_chain_stage *gst_bspline_chain_stages (GstBuffer * buffer,
    const GstVideoInfo * info, gboolean use_affine, guint * n_stages,
    gboolean * bad, gchar * msg, gsize msg_len);

/* The map of one plane that resamples the buffer's stages (above) and
 * then the element's geometry at once: output plane pixels (out_grid) ->
 * the element's geometry -> its input's luma pixels -> the stages, last
 * first -> the luma pixels the buffer holds -> the input plane's pixels
 * (in_grid, which may differ from out_grid by a crop's shift).  Composed
 * for bspline_plan_new_chain: fails where a matrix is singular or there
 * are more lens and STMap stages than one plan takes. */
bspline_status gst_bspline_chain_plane_map (const bspline_geometry *
    geometry, const bspline_plane_grid * out_grid,
    const bspline_plane_grid * in_grid, const bspline_chain_stage * stages,
    guint n_stages, gdouble inverse[9],
    bspline_lens lenses[BSPLINE_CHAIN_MAX_LENSES], gint * n_lenses,
    gchar * msg, gsize msg_len);

/* Why the chain meta on buffers pushed from srcpad would not reach an
 * element that applies it (a sentence for a warning; g_free it), or NULL
 * where it would.  Downstream's allocation query is not enough: an element
 * may list what its own downstream takes and still drop or mishandle the
 * meta (videoflip copies it onto a flipped frame).  So the links are
 * walked, through ghost pads: a bsplinewarp applies the chain; queue,
 * queue2, multiqueue, tee (every branch), capsfilter, identity, valve,
 * videorate, videoconvert, videoscale and videoconvertscale pass it on
 * (the last three scale it with the frame); the end of the walk (a sink,
 * or a pad of the application's) takes it where query_takes, its
 * allocation query's answer; any other element stops it. */
gchar *gst_bspline_chain_downstream_refusal (GstPad * srcpad,
    gboolean query_takes);

/* Whether an element with defer=true sits upstream of sinkpad, through
 * the same carriers and ghost pads (a CUDA build's bsplinewarp then does
 * not ask upstream for CUDA memory, which would make it resample). */
gboolean gst_bspline_chain_upstream_defers (GstPad * sinkpad);

/* Why an element with defer=true must resample a stream between in_info
 * and out_info instead (a sentence for a warning), or NULL where it can
 * defer: the frame size, format, interlacing and memory are the same on
 * both pads (same_memory: both in system memory or both in CUDA memory),
 * and downstream applies the chain (downstream_refusal NULL, as
 * gst_bspline_chain_downstream_refusal gives it). */
const gchar *gst_bspline_chain_stream_refusal (const GstVideoInfo * in_info,
    const GstVideoInfo * out_info, gboolean same_memory,
    const gchar * downstream_refusal);

/* The element warning, once per caps (*warned), that an element with
 * defer=true resamples, and why (refusal; nothing where it is NULL). */
void gst_bspline_chain_warn_refusal (GstElement * element,
    GstVideoFilter * filter, const gchar * refusal, gboolean * warned);

/* Why this buffer cannot carry these stages deferred (NULL where it
 * can): a crop meta (the stages are defined on the whole caps frame), or
 * a chain that would then hold more lens and STMap stages than one plan
 * takes.  stages: the buffer's own (gst_bspline_chain_stages) and the
 * element's, n in all. */
const gchar *gst_bspline_chain_buffer_refusal (GstBuffer * buffer,
    const bspline_chain_stage * stages, guint n);

/* Defers the element's stage: the buffer (made writable; its memory is
 * not copied) with stage appended to its chain, a new chain meta of
 * info's frame size where it had none.  use_affine: the buffer's
 * GstVideoAffineTransformationMeta goes into the chain first (and off the
 * buffer).  Returns the buffer to push (it takes buffer). */
GstBuffer *gst_bspline_chain_defer (GstBuffer * buffer,
    const GstVideoInfo * info, gboolean use_affine,
    const bspline_chain_stage * stage);

/* The allocation query's word that this element takes the chain meta
 * (it composes it or defers onto it). */
void gst_bspline_chain_propose (GstQuery * query);

/* 1 where downstream's allocation query takes the chain meta. */
gboolean gst_bspline_chain_downstream_takes (GstQuery * query);

/* An element's defer state for its caps: why downstream would not apply
 * the chain meta (NULL: it would), and whether the element warned that it
 * resamples instead. */
typedef struct
{
  gchar *downstream_refusal;
  gboolean warned;
} GstBSplineChainDefer;

/* New caps: downstream not asked yet (until the allocation query of these
 * caps), not warned. */
void gst_bspline_chain_defer_reset (GstBSplineChainDefer * defer);

/* decide_allocation: downstream's answer (gst_bspline_chain_downstream_
 * refusal from srcpad, with query's). */
void gst_bspline_chain_defer_decide (GstBSplineChainDefer * defer,
    GstPad * srcpad, GstQuery * query);

/* Why this stream cannot defer (NULL: it can; also where enabled, the
 * defer property, is FALSE), warned once per caps where it is set: the
 * stream's reason (gst_bspline_chain_stream_refusal), else the element's
 * own (own_refusal, NULL: none). */
const gchar *gst_bspline_chain_defer_refusal (GstBSplineChainDefer * defer,
    GstVideoFilter * filter, gboolean enabled, gboolean same_memory,
    const gchar * own_refusal);

/* Frees the state (finalize). */
void gst_bspline_chain_defer_clear (GstBSplineChainDefer * defer);

G_END_DECLS
#endif /* __GST_BSPLINE_CHAIN_H__ */
