/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-motion.c: the stabilization engine of core/ (bspline-stabilize.h)
 * on synthetic clips made from a real photograph (clip.h).
 *
 *  - motion between two frames of random similarity (shift up to 20 px,
 *    rotation up to 3 degrees, zoom up to 2 percent), and affine: error at
 *    the frame's corners against the true map;
 *  - a moving object over a sixth of the frame does not pull the estimate;
 *  - flat and one-edge frames are unreliable, and their motion the
 *    identity;
 *  - identical frames give exactly the identity;
 *  - frames whose motion cannot be measured (independent noise, black, a
 *    lone object moving on black, a flash) are unreliable with the
 *    identity, decided before any Gauss-Newton step (iterations 0), so
 *    that they cost less than textured frames;
 *  - a whole shaky clip with a pan: residual jitter <= 0.1 px and 0.05
 *    degrees RMS, the pan kept; tripod holds the first view; max-shift and
 *    max-angle clamp; auto-zoom covers the frame.
 *
 * Usage: test-motion PHOTO.ppm
 */
#include "clip.h"

#define W 640
#define H 360

static bspline_cpu *cpu;
static clip_photo photo;
static uint8_t **clip_frames;     /* the shaky clip, rendered once */

static void
test_pairs (test_rng * rng, int affine, int moving_object, double *worst)
{
  bspline_motion_params mp;
  bspline_motion_estimator *est;
  uint8_t *f0 = malloc (W * H * 3), *f1 = malloc (W * H * 3);
  char msg[256];
  int trial;

  bspline_motion_params_init (&mp);
  mp.model = affine ? BSPLINE_MOTION_AFFINE : BSPLINE_MOTION_SIMILARITY;
  TEST_CHECK (bspline_motion_estimator_new (&mp, W, H, &est, msg,
          sizeof (msg)) == BSPLINE_OK, "estimator: %s", msg);
  *worst = 0.0;
  for (trial = 0; trial < 8; trial++) {
    clip_spec spec = { 2, W, H, 0, 0, 0, 0, 0, NULL, 0, 0, 0, 0 };
    bspline_affine truth, inv0;
    bspline_motion_result r0, r1;
    bspline_luma_frame lf;
    double err;

    spec.maps = calloc (2, sizeof (bspline_affine));
    clip_random_map (rng, affine, photo.width, photo.height, W, H,
        &spec.maps[0]);
    clip_random_map (rng, affine, photo.width, photo.height, W, H,
        &spec.maps[1]);
    clip_render (cpu, &photo, &spec, 0, f0);
    clip_render (cpu, &photo, &spec, 1, f1);
    if (moving_object) {
      /* a block of another part of the photo, moving on its own, over a
       * sixth of the frame */
      int x0 = test_rng_int (rng, 0, W - 260), y0 = test_rng_int (rng, 0,
          H - 150), x, y, sx = test_rng_int (rng, -30, 30);

      for (y = 0; y < 150; y++)
        for (x = 0; x < 260; x++) {
          memcpy (f0 + ((y0 + y) * W + x0 + x) * 3,
              photo.rgb + ((size_t) (y + 500) * photo.width + x + 600) * 3,
              3);
          memcpy (f1 + ((y0 + y) * W + x0 + x) * 3,
              photo.rgb + ((size_t) (y + 500) * photo.width + x + 600 +
                  sx) * 3, 3);
        }
    }
    bspline_motion_estimator_reset (est);
    clip_luma_rgb (f0, W, H, &lf);
    bspline_motion_estimate (est, &lf, &r0);
    TEST_CHECK (!r0.reliable, "the first frame has no motion");
    clip_luma_rgb (f1, W, H, &lf);
    bspline_motion_estimate (est, &lf, &r1);
    bspline_affine_invert (&spec.maps[0], &inv0);
    bspline_affine_compose (&spec.maps[1], &inv0, &truth);
    err = clip_map_error (&truth, &r1.motion, W, H);
    *worst = fmax (*worst, err);
    TEST_CHECK (r1.reliable, "trial %d: unreliable (texture %g, inliers %g)",
        trial, r1.texture, r1.inliers);
    TEST_CHECK (err <= (moving_object ? 0.1 : 0.05),
        "%s%s trial %d: error %.4f px at the corners (inliers %.2f, %d "
        "steps)", affine ? "affine" : "similarity",
        moving_object ? " with a moving object" : "", trial, err,
        r1.inliers, r1.iterations);
    free (spec.maps);
  }
  bspline_motion_estimator_free (est);
  free (f0);
  free (f1);
}

static void
test_unreliable_and_static (test_rng * rng)
{
  bspline_motion_params mp;
  bspline_motion_estimator *est;
  bspline_motion_result r;
  bspline_luma_frame lf;
  uint8_t *f = malloc (W * H * 3);
  bspline_affine id;
  char msg[256];
  int i, x, y;

  bspline_affine_identity (&id);
  bspline_motion_params_init (&mp);
  bspline_motion_estimator_new (&mp, W, H, &est, msg, sizeof (msg));

  /* flat grey with +-1 noise, then a single vertical edge: no reliable
   * motion, the identity */
  for (i = 0; i < 2; i++) {
    bspline_motion_estimator_reset (est);
    for (y = 0; y < H; y++)
      for (x = 0; x < W; x++) {
        int v = i == 0 ? 128 + test_rng_int (rng, -1, 1) : (x < W / 2 ?
            40 : 200);
        memset (f + (y * W + x) * 3, v, 3);
      }
    clip_luma_rgb (f, W, H, &lf);
    bspline_motion_estimate (est, &lf, &r);
    for (y = 0; y < H; y++)
      for (x = 0; x < W; x++) {
        int v = i == 0 ? 128 + test_rng_int (rng, -1, 1) : (x < W / 2 + 7 ?
            40 : 200);
        memset (f + (y * W + x) * 3, v, 3);
      }
    bspline_motion_estimate (est, &lf, &r);
    TEST_CHECK (!r.reliable && clip_map_error (&r.motion, &id, W, H) == 0.0,
        "%s frame: reliable %d (texture %g), motion error %g",
        i == 0 ? "flat" : "one-edge", r.reliable, r.texture,
        clip_map_error (&r.motion, &id, W, H));
  }

  /* the same photo frame twice: exactly the identity */
  {
    clip_spec spec = { 1, W, H, 0, 0, 0, 0, 0, NULL, 0, 0, 0, 0 };

    spec.maps = calloc (1, sizeof (bspline_affine));
    clip_random_map (rng, 0, photo.width, photo.height, W, H,
        &spec.maps[0]);
    clip_render (cpu, &photo, &spec, 0, f);
    free (spec.maps);
  }
  bspline_motion_estimator_reset (est);
  clip_luma_rgb (f, W, H, &lf);
  bspline_motion_estimate (est, &lf, &r);
  bspline_motion_estimate (est, &lf, &r);
  TEST_CHECK (r.reliable && memcmp (r.motion.m, id.m, sizeof (id.m)) == 0,
      "identical frames: reliable %d, motion %g %g %g %g %g %g", r.reliable,
      r.motion.m[0], r.motion.m[1], r.motion.m[2], r.motion.m[3],
      r.motion.m[4], r.motion.m[5]);
  bspline_motion_estimator_free (est);
  free (f);
}

static void
test_unmeasurable (test_rng * rng)
{
  bspline_motion_params mp;
  bspline_motion_estimator *est;
  uint8_t *photo_frame = malloc (W * H * 3), *f = malloc (W * H * 3);
  bspline_affine id;
  clip_spec spec = {.n_frames = 1,.width = W,.height = H };
  char msg[256];
  int kind, k, model;

  bspline_affine_identity (&id);
  spec.maps = calloc (1, sizeof (bspline_affine));
  clip_random_map (rng, 0, photo.width, photo.height, W, H, &spec.maps[0]);
  clip_render (cpu, &photo, &spec, 0, photo_frame);
  free (spec.maps);
  for (model = 0; model < 2; model++) {
    bspline_motion_params_init (&mp);
    mp.model = model ? BSPLINE_MOTION_AFFINE : BSPLINE_MOTION_SIMILARITY;
    TEST_CHECK (bspline_motion_estimator_new (&mp, W, H, &est, msg,
            sizeof (msg)) == BSPLINE_OK, "estimator: %s", msg);
    for (kind = 0; kind < 4; kind++) {
      bspline_motion_estimator_reset (est);
      for (k = 0; k < 4; k++) {
        bspline_motion_result r;
        bspline_luma_frame lf;

        clip_unmeasurable_frame (rng, kind, k, &photo, photo_frame, W, H, f);
        clip_luma_rgb (f, W, H, &lf);
        TEST_CHECK (bspline_motion_estimate (est, &lf, &r) == BSPLINE_OK,
            "%s frame %d: estimate failed", clip_unmeasurable_name (kind), k);
        TEST_CHECK (!r.reliable && r.iterations == 0
            && memcmp (r.motion.m, id.m, sizeof (id.m)) == 0,
            "%s frame %d (%s): reliable %d after %d Gauss-Newton steps "
            "(texture %g, inliers %g), motion %g %g %g %g %g %g: not "
            "decided unmeasurable before the refinement",
            clip_unmeasurable_name (kind), k, model ? "affine" : "similarity",
            r.reliable, r.iterations, r.texture, r.inliers, r.motion.m[0],
            r.motion.m[1], r.motion.m[2], r.motion.m[3], r.motion.m[4],
            r.motion.m[5]);
      }
    }
    bspline_motion_estimator_free (est);
  }
  free (photo_frame);
  free (f);
}

typedef struct
{
  int smoothing, tripod, auto_zoom;
  double max_shift, max_angle;
  double rms_px, rms_deg, mean_dx, mean_dy;
  double min_cover_margin;      /* min over frames of zoom - needed zoom */
  double max_shift_seen, max_angle_seen;
} run_result;

/* Estimates and stabilizes a clip as the element does; residual jitter in
 * *res. */
static void
stabilize_clip (const clip_spec * spec, run_result * res)
{
  bspline_motion_params mp;
  bspline_motion_estimator *est;
  bspline_stabilize_params sp;
  bspline_stabilizer *st;
  bspline_affine *corr = calloc ((size_t) spec->n_frames,
      sizeof (bspline_affine));
  char msg[256];
  int k, out = 0;

  bspline_motion_params_init (&mp);
  bspline_motion_estimator_new (&mp, W, H, &est, msg, sizeof (msg));
  bspline_stabilize_params_init (&sp, W, H);
  sp.smoothing = res->smoothing;
  sp.tripod = res->tripod;
  sp.auto_zoom = res->auto_zoom;
  sp.max_shift = res->max_shift;
  sp.max_angle = res->max_angle;
  TEST_CHECK (bspline_stabilizer_new (&sp, &st, msg, sizeof (msg))
      == BSPLINE_OK, "stabilizer: %s", msg);
  res->min_cover_margin = INFINITY;
  res->max_shift_seen = 0;
  res->max_angle_seen = 0;
  for (k = 0; k <= spec->n_frames; k++) {
    int final = k == spec->n_frames;

    if (!final) {
      bspline_motion_result r;
      bspline_luma_frame lf;

      clip_luma_rgb (clip_frames[k], W, H, &lf);
      bspline_motion_estimate (est, &lf, &r);
      TEST_CHECK (k == 0 || r.reliable, "frame %d unreliable", k);
      bspline_stabilizer_push (st, &r.motion);
      TEST_CHECK (bspline_stabilizer_pending (st) <= sp.smoothing + 1,
          "frame %d: %d frames pending with smoothing %d", k,
          bspline_stabilizer_pending (st), sp.smoothing);
    }
    while (bspline_stabilizer_ready (st, final)) {
      bspline_stabilize_result sr;
      double dx, dy, ang, need, zoom_less[6];
      bspline_affine unzoomed;

      bspline_stabilizer_pop (st, final, &sr);
      corr[out] = sr.correction;
      /* the correction without its zoom, for the clamps and the cover */
      memcpy (zoom_less, sr.correction.m, sizeof (zoom_less));
      zoom_less[0] /= sr.zoom;
      zoom_less[1] /= sr.zoom;
      zoom_less[3] /= sr.zoom;
      zoom_less[4] /= sr.zoom;
      zoom_less[2] = (zoom_less[2] - 0.5 * W * (1 - sr.zoom)) / sr.zoom;
      zoom_less[5] = (zoom_less[5] - 0.5 * H * (1 - sr.zoom)) / sr.zoom;
      memcpy (unzoomed.m, zoom_less, sizeof (zoom_less));
      bspline_affine_decompose (&unzoomed, 0.5 * W, 0.5 * H, &dx, &dy, &ang,
          NULL);
      res->max_shift_seen = fmax (res->max_shift_seen, fmax (fabs (dx),
              fabs (dy)));
      res->max_angle_seen = fmax (res->max_angle_seen, fabs (ang));
      need = bspline_stabilize_cover_zoom (&sr.correction, W, H, 4.0);
      res->min_cover_margin = fmin (res->min_cover_margin, 1.0 - need);
      out++;
    }
  }
  TEST_CHECK (out == spec->n_frames, "%d corrections for %d frames", out,
      spec->n_frames);
  clip_residual (spec, corr, &res->rms_px, &res->rms_deg, &res->mean_dx,
      &res->mean_dy);
  bspline_stabilizer_free (st);
  bspline_motion_estimator_free (est);
  free (corr);
}

int
main (int argc, char **argv)
{
  test_rng rng;
  double worst_sim, worst_aff, worst_obj;
  clip_spec spec = { clip_shaky_clip_frames (), W, H, 0.8, 0.25, 20.0, 3.0,
    0.02, NULL, 0, 0, 0, 0
  };
  run_result smooth = {.smoothing = 30,.max_shift = -1,.max_angle = -1 };
  run_result tripod = {.smoothing = 30,.tripod = 1,.max_shift = -1,
    .max_angle = -1
  };
  run_result clamped = {.smoothing = 30,.max_shift = 5.0,.max_angle = 1.0 };
  run_result zoomed = {.smoothing = 30,.auto_zoom = 1,.max_shift = -1,
    .max_angle = -1
  };
  run_result raw = { 0 };
  int k;

  test_begin ("motion", &rng);
  if (argc < 2 || !clip_read_ppm (argv[1], &photo))
    return 1;
  cpu = bspline_cpu_new (0);

  test_pairs (&rng, 0, 0, &worst_sim);
  test_pairs (&rng, 1, 0, &worst_aff);
  test_pairs (&rng, 0, 1, &worst_obj);
  test_unreliable_and_static (&rng);
  test_unmeasurable (&rng);

  clip_make_maps (&spec, photo.width, photo.height, &rng);
  clip_frames = calloc (spec.n_frames, sizeof (uint8_t *));
  for (k = 0; k < spec.n_frames; k++) {
    clip_frames[k] = malloc ((size_t) W * H * 3);
    clip_render (cpu, &photo, &spec, k, clip_frames[k]);
  }
  /* the shaky clip itself, for scale */
  {
    bspline_affine *id = calloc (spec.n_frames, sizeof (bspline_affine));

    for (k = 0; k < spec.n_frames; k++)
      bspline_affine_identity (&id[k]);
    clip_residual (&spec, id, &raw.rms_px, &raw.rms_deg, &raw.mean_dx,
        &raw.mean_dy);
    free (id);
  }
  stabilize_clip (&spec, &smooth);
  TEST_CHECK (smooth.rms_px <= 0.1 && smooth.rms_deg <= 0.05,
      "residual jitter %.4f px, %.4f deg RMS (shaky clip: %.2f px, %.2f deg)",
      smooth.rms_px, smooth.rms_deg, raw.rms_px, raw.rms_deg);
  TEST_CHECK (fabs (smooth.mean_dx + spec.pan_x) <= 0.05
      && fabs (smooth.mean_dy + spec.pan_y) <= 0.05,
      "pan not kept: %.4f, %.4f px per frame instead of %.4f, %.4f",
      smooth.mean_dx, smooth.mean_dy, -spec.pan_x, -spec.pan_y);

  /* tripod: no motion at all, the pan included */
  stabilize_clip (&spec, &tripod);
  TEST_CHECK (hypot (tripod.mean_dx, tripod.mean_dy) <= 0.02,
      "tripod moves by %.4f, %.4f px per frame", tripod.mean_dx,
      tripod.mean_dy);
  stabilize_clip (&spec, &clamped);
  TEST_CHECK (clamped.max_shift_seen <= 5.0 + 1e-9
      && clamped.max_angle_seen <= 1.0 + 1e-9,
      "clamps: shift %.4f > 5 or angle %.4f > 1", clamped.max_shift_seen,
      clamped.max_angle_seen);
  stabilize_clip (&spec, &zoomed);
  TEST_CHECK (zoomed.min_cover_margin >= -1e-9,
      "auto-zoom leaves a border (zoom short by %g)",
      -zoomed.min_cover_margin);

  bspline_cpu_free (cpu);
  free (photo.rgb);
  for (k = 0; k < spec.n_frames; k++)
    free (clip_frames[k]);
  free (clip_frames);
  free (spec.maps);
  return test_end ("pair error %.4f px (similarity), %.4f (affine), %.4f "
      "(moving object); clip of %d frames with %.1f px, %.2f deg RMS jitter "
      "-> %.4f px, %.4f deg (pan %.3f, %.3f px/frame kept as %.3f, %.3f); "
      "tripod %.4f px/frame", worst_sim, worst_aff, worst_obj,
      spec.n_frames, raw.rms_px, raw.rms_deg, smooth.rms_px, smooth.rms_deg,
      -spec.pan_x, -spec.pan_y, smooth.mean_dx, smooth.mean_dy,
      hypot (tripod.mean_dx, tripod.mean_dy));
}
