/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lens-cases.h: random plans with a lens or STMap stage, as the element
 * builds them (bspline_geometry_plane_map, then bspline_plan_new_lens),
 * for test-lens-cache.c and print-lens-outputs.c.
 *
 * Brown and fisheye models, both directions (undistort: the model
 * applied; distort: solved), onto the camera's own focal length or 0.6 of
 * it (where the default antialias widens the kernel), sometimes rotated;
 * STMaps of random sizes near the frame's aspect, the identity plus smooth
 * waves.  B-spline orders 0-5 (1, 3 and 5 most often) and 7 (past the
 * fast rows), Keys bicubic; antialias none and the default; float and
 * double; 1, 2 and 4 channels (3 now and then); every boundary. */
#ifndef LENS_CASES_H
#define LENS_CASES_H

#include "test-common.h"
#include "bspline-geometry.h"
#include "bspline-stage.h"
#include "bspline-stmap.h"

typedef struct
{
  bspline_params params;
  bspline_geometry geometry;
  bspline_stmap *map;           /* STMap cases; NULL otherwise */
  int src_width, src_height, dst_width, dst_height, channels;
  char name[320];
} lens_case;

/* OpenCV's fisheye test calibration's coefficients (fisheyeTest::D, as
 * bench/lens-vs-opencv.sh takes them). */
static const double lens_case_fisheye_d[4] = { -0.0014613319981768,
  -0.00329861110580401, 0.00605760088590183, -0.00374209380722371
};

/* A smooth STMap of w x h samples over the frame: the identity (s, t with
 * t up, the convention of bspline-stmap.h) plus waves of amplitude a. */
static inline bspline_stmap *
lens_case_stmap (test_rng * rng, int w, int h)
{
  const double a = test_rng_range (rng, 0.0, 0.03);
  const double fx = test_rng_range (rng, 0.5, 2.5);
  const double fy = test_rng_range (rng, 0.5, 2.5);
  double *st = malloc (sizeof (double) * 2 * (size_t) w * h);
  bspline_stmap *map = NULL;
  char msg[256];
  int x, y;

  if (!st)
    return NULL;
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      const double s = (x + 0.5) / w, t = 1.0 - (y + 0.5) / h;
      st[2 * ((size_t) y * w + x)] = s + a * sin (2.0 * TEST_PI * fy * t);
      st[2 * ((size_t) y * w + x) + 1] = t + a * cos (2.0 * TEST_PI * fx * s);
    }
  if (bspline_stmap_new (st, w, h, &map, msg, sizeof (msg)) != BSPLINE_OK)
    map = NULL;
  free (st);
  return map;
}

static inline void
lens_case_clear (lens_case * c)
{
  bspline_stmap_unref (c->map);
  c->map = NULL;
}

/* The plan of the case (a new one at every call). */
static inline bspline_status
lens_case_plan (const lens_case * c, bspline_plan ** plan, char *msg,
    size_t msg_len)
{
  bspline_plane_grid grid = { 1, 1, 0.0, 0.0 };
  bspline_lens lens;
  double m[9];
  bspline_status st = bspline_geometry_plane_map (&c->geometry, &grid, m,
      &lens, msg, msg_len);
  *plan = NULL;
  if (st == BSPLINE_OK)
    st = bspline_plan_new_lens (&c->params, m, &lens, c->src_width,
        c->src_height, c->dst_width, c->dst_height, c->channels, plan, msg,
        msg_len);
  return st;
}

/* Draws a case whose geometry the plan accepts (a draw that it refuses,
 * e.g. a frame reaching past the fold, is drawn again). */
static inline void
lens_case_draw (test_rng * rng, lens_case * c)
{
  static const char *const models[] = { "", "brown", "fisheye", "stmap" };
  for (;;) {
    bspline_geometry *g = &c->geometry;
    bspline_params *p = &c->params;
    bspline_plan *plan;
    const int model = test_rng_int (rng, 1, 3);
    const int pick = test_rng_int (rng, 0, 9);
    const double zoom = test_rng_int (rng, 0, 2) ? 1.0 :
        test_rng_range (rng, 0.5, 1.6);
    double fx;
    char msg[256];
    int k;

    memset (c, 0, sizeof (*c));
    c->src_width = test_rng_int (rng, 24, 260);
    c->src_height = test_rng_int (rng, 16, 180);
    c->dst_width = (int) ceil (c->src_width * zoom);
    c->dst_height = (int) ceil (c->src_height * zoom);
    k = test_rng_int (rng, 0, 6);
    c->channels = k < 2 ? 1 : k < 4 ? 2 : k < 6 ? 4 : 3;
    bspline_params_init (p);
    p->method = pick == 0 ? BSPLINE_METHOD_BICUBIC : BSPLINE_METHOD_BSPLINE;
    p->order = pick < 3 ? 3 : pick < 5 ? 1 : pick < 7 ? 5 : pick == 7 ?
        test_rng_int (rng, 0, 5) : pick == 8 ? 2 : 7;
    p->boundary = test_rng_int (rng, 0, 4);
    p->precision = test_rng_int (rng, 0, 2) ? BSPLINE_PRECISION_FLOAT :
        BSPLINE_PRECISION_DOUBLE;
    if (test_rng_int (rng, 0, 1))
      p->antialias = BSPLINE_ANTIALIAS_NONE;
    p->fill[0] = 30;
    p->fill[1] = 200;
    p->fill[2] = 5;
    p->fill[3] = 255;

    bspline_geometry_init (g, c->src_width, c->src_height, c->dst_width,
        c->dst_height);
    if (test_rng_int (rng, 0, 3) == 0)
      g->rotation = test_rng_range (rng, -20.0, 20.0);
    g->lens_model = model;
    if (model == BSPLINE_LENS_STMAP) {
      const int mw = test_rng_int (rng, 6, 48);
      int mh = (int) floor (mw * (double) c->src_height / c->src_width + 0.5);
      c->map = lens_case_stmap (rng, mw, mh < 1 ? 1 : mh);
      g->stmap = c->map;
    } else {
      fx = c->src_width * test_rng_range (rng, 0.5, 1.2);
      g->camera[0] = fx;
      g->camera[1] = fx * test_rng_range (rng, 0.9, 1.1);
      g->camera[2] = c->src_width / 2.0 + test_rng_range (rng, -4.0, 4.0);
      g->camera[3] = c->src_height / 2.0 + test_rng_range (rng, -4.0, 4.0);
      g->lens_distort = test_rng_int (rng, 0, 3) == 0;
      if (model == BSPLINE_LENS_FISHEYE) {
        for (k = 0; k < 4; k++)
          g->distortion[k] = lens_case_fisheye_d[k]
              * test_rng_range (rng, 0.0, 3.0);
        g->n_distortion = 4;
      } else {
        g->distortion[0] = test_rng_range (rng, -0.3, 0.15);
        g->distortion[1] = test_rng_range (rng, -0.05, 0.05);
        g->distortion[2] = test_rng_range (rng, -0.01, 0.01);
        g->distortion[3] = test_rng_range (rng, -0.01, 0.01);
        g->n_distortion = 4;
      }
      if (test_rng_int (rng, 0, 2) == 0) {
        /* 0.6 f: the picture shrinks toward the centre, where the
         * default antialias widens the kernel */
        g->new_camera_set = 1;
        g->new_camera[0] = 0.6 * g->camera[0] * zoom;
        g->new_camera[1] = 0.6 * g->camera[1] * zoom;
        g->new_camera[2] = (g->camera[2] + 0.5) * zoom - 0.5;
        g->new_camera[3] = (g->camera[3] + 0.5) * zoom - 0.5;
      }
    }
    snprintf (c->name, sizeof (c->name), "%s%s%s, %dx%d -> %dx%d, C=%d, "
        "%s order %d, %s, %s, antialias %s", models[model],
        g->lens_distort ? " distort" : "", g->new_camera_set ? " 0.6 f" : "",
        c->src_width, c->src_height, c->dst_width, c->dst_height,
        c->channels, p->method == BSPLINE_METHOD_BICUBIC ? "bicubic" :
        "bspline", p->order, test_boundary_name (p->boundary),
        test_precision_name (p->precision),
        p->antialias == BSPLINE_ANTIALIAS_NONE ? "none" : "default");
    if ((model != BSPLINE_LENS_STMAP || c->map)
        && lens_case_plan (c, &plan, msg, sizeof (msg)) == BSPLINE_OK) {
      bspline_plan_free (plan);
      return;
    }
    lens_case_clear (c);
  }
}

#endif /* LENS_CASES_H */
