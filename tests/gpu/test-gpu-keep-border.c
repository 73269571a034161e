/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-gpu-keep-border.c: crop=keep-border on the GPU
 * (bspline_cuda_submit_keep_border, cuda/keep-border.cu) against the CPU
 * function (bspline_cpu_keep_border, which tests/stabilize/test-keep-border.c
 * holds to the per-pixel rule).
 *
 * Each case runs a sequence of four frames through one plan, the
 * previous frame kept in device memory as bsplinestabilize keeps it:
 *   0. no previous frame: the output is the plain resampling, and the
 *      device copy takes it;
 *   1. the device copy as the previous frame;
 *   2. a previous frame copied up from host memory (one that went out
 *      from the CPU);
 *   3. the device copy again, now frame 2's output.
 * The expected output of each frame is the GPU's plain resampling
 * (bspline_cuda_submit_placed, the same plan) with the CPU's keep-border
 * applied, from the previous frame's expected output: the same bytes for
 * a homography.  With a lens stage, the device's atan, tan and sqrt may
 * round differently from the host's, and a pixel whose point lies within
 * 1e-9 pixel of the input plane's edge may go the other way; any other
 * difference fails.
 *
 * Cases: similarities, multiples of 90 degrees, whole and half pixel
 * shifts (centres exactly on the edges), perspective maps whose horizon
 * crosses the frame, input planes larger and smaller than the output,
 * planes of one pixel in width or height; U8, U16, F32 and F64 samples
 * with 1 to 4 channels; brown and fisheye lens stages.  Then a failed
 * device allocation (BSPLINE_CUDA_FAULT=alloc:1) is NULL with CUDA's
 * error.  Skips (exit 77) where there is no GPU. */
#include "test-common.h"
#include "bspline-cuda.h"
#include "bspline-geometry.h"
#include "bspline-keep-border.h"

typedef struct
{
  int width, height, in_width, in_height, channels;
  bspline_sample_type type;
  double m[9];
  bspline_lens lens;            /* model NONE: none */
  const char *what;
} kb_case;

static void
image_make (bspline_image * img, int width, int height, int channels,
    bspline_sample_type type, int extra)
{
  memset (img, 0, sizeof (*img));
  img->width = width;
  img->height = height;
  img->channels = channels;
  img->type = type;
  img->bits = type == BSPLINE_SAMPLE_U16 ? 16 : 8;
  img->stride = (ptrdiff_t) (width * channels * bspline_sample_size (type))
      + extra;
  img->data = calloc (1, (size_t) img->stride * height);
  if (!img->data) {
    fprintf (stderr, "out of memory\n");
    exit (1);
  }
}

/* Random samples in the type's range (floats of code values). */
static void
image_fill (test_rng * rng, bspline_image * img)
{
  int u, v;
  for (v = 0; v < img->height; v++) {
    unsigned char *row = (unsigned char *) img->data + v * img->stride;
    for (u = 0; u < img->width * img->channels; u++) {
      double value = test_rng_range (rng, 0.0, 255.0);
      switch (img->type) {
        case BSPLINE_SAMPLE_U8:
          row[u] = (unsigned char) value;
          break;
        case BSPLINE_SAMPLE_U16:
          ((uint16_t *) row)[u] = (uint16_t) (value * 257.0);
          break;
        case BSPLINE_SAMPLE_F32:
          ((float *) row)[u] = (float) value;
          break;
        default:
          ((double *) row)[u] = value;
          break;
      }
    }
  }
}

static void
image_copy (bspline_image * to, const bspline_image * from)
{
  size_t row = (size_t) from->width * from->channels *
      bspline_sample_size (from->type);
  int v;
  for (v = 0; v < from->height; v++)
    memcpy ((char *) to->data + v * to->stride,
        (const char *) from->data + v * from->stride, row);
}

static void
draw_case (test_rng * rng, kb_case * c, int with_lens)
{
  int pick = test_rng_int (rng, 0, 9);
  int kind = test_rng_int (rng, 0, 3);

  memset (c, 0, sizeof (*c));
  c->width = pick == 0 ? 1 : test_rng_int (rng, 2, 200);
  c->height = pick == 1 ? 1 : test_rng_int (rng, 2, 150);
  if (pick == 2)
    c->width = test_rng_int (rng, 1000, 1920);
  c->in_width = c->width;
  c->in_height = c->height;
  if (test_rng_int (rng, 0, 4) == 0) {
    c->in_width = test_rng_int (rng, 1, 2 * c->width + 2);
    c->in_height = test_rng_int (rng, 1, 2 * c->height + 2);
  }
  c->channels = test_rng_int (rng, 1, 4);
  c->type = test_rng_int (rng, 0, 3);
  if (with_lens) {
    bspline_plane_grid grid = { 1, 1, 0.0, 0.0 };
    bspline_geometry g;
    char msg[256];
    int model = test_rng_int (rng, BSPLINE_LENS_BROWN, BSPLINE_LENS_FISHEYE);

    c->width = c->in_width = test_rng_int (rng, 16, 320);
    c->height = c->in_height = test_rng_int (rng, 16, 240);
    bspline_geometry_init (&g, c->width, c->height, c->width, c->height);
    g.rotation = test_rng_range (rng, -8.0, 8.0);
    g.translate_x = test_rng_range (rng, -0.1, 0.1) * c->width;
    g.translate_y = test_rng_range (rng, -0.1, 0.1) * c->height;
    g.zoom = test_rng_range (rng, 0.9, 1.1);
    g.lens_model = model;
    g.lens_distort = test_rng_int (rng, 0, 2) == 0;
    g.lens_fill_fold = 1;
    g.camera[0] = c->width * test_rng_range (rng, 0.6, 1.2);
    g.camera[1] = g.camera[0] * test_rng_range (rng, 0.95, 1.05);
    g.camera[2] = c->width / 2.0 - 0.5;
    g.camera[3] = c->height / 2.0 - 0.5;
    g.n_distortion = 4;
    g.distortion[0] = model == BSPLINE_LENS_BROWN ?
        test_rng_range (rng, -0.3, 0.1) : test_rng_range (rng, -0.02, 0.02);
    g.distortion[1] = test_rng_range (rng, -0.01, 0.01);
    c->what = model == BSPLINE_LENS_BROWN ? "brown" : "fisheye";
    if (bspline_geometry_plane_map (&g, &grid, c->m, &c->lens, msg,
            sizeof (msg)) != BSPLINE_OK)
      draw_case (rng, c, with_lens);
    return;
  }
  switch (kind) {
    case 0:
      c->what = "similarity";
      test_similarity_matrix (c->m, test_rng_range (rng, -TEST_PI, TEST_PI),
          test_rng_range (rng, 0.7, 1.5), test_rng_range (rng, -20, 20),
          test_rng_range (rng, -20, 20), c->width / 2.0, c->height / 2.0);
      break;
    case 1:
      c->what = "multiple of 90 degrees, half pixels";
      test_similarity_matrix (c->m, test_rng_int (rng, -4, 4) * TEST_PI / 2, 1.0,
          test_rng_int (rng, -20, 20) * 0.5, test_rng_int (rng, -20, 20) * 0.5,
          c->width / 2.0, c->height / 2.0);
      break;
    case 2:
      c->what = "whole and half pixel shifts";
      test_similarity_matrix (c->m, 0.0, 1.0, test_rng_int (rng, -8, 8) * 0.5,
          test_rng_int (rng, -8, 8) * 0.5, 0.0, 0.0);
      break;
    default:
      c->what = "perspective";
      test_similarity_matrix (c->m, test_rng_range (rng, -0.3, 0.3),
          test_rng_range (rng, 0.8, 1.2), test_rng_range (rng, -10, 10),
          test_rng_range (rng, -10, 10), c->width / 2.0, c->height / 2.0);
      c->m[6] = test_rng_range (rng, -2.0, 2.0) / (c->width + 1);
      c->m[7] = test_rng_range (rng, -2.0, 2.0) / (c->height + 1);
      c->m[8] = test_rng_range (rng, 0.2, 1.5);
      break;
  }
}

/* Pixels where got and want differ: those the lens stage may decide
 * otherwise (tolerated, counted) and the others (failures). */
static long tolerated;

static int
compare (const kb_case * c, const bspline_image * got,
    const bspline_image * want, int frame)
{
  size_t pixel = (size_t) got->channels * bspline_sample_size (got->type);
  const bspline_lens *lens = c->lens.model != BSPLINE_LENS_NONE ?
      &c->lens : NULL;
  int u, v, bad = 0;

  for (v = 0; v < got->height; v++)
    for (u = 0; u < got->width; u++) {
      double x, y, edge;
      if (memcmp ((const char *) got->data + v * got->stride + u * pixel,
              (const char *) want->data + v * want->stride + u * pixel,
              pixel) == 0)
        continue;
      if (lens && bspline_stage_map_point (c->m, lens, 1, u + 0.5, v + 0.5,
              &x, &y)) {
        edge = fmin (fmin (fabs (x), fabs (x - c->in_width)),
            fmin (fabs (y), fabs (y - c->in_height)));
        if (edge < 1e-9) {
          tolerated++;
          continue;
        }
      }
      if (bad++ == 0)
        test_fail_at (__FILE__, __LINE__, "%s, %dx%d (input %dx%d) type %d "
            "x%d, frame %d: pixel (%d, %d) differs; m = [%.17g %.17g "
            "%.17g; %.17g %.17g %.17g; %.17g %.17g %.17g]", c->what,
            c->width, c->height, c->in_width, c->in_height, (int) c->type,
            c->channels, frame, u, v, c->m[0], c->m[1], c->m[2], c->m[3],
            c->m[4], c->m[5], c->m[6], c->m[7], c->m[8]);
    }
  return bad == 0;
}

static long pixels_kept, pixels_total;

/* The four frames of a case (see the top); 0 where a lens case's plan is
 * refused (its frame reaches past the lens's fold: drawn again). */
static int
run_case (bspline_cuda * cuda, bspline_cpu * cpu, test_rng * rng,
    const kb_case * c)
{
  bspline_params params;
  bspline_plan *plan = NULL;
  bspline_image src, plain, got, want, host_prev;
  bspline_cuda_keep_border kb;
  size_t pitch = ((size_t) c->width * c->channels *
      bspline_sample_size (c->type) + 255) / 256 * 256;
  void *device_prev = bspline_cuda_device_alloc (cuda, pitch * c->height);
  char msg[256];
  int frame, slot, u, v;

  bspline_params_init (&params);
  params.boundary = BSPLINE_BOUNDARY_CONSTANT;
  params.antialias = BSPLINE_ANTIALIAS_NONE;
  TEST_CHECK (device_prev != NULL, "device allocation: %s",
      bspline_cuda_last_error (cuda));
  if (bspline_plan_new_lens (&params, c->m, &c->lens, c->in_width,
          c->in_height, c->width, c->height, c->channels, &plan, msg,
          sizeof (msg)) != BSPLINE_OK) {
    if (c->lens.model == BSPLINE_LENS_NONE)
      test_fail_at (__FILE__, __LINE__, "%s: no plan: %s", c->what, msg);
    bspline_cuda_device_free (cuda, device_prev);
    return c->lens.model == BSPLINE_LENS_NONE;
  }
  image_make (&src, c->in_width, c->in_height, c->channels, c->type, 0);
  image_make (&plain, c->width, c->height, c->channels, c->type, 8);
  image_make (&got, c->width, c->height, c->channels, c->type, 0);
  image_make (&want, c->width, c->height, c->channels, c->type, 16);
  image_make (&host_prev, c->width, c->height, c->channels, c->type, 24);
  memset (&kb, 0, sizeof (kb));
  kb.inverse = c->m;
  kb.lens = &c->lens;
  kb.in_width = c->in_width;
  kb.in_height = c->in_height;
  kb.previous = device_prev;
  kb.previous_pitch = pitch;
  for (frame = 0; frame < 4 && device_prev; frame++) {
    bspline_status st;

    image_fill (rng, &src);
    /* the plain resampling of this frame on the GPU */
    st = bspline_cuda_submit_placed (cuda, plan, &src, 0, &plain, 0, &slot);
    if (st == BSPLINE_OK)
      st = bspline_cuda_finish (cuda, slot);
    TEST_CHECK (st == BSPLINE_OK, "plain: %s", bspline_cuda_last_error (cuda));
    kb.have_previous = frame > 0;
    kb.upload = NULL;
    if (frame == 2) {
      image_fill (rng, &host_prev);
      kb.upload = &host_prev;
      image_copy (&want, &host_prev);
    }
    /* want holds the previous frame's output: the expected one is the
     * plain resampling with the CPU's keep-border from it */
    if (frame == 0) {
      image_copy (&want, &plain);
    } else {
      bspline_image previous = want, expected = plain;
      previous.data = malloc ((size_t) want.stride * want.height);
      memcpy (previous.data, want.data, (size_t) want.stride * want.height);
      st = bspline_cpu_keep_border (cpu, &expected, &previous, c->m,
          &c->lens, c->in_width, c->in_height);
      TEST_CHECK (st == BSPLINE_OK, "CPU keep-border refused");
      image_copy (&want, &expected);
      free (previous.data);
    }
    st = bspline_cuda_submit_keep_border (cuda, plan, &src, 0, &got, 0, &kb,
        &slot);
    if (st == BSPLINE_OK)
      st = bspline_cuda_finish (cuda, slot);
    TEST_CHECK (st == BSPLINE_OK, "keep-border: %s",
        bspline_cuda_last_error (cuda));
    if (st != BSPLINE_OK || !compare (c, &got, &want, frame))
      break;
    for (v = 0; v < c->height; v++)
      for (u = 0; u < c->width; u++) {
        pixels_total++;
        pixels_kept += bspline_keep_border_outside (c->m,
            c->lens.model != BSPLINE_LENS_NONE ? &c->lens : NULL, u, v,
            c->in_width, c->in_height);
      }
    /* the GPU's output is the next frame's previous */
    image_copy (&want, &got);
  }
  bspline_cuda_device_free (cuda, device_prev);
  bspline_plan_free (plan);
  free (src.data);
  free (plain.data);
  free (got.data);
  free (want.data);
  free (host_prev.data);
  return 1;
}

int
main (void)
{
  test_rng rng;
  char msg[512];
  bspline_cuda *cuda = NULL, *faulty = NULL;
  bspline_cpu *cpu;
  /* BSPLINE_TEST_CASES=N: fewer cases (under compute-sanitizer) */
  int n, n_cases = getenv ("BSPLINE_TEST_CASES") ?
      atoi (getenv ("BSPLINE_TEST_CASES")) : 400;

  test_begin ("test-gpu-keep-border", &rng);
  /* every run of a plan evaluates its lens stage (a plan's second run in
   * a slot would read its points from the lens table, within 2^-21 pixel
   * of them: the plain run and the keep-border run of a frame would
   * differ) */
  setenv ("BSPLINE_CUDA_LENS_TABLE", "0", 1);
  if (bspline_cuda_device_count (msg, sizeof (msg)) == 0) {
    printf ("SKIP: %s\n", msg);
    return 77;
  }
  if (bspline_cuda_new (-1, &cuda, msg, sizeof (msg)) != BSPLINE_OK) {
    printf ("FAIL: cannot create the CUDA engine: %s\n", msg);
    return 1;
  }
  printf ("device: %s\n", bspline_cuda_device_name (cuda));
  cpu = bspline_cpu_new (0);
  if (n_cases < 4)
    n_cases = 4;
  for (n = 0; n < n_cases; n++) {
    kb_case c;
    do
      draw_case (&rng, &c, n >= n_cases * 3 / 4);
    while (!run_case (cuda, cpu, &rng, &c));
  }
  TEST_CHECK (pixels_kept > pixels_total / 50 && pixels_kept <
      pixels_total * 49 / 50, "%ld of %ld pixels kept: too few cases test "
      "the border", pixels_kept, pixels_total);

  setenv ("BSPLINE_CUDA_FAULT", "alloc:1", 1);
  if (bspline_cuda_new (-1, &faulty, msg, sizeof (msg)) == BSPLINE_OK) {
    void *p = bspline_cuda_device_alloc (faulty, 1 << 20);
    TEST_CHECK (p == NULL && strstr (bspline_cuda_last_error (faulty),
            "cudaErrorMemoryAllocation") != NULL,
        "an injected allocation failure: %p, \"%s\"", p,
        bspline_cuda_last_error (faulty));
    bspline_cuda_device_free (faulty, p);
    bspline_cuda_free (faulty);
  }
  unsetenv ("BSPLINE_CUDA_FAULT");
  bspline_cuda_free (cuda);
  bspline_cpu_free (cpu);
  return test_end ("%d cases of 4 frames (%d with a lens stage): %ld "
      "pixels, %ld kept, %ld differing within 1e-9 px of an edge (lens)",
      n_cases, n_cases - n_cases * 3 / 4, pixels_total, pixels_kept, tolerated);
}
