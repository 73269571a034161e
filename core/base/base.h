/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* base.h: what the core's folders share: the thread pool
 * (threadpool.c), the x86 dispatch of the vector code, error messages
 * (status.c) and the mark of the internals that the library exports.
 *
 * Not installed.  Included by core/'s files, and by cuda/, the tests and
 * the benchmarks for the functions marked BSPLINE_INTERNAL_API. */
#ifndef BSPLINE_BASE_H
#define BSPLINE_BASE_H

#include "bspline.h"

#include <stddef.h>
#include <stdint.h>

/* libbspline-1.0 is built with hidden visibility: BSPLINE_INTERNAL_API
 * exports a function that the installed headers do not declare, for
 * cuda/, the tests and the benchmarks only; it is not part of the API
 * (tests/core/exported-symbols.txt lists these in a section of their
 * own). */
#if defined(__GNUC__)
#define BSPLINE_INTERNAL_API __attribute__ ((visibility ("default")))
#else
#define BSPLINE_INTERNAL_API
#endif

/* ---- thread pool (threadpool.c) ---- */
typedef struct bspline_pool bspline_pool;
/* worker: 0 for the calling thread, 1 .. size - 1 for the pool's threads,
 * so that a task can use per-thread scratch. */
typedef void (*bspline_task_fn) (void *ctx, int task, int worker);

BSPLINE_INTERNAL_API
int bspline_online_cores (void);
/* The most threads a pool starts: min (requested, 4 x online cores, 256);
 * 0 (or less) asks for one per online core.  The bands of a frame are
 * claimed by whichever thread is free, so threads beyond the cores only
 * take turns, while each holds a stack of address space (8 MiB by
 * default): n-threads=1024 once took a process's whole address space.
 * Four per core still covers a core count that under-reports what the
 * process may use. */
#define BSPLINE_POOL_THREADS_PER_CORE 4
#define BSPLINE_POOL_MAX_THREADS 256
int bspline_pool_threads (int n_threads);
/* A pool of bspline_pool_threads (n_threads) threads, the caller's
 * included, or fewer where the system creates fewer. */
BSPLINE_INTERNAL_API
bspline_pool *bspline_pool_new (int n_threads);
BSPLINE_INTERNAL_API
int bspline_pool_size (const bspline_pool * pool);
/* Runs fn(ctx, 0 .. n_tasks-1, worker) on the pool and the calling
 * thread. */
BSPLINE_INTERNAL_API
void bspline_pool_run (bspline_pool * pool, int n_tasks, bspline_task_fn fn,
    void *ctx);
/* For tasks of one bspline_pool_run that depend on others: waits until
 * ready (ctx, arg) holds, checked under the pool's lock; update runs
 * under that lock and wakes the waiting tasks.  Tasks are claimed in
 * index order (and run in that order on a pool of one thread), so a task
 * that waits only for tasks of lower index cannot wait forever. */
void bspline_pool_wait (bspline_pool * pool, int (*ready) (void *ctx,
        int arg), void *ctx, int arg);
void bspline_pool_update (bspline_pool * pool, void (*update) (void *ctx,
        int arg), void *ctx, int arg);
BSPLINE_INTERNAL_API
void bspline_pool_free (bspline_pool * pool);

/* ---- vector code ----
 *
 * The hot loops are plain C over constant lane counts, which the compiler
 * vectorises.  On x86-64 with GCC every engine task is compiled three
 * times, for AVX-512 (x86-64-v4), AVX2 (x86-64-v3) and the baseline, and
 * the loader picks one for the machine (ifunc).  The core is built in ISO C
 * mode, where GCC contracts no a * b + c into a fused multiply-add: the
 * fused ones are written out (fmaf, see BSPLINE_SUM4), so the three
 * versions compute bit-identical values.  Defining
 * BSPLINE_NO_X86_DISPATCH (tests/core builds a copy of the core with it)
 * leaves only the plain C loops, the reference of every x86 kernel. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) \
    && defined(__ELF__) && __GNUC__ >= 12 && !defined(BSPLINE_NO_X86_DISPATCH)
#define BSPLINE_X86_DISPATCH 1
#define BSPLINE_VECTOR_CLONES \
  __attribute__ ((target_clones ("arch=x86-64-v4", "arch=x86-64-v3", \
              "default")))
#else
#define BSPLINE_X86_DISPATCH 0
#define BSPLINE_VECTOR_CLONES
#endif

/* The small kernels that the tasks above call are inlined into each of
 * their versions. */
#if defined(__GNUC__)
#define BSPLINE_INLINE inline __attribute__ ((always_inline))
#else
#define BSPLINE_INLINE inline
#endif

#if BSPLINE_X86_DISPATCH
/* Whether the AVX-512 kernels (F and BW) may run, and the AVX2 ones.
 * Defining BSPLINE_NO_AVX512 turns the former off, so that tests/core can
 * check the AVX2 kernels on a machine that has AVX-512. */
static inline int
bspline_x86_avx512 (void)
{
#ifdef BSPLINE_NO_AVX512
  return 0;
#else
  return __builtin_cpu_supports ("avx512f")
      && __builtin_cpu_supports ("avx512bw") && __builtin_cpu_supports ("fma");
#endif
}

static inline int
bspline_x86_avx2 (void)
{
  return __builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma");
}
#endif

/* ---- errors (status.c) ---- */
/* Formats an error message into msg (msg_len bytes), where msg is not
 * NULL. */
BSPLINE_INTERNAL_API
void bspline_set_error (char *msg, size_t msg_len, const char *fmt, ...);

#endif /* BSPLINE_BASE_H */
