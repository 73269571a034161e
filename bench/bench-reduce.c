/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench-reduce: time of the core's CPU engine shrinking a frame along both
 * axes (issue 21: 4K -> 1080p RGBA8), least-squares reduction beside plain
 * interpolation and the widened kernel, with the time of each of the
 * reduction's two plans.
 *
 * One source frame (a raw RGBA8 file given with --input, else a synthetic
 * photo-like frame: gradients, textures of several scales, edges and
 * grain) and one destination frame are allocated before timing, the same
 * buffers every repetition (as ffmpeg's loop filter feeds zscale in
 * bench/reduce-vs-zimg.sh).  For each thread count and each case the plan
 * is made once (its time is printed apart: the element keeps plans from
 * frame to frame), the engine runs WARMUP frames, then REPEAT frames, each
 * timed alone: reported are the median and the shortest wall time of one
 * bspline_cpu_execute and the median process CPU time of one (all threads
 * together; at 1 thread the figure least disturbed by other work on the
 * machine, as long as the engine's thread is not descheduled).
 *
 * The stages of a least-squares reduction (core/resample/reduce.c) are its two
 * plans, which bspline_cpu_execute runs in turn through an intermediate
 * float plane: "project" (the prefilter of order n on the source, the
 * inner-product tables along the reduced axes, into the intermediate on
 * the output grid widened by the Gram filter's margin) and "sample" (the
 * Gram prefilter of degree 2n + 1 along the reduced axes, then b^n, into
 * the output frame).  --stages runs each plan alone (the same calls, from
 * the plan's internals: core/resample/resample.h) and prints its times too.
 *
 *   bench-reduce [--in 3840x2160] [--out 1920x1080] [--threads 1,2]
 *                [--repeat 15] [--warmup 3] [--input FILE.rgba]
 *                [--case NAME]... [--stages] [--only WHAT]
 *                [--dump FILE.rgba] [--output FILE.rgba]
 *
 * --output writes the destination frame of the last case run (raw RGBA8),
 * to compare builds.
 *
 * --only full|project|sample times that alone (with --stages implied for
 * the two plans: for a profiler, e.g. perf record, to see one stage).
 *
 * --dump writes the source frame (raw RGBA8) into FILE.rgba and exits:
 * bench/reduce-vs-zimg.sh gives ffmpeg the same frame where it has no
 * photo to start from.
 *
 * Cases (default: all): ls3 ls5 (least squares, order 3 and 5), none3
 * none5 (antialias none: the interpolant at the output centres), widen3
 * widen5 (the kernel widened by the shrink).  Output, one line a case and
 * thread count, read by bench/plot-benchmarks.py:
 *
 *   ours least-squares order 3   threads 1  median 52.10 ms/frame  best
 *     50.93  cpu 52.00  plan 40.1
 *   ours least-squares order 3 / project   threads 1  median ...
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>

#include "bspline.h"
#include "resample.h"

typedef struct
{
  const char *key, *name;
  int order;
  bspline_antialias antialias;
} bench_case;

static const bench_case cases[] = {
  {"ls3", "least-squares order 3", 3, BSPLINE_ANTIALIAS_LEAST_SQUARES},
  {"ls5", "least-squares order 5", 5, BSPLINE_ANTIALIAS_LEAST_SQUARES},
  {"none3", "antialias none order 3", 3, BSPLINE_ANTIALIAS_NONE},
  {"none5", "antialias none order 5", 5, BSPLINE_ANTIALIAS_NONE},
  {"widen3", "widen order 3", 3, BSPLINE_ANTIALIAS_WIDEN},
  {"widen5", "widen order 5", 5, BSPLINE_ANTIALIAS_WIDEN},
};

#define N_CASES ((int) (sizeof (cases) / sizeof (cases[0])))

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
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (double *v, int n)
{
  qsort (v, n, sizeof (double), compare_doubles);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Value noise of one octave: smooth interpolation of a hashed lattice. */
static double
lattice (int x, int y, int seed)
{
  uint32_t h = (uint32_t) x * 374761393u + (uint32_t) y * 668265263u
      + (uint32_t) seed * 2246822519u;
  h = (h ^ (h >> 13)) * 1274126177u;
  return ((h ^ (h >> 16)) & 0xffff) / 65535.0;
}

static double
value_noise (double x, double y, int seed)
{
  int ix = (int) floor (x), iy = (int) floor (y);
  double fx = x - ix, fy = y - iy;
  double sx = fx * fx * (3 - 2 * fx), sy = fy * fy * (3 - 2 * fy);
  double a = lattice (ix, iy, seed), b = lattice (ix + 1, iy, seed);
  double c = lattice (ix, iy + 1, seed), d = lattice (ix + 1, iy + 1, seed);
  return (a + (b - a) * sx) + ((c + (d - c) * sx) - (a + (b - a) * sx)) * sy;
}

/* A photo-like frame: a sky-like gradient, textures of several scales,
 * a few hard-edged discs and bars, and sensor grain. */
static void
synthetic_frame (uint8_t * data, int w, int h)
{
  uint32_t rng = 2026;
  int x, y, c;
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      double u = (double) x / w, v = (double) y / h;
      double tex = 0, amp = 1, f = 4.0 / w * 16;
      int o, inside;
      for (o = 0; o < 6; o++, amp *= 0.55, f *= 2.1)
        tex += amp * (value_noise (x * f, y * f, o) - 0.5);
      inside = ((x - 0.3 * w) * (x - 0.3 * w) + (y - 0.6 * h) * (y - 0.6 * h)
          < 0.04 * h * h) + ((x / 37 + y / 53) % 7 == 0 && v > 0.7)
          + (fabs (u - 0.75) < 0.01);
      for (c = 0; c < 3; c++) {
        double base = 40 + 150 * (1 - v) * (0.6 + 0.15 * c) + 60 * u * (c == 0);
        double val = base + 70 * tex * (1 + 0.3 * c) + (inside ? 90 - 40 * c : 0);
        rng = rng * 1664525u + 1013904223u;
        val += ((rng >> 24) - 127.5) / 127.5 * 6;
        data[((size_t) y * w + x) * 4 + c] =
            (uint8_t) (val < 0 ? 0 : val > 255 ? 255 : lrint (val));
      }
      data[((size_t) y * w + x) * 4 + 3] = (uint8_t) (200 + 55 * u);
    }
}

typedef struct
{
  double wall_median, wall_best, cpu_median;
} timing;

/* Runs plan from src into dst: warmup frames, then repeat timed ones. */
static int
time_plan (bspline_cpu * cpu, const bspline_plan * plan,
    const bspline_image * src, const bspline_image * dst, int warmup,
    int repeat, timing * t)
{
  double *wall = malloc (sizeof (double) * repeat);
  double *cpu_ms = malloc (sizeof (double) * repeat);
  int i;
  for (i = 0; i < warmup + repeat; i++) {
    double w0 = now (CLOCK_MONOTONIC), c0 = now (CLOCK_PROCESS_CPUTIME_ID);
    bspline_status status = bspline_cpu_execute (cpu, plan, src, dst);
    double c1 = now (CLOCK_PROCESS_CPUTIME_ID), w1 = now (CLOCK_MONOTONIC);
    if (status != BSPLINE_OK) {
      fprintf (stderr, "bspline_cpu_execute: %s: %s\n",
          bspline_status_string (status), bspline_cpu_last_error (cpu));
      free (wall);
      free (cpu_ms);
      return 0;
    }
    if (i >= warmup) {
      wall[i - warmup] = w1 - w0;
      cpu_ms[i - warmup] = c1 - c0;
    }
  }
  t->wall_median = median (wall, repeat);
  t->wall_best = wall[0];
  t->cpu_median = median (cpu_ms, repeat);
  free (wall);
  free (cpu_ms);
  return 1;
}

static void
print_row (const char *name, const char *stage, int threads,
    const timing * t, double plan_ms)
{
  char label[128];
  snprintf (label, sizeof (label), "ours %s%s%s", name, stage ? " / " : "",
      stage ? stage : "");
  printf ("%-44s threads %d  median %8.2f ms/frame  best %8.2f  cpu %8.2f",
      label, threads, t->wall_median, t->wall_best, t->cpu_median);
  if (plan_ms >= 0)
    printf ("  plan %.1f", plan_ms);
  printf ("\n");
  fflush (stdout);
}

static int
parse_size (const char *s, int *w, int *h)
{
  return sscanf (s, "%dx%d", w, h) == 2 && *w > 0 && *h > 0;
}

int
main (int argc, char **argv)
{
  int in_w = 3840, in_h = 2160, out_w = 1920, out_h = 1080;
  int repeat = 15, warmup = 3, stages = 0, n_threads = 0, i, c, k;
  int threads[16];
  int chosen[N_CASES], any_chosen = 0;
  const char *input = NULL, *dump = NULL, *only = NULL, *output = NULL;
  const char *thread_list = "1,2";
  uint8_t *src_data, *dst_data;
  bspline_image src, dst;
  int ok = 1;

  memset (chosen, 0, sizeof (chosen));
  for (i = 1; i < argc; i++) {
    const char *value = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp (argv[i], "--stages") == 0) {
      stages = 1;
      continue;
    }
    if (value == NULL)
      goto usage;
    if (strcmp (argv[i], "--in") == 0) {
      if (!parse_size (value, &in_w, &in_h))
        goto usage;
    } else if (strcmp (argv[i], "--out") == 0) {
      if (!parse_size (value, &out_w, &out_h))
        goto usage;
    } else if (strcmp (argv[i], "--threads") == 0)
      thread_list = value;
    else if (strcmp (argv[i], "--repeat") == 0)
      repeat = atoi (value) > 0 ? atoi (value) : 1;
    else if (strcmp (argv[i], "--warmup") == 0)
      warmup = atoi (value) >= 0 ? atoi (value) : 0;
    else if (strcmp (argv[i], "--input") == 0)
      input = value;
    else if (strcmp (argv[i], "--dump") == 0)
      dump = value;
    else if (strcmp (argv[i], "--output") == 0)
      output = value;
    else if (strcmp (argv[i], "--only") == 0) {
      only = value;
      if (strcmp (only, "full") != 0 && strcmp (only, "project") != 0
          && strcmp (only, "sample") != 0)
        goto usage;
      stages = strcmp (only, "full") != 0;
    }
    else if (strcmp (argv[i], "--case") == 0) {
      for (c = 0; c < N_CASES && strcmp (cases[c].key, value) != 0; c++);
      if (c == N_CASES)
        goto usage;
      chosen[c] = any_chosen = 1;
    } else
      goto usage;
    i++;
  }
  {
    const char *p = thread_list;
    while (*p && n_threads < 16) {
      threads[n_threads] = atoi (p);
      if (threads[n_threads] < 1)
        goto usage;
      n_threads++;
      p = strchr (p, ',');
      if (!p)
        break;
      p++;
    }
  }
  if (!any_chosen)
    for (c = 0; c < N_CASES; c++)
      chosen[c] = 1;

  src_data = malloc ((size_t) in_w * in_h * 4);
  dst_data = malloc ((size_t) out_w * out_h * 4);
  if (!src_data || !dst_data)
    return 1;
  if (input) {
    FILE *f = fopen (input, "rb");
    if (!f || fread (src_data, 1, (size_t) in_w * in_h * 4, f)
        != (size_t) in_w * in_h * 4) {
      fprintf (stderr, "%s: cannot read %dx%d RGBA8\n", input, in_w, in_h);
      return 1;
    }
    fclose (f);
  } else {
    synthetic_frame (src_data, in_w, in_h);
  }
  if (dump) {
    FILE *f = fopen (dump, "wb");
    if (!f || fwrite (src_data, 1, (size_t) in_w * in_h * 4, f)
        != (size_t) in_w * in_h * 4 || fclose (f) != 0) {
      fprintf (stderr, "%s: cannot write the frame\n", dump);
      return 1;
    }
    return 0;
  }
  memset (dst_data, 0, (size_t) out_w * out_h * 4);
  memset (&src, 0, sizeof (src));
  src.data = src_data;
  src.stride = (ptrdiff_t) in_w * 4;
  src.width = in_w;
  src.height = in_h;
  src.channels = 4;
  src.type = BSPLINE_SAMPLE_U8;
  src.bits = 8;
  dst = src;
  dst.data = dst_data;
  dst.stride = (ptrdiff_t) out_w * 4;
  dst.width = out_w;
  dst.height = out_h;

  printf ("bench-reduce RGBA8 %dx%d -> %dx%d, %d repetitions after %d "
      "warm-up, source %s, float precision, reflect boundary\n", in_w, in_h,
      out_w, out_h, repeat, warmup, input ? input : "synthetic");
  fflush (stdout);

  for (k = 0; k < n_threads; k++) {
    bspline_cpu *cpu = bspline_cpu_new (threads[k]);
    if (!cpu || bspline_cpu_n_threads (cpu) != threads[k]) {
      fprintf (stderr, "cannot start %d threads\n", threads[k]);
      return 1;
    }
    for (c = 0; c < N_CASES; c++) {
      const double inverse[9] = {
        (double) in_w / out_w, 0, 0, 0, (double) in_h / out_h, 0, 0, 0, 1
      };
      bspline_params params;
      bspline_plan *plan;
      char msg[256];
      double p0, plan_ms;
      timing t;
      if (!chosen[c])
        continue;
      bspline_params_init (&params);
      params.order = cases[c].order;
      params.antialias = cases[c].antialias;
      p0 = now (CLOCK_MONOTONIC);
      if (bspline_plan_new (&params, inverse, in_w, in_h, out_w, out_h, 4,
              &plan, msg, sizeof (msg)) != BSPLINE_OK) {
        fprintf (stderr, "%s: %s\n", cases[c].name, msg);
        ok = 0;
        continue;
      }
      plan_ms = now (CLOCK_MONOTONIC) - p0;
      if (!only || strcmp (only, "full") == 0) {
        if (!time_plan (cpu, plan, &src, &dst, warmup, repeat, &t)) {
          ok = 0;
          bspline_plan_free (plan);
          continue;
        }
        print_row (cases[c].name, NULL, threads[k], &t, plan_ms);
      }
      if (stages && plan->reduce) {
        /* the reduction's two plans alone, through an intermediate plane
         * of the plan's real type, as execute_reduction runs them */
        const bspline_reduction *r = plan->reduce;
        bspline_image inter;
        float *inter_data;
        memset (&inter, 0, sizeof (inter));
        inter.width = r->width;
        inter.height = r->height;
        inter.channels = 4;
        inter.type = BSPLINE_SAMPLE_F32;
        inter.stride = (ptrdiff_t) r->width * 4 * sizeof (float);
        inter_data = calloc ((size_t) r->width * r->height * 4,
            sizeof (float));
        inter.data = inter_data;
        if (!inter_data)
          ok = 0;
        if (inter_data && (!only || strcmp (only, "project") == 0)) {
          char stage[96];
          snprintf (stage, sizeof (stage), "project %dx%d", r->width,
              r->height);
          if (time_plan (cpu, r->project, &src, &inter, warmup, repeat, &t))
            print_row (cases[c].name, stage, threads[k], &t, -1);
          else
            ok = 0;
        }
        /* the sample plan reads the project plan's output */
        if (inter_data && only && strcmp (only, "sample") == 0
            && bspline_cpu_execute (cpu, r->project, &src, &inter)
            != BSPLINE_OK)
          ok = 0;
        if (inter_data && (!only || strcmp (only, "sample") == 0)) {
          if (time_plan (cpu, r->sample, &inter, &dst, warmup, repeat, &t))
            print_row (cases[c].name, "sample", threads[k], &t, -1);
          else
            ok = 0;
        }
        free (inter_data);
      }
      bspline_plan_free (plan);
    }
    bspline_cpu_free (cpu);
  }
  if (output) {
    FILE *f = fopen (output, "wb");
    if (!f || fwrite (dst_data, 1, (size_t) out_w * out_h * 4, f)
        != (size_t) out_w * out_h * 4 || fclose (f) != 0) {
      fprintf (stderr, "%s: cannot write the output\n", output);
      ok = 0;
    }
  }
  free (src_data);
  free (dst_data);
  return ok ? 0 : 1;

usage:
  fprintf (stderr, "usage: %s [--in WxH] [--out WxH] [--threads 1,2] "
      "[--repeat N] [--warmup N] [--input FILE.rgba] [--case NAME]... "
      "[--stages] [--only full|project|sample] [--dump FILE.rgba] "
      "[--output FILE.rgba]\n  cases:", argv[0]);
  for (c = 0; c < N_CASES; c++)
    fprintf (stderr, " %s", cases[c].key);
  fprintf (stderr, "\n");
  return 2;
}
