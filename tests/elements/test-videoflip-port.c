/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GStreamer's videoflip unit test, run on bsplinewarp (issue 24)
 *
 * Ported from gst-plugins-good 1.22.0, tests/check/elements/videoflip.c
 * (GStreamer monorepo tag 1.22.0, commit
 * f13c65d977b740b5955343d320dcf2061bbdf62d, path
 * subprojects/gst-plugins-good/tests/check/elements/videoflip.c; the file
 * is the same in every 1.22.x tag up to 1.22.12).
 *
 * Original: "unit test for videofilter elements",
 * Copyright (C) <2006> Mark Nauwelaerts <manauw@skynet.be>, under the GNU
 * Library General Public License, version 2 or (at your option) any later
 * version, as this port is.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 *
 * This library is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Library General Public License for more details.
 *
 * You should have received a copy of the GNU Library General Public
 * License along with this library; if not, write to the
 * Free Software Foundation, Inc., 51 Franklin St, Fifth Floor,
 * Boston, MA 02110-1301, USA.
 *
 * What the port changes, and why (every upstream assertion is kept):
 *
 * - The element: gst_harness_new ("videoflip") becomes a harness around a
 *   bsplinewarp whose `backend` property comes from BSPLINE_TEST_BACKEND
 *   (cpu, cuda or auto; cpu when unset), so the same binary tests either
 *   engine.  With cuda, the suite is skipped (exit 77) where the CUDA
 *   engine cannot start, and runs without fork (a CUDA context does not
 *   survive fork()), as test-bsplinewarp does.
 * - The property: videoflip's `video-direction` (GstVideoDirection) is
 *   bsplinewarp's `video-direction`, the same interface and the same enum
 *   (GstVideoOrientationMethod), so every g_object_set, the stress
 *   threads and gst_value_deserialize_with_pspec ("identity", "90r") are
 *   unchanged.
 * - Pulling output: upstream's gst_harness_push_and_pull and
 *   gst_harness_pull assume a frame leaves as soon as it enters.  With the
 *   CUDA engine bsplinewarp keeps frames in flight (a frame leaves when
 *   the next one arrives, and the element reports that latency); a drain
 *   query, which an application sends when it wants every frame out,
 *   pushes them.  push_and_pull () and pull_output () below send that
 *   query before pulling.  On the CPU engine the query finds nothing in
 *   flight and changes nothing.
 * - Interlace modes: upstream runs each test once, on 4x9 RGBA
 *   progressive caps.  Here each runs once per interlace mode bsplinewarp
 *   advertises (progressive, interleaved, mixed, alternate), every
 *   assertion unchanged: the harness, the tests' own source, pushes any
 *   caps.  In alternate mode the buffers carry no field flag, so they are
 *   taken as top fields (one element warning).  The 180-degree pixel
 *   check reads the output's last row at GST_VIDEO_INFO_COMP_HEIGHT
 *   where upstream has GST_VIDEO_INFO_HEIGHT: the same row in the other
 *   modes, and in alternate mode the last row of the field the buffer
 *   holds (5 of 9; HEIGHT would read past the buffer).  The check holds
 *   in every mode: each field is turned on its own, and the last row of 9
 *   belongs to the top field.
 * - Pixel checks: test_change_method_twice_same_caps_different_method
 *   compares the input's top-right pixel with the output's bottom-left
 *   one, all four bytes exactly, as upstream: bsplinewarp reorients by
 *   video-direction exactly (a copy, no resampling), so the upstream
 *   equality is its contract too and no tolerance is needed.
 */

#include <stdarg.h>

#include <gst/video/video.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

/* ---- the element under test, on the engine the environment names ---- */

static const gchar *
test_backend (void)
{
  const gchar *backend = g_getenv ("BSPLINE_TEST_BACKEND");

  return backend != NULL && *backend ? backend : "cpu";
}

/* Where upstream has gst_harness_new ("videoflip"). */
static GstHarness *
flip_harness_new (void)
{
  GstElement *element = gst_element_factory_make ("bsplinewarp", NULL);
  GstHarness *h;

  fail_unless (element != NULL, "bsplinewarp not found: is GST_PLUGIN_PATH "
      "the build's gst/ directory?");
  gst_util_set_object_arg (G_OBJECT (element), "backend", test_backend ());
  h = gst_harness_new_with_element (element, "sink", "src");
  gst_object_unref (element);   /* the harness holds it (transfer none) */
  return h;
}

/* gst_harness_pull, after the frames in flight are pushed out. */
static GstBuffer *
pull_output (GstHarness * h)
{
  GstQuery *drain = gst_query_new_drain ();

  gst_pad_peer_query (h->srcpad, drain);
  gst_query_unref (drain);
  return gst_harness_pull (h);
}

/* gst_harness_push_and_pull, with pull_output (): NULL where the push
 * fails, as there. */
static GstBuffer *
push_and_pull (GstHarness * h, GstBuffer * buf)
{
  if (gst_harness_push (h, buf) != GST_FLOW_OK)
    return NULL;
  return pull_output (h);
}

/* ---- the upstream tests ---- */

/* Each test runs once per interlace mode bsplinewarp advertises (loop
 * index i): upstream's 4x9 RGBA progressive, then interleaved, mixed and
 * alternate (caps feature format:Interlaced), all of which the harness
 * can push; 9 rows give fields of 5 and 4. */
static const GstVideoInterlaceMode test_modes[] = {
  GST_VIDEO_INTERLACE_MODE_PROGRESSIVE, GST_VIDEO_INTERLACE_MODE_INTERLEAVED,
  GST_VIDEO_INTERLACE_MODE_MIXED, GST_VIDEO_INTERLACE_MODE_ALTERNATE
};

static void
set_test_info (GstVideoInfo * info, gint i)
{
  gst_video_info_set_interlaced_format (info, GST_VIDEO_FORMAT_RGBA,
      test_modes[i], 4, 9);
}

static GstBuffer *
create_test_video_buffer_rgba8 (GstVideoInfo * info)
{
  guint8 *data;
  guint i = 0, j, k;
  gsize stride = GST_VIDEO_INFO_PLANE_STRIDE (info, i);

  data = g_malloc0 (info->size);

  for (j = 0; j < (guint) GST_VIDEO_INFO_COMP_HEIGHT (info, i); j++) {
    for (k = 0; k < (guint) GST_VIDEO_INFO_COMP_WIDTH (info, i); k++) {
      data[(j * stride + 4 * k) + 0] = j % 255;
      data[(j * stride + 4 * k) + 1] = k % 255;
      data[(j * stride + 4 * k) + 2] = (j + k) % 255;
      data[(j * stride + 4 * k) + 3] = 255;
    }
  }

  return gst_buffer_new_wrapped (data, info->size);
}

GST_START_TEST (test_passthrough)
{
  GstHarness *flip = flip_harness_new ();
  GstVideoInfo in_info, out_info;
  GstCaps *in_caps, *out_caps;
  GstEvent *e;
  GstBuffer *buf;

  set_test_info (&in_info, __i__);
  in_caps = gst_video_info_to_caps (&in_info);

  gst_harness_set_src_caps (flip, in_caps);

  e = gst_harness_pull_event (flip);
  fail_unless_equals_int (GST_EVENT_TYPE (e), GST_EVENT_STREAM_START);
  gst_event_unref (e);
  e = gst_harness_pull_event (flip);
  fail_unless_equals_int (GST_EVENT_TYPE (e), GST_EVENT_CAPS);
  gst_event_parse_caps (e, &out_caps);
  fail_unless (gst_video_info_from_caps (&out_info, out_caps));
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&in_info),
      GST_VIDEO_INFO_WIDTH (&out_info));
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&in_info),
      GST_VIDEO_INFO_HEIGHT (&out_info));
  gst_event_unref (e);

  e = gst_harness_pull_event (flip);
  fail_unless_equals_int (GST_EVENT_TYPE (e), GST_EVENT_SEGMENT);
  gst_event_unref (e);

  buf = create_test_video_buffer_rgba8 (&in_info);
  buf = push_and_pull (flip, buf);
  fail_unless (buf != NULL);
  gst_buffer_unref (buf);

  gst_harness_teardown (flip);
}

GST_END_TEST;

GST_START_TEST (test_change_method)
{
  GstHarness *flip = flip_harness_new ();
  GstVideoInfo in_info, out_info;
  GstCaps *in_caps, *out_caps;
  GstEvent *e;
  GstBuffer *buf;

  set_test_info (&in_info, __i__);
  in_caps = gst_video_info_to_caps (&in_info);

  gst_harness_set_src_caps (flip, in_caps);

  e = gst_harness_pull_event (flip);
  fail_unless_equals_int (GST_EVENT_TYPE (e), GST_EVENT_STREAM_START);
  gst_event_unref (e);
  e = gst_harness_pull_event (flip);
  fail_unless_equals_int (GST_EVENT_TYPE (e), GST_EVENT_CAPS);
  gst_event_parse_caps (e, &out_caps);
  fail_unless (gst_video_info_from_caps (&out_info, out_caps));
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&in_info),
      GST_VIDEO_INFO_WIDTH (&out_info));
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&in_info),
      GST_VIDEO_INFO_HEIGHT (&out_info));
  gst_event_unref (e);

  e = gst_harness_pull_event (flip);
  fail_unless_equals_int (GST_EVENT_TYPE (e), GST_EVENT_SEGMENT);
  gst_event_unref (e);

  buf = create_test_video_buffer_rgba8 (&in_info);
  buf = push_and_pull (flip, buf);
  fail_unless (buf != NULL);
  gst_buffer_unref (buf);

  g_object_set (flip->element, "video-direction", 1 /* 90r */ , NULL);

  buf = create_test_video_buffer_rgba8 (&in_info);
  fail_unless_equals_int (gst_harness_push (flip, buf), GST_FLOW_OK);
  e = gst_harness_pull_event (flip);
  fail_unless_equals_int (GST_EVENT_TYPE (e), GST_EVENT_CAPS);
  gst_event_parse_caps (e, &out_caps);
  fail_unless (gst_video_info_from_caps (&out_info, out_caps));
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&in_info),
      GST_VIDEO_INFO_HEIGHT (&out_info));
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&in_info),
      GST_VIDEO_INFO_WIDTH (&out_info));
  gst_event_unref (e);
  buf = pull_output (flip);
  fail_unless (buf != NULL);
  gst_buffer_unref (buf);

  gst_harness_teardown (flip);
}

GST_END_TEST;

GST_START_TEST (test_change_method_twice_same_caps_different_method)
{
  GstHarness *flip = flip_harness_new ();
  GstVideoInfo in_info, out_info;
  GstCaps *in_caps, *out_caps;
  GstEvent *e;
  GstBuffer *input, *output, *buf;
  GstMapInfo in_map_info, out_map_info;

  set_test_info (&in_info, __i__);
  in_caps = gst_video_info_to_caps (&in_info);

  gst_harness_set_src_caps (flip, in_caps);

  e = gst_harness_pull_event (flip);
  fail_unless_equals_int (GST_EVENT_TYPE (e), GST_EVENT_STREAM_START);
  gst_event_unref (e);
  e = gst_harness_pull_event (flip);
  fail_unless_equals_int (GST_EVENT_TYPE (e), GST_EVENT_CAPS);
  gst_event_parse_caps (e, &out_caps);
  fail_unless (gst_video_info_from_caps (&out_info, out_caps));
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&in_info),
      GST_VIDEO_INFO_WIDTH (&out_info));
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&in_info),
      GST_VIDEO_INFO_HEIGHT (&out_info));
  gst_event_unref (e);

  e = gst_harness_pull_event (flip);
  fail_unless_equals_int (GST_EVENT_TYPE (e), GST_EVENT_SEGMENT);
  gst_event_unref (e);

  buf = create_test_video_buffer_rgba8 (&in_info);
  buf = push_and_pull (flip, buf);
  fail_unless (buf != NULL);
  gst_buffer_unref (buf);

  g_object_set (flip->element, "video-direction", 1 /* 90r */ , NULL);
  g_object_set (flip->element, "video-direction", 2 /* 180 */ , NULL);

  input = create_test_video_buffer_rgba8 (&in_info);
  fail_unless_equals_int (gst_harness_push (flip, gst_buffer_ref (input)),
      GST_FLOW_OK);
  /* caps will not change and basetransform won't send updated ones so we
   * can't check for them */
  output = pull_output (flip);
  fail_unless (output != NULL);

  fail_unless (gst_buffer_map (input, &in_map_info, GST_MAP_READ));
  fail_unless (gst_buffer_map (output, &out_map_info, GST_MAP_READ));

  {
    gsize top_right = (GST_VIDEO_INFO_WIDTH (&in_info) - 1) * 4;
    gsize bottom_left =
        (GST_VIDEO_INFO_COMP_HEIGHT (&out_info, 0) -
        1) * GST_VIDEO_INFO_PLANE_STRIDE (&out_info, 0);

    fail_unless_equals_int (in_map_info.data[top_right + 0],
        out_map_info.data[bottom_left + 0]);
    fail_unless_equals_int (in_map_info.data[top_right + 1],
        out_map_info.data[bottom_left + 1]);
    fail_unless_equals_int (in_map_info.data[top_right + 2],
        out_map_info.data[bottom_left + 2]);
    fail_unless_equals_int (in_map_info.data[top_right + 3],
        out_map_info.data[bottom_left + 3]);
  }

  gst_buffer_unmap (input, &in_map_info);
  gst_buffer_unmap (output, &out_map_info);

  gst_buffer_unref (input);
  gst_buffer_unref (output);

  gst_harness_teardown (flip);
}

GST_END_TEST;

GST_START_TEST (test_stress_change_method)
{
  GstHarness *flip = flip_harness_new ();
  GParamSpec *pspec =
      g_object_class_find_property (G_OBJECT_GET_CLASS (flip->element),
      "video-direction");
  GstHarnessThread *thread_identity, *thread_90r;
  GValue direction_identity = G_VALUE_INIT, direction_90r = G_VALUE_INIT;
  GstVideoInfo in_info;
  guint i = 0;
#define N_PUSHES 1000

  set_test_info (&in_info, __i__);
  gst_harness_set_src_caps (flip, gst_video_info_to_caps (&in_info));

  g_value_init (&direction_identity, pspec->value_type);
  g_value_init (&direction_90r, pspec->value_type);

  fail_unless (gst_value_deserialize_with_pspec (&direction_identity,
          "identity", pspec));
  fail_unless (gst_value_deserialize_with_pspec (&direction_90r, "90r", pspec));

  thread_identity =
      gst_harness_stress_property_start_full (flip, "video-direction",
      &direction_identity, 210);
  thread_90r =
      gst_harness_stress_property_start_full (flip, "video-direction",
      &direction_90r, 160);

  while (i++ < N_PUSHES) {
    GstBuffer *buf = create_test_video_buffer_rgba8 (&in_info);
    buf = push_and_pull (flip, buf);
    fail_unless (buf != NULL);
    gst_buffer_unref (buf);
    g_usleep (100);
  }

  gst_harness_stress_thread_stop (thread_identity);
  gst_harness_stress_thread_stop (thread_90r);

  g_value_unset (&direction_identity);
  g_value_unset (&direction_90r);

  gst_harness_teardown (flip);
}

GST_END_TEST;

static Suite *
videoflip_suite (void)
{
  Suite *s = suite_create ("videoflip");
  TCase *tc_chain = tcase_create ("general");

  suite_add_tcase (s, tc_chain);
  tcase_add_loop_test (tc_chain, test_passthrough, 0,
      G_N_ELEMENTS (test_modes));
  tcase_add_loop_test (tc_chain, test_change_method, 0,
      G_N_ELEMENTS (test_modes));
  tcase_add_loop_test (tc_chain,
      test_change_method_twice_same_caps_different_method, 0,
      G_N_ELEMENTS (test_modes));
  tcase_add_loop_test (tc_chain, test_stress_change_method, 0,
      G_N_ELEMENTS (test_modes));

  return s;
}

/* GST_CHECK_MAIN (videoflip), plus the backend: an unknown
 * BSPLINE_TEST_BACKEND is an error; with cuda the suite is skipped (77)
 * where the CUDA engine cannot start, and runs without fork. */
int
main (int argc, char **argv)
{
  const gchar *backend;
  GstElement *probe;
  Suite *s;

  gst_check_init (&argc, &argv);
  backend = test_backend ();
  if (!g_str_equal (backend, "cpu") && !g_str_equal (backend, "cuda")
      && !g_str_equal (backend, "auto")) {
    g_printerr ("BSPLINE_TEST_BACKEND=%s: expected cpu, cuda or auto\n",
        backend);
    return 1;
  }
  probe = gst_element_factory_make ("bsplinewarp", NULL);
  if (probe == NULL) {
    g_printerr ("bsplinewarp not found: set GST_PLUGIN_PATH to the build's "
        "gst/ directory\n");
    return 1;
  }
  if (g_str_equal (backend, "cuda")) {
    GstStateChangeReturn started;

    gst_util_set_object_arg (G_OBJECT (probe), "backend", backend);
    started = gst_element_set_state (probe, GST_STATE_PAUSED);
    gst_element_set_state (probe, GST_STATE_NULL);
    if (started == GST_STATE_CHANGE_FAILURE) {
      gst_object_unref (probe);
      g_print ("SKIP: backend=cuda cannot start here (no GPU or driver)\n");
      return 77;
    }
    g_setenv ("CK_FORK", "no", TRUE);
  }
  gst_object_unref (probe);
  g_print ("videoflip's 1.22 tests on bsplinewarp, backend=%s\n", backend);
  s = videoflip_suite ();
  return gst_check_run_suite (s, "videoflip", __FILE__);
}
