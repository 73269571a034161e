/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-window: a lens plan whose points read a small part of a big input
 * prefilters only that part (its window, bspline_point_cache_window:
 * found when the plan's cache of points is filled, widened by the
 * prefilter's truncation) on the CPU engine from its third execution on;
 * the output must stay what the whole frame's prefilter gives.
 *
 * STMap stages that read a rectangle of about a quarter of the input's
 * side (smooth waves on it), placed inside the frame, near the left edge
 * (within the prefilter's reach of it) or touching or crossing each edge
 * and corner; every boundary; B-spline orders 1, 3, 5
 * and Keys bicubic; antialias none and the default; random F32 sources
 * of 1, 2 or 4 channels and the ascent photograph (512x512); and flat
 * views of 40 degrees of random 400x200 equirect inputs (1 or 4
 * channels), every boundary, which the plan reads through the input's
 * atlas (the window in the atlas, gathered alone).  For each case, a
 * float and a double plan, each executed four times: the first two on
 * the whole frame (the second, which fills the cache, on another source),
 * the last two on the window (the same bytes both times).  The double
 * plan's window within 1e-12 of the signal range of its whole frame; the
 * float plan's window within test_float_bound of the double's whole
 * frame.  A rectangle inside the frame must get a window (in double, at
 * orders up to 3).  Prints the largest difference between the float plan
 * with and without its window: what the window's truncation costs
 * (docs/accuracy.md). */
#include "lens-cases.h"
#include "resample.h"

#include "bspline-projection.h"

#define N_CASES 60
#define N_PROJECTIONS 10
#define DOUBLE_BOUND 1e-12

static double worst_float_window, worst_double_window, worst_float_ref;

/* Largest |a - b| over the images, over scale. */
static double
difference (const bspline_image * a, const bspline_image * b, double scale)
{
  double worst = 0.0;
  int x, y, c;
  for (y = 0; y < a->height; y++)
    for (x = 0; x < a->width; x++)
      for (c = 0; c < a->channels; c++) {
        double d = fabs (test_image_get (a, x, y, c)
            - test_image_get (b, x, y, c)) / scale;
        if (!(d <= worst))
          worst = isnan (d) ? INFINITY : d;
      }
  return worst;
}

/* An STMap of 16 samples across (the input's aspect ratio) onto the
 * rectangle (x0, y0) + (w, h) of a W x H input (pixel coordinates), with
 * waves of a pixel. */
static bspline_stmap *
rectangle_map (test_rng * rng, double x0, double y0, double w, double h,
    int W, int H)
{
  const int mw = 16, mh = (int) floor (16.0 * H / W + 0.5);
  const double fx = test_rng_range (rng, 0.5, 2.0);
  const double fy = test_rng_range (rng, 0.5, 2.0);
  double st[2 * 16 * 64];
  bspline_stmap *map = NULL;
  char msg[256];
  int i, j;

  for (i = 0; i < mh; i++)
    for (j = 0; j < mw; j++) {
      const double u = (j + 0.5) / mw, v = (i + 0.5) / mh;
      const double x = x0 + u * w + sin (2.0 * TEST_PI * fy * v);
      const double y = y0 + v * h + cos (2.0 * TEST_PI * fx * u);
      st[2 * (i * mw + j)] = x / W;
      st[2 * (i * mw + j) + 1] = 1.0 - y / H;
    }
  if (bspline_stmap_new (st, mw, mh, &map, msg, sizeof (msg)) != BSPLINE_OK)
    return NULL;
  return map;
}

static void
execute (bspline_cpu * cpu, const bspline_plan * plan,
    const bspline_image * src, const bspline_image * dst, const char *what)
{
  bspline_status st;
  memset (dst->data, 0, (size_t) dst->height * dst->stride);
  st = bspline_cpu_execute (cpu, plan, src, dst);
  TEST_CHECK (st == BSPLINE_OK, "%s: execution failed: %s", what,
      bspline_cpu_last_error (cpu));
}

/* Runs the case's float and double plans four times each and checks
 * them (see above); want_window: the float plan must get a window, and
 * the double plan where order <= 3.  Clears the case. */
static void
compare_plans (bspline_cpu * cpu, lens_case * cp, const bspline_image * src,
    double scale, int real, int order, int want_window, const char *what)
{
  lens_case c = *cp;
  const double bound = test_float_bound (order, real, 0);
  bspline_plan *plan[2] = { NULL, NULL };
  bspline_image out[4], reference, other;
  char msg[256];
  double err;
  int k, r, window[4];

  for (k = 0; k < 2; k++) {
    c.params.precision = k ? BSPLINE_PRECISION_DOUBLE :
        BSPLINE_PRECISION_FLOAT;
    if (lens_case_plan (&c, &plan[k], msg, sizeof (msg)) != BSPLINE_OK) {
      TEST_CHECK (0, "%s: no plan: %s", what, msg);
      for (r = 0; r < k; r++)
        bspline_plan_free (plan[r]);
      lens_case_clear (cp);
      return;
    }
  }
  for (k = 0; k < 4; k++)
    test_image_alloc (&out[k], c.dst_width, c.dst_height, c.channels,
        BSPLINE_SAMPLE_F64, 1);
  test_image_alloc (&reference, c.dst_width, c.dst_height, c.channels,
      BSPLINE_SAMPLE_F64, 0);

  /* the double plan: the first execution (the whole frame) the reference */
  /* the second execution (which fills the cache) reads another source,
   * so that a window left ungathered from the source of the third shows */
  test_image_alloc (&other, src->width, src->height, src->channels,
      src->type, 0);
  for (r = 0; r < src->height; r++)
    for (k = 0; k < src->width * src->channels; k++)
      test_image_set (&other, k / src->channels, r, k % src->channels,
          test_image_get (src, k / src->channels, r, k % src->channels)
          * 0.5 + 0.25 * scale);
  execute (cpu, plan[1], src, &reference, what);
  for (r = 1; r < 4; r++)
    execute (cpu, plan[1], r == 1 ? &other : src, &out[r], what);
  err = difference (&out[3], &reference, scale);
  worst_double_window = fmax (worst_double_window, err);
  TEST_CHECK (err <= DOUBLE_BOUND, "%s: double with its window differs "
      "from the whole frame by %.3g of the signal range, bound %.3g", what,
      err, DOUBLE_BOUND);
  /* the float plan */
  for (r = 0; r < 4; r++)
    execute (cpu, plan[0], r == 1 ? &other : src, &out[r], what);
  /* an atlas's plan: the one the engine runs; double order 5's margin
   * (its two poles' truncation indices at double precision, about 60
   * pixels) may cover a small frame */
  if (want_window)
    TEST_CHECK (bspline_point_cache_window (plan[0]->atlas_plan ?
            plan[0]->atlas_plan : plan[0], window) && (order > 3
            || bspline_point_cache_window (plan[1]->atlas_plan ?
                plan[1]->atlas_plan : plan[1], window)), "%s: no window",
        what);
  TEST_CHECK (difference (&out[3], &out[2], 1.0) == 0.0, "%s: the "
      "window's second execution differs from its first by %.3g", what,
      difference (&out[3], &out[2], 1.0));
  err = difference (&out[3], &reference, scale);
  worst_float_ref = fmax (worst_float_ref, err);
  TEST_CHECK (err <= bound, "%s: float with its window differs from double "
      "by %.3g of the signal range, bound %.3g", what, err, bound);
  worst_float_window = fmax (worst_float_window, difference (&out[3],
          &out[0], scale));
  for (k = 0; k < 4; k++)
    test_image_free (&out[k]);
  test_image_free (&reference);
  test_image_free (&other);
  bspline_plan_free (plan[0]);
  bspline_plan_free (plan[1]);
  lens_case_clear (cp);
}


static void
run_case (bspline_cpu * cpu, test_rng * rng, const bspline_image * src,
    double scale, int real, int boundary, int placement)
{
  static const char *const places[] = { "inside", "left edge", "right edge",
    "top edge", "bottom edge", "past the top-left corner",
    "past the bottom-right corner", "near the left edge"
  };
  const int W = src->width, H = src->height;
  const double w = W * test_rng_range (rng, 0.2, 0.3);
  const double h = H * test_rng_range (rng, 0.2, 0.3);
  const int pick = test_rng_int (rng, 0, 3);
  double x0 = test_rng_range (rng, 0.25 * W, 0.75 * W - w);
  double y0 = test_rng_range (rng, 0.25 * H, 0.75 * H - h);
  lens_case c;
  char what[400];
  int k, order;

  switch (placement) {
    case 1:
      x0 = test_rng_range (rng, -3.0, 3.0);
      break;
    case 2:
      x0 = W - w + test_rng_range (rng, -3.0, 3.0);
      break;
    case 3:
      y0 = test_rng_range (rng, -3.0, 3.0);
      break;
    case 4:
      y0 = H - h + test_rng_range (rng, -3.0, 3.0);
      break;
    case 5:
      x0 = -0.5 * w;
      y0 = -0.5 * h;
      break;
    case 6:
      x0 = W - 0.5 * w;
      y0 = H - 0.5 * h;
      break;
    case 7:
      /* taps inside the frame, the window with its margin past the
       * left edge: under wrap the prefilter starts there from the far
       * end of the line (test-lens-cache, seed 1796900567064037674) */
      x0 = test_rng_range (rng, 5.0, 12.0);
      break;
  }
  memset (&c, 0, sizeof (c));
  c.src_width = W;
  c.src_height = H;
  c.dst_width = (int) ceil (w * test_rng_range (rng, 0.8, 1.3));
  c.dst_height = (int) ceil (h * test_rng_range (rng, 0.8, 1.3));
  c.channels = src->channels;
  bspline_params_init (&c.params);
  c.params.method = pick == 0 ? BSPLINE_METHOD_BICUBIC :
      BSPLINE_METHOD_BSPLINE;
  order = pick == 1 ? 1 : pick == 3 ? 5 : 3;
  c.params.order = order;
  c.params.boundary = boundary;
  if (test_rng_int (rng, 0, 1))
    c.params.antialias = BSPLINE_ANTIALIAS_NONE;
  for (k = 0; k < BSPLINE_MAX_CHANNELS; k++)
    c.params.fill[k] = test_rng_range (rng, 0.0, scale);
  bspline_geometry_init (&c.geometry, W, H, c.dst_width, c.dst_height);
  c.geometry.lens_model = BSPLINE_LENS_STMAP;
  c.map = rectangle_map (rng, x0, y0, w, h, W, H);
  c.geometry.stmap = c.map;
  snprintf (what, sizeof (what), "%s %dx%d C=%d -> %dx%d, rectangle %.1f "
      "%.1f %.1fx%.1f (%s), %s order %d, %s, antialias %s", real ?
      "ascent" : "noise", W, H, c.channels, c.dst_width, c.dst_height, x0,
      y0, w, h, places[placement], pick == 0 ? "bicubic" : "bspline", order,
      test_boundary_name (boundary),
      c.params.antialias == BSPLINE_ANTIALIAS_NONE ? "none" : "default");
  TEST_CHECK (c.map != NULL, "%s: no STMap", what);
  if (c.map)
    compare_plans (cpu, &c, src, scale, real, order, placement == 0, what);
}

/* A flat view of 40 degrees (pitch within 30 degrees: it must get a
 * window) of an equirect input, which the plan reads through its atlas:
 * the window is the atlas's, and the engine gathers only that part. */
static void
run_projection (bspline_cpu * cpu, test_rng * rng, const bspline_image * src,
    double scale, int real, int boundary)
{
  lens_case c;
  char what[400];
  const int order = test_rng_int (rng, 0, 1) ? 3 : 5;

  memset (&c, 0, sizeof (c));
  c.src_width = src->width;
  c.src_height = src->height;
  c.dst_width = test_rng_int (rng, 32, 64);
  c.dst_height = test_rng_int (rng, 24, 48);
  c.channels = src->channels;
  bspline_params_init (&c.params);
  c.params.order = order;
  c.params.boundary = boundary;
  bspline_geometry_init (&c.geometry, c.src_width, c.src_height,
      c.dst_width, c.dst_height);
  c.geometry.projection_set = 1;
  bspline_projection_params_init (&c.geometry.projection);
  c.geometry.projection.in = BSPLINE_PROJECTION_EQUIRECT;
  c.geometry.projection.out = BSPLINE_PROJECTION_FLAT;
  c.geometry.projection.h_fov = 40.0;
  c.geometry.projection.v_fov = 2.0 * atan (tan (40.0 * TEST_PI / 360.0)
      * c.dst_height / c.dst_width) * 180.0 / TEST_PI;
  c.geometry.projection.yaw = test_rng_range (rng, -180.0, 180.0);
  c.geometry.projection.pitch = test_rng_range (rng, -30.0, 30.0);
  c.geometry.projection.roll = test_rng_range (rng, -20.0, 20.0);
  snprintf (what, sizeof (what), "%s equirect %dx%d C=%d -> flat %dx%d, "
      "yaw %.3f pitch %.3f roll %.3f, order %d, %s", real ? "ascent" :
      "noise", c.src_width, c.src_height, c.channels, c.dst_width,
      c.dst_height, c.geometry.projection.yaw, c.geometry.projection.pitch,
      c.geometry.projection.roll, order, test_boundary_name (boundary));
  compare_plans (cpu, &c, src, scale, real, order, 1, what);
}

int
main (int argc, char **argv)
{
  test_rng rng;
  bspline_cpu *cpu;
  bspline_image ascent, noise;
  int n_cases = test_trials (N_CASES), k;
  int n_projections = test_trials (N_PROJECTIONS);

  test_begin ("window", &rng);
  if (argc < 2) {
    printf ("usage: %s ascent.pgm\n", argv[0]);
    return 1;
  }
  TEST_CHECK (test_read_pgm (argv[1], &ascent), "cannot read the real "
      "image %s", argv[1]);
  cpu = bspline_cpu_new (2);
  if (!cpu || test_n_failures) {
    printf ("cannot start the CPU engine or read the image\n");
    return 1;
  }
  for (k = 0; k < n_cases; k++) {
    const int boundary = k % 5, placement = (k / 5) % 8;
    if (k % 3 == 0) {
      run_case (cpu, &rng, &ascent, 255.0, 1, boundary, placement);
    } else {
      double range[2];
      const int channels = test_rng_int (&rng, 0, 2) == 2 ? 4 :
          test_rng_int (&rng, 1, 2);
      test_image_alloc (&noise, test_rng_int (&rng, 120, 300),
          test_rng_int (&rng, 160, 240), channels, BSPLINE_SAMPLE_F32, 3);
      test_image_fill_random (&noise, &rng, 0.0, 1.0, range);
      run_case (cpu, &rng, &noise, test_signal_scale (range), 0, boundary,
          placement);
      test_image_free (&noise);
    }
  }
  for (k = 0; k < n_projections; k++) {
    double range[2];
    test_image_alloc (&noise, 400, 200, test_rng_int (&rng, 0, 1) ? 4 : 1,
        BSPLINE_SAMPLE_F32, 1);
    test_image_fill_random (&noise, &rng, 0.0, 1.0, range);
    run_projection (cpu, &rng, &noise, test_signal_scale (range), 0, k % 5);
    test_image_free (&noise);
  }
  test_image_free (&ascent);
  bspline_cpu_free (cpu);
  return test_end ("%d STMap cases and %d equirect views; float with its "
      "window against double on the whole frame %.3g, against float on the "
      "whole frame %.3g (the window's truncation); double with and without "
      "it %.3g", n_cases, n_projections, worst_float_ref, worst_float_window,
      worst_double_window);
}
