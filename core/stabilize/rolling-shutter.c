/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rolling-shutter.c: rolling-shutter wobble from the pictures alone
 * (bspline-stabilize.h, bspline_rolling_*).
 *
 * A rolling shutter reads row y of frame f at time
 *   t_f(y) = f + readout (y / H - 1/2)
 * (frame intervals; y the row's centre, H the frame height), so that a
 * camera moving during the readout bends every frame ("jello").  The image
 * motion is modelled as a translation p(t) of the picture along a
 * continuous trajectory: the scene point that the frame taken at once at
 * time t shows at x shows at x + p(t).  p is piecewise linear between
 * knots every 1 / K frame intervals (knot n at time n / K - 1/2, K the
 * bands), Grundmann, Kwatra, Castro & Essa ("Calibration-free rolling
 * shutter removal", ICCP 2012) with translations instead of their mixture
 * of homographies.
 *
 * Measure: the frame cut into K bands of rows, band b rows [H b / K,
 * H (b + 1) / K), and the translation d of each band from frame f to f + 1
 * measured by the motion estimator (a similarity on the band, its motion
 * of the band's centre row y_b), which is p(t_{f+1}(y_b + d_y)) -
 * p(t_f(y_b)): what frame f read at row y_b, frame f + 1 read at row
 * y_b + d_y.
 *
 * Solve: p at the knots by least squares over every band measurement,
 * with a second-difference prior of weight `smoothness` (the image motion
 * of a hand-held camera is smooth over a frame interval; the prior also
 * picks, among the trajectories that explain the measurements equally,
 * the smoothest: a component of p of period one frame moves every band
 * alike between frames and cannot be seen in the measurements), and p at
 * the first knot held at 0 (only differences are measured).  The weight
 * is small (BSPLINE_ROLLING_DEFAULT_SMOOTHNESS, 1e-4): the prior is there
 * to choose among the trajectories that explain the measurements and to
 * bridge where there are none, not to pull the trajectory away from
 * them.  At 1e-3 it did: on the test clip the solved trajectory missed
 * the bands by 0.041 px RMS where their own error is 0.023, most at the
 * ends of the solve (the first and the last frame are in one pair of
 * measurements each), where the prior straightens p; a band missing there
 * (its content left the frame) was then read off that straight line
 * (seed 1796452007803018866: the wobble from the first frame to the
 * second 1.1 px, 0.214 px RMS over the clip; 0.090 at 1e-4;
 * docs/stabilization.md, "The prior's weight").  Each measurement
 * involves knots less than 1 + 2 / K frames apart, so the normal
 * equations are a band matrix, solved by a band Cholesky factorization in
 * O(n K^2) for n knots; x and y are two such systems with the same
 * matrix.
 *
 * Correct: frame f as taken at once at its mid time f: its row y moved
 * by p(f) - p(t_f(y)), that is the output point (u, v) of the corrected
 * frame shows the input point (u, y) + p(t_f(y)) - p(f) with y that
 * point's own row (bspline_rolling_source: a fixed point, two iterations
 * of which are exact to far below a pixel since p changes by well under a
 * pixel per row). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bspline-stabilize.h"

void
bspline_rolling_params_init (bspline_rolling_params * params, int height)
{
  memset (params, 0, sizeof (*params));
  params->n_bands = BSPLINE_ROLLING_DEFAULT_BANDS;
  params->readout = 0.0;
  params->smoothness = BSPLINE_ROLLING_DEFAULT_SMOOTHNESS;
  params->height = height;
}

bspline_status
bspline_rolling_params_validate (const bspline_rolling_params * params,
    char *msg, size_t msg_len)
{
  if (params->n_bands < 2 || params->n_bands > BSPLINE_ROLLING_MAX_BANDS) {
    snprintf (msg, msg_len, "rolling shutter: %d bands, not 2 .. %d",
        params->n_bands, BSPLINE_ROLLING_MAX_BANDS);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (!(params->readout >= 0.0 && params->readout <= 1.0)) {
    snprintf (msg, msg_len, "rolling shutter: readout %g, not 0 .. 1",
        params->readout);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (!(params->smoothness > 0.0 && params->smoothness < 1e6)) {
    snprintf (msg, msg_len, "rolling shutter: smoothness %g, not > 0 and "
        "< 1e6", params->smoothness);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (params->height < params->n_bands * BSPLINE_MOTION_MIN_SIDE) {
    snprintf (msg, msg_len, "rolling shutter: a frame of %d rows cannot be "
        "cut into %d bands of at least %d rows", params->height,
        params->n_bands, BSPLINE_MOTION_MIN_SIDE);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  return BSPLINE_OK;
}

void
bspline_rolling_band_rows (const bspline_rolling_params * params, int band,
    int *y0, int *y1)
{
  *y0 = (int) ((long) params->height * band / params->n_bands);
  *y1 = (int) ((long) params->height * (band + 1) / params->n_bands);
}

/* The time of frame f's row coordinate y (frame intervals). */
static double
rolling_time (const bspline_rolling_params * params, int frame, double y)
{
  return frame + params->readout * (y / params->height - 0.5);
}

/* The knots from the first one, n_frames frames: every time a frame's row
 * is read (f - readout / 2 .. f + readout / 2) lies within knots 0 ..
 * K n_frames. */
int
bspline_rolling_n_knots (const bspline_rolling_params * params, int n_frames)
{
  return params->n_bands * n_frames + 1;
}

/* The knot below time t and the weight of the one above it (clamped to the
 * knots there are). */
static void
rolling_locate (const bspline_rolling_params * params, int n_knots,
    double t, int *n, double *w)
{
  double s = (t + 0.5) * params->n_bands;
  int i = (int) floor (s);

  if (i < 0) {
    *n = 0;
    *w = 0.0;
    return;
  }
  if (i >= n_knots - 1) {
    *n = n_knots - 2;
    *w = 1.0;
    return;
  }
  *n = i;
  *w = s - i;
}

double
bspline_rolling_band_time (const bspline_rolling_params * params, int frame,
    int band)
{
  int y0, y1;

  bspline_rolling_band_rows (params, band, &y0, &y1);
  return rolling_time (params, frame, 0.5 * (y0 + y1));
}

/* The band matrix: a[i * (bw + 1) + d] is the entry (i, i - d), d 0 .. bw. */
static void
rolling_band_add (double *a, int bw, int i, int j, double v)
{
  if (i < j) {
    int t = i;

    i = j;
    j = t;
  }
  a[(size_t) i * (bw + 1) + (i - j)] += v;
}

/* In-place Cholesky factorization L L^T of the band matrix (lower band
 * bw); returns 0 when it is not positive definite. */
static int
rolling_band_cholesky (double *a, int n, int bw)
{
  int i, j, k;

  for (i = 0; i < n; i++) {
    int j0 = i - bw < 0 ? 0 : i - bw;

    for (j = j0; j <= i; j++) {
      double s = a[(size_t) i * (bw + 1) + (i - j)];
      int k0 = (i - bw > j - bw ? i - bw : j - bw);

      if (k0 < 0)
        k0 = 0;
      for (k = k0; k < j; k++)
        s -= a[(size_t) i * (bw + 1) + (i - k)]
            * a[(size_t) j * (bw + 1) + (j - k)];
      if (j == i) {
        if (!(s > 0.0))
          return 0;
        a[(size_t) i * (bw + 1)] = sqrt (s);
      } else
        a[(size_t) i * (bw + 1) + (i - j)] = s / a[(size_t) j * (bw + 1)];
    }
  }
  return 1;
}

/* Solves L L^T x = b in place (b has `stride` doubles per row, component
 * c solved). */
static void
rolling_band_solve (const double *l, int n, int bw, double *b, int stride,
    int c)
{
  int i, k;

  for (i = 0; i < n; i++) {
    double s = b[(size_t) i * stride + c];
    int k0 = i - bw < 0 ? 0 : i - bw;

    for (k = k0; k < i; k++)
      s -= l[(size_t) i * (bw + 1) + (i - k)] * b[(size_t) k * stride + c];
    b[(size_t) i * stride + c] = s / l[(size_t) i * (bw + 1)];
  }
  for (i = n - 1; i >= 0; i--) {
    double s = b[(size_t) i * stride + c];
    int k1 = i + bw > n - 1 ? n - 1 : i + bw;

    for (k = i + 1; k <= k1; k++)
      s -= l[(size_t) k * (bw + 1) + (k - i)] * b[(size_t) k * stride + c];
    b[(size_t) i * stride + c] = s / l[(size_t) i * (bw + 1)];
  }
}

bspline_status
bspline_rolling_solve (const bspline_rolling_params * params, int n_frames,
    const double *band_motion, const int *reliable, double *knots,
    char *msg, size_t msg_len)
{
  int kb = params->n_bands, n, bw, f, b, i;
  double *a;
  bspline_status st = bspline_rolling_params_validate (params, msg, msg_len);

  if (st != BSPLINE_OK)
    return st;
  if (n_frames < 1) {
    snprintf (msg, msg_len, "rolling shutter: %d frames", n_frames);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  n = bspline_rolling_n_knots (params, n_frames);
  /* a measurement spans at most 1 + readout <= 2 frame intervals plus the
   * knots on either side */
  bw = 2 * kb + 2;
  a = calloc ((size_t) n * (bw + 1), sizeof (double));
  if (!a) {
    snprintf (msg, msg_len, "rolling shutter: out of memory");
    return BSPLINE_ERROR_NO_MEMORY;
  }
  memset (knots, 0, (size_t) n * 2 * sizeof (double));
  /* the measurements: frame f - 1 -> f for f = 1 .. n_frames - 1 */
  for (f = 1; f < n_frames; f++)
    for (b = 0; b < kb; b++) {
      const double *d = band_motion + ((size_t) f * kb + b) * 2;
      int idx[4], m = 0, r, j, n0;
      double w[4], u;

      if (reliable && !reliable[(size_t) f * kb + b])
        continue;
      /* p(t1) - p(t0): the weights of (at most) four knots, a knot that
       * both times share merged */
      /* the band's centre row moved by d[1]: the frame read it there */
      rolling_locate (params, n, bspline_rolling_band_time (params, f, b)
          + params->readout * d[1] / params->height, &n0, &u);
      idx[m] = n0;
      w[m++] = 1.0 - u;
      idx[m] = n0 + 1;
      w[m++] = u;
      rolling_locate (params, n, bspline_rolling_band_time (params, f - 1,
              b), &n0, &u);
      for (r = 0; r < 2; r++) {
        int k = n0 + r;
        double v = -(r ? u : 1.0 - u);

        for (j = 0; j < m && idx[j] != k; j++);
        if (j == m) {
          idx[m] = k;
          w[m++] = v;
        } else
          w[j] += v;
      }
      for (r = 0; r < m; r++) {
        for (j = 0; j <= r; j++)
          rolling_band_add (a, bw, idx[r], idx[j], w[r] * w[j]);
        knots[(size_t) idx[r] * 2] += w[r] * d[0];
        knots[(size_t) idx[r] * 2 + 1] += w[r] * d[1];
      }
    }
  /* the prior: smoothness (p[i-1] - 2 p[i] + p[i+1])^2 K^3, the square of
   * the second derivative (frame intervals) integrated over time, as the
   * knots are 1 / K apart */
  {
    double lam = params->smoothness * (double) kb * kb * kb;
    static const double c[3] = { 1.0, -2.0, 1.0 };
    int r, s;

    for (i = 1; i + 1 < n; i++)
      for (r = 0; r < 3; r++)
        for (s = 0; s <= r; s++)
          rolling_band_add (a, bw, i - 1 + r, i - 1 + s, lam * c[r] * c[s]);
  }
  /* the gauge: p at knot 0 is 0 */
  a[0] += 1.0;
  if (!rolling_band_cholesky (a, n, bw)) {
    free (a);
    snprintf (msg, msg_len, "rolling shutter: singular equations");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  rolling_band_solve (a, n, bw, knots, 2, 0);
  rolling_band_solve (a, n, bw, knots, 2, 1);
  free (a);
  return BSPLINE_OK;
}

/* The squared differences between the bands' measurements and what the
 * trajectory (knots) of params predicts for them, summed; *count: how
 * many. */
static double
rolling_misfit (const bspline_rolling_params * params, int n_frames,
    const double *band_motion, const int *reliable, const double *knots,
    int n_knots, int *count)
{
  int kb = params->n_bands, f, b;
  double sum = 0.0;

  *count = 0;
  for (f = 1; f < n_frames; f++)
    for (b = 0; b < kb; b++) {
      const double *d = band_motion + ((size_t) f * kb + b) * 2;
      double x0, y0, x1, y1;

      if (reliable && !reliable[(size_t) f * kb + b])
        continue;
      /* as bspline_rolling_solve's measurement equation */
      bspline_rolling_position (params, knots, n_knots,
          bspline_rolling_band_time (params, f, b)
          + params->readout * d[1] / params->height, &x1, &y1);
      bspline_rolling_position (params, knots, n_knots,
          bspline_rolling_band_time (params, f - 1, b), &x0, &y0);
      sum += (d[0] - (x1 - x0)) * (d[0] - (x1 - x0))
          + (d[1] - (y1 - y0)) * (d[1] - (y1 - y0));
      (*count)++;
    }
  return sum;
}

bspline_status
bspline_rolling_estimate_readout (const bspline_rolling_params * params,
    int n_frames, const double *band_motion, const int *reliable,
    double *readout, char *msg, size_t msg_len)
{
  enum
  { STEPS = (int) (1.0 / BSPLINE_ROLLING_ESTIMATE_STEP + 0.5) };
  bspline_rolling_params p = *params;
  double misfit[STEPS + 1], *knots;
  int n_knots, i, best = 0, count = 0;
  bspline_status st;

  *readout = 0.0;
  p.readout = 0.0;
  p.smoothness = BSPLINE_ROLLING_ESTIMATE_SMOOTHNESS;
  st = bspline_rolling_params_validate (&p, msg, msg_len);
  if (st != BSPLINE_OK)
    return st;
  if (n_frames < BSPLINE_ROLLING_ESTIMATE_MIN_FRAMES) {
    snprintf (msg, msg_len, "rolling shutter: the readout needs the bands "
        "of %d frames, not %d", BSPLINE_ROLLING_ESTIMATE_MIN_FRAMES,
        n_frames);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  n_knots = bspline_rolling_n_knots (&p, n_frames);
  knots = malloc ((size_t) n_knots * 2 * sizeof (double));
  if (!knots) {
    snprintf (msg, msg_len, "rolling shutter: out of memory");
    return BSPLINE_ERROR_NO_MEMORY;
  }
  for (i = 0; i <= STEPS; i++) {
    p.readout = i * BSPLINE_ROLLING_ESTIMATE_STEP;
    st = bspline_rolling_solve (&p, n_frames, band_motion, reliable, knots,
        msg, msg_len);
    if (st != BSPLINE_OK)
      break;
    misfit[i] = rolling_misfit (&p, n_frames, band_motion, reliable, knots,
        n_knots, &count);
    if (!isfinite (misfit[i]))
      misfit[i] = INFINITY;
    if (misfit[i] < misfit[best])
      best = i;
  }
  free (knots);
  if (st != BSPLINE_OK)
    return st;
  if (count == 0 || !isfinite (misfit[best])) {
    snprintf (msg, msg_len, "rolling shutter: no reliable band measurement "
        "to estimate the readout from");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  *readout = best * BSPLINE_ROLLING_ESTIMATE_STEP;
  if (best > 0 && best < STEPS) {
    double a = misfit[best - 1], b = misfit[best], c = misfit[best + 1];
    double curvature = a - 2.0 * b + c;

    if (curvature > 0.0)
      *readout += 0.5 * (a - c) / curvature * BSPLINE_ROLLING_ESTIMATE_STEP;
  }
  *readout = fmin (1.0, fmax (0.0, *readout));
  return BSPLINE_OK;
}

void
bspline_rolling_position (const bspline_rolling_params * params,
    const double *knots, int n_knots, double t, double *px, double *py)
{
  int n;
  double w;

  rolling_locate (params, n_knots, t, &n, &w);
  *px = (1.0 - w) * knots[2 * n] + w * knots[2 * n + 2];
  *py = (1.0 - w) * knots[2 * n + 1] + w * knots[2 * n + 3];
}

void
bspline_rolling_source (const bspline_rolling_params * params,
    const double *knots, int n_knots, int frame, double u, double v,
    double *x, double *y)
{
  double mx, my, px, py, yy = v;
  int it;

  bspline_rolling_position (params, knots, n_knots, frame, &mx, &my);
  for (it = 0; it < 3; it++) {
    bspline_rolling_position (params, knots, n_knots,
        rolling_time (params, frame, yy), &px, &py);
    yy = v + (py - my);
  }
  /* (the difference first: readout 0 gives the point itself, exactly) */
  *x = u + (px - mx);
  *y = yy;
}

/* The bands' search range about the whole frame's motion, pixels: what
 * the readout and the frame's rotation add to it within a band. */
#define ROLLING_BAND_SEARCH 16.0
/* The columns a band leaves out on either side (at most a quarter of the
 * frame's width): the whole frame's horizontal motion, up to this, is
 * followed by cutting the previous frame's band there. */
#define ROLLING_BAND_MARGIN 64

struct bspline_rolling_meter
{
  bspline_rolling_params params;
  int width, margin;            /* frame width; columns left out a side */
  bspline_motion_estimator *band[BSPLINE_ROLLING_MAX_BANDS];
  /* the previous frame's bytes (rows of `row_bytes`) and its description */
  uint8_t *previous;
  size_t row_bytes;
  bspline_luma_frame previous_frame;
  int have_previous;
};

bspline_status
bspline_rolling_meter_new (const bspline_rolling_params * params,
    const bspline_motion_params * motion, int width,
    bspline_rolling_meter ** meter, char *msg, size_t msg_len)
{
  bspline_rolling_meter *m;
  bspline_motion_params mp;
  bspline_status st = bspline_rolling_params_validate (params, msg, msg_len);
  int b;

  *meter = NULL;
  if (st != BSPLINE_OK)
    return st;
  m = calloc (1, sizeof (*m));
  if (!m) {
    snprintf (msg, msg_len, "rolling shutter: out of memory");
    return BSPLINE_ERROR_NO_MEMORY;
  }
  m->params = *params;
  m->width = width;
  m->margin = width / 4 < ROLLING_BAND_MARGIN ? width / 4 : ROLLING_BAND_MARGIN;
  /* affine: the readout shears a band (its rows' shift changes linearly
   * down it while the camera moves), which a similarity cannot follow */
  mp = *motion;
  mp.model = BSPLINE_MOTION_AFFINE;
  mp.search_range = ROLLING_BAND_SEARCH;
  for (b = 0; b < params->n_bands; b++) {
    int y0, y1;

    bspline_rolling_band_rows (params, b, &y0, &y1);
    st = bspline_motion_estimator_new (&mp, width - 2 * m->margin, y1 - y0,
        &m->band[b], msg, msg_len);
    if (st != BSPLINE_OK) {
      bspline_rolling_meter_free (m);
      return st;
    }
  }
  *meter = m;
  return BSPLINE_OK;
}

void
bspline_rolling_meter_free (bspline_rolling_meter * meter)
{
  int b;

  if (!meter)
    return;
  for (b = 0; b < meter->params.n_bands; b++)
    bspline_motion_estimator_free (meter->band[b]);
  free (meter->previous);
  free (meter);
}

void
bspline_rolling_meter_reset (bspline_rolling_meter * meter)
{
  meter->have_previous = 0;
}

/* Keeps frame's bytes as the previous frame. */
static bspline_status
rolling_keep (bspline_rolling_meter * meter, const bspline_luma_frame * frame)
{
  int last = frame->offset_y;
  size_t row;
  int y;

  if (frame->offset_r >= 0) {
    last = frame->offset_r > frame->offset_g ? frame->offset_r :
        frame->offset_g;
    last = last > frame->offset_b ? last : frame->offset_b;
  }
  row = (size_t) (frame->width - 1) * frame->pixel_stride + last + 1;

  if (row != meter->row_bytes || !meter->previous) {
    free (meter->previous);
    meter->previous = malloc (row * frame->height);
    meter->row_bytes = meter->previous ? row : 0;
    if (!meter->previous)
      return BSPLINE_ERROR_NO_MEMORY;
  }
  for (y = 0; y < frame->height; y++)
    memcpy (meter->previous + row * y, frame->data + frame->stride * y, row);
  meter->previous_frame = *frame;
  meter->previous_frame.data = meter->previous;
  meter->previous_frame.stride = (ptrdiff_t) row;
  meter->have_previous = 1;
  return BSPLINE_OK;
}

/* The rectangle of f from column x0, row y0, w x h. */
static bspline_luma_frame
rolling_cut (const bspline_luma_frame * f, int x0, int y0, int w, int h)
{
  bspline_luma_frame c = *f;

  c.data = f->data + (ptrdiff_t) y0 * f->stride
      + (ptrdiff_t) x0 * f->pixel_stride;
  c.width = w;
  c.height = h;
  return c;
}

bspline_status
bspline_rolling_meter_measure (bspline_rolling_meter * meter,
    const bspline_luma_frame * frame, const bspline_affine * global,
    double *band_motion, int *reliable)
{
  int b, w = frame->width, h = frame->height;
  double gx, gy;
  int sx, sy;

  if (w != meter->width || h != meter->params.height)
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  if (!meter->have_previous) {
    memset (band_motion, 0, sizeof (double) * 2 * meter->params.n_bands);
    memset (reliable, 0, sizeof (int) * meter->params.n_bands);
    return rolling_keep (meter, frame);
  }
  /* the whole frame's motion of its centre, to whole pixels: this frame
   * is cut where the previous frame's rows went */
  bspline_affine_decompose (global, 0.5 * w, 0.5 * h, &gx, &gy, NULL, NULL);
  sx = (int) lround (fmax (-meter->margin, fmin (meter->margin, gx)));
  sy = (int) lround (fmax (-0.5 * h, fmin (0.5 * h, gy)));
  for (b = 0; b < meter->params.n_bands; b++) {
    bspline_luma_frame prev, cur;
    bspline_motion_result r;
    bspline_status st;
    int y0, y1, bh, py0, lo, hi, px0 = meter->margin, cx0 = px0 + sx;
    int cw = w - 2 * meter->margin;
    double yb, cpx, cpy, mx, my;

    bspline_rolling_band_rows (&meter->params, b, &y0, &y1);
    bh = y1 - y0;
    yb = 0.5 * (y0 + y1);
    /* rows py0 .. py0 + bh of the previous frame (without `margin`
     * columns a side) against this frame's pixels where they went (sy rows
     * down, sx columns right), both inside the frame, py0 as near the
     * band's as they allow; the band's centre row must be in the cut */
    lo = sy < 0 ? -sy : 0;
    hi = sy > 0 ? h - bh - sy : h - bh;
    py0 = y0 < lo ? lo : y0 > hi ? hi : y0;
    if (lo > hi || 2 * abs (py0 - y0) > bh) {
      band_motion[2 * b] = gx;
      band_motion[2 * b + 1] = gy;
      reliable[b] = 0;
      continue;
    }
    prev = rolling_cut (&meter->previous_frame, px0, py0, cw, bh);
    cur = rolling_cut (frame, cx0, py0 + sy, cw, bh);
    bspline_motion_estimator_reset (meter->band[b]);
    st = bspline_motion_estimate (meter->band[b], &prev, &r);
    if (st == BSPLINE_OK)
      st = bspline_motion_estimate (meter->band[b], &cur, &r);
    if (st != BSPLINE_OK)
      return st;
    /* the displacement of the previous frame's point (w / 2, yb): c ->
     * m(c) in the cuts' coordinates */
    cpx = 0.5 * w - px0;
    cpy = yb - py0;
    mx = r.motion.m[0] * cpx + r.motion.m[1] * cpy + r.motion.m[2];
    my = r.motion.m[3] * cpx + r.motion.m[4] * cpy + r.motion.m[5];
    band_motion[2 * b] = mx + cx0 - 0.5 * w;
    band_motion[2 * b + 1] = my + py0 + sy - yb;
    reliable[b] = r.reliable;
  }
  return rolling_keep (meter, frame);
}
