/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fuzz-element.c: libFuzzer harness over the bsplinewarp element.
 *
 * One input is a script run through a GstHarness around bsplinewarp
 * (backend=cpu, registered statically from gst/gstbsplinewarp.c): input
 * caps among the 24 formats with sizes 1-40 (output caps fixed or left to
 * fixation, with a pixel-aspect-ratio sometimes), then up to 24 steps:
 * buffers of the right size, truncated, empty or oversized, buffers with a
 * video meta whose strides and offsets do not fit the buffer, property
 * changes with any value (out-of-range values are refused by GLib with a
 * warning), matrices with NaN, Inf, huge and denormal entries, changes of
 * the input caps or of what downstream accepts (renegotiation), flushes,
 * EOS, drain queries, defer and use-meta, buffers with warp chains of any
 * frame size, matrices and lens stages.  Outputs are pulled as they come.  The element must
 * not crash, log a GLib critical or trip a sanitizer; flow errors and
 * element errors are allowed (they are how it refuses bad input).
 *
 * The same file is linked with replay-main.c into a plain program that
 * replays the committed corpus (tests/fuzz/corpus/element) in every build.
 */
#include <string.h>

#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <gst/bspline/bspline-chain-meta.h>

#include "gstbsplinewarp.h"
#include "fuzz-input.h"

#define MAX_SIDE 40
#define MAX_STEPS 24

/* every format of the element's caps (GST_VIDEO_FORMATS_ALL) */
static gchar **formats;
static guint n_formats;

static const gchar *const interlace_modes[] = {
  "progressive", "interleaved", "mixed", "alternate"
};

static void
ignore_log (G_GNUC_UNUSED const gchar * domain,
    G_GNUC_UNUSED GLogLevelFlags level, G_GNUC_UNUSED const gchar * message,
    G_GNUC_UNUSED gpointer data)
{
}

static void
init_once (void)
{
  static gboolean done = FALSE;

  if (done)
    return;
  done = TRUE;
  gst_init (NULL, NULL);
  /* a critical is a bug (of the element or of how it calls GStreamer);
   * warnings are expected: GLib refuses out-of-range property values */
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR);
  g_log_set_handler ("GLib-GObject", G_LOG_LEVEL_WARNING, ignore_log, NULL);
  g_log_set_handler ("GStreamer", G_LOG_LEVEL_WARNING, ignore_log, NULL);
  g_log_set_handler (NULL, G_LOG_LEVEL_WARNING, ignore_log, NULL);
  if (!GST_ELEMENT_REGISTER (bsplinewarp, NULL))
    g_error ("cannot register bsplinewarp");
  {
    gchar *list = g_strdup (GST_VIDEO_FORMATS_ALL);

    g_strdelimit (list, "{} ", ' ');
    formats = g_strsplit_set (g_strstrip (list), ", ", -1);
    for (n_formats = 0; formats[n_formats]; n_formats++);
    g_free (list);
  }
}

static gchar *
pick_caps (fuzz_input * in, GstVideoInfo * info)
{
  const gchar *format;
  gint w = fuzz_range (in, 1, MAX_SIDE), h = fuzz_range (in, 1, MAX_SIDE);
  guint8 mode = fuzz_u8 (in);
  gchar *caps;

  do
    format = formats[fuzz_u8 (in) % n_formats];
  while (!*format);
  /* most often progressive; the interlaced modes, alternate with its
   * caps feature */
  mode = mode < 160 ? 0 : mode % 4;
  caps = g_strdup_printf ("video/x-raw%s,format=%s,width=%d,height=%d,"
      "framerate=30/1,pixel-aspect-ratio=%d/%d%s,interlace-mode=%s",
      mode == 3 ? "(format:Interlaced)" : "", format, w, h,
      fuzz_range (in, 1, 3), fuzz_range (in, 1, 3),
      fuzz_u8 (in) < 40 ? ",chroma-site=mpeg2" : "", interlace_modes[mode]);
  GstCaps *c = gst_caps_from_string (caps);

  if (!gst_video_info_from_caps (info, c))
    g_error ("bad caps %s", caps);
  gst_caps_unref (c);
  return caps;
}

static gchar *
pick_sink_caps (fuzz_input * in)
{
  switch (fuzz_u8 (in) % 4) {
    case 0:
      return g_strdup ("video/x-raw");
    case 1:
      return g_strdup_printf ("video/x-raw,width=%d,height=%d",
          fuzz_range (in, 1, MAX_SIDE), fuzz_range (in, 1, MAX_SIDE));
    case 2:
      return g_strdup_printf ("video/x-raw,width=%d,height=%d,"
          "pixel-aspect-ratio=%d/%d", fuzz_range (in, 1, MAX_SIDE),
          fuzz_range (in, 1, MAX_SIDE), fuzz_range (in, 1, 4),
          fuzz_range (in, 1, 4));
    default:
      return g_strdup_printf ("video/x-raw,height=%d",
          fuzz_range (in, 1, MAX_SIDE));
  }
}

static void
set_matrix (fuzz_input * in, GstElement * element)
{
  GValue array = G_VALUE_INIT, entry = G_VALUE_INIT;
  guint i, n = fuzz_u8 (in) < 230 ? 9 : fuzz_range (in, 0, 10);

  g_value_init (&array, GST_TYPE_ARRAY);
  g_value_init (&entry, G_TYPE_DOUBLE);
  for (i = 0; i < n; i++) {
    g_value_set_double (&entry, fuzz_u8 (in) < 128 ?
        (i % 4 == 0) + fuzz_range (in, -8, 8) / 64.0 : fuzz_double (in));
    gst_value_array_append_value (&array, &entry);
  }
  g_object_set_property (G_OBJECT (element), "matrix", &array);
  g_value_unset (&entry);
  g_value_unset (&array);
}

static void
set_property (fuzz_input * in, GstElement * e)
{
  switch (fuzz_u8 (in) % 20) {
    case 0:
      g_object_set (e, "method", fuzz_range (in, 0, 2), NULL);
      break;
    case 1:
      g_object_set (e, "order", fuzz_range (in, -1, 12), NULL);
      break;
    case 2:
      g_object_set (e, "bicubic-a", fuzz_double (in), NULL);
      break;
    case 3:
      g_object_set (e, "boundary", fuzz_range (in, 0, 5), NULL);
      break;
    case 4:
      g_object_set (e, "fill-color", (guint) fuzz_u32 (in), NULL);
      break;
    case 5:
      g_object_set (e, "precision", fuzz_range (in, 0, 3), NULL);
      break;
    case 6:
      g_object_set (e, "rotation", fuzz_double (in), NULL);
      break;
    case 7:
      g_object_set (e, "zoom", fuzz_double (in), NULL);
      break;
    case 8:
      g_object_set (e, "translate-x", fuzz_double (in), NULL);
      break;
    case 9:
      g_object_set (e, "translate-y", fuzz_double (in), NULL);
      break;
    case 10:
      g_object_set (e, "pivot-x", fuzz_double (in), NULL);
      break;
    case 11:
      g_object_set (e, "pivot-y", fuzz_double (in), NULL);
      break;
    case 12:
      set_matrix (in, e);
      break;
    case 13:
      g_object_set (e, "add-borders", fuzz_u8 (in) & 1, NULL);
      break;
    case 14:
      g_object_set (e, "antialias", fuzz_u8 (in) & 1, NULL);
      break;
    case 15:                   /* 0 = all cores; 2000 is out of range */
      g_object_set (e, "n-threads", (guint) (fuzz_u8 (in) < 250 ?
              fuzz_range (in, 0, 3) : 2000), NULL);
      break;
    case 16:
      g_object_set (e, "video-direction", fuzz_range (in, 0, 10), NULL);
      break;
    case 17:
      g_object_set (e, "defer", fuzz_u8 (in) & 1, NULL);
      break;
    case 18:
      g_object_set (e, "use-meta", fuzz_u8 (in) & 1, NULL);
      break;
    default:
      gst_util_set_object_arg (G_OBJECT (e), "matrix", "<>");
      break;
  }
}

/* A buffer for the negotiated input: the right size, or truncated, empty,
 * oversized, or with a video meta that may not fit it. */
static GstBuffer *
make_buffer (fuzz_input * in, const GstVideoInfo * info, guint64 n)
{
  gsize size = GST_VIDEO_INFO_SIZE (info);
  guint8 kind = fuzz_u8 (in);
  GstBuffer *buffer;

  if (kind >= 160 && kind < 200)
    size = size * fuzz_u8 (in) / 256;   /* truncated, maybe empty */
  else if (kind >= 200 && kind < 220)
    size += fuzz_range (in, 1, 4096);
  buffer = gst_buffer_new_allocate (NULL, size, NULL);
  if (size > 0)
    gst_buffer_memset (buffer, 0, fuzz_u8 (in), size);
  GST_BUFFER_PTS (buffer) = n * GST_SECOND / 30;
  GST_BUFFER_DURATION (buffer) = GST_SECOND / 30;
  /* interlacing flags, whatever the caps: a field, both, none */
  if (fuzz_u8 (in) < 96)
    GST_BUFFER_FLAG_SET (buffer, (GST_VIDEO_BUFFER_FLAG_INTERLACED |
            GST_VIDEO_BUFFER_FLAG_TFF | GST_VIDEO_BUFFER_FLAG_ONEFIELD) &
        ((guint) fuzz_u8 (in) << 20));
  /* a crop meta: of the caps' size at some offset, or any rectangle */
  if (fuzz_u8 (in) < 32) {
    GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta (buffer);

    crop->x = fuzz_range (in, 0, 8);
    crop->y = fuzz_range (in, 0, 8);
    crop->width = fuzz_u8 (in) < 128 ? (guint) GST_VIDEO_INFO_WIDTH (info) :
        (guint) fuzz_range (in, 0, MAX_SIDE + 8);
    crop->height = fuzz_u8 (in) < 128 ? (guint) GST_VIDEO_INFO_HEIGHT (info) :
        (guint) fuzz_range (in, 0, MAX_SIDE + 8);
  }
  /* a warp chain: of the caps' frame size or another, stages of any
   * matrix (the API refuses singular and non-finite ones) and lens stages
   * of any model and coefficients */
  if (fuzz_u8 (in) < 24) {
    GstBSplineChainMeta *chain = gst_buffer_add_bspline_chain_meta (buffer,
        fuzz_u8 (in) < 200 ? GST_VIDEO_INFO_WIDTH (info) :
        fuzz_range (in, 1, MAX_SIDE),
        fuzz_u8 (in) < 200 ? GST_VIDEO_INFO_HEIGHT (info) :
        fuzz_range (in, 1, MAX_SIDE));
    gint k, n_stages = fuzz_range (in, 0, 6);

    for (k = 0; k < n_stages; k++) {
      bspline_chain_stage stage;
      guint i;

      memset (&stage, 0, sizeof (stage));
      for (i = 0; i < 9; i++)
        stage.inverse[i] = fuzz_u8 (in) < 200 ? (i % 4 == 0) +
            fuzz_range (in, -8, 8) / 16.0 : fuzz_double (in);
      if (fuzz_u8 (in) < 64) {
        stage.lens.model = fuzz_range (in, 0, 4);
        for (i = 0; i < BSPLINE_LENS_MAX_COEFFS; i++)
          stage.lens.k[i] = fuzz_u8 (in) < 200 ?
              fuzz_range (in, -8, 8) / 64.0 : fuzz_double (in);
        for (i = 0; i < 9; i++)
          stage.lens.post[i] = fuzz_u8 (in) < 200 ? (i % 4 == 0) * 20.0 +
              fuzz_range (in, -8, 8) : fuzz_double (in);
      }
      gst_bspline_chain_meta_add_stage (chain, &stage);
    }
  }
  if (kind >= 220) {
    gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
    gint stride[GST_VIDEO_MAX_PLANES] = { 0 };
    guint p;

    for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
      offset[p] = GST_VIDEO_INFO_PLANE_OFFSET (info, p);
      stride[p] = GST_VIDEO_INFO_PLANE_STRIDE (info, p);
      if (fuzz_u8 (in) < 64)
        stride[p] = fuzz_range (in, -8, 256);
      if (fuzz_u8 (in) < 64)
        offset[p] = (gsize) fuzz_range (in, 0, 4 * (int) size + 64);
    }
    gst_buffer_add_video_meta_full (buffer, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info),
        offset, stride);
  }
  return buffer;
}

static void
pull_all (GstHarness * h)
{
  GstBuffer *out;

  while ((out = gst_harness_try_pull (h)) != NULL)
    gst_buffer_unref (out);
}

static void
push_segment (GstHarness * h)
{
  GstSegment segment;

  gst_segment_init (&segment, GST_FORMAT_TIME);
  gst_harness_push_event (h, gst_event_new_segment (&segment));
}

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  fuzz_input in;
  GstElement *element;
  GstHarness *h;
  GstVideoInfo info;
  gchar *caps, *sink_caps;
  guint64 n = 0;
  gint step;

  init_once ();
  fuzz_input_init (&in, data, size);

  element = gst_element_factory_make ("bsplinewarp", NULL);
  g_object_set (element, "backend", 1 /* cpu */ , "n-threads", 1, NULL);
  h = gst_harness_new_with_element (element, "sink", "src");
  gst_object_unref (element);
  /* downstream takes warp chains (defer=true defers) or not */
  if (fuzz_u8 (&in) & 1)
    gst_harness_add_propose_allocation_meta (h,
        GST_BSPLINE_CHAIN_META_API_TYPE, NULL);
  caps = pick_caps (&in, &info);
  sink_caps = pick_sink_caps (&in);
  gst_harness_set_sink_caps_str (h, sink_caps);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  g_free (sink_caps);

  for (step = 0; step < MAX_STEPS && fuzz_input_left (&in); step++) {
    guint8 op = fuzz_u8 (&in) % 16;

    if (op < 6) {
      gst_harness_push (h, make_buffer (&in, &info, n++));
      pull_all (h);
    } else if (op < 10) {
      set_property (&in, h->element);
    } else if (op == 10) {
      caps = pick_caps (&in, &info);
      gst_harness_set_src_caps_str (h, caps);
      g_free (caps);
    } else if (op == 11) {
      sink_caps = pick_sink_caps (&in);
      gst_harness_set_sink_caps_str (h, sink_caps);
      g_free (sink_caps);
    } else if (op == 12) {
      gst_harness_push_event (h, gst_event_new_flush_start ());
      gst_harness_push_event (h, gst_event_new_flush_stop (TRUE));
      push_segment (h);
      pull_all (h);
    } else if (op == 13) {
      gst_harness_push_event (h, gst_event_new_eos ());
      pull_all (h);
      gst_harness_push_event (h, gst_event_new_flush_start ());
      gst_harness_push_event (h, gst_event_new_flush_stop (TRUE));
      push_segment (h);
    } else if (op == 14) {
      GstQuery *drain = gst_query_new_drain ();

      gst_pad_peer_query (h->srcpad, drain);
      gst_query_unref (drain);
      pull_all (h);
    } else {
      /* a property change right between two buffers */
      set_property (&in, h->element);
      gst_harness_push (h, make_buffer (&in, &info, n++));
      pull_all (h);
    }
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  pull_all (h);
  gst_harness_teardown (h);
  return 0;
}
