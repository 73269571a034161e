/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstHarness tests of bsplinewarp on every raw format it takes (all of
 * videoscale 1.22's) and on interlaced video.
 *
 * Frames are made and read through GStreamer's own pack and unpack
 * functions (GstVideoFormatInfo), independently of the element's staging
 * (gst/gstbsplinelayout.c):
 *  - identity: every format resampled at the identity (rotation=360, not a
 *    passthrough) comes back sample for sample;
 *  - reference: every component of every format against the core engine in
 *    double precision, run here on that component's plane on its own grid
 *    (subsampling and chroma siting written out from the format's
 *    GstVideoFormatInfo), within one code value of the component's depth,
 *    for an upscale, a downscale, a rotation and a perspective;
 *  - interlaced frames (interleaved, mixed, alternate) whose fields differ:
 *    each output field is its input field resampled on the field's grid,
 *    checked against the reference of that field, and never a blend;
 *  - bad input: odd sizes of subsampled formats, a 1-pixel-wide YUY2,
 *    alternate buffers flagged as no field, crops through a crop meta.
 * Random inputs use a seed printed on failure. */
#include <math.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "backend-check.h"

#include "bspline.h"
#include "warp-common.h"
#include "formats-common.h"

/* Unpacked channel (0 alpha, 1-3) of component c. */
static gint
unpacked_channel (guint c)
{
  return c == GST_VIDEO_COMP_A ? 0 : (gint) c + 1;
}

/* The rows of field f of an interlaced frame of height rows, in a plane
 * subsampled 2^hs times: the field's own luma rows, subsampled. */
static gint
field_rows (gint height, gint hs, gint f)
{
  gint luma = (height - f + 1) / 2;

  return (luma + (1 << hs) - 1) >> hs;
}

/* The rows GStreamer's layout of info has for component c's plane: up to
 * the next plane, or the end (tiled formats: not asked). */
static gint
allocated_rows (const GstVideoInfo * info, guint c)
{
  guint p = GST_VIDEO_FORMAT_INFO_PLANE (info->finfo, c);
  gsize end = p + 1 < GST_VIDEO_INFO_N_PLANES (info) ?
      GST_VIDEO_INFO_PLANE_OFFSET (info, p + 1) : GST_VIDEO_INFO_SIZE (info);

  return (gint) ((end - GST_VIDEO_INFO_PLANE_OFFSET (info, p)) /
      (gsize) GST_VIDEO_INFO_PLANE_STRIDE (info, p));
}

/* The code values of component c of a frame, on its own plane (w x h
 * samples at its depth): sample (i, j) is read from the unpacked row and
 * pixel it covers first (GStreamer's unpack repeats a subsampled sample
 * over the pixels it covers). */
static guint16 *
component_plane (const GstVideoInfo * info, const guint16 * rows, guint c,
    gint * w, gint * h)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gint width = GST_VIDEO_INFO_WIDTH (info);
  gint ws = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c);
  gint hs = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c);
  gint shift = unpack_depth (finfo) - GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c);
  gint k = unpacked_channel (c), i, j;
  guint16 *plane;

  gboolean fields = pack_flags (info) == GST_VIDEO_PACK_FLAG_INTERLACED
      && hs > 0;

  *w = GST_VIDEO_INFO_COMP_WIDTH (info, c);
  *h = GST_VIDEO_INFO_COMP_HEIGHT (info, c);
  /* as many as GStreamer's layout has room for: 1.22 gives AV12, P010,
   * P012 and P016 a chroma row fewer (the next plane, or the end, is
   * there), and the element reads and writes the rows there are */
  if (fields)
    *h = MIN (field_rows (GST_VIDEO_INFO_HEIGHT (info), hs, 0)
        + field_rows (GST_VIDEO_INFO_HEIGHT (info), hs, 1),
        allocated_rows (info, c));
  plane = g_new (guint16, (gsize) * w * *h);
  for (j = 0; j < *h; j++) {
    /* interlaced 4:2:0 and 4:1:0: chroma rows alternate between the
     * fields, each field subsampling its own rows (video-format.c
     * GET_UV_420, GET_UV_410): chroma row j is first on luma row
     * 2 (j / 2) 2^hs + j % 2 */
    gsize y = fields ? (gsize) (j / 2) * (2 << hs) + j % 2 : (gsize) j << hs;

    for (i = 0; i < *w; i++)
      plane[(gsize) j * *w + i] = rows[(y * width + (i << ws)) * 4 + k]
          >> shift;
  }
  return plane;
}

/* Formats whose components are not what is compared: a palette (the
 * output is rounded to the palette's colours), or the tiled and 4:1:0
 * layouts whose chroma rows the unpack functions give per luma row
 * without the row above (checked by the identity test). */
static gboolean
format_compared_by_component (GstVideoFormat format)
{
  const GstVideoFormatInfo *finfo = gst_video_format_get_info (format);

  return !GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo);
}

/* ---- the reference ---- */

/* Every component of out against the core's double reference of the same
 * component of in (luma forward matrix `forward` between the frames, the
 * element's default parameters), at most one code value apart.  field:
 * -1 the whole frame; 0 or 1 the rows of that field of both frames; 2 or
 * 3 alternate-mode buffers of field 0 or 1; a field on the grid its rows
 * have (frame row 2 k + f). */
static gint
check_components (const gchar * what, const GstVideoInfo * in_info,
    GstBuffer * in, const GstVideoInfo * out_info, GstBuffer * out,
    GstVideoChromaSite site, const gdouble forward[9], gint field)
{
  const GstVideoFormatInfo *finfo = in_info->finfo;
  guint16 *in_rows = unpack_frame (in_info, in);
  guint16 *out_rows = unpack_frame (out_info, out);
  bspline_cpu *cpu = bspline_cpu_new (1);
  gint worst = 0;
  guint c;

  for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++) {
    gint ws = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c);
    gint hs = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c);
    gint bits = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c);
    gint sw, sh, dw, dh, x, y;
    guint16 *src_plane = component_plane (in_info, in_rows, c, &sw, &sh);
    guint16 *dst_plane = component_plane (out_info, out_rows, c, &dw, &dh);
    gint first_src = 0, first_dst = 0, step = 1;
    gdouble sub_x = 1 << ws, sub_y = 1 << hs, inverse[9], *ref_data;
    gdouble offset_x = ws && (site & GST_VIDEO_CHROMA_SITE_H_COSITED) ?
        0.5 - sub_x / 2 : 0.0;
    gdouble offset_y = hs && (site & GST_VIDEO_CHROMA_SITE_V_COSITED) ?
        0.5 - sub_y / 2 : 0.0;
    bspline_image src, ref;
    bspline_params params;
    bspline_plan *plan = NULL;
    gchar msg[256];

    if (field >= 0) {
      /* field f: row k at frame luma row 2 (sub_y (k + 0.5) + offset_y)
       * + f - 0.5; in an interlaced frame every other row of the plane,
       * in an alternate-mode buffer every row */
      gint f = field % 2;

      sub_y *= 2;
      offset_y = 2 * offset_y + f - 0.5;
      if (field < 2) {
        first_src = first_dst = f;
        step = 2;
        sh = (sh - f + 1) / 2;
        dh = (dh - f + 1) / 2;
      }
    }
    if (sh == 0 || dh == 0) {
      /* a field of no rows (a frame of one row): nothing to compare */
      g_free (src_plane);
      g_free (dst_plane);
      continue;
    }
    grid_inverse (forward, sub_x, offset_x, sub_y, offset_y, inverse);

    memset (&src, 0, sizeof (src));
    src.data = src_plane + (gsize) sw *first_src;
    src.stride = (ptrdiff_t) sw *2 * step;
    src.width = sw;
    src.height = sh;
    src.channels = 1;
    src.type = BSPLINE_SAMPLE_U16;
    src.bits = bits;
    default_params (&params);
    params.precision = BSPLINE_PRECISION_DOUBLE;
    fail_unless_equals_int (bspline_plan_new (&params, inverse, sw, sh, dw,
            dh, 1, &plan, msg, sizeof (msg)), BSPLINE_OK);
    ref = src;
    ref.type = BSPLINE_SAMPLE_F64;
    ref.width = dw;
    ref.height = dh;
    ref.stride = (ptrdiff_t) sizeof (gdouble) * dw;
    ref_data = g_new (gdouble, (gsize) dw * dh);
    ref.data = ref_data;
    fail_unless_equals_int (bspline_cpu_execute (cpu, plan, &src, &ref),
        BSPLINE_OK);

    for (y = 0; y < dh; y++)
      for (x = 0; x < dw; x++) {
        gdouble r = ref_data[(gsize) y * dw + x];
        gint expect = (gint) CLAMP (floor (r + 0.5), 0, (1 << bits) - 1);
        gint got = dst_plane[(gsize) (first_dst + y * step) * dw + x];

        worst = MAX (worst, ABS (got - expect));
        if (ABS (got - expect) > 1)
          fail ("%s %s: component %u (%d, %d)%s: element %d, reference %.3f "
              "(seed %u)", what, GST_VIDEO_INFO_NAME (in_info), c, x,
              first_dst + y * step, field >= 0 ? " of a field" : "", got, r,
              test_seed);
      }
    bspline_plan_free (plan);
    g_free (ref_data);
    g_free (src_plane);
    g_free (dst_plane);
  }
  bspline_cpu_free (cpu);
  g_free (in_rows);
  g_free (out_rows);
  return worst;
}

/* One frame of format through the element with a property set, into
 * out_w x out_h; the output (caps in out_info). */
static GstBuffer *
run_element (const gchar * in_caps, const gchar * out_caps,
    const gchar * property, const gchar * value, GstBuffer * in,
    GstVideoInfo * out_info)
{
  GstHarness *h = harness_new (in_caps, out_caps);
  GstBuffer *out;
  GstCaps *caps;

  /* the reference maps the input onto the whole output */
  g_object_set (h->element, "add-borders", FALSE, NULL);
  if (property)
    gst_util_set_object_arg (G_OBJECT (h->element), property, value);
  out = push_pull (h, in);
  fail_unless (out != NULL);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_video_info_from_caps (out_info, caps));
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  return out;
}

/* ---- every format ---- */

GST_START_TEST (test_identity_every_format)
{
  GPtrArray *names = every_format ();
  GRand *rand = seeded_rand ();
  guint i;

  fail_unless (names->len >= 100, "%u formats", names->len);
  for (i = 0; i < names->len; i++) {
    const gchar *format = g_ptr_array_index (names, i);
    gchar *caps_str = g_strdup_printf ("video/x-raw,format=%s,width=35,"
        "height=22,framerate=30/1", format);
    GstVideoInfo info, out_info;
    GstBuffer *in, *out;
    guint16 *a, *b;
    gsize n;

    info_from_string (&info, caps_str);
    in = random_frame (&info, rand);
    out = run_element (caps_str, caps_str, "rotation", "1e-7", in, &out_info);
    fail_unless (out != in, "%s: passed through", format);
    a = unpack_frame (&info, in);
    b = unpack_frame (&out_info, out);
    n = (gsize) GST_VIDEO_INFO_WIDTH (&info) * 4 * frame_rows (&info);
    fail_unless (memcmp (a, b, n * sizeof (guint16)) == 0,
        "%s: the identity changed the frame (seed %u)", format, test_seed);
    g_free (a);
    g_free (b);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    g_free (caps_str);
  }
  g_ptr_array_unref (names);
  g_rand_free (rand);
}

GST_END_TEST;

/* One case of test_reference_every_format. */
static void
reference_case (const gchar * what, const gchar * format, gint in_w,
    gint in_h, gint out_w, gint out_h, const gchar * site,
    const gchar * property, const gchar * value, const gdouble forward[9],
    GRand * rand)
{
  gchar *in_caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
      "height=%d,framerate=30/1,pixel-aspect-ratio=1/1,chroma-site=%s",
      format, in_w, in_h, site);
  gchar *out_caps = g_strdup_printf ("video/x-raw,width=%d,height=%d,"
      "pixel-aspect-ratio=1/1", out_w, out_h);
  GstVideoInfo in_info, out_info;
  GstBuffer *in, *out;

  info_from_string (&in_info, in_caps);
  in = random_frame (&in_info, rand);
  out = run_element (in_caps, out_caps, property, value, in, &out_info);
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&out_info), out_w);
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&out_info), out_h);
  fail_unless_equals_string (GST_VIDEO_INFO_NAME (&out_info), format);
  check_components (what, &in_info, in, &out_info, out,
      gst_video_chroma_site_from_string (site), forward, -1);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  g_free (in_caps);
  g_free (out_caps);
}

GST_START_TEST (test_reference_every_format)
{
  const gdouble perspective[9] = { 1.05, 0.08, -2.0, -0.05, 0.95, 1.5,
    0.002, -0.0015, 1.0
  };
  GPtrArray *names = every_format ();
  GRand *rand = seeded_rand ();
  gdouble rad = 23.0 * G_PI / 180.0, forward[9], a[9], s[9];
  guint i;

  for (i = 0; i < names->len; i++) {
    const gchar *f = g_ptr_array_index (names, i);

    if (!format_compared_by_component (gst_video_format_from_string (f)))
      continue;
    matrix_set (forward, 80.0 / 45, 0, 0, 0, 60.0 / 32, 0, 0, 0, 1);
    reference_case ("upscale", f, 45, 32, 80, 60, "mpeg2", NULL, NULL,
        forward, rand);
    matrix_set (forward, 40.0 / 64, 0, 0, 0, 30.0 / 48, 0, 0, 0, 1);
    reference_case ("downscale", f, 64, 48, 40, 30, "jpeg", NULL, NULL,
        forward, rand);
    matrix_set (a, cos (rad), -sin (rad), 0, sin (rad), cos (rad), 0, 0, 0, 1);
    matrix_set (s, 1, 0, 0, 0, 1, 0, 0, 0, 1);
    forward_about_pivot (a, 24, 18, s, forward);
    reference_case ("rotation", f, 48, 36, 48, 36, "mpeg2", "rotation", "23",
        forward, rand);
    matrix_set (s, 2, 0, 0, 0, 2, 0, 0, 0, 1);
    forward_about_pivot (perspective, 24, 20, s, forward);
    reference_case ("perspective", f, 24, 20, 48, 40, "jpeg", "matrix",
        PERSPECTIVE, forward, rand);
  }
  g_ptr_array_unref (names);
  g_rand_free (rand);
}

GST_END_TEST;


/* ---- interlaced video ---- */

#define INTERLACED_FORMATS { "I420", "NV12", "YUY2", "v210", "RGBA", \
    "P010_10BE" }

/* An interlaced frame of format (fields of different random content)
 * through the element in mode (interleaved or mixed, the buffer flagged
 * interlaced), rotated and scaled 48x32 -> 40x24: each output field is
 * the reference of the same input field, and the flags stay. */
static void
interlaced_case (const gchar * format, const gchar * mode, GRand * rand)
{
  gchar *in_caps = g_strdup_printf ("video/x-raw,format=%s,width=48,"
      "height=32,framerate=30/1,pixel-aspect-ratio=1/1,chroma-site=mpeg2,"
      "interlace-mode=%s,field-order=top-field-first", format, mode);
  gchar *out_caps = g_strdup_printf ("video/x-raw,width=40,height=24,"
      "pixel-aspect-ratio=1/1");
  GstBufferFlags flags = GST_VIDEO_BUFFER_FLAG_INTERLACED |
      GST_VIDEO_BUFFER_FLAG_TFF;
  gdouble rad = 7.0 * G_PI / 180.0, forward[9], a[9], s[9];
  GstVideoInfo in_info, out_info;
  GstBuffer *in, *out;
  gint f;

  info_from_string (&in_info, in_caps);
  in = random_frame (&in_info, rand);
  GST_BUFFER_FLAG_SET (in, flags);
  matrix_set (a, cos (rad), -sin (rad), 0, sin (rad), cos (rad), 0, 0, 0, 1);
  matrix_set (s, 40.0 / 48, 0, 0, 0, 24.0 / 32, 0, 0, 0, 1);
  forward_about_pivot (a, 20, 12, s, forward);
  out = run_element (in_caps, out_caps, "rotation", "7", in, &out_info);
  fail_unless_equals_int (GST_VIDEO_INFO_INTERLACE_MODE (&out_info),
      GST_VIDEO_INFO_INTERLACE_MODE (&in_info));
  fail_unless ((GST_BUFFER_FLAGS (out) & flags) == flags, "%s %s: flags",
      format, mode);
  for (f = 0; f < 2; f++)
    check_components (mode, &in_info, in, &out_info, out,
        GST_VIDEO_CHROMA_SITE_MPEG2, forward, f);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  g_free (in_caps);
  g_free (out_caps);
}

GST_START_TEST (test_interlaced)
{
  const gchar *formats[] = INTERLACED_FORMATS;
  GRand *rand = seeded_rand ();
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    interlaced_case (formats[i], "interleaved", rand);
    interlaced_case (formats[i], "mixed", rand);
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* One case of test_interlaced_heights: a frame of format, 24 x in_h, in
 * mode (interleaved, or mixed: an interlaced frame, then a progressive
 * one, as a telecined stream switches), scaled to 18 x out_h.  The
 * output has videoscale's caps and size, and each field is the double
 * reference of the same input field on the field's grid (the top field
 * has a row more at odd heights; an output field of no rows is none). */
static void
interlaced_height_case (const gchar * format, const gchar * mode, gint in_h,
    gint out_h, gboolean videoscale, GRand * rand)
{
  gchar *in_caps = g_strdup_printf ("video/x-raw,format=%s,width=24,"
      "height=%d,framerate=30/1,pixel-aspect-ratio=1/1,chroma-site=mpeg2,"
      "interlace-mode=%s,field-order=top-field-first", format, in_h, mode);
  gchar *out_caps = g_strdup_printf ("video/x-raw,width=18,height=%d,"
      "pixel-aspect-ratio=1/1", out_h);
  GstBufferFlags flags = GST_VIDEO_BUFFER_FLAG_INTERLACED |
      GST_VIDEO_BUFFER_FLAG_TFF;
  gboolean mixed = g_str_equal (mode, "mixed");
  GstHarness *h = harness_new (in_caps, out_caps);
  GstVideoInfo in_info, out_info, fields_in, fields_out;
  GstBuffer *in, *out;
  GstCaps *caps;
  gchar *what;
  gdouble forward[9];
  gint f;

  matrix_set (forward, 18.0 / 24, 0, 0, 0, (gdouble) out_h / in_h, 0, 0, 0, 1);
  g_object_set (h->element, "add-borders", FALSE, NULL);
  info_from_string (&in_info, in_caps);
  /* frames flagged interlaced are laid out as interleaved ones */
  fields_in = in_info;
  GST_VIDEO_INFO_INTERLACE_MODE (&fields_in) =
      GST_VIDEO_INTERLACE_MODE_INTERLEAVED;
  in = random_frame (&fields_in, rand);
  GST_BUFFER_FLAG_SET (in, flags);
  out = push_pull (h, in);
  fail_unless (out != NULL, "%s %s %d -> %d: no output", format, mode, in_h,
      out_h);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_video_info_from_caps (&out_info, caps));
  fail_unless_equals_int (GST_VIDEO_INFO_INTERLACE_MODE (&out_info),
      GST_VIDEO_INFO_INTERLACE_MODE (&in_info));
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&out_info), out_h);
  fields_out = out_info;
  GST_VIDEO_INFO_INTERLACE_MODE (&fields_out) =
      GST_VIDEO_INTERLACE_MODE_INTERLEAVED;
  /* videoscale's caps for the same input, negotiated by the caps event
   * (no frame through it: 1.22 asserts in resampler_zip for some formats
   * at these heights, and writes past AV12 and P0xx planes, valgrind
   * shows), and the size of a frame of them */
  if (videoscale && !(GST_VIDEO_FORMAT_INFO_H_SUB (in_info.finfo, 1) == 2
          && in_h == 10)) {
    GstHarness *vs = gst_harness_new ("videoscale");
    GstVideoInfo vs_info;
    GstCaps *vs_caps;

    gst_harness_set_sink_caps_str (vs, out_caps);
    gst_harness_set_src_caps_str (vs, in_caps);
    vs_caps = gst_pad_get_current_caps (vs->sinkpad);
    fail_unless (vs_caps != NULL);
    fail_unless (gst_video_info_from_caps (&vs_info, vs_caps));
    if (!gst_caps_is_equal (caps, vs_caps)) {
      gchar *a = gst_caps_to_string (caps), *b = gst_caps_to_string (vs_caps);

      fail ("%s %s %d -> %d: caps %s, videoscale's %s", format, mode, in_h,
          out_h, a, b);
    }
    fail_unless (gst_buffer_get_size (out) == GST_VIDEO_INFO_SIZE (&vs_info),
        "%s %s %d -> %d: %" G_GSIZE_FORMAT " bytes, videoscale's %"
        G_GSIZE_FORMAT, format, mode, in_h, out_h,
        gst_buffer_get_size (out), GST_VIDEO_INFO_SIZE (&vs_info));
    gst_caps_unref (vs_caps);
    gst_harness_teardown (vs);
  }
  fail_unless ((GST_BUFFER_FLAGS (out) & flags) == flags);
  what = g_strdup_printf ("%s %d -> %d", mode, in_h, out_h);
  for (f = 0; f < 2 && in_h > 1; f++)
    check_components (what, &fields_in, in, &fields_out, out,
        GST_VIDEO_CHROMA_SITE_MPEG2, forward, f);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  if (mixed) {
    /* the next frame progressive: one picture */
    in = random_frame (&in_info, rand);
    out = push_pull (h, in);
    fail_unless (out != NULL);
    fail_if (GST_BUFFER_FLAG_IS_SET (out, GST_VIDEO_BUFFER_FLAG_INTERLACED));
    check_components (what, &in_info, in, &out_info, out,
        GST_VIDEO_CHROMA_SITE_MPEG2, forward, -1);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
  }
  g_free (what);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  g_free (in_caps);
  g_free (out_caps);
}

/* Every format at odd and small heights, interleaved and mixed: fields of
 * unequal rows (odd heights), chroma fields of unequal rows (4:2:0 at
 * heights that are not multiples of 4), one row. */
GST_START_TEST (test_interlaced_heights)
{
  /* in_h, out_h, and whether videoscale is asked: 1.22's asserts when it
   * configures (gst_video_resampler_init: out_size != 0) where a field of
   * a plane has no rows (4:2:0 chroma of 2 rows, a frame of 1 row), and
   * for 4:1:0 at 10 -> 6 (resampler_zip: its fields' chroma of 2 and 1
   * rows into 1 and 1 get different tap counts) */
  static const gint heights[][3] = { {13, 7, TRUE}, {10, 6, TRUE},
  {5, 2, FALSE}, {1, 3, FALSE}, {2, 1, FALSE}
  };
  const gchar *one_row[] = INTERLACED_FORMATS;
  GPtrArray *names = every_format ();
  GRand *rand = seeded_rand ();
  guint i, k;

  for (i = 0; i < names->len; i++) {
    const gchar *f = g_ptr_array_index (names, i);
    /* frames of one row (the last two cases): the formats of
     * test_interlaced only, to keep the test short */
    guint n_heights = G_N_ELEMENTS (heights) - 2;

    if (!format_compared_by_component (gst_video_format_from_string (f)))
      continue;
    for (k = 0; k < G_N_ELEMENTS (one_row); k++)
      if (g_str_equal (f, one_row[k]))
        n_heights = G_N_ELEMENTS (heights);
    for (k = 0; k < n_heights; k++) {
      interlaced_height_case (f, "interleaved", heights[k][0], heights[k][1],
          heights[k][2], rand);
      interlaced_height_case (f, "mixed", heights[k][0], heights[k][1],
          heights[k][2], rand);
    }
  }
  g_ptr_array_unref (names);
  g_rand_free (rand);
}

GST_END_TEST;

/* A mixed stream's progressive frame (not flagged interlaced) is one
 * picture: the reference of the whole frame. */
GST_START_TEST (test_mixed_progressive_frame)
{
  const gchar *in_caps = "video/x-raw,format=I420,width=48,height=32,"
      "framerate=30/1,pixel-aspect-ratio=1/1,chroma-site=mpeg2,"
      "interlace-mode=mixed";
  GRand *rand = seeded_rand ();
  GstVideoInfo in_info, out_info;
  gdouble forward[9];
  GstBuffer *in, *out;

  info_from_string (&in_info, in_caps);
  in = random_frame (&in_info, rand);
  matrix_set (forward, 40.0 / 48, 0, 0, 0, 24.0 / 32, 0, 0, 0, 1);
  out = run_element (in_caps, "video/x-raw,width=40,height=24", NULL, NULL,
      in, &out_info);
  check_components ("mixed, progressive frame", &in_info, in, &out_info, out,
      GST_VIDEO_CHROMA_SITE_MPEG2, forward, -1);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  g_rand_free (rand);
}

GST_END_TEST;

/* Alternate mode: each buffer one field, resampled on its field's grid;
 * a buffer flagged as neither field is taken as the top field, with one
 * warning. */
GST_START_TEST (test_alternate)
{
  const gchar *formats[] = INTERLACED_FORMATS;
  GRand *rand = seeded_rand ();
  gdouble rad = 7.0 * G_PI / 180.0, forward[9], a[9], s[9];
  guint i, f;

  matrix_set (a, cos (rad), -sin (rad), 0, sin (rad), cos (rad), 0, 0, 0, 1);
  matrix_set (s, 40.0 / 48, 0, 0, 0, 24.0 / 32, 0, 0, 0, 1);
  forward_about_pivot (a, 20, 12, s, forward);
  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    gchar *in_caps = g_strdup_printf ("video/x-raw(format:Interlaced),"
        "format=%s,width=48,height=32,framerate=30/1,pixel-aspect-ratio=1/1,"
        "chroma-site=mpeg2,interlace-mode=alternate", formats[i]);
    const gchar *out_caps = "video/x-raw(format:Interlaced),width=40,"
        "height=24,pixel-aspect-ratio=1/1";
    GstVideoInfo in_info, out_info;

    info_from_string (&in_info, in_caps);
    for (f = 0; f < 3; f++) {
      GstBuffer *in = random_frame (&in_info, rand), *out;
      GstBus *bus = gst_bus_new ();
      GstHarness *h = harness_new (in_caps, out_caps);
      GstMessage *msg;
      GstCaps *caps;

      gst_element_set_bus (h->element, bus);
      g_object_set (h->element, "add-borders", FALSE, "rotation", 7.0, NULL);
      if (f == 0)
        GST_BUFFER_FLAG_SET (in, GST_VIDEO_BUFFER_FLAG_TOP_FIELD);
      else if (f == 1)
        GST_BUFFER_FLAG_SET (in, GST_VIDEO_BUFFER_FLAG_BOTTOM_FIELD);
      out = push_pull (h, in);
      caps = gst_pad_get_current_caps (h->sinkpad);
      fail_unless (gst_video_info_from_caps (&out_info, caps));
      gst_caps_unref (caps);
      fail_unless_equals_int (GST_VIDEO_INFO_INTERLACE_MODE (&out_info),
          GST_VIDEO_INTERLACE_MODE_ALTERNATE);
      /* no flag: the top field's grid */
      check_components ("alternate", &in_info, in, &out_info, out,
          GST_VIDEO_CHROMA_SITE_MPEG2, forward, 2 + (f == 1));
      msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
      fail_unless ((msg != NULL) == (f == 2), "%s field %u: %s warning",
          formats[i], f, msg ? "a" : "no");
      if (msg)
        gst_message_unref (msg);
      gst_element_set_bus (h->element, NULL);
      gst_object_unref (bus);
      gst_harness_teardown (h);
      gst_buffer_unref (in);
      gst_buffer_unref (out);
    }
    g_free (in_caps);
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* ---- sizes and crops ---- */

/* Odd sizes of subsampled formats and 1-pixel-wide frames, against the
 * reference. */
GST_START_TEST (test_odd_sizes)
{
  const struct
  {
    const gchar *format;
    gint in_w, in_h, out_w, out_h;
  } cases[] = {
    {"I420", 641, 481, 320, 240}, {"I420", 320, 240, 641, 481},
    {"YUY2", 1, 16, 3, 20}, {"YUY2", 1, 1, 5, 4}, {"YUY2", 3, 5, 1, 1},
    {"UYVY", 1, 9, 2, 9}, {"v210", 1, 7, 7, 3}, {"NV12", 1, 1, 5, 5},
    {"P010_10BE", 3, 3, 1, 8}, {"IYU1", 5, 3, 9, 2}, {"Y41B", 5, 3, 9, 2},
  };
  GRand *rand = seeded_rand ();
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gdouble forward[9];

    matrix_set (forward, (gdouble) cases[i].out_w / cases[i].in_w, 0, 0, 0,
        (gdouble) cases[i].out_h / cases[i].in_h, 0, 0, 0, 1);
    reference_case ("odd size", cases[i].format, cases[i].in_w,
        cases[i].in_h, cases[i].out_w, cases[i].out_h, "mpeg2", NULL, NULL,
        forward, rand);
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* A frame of info cut from the rows of a bigger frame at (x, y). */
static GstBuffer *
cut_frame (const GstVideoInfo * full, const guint16 * rows,
    const GstVideoInfo * info, gint x0, gint y0)
{
  gint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  gint fw = GST_VIDEO_INFO_WIDTH (full), y;
  guint16 *cut = g_new (guint16, (gsize) w * h * 4);
  GstBuffer *buffer;

  for (y = 0; y < h; y++)
    memcpy (cut + (gsize) y * w * 4, rows + ((gsize) (y + y0) * fw + x0) * 4,
        (gsize) w * 4 * sizeof (guint16));
  buffer = pack_frame (info, cut);
  g_free (cut);
  return buffer;
}

/* A crop meta is folded into the planes: the same output as the frame cut
 * out; a crop of another size than the caps is an error. */
GST_START_TEST (test_crop_meta)
{
  const struct
  {
    const gchar *format;
    gint x, y;
  } cases[] = {
    {"RGBA", 5, 3}, {"GRAY16_LE", 7, 1}, {"I420", 6, 4}, {"YUY2", 4, 3},
    {"v210", 6, 5}, {"NV12", 0, 2},
  };
  GRand *rand = seeded_rand ();
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *full_caps = g_strdup_printf ("video/x-raw,format=%s,width=64,"
        "height=48,framerate=30/1", cases[i].format);
    gchar *crop_caps = g_strdup_printf ("video/x-raw,format=%s,width=40,"
        "height=30,framerate=30/1", cases[i].format);
    GstVideoInfo full, crop, out_info;
    GstBuffer *in, *cut, *out_crop, *out_cut;
    GstVideoCropMeta *meta;
    guint16 *rows, *a, *b;

    info_from_string (&full, full_caps);
    info_from_string (&crop, crop_caps);
    in = random_frame (&full, rand);
    gst_buffer_add_video_meta_full (in, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (&full), 64, 48, GST_VIDEO_INFO_N_PLANES (&full),
        full.offset, full.stride);
    meta = gst_buffer_add_video_crop_meta (in);
    meta->x = cases[i].x;
    meta->y = cases[i].y;
    meta->width = 40;
    meta->height = 30;
    rows = unpack_frame (&full, in);
    cut = cut_frame (&full, rows, &crop, cases[i].x, cases[i].y);

    out_crop = run_element (crop_caps, "video/x-raw,width=40,height=30",
        "rotation", "10", in, &out_info);
    out_cut = run_element (crop_caps, "video/x-raw,width=40,height=30",
        "rotation", "10", cut, &out_info);
    /* the crop is done: no crop meta goes on, rotated or scaled */
    fail_unless (gst_buffer_get_video_crop_meta (out_crop) == NULL,
        "%s: the output still carries the crop meta", cases[i].format);
    {
      GstVideoInfo scaled_info;
      GstBuffer *scaled = run_element (crop_caps,
          "video/x-raw,width=80,height=60", NULL, NULL, in, &scaled_info);

      fail_unless (gst_buffer_get_video_crop_meta (scaled) == NULL,
          "%s: the scaled output still carries the crop meta", cases[i].format);
      gst_buffer_unref (scaled);
    }
    /* every sample (the rows' padding, e.g. v210's, is not written) */
    a = unpack_frame (&out_info, out_crop);
    b = unpack_frame (&out_info, out_cut);
    fail_unless (memcmp (a, b, (gsize) 40 * 30 * 4 * sizeof (guint16)) == 0,
        "%s: the crop meta's output differs from the cut frame's (seed %u)",
        cases[i].format, test_seed);
    g_free (a);
    g_free (b);

    /* a video meta of a bigger frame than the buffer holds, cropped at
     * its far corner: an error before a byte is read */
    {
      GstBuffer *small = random_frame (&crop, rand);
      GstHarness *h = harness_new (crop_caps, "video/x-raw,width=40,"
          "height=30");
      GstVideoCropMeta *far;

      gst_buffer_add_video_meta_full (small, GST_VIDEO_FRAME_FLAG_NONE,
          GST_VIDEO_INFO_FORMAT (&full), 64, 48,
          GST_VIDEO_INFO_N_PLANES (&full), full.offset, full.stride);
      far = gst_buffer_add_video_crop_meta (small);
      far->x = 24;
      far->y = 18;
      far->width = 40;
      far->height = 30;
      g_object_set (h->element, "rotation", 10.0, NULL);
      fail_unless_equals_int (gst_harness_push (h, small), GST_FLOW_ERROR);
      gst_harness_teardown (h);
    }

    /* a crop that is not the caps' size: an error, no frame */
    meta->width = 39;
    {
      GstHarness *h = harness_new (crop_caps, "video/x-raw,width=40,"
          "height=30");

      g_object_set (h->element, "rotation", 10.0, NULL);
      fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
          GST_FLOW_ERROR);
      gst_harness_teardown (h);
    }

    g_free (rows);
    gst_buffer_unref (in);
    gst_buffer_unref (cut);
    gst_buffer_unref (out_crop);
    gst_buffer_unref (out_cut);
    g_free (full_caps);
    g_free (crop_caps);
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* The crop meta is proposed upstream when the element resamples. */
GST_START_TEST (test_crop_meta_proposed)
{
  GstHarness *h = harness_new ("video/x-raw,format=I420,width=64,height=48,"
      "framerate=30/1", "video/x-raw,width=32,height=24");
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=I420,width=64,"
      "height=48,framerate=30/1");
  GstQuery *query;

  gst_harness_play (h);
  gst_harness_push (h, gst_buffer_new_allocate (NULL, 64 * 48 * 3 / 2, NULL));
  gst_buffer_unref (drain_and_pull (h));
  query = gst_query_new_allocation (caps, TRUE);
  fail_unless (gst_pad_peer_query (h->srcpad, query));
  fail_unless (gst_query_find_allocation_meta (query,
          GST_VIDEO_CROP_META_API_TYPE, NULL));
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
formats_suite (void)
{
  Suite *s = suite_create ("formats");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_identity_every_format);
  tcase_add_test (tc, test_reference_every_format);
  tcase_add_test (tc, test_interlaced);
  tcase_add_test (tc, test_interlaced_heights);
  tcase_add_test (tc, test_mixed_progressive_frame);
  tcase_add_test (tc, test_alternate);
  tcase_add_test (tc, test_odd_sizes);
  tcase_add_test (tc, test_crop_meta);
  tcase_add_test (tc, test_crop_meta_proposed);
  return s;
}

int
main (int argc, char **argv)
{
  return run_bsplinewarp_suite (&argc, &argv, formats_suite, "formats",
      __FILE__);
}
