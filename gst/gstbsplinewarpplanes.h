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

/* bsplinewarp's planes: where its properties reach the plan.  The
 * settings of a frame and the negotiated caps give the geometry
 * (gst_bspline_warp_geometry); the buffer's fields, crop and video meta
 * give the layouts of its planes (gstbsplinelayout.h); the geometry, the
 * buffer's warp chain and each plane's grid give one plan per plane, kept
 * while nothing it depends on changes (the plan cache). */

#ifndef __GST_BSPLINE_WARP_PLANES_H__
#define __GST_BSPLINE_WARP_PLANES_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "gstbsplinewarp.h"
#include "gstbsplinelayout.h"
#include "gstbsplinesettings.h"
#include "bspline.h"
#include "bspline-chain.h"
#include "bspline-geometry.h"
#include "bspline-orient.h"

G_BEGIN_DECLS

/* Everything the properties say, copied out once per frame. */
typedef struct
{
  GstBSplineSettings resample;  /* the properties shared with the stabilizer */
  GstBSplineLensSettings lens;  /* the lens stage's */
  gdouble rotation;
  gdouble zoom;
  gdouble translate_x;
  gdouble translate_y;
  gdouble pivot_x;
  gdouble pivot_y;
  gboolean use_matrix;
  gdouble matrix[9];
  GstVideoOrientationMethod video_direction;
  GstVideoOrientationMethod tag_direction;
  gboolean add_borders;
  gboolean use_meta;
  /* stmap-location, whose path lives in the element (not copied per
   * frame): set or not, and a count of its changes */
  gboolean stmap_set;
  guint stmap_serial;
  /* the projection stage: projection-in, projection-out (the core's type
   * + 1, 0 for none), the view and the fields of view (degrees) */
  gint projection_in;
  gint projection_out;
  gdouble yaw, pitch, roll;
  gdouble h_fov, v_fov, ih_fov, iv_fov;
} GstBSplineWarpSettings;

/* What a plane of the current caps is run with. */
typedef struct
{
  gboolean valid;
  gboolean exact;               /* reoriented by copying samples, no plan */
  gboolean empty;               /* a field of no rows (a frame of 1 row) */
  bspline_plan *plan;
  bspline_params params;
  gdouble inverse[9];
  /* the lens and STMap stages after inverse (the element's own, or
   * those of the buffer's chain composed with it) */
  bspline_lens lenses[BSPLINE_CHAIN_MAX_LENSES];
  gint n_lenses;
  gint src_width, src_height, dst_width, dst_height, channels;
} GstBSplineWarpPlane;

/* The streaming thread's planes: the layouts of the buffers seen, each
 * kind of fields apart (a mixed stream alternates them), the planes'
 * plans for each, and the CPU engine's staging. */
typedef struct
{
  GstVideoChromaSite chroma_site;       /* of the input caps */
  GstBSplineLayout in_layout[GST_BSPLINE_FIELDS_N];
  GstBSplineLayout out_layout[GST_BSPLINE_FIELDS_N];
  /* GST_BSPLINE_FIELDS_N rows, allocated with the element: their lens
   * stages (a projection's among them) would take the instance past
   * GObject's 64 KiB */
  GstBSplineWarpPlane (*plane)[GST_BSPLINE_LAYOUT_MAX_PLANES];
  GstBSplineLayoutFrame cpu_in, cpu_out;
  gboolean warned_field;        /* of an alternate buffer of no field */
} GstBSplineWarpPlanes;

/* The orientation requested by video-direction (and the image-orientation
 * tag when it is auto). */
bspline_orientation gst_bspline_warp_orientation (const GstBSplineWarpSettings
    * s);

/* The geometry of a frame: the settings and the negotiated sizes. */
void gst_bspline_warp_geometry (const GstVideoInfo * in_info,
    const GstVideoInfo * out_info, const GstBSplineWarpSettings * s,
    bspline_geometry * geometry);

/* Whether the settings leave a frame of in_info as it is in out_info. */
gboolean gst_bspline_warp_is_identity (const GstVideoInfo * in_info,
    const GstVideoInfo * out_info, const GstBSplineWarpSettings * s);

/* The layouts of the buffer (its fields, its crop meta, the size its
 * GstVideoMeta gives), made again where they changed. */
GstFlowReturn gst_bspline_warp_planes_layouts (GstBSplineWarp * self,
    GstBuffer * inbuf, GstBSplineFields * fields);

/* Brings the plan of every plane of the buffer's layout up to date with
 * the frame's settings and the buffer's warp chain. */
GstFlowReturn gst_bspline_warp_planes_update (GstBSplineWarp * self,
    const bspline_geometry * geometry, GstBSplineFields fields,
    const bspline_chain_stage * chain, guint n_chain);

/* Runs plane p of the layout on the CPU (exact reorientation or the
 * plan). */
GstFlowReturn gst_bspline_warp_planes_run_on_cpu (GstBSplineWarp * self,
    const bspline_geometry * geometry, GstBSplineFields fields, guint p,
    const bspline_image * src, const bspline_image * dst);

/* New caps: the plans and layouts go (the staging stays). */
void gst_bspline_warp_planes_reset (GstBSplineWarpPlanes * planes);

/* Frees all of it (stop, finalize). */
void gst_bspline_warp_planes_clear (GstBSplineWarpPlanes * planes);

G_END_DECLS
#endif /* __GST_BSPLINE_WARP_PLANES_H__ */
