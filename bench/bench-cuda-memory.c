/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench-cuda-memory: frames per second of bsplinewarp with the CUDA engine
 * in system memory and in memory:CUDAMemory (issue 6), GStreamer overhead
 * included, without source cost.
 *
 * As bench-warp: the element runs in a GstHarness, is warmed up, then fed
 * N_INPUTS preallocated random frames round-robin while every output
 * buffer that is ready is pulled and dropped; EOS drains the frame in
 * flight.  System memory: the inputs are plain GstBuffers and the output
 * comes from the element's pinned pool.  CUDA memory: the inputs come
 * from a GstCudaBufferPool of a GstCudaContext given to the element as
 * gst.cuda.context (uploaded once, before timing) and the output from the
 * element's CUDA pool.  The anchor, in the same run: `identity` in CUDA
 * memory, the harness's own cost per frame.
 *
 * --pattern P: the inputs are videotestsrc's pattern P (frames 0 to 7 of
 * it, e.g. zone-plate with kxt and kyt: a drifting picture whose motion a
 * stabilizer measures) instead of random bytes, in which a motion
 * estimator finds nothing to follow.  For bsplinestabilize:
 *
 *   bench-cuda-memory --format NV12 --in 1920x1080 --out 1920x1080 \
 *     --pattern "zone-plate kx2=20 ky2=20 kt=1 kxt=5 kyt=3" \
 *     --element "bsplinestabilize backend=cuda"
 *
 *   bench-cuda-memory [--format RGBA] [--in 1920x1080] [--out 3840x2160]
 *                     [--frames 1000] [--element "bsplinewarp order=3"]
 *                     [--pattern "zone-plate kxt=5"]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudautils.h>

#define N_INPUTS 8
#define N_WARMUP 10

static gint
compare_times (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static gboolean
parse_size (const gchar * s, gint * w, gint * h)
{
  return sscanf (s, "%dx%d", w, h) == 2 && *w > 0 && *h > 0;
}

static void
fill_random (GstBuffer * buffer, GRand * rand)
{
  GstMapInfo map;
  gsize k;

  gst_buffer_map (buffer, &map, GST_MAP_WRITE);
  for (k = 0; k < map.size; k++)
    map.data[k] = g_rand_int (rand) >> 24;
  gst_buffer_unmap (buffer, &map);
}

/* Frames 0 to N_INPUTS - 1 of videotestsrc's pattern in the caps (system
 * memory), written into inputs; FALSE where the source cannot make them. */
static gboolean
fill_pattern (const gchar * pattern, GstCaps * caps, GstBuffer ** inputs)
{
  GstCaps *sys = gst_caps_copy (caps);
  gchar *caps_str, *description;
  GstElement *pipeline, *sink;
  GstVideoInfo info;
  gboolean ok = TRUE;
  gint i;

  gst_caps_set_features (sys, 0, NULL);
  gst_video_info_from_caps (&info, sys);
  caps_str = gst_caps_to_string (sys);
  description = g_strdup_printf ("videotestsrc num-buffers=%d pattern=%s ! "
      "%s ! appsink name=sink sync=false", N_INPUTS, pattern, caps_str);
  pipeline = gst_parse_launch (description, NULL);
  g_free (description);
  g_free (caps_str);
  gst_caps_unref (sys);
  if (pipeline == NULL)
    return FALSE;
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (i = 0; i < N_INPUTS && ok; i++) {
    GstSample *sample = NULL;
    GstVideoFrame from, to;

    g_signal_emit_by_name (sink, "pull-sample", &sample);
    ok = sample != NULL && gst_video_frame_map (&from, &info,
        gst_sample_get_buffer (sample), GST_MAP_READ);
    if (ok && !gst_video_frame_map (&to, &info, inputs[i], GST_MAP_WRITE)) {
      gst_video_frame_unmap (&from);
      ok = FALSE;
    }
    if (ok) {
      ok = gst_video_frame_copy (&to, &from);
      gst_video_frame_unmap (&to);
      gst_video_frame_unmap (&from);
    }
    if (sample)
      gst_sample_unref (sample);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return ok;
}

/* Random input frames (or the frames of pattern): system memory, or CUDA
 * memory of context (written through its staging copy; the first
 * GST_MAP_CUDA map uploads them). */
static gboolean
make_inputs (GstCudaContext * context, GstCaps * caps, const gchar * pattern,
    GstBuffer ** inputs, GstBufferPool ** pool)
{
  GRand *rand = g_rand_new_with_seed (2026);
  GstVideoInfo info;
  gint i;

  gst_video_info_from_caps (&info, caps);
  *pool = NULL;
  if (context) {
    GstStructure *config;

    *pool = gst_cuda_buffer_pool_new (context);
    config = gst_buffer_pool_get_config (*pool);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_config_set_params (config, caps, info.size, N_INPUTS, 0);
    if (!gst_buffer_pool_set_config (*pool, config)
        || !gst_buffer_pool_set_active (*pool, TRUE)) {
      g_rand_free (rand);
      return FALSE;
    }
  }
  for (i = 0; i < N_INPUTS; i++) {
    if (*pool)
      gst_buffer_pool_acquire_buffer (*pool, &inputs[i], NULL);
    else
      inputs[i] = gst_buffer_new_allocate (NULL, info.size, NULL);
    fill_random (inputs[i], rand);
  }
  g_rand_free (rand);
  return pattern == NULL || fill_pattern (pattern, caps, inputs);
}

/* Runs description on frames in the given memory; FALSE when it cannot. */
static gboolean
bench_element (const gchar * description, GstCudaContext * context,
    const gchar * format, gint in_w, gint in_h, gint out_w, gint out_h,
    const gchar * pattern, gint frames)
{
  const gchar *feature = context ? "(memory:CUDAMemory)" : "";
  gchar *in_caps = g_strdup_printf ("video/x-raw%s,format=%s,width=%d,"
      "height=%d,framerate=30/1,pixel-aspect-ratio=1/1", feature, format,
      in_w, in_h);
  gchar *out_caps = g_strdup_printf ("video/x-raw%s,format=%s,width=%d,"
      "height=%d,framerate=30/1,pixel-aspect-ratio=1/1", feature, format,
      out_w, out_h);
  GstHarness *h = gst_harness_new_parse (description);
  GstBuffer *inputs[N_INPUTS];
  GstBufferPool *pool;
  gint64 *times = g_new (gint64, frames), start = 0, total;
  GstCaps *caps = gst_caps_from_string (in_caps);
  gboolean ok;
  gint i, received = 0;

  if (context) {
    GstContext *c = gst_context_new_cuda_context (context);

    gst_element_set_context (h->element, c);
    gst_context_unref (c);
  }
  ok = make_inputs (context, caps, pattern, inputs, &pool);
  gst_caps_unref (caps);
  gst_harness_set_src_caps_str (h, in_caps);
  gst_harness_set_sink_caps_str (h, out_caps);

  for (i = 0; i < N_WARMUP + frames && ok; i++) {
    GstBuffer *in = gst_buffer_ref (inputs[i % N_INPUTS]), *out;
    gint64 t0 = g_get_monotonic_time ();

    if (i == N_WARMUP)
      start = t0;
    if (gst_harness_push (h, in) != GST_FLOW_OK) {
      ok = FALSE;
      break;
    }
    while ((out = gst_harness_try_pull (h)) != NULL) {
      gst_buffer_unref (out);
      received++;
    }
    if (i >= N_WARMUP)
      times[i - N_WARMUP] = g_get_monotonic_time () - t0;
  }
  if (ok) {
    GstBuffer *out;

    gst_harness_push_event (h, gst_event_new_eos ());
    while ((out = gst_harness_try_pull (h)) != NULL) {
      gst_buffer_unref (out);
      received++;
    }
    ok = received == N_WARMUP + frames;
  }

  if (ok) {
    total = g_get_monotonic_time () - start;
    qsort (times, frames, sizeof (gint64), compare_times);
    printf ("%-40s %-13s %9.1f frames/s   median %7.3f ms/frame\n",
        description, context ? "CUDA memory" : "system memory",
        frames / (total / 1e6), times[frames / 2] / 1e3);
  } else {
    printf ("%-40s %-13s failed to run\n", description,
        context ? "CUDA memory" : "system memory");
  }

  for (i = 0; i < N_INPUTS; i++)
    gst_buffer_unref (inputs[i]);
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  g_free (times);
  gst_harness_teardown (h);
  g_free (in_caps);
  g_free (out_caps);
  return ok;
}

int
main (int argc, char **argv)
{
  const gchar *format = "RGBA", *element = "bsplinewarp backend=cuda order=3";
  const gchar *pattern = NULL;
  gint in_w = 1920, in_h = 1080, out_w = 3840, out_h = 2160;
  gint frames = 1000, i;
  GstCudaContext *context;
  gboolean ok = TRUE;
  gchar *version;

  gst_init (&argc, &argv);
  for (i = 1; i < argc; i++) {
    const gchar *value = i + 1 < argc ? argv[i + 1] : NULL;

    if (value == NULL)
      goto usage;
    if (strcmp (argv[i], "--format") == 0)
      format = value;
    else if (strcmp (argv[i], "--in") == 0) {
      if (!parse_size (value, &in_w, &in_h))
        goto usage;
    } else if (strcmp (argv[i], "--out") == 0) {
      if (!parse_size (value, &out_w, &out_h))
        goto usage;
    } else if (strcmp (argv[i], "--frames") == 0)
      frames = MAX (1, atoi (value));
    else if (strcmp (argv[i], "--element") == 0)
      element = value;
    else if (strcmp (argv[i], "--pattern") == 0)
      pattern = value;
    else
      goto usage;
    i++;
  }
  if (!gst_cuda_load_library ()
      || (context = gst_cuda_context_new (0)) == NULL) {
    fprintf (stderr, "no CUDA device: nothing to measure\n");
    return 77;
  }
  gst_cuda_memory_init_once ();

  version = gst_version_string ();
  printf ("%s %dx%d -> %dx%d, %d frames after %d warm-up, %s\n", format,
      in_w, in_h, out_w, out_h, frames, N_WARMUP, version);
  g_free (version);
  ok &= bench_element (element, NULL, format, in_w, in_h, out_w, out_h,
      pattern, MAX (1, frames / 4));
  ok &= bench_element (element, context, format, in_w, in_h, out_w, out_h,
      pattern, frames);
  ok &= bench_element ("identity", context, format, out_w, out_h, out_w,
      out_h, pattern, frames);
  gst_object_unref (context);
  return ok ? 0 : 1;

usage:
  fprintf (stderr, "usage: %s [--format F] [--in WxH] [--out WxH] "
      "[--frames N] [--element DESCRIPTION] [--pattern P]\n", argv[0]);
  return 2;
}
