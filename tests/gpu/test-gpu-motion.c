/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-gpu-motion.c: the motion estimation on the GPU (cuda/motion.cu,
 * bspline-cuda-motion.h) against the CPU engine (core/stabilize/motion.c) and
 * against the truth, on the clip pairs of tests/stabilize/test-motion.c
 * (frames rendered from a real photograph, tests/stabilize/clip.h).
 *
 *  - every pair: the GPU estimate within 0.01 px of the CPU's at the frame
 *    corners and centre.  Both run the same algorithm on the same pyramids
 *    (the kernels round as the CPU does) and differ only in the order of
 *    the sums of the normal equations, about 1e-12 relative;
 *    0.01 px is 5x below the 0.05 px accuracy bound, so a GPU that met it
 *    could not pass the accuracy test by luck, and it leaves room for a
 *    histogram bin (1/32 grey level) that a rounding moves;
 *  - the GPU estimates meet the CPU test's bounds: similarity and affine
 *    pairs 0.05 px, with a moving object 0.1 px; flat and one-edge frames
 *    unreliable with the identity; identical frames exactly the identity;
 *  - the same pair twice gives bit-identical results (deterministic sums);
 *  - frames whose motion cannot be measured (independent noise, black, a
 *    lone object moving on black, a flash) are unreliable with the
 *    identity on both engines, decided before any Gauss-Newton step, as
 *    tests/stabilize/test-motion.c checks on the CPU;
 *  - frames in a sequence (the two pyramids taking turns), luma given as
 *    grey bytes, from host memory and from device memory: within 0.01 px
 *    of the CPU and, at 640x360, within 0.05 px of the truth; and a
 *    1280x720 clip (analysis at half resolution: the 2x2 mean of the luma),
 *    within 0.01 px of the CPU (its frames reach past the photo's edge
 *    into its mirror image, which the CPU test does not bound: the CPU
 *    and the GPU measured 0.08 px there on one seed).
 *
 * Exits 77 (skipped) without a GPU.  Usage: test-gpu-motion PHOTO.ppm
 */
#include "../stabilize/clip.h"
#include "bspline-cuda.h"
#include "bspline-cuda-motion.h"

#define W 640
#define H 360
/* GPU against CPU, pixels at the corners (see above) */
#define GPU_CPU_TOLERANCE 0.01

static bspline_cpu *cpu;
static clip_photo photo;
static double worst_gpu_cpu;

static void
luma_frame_grey (const uint8_t * grey, int w, int h, bspline_luma_frame * f)
{
  memset (f, 0, sizeof (*f));
  f->data = grey;
  f->stride = w;
  f->width = w;
  f->height = h;
  f->pixel_stride = 1;
  f->offset_r = -1;
}

/* Both engines on a sequence of frames (from the first, which starts the
 * sequence); results in cpu_r[k], gpu_r[k].  on_device: the GPU reads the
 * frames from device memory. */
static void
estimate_both (bspline_motion_estimator * est, bspline_cuda_motion * gm,
    bspline_luma_frame * frames, int n, int w, int h, int on_device,
    bspline_motion_result * cpu_r, bspline_motion_result * gpu_r)
{
  int k;

  bspline_motion_estimator_reset (est);
  bspline_cuda_motion_reset (gm);
  for (k = 0; k < n; k++) {
    bspline_status st;

    bspline_motion_estimate (est, &frames[k], &cpu_r[k]);
    if (on_device) {
      bspline_luma_frame df = frames[k];
      size_t size = (size_t) df.stride * df.height;
      void *dev = bspline_cuda_motion_device_alloc (gm, size);

      TEST_CHECK (dev != NULL, "device alloc: %s",
          bspline_cuda_motion_last_error (gm));
      if (dev == NULL)
        continue;
      size_t zero = 0;
      const void *host = frames[k].data;

      st = bspline_cuda_motion_upload (gm, dev, 1, &host, &zero, &size);
      TEST_CHECK (st == BSPLINE_OK, "upload: %s",
          bspline_cuda_motion_last_error (gm));
      df.data = dev;
      st = bspline_cuda_motion_estimate (gm, &df, 1, &gpu_r[k]);
      bspline_cuda_motion_device_free (gm, dev);
    } else {
      st = bspline_cuda_motion_estimate (gm, &frames[k], 0, &gpu_r[k]);
    }
    TEST_CHECK (st == BSPLINE_OK, "GPU estimate of frame %d: %s (%s)", k,
        bspline_status_string (st), bspline_cuda_motion_last_error (gm));
  }
  (void) w;
  (void) h;
}

/* GPU against CPU on one result. */
static void
check_agree (const char *what, int trial, const bspline_motion_result * c,
    const bspline_motion_result * g, int w, int h)
{
  double d = clip_map_error (&c->motion, &g->motion, w, h);

  worst_gpu_cpu = fmax (worst_gpu_cpu, d);
  TEST_CHECK (c->reliable == g->reliable && d <= GPU_CPU_TOLERANCE,
      "%s trial %d: GPU %.6f px from the CPU (reliable %d / %d, "
      "steps %d / %d, inliers %.4f / %.4f)", what, trial, d, g->reliable,
      c->reliable, g->iterations, c->iterations, g->inliers, c->inliers);
}

static void
test_pairs (bspline_cuda_motion ** gms, bspline_motion_estimator ** ests,
    test_rng * rng, int affine, int moving_object, double *worst)
{
  bspline_motion_estimator *est = ests[affine];
  bspline_cuda_motion *gm = gms[affine];
  uint8_t *f[2];
  const char *what = affine ? "affine" : moving_object ?
      "similarity with a moving object" : "similarity";
  int trial;

  f[0] = malloc (W * H * 3);
  f[1] = malloc (W * H * 3);
  *worst = 0.0;
  for (trial = 0; trial < 8; trial++) {
    clip_spec spec = { 2, W, H, 0, 0, 0, 0, 0, NULL, 0, 0, 0, 0 };
    bspline_affine truth, inv0;
    bspline_motion_result cr[2], gr[2], again[2];
    bspline_luma_frame lf[2];
    double err;

    spec.maps = calloc (2, sizeof (bspline_affine));
    clip_random_map (rng, affine, photo.width, photo.height, W, H,
        &spec.maps[0]);
    clip_random_map (rng, affine, photo.width, photo.height, W, H,
        &spec.maps[1]);
    clip_render (cpu, &photo, &spec, 0, f[0]);
    clip_render (cpu, &photo, &spec, 1, f[1]);
    if (moving_object) {
      int x0 = test_rng_int (rng, 0, W - 260), y0 = test_rng_int (rng, 0,
          H - 150), x, y, sx = test_rng_int (rng, -30, 30);

      for (y = 0; y < 150; y++)
        for (x = 0; x < 260; x++) {
          memcpy (f[0] + ((y0 + y) * W + x0 + x) * 3,
              photo.rgb + ((size_t) (y + 500) * photo.width + x + 600) * 3,
              3);
          memcpy (f[1] + ((y0 + y) * W + x0 + x) * 3,
              photo.rgb + ((size_t) (y + 500) * photo.width + x + 600 +
                  sx) * 3, 3);
        }
    }
    clip_luma_rgb (f[0], W, H, &lf[0]);
    clip_luma_rgb (f[1], W, H, &lf[1]);
    estimate_both (est, gm, lf, 2, W, H, trial & 1, cr, gr);
    TEST_CHECK (!gr[0].reliable, "the first frame has no motion");
    bspline_affine_invert (&spec.maps[0], &inv0);
    bspline_affine_compose (&spec.maps[1], &inv0, &truth);
    err = clip_map_error (&truth, &gr[1].motion, W, H);
    *worst = fmax (*worst, err);
    TEST_CHECK (gr[1].reliable, "%s trial %d: unreliable on the GPU "
        "(texture %g, inliers %g)", what, trial, gr[1].texture,
        gr[1].inliers);
    TEST_CHECK (err <= (moving_object ? 0.1 : 0.05),
        "%s trial %d: GPU error %.4f px at the corners (inliers %.2f, %d "
        "steps)", what, trial, err, gr[1].inliers, gr[1].iterations);
    check_agree (what, trial, &cr[1], &gr[1], W, H);

    /* deterministic: the same pair again, the same bits */
    if (trial < 2) {
      bspline_motion_result cr2[2];

      estimate_both (est, gm, lf, 2, W, H, 0, cr2, again);
      TEST_CHECK (memcmp (again[1].motion.m, gr[1].motion.m,
              sizeof (gr[1].motion.m)) == 0
          && again[1].iterations == gr[1].iterations,
          "%s trial %d: the GPU gave another result the second time "
          "(%.17g vs %.17g)", what, trial, again[1].motion.m[2],
          gr[1].motion.m[2]);
    }
    free (spec.maps);
  }
  free (f[0]);
  free (f[1]);
}

static void
test_unreliable_and_static (bspline_cuda_motion * gm,
    bspline_motion_estimator * est, test_rng * rng)
{
  uint8_t *f[2];
  bspline_luma_frame lf[2];
  bspline_motion_result cr[2], gr[2];
  bspline_affine id;
  int i, k, x, y;

  bspline_affine_identity (&id);
  f[0] = malloc (W * H * 3);
  f[1] = malloc (W * H * 3);
  /* flat grey with +-1 noise, then a single vertical edge */
  for (i = 0; i < 2; i++) {
    for (k = 0; k < 2; k++)
      for (y = 0; y < H; y++)
        for (x = 0; x < W; x++) {
          int v = i == 0 ? 128 + test_rng_int (rng, -1, 1) :
              (x < W / 2 + 7 * k ? 40 : 200);

          memset (f[k] + (y * W + x) * 3, v, 3);
        }
    clip_luma_rgb (f[0], W, H, &lf[0]);
    clip_luma_rgb (f[1], W, H, &lf[1]);
    estimate_both (est, gm, lf, 2, W, H, i, cr, gr);
    TEST_CHECK (!gr[1].reliable
        && clip_map_error (&gr[1].motion, &id, W, H) == 0.0,
        "%s frame on the GPU: reliable %d (texture %g), motion error %g",
        i == 0 ? "flat" : "one-edge", gr[1].reliable, gr[1].texture,
        clip_map_error (&gr[1].motion, &id, W, H));
    TEST_CHECK (fabs (gr[1].texture - cr[1].texture) <= 1e-9 *
        fmax (1.0, cr[1].texture), "%s frame: texture %.17g on the GPU, "
        "%.17g on the CPU", i == 0 ? "flat" : "one-edge", gr[1].texture,
        cr[1].texture);
  }

  /* the same photo frame twice: exactly the identity */
  {
    clip_spec spec = { 1, W, H, 0, 0, 0, 0, 0, NULL, 0, 0, 0, 0 };

    spec.maps = calloc (1, sizeof (bspline_affine));
    clip_random_map (rng, 0, photo.width, photo.height, W, H,
        &spec.maps[0]);
    clip_render (cpu, &photo, &spec, 0, f[0]);
    free (spec.maps);
  }
  clip_luma_rgb (f[0], W, H, &lf[0]);
  lf[1] = lf[0];
  estimate_both (est, gm, lf, 2, W, H, 0, cr, gr);
  TEST_CHECK (gr[1].reliable
      && memcmp (gr[1].motion.m, id.m, sizeof (id.m)) == 0,
      "identical frames on the GPU: reliable %d, motion %g %g %g %g %g %g",
      gr[1].reliable, gr[1].motion.m[0], gr[1].motion.m[1],
      gr[1].motion.m[2], gr[1].motion.m[3], gr[1].motion.m[4],
      gr[1].motion.m[5]);
  free (f[0]);
  free (f[1]);
}

static void
test_unmeasurable (bspline_cuda_motion * gm, bspline_motion_estimator * est,
    test_rng * rng)
{
  static const char *const names[] =
      { "noise", "black", "lone object on black", "flash" };
  uint8_t *photo_frame = malloc (W * H * 3), *f[4];
  bspline_luma_frame lf[4];
  bspline_motion_result cr[4], gr[4];
  bspline_affine id;
  clip_spec spec = {.n_frames = 1,.width = W,.height = H };
  int kind, k;

  bspline_affine_identity (&id);
  spec.maps = calloc (1, sizeof (bspline_affine));
  clip_random_map (rng, 0, photo.width, photo.height, W, H, &spec.maps[0]);
  clip_render (cpu, &photo, &spec, 0, photo_frame);
  free (spec.maps);
  for (k = 0; k < 4; k++)
    f[k] = malloc (W * H * 3);
  for (kind = 0; kind < 4; kind++) {
    for (k = 0; k < 4; k++) {
      clip_unmeasurable_frame (rng, kind, k, &photo, photo_frame, W, H, f[k]);
      clip_luma_rgb (f[k], W, H, &lf[k]);
    }
    estimate_both (est, gm, lf, 4, W, H, kind & 1, cr, gr);
    for (k = 1; k < 4; k++) {
      TEST_CHECK (!gr[k].reliable && gr[k].iterations == 0
          && memcmp (gr[k].motion.m, id.m, sizeof (id.m)) == 0,
          "%s frame %d on the GPU: reliable %d after %d Gauss-Newton steps "
          "(texture %g)", names[kind], k, gr[k].reliable, gr[k].iterations,
          gr[k].texture);
      check_agree (names[kind], k, &cr[k], &gr[k], W, H);
    }
  }
  for (k = 0; k < 4; k++)
    free (f[k]);
  free (photo_frame);
}

/* A shaky clip of n frames of w x h as grey bytes, both engines on the
 * whole sequence. */
static void
test_sequence (test_rng * rng, int w, int h, int n, int on_device,
    double *worst_truth, double *worst_large)
{
  clip_spec spec = { n, w, h, 0.8, 0.25, 20.0, 3.0, 0.02, NULL, 0, 0, 0, 0 };
  bspline_motion_params mp;
  bspline_motion_estimator *est = NULL;
  bspline_cuda_motion *gm = NULL;
  bspline_luma_frame *lf = calloc (n, sizeof (*lf));
  bspline_motion_result *cr = calloc (n, sizeof (*cr));
  bspline_motion_result *gr = calloc (n, sizeof (*gr));
  uint8_t **grey = calloc (n, sizeof (uint8_t *));
  uint8_t *rgb = malloc ((size_t) w * h * 3);
  char msg[256];
  int k, i;

  clip_make_maps (&spec, photo.width, photo.height, rng);
  for (k = 0; k < n; k++) {
    clip_render (cpu, &photo, &spec, k, rgb);
    grey[k] = malloc ((size_t) w * h);
    for (i = 0; i < w * h; i++)
      grey[k][i] = (uint8_t) lrint (0.299 * rgb[3 * i] + 0.587 *
          rgb[3 * i + 1] + 0.114 * rgb[3 * i + 2]);
    luma_frame_grey (grey[k], w, h, &lf[k]);
  }
  bspline_motion_params_init (&mp);
  TEST_CHECK (bspline_motion_estimator_new (&mp, w, h, &est, msg,
          sizeof (msg)) == BSPLINE_OK, "CPU estimator: %s", msg);
  TEST_CHECK (bspline_cuda_motion_new (-1, &mp, w, h, &gm, msg,
          sizeof (msg)) == BSPLINE_OK, "GPU estimator: %s", msg);
  if (est && gm) {
    estimate_both (est, gm, lf, n, w, h, on_device, cr, gr);
    for (k = 1; k < n; k++) {
      bspline_affine truth, inv;
      double err;

      bspline_affine_invert (&spec.maps[k - 1], &inv);
      bspline_affine_compose (&spec.maps[k], &inv, &truth);
      err = clip_map_error (&truth, &gr[k].motion, w, h);
      if (w == W) {
        *worst_truth = fmax (*worst_truth, err);
        TEST_CHECK (gr[k].reliable && err <= 0.05, "%dx%d clip frame %d: "
            "GPU error %.4f px (reliable %d)", w, h, k, err, gr[k].reliable);
      } else {
        *worst_large = fmax (*worst_large, err);
        TEST_CHECK (gr[k].reliable, "%dx%d clip frame %d: unreliable", w, h,
            k);
      }
      check_agree (w > W ? "1280x720 clip" : "grey clip", k, &cr[k], &gr[k],
          w, h);
    }
  }
  bspline_cuda_motion_free (gm);
  bspline_motion_estimator_free (est);
  for (k = 0; k < n; k++)
    free (grey[k]);
  free (grey);
  free (rgb);
  free (lf);
  free (cr);
  free (gr);
  free (spec.maps);
}

int
main (int argc, char **argv)
{
  test_rng rng;
  bspline_motion_params mp;
  bspline_motion_estimator *ests[2] = { NULL, NULL };
  bspline_cuda_motion *gms[2] = { NULL, NULL };
  double worst_sim, worst_aff, worst_obj, worst_seq = 0.0, worst_720 = 0.0;
  char msg[256];
  int model;

  if (bspline_cuda_device_count (msg, sizeof (msg)) == 0) {
    printf ("SKIP gpu-motion: %s\n", msg);
    return 77;
  }
  test_begin ("gpu-motion", &rng);
  if (argc < 2 || !clip_read_ppm (argv[1], &photo))
    return 1;
  cpu = bspline_cpu_new (0);
  for (model = 0; model < 2; model++) {
    bspline_motion_params_init (&mp);
    mp.model = model ? BSPLINE_MOTION_AFFINE : BSPLINE_MOTION_SIMILARITY;
    TEST_CHECK (bspline_motion_estimator_new (&mp, W, H, &ests[model], msg,
            sizeof (msg)) == BSPLINE_OK, "CPU estimator: %s", msg);
    TEST_CHECK (bspline_cuda_motion_new (-1, &mp, W, H, &gms[model], msg,
            sizeof (msg)) == BSPLINE_OK, "GPU estimator: %s", msg);
  }
  if (ests[0] && ests[1] && gms[0] && gms[1]) {
    test_pairs (gms, ests, &rng, 0, 0, &worst_sim);
    test_pairs (gms, ests, &rng, 1, 0, &worst_aff);
    test_pairs (gms, ests, &rng, 0, 1, &worst_obj);
    test_unreliable_and_static (gms[0], ests[0], &rng);
    test_unmeasurable (gms[0], ests[0], &rng);
    test_sequence (&rng, W, H, 12, 0, &worst_seq, &worst_720);
    test_sequence (&rng, W, H, 6, 1, &worst_seq, &worst_720);
    test_sequence (&rng, 1280, 720, 6, 1, &worst_seq, &worst_720);
  }
  for (model = 0; model < 2; model++) {
    bspline_cuda_motion_free (gms[model]);
    bspline_motion_estimator_free (ests[model]);
  }
  bspline_cpu_free (cpu);
  free (photo.rgb);
  return test_end ("GPU pair error %.4f px (similarity), %.4f (affine), "
      "%.4f (moving object), %.4f (sequences), %.4f (1280x720); GPU against "
      "CPU at most %.2e px", worst_sim, worst_aff, worst_obj, worst_seq,
      worst_720, worst_gpu_cpu);
}
