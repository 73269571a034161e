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
 * The element is thin: it negotiates, snapshots its settings once per
 * frame, keeps one plan per plane (core/bspline.h) and runs the CPU engine
 * on each plane.  It works in passthrough when the transform is the
 * identity and the sizes match.  Interlaced video is refused at negotiation
 * (put deinterlace in front).
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

#include <math.h>
#include <string.h>

#include <gst/controller/controller.h>

#include "gstbsplinewarp.h"
#include "gstbsplineframe.h"
#include "gstbsplinelayout.h"
#include "gstbsplinesettings.h"
#include "gstbsplinemeta.h"
#include "gstbsplinechain.h"
#include "bspline.h"
#include "bspline-geometry.h"
#include "bspline-orient.h"
#include "bspline-stmap.h"
#ifdef HAVE_BSPLINE_CUDA
#include "bspline-cuda.h"
#include "gstbsplinepinned.h"
#endif
#ifdef HAVE_BSPLINE_CUDA_MEMORY
#include "gstbsplinecudamemory.h"
#endif

GST_DEBUG_CATEGORY_STATIC (gst_bspline_warp_debug);
#define GST_CAT_DEFAULT gst_bspline_warp_debug

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
} GstBSplineWarpSettings;

/* What a plane of the current caps is run with. */
typedef struct
{
  gboolean valid;
  gboolean exact;               /* reoriented by copying samples, no plan */
  bspline_plan *plan;
  bspline_params params;
  gdouble inverse[9];
  /* the lens and STMap stages after inverse (the element's own, or
   * those of the buffer's chain composed with it) */
  bspline_lens lenses[BSPLINE_CHAIN_MAX_LENSES];
  gint n_lenses;
  gint src_width, src_height, dst_width, dst_height, channels;
} GstBSplineWarpPlane;

struct _GstBSplineWarp
{
  GstVideoFilter parent;

  /* behind the object lock */
  GstBSplineWarpSettings settings;
  gchar *stmap_location;
  /* the settings and STMap of the last frame, for navigation events */
  GstBSplineWarpSettings shown;
  gboolean shown_valid;
  bspline_stmap *shown_stmap;

  /* streaming thread only */
  GstBSplineWarpSettings frame; /* snapshot for the buffer in flight */
  GstVideoChromaSite chroma_site;       /* of the input caps */
  bspline_cpu *cpu;
  guint cpu_threads;
  /* the layouts of the buffers seen, each kind of fields apart (a mixed
   * stream alternates them), and the planes' plans for each */
  GstBSplineLayout in_layout[GST_BSPLINE_FIELDS_N];
  GstBSplineLayout out_layout[GST_BSPLINE_FIELDS_N];
  GstBSplineWarpPlane planes[GST_BSPLINE_FIELDS_N]
      [GST_BSPLINE_LAYOUT_MAX_PLANES];
  GstBSplineLayoutFrame cpu_in, cpu_out;        /* the CPU's staging */
  gboolean warned_field;        /* of an alternate buffer of no field */
  /* defer: why downstream would not apply the chain meta (NULL: it
   * would; gst_bspline_chain_downstream_refusal), and whether the element
   * warned that it resamples instead */
  gchar *downstream_refusal;
  gboolean warned_defer;
  bspline_stmap *stmap;         /* loaded from stmap-location, or NULL */
  gboolean stmap_loaded;        /* since start, for ... */
  guint stmap_serial;           /* ... the settings' serial */
#ifdef HAVE_BSPLINE_CUDA
  bspline_cuda *cuda;           /* NULL: every frame runs on the CPU */
  gboolean cuda_required;       /* backend=cuda: a GPU failure is an error */
  gboolean gpu_failed;          /* backend=auto after a GPU failure */
  GQueue pending;               /* GstBSplineWarpPending, oldest first */
  GQueue spare_planes;          /* GstBSplineLayoutFrame: staging to reuse */
#endif
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  GstBSplineCudaMemory cudamem; /* gst.cuda.context, memory:CUDAMemory */
#endif
};

#ifdef HAVE_BSPLINE_CUDA
/* A frame whose planes are on the GPU: uploaded, resampled and downloaded
 * on the engine's streams while the next frame is submitted. */
typedef struct
{
  GstBuffer *inbuf, *outbuf;
  GstVideoFrame in_frame, out_frame;
  GstBSplineFields fields;
  GstBSplineLayout out_layout;  /* packs staged output planes */
  GstBSplineLayoutFrame in_planes, out_planes;
  gint slots[GST_BSPLINE_LAYOUT_MAX_PLANES];    /* -1: plane already done */
  gboolean in_device, out_device;       /* frames mapped as CUDA memory */
  gboolean failed;              /* the GPU failed: redo it on the CPU */
  gchar error[512];             /* what failed, for the message */
  GstBSplineWarpSettings settings;      /* the frame's snapshot */
} GstBSplineWarpPending;

/* Frames on the GPU while the element returns the one before: one frame
 * of latency for the overlap of upload, kernels and download. */
#define GST_BSPLINE_WARP_FRAMES_IN_FLIGHT 2
#endif

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
  PROP_STMAP_LOCATION
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
static GstCaps *gst_bspline_warp_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static GstCaps *gst_bspline_warp_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps);
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
static GstFlowReturn gst_bspline_warp_transform_frame (GstVideoFilter *
    filter, GstVideoFrame * in_frame, GstVideoFrame * out_frame);
static GstFlowReturn gst_bspline_warp_drain (GstBSplineWarp * self,
    gboolean push);
static void gst_bspline_warp_free_cuda (GstBSplineWarp * self);
#ifdef HAVE_BSPLINE_CUDA_MEMORY
static void gst_bspline_warp_set_context (GstElement * element,
    GstContext * context);
#endif
static gboolean gst_bspline_warp_propose_system (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query);
static GstFlowReturn gst_bspline_warp_generate_output (GstBaseTransform *
    trans, GstBuffer ** outbuf);
static gboolean gst_bspline_warp_propose_allocation (GstBaseTransform *
    trans, GstQuery * decide_query, GstQuery * query);
static gboolean gst_bspline_warp_decide_allocation (GstBaseTransform *
    trans, GstQuery * query);
#ifdef HAVE_BSPLINE_CUDA
static gboolean gst_bspline_warp_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
#endif
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
          "between its samples (docs/stmap.md); read when the next frame "
          "runs after it changes; not with lens-model (default none)",
          NULL, flags));

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
#ifdef HAVE_BSPLINE_CUDA
  trans_class->query = GST_DEBUG_FUNCPTR (gst_bspline_warp_query);
#endif
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_bspline_warp_set_context);
#endif

  gst_bspline_settings_mark_plugin_api ();
}

static void
gst_bspline_warp_init (GstBSplineWarp * self)
{
  GstBSplineWarpSettings *s = &self->settings;

  gst_bspline_settings_init (G_OBJECT (self), s);
  s->use_matrix = FALSE;
  bspline_matrix_identity (s->matrix);
  s->video_direction = DEFAULT_VIDEO_DIRECTION;
  s->tag_direction = GST_VIDEO_ORIENTATION_IDENTITY;
  self->frame = *s;
}

static void
gst_bspline_warp_clear_planes (GstBSplineWarp * self)
{
  guint f, p;

  for (f = 0; f < GST_BSPLINE_FIELDS_N; f++) {
    for (p = 0; p < GST_BSPLINE_LAYOUT_MAX_PLANES; p++) {
      bspline_plan_free (self->planes[f][p].plan);
      memset (&self->planes[f][p], 0, sizeof (self->planes[f][p]));
    }
    memset (&self->in_layout[f], 0, sizeof (self->in_layout[f]));
    memset (&self->out_layout[f], 0, sizeof (self->out_layout[f]));
  }
}

static void
gst_bspline_warp_finalize (GObject * object)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (object);

  gst_bspline_warp_clear_planes (self);
  gst_bspline_layout_frame_clear (&self->cpu_in);
  gst_bspline_layout_frame_clear (&self->cpu_out);
  bspline_stmap_unref (self->stmap);
  self->stmap = NULL;
  bspline_stmap_unref (self->shown_stmap);
  self->shown_stmap = NULL;
  g_free (self->stmap_location);
  g_free (self->downstream_refusal);
  self->stmap_location = NULL;
  bspline_cpu_free (self->cpu);
  self->cpu = NULL;
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  gst_bspline_cuda_memory_clear (&self->cudamem);
#endif

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

/* The orientation requested by video-direction (and the image-orientation
 * tag when it is auto).  "custom" means the geometry properties alone
 * define the transform. */
static bspline_orientation
gst_bspline_warp_orientation (const GstBSplineWarpSettings * s)
{
  GstVideoOrientationMethod method = s->video_direction;

  if (method == GST_VIDEO_ORIENTATION_AUTO)
    method = s->tag_direction;

  switch (method) {
    case GST_VIDEO_ORIENTATION_90R:
      return BSPLINE_ORIENT_ROTATE_90;
    case GST_VIDEO_ORIENTATION_180:
      return BSPLINE_ORIENT_ROTATE_180;
    case GST_VIDEO_ORIENTATION_90L:
      return BSPLINE_ORIENT_ROTATE_270;
    case GST_VIDEO_ORIENTATION_HORIZ:
      return BSPLINE_ORIENT_FLIP_HORIZONTAL;
    case GST_VIDEO_ORIENTATION_VERT:
      return BSPLINE_ORIENT_FLIP_VERTICAL;
    case GST_VIDEO_ORIENTATION_UL_LR:
      return BSPLINE_ORIENT_TRANSPOSE;
    case GST_VIDEO_ORIENTATION_UR_LL:
      return BSPLINE_ORIENT_ANTI_TRANSPOSE;
    default:
      return BSPLINE_ORIENT_IDENTITY;
  }
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
      g_free (self->stmap_location);
      self->stmap_location = g_value_dup_string (value);
      if (self->stmap_location && !*self->stmap_location) {
        g_free (self->stmap_location);
        self->stmap_location = NULL;
      }
      s->stmap_set = self->stmap_location != NULL;
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
      g_value_set_string (value, self->stmap_location);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      if (!gst_bspline_settings_get_property (object, &self->settings, pspec,
              value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_bspline_warp_snapshot (GstBSplineWarp * self,
    GstBSplineWarpSettings * settings)
{
  GST_OBJECT_LOCK (self);
  *settings = self->settings;
  GST_OBJECT_UNLOCK (self);
}

#ifdef HAVE_BSPLINE_CUDA
/* The engine on the pipeline's CUDA context where a neighbour has one
 * already, else on the device's primary context; CUDA memory caps may
 * move it onto a shared context later (gst_bspline_warp_negotiate_memory). */
static bspline_status
gst_bspline_warp_new_engine (GstBSplineWarp * self, gint device_id,
    gchar * msg, gsize msg_len)
{
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  gst_bspline_cuda_memory_find_context (GST_ELEMENT (self), &self->cudamem,
      device_id);
  if (self->cudamem.context)
    return gst_bspline_cuda_memory_new_engine (&self->cudamem, &self->cuda,
        msg, msg_len);
#endif
  return bspline_cuda_new (device_id, &self->cuda, msg, msg_len);
}

/* An engine on a shared context needs it current during each of its
 * calls; an engine on the primary context selects its device itself. */
static gboolean
gst_bspline_warp_cuda_enter (GstBSplineWarp * self)
{
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  return gst_bspline_cuda_memory_push (&self->cudamem);
#else
  (void) self;
  return TRUE;
#endif
}

static void
gst_bspline_warp_cuda_leave (G_GNUC_UNUSED GstBSplineWarp * self)
{
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  gst_bspline_cuda_memory_pop (&self->cudamem);
#endif
}
#endif

static gboolean
gst_bspline_warp_start (GstBaseTransform * trans)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (trans);
  GstBSplineWarpSettings s;
  gchar msg[256] = "this build has no CUDA engine";

  gst_bspline_warp_snapshot (self, &s);
  self->warned_field = FALSE;
  GST_OBJECT_LOCK (self);
  self->shown_valid = FALSE;
  GST_OBJECT_UNLOCK (self);
#ifdef HAVE_BSPLINE_CUDA
  if (s.resample.backend != GST_BSPLINE_BACKEND_CPU) {
    if (gst_bspline_warp_new_engine (self, s.resample.cuda_device_id, msg,
            sizeof (msg)) == BSPLINE_OK)
      GST_INFO_OBJECT (self, "CUDA engine on device %d (%s)",
          s.resample.cuda_device_id, bspline_cuda_device_name (self->cuda));
    else if (s.resample.backend == GST_BSPLINE_BACKEND_AUTO)
      GST_INFO_OBJECT (self, "no CUDA engine (%s): using the CPU engine", msg);
  }
  if (s.resample.backend == GST_BSPLINE_BACKEND_CUDA && self->cuda == NULL)
    goto no_cuda;
  self->cuda_required = s.resample.backend == GST_BSPLINE_BACKEND_CUDA;
  self->gpu_failed = FALSE;
#else
  if (s.resample.backend == GST_BSPLINE_BACKEND_CUDA)
    goto no_cuda;
#endif

  /* the CPU engine is always there: for backend=cpu, and for a fallback */
  self->cpu = bspline_cpu_new ((int) s.resample.n_threads);
  if (self->cpu == NULL)
    goto no_cpu;
  self->cpu_threads = s.resample.n_threads;
  GST_DEBUG_OBJECT (self, "CPU engine with %d threads",
      bspline_cpu_n_threads (self->cpu));
  return TRUE;

  /* ERRORS */
no_cuda:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, INIT,
        ("backend=cuda was requested, but the CUDA engine cannot run: %s.",
            msg), ("cuda-device-id=%d. Set backend=auto to use the GPU "
            "where there is one and the CPU otherwise.",
            s.resample.cuda_device_id));
    return FALSE;
  }
no_cpu:
  {
    gst_bspline_warp_free_cuda (self);
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not start the CPU engine with n-threads=%u.",
            s.resample.n_threads),
        ("bspline_cpu_new failed: out of memory or threads."));
    return FALSE;
  }
}

static gboolean
gst_bspline_warp_stop (GstBaseTransform * trans)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (trans);

  gst_bspline_warp_drain (self, FALSE);
  gst_bspline_warp_free_cuda (self);
  gst_bspline_warp_clear_planes (self);
  /* read again at the next start: the file may have changed */
  bspline_stmap_unref (self->stmap);
  self->stmap = NULL;
  self->stmap_loaded = FALSE;
  bspline_cpu_free (self->cpu);
  self->cpu = NULL;
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  /* as nvcodec's elements: the next start takes the pipeline's again */
  gst_bspline_cuda_memory_clear (&self->cudamem);
#endif
  return TRUE;
}

/* Any size in either direction; format, colorimetry, chroma-site, framerate
 * and the rest stay as they are.  With CUDA memory, either memory on
 * either side, the given one first. */
static GstCaps *
gst_bspline_warp_transform_caps (GstBaseTransform * trans,
    G_GNUC_UNUSED GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps *ret = gst_caps_new_empty ();
  guint i, n = gst_caps_get_size (caps);

  for (i = 0; i < n; i++) {
    GstStructure *structure = gst_caps_get_structure (caps, i);
    GstCapsFeatures *features = gst_caps_get_features (caps, i);

    if (i > 0 && gst_caps_is_subset_structure_full (ret, structure, features))
      continue;

    structure = gst_structure_copy (structure);
    if (!gst_caps_features_is_any (features)
        && (gst_caps_features_is_equal (features,
                GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY)
            || gst_caps_features_contains (features,
                GST_CAPS_FEATURE_FORMAT_INTERLACED)
            || gst_caps_features_contains (features, "memory:CUDAMemory"))) {
      gst_structure_set (structure, "width", GST_TYPE_INT_RANGE, 1, G_MAXINT,
          "height", GST_TYPE_INT_RANGE, 1, G_MAXINT, NULL);
      if (gst_structure_has_field (structure, "pixel-aspect-ratio"))
        gst_structure_set (structure, "pixel-aspect-ratio",
            GST_TYPE_FRACTION_RANGE, 1, G_MAXINT, G_MAXINT, 1, NULL);
    }
    gst_caps_append_structure_full (ret, structure,
        gst_caps_features_copy (features));
  }
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  {
    GstBSplineWarpSettings s;
    GstCaps *memories;

    gst_bspline_warp_snapshot (GST_BSPLINE_WARP (trans), &s);
    memories = gst_bspline_cuda_memory_transform_caps (ret,
        s.resample.backend != GST_BSPLINE_BACKEND_CPU
        && gst_bspline_cuda_memory_usable ());
    gst_caps_unref (ret);
    ret = memories;
  }
#endif

  if (filter) {
    GstCaps *intersection =
        gst_caps_intersect_full (filter, ret, GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (ret);
    ret = intersection;
  }
  GST_DEBUG_OBJECT (trans, "transformed %" GST_PTR_FORMAT " into %"
      GST_PTR_FORMAT, caps, ret);
  return ret;
}

/* Sets the pixel-aspect-ratio of outs when it is there already or not
 * square, as videoscale does. */
static void
gst_bspline_warp_set_par (GstStructure * outs, gint par_n, gint par_d)
{
  if (gst_structure_has_field (outs, "pixel-aspect-ratio") || par_n != par_d)
    gst_structure_set (outs, "pixel-aspect-ratio", GST_TYPE_FRACTION, par_n,
        par_d, NULL);
}

/* The PAR nearest to par_n/par_d that outs allows. */
static void
gst_bspline_warp_nearest_par (GstStructure * outs, const GValue * to_par,
    gint par_n, gint par_d, gint * set_n, gint * set_d)
{
  GstStructure *tmp = gst_structure_copy (outs);

  if (!gst_structure_has_field (tmp, "pixel-aspect-ratio"))
    gst_structure_set_value (tmp, "pixel-aspect-ratio", to_par);
  gst_structure_fixate_field_nearest_fraction (tmp, "pixel-aspect-ratio",
      par_n, par_d);
  gst_structure_get_fraction (tmp, "pixel-aspect-ratio", set_n, set_d);
  gst_structure_free (tmp);
}

/* The value of an int field of outs nearest to target. */
static gint
gst_bspline_warp_nearest_int (GstStructure * outs, const gchar * field,
    gint target)
{
  GstStructure *tmp = gst_structure_copy (outs);
  gint value = 0;

  gst_structure_fixate_field_nearest_int (tmp, field, target);
  gst_structure_get_int (tmp, field, &value);
  gst_structure_free (tmp);
  return value;
}

/* videoscale's size fixation (gst-plugins-base videoconvertscale
 * fixate_size): keep the display aspect ratio of the (reoriented) input,
 * preferring to keep its height, then its width, adjusting the PAR where
 * the other side allows it.  Returns FALSE on integer overflow. */
static gboolean
gst_bspline_warp_fixate_size (gint from_w, gint from_h, gint from_par_n,
    gint from_par_d, GstStructure * outs, const GValue * to_par)
{
  gint w = 0, h = 0, from_dar_n, from_dar_d, num, den;
  gint to_par_n, to_par_d, set_w, set_h, set_par_n, set_par_d;

  gst_structure_get_int (outs, "width", &w);
  gst_structure_get_int (outs, "height", &h);

  if (w && h) {
    guint n, d;

    /* both fixed: only the PAR can follow */
    if (!gst_value_is_fixed (to_par)
        && gst_video_calculate_display_ratio (&n, &d, from_w, from_h,
            from_par_n, from_par_d, w, h)) {
      if (gst_structure_has_field (outs, "pixel-aspect-ratio"))
        gst_structure_fixate_field_nearest_fraction (outs,
            "pixel-aspect-ratio", n, d);
      else if (n != d)
        gst_structure_set (outs, "pixel-aspect-ratio", GST_TYPE_FRACTION,
            n, d, NULL);
    }
    return TRUE;
  }

  if (!gst_util_fraction_multiply (from_w, from_h, from_par_n, from_par_d,
          &from_dar_n, &from_dar_d))
    return FALSE;

  if (h || w) {
    /* one side fixed: choose the other (and the PAR if it is free) */
    gboolean height_fixed = h != 0;
    const gchar *free_field = height_fixed ? "width" : "height";
    gint fixed = height_fixed ? h : w;
    gint from_free = height_fixed ? from_w : from_h;
    gint free_value;

    if (gst_value_is_fixed (to_par)) {
      to_par_n = gst_value_get_fraction_numerator (to_par);
      to_par_d = gst_value_get_fraction_denominator (to_par);
      if (!gst_util_fraction_multiply (from_dar_n, from_dar_d, to_par_d,
              to_par_n, &num, &den))
        return FALSE;
      free_value = height_fixed ?
          (gint) gst_util_uint64_scale_int_round (fixed, num, den) :
          (gint) gst_util_uint64_scale_int_round (fixed, den, num);
      gst_structure_fixate_field_nearest_int (outs, free_field, free_value);
      return TRUE;
    }

    /* keep the input's size on the free side, adjust the PAR */
    free_value = gst_bspline_warp_nearest_int (outs, free_field, from_free);
    if (height_fixed)
      set_w = free_value, set_h = h;
    else
      set_w = w, set_h = free_value;
    if (!gst_util_fraction_multiply (from_dar_n, from_dar_d, set_h, set_w,
            &to_par_n, &to_par_d))
      return FALSE;
    gst_bspline_warp_nearest_par (outs, to_par, to_par_n, to_par_d,
        &set_par_n, &set_par_d);
    if (set_par_n == to_par_n && set_par_d == to_par_d) {
      gst_structure_set (outs, free_field, G_TYPE_INT, free_value, NULL);
      gst_bspline_warp_set_par (outs, set_par_n, set_par_d);
      return TRUE;
    }

    /* that PAR is not allowed: scale the free side to the one we got */
    if (!gst_util_fraction_multiply (from_dar_n, from_dar_d, set_par_d,
            set_par_n, &num, &den))
      return FALSE;
    free_value = height_fixed ?
        (gint) gst_util_uint64_scale_int_round (fixed, num, den) :
        (gint) gst_util_uint64_scale_int_round (fixed, den, num);
    gst_structure_fixate_field_nearest_int (outs, free_field, free_value);
    gst_bspline_warp_set_par (outs, set_par_n, set_par_d);
    return TRUE;
  }

  if (gst_value_is_fixed (to_par)) {
    gint f_w, f_h;

    /* size free, PAR fixed: keep the input height, else the input width,
     * else take the size whose DAR is nearest */
    to_par_n = gst_value_get_fraction_numerator (to_par);
    to_par_d = gst_value_get_fraction_denominator (to_par);
    if (!gst_util_fraction_multiply (from_dar_n, from_dar_d, to_par_d,
            to_par_n, &num, &den))
      return FALSE;

    set_h = gst_bspline_warp_nearest_int (outs, "height", from_h);
    w = (gint) gst_util_uint64_scale_int_round (set_h, num, den);
    set_w = gst_bspline_warp_nearest_int (outs, "width", w);
    if (set_w == w) {
      gst_structure_set (outs, "width", G_TYPE_INT, set_w, "height",
          G_TYPE_INT, set_h, NULL);
      return TRUE;
    }
    f_w = set_w;
    f_h = set_h;

    set_w = gst_bspline_warp_nearest_int (outs, "width", from_w);
    h = (gint) gst_util_uint64_scale_int_round (set_w, den, num);
    set_h = gst_bspline_warp_nearest_int (outs, "height", h);
    if (set_h == h) {
      gst_structure_set (outs, "width", G_TYPE_INT, set_w, "height",
          G_TYPE_INT, set_h, NULL);
      return TRUE;
    }

    if ((gint64) set_w * ABS (set_h - h) < (gint64) ABS (f_w - w) * f_h) {
      f_w = set_w;
      f_h = set_h;
    }
    gst_structure_set (outs, "width", G_TYPE_INT, f_w, "height", G_TYPE_INT,
        f_h, NULL);
    return TRUE;
  }

  /* size and PAR free: keep the input size and scale the PAR, else scale
   * the width, else the height, to the PAR we can get */
  set_h = gst_bspline_warp_nearest_int (outs, "height", from_h);
  set_w = gst_bspline_warp_nearest_int (outs, "width", from_w);
  if (!gst_util_fraction_multiply (from_dar_n, from_dar_d, set_h, set_w,
          &to_par_n, &to_par_d))
    return FALSE;
  gst_bspline_warp_nearest_par (outs, to_par, to_par_n, to_par_d,
      &set_par_n, &set_par_d);
  if (set_par_n != to_par_n || set_par_d != to_par_d) {
    gint tmp;

    if (!gst_util_fraction_multiply (from_dar_n, from_dar_d, set_par_d,
            set_par_n, &num, &den))
      return FALSE;
    w = (gint) gst_util_uint64_scale_int_round (set_h, num, den);
    tmp = gst_bspline_warp_nearest_int (outs, "width", w);
    if (tmp == w) {
      set_w = tmp;
    } else {
      h = (gint) gst_util_uint64_scale_int_round (set_w, den, num);
      tmp = gst_bspline_warp_nearest_int (outs, "height", h);
      if (tmp == h)
        set_h = tmp;
    }
  }
  gst_structure_set (outs, "width", G_TYPE_INT, set_w, "height", G_TYPE_INT,
      set_h, NULL);
  gst_bspline_warp_set_par (outs, set_par_n, set_par_d);
  return TRUE;
}

static GstCaps *
gst_bspline_warp_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (trans);
  GstStructure *ins, *outs;
  const GValue *from_par, *to_par;
  GValue tpar = G_VALUE_INIT;
  gint from_w = 0, from_h = 0, from_par_n = 1, from_par_d = 1;
  GstBSplineWarpSettings s;

  /* defer=true: the input's caps where downstream takes them, so that a
   * size change falls to an element that resamples (docs/chains.md) */
  gst_bspline_warp_snapshot (self, &s);
  if (direction == GST_PAD_SINK && s.resample.defer) {
    GstCaps *same = gst_caps_intersect_full (othercaps, caps,
        GST_CAPS_INTERSECT_FIRST);

    if (!gst_caps_is_empty (same)) {
      gst_caps_unref (othercaps);
      othercaps = same;
    } else
      gst_caps_unref (same);
  }
  othercaps = gst_caps_truncate (othercaps);
  othercaps = gst_caps_make_writable (othercaps);
  ins = gst_caps_get_structure (caps, 0);
  outs = gst_caps_get_structure (othercaps, 0);

  gst_structure_get_int (ins, "width", &from_w);
  gst_structure_get_int (ins, "height", &from_h);
  from_par = gst_structure_get_value (ins, "pixel-aspect-ratio");
  if (from_par && gst_value_is_fixed (from_par)) {
    from_par_n = gst_value_get_fraction_numerator (from_par);
    from_par_d = gst_value_get_fraction_denominator (from_par);
  }

  /* A missing PAR means 1/1 on the fixed side; on the other side it is
   * free when fixating the source caps and 1/1 when fixating the sink
   * caps, as in videoscale. */
  to_par = gst_structure_get_value (outs, "pixel-aspect-ratio");
  if (!to_par) {
    if (direction == GST_PAD_SINK) {
      g_value_init (&tpar, GST_TYPE_FRACTION_RANGE);
      gst_value_set_fraction_range_full (&tpar, 1, G_MAXINT, G_MAXINT, 1);
    } else {
      g_value_init (&tpar, GST_TYPE_FRACTION);
      gst_value_set_fraction (&tpar, 1, 1);
      gst_structure_set (outs, "pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1,
          NULL);
    }
    to_par = &tpar;
  }

  /* Size the output for the reoriented input: a quarter turn swaps the
   * sides and inverts the PAR (the map is its own inverse, so the same
   * holds when fixating the sink caps from the source caps). */
  if (bspline_orientation_swaps_axes (gst_bspline_warp_orientation (&s))) {
    gint tmp = from_w;

    from_w = from_h;
    from_h = tmp;
    tmp = from_par_n;
    from_par_n = from_par_d;
    from_par_d = tmp;
  }

  if (from_w > 0 && from_h > 0 && !gst_bspline_warp_fixate_size (from_w,
          from_h, from_par_n, from_par_d, outs, to_par))
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("Integer overflow while computing the output size for %dx%d "
            "(PAR %d/%d)", from_w, from_h, from_par_n, from_par_d));

  if (to_par == &tpar)
    g_value_unset (&tpar);

  othercaps = gst_caps_fixate (othercaps);
  GST_DEBUG_OBJECT (self, "fixated to %" GST_PTR_FORMAT, othercaps);
  return othercaps;
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
    gst_bspline_warp_drain (self,
        GST_EVENT_TYPE (event) != GST_EVENT_FLUSH_STOP);

  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* The geometry of a frame: the settings and the negotiated sizes.  With
 * add-borders and different display aspect ratios, the reoriented input
 * goes onto the centred rectangle that keeps its DAR, exactly as
 * videoscale computes its borders. */
static void
gst_bspline_warp_geometry (const GstVideoInfo * in_info,
    const GstVideoInfo * out_info, const GstBSplineWarpSettings * s,
    bspline_geometry * geometry)
{
  gint in_w, in_h, in_par_n, in_par_d;
  gint from_dar_n, from_dar_d, to_dar_n, to_dar_d, n, d;
  gint out_w = GST_VIDEO_INFO_WIDTH (out_info);
  gint out_h = GST_VIDEO_INFO_HEIGHT (out_info);
  gint borders_w = 0, borders_h = 0;

  bspline_geometry_init (geometry, GST_VIDEO_INFO_WIDTH (in_info),
      GST_VIDEO_INFO_HEIGHT (in_info), out_w, out_h);
  geometry->orientation = gst_bspline_warp_orientation (s);

  bspline_geometry_oriented_size (geometry, &in_w, &in_h);
  in_par_n = GST_VIDEO_INFO_PAR_N (in_info);
  in_par_d = GST_VIDEO_INFO_PAR_D (in_info);
  if (bspline_orientation_swaps_axes (geometry->orientation)) {
    in_par_n = GST_VIDEO_INFO_PAR_D (in_info);
    in_par_d = GST_VIDEO_INFO_PAR_N (in_info);
  }

  if (s->add_borders
      && gst_util_fraction_multiply (in_w, in_h, in_par_n, in_par_d,
          &from_dar_n, &from_dar_d)
      && gst_util_fraction_multiply (out_w, out_h,
          GST_VIDEO_INFO_PAR_N (out_info), GST_VIDEO_INFO_PAR_D (out_info),
          &to_dar_n, &to_dar_d)
      && (from_dar_n != to_dar_n || from_dar_d != to_dar_d)
      && gst_util_fraction_multiply (from_dar_n, from_dar_d,
          GST_VIDEO_INFO_PAR_D (out_info), GST_VIDEO_INFO_PAR_N (out_info),
          &n, &d)) {
    gint to_h = (gint) gst_util_uint64_scale_int (out_w, d, n);

    if (to_h <= out_h)
      borders_h = out_h - to_h;
    else
      borders_w = out_w - (gint) gst_util_uint64_scale_int (out_h, n, d);
    /* a picture thinner than a pixel (320x240 into 1x1) still gets one
     * row or column, as videoscale does: a rectangle of no pixel has no
     * scaling (a singular matrix) */
    borders_w = MIN (borders_w, out_w - 1);
    borders_h = MIN (borders_h, out_h - 1);
  }

  geometry->rect_x = borders_w / 2;
  geometry->rect_y = borders_h / 2;
  geometry->rect_width = out_w - borders_w;
  geometry->rect_height = out_h - borders_h;
  geometry->rotation = s->rotation;
  geometry->zoom = s->zoom;
  geometry->translate_x = s->translate_x;
  geometry->translate_y = s->translate_y;
  geometry->pivot_x = s->pivot_x;
  geometry->pivot_y = s->pivot_y;
  geometry->use_matrix = s->use_matrix;
  memcpy (geometry->matrix, s->matrix, sizeof (geometry->matrix));
  gst_bspline_settings_lens_geometry (&s->lens, geometry);
  /* the map itself is the streaming thread's (prepare_frame) */
  if (s->stmap_set && geometry->lens_model == BSPLINE_LENS_NONE)
    geometry->lens_model = BSPLINE_LENS_STMAP;
}

static gboolean
gst_bspline_warp_is_identity (const GstVideoInfo * in_info,
    const GstVideoInfo * out_info, const GstBSplineWarpSettings * s)
{
  bspline_geometry geometry;

  gst_bspline_warp_geometry (in_info, out_info, s, &geometry);
  return geometry.orientation == BSPLINE_ORIENT_IDENTITY
      && bspline_geometry_is_pure_orientation (&geometry);
}

/* Passthrough: the identity, from one memory to the same. */
static gboolean
gst_bspline_warp_can_pass (GstBSplineWarp * self, const GstVideoInfo * in_info,
    const GstVideoInfo * out_info, const GstBSplineWarpSettings * s)
{
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  if (self->cudamem.in_cuda != self->cudamem.out_cuda)
    return FALSE;
#else
  (void) self;
#endif
  return gst_bspline_warp_is_identity (in_info, out_info, s);
}

#ifdef HAVE_BSPLINE_CUDA_MEMORY
/* CUDA memory on either pad needs the pipeline's CUDA context and an
 * engine on it: an engine made at start on the device's primary context
 * is replaced (after the frames in flight go out), since device pointers
 * of cudaupload, cudadownload and the decoders are valid only in theirs. */
static gboolean
gst_bspline_warp_negotiate_memory (GstBSplineWarp * self, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstBSplineCudaMemory *m = &self->cudamem;
  GstBSplineWarpSettings s;
  gchar msg[256] = "";

  m->in_cuda = gst_bspline_cuda_memory_caps_are_cuda (incaps);
  m->out_cuda = gst_bspline_cuda_memory_caps_are_cuda (outcaps);
  if (!m->in_cuda && !m->out_cuda)
    return TRUE;
  gst_bspline_warp_snapshot (self, &s);
  if (!gst_bspline_cuda_memory_ensure_context (GST_ELEMENT (self), m,
          s.resample.cuda_device_id))
    goto no_context;
  if (self->cuda == NULL || m->engine_context == m->context)
    return TRUE;
  gst_bspline_warp_drain (self, TRUE);
  gst_bspline_warp_free_cuda (self);
  if (gst_bspline_cuda_memory_new_engine (m, &self->cuda, msg,
          sizeof (msg)) != BSPLINE_OK)
    goto no_engine;
  GST_INFO_OBJECT (self, "CUDA engine on the pipeline's CUDA context (%s)",
      bspline_cuda_device_name (self->cuda));
  return TRUE;

  /* ERRORS */
no_context:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not get a CUDA context for memory:CUDAMemory."),
        ("cuda-device-id=%d: gst_cuda_ensure_element_context failed",
            s.resample.cuda_device_id));
    return FALSE;
  }
no_engine:
  {
    if (self->cuda_required) {
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("The CUDA engine cannot run on the pipeline's CUDA context: %s.",
              msg), ("backend=cuda"));
      return FALSE;
    }
    GST_ELEMENT_WARNING (self, RESOURCE, FAILED,
        ("The CUDA engine cannot run on the pipeline's CUDA context (%s): "
            "continuing on the CPU.", msg), ("backend=auto"));
    return TRUE;
  }
}
#endif

static gboolean
gst_bspline_warp_set_info (GstVideoFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, G_GNUC_UNUSED GstCaps * outcaps,
    GstVideoInfo * out_info)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (filter);
  GstBSplineWarpSettings s;

  gst_bspline_warp_clear_planes (self);
  gst_bspline_warp_snapshot (self, &s);

  self->chroma_site = gst_bspline_frame_chroma_site (incaps, in_info);
  self->warned_defer = FALSE;
  /* until the allocation query of these caps says otherwise */
  g_free (self->downstream_refusal);
  self->downstream_refusal = g_strdup ("downstream has not been asked "
      "whether it takes the warp chain meta");

#ifdef HAVE_BSPLINE_CUDA_MEMORY
  if (!gst_bspline_warp_negotiate_memory (self, incaps, outcaps))
    return FALSE;
#endif
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (filter),
      gst_bspline_warp_can_pass (self, in_info, out_info, &s));

  GST_DEBUG_OBJECT (self, "%s %dx%d (PAR %d/%d) -> %dx%d (PAR %d/%d), "
      "chroma-site 0x%x", GST_VIDEO_INFO_NAME (in_info),
      GST_VIDEO_INFO_WIDTH (in_info), GST_VIDEO_INFO_HEIGHT (in_info),
      GST_VIDEO_INFO_PAR_N (in_info), GST_VIDEO_INFO_PAR_D (in_info),
      GST_VIDEO_INFO_WIDTH (out_info), GST_VIDEO_INFO_HEIGHT (out_info),
      GST_VIDEO_INFO_PAR_N (out_info), GST_VIDEO_INFO_PAR_D (out_info),
      self->chroma_site);
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

  gst_bspline_warp_snapshot (self, &self->frame);
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
static void
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

static gboolean
gst_bspline_warp_params_equal (const bspline_params * a,
    const bspline_params * b)
{
  return a->method == b->method && a->order == b->order
      && a->bicubic_a == b->bicubic_a && a->boundary == b->boundary
      && memcmp (a->fill, b->fill, sizeof (a->fill)) == 0
      && a->precision == b->precision && a->antialias == b->antialias;
}

/* The map of layout plane i: the geometry through the output plane's grid,
 * then the input plane's own grid where a crop starting inside a chroma
 * sample moved it (shift, in input plane pixels). */
static bspline_status
gst_bspline_warp_plane_map (const bspline_geometry * geometry,
    const GstBSplineLayout * in, const GstBSplineLayout * out, guint i,
    gdouble inverse[9], bspline_lens * lens, gboolean * shifted, gchar * msg,
    gsize msg_len)
{
  const bspline_plane_grid *grid = &out->grid[i];
  gdouble shift_x = (grid->offset_x - in->grid[i].offset_x) / grid->sub_x;
  gdouble shift_y = (grid->offset_y - in->grid[i].offset_y) / grid->sub_y;
  bspline_status status;
  guint k;

  *shifted = shift_x != 0.0 || shift_y != 0.0;
  status = bspline_geometry_plane_map (geometry, grid, inverse, lens, msg,
      msg_len);
  if (status != BSPLINE_OK || !*shifted)
    return status;
  if (lens->model == BSPLINE_LENS_NONE) {
    for (k = 0; k < 3; k++) {
      inverse[k] += shift_x * inverse[6 + k];
      inverse[3 + k] += shift_y * inverse[6 + k];
    }
  } else {
    for (k = 0; k < 3; k++) {
      lens->post[k] += shift_x * lens->post[6 + k];
      lens->post[3 + k] += shift_y * lens->post[6 + k];
    }
  }
  return BSPLINE_OK;
}

/* The map of layout plane i with the stages the buffer asks for (its warp
 * chain, its affine transformation meta), where it has any, composed into
 * it (gstbsplinechain.h): inverse, then n_lenses lens and STMap stages. */
static bspline_status
gst_bspline_warp_plane_chain (const bspline_geometry * geometry,
    const GstBSplineLayout * in, const GstBSplineLayout * out, guint i,
    const bspline_chain_stage * chain, guint n_chain, gdouble inverse[9],
    bspline_lens lenses[BSPLINE_CHAIN_MAX_LENSES], gint * n_lenses,
    gboolean * shifted, gchar * msg, gsize msg_len)
{
  bspline_status status;

  if (n_chain > 0) {
    *shifted = TRUE;            /* no longer a copy of samples */
    return gst_bspline_chain_plane_map (geometry, &out->grid[i],
        &in->grid[i], chain, n_chain, inverse, lenses, n_lenses, msg, msg_len);
  }
  memset (lenses, 0, sizeof (bspline_lens) * BSPLINE_CHAIN_MAX_LENSES);
  status = gst_bspline_warp_plane_map (geometry, in, out, i, inverse,
      &lenses[0], shifted, msg, msg_len);
  *n_lenses = lenses[0].model != BSPLINE_LENS_NONE;
  return status;
}

/* Brings the plan of every plane of the buffer's layout up to date with
 * the frame's settings and the buffer's warp chain: a plan is rebuilt only
 * when its parameters, its map or its sizes changed. */
static GstFlowReturn
gst_bspline_warp_update_planes (GstBSplineWarp * self,
    const bspline_geometry * geometry, GstBSplineFields fields,
    const bspline_chain_stage * chain, guint n_chain)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  const GstVideoInfo *in_info = &filter->in_info;
  const GstVideoInfo *out_info = &filter->out_info;
  const GstBSplineLayout *in = &self->in_layout[fields];
  const GstBSplineLayout *out = &self->out_layout[fields];
  const GstBSplineWarpSettings *s = &self->frame;
  gboolean pure = bspline_geometry_is_pure_orientation (geometry);
  bspline_status status = BSPLINE_OK;
  gchar msg[256] = "";
  guint p;

  for (p = 0; p < in->n_planes; p++) {
    GstBSplineWarpPlane *plane = &self->planes[fields][p];
    const bspline_image *src = &in->plane[p], *dst = &out->plane[p];
    bspline_params params;
    bspline_lens lenses[BSPLINE_CHAIN_MAX_LENSES];
    gint n_lenses;
    gdouble inverse[9];
    gboolean shifted;

    status = gst_bspline_warp_plane_chain (geometry, in, out, p, chain,
        n_chain, inverse, lenses, &n_lenses, &shifted, msg, sizeof (msg));
    if (status != BSPLINE_OK)
      goto bad_plan;
    if (pure && !shifted
        && bspline_geometry_plane_orients_exactly (geometry, &out->grid[p])) {
      bspline_plan_free (plane->plan);
      memset (plane, 0, sizeof (*plane));
      plane->exact = TRUE;
      plane->valid = TRUE;
      continue;
    }

    gst_bspline_settings_plane_params (&s->resample, in_info,
        in->plane_base[p], src, &params);
    gst_bspline_layout_fill (in, p, s->resample.fill_color, params.fill);
    if (plane->valid && !plane->exact
        && gst_bspline_warp_params_equal (&params, &plane->params)
        && memcmp (inverse, plane->inverse, sizeof (inverse)) == 0
        && n_lenses == plane->n_lenses
        && memcmp (lenses, plane->lenses, n_lenses * sizeof (lenses[0])) == 0
        && plane->src_width == src->width && plane->src_height == src->height
        && plane->dst_width == dst->width && plane->dst_height == dst->height
        && plane->channels == src->channels)
      continue;

    bspline_plan_free (plane->plan);
    memset (plane, 0, sizeof (*plane));
    status = bspline_plan_new_chain (&params, inverse, lenses, n_lenses,
        src->width, src->height, dst->width, dst->height, src->channels,
        &plane->plan, msg, sizeof (msg));
    if (status != BSPLINE_OK)
      goto bad_plan;
    plane->params = params;
    memcpy (plane->inverse, inverse, sizeof (inverse));
    memcpy (plane->lenses, lenses, sizeof (lenses));
    plane->n_lenses = n_lenses;
    plane->src_width = src->width;
    plane->src_height = src->height;
    plane->dst_width = dst->width;
    plane->dst_height = dst->height;
    plane->channels = src->channels;
    plane->valid = TRUE;
    GST_DEBUG_OBJECT (self, "plane %u (fields %d): %dx%d -> %dx%d, %s path",
        p, fields, src->width, src->height, dst->width, dst->height,
        bspline_plan_is_separable (plane->plan) ? "separable" : "warp");
  }
  return GST_FLOW_OK;

  /* ERRORS */
bad_plan:
  {
    if (status == BSPLINE_ERROR_NO_MEMORY)
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Not enough memory to resample %dx%d into %dx%d.",
              GST_VIDEO_INFO_WIDTH (in_info), GST_VIDEO_INFO_HEIGHT (in_info),
              GST_VIDEO_INFO_WIDTH (out_info),
              GST_VIDEO_INFO_HEIGHT (out_info)), ("%s", msg));
    else if (n_chain > 0)
      GST_ELEMENT_ERROR (self, STREAM, FORMAT,
          ("The buffer's warp chain cannot be resampled with this element's "
              "geometry: %s.", msg),
          ("%u stages before the element's (its GstBSplineChainMeta, and "
              "its affine transformation meta with use-meta); one "
              "resampling takes %d lens or STMap stages; %s",
              n_chain, BSPLINE_CHAIN_MAX_LENSES,
              bspline_status_string (status)));
    else if (geometry->lens_model == BSPLINE_LENS_STMAP
        && (status == BSPLINE_ERROR_INVALID_TRANSFORM
            || status == BSPLINE_ERROR_INVALID_ARGUMENT)) {
      gchar *path;
      GST_OBJECT_LOCK (self);
      path = g_strdup (self->stmap_location);
      GST_OBJECT_UNLOCK (self);
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
          ("stmap-location=%s cannot be used: %s.", path, msg),
          ("%dx%d -> %dx%d", GST_VIDEO_INFO_WIDTH (in_info),
              GST_VIDEO_INFO_HEIGHT (in_info), GST_VIDEO_INFO_WIDTH (out_info),
              GST_VIDEO_INFO_HEIGHT (out_info)));
      g_free (path);
    } else if (geometry->lens_model != BSPLINE_LENS_NONE
        && (status == BSPLINE_ERROR_INVALID_TRANSFORM
            || status == BSPLINE_ERROR_INVALID_ARGUMENT)) {
      gchar *lens = gst_bspline_settings_lens_describe (&s->lens);
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
          ("The lens stage cannot be used: %s (%s).", msg, lens),
          ("%dx%d -> %dx%d", GST_VIDEO_INFO_WIDTH (in_info),
              GST_VIDEO_INFO_HEIGHT (in_info), GST_VIDEO_INFO_WIDTH (out_info),
              GST_VIDEO_INFO_HEIGHT (out_info)));
      g_free (lens);
    } else if (status == BSPLINE_ERROR_INVALID_TRANSFORM)
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
          ("The geometry cannot be used: %s.", msg),
          ("rotation=%g zoom=%g translate=(%g, %g) pivot=(%g, %g) "
              "matrix %s; a matrix must be finite and invertible.",
              s->rotation, s->zoom, s->translate_x, s->translate_y,
              s->pivot_x, s->pivot_y, s->use_matrix ? "set" : "unset"));
    else
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
          ("Could not plan the resampling: %s.", msg),
          ("bspline_plan_new: %s", bspline_status_string (status)));
    return GST_FLOW_ERROR;
  }
}

/* Reads the map that stmap-location names (outside the object lock: a
 * file) for the frame's settings; an element error naming the property
 * and the file where it cannot. */
static gboolean
gst_bspline_warp_load_stmap (GstBSplineWarp * self)
{
  bspline_stmap *map = NULL;
  gchar *path, msg[512] = "";
  bspline_status status;

  GST_OBJECT_LOCK (self);
  path = g_strdup (self->stmap_location);
  GST_OBJECT_UNLOCK (self);
  if (path) {
    status = bspline_stmap_load (path, &map, msg, sizeof (msg));
    if (status != BSPLINE_OK) {
      GST_ELEMENT_ERROR (self, RESOURCE, READ,
          ("stmap-location=%s cannot be used: %s.", path, msg),
          ("%s", bspline_status_string (status)));
      g_free (path);
      return FALSE;
    }
    GST_INFO_OBJECT (self, "STMap %s: %dx%d samples", path,
        bspline_stmap_width (map), bspline_stmap_height (map));
  }
  g_free (path);
  /* the planes' plans hold their own references to the old map */
  bspline_stmap_unref (self->stmap);
  self->stmap = map;
  GST_OBJECT_LOCK (self);
  bspline_stmap_unref (self->shown_stmap);
  self->shown_stmap = bspline_stmap_ref (map);
  GST_OBJECT_UNLOCK (self);
  self->stmap_loaded = TRUE;
  self->stmap_serial = self->frame.stmap_serial;
  return TRUE;
}

/* The fields of a buffer of the input caps: none (progressive), both
 * (an interlaced frame), or the one an alternate-mode buffer holds.
 * FALSE for an alternate-mode buffer flagged as neither field (it is
 * then taken as the top field, as videoscale takes it: a field image). */
static gboolean
gst_bspline_warp_buffer_fields (const GstVideoInfo * info, GstBuffer * buffer,
    GstBSplineFields * fields)
{
  *fields = GST_BSPLINE_FIELDS_NONE;
  switch (GST_VIDEO_INFO_INTERLACE_MODE (info)) {
    case GST_VIDEO_INTERLACE_MODE_INTERLEAVED:
      *fields = GST_BSPLINE_FIELDS_BOTH;
      break;
    case GST_VIDEO_INTERLACE_MODE_MIXED:
      if (GST_BUFFER_FLAG_IS_SET (buffer, GST_VIDEO_BUFFER_FLAG_INTERLACED))
        *fields = GST_BSPLINE_FIELDS_BOTH;
      break;
    case GST_VIDEO_INTERLACE_MODE_ALTERNATE:
      if (GST_VIDEO_BUFFER_IS_TOP_FIELD (buffer))
        *fields = GST_BSPLINE_FIELDS_TOP;
      else if (GST_VIDEO_BUFFER_IS_BOTTOM_FIELD (buffer))
        *fields = GST_BSPLINE_FIELDS_BOTTOM;
      else {
        *fields = GST_BSPLINE_FIELDS_TOP;
        return FALSE;
      }
      break;
    default:
      break;
  }
  return TRUE;
}

/* The layouts of the buffer (its fields, its crop meta, the size its
 * GstVideoMeta gives), made again where they changed. */
static GstFlowReturn
gst_bspline_warp_layouts (GstBSplineWarp * self, GstBuffer * inbuf,
    GstBSplineFields * fields)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  GstVideoMeta *vmeta = gst_buffer_get_video_meta (inbuf);
  GstVideoCropMeta *cmeta = gst_buffer_get_video_crop_meta (inbuf);
  GstVideoRectangle crop, *c = NULL;
  gint in_w = GST_VIDEO_INFO_WIDTH (&filter->in_info);
  gint in_h = GST_VIDEO_INFO_HEIGHT (&filter->in_info);
  gint out_w = GST_VIDEO_INFO_WIDTH (&filter->out_info);
  gint out_h = GST_VIDEO_INFO_HEIGHT (&filter->out_info);
  /* planar formats interleaved for the CPU engine; the GPU reads the
   * planes as they are */
  gboolean interleave = TRUE;
  gchar msg[256] = "";

#ifdef HAVE_BSPLINE_CUDA
  interleave = self->cuda == NULL || self->gpu_failed;
#endif
  if (!gst_bspline_warp_buffer_fields (&filter->in_info, inbuf, fields)
      && !self->warned_field) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("An alternate-mode buffer is flagged as neither the top nor the "
            "bottom field: taken as the top field."),
        ("interlace-mode=alternate: every buffer holds one field "
            "(GST_VIDEO_BUFFER_FLAG_TOP_FIELD or _BOTTOM_FIELD); warned once"));
    self->warned_field = TRUE;
  }
  if (vmeta) {
    in_w = vmeta->width;
    in_h = vmeta->height;
  }
  if (cmeta) {
    crop.x = cmeta->x;
    crop.y = cmeta->y;
    crop.w = cmeta->width;
    crop.h = cmeta->height;
    c = &crop;
  }
  if (!gst_bspline_layout_matches (&self->in_layout[*fields], *fields, c,
          in_w, in_h, interleave)) {
    if (!gst_bspline_layout_init (&self->in_layout[*fields],
            &filter->in_info, self->chroma_site, *fields, c, in_w, in_h,
            interleave, msg, sizeof (msg)))
      goto bad_layout;
    GST_DEBUG_OBJECT (self, "%s: %s, %u planes (fields %d), crop %dx%d at "
        "(%d, %d) of %dx%d", GST_VIDEO_INFO_NAME (&filter->in_info),
        self->in_layout[*fields].staged ? "unpacked" : "in place",
        self->in_layout[*fields].n_planes, *fields,
        self->in_layout[*fields].crop.w, self->in_layout[*fields].crop.h,
        self->in_layout[*fields].crop.x, self->in_layout[*fields].crop.y,
        in_w, in_h);
  }
  if (!gst_bspline_layout_matches (&self->out_layout[*fields], *fields, NULL,
          out_w, out_h, interleave)
      && !gst_bspline_layout_init (&self->out_layout[*fields],
          &filter->out_info, self->chroma_site, *fields, NULL, out_w, out_h,
          interleave, msg, sizeof (msg)))
    goto bad_layout;
  return GST_FLOW_OK;

  /* ERRORS */
bad_layout:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The buffer's planes cannot be resampled: %s.", msg),
        ("%s %dx%d, %s", GST_VIDEO_INFO_NAME (&filter->in_info),
            GST_VIDEO_INFO_WIDTH (&filter->in_info),
            GST_VIDEO_INFO_HEIGHT (&filter->in_info),
            gst_video_interlace_mode_to_string (GST_VIDEO_INFO_INTERLACE_MODE
                (&filter->in_info))));
    return GST_FLOW_ERROR;
  }
}

/* Everything a frame needs before its planes run: the CPU engine with the
 * frame's thread count, the buffer's layouts, the geometry and up-to-date
 * plans. */
static GstFlowReturn
gst_bspline_warp_prepare_frame (GstBSplineWarp * self, GstBuffer * inbuf,
    bspline_geometry * geometry, GstBSplineFields * fields)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  bspline_chain_stage *chain;
  guint n_chain;
  gboolean bad_chain;
  gchar msg[256];
  GstFlowReturn ret;

  if (self->frame.resample.n_threads != self->cpu_threads) {
    bspline_cpu *cpu = bspline_cpu_new ((int) self->frame.resample.n_threads);

    if (cpu == NULL)
      goto no_cpu;
    bspline_cpu_free (self->cpu);
    self->cpu = cpu;
    self->cpu_threads = self->frame.resample.n_threads;
  }
  if (self->frame.stmap_set && self->frame.lens.model != BSPLINE_LENS_NONE)
    goto stage_conflict;
  if ((!self->stmap_loaded || self->frame.stmap_serial != self->stmap_serial)
      && !gst_bspline_warp_load_stmap (self))
    return GST_FLOW_ERROR;
  ret = gst_bspline_warp_layouts (self, inbuf, fields);
  if (ret != GST_FLOW_OK)
    return ret;
  chain = gst_bspline_chain_stages (inbuf, &filter->in_info,
      self->frame.use_meta, &n_chain, &bad_chain, msg, sizeof (msg));
  if (bad_chain)
    goto bad_chain;
  gst_bspline_warp_geometry (&filter->in_info, &filter->out_info,
      &self->frame, geometry);
  geometry->stmap = self->stmap;
  ret = gst_bspline_warp_update_planes (self, geometry, *fields, chain,
      n_chain);
  g_free (chain);
  return ret;

  /* ERRORS */
no_cpu:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not restart the CPU engine with n-threads=%u.",
            self->frame.resample.n_threads),
        ("bspline_cpu_new failed: out of memory or threads."));
    return GST_FLOW_ERROR;
  }
stage_conflict:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("lens-model=%s and stmap-location cannot both be set: the element "
            "has one stage for either.",
            bspline_lens_model_name (self->frame.lens.model)),
        ("unset stmap-location or set lens-model=none"));
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
static guint
gst_bspline_warp_pack_threads (GstBSplineWarp * self)
{
  return self->cpu ? (guint) bspline_cpu_n_threads (self->cpu) : 1;
}

/* Runs plane p of the layout on the CPU (exact reorientation or the
 * plan). */
static GstFlowReturn
gst_bspline_warp_cpu_plane (GstBSplineWarp * self,
    const bspline_geometry * geometry, GstBSplineFields fields, guint p,
    const bspline_image * src, const bspline_image * dst)
{
  const GstBSplineWarpPlane *plane = &self->planes[fields][p];
  bspline_status status;
  gchar msg[256] = "";

  if (plane->exact) {
    status = bspline_orient_plane (geometry->orientation, src, dst, msg,
        sizeof (msg));
  } else {
    status = bspline_cpu_execute (self->cpu, plane->plan, src, dst);
    if (status != BSPLINE_OK)
      g_strlcpy (msg, bspline_cpu_last_error (self->cpu), sizeof (msg));
  }
  if (status != BSPLINE_OK)
    goto engine_failed;
  return GST_FLOW_OK;

  /* ERRORS */
engine_failed:
  {
    if (status == BSPLINE_ERROR_NO_MEMORY)
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Not enough memory to resample plane %u.", p), ("%s", msg));
    else
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("Resampling plane %u failed: %s.", p, msg),
          ("%s", bspline_status_string (status)));
    return GST_FLOW_ERROR;
  }
}

static GstFlowReturn
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

static GstFlowReturn
gst_bspline_warp_transform_frame (GstVideoFilter * filter,
    GstVideoFrame * in_frame, GstVideoFrame * out_frame)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (filter);
  bspline_geometry geometry;
  GstBSplineFields fields;
  GstFlowReturn ret;
  guint p;

  ret = gst_bspline_warp_check_frames (self, in_frame, out_frame);
  if (ret != GST_FLOW_OK)
    return ret;
  ret = gst_bspline_warp_prepare_frame (self, in_frame->buffer, &geometry,
      &fields);
  if (ret != GST_FLOW_OK)
    return ret;
  if (!gst_bspline_layout_read (&self->in_layout[fields], in_frame,
          &self->cpu_in, gst_bspline_warp_pack_threads (self))
      || !gst_bspline_layout_prepare (&self->out_layout[fields], out_frame,
          &self->cpu_out))
    goto no_memory;
  for (p = 0; ret == GST_FLOW_OK && p < self->in_layout[fields].n_planes; p++)
    ret = gst_bspline_warp_cpu_plane (self, &geometry, fields, p,
        &self->cpu_in.plane[p], &self->cpu_out.plane[p]);
  if (ret == GST_FLOW_OK)
    gst_bspline_layout_write (&self->out_layout[fields], &self->cpu_out,
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

#ifdef HAVE_BSPLINE_CUDA
/* ---- the CUDA engine: frames in flight ---- */

static void gst_bspline_warp_clear_spare_planes (GstBSplineWarp * self);

static void
gst_bspline_warp_free_cuda (GstBSplineWarp * self)
{
  gboolean entered;

  gst_bspline_warp_clear_spare_planes (self);
  if (self->cuda == NULL)
    return;
  entered = gst_bspline_warp_cuda_enter (self);
  bspline_cuda_free (self->cuda);
  if (entered)
    gst_bspline_warp_cuda_leave (self);
  self->cuda = NULL;
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  gst_clear_object (&self->cudamem.engine_context);
#endif
}

/* Staging for a frame in flight: one kept from an earlier frame, or new
 * page-locked memory, which the engine copies to and from the device
 * directly. */
static void
gst_bspline_warp_take_planes (GstBSplineWarp * self,
    GstBSplineLayoutFrame * planes)
{
  GstBSplineLayoutFrame *spare = g_queue_pop_head (&self->spare_planes);

  memset (planes, 0, sizeof (*planes));
  if (spare) {
    *planes = *spare;
    g_free (spare);
  }
  planes->alloc = bspline_cuda_host_alloc;
  planes->free = bspline_cuda_host_free;
}

/* Keeps a frame's staging for the frames after it (as many as are in
 * flight, in and out). */
static void
gst_bspline_warp_give_planes (GstBSplineWarp * self,
    GstBSplineLayoutFrame * planes)
{
  if (planes->staging
      && g_queue_get_length (&self->spare_planes) <
      2 * GST_BSPLINE_WARP_FRAMES_IN_FLIGHT + 2)
    g_queue_push_tail (&self->spare_planes, g_memdup2 (planes,
            sizeof (*planes)));
  else
    gst_bspline_layout_frame_clear (planes);
}

static void
gst_bspline_warp_clear_spare_planes (GstBSplineWarp * self)
{
  GstBSplineLayoutFrame *spare;

  while ((spare = g_queue_pop_head (&self->spare_planes))) {
    gst_bspline_layout_frame_clear (spare);
    g_free (spare);
  }
}

static void
gst_bspline_warp_pending_free (GstBSplineWarp * self,
    GstBSplineWarpPending * pending)
{
  if (pending->in_frame.buffer)
    gst_video_frame_unmap (&pending->in_frame);
  if (pending->out_frame.buffer)
    gst_video_frame_unmap (&pending->out_frame);
  gst_buffer_unref (pending->inbuf);
  if (pending->outbuf)
    gst_buffer_unref (pending->outbuf);
  gst_bspline_warp_give_planes (self, &pending->in_planes);
  gst_bspline_warp_give_planes (self, &pending->out_planes);
  g_free (pending);
}

/* Which frames the engine takes in place as CUDA memory: buffers of one
 * GstCudaMemory of the engine's context, unless a plane is reoriented
 * exactly (a copy on the CPU) or the format is unpacked on the CPU: such
 * frames are mapped for the CPU, through GstCudaMemory's staging
 * copies. */
static void
gst_bspline_warp_place_frames (GstBSplineWarp * self,
    GstBSplineWarpPending * pending)
{
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  guint p;

  if (self->in_layout[pending->fields].staged)
    return;
  for (p = 0; p < GST_BSPLINE_LAYOUT_MAX_PLANES; p++)
    if (self->planes[pending->fields][p].valid
        && self->planes[pending->fields][p].exact)
      return;
  pending->in_device = gst_bspline_cuda_memory_on_device (&self->cudamem,
      pending->inbuf);
  pending->out_device = gst_bspline_cuda_memory_on_device (&self->cudamem,
      pending->outbuf);
#else
  (void) self;
  (void) pending;
#endif
}

static gboolean
gst_bspline_warp_map_frame (GstVideoFrame * frame, const GstVideoInfo * info,
    GstBuffer * buffer, GstMapFlags flags, gboolean on_device)
{
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  return gst_bspline_cuda_memory_map_frame (frame, info, buffer, flags,
      on_device);
#else
  (void) on_device;
  return gst_video_frame_map (frame, (GstVideoInfo *) info, buffer, flags);
#endif
}

/* Frames mapped as CUDA memory, mapped again for the CPU engine. */
static GstFlowReturn
gst_bspline_warp_map_for_cpu (GstBSplineWarp * self,
    GstBSplineWarpPending * pending)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);

  gst_video_frame_unmap (&pending->in_frame);
  gst_video_frame_unmap (&pending->out_frame);
  memset (&pending->in_frame, 0, sizeof (pending->in_frame));
  memset (&pending->out_frame, 0, sizeof (pending->out_frame));
  pending->in_device = pending->out_device = FALSE;
  if (!gst_video_frame_map (&pending->in_frame, &filter->in_info,
          pending->inbuf, GST_MAP_READ))
    goto map_failed;
  if (!gst_video_frame_map (&pending->out_frame, &filter->out_info,
          pending->outbuf, GST_MAP_WRITE)) {
    gst_video_frame_unmap (&pending->in_frame);
    memset (&pending->in_frame, 0, sizeof (pending->in_frame));
    goto map_failed;
  }
  return GST_FLOW_OK;

  /* ERRORS */
map_failed:
  {
    gst_bspline_warp_post_bad_buffer (self, pending->inbuf);
    return GST_FLOW_ERROR;
  }
}

/* Maps the frame and queues its planes on the GPU; planes reoriented
 * exactly are copied on the CPU at once.  Takes inbuf and outbuf. */
static GstFlowReturn
gst_bspline_warp_submit (GstBSplineWarp * self, GstBuffer * inbuf,
    GstBuffer * outbuf, GstBSplineWarpPending ** out)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  GstBSplineWarpPending *pending = g_new0 (GstBSplineWarpPending, 1);
  const GstBSplineLayout *in_layout;
  bspline_geometry geometry;
  GstFlowReturn ret;
  gboolean entered = FALSE;
  guint p;

  pending->inbuf = inbuf;
  pending->outbuf = outbuf;
  pending->settings = self->frame;
  gst_bspline_warp_take_planes (self, &pending->in_planes);
  gst_bspline_warp_take_planes (self, &pending->out_planes);
  for (p = 0; p < GST_BSPLINE_LAYOUT_MAX_PLANES; p++)
    pending->slots[p] = -1;
  /* the plans first: they say which planes are copied on the CPU */
  ret = gst_bspline_warp_prepare_frame (self, inbuf, &geometry,
      &pending->fields);
  if (ret != GST_FLOW_OK) {
    gst_bspline_warp_pending_free (self, pending);
    return ret;
  }
  gst_bspline_warp_place_frames (self, pending);
  if (!gst_bspline_warp_map_frame (&pending->in_frame, &filter->in_info,
          inbuf, GST_MAP_READ, pending->in_device))
    goto map_failed;
  if (!gst_bspline_warp_map_frame (&pending->out_frame, &filter->out_info,
          outbuf, GST_MAP_WRITE, pending->out_device)) {
    gst_video_frame_unmap (&pending->in_frame);
    memset (&pending->in_frame, 0, sizeof (pending->in_frame));
    goto map_failed;
  }
  ret = gst_bspline_warp_check_frames (self, &pending->in_frame,
      &pending->out_frame);
  in_layout = &self->in_layout[pending->fields];
  pending->out_layout = self->out_layout[pending->fields];
  if (ret == GST_FLOW_OK
      && (!gst_bspline_layout_read (in_layout, &pending->in_frame,
              &pending->in_planes, gst_bspline_warp_pack_threads (self))
          || !gst_bspline_layout_prepare (&pending->out_layout,
              &pending->out_frame, &pending->out_planes))) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Not enough memory to unpack a %s frame.",
            GST_VIDEO_INFO_NAME (&filter->in_info)), ("staging planes"));
    ret = GST_FLOW_ERROR;
  }
  if (ret == GST_FLOW_OK) {
    entered = gst_bspline_warp_cuda_enter (self);
    if (!entered) {
      g_strlcpy (pending->error, "the CUDA context cannot be made current",
          sizeof (pending->error));
      pending->failed = TRUE;
    }
  }
  for (p = 0; ret == GST_FLOW_OK && entered && p < in_layout->n_planes; p++) {
    const bspline_image *src = &pending->in_planes.plane[p];
    const bspline_image *dst = &pending->out_planes.plane[p];
    const GstBSplineWarpPlane *plane = &self->planes[pending->fields][p];

    if (plane->exact) {
      ret = gst_bspline_warp_cpu_plane (self, &geometry, pending->fields, p,
          src, dst);
      continue;
    }
    if (bspline_cuda_submit_placed (self->cuda, plane->plan, src,
            pending->in_device, dst, pending->out_device,
            &pending->slots[p]) != BSPLINE_OK) {
      g_strlcpy (pending->error, bspline_cuda_last_error (self->cuda),
          sizeof (pending->error));
      GST_WARNING_OBJECT (self, "GPU submit of plane %u failed: %s", p,
          pending->error);
      pending->slots[p] = -1;
      pending->failed = TRUE;
    }
  }
  if (ret != GST_FLOW_OK) {
    /* the planes already queued must land before the frames go away */
    for (p = 0; p < GST_BSPLINE_LAYOUT_MAX_PLANES; p++)
      if (pending->slots[p] >= 0)
        bspline_cuda_finish (self->cuda, pending->slots[p]);
  }
  if (entered)
    gst_bspline_warp_cuda_leave (self);
  if (ret != GST_FLOW_OK) {
    gst_bspline_warp_pending_free (self, pending);
    return ret;
  }
  *out = pending;
  return GST_FLOW_OK;

  /* ERRORS */
map_failed:
  {
    gst_bspline_warp_post_bad_buffer (self, inbuf);
    gst_bspline_warp_pending_free (self, pending);
    return GST_FLOW_ERROR;
  }
}

/* Waits for a frame's planes and gives its output buffer.  A frame the
 * GPU failed on is an error with backend=cuda; with backend=auto it is
 * computed again on the CPU and the element stays on the CPU from then on,
 * so no frame is lost and none goes out wrong. */
static GstFlowReturn
gst_bspline_warp_complete (GstBSplineWarp * self,
    GstBSplineWarpPending * pending, GstBuffer ** outbuf)
{
  GstFlowReturn ret = GST_FLOW_OK;
  const gchar *msg = pending->error;
  gboolean entered = gst_bspline_warp_cuda_enter (self);
  guint p;

  for (p = 0; p < GST_BSPLINE_LAYOUT_MAX_PLANES; p++) {
    if (pending->slots[p] < 0)
      continue;
    if (!entered) {
      g_strlcpy (pending->error, "the CUDA context cannot be made current",
          sizeof (pending->error));
      pending->failed = TRUE;
    } else if (bspline_cuda_finish (self->cuda, pending->slots[p])
        != BSPLINE_OK) {
      g_strlcpy (pending->error, bspline_cuda_last_error (self->cuda),
          sizeof (pending->error));
      pending->failed = TRUE;
    }
  }
  if (entered)
    gst_bspline_warp_cuda_leave (self);
  if (pending->failed) {
    if (self->cuda_required)
      goto gpu_error;
    if (!self->gpu_failed)
      GST_ELEMENT_WARNING (self, RESOURCE, FAILED,
          ("The GPU failed (%s): continuing on the CPU.", msg),
          ("backend=auto; every frame from now on runs on the CPU engine."));
    self->gpu_failed = TRUE;
    self->frame = pending->settings;
    if (pending->in_device || pending->out_device)
      ret = gst_bspline_warp_map_for_cpu (self, pending);
    if (ret == GST_FLOW_OK)
      ret = gst_bspline_warp_transform_frame (GST_VIDEO_FILTER (self),
          &pending->in_frame, &pending->out_frame);
  } else {
    gst_bspline_layout_write (&pending->out_layout, &pending->out_planes,
        &pending->out_frame, gst_bspline_warp_pack_threads (self));
  }
  if (ret == GST_FLOW_OK) {
    *outbuf = pending->outbuf;
    pending->outbuf = NULL;
  }
  gst_bspline_warp_pending_free (self, pending);
  return ret;

  /* ERRORS */
gpu_error:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("The GPU failed: %s.", msg),
        ("backend=cuda; with backend=auto the element would continue on the "
            "CPU."));
    gst_bspline_warp_pending_free (self, pending);
    return GST_FLOW_ERROR;
  }
}

/* Completes every frame in flight, oldest first, and pushes them (or drops
 * them, on a flush). */
static GstFlowReturn
gst_bspline_warp_drain (GstBSplineWarp * self, gboolean push)
{
  GstBSplineWarpPending *pending;
  GstFlowReturn ret = GST_FLOW_OK;

  while ((pending = g_queue_pop_head (&self->pending))) {
    GstBuffer *out = NULL;
    GstFlowReturn r = gst_bspline_warp_complete (self, pending, &out);

    if (out && push && ret == GST_FLOW_OK)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), out);
    else if (out)
      gst_buffer_unref (out);
    if (r != GST_FLOW_OK && ret == GST_FLOW_OK)
      ret = r;
  }
  return ret;
}

static GstFlowReturn
gst_bspline_warp_generate_cuda (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (trans);
  GstBSplineWarpPending *pending = NULL;
  GstBuffer *inbuf, *out = NULL;
  GstFlowReturn ret;

  *outbuf = NULL;
  if (self->cuda == NULL || self->gpu_failed
      || gst_base_transform_is_passthrough (trans)) {
    ret = gst_bspline_warp_drain (self, TRUE);
    if (self->gpu_failed)
      gst_bspline_warp_free_cuda (self);
    if (ret != GST_FLOW_OK)
      return ret;
    return GST_BASE_TRANSFORM_CLASS (parent_class)->generate_output (trans,
        outbuf);
  }

  inbuf = trans->queued_buf;
  trans->queued_buf = NULL;
  if (inbuf == NULL)
    return GST_FLOW_OK;
  ret = GST_BASE_TRANSFORM_GET_CLASS (trans)->prepare_output_buffer (trans,
      inbuf, &out);
  if (ret != GST_FLOW_OK || out == NULL) {
    gst_buffer_unref (inbuf);
    return ret;
  }
  ret = gst_bspline_warp_submit (self, inbuf, out, &pending);
  if (ret != GST_FLOW_OK)
    return ret;
  if (pending->failed) {
    /* the GPU refused the frame: the frames before it go out, then this
     * one is an error or, with backend=auto, done on the CPU at once */
    ret = gst_bspline_warp_drain (self, TRUE);
    if (ret != GST_FLOW_OK) {
      gst_bspline_warp_pending_free (self, pending);
      return ret;
    }
    return gst_bspline_warp_complete (self, pending, outbuf);
  }
  g_queue_push_tail (&self->pending, pending);
  if (g_queue_get_length (&self->pending) < GST_BSPLINE_WARP_FRAMES_IN_FLIGHT)
    return GST_FLOW_OK;
  return gst_bspline_warp_complete (self, g_queue_pop_head (&self->pending),
      outbuf);
}

#ifdef HAVE_BSPLINE_CUDA_MEMORY
/* An element upstream (through carriers such as a queue) has defer=true:
 * it keeps its input's memory on its output to defer (docs/chains.md), so
 * it is not pushed to CUDA memory by the preference below. */
static gboolean
gst_bspline_warp_upstream_defers (GstBSplineWarp * self)
{
  return gst_bspline_chain_upstream_defers (GST_BASE_TRANSFORM_SINK_PAD (self));
}
#endif

/* The frames in flight add latency: a frame leaves when the next arrives.
 * A drain query (serialized) pushes them out. */
static gboolean
gst_bspline_warp_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (trans);
  GstVideoFilter *filter = GST_VIDEO_FILTER (trans);
  gboolean ret;

#ifdef HAVE_BSPLINE_CUDA_MEMORY
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT
      && gst_bspline_cuda_memory_context_query (GST_ELEMENT (trans),
          &self->cudamem, query))
    return TRUE;
#endif
  if (direction == GST_PAD_SINK && GST_QUERY_TYPE (query) == GST_QUERY_DRAIN)
    gst_bspline_warp_drain (self, TRUE);
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  if (ret && direction == GST_PAD_SINK && GST_QUERY_TYPE (query) ==
      GST_QUERY_CAPS && !gst_bspline_warp_upstream_defers (self)) {
    GstCaps *filter, *result, *cuda;

    gst_query_parse_caps (query, &filter);
    gst_query_parse_caps_result (query, &result);
    cuda = gst_bspline_cuda_memory_prefer (filter, result);
    if (cuda) {
      GST_DEBUG_OBJECT (self, "upstream offers CUDA memory: %" GST_PTR_FORMAT,
          cuda);
      gst_query_set_caps_result (query, cuda);
      gst_caps_unref (cuda);
    }
  }
#endif

  if (ret && direction == GST_PAD_SRC
      && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY && self->cuda
      && !self->gpu_failed && filter->negotiated
      && GST_VIDEO_INFO_FPS_N (&filter->in_info) > 0) {
    GstClockTime min, max, latency;
    gboolean live;

    latency = gst_util_uint64_scale_int (GST_SECOND *
        (GST_BSPLINE_WARP_FRAMES_IN_FLIGHT - 1),
        GST_VIDEO_INFO_FPS_D (&filter->in_info),
        GST_VIDEO_INFO_FPS_N (&filter->in_info));
    gst_query_parse_latency (query, &live, &min, &max);
    min += latency;
    if (GST_CLOCK_TIME_IS_VALID (max))
      max += latency;
    gst_query_set_latency (query, live, min, max);
    GST_DEBUG_OBJECT (self, "frames in flight add %" GST_TIME_FORMAT,
        GST_TIME_ARGS (latency));
  }
  return ret;
}

#ifdef HAVE_BSPLINE_CUDA_MEMORY
static void
gst_bspline_warp_set_context (GstElement * element, GstContext * context)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (element);
  gint device_id;

  GST_OBJECT_LOCK (self);
  device_id = self->settings.resample.cuda_device_id;
  GST_OBJECT_UNLOCK (self);
  gst_bspline_cuda_memory_set_context (element, &self->cudamem, context,
      device_id);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

/* Upstream in CUDA memory gets a CUDA pool of the shared context, whose
 * buffers the engine reads in place. */
static gboolean
gst_bspline_warp_propose_cuda_pool (GstBSplineWarp * self, GstQuery * query,
    GstCaps * caps, gboolean need_pool)
{
  GstBufferPool *pool;
  guint size = 0;

  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  /* a crop is folded into the planes' views on the device too (videocrop
   * in CUDA memory crops only by its meta) */
  gst_query_add_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE, NULL);
  if (!need_pool)
    return TRUE;
  pool = gst_bspline_cuda_memory_pool_new (&self->cudamem, caps,
      GST_BSPLINE_WARP_FRAMES_IN_FLIGHT + 1, &size);
  if (pool == NULL)
    return TRUE;
  gst_query_add_allocation_pool (query, pool, size,
      GST_BSPLINE_WARP_FRAMES_IN_FLIGHT + 1, 0);
  gst_object_unref (pool);
  return TRUE;
}

/* Output in CUDA memory comes from a CUDA pool of the shared context,
 * written in place by the engine. */
static gboolean
gst_bspline_warp_decide_cuda_pool (GstBSplineWarp * self, GstQuery * query,
    GstCaps * caps)
{
  GstBufferPool *pool;
  guint min = GST_BSPLINE_WARP_FRAMES_IN_FLIGHT + 1, size = 0;

  if (gst_query_get_n_allocation_pools (query) > 0) {
    guint n_min;

    gst_query_parse_nth_allocation_pool (query, 0, NULL, NULL, &n_min, NULL);
    min = MAX (min, n_min + GST_BSPLINE_WARP_FRAMES_IN_FLIGHT);
  }
  pool = gst_bspline_cuda_memory_pool_new (&self->cudamem, caps, min, &size);
  if (pool == NULL)
    goto no_pool;
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, 0);
  else
    gst_query_add_allocation_pool (query, pool, size, min, 0);
  gst_object_unref (pool);
  return TRUE;

  /* ERRORS */
no_pool:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not make a CUDA buffer pool for %" GST_PTR_FORMAT ".", caps),
        ("gst_cuda_buffer_pool_new or its configuration failed"));
    return FALSE;
  }
}
#endif

/* Upstream gets a pool of pinned memory, which the GPU reads directly. */
static gboolean
gst_bspline_warp_propose_engine (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (trans);

#ifdef HAVE_BSPLINE_CUDA_MEMORY
  if (!gst_base_transform_is_passthrough (trans)) {
    GstCaps *caps;
    gboolean need_pool;

    gst_query_parse_allocation (query, &caps, &need_pool);
    if (gst_bspline_cuda_memory_caps_are_cuda (caps))
      return gst_bspline_warp_propose_cuda_pool (self, query, caps, need_pool);
  }
#endif
  if (self->cuda == NULL || gst_base_transform_is_passthrough (trans))
    return gst_bspline_warp_propose_system (trans, decide_query, query);
  /* a crop is folded into the planes' views (gstbsplinelayout.h) */
  gst_query_add_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE, NULL);
  return gst_bspline_pinned_propose (query,
      GST_BSPLINE_WARP_FRAMES_IN_FLIGHT + 1);
}

/* Output frames come from a pool of pinned memory, which the GPU writes
 * directly; where that pool cannot be made, the engine stages the copy. */
static gboolean
gst_bspline_warp_decide_engine (GstBaseTransform * trans, GstQuery * query)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (trans);

#ifdef HAVE_BSPLINE_CUDA_MEMORY
  {
    GstCaps *caps;
    gst_query_parse_allocation (query, &caps, NULL);
    if (gst_bspline_cuda_memory_caps_are_cuda (caps))
      return gst_bspline_warp_decide_cuda_pool (self, query, caps);
  }
#endif
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
          query))
    return FALSE;
  if (self->cuda != NULL
      && !gst_bspline_pinned_decide (query,
          GST_BSPLINE_WARP_FRAMES_IN_FLIGHT + 1,
          GST_BSPLINE_WARP_FRAMES_IN_FLIGHT))
    GST_INFO_OBJECT (self, "no pinned pool: downloads go through staging");
  return TRUE;
}
#else
static GstFlowReturn
gst_bspline_warp_drain (G_GNUC_UNUSED GstBSplineWarp * self,
    G_GNUC_UNUSED gboolean push)
{
  return GST_FLOW_OK;
}

static void
gst_bspline_warp_free_cuda (G_GNUC_UNUSED GstBSplineWarp * self)
{
}

static GstFlowReturn
gst_bspline_warp_generate_cuda (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  return GST_BASE_TRANSFORM_CLASS (parent_class)->generate_output (trans,
      outbuf);
}

static gboolean
gst_bspline_warp_propose_engine (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  return gst_bspline_warp_propose_system (trans, decide_query, query);
}

static gboolean
gst_bspline_warp_decide_engine (GstBaseTransform * trans, GstQuery * query)
{
  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
}
#endif

/* ---- defer (docs/chains.md) ---- */

/* Both pads in the same memory: a deferred frame is the input buffer. */
static gboolean
gst_bspline_warp_same_memory (GstBSplineWarp * self)
{
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  return self->cudamem.in_cuda == self->cudamem.out_cuda;
#else
  (void) self;
  return TRUE;
#endif
}

/* Why this stream cannot defer (NULL: it can), warned once per caps where
 * defer is set. */
static const gchar *
gst_bspline_warp_defer_refusal (GstBSplineWarp * self, gboolean defer)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  const gchar *refusal;

  if (!defer || !filter->negotiated)
    return NULL;
  refusal = gst_bspline_chain_stream_refusal (&filter->in_info,
      &filter->out_info, gst_bspline_warp_same_memory (self),
      self->downstream_refusal);
  gst_bspline_chain_warn_refusal (GST_ELEMENT (self), filter, refusal,
      &self->warned_defer);
  return refusal;
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
  if (self->frame.stmap_set && self->frame.lens.model != BSPLINE_LENS_NONE)
    return FALSE;
  if (self->frame.stmap_set && (!self->stmap_loaded
          || self->frame.stmap_serial != self->stmap_serial)
      && !gst_bspline_warp_load_stmap (self)) {
    *ret = GST_FLOW_ERROR;
    return TRUE;
  }
  gst_bspline_warp_geometry (&filter->in_info, &filter->out_info,
      &self->frame, &geometry);
  geometry.stmap = self->stmap;
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
  *ret = gst_bspline_warp_drain (self, TRUE);
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
  return gst_bspline_warp_generate_cuda (trans, outbuf);
}

/* Every bspline element takes the chain meta: it composes it into the
 * frames it resamples, or defers onto it. */
static gboolean
gst_bspline_warp_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  if (!gst_bspline_warp_propose_engine (trans, decide_query, query))
    return FALSE;
  gst_bspline_chain_propose (query);
  return TRUE;
}

static gboolean
gst_bspline_warp_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (trans);
  gboolean defer;

  g_free (self->downstream_refusal);
  self->downstream_refusal =
      gst_bspline_chain_downstream_refusal (GST_BASE_TRANSFORM_SRC_PAD (trans),
      gst_bspline_chain_downstream_takes (query));
  GST_OBJECT_LOCK (self);
  defer = self->settings.resample.defer;
  GST_OBJECT_UNLOCK (self);
  gst_bspline_warp_defer_refusal (self, defer);
  return gst_bspline_warp_decide_engine (trans, query);
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
    if ((!self->stmap_loaded || self->frame.stmap_serial != self->stmap_serial)
        && !gst_bspline_warp_load_stmap (self))
      return FALSE;
    geometry.stmap = self->stmap;
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
    stmap = bspline_stmap_ref (self->shown_stmap);
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
