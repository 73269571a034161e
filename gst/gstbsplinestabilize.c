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

/**
 * SECTION:element-bsplinestabilize
 * @title: bsplinestabilize
 *
 * Stabilizes shaky video in one pass: estimates the camera motion between
 * consecutive frames from the luma (a similarity or an affine map, robust
 * to moving objects; a frame with too little texture counts as no motion;
 * with motion-model=rotation, the camera's 3-D rotation fitted to it),
 * finds the intended camera path (path=optimal, the default: the
 * L1-optimal path of still, constant-velocity and constant-acceleration
 * pieces, solved for each frame over the `smoothing` frames after it;
 * path=gaussian: a Gaussian average over `smoothing` frames before and
 * after it), and warps every frame by its correction with the engines and the
 * quality properties of bsplinewarp; with backend=auto or cuda on a
 * machine with a GPU, the motion estimation and the warp both run there
 * (each frame is uploaded once).  Frames leave `smoothing` frames
 * later (the latency reported in the latency query); EOS pushes the
 * frames held back, a flush drops them.  docs/stabilization.md has the
 * algorithm and the measured figures.
 *
 * It takes progressive 8-bit video (RGB, BGR and their 4-byte variants,
 * I420, YV12, NV12, NV21, Y42B, Y444, GRAY8): the motion is estimated on
 * the luma (or R'G'B'), every plane is warped on its own grid.  With the
 * CUDA engine and gstreamer-cuda, it takes and gives memory:CUDAMemory
 * too (all but xRGB, xBGR and GRAY8), sharing the pipeline's CUDA
 * context as bsplinewarp does: a decoder's frames are stabilized and
 * encoded without leaving the GPU.  Interlaced
 * video is refused at negotiation (put deinterlace in front).  The engines
 * and the backend rule are bsplinewarp's (gstbsplineengine.h); the motion
 * is gstbsplinestabilizemotion.c's, the frames on the GPU
 * gstbsplinestabilizecuda.c's.
 *
 * Each frame's estimated motion and applied correction are posted as an
 * element message `bsplinestabilize` when the frame leaves, and, with
 * transforms-location, written to a text file (transforms-mode=write) or
 * read from one (transforms-mode=read: the second pass of a two-pass use,
 * with no latency since every motion is known).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=shaky.mp4 ! decodebin ! videoconvert ! bsplinestabilize smoothing=30 auto-zoom=true ! videoconvert ! autovideosink
 * ]| Stabilizes a clip and zooms just enough to hide the borders.
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! bsplinestabilize smoothing=10 crop=fill ! videoconvert ! autovideosink
 * ]| A live camera, a third of a second of latency at 30 frames/s.
 * |[
 * gst-launch-1.0 filesrc location=shaky.mp4 ! qtdemux ! h264parse ! nvh264dec ! bsplinestabilize ! nvh264enc ! h264parse ! mp4mux ! filesink location=stable.mp4
 * ]| On the GPU from the decoder to the encoder (memory:CUDAMemory).
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstbsplinestabilizeprivate.h"
#include "gstbsplineframe.h"
#include "gstbsplinechain.h"
#include "bspline-keep-border.h"

GST_DEBUG_CATEGORY (gst_bspline_stabilize_debug);
#define GST_CAT_DEFAULT gst_bspline_stabilize_debug

/* the shared properties' defaults that are bsplinestabilize's own: the
 * borders in fill-color, no antialiasing (the corrections hardly scale) and
 * the threads of the motion estimation fixed when it starts */
static const GstBSplineSettingsDefaults gst_bspline_stabilize_defaults = {
  .boundary = BSPLINE_BOUNDARY_CONSTANT,
  .antialias = BSPLINE_ANTIALIAS_NONE,
  .threads_at_start = TRUE,
};

/* after the shared properties of gstbsplinesettings.h */
enum
{
  PROP_SMOOTHING = GST_BSPLINE_SETTINGS_PROP_LAST,
  PROP_MAX_SHIFT,
  PROP_MAX_ANGLE,
  PROP_CROP,
  PROP_ZOOM,
  PROP_AUTO_ZOOM,
  PROP_TRIPOD,
  PROP_MOTION_MODEL,
  PROP_TRANSFORMS_LOCATION,
  PROP_TRANSFORMS_MODE,
  PROP_PATH,
  PROP_PATH_MARGIN,
  PROP_MAX_ZOOM,
  PROP_HORIZON_LOCK,
  PROP_HORIZON_ANGLE,
  PROP_ANALYSIS_REGION,
  PROP_FIELD_OF_VIEW,
  /* issue 41, the GPU's throughput */
  PROP_SOLVE_THREAD,
  /* rolling-shutter correction (issue 41, part C) */
  PROP_ROLLING_SHUTTER_READOUT
};

#define DEFAULT_SMOOTHING 15
#define DEFAULT_PATH BSPLINE_STABILIZE_PATH_OPTIMAL
#define DEFAULT_PATH_MARGIN BSPLINE_STABILIZE_DEFAULT_MARGIN
#define DEFAULT_MAX_SHIFT -1.0
#define DEFAULT_MAX_ANGLE -1.0
#define DEFAULT_CROP GST_BSPLINE_STABILIZE_CROP_KEEP_BORDER
#define DEFAULT_ZOOM 0.0
#define DEFAULT_AUTO_ZOOM FALSE
#define DEFAULT_TRIPOD FALSE
#define DEFAULT_MAX_ZOOM (100.0 * (BSPLINE_STABILIZE_MAX_ZOOM - 1.0))
#define DEFAULT_HORIZON_LOCK FALSE
#define DEFAULT_HORIZON_ANGLE 0.0
#define DEFAULT_MOTION_MODEL BSPLINE_MOTION_SIMILARITY
#define DEFAULT_TRANSFORMS_MODE GST_BSPLINE_STABILIZE_TRANSFORMS_WRITE
#define DEFAULT_SOLVE_THREAD TRUE
#define DEFAULT_ROLLING_SHUTTER_READOUT 0.0

/* 8-bit formats whose luma (or R'G'B') the motion is estimated on. */
#define GST_BSPLINE_STABILIZE_FORMATS \
    "{ RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, xRGB, xBGR, RGB, BGR, I420, " \
    "YV12, NV12, NV21, Y42B, Y444, GRAY8 }"

#define GST_BSPLINE_STABILIZE_CAPS \
    GST_VIDEO_CAPS_MAKE (GST_BSPLINE_STABILIZE_FORMATS) \
    ", interlace-mode = (string) progressive"

/* In CUDA memory, the formats above that GstCudaAllocator holds
 * (GST_BSPLINE_CUDA_MEMORY_FORMATS). */
#ifdef HAVE_BSPLINE_CUDA_MEMORY
#define GST_BSPLINE_STABILIZE_TEMPLATE_CAPS \
    GST_VIDEO_CAPS_MAKE_WITH_FEATURES ("memory:CUDAMemory", \
        "{ RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, RGB, BGR, I420, YV12, NV12, " \
        "NV21, Y42B, Y444 }") ", interlace-mode = (string) progressive; " \
    GST_BSPLINE_STABILIZE_CAPS
#else
#define GST_BSPLINE_STABILIZE_TEMPLATE_CAPS GST_BSPLINE_STABILIZE_CAPS
#endif

#define GST_TYPE_BSPLINE_STABILIZE_CROP (gst_bspline_stabilize_crop_get_type ())
static GType
gst_bspline_stabilize_crop_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_BSPLINE_STABILIZE_CROP_KEEP_BORDER, "Where the corrected frame "
          "leaves the picture, show the previous output frame there",
        "keep-border"},
    {GST_BSPLINE_STABILIZE_CROP_FILL, "Show the boundary extension there "
          "(fill-color with boundary=constant)", "fill"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstBSplineStabilizeCrop", values));
  return type;
}

#define GST_TYPE_BSPLINE_STABILIZE_PATH \
    (gst_bspline_stabilize_path_get_type ())
static GType
gst_bspline_stabilize_path_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {BSPLINE_STABILIZE_PATH_OPTIMAL, "L1-optimal: still, constant-velocity "
          "and constant-acceleration pieces, kept close to the camera's "
          "path and within path-margin of it", "optimal"},
    {BSPLINE_STABILIZE_PATH_GAUSSIAN, "Gaussian average of the camera path "
          "over smoothing frames on each side", "gaussian"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstBSplineStabilizePath", values));
  return type;
}

#define GST_TYPE_BSPLINE_STABILIZE_MOTION_MODEL \
    (gst_bspline_stabilize_motion_model_get_type ())
static GType
gst_bspline_stabilize_motion_model_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {BSPLINE_MOTION_SIMILARITY, "Translation, rotation and scale",
        "similarity"},
    {BSPLINE_MOTION_AFFINE, "Full affine: also shear and aspect", "affine"},
    {BSPLINE_MOTION_ROTATION, "Camera rotation K R K^-1 (wide lenses; needs "
          "field-of-view)", "rotation"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstBSplineStabilizeMotionModel", values));
  return type;
}

#define GST_TYPE_BSPLINE_STABILIZE_TRANSFORMS_MODE \
    (gst_bspline_stabilize_transforms_mode_get_type ())
static GType
gst_bspline_stabilize_transforms_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_BSPLINE_STABILIZE_TRANSFORMS_WRITE, "Estimate the motion and write "
          "it to transforms-location", "write"},
    {GST_BSPLINE_STABILIZE_TRANSFORMS_READ, "Read the motion from "
          "transforms-location instead of estimating it", "read"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstBSplineStabilizeTransformsMode", values));
  return type;
}

#define gst_bspline_stabilize_parent_class parent_class
G_DEFINE_TYPE (GstBSplineStabilize, gst_bspline_stabilize,
    GST_TYPE_VIDEO_FILTER);
GST_ELEMENT_REGISTER_DEFINE (bsplinestabilize, "bsplinestabilize",
    GST_RANK_NONE, GST_TYPE_BSPLINE_STABILIZE);

static void gst_bspline_stabilize_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_bspline_stabilize_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static void gst_bspline_stabilize_finalize (GObject * object);
static gboolean gst_bspline_stabilize_start (GstBaseTransform * trans);
static gboolean gst_bspline_stabilize_stop (GstBaseTransform * trans);
static gboolean gst_bspline_stabilize_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static gboolean gst_bspline_stabilize_src_event (GstBaseTransform * trans,
    GstEvent * event);
static gboolean gst_bspline_stabilize_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
static GstFlowReturn gst_bspline_stabilize_submit_input_buffer (GstBaseTransform
    * trans, gboolean is_discont, GstBuffer * input);
static GstFlowReturn gst_bspline_stabilize_generate_output (GstBaseTransform *
    trans, GstBuffer ** outbuf);
static gboolean gst_bspline_stabilize_set_info (GstVideoFilter * filter,
    GstCaps * incaps, GstVideoInfo * in_info, GstCaps * outcaps,
    GstVideoInfo * out_info);
static gboolean gst_bspline_stabilize_propose_allocation (GstBaseTransform *
    trans, GstQuery * decide_query, GstQuery * query);
static gboolean gst_bspline_stabilize_decide_allocation (GstBaseTransform *
    trans, GstQuery * query);
static GstCaps *gst_bspline_stabilize_transform_caps (GstBaseTransform *
    trans, GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static void gst_bspline_stabilize_set_context (GstElement * element,
    GstContext * context);
static GstFlowReturn gst_bspline_stabilize_drain (GstBSplineStabilize * self,
    gboolean push);

static void
gst_bspline_stabilize_class_init (GstBSplineStabilizeClass * klass)
{
  /* read when the element starts */
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;
  /* read for each frame */
  const GParamFlags flags_playing = G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING;
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_bspline_stabilize_debug, "bsplinestabilize", 0,
      "B-spline video stabilization");
  gst_bspline_frame_add_pad_templates (element_class,
      GST_BSPLINE_STABILIZE_TEMPLATE_CAPS);

  gobject_class->set_property = gst_bspline_stabilize_set_property;
  gobject_class->get_property = gst_bspline_stabilize_get_property;
  gobject_class->finalize = gst_bspline_stabilize_finalize;

  gst_bspline_settings_install_properties (gobject_class,
      &gst_bspline_stabilize_defaults,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, resample));
  gst_bspline_settings_install_lens_properties (gobject_class,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, lens), TRUE);
  gst_bspline_settings_install_field (gobject_class, PROP_SMOOTHING,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, smoothing),
      g_param_spec_int ("smoothing", "Smoothing",
          "Frames of look-ahead of the camera path (path=optimal: each "
          "frame's path is solved over it; gaussian: the average runs over "
          "as many frames before and after); also the element's latency in "
          "frames; 0 = no smoothing with path=gaussian (range 0-1000, "
          "default 15)", 0, 1000, DEFAULT_SMOOTHING, flags));
  gst_bspline_settings_install_field (gobject_class, PROP_PATH,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, path),
      g_param_spec_enum ("path", "Path",
          "How the intended camera path is found: optimal (L1-optimal "
          "pieces: still, steady pans, even accelerations) or gaussian (a "
          "Gaussian average) (default optimal)",
          GST_TYPE_BSPLINE_STABILIZE_PATH, DEFAULT_PATH, flags));
  gst_bspline_settings_install_field (gobject_class, PROP_PATH_MARGIN,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, path_margin),
      g_param_spec_double ("path-margin", "Path margin",
          "path=optimal: how far the intended path may leave the camera's, "
          "in percent of the output's view: a crop window of the view "
          "divided by 1 + path-margin / 100 stays inside every frame where "
          "it can (the borders it uncovers show as crop says, or are hidden "
          "by auto-zoom) (range 0-100, default 30)", 0.0,
          BSPLINE_STABILIZE_MAX_MARGIN, DEFAULT_PATH_MARGIN, flags));
  gst_bspline_settings_install_field (gobject_class, PROP_MAX_SHIFT,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, max_shift),
      g_param_spec_double ("max-shift", "Max shift",
          "Largest correction of the frame centre's position on each axis, "
          "in pixels (motion-model=rotation: the shift its homography "
          "makes); -1 = no limit (range -1 to 1e6, default -1)", -1.0, 1e6,
          DEFAULT_MAX_SHIFT, flags));
  gst_bspline_settings_install_field (gobject_class, PROP_MAX_ANGLE,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, max_angle),
      g_param_spec_double ("max-angle", "Max angle",
          "Largest rotation of a correction in degrees (motion-model="
          "rotation: its roll about the optical axis); -1 = no limit "
          "(range -1 to 180, default -1)", -1.0, 180.0, DEFAULT_MAX_ANGLE,
          flags));
  gst_bspline_settings_install_field (gobject_class, PROP_CROP,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, crop),
      g_param_spec_enum ("crop", "Crop",
          "What shows where a corrected frame leaves the picture: "
          "keep-border (the previous output frame) or fill (the boundary "
          "extension) (default keep-border)", GST_TYPE_BSPLINE_STABILIZE_CROP,
          DEFAULT_CROP, flags));
  gst_bspline_settings_install_field (gobject_class, PROP_ZOOM,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, zoom),
      g_param_spec_double ("zoom", "Zoom",
          "Extra zoom about the centre in percent, positive = larger "
          "(range -50 to 100, default 0)", -50.0, 100.0, DEFAULT_ZOOM, flags));
  gst_bspline_settings_install_field (gobject_class, PROP_AUTO_ZOOM,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, auto_zoom),
      g_param_spec_boolean ("auto-zoom", "Auto zoom",
          "Zoom just enough to hide the borders, varying smoothly over the "
          "smoothing window, on top of zoom (at most 4x) (default false)",
          DEFAULT_AUTO_ZOOM, flags));
  gst_bspline_settings_install_field (gobject_class, PROP_MAX_ZOOM,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, max_zoom),
      g_param_spec_double ("max-zoom", "Max zoom",
          "Largest total zoom in percent (zoom and auto-zoom together; with "
          "path=optimal also the crop window that path-margin sets): where "
          "hiding the borders would need more, they show as crop says "
          "(range 0-300, default 300)", 0.0, DEFAULT_MAX_ZOOM,
          DEFAULT_MAX_ZOOM, flags));
  gst_bspline_settings_install_field (gobject_class, PROP_HORIZON_LOCK,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, horizon_lock),
      g_param_spec_boolean ("horizon-lock", "Horizon lock",
          "Hold the roll of every output frame at the first frame's (with "
          "horizon-angle 0) or levelled by horizon-angle, instead of "
          "smoothing it; the pan and the zoom are smoothed as before, the "
          "crop and auto-zoom follow; may change while playing (default "
          "false)", DEFAULT_HORIZON_LOCK, flags_playing));
  gst_bspline_settings_install_field (gobject_class, PROP_HORIZON_ANGLE,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, horizon_angle),
      g_param_spec_double ("horizon-angle", "Horizon angle",
          "With horizon-lock: the angle of the horizon in the first frame, "
          "degrees clockwise on screen; every output frame is turned so "
          "that it is level; may change while playing (range -180 to 180, "
          "default 0)", -180.0, 180.0, DEFAULT_HORIZON_ANGLE, flags_playing));
  gst_bspline_settings_install_field (gobject_class, PROP_ANALYSIS_REGION,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, analysis_region),
      gst_param_spec_array ("analysis-region", "Analysis region",
          "The rectangle the camera motion is measured in, <x, y, w, h> as "
          "fractions of the frame (x right, y down from the top left "
          "corner; x + w and y + h at most 1), at least 16 pixels a side: "
          "what moves outside it does not count (default unset: the whole "
          "frame)", g_param_spec_double ("analysis-region-entry",
              "Analysis region entry", "x, y, w or h, a fraction of the "
              "frame's width or height", 0.0, 1.0, 0.0, flags), flags));
  gst_bspline_settings_install_field (gobject_class, PROP_TRIPOD,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, tripod),
      g_param_spec_boolean ("tripod", "Tripod",
          "Hold the first frame's view: remove all camera motion, pans "
          "included (default false)", DEFAULT_TRIPOD, flags));
  gst_bspline_settings_install_field (gobject_class, PROP_MOTION_MODEL,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, motion_model),
      g_param_spec_enum ("motion-model", "Motion model",
          "Camera motion between frames: similarity (translation, rotation, "
          "scale), affine, or rotation (the camera turning about its centre, "
          "K R K^-1 with field-of-view: for wide lenses; either path, the "
          "clamps and horizon-lock apply to the rotation) (default "
          "similarity)",
          GST_TYPE_BSPLINE_STABILIZE_MOTION_MODEL, DEFAULT_MOTION_MODEL,
          flags));
  gst_bspline_settings_install_field (gobject_class, PROP_FIELD_OF_VIEW,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, field_of_view),
      g_param_spec_double ("field-of-view", "Field of view",
          "motion-model=rotation: the horizontal field of view of the frames "
          "in degrees (of the undistorted view with the lens stage), which "
          "gives the focal length; 0 = new-camera-matrix's fx, which must "
          "then be set (range 0-179, default 0)", 0.0, 179.0, 0.0, flags));
  gst_bspline_settings_install_field (gobject_class, PROP_TRANSFORMS_LOCATION,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, transforms_location),
      g_param_spec_string ("transforms-location", "Transforms location",
          "Text file of each frame's motion (docs/stabilization.md has the "
          "format), written or read as transforms-mode says; NULL = none "
          "(default NULL)", NULL, flags));
  gst_bspline_settings_install_field (gobject_class, PROP_TRANSFORMS_MODE,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, transforms_mode),
      g_param_spec_enum ("transforms-mode", "Transforms mode",
          "write: estimate the motion and write transforms-location; read: "
          "take the motion from it, with no latency (default write)",
          GST_TYPE_BSPLINE_STABILIZE_TRANSFORMS_MODE, DEFAULT_TRANSFORMS_MODE,
          flags));
  /* rolling-shutter correction */
  gst_bspline_settings_install_field (gobject_class,
      PROP_ROLLING_SHUTTER_READOUT,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, rolling_readout),
      g_param_spec_double ("rolling-shutter-readout",
          "Rolling-shutter readout", "The camera's rolling-shutter readout "
          "time, top row to bottom row, as a fraction of the frame "
          "interval: the wobble it causes is measured on 8 bands of rows "
          "and removed in the same warp as the shake (with "
          "transforms-location, the bands' motion is written to the file, "
          "version 3, and read from it); 0 = a global shutter, no "
          "correction; -1 = estimated from the bands of the first frames "
          "(posted in a bsplinestabilize-readout element message; not with "
          "transforms-location); not with the lens stage (range -1 to 1, "
          "default 0)", -1.0, 1.0, DEFAULT_ROLLING_SHUTTER_READOUT, flags));

  /* the camera path's solve beside the next frame's motion
   * (gstbsplinestabilizesolve.c) */
  gst_bspline_settings_install_field (gobject_class, PROP_SOLVE_THREAD,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, solve_thread),
      g_param_spec_boolean ("solve-thread", "Solve thread",
          "Solve the camera path on a thread of its own while the next "
          "frame's motion is estimated: the same output, one frame more of "
          "latency (default true; false: smoothing frames of latency)",
          DEFAULT_SOLVE_THREAD, flags));

  gst_element_class_set_static_metadata (element_class,
      "B-spline video stabilizer", "Filter/Effect/Video",
      "Removes camera shake: motion estimation, path smoothing and an exact "
      "B-spline warp", "gst-bspline contributors");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_bspline_stabilize_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_bspline_stabilize_stop);
  trans_class->sink_event =
      GST_DEBUG_FUNCPTR (gst_bspline_stabilize_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_bspline_stabilize_query);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_bspline_stabilize_decide_allocation);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_bspline_stabilize_propose_allocation);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_bspline_stabilize_submit_input_buffer);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_bspline_stabilize_generate_output);
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_bspline_stabilize_set_info);
  /* memory:CUDAMemory: either memory on either pad, one CUDA context */
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_bspline_stabilize_transform_caps);
  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_bspline_stabilize_set_context);
  /* every frame gets a new output buffer: the base class would otherwise
   * write in place into the input, which is held back and read later */
  trans_class->transform_ip = NULL;
  /* QoS on the output frames, never on the analysis */
  trans_class->src_event = GST_DEBUG_FUNCPTR (gst_bspline_stabilize_src_event);

  gst_bspline_settings_mark_plugin_api ();
  gst_type_mark_as_plugin_api (GST_TYPE_BSPLINE_STABILIZE_CROP, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_BSPLINE_STABILIZE_MOTION_MODEL, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_BSPLINE_STABILIZE_TRANSFORMS_MODE, 0);
}

static void
gst_bspline_stabilize_init (GstBSplineStabilize * self)
{
  GstBSplineStabilizeSettings *s = &self->settings;

  gst_bspline_settings_init (G_OBJECT (self), s);
  g_queue_init (&self->path.frames);
}

static void
gst_bspline_stabilize_finalize (GObject * object)
{
  GstBSplineStabilize *self = GST_BSPLINE_STABILIZE (object);

  /* what stop frees (where the element never started, or failed to) */
  gst_bspline_stabilize_stop (GST_BASE_TRANSFORM (self));
  g_free (self->settings.transforms_location);
  gst_bspline_settings_lens_clear (&self->settings.lens);
  gst_bspline_chain_defer_clear (&self->defer);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_bspline_stabilize_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstBSplineStabilize *self = GST_BSPLINE_STABILIZE (object);

  gboolean streaming, reading;

  if (!gst_bspline_settings_set_property (object, &self->settings, pspec,
          value)) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return;
  }
  GST_OBJECT_LOCK (self);
  streaming = GST_STATE (self) >= GST_STATE_PAUSED;
  reading = self->settings.transforms_location != NULL
      && self->settings.transforms_mode ==
      GST_BSPLINE_STABILIZE_TRANSFORMS_READ;
  GST_OBJECT_UNLOCK (self);
  if (!streaming || prop_id < PROP_SMOOTHING)
    return;
  /* the element's own properties are read at the start, but the horizon
   * lock, which each frame reads (with a transforms file read, each
   * section at its start) */
  if (prop_id != PROP_HORIZON_LOCK && prop_id != PROP_HORIZON_ANGLE)
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("%s cannot change while "
            "the element streams: the new value applies from the next start "
            "(state READY).", pspec->name), (NULL));
  else if (reading)
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("With transforms-mode=read "
            "the corrections are computed when the stream (or its caps) "
            "starts: the new %s applies from the next caps or start.",
            pspec->name), (NULL));
}

/* The horizon lock of the properties into the stabilizer: before each
 * correction is computed (with transforms-mode=read, those of a section,
 * all at its start). */
static void
gst_bspline_stabilize_sync_horizon (GstBSplineStabilize * self)
{
  gboolean lock;
  gdouble angle;

  GST_OBJECT_LOCK (self);
  lock = self->settings.horizon_lock;
  angle = self->settings.horizon_angle;
  GST_OBJECT_UNLOCK (self);
  bspline_stabilizer_set_horizon (self->path.stabilizer, lock, angle);
}

static void
gst_bspline_stabilize_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstBSplineStabilize *self = GST_BSPLINE_STABILIZE (object);

  if (!gst_bspline_settings_get_property (object, &self->settings, pspec,
          value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

/* The warp of a frame of info: its correction (NULL: none) after the lens
 * stage, as bsplinewarp's matrix about the pivot (0, 0), onto a frame of
 * the same size.  Without a correction, a lens that folds over inside the
 * frame is an error (the properties cannot be used); with one, the points
 * past the fold are the fill (a correction may move a corner there). */
void
gst_bspline_stabilize_geometry (GstBSplineStabilize * self,
    const GstVideoInfo * info, const gdouble * correction,
    bspline_geometry * geometry)
{
  gint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);

  bspline_geometry_init (geometry, w, h, w, h);
  gst_bspline_settings_lens_geometry (&self->run.lens, geometry);
  geometry->pivot_x = 0.0;
  geometry->pivot_y = 0.0;
  if (correction) {
    geometry->lens_fill_fold = 1;
    geometry->use_matrix = 1;
    memcpy (geometry->matrix, correction, sizeof (geometry->matrix));
  }
}

static gboolean
gst_bspline_stabilize_start (GstBaseTransform * trans)
{
  GstBSplineStabilize *self = GST_BSPLINE_STABILIZE (trans);
  GstBSplineStabilizeSettings *s = &self->run;
  gboolean read;
  GError *error = NULL;

  GST_OBJECT_LOCK (self);
  g_free (self->run.transforms_location);
  self->run = self->settings;
  self->run.transforms_location = g_strdup (self->settings.transforms_location);
  self->earliest_time = GST_CLOCK_TIME_NONE;
  GST_OBJECT_UNLOCK (self);

  self->path.n_in = 0;
  self->qos_dropped = 0;
  read = s->transforms_mode == GST_BSPLINE_STABILIZE_TRANSFORMS_READ;
  /* the estimated readout is the stream's own: a file could not carry
   * it to the first pass's header, nor give pass 2 the same */
  if (s->transforms_location && s->rolling_readout < 0.0)
    goto estimate_with_file;
  /* (written: version 3 with the bands where the correction is on) */
  if (s->transforms_location
      && !gst_bspline_transforms_stream_open (&self->transforms,
          s->transforms_location, read, s->rolling_readout,
          BSPLINE_ROLLING_DEFAULT_BANDS, &error))
    goto transforms_failed;
  if (!gst_bspline_engine_start (&self->engine, GST_ELEMENT (self),
          &s->resample, gst_bspline_stabilize_cuda_new_engine)) {
    gst_bspline_stabilize_stop (trans);
    return FALSE;
  }
  return TRUE;

  /* ERRORS */
estimate_with_file:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("rolling-shutter-readout=-1 "
            "(estimated) cannot be used with transforms-location: set the "
            "readout (the first pass without the file posts its estimate "
            "in a bsplinestabilize-readout message)."), (NULL));
    return FALSE;
  }
transforms_failed:
  {
    gst_bspline_transforms_post_error (GST_ELEMENT (self), error, read);
    return FALSE;
  }
}

void
gst_bspline_stabilize_frame_free (GstBSplineStabilize * self,
    GstBSplineStabilizeFrame * frame)
{
  gst_bspline_stabilize_cuda_release (self, frame);
  gst_buffer_unref (frame->buffer);
  g_free (frame);
}

gboolean
gst_bspline_stabilize_map_input (GstBSplineStabilize * self,
    GstBSplineStabilizeFrame * frame, GstVideoFrame * vframe)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);

  if (gst_bspline_stabilize_cuda_map (self, vframe, &filter->in_info,
          frame->buffer, GST_MAP_READ, TRUE))
    return TRUE;
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("A buffer of %" G_GSIZE_FORMAT " bytes is not a frame of the caps.",
          gst_buffer_get_size (frame->buffer)), (NULL));
  return FALSE;
}

/* Forgets every frame held back and the path: a new sequence starts. */
static void
gst_bspline_stabilize_reset (GstBSplineStabilize * self)
{
  GstBSplineStabilizeFrame *frame;
  bspline_stabilize_result dropped;

  /* the pop on the solve's thread ends first; its frame goes too */
  gst_bspline_stabilize_solve_collect (&self->path.solve, &dropped);
  while ((frame = g_queue_pop_head (&self->path.frames)))
    gst_bspline_stabilize_frame_free (self, frame);
  gst_clear_buffer (&self->path.previous);
  gst_bspline_stabilize_motion_reset (&self->motion);
  gst_bspline_stabilize_rolling_reset (&self->rolling);
  gst_bspline_stabilize_cuda_reset (self);
  if (self->path.stabilizer)
    bspline_stabilizer_reset (self->path.stabilizer);
}

/* What the caps' frames were analysed and warped with (new caps, stop). */
static void
gst_bspline_stabilize_clear_caps_state (GstBSplineStabilize * self)
{
  gst_bspline_stabilize_cuda_clear (self);
  gst_bspline_stabilize_motion_clear (&self->motion);
  gst_bspline_stabilize_solve_stop (&self->path.solve);
  gst_bspline_stabilize_rolling_clear (&self->rolling);
  bspline_stabilizer_free (self->path.stabilizer);
  self->path.stabilizer = NULL;
}

static gboolean
gst_bspline_stabilize_stop (GstBaseTransform * trans)
{
  GstBSplineStabilize *self = GST_BSPLINE_STABILIZE (trans);
  GError *error = NULL;
  gboolean entered = gst_bspline_stabilize_cuda_enter (self);

  gst_bspline_stabilize_reset (self);
  gst_bspline_stabilize_clear_caps_state (self);
  gst_bspline_engine_clear (&self->engine);
  gst_bspline_stabilize_cuda_leave (self, entered);
  gst_bspline_stabilize_cuda_clear_memory (self);
  if (!gst_bspline_transforms_stream_clear (&self->transforms, &error))
    gst_bspline_transforms_post_error (GST_ELEMENT (self), error,
        self->run.transforms_mode == GST_BSPLINE_STABILIZE_TRANSFORMS_READ);
  g_free (self->run.transforms_location);
  self->run.transforms_location = NULL;
  return TRUE;
}

/* FALSE with an error where the lens profile cannot be used on frames of
 * info (a file that failed to load, frames of another shape). */
static gboolean
gst_bspline_stabilize_lens_usable (GstBSplineStabilize * self,
    const GstVideoInfo * info)
{
  bspline_geometry geometry;
  gchar msg[512];

  gst_bspline_stabilize_geometry (self, info, NULL, &geometry);
  if (gst_bspline_settings_lens_check (&self->run.lens, &geometry, msg,
          sizeof (msg)))
    return TRUE;
  GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
      ("The lens profile cannot be used: %s.", msg), (NULL));
  return FALSE;
}

/* motion-model=rotation: the focal length of frames `width` pixels wide,
 * from field-of-view, else from new-camera-matrix's fx (0: neither is
 * set, which bspline_stabilizer_new refuses). */
static gdouble
gst_bspline_stabilize_focal (GstBSplineStabilize * self, gint width)
{
  const GstBSplineStabilizeSettings *s = &self->run;

  if (s->field_of_view > 0.0)
    return 0.5 * width / tan (0.5 * s->field_of_view * G_PI / 180.0);
  if (s->lens.new_camera_matrix.n == 4)
    return s->lens.new_camera_matrix.v[0];
  return 0.0;
}

/* New caps: the frames of the old ones leave first, then the engines are
 * made for the new size. */
static gboolean gst_bspline_stabilize_start_caps (GstBSplineStabilize * self,
    GstCaps * incaps, GstVideoInfo * in_info);

static gboolean
gst_bspline_stabilize_set_info (GstVideoFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstBSplineStabilize *self = GST_BSPLINE_STABILIZE (filter);
  gint w = GST_VIDEO_INFO_WIDTH (in_info), h = GST_VIDEO_INFO_HEIGHT (in_info);
  gboolean entered, ret;

  if (w != GST_VIDEO_INFO_WIDTH (out_info)
      || h != GST_VIDEO_INFO_HEIGHT (out_info))
    return FALSE;
  if (!g_queue_is_empty (&self->path.frames))
    gst_bspline_stabilize_drain (self, TRUE);
  entered = gst_bspline_stabilize_cuda_enter (self);
  gst_bspline_stabilize_reset (self);
  gst_bspline_stabilize_clear_caps_state (self);
  gst_bspline_stabilize_cuda_leave (self, entered);
  if (!gst_bspline_stabilize_cuda_negotiate_memory (self, incaps, outcaps))
    return FALSE;
  if (!gst_bspline_stabilize_lens_usable (self, in_info))
    return FALSE;
  /* the engine's context current while the motion is made on it */
  entered = gst_bspline_stabilize_cuda_enter (self);
  ret = gst_bspline_stabilize_start_caps (self, incaps, in_info);
  gst_bspline_stabilize_cuda_leave (self, entered);
  return ret;
}

/* The stabilizer, the motion and the CUDA frames for frames of in_info:
 * set_info's, after the old caps' state went. */
static gboolean
gst_bspline_stabilize_start_caps (GstBSplineStabilize * self,
    GstCaps * incaps, GstVideoInfo * in_info)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  GstBSplineStabilizeSettings *s = &self->run;
  bspline_stabilize_params sp;
  gint w = GST_VIDEO_INFO_WIDTH (in_info), h = GST_VIDEO_INFO_HEIGHT (in_info);
  gchar msg[256] = "";

  /* no motion can be measured on frames this small: they pass unchanged
   * (not an error: a pipeline that scales down to a thumbnail runs on) */
  self->too_small = w < BSPLINE_MOTION_MIN_SIDE || h < BSPLINE_MOTION_MIN_SIDE;
  if (self->too_small && !gst_bspline_stabilize_cuda_same_memory (self))
    goto too_small_across_memories;
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (filter),
      self->too_small);
  if (self->too_small) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("Frames of %dx%d are too "
            "small to measure camera motion (each side must be at least %d "
            "pixels): they pass unchanged.", w, h, BSPLINE_MOTION_MIN_SIDE),
        (NULL));
    return TRUE;
  }
  self->chroma_site = gst_bspline_frame_chroma_site (incaps, in_info);
  gst_bspline_chain_defer_reset (&self->defer);

  bspline_stabilize_params_init (&sp, w, h);
  sp.smoothing = s->smoothing;
  sp.path = s->path;
  sp.margin = s->path_margin;
  sp.max_shift = s->max_shift;
  sp.max_angle = s->max_angle;
  sp.zoom = s->zoom;
  sp.auto_zoom = s->auto_zoom;
  sp.tripod = s->tripod;
  sp.max_zoom = 1.0 + s->max_zoom / 100.0;
  sp.horizon_lock = s->horizon_lock;
  sp.horizon_angle = s->horizon_angle;
  sp.model = s->motion_model;
  if (sp.model == BSPLINE_MOTION_ROTATION) {
    sp.focal = gst_bspline_stabilize_focal (self, w);
    if (sp.focal <= 0.0) {
      g_strlcpy (msg, "motion-model=rotation needs the focal length: set "
          "field-of-view (or new-camera-matrix with the lens stage)",
          sizeof (msg));
      goto bad_settings;
    }
  }
  if (bspline_stabilizer_new (&sp, &self->path.stabilizer, msg, sizeof (msg))
      != BSPLINE_OK)
    goto bad_settings;
  /* with a transforms file read, every correction is known: no solve */
  if (s->solve_thread && self->transforms.file == NULL)
    gst_bspline_stabilize_solve_start (&self->path.solve,
        self->path.stabilizer);
  if (!gst_bspline_stabilize_motion_start (self, in_info)
      || !gst_bspline_stabilize_rolling_start (self, in_info))
    return FALSE;
  /* with the warp on the GPU, the frames go up once, where the motion
   * (when estimated) and the warp read them */
  if (!gst_bspline_stabilize_cuda_start_motion (self, in_info))
    return FALSE;
  /* the next frame starts a section of the transforms file */
  self->transforms.new_section = TRUE;
  /* with a transforms file read, no motion is estimated */
  if (self->transforms.file)
    return TRUE;
  if (self->cuda.motion == NULL
      && gst_bspline_stabilize_motion_new_estimator (&self->motion, msg,
          sizeof (msg)) != BSPLINE_OK)
    goto bad_settings;
  return TRUE;

  /* ERRORS */
bad_settings:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("Cannot stabilize %dx%d frames: %s.", w, h, msg), (NULL));
    return FALSE;
  }
too_small_across_memories:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Frames of %dx%d are too "
            "small to measure camera motion and would pass unchanged, but "
            "the pads are in different memories (system and CUDA).", w, h),
        ("each side must be at least %d pixels; put cudaupload or "
            "cudadownload beside the element instead",
            BSPLINE_MOTION_MIN_SIDE));
    return FALSE;
  }
}

/* The input frames the element holds at most: smoothing frames ahead,
 * the one arriving, the one leaving and, with the solve's thread, the one
 * it solves; none with a transforms file read. */
static guint
gst_bspline_stabilize_frames_held (GstBSplineStabilize * self)
{
  if (self->transforms.file != NULL)
    return 2;
  return (guint) self->run.smoothing + 2 + (self->run.solve_thread ? 1 : 0);
}

/* An upstream pool that cannot grow to the frames held back would stall:
 * such frames are copied out of it. */
static GstBuffer *
gst_bspline_stabilize_own_buffer (GstBSplineStabilize * self,
    GstBuffer * buffer)
{
  GstStructure *config;
  GstBuffer *copy;
  guint max = 0;

  if (buffer->pool == NULL || self->transforms.file != NULL)
    return buffer;
  config = gst_buffer_pool_get_config (buffer->pool);
  gst_buffer_pool_config_get_params (config, NULL, NULL, NULL, &max);
  gst_structure_free (config);
  if (max == 0 || max >= gst_bspline_stabilize_frames_held (self))
    return buffer;
  copy = gst_buffer_copy_deep (buffer);
  gst_buffer_unref (buffer);
  return copy;
}

/* A buffer the stabilizer cannot take: before negotiation, or with a
 * deferred warp chain (the motion is measured on the pixels the buffer
 * holds, which a deferred chain has not moved yet: upstream bspline
 * elements see that this element does not take the meta and resample
 * instead). */
static GstFlowReturn
gst_bspline_stabilize_check_input (GstBSplineStabilize * self,
    GstBuffer * input)
{
  GstBSplineChainMeta *chain = gst_buffer_get_bspline_chain_meta (input);

  if (!GST_VIDEO_FILTER (self)->negotiated || self->path.stabilizer == NULL)
    return GST_FLOW_NOT_NEGOTIATED;
  if (chain && chain->n_stages > 0)
    goto deferred_input;
  return GST_FLOW_OK;

  /* ERRORS */
deferred_input:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("A buffer carries a deferred warp chain: bsplinestabilize measures "
            "motion on the frame as it is and cannot apply it first."),
        ("GstBSplineChainMeta of %u stages; resample upstream (defer=false) "
            "or attach the chain after the stabilizer", chain->n_stages));
    return GST_FLOW_ERROR;
  }
}

/* transforms-mode=read: the frame's motion and correction from the file
 * (and the frame up to the GPU now, for the warp). */
static GstFlowReturn
gst_bspline_stabilize_read_motion (GstBSplineStabilize * self,
    GstBSplineStabilizeFrame * frame)
{
  if (!gst_bspline_transforms_stream_read_record (&self->transforms,
          GST_ELEMENT (self), &GST_VIDEO_FILTER (self)->in_info,
          frame->buffer, &frame->motion, &frame->correction, &frame->record))
    return GST_FLOW_ERROR;
  frame->have_correction = TRUE;
  return gst_bspline_stabilize_cuda_upload (self, frame);
}

/* The frame's motion estimated, pushed onto the camera path and, with
 * transforms-mode=write, written to the file. */
static GstFlowReturn
gst_bspline_stabilize_measure_motion (GstBSplineStabilize * self,
    GstBSplineStabilizeFrame * frame)
{
  bspline_motion_result r;
  GError *write_error = NULL;
  GstFlowReturn ret;

  memset (&r, 0, sizeof (r));
  ret = gst_bspline_stabilize_motion_estimate (self, frame, &r);
  if (ret == GST_FLOW_OK)
    ret = gst_bspline_stabilize_rolling_measure (self, frame, &r.motion);
  if (ret != GST_FLOW_OK)
    return ret;
  /* the motion ran beside the solve's pop: the stabilizer is free again
   * once it is done */
  gst_bspline_stabilize_solve_wait (&self->path.solve);
  gst_bspline_stabilize_rolling_motion (self, &r.motion);
  if (bspline_stabilizer_push (self->path.stabilizer, &r.motion)
      != BSPLINE_OK)
    goto push_failed;
  if (self->transforms.writer.file
      && !gst_bspline_transforms_writer_record (&self->transforms.writer,
          GST_BUFFER_PTS (frame->buffer), &r, frame->bands.motion,
          frame->bands.reliable, &write_error))
    goto write_failed;
  frame->motion = r;
  return GST_FLOW_OK;

  /* ERRORS */
push_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("The motion of frame %" G_GUINT64_FORMAT " could not be estimated.",
            self->path.n_in), ("out of memory"));
    return GST_FLOW_ERROR;
  }
write_failed:
  {
    gst_bspline_transforms_post_error (GST_ELEMENT (self), write_error, FALSE);
    return GST_FLOW_ERROR;
  }
}

/* Each frame is held back with its motion (estimated, or read) for the
 * look-ahead of the camera path; generate_output sends it on. */
static GstFlowReturn
gst_bspline_stabilize_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  GstBSplineStabilize *self = GST_BSPLINE_STABILIZE (trans);
  GstVideoFilter *filter = GST_VIDEO_FILTER (trans);
  GstBSplineStabilizeFrame *frame;
  const bspline_motion_result *r;
  GstFlowReturn ret;
  gboolean entered;

  /* the base class renegotiates and decides the allocation, then leaves
   * the buffer in queued_buf; it never drops one for QoS here (the element
   * takes the QOS events, gst_bspline_stabilize_src_event) */
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->submit_input_buffer (trans,
      is_discont, input);
  if (ret != GST_FLOW_OK || trans->queued_buf == NULL || self->too_small)
    return ret;
  input = trans->queued_buf;
  trans->queued_buf = NULL;
  ret = gst_bspline_stabilize_check_input (self, input);
  if (ret == GST_FLOW_OK && self->transforms.new_section)
    gst_bspline_stabilize_sync_horizon (self);
  if (ret == GST_FLOW_OK && self->transforms.new_section
      && !gst_bspline_transforms_stream_start_section (&self->transforms,
          GST_ELEMENT (self), self->path.stabilizer,
          self->rolling.on ? &self->rolling.params : NULL,
          GST_VIDEO_INFO_WIDTH (&filter->in_info),
          GST_VIDEO_INFO_HEIGHT (&filter->in_info)))
    ret = GST_FLOW_ERROR;
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (input);
    return ret;
  }

  frame = g_new0 (GstBSplineStabilizeFrame, 1);
  frame->buffer = gst_bspline_stabilize_own_buffer (self, input);
  frame->position = self->path.n_in;
  entered = gst_bspline_stabilize_cuda_enter (self);
  ret = self->transforms.file ?
      gst_bspline_stabilize_read_motion (self, frame) :
      gst_bspline_stabilize_measure_motion (self, frame);
  if (ret != GST_FLOW_OK)
    gst_bspline_stabilize_frame_free (self, frame);
  gst_bspline_stabilize_cuda_leave (self, entered);
  if (ret != GST_FLOW_OK)
    return ret;
  r = &frame->motion;
  GST_LOG_OBJECT (self, "frame %" G_GUINT64_FORMAT ": reliable %d, texture "
      "%g, inliers %g, %d steps", self->path.n_in, r->reliable, r->texture,
      r->inliers, r->iterations);
  self->path.n_in++;
  self->transforms.section_frames++;
  g_queue_push_tail (&self->path.frames, frame);
  return GST_FLOW_OK;
}

static gboolean
gst_bspline_stabilize_is_identity (const gdouble * m)
{
  static const gdouble id[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
  gint i;

  for (i = 0; i < 9; i++)
    if (fabs (m[i] - id[i]) > 1e-9)
      return FALSE;
  return TRUE;
}

/* Warps every plane of a frame by the correction: on the GPU where there
 * is one (every plane submitted, from the frame's device copy where it
 * has one, then all waited for: one round trip per frame), else, or after
 * a GPU failure with backend=auto, on the CPU.  The GPU's result does not
 * depend on where its source was (the same plan, the same kernels).
 * previous (crop=keep-border, after the first frame): the border, the
 * output pixels with no input point inside the input plane
 * (bspline-keep-border.h), comes from it; on the GPU before the download,
 * from the device copy of the previous output frame (which then takes
 * this one's: previous is copied up only where it went out from the
 * CPU), else on the CPU after the warp.  Frames mapped as CUDA memory
 * (gst_bspline_stabilize_cuda_map) are read and written in place on the
 * GPU; where the CPU would have to touch them, nothing is done and the
 * answer is GST_BSPLINE_STABILIZE_FLOW_ON_CPU. */
#define GST_BSPLINE_STABILIZE_FLOW_ON_CPU GST_FLOW_CUSTOM_SUCCESS

static GstFlowReturn
gst_bspline_stabilize_warp (GstBSplineStabilize * self,
    const bspline_geometry * geometry, GstBSplineStabilizeFrame * frame,
    GstVideoFrame * in, GstVideoFrame * out, GstVideoFrame * previous)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  GstBSplineStabilizeWarpPlanes planes = { 0, };
  bspline_status status = BSPLINE_OK;
  gboolean on_gpu, kept = FALSE, device;
  GstFlowReturn ret = GST_FLOW_OK;
  GstBSplineSettings resample;
  gchar msg[512] = "";
  guint p;

  /* the quality of the warp may change while playing */
  GST_OBJECT_LOCK (self);
  resample = self->settings.resample;
  GST_OBJECT_UNLOCK (self);
  planes.n = GST_VIDEO_FRAME_N_PLANES (in);
  planes.src_device = gst_bspline_stabilize_cuda_mapped_on_device (in);
  planes.dst_device = gst_bspline_stabilize_cuda_mapped_on_device (out);
  device = planes.src_device || planes.dst_device || (previous
      && gst_bspline_stabilize_cuda_mapped_on_device (previous));
  for (p = 0; p < planes.n; p++) {
    bspline_image *src = &planes.src[p], *dst = &planes.dst[p];
    bspline_plane_grid grid;
    bspline_params params;

    gst_bspline_frame_plane_grid (&filter->in_info, self->chroma_site, p,
        &grid);
    gst_bspline_frame_plane_image (&filter->in_info, in, p, src);
    gst_bspline_frame_plane_image (&filter->out_info, out, p, dst);
    if (previous)
      gst_bspline_frame_plane_image (&filter->out_info, previous, p,
          &planes.previous[p]);
    gst_bspline_settings_plane_params (&resample, &filter->in_info, p, src,
        &params);
    status = bspline_geometry_plane_map (geometry, &grid, planes.inverse[p],
        &planes.lens[p], msg, sizeof (msg));
    if (status == BSPLINE_OK)
      status = bspline_plan_new_lens (&params, planes.inverse[p],
          &planes.lens[p], src->width, src->height, dst->width, dst->height,
          src->channels, &planes.plans[p], msg, sizeof (msg));
    if (status != BSPLINE_OK)
      goto failed;
  }
  on_gpu = gst_bspline_stabilize_cuda_warp (self, frame, &planes,
      out->buffer, previous != NULL, &kept, &status, msg, sizeof (msg));
  /* the CPU cannot read frames mapped as CUDA memory: the caller maps them
   * for the CPU and asks again (after a GPU failure with backend=auto) */
  if (device && status == BSPLINE_OK && (!on_gpu || (previous && !kept))) {
    ret = GST_BSPLINE_STABILIZE_FLOW_ON_CPU;
    goto done;
  }
  for (p = 0; !on_gpu && status == BSPLINE_OK && p < planes.n; p++) {
    status = bspline_cpu_execute (self->engine.cpu, planes.plans[p],
        &planes.src[p], &planes.dst[p]);
    if (status != BSPLINE_OK)
      g_strlcpy (msg, bspline_cpu_last_error (self->engine.cpu), sizeof (msg));
  }
  if (status != BSPLINE_OK)
    goto failed;
  for (p = 0; previous && !kept && status == BSPLINE_OK && p < planes.n; p++) {
    status = bspline_cpu_keep_border (self->engine.cpu, &planes.dst[p],
        &planes.previous[p], planes.inverse[p], &planes.lens[p],
        planes.src[p].width, planes.src[p].height);
    if (status != BSPLINE_OK)
      g_strlcpy (msg, "the previous frame does not match the output "
          "(keep-border)", sizeof (msg));
  }
  if (status != BSPLINE_OK)
    goto failed;

done:
  for (p = 0; p < planes.n; p++)
    bspline_plan_free (planes.plans[p]);
  return ret;

  /* ERRORS */
failed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Warping the frame failed: %s.", msg),
        ("%s", bspline_status_string (status)));
    ret = GST_FLOW_ERROR;
    goto done;
  }
}

static GValue *
gst_bspline_stabilize_numbers_value (const gdouble * numbers, gint n,
    GValue * array)
{
  gint i;

  g_value_init (array, GST_TYPE_ARRAY);
  for (i = 0; i < n; i++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, G_TYPE_DOUBLE);
    g_value_set_double (&v, numbers[i]);
    gst_value_array_append_and_take_value (array, &v);
  }
  return array;
}

static void
gst_bspline_stabilize_post (GstBSplineStabilize * self,
    const GstBSplineStabilizeFrame * frame,
    const bspline_stabilize_result * result, gboolean dropped)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  gdouble cx = 0.5 * GST_VIDEO_INFO_WIDTH (&filter->in_info);
  gdouble cy = 0.5 * GST_VIDEO_INFO_HEIGHT (&filter->in_info);
  gdouble mx, my, ma, ms, cdx, cdy, ca, cs;
  GValue motion = G_VALUE_INIT, correction = G_VALUE_INIT;
  GValue matrix = G_VALUE_INIT;
  GstStructure *s;

  bspline_affine_decompose (&frame->motion.motion, cx, cy, &mx, &my, &ma, &ms);
  bspline_affine_decompose (&result->correction, cx, cy, &cdx, &cdy, &ca, &cs);
  s = gst_structure_new ("bsplinestabilize",
      "frame", G_TYPE_UINT64, frame->position,
      "dropped", G_TYPE_BOOLEAN, dropped,
      "timestamp", G_TYPE_UINT64, GST_BUFFER_PTS (frame->buffer),
      "reliable", G_TYPE_BOOLEAN, frame->motion.reliable,
      "motion-x", G_TYPE_DOUBLE, mx, "motion-y", G_TYPE_DOUBLE, my,
      "motion-angle", G_TYPE_DOUBLE, ma, "motion-scale", G_TYPE_DOUBLE, ms,
      "correction-x", G_TYPE_DOUBLE, cdx, "correction-y", G_TYPE_DOUBLE, cdy,
      "correction-angle", G_TYPE_DOUBLE, ca,
      "correction-zoom", G_TYPE_DOUBLE, result->zoom, NULL);
  gst_structure_take_value (s, "motion",
      gst_bspline_stabilize_numbers_value (frame->motion.motion.m, 6, &motion));
  gst_structure_take_value (s, "correction",
      gst_bspline_stabilize_numbers_value (result->correction.m, 6,
          &correction));
  gst_structure_take_value (s, "correction-matrix",
      gst_bspline_stabilize_numbers_value (result->matrix, 9, &matrix));
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

/* The oldest frame held back, corrected, in *outbuf. */
/* QoS: whether the frame would reach the sink too late, from the QOS
 * events of the src pad (gst_bspline_stabilize_src_event), as
 * GstBaseTransform decides it for its input; a late frame is posted as a
 * QOS message.  The base class never drops here: every frame's motion is
 * part of the path. */
static gboolean
gst_bspline_stabilize_late (GstBSplineStabilize * self,
    const GstBSplineStabilizeFrame * frame)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstClockTime pts = GST_BUFFER_PTS (frame->buffer), running, earliest;
  GstMessage *qos;

  if (!gst_base_transform_is_qos_enabled (trans)
      || !GST_CLOCK_TIME_IS_VALID (pts))
    return FALSE;
  running = gst_segment_to_running_time (&trans->segment, GST_FORMAT_TIME, pts);
  GST_OBJECT_LOCK (self);
  earliest = self->earliest_time;
  GST_OBJECT_UNLOCK (self);
  if (!GST_CLOCK_TIME_IS_VALID (running) || !GST_CLOCK_TIME_IS_VALID (earliest)
      || running > earliest)
    return FALSE;
  self->qos_dropped++;
  qos = gst_message_new_qos (GST_OBJECT (self), FALSE, running,
      gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME, pts), pts,
      GST_BUFFER_DURATION (frame->buffer));
  gst_message_set_qos_stats (qos, GST_FORMAT_BUFFERS, self->path.n_in,
      self->qos_dropped);
  gst_element_post_message (GST_ELEMENT (self), qos);
  GST_DEBUG_OBJECT (self, "frame %" G_GUINT64_FORMAT " late: not warped",
      frame->position);
  return TRUE;
}

/* Why this stream cannot defer (NULL: it can), warned once per caps where
 * defer is set. */
static const gchar *
gst_bspline_stabilize_defer_refusal (GstBSplineStabilize * self, gboolean defer)
{
  return gst_bspline_chain_defer_refusal (&self->defer,
      GST_VIDEO_FILTER (self), defer,
      gst_bspline_stabilize_cuda_same_memory (self),
      self->run.crop == GST_BSPLINE_STABILIZE_CROP_KEEP_BORDER ?
      "crop=keep-border fills the border from the previous output frame, "
      "which a warp chain cannot describe" : self->rolling.on ?
      "the rolling-shutter correction is a map of its own for each frame, "
      "which the warp chain does not carry" : NULL);
}

/* defer=true: the frame's correction (and lens stage) appended to the
 * buffer's warp chain instead of resampled, the frame pushed as it is (no
 * copy); the messages, the transforms file and the latency are the same.
 * TRUE where it deferred (*outbuf) or failed (*ret). */
static gboolean
gst_bspline_stabilize_defer (GstBSplineStabilize * self,
    GstBSplineStabilizeFrame * frame, const bspline_stabilize_result * result,
    GstFlowReturn * ret, GstBuffer ** outbuf)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  bspline_lens lenses[BSPLINE_CHAIN_MAX_LENSES];
  bspline_chain_stage stage;
  bspline_geometry geometry;
  gdouble inverse[9];
  gint n_lenses;
  gboolean defer;
  gchar msg[256] = "";

  GST_OBJECT_LOCK (self);
  defer = self->settings.resample.defer;
  GST_OBJECT_UNLOCK (self);
  if (!defer || gst_bspline_stabilize_defer_refusal (self, defer)
      || gst_buffer_get_video_crop_meta (frame->buffer))
    return FALSE;
  gst_bspline_stabilize_geometry (self, &filter->in_info, result->matrix,
      &geometry);
  if (gst_bspline_chain_own_stage (&geometry, &stage, msg,
          sizeof (msg)) != BSPLINE_OK
      || bspline_chain_compose (&stage, 1, inverse, lenses, &n_lenses, msg,
          sizeof (msg)) != BSPLINE_OK) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("The frame's correction cannot be deferred: %s.", msg), (NULL));
    *ret = GST_FLOW_ERROR;
    return TRUE;
  }
  gst_bspline_stabilize_post (self, frame, result, FALSE);
  *outbuf = gst_bspline_chain_defer (gst_buffer_ref (frame->buffer),
      &filter->in_info, FALSE, &stage);
  *ret = GST_FLOW_OK;
  return TRUE;
}

/* The oldest pending frame's correction, with the horizon lock as the
 * properties say now (it may change while playing). */
static void
gst_bspline_stabilize_pop (GstBSplineStabilize * self, gboolean final,
    bspline_stabilize_result * result)
{
  gst_bspline_stabilize_sync_horizon (self);
  bspline_stabilizer_pop (self->path.stabilizer, final, result);
}

/* Maps a frame going out (in, out, and with_previous with
 * crop=keep-border the previous output frame: *have_prev), as CUDA
 * memory where on_device and the buffers are
 * (gst_bspline_stabilize_cuda_map); FALSE where a buffer is not a frame
 * of the caps. */
static gboolean
gst_bspline_stabilize_output_map (GstBSplineStabilize * self,
    GstBuffer * inbuf, GstBuffer * outbuf, gboolean on_device,
    gboolean with_previous, GstVideoFrame * in, GstVideoFrame * out,
    GstVideoFrame * prev, gboolean * have_prev)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);

  *have_prev = FALSE;
  if (!(on_device ? gst_bspline_stabilize_cuda_map (self, in,
              &filter->in_info, inbuf, GST_MAP_READ, FALSE) :
          gst_video_frame_map (in, &filter->in_info, inbuf, GST_MAP_READ)))
    return FALSE;
  if (!(on_device ? gst_bspline_stabilize_cuda_map (self, out,
              &filter->out_info, outbuf, GST_MAP_WRITE, FALSE) :
          gst_video_frame_map (out, &filter->out_info, outbuf,
              GST_MAP_WRITE))) {
    gst_video_frame_unmap (in);
    return FALSE;
  }
  if (with_previous && self->run.crop == GST_BSPLINE_STABILIZE_CROP_KEEP_BORDER
      && self->path.previous)
    *have_prev = on_device ? gst_bspline_stabilize_cuda_map (self, prev,
        &filter->out_info, self->path.previous, GST_MAP_READ, FALSE) :
        gst_video_frame_map (prev, &filter->out_info, self->path.previous,
        GST_MAP_READ);
  return TRUE;
}

static GstFlowReturn
gst_bspline_stabilize_output_frame (GstBSplineStabilize * self,
    gboolean final, GstBuffer ** outbuf)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  GstBSplineStabilizeSolve *solve = &self->path.solve;
  GstBSplineStabilizeFrame *frame, *next;
  bspline_stabilize_result result;
  GstVideoFrame in, out, prev;
  gboolean have_prev = FALSE, copy, on_device;
  GstBuffer *out_buffer = NULL;
  bspline_stmap *rolling = NULL;
  bspline_status status;
  gchar msg[256] = "";
  GstFlowReturn ret;

  *outbuf = NULL;
  for (;;) {
    frame = g_queue_peek_head (&self->path.frames);
    if (frame == NULL)
      return GST_FLOW_OK;
    if (frame->have_correction)
      result = frame->correction;
    else if (!final && gst_bspline_stabilize_solve_ahead (solve))
      /* requested after the last frame out: collected after the next
       * frame's motion, which runs beside it */
      return GST_FLOW_OK;
    else if (gst_bspline_stabilize_solve_collect (solve, &result))
      GST_LOG_OBJECT (self, "frame %" G_GUINT64_FORMAT ": solved on the "
          "solve's thread", frame->position);
    else if (!bspline_stabilizer_ready (self->path.stabilizer, final))
      return GST_FLOW_OK;
    else if (!final && gst_bspline_stabilize_solve_threaded (solve)) {
      /* the first frame of the overlap goes out with the next one */
      gst_bspline_stabilize_sync_horizon (self);
      gst_bspline_stabilize_solve_request (solve);
      return GST_FLOW_OK;
    } else
      gst_bspline_stabilize_pop (self, final, &result);
    g_queue_pop_head (&self->path.frames);
    /* the next frame's correction is solved while this one is warped and
     * the next input frame's motion is estimated */
    next = g_queue_peek_head (&self->path.frames);
    if (!final && next && !next->have_correction
        && gst_bspline_stabilize_solve_threaded (solve)
        && bspline_stabilizer_ready (self->path.stabilizer, FALSE)) {
      /* the lock as the properties say now, set while the solve's
       * thread is idle */
      gst_bspline_stabilize_sync_horizon (self);
      gst_bspline_stabilize_solve_request (solve);
    }
    if (!gst_bspline_stabilize_late (self, frame))
      break;
    gst_bspline_stabilize_rolling_pass (self, frame);
    /* analysed, recorded and posted, but not warped */
    gst_bspline_stabilize_post (self, frame, &result, TRUE);
    gst_bspline_stabilize_frame_free (self, frame);
  }

  status = gst_bspline_stabilize_rolling_map (self, frame, &rolling, msg,
      sizeof (msg));
  gst_bspline_stabilize_rolling_pass (self, frame);
  if (status != BSPLINE_OK)
    goto rolling_failed;
  if (gst_bspline_stabilize_defer (self, frame, &result, &ret, outbuf))
    goto done;
  ret = GST_BASE_TRANSFORM_GET_CLASS (trans)->prepare_output_buffer (trans,
      frame->buffer, &out_buffer);
  if (ret != GST_FLOW_OK || out_buffer == NULL)
    goto done;
  /* (with the lens stage or the rolling-shutter correction, every frame
   * is resampled) */
  copy = gst_bspline_settings_lens_model (&self->run.lens) == BSPLINE_LENS_NONE
      && rolling == NULL && gst_bspline_stabilize_is_identity (result.matrix);
  /* frames in CUDA memory stay on the GPU for the warp; a copy, or a warp
   * the CPU finishes, maps them for the CPU (GstCudaMemory's staging) */
  for (on_device = !copy;; on_device = FALSE) {
    if (!gst_bspline_stabilize_output_map (self, frame->buffer, out_buffer,
            on_device, !copy, &in, &out, &prev, &have_prev))
      goto map_failed;
    if (copy) {
      gst_video_frame_copy (&out, &in);
    } else {
      bspline_geometry geometry;

      gst_bspline_stabilize_geometry (self, &filter->in_info, result.matrix,
          &geometry);
      /* the rolling-shutter correction in the STMap stage's place: on the
       * frame as received, before the correction */
      if (rolling) {
        geometry.lens_model = BSPLINE_LENS_STMAP;
        geometry.stmap = rolling;
      }
      ret = gst_bspline_stabilize_warp (self, &geometry, frame, &in, &out,
          have_prev ? &prev : NULL);
    }
    if (have_prev)
      gst_video_frame_unmap (&prev);
    gst_video_frame_unmap (&in);
    gst_video_frame_unmap (&out);
    if (ret != GST_BSPLINE_STABILIZE_FLOW_ON_CPU || !on_device)
      break;
    ret = GST_FLOW_OK;
  }
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (out_buffer);
    goto done;
  }
  gst_bspline_stabilize_post (self, frame, &result, FALSE);
  gst_buffer_replace (&self->path.previous, out_buffer);
  *outbuf = out_buffer;

done:
  bspline_stmap_unref (rolling);
  gst_bspline_stabilize_frame_free (self, frame);
  return ret;

  /* ERRORS */
rolling_failed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("The rolling-shutter "
            "correction of frame %" G_GUINT64_FORMAT " failed: %s.",
            frame->position, msg), (NULL));
    ret = GST_FLOW_ERROR;
    goto done;
  }
map_failed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("A buffer is not a frame of the caps."), (NULL));
    gst_buffer_unref (out_buffer);
    ret = GST_FLOW_ERROR;
    goto done;
  }
}

/* The next frame out, if its correction is known (final: the window cut at
 * the last frame held back), with the engine's CUDA context current. */
static GstFlowReturn
gst_bspline_stabilize_output (GstBSplineStabilize * self, gboolean final,
    GstBuffer ** outbuf)
{
  gboolean entered = gst_bspline_stabilize_cuda_enter (self);
  GstFlowReturn ret;

  ret = gst_bspline_stabilize_output_frame (self, final, outbuf);
  gst_bspline_stabilize_cuda_leave (self, entered);
  return ret;
}

static GstFlowReturn
gst_bspline_stabilize_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstBSplineStabilize *self = GST_BSPLINE_STABILIZE (trans);

  if (self->too_small)
    return GST_BASE_TRANSFORM_CLASS (parent_class)->generate_output (trans,
        outbuf);
  return gst_bspline_stabilize_output (self, FALSE, outbuf);
}

/* Every frame held back, corrected with the window cut at the last one,
 * pushed (or dropped). */
static GstFlowReturn
gst_bspline_stabilize_drain (GstBSplineStabilize * self, gboolean push)
{
  GstFlowReturn ret = GST_FLOW_OK;

  if (!push) {
    gst_bspline_stabilize_reset (self);
    return GST_FLOW_OK;
  }
  while (ret == GST_FLOW_OK && !g_queue_is_empty (&self->path.frames)) {
    GstBuffer *out = NULL;

    ret = gst_bspline_stabilize_output (self, TRUE, &out);
    if (ret == GST_FLOW_OK && out)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), out);
    else if (out == NULL)
      break;
  }
  return ret;
}

static gboolean
gst_bspline_stabilize_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstBSplineStabilize *self = GST_BSPLINE_STABILIZE (trans);
  GError *error = NULL;

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      gst_bspline_stabilize_drain (self, TRUE);
      /* a failed write is an error, not an EOS */
      if (!gst_bspline_transforms_writer_flush (&self->transforms.writer,
              &error)) {
        gst_bspline_transforms_post_error (GST_ELEMENT (self), error, FALSE);
        gst_event_unref (event);
        return FALSE;
      }
      break;
    case GST_EVENT_FLUSH_STOP:
      /* a seek: the frames held back go; the transforms file's records go
       * on (INDEX counts on, the frames are found by their PTS) */
      gst_bspline_stabilize_drain (self, FALSE);
      self->path.n_in = 0;
      self->transforms.section_frames = 0;
      GST_OBJECT_LOCK (self);
      self->earliest_time = GST_CLOCK_TIME_NONE;
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* QOS events: where the sink is late, the output frames that would be late
 * too are not warped (gst_bspline_stabilize_late); the base class, which
 * would drop late input frames, whose motion the camera path needs, does
 * not see them.  Its rule: a frame whose running time is at most
 * timestamp + diff is late. */
static gboolean
gst_bspline_stabilize_src_event (GstBaseTransform * trans, GstEvent * event)
{
  GstBSplineStabilize *self = GST_BSPLINE_STABILIZE (trans);
  GstClockTimeDiff diff;
  GstClockTime timestamp;

  if (GST_EVENT_TYPE (event) != GST_EVENT_QOS)
    return GST_BASE_TRANSFORM_CLASS (parent_class)->src_event (trans, event);
  gst_event_parse_qos (event, NULL, NULL, &diff, &timestamp);
  GST_OBJECT_LOCK (self);
  if (GST_CLOCK_TIME_IS_VALID (timestamp) && diff > -(GstClockTimeDiff)
      timestamp)
    self->earliest_time = timestamp + diff;
  GST_OBJECT_UNLOCK (self);
  return gst_pad_push_event (GST_BASE_TRANSFORM_SINK_PAD (trans), event);
}

/* The look-ahead is the latency: `smoothing` frames (one more with
 * solve-thread).  A drain query
 * (serialized) pushes the frames held back. */
static gboolean
gst_bspline_stabilize_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  GstBSplineStabilize *self = GST_BSPLINE_STABILIZE (trans);
  GstVideoFilter *filter = GST_VIDEO_FILTER (trans);
  gboolean ret;

  if (gst_bspline_stabilize_cuda_query (self, query))
    return TRUE;
  if (direction == GST_PAD_SINK && GST_QUERY_TYPE (query) == GST_QUERY_DRAIN)
    gst_bspline_stabilize_drain (self, TRUE);
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
  if (ret)
    gst_bspline_stabilize_cuda_query_result (self, direction, query);
  if (ret && direction == GST_PAD_SRC
      && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    GstClockTime min, max, latency = 0;
    gboolean live;
    gint smoothing, fps_n = 0, fps_d = 1, reading;

    GST_OBJECT_LOCK (self);
    /* the solve's thread keeps one frame more */
    smoothing = self->settings.smoothing + (self->settings.solve_thread ? 1 :
        0);
    reading = self->settings.transforms_location != NULL
        && self->settings.transforms_mode ==
        GST_BSPLINE_STABILIZE_TRANSFORMS_READ;
    GST_OBJECT_UNLOCK (self);
    if (filter->negotiated) {
      fps_n = GST_VIDEO_INFO_FPS_N (&filter->in_info);
      fps_d = GST_VIDEO_INFO_FPS_D (&filter->in_info);
    }
    if (!reading && smoothing > 0 && fps_n > 0)
      latency = gst_util_uint64_scale_int (GST_SECOND * smoothing, fps_d,
          fps_n);
    else if (!reading && smoothing > 0)
      GST_WARNING_OBJECT (self, "no frame rate: the latency of %d frames "
          "cannot be given in time", smoothing);
    gst_query_parse_latency (query, &live, &min, &max);
    min += latency;
    if (GST_CLOCK_TIME_IS_VALID (max))
      max += latency;
    gst_query_set_latency (query, live, min, max);
  }
  return ret;
}

/* Upstream's pool must hold the frames held back
 * (gst_bspline_stabilize_frames_held): a pinned pool of as many where the
 * GPU warps, else that minimum. */
static gboolean
gst_bspline_stabilize_propose_allocation (GstBaseTransform * trans,
    G_GNUC_UNUSED GstQuery * decide_query, GstQuery * query)
{
  GstBSplineStabilize *self = GST_BSPLINE_STABILIZE (trans);
  guint held = gst_bspline_stabilize_frames_held (self);
  GstVideoInfo info;
  GstCaps *caps;
  gboolean ret;

  if (gst_bspline_stabilize_cuda_propose (self, query, held, &ret))
    return ret;
  gst_query_parse_allocation (query, &caps, NULL);
  if (caps == NULL || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  gst_query_add_allocation_pool (query, NULL, GST_VIDEO_INFO_SIZE (&info),
      held, 0);
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return TRUE;
}

/* Output frames come from a pool of pinned memory, which the GPU writes
 * directly; where that pool cannot be made, the engine stages the copy.
 * In CUDA memory, from a CUDA pool of the shared context.
 * defer=true: whether the chain meta gets to an element that applies it
 * (gstbsplinechain.h). */
static gboolean
gst_bspline_stabilize_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstBSplineStabilize *self = GST_BSPLINE_STABILIZE (trans);
  gboolean defer, cuda_memory, ret = TRUE;

  cuda_memory = gst_bspline_stabilize_cuda_decide_memory (self, query, &ret);
  if (!cuda_memory
      && !GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
          query))
    return FALSE;
  gst_bspline_chain_defer_decide (&self->defer,
      GST_BASE_TRANSFORM_SRC_PAD (trans), query);
  GST_OBJECT_LOCK (self);
  defer = self->settings.resample.defer;
  GST_OBJECT_UNLOCK (self);
  gst_bspline_stabilize_defer_refusal (self, defer);
  if (!cuda_memory)
    gst_bspline_stabilize_cuda_decide (self, query);
  return ret;
}

/* Each memory (system, and CUDA where the GPU can be used) on the other
 * pad, the size and format unchanged. */
static GstCaps *
gst_bspline_stabilize_transform_caps (GstBaseTransform * trans,
    G_GNUC_UNUSED GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps *ret =
      gst_bspline_stabilize_cuda_transform_caps (GST_BSPLINE_STABILIZE (trans),
      caps);

  if (filter) {
    GstCaps *both = gst_caps_intersect_full (filter, ret,
        GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (ret);
    ret = both;
  }
  return ret;
}

static void
gst_bspline_stabilize_set_context (GstElement * element, GstContext * context)
{
  gst_bspline_stabilize_cuda_set_context (GST_BSPLINE_STABILIZE (element),
      context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}
