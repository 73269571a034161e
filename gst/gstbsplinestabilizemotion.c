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

/* bsplinestabilize's motion estimation: the camera motion between
 * consecutive frames, from their luma (or R'G'B'), on the CPU or on the
 * GPU (gstbsplinestabilizecuda.c); with a lens stage, from the undistorted
 * frame at the analysis resolution (docs/stabilization.md). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstbsplinestabilizeprivate.h"
#include "gstbsplineframe.h"

#define GST_CAT_DEFAULT gst_bspline_stabilize_debug

/* The lens stage's plan of the analysis (see analysis_plan): the map of
 * plane 0 with no correction, its output pixels factor times larger; a
 * linear B-spline widened where the map shrinks (the estimator's own
 * averaging is a box of factor x factor pixels), the frame's edges
 * reflected rather than filled (a constant border would hold the motion
 * still). */
static gboolean
gst_bspline_stabilize_analysis_plan (GstBSplineStabilize * self,
    GstVideoInfo * in_info, gint factor)
{
  bspline_geometry geometry;
  bspline_plane_grid grid;
  bspline_params params;
  bspline_image src;
  bspline_lens lens;
  bspline_status status;
  gdouble inverse[9];
  GstBSplineStabilizeMotion *motion = &self->motion;
  gchar msg[256] = "";
  gint i;

  if (self->run.lens.direction != 0) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("bsplinestabilize cannot "
            "use lens-direction=distort: it stabilizes the undistorted view "
            "of a lens (lens-direction=undistort)."), (NULL));
    return FALSE;
  }
  gst_bspline_stabilize_geometry (self, in_info, NULL, &geometry);
  gst_bspline_frame_plane_grid (in_info, self->chroma_site, 0, &grid);
  gst_bspline_frame_plane_image (in_info, NULL, 0, &src);
  gst_bspline_settings_plane_params (&self->run.resample, in_info, 0, &src,
      &params);
  params.method = BSPLINE_METHOD_BSPLINE;
  params.order = 1;
  params.boundary = BSPLINE_BOUNDARY_REFLECT;
  params.precision = BSPLINE_PRECISION_FLOAT;
  params.antialias = BSPLINE_ANTIALIAS_WIDEN;
  status = bspline_geometry_plane_map (&geometry, &grid, inverse, &lens, msg,
      sizeof (msg));
  /* analysis pixel coordinates are the output's divided by factor */
  for (i = 0; i < 3; i++) {
    inverse[3 * i] *= factor;
    inverse[3 * i + 1] *= factor;
  }
  motion->analysis = src;
  motion->analysis.width = src.width / factor;
  motion->analysis.height = src.height / factor;
  motion->analysis.stride = (gssize) motion->analysis.width * src.channels;
  if (status == BSPLINE_OK)
    status = bspline_plan_new_lens (&params, inverse, &lens, src.width,
        src.height, motion->analysis.width, motion->analysis.height,
        src.channels, &motion->analysis_plan, msg, sizeof (msg));
  if (status == BSPLINE_ERROR_INVALID_TRANSFORM
      || status == BSPLINE_ERROR_INVALID_ARGUMENT) {
    gchar *text = gst_bspline_settings_lens_describe (&self->run.lens);

    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("The lens stage cannot be used: %s (%s).", msg, text),
        ("%dx%d frames", src.width, src.height));
    g_free (text);
    return FALSE;
  }
  motion->analysis.data = status == BSPLINE_OK ?
      g_try_malloc ((gsize) motion->analysis.stride * motion->analysis.height) :
      NULL;
  if (motion->analysis.data == NULL) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Not enough memory to undistort %dx%d frames for the motion.",
            src.width, src.height), ("%s", msg));
    return FALSE;
  }
  motion->analysis_factor = factor;
  return TRUE;
}

/* luma cut to the analysis region (its pixels: the frame's, or with the
 * lens stage the analysis frame's). */
static void
gst_bspline_stabilize_cut_region (const GstBSplineStabilizeMotion * motion,
    bspline_luma_frame * luma)
{
  luma->data += motion->region_y * luma->stride
      + (ptrdiff_t) motion->region_x * luma->pixel_stride;
  luma->width = motion->width;
  luma->height = motion->height;
}

void
gst_bspline_stabilize_luma (const GstBSplineStabilizeMotion * motion,
    GstVideoFrame * frame, bspline_luma_frame * luma)
{
  const GstVideoInfo *info = &frame->info;

  memset (luma, 0, sizeof (*luma));
  luma->width = GST_VIDEO_INFO_WIDTH (info);
  luma->height = GST_VIDEO_INFO_HEIGHT (info);
  if (GST_VIDEO_INFO_IS_RGB (info)) {
    luma->data = GST_VIDEO_FRAME_PLANE_DATA (frame, 0);
    luma->stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);
    luma->pixel_stride = GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);
    luma->offset_r = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_R);
    luma->offset_g = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_G);
    luma->offset_b = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_B);
  } else {
    luma->data = GST_VIDEO_FRAME_COMP_DATA (frame, GST_VIDEO_COMP_Y);
    luma->stride = GST_VIDEO_FRAME_COMP_STRIDE (frame, GST_VIDEO_COMP_Y);
    luma->pixel_stride = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, GST_VIDEO_COMP_Y);
    luma->offset_y = 0;
    luma->offset_r = -1;
  }
  if (motion->analysis_plan == NULL)
    gst_bspline_stabilize_cut_region (motion, luma);
}


/* With the lens stage, the frame the motion is estimated on: plane 0 of
 * vframe undistorted at the analysis resolution by analysis_plan (on the
 * GPU where there is one, from the frame's device copy where it has one),
 * in place of luma's pixels (its layout of R'G'B' or grey bytes stays);
 * msg says why it failed. */
bspline_status
gst_bspline_stabilize_undistort (GstBSplineStabilize * self,
    GstVideoFrame * vframe, const GstBSplineStabilizeFrame * frame,
    bspline_luma_frame * luma, gchar * msg, gsize msg_len)
{
  GstBSplineStabilizeMotion *motion = &self->motion;
  bspline_image src;
  bspline_status status = BSPLINE_ERROR_BACKEND;

  gst_bspline_frame_plane_image (&vframe->info, vframe, 0, &src);
  if (gst_bspline_stabilize_cuda_undistort (self, &src, frame, &status, msg,
          msg_len) && status != BSPLINE_OK)
    return status;
  if (status != BSPLINE_OK) {
    status = bspline_cpu_execute (self->engine.cpu, motion->analysis_plan,
        &src, &motion->analysis);
    if (status != BSPLINE_OK) {
      g_strlcpy (msg, bspline_cpu_last_error (self->engine.cpu), msg_len);
      return status;
    }
  }
  luma->data = motion->analysis.data;
  luma->stride = motion->analysis.stride;
  gst_bspline_stabilize_cut_region (motion, luma);
  return BSPLINE_OK;
}

/* A motion estimated on the region cut from the frame (or from the
 * analysis frame of the lens stage) in the frame's pixels: the region's
 * pixel (0, 0) is the frame's (region_x, region_y), M = T o M' o T^-1 with
 * T that shift; the analysis pixels' edges are analysis_factor frame
 * pixels apart, from the same origin. */
static void
gst_bspline_stabilize_motion_to_frame (GstBSplineStabilizeMotion * motion,
    bspline_motion_result * r)
{
  gdouble *m = r->motion.m, x = motion->region_x, y = motion->region_y;

  m[2] += x - m[0] * x - m[1] * y;
  m[5] += y - m[3] * x - m[4] * y;
  if (motion->analysis_plan == NULL)
    return;
  m[2] *= motion->analysis_factor;
  m[5] *= motion->analysis_factor;
}

/* analysis-region (fractions of the frame) on frames of width x height
 * pixels: the whole frame where it is unset; FALSE after an element error
 * where it is not a rectangle inside the frame with sides of at least
 * BSPLINE_MOTION_MIN_SIDE pixels. */
static gboolean
gst_bspline_stabilize_region (GstBSplineStabilize * self, gint width,
    gint height)
{
  const GstBSplineNumbers *r = &self->run.analysis_region;
  GstBSplineStabilizeMotion *motion = &self->motion;
  gint x0, y0, x1, y1;

  motion->region_x = 0;
  motion->region_y = 0;
  motion->width = width;
  motion->height = height;
  if (r->n == 0)
    return TRUE;
  if (r->n != 4 || !(r->v[0] >= 0.0 && r->v[1] >= 0.0 && r->v[2] > 0.0
          && r->v[3] > 0.0 && r->v[0] + r->v[2] <= 1.0 + 1e-9
          && r->v[1] + r->v[3] <= 1.0 + 1e-9))
    goto bad_region;
  x0 = (gint) lround (r->v[0] * width);
  y0 = (gint) lround (r->v[1] * height);
  x1 = MIN ((gint) lround ((r->v[0] + r->v[2]) * width), width);
  y1 = MIN ((gint) lround ((r->v[1] + r->v[3]) * height), height);
  if (x1 - x0 < BSPLINE_MOTION_MIN_SIDE || y1 - y0 < BSPLINE_MOTION_MIN_SIDE)
    goto too_small;
  motion->region_x = x0;
  motion->region_y = y0;
  motion->width = x1 - x0;
  motion->height = y1 - y0;
  GST_INFO_OBJECT (self, "motion measured in %dx%d pixels at (%d, %d) of "
      "%dx%d", motion->width, motion->height, x0, y0, width, height);
  return TRUE;

  /* ERRORS */
bad_region:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("analysis-region must be "
            "<x, y, w, h>, fractions of the frame with x, y >= 0, w, h > 0, "
            "x + w <= 1 and y + h <= 1 (or empty: the whole frame)."),
        ("%u numbers given", r->n));
    return FALSE;
  }
too_small:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("analysis-region <%g, %g, "
            "%g, %g> is %dx%d pixels of the %dx%d frames the motion is "
            "measured on: each side must be at least %d.", r->v[0], r->v[1],
            r->v[2], r->v[3], x1 - x0, y1 - y0, width, height,
            BSPLINE_MOTION_MIN_SIDE), (NULL));
    return FALSE;
  }
}

gboolean
gst_bspline_stabilize_motion_start (GstBSplineStabilize * self,
    GstVideoInfo * in_info)
{
  GstBSplineStabilizeMotion *motion = &self->motion;
  bspline_motion_params mp;
  gint w = GST_VIDEO_INFO_WIDTH (in_info), h = GST_VIDEO_INFO_HEIGHT (in_info);

  bspline_motion_params_init (&mp);
  /* the rotation model fits the camera's rotation to an affine motion */
  mp.model = self->run.motion_model == BSPLINE_MOTION_ROTATION ?
      BSPLINE_MOTION_AFFINE : self->run.motion_model;
  /* with the rolling-shutter correction, affine: the readout's shear kept
   * apart from the rotation (gst_bspline_stabilize_rolling_motion) */
  if (self->run.rolling_readout != 0.0)
    mp.model = BSPLINE_MOTION_AFFINE;
  mp.n_threads = (int) self->run.resample.n_threads;
  /* with the lens stage, the estimator sees the undistorted frame at its
   * analysis resolution, and averages it no further */
  if (gst_bspline_settings_lens_model (&self->run.lens) != BSPLINE_LENS_NONE) {
    gint factor = bspline_motion_analysis_factor (&mp, w, h);

    if (!gst_bspline_stabilize_analysis_plan (self, in_info, factor))
      return FALSE;
    w = motion->analysis.width;
    h = motion->analysis.height;
    mp.analysis_width = w;
    mp.search_range /= factor;
  }
  /* the estimator sees the region alone */
  if (!gst_bspline_stabilize_region (self, w, h))
    return FALSE;
  motion->params = mp;
  return TRUE;
}

bspline_status
gst_bspline_stabilize_motion_new_estimator (GstBSplineStabilizeMotion *
    motion, gchar * msg, gsize msg_len)
{
  return bspline_motion_estimator_new (&motion->params, motion->width,
      motion->height, &motion->estimator, msg, msg_len);
}

GstFlowReturn
gst_bspline_stabilize_motion_estimate (GstBSplineStabilize * self,
    GstBSplineStabilizeFrame * frame, bspline_motion_result * r)
{
  GstVideoFrame vframe;
  bspline_luma_frame luma;
  gboolean estimated = FALSE;
  gchar error[512] = "";
  GstFlowReturn ret;

  if (!gst_bspline_stabilize_map_input (self, frame, &vframe))
    return GST_FLOW_ERROR;
  gst_bspline_stabilize_luma (&self->motion, &vframe, &luma);
  ret = gst_bspline_stabilize_cuda_estimate (self, &vframe, &luma, frame, r,
      &estimated);
  /* the GPU failed with backend=auto: the CPU reads a frame mapped as CUDA
   * memory through its staging copy */
  if (ret == GST_FLOW_OK && !estimated
      && gst_bspline_stabilize_cuda_mapped_on_device (&vframe)) {
    gst_video_frame_unmap (&vframe);
    if (!gst_bspline_stabilize_map_input (self, frame, &vframe))
      return GST_FLOW_ERROR;
    gst_bspline_stabilize_luma (&self->motion, &vframe, &luma);
  }
  if (ret == GST_FLOW_OK && !estimated && self->motion.analysis_plan
      && gst_bspline_stabilize_undistort (self, &vframe, frame, &luma,
          error, sizeof (error)) != BSPLINE_OK)
    goto undistort_failed;
  if (ret == GST_FLOW_OK && !estimated
      && bspline_motion_estimate (self->motion.estimator, &luma, r)
      != BSPLINE_OK)
    goto estimate_failed;
  gst_video_frame_unmap (&vframe);
  if (ret == GST_FLOW_OK)
    gst_bspline_stabilize_motion_to_frame (&self->motion, r);
  return ret;

  /* ERRORS */
undistort_failed:
  {
    gst_video_frame_unmap (&vframe);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Undistorting frame %"
            G_GUINT64_FORMAT " for the motion estimation failed: %s.",
            self->path.n_in, error), ("backend=%s",
            self->run.resample.backend == GST_BSPLINE_BACKEND_CUDA ? "cuda" :
            "auto or cpu"));
    return GST_FLOW_ERROR;
  }
estimate_failed:
  {
    gst_video_frame_unmap (&vframe);
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("The motion of frame %" G_GUINT64_FORMAT " could not be estimated.",
            self->path.n_in), ("out of memory"));
    return GST_FLOW_ERROR;
  }
}

void
gst_bspline_stabilize_motion_reset (GstBSplineStabilizeMotion * motion)
{
  if (motion->estimator)
    bspline_motion_estimator_reset (motion->estimator);
}

void
gst_bspline_stabilize_motion_clear (GstBSplineStabilizeMotion * motion)
{
  bspline_motion_estimator_free (motion->estimator);
  motion->estimator = NULL;
  bspline_plan_free (motion->analysis_plan);
  motion->analysis_plan = NULL;
  g_free (motion->analysis.data);
  motion->analysis.data = NULL;
}

/* rolling-shutter-readout: the frames before the oldest held back whose
 * bands join the trajectory's solve (at least a few, else the look-ahead's
 * length), and the STMap's rows per frame row. */
#define ROLLING_MIN_PAST 8
/* rolling-shutter-readout=-1: the frames whose bands make the estimate
 * that is kept (docs/notes/rolling-shutter-readout-estimate.md: within
 * 0.025 from 10 frames on the test clip) */
#define ROLLING_ESTIMATE_FRAMES 10
#define ROLLING_MAP_STEP 4

gboolean
gst_bspline_stabilize_rolling_start (GstBSplineStabilize * self,
    GstVideoInfo * in_info)
{
  GstBSplineStabilizeRolling *rolling = &self->rolling;
  const GstBSplineTransformsFile *file = self->transforms.file;
  gint w = GST_VIDEO_INFO_WIDTH (in_info), h = GST_VIDEO_INFO_HEIGHT (in_info);
  gdouble readout = self->run.rolling_readout;
  gchar msg[256] = "";

  /* a file read must carry the bands exactly when the correction is on:
   * a version 3 file's motion leaves the readout's shear to it */
  if (file && readout > 0.0 && file->n_bands == 0)
    goto file_without_bands;
  if (file && readout <= 0.0 && file->n_bands > 0)
    goto file_with_bands;
  if (readout == 0.0)
    return TRUE;
  if (gst_bspline_settings_lens_model (&self->run.lens) != BSPLINE_LENS_NONE)
    goto with_lens;
  bspline_rolling_params_init (&rolling->params, h);
  /* -1: estimated from the first frames' bands (no correction before) */
  rolling->estimate = readout < 0.0;
  rolling->estimated = FALSE;
  rolling->params.readout = rolling->estimate ? 0.0 : readout;
  /* the second pass: the file's bands, nothing measured (the trajectory is
   * solved over each section as it starts) */
  if (file) {
    rolling->params.n_bands = file->n_bands;
    if (bspline_rolling_params_validate (&rolling->params, msg,
            sizeof (msg)) != BSPLINE_OK)
      goto failed;
    rolling->on = TRUE;
    return TRUE;
  }
  /* the bands are measured on the whole frame (analysis-region is the
   * global motion's), with the global motion's estimator settings */
  if (bspline_rolling_meter_new (&rolling->params, &self->motion.params, w,
          &rolling->meter, msg, sizeof (msg)) != BSPLINE_OK)
    goto failed;
  rolling->past = g_array_new (FALSE, FALSE, sizeof (GstBSplineStabilizeBands));
  rolling->on = TRUE;
  return TRUE;

  /* ERRORS */
file_without_bands:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("rolling-shutter-readout="
            "%g needs the bands' motion, which the transforms file \"%s\" "
            "(version %d) does not carry: write it again with "
            "rolling-shutter-readout set (a version 3 file), or set "
            "rolling-shutter-readout=0.", readout, file->path,
            file->version), (NULL));
    return FALSE;
  }
file_with_bands:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("The transforms file "
            "\"%s\" was written with rolling-shutter-readout=%g: its motion "
            "leaves the readout's part to the rolling-shutter correction, "
            "which rolling-shutter-readout=0 turns off; set "
            "rolling-shutter-readout (the file's %g, or another value to "
            "correct with).", file->path, file->readout, file->readout),
        (NULL));
    return FALSE;
  }
with_lens:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("rolling-shutter-readout "
            "cannot be used here: it takes the lens stage's place in the "
            "warp (lens-model must be none)."), (NULL));
    return FALSE;
  }
failed:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("rolling-shutter-readout "
            "cannot be used on %dx%d frames: %s.", w, h, msg), (NULL));
    return FALSE;
  }
}

GstFlowReturn
gst_bspline_stabilize_rolling_measure (GstBSplineStabilize * self,
    GstBSplineStabilizeFrame * frame, const bspline_affine * global)
{
  GstBSplineStabilizeMotion whole = self->motion;
  GstVideoFrame vframe;
  bspline_luma_frame luma;
  bspline_status status;

  if (self->rolling.meter == NULL)
    return GST_FLOW_OK;
  if (!gst_bspline_stabilize_map_input (self, frame, &vframe))
    return GST_FLOW_ERROR;
  whole.region_x = 0;
  whole.region_y = 0;
  whole.width = GST_VIDEO_FRAME_WIDTH (&vframe);
  whole.height = GST_VIDEO_FRAME_HEIGHT (&vframe);
  gst_bspline_stabilize_luma (&whole, &vframe, &luma);
  status = bspline_rolling_meter_measure (self->rolling.meter, &luma,
      global, frame->bands.motion, frame->bands.reliable);
  gst_video_frame_unmap (&vframe);
  if (status == BSPLINE_OK)
    return GST_FLOW_OK;
  GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
      ("The rolling-shutter motion of frame %" G_GUINT64_FORMAT " could not "
          "be estimated.", frame->position), ("%s",
          bspline_status_string (status)));
  return GST_FLOW_ERROR;
}

/* rolling-shutter-readout=-1: the readout estimated from the bands of
 * the n frames the first corrections are solved over, again with each
 * frame until ROLLING_ESTIMATE_FRAMES are there (then kept for the caps;
 * with fewer than BSPLINE_ROLLING_ESTIMATE_MIN_FRAMES, 0: no
 * correction), and posted once kept. */
static void
gst_bspline_stabilize_rolling_estimate (GstBSplineStabilize * self, gint n,
    const gdouble * motion, const gint * reliable)
{
  GstBSplineStabilizeRolling *rolling = &self->rolling;
  gdouble readout;
  gchar msg[256] = "";

  if (n < BSPLINE_ROLLING_ESTIMATE_MIN_FRAMES)
    return;
  if (bspline_rolling_estimate_readout (&rolling->params, n, motion,
          reliable, &readout, msg, sizeof (msg)) != BSPLINE_OK) {
    GST_DEBUG_OBJECT (self, "no readout estimate from %d frames: %s", n, msg);
    return;
  }
  rolling->params.readout = readout;
  if (n < ROLLING_ESTIMATE_FRAMES)
    return;
  rolling->estimated = TRUE;
  GST_INFO_OBJECT (self, "rolling-shutter readout estimated from %d frames: "
      "%.4f of the frame interval", n, readout);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self),
          gst_structure_new ("bsplinestabilize-readout", "readout",
              G_TYPE_DOUBLE, readout, "frames", G_TYPE_INT, n, NULL)));
}

/* The trajectory over the frames before (past), `head` (NULL: none), those
 * held back and `tail` (NULL: none), in that order: *n frames, *knots
 * (g_free) of *n_knots. */
static bspline_status
gst_bspline_stabilize_rolling_solve (GstBSplineStabilize * self,
    const GstBSplineStabilizeFrame * head,
    const GstBSplineStabilizeFrame * tail, gint * n, gdouble ** knots,
    gint * n_knots, gchar * msg, gsize msg_len)
{
  GstBSplineStabilizeRolling *rolling = &self->rolling;
  const bspline_rolling_params *rp = &rolling->params;
  gint kb = rp->n_bands, n_past = (gint) rolling->past->len;
  gint n_held = (gint) g_queue_get_length (&self->path.frames), i;
  gdouble *motion;
  gint *reliable;
  bspline_status status;

  *n = n_past + (head != NULL) + n_held + (tail != NULL);
  motion = g_new (gdouble, (gsize) * n * kb * 2);
  reliable = g_new (gint, (gsize) * n * kb);
  *n_knots = bspline_rolling_n_knots (rp, *n);
  *knots = g_new (gdouble, (gsize) * n_knots * 2);
  for (i = 0; i < *n; i++) {
    const GstBSplineStabilizeBands *b;
    gint j = i - n_past - (head != NULL);

    if (i < n_past)
      b = &g_array_index (rolling->past, GstBSplineStabilizeBands, i);
    else if (j < 0)
      b = &head->bands;
    else if (j < n_held)
      b = &((GstBSplineStabilizeFrame *)
          g_queue_peek_nth (&self->path.frames, j))->bands;
    else
      b = &tail->bands;
    memcpy (motion + (gsize) i * kb * 2, b->motion, sizeof (gdouble) * kb * 2);
    memcpy (reliable + (gsize) i * kb, b->reliable, sizeof (gint) * kb);
  }
  if (rolling->estimate && !rolling->estimated)
    gst_bspline_stabilize_rolling_estimate (self, *n, motion, reliable);
  status = bspline_rolling_solve (rp, *n, motion, reliable, *knots, msg,
      msg_len);
  g_free (motion);
  g_free (reliable);
  return status;
}

void
gst_bspline_stabilize_rolling_motion (GstBSplineStabilize * self,
    bspline_affine * motion)
{
  GstVideoInfo *info = &GST_VIDEO_FILTER (self)->in_info;
  gdouble *m = motion->m, cx = 0.5 * GST_VIDEO_INFO_WIDTH (info);
  gdouble cy = 0.5 * GST_VIDEO_INFO_HEIGHT (info), dx, dy;

  if (self->rolling.meter == NULL)
    return;
  /* the readout shears the frames and scales them vertically (a motion
   * across, down), but leaves how a row turns and scales: the column
   * (m1, m4) is taken from the row's (m0, m3) as a similarity's, about the
   * centre, which keeps its motion */
  bspline_affine_decompose (motion, cx, cy, &dx, &dy, NULL, NULL);
  m[1] = -m[3];
  m[4] = m[0];
  m[2] = cx + dx - m[0] * cx - m[1] * cy;
  m[5] = cy + dy - m[3] * cx - m[4] * cy;
}

bspline_status
gst_bspline_stabilize_rolling_map (GstBSplineStabilize * self,
    GstBSplineStabilizeFrame * frame, bspline_stmap ** map, gchar * msg,
    gsize msg_len)
{
  GstBSplineStabilizeRolling *rolling = &self->rolling;
  const bspline_rolling_params *rp = &rolling->params;
  GstVideoInfo *info = &GST_VIDEO_FILTER (self)->in_info;
  gint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  gint n, n_knots, i, j, mw, mh, index;
  gdouble *knots = NULL, *st;
  const gdouble *trajectory;
  bspline_status status = BSPLINE_OK;

  *map = NULL;
  if (!rolling->on)
    return BSPLINE_OK;
  if (rolling->meter) {
    index = (gint) rolling->past->len;
    status = gst_bspline_stabilize_rolling_solve (self, frame, NULL, &n,
        &knots, &n_knots, msg, msg_len);
    trajectory = knots;
  } else {
    /* the transforms file's section, solved whole as it started */
    index = (gint) frame->record;
    trajectory = self->transforms.knots;
    n_knots = self->transforms.n_knots;
  }
  /* the map: ROLLING_MAP_STEP frame rows a sample, of the frame's aspect
   * ratio; the correction moves whole rows, so a row's samples differ by
   * their columns alone */
  mh = MAX (2, (h + ROLLING_MAP_STEP - 1) / ROLLING_MAP_STEP);
  mw = MAX (2, (gint) lround ((gdouble) mh * w / h));
  st = g_new (gdouble, (gsize) mw * mh * 2);
  for (j = 0; status == BSPLINE_OK && j < mh; j++) {
    gdouble dx, y;

    bspline_rolling_source (rp, trajectory, n_knots, index, 0.0,
        (j + 0.5) * h / mh, &dx, &y);
    for (i = 0; i < mw; i++) {
      st[2 * ((gsize) j * mw + i)] = ((i + 0.5) * w / mw + dx) / w;
      st[2 * ((gsize) j * mw + i) + 1] = 1.0 - y / h;
    }
  }
  if (status == BSPLINE_OK)
    status = bspline_stmap_new (st, mw, mh, map, msg, msg_len);
  g_free (st);
  g_free (knots);
  return status;
}

void
gst_bspline_stabilize_rolling_pass (GstBSplineStabilize * self,
    const GstBSplineStabilizeFrame * frame)
{
  GstBSplineStabilizeRolling *rolling = &self->rolling;
  guint keep = MAX (ROLLING_MIN_PAST, self->run.smoothing);

  if (rolling->meter == NULL)
    return;
  g_array_append_val (rolling->past, frame->bands);
  if (rolling->past->len > keep)
    g_array_remove_range (rolling->past, 0, rolling->past->len - keep);
}

void
gst_bspline_stabilize_rolling_reset (GstBSplineStabilizeRolling * rolling)
{
  if (rolling->meter == NULL)
    return;
  bspline_rolling_meter_reset (rolling->meter);
  g_array_set_size (rolling->past, 0);
}

void
gst_bspline_stabilize_rolling_clear (GstBSplineStabilizeRolling * rolling)
{
  rolling->on = FALSE;
  bspline_rolling_meter_free (rolling->meter);
  rolling->meter = NULL;
  if (rolling->past)
    g_array_unref (rolling->past);
  rolling->past = NULL;
}
