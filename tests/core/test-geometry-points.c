/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-geometry-points: bspline_geometry_map_point and _unmap_point
 * (core/geometry/geometry.c) on random geometries: sizes, reorientations,
 * borders, rotations, zooms, translations, perspective matrices, and lens
 * stages (brown and fisheye, undistorting and distorting, the camera scaled
 * with the frame), STMap stages (smooth random maps) and projection stages
 * (random projections and views; unmap in closed form).
 *
 * - map_point is the sampler's map: it equals bspline_plan_map_point of
 *   the luma plane's plan (bspline_plan_new_lens with the luma grid's
 *   bspline_geometry_plane_map) bit for bit, and fails where it fails.
 * - Without a stage, unmap_point is the forward map written here from the
 *   contract (orientation, then bspline_geometry_warp): to 1e-9 px.
 * - unmap_point inverts map_point: for random output points whose input
 *   point lies in the input frame, unmap (map (u)) = u to 1e-5 px (unmap's
 *   stopping rule, 1e-9 px on the input, magnified where the output
 *   enlarges a small input); for random input points of the input frame
 *   that unmap finds, map (unmap (x)) = x to 1e-6 px; unmap finds a point
 *   for at least 95% of the input points the output frame shows (those
 *   sampled from output points), and for every one without a stage and
 *   without a perspective.
 */
#include "test-common.h"
#include "bspline-geometry.h"
#include "bspline-stage.h"
#include "bspline-stmap.h"

#define N_GEOMETRIES 300
#define N_POINTS 200

/* A smooth random STMap over a w x h frame: the identity plus a few
 * low-frequency waves of up to amp of the frame. */
static bspline_stmap *
random_stmap (test_rng * rng, int w, int h)
{
  /* the shorter side 8 to 40 samples, the other at the frame's aspect (a
   * map of one row would be constant along it: no inverse) */
  int n = test_rng_int (rng, 8, 40);
  int mw = w < h ? n : (int) lround ((double) n * w / h);
  int mh = w < h ? (int) lround ((double) n * h / w) : n;
  double a[4], f[4], amp = test_rng_range (rng, 0.0, 0.02);
  bspline_stmap *map = NULL;
  double *st;
  char msg[256];
  int i, j, k;

  for (k = 0; k < 4; k++) {
    a[k] = test_rng_range (rng, -amp, amp);
    f[k] = test_rng_range (rng, 0.5, 2.0);
  }
  st = malloc (sizeof (double) * 2 * mw * mh);
  for (j = 0; j < mh; j++)
    for (i = 0; i < mw; i++) {
      double s = (i + 0.5) / mw, t = (j + 0.5) / mh;
      double x = s + a[0] * sin (TEST_PI * f[0] * t) + a[1] * cos (TEST_PI
          * f[1] * s);
      double y = t + a[2] * sin (TEST_PI * f[2] * s) + a[3] * cos (TEST_PI
          * f[3] * t);
      st[2 * (j * mw + i)] = x;
      st[2 * (j * mw + i) + 1] = 1.0 - y;       /* t up */
    }
  if (bspline_stmap_new (st, mw, mh, &map, msg, sizeof (msg)) != BSPLINE_OK)
    TEST_CHECK (0, "bspline_stmap_new: %s", msg);
  free (st);
  return map;
}

static void
random_geometry (test_rng * rng, bspline_geometry * g, bspline_stmap ** map)
{
  int sw = test_rng_int (rng, 16, 400), sh = test_rng_int (rng, 16, 400);
  int dw = test_rng_int (rng, 16, 400), dh = test_rng_int (rng, 16, 400);
  int stage = test_rng_int (rng, 0, 4), k;

  bspline_geometry_init (g, sw, sh, dw, dh);
  g->orientation = stage == 4 ? BSPLINE_ORIENT_IDENTITY :
      (bspline_orientation) test_rng_int (rng, 0, 7);
  if (test_rng_uniform (rng) < 0.3) {
    g->rect_x = test_rng_range (rng, 0.0, dw / 4.0);
    g->rect_y = test_rng_range (rng, 0.0, dh / 4.0);
    g->rect_width = dw - 2.0 * g->rect_x;
    g->rect_height = dh - 2.0 * g->rect_y;
  }
  g->pivot_x = test_rng_uniform (rng);
  g->pivot_y = test_rng_uniform (rng);
  if (test_rng_uniform (rng) < 0.3) {
    g->use_matrix = 1;
    g->matrix[0] = test_rng_range (rng, 0.7, 1.4);
    g->matrix[1] = test_rng_range (rng, -0.3, 0.3);
    g->matrix[2] = test_rng_range (rng, -20.0, 20.0);
    g->matrix[3] = test_rng_range (rng, -0.3, 0.3);
    g->matrix[4] = test_rng_range (rng, 0.7, 1.4);
    g->matrix[5] = test_rng_range (rng, -20.0, 20.0);
    g->matrix[6] = test_rng_range (rng, -1e-3, 1e-3);
    g->matrix[7] = test_rng_range (rng, -1e-3, 1e-3);
    g->matrix[8] = 1.0;
  } else {
    g->rotation = test_rng_range (rng, -180.0, 180.0);
    g->zoom = test_rng_range (rng, 0.5, 2.0);
    g->translate_x = test_rng_range (rng, -20.0, 20.0);
    g->translate_y = test_rng_range (rng, -20.0, 20.0);
  }
  *map = NULL;
  if (stage == 1 || stage == 2) {
    double f = test_rng_range (rng, 0.6, 1.5) * (sw > sh ? sw : sh);
    g->lens_model = stage == 1 ? BSPLINE_LENS_BROWN : BSPLINE_LENS_FISHEYE;
    g->lens_distort = test_rng_int (rng, 0, 1);
    g->camera[0] = f;
    g->camera[1] = f * test_rng_range (rng, 0.95, 1.05);
    g->camera[2] = (sw - 1) / 2.0 + test_rng_range (rng, -5.0, 5.0);
    g->camera[3] = (sh - 1) / 2.0 + test_rng_range (rng, -5.0, 5.0);
    if (stage == 1) {
      g->n_distortion = 5;
      g->distortion[0] = test_rng_range (rng, -0.25, 0.2);
      g->distortion[1] = test_rng_range (rng, -0.05, 0.05);
      g->distortion[2] = test_rng_range (rng, -0.005, 0.005);
      g->distortion[3] = test_rng_range (rng, -0.005, 0.005);
      g->distortion[4] = 0.0;
    } else {
      g->n_distortion = 4;
      for (k = 0; k < 4; k++)
        g->distortion[k] = test_rng_range (rng, -0.05, 0.05);
    }
  } else if (stage == 3) {
    *map = random_stmap (rng, sw, sh);
    g->lens_model = BSPLINE_LENS_STMAP;
    g->stmap = *map;
  } else if (stage == 4) {
    /* a projection stage: any input, an output that shows each
     * direction once (not eac's pads nor dfisheye's overlap), the
     * projections' default fields of view, a random view */
    g->projection_set = 1;
    bspline_projection_params_init (&g->projection);
    g->projection.in = test_rng_int (rng, 0, BSPLINE_PROJECTION_COUNT - 1);
    do
      g->projection.out = test_rng_int (rng, 0, BSPLINE_PROJECTION_COUNT - 1);
    while (g->projection.out == BSPLINE_PROJECTION_EAC
        || g->projection.out == BSPLINE_PROJECTION_DUAL_FISHEYE);
    g->projection.yaw = test_rng_range (rng, -180.0, 180.0);
    g->projection.pitch = test_rng_range (rng, -90.0, 90.0);
    g->projection.roll = test_rng_range (rng, -180.0, 180.0);
  }
}

/* The contract's forward map without a stage: input -> reoriented input
 * (the orientation's matrix) -> output (the warp). */
static void
forward_point (const bspline_geometry * g, double x, double y, double *u,
    double *v)
{
  double warp[9], orient[9], f[9], w;

  bspline_geometry_warp (g, warp, NULL, 0);
  bspline_orientation_matrix (g->orientation, g->src_width, g->src_height,
      orient);
  bspline_matrix_multiply (warp, orient, f);
  w = f[6] * x + f[7] * y + f[8];
  *u = (f[0] * x + f[1] * y + f[2]) / w;
  *v = (f[3] * x + f[4] * y + f[5]) / w;
}

int
main (void)
{
  test_rng rng;
  double worst_out = 0.0, worst_in = 0.0, worst_plain = 0.0;
  long n_geometries = 0, n_refused = 0, n_shown = 0, n_found = 0;
  int gi;

  test_begin ("test-geometry-points", &rng);
  for (gi = 0; gi < N_GEOMETRIES; gi++) {
    bspline_geometry g;
    bspline_geometry_points points;
    bspline_plane_grid luma = { 1, 1, 0.0, 0.0 };
    bspline_params params;
    bspline_plan *plan = NULL;
    bspline_stmap *map;
    bspline_lens lens;
    double inverse[9];
    char msg[256] = "";
    int i;

    random_geometry (&rng, &g, &map);
    if (bspline_geometry_points_init (&g, &points, msg, sizeof (msg))
        != BSPLINE_OK) {
      /* a lens that folds inside the frame: the plan must refuse it too */
      bspline_params_init (&params);
      TEST_CHECK (bspline_geometry_plane_map (&g, &luma, inverse, &lens, msg,
              sizeof (msg)) != BSPLINE_OK
          || bspline_plan_new_lens (&params, inverse, &lens, g.src_width,
              g.src_height, g.dst_width, g.dst_height, 1, &plan, msg,
              sizeof (msg)) != BSPLINE_OK,
          "geometry %d: points refused (%s) where a plan is made", gi, msg);
      bspline_plan_free (plan);
      bspline_stmap_unref (map);
      n_refused++;
      continue;
    }
    n_geometries++;
    bspline_params_init (&params);
    TEST_CHECK (bspline_geometry_plane_map (&g, &luma, inverse, &lens, msg,
            sizeof (msg)) == BSPLINE_OK
        && bspline_plan_new_lens (&params, inverse, &lens, g.src_width,
            g.src_height, g.dst_width, g.dst_height, 1, &plan, msg,
            sizeof (msg)) == BSPLINE_OK, "geometry %d: no plan: %s", gi, msg);

    /* output -> input -> output */
    for (i = 0; i < N_POINTS; i++) {
      double u = test_rng_range (&rng, 0.0, g.dst_width);
      double v = test_rng_range (&rng, 0.0, g.dst_height);
      double x, y, px, py, u2, v2, d;
      int found = bspline_geometry_map_point (&points, u, v, &x, &y);

      if (plan) {
        int plan_found = bspline_plan_map_point (plan, u, v, &px, &py);
        TEST_CHECK (found == plan_found && (!found || (x == px && y == py)),
            "geometry %d (stage %d): map_point (%.17g, %.17g) = %d (%.17g, "
            "%.17g), the plan's %d (%.17g, %.17g)", gi, g.lens_model, u, v,
            found, x, y, plan_found, px, py);
      }
      if (!found || x < 0.0 || y < 0.0 || x > g.src_width || y > g.src_height)
        continue;
      if (g.projection_set) {
        /* outside its own frame an output projection may show a
         * direction again (an equirect's longitudes past 180 degrees,
         * revealed by a zoom below 1): only points of its frame, whose
         * direction it shows once, go round */
        double a, b;
        if (!bspline_map_point (points.inverse, u, v, &a, &b)
            || !(fabs (a) <= 1.0 && fabs (b) <= 1.0))
          continue;
      }
      n_shown++;
      if (!bspline_geometry_unmap_point (&points, x, y, &u2, &v2))
        continue;
      n_found++;
      d = hypot (u2 - u, v2 - v);
      if (d > worst_out)
        worst_out = d;
      TEST_CHECK (d <= 1e-5, "geometry %d (stage %d, distort %d): output "
          "(%.9g, %.9g) -> input (%.9g, %.9g) -> output (%.9g, %.9g), %.3g "
          "px off", gi, g.lens_model, g.lens_distort, u, v, x, y, u2, v2, d);
    }

    /* input -> output -> input, and the contract without a stage */
    for (i = 0; i < N_POINTS; i++) {
      double x = test_rng_range (&rng, 0.0, g.src_width);
      double y = test_rng_range (&rng, 0.0, g.src_height);
      double u, v, x2, y2, d;

      if (!bspline_geometry_unmap_point (&points, x, y, &u, &v)) {
        TEST_CHECK (g.lens_model != BSPLINE_LENS_NONE || g.use_matrix
            || g.projection_set,
            "geometry %d: an affine geometry without a stage cannot unmap "
            "(%.9g, %.9g)", gi, x, y);
        continue;
      }
      TEST_CHECK (bspline_geometry_map_point (&points, u, v, &x2, &y2),
          "geometry %d: unmap gave (%.9g, %.9g), which does not map", gi, u, v);
      d = hypot (x2 - x, y2 - y);
      if (d > worst_in)
        worst_in = d;
      TEST_CHECK (d <= 1e-6, "geometry %d (stage %d, distort %d): input "
          "(%.9g, %.9g) -> output (%.9g, %.9g) -> input (%.9g, %.9g), %.3g "
          "px off", gi, g.lens_model, g.lens_distort, x, y, u, v, x2, y2, d);
      if (g.lens_model == BSPLINE_LENS_NONE && !g.projection_set) {
        double fu, fv;
        forward_point (&g, x, y, &fu, &fv);
        d = hypot (fu - u, fv - v);
        if (d > worst_plain)
          worst_plain = d;
        TEST_CHECK (d <= 1e-9 * (1.0 + fabs (fu) + fabs (fv)),
            "geometry %d: unmap (%.9g, %.9g) = (%.17g, %.17g), the "
            "contract's forward map (%.17g, %.17g)", gi, x, y, u, v, fu, fv);
      }
    }
    bspline_plan_free (plan);
    bspline_stmap_unref (map);
  }
  TEST_CHECK (n_geometries >= N_GEOMETRIES / 2, "only %ld of %d geometries "
      "could be prepared", n_geometries, N_GEOMETRIES);
  TEST_CHECK (n_found >= 0.95 * n_shown, "unmap found %ld of the %ld input "
      "points that output points show", n_found, n_shown);
  return test_end ("%ld geometries (%ld refused), output round trips %.3g "
      "px, input round trips %.3g px, %ld of %ld shown points unmapped, "
      "without a stage against the contract %.3g px", n_geometries,
      n_refused, worst_out, worst_in, n_found, n_shown, worst_plain);
}
