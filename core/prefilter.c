/* prefilter.c: the direct B-spline transform of an image plane.
 *
 * Unser's recursive filters with the exact, boundary-specific
 * initialisations and precision-driven truncation of Briand & Monasse
 * (2018) as presented in Briand & Davy (2019), section 2 (seed 001). */
#include "internal.h"

#include <string.h>

#define PREFILTER_MAX_LANES 64
/* The causal pass of the streaming path splits the lines into chunks of
 * at least this many lines: more than any truncation index, so that only
 * the first chunk meets the top border. */
#define CAUSAL_CHUNK_ROWS 256

/* Source row of line `line` of the padded storage of a column, or -1 for
 * a line of the constant extension. */
static int
bspline_source_row (const bspline_plan * plan, int line)
{
  int y = line - plan->pad;
  if (y >= 0 && y < plan->src_height)
    return y;
  if (plan->params.boundary == BSPLINE_BOUNDARY_CONSTANT)
    return -1;
  return y < 0 ? 0 : plan->src_height - 1;
}

#define REAL double
#define SUFFIX(name) name##_d
#include "prefilter-impl.h"
#undef REAL
#undef SUFFIX

#define REAL float
#define SUFFIX(name) name##_f
#include "prefilter-impl.h"
#undef REAL
#undef SUFFIX

typedef struct
{
  const bspline_plan *plan;
  const bspline_image *src;
  const bspline_coefficients *coef;
  void *last_line;
  char *scratch;
  size_t worker_size;           /* bytes of scratch per worker */
  int n_lines;                  /* lines of the padded storage */
  int n_bands;
  ptrdiff_t n_values;           /* values per stored row */
} prefilter_job;

static size_t
real_size (const bspline_plan * plan)
{
  return plan->use_double ? sizeof (double) : sizeof (float);
}

/* Per worker: one group of lines, one converted source row and the two
 * rows of a chunk's warm-up, in 64-byte units. */
static size_t
worker_size (const bspline_plan * plan)
{
  size_t width = (size_t) plan->src_width + 2 * (size_t) plan->pad;
  size_t values = width * BSPLINE_GROUP_LANES
      + (size_t) plan->src_width * plan->channels
      + 2 * width * plan->channels;
  return (values * real_size (plan) + 63) / 64 * 64;
}

size_t
bspline_prefilter_scratch_size (const bspline_plan * plan, int n_workers)
{
  return worker_size (plan) * (size_t) n_workers;
}

static void
band (const prefilter_job * job, int task, int *first, int *last)
{
  *first = (int) ((long long) job->n_lines * task / job->n_bands);
  *last = (int) ((long long) job->n_lines * (task + 1) / job->n_bands);
}

static void
row_task (void *data, int task, int worker)
{
  const prefilter_job *job = data;
  void *scratch = job->scratch + job->worker_size * worker;
  int first, last;
  band (job, task, &first, &last);
  if (job->plan->use_double)
    prefilter_rows_d (job->plan, job->src, job->coef, first, last, scratch);
  else
    prefilter_rows_f (job->plan, job->src, job->coef, first, last, scratch);
}

static void
column_task (void *data, int task, int worker)
{
  const prefilter_job *job = data;
  ptrdiff_t v0 = (ptrdiff_t) task * PREFILTER_MAX_LANES;
  int lanes = (int) (job->n_values - v0 < PREFILTER_MAX_LANES ?
      job->n_values - v0 : PREFILTER_MAX_LANES);
  (void) worker;
  if (job->plan->use_double)
    prefilter_columns_d (job->plan, job->coef, v0, lanes);
  else
    prefilter_columns_f (job->plan, job->coef, v0, lanes);
}

static void
causal_task (void *data, int task, int worker)
{
  const prefilter_job *job = data;
  void *scratch = job->scratch + job->worker_size * worker;
  int first, last;
  band (job, task, &first, &last);
  if (job->plan->use_double)
    causal_lines_d (job->plan, job->src, job->coef, first, last,
        job->last_line, scratch);
  else
    causal_lines_f (job->plan, job->src, job->coef, first, last,
        job->last_line, scratch);
}

static void
job_init (prefilter_job * job, const bspline_plan * plan,
    const bspline_image * src, const bspline_coefficients * coef,
    void *scratch)
{
  job->plan = plan;
  job->src = src;
  job->coef = coef;
  job->last_line = NULL;
  job->scratch = scratch;
  job->worker_size = worker_size (plan);
  job->n_lines = coef->height + 2 * coef->pad;
  job->n_values = coef->row_len;
}

void
bspline_prefilter_image (bspline_pool * pool, const bspline_plan * plan,
    const bspline_image * src, const bspline_coefficients * coef,
    void *scratch)
{
  prefilter_job job;
  int bands = 4 * bspline_pool_size (pool);

  job_init (&job, plan, src, coef, scratch);
  job.n_bands = job.n_lines < bands ? job.n_lines : bands;
  bspline_pool_run (pool, job.n_bands, row_task, &job);
  if (plan->prefilter)
    bspline_pool_run (pool,
        (int) ((job.n_values + PREFILTER_MAX_LANES - 1) /
            PREFILTER_MAX_LANES), column_task, &job);
}

void
bspline_prefilter_causal (bspline_pool * pool, const bspline_plan * plan,
    const bspline_image * src, const bspline_coefficients * coef,
    void *last_line, void *scratch)
{
  prefilter_job job;

  job_init (&job, plan, src, coef, scratch);
  job.last_line = last_line;
  /* as many chunks whatever the pool, so that the output does not depend
   * on the number of threads */
  job.n_bands = job.n_lines / CAUSAL_CHUNK_ROWS;
  if (job.n_bands < 1)
    job.n_bands = 1;
  bspline_pool_run (pool, job.n_bands, causal_task, &job);
}
