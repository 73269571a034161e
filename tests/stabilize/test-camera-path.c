/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-camera-path.c: the L1-optimal camera path
 * (core/stabilize/camera-path.h).
 *
 *  - bad arguments are refused with the right status;
 *  - random shaky windows (pan, pan that stops and starts, tripod, random
 *    intended motion; similarity and affine; zoom from 0.85 to 1.25, so
 *    some windows cannot keep the crop inside): the status says so, the
 *    path keeps the proximity bounds, an optimal path keeps the crop
 *    inside, and no path is less smooth than B_t = I (which is feasible
 *    when zoom >= 1);
 *  - a tripod shot comes out still, a pan that stops and starts comes out
 *    as constant-velocity pieces with few kinks;
 *  - fixed boundary frames are kept and continued;
 *  - a sliding window (3 frames fixed behind, `ahead` frames ahead, one
 *    frame output per solve) matches the whole-clip optimum away from the
 *    ends and never jumps where the windows meet;
 *  - the quadratic program (data_weight > 0: the stabilizer's weights,
 *    [GKE11]'s with a fidelity term, random ones; zooms that leave room,
 *    bind or cannot fit; 0-4 fixed frames): statuses as above, no
 *    iteration limit, fixed frames kept, proximity bounds, the reported
 *    objective equal to an evaluation from the maps themselves
 *    (smoothness + penalty x violations + fidelity), never above B = I's;
 *  - core/stabilize/stabilize.c's default path (its weights, 1920x1080,
 *    zoom 1.3): every 19-frame sliding window (15 ahead, 3 fixed) and every
 *    300-frame whole clip optimal within its 200 iterations;
 *  - the time of a 60-frame window, and of the stabilizer's 19-frame one.
 *
 * The optimality itself is checked against scipy.optimize.linprog (HiGHS)
 * by camera_path_vs_linprog.py, which runs this program with
 * `--dump FILE`: the windows (36 of the linear program, 24 of the
 * quadratic), their solutions and statuses are written to FILE and
 * nothing is asserted here.
 *
 * Usage: test-camera-path [--dump FILE]
 */
#include "test-common.h"
#include "camera-path.h"

#define W 640
#define H 360

typedef enum
{
  INTENT_PAN = 0,
  INTENT_STOP_START = 1,
  INTENT_TRIPOD = 2,
  INTENT_WANDER = 3
} intent;

static const char *intent_names[] = { "pan", "stop-start", "tripod",
  "wander"
};

static double
gaussian (test_rng * rng)
{
  double u = test_rng_uniform (rng), v = test_rng_uniform (rng);

  return sqrt (-2.0 * log (1.0 - u)) * cos (2.0 * TEST_PI * v);
}

/* A rotation by theta and scale s about the frame centre, then a shift. */
static void
centred_map (double theta, double s, double dx, double dy, int width,
    int height, bspline_affine * a)
{
  double c = s * cos (theta), sn = s * sin (theta), cx = 0.5 * width;
  double cy = 0.5 * height;

  a->m[0] = c;
  a->m[1] = -sn;
  a->m[3] = sn;
  a->m[4] = c;
  a->m[2] = cx - c * cx + sn * cy + dx;
  a->m[5] = cy - sn * cx - c * cy + dy;
}

/* The intended path's camera (frame t -> world) of frame t. */
static void
intended (intent kind, int t, int n, const double *v, bspline_affine * a,
    int width, int height)
{
  double x = 0.0, y = 0.0, th = 0.0;

  switch (kind) {
    case INTENT_PAN:
      x = v[0] * t;
      y = v[1] * t;
      th = v[2] * t;
      break;
    case INTENT_STOP_START:{
      /* pan, stand still over the middle third, pan on */
      int t1 = n / 3, t2 = 2 * n / 3;
      double before = t < t1 ? t : t1, after = t > t2 ? t - t2 : 0;

      x = v[0] * before + v[3] * after;
      y = v[1] * before + v[4] * after;
      break;
    }
    case INTENT_TRIPOD:
      break;
    case INTENT_WANDER:
      /* a slow smooth drift: two sines */
      x = v[0] * 8.0 * sin (0.05 * t) + v[3] * t;
      y = v[1] * 8.0 * sin (0.031 * t + 1.0);
      th = v[2] * 10.0 * sin (0.02 * t);
      break;
  }
  centred_map (th, 1.0, x, y, width, height, a);
}

/* C_t = intended_t after shake_t: shake of sigma pixels, sigma_deg degrees
 * and sigma / 500 of scale (affine: also as much shear). */
static void
make_camera (test_rng * rng, intent kind, int n, int affine, double sigma,
    double sigma_deg, int width, int height, bspline_affine * camera)
{
  double v[5];
  int t, i;

  for (i = 0; i < 5; i++)
    v[i] = test_rng_range (rng, -3.0, 3.0);
  v[2] *= 0.001;
  for (t = 0; t < n; t++) {
    bspline_affine intent_map, shake;

    intended (kind, t, n, v, &intent_map, width, height);
    centred_map (sigma_deg * TEST_PI / 180.0 * gaussian (rng),
        1.0 + sigma / 500.0 * gaussian (rng), sigma * gaussian (rng),
        sigma * gaussian (rng), width, height, &shake);
    if (affine) {
      double k = sigma / 500.0 * gaussian (rng);

      /* a shear about the centre */
      shake.m[1] += k;
      shake.m[2] -= k * 0.5 * height;
    }
    bspline_affine_compose (&intent_map, &shake, &camera[t]);
  }
}

/* The crop window's corner i (0 .. 3) in frame pixel coordinates. */
static void
crop_corner (int i, double zoom, int width, int height, double *x, double *y)
{
  double cx = 0.5 * width, cy = 0.5 * height;

  *x = cx + ((i & 1) ? cx : -cx) / zoom;
  *y = cy + ((i & 2) ? cy : -cy) / zoom;
}

static void
apply (const bspline_affine * a, double x, double y, double *ox, double *oy)
{
  *ox = a->m[0] * x + a->m[1] * y + a->m[2];
  *oy = a->m[3] * x + a->m[4] * y + a->m[5];
}

/* The residual motion R_t = F_(t+1) B_(t+1) - B_t at the crop corners,
 * pixels (its largest corner displacement): how far the output moves
 * between frames t and t+1, in frame t's coordinates. */
static void
residual_corners (const bspline_affine * camera, const bspline_affine * b,
    int t, double zoom, int width, int height, double out[8])
{
  bspline_affine inv, f, fb;
  int i;

  bspline_affine_invert (&camera[t], &inv);
  bspline_affine_compose (&inv, &camera[t + 1], &f);
  bspline_affine_compose (&f, &b[t + 1], &fb);
  for (i = 0; i < 4; i++) {
    double x, y, x1, y1, x0, y0;

    crop_corner (i, zoom, width, height, &x, &y);
    apply (&fb, x, y, &x1, &y1);
    apply (&b[t], x, y, &x0, &y0);
    out[2 * i] = x1 - x0;
    out[2 * i + 1] = y1 - y0;
  }
}

static double
corner_norm (const double *a, const double *b, double scale_b)
{
  double m = 0.0;
  int i;

  for (i = 0; i < 8; i++)
    m = fmax (m, fabs (a[i] - scale_b * (b ? b[i] : 0.0)));
  return m;
}

/* Largest distance between the crop corners placed by two paths. */
static double
path_distance (const bspline_affine * a, const bspline_affine * b,
    double zoom, int width, int height)
{
  double m = 0.0;
  int i;

  for (i = 0; i < 4; i++) {
    double x, y, xa, ya, xb, yb;

    crop_corner (i, zoom, width, height, &x, &y);
    apply (a, x, y, &xa, &ya);
    apply (b, x, y, &xb, &yb);
    m = fmax (m, fmax (fabs (xa - xb), fabs (ya - yb)));
  }
  return m;
}

/* How far B's linear part leaves the proximity bounds (0: inside). */
static double
proximity_excess (const bspline_camera_path_params * p,
    const bspline_affine * b)
{
  double a = b->m[0], bb = b->m[1], c = b->m[3], d = b->m[4], x = 0.0;
  double tol = 1e-7;

  if (p->model == BSPLINE_MOTION_SIMILARITY) {
    x = fmax (x, fabs (0.5 * (a + d) - 1.0) - p->max_scale);
    x = fmax (x, fabs (0.5 * (c - bb)) - p->max_rotation);
  } else {
    x = fmax (x, fabs (a - 1.0) - p->max_scale);
    x = fmax (x, fabs (d - 1.0) - p->max_scale);
    x = fmax (x, fabs (bb) - p->max_rotation);
    x = fmax (x, fabs (c) - p->max_rotation);
    x = fmax (x, fabs (bb + c) - p->max_skew);
    x = fmax (x, fabs (a - d) - p->max_aspect);
  }
  return x > tol ? x : 0.0;
}

/* The smoothness of B_t = I over frames first .. n - 1 (the objective's
 * terms that involve them), for comparison. */
static double
smoothness_of (const bspline_camera_path_params * p,
    const bspline_affine * camera, const bspline_affine * b, int n, int n_fixed)
{
  /* one pass of the solver with everything fixed gives no terms; so sum
   * the L1 terms here, in the parameters of the notes (centred) */
  int n_par = p->model == BSPLINE_MOTION_AFFINE ? 6 : 4, t, k, m;
  double cx = 0.5 * p->width, cy = 0.5 * p->height, total = 0.0;
  double (*r)[6] = calloc ((size_t) n, sizeof (*r));
  double w[3] = { p->w1, p->w2, p->w3 };

  for (t = 0; t + 1 < n; t++) {
    bspline_affine inv, f, fb;
    double l[6];

    bspline_affine_invert (&camera[t], &inv);
    bspline_affine_compose (&inv, &camera[t + 1], &f);
    bspline_affine_compose (&f, &b[t + 1], &fb);
    for (k = 0; k < 6; k++)
      l[k] = fb.m[k] - b[t].m[k];
    /* centred translation of the difference: R(c) - ... the difference of
     * two maps is linear in the map, so centring it is R(x + c) with the
     * homogeneous 1 of the difference being 0: translation + L c */
    l[2] += l[0] * cx + l[1] * cy;
    l[5] += l[3] * cx + l[4] * cy;
    r[t][0] = l[2];
    r[t][1] = l[5];
    if (n_par == 6) {
      r[t][2] = l[0];
      r[t][3] = l[1];
      r[t][4] = l[3];
      r[t][5] = l[4];
    } else {
      r[t][2] = 0.5 * (l[0] + l[4]);
      r[t][3] = 0.5 * (l[3] - l[1]);
    }
  }
  for (m = 0; m < 3; m++)
    for (t = 0; t + m + 1 < n; t++) {
      if (t + m < n_fixed - 1)
        continue;
      for (k = 0; k < n_par; k++) {
        double v = m == 0 ? r[t][k] : m == 1 ? r[t + 1][k] - r[t][k]
            : r[t + 2][k] - 2.0 * r[t + 1][k] + r[t][k];

        total += w[m] * (k < 2 ? 1.0 : p->linear_weight) * fabs (v);
      }
    }
  free (r);
  return total;
}

/* How far the crop window leaves the frame under B (pixels, 0: inside),
 * from its corners in pixel coordinates. */
static double
crop_violation (const bspline_camera_path_params * p, const bspline_affine * b)
{
  double worst = 0.0;
  int i;

  for (i = 0; i < 4; i++) {
    double x, y, bx, by;

    crop_corner (i, p->zoom, p->width, p->height, &x, &y);
    apply (b, x, y, &bx, &by);
    worst = fmax (worst, fmax (fmax (-bx, bx - p->width), fmax (-by,
                by - p->height)));
  }
  return worst;
}

/* The fidelity term of one frame: data_weight / 2 times the mean over the
 * FRAME's corners of the squared distance (pixels^2) by which B moves
 * them. */
static double
fidelity_of (const bspline_camera_path_params * p, const bspline_affine * b)
{
  double acc = 0.0;
  int i;

  for (i = 0; i < 4; i++) {
    double x = (i & 1) ? p->width : 0.0, y = (i & 2) ? p->height : 0.0;
    double bx, by;

    apply (b, x, y, &bx, &by);
    acc += (bx - x) * (bx - x) + (by - y) * (by - y);
  }
  return 0.5 * p->data_weight * 0.25 * acc;
}

/* The program's objective at the path b, evaluated from the maps
 * themselves: smoothness + crop penalty times each free frame's worst
 * violation + the fidelity of the free frames. */
static double
objective_of (const bspline_camera_path_params * p,
    const bspline_affine * camera, const bspline_affine * b, int n, int n_fixed)
{
  double penalty = p->crop_penalty > 0.0 ? p->crop_penalty
      : 20.0 * (p->w1 + p->w2 + p->w3);
  double total = smoothness_of (p, camera, b, n, n_fixed);
  int t;

  for (t = n_fixed; t < n; t++)
    total += penalty * crop_violation (p, &b[t]) + fidelity_of (p, &b[t]);
  return total;
}

/* ---- the windows ---- */

/* The weights a window is solved with where they differ from the
 * defaults (bspline_camera_path_params_init, [GKE11]'s linear program):
 * data_weight > 0 makes it the quadratic program. */
typedef struct
{
  double w1, w2, w3, data_weight, max_scale;
  int max_iterations;
} path_weights;

/* core/stabilize/stabilize.c's path = optimal: its weights, 550 / the frame
 * diagonal of fidelity, max_scale 0.05, 200 iterations; its crop window is
 * the frame over 1.3 (margin 30 %) and its windows have 15 frames ahead, 3
 * fixed behind and the frame output. */
#define STAB_ZOOM 1.3
#define STAB_AHEAD 15
#define STAB_FIXED 3

static path_weights
stabilizer_weights (int width, int height)
{
  path_weights w = { 5.0, 300.0, 100.0, 550.0 / hypot (width, height), 0.05,
    200
  };

  return w;
}

static void
apply_weights (bspline_camera_path_params * p, const path_weights * w)
{
  p->w1 = w->w1;
  p->w2 = w->w2;
  p->w3 = w->w3;
  p->data_weight = w->data_weight;
  p->max_scale = w->max_scale;
  p->max_iterations = w->max_iterations;
}

/* Random weights of the quadratic program, frames of width x height: the
 * stabilizer's, [GKE11]'s with a fidelity term, or anything between;
 * data_weight from a tenth to ten times the stabilizer's. */
static path_weights
random_qp_weights (test_rng * rng, int which, int width, int height)
{
  path_weights w = stabilizer_weights (width, height);

  if (which == 1) {
    w.w1 = 10.0;
    w.w2 = 1.0;
    w.w3 = 100.0;
    w.max_scale = 0.1;
    w.max_iterations = 200;
  } else if (which == 2) {
    w.w1 = test_rng_range (rng, 1.0, 20.0);
    w.w2 = test_rng_range (rng, 1.0, 300.0);
    w.w3 = test_rng_range (rng, 10.0, 200.0);
    w.max_scale = test_rng_range (rng, 0.05, 0.1);
  }
  if (which != 0)
    w.data_weight *= pow (10.0, test_rng_range (rng, -1.0, 1.0));
  return w;
}

/* Zooms of the crop window for proximity bound max_scale: room to spare,
 * the stabilizer's, a tight fit, exactly the frame, one that fits only
 * scaled down (by half of max_scale) and one that cannot fit even scaled
 * down by max_scale. */
static double
qp_zoom (int i, double max_scale)
{
  static const double zooms[] = { 1.1, STAB_ZOOM, 1.03, 1.0, -0.5, -1.5 };
  double z = zooms[i % 6];

  return z > 0.0 ? z : 1.0 + z * max_scale;
}

typedef struct
{
  char name[80];
  bspline_camera_path_params params;
  int n, n_fixed;
  bspline_affine *camera, *fixed, *b;
  bspline_camera_path_info info;
} window;

/* A random window and its solve; weights NULL: the defaults (the linear
 * program), otherwise those (the name then gains d<data_weight>). */
static void
make_window (test_rng * rng, window * win, const char *label, intent kind,
    int n, int affine, double zoom, double sigma, int n_fixed, int width,
    int height, const path_weights * weights)
{
  bspline_camera_path *cp;
  char msg[256], data[32] = "";
  int t;

  if (weights)
    snprintf (data, sizeof (data), "-d%.3g", weights->data_weight);
  snprintf (win->name, sizeof (win->name), "%s-%s-%s-n%d-z%.3f-k%d%s",
      label, intent_names[kind], affine ? "affine" : "similarity", n, zoom,
      n_fixed, data);
  bspline_camera_path_params_init (&win->params, width, height);
  win->params.model = affine ? BSPLINE_MOTION_AFFINE :
      BSPLINE_MOTION_SIMILARITY;
  win->params.zoom = zoom;
  if (weights)
    apply_weights (&win->params, weights);
  win->n = n;
  win->n_fixed = n_fixed;
  win->camera = malloc ((size_t) n * sizeof (bspline_affine));
  win->fixed = malloc ((size_t) (n_fixed + 1) * sizeof (bspline_affine));
  win->b = malloc ((size_t) n * sizeof (bspline_affine));
  make_camera (rng, kind, n, affine, sigma, 0.1 * sigma, width, height,
      win->camera);
  if (n_fixed > 0) {
    /* the first frames as a solve of them alone left them */
    TEST_CHECK (bspline_camera_path_new (&win->params, n, &cp, msg,
            sizeof (msg)) == BSPLINE_OK, "new: %s", msg);
    bspline_camera_path_solve (cp, win->camera, n, NULL, 0, win->b, NULL);
    for (t = 0; t < n_fixed; t++) {
      win->fixed[t] = win->b[t];
      /* and a little off that path, so that the joint matters */
      win->fixed[t].m[2] += 0.3 * gaussian (rng);
      win->fixed[t].m[5] += 0.3 * gaussian (rng);
    }
    bspline_camera_path_free (cp);
  }
  TEST_CHECK (bspline_camera_path_new (&win->params, n, &cp, msg,
          sizeof (msg)) == BSPLINE_OK, "new: %s", msg);
  TEST_CHECK (bspline_camera_path_solve (cp, win->camera, n, win->fixed,
          n_fixed, win->b, &win->info) == BSPLINE_OK, "%s: solve failed",
      win->name);
  bspline_camera_path_free (cp);
}

static void
free_window (window * win)
{
  free (win->camera);
  free (win->fixed);
  free (win->b);
}

static void
dump_affine (FILE * f, const bspline_affine * a)
{
  fprintf (f, "%.17g %.17g %.17g %.17g %.17g %.17g\n", a->m[0], a->m[1],
      a->m[2], a->m[3], a->m[4], a->m[5]);
}

static void
dump_window (FILE * f, const window * win)
{
  const bspline_camera_path_params *p = &win->params;
  int t;

  fprintf (f, "problem %s\n", win->name);
  fprintf (f, "size %d %d %d %d %.17g\n", win->n, p->width, p->height,
      p->model == BSPLINE_MOTION_AFFINE ? 6 : 4, p->zoom);
  fprintf (f, "weights %.17g %.17g %.17g %.17g %.17g %.17g\n", p->w1, p->w2,
      p->w3, p->linear_weight, p->crop_penalty > 0.0 ? p->crop_penalty
      : 20.0 * (p->w1 + p->w2 + p->w3), p->data_weight);
  fprintf (f, "proximity %.17g %.17g %.17g %.17g\n", p->max_scale,
      p->max_rotation, p->max_skew, p->max_aspect);
  fprintf (f, "fixed %d\n", win->n_fixed);
  for (t = 0; t < win->n; t++)
    dump_affine (f, &win->camera[t]);
  for (t = 0; t < win->n_fixed; t++)
    dump_affine (f, &win->fixed[t]);
  fprintf (f, "result %d %.17g %.17g %.17g %d\n", (int) win->info.status,
      win->info.objective, win->info.smoothness, win->info.max_violation,
      win->info.iterations);
  for (t = 0; t < win->n; t++)
    dump_affine (f, &win->b[t]);
  fprintf (f, "end\n");
}

/* The windows compared with linprog: every intent, both models, zooms that
 * leave room, that bind, and that cannot fit (< 0.9: the crop is larger
 * than the frame even scaled down by max_scale). */
static int
dump_windows (test_rng * rng, const char *path)
{
  static const double zooms[] = { 1.25, 1.1, 1.03, 1.0, 0.95, 0.85 };
  FILE *f = fopen (path, "w");
  int i, count = 0;

  if (f == NULL) {
    printf ("cannot write %s\n", path);
    return 1;
  }
  for (i = 0; i < 36; i++) {
    window win;
    intent kind = (intent) (i % 4);
    int affine = (i / 4) % 2, n = test_rng_int (rng, 8, 70);
    double zoom = zooms[i % 6], sigma = test_rng_range (rng, 1.0, 12.0);
    int n_fixed = i % 3 == 2 ? test_rng_int (rng, 1, 4) : 0;
    int big = i % 9 == 4;

    make_window (rng, &win, "random", kind, n, affine, zoom, sigma,
        n_fixed, big ? 1920 : W, big ? 1080 : H, NULL);
    dump_window (f, &win);
    free_window (&win);
    count++;
  }
  /* the quadratic program (data_weight > 0): the same mix, with the
   * weights of random_qp_weights and qp_zoom's zooms; every fourth window
   * small (6-12 frames) for the script's check by a general solver */
  for (i = 0; i < 24; i++) {
    window win;
    intent kind = (intent) (i % 4);
    int affine = (i / 4) % 2, big = i % 5 == 1;
    int n = i % 4 == 0 ? test_rng_int (rng, 6, 12) : test_rng_int (rng, 8, 70);
    double sigma = test_rng_range (rng, 1.0, 12.0);
    int n_fixed = i % 3 == 2 ? test_rng_int (rng, 1, 4) : 0;
    path_weights w = random_qp_weights (rng, (i / 6 + i) % 3, big ? 1920 : W,
        big ? 1080 : H);

    make_window (rng, &win, "qp", kind, n, affine, qp_zoom (i, w.max_scale),
        sigma, n_fixed, big ? 1920 : W, big ? 1080 : H, &w);
    dump_window (f, &win);
    free_window (&win);
    count++;
  }
  fclose (f);
  printf ("%d windows written to %s\n", count, path);
  return test_n_failures ? 1 : 0;
}

/* ---- the checks ---- */

static void
test_bad_arguments (void)
{
  bspline_camera_path_params p;
  bspline_camera_path *cp = NULL;
  bspline_affine camera[4], b[4], singular = { {1, 2, 0, 2, 4, 0} };
  char msg[256];
  int t;

  bspline_camera_path_params_init (&p, W, H);
  p.zoom = 0.0;
  TEST_CHECK (bspline_camera_path_new (&p, 10, &cp, msg, sizeof (msg))
      == BSPLINE_ERROR_INVALID_ARGUMENT && cp == NULL, "zoom 0 accepted");
  bspline_camera_path_params_init (&p, W, H);
  p.w3 = -1.0;
  TEST_CHECK (bspline_camera_path_new (&p, 10, &cp, msg, sizeof (msg))
      == BSPLINE_ERROR_INVALID_ARGUMENT, "negative weight accepted");
  bspline_camera_path_params_init (&p, W, H);
  p.max_rotation = 0.0;
  TEST_CHECK (bspline_camera_path_new (&p, 10, &cp, msg, sizeof (msg))
      == BSPLINE_ERROR_INVALID_ARGUMENT, "zero proximity bound accepted");
  bspline_camera_path_params_init (&p, W, H);
  TEST_CHECK (bspline_camera_path_new (&p, 0, &cp, msg, sizeof (msg))
      == BSPLINE_ERROR_INVALID_ARGUMENT, "0 frames accepted");
  TEST_CHECK (bspline_camera_path_new (&p, 4, &cp, msg, sizeof (msg))
      == BSPLINE_OK, "new: %s", msg);
  for (t = 0; t < 4; t++)
    bspline_affine_identity (&camera[t]);
  TEST_CHECK (bspline_camera_path_solve (cp, camera, 5, NULL, 0, b, NULL)
      == BSPLINE_ERROR_INVALID_ARGUMENT, "more frames than max accepted");
  TEST_CHECK (bspline_camera_path_solve (cp, camera, 4, NULL, 1, b, NULL)
      == BSPLINE_ERROR_INVALID_ARGUMENT, "fixed frames without values");
  camera[2] = singular;
  TEST_CHECK (bspline_camera_path_solve (cp, camera, 4, NULL, 0, b, NULL)
      == BSPLINE_ERROR_INVALID_TRANSFORM, "singular camera accepted");
  camera[2].m[0] = NAN;
  TEST_CHECK (bspline_camera_path_solve (cp, camera, 4, NULL, 0, b, NULL)
      == BSPLINE_ERROR_INVALID_TRANSFORM, "NaN camera accepted");
  bspline_camera_path_free (cp);
}

/* Random windows: statuses and the path's own constraints. */
static void
test_random_windows (test_rng * rng, int *n_optimal, int *n_infeasible,
    int *max_iterations)
{
  static const double zooms[] = { 1.25, 1.1, 1.03, 1.0, 0.95, 0.85 };
  int i, t;

  *n_optimal = *n_infeasible = *max_iterations = 0;
  for (i = 0; i < test_trials (48); i++) {
    window win;
    intent kind = (intent) (i % 4);
    int affine = (i / 4) % 2, n = test_rng_int (rng, 4, 90);
    double zoom = zooms[i % 6], sigma = test_rng_range (rng, 1.0, 15.0);
    double worst_prox = 0.0, identity_smooth;

    make_window (rng, &win, "check", kind, n, affine, zoom, sigma, 0, W, H,
        NULL);
    *max_iterations = win.info.iterations > *max_iterations ?
        win.info.iterations : *max_iterations;
    TEST_CHECK (win.info.status != BSPLINE_CAMERA_PATH_ITERATION_LIMIT,
        "%s: iteration limit", win.name);
    if (win.info.status == BSPLINE_CAMERA_PATH_OPTIMAL)
      (*n_optimal)++;
    else if (win.info.status == BSPLINE_CAMERA_PATH_INFEASIBLE)
      (*n_infeasible)++;
    /* zoom >= 1: B = I is feasible; zoom 0.85: nothing is */
    if (zoom >= 1.0)
      TEST_CHECK (win.info.status == BSPLINE_CAMERA_PATH_OPTIMAL,
          "%s: status %d with a feasible crop", win.name, win.info.status);
    if (zoom < 0.9)
      TEST_CHECK (win.info.status == BSPLINE_CAMERA_PATH_INFEASIBLE,
          "%s: status %d with a crop larger than the frame", win.name,
          win.info.status);
    if (win.info.status == BSPLINE_CAMERA_PATH_OPTIMAL)
      TEST_CHECK (win.info.max_violation <= 1e-3,
          "%s: optimal but the crop leaves the frame by %g px", win.name,
          win.info.max_violation);
    else
      TEST_CHECK (win.info.max_violation > 1e-3 && win.info.max_violation <
          0.5 * W, "%s: infeasible with violation %g px", win.name,
          win.info.max_violation);
    for (t = 0; t < n; t++)
      worst_prox = fmax (worst_prox, proximity_excess (&win.params, &win.b[t]));
    TEST_CHECK (worst_prox == 0.0, "%s: proximity bounds left by %g",
        win.name, worst_prox);
    /* the reported smoothness is the path's */
    TEST_CHECK (fabs (smoothness_of (&win.params, win.camera, win.b, n, 0)
            - win.info.smoothness) <= 1e-6 * (1.0 + win.info.smoothness),
        "%s: smoothness %.9g reported, %.9g measured", win.name,
        win.info.smoothness, smoothness_of (&win.params, win.camera, win.b,
            n, 0));
    /* no smoother than doing nothing would be a failure to optimise */
    if (zoom >= 1.0) {
      bspline_affine *id = malloc ((size_t) n * sizeof (bspline_affine));

      for (t = 0; t < n; t++)
        bspline_affine_identity (&id[t]);
      identity_smooth = smoothness_of (&win.params, win.camera, id, n, 0);
      TEST_CHECK (win.info.objective <= identity_smooth * (1.0 + 1e-9)
          + 1e-9, "%s: objective %g above B = I's %g", win.name,
          win.info.objective, identity_smooth);
      free (id);
    }
    free_window (&win);
  }
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* Random windows of the quadratic program (data_weight > 0): statuses as
 * for the linear program, fixed frames kept, the proximity bounds, the
 * reported objective against objective_of, and never above B = I's. */
static void
test_qp_windows (test_rng * rng, int *n_optimal, int *n_infeasible,
    int *max_iterations, double *worst_objective)
{
  int i, t;

  *n_optimal = *n_infeasible = *max_iterations = 0;
  *worst_objective = 0.0;
  for (i = 0; i < test_trials (24); i++) {
    window win;
    intent kind = (intent) (i % 4);
    int affine = (i / 4) % 2, big = i % 5 == 3, n = test_rng_int (rng, 4, 90);
    int width = big ? 1920 : W, height = big ? 1080 : H;
    int n_fixed = i % 3 == 1 ? test_rng_int (rng, 1, 4) : 0;
    double sigma = test_rng_range (rng, 1.0, 15.0), zoom, worst_prox = 0.0;
    double measured, rel;
    path_weights w = random_qp_weights (rng, (i / 6 + i) % 3, width, height);

    zoom = qp_zoom (i, w.max_scale);
    if (n_fixed >= n)
      n_fixed = n - 1;
    make_window (rng, &win, "qp", kind, n, affine, zoom, sigma, n_fixed,
        width, height, &w);
    *max_iterations = win.info.iterations > *max_iterations ?
        win.info.iterations : *max_iterations;
    TEST_CHECK (win.info.status != BSPLINE_CAMERA_PATH_ITERATION_LIMIT
        && win.info.iterations < w.max_iterations, "%s: iteration limit "
        "(%d iterations)", win.name, win.info.iterations);
    if (win.info.status == BSPLINE_CAMERA_PATH_OPTIMAL)
      (*n_optimal)++;
    else if (win.info.status == BSPLINE_CAMERA_PATH_INFEASIBLE)
      (*n_infeasible)++;
    if (zoom >= 1.0)
      TEST_CHECK (win.info.status == BSPLINE_CAMERA_PATH_OPTIMAL,
          "%s: status %d with a feasible crop", win.name, win.info.status);
    if (zoom < 1.0 - w.max_scale)
      TEST_CHECK (win.info.status == BSPLINE_CAMERA_PATH_INFEASIBLE,
          "%s: status %d with a crop larger than the frame", win.name,
          win.info.status);
    if (win.info.status == BSPLINE_CAMERA_PATH_OPTIMAL)
      TEST_CHECK (win.info.max_violation <= 1e-3,
          "%s: optimal but the crop leaves the frame by %g px", win.name,
          win.info.max_violation);
    else
      TEST_CHECK (win.info.max_violation > 1e-3 && win.info.max_violation <
          0.5 * width, "%s: infeasible with violation %g px", win.name,
          win.info.max_violation);
    for (t = 0; t < n_fixed; t++)
      TEST_CHECK (memcmp (&win.b[t], &win.fixed[t], sizeof (win.b[t])) == 0,
          "%s: fixed frame %d changed", win.name, t);
    for (t = 0; t < n; t++)
      worst_prox = fmax (worst_prox, proximity_excess (&win.params, &win.b[t]));
    TEST_CHECK (worst_prox == 0.0, "%s: proximity bounds left by %g",
        win.name, worst_prox);
    measured = objective_of (&win.params, win.camera, win.b, n, n_fixed);
    rel = fabs (measured - win.info.objective) / (1.0 +
        fabs (win.info.objective));
    *worst_objective = fmax (*worst_objective, rel);
    TEST_CHECK (rel <= 1e-6, "%s: objective %.12g reported, %.12g measured",
        win.name, win.info.objective, measured);
    /* B = I on the free frames is feasible when zoom >= 1, and its
     * fidelity is 0 */
    if (zoom >= 1.0) {
      bspline_affine *id = malloc ((size_t) n * sizeof (bspline_affine));
      double identity_cost;

      for (t = 0; t < n; t++) {
        if (t < n_fixed)
          id[t] = win.fixed[t];
        else
          bspline_affine_identity (&id[t]);
      }
      identity_cost = objective_of (&win.params, win.camera, id, n, n_fixed);
      TEST_CHECK (win.info.objective <= identity_cost * (1.0 + 1e-9) + 1e-9,
          "%s: objective %g above B = I's %g", win.name, win.info.objective,
          identity_cost);
      free (id);
    }
    free_window (&win);
  }
}

/* core/stabilize/stabilize.c's default path: the stabilizer's weights on shaky
 * 1920x1080 clips, one frame output per solve over [j - 3, j + 15] with the
 * frames behind fixed to what was output (19 frames), and the whole clip
 * of 300 frames at once.  Every solve must be optimal within the 200
 * iterations; the median time of a full 19-frame similarity window is the
 * per-frame cost of the element's default path. */
static void
test_stabilizer_weights (test_rng * rng, int *max_window_iterations,
    double *window_us, int *n_timed, int *max_whole_iterations)
{
  const int width = 1920, height = 1080, clip = 120, whole = 300;
  const int span = STAB_FIXED + 1 + STAB_AHEAD;
  path_weights w = stabilizer_weights (width, height);
  bspline_camera_path_params p;
  bspline_camera_path *cp, *whole_cp;
  bspline_camera_path_info info;
  bspline_affine *camera = malloc (whole * sizeof (bspline_affine));
  bspline_affine *slid = malloc (clip * sizeof (bspline_affine));
  bspline_affine *b = malloc (whole * sizeof (bspline_affine));
  double *times = malloc (4 * clip * sizeof (double));
  int n_times = 0, c, j;
  char msg[256];

  *max_window_iterations = *max_whole_iterations = 0;
  for (c = 0; c < 6; c++) {
    intent kind = (intent) (c % 4);
    int affine = c >= 4;

    bspline_camera_path_params_init (&p, width, height);
    p.model = affine ? BSPLINE_MOTION_AFFINE : BSPLINE_MOTION_SIMILARITY;
    p.zoom = STAB_ZOOM;
    apply_weights (&p, &w);
    TEST_CHECK (bspline_camera_path_new (&p, span, &cp, msg, sizeof (msg))
        == BSPLINE_OK, "new: %s", msg);
    TEST_CHECK (bspline_camera_path_new (&p, whole, &whole_cp, msg,
            sizeof (msg)) == BSPLINE_OK, "new: %s", msg);
    make_camera (rng, kind, whole, affine, 10.0, 0.5, width, height, camera);
    for (j = 0; j < clip; j++) {
      int first = j - STAB_FIXED > 0 ? j - STAB_FIXED : 0;
      int last = j + STAB_AHEAD < clip - 1 ? j + STAB_AHEAD : clip - 1;
      struct timespec t0, t1;

      clock_gettime (CLOCK_MONOTONIC, &t0);
      bspline_camera_path_solve (cp, camera + first, last - first + 1,
          slid + first, j - first, b, &info);
      clock_gettime (CLOCK_MONOTONIC, &t1);
      TEST_CHECK (info.status == BSPLINE_CAMERA_PATH_OPTIMAL
          && info.iterations < w.max_iterations, "stabilizer weights (%s, "
          "%s): window at %d status %d after %d iterations",
          intent_names[kind], affine ? "affine" : "similarity", j,
          info.status, info.iterations);
      *max_window_iterations = info.iterations > *max_window_iterations ?
          info.iterations : *max_window_iterations;
      if (!affine && last - first + 1 == span)
        times[n_times++] = (t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_nsec -
            t0.tv_nsec) * 1e-3;
      slid[j] = b[j - first];
    }
    bspline_camera_path_solve (whole_cp, camera, whole, NULL, 0, b, &info);
    TEST_CHECK (info.status == BSPLINE_CAMERA_PATH_OPTIMAL
        && info.iterations < w.max_iterations, "stabilizer weights (%s, %s): "
        "whole clip of %d frames status %d after %d iterations",
        intent_names[kind], affine ? "affine" : "similarity", whole,
        info.status, info.iterations);
    *max_whole_iterations = info.iterations > *max_whole_iterations ?
        info.iterations : *max_whole_iterations;
    bspline_camera_path_free (cp);
    bspline_camera_path_free (whole_cp);
  }
  qsort (times, n_times, sizeof (double), compare_double);
  *window_us = n_times ? times[n_times / 2] : 0.0;
  *n_timed = n_times;
  free (camera);
  free (slid);
  free (b);
  free (times);
}

/* A tripod shot comes out still; a pan that stops and starts comes out as
 * constant-velocity pieces. */
static void
test_tripod_and_stop_start (test_rng * rng, double *tripod_motion,
    double *still_motion, int *kinks)
{
  window win;
  double r[8], r1[8];
  int t, n = 90;

  make_window (rng, &win, "tripod", INTENT_TRIPOD, n, 0, 1.15, 4.0, 0, W, H,
      NULL);
  TEST_CHECK (win.info.status == BSPLINE_CAMERA_PATH_OPTIMAL,
      "tripod: status %d", win.info.status);
  *tripod_motion = 0.0;
  for (t = 0; t + 1 < n; t++) {
    residual_corners (win.camera, win.b, t, 1.15, W, H, r);
    *tripod_motion = fmax (*tripod_motion, corner_norm (r, NULL, 0.0));
  }
  TEST_CHECK (*tripod_motion < 1e-3, "tripod: the output moves %g px",
      *tripod_motion);
  free_window (&win);

  make_window (rng, &win, "stop-start", INTENT_STOP_START, n, 0, 1.15, 4.0,
      0, W, H, NULL);
  TEST_CHECK (win.info.status == BSPLINE_CAMERA_PATH_OPTIMAL,
      "stop-start: status %d", win.info.status);
  /* the path is made of constant, constant-velocity and
   * constant-acceleration pieces: its third difference is sparse (the
   * joints between pieces, each parameter its own), at most a quarter of
   * the frames where the shaky camera's changes at every frame */
  *kinks = 0;
  for (t = 0; t + 3 < n; t++) {
    double r2[8];
    int i;

    residual_corners (win.camera, win.b, t, 1.15, W, H, r);
    residual_corners (win.camera, win.b, t + 1, 1.15, W, H, r1);
    residual_corners (win.camera, win.b, t + 2, 1.15, W, H, r2);
    for (i = 0; i < 8; i++)
      r2[i] += r[i] - 2.0 * r1[i];
    if (corner_norm (r2, NULL, 0.0) > 1e-3)
      (*kinks)++;
  }
  TEST_CHECK (*kinks <= n / 4, "stop-start: the acceleration changes at "
      "%d of %d frames", *kinks, n);
  /* the still middle third ends still (the path may still be catching up
   * with the pan where it begins) */
  *still_motion = 0.0;
  for (t = 2 * n / 3 - 8; t < 2 * n / 3 - 2; t++) {
    residual_corners (win.camera, win.b, t, 1.15, W, H, r);
    *still_motion = fmax (*still_motion, corner_norm (r, NULL, 0.0));
  }
  free_window (&win);
}

/* Fixed frames are returned as given and the rest continues from them. */
static void
test_fixed_frames (test_rng * rng)
{
  window win;
  int t, k;

  make_window (rng, &win, "fixed", INTENT_PAN, 40, 0, 1.1, 5.0, 3, W, H, NULL);
  for (t = 0; t < 3; t++)
    for (k = 0; k < 6; k++)
      TEST_CHECK (win.b[t].m[k] == win.fixed[t].m[k],
          "fixed frame %d entry %d changed", t, k);
  TEST_CHECK (win.info.status == BSPLINE_CAMERA_PATH_OPTIMAL,
      "fixed: status %d", win.info.status);
  free_window (&win);
}

/* One frame output per solve over [j - 3, j + ahead], the 3 frames behind
 * fixed to what was output, against the whole clip solved at once. */
static void
test_sliding_window (test_rng * rng, intent kind, int affine, int ahead,
    double *distance, double *cost_ratio, double *excess, double *jump,
    double *whole_jump)
{
  int n = 240, behind = 3, j, t;
  double zoom = 1.12, sigma = 4.0;
  bspline_camera_path_params p;
  bspline_camera_path *whole_cp, *cp;
  bspline_camera_path_info info;
  bspline_affine *camera = malloc (n * sizeof (bspline_affine));
  bspline_affine *whole = malloc (n * sizeof (bspline_affine));
  bspline_affine *slid = malloc (n * sizeof (bspline_affine));
  bspline_affine *win = malloc ((behind + 1 + ahead) * sizeof (*win));
  char msg[256];

  bspline_camera_path_params_init (&p, W, H);
  p.model = affine ? BSPLINE_MOTION_AFFINE : BSPLINE_MOTION_SIMILARITY;
  p.zoom = zoom;
  make_camera (rng, kind, n, affine, sigma, 0.1 * sigma, W, H, camera);
  TEST_CHECK (bspline_camera_path_new (&p, n, &whole_cp, msg,
          sizeof (msg)) == BSPLINE_OK, "new: %s", msg);
  TEST_CHECK (bspline_camera_path_new (&p, behind + 1 + ahead, &cp, msg,
          sizeof (msg)) == BSPLINE_OK, "new: %s", msg);
  bspline_camera_path_solve (whole_cp, camera, n, NULL, 0, whole, &info);
  TEST_CHECK (info.status == BSPLINE_CAMERA_PATH_OPTIMAL,
      "sliding: whole clip status %d", info.status);
  for (j = 0; j < n; j++) {
    int first = j - behind > 0 ? j - behind : 0;
    int last = j + ahead < n - 1 ? j + ahead : n - 1;

    bspline_camera_path_solve (cp, camera + first, last - first + 1,
        slid + first, j - first, win, &info);
    TEST_CHECK (info.status == BSPLINE_CAMERA_PATH_OPTIMAL,
        "sliding: window at %d status %d", j, info.status);
    slid[j] = win[j - first];
  }
  /* the sliding path's cost over the whole clip against the optimum */
  {
    double c_slid = smoothness_of (&p, camera, slid, n, 0);
    double c_whole = smoothness_of (&p, camera, whole, n, 0);

    *cost_ratio = c_slid / fmax (c_whole, 1e-300);
    /* the excess as frame-to-frame motion: pixels per frame at weight w1 */
    *excess = (c_slid - c_whole) / (p.w1 * n);
  }
  /* for information: how far the framings are apart away from the ends */
  *distance = 0.0;
  for (j = ahead; j < n - ahead; j++)
    *distance = fmax (*distance, path_distance (&slid[j], &whole[j], zoom,
            W, H));
  /* the largest change of velocity, sliding and whole */
  *jump = *whole_jump = 0.0;
  for (t = 0; t + 2 < n; t++) {
    double r[8], r1[8];

    residual_corners (camera, slid, t, zoom, W, H, r);
    residual_corners (camera, slid, t + 1, zoom, W, H, r1);
    *jump = fmax (*jump, corner_norm (r1, r, 1.0));
    residual_corners (camera, whole, t, zoom, W, H, r);
    residual_corners (camera, whole, t + 1, zoom, W, H, r1);
    *whole_jump = fmax (*whole_jump, corner_norm (r1, r, 1.0));
  }
  bspline_camera_path_free (whole_cp);
  bspline_camera_path_free (cp);
  free (camera);
  free (whole);
  free (slid);
  free (win);
}

/* Median time of one solve of an n-frame window, microseconds. */
static double
time_window (test_rng * rng, int n, int affine, int *iterations)
{
  bspline_camera_path_params p;
  bspline_camera_path *cp;
  bspline_camera_path_info info;
  bspline_affine *camera = malloc (n * sizeof (bspline_affine));
  bspline_affine *b = malloc (n * sizeof (bspline_affine));
  double times[41], median;
  char msg[256];
  int run, runs = test_trials (41) | 1;

  bspline_camera_path_params_init (&p, 1920, 1080);
  p.model = affine ? BSPLINE_MOTION_AFFINE : BSPLINE_MOTION_SIMILARITY;
  TEST_CHECK (bspline_camera_path_new (&p, n, &cp, msg, sizeof (msg))
      == BSPLINE_OK, "new: %s", msg);
  *iterations = 0;
  for (run = 0; run < runs; run++) {
    struct timespec t0, t1;

    make_camera (rng, (intent) (run % 4), n, affine, 10.0, 0.5, 1920, 1080,
        camera);
    clock_gettime (CLOCK_MONOTONIC, &t0);
    bspline_camera_path_solve (cp, camera, n, NULL, 0, b, &info);
    clock_gettime (CLOCK_MONOTONIC, &t1);
    times[run] = (t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_nsec -
        t0.tv_nsec) * 1e-3;
    *iterations = info.iterations > *iterations ? info.iterations : *iterations;
  }
  qsort (times, runs, sizeof (double), compare_double);
  median = times[runs / 2];
  bspline_camera_path_free (cp);
  free (camera);
  free (b);
  return median;
}

int
main (int argc, char **argv)
{
  test_rng rng;
  int n_optimal, n_infeasible, max_iter, kinks, it60, it60a, it300;
  int qp_optimal, qp_infeasible, qp_iter, it19, n19, it_whole;
  double tripod, still, t60, t60a, t300, qp_objective, t19;
  double dist[4], ratio[4], excess[4], jump[4], whole_jump[4];
  static const intent slide_kinds[4] = { INTENT_PAN, INTENT_STOP_START,
    INTENT_WANDER, INTENT_TRIPOD
  };
  int i;

  test_begin ("camera-path", &rng);
  if (argc == 3 && strcmp (argv[1], "--dump") == 0)
    return dump_windows (&rng, argv[2]);
  if (argc != 1) {
    printf ("usage: %s [--dump FILE]\n", argv[0]);
    return 2;
  }
  test_bad_arguments ();
  test_random_windows (&rng, &n_optimal, &n_infeasible, &max_iter);
  printf ("random windows: %d optimal, %d infeasible, at most %d "
      "iterations\n", n_optimal, n_infeasible, max_iter);
  test_qp_windows (&rng, &qp_optimal, &qp_infeasible, &qp_iter, &qp_objective);
  printf ("quadratic-program windows (data_weight > 0): %d optimal, %d "
      "infeasible, at most %d iterations, objective within %.2g of its "
      "evaluation (relative)\n", qp_optimal, qp_infeasible, qp_iter,
      qp_objective);
  test_stabilizer_weights (&rng, &it19, &t19, &n19, &it_whole);
  printf ("stabilizer weights (w 5 300 100, data_weight 550 / diagonal, "
      "max_scale 0.05, zoom 1.3), 1920x1080: 19-frame sliding windows at "
      "most %d iterations, 300-frame whole clips at most %d (limit 200)\n",
      it19, it_whole);
  test_tripod_and_stop_start (&rng, &tripod, &still, &kinks);
  printf ("tripod: output moves at most %.2g px; stop-start: end of the "
      "still part %.2g px/frame, acceleration changes at %d of 90 frames\n",
      tripod, still, kinks);
  test_fixed_frames (&rng);
  for (i = 0; i < test_trials (4); i++) {
    test_sliding_window (&rng, slide_kinds[i], i == 2, 40, &dist[i],
        &ratio[i], &excess[i], &jump[i], &whole_jump[i]);
    printf ("sliding window (%s, %s, 40 ahead): cost %.4g x the whole-clip "
        "optimum (excess %.2g px/frame), largest velocity change %.3g "
        "px/frame (whole clip %.3g); framing %.3g px from the whole-clip "
        "path's\n", intent_names[slide_kinds[i]],
        i == 2 ? "affine" : "similarity", ratio[i], excess[i], jump[i],
        whole_jump[i], dist[i]);
    /* L1 optima are not unique (a still shot may sit anywhere that fits)
     * and 40 frames ahead do not show every constraint the whole clip
     * has, so the path is judged by its cost over the whole clip: its
     * excess over the optimum, as frame-to-frame motion at weight w1, at
     * most a tenth of the shake's own frame-to-frame motion (4 sqrt 2
     * px RMS); and no jump where the windows meet larger than the whole
     * clip's own largest change of velocity plus 0.5 px */
    TEST_CHECK (excess[i] <= 0.1 * 4.0 * sqrt (2.0), "sliding window %d: "
        "cost %g x the whole-clip optimum (%g px/frame more)", i, ratio[i],
        excess[i]);
    TEST_CHECK (jump[i] <= whole_jump[i] + 0.5, "sliding window %d: jump "
        "%g px/frame, the whole clip's largest %g", i, jump[i], whole_jump[i]);
  }
  t60 = time_window (&rng, 60, 0, &it60);
  t60a = time_window (&rng, 60, 1, &it60a);
  t300 = time_window (&rng, 300, 0, &it300);
  printf ("time per solve (median of %d, 1920x1080): 60 frames similarity "
      "%.0f us (%d iterations at most), affine %.0f us (%d), 300 frames "
      "similarity %.0f us (%d); 19 frames similarity, 3 fixed, the "
      "stabilizer's weights %.0f us (median of %d sliding windows, %d "
      "iterations at most)\n", test_trials (41) | 1, t60, it60, t60a, it60a, t300, it300, t19, n19,
      it19);
  return test_end ("%d optimal and %d infeasible windows, %d and %d of the "
      "quadratic program, tripod %.2g px, 60-frame window %.0f us, 19-frame "
      "stabilizer window %.0f us", n_optimal, n_infeasible, qp_optimal,
      qp_infeasible, tripod, t60, t19);
}
