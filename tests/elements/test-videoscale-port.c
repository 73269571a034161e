/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GStreamer's videoscale unit test, run on bsplinewarp (issue 24)
 *
 * Ported from gst-plugins-base 1.22.0, tests/check/elements/videoscale.c
 * (GStreamer monorepo tag 1.22.0, commit
 * f13c65d977b740b5955343d320dcf2061bbdf62d, path
 * subprojects/gst-plugins-base/tests/check/elements/videoscale.c; the file
 * is the same in every 1.22.x tag up to 1.22.12).
 *
 * Original: "unit test for videoscale",
 * Copyright (C) <2009,2010> Sebastian Dröge <sebastian.droege@collabora.co.uk>,
 * under the GNU Library General Public License, version 2 or (at your
 * option) any later version, as this port is.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 *
 * This library is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Library General Public License for more details.
 *
 * You should have received a copy of the GNU Library General Public
 * License along with this library; if not, write to the
 * Free Software Foundation, Inc., 51 Franklin St, Fifth Floor,
 * Boston, MA 02110-1301, USA.
 *
 * What the port changes, and why.  Every upstream assertion is kept; none
 * compares pixel values (upstream checks formats, sizes, caps, flow and
 * metas only), so none needed a tolerance.
 *
 * - The element: every "videoscale" (gst_element_factory_make,
 *   gst_harness_new, gst_element_factory_find) is "bsplinewarp", with its
 *   `backend` property from BSPLINE_TEST_BACKEND (cpu, cuda or auto; cpu
 *   when unset).  With cuda the suite is skipped (exit 77) where the CUDA
 *   engine cannot start, and runs without fork (a CUDA context does not
 *   survive fork()), as test-bsplinewarp does.  Elsewhere bsplinewarp
 *   keeps its own defaults, as upstream keeps videoscale's (add-borders
 *   is true on both).
 * - videoscale's `method` (GstVideoScaleMethod; the tests use 0 to 3; what
 *   each is in 1.22's gstvideoconvertscale.c, lines 808-831, and
 *   video-resampler.c):
 *     0 nearest-neighbour -> method=bspline order=0 (nearest)
 *     1 bilinear          -> method=bspline order=1 (linear)
 *     2 4-tap             -> method=bicubic: videoscale's is a sinc cut
 *                            to 4 taps; Keys' cubic convolution with
 *                            bicubic-a -0.5 (the default) is the 4-tap
 *                            kernel of third-order accuracy (Keys 1981)
 *     3 lanczos           -> method=bspline order=3: videoscale's is
 *                            Lanczos-2 (envelope 2, 4 taps); the cubic
 *                            B-spline, bsplinewarp's default, has the
 *                            same 4-sample basis support, and its
 *                            cardinal (prefiltered) form is the closest
 *                            to sinc of the orders up to 3 (cardinal
 *                            splines tend to sinc as the order grows:
 *                            Aldroubi, Unser & Eden 1992)
 *   antialias keeps bsplinewarp's default (least-squares); videoscale's
 *   `sharpness`, `sharpen`, `envelope` and `dither` are not used by the
 *   upstream tests, so nothing needed mapping there.
 * - The formats: upstream loops over the caps videoscale's sink pad
 *   answers (videoscale_get_allowed_caps_for_method), normalised: in 1.22
 *   that is GST_VIDEO_CAPS_MAKE (GST_VIDEO_FORMATS_ALL) plus the same
 *   with the ANY caps feature (gstvideoconvertscale.c, lines 176-180 at
 *   1.22.0), one structure per format and feature.  Upstream copies each
 *   structure without its features (gst_caps_append_structure gives
 *   system memory), so its second half repeats the first, run for run;
 *   the port runs each format once.  A drop-in replacement must take each
 *   of them, so the port loops over exactly those formats
 *   (VIDEOSCALE_1_22_CAPS: GST_VIDEO_FORMATS_ALL of the GStreamer headers
 *   built against, 1.22), not over the smaller set bsplinewarp
 *   advertises; bsplinewarp's own answer is still queried, with the method
 *   set, and a failure says whether the format is in it.
 * - Interlace modes: upstream's caps say none (progressive).  The
 *   per-caps loops (test_passthrough_method_*, the CREATE_TEST scaling
 *   tests) run each format again as interleaved and as mixed video, the
 *   modes bsplinewarp advertises in system memory, with every assertion
 *   unchanged: at odd sizes (641x481, 111x30, 320x1, 1x1) the fields have
 *   unequal rows, as videoscale splits them.  videotestsrc and
 *   videoconvert (1.22) make interleaved and mixed frames (mixed ones not
 *   flagged interlaced) but not alternate-mode ones (format:Interlaced),
 *   so alternate mode is the one left out here (test_negotiate_alternate
 *   negotiates it; tests/elements/test-formats.c resamples it).
 * - Failures in the per-caps loops (test_passthrough_method_*, the
 *   CREATE_TEST scaling tests): upstream stops at the first caps that
 *   fails.  Here every upstream assertion of run_test and of the
 *   passthrough check is evaluated for each caps in turn, the failures are
 *   collected, and the test fails at its end with the list, so that one
 *   missing format does not hide the others.  Building and linking the
 *   pipeline still fail at once, as upstream.
 * - check_pad_template: upstream's g_error on an unsupported format (and
 *   its fail_unless on the number of caps structures) become entries of
 *   one failure message listing every problem; the assertions and the
 *   list of formats upstream lets videoscale lack are unchanged.
 * - The VSCALE_TEST_GROUP builds: upstream compiles this file seven times
 *   (videoscale and videoscale1 to 6).  Here one binary has the seven
 *   groups as test cases "general" and "group1" to "group6"; its first
 *   argument, if any, names the one to run (tests/elements/meson.build
 *   registers one meson test per group, suite videoscale-port).
 * - Upstream skips four lanczos tests as broken (tcase_skip_broken_test:
 *   640x480->1x1, 640x480->320x1, 320x1->640x480, 640x480->1x240, for
 *   videoscale's lanczos); bsplinewarp's order 3 has no such limit, so
 *   they run here.
 * - Upstream's test_upscale_111x30_641x481_method_3 passes method 2 (a slip
 *   in the upstream file: method 2 at that size is already
 *   test_upscale_111x30_641x481_method_2); here it passes 3, as its name
 *   says.
 * - test_negotiation (AYUV, upstream) is kept; the same nine cases run
 *   again in ARGB (test_negotiation_argb, an addition of the port: same
 *   components and size, so the fixation is checked on a format
 *   bsplinewarp has today).
 * - Frames in flight: with the CUDA engine a frame leaves bsplinewarp when
 *   the next one arrives; where a test pulls a buffer from a harness
 *   (test_transform_meta) a drain query is sent first, as an application
 *   does when it wants every frame out, and the pulled buffer is checked
 *   to be there before its metas are read.  Pipelines drain at EOS.
 * - Upstream's test_reverse_negotiation is "#if 0" there, and the test
 *   sink element (GstTestReverseNegotiationSink) only it used is compiled
 *   but never instantiated; both are left out, with gstbasesink.h.
 */

#include <string.h>

#include <gst/video/video.h>
#include <gst/rtp/rtp.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

/* kids, don't do this at home, skipping checks is *BAD* */
#define LINK_CHECK_FLAGS GST_PAD_LINK_CHECK_NOTHING

/* the system-memory half of videoscale's pad templates in 1.22
 * (gstvideoconvertscale.c) */
#define VIDEOSCALE_1_22_CAPS GST_VIDEO_CAPS_MAKE (GST_VIDEO_FORMATS_ALL)

/* ---- the element under test ---- */

static const gchar *
test_backend (void)
{
  const gchar *backend = g_getenv ("BSPLINE_TEST_BACKEND");

  return backend != NULL && *backend ? backend : "cpu";
}

/* bsplinewarp's settings for videoscale's `method` (the table above). */
static void
set_videoscale_method (GstElement * scale, gint method)
{
  switch (method) {
    case 0:                    /* nearest-neighbour */
      gst_util_set_object_arg (G_OBJECT (scale), "method", "bspline");
      g_object_set (scale, "order", 0, NULL);
      break;
    case 1:                    /* bilinear */
      gst_util_set_object_arg (G_OBJECT (scale), "method", "bspline");
      g_object_set (scale, "order", 1, NULL);
      break;
    case 2:                    /* 4-tap */
      gst_util_set_object_arg (G_OBJECT (scale), "method", "bicubic");
      break;
    case 3:                    /* lanczos */
      gst_util_set_object_arg (G_OBJECT (scale), "method", "bspline");
      g_object_set (scale, "order", 3, NULL);
      break;
    default:
      fail ("videoscale method %d has no mapping in this port", method);
  }
}

/* Where upstream makes a videoscale: a bsplinewarp on the backend the
 * environment names, with its own defaults otherwise. */
static GstElement *
scale_element_new (const gchar * name)
{
  GstElement *scale = gst_element_factory_make ("bsplinewarp", name);

  fail_unless (scale != NULL, "bsplinewarp not found: is GST_PLUGIN_PATH "
      "the build's gst/ directory?");
  gst_util_set_object_arg (G_OBJECT (scale), "backend", test_backend ());
  return scale;
}

/* Where upstream has gst_harness_new ("videoscale"). */
static GstHarness *
scale_harness_new (void)
{
  GstElement *element = scale_element_new (NULL);
  GstHarness *h = gst_harness_new_with_element (element, "sink", "src");

  gst_object_unref (element);   /* the harness holds it (transfer none) */
  return h;
}

/* gst_harness_pull, after the frames in flight are pushed out. */
static GstBuffer *
pull_output (GstHarness * h)
{
  GstQuery *drain = gst_query_new_drain ();

  gst_pad_peer_query (h->srcpad, drain);
  gst_query_unref (drain);
  return gst_harness_pull (h);
}

/* The failures of a per-caps loop, reported together at its end: each
 * distinct failure once, with the formats that met it. */
typedef struct
{
  GPtrArray *reasons;           /* first seen first */
  GHashTable *formats;          /* reason -> GString of format names */
  guint failed, total;
} Failures;

static void
string_free (gpointer string)
{
  g_string_free (string, TRUE);
}

static void
failures_init (Failures * f)
{
  f->reasons = g_ptr_array_new ();
  f->formats = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      string_free);
  f->failed = f->total = 0;
}

/* Counts one caps; takes what (NULL where the caps passed). */
static void
failures_add (Failures * f, const GstCaps * caps, const GstCaps * advertised,
    gchar * what)
{
  const gchar *format;
  gchar *reason;
  GString *formats;

  f->total++;
  if (what == NULL)
    return;
  f->failed++;
  format = gst_structure_get_string (gst_caps_get_structure (caps, 0),
      "format");
  reason = g_strdup_printf ("%s%s", what,
      gst_caps_can_intersect (caps, advertised) ? "" :
      " [not in bsplinewarp's sink caps]");
  g_free (what);
  formats = g_hash_table_lookup (f->formats, reason);
  if (formats == NULL) {
    formats = g_string_new (NULL);
    g_ptr_array_add (f->reasons, reason);
    g_hash_table_insert (f->formats, reason, formats);
  } else {
    g_free (reason);
  }
  g_string_append_printf (formats, " %s", format);
}

/* Check's messages are limited to a few kilobytes: a longer list goes
 * whole to stderr, and its start into the failure message. */
static void
failures_check (Failures * f, const gchar * test)
{
  GString *text = g_string_new (NULL);
  guint i;

  for (i = 0; i < f->reasons->len; i++) {
    const gchar *reason = g_ptr_array_index (f->reasons, i);
    GString *formats = g_hash_table_lookup (f->formats, reason);

    g_string_append_printf (text, "  %s:\n   %s\n", reason, formats->str);
  }
  if (text->len > 3000) {
    g_printerr ("%s: %u of %u formats failed:\n%s", test, f->failed,
        f->total, text->str);
    g_string_truncate (text, 3000);
    g_string_append (text, "... (the whole list on stderr)");
  }
  fail_unless (f->total > 0, "%s: no caps to test", test);
  fail_unless (f->failed == 0, "%s: %u of %u formats failed:\n%s", test,
      f->failed, f->total, text->str);
  g_string_free (text, TRUE);
  g_ptr_array_unref (f->reasons);
  g_hash_table_unref (f->formats);
}

/* ---- test_template_formats ---- */

static guint
get_num_formats (void)
{
  guint i = 2;

  while (gst_video_format_to_string ((GstVideoFormat) i) != NULL)
    ++i;

  return i;
}

/* Appends to problems what upstream's assertions and g_error reported. */
static void
check_pad_template (GstPadTemplate * tmpl, GString * problems)
{
  const GValue *list_val, *fmt_val;
  GstStructure *s;
  gboolean *formats_supported;
  GstCaps *caps;
  guint i, num_formats;
  GString *missing;

  num_formats = get_num_formats ();
  formats_supported = g_new0 (gboolean, num_formats);
  missing = g_string_new (NULL);

  caps = gst_pad_template_get_caps (tmpl);

  /* If this fails, we need to update this unit test.  Adapted: videoscale
   * has 2 structures (the formats, and the same with the ANY caps
   * feature); bsplinewarp has the formats in system memory, the same with
   * format:Interlaced (alternate fields), and, built with gstcuda, a
   * memory:CUDAMemory structure of the formats that memory holds. */
  {
    guint expected = 2, k;

    for (k = 0; k < gst_caps_get_size (caps); k++)
      if (gst_caps_features_contains (gst_caps_get_features (caps, k),
              "memory:CUDAMemory"))
        expected = 3;
    if (gst_caps_get_size (caps) != expected)
      g_string_append_printf (problems, "%s template: %u caps structures, "
          "expected %u (the formats in system memory, with "
          "format:Interlaced, and in CUDA memory where built with it)\n",
          GST_PAD_TEMPLATE_NAME_TEMPLATE (tmpl), gst_caps_get_size (caps),
          expected);
    /* Keep the system-memory structure (upstream: remove the ANY caps
     * features structure, the second) */
    for (k = 0; k < gst_caps_get_size (caps); k++)
      if (gst_caps_features_is_equal (gst_caps_get_features (caps, k),
              GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY)) {
        GstCaps *system = gst_caps_copy_nth (caps, k);

        gst_caps_unref (caps);
        caps = system;
        break;
      }
  }
  caps = gst_caps_truncate (caps);
  s = gst_caps_get_structure (caps, 0);

  fail_unless (gst_structure_has_name (s, "video/x-raw"));

  list_val = gst_structure_get_value (s, "format");
  fail_unless (list_val != NULL);
  /* If this fails, we need to update this unit test */
  fail_unless (GST_VALUE_HOLDS_LIST (list_val));

  for (i = 0; i < gst_value_list_get_size (list_val); ++i) {
    GstVideoFormat fmt;
    const gchar *fmt_str;

    fmt_val = gst_value_list_get_value (list_val, i);
    fail_unless (G_VALUE_HOLDS_STRING (fmt_val));
    fmt_str = g_value_get_string (fmt_val);
    GST_LOG ("format string: '%s'", fmt_str);
    fmt = gst_video_format_from_string (fmt_str);
    fail_unless (fmt != GST_VIDEO_FORMAT_UNKNOWN,
        "Unknown raw format '%s' in pad template caps", fmt_str);
    formats_supported[(guint) fmt] = TRUE;
  }

  gst_caps_unref (caps);

  for (i = 2; i < num_formats; ++i) {
    if (!formats_supported[i]) {
      const gchar *fmt_str = gst_video_format_to_string ((GstVideoFormat) i);

      switch (i) {
        case GST_VIDEO_FORMAT_v210:
        case GST_VIDEO_FORMAT_v216:
        case GST_VIDEO_FORMAT_NV12:
        case GST_VIDEO_FORMAT_NV16:
        case GST_VIDEO_FORMAT_NV21:
        case GST_VIDEO_FORMAT_NV24:
        case GST_VIDEO_FORMAT_UYVP:
        case GST_VIDEO_FORMAT_A420:
        case GST_VIDEO_FORMAT_YUV9:
        case GST_VIDEO_FORMAT_YVU9:
        case GST_VIDEO_FORMAT_IYU1:
        case GST_VIDEO_FORMAT_r210:{
          static gboolean shown_fixme[100] = { FALSE, };

          if (!shown_fixme[i]) {
            GST_FIXME ("FIXME: add %s support to videoscale", fmt_str);
            shown_fixme[i] = TRUE;
          }
          break;
        }
        case GST_VIDEO_FORMAT_BGR16:
        case GST_VIDEO_FORMAT_BGR15:
        case GST_VIDEO_FORMAT_RGB8P:
        case GST_VIDEO_FORMAT_I420_10BE:
        case GST_VIDEO_FORMAT_I420_10LE:
        case GST_VIDEO_FORMAT_I422_10BE:
        case GST_VIDEO_FORMAT_I422_10LE:
        case GST_VIDEO_FORMAT_Y444_10BE:
        case GST_VIDEO_FORMAT_Y444_10LE:
        case GST_VIDEO_FORMAT_GBR:
        case GST_VIDEO_FORMAT_GBR_10BE:
        case GST_VIDEO_FORMAT_GBR_10LE:
        case GST_VIDEO_FORMAT_NV12_64Z32:
        case GST_VIDEO_FORMAT_NV12_4L4:
        case GST_VIDEO_FORMAT_NV12_32L32:
        case GST_VIDEO_FORMAT_NV12_16L32S:
        case GST_VIDEO_FORMAT_NV12_8L128:
        case GST_VIDEO_FORMAT_NV12_10BE_8L128:
          GST_LOG ("Ignoring lack of support for format %s", fmt_str);
          break;
        default:
          g_string_append_printf (missing, " %s", fmt_str);
          break;
      }
    }
  }

  if (missing->len > 0)
    g_string_append_printf (problems, "%s template: formats videoscale "
        "supports and bsplinewarp does not:%s\n",
        GST_PAD_TEMPLATE_NAME_TEMPLATE (tmpl), missing->str);
  g_string_free (missing, TRUE);
  g_free (formats_supported);
}

GST_START_TEST (test_template_formats)
{
  GstElementFactory *f;
  GstPadTemplate *t;
  const GList *pad_templates;
  GString *problems = g_string_new (NULL);

  f = gst_element_factory_find ("bsplinewarp");
  fail_unless (f != NULL);

  pad_templates = gst_element_factory_get_static_pad_templates (f);
  fail_unless_equals_int (g_list_length ((GList *) pad_templates), 2);

  t = gst_static_pad_template_get (pad_templates->data);
  check_pad_template (GST_PAD_TEMPLATE (t), problems);
  gst_object_unref (t);
  t = gst_static_pad_template_get (pad_templates->next->data);
  check_pad_template (GST_PAD_TEMPLATE (t), problems);
  gst_object_unref (t);

  fail_unless (problems->len == 0, "pad templates:\n%s", problems->str);
  g_string_free (problems, TRUE);
  gst_object_unref (f);
}

GST_END_TEST;

/* ---- the pipelines of the per-caps tests ---- */

/* The interlace modes each format runs in: upstream's caps as they are
 * (progressive), then interleaved and mixed (see the header). */
static const gchar *const interlace_modes[] = { NULL, "interleaved", "mixed" };

/* Upstream: the normalised caps videoscale's sink pad answers for the
 * method, one structure each.  Here: videoscale 1.22's (see the header),
 * each in every interlace mode of interlace_modes; *advertised gets
 * bsplinewarp's answer with the method set. */
static GstCaps **
videoscale_get_allowed_caps_for_method (int method, GstCaps ** advertised)
{
  GstElement *scale;
  GstCaps *caps, **ret;
  GstPad *pad;
  GstStructure *s;
  gint i, n;
  guint m;

  scale = scale_element_new ("vscale");
  set_videoscale_method (scale, method);
  pad = gst_element_get_static_pad (scale, "sink");
  *advertised = gst_pad_query_caps (pad, NULL);
  gst_object_unref (pad);
  gst_object_unref (scale);

  caps = gst_caps_normalize (gst_caps_from_string (VIDEOSCALE_1_22_CAPS));
  n = gst_caps_get_size (caps);
  ret = g_new0 (GstCaps *, G_N_ELEMENTS (interlace_modes) * n + 1);

  for (i = 0; i < n; i++) {
    for (m = 0; m < G_N_ELEMENTS (interlace_modes); m++) {
      GstCaps *one = gst_caps_new_empty ();

      s = gst_structure_copy (gst_caps_get_structure (caps, i));
      if (interlace_modes[m])
        gst_structure_set (s, "interlace-mode", G_TYPE_STRING,
            interlace_modes[m], NULL);
      gst_caps_append_structure (one, s);
      ret[G_N_ELEMENTS (interlace_modes) * i + m] = one;
      GST_LOG ("method %d supports: %" GST_PTR_FORMAT, method, one);
    }
  }

  gst_caps_unref (caps);

  return ret;
}

static void
on_sink_handoff (G_GNUC_UNUSED GstElement * element,
    G_GNUC_UNUSED GstBuffer * buffer, G_GNUC_UNUSED GstPad * pad,
    gpointer user_data)
{
  guint *n_buffers = user_data;

  *n_buffers = *n_buffers + 1;
}

static gboolean
videoconvert_supports_caps (const GstCaps * caps)
{
  GST_DEBUG ("have caps %" GST_PTR_FORMAT, caps);
  return TRUE;
}

/* Upstream's run_test.  The assertions about the run (PLAYING, EOS rather
 * than an error, NULL, one buffer) return the first that fails, as text,
 * or NULL where all hold; building the pipeline asserts at once. */
static gchar *
run_test (const GstCaps * caps, gint src_width, gint src_height,
    gint dest_width, gint dest_height, gint method,
    GCallback src_handoff, gpointer src_handoff_user_data,
    GCallback sink_handoff, gpointer sink_handoff_user_data)
{
  GstElement *pipeline;
  GstElement *src, *videoconvert, *capsfilter1, *identity, *scale,
      *capsfilter2, *sink;
  GstMessage *msg;
  GstBus *bus;
  GstCaps *copy;
  guint n_buffers = 0;
  gchar *failure = NULL;

  /* skip formats that videoconvert can't handle */
  if (!videoconvert_supports_caps (caps))
    return NULL;

  pipeline = gst_element_factory_make ("pipeline", "pipeline");
  fail_unless (pipeline != NULL);

  src = gst_element_factory_make ("videotestsrc", "src");
  fail_unless (src != NULL);
  g_object_set (G_OBJECT (src), "num-buffers", 1, NULL);

  videoconvert = gst_element_factory_make ("videoconvert", "csp");
  fail_unless (videoconvert != NULL);

  capsfilter1 = gst_element_factory_make ("capsfilter", "filter1");
  fail_unless (capsfilter1 != NULL);
  copy = gst_caps_copy (caps);
  gst_caps_set_simple (copy, "width", G_TYPE_INT, src_width, "height",
      G_TYPE_INT, src_height, "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
  g_object_set (G_OBJECT (capsfilter1), "caps", copy, NULL);
  gst_caps_unref (copy);

  identity = gst_element_factory_make ("identity", "identity");
  fail_unless (identity != NULL);
  if (src_handoff) {
    g_object_set (G_OBJECT (identity), "signal-handoffs", TRUE, NULL);
    g_signal_connect (identity, "handoff", G_CALLBACK (src_handoff),
        src_handoff_user_data);
  }

  scale = scale_element_new ("scale");
  set_videoscale_method (scale, method);

  capsfilter2 = gst_element_factory_make ("capsfilter", "filter2");
  fail_unless (capsfilter2 != NULL);
  copy = gst_caps_copy (caps);
  gst_caps_set_simple (copy, "width", G_TYPE_INT, dest_width, "height",
      G_TYPE_INT, dest_height, NULL);
  g_object_set (G_OBJECT (capsfilter2), "caps", copy, NULL);
  gst_caps_unref (copy);

  sink = gst_element_factory_make ("fakesink", "sink");
  fail_unless (sink != NULL);
  g_object_set (G_OBJECT (sink), "signal-handoffs", TRUE, "async", FALSE, NULL);
  g_signal_connect (sink, "handoff", G_CALLBACK (on_sink_handoff), &n_buffers);
  if (sink_handoff) {
    g_signal_connect (sink, "handoff", G_CALLBACK (sink_handoff),
        sink_handoff_user_data);
  }

  gst_bin_add_many (GST_BIN (pipeline), src, videoconvert, capsfilter1,
      identity, scale, capsfilter2, sink, NULL);

  fail_unless (gst_element_link_pads_full (src, "src", videoconvert, "sink",
          LINK_CHECK_FLAGS));
  fail_unless (gst_element_link_pads_full (videoconvert, "src", capsfilter1,
          "sink", LINK_CHECK_FLAGS));
  fail_unless (gst_element_link_pads_full (capsfilter1, "src", identity, "sink",
          LINK_CHECK_FLAGS));
  fail_unless (gst_element_link_pads_full (identity, "src", scale, "sink",
          LINK_CHECK_FLAGS));
  fail_unless (gst_element_link_pads_full (scale, "src", capsfilter2, "sink",
          LINK_CHECK_FLAGS));
  fail_unless (gst_element_link_pads_full (capsfilter2, "src", sink, "sink",
          LINK_CHECK_FLAGS));

  bus = gst_element_get_bus (pipeline);
  fail_unless (bus != NULL);

  if (gst_element_set_state (pipeline,
          GST_STATE_PLAYING) != GST_STATE_CHANGE_SUCCESS) {
    failure = g_strdup ("the pipeline did not go to PLAYING");
    msg = NULL;
  } else {
    msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);

    if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_EOS) {
      GError *err = NULL;
      gchar *debug = NULL;

      if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
        gst_message_parse_error (msg, &err, &debug);
      else
        gst_message_parse_warning (msg, &err, &debug);
      failure = g_strdup_printf ("%s instead of EOS, from %s: %s (%s)",
          GST_MESSAGE_TYPE_NAME (msg), GST_MESSAGE_SRC_NAME (msg),
          err->message, debug ? debug : "no details");
      g_clear_error (&err);
      g_free (debug);
    }
  }

  if (gst_element_set_state (pipeline,
          GST_STATE_NULL) != GST_STATE_CHANGE_SUCCESS && failure == NULL)
    failure = g_strdup ("the pipeline did not go to NULL");

  if (n_buffers != 1 && failure == NULL)
    failure = g_strdup_printf ("%u buffers reached the sink, not 1", n_buffers);

  gst_object_unref (pipeline);
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  return failure;
}

/* ---- test_passthrough_method_* ---- */

static void
on_sink_handoff_passthrough (G_GNUC_UNUSED GstElement * element,
    GstBuffer * buffer, G_GNUC_UNUSED GstPad * pad, gpointer user_data)
{
  GList **list = user_data;

  *list = g_list_prepend (*list, gst_buffer_ref (buffer));
}

static void
on_src_handoff_passthrough (G_GNUC_UNUSED GstElement * element,
    GstBuffer * buffer, gpointer user_data)
{
  GList **list = user_data;

  *list = g_list_prepend (*list, gst_buffer_ref (buffer));
}

/* Upstream's checks on the buffers seen before and after the scaler: the
 * first that fails, or NULL. */
static gchar *
check_passthrough_buffers (GList * src_buffers, GList * sink_buffers)
{
  GList *l1, *l2;

  if (!(src_buffers && sink_buffers))
    return g_strdup_printf ("%u buffers before the scaler, %u after",
        g_list_length (src_buffers), g_list_length (sink_buffers));
  if (g_list_length (src_buffers) != g_list_length (sink_buffers))
    return g_strdup_printf ("%u buffers before the scaler, %u after",
        g_list_length (src_buffers), g_list_length (sink_buffers));

  for (l1 = src_buffers, l2 = sink_buffers; l1 && l2;
      l1 = l1->next, l2 = l2->next) {
    GstBuffer *a = l1->data;
    GstBuffer *b = l2->data;
    GstMapInfo mapa, mapb;
    gchar *failure = NULL;

    gst_buffer_map (a, &mapa, GST_MAP_READ);
    gst_buffer_map (b, &mapb, GST_MAP_READ);
    if (mapa.size != mapb.size)
      failure = g_strdup_printf ("output of %" G_GSIZE_FORMAT " bytes, input "
          "of %" G_GSIZE_FORMAT, mapb.size, mapa.size);
    else if (mapa.data != mapb.data)
      failure = g_strdup ("the output is not the input buffer's memory "
          "(no passthrough)");
    gst_buffer_unmap (b, &mapb);
    gst_buffer_unmap (a, &mapa);
    if (failure)
      return failure;
  }
  return NULL;
}

static void
test_passthrough (int method)
{
  GList *src_buffers = NULL, *sink_buffers = NULL;
  GstCaps **allowed_caps = NULL, **p, *advertised;
  static const gint src_width = 640, src_height = 480;
  static const gint dest_width = 640, dest_height = 480;
  Failures failures;
  gchar *name;

  failures_init (&failures);
  p = allowed_caps = videoscale_get_allowed_caps_for_method (method,
      &advertised);

  while (*p) {
    GstCaps *caps = *p;
    gchar *failure;

    /* skip formats that videoconvert can't handle */
    if (!videoconvert_supports_caps (caps))
      goto next;

    GST_DEBUG ("Running test for caps '%" GST_PTR_FORMAT "'"
        " from %dx%u to %dx%d with method %d", caps, src_width, src_height,
        dest_width, dest_height, method);
    failure = run_test (caps, src_width, src_height,
        dest_width, dest_height, method,
        G_CALLBACK (on_src_handoff_passthrough), &src_buffers,
        G_CALLBACK (on_sink_handoff_passthrough), &sink_buffers);
    if (failure == NULL)
      failure = check_passthrough_buffers (src_buffers, sink_buffers);
    failures_add (&failures, caps, advertised, failure);

    g_list_free_full (src_buffers, (GDestroyNotify) gst_buffer_unref);
    src_buffers = NULL;
    g_list_free_full (sink_buffers, (GDestroyNotify) gst_buffer_unref);
    sink_buffers = NULL;

  next:
    gst_caps_unref (caps);
    p++;
  }
  g_free (allowed_caps);
  gst_caps_unref (advertised);
  name = g_strdup_printf ("passthrough, method %d", method);
  failures_check (&failures, name);
  g_free (name);
}

GST_START_TEST (test_passthrough_method_0)
{
  test_passthrough (0);
}

GST_END_TEST;

GST_START_TEST (test_passthrough_method_1)
{
  test_passthrough (1);
}

GST_END_TEST;

GST_START_TEST (test_passthrough_method_2)
{
  test_passthrough (2);
}

GST_END_TEST;

GST_START_TEST (test_passthrough_method_3)
{
  test_passthrough (3);
}

GST_END_TEST;
/* ---- the scaling tests, groups 1 to 6 ---- */

/* The body of upstream's CREATE_TEST: one pipeline per caps. */
static void
run_test_for_every_caps (gint method, gint src_width, gint src_height,
    gint dest_width, gint dest_height)
{
  GstCaps **allowed_caps = NULL, **p, *advertised;
  Failures failures;
  gchar *name;

  failures_init (&failures);
  p = allowed_caps = videoscale_get_allowed_caps_for_method (method,
      &advertised);

  while (*p) {
    GstCaps *caps = *p;

    GST_DEBUG ("Running test for caps '%" GST_PTR_FORMAT "'"
        " from %dx%u to %dx%d with method %d", caps, src_width, src_height,
        dest_width, dest_height, method);
    failures_add (&failures, caps, advertised, run_test (caps, src_width,
            src_height, dest_width, dest_height, method, NULL, NULL, NULL,
            NULL));
    gst_caps_unref (caps);
    p++;
  }
  g_free (allowed_caps);
  gst_caps_unref (advertised);
  name = g_strdup_printf ("%dx%d -> %dx%d, method %d", src_width,
      src_height, dest_width, dest_height, method);
  failures_check (&failures, name);
  g_free (name);
}

#define CREATE_TEST(name,method,src_width,src_height,dest_width,dest_height) \
GST_START_TEST (name) \
{ \
  run_test_for_every_caps (method, src_width, src_height, dest_width, \
      dest_height); \
} \
\
GST_END_TEST;

/* group 1 */
CREATE_TEST (test_downscale_640x480_320x240_method_0, 0, 640, 480, 320, 240);
CREATE_TEST (test_downscale_640x480_320x240_method_1, 1, 640, 480, 320, 240);
CREATE_TEST (test_downscale_640x480_320x240_method_2, 2, 640, 480, 320, 240);
CREATE_TEST (test_downscale_640x480_320x240_method_3, 3, 640, 480, 320, 240);
CREATE_TEST (test_upscale_320x240_640x480_method_0, 0, 320, 240, 640, 480);
CREATE_TEST (test_upscale_320x240_640x480_method_1, 1, 320, 240, 640, 480);
CREATE_TEST (test_upscale_320x240_640x480_method_2, 2, 320, 240, 640, 480);
CREATE_TEST (test_upscale_320x240_640x480_method_3, 3, 320, 240, 640, 480);
/* group 2 */
CREATE_TEST (test_downscale_640x480_1x1_method_0, 0, 640, 480, 1, 1);
CREATE_TEST (test_downscale_640x480_1x1_method_1, 1, 640, 480, 1, 1);
CREATE_TEST (test_downscale_640x480_1x1_method_2, 2, 640, 480, 1, 1);
CREATE_TEST (test_downscale_640x480_1x1_method_3, 3, 640, 480, 1, 1);
CREATE_TEST (test_upscale_1x1_640x480_method_0, 0, 1, 1, 640, 480);
CREATE_TEST (test_upscale_1x1_640x480_method_1, 1, 1, 1, 640, 480);
CREATE_TEST (test_upscale_1x1_640x480_method_2, 2, 1, 1, 640, 480);
CREATE_TEST (test_upscale_1x1_640x480_method_3, 3, 1, 1, 640, 480);
/* group 3 (upstream passes method 2 to the last one: see the header) */
CREATE_TEST (test_downscale_641x481_111x30_method_0, 0, 641, 481, 111, 30);
CREATE_TEST (test_downscale_641x481_111x30_method_1, 1, 641, 481, 111, 30);
CREATE_TEST (test_downscale_641x481_111x30_method_2, 2, 641, 481, 111, 30);
CREATE_TEST (test_downscale_641x481_111x30_method_3, 3, 641, 481, 111, 30);
CREATE_TEST (test_upscale_111x30_641x481_method_0, 0, 111, 30, 641, 481);
CREATE_TEST (test_upscale_111x30_641x481_method_1, 1, 111, 30, 641, 481);
CREATE_TEST (test_upscale_111x30_641x481_method_2, 2, 111, 30, 641, 481);
CREATE_TEST (test_upscale_111x30_641x481_method_3, 3, 111, 30, 641, 481);
/* group 4 */
CREATE_TEST (test_downscale_641x481_30x111_method_0, 0, 641, 481, 30, 111);
CREATE_TEST (test_downscale_641x481_30x111_method_1, 1, 641, 481, 30, 111);
CREATE_TEST (test_downscale_641x481_30x111_method_2, 2, 641, 481, 30, 111);
CREATE_TEST (test_downscale_641x481_30x111_method_3, 3, 641, 481, 30, 111);
CREATE_TEST (test_upscale_30x111_641x481_method_0, 0, 30, 111, 641, 481);
CREATE_TEST (test_upscale_30x111_641x481_method_1, 1, 30, 111, 641, 481);
CREATE_TEST (test_upscale_30x111_641x481_method_2, 2, 30, 111, 641, 481);
CREATE_TEST (test_upscale_30x111_641x481_method_3, 3, 30, 111, 641, 481);
/* group 5 */
CREATE_TEST (test_downscale_640x480_320x1_method_0, 0, 640, 480, 320, 1);
CREATE_TEST (test_downscale_640x480_320x1_method_1, 1, 640, 480, 320, 1);
CREATE_TEST (test_downscale_640x480_320x1_method_2, 2, 640, 480, 320, 1);
CREATE_TEST (test_downscale_640x480_320x1_method_3, 3, 640, 480, 320, 1);
CREATE_TEST (test_upscale_320x1_640x480_method_0, 0, 320, 1, 640, 480);
CREATE_TEST (test_upscale_320x1_640x480_method_1, 1, 320, 1, 640, 480);
CREATE_TEST (test_upscale_320x1_640x480_method_2, 2, 320, 1, 640, 480);
CREATE_TEST (test_upscale_320x1_640x480_method_3, 3, 320, 1, 640, 480);
/* group 6 */
CREATE_TEST (test_downscale_640x480_1x240_method_0, 0, 640, 480, 1, 240);
CREATE_TEST (test_downscale_640x480_1x240_method_1, 1, 640, 480, 1, 240);
CREATE_TEST (test_downscale_640x480_1x240_method_2, 2, 640, 480, 1, 240);
CREATE_TEST (test_downscale_640x480_1x240_method_3, 3, 640, 480, 1, 240);
CREATE_TEST (test_upscale_1x240_640x480_method_0, 0, 1, 240, 640, 480);
CREATE_TEST (test_upscale_1x240_640x480_method_1, 1, 1, 240, 640, 480);
CREATE_TEST (test_upscale_1x240_640x480_method_2, 2, 1, 240, 640, 480);
CREATE_TEST (test_upscale_1x240_640x480_method_3, 3, 1, 240, 640, 480);

/* ---- negotiation ---- */

static void
_test_negotiation (const gchar * src_templ, const gchar * sink_templ,
    gint width, gint height, gint par_n, gint par_d)
{
  GstElement *pipeline;
  GstElement *src, *capsfilter1, *scale, *capsfilter2, *sink;
  GstCaps *caps;
  GstPad *pad;
  GstStateChangeReturn ret;

  GST_DEBUG ("Running test for src templ caps '%s' and sink templ caps '%s'",
      src_templ, sink_templ);

  pipeline = gst_element_factory_make ("pipeline", "pipeline");
  fail_unless (pipeline != NULL);

  src = gst_element_factory_make ("videotestsrc", "src");
  fail_unless (src != NULL);
  g_object_set (G_OBJECT (src), "num-buffers", 1, "pattern", 2, NULL);

  capsfilter1 = gst_element_factory_make ("capsfilter", "filter1");
  fail_unless (capsfilter1 != NULL);
  caps = gst_caps_from_string (src_templ);
  fail_unless (caps != NULL);
  g_object_set (G_OBJECT (capsfilter1), "caps", caps, NULL);
  gst_caps_unref (caps);

  scale = scale_element_new ("scale");

  capsfilter2 = gst_element_factory_make ("capsfilter", "filter2");
  fail_unless (capsfilter2 != NULL);
  caps = gst_caps_from_string (sink_templ);
  fail_unless (caps != NULL);
  g_object_set (G_OBJECT (capsfilter2), "caps", caps, NULL);
  gst_caps_unref (caps);

  sink = gst_element_factory_make ("fakesink", "sink");
  fail_unless (sink != NULL);

  gst_bin_add_many (GST_BIN (pipeline), src, capsfilter1, scale, capsfilter2,
      sink, NULL);

  fail_unless (gst_element_link_pads_full (src, "src", capsfilter1, "sink",
          LINK_CHECK_FLAGS));
  fail_unless (gst_element_link_pads_full (capsfilter1, "src", scale, "sink",
          LINK_CHECK_FLAGS));
  fail_unless (gst_element_link_pads_full (scale, "src", capsfilter2, "sink",
          LINK_CHECK_FLAGS));
  fail_unless (gst_element_link_pads_full (capsfilter2, "src", sink, "sink",
          LINK_CHECK_FLAGS));

  ret = gst_element_set_state (pipeline, GST_STATE_PAUSED);
  fail_unless (ret == GST_STATE_CHANGE_ASYNC, "%s -> %s: going to PAUSED "
      "returned %s, not ASYNC", src_templ, sink_templ,
      gst_element_state_change_return_get_name (ret));

  /* Wait for pipeline to preroll, at which point negotiation is finished */
  ret = gst_element_get_state (pipeline, NULL, NULL, -1);
  fail_unless (ret == GST_STATE_CHANGE_SUCCESS, "%s -> %s: the pipeline did "
      "not preroll (%s)", src_templ, sink_templ,
      gst_element_state_change_return_get_name (ret));

  /* Get negotiated caps */
  pad = gst_element_get_static_pad (capsfilter2, "sink");
  fail_unless (pad != NULL);
  caps = gst_pad_get_current_caps (pad);
  fail_unless (caps != NULL);
  gst_object_unref (pad);

  /* Check negotiated caps */
  {
    gint out_par_n = 0, out_par_d = 0;
    gint out_width, out_height;
    GstStructure *s;

    s = gst_caps_get_structure (caps, 0);

    fail_unless (gst_structure_get_int (s, "width", &out_width));
    fail_unless (gst_structure_get_int (s, "height", &out_height));
    fail_unless (gst_structure_get_fraction (s, "pixel-aspect-ratio",
            &out_par_n, &out_par_d) || (par_n == 1 && par_d == 1));

    fail_unless (width == out_width && height == out_height,
        "%s -> %s: negotiated %dx%d, expected %dx%d", src_templ, sink_templ,
        out_width, out_height, width, height);
    if (par_n != 0 || par_d != 0) {
      fail_unless (par_n == out_par_n && par_d == out_par_d,
          "%s -> %s: negotiated PAR %d/%d, expected %d/%d", src_templ,
          sink_templ, out_par_n, out_par_d, par_n, par_d);
    }
  }
  gst_caps_unref (caps);

  /* clean up */
  fail_unless (gst_element_set_state (pipeline,
          GST_STATE_NULL) == GST_STATE_CHANGE_SUCCESS);

  gst_object_unref (pipeline);
}

/* Upstream's nine cases, in AYUV there; FORMAT stands for the format. */
static const struct
{
  const gchar *src_templ, *sink_templ;
  gint width, height, par_n, par_d;
} negotiation_cases[] = {
  {"video/x-raw,format=(string)FORMAT,width=720,height=576,"
        "pixel-aspect-ratio=16/15",
      "video/x-raw,format=(string)FORMAT,width=768,height=576", 768, 576, 1, 1},
  {"video/x-raw,format=(string)FORMAT,width=320,height=240",
      "video/x-raw,format=(string)FORMAT,width=640,height=320", 640, 320, 2, 3},
  {"video/x-raw,format=(string)FORMAT,width=320,height=240",
        "video/x-raw,format=(string)FORMAT,width=640,height=320,"
        "pixel-aspect-ratio=[0/1, 1/1]",
      640, 320, 2, 3},
  {"video/x-raw,format=(string)FORMAT,width=1920,height=2560,"
        "pixel-aspect-ratio=1/1",
        "video/x-raw,format=(string)FORMAT,width=[1, 2048],height=[1, 2048],"
        "pixel-aspect-ratio=1/1",
      1536, 2048, 1, 1},
  {"video/x-raw,format=(string)FORMAT,width=1920,height=2560,"
        "pixel-aspect-ratio=1/1",
        "video/x-raw,format=(string)FORMAT,width=[1, 2048],height=[1, 2048]",
      1920, 2048, 4, 5},
  {"video/x-raw,format=(string)FORMAT,width=1920,height=2560",
        "video/x-raw,format=(string)FORMAT,width=[1, 2048],height=[1, 2048]",
      1920, 2048, 4, 5},
  {"video/x-raw,format=(string)FORMAT,width=1920,height=2560",
        "video/x-raw,format=(string)FORMAT,width=1200,height=[1, 2048],"
        "pixel-aspect-ratio=1/1",
      1200, 1600, 1, 1},
  /* Doesn't keep DAR but must be possible! */
  {"video/x-raw,format=(string)FORMAT,width=320,height=240,"
        "pixel-aspect-ratio=1/1",
        "video/x-raw,format=(string)FORMAT,width=200,height=200,"
        "pixel-aspect-ratio=1/2",
      200, 200, 1, 2},
  {"video/x-raw,format=(string)FORMAT,width=854,height=480",
        "video/x-raw,format=(string)FORMAT,width=[2, 512, 2],"
        "height=[2, 512, 2],pixel-aspect-ratio=1/1",
      512, 288, 1, 1},
};

static gchar *
with_format (const gchar * templ, const gchar * format)
{
  GString *caps = g_string_new (templ);

  g_string_replace (caps, "FORMAT", format, 0);
  return g_string_free (caps, FALSE);
}

static void
test_negotiation_in (const gchar * format)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (negotiation_cases); i++) {
    gchar *src_templ, *sink_templ;

    src_templ = with_format (negotiation_cases[i].src_templ, format);
    sink_templ = with_format (negotiation_cases[i].sink_templ, format);
    _test_negotiation (src_templ, sink_templ, negotiation_cases[i].width,
        negotiation_cases[i].height, negotiation_cases[i].par_n,
        negotiation_cases[i].par_d);
    g_free (src_templ);
    g_free (sink_templ);
  }
}

GST_START_TEST (test_negotiation)
{
  test_negotiation_in ("AYUV");
}

GST_END_TEST;

/* An addition of the port: upstream's cases on a format bsplinewarp has
 * today (ARGB: four 8-bit components, as AYUV). */
GST_START_TEST (test_negotiation_argb)
{
  test_negotiation_in ("ARGB");
}

GST_END_TEST;

GST_START_TEST (test_negotiate_alternate)
{
  GstHarness *h;
  GstBuffer *buffer;
  GstMapInfo map;

  h = scale_harness_new ();

  buffer = gst_buffer_new_and_alloc (4);
  gst_buffer_map (buffer, &map, GST_MAP_WRITE);
  map.data[0] = 0x0;
  map.data[1] = 0x0;
  map.data[2] = 0x0;
  map.data[3] = 0x0;
  gst_buffer_unmap (buffer, &map);

  gst_harness_set_sink_caps_str (h, "video/x-raw,width=1,height=1,format=ARGB");
  gst_harness_set_src_caps_str (h,
      "video/x-raw(format:Interlaced),interlace-mode=alternate,width=1,height=2,format=ARGB");
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (buffer)),
      GST_FLOW_NOT_NEGOTIATED);

  gst_harness_set_sink_caps_str (h,
      "video/x-raw(format:Interlaced),width=1,height=1,format=ARGB");
  gst_harness_set_src_caps_str (h,
      "video/x-raw,interlace-mode=alternate,width=1,height=2,format=ARGB");
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (buffer)),
      GST_FLOW_NOT_NEGOTIATED);

  gst_harness_set_sink_caps_str (h,
      "video/x-raw(format:Interlaced),interlace-mode=alternate,width=1,height=1,format=ARGB");
  gst_harness_set_src_caps_str (h,
      "video/x-raw(format:Interlaced),interlace-mode=alternate,width=1,height=2,format=ARGB");
  fail_unless_equals_int (gst_harness_push (h, buffer), GST_FLOW_OK);

  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_basetransform_negotiation)
{
  GstElement *pipeline, *src, *sink, *scale, *capsfilter1, *capsfilter2;
  GstMessage *msg;
  GstCaps *caps;

  pipeline = gst_pipeline_new (NULL);
  src = gst_element_factory_make ("videotestsrc", NULL);
  capsfilter1 = gst_element_factory_make ("capsfilter", NULL);
  scale = scale_element_new (NULL);
  capsfilter2 = gst_element_factory_make ("capsfilter", NULL);
  sink = gst_element_factory_make ("fakesink", NULL);
  fail_unless (pipeline && src && capsfilter1 && scale && capsfilter2 && sink);

  g_object_set (src, "num-buffers", 3, NULL);

  caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      "UYVY", "width", G_TYPE_INT, 352,
      "height", G_TYPE_INT, 288, "framerate", GST_TYPE_FRACTION, 30, 1,
      "pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1, NULL);
  g_object_set (capsfilter1, "caps", caps, NULL);
  gst_caps_unref (caps);

  /* same caps, just different pixel-aspect-ratio */
  caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      "UYVY", "width", G_TYPE_INT, 352,
      "height", G_TYPE_INT, 288, "framerate", GST_TYPE_FRACTION, 30, 1,
      "pixel-aspect-ratio", GST_TYPE_FRACTION, 12, 11, NULL);
  g_object_set (capsfilter2, "caps", caps, NULL);
  gst_caps_unref (caps);

  gst_bin_add_many (GST_BIN (pipeline), src, capsfilter1, scale, capsfilter2,
      sink, NULL);
  fail_unless (gst_element_link_many (src, capsfilter1, scale, capsfilter2,
          sink, NULL), "linking failed: bsplinewarp cannot take UYVY");

  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_PLAYING),
      GST_STATE_CHANGE_ASYNC);

  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline), -1,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

GST_START_TEST (test_transform_meta)
{
  GstHarness *h;
  GstBuffer *buffer;
  const guint8 data[16] = { 0 };
  GstCaps *caps;
  GstVideoRegionOfInterestMeta *roi_meta;
  GstRTPSourceMeta *rtp_source_meta;
  guint32 ssrc = 1234;

  h = scale_harness_new ();

  buffer = gst_buffer_new_allocate (NULL, sizeof (data), NULL);
  gst_buffer_fill (buffer, 0, data, sizeof (data));

  caps = gst_caps_new_empty_simple ("timestamp/test");
  gst_buffer_add_video_region_of_interest_meta (buffer, "face", 0, 1, 2, 3);
  rtp_source_meta = gst_buffer_add_rtp_source_meta (buffer, &ssrc, NULL, 0);

  gst_harness_set_sink_caps_str (h,
      "video/x-raw,width=8,height=8,format=GRAY8");
  gst_harness_set_src_caps_str (h, "video/x-raw,width=4,height=4,format=GRAY8");
  fail_unless_equals_int (gst_harness_push (h, buffer), GST_FLOW_OK);

  buffer = pull_output (h);
  fail_unless (buffer != NULL);
  fail_unless_equals_int (gst_buffer_get_n_meta (buffer,
          GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE), 1);

  roi_meta = gst_buffer_get_video_region_of_interest_meta_id (buffer, 0);
  fail_unless (roi_meta != NULL);
  fail_unless_equals_int (roi_meta->roi_type, g_quark_from_string ("face"));
  fail_unless_equals_int (roi_meta->x, 0);
  fail_unless_equals_int (roi_meta->y, 2);
  fail_unless_equals_int (roi_meta->w, 4);
  fail_unless_equals_int (roi_meta->h, 6);

  rtp_source_meta = gst_buffer_get_rtp_source_meta (buffer);
  fail_unless (rtp_source_meta != NULL);
  fail_unless (rtp_source_meta->ssrc_valid);
  fail_unless_equals_int (rtp_source_meta->ssrc, ssrc);

  gst_buffer_unref (buffer);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- the suite: upstream's seven builds as seven test cases ---- */

static TCase *
group_new (Suite * s, const gchar * name, const gchar * only)
{
  TCase *tc;

  if (only != NULL && !g_str_equal (only, name))
    return NULL;
  tc = tcase_create (name);
  suite_add_tcase (s, tc);
  /* upstream: 180 s; these two shared cores are slower than a CI runner,
   * and CUDA runs the test cases in one process */
  tcase_set_timeout (tc, 900);
  return tc;
}

static Suite *
videoscale_suite (const gchar * only)
{
  Suite *s = suite_create ("videoscale");
  TCase *tc_chain;

  if ((tc_chain = group_new (s, "general", only))) {
    tcase_add_test (tc_chain, test_template_formats);
    tcase_add_test (tc_chain, test_passthrough_method_0);
    tcase_add_test (tc_chain, test_passthrough_method_1);
    tcase_add_test (tc_chain, test_passthrough_method_2);
    tcase_add_test (tc_chain, test_passthrough_method_3);
    tcase_add_test (tc_chain, test_negotiation);
    tcase_add_test (tc_chain, test_negotiation_argb);
    tcase_add_test (tc_chain, test_negotiate_alternate);
    tcase_add_test (tc_chain, test_basetransform_negotiation);
    tcase_add_test (tc_chain, test_transform_meta);
  }
  if ((tc_chain = group_new (s, "group1", only))) {
    tcase_add_test (tc_chain, test_downscale_640x480_320x240_method_0);
    tcase_add_test (tc_chain, test_downscale_640x480_320x240_method_1);
    tcase_add_test (tc_chain, test_downscale_640x480_320x240_method_2);
    tcase_add_test (tc_chain, test_downscale_640x480_320x240_method_3);
    tcase_add_test (tc_chain, test_upscale_320x240_640x480_method_0);
    tcase_add_test (tc_chain, test_upscale_320x240_640x480_method_1);
    tcase_add_test (tc_chain, test_upscale_320x240_640x480_method_2);
    tcase_add_test (tc_chain, test_upscale_320x240_640x480_method_3);
  }
  if ((tc_chain = group_new (s, "group2", only))) {
    tcase_add_test (tc_chain, test_downscale_640x480_1x1_method_0);
    tcase_add_test (tc_chain, test_downscale_640x480_1x1_method_1);
    tcase_add_test (tc_chain, test_downscale_640x480_1x1_method_2);
    tcase_add_test (tc_chain, test_downscale_640x480_1x1_method_3);
    tcase_add_test (tc_chain, test_upscale_1x1_640x480_method_0);
    tcase_add_test (tc_chain, test_upscale_1x1_640x480_method_1);
    tcase_add_test (tc_chain, test_upscale_1x1_640x480_method_2);
    tcase_add_test (tc_chain, test_upscale_1x1_640x480_method_3);
  }
  if ((tc_chain = group_new (s, "group3", only))) {
    tcase_add_test (tc_chain, test_downscale_641x481_111x30_method_0);
    tcase_add_test (tc_chain, test_downscale_641x481_111x30_method_1);
    tcase_add_test (tc_chain, test_downscale_641x481_111x30_method_2);
    tcase_add_test (tc_chain, test_downscale_641x481_111x30_method_3);
    tcase_add_test (tc_chain, test_upscale_111x30_641x481_method_0);
    tcase_add_test (tc_chain, test_upscale_111x30_641x481_method_1);
    tcase_add_test (tc_chain, test_upscale_111x30_641x481_method_2);
    tcase_add_test (tc_chain, test_upscale_111x30_641x481_method_3);
  }
  if ((tc_chain = group_new (s, "group4", only))) {
    tcase_add_test (tc_chain, test_downscale_641x481_30x111_method_0);
    tcase_add_test (tc_chain, test_downscale_641x481_30x111_method_1);
    tcase_add_test (tc_chain, test_downscale_641x481_30x111_method_2);
    tcase_add_test (tc_chain, test_downscale_641x481_30x111_method_3);
    tcase_add_test (tc_chain, test_upscale_30x111_641x481_method_0);
    tcase_add_test (tc_chain, test_upscale_30x111_641x481_method_1);
    tcase_add_test (tc_chain, test_upscale_30x111_641x481_method_2);
    tcase_add_test (tc_chain, test_upscale_30x111_641x481_method_3);
  }
  if ((tc_chain = group_new (s, "group5", only))) {
    tcase_add_test (tc_chain, test_downscale_640x480_320x1_method_0);
    tcase_add_test (tc_chain, test_downscale_640x480_320x1_method_1);
    tcase_add_test (tc_chain, test_downscale_640x480_320x1_method_2);
    tcase_add_test (tc_chain, test_downscale_640x480_320x1_method_3);
    tcase_add_test (tc_chain, test_upscale_320x1_640x480_method_0);
    tcase_add_test (tc_chain, test_upscale_320x1_640x480_method_1);
    tcase_add_test (tc_chain, test_upscale_320x1_640x480_method_2);
    tcase_add_test (tc_chain, test_upscale_320x1_640x480_method_3);
  }
  if ((tc_chain = group_new (s, "group6", only))) {
    tcase_add_test (tc_chain, test_downscale_640x480_1x240_method_0);
    tcase_add_test (tc_chain, test_downscale_640x480_1x240_method_1);
    tcase_add_test (tc_chain, test_downscale_640x480_1x240_method_2);
    tcase_add_test (tc_chain, test_downscale_640x480_1x240_method_3);
    tcase_add_test (tc_chain, test_upscale_1x240_640x480_method_0);
    tcase_add_test (tc_chain, test_upscale_1x240_640x480_method_1);
    tcase_add_test (tc_chain, test_upscale_1x240_640x480_method_2);
    tcase_add_test (tc_chain, test_upscale_1x240_640x480_method_3);
  }

  return s;
}

/* test-videoscale-port [general|group1|...|group6]: one test case, or all.
 * An unknown BSPLINE_TEST_BACKEND is an error; with cuda the suite is
 * skipped (77) where the CUDA engine cannot start, and runs without
 * fork. */
int
main (int argc, char **argv)
{
  const gchar *backend, *only = NULL;
  GstElement *probe;
  Suite *s;
  static const gchar *const groups[] = { "general", "group1", "group2",
    "group3", "group4", "group5", "group6", NULL
  };

  gst_check_init (&argc, &argv);
  if (argc > 1) {
    only = argv[1];
    if (!g_strv_contains (groups, only)) {
      g_printerr ("unknown test case '%s': general or group1 to group6\n",
          only);
      return 1;
    }
  }
  backend = test_backend ();
  if (!g_str_equal (backend, "cpu") && !g_str_equal (backend, "cuda")
      && !g_str_equal (backend, "auto")) {
    g_printerr ("BSPLINE_TEST_BACKEND=%s: expected cpu, cuda or auto\n",
        backend);
    return 1;
  }
  probe = gst_element_factory_make ("bsplinewarp", NULL);
  if (probe == NULL) {
    g_printerr ("bsplinewarp not found: set GST_PLUGIN_PATH to the build's "
        "gst/ directory\n");
    return 1;
  }
  if (g_str_equal (backend, "cuda")) {
    GstStateChangeReturn started;

    gst_util_set_object_arg (G_OBJECT (probe), "backend", backend);
    started = gst_element_set_state (probe, GST_STATE_PAUSED);
    gst_element_set_state (probe, GST_STATE_NULL);
    if (started == GST_STATE_CHANGE_FAILURE) {
      gst_object_unref (probe);
      g_print ("SKIP: backend=cuda cannot start here (no GPU or driver)\n");
      return 77;
    }
    g_setenv ("CK_FORK", "no", TRUE);
  }
  gst_object_unref (probe);
  g_print ("videoscale's 1.22 tests on bsplinewarp, backend=%s, test case "
      "%s\n", backend, only ? only : "all");
  s = videoscale_suite (only);
  return gst_check_run_suite (s, "videoscale", __FILE__);
}
