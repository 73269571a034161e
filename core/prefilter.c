/* prefilter.c: the direct B-spline transform of an image plane.
 *
 * Unser's recursive filters with the exact, boundary-specific
 * initialisations and precision-driven truncation of Briand & Monasse
 * (2018) as presented in Briand & Davy (2019), section 2 (seed 001). */
#include "internal.h"

#define PREFILTER_MAX_LANES 64

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
  int n_bands;
  ptrdiff_t n_values;           /* values per stored row */
} prefilter_job;

static void
row_task (void *data, int task)
{
  const prefilter_job *job = data;
  int h = job->coef->height;
  int first = (int) ((long long) h * task / job->n_bands);
  int last = (int) ((long long) h * (task + 1) / job->n_bands);
  if (job->plan->use_double)
    prefilter_rows_d (job->plan, job->src, job->coef, first, last);
  else
    prefilter_rows_f (job->plan, job->src, job->coef, first, last);
}

static void
column_task (void *data, int task)
{
  const prefilter_job *job = data;
  ptrdiff_t v0 = (ptrdiff_t) task * PREFILTER_MAX_LANES;
  int lanes = (int) (job->n_values - v0 < PREFILTER_MAX_LANES ?
      job->n_values - v0 : PREFILTER_MAX_LANES);
  if (job->plan->use_double)
    prefilter_columns_d (job->plan, job->coef, v0, lanes);
  else
    prefilter_columns_f (job->plan, job->coef, v0, lanes);
}

void
bspline_prefilter_image (bspline_pool * pool, const bspline_plan * plan,
    const bspline_image * src, const bspline_coefficients * coef)
{
  prefilter_job job;
  int bands = 4 * bspline_pool_size (pool);

  job.plan = plan;
  job.src = src;
  job.coef = coef;
  job.n_bands = coef->height < bands ? coef->height : bands;
  job.n_values = coef->row_len;
  bspline_pool_run (pool, job.n_bands, row_task, &job);
  bspline_pool_run (pool,
      (int) ((job.n_values + PREFILTER_MAX_LANES - 1) / PREFILTER_MAX_LANES),
      column_task, &job);
}
