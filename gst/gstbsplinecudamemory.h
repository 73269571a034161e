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

/* memory:CUDAMemory for bsplinewarp and bsplinestabilize (GStreamer 1.22's
 * gstcuda library):
 * the caps, the gst.cuda.context shared with NVIDIA's elements, frames
 * mapped in place on the device and the CUDA buffer pools. */
#ifndef __GST_BSPLINE_CUDA_MEMORY_H__
#define __GST_BSPLINE_CUDA_MEMORY_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>

#include "bspline-cuda.h"

G_BEGIN_DECLS
/* The formats 1.22's GstCudaAllocator can hold (gstcudamemory.c).  The
 * engine reads most in place; a frame of a format it unpacks (YUY2, UYVY,
 * RGB10A2_LE, BGR10A2_LE: gstbsplinelayout.h) is mapped for the CPU
 * through the memory's staging copy, and its planes resampled on the
 * GPU all the same. */
#define GST_BSPLINE_CUDA_MEMORY_FORMATS "{ RGBA, BGRA, ARGB, ABGR, RGBx, " \
    "BGRx, RGB, BGR, RGB10A2_LE, BGR10A2_LE, I420, YV12, NV12, NV21, " \
    "P010_10LE, P016_LE, I420_10LE, Y42B, I422_10LE, I422_12LE, Y444, " \
    "Y444_16LE, RGBP, BGRP, GBR, GBRA, YUY2, UYVY }"
#define GST_BSPLINE_CUDA_MEMORY_CAPS \
    GST_VIDEO_CAPS_MAKE_WITH_FEATURES ("memory:CUDAMemory", \
        GST_BSPLINE_CUDA_MEMORY_FORMATS) \
    ", interlace-mode = (string) { progressive, interleaved, mixed }"
/* The element's CUDA memory state. */
    typedef struct
{
  GstCudaContext *context;      /* shared gst.cuda.context, or NULL */
  GstCudaContext *engine_context;       /* the engine's, NULL: primary */
  gboolean in_cuda, out_cuda;   /* the pads' negotiated memory */
} GstBSplineCudaMemory;

gboolean gst_bspline_cuda_memory_usable (void);
gboolean gst_bspline_cuda_memory_caps_are_cuda (GstCaps * caps);
GstCaps *gst_bspline_cuda_memory_transform_caps (GstCaps * caps,
    gboolean with_cuda);

void gst_bspline_cuda_memory_set_context (GstElement * element,
    GstBSplineCudaMemory * m, GstContext * context, gint device_id);
gboolean gst_bspline_cuda_memory_context_query (GstElement * element,
    GstBSplineCudaMemory * m, GstQuery * query);
void gst_bspline_cuda_memory_find_context (GstElement * element,
    GstBSplineCudaMemory * m, gint device_id);
GstCaps *gst_bspline_cuda_memory_prefer (GstCaps * filter, GstCaps * result);
gboolean gst_bspline_cuda_memory_ensure_context (GstElement * element,
    GstBSplineCudaMemory * m, gint device_id);
void gst_bspline_cuda_memory_clear (GstBSplineCudaMemory * m);

bspline_status gst_bspline_cuda_memory_new_engine (GstBSplineCudaMemory * m,
    bspline_cuda ** cuda, gchar * msg, gsize msg_len);
bspline_status gst_bspline_cuda_memory_start_engine (GstElement * element,
    GstBSplineCudaMemory * m, gint device_id, bspline_cuda ** cuda,
    gchar * msg, gsize msg_len);
gboolean gst_bspline_cuda_memory_push (GstBSplineCudaMemory * m);
void gst_bspline_cuda_memory_pop (GstBSplineCudaMemory * m);

gboolean gst_bspline_cuda_memory_on_device (GstBSplineCudaMemory * m,
    GstBuffer * buffer);
gboolean gst_bspline_cuda_memory_map_frame (GstVideoFrame * frame,
    const GstVideoInfo * info, GstBuffer * buffer, GstMapFlags flags,
    gboolean on_device);

GstBufferPool *gst_bspline_cuda_memory_pool_new (GstBSplineCudaMemory * m,
    GstCaps * caps, guint min_buffers, guint * size);

/* propose_allocation for upstream in CUDA memory: the video meta and,
 * where upstream asks for one, a CUDA pool of the shared context of
 * min_buffers (the frames the element holds), which the GPU reads in
 * place.  Always TRUE (no pool where none can be made). */
gboolean gst_bspline_cuda_memory_propose_pool (GstBSplineCudaMemory * m,
    GstQuery * query, guint min_buffers);

/* decide_allocation for output in CUDA memory: the query's first pool
 * replaced by (or a first pool of) a CUDA pool of the shared context, of
 * at least min buffers and extra more than downstream's pool asked for
 * (the frames the element writes ahead or keeps).  FALSE, with an
 * element error, where the pool cannot be made. */
gboolean gst_bspline_cuda_memory_decide_pool (GstElement * element,
    GstBSplineCudaMemory * m, GstQuery * query, guint min, guint extra);

G_END_DECLS
#endif /* __GST_BSPLINE_CUDA_MEMORY_H__ */
