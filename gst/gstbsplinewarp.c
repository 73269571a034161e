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
 * SECTION:element-bsplinewarp
 * @title: bsplinewarp
 *
 * Scales, rotates and warps video (affine and perspective) with exact
 * B-spline interpolation of order 0 to 11, or Keys bicubic convolution,
 * with five boundary extensions and antialiased minification.  It goes
 * wherever videoscale or a rotate element would go: the output size comes
 * from the caps (negotiated and fixated as videoscale does it, keeping the
 * display aspect ratio, with add-borders), and the geometry properties move
 * the picture inside the output frame.
 *
 * Geometry contract: the input frame is reoriented exactly by
 * video-direction, then mapped onto the output frame by the caps' scaling
 * (the input extent onto the output extent, or onto the part between the
 * borders), then rotated, zoomed and translated (or transformed by
 * `matrix`) about the pivot, in output pixels, forward from input to
 * output.  Each output pixel centre samples the input at its inverse image.
 * Before those steps a lens stage (lens-model) or an STMap stage
 * (stmap-location) may remap the input frame, in the same resampling.
 * Chroma planes are resampled on their own grid, honouring chroma-site.
 *
 * The element is thin: it negotiates (gstbsplinewarpcaps.c), snapshots
 * its settings once per frame, keeps one plan per plane
 * (gstbsplinewarpplanes.c, core/include/bspline.h) and runs each plane on
 * the CUDA engine, two frames in flight, where the build has one and backend and
 * the machine allow it (gstbsplinewarpcuda.c), else on the CPU engine
 * (gstbsplineengine.h has the backend rule).  It works in passthrough when
 * the transform is the identity and the sizes match.  Interlaced video
 * (interleaved, mixed, and alternate fields) is resampled field by field,
 * each field on its own grid, and keeps its interlacing (docs/element.md,
 * "Interlaced video").
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=1 ! bsplinewarp rotation=10 ! pngenc ! filesink location=rotated.png
 * ]| Rotates the test picture by 10 degrees clockwise about its centre.
 * |[
 * gst-launch-1.0 filesrc location=photo.png ! pngdec ! videoconvert ! bsplinewarp order=5 boundary=constant fill-color=0xff808080 ! video/x-raw,width=1920,height=1080 ! videoconvert ! autovideosink
 * ]| Scales a photo to 1080p with a quintic B-spline; borders in grey.
 * |[
 * gst-launch-1.0 videotestsrc ! bsplinewarp matrix="<1.0,0.1,0.0,0.0,1.0,0.0,0.0,0.0005,1.0>" ! videoconvert ! autovideosink
 * ]| A perspective warp given as a forward homography about the centre.
 * |[
 * gst-launch-1.0 filesrc location=shot.mp4 ! decodebin ! videoconvert ! bsplinewarp stmap-location=undistort.exr ! videoconvert ! autovideosink
 * ]| Remaps the video through an STMap (Nuke's convention), once per
 * frame with the caps scaling.
 * |[
 * gst-launch-1.0 filesrc location=clip.h264 ! h264parse ! nvh264dec ! bsplinewarp rotation=10 ! "video/x-raw(memory:CUDAMemory),width=1920,height=1080" ! cudadownload ! videoconvert ! autovideosink
 * ]| Built with gstreamer-cuda: decoded frames are warped in CUDA memory,
 * on the CUDA context the decoder shares, and leave the GPU once.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/controller/controller.h>

#include "gstbsplinewarpprivate.h"
#include "gstbsplinewarpcaps.h"
#include "gstbsplineframe.h"
#include "gstbsplinemeta.h"
#include "gstbsplinechain.h"
#include "gstbsplinelinear.h"

GST_DEBUG_CATEGORY (gst_bspline_warp_debug);
#define GST_CAT_DEFAULT gst_bspline_warp_debug

/* after the shared properties of gstbsplinesettings.h */
enum
{
  PROP_ROTATION = GST_BSPLINE_SETTINGS_PROP_LAST,
  PROP_ZOOM,
  PROP_TRANSLATE_X,
  PROP_TRANSLATE_Y,
  PROP_PIVOT_X,
  PROP_PIVOT_Y,
  PROP_MATRIX,
  PROP_VIDEO_DIRECTION,
  PROP_ADD_BORDERS,
  PROP_USE_META,
  PROP_STMAP_LOCATION,
  /* the projection stage (issue 42) */
  PROP_PROJECTION_IN,
  PROP_PROJECTION_OUT,
  PROP_YAW,
  PROP_PITCH,
  PROP_ROLL,
  PROP_H_FOV,
  PROP_V_FOV,
  PROP_IH_FOV,
  PROP_IV_FOV
};

#define DEFAULT_ROTATION 0.0
#define DEFAULT_ZOOM 1.0
#define DEFAULT_TRANSLATE 0.0
#define DEFAULT_PIVOT 0.5
#define DEFAULT_VIDEO_DIRECTION GST_VIDEO_ORIENTATION_IDENTITY
#define DEFAULT_ADD_BORDERS TRUE
#define DEFAULT_USE_META FALSE

/* the shared properties' defaults that are bsplinewarp's own */
static const GstBSplineSettingsDefaults gst_bspline_warp_defaults = {
  .boundary = BSPLINE_BOUNDARY_REFLECT,
  .antialias = BSPLINE_ANTIALIAS_LEAST_SQUARES,
  .threads_at_start = FALSE,
};

#define MIN_ZOOM 1e-4
#define MAX_ZOOM 1e4

/* The projections (bspline-projection-setup.h), by ffmpeg v360's names
 * and aliases: the value is the core's type + 1, 0 for none. */
#define GST_TYPE_BSPLINE_PROJECTION (gst_bspline_projection_get_type ())
static GType
gst_bspline_projection_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {0, "No projection stage", "none"},
    {BSPLINE_PROJECTION_EQUIRECT + 1, "Equirectangular", "equirect"},
    {BSPLINE_PROJECTION_EQUIRECT + 1, "Equirectangular (v360's alias)", "e"},
    {BSPLINE_PROJECTION_HEQUIRECT + 1, "Half equirectangular", "hequirect"},
    {BSPLINE_PROJECTION_HEQUIRECT + 1, "Half equirectangular (alias)", "he"},
    {BSPLINE_PROJECTION_CUBEMAP_3X2 + 1, "Cubemap 3x2", "c3x2"},
    {BSPLINE_PROJECTION_CUBEMAP_6X1 + 1, "Cubemap 6x1", "c6x1"},
    {BSPLINE_PROJECTION_CUBEMAP_1X6 + 1, "Cubemap 1x6", "c1x6"},
    {BSPLINE_PROJECTION_EAC + 1, "Equi-angular cubemap", "eac"},
    {BSPLINE_PROJECTION_FLAT + 1, "Flat (rectilinear) view", "flat"},
    {BSPLINE_PROJECTION_FLAT + 1, "Flat (alias)", "rectilinear"},
    {BSPLINE_PROJECTION_FLAT + 1, "Flat (alias)", "gnomonic"},
    {BSPLINE_PROJECTION_FISHEYE + 1, "Fisheye (equidistant)", "fisheye"},
    {BSPLINE_PROJECTION_EQUISOLID + 1, "Equisolid fisheye", "equisolid"},
    {BSPLINE_PROJECTION_STEREOGRAPHIC + 1, "Stereographic", "sg"},
    {BSPLINE_PROJECTION_ORTHOGRAPHIC + 1, "Orthographic", "og"},
    {BSPLINE_PROJECTION_DUAL_FISHEYE + 1, "Dual fisheye", "dfisheye"},
    {BSPLINE_PROJECTION_CYLINDRICAL + 1, "Cylindrical", "cylindrical"},
    {BSPLINE_PROJECTION_PANNINI + 1, "Pannini", "pannini"},
    {BSPLINE_PROJECTION_MERCATOR + 1, "Mercator", "mercator"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstBSplineProjection", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* Every raw format videoscale takes (gstbsplinelayout.h: the engines read
 * most as they are, the rest through GStreamer's unpack and pack), every
 * interlace mode GStreamer has: progressive, interleaved and mixed frames,
 * and alternate fields (caps feature format:Interlaced). */
#define GST_BSPLINE_WARP_CAPS \
    GST_VIDEO_CAPS_MAKE (GST_VIDEO_FORMATS_ALL) \
    ", interlace-mode = (string) { progressive, interleaved, mixed }; " \
    GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_FORMAT_INTERLACED, \
        GST_VIDEO_FORMATS_ALL) ", interlace-mode = (string) alternate"

/* With gstcuda, CUDA memory too (docs/gpu.md, "CUDA memory"). */
#ifdef HAVE_BSPLINE_CUDA_MEMORY
#define GST_BSPLINE_WARP_PAD_CAPS \
    GST_BSPLINE_CUDA_MEMORY_CAPS "; " GST_BSPLINE_WARP_CAPS
#else
#define GST_BSPLINE_WARP_PAD_CAPS GST_BSPLINE_WARP_CAPS
#endif

static void
gst_bspline_warp_video_direction_interface_init (G_GNUC_UNUSED
    GstVideoDirectionInterface * iface)
{
  /* the interface is the video-direction property, installed below */
}

#define gst_bspline_warp_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstBSplineWarp, gst_bspline_warp,
    GST_TYPE_VIDEO_FILTER,
    G_IMPLEMENT_INTERFACE (GST_TYPE_VIDEO_DIRECTION,
        gst_bspline_warp_video_direction_interface_init));
GST_ELEMENT_REGISTER_DEFINE (bsplinewarp, "bsplinewarp", GST_RANK_NONE,
    GST_TYPE_BSPLINE_WARP);

static void gst_bspline_warp_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_bspline_warp_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_bspline_warp_finalize (GObject * object);
static gboolean gst_bspline_warp_start (GstBaseTransform * trans);
static gboolean gst_bspline_warp_stop (GstBaseTransform * trans);
static gboolean gst_bspline_warp_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static void gst_bspline_warp_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer);
static GstFlowReturn gst_bspline_warp_transform (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer * outbuf);
static gboolean gst_bspline_warp_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size,
    GstCaps * othercaps, gsize * othersize);
static gboolean gst_bspline_warp_set_info (GstVideoFilter * filter,
    GstCaps * incaps, GstVideoInfo * in_info, GstCaps * outcaps,
    GstVideoInfo * out_info);
static void gst_bspline_warp_set_context (GstElement * element,
    GstContext * context);
static GstFlowReturn gst_bspline_warp_generate_output (GstBaseTransform *
    trans, GstBuffer ** outbuf);
static gboolean gst_bspline_warp_propose_allocation (GstBaseTransform *
    trans, GstQuery * decide_query, GstQuery * query);
static gboolean gst_bspline_warp_decide_allocation (GstBaseTransform *
    trans, GstQuery * query);
static gboolean gst_bspline_warp_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
static gboolean gst_bspline_warp_transform_meta (GstBaseTransform * trans,
    GstBuffer * outbuf, GstMeta * meta, GstBuffer * inbuf);
static gboolean gst_bspline_warp_src_event (GstBaseTransform * trans,
    GstEvent * event);

static void
gst_bspline_warp_class_init (GstBSplineWarpClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;
  const GParamFlags geometry_flags = flags | GST_PARAM_CONTROLLABLE;

  GST_DEBUG_CATEGORY_INIT (gst_bspline_warp_debug, "bsplinewarp", 0,
      "B-spline scaling, rotation and warps");

  gobject_class->set_property = gst_bspline_warp_set_property;
  gobject_class->get_property = gst_bspline_warp_get_property;
  gobject_class->finalize = gst_bspline_warp_finalize;

  gst_bspline_settings_install_properties (gobject_class,
      &gst_bspline_warp_defaults, G_STRUCT_OFFSET (GstBSplineWarpSettings,
          resample));
  gst_bspline_settings_install_lens_properties (gobject_class,
      G_STRUCT_OFFSET (GstBSplineWarpSettings, lens), FALSE);
  gst_bspline_settings_install_gamma_property (gobject_class,
      G_STRUCT_OFFSET (GstBSplineWarpSettings, resample));
  gst_bspline_settings_install_field (gobject_class, PROP_ROTATION,
      G_STRUCT_OFFSET (GstBSplineWarpSettings, rotation),
      g_param_spec_double ("rotation", "Rotation",
          "Rotation about the pivot in degrees, positive = clockwise on "
          "screen (any finite value, default 0)", -G_MAXDOUBLE, G_MAXDOUBLE,
          DEFAULT_ROTATION, geometry_flags));
  gst_bspline_settings_install_field (gobject_class, PROP_ZOOM,
      G_STRUCT_OFFSET (GstBSplineWarpSettings, zoom),
      g_param_spec_double ("zoom", "Zoom",
          "Magnification about the pivot, after the caps' scaling; 2 = twice "
          "as large (range 0.0001-10000, default 1)", MIN_ZOOM, MAX_ZOOM,
          DEFAULT_ZOOM, geometry_flags));
  gst_bspline_settings_install_field (gobject_class, PROP_TRANSLATE_X,
      G_STRUCT_OFFSET (GstBSplineWarpSettings, translate_x),
      g_param_spec_double ("translate-x", "Translate x",
          "Horizontal shift in output pixels, positive = right (any finite "
          "value, default 0)", -G_MAXDOUBLE, G_MAXDOUBLE, DEFAULT_TRANSLATE,
          geometry_flags));
  gst_bspline_settings_install_field (gobject_class, PROP_TRANSLATE_Y,
      G_STRUCT_OFFSET (GstBSplineWarpSettings, translate_y),
      g_param_spec_double ("translate-y", "Translate y",
          "Vertical shift in output pixels, positive = down (any finite "
          "value, default 0)", -G_MAXDOUBLE, G_MAXDOUBLE, DEFAULT_TRANSLATE,
          geometry_flags));
  gst_bspline_settings_install_field (gobject_class, PROP_PIVOT_X,
      G_STRUCT_OFFSET (GstBSplineWarpSettings, pivot_x),
      g_param_spec_double ("pivot-x", "Pivot x",
          "Horizontal position of the centre of rotation, zoom and matrix, "
          "as a fraction of the output width: 0 = left edge, 1 = right edge "
          "(range 0-1, default 0.5)", 0.0, 1.0, DEFAULT_PIVOT, geometry_flags));
  gst_bspline_settings_install_field (gobject_class, PROP_PIVOT_Y,
      G_STRUCT_OFFSET (GstBSplineWarpSettings, pivot_y),
      g_param_spec_double ("pivot-y", "Pivot y",
          "Vertical position of the centre of rotation, zoom and matrix, "
          "as a fraction of the output height: 0 = top edge, 1 = bottom edge "
          "(range 0-1, default 0.5)", 0.0, 1.0, DEFAULT_PIVOT, geometry_flags));
  g_object_class_install_property (gobject_class, PROP_MATRIX,
      gst_param_spec_array ("matrix", "Matrix",
          "Forward 3x3 homography, 9 numbers row-major, from input to output "
          "pixels about the pivot, e.g. <1.0,0.0,5.0,0.0,1.0,0.0,0.0,0.0,1.0> "
          "shifts right by 5 pixels; when set it replaces rotation, zoom and "
          "translate; an empty array <> unsets it (default unset)",
          g_param_spec_double ("matrix-entry", "Matrix entry",
              "One entry of the 3x3 matrix", -G_MAXDOUBLE, G_MAXDOUBLE, 0.0,
              G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS), geometry_flags));
  g_object_class_override_property (gobject_class, PROP_VIDEO_DIRECTION,
      "video-direction");
  gst_bspline_settings_install_field (gobject_class, PROP_ADD_BORDERS,
      G_STRUCT_OFFSET (GstBSplineWarpSettings, add_borders),
      g_param_spec_boolean ("add-borders", "Add borders",
          "Keep the display aspect ratio by mapping the input onto a centred "
          "part of the output; the borders show the boundary extension "
          "(fill-color with boundary=constant) (default true)",
          DEFAULT_ADD_BORDERS, flags));
  gst_bspline_settings_install_field (gobject_class, PROP_USE_META,
      G_STRUCT_OFFSET (GstBSplineWarpSettings, use_meta),
      g_param_spec_boolean ("use-meta", "Use meta",
          "Warp each buffer that carries a GstVideoAffineTransformationMeta "
          "by its matrix (forward, about the frame centre, in the meta's "
          "unit coordinates with y up; docs/element.md) before the "
          "element's own geometry, composed with it into one resampling "
          "(default false)", DEFAULT_USE_META, flags));
  g_object_class_install_property (gobject_class, PROP_STMAP_LOCATION,
      g_param_spec_string ("stmap-location", "STMap location",
          "An STMap file (OpenEXR, 16-bit PNG or 16-bit/float TIFF) whose R "
          "and G give, at each sample, the input position as fractions of "
          "the input frame with (0, 0) at its bottom-left corner (Nuke's "
          "convention), of any size with the input's aspect ratio; it "
          "remaps the input before the scaling and the geometry properties "
          "act, in the same resampling, interpolated by a cubic B-spline "
          "between its samples (docs/stmap.md); at most 2^22 samples; read "
          "by the first frame, and a later change on a thread of its own "
          "while frames keep the map in use (the element message "
          "'bsplinewarp-stmap' says when a map goes into use); not with "
          "lens-model (default none)", NULL, flags));
  /* the projection stage (docs/projections.md): v360's options by name */
  gst_bspline_settings_install_field (gobject_class, PROP_PROJECTION_IN,
      G_STRUCT_OFFSET (GstBSplineWarpSettings, projection_in),
      g_param_spec_enum ("projection-in", "Input projection",
          "The input's projection (v360's input); anything but none puts a "
          "projection stage through the sphere where a lens stage sits, "
          "and the output becomes a view of the sphere in projection-out; "
          "not with lens-model, stmap-location or video-direction (default "
          "none)", GST_TYPE_BSPLINE_PROJECTION, 0, flags));
  gst_bspline_settings_install_field (gobject_class, PROP_PROJECTION_OUT,
      G_STRUCT_OFFSET (GstBSplineWarpSettings, projection_out),
      g_param_spec_enum ("projection-out", "Output projection",
          "The output's projection (v360's output), with projection-in set; "
          "none is taken as v360's default c3x2 (default c3x2)",
          GST_TYPE_BSPLINE_PROJECTION, BSPLINE_PROJECTION_CUBEMAP_3X2 + 1,
          flags));
  gst_bspline_settings_install_field (gobject_class, PROP_YAW,
      G_STRUCT_OFFSET (GstBSplineWarpSettings, yaw),
      g_param_spec_double ("yaw", "Yaw",
          "The view's yaw in degrees, positive = looks right (v360's yaw, "
          "rotation order yaw, pitch, roll) (range -360-360, default 0)",
          -360.0, 360.0, 0.0, geometry_flags));
  gst_bspline_settings_install_field (gobject_class, PROP_PITCH,
      G_STRUCT_OFFSET (GstBSplineWarpSettings, pitch),
      g_param_spec_double ("pitch", "Pitch",
          "The view's pitch in degrees (v360's pitch) (range -360-360, "
          "default 0)", -360.0, 360.0, 0.0, geometry_flags));
  gst_bspline_settings_install_field (gobject_class, PROP_ROLL,
      G_STRUCT_OFFSET (GstBSplineWarpSettings, roll),
      g_param_spec_double ("roll", "Roll",
          "The view's roll in degrees (v360's roll) (range -360-360, "
          "default 0)", -360.0, 360.0, 0.0, geometry_flags));
  gst_bspline_settings_install_field (gobject_class, PROP_H_FOV,
      G_STRUCT_OFFSET (GstBSplineWarpSettings, h_fov),
      g_param_spec_double ("h-fov", "Output horizontal field of view",
          "The output projection's horizontal field of view in degrees "
          "(v360's h_fov; pannini: its parameter); 0 = the projection's "
          "default as v360's (flat, cylindrical 90; fisheyes 180; others "
          "360); each projection's limit in docs/projections.md (range "
          "0-360, default 0)", 0.0, 360.0, 0.0, geometry_flags));
  gst_bspline_settings_install_field (gobject_class, PROP_V_FOV,
      G_STRUCT_OFFSET (GstBSplineWarpSettings, v_fov),
      g_param_spec_double ("v-fov", "Output vertical field of view",
          "The output projection's vertical field of view in degrees "
          "(v360's v_fov); 0 = the projection's default (flat, cylindrical "
          "45; fisheyes 180; others 180) (range 0-360, default 0)", 0.0,
          360.0, 0.0, geometry_flags));
  gst_bspline_settings_install_field (gobject_class, PROP_IH_FOV,
      G_STRUCT_OFFSET (GstBSplineWarpSettings, ih_fov),
      g_param_spec_double ("ih-fov", "Input horizontal field of view",
          "The input projection's horizontal field of view in degrees "
          "(v360's ih_fov; pannini: its parameter); 0 = the projection's "
          "default, as h-fov's (range 0-360, default 0)", 0.0, 360.0, 0.0,
          geometry_flags));
  gst_bspline_settings_install_field (gobject_class, PROP_IV_FOV,
      G_STRUCT_OFFSET (GstBSplineWarpSettings, iv_fov),
      g_param_spec_double ("iv-fov", "Input vertical field of view",
          "The input projection's vertical field of view in degrees "
          "(v360's iv_fov); 0 = the projection's default, as v-fov's "
          "(range 0-360, default 0)", 0.0, 360.0, 0.0, geometry_flags));

  gst_element_class_set_static_metadata (element_class,
      "B-spline video warp", "Filter/Effect/Video/Scaler",
      "Scales, rotates and warps video with exact B-spline interpolation",
      "gst-bspline contributors");
  gst_bspline_frame_add_pad_templates (element_class,
      GST_BSPLINE_WARP_PAD_CAPS);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_bspline_warp_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_bspline_warp_stop);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_bspline_warp_transform_caps);
  trans_class->fixate_caps = GST_DEBUG_FUNCPTR (gst_bspline_warp_fixate_caps);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_bspline_warp_sink_event);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_bspline_warp_before_transform);
  trans_class->transform_size =
      GST_DEBUG_FUNCPTR (gst_bspline_warp_transform_size);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_bspline_warp_transform);
  trans_class->transform_meta =
      GST_DEBUG_FUNCPTR (gst_bspline_warp_transform_meta);
  trans_class->src_event = GST_DEBUG_FUNCPTR (gst_bspline_warp_src_event);
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_bspline_warp_set_info);
  filter_class->transform_frame =
      GST_DEBUG_FUNCPTR (gst_bspline_warp_transform_frame);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_bspline_warp_generate_output);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_bspline_warp_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_bspline_warp_decide_allocation);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_bspline_warp_query);
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_bspline_warp_set_context);

  gst_bspline_settings_mark_plugin_api ();
  gst_type_mark_as_plugin_api (GST_TYPE_BSPLINE_PROJECTION, 0);
}

static void
gst_bspline_warp_init (GstBSplineWarp * self)
{
  GstBSplineWarpSettings *s = &self->settings;

  gst_bspline_settings_init (G_OBJECT (self), s);
  self->planes.plane = g_malloc0 (sizeof (*self->planes.plane)
      * GST_BSPLINE_FIELDS_N);
  s->use_matrix = FALSE;
  bspline_matrix_identity (s->matrix);
  s->video_direction = DEFAULT_VIDEO_DIRECTION;
  s->tag_direction = GST_VIDEO_ORIENTATION_IDENTITY;
  self->frame = *s;
}

static void
gst_bspline_warp_finalize (GObject * object)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (object);

  /* what stop frees (where the element never started, or failed to) */
  gst_bspline_warp_stop (GST_BASE_TRANSFORM (self));
  gst_bspline_warp_stmap_finalize (&self->stmap);
  gst_bspline_settings_lens_clear (&self->settings.lens);
  gst_bspline_chain_defer_clear (&self->defer);
  g_free (self->planes.plane);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* Called with the object lock held. */
static gboolean
gst_bspline_warp_set_matrix (GstBSplineWarp * self, const GValue * value)
{
  guint n = gst_value_array_get_size (value), i;

  if (n == 0) {
    self->settings.use_matrix = FALSE;
    bspline_matrix_identity (self->settings.matrix);
    return TRUE;
  }
  if (n != 9)
    return FALSE;
  for (i = 0; i < 9; i++)
    self->settings.matrix[i] =
        g_value_get_double (gst_value_array_get_value (value, i));
  self->settings.use_matrix = TRUE;
  return TRUE;
}

static void
gst_bspline_warp_get_matrix (GstBSplineWarp * self, GValue * value)
{
  GValue entry = G_VALUE_INIT;
  guint i;

  if (!self->settings.use_matrix)
    return;
  g_value_init (&entry, G_TYPE_DOUBLE);
  for (i = 0; i < 9; i++) {
    g_value_set_double (&entry, self->settings.matrix[i]);
    gst_value_array_append_value (value, &entry);
  }
  g_value_unset (&entry);
}

static void
gst_bspline_warp_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (object);
  GstBSplineWarpSettings *s = &self->settings;
  bspline_orientation old_orientation;
  gboolean matrix_ok, reconfigure;

  switch (prop_id) {
    case PROP_MATRIX:
      GST_OBJECT_LOCK (self);
      matrix_ok = gst_bspline_warp_set_matrix (self, value);
      GST_OBJECT_UNLOCK (self);
      if (!matrix_ok)
        g_warning ("%s: matrix needs 9 numbers (a row-major 3x3 matrix) or "
            "none to unset it, not %u; ignored", GST_OBJECT_NAME (self),
            gst_value_array_get_size (value));
      break;
    case PROP_VIDEO_DIRECTION:
      GST_OBJECT_LOCK (self);
      old_orientation = gst_bspline_warp_orientation (s);
      s->video_direction = g_value_get_enum (value);
      reconfigure = gst_bspline_warp_orientation (s) != old_orientation;
      GST_OBJECT_UNLOCK (self);
      /* a new orientation may swap the output's width and height */
      if (reconfigure)
        gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
      break;
    case PROP_STMAP_LOCATION:
      GST_OBJECT_LOCK (self);
      s->stmap_set = gst_bspline_warp_stmap_set_location (&self->stmap,
          g_value_get_string (value));
      s->stmap_serial++;
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      if (!gst_bspline_settings_set_property (object, s, pspec, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_bspline_warp_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (object);

  switch (prop_id) {
    case PROP_MATRIX:
      GST_OBJECT_LOCK (self);
      gst_bspline_warp_get_matrix (self, value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_VIDEO_DIRECTION:
      GST_OBJECT_LOCK (self);
      g_value_set_enum (value, self->settings.video_direction);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_STMAP_LOCATION:
      GST_OBJECT_LOCK (self);
      g_value_set_string (value, self->stmap.location);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      if (!gst_bspline_settings_get_property (object, &self->settings, pspec,
              value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

void
gst_bspline_warp_snapshot (GstBSplineWarp * self,
    GstBSplineWarpSettings * settings)
{
  GST_OBJECT_LOCK (self);
  *settings = self->settings;
  GST_OBJECT_UNLOCK (self);
}

static gboolean
gst_bspline_warp_start (GstBaseTransform * trans)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (trans);
  GstBSplineWarpSettings s;

  gst_bspline_warp_snapshot (self, &s);
  GST_OBJECT_LOCK (self);
  self->shown_valid = FALSE;
  GST_OBJECT_UNLOCK (self);
  return gst_bspline_engine_start (&self->engine, GST_ELEMENT (self),
      &s.resample, gst_bspline_warp_cuda_new_engine);
}

/* Each part of the streaming state frees itself: the frames in flight go
 * first (a GPU failure redoes them with the planes and the CPU engine). */
static gboolean
gst_bspline_warp_stop (GstBaseTransform * trans)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (trans);

  gst_bspline_warp_cuda_clear (self);
  gst_bspline_warp_planes_clear (&self->planes);
  /* read again at the next start: the file may have changed */
  gst_bspline_warp_stmap_clear (&self->stmap);
  gst_bspline_engine_clear (&self->engine);
  return TRUE;
}

static gboolean
gst_bspline_warp_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (trans);
  GstVideoOrientationMethod method;
  GstTagList *taglist;
  gboolean reconfigure = FALSE;

  if (GST_EVENT_TYPE (event) == GST_EVENT_TAG) {
    gst_event_parse_tag (event, &taglist);
    if (gst_video_orientation_from_tag (taglist, &method)) {
      bspline_orientation old_orientation;

      GST_OBJECT_LOCK (self);
      old_orientation = gst_bspline_warp_orientation (&self->settings);
      self->settings.tag_direction = method;
      reconfigure =
          gst_bspline_warp_orientation (&self->settings) != old_orientation;
      GST_OBJECT_UNLOCK (self);
      GST_DEBUG_OBJECT (self, "image-orientation tag: method %d", method);
    }
  }
  if (reconfigure)
    gst_base_transform_reconfigure_src (trans);

  /* frames still on the GPU go out before anything that follows them in
   * the stream (EOS, caps, segment, ...); a flush drops them */
  if (GST_EVENT_IS_SERIALIZED (event))
    gst_bspline_warp_cuda_drain (self,
        GST_EVENT_TYPE (event) != GST_EVENT_FLUSH_STOP);

  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* Passthrough: the identity, from one memory to the same. */
static gboolean
gst_bspline_warp_can_pass (GstBSplineWarp * self, const GstVideoInfo * in_info,
    const GstVideoInfo * out_info, const GstBSplineWarpSettings * s)
{
  /* (a lens profile that failed to load is reported by the next frame) */
  return gst_bspline_warp_cuda_same_memory (self)
      && s->lens.profile.state != GST_BSPLINE_LENS_PROFILE_FAILED
      && gst_bspline_warp_is_identity (in_info, out_info, s);
}

static gboolean
gst_bspline_warp_set_info (GstVideoFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (filter);
  GstBSplineWarpSettings s;

  gst_bspline_warp_planes_reset (&self->planes);
  gst_bspline_warp_snapshot (self, &s);

  self->planes.chroma_site = gst_bspline_frame_chroma_site (incaps, in_info);
  gst_bspline_chain_defer_reset (&self->defer);

  if (!gst_bspline_warp_cuda_negotiate_memory (self, incaps, outcaps))
    return FALSE;
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (filter),
      gst_bspline_warp_can_pass (self, in_info, out_info, &s));

  GST_DEBUG_OBJECT (self, "%s %dx%d (PAR %d/%d) -> %dx%d (PAR %d/%d), "
      "chroma-site 0x%x", GST_VIDEO_INFO_NAME (in_info),
      GST_VIDEO_INFO_WIDTH (in_info), GST_VIDEO_INFO_HEIGHT (in_info),
      GST_VIDEO_INFO_PAR_N (in_info), GST_VIDEO_INFO_PAR_D (in_info),
      GST_VIDEO_INFO_WIDTH (out_info), GST_VIDEO_INFO_HEIGHT (out_info),
      GST_VIDEO_INFO_PAR_N (out_info), GST_VIDEO_INFO_PAR_D (out_info),
      self->planes.chroma_site);
  return TRUE;
}

/* Controlled properties are brought to the buffer's stream time, then the
 * settings are copied once for this frame; passthrough follows them.  This
 * runs for every buffer, also in passthrough, before transform_frame. */
static void
gst_bspline_warp_before_transform (GstBaseTransform * trans, GstBuffer * buffer)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (trans);
  GstVideoFilter *filter = GST_VIDEO_FILTER (trans);
  GstClockTime stream_time;

  stream_time = gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME,
      GST_BUFFER_PTS (buffer));
  if (GST_CLOCK_TIME_IS_VALID (stream_time))
    gst_object_sync_values (GST_OBJECT (self), stream_time);

  GST_OBJECT_LOCK (self);
  self->frame = self->settings;
  gst_bspline_warp_stmap_snapshot (&self->stmap);
  GST_OBJECT_UNLOCK (self);
  /* the map in use (a new one is read on another thread meanwhile) */
  if (filter->negotiated)
    gst_bspline_warp_stmap_update (&self->stmap, GST_ELEMENT (self),
        self->frame.stmap_serial, GST_VIDEO_INFO_WIDTH (&filter->in_info),
        GST_VIDEO_INFO_HEIGHT (&filter->in_info), GST_BUFFER_PTS (buffer),
        &self->frame.stmap_set);
  GST_OBJECT_LOCK (self);
  self->shown = self->frame;
  self->shown_valid = TRUE;
  GST_OBJECT_UNLOCK (self);
  /* a buffer with a warp chain (or, with use-meta, an affine
   * transformation meta) is resampled or deferred onto, never passed on
   * with it unapplied */
  if (filter->negotiated)
    gst_base_transform_set_passthrough (trans,
        gst_bspline_warp_can_pass (self, &filter->in_info, &filter->out_info,
            &self->frame) && !gst_buffer_get_bspline_chain_meta (buffer)
        && !(self->frame.use_meta
            && gst_buffer_get_video_affine_transformation_meta (buffer)));
}

/* The error for an input buffer that is not a frame of the caps. */
void
gst_bspline_warp_post_bad_buffer (GstBSplineWarp * self, GstBuffer * inbuf)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);

  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("A video buffer does not hold a frame of its caps."),
      ("%" G_GSIZE_FORMAT " bytes, %s; a %dx%d %s frame needs %"
          G_GSIZE_FORMAT, gst_buffer_get_size (inbuf),
          gst_buffer_get_video_meta (inbuf) ? "with a video meta" :
          "no video meta", GST_VIDEO_INFO_WIDTH (&filter->in_info),
          GST_VIDEO_INFO_HEIGHT (&filter->in_info),
          GST_VIDEO_INFO_NAME (&filter->in_info),
          GST_VIDEO_INFO_SIZE (&filter->in_info)));
}

/* GstVideoFilter's transform, when the input buffer cannot be mapped as a
 * frame of the caps (smaller than they say, or a video meta whose planes
 * start outside it), posts a warning and returns GST_FLOW_OK: the output
 * buffer, never written, would be pushed.  Refuse such a buffer with an
 * error instead, as the CUDA path does (gst_bspline_warp_submit). */
static GstFlowReturn
gst_bspline_warp_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (trans);
  GstVideoFrame frame;

  if (filter->negotiated) {
    if (!gst_video_frame_map (&frame, &filter->in_info, inbuf, GST_MAP_READ)) {
      gst_bspline_warp_post_bad_buffer (GST_BSPLINE_WARP (trans), inbuf);
      return GST_FLOW_ERROR;
    }
    gst_video_frame_unmap (&frame);
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->transform (trans, inbuf,
      outbuf);
}

/* GstVideoFilter's transform_size asserts that the buffer is not empty
 * (g_assert in 1.22, which aborts the application on an empty buffer from
 * upstream): refuse one here with an element error instead. */
static gboolean
gst_bspline_warp_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size,
    GstCaps * othercaps, gsize * othersize)
{
  if (size == 0)
    goto empty_buffer;
  return GST_BASE_TRANSFORM_CLASS (parent_class)->transform_size (trans,
      direction, caps, size, othercaps, othersize);

  /* ERRORS */
empty_buffer:
  {
    GST_ELEMENT_ERROR (trans, STREAM, FORMAT,
        ("An empty video buffer was received."),
        ("a frame of %" GST_PTR_FORMAT " cannot have 0 bytes", caps));
    return FALSE;
  }
}

/* Everything a frame needs before its planes run: the CPU engine with the
 * frame's thread count, the buffer's layouts, the geometry and up-to-date
 * plans. */
GstFlowReturn
gst_bspline_warp_prepare_frame (GstBSplineWarp * self, GstBuffer * inbuf,
    bspline_geometry * geometry, GstBSplineFields * fields)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  bspline_chain_stage *chain;
  guint n_chain;
  gboolean bad_chain;
  gchar msg[512];
  GstFlowReturn ret;

  if (!gst_bspline_engine_ensure_threads (&self->engine, GST_ELEMENT (self),
          self->frame.resample.n_threads))
    return GST_FLOW_ERROR;
  if (self->frame.stmap_set
      && gst_bspline_settings_lens_model (&self->frame.lens) !=
      BSPLINE_LENS_NONE)
    goto stage_conflict;
  if (!gst_bspline_warp_stmap_ensure (&self->stmap, GST_ELEMENT (self),
          self->frame.stmap_serial, GST_VIDEO_INFO_WIDTH (&filter->in_info),
          GST_VIDEO_INFO_HEIGHT (&filter->in_info)))
    return GST_FLOW_ERROR;
  ret = gst_bspline_warp_planes_layouts (self, inbuf, fields);
  if (ret != GST_FLOW_OK)
    return ret;
  chain = gst_bspline_chain_stages (inbuf, &filter->in_info,
      self->frame.use_meta, &n_chain, &bad_chain, msg, sizeof (msg));
  if (bad_chain)
    goto bad_chain;
  gst_bspline_warp_geometry (&filter->in_info, &filter->out_info,
      &self->frame, geometry);
  if (!gst_bspline_settings_lens_check (&self->frame.lens, geometry, msg,
          sizeof (msg))) {
    g_free (chain);
    goto bad_lens_profile;
  }
  geometry->stmap = self->stmap.map;
  ret = gst_bspline_warp_planes_update (self, geometry, *fields, chain,
      n_chain);
  g_free (chain);
  return ret;

  /* ERRORS */
stage_conflict:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("lens-model=%s (or lens-profile) and stmap-location cannot both "
            "be set: the element has one stage for either.",
            bspline_lens_model_name (gst_bspline_settings_lens_model
                (&self->frame.lens))),
        ("unset stmap-location, or set lens-model=none and unset "
            "lens-profile"));
    return GST_FLOW_ERROR;
  }
bad_lens_profile:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("The lens profile cannot be used: %s.", msg), (NULL));
    return GST_FLOW_ERROR;
  }
bad_chain:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("A buffer's warp chain cannot be applied: %s.", msg),
        ("GstBSplineChainMeta or, with use-meta, "
            "GstVideoAffineTransformationMeta"));
    return GST_FLOW_ERROR;
  }
}

/* Staged formats are unpacked and packed on as many threads as the CPU
 * engine runs. */
guint
gst_bspline_warp_pack_threads (GstBSplineWarp * self)
{
  return self->engine.cpu ? (guint) bspline_cpu_n_threads (self->engine.cpu)
      : 1;
}

GstFlowReturn
gst_bspline_warp_check_frames (GstBSplineWarp * self,
    GstVideoFrame * in_frame, GstVideoFrame * out_frame)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);

  if (!gst_bspline_layout_frame_fits (&filter->in_info, in_frame))
    goto bad_meta;
  if (!gst_bspline_layout_frame_fits (&filter->out_info, out_frame))
    goto bad_meta;
  return GST_FLOW_OK;

  /* ERRORS */
bad_meta:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("A video buffer's planes do not fit in its memory."),
        ("the GstVideoMeta's strides or offsets describe rows past the end "
            "of the buffer"));
    return GST_FLOW_ERROR;
  }
}

GstFlowReturn
gst_bspline_warp_linear_setup (GstBSplineWarp * self,
    GstBSplineLinear * linear, gboolean * remap)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  gchar msg[512] = "";

  *remap = self->frame.resample.gamma_mode == GST_BSPLINE_GAMMA_MODE_REMAP;
  if (*remap && !gst_bspline_linear_init (linear, &filter->in_info,
          &filter->out_info, msg, sizeof (msg)))
    goto no_linear;
  return GST_FLOW_OK;

  /* ERRORS */
no_linear:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("The frame cannot be resampled in linear light: %s.", msg), (NULL));
    return GST_FLOW_ERROR;
  }
}

/* gamma-mode=remap: plane p resampled in linear light on the CPU. */
static GstFlowReturn
gst_bspline_warp_linear_run_on_cpu (GstBSplineWarp * self,
    const GstBSplineLinear * linear, GstBSplineFields fields, guint p,
    const bspline_image * src, const bspline_image * dst)
{
  bspline_status status;
  gchar msg[256] = "";

  status = gst_bspline_linear_execute (linear, p, self->engine.cpu,
      self->planes.plane[fields][p].plan, src, dst, msg, sizeof (msg));
  if (status == BSPLINE_OK)
    return GST_FLOW_OK;
  if (status == BSPLINE_ERROR_NO_MEMORY)
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Not enough memory to resample plane %u in linear light.", p),
        ("%s", msg));
  else
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Resampling plane %u in linear light failed: %s.", p, msg),
        ("%s", bspline_status_string (status)));
  return GST_FLOW_ERROR;
}

GstFlowReturn
gst_bspline_warp_transform_frame (GstVideoFilter * filter,
    GstVideoFrame * in_frame, GstVideoFrame * out_frame)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (filter);
  GstBSplineWarpPlanes *planes = &self->planes;
  bspline_geometry geometry;
  GstBSplineFields fields;
  GstBSplineLinear linear;
  gboolean remap;
  GstFlowReturn ret;
  guint p;

  ret = gst_bspline_warp_check_frames (self, in_frame, out_frame);
  if (ret != GST_FLOW_OK)
    return ret;
  ret = gst_bspline_warp_prepare_frame (self, in_frame->buffer, &geometry,
      &fields);
  if (ret != GST_FLOW_OK)
    return ret;
  ret = gst_bspline_warp_linear_setup (self, &linear, &remap);
  if (ret != GST_FLOW_OK)
    return ret;
  if (!gst_bspline_layout_read (&planes->in_layout[fields], in_frame,
          &planes->cpu_in, gst_bspline_warp_pack_threads (self))
      || !gst_bspline_layout_prepare (&planes->out_layout[fields], out_frame,
          &planes->cpu_out))
    goto no_memory;
  for (p = 0; ret == GST_FLOW_OK && p < planes->in_layout[fields].n_planes; p++)
    ret = remap && !planes->plane[fields][p].exact ?
        gst_bspline_warp_linear_run_on_cpu (self, &linear, fields, p,
        &planes->cpu_in.plane[p], &planes->cpu_out.plane[p]) :
        gst_bspline_warp_planes_run_on_cpu (self, &geometry, fields, p,
        &planes->cpu_in.plane[p], &planes->cpu_out.plane[p]);
  if (ret == GST_FLOW_OK)
    gst_bspline_layout_write (&planes->out_layout[fields], &planes->cpu_out,
        out_frame, gst_bspline_warp_pack_threads (self));
  return ret;

  /* ERRORS */
no_memory:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Not enough memory to unpack a %s frame.",
            GST_VIDEO_INFO_NAME (&filter->in_info)),
        ("%dx%d: staging planes", GST_VIDEO_INFO_WIDTH (&filter->in_info),
            GST_VIDEO_INFO_HEIGHT (&filter->in_info)));
    return GST_FLOW_ERROR;
  }
}

/* Upstream in system memory: GstVideoFilter's proposal (a video meta and a
 * pool), and the crop meta, whose crop is folded into the planes' views
 * (gstbsplinelayout.h) instead of being copied out upstream. */
static gboolean
gst_bspline_warp_propose_system (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
          decide_query, query))
    return FALSE;
  if (!gst_base_transform_is_passthrough (trans))
    gst_query_add_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE, NULL);
  return TRUE;
}

/* ---- defer (docs/chains.md) ---- */

/* Why this stream cannot defer (NULL: it can), warned once per caps where
 * defer is set. */
static const gchar *
gst_bspline_warp_defer_refusal (GstBSplineWarp * self, gboolean defer)
{
  return gst_bspline_chain_defer_refusal (&self->defer,
      GST_VIDEO_FILTER (self), defer, gst_bspline_warp_cuda_same_memory (self),
      NULL);
}

/* defer=true: the frame's geometry appended to the buffer's warp chain,
 * the frame pushed as it is (no copy), where the stream and the buffer
 * allow it.  TRUE where the queued buffer was taken (deferred, or an
 * error in *ret); FALSE: resample it as usual, which also reports what
 * is wrong with the geometry or the chain. */
static gboolean
gst_bspline_warp_defer (GstBSplineWarp * self, GstBuffer ** outbuf,
    GstFlowReturn * ret)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  GstBuffer *inbuf = trans->queued_buf;
  bspline_lens lenses[BSPLINE_CHAIN_MAX_LENSES];
  bspline_chain_stage *stages;
  bspline_geometry geometry;
  const gchar *refusal;
  gdouble inverse[9];
  gint n_lenses;
  guint n;
  gboolean bad;
  gchar msg[256] = "";

  *ret = GST_FLOW_OK;
  if (inbuf == NULL || gst_base_transform_is_passthrough (trans)
      || gst_bspline_warp_defer_refusal (self, self->frame.resample.defer)
      || !self->frame.resample.defer)
    return FALSE;
  if (self->frame.stmap_set
      && gst_bspline_settings_lens_model (&self->frame.lens) !=
      BSPLINE_LENS_NONE)
    return FALSE;
  if (self->frame.stmap_set && !gst_bspline_warp_stmap_ensure (&self->stmap,
          GST_ELEMENT (self), self->frame.stmap_serial,
          GST_VIDEO_INFO_WIDTH (&filter->in_info),
          GST_VIDEO_INFO_HEIGHT (&filter->in_info))) {
    *ret = GST_FLOW_ERROR;
    return TRUE;
  }
  gst_bspline_warp_geometry (&filter->in_info, &filter->out_info,
      &self->frame, &geometry);
  if (!gst_bspline_settings_lens_check (&self->frame.lens, &geometry, msg,
          sizeof (msg)))
    return FALSE;
  geometry.stmap = self->stmap.map;
  /* the buffer's stages and the element's own after them; what the
   * element could not resample by (a singular geometry, a bad chain) is
   * reported where it resamples */
  stages = gst_bspline_chain_stages (inbuf, &filter->in_info,
      self->frame.use_meta, &n, &bad, msg, sizeof (msg));
  if (bad)
    return FALSE;
  stages = g_renew (bspline_chain_stage, stages, n + 1);
  if (gst_bspline_chain_own_stage (&geometry, &stages[n], msg,
          sizeof (msg)) != BSPLINE_OK
      || bspline_chain_compose (&stages[n], 1, inverse, lenses, &n_lenses,
          msg, sizeof (msg)) != BSPLINE_OK) {
    g_free (stages);
    return FALSE;
  }
  refusal = gst_bspline_chain_buffer_refusal (inbuf, stages, n + 1);
  if (refusal) {
    GST_DEBUG_OBJECT (self, "resampling this frame: %s", refusal);
    g_free (stages);
    return FALSE;
  }
  /* the frames before it leave first */
  *ret = gst_bspline_warp_cuda_drain (self, TRUE);
  if (*ret == GST_FLOW_OK) {
    trans->queued_buf = NULL;
    *outbuf = gst_bspline_chain_defer (inbuf, &filter->in_info,
        self->frame.use_meta, &stages[n]);
  }
  g_free (stages);
  return TRUE;
}

static GstFlowReturn
gst_bspline_warp_generate_output (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  GstFlowReturn ret;

  *outbuf = NULL;
  if (gst_bspline_warp_defer (GST_BSPLINE_WARP (trans), outbuf, &ret))
    return ret;
  if (gst_bspline_warp_cuda_generate (GST_BSPLINE_WARP (trans), outbuf, &ret))
    return ret;
  return GST_BASE_TRANSFORM_CLASS (parent_class)->generate_output (trans,
      outbuf);
}

/* The engine's proposal (gstbsplinewarpcuda.h) or GstVideoFilter's; every
 * bspline element takes the chain meta: it composes it into the frames it
 * resamples, or defers onto it. */
static gboolean
gst_bspline_warp_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  gboolean ret;

  if (!gst_bspline_warp_cuda_propose (GST_BSPLINE_WARP (trans), query, &ret))
    ret = gst_bspline_warp_propose_system (trans, decide_query, query);
  if (!ret)
    return FALSE;
  gst_bspline_chain_propose (query);
  return TRUE;
}

static gboolean
gst_bspline_warp_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (trans);
  gboolean defer, ret;

  gst_bspline_chain_defer_decide (&self->defer,
      GST_BASE_TRANSFORM_SRC_PAD (trans), query);
  GST_OBJECT_LOCK (self);
  defer = self->settings.resample.defer;
  GST_OBJECT_UNLOCK (self);
  gst_bspline_warp_defer_refusal (self, defer);
  if (gst_bspline_warp_cuda_decide_memory (self, query, &ret))
    return ret;
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
          query))
    return FALSE;
  gst_bspline_warp_cuda_decide_pinned (self, query);
  return TRUE;
}

/* The frames in flight add latency: a frame leaves when the next arrives.
 * A drain query (serialized) pushes them out. */
static gboolean
gst_bspline_warp_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (trans);
  gboolean ret;

  if (gst_bspline_warp_cuda_query (self, query))
    return TRUE;
  if (direction == GST_PAD_SINK && GST_QUERY_TYPE (query) == GST_QUERY_DRAIN)
    gst_bspline_warp_cuda_drain (self, TRUE);
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
  if (ret)
    gst_bspline_warp_cuda_query_result (self, direction, query);
  return ret;
}

static void
gst_bspline_warp_set_context (GstElement * element, GstContext * context)
{
  gst_bspline_warp_cuda_set_context (GST_BSPLINE_WARP (element), context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

/* Metas (docs/element.md, "Metas"): GstBaseTransform copies them from
 * prepare_output_buffer, after before_transform has snapshot the frame's
 * settings (also on the CUDA path, whose generate_output prepares the
 * output buffer of the frame it submits), so self->frame is the buffer's.
 * The STMap of a new stmap-location is read here where the frame has not
 * read it yet (prepare_frame then finds it loaded). */
static gboolean
gst_bspline_warp_transform_meta (GstBaseTransform * trans, GstBuffer * outbuf,
    GstMeta * meta, GstBuffer * inbuf)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (trans);
  GstVideoFilter *filter = GST_VIDEO_FILTER (trans);
  bspline_geometry geometry;

  /* the crop is in the output already (gstbsplinelayout.h), and so is the
   * warp chain (the element composed it) */
  if (meta->info->api == GST_VIDEO_CROP_META_API_TYPE
      || meta->info->api == GST_BSPLINE_CHAIN_META_API_TYPE)
    return FALSE;
  if (!gst_bspline_meta_needs_geometry (meta) || !filter->negotiated)
    return gst_bspline_meta_transform (GST_OBJECT (self), outbuf, meta, inbuf,
        NULL, NULL, NULL, FALSE);
  gst_bspline_warp_geometry (&filter->in_info, &filter->out_info,
      &self->frame, &geometry);
  if (geometry.lens_model == BSPLINE_LENS_STMAP) {
    if (!gst_bspline_warp_stmap_ensure (&self->stmap, GST_ELEMENT (self),
            self->frame.stmap_serial, GST_VIDEO_INFO_WIDTH (&filter->in_info),
            GST_VIDEO_INFO_HEIGHT (&filter->in_info)))
      return FALSE;
    geometry.stmap = self->stmap.map;
  }
  return gst_bspline_meta_transform (GST_OBJECT (self), outbuf, meta, inbuf,
      &filter->in_info, &filter->out_info, &geometry, self->frame.use_meta);
}

/* Navigation (docs/element.md, "Navigation"): the pointer goes upstream
 * through the inverse of the geometry of the last frame (its settings and
 * STMap, published by the streaming thread), or of the properties as they
 * are before the first frame. */
static gboolean
gst_bspline_warp_src_event (GstBaseTransform * trans, GstEvent * event)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (trans);
  GstVideoFilter *filter = GST_VIDEO_FILTER (trans);
  GstBSplineWarpSettings s;
  bspline_geometry geometry;
  bspline_stmap *stmap = NULL;

  if (GST_EVENT_TYPE (event) == GST_EVENT_NAVIGATION && filter->negotiated) {
    GST_OBJECT_LOCK (self);
    s = self->shown_valid ? self->shown : self->settings;
    stmap = bspline_stmap_ref (self->stmap.shown);
    GST_OBJECT_UNLOCK (self);
    gst_bspline_warp_geometry (&filter->in_info, &filter->out_info, &s,
        &geometry);
    geometry.stmap = stmap;
    event = gst_bspline_meta_navigation_event (GST_OBJECT (self), event,
        &geometry);
    bspline_stmap_unref (stmap);
    if (event == NULL)
      return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->src_event (trans, event);
}
