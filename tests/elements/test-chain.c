/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstHarness tests of warp chains (docs/chains.md): bsplinewarp elements
 * with defer=true append their geometry to the buffer's GstBSplineChainMeta
 * and the element that resamples applies the whole chain at once.
 *
 *  - homographies, a lens and an STMap deferred, on every raw format: the
 *    chain's output against one bsplinewarp with the composed geometry
 *    (the matrices composed here from the core's geometry of each
 *    element; lens and STMap first, as one element orders its stages),
 *    within one code value, and the count of samples that differ printed;
 *  - two lens stages in one resampling: undistorting and distorting by
 *    the same camera is the identity, so the frame comes back;
 *  - a deferring element alone: the buffer it pushes is the input's memory
 *    with one stage, the inverse of its geometry;
 *  - where it cannot defer (downstream does not take the meta: the
 *    harness, videoconvert; another output size): a warning, and the
 *    output is what defer=false gives;
 *  - use-meta composes a GstVideoAffineTransformationMeta with the
 *    element's own geometry;
 *  - bad input: a chain of another frame size, a chain that overflows,
 *    a buffer with a chain into an identity (passthrough) element.
 * Random frames use a seed printed on failure. */
#include <math.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <glib/gstdio.h>
#include <gst/video/video.h>
#include <gst/bspline/bspline-chain-meta.h>

#include "backend-check.h"

#include "bspline.h"
#include "bspline-chain.h"
#include "bspline-geometry.h"
#include "warp-common.h"
#include "formats-common.h"
#include "stmap-common.h"

#define W 35
#define H 22
#define LENS "lens-model=brown camera-matrix=\"<30.0,31.0,17.2,10.6>\" " \
    "distortion=\"<-0.25,0.05,0.001,-0.002>\""

/* "bsplinewarp" in a launch line with the backend the environment names
 * (BSPLINE_TEST_BACKEND), so that tests/gpu runs the chains on CUDA. */
static gchar *
with_backend (const gchar * launch)
{
  const gchar *backend = g_getenv ("BSPLINE_TEST_BACKEND");
  gchar **parts, *with, *line;

  if (backend == NULL || !*backend)
    return g_strdup (launch);
  with = g_strdup_printf ("bsplinewarp backend=%s", backend);
  parts = g_strsplit (launch, "bsplinewarp", -1);
  line = g_strjoinv (with, parts);
  g_strfreev (parts);
  g_free (with);
  return line;
}

/* A harness around a launch line of elements, its bus in *bus where bus
 * is not NULL; takes_chain: the harness's sink takes the chain meta (as a
 * bspline element downstream would). */
static GstHarness *
chain_harness (const gchar * launch, const gchar * in_caps,
    const gchar * out_caps, GstBus ** bus, gboolean takes_chain)
{
  gchar *line = with_backend (launch);
  GstHarness *h = gst_harness_new_parse (line);

  g_free (line);
  if (takes_chain)
    gst_harness_add_propose_allocation_meta (h,
        GST_BSPLINE_CHAIN_META_API_TYPE, NULL);
  /* the bus first: the element warns when the caps are set */
  if (bus) {
    *bus = gst_bus_new ();
    gst_element_set_bus (h->element, *bus);
  }
  gst_harness_set_sink_caps_str (h, out_caps ? out_caps : in_caps);
  gst_harness_set_src_caps_str (h, in_caps);
  return h;
}

static void
chain_harness_teardown (GstHarness * h, GstBus * bus)
{
  if (bus) {
    gst_bus_set_flushing (bus, TRUE);
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
  }
  gst_harness_teardown (h);
}

static GstBuffer *
run_launch (const gchar * launch, const gchar * in_caps,
    const gchar * out_caps, GstBuffer * in)
{
  GstHarness *h = chain_harness (launch, in_caps, out_caps, NULL, FALSE);
  GstBuffer *out = push_pull (h, in);

  fail_unless (out != NULL, "%s: no output", launch);
  gst_harness_teardown (h);
  return out;
}

/* run_launch for a chain whose elements must all defer: none warns that
 * it resamples (on the GPU too, where CUDA memory is on offer). */
static GstBuffer *
run_deferred (const gchar * launch, const gchar * caps, GstBuffer * in)
{
  GstBus *bus;
  GstHarness *h = chain_harness (launch, caps, NULL, &bus, FALSE);
  GstBuffer *out = push_pull (h, in);
  GstMessage *warning = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);

  fail_unless (out != NULL, "%s: no output", launch);
  if (warning) {
    GError *err = NULL;
    gchar *debug = NULL;

    gst_message_parse_warning (warning, &err, &debug);
    fail ("%s on %s: %s", launch, caps, err->message);
  }
  chain_harness_teardown (h, bus);
  return out;
}

/* The forward matrix of a bsplinewarp on a W x H frame with rotation,
 * zoom and translation (the core's geometry, bspline-geometry.h). */
static void
element_forward (gdouble rotation, gdouble zoom, gdouble tx, gdouble ty,
    gdouble forward[9])
{
  bspline_geometry g;

  bspline_geometry_init (&g, W, H, W, H);
  g.rotation = rotation;
  g.zoom = zoom;
  g.translate_x = tx;
  g.translate_y = ty;
  fail_unless (bspline_geometry_warp (&g, forward, NULL, 0) == BSPLINE_OK);
}

static gchar *
matrix_arg (const gdouble m[9])
{
  return g_strdup_printf ("<%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,"
      "%.17g,%.17g>", m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]);
}

/* One unpack-scale step of the format's coarsest component: one code
 * value. */
static gint
code_value (const GstVideoFormatInfo * finfo)
{
  gint step = 1;
  guint c;

  for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++) {
    gint shift = unpack_depth (finfo) - GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c);

    /* (a palette's index unpacks to 8-bit ARGB) */
    step = MAX (step, 1 << CLAMP (shift, 0, 15));
  }
  return step;
}

/* The largest difference of two frames of info in code values (unpacked
 * samples), and how many samples differ at all. */
static gint
frame_difference (const GstVideoInfo * info, GstBuffer * a, GstBuffer * b,
    gsize * n_differ)
{
  guint16 *ra = unpack_frame (info, a), *rb = unpack_frame (info, b);
  gsize n = (gsize) GST_VIDEO_INFO_WIDTH (info) * 4 * frame_rows (info), i;
  gint step = code_value (info->finfo), worst = 0;

  *n_differ = 0;
  for (i = 0; i < n; i++) {
    gint d = ABS ((gint) ra[i] - (gint) rb[i]);
    if (d > 0)
      (*n_differ)++;
    worst = MAX (worst, (d + step - 1) / step);
  }
  g_free (ra);
  g_free (rb);
  return worst;
}

/* ---- the chain against one element with the composed geometry ---- */

/* Every format through `chain` and through `single`: at most one code
 * value apart; the share of samples that differ printed. */
static void
chain_every_format (const gchar * what, const gchar * chain,
    const gchar * single)
{
  const gchar *only = g_getenv ("BSPLINE_CHAIN_FORMATS");
  GPtrArray *names = every_format ();
  GRand *rand = seeded_rand ();
  gsize total = 0, differ = 0;
  guint i;

  /* BSPLINE_CHAIN_FORMATS="F1 F2 ...": those only (the valgrind setup) */
  if (only) {
    g_ptr_array_unref (names);
    names = g_ptr_array_new_with_free_func (g_free);
    {
      gchar **list = g_strsplit (only, " ", -1), **f;

      for (f = list; *f; f++)
        if (**f)
          g_ptr_array_add (names, g_strdup (*f));
      g_strfreev (list);
    }
  }
  for (i = 0; i < names->len; i++) {
    const gchar *format = g_ptr_array_index (names, i);
    gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
        "height=%d,framerate=30/1", format, W, H);
    GstVideoInfo info;
    GstBuffer *in, *a, *b;
    gsize n;
    gint worst;

    info_from_string (&info, caps);
    in = random_frame (&info, rand);
    a = run_deferred (chain, caps, in);
    b = run_launch (single, caps, NULL, in);
    fail_unless (gst_buffer_get_bspline_chain_meta (a) == NULL,
        "%s %s: the chain meta left the element that resampled", what, format);
    worst = frame_difference (&info, a, b, &n);
    fail_unless (worst <= 1, "%s %s: the chain and one element differ by %d "
        "code values (seed %u)", what, format, worst, test_seed);
    differ += n;
    total += (gsize) W *4 * frame_rows (&info);
    gst_buffer_unref (in);
    gst_buffer_unref (a);
    gst_buffer_unref (b);
    g_free (caps);
  }
  g_print ("chain %s: %u formats, %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
      " samples differ by one code value from one element\n", what,
      names->len, differ, total);
  g_ptr_array_unref (names);
  g_rand_free (rand);
}

GST_START_TEST (test_homographies_every_format)
{
  gdouble f1[9], f2[9], f3[9], tmp[9], f[9];
  gchar *m, *single;

  element_forward (7.0, 1.0, 0.0, 0.0, f1);
  element_forward (0.0, 1.15, 2.5, -1.25, f2);
  element_forward (-3.0, 0.9, 0.0, 0.0, f3);
  bspline_matrix_multiply (f2, f1, tmp);
  bspline_matrix_multiply (f3, tmp, f);
  m = matrix_arg (f);
  single = g_strdup_printf ("bsplinewarp pivot-x=0 pivot-y=0 matrix=\"%s\"", m);
  chain_every_format ("of three homographies",
      "bsplinewarp defer=true rotation=7 ! bsplinewarp defer=true zoom=1.15 "
      "translate-x=2.5 translate-y=-1.25 ! bsplinewarp rotation=-3 zoom=0.9",
      single);
  g_free (single);
  g_free (m);
}

GST_END_TEST;

GST_START_TEST (test_lens_every_format)
{
  chain_every_format ("with a lens stage",
      "bsplinewarp defer=true " LENS " ! bsplinewarp defer=true rotation=5 "
      "! bsplinewarp", "bsplinewarp " LENS " rotation=5");
}

GST_END_TEST;

GST_START_TEST (test_stmap_every_format)
{
  gchar *map = write_wave_stmap (2 * W, 2 * H, 0.03, 1.5);
  gchar *chain = g_strdup_printf ("bsplinewarp defer=true stmap-location=%s "
      "! bsplinewarp defer=true zoom=1.1 rotation=-4 ! bsplinewarp", map);
  gchar *single = g_strdup_printf ("bsplinewarp stmap-location=%s zoom=1.1 "
      "rotation=-4", map);

  chain_every_format ("with an STMap stage", chain, single);
  g_unlink (map);
  g_free (map);
  g_free (chain);
  g_free (single);
}

GST_END_TEST;

/* Issue 43, defect 1: stmap-location changed or unset while a frame runs.
 * Each frame uses the path of its settings snapshot (taken in
 * before_transform), so the frame during the change gets the old map and
 * no frame fails; before, the loader read the live property ("the STMap
 * stage has no map loaded" when it was unset in between).  The change
 * lands in that window deterministically: the input buffer carries a meta
 * of this test's whose transform function (called by GstBaseTransform
 * from prepare_output_buffer, after before_transform) sets the property.
 * After it, the removal takes effect at the next frame; a new map is read
 * on another thread (issue 43, defect 2), the frames keep the old map
 * until the element message says the new one is in use, and from that
 * frame on they have the new one. */
typedef struct
{
  GstMeta meta;
} TestLocationMeta;

static GstElement *test_location_element;
static const gchar *test_location_next;

static gboolean
test_location_meta_init (G_GNUC_UNUSED GstMeta * meta,
    G_GNUC_UNUSED gpointer params, G_GNUC_UNUSED GstBuffer * buffer)
{
  return TRUE;
}

static gboolean
test_location_meta_transform (G_GNUC_UNUSED GstBuffer * dest,
    G_GNUC_UNUSED GstMeta * meta, G_GNUC_UNUSED GstBuffer * buffer,
    G_GNUC_UNUSED GQuark type, G_GNUC_UNUSED gpointer data)
{
  g_object_set (test_location_element, "stmap-location", test_location_next,
      NULL);
  return TRUE;
}

static const GstMetaInfo *
test_location_meta_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter (&info)) {
    static const gchar *tags[] = { NULL };
    GType api = gst_meta_api_type_register ("TestLocationMetaAPI", tags);
    const GstMetaInfo *mi = gst_meta_register (api, "TestLocationMeta",
        sizeof (TestLocationMeta), test_location_meta_init, NULL,
        test_location_meta_transform);

    g_once_init_leave (&info, mi);
  }
  return info;
}

/* The pixels of two frames of info alike (not the rows' padding). */
static gboolean
frames_equal (const GstVideoInfo * info, GstBuffer * a, GstBuffer * b)
{
  guint16 *pa = unpack_frame (info, a), *pb = unpack_frame (info, b);
  gboolean equal = memcmp (pa, pb, sizeof (guint16) * 4 *
      GST_VIDEO_INFO_WIDTH (info) * frame_rows (info)) == 0;

  g_free (pa);
  g_free (pb);
  return equal;
}

/* The frame through a fresh element with stmap-location=path (NULL: none). */
static GstBuffer *
frame_with_map (const gchar * caps, const gchar * path, GstBuffer * in)
{
  GstHarness *h = harness_new (caps, caps);
  GstBuffer *out;

  g_object_set (h->element, "stmap-location", path, NULL);
  out = push_pull (h, in);
  gst_harness_teardown (h);
  return out;
}

/* The location of the element message saying a map went into use while
 * the last frame ran: TRUE where there is one (*location NULL: none).
 * Fails on an error message. */
static gboolean
pop_map_in_use (GstBus * bus, gchar ** location)
{
  GstMessage *msg;
  gboolean found = FALSE;

  while ((msg = gst_bus_pop_filtered (bus,
              GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR))) {
    const GstStructure *st = gst_message_get_structure (msg);

    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *err = NULL;

      gst_message_parse_error (msg, &err, NULL);
      fail ("an error while stmap-location changes: %s", err->message);
    }
    if (gst_structure_has_name (st, "bsplinewarp-stmap")) {
      fail_if (found, "two maps went into use during one frame");
      *location = g_strdup (gst_structure_get_string (st, "location"));
      found = TRUE;
    }
    gst_message_unref (msg);
  }
  return found;
}

GST_START_TEST (test_stmap_location_while_playing)
{
  gchar *a = write_wave_stmap (W, H, 0.02, 1.0);
  gchar *b = write_wave_stmap (W, H, 0.03, 2.0);
  gchar *caps = g_strdup_printf ("video/x-raw,format=GRAY8,width=%d,"
      "height=%d,framerate=30/1", W, H);
  const gchar *next[] = { NULL, b };
  GRand *rand = seeded_rand ();
  GstVideoInfo info;
  guint k, n;

  info_from_string (&info, caps);
  for (k = 0; k < G_N_ELEMENTS (next); k++) {
    GstHarness *h = harness_new (caps, caps);
    GstBuffer *in = random_frame (&info, rand), *out, *old, *new;
    GstBus *bus = gst_bus_new ();
    gchar *used = NULL;
    gboolean swapped = FALSE;

    gst_element_set_bus (h->element, bus);
    g_object_set (h->element, "stmap-location", a, NULL);
    test_location_element = h->element;
    test_location_next = next[k];
    gst_buffer_add_meta (in, test_location_meta_info (), NULL);
    /* the frame during which the property changes: map a */
    out = push_pull (h, in);
    fail_unless (out != NULL);
    fail_unless (pop_map_in_use (bus, &used) && g_strcmp0 (used, a) == 0,
        "no message that the first map is in use");
    g_clear_pointer (&used, g_free);
    gst_buffer_remove_meta (in, gst_buffer_get_meta (in,
            test_location_meta_info ()->api));
    old = frame_with_map (caps, a, in);
    new = frame_with_map (caps, next[k], in);
    fail_unless (old != NULL && new != NULL);
    fail_unless (frames_equal (&info, out, old),
        "the frame during the change is not the old map's");
    gst_buffer_unref (out);
    /* the next frames: the old map until the message says the new one (or
     * none) is in use, from that frame on the new one */
    for (n = 0; n < 1000 && !swapped; n++) {
      out = push_pull (h, in);
      fail_unless (out != NULL);
      swapped = pop_map_in_use (bus, &used);
      if (swapped)
        fail_unless (g_strcmp0 (used, next[k]) == 0,
            "the map in use is %s, not %s", used, next[k]);
      fail_unless (frames_equal (&info, out, swapped ? new : old),
          "frame %u after the change is not %s's", n + 1, swapped ?
          "the new map" : "the old map");
      /* the removal needs no file: at once */
      fail_unless (swapped || next[k] != NULL, "no map not in use at once");
      gst_buffer_unref (out);
      if (!swapped)
        g_usleep (5000);
    }
    fail_unless (swapped, "the new map not in use after %u frames", n);
    out = push_pull (h, in);
    fail_unless (frames_equal (&info, out, new));
    fail_if (pop_map_in_use (bus, &used));
    gst_buffer_unref (out);
    g_free (used);
    gst_buffer_unref (old);
    gst_buffer_unref (new);
    gst_buffer_unref (in);
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
  }
  g_rand_free (rand);
  g_unlink (a);
  g_unlink (b);
  g_free (a);
  g_free (b);
  g_free (caps);
}

GST_END_TEST;

/* Undistorting and distorting by the same camera compose to the
 * identity: two lens stages (and an STMap of the identity between them)
 * in one resampling give the frame back.  Composed the wrong way round
 * (undistorted twice) they move it by pixels. */
GST_START_TEST (test_two_lens_stages)
{
  const gchar *formats[] = { "RGBA", "I420", "NV12", "YUY2", "P010_10LE" };
  gchar *map = write_wave_stmap (W, H, 0.0, 1.0);
  GRand *rand = seeded_rand ();
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
        "height=%d,framerate=30/1", formats[i], W, H);
    gchar *round_trip = g_strdup_printf ("bsplinewarp defer=true " LENS
        " lens-direction=undistort ! bsplinewarp defer=true "
        "stmap-location=%s ! bsplinewarp defer=true " LENS
        " lens-direction=distort ! bsplinewarp", map);
    gchar *twice = g_strdup_printf ("bsplinewarp defer=true " LENS
        " ! bsplinewarp defer=true " LENS " ! bsplinewarp");
    GstVideoInfo info;
    GstBuffer *in, *out;
    gsize n;
    gint worst;

    info_from_string (&info, caps);
    in = random_frame (&info, rand);
    out = run_deferred (round_trip, caps, in);
    worst = frame_difference (&info, in, out, &n);
    fail_unless (worst <= 1, "%s: the lens round trip moved the frame by %d "
        "code values (seed %u)", formats[i], worst, test_seed);
    gst_buffer_unref (out);
    out = run_launch (twice, caps, NULL, in);
    worst = frame_difference (&info, in, out, &n);
    fail_unless (worst > 1, "%s: undistorting twice left the frame as it "
        "was: the test cannot tell the order of the stages", formats[i]);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    g_free (round_trip);
    g_free (twice);
    g_free (caps);
  }
  g_rand_free (rand);
  g_unlink (map);
  g_free (map);
}

GST_END_TEST;

/* ---- one deferring element ---- */

#define RGBA_CAPS "video/x-raw,format=RGBA,width=35,height=22,framerate=30/1"

static GstBuffer *
random_rgba (GRand * rand)
{
  GstVideoInfo info;

  info_from_string (&info, RGBA_CAPS);
  return random_frame (&info, rand);
}

/* Where downstream takes the meta, the element pushes the input's memory
 * with one stage: the inverse of its geometry. */
GST_START_TEST (test_defer_appends_a_stage)
{
  GRand *rand = seeded_rand ();
  GstHarness *h = chain_harness ("bsplinewarp defer=true rotation=12 "
      "zoom=1.3", RGBA_CAPS, NULL, NULL, TRUE);
  GstBuffer *in = random_rgba (rand), *out;
  GstBSplineChainMeta *chain;
  gdouble forward[9], expect[9];
  guint k;

  out = push_pull (h, in);
  fail_unless (out != NULL);
  fail_unless (gst_buffer_peek_memory (out, 0) == gst_buffer_peek_memory (in,
          0), "the deferred frame was copied");
  chain = gst_buffer_get_bspline_chain_meta (out);
  fail_unless (chain != NULL);
  fail_unless_equals_int (chain->n_stages, 1);
  fail_unless_equals_int (chain->width, W);
  fail_unless_equals_int (chain->height, H);
  fail_unless (chain->stages[0].lens.model == BSPLINE_LENS_NONE);
  element_forward (12.0, 1.3, 0.0, 0.0, forward);
  fail_unless (bspline_matrix_invert (forward, expect));
  for (k = 0; k < 9; k++)
    fail_unless (fabs (chain->stages[0].inverse[k] / chain->stages[0].inverse[8]
            - expect[k] / expect[8]) < 1e-12, "entry %u: %.17g, not %.17g", k,
        chain->stages[0].inverse[k], expect[k]);
  /* the input buffer itself has no chain */
  fail_unless (gst_buffer_get_bspline_chain_meta (in) == NULL);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  g_rand_free (rand);
}

GST_END_TEST;

/* A warning (once) naming why, and the frame resampled as defer=false
 * resamples it. */
static void
refused_case (const gchar * launch, const gchar * plain, const gchar * in_caps,
    const gchar * out_caps, gboolean takes_chain, const gchar * why)
{
  GRand *rand = seeded_rand ();
  GstBus *bus;
  GstHarness *h = chain_harness (launch, in_caps, out_caps, &bus,
      takes_chain);
  GstBuffer *in = random_rgba (rand), *out, *expect;
  GstMessage *msg;
  GError *err = NULL;
  gchar *debug = NULL;
  GstVideoInfo info;
  gsize n;
  gint k;

  for (k = 0; k < 3; k++) {
    out = push_pull (h, in);
    fail_unless (out != NULL);
    fail_unless (gst_buffer_get_bspline_chain_meta (out) == NULL,
        "%s: a chain meta went to a downstream that does not take it", launch);
    if (k < 2)
      gst_buffer_unref (out);
  }
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "%s: no warning", launch);
  gst_message_parse_warning (msg, &err, &debug);
  fail_unless (strstr (err->message, "defer=true") != NULL
      && strstr (err->message, why) != NULL, "%s: warning \"%s\"", launch,
      err->message);
  g_clear_error (&err);
  g_free (debug);
  gst_message_unref (msg);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING) == NULL,
      "%s: warned more than once", launch);
  expect = run_launch (plain, in_caps, out_caps, in);
  info_from_string (&info, out_caps ? out_caps : in_caps);
  fail_unless_equals_int (frame_difference (&info, out, expect, &n), 0);
  gst_buffer_unref (expect);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  chain_harness_teardown (h, bus);
  g_rand_free (rand);
}

GST_START_TEST (test_defer_refused)
{
  /* the harness's sink does not take the meta */
  refused_case ("bsplinewarp defer=true rotation=10",
      "bsplinewarp rotation=10", RGBA_CAPS, NULL, FALSE, "downstream");
  /* nor does videoconvert, converting or passing through */
  refused_case ("bsplinewarp defer=true rotation=10 ! videoconvert",
      "bsplinewarp rotation=10 ! videoconvert", RGBA_CAPS, NULL, FALSE,
      "downstream");
  refused_case ("bsplinewarp defer=true rotation=10 ! videoconvert",
      "bsplinewarp rotation=10 ! videoconvert", RGBA_CAPS,
      "video/x-raw,format=BGRA,width=35,height=22,framerate=30/1", FALSE,
      "downstream");
  /* elements that would drop or mishandle it, though they list it in
   * their allocation query (videoflip copies it onto the flipped frame) */
  refused_case ("bsplinewarp defer=true rotation=10 ! videoflip "
      "method=horizontal-flip ! bsplinewarp rotation=5", "bsplinewarp "
      "rotation=10 ! videoflip method=horizontal-flip ! bsplinewarp "
      "rotation=5", RGBA_CAPS, NULL, TRUE, "videoflip");
  refused_case ("bsplinewarp defer=true rotation=10 ! videocrop left=2 "
      "right=2 ! bsplinewarp rotation=5", "bsplinewarp rotation=10 ! "
      "video/x-raw,width=35,height=22 ! videocrop left=2 right=2 ! "
      "bsplinewarp rotation=5", RGBA_CAPS,
      "video/x-raw,format=RGBA,width=31,height=22,framerate=30/1", TRUE,
      "videocrop");
  /* another output size */
  refused_case ("bsplinewarp defer=true rotation=10",
      "bsplinewarp rotation=10", RGBA_CAPS,
      "video/x-raw,format=RGBA,width=20,height=16,framerate=30/1", TRUE,
      "size");
}

GST_END_TEST;

/* The first element defers (it would have warned that it resamples) and
 * the frame is what resampling at once gives. */
static void
deferred_case (const gchar * launch, const gchar * plain,
    const gchar * in_caps, const gchar * out_caps)
{
  GRand *rand = seeded_rand ();
  GstBuffer *in = random_rgba (rand), *a, *b;
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h = chain_harness (launch, in_caps, out_caps, &bus, FALSE);
  gsize n;

  a = push_pull (h, in);
  fail_unless (a != NULL);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING) == NULL,
      "%s: a warning", launch);
  chain_harness_teardown (h, bus);
  b = run_launch (plain, in_caps, out_caps, in);
  info_from_string (&info, out_caps ? out_caps : in_caps);
  fail_unless_equals_int (frame_difference (&info, a, b, &n), 0);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  gst_buffer_unref (in);
  g_rand_free (rand);
}

/* The chain defers across elements that carry the meta: videoconvert
 * (which lists it upstream where downstream takes it and scales it with
 * the frame, the identity here), a queue, and an identity bsplinewarp
 * (passthrough otherwise: it applies a chain it receives). */
GST_START_TEST (test_defer_across_carriers)
{
  deferred_case ("bsplinewarp defer=true rotation=10 ! videoconvert ! "
      "bsplinewarp", "bsplinewarp rotation=10 ! videoconvert", RGBA_CAPS,
      "video/x-raw,format=BGRA,width=35,height=22,framerate=30/1");
  deferred_case ("bsplinewarp defer=true rotation=10 ! queue ! bsplinewarp "
      "zoom=1.2", "bsplinewarp rotation=10 zoom=1.2", RGBA_CAPS, NULL);
  deferred_case ("bsplinewarp defer=true rotation=10 ! bsplinewarp",
      "bsplinewarp rotation=10", RGBA_CAPS, NULL);
}

GST_END_TEST;

/* use-meta: the buffer's affine transformation meta, then the element's
 * geometry, as one matrix. */
GST_START_TEST (test_use_meta_composes)
{
  GRand *rand = seeded_rand ();
  GstBuffer *in = random_rgba (rand), *with, *a, *b;
  GstVideoAffineTransformationMeta *meta;
  gdouble f[9], own[9], m_pix[9], tmp[9], cen[9], cen_inv[9];
  gfloat unit[16] = { 0.95f, 0.1f, 0, 0, -0.1f, 0.95f, 0, 0, 0, 0, 1, 0,
    0.05f, -0.02f, 0, 1
  };
  gchar *single, *m;
  GstVideoInfo info;
  gsize n;

  with = gst_buffer_copy (in);
  meta = gst_buffer_add_video_affine_transformation_meta (with);
  gst_video_affine_transformation_meta_apply_matrix (meta, unit);
  a = run_launch ("bsplinewarp use-meta=true rotation=8", RGBA_CAPS, NULL,
      with);
  fail_unless (gst_buffer_get_video_affine_transformation_meta (a) == NULL);
  /* the meta in pixels about the centre (D A D^-1, D = diag (W, -H)) */
  matrix_set (m_pix, meta->matrix[0], -meta->matrix[4] * W / H,
      meta->matrix[12] * W, -meta->matrix[1] * H / W, meta->matrix[5],
      -meta->matrix[13] * H, 0, 0, 1);
  matrix_set (cen, 1, 0, W / 2.0, 0, 1, H / 2.0, 0, 0, 1);
  matrix_set (cen_inv, 1, 0, -W / 2.0, 0, 1, -H / 2.0, 0, 0, 1);
  bspline_matrix_multiply (m_pix, cen_inv, tmp);
  bspline_matrix_multiply (cen, tmp, f);
  element_forward (8.0, 1.0, 0.0, 0.0, own);
  bspline_matrix_multiply (own, f, tmp);
  m = matrix_arg (tmp);
  single = g_strdup_printf ("bsplinewarp pivot-x=0 pivot-y=0 matrix=\"%s\"", m);
  b = run_launch (single, RGBA_CAPS, NULL, in);
  info_from_string (&info, RGBA_CAPS);
  fail_unless (frame_difference (&info, a, b, &n) <= 1, "use-meta did not "
      "compose the meta before the rotation (seed %u)", test_seed);
  g_free (single);
  g_free (m);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  gst_buffer_unref (with);
  gst_buffer_unref (in);
  g_rand_free (rand);
}

GST_END_TEST;

/* ---- bad input ---- */

static void
error_case (const gchar * launch, GstBuffer * in, const gchar * words)
{
  GstBus *bus;
  GstHarness *h = chain_harness (launch, RGBA_CAPS, NULL, &bus, FALSE);
  GstMessage *msg;
  GError *err = NULL;
  gchar *debug = NULL;

  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_ERROR);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: no error message", launch);
  gst_message_parse_error (msg, &err, &debug);
  fail_unless (strstr (err->message, words) != NULL, "%s: error \"%s\"",
      launch, err->message);
  g_clear_error (&err);
  g_free (debug);
  gst_message_unref (msg);
  fail_unless (gst_harness_try_pull (h) == NULL, "%s: a frame went out",
      launch);
  chain_harness_teardown (h, bus);
}

GST_START_TEST (test_bad_chains)
{
  GRand *rand = seeded_rand ();
  GstBuffer *in;
  GstBSplineChainMeta *chain;
  gdouble tiny[9] = { 1e-150, 0, 0, 0, 1e-150, 0, 0, 0, 1 };
  gdouble shift[9] = { 1, 0, 2, 0, 1, 0, 0, 0, 1 };
  gdouble singular[9] = { 1, 2, 0, 2, 4, 0, 0, 0, 1 };

  /* a chain of another frame size */
  in = random_rgba (rand);
  chain = gst_buffer_add_bspline_chain_meta (in, W + 1, H);
  fail_unless (gst_bspline_chain_meta_add_homography (chain, shift));
  error_case ("bsplinewarp rotation=3", in, "warp chain");
  /* a chain whose composed map overflows */
  in = random_rgba (rand);
  chain = gst_buffer_add_bspline_chain_meta (in, W, H);
  fail_unless (gst_bspline_chain_meta_add_homography (chain, tiny));
  fail_unless (gst_bspline_chain_meta_add_homography (chain, tiny));
  fail_unless (gst_bspline_chain_meta_add_homography (chain, tiny));
  error_case ("bsplinewarp rotation=3", in, "warp chain");
  /* a singular stage is refused by the API */
  in = gst_buffer_new ();
  chain = gst_buffer_add_bspline_chain_meta (in, W, H);
  fail_if (gst_bspline_chain_meta_add_homography (chain, singular));
  fail_unless_equals_int (chain->n_stages, 0);
  gst_buffer_unref (in);
  g_rand_free (rand);
}

GST_END_TEST;

/* An identity element (passthrough otherwise) resamples a buffer that
 * carries a chain: the frame comes out moved, without the meta. */
GST_START_TEST (test_identity_applies_chain)
{
  GRand *rand = seeded_rand ();
  GstBuffer *in = random_rgba (rand), *with, *a, *b;
  GstBSplineChainMeta *chain;
  gdouble shift[9] = { 1, 0, 2, 0, 1, -1, 0, 0, 1 };
  GstVideoInfo info;
  gsize n;

  with = gst_buffer_copy (in);
  chain = gst_buffer_add_bspline_chain_meta (with, W, H);
  fail_unless (gst_bspline_chain_meta_add_homography (chain, shift));
  a = run_launch ("bsplinewarp", RGBA_CAPS, NULL, with);
  fail_unless (gst_buffer_get_bspline_chain_meta (a) == NULL);
  b = run_launch ("bsplinewarp translate-x=2 translate-y=-1", RGBA_CAPS, NULL,
      in);
  info_from_string (&info, RGBA_CAPS);
  fail_unless (frame_difference (&info, a, b, &n) <= 1, "the identity "
      "element did not apply the chain (seed %u)", test_seed);
  fail_unless (frame_difference (&info, a, in, &n) > 1);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  gst_buffer_unref (with);
  gst_buffer_unref (in);
  g_rand_free (rand);
}

GST_END_TEST;

static Suite *
chain_suite (void)
{
  Suite *s = suite_create ("chain");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_homographies_every_format);
  tcase_add_test (tc, test_lens_every_format);
  tcase_add_test (tc, test_stmap_every_format);
  tcase_add_test (tc, test_stmap_location_while_playing);
  tcase_add_test (tc, test_two_lens_stages);
  tcase_add_test (tc, test_defer_appends_a_stage);
  tcase_add_test (tc, test_defer_refused);
  tcase_add_test (tc, test_defer_across_carriers);
  tcase_add_test (tc, test_use_meta_composes);
  tcase_add_test (tc, test_bad_chains);
  tcase_add_test (tc, test_identity_applies_chain);
  return s;
}

int
main (int argc, char **argv)
{
  return run_bsplinewarp_suite (&argc, &argv, chain_suite, "chain", __FILE__);
}
