/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GStreamer
 * Copyright (C) 2026 gst-bspline contributors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#ifndef __GST_BSPLINE_PINNED_H__
#define __GST_BSPLINE_PINNED_H__

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS
/* An allocator of page-locked (pinned) host memory, which the GPU's copy
 * engines read and write directly, several times faster than pageable
 * memory.  Only built with the CUDA engine. */
#define GST_TYPE_BSPLINE_PINNED_ALLOCATOR \
  (gst_bspline_pinned_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstBSplinePinnedAllocator,
    gst_bspline_pinned_allocator, GST, BSPLINE_PINNED_ALLOCATOR, GstAllocator);

/* A video buffer pool of pinned memory for frames of info.  context: the
 * GstCudaContext the engine runs on, or NULL where it runs on the
 * device's primary context; the memory is allocated and freed in it, and
 * the pool's memory holds it, so frames outlive the pipeline. */
GstBufferPool *gst_bspline_pinned_pool_new (GstCaps * caps,
    const GstVideoInfo * info, guint min_buffers, GstObject * context);

/* propose_allocation of an element that hands its input to the GPU: the
 * video meta and, where upstream asks for a pool, a pinned pool of at
 * least min buffers (context: as gst_bspline_pinned_pool_new's).  FALSE where the query has no valid video caps. */
gboolean gst_bspline_pinned_propose (GstQuery * query, guint min,
    GstObject * context);

/* The end of decide_allocation of an element whose output the GPU
 * writes: the query's first pool replaced by (or a first pool of) pinned
 * memory, of at least min buffers and at least extra more than the
 * downstream pool asked for.  Nothing changes where the caps are not
 * video caps, nor where the pool cannot be made: then FALSE (the engine
 * stages its copies). */
gboolean gst_bspline_pinned_decide (GstQuery * query, guint min, guint extra,
    GstObject * context);

/* The engine's GstCudaContext of an element's CUDA state (a struct with a
 * GstBSplineCudaMemory "memory"), NULL where built without CUDA memory
 * support. */
#ifdef HAVE_BSPLINE_CUDA_MEMORY
#define GST_BSPLINE_PINNED_CONTEXT(cuda_state) \
  GST_OBJECT_CAST ((cuda_state)->memory.engine_context)
#else
#define GST_BSPLINE_PINNED_CONTEXT(cuda_state) NULL
#endif

G_END_DECLS
#endif /* __GST_BSPLINE_PINNED_H__ */
