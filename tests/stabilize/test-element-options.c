/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-element-options.c: bsplinestabilize's horizon-lock, horizon-angle,
 * max-zoom and analysis-region (docs/stabilization.md), on small clips made
 * from a real photograph (clip.h, 60 frames), against the truth:
 *
 *  - a pan (640x360) whose roll drifts by 5 degrees: without horizon-lock the
 *    output's roll follows the drift; with it (horizon-angle the first
 *    frame's roll, which the truth knows) the photo stays level in every
 *    output frame within 0.05 degrees, and with auto-zoom no border shows;
 *    max-zoom caps the zoom; horizon-angle changed while playing applies to
 *    the frames that leave after it, max-zoom changed while playing is
 *    refused with a warning (three runs of the clip);
 *  - a shaky pan (320x180) with a subject that covers 60 % of the frame
 *    and moves on its own: measured in the whole frame, the motion follows
 *    the subject; with analysis-region around the rest (not at the frame's
 *    origin: the motion is brought back to the frame's pixels), the
 *    residual jitter against the truth is small;
 *  - a 100-degree lens turning (pan, shake in yaw, pitch and roll):
 *    motion-model=rotation against the similarity model, the residual of
 *    the output's motion against the pan over the whole frame;
 *  - the properties' defaults and ranges, and analysis-region values and
 *    rotation-model settings that are element errors naming the property.
 *
 * The element runs with backend=cpu, or with the backend that
 * BSPLINE_TEST_BACKEND names (cuda: exits 77, skipped, where there is
 * none).
 *
 * Usage: test-element-options PHOTO.ppm
 */
#include <gst/gst.h>
#include <gst/check/gstharness.h>

#include "clip.h"
#include "element-test.h"

#define W 320
#define H 180
#define N 60
/* the roll drift clip's size: at 320x180 the error of each frame's
 * measured roll (about 0.007 degrees RMS) adds up to 0.02-0.07 degrees
 * over 60 frames, at 640x360 to 0.012-0.023 (three runs each) */
#define HW 640
#define HH 360

static bspline_cpu *cpu;
static clip_photo photo;
static const char *backend = "cpu";

/* What a run saw: each frame's posted correction and zoom, the warnings
 * and the first error's text. */
typedef struct
{
  bspline_affine corr[N];
  double matrix[N][9];          /* "correction-matrix" */
  double zoom[N];
  int n_posted, n_out, warnings;
  char error[512];
} run_result;

static void
pop_messages (GstBus * bus, run_result * r)
{
  GstMessage *msg;

  while ((msg = gst_bus_pop (bus))) {
    const GstStructure *s = gst_message_get_structure (msg);
    guint64 frame;

    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING) {
      r->warnings++;
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR
        && r->error[0] == '\0') {
      GError *e = NULL;

      gst_message_parse_error (msg, &e, NULL);
      g_strlcpy (r->error, e->message, sizeof (r->error));
      g_error_free (e);
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT
        && gst_structure_has_name (s, "bsplinestabilize")
        && gst_structure_get_uint64 (s, "frame", &frame) && frame < N) {
      const GValue *arr = gst_structure_get_value (s, "correction");
      int i;

      for (i = 0; i < 6; i++)
        r->corr[frame].m[i] =
            g_value_get_double (gst_value_array_get_value (arr, i));
      arr = gst_structure_get_value (s, "correction-matrix");
      for (i = 0; i < 9; i++)
        r->matrix[frame][i] =
            g_value_get_double (gst_value_array_get_value (arr, i));
      gst_structure_get_double (s, "correction-zoom", &r->zoom[frame]);
      r->n_posted++;
    }
    gst_message_unref (msg);
  }
}

/* The clip's frames (w x h RGB) through bsplinestabilize with props; at
 * change_at frames pushed, change (a structure's fields) is set on it. */
static void
run_clip (uint8_t * const *frames, int w, int h, const char *props,
    int change_at, const char *change, run_result * r)
{
  GstHarness *harness;
  GstBus *bus = gst_bus_new ();
  GstElement *e;
  char desc[512];
  int k;

  memset (r, 0, sizeof (*r));
  snprintf (desc, sizeof (desc), "bsplinestabilize %s backend=%s", props,
      backend);
  harness = gst_harness_new_parse (desc);
  e = gst_harness_find_element (harness, "bsplinestabilize");
  gst_element_set_bus (e, bus);
  gst_harness_set_src_caps (harness, gst_caps_new_simple ("video/x-raw",
          "format", G_TYPE_STRING, "RGBx", "width", G_TYPE_INT, w, "height",
          G_TYPE_INT, h, "framerate", GST_TYPE_FRACTION, 30, 1, NULL));
  for (k = 0; k <= N; k++) {
    GstBuffer *out;

    if (k == change_at) {
      GstStructure *s = gst_structure_from_string (change, NULL);
      int i;

      for (i = 0; s && i < gst_structure_n_fields (s); i++) {
        const char *name = gst_structure_nth_field_name (s, i);

        g_object_set_property (G_OBJECT (e), name,
            gst_structure_get_value (s, name));
      }
      if (s)
        gst_structure_free (s);
    }
    if (k < N) {
      if (gst_harness_push (harness, element_rgbx_buffer (frames[k], w, h, k))
          != GST_FLOW_OK)
        break;
    } else {
      gst_harness_push_event (harness, gst_event_new_eos ());
    }
    pop_messages (bus, r);
    while ((out = gst_harness_try_pull (harness))) {
      gst_buffer_unref (out);
      r->n_out++;
    }
  }
  pop_messages (bus, r);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (e);
  gst_harness_teardown (harness);
  gst_object_unref (bus);
}

/* The roll of output frame k against the photo, degrees clockwise: that
 * of T_k = C_k o G_k. */
static double
output_roll (const clip_spec * spec, const bspline_affine * corr, int k)
{
  bspline_affine t;
  double angle;

  bspline_affine_compose (corr, &spec->maps[k], &t);
  bspline_affine_decompose (&t, 0.5 * spec->width, 0.5 * spec->height, NULL,
      NULL, &angle, NULL);
  return angle;
}

static uint8_t **
render_clip (const clip_spec * spec)
{
  uint8_t **frames = calloc (N, sizeof (uint8_t *));
  int k;

  for (k = 0; k < N; k++) {
    frames[k] = malloc ((size_t) spec->width * spec->height * 3);
    TEST_CHECK (clip_render (cpu, &photo, spec, k, frames[k]), "render %d", k);
  }
  return frames;
}

static void
free_clip (uint8_t ** frames)
{
  int k;

  for (k = 0; k < N; k++)
    free (frames[k]);
  free (frames);
}

static void
test_horizon_lock (test_rng * rng, double *locked_worst)
{
  clip_spec spec = { N, HW, HH, 0.8, 0.25, 6.0, 0.5, 0.0, NULL, 0, 0, 0, 0 };
  uint8_t **frames;
  run_result *r = malloc (sizeof (run_result));
  double roll0, worst, zmax, uncovered, before, after;
  char props[256], change[128];
  int k, run;

  clip_make_maps (&spec, photo.width, photo.height, rng);
  clip_add_roll_drift (&spec, 5.0);
  frames = render_clip (&spec);
  bspline_affine_decompose (&spec.maps[0], 0.5 * HW, 0.5 * HH, NULL, NULL,
      &roll0, NULL);
  /* 0: no lock; 1: locked level, auto-zoom; 2: the same under max-zoom=3,
   * and after 40 frames in (the look-ahead holds 15: frames 25 on leave
   * after it) horizon-angle 2 degrees more and max-zoom=50 (refused with a
   * warning: the zoom stays under 1.03) */
  for (run = 0; run < 3; run++) {
    g_ascii_formatd (change, sizeof (change), "%.17g", roll0);
    snprintf (props, sizeof (props), "smoothing=15 crop=fill%s%s%s",
        run ? " horizon-lock=true auto-zoom=true horizon-angle=" : "",
        run ? change : "", run == 2 ? " max-zoom=3" : "");
    {
      char angle[64];

      g_ascii_formatd (angle, sizeof (angle), "%.17g", roll0 + 2.0);
      snprintf (change, sizeof (change), "c, horizon-angle=(double)%s, "
          "max-zoom=(double)50", angle);
    }
    run_clip (frames, HW, HH, props, run == 2 ? 40 : -1, change, r);
    TEST_CHECK (r->n_out == N && r->n_posted == N && r->error[0] == '\0',
        "horizon run %d (%s): %d frames out, %d posted of %d; %s", run,
        props, r->n_out, r->n_posted, N, r->error);
    worst = zmax = before = after = 0.0;
    uncovered = 1.0;
    for (k = 0; k < N; k++) {
      double roll = output_roll (&spec, &r->corr[k], k);

      if (run == 0)
        worst = fmax (worst, fabs (roll - roll0));
      else if (run == 1 || k < 25)
        before = fmax (before, fabs (roll));
      else
        after = fmax (after, fabs (roll + 2.0));
      zmax = fmax (zmax, r->zoom[k]);
      uncovered = fmax (uncovered, bspline_stabilize_cover_zoom (&r->corr[k],
              HW, HH, 4.0));
    }
    if (run == 0) {
      TEST_CHECK (worst > 2.0, "without horizon-lock the output's roll "
          "stays within %.3f deg of the first frame's (the drift is 5)", worst);
      printf ("no horizon lock: the output's roll up to %.3f deg from the "
          "first frame's\n", worst);
    } else if (run == 1) {
      *locked_worst = before;
      TEST_CHECK (before <= 0.05 && uncovered <= 1.0 + 1e-6 && zmax > 1.03,
          "horizon-lock, auto-zoom: the photo's horizon up to %.4f deg "
          "from level in the output; zoom up to %.4f, a border needing "
          "%.4f shows", before, zmax, uncovered);
      printf ("horizon-lock, auto-zoom: horizon within %.4f deg of level, "
          "zoom up to %.4f\n", before, zmax);
    } else {
      TEST_CHECK (before <= 0.05 && after <= 0.05, "horizon-angle changed "
          "while playing: frames before within %.4f deg of level, after "
          "within %.4f of -2", before, after);
      TEST_CHECK (zmax <= 1.03 + 1e-12 && uncovered > 1.0
          && r->warnings == 1, "max-zoom=3, then 50 while playing: zoom "
          "up to %.4f (borders needing %.4f), %d warnings", zmax,
          uncovered, r->warnings);
      printf ("max-zoom=3: zoom up to %.4f; horizon-angle changed while "
          "playing: before %.4f deg from level, after %.4f from -2\n", zmax,
          before, after);
    }
  }
  free_clip (frames);
  free (spec.maps);
  free (r);
}

/* The clip of spec with a subject: the left 60 % of every frame shows
 * another part of the photo, sliding by (3, 2) px a frame. */
static void
add_subject (uint8_t ** frames)
{
  int k, x, y;

  for (k = 0; k < N; k++)
    for (y = 0; y < H; y++)
      for (x = 0; x < 6 * W / 10; x++) {
        int sx = 100 + x + 3 * k, sy = 60 + y + 2 * k;

        memcpy (frames[k] + ((size_t) y * W + x) * 3,
            photo.rgb + ((size_t) sy * photo.width + sx) * 3, 3);
      }
}

static void
test_analysis_region (test_rng * rng, double *whole_px, double *region_px)
{
  clip_spec spec = { N, W, H, 0.8, 0.25, 6.0, 0.5, 0.0, NULL, 0, 0, 0, 0 };
  uint8_t **frames;
  run_result *r = malloc (sizeof (run_result));
  double rms_deg, mx, my;
  int run;

  clip_make_maps (&spec, photo.width, photo.height, rng);
  frames = render_clip (&spec);
  add_subject (frames);
  for (run = 0; run < 2; run++) {
    double *px = run ? region_px : whole_px;

    run_clip (frames, W, H, run ? "smoothing=15 crop=fill "
        "analysis-region=\"<0.62, 0.05, 0.35, 0.9>\"" :
        "smoothing=15 crop=fill", -1, NULL, r);
    TEST_CHECK (r->n_out == N && r->n_posted == N && r->error[0] == '\0',
        "analysis region run %d: %d frames out, %d posted; %s", run,
        r->n_out, r->n_posted, r->error);
    clip_residual (&spec, r->corr, px, &rms_deg, &mx, &my);
    printf ("subject over 60 %% of the frame, motion measured in %s: "
        "residual jitter %.4f px, %.4f deg RMS\n", run ? "the region "
        "<0.62, 0.05, 0.35, 0.9>" : "the whole frame", *px, rms_deg);
  }
  TEST_CHECK (*region_px <= 0.2 && *whole_px > 5.0 * *region_px,
      "analysis-region: residual %.4f px RMS (whole frame %.4f)",
      *region_px, *whole_px);
  free_clip (frames);
  free (spec.maps);
  free (r);
}

/* ---- the camera rotation model ---- */

#define WIDE_FOV 100.0          /* degrees, horizontal */

/* K R K^-1 T(-o): photo pixels -> frame pixels of a w x h camera turned
 * by r, the photo being the first camera's pinhole picture centred on
 * it. */
static void
wide_map (const double *r, double f, int w, int h, double ox, double oy,
    double *g)
{
  double k[9] = { f, 0, 0.5 * w, 0, f, 0.5 * h, 0, 0, 1 };
  double k_inv[9] = { 1 / f, 0, -0.5 * w / f, 0, 1 / f, -0.5 * h / f, 0, 0,
    1
  };
  double shift[9] = { 1, 0, -ox, 0, 1, -oy, 0, 0, 1 }, t[9], u[9];

  bspline_matrix_multiply (k, r, t);
  bspline_matrix_multiply (t, k_inv, u);
  bspline_matrix_multiply (u, shift, g);
}

/* Frame k of a wide clip: the photo through g (order 5, double). */
static int
wide_render (const double *g, int w, int h, uint8_t * out)
{
  bspline_params params;
  bspline_plan *plan = NULL;
  double inv[9];
  char msg[256];

  clip_params (&params);
  if (!bspline_matrix_invert (g, inv) || bspline_plan_new (&params, inv,
          photo.width, photo.height, w, h, 3, &plan, msg, sizeof (msg))
      != BSPLINE_OK)
    return 0;
  return clip_execute (cpu, plan, &photo, w, h, out);
}

/* A w x h clip through a 100-degree lens panning by 0.15 degree a frame,
 * shaking by up to 2 degrees of yaw and pitch and 1 of roll (sums of
 * sines, clip.h), its roll drifting by `drift` degrees over the clip; with
 * `level_start` the yaw and pitch shake start at 0 (the first frame's
 * optical axis level: the horizon lock's premise).  g[k]: photo -> frame
 * k; returns the frames and the first frame's roll (degrees). */
static uint8_t **
wide_clip (test_rng * rng, int w, int h, double drift, int level_start,
    double (*g)[9], double *roll0)
{
  double f = 0.5 * w / tan (0.5 * WIDE_FOV * TEST_PI / 180.0);
  double ox = 0.5 * photo.width - 0.5 * w, oy = 0.5 * photo.height - 0.5 * h;
  double deg = TEST_PI / 180.0, y0, p0;
  clip_shake yaw, pitch, roll;
  uint8_t **frames = calloc (N, sizeof (uint8_t *));
  int k;

  clip_shake_init (&yaw, rng);
  clip_shake_init (&pitch, rng);
  clip_shake_init (&roll, rng);
  y0 = level_start ? clip_shake_at (&yaw, 0) : 0.0;
  p0 = level_start ? clip_shake_at (&pitch, 0) : 0.0;
  *roll0 = clip_shake_at (&roll, 0);
  for (k = 0; k < N; k++) {
    double rot[9];

    clip_rotation_matrix (k * 0.15 * deg + 2.0 * deg * (clip_shake_at (&yaw, k)
            - y0), 2.0 * deg * (clip_shake_at (&pitch, k) - p0),
        deg * (clip_shake_at (&roll, k) + drift * k / (N - 1)), rot);
    wide_map (rot, f, w, h, ox, oy, g[k]);
    frames[k] = malloc ((size_t) w * h * 3);
    TEST_CHECK (wide_render (g[k], w, h, frames[k]), "wide frame %d", k);
  }
  return frames;
}

/* Where the homography h puts (x, y). */
static void
apply_h (const double *h, double x, double y, double *u, double *v)
{
  double w = h[6] * x + h[7] * y + h[8];

  *u = (h[0] * x + h[1] * y + h[2]) / w;
  *v = (h[3] * x + h[4] * y + h[5]) / w;
}

/* The residual of a run's output motion against the pan's alone, over a
 * 3 x 3 grid of points (corners, edge centres, centre), RMS px. */
static double
wide_residual (const run_result * r, double (*g)[9], const double *pan_h)
{
  double sum = 0.0;
  int n = 0, k, i, j;

  for (k = 1; k < N; k++) {
    double t0[9], t1[9], t0_inv[9], step[9];

    bspline_matrix_multiply (r->matrix[k - 1], g[k - 1], t0);
    bspline_matrix_multiply (r->matrix[k], g[k], t1);
    if (!bspline_matrix_invert (t0, t0_inv))
      continue;
    bspline_matrix_multiply (t1, t0_inv, step);
    for (j = 0; j < 3; j++)
      for (i = 0; i < 3; i++) {
        double x = 0.5 * W * i, y = 0.5 * H * j, u, v, iu, iv;

        apply_h (step, x, y, &u, &v);
        apply_h (pan_h, x, y, &iu, &iv);
        sum += (u - iu) * (u - iu) + (v - iv) * (v - iv);
        n++;
      }
  }
  return sqrt (sum / n);
}

/* The 100-degree lens clip (320x180, no drift) through
 * motion-model=rotation with path=gaussian, path=optimal (the default),
 * path=optimal with auto-zoom, max-angle=0.3 and max-shift=3, and
 * through the similarity model (path=gaussian): the residual of the
 * output's frame-to-frame motion against the pan alone; no border with
 * auto-zoom; the clamps reached and kept by every correction posted
 * (before its zoom). */
static void
test_rotation_model (test_rng * rng, double *rot_px, double *opt_px,
    double *sim_px)
{
  double f = 0.5 * W / tan (0.5 * WIDE_FOV * TEST_PI / 180.0);
  double (*g)[9] = malloc (N * sizeof (*g)), pan[9], pan_h[9], roll0;
  uint8_t **frames = wide_clip (rng, W, H, 0.0, 0, g, &roll0);
  run_result *r = malloc (sizeof (run_result));
  double px[4];
  int run, k;

  /* the intended frame-to-frame motion: the pan's step, K R K^-1 */
  clip_rotation_matrix (0.15 * TEST_PI / 180.0, 0.0, 0.0, pan);
  wide_map (pan, f, W, H, 0.0, 0.0, pan_h);
  for (run = 0; run < 4; run++) {
    static const char *const extra[] = {
      "path=gaussian", "path=gaussian", "",
      "auto-zoom=true max-angle=0.3 max-shift=3"
    };
    double uncovered = 1.0, angle = 0.0, shift = 0.0;
    char props[160];

    snprintf (props, sizeof (props), "smoothing=15 crop=fill %s "
        "motion-model=%s field-of-view=%g", extra[run], run == 1 ?
        "similarity" : "rotation", WIDE_FOV);
    run_clip (frames, W, H, props, -1, NULL, r);
    TEST_CHECK (r->n_out == N && r->n_posted == N && r->error[0] == '\0',
        "wide lens, %s: %d frames out, %d posted; %s", props, r->n_out,
        r->n_posted, r->error);
    px[run] = wide_residual (r, g, pan_h);
    for (k = 0; k < N; k++) {
      double dx, dy, a;

      uncovered = fmax (uncovered, bspline_stabilize_cover_zoom_matrix
          (r->matrix[k], W, H, 4.0));
      bspline_affine_decompose (&r->corr[k], 0.5 * W, 0.5 * H, &dx, &dy, &a,
          NULL);
      angle = fmax (angle, fabs (a));
      shift = fmax (shift, fmax (fabs (dx), fabs (dy)) / r->zoom[k]);
    }
    printf ("100-degree lens, %s: residual %.4f px RMS over the frame; "
        "corrections up to %.3f deg, %.3f px before the zoom; borders need "
        "zoom %.4f\n", props, px[run], angle, shift, uncovered);
    if (run == 3)
      TEST_CHECK (uncovered <= 1.0 + 1e-6 && angle <= 0.3 + 1e-9
          && angle > 0.29 && shift <= 3.0 + 1e-9 && shift > 2.9, "wide lens, "
          "rotation model, auto-zoom max-angle=0.3 max-shift=3: a border "
          "needing zoom %.6f shows; corrections up to %.6f deg, %.6f px",
          uncovered, angle, shift);
  }
  *rot_px = px[0];
  *opt_px = px[2];
  *sim_px = px[1];
  TEST_CHECK (*rot_px <= 1.0 && *sim_px > 2.5 * *rot_px, "wide lens: "
      "residual %.4f px with the rotation model, %.4f with the similarity",
      *rot_px, *sim_px);
  TEST_CHECK (*opt_px <= 1.0 && *opt_px <= 1.25 * *rot_px, "wide lens, "
      "rotation model: residual %.4f px with path=optimal, %.4f with "
      "path=gaussian", *opt_px, *rot_px);
  free_clip (frames);
  free (g);
  free (r);
}

/* horizon-lock with motion-model=rotation: the 100-degree lens clip with
 * 5 degrees of roll drift (its first frame's optical axis level), both
 * paths, horizon-angle the first frame's true roll: the photo's horizon
 * (its row through the first camera's principal point, the vanishing
 * line of the level plane) in every output frame, mapped by the posted
 * homography; with path=optimal, horizon-angle 10 degrees more while
 * playing turns the frames that leave after it, without a warning.  The
 * lock is exact on the camera path it is given (test-path); here what is
 * left is the roll the motion estimator measures on this clip, which
 * falls short by 15-30 % (0.5-1.5 degrees over six runs; the
 * similarity model on the same clip leaves as much,
 * docs/stabilization.md): the bound is that, 2 degrees (without the lock
 * 4.6-4.8), not the 0.05.  Also printed: the output's turn at the
 * centre, the measure of the similarity model's test, which under yaw
 * and pitch together differs from the horizon's angle. */
static void
test_rotation_horizon (test_rng * rng, double *locked_worst)
{
  double (*g)[9] = malloc (N * sizeof (*g)), roll0;
  uint8_t **frames = wide_clip (rng, W, H, 5.0, 1, g, &roll0);
  run_result *r = malloc (sizeof (run_result));
  double horizon[3] = { 0, 1, -0.5 * photo.height };
  char angle[64], value[64], props[200], change[128];
  int run, k;

  *locked_worst = 0.0;
  g_ascii_formatd (angle, sizeof (angle), "%.17g", roll0);
  /* 40 frames in (frames 25 on leave after it) */
  g_ascii_formatd (value, sizeof (value), "%.17g", roll0 + 10.0);
  snprintf (change, sizeof (change), "c, horizon-angle=(double)%s", value);
  for (run = 0; run < 2; run++) {
    double worst = 0.0, centre = 0.0, after = 0.0;

    snprintf (props, sizeof (props), "smoothing=15 crop=fill "
        "motion-model=rotation field-of-view=%g path=%s horizon-lock=true "
        "horizon-angle=%s", WIDE_FOV, run ? "optimal" : "gaussian", angle);
    run_clip (frames, W, H, props, run ? 40 : -1, change, r);
    TEST_CHECK (r->n_out == N && r->n_posted == N && r->error[0] == '\0',
        "wide horizon, %s: %d frames out, %d posted; %s", props, r->n_out,
        r->n_posted, r->error);
    for (k = 0; k < N; k++) {
      double t[9], t_inv[9], l[3], a, px, py, w;
      double cx = 0.5 * W, cy = 0.5 * H;
      bspline_affine near;
      int i;

      /* a line l (l . p = 0) goes to T^-T l */
      bspline_matrix_multiply (r->matrix[k], g[k], t);
      if (!bspline_matrix_invert (t, t_inv))
        continue;
      for (i = 0; i < 3; i++)
        l[i] = t_inv[i] * horizon[0] + t_inv[3 + i] * horizon[1]
            + t_inv[6 + i] * horizon[2];
      a = atan2 (-l[0], l[1]) * 180.0 / TEST_PI;
      if (run && k >= 25)
        after = fmax (after, fabs (a + 10.0));
      else
        worst = fmax (worst, fabs (a));
      /* the turn at the centre: the Jacobian of T where it puts the
       * output's centre */
      apply_h (t_inv, cx, cy, &px, &py);
      w = t[6] * px + t[7] * py + t[8];
      near.m[0] = (t[0] - cx * t[6]) / w;
      near.m[1] = (t[1] - cx * t[7]) / w;
      near.m[3] = (t[3] - cy * t[6]) / w;
      near.m[4] = (t[4] - cy * t[7]) / w;
      near.m[2] = near.m[5] = 0.0;
      bspline_affine_decompose (&near, 0.0, 0.0, NULL, NULL, &a, NULL);
      if (!run || k < 25)
        centre = fmax (centre, fabs (a));
    }
    printf ("100-degree lens, 5 degrees of roll drift, %s: the horizon up "
        "to %.4f deg from level (the turn at the centre up to %.4f deg)%s",
        props, worst, centre, run ? "" : "\n");
    if (run)
      printf ("; horizon-angle 10 degrees more while playing: after it up "
          "to %.4f deg from -10\n", after);
    TEST_CHECK (worst <= 2.0 && (!run || after <= 2.0) && r->warnings == 0,
        "wide lens, %s: the horizon up to %.4f deg from level, after "
        "horizon-angle 10 degrees more while playing up to %.4f from -10; "
        "%d warnings", props, worst, after, r->warnings);
    *locked_worst = fmax (*locked_worst, worst);
  }
  free_clip (frames);
  free (g);
  free (r);
}

static void
test_properties (void)
{
  GstElement *e = gst_element_factory_make ("bsplinestabilize", NULL);
  GObjectClass *klass = G_OBJECT_GET_CLASS (e);
  GParamSpecDouble *d;
  GParamSpec *p;
  static const char *const bad[] = {
    "<0.1, 0.1, 0.5>", "<0.5, 0, 0.6, 1>", "<0, 0, 0.02, 0.5>",
    "<0, 0, 0, 1>"
  };
  static const char *const why[] = {
    "must be", "must be", "at least 16", "must be"
  };
  /* the rotation model's settings that are refused, and what the error
   * names */
  static const char *const rotation_bad[][2] = {
    {"motion-model=rotation", "field-of-view"},
  };
  uint8_t *frames[N];
  uint8_t *grey = calloc ((size_t) W * H * 3, 1);
  run_result *r = malloc (sizeof (run_result));
  unsigned i;

  d = G_PARAM_SPEC_DOUBLE (g_object_class_find_property (klass, "max-zoom"));
  TEST_CHECK (d && d->minimum == 0.0 && d->maximum == 300.0
      && d->default_value == 300.0, "max-zoom's range and default");
  d = G_PARAM_SPEC_DOUBLE (g_object_class_find_property (klass,
          "field-of-view"));
  TEST_CHECK (d && d->minimum == 0.0 && d->maximum == 179.0
      && d->default_value == 0.0, "field-of-view's range and default");
  d = G_PARAM_SPEC_DOUBLE (g_object_class_find_property (klass,
          "horizon-angle"));
  TEST_CHECK (d && d->minimum == -180.0 && d->maximum == 180.0
      && d->default_value == 0.0
      && (G_PARAM_SPEC (d)->flags & GST_PARAM_MUTABLE_PLAYING),
      "horizon-angle's range, default, mutable while playing");
  p = g_object_class_find_property (klass, "horizon-lock");
  TEST_CHECK (p && !G_PARAM_SPEC_BOOLEAN (p)->default_value
      && (p->flags & GST_PARAM_MUTABLE_PLAYING), "horizon-lock");
  p = g_object_class_find_property (klass, "analysis-region");
  TEST_CHECK (p && GST_IS_PARAM_SPEC_ARRAY_LIST (p)
      && (p->flags & GST_PARAM_MUTABLE_READY), "analysis-region");
  for (i = 0; i < 5; i++) {
    static const char *const names[] = { "max-zoom", "horizon-angle",
      "horizon-lock", "analysis-region", "field-of-view"
    };
    p = g_object_class_find_property (klass, names[i]);
    TEST_CHECK (p && strstr (g_param_spec_get_blurb (p), "default"),
        "%s's description gives no default", names[i]);
  }
  gst_object_unref (e);

  for (i = 0; i < N; i++)
    frames[i] = grey;
  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    char props[128];

    snprintf (props, sizeof (props), "analysis-region=\"%s\"", bad[i]);
    run_clip (frames, W, H, props, -1, NULL, r);
    TEST_CHECK (r->n_out == 0 && strstr (r->error, "analysis-region")
        && strstr (r->error, why[i]), "analysis-region %s: %d frames out, "
        "error \"%s\"", bad[i], r->n_out, r->error);
  }
  for (i = 0; i < G_N_ELEMENTS (rotation_bad); i++) {
    run_clip (frames, W, H, rotation_bad[i][0], -1, NULL, r);
    TEST_CHECK (r->n_out == 0 && strstr (r->error, rotation_bad[i][1]),
        "%s: %d frames out, error \"%s\"", rotation_bad[i][0], r->n_out,
        r->error);
  }
  free (grey);
  free (r);
}

int
main (int argc, char **argv)
{
  test_rng rng;
  double locked = 0.0, whole_px = 0.0, region_px = 0.0, rot_px = 0.0;
  double sim_px = 0.0, opt_px = 0.0, rot_locked = 0.0;

  gst_init (&argc, &argv);
  backend = element_backend ("stabilize-options");
  if (backend == NULL)
    return 77;
  test_begin ("stabilize-options", &rng);
  printf ("backend=%s\n", backend);
  if (argc < 2 || !clip_read_ppm (argv[1], &photo))
    return 1;
  cpu = bspline_cpu_new (0);

  test_properties ();
  test_horizon_lock (&rng, &locked);
  test_analysis_region (&rng, &whole_px, &region_px);
  test_rotation_model (&rng, &rot_px, &opt_px, &sim_px);
  test_rotation_horizon (&rng, &rot_locked);

  bspline_cpu_free (cpu);
  free (photo.rgb);
  return test_end ("horizon-lock on 5 degrees of roll drift: horizon within "
      "%.4f deg of level (100-degree lens, motion-model=rotation: %.4f); "
      "a subject over 60 %% of the frame: residual %.4f px RMS measured in "
      "analysis-region, %.4f in the whole frame; 100-degree lens: "
      "residual %.4f px (rotation, gaussian), %.4f (rotation, optimal), "
      "%.4f (similarity)", locked, rot_locked, region_px, whole_px, rot_px,
      opt_px, sim_px);
}
