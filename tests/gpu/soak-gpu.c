/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* soak-gpu: the GPU soak of issue 7, run by hand on the GPU machine
 * (docs/reliability.md).  N frames (default 100000) of 1920x1080 RGBA go
 * through bsplinewarp backend=cuda in a GstHarness while another thread
 * changes the geometry and quality properties at random moments; every
 * 5000 frames the output size is renegotiated (1080p -> 4K, 1080p, 720p in
 * turn).  Checks: every frame comes out, no error or warning is posted,
 * host RSS and GPU free memory at the end are within a few MiB of their
 * values after the first round of sizes.
 *
 *   soak-gpu [FRAMES]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "bspline-cuda.h"

#define IN_CAPS "video/x-raw,format=RGBA,width=1920,height=1080," \
  "framerate=60/1,pixel-aspect-ratio=1/1"
#define RENEGOTIATE_EVERY 5000

static const char *const out_caps[] = {
  "video/x-raw,width=3840,height=2160,pixel-aspect-ratio=1/1",
  "video/x-raw,width=1920,height=1080,pixel-aspect-ratio=1/1",
  "video/x-raw,width=1280,height=720,pixel-aspect-ratio=1/1",
};

typedef struct
{
  GstElement *element;
  GRand *rand;
  gint running;
  guint changes;
} Changer;

static gpointer
change_properties (gpointer data)
{
  Changer *c = data;

  while (g_atomic_int_get (&c->running)) {
    switch (g_rand_int_range (c->rand, 0, 6)) {
      case 0:
        g_object_set (c->element, "rotation",
            g_rand_double_range (c->rand, -30, 30), NULL);
        break;
      case 1:
        g_object_set (c->element, "zoom",
            g_rand_double_range (c->rand, 0.5, 2.0), NULL);
        break;
      case 2:
        g_object_set (c->element, "order", g_rand_int_range (c->rand, 0, 12),
            NULL);
        break;
      case 3:
        g_object_set (c->element, "boundary", g_rand_int_range (c->rand, 0,
                5), NULL);
        break;
      case 4:
        g_object_set (c->element, "precision", g_rand_int_range (c->rand, 0,
                3), NULL);
        break;
      default:
        gst_util_set_object_arg (G_OBJECT (c->element), "matrix",
            g_rand_boolean (c->rand) ? "<>" :
            "<1.0,0.05,0.0,0.0,1.0,0.0,0.0,0.0002,1.0>");
        break;
    }
    c->changes++;
    g_usleep (g_rand_int_range (c->rand, 200, 5000));
  }
  return NULL;
}

static long
rss_kib (void)
{
  FILE *f = fopen ("/proc/self/status", "r");
  char line[256];
  long kib = -1;

  while (f && fgets (line, sizeof line, f))
    if (sscanf (line, "VmRSS: %ld kB", &kib) == 1)
      break;
  if (f)
    fclose (f);
  return kib;
}

int
main (int argc, char **argv)
{
  guint frames = argc > 1 ? (guint) atoi (argv[1]) : 100000, i, out = 0;
  GstHarness *h;
  GstBus *bus;
  GstMessage *msg;
  GstBuffer *inputs[4], *b;
  Changer changer;
  GThread *thread;
  GstVideoInfo info;
  GstCaps *caps;
  size_t free_start = 0, free_end = 0, total;
  long rss_start = 0, rss_end;
  gint64 t0;
  guint k;
  int failed = 0;

  gst_init (&argc, &argv);
  changer.element = gst_element_factory_make ("bsplinewarp", NULL);
  g_object_set (changer.element, "backend", 2 /* cuda */ , NULL);
  h = gst_harness_new_with_element (changer.element, "sink", "src");
  bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, IN_CAPS);
  gst_harness_set_sink_caps_str (h, out_caps[0]);
  caps = gst_caps_from_string (IN_CAPS);
  gst_video_info_from_caps (&info, caps);
  gst_caps_unref (caps);
  changer.rand = g_rand_new_with_seed (2026);
  for (k = 0; k < 4; k++) {
    GstMapInfo map;
    gsize j;

    inputs[k] = gst_buffer_new_allocate (NULL, info.size, NULL);
    gst_buffer_map (inputs[k], &map, GST_MAP_WRITE);
    for (j = 0; j < map.size; j++)
      map.data[j] = (guint8) g_rand_int (changer.rand);
    gst_buffer_unmap (inputs[k], &map);
  }
  changer.running = 1;
  changer.changes = 0;
  thread = g_thread_new ("changer", change_properties, &changer);

  t0 = g_get_monotonic_time ();
  for (i = 0; i < frames; i++) {
    if (i > 0 && i % RENEGOTIATE_EVERY == 0) {
      gst_harness_set_sink_caps_str (h,
          out_caps[(i / RENEGOTIATE_EVERY) % G_N_ELEMENTS (out_caps)]);
      printf ("frame %u: host RSS %ld KiB\n", i, rss_kib ());
      if (i == RENEGOTIATE_EVERY * G_N_ELEMENTS (out_caps)) {
        /* after every size has run once: the baseline */
        bspline_cuda_device_memory (-1, &free_start, &total);
        rss_start = rss_kib ();
      }
    }
    if (gst_harness_push (h, gst_buffer_ref (inputs[i % 4])) != GST_FLOW_OK) {
      printf ("FAIL: push of frame %u\n", i);
      failed = 1;
      break;
    }
    while ((b = gst_harness_try_pull (h)) != NULL) {
      gst_buffer_unref (b);
      out++;
    }
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  while ((b = gst_harness_try_pull (h)) != NULL) {
    gst_buffer_unref (b);
    out++;
  }
  g_atomic_int_set (&changer.running, 0);
  g_thread_join (thread);
  bspline_cuda_device_memory (-1, &free_end, &total);
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
    failed = 1;
  }
  printf ("soak-gpu: %u frames in, %u out in %.1f s, %u property changes, "
      "%u renegotiations; host RSS %ld -> %ld KiB; GPU free memory "
      "%.1f -> %.1f MiB\n", frames, out,
      (g_get_monotonic_time () - t0) / 1e6, changer.changes,
      frames / RENEGOTIATE_EVERY, rss_start, rss_end,
      free_start / 1048576.0, free_end / 1048576.0);
  if (out != frames) {
    printf ("FAIL: %u frames lost\n", frames - out);
    failed = 1;
  }
  if (rss_end > rss_start + 16 * 1024 || free_end + (16u << 20) < free_start) {
    printf ("FAIL: memory grew\n");
    failed = 1;
  }
  for (k = 0; k < 4; k++)
    gst_buffer_unref (inputs[k]);
  g_rand_free (changer.rand);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  return failed;
}
