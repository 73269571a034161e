/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench-projection: CPU time of the core's CPU engine on issue 42's
 * reframing, equirect 3840x1920 -> flat 1920x1080, 90 x 59 degrees, yaw
 * 20, pitch 10, roll 5 (bench/projection-vs-v360.py's view), through the
 * geometry and plan the element builds (bspline_geometry_plane_map with a
 * projection stage, bspline_plan_new_lens).
 *
 * One source frame (a smooth random sphere-like pattern with grain) and
 * one destination are allocated before timing.  The plan is made once
 * (its time printed apart: the element keeps it from frame to frame); the
 * first two executions (the points computed, then kept: point-cache.c)
 * are timed apart too, then REPEAT executions each alone: the median
 * process CPU time of one (all threads together) and the median wall time.
 *
 *   bench-projection [--format gray8|rgba8] [--threads N] [--repeat 15]
 *                    [--order 3] [--precision float|double]
 *                    [--antialias least-squares|none] [--in WxH]
 *                    [--out WxH] [--hfov 90]
 *
 * Output, one line:
 *   projection equirect 3840x1920 -> flat 1920x1080 gray8 order 3 float
 *     threads 1: cpu 95.1 ms/frame (median of 15), wall 96.0, plan 2.1,
 *     first 812.0, second 820.3
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bspline.h"
#include "bspline-geometry.h"

static double
now (clockid_t clock)
{
  struct timespec ts;
  clock_gettime (clock, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int
compare_doubles (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* A frame with content at every scale the sampler sees: smooth waves in
 * longitude and latitude, and grain (a fixed xorshift sequence). */
static void
fill_source (bspline_image * img)
{
  uint32_t r = 2463534242u;
  int x, y, c;
  for (y = 0; y < img->height; y++) {
    uint8_t *row = (uint8_t *) img->data + (ptrdiff_t) y * img->stride;
    for (x = 0; x < img->width; x++)
      for (c = 0; c < img->channels; c++) {
        double v = 128.0 + 60.0 * sin (0.013 * x + 2.0 * c)
            * cos (0.021 * y) + 30.0 * sin (0.11 * x + 0.07 * y);
        r ^= r << 13;
        r ^= r >> 17;
        r ^= r << 5;
        v += (double) (r & 31) - 16.0;
        row[x * img->channels + c] = (uint8_t) (v < 0 ? 0 : v > 255 ? 255 : v);
      }
  }
}

int
main (int argc, char **argv)
{
  int iw = 3840, ih = 1920, ow = 1920, oh = 1080, channels = 1;
  int threads = 1, repeat = 15, i;
  double hfov = 90.0;
  bspline_params params;
  bspline_geometry g;
  bspline_plane_grid grid = { 1, 1, 0.0, 0.0 };
  bspline_lens lens;
  bspline_image src, dst;
  bspline_plan *plan = NULL;
  bspline_cpu *cpu;
  double inverse[9], *cpu_ms, *wall_ms, t0, c0, plan_ms, first, second;
  char msg[256];

  bspline_params_init (&params);
  for (i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) {
      fprintf (stderr, "bench-projection: %s needs a value\n", a);
      return 1;
    }
    if (strcmp (a, "--format") == 0)
      channels = strcmp (v, "rgba8") == 0 ? 4 : 1;
    else if (strcmp (a, "--threads") == 0)
      threads = atoi (v);
    else if (strcmp (a, "--repeat") == 0)
      repeat = atoi (v);
    else if (strcmp (a, "--order") == 0)
      params.order = atoi (v);
    else if (strcmp (a, "--precision") == 0)
      params.precision = strcmp (v, "double") == 0 ?
          BSPLINE_PRECISION_DOUBLE : BSPLINE_PRECISION_FLOAT;
    else if (strcmp (a, "--antialias") == 0)
      params.antialias = strcmp (v, "none") == 0 ? BSPLINE_ANTIALIAS_NONE :
          BSPLINE_ANTIALIAS_LEAST_SQUARES;
    else if (strcmp (a, "--in") == 0)
      sscanf (v, "%dx%d", &iw, &ih);
    else if (strcmp (a, "--out") == 0)
      sscanf (v, "%dx%d", &ow, &oh);
    else if (strcmp (a, "--hfov") == 0)
      hfov = atof (v);
    else {
      fprintf (stderr, "bench-projection: unknown option %s\n", a);
      return 1;
    }
    i++;
  }
  if (repeat < 1 || iw < 1 || ih < 1 || ow < 1 || oh < 1) {
    fprintf (stderr, "bench-projection: bad sizes or repeat\n");
    return 1;
  }

  bspline_geometry_init (&g, iw, ih, ow, oh);
  g.projection_set = 1;
  bspline_projection_params_init (&g.projection);
  g.projection.in = BSPLINE_PROJECTION_EQUIRECT;
  g.projection.out = BSPLINE_PROJECTION_FLAT;
  g.projection.h_fov = hfov;
  /* the same vertical field as the frame's aspect gives a square pixel */
  g.projection.v_fov = 2.0 * atan (tan (hfov * M_PI / 360.0) * oh / ow)
      * 180.0 / M_PI;
  g.projection.yaw = 20.0;
  g.projection.pitch = 10.0;
  g.projection.roll = 5.0;

  src.width = iw;
  src.height = ih;
  src.channels = channels;
  src.type = BSPLINE_SAMPLE_U8;
  src.bits = 8;
  src.shift = 0;
  src.stride = (ptrdiff_t) iw *channels;
  src.data = malloc ((size_t) src.stride * ih);
  dst = src;
  dst.width = ow;
  dst.height = oh;
  dst.stride = (ptrdiff_t) ow *channels;
  dst.data = malloc ((size_t) dst.stride * oh);
  cpu_ms = malloc (sizeof (double) * repeat);
  wall_ms = malloc (sizeof (double) * repeat);
  cpu = bspline_cpu_new (threads);
  if (!src.data || !dst.data || !cpu_ms || !wall_ms || !cpu) {
    fprintf (stderr, "bench-projection: out of memory\n");
    return 1;
  }
  fill_source (&src);

  c0 = now (CLOCK_PROCESS_CPUTIME_ID);
  if (bspline_geometry_plane_map (&g, &grid, inverse, &lens, msg,
          sizeof (msg)) != BSPLINE_OK
      || bspline_plan_new_lens (&params, inverse, &lens, iw, ih, ow, oh,
          channels, &plan, msg, sizeof (msg)) != BSPLINE_OK) {
    fprintf (stderr, "bench-projection: %s\n", msg);
    return 1;
  }
  plan_ms = now (CLOCK_PROCESS_CPUTIME_ID) - c0;
  c0 = now (CLOCK_PROCESS_CPUTIME_ID);
  bspline_cpu_execute (cpu, plan, &src, &dst);
  first = now (CLOCK_PROCESS_CPUTIME_ID) - c0;
  c0 = now (CLOCK_PROCESS_CPUTIME_ID);
  bspline_cpu_execute (cpu, plan, &src, &dst);
  second = now (CLOCK_PROCESS_CPUTIME_ID) - c0;
  for (i = 0; i < repeat; i++) {
    t0 = now (CLOCK_MONOTONIC);
    c0 = now (CLOCK_PROCESS_CPUTIME_ID);
    if (bspline_cpu_execute (cpu, plan, &src, &dst) != BSPLINE_OK) {
      fprintf (stderr, "bench-projection: execution failed\n");
      return 1;
    }
    cpu_ms[i] = now (CLOCK_PROCESS_CPUTIME_ID) - c0;
    wall_ms[i] = now (CLOCK_MONOTONIC) - t0;
  }
  qsort (cpu_ms, repeat, sizeof (double), compare_doubles);
  qsort (wall_ms, repeat, sizeof (double), compare_doubles);
  printf ("projection equirect %dx%d -> flat %dx%d %s order %d %s threads "
      "%d: cpu %.1f ms/frame (median of %d), wall %.1f, plan %.1f, first "
      "%.1f, second %.1f\n", iw, ih, ow, oh, channels == 4 ? "rgba8" :
      "gray8", params.order, params.precision == BSPLINE_PRECISION_DOUBLE ?
      "double" : "float", bspline_cpu_n_threads (cpu), cpu_ms[repeat / 2],
      repeat, wall_ms[repeat / 2], plan_ms, first, second);
  bspline_plan_free (plan);
  bspline_cpu_free (cpu);
  free (src.data);
  free (dst.data);
  free (cpu_ms);
  free (wall_ms);
  return 0;
}
