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
/* gstbsplinelensprofile.h: the lens-profile property of bsplinewarp and
 * bsplinestabilize, a Gyroflow lens profile (a JSON file: the camera
 * matrix and coefficients of OpenCV's fisheye or standard model at a
 * calibration size) read with json-glib when the property is set, kept as
 * plain numbers in the lens settings the element snapshots per frame, and
 * scaled to the stream's frames where the geometry is built. */
#ifndef __GST_BSPLINE_LENS_PROFILE_H__
#define __GST_BSPLINE_LENS_PROFILE_H__

#include <gst/gst.h>

#include "bspline-geometry.h"

G_BEGIN_DECLS

/* No lens profile is larger (Gyroflow's are 1-40 KiB). */
#define GST_BSPLINE_LENS_PROFILE_MAX_BYTES (1024 * 1024)

typedef enum
{
  GST_BSPLINE_LENS_PROFILE_UNSET,
  GST_BSPLINE_LENS_PROFILE_LOADED,
  GST_BSPLINE_LENS_PROFILE_FAILED
} GstBSplineLensProfileState;

/* A profile's numbers, at its calibration size. */
typedef struct
{
  GstBSplineLensProfileState state;
  gint model;                   /* bspline_lens_model: brown or fisheye */
  gdouble camera[4];            /* fx fy cx cy, OpenCV's convention */
  gdouble distortion[BSPLINE_LENS_MAX_COEFFS];
  guint n_distortion;
  gint calib_width, calib_height;
  gint output_width, output_height;     /* 0: the profile has none */
  gchar message[512];           /* FAILED: why, naming the file */
} GstBSplineLensProfile;

/* Reads the Gyroflow lens profile at location into profile: TRUE and
 * state LOADED, or FALSE and state FAILED with profile->message saying
 * why.  An empty or NULL location unsets it (TRUE). */
gboolean gst_bspline_lens_profile_load (GstBSplineLensProfile * profile,
    const gchar * location);

/* FALSE with msg where profile cannot give the lens stage of geometry (a
 * failed load, or frames of another aspect ratio than the calibration's);
 * geometry's sizes, orientation and lens_distort are set. */
gboolean gst_bspline_lens_profile_check (const GstBSplineLensProfile *
    profile, const bspline_geometry * geometry, gchar * msg, gsize msg_len);

/* The profile's model, camera matrix scaled to the distorted frame of
 * geometry, coefficients, and, where the profile has its own output size,
 * the undistorted frame's camera, into geometry's lens fields (which the
 * explicit properties then override). */
void gst_bspline_lens_profile_geometry (const GstBSplineLensProfile *
    profile, bspline_geometry * geometry);

G_END_DECLS
#endif /* __GST_BSPLINE_LENS_PROFILE_H__ */
