/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-stmap: the STMap stage's maths (core/stmap/stmap.c, bspline_stmap_map)
 * against references written here, and through plans.
 *
 * - The map against a reference built another way: the map's samples
 *   extended explicitly by point symmetry far past both ends, the cubic
 *   interpolation system (beta(-1), beta(0), beta(1)) = (1, 4, 1) / 6 solved
 *   directly (Thomas' algorithm, long double) on the long lines, and the
 *   B-spline summed from its explicit formula; at random positions over
 *   the whole frame, margins included, on random maps of 1x1 to 13x11
 *   samples: values to 1e-12, the Jacobian against central differences of
 *   the reference to 1e-6; outside the frame, the tangent at the nearest
 *   edge point.
 * - Interpolation: at every sample's centre the map returns the sample
 *   (with t turned into y = 1 - t: the convention's one conversion).
 * - Identity maps of every size 1..9 x 1..9 and 64 x 36: exactly linear
 *   (x = mx / W, y = my / H) with the Jacobian diag (1 / W, 1 / H), to
 *   1e-13, the half-sample margins included (a 1-sample map is a
 *   constant and is left out of the linear check).
 * - Through plans (CPU engine, double): an identity STMap of any size on
 *   a random picture gives the same frame as no stage at all, alone, with
 *   a 2x caps upscale, with a rotation and with 4:2:0 chroma planes, to
 *   1e-9 of the range; a map with a shift gives the shifted frame.
 * - Bad input: NaN and infinite samples (the message names the sample),
 *   sizes 0 and huge, a map of another aspect ratio (the message names
 *   both sizes), a plan without a map; the reference count (ASan and
 *   valgrind see leaks and double frees).
 */
#include "test-common.h"
#include "bspline-geometry.h"
#include "bspline-stage.h"
#include "bspline-stmap.h"

#define EXTEND 48

/* The point-symmetric extension of a line of n values at index k. */
static long double
ref_extended (const long double *f, int n, int k)
{
  if (n == 1)
    return f[0];
  if (k < 0)
    return 2.0L * f[0] - ref_extended (f, n, -k);
  if (k > n - 1)
    return 2.0L * f[n - 1] - ref_extended (f, n, 2 * (n - 1) - k);
  return f[k];
}

/* Coefficients of the interpolating cubic of the long line g[0..len-1]
 * (the system's first and last rows clamped to c = g: their error decays
 * by 0.268 per sample, 1e-27 after EXTEND). */
static void
ref_solve (long double *g, int len)
{
  long double *cp = malloc (sizeof (long double) * len);
  long double *dp = malloc (sizeof (long double) * len);
  int i;

  /* rows 1..len-2: (g[i-1] + 4 g[i] + g[i+1]) / 6 = f; rows 0, len-1: c = g */
  cp[0] = 0.0L;
  dp[0] = g[0];
  for (i = 1; i < len - 1; i++) {
    long double m = 4.0L / 6.0L - (1.0L / 6.0L) * cp[i - 1];
    cp[i] = (1.0L / 6.0L) / m;
    dp[i] = (g[i] - (1.0L / 6.0L) * dp[i - 1]) / m;
  }
  g[len - 1] = g[len - 1];
  for (i = len - 2; i >= 1; i--)
    g[i] = dp[i] - cp[i] * g[i + 1];
  free (cp);
  free (dp);
}

typedef struct
{
  int w, h, lw, lh;
  long double *c[2];            /* coefficients on the extended grid */
} ref_map;

static void
ref_build (ref_map * r, const double *st, int w, int h)
{
  int ch, x, y;
  r->w = w;
  r->h = h;
  r->lw = w + 2 * EXTEND;
  r->lh = h + 2 * EXTEND;
  for (ch = 0; ch < 2; ch++) {
    long double *line = malloc (sizeof (long double) * (r->lw > r->lh ?
            r->lw : r->lh));
    long double *rows = malloc (sizeof (long double) * (size_t) r->lw * h);
    long double *c = malloc (sizeof (long double) * (size_t) r->lw * r->lh);
    for (y = 0; y < h; y++) {
      for (x = 0; x < w; x++) {
        double v = st[2 * ((size_t) y * w + x) + ch];
        line[x] = ch ? 1.0L - v : v;
      }
      for (x = 0; x < r->lw; x++)
        rows[(size_t) y * r->lw + x] = ref_extended (line, w, x - EXTEND);
      ref_solve (rows + (size_t) y * r->lw, r->lw);
    }
    for (x = 0; x < r->lw; x++) {
      long double *col = malloc (sizeof (long double) * r->lh);
      for (y = 0; y < h; y++)
        line[y] = rows[(size_t) y * r->lw + x];
      for (y = 0; y < r->lh; y++)
        col[y] = ref_extended (line, h, y - EXTEND);
      ref_solve (col, r->lh);
      for (y = 0; y < r->lh; y++)
        c[(size_t) y * r->lw + x] = col[y];
      free (col);
    }
    free (rows);
    free (line);
    r->c[ch] = c;
  }
}

static void
ref_free (ref_map * r)
{
  free (r->c[0]);
  free (r->c[1]);
}

static void
ref_eval (const ref_map * r, long double mx, long double my, long double *x,
    long double *y)
{
  long double tx = mx - 0.5L + EXTEND, ty = my - 0.5L + EXTEND, sx = 0.0L,
      sy = 0.0L;
  int i, j, i0 = (int) floorl (tx) - 2, j0 = (int) floorl (ty) - 2;
  for (j = j0; j <= j0 + 4; j++)
    for (i = i0; i <= i0 + 4; i++) {
      long double b;
      if (i < 0 || j < 0 || i >= r->lw || j >= r->lh)
        continue;
      b = test_bspline_explicit (3, tx - i) * test_bspline_explicit (3,
          ty - j);
      sx += b * r->c[0][(size_t) j * r->lw + i];
      sy += b * r->c[1][(size_t) j * r->lw + i];
    }
  *x = sx;
  *y = sy;
}

static void
check_against_reference (test_rng * rng, double *worst_v, double *worst_j)
{
  int trial;

  for (trial = 0; trial < 60; trial++) {
    int w = test_rng_int (rng, 1, 13), h = test_rng_int (rng, 1, 11), i;
    double *st = malloc (sizeof (double) * 2 * w * h);
    bspline_stmap *map = NULL;
    ref_map ref;
    char msg[256];

    for (i = 0; i < 2 * w * h; i++)
      st[i] = test_rng_range (rng, -0.5, 1.5);
    TEST_CHECK (bspline_stmap_new (st, w, h, &map, msg, sizeof (msg))
        == BSPLINE_OK, "%dx%d map: %s", w, h, msg);
    if (!map) {
      free (st);
      continue;
    }
    ref_build (&ref, st, w, h);

    /* interpolation at the samples */
    for (i = 0; i < w * h; i++) {
      double x = NAN, y = NAN;
      bspline_stmap_eval (map, i % w + 0.5, i / w + 0.5, &x, &y);
      TEST_CHECK (fabs (x - st[2 * i]) <= 1e-12
          && fabs (y - (1.0 - st[2 * i + 1])) <= 1e-12,
          "%dx%d map: sample %d gives (%.17g, %.17g), not (%.17g, %.17g)",
          w, h, i, x, y, st[2 * i], 1.0 - st[2 * i + 1]);
    }
    /* anywhere, margins and edges included */
    for (i = 0; i < 200; i++) {
      double mx = i < 4 ? (i & 1) * w : test_rng_range (rng, 0.0, w);
      double my = i < 4 ? (i >> 1) * h : test_rng_range (rng, 0.0, h);
      double x = NAN, y = NAN, J[4] = { NAN, NAN, NAN, NAN }, e = 1e-5;
      long double rx, ry, px, py, qx, qy;
      size_t bytes;
      const double *coef = bspline_stmap_coefficients (map, &bytes);
      int ok = bspline_stmap_map (coef, w, h, mx, my, &x, &y, J);
      TEST_CHECK (ok, "%dx%d map: no value at (%g, %g)", w, h, mx, my);
      ref_eval (&ref, mx, my, &rx, &ry);
      *worst_v = fmax (*worst_v, fmax (fabs (x - (double) rx),
              fabs (y - (double) ry)));
      TEST_CHECK (fabs (x - (double) rx) <= 1e-12
          && fabs (y - (double) ry) <= 1e-12, "%dx%d map at (%.17g, %.17g): "
          "(%.17g, %.17g), reference (%.17g, %.17g)", w, h, mx, my, x, y,
          (double) rx, (double) ry);
      ref_eval (&ref, mx + e, my, &px, &py);
      ref_eval (&ref, mx - e, my, &qx, &qy);
      {
        double dxx = (double) ((px - qx) / (2 * e));
        double dyx = (double) ((py - qy) / (2 * e));
        ref_eval (&ref, mx, my + e, &px, &py);
        ref_eval (&ref, mx, my - e, &qx, &qy);
        {
          double dxy = (double) ((px - qx) / (2 * e));
          double dyy = (double) ((py - qy) / (2 * e));
          double err = fmax (fmax (fabs (J[0] - dxx), fabs (J[1] - dxy)),
              fmax (fabs (J[2] - dyx), fabs (J[3] - dyy)));
          *worst_j = fmax (*worst_j, err);
          TEST_CHECK (err <= 1e-6, "%dx%d map at (%g, %g): Jacobian "
              "(%g %g; %g %g), differences (%g %g; %g %g)", w, h, mx, my,
              J[0], J[1], J[2], J[3], dxx, dxy, dyx, dyy);
        }
      }
    }
    /* outside the frame: the tangent at the nearest edge point */
    for (i = 0; i < 50; i++) {
      double mx = test_rng_range (rng, -3.0 * w, 4.0 * w);
      double my = test_rng_range (rng, -3.0 * h, 4.0 * h);
      double cx = fmin (fmax (mx, 0.0), w), cy = fmin (fmax (my, 0.0), h);
      double x = NAN, y = NAN, ex, ey, J[4] = { 0.0, 0.0, 0.0, 0.0 };
      long double rx, ry;
      bspline_stmap_map (bspline_stmap_coefficients (map, NULL), w, h, cx,
          cy, &x, &y, J);
      ref_eval (&ref, cx, cy, &rx, &ry);
      ex = (double) rx + J[0] * (mx - cx) + J[1] * (my - cy);
      ey = (double) ry + J[2] * (mx - cx) + J[3] * (my - cy);
      bspline_stmap_eval (map, mx, my, &x, &y);
      TEST_CHECK (fabs (x - ex) <= 1e-11 * (1 + fabs (ex))
          && fabs (y - ey) <= 1e-11 * (1 + fabs (ey)), "%dx%d map at "
          "(%g, %g), outside: (%.17g, %.17g), the edge's tangent gives "
          "(%.17g, %.17g)", w, h, mx, my, x, y, ex, ey);
    }
    {
      double x, y;
      TEST_CHECK (!bspline_stmap_eval (map, NAN, 0.5, &x, &y),
          "%dx%d map: a value at NaN", w, h);
    }
    ref_free (&ref);
    bspline_stmap_unref (map);
    free (st);
  }
}

static double *
identity_st (int w, int h, double shift_x, double shift_y)
{
  double *st = malloc (sizeof (double) * 2 * w * h);
  int x, y;
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      st[2 * (y * w + x)] = (x + 0.5) / w + shift_x;
      st[2 * (y * w + x) + 1] = 1.0 - (y + 0.5) / h - shift_y;
    }
  return st;
}

static void
check_identity_maps (test_rng * rng, double *worst)
{
  static const int sides[][2] = { {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5},
  {6, 6}, {7, 7}, {8, 8}, {9, 9}, {64, 36}
  };
  int a, b, w, h, k;
  for (a = 0; a < 10; a++)
    for (b = 0; b < 10; b++) {
      w = sides[a][0];
      h = sides[b][1];
      double *st = identity_st (w, h, 0.0, 0.0);
      bspline_stmap *map = NULL;
      const double *coef;
      char msg[256];
      if (bspline_stmap_new (st, w, h, &map, msg, sizeof (msg)) != BSPLINE_OK) {
        TEST_CHECK (0, "identity %dx%d: %s", w, h, msg);
        free (st);
        continue;
      }
      coef = bspline_stmap_coefficients (map, NULL);
      for (k = 0; k < 100; k++) {
        double mx = k == 0 ? 0.0 : k == 1 ? w : test_rng_range (rng, 0, w);
        double my = k == 0 ? 0.0 : k == 1 ? h : test_rng_range (rng, 0, h);
        double x = NAN, y = NAN, J[4] = { NAN, NAN, NAN, NAN };
        double ex = w > 1 ? mx / w : 0.5, ey = h > 1 ? my / h :
            0.5;
        double jx = w > 1 ? 1.0 / w : 0.0, jy = h > 1 ? 1.0 / h : 0.0;
        double err;
        bspline_stmap_map (coef, w, h, mx, my, &x, &y, J);
        err = fmax (fmax (fabs (x - ex), fabs (y - ey)),
            fmax (fmax (fabs (J[0] - jx), fabs (J[3] - jy)),
                fmax (fabs (J[1]), fabs (J[2]))));
        *worst = fmax (*worst, err);
        TEST_CHECK (err <= 1e-13, "identity %dx%d at (%.17g, %.17g): "
            "(%.17g, %.17g) J (%g %g; %g %g), expected (%.17g, %.17g)", w,
            h, mx, my, x, y, J[0], J[1], J[2], J[3], ex, ey);
      }
      bspline_stmap_unref (map);
      free (st);
    }
}

/* One plane through the CPU engine in double: with the stage (map may be
 * NULL: none) and returns the frame. */
static int
run_plane (bspline_cpu * cpu, const bspline_geometry * g,
    const bspline_plane_grid * grid, const bspline_image * src,
    bspline_image * dst, char *msg, size_t msg_len)
{
  bspline_params p;
  bspline_lens lens;
  bspline_plan *plan = NULL;
  double m[9];
  bspline_status st;

  bspline_params_init (&p);
  p.precision = BSPLINE_PRECISION_DOUBLE;
  p.antialias = BSPLINE_ANTIALIAS_NONE;
  st = bspline_geometry_plane_map (g, grid, m, &lens, msg, msg_len);
  if (st == BSPLINE_OK)
    st = bspline_plan_new_lens (&p, m, &lens, src->width, src->height,
        dst->width, dst->height, src->channels, &plan, msg, msg_len);
  if (st == BSPLINE_OK) {
    st = bspline_cpu_execute (cpu, plan, src, dst);
    if (st != BSPLINE_OK)
      snprintf (msg, msg_len, "%s", bspline_cpu_last_error (cpu));
  }
  bspline_plan_free (plan);
  return st == BSPLINE_OK;
}

static void
check_plans (test_rng * rng, double *worst)
{
  bspline_cpu *cpu = bspline_cpu_new (2);
  const int W = 48, H = 30;
  int c;

  TEST_CHECK (cpu != NULL, "no engine");
  if (!cpu)
    return;
  for (c = 0; c < 10; c++) {
    /* map sizes: the frame's, half, double, a few samples; output sizes:
     * the same and a 2x upscale; a rotation; a 4:2:0 chroma plane */
    static const int map_sizes[][2] = { {48, 30}, {24, 15}, {96, 60},
    {16, 10}, {49, 30}
    };
    const int *ms = map_sizes[c % 5];
    int up = c >= 5 && c < 8, rotate = c == 8, chroma = c == 9;
    bspline_plane_grid grid = { 1, 1, 0.0, 0.0 };
    int sw = chroma ? W / 2 : W, sh = chroma ? H / 2 : H;
    int dw = up ? 2 * sw : sw, dh = up ? 2 * sh : sh;
    double *st = identity_st (ms[0], ms[1], 0.0, 0.0);
    bspline_stmap *map = NULL;
    bspline_geometry g;
    bspline_image src, a, b;
    char msg[256] = "";
    int x, y;
    double err = 0.0, range[2];

    if (chroma) {
      grid.sub_x = grid.sub_y = 2;
      grid.offset_x = grid.offset_y = 0.0;
    }
    TEST_CHECK (bspline_stmap_new (st, ms[0], ms[1], &map, msg,
            sizeof (msg)) == BSPLINE_OK, "map: %s", msg);
    test_image_alloc (&src, sw, sh, 1, BSPLINE_SAMPLE_F64, 0);
    test_image_fill_random (&src, rng, 0.0, 1.0, range);
    test_image_alloc (&a, dw, dh, 1, BSPLINE_SAMPLE_F64, 0);
    test_image_alloc (&b, dw, dh, 1, BSPLINE_SAMPLE_F64, 0);
    bspline_geometry_init (&g, W, H, up ? 2 * W : W, up ? 2 * H : H);
    if (rotate)
      g.rotation = 17.0;
    TEST_CHECK (run_plane (cpu, &g, &grid, &src, &a, msg, sizeof (msg)),
        "case %d, no stage: %s", c, msg);
    g.lens_model = BSPLINE_LENS_STMAP;
    g.stmap = map;
    if (ms[0] == 49) {
      /* 49 x 30 over 48 x 30 is within one sample of the aspect: allowed;
       * it is not the identity of the frame, so compare with itself */
      TEST_CHECK (run_plane (cpu, &g, &grid, &src, &b, msg, sizeof (msg)),
          "case %d, 49x30 map: %s", c, msg);
    } else {
      TEST_CHECK (run_plane (cpu, &g, &grid, &src, &b, msg, sizeof (msg)),
          "case %d, identity STMap: %s", c, msg);
      for (y = 0; y < dh; y++)
        for (x = 0; x < dw; x++)
          err = fmax (err, fabs (test_image_get (&a, x, y, 0)
                  - test_image_get (&b, x, y, 0)));
      *worst = fmax (*worst, err);
      TEST_CHECK (err <= 1e-9, "case %d (map %dx%d, %dx%d -> %dx%d%s%s): "
          "the identity STMap differs from no stage by %g", c, ms[0], ms[1],
          sw, sh, dw, dh, rotate ? ", rotated" : "", chroma ? ", chroma" :
          "", err);
    }
    test_image_free (&a);
    test_image_free (&b);
    test_image_free (&src);
    bspline_stmap_unref (map);
    free (st);
  }

  /* a shifted map: the source 3 pixels right and 2 down (s up by 3 / W,
   * t down by 2 / H) is the frame translated by -3, -2 */
  {
    double *st = identity_st (W, H, 3.0 / W, 2.0 / H);
    bspline_stmap *map = NULL;
    bspline_plane_grid grid = { 1, 1, 0.0, 0.0 };
    bspline_geometry g;
    bspline_image src, a, b;
    char msg[256] = "";
    double err = 0.0, range[2];
    int x, y;

    bspline_stmap_new (st, W, H, &map, msg, sizeof (msg));
    test_image_alloc (&src, W, H, 1, BSPLINE_SAMPLE_F64, 0);
    test_image_fill_random (&src, rng, 0.0, 1.0, range);
    test_image_alloc (&a, W, H, 1, BSPLINE_SAMPLE_F64, 0);
    test_image_alloc (&b, W, H, 1, BSPLINE_SAMPLE_F64, 0);
    bspline_geometry_init (&g, W, H, W, H);
    g.translate_x = -3.0;
    g.translate_y = -2.0;
    TEST_CHECK (run_plane (cpu, &g, &grid, &src, &a, msg, sizeof (msg)),
        "translation: %s", msg);
    bspline_geometry_init (&g, W, H, W, H);
    g.lens_model = BSPLINE_LENS_STMAP;
    g.stmap = map;
    TEST_CHECK (run_plane (cpu, &g, &grid, &src, &b, msg, sizeof (msg)),
        "shifted STMap: %s", msg);
    for (y = 0; y < H; y++)
      for (x = 0; x < W; x++)
        err = fmax (err, fabs (test_image_get (&a, x, y, 0)
                - test_image_get (&b, x, y, 0)));
    *worst = fmax (*worst, err);
    TEST_CHECK (err <= 1e-9, "a shifted STMap differs from the translation "
        "by %g", err);
    test_image_free (&a);
    test_image_free (&b);
    test_image_free (&src);
    bspline_stmap_unref (map);
    free (st);
  }
  bspline_cpu_free (cpu);
}

static void
check_bad_input (void)
{
  double st[2 * 12];
  bspline_stmap *map = NULL;
  bspline_geometry g;
  bspline_plane_grid grid = { 1, 1, 0.0, 0.0 };
  bspline_lens lens;
  double m[9];
  char msg[256];
  int i;

  for (i = 0; i < 24; i++)
    st[i] = 0.5;
  st[2 * 7 + 1] = NAN;          /* t of column 3, row 1 of a 4 x 3 map */
  msg[0] = 0;
  TEST_CHECK (bspline_stmap_new (st, 4, 3, &map, msg, sizeof (msg))
      != BSPLINE_OK && !map && strstr (msg, "column 3, row 1")
      && strstr (msg, "t (G)"), "a NaN sample: map %p, message '%s'",
      (void *) map, msg);
  st[2 * 7 + 1] = 0.5;
  st[0] = -INFINITY;
  msg[0] = 0;
  TEST_CHECK (bspline_stmap_new (st, 4, 3, &map, msg, sizeof (msg))
      != BSPLINE_OK && strstr (msg, "column 0, row 0"),
      "an infinite sample: message '%s'", msg);
  st[0] = 0.5;
  msg[0] = 0;
  TEST_CHECK (bspline_stmap_new (st, 0, 3, &map, msg, sizeof (msg))
      != BSPLINE_OK && msg[0], "width 0: message '%s'", msg);
  msg[0] = 0;
  TEST_CHECK (bspline_stmap_new (st, 1 << 20, 1 << 20, &map, msg,
          sizeof (msg)) != BSPLINE_OK && msg[0], "a huge map: message '%s'",
      msg);
  TEST_CHECK (bspline_stmap_new (NULL, 4, 3, &map, msg, sizeof (msg))
      != BSPLINE_OK, "no samples: accepted");

  /* aspect: a 4 x 3 map over 40 x 10 */
  TEST_CHECK (bspline_stmap_new (st, 4, 3, &map, msg, sizeof (msg))
      == BSPLINE_OK, "4x3 map: %s", msg);
  bspline_geometry_init (&g, 40, 10, 40, 10);
  g.lens_model = BSPLINE_LENS_STMAP;
  g.stmap = map;
  msg[0] = 0;
  TEST_CHECK (bspline_geometry_plane_map (&g, &grid, m, &lens, msg,
          sizeof (msg)) != BSPLINE_OK && strstr (msg, "4x3")
      && strstr (msg, "40x10"), "another aspect: message '%s'", msg);
  /* no map loaded */
  g.stmap = NULL;
  msg[0] = 0;
  TEST_CHECK (bspline_geometry_plane_map (&g, &grid, m, &lens, msg,
          sizeof (msg)) != BSPLINE_OK && msg[0], "no map: message '%s'", msg);
  /* a plan whose stage names a map its object does not hold */
  {
    bspline_params p;
    bspline_plan *plan = NULL;
    bspline_geometry_init (&g, 40, 30, 40, 30);
    g.lens_model = BSPLINE_LENS_STMAP;
    g.stmap = map;
    bspline_params_init (&p);
    TEST_CHECK (bspline_geometry_plane_map (&g, &grid, m, &lens, msg,
            sizeof (msg)) == BSPLINE_OK, "4x3 over 40x30: %s", msg);
    lens.map_w = 5;
    msg[0] = 0;
    TEST_CHECK (bspline_plan_new_lens (&p, m, &lens, 40, 30, 40, 30, 1,
            &plan, msg, sizeof (msg)) != BSPLINE_OK && !plan && msg[0],
        "a stage whose map size is not its object's: message '%s'", msg);
    /* the plan holds its own reference: the map outlives our unref */
    lens.map_w = 4;
    TEST_CHECK (bspline_plan_new_lens (&p, m, &lens, 40, 30, 40, 30, 1,
            &plan, msg, sizeof (msg)) == BSPLINE_OK, "plan: %s", msg);
    bspline_stmap_unref (map);
    if (plan) {
      bspline_cpu *cpu = bspline_cpu_new (1);
      bspline_image src, dst;
      test_image_alloc (&src, 40, 30, 1, BSPLINE_SAMPLE_F32, 0);
      test_image_alloc (&dst, 40, 30, 1, BSPLINE_SAMPLE_F32, 0);
      memset (src.data, 0, (size_t) src.stride * src.height);
      TEST_CHECK (bspline_cpu_execute (cpu, plan, &src, &dst) == BSPLINE_OK,
          "the plan after the map's unref: %s", bspline_cpu_last_error (cpu));
      test_image_free (&src);
      test_image_free (&dst);
      bspline_cpu_free (cpu);
      bspline_plan_free (plan);
    }
  }
}

int
main (void)
{
  test_rng rng;
  double worst_v = 0.0, worst_j = 0.0, worst_id = 0.0, worst_plan = 0.0;

  test_begin ("test-stmap", &rng);
  check_against_reference (&rng, &worst_v, &worst_j);
  check_identity_maps (&rng, &worst_id);
  check_plans (&rng, &worst_plan);
  check_bad_input ();
  return test_end ("map against the reference %.3g (Jacobian %.3g), "
      "identity maps %.3g, identity STMaps through plans %.3g of the range",
      worst_v, worst_j, worst_id, worst_plan);
}
