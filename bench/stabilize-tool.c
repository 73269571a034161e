/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stabilize-tool.c: the clips and the measurement of
 * bench/stabilize-vs-vidstab.sh (docs/stabilization.md).
 *
 *   stabilize-tool make PHOTO.ppm W H N SEED CLIP MAPS.txt [SCALE [PX PY
 *       [KIND]]]
 *     writes a shaky clip of N frames made from the photo as
 *     tests/stabilize/clip.h makes them (pan PX, PY px per frame, default
 *     1.5, 0.5), the photo magnified SCALE times (default 1), and each
 *     frame's map G_k.  KIND is the shake and the pan (clip.h):
 *       sines       (the default) sums of sines, up to 20 px, 3 degrees,
 *                   2 percent;
 *       broadband   white noise, standard deviations 6 px, 0.5 degree, no
 *                   zoom (the clip of issue 25), a steady pan;
 *       stop-start  the same shake; the pan runs for the first third of
 *                   the clip, stops for the second, runs again;
 *       tripod      the same shake, no pan (PX PY are ignored);
 *       roll-drift  the broadband shake and a steady pan, the roll
 *                   drifting by 5 degrees over the clip (a horizon that
 *                   tilts: clip.h clip_add_roll_drift).
 *     Shake and pan are in frame pixels whatever SCALE.  CLIP is raw RGB24,
 *     or I420 (BT.601 full range) when its name ends in .yuv.  MAPS.txt
 *     starts with the line "N W H PX PY KIND OX OY" (OX OY: the origin o of
 *     clip.h), then G_k for each frame, from the photo magnified SCALE
 *     times to the frame; a file of the older five-number header reads as
 *     KIND sines with the origin unknown.
 *   stabilize-tool rolling PHOTO.ppm SEED CLIP.rgb
 *     writes the rolling-shutter clip of tests/stabilize/rolling-clip.h
 *     (RS_W x RS_H, RS_FRAMES frames, readout RS_READOUT, raw RGB24).
 *   stabilize-tool wobble CLIP.rgb
 *     prints the wobble of such a clip's pictures (rolling-clip.h
 *     rs_picture_wobble: the second band of rows from the top minus the
 *     second from the bottom, frame-to-frame motion, px RMS).
 *   stabilize-tool analyse W H CLIP.yuv THREADS [gpu]
 *     times the motion estimation alone on an I420 clip (the luma), on the
 *     CPU with THREADS threads; with `gpu` (a build with the CUDA engine:
 *     bench/meson.build) also on the GPU (bspline-cuda-motion.h, luma from
 *     host memory), and prints the largest distance between the two
 *     estimates at the frame corners over the clip.
 *   stabilize-tool measure W H MAPS.txt SHAKY.rgb STABLE.rgb [PATHS.txt]
 *     finds the correction C_k that took each shaky frame to its
 *     stabilized frame (a robust similarity fit between the two frames by
 *     the core's estimator, the same for every stabilizer measured), and
 *     prints the residual jitter of the corrected clip against the
 *     intended motion of the clip's KIND (clip.h clip_residual), its
 *     deviation from the intended camera (clip_deviation; where the maps
 *     file has the origin), the mean measured fit residual, and how far
 *     the photo's horizon is from level in the output (the roll of
 *     C_k o G_k: largest, and at the last frame).  With
 *     PATHS.txt, writes for each frame k the photo point (magnified photo
 *     pixels) at the centre of the intended camera, of the shaky frame
 *     and of the stabilized frame: "k ix iy sx sy ox oy" (the camera
 *     paths that bench/plot-stabilize-paths.py draws).
 *
 * Built by the bench script with the C compiler against the core library,
 * and by meson with the CUDA engine (ninja -C BUILD bench/stabilize-tool).
 */
#include "rolling-clip.h"
#ifdef HAVE_BSPLINE_CUDA
#include "bspline-cuda-motion.h"
#endif

static double
seconds_between (const struct timespec *t0, const struct timespec *t1)
{
  return (t1->tv_sec - t0->tv_sec) + 1e-9 * (t1->tv_nsec - t0->tv_nsec);
}

#ifdef HAVE_BSPLINE_CUDA
/* Largest distance between two maps at the corners of a w x h frame. */
static double
corner_distance (const bspline_affine * a, const bspline_affine * b, int w,
    int h)
{
  double worst = 0.0;
  int k;

  for (k = 0; k < 4; k++) {
    double x = (k & 1) ? w : 0.0, y = (k & 2) ? h : 0.0;
    double dx = (a->m[0] - b->m[0]) * x + (a->m[1] - b->m[1]) * y
        + (a->m[2] - b->m[2]);
    double dy = (a->m[3] - b->m[3]) * x + (a->m[4] - b->m[4]) * y
        + (a->m[5] - b->m[5]);

    worst = fmax (worst, hypot (dx, dy));
  }
  return worst;
}
#endif

/* The clip kinds of `make` (clip.h's broadband and stop_start). */
typedef enum
{
  CLIP_KIND_SINES,
  CLIP_KIND_BROADBAND,
  CLIP_KIND_STOP_START,
  CLIP_KIND_TRIPOD,
  CLIP_KIND_ROLL_DRIFT
} clip_kind;

static const char *const clip_kind_names[] = {
  "sines", "broadband", "stop-start", "tripod", "roll-drift"
};

static int
parse_kind (const char *name, clip_kind * kind)
{
  int i;

  for (i = 0; i <= CLIP_KIND_ROLL_DRIFT; i++)
    if (strcmp (name, clip_kind_names[i]) == 0) {
      *kind = (clip_kind) i;
      return 1;
    }
  return 0;
}

/* Reads a maps file of `make`; *has_origin says whether its header has the
 * kind and the origin (the older header has neither: sines, origin
 * unknown). */
static int
read_maps (const char *path, clip_spec * spec, clip_kind * kind,
    int *has_origin)
{
  FILE *f = fopen (path, "r");
  char line[512], name[32];
  int k, fields;

  memset (spec, 0, sizeof (*spec));
  *kind = CLIP_KIND_SINES;
  *has_origin = 0;
  if (!f)
    return 0;
  if (!fgets (line, sizeof (line), f)) {
    fclose (f);
    return 0;
  }
  fields = sscanf (line, "%d %d %d %lf %lf %31s %lf %lf", &spec->n_frames,
      &spec->width, &spec->height, &spec->pan_x, &spec->pan_y, name,
      &spec->origin_x, &spec->origin_y);
  if ((fields != 5 && fields != 8) || spec->n_frames < 2
      || (fields == 8 && !parse_kind (name, kind))) {
    fclose (f);
    return 0;
  }
  *has_origin = fields == 8;
  spec->broadband = *kind != CLIP_KIND_SINES;
  spec->stop_start = *kind == CLIP_KIND_STOP_START;
  spec->maps = calloc ((size_t) spec->n_frames, sizeof (bspline_affine));
  for (k = 0; k < spec->n_frames; k++) {
    double *m = spec->maps[k].m;

    if (fscanf (f, "%lf %lf %lf %lf %lf %lf", &m[0], &m[1], &m[2], &m[3],
            &m[4], &m[5]) != 6) {
      fclose (f);
      return 0;
    }
  }
  fclose (f);
  return 1;
}

/* RGB24 as I420, BT.601 full range, chroma the mean of 2x2 pixels. */
static void
write_i420 (const uint8_t * rgb, int w, int h, FILE * f)
{
  uint8_t *y = malloc ((size_t) w * h), *u = malloc ((size_t) w * h / 4);
  uint8_t *v = malloc ((size_t) w * h / 4);
  int i, j;

  for (j = 0; j < h; j++)
    for (i = 0; i < w; i++) {
      const uint8_t *p = rgb + ((size_t) j * w + i) * 3;

      y[(size_t) j * w + i] = (uint8_t) lrint (0.299 * p[0] + 0.587 * p[1]
          + 0.114 * p[2]);
    }
  for (j = 0; j < h / 2; j++)
    for (i = 0; i < w / 2; i++) {
      double r = 0, g = 0, b = 0, yy;
      int a, c;

      for (a = 0; a < 2; a++)
        for (c = 0; c < 2; c++) {
          const uint8_t *p = rgb + ((size_t) (2 * j + a) * w + 2 * i + c) * 3;

          r += p[0] / 4.0;
          g += p[1] / 4.0;
          b += p[2] / 4.0;
        }
      yy = 0.299 * r + 0.587 * g + 0.114 * b;
      u[(size_t) j * (w / 2) + i] = (uint8_t) fmin (255, fmax (0, lrint (128
                  + 0.564 * (b - yy))));
      v[(size_t) j * (w / 2) + i] = (uint8_t) fmin (255, fmax (0, lrint (128
                  + 0.713 * (r - yy))));
    }
  fwrite (y, 1, (size_t) w * h, f);
  fwrite (u, 1, (size_t) w * h / 4, f);
  fwrite (v, 1, (size_t) w * h / 4, f);
  free (y);
  free (u);
  free (v);
}

static int
make (int argc, char **argv)
{
  clip_spec spec = { 0, 0, 0, 1.5, 0.5, 20.0, 3.0, 0.02, NULL, 0, 0, 0, 0 };
  clip_kind kind = CLIP_KIND_SINES;
  clip_photo photo;
  test_rng rng;
  bspline_cpu *cpu = bspline_cpu_new (0);
  uint8_t *rgb;
  FILE *clip, *maps;
  int k;

  double scale = argc > 9 ? atof (argv[9]) : 1.0;
  size_t len;
  int yuv;

  if (argc < 9 || !clip_read_ppm (argv[2], &photo) || !(scale > 0.0))
    return 1;
  if (argc > 12 && !parse_kind (argv[12], &kind)) {
    fprintf (stderr, "unknown clip kind %s (sines, broadband, stop-start, "
        "tripod, roll-drift)\n", argv[12]);
    return 1;
  }
  len = strlen (argv[7]);
  yuv = len > 4 && strcmp (argv[7] + len - 4, ".yuv") == 0;
  spec.width = (int) (atoi (argv[3]) / scale);
  spec.height = (int) (atoi (argv[4]) / scale);
  spec.n_frames = atoi (argv[5]);
  if (argc > 11) {
    spec.pan_x = atof (argv[10]);
    spec.pan_y = atof (argv[11]);
  }
  if (kind != CLIP_KIND_SINES) {
    /* issue 25's clips: white-noise shake, standard deviations */
    spec.shift = 6.0;
    spec.angle = 0.5;
    spec.zoom = 0.0;
    spec.broadband = 1;
    spec.stop_start = kind == CLIP_KIND_STOP_START;
    if (kind == CLIP_KIND_TRIPOD)
      spec.pan_x = spec.pan_y = 0.0;
  }
  /* shake and pan in frame pixels whatever the magnification */
  spec.shift /= scale;
  spec.pan_x /= scale;
  spec.pan_y /= scale;
  test_rng_init (&rng, strtoull (argv[6], NULL, 0));
  clip_make_maps (&spec, photo.width, photo.height, &rng);
  if (kind == CLIP_KIND_ROLL_DRIFT)
    clip_add_roll_drift (&spec, 5.0);
  /* the intended camera's centre at frame 0 in the photo magnified scale
   * times, less the frame centre: the origin of the maps file, whose maps
   * are from the magnified photo (clip_deviation) */
  spec.origin_x = scale * (spec.origin_x + 0.5 * spec.width)
      - 0.5 * atoi (argv[3]);
  spec.origin_y = scale * (spec.origin_y + 0.5 * spec.height)
      - 0.5 * atoi (argv[4]);
  /* magnified: frame pixels = scale * the maps' */
  spec.width = atoi (argv[3]);
  spec.height = atoi (argv[4]);
  for (k = 0; k < spec.n_frames; k++)
    for (len = 0; len < 6; len++)
      spec.maps[k].m[len] *= scale;
  spec.pan_x *= scale;
  spec.pan_y *= scale;
  rgb = malloc ((size_t) spec.width * spec.height * 3);
  clip = fopen (argv[7], "wb");
  maps = fopen (argv[8], "w");
  if (!clip || !maps)
    return 1;
  fprintf (maps, "%d %d %d %.17g %.17g %s %.17g %.17g\n", spec.n_frames,
      spec.width, spec.height, spec.pan_x, spec.pan_y, clip_kind_names[kind],
      spec.origin_x, spec.origin_y);
  for (k = 0; k < spec.n_frames; k++) {
    const double *m = spec.maps[k].m;

    clip_render (cpu, &photo, &spec, k, rgb);
    if (yuv)
      write_i420 (rgb, spec.width, spec.height, clip);
    else
      fwrite (rgb, 1, (size_t) spec.width * spec.height * 3, clip);
    /* G_k from the magnified photo: S G S^-1 keeps the linear part of the
     * unmagnified G and has the translation of S G */
    fprintf (maps, "%.17g %.17g %.17g %.17g %.17g %.17g\n", m[0] / scale,
        m[1] / scale, m[2], m[3] / scale, m[4] / scale, m[5]);
  }
  fclose (clip);
  fclose (maps);
  return 0;
}

/* The photo point at the centre of the frame of map t. */
static void
centre_point (const bspline_affine * t, double cx, double cy, double *x,
    double *y)
{
  bspline_affine inv;

  bspline_affine_invert (t, &inv);
  *x = inv.m[0] * cx + inv.m[1] * cy + inv.m[2];
  *y = inv.m[3] * cx + inv.m[4] * cy + inv.m[5];
}

static int
measure (int argc, char **argv)
{
  clip_spec spec;
  clip_kind kind;
  bspline_motion_params mp;
  bspline_motion_estimator *est;
  bspline_affine *corr;
  uint8_t *a, *b;
  FILE *fa, *fb;
  double rms_px, rms_deg, mean_dx, mean_dy, residual = 0.0;
  double dev_rms, dev_max, roll, roll_max = 0.0;
  size_t size;
  char msg[256];
  int k, w, h, unreliable = 0, has_origin;

  if (argc < 7)
    return 1;
  w = atoi (argv[2]);
  h = atoi (argv[3]);
  if (!read_maps (argv[4], &spec, &kind, &has_origin) || spec.width != w
      || spec.height != h) {
    fprintf (stderr, "bad maps file %s\n", argv[4]);
    return 1;
  }
  fa = fopen (argv[5], "rb");
  fb = fopen (argv[6], "rb");
  if (!fa || !fb)
    return 1;
  size = (size_t) w * h * 3;
  a = malloc (size);
  b = malloc (size);
  corr = calloc ((size_t) spec.n_frames, sizeof (bspline_affine));
  bspline_motion_params_init (&mp);
  mp.analysis_width = w;
  if (bspline_motion_estimator_new (&mp, w, h, &est, msg, sizeof (msg))) {
    fprintf (stderr, "%s\n", msg);
    return 1;
  }
  for (k = 0; k < spec.n_frames; k++) {
    bspline_luma_frame lf = { NULL, (ptrdiff_t) w * 3, w, h, 3, 0, 0, 1, 2 };
    bspline_motion_result r;

    if (fread (a, 1, size, fa) != size || fread (b, 1, size, fb) != size) {
      fprintf (stderr, "short clip at frame %d\n", k);
      return 1;
    }
    bspline_motion_estimator_reset (est);
    lf.data = a;
    bspline_motion_estimate (est, &lf, &r);
    lf.data = b;
    bspline_motion_estimate (est, &lf, &r);
    corr[k] = r.motion;
    unreliable += !r.reliable;
    residual += r.residual;
  }
  clip_residual (&spec, corr, &rms_px, &rms_deg, &mean_dx, &mean_dy);
  printf ("residual jitter %.4f px RMS, %.4f deg RMS", rms_px, rms_deg);
  if (has_origin) {
    clip_deviation (&spec, corr, &dev_rms, &dev_max);
    printf ("; deviation %.3f px RMS, %.3f px max", dev_rms, dev_max);
  }
  printf ("; mean motion %.4f %.4f px per frame (intended %.4f %.4f, %s); "
      "%d frames unmeasured; fit residual %.2f grey levels", mean_dx,
      mean_dy, -spec.pan_x * clip_pan_at (&spec, spec.n_frames - 1)
      / (spec.n_frames - 1), -spec.pan_y * clip_pan_at (&spec,
          spec.n_frames - 1) / (spec.n_frames - 1), clip_kind_names[kind],
      unreliable, residual / spec.n_frames);
  for (k = 0; k < spec.n_frames; k++) {
    bspline_affine t;

    bspline_affine_compose (&corr[k], &spec.maps[k], &t);
    bspline_affine_decompose (&t, 0.5 * w, 0.5 * h, NULL, NULL, &roll, NULL);
    roll_max = fmax (roll_max, fabs (roll));
  }
  printf ("; horizon from level up to %.4f deg, %.4f at the last frame\n",
      roll_max, roll);
  if (argc > 7) {
    FILE *paths = fopen (argv[7], "w");
    double cx = 0.5 * w, cy = 0.5 * h;

    if (!paths)
      return 1;
    for (k = 0; k < spec.n_frames; k++) {
      bspline_affine t;
      double sx, sy, ox, oy;

      centre_point (&spec.maps[k], cx, cy, &sx, &sy);
      bspline_affine_compose (&corr[k], &spec.maps[k], &t);
      centre_point (&t, cx, cy, &ox, &oy);
      fprintf (paths, "%d %.6f %.6f %.6f %.6f %.6f %.6f\n", k,
          cx + spec.origin_x + clip_pan_at (&spec, k) * spec.pan_x,
          cy + spec.origin_y + clip_pan_at (&spec, k) * spec.pan_y, sx, sy,
          ox, oy);
    }
    fclose (paths);
  }
  return 0;
}

/* Motion estimation alone on an I420 clip: milliseconds per frame. */
static int
analyse (int argc, char **argv)
{
  bspline_motion_params mp;
  bspline_motion_estimator *est;
  struct timespec t0, t1;
  uint8_t *frames;
  size_t size;
  FILE *f;
  char msg[256];
  int w, h, n = 0, k, reliable = 0, steps = 0, gpu;
  bspline_affine *cpu_motion;

  if (argc < 6)
    return 1;
  w = atoi (argv[2]);
  h = atoi (argv[3]);
  gpu = argc > 6 && strcmp (argv[6], "gpu") == 0;
  f = fopen (argv[4], "rb");
  if (!f)
    return 1;
  /* the whole clip in memory first: the timing is of the motion alone */
  size = (size_t) w * h * 3 / 2;
  fseek (f, 0, SEEK_END);
  n = (int) (ftell (f) / (long) size);
  fseek (f, 0, SEEK_SET);
  frames = malloc (size * (size_t) (n > 0 ? n : 1));
  cpu_motion = calloc ((size_t) (n > 0 ? n : 1), sizeof (bspline_affine));
  if (!frames || !cpu_motion || fread (frames, size, (size_t) n, f)
      != (size_t) n)
    return 1;
  fclose (f);
  bspline_motion_params_init (&mp);
  mp.n_threads = atoi (argv[5]);
  if (bspline_motion_estimator_new (&mp, w, h, &est, msg, sizeof (msg))) {
    fprintf (stderr, "%s\n", msg);
    return 1;
  }
  clock_gettime (CLOCK_MONOTONIC, &t0);
  for (k = 0; k < n; k++) {
    bspline_luma_frame lf = { frames + size * k, w, w, h, 1, 0, -1, -1, -1 };
    bspline_motion_result r;

    bspline_motion_estimate (est, &lf, &r);
    cpu_motion[k] = r.motion;
    reliable += r.reliable;
    steps += r.iterations;
  }
  clock_gettime (CLOCK_MONOTONIC, &t1);
  printf ("motion of %d frames of %dx%d, %d threads: %.2f ms per frame; %d "
      "reliable; %.1f Gauss-Newton steps per frame\n", n, w, h, mp.n_threads,
      1e3 * seconds_between (&t0, &t1) / n, reliable, (double) steps / n);
  bspline_motion_estimator_free (est);
  if (gpu) {
#ifdef HAVE_BSPLINE_CUDA
    bspline_cuda_motion *gm;
    double worst = 0.0;
    int pass;

    if (bspline_cuda_motion_new (-1, &mp, w, h, &gm, msg, sizeof (msg))) {
      fprintf (stderr, "%s\n", msg);
      return 1;
    }
    /* pass 0 warms up (allocations, first launches); pass 1 is timed */
    for (pass = 0; pass < 2; pass++) {
      reliable = 0;
      steps = 0;
      bspline_cuda_motion_reset (gm);
      clock_gettime (CLOCK_MONOTONIC, &t0);
      for (k = 0; k < n; k++) {
        bspline_luma_frame lf = { frames + size * k, w, w, h, 1, 0, -1, -1,
          -1
        };
        bspline_motion_result r;

        if (bspline_cuda_motion_estimate (gm, &lf, 0, &r) != BSPLINE_OK) {
          fprintf (stderr, "GPU: %s\n", bspline_cuda_motion_last_error (gm));
          return 1;
        }
        worst = fmax (worst, corner_distance (&r.motion, &cpu_motion[k], w,
                h));
        reliable += r.reliable;
        steps += r.iterations;
      }
      clock_gettime (CLOCK_MONOTONIC, &t1);
    }
    printf ("motion of %d frames of %dx%d on the GPU: %.3f ms per frame; %d "
        "reliable; %.1f Gauss-Newton steps per frame; GPU against CPU: at "
        "most %.2e px at the corners\n", n, w, h,
        1e3 * seconds_between (&t0, &t1) / n, reliable, (double) steps / n,
        worst);
    bspline_cuda_motion_free (gm);
#else
    fprintf (stderr, "this build has no CUDA engine\n");
    return 1;
#endif
  }
  free (frames);
  free (cpu_motion);
  return 0;
}

static int
rolling (int argc, char **argv)
{
  clip_photo photo;
  test_rng rng;
  rs_truth tr;
  bspline_cpu *cpu = bspline_cpu_new (0);
  uint8_t *frame = malloc ((size_t) RS_W * RS_H * 3);
  FILE *f;
  int k, ok = 1;

  if (argc < 5 || !cpu || !frame || !clip_read_ppm (argv[2], &photo))
    return 1;
  test_rng_init (&rng, strtoull (argv[3], NULL, 0));
  rs_truth_init (&tr, &rng, &photo);
  f = fopen (argv[4], "wb");
  for (k = 0; f && ok && k < RS_FRAMES; k++)
    ok = rs_render (cpu, &photo, &tr, RS_READOUT, k, frame)
        && fwrite (frame, (size_t) RS_W * RS_H * 3, 1, f) == 1;
  if (!f || fclose (f) != 0 || !ok) {
    fprintf (stderr, "cannot write %s\n", argv[4]);
    return 1;
  }
  free (frame);
  free (photo.rgb);
  bspline_cpu_free (cpu);
  return 0;
}

static int
wobble (int argc, char **argv)
{
  uint8_t *frames[RS_FRAMES];
  size_t size = (size_t) RS_W * RS_H * 3;
  FILE *f = argc > 2 ? fopen (argv[2], "rb") : NULL;
  int k, count;
  double w;

  for (k = 0; k < RS_FRAMES; k++) {
    frames[k] = malloc (size);
    if (!f || fread (frames[k], size, 1, f) != 1) {
      fprintf (stderr, "%s: not %d frames of %dx%d RGB24\n",
          argc > 2 ? argv[2] : "(no clip)", RS_FRAMES, RS_W, RS_H);
      return 1;
    }
  }
  fclose (f);
  w = rs_picture_wobble (frames, RS_FRAMES, &count);
  printf ("wobble %.3f px RMS (%d of %d frame pairs measured)\n", w, count,
      RS_FRAMES - 1);
  for (k = 0; k < RS_FRAMES; k++)
    free (frames[k]);
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "analyse") == 0)
    return analyse (argc, argv);
  if (argc > 1 && strcmp (argv[1], "make") == 0)
    return make (argc, argv);
  if (argc > 1 && strcmp (argv[1], "measure") == 0)
    return measure (argc, argv);
  if (argc > 1 && strcmp (argv[1], "rolling") == 0)
    return rolling (argc, argv);
  if (argc > 1 && strcmp (argv[1], "wobble") == 0)
    return wobble (argc, argv);
  fprintf (stderr, "usage: %s make PHOTO.ppm W H N SEED CLIP.rgb MAPS.txt "
      "[SCALE [PX PY [sines|broadband|stop-start|tripod|roll-drift]]]\n"
      "       %s measure W H MAPS.txt SHAKY.rgb STABLE.rgb [PATHS.txt]\n"
      "       %s analyse W H CLIP.yuv THREADS [gpu]\n"
      "       %s rolling PHOTO.ppm SEED CLIP.rgb\n"
      "       %s wobble CLIP.rgb\n", argv[0], argv[0], argv[0], argv[0],
      argv[0]);
  return 2;
}
