/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* chain-player: plays a clip through
 *
 *   bsplinestabilize defer=true ! bsplinewarp
 *
 * so that the stabilizer's correction, a wobble of the application's own
 * (a GstBSplineChainMeta stage added in a pad probe) and bsplinewarp's
 * rotation and zoom, animated with GstController, are resampled once, by
 * bsplinewarp.  It prints the stabilizer's `bsplinestabilize` element
 * messages and exits at EOS with status 0 (1 on an error).  Built with
 * nothing but pkg-config (examples/Makefile):
 *
 *   cc chain-player.c $(pkg-config --cflags --libs gstreamer-1.0 \
 *       gstreamer-controller-1.0 gstreamer-bspline-1.0)
 *
 *   ./chain-player clip.mp4               decodebin, autovideosink
 *   ./chain-player                        videotestsrc, 90 frames
 *   ./chain-player -n 30 -s fakesink      30 frames, no window
 *
 * This example is free software: LGPL-2.1-or-later (the LICENSE file).
 */
#include <math.h>
#include <stdlib.h>

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/controller/controller.h>
#include <gst/bspline/bspline-chain-meta.h>

typedef struct
{
  GMainLoop *loop;
  gint status;
  guint frames_wobbled;
  guint messages;
} Player;

/* The application's own stage: the picture moved along a circle of 2
 * pixels, once a second at 30 frames/s, appended to the buffer's chain
 * (after the stabilizer's correction where it deferred it). */
static GstPadProbeReturn
add_wobble (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Player *player = user_data;
  GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER (info);
  GstBSplineChainMeta *chain;
  gdouble t = 2.0 * G_PI * player->frames_wobbled / 30.0;
  const gdouble shift[9] = { 1.0, 0.0, 2.0 * cos (t),
    0.0, 1.0, 2.0 * sin (t), 0.0, 0.0, 1.0
  };

  buffer = gst_buffer_make_writable (buffer);
  GST_PAD_PROBE_INFO_DATA (info) = buffer;
  chain = gst_buffer_get_bspline_chain_meta (buffer);
  if (chain == NULL) {
    GstCaps *caps = gst_pad_get_current_caps (pad);
    GstVideoInfo vinfo;

    if (caps == NULL || !gst_video_info_from_caps (&vinfo, caps)) {
      if (caps)
        gst_caps_unref (caps);
      return GST_PAD_PROBE_OK;
    }
    gst_caps_unref (caps);
    chain = gst_buffer_add_bspline_chain_meta (buffer,
        GST_VIDEO_INFO_WIDTH (&vinfo), GST_VIDEO_INFO_HEIGHT (&vinfo));
  }
  if (chain && gst_bspline_chain_meta_add_homography (chain, shift))
    player->frames_wobbled++;
  return GST_PAD_PROBE_OK;
}

/* property of element animated through n (seconds, value) key frames,
 * interpolated with a monotonic cubic.  The binding is absolute: the
 * values are the property's own (a plain direct binding maps 0..1 onto
 * the property's whole range, which for rotation is +-G_MAXDOUBLE). */
static gboolean
animate (GstElement * element, const gchar * property,
    const gdouble (*keys)[2], guint n)
{
  GstControlSource *source = gst_interpolation_control_source_new ();
  gboolean ok = TRUE;
  guint i;

  g_object_set (source, "mode", GST_INTERPOLATION_MODE_CUBIC_MONOTONIC, NULL);
  for (i = 0; i < n; i++)
    ok &= gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE
        (source), (GstClockTime) (keys[i][0] * GST_SECOND), keys[i][1]);
  ok &= gst_object_add_control_binding (GST_OBJECT (element),
      gst_direct_control_binding_new_absolute (GST_OBJECT (element), property,
          source));
  gst_object_unref (source);
  return ok;
}

static gboolean
on_message (G_GNUC_UNUSED GstBus * bus, GstMessage * message,
    gpointer user_data)
{
  Player *player = user_data;

  switch (GST_MESSAGE_TYPE (message)) {
    case GST_MESSAGE_ELEMENT:{
      const GstStructure *s = gst_message_get_structure (message);
      guint64 frame = 0;
      gdouble x = 0.0, y = 0.0, angle = 0.0, zoom = 1.0;
      gboolean reliable = FALSE;

      if (!gst_structure_has_name (s, "bsplinestabilize"))
        break;
      gst_structure_get (s, "frame", G_TYPE_UINT64, &frame,
          "reliable", G_TYPE_BOOLEAN, &reliable,
          "correction-x", G_TYPE_DOUBLE, &x,
          "correction-y", G_TYPE_DOUBLE, &y,
          "correction-angle", G_TYPE_DOUBLE, &angle,
          "correction-zoom", G_TYPE_DOUBLE, &zoom, NULL);
      g_print ("bsplinestabilize: frame %" G_GUINT64_FORMAT ": correction "
          "(%+.2f, %+.2f) px, %+.3f deg, zoom %.3f%s\n", frame, x, y, angle,
          zoom, reliable ? "" : " (motion unreliable)");
      player->messages++;
      break;
    }
    case GST_MESSAGE_WARNING:{
      GError *error = NULL;
      gchar *debug = NULL;

      gst_message_parse_warning (message, &error, &debug);
      g_printerr ("chain-player: warning from %s: %s\n",
          GST_OBJECT_NAME (GST_MESSAGE_SRC (message)), error->message);
      g_clear_error (&error);
      g_free (debug);
      break;
    }
    case GST_MESSAGE_ERROR:{
      GError *error = NULL;
      gchar *debug = NULL;

      gst_message_parse_error (message, &error, &debug);
      g_printerr ("chain-player: error from %s: %s\n%s\n",
          GST_OBJECT_NAME (GST_MESSAGE_SRC (message)), error->message,
          debug ? debug : "");
      g_clear_error (&error);
      g_free (debug);
      player->status = 1;
      g_main_loop_quit (player->loop);
      break;
    }
    case GST_MESSAGE_EOS:
      g_main_loop_quit (player->loop);
      break;
    default:
      break;
  }
  return TRUE;
}

int
main (int argc, char *argv[])
{
  gint frames = 90;
  gchar *sink = NULL, *description;
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &frames,
        "frames of videotestsrc without a file (default 90)", "N"},
    {"sink", 's', 0, G_OPTION_ARG_STRING, &sink,
        "the video sink (default autovideosink)", "DESCRIPTION"},
    {NULL}
  };
  const gdouble rotation[][2] = { {0.0, 0.0}, {1.0, 4.0}, {2.0, -4.0},
  {3.0, 0.0}
  };
  const gdouble zoom[][2] = { {0.0, 1.0}, {1.5, 1.15}, {3.0, 1.0} };
  GOptionContext *context;
  GError *error = NULL;
  GstElement *pipeline, *stabilize, *warp;
  GstPad *pad;
  GstBus *bus;
  Player player = { NULL, 0, 0, 0 };

  context = g_option_context_new ("[FILE] - stabilize, wobble, rotate and "
      "zoom a clip, resampled once");
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_group (context, gst_init_get_option_group ());
  if (!g_option_context_parse (context, &argc, &argv, &error)) {
    g_printerr ("chain-player: %s\n", error->message);
    g_clear_error (&error);
    g_option_context_free (context);
    return 2;
  }
  g_option_context_free (context);

  /* the file's path is set as a property below, never parsed */
  description = g_strdup_printf ("%s ! videoconvert ! "
      "bsplinestabilize name=stabilize crop=fill ! bsplinewarp name=warp ! "
      "videoconvert ! %s", argc > 1 ? "filesrc name=source ! decodebin" :
      "videotestsrc name=source pattern=smpte horizontal-speed=2 ! "
      "video/x-raw,width=320,height=240,framerate=30/1",
      sink ? sink : "autovideosink");
  pipeline = gst_parse_launch (description, &error);
  g_free (description);
  g_free (sink);
  if (pipeline == NULL || error != NULL) {
    g_printerr ("chain-player: no pipeline: %s\n",
        error ? error->message : "unknown error");
    g_clear_error (&error);
    if (pipeline)
      gst_object_unref (pipeline);
    return 2;
  }
  {
    GstElement *source = gst_bin_get_by_name (GST_BIN (pipeline), "source");

    if (argc > 1)
      g_object_set (source, "location", argv[1], NULL);
    else
      g_object_set (source, "num-buffers", frames, NULL);
    gst_object_unref (source);
  }
  stabilize = gst_bin_get_by_name (GST_BIN (pipeline), "stabilize");
  warp = gst_bin_get_by_name (GST_BIN (pipeline), "warp");

  /* defer: the stabilizer leaves its correction on the buffer's chain for
   * bsplinewarp (the property is new: set it where it exists) */
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (stabilize), "defer"))
    g_object_set (stabilize, "defer", TRUE, NULL);
  else
    g_printerr ("chain-player: this bsplinestabilize has no defer property: "
        "it resamples on its own\n");

  if (!animate (warp, "rotation", rotation, G_N_ELEMENTS (rotation))
      || !animate (warp, "zoom", zoom, G_N_ELEMENTS (zoom))) {
    g_printerr ("chain-player: bsplinewarp's rotation and zoom cannot be "
        "animated\n");
    player.status = 2;
  }

  pad = gst_element_get_static_pad (warp, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, add_wobble, &player, NULL);
  gst_object_unref (pad);

  bus = gst_element_get_bus (pipeline);
  gst_bus_add_watch (bus, on_message, &player);
  player.loop = g_main_loop_new (NULL, FALSE);

  if (player.status == 0) {
    if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE) {
      g_printerr ("chain-player: the pipeline does not start\n");
      player.status = 1;
    } else
      g_main_loop_run (player.loop);
  }

  gst_element_set_state (pipeline, GST_STATE_NULL);
  g_print ("chain-player: %u frames wobbled, %u stabilizer messages, "
      "exit %d\n", player.frames_wobbled, player.messages, player.status);
  gst_bus_remove_watch (bus);
  gst_object_unref (bus);
  g_main_loop_unref (player.loop);
  gst_object_unref (stabilize);
  gst_object_unref (warp);
  gst_object_unref (pipeline);
  gst_deinit ();
  return player.status;
}
