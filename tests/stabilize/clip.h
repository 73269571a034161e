/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clip.h: synthetic shaky clips for the stabilization tests, made from a
 * real photograph (make-photo.py) with the core's double-precision engine
 * (order 5 B-spline), independently of the code under test.
 *
 * Frame k shows the photo through a camera that pans at a steady velocity
 * and shakes: the map from photo pixels s to frame pixels is
 *   G_k(s) = J_k(s - o - k pan),
 * o the offset that centres the frame on the photo, and J_k the shake about
 * the frame centre c: J_k(p) = c + z_k R(theta_k) (p - c) + (x_k, y_k).
 * Each shake parameter is a seeded random sum of three sines of random
 * frequency 0.08 to 0.25 cycles per frame (2.4 to 7.5 Hz at 30 frames/s:
 * hand tremor and walking bounce) and phase, with random weights summing
 * to one, so that it stays within its amplitude: up to 20 pixels, 3
 * degrees, 2 percent of zoom.  With `broadband` set, each shake parameter
 * is instead drawn for every frame independently from a normal
 * distribution whose standard deviation is the amplitude (white noise: the
 * shake of a hand-held camera at every frequency, the slowest included).
 * With `stop_start` set, the pan runs for the first third of the clip,
 * stops for the second and runs again for the last (pan = velocity while
 * it runs); clip_pan_at gives the intended position.
 *
 * Residual jitter of a stabilized clip: frame k of the output shows the
 * photo through T_k = C_k o G_k (C_k the correction).  The output's
 * frame-to-frame motion F_k = T_k o T_(k-1)^-1 should be the pan alone,
 * a translation by -pan; the residual is F_k's translation of the frame
 * centre minus -pan (pixels, RMS of the vector's length over the clip) and
 * F_k's rotation (degrees, RMS).
 */
#ifndef STABILIZE_CLIP_H
#define STABILIZE_CLIP_H

#include "test-common.h"
#include "bspline-stabilize.h"

typedef struct
{
  int width, height;
  uint8_t *rgb;                 /* 3 bytes per pixel, rows of 3 width */
} clip_photo;

typedef struct
{
  int n_frames, width, height;
  double pan_x, pan_y;          /* camera velocity, photo pixels per frame */
  double shift, angle, zoom;    /* shake amplitudes: px, degrees, fraction */
  bspline_affine *maps;         /* G_k: photo pixels -> frame pixels */
  int broadband;                /* white-noise shake, standard deviations */
  int stop_start;               /* the pan stops for the middle third */
  double origin_x, origin_y;    /* o, set by clip_make_maps */
} clip_spec;

/* The length of the long shaky clip that test-motion stabilizes four ways
 * and stabilize-element puts through the element: 300 frames, or
 * $BSPLINE_SHAKY_CLIP_FRAMES (the sanitizer setups run fewer:
 * tests/sanitizers/meson.build says why). */
static inline int
clip_shaky_clip_frames (void)
{
  const char *env = getenv ("BSPLINE_SHAKY_CLIP_FRAMES");

  return env ? atoi (env) : 300;
}

/* The intended camera's displacement at frame k, in units of the pan
 * velocity (k for a steady pan). */
static inline double
clip_pan_at (const clip_spec * spec, int k)
{
  int a = spec->n_frames / 3, b = 2 * spec->n_frames / 3;

  if (!spec->stop_start || k <= a)
    return k;
  return k <= b ? a : k - (b - a);
}

/* A standard normal draw (Box-Muller). */
static inline double
clip_normal (test_rng * rng)
{
  double u = test_rng_range (rng, 1e-300, 1.0), v = test_rng_uniform (rng);

  return sqrt (-2.0 * log (u)) * cos (2.0 * TEST_PI * v);
}

static inline int
clip_read_ppm (const char *path, clip_photo * photo)
{
  FILE *f = fopen (path, "rb");
  int maxval;
  size_t n;

  memset (photo, 0, sizeof (*photo));
  if (!f) {
    printf ("cannot open %s\n", path);
    return 0;
  }
  if (fscanf (f, "P6 %d %d %d", &photo->width, &photo->height,
          &maxval) != 3 || maxval != 255 || photo->width <= 0
      || photo->height <= 0 || fgetc (f) == EOF) {
    printf ("%s is not a binary 8-bit PPM\n", path);
    fclose (f);
    return 0;
  }
  n = (size_t) photo->width * photo->height * 3;
  photo->rgb = malloc (n);
  if (!photo->rgb || fread (photo->rgb, 1, n, f) != n) {
    printf ("%s is truncated\n", path);
    fclose (f);
    free (photo->rgb);
    photo->rgb = NULL;
    return 0;
  }
  fclose (f);
  return 1;
}

/* A shake parameter: amplitude times a random sum of three sines. */
typedef struct
{
  double weight[3], freq[3], phase[3];
} clip_shake;

static inline void
clip_shake_init (clip_shake * s, test_rng * rng)
{
  double sum = 0.0;
  int i;

  memset (s, 0, sizeof (*s));
  if (rng == NULL)              /* no shake */
    return;
  for (i = 0; i < 3; i++) {
    s->weight[i] = test_rng_range (rng, 0.2, 1.0);
    s->freq[i] = test_rng_range (rng, 0.08, 0.25);
    s->phase[i] = test_rng_range (rng, 0.0, 2.0 * TEST_PI);
    sum += s->weight[i];
  }
  for (i = 0; i < 3; i++)
    s->weight[i] /= sum;
}

static inline double
clip_shake_at (const clip_shake * s, int k)
{
  double v = 0.0;
  int i;

  for (i = 0; i < 3; i++)
    v += s->weight[i] * sin (2.0 * TEST_PI * s->freq[i] * k + s->phase[i]);
  return v;
}

/* Fills spec->maps (allocated here) for a clip of a photo_w x photo_h
 * photo; shake amplitudes of 0, or rng NULL, give a clip without shake. */
static inline void
clip_make_maps (clip_spec * spec, int photo_w, int photo_h, test_rng * rng)
{
  clip_shake sx, sy, sa, sz;
  double cx = 0.5 * spec->width, cy = 0.5 * spec->height;
  double end = clip_pan_at (spec, spec->n_frames - 1);
  double ox = 0.5 * photo_w - cx - 0.5 * spec->pan_x * end;
  double oy = 0.5 * photo_h - cy - 0.5 * spec->pan_y * end;
  int k;

  spec->origin_x = ox;
  spec->origin_y = oy;
  clip_shake_init (&sx, rng);
  clip_shake_init (&sy, rng);
  clip_shake_init (&sa, rng);
  clip_shake_init (&sz, rng);
  spec->maps = calloc ((size_t) spec->n_frames, sizeof (bspline_affine));
  for (k = 0; k < spec->n_frames; k++) {
    int white = spec->broadband && rng;
    double th = spec->angle * (white ? clip_normal (rng) :
        clip_shake_at (&sa, k)) * TEST_PI / 180.0;
    double z = 1.0 + spec->zoom * (white ? clip_normal (rng) :
        clip_shake_at (&sz, k));
    double tx = spec->shift * (white ? clip_normal (rng) :
        clip_shake_at (&sx, k));
    double ty = spec->shift * (white ? clip_normal (rng) :
        clip_shake_at (&sy, k));
    double a = z * cos (th), b = -z * sin (th), c = z * sin (th);
    double d = z * cos (th), px = ox + clip_pan_at (spec, k) * spec->pan_x;
    double py = oy + clip_pan_at (spec, k) * spec->pan_y, *m = spec->maps[k].m;

    /* p = s - (px, py); q = c + L (p - c) + t */
    m[0] = a;
    m[1] = b;
    m[3] = c;
    m[4] = d;
    m[2] = cx + tx - a * (px + cx) - b * (py + cy);
    m[5] = cy + ty - c * (px + cx) - d * (py + cy);
  }
}

/* A horizon that drifts: each frame k turned about its centre by a roll
 * growing linearly from 0 at the first frame to `degrees` (clockwise on
 * screen) at the last, G_k <- R_c(degrees k / (n - 1)) o G_k. */
static inline void
clip_add_roll_drift (clip_spec * spec, double degrees)
{
  double cx = 0.5 * spec->width, cy = 0.5 * spec->height;
  int k;

  for (k = 1; k < spec->n_frames; k++) {
    double a = degrees * k / (spec->n_frames - 1) * TEST_PI / 180.0;
    bspline_affine r = { {cos (a), -sin (a), 0.0, sin (a), cos (a), 0.0} };

    r.m[2] = cx - r.m[0] * cx - r.m[1] * cy;
    r.m[5] = cy - r.m[3] * cx - r.m[4] * cy;
    bspline_affine_compose (&r, &spec->maps[k], &spec->maps[k]);
  }
}

/* The camera rotation matrix of yaw (about y), pitch (about x) and roll
 * (about z), radians, applied in that order (roll last). */
static inline void
clip_rotation_matrix (double yaw, double pitch, double roll, double *r)
{
  double ry[9] = { cos (yaw), 0, sin (yaw), 0, 1, 0, -sin (yaw), 0,
    cos (yaw)
  };
  double rx[9] = { 1, 0, 0, 0, cos (pitch), -sin (pitch), 0, sin (pitch),
    cos (pitch)
  };
  double rz[9] = { cos (roll), -sin (roll), 0, sin (roll), cos (roll), 0, 0,
    0, 1
  };
  double t[9];

  bspline_matrix_multiply (rx, ry, t);
  bspline_matrix_multiply (rz, t, r);
}

/* The renderings' resampling: the double engine, order 5, mirror
 * boundary, no antialiasing. */
static inline void
clip_params (bspline_params * params)
{
  bspline_params_init (params);
  params->order = 5;
  params->precision = BSPLINE_PRECISION_DOUBLE;
  params->boundary = BSPLINE_BOUNDARY_MIRROR;
  params->antialias = BSPLINE_ANTIALIAS_NONE;
}

/* Runs plan (the photo onto a width x height frame) into out as RGB
 * (stride 3 width), then frees it. */
static inline int
clip_execute (bspline_cpu * cpu, bspline_plan * plan,
    const clip_photo * photo, int width, int height, uint8_t * out)
{
  bspline_image src, dst;
  bspline_status st;

  memset (&src, 0, sizeof (src));
  src.data = photo->rgb;
  src.stride = (ptrdiff_t) photo->width * 3;
  src.width = photo->width;
  src.height = photo->height;
  src.channels = 3;
  src.type = BSPLINE_SAMPLE_U8;
  src.bits = 8;
  dst = src;
  dst.data = out;
  dst.stride = (ptrdiff_t) width * 3;
  dst.width = width;
  dst.height = height;
  st = bspline_cpu_execute (cpu, plan, &src, &dst);
  bspline_plan_free (plan);
  return st == BSPLINE_OK;
}

/* Renders frame k as RGB (stride 3 width) with clip_params. */
static inline int
clip_render (bspline_cpu * cpu, const clip_photo * photo,
    const clip_spec * spec, int k, uint8_t * out)
{
  bspline_params params;
  bspline_plan *plan = NULL;
  bspline_affine inv;
  double m[9];
  char msg[256];

  clip_params (&params);
  if (!bspline_affine_invert (&spec->maps[k], &inv))
    return 0;
  bspline_affine_to_matrix (&inv, m);
  if (bspline_plan_new (&params, m, photo->width, photo->height,
          spec->width, spec->height, 3, &plan, msg, sizeof (msg))
      != BSPLINE_OK) {
    printf ("plan: %s\n", msg);
    return 0;
  }
  return clip_execute (cpu, plan, photo, spec->width, spec->height, out);
}

/* Residual jitter (see the top of the file) of corrections[0 .. n-1]. */
static inline void
clip_residual (const clip_spec * spec, const bspline_affine * corrections,
    double *rms_px, double *rms_deg, double *mean_dx, double *mean_dy)
{
  double cx = 0.5 * spec->width, cy = 0.5 * spec->height;
  double sp = 0.0, sa = 0.0, mx = 0.0, my = 0.0;
  bspline_affine prev, cur, prev_inv, f;
  int k;

  bspline_affine_compose (&corrections[0], &spec->maps[0], &prev);
  for (k = 1; k < spec->n_frames; k++) {
    double dx, dy, ang;

    bspline_affine_compose (&corrections[k], &spec->maps[k], &cur);
    bspline_affine_invert (&prev, &prev_inv);
    bspline_affine_compose (&cur, &prev_inv, &f);
    bspline_affine_decompose (&f, cx, cy, &dx, &dy, &ang, NULL);
    mx += dx;
    my += dy;
    {
      double step = clip_pan_at (spec, k) - clip_pan_at (spec, k - 1);

      dx += step * spec->pan_x;
      dy += step * spec->pan_y;
    }
    sp += dx * dx + dy * dy;
    sa += ang * ang;
    prev = cur;
  }
  *rms_px = sqrt (sp / (spec->n_frames - 1));
  *rms_deg = sqrt (sa / (spec->n_frames - 1));
  *mean_dx = mx / (spec->n_frames - 1);
  *mean_dy = my / (spec->n_frames - 1);
}

/* How far a stabilized clip strays from the intended camera (the pan
 * without the shake): where the output frame k shows the photo point that
 * the intended camera shows at the frame centre, minus the mean of that
 * over the clip (a steady offset of the framing is no wobble); RMS and
 * largest length, pixels. */
static inline void
clip_deviation (const clip_spec * spec, const bspline_affine * corrections,
    double *rms_px, double *max_px)
{
  double cx = 0.5 * spec->width, cy = 0.5 * spec->height, mx = 0.0, my = 0.0;
  double *dx = calloc ((size_t) spec->n_frames, 2 * sizeof (double));
  double sum = 0.0;
  int k;

  *max_px = 0.0;
  for (k = 0; k < spec->n_frames; k++) {
    bspline_affine t;
    double sx = cx + spec->origin_x + clip_pan_at (spec, k) * spec->pan_x;
    double sy = cy + spec->origin_y + clip_pan_at (spec, k) * spec->pan_y;

    bspline_affine_compose (&corrections[k], &spec->maps[k], &t);
    dx[2 * k] = t.m[0] * sx + t.m[1] * sy + t.m[2] - cx;
    dx[2 * k + 1] = t.m[3] * sx + t.m[4] * sy + t.m[5] - cy;
    mx += dx[2 * k] / spec->n_frames;
    my += dx[2 * k + 1] / spec->n_frames;
  }
  for (k = 0; k < spec->n_frames; k++) {
    double d = hypot (dx[2 * k] - mx, dx[2 * k + 1] - my);

    sum += d * d;
    *max_px = fmax (*max_px, d);
  }
  *rms_px = sqrt (sum / spec->n_frames);
  free (dx);
}

/* Frame k (w x h RGB) of a clip whose camera motion cannot be measured:
 * kind 0 independent uniform noise, 1 black, 2 a 40 x 40 block of the
 * photo moving on black (videotestsrc's ball), 3 photo_frame brighter by
 * 100 grey levels on odd frames (a flash). */
static inline void
clip_unmeasurable_frame (test_rng * rng, int kind, int k,
    const clip_photo * photo, const uint8_t * photo_frame, int w, int h,
    uint8_t * f)
{
  int i, x, y;

  if (kind == 0) {
    for (i = 0; i < w * h * 3; i++)
      f[i] = (uint8_t) test_rng_int (rng, 0, 255);
    return;
  }
  if (kind == 3) {
    for (i = 0; i < w * h * 3; i++)
      f[i] = (uint8_t) (k & 1 ? (photo_frame[i] + 100 > 255 ? 255 :
              photo_frame[i] + 100) : photo_frame[i]);
    return;
  }
  memset (f, 0, (size_t) w * h * 3);
  if (kind == 2)
    for (y = 0; y < 40; y++)
      for (x = 0; x < 40; x++)
        memcpy (f + ((size_t) (100 + 9 * k + y) * w + 200 + 13 * k + x) * 3,
            photo->rgb + ((size_t) (y + 500) * photo->width + x + 600) * 3, 3);
}

static inline const char *
clip_unmeasurable_name (int kind)
{
  static const char *const names[] =
      { "noise", "black", "lone object on black", "flash" };

  return names[kind];
}

/* An interleaved RGB frame (3 bytes a pixel) as a luma source. */
static inline void
clip_luma_rgb (const uint8_t * rgb, int w, int h, bspline_luma_frame * f)
{
  memset (f, 0, sizeof (*f));
  f->data = rgb;
  f->stride = (ptrdiff_t) w * 3;
  f->width = w;
  f->height = h;
  f->pixel_stride = 3;
  f->offset_r = 0;
  f->offset_g = 1;
  f->offset_b = 2;
}

/* Largest distance between the maps a and b over the corners and centre
 * of a w x h frame. */
static inline double
clip_map_error (const bspline_affine * a, const bspline_affine * b, int w,
    int h)
{
  double worst = 0.0;
  int k;

  for (k = 0; k < 5; k++) {
    double x = k == 4 ? 0.5 * w : (k & 1) ? w : 0.0;
    double y = k == 4 ? 0.5 * h : (k & 2) ? h : 0.0;
    double ax = a->m[0] * x + a->m[1] * y + a->m[2];
    double ay = a->m[3] * x + a->m[4] * y + a->m[5];
    double bx = b->m[0] * x + b->m[1] * y + b->m[2];
    double by = b->m[3] * x + b->m[4] * y + b->m[5];

    worst = fmax (worst, hypot (ax - bx, ay - by));
  }
  return worst;
}

/* The map of a w x h camera moved by a random similarity (or affine) of
 * up to 20 px, 3 degrees and 2 percent from the centred view of a
 * photo_w x photo_h photo. */
static inline void
clip_random_map (test_rng * rng, int affine, int photo_w, int photo_h, int w,
    int h, bspline_affine * g)
{
  double th = test_rng_range (rng, -3, 3) * TEST_PI / 180.0;
  double z = 1.0 + test_rng_range (rng, -0.02, 0.02);
  double tx = test_rng_range (rng, -20, 20), ty = test_rng_range (rng, -20, 20);
  double ox = 0.5 * photo_w - 0.5 * w, oy = 0.5 * photo_h - 0.5 * h;
  double a = z * cos (th), b = -z * sin (th), c = z * sin (th),
      d = z * cos (th);
  double cx = 0.5 * w, cy = 0.5 * h;

  if (affine) {
    a += test_rng_range (rng, -0.01, 0.01);
    b += test_rng_range (rng, -0.01, 0.01);
    c += test_rng_range (rng, -0.01, 0.01);
    d += test_rng_range (rng, -0.01, 0.01);
  }
  g->m[0] = a;
  g->m[1] = b;
  g->m[3] = c;
  g->m[4] = d;
  g->m[2] = cx + tx - a * (ox + cx) - b * (oy + cy);
  g->m[5] = cy + ty - c * (ox + cx) - d * (oy + cy);
}

#endif /* STABILIZE_CLIP_H */
