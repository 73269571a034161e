/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench-warp: frames per second of video scaling elements, without source
 * cost.
 *
 * A few random input frames are allocated before timing; each element runs
 * in a GstHarness (no pipeline, no clock, no source), is warmed up, then
 * fed the preallocated frames round-robin while the output buffers are
 * pulled and dropped (whatever is ready after each push; EOS drains an
 * element that holds frames in flight).  Output buffers come from the
 * element's own buffer pool, so the timed loop allocates nothing.
 * Reported: frames/s over the whole run (until the last frame is out), the
 * median and the shortest time of one push with the pulls it made ready
 * (the shortest is the least disturbed by other work on the machine), the
 * CPU time of the whole process (user + system, every thread) per frame
 * over the same run, the threads the process had at its end (the
 * element's pool included) and how many of them took at least a tenth of
 * that CPU time ("busy": the threads that did the work, which the wall
 * time of a shared machine cannot show; the kernel accounts a running
 * thread's time every few ms, so a shorter run may show 0); on a shared
 * machine CPU time is the steadier measure of the work.
 * The inputs are plain system memory, or with --pool the buffers of the
 * pool the element proposes in the allocation query (bsplinewarp with the
 * CUDA engine: pinned memory, which an upstream element that takes the
 * proposed pool writes into, and which the GPU reads without a staging
 * copy).
 *
 *   bench-warp [--format RGBA] [--in 1920x1080] [--out 3840x2160]
 *              [--threads 2] [--frames 30] [--pool]
 *              [--element "DESCRIPTION"]...
 *
 * Without --element it runs bsplinewarp order=3 and videoscale 4-tap and
 * lanczos, all with n-threads=THREADS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#define N_INPUTS 4
#define N_WARMUP 3

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

/* CPU time (user + system) of the whole process so far, in microseconds. */
static gint64
process_cpu_time (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * G_GINT64_CONSTANT
      (1000000) + usage.ru_utime.tv_usec + usage.ru_stime.tv_usec;
}

/* CPU time (nanoseconds on a core) of each thread of this process now, by
 * thread id: the first field of Linux's /proc/self/task/TID/schedstat
 * (finer than /proc's stat, whose clock ticks miss a short run); empty
 * where /proc cannot be read. */
static GHashTable *
thread_cpu_ticks (void)
{
  GHashTable *ticks = g_hash_table_new (g_direct_hash, g_direct_equal);
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  const gchar *tid;

  while (dir != NULL && (tid = g_dir_read_name (dir)) != NULL) {
    gchar *path = g_strdup_printf ("/proc/self/task/%s/schedstat", tid);
    gchar *stat = NULL;

    if (g_file_get_contents (path, &stat, NULL, NULL))
      g_hash_table_insert (ticks, GINT_TO_POINTER (atoi (tid)),
          GSIZE_TO_POINTER (g_ascii_strtoull (stat, NULL, 10)));
    g_free (stat);
    g_free (path);
  }
  if (dir != NULL)
    g_dir_close (dir);
  return ticks;
}

/* The threads of this process now, and of them those that took at least a
 * tenth of the process's CPU time since the snapshot before (the threads
 * that did the work, whatever else shared the cores meanwhile). */
static void
count_threads (GHashTable * before, gint * threads, gint * busy)
{
  GHashTable *now = thread_cpu_ticks ();
  GHashTableIter iter;
  gpointer tid, value;
  gsize total = 0, delta;

  g_hash_table_iter_init (&iter, now);
  while (g_hash_table_iter_next (&iter, &tid, &value))
    total += GPOINTER_TO_SIZE (value) - GPOINTER_TO_SIZE
        (g_hash_table_lookup (before, tid));
  *threads = g_hash_table_size (now);
  *busy = 0;
  g_hash_table_iter_init (&iter, now);
  while (g_hash_table_iter_next (&iter, &tid, &value)) {
    delta = GPOINTER_TO_SIZE (value) - GPOINTER_TO_SIZE
        (g_hash_table_lookup (before, tid));
    if (total > 0 && delta * 10 >= total)
      (*busy)++;
  }
  g_hash_table_unref (now);
}

/* The pool the element behind h proposes for caps, active, or NULL. */
static GstBufferPool *
proposed_pool (GstHarness * h, GstCaps * caps, guint size)
{
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;

  if (gst_pad_peer_query (h->srcpad, query)
      && gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  gst_query_unref (query);
  if (pool != NULL) {
    GstStructure *config = gst_buffer_pool_get_config (pool);

    gst_buffer_pool_config_set_params (config, caps, size, N_INPUTS, 0);
    if (!gst_buffer_pool_set_config (pool, config)
        || !gst_buffer_pool_set_active (pool, TRUE)) {
      gst_object_unref (pool);
      pool = NULL;
    }
  }
  return pool;
}

/* Runs one element description; returns FALSE when it cannot run. */
static gboolean
bench_element (const gchar * description, const gchar * format, gint in_w,
    gint in_h, gint out_w, gint out_h, gint frames, gboolean use_pool,
    GBytes * input)
{
  gchar *in_caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
      "height=%d,framerate=30/1,pixel-aspect-ratio=1/1", format, in_w, in_h);
  gchar *out_caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
      "height=%d,pixel-aspect-ratio=1/1", format, out_w, out_h);
  GstHarness *h = gst_harness_new_parse (description);
  GstBuffer *inputs[N_INPUTS];
  gint64 *times = g_new (gint64, frames), start = 0, cpu_start = 0, total;
  GHashTable *ticks_start = NULL;
  GstVideoInfo info;
  GstCaps *caps = gst_caps_from_string (in_caps);
  GRand *rand = g_rand_new_with_seed (2026);
  GstBufferPool *pool = NULL;
  gboolean ok = TRUE;
  gint i, received = 0, threads, busy;

  gst_video_info_from_caps (&info, caps);
  if (input != NULL && g_bytes_get_size (input) != info.size) {
    printf ("%-45s input of %" G_GSIZE_FORMAT " bytes, the caps' frame has %"
        G_GSIZE_FORMAT "\n", description, g_bytes_get_size (input), info.size);
    gst_caps_unref (caps);
    gst_harness_teardown (h);
    g_rand_free (rand);
    g_free (times);
    g_free (in_caps);
    g_free (out_caps);
    return FALSE;
  }
  gst_harness_set_src_caps_str (h, in_caps);
  gst_harness_set_sink_caps_str (h, out_caps);
  if (use_pool && (pool = proposed_pool (h, caps, info.size)) == NULL) {
    printf ("%-45s proposes no pool\n", description);
    gst_caps_unref (caps);
    gst_harness_teardown (h);
    g_rand_free (rand);
    g_free (times);
    g_free (in_caps);
    g_free (out_caps);
    return FALSE;
  }
  gst_caps_unref (caps);
  for (i = 0; i < N_INPUTS; i++) {
    GstMapInfo map;
    gsize k;

    if (pool == NULL
        || gst_buffer_pool_acquire_buffer (pool, &inputs[i], NULL)
        != GST_FLOW_OK)
      inputs[i] = gst_buffer_new_allocate (NULL, info.size, NULL);
    gst_buffer_map (inputs[i], &map, GST_MAP_WRITE);
    if (input != NULL)
      memcpy (map.data, g_bytes_get_data (input, NULL), map.size);
    else
      for (k = 0; k < map.size; k++)
        map.data[k] = g_rand_int (rand) >> 24;
    gst_buffer_unmap (inputs[i], &map);
  }

  /* An element may hold frames in flight (bsplinewarp backend=cuda holds
   * one): take whatever output is ready after each push, and at the end
   * drain the rest with EOS, so that every frame is counted once. */
  for (i = 0; i < N_WARMUP + frames && ok; i++) {
    GstBuffer *in = gst_buffer_ref (inputs[i % N_INPUTS]), *out;
    gint64 t0 = g_get_monotonic_time ();

    if (i == N_WARMUP) {
      start = t0;
      cpu_start = process_cpu_time ();
      ticks_start = thread_cpu_ticks ();
    }
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
    count_threads (ticks_start, &threads, &busy);
    qsort (times, frames, sizeof (gint64), compare_times);
    printf ("%-45s %8.2f frames/s   median %8.2f ms/frame   best %8.2f   "
        "cpu %8.2f ms/frame   threads %d, busy %d\n", description,
        frames / (total / 1e6), times[frames / 2] / 1e3, times[0] / 1e3,
        (process_cpu_time () - cpu_start) / 1e3 / frames, threads, busy);
  } else {
    printf ("%-45s failed to run\n", description);
  }

  for (i = 0; i < N_INPUTS; i++)
    gst_buffer_unref (inputs[i]);
  if (ticks_start != NULL)
    g_hash_table_unref (ticks_start);
  if (pool != NULL) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  g_rand_free (rand);
  g_free (times);
  gst_harness_teardown (h);
  g_free (in_caps);
  g_free (out_caps);
  return ok;
}

int
main (int argc, char **argv)
{
  const gchar *format = "RGBA";
  gint in_w = 1920, in_h = 1080, out_w = 3840, out_h = 2160;
  gint threads = 2, frames = 30, i;
  GPtrArray *elements = g_ptr_array_new_with_free_func (g_free);
  gboolean ok = TRUE, use_pool = FALSE;
  const gchar *input_path = NULL;
  gchar *version, *contents = NULL;
  gsize length = 0;
  GBytes *input = NULL;
  GError *error = NULL;

  gst_init (&argc, &argv);
  for (i = 1; i < argc; i++) {
    const gchar *value = i + 1 < argc ? argv[i + 1] : NULL;

    if (strcmp (argv[i], "--pool") == 0) {
      use_pool = TRUE;
      continue;
    }
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
    } else if (strcmp (argv[i], "--threads") == 0)
      threads = atoi (value);
    else if (strcmp (argv[i], "--frames") == 0)
      frames = MAX (1, atoi (value));
    else if (strcmp (argv[i], "--element") == 0)
      g_ptr_array_add (elements, g_strdup (value));
    else if (strcmp (argv[i], "--input") == 0)
      input_path = value;
    else
      goto usage;
    i++;
  }
  if (elements->len == 0) {
    g_ptr_array_add (elements,
        g_strdup_printf ("bsplinewarp order=3 n-threads=%d", threads));
    g_ptr_array_add (elements,
        g_strdup_printf ("videoscale method=4-tap n-threads=%d", threads));
    g_ptr_array_add (elements,
        g_strdup_printf ("videoscale method=lanczos n-threads=%d", threads));
  }

  if (input_path != NULL) {
    if (!g_file_get_contents (input_path, &contents, &length, &error)) {
      fprintf (stderr, "%s: %s\n", argv[0], error->message);
      g_error_free (error);
      g_ptr_array_free (elements, TRUE);
      return 2;
    }
    input = g_bytes_new_take (contents, length);
  }

  version = gst_version_string ();
  printf ("%s %dx%d -> %dx%d, %d frames after %d warm-up, inputs in %s, "
      "%s\n", format, in_w, in_h, out_w, out_h, frames, N_WARMUP,
      use_pool ? "the element's proposed pool" : "system memory", version);
  g_free (version);
  for (i = 0; i < (gint) elements->len; i++)
    ok &= bench_element (g_ptr_array_index (elements, i), format, in_w, in_h,
        out_w, out_h, frames, use_pool, input);
  g_ptr_array_free (elements, TRUE);
  if (input != NULL)
    g_bytes_unref (input);
  return ok ? 0 : 1;

usage:
  fprintf (stderr, "usage: %s [--format F] [--in WxH] [--out WxH] "
      "[--threads N] [--frames N] [--pool] [--input FILE] "
      "[--element DESCRIPTION]...\n", argv[0]);
  return 2;
}
