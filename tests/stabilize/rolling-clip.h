/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rolling-clip.h: the synthetic rolling-shutter clip of the rolling-shutter
 * tests (test-rolling-shutter.c on the core, test-element-rolling.c on
 * bsplinestabilize), made from a real photograph (clip.h) with the core's
 * double-precision engine, independently of the code under test.
 *
 * RS_W x RS_H, RS_FRAMES frames; the camera pans and shakes along a
 * continuous trajectory P(t) (photo pixels, t in frame intervals): a
 * steady pan plus, on each axis, a broadband shake, independent normal
 * draws of standard deviation RS_SHAKE pixels at every frame time joined
 * by a Catmull-Rom cubic (every frequency up to the frame rate's Nyquist,
 * continuous in time).  Row y of frame f is read at t_f(y) = f + readout
 * ((y + 0.5) / RS_H - 0.5), so that its pixel (x, y) shows the photo at
 * (x + 0.5, y + 0.5) + o + P(t_f(y)): each row sampled at its own time
 * (order 5, bspline_cpu_sample_points).  bench/stabilize-tool.c writes the
 * same clip (`rolling`) and measures the wobble of pictures (`wobble`).
 */
#ifndef STABILIZE_ROLLING_CLIP_H
#define STABILIZE_ROLLING_CLIP_H

#include "clip.h"

#define RS_W 480
#define RS_H 270
#define RS_FRAMES 30
#define RS_SHAKE 5.0
#define RS_PAN_X 1.5
#define RS_PAN_Y 0.5
#define RS_READOUT 0.5
/* the bands of the wobble's measure on pictures, of bspline_rolling_meter's
 * 8: the second from the top and from the bottom (the outer ones show the
 * border where a stabilizer moved the frame) */
#define RS_UPPER 1
#define RS_LOWER 6

typedef struct
{
  double s[2][RS_FRAMES + 4];   /* shake at frame times -2 .. N + 1 */
  double ox, oy;                /* o: the clip centred on the photo */
} rs_truth;

static inline void
rs_truth_init (rs_truth * tr, test_rng * rng, const clip_photo * photo)
{
  int a, f;

  for (a = 0; a < 2; a++)
    for (f = 0; f < RS_FRAMES + 4; f++)
      tr->s[a][f] = RS_SHAKE * clip_normal (rng);
  tr->ox = 0.5 * (photo->width - RS_W) - 0.5 * RS_PAN_X * RS_FRAMES;
  tr->oy = 0.5 * (photo->height - RS_H) - 0.5 * RS_PAN_Y * RS_FRAMES;
}

/* P(t), photo pixels: the pan and the Catmull-Rom shake. */
static inline void
rs_position (const rs_truth * tr, double t, double *px, double *py)
{
  double fl = floor (t), u = t - fl;
  int i = (int) fl + 2, a;

  if (i < 1)
    i = 1;
  if (i > RS_FRAMES + 1)
    i = RS_FRAMES + 1;
  for (a = 0; a < 2; a++) {
    const double *s = tr->s[a];
    double p0 = s[i - 1], p1 = s[i], p2 = s[i + 1], p3 = s[i + 2];
    double v = 0.5 * (2.0 * p1 + (-p0 + p2) * u + (2.0 * p0 - 5.0 * p1
            + 4.0 * p2 - p3) * u * u + (-p0 + 3.0 * p1 - 3.0 * p2 + p3) * u
        * u * u);

    if (a == 0)
      *px = v + RS_PAN_X * t;
    else
      *py = v + RS_PAN_Y * t;
  }
}

static inline double
rs_row_time (double readout, int f, double y)
{
  return f + readout * (y / RS_H - 0.5);
}

/* Samples src (RS_W x RS_H or the photo, RGB) at the points xy into out
 * (RS_W x RS_H RGB), order 5, double; frees xy. */
static inline int
rs_sample (bspline_cpu * cpu, const uint8_t * rgb, int w, int h, double *xy,
    uint8_t * out)
{
  bspline_params params;
  bspline_image src;
  double *v = malloc (sizeof (double) * 3 * RS_W * RS_H);
  int i, ok;

  clip_params (&params);
  memset (&src, 0, sizeof (src));
  src.data = (void *) rgb;
  src.stride = (ptrdiff_t) w * 3;
  src.width = w;
  src.height = h;
  src.channels = 3;
  src.type = BSPLINE_SAMPLE_U8;
  src.bits = 8;
  ok = v && bspline_cpu_sample_points (cpu, &params, &src, xy,
      (size_t) RS_W * RS_H, v) == BSPLINE_OK;
  for (i = 0; ok && i < 3 * RS_W * RS_H; i++)
    out[i] = (uint8_t) fmin (255.0, fmax (0.0, floor (v[i] + 0.5)));
  free (xy);
  free (v);
  return ok;
}

/* Frame f read with `readout` (RGB, 3 RS_W bytes a row). */
static inline int
rs_render (bspline_cpu * cpu, const clip_photo * photo, const rs_truth * tr,
    double readout, int f, uint8_t * out)
{
  double *xy = malloc (sizeof (double) * 2 * RS_W * RS_H);
  int x, y;

  for (y = 0; y < RS_H; y++) {
    double px, py;

    rs_position (tr, rs_row_time (readout, f, y + 0.5), &px, &py);
    for (x = 0; x < RS_W; x++) {
      xy[2 * (y * RS_W + x)] = x + 0.5 + tr->ox + px;
      xy[2 * (y * RS_W + x) + 1] = y + 0.5 + tr->oy + py;
    }
  }
  return rs_sample (cpu, photo->rgb, photo->width, photo->height, xy, out);
}

/* The wobble of a clip's pictures (n frames, RS_W x RS_H RGB): the
 * frame-to-frame motion of band RS_UPPER minus that of band RS_LOWER,
 * measured by bspline_rolling_meter (which test-rolling-shutter checks
 * against the truth), px RMS over the frames where both are reliable
 * (*count of them). */
static inline double
rs_picture_wobble (uint8_t * const *frames, int n, int *count)
{
  bspline_motion_params mp;
  bspline_rolling_params rp;
  bspline_motion_estimator *global = NULL;
  bspline_rolling_meter *meter = NULL;
  double sum = 0.0, d[2 * BSPLINE_ROLLING_DEFAULT_BANDS];
  int reliable[BSPLINE_ROLLING_DEFAULT_BANDS], k;
  char msg[256];

  *count = 0;
  bspline_motion_params_init (&mp);
  bspline_rolling_params_init (&rp, RS_H);
  if (bspline_motion_estimator_new (&mp, RS_W, RS_H, &global, msg,
          sizeof (msg)) != BSPLINE_OK || bspline_rolling_meter_new (&rp, &mp,
          RS_W, &meter, msg, sizeof (msg)) != BSPLINE_OK) {
    printf ("estimator: %s\n", msg);
    return INFINITY;
  }
  for (k = 0; k < n; k++) {
    bspline_luma_frame lf;
    bspline_motion_result r;

    clip_luma_rgb (frames[k], RS_W, RS_H, &lf);
    bspline_motion_estimate (global, &lf, &r);
    bspline_rolling_meter_measure (meter, &lf, &r.motion, d, reliable);
    if (k > 0 && reliable[RS_UPPER] && reliable[RS_LOWER]) {
      sum += pow (d[2 * RS_UPPER] - d[2 * RS_LOWER], 2)
          + pow (d[2 * RS_UPPER + 1] - d[2 * RS_LOWER + 1], 2);
      (*count)++;
    }
  }
  bspline_motion_estimator_free (global);
  bspline_rolling_meter_free (meter);
  return sqrt (sum / (*count ? *count : 1));
}

#endif /* STABILIZE_ROLLING_CLIP_H */
