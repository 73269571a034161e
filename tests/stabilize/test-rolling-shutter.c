/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-rolling-shutter.c: the rolling-shutter model of core/
 * (bspline_rolling_*, core/stabilize/rolling-shutter.c) on a synthetic
 * rolling-shutter clip made from a real photograph, whose truth is known.
 *
 * The clip (rolling-clip.h): 480x270, 30 frames, a pan under a continuous
 * broadband shake, each row read at its own time (readout 0.5).
 *
 * The wobble: the frame-to-frame motion of the top band of rows minus
 * that of the bottom band (band centres; vector length, px RMS over the
 * clip), measured against the truth: the photo point that a row of the
 * corrected frame shows is known exactly from the correction's map and
 * P.  Checks:
 *  - readout 0.5: the wobble of the input (several pixels) and after the
 *    correction, from the bands measured on the rendered frames, below
 *    0.15 px RMS (issue 41's target);
 *  - readout 0: the correction is exactly the identity (the same bytes as
 *    without it);
 *  - the band measurements against the truth;
 *  - bad parameters are refused with a message.
 *
 * Usage: test-rolling-shutter PHOTO.ppm [PICTURE-DIR]
 * (with PICTURE-DIR: a frame before and after the correction there as
 * PPM, the pictures of docs/stabilization.md)
 */
#include "rolling-clip.h"

#define W RS_W
#define H RS_H

/* frames of the global-shutter clip the readout is estimated on */
#define RS_GLOBAL_FRAMES 12

static bspline_cpu *cpu;
static clip_photo photo;

/* The photo point that the corrected frame f shows at (u, v) (knots NULL:
 * no correction). */
static void
rs_shown (const rs_truth * tr, const bspline_rolling_params * rp,
    const double *knots, int n_knots, int f, double u, double v,
    double *sx, double *sy)
{
  double x = u, y = v, px, py;

  if (knots)
    bspline_rolling_source (rp, knots, n_knots, f, u, v, &x, &y);
  rs_position (tr, rs_row_time (rp->readout, f, y), &px, &py);
  *sx = x + tr->ox + px;
  *sy = y + tr->oy + py;
}

/* The wobble (top band's frame-to-frame motion minus the bottom band's,
 * px RMS). */
static double
rs_wobble (const rs_truth * tr, const bspline_rolling_params * rp,
    const double *knots, int n_knots)
{
  int y0, y1, z0, z1, f;
  double vt, vb, sum = 0.0;

  bspline_rolling_band_rows (rp, 0, &y0, &y1);
  bspline_rolling_band_rows (rp, rp->n_bands - 1, &z0, &z1);
  vt = 0.5 * (y0 + y1);
  vb = 0.5 * (z0 + z1);
  for (f = 1; f < RS_FRAMES; f++) {
    double a[4][2];

    rs_shown (tr, rp, knots, n_knots, f, 0.5 * W, vt, &a[0][0], &a[0][1]);
    rs_shown (tr, rp, knots, n_knots, f - 1, 0.5 * W, vt, &a[1][0], &a[1][1]);
    rs_shown (tr, rp, knots, n_knots, f, 0.5 * W, vb, &a[2][0], &a[2][1]);
    rs_shown (tr, rp, knots, n_knots, f - 1, 0.5 * W, vb, &a[3][0], &a[3][1]);
    sum += pow (a[0][0] - a[1][0] - a[2][0] + a[3][0], 2)
        + pow (a[0][1] - a[1][1] - a[2][1] + a[3][1], 2);
  }
  return sqrt (sum / (RS_FRAMES - 1));
}

static void
rs_write_ppm (const char *dir, const char *name, const uint8_t * rgb)
{
  char path[1024];
  FILE *f;

  snprintf (path, sizeof (path), "%s/%s", dir, name);
  f = fopen (path, "wb");
  if (!f) {
    printf ("cannot write %s\n", path);
    return;
  }
  fprintf (f, "P6\n%d %d\n255\n", W, H);
  fwrite (rgb, 1, (size_t) W * H * 3, f);
  fclose (f);
}

/* The corrected frame f: the input frame resampled through the
 * correction's map (the double engine, as the renderer). */
static int
rs_correct_frame (const bspline_rolling_params * rp, const double *knots,
    int n_knots, int f, const uint8_t * in, uint8_t * out)
{
  double *xy = malloc (sizeof (double) * 2 * W * H);
  int x, y;

  for (y = 0; y < H; y++)
    for (x = 0; x < W; x++)
      bspline_rolling_source (rp, knots, n_knots, f, x + 0.5, y + 0.5,
          &xy[2 * (y * W + x)], &xy[2 * (y * W + x) + 1]);
  return rs_sample (cpu, in, W, H, xy, out);
}

static void
check_bad_parameters (void)
{
  bspline_rolling_params rp;
  char msg[256];

  bspline_rolling_params_init (&rp, H);
  rp.readout = 1.5;
  msg[0] = 0;
  TEST_CHECK (bspline_rolling_params_validate (&rp, msg, sizeof (msg))
      == BSPLINE_ERROR_INVALID_ARGUMENT && strstr (msg, "readout"),
      "readout 1.5 accepted (%s)", msg);
  bspline_rolling_params_init (&rp, H);
  rp.n_bands = 1;
  TEST_CHECK (bspline_rolling_params_validate (&rp, msg, sizeof (msg))
      == BSPLINE_ERROR_INVALID_ARGUMENT, "1 band accepted");
  bspline_rolling_params_init (&rp, 40);
  TEST_CHECK (bspline_rolling_params_validate (&rp, msg, sizeof (msg))
      == BSPLINE_ERROR_INVALID_ARGUMENT && strstr (msg, "rows"),
      "8 bands of a 40-row frame accepted (%s)", msg);
  bspline_rolling_params_init (&rp, H);
  rp.smoothness = NAN;
  TEST_CHECK (bspline_rolling_params_validate (&rp, msg, sizeof (msg))
      == BSPLINE_ERROR_INVALID_ARGUMENT, "smoothness NaN accepted");
}

int
main (int argc, char **argv)
{
  test_rng rng;
  rs_truth tr;
  bspline_rolling_params rp;
  bspline_motion_params mp;
  bspline_rolling_meter *meter = NULL;
  bspline_motion_estimator *global = NULL;
  bspline_motion_result gr;
  uint8_t *frames[RS_FRAMES];
  double *motion, *knots, err = 0.0, before, after, ident = 0.0;
  int *reliable, n_knots, f, b, n_reliable = 0, n_err = 0;
  char msg[256];

  test_begin ("rolling-shutter", &rng);
  if (argc < 2 || !clip_read_ppm (argv[1], &photo))
    return 1;
  cpu = bspline_cpu_new (0);
  if (!cpu)
    return 1;
  check_bad_parameters ();

  rs_truth_init (&tr, &rng, &photo);
  bspline_rolling_params_init (&rp, H);
  rp.readout = RS_READOUT;
  bspline_motion_params_init (&mp);
  if (bspline_rolling_meter_new (&rp, &mp, W, &meter, msg, sizeof (msg))
      != BSPLINE_OK || bspline_motion_estimator_new (&mp, W, H, &global, msg,
          sizeof (msg)) != BSPLINE_OK) {
    printf ("meter: %s\n", msg);
    return 1;
  }
  n_knots = bspline_rolling_n_knots (&rp, RS_FRAMES);
  motion = calloc ((size_t) RS_FRAMES * rp.n_bands * 2, sizeof (double));
  reliable = calloc ((size_t) RS_FRAMES * rp.n_bands, sizeof (int));
  knots = calloc ((size_t) n_knots * 2, sizeof (double));
  for (f = 0; f < RS_FRAMES; f++) {
    bspline_luma_frame lf;

    frames[f] = malloc ((size_t) W * H * 3);
    if (!rs_render (cpu, &photo, &tr, RS_READOUT, f, frames[f]))
      return 1;
    clip_luma_rgb (frames[f], W, H, &lf);
    TEST_CHECK (bspline_motion_estimate (global, &lf, &gr) == BSPLINE_OK,
        "frame %d: the global motion failed", f);
    TEST_CHECK (bspline_rolling_meter_measure (meter, &lf, &gr.motion,
            motion + (size_t) f * rp.n_bands * 2,
            reliable + (size_t) f * rp.n_bands) == BSPLINE_OK,
        "frame %d: measure failed", f);
  }
  /* the band measurements against the truth, -(P(t1) - P(t0)), t1 the
   * time frame f read the band's centre row moved by the measurement */
  for (f = 1; f < RS_FRAMES; f++)
    for (b = 0; b < rp.n_bands; b++) {
      double x0, y0, x1, y1;
      const double *m = motion + ((size_t) f * rp.n_bands + b) * 2;

      if (!reliable[f * rp.n_bands + b])
        continue;
      n_reliable++;
      rs_position (&tr, bspline_rolling_band_time (&rp, f - 1, b), &x0, &y0);
      rs_position (&tr, bspline_rolling_band_time (&rp, f, b)
          + RS_READOUT * m[1] / H, &x1, &y1);
      err += pow (m[0] + (x1 - x0), 2) + pow (m[1] + (y1 - y0), 2);
      n_err++;
    }
  err = sqrt (err / (n_err ? n_err : 1));
  TEST_CHECK (n_reliable >= (RS_FRAMES - 1) * rp.n_bands * 9 / 10,
      "only %d of %d band measurements reliable", n_reliable,
      (RS_FRAMES - 1) * rp.n_bands);
  TEST_CHECK (err < 0.1, "band motion error %.3f px RMS", err);
  TEST_CHECK (bspline_rolling_solve (&rp, RS_FRAMES, motion, reliable, knots,
          msg, sizeof (msg)) == BSPLINE_OK, "solve: %s", msg);
  before = rs_wobble (&tr, &rp, NULL, n_knots);
  after = rs_wobble (&tr, &rp, knots, n_knots);
  printf ("readout %.2f, %d bands, %d frames %dx%d: band motion error "
      "%.3f px RMS (%d of %d reliable); wobble (top band minus bottom "
      "band, frame to frame) %.3f px RMS in the input, %.3f corrected\n",
      RS_READOUT, rp.n_bands, RS_FRAMES, W, H, err, n_reliable,
      (RS_FRAMES - 1) * rp.n_bands, before, after);
  TEST_CHECK (before > 1.0, "input wobble %.3f px: the clip tests too "
      "little", before);
  TEST_CHECK (after < 0.15, "corrected wobble %.3f px RMS, target 0.15", after);

  /* the readout estimated from the bands alone: the clip's, and a global
   * shutter's on frames of the same shake read at once */
  {
    double est = -1.0, est_global = -1.0, est_short;
    double *gm = calloc ((size_t) RS_GLOBAL_FRAMES * rp.n_bands * 2,
        sizeof (double));
    int *gr_ok = calloc ((size_t) RS_GLOBAL_FRAMES * rp.n_bands, sizeof (int));
    uint8_t *rgb = malloc ((size_t) W * H * 3);

    TEST_CHECK (bspline_rolling_estimate_readout (&rp, RS_FRAMES, motion,
            reliable, &est, msg, sizeof (msg)) == BSPLINE_OK
        && fabs (est - RS_READOUT) <= 0.05, "readout %.2f estimated as "
        "%.4f (%s)", RS_READOUT, est, msg);
    bspline_rolling_meter_reset (meter);
    bspline_motion_estimator_reset (global);
    for (f = 0; f < RS_GLOBAL_FRAMES; f++) {
      bspline_luma_frame lf;

      TEST_CHECK (rs_render (cpu, &photo, &tr, 0.0, f, rgb), "render");
      clip_luma_rgb (rgb, W, H, &lf);
      TEST_CHECK (bspline_motion_estimate (global, &lf, &gr) == BSPLINE_OK
          && bspline_rolling_meter_measure (meter, &lf, &gr.motion,
              gm + (size_t) f * rp.n_bands * 2,
              gr_ok + (size_t) f * rp.n_bands) == BSPLINE_OK,
          "global shutter frame %d: measure failed", f);
    }
    TEST_CHECK (bspline_rolling_estimate_readout (&rp, RS_GLOBAL_FRAMES, gm,
            gr_ok, &est_global, msg, sizeof (msg)) == BSPLINE_OK
        && est_global <= 0.05, "a global shutter's readout estimated as "
        "%.4f (%s)", est_global, msg);
    TEST_CHECK (bspline_rolling_estimate_readout (&rp, 2, gm, gr_ok,
            &est_short, msg, sizeof (msg)) == BSPLINE_ERROR_INVALID_ARGUMENT,
        "the readout estimated from 2 frames");
    printf ("readout estimated from the bands: %.4f (truth %.2f, %d "
        "frames), %.4f on a global shutter (%d frames)\n", est, RS_READOUT,
        RS_FRAMES, est_global, RS_GLOBAL_FRAMES);
    free (gm);
    free (gr_ok);
    free (rgb);
  }

  /* readout 0: the correction is exactly the identity */
  {
    bspline_rolling_params g = rp;
    int y, x;

    g.readout = 0.0;
    for (y = 0; y < H; y += 7)
      for (x = 0; x < W; x += 13) {
        double sx, sy;

        for (f = 0; f < RS_FRAMES; f += 9) {
          bspline_rolling_source (&g, knots, n_knots, f, x + 0.5, y + 0.5,
              &sx, &sy);
          ident = fmax (ident, fmax (fabs (sx - (x + 0.5)),
                  fabs (sy - (y + 0.5))));
        }
      }
    TEST_CHECK (ident == 0.0, "readout 0 moves a point by %g px", ident);
  }

  if (argc > 2) {
    uint8_t *out = malloc ((size_t) W * H * 3);
    int pf = RS_FRAMES / 2;

    rs_write_ppm (argv[2], "rolling-shutter-input.ppm", frames[pf]);
    if (rs_correct_frame (&rp, knots, n_knots, pf, frames[pf], out))
      rs_write_ppm (argv[2], "rolling-shutter-corrected.ppm", out);
    rs_render (cpu, &photo, &tr, 0.0, pf, out);
    rs_write_ppm (argv[2], "rolling-shutter-global.ppm", out);
    free (out);
  }

  for (f = 0; f < RS_FRAMES; f++)
    free (frames[f]);
  free (motion);
  free (reliable);
  free (knots);
  bspline_rolling_meter_free (meter);
  bspline_motion_estimator_free (global);
  bspline_cpu_free (cpu);
  free (photo.rgb);
  return test_end ("wobble %.3f -> %.3f px RMS, band motion error %.3f px",
      before, after, err);
}
