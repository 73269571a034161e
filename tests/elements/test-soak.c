/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-soak.c: a CPU soak of the bsplinewarp element.
 *
 * BSPLINE_SOAK_FRAMES frames (default 100000) of 64x48 and other small
 * sizes go through bsplinewarp (backend=cpu) in a GstHarness, while a
 * second thread changes properties at random moments (rotation, zoom,
 * translation, matrix set and unset, order, method, boundary, precision,
 * antialias, fill colour, video-direction, which swaps the output's sides,
 * the thread count, and back to the identity, which is passthrough), and
 * the input is renegotiated to another size and format every 2000 frames,
 * every other time with another output size.  Checks: every frame pushed comes out with
 * GST_FLOW_OK, no error or warning message is posted, and the resident
 * memory at the end is within SOAK_RSS_SLACK_KIB of what it was after a
 * warm-up of two rounds of the input sizes (28000 frames: every size's
 * plans, scratch and pools made once).
 * Prints the frames, the time and both RSS figures (docs/reliability.md).
 * The seed of the property thread is printed (BSPLINE_TEST_SEED repeats).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#define SOAK_RSS_SLACK_KIB 4096
#define RENEGOTIATE_EVERY 2000

typedef struct
{
  GstElement *element;
  GRand *rand;
  gint running;
  guint changes;
} PropertyChanger;

/* Resident memory in KiB.  glibc keeps freed blocks in its per-thread
 * arenas, and how much it keeps depends on which threads freed what (the
 * thread count changes at random here): give the free memory back first,
 * so that the figure is the memory in use, not the allocator's cache. */
static long
rss_kib (void)
{
  FILE *f;
  char line[256];
  long kib = -1;

#ifdef __GLIBC__
  malloc_trim (0);
#endif
  f = fopen ("/proc/self/status", "r");
  if (f == NULL)
    return -1;
  while (fgets (line, sizeof line, f))
    if (sscanf (line, "VmRSS: %ld kB", &kib) == 1)
      break;
  fclose (f);
  return kib;
}

static gpointer
property_changer_run (gpointer data)
{
  PropertyChanger *c = data;
  GstElement *e = c->element;

  while (g_atomic_int_get (&c->running)) {
    switch (g_rand_int_range (c->rand, 0, 24)) {
      case 0:
        g_object_set (e, "rotation", g_rand_double_range (c->rand, -360, 360),
            NULL);
        break;
      case 1:
        g_object_set (e, "zoom", g_rand_double_range (c->rand, 0.25, 4), NULL);
        break;
      case 2:
        g_object_set (e, "translate-x", g_rand_double_range (c->rand, -20, 20),
            "translate-y", g_rand_double_range (c->rand, -20, 20), NULL);
        break;
      case 3:
        gst_util_set_object_arg (G_OBJECT (e), "matrix",
            g_rand_boolean (c->rand) ? "<>" :
            "<1.0,0.1,0.0,0.05,0.9,0.0,0.001,0.0005,1.0>");
        break;
      case 4:
        g_object_set (e, "order", g_rand_int_range (c->rand, 0, 12), NULL);
        break;
      case 5:
        g_object_set (e, "method", g_rand_int_range (c->rand, 0, 2), NULL);
        break;
      case 6:
        g_object_set (e, "boundary", g_rand_int_range (c->rand, 0, 5), NULL);
        break;
      case 7:
        g_object_set (e, "precision", g_rand_int_range (c->rand, 0, 4), NULL);
        break;
      case 8:
        /* none, least-squares, widen */
        g_object_set (e, "antialias", g_rand_int_range (c->rand, 0, 3), NULL);
        break;
      case 9:
        g_object_set (e, "fill-color", g_rand_int (c->rand), NULL);
        break;
      case 10:
        g_object_set (e, "video-direction", g_rand_int_range (c->rand, 0, 8),
            NULL);
        break;
      case 11:
        g_object_set (e, "n-threads", g_rand_int_range (c->rand, 0, 3), NULL);
        break;
      case 12:                 /* back to the identity: passthrough */
        g_object_set (e, "rotation", 0.0, "zoom", 1.0, "translate-x", 0.0,
            "translate-y", 0.0, "video-direction", 0, NULL);
        gst_util_set_object_arg (G_OBJECT (e), "matrix", "<>");
        break;
      default:
        g_object_set (e, "rotation", g_rand_double_range (c->rand, 1, 359),
            NULL);
        break;
    }
    c->changes++;
    g_usleep (g_rand_int_range (c->rand, 0, 2000));
  }
  return NULL;
}

static void
drop_events (GstHarness * h)
{
  GstEvent *event;

  while ((event = gst_harness_try_pull_event (h)) != NULL)
    gst_event_unref (event);
  while ((event = gst_harness_try_pull_upstream_event (h)) != NULL)
    gst_event_unref (event);
}

int
main (int argc, char **argv)
{
  static const struct
  {
    const gchar *format;
    gint width, height;
  } inputs[] = {
    {"I420", 64, 48}, {"RGBA", 64, 48}, {"I420", 48, 64}, {"NV12", 33, 17},
    {"RGBA", 80, 60}, {"GRAY8", 1, 1}, {"I420_10LE", 64, 48}
  };
  const gchar *env_frames = g_getenv ("BSPLINE_SOAK_FRAMES");
  const gchar *env_seed = g_getenv ("BSPLINE_TEST_SEED");
  guint64 frames = env_frames ? g_ascii_strtoull (env_frames, NULL, 10) :
      100000;
  guint32 seed = env_seed ? (guint32) g_ascii_strtoull (env_seed, NULL, 10) :
      g_random_int ();
  GstHarness *h;
  GstElement *element;
  GstBus *bus;
  GstMessage *msg;
  PropertyChanger changer;
  GThread *thread;
  GstVideoInfo info;
  GstBuffer *buffer;
  guint64 n, out = 0, errors = 0, warm_up;
  long rss_start = -1, rss_end;
  gint64 t0, t1;
  guint k = 0;
  gboolean ok;

  /* warm-up: two rounds of the inputs (the sink caps alternate), so that
   * every size's plans and scratch have been made once */
  warm_up = MIN (frames / 2, 2 * G_N_ELEMENTS (inputs) * RENEGOTIATE_EVERY);
  gst_init (&argc, &argv);
  printf ("test-soak: seed %u (BSPLINE_TEST_SEED=%u repeats), %"
      G_GUINT64_FORMAT " frames\n", seed, seed, frames);

  element = gst_element_factory_make ("bsplinewarp", NULL);
  if (element == NULL) {
    printf ("FAIL: no bsplinewarp element (GST_PLUGIN_PATH?)\n");
    return 1;
  }
  g_object_set (element, "backend", 1 /* cpu */ , "rotation", 7.0, NULL);
  h = gst_harness_new_with_element (element, "sink", "src");
  gst_object_unref (element);
  bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set_sink_caps_str (h, "video/x-raw");

  changer.element = h->element;
  changer.rand = g_rand_new_with_seed (seed);
  changer.running = 1;
  changer.changes = 0;
  thread = g_thread_new ("property-changer", property_changer_run, &changer);

  t0 = g_get_monotonic_time ();
  for (n = 0; n < frames; n++) {
    GstFlowReturn ret;

    if (n % RENEGOTIATE_EVERY == 0) {
      gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
          "height=%d,framerate=30/1", inputs[k].format, inputs[k].width,
          inputs[k].height);
      GstCaps *c = gst_caps_from_string (caps);

      gst_video_info_from_caps (&info, c);
      gst_caps_unref (c);
      gst_harness_set_src_caps_str (h, caps);
      g_free (caps);
      /* every other time, downstream asks for another size */
      caps = k % 2 ? g_strdup ("video/x-raw") :
          g_strdup_printf ("video/x-raw,width=%d,height=%d",
          inputs[k].width * 3 / 2, inputs[k].height / 2 + 1);
      gst_harness_set_sink_caps_str (h, caps);
      g_free (caps);
      k = (k + 1) % G_N_ELEMENTS (inputs);
      drop_events (h);
    }
    buffer = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
    gst_buffer_memset (buffer, 0, (guint8) n, GST_VIDEO_INFO_SIZE (&info));
    GST_BUFFER_PTS (buffer) = n * GST_SECOND / 30;
    GST_BUFFER_DURATION (buffer) = GST_SECOND / 30;
    ret = gst_harness_push (h, buffer);
    if (ret != GST_FLOW_OK) {
      printf ("FAIL: frame %" G_GUINT64_FORMAT ": %s\n", n,
          gst_flow_get_name (ret));
      errors++;
      break;
    }
    while ((buffer = gst_harness_try_pull (h)) != NULL) {
      out++;
      gst_buffer_unref (buffer);
    }
    if (n + 1 == warm_up)
      rss_start = rss_kib ();
  }
  g_atomic_int_set (&changer.running, 0);
  g_thread_join (thread);
  gst_harness_push_event (h, gst_event_new_eos ());
  while ((buffer = gst_harness_try_pull (h)) != NULL) {
    out++;
    gst_buffer_unref (buffer);
  }
  drop_events (h);
  t1 = g_get_monotonic_time ();
  rss_end = rss_kib ();

  while ((msg = gst_bus_pop_filtered (bus,
              GST_MESSAGE_ERROR | GST_MESSAGE_WARNING)) != NULL) {
    GError *error = NULL;

    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
      gst_message_parse_error (msg, &error, NULL);
    else
      gst_message_parse_warning (msg, &error, NULL);
    printf ("FAIL: message: %s\n", error->message);
    g_error_free (error);
    gst_message_unref (msg);
    errors++;
  }
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_rand_free (changer.rand);

  printf ("test-soak: %" G_GUINT64_FORMAT " frames in, %" G_GUINT64_FORMAT
      " out in %.1f s (%.0f frames/s), %u property changes from another "
      "thread, %u renegotiations; RSS %ld KiB after %" G_GUINT64_FORMAT
      " frames, %ld KiB at the end (%+ld KiB, bound %d)\n", n, out,
      (t1 - t0) / 1e6, n / ((t1 - t0) / 1e6), changer.changes,
      (guint) ((frames + RENEGOTIATE_EVERY - 1) / RENEGOTIATE_EVERY),
      rss_start, warm_up, rss_end, rss_end - rss_start, SOAK_RSS_SLACK_KIB);
  ok = errors == 0 && out == frames;
  if (out != frames)
    printf ("FAIL: %" G_GUINT64_FORMAT " frames out of %" G_GUINT64_FORMAT
        "\n", out, frames);
  /* RSS is meaningless under a sanitizer or valgrind, which keep freed
   * memory in quarantine: BSPLINE_SOAK_RSS=0 turns the check off */
  if (g_strcmp0 (g_getenv ("BSPLINE_SOAK_RSS"), "0") != 0
      && rss_end - rss_start > SOAK_RSS_SLACK_KIB) {
    printf ("FAIL: RSS grew by %ld KiB\n", rss_end - rss_start);
    ok = FALSE;
  }
  return ok ? 0 : 1;
}
