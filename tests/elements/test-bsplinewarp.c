/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstHarness tests of the bsplinewarp element.
 *
 * The reference for every resampled frame is the core engine run in double
 * precision on the same input planes (plans built here, from matrices
 * written here from the geometry contract, not from core/geometry/geometry.c),
 * rounded to the format's code values; the element (float) must agree
 * within one code value.  Siting, borders, fill colours, video-direction
 * and the controller are checked against facts that do not come from the
 * engine at all: linear ramps, integer shifts, exact colour values and
 * videoflip.  Random inputs use a seed printed on failure.
 */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/controller/controller.h>
#include <gst/video/video.h>

#include "bspline.h"
#include "warp-common.h"
#include "backend-check.h"

/* ---- the formats, written out (not derived from GstVideoFormatInfo) ---- */

typedef struct
{
  gint channels, bits, shift, log2_sub_x, log2_sub_y;
} PlaneLayout;

typedef struct
{
  const gchar *name;
  gint n_planes;
  PlaneLayout plane[4];
} FormatLayout;

#define P8 {1, 8, 0, 0, 0}
#define C420_8 {1, 8, 0, 1, 1}
#define C422_8 {1, 8, 0, 1, 0}

static const FormatLayout formats[] = {
  {"GRAY8", 1, {P8}},
  {"GRAY16_LE", 1, {{1, 16, 0, 0, 0}}},
  {"RGBA", 1, {{4, 8, 0, 0, 0}}},
  {"BGRA", 1, {{4, 8, 0, 0, 0}}},
  {"ARGB", 1, {{4, 8, 0, 0, 0}}},
  {"ABGR", 1, {{4, 8, 0, 0, 0}}},
  {"RGBx", 1, {{4, 8, 0, 0, 0}}},
  {"BGRx", 1, {{4, 8, 0, 0, 0}}},
  {"xRGB", 1, {{4, 8, 0, 0, 0}}},
  {"xBGR", 1, {{4, 8, 0, 0, 0}}},
  {"RGB", 1, {{3, 8, 0, 0, 0}}},
  {"BGR", 1, {{3, 8, 0, 0, 0}}},
  {"I420", 3, {P8, C420_8, C420_8}},
  {"YV12", 3, {P8, C420_8, C420_8}},
  {"NV12", 2, {P8, {2, 8, 0, 1, 1}}},
  {"NV21", 2, {P8, {2, 8, 0, 1, 1}}},
  {"Y42B", 3, {P8, C422_8, C422_8}},
  {"Y444", 3, {P8, P8, P8}},
  {"I420_10LE", 3, {{1, 10, 0, 0, 0}, {1, 10, 0, 1, 1}, {1, 10, 0, 1, 1}}},
  {"I422_10LE", 3, {{1, 10, 0, 0, 0}, {1, 10, 0, 1, 0}, {1, 10, 0, 1, 0}}},
  {"P010_10LE", 2, {{1, 10, 6, 0, 0}, {2, 10, 6, 1, 1}}},
  {"Y444_16LE", 3, {{1, 16, 0, 0, 0}, {1, 16, 0, 0, 0}, {1, 16, 0, 0, 0}}},
  {"GBR", 3, {P8, P8, P8}},
  {"GBRA", 4, {P8, P8, P8, P8}},
};

static const FormatLayout *
format_layout (const gchar * name)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++)
    if (strcmp (formats[i].name, name) == 0)
      return &formats[i];
  g_assert_not_reached ();
  return NULL;
}

/* ---- frames ---- */

static GstBuffer *
random_frame (const GstVideoInfo * info, const FormatLayout * layout,
    GRand * rand)
{
  GstBuffer *buffer = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame frame;
  gint p, x, y;

  gst_buffer_add_video_meta_full (buffer, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info),
      (gsize *) info->offset, (gint *) info->stride);
  fail_unless (gst_video_frame_map (&frame, info, buffer, GST_MAP_WRITE));
  for (p = 0; p < layout->n_planes; p++) {
    const PlaneLayout *pl = &layout->plane[p];
    guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);
    gint w = (GST_VIDEO_INFO_WIDTH (info) + (1 << pl->log2_sub_x) - 1)
        >> pl->log2_sub_x;
    gint h = (GST_VIDEO_INFO_HEIGHT (info) + (1 << pl->log2_sub_y) - 1)
        >> pl->log2_sub_y;
    for (y = 0; y < h; y++)
      for (x = 0; x < w * pl->channels; x++) {
        guint32 v = g_rand_int_range (rand, 0, 1 << pl->bits);

        if (pl->bits > 8)
          ((guint16 *) (data + y * stride))[x] = v << pl->shift;
        else
          (data + y * stride)[x] = v;
      }
  }
  gst_video_frame_unmap (&frame);
  return buffer;
}

static void
plane_image (GstVideoFrame * frame, const FormatLayout * layout, gint p,
    bspline_image * image)
{
  const PlaneLayout *pl = &layout->plane[p];

  memset (image, 0, sizeof (*image));
  image->data = GST_VIDEO_FRAME_PLANE_DATA (frame, p);
  image->stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
  image->width = (GST_VIDEO_FRAME_WIDTH (frame) + (1 << pl->log2_sub_x) - 1)
      >> pl->log2_sub_x;
  image->height = (GST_VIDEO_FRAME_HEIGHT (frame) + (1 << pl->log2_sub_y)
      - 1) >> pl->log2_sub_y;
  image->channels = pl->channels;
  image->type = pl->bits > 8 ? BSPLINE_SAMPLE_U16 : BSPLINE_SAMPLE_U8;
  image->bits = pl->bits;
  image->shift = pl->shift;
}

static gint
sample_at (const bspline_image * image, gint x, gint y, gint c)
{
  const guint8 *row = (const guint8 *) image->data + y * image->stride;

  if (image->type == BSPLINE_SAMPLE_U16)
    return ((const guint16 *) row)[x * image->channels + c] >> image->shift;
  return row[x * image->channels + c];
}

/* Compares every plane of out with the core's double reference computed
 * from in with the given luma forward matrix, chroma-site (a caps string,
 * may be NULL) and element parameters. */
static void
check_against_reference (const gchar * what, GstBuffer * in,
    const GstVideoInfo * in_info, const gchar * chroma_site, GstBuffer * out,
    const GstVideoInfo * out_info, const gdouble forward[9],
    const bspline_params * element_params)
{
  const FormatLayout *layout = format_layout (GST_VIDEO_INFO_NAME (in_info));
  /* from the caps string: GStreamer 1.22's GstVideoInfo drops chroma-site
   * when the caps have no colorimetry */
  GstVideoChromaSite site = chroma_site ?
      gst_video_chroma_site_from_string (chroma_site) :
      GST_VIDEO_CHROMA_SITE_UNKNOWN;
  GstVideoFrame in_frame, out_frame;
  bspline_cpu *cpu = bspline_cpu_new (0);
  gint p, worst = 0;

  fail_unless (cpu != NULL);
  fail_unless (gst_video_frame_map (&in_frame, in_info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&out_frame, out_info, out, GST_MAP_READ));

  for (p = 0; p < layout->n_planes; p++) {
    const PlaneLayout *pl = &layout->plane[p];
    bspline_image src, dst, ref;
    bspline_params params = *element_params;
    bspline_plan *plan = NULL;
    gdouble inverse[9], *ref_data;
    gchar msg[256];
    gint x, y, c;

    plane_image (&in_frame, layout, p, &src);
    plane_image (&out_frame, layout, p, &dst);
    plane_inverse (forward, 1 << pl->log2_sub_x, 1 << pl->log2_sub_y,
        pl->log2_sub_x && (site & GST_VIDEO_CHROMA_SITE_H_COSITED),
        pl->log2_sub_y && (site & GST_VIDEO_CHROMA_SITE_V_COSITED), inverse);
    params.precision = BSPLINE_PRECISION_DOUBLE;
    fail_unless_equals_int (bspline_plan_new (&params, inverse, src.width,
            src.height, dst.width, dst.height, src.channels, &plan, msg,
            sizeof (msg)), BSPLINE_OK);

    ref = dst;
    ref.type = BSPLINE_SAMPLE_F64;
    ref.stride = (ptrdiff_t) dst.width * dst.channels * sizeof (gdouble);
    ref_data = g_new (gdouble, (gsize) dst.width * dst.height * dst.channels);
    ref.data = ref_data;
    fail_unless_equals_int (bspline_cpu_execute (cpu, plan, &src, &ref),
        BSPLINE_OK);

    for (y = 0; y < dst.height; y++)
      for (x = 0; x < dst.width; x++)
        for (c = 0; c < dst.channels; c++) {
          gdouble r = ref_data[((gsize) y * dst.width + x) * dst.channels + c];
          gint expect = (gint) CLAMP (floor (r + 0.5), 0,
              (1 << pl->bits) - 1);
          gint got = sample_at (&dst, x, y, c);

          worst = MAX (worst, ABS (got - expect));
          if (ABS (got - expect) > 1)
            fail ("%s %s: plane %d (%d, %d) channel %d: element %d, "
                "reference %.3f (seed %u)", what, layout->name, p, x, y, c,
                got, r, test_seed);
        }
    g_free (ref_data);
    bspline_plan_free (plan);
  }
  GST_INFO ("%s %s: largest difference %d code value(s)", what, layout->name,
      worst);

  gst_video_frame_unmap (&in_frame);
  gst_video_frame_unmap (&out_frame);
  bspline_cpu_free (cpu);
}

/* One frame of `format` through the element with one property set (as
 * gst-launch would set it) and the given output size, checked against the
 * reference of the luma forward matrix `forward`. */
static void
run_case (const gchar * what, const gchar * format, gint in_w, gint in_h,
    gint out_w, gint out_h, const gchar * chroma_site,
    const gchar * property, const gchar * value, const gdouble forward[9],
    GRand * rand)
{
  gchar *in_caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
      "height=%d,framerate=30/1,pixel-aspect-ratio=1/1%s%s", format, in_w,
      in_h, chroma_site ? ",chroma-site=" : "", chroma_site ? chroma_site : "");
  gchar *out_caps = g_strdup_printf ("video/x-raw,width=%d,height=%d,"
      "pixel-aspect-ratio=1/1", out_w, out_h);
  GstHarness *h = harness_new (in_caps, out_caps);
  GstVideoInfo in_info, out_info;
  bspline_params params;
  GstBuffer *in, *out;
  GstCaps *caps;

  /* the reference maps the input onto the whole output */
  g_object_set (h->element, "add-borders", FALSE, NULL);
  if (property)
    gst_util_set_object_arg (G_OBJECT (h->element), property, value);
  caps = gst_caps_from_string (in_caps);
  fail_unless (gst_video_info_from_caps (&in_info, caps));
  gst_caps_unref (caps);

  in = random_frame (&in_info, format_layout (format), rand);
  out = push_pull (h, in);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_video_info_from_caps (&out_info, caps));
  gst_caps_unref (caps);
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&out_info), out_w);
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&out_info), out_h);
  fail_unless_equals_string (GST_VIDEO_INFO_NAME (&out_info), format);

  default_params (&params);
  check_against_reference (what, in, &in_info, chroma_site, out, &out_info,
      forward, &params);

  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_free (in_caps);
  g_free (out_caps);
}

/* ---- every format: upscale, downscale, rotation, perspective ---- */

GST_START_TEST (test_formats)
{
  const gdouble perspective[9] = { 1.05, 0.08, -2.0, -0.05, 0.95, 1.5,
    0.002, -0.0015, 1.0
  };
  GRand *rand = seeded_rand ();
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    const gchar *f = formats[i].name;
    gdouble forward[9], a[9], s[9];
    gdouble rad = 23.0 * G_PI / 180.0;

    /* upscale 45x33 -> 80x59 (odd sizes: chroma planes round up) */
    matrix_set (forward, 80.0 / 45, 0, 0, 0, 59.0 / 33, 0, 0, 0, 1);
    run_case ("upscale", f, 45, 33, 80, 59, "mpeg2", NULL, NULL, forward, rand);

    /* downscale 64x48 -> 40x30 */
    matrix_set (forward, 40.0 / 64, 0, 0, 0, 30.0 / 48, 0, 0, 0, 1);
    run_case ("downscale", f, 64, 48, 40, 30, "jpeg", NULL, NULL, forward,
        rand);

    /* rotation by 23 degrees clockwise about the centre, same size */
    matrix_set (a, cos (rad), -sin (rad), 0, sin (rad), cos (rad), 0, 0, 0, 1);
    matrix_set (s, 1, 0, 0, 0, 1, 0, 0, 0, 1);
    forward_about_pivot (a, 24, 18, s, forward);
    run_case ("rotation", f, 48, 36, 48, 36, "mpeg2", "rotation", "23",
        forward, rand);

    /* perspective through the matrix property, about the centre, with a
     * 2x upscale by the caps: 24x18 -> 48x36 */
    matrix_set (s, 2, 0, 0, 0, 2, 0, 0, 0, 1);
    forward_about_pivot (perspective, 24, 18, s, forward);
    run_case ("perspective", f, 24, 18, 48, 36, "jpeg", "matrix",
        PERSPECTIVE, forward, rand);
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* ---- sizes ---- */

GST_START_TEST (test_sizes)
{
  GRand *rand = seeded_rand ();
  gdouble forward[9];

  matrix_set (forward, 5, 0, 0, 0, 5, 0, 0, 0, 1);
  run_case ("1x1", "RGBA", 1, 1, 5, 5, NULL, NULL, NULL, forward, rand);
  run_case ("1x1", "I420", 1, 1, 5, 5, "mpeg2", NULL, NULL, forward, rand);
  run_case ("1x1 rotated", "GRAY8", 1, 1, 1, 1, NULL, "rotation", "45",
      (gdouble[9]) {
      1, 0, 0, 0, 1, 0, 0, 0, 1}, rand);
  matrix_set (forward, 3, 0, 0, 0, 2, 0, 0, 0, 1);
  run_case ("1xN", "GRAY8", 1, 37, 3, 74, NULL, NULL, NULL, forward, rand);
  run_case ("1xN", "NV12", 1, 37, 3, 74, "mpeg2", NULL, NULL, forward, rand);
  matrix_set (forward, 20.0 / 41, 0, 0, 0, 3, 0, 0, 0, 1);
  run_case ("Nx1", "RGB", 41, 1, 20, 3, NULL, NULL, NULL, forward, rand);
  run_case ("Nx1", "Y42B", 41, 1, 20, 3, "mpeg2", NULL, NULL, forward, rand);

  /* odd to odd, very different aspect: add-borders off keeps the whole
   * output for the input */
  {
    GstHarness *h;
    GstVideoInfo in_info, out_info;
    GstCaps *caps;
    GstBuffer *in, *out;
    bspline_params params;
    const gchar *fmts[] = { "I420", "RGBA", "P010_10LE" };
    guint i;

    for (i = 0; i < G_N_ELEMENTS (fmts); i++) {
      gchar *in_caps = g_strdup_printf ("video/x-raw,format=%s,width=641,"
          "height=481,framerate=30/1,chroma-site=mpeg2", fmts[i]);

      h = harness_new (in_caps, "video/x-raw,width=111,height=30");
      g_object_set (h->element, "add-borders", FALSE, NULL);
      caps = gst_caps_from_string (in_caps);
      fail_unless (gst_video_info_from_caps (&in_info, caps));
      gst_caps_unref (caps);
      in = random_frame (&in_info, format_layout (fmts[i]), rand);
      out = push_pull (h, in);
      caps = gst_pad_get_current_caps (h->sinkpad);
      fail_unless (gst_video_info_from_caps (&out_info, caps));
      gst_caps_unref (caps);
      matrix_set (forward, 111.0 / 641, 0, 0, 0, 30.0 / 481, 0, 0, 0, 1);
      default_params (&params);
      check_against_reference ("641x481->111x30", in, &in_info, "mpeg2",
          out, &out_info, forward, &params);
      gst_buffer_unref (in);
      gst_buffer_unref (out);
      gst_harness_teardown (h);
      g_free (in_caps);
    }
  }

  /* DCI 4K down to 1080p (same 256:135 DAR, no borders); the valgrind
   * setup divides every side by $BSPLINE_LARGE_FRAME_DIVISOR
   * (tests/sanitizers/meson.build) */
  {
    const gchar *divisor_env = g_getenv ("BSPLINE_LARGE_FRAME_DIVISOR");
    gint d = divisor_env ? (gint) g_ascii_strtoll (divisor_env, NULL, 10) : 1;

    matrix_set (forward, 2048.0 / 4096, 0, 0, 0, 1080.0 / 2160, 0, 0, 0, 1);
    run_case ("4096x2160", "RGBA", 4096 / d, 2160 / d, 2048 / d, 1080 / d,
        NULL, NULL, NULL, forward, rand);
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* add-borders where the picture's rectangle would round to no pixel
 * (320x240 -> 1x1: 3/4 of a row): videoscale keeps it, and so must the
 * element, with at least one pixel of picture.  A grey input stays grey,
 * picture and reflected borders alike. */
GST_START_TEST (test_add_borders_keep_one_pixel)
{
  const struct
  {
    gint in_w, in_h, out_w, out_h;
  } cases[] = {
    {320, 240, 1, 1}, {4000, 10, 3, 3}, {1, 1, 1, 1}, {1, 1000, 1000, 1},
    {1000, 1, 1, 1000}, {320, 240, 2, 1},
  };
  const gchar *fmts[] = { "RGBA", "I420" };
  guint i, f;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (i = 0; i < G_N_ELEMENTS (cases); i++) {
      gchar *in_caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
          "height=%d,framerate=30/1,pixel-aspect-ratio=1/1", fmts[f],
          cases[i].in_w, cases[i].in_h);
      gchar *out_caps = g_strdup_printf ("video/x-raw,width=%d,height=%d,"
          "pixel-aspect-ratio=1/1", cases[i].out_w, cases[i].out_h);
      GstHarness *h = harness_new (in_caps, out_caps);
      GstVideoInfo info;
      GstCaps *caps = gst_caps_from_string (in_caps);
      GstVideoFrame frame;
      GstBuffer *out;
      guint c;
      gint x, y;

      fail_unless (gst_video_info_from_caps (&info, caps));
      gst_caps_unref (caps);
      g_object_set (h->element, "add-borders", TRUE, NULL);
      out = push_pull_owned (h, grey_buffer (info.size));
      caps = gst_pad_get_current_caps (h->sinkpad);
      fail_unless (gst_video_info_from_caps (&info, caps));
      gst_caps_unref (caps);
      fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), cases[i].out_w);
      fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&info), cases[i].out_h);
      fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
      for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++)
        for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&frame, c); y++)
          for (x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&frame, c); x++) {
            guint8 v = GST_VIDEO_FRAME_COMP_DATA (&frame, c)[y *
                GST_VIDEO_FRAME_COMP_STRIDE (&frame, c) + x *
                GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, c)];

            if (ABS ((gint) v - 0x80) > 1)
              fail ("%s %dx%d -> %dx%d: component %u at (%d, %d) is %u, "
                  "not grey", fmts[f], cases[i].in_w, cases[i].in_h,
                  cases[i].out_w, cases[i].out_h, c, x, y, v);
          }
      gst_video_frame_unmap (&frame);
      gst_buffer_unref (out);
      gst_harness_teardown (h);
      g_free (in_caps);
      g_free (out_caps);
    }
}

GST_END_TEST;

/* Input planes with padded strides (GstVideoMeta) give the same output as
 * tightly packed ones. */
GST_START_TEST (test_padded_strides)
{
  const gchar *fmts[] = { "I420", "NV12", "RGB", "GRAY16_LE", "P010_10LE" };
  GRand *rand = seeded_rand ();
  guint i;

  for (i = 0; i < G_N_ELEMENTS (fmts); i++) {
    gchar *in_caps = g_strdup_printf ("video/x-raw,format=%s,width=37,"
        "height=29,framerate=30/1", fmts[i]);
    GstCaps *caps = gst_caps_from_string (in_caps);
    GstVideoInfo tight, padded;
    GstVideoAlignment align;
    GstVideoFrame a, b;
    GstBuffer *in_tight, *in_padded, *out_tight, *out_padded;
    GstHarness *h;
    guint p;

    fail_unless (gst_video_info_from_caps (&tight, caps));
    padded = tight;
    gst_video_alignment_reset (&align);
    align.padding_left = 3;
    align.padding_right = 13;
    align.padding_top = 2;
    align.padding_bottom = 5;
    for (p = 0; p < GST_VIDEO_MAX_PLANES; p++)
      align.stride_align[p] = 63;
    fail_unless (gst_video_info_align (&padded, &align));
    fail_unless (padded.stride[0] > tight.stride[0]);

    in_tight = random_frame (&tight, format_layout (fmts[i]), rand);
    in_padded = random_frame (&padded, format_layout (fmts[i]), rand);
    fail_unless (gst_video_frame_map (&a, &tight, in_tight, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&b, &padded, in_padded, GST_MAP_WRITE));
    fail_unless (gst_video_frame_copy (&b, &a));
    gst_video_frame_unmap (&a);
    gst_video_frame_unmap (&b);

    h = harness_new (in_caps, "video/x-raw,width=50,height=40");
    g_object_set (h->element, "rotation", 7.0, NULL);
    out_tight = push_pull (h, in_tight);
    out_padded = push_pull (h, in_padded);
    {
      /* the samples only: the padding at the end of the output rows is
       * not written (valgrind: uninitialised) */
      GstCaps *oc = gst_pad_get_current_caps (h->sinkpad);
      GstVideoInfo out_info;
      guint y;

      fail_unless (gst_video_info_from_caps (&out_info, oc));
      gst_caps_unref (oc);
      fail_unless (gst_video_frame_map (&a, &out_info, out_tight,
              GST_MAP_READ));
      fail_unless (gst_video_frame_map (&b, &out_info, out_padded,
              GST_MAP_READ));
      for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&a); p++) {
        guint c = p;
        gsize row;

        /* the first component stored in plane p */
        while (GST_VIDEO_FRAME_COMP_PLANE (&a, c) != p)
          c++;
        row = (gsize) GST_VIDEO_FRAME_COMP_WIDTH (&a, c) *
            GST_VIDEO_FRAME_COMP_PSTRIDE (&a, c);
        for (y = 0; y < (guint) GST_VIDEO_FRAME_COMP_HEIGHT (&a, c); y++)
          fail_unless (memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&a,
                      p) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&a, p),
                  (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&b,
                      p) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&b, p),
                  row) == 0, "%s: padded input strides change the output "
              "(plane %u row %u)", fmts[i], p, y);
      }
      gst_video_frame_unmap (&a);
      gst_video_frame_unmap (&b);
    }
    gst_buffer_unref (in_tight);
    gst_buffer_unref (in_padded);
    gst_buffer_unref (out_tight);
    gst_buffer_unref (out_padded);
    gst_harness_teardown (h);
    gst_caps_unref (caps);
    g_free (in_caps);
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* ---- geometry facts that do not come from the engine ---- */

/* A linear ramp in x is reproduced exactly by a cubic B-spline away from
 * the edges, so after a 2x upscale every chroma sample must hold the ramp's
 * value at that sample's own luma position: a wrong siting shows as a shift
 * of 2 code values. */
static void
check_siting (const gchar * format, const gchar * site, gboolean cosited)
{
  gchar *in_caps = g_strdup_printf ("video/x-raw,format=%s,width=24,"
      "height=16,framerate=30/1,chroma-site=%s", format, site);
  GstHarness *h = harness_new (in_caps, "video/x-raw,width=48,height=32");
  GstCaps *caps = gst_caps_from_string (in_caps);
  GstVideoInfo in_info, out_info;
  GstVideoFrame frame;
  GstBuffer *in, *out;
  gint x, y, p;

  /* value(X) = 20 + 8 X at luma coordinate X (pixel edges at integers) */
  fail_unless (gst_video_info_from_caps (&in_info, caps));
  in = gst_buffer_new_allocate (NULL, in_info.size, NULL);
  fail_unless (gst_video_frame_map (&frame, &in_info, in, GST_MAP_WRITE));
  for (p = 0; p < 3; p++) {
    gint sub = p ? 2 : 1;
    gint w = GST_VIDEO_FRAME_COMP_WIDTH (&frame, p);
    gint hgt = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, p);

    for (y = 0; y < hgt; y++)
      for (x = 0; x < w; x++) {
        gdouble lx = (p && cosited) ? sub * x + 0.5 : sub * (x + 0.5);

        GST_VIDEO_FRAME_COMP_DATA (&frame, p)[y *
            GST_VIDEO_FRAME_COMP_STRIDE (&frame, p) + x] =
            (guint8) (20 + 8 * lx);
      }
  }
  gst_video_frame_unmap (&frame);

  out = push_pull (h, in);
  gst_caps_unref (caps);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_video_info_from_caps (&out_info, caps));
  fail_unless (gst_video_frame_map (&frame, &out_info, out, GST_MAP_READ));
  for (p = 0; p < 3; p++) {
    gint sub = p ? 2 : 1;
    gint w = GST_VIDEO_FRAME_COMP_WIDTH (&frame, p);
    gint hgt = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, p);

    for (y = 0; y < hgt; y++)
      for (x = 4; x < w - 4; x++) {
        /* output luma position, then the input's (scale 2) */
        gdouble lx = (p && cosited) ? sub * x + 0.5 : sub * (x + 0.5);
        gint expect = (gint) floor (20 + 8 * lx / 2 + 0.5);
        gint got = GST_VIDEO_FRAME_COMP_DATA (&frame, p)[y *
            GST_VIDEO_FRAME_COMP_STRIDE (&frame, p) + x];

        fail_unless (ABS (got - expect) <= 0,
            "%s chroma-site=%s plane %d (%d, %d): %d, expected %d", format,
            site, p, x, y, got, expect);
      }
  }
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  g_free (in_caps);
}

GST_START_TEST (test_chroma_siting)
{
  check_siting ("I420", "mpeg2", TRUE);
  check_siting ("I420", "jpeg", FALSE);
  check_siting ("Y42B", "mpeg2", TRUE);
  check_siting ("Y42B", "jpeg", FALSE);
}

GST_END_TEST;

/* Integer translations and the add-borders rectangle move samples without
 * changing them (interpolation at sample positions is exact). */
GST_START_TEST (test_translation_and_borders)
{
  GRand *rand = seeded_rand ();
  GstVideoInfo info, out_info;
  GstVideoFrame a, b;
  GstBuffer *in, *out;
  GstHarness *h;
  GstCaps *caps;
  gint x, y;

  /* translate-x=5 translate-y=-3 on GRAY8 */
  h = harness_new ("video/x-raw,format=GRAY8,width=40,height=30,"
      "framerate=30/1", "video/x-raw,width=40,height=30");
  g_object_set (h->element, "translate-x", 5.0, "translate-y", -3.0, NULL);
  caps = gst_caps_from_string ("video/x-raw,format=GRAY8,width=40,height=30");
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  in = random_frame (&info, format_layout ("GRAY8"), rand);
  out = push_pull (h, in);
  fail_unless (gst_video_frame_map (&a, &info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&b, &info, out, GST_MAP_READ));
  for (y = 0; y < 27; y++)
    for (x = 5; x < 40; x++)
      fail_unless_equals_int (((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&b,
                  0))[y * GST_VIDEO_FRAME_PLANE_STRIDE (&b, 0) + x],
          ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&a, 0))[(y + 3) *
              GST_VIDEO_FRAME_PLANE_STRIDE (&a, 0) + x - 5]);
  gst_video_frame_unmap (&a);
  gst_video_frame_unmap (&b);
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  /* 40x30 into 40x40 with square pixels: borders of 5 rows top and
   * bottom, filled with fill-color under boundary=constant */
  h = harness_new ("video/x-raw,format=GRAY8,width=40,height=30,"
      "framerate=30/1,pixel-aspect-ratio=1/1",
      "video/x-raw,width=40,height=40,pixel-aspect-ratio=1/1");
  g_object_set (h->element, "boundary", 4 /* constant */ ,
      "fill-color", 0xff404040, NULL);
  out = push_pull (h, in);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_video_info_from_caps (&out_info, caps));
  gst_caps_unref (caps);
  fail_unless (gst_video_frame_map (&a, &info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&b, &out_info, out, GST_MAP_READ));
  for (y = 0; y < 40; y++)
    for (x = 0; x < 40; x++) {
      gint got = ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&b, 0))[y *
          GST_VIDEO_FRAME_PLANE_STRIDE (&b, 0) + x];

      gint expect = (y < 5 || y >= 35) ? 0x40 : ((guint8 *)
          GST_VIDEO_FRAME_PLANE_DATA (&a, 0))[(y - 5) *
          GST_VIDEO_FRAME_PLANE_STRIDE (&a, 0) + x];

      fail_unless_equals_int (got, expect);
    }
  gst_video_frame_unmap (&a);
  gst_video_frame_unmap (&b);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  g_rand_free (rand);
}

GST_END_TEST;

/* The worked example of docs/element.md: 640x480 into 1280x720 with square
 * pixels and add-borders maps the input onto the 960x720 rectangle at
 * x = 160, then rotation=30 translate-x=10 act about the centre (640, 360);
 * input (320, 240) lands on (650, 360), input (0, 0) on (414.308, -191.769). */
GST_START_TEST (test_contract_example)
{
  const gchar *in_caps = "video/x-raw,format=GRAY8,width=640,height=480,"
      "framerate=30/1,pixel-aspect-ratio=1/1";
  GRand *rand = seeded_rand ();
  GstHarness *h = harness_new (in_caps,
      "video/x-raw,width=1280,height=720,pixel-aspect-ratio=1/1");
  gdouble rad = 30.0 * G_PI / 180.0, a[9], scaling[9], forward[9];
  GstVideoInfo in_info, out_info;
  bspline_params params;
  GstBuffer *in, *out;
  GstCaps *caps = gst_caps_from_string (in_caps);

  g_object_set (h->element, "rotation", 30.0, "translate-x", 10.0, NULL);
  fail_unless (gst_video_info_from_caps (&in_info, caps));
  gst_caps_unref (caps);
  in = random_frame (&in_info, format_layout ("GRAY8"), rand);
  out = push_pull (h, in);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_video_info_from_caps (&out_info, caps));
  gst_caps_unref (caps);

  matrix_set (scaling, 1.5, 0, 160, 0, 1.5, 0, 0, 0, 1);
  matrix_set (a, cos (rad), -sin (rad), 10, sin (rad), cos (rad), 0, 0, 0, 1);
  forward_about_pivot (a, 640, 360, scaling, forward);
  fail_unless (fabs (forward[0] * 320 + forward[1] * 240 + forward[2] - 650)
      < 1e-9 && fabs (forward[3] * 320 + forward[4] * 240 + forward[5] - 360)
      < 1e-9);
  fail_unless (fabs (forward[2] - 414.3078) < 1e-4
      && fabs (forward[5] + 191.7691) < 1e-4);
  default_params (&params);
  check_against_reference ("contract example", in, &in_info, NULL, out,
      &out_info, forward, &params);

  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_rand_free (rand);
}

GST_END_TEST;

/* fill-color in code values: RGBA channels in memory order, and BT.709
 * limited-range Y'CbCr for I420 (red: Y 63, Cb 102, Cr 240). */
GST_START_TEST (test_fill_color)
{
  GRand *rand = seeded_rand ();
  GstVideoInfo info;
  GstVideoFrame f;
  GstBuffer *in, *out;
  GstHarness *h;
  GstCaps *caps;
  const gchar *rgba_caps = "video/x-raw,format=ARGB,width=16,height=8,"
      "framerate=30/1";
  const gchar *i420_caps = "video/x-raw,format=I420,width=16,height=8,"
      "framerate=30/1,colorimetry=bt709";
  guint8 *d;

  h = harness_new (rgba_caps, "video/x-raw,width=16,height=8");
  g_object_set (h->element, "boundary", 4, "fill-color", 0x80102030,
      "translate-x", 1000.0, NULL);
  caps = gst_caps_from_string (rgba_caps);
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  in = random_frame (&info, format_layout ("ARGB"), rand);
  out = push_pull (h, in);
  fail_unless (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
  d = GST_VIDEO_FRAME_PLANE_DATA (&f, 0);
  fail_unless_equals_int (d[0], 0x80);
  fail_unless_equals_int (d[1], 0x10);
  fail_unless_equals_int (d[2], 0x20);
  fail_unless_equals_int (d[3], 0x30);
  gst_video_frame_unmap (&f);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  h = harness_new (i420_caps, "video/x-raw,width=16,height=8");
  g_object_set (h->element, "boundary", 4, "fill-color", 0xffff0000,
      "translate-y", -1000.0, NULL);
  caps = gst_caps_from_string (i420_caps);
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  in = random_frame (&info, format_layout ("I420"), rand);
  out = push_pull (h, in);
  fail_unless (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
  fail_unless_equals_int (GST_VIDEO_FRAME_COMP_DATA (&f, 0)[0], 63);
  fail_unless_equals_int (GST_VIDEO_FRAME_COMP_DATA (&f, 1)[0], 102);
  fail_unless_equals_int (GST_VIDEO_FRAME_COMP_DATA (&f, 2)[0], 240);
  gst_video_frame_unmap (&f);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_rand_free (rand);
}

GST_END_TEST;

/* The formats of bsplinewarp's system-memory caps, from its pad template
 * (so that a format added to the element is tested here too). */
static GPtrArray *
template_formats (void)
{
  GstElement *element = gst_element_factory_make ("bsplinewarp", NULL);
  GstPad *pad = gst_element_get_static_pad (element, "sink");
  GstCaps *caps = gst_pad_get_pad_template_caps (pad);
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  guint i, j;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GValue *list;

    if (!gst_caps_features_contains (gst_caps_get_features (caps, i),
            GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY))
      continue;
    list = gst_structure_get_value (gst_caps_get_structure (caps, i), "format");
    for (j = 0; j < gst_value_list_get_size (list); j++) {
      const gchar *name = g_value_get_string (gst_value_list_get_value (list,
              j));
      guint k;

      /* the formats whose planes this file's table describes (every
       * other format: tests/elements/test-formats.c) */
      for (k = 0; k < G_N_ELEMENTS (formats); k++)
        if (strcmp (formats[k].name, name) == 0)
          g_ptr_array_add (names, g_strdup (name));
    }
    if (names->len > 0)
      break;
  }
  gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (element);
  return names;
}

/* `in` (caps in_caps) converted by videoconvert to out_caps, without
 * dithering: the same code values in give the same code values out. */
static GstBuffer *
videoconvert (GstBuffer * in, const gchar * in_caps, const gchar * out_caps)
{
  GstHarness *h = gst_harness_new_parse ("videoconvert dither=none");
  GstBuffer *out;

  gst_harness_set_src_caps_str (h, in_caps);
  gst_harness_set_sink_caps_str (h, out_caps);
  out = push_pull (h, in);
  gst_harness_teardown (h);
  return out;
}

/* The largest difference between two frames of one format, in the
 * format's code values, over every component of every pixel (unpacked by
 * GStreamer, so no layout is read here). */
static gint
frame_difference (const GstVideoInfo * info, GstBuffer * a, GstBuffer * b)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gboolean wide = GST_VIDEO_FORMAT_INFO_DEPTH (gst_video_format_get_info
      (finfo->unpack_format), 0) > 8;
  gint width = GST_VIDEO_INFO_WIDTH (info), y, i, k, worst = 0;
  gint bytes = width * 4 * (wide ? 2 : 1);
  guint8 *line[2] = { g_malloc (bytes), g_malloc (bytes) };
  GstVideoFrame frame[2];

  fail_unless (gst_video_frame_map (&frame[0], info, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&frame[1], info, b, GST_MAP_READ));
  for (y = 0; y < GST_VIDEO_INFO_HEIGHT (info); y++) {
    for (k = 0; k < 2; k++)
      finfo->unpack_func (finfo, GST_VIDEO_PACK_FLAG_NONE, line[k],
          frame[k].data, frame[k].info.stride, 0, y, width);
    for (i = 0; i < width * 4; i++) {
      /* the unpack fills AYUV64 and ARGB64 from the top bits */
      guint c = i % 4 == 0 ? GST_VIDEO_COMP_A : i % 4 - 1;
      gint depth, va, vb;

      /* no alpha: the padding of RGBx and its kind is undefined (and
       * videoconvert carries ARGB's alpha through it) */
      if (c >= GST_VIDEO_INFO_N_COMPONENTS (info))
        continue;
      depth = GST_VIDEO_INFO_COMP_DEPTH (info, c);
      va = wide ? ((guint16 *) line[0])[i] >> (16 - depth) : line[0][i];
      vb = wide ? ((guint16 *) line[1])[i] >> (16 - depth) : line[1][i];

      worst = MAX (worst, ABS (va - vb));
    }
  }
  gst_video_frame_unmap (&frame[0]);
  gst_video_frame_unmap (&frame[1]);
  g_free (line[0]);
  g_free (line[1]);
  return worst;
}

/* The fill colour in every format the element accepts, against
 * videoconvert's rendering of the same ARGB: a frame translated fully
 * outside the input (all fill) and a solid ARGB frame converted to the
 * format by videoconvert, compared in the format's code values.  They may
 * differ by one code value at 8 bits (more at higher depths, in
 * proportion): videoconvert's R'G'B' -> Y'CbCr matrix is fixed point on
 * 8-bit input, where the element rounds the exact value once (BT.601
 * (224, 16, 32): Y'CbCr 85, 104, 218 here, 84, 104, 217 from
 * videoconvert).  The comparison is not made after a conversion back to
 * ARGB: that amplifies one code value of Y' and Cr to three of R', and
 * videoconvert's own round trip of that colour is five off. */
GST_START_TEST (test_fill_color_every_format_like_videoconvert)
{
  const guint32 colors[] = { 0xff3366cc, 0xff000000, 0x80e01020 };
  const gchar *argb_caps = "video/x-raw,format=ARGB,width=16,height=8,"
      "framerate=30/1";
  GPtrArray *names = template_formats ();
  GRand *rand = seeded_rand ();
  guint i, k;

  fail_unless (names->len >= 20);
  for (i = 0; i < names->len; i++) {
    const gchar *format = g_ptr_array_index (names, i);
    gchar *caps_str = g_strdup_printf ("video/x-raw,format=%s,width=16,"
        "height=8,framerate=30/1", format);
    GstCaps *caps = gst_caps_from_string (caps_str);
    GstVideoInfo info;
    gint tolerance;

    fail_unless (gst_video_info_from_caps (&info, caps));
    gst_caps_unref (caps);
    tolerance = 1 << (GST_VIDEO_INFO_COMP_DEPTH (&info, 0) - 8);
    for (k = 0; k < G_N_ELEMENTS (colors); k++) {
      GstHarness *h = harness_new (caps_str, caps_str);
      GstBuffer *in = random_frame (&info, format_layout (format), rand);
      GstBuffer *solid = gst_buffer_new_allocate (NULL, 16 * 8 * 4, NULL);
      const guint8 pixel[4] = { colors[k] >> 24, colors[k] >> 16,
        colors[k] >> 8, colors[k]
      };
      GstBuffer *ours, *theirs;
      gint j, difference;

      for (j = 0; j < 16 * 8; j++)
        gst_buffer_fill (solid, j * 4, pixel, 4);
      g_object_set (h->element, "boundary", 4, "fill-color", colors[k],
          "translate-x", 1000.0, "translate-y", -500.0, NULL);
      ours = push_pull_owned (h, in);
      gst_harness_teardown (h);
      theirs = videoconvert (solid, argb_caps, caps_str);
      difference = frame_difference (&info, ours, theirs);
      if (difference > tolerance)
        fail ("%s, fill-color 0x%08x: %d code values from videoconvert's "
            "rendering (seed %u)", format, colors[k], difference, test_seed);
      gst_buffer_unref (ours);
      gst_buffer_unref (solid);
      gst_buffer_unref (theirs);
    }
    g_free (caps_str);
  }
  g_ptr_array_unref (names);
  g_rand_free (rand);
}

GST_END_TEST;

/* ---- video-direction: bit-exact against videoflip ---- */

static GstBuffer *
flip_with (const gchar * factory, const gchar * caps_str,
    GstVideoOrientationMethod method, GstBuffer * in, GstCaps ** out_caps)
{
  GstHarness *h = g_str_equal (factory, "bsplinewarp") ?
      bsplinewarp_harness_new () : gst_harness_new (factory);
  GstBuffer *out;

  g_object_set (h->element, "video-direction", method, NULL);
  gst_harness_set_src_caps_str (h, caps_str);
  out = push_pull (h, in);
  *out_caps = gst_pad_get_current_caps (h->sinkpad);
  gst_harness_teardown (h);
  return out;
}

GST_START_TEST (test_video_direction)
{
  const gchar *fmts[] = { "GRAY8", "GRAY16_LE", "RGBA", "BGRx", "xRGB", "RGB",
    "BGR", "I420", "YV12", "NV12", "NV21", "Y444", "I420_10LE", "I422_10LE"
  };
  const gint sizes[][2] = { {37, 23}, {38, 22} };
  GRand *rand = seeded_rand ();
  guint i, s;
  gint m;

  for (i = 0; i < G_N_ELEMENTS (fmts); i++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (m = GST_VIDEO_ORIENTATION_90R; m <= GST_VIDEO_ORIENTATION_UR_LL; m++) {
        gchar *caps_str = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
            "height=%d,framerate=30/1,chroma-site=mpeg2", fmts[i],
            sizes[s][0], sizes[s][1]);
        GstCaps *caps = gst_caps_from_string (caps_str), *caps_a, *caps_b;
        GstVideoInfo info, out_info, flip_info;
        GstVideoFrame a, b;
        GstBuffer *in, *out_a, *out_b;
        gboolean swaps = m == GST_VIDEO_ORIENTATION_90R ||
            m == GST_VIDEO_ORIENTATION_90L || m == GST_VIDEO_ORIENTATION_UL_LR
            || m == GST_VIDEO_ORIENTATION_UR_LL;
        guint p;
        gint y;

        /* videoflip averages 4:2:2 chroma for quarter turns; we resample
         * it on its own grid: not comparable */
        if (swaps && g_str_has_prefix (fmts[i], "I422")) {
          g_free (caps_str);
          gst_caps_unref (caps);
          continue;
        }
        fail_unless (gst_video_info_from_caps (&info, caps));
        in = random_frame (&info, format_layout (fmts[i]), rand);
        out_a = flip_with ("bsplinewarp", caps_str, m, in, &caps_a);
        out_b = flip_with ("videoflip", caps_str, m, in, &caps_b);
        fail_unless (gst_video_info_from_caps (&out_info, caps_a));
        fail_unless (gst_video_info_from_caps (&flip_info, caps_b));
        fail_unless (gst_video_info_is_equal (&out_info, &flip_info),
            "%s method %d: output caps differ from videoflip's", fmts[i], m);
        fail_unless (gst_video_frame_map (&a, &out_info, out_a, GST_MAP_READ));
        fail_unless (gst_video_frame_map (&b, &out_info, out_b, GST_MAP_READ));
        for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&a); p++) {
          const PlaneLayout *pl = &format_layout (fmts[i])->plane[p];
          gint w = (out_info.width + (1 << pl->log2_sub_x) - 1)
              >> pl->log2_sub_x;
          gint hgt = (out_info.height + (1 << pl->log2_sub_y) - 1)
              >> pl->log2_sub_y;
          gsize row = (gsize) w * pl->channels * (pl->bits > 8 ? 2 : 1);

          for (y = 0; y < hgt; y++)
            fail_unless (memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&a,
                        p) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&a, p),
                    (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&b, p) +
                    y * GST_VIDEO_FRAME_PLANE_STRIDE (&b, p), row) == 0,
                "%s %dx%d method %d: plane %u row %d differs from "
                "videoflip (seed %u)", fmts[i], sizes[s][0], sizes[s][1], m,
                p, y, test_seed);
        }
        gst_video_frame_unmap (&a);
        gst_video_frame_unmap (&b);
        gst_buffer_unref (in);
        gst_buffer_unref (out_a);
        gst_buffer_unref (out_b);
        gst_caps_unref (caps_a);
        gst_caps_unref (caps_b);
        gst_caps_unref (caps);
        g_free (caps_str);
      }
  g_rand_free (rand);
}

GST_END_TEST;

/* An image-orientation tag drives video-direction=auto. */
GST_START_TEST (test_video_direction_auto)
{
  GstHarness *h = bsplinewarp_harness_new ();
  GstBuffer *in;
  GstCaps *caps;
  gint w, hgt;

  g_object_set (h->element, "video-direction", GST_VIDEO_ORIENTATION_AUTO,
      NULL);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA,width=40,"
      "height=20,framerate=30/1");
  fail_unless (gst_harness_push_event (h,
          gst_event_new_tag (gst_tag_list_new (GST_TAG_IMAGE_ORIENTATION,
                  "rotate-90", NULL))));
  in = grey_buffer (40 * 20 * 4);
  gst_buffer_unref (push_pull (h, in));
  gst_buffer_unref (in);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_structure_get_int (gst_caps_get_structure (caps, 0),
          "width", &w));
  fail_unless (gst_structure_get_int (gst_caps_get_structure (caps, 0),
          "height", &hgt));
  fail_unless_equals_int (w, 20);
  fail_unless_equals_int (hgt, 40);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- negotiation: the output size videoscale would choose ---- */

static void
negotiated_size (const gchar * factory, const gchar * in_caps,
    const gchar * out_caps, gint * w, gint * h, gint * par_n, gint * par_d)
{
  GstHarness *harness = harness_new_for (factory, in_caps, out_caps);
  GstBuffer *in = grey_buffer (320 * 240 * 4);
  GstStructure *s;
  GstCaps *caps;

  gst_buffer_unref (push_pull (harness, in));
  caps = gst_pad_get_current_caps (harness->sinkpad);
  s = gst_caps_get_structure (caps, 0);
  fail_unless (gst_structure_get_int (s, "width", w));
  fail_unless (gst_structure_get_int (s, "height", h));
  if (!gst_structure_get_fraction (s, "pixel-aspect-ratio", par_n, par_d))
    *par_n = *par_d = 1;
  gst_caps_unref (caps);
  gst_buffer_unref (in);
  gst_harness_teardown (harness);
}

GST_START_TEST (test_fixation_like_videoscale)
{
  const gchar *in_caps[] = {
    "video/x-raw,format=RGBA,width=320,height=240,framerate=30/1",
    "video/x-raw,format=RGBA,width=320,height=240,framerate=30/1,"
        "pixel-aspect-ratio=4/3",
  };
  const gchar *out_caps[] = {
    "video/x-raw", "video/x-raw,width=640", "video/x-raw,height=100",
    "video/x-raw,width=640,height=360",
    "video/x-raw,width=640,height=360,pixel-aspect-ratio=1/1",
    "video/x-raw,pixel-aspect-ratio=1/1",
    "video/x-raw,width=500,pixel-aspect-ratio=1/1",
    "video/x-raw,height=[100,200],pixel-aspect-ratio=[1/2,2/1]",
  };
  guint i, j;

  for (i = 0; i < G_N_ELEMENTS (in_caps); i++)
    for (j = 0; j < G_N_ELEMENTS (out_caps); j++) {
      gint w1, h1, n1, d1, w2, h2, n2, d2;

      negotiated_size ("bsplinewarp", in_caps[i], out_caps[j], &w1, &h1, &n1,
          &d1);
      negotiated_size ("videoscale", in_caps[i], out_caps[j], &w2, &h2, &n2,
          &d2);
      fail_unless (w1 == w2 && h1 == h2 && n1 * d2 == n2 * d1,
          "%s -> %s: %dx%d PAR %d/%d, videoscale %dx%d PAR %d/%d",
          in_caps[i], out_caps[j], w1, h1, n1, d1, w2, h2, n2, d2);
    }
}

GST_END_TEST;

/* ---- passthrough ---- */

GST_START_TEST (test_passthrough)
{
  GstHarness *h = harness_new ("video/x-raw,format=I420,width=32,height=24,"
      "framerate=30/1", "video/x-raw,width=32,height=24");
  GstBuffer *in = grey_buffer (32 * 24 * 3 / 2), *out;

  out = push_pull (h, in);
  fail_unless (out == in, "identity is not passthrough");
  gst_buffer_unref (out);

  g_object_set (h->element, "rotation", 10.0, NULL);
  out = push_pull (h, in);
  fail_unless (out != in, "a rotation must not be passthrough");
  gst_buffer_unref (out);

  g_object_set (h->element, "rotation", 360.0, NULL);
  out = push_pull (h, in);
  fail_unless (out == in, "rotation=360 is the identity");
  gst_buffer_unref (out);

  gst_util_set_object_arg (G_OBJECT (h->element), "matrix",
      "<1.0,0.0,0.0,0.0,1.0,0.0,0.0,0.0,1.0>");
  out = push_pull (h, in);
  fail_unless (out == in, "the identity matrix is the identity");
  gst_buffer_unref (out);

  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- properties changed from other threads, renegotiation ---- */

/* Sets `matrix` over and over from its own thread (the harness's property
 * stress thread leaks one GstValueArray per round in 1.22: it resets, not
 * unsets, the value it reads back). */
typedef struct
{
  GstElement *element;
  const GValue *value;
  gint running;
} MatrixSetter;

static gpointer
matrix_setter_run (gpointer data)
{
  MatrixSetter *setter = data;

  while (g_atomic_int_get (&setter->running)) {
    g_object_set_property (G_OBJECT (setter->element), "matrix", setter->value);
    g_usleep (110);
  }
  return NULL;
}

GST_START_TEST (test_stress_and_renegotiation)
{
  GstHarness *h = harness_new ("video/x-raw,format=I420,width=64,height=48,"
      "framerate=30/1", "video/x-raw");
  GstHarnessThread *threads[5];
  MatrixSetter setter;
  GThread *setter_thread;
  GValue v = G_VALUE_INIT;
  GValue matrix = G_VALUE_INIT;
  const gchar *sizes[] = { "width=64,height=48", "width=33,height=17",
    "width=80,height=60", "width=1,height=1"
  };
  guint pushed = 0, i, k;

  g_value_init (&v, G_TYPE_DOUBLE);
  g_value_set_double (&v, 33.0);
  threads[0] = gst_harness_stress_property_start_full (h, "rotation", &v, 50);
  g_value_set_double (&v, 0.7);
  threads[1] = gst_harness_stress_property_start_full (h, "zoom", &v, 70);
  g_value_unset (&v);
  g_value_init (&v, G_TYPE_INT);
  g_value_set_int (&v, 5);
  threads[2] = gst_harness_stress_property_start_full (h, "order", &v, 90);
  g_value_unset (&v);
  g_value_init (&v, G_TYPE_UINT);
  g_value_set_uint (&v, 1);
  threads[3] = gst_harness_stress_property_start_full (h, "n-threads", &v, 300);
  g_value_unset (&v);
  g_value_init (&v, GST_TYPE_VIDEO_ORIENTATION_METHOD);
  g_value_set_enum (&v, GST_VIDEO_ORIENTATION_90R);
  threads[4] = gst_harness_stress_property_start_full (h, "video-direction",
      &v, 500);
  g_value_unset (&v);
  g_value_init (&matrix, GST_TYPE_ARRAY);
  fail_unless (gst_value_deserialize (&matrix,
          "<1.0,0.1,0.0,0.0,1.0,0.0,0.001,0.0,1.0>"));
  setter.element = h->element;
  setter.value = &matrix;
  setter.running = 1;
  setter_thread = g_thread_new ("matrix-setter", matrix_setter_run, &setter);

  for (k = 0; k < G_N_ELEMENTS (sizes); k++) {
    gchar *caps = g_strdup_printf ("video/x-raw,format=I420,%s,"
        "framerate=30/1", sizes[k]);
    GstVideoInfo info;
    GstCaps *c = gst_caps_from_string (caps);

    fail_unless (gst_video_info_from_caps (&info, c));
    gst_harness_set_src_caps_str (h, caps);
    for (i = 0; i < 25; i++) {
      GstBuffer *b = gst_buffer_new_allocate (NULL, info.size, NULL);

      gst_buffer_memset (b, 0, 0x80, info.size);
      GST_BUFFER_PTS (b) = pushed * GST_SECOND / 30;
      fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
      pushed++;
      gst_buffer_unref (drain_and_pull (h));
      /* other threads keep flipping these */
      g_object_set (h->element, "video-direction",
          i % 2 ? GST_VIDEO_ORIENTATION_IDENTITY :
          GST_VIDEO_ORIENTATION_180, "n-threads", i % 3, "boundary", i % 5,
          NULL);
      gst_util_set_object_arg (G_OBJECT (h->element), "matrix",
          i % 4 ? "<>" : "<2.0,0.0,0.0,0.0,1.0,0.0,0.0,0.0,1.0>");
    }
    gst_caps_unref (c);
    g_free (caps);
  }
  for (i = 0; i < G_N_ELEMENTS (threads); i++)
    gst_harness_stress_thread_stop (threads[i]);
  g_atomic_int_set (&setter.running, 0);
  g_thread_join (setter_thread);
  g_value_unset (&matrix);

  fail_unless_equals_int (gst_harness_buffers_received (h), pushed);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- the controller ---- */

GST_START_TEST (test_controlled_rotation)
{
  const gchar *caps = "video/x-raw,format=GRAY8,width=40,height=30,"
      "framerate=30/1";
  GRand *rand = seeded_rand ();
  GstHarness *h = harness_new (caps, "video/x-raw");
  GstControlSource *cs = gst_interpolation_control_source_new ();
  GstTimedValueControlSource *tvcs = GST_TIMED_VALUE_CONTROL_SOURCE (cs);
  const gdouble times[] = { 0.0, 0.25, 0.5, 0.8, 1.0 };
  GstVideoInfo info;
  GstCaps *c = gst_caps_from_string (caps);
  GstBuffer *in;
  guint i;

  fail_unless (gst_video_info_from_caps (&info, c));
  gst_caps_unref (c);
  in = random_frame (&info, format_layout ("GRAY8"), rand);

  g_object_set (cs, "mode", GST_INTERPOLATION_MODE_LINEAR, NULL);
  fail_unless (gst_timed_value_control_source_set (tvcs, 0, 0.0));
  fail_unless (gst_timed_value_control_source_set (tvcs, GST_SECOND, 90.0));
  fail_unless (gst_object_add_control_binding (GST_OBJECT (h->element),
          gst_direct_control_binding_new_absolute (GST_OBJECT (h->element),
              "rotation", cs)));

  for (i = 0; i < G_N_ELEMENTS (times); i++) {
    GstHarness *ref = harness_new (caps, "video/x-raw");
    GstBuffer *b = gst_buffer_copy (in), *out, *expected;
    gdouble angle = 90.0 * times[i], got;

    GST_BUFFER_PTS (b) = (GstClockTime) (times[i] * GST_SECOND);
    out = push_pull (h, b);
    g_object_get (h->element, "rotation", &got, NULL);
    fail_unless (fabs (got - angle) < 1e-9, "t=%g: rotation %g, expected %g",
        times[i], got, angle);

    g_object_set (ref->element, "rotation", angle, NULL);
    expected = push_pull (ref, b);
    {
      GstMapInfo ma, mb;

      fail_unless (gst_buffer_map (out, &ma, GST_MAP_READ));
      fail_unless (gst_buffer_map (expected, &mb, GST_MAP_READ));
      fail_unless (ma.size == mb.size
          && memcmp (ma.data, mb.data, ma.size) == 0,
          "t=%g: the controlled frame is not the frame rotated by %g",
          times[i], angle);
      gst_buffer_unmap (out, &ma);
      gst_buffer_unmap (expected, &mb);
    }
    gst_buffer_unref (b);
    gst_buffer_unref (out);
    gst_buffer_unref (expected);
    gst_harness_teardown (ref);
  }
  gst_object_unref (cs);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  g_rand_free (rand);
}

GST_END_TEST;

/* ---- bad input ---- */

static gchar *
push_expect_error (GstHarness * h, GstBuffer * buffer)
{
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *error = NULL;
  gchar *text;

  gst_element_set_bus (h->element, bus);
  fail_unless_equals_int (gst_harness_push (h, buffer), GST_FLOW_ERROR);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error message posted");
  gst_message_parse_error (msg, &error, NULL);
  text = g_strdup (error->message);
  g_error_free (error);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  return text;
}

GST_START_TEST (test_bad_input)
{
  const gchar *caps = "video/x-raw,format=RGBA,width=16,height=16,"
      "framerate=30/1";
  GstHarness *h;
  GstBus *bus;
  GstMessage *msg;
  gchar *text;
  gint order;

  /* singular matrix while playing: element error, GST_FLOW_ERROR */
  h = harness_new (caps, "video/x-raw");
  gst_util_set_object_arg (G_OBJECT (h->element), "matrix",
      "<1.0,2.0,0.0,2.0,4.0,0.0,0.0,0.0,1.0>");
  text = push_expect_error (h, grey_buffer (16 * 16 * 4));
  fail_unless (strstr (text, "not invertible") != NULL, "message: %s", text);
  g_free (text);
  gst_harness_teardown (h);

  /* NaN in the matrix: GLib refuses the value (the entries' param spec
   * does not hold NaN), the matrix stays unset */
  h = harness_new (caps, "video/x-raw");
  {
    GValue array = G_VALUE_INIT, entry = G_VALUE_INIT, now = G_VALUE_INIT;
    guint i;

    g_value_init (&array, GST_TYPE_ARRAY);
    g_value_init (&entry, G_TYPE_DOUBLE);
    for (i = 0; i < 9; i++) {
      g_value_set_double (&entry, i == 4 ? NAN : (i % 4 == 0));
      gst_value_array_append_value (&array, &entry);
    }
    ASSERT_WARNING (g_object_set_property (G_OBJECT (h->element), "matrix",
            &array));
    g_value_init (&now, GST_TYPE_ARRAY);
    g_object_get_property (G_OBJECT (h->element), "matrix", &now);
    fail_unless_equals_int (gst_value_array_get_size (&now), 0);
    g_value_unset (&now);
    g_value_unset (&array);
    g_value_unset (&entry);
  }
  gst_harness_teardown (h);

  /* a matrix whose product with the pivot overflows to infinity */
  h = harness_new (caps, "video/x-raw");
  gst_util_set_object_arg (G_OBJECT (h->element), "matrix",
      "<1e308,0.0,0.0,0.0,1e308,0.0,0.0,0.0,1.0>");
  text = push_expect_error (h, grey_buffer (16 * 16 * 4));
  fail_unless (strstr (text, "infinite or NaN") != NULL, "message: %s", text);
  g_free (text);
  gst_harness_teardown (h);

  /* a size the engine refuses: 1x1 -> 20000000x1 is past the largest
   * side the engine plans (2^24) */
  h = harness_new ("video/x-raw,format=GRAY8,width=1,height=1,"
      "framerate=30/1", "video/x-raw,width=20000000,height=1,"
      "pixel-aspect-ratio=1/1");
  text = push_expect_error (h, grey_buffer (4));  /* rows of 4 bytes */
  fail_unless (strstr (text, "out of range") != NULL, "message: %s", text);
  g_free (text);
  gst_harness_teardown (h);

  /* a size the engine cannot allocate: 1x2000000 -> 2000000x1 needs
   * 2000000 x 2000000 intermediate values (16 TB) on the separable
   * path: an element error about memory, not a crash */
  h = harness_new ("video/x-raw,format=GRAY8,width=1,height=2000000,"
      "framerate=30/1", "video/x-raw,width=2000000,height=1,"
      "pixel-aspect-ratio=1/1");
  g_object_set (h->element, "order", 0, "antialias", FALSE, "add-borders",
      FALSE, NULL);
  text = push_expect_error (h, grey_buffer (4 * 2000000));
  fail_unless (strstr (text, "memory") != NULL, "message: %s", text);
  g_free (text);
  gst_harness_teardown (h);

  /* order out of range and a matrix of the wrong size: refused with a
   * warning, the value stays */
  h = harness_new (caps, "video/x-raw");
  ASSERT_WARNING (g_object_set (h->element, "order", 12, NULL));
  g_object_get (h->element, "order", &order, NULL);
  fail_unless_equals_int (order, 3);
  ASSERT_WARNING (gst_util_set_object_arg (G_OBJECT (h->element), "matrix",
          "<1.0,2.0,3.0>"));
  gst_harness_teardown (h);

  /* impossible caps: fields in separate buffers of one frame (GStreamer's
   * deprecated "fields" mode: never made by a 1.22 element) */
  h = bsplinewarp_harness_new ();
  gst_harness_set_src_caps_str (h, "video/x-raw,format=I420,width=16,"
      "height=16,framerate=30/1,interlace-mode=fields");
  fail_unless_equals_int (gst_harness_push (h,
          grey_buffer (16 * 16 * 3 / 2)), GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown (h);

  /* backend=cuda: starts where the build and the machine have a CUDA
   * engine; elsewhere (CI: no GPU) start fails with a message saying why */
  {
    GstElement *e = gst_element_factory_make ("bsplinewarp", NULL);
    GError *error = NULL;

    bus = gst_bus_new ();
    gst_element_set_bus (e, bus);
    g_object_set (e, "backend", 2 /* cuda */ , NULL);
    if (gst_element_set_state (e, GST_STATE_PAUSED) ==
        GST_STATE_CHANGE_FAILURE) {
      msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
      fail_unless (msg != NULL);
      gst_message_parse_error (msg, &error, NULL);
      fail_unless (strstr (error->message, "CUDA engine cannot run") != NULL,
          "message: %s", error->message);
      g_error_free (error);
      gst_message_unref (msg);
    } else {
      fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
    }
    gst_element_set_state (e, GST_STATE_NULL);
    gst_element_set_bus (e, NULL);
    gst_object_unref (bus);
    gst_object_unref (e);
  }
}

GST_END_TEST;


/* Bad input in the stream (docs/reliability.md). */
GST_START_TEST (test_bad_buffers)
{
  const gchar *caps = "video/x-raw,format=I420,width=16,height=16,"
      "framerate=30/1";
  const gsize size = 16 * 16 * 3 / 2;
  GstHarness *h;
  GstBuffer *buffer;
  gchar *text;

  /* a buffer smaller than the caps say: an error, no read past its end */
  h = harness_new (caps, "video/x-raw,width=32,height=32");
  text = push_expect_error (h, grey_buffer (size - 1));
  fail_unless (strstr (text, "does not hold") != NULL, "message: %s", text);
  g_free (text);
  gst_harness_teardown (h);

  /* an empty buffer: an error (GstVideoFilter alone would abort the
   * process in a g_assert; found by tests/fuzz, corpus/element/
   * crash-empty-buffer-assert) */
  h = harness_new (caps, "video/x-raw,width=32,height=32");
  text = push_expect_error (h, gst_buffer_new ());
  fail_unless (strstr (text, "empty") != NULL
      || strstr (text, "does not hold") != NULL, "message: %s", text);
  g_free (text);
  gst_harness_teardown (h);

  /* a video meta whose strides run past the end of the buffer: an error,
   * not a read outside it (found by tests/fuzz, corpus/element/
   * crash-video-meta-rows-past-buffer) */
  h = harness_new (caps, "video/x-raw,width=32,height=32");
  {
    gsize offset[GST_VIDEO_MAX_PLANES] = { 0, 256, 320 };
    gint stride[GST_VIDEO_MAX_PLANES] = { 64, 8, 8 };

    buffer = grey_buffer (size);
    gst_buffer_add_video_meta_full (buffer, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_FORMAT_I420, 16, 16, 3, offset, stride);
    text = push_expect_error (h, buffer);
    fail_unless (strstr (text, "do not fit") != NULL, "message: %s", text);
    g_free (text);
  }
  gst_harness_teardown (h);

  /* a bigger buffer than the caps say is fine (the rest is ignored) */
  h = harness_new (caps, "video/x-raw,width=32,height=32");
  buffer = push_pull_owned (h, grey_buffer (size + 1000));
  fail_unless_equals_int (gst_buffer_get_size (buffer), 32 * 32 * 3 / 2);
  gst_buffer_unref (buffer);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The fill colour of every pixel of an RGBA frame. */
static void
assert_all_pixels (GstBuffer * buffer, const guint8 rgba[4], const gchar * what)
{
  GstMapInfo map;
  gsize i;

  fail_unless (gst_buffer_map (buffer, &map, GST_MAP_READ));
  for (i = 0; i < map.size; i++)
    fail_unless_equals_int_hex (map.data[i], rgba[i % 4]);
  gst_buffer_unmap (buffer, &map);
  (void) what;
}

GST_START_TEST (test_bad_geometry_and_properties)
{
  const gchar *caps = "video/x-raw,format=RGBA,width=16,height=12,"
      "framerate=30/1";
  const guint8 fill[4] = { 0x10, 0x20, 0x30, 0xff };
  GstHarness *h;
  GstBuffer *out;
  gdouble zoom, pivot;
  guint n_threads;
  gint b;

  /* every output pixel maps outside the input: the fill colour for
   * boundary=constant; the other boundaries extend the picture (finite,
   * no crash) */
  for (b = 0; b < 5; b++) {
    h = harness_new (caps, "video/x-raw,width=20,height=10");
    g_object_set (h->element, "boundary", b, "fill-color", 0xff102030,
        "translate-x", 1e6, "translate-y", -3e5, NULL);
    out = push_pull_owned (h, grey_buffer (16 * 12 * 4));
    fail_unless_equals_int (gst_buffer_get_size (out), 20 * 10 * 4);
    if (b == 4 /* constant */ )
      assert_all_pixels (out, fill, "outside");
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }

  /* any finite translation is a geometry (an affine map is singular only
   * where its linear part is): 1e15 and 1e300 pixels away, the fill */
  for (b = 0; b < 3; b++) {
    const gdouble far[3] = { 1e15, 1e300, -1e300 };

    h = harness_new (caps, "video/x-raw,width=20,height=10");
    g_object_set (h->element, "boundary", 4, "fill-color", 0xff102030,
        "translate-x", far[b], "translate-y", far[2 - b], NULL);
    out = push_pull_owned (h, grey_buffer (16 * 12 * 4));
    assert_all_pixels (out, fill, "translated far away");
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }

  /* a perspective whose horizon crosses the frame: the pixels beyond it
   * map to no input point (w <= 0) and get the fill colour whatever the
   * boundary.  About the pivot (8, 6), w = 1 - 0.2 (v - 6) at output row
   * centre v: the last row (v = 11.5, w = -0.1) is beyond; rows 0-3 see
   * the grey input well inside its frame.  The negated matrix is the same
   * homography. */
  for (b = 0; b < 10; b++) {
    GstMapInfo map;
    gsize i;

    h = harness_new (caps, "video/x-raw,width=16,height=12");
    gst_util_set_object_arg (G_OBJECT (h->element), "matrix", b < 5 ?
        "<1.0,0.0,0.0,0.0,1.0,0.0,0.0,0.2,1.0>" :
        "<-1.0,0.0,0.0,0.0,-1.0,0.0,0.0,-0.2,-1.0>");
    g_object_set (h->element, "boundary", b % 5, "fill-color", 0xff102030,
        NULL);
    out = push_pull_owned (h, grey_buffer (16 * 12 * 4));
    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
    for (i = 0; i < 12 * 16 * 4; i++) {
      if (i / (16 * 4) == 11) {
        fail_unless_equals_int_hex (map.data[i], fill[i % 4]);
      } else if (i / (16 * 4) <= 3 && i % 4 != 3) {
        fail_unless (map.data[i] >= 0x7f && map.data[i] <= 0x81,
            "boundary %d: row %u is not the grey picture", b % 5,
            (guint) (i / (16 * 4)));
      }
    }
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }

  /* out-of-range values: refused by GLib with a warning, value kept */
  h = harness_new (caps, "video/x-raw");
  ASSERT_WARNING (g_object_set (h->element, "zoom", 0.0, NULL));
  ASSERT_WARNING (g_object_set (h->element, "zoom", 1e5, NULL));
  ASSERT_WARNING (g_object_set (h->element, "zoom", NAN, NULL));
  g_object_get (h->element, "zoom", &zoom, NULL);
  fail_unless_equals_float (zoom, 1.0);
  ASSERT_WARNING (g_object_set (h->element, "pivot-x", 1.5, NULL));
  ASSERT_WARNING (g_object_set (h->element, "rotation", INFINITY, NULL));
  g_object_get (h->element, "pivot-x", &pivot, NULL);
  fail_unless_equals_float (pivot, 0.5);
  ASSERT_WARNING (g_object_set (h->element, "n-threads", 5000, NULL));
  g_object_get (h->element, "n-threads", &n_threads, NULL);
  fail_unless_equals_int (n_threads, 0);
  ASSERT_WARNING (g_object_set (h->element, "bicubic-a", 1.0, NULL));
  ASSERT_WARNING (g_object_set (h->element, "boundary", 9, NULL));
  /* and the element still runs, in passthrough (identity) */
  out = push_pull_owned (h, grey_buffer (16 * 12 * 4));
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* n-threads=1024, the most the property takes: the engine starts (at most
 * 4 threads per core and 256 run, core/base/base.h) and gives the output of
 * one thread. */
GST_START_TEST (test_n_threads_1024_runs)
{
  const gchar *caps = "video/x-raw,format=RGBA,width=64,height=48,"
      "framerate=30/1";
  GRand *rand = seeded_rand ();
  GstBuffer *in, *out[2];
  GstVideoInfo info;
  GstCaps *c = gst_caps_from_string (caps);
  const guint threads[2] = { 1024, 1 };
  GstMapInfo map;
  gint i;

  fail_unless (gst_video_info_from_caps (&info, c));
  gst_caps_unref (c);
  in = random_frame (&info, format_layout ("RGBA"), rand);
  for (i = 0; i < 2; i++) {
    GstHarness *h = harness_new (caps, "video/x-raw,width=50,height=40");

    g_object_set (h->element, "n-threads", threads[i], "rotation", 17.0, NULL);
    out[i] = push_pull (h, in);
    gst_harness_teardown (h);
  }
  fail_unless (gst_buffer_map (out[1], &map, GST_MAP_READ));
  fail_unless_equals_int (gst_buffer_get_size (out[0]), map.size);
  fail_unless (gst_buffer_memcmp (out[0], 0, map.data, map.size) == 0,
      "n-threads=1024 and n-threads=1 differ (seed %u)", test_seed);
  gst_buffer_unmap (out[1], &map);
  gst_buffer_unref (in);
  gst_buffer_unref (out[0]);
  gst_buffer_unref (out[1]);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_stream_events)
{
  GstHarness *h = harness_new ("video/x-raw,format=I420,width=32,height=24,"
      "framerate=30/1", "video/x-raw,width=48,height=36");
  GstSegment segment;
  GstBuffer *out;
  GstEvent *event;
  guint i, n_eos = 0;

  g_object_set (h->element, "rotation", 10.0, NULL);
  for (i = 0; i < 3; i++) {
    GstBuffer *in = grey_buffer (32 * 24 * 3 / 2);

    GST_BUFFER_PTS (in) = i * GST_SECOND / 30;
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  }

  /* a flushing seek in the middle of the stream: flush, new segment, and
   * the stream goes on from the new position */
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  segment.start = segment.time = 10 * GST_SECOND;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  while ((out = gst_harness_try_pull (h)) != NULL)
    gst_buffer_unref (out);
  for (i = 0; i < 3; i++) {
    GstBuffer *in = grey_buffer (32 * 24 * 3 / 2);

    GST_BUFFER_PTS (in) = 10 * GST_SECOND + i * GST_SECOND / 30;
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  }

  /* caps change mid-stream: another format and size */
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA,width=20,"
      "height=10,framerate=30/1");
  fail_unless_equals_int (gst_harness_push (h, grey_buffer (20 * 10 * 4)),
      GST_FLOW_OK);

  /* EOS: every frame is out after it (on the CPU each frame leaves before
   * gst_harness_push returns; the CUDA engine holds one frame in flight,
   * which EOS drains), and EOS passes through */
  fail_unless (gst_harness_buffers_in_queue (h) >= 3);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 4);
  for (i = 0; i < 3; i++) {
    out = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out),
        10 * GST_SECOND + i * GST_SECOND / 30);
    fail_unless_equals_int (gst_buffer_get_size (out), 48 * 36 * 3 / 2);
    gst_buffer_unref (out);
  }
  out = gst_harness_pull (h);
  fail_unless_equals_int (gst_buffer_get_size (out), 48 * 36 * 4);
  gst_buffer_unref (out);
  while ((event = gst_harness_try_pull_event (h)) != NULL) {
    n_eos += GST_EVENT_TYPE (event) == GST_EVENT_EOS;
    gst_event_unref (event);
  }
  fail_unless_equals_int (n_eos, 1);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* 32767 pixels wide: a constant picture stays constant (a B-spline of a
 * constant is that constant, for every boundary but constant) */
GST_START_TEST (test_very_wide)
{
  const gchar *sizes[][2] = {
    {"width=32767,height=2", "width=100,height=2"},
    {"width=2,height=2", "width=32767,height=2"},
    {"width=32767,height=3", "width=32767,height=5"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    gchar *in_caps = g_strdup_printf ("video/x-raw,format=GRAY8,%s,"
        "framerate=30/1", sizes[i][0]);
    gchar *out_caps = g_strdup_printf ("video/x-raw,%s,"
        "pixel-aspect-ratio=1/1", sizes[i][1]);
    GstHarness *h = harness_new (in_caps, out_caps);
    GstVideoInfo info;
    GstCaps *c = gst_caps_from_string (in_caps);
    GstBuffer *out;
    GstMapInfo map;
    gsize k;

    fail_unless (gst_video_info_from_caps (&info, c));
    g_object_set (h->element, "order", 5, "add-borders", FALSE, NULL);
    out = push_pull_owned (h, grey_buffer (info.size));
    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
    for (k = 0; k < map.size; k++)
      if (map.data[k] != 0x80)
        break;
    /* rows are padded to 4 bytes: compare the samples only */
    {
      GstVideoInfo oinfo;
      GstCaps *oc = gst_pad_get_current_caps (h->sinkpad);
      gint x, y;

      fail_unless (gst_video_info_from_caps (&oinfo, oc));
      for (y = 0; y < GST_VIDEO_INFO_HEIGHT (&oinfo); y++)
        for (x = 0; x < GST_VIDEO_INFO_WIDTH (&oinfo); x++)
          fail_unless_equals_int (map.data[y *
                  GST_VIDEO_INFO_PLANE_STRIDE (&oinfo, 0) + x], 0x80);
      gst_caps_unref (oc);
    }
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
    gst_caps_unref (c);
    g_free (in_caps);
    g_free (out_caps);
  }
}

GST_END_TEST;

/* The resampling properties that both elements share (one module,
 * gst/gstbsplinesettings.c): the same names, types, ranges, flags and
 * blurbs on bsplinewarp and bsplinestabilize, each element's own defaults
 * as documented, every property's blurb stating its default, and each
 * value set read back on both. */
GST_START_TEST (test_shared_settings)
{
  static const gchar *shared[] = {
    "method", "order", "bicubic-a", "boundary", "fill-color", "precision",
    "antialias", "n-threads", "backend", "cuda-device-id"
  };
  /* values other than the defaults, as gst-launch would give them */
  static const gchar *values[] = {
    "bicubic", "7", "-0.75", "mirror", "0xff102030", "double", "false",
    "3", "cpu", "1"
  };
  GstElement *elements[2];
  guint i, e;

  elements[0] = gst_element_factory_make ("bsplinewarp", NULL);
  elements[1] = gst_element_factory_make ("bsplinestabilize", NULL);
  fail_unless (elements[0] && elements[1]);
  for (i = 0; i < G_N_ELEMENTS (shared); i++) {
    GParamSpec *a = g_object_class_find_property (G_OBJECT_GET_CLASS
        (elements[0]), shared[i]);
    GParamSpec *b = g_object_class_find_property (G_OBJECT_GET_CLASS
        (elements[1]), shared[i]);
    gboolean own_default = g_str_equal (shared[i], "boundary")
        || g_str_equal (shared[i], "antialias");
    gboolean own_flags = g_str_equal (shared[i], "n-threads");

    fail_unless (a && b, "%s is not on both elements", shared[i]);
    fail_unless (G_PARAM_SPEC_TYPE (a) == G_PARAM_SPEC_TYPE (b)
        && a->value_type == b->value_type, "%s: other types", shared[i]);
    fail_unless (own_flags || a->flags == b->flags, "%s: other flags",
        shared[i]);
    fail_unless (own_default || own_flags
        || g_str_equal (g_param_spec_get_blurb (a),
            g_param_spec_get_blurb (b)), "%s: other blurbs", shared[i]);
    fail_unless (own_default || g_param_values_cmp (a,
            g_param_spec_get_default_value (a),
            g_param_spec_get_default_value (b)) == 0,
        "%s: other defaults", shared[i]);
    if (G_IS_PARAM_SPEC_INT (a))
      fail_unless (G_PARAM_SPEC_INT (a)->minimum == G_PARAM_SPEC_INT (b)->
          minimum && G_PARAM_SPEC_INT (a)->maximum == G_PARAM_SPEC_INT (b)->
          maximum, "%s: other ranges", shared[i]);
    if (G_IS_PARAM_SPEC_UINT (a))
      fail_unless (G_PARAM_SPEC_UINT (a)->minimum == G_PARAM_SPEC_UINT (b)->
          minimum && G_PARAM_SPEC_UINT (a)->maximum == G_PARAM_SPEC_UINT (b)->
          maximum, "%s: other ranges", shared[i]);
    if (G_IS_PARAM_SPEC_DOUBLE (a))
      fail_unless (G_PARAM_SPEC_DOUBLE (a)->minimum ==
          G_PARAM_SPEC_DOUBLE (b)->minimum && G_PARAM_SPEC_DOUBLE (a)->maximum
          == G_PARAM_SPEC_DOUBLE (b)->maximum, "%s: other ranges", shared[i]);

    /* set from a string and read back on both */
    for (e = 0; e < 2; e++) {
      GParamSpec *p = e ? b : a;
      GValue v = G_VALUE_INIT, expected = G_VALUE_INIT;
      /* bsplinestabilize's antialias is off by default */
      const gchar *value = e && g_str_equal (shared[i], "antialias") ?
          "true" : values[i];

      g_value_init (&expected, p->value_type);
      fail_unless (gst_value_deserialize (&expected, value));
      gst_util_set_object_arg (G_OBJECT (elements[e]), shared[i], value);
      g_value_init (&v, p->value_type);
      g_object_get_property (G_OBJECT (elements[e]), shared[i], &v);
      fail_unless (g_param_values_cmp (p, &v, &expected) == 0,
          "%s=%s not read back", shared[i], value);
      fail_unless (g_param_values_cmp (p, &v,
              g_param_spec_get_default_value (p)) != 0,
          "%s: the test value is the default", shared[i]);
      g_value_unset (&v);
      g_value_unset (&expected);
    }
  }

  /* the documented defaults that differ: bsplinewarp reflects and
   * antialiases by least squares, bsplinestabilize fills its borders and
   * does not antialias */
  fail_unless_equals_int (g_value_get_enum (g_param_spec_get_default_value
          (g_object_class_find_property (G_OBJECT_GET_CLASS (elements[0]),
                  "boundary"))), 0 /* reflect */ );
  fail_unless_equals_int (g_value_get_enum (g_param_spec_get_default_value
          (g_object_class_find_property (G_OBJECT_GET_CLASS (elements[1]),
                  "boundary"))), 4 /* constant */ );
  fail_unless_equals_int (g_value_get_enum (g_param_spec_get_default_value
          (g_object_class_find_property (G_OBJECT_GET_CLASS (elements[0]),
                  "antialias"))), BSPLINE_ANTIALIAS_LEAST_SQUARES);
  fail_unless_equals_int (g_value_get_enum (g_param_spec_get_default_value
          (g_object_class_find_property (G_OBJECT_GET_CLASS (elements[1]),
                  "antialias"))), BSPLINE_ANTIALIAS_NONE);

  /* gst-inspect shows every property of either element with its default */
  for (e = 0; e < 2; e++) {
    guint n, k;
    GParamSpec **all =
        g_object_class_list_properties (G_OBJECT_GET_CLASS (elements[e]), &n);

    for (k = 0; k < n; k++)
      if (all[k]->owner_type == G_OBJECT_TYPE (elements[e]))
        fail_unless (strstr (g_param_spec_get_blurb (all[k]), "default")
            != NULL, "%s: the blurb of %s does not state its default",
            GST_ELEMENT_NAME (elements[e]), all[k]->name);
    g_free (all);
  }
  gst_object_unref (elements[0]);
  gst_object_unref (elements[1]);
}

GST_END_TEST;

/* ---- antialias (issue 21) ---- */

/* The antialias property on both elements: an enum GstBSplineAntialias
 * with the canonical nicks none, least-squares, widen at 0, 1, 2 (the
 * values of bspline_antialias) and the old boolean's "false" and "true"
 * as aliases of none and least-squares, which set the same values from a
 * launch line and from C (g_object_set with FALSE, TRUE); the canonical
 * nick comes back out; each element's default in its blurb. */
GST_START_TEST (test_antialias_property)
{
  static const struct
  {
    const gchar *nick;
    gint value;
  } nicks[] = {
    {"none", BSPLINE_ANTIALIAS_NONE},
    {"least-squares", BSPLINE_ANTIALIAS_LEAST_SQUARES},
    {"widen", BSPLINE_ANTIALIAS_WIDEN},
    {"false", BSPLINE_ANTIALIAS_NONE},
    {"true", BSPLINE_ANTIALIAS_LEAST_SQUARES},
  };
  static const gchar *factories[] = { "bsplinewarp", "bsplinestabilize" };
  static const gchar *default_nick[] = { "least-squares", "none" };
  guint e, i;

  /* the core's values, which the property passes on unchanged */
  fail_unless_equals_int (BSPLINE_ANTIALIAS_NONE, 0);
  fail_unless_equals_int (BSPLINE_ANTIALIAS_LEAST_SQUARES, 1);
  fail_unless_equals_int (BSPLINE_ANTIALIAS_WIDEN, 2);

  for (e = 0; e < G_N_ELEMENTS (factories); e++) {
    GstElement *element = gst_element_factory_make (factories[e], NULL);
    GParamSpec *pspec;
    GEnumClass *klass;
    GValue v = G_VALUE_INIT;
    gchar *text;
    gint value;

    fail_unless (element != NULL);
    pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (element),
        "antialias");
    fail_unless (G_IS_PARAM_SPEC_ENUM (pspec), "%s: antialias is a %s",
        factories[e], G_PARAM_SPEC_TYPE_NAME (pspec));
    fail_unless_equals_string (g_type_name (pspec->value_type),
        "GstBSplineAntialias");
    klass = G_PARAM_SPEC_ENUM (pspec)->enum_class;

    /* the nicks and what they stand for; the value's own nick first */
    fail_unless_equals_int (klass->n_values, G_N_ELEMENTS (nicks));
    for (i = 0; i < G_N_ELEMENTS (nicks); i++) {
      GEnumValue *by_nick = g_enum_get_value_by_nick (klass, nicks[i].nick);

      fail_unless (by_nick != NULL, "no nick %s", nicks[i].nick);
      fail_unless_equals_int (by_nick->value, nicks[i].value);
    }
    for (i = 0; i < 3; i++)
      fail_unless_equals_string (g_enum_get_value (klass,
              nicks[i].value)->value_nick, nicks[i].nick);

    /* the default, in the pspec, on a new element and in the blurb */
    fail_unless_equals_string (g_enum_get_value (klass,
            G_PARAM_SPEC_ENUM (pspec)->default_value)->value_nick,
        default_nick[e]);
    g_object_get (element, "antialias", &value, NULL);
    fail_unless_equals_string (g_enum_get_value (klass, value)->value_nick,
        default_nick[e]);
    text = g_strdup_printf ("(default %s)", default_nick[e]);
    fail_unless (g_str_has_suffix (g_param_spec_get_blurb (pspec), text),
        "%s: blurb \"%s\"", factories[e], g_param_spec_get_blurb (pspec));
    g_free (text);
    for (i = 0; i < 3; i++)
      fail_unless (strstr (g_param_spec_get_blurb (pspec), nicks[i].nick),
          "%s: the blurb does not name %s", factories[e], nicks[i].nick);

    /* as a launch line sets it: every nick, and the number */
    for (i = 0; i < G_N_ELEMENTS (nicks); i++) {
      /* from another value first, so that a set that does nothing fails */
      g_object_set (element, "antialias", nicks[i].value ==
          BSPLINE_ANTIALIAS_WIDEN ? BSPLINE_ANTIALIAS_NONE :
          BSPLINE_ANTIALIAS_WIDEN, NULL);
      gst_util_set_object_arg (G_OBJECT (element), "antialias", nicks[i].nick);
      g_object_get (element, "antialias", &value, NULL);
      fail_unless (value == nicks[i].value, "%s antialias=%s: %d",
          factories[e], nicks[i].nick, value);
    }
    gst_util_set_object_arg (G_OBJECT (element), "antialias", "2");
    g_object_get (element, "antialias", &value, NULL);
    fail_unless_equals_int (value, BSPLINE_ANTIALIAS_WIDEN);

    /* as C code that set the boolean sets it */
    g_object_set (element, "antialias", TRUE, NULL);
    g_object_get (element, "antialias", &value, NULL);
    fail_unless_equals_int (value, BSPLINE_ANTIALIAS_LEAST_SQUARES);
    g_object_set (element, "antialias", FALSE, NULL);
    g_object_get (element, "antialias", &value, NULL);
    fail_unless_equals_int (value, BSPLINE_ANTIALIAS_NONE);

    /* read back (and serialised, as gst-inspect and launch lines show
     * it) by its canonical nick, not the alias */
    gst_util_set_object_arg (G_OBJECT (element), "antialias", "true");
    g_value_init (&v, pspec->value_type);
    g_object_get_property (G_OBJECT (element), "antialias", &v);
    text = gst_value_serialize (&v);
    fail_unless_equals_string (text, "least-squares");
    g_free (text);
    gst_util_set_object_arg (G_OBJECT (element), "antialias", "false");
    g_object_get_property (G_OBJECT (element), "antialias", &v);
    text = gst_value_serialize (&v);
    fail_unless_equals_string (text, "none");
    g_free (text);
    g_value_unset (&v);

    /* a value outside the enum is refused with a warning */
    ASSERT_WARNING (g_object_set (element, "antialias", 3, NULL));
    g_object_get (element, "antialias", &value, NULL);
    fail_unless_equals_int (value, BSPLINE_ANTIALIAS_NONE);
    gst_object_unref (element);
  }
}

GST_END_TEST;

/* One frame through bsplinewarp with antialias set as a launch line sets
 * it, and translate-x (NULL: none); add-borders off, so that the input
 * covers the whole output. */
static GstBuffer *
antialias_run (const gchar * in_caps, const gchar * out_caps, GstBuffer * in,
    const gchar * antialias, const gchar * translate)
{
  GstHarness *h = harness_new (in_caps, out_caps);
  GstBuffer *out;

  g_object_set (h->element, "add-borders", FALSE, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "antialias", antialias);
  if (translate)
    gst_util_set_object_arg (G_OBJECT (h->element), "translate-x", translate);
  out = push_pull (h, in);
  fail_unless (out != in, "antialias=%s: passthrough", antialias);
  gst_harness_teardown (h);
  return out;
}

/* The samples of a and b (frames of the same caps, without padding) that
 * differ by more than one code value: the element's tolerance against the
 * reference. */
static gint
antialias_samples_apart (GstBuffer * a, GstBuffer * b, gint * worst)
{
  GstMapInfo ma, mb;
  gsize k;
  gint n = 0;

  fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
  fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
  fail_unless_equals_int (ma.size, mb.size);
  *worst = 0;
  for (k = 0; k < ma.size; k++) {
    gint d = ABS ((gint) ma.data[k] - (gint) mb.data[k]);

    *worst = MAX (*worst, d);
    n += d > 1;
  }
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
  return n;
}

/* What the three values do to the picture: on a 2x shrink of random
 * frames (GRAY8 and I420, whose chroma planes shrink too) each value gives
 * the core's double reference of its own bspline_antialias (within one
 * code value), the three differ from each other in most samples, "true"
 * gives the bytes of least-squares and "false" those of none; on a 1:1 map
 * (a subpixel shift, so that the element resamples and does not pass
 * through) nothing shrinks and the three give the same bytes. */
GST_START_TEST (test_antialias_values)
{
  static const gchar *names[] = { "none", "least-squares", "widen" };
  static const gchar *formats_here[] = { "GRAY8", "I420" };
  GRand *rand = seeded_rand ();
  guint f, i, j;

  for (f = 0; f < G_N_ELEMENTS (formats_here); f++) {
    gchar *in_caps = g_strdup_printf ("video/x-raw,format=%s,width=64,"
        "height=48,framerate=30/1,pixel-aspect-ratio=1/1", formats_here[f]);
    const gchar *half = "video/x-raw,width=32,height=24,"
        "pixel-aspect-ratio=1/1";
    const gchar *same = "video/x-raw,width=64,height=48,"
        "pixel-aspect-ratio=1/1";
    GstVideoInfo in_info, out_info;
    GstBuffer *in, *out[3], *alias;
    gdouble forward[9];
    GstCaps *caps;
    gint worst;

    caps = gst_caps_from_string (in_caps);
    fail_unless (gst_video_info_from_caps (&in_info, caps));
    gst_caps_unref (caps);
    gst_video_info_set_format (&out_info, GST_VIDEO_INFO_FORMAT (&in_info),
        32, 24);
    in = random_frame (&in_info, format_layout (formats_here[f]), rand);

    /* 2x shrink */
    matrix_set (forward, 0.5, 0, 0, 0, 0.5, 0, 0, 0, 1);
    for (i = 0; i < 3; i++) {
      bspline_params params;
      gchar *what = g_strdup_printf ("antialias=%s", names[i]);

      out[i] = antialias_run (in_caps, half, in, names[i], NULL);
      default_params (&params);
      params.antialias = (bspline_antialias) i;
      check_against_reference (what, in, &in_info, NULL, out[i], &out_info,
          forward, &params);
      g_free (what);
    }
    for (i = 0; i < 3; i++)
      for (j = i + 1; j < 3; j++) {
        gint apart = antialias_samples_apart (out[i], out[j], &worst);

        GST_INFO ("%s 2x shrink: %s and %s: %d of %" G_GSIZE_FORMAT
            " samples apart, largest difference %d", formats_here[f],
            names[i], names[j], apart, gst_buffer_get_size (out[i]), worst);
        fail_unless (apart > (gint) gst_buffer_get_size (out[i]) / 4,
            "%s 2x shrink: antialias=%s and %s differ in %d samples only "
            "(largest difference %d; seed %u)", formats_here[f], names[i],
            names[j], apart, worst, test_seed);
      }
    alias = antialias_run (in_caps, half, in, "true", NULL);
    fail_unless (antialias_samples_apart (alias, out[1], &worst) == 0
        && worst == 0, "%s: antialias=true is not least-squares",
        formats_here[f]);
    gst_buffer_unref (alias);
    alias = antialias_run (in_caps, half, in, "false", NULL);
    fail_unless (antialias_samples_apart (alias, out[0], &worst) == 0
        && worst == 0, "%s: antialias=false is not none", formats_here[f]);
    gst_buffer_unref (alias);
    for (i = 0; i < 3; i++)
      gst_buffer_unref (out[i]);

    /* 1:1, shifted by 0.37 pixels */
    for (i = 0; i < 3; i++)
      out[i] = antialias_run (in_caps, same, in, names[i], "0.37");
    fail_unless (antialias_samples_apart (in, out[0], &worst) > 0,
        "%s: the shift did not resample", formats_here[f]);
    for (i = 1; i < 3; i++) {
      antialias_samples_apart (out[0], out[i], &worst);
      fail_unless (worst == 0, "%s 1:1: antialias=%s differs from none "
          "by %d (seed %u)", formats_here[f], names[i], worst, test_seed);
    }
    for (i = 0; i < 3; i++)
      gst_buffer_unref (out[i]);

    gst_buffer_unref (in);
    g_free (in_caps);
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* ---- lens-profile and gamma-mode (issue 43) ---- */

/* The warning of setting a lens profile at path while the harness's
 * element plays (NULL: none posted). */
static gchar *
set_profile_expect_warning (GstHarness * h, const gchar * path)
{
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *error = NULL;
  gchar *text = NULL;

  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "lens-profile", path, NULL);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  if (msg) {
    gst_message_parse_warning (msg, &error, NULL);
    text = g_strdup (error->message);
    g_error_free (error);
    gst_message_unref (msg);
  }
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  return text;
}

/* Hostile Gyroflow lens profiles (tests/elements/test_lens_profile.py
 * runs 33 in the normal pass; here the reader runs under the sanitizer
 * setups), set while the element plays: each refused with a warning that
 * names the reason, the frames going on without it; a good profile
 * resamples.  gamma-mode=remap resamples RGBA and refuses I420 with what
 * it takes. */
GST_START_TEST (test_lens_profile_and_gamma)
{
  static const struct
  {
    const gchar *content, *word;
  } bad[] = {
    {"", "is empty"},
    {"{\"calib_dimension\": ", "not JSON"},
    {"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
          "]]]]]]]]", "deeper"},
    {"{\"calib_dimension\": {\"w\": 16, \"h\": 16}}", "fisheye_params"},
    {"{\"calib_dimension\": {\"w\": \"16\", \"h\": 16}}", "whole number"},
    {"{\"calib_dimension\": {\"w\": 16, \"h\": 16}, \"fisheye_params\": "
          "{\"camera_matrix\": [[1e999, 0, 8], [0, 10, 8], [0, 0, 1]], "
          "\"distortion_coeffs\": []}}", "finite"},
    {"{\"calib_dimension\": {\"w\": 16, \"h\": 16}, \"fisheye_params\": "
          "{\"camera_matrix\": [[10, 0, 8], [0, 10, 8], [0, 0, 1]], "
          "\"distortion_coeffs\": [0.1]}, \"distortion_model\": \"poly5\"}",
        "poly5"},
  };
  const gchar *caps = "video/x-raw,format=RGBA,width=16,height=16,"
      "framerate=30/1";
  gchar *dir = g_dir_make_tmp ("bspline-lens-profile-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "profile.json", NULL);
  GstHarness *h;
  GstBuffer *in = grey_buffer (16 * 16 * 4), *out;
  gchar *text;
  guint i;

  h = harness_new (caps, "video/x-raw");
  for (i = 0; i <= G_N_ELEMENTS (bad); i++) {
    const gchar *word = i < G_N_ELEMENTS (bad) ? bad[i].word : "directory";
    if (i < G_N_ELEMENTS (bad))
      fail_unless (g_file_set_contents (path, bad[i].content, -1, NULL));
    text = set_profile_expect_warning (h, i < G_N_ELEMENTS (bad) ? path : dir);
    fail_unless (text && strstr (text, word) && strstr (text, "lens-profile"),
        "case %u: %s", i, text);
    g_free (text);
    out = push_pull (h, in);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);

  /* a good one, of another size than the frames */
  fail_unless (g_file_set_contents (path, "{\"calib_dimension\": {\"w\": 32, "
          "\"h\": 32}, \"fisheye_params\": {\"camera_matrix\": [[40, 0, "
          "15.5], [0, 40, 15.5], [0, 0, 1]], \"distortion_coeffs\": [0.01, "
          "0, 0, 0]}}", -1, NULL));
  h = harness_new (caps, "video/x-raw");
  fail_unless (set_profile_expect_warning (h, path) == NULL);
  g_object_set (h->element, "gamma-mode", 1, NULL);
  out = push_pull (h, in);
  fail_unless_equals_int (gst_buffer_get_size (out), 16 * 16 * 4);
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  /* gamma-mode=remap on I420 */
  h = harness_new ("video/x-raw,format=I420,width=16,height=16,"
      "framerate=30/1", "video/x-raw,width=8,height=8");
  g_object_set (h->element, "gamma-mode", 1, NULL);
  text = push_expect_error (h, grey_buffer (16 * 16 * 3 / 2));
  fail_unless (strstr (text, "RGB in one plane") != NULL, "%s", text);
  g_free (text);
  gst_harness_teardown (h);

  gst_buffer_unref (in);
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;

static Suite *
bsplinewarp_suite (void)
{
  Suite *s = suite_create ("bsplinewarp");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_formats);
  tcase_add_test (tc, test_sizes);
  tcase_add_test (tc, test_add_borders_keep_one_pixel);
  tcase_add_test (tc, test_padded_strides);
  tcase_add_test (tc, test_chroma_siting);
  tcase_add_test (tc, test_translation_and_borders);
  tcase_add_test (tc, test_contract_example);
  tcase_add_test (tc, test_fill_color);
  tcase_add_test (tc, test_fill_color_every_format_like_videoconvert);
  tcase_add_test (tc, test_video_direction);
  tcase_add_test (tc, test_video_direction_auto);
  tcase_add_test (tc, test_fixation_like_videoscale);
  tcase_add_test (tc, test_passthrough);
  tcase_add_test (tc, test_stress_and_renegotiation);
  tcase_add_test (tc, test_controlled_rotation);
  tcase_add_test (tc, test_bad_input);
  tcase_add_test (tc, test_bad_buffers);
  tcase_add_test (tc, test_bad_geometry_and_properties);
  tcase_add_test (tc, test_n_threads_1024_runs);
  tcase_add_test (tc, test_stream_events);
  tcase_add_test (tc, test_very_wide);
  tcase_add_test (tc, test_shared_settings);
  tcase_add_test (tc, test_antialias_property);
  tcase_add_test (tc, test_antialias_values);
  tcase_add_test (tc, test_lens_profile_and_gamma);
  return s;
}

int
main (int argc, char **argv)
{
  return run_bsplinewarp_suite (&argc, &argv, bsplinewarp_suite,
      "bsplinewarp", __FILE__);
}
