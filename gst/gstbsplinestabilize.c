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
 * to moving objects; a frame with too little texture counts as no motion),
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
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gstbsplinestabilize.h"
#include "gstbsplineframe.h"
#include "gstbsplinesettings.h"
#include "gstbsplinetransforms.h"
#include "gstbsplinechain.h"
#include "bspline.h"
#include "bspline-geometry.h"
#include "bspline-keep-border.h"
#include "bspline-stabilize.h"
#ifdef HAVE_BSPLINE_CUDA
#include "bspline-cuda.h"
#include "bspline-cuda-motion.h"
#include "gstbsplinepinned.h"
#endif

GST_DEBUG_CATEGORY_STATIC (gst_bspline_stabilize_debug);
#define GST_CAT_DEFAULT gst_bspline_stabilize_debug

typedef enum
{
  GST_BSPLINE_STABILIZE_CROP_KEEP_BORDER,
  GST_BSPLINE_STABILIZE_CROP_FILL
} GstBSplineStabilizeCrop;

typedef enum
{
  GST_BSPLINE_STABILIZE_TRANSFORMS_WRITE,
  GST_BSPLINE_STABILIZE_TRANSFORMS_READ
} GstBSplineStabilizeTransformsMode;

/* Everything the properties say; copied out when the element starts, but
 * for the quality of the warp (resample), read again for each frame. */
typedef struct
{
  gint smoothing;
  bspline_stabilize_path path;
  gdouble path_margin;
  gdouble max_shift;
  gdouble max_angle;
  GstBSplineStabilizeCrop crop;
  gdouble zoom;
  gboolean auto_zoom;
  gboolean tripod;
  bspline_motion_model motion_model;
  GstBSplineSettings resample;  /* the properties shared with bsplinewarp */
  GstBSplineLensSettings lens;  /* the lens stage's */
  gchar *transforms_location;
  GstBSplineStabilizeTransformsMode transforms_mode;
} GstBSplineStabilizeSettings;

/* A frame held back for its look-ahead. */
typedef struct
{
  GstBuffer *buffer;
  guint64 position;             /* frames before it since start or flush */
  bspline_motion_result motion;
  /* read from the transforms file: the correction is known already */
  gboolean have_correction;
  bspline_stabilize_result correction;
#ifdef HAVE_BSPLINE_CUDA
  /* its planes on the GPU (uploaded once, for the motion and the warp), or
   * NULL: plane p at device + plane_offset[p], rows plane_stride[p] apart */
  gpointer device;
  gsize plane_offset[GST_VIDEO_MAX_PLANES];
  gint plane_stride[GST_VIDEO_MAX_PLANES];
#endif
} GstBSplineStabilizeFrame;

/* Frames on the GPU at most: the look-ahead of a large `smoothing` on large
 * frames would not fit; the frames beyond go up from system memory. */
#define GST_BSPLINE_STABILIZE_DEVICE_BYTES ((gsize) 1 << 30)

struct _GstBSplineStabilize
{
  GstVideoFilter parent;

  /* behind the object lock */
  GstBSplineStabilizeSettings settings;

  /* streaming thread only */
  GstBSplineStabilizeSettings run;      /* snapshot taken at start */
  GstVideoChromaSite chroma_site;
  bspline_motion_params motion_params;
  gint motion_width, motion_height;     /* of the frames it is estimated on */
  bspline_motion_estimator *estimator;  /* the motion on the CPU, or NULL */
  /* with a lens stage, the motion is estimated on the undistorted luma (or
   * R'G'B'), resampled from plane 0 at the analysis resolution, 1 /
   * analysis_factor of the frame's, by analysis_plan into analysis */
  bspline_plan *analysis_plan;
  bspline_image analysis;
  gint analysis_factor;
  bspline_stabilizer *stabilizer;
  bspline_cpu *cpu;
#ifdef HAVE_BSPLINE_CUDA
  bspline_cuda *cuda;           /* the warp on the GPU, or NULL */
  bspline_cuda_motion *gpu_motion;      /* the motion on the GPU, or NULL */
  GSList *device_free;          /* device frames not in use */
  guint device_frames;          /* device frames allocated */
  guint max_device_frames;
  gsize device_frame_size;
  /* crop=keep-border on the GPU: the previous output frame's planes in
   * device memory (plane p at keep_device + keep_offset[p], rows
   * keep_pitch[p] bytes apart), made at the caps' first warp; keep_of,
   * the output buffer whose pixels they hold (NULL: none), keep_position
   * its frame's; keep_on_cpu: no device memory for them, the border is
   * composed on the CPU until the caps change */
  gpointer keep_device;
  gsize keep_offset[GST_VIDEO_MAX_PLANES];
  gsize keep_pitch[GST_VIDEO_MAX_PLANES];
  GstBuffer *keep_of;
  guint64 keep_position;
  gboolean keep_on_cpu;
#endif
  GQueue frames;                /* GstBSplineStabilizeFrame, oldest first */
  GstBuffer *previous;          /* the last output frame, for keep-border */
  guint64 n_in;                 /* frames since start or flush */
  /* the transforms file (gstbsplinetransforms.h): each caps' frames are a
   * section, started at the caps' first frame (new_section) */
  GstBSplineTransformsWriter writer;    /* transforms-mode=write */
  GstBSplineTransformsFile *file;       /* transforms-mode=read */
  guint next_section;           /* of the file, read mode */
  gboolean new_section;         /* new caps: the next frame starts one */
  guint64 section_frames;       /* frames of the section, read mode */
  GArray *corrections;          /* bspline_stabilize_result of each record
                                 * of the section, read mode */
  guint64 qos_dropped;          /* frames not warped, too late */
  gboolean too_small;           /* frames pass unchanged (passthrough) */
  /* defer: why downstream would not apply the chain meta (NULL: it
   * would; gst_bspline_chain_downstream_refusal), and whether the element
   * warned that it resamples instead */
  gchar *downstream_refusal;
  gboolean warned_defer;
  /* behind the object lock: QoS, from the src pad's QOS events */
  GstClockTime earliest_time;
};

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
  PROP_PATH_MARGIN
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
#define DEFAULT_MOTION_MODEL BSPLINE_MOTION_SIMILARITY
#define DEFAULT_TRANSFORMS_MODE GST_BSPLINE_STABILIZE_TRANSFORMS_WRITE

/* 8-bit formats whose luma (or R'G'B') the motion is estimated on. */
#define GST_BSPLINE_STABILIZE_FORMATS \
    "{ RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, xRGB, xBGR, RGB, BGR, I420, " \
    "YV12, NV12, NV21, Y42B, Y444, GRAY8 }"

#define GST_BSPLINE_STABILIZE_CAPS \
    GST_VIDEO_CAPS_MAKE (GST_BSPLINE_STABILIZE_FORMATS) \
    ", interlace-mode = (string) progressive"

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
static GstFlowReturn gst_bspline_stabilize_drain (GstBSplineStabilize * self,
    gboolean push);

static void
gst_bspline_stabilize_class_init (GstBSplineStabilizeClass * klass)
{
  /* read when the element starts */
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_bspline_stabilize_debug, "bsplinestabilize", 0,
      "B-spline video stabilization");
  gst_bspline_frame_add_pad_templates (element_class,
      GST_BSPLINE_STABILIZE_CAPS);

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
          "in pixels; -1 = no limit (range -1 to 1e6, default -1)", -1.0, 1e6,
          DEFAULT_MAX_SHIFT, flags));
  gst_bspline_settings_install_field (gobject_class, PROP_MAX_ANGLE,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, max_angle),
      g_param_spec_double ("max-angle", "Max angle",
          "Largest rotation of a correction in degrees; -1 = no limit "
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
  gst_bspline_settings_install_field (gobject_class, PROP_TRIPOD,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, tripod),
      g_param_spec_boolean ("tripod", "Tripod",
          "Hold the first frame's view: remove all camera motion, pans "
          "included (default false)", DEFAULT_TRIPOD, flags));
  gst_bspline_settings_install_field (gobject_class, PROP_MOTION_MODEL,
      G_STRUCT_OFFSET (GstBSplineStabilizeSettings, motion_model),
      g_param_spec_enum ("motion-model", "Motion model",
          "Camera motion between frames: similarity (translation, rotation, "
          "scale) or affine (default similarity)",
          GST_TYPE_BSPLINE_STABILIZE_MOTION_MODEL, DEFAULT_MOTION_MODEL,
          flags));
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
  g_queue_init (&self->frames);
}

static void
gst_bspline_stabilize_finalize (GObject * object)
{
  GstBSplineStabilize *self = GST_BSPLINE_STABILIZE (object);

  g_free (self->settings.transforms_location);
  /* a start that failed left its snapshot (stop frees it otherwise) */
  g_free (self->run.transforms_location);
  g_free (self->downstream_refusal);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_bspline_stabilize_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstBSplineStabilize *self = GST_BSPLINE_STABILIZE (object);

  if (!gst_bspline_settings_set_property (object, &self->settings, pspec,
          value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
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

#ifdef HAVE_BSPLINE_CUDA
/* Frees the device frames not in use (all of them once no frame is held
 * back). */
static void
gst_bspline_stabilize_free_device_frames (GstBSplineStabilize * self)
{
  GSList *l;

  for (l = self->device_free; l; l = l->next) {
    bspline_cuda_motion_device_free (self->gpu_motion, l->data);
    self->device_frames--;
  }
  g_slist_free (self->device_free);
  self->device_free = NULL;
}

/* Frees the device copy of the previous output frame (new caps, stop, or
 * the engine going). */
static void
gst_bspline_stabilize_free_keep_border (GstBSplineStabilize * self)
{
  bspline_cuda_device_free (self->cuda, self->keep_device);
  self->keep_device = NULL;
  self->keep_of = NULL;
  self->keep_on_cpu = FALSE;
}
#endif

/* A transforms file error as an element error: the message names the file
 * (and the line and value where it is the file's content). */
static void
gst_bspline_stabilize_transforms_error (GstBSplineStabilize * self,
    GError * error)
{
  if (error->code == GST_BSPLINE_TRANSFORMS_ERROR_FORMAT)
    GST_ELEMENT_ERROR (self, STREAM, DECODE, ("The transforms file cannot "
            "be used: %s.", error->message), ("transforms-mode=read"));
  else if (error->code == GST_BSPLINE_TRANSFORMS_ERROR_WRITE)
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("%s.", error->message),
        ("transforms-mode=write"));
  else if (self->run.transforms_mode == GST_BSPLINE_STABILIZE_TRANSFORMS_READ)
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ, ("%s.", error->message),
        ("transforms-mode=read"));
  else
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE, ("%s.", error->message),
        ("transforms-mode=write"));
  g_error_free (error);
}

static void
gst_bspline_stabilize_free_engines (GstBSplineStabilize * self)
{
#ifdef HAVE_BSPLINE_CUDA
  gst_bspline_stabilize_free_device_frames (self);
  gst_bspline_stabilize_free_keep_border (self);
  bspline_cuda_motion_free (self->gpu_motion);
  self->gpu_motion = NULL;
#endif
  bspline_motion_estimator_free (self->estimator);
  self->estimator = NULL;
  bspline_stabilizer_free (self->stabilizer);
  self->stabilizer = NULL;
  bspline_plan_free (self->analysis_plan);
  self->analysis_plan = NULL;
  g_free (self->analysis.data);
  self->analysis.data = NULL;
}

/* The warp of a frame of info: its correction (NULL: none) after the lens
 * stage, as bsplinewarp's matrix about the pivot (0, 0), onto a frame of
 * the same size.  Without a correction, a lens that folds over inside the
 * frame is an error (the properties cannot be used); with one, the points
 * past the fold are the fill (a correction may move a corner there). */
static void
gst_bspline_stabilize_geometry (GstBSplineStabilize * self,
    const GstVideoInfo * info, const bspline_affine * correction,
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
    bspline_affine_to_matrix (correction, geometry->matrix);
  }
}

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
  self->analysis = src;
  self->analysis.width = src.width / factor;
  self->analysis.height = src.height / factor;
  self->analysis.stride = (gssize) self->analysis.width * src.channels;
  if (status == BSPLINE_OK)
    status = bspline_plan_new_lens (&params, inverse, &lens, src.width,
        src.height, self->analysis.width, self->analysis.height,
        src.channels, &self->analysis_plan, msg, sizeof (msg));
  if (status == BSPLINE_ERROR_INVALID_TRANSFORM
      || status == BSPLINE_ERROR_INVALID_ARGUMENT) {
    gchar *text = gst_bspline_settings_lens_describe (&self->run.lens);

    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("The lens stage cannot be used: %s (%s).", msg, text),
        ("%dx%d frames", src.width, src.height));
    g_free (text);
    return FALSE;
  }
  self->analysis.data = status == BSPLINE_OK ?
      g_try_malloc ((gsize) self->analysis.stride * self->analysis.height) :
      NULL;
  if (self->analysis.data == NULL) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Not enough memory to undistort %dx%d frames for the motion.",
            src.width, src.height), ("%s", msg));
    return FALSE;
  }
  self->analysis_factor = factor;
  return TRUE;
}

static gboolean
gst_bspline_stabilize_start (GstBaseTransform * trans)
{
  GstBSplineStabilize *self = GST_BSPLINE_STABILIZE (trans);
  GstBSplineStabilizeSettings *s = &self->run;
  gchar msg[256] = "this build has no CUDA engine";
  GError *error = NULL;

  GST_OBJECT_LOCK (self);
  g_free (self->run.transforms_location);
  self->run = self->settings;
  self->run.transforms_location = g_strdup (self->settings.transforms_location);
  self->earliest_time = GST_CLOCK_TIME_NONE;
  GST_OBJECT_UNLOCK (self);

  self->n_in = 0;
  self->qos_dropped = 0;
  self->next_section = 0;
  self->new_section = TRUE;
  if (s->transforms_location
      && s->transforms_mode == GST_BSPLINE_STABILIZE_TRANSFORMS_READ) {
    self->file = gst_bspline_transforms_read (s->transforms_location, &error);
    if (self->file == NULL)
      goto transforms_failed;
  } else if (s->transforms_location
      && !gst_bspline_transforms_writer_open (&self->writer,
          s->transforms_location, &error)) {
    goto transforms_failed;
  }
#ifdef HAVE_BSPLINE_CUDA
  if (s->resample.backend != GST_BSPLINE_BACKEND_CPU) {
    if (bspline_cuda_new (s->resample.cuda_device_id, &self->cuda, msg,
            sizeof (msg)) == BSPLINE_OK)
      GST_INFO_OBJECT (self, "CUDA engine on device %d (%s)",
          s->resample.cuda_device_id, bspline_cuda_device_name (self->cuda));
  }
  if (s->resample.backend == GST_BSPLINE_BACKEND_CUDA && self->cuda == NULL)
    goto no_cuda;
#else
  if (s->resample.backend == GST_BSPLINE_BACKEND_CUDA)
    goto no_cuda;
#endif
  self->cpu = bspline_cpu_new ((int) s->resample.n_threads);
  if (self->cpu == NULL)
    goto no_cpu;
  return TRUE;

  /* ERRORS */
transforms_failed:
  {
    gst_bspline_stabilize_transforms_error (self, error);
    return FALSE;
  }
no_cuda:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, INIT,
        ("backend=cuda was requested, but the CUDA engine cannot run: %s.",
            msg), ("Set backend=auto to use the GPU where there is one."));
    gst_bspline_stabilize_stop (trans);
    return FALSE;
  }
no_cpu:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not start the CPU engine with n-threads=%u.",
            s->resample.n_threads), (NULL));
    gst_bspline_stabilize_stop (trans);
    return FALSE;
  }
}

/* The frame's device copy goes back to the free list. */
static void
gst_bspline_stabilize_frame_release (GstBSplineStabilize * self,
    GstBSplineStabilizeFrame * frame)
{
#ifdef HAVE_BSPLINE_CUDA
  if (frame->device)
    self->device_free = g_slist_prepend (self->device_free, frame->device);
  frame->device = NULL;
#else
  (void) self;
  (void) frame;
#endif
}

static void
gst_bspline_stabilize_frame_free (GstBSplineStabilize * self,
    GstBSplineStabilizeFrame * frame)
{
  gst_bspline_stabilize_frame_release (self, frame);
  gst_buffer_unref (frame->buffer);
  g_free (frame);
}

/* Forgets every frame held back and the path: a new sequence starts. */
static void
gst_bspline_stabilize_reset (GstBSplineStabilize * self)
{
  GstBSplineStabilizeFrame *frame;

  while ((frame = g_queue_pop_head (&self->frames)))
    gst_bspline_stabilize_frame_free (self, frame);
  gst_clear_buffer (&self->previous);
  if (self->estimator)
    bspline_motion_estimator_reset (self->estimator);
#ifdef HAVE_BSPLINE_CUDA
  if (self->gpu_motion)
    bspline_cuda_motion_reset (self->gpu_motion);
#endif
  if (self->stabilizer)
    bspline_stabilizer_reset (self->stabilizer);
}

static gboolean
gst_bspline_stabilize_stop (GstBaseTransform * trans)
{
  GstBSplineStabilize *self = GST_BSPLINE_STABILIZE (trans);
  GError *error = NULL;

  gst_bspline_stabilize_reset (self);
  gst_bspline_stabilize_free_engines (self);
#ifdef HAVE_BSPLINE_CUDA
  bspline_cuda_free (self->cuda);
  self->cuda = NULL;
#endif
  bspline_cpu_free (self->cpu);
  self->cpu = NULL;
  gst_bspline_transforms_free (self->file);
  self->file = NULL;
  if (self->corrections)
    g_array_free (self->corrections, TRUE);
  self->corrections = NULL;
  if (!gst_bspline_transforms_writer_close (&self->writer, &error))
    gst_bspline_stabilize_transforms_error (self, error);
  g_free (self->run.transforms_location);
  self->run.transforms_location = NULL;
  return TRUE;
}

/* New caps: the frames of the old ones leave first, then the engines are
 * made for the new size. */
static gboolean
gst_bspline_stabilize_set_info (GstVideoFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, G_GNUC_UNUSED GstCaps * outcaps,
    GstVideoInfo * out_info)
{
  GstBSplineStabilize *self = GST_BSPLINE_STABILIZE (filter);
  GstBSplineStabilizeSettings *s = &self->run;
  bspline_motion_params mp;
  bspline_stabilize_params sp;
  gint w = GST_VIDEO_INFO_WIDTH (in_info), h = GST_VIDEO_INFO_HEIGHT (in_info);
  gchar msg[256] = "";

  if (w != GST_VIDEO_INFO_WIDTH (out_info)
      || h != GST_VIDEO_INFO_HEIGHT (out_info))
    return FALSE;
  if (!g_queue_is_empty (&self->frames))
    gst_bspline_stabilize_drain (self, TRUE);
  gst_bspline_stabilize_reset (self);
  gst_bspline_stabilize_free_engines (self);

  /* no motion can be measured on frames this small: they pass unchanged
   * (not an error: a pipeline that scales down to a thumbnail runs on) */
  self->too_small = w < BSPLINE_MOTION_MIN_SIDE || h < BSPLINE_MOTION_MIN_SIDE;
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
  self->warned_defer = FALSE;
  /* until the allocation query of these caps says otherwise */
  g_free (self->downstream_refusal);
  self->downstream_refusal = g_strdup ("downstream has not been asked "
      "whether it takes the warp chain meta");

  bspline_stabilize_params_init (&sp, w, h);
  sp.smoothing = s->smoothing;
  sp.path = s->path;
  sp.margin = s->path_margin;
  sp.max_shift = s->max_shift;
  sp.max_angle = s->max_angle;
  sp.zoom = s->zoom;
  sp.auto_zoom = s->auto_zoom;
  sp.tripod = s->tripod;
  sp.model = s->motion_model;
  if (bspline_stabilizer_new (&sp, &self->stabilizer, msg, sizeof (msg))
      != BSPLINE_OK)
    goto bad_settings;

  bspline_motion_params_init (&mp);
  mp.model = s->motion_model;
  mp.n_threads = (int) s->resample.n_threads;
  self->motion_width = w;
  self->motion_height = h;
  /* with the lens stage, the estimator sees the undistorted frame at its
   * analysis resolution, and averages it no further */
  if (s->lens.model != BSPLINE_LENS_NONE) {
    gint factor = bspline_motion_analysis_factor (&mp, w, h);

    if (!gst_bspline_stabilize_analysis_plan (self, in_info, factor))
      return FALSE;
    self->motion_width = self->analysis.width;
    self->motion_height = self->analysis.height;
    mp.analysis_width = self->motion_width;
    mp.search_range /= factor;
  }
  self->motion_params = mp;
  /* with the warp on the GPU, the frames go up once, where the motion
   * (when estimated) and the warp read them */
#ifdef HAVE_BSPLINE_CUDA
  if (self->cuda) {
    if (bspline_cuda_motion_new (s->resample.cuda_device_id, &mp,
            self->motion_width, self->motion_height, &self->gpu_motion, msg,
            sizeof (msg)) != BSPLINE_OK) {
      if (s->resample.backend == GST_BSPLINE_BACKEND_CUDA)
        goto no_gpu_motion;
      GST_ELEMENT_WARNING (self, RESOURCE, FAILED,
          ("The motion cannot be estimated on the GPU (%s): estimating it "
              "on the CPU.", msg), (NULL));
    } else {
      gsize size = 0;
      guint p;

      /* a frame's planes, each on 256-byte boundaries */
      for (p = 0; p < GST_VIDEO_INFO_N_PLANES (in_info); p++) {
        bspline_image img;

        gst_bspline_frame_plane_image (in_info, NULL, p, &img);
        size += ((gsize) GST_VIDEO_INFO_PLANE_STRIDE (in_info, p) *
            img.height + 255) & ~(gsize) 255;
      }
      self->device_frame_size = size;
      /* the frames held back, the one arriving and the one leaving */
      self->max_device_frames = MIN ((guint64) s->smoothing + 2,
          GST_BSPLINE_STABILIZE_DEVICE_BYTES / MAX (size, 1));
      GST_INFO_OBJECT (self, "motion on the GPU; up to %u frames of %"
          G_GSIZE_FORMAT " bytes kept there", self->max_device_frames, size);
    }
  }
#endif
  /* the next frame starts a section of the transforms file */
  self->new_section = TRUE;
  /* with a transforms file read, no motion is estimated */
  if (self->file)
    return TRUE;
#ifdef HAVE_BSPLINE_CUDA
  if (self->gpu_motion == NULL)
#endif
    if (bspline_motion_estimator_new (&mp, self->motion_width,
            self->motion_height, &self->estimator, msg,
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
#ifdef HAVE_BSPLINE_CUDA
no_gpu_motion:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, INIT,
        ("backend=cuda was requested, but the motion cannot be estimated "
            "on the GPU: %s.", msg),
        ("Set backend=auto to continue on the CPU."));
    return FALSE;
  }
#endif
}

/* The luma (or R'G'B') of a mapped frame, for the motion estimator. */
static void
gst_bspline_stabilize_luma (GstVideoFrame * frame, bspline_luma_frame * luma)
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
}

#ifdef HAVE_BSPLINE_CUDA
/* The GPU failed on a resampling (msg says why): with backend=cuda, FALSE
 * (the caller posts the error); with backend=auto, a warning, and every
 * resampling from now on runs on the CPU. */
static gboolean
gst_bspline_stabilize_resample_to_cpu (GstBSplineStabilize * self,
    const gchar * msg)
{
  if (self->run.resample.backend == GST_BSPLINE_BACKEND_CUDA)
    return FALSE;
  GST_ELEMENT_WARNING (self, RESOURCE, FAILED,
      ("The GPU failed (%s): continuing on the CPU.", msg), (NULL));
  gst_bspline_stabilize_free_keep_border (self);
  bspline_cuda_free (self->cuda);
  self->cuda = NULL;
  return TRUE;
}
#endif

/* With the lens stage, the frame the motion is estimated on: plane 0 of
 * vframe undistorted at the analysis resolution by analysis_plan (on the
 * GPU where there is one, from the frame's device copy where it has one),
 * in place of luma's pixels (its layout of R'G'B' or grey bytes stays);
 * msg says why it failed. */
static bspline_status
gst_bspline_stabilize_undistort (GstBSplineStabilize * self,
    GstVideoFrame * vframe, const GstBSplineStabilizeFrame * frame,
    bspline_luma_frame * luma, gchar * msg, gsize msg_len)
{
  bspline_image src;
  bspline_status status = BSPLINE_ERROR_BACKEND;

  gst_bspline_frame_plane_image (&vframe->info, vframe, 0, &src);
#ifdef HAVE_BSPLINE_CUDA
  if (self->cuda) {
    bspline_image on_device = src;
    gint slot = -1;

    if (frame && frame->device) {
      on_device.data = (guint8 *) frame->device + frame->plane_offset[0];
      on_device.stride = frame->plane_stride[0];
    }
    status = bspline_cuda_submit_placed (self->cuda, self->analysis_plan,
        &on_device, frame && frame->device, &self->analysis, 0, &slot);
    if (status == BSPLINE_OK)
      status = bspline_cuda_finish (self->cuda, slot);
    if (status != BSPLINE_OK) {
      g_strlcpy (msg, bspline_cuda_last_error (self->cuda), msg_len);
      if (!gst_bspline_stabilize_resample_to_cpu (self, msg))
        return status;
    }
  }
#else
  (void) frame;
#endif
  if (status != BSPLINE_OK) {
    status = bspline_cpu_execute (self->cpu, self->analysis_plan, &src,
        &self->analysis);
    if (status != BSPLINE_OK) {
      g_strlcpy (msg, bspline_cpu_last_error (self->cpu), msg_len);
      return status;
    }
  }
  luma->data = self->analysis.data;
  luma->stride = self->analysis.stride;
  luma->width = self->analysis.width;
  luma->height = self->analysis.height;
  return BSPLINE_OK;
}

/* A motion estimated on the analysis frames of the lens stage, in the
 * frame's pixels: the analysis pixels' edges are analysis_factor frame
 * pixels apart, from the same origin. */
static void
gst_bspline_stabilize_motion_to_frame (GstBSplineStabilize * self,
    bspline_motion_result * r)
{
  if (self->analysis_plan == NULL)
    return;
  r->motion.m[2] *= self->analysis_factor;
  r->motion.m[5] *= self->analysis_factor;
}

#ifdef HAVE_BSPLINE_CUDA
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
  if (end > self->device_frame_size)
    return FALSE;
  if (self->device_free) {
    device = self->device_free->data;
    self->device_free = g_slist_delete_link (self->device_free,
        self->device_free);
  } else if (self->device_frames < self->max_device_frames) {
    device = bspline_cuda_motion_device_alloc (self->gpu_motion,
        self->device_frame_size);
    if (device == NULL) {
      /* no more device memory: the frames beyond go up from system
       * memory */
      GST_INFO_OBJECT (self, "%u device frames: %s", self->device_frames,
          bspline_cuda_motion_last_error (self->gpu_motion));
      self->max_device_frames = self->device_frames;
      return FALSE;
    }
    self->device_frames++;
  } else {
    return FALSE;
  }
  frame->device = device;
  *status = bspline_cuda_motion_upload (self->gpu_motion, device, (gint) n,
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

  if (status == BSPLINE_OK && self->analysis_plan) {
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
    status = bspline_cuda_motion_estimate (self->gpu_motion, &analysis,
        uploaded && self->analysis_plan == NULL, r);
  if (status != BSPLINE_OK)
    g_strlcpy (error, bspline_cuda_motion_last_error (self->gpu_motion),
        error_len);
  return status;
}

/* No more frames on the GPU: those held back are warped from system
 * memory. */
static void
gst_bspline_stabilize_drop_gpu_motion (GstBSplineStabilize * self)
{
  GList *l;

  for (l = self->frames.head; l; l = l->next)
    gst_bspline_stabilize_frame_release (self, l->data);
  gst_bspline_stabilize_free_device_frames (self);
  bspline_cuda_motion_free (self->gpu_motion);
  self->gpu_motion = NULL;
}

/* The GPU failed on the motion, with backend=auto: the motion goes to the
 * CPU, which first sees the previous frame where it is still held back
 * (else the current frame starts a new sequence). */
static gboolean
gst_bspline_stabilize_motion_to_cpu (GstBSplineStabilize * self,
    const gchar * error)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  GstBSplineStabilizeFrame *last;
  gchar msg[256];

  GST_ELEMENT_WARNING (self, RESOURCE, FAILED,
      ("The GPU failed on the motion estimation (%s): continuing on the "
          "CPU.", error), ("backend=auto; the motion of every frame from "
          "now on is estimated on the CPU."));
  gst_bspline_stabilize_drop_gpu_motion (self);
  if (bspline_motion_estimator_new (&self->motion_params,
          self->motion_width, self->motion_height, &self->estimator, msg,
          sizeof (msg)) != BSPLINE_OK)
    return FALSE;
  last = g_queue_peek_tail (&self->frames);
  if (last) {
    GstVideoFrame vframe;
    bspline_luma_frame luma;
    bspline_motion_result ignored;

    if (gst_video_frame_map (&vframe, &filter->in_info, last->buffer,
            GST_MAP_READ)) {
      gst_bspline_stabilize_luma (&vframe, &luma);
      if (self->analysis_plan == NULL
          || gst_bspline_stabilize_undistort (self, &vframe, last, &luma, msg,
              sizeof (msg)) == BSPLINE_OK)
        bspline_motion_estimate (self->estimator, &luma, &ignored);
      gst_video_frame_unmap (&vframe);
    }
  }
  return TRUE;
}
#endif

/* Estimates the motion of a new frame (or reads it), holds the frame
 * back and records its motion. */
/* The first frame of new caps starts a section of the transforms file: a
 * size line written, or the next section read, whose corrections are all
 * known at once (its whole path). */
static gboolean
gst_bspline_stabilize_start_section (GstBSplineStabilize * self)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  gint w = GST_VIDEO_INFO_WIDTH (&filter->in_info);
  gint h = GST_VIDEO_INFO_HEIGHT (&filter->in_info);
  GstBSplineTransformsSection *section;
  bspline_stabilize_result result;
  GError *error = NULL;
  guint i;

  self->new_section = FALSE;
  self->section_frames = 0;
  if (self->writer.file) {
    if (!gst_bspline_transforms_writer_section (&self->writer, w, h, &error)) {
      gst_bspline_stabilize_transforms_error (self, error);
      return FALSE;
    }
    return TRUE;
  }
  if (self->file == NULL)
    return TRUE;
  if (self->next_section >= self->file->sections->len)
    goto no_section;
  section = g_ptr_array_index (self->file->sections, self->next_section++);
  if (section->width != w || section->height != h)
    goto bad_size;
  if (self->corrections == NULL)
    self->corrections = g_array_new (FALSE, FALSE,
        sizeof (bspline_stabilize_result));
  g_array_set_size (self->corrections, 0);
  bspline_stabilizer_reset (self->stabilizer);
  for (i = 0; i < section->records->len; i++)
    if (bspline_stabilizer_push (self->stabilizer, &g_array_index
            (section->records, GstBSplineTransformsRecord, i).motion)
        != BSPLINE_OK)
      goto no_memory;
  while (bspline_stabilizer_ready (self->stabilizer, TRUE)) {
    bspline_stabilizer_pop (self->stabilizer, TRUE, &result);
    g_array_append_val (self->corrections, result);
  }
  return TRUE;

  /* ERRORS */
no_section:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("The transforms file \"%s\" "
            "has %u section(s), one for each caps of the first pass; this "
            "stream has more (its caps changed more often).",
            self->file->path, self->file->sections->len),
        ("new caps: %dx%d", w, h));
    return FALSE;
  }
bad_size:
  {
    GST_ELEMENT_ERROR (self, STREAM, WRONG_TYPE, ("Section %u of the "
            "transforms file \"%s\" (line %u) is for %dx%d frames, the "
            "stream's are %dx%d.", self->next_section, self->file->path,
            section->line, section->width, section->height, w, h), (NULL));
    return FALSE;
  }
no_memory:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("Not enough memory "
            "for the camera path of \"%s\".", self->file->path), (NULL));
    return FALSE;
  }
}

/* The record of the transforms file for frame of the current section, and
 * its correction: by the frame's PTS (within half a frame), or by its
 * position in the section where there are no PTSs. */
static gboolean
gst_bspline_stabilize_read_record (GstBSplineStabilize * self,
    GstBSplineStabilizeFrame * frame)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  const GstBSplineTransformsSection *section =
      g_ptr_array_index (self->file->sections, self->next_section - 1);
  const GstBSplineTransformsRecord *record;
  GstClockTime pts = GST_BUFFER_PTS (frame->buffer), tolerance = 0;
  gint fps_n = GST_VIDEO_INFO_FPS_N (&filter->in_info);
  gint fps_d = GST_VIDEO_INFO_FPS_D (&filter->in_info);

  if (fps_n > 0 && fps_d > 0)
    tolerance = gst_util_uint64_scale_int (GST_SECOND / 2, fps_d, fps_n);
  else if (GST_BUFFER_DURATION_IS_VALID (frame->buffer))
    tolerance = GST_BUFFER_DURATION (frame->buffer) / 2;
  record = gst_bspline_transforms_find (section, pts, tolerance,
      self->section_frames);
  if (record == NULL)
    goto no_record;
  frame->motion.motion = record->motion;
  frame->motion.reliable = record->reliable;
  frame->correction = g_array_index (self->corrections,
      bspline_stabilize_result,
      record - (const GstBSplineTransformsRecord *) section->records->data);
  frame->have_correction = TRUE;
  return TRUE;

  /* ERRORS */
no_record:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("The transforms file \"%s\" "
            "has no record for the frame at %" GST_TIME_FORMAT " (section "
            "%u, frame %" G_GUINT64_FORMAT " of it): it was written for "
            "another stream or another part of it.", self->file->path,
            GST_TIME_ARGS (pts), self->next_section, self->section_frames),
        ("%u records in the section", section->records->len));
    return FALSE;
  }
}

/* An upstream pool that cannot grow to the frames held back (smoothing
 * frames ahead, the one arriving and the one leaving) would stall: such
 * frames are copied out of it. */
static GstBuffer *
gst_bspline_stabilize_own_buffer (GstBSplineStabilize * self,
    GstBuffer * buffer)
{
  GstStructure *config;
  GstBuffer *copy;
  guint max = 0;

  if (buffer->pool == NULL || self->file != NULL)
    return buffer;
  config = gst_buffer_pool_get_config (buffer->pool);
  gst_buffer_pool_config_get_params (config, NULL, NULL, NULL, &max);
  gst_structure_free (config);
  if (max == 0 || max >= (guint) self->run.smoothing + 2)
    return buffer;
  copy = gst_buffer_copy_deep (buffer);
  gst_buffer_unref (buffer);
  return copy;
}

static GstFlowReturn
gst_bspline_stabilize_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  GstBSplineStabilize *self = GST_BSPLINE_STABILIZE (trans);
  GstVideoFilter *filter = GST_VIDEO_FILTER (trans);
  GstBSplineStabilizeFrame *frame;
  GstVideoFrame vframe;
  bspline_luma_frame luma;
  bspline_motion_result r;
  bspline_status status = BSPLINE_ERROR_BACKEND;
  GError *write_error = NULL;
  gchar error[512] = "";
  GstFlowReturn ret;

  /* the base class renegotiates and decides the allocation, then leaves
   * the buffer in queued_buf; it never drops one for QoS here (the element
   * takes the QOS events, gst_bspline_stabilize_src_event) */
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->submit_input_buffer (trans,
      is_discont, input);
  if (ret != GST_FLOW_OK || trans->queued_buf == NULL || self->too_small)
    return ret;
  input = trans->queued_buf;
  trans->queued_buf = NULL;
  if (!filter->negotiated || self->stabilizer == NULL)
    goto not_negotiated;
  if (gst_buffer_get_bspline_chain_meta (input)
      && gst_buffer_get_bspline_chain_meta (input)->n_stages > 0)
    goto deferred_input;
  if (self->new_section && !gst_bspline_stabilize_start_section (self)) {
    gst_buffer_unref (input);
    return GST_FLOW_ERROR;
  }
  memset (&r, 0, sizeof (r));
  frame = g_new0 (GstBSplineStabilizeFrame, 1);
  frame->buffer = gst_bspline_stabilize_own_buffer (self, input);
  input = frame->buffer;
  frame->position = self->n_in;
  if (self->file) {
    if (!gst_bspline_stabilize_read_record (self, frame)) {
      gst_bspline_stabilize_frame_free (self, frame);
      return GST_FLOW_ERROR;
    }
    r = frame->motion;
#ifdef HAVE_BSPLINE_CUDA
    /* up to the GPU now, for the warp */
    if (self->gpu_motion) {
      if (!gst_video_frame_map (&vframe, &filter->in_info, input, GST_MAP_READ))
        goto map_failed;
      if (!gst_bspline_stabilize_upload (self, &vframe, frame, &status)
          && status != BSPLINE_OK) {
        gst_bspline_stabilize_frame_release (self, frame);
        if (self->run.resample.backend == GST_BSPLINE_BACKEND_CUDA) {
          gst_video_frame_unmap (&vframe);
          GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
              ("The GPU failed on the upload of frame %" G_GUINT64_FORMAT
                  ": %s.", self->n_in,
                  bspline_cuda_motion_last_error (self->gpu_motion)),
              ("backend=cuda; with backend=auto the element would continue "
                  "on the CPU"));
          gst_bspline_stabilize_frame_free (self, frame);
          return GST_FLOW_ERROR;
        }
        GST_ELEMENT_WARNING (self, RESOURCE, FAILED,
            ("The GPU failed on the upload of a frame (%s): frames go up "
                "from system memory from now on.",
                bspline_cuda_motion_last_error (self->gpu_motion)), (NULL));
        gst_bspline_stabilize_drop_gpu_motion (self);
      }
      gst_video_frame_unmap (&vframe);
    }
#endif
  } else {
    if (!gst_video_frame_map (&vframe, &filter->in_info, input, GST_MAP_READ))
      goto map_failed;
    gst_bspline_stabilize_luma (&vframe, &luma);
#ifdef HAVE_BSPLINE_CUDA
    if (self->gpu_motion) {
      status = gst_bspline_stabilize_estimate_gpu (self, &vframe, &luma,
          frame, &r, error, sizeof (error));
      if (status != BSPLINE_OK) {
        gst_bspline_stabilize_frame_release (self, frame);
        if (self->run.resample.backend == GST_BSPLINE_BACKEND_CUDA
            || !gst_bspline_stabilize_motion_to_cpu (self, error)) {
          gst_video_frame_unmap (&vframe);
          GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
              ("The GPU failed on the motion of frame %" G_GUINT64_FORMAT
                  ": %s.", self->n_in, error), ("backend=%s",
                  self->run.resample.backend ==
                  GST_BSPLINE_BACKEND_CUDA ? "cuda; with "
                  "backend=auto the element would continue on the CPU" :
                  "auto, and the CPU estimator could not be made"));
          gst_bspline_stabilize_frame_free (self, frame);
          return GST_FLOW_ERROR;
        }
      }
    }
#endif
    /* status BSPLINE_OK: estimated on the GPU; else on the CPU */
    if (status != BSPLINE_OK && self->analysis_plan
        && gst_bspline_stabilize_undistort (self, &vframe, frame, &luma,
            error, sizeof (error)) != BSPLINE_OK) {
      gst_video_frame_unmap (&vframe);
      goto undistort_failed;
    }
    if (status != BSPLINE_OK
        && bspline_motion_estimate (self->estimator, &luma, &r) != BSPLINE_OK) {
      gst_video_frame_unmap (&vframe);
      goto estimate_failed;
    }
    gst_video_frame_unmap (&vframe);
    gst_bspline_stabilize_motion_to_frame (self, &r);
    if (bspline_stabilizer_push (self->stabilizer, &r.motion) != BSPLINE_OK)
      goto estimate_failed;
    if (self->writer.file && !gst_bspline_transforms_writer_record
        (&self->writer, GST_BUFFER_PTS (input), &r, &write_error))
      goto write_failed;
  }
  GST_LOG_OBJECT (self, "frame %" G_GUINT64_FORMAT ": reliable %d, texture "
      "%g, inliers %g, %d steps", self->n_in, r.reliable, r.texture,
      r.inliers, r.iterations);
  self->n_in++;
  self->section_frames++;
  frame->motion = r;
  g_queue_push_tail (&self->frames, frame);
  return GST_FLOW_OK;

  /* ERRORS */
not_negotiated:
  {
    gst_buffer_unref (input);
    return GST_FLOW_NOT_NEGOTIATED;
  }
deferred_input:
  {
    /* the motion is measured on the pixels the buffer holds, which a
     * deferred chain has not moved yet (upstream bspline elements see
     * that this element does not take the meta and resample instead) */
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("A buffer carries a deferred warp chain: bsplinestabilize measures "
            "motion on the frame as it is and cannot apply it first."),
        ("GstBSplineChainMeta of %u stages; resample upstream (defer=false) "
            "or attach the chain after the stabilizer",
            gst_buffer_get_bspline_chain_meta (input)->n_stages));
    gst_buffer_unref (input);
    return GST_FLOW_ERROR;
  }
map_failed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("A buffer of %" G_GSIZE_FORMAT " bytes is not a frame of the caps.",
            gst_buffer_get_size (input)), (NULL));
    gst_bspline_stabilize_frame_free (self, frame);
    return GST_FLOW_ERROR;
  }
undistort_failed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Undistorting frame %"
            G_GUINT64_FORMAT " for the motion estimation failed: %s.",
            self->n_in, error), ("backend=%s", self->run.resample.backend ==
            GST_BSPLINE_BACKEND_CUDA ? "cuda" : "auto or cpu"));
    gst_bspline_stabilize_frame_free (self, frame);
    return GST_FLOW_ERROR;
  }
estimate_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("The motion of frame %" G_GUINT64_FORMAT " could not be estimated.",
            self->n_in), ("out of memory"));
    gst_bspline_stabilize_frame_free (self, frame);
    return GST_FLOW_ERROR;
  }
write_failed:
  {
    gst_bspline_stabilize_transforms_error (self, write_error);
    gst_bspline_stabilize_frame_free (self, frame);
    return GST_FLOW_ERROR;
  }
}

static gboolean
gst_bspline_stabilize_is_identity (const bspline_affine * a)
{
  static const gdouble id[6] = { 1, 0, 0, 0, 1, 0 };
  gint i;

  for (i = 0; i < 6; i++)
    if (fabs (a->m[i] - id[i]) > 1e-9)
      return FALSE;
  return TRUE;
}

#ifdef HAVE_BSPLINE_CUDA
/* With crop=keep-border, the device copy of the previous output frame,
 * made at the first warp of the caps: FALSE where there is no device
 * memory for it (said once, as a warning), and the border is then
 * composed on the CPU after the download. */
static gboolean
gst_bspline_stabilize_keep_border_device (GstBSplineStabilize * self,
    const GstVideoInfo * info)
{
  gsize size = 0;
  guint p;

  if (self->keep_device)
    return TRUE;
  if (self->keep_on_cpu)
    return FALSE;
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    bspline_image img;

    gst_bspline_frame_plane_image (info, NULL, p, &img);
    self->keep_pitch[p] = ((gsize) img.width * img.channels *
        bspline_sample_size (img.type) + 255) & ~(gsize) 255;
    self->keep_offset[p] = size;
    size += self->keep_pitch[p] * img.height;
  }
  self->keep_device = bspline_cuda_device_alloc (self->cuda, size);
  if (self->keep_device == NULL) {
    GST_ELEMENT_WARNING (self, RESOURCE, NO_SPACE_LEFT,
        ("The GPU has no room for the previous frame of crop=keep-border "
            "(%s): the border is composed on the CPU.",
            bspline_cuda_last_error (self->cuda)), (NULL));
    self->keep_on_cpu = TRUE;
    return FALSE;
  }
  return TRUE;
}
#endif

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
 * CPU), else on the CPU after the warp. */
static GstFlowReturn
gst_bspline_stabilize_warp (GstBSplineStabilize * self,
    const bspline_geometry * geometry, GstBSplineStabilizeFrame * frame,
    GstVideoFrame * in, GstVideoFrame * out, GstVideoFrame * previous)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  guint n = GST_VIDEO_FRAME_N_PLANES (in), p;
  bspline_plan *plans[GST_VIDEO_MAX_PLANES] = { NULL, };
  bspline_image src[GST_VIDEO_MAX_PLANES], dst[GST_VIDEO_MAX_PLANES];
  bspline_image prev[GST_VIDEO_MAX_PLANES];
  gdouble inverse[GST_VIDEO_MAX_PLANES][9];
  bspline_lens lens[GST_VIDEO_MAX_PLANES];
  bspline_status status = BSPLINE_OK;
  gboolean on_gpu = FALSE, kept = FALSE;
  GstFlowReturn ret = GST_FLOW_OK;
  GstBSplineSettings resample;
  gchar msg[512] = "";

#ifndef HAVE_BSPLINE_CUDA
  (void) frame;
#endif

  /* the quality of the warp may change while playing */
  GST_OBJECT_LOCK (self);
  resample = self->settings.resample;
  GST_OBJECT_UNLOCK (self);
  for (p = 0; p < n; p++) {
    bspline_plane_grid grid;
    bspline_params params;

    gst_bspline_frame_plane_grid (&filter->in_info, self->chroma_site, p,
        &grid);
    gst_bspline_frame_plane_image (&filter->in_info, in, p, &src[p]);
    gst_bspline_frame_plane_image (&filter->out_info, out, p, &dst[p]);
    if (previous)
      gst_bspline_frame_plane_image (&filter->out_info, previous, p, &prev[p]);
    gst_bspline_settings_plane_params (&resample, &filter->in_info, p,
        &src[p], &params);
    status = bspline_geometry_plane_map (geometry, &grid, inverse[p], &lens[p],
        msg, sizeof (msg));
    if (status == BSPLINE_OK)
      status = bspline_plan_new_lens (&params, inverse[p], &lens[p],
          src[p].width, src[p].height, dst[p].width, dst[p].height,
          src[p].channels, &plans[p], msg, sizeof (msg));
    if (status != BSPLINE_OK)
      goto failed;
  }
#ifdef HAVE_BSPLINE_CUDA
  if (self->cuda) {
    gint slots[GST_VIDEO_MAX_PLANES];
    gboolean keep = self->run.crop == GST_BSPLINE_STABILIZE_CROP_KEEP_BORDER
        && gst_bspline_stabilize_keep_border_device (self, &filter->out_info);
    /* the device copy holds previous where the last frame out came from
     * here, the one before this */
    gboolean keep_current = previous && previous->buffer == self->keep_of
        && frame->position == self->keep_position + 1;

    self->keep_of = NULL;
    for (p = 0; p < n; p++) {
      bspline_image on_device = src[p];
      bspline_cuda_keep_border kb = { inverse[p], &lens[p], src[p].width,
        src[p].height, NULL, 0, previous != NULL, NULL
      };

      slots[p] = -1;
      if (status != BSPLINE_OK)
        continue;
      if (frame->device) {
        on_device.data = (guint8 *) frame->device + frame->plane_offset[p];
        on_device.stride = frame->plane_stride[p];
      }
      if (keep) {
        kb.previous = (guint8 *) self->keep_device + self->keep_offset[p];
        kb.previous_pitch = self->keep_pitch[p];
        kb.upload = previous && !keep_current ? &prev[p] : NULL;
        status = bspline_cuda_submit_keep_border (self->cuda, plans[p],
            &on_device, frame->device != NULL, &dst[p], 0, &kb, &slots[p]);
      } else {
        status = bspline_cuda_submit_placed (self->cuda, plans[p],
            &on_device, frame->device != NULL, &dst[p], 0, &slots[p]);
      }
      if (status != BSPLINE_OK) {
        g_strlcpy (msg, bspline_cuda_last_error (self->cuda), sizeof (msg));
        slots[p] = -1;
      }
    }
    /* every plane queued must land before the frames go away */
    for (p = 0; p < n; p++)
      if (slots[p] >= 0 && bspline_cuda_finish (self->cuda, slots[p])
          != BSPLINE_OK && status == BSPLINE_OK) {
        status = BSPLINE_ERROR_BACKEND;
        g_strlcpy (msg, bspline_cuda_last_error (self->cuda), sizeof (msg));
      }
    if (status == BSPLINE_OK) {
      on_gpu = TRUE;
      kept = keep;
      if (keep) {
        self->keep_of = out->buffer;
        self->keep_position = frame->position;
      }
    } else if (!gst_bspline_stabilize_resample_to_cpu (self, msg))
      goto failed;
    else
      status = BSPLINE_OK;
  }
#endif
  for (p = 0; !on_gpu && status == BSPLINE_OK && p < n; p++) {
    status = bspline_cpu_execute (self->cpu, plans[p], &src[p], &dst[p]);
    if (status != BSPLINE_OK)
      g_strlcpy (msg, bspline_cpu_last_error (self->cpu), sizeof (msg));
  }
  if (status != BSPLINE_OK)
    goto failed;
  for (p = 0; previous && !kept && status == BSPLINE_OK && p < n; p++) {
    status = bspline_cpu_keep_border (self->cpu, &dst[p], &prev[p],
        inverse[p], &lens[p], src[p].width, src[p].height);
    if (status != BSPLINE_OK)
      g_strlcpy (msg, "the previous frame does not match the output "
          "(keep-border)", sizeof (msg));
  }
  if (status != BSPLINE_OK)
    goto failed;

done:
  for (p = 0; p < n; p++)
    bspline_plan_free (plans[p]);
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
gst_bspline_stabilize_affine_value (const bspline_affine * a, GValue * array)
{
  gint i;

  g_value_init (array, GST_TYPE_ARRAY);
  for (i = 0; i < 6; i++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, G_TYPE_DOUBLE);
    g_value_set_double (&v, a->m[i]);
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
      gst_bspline_stabilize_affine_value (&frame->motion.motion, &motion));
  gst_structure_take_value (s, "correction",
      gst_bspline_stabilize_affine_value (&result->correction, &correction));
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
  gst_message_set_qos_stats (qos, GST_FORMAT_BUFFERS, self->n_in,
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
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  const gchar *refusal;

  if (!defer || !filter->negotiated)
    return NULL;
  refusal = gst_bspline_chain_stream_refusal (&filter->in_info,
      &filter->out_info, TRUE, self->downstream_refusal);
  if (refusal == NULL
      && self->run.crop == GST_BSPLINE_STABILIZE_CROP_KEEP_BORDER)
    refusal = "crop=keep-border fills the border from the previous output "
        "frame, which a warp chain cannot describe";
  gst_bspline_chain_warn_refusal (GST_ELEMENT (self), filter, refusal,
      &self->warned_defer);
  return refusal;
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
  gst_bspline_stabilize_geometry (self, &filter->in_info, &result->correction,
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

static GstFlowReturn
gst_bspline_stabilize_output (GstBSplineStabilize * self, gboolean final,
    GstBuffer ** outbuf)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  GstBSplineStabilizeFrame *frame;
  bspline_stabilize_result result;
  GstVideoFrame in, out, prev;
  gboolean have_prev = FALSE;
  GstBuffer *out_buffer = NULL;
  GstFlowReturn ret;

  *outbuf = NULL;
  for (;;) {
    frame = g_queue_peek_head (&self->frames);
    if (frame == NULL)
      return GST_FLOW_OK;
    if (frame->have_correction)
      result = frame->correction;
    else if (bspline_stabilizer_ready (self->stabilizer, final))
      bspline_stabilizer_pop (self->stabilizer, final, &result);
    else
      return GST_FLOW_OK;
    g_queue_pop_head (&self->frames);
    if (!gst_bspline_stabilize_late (self, frame))
      break;
    /* analysed, recorded and posted, but not warped */
    gst_bspline_stabilize_post (self, frame, &result, TRUE);
    gst_bspline_stabilize_frame_free (self, frame);
  }

  if (gst_bspline_stabilize_defer (self, frame, &result, &ret, outbuf))
    goto done;
  ret = GST_BASE_TRANSFORM_GET_CLASS (trans)->prepare_output_buffer (trans,
      frame->buffer, &out_buffer);
  if (ret != GST_FLOW_OK || out_buffer == NULL)
    goto done;
  if (!gst_video_frame_map (&in, &filter->in_info, frame->buffer, GST_MAP_READ))
    goto map_failed;
  if (!gst_video_frame_map (&out, &filter->out_info, out_buffer, GST_MAP_WRITE)) {
    gst_video_frame_unmap (&in);
    goto map_failed;
  }
  /* (with the lens stage, every frame is resampled) */
  if (self->run.lens.model == BSPLINE_LENS_NONE
      && gst_bspline_stabilize_is_identity (&result.correction)) {
    gst_video_frame_copy (&out, &in);
  } else {
    bspline_geometry geometry;

    gst_bspline_stabilize_geometry (self, &filter->in_info,
        &result.correction, &geometry);
    if (self->run.crop == GST_BSPLINE_STABILIZE_CROP_KEEP_BORDER
        && self->previous)
      have_prev = gst_video_frame_map (&prev, &filter->out_info,
          self->previous, GST_MAP_READ);
    ret = gst_bspline_stabilize_warp (self, &geometry, frame, &in, &out,
        have_prev ? &prev : NULL);
    if (have_prev)
      gst_video_frame_unmap (&prev);
  }
  gst_video_frame_unmap (&in);
  gst_video_frame_unmap (&out);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (out_buffer);
    goto done;
  }
  gst_bspline_stabilize_post (self, frame, &result, FALSE);
  gst_buffer_replace (&self->previous, out_buffer);
  *outbuf = out_buffer;

done:
  gst_bspline_stabilize_frame_free (self, frame);
  return ret;

  /* ERRORS */
map_failed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("A buffer is not a frame of the caps."), (NULL));
    gst_buffer_unref (out_buffer);
    ret = GST_FLOW_ERROR;
    goto done;
  }
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
  while (ret == GST_FLOW_OK && !g_queue_is_empty (&self->frames)) {
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
      if (!gst_bspline_transforms_writer_flush (&self->writer, &error)) {
        gst_bspline_stabilize_transforms_error (self, error);
        gst_event_unref (event);
        return FALSE;
      }
      break;
    case GST_EVENT_FLUSH_STOP:
      /* a seek: the frames held back go; the transforms file's records go
       * on (INDEX counts on, the frames are found by their PTS) */
      gst_bspline_stabilize_drain (self, FALSE);
      self->n_in = 0;
      self->section_frames = 0;
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

/* The look-ahead is the latency: `smoothing` frames.  A drain query
 * (serialized) pushes the frames held back. */
static gboolean
gst_bspline_stabilize_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  GstBSplineStabilize *self = GST_BSPLINE_STABILIZE (trans);
  GstVideoFilter *filter = GST_VIDEO_FILTER (trans);
  gboolean ret;

  if (direction == GST_PAD_SINK && GST_QUERY_TYPE (query) == GST_QUERY_DRAIN)
    gst_bspline_stabilize_drain (self, TRUE);
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
  if (ret && direction == GST_PAD_SRC
      && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    GstClockTime min, max, latency = 0;
    gboolean live;
    gint smoothing, fps_n = 0, fps_d = 1, reading;

    GST_OBJECT_LOCK (self);
    smoothing = self->settings.smoothing;
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

/* Upstream's pool must hold the frames held back (smoothing frames ahead,
 * the one arriving and the one leaving; none with a transforms file read):
 * a pinned pool of as many where the GPU warps, else that minimum. */
static gboolean
gst_bspline_stabilize_propose_allocation (GstBaseTransform * trans,
    G_GNUC_UNUSED GstQuery * decide_query, GstQuery * query)
{
  GstBSplineStabilize *self = GST_BSPLINE_STABILIZE (trans);
  guint held = (self->file ? 0 : (guint) self->run.smoothing) + 2;
  GstVideoInfo info;
  GstCaps *caps;

#ifdef HAVE_BSPLINE_CUDA
  if (self->cuda)
    return gst_bspline_pinned_propose (query, held);
#endif
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
 * defer=true: whether the chain meta gets to an element that applies it
 * (gstbsplinechain.h). */
static gboolean
gst_bspline_stabilize_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstBSplineStabilize *self = GST_BSPLINE_STABILIZE (trans);
  gboolean defer;

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
          query))
    return FALSE;
  g_free (self->downstream_refusal);
  self->downstream_refusal =
      gst_bspline_chain_downstream_refusal (GST_BASE_TRANSFORM_SRC_PAD (trans),
      gst_bspline_chain_downstream_takes (query));
  GST_OBJECT_LOCK (self);
  defer = self->settings.resample.defer;
  GST_OBJECT_UNLOCK (self);
  gst_bspline_stabilize_defer_refusal (self, defer);
#ifdef HAVE_BSPLINE_CUDA
  /* the frame going out and the previous one, kept for keep-border */
  if (self->cuda != NULL && !gst_bspline_pinned_decide (query, 3, 2))
    GST_INFO_OBJECT (self, "no pinned pool: downloads go through staging");
#endif
  return TRUE;
}
