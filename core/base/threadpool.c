/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* threadpool.c: a small persistent pthread pool.
 *
 * A frame is split into bands (rows, column strips) and each band is one
 * task; the caller's thread works too.  Threads are created once per engine
 * so that a video stream does not pay thread creation on every frame. */
#include "base.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

/* What a worker thread needs to know: its pool and its index (1 .. n). */
struct bspline_worker
{
  bspline_pool *pool;
  int index;
};

struct bspline_pool
{
  pthread_mutex_t lock;
  pthread_cond_t work_cond;     /* workers wait here for a generation */
  pthread_cond_t done_cond;     /* the caller waits here for completion */
  pthread_cond_t ready_cond;    /* tasks wait here for other tasks */
  pthread_t *threads;
  struct bspline_worker *workers;
  int n_workers;
  int n_kept;                   /* workers of a higher index leave */
  int quit;
  unsigned long generation;
  bspline_task_fn fn;
  void *ctx;
  int n_tasks, next_task, n_done;
};

int
bspline_online_cores (void)
{
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int) n : 1;
}

/* Claims and runs tasks until none is left; called with the lock held. */
static void
run_tasks_locked (bspline_pool * pool, int worker)
{
  while (pool->next_task < pool->n_tasks) {
    int task = pool->next_task++;
    bspline_task_fn fn = pool->fn;
    void *ctx = pool->ctx;
    pthread_mutex_unlock (&pool->lock);
    fn (ctx, task, worker);
    pthread_mutex_lock (&pool->lock);
    if (++pool->n_done == pool->n_tasks)
      pthread_cond_signal (&pool->done_cond);
  }
}

static void *
worker_main (void *data)
{
  const struct bspline_worker *self = data;
  bspline_pool *pool = self->pool;
  unsigned long seen = 0;

  pthread_mutex_lock (&pool->lock);
  for (;;) {
    while (!pool->quit && self->index <= pool->n_kept
        && pool->generation == seen)
      pthread_cond_wait (&pool->work_cond, &pool->lock);
    if (pool->quit || self->index > pool->n_kept)
      break;
    seen = pool->generation;
    run_tasks_locked (pool, self->index);
  }
  pthread_mutex_unlock (&pool->lock);
  return NULL;
}

/* A thread could not be created: the process is at its limit of threads
 * or of address space (each thread's stack), and the threads that
 * GStreamer and the application start next (a streaming thread) need that
 * room as much as the pool does.  The pool keeps half of the workers it
 * made and lets the others go: fewer threads, never a process that can
 * start none. */
static void
pool_give_back_half (bspline_pool * pool)
{
  int i, made = pool->n_workers;

  pthread_mutex_lock (&pool->lock);
  pool->n_kept = made / 2;
  pthread_cond_broadcast (&pool->work_cond);
  pthread_mutex_unlock (&pool->lock);
  for (i = pool->n_kept; i < made; i++)
    pthread_join (pool->threads[i], NULL);
  pool->n_workers = pool->n_kept;
}

int
bspline_pool_threads (int n_threads)
{
  int cores = bspline_online_cores ();

  if (n_threads <= 0)
    return cores;
  if (n_threads > BSPLINE_POOL_THREADS_PER_CORE * cores)
    n_threads = BSPLINE_POOL_THREADS_PER_CORE * cores;
  return n_threads < BSPLINE_POOL_MAX_THREADS ? n_threads :
      BSPLINE_POOL_MAX_THREADS;
}

bspline_pool *
bspline_pool_new (int n_threads)
{
  bspline_pool *pool = calloc (1, sizeof (*pool));
  int i;

  if (!pool)
    return NULL;
  n_threads = bspline_pool_threads (n_threads);
  pool->n_kept = n_threads - 1;
  pthread_mutex_init (&pool->lock, NULL);
  pthread_cond_init (&pool->work_cond, NULL);
  pthread_cond_init (&pool->done_cond, NULL);
  pthread_cond_init (&pool->ready_cond, NULL);
  if (n_threads > 1) {
    pool->threads = calloc ((size_t) n_threads - 1, sizeof (pthread_t));
    pool->workers = calloc ((size_t) n_threads - 1,
        sizeof (struct bspline_worker));
    if (pool->threads && pool->workers) {
      /* A thread that cannot be created only makes the pool smaller. */
      for (i = 0; i < n_threads - 1; i++) {
        pool->workers[i].pool = pool;
        pool->workers[i].index = i + 1;
        if (pthread_create (&pool->threads[i], NULL, worker_main,
                &pool->workers[i]) != 0) {
          pool_give_back_half (pool);
          break;
        }
        pool->n_workers++;
      }
    }
  }
  return pool;
}

int
bspline_pool_size (const bspline_pool * pool)
{
  return pool->n_workers + 1;
}

void
bspline_pool_run (bspline_pool * pool, int n_tasks, bspline_task_fn fn,
    void *ctx)
{
  if (n_tasks <= 0)
    return;
  if (pool->n_workers == 0 || n_tasks == 1) {
    int i;
    for (i = 0; i < n_tasks; i++)
      fn (ctx, i, 0);
    return;
  }
  pthread_mutex_lock (&pool->lock);
  pool->fn = fn;
  pool->ctx = ctx;
  pool->n_tasks = n_tasks;
  pool->next_task = 0;
  pool->n_done = 0;
  pool->generation++;
  pthread_cond_broadcast (&pool->work_cond);
  run_tasks_locked (pool, 0);
  while (pool->n_done < pool->n_tasks)
    pthread_cond_wait (&pool->done_cond, &pool->lock);
  pool->n_tasks = 0;
  pthread_mutex_unlock (&pool->lock);
}

void
bspline_pool_wait (bspline_pool * pool, int (*ready) (void *ctx, int arg),
    void *ctx, int arg)
{
  pthread_mutex_lock (&pool->lock);
  while (!ready (ctx, arg))
    pthread_cond_wait (&pool->ready_cond, &pool->lock);
  pthread_mutex_unlock (&pool->lock);
}

void
bspline_pool_update (bspline_pool * pool, void (*update) (void *ctx,
        int arg), void *ctx, int arg)
{
  pthread_mutex_lock (&pool->lock);
  update (ctx, arg);
  pthread_cond_broadcast (&pool->ready_cond);
  pthread_mutex_unlock (&pool->lock);
}

void
bspline_pool_free (bspline_pool * pool)
{
  int i;
  if (!pool)
    return;
  pthread_mutex_lock (&pool->lock);
  pool->quit = 1;
  pthread_cond_broadcast (&pool->work_cond);
  pthread_mutex_unlock (&pool->lock);
  for (i = 0; i < pool->n_workers; i++)
    pthread_join (pool->threads[i], NULL);
  free (pool->threads);
  free (pool->workers);
  pthread_cond_destroy (&pool->work_cond);
  pthread_cond_destroy (&pool->done_cond);
  pthread_cond_destroy (&pool->ready_cond);
  pthread_mutex_destroy (&pool->lock);
  free (pool);
}
