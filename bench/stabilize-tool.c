/* stabilize-tool.c: the clips and the measurement of
 * bench/stabilize-vs-vidstab.sh (docs/stabilization.md).
 *
 *   stabilize-tool make PHOTO.ppm W H N SEED CLIP MAPS.txt [SCALE [PX PY]]
 *     writes a shaky clip of N frames made from the photo as
 *     tests/stabilize/clip.h makes them (pan PX, PY px per frame, default
 *     1.5, 0.5; shake
 *     up to 20 px, 3 degrees, 2 percent, in frame pixels), the photo
 *     magnified SCALE times (default 1), and each frame's map G_k.  CLIP is
 *     raw RGB24, or I420 (BT.601 full range) when its name ends in .yuv.
 *   stabilize-tool measure W H MAPS.txt SHAKY.rgb STABLE.rgb
 *     finds the correction C_k that took each shaky frame to its
 *     stabilized frame (a robust similarity fit between the two frames by
 *     the core's estimator, the same for every stabilizer measured), and
 *     prints the residual jitter of the corrected clip (clip.h) and the
 *     mean measured fit residual.
 *
 * Built by the bench script with the C compiler against the core library.
 */
#include "clip.h"

static int
read_maps (const char *path, clip_spec * spec)
{
  FILE *f = fopen (path, "r");
  int k;

  if (!f)
    return 0;
  if (fscanf (f, "%d %d %d %lf %lf", &spec->n_frames, &spec->width,
          &spec->height, &spec->pan_x, &spec->pan_y) != 5) {
    fclose (f);
    return 0;
  }
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
  clip_spec spec = { 0, 0, 0, 1.5, 0.5, 20.0, 3.0, 0.02, NULL };
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
  len = strlen (argv[7]);
  yuv = len > 4 && strcmp (argv[7] + len - 4, ".yuv") == 0;
  spec.width = (int) (atoi (argv[3]) / scale);
  spec.height = (int) (atoi (argv[4]) / scale);
  spec.n_frames = atoi (argv[5]);
  if (argc > 11) {
    spec.pan_x = atof (argv[10]);
    spec.pan_y = atof (argv[11]);
  }
  /* shake and pan in frame pixels whatever the magnification */
  spec.shift /= scale;
  spec.pan_x /= scale;
  spec.pan_y /= scale;
  test_rng_init (&rng, strtoull (argv[6], NULL, 0));
  clip_make_maps (&spec, photo.width, photo.height, &rng);
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
  fprintf (maps, "%d %d %d %.17g %.17g\n", spec.n_frames, spec.width,
      spec.height, spec.pan_x, spec.pan_y);
  for (k = 0; k < spec.n_frames; k++) {
    const double *m = spec.maps[k].m;

    clip_render (cpu, &photo, &spec, k, rgb);
    if (yuv)
      write_i420 (rgb, spec.width, spec.height, clip);
    else
      fwrite (rgb, 1, (size_t) spec.width * spec.height * 3, clip);
    fprintf (maps, "%.17g %.17g %.17g %.17g %.17g %.17g\n", m[0], m[1], m[2],
        m[3], m[4], m[5]);
  }
  fclose (clip);
  fclose (maps);
  return 0;
}

static int
measure (int argc, char **argv)
{
  clip_spec spec;
  bspline_motion_params mp;
  bspline_motion_estimator *est;
  bspline_affine *corr;
  uint8_t *a, *b;
  FILE *fa, *fb;
  double rms_px, rms_deg, mean_dx, mean_dy, residual = 0.0;
  size_t size;
  char msg[256];
  int k, w, h, unreliable = 0;

  if (argc < 7)
    return 1;
  w = atoi (argv[2]);
  h = atoi (argv[3]);
  if (!read_maps (argv[4], &spec) || spec.width != w || spec.height != h) {
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
  printf ("residual jitter %.4f px RMS, %.4f deg RMS; pan %.4f %.4f px per "
      "frame (true %.4f %.4f); %d frames unmeasured; fit residual %.2f "
      "grey levels\n", rms_px, rms_deg, mean_dx, mean_dy, -spec.pan_x,
      -spec.pan_y, unreliable, residual / spec.n_frames);
  return 0;
}

/* Motion estimation alone on an I420 clip: milliseconds per frame. */
static int
analyse (int argc, char **argv)
{
  bspline_motion_params mp;
  bspline_motion_estimator *est;
  struct timespec t0, t1;
  uint8_t *frame;
  size_t size;
  FILE *f;
  char msg[256];
  int w, h, n = 0, reliable = 0, steps = 0;

  if (argc < 6)
    return 1;
  w = atoi (argv[2]);
  h = atoi (argv[3]);
  f = fopen (argv[4], "rb");
  if (!f)
    return 1;
  size = (size_t) w * h * 3 / 2;
  frame = malloc (size);
  bspline_motion_params_init (&mp);
  mp.n_threads = atoi (argv[5]);
  if (bspline_motion_estimator_new (&mp, w, h, &est, msg, sizeof (msg))) {
    fprintf (stderr, "%s\n", msg);
    return 1;
  }
  clock_gettime (CLOCK_MONOTONIC, &t0);
  while (fread (frame, 1, size, f) == size) {
    bspline_luma_frame lf = { frame, w, w, h, 1, 0, -1, -1, -1 };
    bspline_motion_result r;

    bspline_motion_estimate (est, &lf, &r);
    reliable += r.reliable;
    steps += r.iterations;
    n++;
  }
  clock_gettime (CLOCK_MONOTONIC, &t1);
  printf ("motion of %d frames of %dx%d, %d threads: %.2f ms per frame; %d "
      "reliable; %.1f Gauss-Newton steps per frame\n", n, w, h, mp.n_threads,
      1e3 * ((t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec)) / n,
      reliable, (double) steps / n);
  bspline_motion_estimator_free (est);
  free (frame);
  fclose (f);
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
  fprintf (stderr, "usage: %s make PHOTO.ppm W H N SEED CLIP.rgb MAPS.txt\n"
      "       %s measure W H MAPS.txt SHAKY.rgb STABLE.rgb\n"
      "       %s analyse W H CLIP.yuv THREADS\n", argv[0], argv[0], argv[0]);
  return 2;
}
