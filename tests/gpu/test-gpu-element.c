/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-gpu-element.c: bsplinewarp with backend=cuda, what the element adds
 * to the engine: frames in flight (output order, at most one frame held,
 * EOS and drain give every frame, flushes drop them), the latency it
 * reports, the pinned memory it proposes upstream and uses downstream,
 * and the same pixels as backend=cpu.  Skips (exit 77) without a GPU. */
#include <math.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>
#include <tiffio.h>
#include <unistd.h>

#include "bspline-cuda.h"
#include "../elements/backend-check.h"
#include "../elements/stmap-common.h"
#include "photo.h"

#define W 160
#define H 120
#define CAPS "video/x-raw,format=RGBA,width=160,height=120,framerate=30/1"
#define OUT_CAPS "video/x-raw,format=RGBA,width=320,height=240"
#define N_FRAMES 12

static GstBuffer *
random_frame (GRand * rand, guint index)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, W * H * 4, NULL);
  GstMapInfo map;
  gsize i;

  gst_buffer_map (b, &map, GST_MAP_WRITE);
  for (i = 0; i < map.size; i++)
    map.data[i] = (guint8) g_rand_int (rand);
  gst_buffer_unmap (b, &map);
  GST_BUFFER_PTS (b) = index * GST_SECOND / 30;
  GST_BUFFER_DURATION (b) = GST_SECOND / 30;
  return b;
}

static GstHarness *
warp_harness (const gchar * backend)
{
  gchar *d = g_strdup_printf ("bsplinewarp backend=%s rotation=7 order=3",
      backend);
  GstHarness *h = gst_harness_new_parse (d);

  g_free (d);
  gst_harness_set_src_caps_str (h, CAPS);
  gst_harness_set_sink_caps_str (h, OUT_CAPS);
  return h;
}

static gint
max_difference (GstBuffer * a, GstBuffer * b)
{
  GstMapInfo ma, mb;
  gint worst = 0;
  gsize i;

  gst_buffer_map (a, &ma, GST_MAP_READ);
  gst_buffer_map (b, &mb, GST_MAP_READ);
  fail_unless_equals_int (ma.size, mb.size);
  for (i = 0; i < ma.size; i++)
    worst = MAX (worst, ABS ((gint) ma.data[i] - (gint) mb.data[i]));
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
  return worst;
}

/* Largest difference between two buffers of samples of `bits` bits (8:
 * bytes; more: 16-bit words, P010's code values in the high bits). */
static gint
max_difference_samples (GstBuffer * a, GstBuffer * b, gint bits)
{
  GstMapInfo ma, mb;
  gint worst = 0;
  gsize i;

  if (bits == 8)
    return max_difference (a, b);
  gst_buffer_map (a, &ma, GST_MAP_READ);
  gst_buffer_map (b, &mb, GST_MAP_READ);
  fail_unless_equals_int (ma.size, mb.size);
  for (i = 0; i + 1 < ma.size; i += 2) {
    gint x = ((const guint16 *) ma.data)[i / 2] >> (16 - bits);
    gint y = ((const guint16 *) mb.data)[i / 2] >> (16 - bits);
    worst = MAX (worst, ABS (x - y));
  }
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
  return worst;
}


GST_START_TEST (test_frames_in_flight)
{
  guint32 seed = g_random_int ();
  GRand *rand = g_rand_new_with_seed (seed);
  GstHarness *gpu = warp_harness ("cuda"), *cpu = warp_harness ("cpu");
  GstBuffer *in[N_FRAMES];
  guint i;

  for (i = 0; i < N_FRAMES; i++) {
    in[i] = random_frame (rand, i);
    fail_unless_equals_int (gst_harness_push (gpu, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
    /* a frame leaves when the next one arrives: at most one held */
    fail_unless (gst_harness_buffers_received (gpu) + 1 >= i + 1,
        "frame %u: only %u out", i, gst_harness_buffers_received (gpu));
    fail_unless (gst_harness_buffers_received (gpu) <= i + 1);
  }
  fail_unless (gst_harness_push_event (gpu, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_received (gpu), N_FRAMES);

  for (i = 0; i < N_FRAMES; i++) {
    GstBuffer *g = gst_harness_pull (gpu), *c;
    gint d;

    fail_unless_equals_int (gst_harness_push (cpu, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
    c = gst_harness_pull (cpu);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (g), GST_BUFFER_PTS (in[i]));
    d = max_difference (g, c);
    fail_unless (d <= 1, "frame %u differs from backend=cpu by %d (seed %u)",
        i, d, seed);
    gst_buffer_unref (g);
    gst_buffer_unref (c);
    gst_buffer_unref (in[i]);
  }
  g_print ("frames in flight: %d frames out in order after EOS, each "
      "within 1 code value of backend=cpu\n", N_FRAMES);
  gst_harness_teardown (gpu);
  gst_harness_teardown (cpu);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_drain_and_flush)
{
  GRand *rand = g_rand_new ();
  GstHarness *h = warp_harness ("cuda");
  GstQuery *drain;

  fail_unless_equals_int (gst_harness_push (h, random_frame (rand, 0)),
      GST_FLOW_OK);
  drain = gst_query_new_drain ();
  gst_pad_peer_query (h->srcpad, drain);
  gst_query_unref (drain);
  fail_unless_equals_int (gst_harness_buffers_received (h), 1);

  /* a frame in flight is dropped by a flush, and the stream goes on */
  fail_unless_equals_int (gst_harness_push (h, random_frame (rand, 1)),
      GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_harness_set_src_caps_str (h, CAPS);
  fail_unless_equals_int (gst_harness_push (h, random_frame (rand, 2)),
      GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_received (h), 2);
  gst_harness_teardown (h);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_latency)
{
  GstHarness *h = warp_harness ("cuda");
  GstClockTime latency;
  GRand *rand = g_rand_new ();

  gst_harness_set_upstream_latency (h, 0);
  fail_unless_equals_int (gst_harness_push (h, random_frame (rand, 0)),
      GST_FLOW_OK);
  latency = gst_harness_query_latency (h);
  /* one frame at 30/1 */
  fail_unless_equals_uint64 (latency, gst_util_uint64_scale_int (GST_SECOND,
          1, 30));
  gst_harness_teardown (h);
  g_rand_free (rand);
}

GST_END_TEST;

/* The pool proposed upstream and the one used for output are pinned. */
GST_START_TEST (test_pinned_pools)
{
  GstHarness *h = warp_harness ("cuda");
  GstCaps *caps = gst_caps_from_string (CAPS);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  GstStructure *config;
  GstAllocator *allocator = NULL;
  GstBuffer *out;
  GRand *rand = g_rand_new ();

  fail_unless (gst_pad_peer_query (h->srcpad, query));
  fail_unless (gst_query_get_n_allocation_pools (query) > 0);
  gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  fail_unless (pool != NULL);
  config = gst_buffer_pool_get_config (pool);
  fail_unless (gst_buffer_pool_config_get_allocator (config, &allocator, NULL));
  fail_unless (allocator != NULL);
  fail_unless_equals_string (allocator->mem_type, "BSplinePinned");
  gst_structure_free (config);
  gst_object_unref (pool);
  gst_query_unref (query);
  gst_caps_unref (caps);

  fail_unless_equals_int (gst_harness_push (h, random_frame (rand, 0)),
      GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  out = gst_harness_pull (h);
  fail_unless_equals_string (gst_buffer_peek_memory (out,
          0)->allocator->mem_type, "BSplinePinned");
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_rand_free (rand);
}

GST_END_TEST;

/* Pushes n frames and EOS through a harness around `description`; returns
 * the frames that came out, checked against backend=cpu, and the first
 * error or warning message that reached the bus. */
static guint
run_with_bus (const gchar * description, guint n, GstMessageType type,
    gchar ** message_text, GstFlowReturn * flow)
{
  GstHarness *h = gst_harness_new_parse (description);
  GstHarness *cpu = warp_harness ("cpu");
  GstBus *bus = gst_bus_new ();
  GRand *rand = g_rand_new ();
  GstMessage *msg;
  GstBuffer *out;
  guint i, received = 0;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, CAPS);
  gst_harness_set_sink_caps_str (h, OUT_CAPS);
  *flow = GST_FLOW_OK;
  for (i = 0; i < n && *flow == GST_FLOW_OK; i++) {
    GstBuffer *in = random_frame (rand, i);

    *flow = gst_harness_push (h, gst_buffer_ref (in));
    fail_unless_equals_int (gst_harness_push (cpu, in), GST_FLOW_OK);
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  /* every frame that came out is right: compare with the CPU, in order */
  while ((out = gst_harness_try_pull (h)) != NULL) {
    GstBuffer *expect = gst_harness_pull (cpu);

    while (expect && GST_BUFFER_PTS (expect) < GST_BUFFER_PTS (out)) {
      gst_buffer_unref (expect);
      expect = gst_harness_pull (cpu);
    }
    fail_unless (expect != NULL);
    fail_unless (max_difference (out, expect) <= 1,
        "frame %" GST_TIME_FORMAT " differs from backend=cpu",
        GST_TIME_ARGS (GST_BUFFER_PTS (out)));
    gst_buffer_unref (expect);
    gst_buffer_unref (out);
    received++;
  }
  *message_text = NULL;
  msg = gst_bus_pop_filtered (bus, type);
  if (msg) {
    GError *error = NULL;

    if (type == GST_MESSAGE_ERROR)
      gst_message_parse_error (msg, &error, NULL);
    else
      gst_message_parse_warning (msg, &error, NULL);
    *message_text = g_strdup (error->message);
    g_error_free (error);
    gst_message_unref (msg);
  }
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  gst_harness_teardown (cpu);
  g_rand_free (rand);
  return received;
}

/* backend=auto: a GPU failure (a launch made to fail on the third kernel)
 * is said once as a warning; the failed frame and all later ones are
 * computed on the CPU; every frame comes out right. */
GST_START_TEST (test_gpu_failure_falls_back)
{
  const gchar *kinds[] = { "launch:3", "alloc:4", "copy:2" };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (kinds); k++) {
    GstFlowReturn flow;
    gchar *text;
    guint received;

    g_setenv ("BSPLINE_CUDA_FAULT", kinds[k], TRUE);
    received = run_with_bus ("bsplinewarp backend=auto rotation=7 order=3",
        8, GST_MESSAGE_WARNING, &text, &flow);
    g_unsetenv ("BSPLINE_CUDA_FAULT");
    fail_unless_equals_int (flow, GST_FLOW_OK);
    fail_unless_equals_int (received, 8);
    fail_unless (text != NULL, "%s: no warning", kinds[k]);
    fail_unless (strstr (text, "continuing on the CPU") != NULL, "%s", text);
    g_print ("fault %s with backend=auto: 8 of 8 frames right; warning: %s\n",
        kinds[k], text);
    g_free (text);
  }
}

GST_END_TEST;

/* backend=cuda: a GPU failure is an element error naming the CUDA call;
 * the frames before it are right and no wrong frame goes out. */
GST_START_TEST (test_gpu_failure_is_an_error)
{
  GstFlowReturn flow;
  gchar *text;
  guint received;

  g_setenv ("BSPLINE_CUDA_FAULT", "alloc:9", TRUE);
  received = run_with_bus ("bsplinewarp backend=cuda rotation=7 order=3", 8,
      GST_MESSAGE_ERROR, &text, &flow);
  g_unsetenv ("BSPLINE_CUDA_FAULT");
  fail_unless_equals_int (flow, GST_FLOW_ERROR);
  fail_unless (received < 8);
  fail_unless (text != NULL);
  fail_unless (strstr (text, "cudaErrorMemoryAllocation") != NULL
      || strstr (text, "out of memory") != NULL, "%s", text);
  g_print ("fault alloc:9 with backend=cuda: error after %u right frames: "
      "%s\n", received, text);
  g_free (text);
}

GST_END_TEST;

static gsize
resident_kib (void)
{
  gchar *status = NULL, *line;
  gsize kib = 0;

  if (g_file_get_contents ("/proc/self/status", &status, NULL, NULL)
      && (line = strstr (status, "VmRSS:")) != NULL)
    kib = g_ascii_strtoull (line + 6, NULL, 10);
  g_free (status);
  return kib;
}

/* Start, one frame, stop, a thousand times: GPU and host memory stay
 * flat. */
GST_START_TEST (test_start_stop_cycles)
{
  const guint cycles = 1000;
  size_t free_before = 0, free_after, total;
  gsize rss_before = 0, rss_after;
  GRand *rand = g_rand_new ();
  guint i;

  for (i = 0; i <= cycles; i++) {
    GstHarness *h = warp_harness ("cuda");

    fail_unless_equals_int (gst_harness_push (h, random_frame (rand, i)),
        GST_FLOW_OK);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    gst_buffer_unref (gst_harness_pull (h));
    gst_harness_teardown (h);
    if (i == 0) {               /* after one warm-up cycle */
      fail_unless (bspline_cuda_device_memory (-1, &free_before, &total));
      rss_before = resident_kib ();
    }
  }
  fail_unless (bspline_cuda_device_memory (-1, &free_after, &total));
  rss_after = resident_kib ();
  g_print ("%u start/stop cycles: GPU free memory %+.1f MiB, host RSS "
      "%+.1f MiB\n", cycles, ((double) free_after - free_before) / 1048576.0,
      ((double) rss_after - rss_before) / 1024.0);
  fail_unless (free_before < free_after + (8u << 20),
      "GPU memory fell by %zu bytes", free_before - free_after);
  fail_unless (rss_after < rss_before + 32 * 1024,
      "host RSS grew from %zu to %zu KiB", rss_before, rss_after);
  g_rand_free (rand);
}

GST_END_TEST;

/* cuda-device-id: a device that exists runs, one that does not is an
 * error at start that names it. */
GST_START_TEST (test_device_id)
{
  GstElement *e = gst_element_factory_make ("bsplinewarp", NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *error = NULL;

  gst_element_set_bus (e, bus);
  g_object_set (e, "backend", 2 /* cuda */ , "cuda-device-id", 0, NULL);
  fail_unless (gst_element_set_state (e, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  gst_element_set_state (e, GST_STATE_NULL);
  g_object_set (e, "cuda-device-id", 99, NULL);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (strstr (error->message, "device 99 does not exist") != NULL,
      "message: %s", error->message);
  g_print ("cuda-device-id=99: %s\n", error->message);
  g_error_free (error);
  gst_message_unref (msg);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_END_TEST;

/* One frame of `format` through bsplinewarp with `settings` (a launch-line
 * fragment) on `backend`; returns the output buffer. */
static GstBuffer *
warp_once (const gchar * backend, const gchar * settings,
    const gchar * in_caps, const gchar * out_caps, GstBuffer * in)
{
  gchar *d = g_strdup_printf ("bsplinewarp backend=%s %s", backend,
      settings);
  GstHarness *h = gst_harness_new_parse (d);
  GstBuffer *out;

  gst_harness_set_src_caps_str (h, in_caps);
  gst_harness_set_sink_caps_str (h, out_caps);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  out = gst_harness_pull (h);
  gst_harness_teardown (h);
  g_free (d);
  return out;
}

/* A buffer of random bytes of caps in_caps (10-bit samples in the high
 * bits where bits is 10, as P010 holds them). */
static GstBuffer *
random_buffer (GRand * rand, const gchar * in_caps, gint bits)
{
  GstVideoInfo info;
  GstCaps *caps = gst_caps_from_string (in_caps);
  GstBuffer *in;
  GstMapInfo map;
  gsize i;

  gst_video_info_from_caps (&info, caps);
  gst_caps_unref (caps);
  in = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_map (in, &map, GST_MAP_WRITE);
  for (i = 0; i < map.size; i++)
    map.data[i] = (guint8) g_rand_int (rand);
  if (bits == 10)
    for (i = 0; i < map.size; i += 2)
      map.data[i] &= 0xc0;
  gst_buffer_unmap (in, &map);
  return in;
}

/* One frame through bsplinewarp `settings` with backend=cuda in
 * `precision` (1: double) and backend=cpu in double; returns their
 * largest difference in code values of `bits`, and in *bound what it may
 * be: one for double; for float the CPU float path's tolerance
 * (docs/accuracy.md: 2e-6 of the range up to order 3, 1e-5 up to 6, 1e-4
 * above, as in test-gpu-engine) times the range, at least one. */
static gint
gpu_against_cpu_double (const gchar * settings, guint order, guint precision,
    const gchar * in_caps, const gchar * out_caps, GstBuffer * in, gint bits,
    gint * bound)
{
  gchar *gpu_settings = g_strdup_printf ("%s order=%u precision=%s",
      settings, order, precision ? "double" : "float");
  gchar *ref_settings = g_strdup_printf ("%s order=%u precision=double",
      settings, order);
  GstBuffer *gpu = warp_once ("cuda", gpu_settings, in_caps, out_caps, in);
  GstBuffer *ref = warp_once ("cpu", ref_settings, in_caps, out_caps, in);
  gint d = max_difference_samples (gpu, ref, bits);
  gdouble tol = order <= 3 ? 2e-6 : order <= 6 ? 1e-5 : 1e-4;

  *bound = precision ? 1 : MAX (1, (gint) ceil (tol * ((1 << bits) - 1)));
  gst_buffer_unref (gpu);
  gst_buffer_unref (ref);
  g_free (gpu_settings);
  g_free (ref_settings);
  return d;
}

/* The element on the GPU against the element on the CPU in double (the
 * reference), for every order 0-11, every boundary, float and double, on
 * a warp and a downscale, for 8-bit, 10-bit (P010) and 16-bit formats,
 * planar, semi-planar and interleaved, within gpu_against_cpu_double's
 * bounds. */
GST_START_TEST (test_sweep_against_cpu_double)
{
  static const struct
  {
    const gchar *format;
    gint bits;
  } formats[] = {
    {"RGBA", 8}, {"I420", 8}, {"NV12", 8}, {"P010_10LE", 10},
    {"GRAY16_LE", 16}
  };
  static const gchar *const cases[] = {
    "rotation=17 zoom=0.9",     /* general path, antialiased shrink */
    "",                         /* 64x48 -> 40x30: separable, widened */
  };
  guint32 seed = g_random_int ();
  GRand *rand = g_rand_new_with_seed (seed);
  guint f, order, boundary, precision, c, runs = 0;
  gint worst_float = 0, worst_double = 0;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (c = 0; c < G_N_ELEMENTS (cases); c++) {
      gchar *in_caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
          "height=%d,framerate=30/1,pixel-aspect-ratio=1/1",
          formats[f].format, c ? 64 : 48, c ? 48 : 36);
      gchar *out_caps = g_strdup_printf ("video/x-raw,width=%d,height=%d,"
          "pixel-aspect-ratio=1/1", c ? 40 : 48, c ? 30 : 36);
      GstBuffer *in = random_buffer (rand, in_caps, formats[f].bits);

      for (order = 0; order <= 11; order++)
        for (boundary = 0; boundary < 5; boundary++)
          for (precision = 0; precision < 2; precision++) {
            gchar *settings = g_strdup_printf ("%s boundary=%u "
                "fill-color=0xff336699", cases[c], boundary);
            gint bound, d = gpu_against_cpu_double (settings, order,
                precision, in_caps, out_caps, in, formats[f].bits, &bound);

            fail_unless (d <= bound, "%s %s order %u boundary %u %s: GPU "
                "differs from the CPU double reference by %d code values "
                "(bound %d, seed %u)", formats[f].format, cases[c], order,
                boundary, precision ? "double" : "float", d, bound, seed);
            if (precision)
              worst_double = MAX (worst_double, d);
            else
              worst_float = MAX (worst_float, d);
            runs++;
            g_free (settings);
          }
      gst_buffer_unref (in);
      g_free (in_caps);
      g_free (out_caps);
    }
  g_print ("sweep: %u element runs (5 formats x 2 maps x orders 0-11 x 5 "
      "boundaries x float/double) against the CPU double reference: float "
      "within %d, double within %d code value(s)\n", runs, worst_float,
      worst_double);
  g_rand_free (rand);
}

GST_END_TEST;

/* The photograph (photo.h) as RGBA, alpha from red, or as GRAY8
 * (green). */
static GstBuffer *
photo_buffer (gboolean gray)
{
  guint8 rgb[PHOTO_BYTES];
  const gint C = gray ? 1 : 4;
  GstBuffer *b = gst_buffer_new_allocate (NULL, PHOTO_W * PHOTO_H * C, NULL);
  GstMapInfo map;
  gsize p;

  fail_unless (test_read_photo (rgb), "the photograph %s cannot be read",
      ASTRONAUT);
  gst_buffer_map (b, &map, GST_MAP_WRITE);
  for (p = 0; p < PHOTO_W * PHOTO_H; p++)
    if (gray) {
      map.data[p] = rgb[p * 3 + 1];
    } else {
      map.data[p * 4] = rgb[p * 3];
      map.data[p * 4 + 1] = rgb[p * 3 + 1];
      map.data[p * 4 + 2] = rgb[p * 3 + 2];
      map.data[p * 4 + 3] = rgb[p * 3];
    }
  gst_buffer_unmap (b, &map);
  return b;
}

/* The photograph through the element at default properties, and with
 * precision=compact (on the GPU the 16-bit coefficient plane where it
 * applies), with backend=cuda and backend=cpu, RGBA and GRAY8, under a
 * rotation, a perspective map, a shrinking rotation (least squares) and
 * an enlargement: every output within 1 code value of the CPU engine's
 * and at least 99.5 % of them identical (issue 40). */
GST_START_TEST (test_photograph_default_properties)
{
  static const gchar *const cases[] = {
    "rotation=10", "matrix=\"<1.0,0.02,0.0,0.0,1.0,0.0,0.0,0.0004,1.0>\"",
    "rotation=25 zoom=0.6", "zoom=1.7"
  };
  guint i, c;
  guint64 same[2] = { 0, 0 }, total[2] = { 0, 0 };
  gint worst[2] = { 0, 0 };

  /* k: default properties or precision=compact; g: RGBA or GRAY8 */
  for (i = 0; i < 4; i++) {
    const guint k = i / 2, g = i % 2;
    GstBuffer *in = photo_buffer (g);
    gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
        "height=%d,framerate=30/1,pixel-aspect-ratio=1/1",
        g ? "GRAY8" : "RGBA", PHOTO_W, PHOTO_H);
    for (c = 0; c < G_N_ELEMENTS (cases); c++) {
      gchar *settings = g_strdup_printf ("%s%s", cases[c], k ?
          " precision=compact" : "");
      GstBuffer *gpu = warp_once ("cuda", settings, caps, caps, in);
      GstBuffer *cpu = warp_once ("cpu", settings, caps, caps, in);
      GstMapInfo ma, mb;
      guint64 eq = 0;
      gint d = max_difference (gpu, cpu);
      gsize i;

      gst_buffer_map (gpu, &ma, GST_MAP_READ);
      gst_buffer_map (cpu, &mb, GST_MAP_READ);
      fail_unless_equals_int (ma.size, mb.size);
      for (i = 0; i < ma.size; i++)
        eq += ma.data[i] == mb.data[i];
      fail_unless (d <= 1, "photograph %s %s: the GPU is %d code values "
          "from the CPU", g ? "GRAY8" : "RGBA", settings, d);
      fail_unless (eq >= 0.995 * ma.size, "photograph %s %s: %.3f %% of the "
          "outputs equal the CPU's (under 99.5 %%)", g ? "GRAY8" : "RGBA",
          settings, 100.0 * eq / ma.size);
      same[k] += eq;
      total[k] += ma.size;
      worst[k] = MAX (worst[k], d);
      g_free (settings);
      gst_buffer_unmap (gpu, &ma);
      gst_buffer_unmap (cpu, &mb);
      gst_buffer_unref (gpu);
      gst_buffer_unref (cpu);
    }
    gst_buffer_unref (in);
    g_free (caps);
  }
  g_print ("photograph (RGBA and GRAY8; rotation, perspective, shrinking "
      "rotation, enlargement): at default properties the GPU within %d code "
      "value(s) of the CPU, %.3f %% identical; precision=compact within %d, "
      "%.3f %% identical\n", worst[0], 100.0 * same[0] / total[0], worst[1],
      100.0 * same[1] / total[1]);
}

GST_END_TEST;

/* The STMap stage on the GPU against the CPU in double: maps of a quarter
 * and twice the frame's size, alone and under a rotation and a 2x shrink
 * (antialiased from the map's Jacobian), orders 0-11, float and double,
 * RGBA and I420; then the map changed between frames of one running
 * element (the engine's copy of the map replaced while frames are in
 * flight), each frame against the CPU. */
GST_START_TEST (test_stmap_against_cpu_double)
{
  static const gchar *const formats[] = { "RGBA", "I420" };
  static const gchar *const cases[] = { "", "rotation=11",
    "rotation=-7 zoom=0.5"
  };
  gchar *maps[2];
  guint32 seed = g_random_int ();
  GRand *rand = g_rand_new_with_seed (seed);
  guint f, c, m, order, precision, runs = 0;
  gint worst_float = 0, worst_double = 0;

  maps[0] = write_wave_stmap (16, 12, 0.05, 1.5);
  maps[1] = write_wave_stmap (128, 96, -0.04, 2.5);
  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    gchar *in_caps = g_strdup_printf ("video/x-raw,format=%s,width=64,"
        "height=48,framerate=30/1,pixel-aspect-ratio=1/1", formats[f]);
    GstBuffer *in = random_buffer (rand, in_caps, 8);
    for (c = 0; c < G_N_ELEMENTS (cases); c++)
      for (m = 0; m < 2; m++)
        for (order = 0; order <= 11; order++)
          for (precision = 0; precision < 2; precision++) {
            gchar *out_caps = g_strdup_printf ("video/x-raw,width=%d,"
                "height=%d,pixel-aspect-ratio=1/1", c == 2 ? 32 : 64,
                c == 2 ? 24 : 48);
            gchar *settings = g_strdup_printf ("%s stmap-location=%s",
                cases[c], maps[m]);
            gint bound, d = gpu_against_cpu_double (settings, order,
                precision, in_caps, out_caps, in, 8, &bound);

            fail_unless (d <= bound, "%s %s map %u order %u %s: the GPU "
                "differs from the CPU double reference by %d code values "
                "(bound %d, seed %u)", formats[f], cases[c], m, order,
                precision ? "double" : "float", d, bound, seed);
            if (precision)
              worst_double = MAX (worst_double, d);
            else
              worst_float = MAX (worst_float, d);
            runs++;
            g_free (settings);
            g_free (out_caps);
          }
    gst_buffer_unref (in);
    g_free (in_caps);
  }

  /* the map changed between the frames of a running element */
  {
    GstHarness *gpu = gst_harness_new_parse ("bsplinewarp backend=cuda "
        "precision=double");
    GstHarness *cpu = gst_harness_new_parse ("bsplinewarp backend=cpu "
        "precision=double");
    GstElement *ge = gst_harness_find_element (gpu, "bsplinewarp");
    GstElement *ce = gst_harness_find_element (cpu, "bsplinewarp");
    guint k;

    gst_harness_set_src_caps_str (gpu, CAPS);
    gst_harness_set_src_caps_str (cpu, CAPS);
    /* a location set while PLAYING is read on another thread and used
     * from the first frame after the read (docs/stmap.md): each location
     * is set before an even frame, which starts the read with the old map,
     * and the odd frame after 200 ms (far more than these small maps take
     * to read) uses it, in both elements alike */
    for (k = 0; k < 16; k++) {
      const gchar *loc = k % 8 == 6 ? NULL : maps[k / 2 % 2];
      GstBuffer *in = random_frame (rand, k), *a, *b;
      if (k % 2 == 0) {
        g_object_set (ge, "stmap-location", loc, NULL);
        g_object_set (ce, "stmap-location", loc, NULL);
      } else {
        g_usleep (200000);
      }
      fail_unless_equals_int (gst_harness_push (gpu, gst_buffer_ref (in)),
          GST_FLOW_OK);
      fail_unless_equals_int (gst_harness_push (cpu, in), GST_FLOW_OK);
      /* the GPU element holds one frame in flight */
      if (k > 0) {
        a = gst_harness_pull (gpu);
        b = gst_harness_pull (cpu);
        fail_unless (max_difference (a, b) <= 1, "frame %u: GPU and CPU "
            "differ by %d after stmap-location changed", k - 1,
            max_difference (a, b));
        gst_buffer_unref (a);
        gst_buffer_unref (b);
      }
    }
    fail_unless (gst_harness_push_event (gpu, gst_event_new_eos ()));
    fail_unless (gst_harness_push_event (cpu, gst_event_new_eos ()));
    {
      /* the last frame, which EOS drains from the GPU */
      GstBuffer *a = gst_harness_pull (gpu), *b = gst_harness_pull (cpu);
      fail_unless (a != NULL && b != NULL && max_difference (a, b) <= 1,
          "the last frame: GPU and CPU differ");
      gst_buffer_unref (a);
      gst_buffer_unref (b);
    }
    gst_object_unref (ge);
    gst_object_unref (ce);
    gst_harness_teardown (gpu);
    gst_harness_teardown (cpu);
  }
  g_print ("stmap: %u element runs (RGBA and I420 x 3 geometries x 2 maps "
      "x orders 0-11 x float/double) against the CPU double reference: "
      "float within %d, double within %d code value(s); 8 frames with the "
      "map changed between them equal to the CPU's\n", runs, worst_float,
      worst_double);
  g_unlink (maps[0]);
  g_unlink (maps[1]);
  g_free (maps[0]);
  g_free (maps[1]);
  g_rand_free (rand);
}

GST_END_TEST;

static Suite *
gpu_element_suite (void)
{
  Suite *s = suite_create ("gpu-element");
  TCase *tc = tcase_create ("cuda");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_frames_in_flight);
  tcase_add_test (tc, test_drain_and_flush);
  tcase_add_test (tc, test_latency);
  tcase_add_test (tc, test_pinned_pools);
  tcase_add_test (tc, test_gpu_failure_falls_back);
  tcase_add_test (tc, test_gpu_failure_is_an_error);
  tcase_add_test (tc, test_start_stop_cycles);
  tcase_add_test (tc, test_device_id);
  tcase_add_test (tc, test_sweep_against_cpu_double);
  tcase_add_test (tc, test_photograph_default_properties);
  tcase_add_test (tc, test_stmap_against_cpu_double);
  tcase_set_timeout (tc, 600);
  return s;
}

int
main (int argc, char **argv)
{
  return run_cuda_suite (&argc, &argv, gpu_element_suite, "gpu-element", __FILE__);
}
