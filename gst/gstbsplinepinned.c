/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GStreamer
 * Copyright (C) 2026 gst-bspline contributors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
/* Pinned host memory for the frames bsplinewarp uploads and downloads
 * with the CUDA engine (bspline_cuda_host_alloc, cudaHostAlloc). */
#include "gstbsplinepinned.h"
#include "bspline-cuda.h"
#ifdef HAVE_BSPLINE_CUDA_MEMORY
#include <gst/cuda/gstcudacontext.h>
#endif

#include <string.h>

typedef struct
{
  GstMemory mem;
  guint8 *data;                 /* of the whole allocation */
} GstBSplinePinnedMemory;

/* Page-locked memory belongs to the CUDA context current where it is
 * allocated and is freed with it.  Where the engine runs on a pipeline's
 * GstCudaContext (memory:CUDAMemory on a pad), the allocator holds that
 * context and makes it current around each allocation and free, so a
 * frame stays readable for as long as anyone holds it, after the
 * pipeline and its context are gone. */
struct _GstBSplinePinnedAllocator
{
  GstAllocator parent;
  GstObject *context;           /* GstCudaContext, or NULL: the primary */
};

G_DEFINE_TYPE (GstBSplinePinnedAllocator, gst_bspline_pinned_allocator,
    GST_TYPE_ALLOCATOR);

static gboolean
gst_bspline_pinned_enter (GstBSplinePinnedAllocator * self)
{
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  return self->context
      && gst_cuda_context_push (GST_CUDA_CONTEXT (self->context));
#else
  (void) self;
  return FALSE;
#endif
}

static void
gst_bspline_pinned_leave (gboolean entered)
{
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  if (entered)
    gst_cuda_context_pop (NULL);
#else
  (void) entered;
#endif
}

static GstMemory *
gst_bspline_pinned_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GstBSplinePinnedMemory *mem;
  gsize maxsize = size + params->prefix + params->padding;
  guint8 *data;
  gboolean entered;

  /* page-locked allocations are page aligned, more than any align asks */
  if (params->align >= 4096)
    return NULL;
  entered = gst_bspline_pinned_enter (GST_BSPLINE_PINNED_ALLOCATOR
      (allocator));
  data = bspline_cuda_host_alloc (maxsize);
  gst_bspline_pinned_leave (entered);
  if (data == NULL)
    return NULL;
  mem = g_new0 (GstBSplinePinnedMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (mem), params->flags, allocator, NULL,
      maxsize, params->align, params->prefix, size);
  mem->data = data;
  if (params->prefix && (params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED))
    memset (data, 0, params->prefix);
  if (params->padding && (params->flags & GST_MEMORY_FLAG_ZERO_PADDED))
    memset (data + params->prefix + size, 0, params->padding);
  return GST_MEMORY_CAST (mem);
}

static void
gst_bspline_pinned_free (GstAllocator * allocator, GstMemory * memory)
{
  GstBSplinePinnedMemory *mem = (GstBSplinePinnedMemory *) memory;

  if (memory->parent == NULL) {
    gboolean entered = gst_bspline_pinned_enter (GST_BSPLINE_PINNED_ALLOCATOR
        (allocator));

    bspline_cuda_host_free (mem->data);
    gst_bspline_pinned_leave (entered);
  }
  g_free (mem);
}

static gpointer
gst_bspline_pinned_map (GstMemory * memory, G_GNUC_UNUSED gsize maxsize,
    G_GNUC_UNUSED GstMapFlags flags)
{
  return ((GstBSplinePinnedMemory *) memory)->data;
}

static void
gst_bspline_pinned_unmap (G_GNUC_UNUSED GstMemory * memory)
{
}

static GstMemory *
gst_bspline_pinned_share (GstMemory * memory, gssize offset, gssize size)
{
  GstBSplinePinnedMemory *mem = (GstBSplinePinnedMemory *) memory;
  GstBSplinePinnedMemory *sub;
  GstMemory *parent = memory->parent ? memory->parent : memory;

  if (size == -1)
    size = memory->size - offset;
  sub = g_new0 (GstBSplinePinnedMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (sub),
      GST_MINI_OBJECT_FLAGS (parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
      memory->allocator, parent, memory->maxsize, memory->align,
      memory->offset + offset, size);
  sub->data = mem->data;
  return GST_MEMORY_CAST (sub);
}

static void
gst_bspline_pinned_allocator_finalize (GObject * object)
{
  GstBSplinePinnedAllocator *self = GST_BSPLINE_PINNED_ALLOCATOR (object);

  gst_clear_object (&self->context);
  G_OBJECT_CLASS (gst_bspline_pinned_allocator_parent_class)->finalize
      (object);
}

static void
gst_bspline_pinned_allocator_class_init (GstBSplinePinnedAllocatorClass * klass)
{
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = gst_bspline_pinned_allocator_finalize;

  allocator_class->alloc = gst_bspline_pinned_alloc;
  allocator_class->free = gst_bspline_pinned_free;
}

static void
gst_bspline_pinned_allocator_init (GstBSplinePinnedAllocator * self)
{
  GstAllocator *allocator = GST_ALLOCATOR (self);

  allocator->mem_type = "BSplinePinned";
  allocator->mem_map = gst_bspline_pinned_map;
  allocator->mem_unmap = gst_bspline_pinned_unmap;
  allocator->mem_share = gst_bspline_pinned_share;
}

GstBufferPool *
gst_bspline_pinned_pool_new (GstCaps * caps, const GstVideoInfo * info,
    guint min_buffers, GstObject * context)
{
  GstBufferPool *pool = gst_video_buffer_pool_new ();
  GstBSplinePinnedAllocator *pinned =
      g_object_new (GST_TYPE_BSPLINE_PINNED_ALLOCATOR, NULL);
  GstAllocator *allocator = GST_ALLOCATOR (pinned);
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_object_ref_sink (allocator);
  if (context)
    pinned->context = gst_object_ref (context);
  gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (info),
      min_buffers, 0);
  gst_buffer_pool_config_set_allocator (config, allocator, NULL);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_object_unref (allocator);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

gboolean
gst_bspline_pinned_propose (GstQuery * query, guint min, GstObject * context)
{
  GstBufferPool *pool;
  GstVideoInfo info;
  GstCaps *caps;
  gboolean need_pool;

  gst_query_parse_allocation (query, &caps, &need_pool);
  if (caps == NULL || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  if (!need_pool)
    return TRUE;
  pool = gst_bspline_pinned_pool_new (caps, &info, min, context);
  if (pool == NULL)
    return TRUE;
  gst_query_add_allocation_pool (query, pool, GST_VIDEO_INFO_SIZE (&info),
      min, 0);
  gst_object_unref (pool);
  return TRUE;
}

gboolean
gst_bspline_pinned_decide (GstQuery * query, guint min, guint extra,
    GstObject * context)
{
  GstBufferPool *pool;
  GstVideoInfo info;
  GstCaps *caps;

  gst_query_parse_allocation (query, &caps, NULL);
  if (caps == NULL || !gst_video_info_from_caps (&info, caps))
    return TRUE;
  if (gst_query_get_n_allocation_pools (query) > 0) {
    guint size, n_min, n_max;

    gst_query_parse_nth_allocation_pool (query, 0, NULL, &size, &n_min, &n_max);
    min = MAX (min, n_min + extra);
  }
  pool = gst_bspline_pinned_pool_new (caps, &info, min, context);
  if (pool == NULL)
    return FALSE;
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool,
        GST_VIDEO_INFO_SIZE (&info), min, 0);
  else
    gst_query_add_allocation_pool (query, pool, GST_VIDEO_INFO_SIZE (&info),
        min, 0);
  gst_object_unref (pool);
  return TRUE;
}
