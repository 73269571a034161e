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
/* gstbsplinesettings.h: the resampling settings that bsplinewarp and
 * bsplinestabilize share, in one place: their GParamSpecs (installed into
 * either class by one call), get/set, and their translation into the
 * core's bspline_params for each plane.  Each element keeps only its own
 * properties (geometry, stabilization) and embeds a GstBSplineSettings in
 * the settings struct it guards with its object lock and snapshots.
 *
 * A new resampling property lands here: a field, a property id, its
 * GParamSpec (installed with the field's offset, which gives it get, set
 * and its default), and its way into bspline_params. */
#ifndef __GST_BSPLINE_SETTINGS_H__
#define __GST_BSPLINE_SETTINGS_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "bspline.h"
#include "bspline-geometry.h"
#include "gstbsplinelensprofile.h"

G_BEGIN_DECLS

/* Which engine resamples. */
typedef enum
{
  GST_BSPLINE_BACKEND_AUTO,
  GST_BSPLINE_BACKEND_CPU,
  GST_BSPLINE_BACKEND_CUDA
} GstBSplineBackend;

/* What the shared properties say. */
typedef struct
{
  bspline_method method;
  gint order;
  gdouble bicubic_a;
  bspline_boundary boundary;
  guint32 fill_color;           /* 0xAARRGGBB */
  bspline_precision precision;
  bspline_antialias antialias;
  guint n_threads;
  GstBSplineBackend backend;
  gint cuda_device_id;
  gboolean defer;               /* append to the warp chain, do not resample */
  gint gamma_mode;              /* GstBSplineGammaMode, where installed */
} GstBSplineSettings;

/* A property that holds a list of numbers (a GstValueArray of doubles). */
#define GST_BSPLINE_MAX_NUMBERS 12
typedef struct
{
  guint n;                      /* 0: unset */
  gdouble v[GST_BSPLINE_MAX_NUMBERS];
} GstBSplineNumbers;

/* The lens stage's properties (bspline-geometry.h says what each means). */
typedef enum
{
  GST_BSPLINE_LENS_FIT_NONE,
  GST_BSPLINE_LENS_FIT_INSIDE,
  GST_BSPLINE_LENS_FIT_ALL
} GstBSplineLensFit;

typedef struct
{
  gint model;                   /* bspline_lens_model */
  gint direction;               /* 0: undistort, 1: distort */
  GstBSplineNumbers camera_matrix;      /* fx fy cx cy, or unset */
  GstBSplineNumbers distortion; /* OpenCV's order */
  GstBSplineNumbers new_camera_matrix;  /* fx fy cx cy, or unset */
  GstBSplineLensFit fit;
  /* lens-profile: the file's name (for get_property only; the numbers
   * were read when it was set) and its numbers, which the properties
   * above override where they are set */
  gchar *profile_location;
  GstBSplineLensProfile profile;
} GstBSplineLensSettings;

/* What differs between the elements that install the shared properties. */
typedef struct
{
  bspline_boundary boundary;    /* default of `boundary` */
  bspline_antialias antialias;  /* default of `antialias` */
  gboolean threads_at_start;    /* n-threads read only when it starts */
} GstBSplineSettingsDefaults;

/* The shared properties' ids, 1 to GST_BSPLINE_SETTINGS_PROP_LAST - 1; an
 * element numbers its own from GST_BSPLINE_SETTINGS_PROP_LAST on. */
enum
{
  GST_BSPLINE_SETTINGS_PROP_METHOD = 1,
  GST_BSPLINE_SETTINGS_PROP_ORDER,
  GST_BSPLINE_SETTINGS_PROP_BICUBIC_A,
  GST_BSPLINE_SETTINGS_PROP_BOUNDARY,
  GST_BSPLINE_SETTINGS_PROP_FILL_COLOR,
  GST_BSPLINE_SETTINGS_PROP_PRECISION,
  GST_BSPLINE_SETTINGS_PROP_ANTIALIAS,
  GST_BSPLINE_SETTINGS_PROP_N_THREADS,
  GST_BSPLINE_SETTINGS_PROP_BACKEND,
  GST_BSPLINE_SETTINGS_PROP_CUDA_DEVICE_ID,
  GST_BSPLINE_SETTINGS_PROP_DEFER,
  /* the lens stage's, where an element installs them */
  GST_BSPLINE_SETTINGS_PROP_LENS_MODEL,
  GST_BSPLINE_SETTINGS_PROP_LENS_DIRECTION,
  GST_BSPLINE_SETTINGS_PROP_CAMERA_MATRIX,
  GST_BSPLINE_SETTINGS_PROP_DISTORTION,
  GST_BSPLINE_SETTINGS_PROP_NEW_CAMERA_MATRIX,
  GST_BSPLINE_SETTINGS_PROP_LENS_FIT,
  GST_BSPLINE_SETTINGS_PROP_LENS_PROFILE,
  GST_BSPLINE_SETTINGS_PROP_GAMMA_MODE,
  GST_BSPLINE_SETTINGS_PROP_LAST
};

/* Installs the shared properties into klass under the ids above; their
 * values live in the GstBSplineSettings at resample_offset in the
 * element's settings struct. */
void gst_bspline_settings_install_properties (GObjectClass * klass,
    const GstBSplineSettingsDefaults * defaults, gsize resample_offset);

/* Installs the lens stage's properties into klass; their values live in
 * the GstBSplineLensSettings at lens_offset in the element's settings
 * struct.  at_start: the element reads them when it starts (they may
 * change in NULL and READY only), else with every frame. */
void gst_bspline_settings_install_lens_properties (GObjectClass * klass,
    gsize lens_offset, gboolean at_start);

/* Installs gamma-mode (resampling in linear light, gstbsplinelinear.h)
 * into klass; its value lives in the GstBSplineSettings at
 * resample_offset. */
void gst_bspline_settings_install_gamma_property (GObjectClass * klass,
    gsize resample_offset);

/* The lens stage of lens into geometry (its lens_* fields, camera,
 * distortion, new_camera): the lens profile's, scaled to geometry's
 * frames (whose sizes and orientation are set), overridden by the
 * properties that are set. */
void gst_bspline_settings_lens_geometry (const GstBSplineLensSettings * lens,
    bspline_geometry * geometry);

/* The lens model that lens gives: lens-model, or where that is none the
 * loaded profile's. */
gint gst_bspline_settings_lens_model (const GstBSplineLensSettings * lens);

/* FALSE with msg where the lens profile of lens cannot be used with the
 * frames of geometry (gst_bspline_lens_profile_check). */
gboolean gst_bspline_settings_lens_check (const GstBSplineLensSettings *
    lens, const bspline_geometry * geometry, gchar * msg, gsize msg_len);

/* Frees what lens owns (the profile's location). */
void gst_bspline_settings_lens_clear (GstBSplineLensSettings * lens);

/* "lens-model=brown camera-matrix=<...> distortion=<...> ..." of lens, for
 * messages; g_free it. */
gchar *gst_bspline_settings_lens_describe (const GstBSplineLensSettings *
    lens);

/* Installs pspec as klass's property prop_id, whose value is the plain
 * field (gboolean, gint, guint, gdouble, an enum, a string or, for a
 * GstValueArray of doubles, a GstBSplineNumbers) at offset in the
 * element's settings struct. */
void gst_bspline_settings_install_field (GObjectClass * klass, guint prop_id,
    gsize offset, GParamSpec * pspec);

/* Marks the shared enum types as plugin API (for gst-inspect and docs). */
void gst_bspline_settings_mark_plugin_api (void);

/* Every field that the calls above installed, in settings (the element's
 * settings struct), at its property's default value. */
void gst_bspline_settings_init (GObject * object, gpointer settings);

/* Sets (gets) the property pspec of object in settings, the element's
 * settings struct, under the object lock, where pspec was installed by
 * one of the calls above; FALSE otherwise (the element's special
 * properties). */
gboolean gst_bspline_settings_set_property (GObject * object,
    gpointer settings, GParamSpec * pspec, const GValue * value);
gboolean gst_bspline_settings_get_property (GObject * object,
    gconstpointer settings, GParamSpec * pspec, GValue * value);

/* The engine parameters of plane p of info (described by image): the
 * settings, with the fill colour as the code value of each channel (with
 * gamma-mode=remap, as its linear light in code units). */
void gst_bspline_settings_plane_params (const GstBSplineSettings * settings,
    const GstVideoInfo * info, guint plane, const bspline_image * image,
    bspline_params * params);

G_END_DECLS
#endif /* __GST_BSPLINE_SETTINGS_H__ */
