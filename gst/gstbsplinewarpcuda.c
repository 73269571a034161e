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

#include <string.h>

#include "gstbsplinewarpprivate.h"
#include "gstbsplinechain.h"
#include "gstbsplinepinned.h"
#include "bspline-cuda.h"

#define GST_CAT_DEFAULT gst_bspline_warp_debug

/* A frame whose planes are on the GPU: uploaded, resampled and downloaded
 * on the engine's streams while the next frame is submitted. */
typedef struct
{
  GstBuffer *inbuf, *outbuf;
  GstVideoFrame in_frame, out_frame;
  GstBSplineFields fields;
  GstBSplineLayout out_layout;  /* packs staged output planes */
  GstBSplineLayoutFrame in_planes, out_planes;
  gint slots[GST_BSPLINE_LAYOUT_MAX_PLANES];    /* -1: plane already done */
  gboolean in_device, out_device;       /* frames mapped as CUDA memory */
  gboolean failed;              /* the GPU failed: redo it on the CPU */
  gchar error[512];             /* what failed, for the message */
  GstBSplineWarpSettings settings;      /* the frame's snapshot */
} GstBSplineWarpPending;

#ifdef HAVE_BSPLINE_CUDA_MEMORY
/* The engine on the pipeline's CUDA context where a neighbour has one
 * already, else on the device's primary context; CUDA memory caps may
 * move it onto a shared context later
 * (gst_bspline_warp_cuda_negotiate_memory). */
bspline_status
gst_bspline_warp_cuda_new_engine (GstElement * element, gint device_id,
    struct bspline_cuda **cuda, gchar * msg, gsize msg_len)
{
  return gst_bspline_cuda_memory_start_engine (element,
      &GST_BSPLINE_WARP (element)->cuda.memory, device_id, cuda, msg, msg_len);
}
#endif

/* An engine on a shared context needs it current during each of its
 * calls; an engine on the primary context selects its device itself. */
static gboolean
gst_bspline_warp_cuda_enter (GstBSplineWarp * self)
{
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  return gst_bspline_cuda_memory_push (&self->cuda.memory);
#else
  (void) self;
  return TRUE;
#endif
}

static void
gst_bspline_warp_cuda_leave (G_GNUC_UNUSED GstBSplineWarp * self)
{
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  gst_bspline_cuda_memory_pop (&self->cuda.memory);
#endif
}

#ifdef HAVE_BSPLINE_CUDA_MEMORY
/* CUDA memory on either pad needs the pipeline's CUDA context and an
 * engine on it: an engine made at start on the device's primary context
 * is replaced (after the frames in flight go out), since device pointers
 * of cudaupload, cudadownload and the decoders are valid only in theirs. */
gboolean
gst_bspline_warp_cuda_negotiate_memory (GstBSplineWarp * self,
    GstCaps * incaps, GstCaps * outcaps)
{
  GstBSplineCudaMemory *m = &self->cuda.memory;
  GstBSplineWarpSettings s;
  gchar msg[256] = "";

  m->in_cuda = gst_bspline_cuda_memory_caps_are_cuda (incaps);
  m->out_cuda = gst_bspline_cuda_memory_caps_are_cuda (outcaps);
  if (!m->in_cuda && !m->out_cuda)
    return TRUE;
  gst_bspline_warp_snapshot (self, &s);
  if (!gst_bspline_cuda_memory_ensure_context (GST_ELEMENT (self), m,
          s.resample.cuda_device_id))
    goto no_context;
  if (self->engine.cuda == NULL || m->engine_context == m->context)
    return TRUE;
  gst_bspline_warp_cuda_drain (self, TRUE);
  gst_bspline_warp_cuda_free_engine (self);
  if (gst_bspline_cuda_memory_new_engine (m, &self->engine.cuda, msg,
          sizeof (msg)) != BSPLINE_OK)
    goto no_engine;
  GST_INFO_OBJECT (self, "CUDA engine on the pipeline's CUDA context (%s)",
      bspline_cuda_device_name (self->engine.cuda));
  return TRUE;

  /* ERRORS */
no_context:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not get a CUDA context for memory:CUDAMemory."),
        ("cuda-device-id=%d: gst_cuda_ensure_element_context failed",
            s.resample.cuda_device_id));
    return FALSE;
  }
no_engine:
  {
    return gst_bspline_engine_cuda_unavailable (&self->engine,
        GST_ELEMENT (self), "the CUDA engine on the pipeline's CUDA context",
        msg);
  }
}

/* Both pads in the same memory: a deferred frame is the input buffer,
 * and passthrough possible. */
gboolean
gst_bspline_warp_cuda_same_memory (GstBSplineWarp * self)
{
  return self->cuda.memory.in_cuda == self->cuda.memory.out_cuda;
}

void
gst_bspline_warp_cuda_set_context (GstBSplineWarp * self, GstContext * context)
{
  gint device_id;

  GST_OBJECT_LOCK (self);
  device_id = self->settings.resample.cuda_device_id;
  GST_OBJECT_UNLOCK (self);
  gst_bspline_cuda_memory_set_context (GST_ELEMENT (self),
      &self->cuda.memory, context, device_id);
}
#endif

/* ---- the CUDA engine: frames in flight ---- */

static void gst_bspline_warp_clear_spare_planes (GstBSplineWarp * self);

/* Frees the CUDA engine, in its context, and the staging kept for it. */
void
gst_bspline_warp_cuda_free_engine (GstBSplineWarp * self)
{
  gboolean entered;

  gst_bspline_warp_clear_spare_planes (self);
  if (self->engine.cuda == NULL)
    return;
  entered = gst_bspline_warp_cuda_enter (self);
  gst_bspline_engine_free_cuda (&self->engine);
  if (entered)
    gst_bspline_warp_cuda_leave (self);
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  gst_clear_object (&self->cuda.memory.engine_context);
#endif
}

/* Staging for a frame in flight: one kept from an earlier frame, or new
 * page-locked memory, which the engine copies to and from the device
 * directly. */
static void
gst_bspline_warp_take_planes (GstBSplineWarp * self,
    GstBSplineLayoutFrame * planes)
{
  GstBSplineLayoutFrame *spare = g_queue_pop_head (&self->cuda.spare_planes);

  memset (planes, 0, sizeof (*planes));
  if (spare) {
    *planes = *spare;
    g_free (spare);
  }
  planes->alloc = bspline_cuda_host_alloc;
  planes->free = bspline_cuda_host_free;
}

/* Keeps a frame's staging for the frames after it (as many as are in
 * flight, in and out). */
static void
gst_bspline_warp_give_planes (GstBSplineWarp * self,
    GstBSplineLayoutFrame * planes)
{
  if (planes->staging
      && g_queue_get_length (&self->cuda.spare_planes) <
      2 * GST_BSPLINE_WARP_FRAMES_IN_FLIGHT + 2)
    g_queue_push_tail (&self->cuda.spare_planes, g_memdup2 (planes,
            sizeof (*planes)));
  else
    gst_bspline_layout_frame_clear (planes);
}

static void
gst_bspline_warp_clear_spare_planes (GstBSplineWarp * self)
{
  GstBSplineLayoutFrame *spare;

  while ((spare = g_queue_pop_head (&self->cuda.spare_planes))) {
    gst_bspline_layout_frame_clear (spare);
    g_free (spare);
  }
}

static void
gst_bspline_warp_pending_free (GstBSplineWarp * self,
    GstBSplineWarpPending * pending)
{
  if (pending->in_frame.buffer)
    gst_video_frame_unmap (&pending->in_frame);
  if (pending->out_frame.buffer)
    gst_video_frame_unmap (&pending->out_frame);
  gst_buffer_unref (pending->inbuf);
  if (pending->outbuf)
    gst_buffer_unref (pending->outbuf);
  gst_bspline_warp_give_planes (self, &pending->in_planes);
  gst_bspline_warp_give_planes (self, &pending->out_planes);
  g_free (pending);
}

/* Which frames the engine takes in place as CUDA memory: buffers of one
 * GstCudaMemory of the engine's context, unless a plane is reoriented
 * exactly (a copy on the CPU) or the format is unpacked on the CPU: such
 * frames are mapped for the CPU, through GstCudaMemory's staging
 * copies. */
static void
gst_bspline_warp_place_frames (GstBSplineWarp * self,
    GstBSplineWarpPending * pending)
{
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  guint p;

  if (self->planes.in_layout[pending->fields].staged)
    return;
  for (p = 0; p < GST_BSPLINE_LAYOUT_MAX_PLANES; p++)
    if (self->planes.plane[pending->fields][p].valid
        && self->planes.plane[pending->fields][p].exact)
      return;
  pending->in_device = gst_bspline_cuda_memory_on_device (&self->cuda.memory,
      pending->inbuf);
  pending->out_device = gst_bspline_cuda_memory_on_device (&self->cuda.memory,
      pending->outbuf);
#else
  (void) self;
  (void) pending;
#endif
}

static gboolean
gst_bspline_warp_map_frame (GstVideoFrame * frame, const GstVideoInfo * info,
    GstBuffer * buffer, GstMapFlags flags, gboolean on_device)
{
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  return gst_bspline_cuda_memory_map_frame (frame, info, buffer, flags,
      on_device);
#else
  (void) on_device;
  return gst_video_frame_map (frame, (GstVideoInfo *) info, buffer, flags);
#endif
}

/* Frames mapped as CUDA memory, mapped again for the CPU engine. */
static GstFlowReturn
gst_bspline_warp_map_for_cpu (GstBSplineWarp * self,
    GstBSplineWarpPending * pending)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);

  gst_video_frame_unmap (&pending->in_frame);
  gst_video_frame_unmap (&pending->out_frame);
  memset (&pending->in_frame, 0, sizeof (pending->in_frame));
  memset (&pending->out_frame, 0, sizeof (pending->out_frame));
  pending->in_device = pending->out_device = FALSE;
  if (!gst_video_frame_map (&pending->in_frame, &filter->in_info,
          pending->inbuf, GST_MAP_READ))
    goto map_failed;
  if (!gst_video_frame_map (&pending->out_frame, &filter->out_info,
          pending->outbuf, GST_MAP_WRITE)) {
    gst_video_frame_unmap (&pending->in_frame);
    memset (&pending->in_frame, 0, sizeof (pending->in_frame));
    goto map_failed;
  }
  return GST_FLOW_OK;

  /* ERRORS */
map_failed:
  {
    gst_bspline_warp_post_bad_buffer (self, pending->inbuf);
    return GST_FLOW_ERROR;
  }
}

/* Maps the frame and queues its planes on the GPU; planes reoriented
 * exactly are copied on the CPU at once.  Takes inbuf and outbuf. */
static GstFlowReturn
gst_bspline_warp_submit (GstBSplineWarp * self, GstBuffer * inbuf,
    GstBuffer * outbuf, GstBSplineWarpPending ** out)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  GstBSplineWarpPending *pending = g_new0 (GstBSplineWarpPending, 1);
  const GstBSplineLayout *in_layout;
  bspline_geometry geometry;
  GstBSplineLinear linear;
  GstFlowReturn ret;
  gboolean entered = FALSE, remap;
  guint p;

  pending->inbuf = inbuf;
  pending->outbuf = outbuf;
  pending->settings = self->frame;
  gst_bspline_warp_take_planes (self, &pending->in_planes);
  gst_bspline_warp_take_planes (self, &pending->out_planes);
  for (p = 0; p < GST_BSPLINE_LAYOUT_MAX_PLANES; p++)
    pending->slots[p] = -1;
  /* the plans first: they say which planes are copied on the CPU */
  ret = gst_bspline_warp_prepare_frame (self, inbuf, &geometry,
      &pending->fields);
  if (ret == GST_FLOW_OK)
    ret = gst_bspline_warp_linear_setup (self, &linear, &remap);
  if (ret != GST_FLOW_OK) {
    gst_bspline_warp_pending_free (self, pending);
    return ret;
  }
  gst_bspline_warp_place_frames (self, pending);
  if (!gst_bspline_warp_map_frame (&pending->in_frame, &filter->in_info,
          inbuf, GST_MAP_READ, pending->in_device))
    goto map_failed;
  if (!gst_bspline_warp_map_frame (&pending->out_frame, &filter->out_info,
          outbuf, GST_MAP_WRITE, pending->out_device)) {
    gst_video_frame_unmap (&pending->in_frame);
    memset (&pending->in_frame, 0, sizeof (pending->in_frame));
    goto map_failed;
  }
  ret = gst_bspline_warp_check_frames (self, &pending->in_frame,
      &pending->out_frame);
  in_layout = &self->planes.in_layout[pending->fields];
  pending->out_layout = self->planes.out_layout[pending->fields];
  if (ret == GST_FLOW_OK
      && (!gst_bspline_layout_read (in_layout, &pending->in_frame,
              &pending->in_planes, gst_bspline_warp_pack_threads (self))
          || !gst_bspline_layout_prepare (&pending->out_layout,
              &pending->out_frame, &pending->out_planes))) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Not enough memory to unpack a %s frame.",
            GST_VIDEO_INFO_NAME (&filter->in_info)), ("staging planes"));
    ret = GST_FLOW_ERROR;
  }
  if (ret == GST_FLOW_OK) {
    entered = gst_bspline_warp_cuda_enter (self);
    if (!entered) {
      g_strlcpy (pending->error, "the CUDA context cannot be made current",
          sizeof (pending->error));
      pending->failed = TRUE;
    }
  }
  for (p = 0; ret == GST_FLOW_OK && entered && p < in_layout->n_planes; p++) {
    const bspline_image *src = &pending->in_planes.plane[p];
    const bspline_image *dst = &pending->out_planes.plane[p];
    const GstBSplineWarpPlane *plane = &self->planes.plane[pending->fields][p];
    bspline_cuda_linear plane_linear;
    bspline_status status;

    if (plane->exact || plane->empty) {
      ret =
          gst_bspline_warp_planes_run_on_cpu (self, &geometry, pending->fields,
          p, src, dst);
      continue;
    }
    if (remap) {
      /* decoded, resampled and encoded on the device (cuda/transfer.cu) */
      plane_linear.in = linear.in;
      plane_linear.out = linear.out;
      plane_linear.pass_mask = linear.pass_mask[p];
      status = bspline_cuda_submit_linear (self->engine.cuda, plane->plan,
          src, pending->in_device, dst, pending->out_device, &plane_linear,
          &pending->slots[p]);
    } else {
      status = bspline_cuda_submit_placed (self->engine.cuda, plane->plan,
          src, pending->in_device, dst, pending->out_device,
          &pending->slots[p]);
    }
    if (status != BSPLINE_OK) {
      g_strlcpy (pending->error, bspline_cuda_last_error (self->engine.cuda),
          sizeof (pending->error));
      GST_WARNING_OBJECT (self, "GPU submit of plane %u failed: %s", p,
          pending->error);
      pending->slots[p] = -1;
      pending->failed = TRUE;
    }
  }
  if (ret != GST_FLOW_OK) {
    /* the planes already queued must land before the frames go away */
    for (p = 0; p < GST_BSPLINE_LAYOUT_MAX_PLANES; p++)
      if (pending->slots[p] >= 0)
        bspline_cuda_finish (self->engine.cuda, pending->slots[p]);
  }
  if (entered)
    gst_bspline_warp_cuda_leave (self);
  if (ret != GST_FLOW_OK) {
    gst_bspline_warp_pending_free (self, pending);
    return ret;
  }
  *out = pending;
  return GST_FLOW_OK;

  /* ERRORS */
map_failed:
  {
    gst_bspline_warp_post_bad_buffer (self, inbuf);
    gst_bspline_warp_pending_free (self, pending);
    return GST_FLOW_ERROR;
  }
}

/* Waits for a frame's planes and gives its output buffer.  A frame the
 * GPU failed on is an error with backend=cuda; with backend=auto it is
 * computed again on the CPU and the element stays on the CPU from then on,
 * so no frame is lost and none goes out wrong. */
static GstFlowReturn
gst_bspline_warp_complete (GstBSplineWarp * self,
    GstBSplineWarpPending * pending, GstBuffer ** outbuf)
{
  GstFlowReturn ret = GST_FLOW_OK;
  const gchar *msg = pending->error;
  gboolean entered = gst_bspline_warp_cuda_enter (self);
  guint p;

  for (p = 0; p < GST_BSPLINE_LAYOUT_MAX_PLANES; p++) {
    if (pending->slots[p] < 0)
      continue;
    if (!entered) {
      g_strlcpy (pending->error, "the CUDA context cannot be made current",
          sizeof (pending->error));
      pending->failed = TRUE;
    } else if (bspline_cuda_finish (self->engine.cuda, pending->slots[p])
        != BSPLINE_OK) {
      g_strlcpy (pending->error, bspline_cuda_last_error (self->engine.cuda),
          sizeof (pending->error));
      pending->failed = TRUE;
    }
  }
  if (entered)
    gst_bspline_warp_cuda_leave (self);
  if (pending->failed) {
    if (!self->engine.gpu_failed
        && !gst_bspline_engine_gpu_failed (&self->engine, GST_ELEMENT (self),
            "every frame", msg))
      goto gpu_error;
    self->engine.gpu_failed = TRUE;
    self->frame = pending->settings;
    if (pending->in_device || pending->out_device)
      ret = gst_bspline_warp_map_for_cpu (self, pending);
    if (ret == GST_FLOW_OK)
      ret = gst_bspline_warp_transform_frame (GST_VIDEO_FILTER (self),
          &pending->in_frame, &pending->out_frame);
  } else {
    gst_bspline_layout_write (&pending->out_layout, &pending->out_planes,
        &pending->out_frame, gst_bspline_warp_pack_threads (self));
  }
  if (ret == GST_FLOW_OK) {
    *outbuf = pending->outbuf;
    pending->outbuf = NULL;
  }
  gst_bspline_warp_pending_free (self, pending);
  return ret;

  /* ERRORS */
gpu_error:
  {
    gst_bspline_warp_pending_free (self, pending);
    return GST_FLOW_ERROR;
  }
}

/* Completes every frame in flight, oldest first, and pushes them (or drops
 * them, on a flush). */
GstFlowReturn
gst_bspline_warp_cuda_drain (GstBSplineWarp * self, gboolean push)
{
  GstBSplineWarpPending *pending;
  GstFlowReturn ret = GST_FLOW_OK;

  while ((pending = g_queue_pop_head (&self->cuda.pending))) {
    GstBuffer *out = NULL;
    GstFlowReturn r = gst_bspline_warp_complete (self, pending, &out);

    if (out && push && ret == GST_FLOW_OK)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), out);
    else if (out)
      gst_buffer_unref (out);
    if (r != GST_FLOW_OK && ret == GST_FLOW_OK)
      ret = r;
  }
  return ret;
}

gboolean
gst_bspline_warp_cuda_generate (GstBSplineWarp * self, GstBuffer ** outbuf,
    GstFlowReturn * ret)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstBSplineWarpPending *pending = NULL;
  GstBuffer *inbuf, *out = NULL;

  if (!gst_bspline_engine_on_gpu (&self->engine)
      || gst_base_transform_is_passthrough (trans)) {
    *ret = gst_bspline_warp_cuda_drain (self, TRUE);
    if (self->engine.gpu_failed)
      gst_bspline_warp_cuda_free_engine (self);
    return *ret != GST_FLOW_OK;
  }

  inbuf = trans->queued_buf;
  trans->queued_buf = NULL;
  *ret = GST_FLOW_OK;
  if (inbuf == NULL)
    return TRUE;
  *ret = GST_BASE_TRANSFORM_GET_CLASS (trans)->prepare_output_buffer (trans,
      inbuf, &out);
  if (*ret != GST_FLOW_OK || out == NULL) {
    gst_buffer_unref (inbuf);
    return TRUE;
  }
  *ret = gst_bspline_warp_submit (self, inbuf, out, &pending);
  if (*ret != GST_FLOW_OK)
    return TRUE;
  if (pending->failed) {
    /* the GPU refused the frame: the frames before it go out, then this
     * one is an error or, with backend=auto, done on the CPU at once */
    *ret = gst_bspline_warp_cuda_drain (self, TRUE);
    if (*ret != GST_FLOW_OK) {
      gst_bspline_warp_pending_free (self, pending);
      return TRUE;
    }
    *ret = gst_bspline_warp_complete (self, pending, outbuf);
    return TRUE;
  }
  g_queue_push_tail (&self->cuda.pending, pending);
  if (g_queue_get_length (&self->cuda.pending) <
      GST_BSPLINE_WARP_FRAMES_IN_FLIGHT)
    return TRUE;
  *ret = gst_bspline_warp_complete (self,
      g_queue_pop_head (&self->cuda.pending), outbuf);
  return TRUE;
}

gboolean
gst_bspline_warp_cuda_query (GstBSplineWarp * self, GstQuery * query)
{
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  return GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT
      && gst_bspline_cuda_memory_context_query (GST_ELEMENT (self),
      &self->cuda.memory, query);
#else
  (void) self;
  (void) query;
  return FALSE;
#endif
}

#ifdef HAVE_BSPLINE_CUDA_MEMORY
/* Upstream that offers CUDA memory is asked for it, unless an element
 * upstream (through carriers such as a queue) has defer=true: it keeps
 * its input's memory on its output to defer (docs/chains.md). */
static void
gst_bspline_warp_cuda_prefer_memory (GstBSplineWarp * self, GstQuery * query)
{
  GstCaps *filter, *result, *cuda;

  if (gst_bspline_chain_upstream_defers (GST_BASE_TRANSFORM_SINK_PAD (self)))
    return;
  gst_query_parse_caps (query, &filter);
  gst_query_parse_caps_result (query, &result);
  cuda = gst_bspline_cuda_memory_prefer (filter, result);
  if (cuda) {
    GST_DEBUG_OBJECT (self, "upstream offers CUDA memory: %" GST_PTR_FORMAT,
        cuda);
    gst_query_set_caps_result (query, cuda);
    gst_caps_unref (cuda);
  }
}
#endif

void
gst_bspline_warp_cuda_query_result (GstBSplineWarp * self,
    GstPadDirection direction, GstQuery * query)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);

#ifdef HAVE_BSPLINE_CUDA_MEMORY
  if (direction == GST_PAD_SINK && GST_QUERY_TYPE (query) == GST_QUERY_CAPS)
    gst_bspline_warp_cuda_prefer_memory (self, query);
#endif
  if (direction == GST_PAD_SRC
      && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY
      && gst_bspline_engine_on_gpu (&self->engine) && filter->negotiated
      && GST_VIDEO_INFO_FPS_N (&filter->in_info) > 0) {
    GstClockTime min, max, latency;
    gboolean live;

    latency = gst_util_uint64_scale_int (GST_SECOND *
        (GST_BSPLINE_WARP_FRAMES_IN_FLIGHT - 1),
        GST_VIDEO_INFO_FPS_D (&filter->in_info),
        GST_VIDEO_INFO_FPS_N (&filter->in_info));
    gst_query_parse_latency (query, &live, &min, &max);
    min += latency;
    if (GST_CLOCK_TIME_IS_VALID (max))
      max += latency;
    gst_query_set_latency (query, live, min, max);
    GST_DEBUG_OBJECT (self, "frames in flight add %" GST_TIME_FORMAT,
        GST_TIME_ARGS (latency));
  }
}


gboolean
gst_bspline_warp_cuda_propose (GstBSplineWarp * self, GstQuery * query,
    gboolean * ret)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);

#ifdef HAVE_BSPLINE_CUDA_MEMORY
  if (!gst_base_transform_is_passthrough (trans)) {
    GstCaps *caps;

    gst_query_parse_allocation (query, &caps, NULL);
    if (gst_bspline_cuda_memory_caps_are_cuda (caps)) {
      /* a crop is folded into the planes' views on the device too
       * (videocrop in CUDA memory crops only by its meta) */
      gst_query_add_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE,
          NULL);
      *ret = gst_bspline_cuda_memory_propose_pool (&self->cuda.memory, query,
          GST_BSPLINE_WARP_FRAMES_IN_FLIGHT + 1);
      return TRUE;
    }
  }
#endif
  if (self->engine.cuda == NULL || gst_base_transform_is_passthrough (trans))
    return FALSE;
  /* a crop is folded into the planes' views (gstbsplinelayout.h) */
  gst_query_add_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE, NULL);
  *ret = gst_bspline_pinned_propose (query,
      GST_BSPLINE_WARP_FRAMES_IN_FLIGHT + 1,
      GST_BSPLINE_PINNED_CONTEXT (&self->cuda));
  return TRUE;
}

gboolean
gst_bspline_warp_cuda_decide_memory (GstBSplineWarp * self, GstQuery * query,
    gboolean * ret)
{
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  GstCaps *caps;

  gst_query_parse_allocation (query, &caps, NULL);
  if (gst_bspline_cuda_memory_caps_are_cuda (caps)) {
    /* written in place by the engine, the frames in flight ahead */
    *ret = gst_bspline_cuda_memory_decide_pool (GST_ELEMENT (self),
        &self->cuda.memory, query, GST_BSPLINE_WARP_FRAMES_IN_FLIGHT + 1,
        GST_BSPLINE_WARP_FRAMES_IN_FLIGHT);
    return TRUE;
  }
#else
  (void) self;
  (void) query;
  (void) ret;
#endif
  return FALSE;
}

void
gst_bspline_warp_cuda_decide_pinned (GstBSplineWarp * self, GstQuery * query)
{
  if (self->engine.cuda != NULL
      && !gst_bspline_pinned_decide (query,
          GST_BSPLINE_WARP_FRAMES_IN_FLIGHT + 1,
          GST_BSPLINE_WARP_FRAMES_IN_FLIGHT,
          GST_BSPLINE_PINNED_CONTEXT (&self->cuda)))
    GST_INFO_OBJECT (self, "no pinned pool: downloads go through staging");
}

void
gst_bspline_warp_cuda_clear (GstBSplineWarp * self)
{
  gst_bspline_warp_cuda_drain (self, FALSE);
  gst_bspline_warp_cuda_free_engine (self);
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  /* as nvcodec's elements: the next start takes the pipeline's again */
  gst_bspline_cuda_memory_clear (&self->cuda.memory);
#endif
}
