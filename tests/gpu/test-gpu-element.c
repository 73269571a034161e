/* test-gpu-element.c: bsplinewarp with backend=cuda, what the element adds
 * to the engine: frames in flight (output order, at most one frame held,
 * EOS and drain give every frame, flushes drop them), the latency it
 * reports, the pinned memory it proposes upstream and uses downstream,
 * and the same pixels as backend=cpu.  Skips (exit 77) without a GPU. */
#include <string.h>

#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

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
  fail_unless (gst_buffer_pool_config_get_allocator (config, &allocator,
          NULL));
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
  fail_unless_equals_string (gst_buffer_peek_memory (out, 0)->allocator->
      mem_type, "BSplinePinned");
  gst_buffer_unref (out);
  gst_harness_teardown (h);
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
  return s;
}

int
main (int argc, char **argv)
{
  GstElement *e;
  GstStateChangeReturn started;

  gst_check_init (&argc, &argv);
  e = gst_element_factory_make ("bsplinewarp", NULL);
  if (e == NULL) {
    g_print ("FAIL: bsplinewarp not found (GST_PLUGIN_PATH?)\n");
    return 1;
  }
  g_object_set (e, "backend", 2 /* cuda */ , NULL);
  started = gst_element_set_state (e, GST_STATE_PAUSED);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (e);
  if (started == GST_STATE_CHANGE_FAILURE) {
    g_print ("SKIP: backend=cuda cannot start here (no GPU or driver)\n");
    return 77;
  }
  /* the probe made a CUDA context in this process, and CUDA does not
   * survive fork(): run the tests in this process */
  g_setenv ("CK_FORK", "no", TRUE);
  return gst_check_run_suite (gpu_element_suite (), "gpu-element", __FILE__);
}
