/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-cuda-memory: bsplinewarp in memory:CUDAMemory beside NVIDIA's
 * GStreamer elements (issue 6), on a GPU machine.
 *
 * - every format of the CUDA caps, scale, rotation and perspective:
 *   cudaupload ! bsplinewarp ! cudadownload gives the same bytes as the
 *   element on the GPU from system memory (the path gpu-element checks
 *   against the CPU engine), and the element's pads were in CUDA memory;
 *   one format per geometry against backend=cpu, within 2 code values;
 * - gamma-mode=remap (RGBA, BGRx) scaled in CUDA memory: the same bytes as
 *   from system memory, RGBA within 2 code values of backend=cpu;
 * - mixed paths: system in / CUDA out and CUDA in / system out, the same
 *   bytes again;
 * - negotiation: CUDA memory where the neighbours take it, system memory
 *   where they do not;
 * - context sharing: cudaupload, two bsplinewarp and cudadownload answer
 *   the gst.cuda.context query with one GstCudaContext (one CUcontext),
 *   and every buffer between them is memory of that context; a
 *   cuda-device-id that does not exist is an error, not another device;
 * - a real decode: an H.264 clip (made with x264, tests/gpu/data) decoded
 *   by nvh264dec, warped in CUDA memory and downloaded, equals the decoded
 *   frames downloaded first and warped from system memory;
 * - a warp chain in CUDA memory (a lens, a rotation and a zoom deferred,
 *   then a resampling element that scales): no copy out of the deferring
 *   element, no warning, and the frames of one element with the same
 *   geometry within one code value;
 * - a GPU failure (BSPLINE_CUDA_FAULT) in CUDA memory with backend=auto:
 *   a warning, and every frame right (computed again on the CPU).
 *
 * bsplinestabilize (issue 41):
 * - a drifting zone plate stabilized with default properties (RGBA,
 *   NV12) and with zoom=5 (with crop=fill path=gaussian, and with
 *   solve-thread=true), in RGBA, BGRx, I420, NV12 and Y444: CUDA memory in
 *   and out, CUDA in / system out and system in / CUDA out give the same
 *   bytes as system memory in and out (the same device frames, motion and
 *   warp); the pads in the memory asked for; and with zoom=5 the output
 *   differs from the input (the warp ran, whatever motion was measured);
 * - negotiation both ways: between cudaupload and cudadownload, CUDA
 *   memory on both pads without capsfilters; between system-memory
 *   elements, system memory;
 * - nvh264dec ! bsplinestabilize ! cudadownload equals nvh264dec !
 *   cudadownload ! bsplinestabilize, and nvh264dec ! bsplinestabilize !
 *   nvh264enc runs with both pads in CUDA memory and a frame out for
 *   every frame in (skipped, said, without nvh264enc);
 * - a failed warp launch and a failed motion call (BSPLINE_CUDA_FAULT)
 *   with backend=auto in CUDA memory: one warning, every frame out, and
 *   for the launch the frames of the same failure from system memory (the
 *   CPU maps the CUDA memory through its staging copy).
 *
 * Exits 77 (skipped) where cudaupload is not registered: no GPU, no
 * driver, or no nvcodec plugin.  BSPLINE_TEST_FORMATS="RGBA NV12" limits
 * the format sweep (for compute-sanitizer runs); BSPLINE_TEST_CLIP names
 * the H.264 clip. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/bspline/bspline-chain-meta.h>

#ifndef CUDA_MEMORY_CLIP
#define CUDA_MEMORY_CLIP "tests/gpu/data/testsrc2-640x360-20f.h264"
#endif

static const gchar *all_formats[] = {
  "RGBA", "BGRA", "ARGB", "ABGR", "RGBx", "BGRx", "RGB", "BGR", "I420",
  "YV12", "NV12", "NV21", "Y42B", "Y444", "I420_10LE", "I422_10LE",
  "P010_10LE", "Y444_16LE", "GBR", "GBRA", "P016_LE", "I422_12LE", "RGBP",
  "BGRP",
  /* unpacked on the CPU, through the memory's staging copy */
  "YUY2", "UYVY", "RGB10A2_LE", "BGR10A2_LE"
};

typedef struct
{
  const gchar *name;
  const gchar *properties;
  gint out_width, out_height;
} Geometry;

/* 200 pixels: rows of 200-800 bytes, so that CUDA pitches (512-byte
 * aligned) differ from the caps' strides */
#define IN_WIDTH 200
#define IN_HEIGHT 120
static const Geometry geometries[] = {
  {"scale", "order=3", 312, 180},
  {"rotation", "rotation=17 order=5 boundary=constant", IN_WIDTH, IN_HEIGHT},
  {"perspective", "matrix=\"<1.0,0.1,0.0,0.02,1.0,0.0,0.0005,0.0002,1.0>\" "
        "boundary=mirror", IN_WIDTH, IN_HEIGHT},
};

/* gamma-mode=remap (cuda/transfer.cu): decoded, resampled and encoded in
 * CUDA memory */
static const Geometry linear_light = {
  "linear light", "gamma-mode=remap order=3", 200, 113
};

static gint failures = 0;

#define CHECK(cond, ...) \
  G_STMT_START { \
    if (!(cond)) { \
      failures++; \
      g_printerr ("FAIL %s:%d: ", __FILE__, __LINE__); \
      g_printerr (__VA_ARGS__); \
      g_printerr ("\n"); \
    } \
  } G_STMT_END

typedef void (*PipelineCheck) (GstElement * pipeline, gpointer data);

/* Runs description (with an appsink named sink) to EOS; returns its
 * samples, or NULL with *error set.  check runs at EOS, while the pads
 * still hold their caps; warnings counts the warning messages. */
static GPtrArray *run_parsed_checked (GstElement * pipeline,
    PipelineCheck check, gpointer data, gchar ** error, gint * warnings);

static GPtrArray *
run_pipeline (const gchar * description, PipelineCheck check, gpointer data,
    gchar ** error, gint * warnings)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (description, &err);

  *error = NULL;
  if (warnings)
    *warnings = 0;
  if (pipeline == NULL) {
    *error = g_strdup_printf ("cannot parse: %s", err->message);
    g_error_free (err);
    return NULL;
  }
  if (err)
    g_clear_error (&err);
  return run_parsed_checked (pipeline, check, data, error, warnings);
}

/* run_pipeline on a pipeline already made (it takes it). */
static GPtrArray *
run_parsed (GstElement * pipeline, gchar ** error, gint * warnings)
{
  *error = NULL;
  *warnings = 0;
  return run_parsed_checked (pipeline, NULL, NULL, error, warnings);
}

static GPtrArray *
run_parsed_checked (GstElement * pipeline, PipelineCheck check, gpointer data,
    gchar ** error, gint * warnings)
{
  GError *err = NULL;
  GstElement *sink;
  GPtrArray *samples;
  GstBus *bus;
  gboolean done = FALSE;

  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  g_object_set (sink, "sync", FALSE, NULL);
  samples = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_sample_unref);
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (!done) {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        20 * GST_MSECOND);
    GstMessage *msg;

    if (sample)
      g_ptr_array_add (samples, sample);
    else if (gst_app_sink_is_eos (GST_APP_SINK (sink)))
      done = TRUE;
    while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR |
                GST_MESSAGE_WARNING))) {
      if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR && *error == NULL) {
        gchar *dbg = NULL;

        gst_message_parse_error (msg, &err, &dbg);
        *error = g_strdup_printf ("%s (%s)", err->message, dbg ? dbg : "");
        g_clear_error (&err);
        g_free (dbg);
        done = TRUE;
      } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING && warnings) {
        (*warnings)++;
      }
      gst_message_unref (msg);
    }
  }
  if (*error == NULL && check)
    check (pipeline, data);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  if (*error) {
    g_ptr_array_unref (samples);
    return NULL;
  }
  return samples;
}

/* Largest difference between two frames of the same caps, in code values
 * (16-bit samples for formats deeper than 8 bits); -1 when they cannot be
 * compared. */
static gint
frame_difference (GstSample * a, GstSample * b)
{
  GstVideoInfo ia, ib;
  GstVideoFrame fa, fb;
  gint worst = 0;
  guint p;

  if (!gst_video_info_from_caps (&ia, gst_sample_get_caps (a))
      || !gst_video_info_from_caps (&ib, gst_sample_get_caps (b))
      || GST_VIDEO_INFO_FORMAT (&ia) != GST_VIDEO_INFO_FORMAT (&ib)
      || GST_VIDEO_INFO_WIDTH (&ia) != GST_VIDEO_INFO_WIDTH (&ib)
      || GST_VIDEO_INFO_HEIGHT (&ia) != GST_VIDEO_INFO_HEIGHT (&ib))
    return -1;
  if (!gst_video_frame_map (&fa, &ia, gst_sample_get_buffer (a), GST_MAP_READ))
    return -1;
  if (!gst_video_frame_map (&fb, &ib, gst_sample_get_buffer (b), GST_MAP_READ)) {
    gst_video_frame_unmap (&fa);
    return -1;
  }
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fa); p++) {
    guint c, y, x;
    gboolean wide;
    gsize row;

    for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&ia); c++)
      if (GST_VIDEO_INFO_COMP_PLANE (&ia, c) == p)
        break;
    wide = GST_VIDEO_INFO_COMP_DEPTH (&ia, c) > 8;
    row = (gsize) GST_VIDEO_INFO_COMP_WIDTH (&ia, c) *
        GST_VIDEO_INFO_COMP_PSTRIDE (&ia, c);
    for (y = 0; y < (guint) GST_VIDEO_INFO_COMP_HEIGHT (&ia, c); y++) {
      const guint8 *ra = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, p)
          + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p);
      const guint8 *rb = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, p)
          + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p);

      if (memcmp (ra, rb, row) == 0)
        continue;
      for (x = 0; x < row; x += wide ? 2 : 1) {
        gint va = wide ? GST_READ_UINT16_LE (ra + x) : ra[x];
        gint vb = wide ? GST_READ_UINT16_LE (rb + x) : rb[x];

        worst = MAX (worst, ABS (va - vb));
      }
    }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  return worst;
}

/* Checks that two runs gave as many frames, each within tolerance. */
static void
compare_runs (const gchar * what, GPtrArray * a, GPtrArray * b,
    gint expected, gint tolerance)
{
  guint i;
  gint worst = 0;

  if (a == NULL || b == NULL)
    return;
  CHECK (a->len == (guint) expected && b->len == (guint) expected,
      "%s: %u and %u frames, expected %d", what, a->len, b->len, expected);
  for (i = 0; i < MIN (a->len, b->len); i++) {
    gint d = frame_difference (g_ptr_array_index (a, i),
        g_ptr_array_index (b, i));

    CHECK (d >= 0, "%s: frame %u has other caps", what, i);
    worst = MAX (worst, d);
  }
  CHECK (worst <= tolerance, "%s: frames differ by up to %d code values "
      "(allowed %d)", what, worst, tolerance);
}

/* The memory each pad of element "w" negotiated. */
typedef struct
{
  gboolean sink_cuda, src_cuda, seen;
} PadMemory;

static gboolean
pad_is_cuda (GstElement * element, const gchar * pad_name)
{
  GstPad *pad = gst_element_get_static_pad (element, pad_name);
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gboolean cuda = caps && gst_caps_features_contains (gst_caps_get_features
      (caps, 0), GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);

  if (caps)
    gst_caps_unref (caps);
  gst_object_unref (pad);
  return cuda;
}

static void
check_pad_memory (GstElement * pipeline, gpointer data)
{
  PadMemory *memory = data;
  GstElement *w = gst_bin_get_by_name (GST_BIN (pipeline), "w");

  memory->sink_cuda = pad_is_cuda (w, "sink");
  memory->src_cuda = pad_is_cuda (w, "src");
  memory->seen = TRUE;
  gst_object_unref (w);
}

static GPtrArray *
run_checked (const gchar * what, const gchar * description,
    PipelineCheck check, gpointer data)
{
  gchar *error = NULL;
  GPtrArray *samples = run_pipeline (description, check, data, &error, NULL);

  CHECK (samples != NULL, "%s: %s\n  pipeline: %s", what, error, description);
  g_free (error);
  return samples;
}

#define SOURCE "videotestsrc num-buffers=3 pattern=zone-plate kx2=20 " \
    "ky2=20 kt=1 kxt=3 ! video/x-raw,format=%s,width=%d,height=%d," \
    "framerate=30/1"

static void
check_format (const gchar * format, const Geometry * g)
{
  gchar *what = g_strdup_printf ("%s %s", format, g->name);
  gchar *sys = g_strdup_printf (SOURCE " ! bsplinewarp backend=cuda %s ! "
      "video/x-raw,width=%d,height=%d ! appsink name=sink", format,
      IN_WIDTH, IN_HEIGHT, g->properties, g->out_width, g->out_height);
  gchar *cuda = g_strdup_printf (SOURCE " ! cudaupload ! bsplinewarp name=w "
      "backend=cuda %s ! video/x-raw(memory:CUDAMemory),width=%d,height=%d ! "
      "cudadownload ! video/x-raw,format=%s ! appsink name=sink", format,
      IN_WIDTH, IN_HEIGHT, g->properties, g->out_width, g->out_height, format);
  PadMemory memory = { FALSE, FALSE, FALSE };
  GPtrArray *a = run_checked (what, sys, NULL, NULL);
  GPtrArray *b = run_checked (what, cuda, check_pad_memory, &memory);

  CHECK (!b || (memory.sink_cuda && memory.src_cuda), "%s: bsplinewarp's "
      "pads were not both in CUDA memory (sink %d, src %d)", what,
      memory.sink_cuda, memory.src_cuda);
  compare_runs (what, a, b, 3, 0);

  /* the end result, not only the agreement of two GPU paths */
  if (strcmp (format, "RGBA") == 0) {
    gchar *cpu = g_strdup_printf (SOURCE " ! bsplinewarp backend=cpu %s ! "
        "video/x-raw,width=%d,height=%d ! appsink name=sink", format,
        IN_WIDTH, IN_HEIGHT, g->properties, g->out_width, g->out_height);
    GPtrArray *c = run_checked (what, cpu, NULL, NULL);

    compare_runs (what, b, c, 3, 2);
    if (c)
      g_ptr_array_unref (c);
    g_free (cpu);
  }
  if (a)
    g_ptr_array_unref (a);
  if (b)
    g_ptr_array_unref (b);
  g_free (sys);
  g_free (cuda);
  g_free (what);
}

/* A warp chain in CUDA memory: w defers (its src buffers are its sink
 * buffers, memory and all, with the chain meta on them) and the last
 * element resamples the whole chain, scaling it up. */
typedef struct
{
  GstMemory *last_in;
  guint frames, zero_copy, with_chain;
} ChainProbe;

static GstPadProbeReturn
chain_probe_in (G_GNUC_UNUSED GstPad * pad, GstPadProbeInfo * info,
    gpointer data)
{
  ChainProbe *probe = data;

  probe->last_in = gst_buffer_peek_memory (GST_PAD_PROBE_INFO_BUFFER (info), 0);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
chain_probe_out (G_GNUC_UNUSED GstPad * pad, GstPadProbeInfo * info,
    gpointer data)
{
  ChainProbe *probe = data;
  GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER (info);
  GstBSplineChainMeta *chain = gst_buffer_get_bspline_chain_meta (buffer);

  probe->frames++;
  probe->zero_copy += gst_buffer_peek_memory (buffer, 0) == probe->last_in
      && gst_is_cuda_memory (probe->last_in);
  /* the first element's stage and w's */
  probe->with_chain += chain != NULL && chain->n_stages == 2;
  return GST_PAD_PROBE_OK;
}

static void
check_chain (const gchar * format)
{
  gchar *what = g_strdup_printf ("%s warp chain in CUDA memory", format);
  gchar *single = g_strdup_printf (SOURCE " ! bsplinewarp backend=cuda "
      "rotation=7 zoom=1.2 lens-model=brown camera-matrix=\"<180.0,180.0,"
      "99.5,59.5>\" distortion=\"<-0.2>\" ! video/x-raw,width=400,"
      "height=240 ! appsink name=sink", format, IN_WIDTH, IN_HEIGHT);
  gchar *chain = g_strdup_printf (SOURCE " ! cudaupload ! bsplinewarp "
      "backend=cuda defer=true lens-model=brown camera-matrix=\"<180.0,180.0,"
      "99.5,59.5>\" distortion=\"<-0.2>\" ! bsplinewarp name=w "
      "backend=cuda defer=true rotation=7 ! bsplinewarp backend=cuda "
      "defer=true zoom=1.2 ! bsplinewarp backend=cuda ! "
      "video/x-raw(memory:CUDAMemory),width=400,height=240 ! cudadownload ! "
      "video/x-raw,format=%s ! appsink name=sink", format, IN_WIDTH,
      IN_HEIGHT, format);
  ChainProbe probe = { NULL, 0, 0, 0 };
  GError *err = NULL;
  GstElement *pipeline;
  GPtrArray *a, *b;
  gchar *error = NULL;
  gint warnings = 0;

  a = run_checked (what, single, NULL, NULL);
  /* the probes need the pipeline: run_pipeline parses its own, so parse
   * once here to attach them through a bin-wide element lookup */
  pipeline = gst_parse_launch (chain, &err);
  CHECK (pipeline != NULL, "%s: cannot parse", what);
  g_clear_error (&err);
  if (pipeline) {
    GstElement *w = gst_bin_get_by_name (GST_BIN (pipeline), "w");
    GstPad *sink = gst_element_get_static_pad (w, "sink");
    GstPad *src = gst_element_get_static_pad (w, "src");

    gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, chain_probe_in,
        &probe, NULL);
    gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, chain_probe_out,
        &probe, NULL);
    gst_object_unref (sink);
    gst_object_unref (src);
    gst_object_unref (w);
    b = run_parsed (pipeline, &error, &warnings);
    CHECK (b != NULL, "%s: %s", what, error);
    CHECK (warnings == 0, "%s: %d warnings (an element did not defer)", what,
        warnings);
    CHECK (probe.frames == 3 && probe.zero_copy == 3 && probe.with_chain == 3,
        "%s: %u frames out of the deferring element, %u of them its input's "
        "CUDA memory, %u with its stage on the chain", what, probe.frames,
        probe.zero_copy, probe.with_chain);
    /* one plan of the same map on the same GPU: the matrices composed in
     * another order may round differently */
    compare_runs (what, a, b, 3, 1);
    if (b)
      g_ptr_array_unref (b);
  }
  g_free (error);
  if (a)
    g_ptr_array_unref (a);
  g_free (single);
  g_free (chain);
  g_free (what);
}

static void
check_mixed (const gchar * format)
{
  const Geometry *g = &geometries[1];
  gchar *sys = g_strdup_printf (SOURCE " ! bsplinewarp backend=cuda %s ! "
      "appsink name=sink", format, IN_WIDTH, IN_HEIGHT, g->properties);
  gchar *sys_to_cuda = g_strdup_printf (SOURCE " ! bsplinewarp name=w "
      "backend=cuda %s ! video/x-raw(memory:CUDAMemory) ! cudadownload ! "
      "video/x-raw ! appsink name=sink", format, IN_WIDTH, IN_HEIGHT,
      g->properties);
  gchar *cuda_to_sys = g_strdup_printf (SOURCE " ! cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! bsplinewarp name=w backend=cuda %s ! "
      "video/x-raw ! appsink name=sink", format, IN_WIDTH, IN_HEIGHT,
      g->properties);
  gchar *what1 = g_strdup_printf ("%s system in, CUDA out", format);
  gchar *what2 = g_strdup_printf ("%s CUDA in, system out", format);
  PadMemory m1 = { FALSE, FALSE, FALSE }, m2 = {
    FALSE, FALSE, FALSE
  };
  GPtrArray *a = run_checked (format, sys, NULL, NULL);
  GPtrArray *b = run_checked (what1, sys_to_cuda, check_pad_memory, &m1);
  GPtrArray *c = run_checked (what2, cuda_to_sys, check_pad_memory, &m2);

  CHECK (!b || (!m1.sink_cuda && m1.src_cuda), "%s: pads sink %d src %d",
      what1, m1.sink_cuda, m1.src_cuda);
  CHECK (!c || (m2.sink_cuda && !m2.src_cuda), "%s: pads sink %d src %d",
      what2, m2.sink_cuda, m2.src_cuda);
  compare_runs (what1, a, b, 3, 0);
  compare_runs (what2, a, c, 3, 0);
  if (a)
    g_ptr_array_unref (a);
  if (b)
    g_ptr_array_unref (b);
  if (c)
    g_ptr_array_unref (c);
  g_free (sys);
  g_free (sys_to_cuda);
  g_free (cuda_to_sys);
  g_free (what1);
  g_free (what2);
}

/* Without capsfilters around it, the element takes CUDA memory from
 * cudaupload and gives it to cudadownload; between system-memory
 * elements it stays in system memory. */
static void
check_preference (void)
{
  gchar *cuda = g_strdup_printf (SOURCE " ! cudaupload ! bsplinewarp name=w "
      "rotation=5 ! cudadownload ! appsink name=sink", "NV12", IN_WIDTH,
      IN_HEIGHT);
  gchar *sys = g_strdup_printf (SOURCE " ! bsplinewarp name=w rotation=5 ! "
      "appsink name=sink", "NV12", IN_WIDTH, IN_HEIGHT);
  PadMemory m1 = { FALSE, FALSE, FALSE }, m2 = {
    TRUE, TRUE, FALSE
  };
  GPtrArray *a = run_checked ("preference", cuda, check_pad_memory, &m1);
  GPtrArray *b = run_checked ("system memory", sys, check_pad_memory, &m2);

  CHECK (!a || (m1.sink_cuda && m1.src_cuda), "between cudaupload and "
      "cudadownload: pads sink %d src %d, expected CUDA memory on both",
      m1.sink_cuda, m1.src_cuda);
  CHECK (!b || (!m2.sink_cuda && !m2.src_cuda), "between system-memory "
      "elements: pads sink %d src %d, expected system memory", m2.sink_cuda,
      m2.src_cuda);
  compare_runs ("preference", a, b, 3, 0);
  if (a)
    g_ptr_array_unref (a);
  if (b)
    g_ptr_array_unref (b);
  g_free (cuda);
  g_free (sys);
}

/* videocrop between two elements on a GPU machine: the preference takes
 * the three into CUDA memory, where videocrop crops by its meta alone, so
 * the element downstream takes the crop meta there (it folds the crop into
 * its planes on the device); the frames equal those of the same pipeline
 * held in system memory by capsfilters. */
static void
check_crop (const gchar * format)
{
  gchar *cuda = g_strdup_printf (SOURCE " ! bsplinewarp name=w backend=cuda "
      "rotation=5 ! videocrop left=6 right=4 top=2 bottom=8 ! bsplinewarp "
      "backend=cuda rotation=-3 ! video/x-raw ! appsink name=sink", format,
      IN_WIDTH, IN_HEIGHT);
  gchar *sys = g_strdup_printf (SOURCE " ! bsplinewarp name=w backend=cuda "
      "rotation=5 ! video/x-raw ! videocrop left=6 right=4 top=2 bottom=8 ! "
      "video/x-raw ! bsplinewarp backend=cuda rotation=-3 ! video/x-raw ! "
      "appsink name=sink", format, IN_WIDTH, IN_HEIGHT);
  gchar *what = g_strdup_printf ("%s videocrop in CUDA memory", format);
  PadMemory m = { FALSE, FALSE, FALSE };
  GPtrArray *a = run_checked (what, cuda, check_pad_memory, &m);
  GPtrArray *b = run_checked (format, sys, NULL, NULL);

  CHECK (!a || m.src_cuda, "%s: the crop was not in CUDA memory", what);
  compare_runs (what, a, b, 3, 0);
  if (a)
    g_ptr_array_unref (a);
  if (b)
    g_ptr_array_unref (b);
  g_free (cuda);
  g_free (sys);
  g_free (what);
}

/* ---- context sharing ---- */

#define N_SHARERS 4
static const gchar *sharers[N_SHARERS] = { "up", "w1", "w2", "down" };

typedef struct
{
  GstCudaContext *queried[N_SHARERS];   /* gst.cuda.context of each */
  GMutex lock;
  GstCudaContext *memory_context;       /* of every buffer seen */
  gint buffers, foreign;        /* buffers seen, of another context */
} Sharing;

static GstPadProbeReturn
memory_probe (G_GNUC_UNUSED GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Sharing *sharing = data;
  GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER (info);
  GstMemory *mem = gst_buffer_peek_memory (buffer, 0);

  g_mutex_lock (&sharing->lock);
  sharing->buffers++;
  if (!gst_is_cuda_memory (mem))
    sharing->foreign++;
  else if (sharing->memory_context == NULL)
    sharing->memory_context =
        gst_object_ref (GST_CUDA_MEMORY_CAST (mem)->context);
  else if (GST_CUDA_MEMORY_CAST (mem)->context != sharing->memory_context)
    sharing->foreign++;
  g_mutex_unlock (&sharing->lock);
  return GST_PAD_PROBE_OK;
}

static void
query_contexts (GstElement * pipeline, gpointer data)
{
  Sharing *sharing = data;
  gint i;

  for (i = 0; i < N_SHARERS; i++) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), sharers[i]);
    GstPad *pad = gst_element_get_static_pad (e, "src");
    GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
    GstContext *context = NULL;

    /* the pad's own answer, not its peer's */
    if (gst_pad_query (pad, query)) {
      gst_query_parse_context (query, &context);
      if (context)
        gst_structure_get (gst_context_get_structure (context),
            GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT,
            &sharing->queried[i], NULL);
    }
    gst_query_unref (query);
    gst_object_unref (pad);
    gst_object_unref (e);
  }
}

static void
check_sharing (const gchar * device_id)
{
  gchar *description = g_strdup_printf (SOURCE " ! cudaupload name=up ! "
      "bsplinewarp name=w1 backend=cuda %s rotation=7 ! bsplinewarp name=w2 "
      "backend=cuda %s zoom=1.3 ! cudadownload name=down ! appsink name=sink",
      "RGBA", IN_WIDTH, IN_HEIGHT, device_id, device_id);
  GError *err = NULL;
  Sharing sharing;
  GPtrArray *samples;
  gchar *error = NULL;
  gint i;

  memset (&sharing, 0, sizeof (sharing));
  g_mutex_init (&sharing.lock);
  /* run_pipeline with buffer probes on the src pads of cudaupload, w1
   * and w2 */
  {
    GstElement *pipeline = gst_parse_launch (description, &err);
    GstElement *sink;
    GstBus *bus;
    gboolean done = FALSE;

    g_assert_no_error (err);
    for (i = 0; i < 3; i++) {
      GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), sharers[i]);
      GstPad *pad = gst_element_get_static_pad (e, "src");

      gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, memory_probe,
          &sharing, NULL);
      gst_object_unref (pad);
      gst_object_unref (e);
    }
    sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
    g_object_set (sink, "sync", FALSE, NULL);
    samples = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_sample_unref);
    bus = gst_element_get_bus (pipeline);
    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    while (!done) {
      GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
          20 * GST_MSECOND);
      GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

      if (sample)
        g_ptr_array_add (samples, sample);
      else if (gst_app_sink_is_eos (GST_APP_SINK (sink)))
        done = TRUE;
      if (msg) {
        GError *e = NULL;

        gst_message_parse_error (msg, &e, NULL);
        error = g_strdup (e->message);
        g_error_free (e);
        gst_message_unref (msg);
        done = TRUE;
      }
    }
    if (error == NULL)
      query_contexts (pipeline, &sharing);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (sink);
    gst_object_unref (pipeline);
  }

  CHECK (error == NULL, "context sharing (%s): %s", device_id, error);
  CHECK (samples->len == 3, "context sharing (%s): %u frames", device_id,
      samples->len);
  for (i = 0; i < N_SHARERS; i++)
    CHECK (sharing.queried[i] != NULL, "context sharing (%s): %s did not "
        "answer the gst.cuda.context query", device_id, sharers[i]);
  for (i = 1; i < N_SHARERS; i++)
    CHECK (sharing.queried[i] == sharing.queried[0]
        && (sharing.queried[0] == NULL
            || gst_cuda_context_get_handle (sharing.queried[i]) ==
            gst_cuda_context_get_handle (sharing.queried[0])),
        "context sharing (%s): %s has GstCudaContext %p, %s has %p",
        device_id, sharers[i], sharing.queried[i], sharers[0],
        sharing.queried[0]);
  CHECK (sharing.buffers == 9 && sharing.foreign == 0,
      "context sharing (%s): %d buffers out of cudaupload, w1 and w2, %d "
      "not CUDA memory of one context", device_id, sharing.buffers,
      sharing.foreign);
  CHECK (sharing.memory_context == sharing.queried[0],
      "context sharing (%s): buffers are memory of %p, the elements share %p",
      device_id, sharing.memory_context, sharing.queried[0]);
  if (error == NULL)
    g_print ("context sharing (%s): cudaupload, w1, w2, cudadownload: "
        "GstCudaContext %p, CUcontext %p\n", device_id, sharing.queried[0],
        sharing.queried[0] ?
        gst_cuda_context_get_handle (sharing.queried[0]) : NULL);
  for (i = 0; i < N_SHARERS; i++)
    gst_clear_object (&sharing.queried[i]);
  gst_clear_object (&sharing.memory_context);
  g_mutex_clear (&sharing.lock);
  g_ptr_array_unref (samples);
  g_free (error);
  g_free (description);
}

/* cuda-device-id names a device: one that does not exist is an error,
 * not the neighbours' device. */
static void
check_missing_device (void)
{
  gchar *description = g_strdup_printf (SOURCE " ! cudaupload ! bsplinewarp "
      "backend=cuda cuda-device-id=99 rotation=3 ! cudadownload ! "
      "appsink name=sink", "RGBA", IN_WIDTH, IN_HEIGHT);
  gchar *error = NULL;
  GPtrArray *samples = run_pipeline (description, NULL, NULL, &error, NULL);

  CHECK (samples == NULL && error != NULL, "cuda-device-id=99 beside a "
      "context on device 0 ran (%u frames)", samples ? samples->len : 0);
  if (error)
    g_print ("cuda-device-id=99: %s\n", error);
  if (samples)
    g_ptr_array_unref (samples);
  g_free (error);
  g_free (description);
}

/* ---- a real decode ---- */

static void
check_decode (void)
{
  const gchar *clip = g_getenv ("BSPLINE_TEST_CLIP");
  gchar *cuda, *sys;
  PadMemory memory = { FALSE, FALSE, FALSE };
  GPtrArray *a, *b;
  GstElementFactory *dec = gst_element_factory_find ("nvh264dec");

  if (dec == NULL) {
    g_print ("SKIP decode: nvh264dec is not registered\n");
    return;
  }
  gst_object_unref (dec);
  if (clip == NULL)
    clip = CUDA_MEMORY_CLIP;
  cuda = g_strdup_printf ("filesrc location=%s ! h264parse ! nvh264dec ! "
      "video/x-raw(memory:CUDAMemory) ! bsplinewarp name=w backend=cuda "
      "rotation=10 order=3 ! video/x-raw(memory:CUDAMemory),width=480,"
      "height=270 ! cudadownload ! video/x-raw ! appsink name=sink", clip);
  sys = g_strdup_printf ("filesrc location=%s ! h264parse ! nvh264dec ! "
      "cudadownload ! video/x-raw ! bsplinewarp backend=cuda rotation=10 "
      "order=3 ! video/x-raw,width=480,height=270 ! appsink name=sink", clip);
  a = run_checked ("decode, CUDA memory", cuda, check_pad_memory, &memory);
  b = run_checked ("decode, system memory", sys, NULL, NULL);
  CHECK (!a || (memory.sink_cuda && memory.src_cuda), "decode: pads sink %d "
      "src %d, expected CUDA memory", memory.sink_cuda, memory.src_cuda);
  compare_runs ("nvh264dec", a, b, 20, 0);
  if (a && b)
    g_print ("decode: %u frames of %s through nvh264dec in CUDA memory\n",
        a->len, clip);
  if (a)
    g_ptr_array_unref (a);
  if (b)
    g_ptr_array_unref (b);
  g_free (cuda);
  g_free (sys);
}

/* A kernel launch that fails in CUDA memory with backend=auto: a warning,
 * and the frames computed again on the CPU (through the CUDA memory's
 * staging copies). */
static void
check_fault (void)
{
  gchar *cuda = g_strdup_printf (SOURCE " ! cudaupload ! bsplinewarp "
      "backend=auto rotation=17 ! video/x-raw(memory:CUDAMemory) ! "
      "cudadownload ! video/x-raw ! appsink name=sink", "RGBA", IN_WIDTH,
      IN_HEIGHT);
  gchar *cpu = g_strdup_printf (SOURCE " ! bsplinewarp backend=cpu "
      "rotation=17 ! appsink name=sink", "RGBA", IN_WIDTH, IN_HEIGHT);
  gchar *error = NULL;
  gint warnings = 0;
  GPtrArray *a, *b;

  g_setenv ("BSPLINE_CUDA_FAULT", "launch:3", TRUE);
  a = run_pipeline (cuda, NULL, NULL, &error, &warnings);
  g_unsetenv ("BSPLINE_CUDA_FAULT");
  CHECK (a != NULL, "fault: %s", error);
  CHECK (warnings == 1, "fault: %d warnings, expected 1", warnings);
  b = run_checked ("fault, CPU reference", cpu, NULL, NULL);
  compare_runs ("fault launch:3 in CUDA memory", a, b, 3, 2);
  if (a)
    g_ptr_array_unref (a);
  if (b)
    g_ptr_array_unref (b);
  g_free (error);
  g_free (cuda);
  g_free (cpu);
}

/* ---- bsplinestabilize ---- */

#define STAB_WIDTH 320
#define STAB_HEIGHT 180
#define STAB_FRAMES 12
/* a zone plate drifting sideways and shaking (kxt, kyt): motion to
 * measure in every frame */
#define STAB_SOURCE "videotestsrc num-buffers=12 pattern=zone-plate " \
    "kx2=20 ky2=20 kt=1 kxt=5 kyt=3 ! video/x-raw,format=%s,width=%d," \
    "height=%d,framerate=30/1"

/* Whether some frame of a differs from its frame in b. */
static gboolean
runs_differ (GPtrArray * a, GPtrArray * b)
{
  guint i;

  for (i = 0; a && b && i < MIN (a->len, b->len); i++)
    if (frame_difference (g_ptr_array_index (a, i),
            g_ptr_array_index (b, i)) != 0)
      return TRUE;
  return FALSE;
}

static void
check_stabilize (const gchar * format, const gchar * properties)
{
  gchar *what = g_strdup_printf ("bsplinestabilize %s %s", format,
      properties);
  gchar *input = g_strdup_printf (STAB_SOURCE " ! appsink name=sink", format,
      STAB_WIDTH, STAB_HEIGHT);
  gchar *sys = g_strdup_printf (STAB_SOURCE " ! bsplinestabilize "
      "backend=cuda %s ! appsink name=sink", format, STAB_WIDTH, STAB_HEIGHT,
      properties);
  gchar *paths[3];
  const gchar *names[3] = { "CUDA in and out", "CUDA in, system out",
    "system in, CUDA out"
  };
  const gboolean in_cuda[3] = { TRUE, TRUE, FALSE };
  const gboolean out_cuda[3] = { TRUE, FALSE, TRUE };
  GPtrArray *a, *b = run_checked (what, sys, NULL, NULL);
  guint k;

  paths[0] = g_strdup_printf (STAB_SOURCE " ! cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! bsplinestabilize name=w backend=cuda "
      "%s ! video/x-raw(memory:CUDAMemory) ! cudadownload ! video/x-raw ! "
      "appsink name=sink", format, STAB_WIDTH, STAB_HEIGHT, properties);
  paths[1] = g_strdup_printf (STAB_SOURCE " ! cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! bsplinestabilize name=w backend=cuda "
      "%s ! video/x-raw ! appsink name=sink", format, STAB_WIDTH,
      STAB_HEIGHT, properties);
  paths[2] = g_strdup_printf (STAB_SOURCE " ! bsplinestabilize name=w "
      "backend=cuda %s ! video/x-raw(memory:CUDAMemory) ! cudadownload ! "
      "video/x-raw ! appsink name=sink", format, STAB_WIDTH, STAB_HEIGHT,
      properties);
  a = run_checked (what, input, NULL, NULL);
  /* with a zoom every frame is warped, whatever motion was measured */
  CHECK (strstr (properties, "zoom=") == NULL || runs_differ (a, b),
      "%s: the output equals the input (no warp ran, the test would prove "
      "nothing)", what);
  if (a)
    g_ptr_array_unref (a);
  for (k = 0; k < G_N_ELEMENTS (paths); k++) {
    gchar *name = g_strdup_printf ("%s, %s", what, names[k]);
    PadMemory m = { FALSE, FALSE, FALSE };
    GPtrArray *c = run_checked (name, paths[k], check_pad_memory, &m);

    CHECK (!c || (m.sink_cuda == in_cuda[k] && m.src_cuda == out_cuda[k]),
        "%s: pads sink %d src %d", name, m.sink_cuda, m.src_cuda);
    compare_runs (name, b, c, STAB_FRAMES, 0);
    if (c)
      g_ptr_array_unref (c);
    g_free (name);
    g_free (paths[k]);
  }
  if (b)
    g_ptr_array_unref (b);
  g_free (what);
  g_free (input);
  g_free (sys);
}

/* Without capsfilters, CUDA memory between cudaupload and cudadownload,
 * system memory between system-memory elements. */
static void
check_stabilize_preference (void)
{
  gchar *cuda = g_strdup_printf (STAB_SOURCE " ! cudaupload ! "
      "bsplinestabilize name=w ! cudadownload ! appsink name=sink", "NV12",
      STAB_WIDTH, STAB_HEIGHT);
  gchar *sys = g_strdup_printf (STAB_SOURCE " ! bsplinestabilize name=w ! "
      "appsink name=sink", "NV12", STAB_WIDTH, STAB_HEIGHT);
  PadMemory m1 = { FALSE, FALSE, FALSE }, m2 = {
    TRUE, TRUE, FALSE
  };
  GPtrArray *a = run_checked ("stabilize preference", cuda, check_pad_memory,
      &m1);
  GPtrArray *b = run_checked ("stabilize in system memory", sys,
      check_pad_memory, &m2);

  CHECK (!a || (m1.sink_cuda && m1.src_cuda), "bsplinestabilize between "
      "cudaupload and cudadownload: pads sink %d src %d, expected CUDA "
      "memory on both", m1.sink_cuda, m1.src_cuda);
  CHECK (!b || (!m2.sink_cuda && !m2.src_cuda), "bsplinestabilize between "
      "system-memory elements: pads sink %d src %d, expected system memory",
      m2.sink_cuda, m2.src_cuda);
  compare_runs ("stabilize preference", a, b, STAB_FRAMES, 0);
  if (a)
    g_ptr_array_unref (a);
  if (b)
    g_ptr_array_unref (b);
  g_free (cuda);
  g_free (sys);
}

static void
check_stabilize_decode (void)
{
  const gchar *clip = g_getenv ("BSPLINE_TEST_CLIP");
  GstElementFactory *dec = gst_element_factory_find ("nvh264dec");
  GstElementFactory *enc = gst_element_factory_find ("nvh264enc");
  PadMemory m1 = { FALSE, FALSE, FALSE }, m2 = {
    FALSE, FALSE, FALSE
  };
  gchar *cuda, *sys, *encode;
  GPtrArray *a, *b, *c;

  if (dec == NULL) {
    g_print ("SKIP stabilize decode: nvh264dec is not registered\n");
    if (enc)
      gst_object_unref (enc);
    return;
  }
  gst_object_unref (dec);
  if (clip == NULL)
    clip = CUDA_MEMORY_CLIP;
  cuda = g_strdup_printf ("filesrc location=%s ! h264parse ! nvh264dec ! "
      "video/x-raw(memory:CUDAMemory) ! bsplinestabilize name=w "
      "backend=cuda smoothing=5 ! video/x-raw(memory:CUDAMemory) ! "
      "cudadownload ! video/x-raw ! appsink name=sink", clip);
  sys = g_strdup_printf ("filesrc location=%s ! h264parse ! nvh264dec ! "
      "cudadownload ! video/x-raw ! bsplinestabilize backend=cuda "
      "smoothing=5 ! appsink name=sink", clip);
  a = run_checked ("stabilize decode, CUDA memory", cuda, check_pad_memory,
      &m1);
  b = run_checked ("stabilize decode, system memory", sys, NULL, NULL);
  CHECK (!a || (m1.sink_cuda && m1.src_cuda), "stabilize decode: pads sink "
      "%d src %d, expected CUDA memory", m1.sink_cuda, m1.src_cuda);
  compare_runs ("nvh264dec ! bsplinestabilize", a, b, 20, 0);
  if (a)
    g_ptr_array_unref (a);
  if (b)
    g_ptr_array_unref (b);
  if (enc == NULL) {
    g_print ("SKIP nvh264dec ! bsplinestabilize ! nvh264enc: nvh264enc is "
        "not registered\n");
  } else {
    gst_object_unref (enc);
    encode = g_strdup_printf ("filesrc location=%s ! h264parse ! nvh264dec ! "
        "bsplinestabilize name=w smoothing=5 ! nvh264enc ! h264parse ! "
        "video/x-h264,stream-format=byte-stream,alignment=au ! "
        "appsink name=sink", clip);
    c = run_checked ("nvh264dec ! bsplinestabilize ! nvh264enc", encode,
        check_pad_memory, &m2);
    CHECK (!c || (m2.sink_cuda && m2.src_cuda), "nvh264dec ! "
        "bsplinestabilize ! nvh264enc: pads sink %d src %d, expected CUDA "
        "memory on both", m2.sink_cuda, m2.src_cuda);
    CHECK (!c || c->len == 20, "nvh264enc gave %u access units for 20 "
        "frames", c ? c->len : 0);
    if (c) {
      g_print ("nvh264dec ! bsplinestabilize ! nvh264enc: %u frames, in CUDA "
          "memory\n", c->len);
      g_ptr_array_unref (c);
    }
    g_free (encode);
  }
  g_free (cuda);
  g_free (sys);
}

/* A GPU failure in CUDA memory with backend=auto: one warning, every
 * frame out and, where the failure hits the same call in both (exact: the
 * warp's launches), the frames of the same failure from system memory.
 * (The motion's calls differ in number where a frame goes up from pageable
 * memory, so motion:N may hit another frame there.) */
static void
check_stabilize_fault (const gchar * fault, gboolean exact)
{
  gchar *cuda = g_strdup_printf (STAB_SOURCE " ! cudaupload ! "
      "bsplinestabilize backend=auto smoothing=4 ! "
      "video/x-raw(memory:CUDAMemory) ! cudadownload ! video/x-raw ! "
      "appsink name=sink", "NV12", STAB_WIDTH, STAB_HEIGHT);
  gchar *sys = g_strdup_printf (STAB_SOURCE " ! bsplinestabilize "
      "backend=auto smoothing=4 ! appsink name=sink", "NV12", STAB_WIDTH,
      STAB_HEIGHT);
  gchar *what = g_strdup_printf ("stabilize fault %s", fault);
  gchar *error = NULL, *error_sys = NULL;
  gint warnings = 0, warnings_sys = 0;
  GPtrArray *a, *b;

  g_setenv ("BSPLINE_CUDA_FAULT", fault, TRUE);
  a = run_pipeline (cuda, NULL, NULL, &error, &warnings);
  b = run_pipeline (sys, NULL, NULL, &error_sys, &warnings_sys);
  g_unsetenv ("BSPLINE_CUDA_FAULT");
  CHECK (a != NULL, "%s in CUDA memory: %s", what, error);
  CHECK (b != NULL, "%s in system memory: %s", what, error_sys);
  CHECK (warnings == 1 && warnings_sys == 1, "%s: %d and %d warnings, "
      "expected 1", what, warnings, warnings_sys);
  if (exact)
    compare_runs (what, a, b, STAB_FRAMES, 0);
  else
    CHECK (!a || a->len == STAB_FRAMES, "%s: %u frames out of %d", what,
        a->len, STAB_FRAMES);
  if (a)
    g_ptr_array_unref (a);
  if (b)
    g_ptr_array_unref (b);
  g_free (error);
  g_free (error_sys);
  g_free (what);
  g_free (cuda);
  g_free (sys);
}

static gboolean
element_has_cuda_caps (const gchar * element)
{
  GstElementFactory *f = gst_element_factory_find (element);
  const GList *l;
  gboolean found = FALSE;

  if (f == NULL)
    return FALSE;
  for (l = gst_element_factory_get_static_pad_templates (f); l; l = l->next) {
    GstStaticPadTemplate *t = l->data;

    if (strstr (t->static_caps.string, "memory:CUDAMemory"))
      found = TRUE;
  }
  gst_object_unref (f);
  return found;
}

int
main (int argc, char **argv)
{
  const gchar *only = g_getenv ("BSPLINE_TEST_FORMATS");
  GstElementFactory *up;
  guint f, g;

  gst_init (&argc, &argv);
  up = gst_element_factory_find ("cudaupload");
  if (up == NULL) {
    g_print ("SKIP: cudaupload is not registered (no GPU, driver or "
        "nvcodec plugin)\n");
    return 77;
  }
  gst_object_unref (up);
  if (!element_has_cuda_caps ("bsplinewarp")
      || !element_has_cuda_caps ("bsplinestabilize")) {
    g_print ("SKIP: the plugin was built without gstreamer-cuda\n");
    return 77;
  }

  for (f = 0; f < G_N_ELEMENTS (all_formats); f++) {
    gchar *padded = g_strdup_printf (" %s ", only ? only : "");
    gchar *needle = g_strdup_printf (" %s ", all_formats[f]);
    gboolean run = only == NULL || strstr (padded, needle) != NULL;

    g_free (padded);
    g_free (needle);
    if (!run)
      continue;
    for (g = 0; g < G_N_ELEMENTS (geometries); g++)
      check_format (all_formats[f], &geometries[g]);
    g_print ("%-10s scale, rotation, perspective: CUDA memory equals system "
        "memory (%d failures so far)\n", all_formats[f], failures);
  }
  check_format ("RGBA", &linear_light);
  check_format ("BGRx", &linear_light);
  g_print ("gamma-mode=remap: CUDA memory equals system memory (%d failures "
      "so far)\n", failures);
  check_mixed ("RGBA");
  check_mixed ("NV12");
  check_mixed ("I420_10LE");
  check_mixed ("GBRA");
  g_print ("mixed paths: %d failures so far\n", failures);
  check_chain ("RGBA");
  check_chain ("NV12");
  check_chain ("I420_10LE");
  g_print ("warp chains: %d failures so far\n", failures);
  check_preference ();
  check_crop ("RGBA");
  check_crop ("NV12");
  g_print ("videocrop in CUDA memory: %d failures so far\n", failures);
  check_sharing ("");
  check_sharing ("cuda-device-id=0");
  check_missing_device ();
  check_decode ();
  check_fault ();
  g_print ("bsplinewarp: %d failures so far\n", failures);

  check_stabilize ("RGBA", "");
  check_stabilize ("NV12", "");
  check_stabilize ("BGRx", "zoom=5");
  check_stabilize ("I420", "zoom=5");
  check_stabilize ("NV12", "zoom=5");
  check_stabilize ("Y444", "zoom=5");
  check_stabilize ("NV12", "crop=fill path=gaussian zoom=5");
  check_stabilize ("RGBA", "crop=fill path=gaussian smoothing=4 zoom=5");
  check_stabilize ("NV12", "solve-thread=true zoom=5");
  g_print ("bsplinestabilize: CUDA memory equals system memory (%d failures "
      "so far)\n", failures);
  check_stabilize_preference ();
  check_stabilize_decode ();
  check_stabilize_fault ("launch:3", TRUE);
  check_stabilize_fault ("motion:40", FALSE);

  g_print ("%s: %d failures\n", failures ? "FAILED" : "PASSED", failures);
  gst_deinit ();
  return failures ? 1 : 0;
}
