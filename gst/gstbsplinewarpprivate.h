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

/* The bsplinewarp element's instance, shared by its modules: caps
 * (gstbsplinewarpcaps.c), planes (gstbsplinewarpplanes.c), the CUDA
 * frames in flight (gstbsplinewarpcuda.c) and the STMap stage
 * (gstbsplinewarpstmap.c).  Not installed. */

#ifndef __GST_BSPLINE_WARP_PRIVATE_H__
#define __GST_BSPLINE_WARP_PRIVATE_H__

#include "gstbsplinewarp.h"
#include "gstbsplineengine.h"
#include "gstbsplinechain.h"
#include "gstbsplinelinear.h"
#include "gstbsplinewarpcuda.h"
#include "gstbsplinewarpplanes.h"
#include "gstbsplinewarpstmap.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_bspline_warp_debug);

struct _GstBSplineWarp
{
  GstVideoFilter parent;

  /* behind the object lock */
  GstBSplineWarpSettings settings;
  /* the settings of the last frame, for navigation events */
  GstBSplineWarpSettings shown;
  gboolean shown_valid;
  GstBSplineWarpStmap stmap;    /* its location and shown map locked too */

  /* streaming thread only */
  GstBSplineWarpSettings frame; /* snapshot for the buffer in flight */
  GstBSplineEngine engine;
  GstBSplineWarpPlanes planes;
  GstBSplineWarpCuda cuda;
  GstBSplineChainDefer defer;  /* defer=true: whether it can */
};

/* The properties, copied under the object lock. */
void gst_bspline_warp_snapshot (GstBSplineWarp * self,
    GstBSplineWarpSettings * settings);

/* Everything a frame needs before its planes run: the CPU engine with the
 * frame's thread count, the buffer's layouts, the geometry and up-to-date
 * plans. */
GstFlowReturn gst_bspline_warp_prepare_frame (GstBSplineWarp * self,
    GstBuffer * inbuf, bspline_geometry * geometry, GstBSplineFields * fields);

/* gamma-mode=remap: *remap TRUE and linear set up for the frame's caps,
 * or an element error where they cannot be resampled in linear light;
 * gamma-mode=none: *remap FALSE. */
GstFlowReturn gst_bspline_warp_linear_setup (GstBSplineWarp * self,
    GstBSplineLinear * linear, gboolean * remap);

/* The frame's planes resampled on the CPU (GstVideoFilter's
 * transform_frame; also a frame the GPU failed on). */
GstFlowReturn gst_bspline_warp_transform_frame (GstVideoFilter * filter,
    GstVideoFrame * in_frame, GstVideoFrame * out_frame);

/* An element error where the frames' planes do not fit in their memory. */
GstFlowReturn gst_bspline_warp_check_frames (GstBSplineWarp * self,
    GstVideoFrame * in_frame, GstVideoFrame * out_frame);

/* The error for an input buffer that is not a frame of the caps. */
void gst_bspline_warp_post_bad_buffer (GstBSplineWarp * self,
    GstBuffer * inbuf);

/* Threads that unpack and pack staged formats: as many as the CPU
 * engine runs. */
guint gst_bspline_warp_pack_threads (GstBSplineWarp * self);

G_END_DECLS
#endif /* __GST_BSPLINE_WARP_PRIVATE_H__ */
