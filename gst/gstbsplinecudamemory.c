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

/* memory:CUDAMemory for bsplinewarp and bsplinestabilize, on GStreamer
 * 1.22's gstcuda library.
 *
 * One CUDA context per pipeline: the element takes part in gst.cuda.context
 * sharing as nvcodec's elements do (gst_cuda_handle_set_context,
 * gst_cuda_handle_context_query, gst_cuda_ensure_element_context), and its
 * engine then runs on that context (bspline_cuda_new_current_context),
 * made current around every engine call with gst_cuda_context_push/pop.
 * 1.22's GstCudaContext is a context of its own (cuCtxCreate), not the
 * device's primary context, so device pointers of cudaupload, cudadownload
 * and the NVDEC decoders are only valid with it current.
 *
 * Synchronisation: 1.22 has no GstCudaStream; its elements finish their
 * copies (cuStreamSynchronize, or synchronous cuMemcpy2D) before pushing.
 * Before reading, mapping with GST_MAP_CUDA uploads what a CPU map left
 * behind, and the engine's stream waits for the context's legacy default
 * stream (bspline_cuda_submit_placed); before pushing, the element waits
 * for its own slot (bspline_cuda_finish). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstbsplinecudamemory.h"

#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudautils.h>

GST_DEBUG_CATEGORY_STATIC (gst_bspline_cuda_memory_debug);
#define GST_CAT_DEFAULT gst_bspline_cuda_memory_debug

/* Whether CUDA memory can be offered: libcuda loads (gstcuda opens it at
 * run time) and there is a device.  Asked once per process. */
gboolean
gst_bspline_cuda_memory_usable (void)
{
  static gsize usable = 0;

  if (g_once_init_enter (&usable)) {
    gchar msg[256] = "";
    gsize value = 1;

    GST_DEBUG_CATEGORY_INIT (gst_bspline_cuda_memory_debug,
        "bsplinecudamemory", 0, "memory:CUDAMemory of the bspline elements");
    if (!gst_cuda_load_library ())
      GST_INFO ("no memory:CUDAMemory: libcuda could not be loaded");
    else if (bspline_cuda_device_count (msg, sizeof (msg)) == 0)
      GST_INFO ("no memory:CUDAMemory: %s", msg);
    else {
      /* the allocator the CUDA buffer pools find by name */
      gst_cuda_memory_init_once ();
      value = 2;
    }
    g_once_init_leave (&usable, value);
  }
  return usable == 2;
}

gboolean
gst_bspline_cuda_memory_caps_are_cuda (GstCaps * caps)
{
  GstCapsFeatures *features;

  if (caps == NULL || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return FALSE;
  features = gst_caps_get_features (caps, 0);
  return features != NULL && gst_caps_features_contains (features,
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
}

/* Every structure of caps in its own memory first, then in the other
 * (CUDA memory in the formats the allocator holds): fixation keeps the
 * memory the element is given where the other side takes it, so frames
 * from cudaupload or a decoder stay on the GPU and frames from system
 * memory stay there; without with_cuda, system memory only. */
GstCaps *
gst_bspline_cuda_memory_transform_caps (GstCaps * caps, gboolean with_cuda)
{
  GstCaps *ret = gst_caps_new_empty ();
  GstStructure *formats = gst_structure_from_string ("video/x-raw, "
      "format=(string)" GST_BSPLINE_CUDA_MEMORY_FORMATS, NULL);
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_caps_get_structure (caps, i);
    GstCapsFeatures *features = gst_caps_get_features (caps, i);
    GstStructure *cuda = NULL;
    gboolean cuda_first;

    /* ANY, and alternate fields (format:Interlaced, in system memory
     * only), stay as they are */
    if (features && (gst_caps_features_is_any (features)
            || gst_caps_features_contains (features,
                GST_CAPS_FEATURE_FORMAT_INTERLACED))) {
      gst_caps_append_structure_full (ret, gst_structure_copy (s),
          gst_caps_features_copy (features));
      continue;
    }
    cuda_first = features && gst_caps_features_contains (features,
        GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
    if (with_cuda)
      cuda = gst_structure_intersect (s, formats);
    if (cuda && cuda_first)
      ret = gst_caps_merge_structure_full (ret, gst_structure_copy (cuda),
          gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
    ret = gst_caps_merge_structure_full (ret, gst_structure_copy (s),
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY, NULL));
    if (cuda && !cuda_first)
      ret = gst_caps_merge_structure_full (ret, gst_structure_copy (cuda),
          gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
    if (cuda)
      gst_structure_free (cuda);
  }
  gst_structure_free (formats);
  return ret;
}

void
gst_bspline_cuda_memory_set_context (GstElement * element,
    GstBSplineCudaMemory * m, GstContext * context, gint device_id)
{
  if (gst_bspline_cuda_memory_usable ())
    gst_cuda_handle_set_context (element, context, device_id, &m->context);
}

gboolean
gst_bspline_cuda_memory_context_query (GstElement * element,
    GstBSplineCudaMemory * m, GstQuery * query)
{
  return gst_cuda_handle_context_query (element, query, m->context);
}

/* The context a neighbour already has (asked downstream, then upstream),
 * without creating one: at start, so that the engine runs on it from the
 * first frame. */
void
gst_bspline_cuda_memory_find_context (GstElement * element,
    GstBSplineCudaMemory * m, gint device_id)
{
  static const gchar *const pads[] = { "src", "sink" };
  guint i;

  if (m->context || !gst_bspline_cuda_memory_usable ())
    return;
  for (i = 0; i < G_N_ELEMENTS (pads) && m->context == NULL; i++) {
    GstPad *pad = gst_element_get_static_pad (element, pads[i]);
    GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
    GstContext *context = NULL;

    if (gst_pad_peer_query (pad, query)) {
      gst_query_parse_context (query, &context);
      if (context)
        gst_cuda_handle_set_context (element, context, device_id, &m->context);
    }
    gst_query_unref (query);
    gst_object_unref (pad);
  }
}

/* The answer to a caps query on the sink pad: where the querier (the
 * filter) offers CUDA memory that the element takes, CUDA memory only.
 * GstBaseTransform tries passthrough first, so cudaupload would otherwise
 * pass system memory on to an element that takes both.  NULL: keep
 * result. */
GstCaps *
gst_bspline_cuda_memory_prefer (GstCaps * filter, GstCaps * result)
{
  GstCaps *cuda;
  guint i;

  if (filter == NULL || result == NULL)
    return NULL;
  cuda = gst_caps_new_empty ();
  for (i = 0; i < gst_caps_get_size (result); i++) {
    GstCapsFeatures *features = gst_caps_get_features (result, i);

    if (features && !gst_caps_features_is_any (features)
        && gst_caps_features_contains (features,
            GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY))
      gst_caps_append_structure_full (cuda,
          gst_structure_copy (gst_caps_get_structure (result, i)),
          gst_caps_features_copy (features));
  }
  if (gst_caps_is_empty (cuda) || !gst_caps_can_intersect (filter, cuda)
      || gst_caps_get_size (cuda) == gst_caps_get_size (result)) {
    gst_caps_unref (cuda);
    return NULL;
  }
  return cuda;
}

/* The context of the neighbours (asked downstream, upstream, then the
 * application), else a new one on device_id, posted for the others. */
gboolean
gst_bspline_cuda_memory_ensure_context (GstElement * element,
    GstBSplineCudaMemory * m, gint device_id)
{
  return gst_bspline_cuda_memory_usable ()
      && gst_cuda_ensure_element_context (element, device_id, &m->context);
}

void
gst_bspline_cuda_memory_clear (GstBSplineCudaMemory * m)
{
  gst_clear_object (&m->context);
  gst_clear_object (&m->engine_context);
  m->in_cuda = m->out_cuda = FALSE;
}

/* An engine on the shared context; the engine keeps a reference to it. */
bspline_status
gst_bspline_cuda_memory_new_engine (GstBSplineCudaMemory * m,
    bspline_cuda ** cuda, gchar * msg, gsize msg_len)
{
  bspline_status status;

  *cuda = NULL;
  if (m->context == NULL || !gst_cuda_context_push (m->context)) {
    g_strlcpy (msg, "the shared CUDA context cannot be made current", msg_len);
    return BSPLINE_ERROR_BACKEND;
  }
  status = bspline_cuda_new_current_context (cuda, msg, msg_len);
  gst_cuda_context_pop (NULL);
  gst_clear_object (&m->engine_context);
  if (status == BSPLINE_OK)
    m->engine_context = gst_object_ref (m->context);
  return status;
}

/* The engine at the element's start: on the pipeline's CUDA context where
 * a neighbour has one already, else on the device's primary context; CUDA
 * memory caps may move it onto a shared context later. */
bspline_status
gst_bspline_cuda_memory_start_engine (GstElement * element,
    GstBSplineCudaMemory * m, gint device_id, bspline_cuda ** cuda,
    gchar * msg, gsize msg_len)
{
  gst_bspline_cuda_memory_find_context (element, m, device_id);
  if (m->context)
    return gst_bspline_cuda_memory_new_engine (m, cuda, msg, msg_len);
  return bspline_cuda_new (device_id, cuda, msg, msg_len);
}

/* Makes the engine's context current on this thread, where the engine has
 * one (an engine on the primary context selects its device itself). */
gboolean
gst_bspline_cuda_memory_push (GstBSplineCudaMemory * m)
{
  return m->engine_context == NULL || gst_cuda_context_push (m->engine_context);
}

void
gst_bspline_cuda_memory_pop (GstBSplineCudaMemory * m)
{
  if (m->engine_context)
    gst_cuda_context_pop (NULL);
}

/* Whether the engine can use buffer's memory in place: one GstCudaMemory
 * of the engine's context (memory of another context is read and written
 * through its staging copy, as by any CPU element). */
gboolean
gst_bspline_cuda_memory_on_device (GstBSplineCudaMemory * m, GstBuffer * buffer)
{
  GstMemory *mem;

  if (m->engine_context == NULL || gst_buffer_n_memory (buffer) != 1)
    return FALSE;
  mem = gst_buffer_peek_memory (buffer, 0);
  return gst_is_cuda_memory (mem)
      && gst_cuda_context_get_handle (GST_CUDA_MEMORY_CAST (mem)->context)
      == gst_cuda_context_get_handle (m->engine_context);
}

/* gst_video_frame_map; with on_device, the planes are device pointers
 * (GST_MAP_CUDA, which first uploads what a CPU map wrote).  The planes
 * are where the buffer's GstVideoMeta says or, without one, where the
 * GstCudaMemory put them: its pitch and plane offsets, not those of the
 * caps. */
gboolean
gst_bspline_cuda_memory_map_frame (GstVideoFrame * frame,
    const GstVideoInfo * info, GstBuffer * buffer, GstMapFlags flags,
    gboolean on_device)
{
  GstCudaMemory *cmem;
  guint p;

  if (!on_device)
    return gst_video_frame_map (frame, (GstVideoInfo *) info, buffer, flags);
  if (!gst_video_frame_map (frame, (GstVideoInfo *) info, buffer,
          flags | GST_MAP_CUDA))
    return FALSE;
  if (frame->meta)
    return TRUE;
  cmem = GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (buffer, 0));
  if (GST_VIDEO_INFO_FORMAT (&cmem->info) != GST_VIDEO_INFO_FORMAT (info)) {
    gst_video_frame_unmap (frame);
    return FALSE;
  }
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    frame->info.offset[p] = GST_VIDEO_INFO_PLANE_OFFSET (&cmem->info, p);
    frame->info.stride[p] = GST_VIDEO_INFO_PLANE_STRIDE (&cmem->info, p);
    frame->data[p] = (guint8 *) frame->map[0].data + frame->info.offset[p];
  }
  return TRUE;
}

/* A GstCudaBufferPool of the shared context for caps, configured; *size
 * is its buffers' size (the pitched allocation). */
GstBufferPool *
gst_bspline_cuda_memory_pool_new (GstBSplineCudaMemory * m, GstCaps * caps,
    guint min_buffers, guint * size)
{
  GstBufferPool *pool;
  GstStructure *config;
  GstVideoInfo info;

  if (!gst_bspline_cuda_memory_usable () || m->context == NULL
      || !gst_video_info_from_caps (&info, caps))
    return NULL;
  pool = gst_cuda_buffer_pool_new (m->context);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, caps,
      GST_VIDEO_INFO_SIZE (&info), min_buffers, 0);
  if (!gst_buffer_pool_set_config (pool, config)) {
    GST_WARNING_OBJECT (pool, "cannot configure a CUDA pool for %"
        GST_PTR_FORMAT, caps);
    gst_object_unref (pool);
    return NULL;
  }
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, size, NULL, NULL);
  gst_structure_free (config);
  return pool;
}

gboolean
gst_bspline_cuda_memory_propose_pool (GstBSplineCudaMemory * m,
    GstQuery * query, guint min_buffers)
{
  GstBufferPool *pool;
  GstCaps *caps;
  gboolean need_pool;
  guint size = 0;

  gst_query_parse_allocation (query, &caps, &need_pool);
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  if (!need_pool)
    return TRUE;
  pool = gst_bspline_cuda_memory_pool_new (m, caps, min_buffers, &size);
  if (pool == NULL)
    return TRUE;
  gst_query_add_allocation_pool (query, pool, size, min_buffers, 0);
  gst_object_unref (pool);
  return TRUE;
}

gboolean
gst_bspline_cuda_memory_decide_pool (GstElement * element,
    GstBSplineCudaMemory * m, GstQuery * query, guint min, guint extra)
{
  GstBufferPool *pool;
  GstCaps *caps;
  guint size = 0;

  gst_query_parse_allocation (query, &caps, NULL);
  if (gst_query_get_n_allocation_pools (query) > 0) {
    guint n_min;

    gst_query_parse_nth_allocation_pool (query, 0, NULL, NULL, &n_min, NULL);
    min = MAX (min, n_min + extra);
  }
  pool = gst_bspline_cuda_memory_pool_new (m, caps, min, &size);
  if (pool == NULL)
    goto no_pool;
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, 0);
  else
    gst_query_add_allocation_pool (query, pool, size, min, 0);
  gst_object_unref (pool);
  return TRUE;

  /* ERRORS */
no_pool:
  {
    GST_ELEMENT_ERROR (element, RESOURCE, NO_SPACE_LEFT,
        ("Could not make a CUDA buffer pool for %" GST_PTR_FORMAT ".", caps),
        ("gst_cuda_buffer_pool_new or its configuration failed"));
    return FALSE;
  }
}
