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

/* bsplinewarp's CUDA frames in flight: each frame's planes are submitted
 * to the CUDA engine (uploaded, resampled, downloaded on its streams)
 * while the element returns the frame before, GST_BSPLINE_WARP_FRAMES_IN_
 * FLIGHT - 1 frames of latency; a GPU failure redoes the frame on the CPU
 * or is an error (gstbsplineengine.h).  With gstreamer-cuda, the
 * pipeline's CUDA context, memory:CUDAMemory and CUDA pools
 * (gstbsplinecudamemory.h).  Built only with the CUDA engine; elsewhere
 * the functions below are stand-ins that do nothing. */

#ifndef __GST_BSPLINE_WARP_CUDA_H__
#define __GST_BSPLINE_WARP_CUDA_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "gstbsplinewarp.h"
#include "bspline.h"
#ifdef HAVE_BSPLINE_CUDA_MEMORY
#include "gstbsplinecudamemory.h"
#endif

G_BEGIN_DECLS

/* Frames on the GPU while the element returns the one before: one frame
 * of latency for the overlap of upload, kernels and download. */
#define GST_BSPLINE_WARP_FRAMES_IN_FLIGHT 2

/* The streaming thread's CUDA state (the engine is in GstBSplineEngine). */
typedef struct
{
  GQueue pending;               /* GstBSplineWarpPending, oldest first */
  GQueue spare_planes;          /* GstBSplineLayoutFrame: staging to reuse */
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  GstBSplineCudaMemory memory;  /* gst.cuda.context, memory:CUDAMemory */
#endif
} GstBSplineWarpCuda;

#ifdef HAVE_BSPLINE_CUDA
/* Completes every frame in flight, oldest first, and pushes them (or drops
 * them, on a flush). */
GstFlowReturn gst_bspline_warp_cuda_drain (GstBSplineWarp * self,
    gboolean push);

/* generate_output on the GPU: TRUE where it took the queued buffer (or
 * failed: *ret); FALSE where the CPU resamples it (no CUDA engine, a GPU
 * failure, passthrough), the frames in flight gone out before. */
gboolean gst_bspline_warp_cuda_generate (GstBSplineWarp * self,
    GstBuffer ** outbuf, GstFlowReturn * ret);

/* TRUE where the query is answered here (the CUDA context query). */
gboolean gst_bspline_warp_cuda_query (GstBSplineWarp * self, GstQuery * query);

/* After the base class answered: CUDA memory preferred from upstream,
 * and the latency of the frames in flight. */
void gst_bspline_warp_cuda_query_result (GstBSplineWarp * self,
    GstPadDirection direction, GstQuery * query);

/* propose_allocation where the engine takes the input: a CUDA pool for
 * CUDA memory, a pinned pool for system memory.  FALSE: not the engine's
 * (GstVideoFilter's proposal), else TRUE and the answer in *ret. */
gboolean gst_bspline_warp_cuda_propose (GstBSplineWarp * self,
    GstQuery * query, gboolean * ret);

/* decide_allocation for output in CUDA memory: TRUE and the answer in
 * *ret where the caps are CUDA memory's. */
gboolean gst_bspline_warp_cuda_decide_memory (GstBSplineWarp * self,
    GstQuery * query, gboolean * ret);

/* The end of decide_allocation: output from a pinned pool, which the GPU
 * writes directly (where it cannot be made, the engine stages the copy). */
void gst_bspline_warp_cuda_decide_pinned (GstBSplineWarp * self,
    GstQuery * query);

/* Frees the CUDA engine, in its context, and the staging kept for it. */
void gst_bspline_warp_cuda_free_engine (GstBSplineWarp * self);

/* Drops the frames in flight and frees the engine and the CUDA context
 * (stop, finalize). */
void gst_bspline_warp_cuda_clear (GstBSplineWarp * self);
#else
static inline GstFlowReturn
gst_bspline_warp_cuda_drain (G_GNUC_UNUSED GstBSplineWarp * self,
    G_GNUC_UNUSED gboolean push)
{
  return GST_FLOW_OK;
}

static inline gboolean
gst_bspline_warp_cuda_generate (G_GNUC_UNUSED GstBSplineWarp * self,
    G_GNUC_UNUSED GstBuffer ** outbuf, G_GNUC_UNUSED GstFlowReturn * ret)
{
  return FALSE;
}

static inline gboolean
gst_bspline_warp_cuda_query (G_GNUC_UNUSED GstBSplineWarp * self,
    G_GNUC_UNUSED GstQuery * query)
{
  return FALSE;
}

static inline void
gst_bspline_warp_cuda_query_result (G_GNUC_UNUSED GstBSplineWarp * self,
    G_GNUC_UNUSED GstPadDirection direction, G_GNUC_UNUSED GstQuery * query)
{
}

static inline gboolean
gst_bspline_warp_cuda_propose (G_GNUC_UNUSED GstBSplineWarp * self,
    G_GNUC_UNUSED GstQuery * query, G_GNUC_UNUSED gboolean * ret)
{
  return FALSE;
}

static inline gboolean
gst_bspline_warp_cuda_decide_memory (G_GNUC_UNUSED GstBSplineWarp * self,
    G_GNUC_UNUSED GstQuery * query, G_GNUC_UNUSED gboolean * ret)
{
  return FALSE;
}

static inline void
gst_bspline_warp_cuda_decide_pinned (G_GNUC_UNUSED GstBSplineWarp * self,
    G_GNUC_UNUSED GstQuery * query)
{
}

static inline void
gst_bspline_warp_cuda_clear (G_GNUC_UNUSED GstBSplineWarp * self)
{
}
#endif

#ifdef HAVE_BSPLINE_CUDA_MEMORY
/* The engine's start-up (GstBSplineEngineNewCuda): on the pipeline's CUDA
 * context where a neighbour has one already. */
bspline_status gst_bspline_warp_cuda_new_engine (GstElement * element,
    gint device_id, struct bspline_cuda **cuda, gchar * msg, gsize msg_len);

/* CUDA memory on either pad: the pipeline's CUDA context and an engine on
 * it.  FALSE after an element error. */
gboolean gst_bspline_warp_cuda_negotiate_memory (GstBSplineWarp * self,
    GstCaps * incaps, GstCaps * outcaps);

/* Both pads in the same memory (system or CUDA). */
gboolean gst_bspline_warp_cuda_same_memory (GstBSplineWarp * self);

/* A context set on the element: the pipeline's CUDA context. */
void gst_bspline_warp_cuda_set_context (GstBSplineWarp * self,
    GstContext * context);
#else
/* the engine starts on the device's primary context */
#define gst_bspline_warp_cuda_new_engine NULL

static inline gboolean
gst_bspline_warp_cuda_negotiate_memory (G_GNUC_UNUSED GstBSplineWarp * self,
    G_GNUC_UNUSED GstCaps * incaps, G_GNUC_UNUSED GstCaps * outcaps)
{
  return TRUE;
}

static inline gboolean
gst_bspline_warp_cuda_same_memory (G_GNUC_UNUSED GstBSplineWarp * self)
{
  return TRUE;
}

static inline void
gst_bspline_warp_cuda_set_context (G_GNUC_UNUSED GstBSplineWarp * self,
    G_GNUC_UNUSED GstContext * context)
{
}
#endif

G_END_DECLS
#endif /* __GST_BSPLINE_WARP_CUDA_H__ */
