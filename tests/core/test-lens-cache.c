/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-lens-cache: a plan with a lens or STMap stage keeps the input points
 * of its output pixels from its second execution on
 * (core/resample/point-cache.c); its outputs must not change for it.
 *
 * For random lens cases (lens-cases.h: brown, fisheye, STMap; float and
 * double; 1, 2, 3 and 4 channels; orders 0-5 and 7, Keys bicubic;
 * antialias none and the default): a plan executed five times in a row on
 * engines of 1, 2, 4, 1 and 2 threads (execution 1 computes its points
 * into the engine's scratch, 2 fills the cache, 3-5 read it) writes, every
 * time, the bytes of another plan of the same case executed once; the
 * cache is ready after the second execution and not after the first (a
 * plan made for one frame, as bsplinestabilize makes them, never
 * allocates one); where the cached points read a window of the input,
 * executions 3-5 within the window's truncation of those bytes
 * (same_output).  Every fourth case, a third plan is executed three times
 * by each of two threads at once, on engines of their own (one fills the
 * cache while the other computes its own points, then both read it):
 * the same bytes again.  Sources of random values; outputs in float (a
 * change in the last place shows) or 8 bits. */
#include "lens-cases.h"
#include "resample.h"

#include <pthread.h>

#define N_CASES 48
#define N_EXECUTIONS 5

static int
same_image (const bspline_image * a, const bspline_image * b)
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

/* Where the plan's points read a window of the input (from its third
 * execution on: bspline_point_cache_window), the engine prefilters only
 * the window, which moves the output by the prefilter's truncation (below
 * 1e-7 of the signal range, docs/accuracy.md): then within 1e-6 of the
 * sources' range (300) in float, a code value in 8 bits; else the same
 * bytes. */
static int
same_output (const bspline_plan * plan, const bspline_image * a,
    const bspline_image * b)
{
  const double tolerance = a->type == BSPLINE_SAMPLE_U8 ? 1.0 : 3e-4;
  int window[4], x, y, c;
  if (!bspline_point_cache_window (plan, window))
    return same_image (a, b);
  for (y = 0; y < a->height; y++)
    for (x = 0; x < a->width; x++)
      for (c = 0; c < a->channels; c++)
        if (!(fabs (test_image_get (a, x, y, c) - test_image_get (b, x, y,
                        c)) <= tolerance))
          return 0;
  return 1;
}

typedef struct
{
  const bspline_plan *plan;
  const bspline_image *src, *reference;
  bspline_image dst;
  int n_threads;
  int failures;                 /* executions that failed or differed */
} concurrent_run;

static void *
run_three_times (void *data)
{
  concurrent_run *r = data;
  bspline_cpu *cpu = bspline_cpu_new (r->n_threads);
  int k;
  if (!cpu) {
    r->failures = 3;
    return NULL;
  }
  for (k = 0; k < 3; k++) {
    memset (r->dst.data, 0, (size_t) r->dst.height * r->dst.stride);
    if (bspline_cpu_execute (cpu, r->plan, r->src, &r->dst) != BSPLINE_OK
        || !same_output (r->plan, &r->dst, r->reference))
      r->failures++;
  }
  bspline_cpu_free (cpu);
  return NULL;
}

int
main (void)
{
  static const int threads[N_EXECUTIONS] = { 1, 2, 4, 1, 2 };
  test_rng rng;
  bspline_cpu *cpus[5] = { NULL };
  int n_threads[] = { 1, 2, 4 }, k, e, cached = 0, concurrent = 0;
  int n_cases = test_trials (N_CASES);

  test_begin ("lens-cache", &rng);
  for (k = 0; k < 3; k++) {
    cpus[n_threads[k]] = bspline_cpu_new (n_threads[k]);
    if (!cpus[n_threads[k]]) {
      printf ("cannot start the CPU engine\n");
      return 1;
    }
  }
  for (k = 0; k < n_cases; k++) {
    lens_case c;
    bspline_plan *plan = NULL, *once = NULL;
    bspline_image src, reference, dst;
    bspline_sample_type out_type;
    double range[2];
    char msg[256];

    lens_case_draw (&rng, &c);
    out_type = test_rng_int (&rng, 0, 3) ? BSPLINE_SAMPLE_F32 :
        BSPLINE_SAMPLE_U8;
    test_image_alloc (&src, c.src_width, c.src_height, c.channels,
        test_rng_int (&rng, 0, 1) ? BSPLINE_SAMPLE_U8 : BSPLINE_SAMPLE_F32,
        test_rng_int (&rng, 0, 3));
    test_image_fill_random (&src, &rng, -20.0, 280.0, range);
    test_image_alloc (&reference, c.dst_width, c.dst_height, c.channels,
        out_type, test_rng_int (&rng, 0, 3));
    test_image_alloc (&dst, c.dst_width, c.dst_height, c.channels, out_type,
        test_rng_int (&rng, 0, 3));

    TEST_CHECK (lens_case_plan (&c, &once, msg, sizeof (msg)) == BSPLINE_OK
        && lens_case_plan (&c, &plan, msg, sizeof (msg)) == BSPLINE_OK,
        "case %d (%s): plan: %s", k, c.name, msg);
    if (!plan || !once)
      goto next;
    TEST_CHECK (bspline_cpu_execute (cpus[1], once, &src, &reference)
        == BSPLINE_OK, "case %d (%s): %s", k, c.name,
        bspline_cpu_last_error (cpus[1]));
    TEST_CHECK (!bspline_point_cache_ready (once), "case %d (%s): a plan "
        "executed once has a cache", k, c.name);
    for (e = 0; e < N_EXECUTIONS; e++) {
      bspline_cpu *cpu = cpus[threads[e]];
      memset (dst.data, 0, (size_t) dst.height * dst.stride);
      TEST_CHECK (bspline_cpu_execute (cpu, plan, &src, &dst) == BSPLINE_OK,
          "case %d (%s), execution %d: %s", k, c.name, e + 1,
          bspline_cpu_last_error (cpu));
      TEST_CHECK (same_output (plan, &dst, &reference), "case %d (%s): "
          "execution %d (%d threads) differs from a plan executed once", k,
          c.name, e + 1, threads[e]);
      TEST_CHECK (bspline_point_cache_ready (plan) == (e >= 1),
          "case %d (%s): after execution %d the cache is %s", k, c.name,
          e + 1, bspline_point_cache_ready (plan) ? "ready" : "not ready");
    }
    cached += bspline_point_cache_ready (plan);
    if (k % 4 == 0) {
      bspline_plan *shared = NULL;
      concurrent_run runs[2];
      pthread_t tid[2];
      int t;
      TEST_CHECK (lens_case_plan (&c, &shared, msg, sizeof (msg))
          == BSPLINE_OK, "case %d (%s): plan: %s", k, c.name, msg);
      if (shared) {
        for (t = 0; t < 2; t++) {
          runs[t].plan = shared;
          runs[t].src = &src;
          runs[t].reference = &reference;
          runs[t].n_threads = t + 1;
          runs[t].failures = 0;
          test_image_alloc (&runs[t].dst, c.dst_width, c.dst_height,
              c.channels, out_type, t);
        }
        for (t = 0; t < 2; t++)
          if (pthread_create (&tid[t], NULL, run_three_times, &runs[t]))
            run_three_times (&runs[t]), tid[t] = 0;
        for (t = 0; t < 2; t++) {
          if (tid[t])
            pthread_join (tid[t], NULL);
          TEST_CHECK (runs[t].failures == 0, "case %d (%s): %d of the "
              "three executions by thread %d (beside another) failed or "
              "differ from a plan executed once", k, c.name,
              runs[t].failures, t);
          test_image_free (&runs[t].dst);
        }
        TEST_CHECK (bspline_point_cache_ready (shared), "case %d (%s): six "
            "executions on two threads left no cache", k, c.name);
        concurrent++;
      }
      bspline_plan_free (shared);
    }
  next:
    bspline_plan_free (plan);
    bspline_plan_free (once);
    test_image_free (&src);
    test_image_free (&reference);
    test_image_free (&dst);
    lens_case_clear (&c);
  }
  for (k = 0; k < 3; k++)
    bspline_cpu_free (cpus[n_threads[k]]);
  return test_end ("%d lens plans executed %d times (1, 2, 4, 1, 2 "
      "threads), %d with their points cached, %d of them also on two "
      "threads at once: the bytes of a plan executed once", n_cases,
      N_EXECUTIONS, cached, concurrent);
}
