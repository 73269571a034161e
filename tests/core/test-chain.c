/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-chain: chains of stages composed for one plan (core/geometry/chain.c,
 * bspline_plan_new_chain).
 *
 *  - maps: random chains of up to four lens stages (brown and fisheye,
 *    undistorting and distorting, and STMaps of smooth random fields)
 *    between random homographies (similarities with a little
 *    perspective), composed (bspline_chain_compose) into a plan: the
 *    plan's point of an output point (bspline_plan_map_point) equals the
 *    chain evaluated stage by stage in double, each stage's homography
 *    then its own lens stage (bspline_stage_map_point with one lens), to
 *    1e-9 pixel; both find a point or neither does.  The folds of the
 *    reference's lens stages are the plan's (lens.c finds them for the
 *    frame the plan is made for); all else is the stage's own.
 *  - resampling: the real image (ascent) through chains of two lens
 *    stages and homographies, on the CPU engine in double without
 *    antialiasing, against the interpolant sampled (bspline_cpu_sample
 *    _points) at the plan's own points and at the stage-by-stage points:
 *    within 1e-6 of the signal range.
 *  - homographies alone: the composed matrix is the product taken in
 *    evaluation order, bit for bit, and its plan is bspline_plan_new's of
 *    that product (the separable path for a composed scaling; the same
 *    output bytes, U8 and F32); a lens stage between homographies
 *    composes as its pre and post products, the same bytes as
 *    bspline_plan_new_lens with them.
 *  - antialiasing: the Jacobian of a two-lens chain that shrinks (the
 *    chain rule through each stage's own Jacobian, bspline-stage.h) and
 *    the widening the plan computes per pixel (bspline_point_row) equal a
 *    central finite difference of the composed map to 1e-5.
 *  - errors: five lens stages, a singular or NaN homography or post,
 *    NaN and singular composed products, a stage of no model, too many
 *    lenses for a plan. */
#include "test-common.h"
#include "bspline-chain.h"
#include "bspline-stage.h"
#include "bspline-stmap.h"
#include "resample.h"

#define MAP_TOL 1e-9
#define RESAMPLE_TOL 1e-6
#define JACOBIAN_TOL 1e-5

/* ---- stages ---- */

/* A near-identity homography of a w x h frame: a rotation by up to
 * `angle` radians and a scale within 1 +- `zoom` about the centre, a
 * shift of up to 3 % of the frame and a perspective whose W stays within
 * 1 +- 0.1 over the frame (1 at its centre). */
static void
random_homography (test_rng * rng, int w, int h, double angle, double zoom,
    double m[9])
{
  double s[9], p[9];
  double g6 = test_rng_range (rng, -0.1, 0.1) / w;
  double g7 = test_rng_range (rng, -0.1, 0.1) / h;

  test_similarity_matrix (s, test_rng_range (rng, -angle, angle),
      1.0 + test_rng_range (rng, -zoom, zoom), test_rng_range (rng, -0.03,
          0.03) * w, test_rng_range (rng, -0.03, 0.03) * h, 0.5 * w, 0.5 * h);
  bspline_matrix_identity (p);
  p[6] = g6;
  p[7] = g7;
  p[8] = 1.0 - g6 * 0.5 * w - g7 * 0.5 * h;
  bspline_matrix_multiply (s, p, m);
}

/* A smooth STMap of mw x mh samples over a frame: the identity (s, t with
 * t up, bspline-stmap.h) plus waves of up to 2 % of the frame. */
static bspline_stmap *
random_stmap (test_rng * rng, int mw, int mh)
{
  const double ax = test_rng_range (rng, -0.02, 0.02);
  const double ay = test_rng_range (rng, -0.02, 0.02);
  const double fx = test_rng_range (rng, 0.5, 2.5);
  const double fy = test_rng_range (rng, 0.5, 2.5);
  const double phase = test_rng_range (rng, 0.0, 2.0 * TEST_PI);
  double *st = malloc (sizeof (double) * 2 * (size_t) mw * mh);
  bspline_stmap *map = NULL;
  char msg[256];
  int x, y;

  if (!st)
    return NULL;
  for (y = 0; y < mh; y++)
    for (x = 0; x < mw; x++) {
      const double s = (x + 0.5) / mw, t = 1.0 - (y + 0.5) / mh;
      st[2 * ((size_t) y * mw + x)] = s + ax * sin (2.0 * TEST_PI * fy * t
          + phase);
      st[2 * ((size_t) y * mw + x) + 1] = t + ay * cos (2.0 * TEST_PI * fx * s);
    }
  if (bspline_stmap_new (st, mw, mh, &map, msg, sizeof (msg)) != BSPLINE_OK) {
    TEST_CHECK (0, "stmap: %s", msg);
    map = NULL;
  }
  free (st);
  return map;
}

/* The pixel-coordinate matrix of an OpenCV camera (fx, fy, cx, cy; the
 * centre of the first pixel at 0, ours at 0.5). */
static void
camera_matrix (double f, double cx, double cy, double m[9])
{
  bspline_matrix_identity (m);
  m[0] = f;
  m[4] = f;
  m[2] = cx + 0.5;
  m[5] = cy + 0.5;
}

/* A lens or STMap stage of a w x h frame (model: brown, fisheye or stmap;
 * a map is made and *map holds it): output pixels -> the camera's
 * normalised coordinates (or map samples) -> model -> input pixels (post,
 * its camera matrix or the map's frame). */
static void
random_lens_stage (test_rng * rng, int model, int w, int h,
    bspline_stmap ** map, bspline_chain_stage * stage)
{
  bspline_lens *lens = &stage->lens;
  double out_cam[9];
  int i;

  memset (stage, 0, sizeof (*stage));
  lens->model = model;
  if (model == BSPLINE_LENS_STMAP) {
    int mw = test_rng_int (rng, 4, w), mh = (int) lround ((double) mw * h / w);
    *map = random_stmap (rng, mw, mh < 2 ? 2 : mh);
    if (!*map) {
      bspline_chain_stage_homography (stage, (const double[9]) {
            1, 0, 0, 0, 1, 0, 0, 0, 1
          });
      return;
    }
    mw = bspline_stmap_width (*map);
    mh = bspline_stmap_height (*map);
    bspline_matrix_identity (stage->inverse);
    stage->inverse[0] = (double) mw / w;
    stage->inverse[4] = (double) mh / h;
    bspline_matrix_identity (lens->post);
    lens->post[0] = w;
    lens->post[4] = h;
    lens->map = bspline_stmap_coefficients (*map, NULL);
    lens->map_w = mw;
    lens->map_h = mh;
    lens->stmap = *map;
    return;
  }
  {
    /* the fisheye's focal length longer: solved, its undistorted radius
     * tan (theta) grows fast towards the image circle (theta = 90
     * degrees), where the next stage's points would lie so far out that
     * the roundings of two evaluations decide differently whether they
     * have an image; at least 1.2 times the frame's larger side keeps a
     * chain's points well inside it */
    const double f = test_rng_range (rng, 0.8, 1.2) * (w > h ? w : h)
        * (model == BSPLINE_LENS_FISHEYE ? 1.5 : 1.0);
    const double cx = 0.5 * w - 0.5 + test_rng_range (rng, -3.0, 3.0);
    const double cy = 0.5 * h - 0.5 + test_rng_range (rng, -3.0, 3.0);
    camera_matrix (f, cx, cy, lens->post);
    camera_matrix (f * test_rng_range (rng, 0.9, 1.1), cx, cy, out_cam);
    bspline_matrix_invert (out_cam, stage->inverse);
  }
  lens->solve = test_rng_int (rng, 0, 1);
  if (model == BSPLINE_LENS_FISHEYE) {
    for (i = 0; i < 4; i++)
      lens->k[i] = test_rng_range (rng, -0.02, 0.02);
  } else {
    lens->k[0] = test_rng_range (rng, -0.15, 0.1);
    lens->k[1] = test_rng_range (rng, -0.02, 0.04);
    lens->k[2] = test_rng_range (rng, -0.002, 0.002);
    lens->k[3] = test_rng_range (rng, -0.002, 0.002);
  }
}

static const char *
model_name (int model)
{
  return bspline_lens_model_name (model);
}

/* A random chain on w x h frames of n_lenses lens stages, each with up
 * to two homographies before it, and up to two after the last; maps[]
 * takes the STMaps made (NULL elsewhere).  The description in name. */
static int
random_chain (test_rng * rng, int n_lenses, int w, int h,
    bspline_chain_stage * stages, bspline_stmap ** maps, char *name,
    size_t name_len)
{
  int n = 0, k, j, len = 0;

  name[0] = '\0';
  for (k = 0; k <= n_lenses; k++) {
    int n_h = test_rng_int (rng, 0, 2);
    for (j = 0; j < n_h; j++) {
      double m[9];
      random_homography (rng, w, h, 0.15, 0.1, m);
      bspline_chain_stage_homography (&stages[n++], m);
      len += snprintf (name + len, name_len - len, "H ");
    }
    if (k < n_lenses) {
      int model = test_rng_int (rng, 1, 3);
      maps[k] = NULL;
      random_lens_stage (rng, model, w, h, &maps[k], &stages[n]);
      len += snprintf (name + len, name_len - len, "%s%s ",
          model_name (model), model != BSPLINE_LENS_STMAP
          && stages[n].lens.solve ? "^-1" : "");
      n++;
    }
  }
  return n;
}

/* The chain evaluated stage by stage: each stage's homography, then its
 * lens stage (one lens: bspline_stage_map_point), on the result of the
 * stage before.  prepared: the plan's lens stages, whose folds the
 * reference takes. */
static int
reference_map (const bspline_chain_stage * stages, int n,
    const bspline_lens * prepared, double u, double v, double *x, double *y)
{
  int i, k = 0;

  for (i = 0; i < n; i++) {
    bspline_lens lens = stages[i].lens;
    int has = bspline_chain_stage_has_lens (&stages[i]);
    if (has) {
      lens.fold = prepared[k].fold;
      lens.fold_r = prepared[k].fold_r;
      k++;
    }
    if (!bspline_stage_map_point (stages[i].inverse, &lens, has, u, v, &u, &v))
      return 0;
  }
  *x = u;
  *y = v;
  return 1;
}

static void
free_maps (bspline_stmap ** maps, int n)
{
  int k;
  for (k = 0; k < n; k++) {
    bspline_stmap_unref (maps[k]);
    maps[k] = NULL;
  }
}

/* The composed plan of a chain (NULL where composing or planning fails,
 * with the message in msg). */
static bspline_plan *
chain_plan (const bspline_params * params, const bspline_chain_stage * stages,
    int n, int src_w, int src_h, int dst_w, int dst_h, char *msg,
    size_t msg_len)
{
  double inverse[9];
  bspline_lens lenses[BSPLINE_CHAIN_MAX_LENSES];
  int n_lenses;
  bspline_plan *plan = NULL;

  if (bspline_chain_compose (stages, n, inverse, lenses, &n_lenses, msg,
          msg_len) != BSPLINE_OK)
    return NULL;
  if (bspline_plan_new_chain (params, inverse, lenses, n_lenses, src_w,
          src_h, dst_w, dst_h, 1, &plan, msg, msg_len) != BSPLINE_OK)
    return NULL;
  return plan;
}

/* ---- maps ---- */

static void
test_maps (test_rng * rng)
{
  double worst = 0.0;
  int chains = 0, points = 0, refused = 0, trial;

  for (trial = 0; trial < 200; trial++) {
    const int w = test_rng_int (rng, 40, 320), h = test_rng_int (rng, 30, 240);
    const int n_lenses = trial % (BSPLINE_CHAIN_MAX_LENSES + 1);
    bspline_chain_stage stages[16];
    bspline_stmap *maps[BSPLINE_CHAIN_MAX_LENSES] = { NULL };
    bspline_params params;
    bspline_plan *plan;
    char name[256], msg[256];
    int n, i, mismatched = 0;

    n = random_chain (rng, n_lenses, w, h, stages, maps, name, sizeof (name));
    bspline_params_init (&params);
    params.antialias = test_rng_int (rng, 0, 1) ? BSPLINE_ANTIALIAS_NONE :
        BSPLINE_ANTIALIAS_WIDEN;
    plan = chain_plan (&params, stages, n, w, h, w, h, msg, sizeof (msg));
    if (!plan) {
      /* a model that folds over inside this frame: drawn again */
      TEST_CHECK (strstr (msg, "folds over") != NULL, "chain %s(%dx%d): %s",
          name, w, h, msg);
      refused++;
      free_maps (maps, n_lenses);
      continue;
    }
    TEST_CHECK (plan->n_lenses == n_lenses, "chain %s: %d lens stages "
        "planned", name, plan->n_lenses);
    for (i = 0; i < 400; i++) {
      double u, v, x = NAN, y = NAN, rx = NAN, ry = NAN, e;
      int found, want;
      if (i < 100) {
        u = test_rng_int (rng, 0, w - 1) + 0.5;
        v = test_rng_int (rng, 0, h - 1) + 0.5;
      } else {
        u = test_rng_range (rng, 0.0, w);
        v = test_rng_range (rng, 0.0, h);
      }
      found = bspline_plan_map_point (plan, u, v, &x, &y);
      want = reference_map (stages, n, plan->lens, u, v, &rx, &ry);
      if (found != want) {
        if (mismatched++ == 0)
          TEST_CHECK (0, "chain %s(%dx%d): output point (%.6f, %.6f): the "
              "plan %s a point, stage by stage %s", name, w, h, u, v,
              found ? "finds" : "finds no", want ? "finds one" : "none");
        continue;
      }
      if (!found)
        continue;
      e = fmax (fabs (x - rx), fabs (y - ry));
      worst = fmax (worst, e);
      TEST_CHECK (e <= MAP_TOL, "chain %s(%dx%d): output point (%.6f, "
          "%.6f): plan (%.12f, %.12f), stage by stage (%.12f, %.12f): "
          "%.3g px apart", name, w, h, u, v, x, y, rx, ry, e);
      points++;
    }
    chains++;
    bspline_plan_free (plan);
    free_maps (maps, n_lenses);
  }
  TEST_CHECK (chains >= 150, "only %d of 200 chains planned (%d refused)",
      chains, refused);
  printf ("maps: %d chains of 0-%d lens stages, %d points: the composed "
      "plan within %.3g px of the chain stage by stage (%d chains refused "
      "as folding over)\n", chains, BSPLINE_CHAIN_MAX_LENSES, points, worst,
      refused);
}

/* ---- resampling ---- */

static double
max_relative (const double *a, const double *b, size_t n, double scale)
{
  double worst = 0.0;
  size_t i;
  for (i = 0; i < n; i++) {
    double d = fabs (a[i] - b[i]);
    if (!(d <= worst))
      worst = isnan (d) ? INFINITY : d;
  }
  return worst / scale;
}

static void
test_resample (test_rng * rng, bspline_cpu * cpu, const bspline_image * src,
    const double range[2])
{
  const int w = src->width, h = src->height;
  const size_t n_px = (size_t) w * h;
  double *xy = malloc (sizeof (double) * 2 * n_px);
  double *xy_stages = malloc (sizeof (double) * 2 * n_px);
  double *ref = malloc (sizeof (double) * n_px);
  double *ref_stages = malloc (sizeof (double) * n_px);
  double worst_plan = 0.0, worst_stages = 0.0;
  int runs = 0, trial;

  if (!xy || !xy_stages || !ref || !ref_stages) {
    TEST_CHECK (0, "out of memory");
    goto done;
  }
  for (trial = 0; trial < 24 && runs < 8; trial++) {
    bspline_chain_stage stages[16];
    bspline_stmap *maps[BSPLINE_CHAIN_MAX_LENSES] = { NULL };
    bspline_params params;
    bspline_plan *plan;
    bspline_image dst;
    char name[256], msg[256];
    double e_plan, e_stages;
    int n, i, j;

    n = random_chain (rng, 2, w, h, stages, maps, name, sizeof (name));
    bspline_params_init (&params);
    params.precision = BSPLINE_PRECISION_DOUBLE;
    params.antialias = BSPLINE_ANTIALIAS_NONE;
    params.order = runs < 4 ? 2 * runs + 1 : test_rng_int (rng, 0,
        BSPLINE_MAX_ORDER);
    params.boundary = (bspline_boundary) test_rng_int (rng, 0, 4);
    params.fill[0] = test_rng_range (rng, 0.0, 255.0);
    plan = chain_plan (&params, stages, n, w, h, w, h, msg, sizeof (msg));
    if (!plan) {
      TEST_CHECK (strstr (msg, "folds over") != NULL, "chain %s: %s", name,
          msg);
      free_maps (maps, 2);
      continue;
    }
    for (i = 0; i < h; i++)
      for (j = 0; j < w; j++) {
        double *p = xy + 2 * ((size_t) i * w + j);
        double *q = xy_stages + 2 * ((size_t) i * w + j);
        if (!bspline_plan_map_point (plan, j + 0.5, i + 0.5, &p[0], &p[1]))
          p[0] = p[1] = NAN;
        if (!reference_map (stages, n, plan->lens, j + 0.5, i + 0.5, &q[0],
                &q[1]))
          q[0] = q[1] = NAN;
      }
    test_image_alloc (&dst, w, h, 1, BSPLINE_SAMPLE_F64, 0);
    TEST_CHECK (bspline_cpu_execute (cpu, plan, src, &dst) == BSPLINE_OK,
        "chain %s: %s", name, bspline_cpu_last_error (cpu));
    TEST_CHECK (bspline_cpu_sample_points (cpu, &params, src, xy, n_px, ref)
        == BSPLINE_OK && bspline_cpu_sample_points (cpu, &params, src,
            xy_stages, n_px, ref_stages) == BSPLINE_OK, "sample points: %s",
        bspline_cpu_last_error (cpu));
    e_plan = max_relative ((const double *) dst.data, ref, n_px,
        test_signal_scale (range));
    e_stages = max_relative ((const double *) dst.data, ref_stages, n_px,
        test_signal_scale (range));
    TEST_CHECK (e_plan <= RESAMPLE_TOL, "chain %s, order %d %s: the engine "
        "differs from the interpolant at the plan's points by %.3g of the "
        "range", name, params.order, test_boundary_name (params.boundary),
        e_plan);
    TEST_CHECK (e_stages <= RESAMPLE_TOL, "chain %s, order %d %s: the "
        "engine differs from the interpolant at the stage-by-stage points "
        "by %.3g of the range", name, params.order,
        test_boundary_name (params.boundary), e_stages);
    worst_plan = fmax (worst_plan, e_plan);
    worst_stages = fmax (worst_stages, e_stages);
    runs++;
    test_image_free (&dst);
    bspline_plan_free (plan);
    free_maps (maps, 2);
  }
  TEST_CHECK (runs == 8, "only %d chains of two lens stages resampled", runs);
  printf ("resampling: %d chains of two lens stages on the %dx%d image, "
      "double: within %.3g (the plan's points) and %.3g (stage by stage) "
      "of the range of the interpolant\n", runs, w, h, worst_plan,
      worst_stages);
done:
  free (xy);
  free (xy_stages);
  free (ref);
  free (ref_stages);
}

/* ---- homographies alone, and a lens between them ---- */

static int
same_bytes (const bspline_image * a, const bspline_image * b)
{
  const size_t row = (size_t) a->width * a->channels
      * test_sample_size (a->type);
  int y;
  for (y = 0; y < a->height; y++)
    if (memcmp ((const char *) a->data + (ptrdiff_t) y * a->stride,
            (const char *) b->data + (ptrdiff_t) y * b->stride, row) != 0)
      return 0;
  return 1;
}

/* The two plans' outputs from src, U8 and F32, byte for byte. */
static void
check_same_output (bspline_cpu * cpu, const bspline_plan * a,
    const bspline_plan * b, const bspline_image * src, int w, int h,
    const char *what)
{
  int type;
  for (type = 0; type <= 2; type += 2) {
    bspline_image da, db;
    test_image_alloc (&da, w, h, src->channels, (bspline_sample_type) type, 0);
    test_image_alloc (&db, w, h, src->channels, (bspline_sample_type) type, 1);
    TEST_CHECK (bspline_cpu_execute (cpu, a, src, &da) == BSPLINE_OK
        && bspline_cpu_execute (cpu, b, src, &db) == BSPLINE_OK,
        "%s: execute: %s", what, bspline_cpu_last_error (cpu));
    TEST_CHECK (same_bytes (&da, &db), "%s: the composed plan's %s output "
        "differs from the plan of the product", what, test_type_name (type));
    test_image_free (&da);
    test_image_free (&db);
  }
}

static void
test_homographies (test_rng * rng, bspline_cpu * cpu)
{
  int trial, separable = 0;

  for (trial = 0; trial < 40; trial++) {
    const int w = test_rng_int (rng, 8, 120), h = test_rng_int (rng, 8, 90);
    const int dw = test_rng_int (rng, 8, 160), dh = test_rng_int (rng, 8, 120);
    const int scaling = trial % 2 == 0;
    const int n = test_rng_int (rng, 1, 5);
    bspline_chain_stage stages[5];
    bspline_lens lenses[BSPLINE_CHAIN_MAX_LENSES];
    bspline_params params;
    bspline_plan *a = NULL, *b = NULL;
    bspline_image src;
    double product[9], inverse[9], range[2];
    char msg[256], what[128];
    int i, n_lenses = -1;

    for (i = 0; i < n; i++) {
      double m[9];
      if (scaling) {
        /* axis-aligned: a scale and an offset per axis */
        bspline_matrix_identity (m);
        m[0] = test_rng_range (rng, 0.3, 3.0);
        m[4] = test_rng_range (rng, 0.3, 3.0);
        m[2] = test_rng_range (rng, -10.0, 10.0);
        m[5] = test_rng_range (rng, -10.0, 10.0);
      } else
        random_homography (rng, w, h, 0.5, 0.3, m);
      bspline_chain_stage_homography (&stages[i], m);
      /* the product in evaluation order: each next one on the left */
      if (i == 0)
        memcpy (product, m, sizeof (product));
      else
        bspline_matrix_multiply (m, product, product);
    }
    snprintf (what, sizeof (what), "%d %s (%dx%d -> %dx%d)", n,
        scaling ? "scalings" : "homographies", w, h, dw, dh);
    TEST_CHECK (bspline_chain_compose (stages, n, inverse, lenses, &n_lenses,
            msg, sizeof (msg)) == BSPLINE_OK, "%s: %s", what, msg);
    TEST_CHECK (n_lenses == 0, "%s: %d lens stages", what, n_lenses);
    TEST_CHECK (memcmp (inverse, product, sizeof (product)) == 0,
        "%s: the composed matrix is not the product in evaluation order", what);
    bspline_params_init (&params);
    params.order = test_rng_int (rng, 0, 5);
    params.boundary = (bspline_boundary) test_rng_int (rng, 0, 4);
    params.antialias = (bspline_antialias) test_rng_int (rng, 0, 2);
    if (bspline_plan_new_chain (&params, inverse, NULL, 0, w, h, dw, dh, 2,
            &a, msg, sizeof (msg)) != BSPLINE_OK
        || bspline_plan_new (&params, product, w, h, dw, dh, 2, &b, msg,
            sizeof (msg)) != BSPLINE_OK) {
      TEST_CHECK (0, "%s: plan: %s", what, msg);
      bspline_plan_free (a);
      continue;
    }
    TEST_CHECK (bspline_plan_is_separable (a) == scaling
        && bspline_plan_is_separable (b) == scaling, "%s: separable %d, "
        "the product's %d", what, bspline_plan_is_separable (a),
        bspline_plan_is_separable (b));
    separable += bspline_plan_is_separable (a);
    test_image_alloc (&src, w, h, 2, BSPLINE_SAMPLE_U8, 0);
    test_image_fill_random (&src, rng, 0.0, 255.0, range);
    check_same_output (cpu, a, b, &src, dw, dh, what);
    test_image_free (&src);
    bspline_plan_free (a);
    bspline_plan_free (b);
  }

  /* a lens stage between homographies: `inverse` the product of those
   * before it and its own, post the product of its post and those after
   * it, each next one on the left (one lens stage alone: its own
   * matrices), and the plan bspline_plan_new_lens's with them */
  for (trial = 0; trial < 12; trial++) {
    const int w = test_rng_int (rng, 40, 160), h = test_rng_int (rng, 30, 120);
    const int before = test_rng_int (rng, 0, 2), after = test_rng_int (rng,
        0, 2);
    bspline_chain_stage stages[6];
    bspline_lens lenses[BSPLINE_CHAIN_MAX_LENSES], lens;
    bspline_stmap *map = NULL;
    bspline_params params;
    bspline_plan *a = NULL, *b = NULL;
    bspline_image src;
    double pre[9], post[9], inverse[9], range[2];
    char msg[256], what[128];
    int i, n = 0, n_lenses = -1, model = test_rng_int (rng, 1, 3);

    for (i = 0; i < before; i++) {
      double m[9];
      random_homography (rng, w, h, 0.15, 0.1, m);
      bspline_chain_stage_homography (&stages[n++], m);
      /* the products in evaluation order: each next one on the left */
      if (i == 0)
        memcpy (pre, m, sizeof (pre));
      else
        bspline_matrix_multiply (m, pre, pre);
    }
    random_lens_stage (rng, model, w, h, &map, &stages[n]);
    lens = stages[n].lens;
    if (before == 0)
      memcpy (pre, stages[n].inverse, sizeof (pre));
    else
      bspline_matrix_multiply (stages[n].inverse, pre, pre);
    memcpy (post, lens.post, sizeof (post));
    n++;
    for (i = 0; i < after; i++) {
      double m[9];
      random_homography (rng, w, h, 0.15, 0.1, m);
      bspline_chain_stage_homography (&stages[n++], m);
      bspline_matrix_multiply (m, post, post);
    }
    snprintf (what, sizeof (what), "%d homographies, %s, %d homographies",
        before, model_name (model), after);
    TEST_CHECK (bspline_chain_compose (stages, n, inverse, lenses, &n_lenses,
            msg, sizeof (msg)) == BSPLINE_OK && n_lenses == 1, "%s: %s",
        what, msg);
    TEST_CHECK (memcmp (inverse, pre, sizeof (pre)) == 0
        && memcmp (lenses[0].post, post, sizeof (post)) == 0, "%s: the "
        "composed matrices are not the products in evaluation order", what);
    memcpy (lens.post, post, sizeof (post));
    bspline_params_init (&params);
    params.order = test_rng_int (rng, 1, 5);
    if (bspline_plan_new_chain (&params, inverse, lenses, n_lenses, w, h, w,
            h, 2, &a, msg, sizeof (msg)) != BSPLINE_OK
        || bspline_plan_new_lens (&params, pre, &lens, w, h, w, h, 2, &b,
            msg, sizeof (msg)) != BSPLINE_OK) {
      TEST_CHECK (strstr (msg, "folds over") != NULL, "%s: plan: %s", what,
          msg);
    } else {
      test_image_alloc (&src, w, h, 2, BSPLINE_SAMPLE_U8, 0);
      test_image_fill_random (&src, rng, 0.0, 255.0, range);
      check_same_output (cpu, a, b, &src, w, h, what);
      test_image_free (&src);
    }
    bspline_plan_free (a);
    bspline_plan_free (b);
    bspline_stmap_unref (map);
  }
  TEST_CHECK (separable == 20, "only %d of 20 composed scalings took the "
      "separable path", separable);
  printf ("homographies: composed in evaluation order bit for bit, their "
      "plans the product's (%d separable), lens stages between them as "
      "bspline_plan_new_lens with the products\n", separable);
}

/* ---- antialiasing: the chain's Jacobian ---- */

static void
test_jacobian (test_rng * rng)
{
  const double h_fd = 1e-4;
  double worst = 0.0, worst_widen = 0.0, most_widen = 1.0;
  int chains = 0, trial;

  for (trial = 0; trial < 40 && chains < 16; trial++) {
    const int w = test_rng_int (rng, 60, 300), h = test_rng_int (rng, 40, 220);
    const double shrink = test_rng_range (rng, 1.3, 3.0);
    const int dw = (int) ceil (w / shrink), dh = (int) ceil (h / shrink);
    bspline_chain_stage stages[16];
    bspline_stmap *maps[BSPLINE_CHAIN_MAX_LENSES] = { NULL };
    bspline_params params;
    bspline_plan *plan;
    double m[9], *row = NULL;
    char name[256], msg[256];
    int n, i;

    /* first the output frame's pixels onto the chain's w x h frame
     * (centre onto centre), rotated about its centre; then two lens
     * stages among homographies */
    {
      double s[9];
      bspline_matrix_identity (s);
      s[0] = (double) w / dw;
      s[4] = (double) h / dh;
      s[2] = 0.5 * w - s[0] * 0.5 * dw;
      s[5] = 0.5 * h - s[4] * 0.5 * dh;
      test_similarity_matrix (m, test_rng_range (rng, -0.5, 0.5), 1.0, 0.0,
          0.0, 0.5 * w, 0.5 * h);
      bspline_matrix_multiply (m, s, m);
    }
    bspline_chain_stage_homography (&stages[0], m);
    n = 1 + random_chain (rng, 2, w, h, stages + 1, maps, name, sizeof (name));
    bspline_params_init (&params);
    params.antialias = BSPLINE_ANTIALIAS_WIDEN;
    plan = chain_plan (&params, stages, n, w, h, dw, dh, msg, sizeof (msg));
    if (!plan) {
      TEST_CHECK (strstr (msg, "folds over") != NULL, "chain %s: %s", name,
          msg);
      free_maps (maps, 2);
      continue;
    }
    TEST_CHECK (plan->widen, "chain shrink %.2f, %s: the plan does not "
        "widen", shrink, name);
    row = malloc (sizeof (double) * 4 * dw);
    for (i = 0; i < 60; i++) {
      const int pj = test_rng_int (rng, 0, dw - 1), pi = test_rng_int (rng,
          0, dh - 1);
      const double u = pj + 0.5, v = pi + 0.5;
      double x, y, nx, ny, J[4], F[4], xp, yp, xm, ym, sx = NAN, sy = NAN, e;
      int k, ok;

      /* the chain rule, as the engines take it */
      if (!bspline_map_point (plan->inverse, u, v, &nx, &ny))
        continue;
      bspline_homography_jacobian (plan->inverse, u, v, nx, ny, J);
      if (!bspline_lenses_map (plan->lens, plan->n_lenses, nx, ny, &x, &y, J))
        continue;
      /* central differences of the composed map */
      ok = 1;
      for (k = 0; k < 2; k++) {
        const double du = k == 0 ? h_fd : 0.0, dv = k == 1 ? h_fd : 0.0;
        ok &= bspline_plan_map_point (plan, u + du, v + dv, &xp, &yp);
        ok &= bspline_plan_map_point (plan, u - du, v - dv, &xm, &ym);
        F[k] = (xp - xm) / (2.0 * h_fd);
        F[2 + k] = (yp - ym) / (2.0 * h_fd);
      }
      if (!ok)
        continue;
      for (k = 0; k < 4; k++) {
        e = fabs (J[k] - F[k]);
        worst = fmax (worst, e);
        TEST_CHECK (e <= JACOBIAN_TOL, "chain %s, output (%g, %g): "
            "Jacobian entry %d %.9g, finite differences %.9g", name, u, v,
            k, J[k], F[k]);
      }
      /* the footprint and the widening the plan samples with */
      TEST_CHECK (bspline_stage_footprint_size (plan->inverse, plan->lens,
              plan->n_lenses, u, v, &x, &y, &sx, &sy), "footprint");
      e = fmax (fabs (sx - hypot (F[0], F[1])), fabs (sy - hypot (F[2], F[3])));
      TEST_CHECK (e <= JACOBIAN_TOL, "chain %s, output (%g, %g): footprint "
          "(%.9g, %.9g), finite differences (%.9g, %.9g)", name, u, v, sx,
          sy, hypot (F[0], F[1]), hypot (F[2], F[3]));
      if (row) {
        double wx, wy;
        bspline_point_row (plan, pi, row);
        wx = bspline_widening (hypot (F[0], F[1]), BSPLINE_MAX_LENS_WIDENING);
        wy = bspline_widening (hypot (F[2], F[3]), BSPLINE_MAX_LENS_WIDENING);
        e = fmax (fabs (row[2 * dw + pj] - wx), fabs (row[3 * dw + pj] - wy));
        worst_widen = fmax (worst_widen, e);
        most_widen = fmax (most_widen, fmax (wx, wy));
        TEST_CHECK (e <= JACOBIAN_TOL, "chain %s, output pixel (%d, %d): "
            "widening (%.9g, %.9g), from finite differences (%.9g, %.9g)",
            name, pj, pi, row[2 * dw + pj], row[3 * dw + pj], wx, wy);
      }
    }
    free (row);
    chains++;
    bspline_plan_free (plan);
    free_maps (maps, 2);
  }
  TEST_CHECK (chains == 16, "only %d shrinking chains planned", chains);
  TEST_CHECK (most_widen > 1.2, "the chains widened by %.3g at most",
      most_widen);
  printf ("antialiasing: %d shrinking chains of two lens stages: the "
      "chain rule's Jacobian within %.3g, the widening per pixel within "
      "%.3g of finite differences (widened up to %.3g)\n", chains, worst,
      worst_widen, most_widen);
}

/* ---- errors ---- */

static void
expect (bspline_status st, bspline_status want, const char *msg,
    const char *needle, const char *what)
{
  TEST_CHECK (st == want, "%s: status %d (%s), expected %d (%s)", what, st,
      bspline_status_string (st), want, bspline_status_string (want));
  TEST_CHECK (needle == NULL || strstr (msg, needle) != NULL, "%s: the "
      "message does not say \"%s\": %s", what, needle, msg);
}

static void
test_errors (test_rng * rng)
{
  const int w = 64, h = 48;
  bspline_chain_stage stages[8];
  bspline_stmap *maps[BSPLINE_CHAIN_MAX_LENSES + 1] = { NULL };
  bspline_lens lenses[BSPLINE_CHAIN_MAX_LENSES];
  bspline_params params;
  bspline_plan *plan = NULL;
  double inverse[9], m[9];
  char msg[256];
  int n_lenses, k;

  /* no stages: the identity */
  msg[0] = '\0';
  n_lenses = -1;
  TEST_CHECK (bspline_chain_compose (NULL, 0, inverse, lenses, &n_lenses,
          msg, sizeof (msg)) == BSPLINE_OK && n_lenses == 0
      && inverse[0] == 1.0 && inverse[4] == 1.0 && inverse[8] == 1.0
      && inverse[1] == 0.0 && inverse[2] == 0.0 && inverse[3] == 0.0
      && inverse[5] == 0.0 && inverse[6] == 0.0 && inverse[7] == 0.0,
      "an empty chain is not the identity: %s", msg);

  /* a stage made from its own matrix (gstbsplinechain.c does) */
  random_homography (rng, w, h, 0.2, 0.2, m);
  memcpy (stages[0].inverse, m, sizeof (m));
  stages[0].lens.model = BSPLINE_LENS_BROWN;
  bspline_chain_stage_homography (&stages[0], stages[0].inverse);
  TEST_CHECK (memcmp (stages[0].inverse, m, sizeof (m)) == 0
      && !bspline_chain_stage_has_lens (&stages[0]), "a homography stage "
      "made from its own matrix");

  /* five lens stages */
  bspline_params_init (&params);
  for (k = 0; k < BSPLINE_CHAIN_MAX_LENSES + 1; k++)
    random_lens_stage (rng, k % 3 + 1, w, h, &maps[k], &stages[k]);
  expect (bspline_chain_compose (stages, BSPLINE_CHAIN_MAX_LENSES + 1,
          inverse, lenses, &n_lenses, msg, sizeof (msg)),
      BSPLINE_ERROR_INVALID_ARGUMENT, msg, "5 lens", "five lens stages");
  /* four: composed (and planned where no model folds) */
  TEST_CHECK (bspline_chain_compose (stages, BSPLINE_CHAIN_MAX_LENSES,
          inverse, lenses, &n_lenses, msg, sizeof (msg)) == BSPLINE_OK
      && n_lenses == BSPLINE_CHAIN_MAX_LENSES, "four lens stages: %s", msg);
  expect (bspline_plan_new_chain (&params, inverse, lenses,
          BSPLINE_CHAIN_MAX_LENSES + 1, w, h, w, h, 1, &plan, msg,
          sizeof (msg)), BSPLINE_ERROR_INVALID_ARGUMENT, msg, NULL,
      "a plan of five lens stages");
  TEST_CHECK (plan == NULL, "a plan of five lens stages was made");
  expect (bspline_plan_new_chain (&params, inverse, NULL, 1, w, h, w, h, 1,
          &plan, msg, sizeof (msg)), BSPLINE_ERROR_INVALID_ARGUMENT, msg,
      NULL, "a plan of one lens stage not given");
  lenses[1].model = BSPLINE_LENS_NONE;
  expect (bspline_plan_new_chain (&params, inverse, lenses, 2, w, h, w, h, 1,
          &plan, msg, sizeof (msg)), BSPLINE_ERROR_INVALID_ARGUMENT, msg,
      "stage 2 of 2", "a lens stage of no model");
  TEST_CHECK (plan == NULL, "a plan with a lens stage of no model was made");

  /* a singular homography, named */
  random_homography (rng, w, h, 0.2, 0.2, m);
  bspline_chain_stage_homography (&stages[0], m);
  random_lens_stage (rng, BSPLINE_LENS_BROWN, w, h, &maps[0], &stages[1]);
  bspline_chain_stage_homography (&stages[2], m);
  stages[2].inverse[3] = stages[2].inverse[0];
  stages[2].inverse[4] = stages[2].inverse[1];
  stages[2].inverse[5] = stages[2].inverse[2];
  expect (bspline_chain_compose (stages, 3, inverse, lenses, &n_lenses, msg,
          sizeof (msg)), BSPLINE_ERROR_INVALID_TRANSFORM, msg, "stage 3",
      "a singular homography");
  TEST_CHECK (strstr (msg, "singular") != NULL, "singular: %s", msg);
  /* NaN */
  bspline_chain_stage_homography (&stages[2], m);
  stages[2].inverse[7] = NAN;
  expect (bspline_chain_compose (stages, 3, inverse, lenses, &n_lenses, msg,
          sizeof (msg)), BSPLINE_ERROR_INVALID_TRANSFORM, msg, "stage 3",
      "a NaN homography");
  TEST_CHECK (strstr (msg, "NaN") != NULL, "NaN: %s", msg);
  /* a singular and a NaN post */
  bspline_chain_stage_homography (&stages[2], m);
  stages[1].lens.post[0] = 0.0;
  stages[1].lens.post[1] = 0.0;
  stages[1].lens.post[2] = 0.0;
  expect (bspline_chain_compose (stages, 3, inverse, lenses, &n_lenses, msg,
          sizeof (msg)), BSPLINE_ERROR_INVALID_TRANSFORM, msg, "post",
      "a singular post");
  stages[1].lens.post[0] = NAN;
  expect (bspline_chain_compose (stages, 3, inverse, lenses, &n_lenses, msg,
          sizeof (msg)), BSPLINE_ERROR_INVALID_TRANSFORM, msg, "post",
      "a NaN post");
  /* products that overflow, and that cancel to a singular one */
  bspline_chain_stage_homography (&stages[0], m);
  for (k = 0; k < 9; k++)
    stages[0].inverse[k] *= 1e100;
  bspline_chain_stage_homography (&stages[1], stages[0].inverse);
  expect (bspline_chain_compose (stages, 2, inverse, lenses, &n_lenses, msg,
          sizeof (msg)), BSPLINE_ERROR_INVALID_TRANSFORM, msg, "composed",
      "a product that overflows");
  {
    /* two matrices whose product is singular though neither is (against
     * the products of its row and of its column norms,
     * bspline_matrix_invert): rows (1, 1) and (1, 1 + 1e-8), determinant
     * 1e-8 against norms of 2; twice, determinant 1e-16 against 8 */
    double d[9];
    bspline_matrix_identity (d);
    d[1] = 1.0;
    d[3] = 1.0;
    d[4] = 1.0 + 1e-8;
    bspline_chain_stage_homography (&stages[0], d);
    bspline_chain_stage_homography (&stages[1], d);
    expect (bspline_chain_compose (stages, 2, inverse, lenses, &n_lenses,
            msg, sizeof (msg)), BSPLINE_ERROR_INVALID_TRANSFORM, msg,
        "composed", "a singular product");
  }
  for (k = 0; k < BSPLINE_CHAIN_MAX_LENSES + 1; k++)
    bspline_stmap_unref (maps[k]);
  printf ("errors: five lens stages, singular, NaN and overflowing "
      "homographies and posts refused, each named\n");
}

int
main (int argc, char **argv)
{
  test_rng rng;
  bspline_cpu *cpu;
  bspline_image ascent;
  double range[2] = { 0.0, 255.0 };

  test_begin ("test-chain", &rng);
  if (argc < 2) {
    printf ("usage: %s ascent.pgm\n", argv[0]);
    return 2;
  }
  cpu = bspline_cpu_new (0);
  test_maps (&rng);
  if (test_read_pgm (argv[1], &ascent)) {
    test_resample (&rng, cpu, &ascent, range);
    test_image_free (&ascent);
  } else
    TEST_CHECK (0, "cannot read the real image %s", argv[1]);
  test_homographies (&rng, cpu);
  test_jacobian (&rng);
  test_errors (&rng);
  bspline_cpu_free (cpu);
  return test_end ("chains composed, mapped, resampled and differentiated "
      "as their stages one by one");
}
