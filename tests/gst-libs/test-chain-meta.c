/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-chain-meta: GstBSplineChainMeta (gst-libs/gst/bspline/).
 *
 * - The API's tags (video, size, orientation); a frame size below 1 is
 *   refused; a homography is stored inverted, and a singular or
 *   non-finite one (and a stage whose inverse is) is refused with nothing
 *   appended; lens and STMap stages are counted.
 * - Copies: a whole copy keeps the chain (an STMap stage's object lives
 *   as long as the copy, after the original buffer and the caller's
 *   reference are gone: ASan and valgrind see a use after free
 *   otherwise); a copy of a region drops it.
 * - Scaling (the "gst-video-scale" transform): for chains of homographies,
 *   a lens stage and an STMap stage at either end and in the middle, and
 *   scalings that enlarge, shrink and change the aspect, the scaled
 *   chain maps every output point y' of the new frame to S p, where p is
 *   the old chain's point for S^-1 y' and S = diag (w' / w, h' / h): the
 *   picture the chain makes, scaled with the frame (within 1e-9 px).
 *   An empty chain stays empty with the new size.
 * - Through GStreamer's elements: videoscale scales the meta to its output
 *   frame (the same check), videoflip drops it.
 */
#include <math.h>
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/bspline/bspline-chain-meta.h>

#include "bspline-stmap.h"

/* The chain's map from an output point (u, v) of its frame to the point
 * of the pixels the buffer holds: every stage's inverse, the last stage
 * first (bspline-chain.h), through the core's own evaluation. */
static gboolean
chain_map (const GstBSplineChainMeta * chain, gdouble u, gdouble v,
    gdouble * x, gdouble * y)
{
  guint i;

  for (i = chain->n_stages; i-- > 0;) {
    const bspline_chain_stage *stage = &chain->stages[i];

    if (!bspline_stage_map_point (stage->inverse, &stage->lens,
            stage->lens.model != BSPLINE_LENS_NONE, u, v, &u, &v))
      return FALSE;
  }
  *x = u;
  *y = v;
  return TRUE;
}

/* A Brown lens stage applying its distortion (no fold: every point has
 * an image), its domain 1/400 of a pixel about the frame's centre. */
static void
brown_stage (bspline_chain_stage * stage, gint w, gint h)
{
  const gdouble norm[9] = { 1.0 / 400, 0.0, -0.5 * w / 400,
    0.0, 1.0 / 400, -0.5 * h / 400, 0.0, 0.0, 1.0
  };

  memset (stage, 0, sizeof (*stage));
  memcpy (stage->inverse, norm, sizeof (norm));
  stage->lens.model = BSPLINE_LENS_BROWN;
  stage->lens.k[0] = -0.08;
  stage->lens.k[1] = 0.01;
  stage->lens.k[2] = 0.002;
  stage->lens.fold = INFINITY;
  stage->lens.fold_r = INFINITY;
  stage->lens.post[0] = 400.0;
  stage->lens.post[2] = 0.5 * w;
  stage->lens.post[4] = 400.0;
  stage->lens.post[5] = 0.5 * h;
  stage->lens.post[8] = 1.0;
}

/* A 6x5 STMap of a w x h frame that bends it a little, as a stage (the
 * stage holds the only reference the caller leaves: *map). */
static void
stmap_stage (bspline_chain_stage * stage, gint w, gint h, bspline_stmap ** map)
{
  const gint mw = 6, mh = 5;
  gdouble st[2 * 6 * 5];
  gchar msg[256];
  gint i, j;

  for (j = 0; j < mh; j++) {
    for (i = 0; i < mw; i++) {
      gdouble s = (i + 0.5) / mw, t = 1.0 - (j + 0.5) / mh;
      st[2 * (j * mw + i)] = s + 0.01 * sin (3.0 * t);
      st[2 * (j * mw + i) + 1] = t + 0.02 * s * s;
    }
  }
  fail_unless_equals_int (bspline_stmap_new (st, mw, mh, map, msg,
          sizeof (msg)), BSPLINE_OK);
  memset (stage, 0, sizeof (*stage));
  /* output pixels of the w x h frame -> map samples */
  stage->inverse[0] = (gdouble) mw / w;
  stage->inverse[4] = (gdouble) mh / h;
  stage->inverse[8] = 1.0;
  stage->lens.model = BSPLINE_LENS_STMAP;
  stage->lens.map = bspline_stmap_coefficients (*map, NULL);
  stage->lens.map_w = mw;
  stage->lens.map_h = mh;
  stage->lens.stmap = *map;
  /* fractions of the frame -> input pixels */
  stage->lens.post[0] = w;
  stage->lens.post[4] = h;
  stage->lens.post[8] = 1.0;
}

static const gdouble rotate_shift[9] = {
  0.99, -0.12, 3.5, 0.11, 1.01, -2.25, 0.0, 0.0, 1.0
};

static const gdouble perspective[9] = {
  1.0, 0.05, 1.0, -0.02, 0.97, 0.5, 1e-4, -2e-4, 1.0
};

/* kinds of chain, stage by stage: h: rotate_shift, p: perspective,
 * b: brown lens, q: brown lens with a perspective post, s: STMap */
static const gchar *const chain_kinds[] = {
  "h", "b", "q", "s", "hb", "bh", "hbp", "shp", "hsb", "bps", "phs", "qhq"
};

static GstBuffer *
buffer_with_chain (const gchar * kind, gint w, gint h)
{
  GstBuffer *buffer = gst_buffer_new_allocate (NULL, (gsize) w * h, NULL);
  GstBSplineChainMeta *chain = gst_buffer_add_bspline_chain_meta (buffer, w,
      h);
  const gchar *c;

  fail_unless (chain != NULL);
  for (c = kind; *c; c++) {
    bspline_chain_stage stage;
    bspline_stmap *map;

    switch (*c) {
      case 'h':
        fail_unless (gst_bspline_chain_meta_add_homography (chain,
                rotate_shift));
        break;
      case 'p':
        fail_unless (gst_bspline_chain_meta_add_homography (chain,
                perspective));
        break;
      case 'b':
        brown_stage (&stage, w, h);
        fail_unless (gst_bspline_chain_meta_add_stage (chain, &stage));
        break;
      case 'q':
        brown_stage (&stage, w, h);
        stage.lens.post[6] = 0.02;
        stage.lens.post[7] = -0.01;
        fail_unless (gst_bspline_chain_meta_add_stage (chain, &stage));
        break;
      case 's':
        stmap_stage (&stage, w, h, &map);
        fail_unless (gst_bspline_chain_meta_add_stage (chain, &stage));
        bspline_stmap_unref (map);
        break;
      default:
        g_assert_not_reached ();
    }
  }
  fail_unless_equals_int (chain->n_stages, strlen (kind));
  return buffer;
}

/* The scaled chain against the old one on a grid of points over the new
 * frame (and a little beyond it). */
static void
check_scaled (const GstBSplineChainMeta * old,
    const GstBSplineChainMeta * scaled, const gchar * what)
{
  gdouble sx = (gdouble) scaled->width / old->width;
  gdouble sy = (gdouble) scaled->height / old->height;
  gint i, j, n = 0;

  for (j = -2; j <= 22; j++) {
    for (i = -2; i <= 22; i++) {
      gdouble u = scaled->width * i / 20.0, v = scaled->height * j / 20.0;
      gdouble x, y, xs, ys;
      gboolean ok = chain_map (old, u / sx, v / sy, &x, &y);

      fail_unless_equals_int (chain_map (scaled, u, v, &xs, &ys), ok);
      if (!ok)
        continue;
      n++;
      fail_unless (fabs (xs - sx * x) <= 1e-9 && fabs (ys - sy * y) <= 1e-9,
          "%s: %dx%d -> %dx%d at (%g, %g): (%.17g, %.17g), expected "
          "(%.17g, %.17g)", what, old->width, old->height, scaled->width,
          scaled->height, u, v, xs, ys, sx * x, sy * y);
    }
  }
  fail_unless (n > 500, "%s: only %d points mapped", what, n);
}

GST_START_TEST (test_api)
{
  GstBuffer *buffer = gst_buffer_new ();
  GstBSplineChainMeta *chain;
  const gdouble singular[9] = { 1, 2, 0, 2, 4, 0, 0, 0, 1 };
  const gdouble not_finite[9] = { 1, 0, NAN, 0, 1, 0, 0, 0, 1 };
  gdouble product[9];
  bspline_chain_stage stage;
  bspline_stmap *map;
  gint i;

  fail_unless (gst_meta_api_type_has_tag (GST_BSPLINE_CHAIN_META_API_TYPE,
          g_quark_from_string (GST_META_TAG_VIDEO_STR)));
  fail_unless (gst_meta_api_type_has_tag (GST_BSPLINE_CHAIN_META_API_TYPE,
          g_quark_from_string (GST_META_TAG_VIDEO_SIZE_STR)));
  fail_unless (gst_meta_api_type_has_tag (GST_BSPLINE_CHAIN_META_API_TYPE,
          g_quark_from_string (GST_META_TAG_VIDEO_ORIENTATION_STR)));
  fail_unless_equals_string (g_type_name (GST_BSPLINE_CHAIN_META_API_TYPE),
      "GstBSplineChainMetaAPI");
  fail_unless (GST_BSPLINE_CHAIN_META_INFO->api ==
      GST_BSPLINE_CHAIN_META_API_TYPE);

  fail_unless (gst_buffer_get_bspline_chain_meta (buffer) == NULL);
  ASSERT_CRITICAL (fail_unless (gst_buffer_add_bspline_chain_meta (buffer, 0,
              10) == NULL));
  ASSERT_CRITICAL (fail_unless (gst_buffer_add_bspline_chain_meta (buffer,
              10, -1) == NULL));
  chain = gst_buffer_add_bspline_chain_meta (buffer, 64, 48);
  fail_unless (chain != NULL);
  fail_unless (gst_buffer_get_bspline_chain_meta (buffer) == chain);
  fail_unless_equals_int (chain->width, 64);
  fail_unless_equals_int (chain->height, 48);
  fail_unless_equals_int (chain->n_stages, 0);

  fail_if (gst_bspline_chain_meta_add_homography (chain, singular));
  fail_if (gst_bspline_chain_meta_add_homography (chain, not_finite));
  memset (&stage, 0, sizeof (stage));
  memcpy (stage.inverse, singular, sizeof (singular));
  fail_if (gst_bspline_chain_meta_add_stage (chain, &stage));
  memcpy (stage.inverse, not_finite, sizeof (not_finite));
  fail_if (gst_bspline_chain_meta_add_stage (chain, &stage));
  /* an STMap stage without its object could not be kept alive */
  stmap_stage (&stage, 64, 48, &map);
  stage.lens.stmap = NULL;
  fail_if (gst_bspline_chain_meta_add_stage (chain, &stage));
  bspline_stmap_unref (map);
  fail_unless_equals_int (chain->n_stages, 0);

  /* stored inverted */
  fail_unless (gst_bspline_chain_meta_add_homography (chain, perspective));
  fail_unless_equals_int (chain->n_stages, 1);
  fail_unless_equals_int (chain->stages[0].lens.model, BSPLINE_LENS_NONE);
  bspline_matrix_multiply (perspective, chain->stages[0].inverse, product);
  for (i = 0; i < 9; i++)
    fail_unless (fabs (product[i] - (i % 4 == 0)) < 1e-12);
  fail_unless_equals_int (gst_bspline_chain_meta_count_lenses (chain), 0);

  brown_stage (&stage, 64, 48);
  fail_unless (gst_bspline_chain_meta_add_stage (chain, &stage));
  stmap_stage (&stage, 64, 48, &map);
  fail_unless (gst_bspline_chain_meta_add_stage (chain, &stage));
  bspline_stmap_unref (map);
  fail_unless (gst_bspline_chain_meta_add_homography (chain, rotate_shift));
  fail_unless_equals_int (chain->n_stages, 4);
  fail_unless_equals_int (gst_bspline_chain_meta_count_lenses (chain), 2);
  fail_unless_equals_int (chain->stages[2].lens.model, BSPLINE_LENS_STMAP);
  gst_buffer_unref (buffer);
}

GST_END_TEST;

GST_START_TEST (test_copy)
{
  GstBuffer *buffer = buffer_with_chain ("hsb", 40, 30), *copy, *region;
  GstBSplineChainMeta *chain, *copied;
  gdouble x0, y0, x1, y1;

  chain = gst_buffer_get_bspline_chain_meta (buffer);
  fail_unless (chain_map (chain, 17.5, 11.25, &x0, &y0));

  copy = gst_buffer_copy (buffer);
  region = gst_buffer_copy_region (buffer, GST_BUFFER_COPY_ALL, 0, 100);
  fail_unless (gst_buffer_get_bspline_chain_meta (region) == NULL);
  gst_buffer_unref (region);
  /* the copy outlives the original and the STMap's first owner */
  gst_buffer_unref (buffer);

  copied = gst_buffer_get_bspline_chain_meta (copy);
  fail_unless (copied != NULL);
  fail_unless_equals_int (copied->width, 40);
  fail_unless_equals_int (copied->height, 30);
  fail_unless_equals_int (copied->n_stages, 3);
  fail_unless_equals_int (gst_bspline_chain_meta_count_lenses (copied), 2);
  fail_unless (chain_map (copied, 17.5, 11.25, &x1, &y1));
  fail_unless (x0 == x1 && y0 == y1);
  gst_buffer_unref (copy);
}

GST_END_TEST;

/* The "gst-video-scale" transform, called as videoscale calls it. */
static GstBuffer *
scale_buffer (GstBuffer * buffer, gint w, gint h)
{
  GstBSplineChainMeta *chain = gst_buffer_get_bspline_chain_meta (buffer);
  GstBuffer *out = gst_buffer_new ();
  GstVideoInfo in_info, out_info;
  GstVideoMetaTransform trans = { &in_info, &out_info };

  gst_video_info_set_format (&in_info, GST_VIDEO_FORMAT_GRAY8, chain->width,
      chain->height);
  gst_video_info_set_format (&out_info, GST_VIDEO_FORMAT_GRAY8, w, h);
  fail_unless (chain->meta.info->transform_func (out, &chain->meta, buffer,
          gst_video_meta_transform_scale_get_quark (), &trans));
  return out;
}

GST_START_TEST (test_scale)
{
  const gint sizes[][2] = { {80, 60}, {20, 15}, {33, 70}, {40, 30}, {1, 1} };
  guint k, s;

  for (k = 0; k < G_N_ELEMENTS (chain_kinds); k++) {
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      GstBuffer *buffer = buffer_with_chain (chain_kinds[k], 40, 30);
      GstBuffer *scaled = scale_buffer (buffer, sizes[s][0], sizes[s][1]);
      GstBSplineChainMeta *chain = gst_buffer_get_bspline_chain_meta (scaled);

      fail_unless (chain != NULL);
      fail_unless_equals_int (chain->width, sizes[s][0]);
      fail_unless_equals_int (chain->height, sizes[s][1]);
      /* folded into the end stages, not added */
      fail_unless_equals_int (chain->n_stages, strlen (chain_kinds[k]));
      check_scaled (gst_buffer_get_bspline_chain_meta (buffer), chain,
          chain_kinds[k]);
      gst_buffer_unref (buffer);
      gst_buffer_unref (scaled);
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_scale_twice_and_empty)
{
  GstBuffer *buffer = buffer_with_chain ("bhs", 40, 30);
  GstBuffer *up = scale_buffer (buffer, 120, 45);
  GstBuffer *back = scale_buffer (up, 40, 30);
  GstBuffer *empty = gst_buffer_new (), *empty_scaled;
  GstBSplineChainMeta *chain;

  check_scaled (gst_buffer_get_bspline_chain_meta (buffer),
      gst_buffer_get_bspline_chain_meta (back), "there and back");
  gst_buffer_add_bspline_chain_meta (empty, 40, 30);
  empty_scaled = scale_buffer (empty, 64, 32);
  chain = gst_buffer_get_bspline_chain_meta (empty_scaled);
  fail_unless (chain != NULL);
  fail_unless_equals_int (chain->width, 64);
  fail_unless_equals_int (chain->height, 32);
  fail_unless_equals_int (chain->n_stages, 0);
  gst_buffer_unref (buffer);
  gst_buffer_unref (up);
  gst_buffer_unref (back);
  gst_buffer_unref (empty);
  gst_buffer_unref (empty_scaled);
}

GST_END_TEST;

/* One GRAY8 frame with a chain through the element factory (property set
 * to value where property is not NULL), from in_w x in_h to out_w x
 * out_h; the output buffer. */
static GstBuffer *
through_element (const gchar * factory, const gchar * property, gint value,
    GstBuffer * buffer, gint in_w, gint in_h, gint out_w, gint out_h)
{
  GstHarness *h = gst_harness_new (factory);
  gchar *in = g_strdup_printf ("video/x-raw,format=GRAY8,width=%d,height=%d,"
      "framerate=30/1,pixel-aspect-ratio=1/1", in_w, in_h);
  gchar *out = g_strdup_printf ("video/x-raw,format=GRAY8,width=%d,height=%d,"
      "framerate=30/1,pixel-aspect-ratio=1/1", out_w, out_h);
  GstBuffer *result;

  if (property)
    g_object_set (h->element, property, value, NULL);
  gst_harness_set_src_caps_str (h, in);
  gst_harness_set_sink_caps_str (h, out);
  fail_unless_equals_int (gst_harness_push (h, buffer), GST_FLOW_OK);
  result = gst_harness_pull (h);
  fail_unless (result != NULL);
  gst_harness_teardown (h);
  g_free (in);
  g_free (out);
  return result;
}

GST_START_TEST (test_elements)
{
  /* GRAY8 rows of 40 are 4-byte aligned: the buffer is the frame */
  GstBuffer *buffer = buffer_with_chain ("hbs", 40, 30), *out;
  GstBSplineChainMeta *chain;

  gst_buffer_ref (buffer);
  out = through_element ("videoscale", NULL, 0, buffer, 40, 30, 100, 52);
  chain = gst_buffer_get_bspline_chain_meta (out);
  fail_unless (chain != NULL, "videoscale dropped the chain");
  fail_unless_equals_int (chain->width, 100);
  fail_unless_equals_int (chain->height, 52);
  check_scaled (gst_buffer_get_bspline_chain_meta (buffer), chain,
      "videoscale");
  gst_buffer_unref (out);

  out = through_element ("videoflip", "video-direction",
      GST_VIDEO_ORIENTATION_HORIZ, buffer, 40, 30, 40, 30);
  fail_unless (gst_buffer_get_bspline_chain_meta (out) == NULL,
      "videoflip kept the chain");
  gst_buffer_unref (out);
}

GST_END_TEST;

static Suite *
chain_meta_suite (void)
{
  Suite *s = suite_create ("bspline-chain-meta");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_api);
  tcase_add_test (tc, test_copy);
  tcase_add_test (tc, test_scale);
  tcase_add_test (tc, test_scale_twice_and_empty);
  tcase_add_test (tc, test_elements);
  return s;
}

GST_CHECK_MAIN (chain_meta);
