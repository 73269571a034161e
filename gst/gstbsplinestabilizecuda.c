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
 * stand-ins). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstbsplinestabilizeprivate.h"
#include "gstbsplineframe.h"
#include "gstbsplinepinned.h"
#include "bspline-cuda.h"
#include "bspline-cuda-motion.h"

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
  if (status == BSPLINE_OK)
    status = bspline_cuda_motion_estimate (self->cuda.motion, &analysis,
        uploaded && self->motion.analysis_plan == NULL, r);
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

  if (self->engine.cuda == NULL)
    return TRUE;
  if (bspline_cuda_motion_new (self->run.resample.cuda_device_id,
          &self->motion.params, self->motion.width, self->motion.height,
          &cuda->motion, msg, sizeof (msg)) != BSPLINE_OK)
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
          &on_device, frame->device != NULL, &planes->dst[p], 0, &kb,
          &slots[p]);
    } else {
      *status = bspline_cuda_submit_placed (engine, planes->plans[p],
          &on_device, frame->device != NULL, &planes->dst[p], 0, &slots[p]);
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
  if (self->engine.cuda == NULL)
    return FALSE;
  *ret = gst_bspline_pinned_propose (query, held);
  return TRUE;
}

void
gst_bspline_stabilize_cuda_decide (GstBSplineStabilize * self, GstQuery * query)
{
  /* the frame going out and the previous one, kept for keep-border */
  if (self->engine.cuda != NULL && !gst_bspline_pinned_decide (query, 3, 2))
    GST_INFO_OBJECT (self, "no pinned pool: downloads go through staging");
}
