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
/* gstbsplinesettings.c: see gstbsplinesettings.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstbsplinesettings.h"
#include "gstbsplineframe.h"
#include "gstbsplinelinear.h"

#define DEFAULT_METHOD BSPLINE_METHOD_BSPLINE
#define DEFAULT_ORDER 3
#define DEFAULT_BICUBIC_A -0.5
#define DEFAULT_FILL_COLOR 0xff000000
#define DEFAULT_PRECISION BSPLINE_PRECISION_FLOAT
#define DEFAULT_N_THREADS 0
#define DEFAULT_BACKEND GST_BSPLINE_BACKEND_AUTO
#define DEFAULT_DEFER FALSE
#define DEFAULT_CUDA_DEVICE_ID -1

/* The enum types keep the names bsplinewarp registered them under first,
 * so that both elements show the same values as before. */
#define GST_TYPE_BSPLINE_METHOD (gst_bspline_method_get_type ())
static GType
gst_bspline_method_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {BSPLINE_METHOD_BSPLINE, "B-spline of the given order (prefiltered, "
          "interpolating)", "bspline"},
    {BSPLINE_METHOD_BICUBIC, "Keys bicubic convolution with parameter "
          "bicubic-a (4x4 taps, no prefilter)", "bicubic"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstBSplineWarpMethod", values));
  return type;
}

#define GST_TYPE_BSPLINE_BOUNDARY (gst_bspline_boundary_get_type ())
static GType
gst_bspline_boundary_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {BSPLINE_BOUNDARY_REFLECT, "Half-symmetric: cba|abcde|edc", "reflect"},
    {BSPLINE_BOUNDARY_MIRROR, "Whole-symmetric: dcb|abcde|dcb", "mirror"},
    {BSPLINE_BOUNDARY_WRAP, "Periodic: cde|abcde|abc", "wrap"},
    {BSPLINE_BOUNDARY_CLAMP, "Edge replicate: aaa|abcde|eee", "clamp"},
    {BSPLINE_BOUNDARY_CONSTANT, "Constant fill-color: vvv|abcde|vvv",
        "constant"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstBSplineWarpBoundary", values));
  return type;
}

#define GST_TYPE_BSPLINE_PRECISION (gst_bspline_precision_get_type ())
static GType
gst_bspline_precision_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {BSPLINE_PRECISION_FLOAT, "Single precision coefficients and arithmetic",
        "float"},
    {BSPLINE_PRECISION_DOUBLE, "Double precision (the reference)", "double"},
    {BSPLINE_PRECISION_FAST, "The GPU's fastest path (hardware-filtered "
          "where that is faster); float on the CPU", "fast"},
    {BSPLINE_PRECISION_COMPACT, "float, with the GPU's coefficients in "
          "16-bit fixed point where that stays within 1/32 of a code value "
          "(half the memory; slower); float on the CPU", "compact"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstBSplineWarpPrecision", values));
  return type;
}

#define GST_TYPE_BSPLINE_BACKEND (gst_bspline_backend_get_type ())
static GType
gst_bspline_backend_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_BSPLINE_BACKEND_AUTO, "The CUDA engine where a GPU and driver "
          "are there, else the CPU engine", "auto"},
    {GST_BSPLINE_BACKEND_CPU, "The CPU engine", "cpu"},
    {GST_BSPLINE_BACKEND_CUDA, "The CUDA engine; an error at start "
          "where there is none", "cuda"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstBSplineWarpBackend", values));
  return type;
}

/* What a map that shrinks does against aliasing (issue 21; a newer type,
 * under the plugin's prefix rather than bsplinewarp's).  The property was
 * a boolean: "false" and "true" stay as aliases of none and
 * least-squares, listed after the canonical values so that
 * g_enum_get_value (and so serialisation and gst-inspect's default) gives
 * the canonical nick; g_object_set (element, "antialias", TRUE, NULL)
 * passes 1, least-squares, and FALSE 0, none. */
#define GST_TYPE_BSPLINE_ANTIALIAS (gst_bspline_antialias_get_type ())
static GType
gst_bspline_antialias_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {BSPLINE_ANTIALIAS_NONE, "Plain interpolation at the output pixel "
          "centres (aliases where the picture shrinks)", "none"},
    {BSPLINE_ANTIALIAS_LEAST_SQUARES, "Least-squares projection onto the "
          "spline of the output grid where the map shrinks (Unser, Aldroubi "
          "& Eden 1995), warps through a finer grid; as widen for "
          "method=bicubic, a horizon in the frame and a lens stage",
        "least-squares"},
    {BSPLINE_ANTIALIAS_WIDEN, "Kernel widened by the shrink factor and "
          "renormalised, as videoscale does", "widen"},
    {BSPLINE_ANTIALIAS_NONE, "Same as none (the boolean false of earlier "
          "versions)", "false"},
    {BSPLINE_ANTIALIAS_LEAST_SQUARES, "Same as least-squares (the boolean "
          "true of earlier versions)", "true"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstBSplineAntialias", values));
  return type;
}

/* The canonical nick of value in the enum type: the first entry of it. */
#define GST_TYPE_BSPLINE_LENS_MODEL (gst_bspline_lens_model_get_type ())
static GType
gst_bspline_lens_model_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {BSPLINE_LENS_NONE, "No lens stage", "none"},
    {BSPLINE_LENS_BROWN, "OpenCV's pinhole model: radial k1-k6, tangential "
          "p1 p2, thin prism s1-s4 (cv::undistort)", "brown"},
    {BSPLINE_LENS_FISHEYE, "OpenCV's fisheye (Kannala-Brandt) model: k1-k4 "
          "(cv::fisheye::undistortImage)", "fisheye"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstBSplineLensModel", values));
  return type;
}

#define GST_TYPE_BSPLINE_LENS_DIRECTION (gst_bspline_lens_direction_get_type ())
static GType
gst_bspline_lens_direction_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {0, "The input is distorted; the output is the pinhole view",
        "undistort"},
    {1, "The input is the pinhole view; the output is distorted (the model "
          "solved per pixel)", "distort"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstBSplineLensDirection", values));
  return type;
}

#define GST_TYPE_BSPLINE_LENS_FIT (gst_bspline_lens_fit_get_type ())
static GType
gst_bspline_lens_fit_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_BSPLINE_LENS_FIT_NONE, "camera-matrix scaled by the caps",
        "none"},
    {GST_BSPLINE_LENS_FIT_INSIDE, "Zoomed so that no border shows "
          "(cv::getOptimalNewCameraMatrix alpha 0, fisheye balance 0)",
        "inside"},
    {GST_BSPLINE_LENS_FIT_ALL, "Zoomed so that every input pixel shows "
          "(cv::getOptimalNewCameraMatrix alpha 1, fisheye balance 1)",
        "all"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstBSplineLensFit", values));
  return type;
}

static const gchar *
gst_bspline_settings_enum_nick (GType type, gint value)
{
  GEnumClass *klass = g_type_class_ref (type);
  const gchar *nick = g_enum_get_value (klass, value)->value_nick;

  g_type_class_unref (klass);
  return nick;
}

#define FIELD(member) \
  (resample_offset + G_STRUCT_OFFSET (GstBSplineSettings, member))

void
gst_bspline_settings_install_properties (GObjectClass * klass,
    const GstBSplineSettingsDefaults * defaults, gsize resample_offset)
{
  /* the quality properties are read once per frame; the engine's choice
   * when the element starts */
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;
  const GParamFlags start_flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;
  /* the blurbs that name a per-element default are built here */
  const GParamFlags built_blurb_flags = G_PARAM_READWRITE |
      G_PARAM_STATIC_NAME | G_PARAM_STATIC_NICK | GST_PARAM_MUTABLE_PLAYING;
  gchar *blurb;

  gst_bspline_settings_install_field (klass, GST_BSPLINE_SETTINGS_PROP_METHOD,
      FIELD (method),
      g_param_spec_enum ("method", "Method",
          "Interpolation kernel: bspline (prefiltered B-spline of the given "
          "order) or bicubic (Keys convolution); default bspline",
          GST_TYPE_BSPLINE_METHOD, DEFAULT_METHOD, flags));
  gst_bspline_settings_install_field (klass, GST_BSPLINE_SETTINGS_PROP_ORDER,
      FIELD (order),
      g_param_spec_int ("order", "Order",
          "B-spline order for method=bspline: 0 = nearest, 1 = bilinear, "
          "3 = cubic, up to 11 (range 0-11, default 3)",
          0, BSPLINE_MAX_ORDER, DEFAULT_ORDER, flags));
  gst_bspline_settings_install_field (klass,
      GST_BSPLINE_SETTINGS_PROP_BICUBIC_A, FIELD (bicubic_a),
      g_param_spec_double ("bicubic-a", "Bicubic a",
          "Keys parameter a for method=bicubic; -0.5 is Catmull-Rom, -0.75 "
          "sharper (range -3 to 0, default -0.5)", -3.0, 0.0, DEFAULT_BICUBIC_A,
          flags));
  blurb =
      g_strdup_printf ("How the picture extends beyond its edges, for "
      "the prefilter and for samples outside the input (default %s)",
      gst_bspline_settings_enum_nick (GST_TYPE_BSPLINE_BOUNDARY,
          defaults->boundary));
  gst_bspline_settings_install_field (klass, GST_BSPLINE_SETTINGS_PROP_BOUNDARY,
      FIELD (boundary), g_param_spec_enum ("boundary", "Boundary", blurb,
          GST_TYPE_BSPLINE_BOUNDARY, defaults->boundary, built_blurb_flags));
  g_free (blurb);
  gst_bspline_settings_install_field (klass,
      GST_BSPLINE_SETTINGS_PROP_FILL_COLOR, FIELD (fill_color),
      g_param_spec_uint ("fill-color", "Fill color",
          "Colour outside the input for boundary=constant, as 0xAARRGGBB "
          "(alpha used by formats with alpha; converted to YUV with the "
          "caps' colorimetry) (default 0xff000000, opaque black)", 0,
          G_MAXUINT32, DEFAULT_FILL_COLOR, flags));
  gst_bspline_settings_install_field (klass,
      GST_BSPLINE_SETTINGS_PROP_PRECISION, FIELD (precision),
      g_param_spec_enum ("precision", "Precision",
          "Arithmetic of the engine: float, double, fast (the GPU's "
          "fastest path, hardware-filtered where that is faster; float on "
          "the CPU) or compact (float, the GPU's coefficient plane of 8-bit "
          "video at orders 2 and 3 and 10-bit at order 2 in 16-bit fixed "
          "point, within 1/32 of a code value: half the memory, slower; "
          "float on the CPU) (default float)", GST_TYPE_BSPLINE_PRECISION,
          DEFAULT_PRECISION, flags));
  blurb =
      g_strdup_printf ("What the resampling does against aliasing where "
      "the transform shrinks the picture: none (plain interpolation), "
      "least-squares (the least-squares projection onto the output grid's "
      "spline; rotations and perspective warp onto a finer grid first; as "
      "widen for method=bicubic, a horizon in the frame and a lens stage) "
      "or widen (the "
      "kernel widened by the shrink factor); true and false, as before, "
      "mean least-squares and none (default %s)",
      gst_bspline_settings_enum_nick (GST_TYPE_BSPLINE_ANTIALIAS,
          defaults->antialias));
  gst_bspline_settings_install_field (klass,
      GST_BSPLINE_SETTINGS_PROP_ANTIALIAS, FIELD (antialias),
      g_param_spec_enum ("antialias", "Antialias", blurb,
          GST_TYPE_BSPLINE_ANTIALIAS, defaults->antialias, built_blurb_flags));
  g_free (blurb);
  gst_bspline_settings_install_field (klass,
      GST_BSPLINE_SETTINGS_PROP_N_THREADS, FIELD (n_threads),
      g_param_spec_uint ("n-threads", "Threads",
          defaults->threads_at_start ?
          "CPU threads of the CPU engine and of the motion estimation, 0 = "
          "one per online core; at most 4 per online core and 256, fewer "
          "where the system cannot create them; read when the element "
          "starts (range 0-1024, default 0)" : "CPU threads of the CPU "
          "engine, 0 = one per online core; at most 4 per online core and "
          "256, fewer where the system cannot create them (range 0-1024, "
          "default 0)", 0, 1024, DEFAULT_N_THREADS,
          defaults->threads_at_start ? start_flags : flags));
  gst_bspline_settings_install_field (klass, GST_BSPLINE_SETTINGS_PROP_BACKEND,
      FIELD (backend), g_param_spec_enum ("backend", "Backend",
          "Engine that resamples (and estimates motion, in bsplinestabilize): "
          "auto (the GPU where there is one, else the CPU; a GPU failure "
          "continues on the CPU with a warning), cpu, or cuda (an error at "
          "start where the build or the machine has no CUDA engine); read "
          "when the element starts (default auto)", GST_TYPE_BSPLINE_BACKEND,
          DEFAULT_BACKEND, start_flags));
  gst_bspline_settings_install_field (klass,
      GST_BSPLINE_SETTINGS_PROP_CUDA_DEVICE_ID, FIELD (cuda_device_id),
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device of the GPU engine, -1 = the default device; read when "
          "the element starts (range -1 to 2147483647, default -1)", -1,
          G_MAXINT, DEFAULT_CUDA_DEVICE_ID, start_flags));
  gst_bspline_settings_install_field (klass, GST_BSPLINE_SETTINGS_PROP_DEFER,
      FIELD (defer), g_param_spec_boolean ("defer", "Defer",
          "Do not resample: append this element's geometry to the warp chain "
          "the buffer carries (GstBSplineChainMeta) and push the frame "
          "unchanged, for the bspline element downstream that resamples to "
          "apply the whole chain at once (docs/chains.md).  Where the element "
          "changes the frame's size, format or memory, or downstream does "
          "not take the meta, it warns and resamples (default false)",
          DEFAULT_DEFER, flags));
}

#undef FIELD

void
gst_bspline_settings_install_gamma_property (GObjectClass * klass,
    gsize resample_offset)
{
  gst_bspline_settings_install_field (klass,
      GST_BSPLINE_SETTINGS_PROP_GAMMA_MODE, resample_offset +
      G_STRUCT_OFFSET (GstBSplineSettings, gamma_mode),
      g_param_spec_enum ("gamma-mode", "Gamma mode",
          "none (resample the code values) or remap (resample in linear "
          "light: the caps' transfer function, sRGB, BT.709/601/2020, PQ "
          "or HLG, decoded to float before the engine and encoded after; "
          "8- or 16-bit RGB formats in one plane, either engine) "
          "(default none)", GST_TYPE_BSPLINE_GAMMA_MODE,
          GST_BSPLINE_GAMMA_MODE_NONE, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
}

#define LENS_FIELD(member) \
  (lens_offset + G_STRUCT_OFFSET (GstBSplineLensSettings, member))

void
gst_bspline_settings_install_lens_properties (GObjectClass * klass,
    gsize lens_offset, gboolean at_start)
{
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      (at_start ? GST_PARAM_MUTABLE_READY : GST_PARAM_MUTABLE_PLAYING);

  gst_bspline_settings_install_field (klass,
      GST_BSPLINE_SETTINGS_PROP_LENS_MODEL, LENS_FIELD (model),
      g_param_spec_enum ("lens-model", "Lens model",
          "Lens distortion model of the lens stage, before the caps' "
          "scaling and the geometry: none, brown (OpenCV's pinhole model) or "
          "fisheye (OpenCV's fisheye model); camera-matrix is then required "
          "(default none)", GST_TYPE_BSPLINE_LENS_MODEL, BSPLINE_LENS_NONE,
          flags));
  gst_bspline_settings_install_field (klass,
      GST_BSPLINE_SETTINGS_PROP_LENS_DIRECTION, LENS_FIELD (direction),
      g_param_spec_enum ("lens-direction", "Lens direction",
          "undistort (the input is the lens's picture, the output the "
          "pinhole view, as cv::undistort) or distort (the reverse: the "
          "model applied, solved per pixel to 1e-12 of a focal length) "
          "(default undistort)", GST_TYPE_BSPLINE_LENS_DIRECTION, 0, flags));
  gst_bspline_settings_install_field (klass,
      GST_BSPLINE_SETTINGS_PROP_CAMERA_MATRIX, LENS_FIELD (camera_matrix),
      gst_param_spec_array ("camera-matrix", "Camera matrix",
          "The lens's camera as <fx, fy, cx, cy>, in OpenCV's convention "
          "(pixels of the distorted frame, the centre of its first pixel at "
          "0; the input's for undistort, the output's for distort), on the "
          "frame's axes before video-direction; fx, fy > 0 (default unset)",
          g_param_spec_double ("camera-matrix-entry", "Camera matrix entry",
              "fx, fy, cx or cy in pixels", -G_MAXDOUBLE, G_MAXDOUBLE, 0.0,
              flags), flags));
  gst_bspline_settings_install_field (klass,
      GST_BSPLINE_SETTINGS_PROP_DISTORTION, LENS_FIELD (distortion),
      gst_param_spec_array ("distortion", "Distortion",
          "The model's coefficients in OpenCV's order: brown up to 12 "
          "<k1, k2, p1, p2, k3, k4, k5, k6, s1, s2, s3, s4>, fisheye up to 4 "
          "<k1, k2, k3, k4>; those not given are 0 (default unset: all 0)",
          g_param_spec_double ("distortion-entry", "Distortion coefficient",
              "One coefficient", -G_MAXDOUBLE, G_MAXDOUBLE, 0.0, flags),
          flags));
  gst_bspline_settings_install_field (klass,
      GST_BSPLINE_SETTINGS_PROP_NEW_CAMERA_MATRIX,
      LENS_FIELD (new_camera_matrix),
      gst_param_spec_array ("new-camera-matrix", "New camera matrix",
          "The pinhole view's camera as <fx, fy, cx, cy>, in OpenCV's "
          "convention, in pixels of the undistorted frame (the output's for "
          "undistort, the input's for distort); unset: camera-matrix scaled "
          "by the caps, or fitted by lens-fit (default unset)",
          g_param_spec_double ("new-camera-matrix-entry",
              "New camera matrix entry", "fx, fy, cx or cy in pixels",
              -G_MAXDOUBLE, G_MAXDOUBLE, 0.0, flags), flags));
  gst_bspline_settings_install_field (klass,
      GST_BSPLINE_SETTINGS_PROP_LENS_FIT, LENS_FIELD (fit),
      g_param_spec_enum ("lens-fit", "Lens fit",
          "Where new-camera-matrix is unset: none (camera-matrix scaled by "
          "the caps), inside (zoomed so that no border shows) or all "
          "(every input pixel shows), as cv::getOptimalNewCameraMatrix "
          "(default none)", GST_TYPE_BSPLINE_LENS_FIT,
          GST_BSPLINE_LENS_FIT_NONE, flags));
  gst_bspline_settings_install_field (klass,
      GST_BSPLINE_SETTINGS_PROP_LENS_PROFILE, LENS_FIELD (profile_location),
      g_param_spec_string ("lens-profile", "Lens profile",
          "A Gyroflow lens profile (a .json file: OpenCV's fisheye or "
          "standard model, its camera matrix at a calibration size, scaled "
          "to the frames) read when the property is set; lens-model, "
          "camera-matrix, distortion and new-camera-matrix override it where "
          "they are set; a file that cannot be used stops the element at the "
          "next frame with the reason, or while the element is PAUSED or "
          "PLAYING is refused with a warning, the old profile kept; NULL or "
          "\"\" unsets it (default NULL)", NULL, flags));
}

#undef LENS_FIELD

void
gst_bspline_settings_lens_geometry (const GstBSplineLensSettings * lens,
    bspline_geometry * geometry)
{
  guint i;

  geometry->lens_model = BSPLINE_LENS_NONE;
  geometry->lens_distort = lens->direction;
  memset (geometry->camera, 0, sizeof (geometry->camera));
  memset (geometry->distortion, 0, sizeof (geometry->distortion));
  geometry->n_distortion = 0;
  geometry->new_camera_set = 0;
  gst_bspline_lens_profile_geometry (&lens->profile, geometry);
  if (lens->model != BSPLINE_LENS_NONE)
    geometry->lens_model = lens->model;
  if (lens->camera_matrix.n == 4)
    for (i = 0; i < 4; i++)
      geometry->camera[i] = lens->camera_matrix.v[i];
  if (lens->distortion.n > 0) {
    memset (geometry->distortion, 0, sizeof (geometry->distortion));
    geometry->n_distortion = (int) lens->distortion.n;
    for (i = 0; i < lens->distortion.n; i++)
      geometry->distortion[i] = lens->distortion.v[i];
  }
  if (lens->new_camera_matrix.n == 4) {
    geometry->new_camera_set = 1;
    for (i = 0; i < 4; i++)
      geometry->new_camera[i] = lens->new_camera_matrix.v[i];
  }
  geometry->lens_fit = lens->fit != GST_BSPLINE_LENS_FIT_NONE;
  geometry->lens_fit_alpha = lens->fit == GST_BSPLINE_LENS_FIT_ALL ? 1.0 : 0.0;
}

gint
gst_bspline_settings_lens_model (const GstBSplineLensSettings * lens)
{
  if (lens->model != BSPLINE_LENS_NONE)
    return lens->model;
  return lens->profile.state == GST_BSPLINE_LENS_PROFILE_LOADED ?
      lens->profile.model : BSPLINE_LENS_NONE;
}

gboolean
gst_bspline_settings_lens_check (const GstBSplineLensSettings * lens,
    const bspline_geometry * geometry, gchar * msg, gsize msg_len)
{
  return gst_bspline_lens_profile_check (&lens->profile, geometry, msg,
      msg_len);
}

void
gst_bspline_settings_lens_clear (GstBSplineLensSettings * lens)
{
  g_clear_pointer (&lens->profile_location, g_free);
}

static void
gst_bspline_settings_append_numbers (GString * s, const gchar * name,
    const GstBSplineNumbers * numbers)
{
  guint i;

  g_string_append_printf (s, " %s=", name);
  if (numbers->n == 0) {
    g_string_append (s, "(unset)");
    return;
  }
  g_string_append_c (s, '<');
  for (i = 0; i < numbers->n; i++)
    g_string_append_printf (s, "%s%.17g", i ? ", " : "", numbers->v[i]);
  g_string_append_c (s, '>');
}

gchar *
gst_bspline_settings_lens_describe (const GstBSplineLensSettings * lens)
{
  GString *s = g_string_new (NULL);

  if (lens->profile.state == GST_BSPLINE_LENS_PROFILE_LOADED)
    g_string_append_printf (s, "lens-profile=(%s, calibrated at %dx%d) ",
        bspline_lens_model_name (lens->profile.model),
        lens->profile.calib_width, lens->profile.calib_height);
  g_string_append_printf (s, "lens-model=%s lens-direction=%s",
      gst_bspline_settings_enum_nick (GST_TYPE_BSPLINE_LENS_MODEL,
          lens->model),
      gst_bspline_settings_enum_nick (GST_TYPE_BSPLINE_LENS_DIRECTION,
          lens->direction));
  gst_bspline_settings_append_numbers (s, "camera-matrix",
      &lens->camera_matrix);
  gst_bspline_settings_append_numbers (s, "distortion", &lens->distortion);
  gst_bspline_settings_append_numbers (s, "new-camera-matrix",
      &lens->new_camera_matrix);
  g_string_append_printf (s, " lens-fit=%s",
      gst_bspline_settings_enum_nick (GST_TYPE_BSPLINE_LENS_FIT, lens->fit));
  return g_string_free (s, FALSE);
}

void
gst_bspline_settings_mark_plugin_api (void)
{
  gst_type_mark_as_plugin_api (GST_TYPE_BSPLINE_LENS_MODEL, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_BSPLINE_LENS_DIRECTION, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_BSPLINE_LENS_FIT, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_BSPLINE_GAMMA_MODE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_BSPLINE_METHOD, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_BSPLINE_BOUNDARY, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_BSPLINE_PRECISION, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_BSPLINE_ANTIALIAS, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_BSPLINE_BACKEND, 0);
}

/* enum fields are stored as gint */
G_STATIC_ASSERT (sizeof (bspline_method) == sizeof (gint));
G_STATIC_ASSERT (sizeof (bspline_boundary) == sizeof (gint));
G_STATIC_ASSERT (sizeof (bspline_precision) == sizeof (gint));
G_STATIC_ASSERT (sizeof (bspline_antialias) == sizeof (gint));
G_STATIC_ASSERT (sizeof (GstBSplineBackend) == sizeof (gint));

/* Where a property's value lives: its offset in the element's settings
 * struct, plus one, in the GParamSpec's qdata. */
static G_DEFINE_QUARK (gst - bspline - settings - offset,
    gst_bspline_settings_offset);

void
gst_bspline_settings_install_field (GObjectClass * klass, guint prop_id,
    gsize offset, GParamSpec * pspec)
{
  g_param_spec_set_qdata (pspec, gst_bspline_settings_offset_quark (),
      GSIZE_TO_POINTER (offset + 1));
  g_object_class_install_property (klass, prop_id, pspec);
}

/* The offset of pspec's field in the element's settings struct, or -1. */
static gssize
gst_bspline_settings_offset (GParamSpec * pspec)
{
  return (gssize) GPOINTER_TO_SIZE (g_param_spec_get_qdata (pspec,
          gst_bspline_settings_offset_quark ())) - 1;
}

/* value into the field at offset of settings */
static void
gst_bspline_settings_store (gpointer settings, gssize offset,
    const GValue * value)
{
  gpointer field = G_STRUCT_MEMBER_P (settings, offset);

  if (GST_VALUE_HOLDS_ARRAY (value)) {
    GstBSplineNumbers *numbers = field;
    guint i;
    numbers->n = MIN (gst_value_array_get_size (value),
        GST_BSPLINE_MAX_NUMBERS);
    for (i = 0; i < numbers->n; i++)
      numbers->v[i] = g_value_get_double (gst_value_array_get_value (value, i));
    return;
  }
  switch (G_TYPE_FUNDAMENTAL (G_VALUE_TYPE (value))) {
    case G_TYPE_BOOLEAN:
      *(gboolean *) field = g_value_get_boolean (value);
      break;
    case G_TYPE_INT:
      *(gint *) field = g_value_get_int (value);
      break;
    case G_TYPE_UINT:
      *(guint *) field = g_value_get_uint (value);
      break;
    case G_TYPE_ENUM:
      *(gint *) field = g_value_get_enum (value);
      break;
    case G_TYPE_DOUBLE:
      *(gdouble *) field = g_value_get_double (value);
      break;
    case G_TYPE_STRING:
      g_free (*(gchar **) field);
      *(gchar **) field = g_value_dup_string (value);
      break;
    default:
      g_assert_not_reached ();
  }
}

void
gst_bspline_settings_init (GObject * object, gpointer settings)
{
  guint n, i;
  GParamSpec **pspecs =
      g_object_class_list_properties (G_OBJECT_GET_CLASS (object), &n);

  for (i = 0; i < n; i++) {
    gssize offset = gst_bspline_settings_offset (pspecs[i]);

    if (offset >= 0)
      gst_bspline_settings_store (settings, offset,
          g_param_spec_get_default_value (pspecs[i]));
  }
  g_free (pspecs);
}

/* A list property's length: the camera matrices 0 or 4 numbers, the
 * others at most GST_BSPLINE_MAX_NUMBERS; a warning and FALSE (the value
 * is ignored) otherwise. */
static gboolean
gst_bspline_settings_numbers_ok (GParamSpec * pspec, const GValue * value)
{
  guint n = gst_value_array_get_size (value);
  gboolean matrix = g_str_has_suffix (pspec->name, "camera-matrix");

  if (matrix ? (n == 0 || n == 4) : n <= GST_BSPLINE_MAX_NUMBERS)
    return TRUE;
  g_warning ("%s needs %s, not %u numbers; ignored", pspec->name,
      matrix ? "4 numbers <fx, fy, cx, cy> (or none to unset it)" :
      "at most 12 numbers", n);
  return FALSE;
}

/* lens-profile: the file is read here, in the caller's thread, and only
 * its numbers go into the settings.  A file that cannot be used is
 * refused with a warning while the element streams (the frames keep the
 * old profile), and otherwise kept as the error the next frame reports. */
static void
gst_bspline_settings_set_lens_profile (GObject * object, gpointer settings,
    gssize offset, const GValue * value)
{
  GstBSplineLensSettings *lens = G_STRUCT_MEMBER_P (settings,
      offset - G_STRUCT_OFFSET (GstBSplineLensSettings, profile_location));
  const gchar *location = g_value_get_string (value);
  GstBSplineLensProfile profile;
  gboolean streaming;

  gst_bspline_lens_profile_load (&profile, location);
  GST_OBJECT_LOCK (object);
  streaming = GST_STATE (object) >= GST_STATE_PAUSED;
  if (profile.state != GST_BSPLINE_LENS_PROFILE_FAILED || !streaming) {
    g_free (lens->profile_location);
    lens->profile_location = location && *location ? g_strdup (location) : NULL;
    lens->profile = profile;
  }
  GST_OBJECT_UNLOCK (object);
  if (profile.state == GST_BSPLINE_LENS_PROFILE_FAILED && streaming)
    GST_ELEMENT_WARNING (object, RESOURCE, READ,
        ("The new lens profile is not used (the old one is kept): %s.",
            profile.message), (NULL));
}

gboolean
gst_bspline_settings_set_property (GObject * object, gpointer settings,
    GParamSpec * pspec, const GValue * value)
{
  gssize offset = gst_bspline_settings_offset (pspec);

  if (offset < 0)
    return FALSE;
  if (pspec->param_id == GST_BSPLINE_SETTINGS_PROP_LENS_PROFILE) {
    gst_bspline_settings_set_lens_profile (object, settings, offset, value);
    return TRUE;
  }
  if (GST_VALUE_HOLDS_ARRAY (value) && !gst_bspline_settings_numbers_ok (pspec,
          value))
    return TRUE;
  GST_OBJECT_LOCK (object);
  gst_bspline_settings_store (settings, offset, value);
  GST_OBJECT_UNLOCK (object);
  return TRUE;
}

gboolean
gst_bspline_settings_get_property (GObject * object, gconstpointer settings,
    GParamSpec * pspec, GValue * value)
{
  gssize offset = gst_bspline_settings_offset (pspec);
  gconstpointer field;

  if (offset < 0)
    return FALSE;
  field = (const guint8 *) settings + offset;
  GST_OBJECT_LOCK (object);
  if (GST_VALUE_HOLDS_ARRAY (value)) {
    const GstBSplineNumbers *numbers = field;
    GValue entry = G_VALUE_INIT;
    guint i;
    g_value_init (&entry, G_TYPE_DOUBLE);
    for (i = 0; i < numbers->n; i++) {
      g_value_set_double (&entry, numbers->v[i]);
      gst_value_array_append_value (value, &entry);
    }
    g_value_unset (&entry);
    GST_OBJECT_UNLOCK (object);
    return TRUE;
  }
  switch (G_TYPE_FUNDAMENTAL (G_VALUE_TYPE (value))) {
    case G_TYPE_BOOLEAN:
      g_value_set_boolean (value, *(const gboolean *) field);
      break;
    case G_TYPE_INT:
      g_value_set_int (value, *(const gint *) field);
      break;
    case G_TYPE_UINT:
      g_value_set_uint (value, *(const guint *) field);
      break;
    case G_TYPE_ENUM:
      g_value_set_enum (value, *(const gint *) field);
      break;
    case G_TYPE_DOUBLE:
      g_value_set_double (value, *(const gdouble *) field);
      break;
    case G_TYPE_STRING:
      g_value_set_string (value, *(gchar * const *) field);
      break;
    default:
      g_assert_not_reached ();
  }
  GST_OBJECT_UNLOCK (object);
  return TRUE;
}

void
gst_bspline_settings_plane_params (const GstBSplineSettings * settings,
    const GstVideoInfo * info, guint plane, const bspline_image * image,
    bspline_params * params)
{
  bspline_params_init (params);
  params->method = settings->method;
  params->order = settings->order;
  params->bicubic_a = settings->bicubic_a;
  params->boundary = settings->boundary;
  params->precision = settings->precision;
  params->antialias = settings->antialias;
  gst_bspline_frame_plane_fill (info, plane, settings->fill_color, image,
      params->fill);
  if (settings->gamma_mode == GST_BSPLINE_GAMMA_MODE_REMAP)
    gst_bspline_linear_fill (info, plane, image, params->fill);
}
