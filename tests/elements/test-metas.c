/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-metas: bsplinewarp's metas and navigation events (issue 24;
 * docs/element.md, "Metas" and "Navigation").
 *
 * - GstVideoRegionOfInterestMeta: a pure scaling (2x, and 40x30 -> 100x70
 *   without borders) gives videoscale's meta, run on the same buffer;
 *   video-direction=90r, rotation=30 and a perspective matrix give the
 *   bounding box of the region's corners mapped by the forward map
 *   written here from the properties' documented meaning (about the
 *   pivot, clockwise, homogeneous), clipped; a lens stage: every output
 *   pixel that samples the region (found through the pixel values of an
 *   image whose pixels are all distinct, order 0) lies in the box, and the
 *   box is no larger than those pixels' extent plus 2 pixels; a region
 *   mapped outside the frame is dropped.
 * - A meta tagged with a tag other than the video ones is dropped, an
 *   untagged meta is copied, a size-tagged meta is scaled by its own
 *   transform under a scaling and dropped under a rotation.
 * - Navigation: (6, 2) after a 2x upscale reaches upstream as (3, 1);
 *   after an upscale, a rotation and a perspective, for every output
 *   pixel that shows input pixel (a, b) (distinct values, order 0, no
 *   antialiasing), the pointer sent at its centre reaches upstream inside
 *   pixel (a, b); where the output shows the fill it reaches upstream
 *   outside the input frame, unclamped; beyond a perspective's horizon
 *   the event is dropped.
 */
#include <math.h>
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "backend-check.h"

#define PI 3.14159265358979323846

static GstHarness *
harness (const gchar * launch, gint in_w, gint in_h, const gchar * format,
    gint out_w, gint out_h)
{
  const gchar *backend = g_getenv ("BSPLINE_TEST_BACKEND");
  /* bsplinewarp on the backend the environment names (tests/gpu runs this
   * suite with cuda) */
  gchar *line = backend && *backend && g_str_has_prefix (launch,
      "bsplinewarp") ? g_strdup_printf ("%s backend=%s", launch, backend) :
      g_strdup (launch);
  GstHarness *h = gst_harness_new_parse (line);
  gchar *in = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
      "framerate=30/1,pixel-aspect-ratio=1/1", format, in_w, in_h);
  gchar *out = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
      "framerate=30/1,pixel-aspect-ratio=1/1", format, out_w, out_h);

  gst_harness_set_src_caps_str (h, in);
  gst_harness_set_sink_caps_str (h, out);
  g_free (in);
  g_free (out);
  g_free (line);
  return h;
}

/* Samples in a row of a GRAY16 frame w wide (rows of 4-byte multiples). */
#define GRAY16_STRIDE(w) (GST_ROUND_UP_4 ((w) * 2) / 2)

/* A GRAY16 frame whose pixel (a, b) holds b * w + a + 1 (0 is the fill). */
static GstBuffer *
index_frame (gint w, gint hgt)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL,
      (gsize) GRAY16_STRIDE (w) * hgt * 2, NULL);
  GstMapInfo map;
  gint a, b;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (b = 0; b < hgt; b++)
    for (a = 0; a < w; a++)
      ((guint16 *) map.data)[b * GRAY16_STRIDE (w) + a] =
          (guint16) (b * w + a + 1);
  gst_buffer_unmap (buf, &map);
  return buf;
}

/* Pushes in and pulls its output; with the CUDA engine a frame leaves
 * when the next one arrives (frames in flight), so drain first. */
static GstBuffer *
push_pull (GstHarness * h, GstBuffer * in)
{
  GstQuery *drain = gst_query_new_drain ();

  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  gst_pad_peer_query (h->srcpad, drain);
  gst_query_unref (drain);
  return gst_harness_pull (h);
}

/* The ROI meta with id `id` on buf, or NULL. */
static GstVideoRegionOfInterestMeta *
roi_meta (GstBuffer * buf, gint id)
{
  return gst_buffer_get_video_region_of_interest_meta_id (buf, id);
}

static GstBuffer *
with_roi (GstBuffer * buf, gint id, guint x, guint y, guint w, guint hgt)
{
  GstVideoRegionOfInterestMeta *m =
      gst_buffer_add_video_region_of_interest_meta (buf, "face", x, y, w, hgt);

  m->id = id;
  m->parent_id = 7;
  gst_video_region_of_interest_meta_add_param (m,
      gst_structure_new ("detection", "confidence", G_TYPE_DOUBLE, 0.9, NULL));
  return buf;
}

/* ---- scaling: as videoscale ---- */

static void
check_like_videoscale (gint in_w, gint in_h, gint out_w, gint out_h,
    const gchar * borders)
{
  gchar *ours = g_strdup_printf ("bsplinewarp add-borders=%s", borders);
  gchar *theirs = g_strdup_printf ("videoscale add-borders=%s", borders);
  GstHarness *a = harness (ours, in_w, in_h, "GRAY8", out_w, out_h);
  GstHarness *b = harness (theirs, in_w, in_h, "GRAY8", out_w, out_h);
  GstBuffer *in = gst_buffer_new_allocate (NULL, (gsize) in_w * in_h, NULL);
  GstBuffer *oa, *ob;
  GstVideoRegionOfInterestMeta *ma, *mb;
  gint id;

  gst_buffer_memset (in, 0, 128, (gsize) in_w * in_h);
  with_roi (in, 1, 5, 7, 11, 13);
  with_roi (in, 2, 0, 0, in_w, in_h);
  with_roi (in, 3, 3, 1, 1, 1);
  oa = push_pull (a, in);
  ob = push_pull (b, in);
  for (id = 1; id <= 3; id++) {
    ma = roi_meta (oa, id);
    mb = roi_meta (ob, id);
    fail_unless (mb != NULL, "videoscale dropped roi %d", id);
    fail_unless (ma != NULL, "%dx%d -> %dx%d: roi %d dropped", in_w, in_h,
        out_w, out_h, id);
    fail_unless (ma->x == mb->x && ma->y == mb->y && ma->w == mb->w
        && ma->h == mb->h && ma->parent_id == mb->parent_id
        && ma->roi_type == mb->roi_type,
        "%dx%d -> %dx%d roi %d: (%u, %u, %ux%u), videoscale's (%u, %u, "
        "%ux%u)", in_w, in_h, out_w, out_h, id, ma->x, ma->y, ma->w, ma->h,
        mb->x, mb->y, mb->w, mb->h);
  }
  gst_buffer_unref (in);
  gst_buffer_unref (oa);
  gst_buffer_unref (ob);
  gst_harness_teardown (a);
  gst_harness_teardown (b);
  g_free (ours);
  g_free (theirs);
}

GST_START_TEST (test_roi_scaling_like_videoscale)
{
  check_like_videoscale (40, 30, 80, 60, "true");
  check_like_videoscale (40, 30, 100, 70, "false");
  check_like_videoscale (64, 48, 30, 17, "false");
}

GST_END_TEST;

/* ---- warps: the bounding box of the mapped outline ---- */

/* The forward map of the properties (docs/element.md, "Geometry
 * contract"), about the pivot P: a 3x3 matrix applied to p - P. */
typedef struct
{
  gdouble m[9];
  gdouble px, py;
} Forward;

static void
forward_point (const Forward * f, gdouble x, gdouble y, gdouble * u,
    gdouble * v)
{
  gdouble dx = x - f->px, dy = y - f->py;
  gdouble w = f->m[6] * dx + f->m[7] * dy + f->m[8];

  *u = f->px + (f->m[0] * dx + f->m[1] * dy + f->m[2]) / w;
  *v = f->py + (f->m[3] * dx + f->m[4] * dy + f->m[5]) / w;
}

/* The expected box: corners (a straight-line map keeps edges straight),
 * floor and ceil, clipped to the frame; FALSE where nothing is left. */
static gboolean
expected_box (const Forward * f, gint x, gint y, gint w, gint hgt,
    gint out_w, gint out_h, gint box[4])
{
  gdouble cx[4] = { x, x + w, x + w, x }, cy[4] = { y, y, y + hgt, y + hgt };
  gdouble x0 = G_MAXDOUBLE, y0 = G_MAXDOUBLE, x1 = -G_MAXDOUBLE,
      y1 = -G_MAXDOUBLE;
  gint k;

  for (k = 0; k < 4; k++) {
    gdouble u, v;
    forward_point (f, cx[k], cy[k], &u, &v);
    x0 = MIN (x0, u);
    x1 = MAX (x1, u);
    y0 = MIN (y0, v);
    y1 = MAX (y1, v);
  }
  /* a corner on a whole pixel (quarter turns) up to rounding */
  x0 = floor (MAX (x0, 0.0) + 1e-6);
  y0 = floor (MAX (y0, 0.0) + 1e-6);
  x1 = ceil (MIN (x1, out_w) - 1e-6);
  y1 = ceil (MIN (y1, out_h) - 1e-6);
  if (!(x1 > x0 && y1 > y0))
    return FALSE;
  box[0] = (gint) x0;
  box[1] = (gint) y0;
  box[2] = (gint) (x1 - x0);
  box[3] = (gint) (y1 - y0);
  return TRUE;
}

static void
check_warp (const gchar * launch, gint in_w, gint in_h, gint out_w,
    gint out_h, const Forward * f)
{
  const gint rois[][4] = { {5, 7, 11, 13}, {0, 0, 64, 48}, {30, 20, 3, 2},
  {1, 40, 60, 6}
  };
  GstHarness *h = harness (launch, in_w, in_h, "GRAY8", out_w, out_h);
  GstBuffer *in = gst_buffer_new_allocate (NULL, (gsize) in_w * in_h, NULL);
  GstBuffer *out;
  guint k;

  gst_buffer_memset (in, 0, 128, (gsize) in_w * in_h);
  for (k = 0; k < G_N_ELEMENTS (rois); k++)
    with_roi (in, k + 1, rois[k][0], rois[k][1], rois[k][2], rois[k][3]);
  out = push_pull (h, in);
  for (k = 0; k < G_N_ELEMENTS (rois); k++) {
    GstVideoRegionOfInterestMeta *m = roi_meta (out, k + 1);
    gint box[4];

    if (!expected_box (f, rois[k][0], rois[k][1], rois[k][2], rois[k][3],
            out_w, out_h, box)) {
      fail_unless (m == NULL, "%s: roi %u should be dropped", launch, k + 1);
      continue;
    }
    fail_unless (m != NULL, "%s: roi %u dropped", launch, k + 1);
    fail_unless (m->x == (guint) box[0] && m->y == (guint) box[1]
        && m->w == (guint) box[2] && m->h == (guint) box[3],
        "%s: roi %u (%d, %d, %dx%d) -> (%u, %u, %ux%u), expected (%d, %d, "
        "%dx%d)", launch, k + 1, rois[k][0], rois[k][1], rois[k][2],
        rois[k][3], m->x, m->y, m->w, m->h, box[0], box[1], box[2], box[3]);
    fail_unless (m->parent_id == 7 && g_list_length (m->params) == 1,
        "%s: roi %u lost its parent or parameters", launch, k + 1);
  }
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_START_TEST (test_roi_video_direction)
{
  /* 90r: (x, y) -> (H - y, x), an exact quarter turn of the 64x48 frame */
  Forward f = { {0, -1, 0, 1, 0, 0, 0, 0, 1}, 0, 0 };

  f.m[2] = 48;
  check_warp ("bsplinewarp video-direction=90r", 64, 48, 48, 64, &f);
}

GST_END_TEST;

GST_START_TEST (test_roi_rotation)
{
  gdouble c = cos (30 * PI / 180), s = sin (30 * PI / 180);
  /* clockwise on screen, y down: [[c, -s], [s, c]] about the centre */
  Forward f = { {c, -s, 0, s, c, 0, 0, 0, 1}, 32, 24 };

  check_warp ("bsplinewarp rotation=30", 64, 48, 64, 48, &f);
  /* a region turned out of the frame is dropped: rotated by 180 degrees
   * about the top-left corner, everything lands outside */
  {
    Forward g = { {-1, 0, 0, 0, -1, 0, 0, 0, 1}, 0, 0 };
    check_warp ("bsplinewarp rotation=180 pivot-x=0 pivot-y=0", 64, 48, 64,
        48, &g);
  }
}

GST_END_TEST;

GST_START_TEST (test_roi_perspective)
{
  Forward f = { {1.0, 0.1, 0.0, 0.0, 1.0, 0.0, 0.0, 0.004, 1.0}, 32, 24 };

  check_warp ("bsplinewarp matrix=\"<1.0,0.1,0.0,0.0,1.0,0.0,0.0,0.004,"
      "1.0>\"", 64, 48, 64, 48, &f);
}

GST_END_TEST;

/* The input pixel that output pixel (i, j) shows, or FALSE for the fill. */
static gboolean
shown_pixel (const guint16 * out, gint out_w, gint i, gint j, gint in_w,
    gint * a, gint * b)
{
  guint16 v = out[j * GRAY16_STRIDE (out_w) + i];

  if (v == 0)
    return FALSE;
  *a = (v - 1) % in_w;
  *b = (v - 1) / in_w;
  return TRUE;
}

#define NEAREST "order=0 antialias=none boundary=constant " \
    "fill-color=0xff000000 precision=double"

GST_START_TEST (test_roi_lens)
{
  const gint W = 64, H = 48, rx = 4, ry = 3, rw = 20, rh = 15;
  GstHarness *h = harness ("bsplinewarp " NEAREST " lens-model=brown "
      "camera-matrix=\"<50.0,50.0,31.5,23.5>\" "
      "distortion=\"<-0.25,0.05,0.0,0.0,0.0>\"", W, H, "GRAY16_LE", W, H);
  GstBuffer *in = with_roi (index_frame (W, H), 1, rx, ry, rw, rh), *out;
  GstVideoRegionOfInterestMeta *m;
  GstMapInfo map;
  gint i, j, n = 0, x0 = W, y0 = H, x1 = 0, y1 = 0;

  out = push_pull (h, in);
  m = roi_meta (out, 1);
  fail_unless (m != NULL, "the lens dropped the region");
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  for (j = 0; j < H; j++)
    for (i = 0; i < W; i++) {
      gint a, b;
      if (!shown_pixel ((const guint16 *) map.data, W, i, j, W, &a, &b)
          || a < rx || a >= rx + rw || b < ry || b >= ry + rh)
        continue;
      n++;
      fail_unless ((guint) i >= m->x && (guint) i < m->x + m->w
          && (guint) j >= m->y && (guint) j < m->y + m->h,
          "output pixel (%d, %d) samples input (%d, %d) of the region, "
          "outside the box (%u, %u, %ux%u)", i, j, a, b, m->x, m->y, m->w,
          m->h);
      x0 = MIN (x0, i);
      y0 = MIN (y0, j);
      x1 = MAX (x1, i + 1);
      y1 = MAX (y1, j + 1);
    }
  gst_buffer_unmap (out, &map);
  fail_unless (n > 50, "only %d output pixels sample the region", n);
  /* the region is barrel-distorted: not the identity's box */
  fail_if (m->x == (guint) rx && m->y == (guint) ry && m->w == (guint) rw
      && m->h == (guint) rh, "the lens left the region as it was");
  fail_unless ((gint) m->x >= x0 - 2 && (gint) m->y >= y0 - 2
      && (gint) (m->x + m->w) <= x1 + 2 && (gint) (m->y + m->h) <= y1 + 2,
      "box (%u, %u, %ux%u) larger than the pixels that sample the region "
      "(%d, %d)-(%d, %d)", m->x, m->y, m->w, m->h, x0, y0, x1, y1);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- metas of other kinds ---- */

static GType
test_meta_api (const gchar * name, const gchar ** tags)
{
  return gst_meta_api_type_register (name, tags);
}

typedef struct
{
  GstMeta meta;
  gint value;
} TestMeta;

static gboolean
test_meta_init (GstMeta * meta, G_GNUC_UNUSED gpointer params,
    G_GNUC_UNUSED GstBuffer * buffer)
{
  ((TestMeta *) meta)->value = 0;
  return TRUE;
}

/* copies; "scales" by adding 1000 to the value */
static gboolean
test_meta_transform (GstBuffer * dest, GstMeta * meta,
    G_GNUC_UNUSED GstBuffer * buffer, GQuark type, G_GNUC_UNUSED gpointer data)
{
  TestMeta *out;

  if (!GST_META_TRANSFORM_IS_COPY (type)
      && !GST_VIDEO_META_TRANSFORM_IS_SCALE (type))
    return FALSE;
  out = (TestMeta *) gst_buffer_add_meta (dest, meta->info, NULL);
  out->value = ((TestMeta *) meta)->value
      + (GST_VIDEO_META_TRANSFORM_IS_SCALE (type) ? 1000 : 0);
  return TRUE;
}

static const GstMetaInfo *
test_meta_info (const gchar * api_name, const gchar * impl, const gchar ** tags)
{
  GType api = test_meta_api (api_name, tags);

  return gst_meta_register (api, impl, sizeof (TestMeta), test_meta_init,
      NULL, test_meta_transform);
}

static gint
meta_value (GstBuffer * buf, const GstMetaInfo * info)
{
  TestMeta *m = (TestMeta *) gst_buffer_get_meta (buf, info->api);
  return m ? m->value : -1;
}

GST_START_TEST (test_other_metas)
{
  static const gchar *untagged[] = { NULL };
  static const gchar *foreign[] = { GST_META_TAG_VIDEO_STR, "foo", NULL };
  static const gchar *sized[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_SIZE_STR, NULL
  };
  const GstMetaInfo *i_untagged = test_meta_info ("TestUntaggedAPI",
      "TestUntagged", untagged);
  const GstMetaInfo *i_foreign = test_meta_info ("TestForeignAPI",
      "TestForeign", foreign);
  const GstMetaInfo *i_sized = test_meta_info ("TestSizedAPI", "TestSized",
      sized);
  const gchar *launches[] = { "bsplinewarp", "bsplinewarp rotation=30" };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (launches); k++) {
    GstHarness *h = harness (launches[k], 32, 24, "GRAY8", 64, 48);
    GstBuffer *in = gst_buffer_new_allocate (NULL, 32 * 24, NULL), *out;

    gst_buffer_memset (in, 0, 9, 32 * 24);
    ((TestMeta *) gst_buffer_add_meta (in, i_untagged, NULL))->value = 1;
    ((TestMeta *) gst_buffer_add_meta (in, i_foreign, NULL))->value = 2;
    ((TestMeta *) gst_buffer_add_meta (in, i_sized, NULL))->value = 3;
    out = push_pull (h, in);
    fail_unless_equals_int (meta_value (out, i_untagged), 1);
    fail_unless_equals_int (meta_value (out, i_foreign), -1);
    /* scaled by its transform under a scaling; no warp transform */
    fail_unless_equals_int (meta_value (out, i_sized), k == 0 ? 1003 : -1);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* ---- navigation ---- */

/* Sends a pointer event at (u, v) into the element's source pad; TRUE and
 * the coordinates that reached upstream, or FALSE where none did. */
static gboolean
navigate (GstHarness * h, gboolean press, gdouble u, gdouble v, gdouble * x,
    gdouble * y)
{
  GstEvent *ev = press ? gst_navigation_event_new_mouse_button_press (1, u, v,
      GST_NAVIGATION_MODIFIER_NONE) :
      gst_navigation_event_new_mouse_move (u, v, GST_NAVIGATION_MODIFIER_NONE);
  GstEvent *up;

  gst_harness_push_upstream_event (h, ev);
  while ((up = gst_harness_try_pull_upstream_event (h)) != NULL) {
    if (GST_EVENT_TYPE (up) == GST_EVENT_NAVIGATION) {
      fail_unless (gst_navigation_event_get_coordinates (up, x, y));
      gst_event_unref (up);
      return TRUE;
    }
    gst_event_unref (up);
  }
  return FALSE;
}

GST_START_TEST (test_navigation_upscale_example)
{
  GstHarness *h = harness ("bsplinewarp", 16, 12, "GRAY8", 32, 24);
  GstBuffer *in = gst_buffer_new_allocate (NULL, 16 * 12, NULL), *out;
  gdouble x, y;

  gst_buffer_memset (in, 0, 1, 16 * 12);
  out = push_pull (h, in);
  fail_unless (navigate (h, FALSE, 6, 2, &x, &y));
  fail_unless (x == 3.0 && y == 1.0, "(6, 2) -> (%.17g, %.17g)", x, y);
  fail_unless (navigate (h, TRUE, 6, 2, &x, &y));
  fail_unless (x == 3.0 && y == 1.0, "(6, 2) -> (%.17g, %.17g)", x, y);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Every output pixel: the pointer at its centre reaches upstream in the
 * pixel it shows, or outside the input frame where it shows the fill. */
static void
check_navigation (const gchar * props, gint in_w, gint in_h, gint out_w,
    gint out_h, gint * n_dropped)
{
  gchar *launch = g_strdup_printf ("bsplinewarp " NEAREST " %s", props);
  GstHarness *h = harness (launch, in_w, in_h, "GRAY16_LE", out_w, out_h);
  GstBuffer *in = index_frame (in_w, in_h), *out;
  GstMapInfo map;
  gint i, j, n_shown = 0, n_fill = 0;

  *n_dropped = 0;
  out = push_pull (h, in);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  for (j = 0; j < out_h; j++)
    for (i = 0; i < out_w; i++) {
      gdouble x, y;
      gint a, b;
      gboolean shows = shown_pixel ((const guint16 *) map.data, out_w, i, j,
          in_w, &a, &b);

      if (!navigate (h, (i + j) % 2, i + 0.5, j + 0.5, &x, &y)) {
        fail_if (shows, "%s: output pixel (%d, %d) shows (%d, %d), but its "
            "event was dropped", launch, i, j, a, b);
        (*n_dropped)++;
        continue;
      }
      if (shows) {
        n_shown++;
        fail_unless (floor (x) == a && floor (y) == b,
            "%s: output pixel (%d, %d) shows input (%d, %d); its pointer "
            "went upstream as (%.9g, %.9g)", launch, i, j, a, b, x, y);
      } else {
        n_fill++;
        fail_unless (x < 0 || y < 0 || x >= in_w || y >= in_h,
            "%s: output pixel (%d, %d) shows the fill; its pointer went "
            "upstream as (%.9g, %.9g), inside the frame", launch, i, j, x, y);
      }
    }
  gst_buffer_unmap (out, &map);
  fail_unless (n_shown > out_w * out_h / 3, "%s: only %d pixels show the "
      "input", launch, n_shown);
  GST_INFO ("%s: %d shown, %d fill, %d dropped", launch, n_shown, n_fill,
      *n_dropped);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_free (launch);
}

GST_START_TEST (test_navigation_per_pixel)
{
  gint dropped;

  check_navigation ("", 24, 18, 48, 36, &dropped);
  fail_unless_equals_int (dropped, 0);
  check_navigation ("", 40, 30, 17, 13, &dropped);
  check_navigation ("rotation=30", 40, 30, 40, 30, &dropped);
  fail_unless_equals_int (dropped, 0);
  check_navigation ("video-direction=90l", 40, 30, 30, 40, &dropped);
  check_navigation ("rotation=-17 zoom=1.3 translate-x=3", 40, 30, 52, 39,
      &dropped);
  check_navigation ("matrix=\"<1.0,0.1,0.0,0.0,1.0,0.0,0.0,0.004,1.0>\"",
      40, 30, 40, 30, &dropped);
  fail_unless_equals_int (dropped, 0);
  /* a horizon at output row 15 + 1 / 0.1 = 25 of 30: rows below it have
   * no input point, and their events are dropped */
  check_navigation ("matrix=\"<1.0,0.0,0.0,0.0,1.0,0.0,0.0,0.1,1.0>\"",
      40, 30, 40, 30, &dropped);
  fail_unless (dropped > 0, "no event dropped beyond the horizon");
}

GST_END_TEST;

static Suite *
metas_suite (void)
{
  Suite *s = suite_create ("bsplinewarp-metas");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_roi_scaling_like_videoscale);
  tcase_add_test (tc, test_roi_video_direction);
  tcase_add_test (tc, test_roi_rotation);
  tcase_add_test (tc, test_roi_perspective);
  tcase_add_test (tc, test_roi_lens);
  tcase_add_test (tc, test_other_metas);
  tcase_add_test (tc, test_navigation_upscale_example);
  tcase_add_test (tc, test_navigation_per_pixel);
  return s;
}

int
main (int argc, char **argv)
{
  return run_bsplinewarp_suite (&argc, &argv, metas_suite, "metas", __FILE__);
}
