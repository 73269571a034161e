/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-keep-border.c: bspline_cpu_keep_border
 * (core/stabilize/keep-border.c), the keep-border composition of
 * bsplinestabilize, against the per-pixel rule it replaces
 * (reference_keep_border below, the element's loop as it was: every output
 * pixel centre through the inverse homography and the lens stage, the
 * previous frame's pixel where the point is missing or outside the input
 * plane).  The outputs must be the same bytes, the bytes between rows
 * (stride padding) untouched:
 *
 *  - random homographies: similarities (any angle, multiples of 90
 *    degrees computed with their rounding), affine maps, perspective maps
 *    whose horizon crosses the frame, matrices with huge or tiny entries;
 *  - edges met exactly: translations by whole and half pixels, so that
 *    pixel centres land on x = 0, x = w, y = 0, y = h; a horizon (W = 0)
 *    through pixel centres; near-degenerate rows (rotations by 1e-13);
 *  - planes of 1 x n, n x 1 and 1 x 1 pixels, input planes larger and
 *    smaller than the output;
 *  - every sample type with 1 to 4 channels;
 *  - brown and fisheye lens stages, both directions, after a random
 *    correction (bspline_geometry_plane_map), on 1 and 3 threads;
 *  - bad arguments are refused.
 *
 * Last, the time of both at 1080p (printed, not asserted).
 *
 * Usage: test-keep-border  (BSPLINE_TEST_SEED=N repeats a run) */
#include "test-common.h"
#include "bspline-geometry.h"
#include "bspline-keep-border.h"

/* The element's per-pixel loop before the closed form, with the input
 * plane's size given. */
static void
reference_keep_border (const bspline_image * dst,
    const bspline_image * previous, const double inverse[9],
    const bspline_lens * lens, int in_width, int in_height)
{
  const bspline_lens *stage = lens && lens->model != BSPLINE_LENS_NONE ?
      lens : NULL;
  size_t pixel = (size_t) dst->channels * bspline_sample_size (dst->type);
  int u, v;

  for (v = 0; v < dst->height; v++) {
    unsigned char *out = (unsigned char *) dst->data + (ptrdiff_t) v *
        dst->stride;
    const unsigned char *prev = (const unsigned char *) previous->data +
        (ptrdiff_t) v * previous->stride;
    double y = v + 0.5;

    for (u = 0; u < dst->width; u++) {
      double px, py;

      if (!bspline_stage_map_point (inverse, stage, stage != NULL, u + 0.5,
              y, &px, &py)
          || px < 0.0 || py < 0.0 || px > in_width || py > in_height)
        memcpy (out + u * pixel, prev + u * pixel, pixel);
    }
  }
}

typedef struct
{
  bspline_image dst, ref, prev;
  size_t size;
} planes;

static void
planes_make (test_rng * rng, planes * p, int width, int height, int channels,
    bspline_sample_type type)
{
  size_t row = (size_t) width * channels * bspline_sample_size (type);
  ptrdiff_t stride = (ptrdiff_t) row + test_rng_int (rng, 0, 2) * 8;
  size_t i;

  memset (p, 0, sizeof (*p));
  p->dst.width = width;
  p->dst.height = height;
  p->dst.channels = channels;
  p->dst.type = type;
  p->dst.bits = type == BSPLINE_SAMPLE_U16 ? 16 : 8;
  p->dst.stride = stride;
  p->size = (size_t) stride *height;
  p->ref = p->dst;
  p->prev = p->dst;
  p->prev.stride = (ptrdiff_t) row + test_rng_int (rng, 0, 1) * 16;
  p->dst.data = malloc (p->size);
  p->ref.data = malloc (p->size);
  p->prev.data = malloc ((size_t) p->prev.stride * height);
  if (!p->dst.data || !p->ref.data || !p->prev.data) {
    fprintf (stderr, "out of memory\n");
    exit (1);
  }
  for (i = 0; i < p->size; i++)
    ((unsigned char *) p->dst.data)[i] = (unsigned char) test_rng_u64 (rng);
  memcpy (p->ref.data, p->dst.data, p->size);
  for (i = 0; i < (size_t) p->prev.stride * height; i++)
    ((unsigned char *) p->prev.data)[i] = (unsigned char) test_rng_u64 (rng);
}

static void
planes_free (planes * p)
{
  free (p->dst.data);
  free (p->ref.data);
  free (p->prev.data);
}

/* Pixels the rule keeps, and how many of them sit exactly on an edge of
 * the input plane (a centre at x = 0, w or y = 0, h: inside). */
static long kept_pixels, edge_pixels, total_pixels;

static void
count_rule (const planes * p, const double *m, const bspline_lens * lens,
    int in_width, int in_height)
{
  int u, v;
  for (v = 0; v < p->dst.height; v++)
    for (u = 0; u < p->dst.width; u++) {
      double x, y;
      int found = bspline_stage_map_point (m, lens, lens != NULL, u + 0.5,
          v + 0.5, &x, &y);
      total_pixels++;
      if (bspline_keep_border_outside (m, lens, u, v, in_width, in_height))
        kept_pixels++;
      else if (found && (x == 0.0 || y == 0.0 || x == in_width
              || y == in_height))
        edge_pixels++;
    }
}

/* Runs both on a fresh pair of planes and compares every byte. */
static void
check_case (test_rng * rng, bspline_cpu * cpu, const char *what,
    const double *m, const bspline_lens * lens, int width, int height,
    int in_width, int in_height)
{
  static const char *const type_names[] = { "U8", "U16", "F32", "F64" };
  const bspline_sample_type type = test_rng_int (rng, 0, 3);
  const int channels = test_rng_int (rng, 1, 4);
  bspline_status status;
  planes p;

  planes_make (rng, &p, width, height, channels, type);
  reference_keep_border (&p.ref, &p.prev, m, lens, in_width, in_height);
  status = bspline_cpu_keep_border (cpu, &p.dst, &p.prev, m, lens, in_width,
      in_height);
  count_rule (&p, m, lens && lens->model != BSPLINE_LENS_NONE ? lens : NULL,
      in_width, in_height);
  TEST_CHECK (status == BSPLINE_OK, "%s: status %d", what, status);
  if (memcmp (p.dst.data, p.ref.data, p.size) != 0) {
    size_t i;
    for (i = 0; i < p.size; i++)
      if (((unsigned char *) p.dst.data)[i] !=
          ((unsigned char *) p.ref.data)[i])
        break;
    test_fail_at (__FILE__, __LINE__, "%s: %dx%d %s x%d (input %dx%d), "
        "m = [%.17g %.17g %.17g; %.17g %.17g %.17g; %.17g %.17g %.17g]: "
        "first different byte at row %zu, byte %zu", what, width, height,
        type_names[type], channels, in_width, in_height, m[0], m[1], m[2],
        m[3], m[4], m[5], m[6], m[7], m[8], i / (size_t) p.dst.stride,
        i % (size_t) p.dst.stride);
  }
  planes_free (&p);
}

/* A random size: mostly small, now and then one pixel wide or tall. */
static void
random_size (test_rng * rng, int *width, int *height)
{
  int pick = test_rng_int (rng, 0, 9);
  *width = pick == 0 ? 1 : test_rng_int (rng, 1, 120);
  *height = pick == 1 ? 1 : test_rng_int (rng, 1, 90);
  if (pick == 2)
    *width = *height = 1;
}

static void
check_homographies (test_rng * rng, bspline_cpu * cpu, int n_cases)
{
  int n;

  for (n = 0; n < n_cases; n++) {
    int width, height, in_width, in_height, kind = test_rng_int (rng, 0, 7);
    double m[9];
    const char *what;
    int k;

    random_size (rng, &width, &height);
    in_width = width;
    in_height = height;
    if (test_rng_int (rng, 0, 4) == 0) {
      in_width = test_rng_int (rng, 1, 2 * width + 2);
      in_height = test_rng_int (rng, 1, 2 * height + 2);
    }
    switch (kind) {
      case 0:
        what = "similarity";
        test_similarity_matrix (m, test_rng_range (rng, -TEST_PI, TEST_PI),
            test_rng_range (rng, 0.5, 2.0), test_rng_range (rng, -30, 30),
            test_rng_range (rng, -30, 30), width / 2.0, height / 2.0);
        break;
      case 1:
        what = "multiple of 90 degrees";
        test_similarity_matrix (m, test_rng_int (rng, -4, 4) * TEST_PI / 2,
            test_rng_int (rng, 0, 1) ? 1.0 : 2.0,
            test_rng_int (rng, -20, 20) * 0.5,
            test_rng_int (rng, -20, 20) * 0.5, width / 2.0, height / 2.0);
        break;
      case 2:
        what = "whole and half pixel shifts";
        memset (m, 0, sizeof (m));
        m[0] = test_rng_int (rng, 0, 3) == 0 ? 2.0 : 1.0;
        m[4] = test_rng_int (rng, 0, 3) == 0 ? 0.5 : 1.0;
        m[2] = test_rng_int (rng, -2 * width - 2, 2 * width + 2) * 0.5;
        m[5] = test_rng_int (rng, -2 * height - 2, 2 * height + 2) * 0.5;
        m[8] = 1.0;
        if (test_rng_int (rng, 0, 2) == 0) {
          /* the same map through W = 2 */
          for (k = 0; k < 9; k++)
            m[k] *= 2.0;
        }
        break;
      case 3:
        what = "perspective";
        test_similarity_matrix (m, test_rng_range (rng, -0.3, 0.3),
            test_rng_range (rng, 0.8, 1.2), test_rng_range (rng, -10, 10),
            test_rng_range (rng, -10, 10), width / 2.0, height / 2.0);
        /* a horizon that may cross the frame */
        m[6] = test_rng_range (rng, -2.0, 2.0) / (width + 1);
        m[7] = test_rng_range (rng, -2.0, 2.0) / (height + 1);
        m[8] = test_rng_range (rng, -0.5, 1.5);
        break;
      case 4:
        what = "horizon through pixel centres";
        memset (m, 0, sizeof (m));
        m[0] = 1.0;
        m[4] = 1.0;
        m[2] = test_rng_int (rng, -4, 4) * 0.5;
        m[5] = test_rng_int (rng, -4, 4) * 0.5;
        if (test_rng_int (rng, 0, 1)) {
          m[7] = 1.0;
          m[8] = -(test_rng_int (rng, 0, height) + 0.5);
        } else {
          m[6] = -1.0;
          m[8] = test_rng_int (rng, 0, width) + 0.5;
        }
        /* x = X / W: scale X, Y so the frame is in reach */
        m[0] *= width;
        m[4] *= height;
        break;
      case 5:
        what = "nearly axis-aligned";
        test_similarity_matrix (m, test_rng_range (rng, -1e-13, 1e-13) +
            test_rng_int (rng, 0, 3) * TEST_PI / 2, 1.0,
            test_rng_int (rng, -8, 8) * 0.5, test_rng_int (rng, -8, 8) * 0.5,
            width / 2.0, height / 2.0);
        break;
      case 6:
        what = "huge or tiny entries";
        for (k = 0; k < 9; k++)
          m[k] = test_rng_range (rng, -1.0, 1.0);
        k = test_rng_int (rng, 0, 8);
        m[k] *= test_rng_int (rng, 0, 1) ? 1e150 : 1e-250;
        if (test_rng_int (rng, 0, 1))
          for (k = 0; k < 9; k++)
            m[k] *= 1e-230;
        break;
      default:
        what = "random affine";
        for (k = 0; k < 6; k++)
          m[k] = test_rng_range (rng, -2.0, 2.0);
        m[2] *= width;
        m[5] *= height;
        m[6] = m[7] = 0.0;
        m[8] = 1.0;
        break;
    }
    check_case (rng, cpu, what, m, NULL, width, height, in_width, in_height);
  }
}

/* The element's geometry with a lens stage: a random correction after
 * undistorting (or before distorting) a brown or fisheye camera. */
static void
check_lenses (test_rng * rng, bspline_cpu * cpu, int n_cases)
{
  int n;

  for (n = 0; n < n_cases; n++) {
    int width = test_rng_int (rng, 8, 160), height = test_rng_int (rng, 8, 120);
    bspline_plane_grid grid = { 1, 1, 0.0, 0.0 };
    bspline_geometry g;
    bspline_lens lens;
    double m[9];
    char msg[256];
    int model = test_rng_int (rng, BSPLINE_LENS_BROWN, BSPLINE_LENS_FISHEYE);

    bspline_geometry_init (&g, width, height, width, height);
    g.rotation = test_rng_range (rng, -8.0, 8.0);
    g.translate_x = test_rng_range (rng, -0.1, 0.1) * width;
    g.translate_y = test_rng_range (rng, -0.1, 0.1) * height;
    g.zoom = test_rng_range (rng, 0.9, 1.1);
    g.lens_model = model;
    g.lens_distort = test_rng_int (rng, 0, 2) == 0;
    g.lens_fill_fold = 1;
    g.camera[0] = width * test_rng_range (rng, 0.6, 1.2);
    g.camera[1] = g.camera[0] * test_rng_range (rng, 0.95, 1.05);
    g.camera[2] = width / 2.0 - 0.5;
    g.camera[3] = height / 2.0 - 0.5;
    g.n_distortion = 4;
    if (model == BSPLINE_LENS_BROWN) {
      g.distortion[0] = test_rng_range (rng, -0.3, 0.1);
      g.distortion[1] = test_rng_range (rng, -0.03, 0.03);
    } else {
      g.distortion[0] = test_rng_range (rng, -0.02, 0.02);
      g.distortion[1] = test_rng_range (rng, -0.01, 0.01);
    }
    if (bspline_geometry_plane_map (&g, &grid, m, &lens, msg,
            sizeof (msg)) != BSPLINE_OK) {
      n--;
      continue;
    }
    check_case (rng, cpu, model == BSPLINE_LENS_BROWN ? "brown" : "fisheye",
        m, &lens, width, height, width, height);
  }
}

static void
check_bad_arguments (bspline_cpu * cpu)
{
  static const double id[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
  unsigned char a[16], b[16];
  bspline_image dst = { a, 4, 4, 4, 1, BSPLINE_SAMPLE_U8, 8, 0 };
  bspline_image prev = { b, 4, 4, 4, 1, BSPLINE_SAMPLE_U8, 8, 0 };

  TEST_CHECK (bspline_cpu_keep_border (cpu, &dst, &prev, id, NULL, 4, 4)
      == BSPLINE_OK, "a good call is refused");
  TEST_CHECK (bspline_cpu_keep_border (cpu, NULL, &prev, id, NULL, 4, 4)
      == BSPLINE_ERROR_INVALID_ARGUMENT, "no dst");
  TEST_CHECK (bspline_cpu_keep_border (cpu, &dst, &prev, NULL, NULL, 4, 4)
      == BSPLINE_ERROR_INVALID_ARGUMENT, "no matrix");
  prev.width = 3;
  TEST_CHECK (bspline_cpu_keep_border (cpu, &dst, &prev, id, NULL, 4, 4)
      == BSPLINE_ERROR_INVALID_ARGUMENT, "previous of another size");
  prev.width = 4;
  prev.channels = 2;
  prev.stride = 8;
  TEST_CHECK (bspline_cpu_keep_border (cpu, &dst, &prev, id, NULL, 4, 4)
      == BSPLINE_ERROR_INVALID_ARGUMENT, "previous of other channels");
  prev.channels = 1;
  prev.stride = 4;
  dst.stride = 3;
  TEST_CHECK (bspline_cpu_keep_border (cpu, &dst, &prev, id, NULL, 4, 4)
      == BSPLINE_ERROR_INVALID_ARGUMENT, "stride shorter than a row");
  dst.stride = 4;
  TEST_CHECK (bspline_cpu_keep_border (cpu, &dst, &prev, id, NULL, -1, 4)
      == BSPLINE_ERROR_INVALID_ARGUMENT, "negative input width");
}

static double
now_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* 1080p GRAY8, a correction of 2 degrees and 20 pixels: both timed. */
static void
time_1080p (test_rng * rng, bspline_cpu * cpu)
{
  planes p;
  double m[9], t0, t_ref, t_new;
  int i, runs = 20;

  planes_make (rng, &p, 1920, 1080, 1, BSPLINE_SAMPLE_U8);
  test_similarity_matrix (m, 2.0 * TEST_PI / 180, 1.0, 20.0, -12.0, 960.0, 540.0);
  t0 = now_ms ();
  for (i = 0; i < runs; i++)
    reference_keep_border (&p.ref, &p.prev, m, NULL, 1920, 1080);
  t_ref = (now_ms () - t0) / runs;
  t0 = now_ms ();
  for (i = 0; i < runs; i++)
    bspline_cpu_keep_border (cpu, &p.dst, &p.prev, m, NULL, 1920, 1080);
  t_new = (now_ms () - t0) / runs;
  TEST_CHECK (memcmp (p.dst.data, p.ref.data, p.size) == 0,
      "1080p: different bytes");
  printf ("1080p GRAY8, 2 degrees and (20, -12) px: per-pixel rule %.3f ms, "
      "closed form %.3f ms a frame\n", t_ref, t_new);
  planes_free (&p);
}

int
main (void)
{
  test_rng rng;
  bspline_cpu *one, *three;

  test_begin ("keep-border", &rng);
  one = bspline_cpu_new (1);
  three = bspline_cpu_new (3);
  if (!one || !three) {
    fprintf (stderr, "no CPU engine\n");
    return 1;
  }
  check_bad_arguments (one);
  check_homographies (&rng, one, 6000);
  check_homographies (&rng, NULL, 500);
  check_lenses (&rng, one, 100);
  check_lenses (&rng, three, 100);
  TEST_CHECK (kept_pixels > total_pixels / 20 && kept_pixels < total_pixels
      * 19 / 20, "%ld of %ld pixels kept: the cases test too little",
      kept_pixels, total_pixels);
  TEST_CHECK (edge_pixels > 1000, "only %ld pixel centres on an edge",
      edge_pixels);
  time_1080p (&rng, one);
  bspline_cpu_free (one);
  bspline_cpu_free (three);
  return test_end ("%ld pixels in 6700 cases, %ld kept, %ld centres exactly "
      "on an edge", total_pixels, kept_pixels, edge_pixels);
}
