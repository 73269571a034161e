/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-element-rolling.c: bsplinestabilize's rolling-shutter-readout
 * (docs/stabilization.md) on the synthetic rolling-shutter clip of
 * rolling-clip.h (480x270, 30 frames, readout 0.5 of the frame interval,
 * a pan under a continuous broadband shake):
 *
 *  - the wobble of the output, measured on its pictures: the frame-to-frame
 *    motion of the second band of rows from the top (rows H/8 .. 2H/8)
 *    minus that of the second from the bottom (6H/8 .. 7H/8), measured by
 *    bspline_rolling_meter (which test-rolling-shutter checks against the
 *    truth: 0.02 px RMS), px RMS over the clip; in the input, after the
 *    stabilization alone and after it with rolling-shutter-readout=0.5
 *    (below 0.2 px);
 *  - rolling-shutter-readout=0 gives the same bytes as the property unset;
 *  - two passes (transforms file version 3): pass 2 reads the bands that
 *    pass 1 wrote, its wobble below 0.2 px (as pass 1's) and no worse
 *    than pass 1's (+0.01); a stream starting at frame 12 (as after
 *    a seek) gets pass 2's bytes; another readout in pass 2 is taken; the
 *    version 2 file of the run without the correction still reads, and
 *    is an element error with rolling-shutter-readout, as the version 3
 *    file without it;
 *  - the property's default and range; with the lens stage it is an
 *    element error naming the property, and a change while playing is
 *    refused with a warning.
 *
 * The element runs with backend=cpu, or with the backend that
 * BSPLINE_TEST_BACKEND names (cuda: exits 77, skipped, where there is
 * none).
 *
 * Usage: test-element-rolling PHOTO.ppm [DIR]  (DIR: the middle frame of
 * both passes written there as rolling-pass1.ppm, rolling-pass2.ppm)
 */
#include <gst/gst.h>
#include <gst/check/gstharness.h>

#include "rolling-clip.h"
#include "element-test.h"

#define W RS_W
#define H RS_H
#define N RS_FRAMES

static bspline_cpu *cpu;
static clip_photo photo;
static const char *backend = "cpu";

/* What a run gave: the output frames (RGB), warnings and the first error. */
typedef struct
{
  uint8_t *frames[N];
  int n_out, warnings;
  char error[512];
  /* bsplinestabilize-readout messages and the last one's readout */
  int n_readout;
  double readout;
} run_result;

static void
run_free (run_result * r)
{
  int k;

  for (k = 0; k < N; k++)
    free (r->frames[k]);
}

static void
pop_messages (GstBus * bus, run_result * r)
{
  GstMessage *msg;

  while ((msg = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING) {
      r->warnings++;
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT
        && gst_message_has_name (msg, "bsplinestabilize-readout")) {
      r->n_readout++;
      gst_structure_get_double (gst_message_get_structure (msg), "readout",
          &r->readout);
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR
        && r->error[0] == '\0') {
      GError *e = NULL;

      gst_message_parse_error (msg, &e, NULL);
      g_strlcpy (r->error, e->message, sizeof (r->error));
      g_error_free (e);
    }
    gst_message_unref (msg);
  }
}

static void
keep_output (GstBuffer * out, run_result * r)
{
  GstMapInfo map;
  int i;

  if (r->n_out < N && gst_buffer_map (out, &map, GST_MAP_READ)) {
    uint8_t *f = malloc ((size_t) W * H * 3);

    for (i = 0; i < W * H; i++)
      memcpy (f + 3 * i, map.data + 4 * i, 3);
    gst_buffer_unmap (out, &map);
    r->frames[r->n_out] = f;
  }
  r->n_out++;
  gst_buffer_unref (out);
}

/* The clip from frame `first` on (a stream that starts there, as after a
 * seek) through bsplinestabilize with props; at frame change_at (-1:
 * never) the property `change` is set to 0.25. */
static void
run_clip_from (uint8_t * const *frames, int first, const char *props,
    int change_at, const char *change, run_result * r)
{
  GstHarness *harness;
  GstBus *bus = gst_bus_new ();
  GstElement *e;
  GstBuffer *out;
  char desc[512];
  int k;

  memset (r, 0, sizeof (*r));
  snprintf (desc, sizeof (desc), "bsplinestabilize %s backend=%s", props,
      backend);
  harness = gst_harness_new_parse (desc);
  e = gst_harness_find_element (harness, "bsplinestabilize");
  gst_element_set_bus (e, bus);
  gst_harness_set_src_caps (harness, gst_caps_new_simple ("video/x-raw",
          "format", G_TYPE_STRING, "RGBx", "width", G_TYPE_INT, W, "height",
          G_TYPE_INT, H, "framerate", GST_TYPE_FRACTION, 30, 1, NULL));
  for (k = first; k < N; k++) {
    if (k == change_at)
      g_object_set (e, change, 0.25, NULL);
    if (gst_harness_push (harness, element_rgbx_buffer (frames[k], W, H, k)) != GST_FLOW_OK)
      break;
    pop_messages (bus, r);
    while ((out = gst_harness_try_pull (harness)))
      keep_output (out, r);
  }
  gst_harness_push_event (harness, gst_event_new_eos ());
  while ((out = gst_harness_try_pull (harness)))
    keep_output (out, r);
  pop_messages (bus, r);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (e);
  gst_harness_teardown (harness);
  gst_object_unref (bus);
}

static void
run_clip (uint8_t * const *frames, const char *props, int change_at,
    const char *change, run_result * r)
{
  run_clip_from (frames, 0, props, change_at, change, r);
}

/* The first line of the file at path (g_free). */
static char *
first_line (const char *path)
{
  char *text = NULL, *end;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return g_strdup ("");
  if ((end = strchr (text, '\n')))
    *end = '\0';
  return text;
}

/* An RGB frame as a PPM at path. */
static void
rs_write_frame (const char *path, const uint8_t * rgb)
{
  FILE *f = fopen (path, "wb");

  if (f == NULL)
    return;
  fprintf (f, "P6\n%d %d\n255\n", W, H);
  fwrite (rgb, 3, (size_t) W * H, f);
  fclose (f);
}

static void
test_properties (void)
{
  GstElement *e = gst_element_factory_make ("bsplinestabilize", NULL);
  GParamSpec *ps;
  GParamSpecDouble *pd;
  double v = -1.0;

  TEST_CHECK (e != NULL, "no bsplinestabilize");
  if (!e)
    return;
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "rolling-shutter-readout");
  TEST_CHECK (ps && G_IS_PARAM_SPEC_DOUBLE (ps),
      "no double rolling-shutter-readout");
  if (ps && G_IS_PARAM_SPEC_DOUBLE (ps)) {
    pd = G_PARAM_SPEC_DOUBLE (ps);
    TEST_CHECK (pd->minimum == -1.0 && pd->maximum == 1.0
        && pd->default_value == 0.0, "rolling-shutter-readout range %g-%g "
        "default %g, want -1 (estimated) to 1, default 0", pd->minimum,
        pd->maximum, pd->default_value);
  }
  g_object_get (e, "rolling-shutter-readout", &v, NULL);
  TEST_CHECK (v == 0.0, "rolling-shutter-readout reads %g", v);
  gst_object_unref (e);
}

/* The two passes with rolling-shutter-readout (transforms file version
 * 3): pass 1 (`rolling`, which wrote v3) against pass 2, which reads the
 * bands and solves each section's trajectory whole; a stream that starts
 * at frame 12 (as after a seek) gets pass 2's frames; the mismatched
 * cases are element errors; the version 2 file of the run without the
 * correction (v2) still reads.  Returns pass 2's wobble; dir (not NULL)
 * receives the middle frame of both passes as PPM. */
static double
test_two_passes (uint8_t * const *frames, const run_result * rolling,
    double w_rolling, const char *v3, const char *v2, const char *dir)
{
  run_result pass2, seek, v2_read, v2_rolling, v3_zero, other;
  char props[1024], *line;
  double w_pass2 = INFINITY;
  int k, c, same = 1, differs = 0;

  line = first_line (v3);
  TEST_CHECK (strcmp (line, "bsplinestabilize-transforms 3") == 0,
      "pass 1 with rolling-shutter-readout=0.5 wrote \"%s\"", line);
  g_free (line);
  line = first_line (v2);
  TEST_CHECK (strcmp (line, "bsplinestabilize-transforms 2") == 0,
      "pass 1 without rolling-shutter-readout wrote \"%s\"", line);
  g_free (line);

  snprintf (props, sizeof (props), "crop=fill rolling-shutter-readout=0.5 "
      "transforms-mode=read transforms-location=\"%s\"", v3);
  run_clip (frames, props, -1, NULL, &pass2);
  run_clip_from (frames, 12, props, -1, NULL, &seek);
  TEST_CHECK (pass2.n_out == N && !pass2.error[0] && seek.n_out == N - 12
      && !seek.error[0], "pass 2: %d frames of %d (%s); from frame 12: %d "
      "(%s)", pass2.n_out, N, pass2.error, seek.n_out, seek.error);
  if (pass2.n_out == N && rolling->n_out == N) {
    w_pass2 = rs_picture_wobble (pass2.frames, N, &c);
    printf ("wobble with rolling-shutter-readout=0.5: pass 1 %.3f px RMS, "
        "pass 2 (the transforms file's bands) %.3f\n", w_rolling, w_pass2);
    TEST_CHECK (c >= N - 3, "pass 2's wobble measured on %d of %d frames", c,
        N - 1);
    /* (issue 41's target is 0.15; on the pictures pass 2 measures as pass
     * 1 does, 0.077-0.168 in 10 runs against 0.080-0.175, the difference
     * -0.011 to +0.006, so the bound is pass 1's, and the comparison below
     * the tight one) */
    TEST_CHECK (w_pass2 < 0.2, "pass 2's wobble %.3f px RMS", w_pass2);
    TEST_CHECK (w_pass2 <= w_rolling + 0.01, "pass 2's wobble %.3f px RMS, "
        "pass 1's %.3f", w_pass2, w_rolling);
    if (dir) {
      char *a = g_build_filename (dir, "rolling-pass1.ppm", NULL);
      char *b = g_build_filename (dir, "rolling-pass2.ppm", NULL);

      rs_write_frame (a, rolling->frames[N / 2]);
      rs_write_frame (b, pass2.frames[N / 2]);
      g_free (a);
      g_free (b);
    }
  }
  /* a seek: the frames found by their PTS, their trajectory the whole
   * section's, so the same bytes */
  for (k = 12; k < N && pass2.n_out == N && seek.n_out == N - 12; k++)
    same &= memcmp (pass2.frames[k], seek.frames[k - 12], (size_t) W * H * 3)
        == 0;
  TEST_CHECK (same, "pass 2 from frame 12 differs from pass 2's frames");

  /* another readout than pass 1's: the bands are measurements, the
   * readout the model's, so it is taken (and the frames differ; the last
   * ten frames are enough to see it) */
  snprintf (props, sizeof (props), "crop=fill rolling-shutter-readout=0.3 "
      "transforms-mode=read transforms-location=\"%s\"", v3);
  run_clip_from (frames, N - 10, props, -1, NULL, &other);
  for (k = N - 10; k < N && other.n_out == 10 && pass2.n_out == N; k++)
    differs |= memcmp (pass2.frames[k], other.frames[k - (N - 10)],
        (size_t) W * H * 3);
  TEST_CHECK (other.n_out == 10 && !other.error[0] && differs, "pass 2 with "
      "readout 0.3: %d frames of 10 (%s), %s", other.n_out, other.error,
      differs ? "differ" : "the same as 0.5's");

  /* the version 2 file reads as before (its last six frames); with the
   * correction, it is an element error (no bands), as a version 3 file
   * without it */
  snprintf (props, sizeof (props), "crop=fill transforms-mode=read "
      "transforms-location=\"%s\"", v2);
  run_clip_from (frames, N - 6, props, -1, NULL, &v2_read);
  TEST_CHECK (v2_read.n_out == 6 && !v2_read.error[0], "the version 2 file: "
      "%d frames of 6 (%s)", v2_read.n_out, v2_read.error);
  snprintf (props, sizeof (props), "crop=fill rolling-shutter-readout=0.5 "
      "transforms-mode=read transforms-location=\"%s\"", v2);
  run_clip (frames, props, -1, NULL, &v2_rolling);
  TEST_CHECK (v2_rolling.n_out == 0 && strstr (v2_rolling.error,
          "rolling-shutter-readout") && strstr (v2_rolling.error,
          "version 2"), "the version 2 file with rolling-shutter-readout: "
      "%d frames, error \"%s\"", v2_rolling.n_out, v2_rolling.error);
  snprintf (props, sizeof (props), "crop=fill transforms-mode=read "
      "transforms-location=\"%s\"", v3);
  run_clip (frames, props, -1, NULL, &v3_zero);
  TEST_CHECK (v3_zero.n_out == 0 && strstr (v3_zero.error,
          "rolling-shutter-readout=0.5"), "the version 3 file without "
      "rolling-shutter-readout: %d frames, error \"%s\"", v3_zero.n_out,
      v3_zero.error);

  run_free (&pass2);
  run_free (&seek);
  run_free (&other);
  run_free (&v2_read);
  run_free (&v2_rolling);
  run_free (&v3_zero);
  return w_pass2;
}

int
main (int argc, char **argv)
{
  test_rng rng;
  rs_truth tr;
  uint8_t *frames[N];
  run_result plain, rolling, zero, lens, playing;
  double w_in, w_plain, w_rolling, w_pass2 = INFINITY;
  char *tmp, *v2, *v3, props[1024];
  int k, same = 1;

  gst_init (&argc, &argv);
  backend = element_backend ("stabilize-rolling");
  if (backend == NULL)
    return 77;
  test_begin ("stabilize-rolling", &rng);
  printf ("backend=%s\n", backend);
  if (argc < 2 || !clip_read_ppm (argv[1], &photo))
    return 1;
  cpu = bspline_cpu_new (0);
  test_properties ();

  rs_truth_init (&tr, &rng, &photo);
  for (k = 0; k < N; k++) {
    frames[k] = malloc ((size_t) W * H * 3);
    TEST_CHECK (rs_render (cpu, &photo, &tr, RS_READOUT, k, frames[k]),
        "render %d", k);
  }
  /* (pass 1 of the two-pass runs below: each writes its transforms file) */
  tmp = g_dir_make_tmp ("bspline-rolling-XXXXXX", NULL);
  v2 = g_build_filename (tmp, "plain.trf", NULL);
  v3 = g_build_filename (tmp, "rolling.trf", NULL);
  snprintf (props, sizeof (props), "crop=fill transforms-location=\"%s\"", v2);
  run_clip (frames, props, -1, NULL, &plain);
  snprintf (props, sizeof (props), "crop=fill rolling-shutter-readout=0.5 "
      "transforms-location=\"%s\"", v3);
  run_clip (frames, props, -1, NULL, &rolling);
  run_clip (frames, "crop=fill rolling-shutter-readout=0", -1, NULL, &zero);
  TEST_CHECK (plain.n_out == N && rolling.n_out == N && zero.n_out == N
      && !plain.error[0] && !rolling.error[0] && !zero.error[0],
      "%d, %d, %d frames out of %d (%s%s%s)", plain.n_out, rolling.n_out,
      zero.n_out, N, plain.error, rolling.error, zero.error);
  if (plain.n_out == N && rolling.n_out == N && zero.n_out == N) {
    int c[3];

    w_in = rs_picture_wobble (frames, N, &c[0]);
    w_plain = rs_picture_wobble (plain.frames, N, &c[1]);
    w_rolling = rs_picture_wobble (rolling.frames, N, &c[2]);
    TEST_CHECK (c[0] >= N - 3 && c[1] >= N - 3 && c[2] >= N - 3,
        "the wobble measured on %d, %d, %d of %d frames", c[0], c[1], c[2],
        N - 1);
    for (k = 0; k < N; k++)
      same &= memcmp (plain.frames[k], zero.frames[k], (size_t) W * H * 3)
          == 0;
    printf ("wobble (upper band minus lower band, frame to frame, measured "
        "on the pictures): input %.3f px RMS, stabilized %.3f, stabilized "
        "with rolling-shutter-readout=0.5 %.3f\n", w_in, w_plain, w_rolling);
    TEST_CHECK (w_in > 1.0 && w_plain > 1.0, "input %.3f, stabilized %.3f: "
        "the clip tests too little", w_in, w_plain);
    /* (issue 41's target, 0.15, is test-rolling-shutter's against the
     * truth; here the pictures' own measure and the camera path add to it:
     * 0.080-0.175 in 10 runs, docs/stabilization.md's) */
    TEST_CHECK (w_rolling < 0.2, "wobble %.3f px RMS with the correction",
        w_rolling);
    TEST_CHECK (same, "rolling-shutter-readout=0 changed the output");
  } else {
    w_in = w_plain = w_rolling = INFINITY;
  }
  w_pass2 = test_two_passes (frames, &rolling, w_rolling, v3, v2,
      argc > 2 ? argv[2] : NULL);
  unlink (v2);
  unlink (v3);
  rmdir (tmp);
  g_free (v2);
  g_free (v3);
  g_free (tmp);

  /* rolling-shutter-readout=-1: the readout estimated from the first
   * frames' bands, posted once, and the wobble removed as with the
   * clip's readout given; not with a transforms file */
  {
    run_result est, est_file;
    int c;
    double w_est = INFINITY;

    run_clip (frames, "crop=fill rolling-shutter-readout=-1", -1, NULL, &est);
    TEST_CHECK (est.n_out == N && !est.error[0] && est.n_readout == 1
        && fabs (est.readout - RS_READOUT) <= 0.05, "rolling-shutter-"
        "readout=-1: %d frames, %d readout messages, readout %.4f (truth "
        "%.2f); %s", est.n_out, est.n_readout, est.readout, RS_READOUT,
        est.error);
    if (est.n_out == N)
      w_est = rs_picture_wobble (est.frames, N, &c);
    printf ("rolling-shutter-readout=-1: readout estimated %.4f (truth "
        "%.2f), wobble %.3f px RMS\n", est.readout, RS_READOUT, w_est);
    TEST_CHECK (w_est < 0.2, "wobble %.3f px RMS with the estimated readout",
        w_est);
    run_free (&est);
    /* refused as the element starts, before the file is opened */
    {
      GstElement *e = gst_element_factory_make ("bsplinestabilize", NULL);
      GstBus *bus = gst_bus_new ();
      GstStateChangeReturn started;

      memset (&est_file, 0, sizeof (est_file));
      gst_element_set_bus (e, bus);
      gst_util_set_object_arg (G_OBJECT (e), "rolling-shutter-readout", "-1");
      g_object_set (e, "transforms-location",
          "/nonexistent/never-written.trf", NULL);
      started = gst_element_set_state (e, GST_STATE_PAUSED);
      pop_messages (bus, &est_file);
      gst_element_set_state (e, GST_STATE_NULL);
      gst_bus_set_flushing (bus, TRUE);
      gst_object_unref (e);
      gst_object_unref (bus);
      TEST_CHECK (started == GST_STATE_CHANGE_FAILURE
          && strstr (est_file.error, "rolling-shutter-readout=-1") != NULL
          && strstr (est_file.error, "transforms-location") != NULL,
          "the estimate with a transforms file: start %d, error \"%s\"",
          started, est_file.error);
    }
  }

  /* refusals: with the lens stage an element error naming the property;
   * a change while playing a warning, the frames still out */
  run_clip (frames, "rolling-shutter-readout=0.5 lens-model=brown "
      "camera-matrix=\"<400.0,400.0,240.0,135.0>\"", -1, NULL, &lens);
  TEST_CHECK (strstr (lens.error, "rolling-shutter-readout") != NULL,
      "with the lens stage: error \"%s\"", lens.error);
  run_clip (frames, "crop=fill", 5, "rolling-shutter-readout", &playing);
  TEST_CHECK (playing.warnings >= 1 && playing.n_out == N
      && !playing.error[0], "a change while playing: %d warnings, %d "
      "frames, error \"%s\"", playing.warnings, playing.n_out, playing.error);

  run_free (&plain);
  run_free (&rolling);
  run_free (&zero);
  run_free (&lens);
  run_free (&playing);
  for (k = 0; k < N; k++)
    free (frames[k]);
  bspline_cpu_free (cpu);
  free (photo.rgb);
  return test_end ("wobble %.3f px RMS in the input, %.3f stabilized, %.3f "
      "with rolling-shutter-readout=0.5, %.3f in its second pass", w_in,
      w_plain, w_rolling, w_pass2);
}
