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

/* bsplinestabilize's CUDA frames: each frame held back goes up to the GPU
 * once, where the motion is estimated and, `smoothing` frames later, the
 * warp reads it; crop=keep-border keeps the previous output frame there.
 * Built only with the CUDA engine (gstbsplinestabilizeprivate.h has the
 * stand-ins).
 *
 * With memory:CUDAMemory (gstbsplinecudamemory.h, as bsplinewarp): the
 * element shares the pipeline's gst.cuda.context, its engine and motion
 * estimator run on it (made current around the streaming thread's work,
 * gst_bspline_stabilize_cuda_enter), a frame in CUDA memory is copied into
 * its device frame on the device, and the warp writes output in CUDA
 * memory in place: nvh264dec ! bsplinestabilize ! nvh264enc stays on the
 * GPU.  Where the GPU cannot take a frame, it is mapped for the CPU
 * through GstCudaMemory's staging copy (slower, the same pixels). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstbsplinestabilizeprivate.h"
#include "gstbsplineframe.h"
#include "gstbsplinepinned.h"
#include "bspline-cuda.h"
#include "bspline-cuda-motion.h"
#ifdef HAVE_BSPLINE_CUDA_MEMORY
#include <gst/cuda/gstcudamemory.h>
#endif

#define GST_CAT_DEFAULT gst_bspline_stabilize_debug

/* Frees the device frames not in use (all of them once no frame is held
 * back). */
static void
gst_bspline_stabilize_free_device_frames (GstBSplineStabilize * self)
{
  GSList *l;

  for (l = self->cuda.device_free; l; l = l->next) {
    bspline_cuda_motion_device_free (self->cuda.motion, l->data);
    self->cuda.device_frames--;
  }
  g_slist_free (self->cuda.device_free);
  self->cuda.device_free = NULL;
}


/* Frees the device copy of the previous output frame (new caps, stop, or
 * the engine going). */
static void
gst_bspline_stabilize_free_keep_border (GstBSplineStabilize * self)
{
  bspline_cuda_device_free (self->engine.cuda, self->cuda.keep_device);
  self->cuda.keep_device = NULL;
  self->cuda.keep_of = NULL;
  self->cuda.keep_on_cpu = FALSE;
}

/* The GPU failed on a resampling (msg says why): with backend=cuda, FALSE
 * (the caller posts the error); with backend=auto, a warning, and every
 * resampling from now on runs on the CPU. */
static gboolean
gst_bspline_stabilize_resample_to_cpu (GstBSplineStabilize * self,
    const gchar * msg)
{
  if (self->engine.backend == GST_BSPLINE_BACKEND_CUDA)
    return FALSE;
  gst_bspline_engine_gpu_failed (&self->engine, GST_ELEMENT (self),
      "every resampling", msg);
  gst_bspline_stabilize_free_keep_border (self);
  gst_bspline_engine_free_cuda (&self->engine);
  return TRUE;
}

/* Copies the planes of a mapped frame to a device frame of its own, once:
 * the motion reads the luma there now, the warp the planes `smoothing`
 * frames later.  FALSE (the frame stays in system memory alone) when the
 * frame does not fit or every device frame is in use; a GPU failure is
 * *status. */
static gboolean
gst_bspline_stabilize_upload (GstBSplineStabilize * self,
    GstVideoFrame * vframe, GstBSplineStabilizeFrame * frame,
    bspline_status * status)
{
  const void *host[GST_VIDEO_MAX_PLANES];
  gsize offset[GST_VIDEO_MAX_PLANES], size[GST_VIDEO_MAX_PLANES], end = 0;
  guint p, n = GST_VIDEO_FRAME_N_PLANES (vframe);
  gpointer device;

  *status = BSPLINE_OK;
  for (p = 0; p < n; p++) {
    bspline_image img;
    gsize row;

    gst_bspline_frame_plane_image (&vframe->info, vframe, p, &img);
    row = (gsize) img.width * img.channels * bspline_sample_size (img.type);
    if (img.stride < 0 || (gsize) img.stride < row)
      return FALSE;
    host[p] = img.data;
    offset[p] = end;
    size[p] = (gsize) img.stride * (img.height - 1) + row;
    end = (end + size[p] + 255) & ~(gsize) 255;
    frame->plane_offset[p] = offset[p];
    frame->plane_stride[p] = (gint) img.stride;
  }
  if (end > self->cuda.device_frame_size)
    return FALSE;
  if (self->cuda.device_free) {
    device = self->cuda.device_free->data;
    self->cuda.device_free = g_slist_delete_link (self->cuda.device_free,
        self->cuda.device_free);
  } else if (self->cuda.device_frames < self->cuda.max_device_frames) {
    device = bspline_cuda_motion_device_alloc (self->cuda.motion,
        self->cuda.device_frame_size);
    if (device == NULL) {
      /* no more device memory: the frames beyond go up from system
       * memory */
      GST_INFO_OBJECT (self, "%u device frames: %s", self->cuda.device_frames,
          bspline_cuda_motion_last_error (self->cuda.motion));
      self->cuda.max_device_frames = self->cuda.device_frames;
      return FALSE;
    }
    self->cuda.device_frames++;
  } else {
    return FALSE;
  }
  frame->device = device;
  *status = bspline_cuda_motion_upload (self->cuda.motion, device, (gint) n,
      host, offset, size);
  return *status == BSPLINE_OK;
}


/* The motion of a mapped frame on the GPU, from its device copy where it
 * has one (with the lens stage, from its undistorted analysis frame);
 * error says why it failed. */
static bspline_status
gst_bspline_stabilize_estimate_gpu (GstBSplineStabilize * self,
    GstVideoFrame * vframe, const bspline_luma_frame * luma,
    GstBSplineStabilizeFrame * frame, bspline_motion_result * r,
    gchar * error, gsize error_len)
{
  bspline_luma_frame analysis = *luma;
  bspline_status status;
  gboolean uploaded = gst_bspline_stabilize_upload (self, vframe, frame,
      &status);

  if (status == BSPLINE_OK && self->motion.analysis_plan) {
    status = gst_bspline_stabilize_undistort (self, vframe, frame, &analysis,
        error, error_len);
    if (status != BSPLINE_OK)
      return status;
  } else if (status == BSPLINE_OK && uploaded) {
    /* the luma (or R'G'B') lies in plane 0 */
    analysis.data = (const guint8 *) frame->device + frame->plane_offset[0]
        + ((const guint8 *) luma->data -
        (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (vframe, 0));
    analysis.stride = frame->plane_stride[0];
  }
  /* without a device frame of its own, a frame mapped as CUDA memory is
   * read where it is */
  if (status == BSPLINE_OK)
    status = bspline_cuda_motion_estimate (self->cuda.motion, &analysis,
        self->motion.analysis_plan == NULL && (uploaded
            || gst_bspline_stabilize_cuda_mapped_on_device (vframe)), r);
  if (status != BSPLINE_OK)
    g_strlcpy (error, bspline_cuda_motion_last_error (self->cuda.motion),
        error_len);
  return status;
}


/* No more frames on the GPU: those held back are warped from system
 * memory. */
static void
gst_bspline_stabilize_drop_gpu_motion (GstBSplineStabilize * self)
{
  GList *l;

  for (l = self->path.frames.head; l; l = l->next)
    gst_bspline_stabilize_cuda_release (self, l->data);
  gst_bspline_stabilize_free_device_frames (self);
  bspline_cuda_motion_free (self->cuda.motion);
  self->cuda.motion = NULL;
}

/* The GPU failed on the motion (error says why), with backend=auto: the
 * motion goes to the CPU, which first sees the previous frame where it is
 * still held back (else the current frame starts a new sequence). */
static gboolean
gst_bspline_stabilize_motion_to_cpu (GstBSplineStabilize * self,
    const gchar * error)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  GstBSplineStabilizeFrame *last;
  gchar msg[256];

  gst_bspline_engine_gpu_failed (&self->engine, GST_ELEMENT (self),
      "the motion estimation", error);
  gst_bspline_stabilize_drop_gpu_motion (self);
  if (gst_bspline_stabilize_motion_new_estimator (&self->motion, msg,
          sizeof (msg)) != BSPLINE_OK)
    return FALSE;
  last = g_queue_peek_tail (&self->path.frames);
  if (last) {
    GstVideoFrame vframe;
    bspline_luma_frame luma;
    bspline_motion_result ignored;

    if (gst_video_frame_map (&vframe, &filter->in_info, last->buffer,
            GST_MAP_READ)) {
      gst_bspline_stabilize_luma (&self->motion, &vframe, &luma);
      if (self->motion.analysis_plan == NULL
          || gst_bspline_stabilize_undistort (self, &vframe, last, &luma, msg,
              sizeof (msg)) == BSPLINE_OK)
        bspline_motion_estimate (self->motion.estimator, &luma, &ignored);
      gst_video_frame_unmap (&vframe);
    }
  }
  return TRUE;
}

/* With crop=keep-border, the device copy of the previous output frame,
 * made at the first warp of the caps: FALSE where there is no device
 * memory for it (said once, as a warning), and the border is then
 * composed on the CPU after the download. */
static gboolean
gst_bspline_stabilize_keep_border_device (GstBSplineStabilize * self,
    const GstVideoInfo * info)
{
  GstBSplineStabilizeCuda *cuda = &self->cuda;
  gsize size = 0;
  guint p;

  if (cuda->keep_device)
    return TRUE;
  if (cuda->keep_on_cpu)
    return FALSE;
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    bspline_image img;

    gst_bspline_frame_plane_image (info, NULL, p, &img);
    cuda->keep_pitch[p] = ((gsize) img.width * img.channels *
        bspline_sample_size (img.type) + 255) & ~(gsize) 255;
    cuda->keep_offset[p] = size;
    size += cuda->keep_pitch[p] * img.height;
  }
  cuda->keep_device = bspline_cuda_device_alloc (self->engine.cuda, size);
  if (cuda->keep_device == NULL) {
    GST_ELEMENT_WARNING (self, RESOURCE, NO_SPACE_LEFT,
        ("The GPU has no room for the previous frame of crop=keep-border "
            "(%s): the border is composed on the CPU.",
            bspline_cuda_last_error (self->engine.cuda)), (NULL));
    cuda->keep_on_cpu = TRUE;
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_bspline_stabilize_cuda_start_motion (GstBSplineStabilize * self,
    GstVideoInfo * in_info)
{
  GstBSplineStabilizeCuda *cuda = &self->cuda;
  gchar msg[256] = "";
  gsize size = 0;
  guint p;
  bspline_status status;

  if (self->engine.cuda == NULL)
    return TRUE;
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  /* on the engine's shared context, current here (set_info) */
  if (cuda->memory.engine_context)
    status = bspline_cuda_motion_new_current_context (&self->motion.params,
        self->motion.width, self->motion.height, &cuda->motion, msg,
        sizeof (msg));
  else
#endif
    status = bspline_cuda_motion_new (self->run.resample.cuda_device_id,
        &self->motion.params, self->motion.width, self->motion.height,
        &cuda->motion, msg, sizeof (msg));
  if (status != BSPLINE_OK)
    return gst_bspline_engine_cuda_unavailable (&self->engine,
        GST_ELEMENT (self), "the motion estimation on the GPU", msg);
  /* a frame's planes, each on 256-byte boundaries */
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (in_info); p++) {
    bspline_image img;

    gst_bspline_frame_plane_image (in_info, NULL, p, &img);
    size += ((gsize) GST_VIDEO_INFO_PLANE_STRIDE (in_info, p) *
        img.height + 255) & ~(gsize) 255;
  }
  cuda->device_frame_size = size;
  /* the frames held back, the one arriving and the one leaving */
  cuda->max_device_frames = MIN ((guint64) self->run.smoothing + 2,
      GST_BSPLINE_STABILIZE_DEVICE_BYTES / MAX (size, 1));
  GST_INFO_OBJECT (self, "motion on the GPU; up to %u frames of %"
      G_GSIZE_FORMAT " bytes kept there", cuda->max_device_frames, size);
  return TRUE;
}

GstFlowReturn
gst_bspline_stabilize_cuda_upload (GstBSplineStabilize * self,
    GstBSplineStabilizeFrame * frame)
{
  GstVideoFrame vframe;
  bspline_status status;

  if (self->cuda.motion == NULL)
    return GST_FLOW_OK;
  if (!gst_bspline_stabilize_map_input (self, frame, &vframe))
    return GST_FLOW_ERROR;
  if (!gst_bspline_stabilize_upload (self, &vframe, frame, &status)
      && status != BSPLINE_OK) {
    gst_bspline_stabilize_cuda_release (self, frame);
    if (self->run.resample.backend == GST_BSPLINE_BACKEND_CUDA) {
      gst_video_frame_unmap (&vframe);
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("The GPU failed on the upload of frame %" G_GUINT64_FORMAT
              ": %s.", self->path.n_in,
              bspline_cuda_motion_last_error (self->cuda.motion)),
          ("backend=cuda; with backend=auto the element would continue "
              "on the CPU"));
      return GST_FLOW_ERROR;
    }
    GST_ELEMENT_WARNING (self, RESOURCE, FAILED,
        ("The GPU failed on the upload of a frame (%s): frames go up "
            "from system memory from now on.",
            bspline_cuda_motion_last_error (self->cuda.motion)), (NULL));
    gst_bspline_stabilize_drop_gpu_motion (self);
  }
  gst_video_frame_unmap (&vframe);
  return GST_FLOW_OK;
}

GstFlowReturn
gst_bspline_stabilize_cuda_estimate (GstBSplineStabilize * self,
    GstVideoFrame * vframe, const bspline_luma_frame * luma,
    GstBSplineStabilizeFrame * frame, bspline_motion_result * r,
    gboolean * estimated)
{
  gchar error[512] = "";

  *estimated = FALSE;
  if (self->cuda.motion == NULL)
    return GST_FLOW_OK;
  if (gst_bspline_stabilize_estimate_gpu (self, vframe, luma, frame, r,
          error, sizeof (error)) == BSPLINE_OK) {
    *estimated = TRUE;
    return GST_FLOW_OK;
  }
  gst_bspline_stabilize_cuda_release (self, frame);
  if (self->run.resample.backend == GST_BSPLINE_BACKEND_CUDA
      || !gst_bspline_stabilize_motion_to_cpu (self, error)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("The GPU failed on the motion of frame %" G_GUINT64_FORMAT
            ": %s.", self->path.n_in, error), ("backend=%s",
            self->run.resample.backend ==
            GST_BSPLINE_BACKEND_CUDA ? "cuda; with "
            "backend=auto the element would continue on the CPU" :
            "auto, and the CPU estimator could not be made"));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

gboolean
gst_bspline_stabilize_cuda_undistort (GstBSplineStabilize * self,
    const bspline_image * src, const GstBSplineStabilizeFrame * frame,
    bspline_status * status, gchar * msg, gsize msg_len)
{
  bspline_image on_device = *src;
  gint slot = -1;

  if (self->engine.cuda == NULL)
    return FALSE;
  if (frame && frame->device) {
    on_device.data = (guint8 *) frame->device + frame->plane_offset[0];
    on_device.stride = frame->plane_stride[0];
  }
  *status = bspline_cuda_submit_placed (self->engine.cuda,
      self->motion.analysis_plan, &on_device, frame && frame->device,
      &self->motion.analysis, 0, &slot);
  if (*status == BSPLINE_OK)
    *status = bspline_cuda_finish (self->engine.cuda, slot);
  if (*status == BSPLINE_OK)
    return TRUE;
  g_strlcpy (msg, bspline_cuda_last_error (self->engine.cuda), msg_len);
  return !gst_bspline_stabilize_resample_to_cpu (self, msg);
}

gboolean
gst_bspline_stabilize_cuda_warp (GstBSplineStabilize * self,
    GstBSplineStabilizeFrame * frame, GstBSplineStabilizeWarpPlanes * planes,
    GstBuffer * out, gboolean with_previous, gboolean * kept,
    bspline_status * status, gchar * msg, gsize msg_len)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  GstBSplineStabilizeCuda *cuda = &self->cuda;
  bspline_cuda *engine = self->engine.cuda;
  gint slots[GST_VIDEO_MAX_PLANES];
  gboolean keep, keep_current;
  guint p;

  if (engine == NULL)
    return FALSE;
  keep = self->run.crop == GST_BSPLINE_STABILIZE_CROP_KEEP_BORDER
      && gst_bspline_stabilize_keep_border_device (self, &filter->out_info);
  /* the device copy holds previous where the last frame out came from
   * here, the one before this */
  keep_current = with_previous && self->path.previous == cuda->keep_of
      && frame->position == cuda->keep_position + 1;

  cuda->keep_of = NULL;
  for (p = 0; p < planes->n; p++) {
    bspline_image on_device = planes->src[p];
    bspline_cuda_keep_border kb = { planes->inverse[p], &planes->lens[p],
      planes->src[p].width, planes->src[p].height, NULL, 0, with_previous,
      NULL
    };

    slots[p] = -1;
    if (*status != BSPLINE_OK)
      continue;
    if (frame->device) {
      on_device.data = (guint8 *) frame->device + frame->plane_offset[p];
      on_device.stride = frame->plane_stride[p];
    }
    if (keep) {
      kb.previous = (guint8 *) cuda->keep_device + cuda->keep_offset[p];
      kb.previous_pitch = cuda->keep_pitch[p];
      kb.upload = with_previous && !keep_current ? &planes->previous[p] : NULL;
      *status = bspline_cuda_submit_keep_border (engine, planes->plans[p],
          &on_device, frame->device != NULL || planes->src_device,
          &planes->dst[p], planes->dst_device, &kb, &slots[p]);
    } else {
      *status = bspline_cuda_submit_placed (engine, planes->plans[p],
          &on_device, frame->device != NULL || planes->src_device,
          &planes->dst[p], planes->dst_device, &slots[p]);
    }
    if (*status != BSPLINE_OK) {
      g_strlcpy (msg, bspline_cuda_last_error (engine), msg_len);
      slots[p] = -1;
    }
  }
  /* every plane queued must land before the frames go away */
  for (p = 0; p < planes->n; p++)
    if (slots[p] >= 0 && bspline_cuda_finish (engine, slots[p])
        != BSPLINE_OK && *status == BSPLINE_OK) {
      *status = BSPLINE_ERROR_BACKEND;
      g_strlcpy (msg, bspline_cuda_last_error (engine), msg_len);
    }
  if (*status == BSPLINE_OK) {
    *kept = keep;
    if (keep) {
      cuda->keep_of = out;
      cuda->keep_position = frame->position;
    }
    return TRUE;
  }
  if (gst_bspline_stabilize_resample_to_cpu (self, msg))
    *status = BSPLINE_OK;
  return FALSE;
}

void
gst_bspline_stabilize_cuda_release (GstBSplineStabilize * self,
    GstBSplineStabilizeFrame * frame)
{
  if (frame->device)
    self->cuda.device_free = g_slist_prepend (self->cuda.device_free,
        frame->device);
  frame->device = NULL;
}

void
gst_bspline_stabilize_cuda_reset (GstBSplineStabilize * self)
{
  if (self->cuda.motion)
    bspline_cuda_motion_reset (self->cuda.motion);
}

void
gst_bspline_stabilize_cuda_clear (GstBSplineStabilize * self)
{
  gst_bspline_stabilize_free_device_frames (self);
  gst_bspline_stabilize_free_keep_border (self);
  bspline_cuda_motion_free (self->cuda.motion);
  self->cuda.motion = NULL;
}

gboolean
gst_bspline_stabilize_cuda_propose (GstBSplineStabilize * self,
    GstQuery * query, guint held, gboolean * ret)
{
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  GstCaps *caps;

  gst_query_parse_allocation (query, &caps, NULL);
  if (gst_bspline_cuda_memory_caps_are_cuda (caps)) {
    /* the frames held back, which the GPU reads in place */
    *ret = gst_bspline_cuda_memory_propose_pool (&self->cuda.memory, query,
        held);
    return TRUE;
  }
#endif
  if (self->engine.cuda == NULL)
    return FALSE;
  *ret = gst_bspline_pinned_propose (query, held,
      GST_BSPLINE_PINNED_CONTEXT (&self->cuda));
  return TRUE;
}

gboolean
gst_bspline_stabilize_cuda_decide_memory (GstBSplineStabilize * self,
    GstQuery * query, gboolean * ret)
{
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  GstCaps *caps;

  gst_query_parse_allocation (query, &caps, NULL);
  if (gst_bspline_cuda_memory_caps_are_cuda (caps)) {
    /* written in place by the warp: the frame going out and the previous
     * one, kept for keep-border, beside downstream's */
    *ret = gst_bspline_cuda_memory_decide_pool (GST_ELEMENT (self),
        &self->cuda.memory, query, 3, 2);
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
gst_bspline_stabilize_cuda_decide (GstBSplineStabilize * self, GstQuery * query)
{
  /* the frame going out and the previous one, kept for keep-border */
  if (self->engine.cuda != NULL && !gst_bspline_pinned_decide (query, 3, 2,
          GST_BSPLINE_PINNED_CONTEXT (&self->cuda)))
    GST_INFO_OBJECT (self, "no pinned pool: downloads go through staging");
}

gboolean
gst_bspline_stabilize_cuda_enter (GstBSplineStabilize * self)
{
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  return self->cuda.memory.engine_context != NULL
      && gst_cuda_context_push (self->cuda.memory.engine_context);
#else
  (void) self;
  return FALSE;
#endif
}

void
gst_bspline_stabilize_cuda_leave (G_GNUC_UNUSED GstBSplineStabilize * self,
    gboolean entered)
{
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  if (entered)
    gst_cuda_context_pop (NULL);
#else
  (void) entered;
#endif
}

gboolean
gst_bspline_stabilize_cuda_map (GstBSplineStabilize * self,
    GstVideoFrame * vframe, const GstVideoInfo * info, GstBuffer * buffer,
    GstMapFlags flags, gboolean estimate)
{
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  /* the motion reads the frame on the GPU (the lens stage's analysis
   * frame is resampled from host memory); the warp, unless keep-border
   * composes the border on the CPU */
  gboolean gpu = estimate ? self->cuda.motion != NULL
      && self->motion.analysis_plan == NULL : self->engine.cuda != NULL
      && !(self->run.crop == GST_BSPLINE_STABILIZE_CROP_KEEP_BORDER
      && self->cuda.keep_on_cpu);

  return gst_bspline_cuda_memory_map_frame (vframe, info, buffer, flags,
      gpu && gst_bspline_cuda_memory_on_device (&self->cuda.memory, buffer));
#else
  (void) self;
  (void) estimate;
  return gst_video_frame_map (vframe, (GstVideoInfo *) info, buffer, flags);
#endif
}

gboolean
gst_bspline_stabilize_cuda_mapped_on_device (const GstVideoFrame * vframe)
{
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  return (vframe->map[0].flags & GST_MAP_CUDA) != 0;
#else
  (void) vframe;
  return FALSE;
#endif
}

#ifdef HAVE_BSPLINE_CUDA_MEMORY
bspline_status
gst_bspline_stabilize_cuda_new_engine (GstElement * element, gint device_id,
    struct bspline_cuda **cuda, gchar * msg, gsize msg_len)
{
  return gst_bspline_cuda_memory_start_engine (element,
      &GST_BSPLINE_STABILIZE (element)->cuda.memory, device_id, cuda, msg,
      msg_len);
}

/* An engine made at start on the device's primary context is replaced
 * (set_info: no frame held back, no device frame left), since device
 * pointers of cudaupload, cudadownload and the decoders are valid only in
 * the pipeline's context. */
gboolean
gst_bspline_stabilize_cuda_negotiate_memory (GstBSplineStabilize * self,
    GstCaps * incaps, GstCaps * outcaps)
{
  GstBSplineCudaMemory *m = &self->cuda.memory;
  gchar msg[256] = "";

  m->in_cuda = gst_bspline_cuda_memory_caps_are_cuda (incaps);
  m->out_cuda = gst_bspline_cuda_memory_caps_are_cuda (outcaps);
  if (!m->in_cuda && !m->out_cuda)
    return TRUE;
  if (!gst_bspline_cuda_memory_ensure_context (GST_ELEMENT (self), m,
          self->run.resample.cuda_device_id))
    goto no_context;
  if (self->engine.cuda == NULL || m->engine_context == m->context)
    return TRUE;
  /* the old engine's device memory (keep-border's) went with the old
   * caps: gst_bspline_stabilize_cuda_clear */
  if (m->engine_context && gst_cuda_context_push (m->engine_context)) {
    gst_bspline_engine_free_cuda (&self->engine);
    gst_cuda_context_pop (NULL);
  } else {
    gst_bspline_engine_free_cuda (&self->engine);
  }
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
            self->run.resample.cuda_device_id));
    return FALSE;
  }
no_engine:
  {
    return gst_bspline_engine_cuda_unavailable (&self->engine,
        GST_ELEMENT (self), "the CUDA engine on the pipeline's CUDA context",
        msg);
  }
}

gboolean
gst_bspline_stabilize_cuda_same_memory (GstBSplineStabilize * self)
{
  return self->cuda.memory.in_cuda == self->cuda.memory.out_cuda;
}

GstCaps *
gst_bspline_stabilize_cuda_transform_caps (GstBSplineStabilize * self,
    GstCaps * caps)
{
  gboolean with_cuda;

  GST_OBJECT_LOCK (self);
  with_cuda = self->settings.resample.backend != GST_BSPLINE_BACKEND_CPU;
  GST_OBJECT_UNLOCK (self);
  return gst_bspline_cuda_memory_transform_caps (caps, with_cuda
      && gst_bspline_cuda_memory_usable ());
}

void
gst_bspline_stabilize_cuda_set_context (GstBSplineStabilize * self,
    GstContext * context)
{
  gint device_id;

  GST_OBJECT_LOCK (self);
  device_id = self->settings.resample.cuda_device_id;
  GST_OBJECT_UNLOCK (self);
  gst_bspline_cuda_memory_set_context (GST_ELEMENT (self),
      &self->cuda.memory, context, device_id);
}

gboolean
gst_bspline_stabilize_cuda_query (GstBSplineStabilize * self, GstQuery * query)
{
  return GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT
      && gst_bspline_cuda_memory_context_query (GST_ELEMENT (self),
      &self->cuda.memory, query);
}

void
gst_bspline_stabilize_cuda_query_result (GstBSplineStabilize * self,
    GstPadDirection direction, GstQuery * query)
{
  GstCaps *filter, *result, *cuda;

  if (direction != GST_PAD_SINK || GST_QUERY_TYPE (query) != GST_QUERY_CAPS)
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

void
gst_bspline_stabilize_cuda_clear_memory (GstBSplineStabilize * self)
{
  /* as nvcodec's elements: the next start takes the pipeline's again */
  gst_bspline_cuda_memory_clear (&self->cuda.memory);
}
#endif
